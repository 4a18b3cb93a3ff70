"""The `rcp` phase-plane kernel against its limit, a plain vectorised C loop with the same arithmetic.

Issue 26 item 4: the generated kernel (``rcpstab/phaseplane/csrc/kernel.c`` with the rcp model printed in
front) within 1.5x of ``benchmarks/plain_rcp_loop.c``, per trajectory-step, with the envelope monitor on
(as the verdict path runs it). Before timing, every side is checked to give the same bits: the kernel's
final states and monitor values must equal the plain loop's (which is what makes it "the same
arithmetic"), and with ``--baseline PATH`` (another checkout, e.g. ``git worktree add`` of main) the
kernel of that tree must give them too (the restructured loop changes no bit).

Times are CPU time of the process (time.process_time: a shared, loaded machine takes the CPU away
between steps, not within them). Each measurement runs in a fresh process (``--one``): the plain loop, this tree's kernel and the
baseline's, interleaved, ``--repeat`` rounds; medians and ratios are printed as JSON.

Usage: python benchmarks/bench_kernel.py [--repeat 3] [--baseline PATH] [--batch 256] [--steps 20000]
"""

from __future__ import annotations

import argparse
import ctypes
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def _pointer(a):
    return a.ctypes.data_as(ctypes.c_void_p)


def _batch(batch: int):
    """A random batch about App. E's set-up (unstable, cycling and converging gains; random starts)."""
    from rcpstab.models import get_model
    from rcpstab.phaseplane.setup import make_integrator

    rng = np.random.default_rng(26)
    alpha, beta = rng.uniform(0.1, 2.0, batch), rng.uniform(0.1, 2.0, batch)
    gamma0, q0 = rng.uniform(0.01, 0.5, batch), rng.uniform(0.0, 2 * 0.15e9 * 0.2, batch)
    return make_integrator(get_model("rcp"), {"alpha": alpha, "beta": beta}, {"gamma0": gamma0, "q0": q0})


def _monitor(integrator):
    from rcpstab.phaseplane.monitor import EnvelopeMonitor

    return EnvelopeMonitor(integrator)


def run_kernel(batch: int, steps: int):
    """Seconds for ``steps`` steps of the batch in the generated kernel, and the digest of its results."""
    it = _batch(batch)
    m = _monitor(it)
    kernel = it.model.kernel_for(m.band)
    size, n_states = it.size, it.model.n_states
    params = np.ascontiguousarray(np.column_stack([np.broadcast_to(p, (size,)) for p in it.params]))
    delay = np.array(it.delay_steps)
    every = np.array([it.update_every.get(i, 0) for i in range(n_states)], dtype=np.int64)
    empty = np.empty((0, size))
    window = 1 << 60  # one window longer than the run: the peaks of the whole run
    start = time.process_time()
    failed = kernel.rcpstab_run(
        ctypes.c_long(size),
        ctypes.c_long(steps),
        ctypes.c_long(0),
        ctypes.c_double(it.dt),
        ctypes.c_long(it.length),
        _pointer(delay),
        _pointer(every),
        _pointer(it._x),
        _pointer(it._ring_values),
        _pointer(it._ring_slopes),
        _pointer(it._x0),
        _pointer(params),
        ctypes.c_long(window),
        *(_pointer(a) for a in (m.gamma_eq, m.queue_eq, m.queue_scale, m.peak, m.crossing, m.above, m.last_out)),
        _pointer(empty),
        _pointer(empty),
        ctypes.c_long(0),
        _pointer(empty),
        _pointer(m.rate_peak),
        _pointer(m.queue_peak),
        _pointer(empty),
        _pointer(empty),
    )
    seconds = time.process_time() - start
    assert not failed
    results = [
        it._x[:, 0],
        it._x[:, 1],
        it._x[:, 2],
        m.peak,
        m.rate_peak,
        m.queue_peak,
        m.last_out,
        m.crossing.astype(float),
        m.above.astype(float),
    ]
    return seconds, _digest(results)


