"""The Sphinx site builds with warnings as errors: docstrings, CLI reference and pages stay valid.

The notebooks are executed by tests/test_notebooks.py; here they are rendered without
re-executing them, so this test checks the markup (numpydoc sections, reST roles, MyST).
"""
import subprocess
import sys
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"


@pytest.mark.slow  # about 30 s: .ci/run builds the site, the quick run (-m "not slow") does not
def test_sphinx_builds_without_warnings(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
         "-D", "nb_execution_mode=off", "-d", str(tmp_path / "doctrees"), str(DOCS), str(tmp_path / "html")],
        capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert (tmp_path / "html" / "index.html").exists()
    cli = (tmp_path / "html" / "cli.html").read_text()
    assert "Map the stable (alpha, beta) region" in cli and "--checkpoint" in cli   # generated from the parser
