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

typedef enum crowd_result {
    CROWD_OK = 0,
    CROWD_ERROR_IO,              /* a file could not be opened, read, written or renamed */
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
const char *crowd_result_name(crowd_result result);

/* Explicit limits. Sizes from files are checked against these before anything is allocated. */
#define CROWD_MAX_TEXTURE_DIM 16384u  /* widest/tallest texture a bake may produce */
#define CROWD_MAX_VERTICES (1u << 22)
#define CROWD_MAX_INDICES (1u << 26)
#define CROWD_MAX_BONES 1024u
#define CROWD_MAX_CLIPS 4096u
#define CROWD_MAX_FRAMES_PER_CLIP 65536u
#define CROWD_MAX_LODS 8u
#define CROWD_MAX_SOCKETS 256u
#define CROWD_MAX_REGIONS 64u
#define CROWD_MAX_PALETTE 4096u
#define CROWD_INFLUENCES 4u           /* joints/weights per vertex in bone mode */

#ifdef __cplusplus
}
#endif
#endif
