/* What the glTF reader makes of a file: accessor decoding (strides, every component type,
 * normalisation, matrix padding, sparse), interpolation (LINEAR slerp, STEP, CUBICSPLINE tangent
 * scaling), node and skin semantics (matrix nodes, non-joint ancestors, rigid parts, missing
 * inverse binds, more than 4 influences, several skins), morph targets, colours, textures,
 * MSFT_lod, sockets, clips that start late, external buffers. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "common/cbmath.h"
#include "core/alloc.h"
#include "core/format.h"
#include "gltf/atlas.h"
#include "gltf/gltf_internal.h"
#include "test_support.h"

#include <stb/stb_image.h>

#define ASSETS CROWD_ASSET_DIR "/gltf/"

/* The fixture with `extra` bytes appended to its buffer and up to four JSON edits (from, to). */
static char *fixture(const uint8_t *extra, size_t extra_size, const char *const edits[][2], int edit_count)
{
    uint8_t bin[GLTF_FIXTURE_BYTES + 256];
    gltf_fixture_bin(bin);
    if (extra_size)
        memcpy(bin + GLTF_FIXTURE_BYTES, extra, extra_size);
    char *json = gltf_fixture_json(bin, GLTF_FIXTURE_BYTES + extra_size);
    for (int e = 0; e < edit_count; e++) {
        char *next = replace_once(json, edits[e][0], edits[e][1]);
        if (!next) {
            fprintf(stderr, "fixture edit not found: %s\n", edits[e][0]);
            exit(1);
        }
        free(json);
        json = next;
    }
    return json;
}

/* Appends accessors (JSON objects, comma-separated) after the fixture's last one. */
#define ADD_ACCESSORS(objects)                                                                   \
    {                                                                                            \
        "\"type\":\"VEC4\"}],\"bufferViews\"", "\"type\":\"VEC4\"}," objects "],\"bufferViews\"" \
    }

static crowd_result read_edits(const uint8_t *extra, size_t n, const char *const edits[][2], int count, crowd_rig *rig,
                               crowd_error *err)
{
    char *json = fixture(extra, n, edits, count);
    crowd_result r = read_gltf_text(json, rig, err, NULL);
    free(json);
    return r;
}

static void pose_at(const crowd_rig *rig, double t, crowd_trs *pose)
{
    rig->sample(rig, 0, t, pose, NULL);
}

static bool near3(const float *v, float x, float y, float z)
{
    return fabsf(v[0] - x) < 1e-5f && fabsf(v[1] - y) < 1e-5f && fabsf(v[2] - z) < 1e-5f;
}

/* ---- the fixture as written ------------------------------------------------------------------ */

static void fixture_basics(void)
{
    crowd_rig rig;
    crowd_error err;
    REQUIRE(read_edits(NULL, 0, NULL, 0, &rig, &err) == CROWD_OK);
    CHECK(rig.vertex_count == 4 && rig.index_count == 6 && rig.bone_count == 2 && rig.clip_count == 1);
    CHECK(!strcmp(rig.bones[1].name, "joint1") && rig.bones[1].parent == 0);
    CHECK(rig.clips[0].duration == 2.0 && rig.clips[0].start == 0.0 && rig.clips[0].loop);
    crowd_trs pose[2];
    pose_at(&rig, 1.0, pose);
    CHECK(near3(pose[1].translation, 0, 2, 0));
    pose_at(&rig, 0.5, pose); /* LINEAR: lerp, and slerp for rotations */
    CHECK(near3(pose[1].translation, 0, 1.5f, 0));
    CHECKF(fabsf(pose[1].rotation[2] - sinf(0.3926991f)) < 1e-5f &&
               fabsf(pose[1].rotation[3] - cosf(0.3926991f)) < 1e-5f,
           "slerp halfway gives %g %g", (double)pose[1].rotation[2], (double)pose[1].rotation[3]);
    pose_at(&rig, 7.0, pose); /* past the end: the last key */
    CHECK(near3(pose[1].translation, 0, 1, 0));
    crowd_rig_free(&rig);
}

static void step_interpolation(void)
{
    const char *const edits[][2] = {
        {"{\"input\":6,\"output\":7}", "{\"input\":6,\"output\":7,\"interpolation\":\"STEP\"}"}};
    crowd_rig rig;
    crowd_error err;
    REQUIRE(read_edits(NULL, 0, edits, 1, &rig, &err) == CROWD_OK);
    crowd_trs pose[2];
    pose_at(&rig, 0.99, pose);
    CHECK(near3(pose[1].translation, 0, 1, 0));
    pose_at(&rig, 1.0, pose);
    CHECK(near3(pose[1].translation, 0, 2, 0));
    crowd_rig_free(&rig);
}

/* Two keys 2 s apart: in/out tangents are scaled by the key interval (the spec's rule), so at
 * t = 1: 0.5 v0 + 0.125 * 2 * out0 + 0.5 v1 - 0.125 * 2 * in1. */
