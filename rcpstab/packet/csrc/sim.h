/* Discrete-event packet simulator: links with drop-tail RCP, XCP or RCP-AC ports, R-TCP or
 * XCP end hosts.
 * Time is integer nanoseconds so the pure-Python twin (simulator/sim_py.py) reproduces every
 * event bit for bit; ties are broken by scheduling order. */
#ifndef RCP_SIM_H
#define RCP_SIM_H

#include <stdint.h>

#include "events.h"
#include "port_ops.h"
#include "rtcp_host.h"

enum { EV_FLOW_START, EV_FLOW_STOP, EV_SEND, EV_RTO, EV_TX_DONE, EV_DELIVER, EV_REFRESH };
/* packet kinds: RTCP_SYN ... RTCP_REFACK (rtcp_host.h), for XCP senders too */
enum { FS_IDLE, FS_SYN_SENT, FS_ESTAB, FS_DONE };
enum { SENDER_RTCP, SENDER_XCP, N_SENDERS }; /* sender codes (SENDER_OPS index); XCP senders serve XCP and
                                               * RCP-AC routers alike */

typedef ev_event sim_event; /* events.h: (time, scheduling order), type, arg */

typedef struct {
    uint8_t hdr[XCP_HEADER_LEN]; /* R-TCP packets use the first RCP_HEADER_LEN bytes */
    uint32_t size;
    uint8_t kind;
    uint8_t hop;
    int32_t flow;
    int64_t seq; /* data sequence number, or the cumulative ACK number */
    int64_t ts;  /* send time echoed back by the receiver (TCP timestamp option) */
} sim_packet;

typedef struct {
    int64_t capacity_bps;
    int64_t delay_ns;
    int64_t tx_data_ns, tx_ctrl_ns; /* serialization of a data and a control packet, set by sim_init */
    port_ops ops; /* the port's data path, a copy of a PORT_OPS entry (PROTO_PLAIN: drop-tail only); a copy
                   * saves the per-packet load of the table entry */
    rcp_port port;
    xcp_state xcp; /* real-valued registers of XCP and RCP-AC ports */
    ev_ring ring; /* FIFO of waiting packet indices */
    int32_t busy; /* packet being serialized, -1 when idle */
} sim_link;

typedef struct {
    /* scripted by the scenario */
    int64_t start_ns, stop_ns; /* stop_ns < 0: the flow runs until its data is acknowledged */
    int64_t size_pkts;         /* 0: long-lived */
    uint32_t request;          /* rate field the sender writes, bytes/ms (0 = as fast as possible) */
    int32_t fwd_path, rev_path;
    /* sender */
    int state, stopped, rcp_mode;
    RTCP_HOST_STATE; /* rtcp_host.h: rate, window, sequence numbers, RTTs, pacing (the XCP sender's
                      * sequence numbers and RTTs too); shared with flows.c */
    int64_t cwnd, ssthresh, cwnd_acc;
    int64_t xcp_cwnd; /* XCP sender's window, 1/1000 byte (the feedback field's unit) */
    /* receiver */
    int64_t rcv_next, delivered_bytes, fct_ns;
} sim_flow;

typedef struct {
    uint32_t data_size;  /* IP datagram bytes of a data packet */
    uint32_t ctrl_size;  /* IP datagram bytes of SYN, SYN-ACK and pure ACK */
    uint32_t window_denominator; /* MSS + RCP + IP header bytes of the thesis' window rule */
    int64_t rwnd_pkts;   /* receiver's advertised window, packets */
    int sender;          /* SENDER_RTCP or SENDER_XCP, for every flow */
    int rate_refresh;    /* R-TCP: 1 = re-pace on a new rate and probe for it (ns-2 RCP host), 0 = pace from
                          * the send time only */
} sim_params;

struct sim_t;

/* What an end host of one sender kind does, as one table of function pointers (like port_ops.h for
 * the routers' data paths): the entry is chosen once per simulator (sim_init copies it into
 * sim_t.snd), and the hosts call it without asking which kind they run. hosts/senders.py holds
 * the Python twin's table (same codes, same names, same order).
 *
 * A new sender kind: its code in the enum above, one entry in SENDER_OPS (sim.c) with its
 * functions beside it, and the Python twin's entry in hosts/senders.py. */
typedef struct {
    const char *name;
    size_t hdr_len; /* header bytes in every packet: a port of another protocol sees a short
                     * (malformed) header or misreads a well-defined one, never uninitialised bytes */
    /* Limits the kind's arithmetic needs of the parameters: NULL, or why they are refused. */
    const char *(*check)(const sim_params *prm);
    /* The header of a SYN and of a data packet the sender writes. */
    void (*fill_syn)(const struct sim_t *s, const sim_flow *f, uint8_t *hdr);
    void (*fill_data)(const struct sim_t *s, const sim_flow *f, uint8_t *hdr);
    /* Packets the sender may have outstanding. */
    int64_t (*window)(const struct sim_t *s, const sim_flow *f);
    /* The feedback of a SYN-ACK's and of an ACK's header. */
    void (*on_synack)(struct sim_t *s, sim_flow *f, const uint8_t *hdr);
    void (*on_ack)(struct sim_t *s, sim_flow *f, const uint8_t *hdr);
    /* An ACK acknowledged ``newly`` more packets. */
    void (*on_acked)(struct sim_t *s, sim_flow *f, int64_t newly);
    /* The receiver turns the data header into the reply's header. */
    void (*echo)(uint8_t *reply, const uint8_t *data);
} sender_ops;

extern const sender_ops SENDER_OPS[N_SENDERS];

typedef struct sim_t {
    int64_t now;
    ev_heap ev;
    sim_link *links;
    int32_t n_links;
    sim_flow *flows;
    int32_t n_flows;
    int32_t *path_links, *path_off, *path_len;
    int32_t n_paths;
    sim_packet *pkts;
    ev_pool pkt_pool; /* owns pkts[] (pkts: its items, typed) and their free list */
    sim_params prm;
    sender_ops snd; /* SENDER_OPS[prm.sender], set by sim_init; a copy saves the per-packet table load */
    int64_t events, sent, delivered, dropped, n_active, flows_done;
    int oom; /* set when an allocation failed; the run stops */
} sim_t;

/* Allocation of links/flows/paths is done by the caller; sim_init sets up the rest. */
int sim_init(sim_t *s);
void sim_free(sim_t *s);
/* Process every event strictly before t_ns, then set the clock to t_ns. 0 on success. */
int sim_run_until(sim_t *s, int64_t t_ns);
/* Packets inside the network, counted from queues, links and pending deliveries. */
int64_t sim_in_flight(const sim_t *s);

#endif
