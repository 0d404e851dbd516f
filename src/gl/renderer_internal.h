/* Internal: the renderer's GL objects, shared by renderer.c (creation, uploads, attachments) and
 * draw.c (the passes). */
#ifndef CROWD_GL_RENDERER_INTERNAL_H
#define CROWD_GL_RENDERER_INTERNAL_H

#include "crowdbake/gl.h"
#include "gl/program.h"

/* Texture units, fixed for every program so no two sampler types ever share one. */
enum crowd_texture_unit {
    UNIT_CLIPS,
    UNIT_VAT_POSITIONS,
    UNIT_VAT_NORMALS,
    UNIT_BONES,
    UNIT_PALETTE,
    UNIT_REGIONS,
    UNIT_SHADOW_MAP,
    UNIT_ALBEDO,
    UNIT_IMPOSTER_CLIPS, /* the imposter program's own (imposter.c) */
    UNIT_IMPOSTER_ALBEDO,
    UNIT_IMPOSTER_NORMALS,
    UNIT_RECORDS, /* the CPU path's cards: the records as a texture (imposter.c) */
};

#define CROWD_GL_MAX_ATTACHMENTS 8
/* 512 records of 4 texels: 2,048 texels, the widest texture WebGL2 guarantees (MAX_TEXTURE_SIZE >= 2048);
   2,048 rows of them hold 1,048,576 records */
#define CROWD_GL_RECORDS_PER_ROW 512u
#define CROWD_GL_RING 3

/* A ring buffer's changed record ranges since it was last written (renderer.c, upload_ring). */
typedef struct crowd_gl_stale {
    crowd_range *ranges; /* unsorted, possibly overlapping; crowd_malloc'd */
    uint32_t count, capacity;
    crowd_range hull; /* of all of them: written instead when the list overflowed */
    bool overflow;
} crowd_gl_stale;
/* Ranges each ring buffer's list holds from creation: a frame of a walking 100k crowd changes
 * ~500, and a buffer sees every third frame, so lists grow (allocate in a frame) only past that. */
#define CROWD_GL_STALE_RESERVE 4096u
#define CROWD_GL_TIMER_SLOTS (CROWD_GL_TIMER_LATENCY + 1)

typedef struct crowd_gl_attachment {
    GLuint vao, positions, normals, indices;
    uint32_t index_count;
    uint32_t bone;
    float offset[16]; /* socket offset (bind-pose model space), column-major */
    float color[3];   /* linear */
    uint32_t accessory_bit, max_lod;
    GLuint uvs, texture; /* 0 without a texture */
    bool tinted;
    float radius;     /* metres from the socket's origin to its farthest vertex, in model space */
    float min_pixels; /* the size test: pixels across */
} crowd_gl_attachment;

/* attachment_reach.c: grows a model-space box to hold the mesh on `socket` on every frame of `clip`
 * (the imposter bake frames tiles with it). */
void crowd_gl_attachment_box(const crowd_asset *asset, const crowd_socket *socket, const float *positions,
                             uint32_t vertex_count, uint32_t clip, float box_min[3], float box_max[3]);

/* renderer.c: the record attributes (locations 8-11, one per instance) on the bound vertex array. */
void crowd_gl_instance_attributes_enable(void);

/* attachment_reach.c: raises reach[k] (clip_count + 1 entries, see crowd_gl_renderer) to how far
 * the mesh on `socket` gets past clip k's culling sphere and past the asset's. O(frames x vertices). */
void crowd_gl_measure_reach(const crowd_asset *asset, const crowd_socket *socket, const float *positions,
                            uint32_t vertex_count, float *reach);

/* The programs of one family (body, attachment, card) a pass draws with: the colour pass's, the
 * shadow pass's depth-only one, or the separate velocity pass's (CROWD_GL_VELOCITY_PASS). */
enum { PROGRAM_COLOUR, PROGRAM_DEPTH, PROGRAM_VELOCITY, PROGRAM_VARIANTS };

struct crowd_gl_renderer {
    crowd_gl_desc desc;
    const crowd_asset *asset;
    crowd_gl_mode mode;
    bool cross_fade;
    int tint_region;

    crowd_program crowd[2][2][PROGRAM_VARIANTS]; /* [bones][cross-fade][variant] */
    crowd_program attachment[PROGRAM_VARIANTS];
    struct crowd_gpu_crowd *gpu; /* the GPU-driven path (gpu_crowd.c); NULL on the CPU path */

