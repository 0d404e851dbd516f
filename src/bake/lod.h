/* Internal: index-only LOD levels that share the full mesh's vertices (and therefore the one
 * animation texture: an LOD costs an index buffer, not animation memory). */
#ifndef CROWD_BAKE_LOD_H
#define CROWD_BAKE_LOD_H

#include "crowdbake/asset.h"

typedef struct crowd_lod_chain {
    uint32_t *indices; /* every level's triangles, concatenated; malloc'd */
    uint32_t index_count;
    uint32_t level_count;
    crowd_lod levels[CROWD_MAX_LODS];
} crowd_lod_chain;

/* The mesh a chain is built from (every pointer borrowed). */
typedef struct crowd_lod_mesh {
    const float *positions, *normals; /* xyz per vertex; normals unit */
    const uint16_t *parts;            /* part per vertex, or NULL (see crowd_build_lod_chain) */
    uint32_t vertex_count;
    const uint32_t *indices; /* triangles */
    uint32_t index_count;
} crowd_lod_mesh;

/* Builds `level_count` levels with about ratios[l] of the triangles each (ratios[0] = 1: the
 * original triangles, reordered for the vertex cache).
 *
 * Vertices at the same position are welded first (seams and flat shading split vertices of one
 * surface point), then each connected component of the welded mesh (a body part, a limb) is
 * simplified on its own with meshoptimizer's edge-collapse simplifier, so separate parts never
 * weld and every part keeps at least a few triangles; each kept corner then takes the twin whose
 * normal best matches its face; where edge collapse cannot get near the target, the component falls back to
 * clustering (meshopt_simplifySloppy). Degenerate triangles and triangles whose winding disagrees
 * with the vertex normals are dropped. Triangle counts never increase from level to level.
 * `parts` (per vertex, or NULL) keeps vertices of different parts apart in the weld: a frames
 * capture's limb that touches the body in frame 0 still simplifies on its own. */
crowd_result crowd_build_lod_chain(const crowd_lod_mesh *mesh, const float *ratios, uint32_t level_count,
                                   crowd_lod_chain *out, crowd_error *error);

/* Takes authored levels (glTF MSFT_lod) as they are, reordered for the vertex cache. Level l is
 * counts[l] indices from firsts[l] in `indices`; `coverage` may be NULL. */
crowd_result crowd_lod_chain_from_authored(const uint32_t *indices, const uint32_t *firsts, const uint32_t *counts,
                                           const float *coverage, uint32_t level_count, uint32_t vertex_count,
                                           crowd_lod_chain *out, crowd_error *error);

void crowd_lod_chain_free(crowd_lod_chain *chain);

#endif
