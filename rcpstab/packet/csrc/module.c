/* Python bindings: rcpstab.packet._datapath.
 *   Datapath  - stand-alone output ports running App. F lines 18-23 on packet buffers
 *   XcpDatapath - stand-alone XCP or RCP-AC output ports (xcp_port.h, rcpac_port.h)
 *   DATAPATHS - names of the PORT_OPS entries by protocol code (port_ops.h)
 *   SENDERS - names of the SENDER_OPS entries by sender code (sim.h)
 *   Simulator - the packet simulator of sim.c, driven by the Python control path
 *   receiver_echo - the receiver's per-packet header rewrite */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>

#include "control.h"
#include "domains.h"
#include "rcp_port.h"
#include "sim.h"

#include <limits.h>
#include <stdarg.h>
#include <stddef.h>

/* The integer arguments' ranges, read from rcpstab.runtime.validation.SIMULATOR_INTEGERS when the
 * module is imported (domains.h); the Python twins (simulator/sim_py.py, routers/rcp and routers/xcp datapath_py.py)
 * check against the same table, so both refuse the same values with the same message. The 'I',
 * 'K' and 'L' format codes used to wrap or overflow instead (buffer = -1 became 2**64 - 1, size
 * 2**32 + 12 became 12). floor..ceiling is what sim.c relies on: headers fit, times and sizes
 * keep int64 sums and products exact, 32-bit registers, 8-bit hop counters. */
enum {
    P_CAPACITY, P_DELAY, P_BUFFER, P_DATA_SIZE, P_CTRL_SIZE, P_WINDOW_DENOMINATOR, P_RWND, P_REQUEST, P_START,
    P_STOP, P_FLOW_PKTS, P_T, P_INTERVAL, P_PATH_LINKS, P_SIZE, P_N_PORTS, P_RATE, N_INTEGERS
};
static int_domain D[N_INTEGERS] = {
    [P_CAPACITY] = {"capacity_bps", 1, LLONG_MAX},
    [P_DELAY] = {"delay_ns", 0, 1LL << 40},
    [P_BUFFER] = {"buffer_bytes", 0, LLONG_MAX},
    [P_DATA_SIZE] = {"data_size", RCP_HEADER_LEN, 1LL << 24},
    [P_CTRL_SIZE] = {"ctrl_size", RCP_HEADER_LEN, 1LL << 24},
    [P_WINDOW_DENOMINATOR] = {"window_denominator", 1, 1LL << 24},
    [P_RWND] = {"rwnd_pkts", 1, LLONG_MAX},
    [P_REQUEST] = {"request", 0, 0xFFFFFFFFLL},
    [P_START] = {"start_ns", 0, 1LL << 60},
    [P_STOP] = {"stop_ns", LLONG_MIN, 1LL << 60},
    [P_FLOW_PKTS] = {"flow_pkts", 0, 1LL << 40},
    [P_T] = {"t_ns", LLONG_MIN, 1LL << 60},
    [P_INTERVAL] = {"interval_ns", 1, 1LL << 60},
    [P_PATH_LINKS] = {"path_links", 1, 255},
    [P_SIZE] = {"size", 0, 0xFFFFFFFFLL},
    [P_N_PORTS] = {"n_ports", 1, 1LL << 24},
    [P_RATE] = {"rate", 0, 0xFFFFFFFFLL},
};

static int size_arg(PyObject *o, uint32_t *size)
{
    long long v;
    if (int_arg(o, &D[P_SIZE], "", &v) < 0)
        return -1;
    *size = (uint32_t)v;
    return 0;
}

/* PyArg_ParseTuple on an item of a list: the item may be any sequence (a list raised SystemError). */
static int parse_item(PyObject *item, const char *what, Py_ssize_t i, const char *format, ...)
{
    if (!PyTuple_Check(item) && !PyList_Check(item)) {
        PyErr_Format(PyExc_TypeError, "%s %zd must be a tuple, not %.80s", what, i, Py_TYPE(item)->tp_name);
        return -1;
    }
    PyObject *tuple = PySequence_Tuple(item);
    if (!tuple)
        return -1;
    va_list va;
    va_start(va, format);
    int ok = PyArg_VaParse(tuple, format, va);
    va_end(va);
    Py_DECREF(tuple);
    if (!ok) {
        /* name the item: "link 3: function takes exactly 4 arguments (3 given)" */
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        PyErr_Format(type ? type : PyExc_TypeError, "%s %zd: %S", what, i, value ? value : Py_None);
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(tb);
        return -1;
    }
    return 0;
}

/* The 64-bit registers in slot order, then the 32-bit rate register. */
static const char *const REGISTER_NAMES[] = {"input_bytes", "rtt_sum", "rtt_count", "queue_bytes", "buffer_bytes",
                                              "malformed",   "dropped", "max_rtt",   "rate",        NULL};
#define RATE_REGISTER 8

static uint64_t *register_slot(rcp_port *p, int k)
{
    uint64_t *slots[] = {&p->input_bytes, &p->rtt_sum, &p->rtt_count, &p->queue_bytes,
                         &p->buffer_bytes, &p->malformed, &p->dropped, &p->max_rtt};
    return slots[k];
}

static PyObject *registers_dict(rcp_port *p)
{
    PyObject *d = PyDict_New();
    if (!d)
        return NULL;
    for (int k = 0; REGISTER_NAMES[k]; k++) {
        unsigned long long v = k == RATE_REGISTER ? p->rate : *register_slot(p, k);
        PyObject *o = PyLong_FromUnsignedLongLong(v);
        if (!o || PyDict_SetItemString(d, REGISTER_NAMES[k], o) < 0) {
            Py_XDECREF(o);
            Py_DECREF(d);
            return NULL;
        }
        Py_DECREF(o);
    }
    return d;
}

/* Write registers named by keyword; rate is 32 bits wide, the others 64. */
static int set_registers(rcp_port *p, PyObject *kwargs)
{
    if (!kwargs)
        return 0;
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(kwargs, &pos, &key, &value)) {
        const char *name = PyUnicode_AsUTF8(key);
        if (!name)
            return -1;
        int k = 0;
        while (REGISTER_NAMES[k] && strcmp(REGISTER_NAMES[k], name) != 0)
            k++;
        if (!REGISTER_NAMES[k]) {
            PyErr_Format(PyExc_ValueError, "unknown register %s", name);
            return -1;
        }
        PyObject *index = PyNumber_Index(value);
        if (!index)
            return -1;
        if (k == RATE_REGISTER) {
            long long v;
            int rc = int_arg(index, &D[P_RATE], "register", &v);
            Py_DECREF(index);
            if (rc < 0)
                return -1;
            p->rate = (uint32_t)v;
        } else {
            unsigned long long v = PyLong_AsUnsignedLongLong(index);
            if (PyErr_Occurred()) { /* negative or wider than 64 bits */
                PyErr_Clear();
                PyErr_Format(PyExc_OverflowError, "register %s=%S does not fit in 64 bits", name, index);
                Py_DECREF(index);
                return -1;
            }
            Py_DECREF(index);
            *register_slot(p, k) = v;
        }
    }
    return 0;
}

/* registers(port) and set_registers(port, **values), shared by Datapath and Simulator. */
typedef rcp_port *(*port_lookup)(PyObject *self, Py_ssize_t i);

static PyObject *port_registers(PyObject *self, PyObject *args, port_lookup lookup)
{
    Py_ssize_t i;
    if (!PyArg_ParseTuple(args, "n", &i))
        return NULL;
    rcp_port *p = lookup(self, i);
    return p ? registers_dict(p) : NULL;
}

