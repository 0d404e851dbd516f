/* crowdbake/gl.h — drawing a crowd_frame with OpenGL 3.3+ core, OpenGL ES 3.0 or WebGL2.
 *
 * The renderer owns the GPU copies of one asset (animation textures, bone texture, LOD index
 * buffers, palette) and of one crowd's record array, and draws the draws of a crowd_frame: the
 * colour pass (lit, shadowed, fogged, in the asset's regions' colours or textures) and the shadow
 * depth pass, both with exactly the same vertex animation. Shaders are GLSL ES 3.00 (desktop GL gets
 * the same source with a #version 330 header), so WebGL2 and desktop draw the same pixels.
 *
 * Every function expects the caller's GL context to be current: crowd_gl_create (and
 * crowd_grass_create) with none current return CROWD_ERROR_GL saying so. Nothing here creates windows,
 * and nothing draws scenery: the caller draws its own ground and world around the crowd. For offline
 * rendering and tests, crowdbake/gl_headless.h makes a windowless context (EGL surfaceless).
 *
 * A frame: crowd_gl_view (the crowd_view for crowd_update: who culls, the attachments' margin) ->
 * crowd_update -> crowd_gl_upload -> crowd_gl_cull (the GPU-driven path; nothing on the CPU path) ->
 * crowd_gl_render_shadows -> the caller's own casters into crowd_gl_get_shadow_map's framebuffer ->
 * crowd_gl_draw -> the caller's ground (sampling that map) -> crowd_gl_draw_far_shadows.
 *
 * Nothing in the frame asks the driver anything: crowd_gl_upload, crowd_gl_render_shadows and
 * crowd_gl_draw issue no glGetError, glGet*, glReadPixels, query-result or fence wait (in a browser
 * each is a synchronous round trip to the GPU process). Which failures are detected when:
 *  - crowd_gl_create: shader compile/link logs, the GPU's texture size limit, the shadow
 *    framebuffer's completeness and any GL error (out of memory included) -> CROWD_ERROR_GL with
 *    the driver's words; the same for crowd_gl_add_attachment and crowd_gl_set_target (calls made at
 *    set-up or after a resize).
 *  - crowd_gl_upload: the instance buffer growing (a GPU reallocation, rare) is checked; the
 *    per-frame sub-data copies are not.
 *  - per frame, only with crowd_gl_desc.debug: every upload and pass ends with a glGetError check;
 *    the pass returns CROWD_ERROR_GL and crowd_gl_last_error says where. Without debug a GL error
 *    in a frame stays pending until the next check (crowd_gl_check, or the next set-up call).
 *  - always, no GL call: a pass given a frame whose culling was left to a GPU pass
 *    (crowd_view.culling) refuses it with CROWD_ERROR_ARGUMENT, naming why in crowd_gl_last_error,
 *    when crowd_gl_cull has not run for this renderer or the renderer draws on the CPU path.
 *
 * GL state the renderer leaves (the caller restores whatever else it relies on):
 *  - framebuffer: crowd_gl_render_shadows binds the target framebuffer afterwards (the one bound
 *    when the renderer was created, or the one given to crowd_gl_set_target) and sets the target
 *    viewport; crowd_gl_draw draws into whatever framebuffer is bound and does not touch the viewport.
 *  - enables: DEPTH_TEST and CULL_FACE (back faces) on, depth func LESS, POLYGON_OFFSET_FILL off,
 *    BLEND untouched, depth writes and colour mask untouched; except that crowd_gl_draw_far_shadows,
 *    when it drew blobs, leaves BLEND off and depth writes on.
 *  - bindings: vertex array 0; the last program used stays bound; GL_ARRAY_BUFFER is one of the
 *    renderer's buffers; texture units 0..7 hold the renderer's textures (active unit 7, TEXTURE_2D
 *    targets); UNPACK_ALIGNMENT 4 after set-up calls; the generic value of vertex attribute 2 is
 *    white when the asset has no vertex colours. With timer queries on, no query is left active.
 *  - draw buffers: never changed; with velocity (crowd_gl_desc.velocity) the colour pass writes
 *    fragment output 1 too, wherever the caller's glDrawBuffers sends it (nowhere: discarded).
 * Shadow map size, uploads, programs: all GPU memory is sized at creation except the instance
 * buffer, which grows on upload to the frame's record count (see crowd_gl_upload).
 *
 * Two animation modes on the same asset, switchable at any time: VAT (4 texel fetches per vertex,
 * 8 while cross-fading) and bone (the bone texture and 4 influences per vertex; needs an asset
 * baked with crowd_bake_desc.bones). Attachments (caps, balloons, swords) ride on sockets and need the bone texture. */
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
 * AUTO: GPU where that exists, else CPU (GLES 3.0 / WebGL2 contexts always get CPU). DEFAULT is
 * AUTO. A GPU-path renderer draws the crowd's own draw list, exactly as the CPU path, until the
 * first crowd_gl_cull call: callers that never cull keep working, and the ones that do get the
 * cull pass's draws from then on. */
typedef enum crowd_gl_path {
    CROWD_GL_PATH_DEFAULT = 0,
    CROWD_GL_PATH_CPU = 1,
    CROWD_GL_PATH_GPU = 2, /* crowd_gl_create fails where it is not available */
    CROWD_GL_PATH_AUTO = 3,
} crowd_gl_path;

typedef enum crowd_gl_mode {
    CROWD_GL_VAT = 0,
    CROWD_GL_BONES = 1,
} crowd_gl_mode;

