/* The imposter tier on a real GL driver (Mesa llvmpipe through EGL): the atlas round trip through
 * the .crowd container, damaged IMPS sections, the card against the mesh it replaces (silhouette
 * IoU and mean colour over a clip's key frames and a ring of view angles), the hand-off band
 * (every instance drawn by exactly one representation), and the far-shadow blobs (crowd_gl_far_shadow). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "common/cbmath.h"
#include "common/view_matrices.h"
#include "core/format.h"
#include "crowdbake/gl.h"
#include "gl/gl_api.h"
#include "gl/gpu_crowd.h"
#include "gl_context.h"
#include "showcase/stage.h"
#include "test_support.h"

/* The comparison views are 256 x 256 pixels (the switch is set for that size) rendered at SS times
 * the pixel density, so IoU measures the card's shape rather than the rasterisation of a 22-pixel
 * figure (at 1x, aliasing alone costs two renderings of the same mesh a few tenths of IoU). */
#define VIEW 256
#define SS 3
#define W (VIEW * SS)
#define H (VIEW * SS)

static tool_gl gl;
static crowd_bake_output baked; /* version 1: no atlas */
static uint8_t *with_atlas;     /* version 2 */
static size_t with_atlas_size;
static crowd_asset asset;     /* loaded from with_atlas */
static crowd_imposters atlas; /* as rendered */
static uint8_t *pixels, *pixels2;

static void save(const char *name, const uint8_t *rgb, int w, int h)
{
    char path[256];
    mkdir("shots", 0755);
    snprintf(path, sizeof path, "shots/%s.png", name);
    tool_write_png(path, rgb, w, h, NULL);
}

static void atlas_round_trip(void)
{
    crowd_error err;
    /* the humanoid's bake carries footstep markers (MARK), which need version 4, with or without an
       atlas */
    CHECK(crowd_rd32(baked.bytes + 8) == 4u);
    CHECK(crowd_rd32(with_atlas + 8) == 4u);
    crowd_asset old = {0};
    CHECKF(crowd_asset_load_memory(&old, baked.bytes, baked.size, &err) == CROWD_OK, "%s", err.message);
    CHECK(old.imposters.frames == 0 && old.imposters.clips == NULL);
    const crowd_imposters *m = &asset.imposters;
    CHECK(m->frames == atlas.frames && m->views == atlas.views && m->elevations == atlas.elevations);
    CHECK(m->tile == atlas.tile && m->clip_count == asset.clip_count);
    CHECK(m->albedo.width == atlas.albedo.width && m->albedo.height == atlas.albedo.height);
    CHECK(!memcmp(m->albedo.data, atlas.albedo.data, (size_t)atlas.albedo.bytes));
    CHECK(!memcmp(m->normals.data, atlas.normals.data, (size_t)atlas.normals.bytes));
    for (uint32_t c = 0; c < m->clip_count; c++)
        CHECK(!memcmp(&m->clips[c], &atlas.clips[c], sizeof atlas.clips[c]));
    for (uint32_t e = 0; e < m->elevations; e++)
        CHECK(m->elevation[e] == atlas.elevation[e]);
    /* adding the atlas again replaces it: one IMPS section, same bytes */
    uint8_t *again = NULL;
    size_t again_size = 0;
    CHECK(crowd_bake_add_imposters(with_atlas, with_atlas_size, &atlas, &again, &again_size, &err) == CROWD_OK);
    CHECK(again_size == with_atlas_size && again && !memcmp(again, with_atlas, with_atlas_size));
    crowd_bake_image_free(again);
    crowd_asset_free(&old);
}

/* One damaged copy: `edit` changes bytes of the IMPS section, the CRCs are recomputed, and the
 * loader must refuse it with a message naming the section. */
static void expect_refused(const char *what, void (*edit)(uint8_t *image, uint8_t *imps, uint64_t size))
{
    uint8_t *copy = aligned_copy(with_atlas, with_atlas_size);
    uint64_t size = 0;
    size_t at = section_offset(copy, CROWD_TAG_IMPS, &size);
    REQUIRE(at != 0);
    edit(copy, copy + at, size);
    reseal(copy, with_atlas_size);
    crowd_asset a;
    crowd_error err = {0};
    crowd_result r = crowd_asset_load_memory(&a, copy, with_atlas_size, &err);
    CHECKF(r != CROWD_OK && strstr(err.message, "IMPS"), "%s: %d %s", what, (int)r, err.message);
    free(copy);
}

static void edit_version(uint8_t *image, uint8_t *imps, uint64_t size)
{
    (void)imps, (void)size;
    crowd_wr32(image + 8, 1u);
}
static void edit_frames(uint8_t *image, uint8_t *imps, uint64_t size)
{
    (void)image, (void)size;
    crowd_wr32(imps + CROWD_IMPS_FRAMES, 0);
}
static void edit_tile(uint8_t *image, uint8_t *imps, uint64_t size)
{
    (void)image, (void)size;
    crowd_wr32(imps + CROWD_IMPS_TILE, 33);
}
static void edit_clips(uint8_t *image, uint8_t *imps, uint64_t size)
{
    (void)image, (void)size;
    crowd_wr32(imps + CROWD_IMPS_CLIP_COUNT, crowd_rd32(imps + CROWD_IMPS_CLIP_COUNT) + 1);
}
static void edit_first_tile(uint8_t *image, uint8_t *imps, uint64_t size)
{
    (void)image, (void)size;
    crowd_wr32(imps + CROWD_IMPS_HEADER_BYTES + 24, 0x7fffffffu);
}
static void edit_box(uint8_t *image, uint8_t *imps, uint64_t size)
{
    (void)image, (void)size;
    crowd_wrf32(imps + CROWD_IMPS_HEADER_BYTES + 4, NAN);
}
static void edit_elevation(uint8_t *image, uint8_t *imps, uint64_t size)
{
    (void)image, (void)size;
    crowd_wrf32(imps + CROWD_IMPS_ELEVATION + 4, -1.0f); /* not increasing */
}
static void edit_reserved(uint8_t *image, uint8_t *imps, uint64_t size)
{
    (void)image, (void)size;
    imps[CROWD_IMPS_RESERVED] = 1;
}
static void edit_width(uint8_t *image, uint8_t *imps, uint64_t size)
{
    (void)image, (void)size; /* a smaller atlas than the section holds */
    crowd_wr32(imps + CROWD_IMPS_HEIGHT, crowd_rd32(imps + CROWD_IMPS_HEIGHT) - crowd_rd32(imps + CROWD_IMPS_TILE));
}

