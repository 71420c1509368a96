"""The peer's own clock-driven choices, on trio's mock clock: a bot's think time."""

from __future__ import annotations

import math
import re
from types import SimpleNamespace

import pytest
import trio

from shanghai_net.engine import Phase
from shanghai_net.identity import Identity
from shanghai_net.net.peer import Peer
from shanghai_net.net.player import BotPlayer
from shanghai_net.net.voting import NEWCOMER_GRACE


def table_at(version, phase=Phase.DRAW, round_no=1):
    return SimpleNamespace(round=round_no, version=version, game=SimpleNamespace(phase=phase))


def lobby_of(*kinds):
    from shanghai_net.wire.messages import LobbyState, SeatInfo
    return LobbyState(seats=tuple(SeatInfo(seat=s, name=f"p{s}", fingerprint="f", ready=True,
                                           connected=True, kind=k) for s, k in enumerate(kinds)),
                      preset="davis", rules={}, join_code="")


async def test_a_bot_thinks_before_each_decision_and_not_again_for_the_same_one(mock_clock):
    peer = Peer(("127.0.0.1", 9), Identity(bytes(32), bytes(32)), BotPlayer(think=2.0))
    peer.lobby = lobby_of("player", "bot")
    assert not peer._thought(table_at(3))  # the decision arises: think first
    mock_clock.jump(1.9)
    assert not peer._thought(table_at(3))
    mock_clock.jump(0.2)
    assert peer._thought(table_at(3)) and peer._thought(table_at(3))
    assert not peer._thought(table_at(4))  # the game moved on: a new decision
    assert not peer._thought(table_at(4, Phase.PLAY, 2))


async def test_a_bot_that_does_not_think_decides_at_once(mock_clock):
    peer = Peer(("127.0.0.1", 9), Identity(bytes(32), bytes(32)), BotPlayer())
    peer.lobby = lobby_of("player", "bot")
    assert peer._thought(table_at(1)) and peer._thought(table_at(2))


async def test_bots_among_bots_do_not_think(mock_clock):
    peer = Peer(("127.0.0.1", 9), Identity(bytes(32), bytes(32)), BotPlayer(think=2.0))
    peer.lobby = lobby_of("bot", "bot", "bot")
    assert peer._thought(table_at(1)) and peer._thought(table_at(2))


async def test_a_vote_already_in_the_stream_is_not_cast_again(mock_clock):
    """After a crash the replayed stream holds this seat's own vote: the peer does not wait to
    vote again (it would wake at once, for ever); nor while its vote is on its way.  Once the
    vote lapsed (the seat it named sent what it owed, protocol.md 11.5), it votes again."""
    from shanghai_net.wire.messages import VoidRound

    peer = Peer(("127.0.0.1", 9), Identity(bytes(32), bytes(32)), BotPlayer(), void_after=5.0)
    peer.seat, peer.outbox, peer.absent = 0, SimpleNamespace(deal=[], flying=[]), {2: 0.0}
    peer.table = SimpleNamespace(finished=False, waiting_audit=False, void_target=3, void_votes={},
                                 share_threshold=None, quitters=set,  # sharing off
                                 chain=SimpleNamespace(next_seq=0),
                                 vacant={}, unheard=set(), silenced={},
                                 stalled_by=set)
    assert peer._vote_due() == 5.0
    peer.table.void_votes[3] = {0}
    assert peer._vote_due() == float("inf")
    peer.table.void_votes[3] = set()  # it lapsed
    assert peer._vote_due() == 5.0
    peer.outbox.flying = [SimpleNamespace(body=VoidRound(round=3, seat=2))]
    assert peer._vote_due() == float("inf"), "a vote on its way"


async def test_a_seat_replaying_the_game_after_a_rejoin_does_not_vote(mock_clock):
    """Back after a crash, the seat replays the stream from seq 0 while its lobby already says
    a seat quit: no vote, by itself or its person's, until the replay reaches the running round
    (soak seed 6, game 6-20: a vote pushed mid-replay kept every replayed deal step from being
    recognised as sent, and the host closed the seat for abuse)."""
    from shanghai_net.wire.messages import VoidRound

    peer = Peer(("127.0.0.1", 9), Identity(bytes(32), bytes(32)), BotPlayer(), void_after=5.0)
    pushed = []
    peer.seat, peer.outbox = 0, SimpleNamespace(push=pushed.extend, deal=pushed, flying=[])
    peer.table = SimpleNamespace(finished=False, waiting_audit=False, void_target=1, void_votes={},
                                 share_threshold=None, quitters=set,  # sharing off
                                 chain=SimpleNamespace(next_seq=40), vacant={}, unheard=set(),
                                 silenced={}, stalled_by=set)
    peer._quiet_until, peer.left, peer.absent = 500, {2}, {2: 0.0}
    assert peer._vote_due() == math.inf and not peer.vote_void() and not pushed
    peer.table.chain.next_seq, peer.table.void_target = 500, 3  # replayed: in the running round
    assert peer._vote_due() == -math.inf and peer.vote_void()
    assert pushed == [VoidRound(round=3, seat=2)]


