#include "bake/container_write.h"

#include <stdbool.h>
#include <stdlib.h>

#include "core/alloc.h"
#include "core/crc32.h"
#include "core/error.h"

bool crowd_container_add(crowd_container_builder *builder, uint32_t tag, const void *data, uint64_t size)
{
    if (builder->count >= CROWD_MAX_SECTIONS)
        return false;
    builder->sections[builder->count].tag = tag;
    builder->sections[builder->count].data = data;
    builder->sections[builder->count].size = size;
    builder->count++;
    return true;
}

crowd_result crowd_container_allocate(crowd_container_builder *builder, crowd_error *error)
{
    uint64_t table_end = CROWD_FILE_HEADER_BYTES + (uint64_t)builder->count * CROWD_SECTION_ENTRY_BYTES;
    uint64_t cursor = crowd_align16(table_end);
    for (uint32_t i = 0; i < builder->count; i++) {
        builder->sections[i].offset = cursor;
        cursor = crowd_align16(cursor + builder->sections[i].size);
    }
    if (cursor > SIZE_MAX)
        return crowd_fail(error, CROWD_ERROR_LIMIT, "asset of %llu bytes does not fit in memory",
                          (unsigned long long)cursor);
    /* calloc-like zeroing matters only for padding, but it is one pass and keeps the image
     * deterministic whatever a filler forgets */
    uint8_t *image = crowd_aligned_alloc(CROWD_SECTION_ALIGN, (size_t)cursor);
    if (!image)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "out of memory for a %llu-byte asset",
                          (unsigned long long)cursor);
    uint64_t filled = 0; /* zero only what no declared section overwrites */
    for (uint32_t i = 0; i < builder->count; i++) {
        uint64_t at = builder->sections[i].offset;
        memset(image + filled, 0, (size_t)(at - filled));
        if (builder->sections[i].data) {
            memcpy(image + at, builder->sections[i].data, (size_t)builder->sections[i].size);
            filled = at + builder->sections[i].size;
        } else {
            filled = at; /* the filler writes every byte of its payload */
        }
    }
    memset(image + filled, 0, (size_t)(cursor - filled));
    builder->image = image;
    builder->image_size = (size_t)cursor;
    return CROWD_OK;
}

void *crowd_container_payload(const crowd_container_builder *builder, uint32_t index)
{
    return builder->image + builder->sections[index].offset;
}

void crowd_container_seal(crowd_container_builder *builder, uint8_t **bytes, size_t *size)
{
    uint8_t *out = builder->image;
    memcpy(out, CROWD_MAGIC, 8);
    uint32_t version = CROWD_VERSION_MIN; /* the lowest version that holds every section */
    for (uint32_t i = 0; i < builder->count; i++) {
        uint32_t tag = builder->sections[i].tag;
        uint32_t needs = tag == CROWD_TAG_PUVS   ? CROWD_VERSION_PALETTE_UV
                         : tag == CROWD_TAG_MARK ? CROWD_VERSION_MARKERS
                         : tag == CROWD_TAG_CBND ? CROWD_VERSION_CLIP_BOUNDS
                         : tag == CROWD_TAG_IMPS ? CROWD_VERSION_IMPOSTERS
                                                 : CROWD_VERSION_MIN;
        version = needs > version ? needs : version;
    }
    crowd_wr32(out + 8, version);
    crowd_wr32(out + 12, builder->count);
    crowd_wr64(out + 16, builder->image_size);
    crowd_wr32(out + 24, 0);
    crowd_wr32(out + 28, 0);
    for (uint32_t i = 0; i < builder->count; i++) {
        uint8_t *entry = out + CROWD_FILE_HEADER_BYTES + (size_t)i * CROWD_SECTION_ENTRY_BYTES;
        uint64_t offset = builder->sections[i].offset, length = builder->sections[i].size;
        memset(entry, 0, CROWD_SECTION_ENTRY_BYTES);
        crowd_wr32(entry, builder->sections[i].tag);
        crowd_wr64(entry + 8, offset);
        crowd_wr64(entry + 16, length);
        crowd_wr32(entry + 24, crowd_crc32(0, out + offset, (size_t)length));
    }
    uint64_t table_end = CROWD_FILE_HEADER_BYTES + (uint64_t)builder->count * CROWD_SECTION_ENTRY_BYTES;
    crowd_wr32(out + 24, crowd_crc32(0, out, (size_t)table_end)); /* computed with the field zero */
    *bytes = out;
    *size = builder->image_size;
    builder->image = NULL;
    builder->image_size = 0;
}

uint32_t crowd_string_table_add(crowd_string_table *table, const char *s)
{
    if (table->size == 0) { /* offset 0: the empty string */
        table->capacity = 256;
        if (!(table->data = crowd_malloc(table->capacity)))
            return UINT32_MAX;
        table->data[0] = '\0';
        table->size = 1;
    }
    size_t n = strlen(s) + 1;
    for (size_t at = 0; at < table->size;) { /* small tables: reuse identical strings */
        size_t len = strlen(table->data + at) + 1;
        if (len == n && memcmp(table->data + at, s, n) == 0)
            return (uint32_t)at;
        at += len;
    }
    if (table->size + n > UINT32_MAX)
        return UINT32_MAX;
    if (table->size + n > table->capacity) {
        size_t capacity = table->capacity * 2 + n;
        char *grown = crowd_realloc_sized(table->data, table->capacity, capacity);
        if (!grown)
            return UINT32_MAX;
        table->data = grown;
        table->capacity = capacity;
    }
    memcpy(table->data + table->size, s, n);
    table->size += n;
    return (uint32_t)(table->size - n);
}

void crowd_string_table_free(crowd_string_table *table)
{
    crowd_free(table->data);
    memset(table, 0, sizeof *table);
}
