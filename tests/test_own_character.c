/* "Bring your own character": the humanoid dressed up as a third-party file would be (turned to
 * face -Z or +X, authored in centimetres or inches, a centimetre mesh under metre bones, Z up,
 * lifted or sunk, Blender-style clip names, an extra still pose, a one-shot roll, flight cycles
 * with and without a brush of the ground, a walk one key short, with root motion, with a seam),
 * written as .glb and read back. Each must bake with no flag (but the up axis) to the same
 * character as the plain humanoid: facing +Z, its own 1.8 m, on the ground, with the right roles,
 * only the walks, jog and run as gaits, and planted feet that do not glide. Plus bone
 * mode on a morph-animated asset: warned, recorded unavailable, not a verify PASS. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define PI 3.14159265358979323846
#include "common/cbmath.h"
#include "common/view_matrices.h"
#include "crowdbake/crowd.h"
#include "crowdbake/gltf.h"
#include "crowdbake/sim.h"
#include "dress.h"
#include "test_support.h"

/* ---- dressing the humanoid up (crowd-export's dressing, tools/dress.c) -------------------------- */

/* A .glb of the humanoid as a user's file: the humanoid written and read back as glTF, dressed with
 * every extra clip and Blender names, written again. */
static uint8_t *dressed_glb(crowd_dress dress, size_t *size)
{
    crowd_error err;
    uint8_t *plain_glb = NULL, *out = NULL;
    size_t plain_size = 0;
    crowd_rig rig = {0};
    if (crowd_gltf_write_glb(humanoid(), NULL, &plain_glb, &plain_size, &err) != CROWD_OK ||
        crowd_gltf_read_memory(plain_glb, plain_size, "humanoid.glb", NULL, NULL, &rig, &err) != CROWD_OK) {
        fprintf(stderr, "dressed_glb: %s\n", err.message);
        return NULL;
    }
    crowd_gltf_bytes_free(plain_glb);
    dress.blender_names = dress.pose = dress.roll = dress.fly = dress.open_walk = dress.root_walk = true;
    dress.seam_walk = dress.low_fly = true;
    if (crowd_dress_rig(&rig, &dress, &err) != CROWD_OK ||
        crowd_gltf_write_glb(&rig, NULL, &out, size, &err) != CROWD_OK)
        fprintf(stderr, "dressed_glb: %s\n", err.message);
    crowd_rig_free(&rig);
    return out;
}

/* ---- the checks ------------------------------------------------------------------------------- */

static void find_face(const crowd_asset *a);
static void check_looks(const char *what, const crowd_asset *a);
static uint32_t head_count, nose;

static crowd_bake_output reference;
static crowd_asset reference_asset;

static void warned(void *user, const char *message)
{
    int *count = user;
    (*count)++;
    printf("  warning: %s\n", message);
}

static void reference_bake(void)
{
    crowd_bake_desc desc = {0}; /* no flag: the humanoid is in metres, 1.798 m tall */
    reference = bake_or_die(humanoid(), desc);
    crowd_error err;
    REQUIRE(crowd_asset_load_memory(&reference_asset, reference.bytes, reference.size, &err) == CROWD_OK);
    CHECKF(reference.stats.notes.height > 1.7f && reference.stats.notes.height < 1.9f &&
               reference.stats.notes.scale_decision == CROWD_DECIDED_DEFAULT,
           "height %g", (double)reference.stats.notes.height);
    CHECK(reference.stats.notes.forward == CROWD_AXIS_POS_Z);
    find_face(&reference_asset);
    printf("  the face: %u head vertices, nose vertex %u\n", head_count, nose);
    check_looks("the humanoid", &reference_asset);
}

/* Worst distance between a clip's frames in the two assets (same clip name). */
static double clip_distance(const crowd_asset *a, const crowd_asset *b, const char *name_a, const char *name_b)
{
    uint32_t ca, cb;
    if (!crowd_asset_match_clip(a, name_a, &ca) || !crowd_asset_match_clip(b, name_b, &cb))
        return INFINITY;
    double worst = 0.0;
    uint32_t frames =
        a->clips[ca].frame_count < b->clips[cb].frame_count ? a->clips[ca].frame_count : b->clips[cb].frame_count;
    for (uint32_t f = 0; f < frames; f++)
        for (uint32_t v = 0; v < a->vertex_count; v++) {
            float pa[3], pb[3], n[3];
            crowd_asset_decode_vertex(a, a->clips[ca].first_frame + f, v, pa, n);
            crowd_asset_decode_vertex(b, b->clips[cb].first_frame + f, v, pb, n);
            worst = fmax(worst, hypot(hypot(pa[0] - pb[0], pa[1] - pb[1]), pa[2] - pb[2]));
        }
    return worst;
}

/* ---- "looks right" in a crowd: feet on the ground, faces along the heading ------------------------ */

/* The face, found once in the plain humanoid (idle, first frame): its head is the top 12 % of the
 * height, its nose the head's most forward (+Z) vertex. Vertex indices survive the dressing. */
static uint32_t head[4096];

static void find_face(const crowd_asset *a)
{
    uint32_t frame = a->clips[clip_or_die(a, "idle")].first_frame;
    float top = -INFINITY, lo = INFINITY, p[3], n[3];
    for (uint32_t v = 0; v < a->vertex_count; v++) {
        crowd_asset_decode_vertex(a, frame, v, p, n);
        top = fmaxf(top, p[1]), lo = fminf(lo, p[1]);
    }
    float best = -INFINITY;
    head_count = 0;
    for (uint32_t v = 0; v < a->vertex_count; v++) {
        crowd_asset_decode_vertex(a, frame, v, p, n);
        if (p[1] < top - 0.12f * (top - lo) || head_count == 4096)
            continue;
        head[head_count++] = v;
        if (p[2] > best)
            best = p[2], nose = v;
    }
}

/* Vertex v of a record's clip A at shader time `time`, in world metres: as the vertex shader does
 * (frames mixed, scaled, turned by yaw about +Y with yaw 0 facing +Z, moved). */
static void world_vertex(const crowd_asset *a, const crowd_record *r, float time, const crowd_clip_sample *s,
                         uint32_t v, float w[3])
{
    float at[3];
    crowd_record_position(r, time, at);
    float p0[3], p1[3], n[3];
    crowd_asset_decode_vertex(a, s->frame0, v, p0, n);
    crowd_asset_decode_vertex(a, s->frame1, v, p1, n);
    float p[3];
    for (int k = 0; k < 3; k++)
        p[k] = (p0[k] + (p1[k] - p0[k]) * s->t) * r->scale;
    float c = cosf(r->yaw), sn = sinf(r->yaw);
    w[0] = at[0] + c * p[0] + sn * p[2];
    w[1] = at[1] + p[1];
    w[2] = at[2] - sn * p[0] + c * p[2];
}

