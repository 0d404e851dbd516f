/* KHR_materials_variants: the file's material variants become each region's palette choices, so
 * an instance's variant (crowd_variant.region_choice) picks a variant's colour and texture.
 *
 * Choice 0 of a region is its primitive's own material; choice 1 + v is the material variant v maps
 * it to (or its own where variant v does not map it). A primitive's mappings decide for its region
 * (regions are per material); a later primitive of the same region mapping differently is warned
 * about and ignored. Only 15 variants fit a region's 4-bit choice: more are warned about. */
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/error.h"
#include "gltf/gltf_build.h"

#define EXTENSION "KHR_materials_variants"

/* The file's variant count (0 without the extension); *usable is what a choice can address. */
static crowd_result variant_count(const gltf_doc *doc, uint32_t *count, uint32_t *usable, crowd_error *error)
{
    const cJSON *extensions = NULL, *ext = NULL, *variants = NULL;
    uint32_t n = 0;
    crowd_result r = gj_object(doc->root, "extensions", "", false, &extensions, error);
    if (r == CROWD_OK && extensions)
        r = gj_object(extensions, EXTENSION, "extensions", false, &ext, error);
    if (r == CROWD_OK && ext)
        r = gj_array(ext, "variants", "extensions." EXTENSION, true, CROWD_GLTF_MAX_ARRAY, &variants, &n, error);
    *count = *usable = n;
    if (r == CROWD_OK && n > GLTF_MAX_VARIANT_CHOICES - 1) {
        gltf_warn(doc, "extensions." EXTENSION ": %u variants; a region offers its first %u", n,
                  GLTF_MAX_VARIANT_CHOICES - 1);
        *usable = GLTF_MAX_VARIANT_CHOICES - 1;
    }
    return r;
}

/* One primitive's mappings into its region's row of b->variant_material (-1: its own material). */
static crowd_result read_mappings(gltf_builder *b, const cJSON *prim, const char *path, int32_t *row,
                                  crowd_error *error)
{
    const gltf_doc *doc = b->doc;
    const cJSON *extensions = NULL, *ext = NULL, *mappings = NULL, *mapping;
    uint32_t count = 0, m = 0;
    crowd_result r = gj_object(prim, "extensions", path, false, &extensions, error);
    if (r == CROWD_OK && extensions)
        r = gj_object(extensions, EXTENSION, path, false, &ext, error);
    if (r == CROWD_OK && ext)
        r = gj_array(ext, "mappings", path, true, CROWD_GLTF_MAX_ARRAY, &mappings, &count, error);
    cJSON_ArrayForEach(mapping, mappings)
    {
        char here[96];
        snprintf(here, sizeof here, "%s.extensions." EXTENSION ".mappings[%u]", path, m++);
        int32_t material = -1;
        const cJSON *variants = NULL, *item;
        uint32_t n = 0, i = 0;
        if (r == CROWD_OK)
            r = gj_index(mapping, "material", here, true, doc->material_count, "materials", &material, error);
        if (r == CROWD_OK)
            r = gj_array(mapping, "variants", here, true, CROWD_GLTF_MAX_ARRAY, &variants, &n, error);
        cJSON_ArrayForEach(item, variants)
        {
            uint32_t v = 0;
            if (r == CROWD_OK)
                r = gj_index_item(item, here, i++, b->variant_total, "variants", &v, error);
            if (r == CROWD_OK && v + 1 < b->variant_choices)
                row[v + 1] = material;
        }
    }
    return r;
}

