/* The stepping loop of every phase-plane kernel: ring-buffer delays, clamps (and a buffer's overflow),
   RK4 or exact Euler steps, the sampled update, the envelope monitor and recording, over blocks of LANES
   trajectories side by side so that it vectorizes. rcpstab.phaseplane.codegen prepends the model: the
   constants (NS states, ND delayed terms, NP parameters, ...) and the lane functions rhs, saturate,
   upper_of, gamma_of, queue_of printed from its SymPy spec, then defines RCPSTAB_MODEL. It performs,
   operation for operation, what rcpstab/phaseplane/reference.py does in NumPy.

   Without RCPSTAB_MODEL the file stands alone (a test compiles the shipped template with -Wall -Wextra
   -Werror): a one-state stand-in model, dx/dt = -x(t - 1), takes the model's place. */
#ifndef RCPSTAB_MODEL
#include <math.h>
#include <stdlib.h>
#define static_inline static inline __attribute__((always_inline))
#define NS 1
#define ND 1
#define NP 1
#define NC 1
#define LANES 8
#define TAIL_LANES 8
#define PIECEWISE_CONSTANT 0
#define WIDE 0
#define RATE_BAND 0.02
#define QUEUE_BAND 0.01
static const int CONT[] = {0};
static const int DSTATE[] = {0};
static const int DSAMPLED[] = {0};
static const int HAS_CLAMP[] = {0};
static const double CLAMP[] = {0.0};
static const int SPILL[] = {-1};
static const int IS_SPILL[] = {0};
static_inline double rhs(int i, const double *X, const double *dl, const double *P, int ln) {
    (void) i; (void) X; (void) P;
    return -dl[ln];
}
static_inline void saturate(int i, double *X, const double *P, int ln) { (void) i; (void) X; (void) P; (void) ln; }
static_inline double upper_of(int i, const double *P, int ln) { (void) i; (void) P; (void) ln; return INFINITY; }
static_inline double gamma_of(const double *X, const double *P, int ln) { (void) P; return 1.0 + X[ln]; }
static_inline double queue_of(const double *X, const double *P, int ln) { (void) P; return X[ln]; }
#endif
#define GRID_TOL 1e-9
/* The Euler loop does not zero the stages' arrays (see step): GCC cannot see that the update's F is
   read only where it was written (now[s] in both loops) and would warn that it may be uninitialized. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
/* loops over the states, unrolled before vectorization so each lane loop sees one state (a constant) */
#define UNROLL _Pragma("GCC unroll 64")

/* How one delayed input is read at one stage of a step. Delays are uniform over a batch, so this is
   the same for every trajectory: it is worked out once per step of a block (plan_reads), not per trajectory. */
