/* Python bindings: rcpstab.fct._flows.FlowSimulator, the flow-level simulator of
 * flows.c (one RCP bottleneck, flows arriving and leaving). flows_py.PyFlowSimulator is its
 * twin with the same methods. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "control.h"
#include "domains.h"
#include "flows.h"

#include <limits.h>

/* The integer arguments' ranges, read from rcpstab.runtime.validation.SIMULATOR_INTEGERS when the
 * module is imported (domains.h): the Python twin checks against the same table, so both refuse the
 * same values. floor..ceiling is what flows.c relies on: headers fit, no int64 overflow (flows.h),
 * 32-bit registers. */
enum {
    I_CAPACITY, I_DELAY, I_BUFFER, I_DATA_SIZE, I_CTRL_SIZE, I_WINDOW_DENOMINATOR, I_RWND, I_REQUEST, I_START, I_SIZE,
    I_T, I_RATE, I_INPUT_BYTES, I_RTT_SUM, I_RTT_COUNT, I_INTERVAL, N_INTEGERS
};
static int_domain D[N_INTEGERS] = {
    [I_CAPACITY] = {"capacity_bps", 1, LLONG_MAX},
    [I_DELAY] = {"delay_ns", 0, 1LL << 40},
    [I_BUFFER] = {"buffer_bytes", 0, LLONG_MAX},
    [I_DATA_SIZE] = {"data_size", RCP_HEADER_LEN, 1LL << 24},
    [I_CTRL_SIZE] = {"ctrl_size", RCP_HEADER_LEN, 1LL << 24},
    [I_WINDOW_DENOMINATOR] = {"window_denominator", 1, 1LL << 24},
    [I_RWND] = {"rwnd_pkts", 1, LLONG_MAX},
    [I_REQUEST] = {"request", 0, 0xFFFFFFFFLL},
    [I_START] = {"start_ns", 0, 1LL << 60},
    [I_SIZE] = {"size_pkts", 1, 1LL << 40},
    [I_T] = {"t_ns", LLONG_MIN, 1LL << 60},
    [I_RATE] = {"rate", 0, 0xFFFFFFFFLL},
    [I_INPUT_BYTES] = {"input_bytes", 0, LLONG_MAX},
    [I_RTT_SUM] = {"rtt_sum", 0, LLONG_MAX},
    [I_RTT_COUNT] = {"rtt_count", 0, LLONG_MAX},
    [I_INTERVAL] = {"interval_ns", 1, 1LL << 60},
};

typedef struct {
    PyObject_HEAD
    fl_sim sim;
    int ready;
    int running; /* run_until has released the GIL: no other call may touch sim (set and read under the GIL) */
} FlowSimulatorObject;

static int idle(FlowSimulatorObject *self)
{
    if (self->running)
        PyErr_SetString(PyExc_RuntimeError, "FlowSimulator is running (run_until) in another thread; one "
                                            "FlowSimulator serves one thread at a time");
    return !self->running;
}

/* (capacity_bps, delay_ns, buffer_bytes): a tuple or a list of three integers. */
static int parse_link(PyObject *t, fl_link *l, int rcp, const char *name)
{
    if ((!PyTuple_Check(t) && !PyList_Check(t)) || PySequence_Size(t) != 3) {
        PyErr_Format(PyExc_TypeError, "%s link must be a tuple (capacity_bps, delay_ns, buffer_bytes)", name);
        return -1;
    }
    PyObject *items = PySequence_Tuple(t);
    if (!items)
        return -1;
    long long cap, delay, buffer;
    int rc = int_arg(PyTuple_GET_ITEM(items, 0), &D[I_CAPACITY], name, &cap) < 0 ||
                     int_arg(PyTuple_GET_ITEM(items, 1), &D[I_DELAY], name, &delay) < 0 ||
                     int_arg(PyTuple_GET_ITEM(items, 2), &D[I_BUFFER], name, &buffer) < 0
                 ? -1
                 : 0;
    Py_DECREF(items);
    if (rc < 0)
        return -1;
    l->capacity_bps = cap;
    l->delay_ns = delay;
    l->rcp = rcp;
    port_init(&l->port);
    l->port.buffer_bytes = (uint64_t)buffer;
    return 0;
}

