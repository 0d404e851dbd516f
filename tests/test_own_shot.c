/* "Looks right" in pixels: each dressed case of test_own_character (turned, rescaled, lifted, sunk,
 * Z up; made with crowd-export's dressing) baked back at 1.7 m and rendered as a row of walkers seen
 * from the side, the camera at ground level looking level. The ground line (y = 0) is the image row
 * where the world origin projects; the lowest character pixel of each walker must sit on it, within
 * 2 pixels (3.3 cm at this zoom), at six moments of the walk, and the walkers must stand 1.7 m tall.
 * The same sunk file baked without ground placement floats 28 cm under the line: the check fails it.
 * Then with no size flag (centimetres, millimetres, root motion under a centimetre mesh, a seam):
 * the humanoid's own 1.8 m, on the line; and a flight that brushes the ground never goes under it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "common/view_matrices.h"
#include "crowdbake/gl.h"
#include "dress.h"
#include "gl/gl_api.h"
#include "gl_context.h"
#include "test_support.h"

#define W 480
#define H 320
#define WALKERS 5

static tool_gl gl;
static uint8_t *pixels;

/* The humanoid dressed, written and read back, baked: at 1.7 m when `sized`, else with no size flag
 * (its own 1.8 m, whatever unit the dressing wrote it in). */
static bool bake_case(crowd_dress dress, crowd_bake_up up, crowd_bake_ground ground, bool sized, crowd_bake_output *out,
                      crowd_asset *a)
{
    crowd_error err;
    uint8_t *plain = NULL, *glb = NULL;
    size_t plain_size = 0, size = 0;
    crowd_rig rig = {0}, back = {0};
    bool ok = crowd_gltf_write_glb(humanoid(), NULL, &plain, &plain_size, &err) == CROWD_OK &&
              crowd_gltf_read_memory(plain, plain_size, "h.glb", NULL, NULL, &rig, &err) == CROWD_OK;
    dress.blender_names = dress.pose = dress.roll = dress.fly = dress.root_walk = dress.seam_walk = true;
    dress.low_fly = true;
    ok = ok && crowd_dress_rig(&rig, &dress, &err) == CROWD_OK &&
         crowd_gltf_write_glb(&rig, NULL, &glb, &size, &err) == CROWD_OK &&
         crowd_gltf_read_memory(glb, size, "dressed.glb", NULL, NULL, &back, &err) == CROWD_OK;
    if (ok) {
        crowd_bake_desc desc = {.height = sized ? 1.7f : 0.0f, .up = up, .ground = ground};
        *out = bake_or_die(&back, desc);
        ok = crowd_asset_load_memory(a, out->bytes, out->size, &err) == CROWD_OK;
    }
    if (!ok)
        fprintf(stderr, "bake_case: %s\n", err.message);
    crowd_gltf_bytes_free(plain);
    crowd_gltf_bytes_free(glb);
    crowd_rig_free(&rig);
    crowd_rig_free(&back);
    return ok;
}

static bool is_background(const uint8_t *p)
{
    return p[0] > 235 && p[1] < 20 && p[2] > 235; /* the magenta clear colour: nothing lit is that */
}

typedef struct side_view {
    double worst_feet_px, worst_feet_m; /* lowest character row against the ground row */
    double deepest_px, shallowest_px;   /* the same, signed (+: under the ground line), extremes */
    double lowest_top_m, highest_top_m; /* the walkers' heights from their pixels */
    uint32_t columns;                   /* walkers found */
} side_view;

