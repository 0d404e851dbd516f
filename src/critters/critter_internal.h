/* Internal: the pieces a critter is made of and the capture engine that records them.
 * critter_mesh.c turns posed primitives into vertices; critter_kinds.c builds and poses each kind;
 * critter.c drives the simulation, finds the loops and assembles the vertex frames. */
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
