/* The GPU-driven path (compute cull, LOD, compaction, indirect draws) against the CPU reference on
 * Mesa llvmpipe, desktop GL 4.5 core through EGL surfaceless. The compacted partitions are read back
 * here (a test may stall; the renderer never does). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "common/view_matrices.h"
#include "crowdbake/gl.h"
#include "gl/gl_api.h"
#include "gl/gpu_crowd.h"
#include "gl_fixture.h"
#include "test_support.h"

#define W 480
#define H 320

static crowd_bake_output baked;
static crowd_asset asset;
static tool_gl gl;

static void look(crowd_view *v, float ex, float ey, float ez, float tx, float ty, float tz)
{
    const float eye[3] = {ex, ey, ez}, target[3] = {tx, ty, tz}, up[3] = {0, 1, 0};
    cb_look_at(v->view, eye, target, up);
    cb_perspective(v->projection, 50.0f * 3.14159265f / 180.0f, (float)W / H, 0.1f, 500.0f);
    v->viewport_height = H;
}

/* make_crowd's clips: walk for all, or (true) every clip in turn, so culling meets every clip's sphere */
static bool mixed_clips;

static crowd *make_crowd(uint32_t n, crowd_lod_policy policy, float chunk, uint64_t seed, float spread)
{
    crowd_desc d = {.asset = &asset,
                    .capacity = n,
                    .world_size = 200.0f,
                    .chunk_size = chunk,
                    .lod_policy = policy,
                    .far_pool = -1};
    crowd *c = NULL;
    if (crowd_create(&d, &c, NULL) != CROWD_OK)
        exit(1);
    crowd_set_count(c, n);
    uint64_t rng = seed;
    uint32_t walk = clip_or_die(&asset, "walk");
    for (uint32_t i = 0; i < n; i++) {
        float x = (float)(test_uniform(&rng) * 2.0 - 1.0) * spread,
              z = (float)(test_uniform(&rng) * 2.0 - 1.0) * spread;
        crowd_set_transform(c, i, x, 0.0f, z, (float)(test_uniform(&rng) * 6.28));
        crowd_set_scale(c, i, 0.7f + 0.6f * (float)test_uniform(&rng));
        crowd_variant v = {{(uint8_t)(37 * i), (uint8_t)(200 - 13 * i), (uint8_t)(90 + 31 * i)}, {0}, 0};
        for (int k = 0; k < 6; k++)
            v.region_choice[k] = (uint8_t)(i + k);
        crowd_set_variant(c, i, &v);
        uint32_t clip = mixed_clips ? i % asset.clip_count : walk;
        crowd_play(c, i, clip, 1.0f / asset.clips[clip].duration, 0.0f);
        crowd_set_phase(c, i, (float)test_uniform(&rng));
    }
    return c;
}

/* A renderer on `path` with a band between mesh levels of `band` (crowd_gl_desc.lod_band). */
static crowd_gl_renderer *make_band_renderer(const crowd *c, crowd_gl_path path, float band)
{
    crowd_gl_desc d = {
        .asset = &asset, .capacity = crowd_record_capacity(c), .shadow_map_size = 1024, .path = path, .lod_band = band};
    return gl_fixture_renderer(&d, 200.0f);
}

/* Without a band between mesh levels: exactly the CPU policy's levels. */
static crowd_gl_renderer *make_renderer(const crowd *c, crowd_gl_path path)
{
    return make_band_renderer(c, path, -1.0f);
}

static void light_matrix(const crowd_gl_renderer *r, float light[16])
{
    float l = sqrtf(0.3f * 0.3f + 0.85f * 0.85f + 0.45f * 0.45f);
    const float sun[3] = {0.3f / l, 0.85f / l, 0.45f / l}, centre[3] = {0, 0, 0};
    crowd_gl_fit_shadow(r, sun, centre, 40.0f, light);
}

/* The GPU's partitions: level of every slot in the colour pass (-1: not drawn) and in the shadow
 * pass; fails the test if a slot appears twice in one pass. */
static void read_levels(const crowd_gl_renderer *r, uint32_t slots, int *colour, int *shadow, uint32_t *hist,
                        uint32_t *casters)
{
    const crowd_gpu_layer *g = crowd_gpu_crowd_layer(r);
    uint32_t counts[CROWD_GPU_MAX_PARTITIONS], *ids = malloc((size_t)g->partition_count * g->partition_capacity * 4);
    crowd_gpu_layer_read(g, counts, ids);
    for (uint32_t s = 0; s < slots; s++)
        colour[s] = shadow[s] = -1;
    uint32_t levels = g->partition_count / 2, twice = 0, bad = 0;
    *casters = 0;
    for (uint32_t p = 0; p < g->partition_count; p++) {
        int *out = p < levels ? colour : shadow;
        if (p < levels)
            hist[p] = counts[p];
        else
            *casters += counts[p];
        for (uint32_t k = 0; k < counts[p]; k++) {
            uint32_t s = ids[(size_t)p * g->partition_capacity + k];
            if (s >= slots) {
                bad++;
                continue;
            }
            twice += out[s] >= 0;
            out[s] = (int)(p % levels);
        }
    }
    CHECKF(!twice && !bad, "%u slots drawn twice in one pass, %u ids out of range", twice, bad);
    free(ids);
}

