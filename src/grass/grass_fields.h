/* Internal: the grass field's interaction fields (trample pair, cut), see crowdbake/grass.h
 * crowd_grass_update_fields. Fragment-shader passes into RGBA8 render targets on every context. */
#ifndef CROWD_GRASS_FIELDS_H
#define CROWD_GRASS_FIELDS_H

#include <stdbool.h>
#include <stdint.h>

#include "crowdbake/grass.h"
#include "gl/gl_api.h"
#include "gl/program.h"

#define GRASS_MAX_STAMPS 16384u

typedef struct grass_fields {
    bool on;
    uint32_t resolution, cut_resolution;
    float texel; /* trample texel size, metres */
    GLuint trample[2], trample_fbo[2];
    int active; /* the texture of the pair the blades sample */
    GLuint cut, cut_fbo;
    GLuint stamp_vbo, stamp_vao, empty_vao;
    crowd_program decay, stamp;
    GLint du_source, du_shift, du_step, su_field, su_cut;
    /* the compute variant (desktop GL 4.3, desc.field_passes): the same passes on image bindings */
    bool compute;
    GLuint trample_program, cut_program;
    GLint tu_field, tu_discs, tu_shift, tu_step, cu_field, cu_discs;
    GLuint bins_buffer; /* the discs binned by tile (grass_field.comp's g_bins) */
    uint32_t *bins;
    size_t bins_capacity; /* words */
    int32_t origin[2];    /* the window's -x/-z corner in whole texels */
    bool origin_valid;
    float quiet; /* seconds since the last trample stamp: past hold + recovery the pair is all clear */
    bool cut_any;
    bool dirty;      /* a trail was stamped since the pair was last cleared */
    float *stamps;   /* x, z, radius, 0 per disc */
    uint32_t passes; /* GL passes the last update ran (decay, trample discs, cut discs) */
} grass_fields;

crowd_result grass_fields_create(grass_fields *f, const crowd_grass_desc *resolved, crowd_error *error);
void grass_fields_destroy(grass_fields *f);
void grass_fields_reset(grass_fields *f);

/* One update; eye_x/z, heading hx/hz: the default focus. Returns the discs stamped into the pair. */
uint32_t grass_fields_update(grass_fields *f, const crowd_grass_desc *d, float eye_x, float eye_z, float hx, float hz,
                             const crowd_grass_fields *in, uint64_t *cut_stamps);

/* Binds the active trample texture and the cut texture to units `unit` and `unit + 1` and sets the
 * blade program's u_trample_field and u_cut_field (locations) for them. */
void grass_fields_bind(const grass_fields *f, const crowd_grass_desc *d, int unit, GLint trample_field,
                       GLint cut_field);

/* Tests (stalls): the active trample texture (which 0) or the cut texture (1) as RGBA8 rows. */
bool grass_fields_read(const grass_fields *f, int which, uint8_t *rgba);

#endif
