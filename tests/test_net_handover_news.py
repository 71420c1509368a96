"""What the other seats' logs say around a hand-over (issue 41, item 3), over real sockets on
127.0.0.1: carl, a person at the table, hears that ann's seat passes to bea and that bea takes
it, and never that "bea for ann lost connection" and then "is back" (the successor's own join
as the seat read as the seat's connection lost and found); a seat whose connection really
drops is still said to have lost it and to be back.  Every wait is on the sessions' state,
bounded only to catch a hang."""

from __future__ import annotations

import random

import pytest
import trio
import trio.testing

from shanghai_net.engine import DrawStock
from shanghai_net.identity import Identity, fingerprint
from shanghai_net.net.player import BotPlayer
from shanghai_net.net.resume import GameSecrets
from shanghai_net.net.session import NetSession
from shanghai_net.session import Accepted

from test_net_session import until
from test_net_take_over import drawn, join_to_take_over, may_draw, play_it_out, table_with_ann


def carl_at(tmp_path, address) -> NetSession:
    """A second person at the table, who keeps the game's secret (so he can come back)."""
    rnd = random.Random(11)
    return NetSession(address, Identity(rnd.randbytes(32), rnd.randbytes(32)), name="carl",
                      auto_ready=True, store=GameSecrets(tmp_path / "carl"), think=0.0)


def said(session: NetSession) -> list[str]:
    return [entry.text for entry in session.log]


def connected_as_holder(session: NetSession, seat: int, key: bytes) -> bool:
    """``session`` sees ``key`` play ``seat``, and the host shows that key there connected."""
    shown = next((s for s in session.peer.lobby.seats if s.seat == seat), None)
    return session.table.holders[seat].sign_key == key and shown is not None and \
        shown.connected and shown.fingerprint == fingerprint(key)


@pytest.mark.parametrize("to", ["bea", "bot"])
async def test_the_other_seats_hear_a_hand_over_as_no_lost_connection(tmp_path, to):
    """ann hands her seat mid-turn to bea, who joined to take it over, or to a bot her program
    starts; carl hears the seat pass and taken, and no loss.  Then the successor's cable is
    pulled: that loss, and its coming back, carl hears."""
    hosted = table_with_ann(tmp_path)
    hosted.bots = [BotPlayer("basic", random.Random(31))]  # carl, a person, takes the third seat
    ann = hosted.session
    with trio.fail_after(240):
        async with trio.open_nursery() as nursery:
            await nursery.start(hosted.serve)
            await nursery.start(ann.run)
            await until(ann, lambda: ann.lobby is not None and ann.lobby.you is not None)
            carl = carl_at(tmp_path, ann.address)
            await nursery.start(carl.run)
            await until(ann, lambda: ann.view is not None)
            nursery.start_soon(play_it_out, carl)
            if to == "bea":
                bea = join_to_take_over(ann.address, tmp_path / "bea")
                await nursery.start(bea.run)
                await until(ann, lambda: any(o.name == "bea" for o in ann.offers))
                offer = next(o for o in ann.offers if o.name == "bea")
            await until(ann, lambda: may_draw(ann), timeout=120)
            while may_draw(ann):
                assert isinstance(await ann.submit(DrawStock(ann.seat)), Accepted)
                await until(ann, lambda: drawn(ann) or may_draw(ann))
            seat = ann.seat
            if to == "bea":
                assert (await ann.hand_over(offer)).startswith("handing your seat to bea")
                successor, key = bea.peer, bea.identity.sign_public
                nursery.start_soon(play_it_out, bea)
            else:
                assert (await ann.let_bot_finish()).startswith("handing your seat to bot")
                [successor] = ann.successors
                key = successor.identity.sign_public
            await until(carl, lambda: connected_as_holder(carl, seat, key), timeout=120)
            await until(carl, lambda: successor.table is not None and
                        successor.table.seat == seat and successor.outbox is not None)
            handed = len(carl.log)
            await successor._link.stream.aclose()  # the successor's cable is pulled
            await until(carl, lambda: f"{to} for ann is back" in said(carl)[handed:],
                        timeout=120)
            for session in (ann, carl):
                await until(session, lambda: session.over, timeout=120)
            await carl.leave()
            if to == "bea":
                await bea.leave()
    heard = said(carl)
    assert f"seat {seat} passes to {to} for ann" in heard[:handed], "\n".join(heard)
    assert f"{to} for ann takes seat {seat}" in heard[:handed], "\n".join(heard)
    assert not [line for line in heard[:handed] if "lost connection" in line or
                " is back" in line or "V votes" in line], "\n".join(heard)
    after = heard[handed:]
    assert after.index(f"{to} for ann lost connection") < after.index(f"{to} for ann is back")


def test_a_seat_s_absence_across_a_change_of_hands_is_the_new_holder_s_from_then():
    """The peer's rule under the test above, on trio's clock: when its replica sees seat 2
    change hands, an absence the host's last ``lobby_state`` shows under the new holder's key
    stays, counted from then (not from the old holder's: a stand-in at a deal's start was
    voted gone at once, its NEWCOMER_GRACE spent long ago); one the host showed under the old
    holder's key goes, as does one of a seat no lobby showed yet."""
    from types import SimpleNamespace

    from shanghai_net.net.handover import Holding

    old, new = b"\1" * 32, b"\2" * 32

    def seen(shown_key):
        lobby = SimpleNamespace(seats=[SimpleNamespace(seat=2, fingerprint=fingerprint(
            shown_key))]) if shown_key else None
        peer = SimpleNamespace(table=SimpleNamespace(holders=[SimpleNamespace(sign_key=k)
                                                              for k in (b"\0" * 32, old, new)],
                                                     finished=True),
                               _keys_seen=(b"\0" * 32, old, old), lobby=lobby,
                               absent={1: 5.0, 2: 5.0}, left=frozenset({2}))
        Holding._holder_changed(peer)
        return peer

    async def body():
        await trio.sleep(10)  # trio's clock, past the absences' 5.0
        now = trio.current_time()
        kept = seen(new)
        assert kept.absent == {1: 5.0, 2: now} and kept.left == {2}
        for shown_key in (old, None):
            gone = seen(shown_key)
            assert gone.absent == {1: 5.0} and gone.left == frozenset()

    trio.run(body, clock=trio.testing.MockClock(autojump_threshold=0))
