/* The table of port_ops.h. */
#include "port_ops.h"

#include <string.h>

#include "rcpac_port.h"

/* A drop-tail port that neither counts nor stamps (ACK links). */
static int plain_arrive(rcp_port *p, xcp_state *x, const uint8_t *pkt, size_t len, uint32_t size)
{
    (void)x, (void)pkt, (void)len;
    return port_admit(p, size);
}

static void plain_depart(rcp_port *p, xcp_state *x, uint8_t *pkt, size_t len, uint32_t size)
{
    (void)x, (void)pkt, (void)len;
    port_release(p, size);
}

/* App. F lines 18-23 (rcp_port.h); RCP ports keep no real-valued state. */
static int rcp_arrive(rcp_port *p, xcp_state *x, const uint8_t *pkt, size_t len, uint32_t size)
{
    (void)x;
    return dp_arrive(p, pkt, len, size);
}

static void rcp_depart(rcp_port *p, xcp_state *x, uint8_t *pkt, size_t len, uint32_t size)
{
    (void)x;
    dp_depart(p, pkt, len, size);
}

static int xcp_port_arrive(rcp_port *p, xcp_state *x, const uint8_t *pkt, size_t len, uint32_t size)
{
    return xcp_arrive(p, x, pkt, len, size);
}

static void xcp_port_depart(rcp_port *p, xcp_state *x, uint8_t *pkt, size_t len, uint32_t size)
{
    xcp_depart(p, x, pkt, len, size);
}

static int rcpac_port_arrive(rcp_port *p, xcp_state *x, const uint8_t *pkt, size_t len, uint32_t size)
{
    return rcpac_arrive(p, x, pkt, len, size);
}

static void rcpac_port_depart(rcp_port *p, xcp_state *x, uint8_t *pkt, size_t len, uint32_t size)
{
    rcpac_depart(p, x, pkt, len, size);
}

const port_ops PORT_OPS[N_PORT_OPS] = {
    [PROTO_PLAIN] = {"plain", plain_arrive, plain_depart},
    [PROTO_RCP] = {"rcp", rcp_arrive, rcp_depart},
    [PROTO_XCP] = {"xcp", xcp_port_arrive, xcp_port_depart},
    [PROTO_RCPAC] = {"rcpac", rcpac_port_arrive, rcpac_port_depart},
};

const port_ops *port_ops_by_name(const char *name)
{
    for (int k = 0; k < N_PORT_OPS; k++)
        if (strcmp(PORT_OPS[k].name, name) == 0)
            return &PORT_OPS[k];
    return NULL;
}
