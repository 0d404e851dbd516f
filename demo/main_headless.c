/* The demo without a display: an EGL surfaceless context, a scripted run through every setting and
 * camera, a screenshot per step and the stats. What `make run` does on a machine without a display,
 * and the native smoke test. Exit status 1 on a GL error or a blank frame. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "demo/app.h"
#include "crowdbake/gl.h"
#include "gl/gl_api.h"
#include "gl_context.h"
#include "tool_support.h"

typedef struct step {
    const char *shot;              /* screenshot name, NULL for none */
    demo_setting setting;
    double value;
} step;

/* Every toggle and every scenario and camera, each held for a moment. */
static const step script[] = {
    {"wander", DEMO_HUD, 1},
    {"walk", DEMO_CAMERA, 1},
    {"tour", DEMO_CAMERA, 2},
    {NULL, DEMO_CAMERA, 0},
    {"stampede", DEMO_SCENARIO, 1},
    {"parade", DEMO_SCENARIO, 2},
    {"mill", DEMO_SCENARIO, 3},
    {"gather", DEMO_SCENARIO, 4},
    {NULL, DEMO_SCENARIO, 0},
    {"bones", DEMO_MODE, 1},
    {NULL, DEMO_MODE, 0},
    {"no_cross_fade", DEMO_CROSS_FADE, 0},
    {NULL, DEMO_CROSS_FADE, 1},
    {"coverage_lod", DEMO_LOD_POLICY, 1},
    {"vertex_budget", DEMO_VERTEX_BUDGET, 300000},
    {NULL, DEMO_VERTEX_BUDGET, 0},
    {NULL, DEMO_LOD_POLICY, 0},
    {"lod_bias", DEMO_LOD_BIAS, 2.5},
    {NULL, DEMO_LOD_BIAS, 1},
    {"no_shadows", DEMO_SHADOWS, 0},
    {NULL, DEMO_SHADOWS, 1},
    {"shadow_max_lod", DEMO_SHADOW_MAX_LOD, 4},
    {"no_far_pool", DEMO_FAR_POOL, 0},
    {NULL, DEMO_FAR_POOL, 1},
    {"no_stride_matching", DEMO_STRIDE_MATCHING, 0},
    {NULL, DEMO_STRIDE_MATCHING, 1},
    {"no_separation", DEMO_SEPARATION, 0},
    {NULL, DEMO_SEPARATION, 1},
    {"fog", DEMO_FOG, 0.004},
    {NULL, DEMO_FOG, 0.0011},
    {"one_chunk", DEMO_CHUNK, 420},
    {NULL, DEMO_CHUNK, 24},
    {"asset", DEMO_ASSET, 1},
    {NULL, DEMO_ASSET, 0},
    {"paused", DEMO_PAUSED, 1},
    {NULL, DEMO_PAUSED, 0},
};

static bool blank(const uint8_t *rgb, int n)
{
    int differing = 0;
    for (int i = 1; i < n; i++)
        differing += memcmp(rgb + 3 * i, rgb, 3) != 0;
    return differing < n / 20;
}

int main(int argc, char **argv)
{
    const char *out_dir = "shots";
    uint32_t count = 20000, frames = 45;
    int width = 1280, height = 720, first_asset = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--out-dir") && i + 1 < argc)
            out_dir = argv[++i];
        else if (!strcmp(argv[i], "--count") && i + 1 < argc && tool_parse_u32(argv[i + 1], 0, 250000, &count))
            i++;
        else if (!strcmp(argv[i], "--frames") && i + 1 < argc && tool_parse_u32(argv[i + 1], 1, 10000, &frames))
            i++;
        else if (!strcmp(argv[i], "--size") && i + 1 < argc && sscanf(argv[i + 1], "%dx%d", &width, &height) == 2 &&
                 width >= 64 && height >= 64 && width <= 4096 && height <= 4096)
            i++;
        else if (argv[i][0] != '-' && !first_asset)
            first_asset = i;
        else if (argv[i][0] == '-') {
            fprintf(stderr, "usage: crowd-demo-headless asset.crowd [more.crowd ...] [--out-dir dir] [--count n] "
                            "[--frames n] [--size WxH]\n");
            return 2;
        }
    }
    if (!first_asset) {
        fprintf(stderr, "crowd-demo-headless: no asset given\n");
        return 2;
    }
    tool_gl gl;
    crowd_error err;
    demo_app *app = NULL;
    if (tool_gl_create(&gl, width, height, false, &err) != CROWD_OK) {
        fprintf(stderr, "crowd-demo-headless: %s\n", err.message);
        return 1;
    }
    demo_desc desc = {.es = false, .capacity = count > 100000 ? count : 100000, .initial_count = count};
    int status = 1;
    uint8_t *pixels = malloc((size_t)width * height * 3);
    if (!pixels || demo_create(&desc, &app, &err) != CROWD_OK)
        goto done;
    for (int i = first_asset; i < argc; i++) {
        if (argv[i][0] == '-') {
            i++;
            continue;
        }
        size_t size = 0;
        uint8_t *bytes = tool_read_file(argv[i], &size, &err);
        const char *name = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
        crowd_result r = bytes ? demo_add_asset(app, bytes, size, name, NULL, &err) : CROWD_ERROR_IO;
        free(bytes);
        if (r != CROWD_OK)
            goto done;
    }
    mkdir(out_dir, 0755);
    printf("crowd-demo-headless: %u instances, %u frames per step, on %s\n", count, frames, gl.renderer);
    status = 0;
    for (size_t s = 0; s < sizeof script / sizeof script[0] && !status; s++) {
        const step *st = &script[s];
        if (st->setting == DEMO_ASSET && st->value >= 1 && argc - first_asset < 2)
            continue; /* one asset: nothing to switch to */
        if (demo_set(app, st->setting, st->value) != CROWD_OK) {
            fprintf(stderr, "crowd-demo-headless: %s = %g refused: %s\n", demo_setting_table()[st->setting].name,
                    st->value, demo_last_error(app));
            status = 1;
            break;
        }
        for (uint32_t f = 0; f < frames; f++)
            demo_frame(app, 1.0 / 30.0, width, height, NULL);
        if (crowd_gl_check(st->shot ? st->shot : "step", &err) != CROWD_OK) {
            fprintf(stderr, "crowd-demo-headless: %s\n", err.message);
            status = 1;
            break;
        }
        if (!st->shot)
            continue;
        tool_gl_read_rgb(&gl, pixels);
        char path[512];
        snprintf(path, sizeof path, "%s/demo_%s.png", out_dir, st->shot);
        if (tool_write_png(path, pixels, width, height, &err) != CROWD_OK || blank(pixels, width * height)) {
            fprintf(stderr, "crowd-demo-headless: %s: %s\n", path, err.message[0] ? err.message : "blank frame");
            status = 1;
            break;
        }
        const crowd_frame *frame = demo_current_frame(app);
        printf("  %-20s %6u submitted %5u draws %7.2f M triangles  cpu %6.1f ms\n", st->shot,
               frame ? frame->stats.submitted : 0, frame ? frame->stats.draws : 0,
               frame ? (double)frame->stats.triangles / 1e6 : 0.0, demo_cpu_ms(app));
    }
    if (!status)
        printf("screenshots in %s/demo_*.png\n", out_dir);
done:
    if (status && err.message[0])
        fprintf(stderr, "crowd-demo-headless: %s\n", err.message);
    demo_destroy(app);
    free(pixels);
    tool_gl_destroy(&gl);
    return status;
}