typedef struct look {
    uint32_t walkers;   /* agent-frames measured: walking, not fading */
    double worst_feet;  /* |lowest vertex - ground|, metres */
    double worst_angle; /* face against heading, degrees */
    double mean_angle;
    double mean_motion; /* face against the direction of motion, degrees */
    double glide;       /* the planted foot's slide over the walker's own motion (median): 0 stays put */
    uint32_t planted;   /* walker-frames with a foot on the ground at both ends of the step */
} look;

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A parading crowd of this asset through the runtime (sim, update, records), measured at six
 * moments of its walking: the lowest point of every walker against the ground (y = 0), and the
 * direction from the head's centre to the nose against the direction the agent moves. */
static void crowd_looks(const crowd_asset *a, look *result)
{
    look out = {0};
    static double slips[4096];
    const uint32_t n = 60;
    crowd_desc d = {.asset = a, .capacity = n, .world_size = 80.0f};
    crowd *c = NULL;
    crowd_sim *sim = NULL;
    crowd_error err;
    REQUIRE(crowd_create(&d, &c, &err) == CROWD_OK);
    crowd_sim_desc sd = {.target = c, .scenario = CROWD_SCENARIO_PARADE, .seed = 3, .separation = -1};
    REQUIRE(crowd_sim_create(&sd, &sim, &err) == CROWD_OK);
    REQUIRE(crowd_sim_spawn(sim, n) == CROWD_OK);
    crowd_view view = {0};
    const float eye[3] = {0, 30, -60}, target[3] = {0, 0, 0}, up[3] = {0, 1, 0};
    cb_look_at(view.view, eye, target, up);
    cb_perspective(view.projection, 1.0f, 16.0f / 9.0f, 0.3f, 500.0f);
    view.viewport_height = 720.0f;
    crowd_record before[60];
    const float dt = 1.0f / 30.0f;
    for (int step = 0; step < 90 + 6 * 7; step++) {
        for (uint32_t i = 0; i < n; i++)
            crowd_get(c, i, &before[i]);
        float t_before = crowd_time(c);
        crowd_sim_step(sim, dt);
        crowd_update(c, dt, &view);
        if (step < 90 || step % 7)
            continue;
        for (uint32_t i = 0; i < n; i++) {
            crowd_record r;
            crowd_get(c, i, &r);
            float was[3], now[3];
            crowd_record_position(&before[i], t_before, was);
            crowd_record_position(&r, crowd_time(c), now);
            float hx = now[0] - was[0], hz = now[2] - was[2];
            float moved = sqrtf(hx * hx + hz * hz);
            uint32_t clip = crowd_record_clip(&r, 0);
            if (r.fade_rate != 0.0f || crowd_record_clip(&r, 1) != clip || moved < 0.5f * dt || moved > 20.0f * dt ||
                crowd_clip_role_of(&a->clips[clip]) != CROWD_ROLE_LOCOMOTION)
                continue;
            crowd_clip_sample s;
            REQUIRE(crowd_record_sample(a, &r, 0, crowd_time(c), &s) == CROWD_OK);
            float lowest = INFINITY, w[3], centre[3] = {0, 0, 0}, tip[3], foot[3] = {0, 0, 0}, was_foot[3];
            uint32_t planted = 0;
            for (uint32_t v = 0; v < a->vertex_count; v++) {
                world_vertex(a, &r, crowd_time(c), &s, v, w);
                if (w[1] < lowest)
                    lowest = w[1], planted = v, memcpy(foot, w, sizeof foot);
            }
            /* glide: the lowest vertex, where it was a step ago, when it was on the ground then too */
            crowd_clip_sample s_before;
            REQUIRE(crowd_record_sample(a, &before[i], 0, t_before, &s_before) == CROWD_OK);
            world_vertex(a, &before[i], t_before, &s_before, planted, was_foot);
            if (fabsf(was_foot[1]) < 0.02f && fabsf(foot[1]) < 0.02f && out.planted < 4096)
                slips[out.planted++] = hypot(foot[0] - was_foot[0], foot[2] - was_foot[2]) / moved;
            for (uint32_t k = 0; k < head_count; k++) {
                world_vertex(a, &r, crowd_time(c), &s, head[k], w);
                for (int e = 0; e < 3; e++)
                    centre[e] += w[e] / (float)head_count;
            }
            world_vertex(a, &r, crowd_time(c), &s, nose, tip);
            /* against the yaw (the heading the record says); the sim's own lag while turning shows in
             * the motion figure, checked on average only */
            double fx = tip[0] - centre[0], fz = tip[2] - centre[2];
            double cosine = (fx * sin(r.yaw) + fz * cos(r.yaw)) / hypot(fx, fz);
            double angle = acos(fmax(-1.0, fmin(1.0, cosine))) * 180.0 / PI;
            double motion = (fx * hx + fz * hz) / (hypot(fx, fz) * moved);
            out.mean_motion += acos(fmax(-1.0, fmin(1.0, motion))) * 180.0 / PI;
            out.worst_feet = fmax(out.worst_feet, fabs(lowest));
            out.worst_angle = fmax(out.worst_angle, angle);
            out.mean_angle += angle;
            out.walkers++;
        }
    }
    qsort(slips, out.planted, sizeof *slips, compare_doubles);
    out.glide = out.planted ? slips[out.planted / 2] : 1.0;
    out.mean_angle /= out.walkers ? out.walkers : 1;
    out.mean_motion /= out.walkers ? out.walkers : 1;
    crowd_sim_destroy(sim);
    crowd_destroy(c);
    *result = out;
}

static void check_looks(const char *what, const crowd_asset *a)
{
    look l;
    crowd_looks(a, &l);
    printf("  %s in a parade: %u walker-frames, feet within %.1f mm of the ground, face %.1f deg (worst) / %.1f deg "
           "(mean) off the yaw, %.1f deg (mean) off the motion; planted feet slide %.1f %% of the motion "
           "(median of %u)\n",
           what, l.walkers, 1000 * l.worst_feet, l.worst_angle, l.mean_angle, l.mean_motion, 100 * l.glide, l.planted);
    CHECKF(l.walkers >= 100, "%s: only %u walker-frames", what, l.walkers);
    CHECKF(l.worst_feet < 0.03, "%s: a foot %.1f mm off the ground", what, 1000 * l.worst_feet);
    CHECKF(l.worst_angle < 15.0 && l.mean_angle < 5.0 && l.mean_motion < 10.0,
           "%s: face %.1f deg (mean %.1f) off the yaw, %.1f off the motion", what, l.worst_angle, l.mean_angle,
           l.mean_motion);
    CHECKF(l.planted >= 50 && l.glide < 0.1, "%s: planted feet slide %.1f %% of the motion (%u)", what, 100 * l.glide,
           l.planted);
}

