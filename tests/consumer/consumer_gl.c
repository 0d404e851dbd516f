/* crowdbake::gl links (renderer and its GL loader) without needing a GL context to run: the
 * functions are only referenced, and a renderer is created only if asked to, which no test does. */
#include <stdio.h>

#include <crowdbake/gl.h>
#include <crowdbake/grass.h>

int main(int argc, char **argv)
{
    crowd_result (*create)(const crowd_gl_desc *, crowd_gl_renderer **, crowd_error *) = crowd_gl_create;
    void (*destroy)(crowd_gl_renderer *) = crowd_gl_destroy;
    crowd_result (*grass)(const crowd_grass_desc *, crowd_grass **, crowd_error *) = crowd_grass_create;
    float (*density)(const crowd_grass_desc *, float, float) = crowd_grass_density;
    (void)argv;
    if (argc > 99) { /* never: referenced, so linked */
        crowd_gl_renderer *renderer = NULL;
        if (create(NULL, &renderer, NULL) == CROWD_OK)
            destroy(renderer);
    }
    crowd_grass_desc defaults = crowd_grass_resolve(NULL);
    printf("consumer (gl): crowd_gl_create at %p, crowd_grass_create at %p, grass density at 100 m %.3f\n",
           (void *)(size_t)create, (void *)(size_t)grass, density(&defaults, 100.0f, defaults.draw_distance));
    return 0;
}
