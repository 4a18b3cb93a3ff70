"""C source of a model's whole stepping loop, generated from its symbolic spec.

The model-specific pieces (right-hand sides, saturation bounds, R/C and queue for the
envelope) are printed from SymPy with its C99 printer; the loop around them (ring-buffer
delays, clamps (and a buffer's overflow), RK4 or exact Euler steps, the sampled update, the envelope monitor and
recording) is :data:`LOOP`, specialised by compile-time constants so the compiler can unroll
it. It performs, operation for operation, what :mod:`.reference` does in NumPy.
"""
from __future__ import annotations

import sympy as sp
from sympy.printing.c import C99CodePrinter

from ..models.spec import ModelSpec, t
from .verdicts import QUEUE_BAND, RATE_BAND

# Arrays are row-major: x[B][S], history[B][S][L], parameters[B][P], envelope outputs [window][B].
LOOP = r"""
#define GRID_TOL 1e-9

typedef struct {
    const double *hv, *hs, *x0;  /* one trajectory's history: values and slopes [S][L], initial state */
} hist_t;

/* How one delayed input is read at one stage of a step. Delays are uniform over a batch, so this is
   the same for every trajectory: it is worked out once per step (plan_reads), not per trajectory. */
typedef struct {
    int mode;      /* 0: the initial state (before time 0), 1: one stored step, 2: cubic Hermite, 3: wide Hermite */
    long j[4];     /* ring slots of steps jl-1, jl, jl+1, jl+2 (one stored step: j[1]) */
    double w[8];   /* weights of the values, then of the slopes (cubic: w[0..3] for x0, s0, x1, s1) */
} read_t;

/* floor without a libm call (exact for |v| < 2^63) */
static_inline long ifloor(double v) { long i = (long) v; return i - (v < (double) i); }

static_inline long ring(long k, long slot, long L, long index) {  /* index mod L, for index within L of k */
    long r = slot + (index - k);
    return r < 0 ? r + L : (r >= L ? r - L : r);
}

/* The wide stencil (steps jl-1..jl+2, degree 7) is used where those steps are stored (up to `latest`),
   after time 0 and with no delay's breakpoint (a jump of the history's second derivative) strictly
   inside it; elsewhere the cubic on [jl, jl+1] (history.wide_stencil is the same rule). */
static_inline int wide_stencil(long jl, long latest, const double *delay) {
    if (!WIDE || jl < 1 || jl + 2 > latest) return 0;
    for (int d = 0; d < ND; d++)
        if ((double) (jl - 1) < delay[d] && delay[d] < (double) (jl + 2)) return 0;
    return 1;
}

static_inline void plan_smooth(read_t *r, long k, long slot, long L, double pos, long latest, const double *delay) {
    if (pos < 0) { r->mode = 0; return; }
    long jl = ifloor(pos);
    double th = pos - (double) jl;
    r->j[1] = ring(k, slot, L, jl);
    if (th == 0.0) { r->mode = 1; return; }
    r->j[2] = r->j[1] + 1 == L ? 0 : r->j[1] + 1;
    double t2 = th * th, t3 = th * th * th;
    if (wide_stencil(jl, latest, delay)) {
        double u = th - 1, v = th - 2, p = th + 1;
        r->mode = 3;
        r->j[0] = r->j[1] == 0 ? L - 1 : r->j[1] - 1;
        r->j[3] = r->j[2] + 1 == L ? 0 : r->j[2] + 1;
        r->w[0] = th * th * v * v * u * u * (11 * th + 14) / 108;
        r->w[1] = v * v * u * u * p * p * p / 4;
        r->w[2] = -th * th * v * v * v * p * p / 4;
        r->w[3] = -th * th * u * u * p * p * (11 * th - 25) / 108;
        r->w[4] = th * th * v * v * u * u * p / 36;
        r->w[5] = th * v * v * u * u * p * p / 4;
        r->w[6] = th * th * v * v * u * p * p / 4;
        r->w[7] = th * th * v * u * u * p * p / 36;
        return;
    }
    r->mode = 2;
    r->w[0] = 2 * t3 - 3 * t2 + 1;
    r->w[1] = t3 - 2 * t2 + th;
    r->w[2] = 3 * t2 - 2 * t3;
    r->w[3] = t3 - t2;
}

static_inline void plan_held(read_t *r, long k, long slot, long L, double index_pos) {
    long index = ifloor(index_pos + GRID_TOL);
    if (index < 0) { r->mode = 0; return; }
    r->mode = 1;
    r->j[1] = ring(k, slot, L, index);
}

/* the reads of every delayed input at stage position pos (held states at held_pos), history stored up to latest */
static_inline void plan_reads(read_t *r, long k, long slot, long L, const double *delay, double pos, double held_pos,
                              long latest) {
    for (int d = 0; d < ND; d++) {
        if (DSAMPLED[d]) plan_held(&r[d], k, slot, L, held_pos - delay[d]);
        else plan_smooth(&r[d], k, slot, L, pos - delay[d], latest, delay);
    }
}

static_inline double read_one(const hist_t *h, int s, long L, const read_t *r) {
    const double *v = h->hv + s * L, *sl = h->hs + s * L;
    switch (r->mode) {
    case 0: return h->x0[s];
    case 1: return v[r->j[1]];
    case 2: return r->w[0] * v[r->j[1]] + r->w[1] * sl[r->j[1]] + r->w[2] * v[r->j[2]] + r->w[3] * sl[r->j[2]];
    default:
        return r->w[0] * v[r->j[0]] + r->w[1] * v[r->j[1]] + r->w[2] * v[r->j[2]] + r->w[3] * v[r->j[3]]
               + r->w[4] * sl[r->j[0]] + r->w[5] * sl[r->j[1]] + r->w[6] * sl[r->j[2]] + r->w[7] * sl[r->j[3]];
    }
}

static_inline void read_delayed(double *dl, const hist_t *h, long L, const read_t *r) {
    for (int d = 0; d < ND; d++) dl[d] = read_one(h, DSTATE[d], L, &r[d]);
}

/* dt times the derivative of every continuous state from the delayed inputs dl, the clamps applied at the
   bounds. At a full buffer (X[i] >= upper) the inflow is cut and becomes the slope of its overflow state
   SPILL[i]; an overflow state has no right-hand side of its own (its source sets it). */
static_inline void slopes(double *K, const double *X, const double *dl, const double *P, double dt) {
    for (int c = 0; c < NC; c++) {
        int i = CONT[c];
        if (IS_SPILL[i]) continue;
        double f = rhs(i, X, dl, P);
        if (HAS_CLAMP[i] && X[i] <= CLAMP[i]) f = f < 0.0 ? 0.0 : f;
        if (SPILL[i] >= 0) {
            double cut = 0.0;
            if (X[i] >= upper_of(i, P) && f > 0.0) { cut = f; f = 0.0; }
            K[SPILL[i]] = dt * cut;
        }
        K[i] = dt * f;
    }
}

/* out = X + w K for the continuous states, clamped; what a step carries past the upper bound
   is moved into the overflow state, so state + overflow keeps the unclamped sum */
static_inline void advance(double *out, const double *X, const double *K, double w, const double *P) {
    for (int s = 0; s < NS; s++) out[s] = X[s];
    for (int c = 0; c < NC; c++) {
        int i = CONT[c];
        double v = X[i] + w * K[i];
        out[i] = (HAS_CLAMP[i] && v < CLAMP[i]) ? CLAMP[i] : v;
    }
    for (int c = 0; c < NC; c++) {
        int i = CONT[c];
        if (SPILL[i] < 0) continue;
        double u = upper_of(i, P);
        if (out[i] > u) { out[SPILL[i]] = out[SPILL[i]] + (out[i] - u); out[i] = u; }
    }
}

/* The reads of one step, the same for every trajectory of a batch (see read_t). */
typedef struct { read_t first[ND > 0 ? ND : 1], mid[ND > 0 ? ND : 1], last[ND > 0 ? ND : 1], due[ND > 0 ? ND : 1]; } plan_t;

/* Where step k (k -> k + 1) reads the history: RK4's stages at k, k + 1/2 (twice: both read the same
   values), k + 1 (the first before step k is stored), and the sampled update at k + 1 */
static_inline void plan_step(plan_t *p, long k, long slot, long L, const double *delay) {
    plan_reads(p->first, k, slot, L, delay, (double) k, k + 0.5, k - 1);
    plan_reads(p->mid, k, slot, L, delay, k + 0.5, k + 0.5, k);
    plan_reads(p->last, k, slot, L, delay, (double) (k + 1), k + 0.5, k);
    plan_reads(p->due, k, slot, L, delay, (double) (k + 1), (double) (k + 1), k);
}

/* One step of one trajectory (step k -> k + 1, stored at ring position slot); now[s]: sampled state s is
   updated at k + 1. */
static_inline void step(double *X, const hist_t *h, long L, long slot, const plan_t *plan, const double *P,
                        double dt, const int *now, int due) {
    double N1[NS], T[NS], K1[NS], K2[NS], K3[NS], K4[NS], F[NS], dl[ND > 0 ? ND : 1];
    double *HV = (double *) h->hv, *HS = (double *) h->hs;
    for (int s = 0; s < NS; s++) K1[s] = K2[s] = K3[s] = K4[s] = F[s] = 0.0;
    read_delayed(dl, h, L, plan->first);
    slopes(K1, X, dl, P, dt);
    for (int s = 0; s < NS; s++) HV[s * L + slot] = X[s];
    for (int c = 0; c < NC; c++) HS[CONT[c] * L + slot] = K1[CONT[c]];
    if (PIECEWISE_CONSTANT) {
        advance(N1, X, K1, 1.0, P);
    } else {
        read_delayed(dl, h, L, plan->mid);
        advance(T, X, K1, 0.5, P);
        slopes(K2, T, dl, P, dt);
        advance(T, X, K2, 0.5, P);
        slopes(K3, T, dl, P, dt);
        read_delayed(dl, h, L, plan->last);
        advance(T, X, K3, 1.0, P);
        slopes(K4, T, dl, P, dt);
        for (int c = 0; c < NC; c++) {
            int i = CONT[c];
            F[i] = (K1[i] + 2 * K2[i] + 2 * K3[i] + K4[i]) / 6;
        }
        advance(N1, X, F, 1.0, P);
    }
    for (int c = 0; c < NC; c++) saturate(CONT[c], N1, P);
    if (due) {  /* the router's periodic update: x <- x + interval * rhs */
        read_delayed(dl, h, L, plan->due);
        for (int s = 0; s < NS; s++)
            if (now[s]) F[s] = rhs(s, N1, dl, P);
        for (int s = 0; s < NS; s++)
            if (now[s]) {
                N1[s] = N1[s] + (now[s] * dt) * F[s];
                saturate(s, N1, P);
            }
    }
    for (int s = 0; s < NS; s++) X[s] = N1[s];
}

/* The envelope after step kk of trajectory b: band distance, window peaks (band distance, and the rate's and
   the queue's deviations on their own, which give a limit cycle's amplitude), crossings, last step out.
   inv_geq = 1/gamma_eq and inv_qband = 1/(C*d0*QUEUE_BAND) are per trajectory: multiplying by them
   spares divisions, the cost that bounds this loop. */
static_inline void observe(const double *X, const double *P, long b, long kk, double geq, double inv_geq,
                           double qeq, double inv_qband, double *peak, long *crossing, unsigned char *above,
                           double *last_out, double *rpeak, double *qpeak) {
    double g = gamma_of(X, P), q = queue_of(X, P);
    double rate = fabs(g * inv_geq - 1.0) * (1.0 / RATE_BAND);
    double qd = fabs(q - qeq) * inv_qband;
    double dist = (isnan(rate) || isnan(qd)) ? NAN : (rate >= qd ? rate : qd);
    if (isnan(dist)) peak[b] = INFINITY;  /* a NaN state has left every bound */
    else if (dist > peak[b] || isnan(peak[b])) peak[b] = dist;
    if (!(rate <= rpeak[b])) rpeak[b] = rate;  /* NaN propagates: the trajectory is caught as blown */
    if (!(qd <= qpeak[b])) qpeak[b] = qd;
    if (!(dist <= 1.0)) last_out[b] = (double) kk;
    unsigned char a = g > geq;
    crossing[b] += a != above[b];
    above[b] = a;
}

/* LANES trajectories advance together, step by step: one trajectory's step is a chain of
   dependent divisions (latency-bound); independent trajectories interleaved fill the pipeline. */
#define LANES 8

int rcpstab_run(long B, long n_steps, long k0, double dt, long L, const double *delay, const long *every,
                double *x, double *hv, double *hs, const double *x0, const double *par,
                long window, const double *geq, const double *qeq, const double *qscale,
                double *peak, long *crossing, unsigned char *above, double *last_out,
                double *peaks_out, long *cross_out, long record_every, double *rec,
                double *rpeak, double *qpeak, double *rpeaks_out, double *qpeaks_out) {
    for (long b0 = 0; b0 < B; b0 += LANES) {
        int lanes = B - b0 < LANES ? (int) (B - b0) : LANES;
        double X[LANES][NS], P[LANES][NP], inv_geq[LANES], inv_qband[LANES];  /* local: no aliasing */
        hist_t h[LANES];
        for (int v = 0; v < lanes; v++) {
            long b = b0 + v;
            h[v] = (hist_t) {hv + b * NS * L, hs + b * NS * L, x0 + b * NS};
            for (int s = 0; s < NS; s++) X[v][s] = x[b * NS + s];
            for (int m = 0; m < NP; m++) P[v][m] = par[b * NP + m];
            inv_geq[v] = window > 0 ? 1.0 / geq[b] : 0.0;
            inv_qband[v] = window > 0 ? 1.0 / (qscale[b] * QUEUE_BAND) : 0.0;
        }
        /* steps left until the next sampled update, window end and record: counters, not divisions */
        long due_in[NS], window_in = window > 0 ? window - k0 % window : 0;
        long record_in = record_every > 0 ? record_every - k0 % record_every : 0;
        for (int s = 0; s < NS; s++) due_in[s] = every[s] > 0 ? every[s] - k0 % every[s] : 0;
        long w = 0, r = 0, slot = k0 % L;
        for (long k = k0; k < k0 + n_steps; k++) {
            int due = 0, now[NS];  /* now[s]: the update interval of s in steps if s is updated at k + 1, else 0 */
            for (int s = 0; s < NS; s++) {
                now[s] = every[s] > 0 && --due_in[s] == 0 ? (int) every[s] : 0;
                if (now[s]) due_in[s] = every[s];
                due |= now[s] != 0;
            }
            int window_end = window > 0 && --window_in == 0, record = record_every > 0 && --record_in == 0;
            plan_t plan;
            plan_step(&plan, k, slot, L, delay);
            for (int v = 0; v < lanes; v++) step(X[v], &h[v], L, slot, &plan, P[v], dt, now, due);
            if (window > 0)
                for (int v = 0; v < lanes; v++) {
                    long b = b0 + v;
                    observe(X[v], P[v], b, k + 1, geq[b], inv_geq[v], qeq[b], inv_qband[v], peak, crossing, above,
                            last_out, rpeak, qpeak);
                    if (window_end) {
                        peaks_out[w * B + b] = peak[b];
                        cross_out[w * B + b] = crossing[b];
                        rpeaks_out[w * B + b] = rpeak[b];
                        qpeaks_out[w * B + b] = qpeak[b];
                        peak[b] = 0.0;
                        crossing[b] = 0;
                        rpeak[b] = 0.0;
                        qpeak[b] = 0.0;
                    }
                }
            if (record)
                for (int v = 0; v < lanes; v++)
                    for (int s = 0; s < NS; s++) rec[(r * NS + s) * B + b0 + v] = X[v][s];
            slot = slot + 1 == L ? 0 : slot + 1;
            if (window_end) { w++; window_in = window; }
            if (record) { r++; record_in = record_every; }
        }
        for (int v = 0; v < lanes; v++)
            for (int s = 0; s < NS; s++) x[(b0 + v) * NS + s] = X[v][s];
    }
    return 0;
}
"""


