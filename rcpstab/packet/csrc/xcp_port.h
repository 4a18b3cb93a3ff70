/* Per-packet data path of the XCP router (xcp-katabi.txt App. A, arrival and departure
 * blocks), and the arrival/departure frame every port reading the XCP header shares
 * (RCP-AC's feedback controller is in rcpac_port.h). Queue, buffer and the byte/RTT counters
 * live in the port's rcp_port registers; the real-valued estimator and control state in
 * xcp_state. The control paths (routers/xcp/control.py, routers/rcpac/control.py) write xi_p, xi_n, residues,
 * rate, avg_rtt and xi_ac once per control interval. routers/xcp/datapath_py.py is the Python twin:
 * change both together. */
#ifndef XCP_PORT_H
#define XCP_PORT_H

#include "rcp_port.h"
#include "xcp_header.h"

typedef struct {
    /* estimators the data path accumulates over an interval */
    double sum_rtt_by_cwnd;        /* XCP: sum of H_rtt * size / H_cwnd, s */
    double sum_rtt_square_by_cwnd; /* XCP: sum of H_rtt^2 * size / H_cwnd, s^2 */
    double sum_deficit;            /* RCP-AC: sum of (R - r_i)^+ * size / (r_i * d) = sum over flows of (R - r_j)^+, bytes/s */
    double min_queue;              /* smallest queue an arriving packet saw, bytes (XCP's persistent queue) */
    /* control values written by the control path */
    double xi_p, xi_n, residue_pos, residue_neg; /* XCP fairness controller */
    double rate, avg_rtt, xi_ac;                 /* RCP-AC: R (bytes/s), d (s), phi+ / sum_deficit (s) */
} xcp_state;

static inline int xcp_is_malformed(size_t len, uint32_t size)
{
    return len < XCP_HEADER_LEN || size < XCP_HEADER_LEN;
}

/* Arrival at a port whose packets carry the XCP header (XCP, RCP-AC): App. F's input and RTT
 * counters (rtt_sum in microseconds), the smallest queue seen, the protocol's estimator sums
 * (``sums``, for packets with a window and an RTT), then drop-tail admission. Returns 1 if
 * queued. ``sums`` is a constant at every call site, so the compiler inlines it. */
typedef void (*xcp_sums_fn)(xcp_state *x, double rtt, uint32_t cwnd, uint32_t size);

static inline int window_arrive(rcp_port *p, xcp_state *x, const uint8_t *pkt, size_t len, uint32_t size,
                                xcp_sums_fn sums)
{
    if (xcp_is_malformed(len, size)) {
        p->malformed++;
        return port_admit(p, size);
    }
    p->input_bytes += size;
    if ((double)p->queue_bytes < x->min_queue)
        x->min_queue = (double)p->queue_bytes;
    uint32_t cwnd = rcp_rd32(pkt + XCP_OFF_CWND), rtt_us = rcp_rd32(pkt + XCP_OFF_RTT);
    if (cwnd > 0 && rtt_us > 0) {
        double rtt = rtt_us / 1e6;
        if (rtt_us / 1000u < p->max_rtt) { /* = rtt_us < 1000 * max_rtt, without overflow */
            p->rtt_sum += rtt_us;
            p->rtt_count += 1;
        }
        sums(x, rtt, cwnd, size);
    }
    return port_admit(p, size);
}

/* Departure: release the queue and let ``feedback`` write H_feedback. Without an RTT or a
 * window the packet gets no positive feedback (paper Sec. 3.3: H_rtt = 0 marks "no estimate yet"). */
typedef void (*xcp_feedback_fn)(xcp_state *x, uint8_t *pkt, double rtt, uint32_t cwnd, uint32_t size);

static inline void window_depart(rcp_port *p, xcp_state *x, uint8_t *pkt, size_t len, uint32_t size,
                                 xcp_feedback_fn feedback)
{
    port_release(p, size);
    if (xcp_is_malformed(len, size))
        return;
    uint32_t cwnd = rcp_rd32(pkt + XCP_OFF_CWND), rtt_us = rcp_rd32(pkt + XCP_OFF_RTT);
    if (cwnd == 0 || rtt_us == 0) {
        if (xcp_rd_i32(pkt + XCP_OFF_FEEDBACK) > 0)
            rcp_wr32(pkt + XCP_OFF_FEEDBACK, 0);
        return;
    }
    feedback(x, pkt, rtt_us / 1e6, cwnd, size);
}

/* XCP arrival: App. A's first block, the cwnd-weighted RTT sums. */
static inline void xcp_sums(xcp_state *x, double rtt, uint32_t cwnd, uint32_t size)
{
    double w = rtt * size / cwnd;
    x->sum_rtt_by_cwnd += w;
    x->sum_rtt_square_by_cwnd += rtt * w;
}

/* XCP departure: App. A's third block, literally, feedback in bytes. */
static inline void xcp_feedback(xcp_state *x, uint8_t *pkt, double rtt, uint32_t cwnd, uint32_t size)
{
    double h = xcp_rd_i32(pkt + XCP_OFF_FEEDBACK) / XCP_FEEDBACK_SCALE;
    double pos = x->xi_p * rtt * rtt * size / cwnd;
    double neg = x->xi_n * rtt * size;
    double fb = pos - neg;
    if (h >= fb) {
        rcp_wr32(pkt + XCP_OFF_FEEDBACK, (uint32_t)xcp_feedback_field(fb));
        x->residue_pos -= pos / rtt;
        x->residue_neg -= neg / rtt;
    } else {
        if (h >= 0) {
            x->residue_pos -= h / rtt;
            x->residue_neg -= (fb - h) / rtt;
        } else {
            x->residue_neg += h / rtt;
        }
        if (fb >= 0)
            x->residue_neg -= fb / rtt;
    }
    if (x->residue_pos <= 0)
        x->xi_p = 0;
    if (x->residue_neg <= 0)
        x->xi_n = 0;
}

static inline int xcp_arrive(rcp_port *p, xcp_state *x, const uint8_t *pkt, size_t len, uint32_t size)
{
    return window_arrive(p, x, pkt, len, size, xcp_sums);
}

static inline void xcp_depart(rcp_port *p, xcp_state *x, uint8_t *pkt, size_t len, uint32_t size)
{
    window_depart(p, x, pkt, len, size, xcp_feedback);
}

#endif
