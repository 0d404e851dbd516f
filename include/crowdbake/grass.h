/* crowdbake/grass.h — a field of grass blades as the crowd's ground (OpenGL 3.3+/4.3+, GLES 3.0, WebGL2).
 *
 * The field is a square of `extent` x 2 metres cut into square chunks. Blade records are stored
 * contiguously by chunk and, inside a chunk, in a deterministic random order (every record's
 * position is an independent uniform draw from a seeded generator), so the first n records of a
 * chunk are a uniform random subset of it: density level of detail is one prefix length per chunk
 * (crowd_grass_density), never a per-blade test.
 *
 * Three geometry tiers share the blade height, the three-blade layout and the width curve:
 *   near: a cluster of three blades, the primary of 4 segments, two secondaries of 2;
 *   mid:  the same three blades (same roots, same orientation), one tapered segment each;
 *   far:  one camera-facing card, 3 x 2/pi (about 1.91) blade widths wide: the mean projected
 *         width of mid's three flat blades over all view directions.
 * Nothing has an alpha-tested hole and nothing fades. Inside a transition band (near->mid
 * [near_band[0], near_band[1]], mid->far [far_band[0], far_band[1]]) each root goes to exactly one
 * tier: its fixed random value against the band's linear blend factor (crowd_grass_tier). One
 * shader program draws all three; the tier is a branch in the vertex stage.
 *
 * Two paths, the same rules and the same pixels:
 *  - GPU (desktop GL 4.3+): a compute pass culls the chunks and writes the visible chunk ids and
 *    the arguments of an indirect dispatch; the dispatch over the visible chunks classifies each
 *    chunk's prefix into three partitions of one id buffer with three atomic counters, which are
 *    the instanceCount of three indirect draws. Nothing is read back. It is the GPU-driven layer
 *    the crowd's GPU path uses (src/gl/gpu_cull.h).
 *  - CPU (GL 3.3, GLES 3.0, WebGL2): the CPU culls the chunks with the same test and writes the
 *    prefixes as a table of entries of up to CROWD_GRASS_BLOCK blades per tier; one instanced draw
 *    per tier reads the table, one instance a group of entries (its mesh holds the group's clusters:
 *    software rasterisers such as SwiftShader pay microseconds per instance); the vertex stage makes
 *    the band decision and collapses roots that belong to another tier (or lie past the prefix)
 *    into degenerate triangles.
 *
 * Culling is skipped (no pass at all, the last frame's results stay valid) when the key is
 * unchanged: camera X, Y, Z, heading, draw distance and budget. Camera pitch and roll are not in the
 * key on purpose: the chunk test is horizontal (a wedge around the heading, widened so that it holds
 * for any pitch, plus a disc under the camera whose radius grows with the camera's height), so
 * pitching does not change which chunks are kept and would only invalidate the cache for nothing.
 * Height is in the key because it sizes that disc. Wind and the draws run every frame.
 *
 * Every function expects the caller's GL context to be current. The frame (crowd_grass_draw) asks
 * the driver nothing: no glGetError, glGet*, readback or query wait (timer results are polled a few
 * frames late without waiting, only with desc.timers). */
#ifndef CROWDBAKE_GRASS_H
#define CROWDBAKE_GRASS_H

#include <stdbool.h>
#include <stdint.h>

#include "gl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The seed's constants: the defaults of crowd_grass_desc. */
#define CROWD_GRASS_DEFAULT_BLADES 2000000u
#define CROWD_GRASS_DEFAULT_EXTENT 220.0f /* half size: a 440 x 440 m field */
#define CROWD_GRASS_DEFAULT_CHUNK 8.0f    /* 55 x 55 = 3,025 chunks */
#define CROWD_GRASS_DEFAULT_FULL_DENSITY 28.0f
#define CROWD_GRASS_DEFAULT_DENSITY_POWER 1.08f
#define CROWD_GRASS_DEFAULT_DENSITY_FALLOFF 5.8f
#define CROWD_GRASS_DEFAULT_MIN_DENSITY 0.012f
#define CROWD_GRASS_MAX_BLADES 16000000u
#define CROWD_GRASS_BLOCK 8 /* blades per entry of the CPU path's block table (grass.vert has it too) */
/* the noise texture (crowd_grass_noise_texture): texels a side, metres one tile covers (it repeats) */
#define CROWD_GRASS_NOISE_SIZE 512u
#define CROWD_GRASS_NOISE_TILE 256.0f

