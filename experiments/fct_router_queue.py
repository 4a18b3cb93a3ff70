"""Issue 24 (mechanism B): why each router of the parking-lot chain held 40-75 packets.

Set-up of experiments/fct_multilink_hops.py: links of 50 Mb/s, group 0's RTPD 0.1 s, load 0.9
on every link, Pareto sizes (shape 1.2, mean 25 packets), RCP (0.1, 1.0); every router starts
at R = C (an idle router's rate). The mean queue is over the window of that script, from the
arrival at 10% of the span to the last arrival.

1. Per link or chain: the mean router queue of the chain with n = 1, 2, 4, 8 links (400 flows a
   group, seeds 1-3; n = 1 is one link carrying two groups), beside the single-link flow
   simulator (``run_flows``, 800 flows, the same load and sizes), and the routers' R/C over
   the first and the last tenth of the window.
2. Run length: flows per group 400, 1000, 2000, 4000 (n = 1, 2, 4; seeds 1-2): the mean queue
   over the window and over its second half, against the closed form the rate law pins a
   settled router's mean queue to, alpha (1 - u) C d / beta (u the router's input over C and
   d its avg_rtt, both over the second half): a stationary R has E[d ln R] = 0; and over the
   whole window the budget of ln R the rate law keeps, alpha (1 - u) C d / beta +
   C d^2 ln(R(t0) / R(t1)) / (beta T): the excess a window pays for a rate still falling.
3. Second method, the flow-level fluid model (rcpstab.fct.fluid_flows, its own rate law from
   R = C, the packet-scale M/D/1 queue) of one link driven by the same arrivals as the chain with
   n = 1: its mean queue (fluid plus packet-scale) against the packet router's, at C = 20, 50,
   100 Mb/s, loads 0.8 and 0.9, 400 and 2000 flows a group, seeds 1-2. Neither prediction has
   a fitted constant, so there is nothing to calibrate.
4. Counterfactual: the single-link flow simulator (800 flows, seeds 1-3) with its router started at
   R/C = 1 (as always), 0.1 and 0.03 (near where the long runs settle): the mean queue against the
   pinned alpha (1 - u) C d / beta.

Usage: python experiments/fct_router_queue.py [--parts 1,2,3,4]
"""

from __future__ import annotations

import argparse

import numpy as np

from rcpstab.fct.flow_run import run_flows
from rcpstab.fct.fluid_flows import fluid_flow_run
from rcpstab.fct.multilink import chain_fct
from rcpstab.packet.hosts.flow_traffic import parse_sizes

C, RTT0, LOAD, PKT, ALPHA, BETA = 50e6, 0.1, 0.9, 1000, 0.1, 1.0
SIZES = parse_sizes("pareto:mean=25,shape=1.2")


def window_mean(tq: dict, link: int, t0: float, t1: float, key: str) -> float:
    """Time average of a router trace column over (t0, t1] (each update holds until the next)."""
    m = (tq["link"] == link) & (tq["t_s"] > t0) & (tq["t_s"] <= t1)
    dt = np.diff(np.r_[t0, tq["t_s"][m]])
    return float(np.average(tq[key][m], weights=dt))


def chain(n: int, flows: int, seed: int, capacity: float = C, load: float = LOAD) -> dict:
    """One chain run: per router, the mean queue over the window and its second half, the pinned
    queue of the second half and R/C over the window's first and last tenth."""
    r = chain_fct(
        "rcp",
        ALPHA,
        BETA,
        n_links=n,
        capacity_bps=capacity,
        rtt0_s=RTT0,
        load=load,
        sizes=SIZES,
        n_flows=flows,
        seed=seed,
        queues=True,
    )
    tq, a = r["queue_trace"], r["arrival_s"]
    t0, t1 = 0.1 * a[-1], a[-1]
    tm, tenth = 0.5 * (t0 + t1), 0.1 * (t1 - t0)
    rows = []
    for li in range(n):
        u, d = window_mean(tq, li, tm, t1, "utilization"), window_mean(tq, li, tm, t1, "avg_rtt_s")
        # the whole window's budget of ln R: mean q = alpha (1 - u) C d / beta + C d^2 ln(R(t0) / R(t1)) / (beta T)
        uw, dw = window_mean(tq, li, t0, t1, "utilization"), window_mean(tq, li, t0, t1, "avg_rtt_s")
        m = np.flatnonzero(tq["link"] == li)
        r0 = tq["R_over_C"][m[np.searchsorted(tq["t_s"][m], t0) - 1]]
        r1 = tq["R_over_C"][m[np.searchsorted(tq["t_s"][m], t1, side="right") - 1]]
        budget = (ALPHA * (1 - uw) * dw + dw * dw * np.log(r0 / r1) / (t1 - t0)) * capacity / BETA / (8 * PKT)
        rows.append(
            (
                window_mean(tq, li, t0, t1, "queue_bytes") / PKT,
                window_mean(tq, li, tm, t1, "queue_bytes") / PKT,
                ALPHA * (1 - u) * capacity * d / BETA / (8 * PKT),
                window_mean(tq, li, t0, t0 + tenth, "R_over_C"),
                window_mean(tq, li, t1 - tenth, t1, "R_over_C"),
                budget,
            )
        )
    out = dict(zip(("queue", "late_queue", "pinned", "R_first", "R_last", "budget"), np.mean(rows, axis=0)))
    out.update(span=t1 - t0, arrival_s=a, size_pkts=r["size_pkts"])
    return out


