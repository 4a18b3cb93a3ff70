/* The limit for the `rcp` phase-plane kernel (issue 26 item 4): the same arithmetic as the generated
   kernel (rcpstab/phaseplane/csrc/kernel.c with the rcp model printed in front), written as the plainest
   vectorisable loop: the whole batch side by side in structure-of-arrays form (R[b], q[b], ...), every
   step one pass over the batch, the two held delayed reads located once per step for the whole batch,
   and only what the arithmetic needs stored (the rate's history, not the slopes or the queue's).

   Exact Euler steps of the queue with its clamp at 0 and the buffer's overflow, the sampled rate update
   (thesis App. F line 8) with its saturation, and the envelope monitor (band distance, window peaks,
   crossings, last step out): benchmarks/bench_kernel.py checks that this loop gives the kernel's bits
   (so that it is the same arithmetic) before it times either.

   Parameters per trajectory, in the model's order: alpha, beta, C, N, d_0, T, eta, MTU, buffer. */
/* the lane loops' selects become blends only if a multiplication may be evaluated where the source
   would not (no FP traps are enabled: the results are the same); the kernel needs no such licence */
#pragma GCC optimize ("no-trapping-math")
#include <math.h>
#include <stdlib.h>

#define GRID_TOL 1e-9
#define RATE_BAND 0.02
#define QUEUE_BAND 0.01

static inline long ifloor(double v) { long i = (long) v; return i - (v < (double) i); }

#define LANE(DUE, TNOW) { \
            double r = R[b], x = q[b]; \
            double f = -C[b] + N[b] * hf[b]; \
            f = (x <= 0.0 && f < 0.0) ? 0.0 : f; \
            int full = x >= buffer[b] && f > 0.0; \
            double kd = dt * (full ? f : 0.0); \
            f = full ? 0.0 : f; \
            double kq = dt * f; \
            hs[b] = r; \
            double qn = x + 1.0 * kq; \
            qn = qn < 0.0 ? 0.0 : qn; \
            double dn = drop[b] + 1.0 * kd; \
            double over = qn - buffer[b]; \
            dn = qn > buffer[b] ? dn + over : dn; \
            qn = qn > buffer[b] ? buffer[b] : qn; \
            if (DUE) { \
                double x0 = 1.0 / C[b], x1 = 1.0 / (d0[b] + qn * x0); \
                double F = (TNOW ? r : hT[b]) * x0 * x1 * (alpha[b] * (C[b] * eta[b] - N[b] * hd[b]) - beta[b] * qn * x1) / eta[b]; \
                r = r + step_every * F; \
                double lo = (1.0 / 100.0) * mtu[b] / (d0[b] + qn / C[b]), hi = C[b] * eta[b]; \
                r = r < lo ? lo : r; \
                r = r > hi ? hi : r; \
            } \
            R[b] = r; \
            q[b] = qn; \
            drop[b] = dn; \
            /* the envelope monitor */ \
            double g = r / C[b]; \
            double rate = fabs(g * inv_geq[b] - 1.0) * (1.0 / RATE_BAND); \
            double qd = fabs(qn - qeq[b]) * inv_qband[b]; \
            double dist = (isnan(rate) || isnan(qd)) ? NAN : (rate >= qd ? rate : qd); \
            double pk = peak[b]; \
            peak[b] = isnan(dist) ? INFINITY : ((dist > pk || isnan(pk)) ? dist : pk); \
            rpeak[b] = !(rate <= rpeak[b]) ? rate : rpeak[b]; \
            qpeak[b] = !(qd <= qpeak[b]) ? qd : qpeak[b]; \
            last_out[b] = !(dist <= 1.0) ? (double) (k + 1) : last_out[b]; \
            double a = g > geq[b] ? 1.0 : 0.0; \
            crossing[b] += a != above[b] ? 1.0 : 0.0; \
            above[b] = a; \
        }

#if defined(__x86_64__) && defined(__GLIBC__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#endif
void plain_rcp(long B, long n_steps, double dt, long L, const double *delay, long every,
               double *restrict R, double *restrict q, double *restrict drop, double *hist /* [L][B], the rate, slot k % L */,
               const double *restrict R0, const double *restrict par /* [9][B] */,
               const double *restrict geq, const double *restrict qeq, const double *restrict qscale,
               double *restrict peak, double *restrict rpeak, double *restrict qpeak, double *restrict last_out,
               double *restrict crossing, double *restrict above) {
    const double *alpha = par, *beta = par + B, *C = par + 2 * B, *N = par + 3 * B, *d0 = par + 4 * B;
    const double *eta = par + 6 * B, *mtu = par + 7 * B, *buffer = par + 8 * B;
    double *inv_geq = malloc(sizeof(double) * B), *inv_qband = malloc(sizeof(double) * B);
    for (long b = 0; b < B; b++) {
        inv_geq[b] = 1.0 / geq[b];
        inv_qband[b] = 1.0 / (qscale[b] * QUEUE_BAND);
    }
    long due_in = every;
    for (long k = 0; k < n_steps; k++) {
        long slot = k % L;
        /* the rate d0 ago at the step's midpoint (held: sampled), and at its end for the update */
        long first = ifloor(k + 0.5 - delay[1] + GRID_TOL);
        long due_T = ifloor((double) (k + 1) - delay[0] + GRID_TOL), due_d0 = ifloor((double) (k + 1) - delay[1] + GRID_TOL);
        const double *hf = first < 0 ? R0 : hist + ((first % L + L) % L) * B;
        const double *hT = due_T < 0 ? R0 : hist + ((due_T % L + L) % L) * B;
        const double *hd = due_d0 < 0 ? R0 : hist + ((due_d0 % L + L) % L) * B;
        int due = --due_in == 0;
        if (due) due_in = every;
        double *hs = hist + slot * B;
        const double step_every = (double) every * dt;
        /* the update is the same for the whole batch: a branch outside the lane loop, so that it vectorizes */
        /* and so is whether the update reads the rate just stored (a delay of one step): then from the
           register, so that the loop does not read what it writes */
        if (due && hT == hs) for (long b = 0; b < B; b++) LANE(1, 1)
        else if (due) for (long b = 0; b < B; b++) LANE(1, 0)
        else for (long b = 0; b < B; b++) LANE(0, 0)
    }
    free(inv_geq);
    free(inv_qband);
}
