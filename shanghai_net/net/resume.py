"""The per-game secrets a seat keeps on disk, so that it can rejoin after a crash, and never uses
for another game.

A seat's deal secrets (seeds, pick nonces, proof blinds) all come from a key derived from a
32-byte secret (`table.secret.SeatSecret`), bound to the game's id and to the digest of its
``start_game`` (`deal.randomness.chained`), so a restarted peer that replays the game's messages
from the start computes exactly the steps it had sent, and can go on.  The secret leaves this
machine only sealed to a successor the player hands the seat to; a successor keeps the secrets
it was handed before its own (the seat's earlier rounds were drawn from them).  They are written
(and flushed to disk) with that digest before the first step of the game is sent.

A secret serves one start only: a fresh ``start_game`` for a game id this machine already holds
a secret for is refused (a host reusing an id would otherwise have the seat draw again the seeds
it showed at the end of a round of the first game), and a rejoin must bring the same start.
A secret is deleted when its game is over (ended or voided); the secret of a game that stopped
otherwise is kept for ``max_age`` seconds after its last use (48 hours), so that its seat can
still rejoin a host resumed from its transcript, and swept by the first store opened or used
after that.

Beside each secret, the seat's trail in its game (`KeptTrail`): where each of its messages was
sequenced.  A host that rolls the game back to before one of them, or shows another history at
its seq, must not have the seat draw again from the same chain head (the same seed, the same
permutation, which the other history may have seen used or opened): `table.outbox.Outbox`
refuses, naming the host.

A host keeps its stand-ins' keys the same way, beside the game's transcript (`StandInKeys`), so
that a host resumed from the transcript starts them again in their seats.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import Callable

from ..identity import Identity, IdentityError
from ..table.secret import SECRET_BYTES, SeatSecret

__all__ = ["GameSecrets", "KeptTrail", "ReusedGame", "StandInKeys", "MAX_AGE"]

DIGEST_BYTES = 32
MAX_AGE = 48 * 3600.0
"""Seconds a stopped game's secret is kept after its last use."""


class ReusedGame(ValueError):
    """The host started a game under an id this machine holds the secret of another start for."""


class GameSecrets:
    """Secrets by game id in ``directory`` (e.g. ``identity.config_dir() / "games"``): each
    file holds the secret and the digest of the ``start_game`` it belongs to.  ``now``: the
    wall clock the age of a kept secret is measured with (seconds, as file times are)."""

    def __init__(self, directory: Path, *, max_age: float = MAX_AGE,
                 now: Callable[[], float] = time.time) -> None:
        self.directory = Path(directory)
        self.max_age = max_age
        self._now = now
        self.sweep()

    def _path(self, game_id: bytes) -> Path:
        return self.directory / f"{game_id.hex()}.secret"

    def kept(self, game_id: bytes, start_digest: bytes) -> list[SeatSecret] | None:
        """The seat's secrets in the game of this very start (`keep`), or None if none are
        kept here.  `ReusedGame` when the kept ones belong to another start of this id."""
        self.sweep()
        path = self._path(game_id)
        try:
            kept = path.read_bytes()
        except FileNotFoundError:
            return None
        if len(kept) < SECRET_BYTES + DIGEST_BYTES or len(kept) % SECRET_BYTES:
            raise ValueError(f"{path} is damaged or of an older version ({len(kept)} bytes)")
        secrets, digest = kept[:-DIGEST_BYTES], kept[-DIGEST_BYTES:]
        if digest != start_digest:
            raise ReusedGame(f"game id {game_id.hex()} is already in use here for another "
                             "start_game: the host is reusing a game id")
        used = self._now()
        os.utime(path, (used, used))  # in use: not to be swept
        return [SeatSecret(secrets[i:i + SECRET_BYTES]) for i in range(0, len(secrets),
                                                                        SECRET_BYTES)]

    def keep(self, game_id: bytes, start_digest: bytes, secrets: list[SeatSecret]) -> None:
        """Keep the seat's ``secrets`` for the game of this start (flushed to disk before it
        returns): its own, after those of the holders it took the seat over from."""
        self._keep(self._path(game_id), b"".join(s.value for s in secrets) + start_digest)

    def _keep(self, path: Path, data: bytes) -> None:
        _keep_private(path, data)

    def trail(self, game_id: bytes) -> KeptTrail:
        """Where this seat's messages of the game were sequenced, as kept here."""
        return KeptTrail(self._path(game_id).with_suffix(".trail"))

    def forget(self, game_id: bytes) -> None:
        """The game is over (ended or voided): its secret has no more use."""
        self._path(game_id).unlink(missing_ok=True)
        self._path(game_id).with_suffix(".trail").unlink(missing_ok=True)

    def sweep(self) -> list[bytes]:
        """Delete the secrets (and torn writes) not used for ``max_age`` seconds: their games
        stopped without an end and will not be resumed.  The ids of the games swept."""
        swept = []
        try:
            entries = list(os.scandir(self.directory))
        except FileNotFoundError:
            return swept
        limit = self._now() - self.max_age
        for entry in entries:
            name, _, suffix = entry.name.partition(".")
            if suffix in ("secret", "trail", "tmp") and _is_game_id(name) and \
                    entry.stat().st_mtime < limit:
                os.unlink(entry.path)
                if suffix == "secret":
                    swept.append(bytes.fromhex(name))
        return swept