/* One frame of the GPU path's cull for the crowd's current frame. */
static const crowd_frame *cull(crowd *c, crowd_gl_renderer *r, const crowd_view *v, const float light[16])
{
    const crowd_frame *f = crowd_update(c, 0.0f, v);
    CHECK(crowd_gl_upload(r, f, NULL) == CROWD_OK);
    crowd_gl_cull(r, f, v, light);
    return f;
}

/* The coverage level of crowd_lod.c, for instances the CPU does not classify (shadow casters out of
 * view) and for the band's expected split. */
static float coverage_of(const crowd_view *v, const crowd_record *rec, float centre[3], float *radius)
{
    const float *m = v->view;
    float eye[3];
    for (int i = 0; i < 3; i++)
        eye[i] = -(m[i * 4] * m[12] + m[i * 4 + 1] * m[13] + m[i * 4 + 2] * m[14]);
    centre[0] = rec->position[0];
    centre[1] = rec->position[1] + asset.sphere_center_y * rec->scale;
    centre[2] = rec->position[2];
    *radius = asset.sphere_radius * rec->scale;
    float d[3] = {centre[0] - eye[0], centre[1] - eye[1], centre[2] - eye[2]};
    float dist = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    return dist > *radius ? *radius * v->projection[5] / dist : 1e9f;
}

/* Bands off: the GPU's visible set and levels equal the CPU coverage policy's, instance by instance,
 * for several views; shadow casters equal a brute-force reference (light frustum, level <= max). */
static void bands_off_match_the_cpu(void)
{
    static const float views[4][6] = {
        {0, 6, 30, 0, 1, 0}, {40, 20, 40, 0, 0, 0}, {-10, 2, -5, 30, 1, -60}, {0, 80, 1, 0, 0, 0}};
    mixed_clips = true;
    for (int k = 0; k < 4; k++) {
        crowd *c = make_crowd(4000, CROWD_LOD_SCREEN_COVERAGE, 8.0f, 7 + (uint64_t)k, 90.0f);
        crowd_gl_renderer *r = make_renderer(c, k == 0 ? CROWD_GL_PATH_DEFAULT : CROWD_GL_PATH_GPU);
        REQUIRE(crowd_gl_get_path(r) == CROWD_GL_PATH_GPU); /* the default is AUTO: GPU on desktop GL 4.3+ */
        crowd_view v = {0};
        look(&v, views[k][0], views[k][1], views[k][2], views[k][3], views[k][4], views[k][5]);
        float light[16];
        light_matrix(r, light);
        const crowd_frame *f = cull(c, r, &v, light);
        uint32_t slots = f->record_count;
        int *cpu = malloc(slots * sizeof(int)), *colour = malloc(slots * sizeof(int)),
            *shadow = malloc(slots * sizeof(int));
        for (uint32_t s = 0; s < slots; s++)
            cpu[s] = -1;
        for (uint32_t d = 0; d < f->draw_count; d++)
            for (uint32_t s = f->draws[d].first; s < f->draws[d].first + f->draws[d].count; s++)
                cpu[s] = (int)f->draws[d].lod;
        uint32_t hist[CROWD_MAX_LODS] = {0}, casters = 0;
        read_levels(r, slots, colour, shadow, hist, &casters);
        uint32_t differ = 0, visible = 0, expected_casters = 0, caster_differ = 0, cpu_casters = 0;
        const crowd_desc *st = crowd_settings(c);
        float light_planes[6][4];
        static const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
        crowd_frustum_planes(identity, light, light_planes);
        for (uint32_t s = 0; s < slots; s++) {
            differ += cpu[s] != colour[s];
            visible += cpu[s] >= 0;
            if (crowd_index_of_slot(c, s) == UINT32_MAX)
                continue;
            float centre[3], radius;
            test_cull_sphere(&asset, &f->records[s], f->time, centre, &radius);
            /* the CPU path's rule per instance: drawn by the camera, level <= shadow_max_lod, and
             * (the GPU's own cut) inside the light's frustum, by the instance's culling sphere */
            int level = cpu[s];
            bool casts = level >= 0 && level <= (int)st->shadow_max_lod && test_sphere_in(light_planes, centre, radius);
            cpu_casters += level >= 0 && level <= (int)st->shadow_max_lod;
            expected_casters += casts;
            caster_differ += casts != (shadow[s] >= 0) || (casts && shadow[s] != level);
        }
        for (uint32_t l = 0; l < asset.lod_count; l++)
            CHECKF(hist[l] == f->stats.lod_histogram[l], "view %d level %u: GPU %u, CPU %u", k, l, hist[l],
                   f->stats.lod_histogram[l]);
        CHECKF(differ == 0, "view %d: %u of %u slots differ (CPU visible %u)", k, differ, slots, visible);
        CHECKF(caster_differ == 0 && casters == expected_casters, "view %d: casters GPU %u, reference %u, %u differ", k,
               casters, expected_casters, caster_differ);
        uint32_t flagged = 0; /* the CPU path's casters: its draws flagged to cast */
        for (uint32_t d = 0; d < f->draw_count; d++)
            flagged += (f->draws[d].flags & CROWD_DRAW_SHADOW) ? f->draws[d].count : 0;
        CHECKF(flagged == cpu_casters && casters <= flagged, "view %d: CPU path casts %u (rule %u), GPU %u", k, flagged,
               cpu_casters, casters);
        printf("     view %d: %u visible, levels %u %u %u %u %u, %u casters (CPU path %u)\n", k, visible, hist[0],
               hist[1], hist[2], hist[3], hist[4], casters, flagged);
        CHECK(visible > 50 || k == 3);
        free(cpu);
        free(colour);
        free(shadow);
        crowd_gl_destroy(r);
        crowd_destroy(c);
    }
    mixed_clips = false;
}

