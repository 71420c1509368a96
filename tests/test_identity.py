"""Identity: keys made once and kept with mode 0600; fingerprints; config directory."""

import hashlib
import itertools
import os
import stat

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PublicKey

from shanghai_net.identity import (Identity, IdentityError, config_dir, fingerprint,
                                   load_or_create)


def counting_bytes():
    """Deterministic stand-in for os.urandom: 0x01 * n, then 0x02 * n, ..."""
    counter = itertools.count(1)
    return lambda n: bytes([next(counter)]) * n


def no_randomness(n):
    raise AssertionError("an existing identity must not be remade")


def test_fingerprint_is_the_first_8_bytes_of_sha256_in_four_groups():
    key = bytes(range(32))
    digest = hashlib.sha256(key).hexdigest()
    assert fingerprint(key) == "-".join([digest[0:4], digest[4:8], digest[8:12], digest[12:16]])
    assert len(fingerprint(key)) == 19


def test_first_use_creates_a_private_file_and_later_uses_read_it(tmp_path):
    directory = tmp_path / "conf" / "shanghai-net"
    made = load_or_create(directory, random_bytes=counting_bytes())
    assert made == Identity(b"\x01" * 32, b"\x02" * 32)
    path = directory / "identity"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    assert load_or_create(directory, random_bytes=no_randomness) == made
    assert sorted(os.listdir(directory)) == ["identity"]


def test_keys_sign_and_agree():
    alice, bob = Identity(b"\x01" * 32, b"\x02" * 32), Identity(b"\x03" * 32, b"\x04" * 32)
    Ed25519PublicKey.from_public_bytes(alice.sign_public).verify(alice.sign_key.sign(b"m"), b"m")
    shared_a = alice.box_key.exchange(X25519PublicKey.from_public_bytes(bob.box_public))
    shared_b = bob.box_key.exchange(X25519PublicKey.from_public_bytes(alice.box_public))
    assert shared_a == shared_b
    assert alice.fingerprint == fingerprint(alice.sign_public) != bob.fingerprint


def test_repr_shows_the_fingerprint_not_the_seeds():
    identity = Identity(b"\x01" * 32, b"\x02" * 32)
    assert repr(identity) == f"Identity({identity.fingerprint})"
    assert "01" * 8 not in repr(identity)


def test_file_readable_by_others_is_refused(tmp_path):
    load_or_create(tmp_path, random_bytes=counting_bytes())
    os.chmod(tmp_path / "identity", 0o644)
    with pytest.raises(IdentityError, match="chmod 600"):
        load_or_create(tmp_path, random_bytes=no_randomness)


def test_corrupt_file_is_refused_and_kept(tmp_path):
    path = tmp_path / "identity"
    path.write_text('{"format": "something else"}')
    os.chmod(path, 0o600)
    with pytest.raises(IdentityError, match="not a shanghai-net identity"):
        load_or_create(tmp_path, random_bytes=no_randomness)
    assert path.read_text() == '{"format": "something else"}'


def test_short_seed_in_file_is_refused(tmp_path):
    path = tmp_path / "identity"
    path.write_text(Identity(b"\x01" * 32, b"\x02" * 32).to_json().replace("0101", "", 1))
    os.chmod(path, 0o600)
    with pytest.raises(IdentityError):
        load_or_create(tmp_path)


def test_config_dir_follows_xdg_then_home():
    assert str(config_dir({"XDG_CONFIG_HOME": "/x/cfg", "HOME": "/h"})) == "/x/cfg/shanghai-net"
    assert str(config_dir({"HOME": "/h"})) == "/h/.config/shanghai-net"
    assert str(config_dir({"XDG_CONFIG_HOME": "", "HOME": "/h"})) == "/h/.config/shanghai-net"
