"""What every test shares.

The hypothesis profile: no deadline for any example.  A deadline measures the machine, not the
code: on a loaded machine (CI's two cores, another test run beside this one) an example that
takes 200 ms is a flaky failure.  Every `@given` test gets this unless its own settings say
otherwise.

Every test's data directory is a temporary one: `shanghai host` records each game there by
default (issue 24), and a test must not write into the user's home.

Every party of a table in a test computes libsodium's two costly answers once per distinct
input (`computed_once`)."""

import pytest
from hypothesis import settings

from shanghai_net.deal import group
from shanghai_net.wire import signing

settings.register_profile("shanghai", deadline=None)
settings.load_profile("shanghai")


@pytest.fixture(autouse=True)
def data_home(tmp_path_factory, monkeypatch):
    home = tmp_path_factory.mktemp("data")
    monkeypatch.setenv("XDG_DATA_HOME", str(home))  # subprocesses inherit it
    return home


class Multiplications:
    """libsodium as `shanghai_net.deal.group` calls it, but a multiplication of a point by a
    scalar done once per distinct (scalar, point): later ones copy the first's product."""

    def __init__(self, lib, ffi):
        self._lib, self._ffi, self._products = lib, ffi, {}

    def __getattr__(self, name):
        return getattr(self._lib, name)

    def crypto_scalarmult_ed25519_noclamp(self, out, scalar, point):
        key = (bytes(scalar), bytes(point))
        product = self._products.get(key)
        if product is None:
            refused = self._lib.crypto_scalarmult_ed25519_noclamp(out, scalar, point)
            if refused:
                return refused
            self._products[key] = self._ffi.buffer(out)[:]
        else:
            self._ffi.memmove(out, product, len(product))
        return 0


@pytest.fixture(autouse=True)
def computed_once(monkeypatch):
    """In a test every party of a table (the host's public table, each seat's, `verify`) lives
    in one process and checks the same bytes: each verifies every signature of the stream, each
    audit redoes every pass's multiplications (half a table test's time, five times over).
    Both are pure functions of their bytes, so a party after the first is given the answer the
    first computed: every party still runs all its own checks, and a byte changed anywhere (a
    cheat's, a forger's) is a new input, computed afresh; a refusal is never kept.  The counts
    of `group.multiplications` are unchanged.  For one test only: tests stay independent."""
    monkeypatch.setattr(group, "_lib", Multiplications(group._lib, group._ffi))
    plain, verified = signing._verifies, {}

    def verifies(key, sig, data):
        if type(sig) is not bytes or type(data) is not bytes:
            return plain(key, sig, data)
        asked = (bytes(key), sig, data)
        if asked not in verified:
            verified[asked] = plain(key, sig, data)
        return verified[asked]
    monkeypatch.setattr(signing, "_verifies", verifies)
