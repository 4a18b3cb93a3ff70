/* The event machinery both packet simulators share (sim.c, flows.c): an event heap ordered by
 * (time, scheduling order), a pool of recycled indices with a free list, and the FIFO ring of
 * a link's waiting packets. The per-event and per-packet steps are inline; only growth (a
 * realloc, once in a while) is a call into events.c.
 *
 * Time is integer nanoseconds and ties break by scheduling order, so the Python twins
 * (simulator/events_py.py, heapq) pop the same events in the same order. */
#ifndef RCP_EVENTS_H
#define RCP_EVENTS_H

#include <stddef.h>
#include <stdint.h>

/* ---- event heap ---- */

typedef struct {
    int64_t t;
    uint64_t seq; /* scheduling order: breaks ties of t */
    int32_t type;
    int32_t arg;  /* flow, link or packet index, as the type says */
    uint32_t gen; /* flows.c: generation of a recycled flow slot (events of a finished flow are ignored) */
} ev_event;

typedef struct {
    ev_event *a;
    int64_t len, cap;
    uint64_t next_seq;
} ev_heap;

/* Doubles the heap's storage; 0 on success, -1 when out of memory (the heap is unchanged). */
int ev_heap_grow(ev_heap *h);

static inline int ev_less(const ev_event *a, const ev_event *b)
{
    return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

/* Puts e into the hole at i, moving it up past every larger parent. */
static inline void ev_sift_up(ev_event *a, int64_t i, ev_event e)
{
    while (i > 0) {
        int64_t parent = (i - 1) / 2;
        if (!ev_less(&e, &a[parent]))
            break;
        a[i] = a[parent];
        i = parent;
    }
    a[i] = e;
}

/* Schedules an event; 0 on success, -1 when out of memory (no event is scheduled). */
static inline int ev_push(ev_heap *h, int64_t t, int32_t type, int32_t arg, uint32_t gen)
{
    if (h->len == h->cap && ev_heap_grow(h) < 0)
        return -1;
    ev_event e = {t, h->next_seq++, type, arg, gen};
    ev_sift_up(h->a, h->len++, e);
    return 0;
}

/* Floyd's bottom-up deletion: the hole left at the root moves down to a leaf along the smaller
 * children (one comparison per level, not two), then the last element rises from there (it was
 * a leaf, so it rarely rises far). (time, order) is a total order, so the events come out in the
 * same order as from any other heap (the Python twins' heapq). The heap must not be empty. */
static inline ev_event ev_pop(ev_heap *h)
{
    ev_event top = h->a[0];
    ev_event last = h->a[--h->len];
    int64_t i = 0, n = h->len;
    if (n == 0)
        return top;
    for (;;) {
        int64_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && ev_less(&h->a[c + 1], &h->a[c]))
            c++;
        h->a[i] = h->a[c];
        i = c;
    }
    ev_sift_up(h->a, i, last);
    return top;
}

/* The loop both simulators run (the twin of events_py.EventLoop.run_until): pops and dispatches
 * every event strictly before t_ns, stopping when an allocation has failed (*oom), then sets the
 * clock *now to t_ns. 0 on success, -1 after a failure. dispatch is the simulator's own static
 * function: once this is inlined the call is direct (and inlined in turn, -O2's indirect inlining). */
static inline int ev_run_until(ev_heap *h, int64_t *now, int64_t *events, const int *oom, int64_t t_ns,
                               void (*dispatch)(void *sim, const ev_event *e), void *sim)
{
    while (h->len > 0 && h->a[0].t < t_ns && !*oom) {
        ev_event e = ev_pop(h);
        *now = e.t;
        (*events)++;
        dispatch(sim, &e);
    }
    if (*oom)
        return -1;
    if (t_ns > *now)
        *now = t_ns;
    return 0;
}

/* Pending events of one type (packets in flight on a wire, for one). */
int64_t ev_count_type(const ev_heap *h, int32_t type);

void ev_heap_free(ev_heap *h);

/* ---- pool of recycled items with a free list (packets, flow slots) ---- */

typedef struct {
    void *items;   /* cap items of item_size bytes; the owner keeps a typed copy of this pointer */
    int32_t *next; /* free list: next free index, -1 at its end */
    size_t item_size;
    int32_t first_cap, cap, free_head;
} ev_pool;

/* An empty pool of item_size-byte items (the first allocation makes room for first_cap). */
static inline void ev_pool_init(ev_pool *p, size_t item_size, int32_t first_cap)
{
    p->items = NULL;
    p->next = NULL;
    p->item_size = item_size;
    p->first_cap = first_cap;
    p->cap = 0;
    p->free_head = -1;
}

/* Doubles the pool, the new items zeroed; 0 on success, -1 when out of memory (the items keep
 * their place in ``items`` if it was moved, the free list is unchanged). */
int ev_pool_grow(ev_pool *p);

/* A free index, growing the pool when none is left (``items`` may move); -1 when out of memory. */
static inline int32_t ev_pool_alloc(ev_pool *p)
{
    if (p->free_head < 0 && ev_pool_grow(p) < 0)
        return -1;
    int32_t i = p->free_head;
    p->free_head = p->next[i];
    return i;
}

static inline void ev_pool_release(ev_pool *p, int32_t i)
{
    p->next[i] = p->free_head;
    p->free_head = i;
}

void ev_pool_free(ev_pool *p);

/* ---- FIFO ring of packet indices (a link's queue) ---- */

typedef struct {
    int32_t *a;
    int32_t cap, head, count;
} ev_ring;

/* Doubles the ring, keeping its order; 0 on success, -1 when out of memory (the ring is unchanged). */
int ev_ring_grow(ev_ring *r);

/* 1 when queued, 0 when out of memory. */
static inline int ev_ring_push(ev_ring *r, int32_t pkt)
{
    if (r->count == r->cap && ev_ring_grow(r) < 0)
        return 0;
    r->a[(r->head + r->count) % r->cap] = pkt;
    r->count++;
    return 1;
}

/* The oldest index; the ring must not be empty. */
static inline int32_t ev_ring_pop(ev_ring *r)
{
    int32_t pkt = r->a[r->head];
    r->head = (r->head + 1) % r->cap;
    r->count--;
    return pkt;
}

void ev_ring_free(ev_ring *r);

#endif
