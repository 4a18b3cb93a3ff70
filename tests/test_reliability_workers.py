"""Workers die with their parent; a Dask sweep without workers fails in bounded time (issue 18, defect 4)."""

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from rcpstab.errors import InputError
from rcpstab.models import get_model
from rcpstab.phaseplane.sweep import phaseplane_region
from rcpstab.runtime import executors


def _children(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as fh:
            return [int(p) for p in fh.read().split()]
    except OSError:
        return []


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(") ")[1][0] != "Z"
    except OSError:
        return False


@pytest.mark.slow  # kills a sweep and polls for survivors: ~1 s
def test_kill_9_of_a_worker_sweep_leaves_no_process_behind():
    args = [
        sys.executable,
        "-m",
        "rcpstab",
        "map",
        "--method",
        "phaseplane",
        "--alpha",
        "0.1:2.0:0.05",
        "--beta",
        "0.1:1.0:0.05",
        "--N",
        "10",
        "20",
        "30",
        "40",
        "--workers",
        "2",
        "--json",
    ]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    workers = []
    while time.time() < deadline and len(workers) < 2:
        workers = [p for p in _children(proc.pid) if _alive(p)]
        time.sleep(0.05)
    assert len(workers) >= 2, "the sweep did not start its workers"
    time.sleep(0.5)  # let them get busy
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    deadline = time.time() + 10
    while time.time() < deadline and any(_alive(p) for p in workers):
        time.sleep(0.1)
    left = [p for p in workers if _alive(p)]
    for p in left:  # do not leak them into the rest of the suite
        os.kill(p, signal.SIGKILL)
    assert left == []
    proc.stdout.read()  # end of output arrives: no orphan holds the pipe
    proc.stdout.close()


def test_die_with_parent_exits_when_the_parent_is_already_gone():
    code = (
        "import os, sys; from rcpstab.runtime.executors import die_with_parent; "
        "die_with_parent(os.getppid() + 1 if os.getppid() != 1 else 2); print('survived')"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 1 and "survived" not in result.stdout


@pytest.mark.slow  # waits out a Dask timeout: ~3 s
def test_dask_sweep_without_workers_fails_in_bounded_time(monkeypatch):
    distributed = pytest.importorskip("distributed")
    monkeypatch.setattr(executors, "NO_WORKER_TIMEOUT_S", 2)
    with distributed.LocalCluster(n_workers=0, dashboard_address=None, processes=False) as cluster:
        started = time.time()
        with pytest.raises(InputError, match="no live worker"):
            phaseplane_region(get_model("switched"), np.array([0.5]), np.array([0.5]), scheduler=cluster.scheduler_address)
        assert time.time() - started < 20


def _die(i):
    if i == 1:
        os.kill(os.getpid(), signal.SIGKILL)  # the OOM killer, say
    time.sleep(0.2)
    return i


def test_a_worker_killed_mid_sweep_is_one_error():
    with pytest.raises(InputError, match="worker process died"):
        list(executors.run_chunks(_die, [(0,), (1,), (2,)], workers=2))
