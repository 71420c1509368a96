"""``shanghai bot`` whose seat the table gave to someone else mid-game (voted gone while alive,
a void round, a stand-in from the next deal) follows the game to its end and says the totals:
its own replica stopped where the seat left it, with no result, and the command died at the
last line with an AttributeError (exit 1; acceptance lost_seat_game, sharing on,
/work/notes/s18/own-late2, where R1's handed boxes were refused and a live seat was voted
gone)."""

from __future__ import annotations

from types import SimpleNamespace

from shanghai_net.cli import main
from shanghai_net.net import peer
from shanghai_net.net.peer_link import PeerResult


def test_a_bot_whose_seat_was_taken_says_the_game_s_totals_and_exits_0(monkeypatch, capsys):
    table = SimpleNamespace(game=SimpleNamespace(result=None),
                            public=SimpleNamespace(result=SimpleNamespace(totals=(220, 290, 350))))

    async def run_peer(*args, **options):
        return PeerResult(0, table, unseated="the table voted seat 0 gone")

    monkeypatch.setattr(peer, "run_peer", run_peer)
    assert main(["bot", "127.0.0.1:7777", "--name", "bot1"]) == 0
    said = capsys.readouterr().out
    assert "seat 0: game over, totals [220, 290, 350]" in said
    assert "the table voted seat 0 gone" in said