/* Each region's palette: choice 0 its own colour (already there), choice 1 + v variant v's. */
static crowd_result fill_palettes(gltf_builder *b, crowd_error *error)
{
    crowd_rig *rig = b->rig;
    for (uint32_t g = 0; g < rig->region_count; g++) {
        const int32_t *row = b->variant_material + (size_t)g * GLTF_MAX_VARIANT_CHOICES;
        bool mapped = false;
        for (uint32_t k = 1; k < b->variant_choices; k++)
            mapped |= row[k] >= 0;
        if (!mapped)
            continue;
        crowd_rig_region *region = &rig->regions_info[g];
        uint8_t(*palette)[4] = crowd_malloc((size_t)b->variant_choices * 4);
        if (!palette)
            return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "material variants: out of memory");
        memcpy(palette[0], region->palette[0], 4);
        for (uint32_t k = 1; k < b->variant_choices; k++) {
            gltf_material info = {.color = {1, 1, 1, 1}, .image = -1};
            if (row[k] < 0) {
                memcpy(palette[k], region->palette[0], 4);
                continue;
            }
            crowd_result r = gltf_material_info(b->doc, (uint32_t)row[k], &info, error);
            if (r != CROWD_OK) {
                crowd_free(palette);
                return r;
            }
            for (int c = 0; c < 3; c++)
                palette[k][c] = gltf_linear_to_srgb8(info.color[c]);
            palette[k][3] = (uint8_t)(info.color[3] * 255.0f + 0.5f);
        }
        crowd_free(region->palette);
        region->palette = palette;
        region->palette_count = b->variant_choices;
    }
    return CROWD_OK;
}

/* For every mesh primitive of the character, its region's variant row; a second primitive of the
 * same region that maps differently is warned about. */
static crowd_result read_all_mappings(gltf_builder *b, crowd_error *error)
{
    const gltf_doc *doc = b->doc;
    bool *decided = crowd_calloc(b->rig->region_count + 1, sizeof *decided);
    int32_t *row = crowd_malloc(GLTF_MAX_VARIANT_CHOICES * sizeof *row);
    crowd_result r =
        decided && row ? CROWD_OK : crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "material variants: out of memory");
    for (uint32_t i = 0; i < b->instance_count && r == CROWD_OK; i++) {
        uint32_t mesh = doc->nodes[b->instances[i].node].mesh, p = 0;
        const cJSON *prim;
        cJSON_ArrayForEach(prim, cJSON_GetObjectItemCaseSensitive(doc->meshes[mesh].json, "primitives"))
        {
            char path[48];
            snprintf(path, sizeof path, "meshes[%u].primitives[%u]", mesh, p++);
            const cJSON *material = cJSON_GetObjectItemCaseSensitive(prim, "material");
            int32_t region = b->material_region[material ? (uint32_t)material->valuedouble : doc->material_count];
            for (uint32_t k = 0; k < GLTF_MAX_VARIANT_CHOICES; k++)
                row[k] = -1;
            if (r != CROWD_OK || region < 0 || (r = read_mappings(b, prim, path, row, error)) != CROWD_OK)
                continue;
            int32_t *kept = b->variant_material + (size_t)region * GLTF_MAX_VARIANT_CHOICES;
            if (!decided[region])
                memcpy(kept, row, GLTF_MAX_VARIANT_CHOICES * sizeof *row);
            else if (memcmp(kept, row, GLTF_MAX_VARIANT_CHOICES * sizeof *row) != 0)
                gltf_warn(doc,
                          "%s: maps its material's variants unlike an earlier primitive of region \"%s\"; the "
                          "earlier mapping is kept",
                          path, b->rig->regions_info[region].name);
            decided[region] = true;
        }
    }
    crowd_free(decided), crowd_free(row);
    return r;
}

crowd_result gltf_read_variants(gltf_builder *b, crowd_error *error)
{
    uint32_t variants = 0;
    crowd_result r = variant_count(b->doc, &b->variant_total, &variants, error);
    if (r != CROWD_OK || variants == 0 || !b->material_region || b->rig->region_count == 0)
        return r;
    b->variant_choices = 1 + variants;
    b->variant_material =
        crowd_malloc((size_t)b->rig->region_count * GLTF_MAX_VARIANT_CHOICES * sizeof *b->variant_material);
    if (!b->variant_material)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "material variants: out of memory");
    for (size_t i = 0; i < (size_t)b->rig->region_count * GLTF_MAX_VARIANT_CHOICES; i++)
        b->variant_material[i] = -1;
    if ((r = read_all_mappings(b, error)) == CROWD_OK)
        r = fill_palettes(b, error);
    return r;
}
