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

/* Tells the crowd who culls and picks its levels (crowd_set_gpu_driven): the renderer's cull pass on
 * the GPU path, the crowd's own update on the CPU path. After crowd_gl_create. */
void demo_path_adopt(const crowd_gl_renderer *renderer, crowd *crowd);

/* GPU path only (nothing on the CPU path): the crowd's LOD settings and the cull pass for this
 * frame's camera and light (NULL: no shadows). Between crowd_gl_upload and the shadow pass. */
void demo_path_cull(crowd_gl_renderer *renderer, const crowd *crowd, const crowd_frame *frame, const crowd_view *view,
                    const float light[16]);

/* The GPU path's own counts (what its pass compacted, read back a few frames late), or NULL on the
 * CPU path and before the first copy has been read. The HUD and the stats report these on that
 * path: the crowd makes no draw list there. */
const crowd_gl_gpu_stats *demo_path_late(const crowd_gl_renderer *renderer);

/* Instances the GPU path's colour pass drew: every level's partition, the cards' included. */
uint32_t demo_path_submitted(const crowd_gl_gpu_stats *late);

/* One HUD line: the resolved path and, on the GPU path, its passes run and skipped. Returns the
 * characters written (snprintf's). */
int demo_path_status(const crowd_gl_renderer *renderer, char *out, size_t size);

#endif
