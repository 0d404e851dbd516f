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
 * coverage policy (per-instance levels) keeps records grouped by level: the instances that change
 * level move (a full re-sort by level and chunk only when many do). Callers never
 * see slots: instances are addressed by a dense index 0..count-1 that stays put while records move.
 *
 * Nor is a steady walker's position: the record holds a reference position, time and ground
 * velocity, and the shader extrapolates (crowd_record_position).
 *
 * Animation phase is not uploaded: the shader computes fract(phase_offset + time * rate) (a
 * looping clip) or clamp(phase_offset + time * rate, 0, 1) (a clip played once, which then holds
 * its last frame; crowd_play_once), so a crowd that is not changing uploads nothing and keeps
 * animating.
 *
 * The frame, in this order (each step reads what the one before wrote):
 *   1. crowd_sim_step (optional; or the engine's own steering through the setters)
 *   2. crowd_update: time, binning, culling, LOD, draw order, the draw list and upload ranges
 *   3. upload the frame's upload ranges of the record array (crowd_gl_upload, or the engine's own)
 *   4. the shadow pass (draws flagged CROWD_DRAW_SHADOW), then 5. the colour pass (every draw)
 * Setters and crowd_sim_* may be called at any time between updates; the crowd_frame an update
 * returned stays valid (and unchanged, apart from its records, which setters and steps write in
 * place) until the next crowd_update or crowd_destroy. Upload and draw from one update's frame
 * before calling setters again if the GPU must see exactly that frame. Nothing here is
 * thread-safe: one thread calls a crowd and its sim at a time (crowd_get and the other const
 * readers may run concurrently with each other, never with a writer).
 *
 * Records: only the slots inside a draw's [first, first + count) are defined. The rest of
 * [0, record_count) is slack (room for instances that change chunk) or parked instances: its bytes
 * are undefined and may hold anything, NaN included; never read, cull or draw them.
 *
 * Memory: everything is reserved by crowd_create (about 200 bytes per instance of capacity plus
 * per-chunk tables, and 20 bytes per event of crowd_desc.event_capacity; a crowd_sim adds about 100
 * more per instance: its agents and separation scratch); crowd_update, crowd_sim_step and the
 * setters allocate nothing.
 *
 * Costs: crowd_update is O(live instances) (one pass binning them, plus O(instances that changed
 * chunk) of moves, and a full O(instances) re-layout when the camera regroups chunks; events: one
 * more pass with crowd_desc.marker_events on, plus O(one-shots playing), see "Events"); the setters
 * are O(1); crowd_sim_step is one pass over the live agents (plus the separation pass when on).
 *
 * Errors: misuse (index out of range, unknown clip, bad values, or values whose products would
 * make a record non-finite) returns CROWD_ERROR_ARGUMENT and changes nothing; crowd_last_error
 * then says why. No sequence of accepted calls makes a record hold a NaN or an infinity. */
#ifndef CROWDBAKE_CROWD_H
#define CROWDBAKE_CROWD_H

#include <stdbool.h>
#include "asset.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The per-instance record, exactly as uploaded (16 words, 64 bytes: one cache line, four vec4
 * attributes). Words 0-11 are floats, words 12-15 integers (bind them as one uvec4).
 *
 * Motion is extrapolated: the record holds where the instance was at shader time ref_time and its
 * ground velocity, and the shader places it at position + (vx, 0, vz) * (time - ref_time). A steady
 * walker's record therefore never changes: the CPU rewrites a record only when its velocity, clip,
 * rate, scale, yaw or looks change. Read the position with crowd_record_position (the decode the
 * shaders use), never from the position field alone, unless the velocity is zero, and the yaw
 * with crowd_record_yaw.
 *
 * Packing: both clip indices (12 bits each; CROWD_MAX_CLIPS is 4096) and the flags share one word,
 * and the velocity is two IEEE half floats (relative precision 2^-11, |v| <= CROWD_MAX_SPEED;
 * magnitudes under 2^-14 m/s are stored as 0). The CPU moves agents with the stored (rounded)
 * velocity, so what the GPU extrapolates is what the simulation computes.
 *
 * Turns are extrapolated too (CROWD_RECORD_TURN): a turning agent's velocity approaches a desired
 * one d exponentially, v(t) = d + (v0 - d) e^(-k dt) with dt = time - ref_time and v0 the velocity
 * halves, and its position and yaw follow in closed form (docs/format.md "Motion"). While no fade
 * runs clip B's words are free, so a turning record keeps d in offset_b (x) and rate_b (z) and k
 * in fade_start (fade_rate stays 0: no fade runs during a turn; clip B is clip A). Read the
 * position and yaw with crowd_record_position and crowd_record_yaw. */