/* Bands on: each instance drawn by exactly one level per pass, the same visible set as without a
 * band, and the number at each level or coarser within 4 sigma (+2) of the band's expectation:
 * level >= k iff the instance's random value r < t_{k-1}, t = (1 - ln(m / T') / ln(1 + w)) / 2,
 * T' the threshold with the dead band of a fresh instance (previous level 0). */
static void bands_split_as_expected(void)
{
    const float band = 0.4f;
    crowd *c = make_crowd(20000, CROWD_LOD_SCREEN_COVERAGE, 8.0f, 99, 95.0f);
    crowd_gl_renderer *r = make_band_renderer(c, CROWD_GL_PATH_GPU, band);
    crowd_view v = {0};
    look(&v, 0, 4, 60, 0, 1, 0);
    float light[16];
    light_matrix(r, light);
    const crowd_frame *f = crowd_update(c, 0.0f, &v);
    REQUIRE(crowd_gl_upload(r, f, NULL) == CROWD_OK);
    crowd_gl_cull(r, f, &v, light);
    uint32_t slots = f->record_count;
    int *colour = malloc(slots * sizeof(int)), *shadow = malloc(slots * sizeof(int));
    uint32_t hist[CROWD_MAX_LODS] = {0}, casters = 0;
    read_levels(r, slots, colour, shadow, hist, &casters);
    const crowd_desc *st = crowd_settings(c);
    double expected[CROWD_MAX_LODS] = {0}, variance[CROWD_MAX_LODS] = {0};
    uint32_t seen[CROWD_MAX_LODS] = {0}, visible_differ = 0, in_band = 0;
    for (uint32_t d = 0; d < f->draw_count; d++)
        for (uint32_t s = f->draws[d].first; s < f->draws[d].first + f->draws[d].count; s++) {
            visible_differ += colour[s] < 0;
            float centre[3], radius, m = coverage_of(&v, &f->records[s], centre, &radius) * st->lod_bias;
            for (uint32_t k = 1; k < asset.lod_count; k++) {
                float threshold = st->screen_coverage[k - 1] * (1.0f - st->hysteresis);
                double t = 0.5 * (1.0 - log(m / threshold) / log1p(band));
                t = t < 0 ? 0 : t > 1 ? 1 : t;
                expected[k] += t;
                variance[k] += t * (1 - t);
                in_band += t > 0 && t < 1;
                seen[k] += colour[s] >= (int)k;
            }
        }
    uint32_t drawn = 0;
    for (uint32_t s = 0; s < slots; s++)
        drawn += colour[s] >= 0;
    CHECKF(visible_differ == 0 && drawn == f->stats.submitted, "the band changed visibility: %u missing, %u vs %u",
           visible_differ, drawn, f->stats.submitted);
    CHECKF(in_band > 500, "only %u instance-boundaries inside a band", in_band);
    for (uint32_t k = 1; k < asset.lod_count; k++) {
        double tolerance = 4.0 * sqrt(variance[k]) + 2.0;
        printf("     level >= %u: %u drawn, %.1f expected (tolerance %.1f)\n", k, seen[k], expected[k], tolerance);
        CHECKF(fabs(seen[k] - expected[k]) <= tolerance, "level >= %u: %u vs %.1f expected", k, seen[k], expected[k]);
    }
    free(colour);
    free(shadow);
    crowd_gl_destroy(r);
    crowd_destroy(c);
}

/* The vertex budget on the GPU against the CPU's exact rule, same view: nobody hidden, the indices
 * submitted fit, every instance at the CPU's level or coarser (the GPU demotes whole coverage
 * bins, so a superset of the CPU's smallest-first prefix), the same budget_satisfied; and an
 * impossible budget leaves everyone visible at the last level, unsatisfied. */
