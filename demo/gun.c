/* Gun mode (demo/gun.h): rounds, kills and paint, all through the public API. */
#include "demo/gun.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "crowdbake/hits.h"
#include "gl/gl_api.h"
#include "showcase/paint.h"

#define ROUNDS_PER_SECOND 20.0
#define RANGE 400.0f
#define HUE_STEP (1.0f / 14.0f) /* each round's hue a step on round the wheel: a burst is a rainbow */
#define DROPLETS_PER_HIT 72u    /* the fountain where a round strikes someone */
#define POOL_PER_HIT 10u        /* and the slow drops that pool round the feet */
#define DROPLETS_PER_MISS 10u
#define MAX_IMPACTS 32u /* floor impacts kept between two demo_gun_take_impacts calls */
/* The effects' sizes, for a visitor to see from where they stand: a beam 6 cm across where it
   leaves the muzzle, drops of 9 cm in flight, splats of about 30 cm that stay on the floor */
#define BEAM_WIDTH 0.06f
#define DROPLET_SIZE 0.09f
#define SPLAT_RADIUS 0.3f
#define TRACER_LIFE 0.12f
/* Where the gun puts a visitor who switches it on from above (demo_gun_vantage) */
#define EYE_HEIGHT 1.7f
#define STANDING_MAX 4.0f  /* an eye no higher than this is standing already: it stays */
#define VANTAGE_BACK 12.0f /* metres short of the nearest character, facing them */
/* Looking at them just under the shoulders: the round passes chests and hips of the people behind
   and meets the floor only some 100 m on */
#define AIM_HEIGHT 1.5f

struct demo_gun {
    showcase_paint *paint;
    crowd_hits *hits;
    const crowd *hits_crowd; /* the crowd `hits` was made for */
    bool hits_fresh;         /* updated since the crowd's last crowd_update */
    double clock;            /* the effects' time: seconds since creation */
    double reload;           /* seconds until the next round */
    uint32_t rounds, kills;
    float impacts[2 * MAX_IMPACTS]; /* x, z of the rounds that struck the floor, for the grass's cut */
    uint32_t impact_count;
    char status[128], summary[96];
};

crowd_result demo_gun_create(bool es, float world, demo_gun **out, crowd_error *error)
{
    demo_gun *g = calloc(1, sizeof *g);
    if (!g)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "gun: out of memory");
    showcase_paint_desc d = {.es = es,
                             .world_size = world,
                             .splat_radius = SPLAT_RADIUS,
                             .droplet_size = DROPLET_SIZE,
                             .beam_width = BEAM_WIDTH,
                             .tracer_life = TRACER_LIFE};
    crowd_result r = showcase_paint_create(&d, &g->paint, error);
    if (r != CROWD_OK) {
        free(g);
        return r;
    }
    *out = g;
    return CROWD_OK;
}

void demo_gun_destroy(demo_gun *g)
{
    if (!g)
        return;
    crowd_hits_destroy(g->hits);
    showcase_paint_destroy(g->paint);
    free(g);
}

void demo_gun_forget_crowd(demo_gun *g)
{
    if (!g)
        return;
    crowd_hits_destroy(g->hits);
    g->hits = NULL;
    g->hits_crowd = NULL;
    g->hits_fresh = false;
}

/* Every round its own rainbow hue, a step on from the last round's, at full saturation. */
static void round_colour(uint32_t round, uint8_t rgba[4])
{
    float h = fmodf((float)round * HUE_STEP, 1.0f) * 6.0f, f = h - floorf(h);
    float rgb[6][3] = {{1, f, 0}, {1 - f, 1, 0}, {0, 1, f}, {0, 1 - f, 1}, {f, 0, 1}, {1, 0, 1 - f}};
    const float *c = rgb[(int)h % 6];
    for (int k = 0; k < 3; k++)
        rgba[k] = (uint8_t)(255.0f * c[k]);
    rgba[3] = 240;
}

/* Where a round leaves: a hand's breadth right of and below the eye, half a metre ahead, so that
 * its beam is seen crossing the view to the crosshair. */
static void muzzle_of(const float eye[3], const float forward[3], float muzzle[3])
{
    float right[3] = {-forward[2], 0.0f, forward[0]}, r = sqrtf(right[0] * right[0] + right[2] * right[2]);
    for (int k = 0; k < 3; k++)
        muzzle[k] = eye[k] + 0.5f * forward[k] + (r > 1e-6f ? 0.18f * right[k] / r : 0.0f) - (k == 1 ? 0.16f : 0.0f);
}