typedef struct crowd_record {
    float position[3]; /* world metres at shader time ref_time */
    float yaw;         /* radians, rotation about +Y; 0 faces +Z */
    float offset_a;    /* clip A's phase at time 0, [0, 1) */
    float rate_a;      /* cycles per second */
    float scale;       /* uniform */
    float ref_time;    /* shader time at which `position` holds (rebased with the time) */
    float offset_b;    /* clip B: the clip being faded to (equals clip A when not fading); a turning
                          record's desired velocity x (CROWD_RECORD_TURN) */
    float rate_b;      /* a turning record's desired velocity z */
    float fade_start;  /* shader time the fade began; a turning record's rate k, 1/s */
    float fade_rate;   /* 1 / fade duration; 0 when no fade is running (always, while turning) */
    uint32_t clips;    /* bits 0-11 clip A, bits 12-23 clip B, bits 24-31 CROWD_RECORD_* flags */
    uint32_t velocity; /* ground velocity, m/s: x in bits 0-15, z in bits 16-31, IEEE half floats */
    uint32_t tint;     /* rgba8: the shirt colour (the humanoid) or a tint (other assets) */
    uint32_t variant;  /* packed crowd_variant, see crowd_pack_variant */
} crowd_record;

/* Record flags, in the clips word. A held clip plays once: its phase is clamp(offset + time * rate,
 * 0, 1) instead of fract(...). Phase 0..1 spans its frames as for any clip; once the phase reaches
 * 1 the clip shows its last baked frame (frame_count - 1) and stays there, with no interpolation
 * back to frame 0 (a looping clip held this way shows frame n - 1 from phase (n - 1) / n on). A
 * held clip's offset is not wrapped into [0, 1): it is -(start time) * rate, so the phase counts
 * from its start. */
enum {
    CROWD_RECORD_HOLD_A = 1u << 24, /* clip A plays once and holds its last frame */
    CROWD_RECORD_HOLD_B = 1u << 25, /* clip B (the clip a fade goes to) likewise */
    /* the record turns: offset_b, rate_b = the desired velocity d (x, z), fade_start = the rate k
     * (1/s, > 0), fade_rate = 0; the velocity halves are v0, the velocity at ref_time */
    CROWD_RECORD_TURN = 1u << 26,
};
#define CROWD_RECORD_CLIP_MASK 0xFFFu /* a clip index in the clips word */

/* Fastest ground velocity a record holds, m/s, per component (crowd_set_velocity refuses more). */
#define CROWD_MAX_SPEED 10000.0f

/* Clip A (which 0) or clip B (which 1) of a record: (clips >> 12 * which) & CROWD_RECORD_CLIP_MASK. */
CROWD_API uint32_t crowd_record_clip(const crowd_record *record, int which);

/* The record's ground velocity (x, z), m/s, decoded from its half floats exactly as the shaders do:
 * the velocity at ref_time (a turning record's changes with time, see crowd_record_position). */
CROWD_API void crowd_record_velocity(const crowd_record *record, float velocity[2]);

/* Where the record places its instance at shader time `time`, computed as the shaders do (float
 * arithmetic): position + (vx, 0, vz) * (time - ref_time); a turning record (CROWD_RECORD_TURN)
 * position + d dt + (v0 - d) (1 - e^(-k dt)) / k. O(1), reads only. The shaders' exp may differ
 * from the CPU's by a few ulps: a turning record's GPU position is within |v0 - d| 1e-6 / k plus
 * float rounding (about 1e-4 m at 200 m from the origin) of this one. */
CROWD_API void crowd_record_position(const crowd_record *record, float time, float out[3]);

/* The record's yaw at shader time `time`, as the shaders compute it: the yaw field, or for a
 * turning record the direction of its velocity then (atan2(vx, vz) by the polynomial the runtime
 * and the shaders share, about 1e-3 rad from the exact one), or the yaw field while that velocity
 * is slower than 0.05 m/s. O(1), reads only. */
CROWD_API float crowd_record_yaw(const crowd_record *record, float time);

/* Where one clip of a record is at shader time `time`, computed exactly as the vertex shader does
 * (float arithmetic): the two baked frames (absolute rows of the animation textures) and the blend
 * t between them (pose = mix(frame0, frame1, t)). `which` 0 reads clip A, 1 clip B; the cross-fade
 * weight of B is clamp((time - fade_start) * fade_rate, 0, 1) when fade_rate > 0. This is the
 * documented decode for a renderer of one's own; CROWD_ERROR_ARGUMENT for a clip index the asset
 * lacks. */
typedef struct crowd_clip_sample {
    uint32_t frame0, frame1;
    float t;
} crowd_clip_sample;

/* An instance's looks. Palette choices index each region's palette (modulo its size). */
typedef struct crowd_variant {
    uint8_t tint[3];          /* rgb */
    uint8_t region_choice[6]; /* palette choice for regions 0..5 (4 bits each when packed) */
    uint8_t accessories;      /* bit a: wears attachment slot a (see gl.h attachments) */
} crowd_variant;

/* variant word: bits 4r..4r+3 = region_choice[r] for r < 6, bits 24..31 = accessories */
CROWD_API uint32_t crowd_pack_variant(const crowd_variant *variant);

typedef enum crowd_lod_policy {
    CROWD_LOD_DISTANCE = 0,       /* per chunk, by distance to the camera (default) */
    CROWD_LOD_SCREEN_COVERAGE = 1 /* per instance, by projected size, with hysteresis and budget */
} crowd_lod_policy;

