/* Internal: the container layer of .crowd files: header, section table, alignment, checksums.
 * Knows nothing about what the sections mean; asset_load.c does. */
#ifndef CROWD_CORE_CONTAINER_READ_H
#define CROWD_CORE_CONTAINER_READ_H

#include "core/format.h"
#include "crowdbake/base.h"

typedef struct crowd_section_view {
    uint32_t tag;
    const uint8_t *data;
    uint64_t size;
} crowd_section_view;

typedef struct crowd_container_view {
    uint32_t count;
    uint32_t version; /* CROWD_VERSION_MIN..CROWD_VERSION_MAX */
    crowd_section_view sections[CROWD_MAX_SECTIONS];
} crowd_container_view;

/* Validates the container structure of `data` (every check of docs/format.md, "Container") and
 * lists its sections. Does not look inside sections beyond their CRC32. */
crowd_result crowd_container_read(const uint8_t *data, size_t size, crowd_container_view *view, crowd_error *error);

/* The section with this tag, or NULL. */
const crowd_section_view *crowd_container_find(const crowd_container_view *view, uint32_t tag);

#endif