/* Which region carries the record's tint. */
typedef enum crowd_gl_tint {
    CROWD_GL_TINT_DEFAULT = 0, /* the region named "shirt" if there is one, else WASH */
    CROWD_GL_TINT_REGION,      /* region crowd_gl_desc.tint_region (0 included) */
    CROWD_GL_TINT_WASH,        /* every region gets 40 % of the tint (a multiply: textures stay readable) */
} crowd_gl_tint;

/* How changed record ranges reach the GPU (crowd_gl_upload). Both ways never write a buffer that a
 * queued draw may still read, so the driver never has to wait for the GPU. */
typedef enum crowd_gl_upload_mode {
    CROWD_GL_UPLOAD_DEFAULT = 0, /* RING: the fastest of the three in the browser and natively
                                       (docs/performance.md) */
    CROWD_GL_UPLOAD_ORPHAN,      /* a changed frame re-specifies the buffer with the live span (one
                                       glBufferData with the data: the old store is orphaned, not waited on) */
    CROWD_GL_UPLOAD_RING,        /* a ring of 3 buffers; each gets the ranges it missed */
    CROWD_GL_UPLOAD_IN_PLACE,    /* glBufferSubData of the dirty ranges into one buffer (may stall) */
} crowd_gl_upload_mode;

/* Motion vectors for temporal anti-aliasing and upscalers (crowd_gl_desc.velocity).
 *  - NONE (0, the default): the colour pass writes colour only; its programs are exactly the ones
 *    without this setting.
 *  - MRT: crowd_gl_draw also writes each pixel's screen-space velocity to fragment output location 1
 *    (the framebuffer's colour attachment that glDrawBuffers maps to output 1; the caller attaches a
 *    float target there, RG16F or RG32F, and sets the draw buffers: the renderer changes neither). The
 *    value is (x, y, 0, 1): where the pixel's surface point is now minus where it was a frame earlier,
 *    in pixels (crowd_gl_scene.velocity_units; y up as GL's window y: a point moving up the screen
 *    has positive y) or in NDC. "Now" is the pixel itself, placed in the renderer's target viewport:
 *    the one bound when it was created, or the last crowd_gl_set_target's, which must therefore be
 *    the viewport the colour pass draws with (call crowd_gl_set_target after a resize, as the shadow
 *    pass needs anyway). Bodies in VAT and bone mode, through cross-fades, turn records and
 *    held one-shots, their attachments and the imposter cards (the card's corner a frame earlier:
 *    facing the previous camera from the record's previous place), on the CPU and the GPU-driven path. The previous position is interpolated per pixel in clip space and divided
 *    there, so the vectors are exact for the drawn triangles, not for their corners only.
 *    A frame earlier means the same record decoded at the previous shader time (crowd_gl_scene.previous:
 *    the renderer's last crowd_gl_draw, or the caller's): its extrapolated position, turn, clip phases
 *    and fade weights then. A record rewritten this frame (a teleport, a new clip, a new velocity) is
 *    therefore decoded backwards from its new state, so a teleported instance shows the motion of its
 *    new record, never a streak from where it was; a new clip shows the new clip's motion. A point
 *    that was behind the previous camera gets (0, 0). Pixels the crowd does not draw are untouched:
 *    clear the target to 0 (or write the background's own motion) first.
 *    The previous yaw of a body is exact for a record that does not turn; a turning one faces along
 *    its previous velocity, whose direction stands in for the runtime's atan2 polynomial (within
 *    about 1e-5 rad). Cost: each vertex is decoded twice (twice the animation texel fetches; the
 *    previous normal is not fetched, nor any sine or cosine), one more vec4 is interpolated and
 *    each pixel writes a second target; the shadow pass is unchanged
 *    (docs/performance.md has the figures). Blob shadows write no velocity; skinned characters
 *    (crowd_gl_skinned) write none. crowd_gl_draw refuses a scene whose previous or velocity_units
 *    is out of range (CROWD_ERROR_ARGUMENT, crowd_gl_last_error says which).
 *  - PASS: a separate velocity pass, for an engine whose colour pass has no room for a second
 *    target. crowd_gl_draw draws colour only, with NONE's programs (their positions declared
 *    invariant); crowd_gl_draw_velocity then draws the same frame's vectors (MRT's values) to
 *    fragment output 0 of the bound framebuffer: the caller's velocity target as its colour
 *    attachment 0 (GLES maps output 0 to attachment 0 only), with the colour pass's depth buffer
 *    (the depth test LEQUAL then passes the surfaces the colour pass kept; where two surfaces meet at
 *    one depth the later one's vector wins) or a depth buffer of its own, cleared (the pass writes
 *    depth). It runs the crowd's vertex work a second time; its fragments do no lighting. Its
 *    programs are built at creation beside the colour ones. KEPT (see crowd_gl_previous) means this
 *    renderer's last crowd_gl_draw_velocity. */
typedef enum crowd_gl_velocity {
    CROWD_GL_VELOCITY_NONE = 0,
    CROWD_GL_VELOCITY_MRT = 1,
    CROWD_GL_VELOCITY_PASS = 2,
} crowd_gl_velocity;

/* Where a frame's "a frame earlier" comes from (crowd_gl_scene.previous), with velocity on.
 *  - KEPT (0, the default): the camera (projection x view) and frame time of this renderer's last
 *    crowd_gl_draw. On the renderer's first crowd_gl_draw there is none: the frame's own are used,
 *    so every velocity is 0 then. A renderer that draws a frame twice (two views) should be given
 *    its previous state instead.
 *  - GIVEN: crowd_gl_scene.previous_view_projection and previous_time (e.g. the game's own previous
 *    camera, jittered or not as its TAA wants; previous_time = this frame's time for camera-only
 *    motion). */
