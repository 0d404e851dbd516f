/* Every asset in assets/gltf bakes, and crowd_verify (every vertex of every frame,
 * decoded as the shaders do, against double-precision skinning of the rig read from the file)
 * passes within the encoding's quantum. Prints one README table row per asset. Also: strides of
 * the locomotion clips (Fox Walk/Run, RobotExpressive Running/Walking), and that every other
 * file in the folder is one of these. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, strdup */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "test_support.h"

#define ASSETS CROWD_ASSET_DIR "/gltf/"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void bake_and_verify(const char *file)
{
    char path[512];
    snprintf(path, sizeof path, ASSETS "%s", file);
    crowd_rig rig;
    crowd_error err;
    crowd_gltf_desc quiet = {.warn = NULL};
    double t0 = now_ms();
    crowd_result r = crowd_gltf_read_file(path, &quiet, &rig, &err);
    CHECKF(r == CROWD_OK, "%s: %s", file, err.message);
    if (r != CROWD_OK)
        return;
    crowd_bake_desc desc = {.rig = &rig, .bones = true};
    crowd_bake_output out;
    r = crowd_bake(&desc, &out, &err);
    double ms = now_ms() - t0;
    CHECKF(r == CROWD_OK, "%s: bake: %s", file, err.message);
    crowd_asset asset;
    crowd_verify_report report = {0};
    if (r == CROWD_OK && (r = crowd_asset_load_memory(&asset, out.bytes, out.size, &err)) == CROWD_OK) {
        r = crowd_verify(&asset, &rig, &report, &err);
        CHECKF(r == CROWD_OK && report.passed, "%s: verify: %s", file, r == CROWD_OK ? report.failure : err.message);
        printf("| %s | %u | %u | %u | %.0f | %.2f | %.4f / %.4f |\n", file, rig.vertex_count, rig.bone_count,
               rig.clip_count, ms,
               (double)(out.stats.bytes_positions + out.stats.bytes_normals + out.stats.bytes_bones) /
                   (1024.0 * 1024.0),
               report.position_max_mm, report.position_bound_mm);
        crowd_verify_report_free(&report);
        crowd_asset_free(&asset);
    }
    if (out.bytes)
        crowd_bake_output_free(&out);
    crowd_rig_free(&rig);
}

static void every_asset_bakes_and_verifies(void)
{
    DIR *dir = opendir(ASSETS);
    REQUIRE(dir);
    char *names[64];
    int n = 0;
    for (struct dirent *e; (e = readdir(dir)) && n < 64;) {
        size_t len = strlen(e->d_name);
        bool gltf = len > 5 && !strcmp(e->d_name + len - 5, ".gltf"),
             glb = len > 4 && !strcmp(e->d_name + len - 4, ".glb");
        if (gltf || glb)
            names[n++] = strdup(e->d_name);
    }
    closedir(dir);
    CHECKF(n >= 18, "found %d glTF files", n);
    printf("| asset | vertices | bones | clips | read + bake ms | texture MB | verify max / bound mm |\n");
    printf("| --- | --- | --- | --- | --- | --- | --- |\n");
    for (int i = 0; i < n; i++) {
        bake_and_verify(names[i]);
        free(names[i]);
    }
}

/* Locomotion clips travel: the stride extractor finds a stride, and the in-place clips do not. */
static void locomotion_strides(void)
{
    const struct {
        const char *file, *clip;
        bool travels;
    } clips[] = {{"Fox.glb", "Walk", true},
                 {"Fox.glb", "Run", true},
                 {"Fox.glb", "Survey", false},
                 {"RobotExpressive.glb", "Running", true},
                 {"RobotExpressive.glb", "Walking", true},
                 {"RobotExpressive.glb", "Idle", false},
                 /* root motion (loop rule (c), gltf.h): its travel is taken out, then it is a gait */
                 {"Mannequiny.glb", "run_root.001", true}};
    for (size_t i = 0; i < sizeof clips / sizeof clips[0]; i++) {
        char path[256];
        snprintf(path, sizeof path, ASSETS "%s", clips[i].file);
        crowd_rig rig;
        crowd_error err;
        REQUIRE(crowd_gltf_read_file(path, NULL, &rig, &err) == CROWD_OK);
        crowd_bake_desc desc = {
            .clip_names = &clips[i].clip, .clip_name_count = 1, .lod_count = 1, .lod_ratios = (const float[]){1.0f}};
        crowd_bake_output out = bake_or_die(&rig, desc);
        crowd_asset asset;
        REQUIRE(crowd_asset_load_memory(&asset, out.bytes, out.size, &err) == CROWD_OK);
        const crowd_clip *c = &asset.clips[0];
        CHECKF(clips[i].travels == ((c->flags & CROWD_CLIP_LOCOMOTION) != 0 && c->stride > 0), "%s %s: stride %g",
               clips[i].file, clips[i].clip, (double)c->stride);
        printf("     %-20s %-8s stride %8.4f (file units) over %.3f s%s\n", clips[i].file, clips[i].clip,
               (double)c->stride, (double)c->duration,
               rig.clips[crowd_rig_find_clip(&rig, clips[i].clip)].loop ? ", loops" : "");
        crowd_asset_free(&asset);
        crowd_bake_output_free(&out);
        crowd_rig_free(&rig);
    }
}

