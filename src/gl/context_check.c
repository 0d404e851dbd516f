/* Is a GL context current on this thread? Asked before the renderer's first GL call, because with
 * none current the GL loader (libepoxy) aborts the process on the first entry point it resolves.
 * The answer comes from the window-system libraries already in the process (EGL, GLX), without
 * loading any: a context can only be current through a library that is loaded. */
#include "context_check.h"

#include "core/error.h"

crowd_result crowd_gl_require_context(const char *who, crowd_error *error)
{
    if (crowd_gl_context_is_current())
        return CROWD_OK;
    return crowd_fail(error, CROWD_ERROR_GL,
                      "%s: no GL context is current on this thread (make the window's or engine's context current "
                      "first; for offline rendering and tests crowd_gl_headless_create makes one)",
                      who);
}

#ifdef __EMSCRIPTEN__
#include <emscripten/html5.h>

bool crowd_gl_context_is_current(void)
{
    return emscripten_webgl_get_current_context() != 0;
}

#elif defined(__unix__)
#include <dlfcn.h>
#include <stddef.h>

typedef void *(*current_context_fn)(void);

/* The library's "current context" function says non-NULL; false where the library is not loaded. */
static bool loaded_library_says_current(const char *library, const char *function)
{
    void *handle = dlopen(library, RTLD_LAZY | RTLD_NOLOAD);
    if (!handle)
        return false;
    current_context_fn current = NULL;
    /* (dlsym's object pointer to a function pointer, as POSIX requires it to work) */
    *(void **)&current = dlsym(handle, function);
    bool yes = current && current() != NULL;
    dlclose(handle);
    return yes;
}

bool crowd_gl_context_is_current(void)
{
    return loaded_library_says_current("libEGL.so.1", "eglGetCurrentContext") ||
           loaded_library_says_current("libEGL.so", "eglGetCurrentContext") ||
           loaded_library_says_current("libGLX.so.0", "glXGetCurrentContext") ||
           loaded_library_says_current("libGL.so.1", "glXGetCurrentContext");
}

#else
/* Elsewhere the loader is trusted to find the context: no check. */
bool crowd_gl_context_is_current(void)
{
    return true;
}
#endif
