/* The demo's render path switch (setting "path": auto | cpu | gpu) and its per-frame hooks: the GPU
 * path's cull call and its HUD line. */
#ifndef DEMO_GPU_PATH_H
#define DEMO_GPU_PATH_H

#include <stddef.h>
#include "crowdbake/gl.h"

/* The renderer's path for the setting's value (0 auto, 1 cpu, 2 gpu). */
crowd_gl_path demo_path_of(double setting);

/* "auto" / "cpu" / "gpu" (the --path flag) -> the setting's value 0 / 1 / 2; -1 for anything else. */
int demo_path_parse(const char *name);

/* GPU path only (nothing on the CPU path): the crowd's LOD settings and the cull pass for this
 * frame's camera and light (NULL: no shadows). Between crowd_gl_upload and the shadow pass. */
void demo_path_cull(crowd_gl_renderer *renderer, const crowd *crowd, const crowd_frame *frame, const crowd_view *view,
                    const float light[16]);

/* One HUD line: the resolved path and, on the GPU path, its stats, which are read back a few
 * frames late and labelled so. Returns the characters written (snprintf's). */
int demo_path_status(const crowd_gl_renderer *renderer, char *out, size_t size);

#endif
