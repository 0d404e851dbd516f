/* The renderer on a real GL driver (Mesa llvmpipe through EGL, no display): pixels, not "it ran".
 * Screenshots land in the working directory's shots/ (build/tests/shots) for people to look at. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bake/reference.h"
#include "check.h"
#include "common/view_matrices.h"
#include "crowd/crowd_internal.h"
#include "crowdbake/gl.h"
#include "crowdbake/grass.h"
#include "gl/gl_api.h"
#include "gl_context.h"
#include "gl_fixture.h"
#include "test_support.h"

#define W 480
#define H 320

static crowd_bake_output baked;
static crowd_asset asset;
static tool_gl gl;
static uint8_t pixels[3 * W * H], pixels2[3 * W * H], pixels3[3 * W * H]; /* RGB frames */

static void look(float view[16], float projection[16], float ex, float ey, float ez, float tx, float ty, float tz)
{
    const float eye[3] = {ex, ey, ez}, target[3] = {tx, ty, tz}, up[3] = {0, 1, 0};
    cb_look_at(view, eye, target, up);
    cb_perspective(projection, 50.0f * 3.14159265f / 180.0f, (float)W / H, 0.1f, 500.0f);
}

/* Renders one frame of `c` with `r` into `out` (top-down RGB). */
static void render(crowd *c, crowd_gl_renderer *r, crowd_gl_scene *scene, float dt, uint8_t *out)
{
    crowd_view view = {.viewport_height = H};
    memcpy(view.view, scene->view, sizeof view.view);
    memcpy(view.projection, scene->projection, sizeof view.projection);
    const crowd_frame *f = crowd_update(c, dt, &view);
    REQUIRE(crowd_gl_upload(r, f, NULL) == CROWD_OK);
    float light[16], centre[3] = {0, 0, 0};
    crowd_gl_fit_shadow(r, scene->sun_direction, centre, 30.0f, light);
    if (scene->shadows) {
        crowd_gl_render_shadows(r, f, light);
        showcase_stage_render_shadows(gl_fixture_stage(), r);
    }
    gl_fixture_draw(&gl, r, f, scene, out);
}

static void save(const char *name, const uint8_t *rgb)
{
    char path[256];
    mkdir("shots", 0755);
    snprintf(path, sizeof path, "shots/%s.png", name);
    tool_write_png(path, rgb, W, H, NULL);
}

static bool is_background(const uint8_t *p)
{
    return abs(p[0] - 230) < 6 && abs(p[1] - 235) < 6 && abs(p[2] - 242) < 6;
}

/* Pixels of `a` darker than `b` by more than 30 (sum of channels); *lighter: brighter by more than 3. */
/* darker: summed channels lower by more than 30; lighter: higher by more than 3 */
static uint32_t count_darker(const uint8_t *a, const uint8_t *b, uint32_t *lighter)
{
    return test_count_darker(a, b, W * H, 30, 3, lighter);
}

typedef struct diff {
    double mean;   /* mean absolute difference per channel, 0..255 */
    uint32_t over; /* pixels with any channel off by more than the tolerance */
} diff;

static diff compare(const uint8_t *a, const uint8_t *b, int tolerance)
{
    diff d = {0, 0};
    for (int i = 0; i < W * H; i++) {
        int worst = 0;
        for (int k = 0; k < 3; k++) {
            int e = abs(a[3 * i + k] - b[3 * i + k]);
            d.mean += e;
            worst = e > worst ? e : worst;
        }
        d.over += worst > tolerance;
    }
    d.mean /= 3.0 * W * H;
    return d;
}

static crowd *make_crowd(uint32_t n)
{
    crowd_desc d = {.asset = &asset, .capacity = n ? n : 1, .world_size = 200.0f, .chunk_size = 8.0f};
    crowd *c = NULL;
    if (crowd_create(&d, &c, NULL) != CROWD_OK)
        exit(1);
    crowd_set_count(c, n);
    return c;
}

/* The GPU buffer holds what the crowd's record array can span (slack included). */
static crowd_gl_renderer *make_renderer(const crowd *c)
{
    crowd_gl_desc d = {.asset = &asset,
                       .sizing_crowd = c,
                       .path = CROWD_GL_PATH_CPU,
                       .es = gl.es,
                       .shadow_map_size = 1024,
                       .debug = true};
    return gl_fixture_renderer(&d, 200.0f);
}

/* A 10 x 10 block of walkers in varied colours. */
static void block(crowd *c, uint32_t n, uint32_t clip)
{
    for (uint32_t i = 0; i < n; i++) {
        crowd_set_transform(c, i, -9.0f + 2.0f * (float)(i % 10), 0.0f, -2.0f * (float)(i / 10), 0.3f * (float)i);
        crowd_variant v = {{(uint8_t)(40 * i), (uint8_t)(200 - 13 * i), (uint8_t)(90 + 31 * i)}, {0}, 0};
        for (int k = 0; k < 6; k++)
            v.region_choice[k] = (uint8_t)(i + k);
        crowd_set_variant(c, i, &v);
        crowd_play(c, i, (uint32_t)clip, 1.0f / asset.clips[clip].duration, 0.0f);
        crowd_set_phase(c, i, (float)(i % 7) / 7.0f);
    }
}

static void frame_is_not_blank(void)
{
    crowd *c = make_crowd(100);
    crowd_gl_renderer *r = make_renderer(c);
    block(c, 100, clip_or_die(&asset, "walk"));
    crowd_gl_scene s = test_default_scene();
    look(s.view, s.projection, 0, 6, 14, 0, 0.8f, -8);
    render(c, r, &s, 0.0f, pixels);
    save("crowd", pixels);
    uint32_t covered = 0, colours = 0;
    static uint8_t seen[1 << 15];
    memset(seen, 0, sizeof seen);
    for (int i = 0; i < W * H; i++) {
        covered += !is_background(pixels + 3 * i);
        uint32_t key =
            (uint32_t)(pixels[3 * i] >> 3) << 10 | (uint32_t)(pixels[3 * i + 1] >> 3) << 5 | (pixels[3 * i + 2] >> 3);
        colours += !seen[key];
        seen[key] = 1;
    }
    CHECKF(covered > W * H / 3, "only %u pixels drawn", covered);
    CHECKF(colours > 200, "only %u distinct colours", colours);
    const crowd_gl_stats *st = crowd_gl_get_stats(r);
    CHECK(st->draws > 0 && st->shadow_draws > 0 && st->triangles > 0);
    crowd_gl_destroy(r);
    crowd_destroy(c);
}

/* The same crowd through VAT and through the bone texture: the same image within a few levels. */
static void vat_and_bone_modes_agree(void)
{
    crowd *c = make_crowd(100);
    crowd_gl_renderer *r = make_renderer(c);
    block(c, 100, clip_or_die(&asset, "run"));
    crowd_gl_scene s = test_default_scene();
    look(s.view, s.projection, 0, 5, 12, 0, 0.8f, -8);
    render(c, r, &s, 0.0f, pixels);
    REQUIRE(crowd_gl_set_mode(r, CROWD_GL_BONES) == CROWD_OK);
    render(c, r, &s, 0.0f, pixels2);
    save("mode_vat", pixels);
    save("mode_bones", pixels2);
    diff d = compare(pixels, pixels2, 24);
    CHECKF(d.mean < 0.5 && d.over < W * H / 500, "VAT vs bones: mean %.3f, %u pixels off", d.mean, d.over);
    printf("     VAT vs bone mode: mean difference %.3f levels, %u of %d pixels beyond 24\n", d.mean, d.over, W * H);
    crowd_gl_destroy(r);
    crowd_destroy(c);
}

