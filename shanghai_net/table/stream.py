"""The game as the sequenced stream builds it: `StreamTable`, what every seat's `PeerTable`
(seat.py) and the host's public view of it, `PublicTable` (public.py), share;
the `Outbox` (outbox.py) signs and sends what a seat owes.  Sans-IO state machines.

Every peer is fed the same stream: the game messages the host sequenced, in order.  From that
stream alone each one derives the same protocol steps (docs/protocol.md, section 11):

- the engine replica (``new_game(..., dealer=None, viewer=seat)``) asks for a ``Shuffle``: every
  seat commits to a fresh seed (``commit``), then each seat in turn sends its ``pass``, pass 1
  for seats 0..n-1, then pass 2; a round's first shuffle comes after the round before is audited;
- ``Reveal(token, seat)``: every other seat seals its key for that seat (``shares``); the seat
  opens the card when every key is in; a card that changes hands (a SHANGHAI penalty) is handed
  over first, so its old holder shares its key too;
- ``Reveal(token, None)``: the holder of a hand card publishes all its keys (``reveal``); a stock
  card gets every seat's own key;
- ``Pick``: the parties commit (``pick_commit``), then reveal (``pick_reveal``) their nonces;
- a move that shows hidden cards comes after its author's ``reveal`` of them, which every peer
  checks and learns before applying the move;
- at a round's end (and the game's) every seat sends its seeds (``seeds``) and every party,
  the host and a spectator included, audits the round;
- a seat that finds a fault only it can see (a box or a card of its own that does not open)
  sends a ``complaint``; a card turned up for all that opens to nothing is the same for everyone.
  Either stops the round: every seat sends its seeds at once and the audit names the seat at
  fault (or the complainer, when every step matches its seed); the round is void, the game over,
  and ``verdict`` holds whom the audit named.

A move is only valid when the deal is **settled** at its place in the stream: no key share owed
to anyone and the replica waiting for nothing.  So every replica applies every move at once and
in order, and keys for a card are only ever released for a move the replica has applied, i.e.
found legal.  The one host authority: a host-signed ``timeout`` body names a seat silent in a
claim window, and every peer applies it as that seat's ``PassClaim``.

No sockets, no clocks; randomness is injected.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ..cards import Card
from ..deal.errors import CheatDetected
from ..deal.messages import Context
from ..deal.picks import pick_index
from ..engine import new_game
from ..engine.dealer import Pick, Request, Reveal, Shuffle, Token
from ..engine.game import Game, Phase
from ..engine.moves import MayI, Move, PassClaim
from ..errors import IllegalMoveError
from ..wire import messages as wm
from ..wire.errors import RemoteProtocolError
from ..wire.messages import HOST_AUTHOR, Deal, GameMessage, StartGame, Timeout
from ..wire.signing import Chain, start_digest
from .fault import Fault
from .replay import FullReplay
from .bodies import MOVE_BODIES, DealStep, body_to_move, parse_deal
from .disputes import Disputes, Protested
from .seating import MidRoundSeating
from .seed_sharing import Rebuild, SeedSharing
from .roster import Roster
from .owed import Owing
from .start import rules_of


def moment_passed(game: Game, move: Move, window: object) -> str | None:
    """Why ``move``, chosen when the claim window was ``window``, is no longer to be made now
    that the game has moved on (None: it still is)."""
    if isinstance(move, (MayI, PassClaim)) and game.window is not window:
        return "the claim window it answered has closed: choose again"
    try:
        check_move(game, move)
    except IllegalMoveError as error:
        return f"no longer legal: {error}"
    return None


def check_move(game: Game, move: Move) -> None:
    """IllegalMoveError unless ``move`` is legal in ``game`` now (state unchanged)."""
    for legal in game.legal_moves(move.seat):
        if legal == move:
            return
    game.check(move)


HOST_BODIES = (Timeout, wm.Replace)
"""The bodies only the host signs (author ``HOST_AUTHOR``)."""
ANY_TIME_BODIES = (wm.VoidRound, wm.Complaint, wm.Approve, wm.HandOver, wm.Leave)
"""A seat's bodies with a place whether or not the deal is settled (`Disputes._any_time`)."""


