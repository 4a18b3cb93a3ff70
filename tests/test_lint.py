"""The linter runs with the suite: `ruff check` under the project's own configuration reports nothing."""

import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _ruff():
    exe = shutil.which("ruff")
    if exe:
        return [exe]
    pytest.importorskip("ruff")
    return [sys.executable, "-m", "ruff"]


def test_ruff_finds_a_planted_defect(tmp_path):
    # the configuration's rules are live: an unused import and a mutable default argument are reported
    bad = tmp_path / "bad.py"
    bad.write_text("import os\n\n\ndef f(x=[]):\n    return x\n")
    out = subprocess.run(
        _ruff() + ["check", "--config", str(ROOT / "pyproject.toml"), "--output-format", "concise", str(bad)],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 1 and "F401" in out.stdout and "B006" in out.stdout


def test_ruff_is_clean():
    out = subprocess.run(_ruff() + ["check", "--output-format", "concise", "."], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
