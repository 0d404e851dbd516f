/* The one albedo texture an asset carries, from the images the materials sample: a single image
 * as it is, or an atlas of all of them (gltf/atlas.c) with every textured vertex's UV moved into
 * its image's tile. A region's palette choices (material variants, gltf/variants.c) may sample
 * other images, or none: each such choice gets a UV transform from the region's tile to its own
 * (or to a white tile, for an untextured choice of a textured region). */
#include <math.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "gltf/atlas.h"
#include "gltf/gltf_build.h"

typedef struct albedo_plan {
    int32_t image[CROWD_MAX_REGIONS][GLTF_MAX_VARIANT_CHOICES]; /* per region and choice; -1: none */
    uint32_t choices[CROWD_MAX_REGIONS];                        /* a region's palette choices, at most 16 */
    uint64_t *votes;                                            /* per image: vertices showing it */
    int32_t *tile_of_image;                                     /* per image: its tile, or -1 */
    gltf_atlas_tile *tiles;                                     /* images used, then the white tile */
    uint32_t tile_count;
    int32_t white_tile; /* -1: no choice needs it */
    uint8_t white[4];
} albedo_plan;

static int32_t image_of_material(const gltf_doc *doc, int32_t material)
{
    gltf_material info;
    return material >= 0 && gltf_material_info(doc, (uint32_t)material, &info, NULL) == CROWD_OK ? info.image : -1;
}

/* Which image each region shows under each choice, and how many vertices show each image. */
static void plan_images(const gltf_builder *b, albedo_plan *plan)
{
    const gltf_doc *doc = b->doc;
    const crowd_rig *rig = b->rig;
    int32_t own[CROWD_MAX_REGIONS];
    for (uint32_t g = 0; g < CROWD_MAX_REGIONS; g++)
        own[g] = -1;
    for (uint32_t m = 0; m < doc->material_count; m++)
        if (b->material_region[m] >= 0)
            own[b->material_region[m]] = image_of_material(doc, (int32_t)m);
    for (uint32_t g = 0; g < rig->region_count; g++) {
        uint32_t n = rig->regions_info[g].palette_count;
        plan->choices[g] = n < GLTF_MAX_VARIANT_CHOICES ? n : GLTF_MAX_VARIANT_CHOICES;
        for (uint32_t k = 0; k < plan->choices[g]; k++) {
            int32_t variant = b->variant_material && k > 0 && k < b->variant_choices
                                  ? b->variant_material[(size_t)g * GLTF_MAX_VARIANT_CHOICES + k]
                                  : -1;
            plan->image[g][k] = variant >= 0 ? image_of_material(doc, variant) : own[g];
        }
    }
    for (uint32_t v = 0; v < rig->vertex_count; v++) {
        uint32_t g = rig->regions[v];
        for (uint32_t k = 0; k < plan->choices[g]; k++) {
            int32_t image = plan->image[g][k];
            bool first = image >= 0;
            for (uint32_t j = 0; j < k && first; j++)
                first = plan->image[g][j] != image;
            plan->votes[image >= 0 ? image : 0] += first;
        }
    }
}

/* Does some region have both textured and untextured choices (the untextured sample white)? */
static bool needs_white(const crowd_rig *rig, const albedo_plan *plan)
{
    for (uint32_t g = 0; g < rig->region_count; g++) {
        bool textured = false, plain = false;
        for (uint32_t k = 0; k < plan->choices[g]; k++)
            textured |= plan->image[g][k] >= 0, plain |= plan->image[g][k] < 0;
        if (textured && plain)
            return true;
    }
    return false;
}

/* Where one image will do, or the atlas cannot hold them all: the image on the most vertices is
 * the albedo; regions showing another (under any choice) lose that texture, with a warning. */
