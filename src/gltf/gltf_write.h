/* Internal: the .glb writer's state, shared by write.c (document, mesh, skin, materials, GLB
 * container) and write_anim.c (clips sampled into keyframes). */
#ifndef CROWD_GLTF_WRITE_H
#define CROWD_GLTF_WRITE_H

#include "gltf/gltf_internal.h"

typedef struct gltf_writer {
    const crowd_rig *rig;
    float fps;
    cJSON *root, *accessors, *views;
    uint8_t *bin;
    size_t bin_size, bin_capacity;
    uint32_t mesh_node; /* node index of the skinned mesh */
    bool failed;        /* out of memory somewhere: checked once at the end */
} gltf_writer;

/* Appends `count` elements of `type` ("VEC3", ...) and `component` (5121 ... 5126) from `data` as
 * a new bufferView + accessor; returns the accessor index. `bounds` adds min/max (float data). */
int gltf_write_accessor(gltf_writer *w, const void *data, uint32_t count, const char *type, uint32_t component,
                        bool bounds);

/* cJSON helpers that record allocation failure in w->failed instead of returning NULL. */
cJSON *gltf_write_add(gltf_writer *w, cJSON *parent, const char *key, cJSON *item);
cJSON *gltf_write_floats(gltf_writer *w, const float *v, int n);

/* write_anim.c: one animation per clip. */
void gltf_write_animations(gltf_writer *w);

#endif