static void cubic_spline_tangent_scaling(void)
{
    float extra[2 + 18] = {0, 2, 0, 0, 0,             /* key 0: in-tangent, value, out-tangent */
                           0, 1, 0, 1, 0, 0, 0, 0, 1, /* key 1 */
                           0, 2, 0, 0, 0, 0};
    const char *const edits[][2] = {
        ADD_ACCESSORS("{\"bufferView\":0,\"byteOffset\":416,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\","
                      "\"min\":[0],\"max\":[2]},"
                      "{\"bufferView\":0,\"byteOffset\":424,\"componentType\":5126,\"count\":6,\"type\":\"VEC3\"}"),
        {"{\"input\":6,\"output\":7}", "{\"input\":9,\"output\":10,\"interpolation\":\"CUBICSPLINE\"}"}};
    crowd_rig rig;
    crowd_error err;
    REQUIRE(read_edits((const uint8_t *)extra, sizeof extra, edits, 2, &rig, &err) == CROWD_OK);
    crowd_trs pose[2];
    pose_at(&rig, 1.0, pose);
    CHECKF(near3(pose[1].translation, 0.25f, 1.5f, -0.25f), "cubic at t=1: %g %g %g", (double)pose[1].translation[0],
           (double)pose[1].translation[1], (double)pose[1].translation[2]);
    pose_at(&rig, 2.0, pose);
    CHECK(near3(pose[1].translation, 0, 2, 0));
    crowd_rig_free(&rig);
}

/* ---- accessors, through the document model ----------------------------------------------------- */

static void accessor_decoding(void)
{
    /* bytes: 8 x s8/u8, 4 x s16/u16 in the same 8 bytes, a MAT3 of u8 (columns padded to 4) */
    const uint8_t extra[] = {0x80, 0x7f, 0x00, 0xff, 0x01, 0x02, 0x03, 0x04,             /* @416 */
                             1,    2,    3,    0,    4,    5,    6,    0,    7, 8, 9, 0, /* @424 MAT3 u8 */
                             2,    0,    0,    0,                                        /* @436 sparse index 2 */
                             0,    0,    0xa0, 0x40};                                    /* @440 sparse value 5.0f */
    const char *const edits[][2] = {
        ADD_ACCESSORS("{\"bufferView\":0,\"byteOffset\":416,\"componentType\":5120,\"count\":4,\"type\":\"SCALAR\","
                      "\"normalized\":true},"
                      "{\"bufferView\":0,\"byteOffset\":416,\"componentType\":5121,\"count\":4,\"type\":\"SCALAR\","
                      "\"normalized\":true},"
                      "{\"bufferView\":0,\"byteOffset\":416,\"componentType\":5122,\"count\":2,\"type\":\"SCALAR\","
                      "\"normalized\":true},"
                      "{\"bufferView\":0,\"byteOffset\":416,\"componentType\":5123,\"count\":2,\"type\":\"SCALAR\"},"
                      "{\"bufferView\":0,\"byteOffset\":424,\"componentType\":5121,\"count\":1,\"type\":\"MAT3\"},"
                      "{\"bufferView\":1,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"},"
                      "{\"componentType\":5126,\"count\":4,\"type\":\"SCALAR\",\"sparse\":{\"count\":1,"
                      "\"indices\":{\"bufferView\":0,\"byteOffset\":436,\"componentType\":5125},"
                      "\"values\":{\"bufferView\":0,\"byteOffset\":440}}}"),
        /* a strided view over the positions: every other vertex */
        {"}],\"buffers\"", "},{\"buffer\":0,\"byteOffset\":0,\"byteLength\":48,\"byteStride\":24}],\"buffers\""}};
    char *fixed = fixture(extra, sizeof extra, edits, 2);
    gltf_doc doc = {.name = "fixture"};
    crowd_error err;
    crowd_result r = gltf_doc_open(&doc, (const uint8_t *)fixed, strlen(fixed), &err);
    CHECKF(r == CROWD_OK, "%s", err.message);
    if (r == CROWD_OK) {
        float v[16];
        REQUIRE(gltf_read_floats(&doc, 9, v, "s8", &err) == CROWD_OK);
        CHECK(v[0] == -1.0f && v[1] == 1.0f && v[2] == 0.0f && v[3] == -1.0f / 127.0f);
        REQUIRE(gltf_read_floats(&doc, 10, v, "u8", &err) == CROWD_OK);
        CHECK(v[0] == 128.0f / 255.0f && v[1] == 127.0f / 255.0f && v[3] == 1.0f);
        REQUIRE(gltf_read_floats(&doc, 11, v, "s16", &err) == CROWD_OK);
        CHECK(v[0] == 32640.0f / 32767.0f && v[1] == -256.0f / 32767.0f);
        uint32_t u[4];
        REQUIRE(gltf_read_uints(&doc, 12, u, "u16", &err) == CROWD_OK);
        CHECK(u[0] == 0x7f80 && u[1] == 0xff00);
        REQUIRE(gltf_read_floats(&doc, 13, v, "mat3", &err) == CROWD_OK);
        for (int i = 0; i < 9; i++)
            CHECKF(v[i] == (float)(i + 1), "MAT3 u8 element %d = %g", i, (double)v[i]);
        REQUIRE(gltf_read_floats(&doc, 14, v, "strided", &err) == CROWD_OK);
        CHECK(v[0] == 0 && v[3] == 0 && v[4] == 1 && v[5] == 0); /* vertices 0 and 2 */
        REQUIRE(gltf_read_floats(&doc, 15, v, "sparse", &err) == CROWD_OK);
        CHECK(v[0] == 0 && v[1] == 0 && v[2] == 5.0f && v[3] == 0);
        gltf_doc_close(&doc);
    }
    free(fixed);
}

