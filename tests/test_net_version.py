"""Protocol version 10 over real sockets: a peer of version 9, which would hash another
``start_game`` map than the one it received (the map it decoded) and know nothing of the
dropout-tolerant deal's fields (``host_run``, ``share_threshold``), is refused by a version-10
host with an error naming both versions, and gets no seat; a version-10 peer is seated."""

from __future__ import annotations

import pytest
import trio

from shanghai_net.net import peer as peer_module
from shanghai_net.net.host import Host, HostConfig
from shanghai_net.net.peer import PeerError
from shanghai_net.wire.messages import PROTOCOL_VERSION

from seating import start_seated
from test_net_rejoin import identities, make_peer


async def test_a_version_9_peer_is_refused_naming_both_versions(tmp_path, monkeypatch):
    assert PROTOCOL_VERSION == 10
    host = Host(HostConfig(players=3))
    old, new = identities(2)
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
            port = await nursery.start(host.run, listeners)
            monkeypatch.setattr(peer_module, "PROTOCOL_VERSION", 9)  # its hello says 9
            stale = make_peer(port, old, 0, tmp_path)
            with pytest.raises(PeerError) as refused:
                await stale.run()
            assert refused.value.words.startswith(
                "the host refused: protocol version 9 is not spoken here: this host speaks "
                "version 10"), refused.value.words
            assert str(refused.value).startswith("refused: version: ")
            assert stale.seat is None
            monkeypatch.setattr(peer_module, "PROTOCOL_VERSION", 10)
            await start_seated(nursery, make_peer(port, new, 0, tmp_path), 0)
            nursery.cancel_scope.cancel()
