"""Bad input over real sockets: each gets an ``error`` with its code while the game goes on for
everyone; a silent seat in a claim window is passed by the host's signed ``timeout``."""

from __future__ import annotations

import dataclasses

import random
import struct

import msgpack
import trio

from shanghai_net.engine import Discard, LayOff, Phase
from shanghai_net.engine.moves import DrawStock
from shanghai_net.identity import Identity
from shanghai_net.table.bodies import move_to_body
from shanghai_net.net.player import BotPlayer
from shanghai_net.wire import CLIENT, Connection, NEED_DATA
from shanghai_net.wire.messages import PROTOCOL_VERSION, Hello

from test_net_game import assert_clean, assert_host_holds_no_hidden_card, play


def frame(value) -> bytes:
    body = value if isinstance(value, bytes) else msgpack.packb(value, use_bin_type=True)
    return struct.pack(">I", len(body)) + body


class Injector(BotPlayer):
    """Seat 0: a basic bot that, at quiet moments, sends one of each bad input and waits for its
    error before playing on."""

    def __init__(self) -> None:
        super().__init__("basic", random.Random(7))
        self.sent: list[str] = []
        self.pending: dict[str, int | None] = {}  # what was injected -> its counter, if any
        self.codes: list[str] = []

    @property
    def waiting(self) -> bool:
        return bool(self.pending)

    def on_error(self, error) -> None:
        if error.code in ("malformed_frame", "unknown_message"):  # only injected frames do this
            if self.pending.pop(error.code, False) is not False:
                self.codes.append(error.code)
            return
        for name, counter in list(self.pending.items()):
            if counter is not None and counter == error.ref_counter:
                del self.pending[name]
                if error.code == "stale":  # the game moved on meanwhile: try again
                    self.sent.remove(name)
                else:
                    self.codes.append(error.code)
                return

    def _send(self, name, item):
        self.sent.append(name)
        self.pending[name] = getattr(item, "counter", None)
        return [item]

    def extra(self, table, outbox):
        if self.waiting or not outbox.idle or not table.settled or table.round < 1:
            return []
        game = table.public
        if "malformed_frame" not in self.sent:
            return self._send("malformed_frame", frame(b"\x93\xc1\x01"))
        if "unknown_message" not in self.sent:
            return self._send("unknown_message", frame({"type": "teleport", "to": "mars"}))
        def sign(body):
            return table.chain.sign(outbox.sign_key, table.seat, body, outbox.reserve())

        if game.phase is not Phase.PLAY:
            return self.quiet_moment(table, sign)
        if game.turn == table.seat and table.can_move():
            card = table.game.hand(table.seat)[0]
            if "bad_signature" not in self.sent:
                msg = sign(move_to_body(Discard(table.seat, card)))
                return self._send("bad_signature", dataclasses.replace(msg, sig=bytes(64)))
            if "illegal_move" not in self.sent:
                return self._send("illegal_move", sign(move_to_body(LayOff(table.seat, card, 99))))
        return []

    def quiet_moment(self, table, sign):
        """Only seat 1, silent in claim windows, has a decision: nothing moves until the host's
        timeout, so a move of this seat signed now is judged, not stale."""
        game = table.public
        if "out_of_turn" not in self.sent and game.phase is Phase.DRAW and \
                game.to_move() and set(game.to_move()) == {1}:
            return self._send("out_of_turn", sign(move_to_body(DrawStock(table.seat))))
        return []

    def choose(self, table):
        if self.waiting:
            return None
        return super().choose(table)


async def raw_client(port, frames, reads):
    """A spectator that sends ``frames`` after its welcome and returns the error codes it got
    before the host closed (or ``reads`` messages)."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    conn = Connection(CLIENT)
    me = Identity(bytes(range(32)), bytes(range(1, 33)))
    await stream.send_all(conn.send(Hello(protocol="shanghai-net", version=PROTOCOL_VERSION, name="raw",
                                          sign_key=me.sign_public, box_key=me.box_public,
                                          join_code="", role="spectator")))
    codes = []
    welcomed = False
    with trio.fail_after(20):
        while True:
            data = await stream.receive_some(conn.room)
            conn.receive_data(data)
            while (event := conn.next_event()) is not NEED_DATA:
                kind = getattr(event, "TYPE", None)
                if kind == "welcome" and not welcomed:
                    welcomed = True
                    for item in frames:
                        await stream.send_all(item)
                elif kind == "error":
                    codes.append(event.code)
                    if len(codes) >= reads or event.code in ("abuse", "frame_too_large"):
                        await stream.aclose()
                        return codes
            if not data:
                return codes


async def test_each_bad_input_gets_its_error_and_the_game_goes_on():
    injector = Injector()
    raw = {}

    async def attackers(host, port):
        await host.started.wait()
        raw["oversize"] = await raw_client(port, [struct.pack(">I", 2 << 20) + b"x" * 64], 5)
        raw["abuse"] = await raw_client(port, [frame(b"\xc1")] * 40, 100)

    with trio.fail_after(120):
        silent = BotPlayer("basic", random.Random(5), claims=False)
        host, tables, _ = await play(3, "davis", rounds=1, player={0: injector, 1: silent},
                                     claim_timeout=0.5, extra=attackers,
                                     until=lambda: len(injector.codes) == 5)
    assert sorted(injector.sent) == sorted(["malformed_frame", "unknown_message",
                                            "bad_signature", "illegal_move", "out_of_turn"]), \
        (injector.sent, injector.codes, injector.pending)
    for code in injector.sent:
        assert code in injector.codes, (code, injector.codes)
    assert raw["oversize"] == ["frame_too_large"]
    assert raw["abuse"][-1] == "abuse" and raw["abuse"].count("malformed_frame") >= 20
    assert_clean(host, tables, min(t.audited for t in tables.values()))
    assert host.public.audited >= 1
    assert_host_holds_no_hidden_card(host, tables)


async def test_a_seat_silent_in_claim_windows_is_passed_by_the_host_timeout():
    """Seat 1 never claims nor passes: each of its passes is the host's ``timeout`` naming it.
    The honest seats answer by themselves; one slower than ``claim_timeout`` on a loaded machine
    is timed out too, which this test allows (it counts seat 1's timeouts only)."""
    silent = BotPlayer("basic", random.Random(3), claims=False)
    with trio.fail_after(120):
        host, tables, _ = await play(3, "davis", rounds=1, claim_timeout=0.2,
                                     player={1: silent})
    assert_clean(host, tables, 1)
    timed_out = [m.body.seat for m in host.history.messages if m.body.KIND == "timeout"]
    assert len(timed_out) == host.timeouts
    passes = [e for e in tables[1].events if type(e).__name__ == "ClaimPassed" and e.seat == 1]
    assert passes, "seat 1 was never passed in a claim window"
    assert len(passes) == timed_out.count(1)
