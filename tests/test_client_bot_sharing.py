"""clients/simple_bot.py (written from the documents alone) speaks protocol version 10's
dropout-tolerant deal (docs/dealing.md, issue 38): at a table whose ``start_game`` sets
``share_threshold``, its seeds are scalars shared among the holders in its commits, it checks
the shares it is dealt, its seeds carry the shares it holds, and it follows R2 (a seat silent at
its seeds rebuilt from the shares).  Over real sockets beside our reference peers, and as a
replica of our in-process tables."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import trio

from shanghai_net.conformance.kit import Pushy
from shanghai_net.deal import seeded
from shanghai_net.deal.messages import Context
from shanghai_net.deal.picks import seed_nonce
from shanghai_net.deal.sharing import deal_seed, seed_scalar
from shanghai_net.engine import Phase
from shanghai_net.net.transcript import read_transcript
from shanghai_net.table.verify import verify
from shanghai_net.wire.messages import Deal, Timeout

from test_client_bot import THREE_ROUNDS, client_start, game_with_the_client, load_client
from dropout_helpers import dealing
from test_table_dropout_silent import (parties, seat_playing, shared, silent_at_first_audit,
                                       wrong_share_of)
from test_table_silence import follow, simple_bot_follower

CLIENTS = Path(__file__).resolve().parent.parent / "clients"


def sharing_module():
    """clients/simple_bot_sharing.py, as simple_bot imports it."""
    load_client()  # puts clients/ on the path
    import simple_bot_sharing
    return simple_bot_sharing


def test_the_client_s_sharing_is_byte_for_byte_the_reference_s():
    """The commit's commitments and share boxes, the rebuilt seed and a pick's nonce from the
    seed, as the bot derives them from docs/dealing.md, are our deal layer's."""
    bot = load_client()
    sharing = sharing_module()
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
    from shanghai_net.deal.box import raw_public

    rnd = seeded(b"client sharing bytes")
    ctx = Context(rnd(16), 3, 1)
    assert bot.context(ctx.game_id, 3, 1) == ctx.encode()
    keys = {j: X25519PrivateKey.from_private_bytes(rnd(32)) for j in (0, 1, 3, 4)}
    seed = seed_scalar(rnd)
    feldman, boxes = deal_seed(ctx, 2, seed, 3, {j: k.public_key() for j, k in keys.items()})
    mine = sharing.commit_sharing(ctx.encode(), 2, 3, seed,
                                  {j: raw_public(k.public_key()) for j, k in keys.items()})
    assert mine["feldman"] == list(feldman)
    assert [(e["to"], e["epk"], e["box"]) for e in mine["shares"]] == \
        [(b.holder, b.epk, b.box) for b in boxes]
    from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat
    held = {}
    for entry in mine["shares"]:
        key = keys[entry["to"]]
        secret = key.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
        held[entry["to"]] = sharing.open_share(ctx.encode(), 2, entry["to"], 3, entry,
                                               mine["feldman"], secret,
                                               raw_public(key.public_key()))
    assert None not in held.values()
    assert sharing.seed_from_shares(dict(list(held.items())[1:])) == seed
    assert sharing.pick_nonce(ctx.encode(), 2, 7, seed) == seed_nonce(ctx, 2, 7, seed)
    wrong = dict(mine["shares"][0], box=bytes(48))
    assert sharing.open_share(ctx.encode(), 2, 0, 3, wrong, mine["feldman"], secret,
                              raw_public(key.public_key())) is None


@pytest.mark.parametrize("client_seat,seed", [(1, 11)])
async def test_the_client_bot_plays_a_whole_game_with_sharing_on(client_seat, seed, tmp_path):
    """Three reference peers and simple_bot, every seed shared (t = 3 of 4 holders): the game is
    played to its end over real sockets, and every round's audit (the sharing of every commit,
    the shares in every seeds, the nonces of the picks read from the seeds) is clean at every
    seat, at the host and in ``verify``."""
    record = tmp_path / "game.transcript"
    with trio.fail_after(300):
        host, tables, process = await game_with_the_client(
            client_seat, seed, THREE_ROUNDS, record, player=lambda i: Pushy(random.Random(i)),
            sharing=3)
    log = process.stderr.decode()
    public = host.public
    assert host.start.share_threshold == 3
    assert public.fault is None, public.fault
    assert public.finished and public.public.phase is Phase.OVER
    for seat, table in tables.items():
        assert table.fault is None and table.finished, (seat, table.fault)
        assert all(table.verdicts[r].clean for r in range(1, 4)), (seat, table.verdicts)
    messages = read_transcript(record)
    report = verify(messages)
    assert report.ok, report.summary()
    ours = [m.body.data for m in messages[1:] if m.author == client_seat
            and isinstance(m.body, Deal) and m.body.step in ("commit", "seeds")]
    commits = [d for d in ours if "digest" in d]
    assert commits and all(len(d["feldman"]) == 3 and [b["to"] for b in d["shares"]] ==
                           [s for s in range(4) if s != client_seat] for d in commits)
    seeds = [d for d in ours if "seeds" in d]
    assert len(seeds) == 3 and all(len(d["shares"]) == 3 * len(d["seeds"]) for d in seeds)
    picks = [m.body.data for m in messages[1:] if m.author == client_seat
             and isinstance(m.body, Deal) and m.body.step == "pick_reveal"
             and m.body.data["round"] > 0]
    assert picks, "no SHANGHAI call on the client's discard: no nonce read from its seed"
    assert not [m for m in messages[1:] if isinstance(m.body, Timeout)]
    assert process.returncode == 0, log