def _function(signature: str, cases: dict, default: str) -> str:
    """``static inline signature``: a switch over the state index ``i``, ``default`` for other states."""
    body = "".join(f"    case {i}: {{\n{code}    }}\n" for i, code in cases.items())
    return f"static_inline {signature} {{\n  switch (i) {{\n{body}  }}\n  {default}\n}}\n"


def _block(exprs: list, result: str, printer: C99CodePrinter, names: dict, cse: bool) -> str:
    """Statements computing ``exprs`` as ``r0, r1...``, then ``result``.

    The spec's own symbol names are kept (prefixed ``v_``), and common subexpressions are
    eliminated as ``lambdify(cse=True)`` does, so products are printed in the same order as in
    the NumPy reference and the two agree to the last bit wherever the operations allow.
    """
    temps, reduced = sp.cse(exprs) if cse else ([], exprs)
    rename = {sym: sp.Symbol("v_" + sym.name) for sym in set().union(*(sp.sympify(e).free_symbols for e in exprs))}
    rename.update({sym: sp.Symbol("v_" + sym.name) for sym, _ in temps})
    lines = [f"      const double v_{sym.name} = {source};\n" for sym, source in names.items()
             if any(sym in sp.sympify(e).free_symbols for e in exprs)]
    lines += [f"      const double {rename[sym]} = {printer.doprint(e.xreplace(rename))};\n" for sym, e in temps]
    lines += [f"      const double r{j} = {printer.doprint(e.xreplace(rename))};\n" for j, e in enumerate(reduced)]
    return "".join(lines) + f"      {result}\n"


