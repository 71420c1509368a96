"""A player who quits as the round ends (soak 13-27), with sharing on, over real sockets with
our own `Host` and `Peer` classes: what the seat owes the round over (its seeds) goes before its
signed ``leave``, which is its last message (the host refuses any after it)."""

from __future__ import annotations

import trio

from shanghai_net.net.peer import Peer

from seating import until
from sharing_net import sharing_on, sharing_table

QUITTER = 1


class QuitsAsTheRoundEnds(Peer):
    """A peer whose player quits the moment its table shows the round over, before the peer
    has sent anything of the audit: from then on it sends nothing on its own (its seeds wait
    in its outbox), and ``quits`` is set for the test to call `Peer.leave`, as a console
    does."""

    def __init__(self, *args, **options) -> None:
        super().__init__(*args, **options)
        self.quits = trio.Event()

    async def _act(self, link) -> None:
        table = self.table
        if table is not None and table.waiting_audit and not self.replaying:
            self.quits.set()
        if not self.quits.is_set():
            await super()._act(link)


async def test_a_player_who_quits_with_its_round_over_sends_its_seeds_before_its_leave(
        tmp_path, monkeypatch):
    """Three seats, sharing on (``t`` = 2): seat 1's player quits (`Peer.leave`) with its
    table waiting for the round's audit and its seeds not sent yet.  Its seeds must be
    sequenced before its ``leave``: sent after it, the host refuses them (a seat's leave is
    its last message), times them out after ``audit_timeout`` and the round is audited from
    the shares rebuilt (R2) instead of the seeds the seat held."""
    sharing_on(monkeypatch, 2)
    with trio.fail_after(120):
        async with sharing_table(tmp_path, 3, b"quits with its round over",
                                 {QUITTER: {"kind": QuitsAsTheRoundEnds}}, frozen=None,
                                 audit_timeout=10) as (host, peers, ends, kill):
            public = host.public
            await peers[QUITTER].quits.wait()
            assert public.waiting_audit and QUITTER not in public.seeds_from
            await peers[QUITTER].leave()
            await until(lambda: public.rounds_audited >= 1 and QUITTER in public.quit,
                        "the round audited and seat 1's leave sequenced", 60,
                        state=lambda: (public.seeds_from, public.missing_seeds, public.quit))
            assert public.seeds_timeouts == {}, \
                f"seat 1's seeds were timed out: {public.seeds_timeouts}"
