/* The demo's render path switch: see gpu_path.h. */
#include "demo/gpu_path.h"

#include <stdio.h>
#include <string.h>

crowd_gl_path demo_path_of(double setting)
{
    return setting > 1.5 ? CROWD_GL_PATH_GPU : setting > 0.5 ? CROWD_GL_PATH_CPU : CROWD_GL_PATH_AUTO;
}

void demo_path_adopt(const crowd_gl_renderer *r, crowd *c)
{
    crowd_set_gpu_driven(c, r && crowd_gl_get_path(r) == CROWD_GL_PATH_GPU);
}

void demo_path_cull(crowd_gl_renderer *r, const crowd *c, const crowd_frame *f, const crowd_view *view,
                    const float light[16])
{
    if (!r || crowd_gl_get_path(r) != CROWD_GL_PATH_GPU)
        return;
    /* every frame: the panel may have changed the crowd's settings (cheap; the skip key compares) */
    crowd_gl_set_lod(r, crowd_settings(c), 0.0f);
    crowd_gl_cull(r, f, view, light);
}

const crowd_gl_gpu_stats *demo_path_late(const crowd_gl_renderer *r)
{
    if (!r || crowd_gl_get_path(r) != CROWD_GL_PATH_GPU)
        return NULL;
    const crowd_gl_gpu_stats *g = crowd_gl_get_gpu_stats(r);
    return g->valid ? g : NULL;
}

uint32_t demo_path_submitted(const crowd_gl_gpu_stats *late)
{
    uint32_t n = 0;
    for (uint32_t l = 0; late && l < CROWD_MAX_LODS; l++)
        n += late->submitted[l];
    return n;
}

int demo_path_status(const crowd_gl_renderer *r, char *out, size_t size)
{
    if (!r || crowd_gl_get_path(r) != CROWD_GL_PATH_GPU)
        return snprintf(out, size, "path cpu\n");
    const crowd_gl_gpu_stats *g = crowd_gl_get_gpu_stats(r);
    return snprintf(out, size, "path gpu: %llu passes run, %llu skipped\n", (unsigned long long)g->passes_run,
                    (unsigned long long)g->passes_skipped);
}

int demo_path_parse(const char *name)
{
    static const char *const names[3] = {"auto", "cpu", "gpu"};
    for (int i = 0; name && i < 3; i++)
        if (!strcmp(name, names[i]))
            return i;
    return -1;
}
