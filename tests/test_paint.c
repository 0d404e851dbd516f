/* The paint minigun's GPU effects (showcase/paint.h) on a real (software) GL driver: a burst's
 * splats land in the paint texture where its droplets land (solved at spawn), when they land, and
 * nowhere far from them; the floor shows it; droplets fly and tracers flash from time alone.
 * Small and cheap: a 128^2 paint texture, a 64^2 view, a few frames. `--es`: GLES 3.0. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gl/gl_api.h"
#include "gl_context.h"
#include "showcase/paint.h"

#define VIEW 64
#define WORLD 20.0f
#define RES 128
#define DROPS 48

static tool_gl gl;
static bool es;

/* Looking straight down on the world: x right, z up the image, higher y nearer. */
static void top_view(float m[16])
{
    memset(m, 0, 16 * sizeof m[0]);
    m[0] = 2.0f / WORLD;
    m[9] = 2.0f / WORLD;
    m[6] = -0.01f;
    m[15] = 1.0f;
}

/* Renders the paint over a dark ground at `time`; counts pixels whose channel `k` dominates. */
static uint32_t render_count(showcase_paint *p, float time, int k, uint8_t *rgb)
{
    float vp[16];
    top_view(vp);
    glBindFramebuffer(GL_FRAMEBUFFER, gl.fbo);
    glViewport(0, 0, VIEW, VIEW);
    glClearColor(0.1f, 0.1f, 0.1f, 1.0f);
    glClearDepthf(1.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    const int viewport[2] = {VIEW, VIEW};
    showcase_paint_draw(p, time, vp, (float)VIEW / WORLD, viewport, 1.0f);
    tool_gl_read_rgb(&gl, rgb);
    uint32_t n = 0;
    for (int i = 0; i < VIEW * VIEW; i++) {
        const uint8_t *c = rgb + 3 * i;
        n += c[k] > 100 && c[(k + 1) % 3] < 90 && c[(k + 2) % 3] < 90;
    }
    return n;
}

static void paint_lands_where_droplets_land(void)
{
    crowd_error err = {0};
    showcase_paint_desc bad = {.es = es, .resolution = 8};
    showcase_paint *p = NULL;
    CHECK(showcase_paint_create(&bad, &p, &err) == CROWD_ERROR_ARGUMENT && p == NULL);
    CHECK(strstr(err.message, "resolution") != NULL);
    showcase_paint_desc d = {.es = es,
                             .world_size = WORLD,
                             .resolution = RES,
                             .droplet_capacity = 256,
                             .tracer_capacity = 8,
                             .splat_radius = 0.25f};
    REQUIRE(showcase_paint_create(&d, &p, &err) == CROWD_OK);

    const float at[3] = {2.0f, 1.5f, -3.0f}, t0 = 10.0f;
    const uint8_t red[4] = {230, 20, 20, 255};
    float land[DROPS][3];
    REQUIRE(showcase_paint_burst(p, t0, at, red, DROPS, 4.0f, 5, &land[0][0]) == DROPS);
    CHECK(showcase_paint_get_stats(p)->pending == DROPS);

    /* the landings: on the ground, within reach of the fountain (6 m/s at most, from 1.5 m) */
    float t_max = (6.0f + sqrtf(36.0f + 2.0f * 9.81f * 1.5f)) / 9.81f;
    uint32_t unreachable = 0;
    for (int i = 0; i < DROPS; i++)
        unreachable += land[i][1] != 0.0f || hypotf(land[i][0] - at[0], land[i][2] - at[2]) > 6.0f * t_max;
    CHECK(unreachable == 0);

    /* before any has landed: nothing painted, droplets in the air (red points) */
    static uint8_t texels[RES * RES * 4], rgb[VIEW * VIEW * 3];
    showcase_paint_update(p, t0 + 0.1f);
    CHECK(showcase_paint_get_stats(p)->last_update == 0);
    REQUIRE(showcase_paint_read(p, texels) == CROWD_OK);
    uint32_t painted_early = 0;
    for (int i = 0; i < RES * RES; i++)
        painted_early += texels[4 * i + 3] != 0;
    CHECKF(painted_early == 0, "%u texels painted before any droplet landed", painted_early);
    uint32_t flying = render_count(p, t0 + 0.1f, 0, rgb);
    CHECKF(flying > 0, "no droplet drawn in flight");

    /* a tracer flashes along the diagonal as a beam (3 pixels across at the least: more than twice the
       diagonal's pixels), and is gone after its life */
    const float from[3] = {-8.0f, 1.0f, -8.0f}, to[3] = {8.0f, 1.0f, 8.0f};
    const uint8_t green[4] = {20, 240, 20, 255};
    showcase_paint_tracer(p, t0 + 0.1f, from, to, green);
    uint32_t flash = render_count(p, t0 + 0.11f, 1, rgb), after = render_count(p, t0 + 0.5f, 1, rgb);
    uint32_t diagonal = (uint32_t)(16.0f / WORLD * VIEW); /* the segment's pixels along x */
    CHECKF(flash >= 2 * diagonal && after == 0, "tracer: %u green pixels during its life (a beam: %u+), %u after",
           flash, 2 * diagonal, after);

    /* after every landing: painted at each landing point, and nowhere far from one */
    showcase_paint_update(p, t0 + t_max + 0.01f);
    CHECK(showcase_paint_get_stats(p)->last_update == DROPS && showcase_paint_get_stats(p)->pending == 0);
    REQUIRE(showcase_paint_read(p, texels) == CROWD_OK);
    float texel = WORLD / RES, reach = d.splat_radius * 1.4f + 1.5f * texel;
    uint32_t missing = 0, stray = 0, painted = 0, not_red = 0;
    for (int i = 0; i < DROPS; i++) {
        int x = (int)((land[i][0] + 0.5f * WORLD) / texel), z = (int)((land[i][2] + 0.5f * WORLD) / texel);
        if (x < 0 || z < 0 || x >= RES || z >= RES)
            continue;
        const uint8_t *c = texels + 4 * (z * RES + x);
        missing += c[3] < 128;
        not_red += !(c[0] > 150 && c[1] < 80 && c[2] < 80);
    }
    for (int z = 0; z < RES; z++)
        for (int x = 0; x < RES; x++) {
            if (!texels[4 * (z * RES + x) + 3])
                continue;
            painted++;
            float px = ((float)x + 0.5f) * texel - 0.5f * WORLD, pz = ((float)z + 0.5f) * texel - 0.5f * WORLD;
            float nearest = INFINITY;
            for (int i = 0; i < DROPS; i++)
                nearest = fminf(nearest, hypotf(px - land[i][0], pz - land[i][2]));
            stray += nearest > reach;
        }
    CHECKF(missing == 0 && not_red == 0, "%u landing points unpainted, %u not red", missing, not_red);
    CHECKF(stray == 0, "%u of %u painted texels farther than %.2f m from every landing", stray, painted, (double)reach);
    CHECKF(painted >= DROPS, "only %u texels painted", painted);

    /* the floor shows it: red under the landing points seen from above */
    uint32_t floor = render_count(p, t0 + 5.0f, 0, rgb), under = 0, in_view = 0;
    for (int i = 0; i < DROPS; i++) {
        int x = (int)((land[i][0] / WORLD + 0.5f) * VIEW), y = (int)((0.5f - land[i][2] / WORLD) * VIEW);
        if (x < 1 || y < 1 || x >= VIEW - 1 || y >= VIEW - 1)
            continue;
        in_view++;
        bool red_near = false; /* a blob can be smaller than a pixel: the 3 x 3 around it */
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                int px = x + dx, py = y + dy; /* tool_gl_read_rgb is top-down */
                const uint8_t *c = rgb + 3 * (py * VIEW + px);
                if (px >= 0 && py >= 0 && px < VIEW && py < VIEW)
                    red_near |= c[0] > 120 && c[0] > c[1] + 60 && c[0] > c[2] + 60;
            }
        under += red_near;
    }
    /* 3/4: at 0.31 m a pixel the smallest blobs (0.15 m) blend half with the ground (40 of 48 seen) */
    CHECKF(floor > 0 && in_view >= DROPS / 2 && under >= in_view * 3 / 4,
           "floor: %u red pixels, %u of %u landings in view red from above", floor, under, in_view);
    printf("     %u droplets: %u painted texels, every landing painted, none beyond %.2f m of one; "
           "%u droplet pixels in flight, tracer %u pixels then 0, floor %u red pixels\n",
           (unsigned)DROPS, painted, (double)reach, flying, flash, floor);

    /* clear forgets everything */
    showcase_paint_clear(p);
    REQUIRE(showcase_paint_read(p, texels) == CROWD_OK);
    uint32_t left = 0;
    for (int i = 0; i < RES * RES; i++)
        left += texels[4 * i + 3] != 0;
    CHECK(left == 0);
    showcase_paint_destroy(p);
}

int main(int argc, char **argv)
{
    es = argc > 1 && !strcmp(argv[1], "--es");
    crowd_error err = {0};
    if (tool_gl_create(&gl, VIEW, VIEW, es, &err) != CROWD_OK) {
        fprintf(stderr, "test_paint: %s\n", err.message);
        return 1;
    }
    printf("test_paint (%s on %s)\n", es ? "GLES 3.0" : "GL 3.3", gl.renderer);
    RUN_TEST(paint_lands_where_droplets_land);
    tool_gl_destroy(&gl);
    TEST_MAIN_END();
}
