/* Per-packet data path of the RCP-AC router: the deficit sum on arrival and the Feedback
 * Controller on departure (rcp-ac.txt eqs. 3-4, eq. 4 as derived in rcpstab/models/rcpac.py).
 * Packets carry the XCP header; the arrival/departure frame is xcp_port.h's. The control
 * path (routers/rcpac/control.py) writes rate, avg_rtt and xi_ac once per interval.
 * routers/rcpac/datapath_py.py is the Python twin: change both together. */
#ifndef RCPAC_PORT_H
#define RCPAC_PORT_H

#include "xcp_port.h"

/* Arrival: sum of (R - r_i)^+ * size / (r_i * d), r_i = H_cwnd / H_rtt the flow's rate. */
static inline void rcpac_sums(xcp_state *x, double rtt, uint32_t cwnd, uint32_t size)
{
    double r = cwnd / rtt, per_interval = r * x->avg_rtt;
    if (x->rate > r && per_interval > 0)
        x->sum_deficit += (x->rate - r) * size / per_interval;
}

/* Departure: eq. 3 above R, derived eq. 4 below it (the budget share xi_ac replaces rtt_i
 * when it is smaller); a smaller feedback already in the header is kept. */
static inline void rcpac_feedback(xcp_state *x, uint8_t *pkt, double rtt, uint32_t cwnd, uint32_t size)
{
    double r = cwnd / rtt;
    double packets = r * x->avg_rtt / size; /* packets of this flow in one interval d */
    if (!(packets > 0))
        return;
    double fb;
    if (x->rate > r)
        fb = (x->rate - r) * (x->xi_ac < rtt ? x->xi_ac : rtt) / packets;
    else
        fb = -(r - x->rate) * rtt / packets;
    int32_t field = xcp_feedback_field(fb);
    if (field < xcp_rd_i32(pkt + XCP_OFF_FEEDBACK))
        rcp_wr32(pkt + XCP_OFF_FEEDBACK, (uint32_t)field);
}

static inline int rcpac_arrive(rcp_port *p, xcp_state *x, const uint8_t *pkt, size_t len, uint32_t size)
{
    return window_arrive(p, x, pkt, len, size, rcpac_sums);
}

static inline void rcpac_depart(rcp_port *p, xcp_state *x, uint8_t *pkt, size_t len, uint32_t size)
{
    window_depart(p, x, pkt, len, size, rcpac_feedback);
}

#endif