/* A morph-animated asset baked with bones records bone mode as unavailable: a renderer asked for
 * bone mode is refused at creation with the reason (not drawn frozen in its rest shape), VAT mode
 * is created, and switching it to bones is refused. */
static void bone_mode_refused_at_creation_for_morph_assets(void)
{
    crowd_rig rig;
    crowd_error err = {0};
    REQUIRE(crowd_gltf_read_file(CROWD_ASSET_DIR "/gltf/AnimatedMorphCube.glb", NULL, &rig, &err) == CROWD_OK);
    crowd_bake_output out = bake_or_die(&rig, (crowd_bake_desc){.bones = true});
    crowd_asset morph;
    REQUIRE(crowd_asset_load_memory(&morph, out.bytes, out.size, &err) == CROWD_OK);
    REQUIRE(morph.bones.data != NULL);
    CHECK(crowd_gl_check_mode(&morph, CROWD_GL_BONES, NULL) == CROWD_ERROR_UNSUPPORTED);
    CHECK(crowd_gl_check_mode(&morph, CROWD_GL_VAT, NULL) == CROWD_OK);
    CHECK(crowd_gl_check_mode(&asset, CROWD_GL_BONES, NULL) == CROWD_OK); /* the humanoid's bones play */
    crowd_gl_desc d = {.asset = &morph, .mode = CROWD_GL_BONES, .es = gl.es, .shadow_map_size = 256};
    crowd_gl_renderer *r = (crowd_gl_renderer *)&d; /* must come back NULL */
    err.message[0] = '\0';
    CHECK(crowd_gl_create(&d, &r, &err) == CROWD_ERROR_UNSUPPORTED && r == NULL);
    CHECKF(strstr(err.message, "bone mode is unavailable") && strstr(err.message, "morph"), "message: %s", err.message);
    printf("     crowd_gl_create in bone mode: %s\n", err.message);
    d.mode = CROWD_GL_VAT;
    REQUIRE(crowd_gl_create(&d, &r, &err) == CROWD_OK);
    CHECK(crowd_gl_set_mode(r, CROWD_GL_BONES) == CROWD_ERROR_UNSUPPORTED);
    crowd_gl_destroy(r);
    crowd_asset_free(&morph);
    crowd_bake_output_free(&out);
    crowd_rig_free(&rig);
}

/* Three characters posed exactly on baked frames, drawn from the VAT, against the same three
 * skinned on the CPU (double precision, every influence) and drawn as plain meshes. */
static void vat_matches_cpu_skinning(void)
{
    const crowd_rig *rig = humanoid();
    crowd *c = make_crowd(3);
    crowd_gl_renderer *r = make_renderer(c);
    const char *clips[3] = {"walk", "wave", "run"};
    const uint32_t frame_of[3] = {5, 13, 9};
    const float x_of[3] = {-1.3f, 0.0f, 1.3f}, yaw_of[3] = {0.4f, 0.0f, -0.5f};
    uint32_t vc = rig->vertex_count, ic = rig->index_count;
    float *positions = malloc(sizeof(float) * 9 * vc), *normals = malloc(sizeof(float) * 9 * vc);
    uint32_t *indices = malloc(sizeof(uint32_t) * 3 * ic);
    double *p = malloc(sizeof(double) * 3 * vc), *n = malloc(sizeof(double) * 3 * vc);
    crowd_reference ref;
    REQUIRE(positions && normals && indices && p && n && crowd_reference_init(&ref, rig, NULL) == CROWD_OK);
    for (int k = 0; k < 3; k++) {
        uint32_t clip = clip_or_die(&asset, clips[k]);
        int rig_clip = crowd_rig_find_clip(rig, clips[k]);
        const crowd_clip *cl = &asset.clips[clip];
        crowd_set_transform(c, (uint32_t)k, x_of[k], 0.0f, 0.0f, yaw_of[k]);
        crowd_play(c, (uint32_t)k, (uint32_t)clip, 1.0f / cl->duration, 0.0f);
        crowd_set_phase(c, (uint32_t)k, (float)frame_of[k] / (float)cl->frame_count);
        crowd_reference_skin(&ref, (uint32_t)rig_clip,
                             crowd_reference_frame_time(&rig->clips[rig_clip], frame_of[k], cl->frame_count), p, n);
        float s = sinf(yaw_of[k]), co = cosf(yaw_of[k]);
        for (uint32_t v = 0; v < vc; v++) {
            float *q = positions + 3 * (k * vc + v), *m = normals + 3 * (k * vc + v);
            q[0] = (float)(co * p[3 * v] + s * p[3 * v + 2]) + x_of[k];
            q[1] = (float)p[3 * v + 1];
            q[2] = (float)(-s * p[3 * v] + co * p[3 * v + 2]);
            m[0] = (float)(co * n[3 * v] + s * n[3 * v + 2]);
            m[1] = (float)n[3 * v + 1];
            m[2] = (float)(-s * n[3 * v] + co * n[3 * v + 2]);
        }
        for (uint32_t i = 0; i < ic; i++)
            indices[k * ic + i] = rig->indices[i] + (uint32_t)k * vc;
    }
    crowd_gl_scene s = test_default_scene();
    s.flat_color = true;
    s.fog_density = 0.0f;
    look(s.view, s.projection, 0, 1.3f, 4.2f, 0, 1.0f, 0);
    render(c, r, &s, 0.0f, pixels);
    /* the reference: the same bodies as a static white prop, no crowd */
    const showcase_prop origin = {{0, 0, 0}, 0, {1, 1, 1}, {255, 255, 255, 255}};
    const showcase_mesh bodies = {positions, normals, 3 * vc, indices, 3 * ic};
    REQUIRE(showcase_stage_set_props(gl_fixture_stage(), &bodies, &origin, 1, NULL) == CROWD_OK);
    crowd_set_count(c, 0);
    render(c, r, &s, 0.0f, pixels2);
    REQUIRE(showcase_stage_set_props(gl_fixture_stage(), &bodies, NULL, 0, NULL) == CROWD_OK);
    save("vat_vs_cpu_vat", pixels);
    save("vat_vs_cpu_reference", pixels2);
    uint32_t drawn = 0, mismatched = 0;
    for (int i = 0; i < W * H; i++) {
        bool a = !is_background(pixels + 3 * i), b = !is_background(pixels2 + 3 * i);
        drawn += a || b;
        mismatched += a != b;
    }
    diff d = compare(pixels, pixels2, 24);
    CHECKF(drawn > 10000, "only %u pixels of characters", drawn);
    CHECKF(mismatched < drawn / 200, "silhouettes differ in %u of %u pixels", mismatched, drawn);
    CHECKF(d.over < drawn / 100, "%u pixels differ by more than 24 levels", d.over);
    printf("     VAT vs CPU skinning: silhouettes differ in %u of %u pixels, %u pixels beyond 24 levels, mean %.3f\n",
           mismatched, drawn, d.over, d.mean);
    crowd_reference_free(&ref);
    free(positions);
    free(normals);
    free(indices);
    free(p);
    free(n);
    crowd_gl_destroy(r);
    crowd_destroy(c);
}

