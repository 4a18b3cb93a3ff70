/* Flow-level traffic on one RCP bottleneck (see flows.h). simulator/flows_py.py is the line-by-line
 * Python twin of this file: change both together. */
#include "flows.h"

#include <stdlib.h>
#include <string.h>

#define NS_PER_S 1000000000LL
#define RTO_INITIAL_NS RTCP_RTO_INITIAL_NS

/* ---- event heap and pools of packets and flow slots (events.h, shared with sim.c) ---- */

static inline void schedule(fl_sim *s, int64_t t, int32_t type, int32_t arg, uint32_t gen)
{
    if (ev_push(&s->ev, t, type, arg, gen) < 0)
        s->oom = 1;
}

static int32_t pkt_alloc(fl_sim *s)
{
    int32_t i = ev_pool_alloc(&s->pkt_pool);
    s->pkts = s->pkt_pool.items; /* moved if the pool grew */
    s->oom |= i < 0;
    return i;
}

static void pkt_free(fl_sim *s, int32_t i)
{
    ev_pool_release(&s->pkt_pool, i);
}

/* New slots are zeroed (FF_FREE, generation 0). */
static int32_t slot_alloc(fl_sim *s)
{
    int32_t i = ev_pool_alloc(&s->flow_pool);
    s->flows = s->flow_pool.items; /* moved if the pool grew */
    if (i < 0) {
        s->oom = 1;
        return -1;
    }
    s->slots_used++;
    return i;
}

/* The generation moves on, so packets and timers of the finished flow are ignored. */
static void slot_release(fl_sim *s, int32_t i)
{
    fl_flow *f = &s->flows[i];
    f->state = FF_FREE;
    f->gen++;
    ev_pool_release(&s->flow_pool, i);
    s->slots_used--;
}

static fl_flow *live_flow(fl_sim *s, int32_t slot, uint32_t gen)
{
    fl_flow *f = &s->flows[slot];
    return f->state != FF_FREE && f->gen == gen ? f : NULL;
}

/* ---- links ---- */

static void link_start_tx(fl_sim *s, int32_t li)
{
    fl_link *l = &s->links[li];
    int32_t pi = ev_ring_pop(&l->ring);
    fl_packet *p = &s->pkts[pi];
    if (l->rcp)
        dp_depart(&l->port, p->hdr, RCP_HEADER_LEN, p->size);
    else
        port_release(&l->port, p->size);
    l->busy = pi;
    schedule(s, s->now + (int64_t)p->size * 8 * NS_PER_S / l->capacity_bps, FE_TX_DONE, li, 0);
}

