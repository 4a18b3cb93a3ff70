/* Event loop, links, R-TCP and XCP hosts of the packet simulator. simulator/sim_py.py is the
 * line-by-line Python twin of this file: change both together. */
#include "sim.h"

#include <stdlib.h>
#include <string.h>

#define NS_PER_S 1000000000LL
#define RTO_INITIAL_NS RTCP_RTO_INITIAL_NS
#define INITIAL_CWND 2
#define NS_PER_US 1000LL
#define XCP_RTT_FIELD_MAX 0xFFFFFFFELL
#define XCP_UNITS_PER_BYTE 1000LL /* = XCP_FEEDBACK_SCALE */

/* ---- event heap and packet pool (events.h, shared with flows.c) ---- */

static inline void schedule(sim_t *s, int64_t t, int32_t type, int32_t arg)
{
    if (ev_push(&s->ev, t, type, arg, 0) < 0)
        s->oom = 1;
}

static int32_t pkt_alloc(sim_t *s)
{
    int32_t i = ev_pool_alloc(&s->pkt_pool);
    s->pkts = s->pkt_pool.items; /* moved if the pool grew */
    s->oom |= i < 0;
    return i;
}

static void pkt_free(sim_t *s, int32_t i)
{
    ev_pool_release(&s->pkt_pool, i);
}

/* ---- links ---- */

static int64_t serialization_ns(const sim_link *l, uint32_t size)
{
    return (int64_t)size * 8 * NS_PER_S / l->capacity_bps;
}

static void link_start_tx(sim_t *s, int32_t li)
{
    sim_link *l = &s->links[li];
    int32_t pi = ev_ring_pop(&l->ring);
    sim_packet *p = &s->pkts[pi];
    l->ops.depart(&l->port, &l->xcp, p->hdr, s->snd.hdr_len, p->size);
    l->busy = pi;
    /* Every packet is data_size or ctrl_size bytes: the two serialization times are computed once
     * per link (the same integer division, so the same times), not once per packet. */
    int64_t tx_ns = p->size == s->prm.data_size ? l->tx_data_ns
                  : p->size == s->prm.ctrl_size ? l->tx_ctrl_ns
                                                : serialization_ns(l, p->size);
    schedule(s, s->now + tx_ns, EV_TX_DONE, li);
}

static void link_arrive(sim_t *s, int32_t li, int32_t pi)
{
    sim_link *l = &s->links[li];
    sim_packet *p = &s->pkts[pi];
    if (!l->ops.arrive(&l->port, &l->xcp, p->hdr, s->snd.hdr_len, p->size)) {
        s->dropped++;
        pkt_free(s, pi);
        return;
    }
    if (!ev_ring_push(&l->ring, pi)) {
        s->oom = 1;
        return;
    }
    if (l->busy < 0)
        link_start_tx(s, li);
}

static int32_t path_link(const sim_t *s, const sim_packet *p)
{
    const sim_flow *f = &s->flows[p->flow];
    int32_t path = rtcp_to_receiver(p->kind) ? f->fwd_path : f->rev_path;
    return p->hop < s->path_len[path] ? s->path_links[s->path_off[path] + p->hop] : -1;
}

/* A host puts packet pi into the network at its path's first link. */
static void host_send(sim_t *s, int32_t pi)
{
    s->sent++;
    s->pkts[pi].hop = 0;
    link_arrive(s, path_link(s, &s->pkts[pi]), pi);
}

static int32_t new_packet(sim_t *s, int32_t flow, uint8_t kind, uint32_t size, int64_t seq, int64_t ts)
{
    int32_t pi = pkt_alloc(s);
    if (pi < 0)
        return -1;
    sim_packet *p = &s->pkts[pi];
    p->flow = flow;
    p->kind = kind;
    p->size = size;
    p->seq = seq;
    p->ts = ts;
    return pi;
}

/* ---- R-TCP sender (thesis 6.1.1) and XCP sender (xcp-katabi.txt Sec. 3.3) ---- */

static uint32_t xcp_cwnd_field(const sim_flow *f)
{
    int64_t bytes = f->xcp_cwnd / XCP_UNITS_PER_BYTE;
    return (uint32_t)(bytes < 0xFFFFFFFFLL ? bytes : 0xFFFFFFFFLL);
}

