/* The grass field (crowdbake/grass.h) on Mesa llvmpipe through EGL surfaceless: the density curve
 * and prefixes, the GPU path's three partitions against the CPU reference of the same rules, the
 * skip cache, pixels of both paths (green, never blank, the same within a tolerance) and the crowd's
 * shadow on the blades.
 * `test_grass --es` runs the CPU path on an OpenGL ES 3.0 context (the WebGL2 shader dialect). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "common/cbmath.h"
#include "common/view_matrices.h"
#include "crowdbake/crowd.h"
#include "crowdbake/gl.h"
#include "crowdbake/grass.h"
#include "gl/gl_api.h"
#include "gl_context.h"
#include "grass/grass_testing.h"
#include "test_support.h"

#define W 480
#define H 270

static tool_gl gl;
static bool es;

static void scene_at(crowd_gl_scene *s, float ex, float ey, float ez, float tx, float ty, float tz)
{
    memset(s, 0, sizeof *s);
    const float eye[3] = {ex, ey, ez}, target[3] = {tx, ty, tz}, up[3] = {0, 1, 0};
    cb_look_at(s->view, eye, target, up);
    cb_perspective(s->projection, 58.0f * 3.14159265f / 180.0f, (float)W / H, 0.3f, 900.0f);
    const float sun[3] = {0.35f, 0.8f, 0.45f}, sun_color[3] = {1.6f, 1.5f, 1.3f}, sky[3] = {0.45f, 0.55f, 0.7f},
                ground[3] = {0.3f, 0.27f, 0.2f}, fog[3] = {0.7f, 0.75f, 0.8f};
    float len = sqrtf(sun[0] * sun[0] + sun[1] * sun[1] + sun[2] * sun[2]);
    for (int k = 0; k < 3; k++) {
        s->sun_direction[k] = sun[k] / len;
        s->sun_color[k] = sun_color[k];
        s->sky_color[k] = sky[k];
        s->ground_color[k] = ground[k];
        s->fog_color[k] = fog[k];
    }
    s->fog_density = 0.0011f;
}

/* A field from `d`, or NULL after printing why. */
static crowd_grass *create_or_report(const crowd_grass_desc *d)
{
    crowd_grass *g = NULL;
    crowd_error err = {0};
    if (crowd_grass_create(d, &g, &err) != CROWD_OK) {
        fprintf(stderr, "crowd_grass_create: %s\n", err.message);
        return NULL;
    }
    return g;
}

static crowd_grass *make(crowd_grass_path path, uint32_t blades)
{
    crowd_grass_desc d = {.blades = blades, .path = path, .es = es};
    return create_or_report(&d);
}

static void density_and_prefixes(void)
{
    crowd_grass_desc d = crowd_grass_resolve(NULL);
    CHECK(d.blades == 2000000u && d.extent == 220.0f && d.chunk_size == 8.0f);
    grass_layout l = grass_layout_of(&d);
    CHECKF(l.per_axis == 55 && l.chunks == 3025, "%u chunks per axis", l.per_axis);
    CHECK(crowd_grass_density(&d, 0.0f, 220.0f) == 1.0f && crowd_grass_density(&d, 28.0f, 220.0f) == 1.0f);
    CHECKF(fabsf(crowd_grass_density(&d, 220.0f, 220.0f) - 0.012f) < 1e-6f, "%g", crowd_grass_density(&d, 220, 220));
    /* continuous and non-increasing: no step anywhere along the curve */
    float last = 1.0f, worst = 0.0f;
    for (float x = 0.0f; x <= 230.0f; x += 0.05f) {
        float k = crowd_grass_density(&d, x, 220.0f);
        CHECK(k <= last + 1e-6f);
        worst = fmaxf(worst, last - k);
        last = k;
    }
    CHECKF(worst < 0.01f, "largest drop over 5 cm: %g", worst);
    /* the prefix of each chunk follows the curve at the chunk's nearest point */
    crowd_gl_scene s;
    scene_at(&s, 3.0f, 12.0f, 40.0f, 0.0f, 0.0f, 0.0f);
    grass_eye e = grass_eye_of(&d, s.view, s.projection, 0.0f, 0.0f);
    CHECKF(fabsf(e.x - 3.0f) < 1e-3f && fabsf(e.y - 12.0f) < 1e-3f && fabsf(e.z - 40.0f) < 1e-3f, "eye %g %g %g", e.x,
           e.y, e.z);
    uint32_t visible = 0, full = 0;
    for (uint32_t c = 0; c < l.chunks; c++) {
        uint32_t prefix;
        float dmin, dmax;
        if (!grass_chunk_test(&d, &l, &e, c, &prefix, &dmin, &dmax))
            continue;
        visible++;
        uint32_t n = grass_chunk_count(&l, c);
        uint32_t want = (uint32_t)ceilf((float)n * crowd_grass_density(&d, dmin, 220.0f));
        CHECK(prefix == (want < n ? want : n));
        if (dmin <= 28.0f) {
            CHECK(prefix == n);
            full++;
        }
    }
    printf("     %u of %u chunks visible, %u at full density\n", visible, l.chunks, full);
    CHECK(visible > 300 && visible < l.chunks && full > 20);
}