/* The measure can fail: told it faces -X, the bake turns it a quarter round, and it walks sideways. */
static void looks_can_fail(void)
{
    crowd_error err;
    crowd_bake_desc wrong = {.height = 1.7f, .forward = CROWD_FORWARD_NEG_X};
    crowd_bake_output out = bake_or_die(humanoid(), wrong);
    crowd_asset a;
    REQUIRE(crowd_asset_load_memory(&a, out.bytes, out.size, &err) == CROWD_OK);
    look l;
    crowd_looks(&a, &l);
    printf("  told it faces -X: face %.1f deg (mean) off the yaw\n", l.mean_angle);
    CHECKF(l.mean_angle > 80.0 && l.mean_angle < 100.0, "a sideways walker measured %.1f deg off", l.mean_angle);
    crowd_asset_free(&a);
    crowd_bake_output_free(&out);
}

static void check_case(const char *what, crowd_dress dress, crowd_bake_up up, crowd_axis expect_forward)
{
    size_t size = 0;
    uint8_t *glb = dressed_glb(dress, &size);
    REQUIRE(glb);
    crowd_rig rig;
    crowd_error err;
    CHECKF(crowd_gltf_read_memory(glb, size, what, NULL, NULL, &rig, &err) == CROWD_OK, "%s", err.message);
    crowd_gltf_bytes_free(glb);
    int warnings = 0;
    crowd_bake_desc desc = {.up = up, .warn = warned, .warn_user = &warnings}; /* no flag but the up axis */
    crowd_bake_output out = bake_or_die(&rig, desc);
    crowd_asset a;
    REQUIRE(crowd_asset_load_memory(&a, out.bytes, out.size, &err) == CROWD_OK);
    const crowd_bake_notes *n = &out.stats.notes;
    printf("  %s: faced %d (%s), height %.4f m, scale %g, ground offset %+.4f m\n", what, n->forward,
           n->forward_decision == CROWD_DECIDED_DETECTED ? "detected" : "not detected", (double)n->height,
           (double)a.unit_scale, (double)n->ground_offset);
    CHECKF(n->forward == expect_forward && n->forward_decision == CROWD_DECIDED_DETECTED, "%s: forward %d", what,
           n->forward);
    float height = reference.stats.notes.height;
    CHECKF(fabsf(n->height - height) < 1e-3f * height, "%s: height %g m against %g m", what, (double)n->height,
           (double)height);
    bool rescaled = dress.scale != 0.0f && dress.scale != 1.0f; /* said in one line, as a note */
    CHECKF(warnings == (rescaled ? 1 : 0), "%s: %d warnings", what, warnings);
    /* the same character as the plain humanoid: facing +Z, on the ground, its own size */
    static const char *const same[][2] = {{"Armature|Idle", "idle"}, {"walk", "walk"}, {"run", "run"}};
    for (int k = 0; k < 3; k++) {
        double d = clip_distance(&a, &reference_asset, same[k][0], same[k][1]);
        CHECKF(d < 2e-3, "%s: %s is %.4f m from the reference", what, same[k][0], d);
    }
    static const struct {
        const char *clip;
        crowd_clip_role role;
    } roles[] = {
        {"idle", CROWD_ROLE_IDLE},
        {"walk", CROWD_ROLE_LOCOMOTION},
        {"jog", CROWD_ROLE_LOCOMOTION},
        {"run", CROWD_ROLE_LOCOMOTION},
        {"wave", CROWD_ROLE_IDLE},
        {"cheer", CROWD_ROLE_IDLE},
        {"pose", CROWD_ROLE_POSE},
        {"Armature|Roll", CROWD_ROLE_ACTION},
        {"FLY", CROWD_ROLE_FLIGHT},
        {"walk_open", CROWD_ROLE_LOCOMOTION},
        {"walk_root", CROWD_ROLE_LOCOMOTION},
        {"walk_seam", CROWD_ROLE_LOCOMOTION},
        {"fly_low", CROWD_ROLE_FLIGHT},
    };
    for (size_t k = 0; k < sizeof roles / sizeof *roles; k++) {
        uint32_t c = 0;
        CHECKF(crowd_asset_match_clip(&a, roles[k].clip, &c), "%s: no clip %s", what, roles[k].clip);
        crowd_clip_evidence e;
        crowd_asset_clip_evidence(&a, c, &e);
        CHECKF(crowd_clip_role_of(&a.clips[c]) == roles[k].role,
               "%s: %s is %s (contacts %u/%u, distinct %u, keys %u, "
               "airborne %.3f, travels %d)",
               what, a.clips[c].name, crowd_clip_role_name(crowd_clip_role_of(&a.clips[c])), e.contact_frames, e.frames,
               e.distinct_frames, e.key_count, (double)e.airborne, e.travels);
        bool gait = (a.clips[c].flags & CROWD_CLIP_LOCOMOTION) != 0;
        CHECKF(gait == (roles[k].role == CROWD_ROLE_LOCOMOTION) && gait == (a.clips[c].stride > 0),
               "%s: %s gait %d stride %g", what, a.clips[c].name, gait, (double)a.clips[c].stride);
    }
    /* the one-shot roll travels 0.9 bind-mesh heights (the dressing's figure) and keeps that as data */
    const crowd_rig *plain = humanoid();
    float lo = INFINITY, hi = -INFINITY;
    for (uint32_t v = 0; v < plain->vertex_count; v++)
        lo = fminf(lo, plain->positions[3 * v + 1]), hi = fmaxf(hi, plain->positions[3 * v + 1]);
    uint32_t roll = 0;
    crowd_clip_evidence e;
    REQUIRE(crowd_asset_match_clip(&a, "roll", &roll) && crowd_asset_clip_evidence(&a, roll, &e));
    CHECKF(fabsf(e.root_travel - 0.9f * (hi - lo)) < 0.03f * (hi - lo), "%s: the roll travels %.4f m, not %.4f m", what,
           (double)e.root_travel, 0.9 * (hi - lo));
    check_looks(what, &a);
    crowd_asset_free(&a);
    crowd_bake_output_free(&out);
    crowd_rig_free(&rig);
}