typedef enum crowd_gl_previous {
    CROWD_GL_PREVIOUS_KEPT = 0,
    CROWD_GL_PREVIOUS_GIVEN = 1,
} crowd_gl_previous;

/* The motion vectors' units (crowd_gl_scene.velocity_units), y up either way. */
typedef enum crowd_gl_velocity_units {
    CROWD_GL_VELOCITY_PIXELS = 0, /* pixels of the target viewport (the default) */
    CROWD_GL_VELOCITY_NDC = 1,    /* normalized device coordinates: 2 across the viewport */
} crowd_gl_velocity_units;

typedef struct crowd_gl_desc {
    const crowd_asset *asset;  /* required; borrowed for the renderer's lifetime */
    const crowd *sizing_crowd; /* optional: sizes the instance buffer to
                                       crowd_record_capacity(sizing_crowd) at creation (not kept) */
    uint32_t capacity;         /* records the instance buffer holds at first; 0 = the crowd's record
                                       capacity, or 1024. It grows on upload when a frame needs more */
    crowd_gl_mode mode;
    crowd_gl_path path; /* see crowd_gl_path; ES contexts always get CPU (AUTO) or fail (GPU) */
    /* GPU path: the width of the stochastic hand-off between two mesh levels, relative: each
     * threshold T becomes the band [T / (1 + band), T * (1 + band)], in which each instance takes the
     * coarser level when a fixed random value of its own is below the blend factor (drawn by exactly
     * one level, never two). 0 = 0.15, negative = no band (exactly the CPU policy's levels). */
    float lod_band;
    uint32_t shadow_map_size; /* texels per side; 0 = 2048 */
    /* Optional: cast into and sample another renderer's shadow map instead of making one (several
     * crowds in one world, e.g. one per kind, shadowing each other and one ground). The source must
     * outlive this renderer and run its crowd_gl_render_shadows first each frame (its pass clears
     * the map; this renderer's pass adds its casters without clearing), and both must be given the
     * same light matrix (crowd_gl_fit_shadow gives the same for the same arguments). The source's
     * map size is used; shadow_map_size is ignored. */
    const struct crowd_gl_renderer *shadow_source;
    crowd_gl_tint tint;   /* 0 = CROWD_GL_TINT_DEFAULT */
    uint32_t tint_region; /* with CROWD_GL_TINT_REGION: the region index (< asset->region_count) */
    crowd_gl_upload_mode upload;
    bool es;    /* the context is OpenGL ES 3.0 / WebGL2 (else desktop 3.3+) */
    bool debug; /* check GL errors after every upload and pass (costs a round trip each) */
    /* GPU time per pass through timer queries (GL 3.3 core, GL_EXT_disjoint_timer_query on GLES,
     * EXT_disjoint_timer_query_webgl2 in a browser), where present. Results are read 4 frames late
     * from a ring of query objects and never waited for, but reading one is a glGetQueryObject
     * call: at most one availability poll per pass per frame, on a query issued 4 frames ago (in a
     * browser the answer only changes between frames anyway). Off by default so a frame makes no
     * query at all. */
    bool timers;
    /* Motion vectors from the colour pass (see crowd_gl_velocity); 0 = none. Fixed at creation: the
     * colour programs are built with it. */
    crowd_gl_velocity velocity;
} crowd_gl_desc;

/* Light and atmosphere for a frame. Directions are unit vectors in world space. */
/* How the passes turn linear light into framebuffer values (every fragment shader of crowd_gl and
 * crowdbake/grass.h alike: crowd, attachments, imposters, grass). */
typedef enum crowd_gl_output {
    CROWD_GL_OUTPUT_GAMMA = 0,     /* pow(c, 1 / 2.2), clipped at 1 by the framebuffer (the default) */
    CROWD_GL_OUTPUT_ACES_SRGB = 1, /* c * exposure, the ACES filmic curve, then the sRGB transfer function */
} crowd_gl_output;

/* What casts a shadow past the shadow map's levels (crowd_gl_scene.far_shadow). Only mesh levels up to
 * the crowd's shadow_max_lod draw into the shadow map; cards (the imposter level) and the mesh levels
 * past shadow_max_lod cast nothing there, so a far crowd stands on unshaded ground.
 *  - NONE (0, the default): nothing; the frame is exactly the one without this setting.
 *  - BLOB: with scene.shadows on, every drawn instance that casts no mesh shadow darkens the ground
 *    under it with one soft ellipse: a quad on the ground plane at the record's height (2 triangles, no
 *    shadow map), sized from the asset's bounds x the record's scale, and stretched from the feet along
 *    the ground projection of the sun's direction to where the box's top would throw its shadow (the
 *    side the mesh shadows of the nearer levels fall on, so the hand-off at shadow_max_lod keeps the
 *    dark patch in place; the sun's elevation is clamped at about 14 degrees, so a setting sun gives at
 *    most four heights of stretch). Round across (the yaw is not used: a figure's width hardly depends
 *    on it at the distances blobs are seen from). Darkness: the ground's own shadowed / lit ratio under
 *    the scene's sun and sky (lit.frag's terms, the output's 2.2 power), faded with the fog, multiplied
 *    into the framebuffer (blend DST_COLOR x ZERO) after the ground, depth-tested against it (the crowd
 *    and the cards in front hide it), depth not written. Where blobs overlap, they multiply.
 *    Which instances: on the CPU path every draw not flagged CROWD_DRAW_SHADOW (cards, and the levels
 *    past shadow_max_lod), except the cards of a band chunk (CROWD_DRAW_BAND): their records are drawn
 *    by the chunk's mesh draw too, whose shadow (mesh or blob) covers all of them, so each instance has
 *    exactly one shadow. On the GPU path the colour partitions past the settings' shadow_max_lod and the
 *    cards' partition (instance counts copied on the GPU after each cull pass; a level <= shadow_max_lod
 *    outside the light's frustum gets neither). Cost: on the CPU path one non-instanced draw of 6
 *    vertices an instance reading the records texture (the cards' way) per 64 runs of contiguous
 *    records (a chunk's draw is a run); one indirect draw on the GPU path; per instance 6 vertices and
 *    its footprint's pixels, a fraction of a card's. The blobs count in crowd_gl_stats.draws and
 *    triangles (2 a blob). They land on the caller's ground: draw it after crowd_gl_draw, then
 *    crowd_gl_draw_far_shadows (blades of grass in front hide them, as the crowd does). */
