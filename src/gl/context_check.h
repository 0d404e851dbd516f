/* Internal: whether the calling thread has a current GL context (checked before a renderer's first
 * GL call, so that creating one without a context is an error, not an abort in the GL loader). */
#ifndef CROWD_GL_CONTEXT_CHECK_H
#define CROWD_GL_CONTEXT_CHECK_H

#include <stdbool.h>

#include "crowdbake/base.h"

bool crowd_gl_context_is_current(void);

/* CROWD_OK when a context is current; else CROWD_ERROR_GL naming `who` and how to get one. */
crowd_result crowd_gl_require_context(const char *who, crowd_error *error);

#endif