typedef enum crowd_lod_pivot {
    CROWD_PIVOT_CENTRE = 0,   /* distance to the chunk's centre (default) */
    CROWD_PIVOT_NEAR_EDGE = 1 /* distance to the chunk's nearest point: never under-detailed, but
                                     a 42 m chunk stays at LOD 0 until its centre is 52 m away */
} crowd_lod_pivot;

/* shadow_max_lod / cross_fade_max_lod: a level (1..CROWD_MAX_LODS - 1), or one of these. */
#define CROWD_MAX_LOD_DEFAULT 0u       /* the field's documented default */
#define CROWD_MAX_LOD_ZERO 0xFFFFFFFEu /* LOD 0 only */
#define CROWD_MAX_LOD_ALL 0xFFFFFFFFu  /* every level (any level >= the asset's count does the same) */
/* hysteresis: a dead band in (0, 1), 0 for the default, or this for none at all. */
#define CROWD_HYSTERESIS_NONE (-1.0f)

/* The level a resolved max-LOD field allows up to (CROWD_MAX_LOD_ALL: every level), and the width a
 * resolved hysteresis or imposter_band stands for (0: none): how a renderer reads the resolved
 * settings (crowd_frame.settings) exactly as the crowd does. */
static inline uint32_t crowd_max_lod_level(uint32_t resolved)
{
    return resolved == CROWD_MAX_LOD_ZERO ? 0u : resolved;
}
static inline float crowd_width_of(float resolved)
{
    return resolved < 0.0f ? 0.0f : resolved; /* CROWD_HYSTERESIS_NONE, CROWD_BAND_NONE */
}

/* Zeroed fields take the defaults listed; crowd_settings returns the desc with defaults filled in
 * and sentinels kept, so it can be edited and passed back to crowd_configure. Toggles are int: 0
 * default, 1 on, -1 off. Every float must be finite; a field out of its range is
 * CROWD_ERROR_ARGUMENT with the reason in the error. */
typedef struct crowd_desc {
    const crowd_asset *asset; /* required; borrowed for the crowd's lifetime */
    uint32_t capacity;        /* instances; 0 = 10,000. Range 1..4,194,304 */
    float world_size;         /* square world centred on the origin, metres; 0 = 420 */
    float chunk_size;         /* grid cell, metres; 0 = 24. >= world_size: one chunk, one draw */
    crowd_lod_policy lod_policy;
    crowd_lod_pivot lod_pivot;
    /* Where each LOD ends, metres: positive, finite, non-decreasing. All zeros = 6, 14, 34, 80,
     * 188, 442, 1039 (each 2.35 x the last). A partly filled array gives its leading entries and
     * is completed from its last given one, each further entry 2.35 x the one before (so a lone
     * [0] = 10 means 10, 23.5, 55.2, ...: it never caps the chain). A zero between given entries
     * is an error. To keep a level forever, give a distance beyond the world. */
    float lod_distances[CROWD_MAX_LODS - 1];
    float lod_bias;                        /* distances (or coverage) multiplied by this; 0 = 1; else > 0 */
    float screen_coverage[CROWD_MAX_LODS]; /* per-level minimum coverage (fraction of viewport
                                     height), finite, >= 0, non-increasing over the asset's levels;
                                     all zeros = the asset's hints, else 0.25, 0.1, 0.04, 0.015, 0 */
    float min_coverage;                    /* instances smaller than this are culled; 0 = none; finite >= 0 */
    float hysteresis;                      /* relative dead band for coverage LOD, in (0, 1); 0 = 0.1;
                                     CROWD_HYSTERESIS_NONE = none */
    uint32_t vertex_budget;                /* submitted index references; 0 = unlimited (coverage policy) */
    uint32_t shadow_max_lod;               /* chunks past this LOD cast no shadow; CROWD_MAX_LOD_DEFAULT = 2,
                                     CROWD_MAX_LOD_ZERO, a level, or CROWD_MAX_LOD_ALL */
    uint32_t cross_fade_max_lod;           /* chunks past this LOD skip the two-clip path;
                                     CROWD_MAX_LOD_DEFAULT = 1, otherwise as shadow_max_lod */
    int far_pool;                          /* last-LOD chunks merged into one draw; default on */
    int shadows;                           /* emit shadow flags at all; default on */
    /* Worker threads for crowd_update's binning and crowd_sim_step (the step, its binning and
     * the separation pass), the calling thread included: 0 = the machine's cores, 1 = none (every
     * pass on the caller's thread), else 2..CROWD_MAX_THREADS. The threads start in crowd_create
     * and stop in crowd_destroy; they run only inside crowd_update and crowd_sim_step, which
     * return when all their work is done (the thread rules above are unchanged: the crowd is
     * still called from one thread at a time, and its callbacks, allocator hooks included, run on
     * the caller's thread). Results are deterministic for a given count: the same seed and calls
     * give the same records, bit for bit, on every run (1 and 2 or more may differ from each other
     * in the simulation's random decisions; binning and separation give the same for every count).
     * A build without threads (CROWD_THREADS off, the wasm build) runs everything on the caller's
     * thread whatever this says. Fixed at creation (crowd_configure keeps it). */
    uint32_t threads;
    /* The imposter level (asset.h, "imposter atlas"): one more level past the asset's last mesh,
     * level asset->lod_count, drawn as one camera-facing card per instance (2 triangles). 0 = on
     * when the asset has an atlas and fewer than CROWD_MAX_LODS mesh levels; 1 = the same, but an
     * asset without one is an error; -1 = off. The distance policy switches to it at
     * lod_distances[lod_count - 1]; the coverage policy below screen_coverage[lod_count - 1] (when
     * that is 0 with imposters on, it becomes screen_coverage[lod_count - 2] / 2.5). */
    int imposters;
    /* Relative width of the hand-off between a mesh level and the cards (coverage: the last mesh
     * level; distance: the level the chain has at the band's near end, see CROWD_DRAW_BAND): the switch T
     * becomes the band [T / (1 + b), T * (1 + b)] in which each instance is drawn by exactly one of
     * the two, the card when crowd_band_random(record) < the blend factor (0 at the band's near
     * end, 1 at its far end; distance: linear in metres, coverage: in log coverage). 0 = 0.15,
     * CROWD_BAND_NONE = a hard switch; else in (0, 1]. See CROWD_DRAW_BAND. */
    float imposter_band;
    /* Marker events (see "Events", after crowd_stats): 1 = each update reports every clip marker an instance
     * crossed; 0 (the default) or -1 = none, and no per-instance work for them. Per-instance work
     * when on: one pass over the live instances (clips without markers cost a compare each). An
     * asset without markers reports none either way. crowd_configure may change it. */
    int marker_events;
    /* Room for events per update (crowd_frame.events): 0 = capacity / 4 + 256; else
     * 1..16,777,216. Events past it are dropped and counted in stats.events_dropped. Fixed at
     * creation (crowd_configure keeps it). */
    uint32_t event_capacity;
} crowd_desc;

