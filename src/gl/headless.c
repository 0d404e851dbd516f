/* A windowless GL context through EGL's surfaceless platform and one offscreen framebuffer
 * (crowdbake/gl_headless.h). */
#include "crowdbake/gl_headless.h"

#include <epoxy/egl.h>
#include <epoxy/gl.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"

struct crowd_gl_headless {
    EGLDisplay display;
    EGLContext context;
    GLuint fbo, color, depth; /* the target (multisampled when asked) */
    GLuint resolve_fbo, resolve_color;
    int width, height, samples;
    char renderer[128];
};

/* Makes a context of the kind asked current (display initialised, API bound). */
static crowd_result make_context(crowd_gl_headless *h, bool es, crowd_error *error)
{
    h->display = eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
    EGLint major = 0, minor = 0;
    if (h->display == EGL_NO_DISPLAY || !eglInitialize(h->display, &major, &minor)) {
        h->display = EGL_NO_DISPLAY;
        return crowd_fail(error, CROWD_ERROR_GL, "EGL: no surfaceless display (is Mesa's libegl-mesa0 installed?)");
    }
    if (!eglBindAPI(es ? EGL_OPENGL_ES_API : EGL_OPENGL_API))
        return crowd_fail(error, CROWD_ERROR_GL, "EGL: cannot bind the %s API", es ? "OpenGL ES" : "OpenGL");
    const EGLint config_attributes[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE,
                                        es ? EGL_OPENGL_ES3_BIT : EGL_OPENGL_BIT, EGL_NONE};
    EGLConfig config;
    EGLint configs = 0;
    if (!eglChooseConfig(h->display, config_attributes, &config, 1, &configs) || configs == 0)
        return crowd_fail(error, CROWD_ERROR_GL, "EGL: no config for %s", es ? "OpenGL ES 3" : "OpenGL");
    const EGLint es_attributes[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 0, EGL_NONE};
    const EGLint gl_attributes[] = {
        EGL_CONTEXT_MAJOR_VERSION,           3,       EGL_CONTEXT_MINOR_VERSION, 3, EGL_CONTEXT_OPENGL_PROFILE_MASK,
        EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
    h->context = eglCreateContext(h->display, config, EGL_NO_CONTEXT, es ? es_attributes : gl_attributes);
    if (h->context == EGL_NO_CONTEXT) {
        return crowd_fail(error, CROWD_ERROR_GL, "EGL: cannot create a %s context",
                          es ? "OpenGL ES 3.0" : "OpenGL 3.3 core");
    }
    if (!eglMakeCurrent(h->display, EGL_NO_SURFACE, EGL_NO_SURFACE, h->context))
        return crowd_fail(error, CROWD_ERROR_GL, "EGL: cannot make the context current");
    snprintf(h->renderer, sizeof h->renderer, "%s", (const char *)glGetString(GL_RENDERER));
    return CROWD_OK;
}

static GLuint renderbuffer(int samples, GLenum format, int width, int height)
{
    GLuint rb = 0;
    glGenRenderbuffers(1, &rb);
    glBindRenderbuffer(GL_RENDERBUFFER, rb);
    if (samples > 1)
        glRenderbufferStorageMultisample(GL_RENDERBUFFER, samples, format, width, height);
    else
        glRenderbufferStorage(GL_RENDERBUFFER, format, width, height);
    return rb;
}

static GLuint framebuffer(GLuint color, GLuint depth)
{
    GLuint fbo = 0;
    glGenFramebuffers(1, &fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, color);
    if (depth)
        glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, depth);
    return fbo;
}

/* The target, and a single-sampled copy to resolve into when it is multisampled. */
static crowd_result make_framebuffers(crowd_gl_headless *h, crowd_error *error)
{
    while (glGetError() != GL_NO_ERROR) {
    }
    h->color = renderbuffer(h->samples, GL_RGBA8, h->width, h->height);
    h->depth = renderbuffer(h->samples, GL_DEPTH_COMPONENT24, h->width, h->height);
    if (h->samples > 1) {
        h->resolve_color = renderbuffer(0, GL_RGBA8, h->width, h->height);
        h->resolve_fbo = framebuffer(h->resolve_color, 0);
    }
    h->fbo = framebuffer(h->color, h->depth);
    GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER), gl_error = glGetError();
    if (status != GL_FRAMEBUFFER_COMPLETE || gl_error != GL_NO_ERROR)
        return crowd_fail(error, CROWD_ERROR_GL, "offscreen framebuffer %dx%d with %d samples: status 0x%x, error 0x%x",
                          h->width, h->height, h->samples, status, gl_error);
    glViewport(0, 0, h->width, h->height);
    return CROWD_OK;
}

