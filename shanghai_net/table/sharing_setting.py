"""The table's sharing setting, resolved over its share holders (docs/dealing.md, "The price,
in one sentence, then in a table"), sans IO.

The dropout-tolerant deal shares each seat's seed among the **holders** (the seats
not run by the host: `Roster.share_holders`) with a threshold ``t``: any ``t`` of them could see
every card, and ``t`` of them rebuild a lost seat.  A table is configured "off", "default", or
with a ``t``; `resolve_sharing` turns that into what ``start_game`` would carry, None (off) or
``t``, with why it is off, and the promise the lobby and the rules card print word for word.
The host's lobby resolves its setting (`HostConfig.sharing`) over the seats it shows, and a
client reads what its lobby shows back with `shown_sharing`.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["MIN_HOLDERS", "SharingSetting", "allowed_thresholds", "default_threshold",
           "check_setting", "resolve_sharing", "shown_sharing"]

MIN_HOLDERS = 3
"""Below this no threshold is allowed: with 2 holders a lost one leaves one, who alone would
see every card."""

OFF_PROMISE = ("Sharing off. A lost seat voids its round. No seats but all the others together "
               "can see a hand.")


def allowed_thresholds(holders: int) -> range:
    """The thresholds ``holders`` can bear: a majority of them (so no minority, nor an even
    split, sees every card), and fewer than all (a rebuild cannot wait for the lost seat's
    own share); so none under `MIN_HOLDERS`."""
    return range(holders // 2 + 1, holders)


def default_threshold(holders: int) -> int | None:
    """The default over ``holders``: off up to 3 (a pair of 3 is two thirds of them); the
    largest, ``h-1``, at 4 and 5 (privacy drops by one colluder); ``h-2`` from 6 (a second
    silent or lost holder is survived, and ``h-2`` is still two thirds)."""
    if holders <= MIN_HOLDERS:
        return None
    return holders - 1 if holders <= 5 else holders - 2


@dataclass(frozen=True, slots=True)
class SharingSetting:
    """A setting resolved over a table's holders: ``threshold`` (None: off) and, when off,
    ``why_off`` in the lobby's words."""

    threshold: int | None
    holders: int
    why_off: str | None = None

    @property
    def said(self) -> str:
        """The promise, and why the table is off when that is known: the lobby's line."""
        why = self.why_off
        return self.promise if why is None else \
            f"{self.promise} (Off: {why.removeprefix('sharing off: ')}.)"

    @property
    def promise(self) -> str:
        """What the setting promises, as docs/dealing.md words it for the lobby and the rules
        card."""
        t, h = self.threshold, self.holders
        if t is None:
            return OFF_PROMISE
        silent = h - 1 - t  # of the other holders, those a rebuild does without: at most 2
        others = ("all of them", "all but one", "all but two")[silent]  # with 8 seats at most
        return (f"Sharing on: {t} of {h} holders (the host's bots and stand-ins hold no share). "
                f"Any {t} of the holders together could see every card. A lost seat's hand goes "
                f"to its replacement and the round goes on if {t} of the holders left publish "
                f"their shares; a seat silent at its seeds is audited from its rebuilt seeds if "
                f"{t} of the other holders show theirs (here: {others}).")


def check_setting(setting: object) -> str | int:
    """``setting`` if it is one a table may be configured with ("off", "default", or a
    threshold); raises ValueError saying what it is not."""
    if isinstance(setting, bool) or not (setting in ("off", "default") or
                                         isinstance(setting, int)):
        raise ValueError(f"sharing setting {setting!r:.40}: it is \"off\", \"default\" or a "
                         "threshold (an integer)")
    return setting


def resolve_sharing(setting: str | int, holders: int, host_seats: int = 0) -> SharingSetting:
    """``setting`` ("off", "default", or a threshold) over a table of ``holders`` share holders
    and ``host_seats`` seats the host runs (``host_run``): the threshold ``start_game`` would
    carry, or off and why.  A threshold the holders cannot bear resolves to off (the lobby
    says why); raises ValueError on a setting that is none of these."""
    if check_setting(setting) == "off":
        return SharingSetting(None, holders, "sharing off: the table's setting")
    if holders < MIN_HOLDERS:
        return SharingSetting(None, holders, _too_few(holders, host_seats))
    if setting == "default":
        t = default_threshold(holders)
        if t is None:
            return SharingSetting(None, holders, f"sharing off: the default for {holders} "
                                  "holders (any 2 of them would see every card)")
        return SharingSetting(t, holders)
    allowed = allowed_thresholds(holders)
    if setting not in allowed:
        between = f"{allowed[0]}" if len(allowed) == 1 else f"{allowed[0]} to {allowed[-1]}"
        return SharingSetting(None, holders, f"sharing off: t = {setting} with {holders} holders "
                              f"(allowed: {between})")
    return SharingSetting(setting, holders)


def _too_few(holders: int, host_seats: int) -> str:
    """Why a table of fewer than `MIN_HOLDERS` holders shares nothing, in the lobby's words."""
    seats = holders + host_seats
    why = (f"the host runs {host_seats} of {seats} seats" if seats >= MIN_HOLDERS
           else f"{holders} holders; sharing needs {MIN_HOLDERS}")
    return f"sharing off: {why}"


def shown_sharing(threshold: int | None, holders: int, host_seats: int) -> SharingSetting:
    """The setting a client's lobby shows (``lobby_state``'s ``share_threshold`` and its seats'
    ``host_run``), with why it is off when the client can tell: too few holders (the host's
    own seats, most often).  Another reason (the host's setting) only the host knows."""
    if threshold is not None:
        return SharingSetting(threshold, holders)
    return SharingSetting(None, holders,
                          _too_few(holders, host_seats) if holders < MIN_HOLDERS else None)
