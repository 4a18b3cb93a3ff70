/* The per-packet data paths a simulator port or a stand-alone port can run, as one table of
 * function pointers: the table entry is chosen once per port (from its protocol code), and the
 * per-packet path calls it without asking which protocol it serves. routers/port_ops.py holds the
 * Python twin's table (same codes, same names, same order).
 *
 * A new data path: its header (arrival counters and sums, departure stamping), one entry in
 * PORT_OPS (port_ops.c) and its code below; the Python twin's entry in routers/port_ops.py. */
#ifndef PORT_OPS_H
#define PORT_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "rcp_port.h"
#include "xcp_port.h"

/* Protocol codes of a link, as the Simulator's constructor takes them (PORT_OPS index). */
enum { PROTO_PLAIN, PROTO_RCP, PROTO_XCP, PROTO_RCPAC, N_PORT_OPS };

typedef struct {
    const char *name;
    /* Arrival: counters and estimator sums, then drop-tail admission. Returns 1 if queued. */
    int (*arrive)(rcp_port *p, xcp_state *x, const uint8_t *pkt, size_t len, uint32_t size);
    /* Departure: release the queue and stamp the header in place. */
    void (*depart)(rcp_port *p, xcp_state *x, uint8_t *pkt, size_t len, uint32_t size);
} port_ops;

extern const port_ops PORT_OPS[N_PORT_OPS];

/* The entry named ``name``, or NULL. */
const port_ops *port_ops_by_name(const char *name);

#endif