static void damaged_sections_are_refused(void)
{
    expect_refused("IMPS in a version-1 file", edit_version);
    expect_refused("0 frames", edit_frames);
    expect_refused("tile not dividing the atlas", edit_tile);
    expect_refused("clip count", edit_clips);
    expect_refused("first tile past the atlas", edit_first_tile);
    expect_refused("NaN box", edit_box);
    expect_refused("elevations not increasing", edit_elevation);
    expect_refused("reserved field", edit_reserved);
    expect_refused("size mismatch", edit_width);
    /* every truncated prefix of the section is refused cleanly too (sizes are checked first) */
    uint64_t size = 0;
    size_t at = section_offset(with_atlas, CROWD_TAG_IMPS, &size);
    CHECK(at + size == with_atlas_size); /* IMPS is the last section */
    int refused = 0, tried = 0;
    for (uint64_t cut = 1; cut < size; cut += size / 7 + 1, tried++) {
        uint8_t *copy = aligned_copy(with_atlas, with_atlas_size);
        /* shorten the section in the table and the file */
        uint32_t count = crowd_rd32(copy + 12);
        for (uint32_t i = 0; i < count; i++) {
            uint8_t *e = copy + CROWD_FILE_HEADER_BYTES + i * CROWD_SECTION_ENTRY_BYTES;
            if (crowd_rd32(e) == CROWD_TAG_IMPS)
                crowd_wr64(e + 16, size - cut);
        }
        size_t total = (size_t)(at + size - cut);
        crowd_wr64(copy + 16, total);
        reseal(copy, total);
        crowd_asset a;
        crowd_error err;
        refused += crowd_asset_load_memory(&a, copy, total, &err) != CROWD_OK;
        free(copy);
    }
    CHECKF(refused == tried, "%d of %d truncations refused", refused, tried);
}

/* ---- rendering --------------------------------------------------------------------------------- */

typedef struct view_setup {
    float eye[3];
    crowd_gl_scene scene;
    crowd_view view;
} view_setup;

static view_setup camera_at(float yaw_deg, float elevation_deg, float distance, float fov_deg)
{
    view_setup v = {0};
    v.scene = test_default_scene();
    v.scene.shadows = false;
    v.scene.fog_density = 0.0f;
    float y = yaw_deg * 0.017453293f, e = elevation_deg * 0.017453293f;
    float target[3] = {0, 0.9f, 0}, up[3] = {0, 1, 0};
    v.eye[0] = distance * sinf(y) * cosf(e), v.eye[1] = 0.9f + distance * sinf(e),
    v.eye[2] = distance * cosf(y) * cosf(e);
    cb_look_at(v.scene.view, v.eye, target, up);
    cb_perspective(v.scene.projection, fov_deg * 0.017453293f, (float)W / H, 0.3f, 500.0f);
    v.view.viewport_height = H;
    memcpy(v.view.view, v.scene.view, sizeof v.view.view);
    memcpy(v.view.projection, v.scene.projection, sizeof v.view.projection);
    return v;
}

/* A crowd of one at the origin drawn at one level: mesh level `level`, or the cards (level =
 * the asset's level count). */
static crowd *one_instance(uint32_t level)
{
    bool cards = level >= asset.lod_count;
    crowd_desc d = {.asset = &asset,
                    .capacity = 4,
                    .far_pool = -1,
                    .shadows = -1,
                    .imposters = cards ? 1 : -1,
                    .imposter_band = CROWD_BAND_NONE};
    for (uint32_t l = 0; l + 1 < CROWD_MAX_LODS; l++) /* every level but the one wanted is empty */
        d.lod_distances[l] = cards || l < level ? 0.001f * (float)(l + 1) : 1e5f;
    crowd *c = NULL;
    crowd_error err;
    if (crowd_create(&d, &c, &err) != CROWD_OK) {
        fprintf(stderr, "crowd: %s\n", err.message);
        exit(1);
    }
    crowd_set_count(c, 1);
    crowd_variant look = {.tint = {200, 60, 40}};
    crowd_set_variant(c, 0, &look);
    return c;
}

static void draw_frame(crowd_gl_renderer *r, const crowd_frame *f, const crowd_gl_scene *scene, uint8_t *out)
{
    crowd_gl_upload(r, f, NULL);
    glClearColor(0, 0, 0, 1);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    crowd_gl_draw(r, f, scene);
    tool_gl_read_rgb(&gl, out);
}

static bool covered(const uint8_t *p)
{
    return p[0] | p[1] | p[2];
}

/* At the switch (the card covers about one tile of screen texels: the nearest it may be seen
 * without magnifying the atlas), a card and the last mesh level agree in silhouette and colour
 * over every key frame of a walk and of a wave, seen from 24 yaw angles (half of them between
 * baked views) at two elevations (one between the baked ones). */
