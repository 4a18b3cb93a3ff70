/* Event loop, links, R-TCP and XCP hosts of the packet simulator. simulator/sim_py.py is the
 * line-by-line Python twin of this file: change both together. */
#include "sim.h"

#include <stdlib.h>
#include <string.h>

#define NS_PER_MS 1000000LL
#define NS_PER_S 1000000000LL
#define RTO_MIN_NS (200 * NS_PER_MS)
#define RTO_INITIAL_NS NS_PER_S
#define DUPACK_THRESHOLD 3
#define INITIAL_CWND 2
#define RTT_FIELD_MAX 0xFFFE
#define NS_PER_US 1000LL
#define XCP_RTT_FIELD_MAX 0xFFFFFFFELL
#define XCP_UNITS_PER_BYTE 1000LL /* = XCP_FEEDBACK_SCALE */

/* ---- event heap, ordered by (time, scheduling order) ---- */

static int ev_less(const sim_event *a, const sim_event *b)
{
    return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static void schedule(sim_t *s, int64_t t, int32_t type, int32_t arg)
{
    if (s->heap_len == s->heap_cap) {
        int64_t cap = s->heap_cap ? 2 * s->heap_cap : 1024;
        sim_event *h = realloc(s->heap, (size_t)cap * sizeof *h);
        if (!h) {
            s->oom = 1;
            return;
        }
        s->heap = h;
        s->heap_cap = cap;
    }
    sim_event e = {t, s->next_seq++, type, arg};
    int64_t i = s->heap_len++;
    while (i > 0) {
        int64_t parent = (i - 1) / 2;
        if (!ev_less(&e, &s->heap[parent]))
            break;
        s->heap[i] = s->heap[parent];
        i = parent;
    }
    s->heap[i] = e;
}

/* Floyd's bottom-up deletion: the hole left at the root moves down to a leaf along the smaller
 * children (one comparison per level, not two), then the last element rises from there (it was
 * a leaf, so it rarely rises far). (time, order) is a total order, so the events come out in the
 * same order as from any other heap (the Python twin's heapq). */
static sim_event pop_event(sim_t *s)
{
    sim_event top = s->heap[0];
    sim_event last = s->heap[--s->heap_len];
    int64_t i = 0, n = s->heap_len;
    if (n == 0)
        return top;
    for (;;) {
        int64_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && ev_less(&s->heap[c + 1], &s->heap[c]))
            c++;
        s->heap[i] = s->heap[c];
        i = c;
    }
    while (i > 0) {
        int64_t parent = (i - 1) / 2;
        if (!ev_less(&last, &s->heap[parent]))
            break;
        s->heap[i] = s->heap[parent];
        i = parent;
    }
    s->heap[i] = last;
    return top;
}

/* ---- packet pool ---- */

static int32_t pkt_alloc(sim_t *s)
{
    if (s->free_head < 0) {
        int32_t old = s->pkt_cap, cap = old ? 2 * old : 1024;
        sim_packet *p = realloc(s->pkts, (size_t)cap * sizeof *p);
        if (!p) {
            s->oom = 1;
            return -1;
        }
        s->pkts = p;
        for (int32_t i = old; i < cap; i++)
            p[i].next_free = i + 1 < cap ? i + 1 : -1;
        s->free_head = old;
        s->pkt_cap = cap;
    }
    int32_t i = s->free_head;
    s->free_head = s->pkts[i].next_free;
    return i;
}

static void pkt_free(sim_t *s, int32_t i)
{
    s->pkts[i].next_free = s->free_head;
    s->free_head = i;
}

/* ---- links ---- */

static int ring_push(sim_t *s, sim_link *l, int32_t pkt)
{
    if (l->ring_count == l->ring_cap) {
        int32_t cap = l->ring_cap ? 2 * l->ring_cap : 64;
        int32_t *r = malloc((size_t)cap * sizeof *r);
        if (!r) {
            s->oom = 1;
            return 0;
        }
        for (int32_t k = 0; k < l->ring_count; k++)
            r[k] = l->ring[(l->ring_head + k) % l->ring_cap];
        free(l->ring);
        l->ring = r;
        l->ring_cap = cap;
        l->ring_head = 0;
    }
    l->ring[(l->ring_head + l->ring_count) % l->ring_cap] = pkt;
    l->ring_count++;
    return 1;
}

static int32_t ring_pop(sim_link *l)
{
    int32_t pkt = l->ring[l->ring_head];
    l->ring_head = (l->ring_head + 1) % l->ring_cap;
    l->ring_count--;
    return pkt;
}

/* Header bytes a packet carries: a port of the other protocol sees a short (malformed)
 * header or misreads a well-defined one, never uninitialised bytes. */
static size_t hdr_len(const sim_t *s)
{
    return s->prm.sender == SENDER_XCP ? XCP_HEADER_LEN : RCP_HEADER_LEN;
}

