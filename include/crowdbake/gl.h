/* crowdbake/gl.h — drawing a crowd_frame with OpenGL 3.3+ core, OpenGL ES 3.0 or WebGL2.
 *
 * The renderer owns the GPU copies of one asset (animation textures, bone texture, LOD index
 * buffers, palette) and of one crowd's record array, and draws the draws of a crowd_frame: the
 * colour pass (lit, shadowed, fogged, in the asset's regions' colours or textures) and the shadow
 * depth pass, both with exactly the same vertex animation. Shaders are GLSL ES 3.00 (desktop GL gets
 * the same source with a #version 330 header), so WebGL2 and desktop draw the same pixels.
 *
 * Every function expects the caller's GL context to be current. Nothing here creates windows or
 * contexts. GL errors and shader compile/link failures come back as CROWD_ERROR_GL with the
 * driver's log in the message.
 *
 * Two animation modes on the same asset, switchable at any time: VAT (4 texel fetches per vertex,
 * 8 while cross-fading) and bone (the bone texture and 4 influences per vertex; needs a --bones
 * bake). Attachments (caps, balloons, swords) ride on sockets and need the bone texture. */
#ifndef CROWDBAKE_GL_H
#define CROWDBAKE_GL_H

#include <stdbool.h>
#include "crowd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where culling and level of detail happen. CPU: the crowd's draw list is drawn as it is (every
 * platform; the reference). GPU: a compute pass per frame culls and picks levels per instance and
 * feeds indirect draws (desktop GL 4.3+ with vertex-stage storage buffers; see crowd_gl_cull).
 * AUTO: GPU where that exists, else CPU. DEFAULT is CPU for now: the GPU path needs crowd_gl_cull
 * and crowd_gl_set_lod calls each frame that existing callers do not make yet. */
typedef enum crowd_gl_path {
    CROWD_GL_PATH_DEFAULT = 0,
    CROWD_GL_PATH_CPU = 1,
    CROWD_GL_PATH_GPU = 2,          /* crowd_gl_create fails where it is not available */
    CROWD_GL_PATH_AUTO = 3,
} crowd_gl_path;

typedef enum crowd_gl_mode {
    CROWD_GL_VAT = 0,
    CROWD_GL_BONES = 1,
} crowd_gl_mode;

typedef struct crowd_gl_desc {
    const crowd_asset *asset;       /* required; borrowed for the renderer's lifetime */
    uint32_t capacity;              /* records the GPU buffer holds; 0 = 10,000. For a crowd, use
                                       crowd_record_capacity(crowd) (more than its capacity) */
    crowd_gl_mode mode;
    crowd_gl_path path;             /* see crowd_gl_path; ES contexts always get CPU (AUTO) or fail (GPU) */
    uint32_t shadow_map_size;       /* texels per side; 0 = 2048 */
    /* Region whose colour is the record's tint instead of a palette choice; -1 washes every region
     * with 40 % of the tint (a multiply, so textures stay readable), 0 = default: the region named
     * "shirt" if there is one, else -1. */
    int tint_region;
    bool es;                        /* the context is OpenGL ES 3.0 / WebGL2 (else desktop 3.3+) */
} crowd_gl_desc;

/* Light and atmosphere for a frame. Directions are unit vectors in world space. */
typedef struct crowd_gl_scene {
    float view[16], projection[16]; /* the camera, column-major */
    float sun_direction[3];         /* towards the sun */
    float sun_color[3];             /* linear */
    float sky_color[3], ground_color[3]; /* hemisphere ambient, linear */
    float fog_color[3];
    float fog_density;              /* exp2 fog: factor exp(-(density * distance)^2); 0 = none */
    bool shadows;                   /* sample the shadow map (crowd_gl_render_shadows ran this frame) */
    bool flat_color;                /* every character white: geometry and light only (comparisons) */
} crowd_gl_scene;

typedef struct crowd_gl_attachment_desc {
    const float *positions;         /* xyz, in the socket's space (metres) */
    const float *normals;           /* xyz */
    uint32_t vertex_count;
    const uint32_t *indices;
    uint32_t index_count;
    const char *socket;             /* a socket name of the asset ("head") */
    uint8_t color[4];               /* sRGB */
    uint32_t accessory_bit;         /* worn by instances whose variant has this accessory bit (0..7) */
    uint32_t max_lod;               /* chunks past this LOD do not draw it */
} crowd_gl_attachment_desc;

