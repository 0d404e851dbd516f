/* Internal: the pieces a critter is made of and the capture engine that records them.
 * critter_mesh.c turns posed primitives into vertices; critter_species.c holds the kinds, each a
 * body plan with a parameter profile; critter_kinds.c builds and poses the plans and the species'
 * extra parts; critter.c drives the simulation, finds the loops and assembles the vertex frames. */
#ifndef CROWD_CRITTERS_INTERNAL_H
#define CROWD_CRITTERS_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "crowdbake/critters.h"

#define CRITTER_MAX_PRIMS 40
#define CRITTER_TUBE_MAX 14 /* control points of one tube */
#define CRITTER_POSE_FLOATS (CRITTER_TUBE_MAX * 4)

typedef enum prim_type { PRIM_ELLIPSOID, PRIM_TUBE } prim_type;

/* Fixed for the whole capture: what a primitive is and how finely it is meshed. */
typedef struct prim_shape {
    prim_type type;
    uint16_t part;
    int lat, lon;             /* ellipsoid: rings between the poles, vertices per ring */
    int points, sub, ring;    /* tube: control points, rings per span, vertices per ring */
    uint8_t color[4], alt[4]; /* tube spans alternate colour and alt when `stripes` */
    int stripes;
    float side[3]; /* tube: a direction roughly across its first span (starts its ring frames) */
} prim_shape;

/* Per frame. Ellipsoid: centre (0..2) and three semi-axis vectors (3..11), axis 1 through the poles.
 * Tube: control point k at 4k (xyz) and its radius at 4k+3. */
typedef struct prim_pose {
    float v[CRITTER_POSE_FLOATS];
} prim_pose;

/* A xorshift-style generator with splitmix seeding: tiny, and the same on every platform. */
typedef struct critter_rng {
    uint64_t state;
} critter_rng;

void critter_rng_seed(critter_rng *rng, uint64_t seed);
double critter_rng_unit(critter_rng *rng);                        /* [0, 1) */
double critter_rng_range(critter_rng *rng, double lo, double hi); /* [lo, hi) */

/* ---- species: a body plan and a parameter profile (critter_species.c has one row per kind) ---- */

/* A range the build draws one value from. {0, 0} keeps the plan's own range: the plan kinds (blob,
 * quad, tube) leave every range at {0, 0}, so their draws and their arithmetic stay what they were. */
typedef struct critter_range {
    double lo, hi;
} critter_range;

/* Switches a species may throw on its plan; none keeps the plan as it is. */
enum critter_feature {
    FEAT_NO_TUFT = 1 << 0,     /* blob: the tuft sinks into the body */
    FEAT_NO_EARS = 1 << 1,     /* quad: the ears are nubs held still (the species draws its own, or none) */
    FEAT_STRIPES = 1 << 2,     /* quad: the tail always striped */
    FEAT_PLAIN = 1 << 3,       /* quad: the tail never striped; tube: the body never striped */
    FEAT_DROOPY_EARS = 1 << 4, /* quad: the ears hang down the sides of the head */
    FEAT_DARK_HEAD = 1 << 5,   /* quad: head and snout in the trim colour */
    FEAT_DARK_LEGS = 1 << 6,   /* quad: legs in the trim colour */
    FEAT_SPRAWL = 1 << 7,      /* quad: feet planted wide of the hips */
    FEAT_LONG_LEGS = 1 << 8,   /* tube: the prolegs reach out sideways */
    FEAT_ARCH = 1 << 9,        /* tube: the middle arches up off the ground, legless */
};

/* The plans' draws, in the order they draw them (critter_kinds.c), and a few fixed values that the
 * plan kinds keep at their defaults (0 = the plan's own value). */
typedef struct blob_profile {
    critter_range body, tall, deep;       /* half-width; height and depth as multiples of it */
    critter_range leg, hips, leg_r, foot; /* leg length, hip spread (of the half-width), radius, foot length */
    critter_range arm, arm_r, eye, tuft;  /* arm length and radius, eye (of the half-width), tuft length */
    critter_range hue, sat, val, accent;  /* body colour; the feet's hue offset from it */
    double feet_sv[2];                    /* the feet's saturation and value (0.6, 0.55) */
    double eyes_at[3];                    /* where the eyes sit on the body (0.38, 0.4, 0.85) */
    critter_range speed;                  /* walking speed, m/s (0.45..0.7) */
} blob_profile;

typedef struct quad_profile {
    critter_range body, wide, tall;              /* half-length; width of it; height of the width */
    critter_range leg, leg_r, neck, head, snout; /* snout of the head */
    critter_range ear, tail, hue, sat, val;      /* ear and tail lengths; body colour */
    critter_range speed;                         /* walking speed per 0.3 m of leg (0.7..1.0) */
    double snout_sv[2], trim_sv[2];              /* snout (0.25, 0.95); paws, ears (0.5, 0.3) */
    double neck_rise;                            /* head height over the neck's base, in necks (0.8) */
    double ear_r, tail_r;                        /* ear radius in heads (0.22), tail radius in legs (0.9) */
    double tail_stiff;                           /* the tail's pull back to its rest line per step (0.04) */
    double sprawl;                               /* FEAT_SPRAWL: feet out at this many hip widths */
} quad_profile;