typedef enum crowd_grass_path {
    CROWD_GRASS_PATH_DEFAULT = 0, /* AUTO */
    CROWD_GRASS_PATH_CPU = 1,     /* CPU chunk cull + block table (every platform) */
    CROWD_GRASS_PATH_GPU = 2,     /* compute cull + indirect draws; crowd_grass_create fails where absent */
    CROWD_GRASS_PATH_AUTO = 3,    /* GPU on a desktop GL 4.3+ context, else CPU */
} crowd_grass_path;

/* How crowd_grass_update_fields runs the interaction fields' passes. */
typedef enum crowd_grass_field_passes {
    CROWD_GRASS_FIELDS_DEFAULT = 0,  /* AUTO */
    CROWD_GRASS_FIELDS_FRAGMENT = 1, /* fragment-shader passes into render targets (every platform) */
    CROWD_GRASS_FIELDS_COMPUTE = 2,  /* compute passes on image bindings; crowd_grass_create fails where absent */
    CROWD_GRASS_FIELDS_AUTO = 3,     /* COMPUTE on a desktop GL 4.3+ context, else FRAGMENT */
} crowd_grass_field_passes;

typedef enum crowd_grass_tier {
    CROWD_GRASS_NEAR = 0,
    CROWD_GRASS_MID = 1,
    CROWD_GRASS_FAR = 2,
    CROWD_GRASS_TIERS = 3,
    CROWD_GRASS_NONE = 3, /* past the draw distance */
} crowd_grass_tier;

/* Zero means "default" in every field (listed after each). min_density's default is the seed's
 * 0.012; a negative value asks for no floor (0). */
typedef struct crowd_grass_desc {
    uint32_t blades;             /* 2,000,000; at most CROWD_GRASS_MAX_BLADES */
    float extent;                /* 220 m (half size) */
    float chunk_size;            /* 8 m; 2 * extent / chunk_size is rounded up to whole chunks */
    float full_density_distance; /* 28 m: every blade of a chunk closer than this is drawn */
    float density_power;         /* 1.08 */
    float density_falloff;       /* 5.8 */
    float min_density;           /* 0.012 (negative: 0) */
    float near_band[2];          /* 18, 32 m: near -> mid */
    float far_band[2];           /* 60, 84 m: mid -> far */
    float draw_distance;         /* 220 m: no blade past this horizontal distance */
    float blade_height;          /* 0.55 m: mean height (each blade varies around it) */
    float blade_width;           /* 0.045 m at the root */
    float ground_size;           /* 4000 m: half size of the ground drawn under and around the field (it
                                    follows the camera, so the world has no edge); negative: no ground */
    uint32_t seed;               /* 0 = 1; the same seed gives the same field on every platform */
    crowd_grass_path path;
    bool es;     /* the context is GLES 3.0 / WebGL2 */
    bool debug;  /* glGetError after each pass (a round trip each) */
    bool timers; /* GPU time of the cull + classify passes and of the draws (GL 3.3+ timer queries) */
    /* The interaction fields (crowd_grass_update_fields). Zero: the seed's values. */
    uint32_t trample_resolution; /* 256 texels a side (RGBA8, twice: a ping-pong pair) */
    float trample_extent;        /* 48 m a side (18.75 cm texels), following the focus */
    float trample_hold;          /* 0.15 s: a trail stays at full strength this long after its last stamp */
    float trample_recovery;      /* 0.65 s: then a full-strength trail springs back linearly over this */
    float trample_radius;        /* 0.4 m: the disc one trampler (or agent) presses down */
    uint32_t cut_resolution;     /* 512 texels a side (RGBA8) over the whole field (86 cm texels) */
    float cut_radius;            /* 1.4 m: the mower's disc */
    float cut_height;            /* 0.14: a cut blade's height as a fraction of its own */
    bool no_fields;              /* no trample or cut textures, no samples in the blade shader */
    /* the fields' passes: AUTO (0) compute on desktop GL 4.3+, fragment passes elsewhere */
    crowd_grass_field_passes field_passes;
} crowd_grass_desc;

