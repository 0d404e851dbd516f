#include "demo/bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint32_t bench_counts[DEMO_BENCH_COUNTS] = {1000, 10000, 50000, 100000};

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double demo_bench_median(double *v, uint32_t n)
{
    if (!n)
        return 0.0;
    qsort(v, n, sizeof *v, compare_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void demo_bench_start(demo_bench *b, double restore_count, const char *renderer)
{
    memset(b, 0, sizeof *b);
    b->stage = 0;
    b->restore_count = restore_count;
    snprintf(b->renderer, sizeof b->renderer, "%s", renderer);
}

bool demo_bench_running(const demo_bench *b)
{
    return b->stage >= 0 && b->renderer[0];
}

const char *demo_bench_report(const demo_bench *b)
{
    return b->report;
}

const char *demo_bench_text(const demo_bench *b)
{
    return demo_bench_running(b) ? b->progress : b->report;
}

void demo_bench_step(demo_bench *b, demo_app *app, double seconds)
{
    if (!demo_bench_running(b))
        return;
    if (b->frame == 0)
        demo_set(app, DEMO_COUNT, bench_counts[b->stage]);
    /* the same slow orbit for every count, from the seed benchmark's viewpoint */
    b->orbit_time += seconds > 0.1 ? 0.1 : seconds;
    demo_app_pose_camera(app, 0.55f + 0.08f * (float)b->orbit_time, 0.32f, 55.0f);
    snprintf(b->progress, sizeof b->progress, "benchmark: %u instances, %s %u/%u\n", bench_counts[b->stage],
             b->frame < DEMO_BENCH_WARMUP ? "warming up" : "measuring",
             b->frame < DEMO_BENCH_WARMUP ? b->frame : b->frame - DEMO_BENCH_WARMUP,
             (unsigned)(b->frame < DEMO_BENCH_WARMUP ? DEMO_BENCH_WARMUP : DEMO_BENCH_MEASURE));
}

static void finish(demo_bench *b)
{
    int n = snprintf(b->report, sizeof b->report,
                     "benchmark on %s: medians of %d frames after %d warm-up\n"
                     "instances  frame ms    fps   cpu ms  draws  submitted  triangles\n",
                     b->renderer, DEMO_BENCH_MEASURE, DEMO_BENCH_WARMUP);
    for (int i = 0; i < DEMO_BENCH_COUNTS; i++) {
        const demo_bench_row *r = &b->rows[i];
        n += snprintf(b->report + n, sizeof b->report - (size_t)n, "%9u %9.2f %6.1f %8.2f %6u %10u %9.2fM\n", r->count,
                      r->frame_ms, r->frame_ms > 0 ? 1000.0 / r->frame_ms : 0.0, r->cpu_ms, r->draws, r->submitted,
                      (double)r->triangles / 1e6);
    }
    printf("%s", b->report);
    fflush(stdout);
    b->stage = -1;
}

void demo_bench_record(demo_bench *b, double frame_ms, double cpu_ms, const crowd_frame *frame,
                       const crowd_gl_stats *gl)
{
    if (!demo_bench_running(b))
        return;
    uint32_t f = b->frame++;
    if (f < DEMO_BENCH_WARMUP)
        return;
    b->frame_ms[f - DEMO_BENCH_WARMUP] = frame_ms;
    b->cpu_ms[f - DEMO_BENCH_WARMUP] = cpu_ms;
    if (f + 1 < DEMO_BENCH_WARMUP + DEMO_BENCH_MEASURE)
        return;
    demo_bench_row *row = &b->rows[b->stage];
    row->count = bench_counts[b->stage];
    row->frame_ms = demo_bench_median(b->frame_ms, DEMO_BENCH_MEASURE);
    row->cpu_ms = demo_bench_median(b->cpu_ms, DEMO_BENCH_MEASURE);
    row->draws = gl->draws + gl->shadow_draws;
    row->submitted = frame->stats.submitted;
    row->triangles = gl->triangles + gl->shadow_triangles;
    b->frame = 0;
    if (++b->stage == DEMO_BENCH_COUNTS)
        finish(b);
}
