#include "showcase/scene.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "crowdbake/sim.h"

#define PI_F 3.14159265f

/* A lathe: rings (radius, height) swept around +Y with `sides` segments, closed by the profile's
 * ends. Normals from the profile's slope. Writes up to (rings * (sides + 1)) vertices. */
typedef struct mesh {
    float *positions, *normals;
    uint32_t *indices;
    uint32_t vertex_count, index_count;
} mesh;

static bool lathe(mesh *m, const float (*profile)[2], int rings, int sides)
{
    m->vertex_count = (uint32_t)(rings * (sides + 1));
    m->index_count = (uint32_t)((rings - 1) * sides * 6);
    m->positions = crowd_malloc(sizeof(float) * 3 * m->vertex_count);
    m->normals = crowd_malloc(sizeof(float) * 3 * m->vertex_count);
    m->indices = crowd_malloc(sizeof(uint32_t) * m->index_count);
    if (!m->positions || !m->normals || !m->indices)
        return false;
    for (int r = 0; r < rings; r++) {
        int a = r > 0 ? r - 1 : r, b = r + 1 < rings ? r + 1 : r;
        float dr = profile[b][0] - profile[a][0], dy = profile[b][1] - profile[a][1];
        float nr = dy, ny = -dr, len = sqrtf(nr * nr + ny * ny) + 1e-9f; /* outward normal of the profile */
        for (int k = 0; k <= sides; k++) {
            float t = 2.0f * PI_F * (float)k / (float)sides, c = cosf(t), s = sinf(t);
            uint32_t v = (uint32_t)(r * (sides + 1) + k);
            m->positions[3 * v] = profile[r][0] * c;
            m->positions[3 * v + 1] = profile[r][1];
            m->positions[3 * v + 2] = profile[r][0] * s;
            m->normals[3 * v] = nr / len * c;
            m->normals[3 * v + 1] = ny / len;
            m->normals[3 * v + 2] = nr / len * s;
        }
    }
    uint32_t *idx = m->indices;
    for (int r = 0; r + 1 < rings; r++)
        for (int k = 0; k < sides; k++) {
            uint32_t a = (uint32_t)(r * (sides + 1) + k), b = a + (uint32_t)(sides + 1);
            /* counter-clockwise seen from outside (profile runs bottom to top) */
            *idx++ = a, *idx++ = b, *idx++ = a + 1;
            *idx++ = a + 1, *idx++ = b, *idx++ = b + 1;
        }
    return true;
}

static void free_mesh(mesh *m)
{
    crowd_free(m->positions);
    crowd_free(m->normals);
    crowd_free(m->indices);
    memset(m, 0, sizeof *m);
}

/* A unit pillar: radius 1, height 1, with a flat top. */
static const float pillar_profile[][2] = {{0.0f, 0.0f},  {1.0f, 0.0f},  {1.0f, 0.02f},
                                          {1.0f, 0.96f}, {0.95f, 1.0f}, {0.0f, 1.0f}};
/* A cap: a dome on a brim, sitting on the head socket. */
static const float cap_profile[][2] = {{0.0f, -0.005f}, {0.125f, -0.005f}, {0.125f, 0.01f}, {0.1f, 0.03f},
                                       {0.095f, 0.07f}, {0.07f, 0.11f},    {0.0f, 0.125f}};
/* A balloon on a string, held at the right hand. */
static const float balloon_profile[][2] = {{0.0f, 0.0f},   {0.006f, 0.02f}, {0.006f, 0.62f},
                                           {0.05f, 0.64f}, {0.14f, 0.72f},  {0.17f, 0.84f},
                                           {0.15f, 0.96f}, {0.09f, 1.04f},  {0.0f, 1.07f}};

#define ROWS(a) (int)(sizeof(a) / sizeof((a)[0]))

/* Natively the caps and balloons show to the fourth mesh level (80 m at the default distances), the
 * page to the second: a software rasteriser pays every attachment vertex it runs, and every level
 * (CROWD_MAX_LOD_ALL) cost the benchmark scene's colour pass several times more (docs/performance.md). */
