"""Who a user is on the network: an Ed25519 signing key and an X25519 box key, kept on disk.

The keys are made on first use and kept so that a player is the same identity after a crash or
in the next game (reconnecting needs that, and friends compare fingerprints in the lobby).  The
file holds secrets, so it is written with mode 0600 and refused if others can read it.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

__all__ = ["Identity", "IdentityError", "FILE_FORMAT", "config_dir", "fingerprint",
           "load_or_create"]

FILE_FORMAT = "shanghai-net identity 1"
FILE_NAME = "identity"


class IdentityError(Exception):
    """The identity file exists but cannot be used; it is never overwritten."""


def fingerprint(sign_public: bytes) -> str:
    """First 8 bytes of SHA-256 of the public signing key, as ``a1b2-c3d4-e5f6-0718``."""
    digest = hashlib.sha256(sign_public).hexdigest()[:16]
    return "-".join(digest[i:i + 4] for i in range(0, 16, 4))


def _raw_public(key: Ed25519PrivateKey | X25519PrivateKey) -> bytes:
    return key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


@dataclass(frozen=True)
class Identity:
    """A user's two key pairs, made from two 32-byte seeds."""

    sign_seed: bytes
    box_seed: bytes

    def __post_init__(self) -> None:
        if len(self.sign_seed) != 32 or len(self.box_seed) != 32:
            raise ValueError("identity seeds are 32 bytes each")

    def __repr__(self) -> str:
        return f"Identity({self.fingerprint})"  # never print the seeds

    @property
    def sign_key(self) -> Ed25519PrivateKey:
        return Ed25519PrivateKey.from_private_bytes(self.sign_seed)

    @property
    def box_key(self) -> X25519PrivateKey:
        return X25519PrivateKey.from_private_bytes(self.box_seed)

    @property
    def sign_public(self) -> bytes:
        return _raw_public(self.sign_key)

    @property
    def box_public(self) -> bytes:
        return _raw_public(self.box_key)

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.sign_public)

    def to_json(self) -> str:
        return json.dumps({"format": FILE_FORMAT, "sign_seed": self.sign_seed.hex(),
                           "box_seed": self.box_seed.hex()}, indent=1) + "\n"

    @classmethod
    def from_json(cls, text: str) -> Identity:
        try:
            data = json.loads(text)
            if data["format"] != FILE_FORMAT:
                raise ValueError(f"format {data['format']!r} is not {FILE_FORMAT!r}")
            return cls(bytes.fromhex(data["sign_seed"]), bytes.fromhex(data["box_seed"]))
        except (ValueError, KeyError, TypeError) as exc:
            raise IdentityError(f"not a shanghai-net identity: {exc}") from None


def config_dir(environ: Mapping[str, str] = os.environ) -> Path:
    """``$XDG_CONFIG_HOME/shanghai-net``, or ``~/.config/shanghai-net`` when it is unset."""
    base = environ.get("XDG_CONFIG_HOME") or os.path.join(
        environ.get("HOME") or os.path.expanduser("~"), ".config")
    return Path(base) / "shanghai-net"


def load_or_create(directory: Path | None = None,
                   random_bytes: Callable[[int], bytes] = os.urandom) -> Identity:
    """The identity kept in ``directory`` (default: ``config_dir()``), made there if absent."""
    directory = config_dir() if directory is None else Path(directory)
    path = directory / FILE_NAME
    try:
        return _load(path)
    except FileNotFoundError:
        pass
    identity = Identity(random_bytes(32), random_bytes(32))
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    temporary = path.with_name(f".{FILE_NAME}.{os.getpid()}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w") as out:
            out.write(identity.to_json())
            out.flush()
            os.fsync(out.fileno())
        os.link(temporary, path)  # fails if another process made one meanwhile: keep theirs
    except FileExistsError:
        return _load(path)
    finally:
        os.unlink(temporary)
    return identity


def _load(path: Path) -> Identity:
    mode = path.stat().st_mode
    if mode & 0o077:
        raise IdentityError(
            f"{path} is readable by others (mode {mode & 0o777:o}); run: chmod 600 {path}")
    return Identity.from_json(path.read_text())