static void sparse_asset(void)
{
    crowd_rig rig;
    crowd_error err;
    REQUIRE(crowd_gltf_read_file(ASSETS "SimpleSparseAccessor.gltf", NULL, &rig, &err) == CROWD_OK);
    /* the sparse substitution lifts some vertices of the flat grid to y = 1..4 */
    float top = 0;
    for (uint32_t v = 0; v < rig.vertex_count; v++)
        top = fmaxf(top, rig.positions[3 * v + 1]);
    CHECKF(top > 1.5f, "highest vertex %g: sparse values not applied", (double)top);
    CHECK(!strcmp(rig.clips[0].name, "rest") && rig.clips[0].duration == 0.0);
    crowd_rig_free(&rig);
}

/* ---- nodes and skins ----------------------------------------------------------------------------- */

static void matrix_node_and_ancestor(void)
{
    /* a non-joint ancestor scaling by 2 above the joints; the root given as a matrix */
    const char *const edits[][2] = {
        {"\"scenes\":[{\"nodes\":[0,2]}]", "\"scenes\":[{\"nodes\":[3,2]}]"},
        {"{\"name\":\"mesh\",\"mesh\":0,\"skin\":0}]",
         "{\"name\":\"mesh\",\"mesh\":0,\"skin\":0},{\"name\":\"armature\",\"scale\":[2,2,2],\"children\":[0]}]"},
        {"{\"name\":\"root\",\"children\":[1]}",
         "{\"name\":\"root\",\"children\":[1],\"matrix\":[1,0,0,0,0,1,0,0,0,0,1,0,0.5,0,0,1]}"}};
    crowd_rig rig;
    crowd_error err;
    REQUIRE(read_edits(NULL, 0, edits, 3, &rig, &err) == CROWD_OK);
    REQUIRE(rig.bone_count == 3);
    CHECK(!strcmp(rig.bones[0].name, "armature") && rig.bones[1].parent == 0 && rig.bones[2].parent == 1);
    CHECK(near3(rig.bones[1].rest.translation, 0.5f, 0, 0) && rig.bones[1].rest.rotation[3] == 1.0f);
    /* at rest, vertex 1 (1,0,0) on the root joint lands at 2 * ((1,0,0) + (0.5,0,0)) */
    crowd_trs pose[3];
    float global[48], skin[48], p[3];
    for (int b = 0; b < 3; b++)
        pose[b] = rig.bones[b].rest;
    crowd_rig_global_matrices(&rig, pose, global);
    crowd_rig_skin_matrices(&rig, global, skin);
    uint32_t joint = rig.joints[1 * rig.influence_count];
    cb_mat4_transform_point(skin + 16 * joint, rig.positions + 3, p);
    CHECKF(near3(p, 3, 0, 0), "vertex 1 at %g %g %g", (double)p[0], (double)p[1], (double)p[2]);
    crowd_rig_free(&rig);
}

static void rigid_part_and_missing_ibm(void)
{
    /* a prop under joint1 (rigid, weight 1 on its own bone) and no inverseBindMatrices */
    const char *const edits[][2] = {
        {"{\"name\":\"joint1\",\"translation\":[0,1,0]}",
         "{\"name\":\"joint1\",\"translation\":[0,1,0],\"children\":[3]}"},
        {"{\"name\":\"mesh\",\"mesh\":0,\"skin\":0}]",
         "{\"name\":\"mesh\",\"mesh\":0,\"skin\":0},{\"name\":\"prop\",\"mesh\":1,\"translation\":[1,0,0]}]"},
        {"\"indices\":4}]}]",
         "\"indices\":4}]},{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"NORMAL\":1},\"indices\":4}]}]"},
        {",\"inverseBindMatrices\":5", ""}};
    crowd_rig rig;
    crowd_error err;
    REQUIRE(read_edits(NULL, 0, edits, 4, &rig, &err) == CROWD_OK);
    CHECK(rig.vertex_count == 8 && rig.bone_count == 3);
    int prop = crowd_rig_find_bone(&rig, "prop");
    REQUIRE(prop == 2);
    for (int b = 0; b < 2; b++)
        CHECK(rig.bones[b].inverse_bind[0] == 1 && rig.bones[b].inverse_bind[13] == 0); /* identity */
    /* prop vertex 1 (1,0,0) in its node: world (0,1,0) + (1,0,0) + (1,0,0); at t = 1 joint1 sits at
     * (0,2,0) turned 90 deg about z, so the vertex goes to (0,2,0) + Rz((2,0,0)) = (0,4,0) */
    uint32_t v = 5;
    CHECK(rig.joints[v * rig.influence_count] == 2 && rig.weights[v * rig.influence_count] == 1.0f);
    CHECK(near3(rig.positions + 3 * v, 2, 1, 0));
    crowd_trs pose[3];
    float global[48], skin[48], p[3];
    pose_at(&rig, 1.0, pose);
    crowd_rig_global_matrices(&rig, pose, global);
    crowd_rig_skin_matrices(&rig, global, skin);
    cb_mat4_transform_point(skin + 16 * prop, rig.positions + 3 * v, p);
    CHECKF(near3(p, 0, 4, 0), "prop vertex at %g %g %g", (double)p[0], (double)p[1], (double)p[2]);
    crowd_rig_free(&rig);
}

