/* Regions (one per material the character uses) and the one albedo texture an asset carries: the
 * material's image, or an atlas of the images when the materials use several (gltf/atlas.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/error.h"
#include "gltf/atlas.h"
#include "gltf/gltf_build.h"

uint8_t gltf_linear_to_srgb8(float linear)
{
    double c = fmin(fmax(linear, 0.0), 1.0);
    double s = c <= 0.0031308 ? 12.92 * c : 1.055 * pow(c, 1.0 / 2.4) - 0.055;
    return (uint8_t)lround(s * 255.0);
}

float gltf_srgb8_to_linear(uint8_t srgb)
{
    double s = srgb / 255.0;
    return (float)(s <= 0.04045 ? s / 12.92 : pow((s + 0.055) / 1.055, 2.4));
}

static crowd_result add_region(gltf_builder *b, const char *name, const float color[4], crowd_error *error)
{
    crowd_rig *rig = b->rig;
    if (rig->region_count >= CROWD_MAX_REGIONS)
        return crowd_fail(error, CROWD_ERROR_LIMIT, "materials: the character uses more than %u materials",
                          CROWD_MAX_REGIONS);
    if (!rig->regions_info && !(rig->regions_info = crowd_calloc(CROWD_MAX_REGIONS, sizeof *rig->regions_info)))
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "materials: out of memory");
    crowd_rig_region *g = &rig->regions_info[rig->region_count];
    g->name = crowd_malloc(strlen(name) + 1);
    g->palette = crowd_malloc(4);
    if (!g->name || !g->palette) {
        crowd_free(g->name), crowd_free(g->palette);
        g->name = NULL, g->palette = NULL;
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "materials: out of memory");
    }
    strcpy(g->name, name);
    g->palette_count = 1;
    for (int k = 0; k < 3; k++)
        g->palette[0][k] = gltf_linear_to_srgb8(color[k]);
    g->palette[0][3] = (uint8_t)lrintf(color[3] * 255.0f);
    rig->region_count++;
    return CROWD_OK;
}

/* Extra palette entries written by crowd_gltf_write (material extras.crowdbake_palette: rgba8
 * arrays); anything malformed there is ignored, it is only a convenience. */
static void read_palette(const cJSON *material, crowd_rig_region *g)
{
    const cJSON *extras = cJSON_GetObjectItemCaseSensitive(material, "extras");
    const cJSON *palette = extras ? cJSON_GetObjectItemCaseSensitive(extras, "crowdbake_palette") : NULL, *entry;
    int n = cJSON_IsArray(palette) ? cJSON_GetArraySize(palette) : 0;
    if (n < 2 || (uint32_t)n > CROWD_MAX_PALETTE / CROWD_MAX_REGIONS)
        return;
    uint8_t(*colors)[4] = crowd_malloc((size_t)n * 4);
    if (!colors)
        return;
    uint32_t k = 0;
    cJSON_ArrayForEach(entry, palette)
    {
        for (int c = 0; c < 4; c++) {
            const cJSON *v = cJSON_GetArrayItem(entry, c);
            if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0 && v->valuedouble <= 255)) {
                crowd_free(colors);
                return;
            }
            colors[k][c] = (uint8_t)v->valuedouble;
        }
        k++;
    }
    crowd_free(g->palette);
    g->palette = colors;
    g->palette_count = k;
}

int32_t gltf_region_of(gltf_builder *b, int32_t material, crowd_error *error)
{
    const gltf_doc *doc = b->doc;
    if (!b->material_region) {
        if (!(b->material_region = crowd_malloc((doc->material_count + 1) * sizeof *b->material_region))) {
            crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "materials: out of memory");
            return -1;
        }
        for (uint32_t i = 0; i <= doc->material_count; i++)
            b->material_region[i] = -1;
    }
    int32_t *slot = &b->material_region[material >= 0 ? (uint32_t)material : doc->material_count];
    if (*slot >= 0)
        return *slot;
    gltf_material info = {.color = {1, 1, 1, 1}, .image = -1};
    char fallback[32];
    if (material >= 0 && gltf_material_info(doc, (uint32_t)material, &info, error) != CROWD_OK)
        return -1;
    snprintf(fallback, sizeof fallback, material >= 0 ? "material %d" : "default", material);
    if (add_region(b, info.name ? info.name : fallback, info.color, error) != CROWD_OK)
        return -1;
    if (material >= 0)
        read_palette(doc->materials[material], &b->rig->regions_info[b->rig->region_count - 1]);
    *slot = (int32_t)b->rig->region_count - 1;
    return *slot;
}