static void compare_with_level(uint32_t level, float distance_scale, bool quick, double *iou_out, double *diff_out)
{
    crowd_gl_desc gd = {.asset = &asset, .capacity = 16, .es = !gl.es ? false : true, .path = CROWD_GL_PATH_CPU};
    crowd_gl_renderer *r = NULL;
    crowd_error err;
    REQUIRE(crowd_gl_create(&gd, &r, &err) == CROWD_OK);
    crowd *mesh = one_instance(level), *card = one_instance(asset.lod_count);
    const char *clips[2] = {"walk", "wave"};
    /* The instance faces 0.7 rad (40.1 deg), so 20 camera yaws 18 deg apart fall 10.1, 7.9, 4.1, 13.9
     * and 1.9 deg from the nearest of 12 baked views (30 deg apart) in turn (4.9, 7.1, 4.1, 1.1, 1.9
     * for 24 views; 1.5, 3.6, 4.1, 1.0, 6.2 for 28): spread over the gap, as a crowd sees them.
     * (The ring used to be 12 yaws 30 deg apart from 7 deg, every one 3.1 deg from a baked view: it
     * measured 0.879 and hid the yaw error.) */
    float elevations[2] = {10.0f, 25.0f}, yaw_step = quick ? 36.0f : 18.0f, yaw_offset = 0.0f;
    if (getenv("IMP_DEBUG") && *getenv("IMP_DEBUG")) /* experiments: IMP_DEBUG="elevation yaw-step yaw-offset" */
        sscanf(getenv("IMP_DEBUG"), "%f %f %f", &elevations[0], &yaw_step, &yaw_offset), elevations[1] = elevations[0];
    /* the character's 2.2 m box over `tile` pixels of a 256-pixel, 30 degree view */
    float distance =
        distance_scale * 2.2f * (float)VIEW / ((float)asset.imposters.tile * 2.0f * tanf(15.0f * 0.017453293f));
    uint64_t inter = 0, uni = 0, mesh_px = 0, card_px = 0;
    double worst = 1.0, mean_mesh[3] = {0, 0, 0}, mean_card[3] = {0, 0, 0};
    uint32_t frame_step = quick ? asset.imposters.frames / 2 : 1, views = 0;
    for (int ci = 0; ci < (quick ? 1 : 2); ci++) {
        uint32_t clip = clip_or_die(&asset, clips[ci]);
        for (uint32_t k = 0; k < asset.imposters.frames; k += frame_step)
            for (int ei = 0; ei < 2; ei++)
                for (int a = 0; a < (int)(360.0f / yaw_step + 0.5f); a++) {
                    view_setup v = camera_at(yaw_step * (float)a + yaw_offset, elevations[ei], distance, 30.0f);
                    views++;
                    crowd *both[2] = {mesh, card};
                    for (int i = 0; i < 2; i++) {
                        crowd_play(both[i], 0, clip, 0.0f, 0.0f);
                        crowd_set_phase(both[i], 0, (float)k / (float)asset.imposters.frames);
                        crowd_set_transform(both[i], 0, 0, 0, 0, 0.7f);
                    }
                    for (int flat = 1; flat >= 0; flat--) {
                        v.scene.flat_color = flat;
                        draw_frame(r, crowd_update(mesh, 0, &v.view), &v.scene, pixels);
                        draw_frame(r, crowd_update(card, 0, &v.view), &v.scene, pixels2);
                        uint64_t in = 0, un = 0;
                        for (int p = 0; p < W * H; p++) {
                            bool m = covered(pixels + 3 * p), c = covered(pixels2 + 3 * p);
                            if (flat) {
                                in += m && c, un += m || c;
                                mesh_px += m, card_px += c;
                                continue;
                            }
                            for (int ch = 0; ch < 3; ch++) {
                                mean_mesh[ch] += m ? pixels[3 * p + ch] : 0;
                                mean_card[ch] += c ? pixels2[3 * p + ch] : 0;
                            }
                        }
                        if (flat) {
                            inter += in, uni += un;
                            double iou = un ? (double)in / (double)un : 1.0;
                            if (iou < worst) {
                                worst = iou;
                                save("imposter_worst_mesh", pixels, W, H);
                                save("imposter_worst_card", pixels2, W, H);
                            }
                        }
                    }
                }
    }
    double iou = (double)inter / (double)uni, diff = 0.0;
    for (int ch = 0; ch < 3; ch++) {
        mean_mesh[ch] /= (double)mesh_px, mean_card[ch] /= (double)card_px;
        diff = fmax(diff, fabs(mean_mesh[ch] - mean_card[ch]));
    }
    printf("     LOD %u, %.2f x the switch, %.1f m (%.0f px): IoU %.3f over %u views (worst %.3f); mean colour mesh "
           "%.0f %.0f "
           "%.0f, card %.0f %.0f %.0f (max channel difference %.1f of 255)\n",
           level, (double)distance_scale, (double)distance, (double)((float)asset.imposters.tile / distance_scale), iou,
           views, worst, mean_mesh[0], mean_mesh[1], mean_mesh[2], mean_card[0], mean_card[1], mean_card[2], diff);
    *iou_out = iou, *diff_out = diff;
    crowd_destroy(mesh);
    crowd_destroy(card);
    crowd_gl_destroy(r);
}

static void card_matches_mesh(void)
{
    /* The atlas is baked from the default level, LOD lod_count - 2 (crowd_gl_imposter_desc.lod): where
     * the chain's levels end at the card distance (the demo's, crowd-bench's) that is the band's mesh
     * side (crowd.h CROWD_DRAW_BAND), the mesh the card replaces. Measured with the defaults (32 yaws
     * x 3 elevations, four-view blend) on llvmpipe, baked from LOD 3: IoU 0.904 against LOD 3 over this
     * ring, colour within 2.1 of 255. 28 yaws (IMP_SPEC="8 28 3 32", the default before session 12)
     * gave 0.898 (worst view 0.806): the yaw gap, not the level, held it under 0.9. Baked from LOD 0
     * (IMP_LOD=0, the bake before session 11) at 28 yaws the same ring gave 0.822 (worst 0.725) and
     * 7.5 against LOD 3. */
    uint32_t side = asset.lod_count - 2;
    double iou, diff, iou0, diff0;
    compare_with_level(side, 1.0f, false, &iou, &diff);
    CHECKF(iou >= 0.90, "IoU %.3f against the band's mesh side, LOD %u", iou, side);
    CHECKF(diff <= 4.0, "mean colour differs by %.1f of 255 from the band's mesh side", diff);
    /* Farther, where a card's own mip level is 0.5 (imposter.vert) and the atlas's nearest-level
     * filtering (imposter.c) switches to the half-size level: a quick ring (one clip, two frames, 10
     * yaws, 40 views). Measured on llvmpipe against LOD 3 at 32 yaws: IoU 0.903 (worst 0.845), colour within 3.0 (28 yaws: 0.894). (Baked from
     * LOD 0 and compared with LOD 0 it was 0.906 trilinear, 0.907 nearest level.) */
    compare_with_level(side, 1.41421356f, true, &iou, &diff);
    CHECKF(iou >= 0.88, "IoU %.3f against LOD %u at 1.41 x the switch", iou, side);
    CHECKF(diff <= 5.0, "mean colour differs by %.1f of 255 from LOD %u at 1.41 x the switch", diff, side);
    /* Against LOD 0, which the card never replaces in that chain: it bounds how far a card strays from
     * the full mesh (the default chain, with no level clamped at the card distance, hands off from a
     * finer level). Measured baked from LOD 3: IoU 0.805 (worst 0.708), colour within 7.0; baked from
     * LOD 0 it was 0.909 (worst 0.820) and 1.5. */
    compare_with_level(0, 1.0f, false, &iou0, &diff0);
    CHECKF(iou0 >= 0.78, "IoU %.3f against LOD 0", iou0);
    CHECKF(diff0 <= 10.0, "mean colour differs by %.1f of 255 from LOD 0", diff0);
}

/* A row of instances straddling the hand-off band, each drawn by exactly one of the band chunk's
 * two draws: the mesh draw alone and the card draw alone (the frame's draws filtered) never both
 * cover an instance's column, one of them always does, and which one is the CPU's
 * crowd_band_random(record) < blend factor. */
