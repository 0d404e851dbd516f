/* Internal (the showcase): the scenery the demo, crowd-shot and the benchmarks put the crowd on: a
 * ground plane, props (a static mesh drawn instanced: pillars, obstacles), paint over the ground and
 * a sky. It is lit, shadowed and fogged as the crowd is: it draws with the renderer's lighting and
 * into and from its shadow map (crowd_gl_get_shadow_map). Engines bring their own scenery.
 *
 * Per frame, after the crowd's calls: showcase_stage_render_shadows after crowd_gl_render_shadows
 * (the props cast), showcase_stage_draw after crowd_gl_draw (props and ground: the ground's pixels
 * under people fail the depth test early), then crowd_gl_draw_far_shadows onto the ground, and
 * showcase_stage_draw_sky last of the opaque passes. GL 3.3 core, GLES 3.0 and WebGL2; no query in a
 * frame. GL state afterwards as crowd_gl_draw leaves it. */
#ifndef CROWD_SHOWCASE_STAGE_H
#define CROWD_SHOWCASE_STAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "crowdbake/gl.h"

typedef struct showcase_stage showcase_stage;

/* A mesh: positions and normals (xyz each), triangles. */
typedef struct showcase_mesh {
    const float *positions, *normals;
    uint32_t vertex_count;
    const uint32_t *indices;
    uint32_t index_count;
} showcase_mesh;

/* One placement of the props' mesh. */
typedef struct showcase_prop {
    float position[3];
    float yaw;
    float scale[3];
    uint8_t color[4]; /* sRGB */
} showcase_prop;

/* `es`: GLSL ES 3.00 (GLES 3 / WebGL2) rather than GLSL 3.30. Errors: out of memory, GL (with the
 * driver's log). */
crowd_result showcase_stage_create(bool es, showcase_stage **out, crowd_error *error);
void showcase_stage_destroy(showcase_stage *stage);

/* A square ground plane of `size` metres centred on the origin at y = 0, receiving shadows (size <= 0:
 * none; a size that is not finite or not under 1e6 m is refused). */
crowd_result showcase_stage_set_ground(showcase_stage *stage, float size, const uint8_t color[4], crowd_error *error);

/* Hides the ground plane (kept for when it shows again) while something else is the ground: the
 * demo's grass field. No GL call. */
void showcase_stage_show_ground(showcase_stage *stage, bool show);

/* The props: `mesh` at each of `count` placements; replaces any before. The mesh is copied. */
crowd_result showcase_stage_set_props(showcase_stage *stage, const showcase_mesh *mesh, const showcase_prop *props,
                                      uint32_t count, crowd_error *error);

/* Paint over the ground (the minigun's floor texture, showcase_paint_texture): an RGBA8 texture,
 * premultiplied alpha, display-encoded colour, covering [-world_size / 2, world_size / 2] in x and z
 * (row z = -size / 2 first), laid over the ground's albedo before lighting, so paint is shaded,
 * shadowed and fogged as the ground is. Borrowed; texture 0 or a world_size that is not a positive
 * finite number turns it off. No GL call. */
void showcase_stage_set_ground_paint(showcase_stage *stage, uint32_t texture, float world_size);

/* The props into `renderer`'s shadow map, after its crowd_gl_render_shadows (the same light). Binds
 * the renderer's target framebuffer and viewport again. */
void showcase_stage_render_shadows(showcase_stage *stage, const crowd_gl_renderer *renderer);

/* Props and ground into the bound framebuffer, with `renderer`'s light and shadow map. */
void showcase_stage_draw(showcase_stage *stage, const crowd_gl_renderer *renderer, const crowd_gl_scene *scene);

/* The sky into the bound framebuffer: one full-screen triangle at the far plane, depth-tested (LEQUAL)
 * but not written, so call it after the passes, where it shades only the pixels nothing covered.
 * Called next after a showcase_stage_draw with the same scene view and projection (a perspective), it
 * covers only the rows above the lowest one in which a pixel could see past the ground (its nearest
 * edge or the far plane), and nothing when the ground fills the view: rows a software rasteriser
 * would otherwise test pixel by pixel. So do not clear the depth between the two calls. The fog's
 * colour at and below the horizon, where the fogged ground meets it without an edge, rising to a
 * zenith blue from scene->sky_color; the sun's disc and glow at scene->sun_direction; through
 * scene->output like every pass. Leaves DEPTH_TEST enabled, depth func LESS, depth writes on,
 * program 0. */
void showcase_stage_draw_sky(showcase_stage *stage, const crowd_gl_scene *scene);

/* Another pass drew the ground this frame (the grass field's, which follows the camera), covering at
 * least `reach` metres horizontally around the eye with depth written, with this scene's view and
 * projection: the next showcase_stage_draw_sky leaves out the rows it surely covers, as after the
 * stage's own ground. Without this the sky tests every pixel of the view, which a software
 * rasteriser pays for as if it shaded them. No GL call. */
void showcase_stage_ground_drawn(showcase_stage *stage, float reach, const crowd_gl_scene *scene);

#endif
