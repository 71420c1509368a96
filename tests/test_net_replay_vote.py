"""A seat that rejoins after a crash while another seat has quit votes only once it has replayed
the stream (protocol.md 11.5), over real sockets with our own `Host` and `Peer` classes: the
stall of the chaos evening's game 6-20 (benchmarks/soak.py, seed 6), made deterministic.  Seat 2
says bye and seat 0's program is killed at the same moment; seat 0 starts again from its secret
and replays the game from seq 0, its lobby already saying that seat 2 left.  Its bot voted at
once, into a round its replay was still in: the vote sat before the deal steps the replay found
in the stream, so none was recognised as sent, all went out at the replay's end, every one
refused (``out_of_turn``), and the host closed seat 0 for abuse: it could not come back, and
with seat 2 gone too the one seat left could carry no vote.  Now seat 0 votes seat 2 gone once
it is back in the running round: the game ends, seat 2 charged once, seat 0 nothing, and
none of seat 0's messages refused but as ``stale`` or overtaken by a message it could not have
seen (`client_races.overtaken`): not a step of the round its own vote voided (issue 38)."""

from __future__ import annotations

import trio

from shanghai_net.engine import Discard
from shanghai_net.engine.events import RoundVoided
from shanghai_net.net.config import BOT_VOID_AFTER
from shanghai_net.net.peer import Peer
from shanghai_net.net.transcript import read_transcript
from shanghai_net.table.verify import verify
from shanghai_net.wire.messages import Placed, VoidRound

from client_races import overtaken
from seating import until
from test_net_rejoin import assert_finished, identities, in_round, make_peer, table_of_three
from test_net_table import Table, play_to_own_turn

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

    async def _on_message(self, link, msg):
        """The host's word that our vote is sequenced waits until we have signed what the
        messages before it made due (a reveal, say): on a loaded machine it came in a later
        read than the echo of our move before it, the order CI met (issue 38), made certain."""
        mine = self.outbox.unplaced.get(msg.counter) if isinstance(msg, Placed) and \
            self.outbox is not None else None
        if mine is not None and isinstance(mine.body, VoidRound):
            await self._act(link)
        await super()._on_message(link, msg)


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
    start, *messages = read_transcript(record)
    refused = [e for e in results[REBORN].errors  # only a refusal a race explains (issue 38)
               if e.code != "stale" and not overtaken(e, start, messages, REBORN)]
    assert refused == [], results[REBORN].errors
    votes = [(m.author, m.body.round, m.body.seat) for m in messages
             if isinstance(m.body, VoidRound)]
    assert (REBORN, 1, QUIT) in votes, votes
    paid = [e.leaver for e in public.public.log if isinstance(e, RoundVoided) and e.penalty]
    assert paid == [QUIT], "the seat that quit charged once, the seat back from its crash nothing"
    report = verify([start, *messages])
    assert report.ok and report.left == ((1, QUIT),), report.summary()


def test_a_seat_signs_nothing_of_the_round_its_own_vote_voids():
    """In process, the order CI met under load (issue 38): seat 0, back in the running round,
    has seen seat 1's vote that seat 2 left, and votes so too (the vote that carries); before
    its vote comes back, the stream makes a reveal and a move of the round due (its own
    discard, here).  Nothing of that round leaves after the vote: it waits for it, and once the
    vote voids the round the reveal is dropped, not signed.  Before, the reveal
    went out behind the vote and the host refused it (``out_of_turn``: after round 1's deal
    was over), a refusal no race explains: the seat's own vote ended the deal."""
    t = Table(3, seed=3)
    t.run_until(lambda: t.host.public.round_no == 1)
    table = play_to_own_turn(t)
    seat, box = table.seat, t.boxes[table.seat]
    quitter, other = [s for s in range(3) if s != seat][::-1]
    t.boxes[other].push([VoidRound(round=t.host.void_target, seat=quitter)])
    t.deliver(t.boxes[other].poll())
    box.push([VoidRound(round=table.void_target, seat=quitter)])
    vote = box.poll()
    card = table.game.hand(seat)[0]
    box.push(table.submit(Discard(seat, card)), Discard(seat, card))
    assert box.poll() is None, "signed after the seat's own vote, which voids the round"
    t.deliver(vote)
    assert t.host.vacant == {quitter: 1}  # the vote carried: round 1 is void
    assert box.poll() is None and not box.deal and not box.flying
    assert [(body.KIND, body.step) for body in box.dropped] == [("deal", "reveal")]
    # the discard waits for a settled deal, then `passed_since` drops it (its round is over)
