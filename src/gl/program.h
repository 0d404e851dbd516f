/* Internal: compiling and linking programs, with the driver's log in the error. */
#ifndef CROWD_GL_PROGRAM_H
#define CROWD_GL_PROGRAM_H

#include <stdbool.h>

#include "crowdbake/base.h"
#include "gl/gl_api.h"

/* Uniforms every program may have; absent ones have location -1 (GL ignores those). */
typedef enum crowd_uniform {
    U_VIEW_PROJECTION,
    U_TIME,
    U_CLIPS,
    U_VERTEX_COUNT,
    U_BONES,
    U_BONE_WIDTH,
    U_BONE_COUNT,
    U_VAT_POSITIONS,
    U_VAT_NORMALS,
    U_VAT_WIDTH,
    U_BOX_MIN,
    U_BOX_SCALE,
    U_PALETTE,
    U_REGIONS,
    U_TINT_REGION,
    U_LIGHT_VIEW_PROJECTION,
    U_CAMERA,
    U_SUN_DIRECTION,
    U_SUN_COLOR,
    U_SKY_COLOR,
    U_GROUND_COLOR,
    U_FOG_COLOR,
    U_FOG_DENSITY,
    U_SHADOWS,
    U_SHADOW_MAP,
    U_SHADOW_TEXEL,
    U_ALBEDO,
    U_BONE,
    U_OFFSET,
    U_ACCESSORY_BIT,
    U_COLOR,
    U_FLAT,
    U_OUTPUT,
    U_BAND,
    U_IMPOSTER_CLIPS,
    U_IMPOSTER_GRID,
    U_IMPOSTER_ELEVATION,
    U_TILE_SCALE,
    U_CARD_LOD,
    U_IMPOSTER_ALBEDO,
    U_IMPOSTER_NORMALS,
    U_TONE,
    U_SKY_VIEW,
    U_SKY_FOCAL,
    U_SKY_BOTTOM,
    U_RECORDS,
    U_FIRST,
    U_GROUND_PAINT,
    U_GROUND_PAINT_MAP,
    U_GROUND_PAINT_HALF,
    U_BLOB,
    U_RUNS,
    U_RUN_COUNT,
    U_PREVIOUS_VIEW_PROJECTION,
    U_PREVIOUS_TIME,
    U_PREVIOUS_CAMERA,
    U_VELOCITY,
    U_VELOCITY_VIEWPORT,
    U_ATTACHMENT,
    U_ATTACHMENT_LOOK,
    U_COUNT
} crowd_uniform;

typedef struct crowd_program {
    GLuint id;
    GLint uniforms[U_COUNT];
} crowd_program;

/* Compiles `vertex` and `fragment` (bodies without #version) behind the right header and the
 * given #define lines ("BONES\nCROSS_FADE\n" style, may be NULL), links, and looks up uniforms.
 * `name` is for messages. */
crowd_result crowd_program_build(crowd_program *program, const char *name, bool es, const char *defines,
                                 const char *vertex, const char *fragment, crowd_error *error);
/* The same behind an explicit version header (the GPU-driven path's "#version 430 core"). */
crowd_result crowd_program_build_with(crowd_program *program, const char *name, const char *header, const char *defines,
                                      const char *vertex, const char *fragment, crowd_error *error);
void crowd_program_release(crowd_program *program);

#endif
