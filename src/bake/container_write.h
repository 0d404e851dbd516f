/* Internal: writing the container layer of .crowd files (the inverse of container_read.c). */
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
        const void *data; /* borrowed until crowd_container_build returns */
        uint64_t size;
    } sections[CROWD_MAX_SECTIONS];
} crowd_container_builder;

/* Queues a section; sections are written in the order added. Returns false when the table is
 * full (a programming error in the baker). */
bool crowd_container_add(crowd_container_builder *builder, uint32_t tag, const void *data, uint64_t size);

/* Lays out header, section table and 16-byte aligned sections with zero padding and CRC32s into
 * one 16-byte aligned allocation (free with free()). */
crowd_result crowd_container_build(const crowd_container_builder *builder, uint8_t **bytes, size_t *size,
                                   crowd_error *error);

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