typedef enum crowd_gl_far_shadow {
    CROWD_GL_FAR_SHADOW_NONE = 0,
    CROWD_GL_FAR_SHADOW_BLOB = 1,
} crowd_gl_far_shadow;

typedef struct crowd_gl_scene {
    float view[16], projection[16];      /* the camera, column-major */
    float sun_direction[3];              /* towards the sun */
    float sun_color[3];                  /* linear */
    float sky_color[3], ground_color[3]; /* hemisphere ambient, linear */
    float fog_color[3];
    float fog_density;              /* exp2 fog: factor exp(-(density * distance)^2); 0 = none */
    bool shadows;                   /* sample the shadow map (crowd_gl_render_shadows ran this frame) */
    bool flat_color;                /* every character white: geometry and light only (comparisons) */
    crowd_gl_output output;         /* CROWD_GL_OUTPUT_GAMMA (0) unless set */
    float exposure;                 /* with CROWD_GL_OUTPUT_ACES_SRGB: 0 = 1 */
    crowd_gl_far_shadow far_shadow; /* CROWD_GL_FAR_SHADOW_NONE (0) unless set; see crowd_gl_far_shadow */
    /* Motion vectors (read only by a renderer created with crowd_gl_desc.velocity) */
    crowd_gl_previous previous;             /* CROWD_GL_PREVIOUS_KEPT (0) unless set; see crowd_gl_previous */
    float previous_view_projection[16];     /* with CROWD_GL_PREVIOUS_GIVEN: projection x view, column-major */
    float previous_time;                    /* with CROWD_GL_PREVIOUS_GIVEN: the previous frame's crowd_frame.time */
    crowd_gl_velocity_units velocity_units; /* CROWD_GL_VELOCITY_PIXELS (0) unless set */
} crowd_gl_scene;

typedef struct crowd_gl_attachment_desc {
    const float *positions; /* xyz, in the socket's space (metres) */
    const float *normals;   /* xyz */
    uint32_t vertex_count;
    const uint32_t *indices;
    uint32_t index_count;
    const char *socket;     /* a socket name of the asset ("head") */
    uint8_t color[4];       /* sRGB */
    uint32_t accessory_bit; /* worn by instances whose variant has this accessory bit (0..7) */
    /* Chunks past this LOD do not draw it: a level, or CROWD_MAX_LOD_ALL for every mesh level, the
     * size test (min_pixels) deciding; 0 is LOD 0 only. Never on the imposter cards. */
    uint32_t max_lod;
    /* Optional: its own texture, multiplied with `color`: texture_width x texture_height sRGB RGBA8
     * texels, the top row first (1..4096 each way), sampled at `uvs` (2 per vertex, glTF's
     * convention: v down). NULL: one colour. `uvs` without a texture is ignored. */
    const float *uvs;
    const uint8_t *texture;
    uint32_t texture_width, texture_height;
    bool tinted; /* the colour is also multiplied by the record's tint (a cap in the shirt's colour) */
    /* Drawn only where larger than this many pixels across (its bounding sphere about the socket,
     * at the instance's scale, projected at the view depth of the instance's position on the target
     * viewport); 0 = 1 pixel. The colour pass only: shadows are cast at every level it draws at. */
    float min_pixels;
} crowd_gl_attachment_desc;

typedef struct crowd_gl_stats {
    uint32_t draws, shadow_draws; /* GL draw calls issued in the last colour / shadow pass; the shadow
                                       figures are 0 when the last colour pass ran without shadows */
    uint64_t triangles, shadow_triangles;
    uint64_t bytes_uploaded;            /* by the last crowd_gl_upload */
    uint32_t capacity;                  /* records the instance buffer holds now */
    bool timers;                        /* GPU timer queries are on and supported */
    double gpu_shadow_ms, gpu_color_ms; /* GPU time of each pass, from a frame CROWD_GL_TIMER_LATENCY
                                       frames ago; negative until a first result (or without timers) */
} crowd_gl_stats;

/* Frames between a pass and the moment its timer result is read. */
#define CROWD_GL_TIMER_LATENCY 4

typedef struct crowd_gl_renderer crowd_gl_renderer;

/* Creates a renderer for desc->asset in desc->mode. Refused with a message when that mode cannot
 * play the asset (crowd_gl_check_mode): bone mode without a bone texture (CROWD_ERROR_ARGUMENT), or
 * bone mode the bake recorded as unavailable (CROWD_ERROR_UNSUPPORTED): no silent fallback to VAT,
 * so a caller that asked for bones learns it at once instead of drawing frozen characters. With no
 * GL context current on the calling thread: CROWD_ERROR_GL naming it (checked through the EGL and GLX
 * libraries the process has loaded, before any GL call; see crowdbake/gl_headless.h for one). */
CROWD_API crowd_result crowd_gl_create(const crowd_gl_desc *desc, crowd_gl_renderer **out, crowd_error *error);
CROWD_API void crowd_gl_destroy(crowd_gl_renderer *renderer);

