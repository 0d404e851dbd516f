/* The in-app benchmark (key B): fixed counts, a fixed slow orbit, warm-up then measured frames;
 * medians of the true frame time and of the CPU time, reported as a table. */
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

typedef struct demo_bench {
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

void demo_bench_start(demo_bench *bench, double restore_count, const char *renderer);
/* Before a frame: sets the count and the camera for the current stage. */
void demo_bench_step(demo_bench *bench, demo_app *app, double seconds);
/* After a frame: records it. */
void demo_bench_record(demo_bench *bench, double frame_ms, double cpu_ms, const crowd_frame *frame,
                       const crowd_gl_stats *gl);
bool demo_bench_running(const demo_bench *bench);
const char *demo_bench_report(const demo_bench *bench);
const char *demo_bench_text(const demo_bench *bench);     /* progress while running, else the report */
double demo_bench_median(double *values, uint32_t count); /* sorts values */

/* app.c: puts the orbit camera at a pose (the benchmark flies its own path). */
void demo_app_pose_camera(demo_app *app, float yaw, float pitch, float distance);

#endif
