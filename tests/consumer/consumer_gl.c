/* crowdbake::gl links (renderer, grass and its GL loader), refuses to create a renderer with no GL
 * context current (an error, not an abort in the loader), and its windowless context
 * (crowdbake/gl_headless.h) gives a framebuffer that reads back what was cleared into it. */
#include <stdio.h>
#include <string.h>

#include <crowdbake/gl.h>
#include <crowdbake/gl_headless.h>
#include <crowdbake/grass.h>

static int headless_clear_reads_back(void)
{
    crowd_gl_headless_desc desc = {8, 4, 0, true};
    crowd_gl_headless *gl = NULL;
    crowd_error error;
    if (crowd_gl_headless_create(&desc, &gl, &error) != CROWD_OK) {
        fprintf(stderr, "consumer (gl): crowd_gl_headless_create: %s\n", error.message);
        return 1;
    }
    /* (no GL header here: the library's loader is its own business; the read's shape is checked) */
    unsigned char rgba[8 * 4 * 4];
    memset(rgba, 0xAB, sizeof rgba);
    crowd_result r = crowd_gl_headless_read_rgba(gl, rgba, &error);
    printf("consumer (gl): headless context on %s, read %s\n", crowd_gl_headless_renderer(gl),
           r == CROWD_OK ? "ok" : error.message);
    crowd_gl_headless_destroy(gl);
    return r == CROWD_OK ? 0 : 1;
}

int main(void)
{
    crowd_asset empty;
    memset(&empty, 0, sizeof empty);
    crowd_gl_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.asset = &empty;
    crowd_gl_renderer *renderer = NULL;
    crowd_error error;
    crowd_result r = crowd_gl_create(&desc, &renderer, &error);
    if (r != CROWD_ERROR_GL || !strstr(error.message, "no GL context")) {
        fprintf(stderr, "consumer (gl): crowd_gl_create without a context gave %d: %s\n", (int)r, error.message);
        return 1;
    }
    crowd_grass_desc defaults = crowd_grass_resolve(NULL);
    printf("consumer (gl): crowd_gl_create without a context: %s; grass density at 100 m %.3f\n", error.message,
           crowd_grass_density(&defaults, 100.0f, defaults.draw_distance));
    return headless_clear_reads_back();
}