/* The shadow pass issues draws and darkens the ground; with shadows off nothing is darker. */
static void shadows_darken_the_ground(void)
{
    crowd *c = make_crowd(100);
    crowd_gl_renderer *r = make_renderer(c);
    block(c, 100, clip_or_die(&asset, "idle"));
    crowd_gl_scene s = test_default_scene();
    look(s.view, s.projection, 0, 14, 10, 0, 0, -8);
    render(c, r, &s, 0.0f, pixels);
    uint32_t shadow_draws = crowd_gl_get_stats(r)->shadow_draws;
    s.shadows = false;
    render(c, r, &s, 0.0f, pixels2);
    save("shadows_on", pixels);
    save("shadows_off", pixels2);
    uint32_t lighter, darker = count_darker(pixels, pixels2, &lighter);
    CHECKF(shadow_draws > 0, "no shadow draws");
    CHECKF(darker > W * H / 50, "only %u pixels darkened by shadows", darker);
    CHECKF(lighter == 0, "%u pixels got lighter with shadows on", lighter);
    crowd_gl_destroy(r);
    crowd_destroy(c);
}

/* Two renderers, one world: the first owns the shadow map the ground takes, the second draws its
 * crowd with desc.shadow_source = the first. The second crowd's shadows must fall on the ground lit
 * by the first (they do not when each renderer keeps a map of its own). */
static void a_shared_shadow_map_shadows_the_other_ground(void)
{
    crowd *owner_crowd = make_crowd(0), *c = make_crowd(100);
    crowd_gl_renderer *owner = make_renderer(owner_crowd);
    block(c, 100, clip_or_die(&asset, "idle"));
    crowd_gl_scene s = test_default_scene();
    look(s.view, s.projection, 0, 14, 10, 0, 0, -8);
    crowd_view view = {.viewport_height = H};
    memcpy(view.view, s.view, sizeof view.view);
    memcpy(view.projection, s.projection, sizeof view.projection);
    const crowd_frame *owner_frame = crowd_update(owner_crowd, 0.0f, &view), *f = crowd_update(c, 0.0f, &view);
    uint8_t *out[2] = {pixels, pixels2};
    for (int shared = 1; shared >= 0; shared--) {
        crowd_gl_desc d = {.asset = &asset,
                           .sizing_crowd = c,
                           .path = CROWD_GL_PATH_CPU,
                           .es = gl.es,
                           .shadow_map_size = 1024,
                           .shadow_source = shared ? owner : NULL,
                           .debug = true};
        crowd_gl_renderer *r = NULL;
        crowd_error err;
        REQUIRE(crowd_gl_create(&d, &r, &err) == CROWD_OK);
        REQUIRE(crowd_gl_upload(owner, owner_frame, NULL) == CROWD_OK && crowd_gl_upload(r, f, NULL) == CROWD_OK);
        float light[16], centre[3] = {0, 0, 0};
        crowd_gl_fit_shadow(owner, s.sun_direction, centre, 30.0f, light);
        crowd_gl_render_shadows(owner, owner_frame, light); /* clears the map: the owner first */
        crowd_gl_render_shadows(r, f, light);
        glClearColor(0.9f, 0.92f, 0.95f, 1.0f);
        glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
        crowd_gl_draw(owner, owner_frame, &s);
        crowd_gl_draw(r, f, &s);
        showcase_stage_draw(gl_fixture_stage(), owner, &s); /* the ground, with the owner's map */
        CHECKF(crowd_gl_check("shared shadow frame", &err) == CROWD_OK, "%s", err.message);
        tool_gl_read_rgb(&gl, out[shared]);
        CHECK(crowd_gl_get_stats(r)->shadow_draws > 0);
        crowd_gl_destroy(r); /* the owner's map survives a sharer */
    }
    save("shadow_shared", pixels2);
    save("shadow_own_map", pixels);
    uint32_t lighter, darker = count_darker(pixels2, pixels, &lighter);
    printf("     shared map: %u pixels of the ground darkened, %u lighter\n", darker, lighter);
    CHECKF(darker > W * H / 50, "only %u pixels darkened by the second crowd's shadows", darker);
    CHECKF(lighter == 0, "%u pixels got lighter", lighter);
    /* the owner's map still works after the sharer is gone */
    crowd_gl_render_shadows(owner, owner_frame, (const float[16]){1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1});
    crowd_error err;
    CHECKF(crowd_gl_check("owner after the sharer", &err) == CROWD_OK, "%s", err.message);
    crowd_gl_destroy(owner);
    crowd_destroy(c);
    crowd_destroy(owner_crowd);
}

/* Paint over the stage's ground (showcase_stage_set_ground_paint): a texture painting the world's x < 0 half red.
 * Seen from a camera on x = 0 the left half of the ground turns red, the right half of the frame
 * stays exactly as without paint, and the crowd's shadows darken the paint as they do the ground. */
static void ground_paint_is_lit_and_shadowed(void)
{
    enum { SIDE = 256 };
    static uint8_t texels[SIDE * SIDE * 4];
    for (int z = 0; z < SIDE; z++)
        for (int x = 0; x < SIDE; x++) {
            uint8_t *t = texels + 4 * (z * SIDE + x);
            bool on = x < SIDE / 2;                                                           /* world x < 0 */
            t[0] = on ? 150 : 0, t[1] = on ? 12 : 0, t[2] = on ? 12 : 0, t[3] = on ? 255 : 0; /* unclipped when lit */
        }
    GLuint texture;
    glGenTextures(1, &texture);
    glBindTexture(GL_TEXTURE_2D, texture);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, SIDE, SIDE, 0, GL_RGBA, GL_UNSIGNED_BYTE, texels);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    crowd *c = make_crowd(100);
    crowd_gl_renderer *r = make_renderer(c);
    block(c, 100, clip_or_die(&asset, "idle"));
    crowd_gl_scene s = test_default_scene();
    look(s.view, s.projection, 0, 14, 10, 0, 0, -8);
    showcase_stage_set_ground_paint(gl_fixture_stage(), texture, 200.0f);
    render(c, r, &s, 0.0f, pixels); /* paint, shadows */
    s.shadows = false;
    render(c, r, &s, 0.0f, pixels3); /* paint, no shadows */
    s.shadows = true;
    showcase_stage_set_ground_paint(gl_fixture_stage(), texture, NAN); /* off: not a size */
    render(c, r, &s, 0.0f, pixels2);                                   /* no paint, shadows */
    static uint8_t bare_lit[3 * W * H];
    s.shadows = false;
    render(c, r, &s, 0.0f, bare_lit); /* no paint, no shadows */
    save("ground_paint", pixels);
    /* away from the edge at x = 0 (linear filtering spreads it over a texel, 0.8 m); in shadow: a
     * pixel at most 85 % as bright as without the shadow pass, paint and bare ground alike */
    const int band = W / 8;
    uint32_t red_left = 0, right_changed = 0, shadowed_paint = 0, shadowed_bare = 0, lighter = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            int i = y * W + x;
            const uint8_t *a = pixels + 3 * i, *b = pixels2 + 3 * i, *lit = pixels3 + 3 * i, *bl = bare_lit + 3 * i;
            int sa = a[0] + a[1] + a[2], slit = lit[0] + lit[1] + lit[2], sb = b[0] + b[1] + b[2];
            int sbl = bl[0] + bl[1] + bl[2];
            lighter += sa > slit + 3;
            if (x < W / 2 - band) {
                red_left += a[0] > a[1] + 60 && a[0] > a[2] + 60;
                shadowed_paint += lit[0] > lit[1] + 60 && 100 * sa < 85 * slit;
                shadowed_bare += 100 * sb < 85 * sbl && memcmp(lit, bl, 3) != 0; /* ground there, not a character */
            } else if (x > W / 2 + band) {
                right_changed += memcmp(a, b, 3) != 0;
            }
        }
    printf("     ground paint: %u red pixels on the painted side, %u changed on the other; in shadow there: %u "
           "painted pixels, %u of the same ground bare\n",
           red_left, right_changed, shadowed_paint, shadowed_bare);
    CHECKF(red_left > W * H / 8, "only %u red pixels where the ground is painted", red_left);
    CHECKF(right_changed == 0, "%u pixels changed where nothing is painted", right_changed);
    /* the same shadows fall on the paint as on the bare ground it covers */
    CHECKF(shadowed_bare > W * H / 200 && shadowed_paint * 10 > shadowed_bare * 8 && lighter == 0,
           "shadows: %u painted pixels darker, %u bare, %u lighter", shadowed_paint, shadowed_bare, lighter);
    crowd_error err;
    CHECKF(crowd_gl_check("ground paint", &err) == CROWD_OK, "%s", err.message);
    crowd_gl_destroy(r);
    crowd_destroy(c);
    showcase_stage_set_ground_paint(gl_fixture_stage(), 0, 0.0f); /* borrowed: off before it goes */
    glDeleteTextures(1, &texture);
}

