/* Internal: the validated glTF document model shared by the reader's files.
 *
 * gltf_doc holds the parsed JSON (cJSON) and, for every top-level array the baker needs, a
 * checked C view: indices resolved and range-checked, byte ranges proven inside their buffers.
 * Later stages may therefore index without re-checking what doc_open checked. */
#ifndef CROWD_GLTF_INTERNAL_H
#define CROWD_GLTF_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crowdbake/gltf.h"
#include "gltf/gltf_anim.h"

typedef struct cJSON cJSON;

#define GLTF_MAX_ACCESSOR_VALUES (1u << 28) /* count x components of one accessor */
#define GLTF_OVERLAP_FACTOR 64              /* accessor values checked per buffer byte, at most */

/* ---- json.c: typed, path-aware access to cJSON values ------------------------------------------ */

/* Every getter fails with a message "<path>.<key>: <problem>". Absent optional keys leave *out at
 * the default the caller set. */
crowd_result gj_object(const cJSON *parent, const char *key, const char *path, bool required, const cJSON **out,
                       crowd_error *error);
/* An array of at most `max` entries (an absent optional array gives count 0). */
crowd_result gj_array(const cJSON *parent, const char *key, const char *path, bool required, uint32_t max,
                      const cJSON **out, uint32_t *count, crowd_error *error);
/* A whole number in [min, max]. */
crowd_result gj_uint(const cJSON *parent, const char *key, const char *path, bool required, uint64_t min, uint64_t max,
                     uint64_t *out, crowd_error *error);
/* An index into an array of `count` `what`s ("nodes"); absent and optional gives -1. */
crowd_result gj_index(const cJSON *parent, const char *key, const char *path, bool required, uint32_t count,
                      const char *what, int32_t *out, crowd_error *error);
/* An array element that must be an index (path names the array). */
crowd_result gj_index_item(const cJSON *item, const char *path, uint32_t i, uint32_t count, const char *what,
                           uint32_t *out, crowd_error *error);
/* Exactly n finite numbers; *present tells whether the key was there. */
crowd_result gj_floats(const cJSON *parent, const char *key, const char *path, uint32_t n, float *out, bool *present,
                       crowd_error *error);
crowd_result gj_bool(const cJSON *parent, const char *key, const char *path, bool *out, crowd_error *error);
/* A string or NULL when absent (a non-string value is an error). Borrowed from the cJSON tree. */
crowd_result gj_string(const cJSON *parent, const char *key, const char *path, bool required, const char **out,
                       crowd_error *error);

/* Equal JSON values, objects compared member by member in order (linear, unlike cJSON_Compare's
 * per-key lookups); used to find primitives that share their attribute accessors. Values that
 * are equal but listed in another order count as different: sharing is only an optimisation. */
bool gj_same_shape(const cJSON *a, const cJSON *b);

/* Points cJSON at base.h's allocator through a hook that remembers, per thread, that an allocation
 * failed: cJSON_Parse answers NULL alike for bad syntax and for no memory, and only the second is
 * CROWD_ERROR_OUT_OF_MEMORY. gj_allocation_failed() says whether one failed since the install. */
void gj_install_hooks(void);
bool gj_allocation_failed(void);

/* stb_image's allocations, watched the same way (stb_image_impl.c): reset before a decode, then
 * ask whether one failed. */
void gltf_image_allocation_reset(void);
bool gltf_image_allocation_failed(void);

/* ---- glb.c -------------------------------------------------------------------------------------- */

typedef struct gltf_glb {
    const uint8_t *json;
    size_t json_size;
    const uint8_t *bin; /* NULL without a BIN chunk */
    size_t bin_size;
} gltf_glb;

bool gltf_is_glb(const uint8_t *data, size_t size);
crowd_result gltf_glb_parse(const uint8_t *data, size_t size, gltf_glb *out, crowd_error *error);

/* ---- the document --------------------------------------------------------------------------- */

typedef struct gltf_buffer {
    const uint8_t *data;
    size_t size;
    uint8_t *owned; /* decoded base64 or an external file */
} gltf_buffer;

typedef struct gltf_view {
    uint32_t buffer;
    size_t offset, length;
    uint32_t stride; /* 0 = tightly packed */
} gltf_view;

typedef struct gltf_accessor {
    int32_t view; /* -1: all zeros (before sparse) */
    size_t offset;
    uint32_t count;
    uint32_t component; /* 5120 .. 5126 */
    uint32_t component_size;
    uint32_t components;    /* 1 SCALAR .. 16 MAT4 */
    uint32_t columns, rows; /* matrices pad each column to 4 bytes */
    uint32_t element_size;  /* bytes of one element including column padding */
    uint32_t stride;        /* element step in the view */
    bool normalized;
    uint32_t sparse_count;
    uint32_t sparse_index_view, sparse_value_view;
    size_t sparse_index_offset, sparse_value_offset;
    uint32_t sparse_index_component;
    bool has_bounds;
    float min[16], max[16];
} gltf_accessor;

