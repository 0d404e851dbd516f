/* The CPU's socket and bone transforms (crowd.h: crowd_socket_transforms, crowd_bone_transforms)
 * agree with what the GPU draws within 0.1 mm. The renderer's own attachment program (attachment.vert
 * behind record.glsl, built by crowd_program_build as the renderer builds it) runs over a small mesh
 * per socket with transform feedback capturing its world output (v_world), reading the renderer's
 * own clip and bone textures, uniforms from the renderer's attachments (socket bone, offset), and the
 * crowd's records at crowd_time(). Each captured vertex is compared with the CPU transform applied
 * to it, for instances that loop between baked frames, cross-fade (into a loop and into a one-shot),
 * hold a one-shot before and after its end, turn (extrapolated position and yaw), walk on, and carry
 * scale != 1 and yaw != 0; the bone form likewise (the bone's bind transform as the offset). Control:
 * the same comparison against the CPU's transforms one frame later must fail the bound. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "crowd/crowd_internal.h"
#include "crowd/record.h"
#include "crowdbake/crowd.h"
#include "gl/gl_api.h"
#include "gl/renderer_internal.h"
#include "gl/shaders.h"
#include "gl_fixture.h"
#include "test_support.h"

#define COUNT 10u
#define VERTS 8u
#define BOUND 1e-4f /* metres: what "agrees" means */

static crowd_bake_output baked;
static crowd_asset asset;
static tool_gl gl;
static bool es;

/* The attachment mesh, in socket space: a 0.2 m box's corners, a point 0.6 m up the socket's +y
 * (rotations show there) and one off to the side. */
static const float mesh[VERTS][3] = {{-0.1f, -0.1f, -0.1f}, {0.1f, -0.1f, 0.1f}, {0.1f, 0.1f, -0.1f},
                                     {-0.1f, 0.1f, 0.1f},   {0.0f, 0.6f, 0.0f},  {0.4f, 0.0f, -0.3f},
                                     {0.0f, 0.0f, 0.0f},    {-0.2f, 0.3f, 0.25f}};

/* Instances in every state the decode must follow at crowd_time() (each named in `what`). */
static const char *const what[COUNT] = {
    "loop between frames",       "walking on, yaw, scale", "mid cross-fade", "one-shot held, before its end",
    "one-shot after its end",    "fading into a one-shot", "turning",        "turning, scale 0.5",
    "loop, yaw -2.5, scale 1.8", "cross-fade, walking on"};

static void play_states(crowd *c)
{
    uint32_t walk = clip_or_die(&asset, "walk"), run = clip_or_die(&asset, "run"), cheer = clip_or_die(&asset, "cheer"),
             idle = clip_or_die(&asset, "idle");
    CHECK(crowd_set_velocity(c, 1, 1.1f, 0.6f) == CROWD_OK);
    CHECK(crowd_play(c, 2, run, 1.4f, 1.0f) == CROWD_OK);
    CHECK(crowd_play_once(c, 3, cheer, 0.5f, 0.0f) == CROWD_OK);
    CHECK(crowd_play_once(c, 4, cheer, 4.0f, 0.0f) == CROWD_OK);
    CHECK(crowd_play_once(c, 5, cheer, 0.8f, 0.6f) == CROWD_OK);
    CHECK(crowd_play(c, 9, idle, 0.7f, 0.8f) == CROWD_OK);
    CHECK(crowd_set_velocity(c, 9, -0.4f, 0.9f) == CROWD_OK);
    for (uint32_t i = 6; i <= 7; i++) { /* turning records, as the simulation writes them */
        crowd_record *r = &c->records[crowd_slot_of(c, i)];
        CHECK(crowd_play(c, i, walk, 1.0f, 0.0f) == CROWD_OK);
        r->velocity = crowd_pack_velocity(1.4f, -0.2f * (float)i);
        r->ref_time = crowd_time(c);
        r->offset_b = -0.5f, r->rate_b = 1.2f, r->fade_start = 1.3f, r->fade_rate = 0.0f;
        crowd_rec_set_clip_b(r, crowd_rec_clip_a(r));
        r->clips |= CROWD_RECORD_TURN;
        c->dirty[crowd_slot_of(c, i)] = 1;
    }
}