typedef struct {
    int mode;      /* 0: the initial state (before time 0), 1: one stored step, 2: cubic Hermite, 3: wide Hermite */
    long j[4];     /* ring slots of steps jl-1, jl, jl+1, jl+2 (one stored step: j[1]) */
    double w[8];   /* weights of the values, then of the slopes (cubic: w[0..3] for x0, s0, x1, s1) */
    double th;     /* the fraction of a step the weights are for (kept across steps: with a delay of a whole
                      number of steps it is always 1/2, so the weights are computed once per run) */
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
    r->j[0] = r->j[1] = r->j[2] = r->j[3] = 0;
    if (pos < 0) { r->mode = 0; return; }
    long jl = ifloor(pos);
    double th = pos - (double) jl;
    r->j[1] = ring(k, slot, L, jl);
    if (th == 0.0) { r->mode = 1; return; }
    r->j[2] = r->j[1] + 1 == L ? 0 : r->j[1] + 1;
    int mode = wide_stencil(jl, latest, delay) ? 3 : 2, same = r->mode == mode && r->th == th;
    r->mode = mode;
    r->th = th;
    if (mode == 3) {
        r->j[0] = r->j[1] == 0 ? L - 1 : r->j[1] - 1;
        r->j[3] = r->j[2] + 1 == L ? 0 : r->j[2] + 1;
        if (same) return;
        double u = th - 1, v = th - 2, p = th + 1;
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
    if (same) return;
    double t2 = th * th, t3 = th * th * th;
    r->w[0] = 2 * t3 - 3 * t2 + 1;
    r->w[1] = t3 - 2 * t2 + th;
    r->w[2] = 3 * t2 - 2 * t3;
    r->w[3] = t3 - t2;
}

static_inline void plan_held(read_t *r, long k, long slot, long L, double index_pos) {
    long index = ifloor(index_pos + GRID_TOL);
    r->j[0] = r->j[1] = r->j[2] = r->j[3] = 0;
    if (index < 0) { r->mode = 0; return; }
    r->mode = 1;
    r->j[1] = ring(k, slot, L, index);
}

/* the reads of every delayed input at stage position pos (held states at held_pos), history stored up to latest */
static_inline void plan_reads(read_t *r, long k, long slot, long L, const double *delay, double pos, double held_pos,
                              long latest) {
    UNROLL for (int d = 0; d < ND; d++) {
        if (DSAMPLED[d]) plan_held(&r[d], k, slot, L, held_pos - delay[d]);
        else plan_smooth(&r[d], k, slot, L, pos - delay[d], latest, delay);
    }
}

/* A block of LANES trajectories advances together, each operation a loop over the block's lanes on
   lane-contiguous arrays (x[s][lane], a local copy of the history [s][slot][lane]), which the compiler
   turns into vector instructions: one trajectory's step is a chain of dependent divisions
   (latency-bound), independent trajectories side by side fill the pipeline and the vector units.
   NL, the lanes computed, is a compile-time constant (LANES, or TAIL_LANES for a block of a few; more
   variants, for blocks of 1, 2 or 4 trajectories, would multiply the compile time); lanes past the
   batch's end compute copies of the block's first and are not written back.
   LANES is defined in the header, before the model's functions. For the exact Euler loop (the sampled
   RCP family) it is 32: what a step costs besides its arithmetic (the counters, where the delayed inputs
   are read) is paid once per block and step, and a block of 32 pays a quarter of what a block of 8 did
   per trajectory (64 no longer fits the caches); its three variants compile quickly. An RK4 loop keeps
   blocks of 8 in one variant (its arithmetic dominates, and each variant costs seconds of gcc). */
#define AT(a, s) (a)[(s) * LANES + ln]
/* not unrolled: the vectorizer, not the early unroller, must see the lane loops */
#define LANE_LOOP _Pragma("GCC unroll 1") for (int ln = 0; ln < NL; ln++)

static_inline void read_delayed(double *dl, const double *hv, const double *hs, const double *x0, long L,
                                const read_t *r, const int NL) {
    UNROLL for (int d = 0; d < ND; d++) {
        const read_t *p = &r[d];
        const int s = DSTATE[d];
        const double *v0 = hv + (s * L + p->j[0]) * LANES, *v1 = hv + (s * L + p->j[1]) * LANES;
        const double *v2 = hv + (s * L + p->j[2]) * LANES, *v3 = hv + (s * L + p->j[3]) * LANES;
        const double *s0 = hs + (s * L + p->j[0]) * LANES, *s1 = hs + (s * L + p->j[1]) * LANES;
        const double *s2 = hs + (s * L + p->j[2]) * LANES, *s3 = hs + (s * L + p->j[3]) * LANES;
        const double *w = p->w;
        switch (p->mode) {
        case 0: LANE_LOOP AT(dl, d) = AT(x0, s); break;
        case 1: LANE_LOOP AT(dl, d) = v1[ln]; break;
        case 2: LANE_LOOP AT(dl, d) = w[0] * v1[ln] + w[1] * s1[ln] + w[2] * v2[ln] + w[3] * s2[ln]; break;
        default:
            LANE_LOOP AT(dl, d) = w[0] * v0[ln] + w[1] * v1[ln] + w[2] * v2[ln] + w[3] * v3[ln]
                                  + w[4] * s0[ln] + w[5] * s1[ln] + w[6] * s2[ln] + w[7] * s3[ln];
        }
    }
}

/* dt times the derivative of every continuous state from the delayed inputs dl, the clamps applied at the
   bounds. At a full buffer (X[i] >= upper) the inflow is cut and becomes the slope of its overflow state
   SPILL[i]; an overflow state has no right-hand side of its own (its source sets it). */
static_inline void slopes(double *K, const double *X, const double *dl, const double *P, double dt, const int NL) {
    UNROLL for (int c = 0; c < NC; c++) {
        const int i = CONT[c];
        if (IS_SPILL[i]) continue;
        LANE_LOOP {
            double f = rhs(i, X, dl, P, ln);
            f = (HAS_CLAMP[i] && AT(X, i) <= CLAMP[i] && f < 0.0) ? 0.0 : f;
            if (SPILL[i] >= 0) {
                int full = AT(X, i) >= upper_of(i, P, ln) && f > 0.0;
                AT(K, SPILL[i]) = dt * (full ? f : 0.0);
                f = full ? 0.0 : f;
            }
            AT(K, i) = dt * f;
        }
    }
}

/* out = X + w K for the continuous states, clamped; what a step carries past the upper bound
   is moved into the overflow state, so state + overflow keeps the unclamped sum */
static_inline void advance(double *out, const double *X, const double *K, double w, const double *P, const int NL) {
    UNROLL for (int s = 0; s < NS; s++) LANE_LOOP AT(out, s) = AT(X, s);
    UNROLL for (int c = 0; c < NC; c++) {
        const int i = CONT[c];
        LANE_LOOP {
            double v = AT(X, i) + w * AT(K, i);
            AT(out, i) = (HAS_CLAMP[i] && v < CLAMP[i]) ? CLAMP[i] : v;
        }
    }
    UNROLL for (int c = 0; c < NC; c++) {
        const int i = CONT[c];
        if (SPILL[i] < 0) continue;
        LANE_LOOP {
            double u = upper_of(i, P, ln), o = AT(out, i), over = o - u;
            AT(out, SPILL[i]) = o > u ? AT(out, SPILL[i]) + over : AT(out, SPILL[i]);
            AT(out, i) = o > u ? u : o;
        }
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

/* One step of a block (step k -> k + 1, stored at ring position slot); now[s]: sampled state s is
   updated at k + 1. */
static_inline void step(double *X, double *hv, double *hs, const double *x0, long L, long slot, const plan_t *plan,
                        const double *P, double dt, const int *now, int due, const int NL) {
    double N1[NS * LANES], T[NS * LANES], K1[NS * LANES], K2[NS * LANES], K3[NS * LANES], K4[NS * LANES];
    double F[NS * LANES], dl[(ND > 0 ? ND : 1) * LANES];
    /* Only the continuous states' slopes are read, and slopes() writes each of them (an overflow state's
       from its source): the Euler loop skips zeroing the arrays, which took a third of its time (F is
       written before it is read too); the RK4 loop, whose arithmetic dominates, keeps it. */
    if (!PIECEWISE_CONSTANT)
        UNROLL for (int s = 0; s < NS; s++) LANE_LOOP AT(K1, s) = AT(K2, s) = AT(K3, s) = AT(K4, s) = AT(F, s) = 0.0;
    read_delayed(dl, hv, hs, x0, L, plan->first, NL);
    slopes(K1, X, dl, P, dt, NL);
    UNROLL for (int s = 0; s < NS; s++) LANE_LOOP hv[(s * L + slot) * LANES + ln] = AT(X, s);
    UNROLL for (int c = 0; c < NC; c++) LANE_LOOP hs[(CONT[c] * L + slot) * LANES + ln] = AT(K1, CONT[c]);
    if (PIECEWISE_CONSTANT) {
        advance(N1, X, K1, 1.0, P, NL);
    } else {
        read_delayed(dl, hv, hs, x0, L, plan->mid, NL);
        advance(T, X, K1, 0.5, P, NL);
        slopes(K2, T, dl, P, dt, NL);
        advance(T, X, K2, 0.5, P, NL);
        slopes(K3, T, dl, P, dt, NL);
        read_delayed(dl, hv, hs, x0, L, plan->last, NL);
        advance(T, X, K3, 1.0, P, NL);
        slopes(K4, T, dl, P, dt, NL);
        UNROLL for (int c = 0; c < NC; c++) {
            const int i = CONT[c];
            LANE_LOOP AT(F, i) = (AT(K1, i) + 2 * AT(K2, i) + 2 * AT(K3, i) + AT(K4, i)) / 6;
        }
        advance(N1, X, F, 1.0, P, NL);
    }
    UNROLL for (int c = 0; c < NC; c++) LANE_LOOP saturate(CONT[c], N1, P, ln);
    if (due) {  /* the router's periodic update: x <- x + interval * rhs */
        read_delayed(dl, hv, hs, x0, L, plan->due, NL);
        UNROLL for (int s = 0; s < NS; s++)
            if (now[s]) LANE_LOOP AT(F, s) = rhs(s, N1, dl, P, ln);
        UNROLL for (int s = 0; s < NS; s++)
            if (now[s]) LANE_LOOP {
                AT(N1, s) = AT(N1, s) + (now[s] * dt) * AT(F, s);
                saturate(s, N1, P, ln);
            }
    }
    UNROLL for (int s = 0; s < NS; s++) LANE_LOOP AT(X, s) = AT(N1, s);
}

/* The envelope monitor's running values of a block (copied in and out of the caller's arrays). */
typedef struct {
    double geq[LANES], inv_geq[LANES], qeq[LANES], inv_qband[LANES];
    double peak[LANES], rpeak[LANES], qpeak[LANES], last_out[LANES], crossing[LANES], above[LANES];
} watch_t;

/* The envelope after step kk: band distance, window peaks (band distance, and the rate's and the queue's
   deviations on their own, which give a limit cycle's amplitude), crossings, last step out.
   inv_geq = 1/gamma_eq and inv_qband = 1/(C*d0*QUEUE_BAND) are per trajectory: multiplying by them
   spares divisions. Written as selects so that it vectorizes. */
static_inline void observe(const double *X, const double *P, long kk, watch_t *m, const int NL) {
    LANE_LOOP {
        double g = gamma_of(X, P, ln), q = queue_of(X, P, ln);
        double rate = fabs(g * m->inv_geq[ln] - 1.0) * (1.0 / RATE_BAND);
        double qd = fabs(q - m->qeq[ln]) * m->inv_qband[ln];
        double dist = (isnan(rate) || isnan(qd)) ? NAN : (rate >= qd ? rate : qd);
        double pk = m->peak[ln];
        /* a NaN state has left every bound */
        m->peak[ln] = isnan(dist) ? INFINITY : ((dist > pk || isnan(pk)) ? dist : pk);
        m->rpeak[ln] = !(rate <= m->rpeak[ln]) ? rate : m->rpeak[ln];  /* NaN propagates: caught as blown */
        m->qpeak[ln] = !(qd <= m->qpeak[ln]) ? qd : m->qpeak[ln];
        m->last_out[ln] = !(dist <= 1.0) ? (double) kk : m->last_out[ln];
        double a = g > m->geq[ln] ? 1.0 : 0.0;
        m->crossing[ln] += a != m->above[ln] ? 1.0 : 0.0;
        m->above[ln] = a;
    }
}

/* Every step of one block of lanes (lanes <= NL of them real) from step k0 on. */
static_inline void run_block(const int NL, long B, long b0, int lanes, long n_steps, long k0, double dt, long L,
                             const double *delay, const long *every, double *x, double *hv_all, double *hs_all,
                             const double *x0_all, const double *par, long window, const double *geq,
                             const double *qeq, const double *qscale, double *peak, long *crossing,
                             unsigned char *above, double *last_out, double *peaks_out, long *cross_out,
                             long record_every, double *rec, double *rpeak, double *qpeak, double *rpeaks_out,
                             double *qpeaks_out, double *hv, double *hs) {
    double X[NS * LANES], P[NP * LANES], x0[NS * LANES];  /* local: no aliasing */
    watch_t m = {0};  /* filled below where a window is watched; zero elsewhere (never read) */
    for (int ln = 0; ln < NL; ln++) {
        long b = b0 + (ln < lanes ? ln : 0);  /* lanes past the batch copy the block's first */
        for (int s = 0; s < NS; s++) {
            AT(X, s) = x[b * NS + s];
            AT(x0, s) = x0_all[b * NS + s];
            for (long j = 0; j < L; j++) {
                hv[(s * L + j) * LANES + ln] = hv_all[(b * NS + s) * L + j];
                hs[(s * L + j) * LANES + ln] = hs_all[(b * NS + s) * L + j];
            }
        }
        for (int p = 0; p < NP; p++) AT(P, p) = par[b * NP + p];
        if (window > 0) {
            m.geq[ln] = geq[b];
            m.inv_geq[ln] = 1.0 / geq[b];
            m.qeq[ln] = qeq[b];
            m.inv_qband[ln] = 1.0 / (qscale[b] * QUEUE_BAND);
            m.peak[ln] = peak[b];
            m.rpeak[ln] = rpeak[b];
            m.qpeak[ln] = qpeak[b];
            m.last_out[ln] = last_out[b];
            m.crossing[ln] = (double) crossing[b];
            m.above[ln] = above[b] ? 1.0 : 0.0;
        }
    }
    /* steps left until the next sampled update, window end and record: counters, not divisions */
    long due_in[NS], window_in = window > 0 ? window - k0 % window : 0;
    long record_in = record_every > 0 ? record_every - k0 % record_every : 0;
    for (int s = 0; s < NS; s++) due_in[s] = every[s] > 0 ? every[s] - k0 % every[s] : 0;
    long w = 0, r = 0, slot = k0 % L;
    plan_t plan = {0};  /* kept from step to step: the weights are recomputed only when they change */
    for (int d = 0; d < (ND > 0 ? ND : 1); d++) plan.first[d].mode = plan.mid[d].mode = plan.last[d].mode = plan.due[d].mode = -1;
    for (long k = k0; k < k0 + n_steps; k++) {
        int due = 0, now[NS];  /* now[s]: the update interval of s in steps if s is updated at k + 1, else 0 */
        for (int s = 0; s < NS; s++) {
            now[s] = every[s] > 0 && --due_in[s] == 0 ? (int) every[s] : 0;
            if (now[s]) due_in[s] = every[s];
            due |= now[s] != 0;
        }
        int window_end = window > 0 && --window_in == 0, record = record_every > 0 && --record_in == 0;
        plan_step(&plan, k, slot, L, delay);
        step(X, hv, hs, x0, L, slot, &plan, P, dt, now, due, NL);
        if (window > 0) {
            observe(X, P, k + 1, &m, NL);
            if (window_end) {
                for (int ln = 0; ln < lanes; ln++) {
                    long b = b0 + ln;
                    peaks_out[w * B + b] = m.peak[ln];
                    cross_out[w * B + b] = (long) m.crossing[ln];
                    rpeaks_out[w * B + b] = m.rpeak[ln];
                    qpeaks_out[w * B + b] = m.qpeak[ln];
                }
                for (int ln = 0; ln < NL; ln++) m.peak[ln] = m.crossing[ln] = m.rpeak[ln] = m.qpeak[ln] = 0.0;
            }
        }
        if (record)
            for (int ln = 0; ln < lanes; ln++)
                for (int s = 0; s < NS; s++) rec[(r * B + b0 + ln) * NS + s] = AT(X, s);  /* [record][B][S] */
        slot = slot + 1 == L ? 0 : slot + 1;
        if (window_end) { w++; window_in = window; }
        if (record) { r++; record_in = record_every; }
    }
    for (int ln = 0; ln < lanes; ln++) {
        long b = b0 + ln;
        for (int s = 0; s < NS; s++) {
            x[b * NS + s] = AT(X, s);
            for (long j = 0; j < L; j++) {
                hv_all[(b * NS + s) * L + j] = hv[(s * L + j) * LANES + ln];
                hs_all[(b * NS + s) * L + j] = hs[(s * L + j) * LANES + ln];
            }
        }
        if (window > 0) {
            peak[b] = m.peak[ln];
            rpeak[b] = m.rpeak[ln];
            qpeak[b] = m.qpeak[ln];
            last_out[b] = m.last_out[ln];
            crossing[b] = (long) m.crossing[ln];
            above[b] = m.above[ln] != 0.0;
        }
    }
}

/* The divisions of a step bound its cost: with AVX2 four lanes divide at once, with AVX-512 (and its
   32 vector registers) eight. One library serves every x86-64 machine (glibc's loader picks the clone
   the CPU runs), so the disk cache stays machine-independent; without FMA contraction
   (-ffp-contract=off) every clone gives the same bits. GCC only (other compilers: the portable loop). */
#if defined(__x86_64__) && defined(__GLIBC__) && defined(__GNUC__) && !defined(__clang__) && defined(__has_attribute)
#if __has_attribute(target_clones)
__attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#endif
#endif
int rcpstab_run(long B, long n_steps, long k0, double dt, long L, const double *delay, const long *every,
                double *x, double *hv, double *hs, const double *x0, const double *par,
                long window, const double *geq, const double *qeq, const double *qscale,
                double *peak, long *crossing, unsigned char *above, double *last_out,
                double *peaks_out, long *cross_out, long record_every, double *rec,
                double *rpeak, double *qpeak, double *rpeaks_out, double *qpeaks_out) {
    /* the block's history, lane-contiguous: [state][slot][lane] */
    double *lhv = malloc(sizeof(double) * NS * L * LANES), *lhs = malloc(sizeof(double) * NS * L * LANES);
    if (!lhv || !lhs) { free(lhv); free(lhs); return 1; }
    for (long b0 = 0; b0 < B; b0 += LANES) {
        int lanes = B - b0 < LANES ? (int) (B - b0) : LANES;
#define RUN_BLOCK(nl) run_block(nl, B, b0, lanes, n_steps, k0, dt, L, delay, every, x, hv, hs, x0, par, window, geq, \
                                qeq, qscale, peak, crossing, above, last_out, peaks_out, cross_out, record_every, rec, \
                                rpeak, qpeak, rpeaks_out, qpeaks_out, lhv, lhs)
        /* a lone trajectory (the last undecided of a sweep, run to 1e5 RTTs) is latency-bound: eight lanes
           would only add work. A one-lane copy of the cheap Euler loop costs little to compile. A few
           trajectories (App. E's six starts, a batch's last block) take TAIL_LANES lanes, not LANES. */
        if (PIECEWISE_CONSTANT && lanes == 1) RUN_BLOCK(1);
        else if (LANES > TAIL_LANES && lanes <= TAIL_LANES) RUN_BLOCK(TAIL_LANES);
        else RUN_BLOCK(LANES);
    }
    free(lhv);
    free(lhs);
    return 0;
}