static void faces_minus_z_in_centimetres(void)
{
    check_case("-Z, cm", (crowd_dress){.face = CROWD_AXIS_NEG_Z, .scale = 100.0f}, CROWD_UP_DEFAULT, CROWD_AXIS_NEG_Z);
}

static void faces_plus_x_in_inches_lifted(void)
{
    check_case("+X, inches, lifted", (crowd_dress){.face = CROWD_AXIS_POS_X, .scale = 1.0f / 0.0254f, .lift = 0.4f},
               CROWD_UP_DEFAULT, CROWD_AXIS_POS_X);
}

/* A centimetre bind mesh under a 0.01-scaled armature (Mixamo files through Blender): the bones move
 * in metres while the bind mesh measures 170, so sizes must come from the skinned rest pose. */
static void centimetre_mesh_under_metre_bones(void)
{
    check_case("cm mesh, m bones", (crowd_dress){.mesh_unit = 100.0f}, CROWD_UP_DEFAULT, CROWD_AXIS_POS_Z);
}

static void sunk(void)
{
    check_case("sunk", (crowd_dress){.lift = -0.3f}, CROWD_UP_DEFAULT, CROWD_AXIS_POS_Z);
}

static void z_up(void)
{
    /* +90 degrees about X takes +Y (up) to +Z and +Z (forward) to -Y (Blender's forward); --up +z turns
     * it back, so the forward seen after the up rotation is +Z */
    check_case("Z up", (crowd_dress){.z_up = true}, CROWD_UP_POS_Z, CROWD_AXIS_POS_Z);
}

/* Loop rule (b) of gltf.h: a walk cycle written without its closing key (its last key is the pose
 * one sample before the first) loops, and its duration grows by that key interval to the full cycle;
 * the same walk cut a quarter of a second short does not loop, nor does the one-shot roll. */
static bool open_walk(float cut_fps, crowd_rig *rig)
{
    size_t size = 0;
    uint8_t *glb = dressed_glb((crowd_dress){.fps = cut_fps}, &size);
    crowd_error err;
    bool ok = glb && crowd_gltf_read_memory(glb, size, "open.glb", NULL, NULL, rig, &err) == CROWD_OK;
    crowd_gltf_bytes_free(glb);
    return ok;
}

static void loop_rule_b(void)
{
    crowd_rig rig;
    REQUIRE(open_walk(30.0f, &rig));
    int walk = crowd_rig_find_clip(&rig, "Armature|Walk"), open = crowd_rig_find_clip(&rig, "Armature|Walk_open");
    int roll = crowd_rig_find_clip(&rig, "Armature|Roll");
    REQUIRE(walk >= 0 && open >= 0 && roll >= 0);
    printf("  walk %.4f s loops %d; one key short: %.4f s loops %d; roll loops %d\n", rig.clips[walk].duration,
           rig.clips[walk].loop, rig.clips[open].duration, rig.clips[open].loop, rig.clips[roll].loop);
    CHECK(rig.clips[walk].loop && rig.clips[open].loop && !rig.clips[roll].loop);
    CHECKF(fabs(rig.clips[open].duration - rig.clips[walk].duration) < 1e-5, "%.6f s against %.6f s",
           rig.clips[open].duration, rig.clips[walk].duration);
    /* baked, it is the walk again: a gait with the walk's stride */
    const char *clips[] = {"walk", "walk_open"};
    crowd_bake_desc desc = {.clip_names = clips, .clip_name_count = 2};
    crowd_bake_output out = bake_or_die(&rig, desc);
    crowd_asset a;
    crowd_error err;
    REQUIRE(crowd_asset_load_memory(&a, out.bytes, out.size, &err) == CROWD_OK);
    CHECKF(a.clips[1].flags & CROWD_CLIP_LOCOMOTION &&
               fabsf(a.clips[1].stride - a.clips[0].stride) < 0.01f * a.clips[0].stride,
           "walk stride %.4f m, open walk %.4f m", (double)a.clips[0].stride, (double)a.clips[1].stride);
    crowd_asset_free(&a);
    crowd_bake_output_free(&out);
    crowd_rig_free(&rig);
    /* rule (c): the walk with root motion loops, travels 0.72 heights (of the bind mesh) per cycle,
     * and bakes in place as a gait whose stride is that travel (the dressing's travel is 1.8 %
     * longer than the walk's own stride: its feet slip by that much in the authored file) */
    REQUIRE(open_walk(30.0f, &rig));
    int root = crowd_rig_find_clip(&rig, "Armature|Walk_root");
    REQUIRE(root >= 0);
    printf("  root-motion walk: loops %d, root travel %.4f m\n", rig.clips[root].loop, rig.clips[root].root_travel);
    CHECK(rig.clips[root].loop && rig.clips[root].root_travel > 1.2 && rig.clips[root].root_travel < 1.4);
    const char *root_clips[] = {"walk", "walk_root"};
    desc.clip_names = root_clips;
    out = bake_or_die(&rig, desc);
    REQUIRE(crowd_asset_load_memory(&a, out.bytes, out.size, &err) == CROWD_OK);
    crowd_clip_evidence e;
    CHECK(crowd_asset_clip_evidence(&a, 1, &e));
    printf("  baked: walk stride %.4f m, root-motion walk %s, stride %.4f m, root travel %.4f m\n",
           (double)a.clips[0].stride, crowd_clip_role_name(crowd_clip_role_of(&a.clips[1])), (double)a.clips[1].stride,
           (double)e.root_travel);
    CHECKF(crowd_clip_role_of(&a.clips[1]) == CROWD_ROLE_LOCOMOTION && e.root_travel > 1.2f &&
               fabsf(a.clips[1].stride - e.root_travel) < 1e-3f * e.root_travel &&
               fabsf(a.clips[1].stride - a.clips[0].stride) < 0.03f * a.clips[0].stride,
           "walk stride %.4f m, root-motion walk %.4f m, root travel %.4f m", (double)a.clips[0].stride,
           (double)a.clips[1].stride, (double)e.root_travel);
    crowd_asset_free(&a);
    crowd_bake_output_free(&out);
    crowd_rig_free(&rig);
    /* a quarter of a second missing is not one sample short */
    REQUIRE(open_walk(4.0f, &rig));
    open = crowd_rig_find_clip(&rig, "Armature|Walk_open");
    REQUIRE(open >= 0);
    CHECKF(!rig.clips[open].loop, "a walk 0.25 s short loops (%.4f s)", rig.clips[open].duration);
    crowd_rig_free(&rig);
}

