"""Choosing a table found on the LAN (``shanghai join`` with no address): the tables, each with
its preset, seats, state, address and whole host key; the arrow keys move among those that can
be joined (not a full one, nor one whose host speaks another protocol version: the list says
which), enter joins, esc, q or ctrl-c cancel.

`TablePicker` is the choice (pure state: the cursor, what was chosen); `pick_table` draws it and
turns keys into its actions.
"""

from __future__ import annotations

from collections import Counter
from typing import Sequence

__all__ = ["TablePicker", "pick_table"]


class TablePicker:
    """Which of ``listings`` (`discovery.Listing`) is chosen: the cursor moves among those that
    can be joined (`joinable`), ``done`` once one is chosen (``chosen``) or the choice is
    cancelled (``chosen`` None)."""

    def __init__(self, listings: Sequence) -> None:
        self.listings = list(listings)
        self.cursor = next((i for i, t in enumerate(self.listings) if joinable(t)), None)
        self.chosen = None
        self.done = False
        names = Counter(t.name for t in self.listings)
        self.labels = [t.name if names[t.name] == 1 else f"{t.name} @ {t.address}:{t.port}"
                       for t in self.listings]
        """Each table's name, with its host's address where two hosts use one name."""

    def move(self, step: int) -> None:
        """To the next table that can be joined, ``step`` (+1 or -1) along the list."""
        if self.cursor is None:
            return
        i = self.cursor + step
        while 0 <= i < len(self.listings):
            if joinable(self.listings[i]):
                self.cursor = i
                return
            i += step

    def choose(self) -> None:
        if self.cursor is not None:
            self.chosen, self.done = self.listings[self.cursor], True

    def cancel(self) -> None:
        self.chosen, self.done = None, True


def joinable(listing) -> bool:
    """A table a person may sit at: its host speaks our protocol version, and it is in its
    lobby with a free seat, or playing (its own players rejoin it)."""
    return not full(listing) and listing.other_version() is None


def full(listing) -> bool:
    """A table in its lobby with every seat taken."""
    taken, _, total = listing.seats.partition("/")
    return listing.state == "lobby" and taken.isdigit() and total.isdigit() and \
        int(taken) >= int(total)


def state_text(listing) -> str:
    other = listing.other_version()
    if other is not None:
        return f"{other}: cannot join"
    if full(listing):
        return "full"
    return "playing: its players rejoin" if listing.state == "playing" else listing.state


def picker_text(picker: TablePicker) -> list[tuple[str, str]]:
    """The list as formatted text: two lines a table, the host key whole on the second."""
    lines: list[tuple[str, str]] = [
        ("bold", " Tables on the LAN"), ("", "  ↑↓ choose  enter join  esc/q cancel\n"),
        ("", " (the lobby then shows the host key listed here: compare it with the host's)\n")]
    if picker.cursor is None and all(map(full, picker.listings)):
        lines.append(("", " every table is full: open one with shanghai join HOST --table NAME "
                          "--open\n"))
    elif picker.cursor is None:
        lines.append(("", " no table here can be joined: full, or its host speaks another "
                          "protocol version (both machines need the same version of "
                          "shanghai-net)\n"))
    width = max(map(len, picker.labels), default=0)
    for i, (listing, label) in enumerate(zip(picker.listings, picker.labels)):
        here = i == picker.cursor
        style = "reverse" if here else ("" if joinable(listing) else "fg:ansibrightblack")
        lines.append((style, f" {'▶' if here else ' '} {label:<{width}}  {listing.preset:<12} "
                             f"{listing.seats:>5}  {state_text(listing)}\n"))
        lines.append(("fg:ansibrightblack" if not joinable(listing) else "",
                      f"     {listing.address}:{listing.port}  host key "
                      f"{listing.fingerprint}\n"))
    return lines


def pick_table(listings: Sequence, *, input=None, output=None):
    """The `discovery.Listing` chosen, or None if the player cancelled."""
    from prompt_toolkit.application import Application
    from prompt_toolkit.key_binding import KeyBindings
    from prompt_toolkit.layout import FormattedTextControl, Layout, Window

    picker = TablePicker(listings)
    keys = KeyBindings()

    def act(action):
        def handler(event) -> None:
            action()
            if picker.done:
                event.app.exit(result=picker.chosen)
        return handler

    for key, action in (("up", lambda: picker.move(-1)), ("k", lambda: picker.move(-1)),
                        ("down", lambda: picker.move(1)), ("j", lambda: picker.move(1)),
                        ("enter", picker.choose), ("escape", picker.cancel), ("q", picker.cancel),
                        ("c-c", picker.cancel)):
        keys.add(key)(act(action))
    app = Application(layout=Layout(Window(FormattedTextControl(lambda: picker_text(picker)),
                                           wrap_lines=True)),
                      key_bindings=keys, full_screen=False, input=input, output=output)
    app.ttimeoutlen = 0.05  # a lone Esc acts at once
    return app.run()