static void budget_fits_like_the_cpu(void)
{
    const uint32_t budgets[2] = {0, 1};
    for (int k = 0; k < 2; k++) {
        crowd *c = make_crowd(6000, CROWD_LOD_SCREEN_COVERAGE, 8.0f, 21, 60.0f);
        crowd_view v = {0};
        look(&v, 0, 5, 40, 0, 1, 0);
        crowd_desc d = *crowd_settings(c);
        const crowd_frame *f = crowd_update(c, 0.0f, &v);
        uint64_t unbudgeted = 0;
        for (uint32_t l = 0; l < asset.lod_count; l++)
            unbudgeted += (uint64_t)f->stats.lod_histogram[l] * asset.lods[l].index_count;
        d.vertex_budget = budgets[k] ? budgets[k] : (uint32_t)(unbudgeted * 0.6);
        REQUIRE(crowd_configure(c, &d, NULL) == CROWD_OK);
        crowd_gl_renderer *r = make_renderer(c, CROWD_GL_PATH_GPU);
        float light[16];
        light_matrix(r, light);
        f = cull(c, r, &v, light);
        uint32_t slots = f->record_count;
        int *cpu = malloc(slots * sizeof(int)), *colour = malloc(slots * sizeof(int)),
            *shadow = malloc(slots * sizeof(int));
        for (uint32_t s = 0; s < slots; s++)
            cpu[s] = -1;
        for (uint32_t i = 0; i < f->draw_count; i++)
            for (uint32_t s = f->draws[i].first; s < f->draws[i].first + f->draws[i].count; s++)
                cpu[s] = (int)f->draws[i].lod;
        uint32_t hist[CROWD_MAX_LODS] = {0}, casters = 0, hidden = 0, finer = 0, visible = 0;
        read_levels(r, slots, colour, shadow, hist, &casters);
        for (uint32_t s = 0; s < slots; s++) {
            visible += cpu[s] >= 0;
            hidden += (cpu[s] >= 0) != (colour[s] >= 0);
            finer += cpu[s] >= 0 && colour[s] < cpu[s];
        }
        uint64_t indices = 0;
        for (uint32_t l = 0; l < asset.lod_count; l++)
            indices += (uint64_t)hist[l] * asset.lods[l].index_count;
        glFinish();
        for (int i = 0; i < 4; i++)
            crowd_gl_cull(r, f, &v, light);
        const crowd_gl_gpu_stats *gs = crowd_gl_get_gpu_stats(r);
        printf("     budget %u (unbudgeted %llu): GPU %llu indices, %u demoted (CPU %u), satisfied GPU %d CPU %d\n",
               d.vertex_budget, (unsigned long long)unbudgeted, (unsigned long long)indices, gs->demoted,
               f->stats.demoted, gs->budget_satisfied, f->stats.budget_satisfied);
        CHECKF(!hidden && visible > 1000, "%u of %u visible instances hidden or added", hidden, visible);
        CHECKF(!finer, "%u instances finer than the CPU's level", finer);
        CHECK(gs->valid && gs->budget_satisfied == f->stats.budget_satisfied);
        CHECK(gs->demoted >= f->stats.demoted);
        if (f->stats.budget_satisfied)
            CHECKF(indices <= d.vertex_budget && indices >= d.vertex_budget * 0.8, "%llu indices for %u",
                   (unsigned long long)indices, d.vertex_budget);
        else
            CHECK(hist[asset.lod_count - 1] == visible);
        free(cpu);
        free(colour);
        free(shadow);
        crowd_gl_destroy(r);
        crowd_destroy(c);
    }
}

/* Hysteresis state lives in a GPU buffer: an instance at level 1 that comes a little closer than the
 * threshold (inside the dead band) stays at 1, as the CPU policy's would; closer still, it takes
 * level 0; a fresh renderer at the dead-band distance picks 0 (no state). One chunk, so the
 * record keeps its slot. */
static void hysteresis_on_the_gpu(void)
{
    crowd *c = make_crowd(1, CROWD_LOD_DISTANCE, 400.0f, 1, 0.0f);
    crowd_set_transform(c, 0, 0.0f, 0.0f, 0.0f, 0.0f);
    crowd_set_scale(c, 0, 1.0f);
    crowd_desc d = *crowd_settings(c);
    d.lod_policy = CROWD_LOD_SCREEN_COVERAGE; /* GPU classification; live range [0, 1) either way */
    crowd_view v = {0};
    look(&v, 0, 0, 10, 0, 0, 0);
    float t0 = 0.0f;
    { /* the coverage policy's resolved thresholds */
        crowd_desc cd = {.asset = &asset, .capacity = 1, .lod_policy = CROWD_LOD_SCREEN_COVERAGE};
        crowd *probe = NULL;
        REQUIRE(crowd_create(&cd, &probe, NULL) == CROWD_OK);
        memcpy(d.screen_coverage, crowd_settings(probe)->screen_coverage, sizeof d.screen_coverage);
        d.hysteresis = crowd_settings(probe)->hysteresis;
        crowd_destroy(probe);
        t0 = d.screen_coverage[0];
    }
    REQUIRE(crowd_configure(c, &d, NULL) == CROWD_OK); /* the frame carries it to the GPU pass */
    const float factors[3] = {0.5f, 1.0f + 0.5f * d.hysteresis, 1.0f + 1.5f * d.hysteresis};
    const int expected[3] = {1, 1, 0};
    crowd_gl_renderer *r = make_renderer(c, CROWD_GL_PATH_GPU);
    for (int k = 0; k < 4; k++) {
        float coverage = t0 * factors[k < 3 ? k : 1];
        float dist = asset.sphere_radius * v.projection[5] / coverage, y = asset.sphere_center_y;
        look(&v, 0, y, dist, 0, y, 0);
        if (k == 3) { /* a fresh renderer: no state, the dead band's other side */
            crowd_gl_destroy(r);
            r = make_renderer(c, CROWD_GL_PATH_GPU);
        }
        const crowd_frame *f = crowd_update(c, 0.0f, &v);
        REQUIRE(crowd_gl_upload(r, f, NULL) == CROWD_OK);
        crowd_gl_cull(r, f, &v, NULL);
        int colour[4], shadow[4];
        uint32_t hist[CROWD_MAX_LODS] = {0}, casters = 0, slots = f->record_count < 4 ? f->record_count : 4;
        read_levels(r, slots, colour, shadow, hist, &casters);
        int want = k < 3 ? expected[k] : 0;
        CHECKF(colour[0] == want, "step %d (coverage %.3f x threshold): level %d, expected %d", k,
               (double)factors[k < 3 ? k : 1], colour[0], want);
    }
    crowd_gl_destroy(r);
    crowd_destroy(c);
}

