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
 * Kinds (crowd-bake --critter list) are body plans with parameter profiles. Three plans, each also a
 * kind of its own that takes any look its seed draws:
 *   blob   a soft-bodied biped: a squashy egg body on two stubby legs, dangling arms, big eyes
 *   quad   a quadruped: long body, four legs in a trot, neck and head, ears, a springy tail
 *   tube   a crawling tube: a segmented body moved by a wave of steps from tail to head
 *          (a caterpillar's gait), a raised head with spring antennae
 * Every other kind is one of those plans held to narrower ranges (size, proportions, palette) with
 * a few switches and extra parts (beaks, horns, hats, humps, trunks, shells, spots), listed with the
 * enum below; a seed varies a kind within its ranges. Each has the clips idle, walk and run (the
 * names the crowd's gaits look for). */
#ifndef CROWDBAKE_CRITTERS_H
#define CROWDBAKE_CRITTERS_H

#include "bake.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum crowd_critter_kind {
    CROWD_CRITTER_BLOB = 0, /* the blob plan, any colour */
    CROWD_CRITTER_QUAD = 1, /* the quad plan, browns (now and then blue-grey) */
    CROWD_CRITTER_TUBE = 2, /* the tube plan, any colour, striped */
    /* blob plan */
    CROWD_CRITTER_PENGUIN,  /* tall and black, white belly, orange beak and feet, flippers */
    CROWD_CRITTER_FROG,     /* flat and wide, green with dark spots, eyes on top, big feet */
    CROWD_CRITTER_CHICK,    /* small, yellow, orange beak and feet, a tuft */
    CROWD_CRITTER_YETI,     /* big, white, long arms, a blue-grey face */
    CROWD_CRITTER_IMP,      /* small, red, black feet, two horns */
    CROWD_CRITTER_POTATO,   /* squat, brown, spotted, barely any legs */
    CROWD_CRITTER_BEAN,     /* tall and narrow, green, a sprout on top */
    CROWD_CRITTER_GNOME,    /* blue coat, tall red hat, white beard, round nose */
    CROWD_CRITTER_OWL,      /* brown, huge eyes, ear tufts, beak, pale breast */
    CROWD_CRITTER_MUSHROOM, /* a pale stem under a red cap with white spots */
    CROWD_CRITTER_ALIEN,    /* pale green, huge eyes, thin limbs, antennae */
    /* quad plan */
    CROWD_CRITTER_DOG,       /* golden, floppy ears, black nose */
    CROWD_CRITTER_FOX,       /* orange, pointed snout, white chest, bushy tail */
    CROWD_CRITTER_CAT,       /* small, grey tabby, short face, striped tail */
    CROWD_CRITTER_HORSE,     /* tall, chestnut, long face, dark mane */
    CROWD_CRITTER_GIRAFFE,   /* very tall: long legs and neck, spots, ossicones */
    CROWD_CRITTER_DACHSHUND, /* long and low, red-brown, floppy ears */
    CROWD_CRITTER_PIG,       /* pink, round, short legs, a flat snout */
    CROWD_CRITTER_COW,       /* big, white with black patches, horns */
    CROWD_CRITTER_BEAR,      /* big, dark brown, thick legs, stub tail */
    CROWD_CRITTER_MOUSE,     /* tiny, grey, round ears, long thin tail */
    CROWD_CRITTER_LIZARD,    /* low, green, sprawling legs, long thick tail */
    CROWD_CRITTER_SHEEP,     /* woolly white body, black head and legs */
    CROWD_CRITTER_BUNNY,     /* small, pale, long ears, a puff of a tail */
    CROWD_CRITTER_LLAMA,     /* cream, long upright neck, tall ears */
    CROWD_CRITTER_ELEPHANT,  /* huge, grey, trunk, tusks, big ears */
    CROWD_CRITTER_CAMEL,     /* sandy, long legs, a hump */
    /* tube plan */
    CROWD_CRITTER_CATERPILLAR, /* fat, green with yellow bands, a tail horn */
    CROWD_CRITTER_CENTIPEDE,   /* long, thin, red-orange, long legs, long antennae */
    CROWD_CRITTER_MILLIPEDE,   /* long, dark brown with orange bands, many short legs */
    CROWD_CRITTER_SLUG,        /* short, plain olive, a mantle, eye stalks */
    CROWD_CRITTER_SNAIL,       /* short, beige, a brown spiral shell */
    CROWD_CRITTER_GRUB,        /* fat, short, cream with tan bands, a small head */
    CROWD_CRITTER_SILKWORM,    /* white with grey bands, dark eye spots */
    CROWD_CRITTER_INCHWORM,    /* thin, light green, its middle arched up */
    CROWD_CRITTER_WOOLLYBEAR,  /* fat, rust with black bands */
    CROWD_CRITTER_GLOWWORM,    /* dark, a glowing lantern at the tail */
    CROWD_CRITTER_EARTHWORM,   /* long, thin, pink, a saddle band, tiny eyes */
    CROWD_CRITTER_KIND_COUNT
} crowd_critter_kind;

/* The kind's name: the enumerator's suffix in lower case ("blob", "penguin", "woollybear"); NULL
 * outside the enum. */
CROWD_API const char *crowd_critter_kind_name(crowd_critter_kind kind);
/* One line describing the kind (for --critter list); NULL outside the enum. */
CROWD_API const char *crowd_critter_kind_summary(crowd_critter_kind kind);
/* Parses a kind name (exact, lower case); false when unknown. */
CROWD_API bool crowd_critter_kind_parse(const char *name, crowd_critter_kind *kind);
/* The body plan the kind is built on: CROWD_CRITTER_BLOB, _QUAD or _TUBE (a plan kind is its own
 * plan); CROWD_CRITTER_KIND_COUNT outside the enum. */
CROWD_API crowd_critter_kind crowd_critter_kind_plan(crowd_critter_kind kind);

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

/* Parses "KIND", "KIND:SEED" (SEED decimal digits, default 1) or a recorded source name exactly as
 * a capture writes it ("critter KIND seed=N fps=F"). False when malformed; no spaces are skipped
 * anywhere ("blob: 1" and "blob:1 " are both refused). */
CROWD_API bool crowd_critter_parse(const char *text, crowd_critter_desc *desc);

#ifdef __cplusplus
}
#endif
#endif