/* Real assets split their surface at UV and normal seams (RobotExpressive) or share no vertex at
 * all (Fox is flat-shaded: 576 triangles, 1728 vertices); the LOD chain still has to shrink. Every
 * simplified level: fewer triangles than the one above, none degenerate, none facing against its normals. */
static void seamed_meshes_simplify(void)
{
    const struct {
        const char *file;
        double last_ratio; /* the default ratios end at 0.012; parts keep >= 4 triangles each */
    } cases[] = {{"Fox.glb", 0.05}, {"RobotExpressive.glb", 0.10}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[256];
        snprintf(path, sizeof path, ASSETS "%s", cases[i].file);
        crowd_rig rig;
        crowd_error err;
        crowd_gltf_desc quiet = {.warn = NULL};
        REQUIRE(crowd_gltf_read_file(path, &quiet, &rig, &err) == CROWD_OK);
        crowd_bake_output out = bake_or_die(&rig, (crowd_bake_desc){.frames = 2, .scale = 0.01f});
        crowd_asset a;
        REQUIRE(crowd_asset_load_memory(&a, out.bytes, out.size, &err) == CROWD_OK);
        printf("     %-20s lods:", cases[i].file);
        for (uint32_t l = 0; l < a.lod_count; l++) {
            const crowd_lod *lod = &a.lods[l];
            printf(" %u", lod->triangle_count);
            if (l)
                CHECKF(lod->triangle_count < a.lods[l - 1].triangle_count, "%s: LOD %u does not shrink", cases[i].file,
                       l);
            int bad = 0;
            for (uint32_t k = 0; k < lod->index_count; k += 3) {
                const uint32_t *t = a.indices + lod->first_index + k;
                const float *p0 = a.bind_positions + 3 * t[0], *p1 = a.bind_positions + 3 * t[1],
                            *p2 = a.bind_positions + 3 * t[2];
                double e1[3], e2[3], vn[3];
                for (int c = 0; c < 3; c++) {
                    e1[c] = p1[c] - p0[c];
                    e2[c] = p2[c] - p0[c];
                    vn[c] = a.bind_normals[3 * t[0] + c] + a.bind_normals[3 * t[1] + c] + a.bind_normals[3 * t[2] + c];
                }
                double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                               e1[0] * e2[1] - e1[1] * e2[0]};
                bad += n[0] * vn[0] + n[1] * vn[1] + n[2] * vn[2] <= 0 || t[0] == t[1] || t[1] == t[2] || t[0] == t[2];
            }
            /* level 0 is the author's mesh as it is (RobotExpressive has 3 slivers of its own) */
            CHECKF(l == 0 || bad == 0, "%s: LOD %u has %d degenerate or flipped triangles", cases[i].file, l, bad);
        }
        printf("\n");
        double last = (double)a.lods[a.lod_count - 1].triangle_count / a.lods[0].triangle_count;
        CHECKF(last <= cases[i].last_ratio, "%s: last LOD keeps %.1f%% of the triangles", cases[i].file, 100 * last);
        crowd_asset_free(&a);
        crowd_bake_output_free(&out);
        crowd_rig_free(&rig);
    }
}

int main(void)
{
    RUN_TEST(every_asset_bakes_and_verifies);
    RUN_TEST(locomotion_strides);
    RUN_TEST(seamed_meshes_simplify);
    TEST_MAIN_END();
}
