"""`shanghai verify`: a game recorded by a real host over sockets replays and audits clean, and
every kind of tampering with the record is named, at its seq, with the seat (or host) at fault.
The sample game in protocol/ verifies, and regenerating it gives the same bytes."""

from __future__ import annotations

import dataclasses
import importlib.util
import random
from pathlib import Path

import pytest
import trio

from shanghai_net.cli import main
from shanghai_net.engine.moves import DrawStock, PassClaim
from shanghai_net.table.bodies import deal_body, parse_deal
from shanghai_net.net.player import BotPlayer
from shanghai_net.net.transcript import read_transcript
from shanghai_net.table.disputes import Protested
from shanghai_net.table.verify import Finding, Report, verify
from shanghai_net.wire import GameMessage, encode_frame, sign_wire
from shanghai_net.wire.messages import HOST_AUTHOR, Ping, Timeout
from shanghai_net.wire.signing import chain_hash, start_digest

from test_net_game import play

PROTOCOL = Path(__file__).resolve().parent.parent / "protocol"
spec = importlib.util.spec_from_file_location("sample_game", PROTOCOL / "sample_game.py")
sample_game = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sample_game)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """One short game (one round, seven cards) between three bots over sockets, recorded by the
    host; seat 2 never claims, so the host's timeouts are in the record too.  The record, the
    host, and every author's signing key (to forge a record the signatures cannot tell)."""
    path = tmp_path_factory.mktemp("verify") / "game.bin"

    identities = {}

    async def record():
        with trio.fail_after(120):
            return await play(3, "davis", record=path, rules=sample_game.RULES, claim_timeout=0.1,
                              player={2: BotPlayer("basic", random.Random(7), claims=False)},
                              identities=identities)

    host, _, _ = trio.run(record)
    keys = {seat: identity.sign_key for seat, identity in identities.items()}
    keys[HOST_AUTHOR] = host.identity.sign_key
    return path, host, keys


def resigned(messages, index, body, keys):
    """The record with game message ``index`` (0: the first after start_game) given ``body``, and
    every message from there on placed again on the new chain (its moves' bases too) and signed
    again by its author: a record whose signatures and chain all check out."""
    start, game = messages[0], list(messages[1:])
    game[index] = dataclasses.replace(game[index], signed_body=body)
    digest = start_digest(start.to_wire())
    links = [digest]
    for msg in game[:index]:
        links.append(chain_hash(digest, links[-1], msg))
    for i in range(index, len(game)):
        msg = game[i]
        basis = None if msg.basis_seq is None else (msg.basis_seq, links[1 + msg.basis_seq])
        wire = sign_wire(keys[msg.author], digest, msg.author, msg.counter,
                         msg.body_wire, basis)
        game[i] = GameMessage.from_wire({**wire, "seq": msg.seq})
        links.append(chain_hash(digest, links[-1], game[i]))
    return [start, *game]


def find(messages, test):
    """Index (among the game messages) of the first one ``test`` picks."""
    return next(i for i, msg in enumerate(messages[1:]) if test(msg))


def write(path, messages):
    path.write_bytes(b"".join(encode_frame(msg.to_wire()) for msg in messages))
    return path


def test_a_recorded_game_verifies_with_its_summary(recorded, capsys):
    path, host, _ = recorded
    messages = read_transcript(path)
    report = verify(messages)
    result = host.public.public.result
    assert report.ok, report.fault
    assert report.messages == host.sequenced == len(messages) - 1
    assert report.moves == host.public.version and report.rounds == 1
    assert (report.totals, report.ranking) == (result.totals, result.ranking)
    assert report.faces >= 3 * 7  # at least every card dealt, shown by the round's end
    assert any(isinstance(m.body, Timeout) for m in messages[1:]), "no host timeout recorded"
    assert main(["verify", str(path)]) == 0
    out = capsys.readouterr().out
    assert "ok: every move and every deal checks out" in out
    names = [s.name for s in host.start.seats]
    assert "result: " + ", ".join(f"{names[s]} {result.totals[s]}" for s in result.ranking) in out


