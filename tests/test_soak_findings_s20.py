"""Soak seed 13's findings in the game (session 20, /work/notes/s20/soak-findings.md), each
reproduced with our own classes over real sockets on 127.0.0.1."""

from __future__ import annotations

import pytest
import trio

from shanghai_net.deal import seeded
from shanghai_net.deal.messages import Context, SharedSeedReveal
from shanghai_net.identity import Identity
from shanghai_net.net.host import Host, HostConfig
from shanghai_net.net.sequencer import check_body
from shanghai_net.table.bodies import seeds_body
from shanghai_net.wire import RemoteProtocolError
from shanghai_net.wire.messages import GameMessage
from shanghai_net.wire.signing import sign_game, sign_wire

from seating import kept_in, start_seated, until
from test_net_rejoin import identities, make_peer


async def test_a_player_who_quits_as_the_round_ends_sends_its_seeds_first(tmp_path):
    """Soak 13-27 (4 seats, sharing off): ann quit (``bye``) the moment bot5 went out, her
    table showing the round over; her seeds never came, the host timed them out, and round 1,
    played to its end, was void (bot5's win with it) and dealt again, where she was voted gone
    and that deal void too: two deals for one quit.  Here seat 1's player quits at the change
    that shows it the round over (`Peer.leave` marks the run as quitting as its first step,
    then says ``bye``): the seeds it owes must go first, and round 1 be audited, not void."""
    ends: dict = {}
    quit_at: list[int] = []
    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            host = Host(HostConfig(players=3, rules={"contracts": [[2, 0]] * 2},
                                   claim_timeout=2, audit_timeout=5,
                                   random=seeded(b"quits as the round ends")))
            listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
            port = await nursery.start(host.run, listeners)

            def quits_at_the_round_s_end(peer) -> None:
                table = peer.table
                if not quit_at and table is not None and table.waiting_audit:
                    quit_at.append(table.chain.next_seq)
                    peer._quit = True  # `Peer.leave`'s first step, here: the quit lands while the
                    # peer still takes in the messages that ended the round (13-27: ann's
                    # `bye` came as its table showed the round over), before it acts again
                    nursery.start_soon(peer.leave)

            peers = {}
            for seat, identity in enumerate(identities(3)):
                peers[seat] = make_peer(port, identity, seat, tmp_path, void_after=None,
                                        watch=quits_at_the_round_s_end if seat == 1 else None)
                await start_seated(nursery, peers[seat], seat, kept_in(ends, seat, peers[seat]))
            public = lambda: host.public  # noqa: E731
            await until(lambda: public() is not None and (
                public().rounds_audited >= 1 or public().left), "round 1 audited, or void", 60)
            assert quit_at, "seat 1 never saw the round over"
            assert public().left == [] and public().rounds_audited == 1, \
                f"round 1 void: seat 1's seeds were timed out (left {public().left})"
            nursery.cancel_scope.cancel()


def test_the_host_takes_the_seeds_of_a_round_of_30_generations_at_6_seats_sharing():
    """Soak 14-3 (6 seats, t 4): the last round ran to the house rule's 300 turns and its stock
    was shuffled 30 times (generations 0 to 29); at its end each seat's ``seeds`` body (a seed
    and its 5 shares for each generation, 10764 bytes) was refused by the host: "game.body:
    1172 bytes more than its known fields need, over the host's cap of 1024" (seen in seat
    2's ``errors`` on rejoining the host resumed from the record); the seat's outbox dropped it,
    no seat's seeds ever came, and the table stood still until the harness's bound.  Every
    byte of such a body is a field its kind defines."""
    game_id, rnd = bytes(16), seeded(b"thirty generations")
    seeds = [SharedSeedReveal(Context(game_id, 3, generation), 2, rnd(32),
                              tuple((dealer, rnd(32)) for dealer in (0, 1, 3, 4, 5)))
             for generation in range(30)]
    key = Identity(rnd(32), rnd(32)).sign_key
    msg = sign_game(key, bytes(32), 2, 2000, seeds_body(3, seeds))
    config = HostConfig(players=6)
    check_body(msg, game_id, config.max_body, config.max_unknown)

    wire = seeds_body(3, seeds).to_wire()  # the check still counts what a share does not define
    wire["data"]["shares"] = [{**share, "note": b"x" * 8} for share in wire["data"]["shares"]]
    padded = GameMessage.from_wire(sign_wire(key, bytes(32), 2, 2000, wire))
    with pytest.raises(RemoteProtocolError, match="more than its known fields need"):
        check_body(padded, game_id, config.max_body, config.max_unknown)


def test_a_replacement_seated_mid_round_approves_the_stand_in_proposed_before_it_sat():
    """Soak 14-7 (6 seats, t 4): gus's bye and ann's SIGKILL at the same moment in round 3;
    gus (seat 2) lost and rebuilt (R1), the host's stand-in proposed and approved by every seat
    but ann's; ann (seat 3) lost and rebuilt, her stand-in seated at once.  Seat 2's stand-in
    then waited for seat 3's approval, which the newcomer never gave: the table waited on it,
    the seats voted it gone, and the host timed it out as silent: the seat's second loss in the
    round voided round 3, which sharing had saved twice (3 minutes, a played round lost).
    Here in process: after the same two losses and the two proposals, seat 2 must be played."""
    from test_table_dropout_lost_rebuild import published
    from test_table_dropout_lost_vote import after_some_draws
    from test_table_roster import newcomer, vote_gone

    t = after_some_draws(6, 4)  # seat 2 gone from here
    t.gone.add(3)  # and seat 3, at the same moment
    vote_gone(t, 2, [0, 1, 4, 5])
    for seat in (2, 3):
        if seat == 3:
            vote_gone(t, 3, [0, 1, 4, 5])
        published(t)
        who = newcomer(seat)
        t.follow(seat, who, yields=True)
        t.propose(seat, who)
        t.gone.discard(seat)
        published(t)
    round_no = t.host.round
    assert t.host.lost == [(round_no, 2), (round_no, 3)] and t.host.fault is None
    assert t.host.approvals_due() == set() and t.host.vacant == {}, \
        f"seat 2's stand-in waits for seat 3's approval: vacant {t.host.vacant}"