/* Loop rule (d): the walk drifting sideways by 4 % of the height over its cycle, written at 120 keys a
 * second (so the last key step is too small for rule (b) to take the seam as one key missing), is a
 * cycle with a seam: it loops, the seam is recorded, the bake blends it so the baked cycle closes as
 * smoothly as the walk's, and it is a gait with the walk's stride. The roll is still a one-shot. */
static void loop_rule_d(void)
{
    crowd_rig rig;
    REQUIRE(open_walk(120.0f, &rig));
    int walk = crowd_rig_find_clip(&rig, "Armature|Walk"), seam = crowd_rig_find_clip(&rig, "Armature|Walk_seam");
    int roll = crowd_rig_find_clip(&rig, "Armature|Roll");
    REQUIRE(walk >= 0 && seam >= 0 && roll >= 0);
    printf("  seam walk: loops %d, seam %.2f %% of the size, duration %.4f s (walk %.4f s); roll loops %d\n",
           rig.clips[seam].loop, 100.0 * rig.clips[seam].seam, rig.clips[seam].duration, rig.clips[walk].duration,
           rig.clips[roll].loop);
    CHECK(rig.clips[seam].loop && !rig.clips[roll].loop);
    CHECKF(rig.clips[seam].seam > 0.02 && rig.clips[seam].seam < 0.05, "seam %.4f", rig.clips[seam].seam);
    CHECK(fabs(rig.clips[seam].duration - rig.clips[walk].duration) < 1e-5 && rig.clips[walk].seam == 0.0);
    const char *clips[] = {"walk", "walk_seam"};
    crowd_bake_desc desc = {.clip_names = clips, .clip_name_count = 2};
    crowd_bake_output out = bake_or_die(&rig, desc);
    crowd_asset a;
    crowd_error err;
    REQUIRE(crowd_asset_load_memory(&a, out.bytes, out.size, &err) == CROWD_OK);
    crowd_clip_evidence ew, es;
    REQUIRE(crowd_asset_clip_evidence(&a, 0, &ew) && crowd_asset_clip_evidence(&a, 1, &es));
    printf("  baked: walk closes with a step of %.2f %% of the height, seam walk %.2f %%; strides %.4f / %.4f m\n",
           100.0 * ew.loop_error, 100.0 * es.loop_error, (double)a.clips[0].stride, (double)a.clips[1].stride);
    CHECKF(es.loop_error < 1.2f * ew.loop_error + 0.002f, "the seam walk closes with %.4f, the walk %.4f",
           (double)es.loop_error, (double)ew.loop_error);
    CHECKF(crowd_clip_role_of(&a.clips[1]) == CROWD_ROLE_LOCOMOTION &&
               fabsf(a.clips[1].stride - a.clips[0].stride) < 0.02f * a.clips[0].stride,
           "seam walk %s, stride %.4f m against %.4f m", crowd_clip_role_name(crowd_clip_role_of(&a.clips[1])),
           (double)a.clips[1].stride, (double)a.clips[0].stride);
    crowd_asset_free(&a);
    crowd_bake_output_free(&out);
    crowd_rig_free(&rig);
}

/* A real four-legged creature (Fox, a centimetre file) turned to face +X, with root motion added to
 * its walk: with no flag the root-motion walk is a gait whose stride is its travel, the creature is
 * found facing +X (from the root's travel and the other gaits' foot slide) and is 0.75 m tall. */
static void creature_with_root_motion(void)
{
    crowd_rig fox, back;
    crowd_error err;
    REQUIRE(crowd_gltf_read_file(CROWD_ASSET_DIR "/gltf/Fox.glb", NULL, &fox, &err) == CROWD_OK);
    REQUIRE(crowd_dress_rig(&fox, &(crowd_dress){.face = CROWD_AXIS_POS_X, .root_walk = true}, &err) == CROWD_OK);
    uint8_t *glb = NULL;
    size_t size = 0;
    REQUIRE(crowd_gltf_write_glb(&fox, NULL, &glb, &size, &err) == CROWD_OK &&
            crowd_gltf_read_memory(glb, size, "fox-root.glb", NULL, NULL, &back, &err) == CROWD_OK);
    crowd_gltf_bytes_free(glb);
    crowd_bake_output out = bake_or_die(&back, (crowd_bake_desc){0});
    crowd_asset a;
    REQUIRE(crowd_asset_load_memory(&a, out.bytes, out.size, &err) == CROWD_OK);
    const crowd_bake_notes *n = &out.stats.notes;
    uint32_t walk, root;
    REQUIRE(crowd_asset_match_clip(&a, "Walk", &walk) && crowd_asset_match_clip(&a, "walk_root", &root));
    crowd_clip_evidence e;
    REQUIRE(crowd_asset_clip_evidence(&a, root, &e));
    printf("  fox facing +X with a root-motion walk: faced %d (%s), %.3f m tall; walk stride %.4f m, root-motion "
           "walk %s stride %.4f m, root travel %.4f m\n",
           n->forward, n->forward_decision == CROWD_DECIDED_DETECTED ? "detected" : "not detected", (double)n->height,
           (double)a.clips[walk].stride, crowd_clip_role_name(crowd_clip_role_of(&a.clips[root])),
           (double)a.clips[root].stride, (double)e.root_travel);
    CHECK(n->forward == CROWD_AXIS_POS_X && n->forward_decision == CROWD_DECIDED_DETECTED);
    CHECKF(fabsf(n->height - 0.7477f) < 0.01f, "%.4f m", (double)n->height);
    CHECK(crowd_clip_role_of(&a.clips[root]) == CROWD_ROLE_LOCOMOTION && e.root_travel > 0.3f &&
          fabsf(a.clips[root].stride - e.root_travel) < 1e-3f * e.root_travel);
    CHECK(crowd_clip_role_of(&a.clips[walk]) == CROWD_ROLE_LOCOMOTION);
    crowd_asset_free(&a);
    crowd_bake_output_free(&out);
    crowd_rig_free(&back);
    crowd_rig_free(&fox);
}

/* A character that only flies (the dressed humanoid's two flight cycles, one brushing the ground in
 * a sixth of its frames): a flier, lifted by its lowest point, which touches y = 0 and never goes
 * under it. */