def test_a_flipped_signature_byte_names_the_seq_and_the_host(recorded, tmp_path, capsys):
    path, _, _ = recorded
    messages = read_transcript(path)
    index = find(messages, lambda m: m.body.KIND == "discard")
    msg = messages[1 + index]
    messages[1 + index] = dataclasses.replace(msg, sig=bytes([msg.sig[0] ^ 1]) + msg.sig[1:])
    report = verify(messages)
    assert (report.fault.seq, report.fault.culprit) == (msg.seq, HOST_AUTHOR)
    assert f"seat {msg.author}'s key" in report.fault.reason
    assert report.messages == msg.seq
    assert main(["verify", str(write(tmp_path / "flipped.bin", messages))]) == 1
    assert f"seq {msg.seq}: fault by the host" in capsys.readouterr().out


def test_a_dropped_message_breaks_the_chain_at_the_next_seq(recorded):
    messages = read_transcript(recorded[0])
    index = find(messages, lambda m: m.body.KIND == "draw_stock")
    report = verify(messages[:1 + index] + messages[2 + index:])
    assert (report.fault.seq, report.fault.culprit) == (index + 1, HOST_AUTHOR)
    assert "skips ahead" in report.fault.reason


def test_a_record_cut_short_is_not_a_verified_game(recorded):
    messages = read_transcript(recorded[0])
    report = verify(messages[:-1])
    assert not report.ok and report.fault.seq == len(messages) - 2
    assert report.fault.culprit is None and report.fault.ending
    assert report.summary().splitlines()[-1].startswith(
        f"the game is still going on at message {len(messages) - 2} (")


def test_a_changed_card_re_signed_is_an_illegal_move_of_its_author(recorded):
    """The first discard names another card, signed by its seat: the engine replica refuses it
    (the card its seat revealed before the move is another)."""
    _, _, keys = recorded
    messages = read_transcript(recorded[0])
    index = find(messages, lambda m: m.body.KIND == "discard")
    msg = messages[1 + index]
    body = {**msg.body_wire, "card": (msg.body.card + 1) % 104}
    report = verify(resigned(messages, index, body, keys))
    assert (report.fault.seq, report.fault.culprit) == (msg.seq, msg.author)
    assert f"seat {msg.author}" in report.fault.reason


def test_a_changed_pass_point_re_signed_is_named_by_the_round_audit(recorded):
    """Two points of the first pass swapped, the pass signed again by its seat: every later
    step still fits, so only the audit from the revealed seeds can tell, and it names the seat."""
    _, _, keys = recorded
    messages = read_transcript(recorded[0])
    start = messages[0]
    index = find(messages, lambda m: m.body.KIND == "deal" and m.body.step == "pass")
    msg = messages[1 + index]
    (output,) = parse_deal(msg.body, start.game_id, msg.author).messages
    points = list(output.points)
    points[0], points[1] = points[1], points[0]
    forged = dataclasses.replace(output, points=tuple(points))
    tampered = resigned(messages, index, deal_body(forged).to_wire(), keys)
    report = verify(tampered)
    last_seeds = max(m.seq for m in tampered[1:]
                     if m.body.KIND == "deal" and m.body.step == "seeds")
    assert (report.fault.seq, report.fault.culprit) == (last_seeds, msg.author)
    assert "audit" in report.fault.reason and "pass 1 output" in report.fault.reason
    assert (report.messages, report.voided) == (len(tampered) - 1, 1)
    assert "round 1 voided by its audit, which named a seat: not scored; the game ended there" \
        in report.summary().splitlines()


def test_a_box_altered_and_re_signed_by_its_sender_is_named_by_the_audit(recorded):
    """A sealed share whose box no longer opens, signed again by its sender: no one but its
    recipient could tell during play; the audit opens every box with its sender's seed and
    names the sender, at the message that completed the round's seeds."""
    _, _, keys = recorded
    messages = read_transcript(recorded[0])
    index = find(messages, lambda m: m.body.KIND == "deal" and m.body.step == "shares")
    msg = messages[1 + index]
    data = dict(msg.body_wire["data"])
    box = dict(data["boxes"][0])
    box["box"] = bytes(len(box["box"]))
    data["boxes"] = [box, *data["boxes"][1:]]
    tampered = resigned(messages, index, {**msg.body_wire, "data": data}, keys)
    report = verify(tampered)
    last_seeds = max(m.seq for m in tampered[1:]
                     if m.body.KIND == "deal" and m.body.step == "seeds")
    assert (report.fault.seq, report.fault.culprit) == (last_seeds, msg.author)
    assert f"seat {msg.author}: the box of positions" in report.fault.reason


