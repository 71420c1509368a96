"""The next game at the same table: who asked for a rematch, and what the next game keeps.

Sans IO: `RematchVotes` takes the seats still at the table once a game is over and each seat's
`rematch`, and says when the table has agreed (every seat still there asked, a person among
them) or has nobody left to ask; `Previous` is what the next table keeps of the game before it
(each seat's key, in the same order, and the final totals the lobby shows).

A vote is a wish, not consent: nothing of the next game rests on it.  Each seat agrees to the
next game as to any game, with a fresh hello (whose nonce its game id commits to) and its own
signature on every message of it; so a host that forges a vote only opens a lobby nobody else
comes to, and one that drops a vote only closes the table, as a host may always do.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Previous", "RematchVotes"]


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
