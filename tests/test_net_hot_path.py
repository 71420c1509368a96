"""What a peer computes once stays computed once (issue 40): `Peer._holder_changed` runs after
every sequenced message, and rebuilt the seat's Ed25519 and X25519 public keys from their
seeds each time (26,000 derivations a game, more CPU than every signature check)."""

from __future__ import annotations

import collections

import trio

from shanghai_net.identity import Identity
from shanghai_net.table.secret import SeatSecret

from test_net_game import play


def counting(monkeypatch, cls: type, name: str, counts: collections.Counter) -> None:
    """Count each time ``cls.name`` (a property deriving a public key from a seed) runs."""
    derive = getattr(cls, name).fget

    def counted(self):
        counts[f"{cls.__name__}.{name}"] += 1
        return derive(self)

    monkeypatch.setattr(cls, name, property(counted))


async def test_a_whole_game_derives_each_seat_s_public_keys_a_few_times_not_once_a_message(
        monkeypatch):
    counts = collections.Counter()
    counting(monkeypatch, Identity, "sign_public", counts)
    counting(monkeypatch, SeatSecret, "box_public", counts)
    with trio.fail_after(170):
        host, tables, _ = await play(4, "davis", rules={"contracts": [[2, 0], [1, 1]]})
    assert host.public.finished and host.sequenced > 400
    # each party derives its keys for its hello, the lobby's offers and the start's check:
    # a handful each, whatever the number of messages
    assert counts["Identity.sign_public"] <= 10 * 5, counts
    assert counts["SeatSecret.box_public"] <= 10 * 4, counts