#ifdef __EMSCRIPTEN__
#define SHOWCASE_ATTACHMENT_MAX_LOD 1u
#else
#define SHOWCASE_ATTACHMENT_MAX_LOD 3u
#endif

static crowd_result add_attachment(crowd_gl_renderer *r, const float (*profile)[2], int rings, const char *socket,
                                   const uint8_t color[4], uint32_t bit, crowd_error *error)
{
    mesh m = {0};
    if (!lathe(&m, profile, rings, 14)) {
        free_mesh(&m);
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "scene: out of memory");
    }
    crowd_gl_attachment_desc d = {m.positions,
                                  m.normals,
                                  m.vertex_count,
                                  m.indices,
                                  m.index_count,
                                  socket,
                                  {color[0], color[1], color[2], color[3]},
                                  bit,
                                  SHOWCASE_ATTACHMENT_MAX_LOD,
                                  NULL,
                                  NULL,
                                  0,
                                  0,
                                  false,
                                  0.0f};
    crowd_result result = crowd_gl_add_attachment(r, &d, NULL, error);
    free_mesh(&m);
    return result;
}

crowd_result showcase_scene_stage(showcase_stage *stage, const crowd_obstacle *obstacles, uint32_t obstacle_count,
                                  float world_size, crowd_error *error)
{
    static const uint8_t ground[4] = {112, 124, 96, 255};
    crowd_result result = showcase_stage_set_ground(stage, world_size * 1.5f, ground, error);
    mesh pillar = {0};
    showcase_prop *props = crowd_malloc(sizeof *props * (obstacle_count + 1));
    if (result == CROWD_OK && (!props || !lathe(&pillar, pillar_profile, ROWS(pillar_profile), 20)))
        result = crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "scene: out of memory");
    for (uint32_t i = 0; result == CROWD_OK && i < obstacle_count; i++) {
        const crowd_obstacle *o = &obstacles[i];
        uint8_t shade = (uint8_t)(150 + (i * 37) % 60);
        props[i] = (showcase_prop){
            {o->x, 0.0f, o->z}, 0.0f, {o->radius, 3.0f, o->radius}, {shade, shade, (uint8_t)(shade - 20), 255}};
    }
    const showcase_mesh m = {pillar.positions, pillar.normals, pillar.vertex_count, pillar.indices, pillar.index_count};
    if (result == CROWD_OK)
        result = showcase_stage_set_props(stage, &m, props, obstacle_count, error);
    crowd_free(props);
    free_mesh(&pillar);
    return result;
}

crowd_result showcase_scene_dress(crowd_gl_renderer *r, const crowd_asset *asset, crowd_error *error)
{
    if (!asset->bones.data)
        return CROWD_OK;
    static const uint8_t cap[4] = {200, 40, 40, 255}, balloon[4] = {250, 200, 40, 255};
    crowd_result result = CROWD_OK;
    if (crowd_asset_find_socket(asset, "head", NULL))
        result = add_attachment(r, cap_profile, ROWS(cap_profile), "head", cap, 0, error);
    if (result == CROWD_OK && crowd_asset_find_socket(asset, "hand_r", NULL))
        result = add_attachment(r, balloon_profile, ROWS(balloon_profile), "hand_r", balloon, 1, error);
    return result;
}

void showcase_scene_lighting(crowd_gl_scene *s, float fog_density)
{
    float d[3] = {0.35f, 0.8f, 0.45f}, l = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    const float sun[3] = {2.1f, 1.95f, 1.75f}, sky[3] = {0.36f, 0.42f, 0.52f}, bounce[3] = {0.17f, 0.15f, 0.12f};
    const float fog[3] = {0.62f, 0.70f, 0.82f};
    for (int k = 0; k < 3; k++) {
        s->sun_direction[k] = d[k] / l;
        s->sun_color[k] = sun[k];
        s->sky_color[k] = sky[k];
        s->ground_color[k] = bounce[k];
        s->fog_color[k] = fog[k];
    }
    s->fog_density = fog_density;
}

void showcase_scene_sky(float rgb[3])
{
    const float fog[3] = {0.62f, 0.70f, 0.82f};
    for (int k = 0; k < 3; k++)
        rgb[k] = powf(fog[k], 1.0f / 2.2f);
}