async def test_a_bot_votes_against_a_seat_whose_link_is_down_before_one_only_slow(mock_clock):
    """Seat 1 has owed the deal a step since 10 s, still connected; seat 2's link dropped at
    20 s.  The vote names seat 2 (a slow seat is no reason to void its round), and a seat that
    quit before either."""
    from shanghai_net.wire.messages import VoidRound

    peer = Peer(("127.0.0.1", 9), Identity(bytes(32), bytes(32)), BotPlayer(), void_after=5.0)
    pushed = []
    peer.seat, peer.outbox = 0, SimpleNamespace(push=pushed.extend, deal=pushed, flying=[])
    peer.table = SimpleNamespace(finished=False, waiting_audit=False, void_target=3, void_votes={},
                                 share_threshold=None, quitters=set,  # sharing off
                                 chain=SimpleNamespace(next_seq=0),
                                 vacant={}, unheard=set(), silenced={},
                                 stalled_by=set)
    peer.stalling, peer.absent = {1: 10.0}, {2: 20.0}
    assert peer._vote_due() == 15.0 and peer.vote_void()
    assert pushed == [VoidRound(round=3, seat=2)]
    assert not peer.vote_void(), "its vote is on its way"
    pushed.clear()  # sent, sequenced, and lapsed
    peer.left, peer.absent = {3}, {2: 20.0, 3: 30.0}
    assert peer.vote_void() and pushed == [VoidRound(round=3, seat=3)]


async def test_a_bot_votes_at_once_against_a_seat_away_the_host_timed_out_as_silent(mock_clock):
    """Seat 2's link dropped at 20 s and the host timed it out as silent (the table sequenced
    nothing for its audit time): a bot of the host's (180 s) votes at once, not at 200 s, a
    newcomer's link down too (a stand-in that died with the host).  Not against a seat still
    connected, nor a newcomer connected, reading the game (its grace)."""
    peer = Peer(("127.0.0.1", 9), Identity(bytes(32), bytes(32)), BotPlayer(), void_after=180.0)
    peer.seat, peer.outbox = 0, SimpleNamespace(deal=[], flying=[])
    peer.table = SimpleNamespace(finished=False, waiting_audit=False, void_target=3, void_votes={},
                                 share_threshold=None, quitters=set,  # sharing off
                                 chain=SimpleNamespace(next_seq=0),
                                 vacant={}, unheard=set(), silenced={2: 41},
                                 stalled_by=lambda: {2}, still_silent=lambda: {2})
    peer.absent = {2: 20.0}
    assert peer._vote_due() == -math.inf
    peer.table.silenced = {}
    assert peer._vote_due() == 200.0, "not timed out: the bot's own wait"
    peer.table.silenced, peer.absent, peer.stalling = {2: 41}, {}, {2: 20.0}
    assert peer._vote_due() == 200.0, "connected: only slow, maybe"
    peer.table.unheard = {2}
    assert peer._vote_due() == 20.0 + NEWCOMER_GRACE + 180.0
    peer.absent, peer.stalling = {2: 20.0}, {}
    assert peer._vote_due() == -math.inf


def test_a_claim_is_for_the_window_it_answered():
    """A claim chosen for one discard is not sent once that window has closed, even if a claim
    is legal again in the next window: the player chooses again."""
    import random

    from shanghai_net.bots import make_bot
    from shanghai_net.engine import LocalDealer, MayI, new_game, view_of
    from shanghai_net.table.stream import moment_passed
    from shanghai_net.rules import preset

    game = new_game(preset("davis"), 4, LocalDealer(3))
    bots = [make_bot("basic", random.Random(s)) for s in range(4)]

    def step():
        seat = game.to_move()[0]
        game.apply(bots[seat].choose(view_of(game, seat), list(game.legal_moves(seat))))

    while game.window is None or not any(isinstance(m, MayI) for s in game.window.undecided()
                                          for m in game.legal_moves(s)):
        step()
    window = game.window
    claimant = next(s for s in window.undecided() if MayI(s) in set(game.legal_moves(s)))
    assert moment_passed(game, MayI(claimant), window) is None
    while game.window is window or game.window is None:
        step()
    assert "closed" in moment_passed(game, MayI(claimant), window)


