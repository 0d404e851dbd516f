/* crowdbake/critters.h — procedurally animated critters, captured as vertex frames.
 *
 * A critter is a small simulation with no skeleton: soft primitives (ellipsoids and swept tubes,
 * each its own part) posed every step by a gait, with springs for the soft and dangling bits. A
 * capture drives it at a fixed timestep from a seeded RNG (the seed picks the look: proportions,
 * colours, limbs, cadence; same kind and seed, same critter, bit for bit), steers it along +Z in a
 * straight line, and records it. For each clip the best loop inside the recording is the window
 * whose last frame best continues into its first, comparing signatures of pose and velocity (every
 * primitive's control points relative to the travelling root, and their step-to-step motion), so
 * the seam does not pop; a walk's stride is the distance the critter actually travelled over that
 * window. The frames are stored in place (the travel removed along the loop's straight line), so
 * they bake with crowd_bake_frames exactly like a rig: the bake measures the stride again from the
 * planted feet, and crowd_verify checks that against the travelled distance.
 *
 * Kinds (crowd-bake --critter list):
 *   blob   a soft-bodied biped: a squashy egg body on two stubby legs, dangling arms, big eyes
 *   quad   a quadruped: long body, four legs in a trot, neck and head, ears, a springy tail
 *   tube   a crawling tube: a segmented body moved by a wave of steps from tail to head
 *          (a caterpillar's gait), a raised head with spring antennae
 * Each has the clips idle, walk and run (the names the crowd's gaits look for). */
#ifndef CROWDBAKE_CRITTERS_H
#define CROWDBAKE_CRITTERS_H

#include "bake.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum crowd_critter_kind {
    CROWD_CRITTER_BLOB = 0,
    CROWD_CRITTER_QUAD,
    CROWD_CRITTER_TUBE,
    CROWD_CRITTER_KIND_COUNT
} crowd_critter_kind;

/* "blob", "quad", "tube"; NULL outside the enum. */
CROWD_API const char *crowd_critter_kind_name(crowd_critter_kind kind);
/* One line describing the kind (for --critter list); NULL outside the enum. */
CROWD_API const char *crowd_critter_kind_summary(crowd_critter_kind kind);
/* Parses a kind name (exact, lower case); false when unknown. */
CROWD_API bool crowd_critter_kind_parse(const char *name, crowd_critter_kind *kind);

typedef struct crowd_critter_desc {
    crowd_critter_kind kind;
    uint32_t seed; /* any value; 0 is a seed like any other */
    float fps;     /* capture rate; 0 = 30. Range 10..120. The simulation steps 4 times per frame */
} crowd_critter_desc;

/* What the capture found for one clip. */
typedef struct crowd_critter_clip_stats {
    uint32_t loop_start;  /* captured frame the loop begins at (after the warm-up) */
    uint32_t loop_frames; /* frames in the loop */
    double seam_max_m;    /* worst vertex distance between the frame after the loop and its first frame */
    double seam_rms_m;    /* the same, root mean square over the vertices */
    double step_rms_m;    /* a typical frame-to-frame vertex motion in the loop, for scale */
    double travelled_m;   /* root distance over the loop: the stride (0 for idle) */
    double speed;         /* metres per second over the loop */
} crowd_critter_clip_stats;

typedef struct crowd_critter {
    crowd_vertex_frames frames; /* the capture, ready for crowd_bake_frames or crowd_frames_dump_write */
    crowd_critter_clip_stats clip_stats[3];
    float height;         /* standing height of the first idle frame, metres */
    char source_name[64]; /* "critter KIND seed=N fps=F": crowd-verify rebuilds the critter from it */
    void *storage;        /* owned */
} crowd_critter;

/* Captures a critter. Deterministic: the same desc gives byte-identical frames. Costs a few
 * milliseconds per captured second; about 1-3k vertices and ~150 frames. On failure nothing is
 * allocated and `critter` is zeroed. */
CROWD_API crowd_result crowd_critter_capture(const crowd_critter_desc *desc, crowd_critter *critter,
                                             crowd_error *error);
CROWD_API void crowd_critter_free(crowd_critter *critter);

/* Parses "KIND", "KIND:SEED" (decimal seed, default 1) or a recorded source name
 * ("critter KIND seed=N fps=F"). False when malformed. */
CROWD_API bool crowd_critter_parse(const char *text, crowd_critter_desc *desc);

#ifdef __cplusplus
}
#endif
#endif