/* Whole packets the byte window allows, at least one (cwnd >= s keeps it so anyway). */
static int64_t xcp_window(const sim_t *s, const sim_flow *f)
{
    int64_t w = f->xcp_cwnd / ((int64_t)s->prm.data_size * XCP_UNITS_PER_BYTE);
    return w < 1 ? 1 : w;
}

static void rtcp_fill_syn(const sim_t *s, const sim_flow *f, uint8_t *hdr)
{
    (void)s;
    rtcp_fill_syn_hdr(hdr, f->request);
}

/* An XCP SYN has H_rtt = 0: "no estimate yet". */
static void xcp_fill_syn(const sim_t *s, const sim_flow *f, uint8_t *hdr)
{
    (void)s;
    xcp_fill(hdr, xcp_cwnd_field(f), 0, XCP_FEEDBACK_MAX, 0, RCP_PROTO_TCP);
}

static void rtcp_fill_data(const sim_t *s, const sim_flow *f, uint8_t *hdr)
{
    (void)s;
    rtcp_fill_data_hdr(hdr, f->request, &f->h);
}

/* An unlimited sender asks for any increase (paper Sec. 3.3); routers lower it. */
static void xcp_fill_data(const sim_t *s, const sim_flow *f, uint8_t *hdr)
{
    (void)s;
    int64_t rtt_us = f->srtt_ns / NS_PER_US;
    xcp_fill(hdr, xcp_cwnd_field(f), (uint32_t)(rtt_us < XCP_RTT_FIELD_MAX ? rtt_us : XCP_RTT_FIELD_MAX),
             XCP_FEEDBACK_MAX, 0, RCP_PROTO_TCP);
}

static void send_syn(sim_t *s, int32_t fi)
{
    sim_flow *f = &s->flows[fi];
    int32_t pi = new_packet(s, fi, RTCP_SYN, s->prm.ctrl_size, 0, s->now);
    if (pi < 0)
        return;
    s->snd.fill_syn(s, f, s->pkts[pi].hdr);
    f->syn_ns = s->now;
    host_send(s, pi);
}

static void send_data(sim_t *s, int32_t fi)
{
    sim_flow *f = &s->flows[fi];
    int32_t pi = new_packet(s, fi, RTCP_DATA, s->prm.data_size, f->snd_nxt, s->now);
    if (pi < 0)
        return;
    s->snd.fill_data(s, f, s->pkts[pi].hdr);
    rtcp_data_sent(&f->h, s->now);
    host_send(s, pi);
}

/* A rate-refresh probe (ns-2 RCP host's REF packet): a control-size packet with the data
 * packet's header fields, so the routers stamp their rate on it and the receiver echoes it. */
static void send_refresh(sim_t *s, int32_t fi)
{
    sim_flow *f = &s->flows[fi];
    int32_t pi = new_packet(s, fi, RTCP_REF, s->prm.ctrl_size, f->snd_nxt, s->now);
    if (pi < 0)
        return;
    rtcp_fill_data_hdr(s->pkts[pi].hdr, f->request, &f->h);
    host_send(s, pi);
}

/* A probe once per minimum RTT while the next packet is further away (rtcp_arm_refresh). */
static void arm_refresh(sim_t *s, int32_t fi)
{
    sim_flow *f = &s->flows[fi];
    if (rtcp_arm_refresh(&f->h, s->now, s->prm.rate_refresh))
        schedule(s, s->now + f->min_rtt_ns, EV_REFRESH, fi);
}

static void on_refresh(sim_t *s, int32_t fi)
{
    sim_flow *f = &s->flows[fi];
    if (!rtcp_refresh_due(&f->h, s->now) || f->state != FS_ESTAB || f->stopped || !f->rcp_mode)
        return;
    send_refresh(s, fi);
    arm_refresh(s, fi);
}

