/* crowd-bench: the runtime's CPU cost per frame, no renderer. The scene reproduces the seed
 * toolkit's benchmark so numbers compare: world 420 m, chunks 24 m, camera at (28, 16, 44) looking
 * at (0, 1.2, 0), 58 deg vertical fov at 16:9, near 0.3, far 900, LOD distances 6/14/34/80 m,
 * 26 round obstacles (radius 1.9 m) on a spiral, wander scenario, separation on up to 40,000
 * agents, dt 1/60, 15 warm-up frames, medians of 60 frames. "MB writ" / "% arr": bytes of records the
 * simulation rewrote per frame, and their share of the live record array (steady walkers cost none:
 * the GPU extrapolates their motion). "t/memcpy": total over a memcpy of the record array. "p90": the
 * 90th percentile of the frames' totals (work that comes every few frames, which a median hides). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_raycast.h"
#include "bench_sockets.h"
#include "bench_world.h"
#include "common/view_matrices.h"
#include "crowdbake/crowd.h"
#include "crowdbake/hits.h"
#include "crowdbake/sim.h"
#include "showcase/scene.h"
#include "tool_support.h"
#ifdef CROWD_BENCH_RENDER
#include "bench_compare.h"
#include "bench_render.h"
#include "bench_velocity.h"
#endif

/* Warm-up frames (--warmup). The default 15 keeps numbers comparable with earlier sessions, but it
 * measures the quiet start: spawned agents walk straight until their first wander decision 2-6 s
 * in, so nobody turns in frames 15-75. From about 7 s on (420) the crowd is in its steady state
 * (a third of the agents turning at any time). */
static uint32_t bench_warmup = 15;
static uint32_t bench_offscreen; /* --offscreen-interval: crowd_sim_desc.offscreen_interval (0 = its default) */
#define DEFAULT_FRAMES 60

typedef struct bench_row {
    uint32_t count, threads;
    bool separation;
    double sim, separation_ms, chunk_lod, gather, output, total, best, p90, memcpy_ms;
    double mb_uploaded, triangles, draws, submitted;
    double written;           /* bytes of records the simulation rewrote per frame (median) */
    double asleep;            /* agents the simulation skipped per frame (median) */
    double separated;         /* agents the separation took per frame (median) */
    double events, events_ms; /* crowd_frame.event_count and stats.ms_events (medians) */
    uint32_t events_dropped;  /* over every measured frame */
    uint32_t lod[CROWD_MAX_LODS];
} bench_row;