/* The slot holding instance `index` (frame.slot_instances), or UINT32_MAX. */
static uint32_t slot_of(const crowd_frame *f, uint32_t index)
{
    for (uint32_t s = 0; s < f->record_count; s++)
        if (f->slot_instances[s] == index)
            return s;
    return UINT32_MAX;
}

/* Hysteresis state belongs to the instance: instance 0 is at level 1, then its record moves to
 * another slot (the coverage policy's sort by level: instance 2, near at first, walks out of view)
 * while it comes inside the dead band: it stays at 1, while instance 1 at the same coverage, with no
 * history, takes level 0. Its old slot, now instance 2's (culled), is not drawn. */
static void hysteresis_follows_the_instance(void)
{
    crowd *c = make_crowd(3, CROWD_LOD_SCREEN_COVERAGE, 8.0f, 1, 0.0f);
    const crowd_desc *d = crowd_settings(c);
    float y = asset.sphere_center_y;
    crowd_view v = {0};
    look(&v, 4, y, 0, 4, y, -1);
    float far = asset.sphere_radius * v.projection[5] / (0.5f * d->screen_coverage[0]),
          band = asset.sphere_radius * v.projection[5] / ((1.0f + 0.5f * d->hysteresis) * d->screen_coverage[0]);
    crowd_set_transform(c, 0, 4.5f, 0.0f, -sqrtf(far * far - 0.25f), 0.0f);
    crowd_set_transform(c, 1, 3.0f, 0.0f, -sqrtf(band * band - 1.0f), 0.0f);
    crowd_set_transform(c, 2, 4.0f, 0.0f, -6.0f, 0.0f);
    crowd_gl_renderer *r = make_renderer(c, CROWD_GL_PATH_GPU);
    uint32_t before = 0;
    for (int k = 0; k < 2; k++) {
        if (k == 1) { /* inside the dead band; instance 2 behind the camera */
            crowd_set_transform(c, 0, 3.5f, 0.0f, -sqrtf(band * band - 0.25f), 0.0f);
            crowd_set_transform(c, 2, 4.0f, 0.0f, 20.0f, 0.0f);
        }
        const crowd_frame *f = crowd_update(c, 0.0f, &v); /* (culled on the CPU too: records sorted by level) */
        REQUIRE(crowd_gl_upload(r, f, NULL) == CROWD_OK);
        crowd_gl_cull(r, f, &v, NULL);
        uint32_t slots = f->record_count, s0 = slot_of(f, 0), s1 = slot_of(f, 1);
        REQUIRE(s0 != UINT32_MAX && s1 != UINT32_MAX);
        int *colour = malloc(slots * sizeof(int)), *shadow = malloc(slots * sizeof(int));
        uint32_t hist[CROWD_MAX_LODS] = {0}, casters = 0, drawn = 0;
        read_levels(r, slots, colour, shadow, hist, &casters);
        for (uint32_t l = 0; l < asset.lod_count; l++)
            drawn += hist[l];
        if (k == 0) {
            CHECKF(colour[s0] == 1 && colour[s1] == 0, "start: levels %d %d, expected 1 0", colour[s0], colour[s1]);
            before = s0;
        } else {
            CHECKF(s0 != before, "instance 0 kept slot %u: the test moves nothing", s0);
            CHECKF(colour[s0] == 1, "moved from slot %u to %u inside the dead band: level %d, expected 1", before, s0,
                   colour[s0]);
            CHECKF(colour[s1] == 0, "instance 1 (no history, same coverage): level %d, expected 0", colour[s1]);
            CHECKF(before >= slots || colour[before] < 0, "the vacated slot %u is drawn", before);
        }
        CHECKF(drawn == (k == 0 ? 3u : 2u), "frame %d: %u drawn, expected %d", k, drawn, k == 0 ? 3 : 2);
        free(colour);
        free(shadow);
    }
    crowd_gl_destroy(r);
    crowd_destroy(c);
}

static void render(crowd *c, crowd_gl_renderer *r, const crowd_view *v, uint8_t *out)
{
    crowd_gl_scene s = test_default_scene();
    memcpy(s.view, v->view, sizeof s.view);
    memcpy(s.projection, v->projection, sizeof s.projection);
    const crowd_frame *f = crowd_update(c, 0.0f, v);
    REQUIRE(crowd_gl_upload(r, f, NULL) == CROWD_OK);
    float light[16];
    light_matrix(r, light);
    crowd_gl_cull(r, f, v, light);
    crowd_gl_render_shadows(r, f, light);
    gl_fixture_draw(&gl, r, f, &s, out);
}