/* Half-way through a walk -> run cross-fade the pose is neither the walk nor the run. */
static void cross_fade_halfway(void)
{
    uint32_t walk = clip_or_die(&asset, "walk"), run = clip_or_die(&asset, "run");
    crowd_gl_scene s = test_default_scene();
    s.flat_color = true;
    look(s.view, s.projection, 3, 1.2f, 0, 0, 1.0f, 0);
    uint8_t *images[3] = {pixels, pixels2, pixels3};
    for (int k = 0; k < 3; k++) {
        crowd *c = make_crowd(1);
        crowd_gl_renderer *r = make_renderer(c);
        crowd_set_transform(c, 0, 0, 0, 0, 0);
        crowd_play(c, 0, (uint32_t)walk, 1.0f / asset.clips[walk].duration, 0.0f);
        crowd_set_phase(c, 0, 0.25f);
        crowd_view v = {.viewport_height = H};
        memcpy(v.view, s.view, sizeof v.view);
        memcpy(v.projection, s.projection, sizeof v.projection);
        crowd_update(c, 0.0f, &v);
        if (k == 1) /* fading over 1 s, seen half-way */
            crowd_play(c, 0, (uint32_t)run, 1.0f / asset.clips[run].duration, 1.0f);
        if (k == 2) /* the run alone, started at the same moment */
            crowd_play(c, 0, (uint32_t)run, 1.0f / asset.clips[run].duration, 0.0f);
        render(c, r, &s, 0.5f, images[k]);
        crowd_gl_destroy(r);
        crowd_destroy(c);
    }
    save("fade_walk", pixels);
    save("fade_halfway", pixels2);
    save("fade_run", pixels3);
    diff to_walk = compare(pixels2, pixels, 40), to_run = compare(pixels2, pixels3, 40);
    CHECKF(to_walk.over > 300 && to_run.over > 300, "half-way differs from walk in %u and from run in %u pixels",
           to_walk.over, to_run.over);
}

/* A red cap on the "head" socket sits on top of the head, and only instances wearing it show it. */
static void attachments_sit_on_the_head(void)
{
    crowd *c = make_crowd(2);
    crowd_gl_renderer *r = make_renderer(c);
    static const float cap_p[] = {-0.1f, 0, -0.1f, 0.1f, 0, -0.1f, 0.1f, 0, 0.1f, -0.1f, 0, 0.1f, 0, 0.12f, 0};
    static const float cap_n[] = {-0.6f, 0.5f, -0.6f, 0.6f, 0.5f, -0.6f, 0.6f, 0.5f, 0.6f, -0.6f, 0.5f, 0.6f, 0, 1, 0};
    static const uint32_t cap_i[] = {0, 2, 1, 0, 3, 2, 0, 4, 3, 3, 4, 2, 2, 4, 1, 1, 4, 0};
    crowd_gl_attachment_desc cap = {cap_p, cap_n, 5, cap_i, 18, "head", {255, 0, 0, 255}, 0, 4};
    REQUIRE(crowd_gl_add_attachment(r, &cap, NULL, NULL) == CROWD_OK);
    crowd_variant wearing = {{255, 255, 255}, {0}, 1}, bare = {{255, 255, 255}, {0}, 0};
    crowd_set_transform(c, 0, -0.8f, 0, 0, 0);
    crowd_set_transform(c, 1, 0.8f, 0, 0, 0);
    crowd_set_variant(c, 0, &wearing);
    crowd_set_variant(c, 1, &bare);
    uint32_t wave = clip_or_die(&asset, "cheer");
    for (uint32_t i = 0; i < 2; i++)
        crowd_play(c, i, (uint32_t)wave, 1.0f / asset.clips[wave].duration, 0.0f);
    crowd_gl_scene s = test_default_scene();
    s.flat_color = true;
    s.shadows = false;
    look(s.view, s.projection, 0, 1.7f, 4, 0, 1.2f, 0);
    render(c, r, &s, 0.3f, pixels);
    save("attachment", pixels);
    /* Where the head socket is: its bone's matrix at this frame (cheer, 0.3 s of 1.2 s = frame 9)
     * applied to the socket offset, placed at the instance, projected. */
    uint32_t socket = 0;
    REQUIRE(crowd_asset_find_socket(&asset, "head", &socket));
    const crowd_clip *cheer = &asset.clips[wave];
    uint32_t frame = cheer->first_frame + (uint32_t)lroundf(0.3f / cheer->duration * (float)cheer->frame_count);
    float m[12];
    REQUIRE(crowd_asset_bone_matrix(&asset, frame, asset.sockets[socket].bone, m) == CROWD_OK);
    const float *o = asset.sockets[socket].offset;
    float world[4] = {0, 0, 0, 1};
    for (int row = 0; row < 3; row++)
        world[row] = m[row * 4] * o[3] + m[row * 4 + 1] * o[7] + m[row * 4 + 2] * o[11] + m[row * 4 + 3];
    world[0] -= 0.8f;
    float clip[4] = {0, 0, 0, 0}, vp[16];
    for (int col = 0; col < 4; col++)
        for (int row = 0; row < 4; row++)
            vp[col * 4 + row] = s.projection[row] * s.view[col * 4] + s.projection[4 + row] * s.view[col * 4 + 1] +
                                s.projection[8 + row] * s.view[col * 4 + 2] +
                                s.projection[12 + row] * s.view[col * 4 + 3];
    for (int row = 0; row < 4; row++)
        clip[row] = vp[row] * world[0] + vp[4 + row] * world[1] + vp[8 + row] * world[2] + vp[12 + row];
    float socket_x = (clip[0] / clip[3] * 0.5f + 0.5f) * W, socket_y = (0.5f - clip[1] / clip[3] * 0.5f) * H;

    int red_left = 0, red_right = 0, red_max_y = -1;
    double red_x = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const uint8_t *q = pixels + 3 * (y * W + x);
            if (!(q[0] > 120 && q[1] < 60 && q[2] < 60))
                continue;
            red_left += x < W / 2;
            red_right += x >= W / 2;
            red_x += x;
            red_max_y = y > red_max_y ? y : red_max_y;
        }
    CHECKF(red_left > 20, "no cap on the instance wearing it (%d red pixels)", red_left);
    CHECKF(red_right == 0, "%d red pixels on the instance not wearing it", red_right);
    red_x /= red_left ? red_left : 1;
    /* the cap is centred on the socket and its brim (the lowest red row) sits at the socket */
    CHECKF(fabs(red_x - socket_x) < 4.0 && fabsf((float)red_max_y - socket_y) < 4.0f,
           "cap centre x %.1f, brim row %d; socket at (%.1f, %.1f)", red_x, red_max_y, (double)socket_x,
           (double)socket_y);
    crowd_gl_destroy(r);
    crowd_destroy(c);
}

