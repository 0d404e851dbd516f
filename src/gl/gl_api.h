/* Internal: the one place that knows where GL comes from. Natively libepoxy resolves entry points
 * for desktop GL and GLES alike; the web build gets WebGL2 through Emscripten's GLES 3 headers. */
#ifndef CROWD_GL_GL_API_H
#define CROWD_GL_GL_API_H

#ifdef __EMSCRIPTEN__
#include <GLES3/gl3.h>
#else
#include <epoxy/gl.h>
#endif

#endif