def test_the_sample_game_verifies_and_regenerates_byte_for_byte():
    report = verify(read_transcript(sample_game.PATH))
    assert report.ok, report.fault
    assert report.rounds == 1 and report.names == sample_game.NAMES
    assert sample_game.record() == sample_game.PATH.read_bytes(), \
        "run: python protocol/sample_game.py"


def test_a_file_that_is_no_record_is_refused_clearly(tmp_path):
    path = tmp_path / "garbage.bin"
    path.write_bytes(b"\x00\x00\x00\x02\x91\x01")
    with pytest.raises(SystemExit) as info:
        main(["verify", str(path)])
    assert info.value.code == 2
    assert not verify([]).ok


def test_a_start_game_whose_rules_no_table_plays_is_the_host_s_fault():
    """The game id is the one its nonces make, but the rules the host signed play no game (a
    hand of -3 cards): the host is named, before any message is replayed."""
    messages = read_transcript(sample_game.PATH)
    start = dataclasses.replace(messages[0], rules={**messages[0].rules, "hand_size": -3})
    report = verify([start, *messages[1:]])
    assert (report.fault.seq, report.fault.culprit) == (None, HOST_AUTHOR)
    assert report.fault.reason.startswith("start_game: ") and "hand_size" in report.fault.reason


def test_a_message_that_is_no_game_message_in_a_record_is_the_host_s_fault():
    """A record holds the game's messages only: a ping recorded among them is named as the
    host's, at the seq where it stands."""
    messages = read_transcript(sample_game.PATH)
    report = verify([*messages[:5], Ping(nonce=bytes(8)), *messages[5:]])
    assert (report.fault.seq, report.fault.culprit) == (messages[4].seq + 1, HOST_AUTHOR)
    assert report.fault.reason == "a ping message in a game's record"
    assert (report.messages, report.moves) == (4, verify(messages[:5]).moves)


def test_a_second_game_in_one_file_is_named():
    """The first game is verified whole, and the report counts what of it was checked."""
    messages = read_transcript(sample_game.PATH)
    report = verify(messages + messages[:1])
    assert (report.fault.seq, report.fault.culprit) == (len(messages) - 1, HOST_AUTHOR)
    assert report.fault.reason == ("a second start_game: another game is recorded from here "
                                   "(one game a file)")
    whole = verify(messages)
    assert (report.messages, report.moves, report.rounds, report.faces) == \
        (len(messages) - 1, whole.moves, 1, whole.faces)


def test_a_record_that_does_not_begin_with_a_game_reports_nothing_checked():
    """The report of no game is still a report in figures (no None a reader must guard)."""
    report = verify([])
    assert report == Report(game_id=b"", names=(), preset="?", messages=0, moves=0, rounds=0,
                            faces=0, fault=Finding(None, HOST_AUTHOR, "the record does not "
                                                   "begin with start_game"))
    assert report.summary().splitlines()[1:] == [
        "checked 0 game messages: moves 0; rounds audited from their seeds 0; faces matched 0; "
        "moves replayed with every card known 0",
        "start_game: fault by the host: the record does not begin with start_game"]


def test_a_record_that_ends_before_its_game_says_how_far_the_deal_got():
    messages = read_transcript(sample_game.PATH)
    assert verify(messages[:1]).fault == Finding(0, None, "no round dealt yet", ending=True)
    assert verify(messages[:-1]).fault == Finding(len(messages) - 2, None,
                                                  "round 1 not audited yet", ending=True)