/* Five walkers 1.6 m apart along X, playing `clip` towards +X (yaw 90 degrees), seen from +Z. */
static void shoot(const crowd_asset *a, const char *name, const char *clip, side_view *out)
{
    memset(out, 0, sizeof *out);
    out->lowest_top_m = INFINITY;
    out->deepest_px = -INFINITY, out->shallowest_px = INFINITY;
    crowd_desc cd = {.asset = a, .capacity = WALKERS, .world_size = 100.0f};
    crowd *c = NULL;
    crowd_error err;
    REQUIRE(crowd_create(&cd, &c, &err) == CROWD_OK);
    crowd_set_count(c, WALKERS);
    uint32_t walk = 0;
    REQUIRE(crowd_asset_match_clip(a, clip, &walk));
    for (uint32_t i = 0; i < WALKERS; i++) {
        crowd_set_transform(c, i, -3.2f + 1.6f * (float)i, 0.0f, 0.0f, 1.5707963f);
        crowd_play(c, i, walk, 1.0f / a->clips[walk].duration, 0.0f);
        crowd_set_phase(c, i, (float)i / WALKERS);
    }
    crowd_gl_desc gd = {.asset = a, .sizing_crowd = c, .es = gl.es, .debug = true};
    crowd_gl_renderer *r = NULL;
    REQUIRE(crowd_gl_create(&gd, &r, &err) == CROWD_OK);
    crowd_gl_scene s = test_default_scene();
    s.shadows = false, s.fog_density = 0.0f, s.flat_color = true;
    const float eye[3] = {0, 0, 60}, target[3] = {0, 0, 0}, up[3] = {0, 1, 0};
    const float fovy = 6.0f * 3.14159265f / 180.0f;
    cb_look_at(s.view, eye, target, up);
    cb_perspective(s.projection, fovy, (float)W / H, 1.0f, 200.0f);
    double metres_per_px = 2.0 * 60.0 * tan(fovy / 2) / H; /* at the walkers' distance */
    double ground_row = H / 2.0;                           /* eye at y = 0, looking level */
    crowd_view view = {.viewport_height = H};
    memcpy(view.view, s.view, sizeof view.view);
    memcpy(view.projection, s.projection, sizeof view.projection);
    for (int moment = 0; moment < 6; moment++) {
        const crowd_frame *f = crowd_update(c, moment ? 0.13f : 0.0f, &view);
        REQUIRE(crowd_gl_upload(r, f, NULL) == CROWD_OK);
        glClearColor(1.0f, 0.0f, 1.0f, 1.0f);
        glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
        crowd_gl_draw(r, f, &s);
        tool_gl_read_rgb(&gl, pixels);
        if (moment == 0) {
            char path[256];
            mkdir("shots", 0755);
            snprintf(path, sizeof path, "shots/own_%s.png", name);
            tool_write_png(path, pixels, W, H, NULL);
        }
        /* each walker owns a band of columns around its x; its lowest and highest drawn rows */
        out->columns = 0;
        for (int i = 0; i < WALKERS; i++) {
            double centre = W / 2.0 + (-3.2 + 1.6 * i) / metres_per_px, half = 0.75 / metres_per_px;
            int bottom = -1, top = H;
            for (int y = 0; y < H; y++)
                for (int x = (int)(centre - half); x < (int)(centre + half); x++)
                    if (x >= 0 && x < W && !is_background(pixels + 3 * (y * W + x))) {
                        bottom = y > bottom ? y : bottom;
                        top = y < top ? y : top;
                    }
            if (bottom < 0)
                continue;
            out->columns++;
            double feet = (bottom + 1) - ground_row; /* the bottom edge of the lowest row */
            if (fabs(feet) > fabs(out->worst_feet_px))
                out->worst_feet_px = feet;
            out->deepest_px = fmax(out->deepest_px, feet), out->shallowest_px = fmin(out->shallowest_px, feet);
            double tall = (ground_row - top) * metres_per_px;
            out->lowest_top_m = fmin(out->lowest_top_m, tall);
            out->highest_top_m = fmax(out->highest_top_m, tall);
        }
    }
    out->worst_feet_m = out->worst_feet_px * metres_per_px;
    crowd_gl_destroy(r);
    crowd_destroy(c);
}

/* Feet on the ground line within 2 pixels at every moment, and `tall` metres within 4 %. */
static void check_case(const char *name, crowd_dress dress, crowd_bake_up up, bool sized, const char *clip, double tall)
{
    crowd_bake_output out;
    crowd_asset a;
    REQUIRE(bake_case(dress, up, CROWD_GROUND_AUTO, sized, &out, &a));
    side_view v;
    shoot(&a, name, clip, &v);
    printf("  %-12s %-10s %u walkers; lowest pixel %+.0f px (%+.1f cm) from the ground line; tops %.3f..%.3f m\n", name,
           clip, v.columns, v.worst_feet_px, 100 * v.worst_feet_m, v.lowest_top_m, v.highest_top_m);
    CHECKF(v.columns == WALKERS, "%s: %u walkers seen", name, v.columns);
    CHECKF(fabs(v.worst_feet_px) <= 2.0, "%s: feet %+.0f px (%+.1f cm) off the ground line", name, v.worst_feet_px,
           100 * v.worst_feet_m);
    CHECKF(v.lowest_top_m > 0.9 * tall && v.highest_top_m < 1.04 * tall, "%s: %.3f..%.3f m tall (%.3f m)", name,
           v.lowest_top_m, v.highest_top_m, tall);
    crowd_asset_free(&a);
    crowd_bake_output_free(&out);
}