def test_start_game_must_carry_our_keys_and_the_keys_the_lobby_showed():
    import pytest

    from shanghai_net.identity import fingerprint
    from shanghai_net.table.start import check_keys
    from shanghai_net.wire.messages import DealerPick, PlayerSeat, StartGame

    me, other, impostor = (Identity(bytes([i] * 32), bytes([i + 1] * 32)) for i in (1, 3, 5))
    shown = {0: fingerprint(me.sign_public), 1: fingerprint(other.sign_public)}

    def start(seat0, seat1):
        return StartGame(game_id=bytes(16), host_nonce=bytes(32), nonces=(), preset="davis",
                         rules={}, claim_timeout=10.0, audit_timeout=60.0,
                         first_dealer_pick=DealerPick(method="coin_flip"),
                         seats=tuple(PlayerSeat(seat=s, name="x", sign_key=i.sign_public,
                                                box_key=i.box_public)
                                     for s, i in enumerate((seat0, seat1))))

    mine = me.sign_public, {me.box_public}
    check_keys(start(me, other), 0, *mine, shown)
    with pytest.raises(ValueError, match="does not give seat 0 our keys"):
        check_keys(start(impostor, other), 0, *mine, shown)
    with pytest.raises(ValueError, match="does not give seat 0 our keys"):  # not our box key
        check_keys(start(me, other), 0, me.sign_public, {other.box_public}, shown)
    with pytest.raises(ValueError, match="seat 1 a key the lobby did not show"):
        check_keys(start(me, impostor), 0, *mine, shown)
    check_keys(start(impostor, other), None, *mine, {})  # a spectator has no keys of its own


async def test_a_game_the_peer_cannot_play_is_a_clear_error_not_a_crash():
    import pytest

    from shanghai_net.net.peer import PeerError
    from shanghai_net.wire.messages import DealerPick, StartGame, game_id_of

    peer = Peer(("127.0.0.1", 9), Identity(bytes(32), bytes(32)), role="spectator")
    start = StartGame(game_id=game_id_of(bytes(32), ()), host_nonce=bytes(32), nonces=(),
                      preset="canasta", rules={}, seats=(), claim_timeout=10.0,
                      audit_timeout=60.0, first_dealer_pick=DealerPick(method="coin_flip"))
    with pytest.raises(PeerError, match="cannot play the game the host started"):
        await peer._on_message(None, start)


def test_a_person_may_vote_against_a_seat_away_or_silent_while_it_owes_the_deal():
    from shanghai_net.net.voting import STALL_VOTE

    peer = Peer(("127.0.0.1", 9), Identity(bytes(32), bytes(32)), BotPlayer())
    peer.table = SimpleNamespace(vacant={}, unheard=set(), stalled_by=lambda: {1, 2, 3},
                                 share_threshold=None, quitters=set, silenced={},
                                 idle_silenced=set())
    peer.absent = {1: 5.0, 4: 5.0}  # the links of seats 1 and 4 dropped at 5 s
    peer.stalling = {2: 10.0, 3: 30.0}  # seats 1, 2 and 3 owe the deal a step, silent since
    assert peer.holding_up(10.0 + STALL_VOTE - 0.1) == {1}
    assert peer.holding_up(10.0 + STALL_VOTE) == {1, 2}
    assert peer.holding_up(30.0 + STALL_VOTE) == {1, 2, 3}, "not seat 4: it owes nothing"
    peer.left = frozenset({4})
    assert peer.holding_up(30.0 + STALL_VOTE) == {1, 2, 3, 4}, "it left"


async def test_the_front_end_s_bye_chat_and_ready_on_a_lost_link_are_dropped_not_raised():
    """Issue 24: `q` `y` while "connection lost, retrying" raised the dead link's
    ClosedResourceError through the console (a traceback): between two attempts to reconnect
    the peer still holds the closed link; what the player says then is not sent, and says so."""
    import trio.testing

    from shanghai_net.net.peer_link import PeerLink, PeerResult

    peer = Peer(("127.0.0.1", 9), Identity(bytes(32), bytes(32)), BotPlayer())
    peer.seat = 0
    assert not await peer.say("hi")  # no connection yet
    ours, _ = trio.testing.memory_stream_pair()
    await ours.aclose()  # the host dropped us: the socket is closed
    peer._link = PeerLink(ours, PeerResult(None, None), timeout=1)
    await peer.leave()
    assert not await peer.say("are you there?") and not await peer.set_ready(True)


