"""Time ``rcpstab check`` on every shipped example (run by hand, not a timed test).

``python benchmarks/bench_check.py [--workers 2] [--samples 4] [--packet]``: the full check of
each ``rcpstab/check/examples/*.toml`` on its default envelope, suggestion search included (as the command
runs it), one JSON line per example: file, exit code (and with ``--criterion nonlinear``), failing
findings, the flash crowd's recovery (RTTs), peak queue and drops (C*d0, with the envelope's
buffer), suggestion (or why there is none), wall time; then the total and the slowest wall time.
With ``--packet`` also the packet flash crowd: passed, packet recovery and the rcp-router fluid's (RTTs).
"""

from __future__ import annotations

import argparse
import json
import pathlib
import subprocess
import sys
import time

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "rcpstab" / "check" / "examples"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--samples", type=int, default=4)
    parser.add_argument("--packet", action="store_true")
    args = parser.parse_args()
    walls = []
    for path in sorted(EXAMPLES.glob("*.toml")):
        command = [
            sys.executable,
            "-m",
            "rcpstab",
            "check",
            str(path),
            "--json",
            "--workers",
            str(args.workers),
            "--samples",
            str(args.samples),
        ] + (["--packet"] if args.packet else [])
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True)
        wall = time.perf_counter() - start
        report = json.loads(done.stdout)
        suggestion = report.get("suggestion")
        nonlinear = subprocess.run(
            command + ["--criterion", "nonlinear", "--no-suggest"], capture_output=True, text=True
        ).returncode
        crowd = next(f for f in report["findings"] if f["name"] == "flash_crowd")
        packet = next((f for f in report["findings"] if f["name"] == "packet_flash_crowd"), None)
        walls.append(wall)
        extra = (
            {}
            if packet is None
            else {
                "packet_flash_crowd": {
                    "passed": packet["passed"],
                    "packet_rtt": packet["details"].get("packet", {}).get("recovery_rtt"),
                    "fluid_rcp_router_rtt": packet["details"].get("fluid", {}).get("recovery_rtt"),
                }
            }
        )
        print(
            json.dumps(
                {
                    **extra,
                    "file": path.name,
                    "exit": done.returncode,
                    "exit_nonlinear": nonlinear,
                    "wall_s": round(wall, 2),
                    "failing": {f["name"]: f["figure"] for f in report["findings"] if f["gating"] and not f["passed"]},
                    "flash_crowd_rtt": crowd["figure"],
                    "flash_crowd": crowd["explanation"].split(" Threshold:")[0],
                    "suggestion": None
                    if suggestion is None
                    else (suggestion["reason"] if suggestion["alpha"] is None else [suggestion["alpha"], suggestion["beta"]]),
                }
            ),
            flush=True,
        )
    print(json.dumps({"examples": len(walls), "total_wall_s": round(sum(walls), 2), "slowest_wall_s": round(max(walls), 2)}))


if __name__ == "__main__":
    main()