static PyObject *port_set_registers(PyObject *self, PyObject *args, PyObject *kwargs, port_lookup lookup)
{
    Py_ssize_t i;
    if (!PyArg_ParseTuple(args, "n", &i))
        return NULL;
    rcp_port *p = lookup(self, i);
    if (!p || set_registers(p, kwargs) < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* The real-valued registers of an XCP / RCP-AC port, by name. */
static const struct {
    const char *name;
    size_t offset;
} XCP_REGISTERS[] = {
    {"sum_rtt_by_cwnd", offsetof(xcp_state, sum_rtt_by_cwnd)},
    {"sum_rtt_square_by_cwnd", offsetof(xcp_state, sum_rtt_square_by_cwnd)},
    {"sum_deficit", offsetof(xcp_state, sum_deficit)},
    {"min_queue", offsetof(xcp_state, min_queue)},
    {"xi_p", offsetof(xcp_state, xi_p)},
    {"xi_n", offsetof(xcp_state, xi_n)},
    {"residue_pos", offsetof(xcp_state, residue_pos)},
    {"residue_neg", offsetof(xcp_state, residue_neg)},
    {"rate", offsetof(xcp_state, rate)},
    {"avg_rtt", offsetof(xcp_state, avg_rtt)},
    {"xi_ac", offsetof(xcp_state, xi_ac)},
    {NULL, 0},
};

static double *xcp_slot(xcp_state *x, int k)
{
    return (double *)((char *)x + XCP_REGISTERS[k].offset);
}

static PyObject *xcp_registers_dict(xcp_state *x)
{
    PyObject *d = PyDict_New();
    for (int k = 0; d && XCP_REGISTERS[k].name; k++) {
        PyObject *o = PyFloat_FromDouble(*xcp_slot(x, k));
        if (!o || PyDict_SetItemString(d, XCP_REGISTERS[k].name, o) < 0)
            Py_CLEAR(d);
        Py_XDECREF(o);
    }
    return d;
}

static int set_xcp_registers(xcp_state *x, PyObject *kwargs)
{
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (kwargs && PyDict_Next(kwargs, &pos, &key, &value)) {
        const char *name = PyUnicode_AsUTF8(key);
        if (!name)
            return -1;
        int k = 0;
        while (XCP_REGISTERS[k].name && strcmp(XCP_REGISTERS[k].name, name) != 0)
            k++;
        if (!XCP_REGISTERS[k].name) {
            PyErr_Format(PyExc_ValueError, "unknown register %s", name);
            return -1;
        }
        double v = PyFloat_AsDouble(value);
        if (v == -1.0 && PyErr_Occurred())
            return -1;
        *xcp_slot(x, k) = v;
    }
    return 0;
}

/* xcp_registers(port) and set_xcp_registers(port, **values), shared by XcpDatapath and Simulator. */
typedef xcp_state *(*xcp_lookup)(PyObject *self, Py_ssize_t i);

static PyObject *port_xcp_registers(PyObject *self, PyObject *args, xcp_lookup lookup)
{
    Py_ssize_t i;
    if (!PyArg_ParseTuple(args, "n", &i))
        return NULL;
    xcp_state *x = lookup(self, i);
    return x ? xcp_registers_dict(x) : NULL;
}

static PyObject *port_set_xcp_registers(PyObject *self, PyObject *args, PyObject *kwargs, xcp_lookup lookup)
{
    Py_ssize_t i;
    if (!PyArg_ParseTuple(args, "n", &i))
        return NULL;
    xcp_state *x = lookup(self, i);
    if (!x || set_xcp_registers(x, kwargs) < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------ Datapath */

typedef struct {
    PyObject_HEAD
    rcp_port *ports;
    Py_ssize_t n_ports;
} DatapathObject;

static int Datapath_init(DatapathObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"n_ports", NULL};
    PyObject *n_obj;
    long long n;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O", kwlist, &n_obj) || int_arg(n_obj, &D[P_N_PORTS], "", &n) < 0)
        return -1;
    PyMem_Free(self->ports);
    self->ports = PyMem_Calloc((size_t)n, sizeof(rcp_port));
    if (!self->ports) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        port_init(&self->ports[i]);
    self->n_ports = (Py_ssize_t)n;
    return 0;
}

static void Datapath_dealloc(DatapathObject *self)
{
    PyMem_Free(self->ports);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static rcp_port *datapath_port(DatapathObject *self, Py_ssize_t i)
{
    if (!self->ports || i < 0 || i >= self->n_ports) {
        PyErr_Format(PyExc_IndexError, "port %zd is outside 0..%zd", i, self->n_ports - 1);
        return NULL;
    }
    return &self->ports[i];
}

static PyObject *Datapath_arrive(DatapathObject *self, PyObject *args)
{
    Py_ssize_t i;
    Py_buffer buf;
    PyObject *size_obj;
    uint32_t size;
    if (!PyArg_ParseTuple(args, "ny*O", &i, &buf, &size_obj))
        return NULL;
    if (size_arg(size_obj, &size) < 0) {
        PyBuffer_Release(&buf);
        return NULL;
    }
    rcp_port *p = datapath_port(self, i);
    int accepted = p ? dp_arrive(p, buf.buf, (size_t)buf.len, size) : 0;
    PyBuffer_Release(&buf);
    if (!p)
        return NULL;
    return PyBool_FromLong(accepted);
}

static PyObject *Datapath_depart(DatapathObject *self, PyObject *args)
{
    Py_ssize_t i;
    Py_buffer buf;
    PyObject *size_obj;
    uint32_t size;
    if (!PyArg_ParseTuple(args, "ny*O", &i, &buf, &size_obj))
        return NULL;
    if (size_arg(size_obj, &size) < 0) {
        PyBuffer_Release(&buf);
        return NULL;
    }
    rcp_port *p = datapath_port(self, i);
    PyObject *out = p ? PyBytes_FromStringAndSize(buf.buf, buf.len) : NULL;
    PyBuffer_Release(&buf);
    if (!out)
        return NULL;
    dp_depart(p, (uint8_t *)PyBytes_AS_STRING(out), (size_t)PyBytes_GET_SIZE(out), size);
    return out;
}

static rcp_port *datapath_lookup(PyObject *self, Py_ssize_t i)
{
    return datapath_port((DatapathObject *)self, i);
}

static PyObject *Datapath_registers(PyObject *self, PyObject *args)
{
    return port_registers(self, args, datapath_lookup);
}

static PyObject *Datapath_set_registers(PyObject *self, PyObject *args, PyObject *kwargs)
{
    return port_set_registers(self, args, kwargs, datapath_lookup);
}

static PyMethodDef Datapath_methods[] = {
    {"arrive", (PyCFunction)Datapath_arrive, METH_VARARGS,
     "arrive(port, packet, size) -> bool: App. F lines 18-21 and drop-tail admission; "
     "True if the packet was queued. size is the IP datagram size in bytes."},
    {"depart", (PyCFunction)Datapath_depart, METH_VARARGS,
     "depart(port, packet, size) -> bytes: App. F lines 22-23; returns the stamped packet."},
    {"registers", (PyCFunction)Datapath_registers, METH_VARARGS, "registers(port) -> dict of the port's registers."},
    {"set_registers", (PyCFunction)(void (*)(void))Datapath_set_registers, METH_VARARGS | METH_KEYWORDS,
     "set_registers(port, **values): write registers by name."},
    {NULL},
};

static PyTypeObject DatapathType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "rcpstab.packet._datapath.Datapath",
    .tp_doc = "Output ports of an RCP router: per-port registers and the per-packet data path.",
    .tp_basicsize = sizeof(DatapathObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Datapath_init,
    .tp_dealloc = (destructor)Datapath_dealloc,
    .tp_methods = Datapath_methods,
};

/* --------------------------------------------------------------- XcpDatapath */

typedef struct {
    PyObject_HEAD
    rcp_port *ports;
    xcp_state *state;
    Py_ssize_t n_ports;
    const port_ops *ops; /* PORT_OPS entry of xcp or rcpac */
} XcpDatapathObject;

static int XcpDatapath_init(XcpDatapathObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"n_ports", "protocol", NULL};
    PyObject *n_obj;
    long long n;
    const char *protocol;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "Os", kwlist, &n_obj, &protocol) ||
        int_arg(n_obj, &D[P_N_PORTS], "", &n) < 0)
        return -1;
    if (strcmp(protocol, "xcp") != 0 && strcmp(protocol, "rcpac") != 0) {
        PyErr_Format(PyExc_ValueError, "protocol=%s is not xcp or rcpac", protocol);
        return -1;
    }
    PyMem_Free(self->ports);
    PyMem_Free(self->state);
    self->ports = PyMem_Calloc((size_t)n, sizeof(rcp_port));
    self->state = PyMem_Calloc((size_t)n, sizeof(xcp_state));
    if (!self->ports || !self->state) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        port_init(&self->ports[i]);
    self->n_ports = (Py_ssize_t)n;
    self->ops = port_ops_by_name(protocol);
    return 0;
}

static void XcpDatapath_dealloc(XcpDatapathObject *self)
{
    PyMem_Free(self->ports);
    PyMem_Free(self->state);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int xcp_datapath_index(XcpDatapathObject *self, Py_ssize_t i)
{
    if (!self->ports || !self->state || i < 0 || i >= self->n_ports) {
        PyErr_Format(PyExc_IndexError, "port %zd is outside 0..%zd", i, self->n_ports - 1);
        return 0;
    }
    return 1;
}

static PyObject *XcpDatapath_arrive(XcpDatapathObject *self, PyObject *args)
{
    Py_ssize_t i;
    Py_buffer buf;
    PyObject *size_obj;
    uint32_t size;
    if (!PyArg_ParseTuple(args, "ny*O", &i, &buf, &size_obj))
        return NULL;
    if (size_arg(size_obj, &size) < 0) {
        PyBuffer_Release(&buf);
        return NULL;
    }
    int ok = xcp_datapath_index(self, i);
    int accepted = ok ? self->ops->arrive(&self->ports[i], &self->state[i], buf.buf, (size_t)buf.len, size) : 0;
    PyBuffer_Release(&buf);
    return ok ? PyBool_FromLong(accepted) : NULL;
}

static PyObject *XcpDatapath_depart(XcpDatapathObject *self, PyObject *args)
{
    Py_ssize_t i;
    Py_buffer buf;
    PyObject *size_obj;
    uint32_t size;
    if (!PyArg_ParseTuple(args, "ny*O", &i, &buf, &size_obj))
        return NULL;
    if (size_arg(size_obj, &size) < 0) {
        PyBuffer_Release(&buf);
        return NULL;
    }
    PyObject *out = xcp_datapath_index(self, i) ? PyBytes_FromStringAndSize(buf.buf, buf.len) : NULL;
    PyBuffer_Release(&buf);
    if (!out)
        return NULL;
    self->ops->depart(&self->ports[i], &self->state[i], (uint8_t *)PyBytes_AS_STRING(out),
                      (size_t)PyBytes_GET_SIZE(out), size);
    return out;
}

static rcp_port *xcp_datapath_port(PyObject *self, Py_ssize_t i)
{
    XcpDatapathObject *o = (XcpDatapathObject *)self;
    return xcp_datapath_index(o, i) ? &o->ports[i] : NULL;
}

static xcp_state *xcp_datapath_state(PyObject *self, Py_ssize_t i)
{
    XcpDatapathObject *o = (XcpDatapathObject *)self;
    return xcp_datapath_index(o, i) ? &o->state[i] : NULL;
}

static PyObject *XcpDatapath_registers(PyObject *self, PyObject *args)
{
    return port_registers(self, args, xcp_datapath_port);
}

static PyObject *XcpDatapath_set_registers(PyObject *self, PyObject *args, PyObject *kwargs)
{
    return port_set_registers(self, args, kwargs, xcp_datapath_port);
}

static PyObject *XcpDatapath_xcp_registers(PyObject *self, PyObject *args)
{
    return port_xcp_registers(self, args, xcp_datapath_state);
}

static PyObject *XcpDatapath_set_xcp_registers(PyObject *self, PyObject *args, PyObject *kwargs)
{
    return port_set_xcp_registers(self, args, kwargs, xcp_datapath_state);
}

static PyMethodDef XcpDatapath_methods[] = {
    {"arrive", (PyCFunction)XcpDatapath_arrive, METH_VARARGS,
     "arrive(port, packet, size) -> bool: estimator sums, counters and drop-tail admission; True if queued."},
    {"depart", (PyCFunction)XcpDatapath_depart, METH_VARARGS,
     "depart(port, packet, size) -> bytes: the packet with its H_feedback computed."},
    {"registers", (PyCFunction)XcpDatapath_registers, METH_VARARGS,
     "registers(port) -> dict of the integer registers (rtt_sum in microseconds; rate unused)."},
    {"set_registers", (PyCFunction)(void (*)(void))XcpDatapath_set_registers, METH_VARARGS | METH_KEYWORDS,
     "set_registers(port, **values): write integer registers by name."},
    {"xcp_registers", (PyCFunction)XcpDatapath_xcp_registers, METH_VARARGS,
     "xcp_registers(port) -> dict of the real-valued registers."},
    {"set_xcp_registers", (PyCFunction)(void (*)(void))XcpDatapath_set_xcp_registers, METH_VARARGS | METH_KEYWORDS,
     "set_xcp_registers(port, **values): write real-valued registers by name."},
    {NULL},
};

static PyTypeObject XcpDatapathType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "rcpstab.packet._datapath.XcpDatapath",
    .tp_doc = "Output ports of an XCP or RCP-AC router: registers and the per-packet feedback.",
    .tp_basicsize = sizeof(XcpDatapathObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)XcpDatapath_init,
    .tp_dealloc = (destructor)XcpDatapath_dealloc,
    .tp_methods = XcpDatapath_methods,
};

/* ----------------------------------------------------------------- Simulator */

typedef struct {
    PyObject_HEAD
    sim_t sim;
    int ready;
    int running; /* run_until has released the GIL: no other call may touch sim (set and read under the GIL) */
} SimulatorObject;

static int simulator_idle(SimulatorObject *self)
{
    if (self->running)
        PyErr_SetString(PyExc_RuntimeError,
                        "Simulator is running (run_until) in another thread; one Simulator serves one thread at a time");
    return !self->running;
}

static int parse_links(sim_t *s, PyObject *links)
{
    Py_ssize_t n = PySequence_Fast_GET_SIZE(links);
    s->links = calloc((size_t)n ? (size_t)n : 1, sizeof(sim_link));
    if (!s->links) {
        PyErr_NoMemory();
        return -1;
    }
    s->n_links = (int32_t)n;
    for (Py_ssize_t i = 0; i < n; i++) {
        sim_link *l = &s->links[i];
        char where[32];
        long long cap, delay, buffer, proto;
        PyObject *cap_obj, *delay_obj, *buffer_obj, *proto_obj;
        snprintf(where, sizeof where, "link %zd", i);
        if (parse_item(PySequence_Fast_GET_ITEM(links, i), "link", i, "OOOO", &cap_obj, &delay_obj, &buffer_obj,
                       &proto_obj) < 0 ||
            int_arg(cap_obj, &D[P_CAPACITY], where, &cap) < 0 || int_arg(delay_obj, &D[P_DELAY], where, &delay) < 0 ||
            int_arg(buffer_obj, &D[P_BUFFER], where, &buffer) < 0 ||
            int_in_range(proto_obj, where, "protocol", 0, N_PORT_OPS - 1, &proto) < 0)
            return -1;
        l->capacity_bps = cap;
        l->delay_ns = delay;
        port_init(&l->port);
        l->port.buffer_bytes = (uint64_t)buffer;
        l->ops = PORT_OPS[proto]; /* chosen once: the per-packet path never asks for the protocol */
    }
    return 0;
}

static int parse_paths(sim_t *s, PyObject *paths)
{
    Py_ssize_t n = PySequence_Fast_GET_SIZE(paths), total = 0;
    s->path_off = calloc((size_t)n + 1, sizeof(int32_t));
    s->path_len = calloc((size_t)n + 1, sizeof(int32_t));
    if (!s->path_off || !s->path_len) {
        PyErr_NoMemory();
        return -1;
    }
    s->n_paths = (int32_t)n;
    for (Py_ssize_t i = 0; i < n; i++) {
        char where[32];
        long long len;
        snprintf(where, sizeof where, "path %zd", i);
        Py_ssize_t length = PyObject_Length(PySequence_Fast_GET_ITEM(paths, i));
        PyObject *len_obj = length < 0 ? NULL : PyLong_FromSsize_t(length); /* the twin checks len() alike */
        int rc = len_obj ? int_arg(len_obj, &D[P_PATH_LINKS], where, &len) : -1;
        Py_XDECREF(len_obj);
        if (rc < 0)
            return -1;
        s->path_off[i] = (int32_t)total;
        s->path_len[i] = (int32_t)len;
        total += len;
    }
    s->path_links = calloc((size_t)total + 1, sizeof(int32_t));
    if (!s->path_links) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *path = PySequence_Tuple(PySequence_Fast_GET_ITEM(paths, i));
        if (!path)
            return -1;
        /* len() and iteration may disagree (a __len__ that lies, a generator): index only what is there */
        if (PyTuple_GET_SIZE(path) != s->path_len[i]) {
            PyErr_Format(PyExc_ValueError, "path %zd: len() said %d links but it holds %zd", i, s->path_len[i],
                         PyTuple_GET_SIZE(path));
            Py_DECREF(path);
            return -1;
        }
        char where[32];
        snprintf(where, sizeof where, "path %zd", i);
        for (Py_ssize_t k = 0; k < s->path_len[i]; k++) {
            long long li;
            if (int_in_range(PyTuple_GET_ITEM(path, k), where, "link", 0, s->n_links - 1LL, &li) < 0) {
                Py_DECREF(path);
                return -1;
            }
            s->path_links[s->path_off[i] + k] = (int32_t)li;
        }
        Py_DECREF(path);
    }
    return 0;
}

