#include "gl_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gl/gl_api.h"
#include "test_support.h"

static showcase_stage *fixture_stage; /* one per context: the tests draw one scene at a time */

static void open_context(bool desktop, const char *label, int width, int height, tool_gl *gl, crowd_bake_output *baked,
                         crowd_asset *asset)
{
    crowd_error err;
    if (tool_gl_create(gl, width, height, !desktop, &err) != CROWD_OK) {
        fprintf(stderr, "GL context: %s\n", err.message);
        exit(1);
    }
    printf("     %s on %s\n", label, gl->renderer);
    if (showcase_stage_create(!desktop, &fixture_stage, &err) != CROWD_OK) {
        fprintf(stderr, "the tests' stage: %s\n", err.message);
        exit(1);
    }
    humanoid_asset_or_die((crowd_bake_desc){.bones = true}, baked, asset);
}

bool gl_fixture_open(int argc, char **argv, int width, int height, tool_gl *gl, crowd_bake_output *baked,
                     crowd_asset *asset)
{
    bool desktop = argc > 1 && !strcmp(argv[1], "--desktop");
    open_context(desktop, desktop ? "OpenGL 3.3 core" : "OpenGL ES 3.0", width, height, gl, baked, asset);
    return desktop;
}

void gl_fixture_open_desktop(int width, int height, tool_gl *gl, crowd_bake_output *baked, crowd_asset *asset)
{
    open_context(true, "desktop GL", width, height, gl, baked, asset);
}

crowd_gl_renderer *gl_fixture_renderer(const crowd_gl_desc *desc, float ground_size)
{
    crowd_gl_renderer *r = NULL;
    crowd_error err;
    if (crowd_gl_create(desc, &r, &err) != CROWD_OK) {
        fprintf(stderr, "crowd_gl_create: %s\n", err.message);
        exit(1);
    }
    static const uint8_t ground[4] = {120, 130, 110, 255};
    if (showcase_stage_set_ground(fixture_stage, ground_size, ground, &err) != CROWD_OK) {
        fprintf(stderr, "the tests' ground: %s\n", err.message);
        exit(1);
    }
    return r;
}

showcase_stage *gl_fixture_stage(void)
{
    return fixture_stage;
}

void gl_fixture_draw(tool_gl *gl, crowd_gl_renderer *r, const crowd_frame *f, const crowd_gl_scene *scene, uint8_t *out)
{
    glClearColor(0.9f, 0.92f, 0.95f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    crowd_gl_draw(r, f, scene);
    showcase_stage_draw(fixture_stage, r, scene);
    crowd_gl_draw_far_shadows(r, f, scene);
    crowd_error e;
    CHECKF(crowd_gl_check("frame", &e) == CROWD_OK, "%s", e.message);
    tool_gl_read_rgb(gl, out);
}

void gl_fixture_close(tool_gl *gl, crowd_bake_output *baked, crowd_asset *asset)
{
    showcase_stage_destroy(fixture_stage);
    fixture_stage = NULL;
    crowd_asset_free(asset);
    crowd_bake_output_free(baked);
    tool_gl_destroy(gl);
}
