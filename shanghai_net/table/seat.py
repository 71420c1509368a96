"""One seat's side of the whole game: `PeerTable` (see shanghai_net.table.stream)."""

from __future__ import annotations

import copy
from typing import Iterable

from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey

from ..cards import Card
from ..deal.box import SealedShare, raw_public
from ..deal.audit import Verdict
from ..deal.errors import CheatDetected, GenerationStopped
from ..deal.generation import Generation
from ..deal.messages import KeyReveal, Message, ShareReveal, SharedCommitment
from ..deal.shares import GenerationShares
from ..deal.participant import Participant
from ..deal.randomness import RandomBytes
from ..engine import new_game
from ..engine.dealer import Reveal, Shuffle, Token
from ..engine.events import Event
from ..engine.moves import CallShanghai, Move
from ..errors import IllegalMoveError
from ..wire import messages as wm
from ..wire.messages import Body, GameMessage, StartGame
from .fault import Fault
from .bodies import (DealStep, deal_body, move_to_body, parse_deal, reveals_body, seeds_body,
                     shares_body)
from .seating import follow_round
from .stream import PickState, StreamTable, check_move


class PeerTable(StreamTable):
    """One seat's side of the whole game.

    ``start()`` gives the bodies to send first; ``receive(msg)`` takes each game message the host
    sequenced, in order, and returns the bodies this seat must now sign and send (in order);
    ``submit(move)`` checks a move of this seat with the replica (raising the engine's
    IllegalMoveError) and returns the bodies that make it: the ``reveal`` of the hidden cards it
    shows, then the move.  A fault raises `Fault` (also kept in ``fault``).

    ``game`` is this seat's replica (``viewer=seat``): it knows this seat's cards and the public
    ones; bots and consoles look at it.  It may lag behind the public replica while its own cards
    are on their way (the engine draws one owed card at a time for its viewer), never past a move.
    """

    yields_seat = False
    """Whether this seat approves a ``replace`` of its own seat while the stream names it a bot
    (`_proposed`): a bot's client sets it (a stand-in gives the seat back to its first holder,
    or to a person who arrived late); a person's seat is never given away by the client
    alone."""

    def __init__(self, start: StartGame, seat: int, box_key: X25519PrivateKey,
                 random: RandomBytes) -> None:
        super().__init__(start)
        self._take_seat(seat, box_key, random, new_game(self.rules, self.players, None, seat))

    @classmethod
    def taking_over(cls, follower: StreamTable, seat: int, box_key: X25519PrivateKey,
                    random: RandomBytes) -> PeerTable:
        """The table of a replacement that followed the game without a seat (a spectator's
        table) until its keys took ``seat`` at the start of the deal now beginning, or mid-round
        (sharing on, R1): the game as the follower has it, and from here this seat's own
        replica (a copy of the public one) and deal secrets.  Its first bodies, the commitments
        of the round's deal (mid-round: of a restarted generation), are in ``start()``.
        Mid-round its participant replays the round's deal (`follow_round`) and its hand comes
        in the boxes the others hand it."""
        table = cls.__new__(cls)
        shared = vars(StreamTable(follower.start_game)).keys()  # what every party's table has
        table.__dict__.update({k: v for k, v in vars(follower).items() if k in shared})
        game = copy.deepcopy(follower.public)
        game.viewer = seat
        mid_round = seat in table.rekey_due
        if not mid_round and not any(r.round_no == table.round for r in table._shuffles):
            # seated while another seat is still vacant: the deal has not begun, and the last
            # one's steps (audited, or voided) are no one's to send now
            table.generations = set()
        table._take_seat(seat, box_key, random, game)
        for seq, proposal in sorted(table.proposals.items()):  # proposed before we had a say
            if seat in table.needed(proposal):  # (mid-round too: another lost seat's, soak 14-7)
                table._proposed(seq, proposal.body)
        if mid_round:
            table._follow_round()
            table._take_up_reveals()
            return table
        for request in table._shuffles:
            if request.generation in table.generations:
                table._start_generation(request)
        for pick in table._picks:  # the first-dealer pick held again, begun as we took the seat
            if seat in pick.parties and seat not in pick.commitments:
                table._pick_begin(pick)
        return table

    def _take_seat(self, seat: int, box_key: X25519PrivateKey, random: RandomBytes,
                   game) -> None:
        self.seat = seat
        self.game = game
        self.events: list[Event] = []
        self.roster = [X25519PublicKey.from_public_bytes(k) for k in self.round_box_keys()]
        """Every seat's box key at the round's start, what this seat seals its key shares
        to."""
        self._box_key = box_key
        self._random = random
        self._later: dict[bytes, tuple[X25519PrivateKey, RandomBytes]] = {}
        """Keys this seat plays with once the table seals its shares to them (`hold`)."""
        self.participant = self._own_participant(self.round)
        self.verdicts: dict[int, object] = {}
        self._deal_verdict: object = None
        """The running audit's verdict, until `_conclude_audit` shows it in ``verdicts``."""
        self._out: list[Body] = []
        self._shares: dict[tuple[int, int], list[int]] = {}
        self._reveals: list[KeyReveal] = []
        self._deferred: list[Token] = []
        self._own_picks = 0
        self._passes_sent: set[int] = set()
        """The generations whose pass this seat sent at the step the stream is at (a restart of
        the generation wipes it, `_lose_own`: the pass goes again).  Not the participant's
        `_made` (a pass made and not yet sequenced), which a restart keeps: the pass goes again
        the same message, so that if the host still sequences the copy it refused, the second
        is that copy word for word (the host's doing), not a second, different pass (its
        author's)."""
        self.complaint: str | None = None
        """What this seat found wrong in the deal and complained of (it then stops playing)."""

    def _own_participant(self, round_no: int) -> Participant:
        """This seat's deal of round ``round_no``: its own passes, boxes and share reveals
        join the deal when the stream brings them back, in the stream's order, as every other
        party's do (`Participant.own_when_sequenced`)."""
        participant = self._participant(round_no)
        participant.own_when_sequenced = True
        return participant

    def _participant(self, round_no: int) -> Participant:
        return Participant(self.seat, self.roster, self.game_id, round_no, self._box_key,
                           self._random, self.rules.shuffle_proof, self.share_threshold)

    # -- the API -------------------------------------------------------------------------------

    def start(self) -> list[Body]:
        """The bodies to send as the game starts (the first-dealer pick's commitment)."""
        self._guarded(self._settle)
        if self.fault is not None:
            raise self.fault
        out, self._out = self._out, []
        return out

    def receive(self, msg: GameMessage, own: bool = False) -> list[Body]:
        """Take the next sequenced message (``own``: one this seat signed, as the host's
        `Placed` answer gives it back); the bodies to send now."""
        self._take(msg, own)
        out, self._out = self._out, []
        return out

    def deal_over(self, body: wm.Deal) -> bool:
        """Whether ``body``, a deal step of this seat's that the stream made due, answers a deal
        that is over now (of a round gone by, or voided: `_dropped`): the host refuses it, and
        the seat that has seen the end must not sign it (`Outbox`, after the seat's own vote).
        A void of round 0 keeps the round's number, yet `_dropped` knows every step of that
        deal: round 0 deals no card (protocol.md 11.3), so a seat's only steps there are the
        first-dealer pick's ``pick_commit`` and ``pick_reveal``, and the pick held again takes
        the next pick number; the next deal's steps begin at round 1's shuffle, which takes
        round 1's number at once (`_new_round`)."""
        step = parse_deal(body, self.game_id, self.seat)
        return step.round < self.round or self._dropped(step) is not None

    def _conclude_audit(self, verdict: Fault | None) -> None:
        # shown once the audit is over: it may have run in another thread (`run_audit`)
        self.verdicts[self.round] = self._deal_verdict
        super()._conclude_audit(verdict)

    def finish_audit(self, outcome: tuple[Fault | None, Exception | None]) -> list[Body]:
        """`StreamTable.finish_audit`; the bodies to send now (the next round's commitment)."""
        super().finish_audit(outcome)
        out, self._out = self._out, []
        return out

    @property
    def settled(self) -> bool:
        # a seat that complained follows the public game only: its replica waits for a card
        # that will not open
        return super().settled and (self.complaint is not None or (
            not self.game.waiting and not (self.seat in self.rekey_due and self._hand_unknown())))

    def can_move(self) -> bool:
        """This seat has a decision to make now: not while the table has voted it gone (its
        key plays no more: its replica may still show its turn, which waits for the seat's
        next holder)."""
        return self.fault is None and self.complaint is None and self.settled and \
            self.seat not in self.vacant and self.seat in self.game.to_move()

    def legal_moves(self) -> list[Move]:
        return list(self.game.legal_moves(self.seat)) if self.settled else []

    def submit(self, move: Move) -> list[Body]:
        """The bodies that make ``move``; IllegalMoveError (nothing sent) if it is illegal now."""
        if move.seat != self.seat:
            raise IllegalMoveError(f"{move.text()!r}: this table plays seat {self.seat}")
        if not self.settled:
            raise IllegalMoveError(f"{move.text()!r}: the deal is not settled yet")
        check_move(self.game, move)
        return self.bodies_for(move)

    def bodies_for(self, move: Move) -> list[Body]:
        """The bodies of a move already checked: its hidden cards' reveal, then the move."""
        top = self.game.discard[-1] if self.game.discard else None
        body = move_to_body(move, top if isinstance(move, CallShanghai) else None)
        hidden = self.participant.hand()
        tokens: list[Token] = []
        for card in _cards_named(move):
            token = next((t for t, c in hidden.items() if c == card), None)
            if token is not None and token not in tokens:
                tokens.append(token)
        reveals = [self.participant.reveal(*token) for token in tokens]
        return ([reveals_body(self.round, reveals)] if reveals else []) + [body]

    # -- the seat's own replica ----------------------------------------------------------------

    def _applied(self, author: int, move: Move) -> None:
        super()._applied(author, move)
        if self.complaint is not None:
            return  # its replica waits for a card that will not open: the audit comes next
        if self.game.waiting:
            raise Fault(None, f"seat {self.seat}'s replica is behind at {move.text()!r}")
        try:
            self.events.extend(self.game.apply(move))
        except IllegalMoveError as error:
            raise Fault(author, f"seat {author}: {error}") from None

    def _void_own(self, scored: bool, go_on: bool = False, leaver: int | None = None) -> None:
        if not go_on:
            self.events.extend(self.game.void_round(scored))
            return
        self._shares, self._reveals, self._deferred = {}, [], []
        self.complaint = None  # of a round no one plays any more
        self.events.extend(self.game.void_round(scored, leaver=leaver, go_on=True))

    def _lose_own(self, seat: int, holders: tuple[int, ...], paid: bool) -> None:
        """R1: this seat's replica and deal lose ``seat`` too; a holder of its rebuilt
        generations publishes its shares of them now.  The deal takes them in when the stream
        brings them back (`_published_own`), in stream order, not as they are made.  A
        generation whose passes had not begun restarts: a pass of ours made for it and not
        sequenced is sent again once every fresh commit is in (the host refused it).  A replica
        that has scored the round already (the lost seat's own, alive and voted gone while the
        hands were shown: it knows every card) has no running round to lose it from: the seat
        is out, and its table takes the rest of the stream quietly."""
        if not any(result.round_no == self.round for result in self.game.results):
            self.events.extend(self.game.lose_seat(seat, pays=paid))
        self.participant.lose(seat, holders)
        self._passes_sent.difference_update(
            generation for generation in self.generations if not self._passes.get(generation))
        if self.rebuilds[seat].owed.get(self.seat):
            self._out.append(deal_body(self.participant.share_reveal(seat)))

    def _generation_record(self, generation: int) -> Generation:
        return self.participant.generation(generation)

    def _follow_round(self) -> None:
        """A replacement seated mid-round: its participant takes the round so far, in stream
        order; it commits afresh to a generation whose passes had not begun."""
        try:
            follow_round(self.participant, self.round_events)
        except (ValueError, CheatDetected) as error:  # the follower checked every step of it
            raise Fault(None, f"seat {self.seat}'s replay of round {self.round}: {error}") \
                from None
        self._own_picks = sum(pick.result is not None for pick in self._picks)
        for generation in sorted(self.generations):
            if self.seat not in self._commits.get(generation, ()) and \
                    not self._passes.get(generation):
                self._out.append(deal_body(self.participant.recommit(generation)))

    def _take_up_reveals(self) -> None:
        """A replacement seated mid-round owes every reveal of its hand's cards the round asked
        before its seating (the hands shown at the round's end: its seat lost while they were,
        or vacant when the round ended), as its seat would have: each made once the handed keys
        open the card (`_obligations`).  Its seat's own key of a card turned up it does not owe:
        that key is public (rebuilt); nor a card the others show without its holder
        (`_shown_without_holder`)."""
        for token in self._publics:
            if self.holder_of(token) == self.seat and token not in self._shown_without_holder:
                self._reveal_public(token)

    def _seated_own(self, seat: int, box_key: bytes, holders: tuple[int, ...]) -> None:
        """R1: lost ``seat``'s replacement plays it from here: this seat's replica counts it
        again, its deal seals to the replacement's box key, and this seat hands it its keys of
        the seat's hand (`MidRoundSeating`).  The lost player's own table follows another
        seat's replacement too (it takes its messages from here) and hands it nothing: a vacant
        seat owes no handed keys (`_seated_now`)."""
        self.game.seat_back(seat)
        if seat == self.seat:  # (the lost player's own table)
            return
        self.participant.seat_replacement(seat, X25519PublicKey.from_public_bytes(box_key),
                                          holders)
        for (to, generation), senders in sorted(self.handed_owed.items()):
            if to == seat and self.seat in senders:
                sealed = self.participant.hand_to_replacement(generation, seat)
                self._out.append(shares_body(self.round, generation, [sealed]))

    def _seat_handed(self, author: int, sealed: SealedShare) -> None:
        if author == self.seat or self.seat in self.vacant:
            return
        try:
            self.participant.record_handed(sealed)
        except CheatDetected as cheat:  # the replacement's box does not open
            self._complain(cheat)
        except ValueError as error:
            raise Fault(author, f"seat {author}: shares: {error}") from None

    def _published_own(self, author: int, reveal: ShareReveal) -> None:
        try:
            self.participant.receive(reveal)
        except ValueError as error:
            raise Fault(author, f"seat {author}: share_reveal: {error}") from None

    def _rebuilt_nonce(self, pick: int, seat: int) -> bytes | None:
        return self.participant.pick_nonce(pick, seat)

    def _shares_timed_out_own(self, lost: int, holder: int) -> None:
        self.participant.time_out_shares(lost, holder)

    def _proposed(self, seq: int, body: wm.Replace) -> None:
        """The reference seat's rule (protocol.md 11.8): it approves anyone the host proposes
        for a seat the table voted gone or one a stand-in bot plays (`Roster.up_for_taking`:
        its first holder coming back, or a person who arrived late), and hands its own seat on
        only when it is such a bot itself (``yields_seat``); never a person's seat, its own or
        another's (that takes the player's own word)."""
        if self.seat in self.vacant:
            return
        if body.seat == self.seat:
            approves = self.yields_seat and self.holders[self.seat].kind == "bot"
        else:
            approves = self.up_for_taking(body.seat)
        if approves:
            self._out.append(wm.Approve(seq=seq))

    def hold(self, box_key: X25519PrivateKey, random: RandomBytes) -> None:
        """Play with ``box_key`` and ``random`` from the deal at which the table seals this
        seat's shares to ``box_key`` (a seat handed to us: our own keys after the handed ones,
        protocol.md 11.9)."""
        self._later[raw_public(box_key.public_key())] = (box_key, random)

    def _rekeyed(self, seat: int) -> None:
        self.roster = [*self.roster]  # the rounds before keep theirs
        self.roster[seat] = X25519PublicKey.from_public_bytes(self.holders[seat].box_key)
        if seat == self.seat and self.holders[seat].box_key in self._later:
            self._box_key, self._random = self._later.pop(self.holders[seat].box_key)

    def _learn_public(self, token: Token, card: Card) -> None:
        super()._learn_public(token, card)
        if self.game.round_no == self.round:  # not once it has moved on to the next round
            self.events.extend(self.game.learn(token, card))

    def _complain(self, cheat: CheatDetected, share: wm.ShareComplained | None = None) -> None:
        """A fault only this seat can see: tell the table (once), and stop playing; the audit
        the complaint starts decides who is at fault.  ``share``: the seed share it found bad
        (sharing on), after which it sends nothing more of that generation; a further bad
        share goes in a further complaint, so that its seeds may carry nil for it."""
        if self.complaint is None or share is not None:
            self.complaint = self.complaint or cheat.reason[:500]
            self._out.append(wm.Complaint(round=self.round, reason=cheat.reason[:500],
                                          share=None if share is None else (share,)))

    def _complained_of_share(self, message: Message) -> wm.ShareComplained | None:
        """The share this seat complains of, if ``message`` is a commit whose share for this
        seat was bad (the participant then holds the complaint); None for a fault of the
        commit every party sees (an invalid point), which names its dealer."""
        if not isinstance(message, SharedCommitment):
            return None
        generation = message.context.generation
        sharing = self.participant.generation(generation).sharing
        if sharing is None or message.author not in sharing.complaints.get(self.seat, ()):
            return None
        return wm.ShareComplained(dealer=message.author, generation=generation)

    def _catch_up(self) -> bool:
        """Answer what this seat's replica waits for, from what the stream has brought so far."""
        self.game.requests  # noqa: B018 - drained: what it still awaits is the truth
        if self.game.round_no != self.round or self.complaint is not None:
            return False  # it knows its own cards: it may start a round before the deal does
        progress = self._open_handed()
        for request in self.game.awaiting:
            if isinstance(request, Shuffle):
                if request.round_no == self.round and self.shuffled(request.generation):
                    self.events.extend(self.game.fulfil_shuffle(request.generation))
                    progress = True
            elif isinstance(request, Reveal):
                generation, position = request.token
                if request.to is None:
                    card = self._public_card(request.token)
                else:
                    g = self.participant.generation(generation)
                    card = None
                    if position in g.mine or self._keys_in(g, position):
                        try:
                            card = self.participant.open(generation, position)
                        except CheatDetected as cheat:
                            self._complain(cheat)
                            return False
                if card is not None:
                    self.events.extend(self.game.learn(request.token, card))
                    progress = True
            elif self._own_picks < len(self._picks) and \
                    self._picks[self._own_picks].result is not None:
                value = self._picks[self._own_picks].result
                self._own_picks += 1
                self.events.extend(self.game.fulfil_pick(value))
                progress = True
            if progress:
                break  # the pending list changed
        return progress

    # -- hooks ---------------------------------------------------------------------------------

    def _new_round(self, round_no: int) -> None:
        super()._new_round(round_no)
        self.participant = self._own_participant(round_no)
        self._own_picks = 0
        self._passes_sent = set()

    def _start_generation(self, request: Shuffle) -> None:
        self._out.append(deal_body(self.participant.start_generation(
            request.generation, request.cards, self._generation_holders())))

    def _sharing_of(self, generation: int) -> GenerationShares | None:
        try:
            return self.participant.generation(generation).sharing
        except ValueError:
            return None

    def _share_complained(self, complainer: int, dealer: int, generation: int) -> None:
        self.participant.record_complaint(complainer, dealer, generation)

    def _obligations(self) -> None:
        """My pass, once every commitment and every pass before mine is sequenced (none while
        my seat is vacant, R1); public reveals of my cards that had to wait for the card to
        reach me."""
        for generation in sorted(self.generations):
            if not self._all_committed(generation) or self.seat in self.vacant:
                continue
            step = self.participant.next_step(generation)
            if step is not None and step[1] == self.seat and generation not in \
                    self._passes_sent and \
                    self._passes.get(generation, 0) == (step[0] - 1) * self.players + self.seat:
                try:
                    self._out.append(deal_body(self.participant.make_pass(generation)))
                except GenerationStopped:
                    continue  # it complained of a share of it: nothing more of it (sharing on)
                self._passes_sent.add(generation)
        for token in list(self._deferred):
            if self.complaint is None and (
                    token[1] in self.participant.generation(token[0]).mine or self._try_open(token)):
                self._deferred.remove(token)
                self._reveals.append(self.participant.reveal(*token))

    def _open_handed(self) -> bool:
        """A replacement seated mid-round: the cards of its hand it can open now (the others'
        keys handed to it, its seat's from the rebuilt seed), learnt by its replica."""
        if self.seat not in self.rekey_due:
            return False
        opened = False
        for token in self._hand_unknown():
            if self._try_open(token):
                card = self.participant.generation(token[0]).mine[token[1]]
                self.events.extend(self.game.learn(token, card))
                opened = True
        return opened

    def _hand_unknown(self) -> list[Token]:
        return [token for token in self.game.hands[self.seat] if token not in self.game.faces]

    def _keys_in(self, g: Generation, position: int) -> bool:
        """Whether every other seat's key of ``position`` is here: sent to this seat, or public
        (a seat lost this round and rebuilt, R1)."""
        public = self.rebuilt_lost(g.context.generation)
        keys = g.received(position).keys() | public - {self.seat}
        return len(keys) == self.players - 1

    def _try_open(self, token: Token) -> bool:
        generation, position = token
        if not self._keys_in(self.participant.generation(generation), position):
            return False
        try:
            self.participant.open(generation, position)
        except CheatDetected as cheat:
            self._complain(cheat)
            return False
        return True

    def _seat_messages(self, author: int, step: DealStep) -> None:
        if author == self.seat and step.step == "pass":
            self._passes_sent.discard(step.generation)  # (the deal takes it in below)
        elif author == self.seat:
            if step.step == "reveal":
                self._replay_reveals(step)
            return
        for message in step.messages:
            try:
                self.participant.receive(message)
            except CheatDetected as cheat:
                share = self._complained_of_share(message)
                if share is not None:
                    self._complain(cheat, share)
                    continue
                if cheat.culprit is not None or step.step != "reveal":
                    raise
                # a card turned up for all opens to nothing: anyone's key or pass may be wrong;
                # the table stops the round when the stream has brought every key (_on_deal)
            except ValueError as error:
                raise Fault(author, f"seat {author}: {step.step}: {error}") from None

    def _replay_reveals(self, step: DealStep) -> None:
        """Our own reveal of cards for a move, as the stream brings it back.  In play `submit`
        has revealed them already (the cards left ``mine``: nothing to do); replaying the game
        after a crash, this is where they are revealed again."""
        for reveal in step.messages:
            generation = reveal.context.generation
            if reveal.position in self.participant.generation(generation).mine:
                self.participant.reveal(generation, reveal.position)

    def _seat_shares(self, author: int, step: DealStep) -> None:
        if author == self.seat:
            for sealed in step.sealed:
                self.participant.record_box(sealed)
            return
        for sealed in step.sealed:
            if sealed.recipient != self.seat:
                self.participant.record_box(sealed)
                continue
            # no ValueError of receive_share's comes from the stream: parse_deal makes the
            # box's author the message's, and _on_deal takes only the boxes the table asked for
            try:
                self.participant.receive_share(sealed)
            except CheatDetected as cheat:
                self._complain(cheat)

    def _reveal_public(self, token: Token) -> None:
        generation, position = token
        if self.participant.public_card(generation, position) is not None or \
                self.seat in self.vacant:
            return  # (this seat is lost this round, R1: it sends nothing more of it)
        holder = self.holder_of(token)
        if token in self._shown_without_holder:  # a lost seat's card, vacant at the hand show:
            if self.seat not in self.rebuilding(generation):  # our own key (not public)
                self._reveals.append(self.participant.reveal_own_key(generation, position))
        elif holder == self.seat:
            if position in self.participant.generation(generation).mine:
                self._reveals.append(self.participant.reveal(generation, position))
            else:
                self._deferred.append(token)  # its keys are still on their way to me
        elif holder is None:
            self._reveals.append(self.participant.reveal_own_key(generation, position))

    def _reveal_to(self, token: Token, before: int | None, to: int) -> None:
        generation, position = token
        if before is not None and before != to:
            self.participant.hand_over(generation, position, before, to)
        if to != self.seat:
            self._shares.setdefault((generation, to), []).append(position)

    def _flush(self) -> None:
        if self.seat in self.vacant:  # lost this round (R1): its key is refused, its keys
            self._reveals, self._shares = [], {}  # public once it is rebuilt
            return
        if self._reveals:
            self._out.append(reveals_body(self.round, self._reveals))
            self._reveals = []
        if self._shares:
            by_generation: dict[int, list] = {}
            for (generation, to), positions in sorted(self._shares.items()):
                if self.seat in self.rebuilt_lost(generation):
                    continue  # a replacement whose seat's keys of it are public (R1)
                try:
                    sealed = self.participant.share_keys(generation, to, positions)
                except GenerationStopped:
                    continue  # it complained of a share of it: nothing more of it (sharing on)
                by_generation.setdefault(generation, []).append(sealed)
            for generation, sealed in by_generation.items():
                self._out.append(shares_body(self.round, generation, sealed))
            self._shares = {}

    def _public_card(self, token: Token) -> Card | None:
        if token not in self._revealed:
            return None
        return self.participant.public_card(*token)

    def _pick_begin(self, pick: PickState) -> None:
        # every seat begins the pick at the message that begins it, party or not: the pick is
        # the stream's, not whatever its first commitment says, and with sharing on that
        # message fixes the generation whose seeds give the nonces
        self.participant.expect_pick(pick.number, pick.request.n, pick.parties)
        if self.seat in pick.parties:
            self._out.append(deal_body(self.participant.pick_commit(
                pick.number, pick.request.n, pick.parties)))

    def _pick_reveal(self, pick: PickState) -> None:
        if self.seat in pick.parties:
            self._out.append(deal_body(self.participant.pick_reveal(pick.number)))

    def _send_seeds(self) -> None:
        if self.seat in self.vacant:  # lost this round (R1): the audit takes its rebuilt seeds
            return  # (the lost player's own table, alive: its key is refused)
        self._out.append(seeds_body(self.round,
                                    self.participant.reveal_seeds(self._audit_generations)))

    def _audit(self) -> Fault | None:
        try:
            absent = self._silent_rebuilt(
                lambda seats: self.participant.rebuild_silent(seats, self._audit_generations))
        except CheatDetected as cheat:
            verdict = Verdict(cheat.culprit, cheat.reason)
        else:
            verdict = self.participant.audit(self._audit_generations, absent)
        self._deal_verdict = verdict
        if not verdict.clean:
            return Fault(verdict.culprit, f"round {self.round} audit: {verdict.reason}")
        if self.accusation is not None or absent:
            return None  # the round is void whatever the audit says: no replay
        return self._replayed(self.participant.opened_decks())


def _cards_named(move: Move) -> Iterable[Card]:
    from ..deal.dealer import cards_named
    return cards_named(move)


# -- the public view -----------------------------------------------------------------------------
