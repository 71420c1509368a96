"""What a seat checks of the ``start_game`` its host sends (protocol.md 6.2), sans IO: each
check raises ``ValueError`` saying what is wrong, and the peer refuses the game."""

from __future__ import annotations

from ..identity import fingerprint
from ..rules.ruleset import RuleSet, preset
from ..wire.messages import LobbyState, StartGame, game_id_of
from .sharing_setting import MIN_HOLDERS, allowed_thresholds

__all__ = ["MIN_CLAIM_TIMEOUT", "rules_of", "check_keys", "check_fresh", "check_claim_timeout",
           "check_sharing"]

MIN_CLAIM_TIMEOUT = 0.1
"""Seconds: the shortest claim window a seat plays with (protocol.md 11.4).  A table of
people wants several seconds; below this not even a bot on a loaded machine answers."""


def rules_of(start: StartGame) -> RuleSet:
    """The rules a StartGame fixes: its preset with its house-rule overrides."""
    rules = preset(start.preset)
    return rules.override(**start.rules) if start.rules else rules


def check_keys(start: StartGame, seat: int | None, sign_key: bytes, box_keys: set[bytes],
               shown: dict[int, str]) -> None:
    """The keys the game will be checked against are the ones the lobby showed (``shown``:
    seat -> fingerprint), and ``seat``'s are ours (``sign_key``, and one of the ``box_keys`` we
    hold the secrets of): a host that put its own keys in would read sealed cards or sign for
    a seat."""
    by_seat = {p.seat: p for p in start.seats}
    mine = by_seat.get(seat) if seat is not None else None
    if seat is not None and (mine is None or mine.sign_key != sign_key
                             or mine.box_key not in box_keys):
        raise ValueError(f"start_game does not give seat {seat} our keys")
    for other, player in by_seat.items():
        if other in shown and fingerprint(player.sign_key) != shown[other]:
            raise ValueError(f"start_game gives seat {other} a key the lobby did not show")


def check_fresh(start: StartGame, seat: int | None, nonce: bytes | None) -> None:
    """No one chose the game id alone: it commits to the host's nonce and every seat's; a game
    joined in the lobby (``seat`` given, with ``nonce`` of its latest hello) commits to that
    nonce, so it is a new game, never one of ours started again.  (Rejoining, the old hello's
    nonce is forgotten, so the caller passes no seat: the kept secret's start digest vouches
    for the game instead.)"""
    if len(start.nonces) != len(start.seats) or \
            game_id_of(start.host_nonce, start.nonces) != start.game_id:
        raise ValueError("its game id does not commit to the seats' nonces")
    if seat is not None and start.nonces[seat] != nonce:
        raise ValueError(f"it does not give seat {seat} the nonce of our hello")


def check_claim_timeout(start: StartGame, shown: float | None) -> None:
    """One claim timeout for the whole table: the one the host's ``welcome`` showed (``shown``,
    what the console counts down) is the one ``start_game`` fixes (what every seat's watch on
    the host's timeouts judges by), and it is no shorter than `MIN_CLAIM_TIMEOUT`."""
    agreed = start.claim_timeout
    if agreed < MIN_CLAIM_TIMEOUT:
        raise ValueError(f"its claim timeout of {agreed:g} s is under the protocol's minimum of "
                         f"{MIN_CLAIM_TIMEOUT:g} s")
    if shown is not None and shown != agreed:
        raise ValueError(f"its claim timeout of {agreed:g} s is not the {shown:g} s its welcome "
                         "showed")


def check_sharing(start: StartGame, seat: int | None, started_by_host: bool,
                  lobby: LobbyState | None) -> None:
    """The dropout-tolerant deal's setting (docs/dealing.md, "Holders" and "The price"):
    ``share_threshold`` is nil or one the holders (the seats not ``host_run``) can bear, a
    majority of them and fewer than all; our own ``seat`` is ``host_run`` only if the host
    started us (a host that marked honest seats so would lower the holders, and with them the
    ``t`` a coalition needs); and the flags and the threshold are those of ``lobby``, the last
    ``lobby_state`` we saw before the game (None: we did not see the game start)."""
    t, holders = start.share_threshold, len(start.seats) - len(start.host_run)
    if t is not None and holders < MIN_HOLDERS:
        raise ValueError(f"its share_threshold {t} at a table of {holders} share holder"
                         f"{'s' * (holders != 1)} (sharing needs {MIN_HOLDERS})")
    allowed = allowed_thresholds(holders)
    if t is not None and t not in allowed:
        raise ValueError(f"its share_threshold {t} is outside {allowed[0]}..{allowed[-1]}, "
                         f"what {holders} share holders allow")
    if seat is not None and not started_by_host and seat in start.host_run:
        raise ValueError(f"it marks our seat {seat} host_run, but the host did not start us")
    if lobby is None:
        return
    shown = {s.seat: s.host_run for s in lobby.seats}
    differ = [p.seat for p in start.seats if p.host_run != shown.get(p.seat, p.host_run)]
    if differ:
        raise ValueError("its host_run flags of seat" + "s" * (len(differ) > 1) + " "
                         + ", ".join(map(str, differ)) + " are not those the lobby showed")
    if lobby.share_threshold != t:
        raise ValueError(f"its share_threshold {_said(t)} is not the lobby's "
                         f"{_said(lobby.share_threshold)}")


def _said(threshold: int | None) -> str:
    return "nil (sharing off)" if threshold is None else str(threshold)