#define CROWD_MAX_THREADS 64u

#define CROWD_BAND_NONE (-1.0f)

/* The fixed per-instance value of the imposter hand-off, in [0, 1): a hash of the record's tint and
 * variant words (which stay with an instance; instances that look alike share it). The shaders
 * compute the same bits: h = tint * 0x9E3779B1 ^ variant; h ^= h >> 15; h *= 0x2C1B3C6D;
 * h ^= h >> 12; h *= 0x297A2D39; h ^= h >> 15; value = (h >> 8) / 2^24 (uint32 arithmetic). */
CROWD_API float crowd_band_random(const crowd_record *record);

/* Who culls and picks levels (crowd_view.culling).
 *  - CPU (0, the default): crowd_update culls, picks levels (per chunk, or per instance under the
 *    coverage policy), keeps records in draw order and lists the draws.
 *  - GPU: a GPU pass does that from the records alone (the renderer's GPU-driven path, crowd_gl_cull,
 *    or an engine's own), and crowd_update keeps only what such a pass and the simulation read: time,
 *    finished fades folded, the chunk grid (its per-chunk visibility feeds the simulation's level of
 *    detail; the distance policy also keeps its region layout, which the simulation walks), upload
 *    ranges and slot_instances. The coverage policy's per-instance levels and its sort by level are
 *    skipped, and so is the draw list: the frame has no draws, and stats.submitted, triangles, draws
 *    and lod_histogram stay 0 (the renderer's late GPU stats have them; crowd_count_visible counts 0).
 *    Records stay in the slots they have. Back to CPU, the next update puts them in draw order again.
 * A renderer says which it needs (crowd_gl_view fills the view for crowd_gl's), so a consumer never
 * has to keep the two in step by hand. */
typedef enum crowd_culling {
    CROWD_CULLING_CPU = 0,
    CROWD_CULLING_GPU = 1,
} crowd_culling;

/* Farthest a cull margin may reach, metres per unit of instance scale (crowd_view.cull_margin). */
#define CROWD_MAX_CULL_MARGIN 1000.0f

/* Camera for one update. Matrices are column-major 4x4 (GL convention, clip = P * V * world). */
typedef struct crowd_view {
    float view[16];
    float projection[16];
    float viewport_height; /* pixels; only used for reporting coverage in pixels */
    crowd_culling culling; /* CROWD_CULLING_CPU unless set */
    /* Metres per unit of instance scale added to the radius of every culling sphere, the chunks' and
     * each instance's (crowd_count_visible's too), so that what the caller draws on an instance past
     * its body (attachments: a pole on the head of someone just out of view reaches into it) is
     * culled with it. The body's spheres (the asset's, crowd_clip.cull_*) know nothing of
     * attachments. crowd_gl_view puts the renderer's attachments' reach here; an engine drawing its
     * own passes how far they reach past the clips' culling spheres and the asset sphere, whichever
     * is more. A uniform bound: every instance of the crowd, whether it wears one or not; levels of
     * detail are unchanged. 0 (the default) to CROWD_MAX_CULL_MARGIN. */
    float cull_margin;
} crowd_view;