    GLuint tex_clips, tex_positions, tex_normals, tex_bones, tex_palette, tex_regions, tex_albedo;
    GLuint shadow_depth, shadow_fbo;
    uint32_t shadow_size;
    bool shadow_shared; /* the map is desc.shadow_source's: not cleared by our pass, not deleted by us */
    float light_view_projection[16];

    GLuint vao;
    GLuint vbo_region, vbo_uv, vbo_color, vbo_position, vbo_normal, vbo_joints, vbo_weights, ibo;
    GLuint instances;           /* the buffer draws read this frame (one of ring[] in RING mode) */
    GLuint ring[CROWD_GL_RING]; /* ring[0] only, except in RING mode */
    uint32_t ring_count, ring_next;
    crowd_gl_stale ring_stale[CROWD_GL_RING]; /* per buffer: the ranges it has not seen yet */
    crowd_gl_upload_mode upload;
    uint32_t capacity;
    bool uploaded;

    /* the framebuffer and viewport after the shadow pass (crowd_gl_set_target) */
    GLuint target_fbo;
    GLint target_viewport[4];

    /* timer queries: [pass][slot], pass 0 shadow, 1 colour; issued[] counts frames per pass */
    bool timers;
    GLenum timer_target;
    GLuint queries[2][CROWD_GL_TIMER_SLOTS];
    uint32_t issued[2];
    bool debug;
    char last_error[512]; /* as crowd_error.message */

    crowd_gl_attachment attachments[CROWD_GL_MAX_ATTACHMENTS];
    uint32_t attachment_count;
    /* metres per unit scale the attachments reach past clip k's culling sphere ([k]) and past the
       asset sphere ([clip_count]), never negative; NULL until the first attachment */
    float *attachment_reach;

    crowd_gl_stats stats;

    /* the imposter level (imposter.c): program, atlases, per-clip boxes; program.id 0 without */
    crowd_program imposter[PROGRAM_VARIANTS]; /* colour and velocity (no depth-only one) */
    GLuint imposter_vao, tex_imposter_clips, tex_imposter_albedo, tex_imposter_normals;
    GLuint imposter_indices;       /* the CPU path's cards: 6 indices per card over 4 corners (imposter.c) */
    uint32_t imposter_index_cards; /* cards the index buffer spans */
    /* The CPU path's cards read their records from a texture (RGBA32UI, CROWD_GL_RECORDS_PER_ROW
       records of 4 texels a row), so that one non-instanced draw of 6 vertices per card replaces an
       instanced one: SwiftShader runs every instance as a draw of its own (docs/performance.md).
       The rows holding changed records are written from the frame's records in client memory: a
       copy from the instance buffer (pixel unpack) of an integer format is done on the CPU by ANGLE
       anyway, behind a performance warning, and it copied every row. */
    GLuint tex_records;
    uint32_t records_rows;             /* the texture's height */
    uint32_t records_count;            /* records in the frame of the last upload */
    const crowd_record *frame_records; /* that frame's records (valid until the next crowd_update) */
    crowd_range records_stale;         /* hull of the records changed since the texture was written */
    bool output_normals;               /* the imposter bake's normal pass (lit.frag u_output) */

    /* far-shadow blobs on the CPU path (blob_shadow.c): program and an empty vertex array */
    crowd_program blob;
    GLuint blob_vao;

    /* motion vectors (velocity.c; crowd_gl_desc.velocity): the colour pass's "a frame earlier",
       resolved by crowd_gl_draw, and the last pass's own camera and time, kept for the next */
    bool velocity;         /* MRT: the colour programs write it */
    bool velocity_pass;    /* PASS: the renderer has velocity programs (crowd_gl_draw_velocity) */
    bool drawing_velocity; /* inside crowd_gl_draw_velocity: the colour pass's draws use them */
    float previous_view_projection[16], previous_camera[3], previous_time, velocity_scale[2];
    float kept_view_projection[16], kept_camera[3], kept_time;
    bool kept;
    bool output_positions; /* tests: world positions now (colour 0) and then (output 1), output.glsl */
};

/* velocity.c: the previous camera and time from the scene (or the kept ones), before the draws of
 * the pass that writes velocity (the colour pass with MRT, crowd_gl_draw_velocity with PASS);
 * keeping that pass's for the next, after them; a program's uniforms (begin_program). Nothing in a
 * pass that writes none. No GL call but the uniforms. */