/* the GPU path's three partitions against the CPU reference, for several views */
static void partitions_match_the_cpu(void)
{
    if (es)
        return;
    crowd_grass *g = make(CROWD_GRASS_PATH_GPU, 0);
    REQUIRE(g);
    const crowd_grass_desc *d = grass_gl_desc(g);
    uint32_t n = d->blades;
    uint32_t *ids = malloc(sizeof(uint32_t) * 3 * (size_t)n);
    uint8_t *cpu_tier = malloc(n), *seen = malloc(n);
    REQUIRE(ids && cpu_tier && seen);
    static const float views[][6] = {
        {0, 1.7f, 30, 0, 0, 0}, {40, 6, -20, -10, 0, 10}, {-150, 25, 150, 0, 0, 0}, {0, 60, 0, 5, 0, 5}};
    for (size_t v = 0; v < sizeof views / sizeof views[0]; v++) {
        crowd_gl_scene s;
        scene_at(&s, views[v][0], views[v][1], views[v][2], views[v][3], views[v][4], views[v][5]);
        glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
        CHECK(crowd_grass_draw(g, NULL, &s, NULL) == CROWD_OK);
        uint32_t counts[3], ref[3];
        CHECK(grass_gl_read_partitions(g, counts, ids));
        grass_eye e = grass_gl_eye(g);
        grass_reference(d, &e, ref, cpu_tier);
        memset(seen, 0, n);
        uint32_t twice = 0, wrong = 0;
        for (uint32_t t = 0; t < 3; t++)
            for (uint32_t k = 0; k < counts[t] && k < n; k++) {
                uint32_t id = ids[(size_t)t * n + k];
                if (id >= n || seen[id]++)
                    twice++;
                else if (cpu_tier[id] != t)
                    wrong++;
            }
        uint32_t total = ref[0] + ref[1] + ref[2];
        printf("     view %zu: GPU near %u mid %u far %u; CPU %u %u %u; %u in two tiers, %u in another tier\n", v,
               counts[0], counts[1], counts[2], ref[0], ref[1], ref[2], twice, wrong);
        CHECK(twice == 0);
        CHECK(total > 1000);
        /* exact but for roots within float rounding of a rule's boundary: the shaders' acos, exp and
           pow are not libm's. Stated tolerance: 1 in 10,000 of the drawn roots */
        for (int t = 0; t < 3; t++)
            CHECKF(abs((int)counts[t] - (int)ref[t]) <= (int)(total / 10000), "tier %d: %u vs %u", t, counts[t],
                   ref[t]);
        CHECK(wrong <= total / 10000);
    }
    free(ids);
    free(cpu_tier);
    free(seen);
    crowd_grass_destroy(g);
}

static void skip_cache_on(crowd_grass_path path)
{
    crowd_grass *g = make(path, 200000);
    REQUIRE(g);
    crowd_gl_scene s;
    scene_at(&s, 10, 2.0f, 30, 0, 0, 0);
    crowd_grass_frame f = {.time = 0.0f, .wind = {0.3f, 0.1f}};
    CHECK(crowd_grass_draw(g, NULL, &s, &f) == CROWD_OK);
    const crowd_grass_stats *st = crowd_grass_get_stats(g);
    CHECK(st->passes_run == 1 && !st->last_skipped);
    f.time = 0.5f; /* wind moves, the camera does not */
    CHECK(crowd_grass_draw(g, NULL, &s, &f) == CROWD_OK);
    CHECK(st->passes_run == 1 && st->passes_skipped == 1 && st->last_skipped);
    scene_at(&s, 10, 2.0f, 30, 0, 3.0f, 0); /* the same eye and heading, pitched up */
    CHECK(crowd_grass_draw(g, NULL, &s, &f) == CROWD_OK);
    CHECKF(st->passes_run == 1 && st->passes_skipped == 2, "pitch-only: %llu run", (unsigned long long)st->passes_run);
    scene_at(&s, 10, 2.0f, 30, 5, 0, 0); /* heading turns */
    CHECK(crowd_grass_draw(g, NULL, &s, &f) == CROWD_OK);
    CHECK(st->passes_run == 2 && !st->last_skipped);
    f.budget = 0.5f; /* the budget is in the key */
    CHECK(crowd_grass_draw(g, NULL, &s, &f) == CROWD_OK);
    CHECK(st->passes_run == 3);
    crowd_grass_destroy(g);
}

static void skip_cache(void)
{
    skip_cache_on(CROWD_GRASS_PATH_CPU);
    if (!es)
        skip_cache_on(CROWD_GRASS_PATH_GPU);
}

