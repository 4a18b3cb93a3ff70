/* Integer arguments of the C extensions (rcpstab.packet._datapath, rcpstab.fct._flows), checked
 * against the one table of their ranges, rcpstab.runtime.validation.SIMULATOR_INTEGERS; and the
 * real-valued arguments of an entry point's own, checked finite and above a bound (real_args).
 *
 * Each extension lists the entries it reads as an int_domain array and loads it when it is
 * imported; its Python twin checks with validation.check_simulator_integer (and, for a range the
 * call sets itself, check_index_range), so both refuse the same values with the same message.
 * The PyArg format codes wrap or overflow instead (a buffer of -1 became 2**64 - 1, a 1e35-byte
 * buffer became 0, an int64 too large raised OverflowError where the twin ran on).
 *
 * Header-only (static functions): each extension includes it once, from its module file. */
#ifndef RCPSTAB_DOMAINS_H
#define RCPSTAB_DOMAINS_H

#ifndef PY_SSIZE_T_CLEAN
#define PY_SSIZE_T_CLEAN
#endif
#include <Python.h>
#include <math.h>

typedef struct {
    const char *name;         /* key of SIMULATOR_INTEGERS */
    long long floor, ceiling; /* what the C code is written for: the table's bounds must lie within */
    long long low, high;      /* the table's bounds, read at import */
} int_domain;

/* Reads SIMULATOR_INTEGERS[d[k].name] into d[k].low, d[k].high for k < n: 0, or -1 with an
 * exception set (ImportError for a bound beyond what the extension is written for). */
static int load_int_domains(int_domain *d, int n, const char *extension)
{
    PyObject *mod = PyImport_ImportModule("rcpstab.runtime.validation");
    PyObject *table = mod ? PyObject_GetAttrString(mod, "SIMULATOR_INTEGERS") : NULL;
    Py_XDECREF(mod);
    if (!table)
        return -1;
    int rc = 0;
    for (int k = 0; k < n && rc == 0; k++) {
        PyObject *bounds = PyMapping_GetItemString(table, d[k].name);
        if (!bounds || !PyArg_ParseTuple(bounds, "LL", &d[k].low, &d[k].high))
            rc = -1;
        else if (d[k].low < d[k].floor || d[k].high > d[k].ceiling || d[k].low > d[k].high) {
            PyErr_Format(PyExc_ImportError, "SIMULATOR_INTEGERS[%s] = (%lld, %lld): %s is written for %lld..%lld",
                         d[k].name, d[k].low, d[k].high, extension, d[k].floor, d[k].ceiling);
            rc = -1;
        }
        Py_XDECREF(bounds);
    }
    Py_DECREF(table);
    return rc;
}

/* ``o`` as a long long in lo..hi: 0, or -1 with TypeError (no __index__: a float, None) or
 * ValueError "<where> <name>=<o> is outside lo..hi" (the message of check_index_range). */
static int int_in_range(PyObject *o, const char *where, const char *name, long long lo, long long hi, long long *out)
{
    PyObject *index = PyNumber_Index(o); /* int or an integer type (numpy); TypeError for floats */
    if (!index)
        return -1;
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(index, &overflow);
    if (v == -1 && PyErr_Occurred()) {
        Py_DECREF(index);
        return -1;
    }
    if (overflow || v < lo || v > hi) {
        PyErr_Format(PyExc_ValueError, "%s%s%s=%S is outside %lld..%lld", where, *where ? " " : "", name, index, lo,
                     hi);
        Py_DECREF(index);
        return -1;
    }
    Py_DECREF(index);
    *out = v;
    return 0;
}

/* ``o`` in the range of its table entry (the message of check_simulator_integer). */
static int int_arg(PyObject *o, const int_domain *d, const char *where, long long *out)
{
    return int_in_range(o, where, d->name, d->low, d->high, out);
}

/* A real-valued argument and its domain: finite, and above ``low`` (at least ``low`` when ``closed``);
 * low = -HUGE_VAL with closed = 1 asks only that it be finite. */
typedef struct {
    const char *name;
    double value, low;
    int closed;
} real_arg;

/* 0 when each of the n ``args`` lies in its domain, else -1 with ValueError "<where> <name>=<value>
 * must be finite and > <low>" naming the first that does not (a NaN gain or a zero RTT would
 * otherwise reach a division or a cast to an integer). */
static inline int real_args(const char *where, const real_arg *args, int n)
{
    for (int k = 0; k < n; k++) {
        const real_arg *a = &args[k];
        if (isfinite(a->value) && (a->closed ? a->value >= a->low : a->value > a->low))
            continue;
        PyObject *value = PyFloat_FromDouble(a->value), *low = PyFloat_FromDouble(a->low);
        if (value && low && a->low == -HUGE_VAL)
            PyErr_Format(PyExc_ValueError, "%s %s=%R must be finite", where, a->name, value);
        else if (value && low)
            PyErr_Format(PyExc_ValueError, "%s %s=%R must be finite and %s %R", where, a->name, value,
                         a->closed ? ">=" : ">", low);
        Py_XDECREF(value);
        Py_XDECREF(low);
        return -1;
    }
    return 0;
}

#endif
