"""The next game at the same table: who asked for a rematch, and what the next game keeps.

Sans IO: `RematchVotes` takes the seats still at the table once a game is over and each seat's
`rematch`, and says when the table has agreed (every seat still there asked, a person among
them) or has nobody left to ask; `Previous` is what the next table keeps of the game before it
(each seat's key, in the same order, and the final totals the lobby shows); `KeptSeats`, the
next table's lobby: which seats wait for their player, until when, and which the host's bots
fill.

A vote is a wish, not consent: nothing of the next game rests on it.  Each seat agrees to the
next game as to any game, with a fresh hello (whose nonce its game id commits to) and its own
signature on every message of it; so a host that forges a vote only opens a lobby nobody else
comes to, and one that drops a vote only closes the table, as a host may always do.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["KeptSeats", "Previous", "RematchVotes"]


@dataclass(frozen=True)
class Previous:
    """What a rematch's table keeps of the game before it: ``keys``, the signing key that asked
    for the rematch at each seat (None: a seat that left, open to anyone in the lobby);
    ``totals``, that game's final totals by seat; ``game``, this game's number at the table."""

    keys: tuple[bytes | None, ...]
    totals: tuple[int, ...]
    game: int


class RematchVotes:
    """Once a game is over: ``seated`` maps each seat still at the table to its key and whether
    a person plays it (a bot agrees at once, but a table of bots does not play on by itself)."""

    def __init__(self, seated: dict[int, tuple[bytes, bool]]) -> None:
        self.seated = dict(seated)
        self.votes: set[int] = set()

    def vote(self, seat: int | None) -> None:
        """``seat`` asks for a rematch; a ValueError says why it may not."""
        if seat is None:
            raise ValueError("a spectator has no seat to play again: watch the next game instead")
        if seat not in self.seated:
            raise ValueError(f"seat {seat} has left the table")
        self.votes.add(seat)

    def leave(self, seat: int | None) -> None:
        """``seat``'s connection ended: it is not at the table for the next game."""
        self.seated.pop(seat, None)
        self.votes.discard(seat)

    @property
    def agreed(self) -> bool:
        """Every seat still at the table asked, a person among them."""
        return bool(self.seated) and self.votes == set(self.seated) and any(
            person for _key, person in self.seated.values())

    @property
    def hopeless(self) -> bool:
        """No person is left at the table to ask: it closes."""
        return not any(person for _key, person in self.seated.values())

    def previous(self, players: int, totals: tuple[int, ...], game: int) -> Previous:
        """The next table's seats: each voter's key at its seat."""
        keys = tuple(self.seated[s][0] if s in self.votes else None for s in range(players))
        return Previous(keys=keys, totals=totals, game=game + 1)


class KeptSeats:
    """A rematch's lobby: which seats are kept for whom, and what the host does with the others.

    ``keys``: the key each seat is kept for (`Previous.keys`; None: open).  A person (or any
    key) who comes takes an open seat first, as at any lobby; once every kept seat is held
    again, the host fills the seats still open with bots of its own (`to_fill`).  A kept seat
    whose player is not back by the host's deadline (`expire`) is open from then on, and so is
    one whose player leaves after it (`left`): the lobby never waits for a seat twice.  Once the
    deadline is over, a lobby where no person sits closes (`abandoned`): bots alone do not play
    on, as at the end of a game (`RematchVotes.hopeless`)."""

    def __init__(self, keys: tuple[bytes | None, ...]) -> None:
        self.keys = list(keys)
        self.expired = False

    def kept(self, seat: int) -> bytes | None:
        """The key ``seat`` is kept for (None: open to anyone)."""
        return self.keys[seat] if seat < len(self.keys) else None

    def expire(self, held: set[int]) -> list[int]:
        """The deadline is over: every kept seat not ``held`` now is open; those seats."""
        self.expired = True
        released = [s for s, key in enumerate(self.keys) if key is not None and s not in held]
        for seat in released:
            self.keys[seat] = None
        return released

    def left(self, seat: int) -> bool:
        """``seat``'s connection left the lobby; whether the seat is open now (after the
        deadline: it is not kept again)."""
        if not self.expired or self.kept(seat) is None:
            return False
        self.keys[seat] = None
        return True

    def to_fill(self, held: set[int], coming: int) -> int:
        """How many more bots the host seats, ``held`` the seats taken and ``coming`` its bots
        on their way: none while a kept seat is empty, else one for each open seat left."""
        if any(key is not None and s not in held for s, key in enumerate(self.keys)):
            return 0
        return max(0, len(self.keys) - len(held) - coming)

    def abandoned(self, people: int) -> bool:
        """The lobby closes: the deadline is over and no person (role ``player``) sits in it."""
        return self.expired and people == 0