/* The floor a round struck: a small splash and its place for the grass's cut. */
static void strike_floor(demo_gun *g, float t, float end[3], const uint8_t rgba[4])
{
    if (g->impact_count < MAX_IMPACTS) {
        g->impacts[2 * g->impact_count] = end[0];
        g->impacts[2 * g->impact_count + 1] = end[2];
        g->impact_count++;
    }
    end[1] = 0.05f;
    showcase_paint_burst(g->paint, t, end, rgba, DROPLETS_PER_MISS, 2.0f, g->rounds, NULL);
}

static void fire_round(demo_gun *g, crowd *cr, float t, const float eye[3], const float forward[3])
{
    uint8_t rgba[4];
    round_colour(g->rounds++, rgba);
    float end[3], muzzle[3];
    muzzle_of(eye, forward, muzzle);
    crowd_ray_hit hit;
    bool hit_one = g->hits && g->hits_fresh && crowd_raycast(g->hits, eye, forward, RANGE, &hit);
    float reach = hit_one ? hit.distance : RANGE;
    bool ground = false;
    if (!hit_one && forward[1] < -1e-4f && -eye[1] / forward[1] < RANGE) { /* the floor, y = 0 */
        reach = -eye[1] / forward[1];
        ground = true;
    }
    for (int k = 0; k < 3; k++)
        end[k] = eye[k] + forward[k] * reach;
    showcase_paint_tracer(g->paint, t, muzzle, end, rgba);
    if (hit_one && crowd_remove(cr, hit.index) == CROWD_OK && crowd_hits_remove(g->hits, hit.index) == CROWD_OK) {
        g->kills++;
        showcase_paint_burst(g->paint, t, hit.point, rgba, DROPLETS_PER_HIT, 5.0f, g->rounds, NULL);
        showcase_paint_burst(g->paint, t, hit.point, rgba, POOL_PER_HIT, 1.2f, g->rounds + 7919u, NULL);
    } else if (ground) {
        strike_floor(g, t, end, rgba);
    }
}

void demo_gun_fire(demo_gun *g, crowd *cr, double seconds, bool firing, const float eye[3], const float forward[3])
{
    if (!g)
        return;
    if (cr != g->hits_crowd) {
        demo_gun_forget_crowd(g);
        if (cr && crowd_hits_create(cr, &g->hits, NULL) == CROWD_OK)
            g->hits_crowd = cr;
    }
    g->clock += seconds > 0.0 && seconds < 1.0 ? seconds : 0.0;
    float t = (float)g->clock;
    g->reload -= seconds;
    if (!firing && g->reload < 0.0)
        g->reload = 0.0; /* the first round goes the moment the button goes down */
    while (firing && cr && g->reload <= 0.0) {
        fire_round(g, cr, t, eye, forward);
        g->reload += 1.0 / ROUNDS_PER_SECOND;
    }
    showcase_paint_update(g->paint, t);
}

void demo_gun_after_update(demo_gun *g, const crowd *cr, bool active)
{
    if (!g)
        return;
    g->hits_fresh = false;
    if (!active || !g->hits || cr != g->hits_crowd)
        return;
    crowd_hits_update(g->hits);
    g->hits_fresh = true;
}

void demo_gun_draw(demo_gun *g, const float view[16], const float projection[16], int width, int height, bool crosshair)
{
    if (!g)
        return;
    float vp[16];
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++) {
            float s = 0.0f;
            for (int k = 0; k < 4; k++)
                s += projection[k * 4 + r] * view[c * 4 + k];
            vp[c * 4 + r] = s;
        }
    const int viewport[2] = {width, height};
    showcase_paint_draw_flight(g->paint, (float)g->clock, vp, projection[5] * 0.5f * (float)height, viewport);
    if (!crosshair)
        return;
    int cx = width / 2, cy = height / 2;
    glEnable(GL_SCISSOR_TEST);
    glClearColor(1.0f, 1.0f, 1.0f, 1.0f);
    glScissor(cx - 9, cy - 1, 19, 2);
    glClear(GL_COLOR_BUFFER_BIT);
    glScissor(cx - 1, cy - 9, 2, 19);
    glClear(GL_COLOR_BUFFER_BIT);
    glDisable(GL_SCISSOR_TEST);
}