static void usage(FILE *out)
{
    fprintf(out, "usage: crowd-bench [asset.crowd] [--counts 1000,10000,...] [--frames n] [--warmup n] "
                 "[--threads 1,2,0] [--offscreen-interval n] [--coverage] [--events] [--json]\n"
                 "       crowd-bench [asset.crowd] --render cpu|gpu [--path cpu|gpu] [--counts ...] [--frames n]\n"
                 "                   [--static] [--still] [--imposters on|off] [--imposter-distance m] [--gl-debug]\n"
                 "                   [--velocity]\n"
                 "       crowd-bench [asset.crowd] --compare [--counts 100,300,1000,10000] [--frames n]\n"
                 "       crowd-bench [asset.crowd] --raycast [--counts 100000,1000000]\n"
                 "       crowd-bench [asset.crowd] --sockets [--counts 10000,100000]\n"
                 "       crowd-bench [asset.crowd] --menagerie [--counts 3000,30000,90000] [--frames n]\n"
                 "\n"
                 "Runtime CPU cost per frame (simulation, chunk grid + LOD, gather, total) on the seed's\n"
                 "benchmark scene, medians over the frames (best: the fastest frame; p90: the 90th\n"
                 "percentile of the total, where a step that costs more every few frames shows). Without\n"
                 "an asset, bakes the humanoid first.\n"
                 "--render draws every frame headless through EGL (desktop GL) on the CPU path or the GPU-driven\n"
                 "path (--path is the same option) and reports the render path's CPU ms per call and each\n"
                 "pass's GPU ms (timer queries); --static: no simulation, a settled crowd (everyone\n"
                 "stands where spawned, playing its clip in place), --still: the camera does not orbit\n"
                 "(with --static the GPU path then skips its cull pass). --imposters on: the imposter\n"
                 "level (cards) from --imposter-distance metres (default 44: where a 32-texel tile spans the\n"
                 "card's height in the 720-row view), the earlier level ends clamped to it; an asset without\n"
                 "an atlas gets one baked first (crowd-bake --imposters' defaults). Default off.\n"
                 "--gl-debug (with --render): GL errors checked after every upload and pass, as crowd-shot's and\n"
                 "crowd-demo's; the first error fails the run (each check is a round trip: slower timings).\n"
                 "--velocity (with --render): the colour pass's GPU ms with motion vectors (crowd_gl_desc.velocity)\n"
                 "off and on, two renderers alternated frame by frame, timed by their own timer queries.\n"
                 "--compare: classic skinning (each agent posed on the CPU from the rig's clips, its own palette\n"
                 "and draw call) against the VAT crowd, CPU ms per frame and the ratio (needs the asset's rig:\n"
                 "the humanoid, or its glTF source).\n"
                 "--raycast: crowd_raycast's cost per round (crowd_hits_update's per frame), against brute force.\n"
                 "--sockets: the CPU socket query's cost per instance (crowd_socket_transforms over every live\n"
                 "instance and over a shuffled list, crowd_socket_transform one by one, crowd_bone_transforms).\n"
                 "--menagerie: the asset and two critters in one crowd_world (the separation across kinds on\n"
                 "and off) against the asset alone with the same total, ms per frame and the ratio.\n"
                 "--coverage: the screen-coverage LOD policy (per-instance levels) instead of distance (also\n"
                 "with --render).\n"
                 "--warmup: simulated frames before the measured ones (default 15: the quiet start, before\n"
                 "the first wander decisions 2-6 s in; 420 (7 s) or more: the steady state, a third of the\n"
                 "agents turning at any time).\n"
                 "--events: crowd_desc.marker_events on: every walker's footsteps (the bake's footstep markers)\n"
                 "reported as events; a line per count gives the events per frame and their ms.\n"
                 "--threads: crowd_desc.threads for each run (0 = the machine's cores; default 1); with more\n"
                 "than one, every count runs at each and a scaling table follows (total ms, speed-up over\n"
                 "the first, total / memcpy of the record array).\n"
                 "--offscreen-interval: crowd_sim_desc.offscreen_interval (default 0: the sim's, 8; 4 re-plans\n"
                 "chunks outside the view as often as the visible far ones).\n");
}

/* A plain memcpy of the record array, best of several: what the gather (keeping records in draw
 * order) once was, a full copy of every record per frame; it now moves only the instances that
 * changed chunk, so the ratio shows how far below that it stays. */
static double memcpy_ms(size_t bytes)
{
    uint8_t *a = malloc(bytes), *b = malloc(bytes);
    double best = 1e9;
    if (!a || !b) {
        free(a);
        free(b);
        return NAN;
    }
    memset(a, 1, bytes);
    memset(b, 2, bytes);
    for (int i = 0; i < 15; i++) {
        double t0 = tool_now_ms();
        memcpy(b, a, bytes);
        double t = tool_now_ms() - t0;
        best = t < best ? t : best;
        a[i] = b[bytes - 1 - (size_t)i]; /* keep the copies observable */
    }
    free(a);
    free(b);
    return best;
}

static bool bench_coverage; /* --coverage: the screen-coverage LOD policy instead of distance */
static bool bench_events;   /* --events: crowd_desc.marker_events on (the footsteps of every walker) */