static void band_draws_everyone_once(void)
{
    crowd_gl_desc gd = {.asset = &asset, .capacity = 64, .es = gl.es, .path = CROWD_GL_PATH_CPU};
    crowd_gl_renderer *r = NULL;
    crowd_error err;
    REQUIRE(crowd_gl_create(&gd, &r, &err) == CROWD_OK);
    crowd_desc d = {.asset = &asset, .capacity = 64, .far_pool = -1, .shadows = -1, .imposters = 1};
    d.lod_distances[0] = 1.0f;
    d.lod_distances[asset.lod_count - 1] = 34.0f; /* the band: [29.6, 39.1] m */
    for (uint32_t l = 1; l + 1 < asset.lod_count; l++)
        d.lod_distances[l] = 1.0f + (float)l;
    /* the level before the last ends at the switch too (the demo's chain, clamped to the card
     * distance): the last level owns no distances, and the band hands off from the one before */
    d.lod_distances[asset.lod_count - 2] = 34.0f;
    crowd *c = NULL;
    REQUIRE(crowd_create(&d, &c, &err) == CROWD_OK);
    const uint32_t n = 40;
    crowd_set_count(c, n);
    uint64_t seed = 7;
    for (uint32_t i = 0; i < n; i++) {
        crowd_set_transform(c, i, -20.0f + 1.0f * (float)i, 0, 0, 0);
        crowd_variant look = {
            .tint = {(uint8_t)test_rand(&seed), (uint8_t)test_rand(&seed), (uint8_t)test_rand(&seed)}};
        crowd_set_variant(c, i, &look);
    }
    /* the camera 30 m in front of the row's left end: distances 30..45 m, left to right */
    static uint8_t wide[3 * 1024 * 256], wide2[3 * 1024 * 256];
    view_setup v = {0};
    v.scene = test_default_scene();
    v.scene.shadows = false;
    v.scene.flat_color = true;
    float eye[3] = {-20.0f, 1.0f, 30.0f}, target[3] = {0.0f, 1.0f, 0.0f}, up[3] = {0, 1, 0};
    cb_look_at(v.scene.view, eye, target, up);
    cb_perspective(v.scene.projection, 30.0f * 0.017453293f, 1024.0f / 256.0f, 0.3f, 500.0f);
    v.view.viewport_height = 256;
    memcpy(v.view.view, v.scene.view, sizeof v.view.view);
    memcpy(v.view.projection, v.scene.projection, sizeof v.view.projection);
    tool_gl wide_gl = {0};
    tool_gl saved = gl;
    REQUIRE(tool_gl_create_samples(&wide_gl, 1024, 256, gl.es, 0, &err) == CROWD_OK);
    gl = wide_gl;
    crowd_gl_destroy(r);
    REQUIRE(crowd_gl_create(&gd, &r, &err) == CROWD_OK);
    const crowd_frame *f = crowd_update(c, 0.0f, &v.view);
    crowd_gl_upload(r, f, NULL);
    /* each instance of a band chunk alone, once through the mesh draw and once through the cards */
    crowd_draw one;
    crowd_frame only = *f;
    only.draws = &one;
    only.draw_count = 1;
    int once = 0, both = 0, none = 0, agree = 0, cards = 0, tested = 0;
    for (uint32_t i = 0; i < f->draw_count; i++) {
        const crowd_draw *mesh_draw = &f->draws[i];
        if (!(mesh_draw->flags & CROWD_DRAW_BAND) || (mesh_draw->flags & CROWD_DRAW_IMPOSTER))
            continue;
        const crowd_draw *card_draw = NULL;
        for (uint32_t j = 0; j < f->draw_count; j++)
            if ((f->draws[j].flags & CROWD_DRAW_IMPOSTER) && f->draws[j].first == mesh_draw->first)
                card_draw = &f->draws[j];
        CHECK(card_draw && card_draw->count == mesh_draw->count && (card_draw->flags & CROWD_DRAW_BAND));
        CHECKF(mesh_draw->lod == asset.lod_count - 2, "the band's mesh side is LOD %u, not the chain's %u",
               mesh_draw->lod, asset.lod_count - 2);
        if (!card_draw)
            continue;
        for (uint32_t slot = mesh_draw->first; slot < mesh_draw->first + mesh_draw->count; slot++) {
            int drawn[2];
            for (int pass = 0; pass < 2; pass++) {
                one = pass ? *card_draw : *mesh_draw;
                one.first = slot, one.count = 1;
                glViewport(0, 0, 1024, 256);
                glClearColor(0, 0, 0, 1);
                glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
                crowd_gl_draw(r, &only, &v.scene);
                tool_gl_read_rgb(&gl, pass ? wide2 : wide);
                drawn[pass] = 0;
                for (int p = 0; p < 1024 * 256; p++)
                    drawn[pass] += covered((pass ? wide2 : wide) + 3 * p);
            }
            const crowd_record *rec = &f->records[slot];
            float at[3];
            crowd_record_position(rec, f->time, at);
            float dx = at[0] - eye[0], dy = at[1] - eye[1], dz = at[2] - eye[2];
            float fb = (sqrtf(dx * dx + dy * dy + dz * dz) - f->imposter_band[0]) /
                       (f->imposter_band[1] - f->imposter_band[0]);
            bool want_card = crowd_band_random(rec) < (fb < 0 ? 0 : fb > 1 ? 1 : fb);
            bool m = drawn[0] > 0, cd = drawn[1] > 0;
            if (m == cd || cd != want_card)
                printf("     slot %u: distance %.2f m, f %.3f, random %.3f: mesh %d px, card %d px\n", slot,
                       (double)sqrtf(dx * dx + dy * dy + dz * dz), (double)fb, (double)crowd_band_random(rec), drawn[0],
                       drawn[1]);
            once += m != cd, both += m && cd, none += !m && !cd;
            agree += cd == want_card;
            cards += cd;
            tested++;
        }
    }
    printf("     band [%.1f, %.1f] m: %d of %d instances in band chunks drawn once (%d by cards), %d twice, %d never; "
           "%d match the CPU rule\n",
           (double)f->imposter_band[0], (double)f->imposter_band[1], once, tested, cards, both, none, agree);
    CHECK(tested >= (int)n / 2);
    CHECK(once == tested && both == 0 && none == 0);
    CHECK(agree == tested);
    CHECK(cards > 3 && cards < tested - 3); /* both representations really take part */
    crowd_destroy(c);
    crowd_gl_destroy(r);
    tool_gl_destroy(&wide_gl);
    gl = saved;
    tool_gl_create_samples(&gl, W, H, saved.es, 0, &err); /* the wide context replaced the current one */
}

/* ---- the GPU-driven path's card partition ------------------------------------------------------ */

/* A spread crowd, coverage policy (per instance on both paths), imposters on: the GPU's partitions
 * (read back: a test may stall) against the CPU draw list, slot by slot. Bands off: the same level
 * for every slot, cards included, and the same histogram. Bands on (the crowd's imposter_band): every
 * slot in at most one colour partition, the CPU's visible set, and the cards' rule per instance
 * (crowd_band_random against the log-coverage blend factor) the same on both, but for a handful at
 * float rounding distance from a boundary. Cards cast no shadow. Then one frame through each path:
 * the cards draw (pixels). */
static crowd *spread_crowd(uint32_t n, float band)
{
    crowd_desc d = {.asset = &asset,
                    .capacity = n,
                    .world_size = 400.0f,
                    .chunk_size = 16.0f,
                    .lod_policy = CROWD_LOD_SCREEN_COVERAGE,
                    .far_pool = -1,
                    .imposters = 1,
                    .imposter_band = band};
    for (uint32_t l = 0; l < asset.lod_count; l++) /* the last: the cards from about 60 m */
        d.screen_coverage[l] = 0.3f * powf(0.6f, (float)l);
    crowd *c = NULL;
    crowd_error err;
    if (crowd_create(&d, &c, &err) != CROWD_OK) {
        fprintf(stderr, "crowd: %s\n", err.message);
        exit(1);
    }
    crowd_set_count(c, n);
    uint64_t rng = 11;
    uint32_t walk = clip_or_die(&asset, "walk");
    for (uint32_t i = 0; i < n; i++) {
        float x = (float)(test_uniform(&rng) * 2.0 - 1.0) * 150.0f, z = -(float)test_uniform(&rng) * 180.0f;
        crowd_set_transform(c, i, x, 0.0f, z, (float)(test_uniform(&rng) * 6.28));
        crowd_set_scale(c, i, 0.8f + 0.4f * (float)test_uniform(&rng));
        crowd_variant v = {.tint = {(uint8_t)(37 * i), (uint8_t)(200 - 13 * i), (uint8_t)(90 + 31 * i)},
                           .region_choice = {(uint8_t)(i & 15), (uint8_t)((i >> 4) & 15)}};
        crowd_set_variant(c, i, &v);
        crowd_play(c, i, walk, 1.0f / asset.clips[walk].duration, 0.0f);
        crowd_set_phase(c, i, (float)test_uniform(&rng));
    }
    return c;
}