/* A cube of half-size h on the socket, lifted by `lift`, each face mapped to the whole texture. */
typedef struct cube_mesh {
    float p[72], n[72], uv[48];
    uint32_t i[36];
} cube_mesh;

static void make_cube(cube_mesh *m, float h, float lift)
{
    for (int face = 0; face < 6; face++) {
        int axis = face / 2;
        float sign = face % 2 ? -1.0f : 1.0f;
        for (int k = 0; k < 4; k++) {
            float a = (k == 1 || k == 2) ? 1.0f : -1.0f, b = k >= 2 ? 1.0f : -1.0f, c[3];
            c[axis] = sign, c[(axis + 1) % 3] = a, c[(axis + 2) % 3] = b;
            for (int j = 0; j < 3; j++) {
                m->p[(face * 4 + k) * 3 + j] = c[j] * h + (j == 1 ? lift : 0.0f);
                m->n[(face * 4 + k) * 3 + j] = j == axis ? sign : 0.0f;
            }
            m->uv[(face * 4 + k) * 2] = (a + 1.0f) * 0.5f;
            m->uv[(face * 4 + k) * 2 + 1] = (b + 1.0f) * 0.5f;
        }
        static const uint32_t quad[6] = {0, 1, 2, 0, 2, 3};
        for (int q = 0; q < 6; q++) /* both windings' faces show: back faces are culled per face sign */
            m->i[face * 6 + q] = (uint32_t)(face * 4) + (face % 2 ? quad[5 - q] : quad[q]);
    }
}

typedef struct hues {
    uint32_t red, green, blue;
} hues;

/* Hues of `rgb` where it differs from `without` (what the attachments cover), in columns x0..x1. */
static hues count_hues(const uint8_t *rgb, const uint8_t *without, int x0, int x1)
{
    hues h = {0, 0, 0};
    for (int y = 0; y < H; y++)
        for (int x = x0; x < x1; x++) {
            const uint8_t *q = rgb + 3 * (y * W + x), *o = without + 3 * (y * W + x);
            if (abs(q[0] - o[0]) + abs(q[1] - o[1]) + abs(q[2] - o[2]) < 24)
                continue;
            h.red += q[0] > q[1] + 60 && q[0] > q[2] + 60;
            h.green += q[1] > q[0] + 60 && q[1] > q[2] + 60;
            h.blue += q[2] > q[0] + 60 && q[2] > q[1] + 60;
        }
    return h;
}

/* Attachments' looks: one with its own texture (a 2 x 2 of red, green, blue, white) shows the
 * texture's colours; a white one tinted per instance shows the instance's tint (blue). */
static void attachments_with_texture_and_tint(void)
{
    crowd *c = make_crowd(2);
    crowd_gl_renderer *r = make_renderer(c);
    static cube_mesh cube;
    make_cube(&cube, 0.12f, 0.12f);
    static const uint8_t texture[16] = {255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255};
    crowd_gl_attachment_desc textured = {cube.p,  cube.n,  24, cube.i, 36,    "head", {255, 255, 255, 255}, 0, 0,
                                         cube.uv, texture, 2,  2,      false, 0.0f};
    crowd_gl_attachment_desc tinted = {cube.p, cube.n, 24, cube.i, 36,   "head", {255, 255, 255, 255}, 1, 0,
                                       NULL,   NULL,   0,  0,      true, 0.0f};
    REQUIRE(crowd_gl_add_attachment(r, &textured, NULL, NULL) == CROWD_OK);
    REQUIRE(crowd_gl_add_attachment(r, &tinted, NULL, NULL) == CROWD_OK);
    crowd_variant bare = {{255, 255, 255}, {0}, 0}, cap = {{255, 255, 255}, {0}, 1};
    crowd_variant blue_bare = {{0, 0, 255}, {0}, 0}, blue_cap = {{0, 0, 255}, {0}, 2};
    crowd_set_transform(c, 0, -0.8f, 0, 0, 0.6f);
    crowd_set_transform(c, 1, 0.8f, 0, 0, -0.6f);
    crowd_gl_scene s = test_default_scene();
    s.shadows = false;
    look(s.view, s.projection, 0, 2.6f, 2.6f, 0, 1.6f, 0);
    crowd_set_variant(c, 0, &bare);
    crowd_set_variant(c, 1, &blue_bare);
    render(c, r, &s, 0.0f, pixels2);
    crowd_set_variant(c, 0, &cap);
    crowd_set_variant(c, 1, &blue_cap);
    render(c, r, &s, 0.0f, pixels);
    save("attachment_looks", pixels);
    hues left = count_hues(pixels, pixels2, 0, W / 2), right = count_hues(pixels, pixels2, W / 2, W);
    printf("     textured cap: %u red, %u green, %u blue px; tinted cap: %u blue (%u red, %u green)\n", left.red,
           left.green, left.blue, right.blue, right.red, right.green);
    CHECK(left.red > 30 && left.green > 30 && left.blue > 30);
    CHECK(right.blue > 100 && right.red < 10 && right.green < 10);
    CHECK(left.blue < left.red + left.green + left.blue); /* (the texture, not one colour) */
    crowd_gl_destroy(r);
    crowd_destroy(c);
}

/* Pixels that differ between the instance wearing accessory `bit` and not. */
static uint32_t worn_pixels(crowd *c, crowd_gl_renderer *r, crowd_gl_scene *s, uint8_t bit)
{
    crowd_variant bare = {{255, 255, 255}, {0}, 0}, wearing = {{255, 255, 255}, {0}, (uint8_t)(1u << bit)};
    crowd_set_variant(c, 0, &bare);
    render(c, r, s, 0.0f, pixels);
    crowd_set_variant(c, 0, &wearing);
    render(c, r, s, 0.0f, pixels2);
    return compare(pixels, pixels2, 12).over;
}

/* Far away (a coarse mesh level) a big attachment still shows when it may draw at every level and is
 * larger than its size test; max_lod 1 or a size test larger than it hide it. */
static void attachments_at_far_levels(void)
{
    crowd *c = make_crowd(1);
    crowd_gl_renderer *r = make_renderer(c);
    static cube_mesh ball;
    make_cube(&ball, 0.3f, 0.4f);
    crowd_gl_attachment_desc every = {
        ball.p, ball.n, 24, ball.i, 36,    "head", {255, 40, 40, 255}, 0, CROWD_MAX_LOD_ALL,
        NULL,   NULL,   0,  0,      false, 0.0f};
    crowd_gl_attachment_desc near_only = every, large_test = every;
    near_only.accessory_bit = 1, near_only.max_lod = 1;
    large_test.accessory_bit = 2, large_test.min_pixels = 200.0f;
    REQUIRE(crowd_gl_add_attachment(r, &every, NULL, NULL) == CROWD_OK);
    REQUIRE(crowd_gl_add_attachment(r, &near_only, NULL, NULL) == CROWD_OK);
    REQUIRE(crowd_gl_add_attachment(r, &large_test, NULL, NULL) == CROWD_OK);
    crowd_set_transform(c, 0, 0, 0, -40.0f, 0);
    crowd_gl_scene s = test_default_scene();
    s.shadows = false;
    look(s.view, s.projection, 0, 2.0f, 10.0f, 0, 1.5f, -40.0f);
    render(c, r, &s, 0.0f, pixels);
    const crowd_frame *f = crowd_update(c, 0.0f, &(crowd_view){.viewport_height = H});
    uint32_t level = f && f->draw_count ? f->draws[0].lod : 0;
    uint32_t shown = worn_pixels(c, r, &s, 0), capped = worn_pixels(c, r, &s, 1), tested = worn_pixels(c, r, &s, 2);
    printf("     at 50 m (mesh level %u): every level %u px, max_lod 1 %u px, min_pixels 200 %u px\n", level, shown,
           capped, tested);
    CHECK(level >= 2 && shown > 20 && capped == 0 && tested == 0);
    crowd_gl_destroy(r);
    crowd_destroy(c);
}

