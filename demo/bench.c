#include "demo/bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const demo_bench_plan default_plan = {{1000, 10000, 50000, 100000}, DEMO_BENCH_WARMUP, DEMO_BENCH_MEASURE};

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

void demo_bench_start(demo_bench *b, double restore_count, const char *renderer, const demo_bench_plan *plan)
{
    memset(b, 0, sizeof *b);
    if (!plan || !plan->counts[0] || plan->measure < 1 || plan->measure > DEMO_BENCH_MEASURE)
        plan = &default_plan;
    b->plan = *plan;
    while (b->stages < DEMO_BENCH_COUNTS && b->plan.counts[b->stages])
        b->stages++;
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
    uint32_t count = b->plan.counts[b->stage], warmup = b->plan.warmup;
    if (b->frame == 0)
        demo_set(app, DEMO_COUNT, count);
    /* the same slow orbit for every count, from the seed benchmark's viewpoint */
    b->orbit_time += seconds > 0.1 ? 0.1 : seconds;
    demo_app_pose_camera(app, 0.55f + 0.08f * (float)b->orbit_time, 0.32f, 55.0f);
    snprintf(b->progress, sizeof b->progress, "benchmark: %u instances, %s %u/%u\n", count,
             b->frame < warmup ? "warming up" : "measuring", b->frame < warmup ? b->frame : b->frame - warmup,
             b->frame < warmup ? warmup : b->plan.measure);
}

static void finish(demo_bench *b)
{
    int n = snprintf(b->report, sizeof b->report,
                     "benchmark on %s: medians of %d frames after %d warm-up\n"
                     "instances  frame ms    fps   cpu ms  draws  submitted  triangles\n",
                     b->renderer, (int)b->plan.measure, (int)b->plan.warmup);
    for (int i = 0; i < b->stages; i++) {
        const demo_bench_row *r = &b->rows[i];
        n += snprintf(b->report + n, sizeof b->report - (size_t)n, "%9u %9.2f %6.1f %8.2f %6u %10u %9.2fM\n", r->count,
                      r->frame_ms, r->frame_ms > 0 ? 1000.0 / r->frame_ms : 0.0, r->cpu_ms, r->draws, r->submitted,
                      (double)r->triangles / 1e6);
    }
    printf("%s", b->report);
    fflush(stdout);
    b->stage = -1;
}

void demo_bench_record(demo_bench *b, double frame_ms, double cpu_ms, uint32_t submitted, uint32_t draws,
                       uint64_t triangles)
{
    if (!demo_bench_running(b))
        return;
    uint32_t f = b->frame++, warmup = b->plan.warmup, measure = b->plan.measure;
    if (f < warmup)
        return;
    b->frame_ms[f - warmup] = frame_ms;
    b->cpu_ms[f - warmup] = cpu_ms;
    if (f + 1 < warmup + measure)
        return;
    demo_bench_row *row = &b->rows[b->stage];
    row->count = b->plan.counts[b->stage];
    row->frame_ms = demo_bench_median(b->frame_ms, measure);
    row->cpu_ms = demo_bench_median(b->cpu_ms, measure);
    row->draws = draws;
    row->submitted = submitted;
    row->triangles = triangles;
    b->frame = 0;
    if (++b->stage == b->stages)
        finish(b);
}