static void flier_placed_by_its_lowest_point(void)
{
    size_t size = 0;
    uint8_t *glb = dressed_glb((crowd_dress){0}, &size);
    crowd_rig rig;
    crowd_error err;
    REQUIRE(glb && crowd_gltf_read_memory(glb, size, "flier.glb", NULL, NULL, &rig, &err) == CROWD_OK);
    crowd_gltf_bytes_free(glb);
    const char *clips[] = {"fly", "fly_low"};
    crowd_bake_output out = bake_or_die(&rig, (crowd_bake_desc){.clip_names = clips, .clip_name_count = 2});
    crowd_asset a;
    REQUIRE(crowd_asset_load_memory(&a, out.bytes, out.size, &err) == CROWD_OK);
    float lowest = INFINITY;
    for (uint32_t c = 0; c < a.clip_count; c++) {
        CHECKF(crowd_clip_role_of(&a.clips[c]) == CROWD_ROLE_FLIGHT, "%s is %s", a.clips[c].name,
               crowd_clip_role_name(crowd_clip_role_of(&a.clips[c])));
        for (uint32_t f = 0; f < a.clips[c].frame_count; f++) {
            for (uint32_t v = 0; v < a.vertex_count; v++) {
                float p[3], normal[3];
                crowd_asset_decode_vertex(&a, a.clips[c].first_frame + f, v, p, normal);
                lowest = fminf(lowest, p[1]);
            }
        }
    }
    printf("  flier: hovers %.3f m, lowest point over every frame %+.4f m\n", (double)out.stats.notes.hover,
           (double)lowest);
    CHECKF(fabsf(lowest) < 0.005f && out.stats.notes.hover > 0.0f, "lowest %+.4f m, hover %.3f m", (double)lowest,
           (double)out.stats.notes.hover);
    crowd_asset_free(&a);
    crowd_bake_output_free(&out);
    crowd_rig_free(&rig);
}

/* Notes and warnings a bake sends, gathered for the size checks. */
typedef struct said {
    int count;
    char text[2][512];
} said;

static void gather(void *user, const char *message)
{
    said *w = user;
    if (w->count < 2)
        snprintf(w->text[w->count], sizeof w->text[0], "%s", message);
    w->count++;
    printf("    said: %s\n", message);
}

/* A rig dressed at `scale` (every length), baked with no size given: its height, its notes. */
static void die(const char *what, const char *message)
{
    fprintf(stderr, "%s: %s\n", what, message);
    exit(1);
}

static float bake_unsized(const char *what, const crowd_rig *source, float scale, float given_scale, said *w,
                          crowd_decision *decision)
{
    crowd_rig rig;
    crowd_error err;
    uint8_t *glb = NULL;
    size_t size = 0;
    if (crowd_gltf_write_glb(source, NULL, &glb, &size, &err) != CROWD_OK ||
        crowd_gltf_read_memory(glb, size, what, NULL, NULL, &rig, &err) != CROWD_OK)
        die(what, err.message);
    crowd_gltf_bytes_free(glb);
    if (crowd_dress_rig(&rig, &(crowd_dress){.scale = scale}, &err) != CROWD_OK)
        die(what, err.message);
    memset(w, 0, sizeof *w);
    crowd_bake_desc desc = {.scale = given_scale, .warn = gather, .warn_user = w, .frames = 4};
    crowd_bake_output out = bake_or_die(&rig, desc);
    float height = out.stats.notes.height;
    *decision = out.stats.notes.scale_decision;
    printf("  %s at x%g: %.4f m tall\n", what, (double)scale, (double)height);
    crowd_bake_output_free(&out);
    crowd_rig_free(&rig);
    return height;
}

/* With no size given, the unit is decided from the height and the kind, and said in one line that
 * names the undo: a person in centimetres or millimetres is 1.7 m, a 560-unit knight (no common unit
 * gives a person's height) 1.75 m, a fox of 33 "m" (a centimetre file) 0.33 m; a person in metres is
 * left alone and nothing is said. A given scale that makes a giant is warned with a scale that
 * fits, and that scale gives the height the warning names. */
static void sizes_without_flags(void)
{
    crowd_rig fox;
    crowd_error err;
    REQUIRE(crowd_gltf_read_file(CROWD_ASSET_DIR "/gltf/Fox.glb", NULL, &fox, &err) == CROWD_OK);
    const struct {
        const char *what;
        const crowd_rig *rig;
        float scale, expect;
        const char *says;
    } cases[] = {
        {"person in metres", humanoid(), 1.0f, 0.0f, NULL},
        {"person in centimetres", humanoid(), 100.0f, 0.0f, "read as centimetres"},
        {"person in millimetres", humanoid(), 1000.0f, 0.0f, "read as millimetres"},
        {"560-unit knight", humanoid(), 0.0f, 1.75f, "scaled to a person's height"},
        {"fox in centimetres", &fox, 1.0f, 0.7477f, "read as centimetres"},
        {"33-unit fox", &fox, 0.44f, 0.329f, "read as centimetres"},
    };
    float person = 0.0f;
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        said w;
        crowd_decision decision;
        float scale = cases[k].scale != 0.0f ? cases[k].scale : 560.0f / person;
        float height = bake_unsized(cases[k].what, cases[k].rig, scale, 0.0f, &w, &decision);
        if (k == 0)
            person = height;
        float expect = cases[k].expect != 0.0f ? cases[k].expect : person;
        CHECKF(fabsf(height - expect) < 0.01f * expect, "%s: %.4f m, expected %.4f m", cases[k].what, (double)height,
               (double)expect);
        if (cases[k].says) {
            CHECKF(w.count == 1 && strstr(w.text[0], cases[k].says) && strstr(w.text[0], "scale 1 keeps"),
                   "%s: %d notes: %s", cases[k].what, w.count, w.text[0]);
            CHECK(decision == CROWD_DECIDED_DETECTED);
        } else {
            CHECKF(w.count == 0 && decision == CROWD_DECIDED_DEFAULT, "%s: %d notes", cases[k].what, w.count);
        }
    }
    CHECKF(person > 1.6f && person < 1.9f, "the humanoid is %.3f m", (double)person);
    /* a centimetre person at a given scale of 1 is a giant: the warning's scale gives its height */
    said w;
    crowd_decision decision;
    float giant = bake_unsized("person in cm at scale 1", humanoid(), 100.0f, 1.0f, &w, &decision);
    const char *named = w.count == 1 ? strstr(w.text[0], "crowd_bake_desc.scale ") : NULL;
    named = named ? strstr(named + 1, "crowd_bake_desc.scale ") : NULL;
    float suggested = 0.0f, promised = 0.0f;
    CHECKF(giant > 150.0f && decision == CROWD_DECIDED_GIVEN && named &&
               sscanf(named, "crowd_bake_desc.scale %f makes it %f m", &suggested, &promised) == 2,
           "%.1f m, %d warnings: %s", (double)giant, w.count, w.text[0]);
    float fixed = bake_unsized("person in cm at the suggested scale", humanoid(), 100.0f, suggested, &w, &decision);
    CHECKF(fabsf(fixed - promised) < 0.01f * promised && w.count == 0, "suggested %g: %.4f m, promised %.4f m",
           (double)suggested, (double)fixed, (double)promised);
    crowd_rig_free(&fox);
}

