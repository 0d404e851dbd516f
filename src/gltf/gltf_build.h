/* Internal: turning a validated document into a crowd_rig (the reader's second half). */
#ifndef CROWD_GLTF_BUILD_H
#define CROWD_GLTF_BUILD_H

#include "gltf/gltf_internal.h"

typedef struct gltf_material_info {
    const char *name;  /* borrowed from the JSON; NULL when unnamed */
    float color[4];    /* linear base colour factor */
    int32_t image;     /* base-colour image, or -1 */
    uint32_t texcoord; /* TEXCOORD_n of the base-colour texture */
} gltf_material;

/* A mesh node baked into the character. LOD instances (MSFT_lod) stand in for their base node:
 * its bone, skin binding and morph targets apply. */
typedef struct gltf_instance {
    uint32_t node;         /* the node whose mesh is read */
    uint32_t base_node;    /* the node whose transform/skin/targets apply */
    int32_t skin;          /* -1: rigid */
    uint32_t level;        /* 0, or the MSFT_lod level */
    uint32_t first_target; /* rig morph target of the mesh's first target */
} gltf_instance;

typedef struct gltf_builder {
    gltf_doc *doc;
    crowd_rig *rig;
    int32_t selected_skin; /* -1: none */
    bool *skin_selected;   /* skin_count */
    int32_t *node_bone;    /* node -> its (first) bone, or -1 */
    uint32_t *bone_node;   /* bone -> node */
    uint32_t **skin_bones; /* per selected skin: joint -> bone */
    gltf_instance *instances;
    uint32_t instance_count, level_count;
    float screen_coverage[CROWD_MAX_LODS];
    int32_t *material_region; /* material -> region, or -1 until used */
    /* KHR_materials_variants (variants.c): per region GLTF_MAX_VARIANT_CHOICES materials, -1 for the
     * region's own; choice 0 is always its own. variant_choices: 1 + usable variants (0: none). */
    int32_t *variant_material;
    uint32_t variant_choices, variant_total;
} gltf_builder;

/* A region's palette choices a record addresses (4 bits of crowd_variant.region_choice). */
#define GLTF_MAX_VARIANT_CHOICES 16u

crowd_result gltf_material_info(const gltf_doc *doc, uint32_t material, gltf_material *info, crowd_error *error);
crowd_result gltf_decode_image(const gltf_doc *doc, uint32_t image, uint8_t **rgba, uint32_t *width, uint32_t *height,
                               crowd_error *error);

/* select.c: the skin, the mesh instances (with MSFT_lod levels) and the bones. */
crowd_result gltf_select(gltf_builder *b, crowd_error *error);
/* mesh_build.c: vertices, influences, morph targets, triangles of every LOD level. */
crowd_result gltf_build_mesh(gltf_builder *b, crowd_error *error);
/* regions.c: a region per material used, the albedo texture. */
int32_t gltf_region_of(gltf_builder *b, int32_t material, crowd_error *error);
crowd_result gltf_build_albedo(gltf_builder *b, crowd_error *error);
/* variants.c: KHR_materials_variants as each region's palette choices (before gltf_build_albedo). */
crowd_result gltf_read_variants(gltf_builder *b, crowd_error *error);
/* clips.c: clips, the sampler, loop detection; moves doc->anims into the rig. */
crowd_result gltf_build_clips(gltf_builder *b, crowd_error *error);
/* sockets.c */
crowd_result gltf_build_sockets(gltf_builder *b, crowd_error *error);

void gltf_builder_free(gltf_builder *b);

#endif
