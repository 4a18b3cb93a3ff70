/* The 12-byte RCP header of thesis Fig. 6.2, read and written in network byte order.
 * Offsets match rcpstab/packet/header.py. */
#ifndef RCP_HEADER_H
#define RCP_HEADER_H

#include <stdint.h>

#define RCP_HEADER_LEN 12
#define RCP_OFF_RATE 0
#define RCP_OFF_REVERSE 4
#define RCP_OFF_RTT 8
#define RCP_OFF_PROTO 10
#define RCP_RATE_ALL_ONES 0xFFFFFFFFu
#define RCP_RTT_UNKNOWN 0xFFFFu
#define RCP_PROTO_TCP 6u

static inline uint32_t rcp_rd32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

static inline uint16_t rcp_rd16(const uint8_t *p)
{
    return (uint16_t)(((uint32_t)p[0] << 8) | (uint32_t)p[1]);
}

static inline void rcp_wr32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static inline void rcp_wr16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

/* 0 means "as fast as possible" (thesis 6.1.1) and all ones "unspecified" (App. F). */
static inline int rcp_rate_unspecified(uint32_t rate)
{
    return rate == 0 || rate == RCP_RATE_ALL_ONES;
}

/* Sender side: write all four fields of an outgoing header (reserved byte zero). */
static inline void rcp_fill(uint8_t *h, uint32_t rate, uint32_t reverse, uint16_t rtt, uint8_t proto)
{
    rcp_wr32(h + RCP_OFF_RATE, rate);
    rcp_wr32(h + RCP_OFF_REVERSE, reverse);
    rcp_wr16(h + RCP_OFF_RTT, rtt);
    h[RCP_OFF_PROTO] = proto;
    h[RCP_HEADER_LEN - 1] = 0;
}

/* Receiver side (thesis 6.1.1): the ACK echoes the data packet's bottleneck rate in its
 * reverse field; a pure ACK carries zero rate and zero RTT. */
static inline void rcp_receiver_echo(uint8_t *ack, const uint8_t *data)
{
    rcp_fill(ack, 0, rcp_rd32(data + RCP_OFF_RATE), 0, data[RCP_OFF_PROTO]);
}

#endif