static void gpu_levels(const crowd_gl_renderer *r, uint32_t slots, int *colour, uint32_t *hist, uint32_t *casters,
                       uint32_t *twice)
{
    const crowd_gpu_layer *g = crowd_gpu_crowd_layer(r);
    uint32_t counts[CROWD_GPU_MAX_PARTITIONS], *ids = malloc((size_t)g->partition_count * g->partition_capacity * 4);
    crowd_gpu_layer_read(g, counts, ids);
    uint32_t levels = asset.lod_count; /* colour 0..levels-1, shadow levels..2 levels-1, cards 2 levels */
    REQUIRE(g->partition_count == 2 * levels + 1);
    for (uint32_t s = 0; s < slots; s++)
        colour[s] = -1;
    *casters = *twice = 0;
    for (uint32_t p = 0; p < g->partition_count; p++) {
        bool shadow = p >= levels && p < 2 * levels;
        uint32_t level = p < levels ? p : levels;
        if (shadow) {
            *casters += counts[p];
            continue;
        }
        hist[level] = counts[p];
        for (uint32_t k = 0; k < counts[p]; k++) {
            uint32_t s = ids[(size_t)p * g->partition_capacity + k];
            if (s < slots) {
                *twice += colour[s] >= 0;
                colour[s] = (int)level;
            }
        }
    }
    free(ids);
}

static void gpu_cards_match_the_cpu(void)
{
    if (gl.es) /* the GPU-driven path is desktop GL 4.3 */
        return;
    for (int banded = 0; banded < 2; banded++) {
        crowd *c = spread_crowd(3000, banded ? 0.3f : CROWD_BAND_NONE);
        crowd_gl_desc gd = {.asset = &asset,
                            .capacity = crowd_record_capacity(c),
                            .path = CROWD_GL_PATH_GPU,
                            .lod_band = -1.0f}; /* no band between mesh levels: exactly the CPU's */
        crowd_gl_renderer *r = NULL;
        crowd_error err;
        REQUIRE(crowd_gl_create(&gd, &r, &err) == CROWD_OK);
        view_setup v = camera_at(0.0f, 8.0f, 12.0f, 50.0f);
        const crowd_frame *f = crowd_update(c, 0.0f, &v.view);
        CHECK(crowd_gl_upload(r, f, NULL) == CROWD_OK);
        float light[16];
        const float sun[3] = {0.3f, 0.85f, 0.45f}, centre[3] = {0, 0, -60};
        crowd_gl_fit_shadow(r, sun, centre, 200.0f, light);
        crowd_gl_cull(r, f, &v.view, light);
        uint32_t slots = f->record_count, hist[CROWD_MAX_LODS] = {0}, casters = 0, twice = 0;
        int *cpu = malloc(slots * sizeof(int)), *colour = malloc(slots * sizeof(int));
        for (uint32_t s = 0; s < slots; s++)
            cpu[s] = -1;
        for (uint32_t d = 0; d < f->draw_count; d++)
            for (uint32_t s = f->draws[d].first; s < f->draws[d].first + f->draws[d].count; s++)
                cpu[s] = (int)f->draws[d].lod;
        gpu_levels(r, slots, colour, hist, &casters, &twice);
        uint32_t differ = 0, visible_differ = 0, cards = 0, cpu_cards = 0, cpu_visible = 0, drawn = 0;
        for (uint32_t s = 0; s < slots; s++) {
            differ += cpu[s] != colour[s];
            visible_differ += (cpu[s] >= 0) != (colour[s] >= 0);
            cards += colour[s] == (int)asset.lod_count;
            cpu_cards += cpu[s] == (int)asset.lod_count;
            cpu_visible += cpu[s] >= 0;
            drawn += colour[s] >= 0;
        }
        printf("     band %s: %u visible (CPU %u), levels", banded ? "0.3" : "off", drawn, cpu_visible);
        for (uint32_t l = 0; l <= asset.lod_count; l++)
            printf(" %u/%u", hist[l], f->stats.lod_histogram[l]);
        printf(" (GPU/CPU; the last: cards), %u slots differ, %u casters\n", differ, casters);
        CHECKF(twice == 0, "%u slots drawn twice", twice);
        CHECKF(visible_differ == 0 && drawn == cpu_visible, "visible sets differ in %u slots", visible_differ);
        CHECK(cpu_cards > 100 && cpu_visible - cpu_cards > 100); /* both representations take part */
        if (!banded) {
            CHECKF(differ == 0, "%u of %u slots at another level", differ, cpu_visible);
            for (uint32_t l = 0; l <= asset.lod_count; l++)
                CHECKF(hist[l] == f->stats.lod_histogram[l], "level %u: GPU %u, CPU %u", l, hist[l],
                       f->stats.lod_histogram[l]);
        } else {
            CHECKF(differ <= 3, "%u of %u slots at another level", differ, cpu_visible);
        }
        CHECKF(casters <= drawn - cards, "%u casters with %u mesh instances", casters, drawn - cards);
        /* the frame: both paths draw the same cards and meshes, so nearly the same pixels */
        if (!banded) {
            crowd_gl_renderer *cpu_r = NULL;
            gd.path = CROWD_GL_PATH_CPU;
            REQUIRE(crowd_gl_create(&gd, &cpu_r, &err) == CROWD_OK);
            v.scene.flat_color = true;
            draw_frame(cpu_r, f, &v.scene, pixels);
            glClearColor(0, 0, 0, 1);
            glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
            crowd_gl_draw(r, f, &v.scene);
            tool_gl_read_rgb(&gl, pixels2);
            uint64_t a = 0, b = 0, diff = 0;
            for (int p = 0; p < W * H; p++) {
                bool m = covered(pixels + 3 * p), n = covered(pixels2 + 3 * p);
                a += m, b += n, diff += m != n;
            }
            printf("     frame: CPU path %llu px, GPU path %llu px covered, %llu differ\n", (unsigned long long)a,
                   (unsigned long long)b, (unsigned long long)diff);
            CHECKF(a > 1000 && diff * 200 <= a, "GPU frame differs in %llu of %llu px", (unsigned long long)diff,
                   (unsigned long long)a);
            crowd_gl_destroy(cpu_r);
        }
        free(cpu);
        free(colour);
        crowd_gl_destroy(r);
        crowd_destroy(c);
    }
}

