/* Regions: one per material the character uses, with its palette (albedo.c makes their texture). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/error.h"
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
