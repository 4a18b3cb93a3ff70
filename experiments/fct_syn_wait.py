"""Why the flow simulator's held-rate duration exceeds the FCFS queue's (issue 24, item 4).

Fig. A.3's set-up (C = 150 Mb/s, RTPD 0.1 s, 1000-byte packets, bounded Pareto of mean 25
packets, shape 1.2, max 1e3, rho = 0.8), 10 000 flows, seeds 1-5, the same drawn arrivals in
every method. Per seed and rate:

* the flow simulator (``FCT - 1.5 RTPD``, as ``rcpstab fct --fixed-rate``), with the R-TCP
  sender window and without it (``sender_window=False``);
* the plain FCFS queue (App. A's ``L P/R + W_last``) and the terms that bring it to the flow
  simulator (:func:`rcpstab.fct.syn_wait.syn_accounting`), ending in the extended FCFS queue
  with the SYNs in it (:func:`rcpstab.fct.syn_wait.fcfs_with_syn`), also at the rate the
  router's register holds (integer bytes/ms);
* the second check: the SYN's wait under PASTA is the flow simulator's own time-average queue
  over C (its ``mean_queue_bytes``, the measurement window); it is set against the flow
  simulator's duration minus the extended model's data part, over the window's flows. At
  R = C a closed form with no model in it: the SYN and the last packet each find the
  time-average queue, the last one plus its own flow's excess E[Delta] = (E[L] - P) rho
  (:func:`rcpstab.fct.ucurve_gap.last_packet_excess_bits`), so
  E[duration] = 2 E[Q]/C + E[L] P/C + E[Delta]/C + 2 S/C.

Means over seeds with 95% t intervals.

Usage: python experiments/fct_syn_wait.py [--out FILE.json] [--flows N] [--seeds 1,2,3,4,5]
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from rcpstab.fct.fixed_rate import parse_bounded_pareto
from rcpstab.fct.flow_run import NS_PER_S, draw_workload, run_flows
from rcpstab.fct.syn_wait import fcfs_with_syn, syn_accounting
from rcpstab.fct.ucurve_gap import last_packet_excess_bits
from rcpstab.intervals import t_half_width
from rcpstab.packet.hosts.flow_traffic import ArrivalProcess
from rcpstab.packet.routers.rcp.control import rate_register

C, RTT, LOAD = 150e6, 0.1, 0.8
SIZES = "bpareto:mean=25,shape=1.2,max=1000"
FRACTIONS = (0.05, 0.2, 0.5, 1.0)


def ci(values: list[float]) -> list[float]:
    v = np.asarray(values, float)
    return [float(v.mean()), float(t_half_width(v))]


def one(seed: int, flows: int, frac: float) -> dict:
    sizes = parse_bounded_pareto(SIZES)
    start, size, warm = draw_workload(sizes, ArrivalProcess(), flows, LOAD, C, 1000, seed)
    R = frac * C
    out: dict = {"seed": seed, "rate_over_C": frac}
    for window in (True, False):
        run = run_flows(
            0.1,
            1.0,
            capacity_bps=C,
            rtt_s=RTT,
            load=LOAD,
            sizes=sizes,
            n_flows=flows,
            seed=seed,
            fixed_rate_bps=R,
            buffer_bdp=1000.0,
            sender_window=window,
        )
        rec = np.sort(run.records, order="id")
        assert len(rec) == flows and run.counters["dropped"] == 0
        sim = rec["fct_ns"] / NS_PER_S - 1.5 * RTT
        key = "sim" if window else "sim_no_window"
        out[f"{key}_ms"] = 1e3 * float(sim.mean())
        out[f"{key}_window_flows_ms"] = 1e3 * float(sim[warm:].mean())
        if window:
            out["Q_sim_over_C_ms"] = 1e3 * run.mean_queue_bytes * 8 / C
            out["extra_fwd_packets"] = int(run.counters["fwd_arrivals"] - flows - size.sum())  # probes, resends
            sim_w = sim
    acc = syn_accounting(start, size, R, C, RTT)
    ext = fcfs_with_syn(start, size, R, C, RTT)
    out["fcfs_ms"] = 1e3 * acc["fcfs_s"]
    out["terms_ms"] = {k: 1e3 * v for k, v in acc["terms_s"].items()}
    out["extended_ms"] = 1e3 * acc["extended_s"]
    out["closed_form_no_feedback_ms"] = 1e3 * acc["closed_form_s"]
    out["ext_syn_wait_window_ms"] = 1e3 * float(ext.syn_wait[warm:].mean())
    # the flow simulator's SYN wait, inferred: its duration minus the extended model's data part
    data_part = ext.duration - ext.syn_wait
    out["sim_syn_wait_inferred_window_ms"] = 1e3 * float((sim_w - data_part)[warm:].mean())
    d = sim_w - ext.duration
    out["per_flow_sim_minus_ext_us"] = {"mean": 1e6 * float(d.mean()), "p99_abs": 1e6 * float(np.quantile(abs(d), 0.99))}
    if frac == 1.0:
        mean_bits = float(size[warm:].mean()) * 8000.0
        delta = last_packet_excess_bits(C, C, LOAD, mean_bits, 8000.0) / C
        closed = 2 * out["Q_sim_over_C_ms"] / 1e3 + mean_bits / C + delta + 2 * 320.0 / C
        out["closed_form_at_C_pct"] = 100 * (1e3 * closed / out["sim_window_flows_ms"] - 1)
    # the router's rate register holds integer bytes/ms: 0.05 C = 937.5 is held as 938
    held = rate_register(R / 8000) * 8000.0
    out["extended_held_rate_ms"] = 1e3 * float(fcfs_with_syn(start, size, held, C, RTT).duration.mean())
    d2 = out["sim_no_window_ms"] - out["extended_ms"]
    out["sim_no_window_minus_ext_ms"] = d2
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--flows", type=int, default=10_000)
    ap.add_argument("--seeds", default="1,2,3,4,5")
    args = ap.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    rows = []
    for frac in FRACTIONS:
        runs = [one(s, args.flows, frac) for s in seeds]
        row = {"rate_over_C": frac, "per_seed": runs}
        for k in (
            "sim_ms",
            "sim_no_window_ms",
            "fcfs_ms",
            "extended_ms",
            "closed_form_no_feedback_ms",
            "Q_sim_over_C_ms",
            "ext_syn_wait_window_ms",
            "sim_syn_wait_inferred_window_ms",
            "sim_no_window_minus_ext_ms",
        ):
            row[k] = ci([r[k] for r in runs])
        row["terms_ms"] = {k: ci([r["terms_ms"][k] for r in runs]) for k in runs[0]["terms_ms"]}
        row["sim_minus_ext_pct"] = ci([100 * (r["sim_ms"] / r["extended_ms"] - 1) for r in runs])
        row["sim_no_window_minus_ext_held_rate_pct"] = ci(
            [100 * (r["sim_no_window_ms"] / r["extended_held_rate_ms"] - 1) for r in runs]
        )
        row["sim_no_window_minus_ext_pct"] = ci([100 * (r["sim_no_window_ms"] / r["extended_ms"] - 1) for r in runs])
        row["syn_pasta_pct"] = ci([100 * (r["sim_syn_wait_inferred_window_ms"] / r["Q_sim_over_C_ms"] - 1) for r in runs])
        row["extra_fwd_packets"] = sum(r["extra_fwd_packets"] for r in runs)
        if frac == 1.0:
            row["closed_form_at_C_pct"] = ci([r["closed_form_at_C_pct"] for r in runs])
            print(f"R = C: 2 E[Q]/C + E[L]P/C + E[Delta]/C + 2S/C against the flow simulator {row['closed_form_at_C_pct']}%")
        rows.append(row)
        f = lambda v: f"{v[0]:.2f}+-{v[1]:.2f}"  # noqa: E731
        print(
            f"R={frac}C sim {f(row['sim_ms'])} (no window {f(row['sim_no_window_ms'])}) fcfs {f(row['fcfs_ms'])} "
            f"ext {f(row['extended_ms'])} sim/ext-1 {f(row['sim_minus_ext_pct'])}% (no window {f(row['sim_no_window_minus_ext_pct'])}%) | "
            + " ".join(f"{k} {f(v)}" for k, v in row["terms_ms"].items())
            + f" | PASTA: SYN wait inferred {f(row['sim_syn_wait_inferred_window_ms'])} vs Q_sim/C {f(row['Q_sim_over_C_ms'])} "
            f"({f(row['syn_pasta_pct'])}%); held-rate ext, no window {f(row['sim_no_window_minus_ext_held_rate_pct'])}%; no-feedback closed form {f(row['closed_form_no_feedback_ms'])}; extra pkts {row['extra_fwd_packets']}",
            flush=True,
        )
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