static int run_count(const crowd_asset *asset, uint32_t count, int separation, uint32_t threads, uint32_t frames,
                     bench_row *row)
{
    crowd_desc desc = {
        .asset = asset, .capacity = count, .world_size = 420.0f, .chunk_size = 24.0f, .threads = threads};
    if (bench_coverage)
        desc.lod_policy = CROWD_LOD_SCREEN_COVERAGE;
    desc.marker_events = bench_events ? 1 : 0;
    crowd *c = NULL;
    crowd_sim *sim = NULL;
    crowd_error err;
    crowd_obstacle obstacles[SHOWCASE_OBSTACLES];
    showcase_scene_obstacles(obstacles);
    if (crowd_create(&desc, &c, &err) != CROWD_OK) {
        fprintf(stderr, "crowd-bench: %s\n", err.message);
        return 1;
    }
    crowd_sim_desc sd = {.target = c,
                         .scenario = CROWD_SCENARIO_WANDER,
                         .obstacles = obstacles,
                         .obstacle_count = SHOWCASE_OBSTACLES,
                         .separation = separation,
                         .seed = 7,
                         .offscreen_interval = bench_offscreen};
    if (crowd_sim_create(&sd, &sim, &err) != CROWD_OK || crowd_sim_spawn(sim, count) != CROWD_OK) {
        fprintf(stderr, "crowd-bench: %s\n", err.message);
        crowd_sim_destroy(sim);
        crowd_destroy(c);
        return 1;
    }
    crowd_view view = {0};
    showcase_scene_bench_view(&view);
    double *t_sim = calloc(frames, sizeof(double)), *t_sep = calloc(frames, sizeof(double));
    double *t_lod = calloc(frames, sizeof(double)), *t_gather = calloc(frames, sizeof(double));
    double *t_out = calloc(frames, sizeof(double)), *t_total = calloc(frames, sizeof(double));
    double *up = calloc(frames, sizeof(double)), *wr = calloc(frames, sizeof(double));
    double *zz = calloc(frames, sizeof(double)), *sp = calloc(frames, sizeof(double));
    double *ev = calloc(frames, sizeof(double)), *ev_ms = calloc(frames, sizeof(double));
    memset(row, 0, sizeof *row);
    row->count = count;
    row->threads = threads;
    row->best = 1e9;
    for (uint32_t f = 0; f < bench_warmup + frames; f++) {
        double t0 = tool_now_ms();
        crowd_sim_step(sim, 1.0f / 60.0f);
        const crowd_frame *frame = crowd_update(c, 1.0f / 60.0f, &view);
        double total = tool_now_ms() - t0;
        if (f < bench_warmup)
            continue;
        uint32_t i = f - bench_warmup;
        const crowd_sim_stats *ss = crowd_sim_get_stats(sim);
        const crowd_stats *st = &frame->stats;
        t_sim[i] = ss->ms_step;
        t_sep[i] = ss->ms_separation;
        t_lod[i] = st->ms_bin + st->ms_lod;
        t_gather[i] = st->ms_gather;
        t_out[i] = st->ms_output;
        t_total[i] = total;
        up[i] = st->bytes_uploaded / (1024.0 * 1024.0);
        wr[i] = (double)ss->rewritten * sizeof(crowd_record);
        zz[i] = ss->asleep;
        sp[i] = ss->separated;
        ev[i] = frame->event_count;
        ev_ms[i] = st->ms_events;
        row->events_dropped += st->events_dropped;
        row->best = total < row->best ? total : row->best;
        if (i == frames - 1) {
            row->triangles = (double)st->triangles;
            row->draws = st->draws;
            row->submitted = st->submitted;
            memcpy(row->lod, st->lod_histogram, sizeof row->lod);
            row->separation = ss->separation_active;
        }
    }
    row->sim = tool_median(t_sim, frames);
    row->separation_ms = tool_median(t_sep, frames);
    row->chunk_lod = tool_median(t_lod, frames);
    row->gather = tool_median(t_gather, frames);
    row->output = tool_median(t_out, frames);
    row->total = tool_median(t_total, frames);
    row->p90 = t_total[(frames * 9 + 9) / 10 - 1]; /* sorted by tool_median */
    row->mb_uploaded = tool_median(up, frames);
    row->written = tool_median(wr, frames);
    row->asleep = tool_median(zz, frames);
    row->separated = tool_median(sp, frames);
    row->events = tool_median(ev, frames);
    row->events_ms = tool_median(ev_ms, frames);
    row->memcpy_ms = memcpy_ms((size_t)count * sizeof(crowd_record));
    free(t_sim);
    free(t_sep);
    free(t_lod);
    free(t_gather);
    free(t_out);
    free(t_total);
    free(up);
    free(wr);
    free(zz);
    free(sp);
    free(ev);
    free(ev_ms);
    crowd_sim_destroy(sim);
    crowd_destroy(c);
    return 0;
}