typedef struct tube_profile {
    critter_range segments, spacing, radius, head, antenna; /* head of the radius */
    critter_range hue, sat, val, accent, accent_s;          /* body colour; the stripes' hue offset */
    critter_range speed;                                    /* crawling speed, m/s (0.12..0.2) */
    double accent_v;                                        /* the stripes' value (0.5) */
    double eye;                                             /* eye radius in heads (0.28) */
    double legs;                                            /* FEAT_LONG_LEGS: reach in body radii */
    double arch;                                            /* FEAT_ARCH: height in body radii */
} tube_profile;

/* Extra primitives a species adds to its plan, posed every frame from a host ellipsoid (no RNG):
 * beaks, bellies, horns, hats, humps, trunks, shells, spots. */
typedef enum critter_extra_type {
    EXTRA_NONE,
    EXTRA_BUMP, /* an ellipsoid set into the host, its poles along the host's outward direction */
    EXTRA_HORN, /* a tapering tube growing out of the host: a horn, a hat, a trunk, a mane */
} critter_extra_type;

typedef enum critter_paint { PAINT_BODY, PAINT_ACCENT, PAINT_TRIM, PAINT_RGB } critter_paint;

/* Hosts: the plan's body (blob and quad; the tube's is its first segment), head and snout (the
 * blob's are its body; the tube has no snout: its head), an earlier extra of the same species, or
 * a tube segment as a sphere of its radius (past the last: the last). */
#define HOST_BODY 0
#define HOST_HEAD 1
#define HOST_SNOUT 2
#define HOST_EXTRA(k) (16 + (k))
#define HOST_SEGMENT(k) (32 + (k))
#define HOST_TAIL HOST_SEGMENT(99)

typedef struct critter_extra {
    critter_extra_type type;
    int host;
    int count;    /* 0 or 1: one; 2: a pair mirrored across x; more: spots over the host's upper half */
    double at[3]; /* where: a direction in the host's frame (x right, y up, z forward) */
    double out;   /* how far along it, in host radii (1: on the surface) */
    /* bump: radii across, out (its poles) and the third way; horn: length, base and tip radius; all
     * in host radii (the mean of the host's three) */
    double size[3];
    double dir[3];  /* horn: the way it grows, in the host's frame */
    double bend[3]; /* horn: added along its length squared, so it curves */
    critter_paint paint;
    uint32_t rgb; /* PAINT_RGB: 0xRRGGBB */
} critter_extra;

#define CRITTER_MAX_EXTRAS 4

typedef struct critter_species {
    const char *name; /* lower case, one token */
    crowd_critter_kind plan;
    const char *summary;
    unsigned features; /* enum critter_feature */
    union {
        blob_profile blob;
        quad_profile quad;
        tube_profile tube;
    };
    critter_extra extras[CRITTER_MAX_EXTRAS];
} critter_species;

/* The row of `kind`, which must be within the enum. */
const critter_species *critter_species_of(crowd_critter_kind kind);

/* The simulation of one kind: built once per capture from the RNG, reset per clip, stepped at a
 * fixed dt, posed at the end of every captured frame. */
typedef struct critter_sim critter_sim;

typedef struct critter_kind_ops {
    /* Builds the look from the RNG and fills shapes; returns the number of primitives. */
    int (*build)(critter_sim *sim, critter_rng *rng, prim_shape *shapes);
    /* Starts clip `clip` (0 idle, 1 walk, 2 run) from rest. */
    void (*reset)(critter_sim *sim, int clip);
    void (*step)(critter_sim *sim, double dt);
    /* Poses every primitive in world space; root[] receives the body's ground position. */
    void (*pose)(const critter_sim *sim, prim_pose *poses, double root[3]);
    /* Loop lengths worth searching for `clip`, in seconds. */
    void (*loop_range)(const critter_sim *sim, int clip, double *shortest, double *longest);
} critter_kind_ops;

const critter_kind_ops *critter_ops(crowd_critter_kind kind);
critter_sim *critter_sim_new(crowd_critter_kind kind);
void critter_sim_set_fps(critter_sim *sim, double fps);
void critter_sim_delete(critter_sim *sim);

/* Mesh: counts for the shapes, the fixed triangles and part/colour streams, and the vertices of
 * one posed frame (in the order the counts promise). */
uint32_t critter_mesh_vertex_count(const prim_shape *shapes, int count);
uint32_t critter_mesh_index_count(const prim_shape *shapes, int count);
void critter_mesh_topology(const prim_shape *shapes, int count, uint32_t *indices, uint16_t *parts, uint8_t *colors);
void critter_mesh_positions(const prim_shape *shapes, const prim_pose *poses, int count, float *positions);
/* Flips the triangles of every primitive whose surface faces inwards in `positions` (frame 0). */
void critter_mesh_orient(const prim_shape *shapes, int count, const float *positions, uint32_t *indices);

#endif
