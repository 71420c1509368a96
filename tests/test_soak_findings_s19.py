"""Soak seed 11's findings in the game (session 19, /work/notes/s19/soak-findings.md), each
reproduced in process over the real tables (and the host's real sequencer).  11-5's first part,
a seat lost in the first-dealer pick with sharing on, is s19-pick's fix and test
(test_table_votes_spent.py, sharing_on)."""

from __future__ import annotations

from test_table_roster import vote_gone


def test_a_seat_vacant_again_in_the_round_it_was_lost_is_announced_again():
    """Seat 2 of a 4-seat table (t 3) lost mid-round and rebuilt, the host's stand-in seated
    and voted gone in the same round (test_table_dropout_lost_twice.py's game): the table's
    `vacant` reads {2: 1} after each.  The host's sequencer, taking the stream a message at a
    time, must announce seat 2 vacant twice: once for each stand-in the host is to propose."""
    import trio

    from shanghai_net.net.config import HostConfig
    from shanghai_net.net.history import History
    from shanghai_net.net.sequencer import Sequencer
    from shanghai_net.net.transcript import Transcript
    from shanghai_net.table.public import PublicTable
    from test_table_dropout_lost_rebuild import lost, published
    from test_table_dropout_lost_twice import seated
    from test_table_roster import newcomer

    t = lost()
    published(t)
    seated(t, 2, newcomer(2), "bot")
    t.run_until(lambda: t.host.settled and 2 in t.host.public.to_move())
    t.gone.add(2)
    vote_gone(t, 2, [0, 1, 3])
    assert t.host.lost == [(1, 2)] and t.host.left == [(1, 2)] and t.host.vacant == {2: 1}

    async def announced() -> list[int]:
        public = PublicTable(t.host.start_game)
        sequencer = Sequencer(HostConfig(), None, History(1 << 20), set(), Transcript(None),
                              public)
        for msg in t.stream:
            public.receive(msg)
            await sequencer._publish(msg)
        seats = []
        while True:
            try:
                seats.append(sequencer.vacancies.receive_nowait())
            except trio.WouldBlock:
                return seats

    assert trio.run(announced) == [2, 2]