/* ---- far shadows (crowd_gl_far_shadow) -------------------------------------------------------------
 * A sparse block of 60 people 5 m apart (no two shadows meet) from 17 to 85 m, distance policy,
 * 8 m chunks: mesh levels near, cards far, the hand-off band between. Three frames of the same
 * update: shadows off (C), shadows on (A, NONE), shadows on with blobs (B). The blobs darken ground
 * pixels (B against A) and lighten none; a pixel the mesh shadows darken (A against C) is never
 * darkened by a blob too (each instance has one shadow: the band chunks' cards and the levels that
 * cast excluded); with every level casting and no cards, BLOB is NONE to the bit. */
static crowd *shadow_block(bool cards, uint32_t shadow_max_lod)
{
    crowd_desc d = {.asset = &asset,
                    .capacity = 64,
                    .world_size = 200.0f,
                    .chunk_size = 8.0f,
                    .far_pool = -1,
                    .shadow_max_lod = shadow_max_lod,
                    .imposters = cards ? 1 : -1,
                    .imposter_band = 0.3f};
    for (uint32_t l = 0; l < asset.lod_count; l++) /* 18, 24, 30 ... m; the cards from the last */
        d.lod_distances[l] = 18.0f + 6.0f * (float)l;
    crowd *c = NULL;
    crowd_error err;
    if (crowd_create(&d, &c, &err) != CROWD_OK) {
        fprintf(stderr, "crowd: %s\n", err.message);
        exit(1);
    }
    crowd_set_count(c, 60);
    uint32_t walk = clip_or_die(&asset, "walk");
    for (uint32_t i = 0; i < 60; i++) {
        crowd_set_transform(c, i, -7.5f + 5.0f * (float)(i % 4), 0.0f, -5.0f * (float)(i / 4), 0.4f * (float)i);
        crowd_variant v = {.tint = {(uint8_t)(40 + 37 * i), (uint8_t)(200 - 13 * i), (uint8_t)(90 + 31 * i)}};
        crowd_set_variant(c, i, &v);
        crowd_play(c, i, walk, 1.0f / asset.clips[walk].duration, 0.1f * (float)i);
    }
    return c;
}

typedef struct blob_counts {
    uint32_t darker, lighter, both, mesh, band_draws;
    bool identical;      /* B and A to the bit */
    bool left_to_caller; /* crowd_gl_draw alone with BLOB equals A: the blobs are crowd_gl_draw_far_shadows's */
} blob_counts;

static const float blob_eye[3] = {3.0f, 9.0f, 14.0f};

/* The far-shadow tests' view over shadow_block's people (from blob_eye) and its sun's shadow frustum. */
static crowd_gl_scene blob_view(crowd_gl_renderer *r, crowd_view *view, float light[16])
{
    crowd_gl_scene scene = test_default_scene();
    float target[3] = {0.0f, 0.0f, -30.0f}, up[3] = {0, 1, 0};
    cb_look_at(scene.view, blob_eye, target, up);
    cb_perspective(scene.projection, 50.0f * 0.017453293f, (float)W / H, 0.3f, 300.0f);
    *view = (crowd_view){.viewport_height = H};
    memcpy(view->view, scene.view, sizeof view->view);
    memcpy(view->projection, scene.projection, sizeof view->projection);
    const float centre[3] = {0.0f, 0.0f, -35.0f};
    crowd_gl_fit_shadow(r, scene.sun_direction, centre, 55.0f, light);
    return scene;
}

static void blob_frames(crowd_gl_path path, bool cards, uint32_t shadow_max_lod, blob_counts *out)
{
    memset(out, 0, sizeof *out);
    crowd *c = shadow_block(cards, shadow_max_lod);
    crowd_gl_desc gd = {
        .asset = &asset, .capacity = 64, .path = path, .shadow_map_size = 1024, .es = gl.es, .lod_band = -1.0f};
    crowd_gl_renderer *r = NULL;
    crowd_error err;
    if (crowd_gl_create(&gd, &r, &err) != CROWD_OK) {
        CHECKF(false, "renderer: %s", err.message);
        crowd_destroy(c);
        return;
    }
    static const uint8_t ground_color[4] = {150, 160, 140, 255};
    showcase_stage *ground = NULL; /* the caller's ground the blobs go on */
    REQUIRE(showcase_stage_create(gl.es, &ground, &err) == CROWD_OK &&
            showcase_stage_set_ground(ground, 150.0f, ground_color, &err) == CROWD_OK);
    crowd_view view = {0};
    float light[16];
    crowd_gl_scene scene = blob_view(r, &view, light);
    const crowd_frame *f = crowd_update(c, 0.0f, &view);
    blob_counts n = {0};
    for (uint32_t d = 0; d < f->draw_count; d++)
        n.band_draws += (f->draws[d].flags & CROWD_DRAW_BAND) != 0;
    CHECK(crowd_gl_upload(r, f, NULL) == CROWD_OK);
    crowd_gl_cull(r, f, &view, light); /* the GPU path's partitions (nothing on the CPU path) */
    uint8_t *off = malloc(3 * W * H), *draw_alone = malloc(3 * W * H);
    REQUIRE(off && draw_alone);
    for (int frame = 0; frame < 4; frame++) { /* C: shadows off, A: NONE, B: BLOB, BLOB without the call */
        scene.shadows = frame > 0;
        scene.far_shadow = frame >= 2 ? CROWD_GL_FAR_SHADOW_BLOB : CROWD_GL_FAR_SHADOW_NONE;
        if (scene.shadows)
            CHECK(crowd_gl_render_shadows(r, f, light) == CROWD_OK);
        glClearColor(0, 0, 0, 1);
        glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
        CHECK(crowd_gl_draw(r, f, &scene) == CROWD_OK);
        showcase_stage_draw(ground, r, &scene);
        if (frame < 3)
            crowd_gl_draw_far_shadows(r, f, &scene);
        uint8_t *target[4] = {off, pixels, pixels2, draw_alone};
        tool_gl_read_rgb(&gl, target[frame]);
    }
    CHECK(crowd_gl_check("blob frames", NULL) == CROWD_OK);
    if (getenv("BLOB_SHOTS")) { /* to look at: shots/blob_<path>_<case>_{none,blob}.png */
        char name[64];
        snprintf(name, sizeof name, "blob_%s_%d%u_none", path == CROWD_GL_PATH_GPU ? "gpu" : "cpu", cards,
                 shadow_max_lod & 7);
        save(name, pixels, W, H);
        name[strlen(name) - 4] = 0;
        strcat(name, "blob");
        save(name, pixels2, W, H);
    }
    n.darker = test_count_darker(pixels2, pixels, W * H, 6, 0, &n.lighter);
    n.identical = !memcmp(pixels, pixels2, 3 * (size_t)W * H);
    n.left_to_caller = !memcmp(pixels, draw_alone, 3 * (size_t)W * H);
    for (int p = 0; p < W * H; p++) {
        const uint8_t *a = pixels + 3 * p, *b = pixels2 + 3 * p, *o = off + 3 * p;
        int sa = a[0] + a[1] + a[2], sb = b[0] + b[1] + b[2], so = o[0] + o[1] + o[2];
        bool mesh = sa < so - 6, blob = sb < sa - 6;
        n.mesh += mesh;
        n.both += mesh && blob;
    }
    free(off);
    free(draw_alone);
    showcase_stage_destroy(ground);
    crowd_gl_destroy(r);
    crowd_destroy(c);
    *out = n;
}