static int64_t serialization_ns(const sim_link *l, uint32_t size)
{
    return (int64_t)size * 8 * NS_PER_S / l->capacity_bps;
}

static void link_start_tx(sim_t *s, int32_t li)
{
    sim_link *l = &s->links[li];
    int32_t pi = ring_pop(l);
    sim_packet *p = &s->pkts[pi];
    l->ops.depart(&l->port, &l->xcp, p->hdr, hdr_len(s), p->size);
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
    if (!l->ops.arrive(&l->port, &l->xcp, p->hdr, hdr_len(s), p->size)) {
        s->dropped++;
        pkt_free(s, pi);
        return;
    }
    if (!ring_push(s, l, pi))
        return;
    if (l->busy < 0)
        link_start_tx(s, li);
}

static int32_t path_link(const sim_t *s, const sim_packet *p)
{
    const sim_flow *f = &s->flows[p->flow];
    int32_t path = (p->kind == PK_SYN || p->kind == PK_DATA || p->kind == PK_REF) ? f->fwd_path : f->rev_path;
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

static void send_syn(sim_t *s, int32_t fi)
{
    sim_flow *f = &s->flows[fi];
    int32_t pi = new_packet(s, fi, PK_SYN, s->prm.ctrl_size, 0, s->now);
    if (pi < 0)
        return;
    /* The SYN carries the desired rate; its RTT is unknown (all ones), so routers do not
     * average in a zero RTT. An XCP SYN has H_rtt = 0: "no estimate yet". */
    if (s->prm.sender == SENDER_XCP)
        xcp_fill(s->pkts[pi].hdr, xcp_cwnd_field(f), 0, XCP_FEEDBACK_MAX, 0, RCP_PROTO_TCP);
    else
        rcp_fill(s->pkts[pi].hdr, f->request, 0, RCP_RTT_UNKNOWN, RCP_PROTO_TCP);
    f->syn_ns = s->now;
    host_send(s, pi);
}

static void send_data(sim_t *s, int32_t fi)
{
    sim_flow *f = &s->flows[fi];
    int32_t pi = new_packet(s, fi, PK_DATA, s->prm.data_size, f->snd_nxt, s->now);
    if (pi < 0)
        return;
    int64_t rtt_ms = f->srtt_ns / NS_PER_MS, rtt_us = f->srtt_ns / NS_PER_US;
    if (s->prm.sender == SENDER_XCP)
        /* An unlimited sender asks for any increase (paper Sec. 3.3); routers lower it. */
        xcp_fill(s->pkts[pi].hdr, xcp_cwnd_field(f), (uint32_t)(rtt_us < XCP_RTT_FIELD_MAX ? rtt_us : XCP_RTT_FIELD_MAX),
                 XCP_FEEDBACK_MAX, 0, RCP_PROTO_TCP);
    else
        rcp_fill(s->pkts[pi].hdr, f->request, 0, (uint16_t)(rtt_ms < RTT_FIELD_MAX ? rtt_ms : RTT_FIELD_MAX),
                 RCP_PROTO_TCP);
    if (f->snd_una == f->snd_nxt)
        f->last_progress_ns = s->now;
    f->snd_nxt++;
    host_send(s, pi);
}

/* One data packet per pacing interval at the flow's rate, ns. */
static int64_t pace_ns(const sim_t *s, const sim_flow *f)
{
    return (int64_t)s->prm.data_size * NS_PER_MS / f->rate;
}

/* A rate-refresh probe (ns-2 RCP host's REF packet): a control-size packet with the data
 * packet's header fields, so the routers stamp their rate on it and the receiver echoes it. */
static void send_refresh(sim_t *s, int32_t fi)
{
    sim_flow *f = &s->flows[fi];
    int32_t pi = new_packet(s, fi, PK_REF, s->prm.ctrl_size, f->snd_nxt, s->now);
    if (pi < 0)
        return;
    int64_t rtt_ms = f->srtt_ns / NS_PER_MS;
    rcp_fill(s->pkts[pi].hdr, f->request, 0, (uint16_t)(rtt_ms < RTT_FIELD_MAX ? rtt_ms : RTT_FIELD_MAX),
             RCP_PROTO_TCP);
    host_send(s, pi);
}

/* A sender whose next packet is more than one (minimum) RTT away would hear a new rate only with
 * that packet's ACK, up to 1/MIN_RATE = 100 RTTs later: it asks for the rate once per minimum RTT
 * instead, as ns-2's RCP host does (REF packets while its interval exceeds min_rtt_). Unlike
 * ns-2 it probes only while the *remaining* wait exceeds a minimum RTT: a flow paced 1-2 RTTs
 * apart hears its rate from its next ACK soon enough, and ns-2's rule would make it send a
 * control packet every RTT (about 5% of its bytes at 0.7 packets per RTT). */
static void arm_refresh(sim_t *s, int32_t fi)
{
    sim_flow *f = &s->flows[fi];
    if (!s->prm.rate_refresh || f->refresh_pending || f->next_send_ns - s->now <= f->min_rtt_ns)
        return;
    f->refresh_pending = 1;
    schedule(s, s->now + f->min_rtt_ns, EV_REFRESH, fi);
}

static void on_refresh(sim_t *s, int32_t fi)
{
    sim_flow *f = &s->flows[fi];
    f->refresh_pending = 0;
    if (f->state != FS_ESTAB || f->stopped || !f->rcp_mode || f->next_send_ns - s->now <= f->min_rtt_ns)
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
        int64_t window = s->prm.sender == SENDER_XCP ? xcp_window(s, f) : f->rcp_mode ? f->wnd : f->cwnd;
        if (f->snd_nxt - f->snd_una >= window)
            return;
        if (f->rcp_mode) {
            if (s->now < f->next_send_ns) {
                /* A re-paced send earlier than the pending one gets its own event; the later
                 * event then finds nothing to do (its time is no longer send_at_ns). */
                if (!f->send_pending || (s->prm.rate_refresh && f->next_send_ns < f->send_at_ns)) {
                    f->send_pending = 1;
                    f->send_at_ns = f->next_send_ns;
                    schedule(s, f->next_send_ns, EV_SEND, fi);
                }
                arm_refresh(s, fi);
                return;
            }
            /* Paced at one datagram per data_size/rate: the router counts datagram bytes,
             * so this makes N flows at rate R load the link with exactly N*R. */
            f->next_send_ns = s->now + pace_ns(s, f);
            f->last_send_ns = s->now;
        }
        send_data(s, fi);
        if (s->oom)
            return;
    }
}

