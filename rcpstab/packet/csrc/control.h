/* The routers' control paths at one timer expiry, in C: RCP (App. F lines 1-17), XCP (xcp-katabi.txt
 * App. A, the timeout block) and RCP-AC (rcp-ac.txt lines 110-210). module.c runs them with the event
 * loop (Simulator.rcp_intervals, xcp_intervals, rcpac_intervals) so that a run pays no Python per
 * interval (issue 26: at 10 Mb/s the Python control path was most of the run's time).
 *
 * Each function is its Python controller operation for operation, in doubles and in the same order
 * (routers/rcp/control.py RcpController.update, routers/xcp/control.py XcpController.service,
 * routers/rcpac/control.py RcpAcController.service, with the register writes of the protocols package), so the
 * results are the same bits: an int register enters an expression as Python's float(int) does, a
 * Python max(a, b) is "b > a ? b : a" and min(a, b) "b < a ? b : a" (which argument a NaN or a signed
 * zero yields), round() is nearbyint (half to even). tests/test_packet_native_control.py compares
 * every traced field with the Python path's. Change both together. */
#ifndef CONTROL_H
#define CONTROL_H

#include <math.h>
#include <stdint.h>

#include "xcp_port.h"

#define APPF_MAX_INTERVAL_MS 10.0 /* MAX_RATE_ESTIMATION_INTERVAL_MS */
#define APPF_MIN_RATE_MTU_FRACTION 0.01
#define APPF_NS2_RTT_GAIN 0.02
#define XCP_MIN_INTERVAL_S 1e-4 /* routers/xcp/control.py MIN_INTERVAL_S */

/* The next timer interval, ns, from the expiry's rounded ``next_ns``: runtime.validation.control_interval_ns,
 * at least ``floor`` (SIMULATOR_INTEGERS["interval_ns"]'s low bound, MIN_CONTROL_INTERVAL_NS: a shorter
 * interval ran one expiry per ns, a hang); NaN (a zero RTT) -> floor and beyond any run's end -> 2**60 ns,
 * with no undefined cast. */
static inline long long next_interval(double next_ns, long long floor)
{
    return !(next_ns >= (double)floor) ? floor : (next_ns > (double)(1LL << 60) ? 1LL << 60 : (long long)next_ns);
}

/* App. F's state: rates bytes/ms, times ms (RcpController's fields). */
typedef struct {
    double link_rate, alpha, beta, eta, rate, avg_rtt, mtu;
    int ns2; /* rtt_estimator == "ns2" */
} appf_ctl;

/* RcpController.update: lines 1-13 after an interval of tr ms; returns the next Tr, ms. ``rtt_sum`` is
 * in ms (RCP's register; RCP-AC's microsecond register / 1000). */
static inline double appf_update(appf_ctl *c, uint64_t input_bytes, double rtt_sum, uint64_t rtt_count,
                                 uint64_t queue_bytes, double tr)
{
    double input_traffic_rate = (double)input_bytes / tr; /* line 1 */
    if (rtt_count > 0) {
        double avg_rtt_tr = rtt_sum / (double)rtt_count; /* line 2 */
        if (c->ns2) {
            double keep = pow(1.0 - APPF_NS2_RTT_GAIN, (double)rtt_count);
            c->avg_rtt = keep * c->avg_rtt + (1.0 - keep) * avg_rtt_tr;
        } else { /* lines 3-7 */
            double weight = avg_rtt_tr >= c->avg_rtt
                                ? tr / c->avg_rtt
                                : (c->rate / c->link_rate) * (avg_rtt_tr / c->avg_rtt) * (tr / c->avg_rtt);
            c->avg_rtt = weight * avg_rtt_tr + (1.0 - weight) * c->avg_rtt;
        }
    }
    double target = c->eta * c->link_rate;
    c->rate = c->rate * (1.0 + (tr / c->avg_rtt) *
                                   (c->alpha * (target - input_traffic_rate) - c->beta * (double)queue_bytes / c->avg_rtt) /
                                   target); /* line 8 */
    double min_rate = APPF_MIN_RATE_MTU_FRACTION * c->mtu / c->avg_rtt;
    if (c->rate < min_rate) /* lines 9-12 */
        c->rate = min_rate;
    else if (c->rate > target)
        c->rate = target;
    return APPF_MAX_INTERVAL_MS < c->avg_rtt ? APPF_MAX_INTERVAL_MS : c->avg_rtt; /* line 13 */
}

/* One row of a run's trace (run_scenario): the router's rate over C, the input rate over C, the RTT
 * estimate d (s). The caller adds the time, queue, flows and drops. */
typedef struct {
    double rate_over_c, utilization, avg_rtt_s;
} control_row;

static inline void clear_interval_counters(rcp_port *p) /* lines 14-16 */
{
    p->input_bytes = p->rtt_sum = p->rtt_count = 0;
}

/* RcpProtocol.service after an interval of ``interval`` ns: returns the next interval, ns, rounded
 * (before the >= 1 clamp). */
