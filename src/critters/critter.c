/* The capture: drive a critter at a fixed timestep, record its primitives every frame, find each
 * clip's best loop by pose + velocity signatures, and write the loop out as in-place vertex frames. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "critters/critter_internal.h"

#define SUBSTEPS 4
#define WARMUP_SECONDS 4.0 /* the speed lag (e^-4t) is below 1e-7 of the target by then */
#define CLIPS 3

static const char *const clip_names[CLIPS] = {"idle", "walk", "run"};

/* Digits only: strtoull would skip leading white space (" 1") where a trailing one is refused. */
static bool parse_seed(const char *s, uint32_t *seed)
{
    if (!(*s >= '0' && *s <= '9'))
        return false;
    char *end = NULL;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || v > UINT32_MAX)
        return false;
    *seed = (uint32_t)v;
    return true;
}

bool crowd_critter_parse(const char *text, crowd_critter_desc *desc)
{
    if (!text || !desc)
        return false;
    crowd_critter_desc d = {.seed = 1};
    char kind[16], seed[16];
    float fps = 0.0f;
    if (!strncmp(text, "critter ", 8)) {
        int used = 0;
        if (sscanf(text, "critter %15s seed=%15s fps=%f%n", kind, seed, &fps, &used) != 3 || text[used] ||
            !(fps >= 10.0f && fps <= 120.0f))
            return false;
        d.fps = fps;
    } else {
        const char *colon = strchr(text, ':');
        size_t n = colon ? (size_t)(colon - text) : strlen(text);
        if (n == 0 || n >= sizeof kind)
            return false;
        memcpy(kind, text, n);
        kind[n] = '\0';
        snprintf(seed, sizeof seed, "%s", colon ? colon + 1 : "1");
        if (colon && strlen(colon + 1) >= sizeof seed)
            return false;
    }
    if (!crowd_critter_kind_parse(kind, &d.kind) || !parse_seed(seed, &d.seed))
        return false;
    if (d.fps != 0.0f) { /* the recorded form only as the capture writes it (sscanf skips spaces) */
        char canonical[64];
        snprintf(canonical, sizeof canonical, "critter %s seed=%u fps=%g", crowd_critter_kind_name(d.kind), d.seed,
                 (double)d.fps);
        if (strcmp(canonical, text) != 0)
            return false;
    }
    *desc = d;
    return true;
}

/* ---- recording --------------------------------------------------------------------------------- */

typedef struct recording {
    uint32_t frames;
    prim_pose *poses; /* frames x prim count */
    double (*root)[3];
} recording;

/* Pose signature of one frame: every control point relative to the root (radii and axes as they
 * are), so a loop compares shapes, not where the critter has got to. */
static size_t signature(const prim_shape *shapes, int count, const prim_pose *p, const double root[3], float *out)
{
    size_t n = 0;
    for (int i = 0; i < count; i++) {
        const float *v = p[i].v;
        if (shapes[i].type == PRIM_ELLIPSOID) {
            for (int k = 0; k < 12; k++)
                out[n++] = (float)(v[k] - (k < 3 && k != 1 ? root[k] : 0.0));
        } else {
            for (int c = 0; c < shapes[i].points; c++)
                for (int k = 0; k < 4; k++)
                    out[n++] = (float)(v[4 * c + k] - (k < 3 && k != 1 ? root[k] : 0.0));
        }
    }
    return n;
}

/* The loop: the window [start, start + frames) whose frame after the end best continues into its
 * start, in pose and in velocity (a matching pose moving the other way would still pop). Among
 * lengths within 5 % of the best error the shortest wins: two cycles match as well as one. */