static void print_table(const crowd_asset *a, const bench_row *rows, uint32_t n)
{
    printf("crowd-bench: medians of frames after %u warm-up, ms per frame (thr: crowd_desc.threads, 0 = cores); "
           "offscreen_interval %u (0: the sim's default)\n",
           bench_warmup, bench_offscreen);
    printf("%9s %3s %4s %7s %7s %7s %7s %7s %7s %7s %7s %6s %7s %8s %8s %9s %6s %8s %6s %7s %6s  LOD split",
           "instances", "thr", "sep", "sim", "of sep", "chunk", "gather", "output", "total", "best", "p90", "ns/i",
           "memcpy", "g/memcpy", "t/memcpy", "triangles", "MB up", "MB writ", "% arr", "% awake", "% sep");
    printf("\n");
    for (uint32_t i = 0; i < n; i++) {
        const bench_row *r = &rows[i];
        printf("%9u %3u %4s %7.3f %7.3f %7.3f %7.3f %7.3f %7.3f %7.3f %7.3f %6.1f %7.3f %8.2f %8.2f %8.2fM %6.2f %8.3f "
               "%6.2f "
               "%7.2f %6.2f ",
               r->count, r->threads, r->separation ? "on" : "off", r->sim, r->separation_ms, r->chunk_lod, r->gather,
               r->output, r->total, r->best, r->p90, r->total * 1e6 / r->count, r->memcpy_ms, r->gather / r->memcpy_ms,
               r->total / r->memcpy_ms, r->triangles / 1e6, r->mb_uploaded, r->written / (1024.0 * 1024.0),
               100.0 * r->written / ((double)r->count * sizeof(crowd_record)), 100.0 - 100.0 * r->asleep / r->count,
               100.0 * r->separated / r->count);
        for (uint32_t l = 0; l < a->lod_count; l++)
            printf(" L%u:%u", l, r->lod[l]);
        printf("\n");
    }
    for (uint32_t i = 0; bench_events && i < n; i++)
        printf("events: %u instances: %.0f per frame (median), %.3f ms of the update (median), %u dropped\n",
               rows[i].count, rows[i].events, rows[i].events_ms, rows[i].events_dropped);
}

/* Rows come thread setting by thread setting, each with the same counts in the same order. */
static void print_scaling(const bench_row *rows, uint32_t n, uint32_t settings)
{
    uint32_t per = n / settings;
    printf("\nscaling: total ms per frame (x: speed-up over thr %u; /mc: total / memcpy of the records)\n",
           rows[0].threads);
    printf("%9s %4s", "instances", "sep");
    for (uint32_t t = 0; t < settings; t++)
        printf("   thr %-2u      x   /mc", rows[t * per].threads);
    printf("\n");
    for (uint32_t i = 0; i < per; i++) {
        printf("%9u %4s", rows[i].count, rows[i].separation ? "on" : "off");
        for (uint32_t t = 0; t < settings; t++) {
            const bench_row *r = &rows[t * per + i];
            printf(" %8.3f %6.2f %5.2f", r->total, rows[i].total / r->total, r->total / r->memcpy_ms);
        }
        printf("\n");
    }
}