def run_plain(batch: int, steps: int):
    """Seconds for the same steps in the plain loop, and the digest of its results."""
    from rcpstab.runtime.build import load_library

    library = load_library("plain_rcp_loop", (HERE / "plain_rcp_loop.c").read_text())
    it = _batch(batch)
    m = _monitor(it)
    size, length = it.size, it.length
    params = np.ascontiguousarray(np.vstack([np.broadcast_to(p, (size,)) for p in it.params]))
    R, q, drop = (np.ascontiguousarray(it._x[:, i]) for i in range(3))
    R0 = np.ascontiguousarray(it._x0[:, 0])
    hist = np.zeros((length, size))
    delay = np.array(it.delay_steps)
    crossing, above = m.crossing.astype(float), m.above.astype(float)
    start = time.process_time()
    library.plain_rcp(
        ctypes.c_long(size),
        ctypes.c_long(steps),
        ctypes.c_double(it.dt),
        ctypes.c_long(length),
        _pointer(delay),
        ctypes.c_long(it.update_every[0]),
        _pointer(R),
        _pointer(q),
        _pointer(drop),
        _pointer(hist),
        _pointer(R0),
        _pointer(params),
        _pointer(m.gamma_eq),
        _pointer(m.queue_eq),
        _pointer(m.queue_scale),
        _pointer(m.peak),
        _pointer(m.rate_peak),
        _pointer(m.queue_peak),
        _pointer(m.last_out),
        _pointer(crossing),
        _pointer(above),
    )
    seconds = time.process_time() - start
    return seconds, _digest([R, q, drop, m.peak, m.rate_peak, m.queue_peak, m.last_out, crossing, above])


def _digest(arrays) -> str:
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a, dtype=float).tobytes())
    return h.hexdigest()[:16]


def _one(kind: str, tree: Path, batch: int, steps: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree))
    out = subprocess.run(
        [sys.executable, __file__, "--one", kind, "--batch", str(batch), "--steps", str(steps)],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--baseline", help="another checkout whose kernel is timed too (before/after)")
    parser.add_argument("--batch", type=int, default=256, help="trajectories (default 256)")
    parser.add_argument("--steps", type=int, default=20000, help="steps (default 20000 = 1000 RTTs)")
    parser.add_argument("--one", choices=("kernel", "plain"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        run = run_kernel if args.one == "kernel" else run_plain
        run(args.batch, 50)  # compile (disk cache) and warm up
        seconds, digest = run(args.batch, args.steps)
        print(json.dumps({"ns_per_step": 1e9 * seconds / (args.batch * args.steps), "digest": digest}))
        return
    sides = {"plain": ("plain", HERE.parent), "after": ("kernel", HERE.parent)}
    if args.baseline:
        sides["before"] = ("kernel", Path(args.baseline).resolve())
    times = {k: [] for k in sides}
    digests = {}
    for _ in range(args.repeat):
        for name, (kind, tree) in sides.items():
            got = _one(kind, tree, args.batch, args.steps)
            times[name].append(got["ns_per_step"])
            digests.setdefault(name, set()).add(got["digest"])
    med = {k: float(np.median(v)) for k, v in times.items()}
    result = {
        "batch": args.batch,
        "steps": args.steps,
        "repeat": args.repeat,
        "load_1min": os.getloadavg()[0],
        "ns_per_trajectory_step": {k: round(v, 3) for k, v in med.items()},
        "runs": {k: [round(x, 3) for x in v] for k, v in times.items()},
        "after_over_plain": round(med["after"] / med["plain"], 2),
        "bit_identical": len(set.union(*digests.values())) == 1,
    }
    if "before" in med:
        result["before_over_plain"] = round(med["before"] / med["plain"], 2)
        result["speed_up"] = round(med["before"] / med["after"], 2)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
