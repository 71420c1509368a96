"""Whole networked games from the command line, as a user runs them; CI runs this after the tests
(`make accept-net`).  Issue 4 asks for whole games between 3, 4 and 8 peers and for the clients/
bot to play a whole game beside `shanghai bot` peers; a whole game is too long for the test suite
(tests/test_net_*.py play shortened ones), so here:

- `shanghai host --players 3 --bots 3 --no-console` (davis, seven rounds);
- `shanghai host --players 8 --bots 8 --no-console --preset marcelle` (the big table);
- `shanghai host --players 4 --bots 3 --no-console` with `clients/simple_bot.py` in the fourth seat.

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


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        host_game("three-peers", work, players=3, bots=3)
        host_game("eight-peers", work, players=8, bots=8, preset="marcelle")
        host_game("client-bot", work, players=4, bots=3, client=True)


if __name__ == "__main__":
    main()
