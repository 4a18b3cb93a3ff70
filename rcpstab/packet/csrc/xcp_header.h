/* The 20-byte XCP congestion header (xcp-katabi.txt Sec. 3.2, Fig. 1) in network byte order.
 * Offsets match rcpstab/packet/xcp_header.py. RCP-AC uses the same header: its
 * Feedback Controller also returns per-packet window changes (rcp-ac.txt eqs. 3-4). */
#ifndef XCP_HEADER_H
#define XCP_HEADER_H

#include <math.h>
#include <stdint.h>

#include "rcp_header.h"

#define XCP_HEADER_LEN 20
#define XCP_OFF_CWND 0     /* H_cwnd, bytes (u32) */
#define XCP_OFF_RTT 4      /* H_rtt, microseconds (u32); 0 = no estimate yet (paper Sec. 3.3) */
#define XCP_OFF_FEEDBACK 8 /* H_feedback, 1/1000 byte (i32): set by the sender, lowered by routers */
#define XCP_OFF_REVERSE 12 /* reverse feedback, 1/1000 byte (i32): H_feedback echoed by the receiver */
#define XCP_OFF_PROTO 16
#define XCP_FEEDBACK_MAX 2147483647  /* the sender's "any increase" request */
#define XCP_FEEDBACK_SCALE 1000.0    /* field units per byte: per-packet feedback is often below a byte */

static inline int32_t xcp_rd_i32(const uint8_t *p)
{
    uint32_t u = rcp_rd32(p);
    return u <= 0x7FFFFFFFu ? (int32_t)u : (int32_t)(u - 0x80000000u) - 0x7FFFFFFF - 1;
}

/* A feedback in bytes as the field holds it: rounded half up to 1/1000 byte, clamped to
 * +-XCP_FEEDBACK_MAX, NaN as 0 (control registers are written from Python and may hold anything). */
static inline int32_t xcp_feedback_field(double bytes)
{
    double v = bytes * XCP_FEEDBACK_SCALE + 0.5;
    if (v != v)
        return 0;
    if (v >= (double)XCP_FEEDBACK_MAX)
        return XCP_FEEDBACK_MAX;
    if (v <= -(double)XCP_FEEDBACK_MAX)
        return -XCP_FEEDBACK_MAX;
    return (int32_t)floor(v);
}

static inline void xcp_fill(uint8_t *h, uint32_t cwnd, uint32_t rtt_us, int32_t feedback, int32_t reverse,
                            uint8_t proto)
{
    rcp_wr32(h + XCP_OFF_CWND, cwnd);
    rcp_wr32(h + XCP_OFF_RTT, rtt_us);
    rcp_wr32(h + XCP_OFF_FEEDBACK, (uint32_t)feedback);
    rcp_wr32(h + XCP_OFF_REVERSE, (uint32_t)reverse);
    h[XCP_OFF_PROTO] = proto;
    h[17] = h[18] = h[19] = 0;
}

/* Receiver (paper Sec. 3.4): the ACK returns the data packet's H_feedback in its reverse field. */
static inline void xcp_receiver_echo(uint8_t *ack, const uint8_t *data)
{
    xcp_fill(ack, 0, 0, 0, xcp_rd_i32(data + XCP_OFF_FEEDBACK), data[XCP_OFF_PROTO]);
}

#endif