static int FlowSimulator_init(FlowSimulatorObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"forward", "reverse", "data_size", "ctrl_size", "window_denominator", "rwnd_pkts",
                             "request", "rate_refresh", NULL};
    PyObject *fwd, *rev, *data_obj, *ctrl_obj, *denominator_obj, *rwnd_obj, *request_obj;
    long long data_size, ctrl_size, denominator, rwnd, request;
    int rate_refresh = 1;
    if (!idle(self))
        return -1;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOOOOOO|p", kwlist, &fwd, &rev, &data_obj, &ctrl_obj,
                                     &denominator_obj, &rwnd_obj, &request_obj, &rate_refresh))
        return -1;
    if (int_arg(data_obj, &D[I_DATA_SIZE], "", &data_size) < 0 || int_arg(ctrl_obj, &D[I_CTRL_SIZE], "", &ctrl_size) < 0 ||
        int_arg(denominator_obj, &D[I_WINDOW_DENOMINATOR], "", &denominator) < 0 ||
        int_arg(rwnd_obj, &D[I_RWND], "", &rwnd) < 0 || int_arg(request_obj, &D[I_REQUEST], "", &request) < 0)
        return -1;
    fl_link links[2];
    memset(links, 0, sizeof links);
    if (parse_link(fwd, &links[FL_FWD], 1, "forward") < 0 || parse_link(rev, &links[FL_REV], 0, "reverse") < 0)
        return -1;
    /* Only now, with every argument good, is the old state replaced. */
    if (self->ready)
        fl_free(&self->sim);
    self->ready = 0;
    memset(&self->sim, 0, sizeof self->sim);
    self->sim.prm = (fl_params){.data_size = (uint32_t)data_size, .ctrl_size = (uint32_t)ctrl_size,
                                .window_denominator = (uint32_t)denominator, .rwnd_pkts = rwnd,
                                .request = (uint32_t)request, .rate_refresh = rate_refresh};
    self->sim.links[FL_FWD] = links[FL_FWD];
    self->sim.links[FL_REV] = links[FL_REV];
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
    if (!idle(self))
        return 0;
    if (!self->ready)
        PyErr_SetString(PyExc_RuntimeError, "simulator is not initialised");
    return self->ready;
}

/* Arrivals, checked one by one in the twin's order: start and size in range, times non-decreasing
 * and not before the clock. The buffers may be unaligned (a memoryview slice): values are copied. */
static int check_arrivals(const fl_sim *s, const char *t, const char *z, Py_ssize_t n, int64_t *t_out, int64_t *z_out)
{
    int64_t last = s->arr_len > 0 && s->arr_t[s->arr_len - 1] > s->now ? s->arr_t[s->arr_len - 1] : s->now;
    for (Py_ssize_t k = 0; k < n; k++) {
        int64_t tk, zk;
        memcpy(&tk, t + k * (Py_ssize_t)sizeof tk, sizeof tk);
        memcpy(&zk, z + k * (Py_ssize_t)sizeof zk, sizeof zk);
        if (tk < D[I_START].low || tk > D[I_START].high || zk < D[I_SIZE].low || zk > D[I_SIZE].high) {
            PyErr_Format(PyExc_ValueError, "arrival %zd: start_ns=%lld and size_pkts=%lld must be in %lld..%lld and "
                         "%lld..%lld", k, (long long)tk, (long long)zk, D[I_START].low, D[I_START].high, D[I_SIZE].low,
                         D[I_SIZE].high);
            return -1;
        }
        if (tk < last) {
            PyErr_Format(PyExc_ValueError, "arrival %zd: start_ns=%lld is before the clock or the previous "
                         "arrival (%lld); arrivals must be in time order", k, (long long)tk, (long long)last);
            return -1;
        }
        last = tk;
        t_out[k] = tk;
        z_out[k] = zk;
    }
    return 0;
}

static PyObject *FlowSimulator_add_arrivals(FlowSimulatorObject *self, PyObject *args)
{
    Py_buffer t, z;
    if (!ready(self) || !PyArg_ParseTuple(args, "y*y*", &t, &z))
        return NULL;
    PyObject *out = NULL;
    int64_t *copy = NULL;
    Py_ssize_t n = t.len / (Py_ssize_t)sizeof(int64_t);
    if (t.len != z.len || t.len % (Py_ssize_t)sizeof(int64_t)) {
        PyErr_SetString(PyExc_ValueError, "start times and sizes must be int64 buffers of equal length");
    } else if (n == 0) {
        out = Py_NewRef(Py_None);
    } else if (!(copy = PyMem_Malloc(2 * (size_t)n * sizeof *copy))) {
        PyErr_NoMemory();
    } else if (check_arrivals(&self->sim, t.buf, z.buf, n, copy, copy + n) == 0) {
        int rc = fl_add_arrivals(&self->sim, copy, copy + n, n);
        if (rc == -1)
            PyErr_NoMemory();
        else if (rc == -2)
            PyErr_SetString(PyExc_ValueError, "arrivals must be in time order, not before the clock, sizes >= 1");
        else
            out = Py_NewRef(Py_None);
    }
    PyMem_Free(copy);
    PyBuffer_Release(&t);
    PyBuffer_Release(&z);
    return out;
}