/* The states `what` names, read back from the records (a test that missed them would prove less). */
static void states_are_as_named(const crowd *c)
{
    crowd_record r[COUNT];
    float t = crowd_time(c);
    for (uint32_t i = 0; i < COUNT; i++)
        CHECK(crowd_get(c, i, &r[i]) == CROWD_OK);
    crowd_clip_sample s;
    CHECK(crowd_record_sample(&asset, &r[0], 0, t, &s) == CROWD_OK && s.t > 0.05f && s.t < 0.95f);
    CHECK(r[0].yaw == 0.0f && r[0].scale == 1.0f && r[8].scale == 1.8f);
    CHECK(r[1].velocity != 0u && r[9].velocity != 0u);
    for (uint32_t i = 2; i <= 9; i += 7)
        CHECKF(test_fade_weight(&r[i], t) > 0.2f && test_fade_weight(&r[i], t) < 0.8f, "instance %u's fade weight %g",
               i, (double)test_fade_weight(&r[i], t));
    CHECK((r[3].clips & CROWD_RECORD_HOLD_A) && r[3].offset_a + t * r[3].rate_a < 0.9f);
    CHECK((r[4].clips & CROWD_RECORD_HOLD_A) && r[4].offset_a + t * r[4].rate_a > 1.2f);
    CHECK((r[5].clips & CROWD_RECORD_HOLD_B) && test_fade_weight(&r[5], t) > 0.2f && test_fade_weight(&r[5], t) < 0.9f);
    for (uint32_t i = 6; i <= 7; i++)
        CHECK((r[i].clips & CROWD_RECORD_TURN) && fabsf(crowd_record_yaw(&r[i], t) - r[i].yaw) > 0.1f);
}

static crowd *states_crowd(void)
{
    crowd_desc d;
    memset(&d, 0, sizeof d);
    d.asset = &asset;
    d.capacity = 64;
    crowd *c = NULL;
    crowd_error err;
    if (crowd_create(&d, &c, &err) != CROWD_OK) {
        fprintf(stderr, "crowd_create: %s\n", err.message);
        exit(1);
    }
    uint32_t walk = clip_or_die(&asset, "walk");
    CHECK(crowd_set_count(c, COUNT) == CROWD_OK);
    for (uint32_t i = 0; i < COUNT; i++) {
        float yaw = i == 0 ? 0.0f : i == 8 ? -2.5f : 0.7f * (float)i - 1.9f;
        float scale = i == 7 ? 0.5f : i == 8 ? 1.8f : i == 0 ? 1.0f : 0.8f + 0.07f * (float)i;
        CHECK(crowd_set_transform(c, i, 2.5f * (float)i - 11.0f, 0.05f * (float)i, 4.0f - 0.9f * (float)i, yaw) ==
              CROWD_OK);
        CHECK(crowd_set_scale(c, i, scale) == CROWD_OK);
        CHECK(crowd_play(c, i, walk, 1.0f, 0.0f) == CROWD_OK);
        CHECK(crowd_set_phase(c, i, 0.097f * (float)i + 0.043f) == CROWD_OK); /* between baked frames */
        CHECK(crowd_set_variant(c, i, &(crowd_variant){.accessories = 1}) == CROWD_OK);
    }
    crowd_view v;
    memset(&v, 0, sizeof v);
    test_view_at(&v, 0, 20, 30, 0, 0, 0);
    CHECK(crowd_update(c, 0.3f, &v) != NULL);
    play_states(c);
    CHECK(crowd_update(c, 0.45f, &v) != NULL);
    states_are_as_named(c);
    return c;
}