static void eight_influences(void)
{
    uint8_t extra[4 * 4 + 4 * 16];
    for (int v = 0; v < 4; v++) {
        const uint8_t j[4] = {1, 0, 0, 0};
        const float w[4] = {0.25f, 0, 0, 0};
        memcpy(extra + 4 * v, j, 4);
        memcpy(extra + 16 + 16 * v, w, 16);
    }
    uint8_t bin[GLTF_FIXTURE_BYTES + sizeof extra];
    gltf_fixture_bin(bin);
    for (int v = 0; v < 4; v++) { /* WEIGHTS_0 becomes 0.75 */
        float w = 0.75f;
        memcpy(bin + 112 + 16 * v, &w, 4);
    }
    memcpy(bin + GLTF_FIXTURE_BYTES, extra, sizeof extra);
    char *json = gltf_fixture_json(bin, sizeof bin);
    const char *const edits[][2] = {
        ADD_ACCESSORS("{\"bufferView\":0,\"byteOffset\":416,\"componentType\":5121,\"count\":4,\"type\":\"VEC4\"},"
                      "{\"bufferView\":0,\"byteOffset\":432,\"componentType\":5126,\"count\":4,\"type\":\"VEC4\"}"),
        {"\"WEIGHTS_0\":3}", "\"WEIGHTS_0\":3,\"JOINTS_1\":9,\"WEIGHTS_1\":10}"}};
    for (int e = 0; e < 2; e++) {
        char *next = replace_once(json, edits[e][0], edits[e][1]);
        REQUIRE(next);
        free(json);
        json = next;
    }
    crowd_rig rig;
    crowd_error err;
    crowd_result r = read_gltf_text(json, &rig, &err, NULL);
    free(json);
    REQUIRE(r == CROWD_OK);
    CHECK(rig.influence_count == 8);
    CHECK(rig.weights[0] == 0.75f && rig.weights[4] == 0.25f && rig.joints[4] == 1);
    crowd_rig_free(&rig);
}

static void several_skins(void)
{
    crowd_rig a, b;
    crowd_error err;
    crowd_gltf_desc desc = {.select_skin = true, .skin = 1};
    REQUIRE(crowd_gltf_read_file(ASSETS "RobotExpressive.glb", NULL, &a, &err) == CROWD_OK);
    REQUIRE(crowd_gltf_read_file(ASSETS "RobotExpressive.glb", &desc, &b, &err) == CROWD_OK);
    /* the two skins share their joints: either selects the whole robot, 19 primitives */
    CHECK(a.vertex_count == b.vertex_count && a.index_count == b.index_count && a.clip_count == 14);
    CHECK(a.morph_target_count == 3);
    crowd_rig_free(&b);
    desc.skin = 2;
    CHECK(crowd_gltf_read_file(ASSETS "RobotExpressive.glb", &desc, &b, &err) == CROWD_ERROR_ARGUMENT &&
          strstr(err.message, "2 skins"));
    crowd_rig_free(&a);
}

/* ---- clips, files, materials ------------------------------------------------------------------ */

static void late_start_and_external_buffer(void)
{
    crowd_rig glb, gltf;
    crowd_error err;
    REQUIRE(crowd_gltf_read_file(ASSETS "RiggedSimple.glb", NULL, &glb, &err) == CROWD_OK);
    REQUIRE(crowd_gltf_read_file(ASSETS "RiggedSimple.gltf", NULL, &gltf, &err) == CROWD_OK);
    CHECKF(fabs(glb.clips[0].start - 0.041667) < 1e-4 && glb.clips[0].duration > 2.0, "clip %g + %g",
           glb.clips[0].start, glb.clips[0].duration);
    CHECK(glb.vertex_count == gltf.vertex_count &&
          !memcmp(glb.positions, gltf.positions, 3 * sizeof(float) * glb.vertex_count));
    CHECK(glb.clips[0].start == gltf.clips[0].start && glb.clips[0].duration == gltf.clips[0].duration);
    crowd_rig_free(&glb);
    crowd_rig_free(&gltf);
}

static void morph_weights_animate(void)
{
    crowd_rig rig;
    crowd_error err;
    REQUIRE(crowd_gltf_read_file(ASSETS "AnimatedMorphCube.glb", NULL, &rig, &err) == CROWD_OK);
    REQUIRE(rig.morph_target_count == 2 && rig.morph_positions);
    crowd_trs pose[64];
    float w[2], peak = 0;
    REQUIRE(rig.bone_count <= 64);
    for (double t = 0; t < rig.clips[0].duration; t += 0.1) {
        rig.sample(&rig, 0, rig.clips[0].start + t, pose, w);
        peak = fmaxf(peak, fmaxf(w[0], w[1]));
    }
    CHECKF(peak > 0.9f, "morph weights peak at %g", (double)peak);
    crowd_rig_free(&rig);
}