typedef struct gltf_node {
    const cJSON *json;
    const char *name; /* NULL when unnamed */
    int32_t parent;
    int32_t mesh, skin;
    uint32_t child_count;
    uint32_t *children;
    crowd_trs trs; /* the matrix decomposed when the node has one */
    bool has_matrix;
    bool in_scene;
    uint32_t weight_count; /* node.weights, when present */
    float *weights;
} gltf_node;

typedef struct gltf_skin {
    uint32_t joint_count;
    uint32_t *joints;
    int32_t ibm_accessor; /* -1: identities */
    float *inverse_binds; /* joint_count column-major 4x4; NULL until read (gltf_skin_binds) */
} gltf_skin;

typedef struct gltf_mesh {
    const cJSON *json;
    uint32_t primitive_count;
    uint32_t target_count; /* equal for every primitive */
    float *weights;        /* mesh.weights or NULL */
    uint32_t skin_checked; /* smallest joint count its influences were proven valid for; 0: none */
} gltf_mesh;

typedef struct gltf_doc {
    cJSON *root;
    const char *name;     /* for messages */
    const char *base_dir; /* NULL: no file URIs */
    const crowd_gltf_desc *desc;
    gltf_glb glb;
    bool is_glb;

    uint32_t buffer_count, view_count, accessor_count, node_count, skin_count, mesh_count;
    uint32_t material_count, texture_count, image_count, animation_count;
    gltf_buffer *buffers;
    gltf_view *views;
    gltf_accessor *accessors;
    gltf_node *nodes;
    gltf_skin *skins;
    gltf_mesh *meshes;
    const cJSON **materials, **textures, **images; /* the arrays' items, for O(1) lookup */
    gltf_animation *anims;                         /* animation_count; moved to the rig's sampler when built */
    uint64_t checked_values, check_budget;         /* see accessor.c check_data */
    uint32_t *scene_roots;
    uint32_t scene_root_count;
} gltf_doc;

void gltf_warn(const gltf_doc *doc, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* doc.c: parse, validate everything, resolve buffers. On failure the doc is released. */
crowd_result gltf_doc_open(gltf_doc *doc, const uint8_t *data, size_t size, crowd_error *error);
void gltf_doc_close(gltf_doc *doc);

/* buffers.c */
crowd_result gltf_load_buffers(gltf_doc *doc, crowd_error *error);
crowd_result gltf_parse_views(gltf_doc *doc, crowd_error *error);
/* The bytes a URI names: a data: URI (base64) or a file next to the document. *owned receives
 * the allocation to free. */
crowd_result gltf_resolve_uri(const gltf_doc *doc, const char *uri, const char *path, uint8_t **owned, size_t *size,
                              crowd_error *error);

/* accessor.c */
crowd_result gltf_parse_accessors(gltf_doc *doc, crowd_error *error);
/* Reads accessor `index` as floats (normalised integers map to [0,1] / [-1,1]), sparse applied:
 * count x components values (matrix padding removed). `path` names the referencing property. */
crowd_result gltf_read_floats(const gltf_doc *doc, uint32_t index, float *out, const char *path, crowd_error *error);
/* Whether the accessor's values come from bytes present in the file. False for implicit zeros
 * (no bufferView, no sparse) and for views into a buffer without data. The document phase
 * checks only such bytes; values that are implicit or absent are checked where the character
 * uses them (inverse binds, key times), so a file is refused only for data it really holds or
 * really needs. */
bool gltf_accessor_has_bytes(const gltf_doc *doc, uint32_t index);
/* Reads an integer accessor (indices, joints): count x components values. */
crowd_result gltf_read_uints(const gltf_doc *doc, uint32_t index, uint32_t *out, const char *path, crowd_error *error);

/* nodes.c */
crowd_result gltf_parse_nodes(gltf_doc *doc, crowd_error *error);
crowd_result gltf_parse_skins(gltf_doc *doc, crowd_error *error);
crowd_result gltf_parse_scene(gltf_doc *doc, crowd_error *error);
/* A column-major 4x4 affine matrix as TRS; refuses shear (`path` names it in the message). */
crowd_result gltf_decompose(const float m[16], crowd_trs *trs, const char *path, crowd_error *error);
/* Reads and checks a skin's inverse bind matrices (at document time when the file holds their
 * bytes, else when the character uses the skin). */
crowd_result gltf_skin_binds(const gltf_doc *doc, uint32_t skin, crowd_error *error);
/* Model-space rest transform of a node (the product of its ancestors' local transforms). */
void gltf_node_world_rest(const gltf_doc *doc, uint32_t node, float out[16]);

/* mesh_check.c */
crowd_result gltf_parse_meshes(gltf_doc *doc, crowd_error *error);
crowd_result gltf_check_skinned_nodes(gltf_doc *doc, crowd_error *error);

/* material.c */
crowd_result gltf_check_materials(gltf_doc *doc, crowd_error *error);

/* animation.c: every animation read and checked (doc->anims). */
crowd_result gltf_parse_animations(gltf_doc *doc, crowd_error *error);

/* regions.c: colour conversions (glTF factors and vertex colours are linear; the asset's
 * palette, vertex colours and albedo are sRGB). */
uint8_t gltf_linear_to_srgb8(float linear);
float gltf_srgb8_to_linear(uint8_t srgb);

/* Component helpers. */
uint32_t gltf_component_size(uint32_t component);

#endif