/* Rate feedback from the reverse field: valid -> R-TCP window, otherwise TCP-like mode. */
static void take_feedback(sim_t *s, sim_flow *f, uint32_t reverse)
{
    if (rcp_rate_unspecified(reverse)) {
        f->rcp_mode = 0;
        return;
    }
    f->rcp_mode = 1;
    f->rate = reverse;
    /* ns-2's RCP host (rate_change): the next packet is due one interval *at the new rate*
     * after the last one, at once if that is past; not one interval at the old rate. */
    if (s->prm.rate_refresh && f->last_send_ns >= 0)
        f->next_send_ns = f->last_send_ns + pace_ns(s, f);
    /* Rounded up: the window must not throttle a flow below its paced rate, and the
     * thesis' denominator (MSS + RCP + IP headers) is already below the datagram size. */
    int64_t denom = NS_PER_MS * (int64_t)s->prm.window_denominator;
    int64_t wnd = ((int64_t)reverse * f->srtt_ns + denom - 1) / denom;
    f->wnd = wnd < 1 ? 1 : (wnd > s->prm.rwnd_pkts ? s->prm.rwnd_pkts : wnd);
}

/* XCP sender (paper Sec. 3.3): cwnd = max(cwnd + H_feedback, s) on every ACK. */
static void xcp_take_feedback(sim_t *s, sim_flow *f, int64_t feedback)
{
    int64_t floor_cwnd = (int64_t)s->prm.data_size * XCP_UNITS_PER_BYTE;
    int64_t top = s->prm.rwnd_pkts * floor_cwnd;
    f->xcp_cwnd += feedback;
    f->xcp_cwnd = f->xcp_cwnd < floor_cwnd ? floor_cwnd : (f->xcp_cwnd > top ? top : f->xcp_cwnd);
}

static void go_back(sim_t *s, sim_flow *f)
{
    /* XCP reacts to a loss "in a similar manner to TCP" (Sec. 3.3): halve the window. */
    xcp_take_feedback(s, f, -(f->xcp_cwnd / 2));
    f->recover = f->snd_nxt;
    f->in_recovery = 1;
    f->snd_nxt = f->snd_una;
    f->dupacks = 0;
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
    f->srtt_ns = s->now - p->ts;
    f->min_rtt_ns = f->srtt_ns;
    f->state = FS_ESTAB;
    f->last_progress_ns = s->now;
    if (s->prm.sender == SENDER_RTCP)
        take_feedback(s, f, rcp_rd32(p->hdr + RCP_OFF_REVERSE));
    try_send(s, fi);
}

