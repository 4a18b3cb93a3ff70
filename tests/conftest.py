"""Shared test helpers: the RCP boundary in closed form, independent of the engines."""

import collections
import os

# One BLAS thread per test process (set before NumPy loads): with pytest-xdist's workers on two cores,
# OpenBLAS's threads oversubscribe them, and a 132x132 eigvals (every margins call) ran 15x slower.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import rcpstab  # noqa: E402

# The folder holding the rcpstab these tests import: the checkout in development, site-packages after
# `pip install .` (the README's test command on a clean clone, whose root is an unbuilt tree without the
# C extensions). A subprocess given it first on PYTHONPATH imports the same, built package.
PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(rcpstab.__file__)))


def subprocess_env(**extra: str) -> dict[str, str]:
    """This process's environment with :data:`PACKAGE_PARENT` first on PYTHONPATH, plus ``extra``."""
    path = os.pathsep.join([PACKAGE_PARENT, os.environ.get("PYTHONPATH", "")])
    return {**os.environ, "PYTHONPATH": path, **extra}


def rcp_boundary_curve(samples=400_001):
    """alpha = w sin w, beta = w^2 cos w for w in [0, pi/2]: roots at +-j w (eq. D.1 at s = j w/d0)."""
    w = np.linspace(0.0, np.pi / 2, samples)
    return w * np.sin(w), w**2 * np.cos(w)


def near_rcp_boundary(A, B, tol):
    """True where (alpha, beta) lies within ``tol`` of the closed-form RCP boundary (curve or beta = 0).

    The curve is sampled every ~2e-5 in arc length, so the answer is exact to that.
    """
    from scipy.spatial import cKDTree  # here, not at import: every xdist worker loads this file

    a, b = rcp_boundary_curve(samples=100_001)
    tree = cKDTree(np.column_stack([a, b]))
    # The upper bound lets the tree prune: only points near the curve cost anything.
    dist, _ = tree.query(np.column_stack([np.ravel(A), np.ravel(B)]), distance_upper_bound=tol)
    return (dist.reshape(np.shape(A)) <= tol) | (np.abs(B) <= tol)


def rcp_inside(A, B):
    """Closed-form stability: 0 < beta and the point lies under the bell (between its two branches)."""
    a, b = rcp_boundary_curve()
    peak = np.argmax(b)
    left = np.interp(B, b[: peak + 1], a[: peak + 1], right=np.nan)
    right = np.interp(B, b[peak:][::-1], a[peak:][::-1], right=np.nan)
    return (B > 0) & (B < b[peak]) & (A > left) & (A < right)


@pytest.fixture
def rcp():
    from rcpstab.models import get_model

    return get_model("rcp")


# The test files over ~6 s of CPU in the whole suite (benchmarks/pytest_cpu.py), costliest first: under
# pytest-xdist they are handed out before all others (benchmarks/xdist_schedule.py replays both orders).
# pytest-xdist hands out whole files (--dist loadfile), by default those with the most tests first, which
# left the docs build, mypy and the Ctrl-C sweeps (few tests, much CPU) to the end: one of them started when
# the other worker was nearly done decided when the run ended. Longest first leaves only small files for
# the end, so the workers finish close together. A file missing here only loses its place
# (tests/test_suite_schedule.py checks the names exist).
DISPATCHED_FIRST = (
    "test_notebooks.py",
    "test_docs.py",
    "test_reliability_flows.py",
    "test_reliability_fuzz_cli.py",
    "test_phaseplane_template.py",
    "test_fig57_packet.py",
    "test_cli_usability.py",
    "test_cli_interrupt.py",
    "test_types.py",
    "test_tcp_ns3_batch.py",
    "test_lazy_models.py",
    "test_reliability_hangs.py",
    "test_certified_window.py",
    "test_generic_models.py",
    "test_fct_protocols.py",
    "test_reliability_build.py",
    "test_check_feasibility.py",
    "test_reliability_cext.py",
    "test_phaseplane_sweep.py",
    "test_periodic_orbits.py",
    "test_exact_edges.py",
    "test_dcqcn_timely.py",
    "test_check.py",
    "test_reference_xcp.py",
    "test_frontend.py",
    "test_c_templates.py",
    "test_doctests.py",
    "test_nyquist.py",
)


