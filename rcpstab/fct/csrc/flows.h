/* Flow-level traffic on one RCP bottleneck: flows arrive (times and sizes drawn in Python),
 * open a connection (the SYN carries the rate request, the SYN-ACK returns the router's
 * stamped rate), send their data paced at the stamped rate (R-TCP, thesis 6.1.1) and
 * leave. Flow state lives in a pool of slots that are recycled when a flow has finished,
 * so memory grows with the number of concurrent flows, not with the number of flows.
 * Finished flows are written to a record buffer the caller drains.
 *
 * Time is integer nanoseconds and ties break by scheduling order, so the pure-Python twin
 * (simulator/flows_py.py) reproduces every event. flows.c and simulator/flows_py.py change together. */
#ifndef RCP_FLOWS_H
#define RCP_FLOWS_H

#include <stdint.h>

#include "events.h"
#include "rcp_port.h"
#include "rtcp_host.h"

enum { FE_ARRIVAL, FE_SEND, FE_RTO, FE_TX_DONE, FE_DELIVER, FE_REFRESH };
/* packet kinds: RTCP_SYN ... RTCP_REFACK (rtcp_host.h) */
enum { FF_FREE, FF_SYN_SENT, FF_ESTAB };
enum { FL_FWD, FL_REV }; /* data direction (RCP port), ACK direction (plain drop-tail port) */

typedef ev_event fl_event; /* events.h; arg: flow slot, link or packet index, gen: the slot's generation */

typedef struct {
    uint8_t hdr[RCP_HEADER_LEN];
    uint32_t size;
    uint8_t kind;
    int32_t slot;
    uint32_t gen;
    int64_t seq; /* data sequence number, or the cumulative ACK number */
    int64_t ts;  /* send time echoed by the receiver */
} fl_packet;

typedef struct {
    int64_t capacity_bps;
    int64_t delay_ns;
    int rcp; /* 1: App. F data path (counts and stamps); 0: drop-tail only */
    rcp_port port;
    ev_ring ring;
    int32_t busy;
    int64_t arrivals, tx_bytes; /* packets offered to the port; bytes serialised */
} fl_link;

typedef struct {
    int state;
    uint32_t gen;
    int64_t id, size_pkts, start_ns; /* start = arrival = first SYN sent */
    RTCP_HOST_STATE;                 /* rtcp_host.h: the R-TCP sender, shared with sim.c */
    int received;
    int64_t rcv_next, drops;
} fl_flow;

/* One finished flow: FCT = SYN sent to last data packet received (thesis Ch. 4). */
typedef struct {
    int64_t id, size_pkts, start_ns, fct_ns, drops;
} fl_record;

typedef struct {
    uint32_t data_size;          /* IP datagram bytes of a data packet */
    uint32_t ctrl_size;          /* SYN, SYN-ACK and pure ACK */
    uint32_t window_denominator; /* MSS + RCP + IP headers of the thesis' window rule */
    int64_t rwnd_pkts;           /* receiver window, packets */
    uint32_t request;            /* rate field senders write, bytes/ms (0 = as fast as possible) */
    int rate_refresh;            /* 1 = re-pace on a new rate and probe for it (ns-2 RCP host, as sim.c), 0 = pace
                                  * from the send time only */
} fl_params;

typedef struct {
    int64_t now;
    ev_heap ev;
    fl_link links[2];
    fl_flow *flows;
    ev_pool flow_pool; /* owns flows[] (recycled slots) and their free list */
    int32_t slots_used;
    fl_packet *pkts;
    ev_pool pkt_pool; /* owns pkts[] (pkts: its items, typed) and their free list */
    int64_t *arr_t, *arr_size; /* arrivals handed in and not yet started, a FIFO */
    int64_t arr_head, arr_len, arr_cap, next_id;
    int arrival_pending;
    fl_record *rec;
    int64_t rec_len, rec_cap;
    fl_params prm;
    int64_t events, sent, delivered, dropped, n_active, started, completed;
    int oom;
} fl_sim;

/* links[] and prm are filled by the caller; fl_init sets up the rest. */
void fl_init(fl_sim *s);
void fl_free(fl_sim *s);
/* Append n arrivals (start ns non-decreasing and >= the last one, size >= 1). 0 on success,
 * -1 on out-of-memory, -2 on an arrival before the clock or the previous arrival. */
int fl_add_arrivals(fl_sim *s, const int64_t *t_ns, const int64_t *size, int64_t n);
/* Process every event strictly before t_ns, then set the clock to t_ns. 0 on success. */
int fl_run_until(fl_sim *s, int64_t t_ns);
/* Packets inside the network: queues, links and pending deliveries. */
int64_t fl_in_flight(const fl_sim *s);
/* The senders now (issue 24's census): out[0] flows in the SYN phase, out[1] established with data
 * left to send, out[2] of those held by the window (full, snd_nxt - snd_una >= wnd, while
 * the pacer would send: now >= next_send_ns), out[3] the sum of
 * the stamped rates of out[1]'s flows, bytes/ms. */
void fl_census(const fl_sim *s, int64_t out[4]);

#endif
