#include "bake/layout.h"

#include "core/error.h"

crowd_result crowd_layout_texture(uint64_t texels, uint32_t requested_width, const char *what, uint32_t *width,
                                  uint32_t *height, crowd_error *error)
{
    const uint64_t max = CROWD_MAX_TEXTURE_DIM;
    if (requested_width == 0 || requested_width > max)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "%s texture width %u outside 1..%u", what, requested_width,
                          CROWD_MAX_TEXTURE_DIM);
    if (texels == 0)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "%s texture would be empty", what);
    if (texels > max * max)
        return crowd_fail(error, CROWD_ERROR_LIMIT,
                          "%s texture needs %llu texels, more than %u x %u: bake fewer frames or vertices", what,
                          (unsigned long long)texels, CROWD_MAX_TEXTURE_DIM, CROWD_MAX_TEXTURE_DIM);
    uint64_t w = requested_width < texels ? requested_width : texels;
    while ((texels + w - 1) / w > max)
        w = w * 2 > max ? max : w * 2;
    *width = (uint32_t)w;
    *height = (uint32_t)((texels + w - 1) / w);
    return CROWD_OK;
}
