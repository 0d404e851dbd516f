/* The in-app benchmark (key B): fixed counts, a fixed slow orbit, warm-up then measured frames;
 * medians of the true frame time and of the CPU time, reported as a table. It measures whatever
 * the demo draws: the crowd, or every kind of the menagerie (the count is the total there). */
#ifndef CROWD_DEMO_BENCH_H
#define CROWD_DEMO_BENCH_H

#include "crowdbake/gl.h"
#include "demo/app.h"

#define DEMO_BENCH_COUNTS 4
#define DEMO_BENCH_WARMUP 30
#define DEMO_BENCH_MEASURE 90

typedef struct demo_bench_row {
    uint32_t count;
    double frame_ms, cpu_ms;
    uint32_t draws, submitted;
    uint64_t triangles;
} demo_bench_row;

/* A shorter run than the default (tests, the browser test): the counts (a 0 ends the list), the
 * warm-up frames and the measured frames (1..DEMO_BENCH_MEASURE). */
typedef struct demo_bench_plan {
    uint32_t counts[DEMO_BENCH_COUNTS];
    uint32_t warmup, measure;
} demo_bench_plan;

typedef struct demo_bench {
    demo_bench_plan plan;
    int stages;     /* counts in the plan */
    int stage;      /* index into the counts; -1 when idle */
    uint32_t frame; /* frames into the stage */
    double restore_count;
    double orbit_time;
    double frame_ms[DEMO_BENCH_MEASURE], cpu_ms[DEMO_BENCH_MEASURE];
    demo_bench_row rows[DEMO_BENCH_COUNTS];
    char renderer[96];
    char report[1024];
    char progress[96];
} demo_bench;

/* plan NULL: the default (1k, 10k, 50k, 100k; 30 warm-up and 90 measured frames each). A plan
 * without a count, or with measure outside 1..DEMO_BENCH_MEASURE, is taken as the default. */
void demo_bench_start(demo_bench *bench, double restore_count, const char *renderer, const demo_bench_plan *plan);
/* Before a frame: sets the count and the camera for the current stage. */
void demo_bench_step(demo_bench *bench, demo_app *app, double seconds);
/* After a frame: records it (what it drew: instances submitted, draws and triangles with the shadow pass's). */
void demo_bench_record(demo_bench *bench, double frame_ms, double cpu_ms, uint32_t submitted, uint32_t draws,
                       uint64_t triangles);
bool demo_bench_running(const demo_bench *bench);
const char *demo_bench_report(const demo_bench *bench);
const char *demo_bench_text(const demo_bench *bench);     /* progress while running, else the report */
double demo_bench_median(double *values, uint32_t count); /* sorts values */

/* app.c: puts the orbit camera at a pose (the benchmark flies its own path). */
void demo_app_pose_camera(demo_app *app, float yaw, float pitch, float distance);

#endif