def test_the_summary_says_why_a_round_was_voided_and_every_round_the_table_voted_void():
    """What `shanghai verify` prints of a game that ended at an audit (naming a seat, or a fault
    it could pin on no seat) and of rounds voided by the table's vote."""
    messages = read_transcript(sample_game.PATH)
    report = verify(messages)
    for culprit, why in ((1, "its audit, which named a seat"),
                         (None, "its audit, which could name no seat")):
        ended = dataclasses.replace(report, voided=1, fault=Finding(99, culprit, "the reason"))
        assert f"round 1 voided by {why}: not scored; the game ended there" in \
            ended.summary().splitlines()
    claim, seeds = messages[22], messages[126]  # a pass_claim, a seeds step: the summary
    # reads only which of the two a protest shows
    protests = (Protested(1, 40, "early", None), Protested(2, 52, "on its way", claim),
                Protested(0, 60, "dropped", seeds))
    lines = dataclasses.replace(report, protests=protests).summary().splitlines()
    assert lines[2:5] == [
        "Bob protests the host's timeout at seq 40: early",
        "Cy protests the host's timeout at seq 52: on its way (with the claim it signed, which "
        "the host did not sequence)",
        "Ann protests the host's timeout at seq 60: dropped (with the seeds it signed, which "
        "the host did not sequence)"]
    for left, rounds in ((((1, 0), (2, 1)), "1 and 2"), (((1, 0), (2, 1), (4, 1)), "1, 2 and 4")):
        assert dataclasses.replace(report, left=left).summary().splitlines()[-1] == (
            f"ok: every move and the deal of every round scored check out; rounds {rounds} "
            "voided before their seeds were shown, so their deals were not audited")


def test_the_docs_show_the_sample_game_as_it_is():
    """protocol/sample_game.md quotes the verifier's summary; docs/protocol.md section 12
    annotates Ann's commitment, seq 6."""
    messages = read_transcript(sample_game.PATH)
    assert verify(messages).summary() in (PROTOCOL / "sample_game.md").read_text()
    commit = messages[1 + 6]
    assert (commit.author, commit.body.KIND, commit.body.step) == (0, "deal", "commit")
    digest, sig = commit.body.data["digest"].hex(), commit.sig.hex()
    doc = (PROTOCOL.parent / "docs" / "protocol.md").read_text()
    assert f"{digest[:8]}…{digest[-8:]}" in doc and f"{sig[:8]}…{sig[-8:]}" in doc


@pytest.mark.parametrize("signed", [True, False], ids=["re-signed seed", "seed changed on the way"])
def test_a_changed_seed_names_its_seat_or_the_relay(signed):
    """Bob's round-1 seed replaced in his seeds body (sample game, public test keys): signed
    again by him, the audit finds it does not match his commitment; changed after he signed,
    his game message's signature fails at that seq, and the record's keeper (the host) is
    named."""
    from shanghai_net.wire.examples import sign_key
    messages = read_transcript(sample_game.PATH)
    keys = {seat: sign_key(seat) for seat in range(3)}
    index = find(messages, lambda m: m.author == 1 and m.body.KIND == "deal"
                 and m.body.step == "seeds")
    msg = messages[1 + index]
    data = dict(msg.body_wire["data"])
    (item,) = data["seeds"]
    data["seeds"] = [{**item, "seed": bytes(32)}]
    body = {**msg.body_wire, "data": data}
    if signed:
        report = verify(resigned(messages, index, body, keys))
        assert report.fault.culprit == 1
        assert "seed does not match commitment" in report.fault.reason
    else:
        tampered = [*messages[:1 + index], dataclasses.replace(msg, signed_body=body),
                    *messages[2 + index:]]
        report = verify(tampered)
        assert (report.fault.seq, report.fault.culprit) == (msg.seq, HOST_AUTHOR)
        assert "signature" in report.fault.reason


class DrawsWhenItCouldPlay(BotPlayer):
    """A carousel seat that lies to its own replica about its hand ("it cannot play") and so
    draws or passes every turn, whatever it holds.  No one can tell during play: the host and
    the other seats do not see its hand."""

    def choose(self, table):
        table.game.can_play = lambda seat: False
        game = table.game
        return DrawStock(table.seat) if game.stock else PassClaim(table.seat)


