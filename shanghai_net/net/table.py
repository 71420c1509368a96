"""One seat's whole game as a sans-IO state machine: `PeerTable`; the host's public view of it:
`PublicTable`; and the `Outbox` that signs what a seat sends against the chain's head.

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

import dataclasses
from collections import deque
from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable, Iterable

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey

from ..cards import Card
from ..deal.audit import audit, opened_deck
from ..deal.errors import CheatDetected
from ..deal.generation import Generation
from ..deal.group import (InvalidPoint, card_points, invert, is_scalar, is_valid_point, multiply,
                          scalar_product)
from ..deal.messages import Context, KeyReveal, SeedReveal, verify
from ..deal.participant import Participant, PeerKeys
from ..deal.picks import nonce_digest, pick_index
from ..deal.randomness import RandomBytes
from ..engine import new_game
from ..engine.dealer import Pick, Request, Reveal, Shuffle, Token
from ..engine.events import Event, GameResult
from ..engine.game import Game, Phase
from ..engine.moves import CallShanghai, MayI, Move, PassClaim
from ..errors import IllegalMoveError
from ..rules.ruleset import RuleSet, preset
from ..wire import messages as wm
from ..wire.errors import ProtocolError, RemoteProtocolError
from ..wire.messages import HOST_AUTHOR, Body, Deal, GameMessage, StartGame, Timeout
from ..wire.signing import Chain, sign_game, signed_by, start_digest
from .fault import Fault
from .replay import FullReplay
from .bodies import (MOVE_BODIES, DealStep, body_to_move, deal_body, move_to_body, parse_deal,
                     reveals_body, seeds_body, shares_body)

__all__ = ["Fault", "PeerTable", "PublicTable", "Outbox", "rules_of", "HOST_AUTHOR"]

OBSERVER = -1
"""The seat a third party's record of a generation carries: it is no seat (as ``viewer=-1`` is
the engine's public replica), and has no seed of its own."""


def rules_of(start: StartGame) -> RuleSet:
    """The rules a StartGame fixes: its preset with its house-rule overrides."""
    rules = preset(start.preset)
    return rules.override(**start.rules) if start.rules else rules


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


def final_result(table: "_Base", game: Game) -> GameResult | None:
    """``game``'s result as the table ends it: a seat the deal's audit named is ranked last and
    wins nothing, whatever its totals (protocol.md 11.6)."""
    result = game.result
    verdict = table.verdict
    if result is None or verdict is None or verdict.culprit not in result.ranking:
        return result
    culprit = verdict.culprit
    ranking = tuple(s for s in result.ranking if s != culprit) + (culprit,)
    best = result.totals[ranking[0]]
    winners = tuple(s for s in ranking[:-1] if result.totals[s] == best)
    return dataclasses.replace(result, ranking=ranking, winners=winners)


def check_move(game: Game, move: Move) -> None:
    """IllegalMoveError unless ``move`` is legal in ``game`` now (state unchanged)."""
    for legal in game.legal_moves(move.seat):
        if legal == move:
            return
    game.check(move)


@dataclass
class _Outstanding:
    """Key shares owed for one card going to ``to``: the seats that have not sent theirs."""

    to: int
    owing: set[int]


@dataclass
class _PickState:
    request: Pick
    number: int
    parties: tuple[int, ...]
    revealed: bool = False
    commitments: dict[int, bytes] = field(default_factory=dict)
    nonces: dict[int, bytes] = field(default_factory=dict)
    result: int | None = None


@dataclass(frozen=True)
class Protested:
    """A seat's protest of the host's ``timeout`` at ``seq``; ``claim``: the signed claim it
    showed, which the host did not sequence (checked: the seat signed it)."""

    seat: int
    seq: int
    reason: str
    claim: GameMessage | None


