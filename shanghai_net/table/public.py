"""The game as anyone may see it: `PublicTable` (see shanghai_net.table.stream)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from functools import cached_property
from typing import Iterable

from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PublicKey

from ..cards import Card
from ..deal.audit import Verdict, audit, opened_deck
from ..deal.errors import CheatDetected
from ..deal.generation import Generation
from ..deal.group import (InvalidPoint, card_points, invert, is_scalar, is_valid_point, multiply,
                          scalar_product)
from ..deal.lost import rebuilt_pass
from ..deal.messages import (Context, KeyReveal, SeedReveal, SharedCommitment,
                             SharedSeedReveal)
from ..deal.picking import Pick, nonce_off_seed, seed_pick
from ..deal.picks import nonce_digest, seed_nonce
from ..deal.shares import GenerationShares, check_commit
from ..deal.sharing import seed_from_shares
from ..deal.silent import check_seeds_shares, rebuild_silent
from ..engine.dealer import Shuffle, Token
from ..engine.game import Phase
from ..engine.moves import Move
from ..errors import IllegalMoveError
from ..wire import messages as wm
from ..wire.errors import ProtocolError, RemoteProtocolError
from ..wire.messages import HOST_AUTHOR, Deal, GameMessage, StartGame
from .fault import Fault, ProvenCheat
from .bodies import MOVE_BODIES, DealStep, body_to_move, parse_deal
from .stream import ANY_TIME_BODIES, HOST_BODIES, PickState, StreamTable


OBSERVER = -1
"""The seat a third party's record of a generation carries: it is no seat (as ``viewer=-1`` is
the engine's public replica), and has no seed of its own."""


@dataclass
class _PublicGeneration:
    cards: tuple[Card, ...]
    final: tuple[bytes, ...] = ()
    own_keys: dict[int, dict[int, bytes]] = field(default_factory=dict)
    public: dict[int, Card] = field(default_factory=dict)

    @cached_property
    def points(self) -> dict[bytes, Card]:
        return card_points(self.cards)