/* 3x4 row-major -> 4x4 column-major, as the renderer hands a socket's offset to the shader. */
static void mat34_to_mat4(const float m[12], float out[16])
{
    for (int row = 0; row < 3; row++)
        for (int col = 0; col < 4; col++)
            out[col * 4 + row] = m[row * 4 + col];
    out[3] = out[7] = out[11] = 0.0f;
    out[15] = 1.0f;
}

/* The renderer's attachment program with v_world captured: the renderer's build, relinked with the
 * feedback varying (the shaders stay attached to the program after the build's link). */
static GLuint capture_program(void)
{
    crowd_program p;
    crowd_error err;
    if (crowd_program_build(&p, "attachment", es, NULL, crowd_glsl_attachment_vert, crowd_glsl_lit_frag, &err) !=
        CROWD_OK) {
        fprintf(stderr, "%s\n", err.message);
        exit(1);
    }
    const char *varyings[1] = {"v_world"};
    glTransformFeedbackVaryings(p.id, 1, varyings, GL_INTERLEAVED_ATTRIBS);
    glLinkProgram(p.id);
    GLint ok = GL_FALSE;
    glGetProgramiv(p.id, GL_LINK_STATUS, &ok);
    if (!ok) {
        fprintf(stderr, "the attachment program does not relink with transform feedback\n");
        exit(1);
    }
    return p.id;
}

typedef struct capture {
    GLuint program, vao, mesh_buffer, record_buffer, feedback;
} capture;

static void instance_attribute(GLuint location, GLint size, bool integer, size_t offset)
{
    glEnableVertexAttribArray(location);
    if (integer)
        glVertexAttribIPointer(location, size, GL_UNSIGNED_INT, sizeof(crowd_record), (const void *)offset);
    else
        glVertexAttribPointer(location, size, GL_FLOAT, GL_FALSE, sizeof(crowd_record), (const void *)offset);
    glVertexAttribDivisor(location, 1);
}

static capture capture_create(void)
{
    capture k;
    k.program = capture_program();
    glGenVertexArrays(1, &k.vao);
    glBindVertexArray(k.vao);
    glGenBuffers(1, &k.mesh_buffer);
    glBindBuffer(GL_ARRAY_BUFFER, k.mesh_buffer);
    glBufferData(GL_ARRAY_BUFFER, sizeof mesh, mesh, GL_STATIC_DRAW);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 12, NULL);
    glEnableVertexAttribArray(1); /* the normals: the mesh's points will do (only v_world is read) */
    glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, 12, NULL);
    glGenBuffers(1, &k.record_buffer);
    glBindBuffer(GL_ARRAY_BUFFER, k.record_buffer);
    glBufferData(GL_ARRAY_BUFFER, COUNT * sizeof(crowd_record), NULL, GL_DYNAMIC_DRAW);
    instance_attribute(8, 4, false, 0);
    instance_attribute(9, 4, false, 16);
    instance_attribute(10, 4, false, 32);
    instance_attribute(11, 4, true, 48);
    glBindVertexArray(0);
    glGenBuffers(1, &k.feedback);
    glBindBuffer(GL_TRANSFORM_FEEDBACK_BUFFER, k.feedback);
    glBufferData(GL_TRANSFORM_FEEDBACK_BUFFER, COUNT * VERTS * 12, NULL, GL_DYNAMIC_READ);
    return k;
}

static void capture_destroy(capture *k)
{
    glDeleteProgram(k->program);
    glDeleteVertexArrays(1, &k->vao);
    GLuint buffers[3] = {k->mesh_buffer, k->record_buffer, k->feedback};
    glDeleteBuffers(3, buffers);
}

