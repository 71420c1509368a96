"""A seat's side of the random picks (deal/picks.py's commit-reveal), and, with sharing on, the
nonces read from the seed: a party's nonce is read from its seed of the latest generation whose
commits were all in when the pick began, so a lost party's nonce is rebuilt with its seed and
the pick decided over every nonce (docs/dealing.md, "Picks are decided at the commit"). A mixin
of :class:`~shanghai_net.deal.participant.Participant`, which owns the state it reads."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

from .errors import CheatDetected
from .generation import Generation
from .messages import Context, Message, PickCommitment, PickReveal
from .picks import NONCE_BYTES, nonce_digest, pick_index, seed_nonce


@dataclass
class Pick:
    n: int
    parties: tuple[int, ...]
    nonce: bytes | None = None
    commitments: dict[int, PickCommitment] = field(default_factory=dict)
    nonces: dict[int, bytes] = field(default_factory=dict)
    generation: int | None = None
    """Sharing on: the generation whose seeds give the nonces (``None``: drawn, as with
    sharing off)."""
    public: frozenset[int] = frozenset()
    """Sharing on: the parties whose seed of ``generation`` was public (rebuilt) when the pick
    began: they draw their nonces, as with sharing off."""

    def to_plain(self) -> list[Any]:
        shared = [] if self.generation is None else [self.generation, sorted(self.public)]
        return [self.n, list(self.parties), self.nonce,
                [c.to_plain() for c in self.commitments.values()], sorted(self.nonces.items()),
                *shared]

    @classmethod
    def from_plain(cls, plain: Any) -> Pick:
        n, parties, nonce, commitments, nonces, *shared = plain
        generation, public = shared or (None, ())
        return cls(n, tuple(parties), nonce,
                   {c.author: c for c in map(Message.from_plain, commitments)},
                   dict(map(tuple, nonces)), generation, frozenset(public))

    def from_seed(self, party: int) -> bool:
        return self.generation is not None and party not in self.public


def seed_pick(n: int, parties: tuple[int, ...], complete: Iterable[int],
              drawing: Callable[[int], Iterable[int]]) -> Pick:
    """A pick beginning now, as every party keeps it (a seat's participant, the public table):
    with sharing on its nonces come from the seeds of the latest of the generations
    ``complete`` (those whose commits are all in; none, as at the first dealer's pick: drawn),
    but for the parties ``drawing(generation)`` names, whose seed of it is public or being
    rebuilt (R1): they draw theirs (docs/dealing.md, "Which generation, exactly")."""
    complete = list(complete)
    if not complete:
        return Pick(n, parties)
    number = max(complete)
    return Pick(n, parties, generation=number, public=frozenset(drawing(number)))


def nonce_off_seed(picks: Mapping[int, Pick], generations: Mapping[int, Generation]
                   ) -> tuple[int, str] | None:
    """Sharing on, at the audit: every nonce read from a seed (``picks``: number -> the pick,
    its nonces in) is the one its author's seed of the pick's generation gives, that seed
    revealed or rebuilt (R1, R2); the first that is not, as (author, why).  A pick whose
    generation the audit does not open (not in ``generations``), or a party whose seed the
    audit lacks, is not checked; a nonce drawn (sharing off, the first dealer's pick, a party
    whose seed was public) was checked against its commitment alone, as it came."""
    for number, state in sorted(picks.items()):
        g = generations.get(state.generation) if state.generation is not None else None
        for party, nonce in sorted(state.nonces.items()) if g else ():
            seed = state.from_seed(party) and g.seed_of(party)
            if seed and nonce != seed_nonce(g.context, party, number, seed):
                return party, (f"seat {party}: its nonce for pick {number} is not its seed's "
                               f"(of generation {state.generation})")
    return None


class Picking:
    """The participant's side of the random picks: see the module."""

    def _pick_context(self) -> Context:
        return Context(self.game_id, self.round, 0)

    def _pick_state(self, pick: int, n: int, parties: tuple[int, ...],
                    begin: bool = False) -> Pick:
        if n < 1 or not parties or list(parties) != sorted(set(parties)) or \
                not all(0 <= s < self.seats for s in parties):
            raise ValueError(f"pick {pick}: range({n}) among seats {list(parties)} is malformed")
        if pick not in self._picks:
            if self.share_threshold is not None and not begin:
                raise ValueError(f"pick {pick} was not begun here: with sharing on every seat "
                                 "begins a pick (expect_pick) at the message that begins it, "
                                 "which fixes the generation of its nonces")
            self._picks[pick] = self._new_pick(n, parties)
        state = self._picks[pick]
        if (state.n, state.parties) != (n, parties):
            raise ValueError(f"pick {pick} is range({state.n}) among seats {list(state.parties)}, "
                             f"not range({n}) among seats {list(parties)}")
        return state

    def _new_pick(self, n: int, parties: tuple[int, ...]) -> Pick:
        """A pick beginning now (`seed_pick`)."""
        return seed_pick(n, parties, [number for number, g in self._generations.items()
                                      if g.sharing and len(g.commitments) == self.seats],
                         lambda number: {*self._generations[number].sharing.rebuilt,
                                         *(s for s, lost in self._lost.items()
                                           if number in lost.generations)})

    def _own_nonce(self, pick: int, state: Pick) -> bytes:
        if state.from_seed(self.seat):
            g = self.generation(state.generation)
            if g.seed is not None:
                return seed_nonce(g.context, self.seat, pick, g.seed)
        return self._random(NONCE_BYTES)

    def _rebuild_nonces(self, seat: int) -> None:
        """Rebuilt ``seat``'s nonces of the picks it committed to and did not reveal: checked
        against its commitments (off names it), and the picks decided over every nonce."""
        for number, state in sorted(self._picks.items()):
            g = state.from_seed(seat) and self.generation(state.generation)
            if g and g.seed_of(seat) and seat in state.commitments and seat not in state.nonces:
                # (a generation of the pick restarted, not rebuilt: the rule with sharing off)
                nonce = seed_nonce(g.context, seat, number, g.seed_of(seat))
                self._take_nonce(state, PickReveal(self._pick_context(), number, seat, nonce))

    def audit_picks(self, generations: Iterable[int] | None = None) -> tuple[int, str] | None:
        """Sharing on, at the audit (`nonce_off_seed`) of every generation, or of
        ``generations``."""
        numbers = self._generations if generations is None else generations
        return nonce_off_seed(self._picks, {n: self.generation(n) for n in numbers})

    def pick_commit(self, pick: int, n: int, parties: Sequence[int]) -> PickCommitment:
        """Commit to this seat's nonce for pick ``pick`` (broadcast it)."""
        state = self._pick_state(pick, n, tuple(parties))
        if self.seat not in state.parties:
            raise ValueError(f"seat {self.seat} is not a party to pick {pick}")
        if state.nonce is None:
            state.nonce = self._own_nonce(pick, state)
        digest = nonce_digest(self._pick_context(), pick, n, state.parties, self.seat, state.nonce)
        commitment = self.outgoing(PickCommitment(self._pick_context(), pick, n, state.parties,
                                                  self.seat, digest))
        state.commitments[self.seat] = commitment
        return commitment

    def expect_pick(self, pick: int, n: int, parties: Sequence[int]) -> None:
        """Pick ``pick`` as the table runs it, begun at the message that begins it (the start
        digest, a ``call_shanghai``): a commitment to another pick (say, among its author alone)
        is then refused, not taken as the pick.  With sharing on every seat, party or not, must
        begin it so, before its own or any ``pick_commit``: that message fixes the generation
        whose seeds give the nonces, the same at every seat."""
        self._pick_state(pick, n, tuple(parties), begin=True)

    def _on_pick_commitment(self, commitment: PickCommitment) -> None:
        state = self._pick_state(commitment.pick, commitment.n, commitment.parties)
        if commitment.author not in state.parties:
            raise ValueError(f"seat {commitment.author} is not a party to pick {commitment.pick}")
        before = state.commitments.setdefault(commitment.author, commitment)
        if before != commitment:
            raise CheatDetected(commitment.author, f"seat {commitment.author}: sent two different "
                                                   f"commitments for pick {commitment.pick}")

    def _committed_pick(self, pick: int) -> Pick:
        state = self._picks.get(pick)
        missing = state and [s for s in state.parties if s not in state.commitments]
        if state is None or missing:
            raise ValueError(f"pick {pick}: no commitment yet from seats {missing}")
        return state

    def pick_reveal(self, pick: int) -> PickReveal:
        """Reveal this seat's nonce (broadcast it), once every party has committed."""
        state = self._committed_pick(pick)
        reveal = self.outgoing(PickReveal(self._pick_context(), pick, self.seat, state.nonce))
        state.nonces[self.seat] = reveal.nonce
        return reveal

    def _on_pick_reveal(self, reveal: PickReveal) -> None:
        state = self._committed_pick(reveal.pick)
        if reveal.author not in state.parties:
            raise ValueError(f"seat {reveal.author} is not a party to pick {reveal.pick}")
        self._take_nonce(state, reveal)

    def _take_nonce(self, state: Pick, reveal: PickReveal) -> None:
        try:
            digest = nonce_digest(self._pick_context(), reveal.pick, state.n, state.parties,
                                  reveal.author, reveal.nonce)
        except ValueError:
            digest = None
        if digest != state.commitments[reveal.author].digest:
            raise CheatDetected(reveal.author, f"seat {reveal.author}: nonce for pick "
                                               f"{reveal.pick} does not match its commitment")
        state.nonces[reveal.author] = reveal.nonce

    def pick_nonce(self, pick: int, seat: int) -> bytes | None:
        """``seat``'s nonce of pick ``pick`` as this seat has it: revealed, or rebuilt with the
        seat's seed (R1); None if neither."""
        state = self._picks.get(pick)
        return state.nonces.get(seat) if state else None

    def pick_result(self, pick: int) -> int:
        """The picked index, once every party's nonce is in."""
        state = self._committed_pick(pick)
        missing = [s for s in state.parties if s not in state.nonces]
        if missing:
            raise ValueError(f"pick {pick}: no nonce yet from seats {missing}")
        return pick_index(self._pick_context(), pick, state.n,
                          [state.nonces[s] for s in state.parties])