class KeptTrail:
    """Where each of a seat's messages was sequenced: its seq and the chain head after it,
    appended to ``path``.  What `keep` takes is flushed to disk by `flush`, which the seat's
    outbox calls before anything further leaves it: whatever it sends next was decided on a
    stream the file vouches for."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._heads: dict[int, bytes] = {}
        self._pending: list[tuple[int, bytes]] = []
        try:
            whole = path.read_text().split("\n")[:-1]  # after the last newline: a line torn by
        except FileNotFoundError:  # a crash as it was written (nothing it vouches for had
            whole = []  # left the seat: `flush` comes before any send)
        for line in whole:
            seq, head = line.split()
            self._heads[int(seq)] = bytes.fromhex(head)
        self.last = max(self._heads, default=-1)
        """The latest seq at which a message of this seat was sequenced (-1: none)."""

    def head_at(self, seq: int) -> bytes | None:
        return self._heads.get(seq)

    def keep(self, seq: int, head: bytes) -> None:
        if seq not in self._heads:
            self._heads[seq] = head
            self._pending.append((seq, head))
            self.last = max(self.last, seq)

    def flush(self) -> None:
        if not self._pending:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            os.write(fd, "".join(f"{seq} {head.hex()}\n" for seq, head in self._pending).encode())
            os.fsync(fd)
        finally:
            os.close(fd)
        self._pending = []


class StandInKeys:
    """The keys of a host's stand-ins in one game, kept beside its transcript (the directory
    ``<transcript>.stand-ins``), so that a host resumed from the transcript starts them again:
    before, their keys died with the host's process, and the table voted each one gone, which
    voided a deal.  Each stand-in has a file of its keys (its sign and box seeds, then its own
    seat secret: the box key its ``replace`` names), written as a seat's secret is (mode 0600
    in a directory of mode 0700, flushed) before the host proposes it, and a directory of its
    game secrets (`GameSecrets`), from which it replays its steps.  They are deleted with the
    game's end (`forget`); the transcript is public, these keys are not."""

    KEYS_BYTES = 3 * SECRET_BYTES

    def __init__(self, transcript: Path) -> None:
        self.directory = Path(transcript).with_name(Path(transcript).name + ".stand-ins")

    def keep(self, identity: Identity, secret: SeatSecret) -> GameSecrets:
        """Keep a new stand-in's keys (flushed before this returns); its game secrets' store."""
        name = identity.sign_public.hex()[:32]
        _keep_private(self.directory / f"{name}.keys",
                      identity.sign_seed + identity.box_seed + secret.value)
        return GameSecrets(self.directory / name)

    def kept(self) -> list[tuple[Identity, SeatSecret, GameSecrets]]:
        """Every stand-in kept here: its identity, its own seat secret and its game secrets'
        store (none if the directory is not there).  `IdentityError` for a file others may
        read or a damaged one: the host does not start a stand-in from keys that may be known."""
        kept = []
        for path in sorted(self.directory.glob("*.keys")):
            mode = path.stat().st_mode
            if mode & 0o077:
                raise IdentityError(f"{path} is readable by others (mode {mode & 0o777:o}); "
                                    f"run: chmod 600 {path}")
            data = path.read_bytes()
            if len(data) != self.KEYS_BYTES:
                raise IdentityError(f"{path} is damaged ({len(data)} bytes, not "
                                    f"{self.KEYS_BYTES})")
            identity = Identity(data[:SECRET_BYTES], data[SECRET_BYTES:2 * SECRET_BYTES])
            kept.append((identity, SeatSecret(data[2 * SECRET_BYTES:]),
                         GameSecrets(self.directory / path.stem)))
        return kept

    def forget(self) -> None:
        """The game is over: its stand-ins' keys have no more use."""
        shutil.rmtree(self.directory, ignore_errors=True)


def _keep_private(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` readable by this user alone (its directory too), flushed to
    disk, whole or not at all (a crash leaves the old file or a torn ``.tmp``)."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    temporary = path.with_suffix(".tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(temporary, path)


def _is_game_id(name: str) -> bool:
    return len(name) == 32 and all(c in "0123456789abcdef" for c in name)
