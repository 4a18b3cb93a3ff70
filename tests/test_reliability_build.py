"""The compile cache verifies what it loads and rebuilds damaged entries (issue 18, defect 2)."""

import os
import shutil
import subprocess
import sys

import pytest

from rcpstab.runtime.build import load_library

SOURCE = "int probe(void) { return 42; }\n"
BUILD = f"from rcpstab.runtime.build import load_library; assert load_library('probe', {SOURCE!r}).probe() == 42"
PORTRAIT = ["portrait", "--model", "switched", "--alpha", "0.5", "--beta", "0.5", "--rtts", "5"]


def run_cli(args, env_extra):
    env = dict(os.environ, **env_extra)
    return subprocess.run([sys.executable, "-m", "rcpstab", *args], capture_output=True, text=True, timeout=120, env=env)


def _cached(folder):
    return [p for p in folder.iterdir() if p.suffix == ".so"]


@pytest.mark.parametrize("damage", ["truncate", "empty", "random", "other-library"])
def test_damaged_entry_is_rebuilt(tmp_path, monkeypatch, damage):
    monkeypatch.setenv("RCPSTAB_CACHE_DIR", str(tmp_path))
    # built by another process: damaging a library this process has mapped would crash the test itself
    subprocess.run([sys.executable, "-c", BUILD], check=True, env=dict(os.environ, RCPSTAB_CACHE_DIR=str(tmp_path)))
    (entry,) = _cached(tmp_path)
    good = entry.read_bytes()
    if damage == "truncate":
        entry.write_bytes(good[: len(good) // 2])
    elif damage == "empty":
        entry.write_bytes(b"")
    elif damage == "random":
        entry.write_bytes(os.urandom(len(good)))
    else:  # a complete library of another source put in its place
        subprocess.run(
            [sys.executable, "-c", BUILD.replace("42", "7")],
            check=True,
            env=dict(os.environ, RCPSTAB_CACHE_DIR=str(tmp_path / "other")),
        )
        (other,) = _cached(tmp_path / "other")
        entry.write_bytes(other.read_bytes())
    assert load_library("probe", SOURCE).probe() == 42
    assert load_library("probe", SOURCE).probe() == 42 and entry.read_bytes() == good


def _with_derivations(folder):
    """``folder`` as a cache dir holding no kernel and this process's derivations (SymPy is not the point)."""
    from rcpstab.runtime.derivation_cache import cache_dir

    cache_dir().mkdir(parents=True, exist_ok=True)
    (folder / "symbolic").symlink_to(cache_dir(), target_is_directory=True)
    return {"RCPSTAB_CACHE_DIR": str(folder)}


@pytest.mark.slow  # compiles a kernel from scratch in a private cache (~5 s)
def test_truncated_kernel_does_not_crash_the_command_line(tmp_path):
    from rcpstab.models import get_model
    from rcpstab.phaseplane.compiled import CompiledModel

    env = _with_derivations(tmp_path)
    # the kernel the command loads, as this process has it (built once, else read from its cache)
    shutil.copy(CompiledModel(get_model("switched")).kernel._name, tmp_path)
    first = run_cli(PORTRAIT, env)
    assert first.returncode == 0, first.stderr
    (entry,) = _cached(tmp_path)  # the one it loaded: no other was built
    entry.write_bytes(entry.read_bytes()[:4096])  # used to give a bus error (exit 135) on every later run
    second = run_cli(PORTRAIT, env)
    assert second.returncode == 0, second.stderr
    assert second.stdout == first.stdout


def test_read_only_cache_folder_falls_back_to_a_private_temporary_cache(monkeypatch):
    # /proc/self exists and nobody, not even root, can create files in it (used to exit 2)
    monkeypatch.setenv("RCPSTAB_CACHE_DIR", "/proc/self")
    assert load_library("probe", SOURCE).probe() == 42


def test_missing_compiler_is_one_line_exit_2(tmp_path):
    # no compiled kernel to fall back on
    result = run_cli(PORTRAIT, {**_with_derivations(tmp_path), "CC": "/nonexistent/gcc"})
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "/nonexistent/gcc" in result.stderr