static int parse_flows(sim_t *s, PyObject *flows)
{
    Py_ssize_t n = PySequence_Fast_GET_SIZE(flows);
    s->flows = calloc((size_t)n ? (size_t)n : 1, sizeof(sim_flow));
    if (!s->flows) {
        PyErr_NoMemory();
        return -1;
    }
    s->n_flows = (int32_t)n;
    for (Py_ssize_t i = 0; i < n; i++) {
        sim_flow *f = &s->flows[i];
        char where[32];
        long long start, stop, size, request, fwd, rev;
        PyObject *o[6];
        snprintf(where, sizeof where, "flow %zd", i);
        if (parse_item(PySequence_Fast_GET_ITEM(flows, i), "flow", i, "OOOOOO", &o[0], &o[1], &o[2], &o[3], &o[4],
                       &o[5]) < 0 ||
            int_arg(o[0], &D[P_START], where, &start) < 0 || int_arg(o[1], &D[P_STOP], where, &stop) < 0 ||
            int_arg(o[2], &D[P_FLOW_PKTS], where, &size) < 0 || int_arg(o[3], &D[P_REQUEST], where, &request) < 0 ||
            int_in_range(o[4], where, "fwd_path", 0, s->n_paths - 1LL, &fwd) < 0 ||
            int_in_range(o[5], where, "rev_path", 0, s->n_paths - 1LL, &rev) < 0)
            return -1;
        f->start_ns = start;
        f->stop_ns = stop;
        f->size_pkts = size;
        f->request = (uint32_t)request;
        f->fwd_path = (int32_t)fwd;
        f->rev_path = (int32_t)rev;
    }
    return 0;
}

