"""Issue 41, a newcomer's evening: the host's records and what ``shanghai verify`` says of them.
A lobby that never started left an empty record that counted against the twenty kept; a game
still being played was "fault by unknown"; a game whose every round was voided was said to
have "the deal of every round scored" checked."""

from __future__ import annotations

import dataclasses
import os

import trio

from shanghai_net.cli import main
from shanghai_net.cli.records import KEEP_RECORDS, new_record
from shanghai_net.identity import Identity
from shanghai_net.net.host import HostConfig
from shanghai_net.net.resume import StandInKeys
from shanghai_net.net.tables import TableServer
from shanghai_net.net.transcript import read_transcript
from shanghai_net.table.secret import SeatSecret
from shanghai_net.table.verify import verify
from shanghai_net.wire import encode_frame

from test_verify import sample_game


async def test_a_lobby_whose_game_never_starts_leaves_no_record(tmp_path):
    record = tmp_path / "game.bin"
    server = TableServer(HostConfig(players=3, record=record), ["kitchen"])
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            await nursery.start(server.run, listeners)
            assert server.first_host.start is None
            nursery.cancel_scope.cancel()  # the host closes with its lobby still waiting
    assert not record.exists()


def test_empty_records_are_removed_and_do_not_count_against_those_kept(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    records = tmp_path / "shanghai-net" / "records"
    records.mkdir(parents=True)
    games = []
    for i in range(KEEP_RECORDS - 1):
        games.append(records / f"game{i:02}.bin")
        games[-1].write_bytes(b"a game")
        os.utime(games[-1], (1000 + 2 * i, 1000 + 2 * i))
        lobby = records / f"lobby{i:02}.bin"  # an older version's lobby that never started
        lobby.touch()
        os.utime(lobby, (1001 + 2 * i, 1001 + 2 * i))
    record = new_record()
    assert sorted(records.iterdir()) == games  # every game kept: the new one is the twentieth
    record.write_bytes(b"a game")
    StandInKeys(games[0]).keep(Identity(bytes(32), bytes(32)), SeatSecret(bytes(32)))
    new_record()
    assert sorted(records.iterdir()) == sorted(games[1:] + [record])  # now the oldest goes,
    # and the keys its host kept for its stand-ins with it


def write_frames(path, messages):
    path.write_bytes(b"".join(encode_frame(m.to_wire()) for m in messages))
    return path


def test_a_game_still_being_played_is_said_to_be_going_on_at_its_message(tmp_path, capsys):
    messages = read_transcript(sample_game.PATH)
    for shown in (1, 40):
        assert main(["verify", str(write_frames(tmp_path / "live.bin", messages[:shown]))]) == 1
        out = capsys.readouterr().out
        assert "fault" not in out
        played = shown - 1  # game messages after start_game
        assert out.splitlines()[-1] == (
            f"the game is still going on at message {played} ("
            + ("no round dealt yet" if not played else "round 1 not audited yet")
            + "): every message so far checks out")


def test_a_game_whose_every_round_was_voided_is_not_said_to_have_rounds_scored():
    report = dataclasses.replace(verify(read_transcript(sample_game.PATH)), scored=0)
    for left, rounds in ((((1, 0),), "round 1 was"), (((1, 0), (2, 1)), "rounds 1 and 2 were")):
        lines = dataclasses.replace(report, left=left).summary().splitlines()
        assert lines[-2:] == [
            "no result: no round was scored, so nobody won",
            f"ok: every move checks out; no round was scored: {rounds} voided before the seeds "
            "were shown, so no deal was audited"]
