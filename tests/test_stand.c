/* Characters the simulation cannot walk: one with no gait stands and turns in every scenario (it
 * never glides on its idle), one with no idle stands in a gait held still at one pose (it never runs
 * in place). Both built here from the procedural humanoid with some of its clips baked. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "crowdbake/crowd.h"
#include "crowdbake/sim.h"
#include "test_support.h"

static crowd_rig rig;

#define AGENTS 300u
#define DT (1.0f / 30.0f)

static void bake_clips(const char *const *names, uint32_t count, crowd_bake_output *out, crowd_asset *asset)
{
    crowd_error err;
    *out = bake_or_die(&rig, (crowd_bake_desc){.frames = 12, .clip_names = names, .clip_name_count = count});
    REQUIRE(crowd_asset_load_memory(asset, out->bytes, out->size, &err) == CROWD_OK);
}

static void make(const crowd_asset *asset, crowd_scenario scenario, crowd **c, crowd_sim **sim)
{
    crowd_desc d = {.asset = asset, .capacity = AGENTS, .world_size = 80.0f, .chunk_size = 8.0f};
    REQUIRE(crowd_create(&d, c, NULL) == CROWD_OK);
    crowd_sim_desc sd = {.target = *c, .scenario = scenario, .seed = 5, .separation = -1};
    REQUIRE(crowd_sim_create(&sd, sim, NULL) == CROWD_OK);
    REQUIRE(crowd_sim_spawn(*sim, AGENTS) == CROWD_OK);
}

static uint32_t clip_a(const crowd_record *r)
{
    return r->clips & CROWD_RECORD_CLIP_MASK;
}

/* Only an idle: in every scenario no agent moves a millimetre over 12 s (wander decides every 2-6 s)
 * and every one plays the idle; wanderers turn in place towards their whims, a little per step. */
static void gaitless_agents_stand_and_turn(void)
{
    crowd_bake_output out;
    crowd_asset asset;
    const char *const names[] = {"idle"};
    bake_clips(names, 1, &out, &asset);
    for (int scenario = 0; scenario < CROWD_SCENARIO_COUNT; scenario++) {
        crowd *c;
        crowd_sim *sim;
        make(&asset, (crowd_scenario)scenario, &c, &sim);
        crowd_sim_gaits gaits;
        CHECK(crowd_sim_get_gaits(sim, &gaits) == CROWD_OK && gaits.gait_count == 0 && gaits.idle_clip == 0 &&
              !gaits.holds_pose);
        static float start[AGENTS][3], yaw[AGENTS];
        crowd_record r;
        for (uint32_t i = 0; i < AGENTS; i++) {
            crowd_get(c, i, &r);
            crowd_record_position(&r, crowd_time(c), start[i]);
            yaw[i] = crowd_record_yaw(&r, crowd_time(c));
        }
        crowd_view view = {0};
        float moved = 0.0f, largest_turn = 0.0f;
        uint32_t turned = 0, not_idle = 0;
        for (int step = 0; step < 360; step++) {
            crowd_sim_step(sim, DT);
            crowd_update(c, DT, &view);
            for (uint32_t i = 0; i < AGENTS; i++) {
                float p[3];
                crowd_get(c, i, &r);
                crowd_record_position(&r, crowd_time(c), p);
                moved = fmaxf(moved, hypotf(p[0] - start[i][0], p[2] - start[i][2]));
                float now = crowd_record_yaw(&r, crowd_time(c)), turn = fabsf(remainderf(now - yaw[i], 6.2831853f));
                largest_turn = fmaxf(largest_turn, turn);
                turned += turn > 0.0f;
                yaw[i] = now;
                not_idle += step == 359 && (clip_a(&r) != 0 || !(r.rate_a > 0.0f) || r.velocity != 0);
            }
        }
        const char *name = crowd_scenario_name(scenario);
        CHECKF(moved == 0.0f, "%s: an agent without a gait moved %.3f m", name, (double)moved);
        CHECKF(not_idle == 0, "%s: %u agents not standing in their playing idle", name, not_idle);
        /* a turn is spread over steps (at most a 0.42 rad step for a half turn at 4/s and 1/30 s) */
        CHECKF(largest_turn < 0.45f, "%s: a standing agent turned %.2f rad in one step", name, (double)largest_turn);
        if (scenario == CROWD_SCENARIO_WANDER)
            CHECKF(turned > AGENTS, "wander: standing agents turned on only %u agent-steps", turned);
        printf("     %-8s moved %.4f m, %u agent-steps turning, largest step %.3f rad\n", name, (double)moved, turned,
               (double)largest_turn);
        crowd_sim_destroy(sim);
        crowd_destroy(c);
    }
    crowd_asset_free(&asset);
    crowd_bake_output_free(&out);
}