static void try_send(sim_t *s, int32_t fi)
{
    sim_flow *f = &s->flows[fi];
    if (f->state != FS_ESTAB || f->stopped)
        return;
    for (;;) {
        if (f->size_pkts && f->snd_nxt >= f->size_pkts)
            return;
        int64_t window = s->snd.window(s, f);
        if (f->snd_nxt - f->snd_una >= window)
            return;
        if (f->rcp_mode) {
            int act = rtcp_pace(&f->h, s->now, s->prm.data_size, s->prm.rate_refresh);
            if (act != RTCP_SEND_NOW) {
                if (act == RTCP_WAIT_SCHEDULE)
                    schedule(s, f->next_send_ns, EV_SEND, fi);
                arm_refresh(s, fi);
                return;
            }
        }
        send_data(s, fi);
        if (s->oom)
            return;
    }
}

/* Rate feedback from the reverse field: valid -> R-TCP window, otherwise TCP-like mode. */
static void take_feedback(sim_t *s, sim_flow *f, uint32_t reverse)
{
    f->rcp_mode = rtcp_take_rate(&f->h, reverse, s->prm.data_size, s->prm.window_denominator, s->prm.rwnd_pkts,
                                 s->prm.rate_refresh);
}

/* XCP sender (paper Sec. 3.3): cwnd = max(cwnd + H_feedback, s) on every ACK. */
static void xcp_take_feedback(sim_t *s, sim_flow *f, int64_t feedback)
{
    int64_t floor_cwnd = (int64_t)s->prm.data_size * XCP_UNITS_PER_BYTE;
    int64_t top = s->prm.rwnd_pkts * floor_cwnd;
    f->xcp_cwnd += feedback;
    f->xcp_cwnd = f->xcp_cwnd < floor_cwnd ? floor_cwnd : (f->xcp_cwnd > top ? top : f->xcp_cwnd);
}

static int64_t rtcp_window(const sim_t *s, const sim_flow *f)
{
    (void)s;
    return f->rcp_mode ? f->wnd : f->cwnd;
}

static void rtcp_on_ack(sim_t *s, sim_flow *f, const uint8_t *hdr)
{
    take_feedback(s, f, rcp_rd32(hdr + RCP_OFF_REVERSE));
}

static void xcp_on_ack(sim_t *s, sim_flow *f, const uint8_t *hdr)
{
    xcp_take_feedback(s, f, xcp_rd_i32(hdr + XCP_OFF_REVERSE));
}

/* The SYN-ACK's feedback: an XCP sender's first window is its initial one. */
static void xcp_on_synack(sim_t *s, sim_flow *f, const uint8_t *hdr)
{
    (void)s, (void)f, (void)hdr;
}

static void go_back(sim_t *s, sim_flow *f)
{
    /* XCP reacts to a loss "in a similar manner to TCP" (Sec. 3.3): halve the window. */
    xcp_take_feedback(s, f, -(f->xcp_cwnd / 2));
    rtcp_go_back(&f->h);
    f->ssthresh = f->cwnd / 2 > 2 ? f->cwnd / 2 : 2;
    f->cwnd = f->ssthresh;
}

static void tcp_grow(sim_t *s, sim_flow *f, int64_t newly_acked)
{
    if (f->cwnd < f->ssthresh) {
        f->cwnd += newly_acked;
    } else {
        f->cwnd_acc += newly_acked;
        if (f->cwnd_acc >= f->cwnd) {
            f->cwnd_acc -= f->cwnd;
            f->cwnd++;
        }
    }
    if (f->cwnd > s->prm.rwnd_pkts)
        f->cwnd = s->prm.rwnd_pkts;
}

/* R-TCP without a rate from the routers grows its window as TCP does (thesis 6.1.1); an XCP
 * sender's window is the routers' business. */
static void rtcp_on_acked(sim_t *s, sim_flow *f, int64_t newly)
{
    if (!f->rcp_mode)
        tcp_grow(s, f, newly);
}

static void xcp_on_acked(sim_t *s, sim_flow *f, int64_t newly)
{
    (void)s, (void)f, (void)newly;
}

/* Keeps the XCP window arithmetic (1/1000 byte units) far from int64 overflow. */
static const char *xcp_check(const sim_params *prm)
{
    return prm->rwnd_pkts > (1LL << 24) || prm->data_size > (1u << 16)
               ? "XCP senders need rwnd_pkts <= 2**24 and data_size <= 2**16"
               : NULL;
}

static const char *rtcp_check(const sim_params *prm)
{
    (void)prm;
    return NULL;
}

