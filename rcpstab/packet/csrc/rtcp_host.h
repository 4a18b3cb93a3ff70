/* The R-TCP end host's transport logic (thesis 6.1.1, with ns-2's RCP host's reaction to a new rate),
 * written once for both C simulators: the packet simulator (sim.c) and the flow-level one (flows.c).
 * Each keeps its own flow struct (a scripted flow there, a recycled slot here) and embeds the host
 * state below as RTCP_HOST_STATE, so its code reads f->rate while these functions take &f->h.
 * hosts/rtcp_host_py.py is the Python twin: change both together.
 *
 * What stays with a simulator: its packets, events and flow lifetime. The functions here change
 * host state only and tell the caller what to do (send now, schedule a send, schedule a probe). */
#ifndef RCP_RTCP_HOST_H
#define RCP_RTCP_HOST_H

#include <stdint.h>

#include "rcp_header.h"

#define RTCP_NS_PER_MS 1000000LL
#define RTCP_RTO_MIN_NS (200 * RTCP_NS_PER_MS)
#define RTCP_RTO_INITIAL_NS 1000000000LL
#define RTCP_DUPACK_THRESHOLD 3
#define RTCP_RTT_FIELD_MAX 0xFFFE

/* The members of the host state, once: the named struct the functions take and the anonymous
 * one a simulator's flow struct opens (C11), the two in one union so they are the same bytes. */
#define RTCP_HOST_MEMBERS                                                                                      \
    uint32_t rate; /* bytes/ms, from the reverse field */                                                  \
    int in_recovery, send_pending, refresh_pending;                                                          \
    int64_t srtt_ns, wnd;                                                                                    \
    int64_t snd_una, snd_nxt, recover, dupacks;                                                              \
    int64_t next_send_ns, last_progress_ns, syn_ns;                                                          \
    int64_t send_at_ns;   /* time of the pending send event (valid while send_pending) */                    \
    int64_t last_send_ns; /* time of the last paced data packet, -1 before the first */                      \
    int64_t min_rtt_ns;   /* smallest RTT sample: the refresh period (ns-2's min_rtt_) */

typedef struct {
    RTCP_HOST_MEMBERS
} rtcp_host;

#define RTCP_HOST_STATE                                                                                        \
    union {                                                                                                  \
        rtcp_host h;                                                                                         \
        struct {                                                                                             \
            RTCP_HOST_MEMBERS                                                                                \
        };                                                                                                   \
    }

/* The packets of an R-TCP connection, the same codes in both simulators. REF/REFACK: a rate-refresh
 * probe and its echo (ns-2 RCP host's REF/REFACK packets). */
enum { RTCP_SYN, RTCP_SYNACK, RTCP_DATA, RTCP_ACK, RTCP_REF, RTCP_REFACK };

/* SYN, data and probes travel to the receiver (the forward path), the rest back to the sender. */
static inline int rtcp_to_receiver(uint8_t kind)
{
    return kind == RTCP_SYN || kind == RTCP_DATA || kind == RTCP_REF;
}

/* The receiver's reply to a packet of that kind. */
static inline uint8_t rtcp_reply_kind(uint8_t kind)
{
    return kind == RTCP_SYN ? RTCP_SYNACK : kind == RTCP_REF ? RTCP_REFACK : RTCP_ACK;
}

/* What the pacer tells the sender to do. */
enum { RTCP_SEND_NOW, RTCP_WAIT, RTCP_WAIT_SCHEDULE };

/* The RTT field of a data packet or probe: the smoothed RTT in ms, capped below "unknown". */
static inline uint16_t rtcp_rtt_field(const rtcp_host *h)
{
    int64_t rtt_ms = h->srtt_ns / RTCP_NS_PER_MS;
    return (uint16_t)(rtt_ms < RTCP_RTT_FIELD_MAX ? rtt_ms : RTCP_RTT_FIELD_MAX);
}

/* The SYN carries the desired rate; its RTT is unknown (all ones), so routers do not average in
 * a zero RTT. */
static inline void rtcp_fill_syn_hdr(uint8_t *hdr, uint32_t request)
{
    rcp_fill(hdr, request, 0, RCP_RTT_UNKNOWN, RCP_PROTO_TCP);
}

/* A data packet's header, and a rate-refresh probe's (ns-2's REF): routers stamp their rate on it. */
static inline void rtcp_fill_data_hdr(uint8_t *hdr, uint32_t request, const rtcp_host *h)
{
    rcp_fill(hdr, request, 0, rtcp_rtt_field(h), RCP_PROTO_TCP);
}

/* One data packet per pacing interval at the flow's rate, ns: one datagram per data_size/rate,
 * since the router counts datagram bytes (so N flows at rate R load the link with exactly N*R). */
static inline int64_t rtcp_pace_ns(const rtcp_host *h, uint32_t data_size)
{
    return (int64_t)data_size * RTCP_NS_PER_MS / h->rate;
}

/* A valid reverse field sets the rate and the window rate * srtt / (MSS + headers), and returns 1;
 * an unspecified one changes nothing and returns 0. With rate_refresh (ns-2's rate_change) the next
 * packet is due one interval *at the new rate* after the last one, at once if that is past; not
 * one interval at the old rate. The window is rounded up: it must not throttle a flow below its
 * paced rate, and the thesis' denominator (MSS + RCP + IP headers) is already below the datagram. */