static void set_uniforms(GLuint program, const crowd_gl_renderer *r, float time, uint32_t bone, const float offset[16])
{
    static const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    glUseProgram(program);
    glUniformMatrix4fv(glGetUniformLocation(program, "u_view_projection"), 1, GL_FALSE, identity);
    glUniformMatrix4fv(glGetUniformLocation(program, "u_light_view_projection"), 1, GL_FALSE, identity);
    glUniform1f(glGetUniformLocation(program, "u_time"), time);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, r->tex_clips);
    glActiveTexture(GL_TEXTURE1);
    glBindTexture(GL_TEXTURE_2D, r->tex_bones);
    glUniform1i(glGetUniformLocation(program, "u_clips"), 0);
    glUniform1i(glGetUniformLocation(program, "u_bones"), 1);
    glUniform1i(glGetUniformLocation(program, "u_bone_width"), (GLint)asset.bones.width);
    glUniform1i(glGetUniformLocation(program, "u_bone_count"), (GLint)asset.bone_count);
    glUniform1i(glGetUniformLocation(program, "u_bone"), (GLint)bone);
    glUniformMatrix4fv(glGetUniformLocation(program, "u_offset"), 1, GL_FALSE, offset);
    glUniform1ui(glGetUniformLocation(program, "u_accessory_bit"), 0u);
    glUniform3f(glGetUniformLocation(program, "u_color"), 1.0f, 1.0f, 1.0f);
}

/* The shader's world positions of every mesh vertex of every record: out[(i * VERTS + v) * 3]. */
static void run_capture(const capture *k, const crowd_gl_renderer *r, const crowd_record *records, float time,
                        uint32_t bone, const float offset[16], float *out)
{
    set_uniforms(k->program, r, time, bone, offset);
    glBindBuffer(GL_ARRAY_BUFFER, k->record_buffer);
    glBufferSubData(GL_ARRAY_BUFFER, 0, COUNT * sizeof(crowd_record), records);
    glBindVertexArray(k->vao);
    glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, k->feedback);
    glEnable(GL_RASTERIZER_DISCARD);
    glBeginTransformFeedback(GL_POINTS);
    glDrawArraysInstanced(GL_POINTS, 0, VERTS, COUNT);
    glEndTransformFeedback();
    glDisable(GL_RASTERIZER_DISCARD);
    glBindVertexArray(0);
    const float *mapped = glMapBufferRange(GL_TRANSFORM_FEEDBACK_BUFFER, 0, COUNT * VERTS * 12, GL_MAP_READ_BIT);
    CHECK(mapped != NULL);
    if (mapped)
        memcpy(out, mapped, COUNT * VERTS * 12);
    glUnmapBuffer(GL_TRANSFORM_FEEDBACK_BUFFER);
    crowd_error e;
    CHECKF(crowd_gl_check("transform feedback", &e) == CROWD_OK, "%s", e.message);
}

/* Worst distance, per instance, between the captured vertices and the CPU transforms applied to the mesh. */
static float compare(const float *gpu, const float *transforms, float worst[COUNT])
{
    float all = 0.0f;
    for (uint32_t i = 0; i < COUNT; i++) {
        const float *m = transforms + 12 * i;
        for (uint32_t v = 0; v < VERTS; v++) {
            const float *q = mesh[v], *g = gpu + (i * VERTS + v) * 3;
            float d2 = 0.0f;
            for (int row = 0; row < 3; row++) {
                float at = m[4 * row] * q[0] + m[4 * row + 1] * q[1] + m[4 * row + 2] * q[2] + m[4 * row + 3];
                d2 += (at - g[row]) * (at - g[row]);
            }
            worst[i] = fmaxf(worst[i], sqrtf(d2));
            all = fmaxf(all, sqrtf(d2));
        }
    }
    return all;
}

