"""What every test shares.

The hypothesis profile: no deadline for any example.  A deadline measures the machine, not the
code: on a loaded machine (CI's two cores, another test run beside this one) an example that
takes 200 ms is a flaky failure.  Every `@given` test gets this unless its own settings say
otherwise.

Every test's data directory is a temporary one: `shanghai host` records each game there by
default (issue 24), and a test must not write into the user's home."""

import pytest
from hypothesis import settings

settings.register_profile("shanghai", deadline=None)
settings.load_profile("shanghai")


@pytest.fixture(autouse=True)
def data_home(tmp_path_factory, monkeypatch):
    home = tmp_path_factory.mktemp("data")
    monkeypatch.setenv("XDG_DATA_HOME", str(home))  # subprocesses inherit it
    return home
