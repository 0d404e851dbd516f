#include "bake/stride.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"

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

/* Which vertex-frame pairs count as ground contact. GLOBAL: within tolerance of the clip's ground
 * at both frames (robust to airborne phases). PER_FRAME: within tolerance of that frame's own
 * lowest point, for frames whose lowest point is near the ground (authored clips whose planted
 * feet sit at different heights, so no single ground level finds both). */
#define MIN_CONTACTS 8

typedef enum contact_mode { CONTACT_GLOBAL, CONTACT_PER_FRAME } contact_mode;

typedef struct stride_input {
    const float *frames;
    uint32_t vertex_count, frame_count, steps;
    double dt, ground, tolerance, band;
    const double *lowest; /* per frame, in frame order */
} stride_input;

static bool in_contact(const stride_input *in, contact_mode mode, uint32_t f, double ya, double yb)
{
    uint32_t g = (f + 1) % in->frame_count;
    if (mode == CONTACT_GLOBAL)
        return fabs(ya - in->ground) <= in->tolerance && fabs(yb - in->ground) <= in->tolerance;
    return fabs(in->lowest[f] - in->ground) <= in->band && fabs(in->lowest[g] - in->ground) <= in->band &&
           ya - in->lowest[f] <= in->tolerance && yb - in->lowest[g] <= in->tolerance;
}

/* Horizontal velocities of the contact pairs (vx, vz); *n receives their count. */
static bool collect(const stride_input *in, contact_mode mode, double **vx, double **vz, size_t *n)
{
    size_t capacity = 0;
    for (int pass = 0; pass < 2; pass++) {
        size_t k = 0;
        for (uint32_t f = 0; f < in->steps; f++) {
            const float *a = in->frames + (size_t)f * in->vertex_count * 3;
            const float *b = in->frames + (size_t)((f + 1) % in->frame_count) * in->vertex_count * 3;
            for (uint32_t v = 0; v < in->vertex_count; v++) {
                if (!in_contact(in, mode, f, a[3 * v + 1], b[3 * v + 1]))
                    continue;
                if (pass) {
                    (*vx)[k] = ((double)b[3 * v] - a[3 * v]) / in->dt;
                    (*vz)[k] = ((double)b[3 * v + 2] - a[3 * v + 2]) / in->dt;
                }
                k++;
            }
        }
        if (pass == 0) {
            capacity = k;
            *vx = crowd_malloc((capacity + 1) * sizeof(double));
            *vz = crowd_malloc((capacity + 1) * sizeof(double));
            if (!*vx || !*vz)
                return false;
        }
        *n = k;
    }
    return true;
}

/* The median planted velocity, and how consistently the contacts agree with it: the fraction
 * moving within 50 % of its speed (planted feet slide together; a stumble or a fall does not).
 * A handful of contacts (a body part touching down once) is no gait either. */
static bool measure(const stride_input *in, contact_mode mode, double height, double duration, crowd_stride *out)
{
    double *vx = NULL, *vz = NULL;
    size_t n = 0;
    bool ok = collect(in, mode, &vx, &vz, &n);
    memset(out, 0, sizeof *out);
    if (ok && n > 0) {
        double mx = median(vx, n), mz = median(vz, n); /* reorders: consistency below needs no order */
        double speed = hypot(mx, mz);
        size_t agree = 0;
        for (size_t i = 0; i < n; i++)
            agree += hypot(vx[i] - mx, vz[i] - mz) <= 0.5 * speed;
        out->velocity[0] = mx;
        out->velocity[1] = mz;
        out->samples = (uint32_t)(n > UINT32_MAX ? UINT32_MAX : n);
        out->speed = speed;
        /* Below 2% of a body height per cycle the feet are shuffling, not travelling. */
        out->locomotion = speed * duration > 0.02 * height && 2 * agree >= n && n >= MIN_CONTACTS;
        out->stride = out->locomotion ? speed * duration : 0.0;
    }
    crowd_free(vx);
    crowd_free(vz);
    return ok;
}

bool crowd_extract_stride(const float *frames, uint32_t vertex_count, uint32_t frame_count, double duration, bool loop,
                          crowd_stride *out)
{
    memset(out, 0, sizeof *out);
    uint32_t steps = loop ? frame_count : frame_count - 1; /* frame pairs (f, f+1) */
    if (frame_count < 2 || !(duration > 0.0) || steps == 0)
        return true;

    /* Ground: the lowest point of each frame, and of those the 25th percentile, so a toe that
     * dips below the floor for a frame or two (common in authored clips) does not move the ground,
     * while a gait airborne for most of its cycle still finds it. */
    double *lowest = crowd_malloc(frame_count * sizeof(double)), *sorted = crowd_malloc(frame_count * sizeof(double));
    if (!lowest || !sorted) {
        crowd_free(lowest);
        crowd_free(sorted);
        return false;
    }
    double top = -INFINITY;
    for (uint32_t f = 0; f < frame_count; f++) {
        const float *p = frames + (size_t)f * vertex_count * 3;
        lowest[f] = INFINITY;
        for (uint32_t v = 0; v < vertex_count; v++) {
            lowest[f] = fmin(lowest[f], p[3 * v + 1]);
            top = fmax(top, p[3 * v + 1]);
        }
        sorted[f] = lowest[f];
    }
    qsort(sorted, frame_count, sizeof *sorted, compare_double);
    double ground = sorted[frame_count / 4], height = top - ground;
    crowd_free(sorted);
    stride_input in = {frames,
                       vertex_count,
                       frame_count,
                       steps,
                       duration / (loop ? frame_count : frame_count - 1),
                       ground,
                       fmax(0.005 * height, 1e-4),
                       0.05 * height,
                       lowest};
    bool ok = measure(&in, CONTACT_GLOBAL, height, duration, out);
    if (ok && !out->locomotion) {
        crowd_stride second;
        ok = measure(&in, CONTACT_PER_FRAME, height, duration, &second);
        if (ok && second.locomotion)
            *out = second;
    }
    crowd_free(lowest);
    return ok;
}
