"""Issue 27 defect 6: outputs cannot destroy inputs. One path for two outputs (or an output and the
checkpoint) is refused; outputs are written to a temporary file and renamed, so a full disk or an
error leaves the old file, never a torn one, and the message names the file; a damaged first
checkpoint line is recomputed like any other."""

from __future__ import annotations

import errno
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from conftest import subprocess_env

from rcpstab.cli import main
from rcpstab.errors import InputError
from rcpstab.runtime.atomic import AtomicOutputs, check_distinct
from rcpstab.runtime.checkpoint import Checkpoint, CheckpointWarning, encode_record

MAP = ["map", "--model", "rcp", "--alpha", "0.1:1:0.3", "--beta", "0.1:1:0.3"]


class FullDisk:
    """A table file that is full after ``limit`` characters (ENOSPC, as a full disk raises it)."""

    def __init__(self, fh, limit: int):
        self.fh, self.limit, self.written = fh, limit, 0

    def write(self, text):
        self.written += len(text)
        if self.written > self.limit:
            raise OSError(errno.ENOSPC, "No space left on device")
        return self.fh.write(text)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return self.fh.__exit__(*exc)


def fill_disk_after(monkeypatch, limit: int) -> None:
    """Every CSV table written from now on (rcpstab.runtime.csvtable) meets a full disk after ``limit`` characters."""
    from rcpstab.runtime import csvtable

    monkeypatch.setattr(csvtable, "open", lambda *a, **k: FullDisk(open(*a, **k), limit), raising=False)


def one_line_refusal(argv, capsys, *needles):
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert len(err.strip().splitlines()) == 1, err
    for needle in needles:
        assert needle in err, err
    return err


@pytest.mark.parametrize(
    "options",
    [
        ["--csv", "X.csv", "--out", "X.csv"],  # --out's suffix check is not what refuses it
        ["--csv", "X.png", "--out", "./X.png"],
        ["--csv", "X.csv", "--boundary", "X.csv"],
    ],
)
def test_one_path_for_two_outputs_is_refused(options, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path(options[1]).write_text("keep me\n")
    one_line_refusal(MAP + options, capsys, "same file")
    assert Path(options[1]).read_text() == "keep me\n"


def test_the_csv_cannot_overwrite_the_checkpoint(tmp_path, capsys):
    # The CSV used to overwrite the checkpoint (exit 0) and the next resume was refused.
    ck = tmp_path / "X"
    argv = ["map", "--model", "rcp", "--method", "phaseplane", "--alpha", "0.4", "--beta", "0.2"]
    assert main(argv + ["--checkpoint", str(ck)]) == 0
    before = ck.read_bytes()
    capsys.readouterr()
    one_line_refusal(argv + ["--checkpoint", str(ck), "--csv", str(tmp_path / "." / "X")], capsys, "--checkpoint")
    assert ck.read_bytes() == before
    os.link(ck, tmp_path / "hard")  # another name for the same inode
    one_line_refusal(argv + ["--checkpoint", str(ck), "--csv", str(tmp_path / "hard")], capsys, "same file")


def test_a_full_disk_leaves_the_old_csv_and_names_it(tmp_path, capsys, monkeypatch):
    """ENOSPC half-way through the table (after its first 4 kB): the old file stays whole."""
    target = tmp_path / "table.csv"
    target.write_text("old\n")
    fill_disk_after(monkeypatch, 4096)
    err = one_line_refusal(
        MAP[:3] + ["--alpha", "0.01:1:0.01", "--beta", "0.01:1:0.1", "--csv", str(target)],
        capsys,
        "--csv",
        str(target),
        "No space left on device",
        "old file is kept",
    )
    assert ".tmp" not in err
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["table.csv"]  # no temporary file left


def test_a_real_full_disk_on_a_tiny_tmpfs(tmp_path):
    """The same with a 64 KB tmpfs, where this process may mount one (root); skipped otherwise."""
    mount = tmp_path / "tiny"
    mount.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)], capture_output=True).returncode:
        pytest.skip("cannot mount a tmpfs here")
    try:
        target = mount / "a.csv"
        target.write_text("old,content\n")
        proc = subprocess.run(
            [sys.executable, "-m", "rcpstab", *MAP[:3], "--alpha", "0.01:1:0.005", "--beta", "0.01:1:0.02", "--csv", str(target)],
            capture_output=True,
            text=True,
            cwd=mount,
            env=subprocess_env(),
        )
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.count("\n") == 1 and str(target) in proc.stderr and "No space" in proc.stderr
        assert target.read_text() == "old,content\n" and os.listdir(mount) == ["a.csv"]
    finally:
        subprocess.run(["umount", str(mount)])


