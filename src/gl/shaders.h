/* Internal: the GLSL sources (src/gl/glsl/, embedded at build time) and their version headers. */
#ifndef CROWD_GL_SHADERS_H
#define CROWD_GL_SHADERS_H

extern const char crowd_glsl_crowd_vert[];
extern const char crowd_glsl_attachment_vert[];
extern const char crowd_glsl_lit_frag[];
extern const char crowd_glsl_depth_frag[];
extern const char crowd_glsl_cull_comp[];
extern const char crowd_glsl_skinned_vert[];
extern const char crowd_glsl_imposter_vert[];
extern const char crowd_glsl_imposter_frag[];
extern const char crowd_glsl_blob_vert[];
extern const char crowd_glsl_blob_frag[];
/* The output transform (crowd_output, u_tone), prepended to every fragment shader. */
extern const char crowd_glsl_output_glsl[];
/* The record decode (crowd_rec, record_position...), prepended to every vertex and compute shader. */
extern const char crowd_glsl_record_glsl[];

/* Prepended to every source: GLSL ES 3.00 (WebGL2, GLES) or GLSL 3.30 (desktop core). */
#define CROWD_GLSL_ES_HEADER                                                                      \
    "#version 300 es\nprecision highp float;\nprecision highp int;\nprecision highp sampler2D;\n" \
    "precision highp usampler2D;\nprecision highp sampler2DShadow;\n"
#define CROWD_GLSL_DESKTOP_HEADER "#version 330 core\n"

#endif
