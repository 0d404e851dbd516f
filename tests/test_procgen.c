/* The procedural humanoid: structure, determinism, planted feet, IK reach, seamless loops. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bake/skin.h"
#include "check.h"
#include "rig/procgen.h"
#include "test_support.h"

static void structure(void)
{
    const crowd_rig *rig = humanoid();
    crowd_error err;
    CHECK(crowd_rig_validate(rig, &err) == CROWD_OK);
    CHECKF(rig->vertex_count >= 2000 && rig->vertex_count <= 3000, "%u vertices", rig->vertex_count);
    CHECK(rig->bone_count == 25);
    const char *clips[] = {"idle", "walk", "jog", "run", "wave", "cheer"};
    CHECK(rig->clip_count == 6);
    for (int c = 0; c < 6; c++)
        CHECKF(crowd_rig_find_clip(rig, clips[c]) >= 0, "clip %s", clips[c]);
    const char *sockets[] = {"head", "hand_l", "hand_r", "back"};
    for (int s = 0; s < 4; s++) {
        bool found = false;
        for (uint32_t i = 0; i < rig->socket_count; i++)
            found |= strcmp(rig->sockets[i].name, sockets[s]) == 0;
        CHECKF(found, "socket %s", sockets[s]);
    }
    /* every region is used by some vertex */
    uint32_t used[8] = {0};
    for (uint32_t v = 0; v < rig->vertex_count; v++)
        used[rig->regions[v]]++;
    for (uint32_t g = 0; g < rig->region_count; g++)
        CHECKF(used[g] > 0, "region %s has no vertices", rig->regions_info[g].name);
    /* about 1.8 m tall, standing on y = 0 */
    float lo = 1e9f, hi = -1e9f;
    for (uint32_t v = 0; v < rig->vertex_count; v++) {
        lo = fminf(lo, rig->positions[3 * v + 1]);
        hi = fmaxf(hi, rig->positions[3 * v + 1]);
    }
    CHECKF(fabsf(lo) < 1e-3f && hi > 1.7f && hi < 1.9f, "height %f..%f", (double)lo, (double)hi);
}

static void deterministic(void)
{
    crowd_rig a, b;
    crowd_error err;
    REQUIRE(crowd_rig_build_humanoid(NULL, &a, &err) == CROWD_OK);
    REQUIRE(crowd_rig_build_humanoid(NULL, &b, &err) == CROWD_OK);
    CHECK(a.vertex_count == b.vertex_count && a.index_count == b.index_count);
    CHECK(!memcmp(a.positions, b.positions, 12 * (size_t)a.vertex_count));
    CHECK(!memcmp(a.normals, b.normals, 12 * (size_t)a.vertex_count));
    CHECK(!memcmp(a.indices, b.indices, 4 * (size_t)a.index_count));
    crowd_trs pa[32], pb[32];
    a.sample(&a, 1, 0.37, pa, NULL);
    b.sample(&b, 1, 0.37, pb, NULL);
    CHECK(!memcmp(pa, pb, sizeof(crowd_trs) * a.bone_count));
    crowd_rig_free(&a);
    crowd_rig_free(&b);
    /* density scales the tessellation */
    crowd_humanoid_desc dense = {2.0f};
    REQUIRE(crowd_rig_build_humanoid(&dense, &a, &err) == CROWD_OK);
    CHECK(a.vertex_count > humanoid()->vertex_count * 3 / 2);
    crowd_rig_free(&a);
    crowd_humanoid_desc bad = {100.0f};
    CHECK(crowd_rig_build_humanoid(&bad, &a, &err) == CROWD_ERROR_ARGUMENT);
}

/* Skins the whole rig at time t of clip c. */
static void skin_at(const crowd_rig *rig, uint32_t clip, double t, float *positions, float *normals, float *global)
{
    crowd_trs pose[32];
    float skin[32 * 16], rows[32 * 12];
    rig->sample(rig, clip, t, pose, NULL);
    crowd_rig_global_matrices(rig, pose, global);
    crowd_rig_skin_matrices(rig, global, skin);
    crowd_skin_frame(rig, skin, rows, NULL, NULL, positions, normals, NULL);
}

/* A planted sole does not slip: sideways drift < 0.1 mm per frame and the backwards speed constant
 * to 5e-3 relative, equal to stride / duration. Sampled at 120 fps. */