def test_success_replaces_and_keeps_the_mode(tmp_path, capsys):
    target = tmp_path / "t.csv"
    target.write_text("old\n")
    target.chmod(0o640)
    assert main(MAP + ["--csv", str(target)]) == 0
    assert f"table in {target}" in capsys.readouterr().out  # the real name, not the temporary one
    assert target.read_text().startswith("alpha,beta") and (target.stat().st_mode & 0o777) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.csv"]


def test_an_error_after_the_csv_is_written_keeps_the_old_one(tmp_path):
    target = tmp_path / "t.csv"
    target.write_text("old\n")
    with pytest.raises(RuntimeError):
        with AtomicOutputs({"--csv": str(target)}) as paths:
            Path(paths["--csv"]).write_text("new, complete\n")
            raise RuntimeError("the figure failed")
    assert target.read_text() == "old\n" and os.listdir(tmp_path) == ["t.csv"]


def test_check_distinct_names_both_options(tmp_path):
    with pytest.raises(InputError, match="--out .* and --csv"):
        check_distinct({"--out": str(tmp_path / "a"), "--csv": str(tmp_path / "b" / ".." / "a")})
    check_distinct({"--out": str(tmp_path / "a"), "--csv": str(tmp_path / "b"), "--boundary": None})


def test_a_damaged_first_checkpoint_line_is_recomputed_like_any_other(tmp_path):
    path = tmp_path / "ck"
    lines = [encode_record(f"k{i}", {"v": i}) for i in range(5)]
    for damaged in (0, 4):  # the first line used to refuse the whole file; line 5 was skipped
        data = bytearray(b"".join(lines))
        offset = sum(len(x) for x in lines[:damaged]) + 20  # a byte of the checksum or payload
        data[offset] ^= 0x01
        path.write_bytes(bytes(data))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ck = Checkpoint(str(path))
        assert sorted(ck.done) == sorted(f"k{i}" for i in range(5) if i != damaged)
        assert ck.skipped == 1 and any(issubclass(w.category, CheckpointWarning) for w in caught)