static crowd_result keep_one_image(gltf_builder *b, const albedo_plan *plan, crowd_error *error)
{
    const gltf_doc *doc = b->doc;
    crowd_rig *rig = b->rig;
    int32_t best = -1;
    for (uint32_t i = 0; i < doc->image_count; i++)
        if (plan->votes[i] && (best < 0 || plan->votes[i] > plan->votes[best]))
            best = (int32_t)i;
    for (uint32_t g = 0; g < rig->region_count; g++) {
        rig->regions_info[g].textured = best >= 0 && plan->image[g][0] == best;
        for (uint32_t k = 0; k < plan->choices[g]; k++)
            if (plan->image[g][k] >= 0 && plan->image[g][k] != best) {
                gltf_warn(doc,
                          "materials: region \"%s\" (choice %u) uses images[%d], which does not fit the atlas beside "
                          "the others; images[%d] is kept, so it is baked untextured",
                          rig->regions_info[g].name, k, plan->image[g][k], best);
                break;
            }
    }
    if (best < 0)
        return CROWD_OK;
    return gltf_decode_image(doc, (uint32_t)best, &rig->albedo, &rig->albedo_width, &rig->albedo_height, error);
}

/* How often each image repeats over the UVs of the vertices that show it: whole-number bounds of
 * their range, laid out repeated while that stays small (GLTF_ATLAS_MAX_REPEAT copies, a quarter of
 * the atlas side); past that one copy, and move_uvs_into_tiles clamps. */
static void plan_repeats(const crowd_rig *rig, albedo_plan *plan)
{
    float lo[2 * (CROWD_MAX_REGIONS * GLTF_MAX_VARIANT_CHOICES + 1)], hi[sizeof lo / sizeof lo[0]];
    for (uint32_t t = 0; t < 2 * plan->tile_count; t++)
        lo[t] = 0.0f, hi[t] = 1.0f;
    for (uint32_t v = 0; v < rig->vertex_count; v++) {
        uint32_t g = rig->regions[v];
        for (uint32_t k = 0; k < plan->choices[g]; k++) {
            if (plan->image[g][k] < 0)
                continue;
            for (uint32_t c = 0; c < 2; c++) {
                uint32_t t = 2u * (uint32_t)plan->tile_of_image[plan->image[g][k]] + c;
                float u = rig->uvs[2 * (size_t)v + c];
                lo[t] = u < lo[t] && u > -1e6f ? u : lo[t]; /* (NaN and absurd UVs stay out) */
                hi[t] = u > hi[t] && u < 1e6f ? u : hi[t];
            }
        }
    }
    for (uint32_t t = 0; t < plan->tile_count; t++) {
        gltf_atlas_tile *tile = &plan->tiles[t];
        int32_t origin[2], repeat[2];
        for (uint32_t c = 0; c < 2; c++) { /* a hair past a whole number is that number: no extra copy */
            origin[c] = (int32_t)floorf(lo[2 * t + c] + 1e-4f);
            repeat[c] = (int32_t)ceilf(hi[2 * t + c] - 1e-4f) - origin[c];
            repeat[c] = repeat[c] < 1 ? 1 : repeat[c];
        }
        bool fits = (int64_t)repeat[0] * repeat[1] <= GLTF_ATLAS_MAX_REPEAT &&
                    (uint64_t)tile->width * (uint32_t)repeat[0] <= GLTF_ATLAS_MAX_SIDE / 4 &&
                    (uint64_t)tile->height * (uint32_t)repeat[1] <= GLTF_ATLAS_MAX_SIDE / 4;
        for (uint32_t c = 0; c < 2; c++) {
            tile->origin[c] = fits ? origin[c] : 0;
            tile->repeat[c] = fits ? (uint32_t)repeat[c] : 1u;
        }
    }
}

/* Each textured vertex's UV into its region's own image's tile; UVs outside the tile's range are
 * clamped to its edge, counted per region for the warning. */