async def test_a_carousel_seat_that_draws_when_it_could_play_is_named_once_the_round_opens(
        tmp_path):
    """Carousel's one rule on hidden cards (a seat that can play must) cannot be checked during
    play by anyone but the cheat; at the hand's end the seeds open every deck, every peer (and
    `verify`) replays the hand with every card known, and names the seat."""
    record = tmp_path / "carousel.bin"
    with trio.fail_after(120):
        host, tables, _ = await play(3, "carousel", rules={"target_score": 5}, seed=3,
                                     record=record,
                                     player={1: DrawsWhenItCouldPlay("basic", random.Random(1))})
    for party in (host.public, *tables.values()):  # the host and every seat name it alike
        assert party.verdict.culprit == 1 and "every card known" in party.verdict.reason
    report = verify(read_transcript(record))
    assert not report.ok and report.fault.culprit == 1, report.summary()
    assert "replayed with every card known" in report.fault.reason
    assert "you can play, so you must" in report.fault.reason


async def test_an_honest_carousel_game_replays_with_every_card_known(tmp_path):
    record = tmp_path / "carousel.bin"
    with trio.fail_after(120):
        await play(3, "carousel", rules={"target_score": 5}, seed=3, record=record)
    report = verify(read_transcript(record))
    assert report.ok and report.replayed == report.moves, report.summary()


def test_a_message_after_the_game_s_end_is_the_host_s_fault(recorded):
    record = recorded[0]
    messages = read_transcript(record)
    report = verify(messages + [messages[-1]])
    assert not report.ok and report.fault.culprit == HOST_AUTHOR
    assert "after the game's end" in report.fault.reason


def test_a_game_id_its_nonces_do_not_make_is_the_host_s_fault(recorded):
    messages = read_transcript(recorded[0])
    start = dataclasses.replace(messages[0], host_nonce=bytes(32))
    report = verify([start, *messages[1:]])
    assert (report.fault.seq, report.fault.culprit) == (None, HOST_AUTHOR)
    assert "the game id is not the one its nonces make" in report.fault.reason


def frame_ends(data):
    """Where each whole frame of a record ends."""
    ends, at = [], 0
    while at < len(data):
        at += 4 + int.from_bytes(data[at:at + 4], "big")
        ends.append(at)
    return ends


def test_a_record_torn_mid_frame_verifies_what_is_whole_and_says_where_it_stops(
        recorded, tmp_path, capsys):
    """Issue 24: a record cut mid-frame by a crash (as `--resume` takes it) was refused as
    `malformed_frame`.  Torn in a frame's header, in its body, a byte short of its end, and
    after the game's end: the whole messages are verified, and the last line says how many and
    that the rest was cut short, exit 1.  Torn in its first frame: one line, exit 2."""
    data = recorded[0].read_bytes()
    ends = frame_ends(data)
    middle = len(ends) // 2
    tears = {"a header": ends[middle] + 2, "a body": ends[middle] + 4 + 9,
             "the last byte": len(data) - 1, "the start of a message": ends[3] + 1}
    for where, at in tears.items():
        torn = write_bytes(tmp_path / "torn.bin", data[:at])
        whole = sum(1 for end in ends if end <= at) - 1  # game messages: start_game not counted
        assert main(["verify", str(torn)]) == 1, where
        out = capsys.readouterr().out
        last = out.splitlines()[-1]
        cut = at - max(e for e in ends if e <= at)
        assert last.startswith(f"torn in game message {whole + 1}: the host stopped while "
                               f"writing it, {cut} byte{'s' * (cut != 1)} into it; the {whole} "
                               f"whole game message{'s' * (whole != 1)} before it "
                               f"{'are' if whole != 1 else 'is'} kept and check"
                               f"{'s' * (whole == 1)} out, the game as far as it had got ("), \
            (where, last)
        assert "malformed" not in out and "bad frame" not in out
        assert f"checked {whole} game messages" in out
    after = write_bytes(tmp_path / "after.bin", data + data[:7])
    assert main(["verify", str(after)]) == 1
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == ("torn after the game's end: 7 bytes of a message cut short "
                                    "(the host stopped while writing it); the "
                                    f"{len(ends) - 1} whole game messages before it are kept "
                                    "and check out, the whole game")
    assert "result: " in out  # the game itself checked out
    for at in (2, ends[0] - 1):
        with pytest.raises(SystemExit) as info:
            main(["verify", str(write_bytes(tmp_path / "first.bin", data[:at]))])
        assert info.value.code == 2
        assert f"torn in its first message ({at} bytes, cut short): nothing to verify" in \
            capsys.readouterr().err