def pytest_configure(config):
    """Under pytest-xdist (``-n auto``), keep each test file on one worker (``--dist loadfile``).

    Module-scoped fixtures (the docs build, the shared simulation runs) are then built once, as in a
    serial run, and the tests of a file run in their written order. An explicit ``--dist`` wins.
    Files are handed out in the order :func:`pytest_collection_modifyitems` gives them (xdist's own
    reordering by number of tests is switched off; ``--dist`` given explicitly keeps it).
    """
    given = config.invocation_params.args
    explicit = any(str(a).startswith("--dist") or a == "-d" for a in given)
    if getattr(config.option, "dist", "no") == "load" and not explicit:
        config.option.dist = "loadfile"
        config.option.loadscopereorder = False


def schedule_order(files):
    """Files in the order pytest-xdist should hand them out: :data:`DISPATCHED_FIRST` in its order, then
    the rest as xdist would order them (most tests first, ties in collection order).

    ``files`` is each collected test's file name, in collection order.
    """
    counts = collections.Counter(files)
    rest = sorted(dict.fromkeys(f for f in files if f not in DISPATCHED_FIRST), key=lambda f: -counts[f])
    return [f for f in DISPATCHED_FIRST if f in counts] + rest


def pytest_collection_modifyitems(config, items):
    # on xdist's workers only (the controller hands files out in their collection's order): a serial run keeps its own
    if not hasattr(config, "workerinput"):
        return
    rank = {name: k for k, name in enumerate(schedule_order([item.path.name for item in items]))}
    items.sort(key=lambda item: rank[item.path.name])  # stable: a file's tests keep their written order


def examples(n):
    """Hypothesis example count for a property test of the C extensions: ``n``, or fewer in the sanitizer run.

    tests/sanitize_datapath.sh sets RCPSTAB_EXAMPLES_DIVISOR: under ASan + UBSan it needs every entry point
    and code path reached, not each property at its full count, which the uninstrumented suite runs.
    """
    return max(10, n // int(os.environ.get("RCPSTAB_EXAMPLES_DIVISOR", "1")))


def hammer_two_threads(sim, calls_for, seconds, tolerated=(RuntimeError,), seed=0):
    """Two threads call random entry points of one C simulator for ``seconds``; the exception types seen.

    ``calls_for(rng)`` gives a thread its list of callables (drawing their arguments from ``rng``); an
    exception of a ``tolerated`` type is recorded, any other fails the test (a crash ends the process).
    Afterwards the simulator must still conserve packets: sent = delivered + dropped + in flight.
    """
    import random
    import threading
    import time

    seen, stop = set(), time.monotonic() + seconds

    def worker(k):
        rng = random.Random(seed + k)
        calls = calls_for(rng)
        while time.monotonic() < stop:
            try:
                rng.choice(calls)()
            except tolerated as exc:
                seen.add(type(exc))

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    c = sim.counters()
    assert c["sent"] == c["delivered"] + c["dropped"] + c["in_flight"]
    return seen


# A fresh interpreter's warning filters (Python's defaults): in-process runs of the command line show what a
# new process would print, not what pytest's or an earlier test's filters let through.
_FRESH_PROCESS_FILTERS = [
    ("default", DeprecationWarning, "__main__"),
    ("ignore", DeprecationWarning, None),
    ("ignore", PendingDeprecationWarning, None),
    ("ignore", ImportWarning, None),
    ("ignore", ResourceWarning, None),
]


def run_cli(capsys, *argv):
    """``python -m rcpstab *argv`` in this process: ``(exit code, stdout, stderr)``.

    For tests about a command's output and exit code (~0.5-1 s of start-up saved per call); process-level
    contracts (signals, environment, a real traceback-free exit) keep a real subprocess. Warnings are shown
    on stderr as a new process shows them (its default filters, the command's one-line format; the
    project's "error" filters kept), so a test counting stderr lines sees them; argparse's exits
    (``SystemExit``) give their code.
    """
    import warnings

    from rcpstab.cli import main

    capsys.readouterr()
    errors = [f for f in warnings.filters if f[0] == "error"]  # the project's own (pyproject): kept
    with warnings.catch_warnings(record=True) as shown:
        warnings.resetwarnings()
        for action, category, module in reversed(_FRESH_PROCESS_FILTERS):
            warnings.filterwarnings(action, category=category, module=module or "")
        warnings.filters[:0] = errors
        try:
            code = main(list(argv))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    out, err = capsys.readouterr()
    from rcpstab.cli import _one_line_warning

    err = "".join(_one_line_warning(w.message, w.category, w.filename, w.lineno) for w in shown) + err
    return code, out, err
