/* crowdbake::gl links (renderer and its GL loader) without needing a GL context to run: the
 * functions are only referenced, and a renderer is created only if asked to, which no test does. */
#include <stdio.h>

#include <crowdbake/gl.h>

int main(int argc, char **argv)
{
    crowd_result (*create)(const crowd_gl_desc *, crowd_gl_renderer **, crowd_error *) = crowd_gl_create;
    void (*destroy)(crowd_gl_renderer *) = crowd_gl_destroy;
    (void)argv;
    if (argc > 99) { /* never: referenced, so linked */
        crowd_gl_renderer *renderer = NULL;
        if (create(NULL, &renderer, NULL) == CROWD_OK)
            destroy(renderer);
    }
    printf("consumer (gl): crowd_gl_create at %p\n", (void *)(size_t)create);
    return 0;
}