/* Each socket through the renderer's attachments, and each socket's bone, against the GPU. */
static void cpu_transforms_match_the_gpu(void)
{
    crowd *c = states_crowd();
    crowd_gl_desc d = {.asset = &asset, .capacity = crowd_record_capacity(c), .shadow_map_size = 256, .es = gl.es};
    crowd_gl_renderer *r = gl_fixture_renderer(&d, 0.0f);
    static const uint32_t indices[3] = {0, 1, 2};
    for (uint32_t s = 0; s < asset.socket_count && s < CROWD_GL_MAX_ATTACHMENTS; s++) {
        crowd_gl_attachment_desc a = {.positions = &mesh[0][0],
                                      .normals = &mesh[0][0],
                                      .vertex_count = VERTS,
                                      .indices = indices,
                                      .index_count = 3,
                                      .socket = asset.sockets[s].name};
        REQUIRE(crowd_gl_add_attachment(r, &a, NULL, NULL) == CROWD_OK);
    }
    capture k = capture_create();
    crowd_record records[COUNT];
    for (uint32_t i = 0; i < COUNT; i++)
        REQUIRE(crowd_get(c, i, &records[i]) == CROWD_OK);
    float time = crowd_time(c), gpu[COUNT * VERTS * 3], cpu[COUNT * 12], later[COUNT * 12];
    float worst[COUNT] = {0}, all = 0.0f, control = INFINITY;
    for (uint32_t s = 0; s < r->attachment_count; s++) {
        for (int bone = 0; bone < 2; bone++) { /* the socket, then its bone */
            uint32_t b = r->attachments[s].bone;
            float offset[16];
            if (bone)
                mat34_to_mat4(asset.bones_info[b].bind, offset);
            else
                memcpy(offset, r->attachments[s].offset, sizeof offset);
            run_capture(&k, r, records, time, b, offset, gpu);
            crowd_result got =
                bone ? crowd_bone_transforms(c, NULL, COUNT, b, cpu) : crowd_socket_transforms(c, NULL, COUNT, s, cpu);
            REQUIRE(got == CROWD_OK);
            for (uint32_t i = 0; i < COUNT; i++) { /* the single calls are the bulk's entries */
                float one[12];
                REQUIRE((bone ? crowd_bone_transform(c, i, b, one) : crowd_socket_transform(c, i, s, one)) == CROWD_OK);
                CHECK(!memcmp(one, cpu + 12 * i, sizeof one));
            }
            all = fmaxf(all, compare(gpu, cpu, worst));
            /* control: a frame (1/60 s) later the CPU's transforms must miss the GPU's by more */
            for (uint32_t i = 0; i < COUNT; i++) {
                crowd_error e;
                REQUIRE((bone ? crowd_record_bone(&asset, &records[i], b, time + 1.0f / 60.0f, later + 12 * i, &e)
                              : crowd_record_socket(&asset, &records[i], s, time + 1.0f / 60.0f, later + 12 * i, &e)) ==
                        CROWD_OK);
            }
            float shifted[COUNT] = {0};
            control = fminf(control, compare(gpu, later, shifted));
        }
    }
    for (uint32_t i = 0; i < COUNT; i++)
        printf("     instance %u (%s): worst vertex %.3g mm from the CPU transform\n", i, what[i],
               (double)worst[i] * 1e3);
    printf("     %u sockets and their bones x %u instances x %u vertices: worst %.3g mm (bound %.1f mm); the CPU "
           "a frame later: at least %.3g mm\n",
           r->attachment_count, COUNT, VERTS, (double)all * 1e3, (double)BOUND * 1e3, (double)control * 1e3);
    CHECKF(all < BOUND, "the CPU transforms miss the GPU's by %g m", (double)all);
    CHECKF(control > 10.0f * BOUND, "a frame later still agrees (%g m): the comparison proves nothing",
           (double)control);
    capture_destroy(&k);
    crowd_gl_destroy(r);
    crowd_destroy(c);
}

int main(int argc, char **argv)
{
    gl_fixture_open(argc, argv, 64, 64, &gl, &baked, &asset);
    es = gl.es;
    RUN_TEST(cpu_transforms_match_the_gpu);
    gl_fixture_close(&gl, &baked, &asset);
    TEST_MAIN_END();
}
