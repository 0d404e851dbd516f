/* crowdbake/crowd.h — the crowd runtime: instance state in, draw lists out. No GL here.
 *
 * A crowd holds up to `capacity` instances of one baked asset. Each instance is one 64-byte record
 * (crowd_record) that the vertex shader reads as four vec4 attributes. crowd_update() advances time,
 * sorts instances into a chunk grid, culls and picks levels of detail per chunk (or per instance),
 * and returns a crowd_frame: the draws to issue and the byte ranges of the record array to upload.
 * The renderer (crowdbake/gl.h) is one consumer of that plain data; an engine can be another.
 *
 * Records live in draw order: each chunk drawn on its own has a region of the record array, and the
 * far pool (every last-level chunk) shares one, so each draw is one contiguous range. A region keeps
 * some slack after its records: an instance that walks into another chunk moves alone (O(instances
 * that changed chunk) per update, not a copy of every record); the whole array is laid out afresh
 * only when a region runs out of room nearby or the camera changes which chunks draw together. The
 * coverage policy (per-instance levels) re-sorts by level whenever the order breaks. Callers never
 * see slots: instances are addressed by a dense index 0..count-1 that stays put while records move.
 *
 * Animation phase is not uploaded: the shader computes fract(phase_offset + time * rate), so a
 * crowd that is not changing uploads nothing and keeps animating.
 *
 * Memory: everything is reserved by crowd_create (about 240 bytes per instance of capacity plus
 * per-chunk tables); crowd_update and the setters allocate nothing.
 *
 * Errors: misuse (index out of range, unknown clip, bad values) returns CROWD_ERROR_ARGUMENT and
 * changes nothing. */
#ifndef CROWDBAKE_CROWD_H
#define CROWDBAKE_CROWD_H

#include <stdbool.h>
#include "asset.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The per-instance record, exactly as uploaded (16 floats, 64 bytes). Integer fields are stored as
 * float bit patterns (GLSL floatBitsToUint) so the whole record is one float attribute stream. */
typedef struct crowd_record {
    float position[3];      /* world metres */
    float yaw;              /* radians, rotation about +Y; 0 faces +Z */
    float clip_a;           /* clip index, as a float */
    float offset_a;         /* phase at time 0, [0, 1) */
    float rate_a;           /* cycles per second */
    float scale;
    float clip_b;           /* the clip being faded to (equals clip_a when not fading) */
    float offset_b;
    float rate_b;
    float fade_start;       /* shader time the fade began */
    uint32_t tint;          /* rgba8: the shirt colour (the humanoid) or a tint (other assets) */
    uint32_t variant;       /* packed crowd_variant, see crowd_pack_variant */
    float fade_rate;        /* 1 / fade duration; 0 when no fade is running */
    float reserved;
} crowd_record;

/* An instance's looks. Palette choices index each region's palette (modulo its size). */
typedef struct crowd_variant {
    uint8_t tint[3];        /* rgb */
    uint8_t region_choice[6]; /* palette choice for regions 0..5 (4 bits each when packed) */
    uint8_t accessories;    /* bit a: wears attachment slot a (see gl.h attachments) */
} crowd_variant;

/* variant word: bits 4r..4r+3 = region_choice[r] for r < 6, bits 24..31 = accessories */
CROWD_API uint32_t crowd_pack_variant(const crowd_variant *variant);

typedef enum crowd_lod_policy {
    CROWD_LOD_DISTANCE = 0,       /* per chunk, by distance to the camera (default) */
    CROWD_LOD_SCREEN_COVERAGE = 1 /* per instance, by projected size, with hysteresis and budget */
} crowd_lod_policy;

typedef enum crowd_lod_pivot {
    CROWD_PIVOT_CENTRE = 0,       /* distance to the chunk's centre (default) */
    CROWD_PIVOT_NEAR_EDGE = 1     /* distance to the chunk's nearest point: never under-detailed, but
                                     a 42 m chunk stays at LOD 0 until its centre is 52 m away */
} crowd_lod_pivot;