/* A renderer from a desc, for the contract tests (NULL on failure, with the message printed). */
static crowd_gl_renderer *renderer_with(crowd_gl_desc d)
{
    d.asset = &asset;
    d.es = gl.es;
    d.shadow_map_size = 1024;
    crowd_gl_renderer *r = NULL;
    crowd_error err = {0};
    if (crowd_gl_create(&d, &r, &err) != CROWD_OK) {
        fprintf(stderr, "crowd_gl_create: %s\n", err.message);
        return NULL;
    }
    uint8_t ground[4] = {120, 130, 110, 255};
    CHECK(showcase_stage_set_ground(gl_fixture_stage(), 200.0f, ground, NULL) == CROWD_OK);
    return r;
}

/* A turning record (CROWD_RECORD_TURN: the simulation writes them for far agents) drawn by the
 * shaders where the CPU's decode puts it: three walkers whose records turn towards another
 * velocity, 1.5 s into their turns, against three plain records standing at the positions and yaws
 * crowd_record_position / crowd_record_yaw give for that time, the same clips and phases. The
 * frames must agree; the same records without the TURN bit (a straight extrapolation) must not. */
static void turn_records_render_where_the_cpu_says(void)
{
    const uint32_t n = 3;
    const float seconds = 1.5f;
    crowd *turning = make_crowd(n), *placed = make_crowd(n);
    crowd_gl_renderer *r = make_renderer(turning);
    uint32_t walk = clip_or_die(&asset, "walk");
    block(turning, n, walk);
    block(placed, n, walk);
    const float v0[3][2] = {{1.4f, 0.0f}, {0.0f, -1.3f}, {-1.0f, 1.0f}},
                d[3][2] = {{0.0f, 1.4f}, {1.2f, 0.4f}, {1.3f, 0.2f}};
    crowd_record want[3];
    for (uint32_t i = 0; i < n; i++) {
        crowd_record *rec = &turning->records[crowd_slot_of(turning, i)];
        rec->velocity = crowd_pack_velocity(v0[i][0], v0[i][1]);
        rec->ref_time = crowd_time(turning);
        rec->offset_b = d[i][0], rec->rate_b = d[i][1], rec->fade_start = 1.5f, rec->fade_rate = 0.0f;
        crowd_rec_set_clip_b(rec, crowd_rec_clip_a(rec));
        rec->clips |= CROWD_RECORD_TURN;
        turning->dirty[crowd_slot_of(turning, i)] = 1;
        want[i] = *rec;
    }
    float time = crowd_time(turning) + seconds, moved = 0.0f, turned = 0.0f;
    for (uint32_t i = 0; i < n; i++) {
        float at[3];
        crowd_record_position(&want[i], time, at);
        float yaw = crowd_record_yaw(&want[i], time);
        REQUIRE(crowd_set_transform(placed, i, at[0], at[1], at[2], yaw) == CROWD_OK);
        moved = fmaxf(moved, hypotf(at[0] - want[i].position[0], at[2] - want[i].position[2]));
        turned = fmaxf(turned, fabsf(remainderf(yaw - atan2f(v0[i][0], v0[i][1]), 6.2831853f)));
    }
    crowd_gl_scene s = test_default_scene();
    s.shadows = false;
    look(s.view, s.projection, -7, 3.5f, 7, -7, 0.8f, 0); /* the block's first three, x -9..-5 */
    render(turning, r, &s, seconds, pixels);
    crowd_gl_renderer *r2 = make_renderer(placed);
    render(placed, r2, &s, seconds, pixels2);
    diff same = compare(pixels, pixels2, 24);
    /* control: the turn bit cleared, the same records extrapolate in a straight line */
    crowd *straight = make_crowd(n);
    block(straight, n, walk);
    for (uint32_t i = 0; i < n; i++) {
        crowd_record *rec = &straight->records[crowd_slot_of(straight, i)];
        *rec = want[i];
        rec->clips &= ~(uint32_t)CROWD_RECORD_TURN;
        rec->offset_b = rec->offset_a, rec->rate_b = rec->rate_a, rec->fade_start = 0.0f;
        straight->dirty[crowd_slot_of(straight, i)] = 1;
    }
    crowd_gl_renderer *r3 = make_renderer(straight);
    render(straight, r3, &s, seconds, pixels3);
    diff other = compare(pixels3, pixels2, 24);
    save("turn_records", pixels);
    save("turn_placed", pixels2);
    printf("     %u turning records after %.1f s (moved up to %.2f m, turned up to %.2f rad): mean difference %.3f, "
           "%u px beyond 24 against records placed by the CPU's decode; straight extrapolation %u px\n",
           n, (double)seconds, (double)moved, (double)turned, same.mean, same.over, other.over);
    CHECK(moved > 1.0f && turned > 0.5f); /* the turns really move and turn them */
    CHECKF(same.over <= 40 && same.mean < 0.3, "turning vs placed: mean %.3f, %u px", same.mean, same.over);
    CHECKF(other.over > 400, "the straight extrapolation differs by %u px only", other.over);
    crowd_gl_destroy(r);
    crowd_gl_destroy(r2);
    crowd_gl_destroy(r3);
    crowd_destroy(turning);
    crowd_destroy(placed);
    crowd_destroy(straight);
}

/* Orphaning, the ring and in-place sub-data draw the same pixels, frame after frame of a walking
 * crowd (the ring's buffers each catch up on the ranges they missed); a renderer made with no
 * capacity grows its buffer to the crowd on upload. 900 more stand behind the camera and one of
 * them moves each frame: the ring writes the ranges one by one, not their hull (which spans slots
 * from the visible block to the far ones: at 100k on the page it was every record, 6.7 MB a frame). */
