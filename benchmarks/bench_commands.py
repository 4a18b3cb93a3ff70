"""What a command costs against what its work costs: wall time of whole commands, of their
computation alone, and of the import floor every plotting command pays.

For each command the benchmark times, in the same run and interleaved (so that a load on the
machine hits every side alike):

- ``command``: ``python -m rcpstab ...`` in a fresh process, wall clock;
- ``floor``: ``python -c "import numpy, matplotlib"`` in a fresh process (the least any plotting
  command can cost);
- ``work``: the command's computation in a warm process (imports done, derivations cached on
  disk, but the exact engine's curve cache cleared), timed with ``time.perf_counter``;
- ``baseline`` (with ``--baseline PATH``): the same command run from another checkout (e.g. a
  ``git worktree`` of ``main``), so before/after ratios come from one run.

It prints medians over ``--repeat`` rounds and the ratio command / (work + floor), the
acceptance measure of issue 26 (within 1.5x), in wall-clock and in CPU seconds (user + system: on a
loaded machine the wall clock adds waiting for a core, which the CPU time leaves out). The CSVs of the baseline
and of this tree are compared byte for byte so that a speed-up cannot hide a changed result; the PNGs byte for
byte too, and where they differ (the map's and portrait's PNGs are drawn with Pillow since issue 26, with a
baseline drawn by matplotlib) by their size in pixels and, for the map, the pixels in the stable cells' colour.

Every process runs with compiled bytecode, as an installed package has it: ``PYTHONDONTWRITEBYTECODE`` is
dropped and the bytecode goes to a temporary ``PYTHONPYCACHEPREFIX`` (written by the warm-up runs, so no
checkout is written to). With that variable set and no ``__pycache__`` in a checkout, every command compiled
rcpstab's sources anew (0.2-0.3 s of CPU), which the floor, importing installed packages, never paid.

``--csv-writers`` times the map's CSV table alone: ``csv.writer`` cell by cell against the columnar writer.

Usage: python benchmarks/bench_commands.py [--repeat 3] [--baseline PATH] [--only map,margins,portrait,bode,nyquist] [--json]
       python benchmarks/bench_commands.py --csv-writers [--repeat 3]
"""

from __future__ import annotations

import argparse
import atexit
import filecmp
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parents[1]

COMMANDS = {
    "map": [
        "map",
        "--method",
        "exact",
        "--alpha",
        "0.004:2:0.004",
        "--beta",
        "0.002:1:0.002",
        "--out",
        "{dir}/x.png",
        "--csv",
        "{dir}/x.csv",
    ],
    "margins": ["margins", "--alpha", "0.4", "--beta", "0.2"],
    "portrait": ["portrait", "--alpha", "1.4", "--beta", "0.8", "--out", "{dir}/p.png", "--csv", "{dir}/p.csv"],
    "bode": ["bode", "--alpha", "0.4", "--beta", "0.2", "--out", "{dir}/b.png"],
    "nyquist": ["nyquist", "--alpha", "0.4", "--beta", "0.2", "--out", "{dir}/n.png"],
}
FILES = ("x.csv", "x.png", "p.csv", "p.png", "b.png", "n.png")  # compared with --baseline
STABLE_RGB = (154, 194, 221)  # tab:blue at opacity 0.45 over white: a map's stable cells in both renderings

# The computation of each command, in a warm process (imports and disk-cached derivations done).
WORK = {
    "map": """
import numpy as np
from rcpstab.linear.dcurves import clear_cache
from rcpstab.linear.exact import exact_region
from rcpstab.models import get_model
m = get_model("rcp"); a = np.arange(1, 501) * 0.004; b = np.arange(1, 501) * 0.002
exact_region(m, a[:3], b[:3])
def work():
    clear_cache(); exact_region(m, a, b)
""",
    "margins": """
from rcpstab.linear.margins import margins
from rcpstab.models import get_model
m = get_model("rcp"); margins(m, 0.41, 0.21)
def work():
    margins(m, 0.4, 0.2)
""",
    "portrait": """
from rcpstab.api.trajectories import portrait
portrait("rcp", 1.4, 0.8, 5.0)
def work():
    # what portrait's run() computes for its summary, CSV and figure: trajectories, verdicts, limit cycles
    portrait("rcp", 1.4, 0.8).limit_cycles()
""",
    "bode": """
from rcpstab.api.point import bode
bode("rcp", 0.41, 0.21)
def work():
    bode("rcp", 0.4, 0.2)
""",
    "nyquist": """
from rcpstab.api.point import nyquist
nyquist("rcp", 0.41, 0.21)
def work():
    nyquist("rcp", 0.4, 0.2)
""",
}


