#include "bake/stride.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The k-th smallest value (Hoare's selection, expected linear time); reorders `v`. */
static double select_kth(double *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        double pivot = v[lo + (hi - lo) / 2];
        size_t i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot)
                i++;
            while (v[j] > pivot)
                j--;
            if (i <= j) {
                double t = v[i];
                v[i] = v[j];
                v[j] = t;
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return v[k];
    }
    return v[k];
}

static double median(double *values, size_t count)
{
    double upper = select_kth(values, count, count / 2);
    if (count % 2)
        return upper;
    /* after selection everything below count/2 is <= upper: the lower middle is their maximum */
    double lower = values[0];
    for (size_t i = 1; i < count / 2; i++)
        lower = values[i] > lower ? values[i] : lower;
    return 0.5 * (lower + upper);
}

bool crowd_extract_stride(const float *frames, uint32_t vertex_count, uint32_t frame_count, double duration,
                          bool loop, crowd_stride *out)
{
    memset(out, 0, sizeof *out);
    uint32_t steps = loop ? frame_count : frame_count - 1; /* frame pairs (f, f+1) */
    if (frame_count < 2 || !(duration > 0.0) || steps == 0)
        return true;
    double dt = duration / (loop ? frame_count : frame_count - 1);

    /* Ground: the lowest point of each frame, and of those the 25th percentile, so a toe that
     * dips below the floor for a frame or two (common in authored clips) does not move the ground,
     * while a gait airborne for most of its cycle still finds it. */
    double *lowest = malloc(frame_count * sizeof(double));
    if (!lowest)
        return false;
    double top = -INFINITY;
    for (uint32_t f = 0; f < frame_count; f++) {
        const float *p = frames + (size_t)f * vertex_count * 3;
        lowest[f] = INFINITY;
        for (uint32_t v = 0; v < vertex_count; v++) {
            lowest[f] = fmin(lowest[f], p[3 * v + 1]);
            top = fmax(top, p[3 * v + 1]);
        }
    }
    qsort(lowest, frame_count, sizeof *lowest, compare_double);
    double ground = lowest[frame_count / 4];
    free(lowest);
    double tolerance = fmax(0.005 * (top - ground), 1e-4);

    size_t capacity = 0;
    for (uint32_t f = 0; f < steps; f++) {
        const float *a = frames + (size_t)f * vertex_count * 3;
        const float *b = frames + (size_t)((f + 1) % frame_count) * vertex_count * 3;
        for (uint32_t v = 0; v < vertex_count; v++)
            capacity += (fabs(a[3 * v + 1] - ground) <= tolerance && fabs(b[3 * v + 1] - ground) <= tolerance);
    }
    if (capacity == 0)
        return true;
    double *vx = malloc(capacity * sizeof(double)), *vz = malloc(capacity * sizeof(double));
    if (!vx || !vz) {
        free(vx);
        free(vz);
        return false;
    }
    size_t n = 0;
    for (uint32_t f = 0; f < steps; f++) {
        const float *a = frames + (size_t)f * vertex_count * 3;
        const float *b = frames + (size_t)((f + 1) % frame_count) * vertex_count * 3;
        for (uint32_t v = 0; v < vertex_count; v++) {
            if (fabs(a[3 * v + 1] - ground) > tolerance || fabs(b[3 * v + 1] - ground) > tolerance)
                continue;
            vx[n] = ((double)b[3 * v] - a[3 * v]) / dt;
            vz[n] = ((double)b[3 * v + 2] - a[3 * v + 2]) / dt;
            n++;
        }
    }
    out->velocity[0] = median(vx, n);
    out->velocity[1] = median(vz, n);
    out->samples = (uint32_t)(n > UINT32_MAX ? UINT32_MAX : n);
    out->speed = hypot(out->velocity[0], out->velocity[1]);
    /* Below 2% of a body height per cycle the feet are shuffling, not travelling. */
    out->locomotion = out->speed * duration > 0.02 * (top - ground);
    out->stride = out->locomotion ? out->speed * duration : 0.0;
    free(vx);
    free(vz);
    return true;
}
