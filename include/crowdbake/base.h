/* crowdbake/base.h — result codes and the error struct shared by every layer.
 *
 * Every function that can meet bad data (a file, a glTF document, a command-line flag, an index
 * passed in by the caller) returns a crowd_result and, when the caller passes a crowd_error,
 * fills it with a message a user can act on ("clips[2].first_frame: 300 + 48 frames past the
 * 288 frames in the texture"). Passing NULL for the error is always allowed.
 */
#ifndef CROWDBAKE_BASE_H
#define CROWDBAKE_BASE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* CROWD_API marks every public function. Static builds need nothing. Shared builds compile the
 * libraries with hidden visibility and export exactly these; on Windows a consumer of the DLL
 * defines CROWD_SHARED (the CMake package and crowdbake.pc do it) to get dllimport. */
#if defined(_WIN32) && defined(CROWD_SHARED)
#if defined(CROWD_BUILDING)
#define CROWD_API __declspec(dllexport)
#else
#define CROWD_API __declspec(dllimport)
#endif
#elif defined(__GNUC__) || defined(__clang__)
#define CROWD_API __attribute__((visibility("default")))
#else
#define CROWD_API
#endif

typedef enum crowd_result {
    CROWD_OK = 0,
    CROWD_ERROR_IO, /* a file could not be opened, read, written or renamed */
    CROWD_ERROR_OUT_OF_MEMORY,
    CROWD_ERROR_ARGUMENT,        /* the caller passed something invalid: index out of range, bad option */
    CROWD_ERROR_BAD_MAGIC,       /* not a .crowd file */
    CROWD_ERROR_BAD_VERSION,     /* a .crowd file of a version this build cannot read */
    CROWD_ERROR_TRUNCATED,       /* the data ends before the size it declares */
    CROWD_ERROR_SECTION_RANGE,   /* a section lies outside the file or before the section table */
    CROWD_ERROR_SECTION_OVERLAP, /* two sections share bytes or are out of order */
    CROWD_ERROR_MISALIGNED,      /* a section is not at its 16-byte aligned canonical place */
    CROWD_ERROR_CHECKSUM,        /* a CRC32 does not match */
    CROWD_ERROR_OVERFLOW,        /* counts whose byte sizes overflow or exceed the section */
    CROWD_ERROR_MISSING,         /* a required section or field is absent */
    CROWD_ERROR_INVALID_DATA,    /* a value is out of its allowed range (index, count, NaN, ...) */
    CROWD_ERROR_LIMIT,           /* an explicit limit (bones, frames, texture size) is exceeded */
    CROWD_ERROR_UNSUPPORTED,     /* valid input that this build does not handle */
    CROWD_ERROR_GL,              /* the GL driver reported an error or a shader failed */
    CROWD_RESULT_COUNT
} crowd_result;

typedef struct crowd_error {
    crowd_result code;
    char message[512];
} crowd_error;

/* A stable identifier for a result ("CROWD_ERROR_CHECKSUM"); never NULL. */
CROWD_API const char *crowd_result_name(crowd_result result);

/* Memory. Every allocation of crowd_core, crowd_bake (and the libraries it drives: cJSON,
 * meshoptimizer, stb_image) and crowd_gl goes through these hooks; the default is libc's malloc
 * and free. `allocate` returns memory aligned for any object (as malloc does) or NULL; the library
 * builds its own stricter alignments on top of it, and grows buffers by allocate, copy, release.
 *
 * Install the hooks before creating anything and keep them until everything created with them is
 * destroyed: memory is released through whichever hooks are installed at that time. Not
 * thread-safe: set it once at start-up. Passing NULL restores libc. The
 * per-frame path (crowd_update, crowd_sim_step, crowd_gl_upload / render / draw) allocates nothing. */
typedef struct crowd_allocator {
    void *(*allocate)(void *user, size_t size); /* required */
    void (*release)(void *user, void *pointer); /* required; never called with NULL */
    void *user;
} crowd_allocator;

CROWD_API void crowd_set_allocator(const crowd_allocator *allocator);

/* Explicit limits. Sizes from files are checked against these before anything is allocated. */
#define CROWD_MAX_TEXTURE_DIM 16384u /* widest/tallest texture a bake may produce */
#define CROWD_MAX_VERTICES (1u << 22)
#define CROWD_MAX_INDICES (1u << 26)
#define CROWD_MAX_BONES 1024u
#define CROWD_MAX_CLIPS 4096u
#define CROWD_MAX_FRAMES_PER_CLIP 65536u
#define CROWD_MAX_LODS 8u
#define CROWD_MAX_SOCKETS 256u
#define CROWD_MAX_REGIONS 64u
#define CROWD_MAX_PALETTE 4096u
#define CROWD_MAX_UV_TRANSFORM 1e6f /* magnitude of a palette choice's UV transform (asset.h palette_uv) */
#define CROWD_INFLUENCES 4u         /* joints/weights per vertex in bone mode */

#ifdef __cplusplus
}
#endif
#endif