static uint32_t differing(const uint8_t *a, const uint8_t *b, int tolerance)
{
    uint32_t n = 0;
    for (int i = 0; i < W * H; i++) {
        int worst = 0;
        for (int k = 0; k < 3; k++) {
            int e = abs(a[3 * i + k] - b[3 * i + k]);
            worst = e > worst ? e : worst;
        }
        n += worst > tolerance;
    }
    return n;
}

/* The same view through both paths, coverage policy, bands off: the same levels per instance, so
 * the frames (VAT and bones, cross-fade, shadows, attachments) may differ in at most a handful of pixels. The
 * crowd stands inside the view so both paths' shadow casters are the same instances. */
static void frames_match_the_cpu_path(void)
{
    uint8_t *cpu = malloc(3 * W * H), *gpu = malloc(3 * W * H);
    mkdir("shots", 0755);
    for (int bones = 0; bones < 2; bones++) {
        crowd *c = make_crowd(600, CROWD_LOD_SCREEN_COVERAGE, 8.0f, 5, 12.0f);
        crowd_gl_renderer *rc = make_renderer(c, CROWD_GL_PATH_CPU), *rg = make_renderer(c, CROWD_GL_PATH_GPU),
                          *rb = make_band_renderer(c, CROWD_GL_PATH_GPU, 0.0f); /* the default band */
        crowd_gl_mode mode = bones ? CROWD_GL_BONES : CROWD_GL_VAT;
        REQUIRE(crowd_gl_set_mode(rc, mode) == CROWD_OK && crowd_gl_set_mode(rg, mode) == CROWD_OK &&
                crowd_gl_set_mode(rb, mode) == CROWD_OK);
        /* a big cap on every other instance, up to level 3 (levels past it draw none on either path) */
        static const float cap_p[] = {-0.3f, 0, -0.3f, 0.3f, 0, -0.3f, 0.3f, 0, 0.3f, -0.3f, 0, 0.3f, 0, 0.36f, 0};
        static const float cap_n[] = {-0.6f, 0.5f,  -0.6f, 0.6f, 0.5f, -0.6f, 0.6f, 0.5f,
                                      0.6f,  -0.6f, 0.5f,  0.6f, 0,    1,     0};
        static const uint32_t cap_i[] = {0, 2, 1, 0, 3, 2, 0, 4, 3, 3, 4, 2, 2, 4, 1, 1, 4, 0};
        crowd_gl_attachment_desc cap = {cap_p, cap_n, 5, cap_i, 18, "head", {230, 20, 200, 255}, 0, 3};
        REQUIRE(crowd_gl_add_attachment(rc, &cap, NULL, NULL) == CROWD_OK);
        REQUIRE(crowd_gl_add_attachment(rg, &cap, NULL, NULL) == CROWD_OK);
        REQUIRE(crowd_gl_add_attachment(rb, &cap, NULL, NULL) == CROWD_OK);
        for (uint32_t i = 0; i < 600; i += 2) {
            crowd_variant w = {{(uint8_t)(37 * i), (uint8_t)(200 - 13 * i), (uint8_t)(90 + 31 * i)}, {0}, 1};
            for (int k = 0; k < 6; k++)
                w.region_choice[k] = (uint8_t)(i + k);
            crowd_set_variant(c, i, &w);
        }
        uint32_t run = clip_or_die(&asset, "run");
        for (uint32_t i = 0; i < 600; i += 3) /* some mid-fade */
            crowd_play(c, i, (uint32_t)run, 1.0f / asset.clips[run].duration, 2.0f);
        crowd_view v = {0};
        look(&v, 0, 9, 34, 0, 0, 0);
        crowd_update(c, 0.5f, &v);
        render(c, rc, &v, cpu);
        render(c, rg, &v, gpu);
        uint32_t n = differing(cpu, gpu, 8);
        tool_write_png(bones ? "shots/gpu_path_bones.png" : "shots/gpu_path_vat.png", gpu, W, H, NULL);
        uint32_t covered = 0;
        for (int i = 0; i < W * H; i++)
            covered += abs(cpu[3 * i] - 230) > 8;
        printf("     %s: %u pixels differ (of %u covered)\n", bones ? "bones" : "vat", n, covered);
        CHECKF(n <= 16, "%s: %u pixels differ between the CPU and GPU paths", bones ? "bones" : "vat", n);
        CHECK(covered > W * H / 4);
        const crowd_gl_gpu_stats *gs = crowd_gl_get_gpu_stats(rg);
        CHECK(gs->passes_run >= 1);
        /* with the default band, the frame stays close: a stated bound on the differing fraction */
        render(c, rb, &v, gpu);
        n = differing(cpu, gpu, 8);
        printf("     %s with the default band: %u pixels differ\n", bones ? "bones" : "vat", n);
        CHECKF(n <= W * H / 50, "band: %u pixels differ", n);
        crowd_gl_destroy(rc);
        crowd_gl_destroy(rg);
        crowd_gl_destroy(rb);
        crowd_destroy(c);
    }
    free(cpu);
    free(gpu);
}

