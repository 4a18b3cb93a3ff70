"""RCP-AC flash crowd, packet vs fluid: peak queue after 10 -> 100 flows (rcp-ac.txt Fig. 1's step).

150 Mb/s, 200 ms, alpha 0.4, beta 0.2, gamma_AC 0.2; 10 long flows at t = 0, 90 more at
``--jump`` s; a 1 GB drop-tail buffer so that nothing is dropped (the fluid queue is unbounded).
The packet router's acceleration budget is gamma*B with B its buffer (eq. 2: 0.2 * 1 GB = 53
C*d0), while the fluid model's B is one C*d0 (Fig. 1's B = C*RTT). The fluid runs are therefore
made at gamma_AC = 0.2 (its own B) and at the gamma that gives the packet router's budget.

    python experiments/rcpac_flash_crowd.py [--jump 2] [--end 12] [--json]
"""

from __future__ import annotations

import argparse
import json
import math

import numpy as np

from rcpstab.models import rcpac
from rcpstab.packet.routers.rcpac.control import RCPAC_GAMMA
from rcpstab.packet.simulator.run import run_scenario
from rcpstab.packet.simulator.scenarios import Scenario
from rcpstab.phaseplane.flash_crowd import flash_crowd_peak_queue

CAPACITY, RTT, ALPHA, BETA, BUFFER = 150e6, 0.2, 0.4, 0.2, 10**9


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jump", type=float, default=2.0, help="crowd arrival, s")
    ap.add_argument("--end", type=float, default=12.0, help="end of the runs, s")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    sc = Scenario(
        name="rcpac-flash-crowd",
        capacity_bps=CAPACITY,
        rtt_s=RTT,
        eta=1.0,
        long_flows=((0.0, math.inf),) * 10 + ((args.jump, math.inf),) * 90,
        t_end_s=args.end,
        buffer_bytes=BUFFER,
        initial_R_over_C=0.1,
    )
    out = {}
    for protocol in ("rcp", "rcpac"):
        run = run_scenario(sc, ALPHA, BETA, protocol=protocol)
        after = run.t >= args.jump
        out[f"packet_{protocol}_peak_bdp"] = float(run.queue_bytes[after].max() / sc.bdp_bytes)
        out[f"packet_{protocol}_dropped"] = run.counters["dropped"]
    budget_gamma = RCPAC_GAMMA * BUFFER / sc.bdp_bytes
    own, matched = flash_crowd_peak_queue(
        rcpac.MODEL,
        {"alpha": ALPHA, "beta": BETA, "C": CAPACITY, "d0": RTT, "gamma_AC": np.array([RCPAC_GAMMA, budget_gamma])},
        t_jump=args.jump,
        t_end=args.end,
    )
    out.update(fluid_rcpac_peak_bdp=float(own), fluid_matched_gamma=budget_gamma, fluid_matched_peak_bdp=float(matched))
    print(json.dumps(out) if args.json else "\n".join(f"{k}: {v:.4g}" for k, v in out.items()))


if __name__ == "__main__":
    main()
