/* Colour variants for a character whose file has none: each single-colour region gets extra palette
 * choices, its authored colour times a coat of a few natural shades. The sim's random looks pick
 * one per region and instance, so a crowd of one character does not look cloned; glTF files carry
 * them as the material's crowdbake_palette extras (crowd_gltf_write). */
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "dress.h"

/* Multipliers of the authored colour, warm to dark: fur, hide, cloth and paint all read as the
 * same material in another shade. */
static const float coats[CROWD_DRESS_MAX_VARIANTS][3] = {
    {1.00f, 0.80f, 0.62f}, {0.72f, 0.72f, 0.78f}, {0.52f, 0.42f, 0.36f}, {1.00f, 0.96f, 0.88f},
    {0.85f, 0.55f, 0.38f}, {0.40f, 0.38f, 0.40f}, {0.90f, 0.88f, 0.70f}, {0.62f, 0.50f, 0.60f},
};

crowd_result crowd_dress_variants(crowd_rig *rig, uint32_t count, crowd_error *error)
{
    if (count < 1 || count > CROWD_DRESS_MAX_VARIANTS)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "dress: %u variants, expected 1..%u", count,
                          CROWD_DRESS_MAX_VARIANTS);
    for (uint32_t g = 0; g < rig->region_count; g++) {
        crowd_rig_region *region = &rig->regions_info[g];
        if (region->palette_count != 1)
            continue; /* the file's own choices stay */
        uint8_t(*palette)[4] = crowd_malloc((size_t)(1 + count) * 4);
        if (!palette)
            return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "dress: out of memory");
        memcpy(palette[0], region->palette[0], 4);
        for (uint32_t k = 0; k < count; k++) {
            for (int c = 0; c < 3; c++)
                palette[1 + k][c] = (uint8_t)(region->palette[0][c] * coats[k][c] + 0.5f);
            palette[1 + k][3] = region->palette[0][3];
        }
        crowd_free(region->palette);
        region->palette = palette;
        region->palette_count = 1 + count;
    }
    return CROWD_OK;
}
