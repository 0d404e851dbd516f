#include "gl_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gl/gl_api.h"
#include "test_support.h"

static void open_context(bool desktop, const char *label, int width, int height, tool_gl *gl, crowd_bake_output *baked,
                         crowd_asset *asset)
{
    crowd_error err;
    if (tool_gl_create(gl, width, height, !desktop, &err) != CROWD_OK) {
        fprintf(stderr, "GL context: %s\n", err.message);
        exit(1);
    }
    printf("     %s on %s\n", label, gl->renderer);
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

crowd_gl_renderer *gl_fixture_renderer(const crowd_gl_desc *desc, float ground_half)
{
    crowd_gl_renderer *r = NULL;
    crowd_error err;
    if (crowd_gl_create(desc, &r, &err) != CROWD_OK) {
        fprintf(stderr, "crowd_gl_create: %s\n", err.message);
        exit(1);
    }
    static const uint8_t ground[4] = {120, 130, 110, 255};
    crowd_gl_set_ground(r, ground_half, ground);
    return r;
}

void gl_fixture_draw(tool_gl *gl, crowd_gl_renderer *r, const crowd_frame *f, const crowd_gl_scene *scene, uint8_t *out)
{
    glClearColor(0.9f, 0.92f, 0.95f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    crowd_gl_draw(r, f, scene);
    crowd_error e;
    CHECKF(crowd_gl_check("frame", &e) == CROWD_OK, "%s", e.message);
    tool_gl_read_rgb(gl, out);
}

void gl_fixture_close(tool_gl *gl, crowd_bake_output *baked, crowd_asset *asset)
{
    crowd_asset_free(asset);
    crowd_bake_output_free(baked);
    tool_gl_destroy(gl);
}
