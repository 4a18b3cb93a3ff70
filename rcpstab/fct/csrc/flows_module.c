/* Python bindings: rcpstab.fct._flows.FlowSimulator, the flow-level simulator of
 * flows.c (one RCP bottleneck, flows arriving and leaving). flows_py.PyFlowSimulator is its
 * twin with the same methods. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "flows.h"

typedef struct {
    PyObject_HEAD
    fl_sim sim;
    int ready;
} FlowSimulatorObject;

static int parse_link(PyObject *t, fl_link *l, int rcp, const char *name)
{
    long long cap, delay;
    unsigned long long buffer;
    if (!PyArg_ParseTuple(t, "LLK", &cap, &delay, &buffer))
        return -1;
    if (cap <= 0 || delay < 0) {
        PyErr_Format(PyExc_ValueError, "%s link: capacity %lld b/s and delay %lld ns must be > 0 and >= 0", name, cap,
                     delay);
        return -1;
    }
    l->capacity_bps = cap;
    l->delay_ns = delay;
    l->rcp = rcp;
    port_init(&l->port);
    l->port.buffer_bytes = buffer;
    return 0;
}

static int FlowSimulator_init(FlowSimulatorObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"forward", "reverse", "data_size", "ctrl_size", "window_denominator", "rwnd_pkts",
                             "request", "rate_refresh", NULL};
    PyObject *fwd, *rev;
    fl_params prm = {.rate_refresh = 1};
    long long rwnd;
    if (self->ready)
        fl_free(&self->sim);
    self->ready = 0;
    memset(&self->sim, 0, sizeof self->sim);
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOIIILI|p", kwlist, &fwd, &rev, &prm.data_size, &prm.ctrl_size,
                                     &prm.window_denominator, &rwnd, &prm.request, &prm.rate_refresh))
        return -1;
    if (prm.data_size < RCP_HEADER_LEN || prm.ctrl_size < RCP_HEADER_LEN || prm.window_denominator < 1 || rwnd < 1) {
        PyErr_SetString(PyExc_ValueError, "packet sizes must hold an RCP header; window terms must be >= 1");
        return -1;
    }
    prm.rwnd_pkts = rwnd;
    self->sim.prm = prm;
    if (parse_link(fwd, &self->sim.links[FL_FWD], 1, "forward") < 0 ||
        parse_link(rev, &self->sim.links[FL_REV], 0, "reverse") < 0)
        return -1;
    fl_init(&self->sim);
    self->ready = 1;
    return 0;
}

static void FlowSimulator_dealloc(FlowSimulatorObject *self)
{
    if (self->ready)
        fl_free(&self->sim);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int ready(FlowSimulatorObject *self)
{
    if (!self->ready)
        PyErr_SetString(PyExc_RuntimeError, "simulator is not initialised");
    return self->ready;
}

static PyObject *FlowSimulator_add_arrivals(FlowSimulatorObject *self, PyObject *args)
{
    Py_buffer t, z;
    if (!ready(self) || !PyArg_ParseTuple(args, "y*y*", &t, &z))
        return NULL;
    PyObject *out = NULL;
    if (t.len != z.len || t.len % (Py_ssize_t)sizeof(int64_t)) {
        PyErr_SetString(PyExc_ValueError, "start times and sizes must be int64 buffers of equal length");
    } else {
        int rc = fl_add_arrivals(&self->sim, t.buf, z.buf, t.len / (Py_ssize_t)sizeof(int64_t));
        if (rc == -1)
            PyErr_NoMemory();
        else if (rc == -2)
            PyErr_SetString(PyExc_ValueError, "arrivals must be in time order, not before the clock, sizes >= 1");
        else
            out = Py_NewRef(Py_None);
    }
    PyBuffer_Release(&t);
    PyBuffer_Release(&z);
    return out;
}

static PyObject *FlowSimulator_run_until(FlowSimulatorObject *self, PyObject *args)
{
    long long t;
    if (!ready(self) || !PyArg_ParseTuple(args, "L", &t))
        return NULL;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = fl_run_until(&self->sim, t);
    Py_END_ALLOW_THREADS
    if (rc < 0)
        return PyErr_NoMemory();
    Py_RETURN_NONE;
}

/* The forward (RCP) port's registers, as the App. F control path reads them. */
static PyObject *FlowSimulator_registers(FlowSimulatorObject *self, PyObject *Py_UNUSED(ignored))
{
    if (!ready(self))
        return NULL;
    rcp_port *p = &self->sim.links[FL_FWD].port;
    return Py_BuildValue("{sKsKsKsKsKsKsKsI}", "input_bytes", p->input_bytes, "rtt_sum", p->rtt_sum, "rtt_count",
                         p->rtt_count, "queue_bytes", p->queue_bytes, "buffer_bytes", p->buffer_bytes, "dropped",
                         p->dropped, "max_rtt", p->max_rtt, "rate", p->rate);
}