/* Zeroed fields take the defaults listed. Toggles are int: 0 default, 1 on, -1 off. */
typedef struct crowd_desc {
    const crowd_asset *asset;     /* required; borrowed for the crowd's lifetime */
    uint32_t capacity;            /* instances; 0 = 10,000. Range 1..4,194,304 */
    float world_size;             /* square world centred on the origin, metres; 0 = 420 */
    float chunk_size;             /* grid cell, metres; 0 = 24. >= world_size: one chunk, one draw */
    crowd_lod_policy lod_policy;
    crowd_lod_pivot lod_pivot;
    float lod_distances[CROWD_MAX_LODS - 1]; /* where each LOD ends, metres; zeros = 6, 14, 34, 80 */
    float lod_bias;               /* distances (or coverage) multiplied by this; 0 = 1 */
    float screen_coverage[CROWD_MAX_LODS]; /* per-level minimum coverage (fraction of viewport
                                     height); zeros = the asset's hints, else 0.25, 0.1, 0.04, 0.015, 0 */
    float min_coverage;           /* instances smaller than this are culled; 0 = none */
    float hysteresis;             /* relative dead band for coverage LOD; 0 = 0.1 */
    uint32_t vertex_budget;       /* submitted index references; 0 = unlimited (coverage policy) */
    uint32_t shadow_max_lod;      /* chunks past this LOD cast no shadow; 0 = 2 (use 255 for all;
                                     0 being the default, "LOD 0 only" is not expressible) */
    uint32_t cross_fade_max_lod;  /* chunks past this LOD skip the two-clip path; 0 = 1 (as above) */
    int far_pool;                 /* last-LOD chunks merged into one draw; default on */
    int shadows;                  /* emit shadow flags at all; default on */
} crowd_desc;

/* Camera for one update. Matrices are column-major 4x4 (GL convention, clip = P * V * world). */
typedef struct crowd_view {
    float view[16];
    float projection[16];
    float viewport_height;        /* pixels; only used for reporting coverage in pixels */
} crowd_view;

enum {
    CROWD_DRAW_SHADOW = 1u << 0,     /* also draw in the shadow pass */
    CROWD_DRAW_CROSS_FADE = 1u << 1, /* use the two-clip path */
    CROWD_DRAW_POOL = 1u << 2,       /* the far pool: many chunks, not frustum-culled as a whole */
};

typedef struct crowd_draw {
    uint32_t lod;                 /* index into asset->lods */
    uint32_t first;               /* first record (slot) of the draw */
    uint32_t count;               /* instances */
    uint32_t flags;               /* CROWD_DRAW_* */
} crowd_draw;

typedef struct crowd_range {
    uint32_t first, count;        /* records */
} crowd_range;

typedef struct crowd_stats {
    uint32_t simulated;           /* live instances */
    uint32_t submitted;           /* instances in draws (after chunk culling) */
    uint32_t rasterised;          /* instances whose own bounds meet the frustum; filled by
                                     crowd_count_visible, else 0 */
    uint32_t draws, shadow_draws;
    uint64_t triangles;           /* submitted, colour pass */
    uint64_t shadow_triangles;
    uint64_t bytes_uploaded;      /* this update's upload ranges */
    uint32_t lod_histogram[CROWD_MAX_LODS]; /* submitted instances per level */
    uint32_t chunks_visible, chunks_total;
    uint32_t demoted;             /* coverage policy with a budget: instances below their preferred level */
    bool budget_satisfied;
    uint32_t fades_active;
    /* CPU time of this update, milliseconds: binning into chunks (unless the simulation's step
     * did it), culling and LOD, keeping records in draw order ("gather": the instances that changed
     * chunk moved one by one, or a full re-layout), draws and upload ranges. */
    float ms_bin, ms_lod, ms_gather, ms_output;
} crowd_stats;

/* What an update produced. Pointers stay valid until the next update or destroy. */
typedef struct crowd_frame {
    const crowd_draw *draws;
    uint32_t draw_count;
    const crowd_record *records;  /* the whole record array, in slot order */
    uint32_t record_count;        /* slots in use (drawn or not, slack included); at most
                                     crowd_record_capacity() */
    const crowd_range *uploads;   /* slot ranges whose bytes changed since the previous update */
    uint32_t upload_count;
    float time;                   /* the shader's time uniform */
    crowd_stats stats;
} crowd_frame;