/* Which image each region's material samples (-1: none), and how many vertices use each image. */
static void region_images(gltf_builder *b, uint64_t *votes, int32_t region_image[CROWD_MAX_REGIONS])
{
    const gltf_doc *doc = b->doc;
    const crowd_rig *rig = b->rig;
    for (uint32_t g = 0; g < CROWD_MAX_REGIONS; g++)
        region_image[g] = -1;
    for (uint32_t m = 0; m < doc->material_count; m++) {
        gltf_material info;
        if (b->material_region[m] >= 0 && gltf_material_info(doc, m, &info, NULL) == CROWD_OK)
            region_image[b->material_region[m]] = info.image;
    }
    for (uint32_t v = 0; v < rig->vertex_count; v++)
        if (region_image[rig->regions[v]] >= 0)
            votes[region_image[rig->regions[v]]]++;
}

/* Where the atlas cannot hold them all: the image covering the most vertices becomes the albedo;
 * regions using another are left untextured (a warning names the loss). */
static crowd_result keep_one_image(gltf_builder *b, const uint64_t *votes, const int32_t *region_image,
                                   crowd_error *error)
{
    const gltf_doc *doc = b->doc;
    crowd_rig *rig = b->rig;
    int32_t best = -1;
    for (uint32_t i = 0; i < doc->image_count; i++)
        if (votes[i] && (best < 0 || votes[i] > votes[best]))
            best = (int32_t)i;
    for (uint32_t g = 0; g < rig->region_count; g++) {
        rig->regions_info[g].textured = best >= 0 && region_image[g] == best;
        if (region_image[g] >= 0 && region_image[g] != best)
            gltf_warn(doc,
                      "materials: region \"%s\" uses images[%d], which does not fit the atlas beside the others; "
                      "images[%d] is kept, so it is baked untextured",
                      rig->regions_info[g].name, region_image[g], best);
    }
    if (best < 0)
        return CROWD_OK;
    return gltf_decode_image(doc, (uint32_t)best, &rig->albedo, &rig->albedo_width, &rig->albedo_height, error);
}

/* How often each image repeats over the UVs its vertices use: whole-number bounds of their range,
 * laid out repeated in the atlas while that stays small (GLTF_ATLAS_MAX_REPEAT copies, a quarter
 * of the atlas side); past that one copy, and the UVs are clamped. */
static void plan_repeats(const crowd_rig *rig, const int32_t *region_image, const int32_t *tile_of_image,
                         gltf_atlas_tile *tiles, uint32_t count)
{
    float lo[2 * CROWD_MAX_REGIONS], hi[2 * CROWD_MAX_REGIONS]; /* (one image per region at most) */
    for (uint32_t t = 0; t < 2 * count; t++)
        lo[t] = 0.0f, hi[t] = 1.0f;
    for (uint32_t v = 0; v < rig->vertex_count; v++) {
        int32_t image = region_image[rig->regions[v]];
        if (image < 0)
            continue;
        for (int k = 0; k < 2; k++) {
            uint32_t t = 2u * (uint32_t)tile_of_image[image] + (uint32_t)k;
            float u = rig->uvs[2 * (size_t)v + (size_t)k];
            lo[t] = u < lo[t] && u > -1e6f ? u : lo[t]; /* (NaN and absurd UVs stay out) */
            hi[t] = u > hi[t] && u < 1e6f ? u : hi[t];
        }
    }
    for (uint32_t t = 0; t < count; t++) {
        gltf_atlas_tile *tile = &tiles[t];
        int32_t origin[2], repeat[2];
        for (int k = 0; k < 2; k++) { /* a hair past a whole number is that number: no extra copy */
            origin[k] = (int32_t)floorf(lo[2 * t + (uint32_t)k] + 1e-4f);
            repeat[k] = (int32_t)ceilf(hi[2 * t + (uint32_t)k] - 1e-4f) - origin[k];
            repeat[k] = repeat[k] < 1 ? 1 : repeat[k];
        }
        bool fits = (int64_t)repeat[0] * repeat[1] <= GLTF_ATLAS_MAX_REPEAT &&
                    (uint64_t)tile->width * (uint32_t)repeat[0] <= GLTF_ATLAS_MAX_SIDE / 4 &&
                    (uint64_t)tile->height * (uint32_t)repeat[1] <= GLTF_ATLAS_MAX_SIDE / 4;
        for (int k = 0; k < 2; k++) {
            tile->origin[k] = fits ? origin[k] : 0;
            tile->repeat[k] = fits ? (uint32_t)repeat[k] : 1u;
        }
    }
}

/* Each textured vertex's UV into its image's tile; UVs outside the tile's range are clamped to its
 * edge, counted per region for the warning. */