enum {
    CROWD_DRAW_SHADOW = 1u << 0,     /* also draw in the shadow pass */
    CROWD_DRAW_CROSS_FADE = 1u << 1, /* use the two-clip path */
    CROWD_DRAW_POOL = 1u << 2,       /* the far pool: many chunks, not frustum-culled as a whole */
    /* The draw is at the imposter level (lod == asset->lod_count): cards, not a mesh of asset->lods. */
    CROWD_DRAW_IMPOSTER = 1u << 3,
    /* Distance policy, a chunk inside the imposter hand-off band: the same records are drawn twice,
     * by a mesh level (the band's mesh side: the level the distance chain has at band[0], the last
     * mesh level at most) and by the cards, and each instance must be kept by exactly one: with
     * d the distance from the camera to the record's position, f = clamp((d - band[0]) / (band[1] -
     * band[0]), 0, 1) (crowd_frame.imposter_band), an instance belongs to the card when
     * crowd_band_random(record) < f. The renderer's vertex shaders collapse the others (degenerate
     * triangles), so the triangles submitted count both draws. */
    CROWD_DRAW_BAND = 1u << 4,
};

typedef struct crowd_draw {
    uint32_t lod;   /* index into asset->lods */
    uint32_t first; /* first record (slot) of the draw */
    uint32_t count; /* instances */
    uint32_t flags; /* CROWD_DRAW_* */
} crowd_draw;

typedef struct crowd_range {
    uint32_t first, count; /* records */
} crowd_range;

typedef struct crowd_stats {
    uint32_t simulated;  /* live instances */
    uint32_t submitted;  /* instances in draws (after chunk culling) */
    uint32_t rasterised; /* instances whose own bounds meet the frustum; filled by
                                     crowd_count_visible, else 0 */
    uint32_t draws, shadow_draws;
    uint64_t triangles; /* submitted, colour pass */
    uint64_t shadow_triangles;
    uint64_t bytes_uploaded;                /* this update's upload ranges */
    uint32_t lod_histogram[CROWD_MAX_LODS]; /* submitted instances per level */
    uint32_t chunks_visible, chunks_total;
    uint32_t demoted; /* coverage policy with a budget: instances below their preferred level */
    bool budget_satisfied;
    uint32_t fades_active;
    bool extrapolating; /* some live instance has a velocity: its position changes with time alone,
                           so a renderer that caches per-instance results keys them on the time */
    /* CPU time of this update, milliseconds: binning into chunks (unless the simulation's step
     * did it), culling and LOD, keeping records in draw order ("gather": the instances that changed
     * chunk moved one by one, or a full re-layout), draws and upload ranges. */
    float ms_bin, ms_lod, ms_gather, ms_output;
    uint32_t events;         /* this update's events (crowd_frame.event_count) */
    uint32_t events_dropped; /* events that found no room (crowd_desc.event_capacity): lost */
    uint32_t one_shots;      /* one-shots followed for their finish after this update */
    float ms_events;         /* CPU time of the events, milliseconds */
} crowd_stats;

/* ---- Events: what happened during an update's time step ---------------------------------------
 *
 * crowd_update advances time from t0 (the previous update's frame.time, crowd_time() until this
 * call) to t1 (this frame's time) and reports, as plain data in crowd_frame.events:
 *
 *  - CROWD_EVENT_FINISHED: an instance's one-shot (its latest crowd_play_once) reached its end this
 *    step: phase 1 (phase 0 for a negative rate; such a one-shot starts at phase 0, its end, and
 *    reports in the next update), once. `detail` says what shows then: CROWD_FINISHED_HOLDING (the
 *    clip holds its last frame, as the runtime does until something replaces it) or
 *    CROWD_FINISHED_FADING_OUT (a crowd_play of another clip is fading it out: it finished unseen,
 *    or half seen). A one-shot replaced before its end (a fade away that completed, a cut, a
 *    crowd_play of any clip, crowd_play_once of another: whoever calls, the simulation included),
 *    removed (crowd_remove) or parked (crowd_set_count) reports nothing. Cost: O(one-shots
 *    followed), kept in a list; nothing at all while none plays. A rate of 0 never finishes.
 *  - CROWD_EVENT_MARKER (with crowd_desc.marker_events on): an instance's clip passed one of its
 *    markers (crowdbake/asset.h, crowd_marker): its phase went from before the marker's phase to
 *    at or past it (playing forwards; from after it to at or before it backwards), once per
 *    crossing: a looping clip crosses each marker once per cycle, so one long step can report
 *    several crossings of one marker, each with its own time. A held one-shot crosses each marker
 *    once (a marker at phase 0 lies where a forward one-shot starts: it is not crossed). During a
 *    cross-fade only the clip that shows more reports: the clip faded from until the fade is half
 *    way, the clip faded to from then on, so a walk blending into a run never steps twice. A setter
 *    acts at t0 (crowd_time()): what the step crosses is what the record says from t0 on.
 *
 * `instance` is the instance's index after every call made before the update (crowd_remove moves
 * the last instance into a removed one's index: its events come under the new index); `time` is
 * the shader time of the crossing, in [t0, t1], in this frame's time base (a rebase of the time
 * during the update shifts it with frame.time). The time's rebase loses or doubles no event (the
 * crossings of the step are taken before it), up to the float rounding of the rebased phase
 * offsets: a marker within about 1e-7 of a cycle of where an instance stands at the rebase.
 * Order: the finishes first, then the markers, instance by instance (slot order); one instance's
 * markers are not sorted by time: sort by `time` where the order matters.
 * Room: crowd_desc.event_capacity, reserved at creation (crowd_update allocates nothing); a step
 * with more events keeps the first that fit and counts the rest in stats.events_dropped. */
