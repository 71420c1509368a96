"""``shanghai host --sharing`` (docs/dealing.md, "The price"): the setting reaches the lobby,
resolved over the seats the host's process does not run, and the host's own bots are shown as
its (``host_run``); the console's lobby and rules card say what the setting promises."""

from __future__ import annotations

import subprocess
import sys

from shanghai_net.console.sheets import rules_card
from shanghai_net.console.viewmodel import lobby_model
from shanghai_net.rules import preset
from shanghai_net.session import Lobby, LobbySeat
from shanghai_net.table.sharing_setting import shown_sharing

from test_cli_host import hosting, spectator_sees


def lobby_seen(port: int, bots: int):
    """The lobby_state a spectator sees once the host's ``bots`` have sat down."""
    return spectator_sees(port, lambda peer: peer.lobby if peer.lobby is not None and
                          len(peer.lobby.seats) >= bots else None)


def test_the_host_s_setting_and_its_bots_reach_the_lobby(tmp_path):
    """5 seats, one of them the host's bot: 4 holders, so the default is t = 3, and off is off;
    a threshold 4 holders cannot bear (2) is off too."""
    for setting, shown in (("default", 3), ("off", None), ("2", None)):
        host, port = hosting(tmp_path, "--players", "5", "--bots", "1", "--sharing", setting)
        try:
            lobby = lobby_seen(port, 1)
        finally:
            host.kill()
            host.communicate()
        assert lobby.share_threshold == shown, setting
        assert [(s.name, s.host_run) for s in lobby.seats] == [("bot1", True)]


def test_a_sharing_setting_that_is_none_is_one_line():
    done = subprocess.run([sys.executable, "-m", "shanghai_net.cli", "host", "--sharing", "9"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr == ("shanghai host: argument --sharing: 9 is no threshold: 2 to 7 (or "
                           "default, or off) (see shanghai host --help)\n")


def console_lobby(sharing: str) -> Lobby:
    seats = (LobbySeat(0, "ann", "a1b2", True, True, False),
             LobbySeat(1, "bot1", "0f0f", True, True, True, host_run=True),
             LobbySeat(2, "bea", "c3d4", False, True, False))
    return Lobby(preset="davis", players=4, house_rules=(), seats=seats, host_fingerprint="ab",
                 join_code="", you=0, sharing=sharing)


def test_the_console_lobby_shows_the_host_s_bots_and_the_promise():
    on = shown_sharing(2, 3, 1).said
    model = lobby_model(console_lobby(on))
    assert model.seats[1].startswith("1  bot1 (host's bot)")
    assert model.sharing == on == (
        "Sharing on: 2 of 3 holders (the host's bots and stand-ins hold no share). Any 2 of "
        "the holders together could see every card. A lost seat's hand goes to its replacement "
        "and the round goes on if 2 of the holders left publish their shares; a seat silent at "
        "its seeds is audited from its rebuilt seeds if 2 of the other holders show theirs "
        "(here: all of them).")
    off = shown_sharing(None, 2, 2).said
    assert off == ("Sharing off. A lost seat voids its round. No seats but all the others "
                   "together can see a hand. (Off: the host runs 2 of 4 seats.)")


def test_the_rules_card_ends_with_the_promise():
    off = shown_sharing(None, 4, 0).said
    card = rules_card(preset("davis"), 4, sharing=off)
    assert card[-1] == off
    assert rules_card(preset("davis"), 4)[-1] != off  # a table that says nothing of sharing


def test_the_lan_listing_says_the_table_s_sharing():
    """``shanghai tables`` lists each table's setting as its lobby resolves it now."""
    from shanghai_net.net.discovery import Listing
    from shanghai_net.net.host import Host, HostConfig
    from shanghai_net.net.tables import Table

    record = Table("den", Host(HostConfig(players=4, sharing="default"))).record()
    assert record["sharing"] == "3 of 4"
    assert Table("den", Host(HostConfig(players=4))).record()["sharing"] == "off"
    listing = Listing(name="den", preset="davis", seats="0/4", state="lobby", fingerprint="ab",
                      address="192.168.1.20", port=7777, version=10, sharing=record["sharing"])
    assert listing.line().endswith("host key ab  sharing 3 of 4")
