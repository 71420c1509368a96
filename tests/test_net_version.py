"""Protocol version 9 over real sockets: a peer of version 8, which would count the same
stream's votes and replacements differently (split votes carried together, a seat given back
once a game), is refused by a version-9 host with an error naming both versions, and gets no
seat; a version-9 peer is seated."""

from __future__ import annotations

import pytest
import trio

from shanghai_net.net import peer as peer_module
from shanghai_net.net.host import Host, HostConfig
from shanghai_net.net.peer import PeerError
from shanghai_net.wire.messages import PROTOCOL_VERSION

from seating import start_seated
from test_net_rejoin import identities, make_peer


async def test_a_version_8_peer_is_refused_naming_both_versions(tmp_path, monkeypatch):
    assert PROTOCOL_VERSION == 9
    host = Host(HostConfig(players=3))
    old, new = identities(2)
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
            port = await nursery.start(host.run, listeners)
            monkeypatch.setattr(peer_module, "PROTOCOL_VERSION", 8)  # its hello says 8
            stale = make_peer(port, old, 0, tmp_path)
            with pytest.raises(PeerError) as refused:
                await stale.run()
            assert refused.value.words.startswith(
                "the host refused: protocol version 8 is not spoken here: this host speaks "
                "version 9"), refused.value.words
            assert str(refused.value).startswith("refused: version: ")
            assert stale.seat is None
            monkeypatch.setattr(peer_module, "PROTOCOL_VERSION", 9)
            await start_seated(nursery, make_peer(port, new, 0, tmp_path), 0)
            nursery.cancel_scope.cancel()
