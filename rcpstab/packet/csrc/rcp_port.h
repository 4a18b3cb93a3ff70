/* Per-port registers and the per-packet data path of App. F lines 18-23. */
#ifndef RCP_PORT_H
#define RCP_PORT_H

#include <stddef.h>
#include <stdint.h>

#include "rcp_header.h"

/* App. F's recommended MAX_ALLOWABLE_RTT: the default of each port's max_rtt register. */
#define MAX_ALLOWABLE_RTT_MS 20000u

/* The registers the control path reads and writes, one set per output port. */
typedef struct {
    uint64_t input_bytes;  /* App. F input_traffic_Bytes, includes dropped packets */
    uint64_t rtt_sum;      /* App. F sum_rtt_Tr, ms */
    uint64_t rtt_count;    /* App. F num_pkts_with_rtt */
    uint64_t queue_bytes;  /* App. F Q_Bytes: bytes waiting in the output queue */
    uint64_t buffer_bytes; /* drop-tail limit on queue_bytes */
    uint64_t malformed;    /* packets too short to carry an RCP header, passed unmodified */
    uint64_t dropped;      /* packets refused by the drop-tail buffer */
    uint64_t max_rtt;      /* App. F MAX_ALLOWABLE_RTT, ms: RTTs at or above it are not averaged */
    uint32_t rate;         /* App. F rcp_rate as stamped on the wire, bytes/ms */
} rcp_port;

/* A port in its power-on state: counters zero, App. F's MAX_ALLOWABLE_RTT. */
static inline void port_init(rcp_port *p)
{
    *p = (rcp_port){0};
    p->max_rtt = MAX_ALLOWABLE_RTT_MS;
}

static inline int rcp_is_malformed(size_t len, uint32_t size)
{
    return len < RCP_HEADER_LEN || size < RCP_HEADER_LEN;
}

/* Drop-tail admission shared by RCP and plain ports. Returns 1 if queued. */
static inline int port_admit(rcp_port *p, uint32_t size)
{
    if (p->queue_bytes + size > p->buffer_bytes) {
        p->dropped++;
        return 0;
    }
    p->queue_bytes += size;
    return 1;
}

static inline void port_release(rcp_port *p, uint32_t size)
{
    /* A departure without a matching arrival (fuzzed input) must not wrap the counter. */
    p->queue_bytes = p->queue_bytes >= size ? p->queue_bytes - size : 0;
}

/* Packet arrival (lines 18-21), then drop-tail admission. The counters run before the
 * buffer check because App. F counts dropped packets as input traffic. Returns 1 if queued. */
static inline int dp_arrive(rcp_port *p, const uint8_t *pkt, size_t len, uint32_t size)
{
    if (rcp_is_malformed(len, size)) {
        p->malformed++;
    } else {
        uint16_t rtt = rcp_rd16(pkt + RCP_OFF_RTT);
        p->input_bytes += size;
        if (rtt < p->max_rtt) {
            p->rtt_sum += rtt;
            p->rtt_count += 1;
        }
    }
    return port_admit(p, size);
}

/* Packet departure (lines 22-23): stamp the port's rate over a larger or unspecified request. */
static inline void dp_depart(rcp_port *p, uint8_t *pkt, size_t len, uint32_t size)
{
    port_release(p, size);
    if (rcp_is_malformed(len, size))
        return;
    uint32_t request = rcp_rd32(pkt + RCP_OFF_RATE);
    if (rcp_rate_unspecified(request) || request > p->rate)
        rcp_wr32(pkt + RCP_OFF_RATE, p->rate);
}

#endif
