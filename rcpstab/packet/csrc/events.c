/* The growth and release paths of events.h. */
#include "events.h"

#include <stdlib.h>
#include <string.h>

int ev_heap_grow(ev_heap *h)
{
    int64_t cap = h->cap ? 2 * h->cap : 1024;
    ev_event *a = realloc(h->a, (size_t)cap * sizeof *a);
    if (!a)
        return -1;
    h->a = a;
    h->cap = cap;
    return 0;
}

int64_t ev_count_type(const ev_heap *h, int32_t type)
{
    int64_t n = 0;
    for (int64_t k = 0; k < h->len; k++)
        n += h->a[k].type == type;
    return n;
}

void ev_heap_free(ev_heap *h)
{
    free(h->a);
    memset(h, 0, sizeof *h);
}

int ev_pool_grow(ev_pool *p)
{
    int32_t old = p->cap, cap = old ? 2 * old : p->first_cap;
    /* The free list first: if the items' realloc then fails, a longer list is harmless. */
    int32_t *next = realloc(p->next, (size_t)cap * sizeof *next);
    if (!next)
        return -1;
    p->next = next;
    char *a = realloc(p->items, (size_t)cap * p->item_size);
    if (!a)
        return -1;
    p->items = a;
    memset(a + (size_t)old * p->item_size, 0, (size_t)(cap - old) * p->item_size);
    for (int32_t i = old; i < cap; i++)
        next[i] = i + 1 < cap ? i + 1 : -1;
    p->free_head = old;
    p->cap = cap;
    return 0;
}

void ev_pool_free(ev_pool *p)
{
    free(p->items);
    free(p->next);
    ev_pool_init(p, p->item_size, p->first_cap);
}

int ev_ring_grow(ev_ring *r)
{
    int32_t cap = r->cap ? 2 * r->cap : 64;
    int32_t *a = malloc((size_t)cap * sizeof *a);
    if (!a)
        return -1;
    for (int32_t k = 0; k < r->count; k++)
        a[k] = r->a[(r->head + k) % r->cap];
    free(r->a);
    r->a = a;
    r->cap = cap;
    r->head = 0;
    return 0;
}

void ev_ring_free(ev_ring *r)
{
    free(r->a);
    memset(r, 0, sizeof *r);
}
