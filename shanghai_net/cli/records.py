"""The host's game records: where `host` keeps them by itself (the newest `KEEP_RECORDS` in the
data directory), what it says of its record, the check that a ``--record`` file holds no other
game, and ``shanghai verify FILE``, which replays and audits one."""

from __future__ import annotations

import argparse
import contextlib
import datetime
import os
from pathlib import Path

__all__ = ["KEEP_RECORDS", "data_dir", "new_record", "recording", "check_record",
           "add_verify_command"]


KEEP_RECORDS = 20
"""Transcripts `host` keeps in the data directory by itself (the oldest go first)."""


def data_dir() -> Path:
    """``$XDG_DATA_HOME/shanghai-net``, or ``~/.local/share/shanghai-net`` when it is unset."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(
        os.environ.get("HOME") or os.path.expanduser("~"), ".local", "share")
    return Path(base) / "shanghai-net"


def new_record() -> Path:
    """Where `host` records a game unless told otherwise: a new file in the data directory's
    ``records``, named by the time; of the games recorded there, the newest `KEEP_RECORDS` stay.
    An empty file holds no game (a lobby that never started, kept by an older version): it is
    removed, and counts for nothing."""
    from ..net.resume import StandInKeys

    records = data_dir() / "records"
    records.mkdir(parents=True, exist_ok=True)
    games = []
    for path in records.glob("*.bin"):
        with contextlib.suppress(FileNotFoundError):  # another host removed it meanwhile
            if (stat := path.stat()).st_size:
                games.append((stat.st_mtime, path.name, path))
            else:
                path.unlink()
    kept = [path for *_, path in sorted(games)]
    for old in kept[:max(0, len(kept) + 1 - KEEP_RECORDS)]:
        old.unlink(missing_ok=True)
        StandInKeys(old).forget()  # a game never resumed: its stand-ins' keys go with it
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S-%f")  # in the order they came
    record, more = records / f"{stamp}.bin", 1
    while record.exists():  # another game this microsecond
        more += 1
        record = records / f"{stamp}-{more}.bin"
    return record


def recording(record: Path | None) -> str:
    """What the host says of its transcript."""
    if record is None:
        return "not recording (--no-record): a crash cannot be taken up again"
    return f"recording to {record} (after a crash: shanghai host --resume {record})"


def check_record(record: Path | None, resume: Path | None) -> None:
    """A transcript holds one game: a non-empty ``--record`` file is written to only when it is
    the transcript being resumed (appending this game to another's would make both unreadable
    to ``shanghai verify`` and to ``--resume``)."""
    if record is None or not record.exists() or record.stat().st_size == 0:
        return
    if resume is not None and resume.exists() and record.samefile(resume):
        return
    raise ValueError(f"--record {record}: the file already holds a game; give a new file (or "
                     f"--resume {record} to go on with the game it holds)")

def _cmd_verify(args: argparse.Namespace) -> int:
    from ..wire import ProtocolError, StartGame
    from ..net.transcript import read_record
    from ..table.verify import verify

    try:
        messages, torn = read_record(Path(args.file))
    except (OSError, ProtocolError) as error:
        raise ValueError(f"{args.file}: not a readable record: {error}") from None
    if not messages and torn:
        raise ValueError(f"{args.file}: torn in its first message ({torn} bytes, cut short): "
                         "nothing to verify")
    if not messages or not isinstance(messages[0], StartGame):
        raise ValueError(f"{args.file}: not a record (it does not begin with start_game)")
    report = verify(messages, torn)
    print(report.summary())
    return 0 if report.ok else 1


def add_verify_command(sub, **options) -> None:
    """``shanghai verify FILE``."""
    verify = sub.add_parser("verify", help="replay and audit a recorded game (shanghai host "
                                           "--record): exit 0 if every move and deal checks out",
                            **options)
    verify.add_argument("file", metavar="FILE", help="the transcript `host --record` wrote")
    verify.set_defaults(func=_cmd_verify)