/* What changes per frame. */
typedef struct crowd_grass_frame {
    float time;          /* seconds, for the wind */
    float wind[2];       /* wind direction (xz) times strength; {0,0}: still air */
    float budget;        /* density multiplier (0, 1]; 0 = 1 */
    float draw_distance; /* 0 = the desc's */
} crowd_grass_frame;

/* The inputs of one interaction-field update (crowd_grass_update_fields). */
typedef struct crowd_grass_fields {
    float dt;               /* seconds since the last update (the trail's hold and recovery); 0: the trails hold */
    bool focus_set;         /* the trample window follows `focus` (xz): the actor, the orbit target */
    float focus[2];         /* else: the ground 18 m ahead of the camera, so the window covers the near tier */
    const float *tramplers; /* xz pairs (metres): what tramples this frame (the actor); NULL: nothing */
    uint32_t trampler_count;
    const crowd_frame *crowd; /* every live agent of this crowd frame inside the window tramples (its
                                 record's position at crowd->time); NULL: none */
    const float *cuts;        /* xz pairs: the mower's discs this frame (never recover); NULL: none */
    uint32_t cut_count;
} crowd_grass_fields;

typedef struct crowd_grass_stats {
    crowd_grass_path path;           /* the path in use */
    uint32_t chunks, chunks_visible; /* visible: at the last pass that ran */
    uint64_t passes_run, passes_skipped;
    bool last_skipped; /* the last crowd_grass_draw's culling was skipped */
    /* blades per tier at the last pass that ran: exact on the CPU path (what the block table
       holds, less the vertex stage's band decision: a CPU estimate of it, see below); on the GPU
       path the counters read back a few frames late (late == true) without stalling */
    uint32_t tier_blades[CROWD_GRASS_TIERS];
    bool late;
    uint32_t draws; /* draw calls issued by the last crowd_grass_draw */
    /* with desc.timers, where timer queries exist (GL 3.3+, GLES with GL_EXT_disjoint_timer_query,
       WebGL2 with EXT_disjoint_timer_query_webgl2): GPU ms from a frame 3 frames ago, never waited
       for (a result not there yet is skipped), negative until a first result. Culling: cull +
       classify (GPU path) or the block table's upload (CPU path), 0 when skipped. Each tier's draw
       (0 when the CPU path had nothing for it) and the ground's; draw: their sum. Five queries a
       frame, and a glFlush after culling's (it waits for nothing): without it a CPU rasteriser
       (llvmpipe) closes the culling query only after the frame's draw calls have run their vertex
       stage, and culling's time holds theirs. On a CPU rasteriser the tiers' timers hold
       rasterisation only: the vertex stage runs inside the draw calls on the CPU. */
    crowd_grass_field_passes field_passes; /* the fields' passes in use: FRAGMENT or COMPUTE */
    bool timers;                           /* desc.timers and the context has timer queries */
    double gpu_cull_ms, gpu_draw_ms;
    double gpu_tier_ms[CROWD_GRASS_TIERS], gpu_ground_ms;
    uint32_t trample_stamps; /* discs stamped into the trample field by the last update (agents included) */
    uint64_t cut_stamps;     /* discs cut since creation */
    float trample_origin[2]; /* the trample window's -x/-z corner after the last update (world metres) */
} crowd_grass_stats;

typedef struct crowd_grass crowd_grass;