def _run(argv, env, cwd):
    """Wall clock and CPU time (user + system of the child) of one fresh process, s."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, env=env, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - start
    now = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (now.ru_utime + now.ru_stime) - (used.ru_utime + used.ru_stime)


PYCACHE = tempfile.mkdtemp(prefix="bench_commands_pycache_")  # bytecode of every tree, out of the trees
atexit.register(shutil.rmtree, PYCACHE, True)


def _env(path):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(path)
    env["MPLBACKEND"] = "agg"
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = PYCACHE
    return env


def _same(a: Path, b: Path) -> dict | bool:
    """Whether two outputs are equal: bytes, or for PNGs that differ, their size and stable-colour pixels."""
    if filecmp.cmp(a, b, shallow=False):
        return True
    if a.suffix != ".png":
        return False
    from PIL import Image

    images = [np.asarray(Image.open(p).convert("RGB"), dtype=int) for p in (a, b)]
    stable = [int((np.abs(i - STABLE_RGB).max(axis=2) <= 3).sum()) for i in images]
    return {"bytes": False, "same_size": images[0].shape == images[1].shape, "stable_colour_pixels": stable}


def _work_time(name, path, repeat):
    """Median of ``repeat`` timings of the computation in one warm process (run from ``path``)."""
    code = (
        WORK[name]
        + f"""
import time, statistics
ts, cs = [], []
for _ in range({repeat}):
    s, c = time.perf_counter(), time.process_time(); work()
    ts.append(time.perf_counter() - s); cs.append(time.process_time() - c)
