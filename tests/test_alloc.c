/* The allocator hooks (base.h): every allocation of a bake, a load, a crowd and a simulation goes
 * through crowd_set_allocator's hooks and is released through them; failing the Nth allocation,
 * for every N, gives CROWD_ERROR_OUT_OF_MEMORY and leaks nothing (glTF reads too: never a JSON
 * "syntax error", a "no mesh" or an untextured success for a failed allocation); and the per-frame path
 * (crowd_update, crowd_sim_step, the setters; with CROWD_TEST_GL also crowd_gl_upload, shadows
 * and draw) allocates nothing at all. Built twice: test_alloc (core and bake, also under ASan)
 * and test_alloc_gl (the renderer on llvmpipe through EGL). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "common/view_matrices.h"
#include "crowdbake/crowd.h"
#include "crowdbake/sim.h"
#include "test_support.h"

#ifdef CROWD_TEST_GL
#include "crowdbake/gl.h"
#include "gl/gl_api.h"
#include "gl_context.h"
#endif

/* ---- counting hooks ------------------------------------------------------------------------------
 * Blocks come from malloc as they are (no header), so memory that a test made with libc and the
 * library frees is told apart: every live block is in a table, and releasing one that is not is
 * counted as foreign. */

#define LIVE_SLOTS (1u << 17)
#define TOMBSTONE ((void *)1)

static struct {
    void *live[LIVE_SLOTS];
    uint64_t allocations, releases, foreign, failed;
    uint64_t fail_at; /* fail the allocation with this number (1-based); 0 = never */
    uint64_t outstanding;
    bool overflow;
} counter;