static PyObject *FlowSimulator_run_until(FlowSimulatorObject *self, PyObject *args)
{
    PyObject *t_obj;
    long long t;
    if (!ready(self) || !PyArg_ParseTuple(args, "O", &t_obj) || int_arg(t_obj, &D[I_T], "", &t) < 0)
        return NULL;
    int rc;
    self->running = 1; /* under the GIL: another thread sees it before it can touch sim */
    Py_BEGIN_ALLOW_THREADS
    rc = fl_run_until(&self->sim, t);
    Py_END_ALLOW_THREADS
    self->running = 0;
    if (rc < 0)
        return PyErr_NoMemory();
    Py_RETURN_NONE;
}

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
    static const int which[] = {I_RATE, I_INPUT_BYTES, I_RTT_SUM, I_RTT_COUNT};
    PyObject *given[4] = {NULL, NULL, NULL, NULL};
    long long value[4];
    if (!ready(self) ||
        !PyArg_ParseTupleAndKeywords(args, kwds, "|$OOOO", kwlist, &given[0], &given[1], &given[2], &given[3]))
        return NULL;
    for (int i = 0; i < 4; i++) /* all checked before any is written; None: left as it is */
        if (given[i] && given[i] != Py_None && int_arg(given[i], &D[which[i]], "register", &value[i]) < 0)
            return NULL;
    rcp_port *p = &self->sim.links[FL_FWD].port;
    if (given[0] && given[0] != Py_None)
        p->rate = (uint32_t)value[0];
    if (given[1] && given[1] != Py_None)
        p->input_bytes = (uint64_t)value[1];
    if (given[2] && given[2] != Py_None)
        p->rtt_sum = (uint64_t)value[2];
    if (given[3] && given[3] != Py_None)
        p->rtt_count = (uint64_t)value[3];
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

static PyObject *FlowSimulator_census(FlowSimulatorObject *self, PyObject *Py_UNUSED(ignored))
{
    if (!ready(self))
        return NULL;
    int64_t c[4];
    fl_census(&self->sim, c);
    return Py_BuildValue("{sLsLsLsL}", "syn", (long long)c[0], "sending", (long long)c[1], "window_full",
                         (long long)c[2], "rate_sum", (long long)c[3]);
}

static PyObject *FlowSimulator_n_active(FlowSimulatorObject *self, PyObject *Py_UNUSED(ignored))
{
    if (!idle(self))
        return NULL;
    return PyLong_FromLongLong(self->ready ? (long long)self->sim.n_active : 0);
}

enum { FLOW_SAMPLE = 13 }; /* flow_run.py's samples: interval ns, n_active, tx bytes, dropped, offered, queue,
                            R/C, input bytes, avg_rtt ms, and the senders' census (fl_census: syn, sending,
                            window full, stamped rates' sum) */
#define MAX_INTERVALS_SPAN_NS (1LL << 40) /* 18 minutes of simulated time per call */

/* Every App. F expiry (control.h's rcp_expiry, RcpController.service to the bit) after t_ns, each after running
 * the simulation to it, while the next one is at most limit_ns; with ``stop``, also until done_flows flows have
 * completed or an expiry at or after done_ns. Appends a sample per expiry to *buf; returns 1 when a stop rule
 * ended it, 0 when the limit did, -1 on out-of-memory. */
static int flow_intervals(FlowSimulatorObject *self, long long *t, long long *interval, long long limit, int stop,
                          long long done_flows, long long done_ns, appf_ctl *c, int measured, double **buf,
                          Py_ssize_t *n, Py_ssize_t *cap)
{
    fl_sim *s = &self->sim;
    rcp_port *p = &s->links[FL_FWD].port;
    while (*t + *interval <= limit) {
        long long t_next = *t + *interval;
        int rc;
        Py_BEGIN_ALLOW_THREADS
        rc = fl_run_until(s, t_next);
        Py_END_ALLOW_THREADS
        if (rc < 0)
            return -1;
        if (!measured) /* router_rtt="propagation": no RTT samples, avg_rtt stays at its prior */
            p->rtt_sum = p->rtt_count = 0;
        uint64_t queue_bytes = p->queue_bytes, input_bytes = p->input_bytes; /* read before the writes */
        control_row row;
        double next_ns = rcp_expiry(c, p, NULL, *interval, &row);
        if (*n == *cap) {
            Py_ssize_t grown_cap = *cap ? 2 * *cap : 256;
            double *grown = PyMem_Realloc(*buf, (size_t)grown_cap * FLOW_SAMPLE * sizeof *grown);
            if (!grown)
                return -1;
            *buf = grown;
            *cap = grown_cap;
        }
        fl_link *f = &s->links[FL_FWD];
        int64_t k[4];
        fl_census(s, k); /* one pass over the flow slots per expiry: small beside the interval's packet events */
        const double sample[FLOW_SAMPLE] = {(double)*interval,     (double)s->n_active,   (double)f->tx_bytes,
                                            (double)f->port.dropped, (double)f->arrivals, (double)queue_bytes,
                                            row.rate_over_c,       (double)input_bytes,   c->avg_rtt,
                                            (double)k[0],          (double)k[1],          (double)k[2],
                                            (double)k[3]};
        memcpy(*buf + (*n)++ * FLOW_SAMPLE, sample, sizeof sample);
        *t = t_next;
        *interval = next_interval(next_ns, D[I_INTERVAL].low); /* run_flows' control_interval_ns */
        if (stop && (s->completed == done_flows || *t >= done_ns))
            return 1;
    }
    return 0;
}