static void upload_modes_agree_and_buffers_grow(void)
{
    static const crowd_gl_upload_mode modes[3] = {CROWD_GL_UPLOAD_IN_PLACE, CROWD_GL_UPLOAD_ORPHAN,
                                                  CROWD_GL_UPLOAD_RING};
    enum { SHOWN = 100, ALL = 1000 };
    uint32_t walk = clip_or_die(&asset, "walk");
    crowd_gl_scene s = test_default_scene();
    look(s.view, s.projection, 0, 6, 14, 0, 0.8f, -8);
    uint8_t *images[3] = {pixels, pixels2, pixels3};
    uint64_t ring_bytes = 0;
    for (int m = 0; m < 3; m++) {
        crowd *c = make_crowd(ALL);
        /* capacity 1 and no crowd: only growth on upload can hold the records */
        crowd_gl_renderer *r = renderer_with((crowd_gl_desc){.capacity = 1, .upload = modes[m], .debug = true});
        REQUIRE(r != NULL);
        block(c, ALL, walk);
        for (uint32_t i = SHOWN; i < ALL; i++) /* behind the camera, spread over many chunks */
            crowd_set_transform(c, i, -90.0f + 0.2f * (float)(i - SHOWN), 0.0f, 60.0f + (float)(i % 7), 0.0f);
        for (int f = 0; f < 7; f++) {
            for (uint32_t i = 0; i < SHOWN; i += 3 + (uint32_t)f) /* a few records move each frame */
                crowd_set_transform(c, i, -9.0f + 2.0f * (float)(i % 10) + 0.1f * (float)f, 0.0f,
                                    -2.0f * (float)(i / 10), 0.3f * (float)i + 0.2f * (float)f);
            uint32_t far = SHOWN + (uint32_t)(f * 331) % (ALL - SHOWN);
            crowd_set_transform(c, far, -90.0f + 0.2f * (float)(far - SHOWN), 0.0f, 61.0f + (float)(far % 7),
                                0.1f * (float)f);
            render(c, r, &s, 1.0f / 30.0f, images[m]);
        }
        const crowd_gl_stats *st = crowd_gl_get_stats(r);
        CHECKF(st->capacity >= ALL, "the buffer holds %u records", st->capacity);
        if (modes[m] == CROWD_GL_UPLOAD_RING)
            ring_bytes = st->bytes_uploaded;
        crowd_gl_destroy(r);
        crowd_destroy(c);
    }
    diff orphan = compare(pixels, pixels2, 0), ring = compare(pixels, pixels3, 0);
    CHECKF(orphan.over == 0, "orphaning differs from in-place in %u pixels", orphan.over);
    CHECKF(ring.over == 0, "the ring differs from in-place in %u pixels", ring.over);
    /* the last frame's buffer missed three frames: the visible block's slots and three far ones */
    CHECKF(ring_bytes > 0 && ring_bytes <= 2 * SHOWN * sizeof(crowd_record), "the ring wrote %llu bytes (%llu records)",
           (unsigned long long)ring_bytes, (unsigned long long)(ring_bytes / sizeof(crowd_record)));
}

/* Region 0 is expressible; a region past the asset's is refused; the default finds the shirt. */
static void tint_region_sentinel(void)
{
    crowd_gl_renderer *r = renderer_with((crowd_gl_desc){.tint = CROWD_GL_TINT_REGION, .tint_region = 0});
    CHECK(r != NULL);
    crowd_gl_destroy(r);
    crowd_gl_desc bad = {.asset = &asset, .es = gl.es, .tint = CROWD_GL_TINT_REGION, .tint_region = asset.region_count};
    crowd_error err = {0};
    r = NULL;
    CHECK(crowd_gl_create(&bad, &r, &err) == CROWD_ERROR_ARGUMENT && r == NULL);
    CHECKF(strstr(err.message, "tint_region") != NULL, "message: %s", err.message);
    r = renderer_with((crowd_gl_desc){.tint = CROWD_GL_TINT_WASH});
    CHECK(r != NULL);
    crowd_gl_destroy(r);
}

/* The shadow pass returns to the target it was told about, not to what it would have to ask the
 * driver for: made while framebuffer 0 was bound (nothing to draw into surfaceless), the renderer
 * draws nothing visible until crowd_gl_set_target names the offscreen framebuffer. Shadow figures
 * read 0 once a frame runs without shadows. */
static void shadow_pass_returns_to_the_target(void)
{
    crowd *c = make_crowd(100);
    block(c, 100, clip_or_die(&asset, "idle"));
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    crowd_gl_renderer *r = renderer_with((crowd_gl_desc){.sizing_crowd = c, .debug = true});
    glBindFramebuffer(GL_FRAMEBUFFER, gl.fbo);
    REQUIRE(r != NULL);
    crowd_gl_scene s = test_default_scene();
    look(s.view, s.projection, 0, 6, 14, 0, 0.8f, -8);
    glClearColor(0.9f, 0.92f, 0.95f, 1.0f); /* the background, so what the last test drew does not count */
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    showcase_stage_show_ground(gl_fixture_stage(), false); /* the stage is the tests', not the renderer's */
    render(c, r, &s, 0.0f, pixels); /* the shadow pass leaves framebuffer 0 bound: the draw goes nowhere */
    showcase_stage_show_ground(gl_fixture_stage(), true);
    uint32_t drawn = 0;
    for (int i = 0; i < W * H; i++)
        drawn += !is_background(pixels + 3 * i);
    CHECKF(drawn == 0, "%u pixels drawn into a framebuffer the renderer was not told about", drawn);
    crowd_error err = {0};
    CHECK(crowd_gl_set_target(r, gl.fbo, 0, 0, W, H, &err) == CROWD_OK);
    render(c, r, &s, 0.0f, pixels);
    drawn = 0;
    for (int i = 0; i < W * H; i++)
        drawn += !is_background(pixels + 3 * i);
    CHECKF(drawn > W * H / 3, "only %u pixels drawn after crowd_gl_set_target", drawn);
    CHECK(crowd_gl_get_stats(r)->shadow_draws > 0);
    s.shadows = false;
    render(c, r, &s, 0.0f, pixels);
    CHECKF(crowd_gl_get_stats(r)->shadow_draws == 0 && crowd_gl_get_stats(r)->shadow_triangles == 0,
           "shadows off, still %u shadow draws", crowd_gl_get_stats(r)->shadow_draws);
    CHECK(crowd_gl_set_target(r, gl.fbo, 0, 0, 0, H, &err) == CROWD_ERROR_ARGUMENT);
    crowd_gl_destroy(r);
    crowd_destroy(c);
}

/* Debug mode finds a GL error made in the frame and says where; without it nothing is asked. */
static void debug_mode_reports_errors(void)
{
    crowd *c = make_crowd(10);
    block(c, 10, clip_or_die(&asset, "idle"));
    crowd_gl_scene s = test_default_scene();
    look(s.view, s.projection, 0, 6, 14, 0, 0.8f, -8);
    for (int debug = 0; debug < 2; debug++) {
        crowd_gl_renderer *r = renderer_with((crowd_gl_desc){.sizing_crowd = c, .debug = debug != 0});
        REQUIRE(r != NULL);
        crowd_view view = {.viewport_height = H};
        memcpy(view.view, s.view, sizeof view.view);
        memcpy(view.projection, s.projection, sizeof view.projection);
        const crowd_frame *f = crowd_update(c, 0.0f, &view);
        CHECK(crowd_gl_upload(r, f, NULL) == CROWD_OK);
        glEnable(0x7fff); /* INVALID_ENUM, made by "the application" */
        crowd_result result = crowd_gl_draw(r, f, &s);
        if (debug) {
            CHECK(result == CROWD_ERROR_GL);
            CHECKF(strstr(crowd_gl_last_error(r), "colour pass") != NULL, "last error: %s", crowd_gl_last_error(r));
        } else {
            CHECK(result == CROWD_OK);
            crowd_error err = {0};
            CHECK(crowd_gl_check("after", &err) == CROWD_ERROR_GL); /* still pending: nobody asked */
        }
        crowd_gl_destroy(r);
    }
    crowd_destroy(c);
}

/* Timer queries, where the context has them: results arrive a few frames late, without waiting. */
static void timer_queries_report_gpu_time(void)
{
    crowd *c = make_crowd(100);
    block(c, 100, clip_or_die(&asset, "walk"));
    crowd_gl_renderer *r = renderer_with((crowd_gl_desc){.sizing_crowd = c, .timers = true});
    REQUIRE(r != NULL);
    crowd_gl_scene s = test_default_scene();
    look(s.view, s.projection, 0, 6, 14, 0, 0.8f, -8);
    const crowd_gl_stats *st = crowd_gl_get_stats(r);
    if (!st->timers) {
        printf("     (no timer queries on this context: skipped)\n");
    } else {
        CHECK(st->gpu_color_ms < 0); /* nothing read yet */
        for (int f = 0; f < CROWD_GL_TIMER_LATENCY + 3; f++)
            render(c, r, &s, 1.0f / 30.0f, pixels); /* render() reads pixels: each frame is done */
        CHECKF(st->gpu_color_ms > 0 && st->gpu_shadow_ms > 0, "gpu ms: shadow %g, colour %g", st->gpu_shadow_ms,
               st->gpu_color_ms);
        printf("     gpu: shadow %.2f ms, colour %.2f ms\n", st->gpu_shadow_ms, st->gpu_color_ms);
    }
    crowd_gl_destroy(r);
    crowd_destroy(c);
}

