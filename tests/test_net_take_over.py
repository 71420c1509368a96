"""A person's seat changing hands through the `NetSession` (issue 22, protocol.md 11.9), over
real sockets on 127.0.0.1: a person who joins with ``shanghai join HOST --take-over`` (the CLI
path) watches the game, is listed as offering, and is handed a seat mid-turn by the person
playing it; it then plays on with that very hand while the one who handed it over watches the
game to its end, and ``verify`` follows the seat's keys.  Every wait is on the sessions' state,
bounded only to catch a hang."""

from __future__ import annotations

import random

import trio

from shanghai_net.bots import make_bot
from shanghai_net.cli.net import HostedTable
from shanghai_net.engine import DrawStock, Phase
from shanghai_net.identity import Identity
from shanghai_net.net.host import HostConfig
from shanghai_net.net.player import BotPlayer
from shanghai_net.net.resume import GameSecrets
from shanghai_net.net.session import NetSession
from shanghai_net.net.transcript import read_transcript
from shanghai_net.session import Accepted, Refused
from shanghai_net.table.verify import verify

from test_net_session import until

TWO_ROUNDS = {"contracts": [[2, 0], [1, 0]], "final_round_meld_all": False, "max_turns": 30}
"""Two short rounds: the seat is handed over in the first, and the second is dealt to its new
holder's own box key."""


def table_with_ann(tmp_path, record=None, rules=TWO_ROUNDS, seed=3, claim_timeout=1.0):
    """A table hosted here (`HostedTable`: the host, then two basic bots once ann sits) with ann
    as a person who keeps her game's secret in ``tmp_path`` (so her seat can be handed over);
    the transcript goes to ``record``."""
    config = HostConfig(players=3, preset="davis", rules=dict(rules), claim_timeout=claim_timeout,
                        record=record)
    bots = [BotPlayer("basic", random.Random(seed * 10 + i)) for i in range(2)]
    hosted = HostedTable(config, bots=bots, seed=seed, name="ann", auto_ready=True)
    rnd = random.Random(seed)
    hosted.session = NetSession(None, Identity(rnd.randbytes(32), rnd.randbytes(32)),
                                name="ann", auto_ready=True, store=GameSecrets(tmp_path / "ann"),
                                think=0.0)
    return hosted


def join_to_take_over(address, home) -> NetSession:
    """``shanghai join HOST:PORT --take-over --identity HOME --name bea``, as the command line
    builds it: the session the console would run."""
    from shanghai_net.cli import _parser

    args = _parser().parse_args(["join", "{}:{}".format(*address), "--take-over",
                                 "--identity", str(home), "--name", "bea"])
    made = []
    args.console = lambda session, ascii, **options: made.append(session) or 0
    args.func(args)  # the console here only keeps the session, which the test runs
    return made[0]


async def play_it_out(session: NetSession) -> None:
    """Play ``session``'s seat with a basic bot's choices, through `submit`, to the game's end."""
    me = make_bot("basic", random.Random(5))
    while session.result is None:
        table = session.table
        if table.seat is not None and table.can_move():
            view = session.view
            await session.submit(me.choose(view, list(table.game.legal_moves(table.seat))))
        else:
            await until(session, lambda: session.result is not None or (
                session.table.seat is not None and session.table.can_move()), timeout=120)


def may_draw(session: NetSession) -> bool:
    """The seat is to draw now (the table waits for it)."""
    return DrawStock(session.seat) in session.legal_moves()


def drawn(session: NetSession) -> bool:
    """The seat has drawn and holds the card: the rest of its turn is to play."""
    return session.view.my_turn and session.view.phase is Phase.PLAY and session.table.settled