static PyObject *FlowSimulator_set_registers(FlowSimulatorObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"rate", "input_bytes", "rtt_sum", "rtt_count", NULL};
    rcp_port *p = &self->sim.links[FL_FWD].port;
    if (!ready(self))
        return NULL;
    unsigned long long rate = p->rate, input = p->input_bytes, rsum = p->rtt_sum, rcount = p->rtt_count;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|$KKKK", kwlist, &rate, &input, &rsum, &rcount))
        return NULL;
    if (rate > 0xFFFFFFFFull) {
        PyErr_Format(PyExc_ValueError, "register rate=%llu does not fit in 32 bits", rate);
        return NULL;
    }
    p->rate = (uint32_t)rate;
    p->input_bytes = input;
    p->rtt_sum = rsum;
    p->rtt_count = rcount;
    Py_RETURN_NONE;
}

/* Finished flows since the last call, as packed int64 (id, size_pkts, start_ns, fct_ns, drops). */
static PyObject *FlowSimulator_take_records(FlowSimulatorObject *self, PyObject *Py_UNUSED(ignored))
{
    if (!ready(self))
        return NULL;
    PyObject *out = PyBytes_FromStringAndSize((const char *)self->sim.rec,
                                              (Py_ssize_t)(self->sim.rec_len * (int64_t)sizeof(fl_record)));
    if (out)
        self->sim.rec_len = 0;
    return out;
}

static PyObject *FlowSimulator_counters(FlowSimulatorObject *self, PyObject *Py_UNUSED(ignored))
{
    if (!ready(self))
        return NULL;
    fl_sim *s = &self->sim;
    fl_link *f = &s->links[FL_FWD];
    return Py_BuildValue("{sLsLsLsLsLsLsLsLsLsLsLsLsLsL}", "now_ns", (long long)s->now, "events", (long long)s->events,
                         "sent", (long long)s->sent, "delivered", (long long)s->delivered, "dropped",
                         (long long)s->dropped, "in_flight", (long long)fl_in_flight(s), "n_active",
                         (long long)s->n_active, "slots_used", (long long)s->slots_used, "started",
                         (long long)s->started, "completed", (long long)s->completed, "pending_arrivals",
                         (long long)(s->arr_len - s->arr_head), "fwd_arrivals", (long long)f->arrivals,
                         "fwd_dropped", (long long)f->port.dropped, "fwd_tx_bytes", (long long)f->tx_bytes);
}

static PyObject *FlowSimulator_n_active(FlowSimulatorObject *self, PyObject *Py_UNUSED(ignored))
{
    return PyLong_FromLongLong(self->ready ? (long long)self->sim.n_active : 0);
}

static PyMethodDef FlowSimulator_methods[] = {
    {"add_arrivals", (PyCFunction)FlowSimulator_add_arrivals, METH_VARARGS,
     "add_arrivals(start_ns, size_pkts): int64 buffers of flow arrivals in time order."},
    {"run_until", (PyCFunction)FlowSimulator_run_until, METH_VARARGS,
     "run_until(t_ns): process every event before t_ns, then stop."},
    {"registers", (PyCFunction)FlowSimulator_registers, METH_NOARGS,
     "registers() -> dict of the bottleneck port's registers."},
    {"set_registers", (PyCFunction)(void (*)(void))FlowSimulator_set_registers, METH_VARARGS | METH_KEYWORDS,
     "set_registers(*, rate, input_bytes, rtt_sum, rtt_count): write the bottleneck port's registers."},
    {"take_records", (PyCFunction)FlowSimulator_take_records, METH_NOARGS,
     "take_records() -> bytes of int64 (id, size_pkts, start_ns, fct_ns, drops) per finished flow."},
    {"counters", (PyCFunction)FlowSimulator_counters, METH_NOARGS, "counters() -> dict of run counters."},
    {"n_active", (PyCFunction)FlowSimulator_n_active, METH_NOARGS,
     "n_active() -> flows whose SYN is sent and last data packet not yet received."},
    {NULL},
};

static PyTypeObject FlowSimulatorType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "rcpstab.fct._flows.FlowSimulator",
    .tp_doc = "Flow-level traffic on one RCP bottleneck; see rcpstab.fct.flows_py for its twin.",
    .tp_basicsize = sizeof(FlowSimulatorObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)FlowSimulator_init,
    .tp_dealloc = (destructor)FlowSimulator_dealloc,
    .tp_methods = FlowSimulator_methods,
};

static struct PyModuleDef flows_module = {
    PyModuleDef_HEAD_INIT, "_flows", "Flow-level traffic on one RCP bottleneck, in C.", -1, NULL,
};

PyMODINIT_FUNC PyInit__flows(void)
{
    if (PyType_Ready(&FlowSimulatorType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&flows_module);
    if (!m)
        return NULL;
    if (PyModule_AddObjectRef(m, "FlowSimulator", (PyObject *)&FlowSimulatorType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