void crowd_gl_velocity_begin(crowd_gl_renderer *r, const crowd_frame *f, const float view_projection[16],
                             const crowd_gl_scene *scene);
void crowd_gl_velocity_end(crowd_gl_renderer *r, const crowd_frame *f, const float view_projection[16],
                           const crowd_gl_scene *scene);
bool crowd_gl_velocity_written(const crowd_gl_renderer *r);
void crowd_gl_velocity_uniforms(const crowd_gl_renderer *r, const GLint *uniforms);
/* A program variant's #define lines: DEPTH_ONLY, the velocity pass's, or the colour programs'
 * (VELOCITY with MRT, INVARIANT_POSITION with PASS, else none); NULL for a variant this renderer
 * does not build. */
const char *crowd_gl_variant_defines(const crowd_gl_renderer *r, int variant);
/* The variant the family's draws use now: depth in the shadow pass, velocity inside
 * crowd_gl_draw_velocity, else colour. */
int crowd_gl_program_variant(const crowd_gl_renderer *r, bool shadow);

/* imposter.c: creation (nothing for an asset without an atlas), release, and the colour pass's
 * cards (draws flagged CROWD_DRAW_IMPOSTER); draw.c calls it. */
crowd_result crowd_gl_imposter_create(crowd_gl_renderer *r, crowd_error *error);
void crowd_gl_imposter_destroy(crowd_gl_renderer *r);
/* The card program's state for a draw: begin_program, atlas textures and grid uniforms, band off
 * (the GPU-driven path binds its own card program through this too). */
void crowd_gl_imposter_begin(crowd_gl_renderer *r, const crowd_program *p, const crowd_frame *f,
                             const float view_projection[16], const crowd_gl_scene *scene);
void crowd_gl_imposter_draw(crowd_gl_renderer *r, const crowd_frame *f, const float view_projection[16],
                            const crowd_gl_scene *scene);

/* imposter.c: the records texture (created on first use) brought up to date with the instance buffer
 * (a GPU copy, only when it changed) and bound on UNIT_RECORDS; the cards and the blobs read it. */
void crowd_gl_records_bind(crowd_gl_renderer *r);

/* blob_shadow.c: the far shadows (crowd_gl_far_shadow): creation, release, the blobs (after the
 * caller's ground: crowd_gl_draw_far_shadows; on the GPU-driven path it hands over to crowd_gpu_blob_draw), and
 * the blob program's state for a draw and its undoing (the GPU path's program goes through them too). */
crowd_result crowd_gl_blob_create(crowd_gl_renderer *r, crowd_error *error);
void crowd_gl_blob_destroy(crowd_gl_renderer *r);
void crowd_gl_blob_draw(crowd_gl_renderer *r, const crowd_frame *f, const float view_projection[16],
                        const crowd_gl_scene *scene);
void crowd_gl_blob_begin(const crowd_gl_renderer *r, const crowd_program *p, const crowd_frame *f,
                         const float view_projection[16], const crowd_gl_scene *scene);
void crowd_gl_blob_end(void);

/* renderer.c: points the instance attributes (locations 8..11) at record `first`. */
void crowd_gl_bind_instances(const crowd_gl_renderer *r, uint32_t first);

/* renderer.c: with desc.debug, checks for a GL error after `where` and keeps the message. */
crowd_result crowd_gl_debug_check(crowd_gl_renderer *r, const char *where);

/* draw.c: begin/end a pass's timer query (nothing without timers), and reads results that are
 * CROWD_GL_TIMER_LATENCY frames old. */
void crowd_gl_timer_begin(crowd_gl_renderer *r, int pass);
void crowd_gl_timer_end(crowd_gl_renderer *r, int pass);

/* draw.c: the lighting uniforms of lit.frag (camera, sun, hemisphere, fog, the shadow map's light and
 * texel, output), from the scene and this renderer's last shadow pass: every lit program of the
 * renderer's, and the showcase's ground and props, which draw with the crowd's light. */
void crowd_gl_lighting_uniforms(const crowd_gl_renderer *r, const GLint *uniforms, const crowd_gl_scene *scene);

/* The camera's world position from a view matrix [R | t] (column-major): -R^T t. */
static inline void crowd_gl_eye_of(const float view[16], float eye[3])
{
    for (int i = 0; i < 3; i++)
        eye[i] = -(view[i * 4] * view[12] + view[i * 4 + 1] * view[13] + view[i * 4 + 2] * view[14]);
}

#endif
