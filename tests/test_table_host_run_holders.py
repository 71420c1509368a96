"""start_game's ``host_run`` feeds the share holders (docs/dealing.md, "Holders", rule 2;
table/seed_sharing.py `_generation_holders`): the host's seats are dealt no share."""

from __future__ import annotations

import dataclasses

import test_net_table


def test_the_host_s_seats_are_dealt_no_share():
    """start_game's ``host_run`` feeds the holders: at a table of 4 where the host runs seat 3,
    every commit seals shares to the other holders only (never to seat 3, which still deals
    its own seed to them), and the round is audited clean with the shares in every seeds."""

    class Recorded(test_net_table.Table):
        def deliver(self, msg):
            msg = super().deliver(msg)
            self.stream.append(msg)
            return msg

    plain = test_net_table.StartGame

    def host_runs_seat_3(**fields):
        seats = tuple(dataclasses.replace(p, host_run=p.seat == 3) for p in fields.pop("seats"))
        return plain(**fields, seats=seats, share_threshold=2)

    test_net_table.StartGame = host_runs_seat_3
    try:
        t = Recorded(4, rules={"contracts": [[2, 0]]})
    finally:
        test_net_table.StartGame = plain
    t.stream = []
    t.run_until(lambda: t.host.audited >= 1)
    commits = [(m.author, m.body.data) for m in t.stream
               if m.body.KIND == "deal" and m.body.step == "commit"]
    assert {author for author, _ in commits} == {0, 1, 2, 3}
    for dealer, data in commits:
        assert [box["to"] for box in data["shares"]] == [s for s in (0, 1, 2) if s != dealer]
    assert all(table.fault is None and table.verdicts[1].clean for table in t.seats)