const sender_ops SENDER_OPS[N_SENDERS] = {
    [SENDER_RTCP] = {"rtcp", RCP_HEADER_LEN, rtcp_check, rtcp_fill_syn, rtcp_fill_data, rtcp_window, rtcp_on_ack,
                     rtcp_on_ack, rtcp_on_acked, rcp_receiver_echo},
    [SENDER_XCP] = {"xcp", XCP_HEADER_LEN, xcp_check, xcp_fill_syn, xcp_fill_data, xcp_window, xcp_on_synack,
                    xcp_on_ack, xcp_on_acked, xcp_receiver_echo},
};

static void flow_leaves(sim_t *s, sim_flow *f)
{
    s->n_active--;
    f->stopped = 1;
}

static void sender_on_synack(sim_t *s, int32_t fi, const sim_packet *p)
{
    sim_flow *f = &s->flows[fi];
    if (f->state != FS_SYN_SENT || f->stopped)
        return;
    rtcp_on_synack(&f->h, s->now, p->ts);
    f->state = FS_ESTAB;
    s->snd.on_synack(s, f, p->hdr);
    try_send(s, fi);
}

static void sender_on_ack(sim_t *s, int32_t fi, const sim_packet *p)
{
    sim_flow *f = &s->flows[fi];
    if (f->state != FS_ESTAB || f->stopped)
        return;
    rtcp_rtt_sample(&f->h, s->now, p->ts);
    s->snd.on_ack(s, f, p->hdr);
    int loss;
    int64_t newly = rtcp_ack_seq(&f->h, p->seq, s->now, &loss);
    if (newly > 0) {
        s->snd.on_acked(s, f, newly);
        if (f->size_pkts && f->snd_una >= f->size_pkts) {
            f->state = FS_DONE;
            f->fct_ns = s->now - f->start_ns;
            s->flows_done++;
            flow_leaves(s, f);
            return;
        }
    } else if (loss) {
        go_back(s, f);
    }
    try_send(s, fi);
}

/* The echo of a refresh probe carries the rate only: no sequence number to act on. */
static void sender_on_refack(sim_t *s, int32_t fi, const sim_packet *p)
{
    sim_flow *f = &s->flows[fi];
    if (f->state != FS_ESTAB || f->stopped)
        return;
    take_feedback(s, f, rcp_rd32(p->hdr + RCP_OFF_REVERSE));
    try_send(s, fi);
}

static void on_rto(sim_t *s, int32_t fi)
{
    sim_flow *f = &s->flows[fi];
    if (f->state == FS_DONE || f->stopped)
        return;
    int64_t rto = rtcp_rto_ns(&f->h, f->state == FS_ESTAB);
    if (f->state == FS_SYN_SENT) {
        if (s->now - f->syn_ns >= rto)
            send_syn(s, fi);
    } else if (rtcp_timed_out(&f->h, s->now, rto)) {
        go_back(s, f);
        f->cwnd = 1;
        f->xcp_cwnd = (int64_t)s->prm.data_size * XCP_UNITS_PER_BYTE;
        f->last_progress_ns = s->now;
        try_send(s, fi);
    }
    schedule(s, s->now + rto, EV_RTO, fi);
}

static void flow_start(sim_t *s, int32_t fi)
{
    sim_flow *f = &s->flows[fi];
    if (f->state != FS_IDLE || f->stopped)
        return;
    s->n_active++;
    f->state = FS_SYN_SENT;
    f->cwnd = INITIAL_CWND;
    f->ssthresh = s->prm.rwnd_pkts;
    f->xcp_cwnd = INITIAL_CWND * (int64_t)s->prm.data_size * XCP_UNITS_PER_BYTE;
    f->last_send_ns = -1;
    send_syn(s, fi);
    schedule(s, s->now + RTO_INITIAL_NS, EV_RTO, fi);
}

static void flow_stop(sim_t *s, int32_t fi)
{
    sim_flow *f = &s->flows[fi];
    if (f->stopped)
        return;
    if (f->state == FS_IDLE || f->state == FS_DONE)
        f->stopped = 1;
    else
        flow_leaves(s, f);
}

/* ---- R-TCP receiver ---- */