def bot_replica_after_the_audit(t):
    """simple_bot's replica of ``t``'s game (a follower: no seat), brought the stream up to the
    first audit's end."""
    replica = simple_bot_follower(t.host.start_game)
    follow(replica, t.stream, 0)
    return replica


def test_the_client_s_replica_rebuilds_a_seat_silent_at_its_seeds_and_the_round_stands():
    """R2: seat 2's seeds never come; the replica rebuilds it from the shares in the others'
    seeds, as every reference party does: nobody pays, the round is scored, the game goes on;
    and it follows the rest of the game to the same totals."""
    t = shared()
    silent_at_first_audit(t, 2)
    assert all(party.verdict is None and party.left == [] for party in parties(t))
    replica = bot_replica_after_the_audit(t)
    assert replica.verdict == "" and not replica.finished
    assert replica.scores == list(t.host.public.scores) and replica.round_no == 2
    assert replica.voided == set() and replica.silenced == set()
    read = len(t.stream)
    t.run_until(lambda: t.host.finished)
    follow(replica, t.stream, read)
    assert replica.finished and replica.scores == list(t.host.public.result.totals)


def test_the_client_s_replica_names_a_wrong_share_in_seeds_that_would_rebuild_a_silent_seat():
    t = shared(kinds={3: wrong_share_of(2)})
    silent_at_first_audit(t, 2)
    assert all(party.verdict.culprit == 3 for party in parties(t))
    replica = bot_replica_after_the_audit(t)
    assert replica.finished and replica.verdict.startswith("round 1: seat 3: its share of seat "
                                                           "2's seed of generation 0 is off")
    assert replica.scores == [0] * 4  # the round is void and the game over


def test_the_client_s_replica_names_a_silent_seat_whose_rebuilt_seed_is_off_its_commitment():
    other = seat_playing(dealing(secret=lambda self, g: seed_scalar(seeded(b"another"))))
    t = shared(kinds={2: other})
    silent_at_first_audit(t, 2)
    assert all(party.verdict.culprit == 2 for party in parties(t))
    replica = bot_replica_after_the_audit(t)
    assert replica.finished and replica.verdict.startswith(
        "round 1: seat 2: its seed of generation 0, rebuilt from its shares, is not on its "
        "commitment")


def test_below_t_shares_the_client_s_replica_charges_the_silent_seats_as_in_version_9():
    t = shared()
    silent_at_first_audit(t, 1, 2)
    replica = bot_replica_after_the_audit(t)
    assert {seat for _, seat in t.host.left} == {1, 2}  # both pay; the round is dealt again
    assert not replica.finished and len(replica.voided) == 2 and replica.verdict == ""
    assert replica.scores == list(t.host.public.scores)


def sharing_start(t=3, host_run=()):
    """A davis start_game of four seats, as the client's Table reads it, sharing seeds."""
    keys, start = client_start(4)
    for entry in start["seats"]:
        if entry["seat"] in host_run:
            entry["host_run"] = True
    return keys, {**start, "share_threshold": t}


@pytest.mark.parametrize("t, host_run, why", [
    (2, (), "share_threshold 2 is not one 4 holders can bear"),
    (4, (), "share_threshold 4 is not one 4 holders can bear"),
    (3, (3,), "share_threshold 3 is not one 3 holders can bear"),
    (2, (0,), "marks our seat 0 host_run"),
])
def test_the_client_refuses_a_threshold_its_holders_cannot_bear_or_its_seat_marked_host_run(
        t, host_run, why):
    """docs/dealing.md, "Version 10 messages": floor(h/2)+1 <= t <= h-1 over the h seats not
    host_run; and the host did not start this client."""
    bot = load_client()
    keys, start = sharing_start(t, host_run)
    rnd = seeded(b"client threshold")
    with pytest.raises(bot.BotStopped, match=why):
        bot.Table(start, 0, rnd(32), rnd(32), rnd, keys[0])
    if host_run == (3,):
        table = bot.Table({**start, "share_threshold": 2}, 0, rnd(32), rnd(32), rnd, keys[0])
        assert table.share_holders() == [0, 1, 2]  # the host's seat holds no share