void demo_gun_respawn(const demo_gun *g, crowd *cr, uint32_t count)
{
    if (!g || !cr)
        return;
    crowd_set_count(cr, count); /* the revived join the hit index at the next update */
}

const char *demo_gun_status(demo_gun *g)
{
    if (!g)
        return "";
    const showcase_paint_stats *s = showcase_paint_get_stats(g->paint);
    snprintf(g->status, sizeof g->status, "gun: %u rounds, %u kills, %llu splats (%u in flight)  [R respawn, G exit]\n",
             g->rounds, g->kills, (unsigned long long)s->splats, s->pending);
    return g->status;
}

/* The point the view is centred on, on the ground: where the view's ray meets it, or 30 m ahead. */
static void view_focus(const float eye[3], const float target[3], float focus[2])
{
    float f[3] = {target[0] - eye[0], target[1] - eye[1], target[2] - eye[2]};
    float length = sqrtf(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]) + 1e-6f, flat = sqrtf(f[0] * f[0] + f[2] * f[2]);
    float reach = f[1] < -0.05f * length ? -eye[1] / f[1] * length : 30.0f * length / (flat + 1e-6f);
    reach = reach < 200.0f ? reach : 200.0f;
    focus[0] = eye[0] + f[0] / length * reach;
    focus[1] = eye[2] + f[2] / length * reach;
}

/* The live character nearest `focus`, its position; false when there is none. */
static bool nearest_character(const crowd *cr, const float focus[2], float at[3])
{
    float best = INFINITY, time = crowd_time(cr);
    uint32_t n = crowd_count(cr);
    for (uint32_t i = 0; i < n; i++) {
        crowd_record r;
        float p[3];
        if (crowd_get(cr, i, &r) != CROWD_OK)
            continue;
        crowd_record_position(&r, time, p);
        float d = (p[0] - focus[0]) * (p[0] - focus[0]) + (p[2] - focus[1]) * (p[2] - focus[1]);
        if (d < best)
            best = d, memcpy(at, p, sizeof p);
    }
    return best < INFINITY;
}

static bool inside_obstacle(const crowd_obstacle *obstacles, uint32_t count, float x, float z)
{
    for (uint32_t i = 0; i < count; i++) {
        float dx = x - obstacles[i].x, dz = z - obstacles[i].z, r = obstacles[i].radius + 0.6f;
        if (dx * dx + dz * dz < r * r)
            return true;
    }
    return false;
}

bool demo_gun_vantage(const crowd *cr, const crowd_obstacle *obstacles, uint32_t obstacle_count, const float eye[3],
                      const float target[3], float out_eye[3], float out_target[3])
{
    float focus[2], person[3];
    if (!cr || eye[1] <= STANDING_MAX)
        return false;
    view_focus(eye, target, focus);
    if (!nearest_character(cr, focus, person))
        return false;
    /* back towards where the view came from, turning round the person until clear of the pillars */
    float back = atan2f(eye[0] - person[0], eye[2] - person[2]);
    for (int k = 0; k < 12; k++) {
        float a = back + (k % 2 ? 1.0f : -1.0f) * (float)((k + 1) / 2) * 0.5236f; /* 30 degree steps */
        out_eye[0] = person[0] + VANTAGE_BACK * sinf(a);
        out_eye[2] = person[2] + VANTAGE_BACK * cosf(a);
        if (!inside_obstacle(obstacles, obstacle_count, out_eye[0], out_eye[2]))
            break;
    }
    out_eye[1] = EYE_HEIGHT;
    out_target[0] = person[0], out_target[1] = AIM_HEIGHT, out_target[2] = person[2];
    return true;
}

const char *demo_gun_summary(demo_gun *g)
{
    if (!g)
        return "";
    if (!g->rounds)
        return "paint minigun ready: hold the left button to fire at the crosshair\n";
    snprintf(g->summary, sizeof g->summary, "paint minigun: %u rounds fired, %u hit someone (%.0f %%)\n", g->rounds,
             g->kills, 100.0 * g->kills / g->rounds);
    return g->summary;
}

uint32_t demo_gun_take_impacts(demo_gun *g, float *xz, uint32_t max)
{
    if (!g)
        return 0;
    uint32_t n = g->impact_count < max ? g->impact_count : max;
    memcpy(xz, g->impacts, sizeof(float) * 2 * n);
    g->impact_count = 0;
    return n;
}

uint32_t demo_gun_paint_texture(const demo_gun *g)
{
    return g ? showcase_paint_texture(g->paint) : 0;
}