static uint32_t slot_of(const void *p)
{
    uint64_t h = (uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(h >> 40) & (LIVE_SLOTS - 1);
}

static void *count_allocate(void *user, size_t size)
{
    (void)user;
    counter.allocations++;
    if (counter.fail_at && counter.allocations == counter.fail_at) {
        counter.failed++;
        return NULL;
    }
    void *p = malloc(size);
    if (!p)
        return NULL;
    uint32_t s = slot_of(p), probes = 0;
    while (counter.live[s] && counter.live[s] != TOMBSTONE && probes++ < LIVE_SLOTS)
        s = (s + 1) & (LIVE_SLOTS - 1);
    if (probes >= LIVE_SLOTS)
        counter.overflow = true;
    else
        counter.live[s] = p;
    counter.outstanding++;
    return p;
}

static void count_release(void *user, void *p)
{
    (void)user;
    counter.releases++;
    uint32_t s = slot_of(p), probes = 0;
    while (counter.live[s] != p && counter.live[s] && probes++ < LIVE_SLOTS)
        s = (s + 1) & (LIVE_SLOTS - 1);
    if (counter.live[s] == p) {
        counter.live[s] = TOMBSTONE;
        counter.outstanding--;
    } else {
        counter.foreign++;
    }
    free(p);
}

static void hooks_install(uint64_t fail_at)
{
    memset(&counter, 0, sizeof counter);
    counter.fail_at = fail_at;
    crowd_set_allocator(&(crowd_allocator){count_allocate, count_release, NULL});
}

static void hooks_remove(void)
{
    crowd_set_allocator(NULL);
}

/* ---- fixtures ------------------------------------------------------------------------------------ */

static crowd_rig tiny; /* built with libc, freed with libc's hooks */
static crowd_bake_output tiny_baked;
static crowd_bake_output human_baked; /* the humanoid, 10 fps: every clip, every LOD, bones */
static crowd_asset human;

static crowd_bake_desc tiny_desc(void)
{
    static const float ratios[2] = {1.0f, 0.5f};
    return (crowd_bake_desc){
        .rig = &tiny, .frames = 6, .lod_count = 2, .lod_ratios = ratios, .bones = true, .tangents = true};
}

static crowd_desc human_crowd_desc(void)
{
    return (crowd_desc){.asset = &human, .capacity = 4000, .world_size = 120.0f, .chunk_size = 12.0f};
}

static void look(crowd_view *v, float ex, float ey, float ez)
{
    const float eye[3] = {ex, ey, ez}, target[3] = {0, 0.8f, 0}, up[3] = {0, 1, 0};
    cb_look_at(v->view, eye, target, up);
    cb_perspective(v->projection, 50.0f * 3.14159265f / 180.0f, 16.0f / 9.0f, 0.1f, 500.0f);
    v->viewport_height = 720.0f;
}

#ifndef CROWD_TEST_GL
/* ---- (a) everything goes through the hooks, and comes back --------------------------------------- */

static void bake_load_crowd_sim_use_the_hooks(void)
{
    hooks_install(0);
    crowd_rig rig;
    crowd_error err;
    REQUIRE(crowd_rig_build_humanoid(NULL, &rig, &err) == CROWD_OK);
    uint64_t rig_allocations = counter.allocations;
    crowd_bake_output out;
    uint64_t before = counter.allocations;
    REQUIRE(crowd_bake(&(crowd_bake_desc){.rig = &rig, .fps = 8, .bones = true}, &out, &err) == CROWD_OK);
    uint64_t bake_allocations = counter.allocations - before;

    before = counter.allocations;
    crowd_asset a;
    REQUIRE(crowd_asset_load_memory(&a, out.bytes, out.size, &err) == CROWD_OK);
    uint64_t load_allocations = counter.allocations - before;

    before = counter.allocations;
    crowd_desc cd = {.asset = &a, .capacity = 1000};
    crowd *c = NULL;
    REQUIRE(crowd_create(&cd, &c, &err) == CROWD_OK);
    uint64_t crowd_allocations = counter.allocations - before;

    before = counter.allocations;
    crowd_sim *sim = NULL;
    REQUIRE(crowd_sim_create(&(crowd_sim_desc){.target = c, .seed = 3}, &sim, &err) == CROWD_OK);
    uint64_t sim_allocations = counter.allocations - before;

    crowd_sim_destroy(sim);
    crowd_destroy(c);
    crowd_asset_free(&a);

    /* the file loader owns its bytes: those go through the hooks too */
    FILE *f = fopen("alloc_test.crowd", "wb");
    REQUIRE(f && fwrite(out.bytes, 1, out.size, f) == out.size && fclose(f) == 0);
    before = counter.allocations;
    REQUIRE(crowd_asset_load_file(&a, "alloc_test.crowd", &err) == CROWD_OK);
    uint64_t file_allocations = counter.allocations - before;
    crowd_asset_free(&a);
    remove("alloc_test.crowd");

    crowd_bake_output_free(&out);
    crowd_rig_free(&rig);
    printf("     allocations: rig %llu, bake %llu, load %llu, load_file %llu, crowd %llu, sim %llu; "
           "%llu released, %llu outstanding\n",
           (unsigned long long)rig_allocations, (unsigned long long)bake_allocations,
           (unsigned long long)load_allocations, (unsigned long long)file_allocations,
           (unsigned long long)crowd_allocations, (unsigned long long)sim_allocations,
           (unsigned long long)counter.releases, (unsigned long long)counter.outstanding);
    CHECK(rig_allocations > 0 && bake_allocations > 0 && load_allocations > 0 && file_allocations > 0);
    CHECK(crowd_allocations > 0 && sim_allocations > 0);
    CHECKF(counter.outstanding == 0, "%llu blocks never released", (unsigned long long)counter.outstanding);
    CHECKF(counter.foreign == 0, "%llu releases of blocks the hooks never gave", (unsigned long long)counter.foreign);
    CHECK(!counter.overflow);
    hooks_remove();
}

/* ---- failing the Nth allocation, for every N ----------------------------------------------------- */

typedef crowd_result (*operation)(crowd_error *error);

static crowd_result op_bake(crowd_error *error)
{
    crowd_bake_output out;
    crowd_bake_desc d = tiny_desc();
    crowd_result r = crowd_bake(&d, &out, error);
    if (r == CROWD_OK)
        crowd_bake_output_free(&out);
    return r;
}

static crowd_result op_humanoid(crowd_error *error)
{
    crowd_rig rig;
    crowd_result r = crowd_rig_build_humanoid(NULL, &rig, error);
    crowd_rig_free(&rig);
    return r;
}

static crowd_result op_load(crowd_error *error)
{
    crowd_asset a;
    crowd_result r = crowd_asset_load_memory(&a, human_baked.bytes, human_baked.size, error);
    crowd_asset_free(&a);
    return r;
}

static crowd_result op_load_file(crowd_error *error)
{
    crowd_asset a;
    crowd_result r = crowd_asset_load_file(&a, "alloc_fail.crowd", error);
    crowd_asset_free(&a);
    return r;
}

static crowd_result op_crowd(crowd_error *error)
{
    crowd_desc d = human_crowd_desc();
    crowd *c = NULL;
    crowd_result r = crowd_create(&d, &c, error);
    crowd_destroy(c);
    return r;
}

/* glTF reads: the JSON parse's allocations too (cJSON answers NULL alike for bad syntax and for no
 * memory), an external buffer, a .glb with morph targets, external PNG images decoded. */
static crowd_result read_gltf(const char *path, crowd_error *error)
{
    crowd_rig rig;
    crowd_result r = crowd_gltf_read_file(path, NULL, &rig, error);
    crowd_rig_free(&rig);
    return r;
}

static crowd_result op_gltf_external(crowd_error *error)
{
    return read_gltf(CROWD_ASSET_DIR "/gltf/RiggedSimple.gltf", error);
}

static crowd_result op_gltf_glb(crowd_error *error)
{
    return read_gltf(CROWD_ASSET_DIR "/gltf/AnimatedMorphCube.glb", error);
}

static crowd_result op_gltf_textured(crowd_error *error)
{
    return read_gltf(CROWD_ASSET_DIR "/gltf/MorphStressTest.gltf", error);
}

static crowd *sim_target; /* made before the hooks fail anything */

static crowd_result op_sim(crowd_error *error)
{
    crowd_sim *sim = NULL;
    crowd_obstacle pillar = {3.0f, 4.0f, 1.5f};
    crowd_sim_desc d = {.target = sim_target, .obstacles = &pillar, .obstacle_count = 1, .seed = 9};
    crowd_result r = crowd_sim_create(&d, &sim, error);
    if (r == CROWD_OK)
        r = crowd_sim_spawn(sim, 500);
    crowd_sim_destroy(sim);
    return r;
}

/* Runs `op` once to count its allocations K, then K more times failing allocation 1, 2, ..., K. */
static void fail_every_allocation(const char *name, operation op)
{
    crowd_error err;
    hooks_install(0);
    crowd_result r = op(&err);
    uint64_t total = counter.allocations, leaked = counter.outstanding;
    hooks_remove();
    CHECKF(r == CROWD_OK, "%s: %s", name, err.message);
    CHECKF(leaked == 0, "%s: %llu blocks leaked on success", name, (unsigned long long)leaked);
    uint32_t wrong_code = 0, leaks = 0, empty_messages = 0;
    for (uint64_t n = 1; n <= total; n++) {
        hooks_install(n);
        err.code = CROWD_OK;
        err.message[0] = '\0';
        r = op(&err);
        bool ok = r == CROWD_ERROR_OUT_OF_MEMORY && err.code == CROWD_ERROR_OUT_OF_MEMORY;
        if (!ok && wrong_code++ < 3)
            fprintf(stderr, "     %s: allocation %llu failed: got %s (\"%s\")\n", name, (unsigned long long)n,
                    crowd_result_name(r), err.message);
        if (counter.outstanding && leaks++ < 3)
            fprintf(stderr, "     %s: allocation %llu failed: %llu blocks leaked\n", name, (unsigned long long)n,
                    (unsigned long long)counter.outstanding);
        empty_messages += ok && err.message[0] == '\0';
        hooks_remove();
    }
    printf("     %-14s %5llu allocations, each failed once: %u wrong results, %u leaks, %u without message\n", name,
           (unsigned long long)total, wrong_code, leaks, empty_messages);
    CHECK(total > 0);
    CHECKF(wrong_code == 0 && leaks == 0 && empty_messages == 0, "%s", name);
}

static void out_of_memory_is_reported_and_leaks_nothing(void)
{
    FILE *f = fopen("alloc_fail.crowd", "wb");
    REQUIRE(f && fwrite(human_baked.bytes, 1, human_baked.size, f) == human_baked.size && fclose(f) == 0);
    crowd_desc cd = human_crowd_desc();
    REQUIRE(crowd_create(&cd, &sim_target, NULL) == CROWD_OK);
    fail_every_allocation("humanoid rig", op_humanoid);
    fail_every_allocation("bake", op_bake);
    fail_every_allocation("load_memory", op_load);
    fail_every_allocation("load_file", op_load_file);
    fail_every_allocation("crowd_create", op_crowd);
    fail_every_allocation("sim_create", op_sim);
    fail_every_allocation("gltf .gltf+.bin", op_gltf_external);
    fail_every_allocation("gltf .glb", op_gltf_glb);
    fail_every_allocation("gltf textured", op_gltf_textured);
    crowd_destroy(sim_target);
    remove("alloc_fail.crowd");
}

#endif

/* ---- (b) nothing per frame ----------------------------------------------------------------------- */

static uint32_t clip_named(const char *name)
{
    for (uint32_t i = 0; i < human.clip_count; i++)
        if (strcmp(human.clips[i].name, name) == 0)
            return i;
    return 0;
}

/* One frame of everything an engine or the demo may call between frames. */
static void churn(crowd *c, crowd_sim *sim, uint32_t frame, uint64_t *random)
{
    uint32_t n = crowd_count(c);
    uint32_t walk = clip_named("walk"), wave = clip_named("wave");
    for (uint32_t k = 0; k < 40 && n; k++) {
        uint32_t i = (uint32_t)(test_rand(random) % n);
        switch ((frame + k) % 9) {
        case 0:
            crowd_set_transform(c, i, (float)(test_uniform(random) * 100 - 50), 0,
                                (float)(test_uniform(random) * 100 - 50), 1.0f);
            break;
        case 1:
            crowd_set_scale(c, i, 0.8f + 0.4f * (float)test_uniform(random));
            break;
        case 2:
            crowd_set_variant(c, i, &(crowd_variant){{1, 2, 3}, {1, 2, 3, 4, 5, 6}, 3});
            break;
        case 3:
            crowd_play(c, i, wave, 1.0f, 0.3f);
            break;
        case 4:
            crowd_play(c, i, walk, 1.0f, 0.0f);
            break;
        case 5:
            crowd_set_speed(c, i, 1.4f);
            break;
        case 6:
            crowd_set_phase(c, i, 0.25f);
            break;
        case 7: {
            crowd_record record;
            crowd_get(c, i, &record);
            break;
        }
        default:
            crowd_play(c, i, (uint32_t)(test_rand(random) % human.clip_count), 2.0f, 0.2f);
            break;
        }
    }
    if (frame % 50 == 10)
        crowd_remove(c, 0);
    if (frame % 97 == 0)
        crowd_set_stride_matching(c, frame % 194 == 0);
    if (sim) {
        if (frame % 120 == 60)
            crowd_sim_set_scenario(sim, (crowd_scenario)((frame / 120) % CROWD_SCENARIO_COUNT));
        if (frame % 100 == 0)
            crowd_sim_set_separation(sim, frame % 200 == 0 ? 1 : -1);
    }
    if (frame % 150 == 75) /* growth within capacity, then back */
        crowd_set_count(c, n + 500 <= 4000 ? n + 500 : 1000);
}

#ifndef CROWD_TEST_GL
static void the_frame_loop_allocates_nothing(void)
{
    crowd_desc cd = human_crowd_desc();
    crowd *c = NULL;
    crowd_sim *sim = NULL;
    REQUIRE(crowd_create(&cd, &c, NULL) == CROWD_OK);
    crowd_obstacle pillars[2] = {{5, 5, 2}, {-10, 3, 1.5f}};
    REQUIRE(crowd_sim_create(
                &(crowd_sim_desc){.target = c, .obstacles = pillars, .obstacle_count = 2, .separation = 1, .seed = 5},
                &sim, NULL) == CROWD_OK);
    REQUIRE(crowd_sim_spawn(sim, 2500) == CROWD_OK);
    crowd_view view = {0};
    look(&view, 0, 12, 40);
    uint64_t random = 77;

    hooks_install(0);
    uint32_t draws = 0, uploads = 0;
    for (uint32_t frame = 0; frame < 1200; frame++) {
        if (frame == 600) { /* the other policy, through crowd_configure */
            crowd_desc changed = *crowd_settings(c);
            changed.lod_policy = CROWD_LOD_SCREEN_COVERAGE;
            changed.vertex_budget = 3000000;
            CHECK(crowd_configure(c, &changed, NULL) == CROWD_OK);
        }
        churn(c, sim, frame, &random);
        crowd_sim_step(sim, 1.0f / 60.0f);
        look(&view, 40.0f * sinf((float)frame * 0.01f), 8.0f + (float)(frame % 300) * 0.1f,
             40.0f * cosf((float)frame * 0.01f));
        const crowd_frame *f = crowd_update(c, 1.0f / 60.0f, &view);
        crowd_count_visible(c, &view);
        draws += f->draw_count;
        uploads += f->upload_count;
    }
    crowd_sim_spawn(sim, 3000); /* a re-spawn within capacity is not a frame, but allocates nothing either */
    crowd_update(c, 0.016f, &view);
    uint64_t allocations = counter.allocations, releases = counter.releases;
    hooks_remove();
    printf("     1200 frames (sim with separation on and off, 5 scenarios, both LOD policies, %u draws, %u upload "
           "ranges): %llu allocations, %llu releases\n",
           draws, uploads, (unsigned long long)allocations, (unsigned long long)releases);
    CHECK(draws > 0 && uploads > 0);
    CHECKF(allocations == 0 && releases == 0, "%llu allocations per 1200 frames", (unsigned long long)allocations);
    crowd_sim_destroy(sim);
    crowd_destroy(c);
}

#else
/* ---- (b) for the renderer: upload, shadows and draw ---------------------------------------------- */

/* Frames per mode: every periodic call of churn() that 60 frames made (remove at 10, stride matching
 * and separation at 0) and both cross-fade states (flipped every 10 frames) come round in 30;
 * llvmpipe takes ~0.1 s a frame here, so 2 x 60 frames in both contexts cost 29 s. */
#define RENDER_FRAMES 30

static void the_renderer_allocates_nothing_per_frame(bool es)
{
    tool_gl gl;
    crowd_error err;
    REQUIRE(tool_gl_create(&gl, 320, 180, es, &err) == CROWD_OK);
    crowd_desc cd = human_crowd_desc();
    crowd *c = NULL;
    crowd_sim *sim = NULL;
    REQUIRE(crowd_create(&cd, &c, NULL) == CROWD_OK);
    REQUIRE(crowd_sim_create(&(crowd_sim_desc){.target = c, .seed = 2}, &sim, NULL) == CROWD_OK);
    REQUIRE(crowd_sim_spawn(sim, 1500) == CROWD_OK);
    crowd_gl_desc gd = {.asset = &human, .capacity = crowd_record_capacity(c), .es = es, .shadow_map_size = 512};
    crowd_gl_renderer *r = NULL;
    hooks_install(0); /* the renderer's own memory goes through the hooks and comes back */
    REQUIRE(crowd_gl_create(&gd, &r, &err) == CROWD_OK);
    crowd_gl_destroy(r);
    uint64_t create_allocations = counter.allocations, create_outstanding = counter.outstanding;
    hooks_remove();
    CHECKF(create_allocations > 0 && create_outstanding == 0, "crowd_gl_create: %llu allocations, %llu not released",
           (unsigned long long)create_allocations, (unsigned long long)create_outstanding);
    REQUIRE(crowd_gl_create(&gd, &r, &err) == CROWD_OK);
    crowd_gl_scene scene = {.sun_direction = {0.3f, 0.85f, 0.45f},
                            .sun_color = {2, 2, 2},
                            .sky_color = {0.4f, 0.4f, 0.5f},
                            .ground_color = {0.16f, 0.16f, 0.16f},
                            .fog_color = {0.8f, 0.8f, 0.85f},
                            .fog_density = 0.002f,
                            .shadows = true};
    crowd_view view = {0};
    uint64_t random = 5, allocations = 0;
    uint32_t gl_draws = 0;
    for (int mode = 0; mode < 2; mode++) {
        if (mode == 1)
            CHECK(crowd_gl_set_mode(r, CROWD_GL_BONES) == CROWD_OK); /* may allocate: not per frame */
        hooks_install(0);
        for (uint32_t frame = 0; frame < RENDER_FRAMES; frame++) {
            churn(c, sim, frame, &random);
            crowd_sim_step(sim, 1.0f / 30.0f);
            look(&view, 30.0f * sinf((float)frame * 0.05f), 10.0f, 30.0f * cosf((float)frame * 0.05f));
            memcpy(scene.view, view.view, sizeof scene.view);
            memcpy(scene.projection, view.projection, sizeof scene.projection);
            const crowd_frame *f = crowd_update(c, 1.0f / 30.0f, &view);
            CHECK(crowd_gl_upload(r, f, NULL) == CROWD_OK);
            float light[16], centre[3] = {0, 0, 0};
            crowd_gl_fit_shadow(r, scene.sun_direction, centre, 40.0f, light);
            crowd_gl_render_shadows(r, f, light);
            glBindFramebuffer(GL_FRAMEBUFFER, gl.fbo);
            glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
            crowd_gl_draw(r, f, &scene);
            crowd_gl_set_cross_fade(r, frame % 20 < 10);
            gl_draws += crowd_gl_get_stats(r)->draws;
        }
        allocations += counter.allocations;
        hooks_remove();
    }
    CHECKF(crowd_gl_check("frames", &err) == CROWD_OK, "%s", err.message);
    printf("     %s: crowd_gl_create %llu allocations, all released; 2 x %d frames (VAT, bones) of upload + shadows + "
           "draw, %u GL draws: %llu allocations\n",
           es ? "GLES 3.0" : "GL 3.3", (unsigned long long)create_allocations, RENDER_FRAMES, gl_draws,
           (unsigned long long)allocations);
    CHECK(gl_draws > 0);
    CHECKF(allocations == 0, "%llu allocations in %d frames", (unsigned long long)allocations, 2 * RENDER_FRAMES);
    crowd_gl_destroy(r);
    crowd_sim_destroy(sim);
    crowd_destroy(c);
    tool_gl_destroy(&gl);
}

static void gles_frames_allocate_nothing(void)
{
    the_renderer_allocates_nothing_per_frame(true);
}

static void desktop_frames_allocate_nothing(void)
{
    the_renderer_allocates_nothing_per_frame(false);
}
#endif

int main(void)
{
    crowd_error err;
    if (tiny_rig_build(&tiny, &err) != CROWD_OK)
        return 1;
    tiny_baked = bake_or_die(&tiny, tiny_desc());
    human_baked = bake_or_die(humanoid(), (crowd_bake_desc){.fps = 10, .bones = true});
    if (crowd_asset_load_memory(&human, human_baked.bytes, human_baked.size, &err) != CROWD_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
#ifdef CROWD_TEST_GL
    RUN_TEST(gles_frames_allocate_nothing);
    RUN_TEST(desktop_frames_allocate_nothing);
#else
    RUN_TEST(bake_load_crowd_sim_use_the_hooks);
    RUN_TEST(out_of_memory_is_reported_and_leaks_nothing);
    RUN_TEST(the_frame_loop_allocates_nothing);
#endif
    crowd_asset_free(&human);
    crowd_bake_output_free(&human_baked);
    crowd_bake_output_free(&tiny_baked);
    crowd_rig_free(&tiny);
    TEST_MAIN_END();
}