static inline int rtcp_take_rate(rtcp_host *h, uint32_t reverse, uint32_t data_size, uint32_t window_denominator,
                                 int64_t rwnd_pkts, int rate_refresh)
{
    if (rcp_rate_unspecified(reverse))
        return 0;
    h->rate = reverse;
    if (rate_refresh && h->last_send_ns >= 0)
        h->next_send_ns = h->last_send_ns + rtcp_pace_ns(h, data_size);
    int64_t denom = RTCP_NS_PER_MS * (int64_t)window_denominator;
    /* 128 bits: a 32-bit rate times an RTT of tens of seconds is beyond int64 (the twin's ints are exact). */
    __int128 wnd = ((__int128)reverse * h->srtt_ns + denom - 1) / denom;
    h->wnd = wnd < 1 ? 1 : (wnd > rwnd_pkts ? rwnd_pkts : (int64_t)wnd);
    return 1;
}

/* The pacer, for a sender the window lets send: RTCP_SEND_NOW (the next send is set one interval
 * on), RTCP_WAIT_SCHEDULE (schedule a send event at next_send_ns), RTCP_WAIT (one is pending).
 * A re-paced send earlier than the pending one gets its own event; the later event then finds
 * nothing to do (its time is no longer send_at_ns, rtcp_send_event). */
static inline int rtcp_pace(rtcp_host *h, int64_t now, uint32_t data_size, int rate_refresh)
{
    if (now < h->next_send_ns) {
        if (!h->send_pending || (rate_refresh && h->next_send_ns < h->send_at_ns)) {
            h->send_pending = 1;
            h->send_at_ns = h->next_send_ns;
            return RTCP_WAIT_SCHEDULE;
        }
        return RTCP_WAIT;
    }
    h->next_send_ns = now + rtcp_pace_ns(h, data_size);
    h->last_send_ns = now;
    return RTCP_SEND_NOW;
}

/* A send event at time t fired: it clears the pending send unless a re-paced one replaced it. */
static inline void rtcp_send_event(rtcp_host *h, int64_t t, int rate_refresh)
{
    if (!rate_refresh || t == h->send_at_ns)
        h->send_pending = 0;
}

/* A sender whose next packet is more than one (minimum) RTT away would hear a new rate only with
 * that packet's ACK, up to 1/MIN_RATE = 100 RTTs later: it asks for the rate once per minimum RTT
 * instead, as ns-2's RCP host does (REF packets while its interval exceeds min_rtt_). Unlike
 * ns-2 it probes only while the *remaining* wait exceeds a minimum RTT: a flow paced 1-2 RTTs
 * apart hears its rate from its next ACK soon enough, and ns-2's rule would make it send a
 * control packet every RTT (about 5% of its bytes at 0.7 packets per RTT).
 * 1: the caller schedules the refresh event at now + min_rtt_ns. */
static inline int rtcp_arm_refresh(rtcp_host *h, int64_t now, int rate_refresh)
{
    if (!rate_refresh || h->refresh_pending || h->next_send_ns - now <= h->min_rtt_ns)
        return 0;
    h->refresh_pending = 1;
    return 1;
}

/* The refresh event fired: 1 if the next packet is still over a minimum RTT away (the caller
 * sends a probe, if its flow is established and rate-paced, and arms the next one). */
static inline int rtcp_refresh_due(rtcp_host *h, int64_t now)
{
    h->refresh_pending = 0;
    return h->next_send_ns - now > h->min_rtt_ns;
}

/* The first RTT sample, from the SYN-ACK: the connection is up. */
static inline void rtcp_on_synack(rtcp_host *h, int64_t now, int64_t ts)
{
    h->srtt_ns = now - ts;
    h->min_rtt_ns = h->srtt_ns;
    h->last_progress_ns = now;
}

/* An ACK's RTT sample (TCP's 7/8 average) and the minimum. */
static inline void rtcp_rtt_sample(rtcp_host *h, int64_t now, int64_t ts)
{
    h->srtt_ns = (7 * h->srtt_ns + (now - ts)) / 8;
    if (now - ts < h->min_rtt_ns)
        h->min_rtt_ns = now - ts;
}

/* Go-back-N from the first unacknowledged packet. */
static inline void rtcp_go_back(rtcp_host *h)
{
    h->recover = h->snd_nxt;
    h->in_recovery = 1;
    h->snd_nxt = h->snd_una;
    h->dupacks = 0;
}

/* An ACK's cumulative number: returns the packets it newly acknowledges (0: none); *loss is set
 * when it is the third duplicate (the caller goes back, with whatever its sender kind adds). */
static inline int64_t rtcp_ack_seq(rtcp_host *h, int64_t seq, int64_t now, int *loss)
{
    *loss = 0;
    if (seq > h->snd_una) {
        int64_t newly = seq - h->snd_una;
        h->snd_una = seq;
        h->dupacks = 0;
        h->last_progress_ns = now;
        if (h->snd_una >= h->recover)
            h->in_recovery = 0;
        return newly;
    }
    if (seq == h->snd_una && h->snd_nxt > h->snd_una && !h->in_recovery)
        *loss = ++h->dupacks == RTCP_DUPACK_THRESHOLD;
    return 0;
}

/* The retransmission timeout: 2 srtt, at least 200 ms; 1 s before the connection is up. */
static inline int64_t rtcp_rto_ns(const rtcp_host *h, int established)
{
    if (!established)
        return RTCP_RTO_INITIAL_NS;
    return 2 * h->srtt_ns > RTCP_RTO_MIN_NS ? 2 * h->srtt_ns : RTCP_RTO_MIN_NS;
}

/* Data outstanding and no progress for a whole timeout. */
static inline int rtcp_timed_out(const rtcp_host *h, int64_t now, int64_t rto)
{
    return h->snd_nxt > h->snd_una && now - h->last_progress_ns >= rto;
}

/* Data packet snd_nxt has left: the timer's progress clock starts with the first outstanding one. */
static inline void rtcp_data_sent(rtcp_host *h, int64_t now)
{
    if (h->snd_una == h->snd_nxt)
        h->last_progress_ns = now;
    h->snd_nxt++;
}

#endif