/* Whether `mode` can play `asset`, without a GL context (a tool or app picks its mode before it
 * creates a renderer): CROWD_OK for VAT always; bone mode needs a --bones bake (else
 * CROWD_ERROR_ARGUMENT) whose bake did not record bone mode as unavailable (morph targets,
 * crowd_bake_notes.bone_mode == CROWD_BONE_MODE_UNAVAILABLE: CROWD_ERROR_UNSUPPORTED). The message
 * says which; `error` may be NULL. crowd_gl_create and crowd_gl_set_mode apply the same rule. */
CROWD_API crowd_result crowd_gl_check_mode(const crowd_asset *asset, crowd_gl_mode mode, crowd_error *error);

/* Switches between VAT and bone playback; refused as crowd_gl_check_mode refuses (the mode stays). */
CROWD_API crowd_result crowd_gl_set_mode(crowd_gl_renderer *renderer, crowd_gl_mode mode);

/* Turns the two-clip path off (every draw uses clip A alone, fades snap) or back on. On by default;
 * which draws may use it is the crowd's cross_fade_max_lod. */
CROWD_API void crowd_gl_set_cross_fade(crowd_gl_renderer *renderer, bool on);

/* Copies the frame's changed record ranges to the GPU (nothing when the crowd did not change).
 * The first upload after creation sends everything. A frame with more records than the instance
 * buffer holds grows it (a GPU reallocation to 1.5x, checked for GL errors, followed by a full
 * upload): the renderer needs no capacity of its own. With the default RING mode a changed frame
 * writes the ranges changed since the next ring buffer was last written (three buffers: GPU memory
 * is 3 x 64 bytes per record), one glBufferSubData each, ranges closer than 16 records merged and at
 * most 2,048 calls (the gap widens 4x at a time until they fit); the renderer keeps those ranges
 * (8 bytes each, 4,096 reserved per buffer at creation, up to 65,536, past which it writes their
 * hull). See crowd_gl_upload_mode. */
CROWD_API crowd_result crowd_gl_upload(crowd_gl_renderer *renderer, const crowd_frame *frame, crowd_error *error);

/* Adds an attachment mesh; returns its index. The mesh is copied. It also measures how far the
 * mesh gets past the body's culling spheres: every vertex placed on the socket on every baked frame
 * of every clip, O(frames x vertices) once, here (a 1,000-vertex mesh on a 2,000-frame asset: 2M
 * placements). The GPU-driven path grows its per-clip culling spheres by that itself; the CPU path
 * culls in the crowd, which sees no attachments: crowd_gl_view puts the reach into the crowd's view
 * (crowd_view.cull_margin), so an instance just out of view whose attachment reaches into it is kept. */
CROWD_API crowd_result crowd_gl_add_attachment(crowd_gl_renderer *renderer, const crowd_gl_attachment_desc *desc,
                                               uint32_t *index, crowd_error *error);

/* The culling margin the renderer's attachments need (crowd_view.cull_margin): metres per unit of
 * instance scale by which the farthest attachment vertex, on any baked frame, lies outside the
 * culling sphere of its clip (crowd_clip.cull_*) or the asset sphere, whichever is more (the crowd's
 * chunks are culled by the asset sphere). A conservative bound for every instance: frame blends,
 * cross-fades, yaw and scale keep a placed vertex inside its sphere grown by this. The largest over
 * all attachments, whoever wears them (accessory bits are per instance; the margin is not); 0
 * without attachments, or when they stay inside the spheres. On the built-in humanoid: 0.094 m for
 * the showcase scene's cap and balloon (a 1.07 m string from the right hand), 1.455 m for a 1.5 m
 * pole on the head (tests/test_attachment_cull.c). No GL call. */
CROWD_API float crowd_gl_attachment_reach(const crowd_gl_renderer *renderer);

/* The framebuffer and viewport crowd_gl_render_shadows returns to (it cannot ask the driver which
 * ones were bound without a round trip). Defaults to those bound when the renderer was created.
 * Call it after a resize or when drawing into another framebuffer; checks for GL errors. */
CROWD_API crowd_result crowd_gl_set_target(crowd_gl_renderer *renderer, uint32_t framebuffer, int x, int y, int width,
                                           int height, crowd_error *error);

/* Fits a light's view-projection around a sphere (centre, radius) seen from `sun_direction`,
 * snapped to shadow-map texels so a moving camera does not make shadow edges shimmer. */
CROWD_API void crowd_gl_fit_shadow(const crowd_gl_renderer *renderer, const float sun_direction[3],
                                   const float centre[3], float radius, float light_view_projection[16]);

/* Renders the shadow map (cleared first, unless it is desc.shadow_source's, which only gains this
 * renderer's casters): every draw flagged CROWD_DRAW_SHADOW from the light, then binds
 * the target framebuffer and viewport (crowd_gl_set_target). CROWD_OK; CROWD_ERROR_ARGUMENT for a
 * GPU-culled frame no crowd_gl_cull has prepared (see above); with desc.debug CROWD_ERROR_GL when a
 * GL error is pending afterwards. Either way crowd_gl_last_error says why. */
CROWD_API crowd_result crowd_gl_render_shadows(crowd_gl_renderer *renderer, const crowd_frame *frame,
                                               const float light_view_projection[16]);

/* Draws the crowd and its attachments into the current framebuffer (depth test on). `time` is
 * frame->time. Draw the ground after it (its pixels under people then fail the depth test early),
 * then crowd_gl_draw_far_shadows onto it. Returns as crowd_gl_render_shadows does. */
CROWD_API crowd_result crowd_gl_draw(crowd_gl_renderer *renderer, const crowd_frame *frame,
                                     const crowd_gl_scene *scene);