typedef struct crowd crowd;

/* Creates a crowd. All memory is reserved here. */
CROWD_API crowd_result crowd_create(const crowd_desc *desc, crowd **out, crowd_error *error);
CROWD_API void crowd_destroy(crowd *crowd);

/* The resolved settings (defaults filled in). */
CROWD_API const crowd_desc *crowd_settings(const crowd *crowd);

/* Changes LOD/culling settings at run time (everything but asset, capacity, world and chunk size,
 * which are fixed; passing different ones is an error). */
CROWD_API crowd_result crowd_configure(crowd *crowd, const crowd_desc *desc, crowd_error *error);

/* Live instances. Growing revives the instances that were there before (their state is kept) or
 * creates new ones at the origin playing clip 0; shrinking parks the ones past the new count. */
CROWD_API crowd_result crowd_set_count(crowd *crowd, uint32_t count);
CROWD_API uint32_t crowd_count(const crowd *crowd);

CROWD_API crowd_result crowd_set_transform(crowd *crowd, uint32_t index, float x, float y, float z, float yaw);
/* Uniform size, 0.001..1000. A stride-matched locomotion clip keeps its ground speed: its rate is
 * divided by the change, phase-continuously. */
CROWD_API crowd_result crowd_set_scale(crowd *crowd, uint32_t index, float scale);
CROWD_API crowd_result crowd_set_variant(crowd *crowd, uint32_t index, const crowd_variant *variant);

/* Plays `clip` at `rate` cycles per second, cross-fading from what plays now over `fade_seconds`
 * (0: cut). Playing the clip that already plays, or the one a running fade goes to, only changes
 * its rate, phase-continuously (the fade runs on). A record blends two clips at most: asking for
 * a third during a fade first settles on whichever of the two shows more. */
CROWD_API crowd_result crowd_play(crowd *crowd, uint32_t index, uint32_t clip, float rate, float fade_seconds);

/* Puts the playing clip at `phase` (0..1 of its cycle) now; the rate is unchanged. Useful to desync
 * a crowd at spawn, or to pose an instance exactly on a baked frame. */
CROWD_API crowd_result crowd_set_phase(crowd *crowd, uint32_t index, float phase);

/* Sets the ground speed of a locomotion clip: rate = speed / (stride x the instance's scale),
 * changed phase-continuously so planted feet do not jump (crowd_set_scale re-matches the rate for
 * the same ground speed). With stride matching off (crowd_set_stride_matching) the clip plays at
 * its authored rate whatever the speed (the skating baseline). Errors for clips without a stride. */
CROWD_API crowd_result crowd_set_speed(crowd *crowd, uint32_t index, float metres_per_second); /* 0..10,000 */
CROWD_API void crowd_set_stride_matching(crowd *crowd, bool on);

/* Removes an instance by moving the last live instance into its index (indices stay dense). The
 * removed one is parked past the count, state intact. */
CROWD_API crowd_result crowd_remove(crowd *crowd, uint32_t index);

/* Reads an instance's record (a copy). Not safe to call from several threads at once, even though
 * the crowd is const here: after records moved it may rebuild the index map it reads through. */
CROWD_API crowd_result crowd_get(const crowd *crowd, uint32_t index, crowd_record *record);

/* Advances time by dt seconds (non-finite or negative dt: no advance; more than 1024 s: clamped to
 * 1024), rebuilds the grid, culls, picks LODs and produces the frame. */
CROWD_API const crowd_frame *crowd_update(crowd *crowd, float dt, const crowd_view *view);

/* Counts instances of the last frame whose own bounding sphere meets the view frustum (what the
 * GPU will really rasterise) into the frame's stats.rasterised. O(submitted); not part of update
 * so benchmarks can leave it out. */
CROWD_API uint32_t crowd_count_visible(crowd *crowd, const crowd_view *view);

/* Shader time now (seconds; rebased every few minutes to keep float precision, with every
 * instance's phase adjusted so nothing visible changes). */
CROWD_API float crowd_time(const crowd *crowd);