/* A static mesh drawn instanced with the crowd's lighting, shadows and fog (props, obstacles). */
typedef struct crowd_gl_prop {
    float position[3];
    float yaw;
    float scale[3];
    uint8_t color[4];               /* sRGB */
} crowd_gl_prop;

typedef struct crowd_gl_stats {
    uint32_t draws, shadow_draws;   /* GL draw calls issued in the last colour / shadow pass */
    uint64_t triangles, shadow_triangles;
    uint64_t bytes_uploaded;        /* by the last crowd_gl_upload */
} crowd_gl_stats;

typedef struct crowd_gl_renderer crowd_gl_renderer;

CROWD_API crowd_result crowd_gl_create(const crowd_gl_desc *desc, crowd_gl_renderer **out, crowd_error *error);
CROWD_API void crowd_gl_destroy(crowd_gl_renderer *renderer);

/* Switches between VAT and bone playback; bone mode needs a --bones bake. */
CROWD_API crowd_result crowd_gl_set_mode(crowd_gl_renderer *renderer, crowd_gl_mode mode);
CROWD_API crowd_gl_mode crowd_gl_get_mode(const crowd_gl_renderer *renderer);

/* Turns the two-clip path off (every draw uses clip A alone, fades snap) or back on. On by default;
 * which draws may use it is the crowd's cross_fade_max_lod. */
CROWD_API void crowd_gl_set_cross_fade(crowd_gl_renderer *renderer, bool on);

/* Copies the frame's changed record ranges to the GPU (nothing when the crowd did not change).
 * The first upload after creation sends everything. */
CROWD_API crowd_result crowd_gl_upload(crowd_gl_renderer *renderer, const crowd_frame *frame, crowd_error *error);

/* Adds an attachment mesh; returns its index. */
CROWD_API crowd_result crowd_gl_add_attachment(crowd_gl_renderer *renderer, const crowd_gl_attachment_desc *desc,
                                     uint32_t *index, crowd_error *error);

/* Props: a mesh (positions, normals, indices) drawn at each of `count` placements; replaces any
 * previous props. The ground plane is a prop too (a flat box). */
CROWD_API crowd_result crowd_gl_set_props(crowd_gl_renderer *renderer, const float *positions, const float *normals,
                                uint32_t vertex_count, const uint32_t *indices, uint32_t index_count,
                                const crowd_gl_prop *props, uint32_t count, crowd_error *error);

/* A square ground plane of `size` metres centred on the origin, receiving shadows. */
CROWD_API void crowd_gl_set_ground(crowd_gl_renderer *renderer, float size, const uint8_t color[4]);

/* Fits a light's view-projection around a sphere (centre, radius) seen from `sun_direction`,
 * snapped to shadow-map texels so a moving camera does not make shadow edges shimmer. */
CROWD_API void crowd_gl_fit_shadow(const crowd_gl_renderer *renderer, const float sun_direction[3], const float centre[3],
                         float radius, float light_view_projection[16]);

/* Renders the shadow map: every draw flagged CROWD_DRAW_SHADOW (and props) from the light. Leaves the
 * framebuffer binding and viewport as they were. */
CROWD_API void crowd_gl_render_shadows(crowd_gl_renderer *renderer, const crowd_frame *frame,
                             const float light_view_projection[16]);

/* Draws ground, props, the crowd and its attachments into the current framebuffer (depth test on).
 * `time` is frame->time. */
CROWD_API void crowd_gl_draw(crowd_gl_renderer *renderer, const crowd_frame *frame, const crowd_gl_scene *scene);

CROWD_API const crowd_gl_stats *crowd_gl_get_stats(const crowd_gl_renderer *renderer);


/* Reports a pending GL error as CROWD_ERROR_GL naming `where`. */
CROWD_API crowd_result crowd_gl_check(const char *where, crowd_error *error);