static uint8_t *render(crowd_grass *g, const crowd_gl_scene *s)
{
    glClearColor(0.55f, 0.65f, 0.8f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    crowd_grass_frame f = {.time = 1.0f, .wind = {0.2f, 0.1f}};
    if (crowd_grass_draw(g, NULL, s, &f) != CROWD_OK)
        return NULL;
    uint8_t *rgb = malloc(W * H * 3);
    if (rgb)
        tool_gl_read_rgb(&gl, rgb);
    return rgb;
}

/* Mean absolute difference per channel of two W x H RGB frames; *off gets how many channels differ
 * by more than 24. */
static double frame_difference(const uint8_t *a, const uint8_t *b, uint32_t *off)
{
    double sum = 0.0;
    *off = 0;
    for (int i = 0; i < W * H * 3; i++) {
        int diff = abs((int)a[i] - (int)b[i]);
        sum += diff;
        *off += diff > 24;
    }
    return sum / (W * H * 3);
}

/* green-dominant pixels in the lower half (the ground) and the sky above */
static void check_green(const uint8_t *rgb, const char *what)
{
    uint32_t green = 0, lower = 0, black = 0;
    for (int y = H / 2; y < H; y++)
        for (int x = 0; x < W; x++, lower++) {
            const uint8_t *p = &rgb[3 * (y * W + x)];
            green += p[1] > p[0] && p[1] > p[2];
            black += p[0] + p[1] + p[2] < 15;
        }
    printf("     %s: %.1f %% of the lower half green-dominant, %.2f %% black\n", what, 100.0 * green / lower,
           100.0 * black / lower);
    CHECKF(green > lower * 6 / 10, "%s: %u of %u", what, green, lower);
    CHECK(black < lower / 100);
}

static void pixels(void)
{
    crowd_gl_scene s;
    scene_at(&s, 0.0f, 17.0f, 52.0f, 0.0f, 1.0f, 0.0f); /* the demo's first camera: orbit, 55 m, pitch 0.32 */
    crowd_grass *cpu = make(CROWD_GRASS_PATH_CPU, 0);
    REQUIRE(cpu);
    uint8_t *a = render(cpu, &s);
    REQUIRE(a);
    check_green(a, es ? "CPU path, GLES 3.0" : "CPU path, GL 3.3");
    tool_write_png(es ? "grass_cpu_es.png" : "grass_cpu.png", a, W, H, NULL);
    crowd_grass_destroy(cpu);
    if (!es) {
        crowd_grass *gpu = make(CROWD_GRASS_PATH_GPU, 0);
        REQUIRE(gpu);
        uint8_t *b = render(gpu, &s);
        REQUIRE(b);
        check_green(b, "GPU path, GL 4.3");
        tool_write_png("grass_gpu.png", b, W, H, NULL);
        uint32_t off;
        double mean = frame_difference(a, b, &off);
        printf("     CPU vs GPU path: mean difference %.3f / 255, %.3f %% of channels off by more than 24\n", mean,
               100.0 * off / (W * H * 3));
        /* stated tolerance: the same roots in the same tiers but for rounding at band edges */
        CHECK(mean < 1.0 && off < W * H * 3 / 200);
        free(b);
        crowd_grass_destroy(gpu);
    }
    free(a);
}

/* The field receives the crowd's shadows: a block of characters standing in the meadow, the shadow
 * map rendered by their renderer, the field drawn with and without it (the crowd itself not drawn, so
 * only the blades' lighting differs). Blades in the shadow get darker; none gets lighter. */
static void blades_receive_the_crowd_shadow(void)
{
    crowd_bake_output baked =
        bake_or_die(humanoid(), (crowd_bake_desc){.clip_names = (const char *const[]){"idle"}, .clip_name_count = 1});
    crowd_asset asset = {0};
    crowd_error err = {0};
    REQUIRE(crowd_asset_load_memory(&asset, baked.bytes, baked.size, &err) == CROWD_OK);
    crowd_desc cd = {.asset = &asset, .capacity = 64, .world_size = 100.0f, .chunk_size = 24.0f};
    crowd *c = NULL;
    crowd_gl_renderer *r = NULL;
    crowd_grass *g = make(CROWD_GRASS_PATH_CPU, 0);
    crowd_gl_desc gd = {
        .asset = &asset, .sizing_crowd = NULL, .path = CROWD_GL_PATH_CPU, .es = es, .shadow_map_size = 1024};
    if (crowd_create(&cd, &c, &err) != CROWD_OK || !g || crowd_gl_create(&gd, &r, &err) != CROWD_OK) {
        fprintf(stderr, "set-up: %s\n", err.message);
        CHECK(false);
        goto done;
    }
    crowd_set_count(c, 64);
    for (uint32_t i = 0; i < 64; i++) { /* an 8 x 8 block, 1.2 m apart, centred at the origin */
        crowd_set_transform(c, i, -4.2f + 1.2f * (float)(i % 8), 0.0f, -4.2f + 1.2f * (float)(i / 8), 0.0f);
        crowd_play(c, i, 0, 0.0f, 0.0f);
    }
    crowd_gl_scene s;
    scene_at(&s, 0.0f, 14.0f, 16.0f, 0.0f, 0.0f, 0.0f);
    crowd_view view = {.viewport_height = H};
    memcpy(view.view, s.view, sizeof view.view);
    memcpy(view.projection, s.projection, sizeof view.projection);
    const crowd_frame *f = crowd_update(c, 0.0f, &view);
    float light[16], centre[3] = {0, 0, 0};
    crowd_gl_fit_shadow(r, s.sun_direction, centre, 20.0f, light);
    CHECK(crowd_gl_upload(r, f, NULL) == CROWD_OK && crowd_gl_render_shadows(r, f, light) == CROWD_OK);
    uint8_t *frame[2] = {NULL, NULL};
    for (int lit = 0; lit < 2; lit++) {
        s.shadows = lit == 0;
        glClearColor(0.55f, 0.65f, 0.8f, 1.0f);
        glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
        crowd_grass_frame gf = {.time = 1.0f};
        CHECK(crowd_grass_draw(g, r, &s, &gf) == CROWD_OK);
        frame[lit] = malloc(W * H * 3);
        if (frame[lit])
            tool_gl_read_rgb(&gl, frame[lit]);
    }
    if (frame[0] && frame[1]) {
        uint32_t lighter, darker = test_count_darker(frame[0], frame[1], W * H, 24, 24, &lighter);
        tool_write_png(es ? "grass_shadow_es.png" : "grass_shadow.png", frame[0], W, H, NULL);
        printf("     the crowd's shadow on the blades: %u pixels darker, %u lighter\n", darker, lighter);
        CHECKF(darker > W * H / 100, "only %u pixels darkened", darker);
        CHECKF(lighter == 0, "%u pixels got lighter", lighter);
    }
    free(frame[0]);
    free(frame[1]);
done:
    crowd_gl_destroy(r);
    crowd_grass_destroy(g);
    crowd_destroy(c);
    crowd_asset_free(&asset);
    crowd_bake_output_free(&baked);
}

/* ---- the interaction fields ---- */

static void rebind_target(void)
{
    glBindFramebuffer(GL_FRAMEBUFFER, gl.fbo);
    glViewport(0, 0, W, H);
}

static void update(crowd_grass *g, const crowd_gl_scene *s, crowd_grass_fields *f)
{
    CHECK(crowd_grass_update_fields(g, NULL, s, f) == CROWD_OK);
    rebind_target();
}

/* the trail (B) of the trample texel under world (x, z), and the largest anywhere */
static int trail_at(crowd_grass *g, uint8_t *rgba, float x, float z, int *largest)
{
    const crowd_grass_desc *d = grass_gl_desc(g);
    bool read = grass_gl_read_field(g, 0, rgba);
    rebind_target();
    CHECK(read);
    if (!read)
        return -1;
    const crowd_grass_stats *st = crowd_grass_get_stats(g);
    int n = (int)d->trample_resolution;
    float texel = d->trample_extent / (float)n;
    int tx = (int)floorf((x - st->trample_origin[0]) / texel), tz = (int)floorf((z - st->trample_origin[1]) / texel);
    int most = 0;
    for (int i = 0; i < n * n; i++)
        most = rgba[4 * i + 2] > most ? rgba[4 * i + 2] : most;
    *largest = most;
    if (tx < 0 || tz < 0 || tx >= n || tz >= n)
        return -1;
    return rgba[4 * (tz * n + tx) + 2];
}

static void trample_trail(void)
{
    crowd_grass *g = make(CROWD_GRASS_PATH_CPU, 20000);
    REQUIRE(g);
    const crowd_grass_desc *d = grass_gl_desc(g);
    uint8_t *rgba = malloc((size_t)d->trample_resolution * d->trample_resolution * 4);
    REQUIRE(rgba);
    crowd_gl_scene s;
    scene_at(&s, 0.0f, 3.0f, 14.0f, 0.0f, 0.0f, 0.0f);
    const float actor[2] = {2.0f, 1.0f};
    crowd_grass_fields f = {.dt = 1.0f / 60.0f, .focus_set = true, .tramplers = actor, .trampler_count = 1};
    update(g, &s, &f);
    int most, at = trail_at(g, rgba, 2.0f, 1.0f, &most);
    int away = trail_at(g, rgba, 8.0f, 1.0f, &most);
    printf("     stamped: trail %d under the actor, %d 6 m away\n", at, away);
    CHECK(crowd_grass_get_stats(g)->trample_stamps == 1);
    CHECK(at > 200 && away == 0);
    /* simulated seconds at 60 Hz, nothing stamping any more */
    f.tramplers = NULL;
    f.trampler_count = 0;
    int frames = 0, at_hold = -1, at_mid = -1, at_end = -1, most_end = -1;
    for (; frames < 60; frames++) {
        update(g, &s, &f);
        float t = (frames + 1) / 60.0f;
        if (frames + 1 == 6) /* 0.1 s: inside the hold */
            at_hold = trail_at(g, rgba, 2.0f, 1.0f, &most);
        if (frames + 1 == 27) /* 0.45 s: 0.3 s into the 0.65 s recovery */
            at_mid = trail_at(g, rgba, 2.0f, 1.0f, &most);
        if (t > d->trample_hold + d->trample_recovery + 0.02f && at_end < 0)
            at_end = trail_at(g, rgba, 2.0f, 1.0f, &most_end);
    }
    printf("     trail at 0.1 s %d, at 0.45 s %d, after hold + recovery %d (largest anywhere %d)\n", at_hold, at_mid,
           at_end, most_end);
    CHECK(at_hold >= at - 2);
    CHECK(at_mid > 40 && at_mid < at * 3 / 4);
    CHECK(at_end == 0 && most_end == 0);

    /* an agent of a crowd frame walks through: a trail behind it, fading with age, gone at its start */
    crowd_record rec[2];
    memset(rec, 0, sizeof rec);
    uint32_t slots[2] = {0, 7}; /* slot 1 is slack (>= simulated): it must not trample */
    rec[0].scale = rec[1].scale = 1.0f;
    rec[1].position[0] = -3.0f, rec[1].position[2] = -3.0f;
    crowd_frame cf = {.records = rec, .record_count = 2, .slot_instances = slots};
    cf.stats.simulated = 1;
    f.crowd = &cf;
    for (int k = 0; k <= 60; k++) { /* 1 s from x = -6 to +6 along z = 4 (12 m/s: long strides of 20 cm) */
        rec[0].position[0] = -6.0f + 12.0f * (float)k / 60.0f;
        rec[0].position[2] = 4.0f;
        // cppcheck-suppress unreadVariable ; read by crowd_grass_update_fields through f.crowd
        rec[0].ref_time = cf.time = (float)k / 60.0f;
        update(g, &s, &f);
    }
    CHECK(crowd_grass_get_stats(g)->trample_stamps == 1);
    int now = trail_at(g, rgba, 6.0f, 4.0f, &most), recent = trail_at(g, rgba, 4.0f, 4.0f, &most);
    int older = trail_at(g, rgba, 0.0f, 4.0f, &most), start = trail_at(g, rgba, -5.0f, 4.0f, &most);
    int slack = trail_at(g, rgba, -3.0f, -3.0f, &most), beside = trail_at(g, rgba, 0.0f, 6.0f, &most);
    printf(
        "     agent trail: %d under it, %d 0.17 s back, %d 0.5 s back, %d at its start; slack slot %d, 2 m beside %d\n",
        now, recent, older, start, slack, beside);
    CHECK(now > 200 && recent > 200);
    CHECK(older > 20 && older < recent);
    CHECK(start == 0 && slack == 0 && beside == 0);
    f.crowd = NULL;
    for (int k = 0; k < 50; k++)
        update(g, &s, &f);
    trail_at(g, rgba, 0.0f, 0.0f, &most);
    CHECK(most == 0);
    free(rgba);
    crowd_grass_destroy(g);
}

/* The screen region (2 half + 1 pixels square) around the world point (x, 0, z): the fraction of its
 * pixels that differ between frames a and b (by more than 30 over the three channels), and the mean
 * green of each (a blade lit by the sun is lighter than the ground between blades). */
static double changed_fraction(const uint8_t *a, const uint8_t *b, const crowd_gl_scene *s, float x, float z, int half,
                               double green[2])
{
    float vp[16], c[4];
    cb_mat4_mul(vp, s->projection, s->view);
    const float p[4] = {x, 0.0f, z, 1.0f};
    for (int r = 0; r < 4; r++)
        c[r] = vp[r] * p[0] + vp[4 + r] * p[1] + vp[8 + r] * p[2] + vp[12 + r] * p[3];
    int cx = (int)((c[0] / c[3] * 0.5f + 0.5f) * W), cy = (int)((1.0f - (c[1] / c[3] * 0.5f + 0.5f)) * H);
    uint32_t changed = 0, total = 0;
    double ga = 0.0, gb = 0.0;
    for (int y = cy - half; y <= cy + half; y++)
        for (int xx = cx - half; xx <= cx + half; xx++) {
            if (xx < 0 || y < 0 || xx >= W || y >= H)
                continue;
            const uint8_t *pa = &a[3 * (y * W + xx)], *pb = &b[3 * (y * W + xx)];
            int diff = abs(pa[0] - pb[0]) + abs(pa[1] - pb[1]) + abs(pa[2] - pb[2]);
            changed += diff > 30;
            ga += pa[1];
            gb += pb[1];
            total++;
        }
    green[0] = total ? ga / total : 0.0;
    green[1] = total ? gb / total : 0.0;
    return total ? (double)changed / total : 0.0;
}

static void cut_persists(void)
{
    crowd_grass *g = make(CROWD_GRASS_PATH_DEFAULT, 0);
    REQUIRE(g);
    const crowd_grass_desc *d = grass_gl_desc(g);
    crowd_gl_scene s; /* looking down at 60 degrees: a cut shows the ground, not the blades in front of it */
    scene_at(&s, 3.0f, 9.0f, 10.0f, 3.0f, 0.0f, 5.0f);
    uint8_t *before = render(g, &s);
    REQUIRE(before);
    tool_write_png(es ? "grass_uncut_es.png" : "grass_uncut.png", before, W, H, NULL);
    /* the mower: a 4 m swath 5 m in front of the camera (lush grass there: the field's soil patch is
       at the origin, where a cut changes little), then a second of nothing */
    float cuts[2 * 9];
    for (int k = 0; k < 9; k++)
        cuts[2 * k] = 1.0f + 0.5f * (float)k, cuts[2 * k + 1] = 6.0f;
    crowd_grass_fields f = {.dt = 1.0f / 60.0f, .cuts = cuts, .cut_count = 9};
    update(g, &s, &f);
    CHECK(crowd_grass_get_stats(g)->cut_stamps == 9);
    f.cuts = NULL;
    f.cut_count = 0;
    for (int k = 0; k < 60; k++)
        update(g, &s, &f);
    uint8_t *cut = malloc((size_t)d->cut_resolution * d->cut_resolution * 4);
    REQUIRE(cut);
    REQUIRE(grass_gl_read_field(g, 1, cut));
    rebind_target();
    int n = (int)d->cut_resolution;
    int cx = (int)((3.0f + d->extent) / (2.0f * d->extent) * n),
        cz = (int)((6.0f + d->extent) / (2.0f * d->extent) * n);
    int far = (int)((60.0f + d->extent) / (2.0f * d->extent) * n);
    int on = cut[4 * (cz * n + cx)], off = cut[4 * (cz * n + far)];
    uint8_t *after = render(g, &s);
    REQUIRE(after);
    tool_write_png(es ? "grass_cut_es.png" : "grass_cut.png", after, W, H, NULL);
    double g_in[2], g_out[2];
    double in = changed_fraction(before, after, &s, 3.0f, 6.0f, 14, g_in);
    double out = changed_fraction(before, after, &s, 3.0f, 1.0f, 14, g_out);
    printf("     cut after 1 s: %d on the swath, %d 60 m away; over the swath %.1f %% of pixels changed, mean green "
           "%.1f -> %.1f; 5 m beyond %.1f %% changed\n",
           on, off, 100.0 * in, g_in[0], g_in[1], 100.0 * out);
    CHECK(on > 200 && off == 0);
    /* the swath shows: stubs and straw-coloured soil where lush blades stood (with stubs alone, over
       the green ground beneath a lush patch, 5 % of its pixels changed and the mean green 150.6 ->
       148.9; with the straw 100 % and 150.6 -> 188.2 on llvmpipe) */
    CHECKF(in > 0.5 && fabs(g_in[1] - g_in[0]) > 15.0, "cut swath: %.1f %% changed", 100.0 * in);
    CHECK(out < 0.01);

    /* the trample trail shows on screen: a disc pressed in front of a low camera */
    scene_at(&s, 0.0f, 4.0f, 11.0f, 0.0f, 0.0f, 0.0f);
    free(after);
    after = render(g, &s);
    REQUIRE(after);
    const float actor[2] = {-3.0f, 6.5f};
    f = (crowd_grass_fields){.dt = 1.0f / 60.0f, .focus_set = true, .tramplers = actor, .trampler_count = 1};
    for (int k = 0; k < 10; k++)
        update(g, &s, &f);
    uint8_t *trampled = render(g, &s);
    REQUIRE(trampled);
    double g_pressed[2], g_elsewhere[2];
    double pressed = changed_fraction(after, trampled, &s, -3.0f, 6.5f, 8, g_pressed);
    double elsewhere = changed_fraction(after, trampled, &s, 0.0f, -12.0f, 12, g_elsewhere);
    printf("     trampled disc: %.1f %% of its pixels changed, %.1f %% 18 m behind\n", 100.0 * pressed,
           100.0 * elsewhere);
    CHECK(pressed > 0.25 && elsewhere < 0.01);
    crowd_grass_reset_fields(g);
    rebind_target();
    free(before);
    free(after);
    free(trampled);
    free(cut);
    crowd_grass_destroy(g);
}

static void bad_desc(void)
{
    crowd_grass *g = (crowd_grass *)1;
    crowd_error err = {0};
    crowd_grass_desc d = {.near_band = {30, 20}};
    CHECK(crowd_grass_create(&d, &g, &err) == CROWD_ERROR_ARGUMENT && !g && strstr(err.message, "bands"));
    d = (crowd_grass_desc){.blades = CROWD_GRASS_MAX_BLADES + 1};
    CHECK(crowd_grass_create(&d, &g, &err) == CROWD_ERROR_ARGUMENT);
    d = (crowd_grass_desc){.chunk_size = -1.0f};
    CHECK(crowd_grass_create(&d, &g, &err) == CROWD_ERROR_ARGUMENT);
    if (es) {
        d = (crowd_grass_desc){.path = CROWD_GRASS_PATH_GPU, .es = true};
        CHECK(crowd_grass_create(&d, &g, &err) == CROWD_ERROR_UNSUPPORTED);
    }
}

/* crowd_grass_set_paint: a red square painted over x 1.5..4.5, z 4.5..7.5 m reddens the meadow there
 * (blades and ground), nowhere 5 m away, and comes off with texture 0. */
static void paint_colours_the_meadow(void)
{
    crowd_grass *g = make(CROWD_GRASS_PATH_DEFAULT, 0);
    REQUIRE(g);
    crowd_gl_scene s;
    scene_at(&s, 3.0f, 9.0f, 10.0f, 3.0f, 0.0f, 5.0f);
    uint8_t *before = render(g, &s);
    REQUIRE(before);
    enum { SIDE = 256 };
    const float world = 64.0f; /* 25 cm texels */
    uint8_t *rgba = calloc((size_t)SIDE * SIDE, 4);
    REQUIRE(rgba);
    for (int z = 0; z < SIDE; z++)
        for (int x = 0; x < SIDE; x++) {
            float wx = -0.5f * world + ((float)x + 0.5f) * world / SIDE;
            float wz = -0.5f * world + ((float)z + 0.5f) * world / SIDE;
            if (wx > 1.5f && wx < 4.5f && wz > 4.5f && wz < 7.5f)
                memcpy(rgba + 4 * ((size_t)z * SIDE + (size_t)x), (const uint8_t[4]){230, 20, 20, 255}, 4);
        }
    GLuint texture = 0;
    glGenTextures(1, &texture);
    glBindTexture(GL_TEXTURE_2D, texture);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, SIDE, SIDE, 0, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    crowd_grass_set_paint(g, texture, world);
    uint8_t *painted = render(g, &s);
    REQUIRE(painted);
    tool_write_png(es ? "grass_painted_es.png" : "grass_painted.png", painted, W, H, NULL);
    double g_in[2], g_out[2];
    double in = changed_fraction(before, painted, &s, 3.0f, 6.0f, 10, g_in);
    double out = changed_fraction(before, painted, &s, 3.0f, 1.0f, 10, g_out);
    crowd_grass_set_paint(g, 0, 0.0f);
    uint8_t *after = render(g, &s);
    REQUIRE(after);
    double g_back[2];
    double back = changed_fraction(before, after, &s, 3.0f, 6.0f, 10, g_back);
    printf("     paint: %.1f %% of the painted patch changed (mean green %.1f -> %.1f), %.1f %% 5 m away, %.1f %% "
           "after it is taken off\n",
           100.0 * in, g_in[0], g_in[1], 100.0 * out, 100.0 * back);
    CHECK(in > 0.5 && g_in[1] < g_in[0] - 20.0);
    CHECK(out < 0.01 && back < 0.01);
    glDeleteTextures(1, &texture);
    free(rgba);
    free(before);
    free(painted);
    free(after);
    crowd_grass_destroy(g);
}

/* ---- the two variants of the field passes (desktop GL 4.3: compute on image bindings; everywhere:
   fragment passes) hold the same texels and bend and cut the same blades ---- */

static crowd_grass *make_fields(crowd_grass_field_passes passes)
{
    /* a small dense field (48 m square, ~10 blades a square metre like the demo's) keeps it cheap */
    crowd_grass_desc d = {
        .blades = 24000, .extent = 24.0f, .path = CROWD_GRASS_PATH_CPU, .field_passes = passes, .es = es};
    return create_or_report(&d);
}

/* the largest channel difference between the two fields' texture `which`, and how many channels differ */
static int field_difference(crowd_grass *a, crowd_grass *b, int which, uint32_t *differ, uint32_t *total, int *peak)
{
    const crowd_grass_desc *d = grass_gl_desc(a);
    uint32_t n = which ? d->cut_resolution : d->trample_resolution;
    uint8_t *fa = malloc((size_t)n * n * 4), *fb = malloc((size_t)n * n * 4);
    int most = 0;
    *differ = 0;
    *total = n * n * 4;
    *peak = 0;
    if (fa && fb && grass_gl_read_field(a, which, fa) && grass_gl_read_field(b, which, fb)) {
        for (uint32_t i = 0; i < n * n * 4; i++) {
            int diff = abs((int)fa[i] - (int)fb[i]);
            most = diff > most ? diff : most;
            *differ += diff > 0;
            *peak = fa[i] > *peak && (i % 4 == (which ? 0u : 2u)) ? fa[i] : *peak;
        }
    } else {
        most = 256;
    }
    rebind_target();
    free(fa);
    free(fb);
    return most;
}

static void field_variants_match(void)
{
    if (es) {
        crowd_grass_desc d = {.blades = 1000, .field_passes = CROWD_GRASS_FIELDS_COMPUTE, .es = true};
        crowd_grass *g = NULL;
        crowd_error err = {0};
        CHECK(crowd_grass_create(&d, &g, &err) == CROWD_ERROR_UNSUPPORTED && !g);
        crowd_grass *f = make(CROWD_GRASS_PATH_CPU, 1000);
        REQUIRE(f);
        CHECK(crowd_grass_get_stats(f)->field_passes == CROWD_GRASS_FIELDS_FRAGMENT); /* the WebGL2 dialect */
        crowd_grass_destroy(f);
        return;
    }
    crowd_grass *frag = make_fields(CROWD_GRASS_FIELDS_FRAGMENT), *comp = make_fields(CROWD_GRASS_FIELDS_DEFAULT);
    REQUIRE(frag && comp);
    CHECK(crowd_grass_get_stats(frag)->field_passes == CROWD_GRASS_FIELDS_FRAGMENT);
    CHECK(crowd_grass_get_stats(comp)->field_passes == CROWD_GRASS_FIELDS_COMPUTE); /* the GL 4.3 default */
    crowd_gl_scene s;
    scene_at(&s, 0.0f, 4.0f, 11.0f, 0.0f, 0.0f, 0.0f);
    /* the same stamps and time steps into both: an actor walking (the window follows it, so the pass
       shifts), overlapping discs (their order matters to the blend), two agents of a crowd frame, the
       mower's swath; then the trails decay for a while */
    crowd_record rec[2];
    memset(rec, 0, sizeof rec);
    rec[0].scale = rec[1].scale = 1.0f;
    crowd_frame cf = {.records = rec, .record_count = 2};
    float cuts[2 * 6];
    for (int k = 0; k < 6; k++)
        cuts[2 * k] = 2.0f + 0.6f * (float)k, cuts[2 * k + 1] = 5.0f;
    for (int k = 0; k < 40; k++) {
        float ax = -4.0f + 0.1f * (float)k;
        float tramplers[2 * 3] = {ax, 6.5f, ax + 0.25f, 6.6f, ax + 0.5f, 6.4f};
        rec[0].position[0] = -2.0f + 0.12f * (float)k, rec[0].position[2] = 8.0f;
        rec[1].position[0] = 1.0f, rec[1].position[2] = 7.0f - 0.1f * (float)k;
        crowd_grass_fields f = {.dt = 1.0f / 60.0f,
                                .focus_set = true,
                                .focus = {ax, 4.0f},
                                .tramplers = k < 30 ? tramplers : NULL,
                                .trampler_count = 3,
                                .crowd = k < 25 ? &cf : NULL,
                                .cuts = k == 10 ? cuts : NULL,
                                .cut_count = 6};
        update(frag, &s, &f);
        update(comp, &s, &f);
    }
    CHECK(crowd_grass_get_stats(frag)->trample_stamps == crowd_grass_get_stats(comp)->trample_stamps);
    uint32_t differ, total, cut_differ, cut_total;
    int peak, cut_peak;
    int most = field_difference(frag, comp, 0, &differ, &total, &peak);
    int cut_most = field_difference(frag, comp, 1, &cut_differ, &cut_total, &cut_peak);
    printf("     fragment vs compute fields after 40 updates: trample %d / 255 at most, %u of %u channels differ "
           "(trail up to %d); cut %d / 255 at most, %u of %u differ (cut up to %d)\n",
           most, differ, total, peak, cut_most, cut_differ, cut_total, cut_peak);
    CHECK(peak > 100 && cut_peak > 200); /* something to compare: trails still live, the swath cut */
    /* stated tolerance: 2 / 255 in under 0.1 % of the channels (the compute pass rounds like an RGBA8
       target after the decay and after each disc; llvmpipe's 8-bit blend rounds its products its own
       way: 139 of 262,144 channels differ, by at most 2, here) */
    CHECK(most <= 2 && differ < total / 1000);
    CHECK(cut_most <= 1 && cut_differ < cut_total / 1000);
    /* the blades bend and cut the same: a frame over the trail and the swath */
    uint8_t *a = render(frag, &s), *b = render(comp, &s);
    REQUIRE(a && b);
    tool_write_png("grass_fields_fragment.png", a, W, H, NULL);
    tool_write_png("grass_fields_compute.png", b, W, H, NULL);
    uint32_t off;
    double mean = frame_difference(a, b, &off);
    printf("     fragment vs compute frame: mean difference %.4f / 255, %u of %d channels off by more than 24\n", mean,
           off, W * H * 3);
    CHECK(mean < 0.05 && off < (uint32_t)(W * H * 3 / 2000));
    free(a);
    free(b);
    crowd_grass_destroy(frag);
    crowd_grass_destroy(comp);
}

/* ---- the one RGBA noise texture: deterministic, a concern a channel, and what the shaders read ---- */

static double lower_green(const uint8_t *rgb)
{
    uint32_t green = 0, lower = 0;
    for (int y = H / 2; y < H; y++)
        for (int x = 0; x < W; x++, lower++) {
            const uint8_t *p = &rgb[3 * (y * W + x)];
            green += p[1] > p[0] && p[1] > p[2];
        }
    return (double)green / lower;
}

static void noise_texture_is_used(void)
{
    size_t bytes = (size_t)GRASS_NOISE_SIZE * GRASS_NOISE_SIZE * 4;
    uint8_t *a = malloc(bytes), *b = malloc(bytes), *flat = malloc(bytes);
    REQUIRE(a && b && flat);
    grass_noise_generate(1, a);
    grass_noise_generate(1, b);
    CHECK(!memcmp(a, b, bytes)); /* deterministic */
    grass_noise_generate(2, b);
    CHECK(memcmp(a, b, bytes) != 0); /* and the seed's */
    /* R (zoning) and G (patchiness) are smooth across texels and across the tile's seam (it repeats),
       B and A a value a texel; every channel spans its range around a middle of about 0.5 */
    double step[4] = {0}, seam[4] = {0}, mean[4] = {0};
    int lo[4] = {255, 255, 255, 255}, hi[4] = {0};
    const uint32_t n = GRASS_NOISE_SIZE;
    for (uint32_t y = 0; y < n; y++)
        for (uint32_t x = 0; x < n; x++)
            for (int c = 0; c < 4; c++) {
                int v = a[4 * (y * n + x) + c], right = a[4 * (y * n + (x + 1) % n) + c];
                if (x + 1 < n)
                    step[c] += abs(v - right);
                else
                    seam[c] += abs(v - right);
                mean[c] += v;
                lo[c] = v < lo[c] ? v : lo[c];
                hi[c] = v > hi[c] ? v : hi[c];
            }
    for (int c = 0; c < 4; c++) {
        step[c] /= (double)n * (n - 1);
        seam[c] /= n;
        mean[c] /= (double)n * n;
    }
    printf("     noise: mean step between texels R %.1f G %.1f B %.1f A %.1f (at the seam R %.1f G %.1f); means %.0f "
           "%.0f %.0f %.0f\n",
           step[0], step[1], step[2], step[3], seam[0], seam[1], mean[0], mean[1], mean[2], mean[3]);
    CHECK(step[0] < 4.0 && step[1] < 40.0 && step[2] > 60.0 && step[3] > 60.0);
    CHECK(seam[0] < 3.0 * step[0] + 1.0 && seam[1] < 3.0 * step[1] + 1.0);
    for (int c = 0; c < 4; c++)
        CHECK(mean[c] > 90.0 && mean[c] < 165.0 && hi[c] - lo[c] > 120);

    /* the shaders read the texture: soil everywhere in it (R = 0) turns the meadow brown and short, and
       its own contents back give the same frame again */
    crowd_grass *g = make_fields(CROWD_GRASS_FIELDS_DEFAULT);
    REQUIRE(g);
    crowd_gl_scene s;
    scene_at(&s, 0.0f, 4.0f, 11.0f, 0.0f, 0.0f, 0.0f);
    GLuint tex = crowd_grass_noise_texture(g);
    CHECK(tex != 0);
    uint8_t *before = render(g, &s);
    REQUIRE(before);
    grass_noise_generate(grass_gl_desc(g)->seed, a);
    memcpy(flat, a, bytes);
    for (size_t i = 0; i < bytes; i += 4)
        flat[i] = 0;
    glBindTexture(GL_TEXTURE_2D, tex);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, (GLsizei)n, (GLsizei)n, GL_RGBA, GL_UNSIGNED_BYTE, flat);
    glGenerateMipmap(GL_TEXTURE_2D);
    uint8_t *soil = render(g, &s);
    REQUIRE(soil);
    tool_write_png("grass_noise_soil.png", soil, W, H, NULL);
    glBindTexture(GL_TEXTURE_2D, tex);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, (GLsizei)n, (GLsizei)n, GL_RGBA, GL_UNSIGNED_BYTE, a);
    glGenerateMipmap(GL_TEXTURE_2D);
    glBindTexture(GL_TEXTURE_2D, 0);
    uint8_t *back = render(g, &s);
    REQUIRE(back);
    uint32_t changed = 0, same = 0;
    for (int i = 0; i < W * H; i++) {
        const uint8_t *p = &before[3 * i], *q = &soil[3 * i], *r = &back[3 * i];
        changed += abs(p[0] - q[0]) + abs(p[1] - q[1]) + abs(p[2] - q[2]) > 30;
        same += !memcmp(p, r, 3);
    }
    double green_before = lower_green(before), green_soil = lower_green(soil);
    printf("     noise texture all soil: %.1f %% of the pixels changed, lower half green-dominant %.1f %% -> %.1f %%; "
           "contents back: %.2f %% of the pixels identical\n",
           100.0 * changed / (W * H), 100.0 * green_before, 100.0 * green_soil, 100.0 * same / (W * H));
    CHECK(changed > (uint32_t)(W * H) / 3 && green_soil < green_before - 0.3);
    CHECK(same == (uint32_t)(W * H));
    free(before);
    free(soil);
    free(back);
    free(a);
    free(b);
    free(flat);
    crowd_grass_destroy(g);
}