def test_a_torn_record_with_a_fault_before_the_tear_names_the_fault_first(recorded, tmp_path):
    path, _, _ = recorded
    messages = read_transcript(path)
    index = find(messages, lambda m: m.body.KIND == "discard")
    msg = messages[1 + index]
    messages[1 + index] = dataclasses.replace(msg, sig=bytes([msg.sig[0] ^ 1]) + msg.sig[1:])
    data = write(tmp_path / "flipped.bin", messages).read_bytes()
    torn = write_bytes(tmp_path / "both.bin", data[:-3])
    from shanghai_net.net.transcript import read_record

    report = verify(*read_record(torn))
    assert not report.ok and (report.fault.seq, report.fault.culprit) == (msg.seq, HOST_AUTHOR)
    last = report.summary().splitlines()[-1]
    assert last.startswith(f"seq {msg.seq}: fault by the host: ") and "torn" not in \
        last.partition("; ")[0], last
    cut = len(data) - 3 - frame_ends(data)[-2]
    assert last.endswith(f"; the record is also torn at its end: {cut} bytes of a message cut "
                         "short (the host stopped while writing it)"), last


def test_a_frame_longer_than_the_cap_is_no_torn_frame(recorded, tmp_path):
    data = recorded[0].read_bytes()
    broken = write_bytes(tmp_path / "long.bin", data[:frame_ends(data)[2]] + b"\xff\xff\xff\xff!")
    with pytest.raises(SystemExit) as info:
        main(["verify", str(broken)])
    assert info.value.code == 2


def write_bytes(path, data):
    path.write_bytes(data)
    return path


def test_a_host_resumed_from_a_torn_record_finds_its_bots_in_it(recorded, tmp_path, monkeypatch):
    """`host --resume` of a record torn by the crash starts its own bots again: it found none
    (the torn frame made the record unreadable to it), so their seats were never taken up."""
    from cryptography.hazmat.primitives import serialization

    from shanghai_net.cli.net import _bot_home, _bots_in
    from shanghai_net.identity import Identity

    path, _, keys = recorded
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    for seat in range(3):
        home = _bot_home(seat)
        home.mkdir(parents=True, mode=0o700)
        seed = keys[seat].private_bytes(serialization.Encoding.Raw,
                                        serialization.PrivateFormat.Raw,
                                        serialization.NoEncryption())
        (home / "identity").write_text(Identity(seed, bytes(32)).to_json())
        (home / "identity").chmod(0o600)
    data = path.read_bytes()
    assert _bots_in(path) == 3
    assert _bots_in(write_bytes(tmp_path / "torn.bin", data[:frame_ends(data)[5] + 11])) == 3


async def test_a_round_voided_by_vote_is_said_and_its_deal_not_called_audited(tmp_path):
    """Issue 24: a game with a round voided verified as "ok: every move and every deal checks
    out", though that round's deal was never audited.  Issue 22: the round is voided because
    a seat left (named), a stand-in plays the seat on (named, with its key), and the ok line
    says which round's deal was not audited."""
    from test_net_cheats import Stalling

    record = tmp_path / "voided.bin"
    with trio.fail_after(180):
        host, _, _ = await play(3, record=record, tables_by_seat={2: Stalling}, void_after=1.0,
                                rules={"contracts": [[2, 0]]})
    report = verify(read_transcript(record))
    assert report.ok and report.left == ((1, 2),) and report.scored == 1 and report.rounds == 1
    lines = report.summary().splitlines()
    assert lines[2] == ("round 1 voided by the table's vote: bot2 left it; not scored, the leaver "
                        "pays the leave penalty, the contract is dealt again")
    assert lines[3].startswith("seat 2 played by bot (bot, key ") and \
        lines[3].endswith(") from round 1 (dealt again)")  # issue 42: the deal after the void
    assert lines[-1] == ("ok: every move and the deal of every round scored check out; round 1 "
                         "voided before its seeds were shown, so its deal was not audited")
    assert "every deal checks out" not in report.summary()
