"""A seat is given back once a game (protocol.md 11.8), over real sockets: seat 2's program is
killed in round 2, the host's stand-in plays round 3, the program starts again and takes its
seat back for round 4, and is killed again.  When it starts a third time the host signs no
second return: the player is refused (it may watch), the host's stand-in plays the seat to the
end, the seat pays for its two leaves, and the game finishes within rounds + 3 x seats deals."""

from __future__ import annotations

import trio

from shanghai_net.engine.events import RoundVoided
from shanghai_net.net.peer import PeerError
from shanghai_net.net.transcript import read_transcript
from shanghai_net.table.verify import verify

from seating import kept_in, until
from test_net_rejoin import identities, in_round, make_peer, table_of_three
from test_net_takeback import HELD, RULES, killer, options, release, stand_in_seated


async def test_a_player_who_leaves_again_after_taking_its_seat_back_is_not_given_it_again(
        tmp_path):
    record, key = tmp_path / "given-back.transcript", identities(3)[2]
    killed, gate, ends = trio.CancelScope(), trio.Event(), {}
    with trio.fail_after(240):
        async with table_of_three(tmp_path, b"gb1", RULES, options(gate), {2: killed},
                                  record=record) as (host, port, peers, results, nursery):
            public = host.public
            await stand_in_seated(host, peers, killer(killed))
            back, again = make_peer(port, key, 2, tmp_path), trio.CancelScope()

            async def run_back():
                with again:
                    await kept_in(ends, "back", back)()

            nursery.start_soon(run_back)
            await until(lambda: back.seat == 2 and back.start is not None,
                        "the first holder let back in to follow the game")
            await release(host, peers, gate, 2, key.sign_public)
            await until(lambda: in_round(host, HELD + 1) and
                        public.holders[2].sign_key == key.sign_public,
                        "the first holder playing its seat again in round 4", seconds=90)
            again.cancel()  # killed again: seat 0 votes by itself, seat 1 by hand
            await until(lambda: public.void_votes.get(HELD + 1) == {0},
                        "seat 0's vote that seat 2 left round 4", seconds=60)
            assert peers[1].vote_void(2)
            await until(lambda: [s for _, s in public.left] == [2, 2], "seat 2 voted gone again")
            third = make_peer(port, key, 2, tmp_path)
            nursery.start_soon(kept_in(ends, "third", third))
            await until(lambda: "third" in ends or third.status == "over",
                        "the first holder's third try answered", seconds=60)
            await until(lambda: public.finished, "the game over", seconds=120)
    assert isinstance(ends["third"], PeerError) and "refused" in str(ends["third"]), ends
    assert public.fault is None and not public.vacant
    holder = public.holders[2]
    assert holder.kind == "bot" and holder.sign_key != key.sign_public, holder
    assert holder.before.sign_key == key.sign_public, "the stand-in followed the first holder"
    paid = [e.leaver for e in public.public.log if isinstance(e, RoundVoided) and e.penalty]
    assert paid == [2, 2], paid
    result = public.public.result
    deals = len(result.rounds) + len(public.left)
    assert deals == public.rules.rounds + 2 <= public.rules.rounds + 3 * 3
    for seat in (0, 1):
        table = results[seat].table
        assert table.fault is None and table.finished and table.game.result == result
    report = verify(read_transcript(record))
    assert report.ok, report.summary()
    assert report.left == tuple(public.left) and report.totals == result.totals