static int Simulator_init(SimulatorObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"links", "paths", "flows", "data_size", "ctrl_size", "window_denominator", "rwnd_pkts",
                             "sender", "rate_refresh", NULL};
    PyObject *links, *paths, *flows, *data_obj, *ctrl_obj, *denominator_obj, *rwnd_obj, *sender_obj = NULL;
    sim_params prm;
    long long rwnd, data_size, ctrl_size, denominator, sender = SENDER_RTCP;
    prm.rate_refresh = 1;
    if (self->running) {
        PyErr_SetString(PyExc_RuntimeError, "Simulator: cannot re-initialise while run_until runs in another thread");
        return -1;
    }
    if (self->ready)
        sim_free(&self->sim);
    self->ready = 0;
    memset(&self->sim, 0, sizeof self->sim);
    /* The order of the checks is the twin's (sim_py.check_arguments): the first bad value is named alike. */
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOOOOOO|Op", kwlist, &links, &paths, &flows, &data_obj, &ctrl_obj,
                                     &denominator_obj, &rwnd_obj, &sender_obj, &prm.rate_refresh))
        return -1;
    if (int_arg(data_obj, &D[P_DATA_SIZE], "", &data_size) < 0 || int_arg(ctrl_obj, &D[P_CTRL_SIZE], "", &ctrl_size) < 0 ||
        int_arg(denominator_obj, &D[P_WINDOW_DENOMINATOR], "", &denominator) < 0 ||
        int_arg(rwnd_obj, &D[P_RWND], "", &rwnd) < 0 ||
        (sender_obj && int_in_range(sender_obj, "", "sender", 0, N_SENDERS - 1, &sender) < 0))
        return -1;
    prm.data_size = (uint32_t)data_size;
    prm.ctrl_size = (uint32_t)ctrl_size;
    prm.window_denominator = (uint32_t)denominator;
    prm.rwnd_pkts = rwnd;
    prm.sender = (int)sender;
    const char *refused = SENDER_OPS[prm.sender].check(&prm);
    if (refused) {
        PyErr_SetString(PyExc_ValueError, refused);
        return -1;
    }
    size_t need = SENDER_OPS[prm.sender].hdr_len;
    if (prm.data_size < need || prm.ctrl_size < need) {
        PyErr_Format(PyExc_ValueError, "data_size=%lld and ctrl_size=%lld must hold the %s header (%zu bytes)",
                     data_size, ctrl_size, SENDER_OPS[prm.sender].name, need);
        return -1;
    }
    self->sim.prm = prm;
    PyObject *fl = PySequence_Fast(links, "links must be a sequence");
    PyObject *fp = fl ? PySequence_Fast(paths, "paths must be a sequence") : NULL;
    PyObject *ff = fp ? PySequence_Fast(flows, "flows must be a sequence") : NULL;
    int rc = ff ? parse_links(&self->sim, fl) : -1;
    rc = rc ? rc : parse_paths(&self->sim, fp);
    rc = rc ? rc : parse_flows(&self->sim, ff);
    Py_XDECREF(fl);
    Py_XDECREF(fp);
    Py_XDECREF(ff);
    if (rc == 0 && sim_init(&self->sim) < 0) {
        PyErr_NoMemory();
        rc = -1;
    }
    if (rc < 0) {
        sim_free(&self->sim);
        return -1;
    }
    self->ready = 1;
    return 0;
}