static void texture_and_colors(void)
{
    crowd_rig rig;
    crowd_error err;
    REQUIRE(crowd_gltf_read_file(ASSETS "Fox.glb", NULL, &rig, &err) == CROWD_OK);
    CHECK(rig.albedo && rig.albedo_width > 0 && rig.albedo_height > 0 && rig.uvs);
    CHECK(rig.region_count == 1 && rig.regions_info[0].textured);
    CHECK(rig.vertex_count == 1728); /* no normals in the file: flat, 3 vertices per triangle */
    crowd_rig_free(&rig);

    const uint8_t colors[16] = {255, 128, 0, 255, 0, 0, 0, 0, 255, 255, 255, 255, 0, 0, 0, 255};
    const char *const edits[][2] = {ADD_ACCESSORS("{\"bufferView\":0,\"byteOffset\":416,\"componentType\":5121,"
                                                  "\"count\":4,\"type\":\"VEC4\",\"normalized\":true}"),
                                    {"\"WEIGHTS_0\":3}", "\"WEIGHTS_0\":3,\"COLOR_0\":9}"}};
    REQUIRE(read_edits(colors, sizeof colors, edits, 2, &rig, &err) == CROWD_OK);
    REQUIRE(rig.colors);
    /* linear 128/255 is sRGB 188 */
    CHECK(rig.colors[0] == 255 && rig.colors[1] == 188 && rig.colors[2] == 0 && rig.colors[3] == 255);
    CHECK(rig.colors[7] == 0 && rig.colors[8] == 255);
    crowd_rig_free(&rig);
}

/* A texel that names its tile and place, so a texel found anywhere else is caught. */
static void pattern_texel(uint32_t tile, uint32_t x, uint32_t y, uint8_t out[4])
{
    out[0] = (uint8_t)(tile * 40 + 1), out[1] = (uint8_t)x, out[2] = (uint8_t)y, out[3] = (uint8_t)(x >> 8 | y >> 4);
}

/* The atlas packer alone: every tile's texels where its UVs say (repeats included), its gutter
 * its own edge texels, and a tile too big refused. */
static void atlas_places_every_texel(void)
{
    enum { N = 5 };
    const uint32_t size[N][2] = {{37, 20}, {64, 64}, {8, 100}, {200, 13}, {1, 1}};
    const uint32_t repeat[N][2] = {{1, 1}, {3, 2}, {1, 1}, {1, 4}, {2, 2}};
    const int32_t origin[N][2] = {{0, 0}, {-1, 0}, {0, 0}, {0, -2}, {5, 5}};
    gltf_atlas_tile tiles[N];
    uint8_t *images[N];
    for (uint32_t t = 0; t < N; t++) {
        images[t] = malloc((size_t)size[t][0] * size[t][1] * 4);
        REQUIRE(images[t]);
        for (uint32_t y = 0; y < size[t][1]; y++)
            for (uint32_t x = 0; x < size[t][0]; x++)
                pattern_texel(t, x, y, images[t] + ((size_t)y * size[t][0] + x) * 4);
        tiles[t] = (gltf_atlas_tile){
            images[t], size[t][0], size[t][1], {repeat[t][0], repeat[t][1]}, {origin[t][0], origin[t][1]}, 0, 0};
    }
    gltf_atlas atlas;
    crowd_error err;
    REQUIRE(gltf_atlas_pack(tiles, N, GLTF_ATLAS_MAX_SIDE, &atlas, &err) == CROWD_OK);
    uint32_t wrong = 0, checked = 0, gutter_wrong = 0;
    for (uint32_t t = 0; t < N; t++) {
        const uint32_t w = size[t][0], h = size[t][1];
        for (uint32_t ty = 0; ty < h * repeat[t][1]; ty++)
            for (uint32_t tx = 0; tx < w * repeat[t][0]; tx++) { /* the centre of every texel of the tile */
                float uv[2] = {(float)origin[t][0] + ((float)tx + 0.5f) / (float)w,
                               (float)origin[t][1] + ((float)ty + 0.5f) / (float)h},
                      at[2];
                gltf_atlas_uv(&atlas, &tiles[t], uv, at);
                uint32_t ax = (uint32_t)floorf(at[0] * (float)atlas.width),
                         ay = (uint32_t)floorf(at[1] * (float)atlas.height);
                uint8_t expected[4];
                pattern_texel(t, tx % w, ty % h, expected);
                wrong += ax >= atlas.width || ay >= atlas.height ||
                         memcmp(atlas.rgba + ((size_t)ay * atlas.width + ax) * 4, expected, 4) != 0;
                checked++;
            }
        /* the gutter: left of the first column and above the first row, the edge texel */
        for (uint32_t g = 1; g <= GLTF_ATLAS_GUTTER; g++) {
            uint8_t expected[4];
            pattern_texel(t, 0, 0, expected);
            gutter_wrong +=
                memcmp(atlas.rgba + ((size_t)(tiles[t].y - g) * atlas.width + tiles[t].x - g) * 4, expected, 4) != 0;
        }
    }
    printf("     atlas %u x %u: %u texels checked, %u wrong, %u gutter texels wrong\n", atlas.width, atlas.height,
           checked, wrong, gutter_wrong);
    CHECK(wrong == 0 && gutter_wrong == 0 && checked > 20000);
    CHECK(atlas.width <= GLTF_ATLAS_MAX_SIDE && atlas.height <= GLTF_ATLAS_MAX_SIDE);
    crowd_free(atlas.rgba);
    tiles[0].width = GLTF_ATLAS_MAX_SIDE; /* (its texels are never read: refused before) */
    CHECK(gltf_atlas_pack(tiles, N, GLTF_ATLAS_MAX_SIDE, &atlas, &err) == CROWD_ERROR_LIMIT && atlas.rgba == NULL);
    for (uint32_t t = 0; t < N; t++)
        free(images[t]);
}