class _Base:
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
        self.claim_timeout = start.claim_timeout
        """Seconds the host said its claim windows wait (a ``timeout`` much sooner is its fault)."""
        self.audit_timeout = start.audit_timeout
        """Seconds the table waits for every seat's ``seeds`` after a complaint."""
        keys = {s.seat: s.sign_key for s in start.seats}
        if start.host_key is not None:
            keys[HOST_AUTHOR] = start.host_key
        self.chain = Chain(self.game_id, keys, start_digest(start.to_wire()))
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
        self.void_votes: dict[int, set[int]] = {}
        """Engine round -> the seats that voted to void it."""
        self.voided: int | None = None
        """The round the table voted void (the game ended there), if any."""
        self.audited = -1
        self.waiting_audit = False
        self.replay = FullReplay(self.rules, self.players)
        """The game with every card known, a round behind: each round replayed at its audit."""
        self.accusation: tuple[int | None, str] | None = None
        """(complainer, reason): the running round was stopped for its audit by a complaint
        (complainer None: a card turned up for all that opened to nothing)."""
        self.verdict: Fault | None = None
        """Whom a round's audit named: that round was voided and the game ended there."""
        self.host_timeouts: dict[int, int] = {}
        """seq -> the seat a host ``timeout`` of a claim window named."""
        self.protests: list[Protested] = []
        """What seats said the host did to them (protest bodies, checked)."""
        self._audit_generations: list[int] | None = None
        """The generations a stopped round audits (those every seat committed to)."""
        self._audit_scored = False
        self._shuffles: list[Shuffle] = []
        self._publics: list[Token] = []
        self._picks: list[_PickState] = []
        self._final_seeds = False
        self._reset_counts()

    def _reset_counts(self) -> None:
        """What the stream has sequenced of the running round's deal: only sequenced steps count,
        never a seat's own step before the host has ordered it."""
        self._commits: dict[int, set[int]] = {}
        self._passes: dict[int, int] = {}
        self._own_keys: dict[Token, set[int]] = {}
        self._revealed: set[Token] = set()
        self._picks = []

    # -- queries -------------------------------------------------------------------------------

    @property
    def settled(self) -> bool:
        """No key share owed and no replica waiting: a move may come now."""
        return not self.outstanding and not self.public.waiting and not self.waiting_audit

    def holder_of(self, token: Token) -> int | None:
        for seat, hand in enumerate(self.public.hands):
            if token in hand:
                return seat
        return None

    def owed(self) -> dict[int, str]:
        """What each seat owes the deal now, as the sequenced stream tells (seat -> what, the
        first thing it owes): a table that waits says for whom and why, and a client that
        follows the stream knows what to answer without a replica of its own."""
        owes: dict[int, str] = {}
        if self.finished or self.fault is not None:
            return owes
        if self.waiting_audit:
            return {seat: "its seeds" for seat in range(self.players)
                    if seat not in self.seeds_from}
        if self.accusation is not None:
            return owes
        for generation in sorted(self.generations):
            committed = self._commits.get(generation, set())
            if len(committed) < self.players:
                for seat in sorted(set(range(self.players)) - committed):
                    owes.setdefault(seat, f"its commitment to shuffle {generation}")
            elif not self.shuffled(generation):
                seat = self._passes.get(generation, 0) % self.players
                owes.setdefault(seat, f"its pass of shuffle {generation}")
        for pick in self._picks:
            if pick.result is None:
                for seat in pick.parties:
                    if seat not in pick.commitments:
                        owes.setdefault(seat, f"its commitment to pick {pick.number}")
                    elif pick.revealed and seat not in pick.nonces:
                        owes.setdefault(seat, f"its nonce of pick {pick.number}")
        for token, outstanding in sorted(self.outstanding.items()):
            for seat in sorted(outstanding.owing):
                owes.setdefault(seat, f"key shares for seat {outstanding.to}")
        for token in self._publics:
            holder = self.holder_of(token)
            shown = self._own_keys.get(token, set())
            for seat in [holder] if holder is not None else range(self.players):
                if seat not in shown:
                    owes.setdefault(seat, "its key of a card turned up")
        return owes

    def claim_window(self) -> object | None:
        """The claim window the host's clock runs for: open while the public deal is settled."""
        w = self.public.window
        if w is None or not _Base.settled.fget(self) or self.public.phase is not Phase.DRAW:
            return None
        return w

    def shuffled(self, generation: int) -> bool:
        return self._passes.get(generation, 0) == 2 * self.players

    def _all_committed(self, generation: int) -> bool:
        return len(self._commits.get(generation, ())) == self.players

    # -- the stream ----------------------------------------------------------------------------

    def _take(self, msg: GameMessage) -> None:
        """Verify ``msg`` as the next message of the chain and apply it (raises on a fault)."""
        if self.fault is not None:
            raise self.fault
        if self.finished:
            raise Fault(HOST_AUTHOR, f"the host relayed seq {msg.seq} after the game's end")
        try:
            self.chain.check(msg)
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
        if author == HOST_AUTHOR:
            if not isinstance(body, Timeout):
                raise Fault(HOST_AUTHOR, f"the host signed a {body.KIND} body")
            if body.what == "seeds":
                self._seeds_timeout(body.seat)
            else:
                self._apply(author, PassClaim(body.seat))
                self.host_timeouts[msg.seq] = body.seat
        elif isinstance(body, wm.Protest):
            self._protest(author, body)
        elif isinstance(body, (wm.VoidRound, wm.Complaint)):
            why, act = self._round_stopper(author, body)
            if why is not None:
                raise Fault(author, f"seat {author}: {why}")
            act()
        elif isinstance(body, Deal):
            try:
                step = parse_deal(body, self.game_id, author)
            except ValueError as error:
                raise Fault(author, f"seat {author}: malformed deal body: {error}") from None
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

    # -- the vote to void a round --------------------------------------------------------------

    @property
    def void_target(self) -> int:
        """The round a vote to void names: the one the table is stuck in.  While the table
        waits for a round's seeds (a player left at its end), that round, scored but not
        audited; else the running round."""
        return self.round if self.waiting_audit else self.public.round_no

    def _vote_refused(self, author: int, round_no: int) -> str | None:
        """Why this vote has no place here, or None.  A vote needs no settled deal: it is how a
        table stuck waiting for a seat that never comes back gets out."""
        if self.finished:
            return "a vote to void a round of a game that is over"
        if round_no != self.void_target:
            return f"a vote to void round {round_no}; the table is in round {self.void_target}"
        if author in self.void_votes.get(round_no, ()):
            return f"a second vote to void round {round_no}"
        return None

    def _vote(self, author: int, round_no: int) -> None:
        """Count the vote; more than half the seats void the round and end the game there (the
        round is not audited: the seat that left took its keys).  A round voided while its
        seeds were awaited loses the score it had been given."""
        votes = self.void_votes.setdefault(round_no, set())
        votes.add(author)
        if 2 * len(votes) <= self.players:
            return
        scored = self.waiting_audit
        self.voided = round_no
        self._final_seeds = True
        self.outstanding.clear()
        self.waiting_audit = False
        self.public.void_round(scored)
        self._void_own(scored)
        self.finished = True

    def _void_own(self, scored: bool) -> None:
        """Hook: a seat voids its own replica's round too."""

    def _round_stopper(self, author: int, body: wm.VoidRound | wm.Complaint
                       ) -> tuple[str | None, Callable[[], None]]:
        """A vote to void the round or a complaint, the two bodies valid whether or not the deal
        is settled: why it has no place here (None: it has), and what it does."""
        if isinstance(body, wm.VoidRound):
            return self._vote_refused(author, body.round), lambda: self._vote(author, body.round)
        return (self._complaint_refused(author, body.round),
                lambda: self._accuse(author, body.reason))

    # -- what a seat says the host did ---------------------------------------------------------

    def _protest(self, author: int, body: wm.Protest) -> None:
        """Record a seat's protest of a host timeout (Fault on one that has no place)."""
        if self.finished:
            raise Fault(author, f"seat {author}: a protest after the game's end")
        if self.host_timeouts.get(body.seq) != author:
            raise Fault(author, f"seat {author}: protests seq {body.seq}, which is no host "
                                "timeout of its seat")
        if any(p.seq == body.seq for p in self.protests):
            raise Fault(author, f"seat {author}: a second protest of seq {body.seq}")
        claim = None
        if body.claim is not None:
            claim = self._evidence_of_claim(author, body)
        self.protests.append(Protested(author, body.seq, body.reason, claim))

    def _evidence_of_claim(self, author: int, body: wm.Protest) -> GameMessage:
        """The claim a protest carries: the author's own signed may_i or pass_claim, decided on
        a state before the timeout's."""
        try:
            claim = GameMessage.from_wire({**body.claim, "type": "game"})
            signed_by(self.start_game, claim)
        except (ProtocolError, ValueError, KeyError, TypeError) as error:
            raise Fault(author, f"seat {author}: its protest's claim is no message it signed: "
                                f"{error}") from None
        if claim.author != author or not isinstance(claim.body, (wm.MayI, wm.PassClaim)) or \
                claim.basis_seq is None or claim.basis_seq >= body.seq:
            raise Fault(author, f"seat {author}: its protest's claim is not its answer to the "
                                f"window the timeout at seq {body.seq} closed")
        return claim

    # -- a round stopped for its audit ---------------------------------------------------------

    def _complaint_refused(self, author: int, round_no: int) -> str | None:
        """Why a complaint has no place here, or None: it names the running round, whose deal
        has begun and is not being audited already."""
        if self.finished:
            return "a complaint about a game that is over"
        if round_no != self.round or not self.generations:
            return f"a complaint about round {round_no}; the deal is in round {self.round}"
        if self.waiting_audit:
            return "a complaint while the round is being audited"
        return None

    def _accuse(self, complainer: int | None, reason: str) -> None:
        """Stop the round: no further move or deal step, every seat opens its seeds now."""
        self.accusation = (complainer, reason)
        self._audit_generations = sorted(g for g in self.generations if self._all_committed(g))
        self._audit_scored = False
        self._final_seeds = True
        self.outstanding.clear()
        self.waiting_audit = True
        self.seeds_from = set()
        self._send_seeds()

    def _seeds_timeout(self, seat: int) -> None:
        """The host's word that ``seat`` did not open its seeds in the time a complaint gives."""
        if self.accusation is None or not self.waiting_audit or seat in self.seeds_from:
            raise Fault(HOST_AUTHOR, f"the host timed out seat {seat}'s seeds, which were not "
                                     "due or had come")
        self._convict(Fault(seat, f"seat {seat}: did not open its seeds in time after the "
                                  "round was stopped for its audit"))

    def _audited(self) -> None:
        """Every seat's seeds are in: audit, then either go on or void the round and name."""
        self.waiting_audit = False
        self.seeds_from = set()
        verdict = self._audit()
        if verdict is None and self.accusation is not None:
            complainer, reason = self.accusation
            verdict = Fault(complainer, (f"seat {complainer}: complained ({reason}), but every "
                                         "step of the deal matches its seed") if complainer
                            is not None else f"{reason}, yet every step matches its seed")
        if verdict is not None:
            self._convict(verdict)
            return
        self.audited = self.round
        if self.public.phase is Phase.OVER:
            self.finished = True

    def _convict(self, verdict: Fault) -> None:
        """The audit named a seat (or the host): the round is void and the game over."""
        self.verdict = verdict
        self.voided = self.round
        self._final_seeds = True
        self.outstanding.clear()
        self.waiting_audit = False
        self.public.void_round(self._audit_scored)
        self._void_own(self._audit_scored)
        self.finished = True

    # -- deal steps ----------------------------------------------------------------------------

    def _on_deal(self, author: int, step: DealStep) -> None:
        if step.round != self.round:
            raise Fault(author, f"seat {author}: {step.step} for round {step.round}; the deal is "
                                f"in round {self.round}")
        if step.step == "shares":
            for sealed in step.sealed:
                for position in sealed.positions:
                    owed = self.outstanding.get((sealed.context.generation, position))
                    if owed is None or owed.to != sealed.recipient or author not in owed.owing:
                        raise Fault(author, f"seat {author}: a key share for position {position} "
                                            f"of generation {sealed.context.generation} that no "
                                            f"one asked of it")
                    owed.owing.discard(author)
            self._seat_shares(author, step)
            for key in [k for k, owed in self.outstanding.items() if not owed.owing]:
                del self.outstanding[key]
        elif step.step == "seeds":
            if not self.waiting_audit or author in self.seeds_from:
                raise Fault(author, f"seat {author}: seeds out of place")
            self._seat_messages(author, step)
            self.seeds_from.add(author)
            if len(self.seeds_from) == self.players:
                self._audited()
        elif self.accusation is not None:
            raise Fault(HOST_AUTHOR, f"the host relayed seat {author}'s {step.step} after the "
                                     "round was stopped for its audit")
        else:
            self._check_step(author, step)
            self._seat_messages(author, step)
            self._count(author, step)
            if step.step == "reveal":
                for reveal in step.messages:
                    token = (reveal.context.generation, reveal.position)
                    card = self._public_card(token)
                    if card is not None:
                        self._learn_public(token, card)
                    elif token in self._revealed:  # every seat's own key is in: no card
                        self._accuse(None, f"position {reveal.position} of generation "
                                           f"{reveal.context.generation}, turned up with every "
                                           "seat's key, does not open to a card")
                        return

    def _count(self, author: int, step: DealStep) -> None:
        if step.step == "commit":
            self._commits.setdefault(step.generation, set()).add(author)
        elif step.step == "pass":
            self._passes[step.generation] = self._passes.get(step.generation, 0) + 1
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
                    seen = self._own_keys.setdefault(token, set())
                    seen.add(author)
                    if len(seen) == self.players:
                        self._revealed.add(token)

    def _pick(self, author: int, number: int) -> _PickState:
        if not 0 <= number < len(self._picks) or author not in self._picks[number].parties:
            raise Fault(author, f"seat {author}: no pick {number} among it is running")
        return self._picks[number]

    def _learn_public(self, token: Token, card: Card) -> None:
        if token in self._publics:
            self._publics.remove(token)
        if self.public.round_no == self.round:  # not once it has moved on to the next round
            self.public.learn(token, card)

    # hooks
    def _check_step(self, author: int, step: DealStep) -> None: ...
    def _seat_messages(self, author: int, step: DealStep) -> None: ...
    def _seat_shares(self, author: int, step: DealStep) -> None: ...
    def _audit(self) -> Fault | None: ...
    def _reveal_public(self, token: Token) -> None: ...
    def _reveal_to(self, token: Token, before: int | None, to: int) -> None: ...
    def _pick_begin(self, pick: _PickState) -> None: ...
    def _pick_reveal(self, pick: _PickState) -> None: ...
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
                self._reveal_public(request.token)
                self._publics.append(request.token)
            else:
                before = self.holder.get(request.token)
                self.holder[request.token] = request.to
                self.outstanding[request.token] = _Outstanding(
                    request.to, set(range(self.players)) - {request.to})
                self._reveal_to(request.token, before, request.to)
        else:
            pick = _PickState(request, len(self._picks), tuple(sorted(set(request.parties))))
            self._picks.append(pick)
            self._pick_begin(pick)

    def _progress_public(self) -> bool:
        progress = False
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
                self._new_round(request.round_no)
            self.generations.add(request.generation)
            self._start_generation(request)
        if not self.shuffled(request.generation):
            return False
        self.public.fulfil_shuffle(request.generation)
        return True

    def _begin_audit(self) -> None:
        """The round's end: every seat shows its seeds (only rounds that shuffled)."""
        if self.generations:
            self._audit_generations = sorted(self.generations)
            self._audit_scored = True
            self.waiting_audit = True
            self._send_seeds()
        elif self.public.phase is Phase.OVER:
            self.finished = True

    def _new_round(self, round_no: int) -> None:
        self.round = round_no
        self._audit_generations = None
        self.generations = set()
        self.holder = {}
        self._publics = []
        self._reset_counts()