def scripted(peer: Peer, script: list[str]) -> list[str]:
    """Make ``peer``'s connections follow ``script``: each one is lost ("lost"), or gets in
    and is then lost ("in"); then the host refuses.  The details it shows, in order."""
    from shanghai_net.net.peer import PeerError
    from shanghai_net.net.peer_link import Lost

    shown: list[str] = []

    async def connection():
        await trio.lowlevel.checkpoint()
        if not script:
            raise PeerError("refused: the script is over")
        if script.pop(0) == "in":
            peer._welcomed = True
        raise Lost("the host went silent")

    peer._connection = connection
    peer._on_change = lambda: shown.append(peer.detail)
    return shown


async def test_a_peer_that_never_got_in_does_not_retry(autojump_clock):
    """Issue 24: `shanghai bot localhost:1` was silent for 2 min 31 s of retries: a host never
    reached is reported at once (retrying only makes sense once we were in)."""
    from shanghai_net.net.peer import PeerError

    peer = Peer(("127.0.0.1", 9), Identity(bytes(32), bytes(32)), BotPlayer())
    shown = scripted(peer, ["lost", "lost"])
    with pytest.raises(PeerError, match=r"went silent \(is a table hosted there\?\)"):
        await peer.run()
    assert peer.status == "failed" and shown == [peer.detail] and trio.current_time() == 0


async def test_the_retry_count_starts_afresh_once_the_peer_got_back_in(autojump_clock):
    """Issue 24: after a host crash and a good --resume, a second crash began at `attempt 6 of
    10`: the count of the attempts before the peer got back in carried over."""
    from shanghai_net.net.peer import PeerError

    peer = Peer(("127.0.0.1", 9), Identity(bytes(32), bytes(32)), BotPlayer(),
                retry_delays=(1.0,) * 10)
    peer.welcome = object()  # it sat at the table once
    shown = scripted(peer, ["lost", "lost", "lost", "in", "lost"])
    with pytest.raises(PeerError, match="script is over"):
        await peer.run()
    attempts = [re.search(r"attempt (\d+) of 10", d)[1] for d in shown if "attempt" in d]
    assert attempts == ["1", "2", "3", "1", "2"]


async def test_a_claim_dropped_on_its_way_out_is_chosen_again_at_once():
    """A seat's claim goes out on one discard; the turn moves on and a new claim window opens
    before the host sequenced it.  Its outbox drops the old claim when it next polls, and the
    peer asks its player again in the same breath: nothing else would wake it, and the host
    would wait for the seat until its claim timeout (issue 28: the conformance kit's peers sat
    out a ping interval after a SHANGHAI call that lost the race)."""
    from test_net_table import Table, open_window, signed
    from shanghai_net.engine.moves import Discard, PassClaim, TakeDiscard
    from shanghai_net.wire import messages as wm
    from shanghai_net.wire.state import State

    t = Table(4, seed=6)
    game = open_window(t)
    taker = game.turn  # takes the discard; the seat after it draws next, so claims nothing
    claimer = next(s for s in game.window.undecided() if s not in (taker, (taker + 1) % 4))
    t.boxes[claimer].push(t.seats[claimer].submit(PassClaim(claimer)), PassClaim(claimer))
    lost = t.boxes[claimer].poll()
    assert lost is not None and isinstance(lost.body, wm.PassClaim)  # on its way, never sequenced
    t.deliver(signed(t, taker, TakeDiscard(taker), t.host.chain.basis))
    discard = next(m for m in t.seats[taker].legal_moves() if isinstance(m, Discard))
    t.boxes[taker].push(t.seats[taker].submit(discard), discard)
    while (msg := t.boxes[taker].poll()) is not None or t.boxes[taker].busy:
        assert msg is not None, "the taker's discard is stuck"
        t.deliver(msg)
    window = t.seats[claimer].game.window
    assert window is not None and claimer in window.undecided()

    sent = []
    link = SimpleNamespace(conn=SimpleNamespace(our_state=State.GAME))

    async def send(msg):
        sent.append(msg)
    link.send = send
    player, told = BotPlayer(), []
    player.outcome = lambda move, why: told.append((move, why))
    peer = Peer(("127.0.0.1", 9), t.ids[claimer], player)
    peer.seat, peer.table, peer.outbox = claimer, t.seats[claimer], t.boxes[claimer]
    await peer._act(link)
    answers = [m for m in sent if isinstance(m, wm.GameMessage)
               and isinstance(m.body, (wm.PassClaim, wm.MayI))]
    assert len(answers) == 1 and answers[0].basis_seq == t.seats[claimer].chain.next_seq - 1
    assert t.boxes[claimer].dropped == [lost.body]
    assert told[:1] == [(PassClaim(claimer),
                         "the claim window it answered has closed: choose again")]