typedef enum crowd_event_kind {
    CROWD_EVENT_FINISHED = 1,
    CROWD_EVENT_MARKER = 2,
} crowd_event_kind;

enum {
    CROWD_FINISHED_HOLDING = 1,    /* the one-shot shows, held on its last frame */
    CROWD_FINISHED_FADING_OUT = 2, /* a fade to another clip was running at its end */
};

typedef struct crowd_event {
    crowd_event_kind kind;
    uint32_t instance; /* index, as crowd_get takes it */
    uint32_t clip;     /* the one-shot's, or the marker's clip */
    uint32_t detail;   /* FINISHED: CROWD_FINISHED_*; MARKER: the marker, an index into asset->markers */
    float time;        /* shader time of the crossing or the end */
} crowd_event;

/* What an update produced. Pointers stay valid until the next update or destroy. */
typedef struct crowd_frame {
    const crowd_draw *draws;
    uint32_t draw_count;
    const crowd_record *records; /* the whole record array, in slot order */
    uint32_t record_count;       /* slots in use (drawn or not, slack included); at most
                                     crowd_record_capacity() */
    /* Slot ranges to copy: every slot holding a live instance (slot_instances < stats.simulated)
     * whose bytes or owner changed since the previous update, and every slot that stopped holding
     * one (became slack or parked). Slack and parked slots are never drawn, and when they change
     * (a count change or a re-layout moves them) they are not always in the ranges: a copy fed by
     * the ranges alone is exact at every live slot and may differ at the others. */
    const crowd_range *uploads;
    uint32_t upload_count;
    /* Per slot of [0, record_count): the index of the instance whose record it holds, or a value
     * >= stats.simulated for slack and parked slots. At live slots, and where a slot stops being
     * live, it changes only inside upload ranges; a slack or parked slot's value may change outside
     * them, never to a live index. So a consumer can keep a copy fed by the ranges (the GPU path
     * does: per-instance state that follows an instance from slot to slot, and a cull over every
     * live record without walking chunks), treating every value >= stats.simulated as no instance,
     * and filling slots it has never been sent (past the last record_count) from the frame. */
    const uint32_t *slot_instances;
    float time;             /* the shader's time uniform */
    float imposter_band[2]; /* metres: the distance policy's hand-off band (CROWD_DRAW_BAND); 0, 0 without */
    /* The crowd's settings, resolved (crowd_settings): what a GPU pass picks levels by, read from the
     * frame so that the crowd and its renderer can never disagree on them. */
    const struct crowd_desc *settings;
    crowd_culling culling; /* the view's: CROWD_CULLING_GPU frames have no draws */
    float cull_margin;     /* the view's */
    crowd_stats stats;
    /* What happened to instances during this update's time step (see "Events" above):
     * event_count entries, valid until the next update or destroy. */
    const crowd_event *events;
    uint32_t event_count;
} crowd_frame;

typedef struct crowd crowd;

/* The message of the last call on this crowd that was refused (a setter, crowd_set_count,
 * crowd_configure, crowd_get...): code CROWD_ERROR_ARGUMENT and a sentence naming the value and
 * the reason, e.g. "crowd_set_scale: instance 3: the rate would become inf". Code CROWD_OK and an
 * empty message while nothing has been refused. Each refusal overwrites it; successful calls leave
 * it alone. Owned by the crowd, valid until crowd_destroy. NULL for a NULL crowd. */
CROWD_API const crowd_error *crowd_last_error(const crowd *crowd);

/* Most cycles per second a clip may play at (|rate|): higher rates are refused, including rates a
 * setter would derive (crowd_set_speed, crowd_set_scale's re-matching). */
#define CROWD_MAX_RATE 1000.0f
/* Shortest cross-fade, seconds (0 is a cut; anything in (0, this) is refused). */
#define CROWD_MIN_FADE 1e-3f

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

/* Places an instance at (x, y, z) now (crowd_time()), facing yaw; a velocity it has moves it on
 * from there. */
CROWD_API crowd_result crowd_set_transform(crowd *crowd, uint32_t index, float x, float y, float z, float yaw);
/* Ground velocity, m/s (each component within +-CROWD_MAX_SPEED): the instance moves on its own
 * from where it is now, at no CPU cost per frame (the GPU extrapolates; the record is rewritten
 * once, here). Stored as half floats (see crowd_record). Does not turn it or change its clip. */