async def test_a_seat_handed_mid_turn_to_a_person_who_joined_to_take_it_over(tmp_path):
    record = tmp_path / "game.transcript"
    hosted = table_with_ann(tmp_path, record)
    ann = hosted.session
    with trio.fail_after(240):
        async with trio.open_nursery() as nursery:
            await nursery.start(hosted.serve)
            await nursery.start(ann.run)
            await until(ann, lambda: ann.view is not None)
            bea = join_to_take_over(ann.address, tmp_path / "bea")
            await nursery.start(bea.run)
            await until(bea, lambda: bea.view is not None)
            assert bea.seat == -1 and bea.view.hand == () and not bea.legal_moves()
            assert "offer to take a seat" in bea.watching and bea.identity.fingerprint in \
                bea.watching
            await until(ann, lambda: any(o.name == "bea" for o in ann.offers))
            offer = next(o for o in ann.offers if o.name == "bea")
            assert offer.fingerprint == bea.identity.fingerprint and offer.kind == "player"
            assert any("bea offers to take a seat" in e.text and offer.fingerprint in e.text
                       for e in ann.log)
            # ann's turn comes (the table waits for her): she draws, and hands the seat over
            # mid-turn, before her discard
            await until(ann, lambda: may_draw(ann), timeout=120)
            while may_draw(ann):  # a MAY I settled by her draw uncovers a card: draw again
                assert isinstance(await ann.submit(DrawStock(ann.seat)), Accepted)
                await until(ann, lambda: drawn(ann) or may_draw(ann))
            seat, hand = ann.seat, sorted(ann.view.hand)
            assert (await ann.hand_over(offer)).startswith("handing your seat to bea")
            assert "on its way to bea" in ann.hand_over_refused()
            # bea plays on from the very turn, with that hand; ann watches
            await until(bea, lambda: bea.table.seat == seat, timeout=120)
            assert bea.watching is None and bea.view.my_turn and bea.view.phase is Phase.PLAY
            assert sorted(bea.view.hand) == hand
            assert f"seat {seat} is yours now: you play on from this very turn" in \
                [e.text for e in bea.log]
            await until(ann, lambda: ann.watching is not None and ann.seat == -1, timeout=120)
            assert ann.watching.startswith("your seat is bea's now") and "bot" not in \
                ann.watching
            assert isinstance(await ann.submit(DrawStock(seat)), Refused)
            await play_it_out(bea)
            for session in (ann, bea):  # the last round audited too: bea's seeds are out
                await until(session, lambda: session.over, timeout=120)
            await bea.leave()  # no rematch: the table stays for one until its person goes
    host = hosted.host.public
    assert bea.result == ann.result == host.public.result
    assert [s.name for s in ann.seats][seat] == "bea for ann"
    assert any(f"seat {seat} is played by bea for ann now" in e.text for e in ann.log)
    for session in (ann, bea):  # the seat passes: its absence is no loss, nothing to vote on
        said = [e.text for e in session.log]
        assert f"seat {seat} passes to bea for ann" in said, "\n".join(said)
        assert f"bea for ann takes seat {seat}" in said, "\n".join(said)
        assert not [line for line in said if "lost connection" in line or "V votes" in line]
    report = verify(read_transcript(record))
    assert report.ok, report.summary()
    assert f"seat {seat} played by bea (player, key" in report.summary()


async def test_a_seat_from_the_lobby_refuses_a_start_that_swaps_a_key_the_lobby_showed(tmp_path):
    """The fingerprints the lobby showed bind the start for those who sat (or watched) in the
    lobby: a host that puts another key in seat 1 is refused by seat 0, which compared.  (One who
    comes to a game under way compares nothing with the lobby, which shows who plays each seat
    now: `test_a_seat_handed_mid_turn_to_a_person_who_joined_to_take_it_over`, whose watcher
    after the hand-over was refused so.)  A seat that refuses the start keeps no secret of
    its game: the host chose that game id, and a later start of it would be refused as a
    game id reused."""
    import dataclasses

    from shanghai_net.deal import seeded
    from shanghai_net.net.host import Host
    from shanghai_net.net.peer import Peer, PeerError

    from seating import kept_in, start_seated, until as until_state

    rnd = seeded(b"swapped key")
    impostor = Identity(rnd(32), rnd(32))
    host = Host(HostConfig(players=3, rules={"contracts": [[2, 0]]}, random=seeded(b"swap")))
    begin = host.lobby.on_start

    def swapped(start):
        seats = list(start.seats)
        seats[1] = dataclasses.replace(seats[1], sign_key=impostor.sign_public)
        host.lobby.start = dataclasses.replace(start, seats=tuple(seats))
        begin(host.lobby.start)  # what the lobby then sends every client

    host.lobby.on_start = swapped
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    ends = {}
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            port = await nursery.start(host.run, listeners)
            peers = [Peer(("127.0.0.1", port), Identity(rnd(32), rnd(32)),
                          BotPlayer("basic", random.Random(s)), name=f"p{s}", timeout=10,
                          reconnect=False, store=GameSecrets(tmp_path / f"p{s}"))
                     for s in range(3)]
            for seat, peer in enumerate(peers):
                await start_seated(nursery, peer, seat, kept_in(ends, seat, peer))
            await until_state(lambda: len(ends) == 3, "every seat's answer to the start")
            nursery.cancel_scope.cancel()
    for seat in (0, 2):
        assert isinstance(ends[seat], PeerError) and \
            "start_game gives seat 1 a key the lobby did not show" in str(ends[seat])
    assert isinstance(ends[1], PeerError) and "does not give seat 1 our keys" in str(ends[1])
    kept = [path.name for path in tmp_path.glob("p*/*")]
    assert kept == [], f"a seat that refused the start kept a secret of its game: {kept}"
