#include "core/container_read.h"

#include "core/crc32.h"
#include "core/error.h"

static crowd_result read_header(const uint8_t *data, size_t size, uint32_t *section_count, uint32_t *version_out,
                                crowd_error *error)
{
    size_t magic_len = sizeof CROWD_MAGIC - 1;
    size_t compare = size < magic_len ? size : magic_len;
    if (memcmp(data, CROWD_MAGIC, compare) != 0)
        return crowd_fail(error, CROWD_ERROR_BAD_MAGIC, "not a .crowd file (the first bytes are not \"%s\")",
                          CROWD_MAGIC);
    if (size < CROWD_FILE_HEADER_BYTES)
        return crowd_fail(error, CROWD_ERROR_TRUNCATED, "file is %zu bytes, shorter than the %u-byte header", size,
                          CROWD_FILE_HEADER_BYTES);

    uint32_t version = crowd_rd32(data + 8);
    if (version < CROWD_VERSION_MIN || version > CROWD_VERSION_MAX)
        return crowd_fail(error, CROWD_ERROR_BAD_VERSION, "format version %u; this build reads versions %u..%u",
                          version, CROWD_VERSION_MIN, CROWD_VERSION_MAX);
    *version_out = version;

    uint64_t declared = crowd_rd64(data + 16);
    if (declared > size)
        return crowd_fail(error, CROWD_ERROR_TRUNCATED, "file is %zu bytes but declares %llu: it was cut short", size,
                          (unsigned long long)declared);
    if (declared < size)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA,
                          "file declares %llu bytes but has %zu: trailing bytes after the end",
                          (unsigned long long)declared, size);

    uint32_t count = crowd_rd32(data + 12);
    if (count == 0 || count > CROWD_MAX_SECTIONS)
        return crowd_fail(error, CROWD_ERROR_LIMIT, "section count %u outside 1..%u", count, CROWD_MAX_SECTIONS);
    uint64_t table_end = CROWD_FILE_HEADER_BYTES + (uint64_t)count * CROWD_SECTION_ENTRY_BYTES;
    if (table_end > size)
        return crowd_fail(error, CROWD_ERROR_TRUNCATED,
                          "section table of %u entries ends at byte %llu, past the end (%zu)", count,
                          (unsigned long long)table_end, size);

    /* The table CRC covers the header and the table with the CRC field itself read as zero. */
    static const uint8_t zero[4] = {0, 0, 0, 0};
    uint32_t crc = crowd_crc32(0, data, 24);
    crc = crowd_crc32(crc, zero, 4);
    crc = crowd_crc32(crc, data + 28, (size_t)table_end - 28);
    uint32_t stored = crowd_rd32(data + 24);
    if (crc != stored)
        return crowd_fail(error, CROWD_ERROR_CHECKSUM, "header/section table CRC32 is %08x, expected %08x", crc,
                          stored);
    if (crowd_rd32(data + 28) != 0)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "header reserved field is not zero");

    *section_count = count;
    return CROWD_OK;
}

static crowd_result check_padding(const uint8_t *data, uint64_t from, uint64_t to, const char *where,
                                  crowd_error *error)
{
    for (uint64_t i = from; i < to; i++)
        if (data[i] != 0)
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "padding byte %llu %s is not zero",
                              (unsigned long long)i, where);
    return CROWD_OK;
}