/* Makes the field: generates the blade records (deterministic, linear in the blade count), uploads
 * them (16 bytes a blade: 32 MB for 2M) and the three tier meshes, compiles the program(s). Checks GL
 * errors once at the end. Errors: CROWD_ERROR_ARGUMENT (a value out of range: negative sizes,
 * bands out of order, more than CROWD_GRASS_MAX_BLADES), CROWD_ERROR_UNSUPPORTED (path GPU on a
 * context without compute), CROWD_ERROR_GL (no GL context current, a shader, the GPU's texture size, out
 * of memory). */
CROWD_API crowd_result crowd_grass_create(const crowd_grass_desc *desc, crowd_grass **out, crowd_error *error);
CROWD_API void crowd_grass_destroy(crowd_grass *grass);

/* Culls (or skips culling, see the key above) and draws the field and its ground into the bound
 * framebuffer with the scene's camera, sun, hemisphere light and fog. `shadows` (optional): the crowd
 * renderer whose shadow map the field receives when scene->shadows (call after
 * crowd_gl_render_shadows). `frame` may be NULL (still air, full budget). Depth test on, no blending,
 * both faces. Leaves: vertex array 0, program 0, DEPTH_TEST and CULL_FACE enabled, active texture
 * unit 0; units 8..14 hold the field's textures. With debug, returns CROWD_ERROR_GL on a GL error. */
CROWD_API crowd_result crowd_grass_draw(crowd_grass *grass, const crowd_gl_renderer *shadows,
                                        const crowd_gl_scene *scene, const crowd_grass_frame *frame);

/* The interaction fields, in one of two variants of the same passes over the same RGBA8 textures
 * (desc.field_passes; stats.field_passes says which runs):
 *  - FRAGMENT (every context: GL 3.3, GLES 3.0, WebGL2): fragment-shader passes, a render target per
 *    texture (RGBA8, no float render targets needed), the discs drawn as instanced quads and blended;
 *  - COMPUTE (desktop GL 4.3, the default there): one compute dispatch per field; the trample pair's
 *    active texture is bound as a read-only image and the other as a write-only one (two images: a
 *    texel reads its neighbour when the window moves), the cut is read and written in place over the
 *    bounding box of the update's discs only; the discs are culled per 16 x 16 tile and applied in
 *    stamp order with the blend's arithmetic and RGBA8 rounding, so both variants hold the same
 *    texels to within 2/255 in under 0.1 % of the channels (test_grass holds them to that). After
 *    the dispatch a glMemoryBarrier (texture fetch, image access, framebuffer, texture update) makes
 *    the image stores visible to the blades' ordinary texture samples: without it a compute-written
 *    texture can read as its old contents.
 * What the passes do:
 *  - Trample: a ping-pong pair of trample_resolution^2 textures over a trample_extent window that
 *    follows the focus in whole texels. One pass per update reads the active texture (shifted by the
 *    window's move) into the other: RG the bend direction (0.5 = none), B the trail strength, A the
 *    time since the last stamp over the hold (1 = held out). After the hold a trail falls linearly,
 *    a full one to 0 in trample_recovery (RGBA8: the fall is rounded to 1/255 per update, so a trail
 *    is gone up to ~8 % early at 60 Hz). Then every trampler and every agent of `crowd` inside the
 *    window is drawn as one instanced disc (alpha blending: the trail rises towards 1, the age
 *    towards 0, the bend towards the push away from the disc's centre), and the pair swaps. The
 *    blade vertex stage samples only the active texture of the pair: one sample, no mix of two.
 *    At most 16,384 discs an update (agents past that are skipped, nearest first is not promised).
 *  - Cut: one cut_resolution^2 texture over the whole field, never recovering: the mower's discs are
 *    drawn with MAX blending. Blades of every tier over a cut are cut_height of their height (the
 *    seed cuts the near tier; the tiers share height on purpose, so a cut patch does not grow back
 *    when its roots hand off to mid or far).
 * Costs: one trample_resolution^2 pass plus the discs (a walk of crowd->record_count records on
 * the CPU, one position each), and nothing for the cut unless it is cut; the compute variant bins
 * the discs by 16 x 16 texel tile on the CPU first (linear in the discs and the tiles they touch,
 * into a list grown as needed: the one allocation an update may make). On a CPU rasteriser the
 * compute variant is the slower of the two (its image loads are). Leaves: `target`'s framebuffer and
 * viewport (crowd_gl_set_target) bound when it is given, else framebuffer 0 and the viewport of the
 * last field drawn; blending off, program 0, vertex array 0. Call it before the frame's passes that
 * draw (the shadow pass included). With desc.no_fields it does nothing. With debug, returns
 * CROWD_ERROR_GL on a GL error. */