/* ---- per-tier timers: results arrive a few frames late without a wait, one per tier and the ground;
   a skipped culling reads 0 ms (the values themselves are not judged: no timed tests) ---- */
static void timers_per_tier(void)
{
    crowd_grass_desc d = {.blades = 24000, .extent = 60.0f, .es = es, .timers = true};
    crowd_grass *g = NULL;
    crowd_error err = {0};
    REQUIRE(crowd_grass_create(&d, &g, &err) == CROWD_OK);
    const crowd_grass_stats *st = crowd_grass_get_stats(g);
    CHECK(st->gpu_cull_ms < 0.0 && st->gpu_draw_ms < 0.0 && st->gpu_tier_ms[0] < 0.0 && st->gpu_ground_ms < 0.0);
    crowd_gl_scene s;
    scene_at(&s, 0.0f, 3.0f, 55.0f, 0.0f, 0.0f, 0.0f); /* near, mid and far blades in view */
    crowd_grass_frame f = {.time = 1.0f};
    for (int k = 0; k < 8; k++) { /* moving: every frame culls */
        s.view[12] += (k & 1) ? 0.01f : -0.01f;
        CHECK(crowd_grass_draw(g, NULL, &s, &f) == CROWD_OK);
        glFinish(); /* the test may wait: then every result is there when it is polled */
    }
    printf("     timers %s (%s path): cull %.3f, near %.3f, mid %.3f, far %.3f, ground %.3f, draw %.3f ms\n",
           st->timers ? "on" : "not supported", st->path == CROWD_GRASS_PATH_GPU ? "GPU" : "CPU", st->gpu_cull_ms,
           st->gpu_tier_ms[0], st->gpu_tier_ms[1], st->gpu_tier_ms[2], st->gpu_ground_ms, st->gpu_draw_ms);
    if (st->timers) {
        CHECK(st->gpu_cull_ms >= 0.0 && st->gpu_ground_ms >= 0.0); /* a CPU pass only uploads: may read 0 */
        for (int t = 0; t < CROWD_GRASS_TIERS; t++)
            CHECK(st->gpu_tier_ms[t] > 0.0);
        double sum = st->gpu_tier_ms[0] + st->gpu_tier_ms[1] + st->gpu_tier_ms[2] + st->gpu_ground_ms;
        CHECK(fabs(st->gpu_draw_ms - sum) < 1e-9);
        for (int k = 0; k < 5; k++) { /* still: every frame skips */
            CHECK(crowd_grass_draw(g, NULL, &s, &f) == CROWD_OK);
            glFinish();
        }
        CHECK(st->last_skipped && st->gpu_cull_ms == 0.0 && st->gpu_tier_ms[0] > 0.0);
    } else {
        CHECK(st->gpu_cull_ms < 0.0 && st->gpu_draw_ms < 0.0);
    }
    crowd_grass_destroy(g);
    rebind_target();
}

int main(int argc, char **argv)
{
    es = argc > 1 && !strcmp(argv[1], "--es");
    crowd_error err;
    if (tool_gl_create(&gl, W, H, es, &err) != CROWD_OK) {
        fprintf(stderr, "GL context: %s\n", err.message);
        return 1;
    }
    printf("     %s on %s\n", es ? "GLES" : "desktop GL", gl.renderer);
    RUN_TEST(density_and_prefixes);
    RUN_TEST(bad_desc);
    RUN_TEST(skip_cache);
    RUN_TEST(partitions_match_the_cpu);
    RUN_TEST(pixels);
    RUN_TEST(blades_receive_the_crowd_shadow);
    RUN_TEST(trample_trail);
    RUN_TEST(cut_persists);
    RUN_TEST(paint_colours_the_meadow);
    RUN_TEST(field_variants_match);
    RUN_TEST(noise_texture_is_used);
    RUN_TEST(timers_per_tier);
    tool_gl_destroy(&gl);
    TEST_MAIN_END();
}