/* The most records a frame's record array can span: the capacity plus the slack that lets instances
 * change chunk without re-sorting the array (about capacity / 8 + 1024). Size GPU instance buffers
 * with this, not with the capacity. */
CROWD_API uint32_t crowd_record_capacity(const crowd *crowd);

/* The instance index stored in a slot (for picking/hit tests against the last frame's records),
 * or UINT32_MAX (slack slots and parked instances). crowd_remove moves records at once, so pick
 * before removing, or after the next update. */
CROWD_API uint32_t crowd_index_of_slot(const crowd *crowd, uint32_t slot);

/* Frustum planes (a x + b y + c z + d >= 0 inside) from projection * view; normalised. */
CROWD_API void crowd_frustum_planes(const float view[16], const float projection[16], float planes[6][4]);

/* ---- crowd_sim: agents that drive a crowd ----------------------------------------------------
 *
 * Steering (wander, scenarios), neighbour separation through a fine grid, obstacle avoidance, and
 * speed -> gait (idle / walk / jog / run) -> stride-matched rate. The simulation walks the crowd's
 * records in slot order (memory order) and rewrites only agents that move (standing agents that
 * show their idle already are not touched).
 *
 * Separation pushes feed a drift velocity of their own that decays at the steering rate: an agent
 * moves by steering plus drift (exactly as one velocity with the pushes added would), but only
 * steering sets its heading, gait and rate, so a jostled walker keeps facing where it walks.
 * Pushes are computed at the end of a step, from where everyone then is, for the next step. */

typedef enum crowd_scenario {
    CROWD_SCENARIO_WANDER = 0,  /* everyone ambles about, some jog or run, some stand */
    CROWD_SCENARIO_STAMPEDE,    /* everyone runs east; the world wraps */
    CROWD_SCENARIO_PARADE,      /* walking lanes around the centre */
    CROWD_SCENARIO_MILL,        /* jogging in a vortex around the centre */
    CROWD_SCENARIO_GATHER,      /* converge on the centre, slow down, cheer */
    CROWD_SCENARIO_COUNT
} crowd_scenario;

typedef struct crowd_obstacle {
    float x, z, radius;         /* a round obstacle (pillar, tree, statue) */
} crowd_obstacle;

typedef struct crowd_sim_desc {
    crowd *target;                        /* required; the crowd whose instances the sim drives */
    crowd_scenario scenario;
    const crowd_obstacle *obstacles;      /* copied; up to 1024 */
    uint32_t obstacle_count;
    int separation;                       /* 0: on up to separation_limit agents; 1: always; -1: never */
    uint32_t separation_limit;            /* 0 = 40,000 */
    float separation_radius;              /* personal space, metres; 0 = 0.7 */
    uint32_t seed;                        /* same seed, same crowd */
} crowd_sim_desc;

typedef struct crowd_sim_stats {
    double ms_step;                       /* the whole step, separation included */
    double ms_separation;                 /* the separation pass (sort and pairs; the step gathers
                                             its input as it goes) */
    uint32_t rewritten;                   /* agents whose record changed */
    bool separation_active;
} crowd_sim_stats;

typedef struct crowd_sim crowd_sim;

CROWD_API crowd_result crowd_sim_create(const crowd_sim_desc *desc, crowd_sim **out, crowd_error *error);
CROWD_API void crowd_sim_destroy(crowd_sim *sim);

/* Sets the crowd's count and places every agent anew (random positions off the obstacles, random
 * looks, a gait that suits the scenario). */
CROWD_API crowd_result crowd_sim_spawn(crowd_sim *sim, uint32_t count);
CROWD_API void crowd_sim_set_scenario(crowd_sim *sim, crowd_scenario scenario);
CROWD_API void crowd_sim_set_separation(crowd_sim *sim, int mode);
CROWD_API void crowd_sim_step(crowd_sim *sim, float dt);
CROWD_API const crowd_sim_stats *crowd_sim_get_stats(const crowd_sim *sim);
CROWD_API const char *crowd_scenario_name(crowd_scenario scenario);

#ifdef __cplusplus
}
#endif
#endif
