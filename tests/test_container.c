/* The .crowd container: round trip, and every way a file can be damaged is refused with the right
 * error code and no out-of-bounds read (this test also runs under AddressSanitizer). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/format.h"
#include "test_support.h"

static crowd_bake_output tiny;      /* small enough to damage every byte */
static crowd_rig tiny_rig;

static crowd_result load(const uint8_t *bytes, size_t size, crowd_error *err)
{
    uint8_t *copy = aligned_copy(bytes, size);
    crowd_asset a;
    crowd_result r = crowd_asset_load_memory(&a, copy, size, err);
    crowd_asset_free(&a);
    free(copy);
    return r;
}

static void round_trip(void)
{
    crowd_error err;
    crowd_asset a;
    REQUIRE(crowd_asset_load_memory(&a, tiny.bytes, tiny.size, &err) == CROWD_OK);
    CHECK(a.vertex_count == tiny_rig.vertex_count);
    CHECK(a.bone_count == 2 && a.clip_count == 1 && a.socket_count == 1 && a.region_count == 1);
    CHECK(!strcmp(a.clips[0].name, "bend") && !strcmp(a.sockets[0].name, "tip"));
    CHECK(!strcmp(a.bones_info[1].name, "bone1") && a.bones_info[1].parent == 0);
    CHECK(!strcmp(a.source_name, "tiny strip"));
    CHECK(a.clips[0].frame_count == 8 && a.frame_count == 8);
    CHECK(!memcmp(a.bind_positions, tiny_rig.positions, 12 * (size_t)a.vertex_count));
    CHECK(a.flags & CROWD_ASSET_HAS_BONES);
    uint32_t found = 99;
    CHECK(crowd_asset_find_clip(&a, "bend", &found) && found == 0);
    found = 99;
    CHECK(!crowd_asset_find_clip(&a, "nope", &found) && found == 99 && !crowd_asset_find_clip(&a, NULL, &found));
    CHECK(crowd_asset_find_socket(&a, "tip", &found) && found == 0 && crowd_asset_find_region(&a, "body", &found) &&
          found == 0 && !crowd_asset_find_region(&a, "nope", NULL));
    /* the socket offset is in bind-pose model space: the tip bone sits at y = 0.5, the socket 0.5 above */
    CHECK(a.sockets[0].offset[7] > 0.999f && a.sockets[0].offset[7] < 1.001f);
    float p[3], n[3], m[12];
    CHECK(crowd_asset_decode_vertex(&a, 0, 0, p, n) == CROWD_OK);
    CHECK(crowd_asset_decode_vertex(&a, 8, 0, p, n) == CROWD_ERROR_ARGUMENT);
    CHECK(crowd_asset_decode_vertex(&a, 0, a.vertex_count, p, n) == CROWD_ERROR_ARGUMENT);
    CHECK(crowd_asset_bone_matrix(&a, 0, 2, m) == CROWD_ERROR_ARGUMENT);
    CHECK(crowd_asset_bone_matrix(&a, 7, 1, m) == CROWD_OK);
    crowd_asset_free(&a);
    crowd_asset_free(&a); /* freeing twice is harmless */

    /* misuse of the API */
    CHECK(crowd_asset_load_memory(&a, NULL, 10, &err) == CROWD_ERROR_ARGUMENT);
    CHECK(crowd_asset_load_memory(&a, tiny.bytes + 1, tiny.size - 1, &err) == CROWD_ERROR_ARGUMENT); /* unaligned */
    CHECK(crowd_asset_load_file(&a, "/nonexistent/x.crowd", &err) == CROWD_ERROR_IO);
}

/* Every proper prefix of a valid file is refused as truncated (or not a .crowd file at all). */
static void every_truncated_prefix(void)
{
    int wrong = 0;
    for (size_t n = 0; n < tiny.size; n++) {
        crowd_error err = {0};
        crowd_result r = load(tiny.bytes, n, &err);
        wrong += r != CROWD_ERROR_TRUNCATED;
        if (r != CROWD_ERROR_TRUNCATED && wrong < 4)
            fprintf(stderr, "prefix %zu: %s (%s)\n", n, crowd_result_name(r), err.message);
    }
    CHECKF(wrong == 0, "%d of %zu prefixes not reported as truncated", wrong, tiny.size);
    /* and a byte too many */
    uint8_t *longer = malloc(tiny.size + 1);
    memcpy(longer, tiny.bytes, tiny.size);
    longer[tiny.size] = 0;
    crowd_error err;
    CHECK(load(longer, tiny.size + 1, &err) == CROWD_ERROR_INVALID_DATA);
    free(longer);
}