static void find_loop(const float *sig, size_t width, uint32_t recorded, uint32_t warm, uint32_t shortest,
                      uint32_t longest, uint32_t *start, uint32_t *frames)
{
    const double velocity_weight = 4.0;
    double best = INFINITY;
    double *per_length = crowd_malloc(sizeof(double) * (longest + 1));
    uint32_t *start_of = crowd_malloc(sizeof(uint32_t) * (longest + 1));
    if (!per_length || !start_of) { /* scratch for a search only: fall back to the shortest window */
        crowd_free(per_length), crowd_free(start_of);
        *start = warm, *frames = shortest;
        return;
    }
    for (uint32_t len = shortest; len <= longest; len++) {
        per_length[len] = INFINITY;
        start_of[len] = warm;
        for (uint32_t a = warm; a + len < recorded; a++) {
            const float *s0 = sig + a * width, *s1 = sig + (a + len) * width;
            const float *p0 = s0 - width, *p1 = s1 - width;
            double e = 0.0;
            for (size_t k = 0; k < width; k++) {
                double dp = (double)s1[k] - s0[k], dv = ((double)s1[k] - p1[k]) - ((double)s0[k] - p0[k]);
                e += dp * dp + velocity_weight * dv * dv;
            }
            if (e < per_length[len]) {
                per_length[len] = e;
                start_of[len] = a;
            }
        }
        best = fmin(best, per_length[len]);
    }
    *frames = longest, *start = start_of[longest];
    for (uint32_t len = shortest; len <= longest; len++)
        if (per_length[len] <= best * 1.05 + 1e-12) {
            *frames = len, *start = start_of[len];
            break;
        }
    crowd_free(per_length);
    crowd_free(start_of);
}

typedef struct critter_storage {
    float *positions;
    uint32_t *indices;
    uint16_t *parts;
    uint8_t *colors;
    crowd_frames_clip clips[CLIPS];
} critter_storage;

static void free_storage(critter_storage *s)
{
    if (!s)
        return;
    crowd_free(s->positions);
    crowd_free(s->indices);
    crowd_free(s->parts);
    crowd_free(s->colors);
    crowd_free(s);
}

/* Vertices of recorded frame f, moved in place: minus the loop's straight line of travel. */
static void frame_in_place(const prim_shape *shapes, int count, const recording *rec, uint32_t f, const double base[3],
                           double along, float *out, uint32_t vertices)
{
    critter_mesh_positions(shapes, rec->poses + (size_t)f * count, count, out);
    for (uint32_t v = 0; v < vertices; v++) {
        out[3 * v] = (float)(out[3 * v] - base[0]);
        out[3 * v + 2] = (float)(out[3 * v + 2] - (base[2] + along));
    }
}

/* One capture in progress: the simulation, its primitives and each clip's recording and loop. */
typedef struct capture {
    const critter_kind_ops *ops;
    critter_sim *sim;
    double fps, dt; /* capture rate; simulation step (SUBSTEPS per frame) */
    prim_shape shapes[CRITTER_MAX_PRIMS];
    int count; /* primitives */
    uint32_t vertices, index_count;
    recording recs[CLIPS];
    uint32_t starts[CLIPS], lengths[CLIPS]; /* each clip's loop, in recorded frames */
    double travelled[CLIPS];                /* root distance along z over the loop (0 for idle) */
    uint32_t total;                         /* loop frames of every clip */
    float *sig;                             /* one clip's signatures (scratch) */
} capture;

/* Records clip c from a reset through the warm-up and two of its longest cycles, and finds its
 * loop. False when out of memory. */
static bool record_clip(capture *cap, int c)
{
    const critter_kind_ops *ops = cap->ops;
    int count = cap->count;
    double lo, hi;
    ops->loop_range(cap->sim, c, &lo, &hi);
    uint32_t shortest = (uint32_t)ceil(lo * cap->fps), longest = (uint32_t)floor(hi * cap->fps);
    uint32_t warm = (uint32_t)ceil(WARMUP_SECONDS * cap->fps);
    size_t width = (size_t)count * CRITTER_POSE_FLOATS;
    recording *rc = &cap->recs[c];
    rc->frames = warm + 2 * longest + 2;
    rc->poses = crowd_malloc((size_t)rc->frames * count * sizeof(prim_pose));
    rc->root = crowd_malloc((size_t)rc->frames * sizeof *rc->root);
    crowd_free(cap->sig);
    cap->sig = crowd_malloc((size_t)rc->frames * width * sizeof(float));
    if (!rc->poses || !rc->root || !cap->sig)
        return false;
    ops->reset(cap->sim, c);
    for (uint32_t f = 0; f < rc->frames; f++) {
        for (int k = 0; f > 0 && k < SUBSTEPS; k++)
            ops->step(cap->sim, cap->dt);
        memset(rc->poses + (size_t)f * count, 0, (size_t)count * sizeof(prim_pose));
        ops->pose(cap->sim, rc->poses + (size_t)f * count, rc->root[f]);
    }
    size_t used = 0;
    for (uint32_t f = 0; f < rc->frames; f++)
        used = signature(cap->shapes, count, rc->poses + (size_t)f * count, rc->root[f], cap->sig + f * width);
    /* signatures are packed to `used` floats per frame */
    for (uint32_t f = 1; f < rc->frames; f++)
        memmove(cap->sig + f * used, cap->sig + f * width, used * sizeof(float));
    find_loop(cap->sig, used, rc->frames, warm, shortest, longest, &cap->starts[c], &cap->lengths[c]);
    cap->travelled[c] = rc->root[cap->starts[c] + cap->lengths[c]][2] - rc->root[cap->starts[c]][2];
    if (c == 0)
        cap->travelled[c] = 0.0; /* idle does not move (its root never leaves the origin) */
    cap->total += cap->lengths[c];
    return true;
}