/* The GPU path's distance policy hands off from the level the chain has at the band's near end, as
 * the CPU's: shadow_block's chain (18, 24, 30, 36 m, the cards from 42, band 0.3: [32.3, 54.6] m)
 * has LOD 3 there, so no instance is drawn at LOD 4, and each one in the band is the card exactly
 * when crowd_band_random(record) is below its blend factor (but for a handful at float rounding
 * distance from that boundary). */
static void gpu_band_follows_the_chain(void)
{
    if (gl.es) /* the GPU-driven path is desktop GL 4.3 */
        return;
    crowd *c = shadow_block(true, 1);
    crowd_gl_desc gd = {.asset = &asset, .capacity = 64, .path = CROWD_GL_PATH_GPU, .lod_band = -1.0f};
    crowd_gl_renderer *r = NULL;
    crowd_error err;
    REQUIRE(crowd_gl_create(&gd, &r, &err) == CROWD_OK);
    crowd_view view = {0};
    float light[16];
    crowd_gl_scene scene = blob_view(r, &view, light);
    const crowd_frame *f = crowd_update(c, 0.0f, &view);
    CHECK(crowd_gl_upload(r, f, NULL) == CROWD_OK);
    crowd_gl_cull(r, f, &view, light);
    uint32_t slots = f->record_count, hist[CROWD_MAX_LODS] = {0}, casters = 0, twice = 0;
    int *level = malloc(slots * sizeof(int));
    REQUIRE(level);
    gpu_levels(r, slots, level, hist, &casters, &twice);
    (void)scene;
    const float *eye = blob_eye;
    uint32_t in_band = 0, as_rule = 0, at_last = 0, cards = 0;
    const uint32_t mesh_side = asset.lod_count - 2, card = asset.lod_count;
    for (uint32_t s = 0; s < slots; s++) {
        if (level[s] < 0)
            continue;
        at_last += level[s] == (int)asset.lod_count - 1;
        cards += level[s] == (int)card;
        float at[3];
        crowd_record_position(&f->records[s], f->time, at);
        float dx = at[0] - eye[0], dy = at[1] - eye[1], dz = at[2] - eye[2];
        float d = sqrtf(dx * dx + dy * dy + dz * dz);
        if (d < f->imposter_band[0] || d > f->imposter_band[1])
            continue;
        float blend = (d - f->imposter_band[0]) / (f->imposter_band[1] - f->imposter_band[0]);
        bool want_card = crowd_band_random(&f->records[s]) < blend;
        in_band++;
        as_rule += level[s] == (int)(want_card ? card : mesh_side);
    }
    printf("     band [%.1f, %.1f] m: %u in it, %u as the rule says (LOD %u or card), %u at LOD %u, %u cards, %u "
           "twice\n",
           (double)f->imposter_band[0], (double)f->imposter_band[1], in_band, as_rule, mesh_side, at_last,
           asset.lod_count - 1, cards, twice);
    CHECK(in_band >= 10);
    CHECK(as_rule + 2 >= in_band);
    CHECK(at_last == 0);
    CHECK(twice == 0);
    free(level);
    crowd_destroy(c);
    crowd_gl_destroy(r);
}

static void far_shadow_blobs(void)
{
    for (int gpu = 0; gpu < 2; gpu++) {
        if (gpu && gl.es) /* the GPU-driven path is desktop GL 4.3 */
            break;
        crowd_gl_path path = gpu ? CROWD_GL_PATH_GPU : CROWD_GL_PATH_CPU;
        const char *name = gpu ? "GPU" : "CPU";
        /* levels 0-1 cast; 2 and up, the band's meshes and the cards get blobs */
        blob_counts a, b, e;
        blob_frames(path, true, 1, &a);
        /* every mesh level casts (the band chunks' meshes for their cards too): blobs for the cards past it */
        blob_frames(path, true, CROWD_MAX_LOD_ALL, &b);
        /* every level casts, no cards: nothing for the blobs to do */
        blob_frames(path, false, CROWD_MAX_LOD_ALL, &e);
        printf("     %s path: shadow_max_lod 1: %u px darker, %u lighter, %u darkened by both (mesh shadows "
               "%u px); all levels cast: %u / %u / %u (%u band draws); no cards: %u / %u\n",
               name, a.darker, a.lighter, a.both, a.mesh, b.darker, b.lighter, b.both, b.band_draws, e.darker,
               e.lighter);
        CHECKF(a.darker > 1500 && a.lighter == 0, "%s: %u darker, %u lighter", name, a.darker, a.lighter);
        CHECKF(b.darker > 150 && b.lighter == 0, "%s: %u darker, %u lighter", name, b.darker, b.lighter);
        CHECKF(a.darker > b.darker + 1000, "%s: the uncast levels' blobs: %u vs %u", name, a.darker, b.darker);
        CHECKF(a.mesh > 2000 && b.mesh > a.mesh, "%s: mesh shadows %u, %u px", name, a.mesh, b.mesh);
        CHECKF(a.both == 0 && b.both == 0, "%s: %u, %u px darkened by a blob and a mesh shadow", name, a.both, b.both);
        CHECKF(e.identical, "%s: no cards, every level casting: BLOB differs from NONE (%u / %u px)", name, e.darker,
               e.lighter);
        CHECKF(a.left_to_caller && b.left_to_caller, "%s: crowd_gl_draw drew blobs itself", name);
        if (!gpu)
            CHECKF(b.band_draws > 0, "no band chunk in view (%u)", b.band_draws);
    }
}

/* The highest covered texel of tile 0 (walk, key frame 0, the lowest elevation, view 0), as a
 * height in model space, and how many of its covered texels are red (the cap's colour). */
static float tile_top(const crowd_imposters *m, uint32_t *red)
{
    const crowd_imposter_clip *k = &m->clips[0];
    const uint8_t *albedo = m->albedo.data;
    float top = -1e30f;
    *red = 0;
    for (uint32_t y = 0; y < m->tile; y++)
        for (uint32_t x = 0; x < m->tile; x++) {
            const uint8_t *t = albedo + ((size_t)y * m->albedo.width + x) * 4;
            if (t[3] < 128)
                continue;
            /* the tile spans the box's height from the top row down (view 0 looks along -Z, almost level) */
            top = fmaxf(top, k->box_max[1] - ((float)y + 0.5f) / (float)m->tile * (k->box_max[1] - k->box_min[1]));
            *red += t[0] > t[1] + 60 && t[0] > t[2] + 60;
        }
    return top;
}

