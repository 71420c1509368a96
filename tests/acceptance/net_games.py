"""Whole networked games from the command line, as a user runs them; CI runs this after the tests
(`make accept-net`).  Issue 4 asks for whole games between 3, 4 and 8 peers and for the clients/
bot to play a whole game beside `shanghai bot` peers; a whole game is too long for the test suite
(tests/test_net_*.py play shortened ones), so here:

- `shanghai host --players 3 --bots 3 --no-console` (davis, seven rounds);
- `shanghai host --players 8 --bots 8 --no-console --preset marcelle` (the big table);
- `shanghai host --players 4 --bots 3 --no-console` with `clients/simple_bot.py` in the fourth seat;
- `shanghai host --players 4 --bots 0 --no-console --sharing default` with four `shanghai bot`
  processes, one killed with SIGKILL in round 2 (issue 22: the game goes on with a stand-in;
  issue 38: sharing on, the seat is lost and rebuilt and its stand-in plays its hand on).

Each host must exit 0 ("game over"), the client bot too, and `shanghai verify` must accept each
transcript.  Each game gets its own config directory and a port the host picks (read from its
first line of output).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHANGHAI = [sys.executable, "-m", "shanghai_net.cli"]


def host_game(name: str, work: Path, players: int, bots: int, preset: str = "davis",
              client: bool = False) -> None:
    record = work / f"{name}.transcript"
    env = {**os.environ, "XDG_CONFIG_HOME": str(work / f"{name}-config")}
    started = time.monotonic()
    host = subprocess.Popen(
        SHANGHAI + ["host", "--port", "0", "--bind", "127.0.0.1", "--players", str(players),
                    "--bots", str(bots), "--preset", preset, "--no-console",
                    "--record", str(record)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    first = host.stdout.readline()
    port = re.search(r"on port (\d+)", first)
    if port is None:
        host.kill()
        raise SystemExit(f"{name}: the host did not say its port: {first!r}")
    bot = None
    if client:
        bot = subprocess.Popen([sys.executable, "clients/simple_bot.py",
                                f"127.0.0.1:{port.group(1)}", "--name", "stranger"],
                               cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True)
    out, err = host.communicate(timeout=1200)
    if host.returncode != 0 or "game over:" not in out:
        raise SystemExit(f"{name}: the host exited {host.returncode}\n{first}{out}{err}")
    if bot is not None:
        said, _ = bot.communicate(timeout=60)
        if bot.returncode != 0:
            raise SystemExit(f"{name}: clients/simple_bot.py exited {bot.returncode}\n{said}")
    verdict = subprocess.run(SHANGHAI + ["verify", str(record)], capture_output=True, text=True,
                             cwd=ROOT)
    if verdict.returncode != 0:
        raise SystemExit(f"{name}: shanghai verify refused the transcript\n{verdict.stdout}")
    print(f"{name}: {out.strip().splitlines()[-1]} ({time.monotonic() - started:.0f} s); "
          f"verify: {verdict.stdout.strip().splitlines()[-1]}", flush=True)


def round_of(record: Path) -> int:
    """The deal round the game recorded in ``record`` has reached so far (0: none yet)."""
    from shanghai_net.net.transcript import read_transcript
    from shanghai_net.table.public import PublicTable

    try:
        messages = read_transcript(record)
    except (OSError, ValueError):
        return 0
    if not messages:
        return 0
    table = PublicTable(messages[0])
    for msg in messages[1:]:
        table.receive(msg)
    return table.round


def lost_seat_game(work: Path) -> None:
    """Issues 22 and 38: four separate `shanghai bot` processes, sharing on; one is killed with
    SIGKILL once round 2 is dealt.  The others vote it gone, it is lost and rebuilt with the
    round going on (R1: not void), the host's stand-in bot plays its hand on in that round,
    and all seven contracts are played; `shanghai verify` accepts the record and names who
    played the seat."""
    name = "lost-seat"
    record = work / f"{name}.transcript"
    env = {**os.environ, "XDG_CONFIG_HOME": str(work / f"{name}-config")}
    started = time.monotonic()
    host = subprocess.Popen(
        SHANGHAI + ["host", "--port", "0", "--bind", "127.0.0.1", "--players", "4", "--bots",
                    "0", "--no-console", "--sharing", "default", "--record", str(record)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    first = host.stdout.readline()
    port = re.search(r"on port (\d+)", first)
    if port is None:
        host.kill()
        raise SystemExit(f"{name}: the host did not say its port: {first!r}")
    bots = [subprocess.Popen(SHANGHAI + ["bot", f"127.0.0.1:{port.group(1)}", "--name",
                                         f"bot{i}", "--think", "0", "--void-after", "3"],
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, cwd=ROOT) for i in range(4)]
    while round_of(record) < 2:
        if host.poll() is not None or time.monotonic() - started > 600:
            raise SystemExit(f"{name}: the game never reached round 2\n{host.stderr.read()}")
        time.sleep(0.5)
    bots[2].kill()
    out, err = host.communicate(timeout=1200)
    if host.returncode != 0 or "game over:" not in out:
        raise SystemExit(f"{name}: the host exited {host.returncode}\n{first}{out}{err}")
    for i in (0, 1, 3):
        said, _ = bots[i].communicate(timeout=60)
        if bots[i].returncode != 0:
            raise SystemExit(f"{name}: bot{i} exited {bots[i].returncode}\n{said}")
    verdict = subprocess.run(SHANGHAI + ["verify", str(record)], capture_output=True, text=True,
                             cwd=ROOT)
    if verdict.returncode != 0 or "voided" in verdict.stdout or \
            "played by bot" not in verdict.stdout:
        raise SystemExit(f"{name}: shanghai verify\n{verdict.stdout}")
    played_on = lost_and_played_on(record, "bot2")
    if played_on is not None:
        raise SystemExit(f"{name}: {played_on}")
    print(f"{name}: {out.strip().splitlines()[-1]} ({time.monotonic() - started:.0f} s); "
          f"verify: {verdict.stdout.strip().splitlines()[-1]}", flush=True)


def lost_and_played_on(record: Path, name: str) -> str | None:
    """None if ``name``'s seat was lost in round 2 (R1, no round void) and its replacement
    then played its hand in that round (a discard of the seat before the round ended); else
    what was seen instead."""
    from shanghai_net.engine.events import Discarded, RoundEnded, RoundVoided, SeatLost
    from shanghai_net.net.transcript import read_transcript
    from shanghai_net.table.public import PublicTable

    messages = read_transcript(record)
    table = PublicTable(messages[0])
    for msg in messages[1:]:
        table.receive(msg)
    seat = next(s.seat for s in messages[0].seats if s.name == name)
    log = table.public.log
    lost = [i for i, e in enumerate(log) if isinstance(e, SeatLost)]
    if [(log[i].round_no, log[i].seat) for i in lost] != [(2, seat)] or \
            any(isinstance(e, RoundVoided) for e in log):
        return f"not seat {seat} alone lost in round 2, the round going on: {table.lost}, " \
               f"left {table.left}"
    after = log[lost[0]:]
    end = next((i for i, e in enumerate(after) if isinstance(e, RoundEnded)), len(after))
    if not any(isinstance(e, Discarded) and e.seat == seat for e in after[:end]):
        return f"seat {seat}'s replacement never played its hand in round 2"
    return None


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        host_game("three-peers", work, players=3, bots=3)
        host_game("eight-peers", work, players=8, bots=8, preset="marcelle")
        host_game("client-bot", work, players=4, bots=3, client=True)
        lost_seat_game(work)


if __name__ == "__main__":
    main()
