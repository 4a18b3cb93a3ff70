"""The Sphinx site builds with warnings as errors: docstrings, CLI reference and pages stay valid,
and every page with math shows it as MathML rendered at build time (readable offline).

The notebooks are executed by tests/test_notebooks.py; here they are rendered without
re-executing them, so this test checks the markup (numpydoc sections, reST roles, MyST).
"""

import re
import subprocess
import sys
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"
# TeX left in a page's text: $...$, \( \[ delimiters, or a bare command
RAW_TEX = re.compile(r"\$[^$\s][^$\n]*\$|\\\(|\\\)|\\\[|\\\]|\\(?:frac|alpha|beta|begin|mathrm|text|lambda)\b")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("docs")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-W",
            "--keep-going",
            "-q",
            "-b",
            "html",
            "-D",
            "nb_execution_mode=off",
            "-d",
            str(out / "doctrees"),
            str(DOCS),
            str(out / "html"),
        ],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    return out / "html"


def raw_tex(html: str) -> list[str]:
    """TeX outside <math> elements and code in a page's text."""
    body = re.sub(r"<(pre|code|script|style|math)\b.*?</\1>", "", html, flags=re.S)
    text = re.sub(r"<[^>]+>", "", body)
    return RAW_TEX.findall(text)


@pytest.mark.slow  # about 30 s on an idle machine: .ci/run builds the site, the quick run (-m "not slow") does not
def test_sphinx_builds_without_warnings(site):
    assert (site / "index.html").exists()
    cli = (site / "cli.html").read_text()
    assert "Map the stable (alpha, beta) region" in cli and "--checkpoint" in cli  # generated from the parser
    for page in ("design.html", "check.html", "packet-simulator.html"):
        assert (site / page).exists(), page


def test_raw_tex_detector():
    """The detector finds what MathJax leaves in a page, and nothing in rendered MathML or code."""
    assert raw_tex(r'<span class="math">\(\alpha\)</span>')
    assert raw_tex("<p>gain $\\alpha$ here</p>")
    assert not raw_tex('<span class="math"><math><mi>α</mi></math></span> <code>$HOME</code>')


@pytest.mark.slow
def test_math_is_rendered_at_build_time(site):
    """Pages with math (class "math", whatever the renderer) hold it as MathML and no raw TeX,
    and no page loads a script from the network."""
    pages = [p for p in site.rglob("*.html") if 'class="math' in p.read_text()]
    assert len(pages) >= 9  # the index and the eight notebooks at least
    for page in pages:
        html = page.read_text()
        assert "<math" in html, page
        assert not raw_tex(html), (page, raw_tex(html)[:5])
    for page in site.rglob("*.html"):
        assert not re.search(r"<script[^>]+src=\"(?:https?:)?//", page.read_text()), page


def test_design_page_names_paths_that_exist():
    """The design page says where things live: every repository path it names must exist."""
    root = DOCS.parent
    text = (DOCS / "design.md").read_text()
    paths = set(re.findall(r"`((?:rcpstab|tests|docs|experiments|benchmarks|examples)/[\w./-]*)`", text))
    assert {"rcpstab/verdicts/band.py", "rcpstab/packet/routers/rcp/control.py", "rcpstab/fct/"} <= paths
    missing = [p for p in sorted(paths) if not (root / p).exists()]
    assert not missing, missing