print(statistics.median(ts), statistics.median(cs))
"""
    )
    out = subprocess.run([sys.executable, "-c", code], env=_env(path), check=True, capture_output=True, text=True)
    wall, cpu = out.stdout.strip().splitlines()[-1].split()
    return float(wall), float(cpu)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="interleaved rounds (default 3)")
    parser.add_argument("--baseline", help="another checkout to time the same commands from (before/after)")
    parser.add_argument("--only", default="map,margins,portrait,bode,nyquist", help="comma-separated commands")
    parser.add_argument("--csv-writers", action="store_true", help="only time the two CSV writers on the 500x500 map")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.csv_writers:
        print(json.dumps(csv_writers(args.repeat)))
        return
    names = [n for n in args.only.split(",") if n]
    trees = {"after": HERE} | ({"before": Path(args.baseline).resolve()} if args.baseline else {})
    times = {(n, t): [] for n in names for t in trees} | {("floor", None): []}
    work = {(n, t): [] for n in names for t in trees}
    with tempfile.TemporaryDirectory() as tmp:
        dirs = {t: Path(tmp) / t for t in trees}
        for d in dirs.values():
            d.mkdir()
        for name in names:  # warm the disk caches (derivations, compiled kernels)
            for tree in trees:
                argv = [a.format(dir=dirs[tree]) for a in COMMANDS[name]]
                _run([sys.executable, "-m", "rcpstab", *argv], _env(trees[tree]), dirs[tree])
        for _ in range(args.repeat):
            times[("floor", None)].append(_run([sys.executable, "-c", "import numpy, matplotlib"], _env(HERE), tmp))
            for name in names:
                for tree in trees:
                    argv = [a.format(dir=dirs[tree]) for a in COMMANDS[name]]
                    times[(name, tree)].append(_run([sys.executable, "-m", "rcpstab", *argv], _env(trees[tree]), dirs[tree]))
                    if name in WORK_FUNCS:
                        work[(name, tree)].append(WORK_FUNCS[name](trees[tree]))
        same = {}
        if "before" in trees:
            for f in FILES:
                a, b = dirs["after"] / f, dirs["before"] / f
                if a.exists() and b.exists():
                    same[f] = _same(a, b)

    def median(samples, k):  # k = 0: wall clock, 1: CPU time
        return float(np.median([x[k] for x in samples])) if samples else float("nan")

    floor, floor_cpu = (median(times[("floor", None)], k) for k in (0, 1))
    result = {
        "repeat": args.repeat,
        "floor_s": round(floor, 3),
        "floor_cpu_s": round(floor_cpu, 3),
        "load_1min": os.getloadavg()[0],
        "commands": {},
        "outputs_identical": same,  # CSVs byte for byte; PNGs byte for byte or {size, stable-colour pixels}
    }
    for name in names:
        for tree in trees:
            cmd, cmd_cpu = (median(times[(name, tree)], k) for k in (0, 1))
            wk, wk_cpu = (median(work[(name, tree)], k) for k in (0, 1))
            result["commands"][f"{name} ({tree})"] = {
                "command_s": round(cmd, 3),
                "work_s": round(wk, 4),
                "ratio_command_to_work_plus_floor": round(cmd / (wk + floor), 2),
                # CPU seconds: what a load on the machine changes least (it adds waiting, not work)
                "command_cpu_s": round(cmd_cpu, 3),
                "work_cpu_s": round(wk_cpu, 4),
                "ratio_cpu": round(cmd_cpu / (wk_cpu + floor_cpu), 2),
            }
        if "before" in trees:
            result["commands"][f"{name} speed-up"] = round(
                median(times[(name, "before")], 0) / median(times[(name, "after")], 0), 2
            )
            result["commands"][f"{name} CPU speed-up"] = round(
                median(times[(name, "before")], 1) / median(times[(name, "after")], 1), 2
            )
    if args.json:
        print(json.dumps(result))
    else:
        print(json.dumps(result, indent=1))


def csv_writers(repeat: int) -> dict:
    """The 500x500 exact map's table written by csv.writer cell by cell (the former RegionMap.to_csv) and by
    :func:`rcpstab.runtime.csvtable.write_csv_table`, interleaved; medians and whether the files are equal."""
    import csv

    from rcpstab.linear.exact import exact_region
    from rcpstab.runtime.csvtable import cell, write_csv_table

    region = exact_region("rcp", np.arange(1, 501) * 0.004, np.arange(1, 501) * 0.002, crosscheck=False)
    table = region.table
    old, new = [], []
    with tempfile.TemporaryDirectory() as tmp:
        a, b = Path(tmp) / "old.csv", Path(tmp) / "new.csv"
        for _ in range(repeat):
            start = time.perf_counter()
            with open(a, "w", newline="") as fh:
                writer = csv.writer(fh)
                writer.writerow(list(table))
                for row in zip(*table.values()):
                    writer.writerow([cell(v) for v in row])
            old.append(time.perf_counter() - start)
            start = time.perf_counter()
            write_csv_table(b, table)
            new.append(time.perf_counter() - start)
        same = filecmp.cmp(a, b, shallow=False)
    return {
        "csv_writer_s": round(float(np.median(old)), 3),
        "columnar_s": round(float(np.median(new)), 3),
        "speed_up": round(float(np.median(old) / np.median(new)), 1),
        "identical": same,
    }


def _map_work(path):
    return _work_time("map", path, 3)


def _margins_work(path):
    return _work_time("margins", path, 3)


def _portrait_work(path):
    return _work_time("portrait", path, 1)


WORK_FUNCS = {
    "map": _map_work,
    "margins": _margins_work,
    "portrait": _portrait_work,
    "bode": lambda path: _work_time("bode", path, 3),
    "nyquist": lambda path: _work_time("nyquist", path, 3),
}


if __name__ == "__main__":
    main()
