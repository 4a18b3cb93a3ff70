"""Every C template shipped in the package compiles cleanly with -Wall -Wextra -Werror.

A template is any ``*.c`` file in the package outside the C extensions' source folders
(:data:`EXTENSION_SOURCES`, compiled by setup.py): the generated kernels' loops, read as package data and completed by
their module (``#define`` lines, generated functions). The glob finds new templates by itself; a
template that :data:`RENDER` cannot complete fails the test until its module's renderer is listed.
"""

import fnmatch
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "rcpstab"
FLAGS = ["-std=c11", "-O3", "-fPIC", "-shared", "-ffp-contract=off", "-Wall", "-Wextra", "-Werror"]


def _network():
    from rcpstab.network.kernel import source

    return source()


def _phaseplane():
    from rcpstab.models import get_model
    from rcpstab.phaseplane.codegen import c_source
    from rcpstab.phaseplane.compiled import compile_model

    compiled = compile_model(get_model("rcp"))
    return c_source(compiled.spec, compiled.continuous, compiled.piecewise_constant, compiled.wide_history)


# template (relative to the package) -> the complete translation unit its module compiles
RENDER = {
    "network/kernel.c": _network,
    "phaseplane/csrc/kernel.c": _phaseplane,
}
# the C extensions' folders (setup.py compiles them; their warnings are the extension build's)
EXTENSION_SOURCES = ("packet/csrc", "fct/csrc")


def templates() -> list[str]:
    found = (str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.c") if "build" not in p.parts)
    return sorted(name for name in found if not name.startswith(EXTENSION_SOURCES))


def test_templates_are_found_and_shipped():
    found = templates()
    assert {"network/kernel.c", "phaseplane/csrc/kernel.c"} <= set(found)
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    for name in found:
        # package data is a glob relative to the package that declares it (``"rcpstab.phaseplane" = ["csrc/*.c"]``)
        folders = {package: package.removeprefix("rcpstab").lstrip(".").replace(".", "/") for package in data}
        shipped = [
            (package, pattern)
            for package, patterns in data.items()
            for pattern in patterns
            if name.startswith(folders[package] + "/" if folders[package] else "")
            and fnmatch.fnmatch(name[len(folders[package]) + 1 if folders[package] else 0 :], pattern)
        ]
        assert shipped, f"{name} is not package data in pyproject.toml"


@pytest.mark.skipif(shutil.which("gcc") is None, reason="no gcc")
@pytest.mark.parametrize("name", templates())
def test_template_compiles_without_warnings(name, tmp_path):
    assert name in RENDER, f"new template {name}: add its renderer to RENDER"
    text = RENDER[name]()
    unit = tmp_path / "unit.c"
    unit.write_text(text)
    proc = subprocess.run(
        ["gcc", *FLAGS, str(unit), "-o", str(tmp_path / "unit.so"), "-lm"], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