static void move_uvs_into_tiles(gltf_builder *b, const gltf_atlas *atlas, const gltf_atlas_tile *tiles,
                                const int32_t *tile_of_image, const int32_t *region_image)
{
    crowd_rig *rig = b->rig;
    uint32_t clamped[CROWD_MAX_REGIONS] = {0};
    for (uint32_t v = 0; v < rig->vertex_count; v++) {
        int32_t image = region_image[rig->regions[v]];
        if (image < 0)
            continue;
        const gltf_atlas_tile *tile = &tiles[tile_of_image[image]];
        float *uv = rig->uvs + 2 * (size_t)v, in[2];
        for (int k = 0; k < 2; k++) {
            float low = (float)tile->origin[k], high = low + (float)tile->repeat[k];
            in[k] = uv[k] >= low ? (uv[k] <= high ? uv[k] : high) : low; /* (NaN: low) */
            clamped[rig->regions[v]] += fabsf(in[k] - uv[k]) > 1e-4f || uv[k] != uv[k];
        }
        gltf_atlas_uv(atlas, tile, in, uv);
    }
    for (uint32_t g = 0; g < rig->region_count; g++)
        if (clamped[g])
            gltf_warn(b->doc,
                      "materials: region \"%s\" repeats its texture too often for the atlas (%u UVs past the "
                      "copies laid out); they are clamped to its edge",
                      rig->regions_info[g].name, clamped[g]);
}

/* Several images: decoded, packed into one atlas, the UVs moved into their tiles. */
static crowd_result build_atlas(gltf_builder *b, const uint64_t *votes, const int32_t *region_image,
                                int32_t *tile_of_image, crowd_error *error)
{
    const gltf_doc *doc = b->doc;
    crowd_rig *rig = b->rig;
    gltf_atlas_tile *tiles = crowd_calloc(doc->image_count, sizeof *tiles);
    if (!tiles)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "images: out of memory");
    uint32_t count = 0;
    crowd_result r = CROWD_OK;
    for (uint32_t i = 0; i < doc->image_count && r == CROWD_OK; i++) {
        tile_of_image[i] = -1;
        if (!votes[i])
            continue;
        uint8_t *rgba = NULL;
        r = gltf_decode_image(doc, i, &rgba, &tiles[count].width, &tiles[count].height, error);
        tiles[count].rgba = rgba;
        tile_of_image[i] = (int32_t)count++;
    }
    if (r == CROWD_OK)
        plan_repeats(rig, region_image, tile_of_image, tiles, count);
    gltf_atlas atlas = {0};
    crowd_error packing = {0};
    crowd_result packed = r == CROWD_OK ? gltf_atlas_pack(tiles, count, GLTF_ATLAS_MAX_SIDE, &atlas, &packing) : r;
    if (r == CROWD_OK && packed == CROWD_OK) {
        move_uvs_into_tiles(b, &atlas, tiles, tile_of_image, region_image);
        rig->albedo = atlas.rgba, rig->albedo_width = atlas.width, rig->albedo_height = atlas.height;
        for (uint32_t g = 0; g < rig->region_count; g++)
            rig->regions_info[g].textured = region_image[g] >= 0;
    } else if (r == CROWD_OK && packed == CROWD_ERROR_LIMIT) {
        r = keep_one_image(b, votes, region_image, error);
    } else if (r == CROWD_OK) {
        r = packed;
        if (error)
            *error = packing;
    }
    for (uint32_t t = 0; t < count; t++)
        crowd_free((void *)tiles[t].rgba);
    crowd_free(tiles);
    return r;
}

crowd_result gltf_build_albedo(gltf_builder *b, crowd_error *error)
{
    crowd_rig *rig = b->rig;
    const gltf_doc *doc = b->doc;
    if (!doc->image_count || !rig->uvs || !b->material_region)
        return CROWD_OK;
    uint64_t *votes = crowd_calloc(doc->image_count, sizeof *votes);
    int32_t *region_image = crowd_malloc(CROWD_MAX_REGIONS * sizeof *region_image);
    int32_t *tile_of_image = crowd_malloc(doc->image_count * sizeof *tile_of_image);
    crowd_result r = CROWD_OK;
    if (!votes || !region_image || !tile_of_image) {
        r = crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "images: out of memory");
    } else {
        region_images(b, votes, region_image);
        uint32_t used = 0;
        for (uint32_t i = 0; i < doc->image_count; i++)
            used += votes[i] > 0;
        /* one image is the albedo as it is (its UVs may repeat); several share an atlas */
        r = used > 1 ? build_atlas(b, votes, region_image, tile_of_image, error)
                     : keep_one_image(b, votes, region_image, error);
    }
    crowd_free(votes), crowd_free(region_image), crowd_free(tile_of_image);
    if (!rig->albedo)
        for (uint32_t g = 0; g < rig->region_count; g++)
            rig->regions_info[g].textured = false;
    return r;
}