static void every_case_stands_on_the_ground(void)
{
    check_case("plain", (crowd_dress){0}, CROWD_UP_DEFAULT, true, "walk", 1.7);
    check_case("minus_z_cm", (crowd_dress){.face = CROWD_AXIS_NEG_Z, .scale = 100.0f}, CROWD_UP_DEFAULT, true, "walk",
               1.7);
    check_case("plus_x_in", (crowd_dress){.face = CROWD_AXIS_POS_X, .scale = 1.0f / 0.0254f, .lift = 0.4f},
               CROWD_UP_DEFAULT, true, "walk", 1.7);
    check_case("sunk", (crowd_dress){.lift = -0.3f}, CROWD_UP_DEFAULT, true, "walk", 1.7);
    check_case("z_up", (crowd_dress){.z_up = true}, CROWD_UP_POS_Z, true, "walk", 1.7);
}

/* With no size flag: the humanoid (1.8 m in metres) written in centimetres, in millimetres, as a
 * centimetre mesh under metre bones facing +X and playing its root-motion walk, and playing its
 * walk with a seam: each the humanoid's own height, feet on the line. */
static void unsized_cases_look_right(void)
{
    const double person = 1.798;
    check_case("cm_no_flag", (crowd_dress){.scale = 100.0f}, CROWD_UP_DEFAULT, false, "walk", person);
    check_case("mm_no_flag", (crowd_dress){.face = CROWD_AXIS_NEG_Z, .scale = 1000.0f}, CROWD_UP_DEFAULT, false, "walk",
               person);
    check_case("root_motion", (crowd_dress){.face = CROWD_AXIS_POS_X, .mesh_unit = 100.0f}, CROWD_UP_DEFAULT, false,
               "walk_root", person);
    check_case("seam", (crowd_dress){0}, CROWD_UP_DEFAULT, false, "walk_seam", person);
}

/* A flight brushing the ground, played by a character that also walks: it is a flight, not the
 * ground's idle, so its lowest point may leave the line; its lowest pixel never goes under it. */
static void brushing_flight_never_goes_under(void)
{
    crowd_bake_output out;
    crowd_asset a;
    REQUIRE(bake_case((crowd_dress){0}, CROWD_UP_DEFAULT, CROWD_GROUND_AUTO, false, &out, &a));
    side_view v;
    shoot(&a, "fly_low", "fly_low", &v);
    printf("  fly_low: lowest pixel %+.0f..%+.0f px from the ground line (+: under it)\n", v.shallowest_px,
           v.deepest_px);
    CHECKF(v.columns == WALKERS && v.deepest_px <= 2.0 && v.deepest_px >= -12.0,
           "%u seen, lowest pixel %+.0f..%+.0f px", v.columns, v.shallowest_px, v.deepest_px);
    crowd_asset_free(&a);
    crowd_bake_output_free(&out);
}

/* The check can fail: the sunk file without ground placement is under the line. */
static void sunk_without_placement_fails(void)
{
    crowd_bake_output out;
    crowd_asset a;
    REQUIRE(bake_case((crowd_dress){.lift = -0.3f}, CROWD_UP_DEFAULT, CROWD_GROUND_NONE, true, &out, &a));
    side_view v;
    shoot(&a, "sunk_unplaced", "walk", &v);
    printf("  sunk, --ground none: lowest pixel %+.0f px (%+.1f cm) from the ground line\n", v.worst_feet_px,
           100 * v.worst_feet_m);
    CHECKF(v.worst_feet_px > 10.0, "an unplaced sunk character measured %+.0f px", v.worst_feet_px);
    crowd_asset_free(&a);
    crowd_bake_output_free(&out);
}

int main(void)
{
    crowd_error err;
    if (tool_gl_create(&gl, W, H, true, &err) != CROWD_OK) {
        fprintf(stderr, "GL context: %s\n", err.message);
        return 1;
    }
    pixels = malloc(3 * W * H);
    RUN_TEST(every_case_stands_on_the_ground);
    RUN_TEST(unsized_cases_look_right);
    RUN_TEST(brushing_flight_never_goes_under);
    RUN_TEST(sunk_without_placement_fails);
    free(pixels);
    tool_gl_destroy(&gl);
    TEST_MAIN_END();
}
