/* Internal: CPU linear blend skinning, the baker's ground truth for every frame. */
#ifndef CROWD_BAKE_SKIN_H
#define CROWD_BAKE_SKIN_H

#include "crowdbake/rig.h"

/* Skins every vertex of `rig` for one frame. Normals and tangents come out unnormalised: the
 * octahedral encoders only need directions, and skipping a square root and three divisions per
 * vertex-frame is a third of the skinning time.
 *   skin:          bone_count column-major 4x4 skinning matrices (crowd_rig_skin_matrices)
 *   rows:          scratch, bone_count * 12 floats
 *   morph_weights: morph_target_count weights, or NULL (morphs are applied before skinning)
 *   bind_tangents: xyzw per vertex, or NULL when no tangents are wanted
 * Outputs vertex_count xyz positions and normals, and xyz tangents when `tangents` is non-NULL. Normals use the blended matrix's 3x3 part, as the bone-mode shader. */
void crowd_skin_frame(const crowd_rig *rig, const float *skin, float *rows, const float *morph_weights,
                      const float *bind_tangents, float *positions, float *normals, float *tangents);

/* Bind-pose tangents (xyz + handedness w) from UVs, or an arbitrary perpendicular of the normal
 * where there are no UVs or they are degenerate. `out` holds 4 floats per vertex. */
crowd_result crowd_compute_tangents(const crowd_rig *rig, float *out, crowd_error *error);

#endif