static void print_json(const crowd_asset *a, const bench_row *rows, uint32_t n)
{
    printf("{\"warmup\":%u,\"offscreen_interval\":%u,\"rows\":[", bench_warmup, bench_offscreen);
    for (uint32_t i = 0; i < n; i++) {
        const bench_row *r = &rows[i];
        printf("%s{\"instances\":%u,\"threads\":%u,\"separation\":%s,\"sim_ms\":%.4f,\"separation_ms\":%.4f,\"chunk_"
               "lod_ms\":%.4f,"
               "\"gather_ms\":%.4f,\"output_ms\":%.4f,\"total_ms\":%.4f,\"best_ms\":%.4f,\"p90_ms\":%.4f,\"ns_per_"
               "instance\":%.2f,"
               "\"memcpy_ms\":%.4f,\"gather_over_memcpy\":%.3f,\"total_over_memcpy\":%.3f,\"mb_uploaded\":%.3f,"
               "\"record_bytes_written\":%.0f,\"agents_awake\":%.0f,\"agents_separated\":%.0f,\"triangles\":%.0f,"
               "\"draws\":%.0f,\"submitted\":%.0f,\"events\":%.0f,\"events_ms\":%.4f,\"events_dropped\":%u,\"lods\":[",
               i ? "," : "", r->count, r->threads, r->separation ? "true" : "false", r->sim, r->separation_ms,
               r->chunk_lod, r->gather, r->output, r->total, r->best, r->p90, r->total * 1e6 / r->count, r->memcpy_ms,
               r->gather / r->memcpy_ms, r->total / r->memcpy_ms, r->mb_uploaded, r->written, r->count - r->asleep,
               r->separated, r->triangles, r->draws, r->submitted, r->events, r->events_ms, r->events_dropped);
        for (uint32_t l = 0; l < a->lod_count; l++)
            printf("%s%u", l ? "," : "", r->lod[l]);
        printf("]}");
    }
    printf("]}\n");
}

