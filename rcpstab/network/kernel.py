"""The multi-link fluid network's stepping loop in C: the twin of :func:`rcpstab.network.fluid.step_python`.

The loop of :func:`~rcpstab.network.fluid.simulate_network` (delayed path-minimum rates,
per-link queues clamped at 0, App. F's control path on its own timer per link) runs here for
the whole batch, step after step, without returning to Python. It is built and cached like
the phase plane's kernels (:func:`rcpstab.runtime.build.load_library`). The control-path
update (App. F lines 1-13, bytes/ms and ms) is written out in C once more because it runs per
link per interval inside the loop; the Python loop, which calls
:class:`~rcpstab.packet.routers.rcp.control.RcpController` itself, is kept as the reference and the
tests hold the two to rounding.
"""
from __future__ import annotations

import ctypes

import numpy as np

from ..packet.routers.rcp.control import MAX_RATE_ESTIMATION_INTERVAL_MS, MIN_RATE_MTU_FRACTION
from ..runtime.build import load_library

__all__ = ["step_compiled"]

SOURCE = r"""
#include <math.h>
#include <stddef.h>

#define IX(l, b) ((size_t)(l) * (size_t)B + (size_t)(b))

/* App. F lines 1-13 for one port; rates bytes/ms, times ms. Returns the next interval (ms). */
static double control_update(double *rate, double *avg, double link_rate, double alpha, double beta,
                             double eta, double mtu, double in_bytes, double rtt_sum, double rtt_count,
                             double queue_bytes, double tr)
{
    double input_rate = in_bytes / tr;                                        /* line 1 */
    if (rtt_count > 0) {
        double avg_tr = rtt_sum / rtt_count;                                  /* line 2 */
        double weight = avg_tr >= *avg ? tr / *avg
                      : (*rate / link_rate) * (avg_tr / *avg) * (tr / *avg); /* lines 3-6 */
        *avg = weight * avg_tr + (1 - weight) * *avg;                         /* line 7 */
    }
    double target = eta * link_rate;
    *rate = *rate * (1 + (tr / *avg) * (alpha * (target - input_rate) - beta * queue_bytes / *avg) / target);
    double min_rate = MIN_RATE_FRACTION * mtu / *avg;                         /* lines 9-12 */
    if (*rate < min_rate) *rate = min_rate;
    else if (*rate > target) *rate = target;
    return *avg < MAX_INTERVAL_MS ? *avg : MAX_INTERVAL_MS;                   /* line 13 */
}

int network_run(int L, int B, int A, int G, int H, long n_steps, int every, double dt, double eta, double mtu,
                const int *arrival_link, const int *arrival_group, const double *arrival_weight,
                const int *read_start, const int *read_link, const int *read_steps,
                const double *path, const double *prop_rtt, const double *capacity,
                const double *alpha, const double *beta,
                double *hist, double *rate, double *queue, double *ctl_rate, double *avg, double *interval,
                double *sample, double *work,
                double *out_rate, double *out_avg, double *out_sample, double *out_queue)
{
    /* work: arriving (A*B), rtt (G*B), y (L*B), yrtt (L*B), counted bits (L*B), counted bit*s (L*B), elapsed (L*B) */
    double *arriving = work, *rtt = arriving + (size_t)A * B, *y = rtt + (size_t)G * B, *yrtt = y + (size_t)L * B;
    double *bits = yrtt + (size_t)L * B, *rtt_bits = bits + (size_t)L * B, *elapsed = rtt_bits + (size_t)L * B;
    long rec = 0;
    for (size_t i = 0; i < (size_t)L * B; i++) bits[i] = rtt_bits[i] = elapsed[i] = 0.0;
    for (long k = 0; k < n_steps; k++) {
        int slot = (int)(k % H);
        for (int l = 0; l < L; l++)
            for (int b = 0; b < B; b++) hist[((size_t)l * H + slot) * B + b] = rate[IX(l, b)];
        for (int a = 0; a < A; a++)
            for (int b = 0; b < B; b++) {
                double low = INFINITY;
                for (int r = read_start[a]; r < read_start[a + 1]; r++) {
                    long back = ((k - read_steps[r]) % H + H) % H;
                    double v = hist[((size_t)read_link[r] * H + back) * B + b];
                    if (v < low) low = v;
                }
                arriving[(size_t)a * B + b] = low;
            }
        for (int g = 0; g < G; g++)
            for (int b = 0; b < B; b++) {
                double d = prop_rtt[g];
                for (int l = 0; l < L; l++) d += path[(size_t)g * L + l] * (queue[IX(l, b)] / capacity[l]);
                rtt[(size_t)g * B + b] = d;
            }
        for (size_t i = 0; i < (size_t)L * B; i++) y[i] = yrtt[i] = 0.0;
        for (int a = 0; a < A; a++)
            for (int b = 0; b < B; b++) {
                double flow = arrival_weight[a] * arriving[(size_t)a * B + b];
                y[IX(arrival_link[a], b)] += flow;
                yrtt[IX(arrival_link[a], b)] += arrival_weight[a]
                    * (arriving[(size_t)a * B + b] * rtt[(size_t)arrival_group[a] * B + b]);
            }
        for (int l = 0; l < L; l++)
            for (int b = 0; b < B; b++) {
                size_t i = IX(l, b);
                bits[i] += y[i] * dt;
                rtt_bits[i] += yrtt[i] * dt;
                double next = queue[i] + (y[i] - capacity[l]) * dt;
                queue[i] = next > 0.0 ? next : 0.0;
                elapsed[i] += dt;
                if (elapsed[i] >= interval[i] - 1e-9 * dt) {
                    if (bits[i] > 0) sample[i] = rtt_bits[i] / bits[i];
                    double link_rate = capacity[l] / 8.0 / 1e3;
                    interval[i] = control_update(&ctl_rate[i], &avg[i], link_rate, alpha[b], beta[b], eta, mtu,
                                                 bits[i] / 8.0, rtt_bits[i] * 1e3 / 8.0, bits[i] / 8.0,
                                                 queue[i] / 8.0, elapsed[i] * 1e3) / 1e3;
                    rate[i] = ctl_rate[i] * 8.0 * 1e3;
                    bits[i] = rtt_bits[i] = elapsed[i] = 0.0;
                }
            }
        if (k % every == 0) {
            for (size_t i = 0; i < (size_t)L * B; i++) {
                size_t o = (size_t)rec * L * B + i;
                out_rate[o] = rate[i];
                out_avg[o] = avg[i] / 1e3;
                out_sample[o] = sample[i];
                out_queue[o] = queue[i];
            }
            rec++;
        }
    }
    return (int)rec;
}
"""


