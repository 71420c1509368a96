"""The per-game secret a seat keeps on disk, so that it can rejoin after a crash.

A seat's deal secrets (seeds, pick nonces, box nonces) all come from its injected randomness.
When that randomness is a keyed stream (`deal.randomness.seeded` over a 32-byte secret that never
leaves this machine), a restarted peer that replays the game's messages from the start computes
exactly the steps it had sent, and can go on.  The secret is written (and flushed to disk) before
the first step of the game is sent, and deleted when the game is over.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..deal.randomness import RandomBytes, seeded

__all__ = ["GameSecrets"]

SECRET_BYTES = 32


class GameSecrets:
    """Secrets by game id in ``directory`` (e.g. ``identity.config_dir() / "games"``)."""

    def __init__(self, directory: Path, random: RandomBytes = os.urandom) -> None:
        self.directory = Path(directory)
        self._random = random

    def _path(self, game_id: bytes) -> Path:
        return self.directory / f"{game_id.hex()}.secret"

    def random_for(self, game_id: bytes, fresh: bool) -> RandomBytes:
        """The seat's randomness for this game: from the kept secret, or (``fresh``, a game
        joined at its start) from a new one kept now.  ValueError when rejoining without it."""
        path = self._path(game_id)
        if path.exists():
            secret = path.read_bytes()
            if len(secret) != SECRET_BYTES:
                raise ValueError(f"{path} is damaged ({len(secret)} bytes)")
        elif not fresh:
            raise ValueError(f"no secret of game {game_id.hex()} on this machine: it cannot "
                             "rejoin the game's deal")
        else:
            secret = self._random(SECRET_BYTES)
            self._keep(path, secret)
        return seeded(b"shanghai-net v1 game secret" + game_id + secret)

    def _keep(self, path: Path, secret: bytes) -> None:
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        temporary = path.with_suffix(".tmp")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.write(fd, secret)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temporary, path)

    def forget(self, game_id: bytes) -> None:
        """The game is over: its secret has no more use."""
        self._path(game_id).unlink(missing_ok=True)