/* A predicted size over the limit is refused before baking. */
static void size_limit_refused(void)
{
    size_t size = 0;
    uint8_t *glb = dressed_glb((crowd_dress){.scale = 100.0f}, &size);
    REQUIRE(glb);
    crowd_rig rig;
    crowd_error err;
    REQUIRE(crowd_gltf_read_memory(glb, size, "cm.glb", NULL, NULL, &rig, &err) == CROWD_OK);
    crowd_gltf_bytes_free(glb);
    const char *clips[] = {"idle", "walk"};
    crowd_bake_desc desc = {.rig = &rig, .clip_names = clips, .clip_name_count = 2, .max_bytes = 1u << 20};
    crowd_bake_output refused;
    CHECK(crowd_bake(&desc, &refused, &err) == CROWD_ERROR_LIMIT);
    /* only what fits is suggested: a lower fps does, compact does not (test_bake checks each) */
    CHECKF(strstr(err.message, "alone fits: crowd_bake_desc.fps") && !strstr(err.message, "compact"), "%s",
           err.message);
    crowd_rig_free(&rig);
}

/* --clip-role overrides; clip names match as written. */
static void overrides(void)
{
    crowd_bake_clip_role roles[] = {{"WALK", CROWD_ROLE_IDLE}, {"Wave", CROWD_ROLE_ACTION}};
    crowd_bake_desc desc = {.clip_roles = roles, .clip_role_count = 2};
    crowd_bake_output out = bake_or_die(humanoid(), desc);
    crowd_asset a;
    crowd_error err;
    REQUIRE(crowd_asset_load_memory(&a, out.bytes, out.size, &err) == CROWD_OK);
    uint32_t walk, wave, idle;
    REQUIRE(crowd_asset_match_clip(&a, "walk", &walk) && crowd_asset_match_clip(&a, "wave", &wave) &&
            crowd_asset_match_clip(&a, "Rig|IDLE", &idle));
    CHECK(crowd_clip_role_of(&a.clips[walk]) == CROWD_ROLE_IDLE && a.clips[walk].stride == 0.0f &&
          !(a.clips[walk].flags & CROWD_CLIP_LOCOMOTION));
    CHECK(crowd_clip_role_of(&a.clips[wave]) == CROWD_ROLE_ACTION);
    crowd_clip_evidence e;
    CHECK(crowd_asset_clip_evidence(&a, walk, &e) && e.overridden && e.travels);
    CHECK(!crowd_asset_match_clip(&a, "stroll", &idle));
    crowd_asset_free(&a);
    crowd_bake_output_free(&out);
    roles[0].clip = "nope";
    desc.rig = humanoid();
    crowd_bake_output bad;
    CHECK(crowd_bake(&desc, &bad, &err) == CROWD_ERROR_ARGUMENT && strstr(err.message, "nope"));
}

/* Bone mode of a morph-animated asset: warned, recorded unavailable, verify never a plain PASS. */
static void morph_bone_mode(void)
{
    crowd_rig rig;
    crowd_error err;
    REQUIRE(crowd_gltf_read_file(CROWD_ASSET_DIR "/gltf/AnimatedMorphCube.glb", NULL, &rig, &err) == CROWD_OK);
    REQUIRE(rig.morph_target_count > 0);
    int warnings = 0;
    crowd_bake_desc desc = {.bones = true, .warn = warned, .warn_user = &warnings};
    crowd_bake_output out = bake_or_die(&rig, desc);
    CHECKF(warnings >= 1 && out.stats.notes.bone_mode == CROWD_BONE_MODE_UNAVAILABLE, "%d warnings, mode %d", warnings,
           out.stats.notes.bone_mode);
    crowd_asset a;
    REQUIRE(crowd_asset_load_memory(&a, out.bytes, out.size, &err) == CROWD_OK);
    crowd_verify_report report;
    REQUIRE(crowd_verify(&a, &rig, &report, &err) == CROWD_OK);
    CHECKF(report.bone_mode == CROWD_BONE_MODE_UNAVAILABLE && report.bone_position_max_mm > 1.0 &&
               !isfinite(report.bone_bound_mm),
           "mode %d, bone error %.3f mm", report.bone_mode, report.bone_position_max_mm);
    printf("  AnimatedMorphCube: bone mode off by %.1f mm, recorded %.1f mm, verify %s\n", report.bone_position_max_mm,
           report.bone_recorded_mm, report.passed ? "VAT passes, bone mode not applicable" : report.failure);
    crowd_verify_report_free(&report);
    crowd_asset_free(&a);
    crowd_bake_output_free(&out);
    crowd_rig_free(&rig);
}

/* ---- the demo's simulation on a user's file ------------------------------------------------------ */

/* The dressed humanoid baked at 1.7 m: Blender names, a two-key pose, a one-shot roll, a flight cycle
 * without contact and a walk one key short, with `roles` forced on top. */
static void bake_dressed(const crowd_bake_clip_role *roles, uint32_t role_count, crowd_bake_output *out, crowd_asset *a)
{
    size_t size = 0;
    uint8_t *glb = dressed_glb((crowd_dress){0}, &size);
    REQUIRE(glb);
    crowd_rig rig;
    crowd_error err;
    REQUIRE(crowd_gltf_read_memory(glb, size, "dressed.glb", NULL, NULL, &rig, &err) == CROWD_OK);
    crowd_gltf_bytes_free(glb);
    crowd_bake_desc desc = {.height = 1.7f, .clip_roles = roles, .clip_role_count = role_count};
    *out = bake_or_die(&rig, desc);
    REQUIRE(crowd_asset_load_memory(a, out->bytes, out->size, &err) == CROWD_OK);
    crowd_rig_free(&rig);
}

static uint32_t matched(const crowd_asset *a, const char *name)
{
    uint32_t c = 0;
    if (!crowd_asset_match_clip(a, name, &c)) {
        fprintf(stderr, "FATAL: no clip matches \"%s\"\n", name);
        exit(1);
    }
    return c;
}

typedef struct sim_tally {
    uint32_t plays[64];    /* agent-steps per clip (clip A or the clip faded to) */
    uint32_t standing[64]; /* agent-steps per clip of agents that did not move */
    uint32_t wrong, wrong_standing, agent_steps;
} sim_tally;