# -- one seat ------------------------------------------------------------------------------------

class PeerTable(_Base):
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

    def __init__(self, start: StartGame, seat: int, sign_key: Ed25519PrivateKey,
                 box_key: X25519PrivateKey, random: RandomBytes) -> None:
        super().__init__(start)
        self.seat = seat
        self.game = new_game(self.rules, self.players, None, seat)
        self.events: list[Event] = []
        self.roster = [PeerKeys(Ed25519PublicKey.from_public_bytes(s.sign_key),
                                X25519PublicKey.from_public_bytes(s.box_key))
                       for s in start.seats]
        self._sign_key = sign_key
        self._box_key = box_key
        self._random = random
        self.participant = self._participant(0)
        self.verdicts: dict[int, object] = {}
        self._out: list[Body] = []
        self._shares: dict[tuple[int, int], list[int]] = {}
        self._reveals: list[KeyReveal] = []
        self._deferred: list[Token] = []
        self._own_picks = 0
        self.complaint: str | None = None
        """What this seat found wrong in the deal and complained of (it then stops playing)."""

    def _participant(self, round_no: int) -> Participant:
        return Participant(self.seat, self.roster, self.game_id, round_no, self._sign_key,
                           self._box_key, self._random, self.rules.shuffle_proof)

    # -- the API -------------------------------------------------------------------------------

    def start(self) -> list[Body]:
        """The bodies to send as the game starts (the first-dealer pick's commitment)."""
        self._guarded(self._settle)
        if self.fault is not None:
            raise self.fault
        out, self._out = self._out, []
        return out

    def receive(self, msg: GameMessage) -> list[Body]:
        """Take the next sequenced message; the bodies to send now."""
        self._take(msg)
        out, self._out = self._out, []
        return out

    @property
    def settled(self) -> bool:
        # a seat that complained follows the public game only: its replica waits for a card
        # that will not open
        return super().settled and (self.complaint is not None or not self.game.waiting)

    def can_move(self) -> bool:
        """This seat has a decision to make now."""
        return self.fault is None and self.complaint is None and self.settled and \
            self.seat in self.game.to_move()

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

    def _void_own(self, scored: bool) -> None:
        self.events.extend(self.game.void_round(scored))

    def _learn_public(self, token: Token, card: Card) -> None:
        super()._learn_public(token, card)
        if self.game.round_no == self.round:  # not once it has moved on to the next round
            self.events.extend(self.game.learn(token, card))

    def _complain(self, cheat: CheatDetected | ValueError) -> None:
        """A fault only this seat can see: tell the table (once), and stop playing; the audit
        the complaint starts decides who is at fault."""
        if self.complaint is None:
            self.complaint = str(getattr(cheat, "reason", cheat))[:500]
            self._out.append(wm.Complaint(round=self.round, reason=self.complaint))

    def _catch_up(self) -> bool:
        """Answer what this seat's replica waits for, from what the stream has brought so far."""
        self.game.requests  # noqa: B018 - drained: what it still awaits is the truth
        if self.game.round_no != self.round or self.complaint is not None:
            return False  # it knows its own cards: it may start a round before the deal does
        progress = False
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
                    if position in g.mine or len(g.received(position)) == self.players - 1:
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
        self.participant = self._participant(round_no)
        self._own_picks = 0

    def _start_generation(self, request: Shuffle) -> None:
        self._out.append(deal_body(self.participant.start_generation(request.generation,
                                                                      request.cards)))

    def _obligations(self) -> None:
        """My pass, once every commitment and every pass before mine is sequenced; public
        reveals of my cards that had to wait for the card to reach me."""
        for generation in sorted(self.generations):
            if not self._all_committed(generation):
                continue
            step = self.participant.next_step(generation)
            if step is not None and step[1] == self.seat and \
                    self._passes.get(generation, 0) == (step[0] - 1) * self.players + self.seat:
                self._out.append(deal_body(self.participant.make_pass(generation)))
        for token in list(self._deferred):
            if self.complaint is None and (
                    token[1] in self.participant.generation(token[0]).mine or self._try_open(token)):
                self._deferred.remove(token)
                self._reveals.append(self.participant.reveal(*token))

    def _try_open(self, token: Token) -> bool:
        generation, position = token
        if len(self.participant.generation(generation).received(position)) < self.players - 1:
            return False
        try:
            self.participant.open(generation, position)
        except CheatDetected as cheat:
            self._complain(cheat)
            return False
        return True

    def _seat_messages(self, author: int, step: DealStep) -> None:
        if author == self.seat:
            if step.step == "reveal":
                self._replay_reveals(step)
            return
        for message in step.messages:
            try:
                self.participant.receive(message)
            except CheatDetected as cheat:
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
            return
        for sealed in step.sealed:
            if sealed.recipient != self.seat:
                self.participant.record_box(sealed)
                continue
            try:
                self.participant.receive_share(sealed)
            except (CheatDetected, ValueError) as cheat:
                self._complain(cheat)

    def _reveal_public(self, token: Token) -> None:
        generation, position = token
        if self.participant.public_card(generation, position) is not None:
            return
        holder = self.holder_of(token)
        if holder == self.seat:
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
        if self._reveals:
            self._out.append(reveals_body(self.round, self._reveals))
            self._reveals = []
        if self._shares:
            by_generation: dict[int, list] = {}
            for (generation, to), positions in sorted(self._shares.items()):
                by_generation.setdefault(generation, []).append(
                    self.participant.share_keys(generation, to, positions))
            for generation, sealed in by_generation.items():
                self._out.append(shares_body(self.round, generation, sealed))
            self._shares = {}

    def _public_card(self, token: Token) -> Card | None:
        if token not in self._revealed:
            return None
        return self.participant.public_card(*token)

    def _pick_begin(self, pick: _PickState) -> None:
        if self.seat in pick.parties:
            self._out.append(deal_body(self.participant.pick_commit(
                pick.number, pick.request.n, pick.parties)))

    def _pick_reveal(self, pick: _PickState) -> None:
        if self.seat in pick.parties:
            self._out.append(deal_body(self.participant.pick_reveal(pick.number)))

    def _send_seeds(self) -> None:
        self._out.append(seeds_body(self.round,
                                    self.participant.reveal_seeds(self._audit_generations)))

    def _audit(self) -> Fault | None:
        verdict = self.participant.audit(self._audit_generations)
        self.verdicts[self.round] = verdict
        if not verdict.clean:
            return Fault(verdict.culprit, f"round {self.round} audit: {verdict.reason}")
        if self.accusation is not None:
            return None  # the round is void whatever the audit says: no replay
        return self._replayed(self.participant.opened_decks())


