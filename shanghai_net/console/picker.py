"""Choosing a table found on the LAN (``shanghai join`` with no address): a list of the tables,
each with its preset, seats, state and host key, one chosen with the arrow keys and enter."""

from __future__ import annotations

from typing import Sequence

__all__ = ["pick_table"]


def pick_table(listings: Sequence):
    """The `discovery.Listing` chosen, or None if the player cancelled."""
    from prompt_toolkit.shortcuts import radiolist_dialog

    return radiolist_dialog(
        title="Tables on the LAN",
        text="Choose a table (the lobby then shows the host key listed here):",
        values=[(listing, listing.line()) for listing in listings]).run()
