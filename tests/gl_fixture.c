#include "gl_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_support.h"

bool gl_fixture_open(int argc, char **argv, int width, int height, tool_gl *gl, crowd_bake_output *baked,
                     crowd_asset *asset)
{
    bool desktop = argc > 1 && !strcmp(argv[1], "--desktop");
    crowd_error err;
    if (tool_gl_create(gl, width, height, !desktop, &err) != CROWD_OK) {
        fprintf(stderr, "GL context: %s\n", err.message);
        exit(1);
    }
    printf("     %s on %s\n", desktop ? "OpenGL 3.3 core" : "OpenGL ES 3.0", gl->renderer);
    crowd_bake_desc desc = {.bones = true};
    *baked = bake_or_die(humanoid(), desc);
    if (crowd_asset_load_memory(asset, baked->bytes, baked->size, &err) != CROWD_OK) {
        fprintf(stderr, "humanoid: %s\n", err.message);
        exit(1);
    }
    return desktop;
}

void gl_fixture_close(tool_gl *gl, crowd_bake_output *baked, crowd_asset *asset)
{
    crowd_asset_free(asset);
    crowd_bake_output_free(baked);
    tool_gl_destroy(gl);
}
