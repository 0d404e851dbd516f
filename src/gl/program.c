#include "gl/program.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "gl/shaders.h"

static const char *const uniform_names[U_COUNT] = {
    [U_VIEW_PROJECTION] = "u_view_projection",
    [U_TIME] = "u_time",
    [U_CLIPS] = "u_clips",
    [U_VERTEX_COUNT] = "u_vertex_count",
    [U_BONES] = "u_bones",
    [U_BONE_WIDTH] = "u_bone_width",
    [U_BONE_COUNT] = "u_bone_count",
    [U_VAT_POSITIONS] = "u_vat_positions",
    [U_VAT_NORMALS] = "u_vat_normals",
    [U_VAT_WIDTH] = "u_vat_width",
    [U_BOX_MIN] = "u_box_min",
    [U_BOX_SCALE] = "u_box_scale",
    [U_PALETTE] = "u_palette",
    [U_REGIONS] = "u_regions",
    [U_TINT_REGION] = "u_tint_region",
    [U_LIGHT_VIEW_PROJECTION] = "u_light_view_projection",
    [U_CAMERA] = "u_camera",
    [U_SUN_DIRECTION] = "u_sun_direction",
    [U_SUN_COLOR] = "u_sun_color",
    [U_SKY_COLOR] = "u_sky_color",
    [U_GROUND_COLOR] = "u_ground_color",
    [U_FOG_COLOR] = "u_fog_color",
    [U_FOG_DENSITY] = "u_fog_density",
    [U_SHADOWS] = "u_shadows",
    [U_SHADOW_MAP] = "u_shadow_map",
    [U_SHADOW_TEXEL] = "u_shadow_texel",
    [U_ALBEDO] = "u_albedo",
    [U_BONE] = "u_bone",
    [U_OFFSET] = "u_offset",
    [U_ACCESSORY_BIT] = "u_accessory_bit",
    [U_COLOR] = "u_color",
    [U_FLAT] = "u_flat",
    [U_OUTPUT] = "u_output",
    [U_BAND] = "u_band",
    [U_IMPOSTER_CLIPS] = "u_imposter_clips",
    [U_IMPOSTER_GRID] = "u_imposter_grid",
    [U_IMPOSTER_ELEVATION] = "u_imposter_elevation",
    [U_TILE_SCALE] = "u_tile_scale",
    [U_CARD_LOD] = "u_card_lod",
    [U_IMPOSTER_ALBEDO] = "u_imposter_albedo",
    [U_IMPOSTER_NORMALS] = "u_imposter_normals",
    [U_GROUND_PAINT] = "u_ground_paint",
    [U_GROUND_PAINT_MAP] = "u_ground_paint_map",
    [U_GROUND_PAINT_HALF] = "u_ground_paint_half",
    [U_TONE] = "u_tone",
    [U_SKY_VIEW] = "u_sky_view",
    [U_SKY_FOCAL] = "u_sky_focal",
    [U_SKY_BOTTOM] = "u_sky_bottom",
    [U_RECORDS] = "u_records",
    [U_FIRST] = "u_first",
    [U_BLOB] = "u_blob",
    [U_RUNS] = "u_runs",
    [U_RUN_COUNT] = "u_run_count",
    [U_PREVIOUS_VIEW_PROJECTION] = "u_previous_view_projection",
    [U_PREVIOUS_TIME] = "u_previous_time",
    [U_PREVIOUS_CAMERA] = "u_previous_camera",
    [U_VELOCITY] = "u_velocity",
    [U_VELOCITY_VIEWPORT] = "u_velocity_viewport",
    [U_ATTACHMENT] = "u_attachment",
    [U_ATTACHMENT_LOOK] = "u_attachment_look",
};

/* "A\nB\n" -> "#define A\n#define B\n" */
static void append_defines(char *out, size_t size, const char *defines)
{
    while (defines && *defines) {
        const char *end = strchr(defines, '\n');
        size_t n = end ? (size_t)(end - defines) : strlen(defines);
        size_t used = strlen(out);
        snprintf(out + used, size - used, "#define %.*s\n", (int)n, defines);
        defines += n + (end ? 1 : 0);
    }
}

static GLuint compile(GLenum stage, const char *name, const char *header, const char *defines, const char *body,
                      crowd_error *error)
{
    char preamble[1024];
    snprintf(preamble, sizeof preamble, "%s", header);
    append_defines(preamble, sizeof preamble, defines);
    /* every vertex shader gets the record decode (record.glsl): one definition for all readers */
    /* and every fragment shader the output transform (output.glsl: crowd_gl_scene.output) */
    const char *sources[3] = {preamble, stage == GL_VERTEX_SHADER ? crowd_glsl_record_glsl : crowd_glsl_output_glsl,
                              body};
    GLuint shader = glCreateShader(stage);
    glShaderSource(shader, 3, sources, NULL);
    glCompileShader(shader);
    GLint ok = GL_FALSE;
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    if (ok)
        return shader;
    char log[400] = "";
    glGetShaderInfoLog(shader, sizeof log, NULL, log);
    glDeleteShader(shader);
    crowd_fail(error, CROWD_ERROR_GL, "%s %s shader does not compile: %s", name,
               stage == GL_VERTEX_SHADER ? "vertex" : "fragment", log);
    return 0;
}

crowd_result crowd_program_build(crowd_program *program, const char *name, bool es, const char *defines,
                                 const char *vertex, const char *fragment, crowd_error *error)
{
    return crowd_program_build_with(program, name, es ? CROWD_GLSL_ES_HEADER : CROWD_GLSL_DESKTOP_HEADER, defines,
                                    vertex, fragment, error);
}

crowd_result crowd_program_build_with(crowd_program *program, const char *name, const char *header, const char *defines,
                                      const char *vertex, const char *fragment, crowd_error *error)
{
    memset(program, 0, sizeof *program);
    GLuint vs = compile(GL_VERTEX_SHADER, name, header, defines, vertex, error);
    if (!vs)
        return CROWD_ERROR_GL;
    GLuint fs = compile(GL_FRAGMENT_SHADER, name, header, defines, fragment, error);
    if (!fs) {
        glDeleteShader(vs);
        return CROWD_ERROR_GL;
    }
    GLuint id = glCreateProgram();
    glAttachShader(id, vs);
    glAttachShader(id, fs);
    glLinkProgram(id);
    glDeleteShader(vs);
    glDeleteShader(fs);
    GLint ok = GL_FALSE;
    glGetProgramiv(id, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[400] = "";
        glGetProgramInfoLog(id, sizeof log, NULL, log);
        glDeleteProgram(id);
        return crowd_fail(error, CROWD_ERROR_GL, "%s program does not link: %s", name, log);
    }
    program->id = id;
    for (int u = 0; u < U_COUNT; u++)
        program->uniforms[u] = glGetUniformLocation(id, uniform_names[u]);
    return CROWD_OK;
}

void crowd_program_release(crowd_program *program)
{
    if (program->id)
        glDeleteProgram(program->id);
    memset(program, 0, sizeof *program);
}
