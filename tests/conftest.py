"""Every test's data directory is a temporary one: `shanghai host` records each game there by
default (issue 24), and a test must not write into the user's home."""

import pytest


@pytest.fixture(autouse=True)
def data_home(tmp_path_factory, monkeypatch):
    home = tmp_path_factory.mktemp("data")
    monkeypatch.setenv("XDG_DATA_HOME", str(home))  # subprocesses inherit it
    return home
