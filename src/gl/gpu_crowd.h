/* Internal: the crowd renderer's GPU-driven path (gpu_crowd.c) on the layer of gpu_cull.h. The
 * hooks renderer.c and draw.c call; everything else stays in gpu_crowd.c. */
#ifndef CROWD_GL_GPU_CROWD_H
#define CROWD_GL_GPU_CROWD_H

#include "gl/gpu_cull.h"
#include "gl/renderer_internal.h"

/* draw.c: binds a crowd or attachment program with its textures, the asset's uniforms, the camera
 * and (colour pass) the lighting. Declared here, next to its one user outside draw.c. */
/* One attachment's uniforms (socket, size test, look) and its texture, after crowd_gl_begin_program:
 * both paths draw attachments with it (draw.c). */
void crowd_gl_attachment_begin(const crowd_gl_renderer *r, const crowd_program *p, const crowd_gl_attachment *at,
                               bool shadow, const crowd_gl_scene *scene);
void crowd_gl_begin_program(crowd_gl_renderer *r, const crowd_program *p, const crowd_frame *f,
                            const float view_projection[16], bool shadow, const crowd_gl_scene *scene);

/* crowd_gl_create's hook: creates the GPU-driven path where desc.path asks for it and it is
 * available (GPU fails where it is not; AUTO falls back to CPU). */
crowd_result crowd_gpu_crowd_choose(crowd_gl_renderer *r, crowd_error *error);

/* Whether this context can run the GPU path (desktop GL 4.3+, storage buffers in the vertex stage).
 * Asks the driver: creation time only. */
bool crowd_gpu_crowd_available(const crowd_gl_renderer *r);

/* Creates r->gpu (programs, VAO, the layer). */
crowd_result crowd_gpu_crowd_create(crowd_gl_renderer *r, crowd_error *error);
void crowd_gpu_crowd_destroy(crowd_gl_renderer *r);

/* crowd_gl_upload's hook (r->gpu only): the frame's slot owners, for the same ranges as the records. */
void crowd_gpu_crowd_upload(crowd_gl_renderer *r, const crowd_frame *f);

/* Whether the draws come from the cull pass: the GPU path once crowd_gl_cull has been called (before
 * that, a GPU-path renderer draws the crowd's own draw list, so callers that never cull see it). */
bool crowd_gpu_crowd_driven(const crowd_gl_renderer *r);

/* The crowd's body draws of one pass, from the last cull's partitions (attachments stay on the CPU
 * draw list). */
void crowd_gpu_crowd_draw(crowd_gl_renderer *r, const crowd_frame *f, const float view_projection[16], bool shadow,
                          const crowd_gl_scene *scene);

/* The attachments' draws of one pass, from the same partitions (levels <= each one's max_lod). */
void crowd_gpu_attachments_draw(crowd_gl_renderer *r, const crowd_frame *f, const float view_projection[16],
                                bool shadow, const crowd_gl_scene *scene);

/* The far-shadow blobs of the colour pass (blob_shadow.c's hand-over on this path): one indirect draw
 * over the colour partitions past the settings' shadow_max_lod and the cards' partition. */
void crowd_gpu_blob_draw(crowd_gl_renderer *r, const crowd_frame *f, const float view_projection[16],
                         const crowd_gl_scene *scene);

#ifndef __EMSCRIPTEN__
/* For tests: the layer (partition p < levels: colour level p; levels + l: shadow level l). */
const crowd_gpu_layer *crowd_gpu_crowd_layer(const crowd_gl_renderer *r);
#endif

#endif