CROWD_API crowd_result crowd_set_velocity(crowd *crowd, uint32_t index, float vx, float vz);
/* Uniform size, 0.001..1000. A stride-matched locomotion clip keeps its ground speed: its rate is
 * divided by the change, phase-continuously (refused when that rate would pass CROWD_MAX_RATE). */
CROWD_API crowd_result crowd_set_scale(crowd *crowd, uint32_t index, float scale);
CROWD_API crowd_result crowd_set_variant(crowd *crowd, uint32_t index, const crowd_variant *variant);

/* Plays `clip` on a loop at `rate` cycles per second (|rate| <= CROWD_MAX_RATE; negative plays
 * backwards), cross-fading from what plays now over `fade_seconds` (0: cut; else
 * CROWD_MIN_FADE..60). Playing the clip that already plays, or the one a running fade goes to, only
 * changes its rate, phase-continuously (the fade runs on), and makes it loop. A record blends two
 * clips at most: asking for a third during a fade first settles on whichever of the two shows
 * more. Clips wrap whatever their CROWD_CLIP_LOOP flag says (a clip without it jumps back to its
 * first frame): the flag comes from a geometric test at bake time, and a walk that misses it by a
 * hair must not freeze; use crowd_play_once for a one-shot. */
CROWD_API crowd_result crowd_play(crowd *crowd, uint32_t index, uint32_t clip, float rate, float fade_seconds);

/* As crowd_play, but the clip plays once from its first frame and then holds its last frame
 * (CROWD_RECORD_HOLD_A/B in the record). Asked for the clip that already plays, it restarts it.
 * A held clip stays held until crowd_play, or crowd_play_once of another clip, replaces it. The
 * update in which it reaches its end reports it once (CROWD_EVENT_FINISHED, see "Events"). */
CROWD_API crowd_result crowd_play_once(crowd *crowd, uint32_t index, uint32_t clip, float rate, float fade_seconds);

/* Puts the playing clip (clip A) at `phase` (0..1 of its cycle) now; the rate is unchanged. Useful
 * to desync a crowd at spawn, or to pose an instance exactly on a baked frame. */
CROWD_API crowd_result crowd_set_phase(crowd *crowd, uint32_t index, float phase);

/* Sets the ground speed of a locomotion clip: rate = speed / (stride x the instance's scale)
 * (refused when that passes CROWD_MAX_RATE),
 * changed phase-continuously so planted feet do not jump (crowd_set_scale re-matches the rate for
 * the same ground speed). With stride matching off (crowd_set_stride_matching) the clip plays at
 * its authored rate whatever the speed (the skating baseline). Errors for clips without a stride. */
CROWD_API crowd_result crowd_set_speed(crowd *crowd, uint32_t index, float metres_per_second); /* 0..10,000 */
CROWD_API void crowd_set_stride_matching(crowd *crowd, bool on);

/* Removes an instance by moving the last live instance into its index (indices stay dense). The
 * removed one is parked past the count, state intact. */
CROWD_API crowd_result crowd_remove(crowd *crowd, uint32_t index);

/* Reads an instance's record (a copy). Truly const: O(1), reads only (the index map is kept
 * current by every call that moves records), so several threads may read at once while no one
 * writes. */
CROWD_API crowd_result crowd_get(const crowd *crowd, uint32_t index, crowd_record *record);

/* Clip A's (which 0) or clip B's (which 1) phase at shader time `time`, as the shaders compute it:
 * fract(offset + time * rate) for a looping play, clamp(offset + time * rate, 0, 1) for a held one
 * (CROWD_RECORD_HOLD_A/B); a turning record's clip B is clip A (its words hold the turn). The
 * phase crowd_record_sample turns into frames. 0 for a NULL record, `which` not 0 or 1, or a
 * phase that is not finite. O(1), reads only. */
CROWD_API float crowd_record_phase(const crowd_record *record, int which, float time);

/* See crowd_clip_sample above. */
CROWD_API crowd_result crowd_record_sample(const crowd_asset *asset, const crowd_record *record, int which, float time,
                                           crowd_clip_sample *sample);

