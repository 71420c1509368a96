"""A seat that rejoins after a crash while another seat has quit votes only once it has replayed
the stream (protocol.md 11.5), over real sockets with our own `Host` and `Peer` classes: the
stall of the chaos evening's game 6-20 (benchmarks/soak.py, seed 6), made deterministic.  Seat 2
says bye and seat 0's program is killed at the same moment; seat 0 starts again from its secret
and replays the game from seq 0, its lobby already saying that seat 2 left.  Its bot voted at
once, into a round its replay was still in: the vote sat before the deal steps the replay found
in the stream, so none was recognised as sent, all went out at the replay's end, every one
refused (``out_of_turn``), and the host closed seat 0 for abuse: it could not come back, and
with seat 2 gone too the one seat left could carry no vote.  Now seat 0 votes seat 2 gone once
it is back in the running round: the game ends, seat 2 charged once, seat 0 nothing."""

from __future__ import annotations

import trio

from shanghai_net.engine.events import RoundVoided
from shanghai_net.net.config import BOT_VOID_AFTER
from shanghai_net.net.peer import Peer
from shanghai_net.net.transcript import read_transcript
from shanghai_net.table.verify import verify
from shanghai_net.wire.messages import VoidRound

from seating import until
from test_net_rejoin import assert_finished, identities, in_round, make_peer, table_of_three

TWO_ROUNDS = {"contracts": [[2, 0]] * 2}
REBORN, QUIT = 0, 2


class ChecksItsVoteWhileReplaying(Peer):
    """A peer that asks whether its vote is due after every message it replays, as its loop
    does whenever its inbox runs dry (on a loaded machine, now and then during a long
    replay): the moment the soak hit, made certain."""

    async def _on_game(self, msg, own=False):
        await super()._on_game(msg, own)
        if self.replaying and self._vote_due() <= trio.current_time():
            self.vote_void()


async def test_a_seat_back_from_a_crash_votes_only_once_it_has_replayed_the_game(tmp_path):
    record = tmp_path / "replay-vote.bin"
    crashed, quitter = trio.CancelScope(), trio.CancelScope()
    options = {seat: {"void_after": BOT_VOID_AFTER} for seat in range(3)}
    with trio.fail_after(150):
        async with table_of_three(tmp_path, b"replay vote", TWO_ROUNDS, options,
                                  {REBORN: crashed, QUIT: quitter}, record=record) as (
                host, port, peers, results, nursery):
            public = host.public
            while not in_round(host, 1) or host.sequenced < 60:
                await trio.sleep(0.01)
            await peers[QUIT].leave()
            quitter.cancel()
            crashed.cancel()  # at the same moment: seat 0's program dies
            await until(lambda: QUIT in peers[1].left and REBORN in peers[1].absent,
                        "seat 1 saw seat 2 quit and seat 0 missing")
            reborn = peers[REBORN] = make_peer(port, identities(3)[REBORN], REBORN, tmp_path,
                                               kind=ChecksItsVoteWhileReplaying,
                                               void_after=BOT_VOID_AFTER)
            results[REBORN] = await reborn.run()
            await until(lambda: public.finished, "the game's end", seconds=60)
            results.pop(QUIT, None)
    assert_finished(host, results)
    assert not any(e.code != "stale" for e in results[REBORN].errors), results[REBORN].errors
    messages = read_transcript(record)[1:]
    votes = [(m.author, m.body.round, m.body.seat) for m in messages
             if isinstance(m.body, VoidRound)]
    assert (REBORN, 1, QUIT) in votes, votes
    paid = [e.leaver for e in public.public.log if isinstance(e, RoundVoided) and e.penalty]
    assert paid == [QUIT], "the seat that quit charged once, the seat back from its crash nothing"
    report = verify(read_transcript(record))
    assert report.ok and report.left == ((1, QUIT),), report.summary()