static crowd_result read_entry(const uint8_t *data, size_t size, uint32_t index, uint64_t expected_offset,
                               crowd_section_view *out, crowd_error *error)
{
    const uint8_t *entry = data + CROWD_FILE_HEADER_BYTES + (size_t)index * CROWD_SECTION_ENTRY_BYTES;
    uint32_t tag = crowd_rd32(entry);
    uint64_t offset = crowd_rd64(entry + 8);
    uint64_t length = crowd_rd64(entry + 16);
    char name[5];
    crowd_tag_name(tag, name);

    if (crowd_rd32(entry + 4) != 0 || crowd_rd32(entry + 28) != 0)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "section %u (%s): reserved field not zero", index, name);
    if (offset % CROWD_SECTION_ALIGN != 0)
        return crowd_fail(error, CROWD_ERROR_MISALIGNED, "section %u (%s) starts at byte %llu, not a multiple of %u",
                          index, name, (unsigned long long)offset, CROWD_SECTION_ALIGN);
    if (offset > size || length > size - offset)
        return crowd_fail(error, CROWD_ERROR_SECTION_RANGE,
                          "section %u (%s) spans bytes %llu + %llu, past the end of the %zu-byte file", index, name,
                          (unsigned long long)offset, (unsigned long long)length, size);
    if (offset < expected_offset)
        return crowd_fail(error,
                          offset < CROWD_FILE_HEADER_BYTES + CROWD_SECTION_ENTRY_BYTES ? CROWD_ERROR_SECTION_RANGE
                                                                                       : CROWD_ERROR_SECTION_OVERLAP,
                          "section %u (%s) starts at byte %llu, inside the data before it (ends at %llu)", index, name,
                          (unsigned long long)offset, (unsigned long long)expected_offset);
    if (offset != expected_offset)
        return crowd_fail(error, CROWD_ERROR_MISALIGNED,
                          "section %u (%s) starts at byte %llu; sections are packed, expected %llu", index, name,
                          (unsigned long long)offset, (unsigned long long)expected_offset);

    uint32_t crc = crowd_crc32(0, data + offset, (size_t)length);
    uint32_t stored = crowd_rd32(entry + 24);
    if (crc != stored)
        return crowd_fail(error, CROWD_ERROR_CHECKSUM, "section %u (%s): CRC32 is %08x, expected %08x", index, name,
                          crc, stored);

    out->tag = tag;
    out->data = data + offset;
    out->size = length;
    return CROWD_OK;
}

crowd_result crowd_container_read(const uint8_t *data, size_t size, crowd_container_view *view, crowd_error *error)
{
    uint32_t count = 0;
    uint32_t version = 0;
    crowd_result r = read_header(data, size, &count, &version, error);
    if (r != CROWD_OK)
        return r;

    uint64_t table_end = CROWD_FILE_HEADER_BYTES + (uint64_t)count * CROWD_SECTION_ENTRY_BYTES;
    uint64_t cursor = crowd_align16(table_end);
    if (cursor > size)
        return crowd_fail(error, CROWD_ERROR_TRUNCATED, "file ends inside the section table padding");
    if ((r = check_padding(data, table_end, cursor, "after the section table", error)) != CROWD_OK)
        return r;

    view->count = count;
    view->version = version;
    for (uint32_t i = 0; i < count; i++) {
        crowd_section_view *s = &view->sections[i];
        if ((r = read_entry(data, size, i, cursor, s, error)) != CROWD_OK)
            return r;
        for (uint32_t j = 0; j < i; j++) {
            if (view->sections[j].tag == s->tag) {
                char name[5];
                crowd_tag_name(s->tag, name);
                return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "section %s appears twice", name);
            }
        }
        uint64_t end = (uint64_t)(s->data - data) + s->size;
        cursor = crowd_align16(end);
        if (cursor > size)
            return crowd_fail(error, CROWD_ERROR_TRUNCATED, "file ends inside the padding after section %u", i);
        if ((r = check_padding(data, end, cursor, "between sections", error)) != CROWD_OK)
            return r;
    }
    if (cursor != size)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%llu unclaimed bytes after the last section",
                          (unsigned long long)(size - cursor));
    return CROWD_OK;
}

const crowd_section_view *crowd_container_find(const crowd_container_view *view, uint32_t tag)
{
    for (uint32_t i = 0; i < view->count; i++)
        if (view->sections[i].tag == tag)
            return &view->sections[i];
    return NULL;
}