@dataclass
class _Outstanding:
    """Key shares owed for one card going to ``to``: the seats that have not sent theirs."""

    to: int
    owing: set[int]


@dataclass
class PickState:
    request: Pick
    number: int
    parties: tuple[int, ...]
    revealed: bool = False
    commitments: dict[int, bytes] = field(default_factory=dict)
    nonces: dict[int, bytes] = field(default_factory=dict)
    result: int | None = None


class StreamTable(Owing, MidRoundSeating, SeedSharing, Disputes, Roster):
    """What the host and every seat share: the chain, the public replica that drives the deal
    (``viewer=-1``: its requests, and so every protocol step, depend only on the stream), and
    the deal's progress as the stream sequenced it."""

    seat: int | None = None

    def __init__(self, start: StartGame) -> None:
        self.start_game = start
        self.game_id = start.game_id
        self.players = len(start.seats)
        if [s.seat for s in start.seats] != list(range(self.players)):
            raise ValueError("start_game seats must be 0..n-1 in order")
        self.rules = rules_of(start)
        self.share_threshold = start.share_threshold
        """Sharing on (docs/dealing.md): ``t``, the seed shares that rebuild a seat; None: off."""
        if self.share_threshold is not None and not 2 <= self.share_threshold < self.players:
            raise ValueError(f"start_game's share_threshold {self.share_threshold} at "
                             f"{self.players} seats")
        self.claim_timeout = start.claim_timeout
        """Seconds the host said its claim windows wait (a ``timeout`` much sooner is its fault)."""
        self.audit_timeout = start.audit_timeout
        """Seconds the table waits for every seat's ``seeds`` after a complaint."""
        keys = {s.seat: s.sign_key for s in start.seats}
        if start.host_key is not None:
            keys[HOST_AUTHOR] = start.host_key
        self.chain = Chain(keys, start_digest(start.to_wire()))
        self.public = new_game(self.rules, self.players, None, -1)
        self.version = 0
        """Moves applied so far (a move validated at another version is checked again)."""
        self.moment_seq = -1
        """The seq at which the public game's moment (round, turn, phase, claim window) last
        changed: a move decided before it is stale (protocol.md 8.2)."""
        self._moment: tuple = ()
        self.fault: Fault | None = None
        self.finished = False
        """The game is over and its last round audited."""
        self.round = 0
        """The deal round now running (0: the first-dealer pick before round 1)."""
        self.generations: set[int] = set()
        self.holder: dict[Token, int] = {}
        self.outstanding: dict[Token, _Outstanding] = {}
        """(generation, position) -> the key shares still owed for it."""
        self.seeds_from: set[int] = set()
        self.missing_seeds: set[int] = set()
        """Seats whose seeds the host timed out in the running audit (no evidence against them:
        the host may have dropped them)."""
        self.rebuilt_seeds: set[int] = set()
        """Of ``missing_seeds``, the seats the running audit rebuilt from the shares in the
        others' seeds (sharing on, R2): audited in full, absent no more."""
        self.void_votes: dict[int, set[int]] = {}
        """Engine round -> the seats that voted to void it."""
        self.gone_votes: dict[tuple[int, int], set[int]] = {}
        """(engine round, seat) -> the seats that voted that seat left that round."""
        self.left: list[tuple[int, int]] = []
        """(round, seat) for each round the table voided because that seat left."""
        self.lost: list[tuple[int, int]] = []
        """(round, seat) for each seat lost mid-round and rebuilt, its round going on (sharing
        on, R1): in ``vacant`` too until replaced, not in ``left``."""
        self.rebuilds: dict[int, Rebuild] = {}
        """Sharing on: lost seat -> its rebuild (R1) in the running round."""
        self.lost_in_round: set[int] = set()
        """Sharing on: the seats lost (R1) in the running deal round, their rebuild given up
        since (the round void) or not: a ``share_reveal`` of one is no leak of a live seat's."""
        self.holder_votes: dict[tuple[int, int], set[int]] = {}
        """Sharing on: of ``gone_votes``, the seats that were share holders when they voted."""
        self.silenced: dict[int, int] = {}
        """Seat -> the seq of the host's ``silent`` timeout of it, while the seat has signed
        nothing since (a vote that it left needs fewer seats then, `Disputes.carried`)."""
        self.idle_silenced: set[int] = set()
        """Of ``silenced``, the seats timed out while they owed the table nothing (their link
        down, every seat the table waited on silent): no voters while that lasts, never voted
        out for it (`Disputes._silences`); forgotten when the round is void."""
        self.unpaid: set[tuple[int, int]] = set()
        """Of ``left``, the leaves that cost the seat nothing: the host's stand-in's."""
        self.silent: set[tuple[int, int]] = set()
        """Of ``left``, the seats whose seeds never came when the round's audit wanted them
        (the host timed them out): the table cannot tell whether the seat or the host kept
        them back, and charges the seat as one that left."""
        self.charged_silent: set[int] = set()
        """Seats charged for their silence that have signed nothing since: voted gone before
        they sign again, they pay no second time (one absence, one charge)."""
        self.quit: dict[int, int] = {}
        """Seat -> how many players the seat had before the one whose ``leave`` is sequenced
        (`Disputes.quitters`): that player's key plays no more until another holds the seat."""
        self.voided: int | None = None
        """The round a verdict voided (the game ended there), if any."""
        self._start_roster(start)
        self.audited = -1
        self.waiting_audit = False
        self.audit_elsewhere = False
        """Set by a caller that runs each round's audit itself, off the thread that feeds the
        stream (`run_audit`, then `finish_audit`): a round's last seeds then leave the table
        waiting, with ``audit_due`` set, instead of auditing there and then."""
        self.audit_due = False
        self.replay = FullReplay(self.rules, self.players)
        """The game with every card known, a round behind: each round replayed at its audit."""
        self.accusation: tuple[int | None, str] | None = None
        """(complainer, reason): the running round was stopped for its audit by a complaint
        (complainer None: a card turned up for all that opened to nothing)."""
        self.verdict: Fault | None = None
        """Whom a round's audit named: that round was voided and the game ended there."""
        self.host_timeouts: dict[int, tuple[int, int]] = {}
        """seq -> (the seat a host ``timeout`` of a claim window, or a ``silent`` one, named;
        the seq at which that window opened, or the timeout's own): a protest's claim must
        answer that window (a protest of a ``silent`` timeout carries none)."""
        self.protests: list[Protested] = []
        """What seats said the host did to them (protest bodies, checked)."""
        self.seeds_timeouts: dict[int, tuple[int, int]] = {}
        """seq of a host ``timeout`` of seeds -> (the seat it named, the deal round): a
        protest of it carries the seat's seeds."""
        self._audit_generations: list[int] | None = None
        """The generations a stopped round audits (those every seat committed to)."""
        self._audit_scored = False
        self._shuffles: list[Shuffle] = []
        self._publics: list[Token] = []
        self._picks: list[PickState] = []
        self._picks_before = 0
        self._final_seeds = False
        self._reset_counts()

    def _reset_counts(self) -> None:
        """What the stream has sequenced of the running round's deal: only sequenced steps count,
        never a seat's own step before the host has ordered it."""
        self._commits: dict[int, set[int]] = {}
        self._passes: dict[int, int] = {}
        self._own_keys: dict[Token, set[int]] = {}
        self._revealed: set[Token] = set()
        self._shown_without_holder: set[Token] = set()
        """Cards of the hand show held by a seat lost this round (R1) and vacant when it was
        asked, or at the loss: every other seat shows its own key of each, the lost seat's is
        public from its rebuilt seed (docs/dealing.md, "The round's end"); so for the round,
        a replacement seated later owing no reveal of them."""
        self._picks_before = self._picks_before + len(self._picks) if self.round == 0 else 0
        """Picks of round 0 begun before and voided with it: the first-dealer pick held again
        takes the round's next number, so that every party draws a fresh nonce for it (the
        voided pick's may have been revealed already)."""
        self._picks = []
        self._first_pick: Pick | None = None
        """The first-dealer pick, until every seat is played (`_begin_first_pick`)."""
        self._deal_bodies: set[tuple[int, bytes]] = set()
        """(author, `Chain.body_digest`) of each deal body sequenced in the running deal: one
        sequenced again word for word is the host's doing (`_misplaced`).  A set, since every
        deal message of a round is looked up in it."""
        self._restarted: set[int] = set()
        """Generations whose commit of a seat lost before any pass was dropped (R1): a pass of
        one before every fresh commitment may have been due when its author made it."""
        self._reset_seating()

    # -- queries -------------------------------------------------------------------------------

    @property
    def settled(self) -> bool:
        """No key share owed and no replica waiting: a move may come now."""
        return not self.outstanding and not self.public.waiting and not self.waiting_audit \
            and self.hands_handed()

    def holder_of(self, token: Token) -> int | None:
        for seat, hand in enumerate(self.public.hands):
            if token in hand:
                return seat
        return None

    def claim_window(self) -> object | None:
        """The claim window the host's clock runs for: open while the public deal is settled."""
        w = self.public.window
        if w is None or not StreamTable.settled.fget(self) or self.public.phase is not Phase.DRAW:
            return None
        return w

    def shuffled(self, generation: int) -> bool:
        return self._passes.get(generation, 0) == 2 * self.players

    def _all_committed(self, generation: int) -> bool:
        return len(self._commits.get(generation, ())) == self.players

    # -- the stream ----------------------------------------------------------------------------

    def _take(self, msg: GameMessage, own: bool = False) -> None:
        """Verify ``msg`` as the next message of the chain and apply it (raises on a fault);
        ``own``: this seat signed it (its signature is not checked again)."""
        if self.fault is not None:
            raise self.fault
        if self.finished:
            raise Fault(HOST_AUTHOR, f"the host relayed seq {msg.seq} after the game's end")
        try:
            self.chain.check(msg, own)
        except RemoteProtocolError as error:
            raise Fault(HOST_AUTHOR, f"the host relayed a bad message: {error}") from None
        self.chain.append(msg)
        self._guarded(lambda: (self._dispatch(msg), self._settle()))
        self._note_moment(msg.seq)
        if self.fault is not None:
            raise self.fault

    def _guarded(self, action: Callable[[], object]) -> None:
        try:
            action()
        except Fault as fault:
            self.fault = fault
        except CheatDetected as cheat:
            self.fault = Fault(cheat.culprit, cheat.reason)

    def _dispatch(self, msg: GameMessage) -> None:  # noqa: C901 - one branch a body kind
        body, author = msg.body, msg.author
        self._heard(author, body)
        if author == HOST_AUTHOR:
            if not isinstance(body, HOST_BODIES):
                raise Fault(HOST_AUTHOR, f"the host signed a {body.KIND} body")
            if isinstance(body, wm.Replace):
                self._replace(msg.seq, body)
            elif body.what == "seeds":
                self._seeds_timeout(body.seat, msg.seq)
            elif body.what == "silent":
                self._silent_timeout(msg.seq, body.seat)
            elif body.what in ("shares", "vote"):
                self._rebuild_timeout(msg.seq, body.seat, body.what)
            else:
                opened = self.moment_seq  # claims answer a window side by side: it opened here
                self._apply(author, PassClaim(body.seat))
                self.host_timeouts[msg.seq] = (body.seat, opened)
        elif isinstance(body, HOST_BODIES):
            raise Fault(author, f"seat {author}: a {body.KIND} body is the host's to sign")
        elif self._quit_refused(author) is not None:  # its leave was its last message
            raise Fault(HOST_AUTHOR, f"the host relayed a message of seat {author}: "
                                     f"{self._quit_refused(author)}")
        elif isinstance(body, wm.Protest):  # a seat vacant for its silence protests it too
            self._protest(author, body)
        elif self._gone(author) is not None:
            raise Fault(HOST_AUTHOR, f"the host relayed a message of seat {author}: "
                                     f"{self._gone(author)}")
        elif isinstance(body, ANY_TIME_BODIES):
            why, act = self._any_time(author, body)
            if why is not None:
                raise Fault(author, f"seat {author}: {why}")
            act()
        elif isinstance(body, Deal):
            try:
                step = parse_deal(body, self.game_id, author)
            except ValueError as error:
                raise Fault(author, f"seat {author}: malformed deal body: {error}") from None
            digest = self.chain.body_digest(msg)
            misplaced = self._misplaced(author, digest, step)
            if misplaced is not None:
                raise Fault(HOST_AUTHOR, f"the host sequenced seat {author}'s {step.step} "
                                         f"{misplaced}")
            self._deal_bodies.add((author, digest))
            self._on_deal(author, step)
        elif isinstance(body, MOVE_BODIES):
            stale = self._stale(msg)
            if stale is not None:
                raise Fault(HOST_AUTHOR, f"the host sequenced seat {author}'s stale move: {stale}")
            try:
                move = body_to_move(body, author)
            except ValueError as error:
                raise Fault(author, f"seat {author}: {error}") from None
            if isinstance(body, wm.CallShanghai):
                top = self.public.discard[-1].id if self.public.discard else None
                if body.card != top:
                    raise Fault(author, f"seat {author}: call_shanghai names card {body.card}, "
                                        f"the top discard is {top}")
            self._apply(author, move)
        else:
            raise Fault(author, f"seat {author}: body kind {body.KIND!r} has no place here")

    def _heard(self, author: int, body: wm.Body) -> None:
        """A message of ``author`` is sequenced: a newcomer has read the game up to here, a
        seat charged for its silence (a later leave is a new one), or timed out as silent, is
        back, and the votes that it left lapse if ``body`` shows it is not gone (`_lapse`).
        The host's `PublicTable.admit` calls it as `_dispatch` does, so that it charges and
        counts as every seat."""
        if isinstance(body, wm.Leave):  # its word that it is gone: no sign of life
            return
        self.unheard.discard(author)
        self.charged_silent.discard(author)  # a seat charged for its silence is back
        self.silenced.pop(author, None)
        self._lapse(author, body)

    def _stale(self, msg: GameMessage) -> str | None:
        """Why the move ``msg`` may not be sequenced now for its basis (None: it may): a move
        names the state it was decided on, and is stale once the game's moment changed after
        that.  Claims and the drawer's choice of the stock answer one window side by side, so
        none makes another stale."""
        if msg.basis_seq is None:
            return "a move names the basis it was decided on"
        if msg.basis_seq < self.moment_seq:
            return (f"decided at seq {msg.basis_seq}; the game moved on at seq "
                    f"{self.moment_seq}: choose again")
        return None

    def _note_moment(self, seq: int) -> None:
        """After the message at ``seq``: if the moment changed, moves decided before are stale."""
        game = self.public
        moment = (game.round_no, game.turn, game.phase, game.window)
        old = self._moment
        if len(old) != 4 or old[:3] != moment[:3] or old[3] is not moment[3]:
            self._moment = moment
            self.moment_seq = seq

    def _apply(self, author: int, move: Move) -> None:
        who = "the host" if author == HOST_AUTHOR else f"seat {author}"
        if not self.settled:
            raise Fault(author, f"{who}: {move.text()!r} before the deal settled")
        try:
            self.public.apply(move)
        except IllegalMoveError as error:
            raise Fault(author, f"{who}: {error}") from None
        self.version += 1
        self._applied(author, move)

    def _applied(self, author: int, move: Move) -> None:
        """A move the public replica took, kept to be replayed with every card known at the
        round's audit (a seat also applies it to its own replica)."""
        self.replay.move(author, move)

    def _picked(self, value: int) -> None:
        """A pick's result, as the public replica was given it (kept for the replay too)."""
        self.replay.pick(value)

    def _replayed(self, decks: dict[int, tuple[Card, ...]]) -> Fault | None:
        """Replay the audited round on its opened decks; the fault of a move that breaks a rule
        on hidden cards, if any."""
        try:
            self.replay.replay(self.round, decks)
        except Fault as fault:
            return fault
        return None

    # -- deal steps ----------------------------------------------------------------------------

    def _misplaced(self, author: int, digest: bytes, step: DealStep) -> str | None:
        """Why ``step`` stands where the host, not its author, put it (None: it does not), as
        docs/dealing.md's "A step the host places where it is not due" has it: a seat signs a
        step when the stream it has seen makes it due, and cannot know what the host will
        sequence before it.  So a step of a round gone by, a body of its author's already
        sequenced in this deal word for word (``digest``, the step's `Chain.body_digest`: its
        outbox signs again after a reconnection what was on its way, `Outbox.reconnected`),
        seeds after the host's own timeout of them or after the round's audit, a
        ``share_reveal`` after the host's own ``"shares"`` timeout of it or after its rebuild
        was given up (`_share_reveal_misplaced`), any other step of a deal that is over
        (`_dropped`: voided, its round's number still running) names the host, which refuses
        them all (`PublicTable.admit`).  What a step says (a second, different one; a step of a
        round to come; a share off the commitments) names its author."""
        if step.round < self.round:
            return f"of round {step.round}, a round gone by (the deal is in round {self.round})"
        if (author, digest) in self._deal_bodies:
            return ("a second time: the same body, which its outbox signs again after a "
                    "reconnection")
        if step.round != self.round:
            return None
        if step.step == "seeds" and self.waiting_audit and author in self.missing_seeds:
            return "after the host's own timeout of them"
        if step.step == "seeds" and not self.waiting_audit and self.audited == self.round:
            return f"after round {self.round}'s audit"
        if step.step == "share_reveal":
            misplaced = self._share_reveal_misplaced(author, step.messages[0])
            if misplaced is not None:
                return misplaced
        return self._dropped(step)

    def _dropped(self, step: DealStep) -> str | None:
        """Why ``step``, of the running round, answers a deal that is over (None: it may not):
        the round's deal voided (or audited) while the next one waits for a seat to be played,
        or, in round 0, a first-dealer pick that a void dropped (the pick held again takes the
        next number, `_reset_counts`).  Its author signed it when it was due; only the host
        can have placed it after (docs/dealing.md, "A step the host places where it is not
        due").  Seeds have rules of their own (`_misplaced`)."""
        if self.round == 0:
            if step.step in ("pick_commit", "pick_reveal") and \
                    step.messages[0].pick < self._picks_before:
                return f"for pick {step.messages[0].pick}, which a void of round 0 dropped"
            return None
        if step.step != "seeds" and self.audited == self.round and not self.waiting_audit:
            return f"after round {self.round}'s deal was over (voided, or audited)"
        return None

    def _on_deal(self, author: int, step: DealStep) -> None:
        if step.round != self.round:
            raise Fault(author, f"seat {author}: {step.step} for round {step.round}; the deal is "
                                f"in round {self.round}")
        if step.step == "shares":
            self._on_shares(author, step)
        elif step.step == "seeds":
            if not self.waiting_audit or author in self.seeds_from | self.missing_seeds:
                raise Fault(author, f"seat {author}: seeds out of place")
            self._seat_messages(author, step)
            self.seeds_from.add(author)
            if len(self.seeds_from) == self.seeds_due():
                self._audited()
        elif self.accusation is not None:
            raise Fault(HOST_AUTHOR, f"the host relayed seat {author}'s {step.step} after the "
                                     "round was stopped for its audit")
        elif step.step == "share_reveal":
            self.round_events.append(("message", step.messages[0]))
            self._share_reveal(author, step.messages[0])
        else:
            self._check_step(author, step)
            self._seat_messages(author, step)
            self.round_events.extend(("message", message) for message in step.messages)
            self._count(author, step)
            if step.step == "reveal":
                for reveal in step.messages:
                    token = (reveal.context.generation, reveal.position)
                    if not self._turned_up(token):
                        return

    def _count(self, author: int, step: DealStep) -> None:
        if step.step == "commit":
            self._commits.setdefault(step.generation, set()).add(author)
        elif step.step == "pass":
            self._passes[step.generation] = self._passes.get(step.generation, 0) + 1
            self._rebuilt_passes()
        elif step.step == "pick_commit":
            message = step.messages[0]
            self._pick(author, message.pick).commitments[author] = message.digest
        elif step.step == "pick_reveal":
            message = step.messages[0]
            self._pick(author, message.pick).nonces[author] = message.nonce
        elif step.step == "reveal":
            for reveal in step.messages:
                token = (reveal.context.generation, reveal.position)
                if len(reveal.keys) == self.players:
                    self._revealed.add(token)
                else:
                    self._own_keys.setdefault(token, set()).add(author)
                    if self._own_keys_in(token):
                        self._revealed.add(token)

    def _own_keys_in(self, token: Token) -> bool:
        """Every seat's own key of a card turned up is in: sequenced, or public (a seat lost
        this round and rebuilt, R1, whose key nobody sends: its stand-in neither)."""
        shown = self._own_keys.get(token, set()) | self.rebuilt_lost(token[0])
        return len(shown) == self.players

    def _turned_up(self, token: Token) -> bool:
        """Learn the card at ``token`` if it opened for all; False when every seat's own key
        is in and it opens to nothing: the round is stopped for its audit."""
        card = self._public_card(token)
        if card is not None:
            self._learn_public(token, card)
        elif token in self._revealed:
            self._accuse(None, f"position {token[1]} of generation {token[0]}, turned up with "
                               "every seat's key, does not open to a card")
            return False
        return True

    def _pick(self, author: int, number: int) -> PickState:
        index = number - self._picks_before
        if not 0 <= index < len(self._picks) or author not in self._picks[index].parties:
            raise Fault(author, f"seat {author}: no pick {number} among it is running")
        return self._picks[index]

    def _learn_public(self, token: Token, card: Card) -> None:
        if token in self._publics:
            self._publics.remove(token)
        if self.public.round_no == self.round:  # not once it has moved on to the next round
            self.public.learn(token, card)

    def _check_step(self, author: int, step: DealStep) -> None:
        """Fault unless ``step`` is due from ``author`` now; every party checks a pass's turn
        (`_check_pass_turn`), the public table more (`PublicTable._check_step`)."""
        if step.step == "pass":
            self._check_pass_turn(author, step)

    def _check_pass_turn(self, author: int, step: DealStep) -> None:
        """Fault naming ``author`` for a pass before every commitment or not at its turn (one
        at a turn already made is a second, different pass: a pass sequenced again word for
        word names the host before this, `_misplaced`).  The same rule at every party, so that
        no table counts a pass that another refuses.  A pass before every commitment of a
        generation restarted at a loss names the host: its author may have made it when every
        commitment was in, before the restart (`StreamTable._misplaced`'s rule)."""
        if not self._all_committed(step.generation):
            if step.generation in self._restarted:
                raise Fault(HOST_AUTHOR, f"seat {author}'s pass, a pass before every commitment "
                                         f"of generation {step.generation}, which restarted at "
                                         "a loss after its author may have made it: the host's "
                                         "to refuse")
            raise Fault(author, f"seat {author}: a pass before every commitment")
        (output,) = step.messages
        turn = self._passes.get(step.generation, 0)
        if turn >= 2 * self.players or (turn % self.players, 1 + turn // self.players) \
                != (author, output.phase):
            raise Fault(author, f"pass {output.phase} of seat {author} out of turn")

    # hooks
    def _seat_messages(self, author: int, step: DealStep) -> None: ...
    def _seat_shares(self, author: int, step: DealStep) -> None: ...
    def _audit(self) -> Fault | None: ...
    def _reveal_public(self, token: Token) -> None: ...
    def _reveal_to(self, token: Token, before: int | None, to: int) -> None: ...
    def _pick_begin(self, pick: PickState) -> None: ...
    def _pick_reveal(self, pick: PickState) -> None: ...
    def _send_seeds(self) -> None: ...
    def _start_generation(self, request: Shuffle) -> None: ...
    def _obligations(self) -> None: ...
    def _flush(self) -> None: ...
    def _catch_up(self) -> bool: return False
    def _public_card(self, token: Token) -> Card | None: ...

    # -- the public replica's requests ---------------------------------------------------------

    def _settle(self) -> None:
        if self.accusation is not None or self.finished:
            return  # only seeds are due now (they are sent as the round stops)
        if self.silenced:  # a seat timed out as silent may hold the table up again (a proposal
            self._count_votes()  # waits for its approval): the votes against it may carry now
        progress = True
        while progress:
            progress = False
            requests = self.public.requests
            if requests:
                progress = True
                for request in requests:
                    self._request(request)
            progress |= self._progress_public()
            if self.public.phase is Phase.OVER and not self._final_seeds:
                self._final_seeds = True
                self._begin_audit()
                progress = True
            self._obligations()
            progress |= self._catch_up()
            self._flush()

    def _request(self, request: Request) -> None:
        if isinstance(request, Shuffle):
            self._shuffles.append(request)
        elif isinstance(request, Reveal):
            generation, position = request.token
            if generation < 0:
                return
            if request.to is None:
                if self.holder_of(request.token) in self.rebuilds.keys() & self.vacant.keys():
                    self._shown_without_holder.add(request.token)
                self._reveal_public(request.token)
                self._publics.append(request.token)
            else:
                before = self.holder.get(request.token)
                self.holder[request.token] = request.to
                self.outstanding[request.token] = _Outstanding(request.to, set(range(
                    self.players)) - {request.to} - self.rebuilt_lost(generation))
                if before is not None and before != request.to:
                    self.round_events.append(("hand over", generation, position, before,
                                              request.to))
                self._reveal_to(request.token, before, request.to)
        elif self.round == 0:
            self._first_pick = request
        else:
            self._begin_pick(request)

    def _begin_pick(self, request: Pick) -> None:
        pick = PickState(request, self._picks_before + len(self._picks),
                         tuple(sorted(set(request.parties))))
        self._picks.append(pick)
        self.round_events.append(("pick", pick.number, request.n, pick.parties))
        self._pick_begin(pick)

    def _begin_first_pick(self) -> bool:
        """The first-dealer pick begins once every seat is played, as a round's deal does
        (protocol.md 11.3, 11.8): held again after a void of round 0, at the message that seats
        the last approved replacement, which takes part in it.  Whether it began now."""
        if self._first_pick is None or not self._seats_filled(0):
            return False
        request, self._first_pick = self._first_pick, None
        self._begin_pick(request)
        return True

    def _progress_public(self) -> bool:
        progress = self._begin_first_pick()
        while self._shuffles and self._shuffle_step(self._shuffles[0]):
            self._shuffles.pop(0)
            progress = True
        for token in list(self._publics):
            card = self._public_card(token)
            if card is not None:
                self._learn_public(token, card)
                progress = True
        for pick in self._picks:
            if pick.result is None:
                parties = set(pick.parties)
                if not pick.revealed and set(pick.commitments) >= parties:
                    pick.revealed = True
                    self._pick_reveal(pick)
                if set(pick.nonces) >= parties:
                    pick.result = pick_index(Context(self.game_id, self.round, 0), pick.number,
                                             pick.request.n, [pick.nonces[s] for s in pick.parties])
                    self.public.fulfil_pick(pick.result)
                    self._picked(pick.result)
                    progress = True
        return progress

    def _shuffle_step(self, request: Shuffle) -> bool:
        if request.generation not in self.generations or request.round_no != self.round:
            if request.generation == 0 and self.round != request.round_no:
                if self.audited != self.round and self.generations:
                    if not self.waiting_audit:
                        self._begin_audit()
                    return False
                if not self._seat_replacements(request.round_no):
                    return False  # a seat voted gone waits for someone to play it
                self._new_round(request.round_no)
            self.generations.add(request.generation)
            self.round_events.append(("generation", request.generation, tuple(request.cards),
                                      self._generation_holders()))
            self._start_generation(request)
        if not self.shuffled(request.generation):
            return False
        self.public.fulfil_shuffle(request.generation)
        return True

    def _begin_audit(self) -> None:
        """The round's end: every seat shows its seeds (a round that shuffled: at the game's end
        the last round always has, so the audit's conclusion ends the game)."""
        self._audit_generations = sorted(self.generations)
        self._audit_scored = True
        self.waiting_audit = True
        self._send_seeds()

    def _new_round(self, round_no: int) -> None:
        self.round = round_no
        self._audit_generations = None
        self.generations = set()
        self.rebuilds = {}
        self.lost_in_round = set()
        self.holder = {}
        self._publics = []
        self._reset_counts()
