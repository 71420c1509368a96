"""What each seat owes the deal, read from the sequenced stream alone (docs/protocol.md 11.7).

Every party derives it from its `StreamTable`: a seat to know whom it waits for, the host to
tell a client that asked (the ``owed`` notice), so that a client without a replica of its own
knows what to send.  One `OwedStep` per deal message owed (a box of key shares, a card's
reveal), in the order of protocol.md 11.5: a seat's first is what `StreamTable.owed` shows.
"""

from __future__ import annotations

from itertools import chain
from typing import Iterator

from ..wire.messages import OwedStep

__all__ = ["Owing"]


class Owing:
    """The part of `StreamTable` that says what is owed (it reads the table's deal counts)."""

    def owed_steps(self) -> list[OwedStep]:
        """Every deal message a seat owes now: seeds while a round is audited; else
        commitments and passes of each shuffle, pick commitments and nonces, key shares (one
        entry per generation, owing seat and recipient, naming the positions) and the keys of
        cards turned up."""
        return list(self._owing())

    def owed(self) -> dict[int, str]:
        """What each seat owes the deal now, as the sequenced stream tells (seat -> what, the
        first thing it owes): a table that waits says for whom and why.  Every seat reads it
        after every message, so it stops as soon as each seat has its first entry."""
        first: dict[int, str] = {}
        for step in self._owing():
            first.setdefault(step.seat, step.why)
            if len(first) == self.players:
                break
        return first

    def waiting_for(self) -> set[int]:
        """The seats the table waits for now: those that owe the deal a step, and, while the
        next deal waits for a vacant seat, those whose approval a replacement of it waits for
        (`Roster.approvals_due`): a seat counts how long each has said nothing."""
        return set(self.owed()) | self.approvals_due()

    def stalled_by(self) -> set[int]:
        """The seats the table cannot go on without now: `waiting_for`, and the seats whose
        move the settled game waits for.  The host may time out any of them as silent
        (protocol.md 11.5); the reference host times out a seat to move only while its
        connection is down, for a person thinking about a move owes the table nothing."""
        return self.waiting_for() | self.moving()

    def moving(self) -> set[int]:
        """The seats whose move the settled game waits for (none while the deal is not)."""
        return set(self.public.to_move()) if self.settled and not self.finished else set()

    def _owing(self) -> Iterator[OwedStep]:
        """Every step owed, but none of a seat the table voted gone (protocol.md 11.8): its
        key plays no more, and what its voided round's deal waited for is due from no one (a
        seat that counted the old holder's silence on into the newcomer's would vote the
        newcomer gone the moment it took the seat)."""
        vacant = self.vacant
        return (step for step in self._deal_owing() if step.seat not in vacant)

    def _deal_owing(self) -> Iterator[OwedStep]:
        if self.finished or self.fault is not None:
            return iter(())
        if self.waiting_audit:
            return self._owed_seeds()
        if self.accusation is not None:
            return iter(())
        return chain(self._owed_share_reveals(), self._owed_shuffles(), self._owed_picks(),
                     self._owed_shares(), self._owed_handed(), self._owed_reveals())

    def _owed_share_reveals(self) -> Iterator[OwedStep]:
        """Sharing on, R1: each holder's ``share_reveal`` of a lost seat (``to``) whose rebuild
        waits for it, with the generations it owes; none with sharing off."""
        for lost, rebuild in sorted(self.rebuilds.items()):
            yield from (OwedStep(holder, "share_reveal", self.round,
                                 f"its shares of seat {lost}'s seeds", to=lost,
                                 generations=rebuild.owed[holder])
                        for holder in rebuild.owing())

    def _owed_seeds(self) -> Iterator[OwedStep]:
        """One ``seeds`` body a seat, with its seed of every generation the audit opens (none,
        for a round stopped before any shuffle had every commitment)."""
        generations = tuple(self._audit_generations or ())
        return (OwedStep(seat, "seeds", self.round, "its seeds", generations=generations)
                for seat in range(self.players)
                if seat not in self.seeds_from and seat not in self.missing_seeds)

    def _owed_shuffles(self) -> Iterator[OwedStep]:
        for generation in sorted(self.generations):
            committed = self._commits.get(generation, set())
            if len(committed) < self.players:
                yield from (OwedStep(seat, "commit", self.round,
                                     f"its commitment to shuffle {generation}",
                                     generation=generation)
                            for seat in range(self.players) if seat not in committed)
            elif not self.shuffled(generation):
                turn = self._passes.get(generation, 0)
                yield OwedStep(turn % self.players, "pass", self.round,
                               f"its pass of shuffle {generation}", generation=generation,
                               phase=1 + turn // self.players)

    def _owed_picks(self) -> Iterator[OwedStep]:
        for pick in self._picks:
            if pick.result is not None:
                continue
            for seat in pick.parties:
                if seat not in pick.commitments:
                    yield OwedStep(seat, "pick_commit", self.round,
                                   f"its commitment to pick {pick.number}", pick=pick.number,
                                   n=pick.request.n, parties=pick.parties)
                elif pick.revealed and seat not in pick.nonces:
                    yield OwedStep(seat, "pick_reveal", self.round,
                                   f"its nonce of pick {pick.number}", pick=pick.number)

    def _owed_shares(self) -> Iterator[OwedStep]:
        """One entry per (generation, owing seat, recipient), in the order of their first card:
        exactly the positions `outstanding` waits for from that seat."""
        boxes: dict[tuple[int, int, int], list[int]] = {}
        for (generation, position), outstanding in sorted(self.outstanding.items()):
            for seat in sorted(outstanding.owing):
                boxes.setdefault((generation, seat, outstanding.to), []).append(position)
        return (OwedStep(seat, "shares", self.round, f"key shares for seat {to}",
                         generation=generation, to=to, positions=tuple(positions))
                for (generation, seat, to), positions in boxes.items())

    def _owed_reveals(self) -> Iterator[OwedStep]:
        """A card turned up: its holder owes every key of it, or, a card no hand holds, every
        seat its own but a seat lost and rebuilt (its key is public, R1: nobody sends it, its
        stand-in neither); a card of the hand show held by a seat lost this round and vacant,
        every seat its own but the seats lost this round whose seeds of its generation are
        rebuilt or being rebuilt (their keys are public: docs/dealing.md, "The round's end")."""
        for token in self._publics:
            generation, position = token
            holder = self.holder_of(token)
            shown = self._own_keys.get(token, set())
            if token in self._shown_without_holder:
                known = shown | self.rebuilding(generation)  # the seats' keys sent or public
                yield from (OwedStep(seat, "reveal", self.round,
                                     f"its key of seat {holder}'s card at position {position}",
                                     generation=generation, position=position, keys="own")
                            for seat in range(self.players) if seat not in known)
                continue
            if holder is not None:
                if holder not in shown:
                    yield OwedStep(holder, "reveal", self.round,
                                   f"every key of its card at position {position}",
                                   generation=generation, position=position, keys="all")
                continue
            known = shown | self.rebuilt_lost(generation)
            yield from (OwedStep(seat, "reveal", self.round, "its key of a card turned up",
                                 generation=generation, position=position, keys="own")
                        for seat in range(self.players) if seat not in known)
