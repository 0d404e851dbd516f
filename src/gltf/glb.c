/* The binary container (.glb): a 12-byte header, a JSON chunk, an optional BIN chunk, and
 * chunks of other types that readers skip. Every length is checked against the bytes present. */
#include <string.h>

#include "core/error.h"
#include "gltf/gltf_internal.h"

#define GLB_MAGIC 0x46546C67u /* "glTF" */
#define CHUNK_JSON 0x4E4F534Au
#define CHUNK_BIN 0x004E4942u

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

bool gltf_is_glb(const uint8_t *data, size_t size)
{
    return size >= 4 && rd32(data) == GLB_MAGIC;
}

static crowd_result read_header(const uint8_t *data, size_t size, crowd_error *error)
{
    if (size < 12)
        return crowd_fail(error, CROWD_ERROR_TRUNCATED, "glb: %zu bytes, shorter than the 12-byte header", size);
    if (rd32(data) != GLB_MAGIC)
        return crowd_fail(error, CROWD_ERROR_BAD_MAGIC, "glb: bad magic");
    if (rd32(data + 4) != 2)
        return crowd_fail(error, CROWD_ERROR_BAD_VERSION, "glb: container version %u, expected 2", rd32(data + 4));
    uint32_t length = rd32(data + 8);
    if (length != size)
        return crowd_fail(error, length > size ? CROWD_ERROR_TRUNCATED : CROWD_ERROR_INVALID_DATA,
                          "glb: header says %u bytes, the file has %zu", length, size);
    if (size < 20)
        return crowd_fail(error, CROWD_ERROR_TRUNCATED, "glb: no chunk after the header");
    return CROWD_OK;
}

crowd_result gltf_glb_parse(const uint8_t *data, size_t size, gltf_glb *out, crowd_error *error)
{
    memset(out, 0, sizeof *out);
    crowd_result r = read_header(data, size, error);
    if (r != CROWD_OK)
        return r;
    size_t at = 12;
    for (uint32_t chunk = 0; at < size; chunk++) {
        if (size - at < 8)
            return crowd_fail(error, CROWD_ERROR_TRUNCATED, "glb: chunk %u: header cut short", chunk);
        uint32_t length = rd32(data + at), type = rd32(data + at + 4);
        at += 8;
        if (length > size - at)
            return crowd_fail(error, CROWD_ERROR_TRUNCATED, "glb: chunk %u: %u bytes, only %zu left", chunk, length,
                              size - at);
        if (length % 4)
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "glb: chunk %u: length %u is not a multiple of 4", chunk,
                              length);
        if (chunk == 0 && type != CHUNK_JSON)
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "glb: chunk 0 must be JSON");
        if (type == CHUNK_JSON && chunk != 0)
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "glb: chunk %u: a second JSON chunk", chunk);
        if (type == CHUNK_JSON) {
            if (length == 0)
                return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "glb: chunk 0: empty JSON chunk");
            out->json = data + at;
            out->json_size = length;
        } else if (type == CHUNK_BIN) {
            if (chunk != 1)
                return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "glb: chunk %u: BIN must be chunk 1", chunk);
            out->bin = data + at;
            out->bin_size = length;
        }
        at += length;
    }
    return CROWD_OK;
}