def c_source(spec: ModelSpec, continuous: tuple, piecewise_constant: bool, wide: bool = False) -> str:
    """The complete C translation unit of ``spec``'s stepping loop (see :data:`LOOP` for the entry point).

    ``wide``: read smooth delayed states with the wide (degree-7) Hermite stencil where it applies
    (:func:`~rcpstab.phaseplane.history.wide_stencil`), else always with the cubic.
    """
    printer = C99CodePrinter()
    names = {sym: f"X[{i}]" for i, sym in enumerate(spec.current_symbols)}
    names.update({term.symbol: f"dl[{j}]" for j, term in enumerate(spec.delayed_terms)})
    names.update({sym: f"P[{m}]" for m, sym in enumerate(spec.parameters)})
    now = {s(t): sym for s, sym in zip(spec.states, spec.current_symbols)}

    def plain(expr):
        return sp.sympify(expr).xreplace(now)

    def value(expr):
        return _block([plain(expr)], "return r0;", printer, names, cse=False)

    rhs = {i: _block([e], "return r0;", printer, names, cse=True) for i, e in enumerate(spec.plain_rhs())}
    saturate = {
        spec.states.index(sat.state): _block(
            [plain(sat.lower), plain(sat.upper)],
            f"double v = X[{spec.states.index(sat.state)}]; v = v < r0 ? r0 : v; "
            f"X[{spec.states.index(sat.state)}] = v > r1 ? r1 : v; return;",
            printer, names, cse=False)
        for sat in spec.saturations
    }
    clamp = {spec.states.index(c.state): float(c.lower) for c in spec.clamps}
    spill = {spec.states.index(c.state): spec.states.index(c.overflow) for c in spec.clamps if c.bounded}
    upper = {spec.states.index(c.state): _block([plain(c.upper)], "return r0;", printer, names, cse=False)
             for c in spec.clamps if c.bounded}
    n, nd = len(spec.states), len(spec.delayed_terms)

    def array(ctype, name, values):
        return f"static const {ctype} {name}[] = {{{', '.join(str(v) for v in values) or '0'}}};\n"

    header = (
        "#include <math.h>\n#define static_inline static inline __attribute__((always_inline))\n"
        f"#define NS {n}\n#define ND {nd}\n#define NP {len(spec.parameters)}\n#define NC {len(continuous)}\n"
        f"#define PIECEWISE_CONSTANT {int(piecewise_constant)}\n#define WIDE {int(wide)}\n"
        f"#define RATE_BAND {RATE_BAND!r}\n#define QUEUE_BAND {QUEUE_BAND!r}\n"
        + array("int", "CONT", continuous)
        + array("int", "DSTATE", [spec.states.index(term.state) for term in spec.delayed_terms])
        + array("int", "DSAMPLED", [int(term.state in spec.sampled) for term in spec.delayed_terms])
        + array("int", "HAS_CLAMP", [int(i in clamp) for i in range(n)])
        + array("double", "CLAMP", [repr(clamp.get(i, 0.0)) for i in range(n)])
        + array("int", "SPILL", [spill.get(i, -1) for i in range(n)])
        + array("int", "IS_SPILL", [int(i in spill.values()) for i in range(n)])
    )
    return (
        header
        + _function("double rhs(int i, const double *X, const double *dl, const double *P)", rhs, "return 0.0;")
        + _function("void saturate(int i, double *X, const double *P)", saturate, "return;")
        + _function("double upper_of(int i, const double *P)", upper, "return INFINITY;")
        + f"static_inline double gamma_of(const double *X, const double *P) {{\n{value(spec.gamma)}}}\n"
        + f"static_inline double queue_of(const double *X, const double *P) {{\n{value(spec.queue)}}}\n"
        + LOOP
    )