/* The seam of clip c's loop: the frame after the loop against the loop's first frame (`head`),
 * both in place, and a typical step (the loop's second frame against its first) for scale.
 * `scratch` holds two frames. */
static void measure_seam(const capture *cap, int c, const float *head, float *scratch, crowd_critter_clip_stats *cs)
{
    const recording *rc = &cap->recs[c];
    uint32_t a = cap->starts[c], n = cap->lengths[c], vertices = cap->vertices;
    float *after = scratch, *second = scratch + (size_t)vertices * 3;
    frame_in_place(cap->shapes, cap->count, rc, a + n, rc->root[a], cap->travelled[c], after, vertices);
    frame_in_place(cap->shapes, cap->count, rc, a + 1, rc->root[a], cap->travelled[c] / n, second, vertices);
    double worst = 0.0, sum = 0.0, step_sum = 0.0;
    for (uint32_t v = 0; v < vertices; v++) {
        double d2 = 0.0, s2 = 0.0;
        for (int k = 0; k < 3; k++) {
            double d = (double)after[3 * v + k] - head[3 * v + k], s = (double)second[3 * v + k] - head[3 * v + k];
            d2 += d * d, s2 += s * s;
        }
        worst = fmax(worst, sqrt(d2));
        sum += d2, step_sum += s2;
    }
    cs->seam_max_m = worst;
    cs->seam_rms_m = sqrt(sum / vertices);
    cs->step_rms_m = sqrt(step_sum / vertices);
}

/* Clip c's loop as in-place vertex frames from frame `first` of the storage, its clip record and
 * its statistics. */
static void write_clip(const capture *cap, int c, uint32_t first, critter_storage *st, float *scratch,
                       crowd_critter *critter)
{
    const recording *rc = &cap->recs[c];
    uint32_t a = cap->starts[c], n = cap->lengths[c], vertices = cap->vertices;
    double per_frame = cap->travelled[c] / n;
    for (uint32_t k = 0; k < n; k++)
        frame_in_place(cap->shapes, cap->count, rc, a + k, rc->root[a], per_frame * k,
                       st->positions + (size_t)(first + k) * vertices * 3, vertices);
    crowd_critter_clip_stats *cs = &critter->clip_stats[c];
    measure_seam(cap, c, st->positions + (size_t)first * vertices * 3, scratch, cs);
    cs->loop_start = a;
    cs->loop_frames = n;
    cs->travelled_m = cap->travelled[c];
    cs->speed = cap->travelled[c] * cap->fps / n;
    st->clips[c] = (crowd_frames_clip){.name = clip_names[c],
                                       .first_frame = first,
                                       .frame_count = n,
                                       .fps = (float)cap->fps,
                                       .loop = true,
                                       .stride = (float)cap->travelled[c]};
}