def test_a_file_that_is_no_checkpoint_is_still_refused(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("some notes\nand more\n")
    with pytest.raises(InputError, match="not an rcpstab checkpoint"):
        Checkpoint(str(path))
    assert path.read_text() == "some notes\nand more\n"


def test_library_writers_are_atomic_too(tmp_path, monkeypatch):
    """RegionMap.to_csv outside the command line: ENOSPC after the header leaves the old file and names it."""
    from rcpstab.api import region

    target = tmp_path / "r.csv"
    target.write_text("old\n")
    result = region("rcp", "0.2:1:0.4", "0.2:1:0.4")
    fill_disk_after(monkeypatch, 30)
    with pytest.raises(InputError, match=r"r\.csv'.*No space left.*old file is kept"):
        result.to_csv(target)
    assert target.read_text() == "old\n" and os.listdir(tmp_path) == ["r.csv"]
    monkeypatch.undo()
    result.to_csv(target)
    rows = target.read_text().splitlines()
    assert rows[0].startswith("alpha,beta") and len(rows) == 1 + 9


# ---- every file the API writes goes through runtime/atomic.py (issue 27 item 3, outside the command line)

TEMPORARY = re.compile(r"^\..+\.[0-9a-f]{12}\.tmp(\.\w+)?$")  # atomic._temporary_name's pattern


class _FullDiskFile:
    """A real file object whose writes fail with ENOSPC once ``limit`` bytes or characters are written."""

    def __init__(self, fh, limit: int):
        self._fh, self._limit, self._written = fh, limit, 0

    def write(self, data):
        self._written += len(data)
        if self._written > self._limit:
            raise OSError(errno.ENOSPC, "No space left on device")
        return self._fh.write(data)

    def __getattr__(self, name):
        return getattr(self._fh, name)

    def __iter__(self):
        return iter(self._fh)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return self._fh.__exit__(*exc)


@pytest.fixture
def full_disk(monkeypatch):
    """Every file opened for writing under tmp paths: a temporary of runtime/atomic.py meets a full disk
    after ``limit`` units; any other (a direct write of the target) is recorded in ``direct``."""
    import builtins

    real_open, state = builtins.open, {"limit": 64, "direct": []}

    def guarded(file, mode="r", *args, **kwargs):
        fh = real_open(file, mode, *args, **kwargs)
        if isinstance(file, (str, os.PathLike)) and any(m in mode for m in "wax+"):
            if TEMPORARY.match(os.path.basename(os.fspath(file))):
                return _FullDiskFile(fh, state["limit"])
            if "pytest-of" in os.fspath(file) or "/tmp" in os.fspath(file):
                state["direct"].append(os.fspath(file))
        return fh

    monkeypatch.setattr(builtins, "open", guarded)
    yield state
    monkeypatch.undo()


def _api_writers():
    import rcpstab

    return {
        "fct to_csv": (lambda: rcpstab.fct(0.1, 1.0, C=10e6, d0=0.1, load=0.5, flows=200), lambda r, p: r.to_csv(p), ".csv"),
        "portrait to_csv": (lambda: rcpstab.portrait("rcp", 0.4, 0.2, 30, N=20), lambda r, p: r.to_csv(p), ".csv"),
        "portrait write_csv": (lambda: rcpstab.portrait("rcp", 0.4, 0.2, 30, N=20), lambda r, p: r.write_csv(p), ".csv"),
        "network to_csv": (lambda: rcpstab.network(0.4, 0.2, t_end=40), lambda r, p: r.to_csv(p), ".csv"),
        "convergence to_csv": (lambda: rcpstab.convergence("rcp", "0.4,0.8", "0.2"), lambda r, p: r.to_csv(p), ".csv"),
        "region to_csv": (lambda: rcpstab.region("rcp", "0.2:1:0.4", "0.2:1:0.4"), lambda r, p: r.to_csv(p), ".csv"),
        "region write_boundary": (
            lambda: rcpstab.region("rcp", "0.2:1:0.4", "0.2:1:0.4"),
            lambda r, p: r.write_boundary(p),
            ".csv",
        ),
        "topology packet run to_csv": (
            lambda: rcpstab.cosim(
                0.4, 0.2, str(Path(__file__).resolve().parents[1] / "examples" / "topologies" / "fig5.7.toml"), t_end=0.5
            ),
            lambda r, p: r.value.packet_run.to_csv(p, "links"),
            ".csv",
        ),
        "portrait figure": (lambda: rcpstab.portrait("rcp", 0.4, 0.2, 30, N=20), lambda r, p: r.save(p), ".png"),
    }


@pytest.mark.parametrize("writer", list(_api_writers()))
def test_every_api_writer_is_atomic_and_names_the_file_on_a_full_disk(writer, tmp_path, full_disk):
    """ENOSPC after 64 bytes: the old file is kept whole (or none is left), the error names the file, and no
    writer ever opens its target directly; then, with room, the same call writes the whole file."""
    make, write, suffix = _api_writers()[writer]
    result = make()
    for old in ("old,content\n", None):
        target = tmp_path / f"out{suffix}"
        if old is not None:
            target.write_text(old)
        elif target.exists():
            target.unlink()
        with pytest.raises(InputError) as info:
            write(result, str(target))
        message = str(info.value)
        assert str(target) in message and "No space left on device" in message and "\n" not in message
        assert ("old file is kept" if old else "nothing was written") in message
        assert target.read_text() == old if old else not target.exists()
        assert sorted(p.name for p in tmp_path.iterdir()) == ([target.name] if old else [])
    full_disk["limit"] = 10**12
    write(result, str(target))
    assert full_disk["direct"] == [], "written in place, not through runtime/atomic.py"
    data = target.read_bytes()
    assert len(data) > 64 and (suffix != ".csv" or data.endswith(b"\n"))
    assert sorted(p.name for p in tmp_path.iterdir()) == [target.name]
