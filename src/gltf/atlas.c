/* Several base-colour images in one texture: shelf packing with edge-extended gutters.
 *
 * An atlas rather than a texture array: the runtime, its shaders (GLSL and the browser's), the
 * imposter bake and the glTF writer all keep one albedo texture, and images of different sizes
 * keep their own resolution (an array resamples every layer to the largest). What an atlas cannot
 * do is wrap: a texture that repeats is laid out repeated over the UV range its vertices use (up to
 * a limit; past it the caller clamps and warns).
 * Each tile is surrounded by a gutter of its own edge texels, so bilinear filtering and the first
 * mip levels never blend a neighbour's colours in. */
#include "gltf/atlas.h"

#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"

static uint32_t tile_width(const gltf_atlas_tile *t)
{
    return t->width * t->repeat[0];
}

static uint32_t tile_height(const gltf_atlas_tile *t)
{
    return t->height * t->repeat[1];
}

static int taller_first(const void *a, const void *b)
{
    const gltf_atlas_tile *x = *(const gltf_atlas_tile *const *)a, *y = *(const gltf_atlas_tile *const *)b;
    uint32_t xh = tile_height(x), yh = tile_height(y), xw = tile_width(x), yw = tile_width(y);
    return xh != yh ? (xh < yh ? 1 : -1) : (xw < yw) - (xw > yw);
}

/* Places the tiles on shelves of a `width`-wide atlas; returns the height used. */
static uint32_t place_on_shelves(gltf_atlas_tile **order, uint32_t count, uint32_t width)
{
    uint32_t x = 0, y = 0, shelf = 0;
    for (uint32_t i = 0; i < count; i++) {
        gltf_atlas_tile *t = order[i];
        uint32_t w = tile_width(t) + 2 * GLTF_ATLAS_GUTTER, h = tile_height(t) + 2 * GLTF_ATLAS_GUTTER;
        if (x + w > width) {
            y += shelf;
            x = shelf = 0;
        }
        t->x = x + GLTF_ATLAS_GUTTER;
        t->y = y + GLTF_ATLAS_GUTTER;
        x += w;
        shelf = h > shelf ? h : shelf;
    }
    return y + shelf;
}

/* Copies a tile (its image repeated as asked) and extends its edge texels into its gutter. */
static void blit_tile(uint8_t *atlas, uint32_t atlas_width, const gltf_atlas_tile *t)
{
    const int g = (int)GLTF_ATLAS_GUTTER, w = (int)tile_width(t), h = (int)tile_height(t);
    for (int y = -g; y < h + g; y++) {
        int sy = (y < 0 ? 0 : y >= h ? h - 1 : y) % (int)t->height;
        uint8_t *row = atlas + ((size_t)(t->y + y) * atlas_width + t->x) * 4;
        for (int x = -g; x < w + g; x++) {
            int sx = (x < 0 ? 0 : x >= w ? w - 1 : x) % (int)t->width;
            memcpy(row + (ptrdiff_t)x * 4, t->rgba + ((size_t)sy * t->width + (size_t)sx) * 4, 4);
        }
    }
}

crowd_result gltf_atlas_pack(gltf_atlas_tile *tiles, uint32_t count, uint32_t max_side, gltf_atlas *out,
                             crowd_error *error)
{
    memset(out, 0, sizeof *out);
    gltf_atlas_tile **order = crowd_malloc(count * sizeof *order);
    if (!order)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "images: the atlas: out of memory");
    uint64_t area = 0;
    uint32_t widest = 0;
    for (uint32_t i = 0; i < count; i++) {
        order[i] = &tiles[i];
        uint64_t w = tile_width(&tiles[i]) + 2 * GLTF_ATLAS_GUTTER, h = tile_height(&tiles[i]) + 2 * GLTF_ATLAS_GUTTER;
        area += w * h;
        widest = (uint32_t)(w > widest ? w : widest);
    }
    qsort(order, count, sizeof *order, taller_first);
    /* the narrowest width that keeps the atlas about square, widened until the height fits */
    uint32_t width = widest, height = 0;
    while ((uint64_t)width * width < area)
        width += width / 8 + 4;
    for (width = (width + 3u) & ~3u; width <= max_side; width = ((width + width / 8) + 7u) & ~3u)
        if ((height = place_on_shelves(order, count, width)) <= max_side)
            break;
    crowd_free(order);
    if (width > max_side)
        return crowd_fail(error, CROWD_ERROR_LIMIT, "images: %u images do not fit one %u x %u atlas", count, max_side,
                          max_side);
    height = (height + 3u) & ~3u;
    if (!(out->rgba = crowd_calloc((size_t)width * height, 4)))
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "images: the %u x %u atlas: out of memory", width, height);
    out->width = width;
    out->height = height;
    for (uint32_t i = 0; i < count; i++)
        blit_tile(out->rgba, width, &tiles[i]);
    return CROWD_OK;
}

void gltf_atlas_uv(const gltf_atlas *atlas, const gltf_atlas_tile *tile, const float uv[2], float out[2])
{
    out[0] = ((float)tile->x + (uv[0] - (float)tile->origin[0]) * (float)tile->width) / (float)atlas->width;
    out[1] = ((float)tile->y + (uv[1] - (float)tile->origin[1]) * (float)tile->height) / (float)atlas->height;
}