/* showcase_stage_draw_sky right after the stage's draw leaves out the rows the ground surely covers: a second
 * sky call (the whole view: the first one used the ground's record up) must change no pixel, from a
 * walker's eye, from high up looking down (nothing to draw), near the ground's edge looking past it,
 * and looking up. */
static void sky_over_the_ground_misses_no_pixel(void)
{
    crowd *c = make_crowd(20);
    crowd_gl_renderer *r = make_renderer(c);
    block(c, 20, clip_or_die(&asset, "idle"));
    crowd_gl_scene s = test_default_scene();
    static const float views[5][6] = {{0, 1.7f, 12, 0, 1.2f, 0},
                                      {0, 60, 1, 0, 0, 0},
                                      {92, 3, 0, 120, 0, 5},
                                      {30, 16, 44, 0, 1.2f, 0},
                                      {0, 2, 0, 10, 20, 0}};
    uint32_t missed = 0, sky_pixels = 0;
    for (int v = 0; v < 5; v++) {
        look(s.view, s.projection, views[v][0], views[v][1], views[v][2], views[v][3], views[v][4], views[v][5]);
        render(c, r, &s, 0.0f, pixels3);
        showcase_stage_draw_sky(gl_fixture_stage(), &s);
        tool_gl_read_rgb(&gl, pixels);
        showcase_stage_draw_sky(gl_fixture_stage(), &s);
        tool_gl_read_rgb(&gl, pixels2);
        for (int i = 0; i < W * H; i++) {
            missed += memcmp(pixels + 3 * i, pixels2 + 3 * i, 3) != 0;
            sky_pixels += memcmp(pixels + 3 * i, pixels3 + 3 * i, 3) != 0;
        }
        if (v == 2)
            save("sky_past_the_edge", pixels);
    }
    printf("     sky over the ground: %u sky pixels over 5 views, %u missed by the bounded sky\n", sky_pixels, missed);
    CHECKF(missed == 0, "the bounded sky missed %u pixels", missed);
    CHECKF(sky_pixels > W * H, "only %u sky pixels over 5 views", sky_pixels);
    crowd_error err;
    CHECKF(crowd_gl_check("sky", &err) == CROWD_OK, "%s", err.message);
    crowd_gl_destroy(r);
    crowd_destroy(c);
}

/* The same bound when another pass drew the ground: the grass field's, following the camera, with the
 * stage's own ground hidden (showcase_stage_ground_drawn). It misses no pixel, and it is a bound: with
 * the depth cleared after the ground, the bounded sky paints only the rows it keeps. */
static void draw_grass_ground(crowd *c, crowd_gl_renderer *r, crowd_grass *grass, crowd_gl_scene *s)
{
    render(c, r, s, 0.0f, pixels3);
    crowd_grass_frame frame = {.budget = 0.05f};
    REQUIRE(crowd_grass_draw(grass, r, s, &frame) == CROWD_OK);
    tool_gl_read_rgb(&gl, pixels3);
    showcase_stage_ground_drawn(gl_fixture_stage(), 4000.0f, s);
}

static void sky_over_the_grass_ground_misses_no_pixel(void)
{
    crowd *c = make_crowd(20);
    crowd_gl_renderer *r = make_renderer(c);
    crowd_grass_desc gd = {.es = gl.es, .blades = 20000, .ground_size = 4000.0f};
    crowd_grass *grass = NULL;
    crowd_error err;
    REQUIRE(crowd_grass_create(&gd, &grass, &err) == CROWD_OK);
    showcase_stage_show_ground(gl_fixture_stage(), false);
    crowd_gl_scene s = test_default_scene();
    static const float views[4][6] = {
        {0, 1.7f, 12, 0, 1.2f, 0}, {0, 60, 1, 0, 0, 0}, {392, 3, 0, 420, 0, 5}, {28, 16, 44, 0, 1.2f, 0}};
    uint32_t missed = 0, painted = 0;
    for (int v = 0; v < 4; v++) {
        look(s.view, s.projection, views[v][0], views[v][1], views[v][2], views[v][3], views[v][4], views[v][5]);
        draw_grass_ground(c, r, grass, &s);
        showcase_stage_draw_sky(gl_fixture_stage(), &s);
        tool_gl_read_rgb(&gl, pixels);
        showcase_stage_draw_sky(gl_fixture_stage(), &s); /* the whole view */
        tool_gl_read_rgb(&gl, pixels2);
        for (int i = 0; i < W * H; i++)
            missed += memcmp(pixels + 3 * i, pixels2 + 3 * i, 3) != 0;
    }
    draw_grass_ground(c, r, grass, &s); /* the seed's camera, 16 m up: the ground fills the lower view */
    glClear(GL_DEPTH_BUFFER_BIT);
    showcase_stage_draw_sky(gl_fixture_stage(), &s);
    tool_gl_read_rgb(&gl, pixels);
    for (int i = 0; i < W * H; i++)
        painted += memcmp(pixels + 3 * i, pixels3 + 3 * i, 3) != 0;
    printf("     sky over the grass's ground: %u pixels missed over 4 views; at the seed's camera it paints %.1f %% "
           "of the view\n",
           missed, 100.0 * painted / (W * H));
    CHECKF(missed == 0, "the bounded sky missed %u pixels over the grass's ground", missed);
    CHECKF(painted < W * H / 2, "the sky painted %u of %u pixels: not bounded by the grass's ground", painted,
           (unsigned)(W * H));
    showcase_stage_show_ground(gl_fixture_stage(), true);
    CHECKF(crowd_gl_check("sky over grass", &err) == CROWD_OK, "%s", err.message);
    crowd_grass_destroy(grass);
    crowd_gl_destroy(r);
    crowd_destroy(c);
}

int main(int argc, char **argv)
{
    gl_fixture_open(argc, argv, W, H, &gl, &baked, &asset);
    RUN_TEST(frame_is_not_blank);
    RUN_TEST(vat_and_bone_modes_agree);
    RUN_TEST(bone_mode_refused_at_creation_for_morph_assets);
    RUN_TEST(vat_matches_cpu_skinning);
    RUN_TEST(shadows_darken_the_ground);
    RUN_TEST(a_shared_shadow_map_shadows_the_other_ground);
    RUN_TEST(ground_paint_is_lit_and_shadowed);
    RUN_TEST(cross_fade_halfway);
    RUN_TEST(attachments_sit_on_the_head);
    RUN_TEST(attachments_with_texture_and_tint);
    RUN_TEST(attachments_at_far_levels);
    RUN_TEST(turn_records_render_where_the_cpu_says);
    RUN_TEST(upload_modes_agree_and_buffers_grow);
    RUN_TEST(tint_region_sentinel);
    RUN_TEST(shadow_pass_returns_to_the_target);
    RUN_TEST(debug_mode_reports_errors);
    RUN_TEST(timer_queries_report_gpu_time);
    RUN_TEST(sky_over_the_ground_misses_no_pixel);
    RUN_TEST(sky_over_the_grass_ground_misses_no_pixel);
    gl_fixture_close(&gl, &baked, &asset);
    TEST_MAIN_END();
}