int main(int argc, char **argv)
{
    const char *asset_path = NULL, *counts_text = "1000,10000,25000,50000,100000,250000,1000000";
    uint32_t frames = DEFAULT_FRAMES, threads[8] = {1}, thread_settings = 1;
    const char *threads_text = NULL;
    bool json = false, frames_given = false, render = false, sim_on = true, still = false, compare = false;
    bool counts_given = false, raycast = false, sockets = false, menagerie = false, gl_debug = false, velocity = false;
    int render_path = 0; /* 1 cpu, 2 gpu */
    bool imposters = false;
    float imposter_distance = 44.0f;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return tool_finish_stdout("crowd-bench", 0);
        } else if (!strcmp(argv[i], "--compare")) {
            compare = true;
        } else if (!strcmp(argv[i], "--sockets")) {
            sockets = true;
        } else if (!strcmp(argv[i], "--raycast")) {
            raycast = true;
        } else if (!strcmp(argv[i], "--menagerie")) {
            menagerie = true;
        } else if (!strcmp(argv[i], "--json")) {
            json = true;
        } else if (!strcmp(argv[i], "--counts") || !strcmp(argv[i], "--frames") || !strcmp(argv[i], "--render") ||
                   !strcmp(argv[i], "--path") || !strcmp(argv[i], "--threads") || !strcmp(argv[i], "--imposters") ||
                   !strcmp(argv[i], "--imposter-distance") || !strcmp(argv[i], "--warmup") ||
                   !strcmp(argv[i], "--offscreen-interval")) {
            if (i + 1 >= argc)
                return tool_missing_value("crowd-bench", argv[i]);
            if (!strcmp(argv[i], "--counts")) {
                counts_text = argv[++i];
                counts_given = true;
                continue;
            }
            if (!strcmp(argv[i], "--warmup")) {
                if (!tool_parse_u32(argv[++i], 0, 100000, &bench_warmup)) {
                    fprintf(stderr, "crowd-bench: --warmup %s: expected a whole number in 0..100000\n", argv[i]);
                    return 2;
                }
                continue;
            }
            if (!strcmp(argv[i], "--threads")) {
                threads_text = argv[++i];
                continue;
            }
            if (!strcmp(argv[i], "--offscreen-interval")) {
                /* (the bench's sims take the default lod_interval, 4) */
                if (!tool_parse_u32(argv[++i], 0, 64, &bench_offscreen) || (bench_offscreen && bench_offscreen % 4)) {
                    fprintf(stderr,
                            "crowd-bench: --offscreen-interval %s: expected 0 or a multiple of the lod_interval (4) "
                            "up to 64\n",
                            argv[i]);
                    return 2;
                }
                continue;
            }
            if (!strcmp(argv[i], "--imposters")) {
                const char *o = argv[++i];
                if (strcmp(o, "on") && strcmp(o, "off")) {
                    fprintf(stderr, "crowd-bench: --imposters needs on or off\n");
                    return 2;
                }
                imposters = !strcmp(o, "on");
                continue;
            }
            if (!strcmp(argv[i], "--imposter-distance")) {
                char *end = NULL;
                imposter_distance = strtof(argv[++i], &end);
                if (!end || *end || !(imposter_distance >= 1.0f && imposter_distance <= 10000.0f)) {
                    fprintf(stderr, "crowd-bench: --imposter-distance %s: expected metres in 1..10000\n", argv[i]);
                    return 2;
                }
                continue;
            }
            if (!strcmp(argv[i], "--frames")) {
                if (!tool_parse_u32(argv[++i], 3, 100000, &frames)) {
                    fprintf(stderr,
                            "crowd-bench: --frames %s: expected a whole number in 3..100000 (45 or more "
                            "without --render)\n",
                            argv[i]);
                    return 2;
                }
                frames_given = true;
                continue;
            }
            const char *v = argv[++i];
            if (strcmp(v, "cpu") && strcmp(v, "gpu")) {
                fprintf(stderr, "crowd-bench: %s needs cpu or gpu\n", argv[i - 1]);
                return 2;
            }
            render = true;
            render_path = !strcmp(v, "gpu") ? 2 : 1;
        } else if (!strcmp(argv[i], "--events")) {
            bench_events = true;
        } else if (!strcmp(argv[i], "--coverage")) {
            bench_coverage = true;
        } else if (!strcmp(argv[i], "--static")) {
            sim_on = false;
        } else if (!strcmp(argv[i], "--still")) {
            still = true;
        } else if (!strcmp(argv[i], "--gl-debug")) {
            gl_debug = true;
        } else if (!strcmp(argv[i], "--velocity")) {
            velocity = true;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "crowd-bench: unknown option %s (see --help)\n", argv[i]);
            return 2;
        } else if (asset_path) {
            fprintf(stderr, "crowd-bench: more than one input (%s and %s)\n", asset_path, argv[i]);
            return 2;
        } else {
            asset_path = argv[i];
        }
    }
    if (compare && !counts_given)
        counts_text = "100,300,1000,10000"; /* the seed's 300 vs 5,000 sits inside */
    if (raycast && !counts_given)
        counts_text = "100000,1000000";
    if (sockets && !counts_given)
        counts_text = "10000,100000";
    if (menagerie && !counts_given)
        counts_text = "3000,30000,90000";
    uint32_t n = 0;
    char **items = tool_split_list(counts_text, &n);
    uint32_t counts[32];
    bool ok = items && n <= 31;
    for (uint32_t i = 0; ok && i < n; i++)
        ok = tool_parse_u32(items[i], 1, 4000000, &counts[i]);
    free(items);
    if (!ok) {
        fprintf(stderr, "crowd-bench: --counts needs up to 31 comma-separated counts in 1..4000000\n");
        return 2;
    }

    if (threads_text) {
        char **list = tool_split_list(threads_text, &thread_settings);
        ok = list && thread_settings >= 1 && thread_settings <= 8;
        for (uint32_t i = 0; ok && i < thread_settings; i++)
            ok = tool_parse_u32(list[i], 0, CROWD_MAX_THREADS, &threads[i]);
        free(list);
        if (!ok) {
            fprintf(stderr, "crowd-bench: --threads needs up to 8 comma-separated counts in 0..%u\n",
                    CROWD_MAX_THREADS);
            return 2;
        }
    }
    if (velocity && !render) {
        fprintf(stderr, "crowd-bench: --velocity measures the render path: it needs --render cpu|gpu\n");
        return 2;
    }
    if (gl_debug && !render) {
        fprintf(stderr, "crowd-bench: --gl-debug checks the render path: it needs --render cpu|gpu\n");
        return 2;
    }
    if (!render && !compare && frames < 45) {
        fprintf(stderr, "crowd-bench: --frames needs 45..100000 without --render\n");
        return 2;
    }
