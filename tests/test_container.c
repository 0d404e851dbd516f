/* The .crowd container: round trip, and every way a file can be damaged is refused with the right
 * error code and no out-of-bounds read (this test also runs under AddressSanitizer). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/format.h"
#include "test_support.h"

static crowd_bake_output tiny; /* small enough to damage every byte */
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
    /* markers sorted by time, at the times given, with their phases */
    REQUIRE(a.marker_count == 2);
    CHECK(!strcmp(a.markers[0].name, "start") && a.markers[0].clip == 0 && a.markers[0].time == 0.0f);
    CHECK(!strcmp(a.markers[1].name, "hit") && a.markers[1].time == 0.5f && a.markers[1].phase == 0.5f);
    uint32_t first = 99;
    CHECK(crowd_asset_clip_markers(&a, 0, &first) == 2 && first == 0);
    CHECK(crowd_asset_clip_markers(&a, 1, &first) == 0 && crowd_asset_clip_markers(NULL, 0, NULL) == 0);
    CHECK(crowd_rd32(tiny.bytes + 8) == 4); /* MARK: version 4 */
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

#define EXPECT(expr, code)                                                                                    \
    do {                                                                                                      \
        crowd_error err_ = {0};                                                                               \
        crowd_result r_ = (expr);                                                                             \
        (void)err_;                                                                                           \
        CHECKF(r_ == (code), "%s -> %s, expected %s", #expr, crowd_result_name(r_), crowd_result_name(code)); \
    } while (0)

/* Each kind of damage has its own error code and a message naming the problem. */
static void distinct_errors(void)
{
    crowd_error e;
    EXPECT(load_edited(0, 'X', 1, &err_), CROWD_ERROR_BAD_MAGIC);
    EXPECT(load_edited(8, CROWD_VERSION_MAX + 1, 4, &err_), CROWD_ERROR_BAD_VERSION); /* 1 up to the newest are read */
    EXPECT(load_edited(8, 3, 4, &err_), CROWD_ERROR_INVALID_DATA); /* a MARK section needs version 4 */
    EXPECT(load_edited(8, 2, 4, &err_), CROWD_ERROR_INVALID_DATA); /* a CBND section needs version 3 */
    EXPECT(load_edited(8, 0, 4, &err_), CROWD_ERROR_BAD_VERSION);
    EXPECT(load_edited(12, 200, 4, &err_), CROWD_ERROR_LIMIT);
    EXPECT(load_edited(16, (uint32_t)tiny.size + 16, 8, &err_), CROWD_ERROR_TRUNCATED);

    size_t head = entry_of(CROWD_TAG_HEAD), strs = entry_of(CROWD_TAG_STRS), vpos = entry_of(CROWD_TAG_VPOS);
    uint64_t strs_offset = crowd_rd64(tiny.bytes + strs + 8), vpos_offset = crowd_rd64(tiny.bytes + vpos + 8);
    EXPECT(load_edited(strs + 8, (uint32_t)strs_offset + 4, 8, &err_), CROWD_ERROR_MISALIGNED);
    EXPECT(load_edited(strs + 8, (uint32_t)strs_offset + 16, 8, &err_), CROWD_ERROR_MISALIGNED);
    EXPECT(load_edited(strs + 8, (uint32_t)strs_offset - 16, 8, &err_), CROWD_ERROR_SECTION_OVERLAP);
    EXPECT(load_edited(head + 8, 0, 8, &err_), CROWD_ERROR_SECTION_RANGE);
    EXPECT(load_edited(vpos + 16, (uint32_t)tiny.size, 8, &err_), CROWD_ERROR_SECTION_RANGE);
    EXPECT(load_edited(head + 4, 1, 4, &err_), CROWD_ERROR_INVALID_DATA);          /* reserved */
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
    EXPECT(load_edited(h + CROWD_HEAD_CLIP_COUNT, 2, 4, &err_), CROWD_ERROR_OVERFLOW);        /* CLIP too small */
    EXPECT(load_edited(h + CROWD_HEAD_INDEX_COUNT, 3, 4, &err_), CROWD_ERROR_OVERFLOW);       /* INDX size mismatch */
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
    EXPECT(load_edited(indx, 18, 4, &err_), CROWD_ERROR_INVALID_DATA); /* vertex index out of range */
    size_t clip = crowd_rd64(tiny.bytes + entry_of(CROWD_TAG_CLIP) + 8);
    EXPECT(load_edited(clip + 4, 1, 4, &err_), CROWD_ERROR_INVALID_DATA);            /* first frame does not tile */
    EXPECT(load_edited(clip + 8, 9, 4, &err_), CROWD_ERROR_INVALID_DATA);            /* past the texture */
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

/* ---- hostile contents: every value that passes the checksums must still pass validation -------- */

/* Loads a copy of `image` with `edit` applied and every CRC re-sealed, so the checksums pass and
 * the loader's validation is what must refuse it. Returns the result; *err holds the message. */
typedef void (*image_edit)(uint8_t *bytes, void *user);

static crowd_result load_patched(const crowd_bake_output *image, image_edit edit, void *user, crowd_error *err)
{
    uint8_t *copy = aligned_copy(image->bytes, image->size);
    edit(copy, user);
    reseal(copy, image->size);
    crowd_asset a;
    crowd_result r = crowd_asset_load_memory(&a, copy, image->size, err);
    crowd_asset_free(&a);
    free(copy);
    return r;
}

typedef struct patch32 {
    uint32_t tag;  /* section, or 0 for an absolute offset */
    size_t offset; /* inside the section */
    uint32_t value;
} patch32;

static void apply_patch32(uint8_t *bytes, void *user)
{
    const patch32 *p = user;
    size_t base = p->tag ? section_offset(bytes, p->tag, NULL) : 0;
    crowd_wr32(bytes + base + p->offset, p->value);
}

typedef struct patch16 {
    uint32_t tag;
    size_t offset;
    uint16_t value;
} patch16;

static void apply_patch16(uint8_t *bytes, void *user)
{
    const patch16 *p = user;
    crowd_wr16(bytes + section_offset(bytes, p->tag, NULL) + p->offset, p->value);
}

/* Expects `r` to be INVALID_DATA with `needle` in the message. */
#define EXPECT_REFUSED(expr, needle)                                         \
    do {                                                                     \
        crowd_error e_ = {0};                                                \
        crowd_result r_ = (expr);                                            \
        CHECKF(r_ == CROWD_ERROR_INVALID_DATA && strstr(e_.message, needle), \
               "%s -> %s \"%s\", expected "                                  \
               "INVALID_DATA naming %s",                                     \
               #expr, crowd_result_name(r_), e_.message, needle);            \
    } while (0)

static void bone_texture_values(void)
{
    /* TBON: texel 0 of frame 0 bone 0; a value far inside the texture; the last texel */
    uint64_t tbon_size = 0;
    section_offset(tiny.bytes, CROWD_TAG_TBON, &tbon_size);
    const uint32_t bad[] = {0x7FC00000u /* NaN */, 0x7F800000u /* inf */, 0xFF800000u /* -inf */,
                            0x7F7FFFFFu /* 3.4e38: finite, but every product overflows */};
    const size_t where[] = {0, 4 * 7 + 8, (size_t)tbon_size - 4};
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++)
        for (size_t w = 0; w < sizeof where / sizeof where[0]; w++) {
            patch32 p = {CROWD_TAG_TBON, where[w], bad[b]};
            EXPECT_REFUSED(load_patched(&tiny, apply_patch32, &p, &e_), "TBON");
        }
    /* the message names the frame, bone and row */
    crowd_error err;
    patch32 p = {CROWD_TAG_TBON, (3 * 1 + 2) * 16, 0x7FC00000u}; /* frame 0, bone 1, row 2, x */
    load_patched(&tiny, apply_patch32, &p, &err);
    CHECKF(strstr(err.message, "frame 0, bone 1, row 2") && strstr(err.message, "x = nan"), "message: %s", err.message);
    /* a large but sane value still loads */
    p.value = 0x447A0000u; /* 1000.0 */
    CHECK(load_patched(&tiny, apply_patch32, &p, &err) == CROWD_OK);
}

static void fp16_texture_values(void)
{
    crowd_bake_desc desc = {.fp16 = true, .frames = 8};
    crowd_bake_output f16 = bake_or_die(&tiny_rig, desc);
    crowd_error err;
    {
        crowd_asset a;
        REQUIRE(crowd_asset_load_memory(&a, f16.bytes, f16.size, &err) == CROWD_OK);
        crowd_asset_free(&a);
    }
    /* positions: NaN, +inf, above 1, below 0, far below 0 */
    const uint16_t bad_pos[] = {0x7E00u, 0x7C00u, 0x3C01u, 0xBC00u, 0x8001u, 0xFBFFu};
    for (size_t b = 0; b < sizeof bad_pos / sizeof bad_pos[0]; b++)
        for (size_t k = 0; k < 4; k++) { /* w is written as 0 and held to the same rule */
            patch16 p = {CROWD_TAG_TPOS, 8 * 5 + 2 * k, bad_pos[b]};
            EXPECT_REFUSED(load_patched(&f16, apply_patch16, &p, &e_), "TPOS");
        }
    /* the edges of the box are inside it */
    const uint16_t good_pos[] = {0x0000u, 0x8000u, 0x3C00u, 0x3BFFu, 0x0001u};
    for (size_t g = 0; g < sizeof good_pos / sizeof good_pos[0]; g++) {
        patch16 p = {CROWD_TAG_TPOS, 8 * 5 + 2, good_pos[g]};
        CHECKF(load_patched(&f16, apply_patch16, &p, &err) == CROWD_OK, "half 0x%04x: %s", good_pos[g], err.message);
    }
    /* normals: octahedral square coordinates in [-1, 1] */
    const uint16_t bad_nrm[] = {0x7E00u, 0xFC00u, 0x3C01u, 0xBC01u, 0x4000u};
    for (size_t b = 0; b < sizeof bad_nrm / sizeof bad_nrm[0]; b++) {
        patch16 p = {CROWD_TAG_TNRM, 4 * 3 + 2 * (b & 1), bad_nrm[b]};
        EXPECT_REFUSED(load_patched(&f16, apply_patch16, &p, &e_), "TNRM");
    }
    patch16 p = {CROWD_TAG_TNRM, 0, 0xBC00u}; /* -1 is a valid square coordinate */
    CHECK(load_patched(&f16, apply_patch16, &p, &err) == CROWD_OK);
    p = (patch16){CROWD_TAG_TPOS, 8 * 3 + 4, 0x3C01u};
    load_patched(&f16, apply_patch16, &p, &err);
    CHECKF(strstr(err.message, "frame 0, vertex 3") && strstr(err.message, "z = 1.00098"), "message: %s", err.message);
    crowd_bake_output_free(&f16);
}

/* The HEAD sphere shrunk just inside the decode box's farthest face, and every CBND sphere made a
 * point at its centre so they stay inside it: only the HEAD check can refuse this. */
static void apply_short_sphere(uint8_t *bytes, void *user)
{
    (void)user;
    uint8_t *head = bytes + section_offset(bytes, CROWD_TAG_HEAD, NULL);
    float cy = crowd_rdf32(head + CROWD_HEAD_SPHERE_CENTER_Y), reach = 0.0f;
    for (int i = 0; i < 3; i++) {
        float lo = crowd_rdf32(head + CROWD_HEAD_BOUNDS_MIN + 4 * i),
              hi = crowd_rdf32(head + CROWD_HEAD_BOUNDS_MAX + 4 * i);
        reach = fmaxf(reach, i == 1 ? fmaxf(hi - cy, cy - lo) : fmaxf(fabsf(lo), fabsf(hi)));
    }
    crowd_wrf32(head + CROWD_HEAD_SPHERE_RADIUS, reach * 0.999f);
    uint64_t size = 0;
    uint8_t *bounds = bytes + section_offset(bytes, CROWD_TAG_CBND, &size);
    for (uint64_t at = CROWD_CBND_HEADER_BYTES; at + CROWD_CBND_CLIP_BYTES <= size; at += CROWD_CBND_CLIP_BYTES) {
        crowd_wrf32(bounds + at, 0.0f), crowd_wrf32(bounds + at + 4, cy), crowd_wrf32(bounds + at + 8, 0.0f);
        crowd_wrf32(bounds + at + 12, 0.0f);
    }
}

static void header_floats(void)
{
    patch32 p = {CROWD_TAG_HEAD, CROWD_HEAD_BOUNDS_MIN, 0xFF7FFFFFu}; /* -3.4e38: every decode overflows */
    EXPECT_REFUSED(load_patched(&tiny, apply_patch32, &p, &e_), "bounds[0]");
    p = (patch32){CROWD_TAG_HEAD, CROWD_HEAD_BOUNDS_MAX + 8, 0x7F7FFFFFu};
    EXPECT_REFUSED(load_patched(&tiny, apply_patch32, &p, &e_), "bounds[2]");
    p = (patch32){CROWD_TAG_HEAD, CROWD_HEAD_BOUNDS_MIN + 4, 0xC9800000u}; /* -1.05e6 m */
    EXPECT_REFUSED(load_patched(&tiny, apply_patch32, &p, &e_), "bounds[1]");
    p = (patch32){CROWD_TAG_HEAD, CROWD_HEAD_SPHERE_RADIUS, 0x7F000000u};
    EXPECT_REFUSED(load_patched(&tiny, apply_patch32, &p, &e_), "sphere");
    EXPECT_REFUSED(load_patched(&tiny, apply_short_sphere, NULL, &e_), "does not reach the decode box's faces");
    p = (patch32){CROWD_TAG_HEAD, CROWD_HEAD_BAKE_FPS, 0x7F800000u};
    EXPECT_REFUSED(load_patched(&tiny, apply_patch32, &p, &e_), "bake_fps");
}

static void table_floats(void)
{
    /* clips: a denormal duration (a rate of 1/duration is infinite), a huge stride, a stride
     * without LOCOMOTION */
    patch32 p = {CROWD_TAG_CLIP, 16, 0x00000001u};
    EXPECT_REFUSED(load_patched(&tiny, apply_patch32, &p, &e_), "duration");
    p = (patch32){CROWD_TAG_CLIP, 16, 0x7F000000u};
    EXPECT_REFUSED(load_patched(&tiny, apply_patch32, &p, &e_), "duration");
    p = (patch32){CROWD_TAG_CLIP, 20, 0x00000010u}; /* 2e-44 m */
    EXPECT_REFUSED(load_patched(&tiny, apply_patch32, &p, &e_), "stride");
    p = (patch32){CROWD_TAG_CLIP, 20, 0x3F800000u}; /* 1 m, but the clip is not flagged LOCOMOTION */
    EXPECT_REFUSED(load_patched(&tiny, apply_patch32, &p, &e_), "LOCOMOTION");
    /* bind poses, sockets, vertex streams, coverage hints */
    p = (patch32){CROWD_TAG_BONE, 8 + 4 * 3, 0x7F7FFFFFu};
    EXPECT_REFUSED(load_patched(&tiny, apply_patch32, &p, &e_), "bones[0]");
    p = (patch32){CROWD_TAG_SOCK, 8 + 4 * 7, 0xFF7FFFFFu};
    EXPECT_REFUSED(load_patched(&tiny, apply_patch32, &p, &e_), "sockets[0]");
    p = (patch32){CROWD_TAG_VPOS, 12 * 2 + 4, 0x7F7FFFFFu};
    EXPECT_REFUSED(load_patched(&tiny, apply_patch32, &p, &e_), "vertices[2]");
    p = (patch32){CROWD_TAG_VNRM, 0, 0x7FC00000u};
    EXPECT_REFUSED(load_patched(&tiny, apply_patch32, &p, &e_), "vertices[0]");
    p = (patch32){CROWD_TAG_LODS, 12, 0x7F800000u};
    EXPECT_REFUSED(load_patched(&tiny, apply_patch32, &p, &e_), "screen_coverage");
}

/* 3 is invertible mod 2^32, so a 32-bit "index_count == 3 * triangle_count" accepts a level of 4
 * indices claiming 2863311532 triangles (3 * 2863311532 = 2^33 + 4). */
static void apply_wrapping_lod(uint8_t *bytes, void *user)
{
    (void)user;
    uint8_t *lod = bytes + section_offset(bytes, CROWD_TAG_LODS, NULL);
    uint32_t indices = crowd_rd32(lod + 4) + 1; /* still inside INDX: level 1 follows */
    crowd_wr32(lod + 4, indices);
    crowd_wr32(lod + 8, 0xAAAAAAABu * indices);
}

static void wrapping_triangle_count(void)
{
    crowd_error err;
    CHECK(3u * (0xAAAAAAABu * 37u) == 37u); /* the arithmetic the old check fell for */
    CHECK(load_patched(&tiny, apply_wrapping_lod, NULL, &err) == CROWD_ERROR_INVALID_DATA);
    CHECKF(strstr(err.message, "lods[0]"), "message: %s", err.message);
}

/* Appends a section `tag` with `length` bytes of `payload` to a copy of `image` (one more table
 * entry: every section moves 32 bytes on). The result is sealed; free() it. */
static uint8_t *with_extra_section(const crowd_bake_output *image, uint32_t tag, const void *payload, size_t length,
                                   size_t *size)
{
    uint32_t count = crowd_rd32(image->bytes + 12);
    size_t table_end = 32 + 32 * (size_t)count;
    size_t padded = (length + 15) & ~(size_t)15;
    *size = image->size + 32 + padded;
    uint8_t *out = aligned_alloc(16, *size); /* image sizes are multiples of 16 */
    memset(out, 0, *size);
    memcpy(out, image->bytes, table_end);
    memcpy(out + table_end + 32, image->bytes + table_end, image->size - table_end);
    crowd_wr32(out + 12, count + 1);
    crowd_wr64(out + 16, *size);
    for (uint32_t i = 0; i < count; i++)
        crowd_wr64(out + 32 + 32 * i + 8, crowd_rd64(out + 32 + 32 * i + 8) + 32);
    uint8_t *entry = out + table_end;
    crowd_wr32(entry, tag);
    crowd_wr64(entry + 8, image->size + 32);
    crowd_wr64(entry + 16, length);
    memcpy(out + image->size + 32, payload, length);
    reseal(out, *size);
    return out;
}

/* A copy of `image` without its last `drop` sections (the table shrinks: every section moves back
 * 32 bytes per entry dropped), sealed; free() it. */
static uint8_t *without_last_sections(const uint8_t *bytes, uint32_t drop, size_t *size)
{
    uint32_t count = crowd_rd32(bytes + 12), keep = count - drop;
    size_t table_end = 32 + 32 * (size_t)count, shift = 32 * (size_t)drop;
    *size = (size_t)crowd_rd64(bytes + 32 + 32 * (size_t)keep + 8) - shift; /* where the first dropped one began */
    uint8_t *out = aligned_alloc(16, *size);
    memcpy(out, bytes, 32 + 32 * (size_t)keep);
    memcpy(out + 32 + 32 * (size_t)keep, bytes + table_end, *size - (32 + 32 * (size_t)keep));
    crowd_wr32(out + 12, keep);
    crowd_wr64(out + 16, *size);
    for (uint32_t i = 0; i < keep; i++)
        crowd_wr64(out + 32 + 32 * i + 8, crowd_rd64(out + 32 + 32 * i + 8) - shift);
    reseal(out, *size);
    return out;
}

/* Files of every older version load: the same bake without MARK as version 3, without MARK and
 * CBND as version 1 (no clip bounds: the asset sphere for every clip); the writer labels a bake
 * without markers 3. The MARK section's fields are each checked. */
static void older_versions_and_markers(void)
{
    crowd_error err;
    crowd_asset a;
    size_t size;
    uint8_t *v3 = without_last_sections(tiny.bytes, 1, &size);
    CHECK(crowd_asset_load_memory(&a, v3, size, &err) == CROWD_OK); /* still labelled 4: MARK is optional */
    crowd_asset_free(&a);
    crowd_wr32(v3 + 8, 3);
    reseal(v3, size);
    CHECKF(crowd_asset_load_memory(&a, v3, size, &err) == CROWD_OK, "version 3: %s", err.message);
    CHECK(a.marker_count == 0 && !a.markers && a.has_clip_bounds);
    crowd_asset_free(&a);
    free(v3);
    uint8_t *v1 = without_last_sections(tiny.bytes, 2, &size);
    crowd_wr32(v1 + 8, 1);
    reseal(v1, size);
    CHECKF(crowd_asset_load_memory(&a, v1, size, &err) == CROWD_OK, "version 1: %s", err.message);
    CHECK(a.marker_count == 0 && !a.has_clip_bounds && a.clips[0].cull_radius == a.sphere_radius);
    crowd_asset_free(&a);
    free(v1);
    crowd_bake_output plain = bake_or_die(&tiny_rig, (crowd_bake_desc){.frames = 8});
    CHECK(crowd_rd32(plain.bytes + 8) == 3);
    crowd_bake_output_free(&plain);

    uint64_t mark_size;
    size_t mark = section_offset(tiny.bytes, CROWD_TAG_MARK, &mark_size);
    REQUIRE(mark && mark_size == CROWD_MARK_HEADER_BYTES + 2 * CROWD_MARK_RECORD_BYTES);
    size_t rec0 = mark + CROWD_MARK_HEADER_BYTES, rec1 = rec0 + CROWD_MARK_RECORD_BYTES;
    float nan = NAN, late = 1.5f; /* the clip lasts 1 s */
    uint32_t nan_bits, late_bits;
    memcpy(&nan_bits, &nan, 4);
    memcpy(&late_bits, &late, 4);
    EXPECT(load_edited(mark, 0, 4, &err_), CROWD_ERROR_LIMIT);            /* no markers */
    EXPECT(load_edited(mark, 3, 4, &err_), CROWD_ERROR_OVERFLOW);         /* more than the section holds */
    EXPECT(load_edited(mark + 8, 1, 4, &err_), CROWD_ERROR_INVALID_DATA); /* reserved */
    EXPECT(load_edited(rec0 + 4, 1, 4, &err_), CROWD_ERROR_INVALID_DATA); /* clip 1 of 1 */
    EXPECT(load_edited(rec1 + 8, nan_bits, 4, &err_), CROWD_ERROR_INVALID_DATA);
    EXPECT(load_edited(rec1 + 8, late_bits, 4, &err_), CROWD_ERROR_INVALID_DATA);
    EXPECT(load_edited(rec0 + 8, late_bits, 4, &err_), CROWD_ERROR_INVALID_DATA); /* out of order too */
    EXPECT(load_edited(rec0 + 12, 1, 4, &err_), CROWD_ERROR_INVALID_DATA);        /* reserved */
    EXPECT(load_edited(rec0, 0xFFFFFF00u, 4, &err_), CROWD_ERROR_INVALID_DATA);   /* name outside STRS */
    /* the source name "tiny strip" (offset 0 of the strings) has a space: not a marker name */
    EXPECT(load_edited(rec0, 0, 4, &err_), CROWD_ERROR_INVALID_DATA);
    load_edited(rec1 + 8, late_bits, 4, &err);
    CHECKF(strstr(err.message, "markers[1] \"hit\": time 1.5 s outside clip 0 \"bend\""), "message: %s", err.message);
}

static void unknown_section(void)
{
    const char payload[] = "data from a newer writer";
    size_t size;
    crowd_error err;
    crowd_asset a;
    uint8_t *bytes = with_extra_section(&tiny, CROWD_TAG('X', 'T', 'R', 'A'), payload, sizeof payload, &size);
    CHECK(crowd_asset_load_memory(&a, bytes, size, &err) == CROWD_ERROR_INVALID_DATA);
    CHECKF(strstr(err.message, "XTRA") && strstr(err.message, "not a section"), "message: %s", err.message);
    free(bytes);
    /* the helper itself is sound: a known optional section appended where the header expects it loads */
    crowd_bake_desc desc = {.frames = 8}; /* no bones: no BONE section */
    crowd_bake_output plain = bake_or_die(&tiny_rig, desc);
    REQUIRE(crowd_asset_load_memory(&a, plain.bytes, plain.size, &err) == CROWD_OK);
    crowd_asset_free(&a);
    /* bone_count 1 without HAS_BONES, with a BONE section to match: the old loader took it */
    uint8_t bone[CROWD_BONE_BYTES] = {0};
    crowd_wr32(bone + 4, 0xFFFFFFFFu); /* parent -1 */
    crowd_wrf32(bone + 8, 1.0f);
    crowd_wrf32(bone + 8 + 20, 1.0f);
    crowd_wrf32(bone + 8 + 40, 1.0f);
    bytes = with_extra_section(&plain, CROWD_TAG_BONE, bone, sizeof bone, &size);
    size_t head = section_offset(bytes, CROWD_TAG_HEAD, NULL);
    CHECK(crowd_rd32(bytes + head + CROWD_HEAD_BONE_COUNT) == 0 &&
          !(crowd_rd32(bytes + head + CROWD_HEAD_FLAGS) & CROWD_ASSET_HAS_BONES));
    CHECK(crowd_asset_load_memory(&a, bytes, size, &err) == CROWD_ERROR_INVALID_DATA); /* BONE unasked for */
    crowd_wr32(bytes + head + CROWD_HEAD_BONE_COUNT, 1);
    reseal(bytes, size);
    CHECK(crowd_asset_load_memory(&a, bytes, size, &err) == CROWD_ERROR_INVALID_DATA);
    CHECKF(strstr(err.message, "bone_count 1") && strstr(err.message, "HAS_BONES"), "message: %s", err.message);
    free(bytes);
    crowd_bake_output_free(&plain);
}

static void directory_as_input(void)
{
    crowd_error err = {0};
    crowd_asset a;
    CHECK(crowd_asset_load_file(&a, ".", &err) == CROWD_ERROR_IO);
    CHECKF(strstr(err.message, "is a directory"), "message: %s", err.message);
    crowd_rig rig;
    crowd_gltf_desc desc = {0};
    CHECK(crowd_gltf_read_file(".", &desc, &rig, &err) == CROWD_ERROR_IO);
    CHECKF(strstr(err.message, "is a directory"), "message: %s", err.message);
    /* an empty file is an empty file, not a directory */
    FILE *f = fopen("test_container_empty.crowd", "wb");
    REQUIRE(f);
    fclose(f);
    CHECK(crowd_asset_load_file(&a, "test_container_empty.crowd", &err) == CROWD_ERROR_TRUNCATED);
    remove("test_container_empty.crowd");
}

/* crowd_verify must fail, not pass, when a decode is not finite. The loader refuses such files, so
 * the texture is damaged in memory after the load (the asset borrows the bytes). */
static void verify_fails_on_nan(void)
{
    crowd_bake_desc desc = {.fp16 = true, .bones = true, .frames = 8};
    crowd_bake_output f16 = bake_or_die(&tiny_rig, desc);
    uint8_t *copy = aligned_copy(f16.bytes, f16.size);
    crowd_asset a;
    crowd_error err;
    REQUIRE(crowd_asset_load_memory(&a, copy, f16.size, &err) == CROWD_OK);
    crowd_verify_report report;
    REQUIRE(crowd_verify(&a, &tiny_rig, &report, &err) == CROWD_OK);
    CHECKF(report.passed, "clean fp16 bake: %s", report.failure);
    crowd_verify_report_free(&report);

    size_t tpos = section_offset(copy, CROWD_TAG_TPOS, NULL);
    crowd_wr16(copy + tpos + 8 * 3, 0x7E00u); /* frame 0, vertex 3: x is NaN */
    REQUIRE(crowd_verify(&a, &tiny_rig, &report, &err) == CROWD_OK);
    CHECKF(!report.passed && strstr(report.failure, "non-finite"), "NaN position: passed=%d \"%s\"", report.passed,
           report.failure);
    crowd_verify_report_free(&report);
    crowd_wr16(copy + tpos + 8 * 3, 0);

    size_t tbon = section_offset(copy, CROWD_TAG_TBON, NULL);
    crowd_wr32(copy + tbon + 16 * 3 * 1, 0x7FC00000u); /* frame 0, bone 1, row 0 */
    REQUIRE(crowd_verify(&a, &tiny_rig, &report, &err) == CROWD_OK);
    CHECKF(!report.passed && strstr(report.failure, "non-finite"), "NaN bone: passed=%d \"%s\"", report.passed,
           report.failure);
    crowd_verify_report_free(&report);
    crowd_asset_free(&a);
    free(copy);
    crowd_bake_output_free(&f16);
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
    /* with two markers, so every prefix and byte corruption below reaches the MARK section too */
    static const crowd_bake_marker marks[] = {{"bend", "hit", 0.5f}, {"bend", "start", 0.0f}};
    crowd_bake_desc desc = {.bones = true,
                            .frames = 8,
                            .lod_count = 2,
                            .lod_ratios = (const float[]){1.0f, 0.5f},
                            .markers = marks,
                            .marker_count = 2};
    tiny = bake_or_die(&tiny_rig, desc);
    printf("     tiny asset: %zu bytes\n", tiny.size);
    RUN_TEST(round_trip);
    RUN_TEST(every_truncated_prefix);
    RUN_TEST(every_single_byte_corruption);
    RUN_TEST(distinct_errors);
    RUN_TEST(messages_are_specific);
    RUN_TEST(bone_texture_values);
    RUN_TEST(fp16_texture_values);
    RUN_TEST(header_floats);
    RUN_TEST(table_floats);
    RUN_TEST(wrapping_triangle_count);
    RUN_TEST(unknown_section);
    RUN_TEST(older_versions_and_markers);
    RUN_TEST(directory_as_input);
    RUN_TEST(verify_fails_on_nan);
    crowd_bake_output_free(&tiny);
    crowd_rig_free(&tiny_rig);
    TEST_MAIN_END();
}