def part1() -> None:
    print("1. per-router mean queue over the window, 400 flows a group, seeds 1-3 (R/C: first / last tenth)")
    for n in (1, 2, 4, 8):
        runs = [chain(n, 400, s) for s in (1, 2, 3)]
        m = {k: np.mean([r[k] for r in runs]) for k in ("queue", "R_first", "R_last", "span")}
        print(
            f"  chain n={n}: {m['queue']:6.1f} packets   R/C {m['R_first']:.3f} / {m['R_last']:.3f}   window {m['span']:.1f} s",
            flush=True,
        )
    q, rf, rl = [], [], []
    for s in (1, 2, 3):
        f = run_flows(ALPHA, BETA, capacity_bps=C, rtt_s=RTT0, load=LOAD, sizes=SIZES, n_flows=800, seed=s, keep_trace=True)
        tr, (t0, t1) = f.trace, f.window_s
        tenth = 0.1 * (t1 - t0)
        q.append(f.mean_queue_bytes / PKT)
        rf.append(tr["R_over_C"][(tr["t_s"] > t0) & (tr["t_s"] <= t0 + tenth)].mean())
        rl.append(tr["R_over_C"][(tr["t_s"] > t1 - tenth) & (tr["t_s"] <= t1)].mean())
    print(
        f"  single link (flow simulator, 800 flows): {np.mean(q):6.1f} packets   R/C {np.mean(rf):.3f} / {np.mean(rl):.3f}",
        flush=True,
    )


def part2() -> None:
    print(
        "2. run length: mean queue over the window | the ln R budget over the window, alpha (1-u) C d / beta + "
        "C d^2 ln(R(t0)/R(t1)) / (beta T) | the queue over its second half | pinned alpha (1-u) C d / beta (second half), seeds 1-2"
    )
    for n in (1, 2, 4):
        for flows in (400, 1000, 2000, 4000):
            runs = [chain(n, flows, s) for s in (1, 2)]
            m = {k: np.mean([r[k] for r in runs]) for k in ("queue", "budget", "late_queue", "pinned", "span", "R_last")}
            print(
                f"  n={n} {flows:5d} flows a group (window {m['span']:5.1f} s): {m['queue']:6.1f} | {m['budget']:6.1f} | {m['late_queue']:6.1f} | "
                f"{m['pinned']:5.1f} packets   R/C last tenth {m['R_last']:.3f}",
                flush=True,
            )


def part3() -> None:
    print("3. one link (chain n = 1): mean queue over the window, packet router against the fluid model on the same arrivals")
    errs = []
    for capacity in (20e6, 50e6, 100e6):
        for load in (0.8, 0.9):
            for flows in (400, 2000):
                pk, fl_q = [], []
                for s in (1, 2):
                    r = chain(1, flows, s, capacity, load)
                    a, z = r["arrival_s"], r["size_pkts"]
                    t0, t1 = 0.1 * a[-1], a[-1]
                    fl = fluid_flow_run(
                        ALPHA, BETA, capacity_bps=capacity, rtt_s=RTT0, arrival_s=a, size_bits=z * PKT * 8.0,
                        packet_bits=PKT * 8.0, dt_s=0.001, horizon_s=a[-1] + 1.0,
                    )  # fmt: skip
                    w = (fl.t_s > t0) & (fl.t_s <= t1)
                    pk.append(r["queue"])
                    fl_q.append(float(np.mean(fl.queue_bits[w] + fl.packet_queue_bits[w]) / (8 * PKT)))
                ratio = np.mean(fl_q) / np.mean(pk)
                errs.append(abs(np.log(ratio)))
                print(
                    f"  C {capacity / 1e6:3.0f} Mb/s load {load} {flows:4d} flows a group: packet {np.mean(pk):6.1f}  "
                    f"fluid {np.mean(fl_q):6.1f} packets (fluid/packet {ratio:.2f}; per seed {', '.join(f'{p:.0f}/{f:.0f}' for p, f in zip(pk, fl_q))})",
                    flush=True,
                )
    print(f"  median |log(fluid/packet)| {np.median(errs):.3f}, largest {np.max(errs):.3f}")


def part4() -> None:
    print("4. single link (flow simulator, 800 flows, seeds 1-3): the router started lower; mean queue | pinned")
    for r0 in (1.0, 0.1, 0.03):
        q, pinned = [], []
        for s in (1, 2, 3):
            f = run_flows(
                ALPHA, BETA, capacity_bps=C, rtt_s=RTT0, load=LOAD, sizes=SIZES, n_flows=800, seed=s, keep_trace=True,
                initial_rate_bps=r0 * C,
            )  # fmt: skip
            tr, (t0, t1) = f.trace, f.window_s
            m = (tr["t_s"] > t0) & (tr["t_s"] <= t1)
            u, d = tr["input_bps"][m].mean() / C, tr["avg_rtt_ms"][m].mean() / 1e3
            q.append(f.mean_queue_bytes / PKT)
            pinned.append(ALPHA * (1 - u) * C * d / BETA / (8 * PKT))
        print(
            f"  R(0)/C {r0:4g}: {np.mean(q):6.1f} | {np.mean(pinned):5.1f} packets (per seed {', '.join(f'{x:.0f}' for x in q)})",
            flush=True,
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parts", default="1,2,3,4")
    args = ap.parse_args()
    print(f"RCP ({ALPHA}, {BETA}), Pareto sizes (shape 1.2, mean 25 packets), group 0 RTPD {RTT0} s; routers start at R = C")
    for p in args.parts.split(","):
        {"1": part1, "2": part2, "3": part3, "4": part4}[p]()


if __name__ == "__main__":
    main()