/* The separate velocity pass (crowd_gl_desc.velocity = CROWD_GL_VELOCITY_PASS; see
 * crowd_gl_velocity): the motion vectors of `frame` as crowd_gl_draw drew it (same scene, after it),
 * into fragment output 0 of the bound framebuffer, depth func LEQUAL with depth writes on, GL state
 * afterwards as crowd_gl_draw leaves it. The stats stay the colour pass's. CROWD_ERROR_ARGUMENT for a
 * renderer created without PASS, and as crowd_gl_draw returns otherwise. */
CROWD_API crowd_result crowd_gl_draw_velocity(crowd_gl_renderer *renderer, const crowd_frame *frame,
                                              const crowd_gl_scene *scene);

CROWD_API const crowd_gl_stats *crowd_gl_get_stats(const crowd_gl_renderer *renderer);

/* The far-shadow blobs of `frame` (crowd_gl_far_shadow), into the bound framebuffer, after the
 * caller's ground. Nothing unless scene->far_shadow is BLOB and scene->shadows is on. Adds to the
 * stats of the last crowd_gl_draw; GL state afterwards as crowd_gl_draw leaves it. */
CROWD_API void crowd_gl_draw_far_shadows(crowd_gl_renderer *renderer, const crowd_frame *frame,
                                         const crowd_gl_scene *scene);

/* The shadow map this renderer's passes use (its own, or desc.shadow_source's), for a caller that
 * draws its own geometry with the crowd's shadows: its ground receiving them, its buildings casting
 * them. `texture` is a depth texture of size x size texels with GL_TEXTURE_COMPARE_MODE
 * GL_COMPARE_REF_TO_TEXTURE and GL_LEQUAL: sample it through a sampler2DShadow at (p.xy, p.z), p =
 * (light_view_projection * world).xyz / w * 0.5 + 0.5 (the light of the last crowd_gl_render_shadows).
 * Casters draw into `framebuffer` after crowd_gl_render_shadows (depth only, viewport size x size, the
 * same light), then bind the target again (the renderer's: crowd_gl_set_target's). No GL call. */
typedef struct crowd_gl_shadow_map {
    uint32_t texture, framebuffer, size;
    float light_view_projection[16];
    uint32_t target_framebuffer; /* what crowd_gl_render_shadows binds afterwards, and its viewport */
    int target_viewport[4];
} crowd_gl_shadow_map;
CROWD_API void crowd_gl_get_shadow_map(const crowd_gl_renderer *renderer, crowd_gl_shadow_map *out);

/* What the last failing upload or pass saw ("" when none): a refused frame always, GL errors with
 * desc.debug. */
CROWD_API const char *crowd_gl_last_error(const crowd_gl_renderer *renderer);

/* Reports a pending GL error as CROWD_ERROR_GL naming `where`. A synchronous round trip: for set-up,
 * resizes and debug modes, not for every frame. */
CROWD_API crowd_result crowd_gl_check(const char *where, crowd_error *error);

/* ---- classic skinning: one mesh, skeleton, palette and draw call per character --------------
 *
 * The way a skinned character is usually drawn, beside the baked crowd for comparison (demo mode
 * "compare", crowd-bench --compare): the caller poses each character's skeleton on the CPU every
 * frame (crowdbake/rig.h crowd_rig_pose_blend: the baker's sampling code at run time) and hands
 * the palettes over; each character then costs its own palette upload (3 vec4 uniforms per bone,
 * per pass) and its own glDrawElements, with GPU linear-blend skinning (4 influences) in the
 * vertex shader. With cpu_skinning the vertices are skinned on the CPU instead and uploaded (the
 * worst case: 24 bytes per vertex per character per frame). Both draw the asset's level 0 with the
 * renderer's textures, lighting, shadow map and fog (the same fragment shader), so a character
 * posed at a baked frame renders as its VAT instance does.
 *
 * Per frame, after the crowd's own calls: crowd_gl_skinned_upload (CPU skinning: skins and uploads;
 * GPU skinning: remembers the characters), crowd_gl_render_shadows then crowd_gl_skinned_render_shadows
 * (adds the characters to the shadow map the crowd's pass cleared), crowd_gl_draw then
 * crowd_gl_skinned_draw. The characters array and the palettes it points at are borrowed from the
 * upload to the frame's last skinned call. Needs an asset with joints and weights (a --bones
 * bake) and a GPU with 3 x bone_count + 16 vertex uniform vectors (GLES 3.0 guarantees 256: about
 * 80 bones). No GL query per frame; GL state afterwards as crowd_gl_draw leaves it. */
typedef struct crowd_gl_skinned_desc {
    crowd_gl_renderer *renderer; /* required; borrowed: its asset's mesh and textures, shadow map, target */
    bool cpu_skinning;           /* skin on the CPU and upload the vertices (else GPU skinning) */
    uint32_t capacity;           /* cpu_skinning: characters per frame; 0 = 256. Else unlimited */
} crowd_gl_skinned_desc;

typedef struct crowd_gl_character {
    float position[3];      /* world metres */
    float yaw;              /* radians about +Y */
    float scale;            /* uniform */
    uint32_t tint;          /* as crowd_record.tint */
    uint32_t variant;       /* as crowd_record.variant */
    const float *bone_rows; /* asset bone_count 3x4 row-major skinning matrices (crowd_rig_pose_blend) */
} crowd_gl_character;

typedef struct crowd_gl_skinned_stats {
    uint32_t draws, shadow_draws;       /* GL draw calls of the last colour / shadow pass */
    uint64_t triangles;                 /* last colour pass */
    uint64_t bytes_uploaded;            /* last frame: palettes (per pass) or skinned vertices */
    double gpu_shadow_ms, gpu_color_ms; /* with the renderer's timers (crowd_gl_desc.timers), as
                                       crowd_gl_stats: CROWD_GL_TIMER_LATENCY frames late; else negative */
} crowd_gl_skinned_stats;