/* ---- GPU-driven path (crowd_gl_desc.path) ------------------------------------------------------
 *
 * Per frame: crowd_gl_upload, crowd_gl_cull, then crowd_gl_render_shadows and crowd_gl_draw. The
 * cull pass runs over the crowd's live records: with the coverage policy all of them (slots
 * [0, stats.simulated)); with the distance policy those of the frame's draws (chunks the CPU found
 * visible; for no CPU work per chunk or instance, give the crowd one chunk, chunk_size >=
 * world_size, and far_pool -1, which also keeps records in their slots). The coverage policy's CPU
 * re-sort moves records between slots, and the per-slot hysteresis state and band values stay
 * with the slots, not with the instances. For each
 * record it tests the bounding sphere (asset sphere x scale) against the camera and the light,
 * picks the level by the settings of crowd_gl_set_lod, and compacts the slot into one partition per
 * level for the colour pass and one per level <= shadow_max_lod for the shadow pass; the counters
 * are the instance counts of glMultiDrawElementsIndirect. Nothing is read back.
 *
 * Skip-when-unchanged: the pass is skipped and last frame's draws reused when the key is unchanged
 * and the frame uploaded nothing. The key: the view and projection matrices (position, heading,
 * pitch and frustum all change the per-instance sphere test, so all of them count), the light's
 * view-projection (shadow casters), the LOD settings and band, and the frame's live ranges.
 * Time is not in it: the bounds are the asset's, the same for every pose, so a settled crowd
 * under a still camera costs no pass.
 *
 * Vertex budget (coverage policy, as on the CPU): a first dispatch histograms the visible instances
 * by preferred level and log2 coverage (256 bins, 8 per octave), a one-invocation dispatch walks
 * the bins from the smallest coverage up, demoting whole bins to the last level until the indices
 * submitted fit (seed 004's order: smallest first, each as far as it goes; nobody is hidden; an
 * impossible budget leaves everyone visible at the last level), and the classify dispatch applies
 * the cutoff. Bins make it demote up to one bin's instances more than the CPU's exact rule would.
 * budget_satisfied and demoted arrive with the late stats.
 *
 * Attachments draw from the same partitions (levels <= their max_lod; a tiny dispatch copies the
 * crowd's counts into their commands). Their triangles are not in the stats on this path. */

/* The resolved path: CROWD_GL_PATH_CPU or CROWD_GL_PATH_GPU. */
CROWD_API crowd_gl_path crowd_gl_get_path(const crowd_gl_renderer *renderer);

/* LOD settings for the GPU path: the crowd's (crowd_settings(crowd)): policy, screen_coverage,
 * lod_distances, lod_bias, hysteresis, min_coverage, shadow_max_lod, shadows, cross_fade_max_lod.
 * `band` is the width of the stochastic hand-off between two levels, relative: each threshold T
 * becomes the band [T / (1 + band), T * (1 + band)], in which each instance takes the coarser level
 * when a fixed random value of its own is below the blend factor (drawn by exactly one level, never
 * two). 0 = default (0.15), negative = no band (exactly the CPU policy's levels). Until called, the
 * GPU path uses crowd_desc defaults for the coverage policy. No effect on the CPU path. */
CROWD_API void crowd_gl_set_lod(crowd_gl_renderer *renderer, const crowd_desc *settings, float band);

/* GPU path: culls and classifies for this frame's camera and light (light_view_projection may be
 * NULL: no shadow casters), or skips when nothing changed. CPU path: nothing. */
CROWD_API void crowd_gl_cull(crowd_gl_renderer *renderer, const crowd_frame *frame, const crowd_view *view,
                             const float light_view_projection[16]);

/* What the GPU path did, read back asynchronously: the counters of the pass that finished
 * `frames_late` passes ago (0 = none read yet; they are a few frames old, never waited for). */
typedef struct crowd_gl_gpu_stats {
    uint32_t submitted[CROWD_MAX_LODS]; /* instances per level, colour pass */
    uint32_t shadow_casters;
    uint64_t triangles, shadow_triangles;
    uint32_t demoted;               /* vertex budget: visible instances drawn below their preferred level */
    bool budget_satisfied;          /* true without a budget */
    uint32_t frames_late;           /* passes run since the one these counts come from */
    bool valid;                     /* false until the first copy has been read */
    uint64_t passes_run, passes_skipped;
} crowd_gl_gpu_stats;

CROWD_API const crowd_gl_gpu_stats *crowd_gl_get_gpu_stats(const crowd_gl_renderer *renderer);

#ifdef __cplusplus
}
#endif
#endif
