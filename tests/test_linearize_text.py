"""linearize as a textbook: t - d0 order, substitutions stated, LaTeX that compiles (or at least parses)."""

import re
import shutil
import subprocess

import pytest
import sympy as sp

from rcpstab.cli import main
from rcpstab.linear.linearization import linearize
from rcpstab.linear.linearization_text import latex, latex_document, text
from rcpstab.models import MODELS, get_model
from rcpstab.models.spec import t
from rcpstab.models.symbols import d0


def test_time_comes_first():
    R = sp.Function("R")
    assert text(R(t - d0)) == "R(t - d_0)"
    assert latex(R(t - d0)) == r"R{\left(t - d_{0} \right)}"
    assert text(t + d0) == "t + d_0"


@pytest.mark.parametrize("name", list(MODELS))
def test_text_states_substitutions_and_never_prints_minus_d0_plus_t(capsys, name):
    assert main(["linearize", "--model", name]) == 0
    out = capsys.readouterr().out
    assert "-d_0 + t" not in out and "- d_0 + t" not in out
    expected = "eta = 1" if get_model(name).linearize_at else "none"
    assert f"substitutions before linearizing: {expected}" in out
    system = linearize(get_model(name))
    # Every equation line is the Jacobian: one line per state, delayed terms written as (t - d_0).
    lines = [ln for ln in out.splitlines() if ln.strip().startswith("d/dt d")]
    assert len(lines) == len(get_model(name).loop_states)
    if system.delayed:
        assert "(t - d_0)" in out


def test_rcp_says_why_T_drops_out(capsys):
    main(["linearize", "--model", "rcp"])
    out = capsys.readouterr().out
    assert re.search(r"dropped: the delay T: .*zero coefficient at the equilibrium", out)
    assert "d/dt dq(t) = N*dR(t - d_0)" in out
    assert "d/dt dR(t) = -beta/(N*d_0**2)*dq(t) - alpha/d_0*dR(t - d_0)" in out


def _balanced(tex):
    depth = 0
    for ch in tex.replace(r"\{", "").replace(r"\}", ""):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        assert depth >= 0
    assert depth == 0
    envs = re.findall(r"\\(begin|end)\{(\w+)\}", tex)
    stack = []
    for kind, env in envs:
        if kind == "begin":
            stack.append(env)
        else:
            assert stack.pop() == env
    assert not stack


@pytest.mark.parametrize("name", ["rcp", "rcpac"])
def test_latex_is_one_equation_environment_that_compiles(tmp_path, name):
    tex = latex_document(linearize(get_model(name)))
    assert tex.startswith(r"\begin{equation}") and tex.rstrip().endswith(r"\end{equation}")
    _balanced(tex)
    assert "- d_{0} + t" not in tex
    engine = shutil.which("pdflatex") or shutil.which("latex")
    if engine is None:
        # No TeX here: the structure check above is what can be verified.
        return
    doc = tmp_path / "lin.tex"
    doc.write_text(latex_document(linearize(get_model(name)), standalone=True))
    run = subprocess.run(
        [engine, "-interaction=nonstopmode", "-halt-on-error", doc.name], cwd=tmp_path, capture_output=True, timeout=120
    )
    assert run.returncode == 0, run.stdout[-2000:]
