#include "demo/motion_view.h"

#include <stdlib.h>

#include "core/error.h"
#include "gl/gl_api.h"
#include "gl/program.h"

/* One triangle over the viewport, no vertex buffer. */
static const char motion_vertex[] = "void main() {\n"
                                    "    vec2 p = vec2(gl_VertexID == 1 ? 3.0 : -1.0, gl_VertexID == 2 ? 3.0 : -1.0);\n"
                                    "    gl_Position = vec4(p, 0.0, 1.0);\n"
                                    "}\n";
/* Velocity in pixels a frame (the renderer's default units): its direction picks the hue (right
   red, up green, left cyan, down violet), its length how much of it covers the grey frame. */
static const char motion_fragment[] =
    "uniform highp sampler2D u_frame;\n"
    "uniform highp sampler2D u_velocity;\n"
    "out vec4 o_color;\n"
    "void main() {\n"
    "    ivec2 at = ivec2(gl_FragCoord.xy);\n"
    "    vec3 frame = texelFetch(u_frame, at, 0).rgb;\n"
    "    vec2 v = texelFetch(u_velocity, at, 0).xy;\n"
    "    float speed = length(v);\n"
    "    vec2 d = speed > 0.0 ? v / speed : vec2(0.0);\n"
    "    vec3 hue = clamp(vec3(0.5 + 0.5 * d.x, 0.5 + 0.5 * d.y, 0.5 - 0.5 * d.x), 0.0, 1.0);\n"
    "    float grey = dot(frame, vec3(0.3, 0.5, 0.2)) * 0.4;\n"
    "    o_color = vec4(mix(vec3(grey), hue, clamp(speed / 4.0, 0.0, 1.0)), 1.0);\n"
    "}\n";

struct demo_motion {
    crowd_program program;
    GLint u_frame, u_velocity;
    GLuint vao, fbo, frame, velocity, depth;
    int width, height;
    bool unsupported; /* RG16F is not renderable here (a WebGL2 page without EXT_color_buffer_float) */
};

crowd_result demo_motion_create(bool es, demo_motion **out, crowd_error *error)
{
    demo_motion *m = calloc(1, sizeof *m);
    if (!m)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "motion view: out of memory");
    crowd_result r = crowd_program_build(&m->program, "motion view", es, NULL, motion_vertex, motion_fragment, error);
    if (r != CROWD_OK) {
        demo_motion_destroy(m);
        return r;
    }
    m->u_frame = glGetUniformLocation(m->program.id, "u_frame");
    m->u_velocity = glGetUniformLocation(m->program.id, "u_velocity");
    glGenVertexArrays(1, &m->vao);
    *out = m;
    return CROWD_OK;
}

static void release_target(demo_motion *m)
{
    if (m->fbo)
        glDeleteFramebuffers(1, &m->fbo);
    GLuint textures[2] = {m->frame, m->velocity};
    glDeleteTextures(2, textures);
    if (m->depth)
        glDeleteRenderbuffers(1, &m->depth);
    m->fbo = m->frame = m->velocity = m->depth = 0;
    m->width = m->height = 0;
}

void demo_motion_destroy(demo_motion *m)
{
    if (!m)
        return;
    release_target(m);
    crowd_program_release(&m->program);
    if (m->vao)
        glDeleteVertexArrays(1, &m->vao);
    free(m);
}

static GLuint make_texture(GLenum format, int width, int height)
{
    GLuint t = 0;
    glGenTextures(1, &t);
    glBindTexture(GL_TEXTURE_2D, t);
    glTexStorage2D(GL_TEXTURE_2D, 1, format, width, height);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    return t;
}

/* A set-up call (first use, resize): it may ask the driver whether the target is complete. */
static bool make_target(demo_motion *m, int width, int height)
{
    release_target(m);
    m->frame = make_texture(GL_RGBA8, width, height);
    m->velocity = make_texture(GL_RG16F, width, height);
    glGenRenderbuffers(1, &m->depth);
    glBindRenderbuffer(GL_RENDERBUFFER, m->depth);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT24, width, height);
    glGenFramebuffers(1, &m->fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, m->fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, m->frame, 0);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT1, GL_TEXTURE_2D, m->velocity, 0);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, m->depth);
    if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
        release_target(m);
        m->unsupported = true;
        return false;
    }
    m->width = width;
    m->height = height;
    return true;
}

uint32_t demo_motion_begin(demo_motion *m, int width, int height)
{
    if (m->unsupported || ((m->width != width || m->height != height) && !make_target(m, width, height)))
        return 0;
    glBindFramebuffer(GL_FRAMEBUFFER, m->fbo);
    demo_motion_crowd_done(m);
    return m->fbo;
}

void demo_motion_crowd_begin(demo_motion *m)
{
    if (!m->fbo)
        return;
    const GLenum both[2] = {GL_COLOR_ATTACHMENT0, GL_COLOR_ATTACHMENT1};
    glDrawBuffers(2, both);
    const float zero[4] = {0, 0, 0, 0};
    glClearBufferfv(GL_COLOR, 1, zero);
}

void demo_motion_crowd_done(demo_motion *m)
{
    if (!m->fbo)
        return;
    const GLenum colour_only[2] = {GL_COLOR_ATTACHMENT0, GL_NONE};
    glDrawBuffers(2, colour_only);
}

void demo_motion_present(demo_motion *m, uint32_t framebuffer, int width, int height)
{
    if (!m->fbo)
        return;
    glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);
    glViewport(0, 0, width, height);
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_BLEND);
    glUseProgram(m->program.id);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, m->frame);
    glActiveTexture(GL_TEXTURE1);
    glBindTexture(GL_TEXTURE_2D, m->velocity);
    glUniform1i(m->u_frame, 0);
    glUniform1i(m->u_velocity, 1);
    glBindVertexArray(m->vao);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    glBindVertexArray(0);
    glActiveTexture(GL_TEXTURE0);
    glEnable(GL_DEPTH_TEST);
}
