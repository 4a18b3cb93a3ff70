"""Issue 24 (mechanism A): how the R-TCP sender's window raises RCP's settled rate.

Set-up of experiments/fct_fluid_gap.py: fixed 37-packet flows, C = 20 Mb/s, RTPD 0.1 s (BDP 250
packets), RCP (0.1, 1.0), 4000 flows, seeds 1-3, loads 0.8 and 0.85, the same arrivals in
every variant. Means over seeds.

1. Packet simulator with and without the window (``run_flows(keep_trace=True)``, the trace's
   sender census at every control interval):
   * the router's settled rate R/C and its input utilisation u = y/C;
   * the mean queue against the closed form the rate law pins it to: a stationary R has
     E[d ln R] = 0, i.e. alpha (C - E[y]) = beta E[q] / d, so E[q] = alpha (1 - u) C d / beta
     with d the router's mean avg_rtt (whatever the window does);
   * the decomposition y = n_s * (mean sending rate): flows sending (data left) n_s against the
     router's N-hat = C/R, the input over the sum of the rates stamped on the sending flows
     (``y/stamped``: 1 when flows send at their rate), the share of sending flows the window
     holds (full while the pacer is due), overall and by the change of ln R over the previous
     ten control intervals (about one RTT: a rate cut, steady, a rise).
2. Dose: the window scaled by 1, 1.25, 1.5 and none, in the packet simulator
   (``window_scale``) and in the fluid flow model (rcpstab.fct.fluid_flows) with the window as
   each flow's limit on its bits in flight (``window="in_flight"``), as a rate cap
   min(R, W/RTT) (``window="rate_cap"``), and in flight but never shrinking on a rate cut
   (``window_shrinks=False``).

Usage: python experiments/fct_window_mechanism.py [--flows 4000] [--seeds 1,2,3] [--loads 0.8,0.85]
"""

from __future__ import annotations

import argparse

import numpy as np

from rcpstab.fct.flow_run import draw_workload, run_flows
from rcpstab.fct.fluid_flows import fluid_flow_run
from rcpstab.packet.hosts.flow_traffic import ArrivalProcess, parse_sizes

C, D, PKT, ALPHA, BETA = 20e6, 0.1, 1000, 0.1, 1.0
SIZES = parse_sizes("fixed:size=37")
MSS_BITS = (PKT - 40) * 8.0
CUT_BINS = ((-9.0, -0.2), (-0.2, -0.05), (-0.05, 0.05))  # ln R change over the last ten intervals


def packet_census(load: float, seed: int, n: int, **kw) -> dict:
    """One packet run's settled rate, pinned queue and sender census (window time averages)."""
    r = run_flows(ALPHA, BETA, capacity_bps=C, rtt_s=D, load=load, sizes=SIZES, n_flows=n, seed=seed, keep_trace=True, **kw)
    tr = r.trace
    t0, t1 = r.window_s
    m = np.flatnonzero((tr["t_s"] > t0) & (tr["t_s"] <= t1))
    u = tr["input_bps"][m].mean() / C
    d = tr["avg_rtt_ms"][m].mean() / 1e3
    ns, held, y = tr["n_sending"][m], tr["n_window_full"][m], tr["input_bps"][m]
    stamped = tr["stamped_bps"][m - 1]  # the rates the senders held as the interval began
    cut = np.log(tr["R_over_C"][m - 1]) - np.log(tr["R_over_C"][m - 11])
    out = {
        "R/C": r.mean_R_over_C,
        "u": u,
        "queue": tr["queue_bytes"][m].mean() / PKT,
        "pinned": ALPHA * (1 - u) * C * d / BETA / (8 * PKT),
        "n_s": ns.mean(),
        "N-hat": (1.0 / tr["R_over_C"][m]).mean(),
        "y/stamped": y.sum() / stamped.sum(),
        "held": held.sum() / ns.sum(),
    }
    for lo, hi in CUT_BINS:
        k = (cut >= lo) & (cut < hi)
        out[f"share{lo}"] = k.mean()
        out[f"held{lo}"] = held[k].sum() / max(ns[k].sum(), 1)
        out[f"y/st{lo}"] = y[k].sum() / stamped[k].sum()
    return out


