"""Issue 41: ``make`` printed setuptools' warning block ("Please be careful with folders in your
working directory with the same name as your package ...") at every install.  setuptools prints
it for an editable install it serves with an import hook, which it does for a flat layout with
no ``package-dir`` declared; declared (pyproject.toml's [tool.setuptools]), the install is a
.pth file naming the project's directory, without a word."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_the_editable_install_make_runs_prints_no_warning_block(tmp_path):
    project = tmp_path / "project"
    (project / "shanghai_net").mkdir(parents=True)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, project)
    (project / "shanghai_net" / "__init__.py").write_text('"""The package, standing in."""\n')
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True,
                   timeout=120)
    python = venv / "bin" / "python"
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install",
                           "--quiet", "--no-deps", "-e", str(project)],  # as the Makefile does
                          capture_output=True, text=True, timeout=300, cwd=project)
    said = done.stdout + done.stderr
    if done.returncode and "setuptools" in said and "No matching distribution" in said:
        pytest.skip(f"no setuptools to build with here (pip's index): {said[-300:]}")
    assert done.returncode == 0, said
    assert "Please be careful" not in said and "Editable installation" not in said, said
    where = subprocess.run([str(python), "-c", "import shanghai_net; print(shanghai_net.__file__)"],
                           capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert where.stdout.strip() == str(project / "shanghai_net" / "__init__.py"), where.stderr
