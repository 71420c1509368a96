"""The project's own metadata."""

import tomllib
from pathlib import Path


def test_the_license_is_an_spdx_expression():
    """Issue 24: the table form, deprecated by setuptools (builds break after 2027-02-18), was
    printed three times by every `make play` that built the venv."""
    project = tomllib.loads((Path(__file__).parent.parent / "pyproject.toml").read_text())
    assert project["project"]["license"] == "MIT"