def fluid_rate(load: float, seed: int, n: int, **kw) -> float:
    """The fluid flow model's mean R/C over the measurement window on the same arrivals."""
    st, sz, warm = draw_workload(SIZES, ArrivalProcess(), n, load, C, PKT, seed)
    fl = fluid_flow_run(
        ALPHA, BETA, capacity_bps=C, rtt_s=D, arrival_s=st, size_bits=sz * PKT * 8.0, packet_bits=PKT * 8.0, dt_s=0.001, **kw
    )
    w = (fl.t_s > st[warm]) & (fl.t_s <= st[-1])
    return float(np.mean(fl.R_bps[w]) / C)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--flows", type=int, default=4000)
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--loads", default="0.8,0.85")
    args = ap.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    n = args.flows
    print(f"{n} flows of 37 packets, C 20 Mb/s, RTPD 0.1 s, RCP (0.1, 1.0), seeds {args.seeds}; means over seeds")
    for load in (float(x) for x in args.loads.split(",")):
        print(f"\nload {load}: 1. packet simulator, census")
        for name, kw in (("window", {}), ("no window", dict(sender_window=False))):
            runs = [packet_census(load, s, n, **kw) for s in seeds]
            m = {k: float(np.mean([r[k] for r in runs])) for k in runs[0]}
            print(
                f"  {name:9s} R/C {m['R/C']:.4f}  u {m['u']:.4f}  queue {m['queue']:.2f} pkts, pinned "
                f"alpha (1-u) C d / beta {m['pinned']:.2f}  n_s {m['n_s']:.1f}  N-hat {m['N-hat']:.1f} "
                f"(N-hat/n_s {m['N-hat'] / m['n_s']:.3f})  y/stamped {m['y/stamped']:.3f}  held {m['held']:.4f}"
            )
            print(
                "            by ln R change over the previous 10 intervals: "
                + "; ".join(
                    f"[{lo:g}, {hi:g}) {m[f'share{lo}']:.3f} of time: held {m[f'held{lo}']:.3f}, y/stamped {m[f'y/st{lo}']:.3f}"
                    for lo, hi in CUT_BINS
                ),
                flush=True,
            )
        print(f"load {load}: 2. dose, R/C (x no window)")
        rows = {}
        for scale in (1.0, 1.25, 1.5, None):
            pkw = dict(sender_window=False) if scale is None else dict(window_scale=scale)
            fkw = {} if scale is None else dict(window_mss_bits=MSS_BITS / scale)
            rows[scale] = (
                np.mean(
                    [
                        run_flows(
                            ALPHA, BETA, capacity_bps=C, rtt_s=D, load=load, sizes=SIZES, n_flows=n, seed=s, **pkw
                        ).mean_R_over_C
                        for s in seeds
                    ]
                ),
                np.mean([fluid_rate(load, s, n, window="in_flight", **fkw) for s in seeds]),
                np.mean([fluid_rate(load, s, n, **fkw) for s in seeds]),
                np.mean([fluid_rate(load, s, n, window="in_flight", window_shrinks=False, **fkw) for s in seeds]),
            )
        base = rows[None]
        for scale, v in rows.items():
            label = "none" if scale is None else f"x{scale:g}"
            print(
                f"  window {label:5s} packet {v[0]:.4f} ({v[0] / base[0]:.3f})  fluid in flight {v[1]:.4f} ({v[1] / base[1]:.3f})  "
                f"fluid rate cap {v[2]:.4f} ({v[2] / base[2]:.3f})  fluid in flight, no shrink {v[3]:.4f} ({v[3] / base[3]:.3f})",
                flush=True,
            )


if __name__ == "__main__":
    main()