def _library():
    defines = (f"#define MIN_RATE_FRACTION {MIN_RATE_MTU_FRACTION!r}\n"
               f"#define MAX_INTERVAL_MS {MAX_RATE_ESTIMATION_INTERVAL_MS!r}\n")
    lib = load_library("network", defines + SOURCE)
    lib.network_run.restype = ctypes.c_int
    return lib


def _ptr(array: np.ndarray, ctype):
    return array.ctypes.data_as(ctypes.POINTER(ctype))


def step_compiled(wiring, capacity, alpha, beta, eta, mtu, dt, n_steps, every, rate0, avg0, sample0, length):
    """Run the loop in C; same arguments and results as :func:`rcpstab.network.fluid.step_python`."""
    n_links, size = capacity.size, alpha.size
    n_arrivals, n_groups = wiring.group.size, wiring.prop_rtt.size
    i32 = lambda v: np.ascontiguousarray(v, dtype=np.int32)  # noqa: E731
    f64 = lambda v: np.ascontiguousarray(v, dtype=float)  # noqa: E731
    read_start = i32(np.append(wiring.starts, wiring.read_link.size))
    weight = f64(wiring.to_links[wiring.arrival_link, np.arange(n_arrivals)])
    hist = f64(np.repeat(np.repeat(rate0[:, None, None], length, axis=1), size, axis=2))
    rate = f64(np.repeat(rate0[:, None], size, axis=1))
    queue = np.zeros((n_links, size))
    ctl_rate = f64(rate / 8.0 / 1e3)
    avg = f64(np.repeat(avg0[:, None] * 1e3, size, axis=1))
    interval = f64(np.minimum(avg, MAX_RATE_ESTIMATION_INTERVAL_MS) / 1e3)
    sample = f64(np.repeat(sample0[:, None], size, axis=1))
    work = np.zeros((n_arrivals + n_groups + 5 * n_links) * size)
    records = (n_steps + every - 1) // every
    outs = [np.zeros((records, n_links, size)) for _ in range(4)]
    d, i = ctypes.c_double, ctypes.c_int
    count = _library().network_run(
        i(n_links), i(size), i(n_arrivals), i(n_groups), i(length), ctypes.c_long(n_steps), i(every),
        d(dt), d(eta), d(mtu),
        _ptr(i32(wiring.arrival_link), ctypes.c_int), _ptr(i32(wiring.group), ctypes.c_int), _ptr(weight, d),
        _ptr(read_start, ctypes.c_int), _ptr(i32(wiring.read_link), ctypes.c_int),
        _ptr(i32(wiring.read_steps), ctypes.c_int),
        _ptr(f64(wiring.path), d), _ptr(f64(wiring.prop_rtt), d), _ptr(f64(capacity), d),
        _ptr(f64(alpha), d), _ptr(f64(beta), d),
        _ptr(hist, d), _ptr(rate, d), _ptr(queue, d), _ptr(ctl_rate, d), _ptr(avg, d), _ptr(interval, d),
        _ptr(sample, d), _ptr(work, d), *(_ptr(o, d) for o in outs))
    assert count == records, (count, records)
    t = (np.arange(records) * every + 1) * dt
    return (t, *outs)