CROWD_API crowd_result crowd_grass_update_fields(crowd_grass *grass, const crowd_gl_renderer *target,
                                                 const crowd_gl_scene *scene, const crowd_grass_fields *fields);

/* Clears the cut field (the meadow grows back at once) and the trails. Not a frame call: it asks GL
 * for the bound framebuffer and viewport and leaves them as they were. */
CROWD_API void crowd_grass_reset_fields(crowd_grass *grass);

/* Paint on the meadow: blades and ground take the colour of an RGBA8 texture covering the square
 * [-world_size / 2, world_size / 2] in x and z (row z = -world_size / 2 first), by its alpha; the
 * paint minigun's floor target is one (the demo's showcase, src/showcase/paint.h). One more sample
 * per fragment. texture 0 or world_size not > 0 (or not finite): no paint. The texture is borrowed:
 * set 0 before deleting it. */
CROWD_API void crowd_grass_set_paint(crowd_grass *grass, uint32_t texture, float world_size);

/* The field's one RGBA noise texture (a GL texture name, owned by the field until
 * crowd_grass_destroy): CROWD_GRASS_NOISE_SIZE^2 RGBA8, mipmapped, GL_REPEAT, one tile over
 * CROWD_GRASS_NOISE_TILE metres of world x/z (texel (0, 0) at the origin; row z first), made at
 * creation from desc.seed (deterministic on every platform, 1 MB). A concern a channel:
 *   R biome zoning: lush grass vs bare soil (16 m and 4 m value noise): the ground's colour and, at
 *     the same world coordinates and through the same formula, the blade roots' colour and height,
 *     so a soil patch grows short grass that matches it; also the wind's gusts (R scrolled
 *     downwind with time);
 *   G patchiness of the ground's colour (1 m); B detail shading (a value a texel, filtered);
 *   A per-blade variation of height and tint (a value a texel) on top of the record's own random.
 * The blade and ground shaders sample nothing else for variation (no noise is computed in them).
 * Other materials may sample it to match the field. Writing into it (glTexSubImage2D) changes the
 * field's look from the next draw: regenerate the mipmaps after writing. */
CROWD_API uint32_t crowd_grass_noise_texture(const crowd_grass *grass);

CROWD_API const crowd_grass_stats *crowd_grass_get_stats(const crowd_grass *grass);

/* The desc with every default filled in (the values crowd_grass_create uses). */
CROWD_API crowd_grass_desc crowd_grass_resolve(const crowd_grass_desc *desc);

/* The fraction of a chunk's blades drawn at horizontal distance `distance` (to the chunk's nearest
 * point): 1 up to full_density_distance, then max(min_density, exp(-falloff * t^power)) with
 * t = (distance - full) / (draw_distance - full) clamped to [0, 1]: continuous, no step.
 * `desc` must be resolved (crowd_grass_resolve). */
CROWD_API float crowd_grass_density(const crowd_grass_desc *desc, float distance, float draw_distance);

/* The tier of a root at horizontal distance `distance` with fixed random value `r` in [0, 1):
 * mid once r < the near band's blend (distance - near_band[0]) / (near_band[1] - near_band[0]),
 * far once r < the far band's blend likewise, CROWD_GRASS_NONE past draw_distance. */
CROWD_API crowd_grass_tier crowd_grass_tier_of(const crowd_grass_desc *desc, float distance, float r,
                                               float draw_distance);

#ifdef __cplusplus
}
#endif

#endif