static void planted_feet_do_not_slip(void)
{
    const crowd_rig *rig = humanoid();
    uint32_t gait_count;
    const crowd_gait *gaits = crowd_humanoid_gaits(&gait_count);
    float *p0 = malloc(12 * (size_t)rig->vertex_count), *p1 = malloc(12 * (size_t)rig->vertex_count);
    float *n = malloc(12 * (size_t)rig->vertex_count), global[32 * 16];
    REQUIRE(p0 && p1 && n);
    for (uint32_t g = 0; g < gait_count; g++) {
        int clip = crowd_rig_find_clip(rig, gaits[g].name);
        REQUIRE(clip >= 0);
        double expected = gaits[g].stride / gaits[g].duration, dt = 1.0 / 120.0;
        for (int side = 0; side < 2; side++) {
            int foot = crowd_rig_find_bone(rig, side ? "foot_r" : "foot_l");
            double worst_drift = 0, worst_speed = 0;
            int planted = 0;
            int frames = (int)lround(gaits[g].duration / dt);
            for (int f = 0; f < frames; f++) {
                /* stance by the gait's definition: the leg's phase below the duty factor at both samples */
                double q0 = fmod(f * dt / gaits[g].duration + 0.5 * side, 1.0);
                double q1 = fmod((f + 1) * dt / gaits[g].duration + 0.5 * side, 1.0);
                if (q0 >= gaits[g].duty || q1 >= gaits[g].duty || q1 < q0)
                    continue;
                skin_at(rig, (uint32_t)clip, f * dt, p0, n, global);
                skin_at(rig, (uint32_t)clip, (f + 1) * dt, p1, n, global);
                /* the sole: vertices of this foot on the ground */
                for (uint32_t v = 0; v < rig->vertex_count; v++) {
                    if (rig->joints[4 * v] != foot || rig->weights[4 * v] < 0.999f)
                        continue;
                    if (fabsf(p0[3 * v + 1]) > 1e-4f)
                        continue;
                    CHECKF(fabsf(p1[3 * v + 1]) < 1e-5f, "%s: planted sole vertex lifts", gaits[g].name);
                    planted++;
                    worst_drift = fmax(worst_drift, fabs((double)p1[3 * v] - p0[3 * v]));
                    double speed = -((double)p1[3 * v + 2] - p0[3 * v + 2]) / dt;
                    worst_speed = fmax(worst_speed, fabs(speed - expected) / expected);
                }
            }
            CHECKF(planted > 0, "%s: no planted frames", gaits[g].name);
            CHECKF(worst_drift < 1e-4, "%s side %d: drift %.3g m/frame", gaits[g].name, side, worst_drift);
            CHECKF(worst_speed < 5e-3, "%s side %d: speed off by %.3g", gaits[g].name, side, worst_speed);
        }
    }
    free(p0);
    free(p1);
    free(n);
}

/* The legs never reach full extension (where IK would have to let the foot go). */
static void ik_reach_stays_inside_the_leg(void)
{
    const crowd_rig *rig = humanoid();
    float *p = malloc(12 * (size_t)rig->vertex_count), *n = malloc(12 * (size_t)rig->vertex_count), global[32 * 16];
    REQUIRE(p && n);
    double worst = 0;
    const double leg = HUMANOID_THIGH_LENGTH + HUMANOID_SHIN_LENGTH;
    for (uint32_t c = 0; c < rig->clip_count; c++)
        for (int f = 0; f < 240; f++) {
            skin_at(rig, c, rig->clips[c].duration * f / 240.0, p, n, global);
            for (int side = 0; side < 2; side++) {
                int thigh = side ? HB_THIGH_R : HB_THIGH_L, foot = thigh + 2;
                double d2 = 0;
                for (int k = 0; k < 3; k++) {
                    double d = (double)global[16 * foot + 12 + k] - global[16 * thigh + 12 + k];
                    d2 += d * d;
                }
                worst = fmax(worst, sqrt(d2) / leg);
            }
        }
    CHECKF(worst < 0.975, "hip-ankle distance reaches %.4f of the leg", worst);
    free(p);
    free(n);
}

/* Loops close without a jump: the step from the last frame back to the first is no larger than
 * the largest step inside the clip. */
static void clips_loop_without_a_seam(void)
{
    const crowd_rig *rig = humanoid();
    size_t bytes = 12 * (size_t)rig->vertex_count;
    float *first = malloc(bytes), *prev = malloc(bytes), *cur = malloc(bytes), *n = malloc(bytes), global[32 * 16];
    REQUIRE(first && prev && cur && n);
    for (uint32_t c = 0; c < rig->clip_count; c++) {
        const int frames = 60;
        double largest = 0, seam = 0;
        skin_at(rig, c, 0.0, first, n, global);
        memcpy(prev, first, bytes);
        for (int f = 1; f <= frames; f++) {
            float *target = f == frames ? first : cur;
            if (f < frames)
                skin_at(rig, c, rig->clips[c].duration * f / frames, cur, n, global);
            double step = 0;
            for (uint32_t v = 0; v < 3 * rig->vertex_count; v++)
                step = fmax(step, fabs((double)target[v] - prev[v]));
            if (f == frames)
                seam = step;
            else
                largest = fmax(largest, step);
            memcpy(prev, cur, bytes);
        }
        CHECKF(largest > 1e-4, "%s does not move", rig->clips[c].name);
        CHECKF(seam <= largest * 1.05, "%s: seam step %.4f m, largest inner step %.4f m", rig->clips[c].name, seam,
               largest);
    }
    free(first);
    free(prev);
    free(cur);
    free(n);
}

int main(void)
{
    RUN_TEST(structure);
    RUN_TEST(deterministic);
    RUN_TEST(planted_feet_do_not_slip);
    RUN_TEST(ik_reach_stays_inside_the_leg);
    RUN_TEST(clips_loop_without_a_seam);
    TEST_MAIN_END();
}