class PublicTable(StreamTable):
    """The game as anyone may see it (the host, a spectator, ``shanghai verify``): the public
    replica, the public half of the deal, the checks a sequencer makes before accepting a
    message, and each round's audit once its seeds are revealed.

    It holds no secret and learns no hidden card before the audit: faces come only from public
    reveals, opened with every seat's key from the final deck everybody sees.  At the audit it
    keeps each shuffle as a third party sees it (one `Generation`, boxes included), recomputes
    it from the seeds as every seat does (`shanghai_net.deal.audit`), so it names the same seat;
    then it opens every deck, checks the faces the game showed, and replays the round with every
    card known (`FullReplay`)."""

    def __init__(self, start: StartGame) -> None:
        self.records: dict[int, Generation] = {}
        self._seed_picks: dict[int, Pick] = {}
        """Sharing on: each pick of the running round by number, as it began (`_pick_begin`:
        each overwrites the number's entry, so a voided round's stay no longer than that)."""
        self.rounds_audited = 0
        self.faces = 0
        """Cards shown in play whose face the seeds confirmed."""
        super().__init__(start)
        self.game = self.public
        self._boxing = [X25519PublicKey.from_public_bytes(s.box_key) for s in start.seats]
        self.decks: dict[int, _PublicGeneration] = {}
        self._prechecked = False
        self._settle()

    def receive(self, msg: GameMessage, own: bool = False) -> None:
        """Take the next sequenced message (a spectator; ``own`` as for a seat, never true
        here: a spectator signs nothing); raises Fault."""
        self._take(msg, own)

    def admit(self, msg: GameMessage) -> GameMessage:
        """The sequencer's step: place ``msg`` (as its author sent it, unsequenced) as the next
        message, check it and apply it; the message as placed (its seq filled in).  Or
        raise a ProtocolError with the code to answer (and change nothing).  A fault the checks
        let through (found in applying it) is recorded in ``fault``; the message stays
        sequenced, so that every peer sees the evidence.  A refusal names the message by its
        author's ``counter``; a ``stale`` one also names (``ref_seq``) the message after which
        the game moved on."""
        msg = self.chain.place(msg)
        try:
            self.chain.check(msg)
        except ProtocolError as error:  # its seq is the host's: the author knows its counter
            error.ref_seq, error.ref_counter = None, msg.counter
            raise
        if self.fault is not None:
            raise RemoteProtocolError("wrong_state", f"the game stopped: {self.fault}", None,
                                      msg.counter)
        if self.finished:
            raise RemoteProtocolError("wrong_state", "the game is over", None, msg.counter)
        body = msg.body
        if msg.author == HOST_AUTHOR or isinstance(body, HOST_BODIES):
            raise RemoteProtocolError("bad_signature", f"only the host signs a {body.KIND}", None,
                                      msg.counter)
        quit = self._quit_refused(msg.author)  # its leave was its last message
        gone = quit or self._gone(msg.author)
        if gone is not None and (quit is not None or not isinstance(body, wm.Protest)):
            # a vacant seat protests its timeout
            raise RemoteProtocolError("wrong_state", gone, None, msg.counter)
        if isinstance(body, ANY_TIME_BODIES):
            why, act = self._any_time(msg.author, body)
            if why is not None:
                raise RemoteProtocolError("out_of_turn", why, None, msg.counter)
            self._sequence(msg)
            self._guarded(lambda: (act(), self._settle()))
        elif isinstance(body, wm.Protest):
            try:
                self._protest(msg.author, body)
            except Fault as fault:
                raise RemoteProtocolError("bad_message", fault.reason[:480], None,
                                          msg.counter) from None
            self._sequence(msg)
        elif isinstance(body, MOVE_BODIES):
            stale = self._stale(msg)
            if stale is not None:
                raise RemoteProtocolError("stale", stale, self.moment_seq, msg.counter)
            move = self._admit_move(msg)
            try:
                self.public.apply(move)
            except IllegalMoveError as error:
                raise RemoteProtocolError("illegal_move", str(error)[:480], None,
                                          msg.counter) from None
            self._sequence(msg)
            self.version += 1
            self._applied(msg.author, move)
            self._guarded(self._settle)
        elif isinstance(body, Deal):
            try:
                step = parse_deal(body, self.game_id, msg.author)
            except ValueError as error:
                raise RemoteProtocolError("bad_message", f"game.body: {error}"[:480],
                                          None, msg.counter) from None
            digest = self.chain.body_digest(msg)
            cheat = self._admit_deal(msg, step, digest)
            self._sequence(msg)
            self._deal_bodies.add((msg.author, digest))
            if cheat is not None:  # sequenced as the evidence: every party names its author
                self.fault = cheat
            else:
                self._prechecked = True
                try:
                    self._guarded(lambda: (self._on_deal(msg.author, step), self._settle()))
                finally:
                    self._prechecked = False
        else:
            raise RemoteProtocolError("illegal_move", f"{body.KIND!r} is not a move of this game",
                                      None, msg.counter)
        self._note_moment(msg.seq)
        return msg

    def _sequence(self, msg: GameMessage) -> None:
        """``msg`` passed the checks: it is the next message of the stream."""
        self.chain.append(msg)
        self._heard(msg.author, msg.body)

    def take_host(self, msg: GameMessage) -> None:
        """Apply the host's own message (a ``timeout`` or a ``replace``, signed by the host as
        the next message)."""
        self._take(msg)

    def _admit_move(self, msg: GameMessage) -> Move:
        seat = msg.author
        try:
            move = body_to_move(msg.body, seat)
        except ValueError as error:
            raise RemoteProtocolError("illegal_move", str(error), None, msg.counter) from None
        game = self.public
        if game.phase is Phase.OVER:
            raise RemoteProtocolError("illegal_move", "the game is over", None, msg.counter)
        if not self.settled or seat not in game.to_move():
            why = "the round is stopped for its audit" if self.accusation is not None else \
                "the deal is not settled" if not self.settled else (
                f"seat {seat} has no decision to make now (to move: {game.to_move()})")
            raise RemoteProtocolError("out_of_turn", f"{move.text()!r}: {why}", None, msg.counter)
        if isinstance(msg.body, wm.CallShanghai):
            top = game.discard[-1].id if game.discard else None
            if msg.body.card != top:
                raise RemoteProtocolError("illegal_move", f"the top discard is {top}", None,
                                          msg.counter)
        return move

    def _admit_deal(self, msg: GameMessage, step: DealStep, digest: bytes
                    ) -> ProvenCheat | None:
        """Refuse a deal step that is not due from its author now (``digest``: its body's
        `Chain.body_digest`); the `ProvenCheat` of one that is due but whose content breaks the deal
        (to be sequenced as its evidence)."""
        author = msg.author
        misplaced = self._misplaced(author, digest, step)
        if misplaced is not None:
            raise RemoteProtocolError("out_of_turn", f"{step.step} {misplaced}"[:480], None,
                                      msg.counter)
        try:
            if step.round != self.round:
                raise ValueError(f"round {step.round}: the deal is in round {self.round}")
            if self.accusation is not None and step.step != "seeds":
                raise ValueError("the round is stopped for its audit: only seeds are due")
            if step.step == "seeds":
                if not self.waiting_audit or author in self.seeds_from | self.missing_seeds:
                    raise ValueError("no seeds are due from this seat now")
                refused = self._seeds_refused(author, step)
                if refused is not None:
                    raise RemoteProtocolError("bad_message", refused[:480], None, msg.counter)
            elif step.step == "commit" and step.generation in self.records:
                refused = self._sharing_refused(author, step.generation, step.messages[0])
                if refused is not None:
                    raise RemoteProtocolError("bad_message", refused[:480], None, msg.counter)
                self._check_step(author, step)
            elif step.step == "share_reveal":
                self._share_reveal_refused(author, step.messages[0])
            elif step.step == "shares":
                self._sorted_shares(author, step)
            else:
                self._check_step(author, step)
                if step.step in ("pick_commit", "pick_reveal"):
                    self._pick(author, step.messages[0].pick)
        except ProvenCheat as cheat:
            return cheat
        except Fault as fault:
            raise RemoteProtocolError("out_of_turn", fault.reason[:480], None,
                                      msg.counter) from None
        except ValueError as error:
            raise RemoteProtocolError("out_of_turn", str(error)[:480], None, msg.counter) from None
        return None

    # -- the public deal -----------------------------------------------------------------------

    def _check_step(self, author: int, step: DealStep) -> None:
        if self._prechecked:
            return
        if step.step in ("commit", "pass"):
            g = self.decks.get(step.generation)
            if g is None:
                raise Fault(author, f"no shuffle of generation {step.generation} is running")
            if step.step == "commit" and author in self._commits.get(step.generation, ()):
                raise Fault(author, "a second commitment")
            refused = step.step == "commit" and self._sharing_refused(author, step.generation,
                                                                      step.messages[0])
            if refused:
                raise Fault(author, f"seat {author}: {refused}")
            if step.step == "pass":
                self._check_pass_turn(author, step)
                (output,) = step.messages
                if len(output.points) != len(g.cards):
                    raise ProvenCheat(author, f"seat {author}: pass {output.phase} output has "
                                              f"{len(output.points)} points, not {len(g.cards)}")
                if len(set(output.points)) != len(output.points):
                    raise ProvenCheat(author, f"seat {author}: pass {output.phase} output "
                                              "repeats a point")
                bad = next((i for i, point in enumerate(output.points)
                            if not is_valid_point(point)), None)
                if bad is not None:
                    raise ProvenCheat(author, f"seat {author}: pass {output.phase} output "
                                              f"position {bad} is not a valid point")
        elif step.step in ("pick_commit", "pick_reveal"):
            (message,) = step.messages
            pick = self._pick(author, message.pick)
            if step.step == "pick_commit":
                if author in pick.commitments:
                    raise Fault(author, f"a second commitment to pick {message.pick}")
                if (message.n, message.parties) != (pick.request.n, pick.parties):
                    raise ProvenCheat(author, f"seat {author}: pick commitment {message.pick} "
                                              "does not fit the pick")
            elif author in pick.nonces or set(pick.commitments) < set(pick.parties):
                raise Fault(author, f"pick nonce {message.pick} out of turn")
            elif not _opens(message, pick, author):
                raise ProvenCheat(author, f"seat {author}: pick nonce {message.pick} does not "
                                          "match its commitment")
        elif step.step == "reveal":
            for reveal in step.messages:
                g = self.decks.get(reveal.context.generation)
                if g is None or not g.final or not 0 <= reveal.position < len(g.cards):
                    raise Fault(author, "a reveal of no dealt position")
                if not all(is_scalar(k) for _, k in reveal.keys):
                    raise ProvenCheat(author, f"seat {author}: a reveal with a malformed key")
                keys = dict(reveal.keys)
                if len(keys) != self.players and list(keys) != [author]:
                    raise ProvenCheat(author, f"seat {author}: a reveal holds neither every "
                                              "seat's key nor only its author's own")
                if len(keys) == self.players and reveal.position not in g.public and \
                        self._opened(g, reveal.position, keys) is None:
                    raise ProvenCheat(author, f"seat {author}: reveal of position "
                                              f"{reveal.position} opens to no card")

    def _seat_messages(self, author: int, step: DealStep) -> None:
        if step.step == "pass":
            if self._passes.get(step.generation, 0) == 2 * self.players - 1:
                self.decks[step.generation].final = step.messages[0].points
        elif step.step == "reveal":
            for reveal in step.messages:
                self._public_reveal(author, reveal)
        elif step.step == "seeds" and not self._prechecked:
            refused = self._seeds_refused(author, step)
            if refused is not None:
                raise Fault(author, f"seat {author}: {refused}")
        if step.step not in ("commit", "pass", "reveal", "seeds"):
            return  # a pick is checked whole as it runs
        for message in step.messages:
            record = self.records.get(message.context.generation)
            if record is None:
                if step.step == "seeds":
                    continue  # a generation the stopped round does not audit
                raise Fault(author, f"seat {author}: {step.step} for generation "
                                    f"{message.context.generation}, which round {self.round} "
                                    "never shuffled")
            if step.step == "commit":
                record.commitments[author] = message
            elif step.step == "pass":
                record.passes.append(message)
            elif step.step == "reveal":
                record.reveals.append(message)
            else:
                self._seed(author, record, message)

    def _sharing_refused(self, author: int, generation: int, commit) -> str | None:
        """Why a commit's sharing is refused: it carries one iff the table shares seeds, of the
        table's shape (`check_commit`).  An invalid commitment point is no refusal: sequenced,
        it names its dealer (`ProvenCheat`)."""
        sharing = self.records[generation].sharing
        if sharing is None:
            return None if not isinstance(commit, SharedCommitment) else \
                f"seat {author}'s commit carries a sharing, at a table that shares no seeds"
        try:
            check_commit(sharing, commit)
        except CheatDetected as cheat:
            raise ProvenCheat(author, cheat.reason) from None
        except ValueError as error:
            return str(error)
        return None

    def _seeds_refused(self, author: int, step: DealStep) -> str | None:
        """Why a ``seeds`` body is refused: with sharing on, it lacks the shares its author
        owes (sharing on, R2: no seat shows its seeds and keeps its shares back); off, it
        carries some."""
        for reveal in step.messages:
            record = self.records.get(reveal.context.generation)
            if record is None:
                continue  # a generation the stopped round does not audit
            if record.sharing is None and isinstance(reveal, SharedSeedReveal):
                return f"seat {author}'s seeds carry shares, at a table that shares no seeds"
            if record.sharing is not None:
                try:
                    check_seeds_shares(record, reveal, self.rebuilds)
                except ValueError as error:
                    return str(error)
        return None

    def _seed(self, author: int, record: Generation, reveal: SeedReveal) -> None:
        if author in record.seed_reveals:
            raise Fault(author, f"seat {author}: two seeds for generation "
                                f"{reveal.context.generation}")
        record.seed_reveals[author] = reveal

    def _seat_shares(self, author: int, step: DealStep) -> None:
        for sealed in step.sealed:
            self.records[sealed.context.generation].boxes.append(sealed)

    def _audit(self) -> Fault | None:
        numbers = self._audit_generations or []
        records = [self.records[n] for n in numbers if n in self.records]
        cut_short = {seat: [n for ns in rebuild.owed.values() for n in ns]
                     for seat, rebuild in self.rebuilds.items() if not rebuild.rebuilt}
        try:
            absent = self._silent_rebuilt(lambda seats: rebuild_silent(
                {r.context.generation: r for r in records}, seats, cut_short))
        except CheatDetected as cheat:
            return Fault(cheat.culprit, f"round {self.round} audit: {cheat.reason}")
        verdict = audit(records, self._boxing, absent)
        wrong_nonce = verdict.clean and nonce_off_seed(
            {pick.number: dataclasses.replace(self._seed_picks[pick.number], nonces=pick.nonces)
             for pick in self._picks if pick.number in self._seed_picks},
            {record.context.generation: record for record in records})
        if wrong_nonce:
            verdict = Verdict(*wrong_nonce)
        if not verdict.clean:
            return Fault(verdict.culprit, f"round {self.round} audit: {verdict.reason}")
        if self.accusation is not None or absent:
            return None  # the round is void whatever the audit says: no faces, no replay
        decks = {record.context.generation: opened_deck(record) for record in records}
        for record in records:
            deck = decks[record.context.generation]
            for position, card in self.decks[record.context.generation].public.items():
                if deck[position] != card:
                    raise Fault(None, f"round {self.round} audit: generation "
                                      f"{record.context.generation} position {position} was "
                                      f"shown as {card}, its seeds make it {deck[position]}")
                self.faces += 1
        fault = self._replayed(decks)
        if fault is None:
            self.rounds_audited += 1
        return fault

    def _pick_begin(self, pick: PickState) -> None:
        """Sharing on: the generation whose seeds give the pick's nonces, fixed at the message
        that begins it as every seat fixes it (`expect_pick`), for the audit to check them."""
        if self.share_threshold is not None:
            self._seed_picks[pick.number] = seed_pick(
                pick.request.n, pick.parties,
                [n for n in self.generations if self._all_committed(n)],
                lambda n: {*self.records[n].sharing.rebuilt,
                           *(s for s, rebuild in self.rebuilds.items()
                             if n in rebuild.generations())})

    def _rebuilt_nonce(self, pick: int, seat: int) -> bytes | None:
        state = self._seed_picks.get(pick)
        if state is None or not state.from_seed(seat):
            return None
        record = self.records[state.generation]
        seed = record.sharing.rebuilt.get(seat)  # (none: that generation was restarted)
        return None if seed is None else seed_nonce(record.context, seat, pick, seed)

    def _public_reveal(self, author: int, reveal: KeyReveal) -> None:
        g = self.decks[reveal.context.generation]
        position = reveal.position
        if position in g.public:
            return
        keys = dict(reveal.keys)
        if len(keys) != self.players:
            g.own_keys.setdefault(position, {}).update(keys)
            self._rebuilt_reveal_own((reveal.context.generation, position))
            return
        card = self._opened(g, position, keys)
        if card is None:
            raise Fault(author, f"seat {author}: reveal of position {position} opens to no card")
        g.public[position] = card

    def _rebuilt_reveal_own(self, token: Token) -> None:
        """Open the card turned up at ``token`` once every seat's own key is in: those
        sequenced, and a rebuilt seat's, which is public (R1).  One that opens to nothing stays
        unknown: the table stops the round (`_turned_up`)."""
        generation, position = token
        g, record = self.decks[generation], self.records[generation]
        keys = {**{seat: record.seat_keys(seat).card_keys[position]
                   for seat in self.rebuilt_lost(generation)}, **g.own_keys.get(position, {})}
        card = self._opened(g, position, keys) if len(keys) == self.players else None
        if card is not None:
            g.public[position] = card

    @staticmethod
    def _opened(g: _PublicGeneration, position: int, keys: dict[int, bytes]) -> Card | None:
        """The card ``keys`` open at ``position`` of the final deck, or None."""
        try:
            point = multiply(invert(scalar_product(keys.values())), g.final[position])
        except InvalidPoint:
            return None
        return g.points.get(point)

    def _rekeyed(self, seat: int) -> None:
        self._boxing = [*self._boxing]  # the rounds before keep theirs
        self._boxing[seat] = X25519PublicKey.from_public_bytes(self.holders[seat].box_key)

    def _new_round(self, round_no: int) -> None:
        super()._new_round(round_no)
        self.decks = {}
        self.records = {}

    def _start_generation(self, request: Shuffle) -> None:
        self.decks[request.generation] = _PublicGeneration(tuple(request.cards))
        context = Context(self.game_id, self.round, request.generation)
        holders = self._generation_holders()
        sharing = None if holders is None else GenerationShares.at(self.share_threshold,
                                                                    holders, self.players)
        for seat, box_key in self.seated_in_round().items() if sharing else ():
            sharing.successors[seat] = box_key  # seated before it began: its boxes to the seat
            sharing.replaced_at[seat] = 0  # are sealed to the replacement's key from the first
        self.records[request.generation] = Generation(
            context, tuple(request.cards), self.players, OBSERVER, b"", sharing=sharing)

    def _sharing_of(self, generation: int) -> GenerationShares | None:
        record = self.records.get(generation)
        return record.sharing if record else None

    def _generation_record(self, generation: int) -> Generation:
        return self.records[generation]

    def _published_own(self, author: int, reveal) -> None:
        for number, share in reveal.shares:
            self.records[number].sharing.published.setdefault(reveal.seat, {})[author] = share

    def _rebuilt_own(self, seat: int) -> None:
        """R1 at the public table: each rebuilt generation's seed of ``seat`` from the first
        ``t`` shares published (checked as each came), checked against its digest (off it
        names the seat).  Its past steps are checked at the round's audit here, not at once."""
        for number in sorted({n for ns in self.rebuilds[seat].owed.values() for n in ns}):
            record = self.records[number]
            published = list(record.sharing.published[seat].items())[:self.share_threshold]
            record.sharing.rebuilt[seat] = seed_from_shares(
                record.context, seat, record.commitments[seat].digest, dict(published))

    def _rebuilt_pass_own(self, generation: int, step: int) -> None:
        """The rebuilt seat's pass ``step``, made from its rebuilt seed and recorded in its
        place, so that the audit and the deck read every pass at its turn."""
        record = self.records[generation]
        made = rebuilt_pass(record, step)
        record.passes.append(made)
        if step == 2 * self.players - 1:
            self.decks[generation].final = made.points

    def _public_card(self, token: Token) -> Card | None:
        g = self.decks.get(token[0])
        return g.public.get(token[1]) if g and token in self._revealed else None

    # -- what the sequencer asks ---------------------------------------------------------------

    def open_window(self) -> tuple[object, list[int]] | None:
        """The claim window now open and the seats still silent in it, if the deal is settled."""
        w = self.claim_window()
        if w is None:
            return None
        undecided = w.undecided()
        return (w, undecided) if undecided else None


def _opens(message, pick: PickState, author: int) -> bool:
    """Whether ``message``'s nonce is the one its author committed to (a nonce of another
    length is not)."""
    try:
        digest = nonce_digest(message.context, message.pick, pick.request.n, pick.parties,
                              author, message.nonce)
    except ValueError:
        return False
    return digest == pick.commitments[author]


# -- sending -------------------------------------------------------------------------------------