/* The GPU path's pass counters now: passes run, passes skipped. */
static void pass_counts(const crowd_gl_renderer *r, unsigned long long out[2])
{
    const crowd_gl_gpu_stats *gs = crowd_gl_get_gpu_stats(r);
    out[0] = gs->passes_run;
    out[1] = gs->passes_skipped;
}

/* Skip-when-unchanged: a still camera over a settled crowd runs no pass; moving the camera or an
 * instance runs one; an instance moving by extrapolation (a velocity, no upload) runs one every
 * frame, and once it stops the pass is skipped again; the stats arrive a few frames late without
 * being waited for. */
static void skip_cache(void)
{
    crowd *c = make_crowd(2000, CROWD_LOD_DISTANCE, 400.0f, 3, 40.0f);
    crowd_gl_renderer *r = make_renderer(c, CROWD_GL_PATH_GPU);
    crowd_view v = {0};
    look(&v, 0, 6, 50, 0, 1, 0);
    float light[16];
    light_matrix(r, light);
    const crowd_gl_gpu_stats *gs = crowd_gl_get_gpu_stats(r);
    const crowd_frame *f = NULL;
    for (int i = 0; i < 5; i++) {
        f = crowd_update(c, 1.0f / 30.0f, &v);
        REQUIRE(crowd_gl_upload(r, f, NULL) == CROWD_OK);
        crowd_gl_cull(r, f, &v, light);
    }
    CHECK(!f->stats.extrapolating); /* clips play in place: the time is not in the key */
    CHECKF(gs->passes_run == 1 && gs->passes_skipped == 4, "still: %llu run, %llu skipped",
           (unsigned long long)gs->passes_run, (unsigned long long)gs->passes_skipped);
    crowd_set_transform(c, 17, 3.0f, 0.0f, 3.0f, 0.0f);
    f = crowd_update(c, 1.0f / 30.0f, &v);
    REQUIRE(crowd_gl_upload(r, f, NULL) == CROWD_OK);
    crowd_gl_cull(r, f, &v, light);
    CHECKF(gs->passes_run == 2, "moving an instance: %llu run", (unsigned long long)gs->passes_run);
    look(&v, 1, 6, 50, 0, 1, 0);
    f = crowd_update(c, 1.0f / 30.0f, &v);
    REQUIRE(crowd_gl_upload(r, f, NULL) == CROWD_OK);
    crowd_gl_cull(r, f, &v, light);
    CHECKF(gs->passes_run == 3, "moving the camera: %llu run", (unsigned long long)gs->passes_run);
    /* pitch is in the key (the per-instance sphere test is fully 3D, unlike the grass's horizontal
     * chunk test): looking a little lower from the same place runs the pass */
    look(&v, 1, 6, 50, 0, 0.5f, 0);
    f = crowd_update(c, 1.0f / 30.0f, &v);
    REQUIRE(crowd_gl_upload(r, f, NULL) == CROWD_OK);
    crowd_gl_cull(r, f, &v, light);
    CHECKF(gs->passes_run == 4, "pitching: %llu run", (unsigned long long)gs->passes_run);
    crowd_desc settings = *crowd_settings(c);
    settings.lod_bias = 2.0f;
    REQUIRE(crowd_configure(c, &settings, NULL) == CROWD_OK); /* the frame brings them to the pass */
    f = crowd_update(c, 0.0f, &v);
    REQUIRE(crowd_gl_upload(r, f, NULL) == CROWD_OK);
    crowd_gl_cull(r, f, &v, light);
    CHECKF(gs->passes_run == 5, "changing the LOD settings: %llu run", (unsigned long long)gs->passes_run);
    glFinish(); /* the test may wait; the stats then arrive with the next polls */
    for (int i = 0; i < 4; i++)
        crowd_gl_cull(r, f, &v, light);
    uint32_t total = 0;
    for (uint32_t l = 0; l < CROWD_MAX_LODS; l++)
        total += gs->submitted[l];
    CHECKF(gs->valid && total > 100 && total <= 2000, "late stats: valid %d, %u submitted", gs->valid, total);
    CHECK(gs->passes_skipped == 8);
    /* one instance walks by its velocity under the still camera: its position changes with the
     * time alone, so every frame runs the pass (uploads or not) */
    REQUIRE(crowd_set_velocity(c, 17, 1.5f, 0.0f) == CROWD_OK);
    unsigned long long before[2], after[2];
    pass_counts(r, before);
    bool extrapolating = true;
    for (int i = 0; i < 6; i++) {
        f = crowd_update(c, 1.0f / 30.0f, &v);
        extrapolating &= f->stats.extrapolating;
        REQUIRE(crowd_gl_upload(r, f, NULL) == CROWD_OK);
        crowd_gl_cull(r, f, &v, light);
    }
    CHECK(extrapolating);
    pass_counts(r, after);
    unsigned long long moving_run = after[0] - before[0], moving_skipped = after[1] - before[1];
    CHECKF(moving_run == 6 && moving_skipped == 0, "extrapolating: %llu run, %llu skipped of 6", moving_run,
           moving_skipped);
    /* it stops: one pass for the record's change, then nothing extrapolates and the pass is skipped */
    REQUIRE(crowd_set_velocity(c, 17, 0.0f, 0.0f) == CROWD_OK);
    pass_counts(r, before);
    extrapolating = false;
    for (int i = 0; i < 6; i++) {
        f = crowd_update(c, 1.0f / 30.0f, &v);
        extrapolating |= f->stats.extrapolating;
        REQUIRE(crowd_gl_upload(r, f, NULL) == CROWD_OK);
        crowd_gl_cull(r, f, &v, light);
    }
    CHECK(!extrapolating);
    pass_counts(r, after);
    unsigned long long stopped_run = after[0] - before[0], stopped_skipped = after[1] - before[1];
    CHECKF(stopped_run == 1 && stopped_skipped == 5, "stopped: %llu run, %llu skipped of 6", stopped_run,
           stopped_skipped);
    printf(
        "     a velocity under a still camera: %llu run, %llu skipped of 6 frames; stopped: %llu run, %llu skipped\n",
        moving_run, moving_skipped, stopped_run, stopped_skipped);
    /* a frame without a shadow pass (no light) keeps the last shadow pass's casters in the stats */
    glFinish();
    for (int i = 0; i < 3; i++)
        crowd_gl_cull(r, f, &v, light);
    uint32_t casters = gs->shadow_casters;
    uint64_t shadow_triangles = gs->shadow_triangles;
    pass_counts(r, before);
    crowd_gl_cull(r, f, &v, NULL);
    glFinish();
    for (int i = 0; i < 3; i++)
        crowd_gl_cull(r, f, &v, NULL);
    pass_counts(r, after);
    CHECKF(after[0] == before[0] + 1 && gs->frames_late == 0 && casters > 0 && gs->shadow_casters == casters &&
               gs->shadow_triangles == shadow_triangles,
           "no light: %llu run, %u late, casters %u then %u", after[0] - before[0], gs->frames_late, casters,
           gs->shadow_casters);
    printf("     a pass without a light: %u casters kept from the last one with a light\n", gs->shadow_casters);
    crowd_gl_destroy(r);
    crowd_destroy(c);
}