static inline double rcp_expiry(appf_ctl *c, rcp_port *p, xcp_state *x, long long interval, control_row *row)
{
    (void)x;
    uint64_t input_bytes = p->input_bytes;
    double next_tr = appf_update(c, input_bytes, (double)p->rtt_sum, p->rtt_count, p->queue_bytes,
                                 (double)interval / 1000000.0);
    double stamped = nearbyint(c->rate); /* rate_register */
    stamped = stamped < 1.0 ? 1.0 : (stamped > 4294967294.0 ? 4294967294.0 : stamped);
    p->rate = (uint32_t)stamped;
    clear_interval_counters(p);
    row->rate_over_c = c->rate / c->link_rate;
    row->utilization = (double)(input_bytes * 1000000ULL) / (double)interval / c->link_rate;
    row->avg_rtt_s = c->avg_rtt / 1000.0;
    return nearbyint(next_tr * 1000000.0); /* line 17 */
}

/* XCP's state: capacity bytes/s, avg_rtt s (XcpController's fields). */
typedef struct {
    double capacity, alpha, beta, gamma, avg_rtt, utilization;
} xcp_ctl;

/* XcpController.service and window_service's writes: returns the next interval, ns, rounded. The row's
 * rate is NaN: XCP's router has none (the run records utilization per scripted flow, in Python). */
static inline double xcp_expiry(xcp_ctl *c, rcp_port *p, xcp_state *x, long long interval, control_row *row)
{
    double tr = (double)interval / 1e9;
    uint64_t input_bytes = p->input_bytes;
    if (x->sum_rtt_by_cwnd > 0)
        c->avg_rtt = x->sum_rtt_square_by_cwnd / x->sum_rtt_by_cwnd;
    double d = XCP_MIN_INTERVAL_S > c->avg_rtt ? XCP_MIN_INTERVAL_S : c->avg_rtt; /* interval */
    c->utilization = (double)input_bytes / tr / c->capacity;
    double queue = isfinite(x->min_queue) ? x->min_queue : (double)p->queue_bytes;
    double phi = c->alpha * d * (c->capacity - (double)input_bytes / tr) - c->beta * queue;
    double h = c->gamma * (double)input_bytes - fabs(phi);
    double shuffled = h > 0.0 ? h : 0.0;
    double positive = (0.0 > phi ? 0.0 : phi) + shuffled, negative = (0.0 > -phi ? 0.0 : -phi) + shuffled;
    double weight = x->sum_rtt_by_cwnd;
    x->xi_p = weight > 0 ? positive / (d * weight) : 0.0;
    x->xi_n = input_bytes > 0 ? negative / (d * (double)input_bytes) : 0.0;
    x->residue_pos = positive / d;
    x->residue_neg = negative / d;
    x->sum_rtt_by_cwnd = x->sum_rtt_square_by_cwnd = 0.0;
    x->min_queue = INFINITY;
    clear_interval_counters(p);
    row->rate_over_c = NAN;
    row->utilization = c->utilization;
    row->avg_rtt_s = NAN;
    return nearbyint(d * 1e9);
}

/* RCP-AC's state: App. F's (bytes/ms, ms), eq. 2's gamma and B (bytes), the averaged deficit (bytes/s). */
typedef struct {
    appf_ctl rcp;
    double gamma_ac, buffer_bytes, deficit, utilization;
} rcpac_ctl;

/* RcpAcController.service and window_service's writes: returns the next interval, ns, rounded. */
static inline double rcpac_expiry(rcpac_ctl *c, rcp_port *p, xcp_state *x, long long interval, control_row *row)
{
    double tr = (double)interval / 1e9;
    double tr_ms = tr * 1000.0;
    uint64_t input_bytes = p->input_bytes, queue_bytes = p->queue_bytes;
    double next_tr_ms = appf_update(&c->rcp, input_bytes, (double)p->rtt_sum / 1000.0, p->rtt_count, queue_bytes, tr_ms);
    double capacity = c->rcp.link_rate * 1000.0, d = c->rcp.avg_rtt / 1000.0;
    double y = (double)input_bytes / tr;
    c->utilization = y / capacity;
    double phi = c->rcp.alpha * (capacity - y) * d + c->gamma_ac * c->buffer_bytes - c->rcp.beta * (double)queue_bytes;
    double share = tr / d;
    c->deficit = (1.0 - (1.0 < share ? 1.0 : share)) * c->deficit + x->sum_deficit;
    x->rate = c->rcp.rate * 1000.0;
    x->avg_rtt = d;
    x->xi_ac = c->deficit > 0 ? (0.0 > phi ? 0.0 : phi) / c->deficit : 0.0;
    x->sum_deficit = 0.0;
    clear_interval_counters(p);
    row->rate_over_c = c->rcp.rate / c->rcp.link_rate;
    row->utilization = c->utilization;
    row->avg_rtt_s = c->rcp.avg_rtt / 1000.0;
    return nearbyint(next_tr_ms / 1000.0 * 1e9);
}

#endif
