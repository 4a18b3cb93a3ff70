"""Checkpoint survives any truncation (issue 18, defect 1): partial tails, damaged records, bad paths."""

import errno
import os
import subprocess
import sys
import time

import numpy as np
import pytest
from conftest import run_cli

from rcpstab.errors import InputError
from rcpstab.models import get_model
from rcpstab.phaseplane import sweep
from rcpstab.runtime.checkpoint import Checkpoint, CheckpointWarning, encode_record

GRID = (np.array([0.6, 1.4]), np.array([0.2, 0.8]))


@pytest.fixture
def small_chunks(monkeypatch):
    monkeypatch.setattr(sweep, "POINTS_PER_CHUNK", 1)  # 4 grid points: 4 chunks


def _region(path):
    return sweep.phaseplane_region(get_model("switched"), *GRID, checkpoint=str(path))


def test_partial_tail_resumed_twice(tmp_path, small_chunks):
    path = tmp_path / "sweep.ckpt"
    full = _region(path)
    assert full.meta["chunks_computed"] == 4
    lines = path.read_bytes().splitlines(keepends=True)
    assert len(lines) == 4
    # a disk that filled up mid-write: 3 records and half of the fourth
    path.write_bytes(b"".join(lines[:3]) + lines[3][: len(lines[3]) // 2])
    first = _region(path)
    assert first.meta["chunks_computed"] == 1
    second = _region(path)  # used to fail: the first resume appended to the partial line
    assert second.meta["chunks_computed"] == 0
    for other in (first, second):
        assert np.array_equal(other.table["verdict"], full.table["verdict"])
    assert path.read_bytes().count(b"\n") == 4


def test_damaged_record_is_skipped_with_a_warning_and_recomputed(tmp_path, small_chunks):
    path = tmp_path / "sweep.ckpt"
    full = _region(path)
    data = bytearray(path.read_bytes())
    second_line = data.index(b"\n") + 1
    data[second_line + 40] ^= 0x01  # one flipped bit inside the payload of record 2
    path.write_bytes(bytes(data))
    with pytest.warns(CheckpointWarning, match="line 2"):
        again = _region(path)
    assert again.meta["chunks_computed"] == 1
    assert np.array_equal(again.table["verdict"], full.table["verdict"])


def test_record_round_trip_and_checksum():
    store_line = encode_record("k", {"codes": [1, 2]})
    assert store_line.endswith(b"\n") and store_line.startswith(b"rcpck1 ")


@pytest.mark.parametrize("content", [b"\xff\xfe\x00garbage\n", b"print('hello')\nx = 1\n"])
def test_a_file_that_is_not_a_checkpoint_is_refused_and_left_alone(tmp_path, content):
    path = tmp_path / "notes.txt"
    path.write_bytes(content)
    with pytest.raises(InputError, match="not an rcpstab checkpoint"):
        Checkpoint(str(path))
    assert path.read_bytes() == content


def test_device_and_missing_folder_refused_before_work(tmp_path):
    with pytest.raises(InputError, match="not a regular file"):
        Checkpoint("/dev/full")
    with pytest.raises(InputError, match="does not exist"):
        Checkpoint(str(tmp_path / "missing" / "x.ckpt"))


@pytest.mark.parametrize("target", ["/dev/full", "NONUTF8"])
def test_cli_bad_checkpoint_one_line_exit_2(tmp_path, target, capsys):
    argv = ["map", "--method", "phaseplane", "--alpha", "0.5", "--beta", "0.5", "--checkpoint"]
    started = time.time()
    if target == "NONUTF8":  # through the same main() in this process (~1.2 s of start-up saved)
        target = str(tmp_path / "bad.ckpt")
        with open(target, "wb") as fh:
            fh.write(bytes(range(128, 256)) * 4)
        code, _, err = run_cli(capsys, *argv, target)
    else:  # a real process: exit code 2, one line, no traceback
        result = subprocess.run([sys.executable, "-m", "rcpstab", *argv, target], capture_output=True, text=True, timeout=60)
        code, err = result.returncode, result.stderr
    assert code == 2, err
    assert err.count("\n") == 1 and target in err
    assert time.time() - started < 30


def test_disk_full_mid_sweep_is_one_error_and_resumable(tmp_path, small_chunks, monkeypatch):
    path = tmp_path / "sweep.ckpt"
    full = _region(path)
    data = path.read_bytes()
    path.write_bytes(b"".join(data.splitlines(keepends=True)[:2]))
    real_fsync, calls = os.fsync, []

    def failing_fsync(fd):  # the third record hits a full disk after half of it was written
        calls.append(fd)
        if len(calls) == 1:
            os.ftruncate(fd, os.fstat(fd).st_size - 20)
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_fsync(fd)

    monkeypatch.setattr(os, "fsync", failing_fsync)
    with pytest.raises(InputError, match="No space left"):
        _region(path)
    monkeypatch.setattr(os, "fsync", real_fsync)
    assert path.read_bytes().count(b"\n") == 2
    for expected in (2, 0):  # resumed twice
        again = _region(path)
        assert again.meta["chunks_computed"] == expected
        assert np.array_equal(again.table["verdict"], full.table["verdict"])


def test_checkpoints_of_the_former_format_are_still_read(tmp_path, small_chunks):
    path = tmp_path / "sweep.ckpt"
    full = _region(path)
    legacy = b"".join(line.split(b" ", 2)[2] for line in path.read_bytes().splitlines(keepends=True))
    path.write_bytes(legacy)  # bare JSON lines, as written before the checksummed records
    again = _region(path)
    assert again.meta["chunks_computed"] == 0
    assert np.array_equal(again.table["verdict"], full.table["verdict"])