/* Cards baked with an attachment wear it: the tile's framing grows to hold a cap 0.3 m over the head
 * socket and its red texels are there; without it the tile tops out at the head. */
static void cards_wear_their_attachments(void)
{
    static const char *const walk[1] = {"walk"};
    crowd_bake_output bones =
        bake_or_die(humanoid(), (crowd_bake_desc){.bones = true, .clip_names = walk, .clip_name_count = 1, .fps = 10});
    crowd_asset a = {0};
    crowd_error err;
    REQUIRE(crowd_asset_load_memory(&a, bones.bytes, bones.size, &err) == CROWD_OK);
    static const float p[] = {-0.12f, 0.1f,   -0.12f, 0.12f, 0.1f, -0.12f, 0.12f, 0.1f,
                              0.12f,  -0.12f, 0.1f,   0.12f, 0,    0.3f,   0};
    static const float n[] = {-0.6f, 0.5f, -0.6f, 0.6f, 0.5f, -0.6f, 0.6f, 0.5f, 0.6f, -0.6f, 0.5f, 0.6f, 0, 1, 0};
    static const uint32_t i[] = {0, 2, 1, 0, 3, 2, 0, 4, 3, 3, 4, 2, 2, 4, 1, 1, 4, 0};
    crowd_gl_attachment_desc cap = {p, n, 5, i, 18, "head", {255, 0, 0, 255}, 5, 0, NULL, NULL, 0, 0, false, 0.0f};
    crowd_gl_imposter_desc plain = {.frames = 2, .views = 4, .elevations = 1, .tile = 48, .supersample = 2};
    crowd_gl_imposter_desc capped = plain;
    capped.attachments = &cap, capped.attachment_count = 1;
    crowd_imposters bare = {0}, worn = {0};
    CHECKF(crowd_gl_bake_imposters(&a, &plain, gl.es, &bare, &err) == CROWD_OK, "%s", err.message);
    CHECKF(crowd_gl_bake_imposters(&a, &capped, gl.es, &worn, &err) == CROWD_OK, "%s", err.message);
    if (bare.clips && worn.clips) {
        uint32_t red_bare = 0, red_worn = 0;
        float top_bare = tile_top(&bare, &red_bare), top_worn = tile_top(&worn, &red_worn);
        printf("     card tops: %.3f m bare, %.3f m with the cap (box top %.3f -> %.3f m); red texels %u -> %u\n",
               (double)top_bare, (double)top_worn, (double)bare.clips[0].box_max[1], (double)worn.clips[0].box_max[1],
               red_bare, red_worn);
        CHECK(worn.clips[0].box_max[1] > bare.clips[0].box_max[1] + 0.2f);
        CHECK(top_worn > top_bare + 0.2f && red_worn > 20 && red_bare == 0);
    }
    crowd_gl_imposters_free(&bare);
    crowd_gl_imposters_free(&worn);
    capped.attachments = NULL; /* a count without the list */
    CHECK(crowd_gl_bake_imposters(&a, &capped, gl.es, &worn, &err) == CROWD_ERROR_ARGUMENT);
    crowd_asset_free(&a);
    crowd_bake_output_free(&bones);
}

int main(int argc, char **argv)
{
    bool desktop = argc > 1 && !strcmp(argv[1], "--desktop");
    crowd_error err;
    if (tool_gl_create_samples(&gl, W, H, !desktop, 0, &err) != CROWD_OK) {
        fprintf(stderr, "GL context: %s\n", err.message);
        return 1;
    }
    printf("     %s on %s\n", desktop ? "OpenGL 3.3 core" : "OpenGL ES 3.0", gl.renderer);
    /* the two clips the checks use: the atlas bake (most of this test's time) covers only them */
    static const char *const clips[2] = {"walk", "wave"};
    crowd_bake_desc desc = {.clip_names = clips, .clip_name_count = 2};
    baked = bake_or_die(humanoid(), desc);
    crowd_asset plain = {0};
    crowd_gl_imposter_desc spec = {0}; /* the defaults; IMP_SPEC="frames views elevations tile" to measure others */
    if (getenv("IMP_SPEC"))
        sscanf(getenv("IMP_SPEC"), "%u %u %u %u", &spec.frames, &spec.views, &spec.elevations, &spec.tile);
    if (getenv("IMP_LOD")) /* IMP_LOD=n bakes from level n (0 = LOD 0) instead of the default, LOD lod_count - 2 */
        spec.lod = (uint32_t)atoi(getenv("IMP_LOD")) ? (uint32_t)atoi(getenv("IMP_LOD")) : CROWD_MAX_LOD_ZERO;
    if (getenv("IMP_ELEV")) /* and IMP_ELEV="degrees ..." for the baked elevations */
        sscanf(getenv("IMP_ELEV"), "%f %f %f %f", &spec.elevation_deg[0], &spec.elevation_deg[1],
               &spec.elevation_deg[2], &spec.elevation_deg[3]);
    if (crowd_asset_load_memory(&plain, baked.bytes, baked.size, &err) != CROWD_OK ||
        crowd_gl_bake_imposters(&plain, &spec, gl.es, &atlas, &err) != CROWD_OK ||
        crowd_bake_add_imposters(baked.bytes, baked.size, &atlas, &with_atlas, &with_atlas_size, &err) != CROWD_OK ||
        crowd_asset_load_memory(&asset, with_atlas, with_atlas_size, &err) != CROWD_OK) {
        fprintf(stderr, "imposter bake: %s\n", err.message);
        return 1;
    }
    crowd_asset_free(&plain);
    tool_gl_destroy(&gl); /* the bake left its own framebuffer state: start clean */
    if (tool_gl_create_samples(&gl, W, H, !desktop, 0, &err) != CROWD_OK)
        return 1;
    pixels = malloc(3 * W * H);
    pixels2 = malloc(3 * W * H);
    RUN_TEST(atlas_round_trip);
    RUN_TEST(damaged_sections_are_refused);
    RUN_TEST(card_matches_mesh);
    RUN_TEST(band_draws_everyone_once);
    RUN_TEST(gpu_cards_match_the_cpu);
    RUN_TEST(gpu_band_follows_the_chain);
    RUN_TEST(far_shadow_blobs);
    RUN_TEST(cards_wear_their_attachments); /* last: its bakes leave their own framebuffer bound */
    free(pixels);
    free(pixels2);
    crowd_asset_free(&asset);
    crowd_gl_imposters_free(&atlas);
    crowd_bake_image_free(with_atlas);
    crowd_bake_output_free(&baked);
    tool_gl_destroy(&gl);
    printf("%s (%d failures)\n", check_failures ? "FAILED" : "ok", check_failures);
    return check_failures ? 1 : 0;
}
