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
#define DROPLETS_PER_HIT 28u
#define DROPLETS_PER_MISS 6u
#define MAX_IMPACTS 32u /* floor impacts kept between two demo_gun_take_impacts calls */

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
    showcase_paint_desc d = {.es = es, .world_size = world};
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

/* Every round its own rainbow hue (golden-ratio steps round the wheel). */
static void round_colour(uint32_t round, uint8_t rgba[4])
{
    float h = fmodf((float)round * 0.618034f, 1.0f) * 6.0f, f = h - floorf(h);
    float rgb[6][3] = {{1, f, 0}, {1 - f, 1, 0}, {0, 1, f}, {0, 1 - f, 1}, {f, 0, 1}, {1, 0, 1 - f}};
    const float *c = rgb[(int)h % 6];
    for (int k = 0; k < 3; k++)
        rgba[k] = (uint8_t)(40.0f + 215.0f * c[k]);
    rgba[3] = 235;
}

static void fire_round(demo_gun *g, crowd *cr, float t, const float eye[3], const float forward[3])
{
    uint8_t rgba[4];
    round_colour(g->rounds++, rgba);
    float end[3], muzzle[3] = {eye[0], eye[1] - 0.25f, eye[2]}; /* just below the eye, so it is seen */
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
        showcase_paint_burst(g->paint, t, hit.point, rgba, DROPLETS_PER_HIT, 4.5f, g->rounds, NULL);
    } else if (ground) {
        if (g->impact_count < MAX_IMPACTS) {
            g->impacts[2 * g->impact_count] = end[0];
            g->impacts[2 * g->impact_count + 1] = end[2];
            g->impact_count++;
        }
        end[1] = 0.05f;
        showcase_paint_burst(g->paint, t, end, rgba, DROPLETS_PER_MISS, 2.0f, g->rounds, NULL);
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
    showcase_paint_draw_flight(g->paint, (float)g->clock, vp, projection[5] * 0.5f * (float)height);
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