static void sender_on_ack(sim_t *s, int32_t fi, const sim_packet *p)
{
    sim_flow *f = &s->flows[fi];
    if (f->state != FS_ESTAB || f->stopped)
        return;
    f->srtt_ns = (7 * f->srtt_ns + (s->now - p->ts)) / 8;
    if (s->now - p->ts < f->min_rtt_ns)
        f->min_rtt_ns = s->now - p->ts;
    if (s->prm.sender == SENDER_XCP)
        xcp_take_feedback(s, f, xcp_rd_i32(p->hdr + XCP_OFF_REVERSE));
    else
        take_feedback(s, f, rcp_rd32(p->hdr + RCP_OFF_REVERSE));
    if (p->seq > f->snd_una) {
        int64_t newly = p->seq - f->snd_una;
        f->snd_una = p->seq;
        f->dupacks = 0;
        f->last_progress_ns = s->now;
        if (f->snd_una >= f->recover)
            f->in_recovery = 0;
        if (!f->rcp_mode && s->prm.sender == SENDER_RTCP)
            tcp_grow(s, f, newly);
        if (f->size_pkts && f->snd_una >= f->size_pkts) {
            f->state = FS_DONE;
            f->fct_ns = s->now - f->start_ns;
            s->flows_done++;
            flow_leaves(s, f);
            return;
        }
    } else if (p->seq == f->snd_una && f->snd_nxt > f->snd_una && !f->in_recovery) {
        if (++f->dupacks == DUPACK_THRESHOLD)
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

static int64_t rto_ns(const sim_flow *f)
{
    if (f->state != FS_ESTAB)
        return RTO_INITIAL_NS;
    return 2 * f->srtt_ns > RTO_MIN_NS ? 2 * f->srtt_ns : RTO_MIN_NS;
}

static void on_rto(sim_t *s, int32_t fi)
{
    sim_flow *f = &s->flows[fi];
    if (f->state == FS_DONE || f->stopped)
        return;
    int64_t rto = rto_ns(f);
    if (f->state == FS_SYN_SENT) {
        if (s->now - f->syn_ns >= rto)
            send_syn(s, fi);
    } else if (f->snd_nxt > f->snd_una && s->now - f->last_progress_ns >= rto) {
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
    if (p->kind == PK_DATA && p->seq == f->rcv_next) {
        f->rcv_next++;
        f->delivered_bytes += p->size;
    }
    /* The same buffer turns into the reply: echo the rate, zero rate and RTT fields. */
    uint8_t data_hdr[XCP_HEADER_LEN];
    memcpy(data_hdr, p->hdr, hdr_len(s));
    if (s->prm.sender == SENDER_XCP)
        xcp_receiver_echo(p->hdr, data_hdr);
    else
        rcp_receiver_echo(p->hdr, data_hdr);
    p->kind = p->kind == PK_SYN ? PK_SYNACK : p->kind == PK_REF ? PK_REFACK : PK_ACK;
    p->seq = f->rcv_next;
    p->size = s->prm.ctrl_size;
    host_send(s, pi);
}

static void host_receive(sim_t *s, int32_t pi)
{
    sim_packet *p = &s->pkts[pi];
    s->delivered++;
    if (p->kind == PK_SYN || p->kind == PK_DATA || p->kind == PK_REF) {
        receiver_on_packet(s, pi);
        return;
    }
    if (p->kind == PK_SYNACK)
        sender_on_synack(s, p->flow, p);
    else if (p->kind == PK_REFACK)
        sender_on_refack(s, p->flow, p);
    else
        sender_on_ack(s, p->flow, p);
    pkt_free(s, pi);
}

/* ---- the loop ---- */

static void dispatch(sim_t *s, const sim_event *e)
{
    switch (e->type) {
    case EV_FLOW_START:
        flow_start(s, e->arg);
        break;
    case EV_FLOW_STOP:
        flow_stop(s, e->arg);
        break;
    case EV_SEND:
        if (!s->prm.rate_refresh || e->t == s->flows[e->arg].send_at_ns)
            s->flows[e->arg].send_pending = 0;
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
        if (l->ring_count > 0)
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
    s->next_seq = 0;
    s->free_head = -1;
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
    while (s->heap_len > 0 && s->heap[0].t < t_ns && !s->oom) {
        sim_event e = pop_event(s);
        s->now = e.t;
        s->events++;
        dispatch(s, &e);
    }
    if (s->oom)
        return -1;
    if (t_ns > s->now)
        s->now = t_ns;
    return 0;
}

int64_t sim_in_flight(const sim_t *s)
{
    int64_t n = 0;
    for (int32_t li = 0; li < s->n_links; li++)
        n += s->links[li].ring_count + (s->links[li].busy >= 0);
    for (int64_t k = 0; k < s->heap_len; k++)
        n += s->heap[k].type == EV_DELIVER;
    return n;
}

void sim_free(sim_t *s)
{
    for (int32_t li = 0; li < s->n_links; li++)
        free(s->links[li].ring);
    free(s->heap);
    free(s->pkts);
    free(s->links);
    free(s->flows);
    free(s->path_links);
    free(s->path_off);
    free(s->path_len);
    memset(s, 0, sizeof *s);
}