static void Simulator_dealloc(SimulatorObject *self)
{
    if (self->ready)
        sim_free(&self->sim);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int simulator_ready(SimulatorObject *self)
{
    if (!simulator_idle(self))
        return 0;
    if (!self->ready)
        PyErr_SetString(PyExc_RuntimeError, "simulator is not initialised");
    return self->ready;
}

static rcp_port *simulator_port(SimulatorObject *self, Py_ssize_t i)
{
    if (!simulator_idle(self))
        return NULL;
    if (!self->ready || i < 0 || i >= self->sim.n_links) {
        PyErr_Format(PyExc_IndexError, "link %zd does not exist", i);
        return NULL;
    }
    return &self->sim.links[i].port;
}

static PyObject *Simulator_run_until(SimulatorObject *self, PyObject *args)
{
    PyObject *t_obj;
    long long t;
    if (!simulator_ready(self) || !PyArg_ParseTuple(args, "O", &t_obj) || int_arg(t_obj, &D[P_T], "", &t) < 0)
        return NULL;
    int rc;
    self->running = 1; /* under the GIL: another thread sees it before it can touch sim */
    Py_BEGIN_ALLOW_THREADS
    rc = sim_run_until(&self->sim, t);
    Py_END_ALLOW_THREADS
    self->running = 0;
    if (rc < 0)
        return PyErr_NoMemory();
    Py_RETURN_NONE;
}

/* The native control paths (control.h): every control-timer expiry of one link at tick_ns, tick_ns +
 * interval, ... up to limit_ns, each after running the simulation to it, as run_scenario's Python loop
 * services it (the protocol's controller, its register writes, its trace row). At 10 Mb/s the Python
 * control path was most of a run's time (issue 26); here a run pays no Python per interval.
 *
 * One expiry of a protocol: the controller state ``ctl``, the link's registers; fills the trace row and
 * returns the next interval in ns, rounded (control.h). */
typedef double (*expiry_fn)(void *ctl, rcp_port *p, xcp_state *x, long long interval, control_row *row);

static double rcp_expire(void *c, rcp_port *p, xcp_state *x, long long interval, control_row *row)
{
    return rcp_expiry(c, p, x, interval, row);
}

static double xcp_expire(void *c, rcp_port *p, xcp_state *x, long long interval, control_row *row)
{
    return xcp_expiry(c, p, x, interval, row);
}

static double rcpac_expire(void *c, rcp_port *p, xcp_state *x, long long interval, control_row *row)
{
    return rcpac_expiry(c, p, x, interval, row);
}

#define MAX_INTERVALS_SPAN_NS (1LL << 40) /* 18 minutes of simulated time per call */

/* The arguments every *_intervals call starts with: the link and the times, through the domain table
 * (t_ns, interval_ns) and within one span (a hostile limit must not make one call run for hours).
 * 0, or -1 with an exception set. */
static int interval_args(SimulatorObject *self, const char *where, Py_ssize_t li, PyObject *tick_o,
                         PyObject *interval_o, PyObject *limit_o, long long *tick, long long *interval,
                         long long *limit)
{
    if (int_arg(tick_o, &D[P_T], where, tick) < 0 || int_arg(interval_o, &D[P_INTERVAL], where, interval) < 0 ||
        int_arg(limit_o, &D[P_T], where, limit) < 0)
        return -1;
    if (*limit - *tick > MAX_INTERVALS_SPAN_NS) {
        PyErr_Format(PyExc_ValueError, "%s limit_ns - tick_ns = %lld ns is over 2**40 (one call runs at most 18 minutes)",
                     where, *limit - *tick);
        return -1;
    }
    return simulator_ready(self) && simulator_port(self, li) ? 0 : -1;
}

/* Runs ``expire`` at every expiry from *tick up to limit; returns the list of trace rows, one per expiry
 * as run_scenario records it: (t_s, rate/C, queue_bytes, n_active, utilization, dropped, avg_rtt_s).
 * Leaves the next expiry in *tick and its interval in *interval. The simulator is "running" throughout
 * (another thread's call is refused while the GIL is released for the events, and between them). */
static PyObject *control_intervals(SimulatorObject *self, Py_ssize_t li, long long *tick, long long *interval,
                                   long long limit, expiry_fn expire, void *ctl)
{
    PyObject *rows = PyList_New(0);
    if (!rows)
        return NULL;
    self->running = 1; /* under the GIL: another thread sees it before it can touch sim */
    while (*tick <= limit) {
        int rc;
        Py_BEGIN_ALLOW_THREADS
        rc = sim_run_until(&self->sim, *tick);
        Py_END_ALLOW_THREADS
        if (rc < 0) {
            PyErr_NoMemory();
            goto fail;
        }
        sim_link *link = &self->sim.links[li];
        uint64_t queue_bytes = link->port.queue_bytes, dropped = link->port.dropped; /* read before the writes */
        control_row r;
        double next_ns = expire(ctl, &link->port, &link->xcp, *interval, &r);
        PyObject *row = Py_BuildValue("(ddKLdKd)", (double)*tick / 1e9, r.rate_over_c, (unsigned long long)queue_bytes,
                                      (long long)self->sim.n_active, r.utilization, (unsigned long long)dropped,
                                      r.avg_rtt_s);
        if (!row || PyList_Append(rows, row) < 0) {
            Py_XDECREF(row);
            goto fail;
        }
        Py_DECREF(row);
        *interval = next_interval(next_ns, D[P_INTERVAL].low); /* the run loop's control_interval_ns */
        *tick += *interval;
    }
    self->running = 0;
    return rows;
fail:
    self->running = 0;
    Py_DECREF(rows);
    return NULL;
}

/* A native control path: its controller's arguments (after link and times, the same in the single-link
 * and the network entry points, checked once here), its state after a call and its expiry. */
typedef union {
    appf_ctl rcp;
    xcp_ctl xcp;
    rcpac_ctl rcpac;
} any_ctl;

typedef struct {
    const char *name;  /* the protocol's registry name */
    const char *entry; /* its single-link entry point */
    Py_ssize_t n_params;
    int (*parse)(PyObject *params, const char *where, any_ctl *c); /* 0, or -1 with an exception set */
    PyObject *(*state)(const any_ctl *c);                          /* a new tuple, or NULL */
    expiry_fn expire;
} native_control;

/* RCP: link_rate, alpha, beta, eta, rate, avg_rtt, mtu, ns2 (App. F's state: bytes/ms, ms). */
static int appf_parse(PyObject *params, const char *where, appf_ctl *c)
{
    PyObject *mtu_o;
    long long mtu;
    char mtu_where[64];
    if (!PyArg_ParseTuple(params, "ddddddOp", &c->link_rate, &c->alpha, &c->beta, &c->eta, &c->rate, &c->avg_rtt,
                          &mtu_o, &c->ns2))
        return -1;
    const real_arg reals[] = {{"link_rate", c->link_rate, 0.0, 0}, {"alpha", c->alpha, -HUGE_VAL, 1},
                              {"beta", c->beta, -HUGE_VAL, 1},      {"eta", c->eta, 0.0, 0},
                              {"rate", c->rate, 0.0, 1},            {"avg_rtt", c->avg_rtt, 0.0, 0}};
    snprintf(mtu_where, sizeof mtu_where, "%s mtu", where);
    if (real_args(where, reals, 6) < 0 || int_arg(mtu_o, &D[P_DATA_SIZE], mtu_where, &mtu) < 0)
        return -1;
    c->mtu = (double)mtu;
    return 0;
}

static int rcp_parse(PyObject *params, const char *where, any_ctl *c)
{
    return appf_parse(params, where, &c->rcp);
}

static PyObject *rcp_ctl_state(const any_ctl *c)
{
    return Py_BuildValue("(dd)", c->rcp.rate, c->rcp.avg_rtt);
}

/* XCP: capacity, alpha, beta, gamma, avg_rtt (bytes/s, s). */
static int xcp_parse(PyObject *params, const char *where, any_ctl *any)
{
    xcp_ctl *c = &any->xcp;
    memset(c, 0, sizeof *c);
    if (!PyArg_ParseTuple(params, "ddddd", &c->capacity, &c->alpha, &c->beta, &c->gamma, &c->avg_rtt))
        return -1;
    const real_arg reals[] = {{"capacity", c->capacity, 0.0, 0}, {"alpha", c->alpha, -HUGE_VAL, 1},
                              {"beta", c->beta, -HUGE_VAL, 1},       {"gamma", c->gamma, -HUGE_VAL, 1},
                              {"avg_rtt", c->avg_rtt, 0.0, 0}};
    return real_args(where, reals, 5);
}

static PyObject *xcp_ctl_state(const any_ctl *c)
{
    return Py_BuildValue("(d)", c->xcp.avg_rtt);
}

/* RCP-AC: RCP's arguments, then gamma_ac, buffer_bytes, deficit (bytes, bytes/s). */
static int rcpac_parse(PyObject *params, const char *where, any_ctl *any)
{
    rcpac_ctl *c = &any->rcpac;
    memset(c, 0, sizeof *c);
    if (!PyTuple_Check(params) || PyTuple_GET_SIZE(params) != 11) {
        PyErr_Format(PyExc_TypeError, "%s takes 11 controller arguments", where);
        return -1;
    }
    PyObject *head = PyTuple_GetSlice(params, 0, 8), *tail = PyTuple_GetSlice(params, 8, 11);
    int rc = head && tail && appf_parse(head, where, &c->rcp) == 0 &&
                     PyArg_ParseTuple(tail, "ddd", &c->gamma_ac, &c->buffer_bytes, &c->deficit)
                 ? 0
                 : -1;
    Py_XDECREF(head);
    Py_XDECREF(tail);
    if (rc < 0)
        return -1;
    const real_arg reals[] = {{"gamma_ac", c->gamma_ac, -HUGE_VAL, 1},
                              {"buffer_bytes", c->buffer_bytes, 0.0, 1},
                              {"deficit", c->deficit, -HUGE_VAL, 1}};
    return real_args(where, reals, 3);
}

static PyObject *rcpac_ctl_state(const any_ctl *c)
{
    return Py_BuildValue("(ddd)", c->rcpac.rcp.rate, c->rcpac.rcp.avg_rtt, c->rcpac.deficit);
}

static const native_control NATIVE[] = {
    {"rcp", "rcp_intervals", 8, rcp_parse, rcp_ctl_state, rcp_expire},
    {"xcp", "xcp_intervals", 5, xcp_parse, xcp_ctl_state, xcp_expire},
    {"rcpac", "rcpac_intervals", 11, rcpac_parse, rcpac_ctl_state, rcpac_expire},
};
enum { NATIVE_RCP, NATIVE_XCP, NATIVE_RCPAC, N_NATIVE };

/* A single-link entry point: (link, tick_ns, interval_ns, limit_ns, *the controller's arguments) ->
 * (rows, next tick_ns, next interval_ns, *the controller's state). */
static PyObject *single_intervals(SimulatorObject *self, PyObject *args, const native_control *nc)
{
    Py_ssize_t li, n = PyTuple_GET_SIZE(args);
    PyObject *tick_o, *interval_o, *limit_o;
    long long tick, interval, limit;
    any_ctl c;
    if (n != 4 + nc->n_params) {
        PyErr_Format(PyExc_TypeError, "%s takes %zd arguments (%zd given)", nc->entry, 4 + nc->n_params, n);
        return NULL;
    }
    PyObject *head = PyTuple_GetSlice(args, 0, 4), *params = PyTuple_GetSlice(args, 4, n);
    int rc = head && params && PyArg_ParseTuple(head, "nOOO", &li, &tick_o, &interval_o, &limit_o) &&
                     nc->parse(params, nc->entry, &c) == 0 &&
                     interval_args(self, nc->entry, li, tick_o, interval_o, limit_o, &tick, &interval, &limit) == 0
                 ? 0
                 : -1;
    Py_XDECREF(head);
    Py_XDECREF(params);
    if (rc < 0)
        return NULL;
    PyObject *rows = control_intervals(self, li, &tick, &interval, limit, nc->expire, &c);
    PyObject *state = rows ? nc->state(&c) : NULL;
    PyObject *out = state ? Py_BuildValue("(NLL)", rows, tick, interval) : NULL;
    if (!out) {
        Py_XDECREF(rows);
        Py_XDECREF(state);
        return NULL;
    }
    PyObject *joined = PySequence_Concat(out, state);
    Py_DECREF(out);
    Py_DECREF(state);
    return joined;
}

/* rcp_intervals(link, tick_ns, interval_ns, limit_ns, link_rate, alpha, beta, eta, rate, avg_rtt, mtu, ns2):
   App. F lines 1-17 as RcpController computes them and RcpProtocol.service's register writes, at every
   expiry up to limit_ns. Returns (rows, next tick_ns, next interval_ns, rate, avg_rtt). Rates bytes/ms,
   times ms. */
static PyObject *Simulator_rcp_intervals(SimulatorObject *self, PyObject *args)
{
    return single_intervals(self, args, &NATIVE[NATIVE_RCP]);
}

/* xcp_intervals(link, tick_ns, interval_ns, limit_ns, capacity, alpha, beta, gamma, avg_rtt): XCP's
   timeout block as XcpController.service computes it and window_service's register writes, at every
   expiry up to limit_ns. Returns (rows, next tick_ns, next interval_ns, avg_rtt); a row's rate is NaN
   (the router has none). Capacity bytes/s, avg_rtt s. */
static PyObject *Simulator_xcp_intervals(SimulatorObject *self, PyObject *args)
{
    return single_intervals(self, args, &NATIVE[NATIVE_XCP]);
}

/* rcpac_intervals(link, tick_ns, interval_ns, limit_ns, link_rate, alpha, beta, eta, rate, avg_rtt, mtu, ns2,
   gamma_ac, buffer_bytes, deficit): RcpAcController.service (App. F's rate controller, then the
   acceleration controller) and window_service's register writes, at every expiry up to limit_ns. Returns
   (rows, next tick_ns, next interval_ns, rate, avg_rtt, deficit). App. F's state in bytes/ms and ms,
   buffer bytes, deficit bytes/s. */
static PyObject *Simulator_rcpac_intervals(SimulatorObject *self, PyObject *args)
{
    return single_intervals(self, args, &NATIVE[NATIVE_RCPAC]);
}

/* One controlled port of a network_intervals call: its link, timer, last RTT sample, controller and trace. */
typedef struct {
    Py_ssize_t li;
    long long tick, interval;
    double sample; /* eq. 5.16's d_T of the last interval with an RTT, s */
    any_ctl c;
    double *rows; /* NETWORK_ROW doubles per expiry */
    Py_ssize_t n_rows, cap_rows;
} network_port;

enum { NETWORK_ROW = 7 }; /* t, R/C, queue, avg_rtt, rtt sample, interval, utilization (network_packet_run.TRACE_FIELDS) */

/* A port of ``ports``: (link, tick_ns, interval_ns, sample_s, controller arguments), checked through the domain
 * table and the protocol's parser. 0, or -1 with an exception set. */
static int network_port_arg(SimulatorObject *self, PyObject *item, const native_control *nc, long long limit,
                            network_port *p)
{
    const char *where = "network_intervals";
    PyObject *tick_o, *interval_o, *params;
    if (!PyTuple_Check(item)) {
        PyErr_SetString(PyExc_TypeError, "network_intervals: a port is a tuple (link, tick_ns, interval_ns, sample_s, "
                                         "controller arguments)");
        return -1;
    }
    if (!PyArg_ParseTuple(item, "nOOdO!", &p->li, &tick_o, &interval_o, &p->sample, &PyTuple_Type, &params))
        return -1;
    const real_arg sample[] = {{"sample_s", p->sample, 0.0, 1}};
    if (real_args(where, sample, 1) < 0 || nc->parse(params, where, &p->c) < 0)
        return -1;
    PyObject *limit_o = PyLong_FromLongLong(limit);
    int rc = limit_o ? interval_args(self, where, p->li, tick_o, interval_o, limit_o, &p->tick, &p->interval, &limit)
                     : -1;
    Py_XDECREF(limit_o);
    return rc;
}

/* Appends one row to a port's trace; 0, or -1 with MemoryError. */
static int network_row(network_port *p, const double *row)
{
    if (p->n_rows == p->cap_rows) {
        Py_ssize_t cap = p->cap_rows ? 2 * p->cap_rows : 64;
        double *grown = PyMem_Realloc(p->rows, (size_t)cap * NETWORK_ROW * sizeof *grown);
        if (!grown) {
            PyErr_NoMemory();
            return -1;
        }
        p->rows = grown;
        p->cap_rows = cap;
    }
    memcpy(p->rows + p->n_rows++ * NETWORK_ROW, row, NETWORK_ROW * sizeof *row);
    return 0;
}

/* Every expiry of every port up to limit_ns, in time order and ports in the given order at a tie, each after
 * running the simulation to it, as network_packet_run's Python loop services them. */
static int network_run(SimulatorObject *self, network_port *ports, Py_ssize_t n, long long limit,
                       const native_control *nc)
{
    for (;;) {
        long long t = LLONG_MAX;
        for (Py_ssize_t k = 0; k < n; k++)
            t = ports[k].tick < t ? ports[k].tick : t;
        if (n == 0 || t > limit)
            return 0;
        int rc;
        Py_BEGIN_ALLOW_THREADS
        rc = sim_run_until(&self->sim, t);
        Py_END_ALLOW_THREADS
        if (rc < 0) {
            PyErr_NoMemory();
            return -1;
        }
        for (Py_ssize_t k = 0; k < n; k++) {
            network_port *p = &ports[k];
            if (p->tick != t)
                continue;
            sim_link *link = &self->sim.links[p->li];
            /* the registers as read before the writes */
            uint64_t queue_bytes = link->port.queue_bytes, rtt_sum = link->port.rtt_sum,
                     rtt_count = link->port.rtt_count;
            control_row r;
            double next_ns = nc->expire(&p->c, &link->port, &link->xcp, p->interval, &r);
            if (rtt_count)
                p->sample = (double)rtt_sum / (double)rtt_count / 1000.0;
            const double row[NETWORK_ROW] = {(double)t / 1e9, r.rate_over_c, (double)queue_bytes, r.avg_rtt_s,
                                             p->sample, (double)p->interval / 1e9, r.utilization};
            if (network_row(p, row) < 0)
                return -1;
            p->interval = next_interval(next_ns, D[P_INTERVAL].low); /* the protocol's control_interval_ns */
            p->tick = t + p->interval;
        }
    }
}

/* network_intervals(protocol, limit_ns, ports): the control paths of several ports of one protocol (a
   network run, cosim/network_packet_run.py) at every expiry up to limit_ns; ports: a list of (link, tick_ns,
   interval_ns, sample_s, controller arguments as the protocol's single-link entry takes them). Returns one
   (rows, next tick_ns, next interval_ns, sample_s, controller state) per port; rows: bytes of float64, seven
   per expiry (t s, R/C, queue bytes, avg_rtt s, RTT sample s, interval s, utilization). */
static PyObject *Simulator_network_intervals(SimulatorObject *self, PyObject *args)
{
    const char *name;
    PyObject *limit_o, *list;
    long long limit;
    if (!PyArg_ParseTuple(args, "sOO!", &name, &limit_o, &PyList_Type, &list) ||
        int_arg(limit_o, &D[P_T], "network_intervals", &limit) < 0 || !simulator_ready(self))
        return NULL;
    const native_control *nc = NULL;
    for (int k = 0; k < N_NATIVE; k++)
        if (strcmp(name, NATIVE[k].name) == 0)
            nc = &NATIVE[k];
    if (!nc)
        return PyErr_Format(PyExc_ValueError, "network_intervals: no native control path for protocol %R",
                            PyTuple_GET_ITEM(args, 0));
    Py_ssize_t n = PyList_GET_SIZE(list);
    if (n > self->sim.n_links)
        return PyErr_Format(PyExc_ValueError, "network_intervals: %zd ports on %d links", n, (int)self->sim.n_links);
    network_port *ports = PyMem_Calloc(n ? (size_t)n : 1, sizeof *ports);
    if (!ports)
        return PyErr_NoMemory();
    PyObject *out = NULL;
    for (Py_ssize_t k = 0; k < n; k++) {
        if (network_port_arg(self, PyList_GET_ITEM(list, k), nc, limit, &ports[k]) < 0)
            goto done;
        for (Py_ssize_t j = 0; j < k; j++)
            if (ports[j].li == ports[k].li) {
                PyErr_Format(PyExc_ValueError, "network_intervals: link %zd is given twice", ports[k].li);
                goto done;
            }
    }
    self->running = 1; /* under the GIL: another thread sees it before it can touch sim */
    int rc = network_run(self, ports, n, limit, nc);
    self->running = 0;
    if (rc < 0 || !(out = PyList_New(n)))
        goto done;
    for (Py_ssize_t k = 0; k < n; k++) {
        network_port *p = &ports[k];
        PyObject *state = nc->state(&p->c);
        PyObject *item = state ? Py_BuildValue("(y#LLdN)", p->rows ? (const char *)p->rows : "",
                                               p->n_rows * NETWORK_ROW * (Py_ssize_t)sizeof(double), p->tick,
                                               p->interval, p->sample, state)
                               : NULL;
        if (!item) {
            Py_CLEAR(out);
            goto done;
        }
        PyList_SET_ITEM(out, k, item);
    }
done:
    for (Py_ssize_t k = 0; k < n; k++)
        PyMem_Free(ports[k].rows);
    PyMem_Free(ports);
    return out;
}

static rcp_port *simulator_lookup(PyObject *self, Py_ssize_t i)
{
    return simulator_port((SimulatorObject *)self, i);
}

static PyObject *Simulator_registers(PyObject *self, PyObject *args)
{
    return port_registers(self, args, simulator_lookup);
}

static PyObject *Simulator_set_registers(PyObject *self, PyObject *args, PyObject *kwargs)
{
    return port_set_registers(self, args, kwargs, simulator_lookup);
}

static xcp_state *simulator_xcp_lookup(PyObject *self, Py_ssize_t i)
{
    return simulator_lookup(self, i) ? &((SimulatorObject *)self)->sim.links[i].xcp : NULL;
}

static PyObject *Simulator_xcp_registers(PyObject *self, PyObject *args)
{
    return port_xcp_registers(self, args, simulator_xcp_lookup);
}

static PyObject *Simulator_set_xcp_registers(PyObject *self, PyObject *args, PyObject *kwargs)
{
    return port_set_xcp_registers(self, args, kwargs, simulator_xcp_lookup);
}

static PyObject *Simulator_counters(SimulatorObject *self, PyObject *Py_UNUSED(ignored))
{
    if (!simulator_ready(self))
        return NULL;
    sim_t *s = &self->sim;
    return Py_BuildValue("{sLsLsLsLsLsLsLsL}", "now_ns", (long long)s->now, "events", (long long)s->events, "sent",
                         (long long)s->sent, "delivered", (long long)s->delivered, "dropped", (long long)s->dropped,
                         "in_flight", (long long)sim_in_flight(s), "n_active", (long long)s->n_active, "flows_done",
                         (long long)s->flows_done);
}

static PyObject *Simulator_n_active(SimulatorObject *self, PyObject *Py_UNUSED(ignored))
{
    if (!simulator_idle(self))
        return NULL;
    return PyLong_FromLongLong(self->ready ? (long long)self->sim.n_active : 0);
}

static PyObject *Simulator_flow_stats(SimulatorObject *self, PyObject *Py_UNUSED(ignored))
{
    if (!simulator_ready(self))
        return NULL;
    sim_t *s = &self->sim;
    PyObject *delivered = PyList_New(s->n_flows), *fct = PyList_New(s->n_flows);
    if (!delivered || !fct)
        goto fail;
    for (int32_t i = 0; i < s->n_flows; i++) {
        PyObject *d = PyLong_FromLongLong(s->flows[i].delivered_bytes);
        PyObject *c = s->flows[i].state == FS_DONE ? PyLong_FromLongLong(s->flows[i].fct_ns) : Py_NewRef(Py_None);
        if (!d || !c) {
            Py_XDECREF(d);
            Py_XDECREF(c);
            goto fail;
        }
        PyList_SET_ITEM(delivered, i, d);
        PyList_SET_ITEM(fct, i, c);
    }
    return Py_BuildValue("(NN)", delivered, fct);
fail:
    Py_XDECREF(delivered);
    Py_XDECREF(fct);
    return NULL;
}

static PyMethodDef Simulator_methods[] = {
    {"run_until", (PyCFunction)Simulator_run_until, METH_VARARGS,
     "run_until(t_ns): process every event before t_ns (integer nanoseconds), then stop."},
    {"registers", (PyCFunction)Simulator_registers, METH_VARARGS, "registers(link) -> dict of the link port's registers."},
    {"rcp_intervals", (PyCFunction)Simulator_rcp_intervals, METH_VARARGS,
     "rcp_intervals(link, tick_ns, interval_ns, limit_ns, link_rate, alpha, beta, eta, rate, avg_rtt, mtu, ns2)"
     " -> (trace rows, tick_ns, interval_ns, rate, avg_rtt): RCP's control path at every expiry up to limit_ns."},
    {"xcp_intervals", (PyCFunction)Simulator_xcp_intervals, METH_VARARGS,
     "xcp_intervals(link, tick_ns, interval_ns, limit_ns, capacity, alpha, beta, gamma, avg_rtt)"
     " -> (trace rows, tick_ns, interval_ns, avg_rtt): XCP's control path at every expiry up to limit_ns."},
    {"rcpac_intervals", (PyCFunction)Simulator_rcpac_intervals, METH_VARARGS,
     "rcpac_intervals(link, tick_ns, interval_ns, limit_ns, link_rate, alpha, beta, eta, rate, avg_rtt, mtu, ns2,"
     " gamma_ac, buffer_bytes, deficit) -> (trace rows, tick_ns, interval_ns, rate, avg_rtt, deficit):"
     " RCP-AC's control path at every expiry up to limit_ns."},
    {"network_intervals", (PyCFunction)Simulator_network_intervals, METH_VARARGS,
     "network_intervals(protocol, limit_ns, ports) -> [(rows, tick_ns, interval_ns, sample_s, state)] per port:"
     " the control paths of a network's ports at every expiry up to limit_ns; a port is (link, tick_ns,"
     " interval_ns, sample_s, the protocol's controller arguments)."},
    {"set_registers", (PyCFunction)(void (*)(void))Simulator_set_registers, METH_VARARGS | METH_KEYWORDS,
     "set_registers(link, **values): write the link port's registers by name."},
    {"xcp_registers", (PyCFunction)Simulator_xcp_registers, METH_VARARGS,
     "xcp_registers(link) -> dict of the link's real-valued XCP / RCP-AC registers."},
    {"set_xcp_registers", (PyCFunction)(void (*)(void))Simulator_set_xcp_registers, METH_VARARGS | METH_KEYWORDS,
     "set_xcp_registers(link, **values): write them by name."},
    {"counters", (PyCFunction)Simulator_counters, METH_NOARGS,
     "counters() -> dict: now_ns, events, sent, delivered, dropped, in_flight, n_active, flows_done."},
    {"n_active", (PyCFunction)Simulator_n_active, METH_NOARGS,
     "n_active() -> int: flows started and not yet stopped or finished (cheaper than counters())."},
    {"flow_stats", (PyCFunction)Simulator_flow_stats, METH_NOARGS,
     "flow_stats() -> (delivered_bytes per flow, completion time in ns or None per flow)."},
    {NULL},
};

static PyTypeObject SimulatorType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "rcpstab.packet._datapath.Simulator",
    .tp_doc = "Discrete-event packet simulator; see rcpstab.packet.simulator.sim_py for its twin.",
    .tp_basicsize = sizeof(SimulatorObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Simulator_init,
    .tp_dealloc = (destructor)Simulator_dealloc,
    .tp_methods = Simulator_methods,
};

/* -------------------------------------------------------------------- module */

static PyObject *receiver_echo(PyObject *Py_UNUSED(module), PyObject *args)
{
    Py_buffer buf;
    if (!PyArg_ParseTuple(args, "y*", &buf))
        return NULL;
    if (buf.len < RCP_HEADER_LEN) {
        PyErr_Format(PyExc_ValueError, "packet of %zd bytes has no RCP header", buf.len);
        PyBuffer_Release(&buf);
        return NULL;
    }
    PyObject *out = PyBytes_FromStringAndSize(NULL, RCP_HEADER_LEN);
    if (out)
        rcp_receiver_echo((uint8_t *)PyBytes_AS_STRING(out), buf.buf);
    PyBuffer_Release(&buf);
    return out;
}

static PyObject *xcp_receiver_echo_py(PyObject *Py_UNUSED(module), PyObject *args)
{
    Py_buffer buf;
    if (!PyArg_ParseTuple(args, "y*", &buf))
        return NULL;
    if (buf.len < XCP_HEADER_LEN) {
        PyErr_Format(PyExc_ValueError, "packet of %zd bytes has no XCP header", buf.len);
        PyBuffer_Release(&buf);
        return NULL;
    }
    PyObject *out = PyBytes_FromStringAndSize(NULL, XCP_HEADER_LEN);
    if (out)
        xcp_receiver_echo((uint8_t *)PyBytes_AS_STRING(out), buf.buf);
    PyBuffer_Release(&buf);
    return out;
}

static PyMethodDef module_methods[] = {
    {"receiver_echo", receiver_echo, METH_VARARGS,
     "receiver_echo(data_packet) -> bytes: the 12-byte header of the receiver's pure ACK."},
    {"xcp_receiver_echo", xcp_receiver_echo_py, METH_VARARGS,
     "xcp_receiver_echo(data_packet) -> bytes: the 20-byte XCP header of the receiver's ACK."},
    {NULL},
};

static struct PyModuleDef datapath_module = {
    PyModuleDef_HEAD_INIT, "_datapath", "RCP router data path and packet simulator in C.", -1, module_methods,
};

/* Adds a tuple of the n strings ``names`` to module m as ``attr``; 0 on success, -1 with an exception set. */
static int add_names(PyObject *m, const char *attr, const char *const *names, int n)
{
    PyObject *tuple = PyTuple_New(n);
    for (int k = 0; tuple && k < n; k++) {
        PyObject *name = PyUnicode_FromString(names[k]);
        if (!name) {
            Py_CLEAR(tuple);
            break;
        }
        PyTuple_SET_ITEM(tuple, k, name);
    }
    int rc = tuple ? PyModule_AddObjectRef(m, attr, tuple) : -1;
    Py_XDECREF(tuple);
    return rc;
}

PyMODINIT_FUNC PyInit__datapath(void)
{
    if (load_int_domains(D, N_INTEGERS, "the packet simulator") < 0)
        return NULL;
    if (PyType_Ready(&DatapathType) < 0 || PyType_Ready(&XcpDatapathType) < 0 || PyType_Ready(&SimulatorType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&datapath_module);
    if (!m)
        return NULL;
    if (PyModule_AddObjectRef(m, "Datapath", (PyObject *)&DatapathType) < 0 ||
        PyModule_AddObjectRef(m, "XcpDatapath", (PyObject *)&XcpDatapathType) < 0 ||
        PyModule_AddObjectRef(m, "Simulator", (PyObject *)&SimulatorType) < 0 ||
        PyModule_AddIntConstant(m, "MAX_ALLOWABLE_RTT_MS", MAX_ALLOWABLE_RTT_MS) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    /* The data paths a link can run by protocol code, and the sender kinds a simulator's hosts can
     * run by sender code: the names of the PORT_OPS and SENDER_OPS tables. */
    const char *datapaths[N_PORT_OPS], *senders[N_SENDERS];
    for (int k = 0; k < N_PORT_OPS; k++)
        datapaths[k] = PORT_OPS[k].name;
    for (int k = 0; k < N_SENDERS; k++)
        senders[k] = SENDER_OPS[k].name;
    if (add_names(m, "DATAPATHS", datapaths, N_PORT_OPS) < 0 || add_names(m, "SENDERS", senders, N_SENDERS) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