typedef struct crowd_gl_skinned crowd_gl_skinned;

CROWD_API crowd_result crowd_gl_skinned_create(const crowd_gl_skinned_desc *desc, crowd_gl_skinned **out,
                                               crowd_error *error);
CROWD_API void crowd_gl_skinned_destroy(crowd_gl_skinned *skinned);

/* This frame's characters (count may be 0). CPU skinning skins every vertex of each and uploads
 * them (count above the capacity: CROWD_ERROR_ARGUMENT, nothing drawn). */
CROWD_API crowd_result crowd_gl_skinned_upload(crowd_gl_skinned *skinned, const crowd_gl_character *characters,
                                               uint32_t count, crowd_error *error);
/* Draws the characters into the renderer's shadow map (from light_view_projection, which should
 * be the one given to crowd_gl_render_shadows) without clearing it, then binds the target back. */
CROWD_API crowd_result crowd_gl_skinned_render_shadows(crowd_gl_skinned *skinned,
                                                       const float light_view_projection[16]);
/* Draws the characters into the current framebuffer, one draw call each. */
CROWD_API crowd_result crowd_gl_skinned_draw(crowd_gl_skinned *skinned, const crowd_gl_scene *scene);
CROWD_API const crowd_gl_skinned_stats *crowd_gl_skinned_get_stats(const crowd_gl_skinned *skinned);

/* ---- imposters -------------------------------------------------------------------------------
 *
 * An asset with an imposter atlas (asset.h) gets a level past its last mesh (crowd.h,
 * crowd_desc.imposters): draws flagged CROWD_DRAW_IMPOSTER are drawn by crowd_gl_draw as one
 * camera-facing card per instance (2 triangles, no vertex buffer), textured from the two baked yaw
 * views nearest the camera's direction at each of the two baked elevations around it (blended by
 * angle, four tiles; clamped outside the baked range), the key
 * frame nearest the instance's phase (the same fract(offset + time * rate), or clamp for held
 * clips; clip B once a cross-fade is past half way), alpha-tested at half coverage, lit by the
 * baked normals under the scene's sun and hemisphere (shadow map received), fogged, and tinted by
 * the record's tint through the atlas's tint mask. Region palette choices of the variant other than
 * the tinted region are not in the atlas (the bake's choice 0 shows). Cards cast no mesh shadow (a
 * blob or nothing: crowd_gl_scene.far_shadow) and carry no attachments.
 *
 * Hand-off band (CROWD_DRAW_BAND): on the CPU path LOD is per chunk, so a chunk that straddles the
 * band is drawn twice, by its mesh level and by the cards, over the same records; each vertex
 * shader computes the instance's blend factor from its own distance and crowd_band_random, and
 * collapses the instances that belong to the other representation (every vertex on one point: no
 * pixel, but the triangles count as submitted). Each instance is drawn exactly once, never blended.
 * Attachments are not drawn in band chunks.
 *
 * GPU-driven path: the cards are one more partition of the cull pass, past the shadow partitions,
 * drawn by one glDrawElementsIndirect (six corners an instance). The pass classifies per instance
 * with crowd_lod.c's rule: the coverage policy's threshold screen_coverage[lod_count - 1] (dead band
 * without a hand-off band), or the distance policy's lod_distances[lod_count - 1] (x lod_bias); inside
 * the hand-off band (the settings' imposter_band) the card when crowd_band_random(record) is below the
 * blend factor (log coverage; metres to the record's position), so each instance lands in exactly one
 * partition and the split is the CPU path's. Cards never enter a shadow partition, and a vertex budget
 * never moves them. On by the settings' `imposters` (0 or 1, with an atlas; -1 off). */

typedef struct crowd_gl_imposter_desc {
    uint32_t frames;                                    /* key frames per cycle; 0 = 8 */
    uint32_t views;                                     /* yaw directions; 0 = 32 */
    uint32_t elevations;                                /* 0 = 3 */
    float elevation_deg[CROWD_MAX_IMPOSTER_ELEVATIONS]; /* increasing, within +-89; all 0 = evenly over
                                                           5..40 (5, 22.5, 40 for three; 10 for one) */
    uint32_t tile;                                      /* texels per tile side; 0 = 32 */
    uint32_t supersample;                               /* rendered at tile x this per side; 0 = 3 */
    /* The mesh level the atlas is rendered from. 0 = the level before the asset's last (LOD
     * lod_count - 2; LOD 0 for a one-level asset): where the chain's levels end at the card distance
     * (the demo's, crowd-bench's) that is the band's mesh side, the mesh a card replaces, and a card
     * baked from it agrees with it far better than one baked from LOD 0 (tests/test_imposters
     * card_matches_mesh). CROWD_MAX_LOD_ZERO = LOD 0; else a level in 1..lod_count - 1. */
    uint32_t lod;
    /* Attachments the cards wear (as crowd_gl_add_attachment takes them; at most
     * CROWD_GL_MAX_IMPOSTER_ATTACHMENTS; their accessory bit, max_lod and min_pixels are ignored): the
     * atlas shows the character wearing all of them, so every card shows them, whatever its
     * instance's accessories. Bake with what the far crowd mostly wears, or none. Each clip's box
     * (the tiles' framing) grows to hold them. */
    const crowd_gl_attachment_desc *attachments;
    uint32_t attachment_count;
} crowd_gl_imposter_desc;

#define CROWD_GL_MAX_IMPOSTER_ATTACHMENTS 8u

