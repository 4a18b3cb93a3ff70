"""Ctrl-C on a sweep: ends within 2 s with exit code 130 and one line, keeps the checkpoint, resumes identically."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from rcpstab.runtime.checkpoint import _decode_record

# 4800 rows: 12 chunks of at most 500. Long enough that a loaded machine's poller (pytest-xdist's other
# worker busy) still catches the sweep running: at 2400 rows the twice-faster kernel sometimes finished first.
D0S = ["0.1", "0.2", "0.3", "0.4", "0.5", "0.6"]
CHUNKS = 2 * len(D0S)
SWEEP = ["map", "--method", "phaseplane", "--alpha", "0.05:2.0:0.05", "--beta", "0.05:1.0:0.05", "--d0", *D0S, "--workers", "2"]


def as_from_a_terminal():
    """In the child before exec: SIGINT unblocked and at its default, as a terminal's shell starts a command.

    Needed because a test run started as a background job of a non-interactive shell (``pytest -n auto &``
    in a script or ``(cmd &)``) has SIGINT ignored, as POSIX shells start such jobs; pytest, its xdist workers
    and their children inherit that, and a Python started with SIGINT ignored installs no KeyboardInterrupt
    handler. Without this the command ran to its end after the signal (exit 0, nothing on stderr): reproduced
    with ``bash -c 'pytest ... &'``, which passes in the foreground and passes with this reset."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def rcpstab(*argv, **kwargs):
    return subprocess.run([sys.executable, "-m", "rcpstab", *argv], capture_output=True, text=True, timeout=600, **kwargs)


@pytest.mark.slow
def test_sigint_ends_a_sweep_fast_keeps_the_checkpoint_and_resumes_identically(tmp_path):
    checkpoint = tmp_path / "sweep.jsonl"
    # A terminal's Ctrl-C signals the whole foreground process group: the command and its workers.
    proc = subprocess.Popen(
        [sys.executable, "-m", "rcpstab", *SWEEP, "--checkpoint", str(checkpoint)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=as_from_a_terminal,
    )
    deadline = time.time() + 300
    while not (checkpoint.exists() and checkpoint.read_text().count("\n") >= 1):
        assert proc.poll() is None and time.time() < deadline, "the sweep ended before the first chunk was saved"
        time.sleep(0.05)
    sent = time.perf_counter()
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    took = time.perf_counter() - sent
    assert proc.returncode == 130, err
    assert took < 2.0, f"took {took:.2f} s to stop"
    assert out == ""
    (line,) = err.strip().splitlines()
    assert line.startswith("rcpstab map: interrupted; finished chunks kept in") and "Traceback" not in err

    # every line a complete record that verifies against its checksum (rcpstab.runtime.checkpoint's format)
    lines = checkpoint.read_bytes().splitlines(keepends=True)
    records = [_decode_record(line) for line in lines]
    assert 1 <= len(records) < CHUNKS and all(r is not None for r in records) and lines[-1].endswith(b"\n")

    resumed = rcpstab(*SWEEP, "--checkpoint", str(checkpoint), "--json")
    fresh = rcpstab(*SWEEP, "--json")
    assert resumed.returncode == fresh.returncode == 0
    resumed, fresh = json.loads(resumed.stdout), json.loads(fresh.stdout)
    assert resumed["meta"]["chunks_computed"] == CHUNKS - len(records) and fresh["meta"]["chunks_computed"] == CHUNKS
    for key in ("stable", "alpha", "beta"):
        assert resumed[key] == fresh[key]
    for key in ("verdict_counts", "stable_per_configuration", "unreachable_configurations"):
        assert resumed["meta"][key] == fresh["meta"][key]


@pytest.mark.slow  # waits for a sweep to be interrupted: ~3 s
def test_sigint_on_a_serial_sweep_without_checkpoint(tmp_path):
    serial = [*SWEEP[:6], "0.05:2.0:0.05", *SWEEP[7:-1], "1"]  # 9600 rows, about 24 chunk-times in one process
    proc = subprocess.Popen(
        [sys.executable, "-m", "rcpstab", *serial],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=as_from_a_terminal,
    )
    time.sleep(3.0)  # past start-up, inside the sweep
    assert proc.poll() is None
    sent = time.perf_counter()
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and time.perf_counter() - sent < 2.0
    assert err.strip() == "rcpstab map: interrupted"


def test_interrupt_message_names_what_the_checkpoint_keeps(tmp_path, capsys, monkeypatch):
    """The quick in-process twin of the two tests above: Ctrl-C (KeyboardInterrupt) inside a sweep gives
    exit code 130 and one line saying whether the checkpoint has anything to resume from."""
    import rcpstab.commands.map as map_command
    from rcpstab.cli import main

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(map_command, "region", interrupted)
    checkpoint = tmp_path / "sweep.jsonl"
    argv = ["map", "--method", "phaseplane", "--alpha", "0.5", "--beta", "0.5", "--checkpoint", str(checkpoint)]
    assert main(argv) == 130
    assert (
        capsys.readouterr().err == f"rcpstab map: interrupted; no chunk had finished, {checkpoint} has nothing to resume from\n"
    )
    checkpoint.write_text("{}\n")
    assert main(argv) == 130
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("rcpstab map: interrupted; finished chunks kept in") and str(checkpoint) in line
    assert main(argv[:-2]) == 130 and capsys.readouterr().err == "rcpstab map: interrupted\n"
