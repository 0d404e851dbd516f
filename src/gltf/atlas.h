/* Internal: several base-colour images packed into the one albedo texture an asset carries. */
#ifndef CROWD_GLTF_ATLAS_H
#define CROWD_GLTF_ATLAS_H

#include <stdint.h>

#include "crowdbake/base.h"

/* Texels of edge-extended border round each tile: bilinear filtering and mip levels 1-3 stay inside. */
#define GLTF_ATLAS_GUTTER 8u
/* Widest and tallest atlas: what nearly every GPU and browser samples (WebGL2 promises only 2048). */
#define GLTF_ATLAS_MAX_SIDE 8192u
/* Most copies of one repeating texture laid out in the atlas. */
#define GLTF_ATLAS_MAX_REPEAT 256

/* A texture that repeats (UVs past 0..1) is laid out repeated: `repeat` copies across and down,
 * starting at UV `origin` (whole numbers), so UVs in [origin, origin + repeat] map exactly. */
typedef struct gltf_atlas_tile {
    const uint8_t *rgba; /* the image, rgba8, rows top-down (borrowed) */
    uint32_t width, height;
    uint32_t repeat[2]; /* >= 1 */
    int32_t origin[2];
    uint32_t x, y; /* set by gltf_atlas_pack: the tile's first texel in the atlas */
} gltf_atlas_tile;

typedef struct gltf_atlas {
    uint8_t *rgba; /* crowd_malloc'd; the caller owns it */
    uint32_t width, height;
} gltf_atlas;

/* Packs the tiles (their x, y set) into one atlas no wider or taller than max_side.
 * CROWD_ERROR_LIMIT when they do not fit; CROWD_ERROR_OUT_OF_MEMORY. */
crowd_result gltf_atlas_pack(gltf_atlas_tile *tiles, uint32_t count, uint32_t max_side, gltf_atlas *out,
                             crowd_error *error);

/* A UV of the tile's image (rows top-down as glTF's; within [origin, origin + repeat]) as a UV of
 * the atlas. */
void gltf_atlas_uv(const gltf_atlas *atlas, const gltf_atlas_tile *tile, const float uv[2], float out[2]);

#endif
