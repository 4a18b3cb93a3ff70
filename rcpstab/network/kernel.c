/* The multi-link fluid network's stepping loop (rcpstab.network.kernel): a template shipped as package
   data. rcpstab.network.kernel.source() prepends App. F's constants MIN_RATE_FRACTION and
   MAX_INTERVAL_MS (#define lines read from rcpstab.packet.routers.rcp.control, where they are written
   once) and compiles the whole with rcpstab.runtime.build.load_library. */
#include <math.h>
#include <stddef.h>

#define IX(l, b) ((size_t)(l) * (size_t)B + (size_t)(b))

/* App. F lines 1-13 for one port; rates bytes/ms, times ms. Returns the next interval (ms). */
static double control_update(double *rate, double *avg, double link_rate, double alpha, double beta,
                             double eta, double mtu, double in_bytes, double rtt_sum, double rtt_count,
                             double queue_bytes, double tr)
{
    double input_rate = in_bytes / tr;                                        /* line 1 */
    if (rtt_count > 0) {
        double avg_tr = rtt_sum / rtt_count;                                  /* line 2 */
        double weight = avg_tr >= *avg ? tr / *avg
                      : (*rate / link_rate) * (avg_tr / *avg) * (tr / *avg); /* lines 3-6 */
        *avg = weight * avg_tr + (1 - weight) * *avg;                         /* line 7 */
    }
    double target = eta * link_rate;
    *rate = *rate * (1 + (tr / *avg) * (alpha * (target - input_rate) - beta * queue_bytes / *avg) / target);
    double min_rate = MIN_RATE_FRACTION * mtu / *avg;                         /* lines 9-12 */
    if (*rate < min_rate) *rate = min_rate;
    else if (*rate > target) *rate = target;
    return *avg < MAX_INTERVAL_MS ? *avg : MAX_INTERVAL_MS;                   /* line 13 */
}

int network_run(int L, int B, int A, int G, int H, long n_steps, int every, double dt, double eta, double mtu,
                const int *arrival_link, const int *arrival_group, const double *arrival_weight,
                const int *read_start, const int *read_link, const int *read_steps,
                const double *path, const double *prop_rtt, const double *capacity,
                const double *alpha, const double *beta,
                double *hist, double *rate, double *queue, double *ctl_rate, double *avg, double *interval,
                double *sample, double *work,
                double *out_rate, double *out_avg, double *out_sample, double *out_queue)
{
    /* work: arriving (A*B), rtt (G*B), y (L*B), yrtt (L*B), counted bits (L*B), counted bit*s (L*B), elapsed (L*B) */
    double *arriving = work, *rtt = arriving + (size_t)A * B, *y = rtt + (size_t)G * B, *yrtt = y + (size_t)L * B;
    double *bits = yrtt + (size_t)L * B, *rtt_bits = bits + (size_t)L * B, *elapsed = rtt_bits + (size_t)L * B;
    long rec = 0;
    for (size_t i = 0; i < (size_t)L * B; i++) bits[i] = rtt_bits[i] = elapsed[i] = 0.0;
    for (long k = 0; k < n_steps; k++) {
        int slot = (int)(k % H);
        for (int l = 0; l < L; l++)
            for (int b = 0; b < B; b++) hist[((size_t)l * H + slot) * B + b] = rate[IX(l, b)];
        for (int a = 0; a < A; a++)
            for (int b = 0; b < B; b++) {
                double low = INFINITY;
                for (int r = read_start[a]; r < read_start[a + 1]; r++) {
                    long back = ((k - read_steps[r]) % H + H) % H;
                    double v = hist[((size_t)read_link[r] * H + back) * B + b];
                    if (v < low) low = v;
                }
                arriving[(size_t)a * B + b] = low;
            }
        for (int g = 0; g < G; g++)
            for (int b = 0; b < B; b++) {
                double d = prop_rtt[g];
                for (int l = 0; l < L; l++) d += path[(size_t)g * L + l] * (queue[IX(l, b)] / capacity[l]);
                rtt[(size_t)g * B + b] = d;
            }
        for (size_t i = 0; i < (size_t)L * B; i++) y[i] = yrtt[i] = 0.0;
        for (int a = 0; a < A; a++)
            for (int b = 0; b < B; b++) {
                double flow = arrival_weight[a] * arriving[(size_t)a * B + b];
                y[IX(arrival_link[a], b)] += flow;
                yrtt[IX(arrival_link[a], b)] += arrival_weight[a]
                    * (arriving[(size_t)a * B + b] * rtt[(size_t)arrival_group[a] * B + b]);
            }
        for (int l = 0; l < L; l++)
            for (int b = 0; b < B; b++) {
                size_t i = IX(l, b);
                bits[i] += y[i] * dt;
                rtt_bits[i] += yrtt[i] * dt;
                double next = queue[i] + (y[i] - capacity[l]) * dt;
                queue[i] = next > 0.0 ? next : 0.0;
                elapsed[i] += dt;
                if (elapsed[i] >= interval[i] - 1e-9 * dt) {
                    if (bits[i] > 0) sample[i] = rtt_bits[i] / bits[i];
                    double link_rate = capacity[l] / 8.0 / 1e3;
                    interval[i] = control_update(&ctl_rate[i], &avg[i], link_rate, alpha[b], beta[b], eta, mtu,
                                                 bits[i] / 8.0, rtt_bits[i] * 1e3 / 8.0, bits[i] / 8.0,
                                                 queue[i] / 8.0, elapsed[i] * 1e3) / 1e3;
                    rate[i] = ctl_rate[i] * 8.0 * 1e3;
                    bits[i] = rtt_bits[i] = elapsed[i] = 0.0;
                }
            }
        if (k % every == 0) {
            for (size_t i = 0; i < (size_t)L * B; i++) {
                size_t o = (size_t)rec * L * B + i;
                out_rate[o] = rate[i];
                out_avg[o] = avg[i] / 1e3;
                out_sample[o] = sample[i];
                out_queue[o] = queue[i];
            }
            rec++;
        }
    }
    return (int)rec;
}