def _cards_named(move: Move) -> Iterable[Card]:
    from ..deal.dealer import cards_named
    return cards_named(move)


# -- the public view -----------------------------------------------------------------------------

@dataclass
class _PublicGeneration:
    cards: tuple[Card, ...]
    final: tuple[bytes, ...] = ()
    own_keys: dict[int, dict[int, bytes]] = field(default_factory=dict)
    public: dict[int, Card] = field(default_factory=dict)

    @cached_property
    def points(self) -> dict[bytes, Card]:
        return card_points(self.cards)


class PublicTable(_Base):
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
        self.rounds_audited = 0
        self.faces = 0
        """Cards shown in play whose face the seeds confirmed."""
        super().__init__(start)
        self.game = self.public
        self._signing = [Ed25519PublicKey.from_public_bytes(s.sign_key) for s in start.seats]
        self._boxing = [X25519PublicKey.from_public_bytes(s.box_key) for s in start.seats]
        self.decks: dict[int, _PublicGeneration] = {}
        self._prechecked = False
        self._settle()

    def receive(self, msg: GameMessage) -> None:
        """Take the next sequenced message (a spectator); raises Fault."""
        self._take(msg)

    def admit(self, msg: GameMessage) -> GameMessage:
        """The sequencer's step: place ``msg`` (as its author sent it, unsequenced) as the next
        message, check it and apply it; the message as placed (its seq and prev filled in).  Or
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
        if msg.author == HOST_AUTHOR or isinstance(body, Timeout):
            raise RemoteProtocolError("bad_signature", "only the host signs a timeout", None,
                                      msg.counter)
        if isinstance(body, (wm.VoidRound, wm.Complaint)):
            why, act = self._round_stopper(msg.author, body)
            if why is not None:
                raise RemoteProtocolError("out_of_turn", why, None, msg.counter)
            self.chain.append(msg)
            self._guarded(act)
        elif isinstance(body, wm.Protest):
            try:
                self._protest(msg.author, body)
            except Fault as fault:
                raise RemoteProtocolError("bad_message", fault.reason[:480], None,
                                          msg.counter) from None
            self.chain.append(msg)
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
            self.chain.append(msg)
            self.version += 1
            self._applied(msg.author, move)
            self._guarded(self._settle)
        elif isinstance(body, Deal):
            try:
                step = parse_deal(body, self.game_id, msg.author)
            except ValueError as error:
                raise RemoteProtocolError("bad_message", f"game.body: {error}"[:480],
                                          None, msg.counter) from None
            self._admit_deal(msg, step)
            self.chain.append(msg)
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

    def timeout(self, msg: GameMessage) -> None:
        """Apply the host's own ``timeout`` message (signed by the host as the next message)."""
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
            why = "the deal is not settled" if not self.settled else (
                f"seat {seat} has no decision to make now (to move: {game.to_move()})")
            raise RemoteProtocolError("out_of_turn", f"{move.text()!r}: {why}", None, msg.counter)
        if isinstance(msg.body, wm.CallShanghai):
            top = game.discard[-1].id if game.discard else None
            if msg.body.card != top:
                raise RemoteProtocolError("illegal_move", f"the top discard is {top}", None, msg.counter)
        return move

    def _admit_deal(self, msg: GameMessage, step: DealStep) -> None:
        author = msg.author
        try:
            if step.round != self.round:
                raise ValueError(f"round {step.round}: the deal is in round {self.round}")
            if self.accusation is not None and step.step != "seeds":
                raise ValueError("the round is stopped for its audit: only seeds are due")
            if step.step == "seeds":
                if not self.waiting_audit or author in self.seeds_from:
                    raise ValueError("no seeds are due from this seat now")
            elif step.step == "shares":
                for sealed in step.sealed:
                    for position in sealed.positions:
                        owed = self.outstanding.get((sealed.context.generation, position))
                        if owed is None or owed.to != sealed.recipient or author not in owed.owing:
                            raise ValueError(f"no key share for position {position} is owed")
            else:
                self._check_step(author, step)
                if step.step in ("pick_commit", "pick_reveal"):
                    self._pick(author, step.messages[0].pick)
        except Fault as fault:
            raise RemoteProtocolError("out_of_turn", fault.reason[:480], None, msg.counter) from None
        except ValueError as error:
            raise RemoteProtocolError("out_of_turn", str(error)[:480], None, msg.counter) from None

    # -- the public deal -----------------------------------------------------------------------

    def _check_step(self, author: int, step: DealStep) -> None:
        if self._prechecked:
            return
        for message in step.messages:
            try:
                verify(message, self._signing[author])
            except ValueError as error:
                raise Fault(author, str(error)) from None
        if step.step in ("commit", "pass"):
            g = self.decks.get(step.generation)
            if g is None:
                raise Fault(author, f"no shuffle of generation {step.generation} is running")
            if step.step == "commit" and author in self._commits.get(step.generation, ()):
                raise Fault(author, "a second commitment")
            if step.step == "pass":
                if not self._all_committed(step.generation):
                    raise Fault(author, "a pass before every commitment")
                (output,) = step.messages
                turn = self._passes.get(step.generation, 0)
                if turn >= 2 * self.players or (turn % self.players, 1 + turn // self.players) \
                        != (author, output.phase):
                    raise Fault(author, f"pass {output.phase} of seat {author} out of turn")
                if len(output.points) != len(g.cards):
                    raise Fault(author, "a pass of the wrong size")
                if len(set(output.points)) != len(output.points):
                    raise Fault(author, f"pass {output.phase} repeats a point")
                bad = next((i for i, point in enumerate(output.points)
                            if not is_valid_point(point)), None)
                if bad is not None:
                    raise Fault(author, f"pass {output.phase} position {bad} is not a valid "
                                        "point")
        elif step.step in ("pick_commit", "pick_reveal"):
            (message,) = step.messages
            pick = self._pick(author, message.pick)
            if step.step == "pick_commit":
                if (message.n, message.parties) != (pick.request.n, pick.parties) or \
                        author in pick.commitments:
                    raise Fault(author, f"pick commitment {message.pick} does not fit")
            elif author in pick.nonces or set(pick.commitments) < set(pick.parties) or \
                    nonce_digest(message.context, message.pick, pick.request.n, pick.parties,
                                 author, message.nonce) != pick.commitments[author]:
                raise Fault(author, f"pick nonce {message.pick} does not match its commitment")
        elif step.step == "reveal":
            for reveal in step.messages:
                g = self.decks.get(reveal.context.generation)
                if g is None or not g.final or not 0 <= reveal.position < len(g.cards):
                    raise Fault(author, "a reveal of no dealt position")
                if not all(is_scalar(k) for _, k in reveal.keys):
                    raise Fault(author, "a reveal with a malformed key")
                keys = dict(reveal.keys)
                if len(keys) != self.players and list(keys) != [author]:
                    raise Fault(author, "a reveal holds every seat's key or its author's own")
                if len(keys) == self.players and reveal.position not in g.public and \
                        self._opened(g, reveal.position, keys) is None:
                    raise Fault(author, f"seat {author}: reveal of position {reveal.position} "
                                        "opens to no card")

    def _seat_messages(self, author: int, step: DealStep) -> None:
        if step.step == "pass":
            if self._passes.get(step.generation, 0) == 2 * self.players - 1:
                self.decks[step.generation].final = step.messages[0].points
        elif step.step == "reveal":
            for reveal in step.messages:
                self._public_reveal(author, reveal)
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

    def _seed(self, author: int, record: Generation, reveal: SeedReveal) -> None:
        try:
            verify(reveal, self._signing[author])
        except ValueError as error:
            raise Fault(author, f"seat {author}: {error}") from None
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
        verdict = audit(records, self._signing, self._boxing)
        if not verdict.clean:
            return Fault(verdict.culprit, f"round {self.round} audit: {verdict.reason}")
        if self.accusation is not None:
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

    def _public_reveal(self, author: int, reveal: KeyReveal) -> None:
        g = self.decks[reveal.context.generation]
        position = reveal.position
        if position in g.public:
            return
        keys = dict(reveal.keys)
        if len(keys) != self.players:
            g.own_keys.setdefault(position, {}).update(keys)
            keys = g.own_keys[position]
            if len(keys) != self.players:
                return
        card = self._opened(g, position, keys)
        if card is None and len(reveal.keys) == self.players:
            raise Fault(author, f"seat {author}: reveal of position {position} opens to no card")
        if card is not None:  # else every seat's own key is in and no card opens: see _on_deal
            g.public[position] = card

    @staticmethod
    def _opened(g: _PublicGeneration, position: int, keys: dict[int, bytes]) -> Card | None:
        """The card ``keys`` open at ``position`` of the final deck, or None."""
        try:
            point = multiply(invert(scalar_product(keys.values())), g.final[position])
        except InvalidPoint:
            return None
        return g.points.get(point)

    def _new_round(self, round_no: int) -> None:
        super()._new_round(round_no)
        self.decks = {}
        self.records = {}

    def _start_generation(self, request: Shuffle) -> None:
        self.decks[request.generation] = _PublicGeneration(tuple(request.cards))
        context = Context(self.game_id, self.round, request.generation)
        self.records[request.generation] = Generation(context, tuple(request.cards),
                                                      self.players, OBSERVER, b"")

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


# -- sending -------------------------------------------------------------------------------------

def _due_in_audit(body: Body) -> bool:
    """A body a seat still sends once its round is stopped for the audit."""
    return isinstance(body, wm.VoidRound) or (isinstance(body, Deal) and body.step == "seeds")


class Outbox:
    """What one seat has to send, each message signed with the seat's next counter.

    Deal bodies (and votes, complaints, protests) commute with everyone else's messages: they
    go out in order as soon as they are due, several on their way at once (at most
    ``MAX_FLYING``), and are never stale.  A move waits until the deal bodies before it are on
    their way and the deal is settled; it names the chain's head it was decided on, and if the
    host answers ``stale`` (a turn move came first) it is checked again and, if still to be
    made, signed on the new head: dropped if it is no longer legal, or if it answers a claim
    window that has closed (a claim meant for one discard must not land on the next).
    After a reconnection, what was on its way is signed again with new counters; a message of
    ours found in the stream is taken as sent, so the deal body or move it carries is not sent
    again.  What became of each move: `take_outcomes`.
    """

    MAX_FLYING = 8

    def __init__(self, table: PeerTable, sign_key: Ed25519PrivateKey) -> None:
        self.table = table
        self._key = sign_key
        self.deal: deque[Body] = deque()
        """Deal bodies not yet sent."""
        self.flying: deque[GameMessage] = deque()
        """Deal bodies sent, not yet sequenced (in order)."""
        self.move: tuple[Move | None, Body, int, object] | None = None
        self.in_flight: GameMessage | None = None
        """The move on its way."""
        self.dropped: list[Body] = []
        self.sent = 0
        self._counter = 0
        self._hold = -1
        """A stale move is signed again once the stream has brought this seq (the message
        after which the game moved on: the host's error may come before it)."""
        self._outcomes: list[tuple[Move | None, str | None]] = []

    def push(self, bodies: Iterable[Body], move: Move | None = None) -> None:
        for body in bodies:
            if isinstance(body, wm.Complaint):  # before anything else: the round must stop
                self.deal.appendleft(body)
                if self.move is not None:
                    self._drop_move("the deal went wrong: this seat complained")
            elif isinstance(body, (Deal, wm.VoidRound, wm.Protest)):  # in order, settled or not
                self.deal.append(body)
            else:
                self.move = (move, body, self.table.version, self.table.game.window)

    @property
    def busy(self) -> bool:
        """A move of this seat is on its way: do not choose another."""
        return self.move is not None

    @property
    def idle(self) -> bool:
        return not self.deal and not self.flying and self.move is None

    def reserve(self) -> int:
        """This seat's next counter, taken (for a message signed outside the outbox too): above
        every counter of ours the chain holds, and every one given out before."""
        table = self.table
        counter = max(self._counter, table.chain.next_counter(table.seat))
        self._counter = counter + 1
        return counter

    def _sign(self, body: Body, basis: tuple[int, bytes] | None = None) -> GameMessage:
        self.sent += 1
        return sign_game(self._key, self.table.chain.start, self.table.seat, self.reserve(), body,
                         basis)

    def poll(self) -> GameMessage | None:
        """The next message to send, if any may be sent now (call until None)."""
        table = self.table
        if table.accusation is not None:  # the round stopped: only its audit's seeds are due
            kept = [body for body in self.deal if _due_in_audit(body)]
            self.dropped.extend(body for body in self.deal if not _due_in_audit(body))
            self.deal = deque(kept)
            if self.move is not None:
                self._drop_move("the round was stopped for its audit")
        if self.deal:
            if len(self.flying) >= self.MAX_FLYING:
                return None
            msg = self._sign(self.deal.popleft())
            self.flying.append(msg)
            return msg
        if self.move is None or self.in_flight is not None or not table.settled or \
                table.chain.next_seq <= self._hold:
            return None
        move, body, version, window = self.move
        if version != table.version and move is not None:
            why = moment_passed(table.game, move, window)
            if why is not None:
                self._drop_move(why)
                return None
            self.move = (move, body, table.version, window)
        self.in_flight = self._sign(body, table.chain.basis)
        return self.in_flight

    def sequenced(self, msg: GameMessage) -> None:
        """Call after the table took ``msg``."""
        if msg.author != self.table.seat:
            return
        if self.flying and self.flying[0].body == msg.body:
            self.flying.popleft()
        elif self.deal and self.deal[0] == msg.body:  # sent before a reconnection
            self.deal.popleft()
        elif self.move is not None and self.move[1] == msg.body:
            self._outcomes.append((self.move[0], None))
            self.move = None
            self.in_flight = None

    def reconnected(self) -> None:
        """A new connection: what was on its way may be lost; sign it again when it is due (it
        is recognised if the host had sequenced it after all)."""
        self.deal.extendleft(reversed([msg.body for msg in self.flying]))
        self.flying.clear()
        self.in_flight = None

    def error(self, error: wm.Error) -> None:
        """The host refused a message of ours: a ``stale`` move is checked and signed again; a
        refused move is dropped (the player chooses again); a refused deal step leaves nothing
        to do but to report it."""
        ref = error.ref_counter
        if ref is None:
            return
        mine = self.in_flight
        if mine is not None and mine.counter == ref:
            self.in_flight = None
            if error.code != "stale":
                self._drop_move(f"{error.code}: {error.reason}")
            elif error.ref_seq is not None:
                self._hold = error.ref_seq
            return
        for msg in self.flying:
            if msg.counter == ref:
                self.flying.remove(msg)
                if error.code == "stale":
                    self.deal.appendleft(msg.body)
                else:
                    self.dropped.append(msg.body)
                return

    def _drop_move(self, reason: str) -> None:
        move, body = self.move[:2]
        self.dropped.append(body)
        self._outcomes.append((move, reason))
        self.move = None
        self.in_flight = None

    def take_outcomes(self) -> list[tuple[Move | None, str | None]]:
        """The moves sequenced (reason None) or refused/dropped (the reason) since last asked."""
        out, self._outcomes = self._outcomes, []
        return out