static void move_uvs_into_tiles(gltf_builder *b, const gltf_atlas *atlas, const albedo_plan *plan)
{
    crowd_rig *rig = b->rig;
    uint32_t clamped[CROWD_MAX_REGIONS] = {0};
    for (uint32_t v = 0; v < rig->vertex_count; v++) {
        int32_t image = plan->image[rig->regions[v]][0];
        if (image < 0)
            continue;
        const gltf_atlas_tile *tile = &plan->tiles[plan->tile_of_image[image]];
        float *uv = rig->uvs + 2 * (size_t)v, in[2];
        for (int c = 0; c < 2; c++) {
            float low = (float)tile->origin[c], high = low + (float)tile->repeat[c];
            in[c] = uv[c] >= low ? (uv[c] <= high ? uv[c] : high) : low; /* (NaN: low) */
            clamped[rig->regions[v]] += fabsf(in[c] - uv[c]) > 1e-4f || uv[c] != uv[c];
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

/* The transform from a region's vertex UVs (in its own image's tile, or as in the file when it has
 * none) to choice k's tile, or to the white texel. */
static void choice_transform(const gltf_atlas *atlas, const albedo_plan *plan, uint32_t g, uint32_t k, float out[4])
{
    const float W = (float)atlas->width, H = (float)atlas->height;
    int32_t own = plan->image[g][0], image = plan->image[g][k];
    if (image == own) {
        out[0] = out[1] = 1.0f, out[2] = out[3] = 0.0f;
        return;
    }
    if (image < 0) { /* every UV to the white tile's texel */
        const gltf_atlas_tile *white = &plan->tiles[plan->white_tile];
        out[0] = out[1] = 0.0f, out[2] = ((float)white->x + 0.5f) / W, out[3] = ((float)white->y + 0.5f) / H;
        return;
    }
    const gltf_atlas_tile *to = &plan->tiles[plan->tile_of_image[image]];
    const float size[2] = {(float)to->width, (float)to->height}, place[2] = {(float)to->x, (float)to->y};
    const float side[2] = {W, H};
    for (int c = 0; c < 2; c++) { /* file UV u -> (place + (u - origin) size) / side */
        float scale = size[c] / side[c], offset = (place[c] - (float)to->origin[c] * size[c]) / side[c];
        if (own >= 0) { /* from the own tile back to the file's UV first: u = o + (uA side - p) / s */
            const gltf_atlas_tile *from = &plan->tiles[plan->tile_of_image[own]];
            float fs = c ? (float)from->height : (float)from->width, fp = c ? (float)from->y : (float)from->x;
            offset += scale * ((float)from->origin[c] - fp / fs);
            scale *= side[c] / fs;
        }
        out[c] = scale, out[2 + c] = offset;
    }
}

/* Regions textured under any choice; the choices' UV transforms where one differs from its own. */
static crowd_result set_choices(crowd_rig *rig, const gltf_atlas *atlas, const albedo_plan *plan, crowd_error *error)
{
    for (uint32_t g = 0; g < rig->region_count; g++) {
        crowd_rig_region *region = &rig->regions_info[g];
        bool textured = false, differs = false;
        for (uint32_t k = 0; k < plan->choices[g]; k++)
            textured |= plan->image[g][k] >= 0, differs |= plan->image[g][k] != plan->image[g][0];
        region->textured = textured;
        if (!differs)
            continue;
        if (!(region->uv_transforms = crowd_malloc(region->palette_count * sizeof *region->uv_transforms)))
            return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "images: out of memory");
        for (uint32_t k = 0; k < region->palette_count; k++)
            choice_transform(atlas, plan, g, k < plan->choices[g] ? k : 0, region->uv_transforms[k]);
    }
    return CROWD_OK;
}

/* Decodes every image some vertex shows into plan->tiles, adding the white tile when needed. */
static crowd_result decode_tiles(const gltf_doc *doc, albedo_plan *plan, bool white, crowd_error *error)
{
    crowd_result r = CROWD_OK;
    for (uint32_t i = 0; i < doc->image_count && r == CROWD_OK; i++) {
        plan->tile_of_image[i] = -1;
        if (!plan->votes[i])
            continue;
        uint8_t *rgba = NULL;
        gltf_atlas_tile *t = &plan->tiles[plan->tile_count];
        r = gltf_decode_image(doc, i, &rgba, &t->width, &t->height, error);
        t->rgba = rgba, t->repeat[0] = t->repeat[1] = 1;
        plan->tile_of_image[i] = (int32_t)plan->tile_count++;
    }
    plan->white_tile = -1;
    if (r == CROWD_OK && white) {
        memset(plan->white, 255, 4);
        plan->tiles[plan->tile_count] = (gltf_atlas_tile){plan->white, 1, 1, {1, 1}, {0, 0}, 0, 0};
        plan->white_tile = (int32_t)plan->tile_count++;
    }
    return r;
}

/* Several images (or one beside a white tile): decoded, packed into one atlas, the UVs moved into
 * their tiles, each choice's transform set. */
static crowd_result build_atlas(gltf_builder *b, albedo_plan *plan, bool white, crowd_error *error)
{
    crowd_rig *rig = b->rig;
    crowd_result r = decode_tiles(b->doc, plan, white, error);
    if (r == CROWD_OK)
        plan_repeats(rig, plan);
    gltf_atlas atlas = {0};
    crowd_error packing = {0};
    crowd_result packed =
        r == CROWD_OK ? gltf_atlas_pack(plan->tiles, plan->tile_count, GLTF_ATLAS_MAX_SIDE, &atlas, &packing) : r;
    if (r == CROWD_OK && packed == CROWD_OK) {
        move_uvs_into_tiles(b, &atlas, plan);
        rig->albedo = atlas.rgba, rig->albedo_width = atlas.width, rig->albedo_height = atlas.height;
        r = set_choices(rig, &atlas, plan, error);
    } else if (r == CROWD_OK && packed == CROWD_ERROR_LIMIT) {
        r = keep_one_image(b, plan, error);
    } else if (r == CROWD_OK) {
        r = packed;
        if (error)
            *error = packing;
    }
    for (uint32_t t = 0; t < plan->tile_count; t++)
        if ((int32_t)t != plan->white_tile)
            crowd_free((void *)plan->tiles[t].rgba);
    return r;
}

crowd_result gltf_build_albedo(gltf_builder *b, crowd_error *error)
{
    crowd_rig *rig = b->rig;
    const gltf_doc *doc = b->doc;
    if (!doc->image_count || !rig->uvs || !b->material_region)
        return CROWD_OK;
    albedo_plan *plan = crowd_calloc(1, sizeof *plan);
    crowd_result r = CROWD_OK;
    if (!plan || !(plan->votes = crowd_calloc(doc->image_count, sizeof *plan->votes)) ||
        !(plan->tile_of_image = crowd_malloc(doc->image_count * sizeof *plan->tile_of_image)) ||
        !(plan->tiles = crowd_calloc(doc->image_count + 1, sizeof *plan->tiles))) {
        r = crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "images: out of memory");
    } else {
        plan_images(b, plan);
        uint32_t used = 0;
        for (uint32_t i = 0; i < doc->image_count; i++)
            used += plan->votes[i] > 0;
        bool white = used > 0 && needs_white(rig, plan);
        /* one image is the albedo as it is (its UVs may repeat); several share an atlas */
        r = used > 1 || white ? build_atlas(b, plan, white, error) : keep_one_image(b, plan, error);
    }
    if (plan)
        crowd_free(plan->votes), crowd_free(plan->tile_of_image), crowd_free(plan->tiles);
    crowd_free(plan);
    if (!rig->albedo)
        for (uint32_t g = 0; g < rig->region_count; g++)
            rig->regions_info[g].textured = false;
    return r;
}