static void link_arrive(fl_sim *s, int32_t li, int32_t pi)
{
    fl_link *l = &s->links[li];
    fl_packet *p = &s->pkts[pi];
    l->arrivals++;
    int accepted = l->rcp ? dp_arrive(&l->port, p->hdr, RCP_HEADER_LEN, p->size) : port_admit(&l->port, p->size);
    if (!accepted) {
        fl_flow *f = live_flow(s, p->slot, p->gen);
        if (f)
            f->drops++;
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

/* SYN, data and probes go over the RCP port, their replies come back over the plain one. */
static void host_send(fl_sim *s, int32_t pi)
{
    s->sent++;
    uint8_t kind = s->pkts[pi].kind;
    link_arrive(s, rtcp_to_receiver(kind) ? FL_FWD : FL_REV, pi);
}

static int32_t new_packet(fl_sim *s, int32_t slot, uint8_t kind, uint32_t size, int64_t seq)
{
    int32_t pi = pkt_alloc(s);
    if (pi < 0)
        return -1;
    fl_packet *p = &s->pkts[pi];
    p->slot = slot;
    p->gen = s->flows[slot].gen;
    p->kind = kind;
    p->size = size;
    p->seq = seq;
    p->ts = s->now;
    return pi;
}

/* ---- sender: R-TCP (rtcp_host.h, shared with sim.c) on a flow of size_pkts data packets ---- */

static void send_syn(fl_sim *s, int32_t slot)
{
    int32_t pi = new_packet(s, slot, RTCP_SYN, s->prm.ctrl_size, 0);
    if (pi < 0)
        return;
    rtcp_fill_syn_hdr(s->pkts[pi].hdr, s->prm.request);
    s->flows[slot].syn_ns = s->now;
    host_send(s, pi);
}

/* Data packet snd_nxt (RTCP_DATA), or a rate-refresh probe (RTCP_REF: control size, the data
 * header, so the router stamps its rate and the receiver echoes it). */
static void send_segment(fl_sim *s, int32_t slot, uint8_t kind)
{
    fl_flow *f = &s->flows[slot];
    int32_t pi = new_packet(s, slot, kind, kind == RTCP_DATA ? s->prm.data_size : s->prm.ctrl_size, f->snd_nxt);
    if (pi < 0)
        return;
    rtcp_fill_data_hdr(s->pkts[pi].hdr, s->prm.request, &f->h);
    if (kind == RTCP_DATA)
        rtcp_data_sent(&f->h, s->now);
    host_send(s, pi);
}

static void arm_refresh(fl_sim *s, int32_t slot)
{
    fl_flow *f = &s->flows[slot];
    if (rtcp_arm_refresh(&f->h, s->now, s->prm.rate_refresh))
        schedule(s, s->now + f->min_rtt_ns, FE_REFRESH, slot, f->gen);
}

static void on_refresh(fl_sim *s, int32_t slot)
{
    fl_flow *f = &s->flows[slot];
    if (!rtcp_refresh_due(&f->h, s->now) || f->state != FF_ESTAB)
        return;
    send_segment(s, slot, RTCP_REF);
    arm_refresh(s, slot);
}

static void try_send(fl_sim *s, int32_t slot)
{
    fl_flow *f = &s->flows[slot];
    if (f->state != FF_ESTAB)
        return;
    for (;;) {
        if (f->snd_nxt >= f->size_pkts || f->snd_nxt - f->snd_una >= f->wnd)
            return;
        int act = rtcp_pace(&f->h, s->now, s->prm.data_size, s->prm.rate_refresh);
        if (act != RTCP_SEND_NOW) {
            if (act == RTCP_WAIT_SCHEDULE)
                schedule(s, f->next_send_ns, FE_SEND, slot, f->gen);
            arm_refresh(s, slot);
            return;
        }
        send_segment(s, slot, RTCP_DATA);
        if (s->oom)
            return;
    }
}

/* An unspecified reverse field (the router always stamps, so only a corrupted one) leaves the
 * rate and window unchanged; the flow has no TCP-like fallback (sim.c's rcp_mode). */
static void take_feedback(fl_sim *s, fl_flow *f, uint32_t reverse)
{
    rtcp_take_rate(&f->h, reverse, s->prm.data_size, s->prm.window_denominator, s->prm.rwnd_pkts,
                   s->prm.rate_refresh);
}

static void sender_on_synack(fl_sim *s, int32_t slot, const fl_packet *p)
{
    fl_flow *f = &s->flows[slot];
    if (f->state != FF_SYN_SENT)
        return;
    rtcp_on_synack(&f->h, s->now, p->ts);
    f->state = FF_ESTAB;
    take_feedback(s, f, rcp_rd32(p->hdr + RCP_OFF_REVERSE));
    try_send(s, slot);
}

static void sender_on_ack(fl_sim *s, int32_t slot, const fl_packet *p)
{
    fl_flow *f = &s->flows[slot];
    if (f->state != FF_ESTAB)
        return;
    rtcp_rtt_sample(&f->h, s->now, p->ts);
    take_feedback(s, f, rcp_rd32(p->hdr + RCP_OFF_REVERSE));
    int loss;
    if (rtcp_ack_seq(&f->h, p->seq, s->now, &loss) > 0) {
        if (f->snd_una >= f->size_pkts) {
            slot_release(s, slot); /* the receiver has already written the record */
            return;
        }
    } else if (loss) {
        rtcp_go_back(&f->h);
    }
    try_send(s, slot);
}

/* The echo of a refresh probe carries the rate only: no sequence number to act on. */
static void sender_on_refack(fl_sim *s, int32_t slot, const fl_packet *p)
{
    fl_flow *f = &s->flows[slot];
    if (f->state != FF_ESTAB)
        return;
    take_feedback(s, f, rcp_rd32(p->hdr + RCP_OFF_REVERSE));
    try_send(s, slot);
}

static void on_rto(fl_sim *s, int32_t slot)
{
    fl_flow *f = &s->flows[slot];
    int64_t rto = rtcp_rto_ns(&f->h, f->state == FF_ESTAB);
    if (f->state == FF_SYN_SENT) {
        if (s->now - f->syn_ns >= rto)
            send_syn(s, slot);
    } else if (rtcp_timed_out(&f->h, s->now, rto)) {
        rtcp_go_back(&f->h);
        f->last_progress_ns = s->now;
        try_send(s, slot);
    }
    schedule(s, s->now + rto, FE_RTO, slot, f->gen);
}

/* ---- receiver: in-order delivery, cumulative ACKs echoing the stamped rate ---- */

static int record(fl_sim *s, const fl_flow *f)
{
    if (s->rec_len == s->rec_cap) {
        int64_t cap = s->rec_cap ? 2 * s->rec_cap : 1024;
        fl_record *r = realloc(s->rec, (size_t)cap * sizeof *r);
        if (!r) {
            s->oom = 1;
            return 0;
        }
        s->rec = r;
        s->rec_cap = cap;
    }
    s->rec[s->rec_len++] = (fl_record){f->id, f->size_pkts, f->start_ns, s->now - f->start_ns, f->drops};
    return 1;
}

static void receiver_on_packet(fl_sim *s, int32_t pi)
{
    fl_packet *p = &s->pkts[pi];
    fl_flow *f = &s->flows[p->slot];
    if (p->kind == RTCP_DATA && p->seq == f->rcv_next) {
        f->rcv_next++;
        if (f->rcv_next == f->size_pkts && !f->received) {
            f->received = 1;
            s->n_active--;
            s->completed++;
            if (!record(s, f))
                return;
        }
    }
    uint8_t data_hdr[RCP_HEADER_LEN];
    memcpy(data_hdr, p->hdr, RCP_HEADER_LEN);
    rcp_receiver_echo(p->hdr, data_hdr);
    p->kind = rtcp_reply_kind(p->kind);
    p->seq = f->rcv_next;
    p->size = s->prm.ctrl_size;
    host_send(s, pi);
}

static void host_receive(fl_sim *s, int32_t pi)
{
    fl_packet *p = &s->pkts[pi];
    s->delivered++;
    if (!live_flow(s, p->slot, p->gen)) { /* a late duplicate of a finished flow */
        pkt_free(s, pi);
        return;
    }
    if (rtcp_to_receiver(p->kind)) {
        receiver_on_packet(s, pi);
        return;
    }
    if (p->kind == RTCP_SYNACK)
        sender_on_synack(s, p->slot, p);
    else if (p->kind == RTCP_REFACK)
        sender_on_refack(s, p->slot, p);
    else
        sender_on_ack(s, p->slot, p);
    pkt_free(s, pi);
}

/* ---- arrivals ---- */

static void schedule_next_arrival(fl_sim *s)
{
    s->arrival_pending = s->arr_head < s->arr_len;
    if (s->arrival_pending)
        schedule(s, s->arr_t[s->arr_head], FE_ARRIVAL, 0, 0);
}

static void flow_arrive(fl_sim *s)
{
    int64_t size = s->arr_size[s->arr_head++];
    int32_t slot = slot_alloc(s);
    if (slot < 0)
        return;
    fl_flow *f = &s->flows[slot];
    uint32_t gen = f->gen;
    memset(f, 0, sizeof *f);
    f->gen = gen;
    f->state = FF_SYN_SENT;
    f->id = s->next_id++;
    f->size_pkts = size;
    f->start_ns = s->now;
    f->rate = 1;
    f->wnd = 1;
    f->last_send_ns = -1;
    s->n_active++;
    s->started++;
    send_syn(s, slot);
    schedule(s, s->now + RTO_INITIAL_NS, FE_RTO, slot, f->gen);
    schedule_next_arrival(s);
}

int fl_add_arrivals(fl_sim *s, const int64_t *t_ns, const int64_t *size, int64_t n)
{
    if (n <= 0) /* nothing to add (and no NULL buffers handed to memcpy) */
        return n == 0 ? 0 : -2;
    int64_t last = s->arr_len > 0 ? s->arr_t[s->arr_len - 1] : s->now;
    for (int64_t k = 0; k < n; k++) {
        if (t_ns[k] < last || t_ns[k] < s->now || size[k] < 1)
            return -2;
        last = t_ns[k];
    }
    /* Started arrivals are dropped from the front before the FIFO grows. */
    if (s->arr_head > 0) {
        memmove(s->arr_t, s->arr_t + s->arr_head, (size_t)(s->arr_len - s->arr_head) * sizeof *s->arr_t);
        memmove(s->arr_size, s->arr_size + s->arr_head, (size_t)(s->arr_len - s->arr_head) * sizeof *s->arr_size);
        s->arr_len -= s->arr_head;
        s->arr_head = 0;
    }
    if (s->arr_len + n > s->arr_cap) {
        int64_t cap = s->arr_cap ? s->arr_cap : 1024;
        while (cap < s->arr_len + n)
            cap *= 2;
        int64_t *t = realloc(s->arr_t, (size_t)cap * sizeof *t);
        if (t)
            s->arr_t = t;
        int64_t *z = t ? realloc(s->arr_size, (size_t)cap * sizeof *z) : NULL;
        if (!z)
            return -1;
        s->arr_size = z;
        s->arr_cap = cap;
    }
    memcpy(s->arr_t + s->arr_len, t_ns, (size_t)n * sizeof *t_ns);
    memcpy(s->arr_size + s->arr_len, size, (size_t)n * sizeof *size);
    s->arr_len += n;
    if (!s->arrival_pending)
        schedule_next_arrival(s);
    return s->oom ? -1 : 0;
}

/* ---- the loop ---- */

static void dispatch(void *sim, const fl_event *e)
{
    fl_sim *s = sim;
    switch (e->type) {
    case FE_ARRIVAL:
        flow_arrive(s);
        break;
    case FE_SEND:
        if (live_flow(s, e->arg, e->gen)) {
            rtcp_send_event(&s->flows[e->arg].h, e->t, s->prm.rate_refresh);
            try_send(s, e->arg);
        }
        break;
    case FE_REFRESH:
        if (live_flow(s, e->arg, e->gen))
            on_refresh(s, e->arg);
        break;
    case FE_RTO:
        if (live_flow(s, e->arg, e->gen))
            on_rto(s, e->arg);
        break;
    case FE_TX_DONE: {
        fl_link *l = &s->links[e->arg];
        int32_t pi = l->busy;
        l->busy = -1;
        l->tx_bytes += s->pkts[pi].size;
        schedule(s, s->now + l->delay_ns, FE_DELIVER, pi, 0);
        if (l->ring.count > 0)
            link_start_tx(s, e->arg);
        break;
    }
    case FE_DELIVER:
        host_receive(s, e->arg);
        break;
    }
}

void fl_init(fl_sim *s)
{
    s->now = 0;
    s->ev.next_seq = 0;
    ev_pool_init(&s->pkt_pool, sizeof *s->pkts, 1024);
    ev_pool_init(&s->flow_pool, sizeof *s->flows, 256);
    for (int li = 0; li < 2; li++)
        s->links[li].busy = -1;
}

int fl_run_until(fl_sim *s, int64_t t_ns)
{
    return ev_run_until(&s->ev, &s->now, &s->events, &s->oom, t_ns, dispatch, s);
}

int64_t fl_in_flight(const fl_sim *s)
{
    int64_t n = 0;
    for (int li = 0; li < 2; li++)
        n += s->links[li].ring.count + (s->links[li].busy >= 0);
    return n + ev_count_type(&s->ev, FE_DELIVER);
}

void fl_census(const fl_sim *s, int64_t out[4])
{
    out[0] = out[1] = out[2] = out[3] = 0;
    for (int32_t i = 0; i < s->flow_pool.cap; i++) {
        const fl_flow *f = &s->flows[i];
        if (f->state == FF_SYN_SENT) {
            out[0]++;
        } else if (f->state == FF_ESTAB && f->snd_nxt < f->size_pkts) {
            out[1]++;
            out[2] += f->snd_nxt - f->snd_una >= f->wnd && s->now >= f->next_send_ns;
            out[3] += f->rate;
        }
    }
}

void fl_free(fl_sim *s)
{
    for (int li = 0; li < 2; li++)
        ev_ring_free(&s->links[li].ring);
    ev_heap_free(&s->ev);
    ev_pool_free(&s->pkt_pool); /* and pkts, its items */
    ev_pool_free(&s->flow_pool); /* and flows */
    free(s->arr_t);
    free(s->arr_size);
    free(s->rec);
    memset(s, 0, sizeof *s);
}