/* Every scenario, 1,000 agents, 12 s each: count what plays, and what plays while standing. */
static void run_scenarios(const crowd_asset *a, sim_tally *t)
{
    memset(t, 0, sizeof *t);
    const uint32_t n = 1000;
    crowd_desc d = {.asset = a, .capacity = n, .world_size = 120.0f};
    crowd *c = NULL;
    crowd_sim *sim = NULL;
    crowd_error err;
    REQUIRE(crowd_create(&d, &c, &err) == CROWD_OK);
    crowd_sim_desc sd = {.target = c, .seed = 11};
    REQUIRE(crowd_sim_create(&sd, &sim, &err) == CROWD_OK);
    REQUIRE(crowd_sim_spawn(sim, n) == CROWD_OK);
    crowd_record *before = malloc(n * sizeof *before);
    REQUIRE(before);
    crowd_view v = {0};
    memset(&v, 0, sizeof v);
    for (int scenario = 0; scenario < CROWD_SCENARIO_COUNT; scenario++) {
        crowd_sim_set_scenario(sim, (crowd_scenario)scenario);
        for (int step = 0; step < 120; step++) {
            for (uint32_t i = 0; i < n; i++)
                crowd_get(c, i, &before[i]);
            crowd_sim_step(sim, 0.1f);
            for (uint32_t i = 0; i < n; i++) {
                crowd_record r;
                crowd_get(c, i, &r);
                uint32_t clips[2] = {crowd_record_clip(&r, 0), crowd_record_clip(&r, 1)};
                for (int k = 0; k < 2; k++) {
                    crowd_clip_role role = crowd_clip_role_of(&a->clips[clips[k]]);
                    t->wrong += role != CROWD_ROLE_LOCOMOTION && role != CROWD_ROLE_IDLE;
                }
                t->plays[clips[1] & 63]++;
                /* standing: no ground velocity (records extrapolate walkers) and not moved by a rewrite */
                float dx = r.position[0] - before[i].position[0], dz = r.position[2] - before[i].position[2], vel[2];
                crowd_record_velocity(&r, vel);
                if (vel[0] == 0.0f && vel[1] == 0.0f &&
                    dx * dx + dz * dz < 1e-10f) { /* standing: its clip (and the one it fades to) stand */
                    t->standing[clips[1] & 63]++;
                    t->wrong_standing += crowd_clip_role_of(&a->clips[clips[1]]) != CROWD_ROLE_IDLE ||
                                         crowd_clip_role_of(&a->clips[clips[0]]) == CROWD_ROLE_ACTION;
                }
                t->agent_steps++;
            }
        }
    }
    free(before);
    crowd_sim_destroy(sim);
    crowd_destroy(c);
}

static void print_tally(const crowd_asset *a, const sim_tally *t)
{
    printf("  %u agent-steps over %d scenarios; played (standing):", t->agent_steps, CROWD_SCENARIO_COUNT);
    for (uint32_t c = 0; c < a->clip_count && c < 64; c++)
        if (t->plays[c])
            printf(" %s[%s] %u (%u)", a->clips[c].name, crowd_clip_role_name(crowd_clip_role_of(&a->clips[c])),
                   t->plays[c], t->standing[c]);
    printf("\n");
}

/* The demo's simulation never plays a pose, an action or a flight as a gait, never stands in an
 * action, and finds "Armature|Idle" for standing; with that idle forced to be an action it stands
 * in another idle-role clip, still never in the action. */
static void sim_plays_only_gaits(void)
{
    crowd_bake_output out;
    crowd_asset a;
    bake_dressed(NULL, 0, &out, &a);
    sim_tally t;
    run_scenarios(&a, &t);
    print_tally(&a, &t);
    uint32_t idle = matched(&a, "Armature|Idle"), walk = matched(&a, "walk");
    uint32_t bad[] = {matched(&a, "pose"), matched(&a, "roll"), matched(&a, "fly"), matched(&a, "fly_low")};
    CHECKF(t.wrong == 0 && t.wrong_standing == 0, "%u agent-steps play a non-gait, %u stand in a non-idle", t.wrong,
           t.wrong_standing);
    for (int k = 0; k < 4; k++)
        CHECKF(t.plays[bad[k]] == 0, "%s played %u times", a.clips[bad[k]].name, t.plays[bad[k]]);
    uint32_t run = matched(&a, "run");
    uint32_t walks = t.plays[walk] + t.plays[matched(&a, "walk_open")] + t.plays[matched(&a, "walk_root")] +
                     t.plays[matched(&a, "walk_seam")]; /* the same stride: the sim picks any of them */
    CHECKF(t.standing[idle] > 1000 && walks > 1000 && t.plays[run] > 1000, "idle stood %u, walks played %u, run %u",
           t.standing[idle], walks, t.plays[run]);
    crowd_asset_free(&a);
    crowd_bake_output_free(&out);

    /* the idle is an action now (as if it were a death): nobody stands in it */
    crowd_bake_clip_role forced[] = {{"idle", CROWD_ROLE_ACTION}, {"walk", CROWD_ROLE_POSE}};
    bake_dressed(forced, 2, &out, &a);
    run_scenarios(&a, &t);
    print_tally(&a, &t);
    idle = matched(&a, "Armature|Idle"), walk = matched(&a, "walk");
    CHECKF(t.wrong == 0 && t.wrong_standing == 0, "%u agent-steps play a non-gait, %u stand in a non-idle", t.wrong,
           t.wrong_standing);
    CHECKF(t.plays[idle] == 0 && t.plays[walk] == 0, "the action idle played %u, the pose walk %u", t.plays[idle],
           t.plays[walk]);
    crowd_asset_free(&a);
    crowd_bake_output_free(&out);
}

int main(void)
{
    RUN_TEST(reference_bake);
    RUN_TEST(looks_can_fail);
    RUN_TEST(faces_minus_z_in_centimetres);
    RUN_TEST(faces_plus_x_in_inches_lifted);
    RUN_TEST(centimetre_mesh_under_metre_bones);
    RUN_TEST(sunk);
    RUN_TEST(z_up);
    RUN_TEST(loop_rule_b);
    RUN_TEST(loop_rule_d);
    RUN_TEST(sizes_without_flags);
    RUN_TEST(creature_with_root_motion);
    RUN_TEST(flier_placed_by_its_lowest_point);
    RUN_TEST(size_limit_refused);
    RUN_TEST(overrides);
    RUN_TEST(sim_plays_only_gaits);
    RUN_TEST(morph_bone_mode);
    crowd_asset_free(&reference_asset);
    crowd_bake_output_free(&reference);
    TEST_MAIN_END();
}
