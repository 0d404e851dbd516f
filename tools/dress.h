/* Dressing a rig up as a third-party file would be: turned to face another axis or Z up, authored
 * in another unit, lifted or sunk, Blender-style clip names, and the clips real files carry that a
 * crowd must not walk with (a still pose of two keys, a one-shot roll, a cycle without ground
 * contact, a walk cycle written one key short). crowd-export's options and test_own_character
 * build their cases with it, so a user can make the same files. */
#ifndef CROWD_TOOLS_DRESS_H
#define CROWD_TOOLS_DRESS_H

#include <stdbool.h>

#include "crowdbake/asset.h"
#include "crowdbake/rig.h"

typedef struct crowd_dress {
    crowd_axis face;    /* where the character faces afterwards: POS_Z (as it is), NEG_Z, POS_X, NEG_X */
    bool z_up;          /* then turned +90 degrees about X: its up becomes +Z and +Z forward becomes -Y */
    float scale;        /* every length times this (100: centimetres, 39.37: inches); 0 = 1 */
    float lift;         /* moved along its up by this many of the rig's own units before scaling (< 0 sinks) */
    bool blender_names; /* every clip renamed "Armature|Name" (first letter upper case) */
    bool pose;          /* adds "pose": the idle's first frame held for 1 s, written as 2 keys */
    bool roll;          /* adds "roll": a forward roll into a walking stride, 1.2 s, one-shot */
    bool fly;           /* adds "fly": the wave (or idle) cycle 0.6 x the height up, bobbing: no contact */
    bool open_walk;     /* adds "walk_open": the walk cycle without its closing key (needs `fps`) */
    bool root_walk;     /* adds "walk_root": the walk with root motion, 0.72 heights forward per cycle */
    bool seam_walk;     /* adds "walk_seam": the walk drifting sideways by 4 % of the height by its end, so
                           its last pose is a few percent off its first (a sloppy export) */
    bool low_fly;       /* adds "fly_low": the wave cycle bobbing from the ground to 0.5 x the height: its
                           lowest point brushes the ground in about a sixth of the frames (a wing tip) */
    float mesh_unit;    /* the bind mesh written this many times larger and the inverse binds scaled
                           back (a centimetre mesh under a 0.01-scaled armature: 100); the character
                           as skinned is unchanged. 0 = 1 */
    float fps;          /* the export's key rate, for open_walk; 0 = 30 */
} crowd_dress;

/* Dresses `rig` in place (the mesh, binds, rest pose and morph deltas move; the sampler is wrapped
 * and stays owned by the rig). Fails with CROWD_ERROR_ARGUMENT when a clip the extras start from
 * is missing (open_walk, root_walk and seam_walk need a clip matching "walk"), leaving the rig as it was. */
crowd_result crowd_dress_rig(crowd_rig *rig, const crowd_dress *dress, crowd_error *error);

/* Gives every single-colour region `count` more palette choices: its colour in other shades (warm,
 * grey, dark, pale, ...; tools/dress_variants.c). Regions with choices of their own keep them. */
#define CROWD_DRESS_MAX_VARIANTS 8u
crowd_result crowd_dress_variants(crowd_rig *rig, uint32_t count, crowd_error *error);

#endif