/* The texel of an rgba image at a UV, nearest, repeating. */
static const uint8_t *texel_at(const uint8_t *rgba, uint32_t w, uint32_t h, const float uv[2])
{
    double u = uv[0] - floor(uv[0]), v = uv[1] - floor(uv[1]);
    uint32_t x = (uint32_t)(u * w), y = (uint32_t)(v * h);
    return rgba + ((size_t)(y < h ? y : h - 1) * w + (x < w ? x : w - 1)) * 4;
}

/* MorphStressTest's two textured materials (a grid repeated over a plate, colour swatches on the
 * bars) each keep their texture in the atlas: at every vertex of a region, the atlas texel at its
 * new UV is the source image's texel at its UV as read with only that material textured. */
static void several_materials_keep_their_textures(void)
{
    crowd_rig both, only[2];
    crowd_error err;
    REQUIRE(crowd_gltf_read_file(ASSETS "MorphStressTest.gltf", NULL, &both, &err) == CROWD_OK);
    CHECK(both.region_count == 2 && both.regions_info[0].textured && both.regions_info[1].textured);
    size_t json_size = 0;
    char *json = test_read_file(ASSETS "MorphStressTest.gltf", &json_size);
    REQUIRE(json);
    const char *image_of[2] = {ASSETS "TinyGrid.png", ASSETS "ColorSwatches.png"};
    const char *texture_of[2] = {"\"baseColorTexture\" : {\n                    \"index\" : 1",
                                 "\"baseColorTexture\" : {\n                    \"index\" : 2"};
    for (int keep = 0; keep < 2; keep++) { /* untexture the other material: no atlas, UVs as in the file */
        char *edited = replace_once(json, texture_of[1 - keep], "\"ignoredTexture\" : {\"index\" : 0");
        REQUIRE(edited);
        REQUIRE(crowd_gltf_read_memory(edited, strlen(edited), "one texture", ASSETS, NULL, &only[keep], &err) ==
                CROWD_OK);
        free(edited);
        int w = 0, h = 0, n = 0;
        size_t png_size = 0;
        char *png = test_read_file(image_of[keep], &png_size);
        uint8_t *source = png ? stbi_load_from_memory((const uint8_t *)png, (int)png_size, &w, &h, &n, 4) : NULL;
        free(png);
        REQUIRE(source && only[keep].vertex_count == both.vertex_count);
        uint32_t vertices = 0, wrong = 0;
        for (uint32_t v = 0; v < both.vertex_count; v++) {
            if (only[keep].regions[v] != (uint8_t)keep || !only[keep].regions_info[keep].textured)
                continue;
            const uint8_t *want = texel_at(source, (uint32_t)w, (uint32_t)h, only[keep].uvs + 2 * v);
            const uint8_t *got = texel_at(both.albedo, both.albedo_width, both.albedo_height, both.uvs + 2 * v);
            wrong += memcmp(want, got, 4) != 0;
            vertices++;
        }
        printf("     region %d (%s): %u vertices, %u texels differ\n", keep, both.regions_info[keep].name, vertices,
               wrong);
        CHECK(vertices > 20 && wrong == 0);
        stbi_image_free(source);
        crowd_rig_free(&only[keep]);
    }
    free(json);
    crowd_rig_free(&both);
}

static uint8_t *decoded_png(const char *path, int *w, int *h)
{
    size_t size = 0;
    int n = 0;
    char *png = test_read_file(path, &size);
    uint8_t *rgba = png ? stbi_load_from_memory((const uint8_t *)png, (int)size, w, h, &n, 4) : NULL;
    free(png);
    return rgba;
}

