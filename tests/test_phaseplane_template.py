"""The phase-plane kernel's C: the shipped template and every bundled model's generated kernel build with
-Wall -Wextra -Werror (so a warning the compiler knows about cannot hide in the loop)."""

import shutil
import subprocess

import pytest

from rcpstab.models import MODELS, get_model
from rcpstab.phaseplane import codegen
from rcpstab.phaseplane.compiled import compile_model
from rcpstab.runtime.build import FLAGS

WARNINGS = ("-Wall", "-Wextra", "-Werror")
pytestmark = pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None, reason="no C compiler")


def _compile(tmp_path, source: str, syntax_only: bool = False):
    path = tmp_path / "kernel.c"
    path.write_text(source)
    cc = shutil.which("cc") or shutil.which("gcc")
    build = ["-fsyntax-only"] if syntax_only else [*FLAGS, "-o", str(tmp_path / "kernel.so")]
    return subprocess.run([cc, *build, *WARNINGS, str(path), "-lm"], capture_output=True, text=True)


def _source(name):
    model = compile_model(get_model(name))
    return codegen.c_source(model.spec, model.continuous, model.piecewise_constant, model.wide_history)


def test_the_template_is_a_file_shipped_with_the_package():
    text = (codegen.resources.files("rcpstab.phaseplane") / codegen.TEMPLATE).read_text()
    assert text == codegen.LOOP and "rcpstab_run" in text


def test_the_template_alone_is_warning_free(tmp_path):
    result = _compile(tmp_path, codegen.LOOP, syntax_only=True)
    assert result.returncode == 0, result.stderr


@pytest.mark.slow  # an -O3 build: the flow analysis behind -Wmaybe-uninitialized needs the optimizer
def test_the_template_alone_builds_cleanly_optimized(tmp_path):
    result = _compile(tmp_path, codegen.LOOP)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("name", sorted(MODELS))
def test_every_generated_kernel_is_warning_free(tmp_path, name):
    source = _source(name)
    assert source.count("#define RCPSTAB_MODEL") == 1  # the stand-in model of the template is left out
    result = _compile(tmp_path, source, syntax_only=True)
    assert result.returncode == 0, result.stderr


@pytest.mark.slow  # ~10 s a model idle at -O3 (the flow analysis behind -Wmaybe-uninitialized needs the optimizer)
@pytest.mark.parametrize("name", sorted(MODELS))
def test_every_generated_kernel_builds_cleanly_optimized(tmp_path, name):
    result = _compile(tmp_path, _source(name))
    assert result.returncode == 0, result.stderr
