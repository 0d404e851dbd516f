/* Internal: writing the container layer of .crowd files (the inverse of container_read.c).
 *
 * Three steps, so large sections can be produced straight into the file image without an extra
 * copy: declare every section (with its bytes, or with NULL to fill later), allocate the image
 * (declared bytes are copied in, padding zeroed), fill the remaining payloads, then seal it
 * (checksums). */
#ifndef CROWD_BAKE_CONTAINER_WRITE_H
#define CROWD_BAKE_CONTAINER_WRITE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/format.h"
#include "crowdbake/base.h"

typedef struct crowd_container_builder {
    uint32_t count;
    struct {
        uint32_t tag;
        const void *data; /* borrowed until crowd_container_allocate returns; NULL: filled later */
        uint64_t size;
        uint64_t offset; /* set by crowd_container_allocate */
    } sections[CROWD_MAX_SECTIONS];
    uint8_t *image;
    size_t image_size;
} crowd_container_builder;

/* Declares a section; sections are laid out in the order declared. Returns false when the table is
 * full (a programming error in the baker). */
bool crowd_container_add(crowd_container_builder *builder, uint32_t tag, const void *data, uint64_t size);

/* Lays out header, section table and 16-byte aligned sections in one zeroed, 16-byte aligned
 * allocation and copies the declared bytes in. */
crowd_result crowd_container_allocate(crowd_container_builder *builder, crowd_error *error);

/* Where section `index` (in declaration order) lives inside the image. */
void *crowd_container_payload(const crowd_container_builder *builder, uint32_t index);

/* Writes the section table and every CRC32 and hands the image over (free with free()). */
void crowd_container_seal(crowd_container_builder *builder, uint8_t **bytes, size_t *size);

/* A growing table of NUL-terminated strings; offset 0 is the empty string. */
typedef struct crowd_string_table {
    char *data;
    size_t size, capacity;
} crowd_string_table;

/* Appends `s` (or finds an identical earlier string) and returns its offset, or UINT32_MAX when
 * out of memory. */
uint32_t crowd_string_table_add(crowd_string_table *table, const char *s);
void crowd_string_table_free(crowd_string_table *table);

#endif