/* Share of clip c's frame nearest `phase` lying within 3 % of the clip's radius above its lowest
 * point, against the best frame's: the frame a standing agent holds must plant the most. */
static float planted_share(const crowd_asset *a, uint32_t c, float phase)
{
    const crowd_clip *clip = &a->clips[c];
    float lowest = INFINITY, p[3], n[3];
    for (uint32_t f = 0; f < clip->frame_count; f++)
        for (uint32_t v = 0; v < a->vertex_count; v++)
            if (crowd_asset_decode_vertex(a, clip->first_frame + f, v, p, n) == CROWD_OK)
                lowest = fminf(lowest, p[1]);
    uint32_t held = (uint32_t)lroundf(phase * (float)clip->frame_count) % clip->frame_count, best = 0, at_held = 0;
    for (uint32_t f = 0; f < clip->frame_count; f++) {
        uint32_t count = 0;
        for (uint32_t v = 0; v < a->vertex_count; v++)
            count += crowd_asset_decode_vertex(a, clip->first_frame + f, v, p, n) == CROWD_OK &&
                     p[1] <= lowest + 0.03f * clip->bound_radius;
        best = count > best ? count : best;
        at_held = f == held ? count : at_held;
    }
    return best ? (float)at_held / (float)best : 0.0f;
}

/* Only a walk and a run: wanderers that stand hold the walk still (rate 0), all at one phase whose
 * frame plants the body on the ground about as much as the best frame does; movers keep striding. */
static void idleless_agents_hold_a_contact_pose(void)
{
    crowd_bake_output out;
    crowd_asset asset;
    const char *const names[] = {"walk", "run"};
    bake_clips(names, 2, &out, &asset);
    crowd *c;
    crowd_sim *sim;
    make(&asset, CROWD_SCENARIO_WANDER, &c, &sim);
    crowd_view view = {0};
    uint32_t standing = 0, running_in_place = 0, striding = 0, phases_differ = 0;
    float held_phase = -1.0f;
    for (int step = 0; step < 600; step++) {
        crowd_sim_step(sim, DT);
        crowd_update(c, DT, &view);
        for (uint32_t i = 0; step % 20 == 19 && i < AGENTS; i++) {
            crowd_record r;
            crowd_get(c, i, &r);
            if (r.fade_rate > 0.0f)
                continue;
            float now[3], later[3]; /* (a turning record moves with a velocity word of 0) */
            crowd_record_position(&r, crowd_time(c), now);
            crowd_record_position(&r, crowd_time(c) + 0.5f, later);
            if (now[0] != later[0] || now[2] != later[2]) {
                striding += r.rate_a > 0.0f;
                continue;
            }
            standing++;
            running_in_place += r.rate_a != 0.0f || clip_a(&r) != 0;
            float phase = r.offset_a - floorf(r.offset_a);
            held_phase = held_phase < 0.0f ? phase : held_phase;
            phases_differ += fabsf(phase - held_phase) > 1e-6f;
        }
    }
    CHECKF(standing > 100, "only %u standing agent-samples", standing);
    CHECKF(running_in_place == 0, "%u of %u standing agent-samples play a gait in place", running_in_place, standing);
    CHECKF(phases_differ == 0, "%u standing agent-samples hold another phase than %.3f", phases_differ,
           (double)held_phase);
    CHECKF(striding > 1000, "only %u moving agent-samples stride", striding);
    crowd_sim_gaits gaits;
    CHECK(crowd_sim_get_gaits(sim, &gaits) == CROWD_OK && gaits.gait_count == 2 && gaits.holds_pose &&
          gaits.idle_clip == 0 && gaits.pose_phase == held_phase);
    CHECK(crowd_sim_get_gaits(NULL, &gaits) == CROWD_ERROR_ARGUMENT);
    float share = held_phase >= 0.0f ? planted_share(&asset, 0, held_phase) : 0.0f;
    CHECKF(share > 0.9f, "the held walk frame plants %.2f of the best frame's ground vertices", (double)share);
    printf("     %u standing samples all at walk phase %.3f (%.2f of the best frame planted), %u striding\n", standing,
           (double)held_phase, (double)share, striding);
    crowd_sim_destroy(sim);
    crowd_destroy(c);
    crowd_asset_free(&asset);
    crowd_bake_output_free(&out);
}

int main(void)
{
    crowd_humanoid_desc hd = {.density = 0.25f};
    crowd_error err;
    if (crowd_rig_build_humanoid(&hd, &rig, &err) != CROWD_OK)
        return 1;
    RUN_TEST(gaitless_agents_stand_and_turn);
    RUN_TEST(idleless_agents_hold_a_contact_pose);
    crowd_rig_free(&rig);
    TEST_MAIN_END();
}