/* rcp_intervals(t_ns, interval_ns, limit_ns, stop, done_flows, done_ns, link_rate, alpha, beta, eta, rate, avg_rtt,
   mtu, measured_rtt): the App. F control path of run_flows at every expiry up to limit_ns (and its stop rule).
   Returns (samples: bytes of float64, thirteen per expiry; t_ns, interval_ns, rate, avg_rtt, stopped). */
static PyObject *FlowSimulator_rcp_intervals(FlowSimulatorObject *self, PyObject *args)
{
    const char *where = "rcp_intervals";
    PyObject *t_o, *interval_o, *limit_o, *flows_o, *done_o, *mtu_o;
    long long t, interval, limit, done_flows, done_ns, mtu;
    int stop, measured;
    appf_ctl c = {0};
    if (!PyArg_ParseTuple(args, "OOOpOOddddddOp", &t_o, &interval_o, &limit_o, &stop, &flows_o, &done_o, &c.link_rate,
                          &c.alpha, &c.beta, &c.eta, &c.rate, &c.avg_rtt, &mtu_o, &measured))
        return NULL;
    const real_arg reals[] = {{"link_rate", c.link_rate, 0.0, 0}, {"alpha", c.alpha, -HUGE_VAL, 1},
                              {"beta", c.beta, -HUGE_VAL, 1},      {"eta", c.eta, 0.0, 0},
                              {"rate", c.rate, 0.0, 1},            {"avg_rtt", c.avg_rtt, 0.0, 0}};
    if (real_args(where, reals, 6) < 0 || int_arg(mtu_o, &D[I_DATA_SIZE], "rcp_intervals mtu", &mtu) < 0 ||
        int_arg(t_o, &D[I_T], where, &t) < 0 || int_arg(interval_o, &D[I_INTERVAL], where, &interval) < 0 ||
        int_arg(limit_o, &D[I_T], where, &limit) < 0 ||
        int_in_range(flows_o, where, "done_flows", 0, LLONG_MAX, &done_flows) < 0 ||
        int_arg(done_o, &D[I_T], where, &done_ns) < 0 || !ready(self))
        return NULL;
    if (limit - t > MAX_INTERVALS_SPAN_NS)
        return PyErr_Format(PyExc_ValueError, "%s limit_ns - t_ns = %lld ns is over 2**40 (one call runs at most 18 "
                            "minutes)", where, limit - t);
    if (t < self->sim.now)
        return PyErr_Format(PyExc_ValueError, "%s t_ns=%lld is before the clock (%lld)", where, t,
                            (long long)self->sim.now);
    c.mtu = (double)mtu;
    double *buf = NULL;
    Py_ssize_t n = 0, cap = 0;
    self->running = 1; /* under the GIL: another thread sees it before it can touch sim */
    int rc = flow_intervals(self, &t, &interval, limit, stop, done_flows, done_ns, &c, measured, &buf, &n, &cap);
    self->running = 0;
    PyObject *out = rc < 0 ? PyErr_NoMemory()
                           : Py_BuildValue("(y#LLddO)", buf ? (const char *)buf : "",
                                           n * FLOW_SAMPLE * (Py_ssize_t)sizeof(double), t, interval, c.rate,
                                           c.avg_rtt, rc ? Py_True : Py_False);
    PyMem_Free(buf);
    return out;
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
    {"rcp_intervals", (PyCFunction)FlowSimulator_rcp_intervals, METH_VARARGS,
     "rcp_intervals(t_ns, interval_ns, limit_ns, stop, done_flows, done_ns, link_rate, alpha, beta, eta, rate,"
     " avg_rtt, mtu, measured_rtt) -> (samples, t_ns, interval_ns, rate, avg_rtt, stopped): App. F's control path"
     " at every expiry up to limit_ns, in C."},
    {"census", (PyCFunction)FlowSimulator_census, METH_NOARGS,
     "census() -> dict: flows in the SYN phase, sending (data left), of those window-full, their rates' sum (bytes/ms)."},
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
    if (load_int_domains(D, N_INTEGERS, "flows.c") < 0)
        return NULL;
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