/* Every single-byte change anywhere in the file is refused (CRC32 catches any error burst of up
 * to 32 bits; padding and reserved fields must be zero). Two different changes per byte. */
static void every_single_byte_corruption(void)
{
    uint8_t *copy = aligned_copy(tiny.bytes, tiny.size);
    int accepted = 0;
    int codes[CROWD_RESULT_COUNT] = {0};
    for (size_t i = 0; i < tiny.size; i++) {
        for (int flip = 0; flip < 2; flip++) {
            uint8_t original = copy[i];
            copy[i] = flip ? (uint8_t)(original ^ 0xFF) : (uint8_t)(original + 1);
            crowd_asset a;
            crowd_error err;
            crowd_result r = crowd_asset_load_memory(&a, copy, tiny.size, &err);
            crowd_asset_free(&a);
            copy[i] = original;
            if (r == CROWD_OK)
                accepted++;
            else
                codes[r]++;
        }
    }
    CHECKF(accepted == 0, "%d corruptions accepted", accepted);
    printf("     %zu bytes x 2 corruptions:", tiny.size);
    for (int c = 0; c < CROWD_RESULT_COUNT; c++)
        if (codes[c])
            printf(" %s=%d", crowd_result_name((crowd_result)c) + 12, codes[c]);
    printf("\n");
    free(copy);
}

/* Edits a field of a copy, re-seals every CRC so the edit reaches the semantic checks, and loads. */
static crowd_result load_edited(size_t offset, uint32_t value, int width, crowd_error *err)
{
    uint8_t *copy = aligned_copy(tiny.bytes, tiny.size);
    if (width == 4)
        crowd_wr32(copy + offset, value);
    else if (width == 8)
        crowd_wr64(copy + offset, value);
    else
        copy[offset] = (uint8_t)value;
    reseal(copy, tiny.size);
    crowd_asset a;
    crowd_result r = crowd_asset_load_memory(&a, copy, tiny.size, err);
    crowd_asset_free(&a);
    free(copy);
    return r;
}

static size_t entry_of(uint32_t tag)
{
    uint32_t count = crowd_rd32(tiny.bytes + 12);
    for (uint32_t i = 0; i < count; i++)
        if (crowd_rd32(tiny.bytes + 32 + 32 * i) == tag)
            return 32 + 32 * (size_t)i;
    return 0;
}