/* ---- sockets and bones in world space ----------------------------------------------------------
 *
 * "Where is this character's hand?": the world transform of a socket or a bone of an instance,
 * computed on the CPU exactly as the renderer's attachment shader places an attachment (float32,
 * the same operations; docs/format.md "Playback", "Sockets and bones"), so a prop held in code,
 * a particle spawned at a hand or a hit test on a head lines up with what the GPU draws:
 *
 *   skin   = mix(bone texture at frame0, at frame1, t) of clip A (crowd_record_sample: looping,
 *            held one-shots, the frame blend), then mix(skin_A, skin_B, weight) while a cross-fade
 *            runs (weight = clamp((time - fade_start) * fade_rate, 0, 1), fade_rate > 0)
 *   local  = skin * offset      offset: the socket's (crowd_socket.offset), or for a bone the
 *                               bone's bind transform (crowd_bone.bind): the bone's own frame
 *   world  = Y(yaw) * scale * local + position, yaw and position at that time
 *            (crowd_record_yaw, crowd_record_position: a turning record's extrapolated ones)
 *
 * Every output is a 3x4 row-major matrix (12 floats, the convention of crowd_socket.offset):
 * columns 0-2 the socket's axes in world space (scaled by the instance's scale and by whatever
 * the skin does), column 3 its origin in metres. A point q in the socket's space (an attachment's
 * vertex) lands at (m[0] q.x + m[1] q.y + m[2] q.z + m[3], m[4] ..., m[8] ...).
 *
 * The values are the bone texture's (RGBA32F on the GPU, the same floats crowd_asset_bone_matrix
 * reads): the CPU and GPU differ only by float rounding and the GPU's sin/cos/exp, well under
 * 0.1 mm near the origin (tests/test_sockets_gl.c captures the shader's output to prove it).
 * They need the bone texture: an asset baked without bones (VAT only) is refused with
 * CROWD_ERROR_ARGUMENT ("baked without bones: bake with --bones"). No call writes a NaN or an
 * infinity: a transform that would not be finite is refused instead. O(1) per instance (two
 * bone matrices read, four during a cross-fade; one sin and cos); nothing allocates. */

/* The world transform of socket `socket` (< asset->socket_count) of the instance `record` places,
 * at shader time `time` (a crowd_frame's time, or crowd_time()). For a renderer or engine that
 * holds records of its own. CROWD_ERROR_ARGUMENT (and a sentence in *error, which may be NULL) for
 * a NULL argument, an asset without bones, a socket or a record's clip the asset lacks, or a
 * non-finite time or result; `transform` is then left untouched. Reads only: any thread. */
CROWD_API crowd_result crowd_record_socket(const crowd_asset *asset, const crowd_record *record, uint32_t socket,
                                           float time, float transform[12], crowd_error *error);

/* The same for bone `bone` (< asset->bone_count): the bone's own frame in world space (its joint
 * at column 3, its bind-pose axes as the animation turns them), skin * crowd_bone.bind. */
CROWD_API crowd_result crowd_record_bone(const crowd_asset *asset, const crowd_record *record, uint32_t bone,
                                         float time, float transform[12], crowd_error *error);

/* Socket `socket` of instance `index` (< crowd_count) now, at crowd_time(): what the next
 * what the GPU draws of the frame crowd_update returned last (drawn at that time, from the
 * same records), unless a setter changed the instance since. CROWD_ERROR_ARGUMENT for a NULL argument, an index past the count, a socket the asset
 * lacks, an asset without bones; crowd_last_error says why (that message is the only thing these
 * calls write in the crowd: several threads may query at once while no one writes, as long as
 * none is refused). */
CROWD_API crowd_result crowd_socket_transform(crowd *crowd, uint32_t index, uint32_t socket, float transform[12]);

/* Bone `bone` of instance `index` now, as crowd_record_bone; refusals as crowd_socket_transform. */
CROWD_API crowd_result crowd_bone_transform(crowd *crowd, uint32_t index, uint32_t bone, float transform[12]);

/* Bulk forms: socket (or bone) of `count` instances into transforms[12 * i .. 12 * i + 11], the
 * instance indices[i], or with indices NULL the instances 0..count-1 (all live ones: count =
 * crowd_count()). Each entry equals the single call's, bit for bit. The indices are checked before
 * anything is written: an index past the count is refused (naming its position in the list) with
 * nothing written; a later refusal (a non-finite result, which accepted calls never make) may
 * leave some entries written, the others untouched. count 0 does nothing. O(count); with indices
 * NULL and count = crowd_count() the records are read in the order they lie in memory, the
 * cheapest way to ask for everyone. */
CROWD_API crowd_result crowd_socket_transforms(crowd *crowd, const uint32_t *indices, uint32_t count, uint32_t socket,
                                               float *transforms);
CROWD_API crowd_result crowd_bone_transforms(crowd *crowd, const uint32_t *indices, uint32_t count, uint32_t bone,
                                             float *transforms);

/* Advances time by dt seconds (non-finite or negative dt: no advance; more than 1024 s: clamped to
 * 1024), rebuilds the grid, culls, picks LODs and produces the frame, as the view's culling says.
 * Step 2 of the frame (see the top of this header). NULL for a NULL crowd or view, and for a view
 * whose culling or cull_margin is out of range (crowd_last_error says why; nothing changes). */
CROWD_API const crowd_frame *crowd_update(crowd *crowd, float dt, const crowd_view *view);

/* Counts instances of the last frame whose own bounding sphere (their clip's, crowd_clip.cull_*,
 * grown by the view's cull_margin, as culling per instance uses) meets the view frustum (what the
 * GPU will really rasterise) into the frame's stats.rasterised. O(submitted); not part of update
 * so benchmarks can leave it out. 0 for a view out of range. */
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

#ifdef __cplusplus
}
#endif
#endif
