/* The demo's render path switch: see gpu_path.h. */
#include "demo/gpu_path.h"

#include <stdio.h>
#include <string.h>

crowd_gl_path demo_path_of(double setting)
{
    return setting > 1.5 ? CROWD_GL_PATH_GPU : setting > 0.5 ? CROWD_GL_PATH_CPU : CROWD_GL_PATH_AUTO;
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

int demo_path_status(const crowd_gl_renderer *r, char *out, size_t size)
{
    if (!r || crowd_gl_get_path(r) != CROWD_GL_PATH_GPU)
        return snprintf(out, size, "path cpu\n");
    const crowd_gl_gpu_stats *g = crowd_gl_get_gpu_stats(r);
    if (!g->valid)
        return snprintf(out, size, "path gpu: no stats read back yet\n");
    return snprintf(out, size,
                    "path gpu, %u frames late: LOD %u %u %u %u %u, %u casters, %.2f+%.2f M tri, %llu skips\n",
                    g->frames_late, g->submitted[0], g->submitted[1], g->submitted[2], g->submitted[3], g->submitted[4],
                    g->shadow_casters, (double)g->triangles / 1e6, (double)g->shadow_triangles / 1e6,
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
