"""Issue 27 defect 8: `check` reads at most a sane size from a regular file, never blocks on a FIFO,
echoes long values cut short, accepts a UTF-8 BOM; the caches never land at the file-system root."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from rcpstab.check.config import ECHO_CHARS, MAX_CONFIG_BYTES, load_config
from rcpstab.cli import main
from rcpstab.errors import InputError
from rcpstab.runtime import build, derivation_cache

BODY = "[router]\nALPHA = 0.4\nBETA = 0.2\n"


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_devices_are_refused_without_reading(device, capsys):
    # /dev/zero was read until MemoryError (3.5 GB)
    assert main(["check", device]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and device in err and "device" in err


def test_a_fifo_with_no_writer_does_not_block(tmp_path):
    fifo = tmp_path / "config.toml"
    os.mkfifo(fifo)
    outcome = []
    reader = threading.Thread(target=lambda: outcome.append(pytest.raises(InputError, load_config, str(fifo))))
    reader.daemon = True  # if it blocked, the test must still end
    reader.start()
    reader.join(5)
    assert not reader.is_alive(), "load_config blocked on a FIFO"
    assert "FIFO" in str(outcome[0].value)


def test_a_file_over_the_limit_is_refused_by_its_size(tmp_path):
    big = tmp_path / "big.toml"
    with open(big, "wb") as fh:
        fh.truncate(MAX_CONFIG_BYTES + 1)  # sparse: no need to write 16 MB
    with pytest.raises(InputError, match="limit of 16 MB"):
        load_config(str(big))
    with open(big, "wb") as fh:
        fh.write(BODY.encode())
        fh.truncate(MAX_CONFIG_BYTES)  # at the limit: read (and then refused only as TOML)
    with pytest.raises(InputError, match="TOML syntax error"):
        load_config(str(big))


def test_a_long_value_is_echoed_cut_short(tmp_path, capsys):
    # A 2M-element rtt_ms was echoed as one 8 MB stderr line.
    path = tmp_path / "long.toml"
    path.write_text(BODY + "[envelope]\nrtt_ms = [" + ",".join(["1"] * 2_000) + "]\n")  # ~6000 characters as a repr
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and len(err) < ECHO_CHARS + 200
    assert "rtt_ms" in err and "2000 items" in err and "expected [lo, hi]" in err


def test_a_utf8_bom_is_accepted(tmp_path):
    plain, bom = tmp_path / "plain.toml", tmp_path / "bom.toml"
    plain.write_text(BODY)
    bom.write_bytes(b"\xef\xbb\xbf" + BODY.encode())
    assert load_config(str(bom)) == load_config(str(plain))


@pytest.mark.parametrize("home", ["", "relative/home", "/"])
def test_no_usable_home_gives_a_private_temporary_cache(home, monkeypatch, tmp_path):
    # HOME='' put the caches in /.cache (or .cache of the working folder)
    monkeypatch.setenv("HOME", home)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.delenv(build.CACHE_ENV, raising=False)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    assert build.user_cache_root() is None
    for folder in (build.cache_dir(), derivation_cache.cache_dir()):
        assert folder.is_absolute() and Path(tmp_path) in folder.parents
        owner = next(p for p in [folder, *folder.parents] if p.parent == tmp_path)
        assert owner.stat().st_uid == os.getuid() and not owner.stat().st_mode & 0o077


def test_no_usable_home_keeps_matplotlibs_cache_off_the_root_too(tmp_path):
    """The command line with HOME='': matplotlib (imported by check) created /.cache/matplotlib; now its cache
    is the private temporary one."""
    import subprocess
    import sys

    code = (
        "import rcpstab.cli as c\n"
        "c.main(['check', '--criterion', 'linear', '-q', 'x.toml'])\n"
        "import matplotlib\n"
        "print(matplotlib.get_cachedir())"
    )
    (tmp_path / "x.toml").write_text(BODY)
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_CACHE_HOME", "MPLCONFIGDIR")}
    # The compiled kernels and derivations from this process's cache (matplotlib's cache does not read it):
    # a private one under this TMPDIR compiled a kernel and derived the model again, 10 s CPU instead of 5.
    env[build.CACHE_ENV] = str(build.cache_dir())
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**env, "HOME": "", "TMPDIR": str(tmp_path)},
        timeout=300,
    )
    cache = Path(out.stdout.strip().splitlines()[-1])
    assert tmp_path in cache.parents and cache.name.startswith("rcpstab-matplotlib"), out.stdout + out.stderr
    assert not (tmp_path / ".cache").exists()


def test_a_usable_home_is_used(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.delenv(build.CACHE_ENV, raising=False)
    assert build.cache_dir() == tmp_path / ".cache" / "rcpstab" / "kernels"
    assert derivation_cache.cache_dir() == tmp_path / ".cache" / "rcpstab" / "symbolic"


@pytest.mark.parametrize(
    "envelope, named, bound",
    [
        # defect 9: refused as "T = 5e-08 s" and "N = 2e7", values the file never held
        ("rtt_ms = [0.001, 0.001]", "rtt_ms[0] = 0.001", "rtt_ms must be >= 0.02"),
        ("flows = [1e7, 1e7]", "flows[1] = 1e+07", "flows must be <= 1e+06"),
    ],
)
def test_refusals_name_what_the_file_says_and_the_bound(envelope, named, bound, tmp_path, capsys):
    path = tmp_path / "c.toml"
    path.write_text(BODY + "[envelope]\n" + envelope + "\n")
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and named in err and bound in err
    assert "T = 5e-08 s:" not in err and "N = 2" not in err


def test_the_derived_bounds_are_exact(tmp_path):
    for envelope, ok in (
        ("rtt_ms = [0.02, 1]", True),
        ("rtt_ms = [0.0199, 1]", False),
        ("flows = [1, 1e6]", True),
        ("flows = [1, 1000001]", False),
    ):
        path = tmp_path / "c.toml"
        path.write_text(BODY + "[envelope]\n" + envelope + "\n")
        if ok:
            load_config(str(path))
        else:
            with pytest.raises(InputError, match="must be"):
                load_config(str(path))
