"""Watchers who offer to take a seat (issue 22, protocol.md 11.9), over real sockets on
127.0.0.1: a `Peer(successor=True)` says so in its hello (``offer``), and every ``lobby_state``
lists it with its keys (``offers``), in the lobby and during the game, until it leaves; an offer
the host could not let a seat hand itself to (a key that sits at the table) is not listed, and
only a spectator may offer.  The game here waits for its seats' players, which make no move
until the test is done with them: nothing depends on how fast anyone plays."""

from __future__ import annotations

import importlib.util
import json
import random
from pathlib import Path
from types import SimpleNamespace

import pytest
import trio

from shanghai_net.deal import seeded
from shanghai_net.identity import Identity
from shanghai_net.net.host import Host, HostConfig
from shanghai_net.net.peer import Peer, PeerError
from shanghai_net.net.player import BotPlayer

from seating import start_seated, until
from test_net_rejoin import FAST_RETRY, RULES, identities, make_peer

ROOT = Path(__file__).resolve().parent.parent


class Held(BotPlayer):
    """A bot that makes no move: the game waits at its first decision, as long as the test
    likes."""

    def choose(self, table):
        return None


def watcher(port, identity, name, *, offer=True, role="bot") -> Peer:
    return Peer(("127.0.0.1", port), identity, name=name, role=role if offer else "spectator",
                successor=offer, timeout=10, retry_delays=FAST_RETRY)


def offered(peer: Peer) -> dict[bytes, object]:
    """The offers of the latest ``lobby_state`` ``peer`` was sent, by signing key."""
    return {o.sign_key: o for o in peer.lobby.offers} if peer.lobby is not None else {}


def listing(host) -> dict[bytes, object]:
    """The offers the host lists now, by signing key (read on the host's own trio thread)."""
    return {o.sign_key: o for o in host.lobby.lobby_state().offers}


async def test_the_lobby_lists_who_offers_to_take_a_seat_with_their_keys(tmp_path):
    keys = identities(3)
    rnd = seeded(b"offers")
    bea_id, cy_id = Identity(rnd(32), rnd(32)), Identity(rnd(32), rnd(32))
    host = Host(HostConfig(players=3, rules=RULES, claim_timeout=2, random=seeded(b"offer host")))
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            port = await nursery.start(host.run, listeners)
            seated = [make_peer(port, keys[s], s, tmp_path, player=Held()) for s in range(3)]
            for seat in range(2):
                await start_seated(nursery, seated[seat], seat)
            # in the lobby: bea offers (as a bot), cy only watches, and a key that sits at the
            # table offers too: only bea is listed, with the keys a hand-over names
            bea, cy = watcher(port, bea_id, "bea"), watcher(port, cy_id, "cy", offer=False)
            twin = watcher(port, keys[1], "twin")
            mimic = watcher(port, host.identity, "mimic")  # the host's own key
            gone = trio.Event()  # bea's connections leave at the end

            async def offering(peer):
                with trio.CancelScope() as scope:
                    async with trio.open_nursery() as mine:
                        mine.start_soon(peer.run)
                        await gone.wait()
                        scope.cancel()

            nursery.start_soon(offering, bea)
            for peer in (cy, twin, mimic):
                nursery.start_soon(peer.run)
            await until(lambda: all(p.lobby is not None for p in (bea, cy, twin, mimic)),
                        "the watchers welcomed, each sent a lobby state after its hello")
            await until(lambda: bea_id.sign_public in offered(seated[0]), "bea's offer listed")
            listed = listing(host)  # every hello above is in: what the host lists now
            assert set(listed) == {bea_id.sign_public}, \
                "a seated key, the host's, or a mere watcher listed"
            offer = listed[bea_id.sign_public]
            assert (offer.name, offer.kind, offer.fingerprint, offer.box_key) == \
                ("bea", "bot", bea_id.fingerprint, bea.box_public)
            # the game starts: the offer stays, and one of a key that plays a seat now is not
            await start_seated(nursery, seated[2], 2)
            await host.started.wait()
            late = watcher(port, keys[2], "late", role="player")
            nursery.start_soon(late.run)
            await until(lambda: late.table is not None, "the late watcher following the game")
            assert set(listing(host)) == {bea_id.sign_public}
            # nor one of a key the host proposed to play a seat (a hand-over to it is refused)
            proposed = Identity(rnd(32), rnd(32))
            await host.propose(0, "x", "bot", proposed.sign_public, rnd(32)).wait()
            other = watcher(port, proposed, "proposed")
            nursery.start_soon(other.run)
            await until(lambda: other.table is not None, "the proposed key following the game")
            assert set(listing(host)) == {bea_id.sign_public}
            # bea's key offers again on a second connection: one key, one offer
            again = watcher(port, bea_id, "bea")
            nursery.start_soon(offering, again)
            await until(lambda: again.table is not None, "bea's second connection welcomed")
            assert [o.sign_key for o in host.lobby.lobby_state().offers] == [bea_id.sign_public]
            # bea leaves: its offer goes with it
            gone.set()
            await until(lambda: not offered(seated[0]), "bea's offer withdrawn once it left")
            nursery.cancel_scope.cancel()


async def test_only_a_spectator_offers_to_take_a_seat(tmp_path):
    class OfferingPlayer(Peer):
        """A player whose hello offers to take a seat as well: it would sit and offer at once."""

        @property
        def _offer(self):
            return "player"

    host = Host(HostConfig(players=3, rules=RULES, random=seeded(b"offer refused")))
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            port = await nursery.start(host.run, listeners)
            rnd = seeded(b"offering player")
            peer = OfferingPlayer(("127.0.0.1", port), Identity(rnd(32), rnd(32)),
                                  BotPlayer("basic", random.Random(1)), role="player", timeout=10,
                                  lobby_timeout=10, reconnect=False)  # seated without the check
            with pytest.raises(PeerError, match="refused: bad_message: hello.offer: only a "
                                                "spectator offers"):
                await peer.run()
            assert host.seats == [None] * 3
            nursery.cancel_scope.cancel()


def test_the_simple_bot_reads_a_lobby_state_with_offers_and_ignores_them():
    """clients/simple_bot.py reads every frame of the vectors it is sent, ``offers`` included,
    and takes only the seats from a lobby state (``offers`` is of no use to it)."""
    spec = importlib.util.spec_from_file_location("simple_bot", ROOT / "clients" / "simple_bot.py")
    bot = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bot)
    frames = json.loads((ROOT / "protocol" / "vectors" / "frames.json").read_text())
    sent = [bot.decode_frame(bytes.fromhex(f["hex"])[4:]) for f in frames]
    for message in sent:
        if message["type"] in bot.FIELDS:
            bot.check_fields(message)
    lobby = next(m for m in sent if m["type"] == "lobby_state")
    assert lobby["offers"], "the vector has an offer"
    state = dict(lobby, seats=[dict(lobby["seats"][0], connected=False, left=True)])
    seen = SimpleNamespace(away={}, left=set())
    bot.Seat.lobby(seen, state)
    assert set(seen.away) == {0} and seen.left == {0}
