/* Internal: sizing the 2D textures that hold a linear run of texels. */
#ifndef CROWD_BAKE_LAYOUT_H
#define CROWD_BAKE_LAYOUT_H

#include "crowdbake/base.h"

/* Chooses width x height for `texels` texels, row after row. Starts from `requested_width`
 * (narrowed to `texels` when one row holds them all) and doubles the width while the height would
 * exceed CROWD_MAX_TEXTURE_DIM; fails with CROWD_ERROR_LIMIT when even the widest texture is too
 * small. `what` names the texture in the message. */
crowd_result crowd_layout_texture(uint64_t texels, uint32_t requested_width, const char *what, uint32_t *width,
                                  uint32_t *height, crowd_error *error);

#endif