/* A copy with one PUVS value or the file's version changed (CRCs resealed): a clear refusal. */
static void puvs_damage_refused(const uint8_t *bytes, size_t size)
{
    uint32_t count = crowd_rd32(bytes + 12);
    uint64_t offset = 0;
    for (uint32_t i = 0; i < count; i++)
        if (crowd_rd32(bytes + 32 + 32 * i) == CROWD_TAG_PUVS)
            offset = crowd_rd64(bytes + 32 + 32 * i + 8);
    REQUIRE(offset > 0);
    const float damage[] = {NAN, INFINITY, 2e6f};
    for (int d = 0; d < 4; d++) {
        uint8_t *copy = aligned_copy(bytes, size);
        if (d < 3)
            crowd_wrf32(copy + offset + 4, damage[d]);
        else
            crowd_wr32(copy + 8, CROWD_VERSION_PALETTE_UV - 1);
        reseal(copy, size);
        crowd_asset asset;
        crowd_error err;
        crowd_result r = crowd_asset_load_memory(&asset, copy, size, &err);
        CHECKF(r == CROWD_ERROR_INVALID_DATA && strstr(err.message, "PUVS"), "damage %d: %d %s", d, (int)r,
               err.message);
        free(copy);
    }
}

/* Each variant of the bars samples what its material says: at every vertex, choice 0 the swatches,
 * choice 1 the grid (another tile, through its UV transform), choice 2 the white texel; the palette
 * holds the variants' colours; the transforms survive the bake and the load (PUVS, version 4). */
static void material_variants_sample_their_own_tiles(void)
{
    char *json = test_variants_gltf(CROWD_ASSET_DIR);
    REQUIRE(json);
    crowd_rig rig, plain;
    crowd_error err;
    REQUIRE(crowd_gltf_read_memory(json, strlen(json), "variants", ASSETS, NULL, &rig, &err) == CROWD_OK);
    free(json);
    /* the file's UVs, from a read where only the bars are textured (no atlas) */
    size_t size = 0;
    char *original = test_read_file(ASSETS "MorphStressTest.gltf", &size);
    char *one = original ? replace_once(original, "\"baseColorTexture\" : {\n                    \"index\" : 1",
                                        "\"ignoredTexture\" : {\"index\" : 0")
                         : NULL;
    free(original);
    REQUIRE(one && crowd_gltf_read_memory(one, strlen(one), "one", ASSETS, NULL, &plain, &err) == CROWD_OK);
    free(one);
    const crowd_rig_region *bars = &rig.regions_info[1];
    REQUIRE(rig.region_count == 2 && bars->palette_count == 3 && bars->uv_transforms && bars->textured);
    CHECK(bars->palette[1][0] == 255 && bars->palette[1][1] == 0 && bars->palette[2][2] == 255 &&
          bars->palette[2][0] == 0);
    CHECK(rig.regions_info[0].palette_count == 1 && !rig.regions_info[0].uv_transforms);
    int gw = 0, gh = 0, sw = 0, sh = 0;
    uint8_t *grid = decoded_png(ASSETS "TinyGrid.png", &gw, &gh),
            *swatches = decoded_png(ASSETS "ColorSwatches.png", &sw, &sh);
    REQUIRE(grid && swatches);
    uint32_t vertices = 0, wrong[3] = {0, 0, 0};
    static const uint8_t white[4] = {255, 255, 255, 255};
    for (uint32_t v = 0; v < rig.vertex_count; v++) {
        if (rig.regions[v] != 1)
            continue;
        vertices++;
        for (int k = 0; k < 3; k++) {
            const float *t = bars->uv_transforms[k], *uv = rig.uvs + 2 * v;
            float at[2] = {uv[0] * t[0] + t[2], uv[1] * t[1] + t[3]};
            const uint8_t *got = texel_at(rig.albedo, rig.albedo_width, rig.albedo_height, at);
            const uint8_t *want = k == 0   ? texel_at(swatches, (uint32_t)sw, (uint32_t)sh, plain.uvs + 2 * v)
                                  : k == 1 ? texel_at(grid, (uint32_t)gw, (uint32_t)gh, plain.uvs + 2 * v)
                                           : white;
            wrong[k] += memcmp(got, want, 4) != 0;
        }
    }
    printf("     %u vertices of the bars; texels wrong: own %u, grid variant %u, plain variant %u\n", vertices,
           wrong[0], wrong[1], wrong[2]);
    CHECK(vertices == 1504 && wrong[0] == 0 && wrong[1] == 0 && wrong[2] == 0);
    /* through the bake and the loader */
    crowd_bake_output baked;
    crowd_asset asset;
    REQUIRE(crowd_bake(&(crowd_bake_desc){.rig = &rig, .fps = 10}, &baked, &err) == CROWD_OK);
    REQUIRE(crowd_asset_load_memory(&asset, baked.bytes, baked.size, &err) == CROWD_OK);
    REQUIRE(asset.palette_uv && asset.region_count == 2);
    const float *loaded = asset.palette_uv + 4 * asset.regions_info[1].palette_first;
    CHECK(memcmp(loaded, bars->uv_transforms, 3 * 4 * sizeof(float)) == 0);
    CHECK(crowd_rd32(baked.bytes + 8) == CROWD_VERSION_PALETTE_UV); /* the file's version */
    crowd_asset_free(&asset);
    puvs_damage_refused(baked.bytes, baked.size);
    crowd_bake_output_free(&baked);
    stbi_image_free(grid), stbi_image_free(swatches);
    crowd_rig_free(&plain);
    crowd_rig_free(&rig);
}