/* Turns the triangles outwards and hands the storage to the critter with its frames' description. */
static void finish(const capture *cap, const crowd_critter_desc *desc, critter_storage *st, crowd_critter *critter)
{
    uint32_t vertices = cap->vertices;
    critter_mesh_orient(cap->shapes, cap->count, st->positions, st->indices);
    float lo = INFINITY, hi = -INFINITY;
    for (uint32_t v = 0; v < vertices; v++)
        lo = fminf(lo, st->positions[3 * v + 1]), hi = fmaxf(hi, st->positions[3 * v + 1]);
    critter->height = hi - lo;
    snprintf(critter->source_name, sizeof critter->source_name, "critter %s seed=%u fps=%g",
             crowd_critter_kind_name(desc->kind), desc->seed, cap->fps);
    critter->frames = (crowd_vertex_frames){.vertex_count = vertices,
                                            .index_count = cap->index_count,
                                            .frame_count = cap->total,
                                            .positions = st->positions,
                                            .indices = st->indices,
                                            .parts = st->parts,
                                            .part_count = (uint32_t)cap->count,
                                            .colors = st->colors,
                                            .clip_count = CLIPS,
                                            .clips = st->clips,
                                            .source_name = critter->source_name};
    critter->storage = st;
}

crowd_result crowd_critter_capture(const crowd_critter_desc *desc, crowd_critter *critter, crowd_error *error)
{
    if (!desc || !critter)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_critter_capture: NULL argument");
    memset(critter, 0, sizeof *critter);
    if ((unsigned)desc->kind >= CROWD_CRITTER_KIND_COUNT)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "critter: kind %u outside 0..%u", (unsigned)desc->kind,
                          CROWD_CRITTER_KIND_COUNT - 1);
    if (desc->fps != 0.0f && !(desc->fps >= 10.0f && desc->fps <= 120.0f))
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "critter: fps %g outside 10..120 (0 for 30)", (double)desc->fps);
    capture cap = {.ops = critter_ops(desc->kind), .fps = desc->fps != 0.0f ? desc->fps : 30.0};
    cap.dt = 1.0 / (cap.fps * SUBSTEPS);
    cap.sim = critter_sim_new(desc->kind);
    critter_storage *st = crowd_calloc(1, sizeof *st);
    float *scratch = NULL;
    crowd_result r = CROWD_OK;
    if (!cap.sim || !st)
        goto oom;
    critter_sim_set_fps(cap.sim, cap.fps);
    critter_rng rng;
    critter_rng_seed(&rng, ((uint64_t)desc->seed << 8) ^ (uint64_t)(desc->kind + 1) * 0x51ED27u);
    cap.count = cap.ops->build(cap.sim, &rng, cap.shapes);
    cap.vertices = critter_mesh_vertex_count(cap.shapes, cap.count);
    cap.index_count = critter_mesh_index_count(cap.shapes, cap.count);
    for (int c = 0; c < CLIPS; c++)
        if (!record_clip(&cap, c))
            goto oom;

    st->positions = crowd_malloc((size_t)cap.total * cap.vertices * 3 * sizeof(float));
    st->indices = crowd_malloc((size_t)cap.index_count * sizeof(uint32_t));
    st->parts = crowd_malloc((size_t)cap.vertices * sizeof(uint16_t));
    st->colors = crowd_malloc((size_t)cap.vertices * 4);
    scratch = crowd_malloc((size_t)cap.vertices * 3 * sizeof(float) * 2);
    if (!st->positions || !st->indices || !st->parts || !st->colors || !scratch)
        goto oom;
    critter_mesh_topology(cap.shapes, cap.count, st->indices, st->parts, st->colors);
    uint32_t first = 0;
    for (int c = 0; c < CLIPS; c++) {
        write_clip(&cap, c, first, st, scratch, critter);
        first += cap.lengths[c];
    }
    finish(&cap, desc, st, critter);
    st = NULL;
    goto done;
oom:
    r = crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "critter: out of memory");
    memset(critter, 0, sizeof *critter);
done:
    for (int c = 0; c < CLIPS; c++) {
        crowd_free(cap.recs[c].poses);
        crowd_free(cap.recs[c].root);
    }
    crowd_free(cap.sig);
    crowd_free(scratch);
    free_storage(st);
    critter_sim_delete(cap.sim);
    return r;
}

void crowd_critter_free(crowd_critter *critter)
{
    if (!critter)
        return;
    free_storage(critter->storage);
    memset(critter, 0, sizeof *critter);
}
