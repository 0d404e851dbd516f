#include "bake/container_write.h"

#include <stdbool.h>
#include <stdlib.h>

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

crowd_result crowd_container_build(const crowd_container_builder *builder, uint8_t **bytes, size_t *size,
                                   crowd_error *error)
{
    *bytes = NULL;
    *size = 0;
    uint64_t table_end = CROWD_FILE_HEADER_BYTES + (uint64_t)builder->count * CROWD_SECTION_ENTRY_BYTES;
    uint64_t total = crowd_align16(table_end);
    for (uint32_t i = 0; i < builder->count; i++)
        total = crowd_align16(total + builder->sections[i].size);
    if (total > SIZE_MAX)
        return crowd_fail(error, CROWD_ERROR_LIMIT, "asset of %llu bytes does not fit in memory",
                          (unsigned long long)total);

    uint8_t *out = aligned_alloc(CROWD_SECTION_ALIGN, (size_t)total);
    if (!out)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "out of memory for a %llu-byte asset",
                          (unsigned long long)total);
    memset(out, 0, (size_t)table_end);
    memcpy(out, CROWD_MAGIC, 8);
    crowd_wr32(out + 8, 1u);
    crowd_wr32(out + 12, builder->count);
    crowd_wr64(out + 16, total);

    uint64_t cursor = crowd_align16(table_end);
    memset(out + table_end, 0, (size_t)(cursor - table_end));
    for (uint32_t i = 0; i < builder->count; i++) {
        uint8_t *entry = out + CROWD_FILE_HEADER_BYTES + (size_t)i * CROWD_SECTION_ENTRY_BYTES;
        uint64_t length = builder->sections[i].size;
        if (length)
            memcpy(out + cursor, builder->sections[i].data, (size_t)length);
        crowd_wr32(entry, builder->sections[i].tag);
        crowd_wr64(entry + 8, cursor);
        crowd_wr64(entry + 16, length);
        crowd_wr32(entry + 24, crowd_crc32(0, out + cursor, (size_t)length));
        uint64_t end = cursor + length;
        cursor = crowd_align16(end);
        memset(out + end, 0, (size_t)(cursor - end));
    }
    crowd_wr32(out + 24, crowd_crc32(0, out, (size_t)table_end)); /* computed with the field still zero */
    *bytes = out;
    *size = (size_t)total;
    return CROWD_OK;
}

uint32_t crowd_string_table_add(crowd_string_table *table, const char *s)
{
    if (table->size == 0) { /* offset 0: the empty string */
        table->capacity = 256;
        if (!(table->data = malloc(table->capacity)))
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
        char *grown = realloc(table->data, capacity);
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
    free(table->data);
    memset(table, 0, sizeof *table);
}