#ifndef CROWD_BENCH_RENDER
    if (render || compare) {
        fprintf(stderr, "crowd-bench: built without GL, no --render or --compare\n");
        return 2;
    }
    (void)render_path, (void)frames_given, (void)sim_on, (void)still, (void)imposters, (void)imposter_distance,
        (void)gl_debug, (void)velocity; /* --render's settings */
#endif
    crowd_asset asset;
    crowd_error err;
    crowd_result r;
    crowd_bake_output baked = {0};
    if (asset_path) {
        r = crowd_asset_load_file(&asset, asset_path, &err);
    } else {
        r = tool_bake_humanoid(&baked, &err);
        if (r == CROWD_OK)
            r = crowd_asset_load_memory(&asset, baked.bytes, baked.size, &err);
    }
    if (r != CROWD_OK) {
        fprintf(stderr, "crowd-bench: %s\n", err.message);
        crowd_bake_output_free(&baked);
        return 1;
    }
    if (menagerie) {
        int rs = bench_world(&asset, counts, n, bench_warmup, frames);
        crowd_asset_free(&asset);
        crowd_bake_output_free(&baked);
        return tool_finish_stdout("crowd-bench", rs);
    }
    if (sockets) {
        int rs = bench_sockets(&asset, counts, n);
        crowd_asset_free(&asset);
        crowd_bake_output_free(&baked);
        return tool_finish_stdout("crowd-bench", rs);
    }
    if (raycast) {
        int rs = bench_raycast(&asset, counts, n);
        crowd_asset_free(&asset);
        crowd_bake_output_free(&baked);
        return tool_finish_stdout("crowd-bench", rs);
    }
#ifdef CROWD_BENCH_RENDER
    if (compare) {
        int rs = bench_compare(&asset, counts, n, frames_given ? frames : 10);
        crowd_asset_free(&asset);
        crowd_bake_output_free(&baked);
        return tool_finish_stdout("crowd-bench", rs);
    }
    if (render) {
        bench_render_options ro = {.path = render_path == 2 ? CROWD_GL_PATH_GPU : CROWD_GL_PATH_CPU,
                                   .frames = frames_given ? frames : 10,
                                   .sim_on = sim_on,
                                   .still = still,
                                   .coverage = bench_coverage,
                                   .gl_debug = gl_debug,
                                   .imposter_distance = imposters ? imposter_distance : 0.0f,
                                   .velocity = velocity};
        int rs = velocity ? bench_velocity(&asset, counts, n, &ro) : bench_render(&asset, counts, n, &ro);
        crowd_asset_free(&asset);
        crowd_bake_output_free(&baked);
        return rs;
    }
#endif
    bench_row rows[8 * 33];
    uint32_t row_count = 0;
    int status = 0;
    bool has_100k = false;
    for (uint32_t i = 0; i < n; i++)
        has_100k |= counts[i] == 100000;
    for (uint32_t t = 0; t < thread_settings && !status; t++) {
        for (uint32_t i = 0; i < n && !status; i++)
            status = run_count(&asset, counts[i], 0, threads[t], frames, &rows[row_count++]);
        if (!status && has_100k) /* the seed could not afford separation at 100k; we report it */
            status = run_count(&asset, 100000, 1, threads[t], frames, &rows[row_count++]);
    }
    if (!status) {
        if (json) {
            print_json(&asset, rows, row_count);
        } else {
            print_table(&asset, rows, row_count);
            if (thread_settings > 1)
                print_scaling(rows, row_count, thread_settings);
        }
    }
    crowd_asset_free(&asset);
    crowd_bake_output_free(&baked);
    return tool_finish_stdout("crowd-bench", status);
}