static void receiver_on_packet(sim_t *s, int32_t pi)
{
    sim_packet *p = &s->pkts[pi];
    sim_flow *f = &s->flows[p->flow];
    if (p->kind == RTCP_DATA && p->seq == f->rcv_next) {
        f->rcv_next++;
        f->delivered_bytes += p->size;
    }
    /* The same buffer turns into the reply: echo the rate, zero rate and RTT fields. */
    uint8_t data_hdr[XCP_HEADER_LEN];
    memcpy(data_hdr, p->hdr, sizeof data_hdr); /* a constant length: no library call; echo reads its own bytes */
    s->snd.echo(p->hdr, data_hdr);
    p->kind = rtcp_reply_kind(p->kind);
    p->seq = f->rcv_next;
    p->size = s->prm.ctrl_size;
    host_send(s, pi);
}

static void host_receive(sim_t *s, int32_t pi)
{
    sim_packet *p = &s->pkts[pi];
    s->delivered++;
    if (rtcp_to_receiver(p->kind)) {
        receiver_on_packet(s, pi);
        return;
    }
    if (p->kind == RTCP_SYNACK)
        sender_on_synack(s, p->flow, p);
    else if (p->kind == RTCP_REFACK)
        sender_on_refack(s, p->flow, p);
    else
        sender_on_ack(s, p->flow, p);
    pkt_free(s, pi);
}

/* ---- the loop ---- */

static void dispatch(void *sim, const sim_event *e)
{
    sim_t *s = sim;
    switch (e->type) {
    case EV_FLOW_START:
        flow_start(s, e->arg);
        break;
    case EV_FLOW_STOP:
        flow_stop(s, e->arg);
        break;
    case EV_SEND:
        rtcp_send_event(&s->flows[e->arg].h, e->t, s->prm.rate_refresh);
        try_send(s, e->arg);
        break;
    case EV_REFRESH:
        on_refresh(s, e->arg);
        break;
    case EV_RTO:
        on_rto(s, e->arg);
        break;
    case EV_TX_DONE: {
        sim_link *l = &s->links[e->arg];
        int32_t pi = l->busy;
        l->busy = -1;
        schedule(s, s->now + l->delay_ns, EV_DELIVER, pi);
        if (l->ring.count > 0)
            link_start_tx(s, e->arg);
        break;
    }
    case EV_DELIVER: {
        sim_packet *p = &s->pkts[e->arg];
        p->hop++;
        int32_t next = path_link(s, p);
        if (next >= 0)
            link_arrive(s, next, e->arg);
        else
            host_receive(s, e->arg);
        break;
    }
    }
}

int sim_init(sim_t *s)
{
    s->now = 0;
    s->ev.next_seq = 0;
    ev_pool_init(&s->pkt_pool, sizeof *s->pkts, 1024);
    s->snd = SENDER_OPS[s->prm.sender];
    for (int32_t li = 0; li < s->n_links; li++) {
        sim_link *l = &s->links[li];
        l->busy = -1;
        l->tx_data_ns = serialization_ns(l, s->prm.data_size);
        l->tx_ctrl_ns = serialization_ns(l, s->prm.ctrl_size);
    }
    for (int32_t fi = 0; fi < s->n_flows; fi++) {
        schedule(s, s->flows[fi].start_ns, EV_FLOW_START, fi);
        if (s->flows[fi].stop_ns >= 0)
            schedule(s, s->flows[fi].stop_ns, EV_FLOW_STOP, fi);
    }
    return s->oom ? -1 : 0;
}

int sim_run_until(sim_t *s, int64_t t_ns)
{
    return ev_run_until(&s->ev, &s->now, &s->events, &s->oom, t_ns, dispatch, s);
}

int64_t sim_in_flight(const sim_t *s)
{
    int64_t n = 0;
    for (int32_t li = 0; li < s->n_links; li++)
        n += s->links[li].ring.count + (s->links[li].busy >= 0);
    return n + ev_count_type(&s->ev, EV_DELIVER);
}

void sim_free(sim_t *s)
{
    for (int32_t li = 0; li < s->n_links; li++)
        ev_ring_free(&s->links[li].ring);
    ev_heap_free(&s->ev);
    ev_pool_free(&s->pkt_pool); /* and pkts, its items */
    free(s->links);
    free(s->flows);
    free(s->path_links);
    free(s->path_off);
    free(s->path_len);
    memset(s, 0, sizeof *s);
}