crowd_result crowd_gl_headless_create(const crowd_gl_headless_desc *desc, crowd_gl_headless **out, crowd_error *error)
{
    if (!desc || !out)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_gl_headless_create: NULL desc or out");
    *out = NULL;
    if (desc->width < 1 || desc->width > 16384 || desc->height < 1 || desc->height > 16384)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_gl_headless_create: size %dx%d out of 1..16384",
                          desc->width, desc->height);
    if (desc->samples < 0 || desc->samples > 16)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_gl_headless_create: %d samples out of 0..16",
                          desc->samples);
    crowd_gl_headless *h = crowd_calloc(1, sizeof *h);
    if (!h)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "crowd_gl_headless_create: out of memory");
    h->display = EGL_NO_DISPLAY;
    h->context = EGL_NO_CONTEXT;
    h->width = desc->width;
    h->height = desc->height;
    h->samples = desc->samples;
    crowd_result r = make_context(h, desc->es, error);
    if (r == CROWD_OK)
        r = make_framebuffers(h, error);
    if (r != CROWD_OK) {
        crowd_gl_headless_destroy(h);
        return r;
    }
    *out = h;
    return CROWD_OK;
}

void crowd_gl_headless_destroy(crowd_gl_headless *h)
{
    if (!h)
        return;
    if (h->context != EGL_NO_CONTEXT &&
        eglMakeCurrent(h->display, EGL_NO_SURFACE, EGL_NO_SURFACE, h->context)) { /* its objects, not the caller's */
        GLuint fbos[2] = {h->fbo, h->resolve_fbo}, rbs[3] = {h->color, h->depth, h->resolve_color};
        glDeleteFramebuffers(2, fbos);
        glDeleteRenderbuffers(3, rbs);
        eglMakeCurrent(h->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    }
    if (h->context != EGL_NO_CONTEXT)
        eglDestroyContext(h->display, h->context);
    if (h->display != EGL_NO_DISPLAY)
        eglTerminate(h->display);
    crowd_free(h);
}

uint32_t crowd_gl_headless_framebuffer(const crowd_gl_headless *h)
{
    return h ? h->fbo : 0;
}

const char *crowd_gl_headless_renderer(const crowd_gl_headless *h)
{
    return h ? h->renderer : "";
}

crowd_result crowd_gl_headless_read_rgba(crowd_gl_headless *h, uint8_t *rgba, crowd_error *error)
{
    if (!h || !rgba)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_gl_headless_read_rgba: NULL context or pixels");
    while (glGetError() != GL_NO_ERROR) { /* the caller's, not the read's */
    }
    GLuint source = h->fbo;
    if (h->resolve_fbo) {
        glBindFramebuffer(GL_READ_FRAMEBUFFER, h->fbo);
        glBindFramebuffer(GL_DRAW_FRAMEBUFFER, h->resolve_fbo);
        glBlitFramebuffer(0, 0, h->width, h->height, 0, 0, h->width, h->height, GL_COLOR_BUFFER_BIT, GL_NEAREST);
        source = h->resolve_fbo;
    }
    glBindFramebuffer(GL_READ_FRAMEBUFFER, source);
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    glReadPixels(0, 0, h->width, h->height, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    GLenum gl_error = glGetError();
    glBindFramebuffer(GL_FRAMEBUFFER, h->fbo);
    if (gl_error != GL_NO_ERROR)
        return crowd_fail(error, CROWD_ERROR_GL, "crowd_gl_headless_read_rgba: GL error 0x%x", gl_error);
    size_t row = (size_t)h->width * 4; /* GL rows are bottom-up: swap them in place */
    for (int y = 0; y < h->height / 2; y++) {
        uint8_t *a = rgba + (size_t)y * row, *b = rgba + (size_t)(h->height - 1 - y) * row;
        for (size_t i = 0; i < row; i++) {
            uint8_t t = a[i];
            a[i] = b[i];
            b[i] = t;
        }
    }
    return CROWD_OK;
}