#define EXPECT(expr, code)                                                                            \
    do {                                                                                              \
        crowd_error err_ = {0};                                                                       \
        crowd_result r_ = (expr);                                                                     \
        (void)err_;                                                                                   \
        CHECKF(r_ == (code), "%s -> %s, expected %s", #expr, crowd_result_name(r_), crowd_result_name(code)); \
    } while (0)

/* Each kind of damage has its own error code and a message naming the problem. */
static void distinct_errors(void)
{
    crowd_error e;
    EXPECT(load_edited(0, 'X', 1, &err_), CROWD_ERROR_BAD_MAGIC);
    EXPECT(load_edited(8, 2, 4, &err_), CROWD_ERROR_BAD_VERSION);
    EXPECT(load_edited(12, 200, 4, &err_), CROWD_ERROR_LIMIT);
    EXPECT(load_edited(16, (uint32_t)tiny.size + 16, 8, &err_), CROWD_ERROR_TRUNCATED);

    size_t head = entry_of(CROWD_TAG_HEAD), strs = entry_of(CROWD_TAG_STRS), vpos = entry_of(CROWD_TAG_VPOS);
    uint64_t strs_offset = crowd_rd64(tiny.bytes + strs + 8), vpos_offset = crowd_rd64(tiny.bytes + vpos + 8);
    EXPECT(load_edited(strs + 8, (uint32_t)strs_offset + 4, 8, &err_), CROWD_ERROR_MISALIGNED);
    EXPECT(load_edited(strs + 8, (uint32_t)strs_offset + 16, 8, &err_), CROWD_ERROR_MISALIGNED);
    EXPECT(load_edited(strs + 8, (uint32_t)strs_offset - 16, 8, &err_), CROWD_ERROR_SECTION_OVERLAP);
    EXPECT(load_edited(head + 8, 0, 8, &err_), CROWD_ERROR_SECTION_RANGE);
    EXPECT(load_edited(vpos + 16, (uint32_t)tiny.size, 8, &err_), CROWD_ERROR_SECTION_RANGE);
    EXPECT(load_edited(head + 4, 1, 4, &err_), CROWD_ERROR_INVALID_DATA);  /* reserved */
    EXPECT(load_edited(vpos, CROWD_TAG_HEAD, 4, &err_), CROWD_ERROR_INVALID_DATA); /* duplicate tag */
    EXPECT(load_edited(vpos, CROWD_TAG('X', 'X', 'X', 'X'), 4, &err_), CROWD_ERROR_MISSING);

    /* a corrupt section without re-sealing: checksum */
    {
        uint8_t *copy = aligned_copy(tiny.bytes, tiny.size);
        copy[vpos_offset] ^= 1;
        crowd_asset a;
        CHECK(crowd_asset_load_memory(&a, copy, tiny.size, &e) == CROWD_ERROR_CHECKSUM && strstr(e.message, "VPOS"));
        copy[vpos_offset] ^= 1;
        copy[20] ^= 1; /* file size field: header checksum */
        CHECK(crowd_asset_load_memory(&a, copy, tiny.size, &e) != CROWD_OK);
        free(copy);
    }

    /* semantic checks inside sections */
    size_t h = crowd_rd64(tiny.bytes + head + 8);
    EXPECT(load_edited(h + CROWD_HEAD_CLIP_COUNT, 2, 4, &err_), CROWD_ERROR_OVERFLOW);      /* CLIP too small */
    EXPECT(load_edited(h + CROWD_HEAD_INDEX_COUNT, 3, 4, &err_), CROWD_ERROR_OVERFLOW);     /* INDX size mismatch */
    EXPECT(load_edited(h + CROWD_HEAD_VERTEX_COUNT, 19, 4, &err_), CROWD_ERROR_INVALID_DATA); /* texture too small */
    EXPECT(load_edited(h + CROWD_HEAD_VERTEX_COUNT, 0xFFFFFFFFu, 4, &err_), CROWD_ERROR_LIMIT);
    EXPECT(load_edited(h + CROWD_HEAD_FRAME_COUNT, 0, 4, &err_), CROWD_ERROR_LIMIT);
    EXPECT(load_edited(h + CROWD_HEAD_FLAGS, 0x100, 4, &err_), CROWD_ERROR_INVALID_DATA);
    EXPECT(load_edited(h + CROWD_HEAD_POSITION_ENCODING, 9, 4, &err_), CROWD_ERROR_INVALID_DATA);
    EXPECT(load_edited(h + CROWD_HEAD_NORMAL_ENCODING, CROWD_NORMAL_OCT_F16, 4, &err_), CROWD_ERROR_INVALID_DATA);
    EXPECT(load_edited(h + CROWD_HEAD_BOUNDS_MIN, 0x7FC00000u, 4, &err_), CROWD_ERROR_INVALID_DATA); /* NaN */
    EXPECT(load_edited(h + CROWD_HEAD_VAT_WIDTH, 100000, 4, &err_), CROWD_ERROR_LIMIT);
    EXPECT(load_edited(h + CROWD_HEAD_SOURCE_NAME, 1u << 30, 4, &err_), CROWD_ERROR_INVALID_DATA);
    EXPECT(load_edited(h + CROWD_HEAD_UNIT_SCALE, 0, 4, &err_), CROWD_ERROR_INVALID_DATA);
    EXPECT(load_edited(h + CROWD_HEAD_UNIT_SCALE, 0x7FC00000u, 4, &err_), CROWD_ERROR_INVALID_DATA); /* NaN */
    EXPECT(load_edited(h + CROWD_HEAD_RESERVED, 1, 1, &err_), CROWD_ERROR_INVALID_DATA);

    size_t indx = crowd_rd64(tiny.bytes + entry_of(CROWD_TAG_INDX) + 8);
    EXPECT(load_edited(indx, 18, 4, &err_), CROWD_ERROR_INVALID_DATA);     /* vertex index out of range */
    size_t clip = crowd_rd64(tiny.bytes + entry_of(CROWD_TAG_CLIP) + 8);
    EXPECT(load_edited(clip + 4, 1, 4, &err_), CROWD_ERROR_INVALID_DATA);  /* first frame does not tile */
    EXPECT(load_edited(clip + 8, 9, 4, &err_), CROWD_ERROR_INVALID_DATA);  /* past the texture */
    EXPECT(load_edited(clip + 16, 0xFF800000u, 4, &err_), CROWD_ERROR_INVALID_DATA); /* -inf duration */
    size_t lods = crowd_rd64(tiny.bytes + entry_of(CROWD_TAG_LODS) + 8);
    EXPECT(load_edited(lods + 4, 1000, 4, &err_), CROWD_ERROR_INVALID_DATA);
    size_t bone = crowd_rd64(tiny.bytes + entry_of(CROWD_TAG_BONE) + 8);
    EXPECT(load_edited(bone + 56 + 4, 1, 4, &err_), CROWD_ERROR_INVALID_DATA); /* bone 1 parent of itself */
    size_t sock = crowd_rd64(tiny.bytes + entry_of(CROWD_TAG_SOCK) + 8);
    EXPECT(load_edited(sock + 4, 2, 4, &err_), CROWD_ERROR_INVALID_DATA);
    size_t jnt = crowd_rd64(tiny.bytes + entry_of(CROWD_TAG_SJNT) + 8);
    EXPECT(load_edited(jnt, 7, 1, &err_), CROWD_ERROR_INVALID_DATA);
    size_t wgt = crowd_rd64(tiny.bytes + entry_of(CROWD_TAG_SWGT) + 8);
    EXPECT(load_edited(wgt, 3, 1, &err_), CROWD_ERROR_INVALID_DATA);
    size_t reg = crowd_rd64(tiny.bytes + entry_of(CROWD_TAG_VREG) + 8);
    EXPECT(load_edited(reg, 1, 1, &err_), CROWD_ERROR_INVALID_DATA);
    size_t regn = crowd_rd64(tiny.bytes + entry_of(CROWD_TAG_REGN) + 8);
    EXPECT(load_edited(regn + 8, 2, 4, &err_), CROWD_ERROR_INVALID_DATA);
    size_t strings = crowd_rd64(tiny.bytes + strs + 8);
    uint64_t strings_size = crowd_rd64(tiny.bytes + strs + 16);
    EXPECT(load_edited(strings + strings_size - 1, 'x', 1, &err_), CROWD_ERROR_INVALID_DATA); /* unterminated */
    (void)e;
}

/* Messages say where the problem is. */
static void messages_are_specific(void)
{
    crowd_error err;
    size_t indx = crowd_rd64(tiny.bytes + entry_of(CROWD_TAG_INDX) + 8);
    load_edited(indx + 8, 500, 4, &err);
    CHECKF(strstr(err.message, "indices[2]") && strstr(err.message, "500"), "message: %s", err.message);
    load(tiny.bytes, 100, &err);
    CHECKF(strstr(err.message, "100 bytes"), "message: %s", err.message);
}

int main(void)
{
    crowd_error err;
    if (tiny_rig_build(&tiny_rig, &err) != CROWD_OK)
        return 1;
    crowd_bake_desc desc = {.bones = true, .frames = 8, .lod_count = 2, .lod_ratios = (const float[]){1.0f, 0.5f}};
    tiny = bake_or_die(&tiny_rig, desc);
    printf("     tiny asset: %zu bytes\n", tiny.size);
    RUN_TEST(round_trip);
    RUN_TEST(every_truncated_prefix);
    RUN_TEST(every_single_byte_corruption);
    RUN_TEST(distinct_errors);
    RUN_TEST(messages_are_specific);
    crowd_bake_output_free(&tiny);
    crowd_rig_free(&tiny_rig);
    TEST_MAIN_END();
}