/* Renders `asset`'s imposter atlas with this renderer (VAT mode, its own framebuffer) into `out`
 * (owned; crowd_gl_imposters_free): every clip at desc->frames key frames, from desc->views x
 * desc->elevations directions, three passes per tile (albedo with a white and a black tint, for
 * the tint mask, and the normals), read back and filtered down. A bake-time call: it queries and
 * reads back freely. Needs a current GL 3.3 core or GLES 3.0 context (`es`); leaves framebuffer 0
 * bound and the viewport changed. Cost: clips x frames x views x elevations x 3 small draws and
 * readbacks (the humanoid's 6 clips at the defaults: 1728 tiles, about 10 s on llvmpipe). Errors: CROWD_ERROR_ARGUMENT
 * (desc out of range), CROWD_ERROR_LIMIT (atlas beyond 16384 texels), CROWD_ERROR_GL. */
CROWD_API crowd_result crowd_gl_bake_imposters(const crowd_asset *asset, const crowd_gl_imposter_desc *desc, bool es,
                                               crowd_imposters *out, crowd_error *error);
CROWD_API void crowd_gl_imposters_free(crowd_imposters *imposters);

/* ---- GPU-driven path (crowd_gl_desc.path) ------------------------------------------------------
 *
 * Per frame: crowd_gl_view, crowd_update, crowd_gl_upload, crowd_gl_cull, then crowd_gl_render_shadows
 * and crowd_gl_draw. The view crowd_gl_view fills tells the crowd that this pass culls
 * (CROWD_CULLING_GPU), so its update skips the culling, levels and draw list the pass replaces (the
 * pass reads only the records, the upload ranges, slot_instances and the frame's settings). The
 * cull pass runs over every slot in use, [0, record_count), whatever the policy and whatever the
 * CPU culled, and keeps the live ones (frame.slot_instances, which crowd_gl_upload copies to the
 * GPU through the frame's upload ranges): no CPU work per chunk or per instance. Hysteresis state
 * and the band's random value belong to the instance (indexed by its instance index), so they
 * follow it when its record moves to another slot (a chunk change, the coverage policy's re-sort).
 * For each live record it tests its culling sphere (its clip's, crowd_clip.cull_center_y and
 * cull_radius, x scale; during a cross-fade the sphere holding both clips'; grown by how far this
 * renderer's attachments reach past it, see crowd_gl_add_attachment) against the camera and
 * the light, picks the level by the crowd's settings (crowd_frame.settings) and the renderer's
 * lod_band, and compacts the slot into one
 * partition per level for the colour pass and one per level <= shadow_max_lod for the shadow pass;
 * the counters are the instance counts of glMultiDrawElementsIndirect. Nothing is read back.
 * Shadow casters follow the CPU path's rule per instance: drawn by the camera, at a level <=
 * shadow_max_lod, inside the light's frustum (the CPU path casts the chunks the camera sees, so
 * neither path casts from outside the view).
 *
 * Skip-when-unchanged: the pass is skipped and last frame's draws reused when the key is unchanged
 * and the frame uploaded nothing. The key: the view and projection matrices (position, heading,
 * pitch and frustum all change the per-instance sphere test, so all of them count), the light's
 * view-projection (shadow casters), the LOD settings and band, and the frame's time whenever
 * some live instance has a velocity (crowd_stats.extrapolating): the shaders place such a record
 * at its position plus velocity x (time - its record's time), so it moves with no upload and the
 * pass runs every frame; otherwise the time is 0 in the key. The animation's pose is not in it:
 * the bounds are per clip, the same for every pose of it (a clip change rewrites the record: an
 * upload; an attachment added grows them and runs the next pass), so a crowd that only plays clips
 * in place
 * under a still camera costs no pass. Besides the key, the frame must have uploaded nothing and
 * kept its slots in use and live count.
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

/* The crowd's view for this renderer: the camera, and who culls (CROWD_CULLING_GPU on the GPU path,
 * else CPU) and how far this renderer's attachments reach past the bodies (crowd_view.cull_margin,
 * crowd_gl_attachment_reach). Build each frame's view with it and the crowd and its renderer agree
 * by construction. No GL call. */
CROWD_API void crowd_gl_view(const crowd_gl_renderer *renderer, const float view[16], const float projection[16],
                             float viewport_height, crowd_view *out);

/* GPU path: culls and classifies for this frame's camera and light (light_view_projection may be
 * NULL: no shadow casters), or skips when nothing changed. CPU path: nothing. */
CROWD_API void crowd_gl_cull(crowd_gl_renderer *renderer, const crowd_frame *frame, const crowd_view *view,
                             const float light_view_projection[16]);

/* What the GPU path did, read back asynchronously: the counters of the pass that finished
 * `frames_late` passes ago (0 = none read yet; they are a few frames old, never waited for). */
typedef struct crowd_gl_gpu_stats {
    uint32_t submitted[CROWD_MAX_LODS]; /* instances per level, colour pass (the cards after the last) */
    /* the last pass with a light's: a pass without one (no shadow pass that frame) keeps them */
    uint32_t shadow_casters;
    uint64_t triangles, shadow_triangles;
    uint32_t demoted;      /* vertex budget: visible instances drawn below their preferred level */
    bool budget_satisfied; /* true without a budget */
    uint32_t frames_late;  /* passes run since the one these counts come from */
    bool valid;            /* false until the first copy has been read */
    uint64_t passes_run, passes_skipped;
} crowd_gl_gpu_stats;

CROWD_API const crowd_gl_gpu_stats *crowd_gl_get_gpu_stats(const crowd_gl_renderer *renderer);

#ifdef __cplusplus
}
#endif
#endif