/* Who culls is the renderer's to say (crowd_gl_view): the CPU path gets a CPU-culled view, the GPU
 * path a GPU-culled one with its attachments' reach as the margin; a frame left to a GPU pass that
 * the renderer cannot cull is refused with the reason, never drawn empty in silence. */
static void renderer_fills_the_view(void)
{
    crowd *c = make_crowd(300, CROWD_LOD_DISTANCE, 8.0f, 4, 12.0f);
    crowd_gl_renderer *rc = make_renderer(c, CROWD_GL_PATH_CPU), *rg = make_renderer(c, CROWD_GL_PATH_GPU);
    crowd_view v = {0}, vc, vg;
    look(&v, 0, 9, 34, 0, 0, 0);
    crowd_gl_view(rc, v.view, v.projection, 720.0f, &vc);
    crowd_gl_view(rg, v.view, v.projection, 720.0f, &vg);
    CHECK(vc.culling == CROWD_CULLING_CPU && vg.culling == CROWD_CULLING_GPU);
    CHECK(vc.cull_margin == 0.0f && vg.cull_margin == 0.0f && !memcmp(vg.view, v.view, sizeof v.view));
    crowd_gl_scene scene = test_default_scene();
    memcpy(scene.view, v.view, sizeof scene.view);
    memcpy(scene.projection, v.projection, sizeof scene.projection);
    scene.shadows = false;
    const crowd_frame *f = crowd_update(c, 0.0f, &vg);
    REQUIRE(f && f->culling == CROWD_CULLING_GPU && f->draw_count == 0 && f->settings == crowd_settings(c));
    REQUIRE(crowd_gl_upload(rc, f, NULL) == CROWD_OK && crowd_gl_upload(rg, f, NULL) == CROWD_OK);
    CHECK(crowd_gl_draw(rc, f, &scene) == CROWD_ERROR_ARGUMENT && strstr(crowd_gl_last_error(rc), "crowd_gl_view"));
    CHECK(crowd_gl_draw(rg, f, &scene) == CROWD_ERROR_ARGUMENT && strstr(crowd_gl_last_error(rg), "crowd_gl_cull"));
    crowd_gl_cull(rg, f, &vg, NULL);
    CHECK(crowd_gl_draw(rg, f, &scene) == CROWD_OK);
    crowd_gl_destroy(rc);
    crowd_gl_destroy(rg);
    crowd_destroy(c);
}

int main(void)
{
    gl_fixture_open_desktop(W, H, &gl, &baked, &asset);
    RUN_TEST(bands_off_match_the_cpu);
    RUN_TEST(bands_split_as_expected);
    RUN_TEST(hysteresis_on_the_gpu);
    RUN_TEST(hysteresis_follows_the_instance);
    RUN_TEST(budget_fits_like_the_cpu);
    RUN_TEST(frames_match_the_cpu_path);
    RUN_TEST(skip_cache);
    RUN_TEST(renderer_fills_the_view);
    gl_fixture_close(&gl, &baked, &asset);
    TEST_MAIN_END();
}
