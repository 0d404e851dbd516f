#include "gl_context.h"

#include <epoxy/egl.h>
#include <epoxy/gl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "crowdbake/bake.h"

/* stb_image_write's implementation is compiled once, in crowd_bake (src/gltf/stb_image_impl.c). */
#include <stb/stb_image_write.h>

crowd_result tool_gl_create(tool_gl *gl, int width, int height, bool es, crowd_error *error)
{
    return tool_gl_create_samples(gl, width, height, es, 4, error);
}

static void renderbuffer_storage(int samples, GLenum format, int width, int height)
{
    if (samples > 0)
        glRenderbufferStorageMultisample(GL_RENDERBUFFER, samples, format, width, height);
    else
        glRenderbufferStorage(GL_RENDERBUFFER, format, width, height);
}

crowd_result tool_gl_create_samples(tool_gl *gl, int width, int height, bool es, int samples, crowd_error *error)
{
    memset(gl, 0, sizeof *gl);
    gl->width = width;
    gl->height = height;
    gl->es = es;
    EGLDisplay display = eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
    EGLint major = 0, minor = 0;
    if (display == EGL_NO_DISPLAY || !eglInitialize(display, &major, &minor))
        return crowd_fail(error, CROWD_ERROR_GL, "EGL: no surfaceless display (is Mesa's libegl-mesa0 installed?)");
    gl->display = display;
    if (!eglBindAPI(es ? EGL_OPENGL_ES_API : EGL_OPENGL_API)) {
        tool_gl_destroy(gl);
        return crowd_fail(error, CROWD_ERROR_GL, "EGL: cannot bind the %s API", es ? "OpenGL ES" : "OpenGL");
    }
    const EGLint config_attributes[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE,
                                        es ? EGL_OPENGL_ES3_BIT : EGL_OPENGL_BIT, EGL_NONE};
    EGLConfig config;
    EGLint configs = 0;
    if (!eglChooseConfig(display, config_attributes, &config, 1, &configs) || configs == 0) {
        tool_gl_destroy(gl);
        return crowd_fail(error, CROWD_ERROR_GL, "EGL: no config for %s", es ? "OpenGL ES 3" : "OpenGL");
    }
    const EGLint es_attributes[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 0, EGL_NONE};
    const EGLint gl_attributes[] = {
        EGL_CONTEXT_MAJOR_VERSION,           3,       EGL_CONTEXT_MINOR_VERSION, 3, EGL_CONTEXT_OPENGL_PROFILE_MASK,
        EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
    gl->context = eglCreateContext(display, config, EGL_NO_CONTEXT, es ? es_attributes : gl_attributes);
    if (gl->context == EGL_NO_CONTEXT || !eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, gl->context)) {
        tool_gl_destroy(gl);
        return crowd_fail(error, CROWD_ERROR_GL, "EGL: cannot create or make current a %s context",
                          es ? "OpenGL ES 3.0" : "OpenGL 3.3 core");
    }
    snprintf(gl->renderer, sizeof gl->renderer, "%s", (const char *)glGetString(GL_RENDERER));

    glGenRenderbuffers(1, &gl->color);
    glBindRenderbuffer(GL_RENDERBUFFER, gl->color);
    renderbuffer_storage(samples, GL_RGBA8, width, height);
    glGenRenderbuffers(1, &gl->depth);
    glBindRenderbuffer(GL_RENDERBUFFER, gl->depth);
    renderbuffer_storage(samples, GL_DEPTH_COMPONENT24, width, height);
    glGenFramebuffers(1, &gl->fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, gl->fbo);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, gl->color);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, gl->depth);
    glGenRenderbuffers(1, &gl->resolve_color);
    glBindRenderbuffer(GL_RENDERBUFFER, gl->resolve_color);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width, height);
    glGenFramebuffers(1, &gl->resolve_fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, gl->resolve_fbo);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, gl->resolve_color);
    glBindFramebuffer(GL_FRAMEBUFFER, gl->fbo);
    if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
        tool_gl_destroy(gl);
        return crowd_fail(error, CROWD_ERROR_GL, "offscreen framebuffer incomplete");
    }
    glViewport(0, 0, width, height);
    return CROWD_OK;
}

void tool_gl_destroy(tool_gl *gl)
{
    if (gl->context) {
        glDeleteFramebuffers(1, &gl->fbo);
        glDeleteFramebuffers(1, &gl->resolve_fbo);
        GLuint rb[3] = {gl->color, gl->depth, gl->resolve_color};
        glDeleteRenderbuffers(3, rb);
        eglMakeCurrent(gl->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        eglDestroyContext(gl->display, gl->context);
    }
    if (gl->display)
        eglTerminate(gl->display);
    memset(gl, 0, sizeof *gl);
}

void tool_gl_read_rgb(tool_gl *gl, uint8_t *rgb)
{
    glBindFramebuffer(GL_READ_FRAMEBUFFER, gl->fbo);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, gl->resolve_fbo);
    glBlitFramebuffer(0, 0, gl->width, gl->height, 0, 0, gl->width, gl->height, GL_COLOR_BUFFER_BIT, GL_NEAREST);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, gl->resolve_fbo);
    uint8_t *rgba = malloc((size_t)gl->width * gl->height * 4);
    if (rgba) {
        glPixelStorei(GL_PACK_ALIGNMENT, 4);
        glReadPixels(0, 0, gl->width, gl->height, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
        for (int y = 0; y < gl->height; y++) /* GL rows are bottom-up */
            for (int x = 0; x < gl->width; x++)
                memcpy(rgb + ((size_t)y * gl->width + x) * 3, rgba + ((size_t)(gl->height - 1 - y) * gl->width + x) * 4,
                       3);
        free(rgba);
    }
    glBindFramebuffer(GL_FRAMEBUFFER, gl->fbo);
}

/* The PNG is encoded in memory and written through crowd_write_file_atomic: a failed shot never
 * leaves half a file, never deletes what the path held before, and never replaces a device. */
typedef struct png_sink {
    uint8_t *bytes;
    size_t size, capacity;
    bool ok;
} png_sink;

static void write_chunk(void *context, void *data, int size)
{
    png_sink *sink = context;
    if (!sink->ok || size <= 0)
        return;
    if (sink->size + (size_t)size > sink->capacity) {
        size_t capacity = sink->capacity ? sink->capacity : 1u << 16;
        while (capacity < sink->size + (size_t)size)
            capacity *= 2;
        uint8_t *grown = realloc(sink->bytes, capacity);
        if (!grown) {
            sink->ok = false;
            return;
        }
        sink->bytes = grown;
        sink->capacity = capacity;
    }
    memcpy(sink->bytes + sink->size, data, (size_t)size);
    sink->size += (size_t)size;
}

crowd_result tool_write_png(const char *path, const uint8_t *rgb, int width, int height, crowd_error *error)
{
    png_sink sink = {NULL, 0, 0, true};
    int ok = stbi_write_png_to_func(write_chunk, &sink, width, height, 3, rgb, width * 3);
    crowd_result r;
    if (!ok || !sink.ok)
        r = crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "%s: cannot encode the PNG (out of memory)", path);
    else
        r = crowd_write_file_atomic(path, sink.bytes, sink.size, error);
    free(sink.bytes);
    return r;
}