static void msft_lod_levels(void)
{
    const uint16_t tri[4] = {0, 1, 3, 0};
    const char *const edits[][2] = {
        ADD_ACCESSORS("{\"bufferView\":0,\"byteOffset\":416,\"componentType\":5123,\"count\":3,\"type\":\"SCALAR\"}"),
        {"{\"name\":\"mesh\",\"mesh\":0,\"skin\":0}]",
         "{\"name\":\"mesh\",\"mesh\":0,\"skin\":0,\"extensions\":{\"MSFT_lod\":{\"ids\":[3]}},"
         "\"extras\":{\"MSFT_screencoverage\":[0.5,0.1]}},{\"name\":\"mesh lod1\",\"mesh\":1,\"skin\":0}]"},
        {"\"indices\":4}]}]", "\"indices\":4}]},{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"NORMAL\":1,"
                              "\"JOINTS_0\":2,\"WEIGHTS_0\":3},\"indices\":9}]}]"},
        {"\"asset\":{\"version\":\"2.0\"},", "\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"MSFT_lod\"],"}};
    crowd_rig rig;
    crowd_error err;
    REQUIRE(read_edits((const uint8_t *)tri, sizeof tri, edits, 4, &rig, &err) == CROWD_OK);
    CHECK(rig.vertex_count == 8 && rig.index_count == 6);
    REQUIRE(rig.lod_level_count == 2);
    CHECK(rig.lod_index_count[0] == 6 && rig.lod_index_count[1] == 3);
    CHECK(rig.lod_indices[rig.lod_first_index[1]] == 4); /* the LOD's own vertices */
    CHECK(rig.lod_screen_coverage[0] == 0.5f && rig.lod_screen_coverage[1] == 0.1f);
    crowd_bake_output out = bake_or_die(&rig, (crowd_bake_desc){0});
    crowd_asset asset;
    REQUIRE(crowd_asset_load_memory(&asset, out.bytes, out.size, &err) == CROWD_OK);
    CHECK(asset.lod_count == 2 && asset.lods[1].triangle_count == 1 && asset.lods[1].screen_coverage == 0.1f);
    crowd_asset_free(&asset);
    crowd_bake_output_free(&out);
    crowd_rig_free(&rig);
    /* the Microsoft sample has MSFT_lod but no buffer data: refused, naming the buffer */
    CHECK(crowd_gltf_read_file(ASSETS "msft_lod/CubeWithLOD_MSFT_lod.gltf", NULL, &rig, &err) == CROWD_ERROR_MISSING &&
          strstr(err.message, "buffers[0] has no data"));
}

static void sockets_from_nodes(void)
{
    crowd_gltf_socket sockets[] = {{"tip", "joint1"}};
    crowd_gltf_desc desc = {.sockets = sockets, .socket_count = 1};
    char *json = fixture(NULL, 0, NULL, 0);
    crowd_rig rig;
    crowd_error err;
    REQUIRE(crowd_gltf_read_memory(json, strlen(json), "f", NULL, &desc, &rig, &err) == CROWD_OK);
    CHECK(rig.socket_count == 1 && rig.sockets[0].bone == 1 && !strcmp(rig.sockets[0].name, "tip"));
    crowd_rig_free(&rig);
    sockets[0].node = "no such node";
    CHECK(crowd_gltf_read_memory(json, strlen(json), "f", NULL, &desc, &rig, &err) == CROWD_ERROR_ARGUMENT &&
          strstr(err.message, "no such node"));
    free(json);
}

static void flat_normals_when_missing(void)
{
    const char *const edits[][2] = {{"\"NORMAL\":1,", ""}};
    crowd_rig rig;
    crowd_error err;
    REQUIRE(read_edits(NULL, 0, edits, 1, &rig, &err) == CROWD_OK);
    CHECK(rig.vertex_count == 6);
    for (uint32_t v = 0; v < rig.vertex_count; v++)
        CHECK(near3(rig.normals + 3 * v, 0, 0, 1));
    crowd_rig_free(&rig);
}

int main(void)
{
    RUN_TEST(fixture_basics);
    RUN_TEST(step_interpolation);
    RUN_TEST(cubic_spline_tangent_scaling);
    RUN_TEST(accessor_decoding);
    RUN_TEST(sparse_asset);
    RUN_TEST(matrix_node_and_ancestor);
    RUN_TEST(rigid_part_and_missing_ibm);
    RUN_TEST(eight_influences);
    RUN_TEST(several_skins);
    RUN_TEST(late_start_and_external_buffer);
    RUN_TEST(morph_weights_animate);
    RUN_TEST(texture_and_colors);
    RUN_TEST(atlas_places_every_texel);
    RUN_TEST(several_materials_keep_their_textures);
    RUN_TEST(material_variants_sample_their_own_tiles);
    RUN_TEST(msft_lod_levels);
    RUN_TEST(sockets_from_nodes);
    RUN_TEST(flat_normals_when_missing);
    TEST_MAIN_END();
}