def test_the_client_refuses_a_start_game_whose_sharing_is_not_what_the_lobby_showed():
    bot = load_client()
    _, start = sharing_start(3)
    seat = bot.Seat.__new__(bot.Seat)  # no socket: only its check of the start is looked at
    seat.shown = {"type": "lobby_state", "seats": [{"seat": s} for s in range(4)],
                  "share_threshold": 3}
    seat.as_shown(start)
    with pytest.raises(bot.BotStopped, match="not what the lobby showed"):
        seat.as_shown({**start, "share_threshold": None})
    seat.shown["seats"][2]["host_run"] = True
    with pytest.raises(bot.BotStopped, match=r"seats \[2\]"):
        seat.as_shown(start)


def test_the_client_names_a_host_that_sequences_r1_s_steps_where_they_have_no_place():
    """protocol.md 11.10: with no seat lost, a ``"shares"`` or ``"vote"`` timeout names the
    host, and so does a ``share_reveal`` the host sequenced."""
    bot = load_client()
    keys, start = sharing_start(3)
    rnd = seeded(b"client r1 off")
    table = bot.Table(start, 0, rnd(32), rnd(32), rnd, keys[0])
    with pytest.raises(bot.BotStopped, match="timed out seat 1's shares, which no lost seat"):
        table.apply(20, 8, {"kind": "timeout", "seat": 1, "what": "shares"})
    with pytest.raises(bot.BotStopped, match="timed out the vote on seat 1, which had no place"):
        table.apply(20, 8, {"kind": "timeout", "seat": 1, "what": "vote"})
    with pytest.raises(bot.BotStopped, match="share_reveal for seat 2, which it does not owe"):
        table.apply(21, 1, {"kind": "deal", "step": "share_reveal",
                            "data": {"round": table.round_no, "seat": 2, "shares": []}})


def test_the_client_votes_at_once_against_a_seat_whose_leave_is_sequenced():
    """Version 10's ``leave`` (a seat's last message): the client votes that seat gone at once,
    whatever the lobby says, and names a host that relays a later message of its key; the
    leave is no sign of life: a silent seat stays silent."""
    bot = load_client()
    keys, start = client_start(4)
    rnd = seeded(b"client leave")
    seat = bot.Seat.__new__(bot.Seat)  # no socket: only its vote is looked at
    table = seat.table = bot.Table(start, 0, rnd(32), rnd(32), rnd, keys[0])
    seat.log, seat.vote_after, seat.away, seat.left = lambda text: None, 180.0, {}, set()
    table.silent[3] = 30
    table.apply(40, 3, {"kind": "leave"})
    assert table.quit == {3} and table.silent == {3: 30}
    seat.consider_vote()
    assert table.vote == (table.round_no, 3)
    with pytest.raises(bot.BotStopped, match="seat 3, whose player left"):
        table.apply(41, 3, {"kind": "draw_stock"})


def test_the_client_s_sharing_reproduces_the_protocol_s_vectors():
    """protocol/vectors/sharing.json (4 seats, ``t = 3``): from each dealer's 64 random bytes
    the bot draws its seed and builds its commit's body byte for byte; it rebuilds seat 1's seed
    from the three published shares, and reads a pick's nonce from a seed."""
    import json

    from test_client_bot import BOT

    bot = load_client()
    sharing = sharing_module()
    vectors = json.loads((BOT.parent.parent / "protocol" / "vectors" / "sharing.json").read_text())

    def unbin(value):
        if isinstance(value, dict):
            return bytes.fromhex(value["$bin"]) if set(value) == {"$bin"} else \
                {k: unbin(v) for k, v in value.items()}
        return [unbin(v) for v in value] if isinstance(value, list) else value

    ctx, t = bytes.fromhex(vectors["context"]["ctx"]), vectors["share_threshold"]
    keys = {b["seat"]: bytes.fromhex(b["box_key"]) for b in vectors["box_keys"]}
    seeds = {}
    for dealer in vectors["dealers"]:
        d = dealer["dealer"]
        seeds[d] = sharing.seed_scalar(lambda n: bytes.fromhex(dealer["random_64"]))
        assert seeds[d].hex() == dealer["seed"]
        body = unbin(dealer["commit_body"])
        built = {"round": vectors["context"]["round"], "generation": 0,
                 "digest": bot.seed_commitment(ctx, d, seeds[d]),
                 **sharing.commit_sharing(ctx, d, t, seeds[d],
                                          {h: key for h, key in keys.items() if h != d})}
        assert built == body["data"], d
    rebuild = vectors["rebuild"]
    used = {p["holder"]: bytes.fromhex(p["share"]) for p in rebuild["published"]}
    assert sharing.seed_from_shares(used) == seeds[rebuild["seat"]]
    pick = vectors["pick_nonce"]
    assert sharing.pick_nonce(bytes.fromhex(pick["ctx"]), pick["seat"], pick["pick"],
                              bytes.fromhex(pick["seed"])).hex() == pick["nonce"]
