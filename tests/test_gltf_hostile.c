/* Hostile glTF: the Khronos validator's invalid corpus (each file refused for its own problem,
 * or warned about where the problem cannot change a bake), its valid controls, and a generated
 * corpus: every truncated prefix of a .glb, random byte flips, absurd counts and sizes, cycles,
 * NaN/inf keyframes, non-increasing times, joints out of range, accessors past their buffer,
 * broken base64. Always an error naming the JSON path; never a crash or a leak (this test also
 * runs under ASan + UBSan + LSan). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "test_support.h"

#define INVALID CROWD_ASSET_DIR "/gltf-invalid/"

typedef struct captured {
    char text[4096];
} captured;

static void capture(void *user, const char *message)
{
    captured *c = user;
    strncat(c->text, message, sizeof c->text - strlen(c->text) - 2);
    strncat(c->text, "\n", sizeof c->text - strlen(c->text) - 1);
}

static crowd_result read_file_capturing(const char *path, crowd_rig *rig, crowd_error *err, captured *warnings)
{
    crowd_gltf_desc desc = {.warn = capture, .warn_user = warnings};
    memset(warnings, 0, sizeof *warnings);
    memset(err, 0, sizeof *err);
    return crowd_gltf_read_file(path, &desc, rig, err);
}

/* ---- the Khronos invalid corpus ---------------------------------------------------------------- */

/* `warn`: the problem is harmless to baking; the reader must say so in a warning, and may then
 * bake (or find nothing to bake). Otherwise the file must be refused with `expect` in the message. */
static const struct {
    const char *file;
    bool warn;
    const char *expect;
} corpus[] = {
    {"glb/bom.glb", true, "byte order mark"},
    {"glb/chunk_too_big.glb", false, "header says 13 bytes"},
    {"glb/empty_file.glb", false, "empty file"},
    {"glb/empty_json_chunk.glb", false, "empty JSON chunk"},
    {"glb/invalid_json_chunk.glb", false, "JSON: syntax error"},
    {"glb/invalid_magic.glb", false, "neither a .glb"},
    {"glb/invalid_version.glb", false, "container version 0"},
    {"glb/length_mismatch.glb", false, "header says 49 bytes"},
    {"glb/misplaced_bin_chunk.glb", false, "BIN must be chunk 1"},
    {"glb/no_header.glb", false, "neither a .glb"},
    {"glb/only_bin_chunk.glb", false, "chunk 0 must be JSON"},
    {"glb/only_header.glb", false, "no chunk after the header"},
    {"glb/truncated_chunk_data.glb", false, "header says 48 bytes, the file has 47"},
    {"glb/truncated_chunk_header.glb", false, "glb: "},
    {"glb/two_valid_json_chunks.glb", false, "a second JSON chunk"},
    {"glb/unaligned_chunk.glb", false, "not a multiple of 4"},
    {"glb/zero_length.glb", false, "header says 0 bytes"},
    {"json/bom.gltf", true, "byte order mark"},
    {"json/empty_file.gltf", false, "empty file"},
    {"json/invalid_object.gltf", false, "root: expected a JSON object"},
    {"json/invalid_syntax.gltf", false, "JSON: syntax error"},
    {"accessor/alignment.gltf", false, "accessors[0].byteOffset: 1 is not a multiple of 4"},
    {"accessor/byteoffset_no_bufferview.gltf", false, "accessors[0].byteOffset: given without a bufferView"},
    {"accessor/invalid_sparse_count_and_stride.gltf", false, "accessors[0].sparse.count"},
    {"accessor/matrix_alignment.gltf", false, "accessors[0].byteOffset: 1 is not a multiple of 4"},
    {"accessor/unresolved_bufferviews.gltf", false, "accessors[0].bufferView: bufferViews 0 out of range"},
    {"accessor_data/invalid_elements_float.gltf", false, "accessors[0]: element 0 component 0 is not a finite number"},
    {"accessor_data/out_of_range_elements_float.gltf", true, "outside the declared min/max"},
    {"accessor_data/out_of_range_elements_uint16.gltf", true, "outside the declared min/max"},
    {"buffer/invalid_uri_data.glb", false, "buffers[0].uri: data URI without a comma"},
    {"buffer/invalid_uri_data_bytelength.gltf", false, "buffers[0]: byteLength 2 but the URI holds 1 bytes"},
    {"buffer/no_bin_chunk.glb", false, "buffers[0]: no uri and the .glb has no BIN chunk"},
    {"buffer/not_found.gltf", false, "buffers[0].uri: " INVALID "buffer/not_found.bin: cannot open"},
    {"buffer/wrong_bytelength.glb", false, "buffers[0]: byteLength 17 but the BIN chunk has 16 bytes"},
    {"buffer/zero_bytelength.gltf", false, "buffers[0].byteLength"},
    {"buffer_view/invalid_length.gltf", false, "bufferViews[0]: bytes 0..5 lie past the end of buffers[0]"},
    {"buffer_view/invalid_stride_too_big.gltf", false, "bufferViews[0].byteStride: 4 is larger than the view"},
    {"buffer_view/unresolved_buffer.gltf", false, "bufferViews[0].buffer: buffers 1 out of range"},
    {"animation/channel_duplicate_targets.gltf", false, "animations[0].channels[1]: animates nodes[0].scale again"},
    {"animation/channel_node_matrix.gltf", false, "nodes[0] has a matrix and cannot be animated"},
    {"animation/channel_node_no_morphs.gltf", false, "nodes[0] has no morph targets"},
    {"animation/sampler_input_format_invalid.gltf", false,
     "animations[0].samplers[0].input: accessors[0] must be float"},
    {"animation/sampler_input_no_bounds.gltf", true, "animations[0].samplers[0].input: accessors[0] has no min/max"},
    {"animation/sampler_output_count_invalid.gltf", false,
     "animations[0].channels[0].sampler: output accessors[1] has 6 values"},
    {"animation/sampler_output_format_invalid.gltf", false, "has the wrong type for scale"},
    {"animation/sampler_too_few_cubic_frames.gltf", false, "CUBICSPLINE needs at least 2 keyframes"},
    {"animation/unresolved_channel_target.gltf", false, "animations[0].channels[0].target.node: nodes 0 out of range"},
    {"animation/unresolved_sampler_input.gltf", false, "animations[0].samplers[0].input: accessors 1 out of range"},
    {"animation_data/invalid_input_values.gltf", false, "animations[0].samplers[0].input[0]: time -1 is negative"},
    {"animation_data/quaternion_cubic_non_unit_values.gltf", true, "quaternion has length"},
    {"animation_data/quaternion_non_unit_values.gltf", true, "quaternion has length"},
    {"asset/1_0_version.gltf", false, "asset.version: \"1.0\""},
    {"skin/buffer_view_bytestride.gltf", true, "has a byteStride (not allowed for matrices"},
    {"skin/empty_joints_array.gltf", false, "skins[0].joints: empty array"},
    {"skin/ibm_invalid_count.gltf", false, "skins[2].inverseBindMatrices: 2 matrices for 3 joints"},
    {"skin/ibm_invalid_format.gltf", false, "skins[0].inverseBindMatrices: accessors[0] must be MAT4 floats"},
    {"skin/no_common_root.gltf", true, "joints do not have a common root"},
    {"skin/no_joints_in_scene.gltf", true, "skinned mesh in the scene, but joint node"},
    {"skin/skeleton_invalid.gltf", true, "is not an ancestor of every joint"},
    {"skin/unresolved_ibm.gltf", false, "skins[0].inverseBindMatrices: accessors 0 out of range"},
    {"skin/unresolved_joint.gltf", false, "skins[0].joints[0]: nodes 0 out of range"},
    {"skin_data/invalid_ibm.gltf", false, "inverseBindMatrices[1]: not an affine matrix"},
    {"mesh/accessor_unequal_count.gltf", false, "accessors[1] has 4 elements, the others 3"},
    {"mesh/indices_invalid_format.gltf", false, "meshes[0].primitives[0].indices: accessors[1] must be unsigned"},
    {"mesh/morph_attribute_invalid_count.gltf", false, "meshes[0].primitives[0].targets[0]: 4 elements for 3 vertices"},
    {"mesh/morph_unequal_targets_count.gltf", false,
     "meshes[0].primitives[1].targets: 1 morph targets, primitive 0 has 2"},
    {"mesh/morph_weights_wrong_count.gltf", false, "meshes[0].weights: 2 weights for 1 morph targets"},
    {"mesh/unequal_joints.gltf", false, "2 JOINTS_n sets but 1 WEIGHTS_n sets"},
    {"mesh/unresolved_positions.gltf", false, "attributes.POSITION: not a valid accessor index"},
    {"mesh_data/index_buffer_oob.gltf", false,
     "meshes[0].primitives[0].indices[5]: vertex 5 out of range (4 vertices)"},
    {"mesh_data/joints_no_weights.gltf", false, "lie past the end of buffers[0]"},
    {"mesh_data/joints_weights_complex.gltf", false, "JOINTS_1[1]: joint 9 out of range (9 joints)"},
    {"node/infinite_transform.gltf", false, "nodes[0].translation[0]: not a finite number"},
    {"node/matrix_trs.gltf", false, "nodes[0]: has both a matrix and translation/rotation/scale"},
    {"node/node_loop.gltf", false, "is its own ancestor"},
    {"node/node_loop_scene.gltf", false, "already has parent"},
    {"node/node_parent_override.gltf", false, "nodes[1].children[0]: node 2 already has parent 0"},
    {"node/node_skin_without_skinned_mesh.gltf", false,
     "nodes[0].skin: meshes[0].primitives[0].attributes has no JOINTS_0"},
    {"node/unresolved_skin.gltf", false, "nodes[0].skin: skins 0 out of range"},
    {"scene/non_root_node.gltf", true, "scenes[0].nodes[0]: node 1 is not a root"},
    {"root/undefined_used_extensions.gltf", false, "extensionsRequired[0]: KHR_extension is not in extensionsUsed"},
};

static void invalid_corpus(void)
{
    size_t n = sizeof corpus / sizeof corpus[0];
    CHECKF(n == 81, "the table lists %zu of the corpus's 81 files", n);
    int refused = 0, warned = 0;
    for (size_t i = 0; i < n; i++) {
        char path[256];
        snprintf(path, sizeof path, INVALID "%s", corpus[i].file);
        crowd_rig rig;
        crowd_error err;
        captured warnings;
        crowd_result r = read_file_capturing(path, &rig, &err, &warnings);
        if (corpus[i].warn) {
            CHECKF(strstr(warnings.text, corpus[i].expect), "%s: no warning \"%s\" (warnings: %s)", corpus[i].file,
                   corpus[i].expect, warnings.text);
            CHECKF(r == CROWD_OK || (r == CROWD_ERROR_MISSING && strstr(err.message, "no mesh to bake")),
                   "%s: refused for another reason: %s", corpus[i].file, err.message);
            warned++;
        } else {
            CHECKF(r != CROWD_OK && strstr(err.message, corpus[i].expect), "%s: expected \"%s\", got %s: %s",
                   corpus[i].file, corpus[i].expect, crowd_result_name(r), err.message);
            refused++;
        }
        CHECK(r == CROWD_OK || rig.vertex_count == 0);
        crowd_rig_free(&rig);
    }
    printf("     %d refused, %d warned about\n", refused, warned);
}

/* The corpus's valid controls: read without error; the one with a skinned mesh in its scene reads,
 * but its accessors have no buffer views, so every position is zero: the bake refuses a mesh of no
 * size (it baked into a "1 m" character before). The others hold no mesh in a scene, and are
 * refused for exactly that. */
static void valid_controls(void)
{
    const char *controls[] = {"accessor/valid.gltf", "animation/valid.gltf", "buffer/valid.glb", "buffer/valid.gltf",
                              "mesh/valid.gltf",     "node/valid.gltf",      "skin/valid.gltf"};
    int sizeless = 0;
    for (size_t i = 0; i < sizeof controls / sizeof *controls; i++) {
        char path[256];
        snprintf(path, sizeof path, INVALID "_valid_controls/%s", controls[i]);
        crowd_rig rig;
        crowd_error err;
        captured warnings;
        crowd_result r = read_file_capturing(path, &rig, &err, &warnings);
        if (r == CROWD_OK) {
            crowd_bake_output out;
            crowd_result b = crowd_bake(&(crowd_bake_desc){.rig = &rig}, &out, &err);
            CHECKF(b == CROWD_ERROR_INVALID_DATA && strstr(err.message, "every vertex is at one point"), "%s: %s",
                   controls[i], err.message);
            sizeless += b == CROWD_ERROR_INVALID_DATA;
            crowd_bake_output_free(&out);
        } else {
            CHECKF(r == CROWD_ERROR_MISSING && strstr(err.message, "scene: no mesh to bake"), "%s: %s", controls[i],
                   err.message);
        }
        crowd_rig_free(&rig);
    }
    CHECK(sizeless == 1);
}

/* ---- generated corpus -------------------------------------------------------------------------- */

static uint8_t *tiny_glb(size_t *size)
{
    crowd_rig rig;
    crowd_error err;
    uint8_t *bytes = NULL;
    if (tiny_rig_build(&rig, &err) != CROWD_OK || crowd_gltf_write_glb(&rig, NULL, &bytes, size, &err) != CROWD_OK) {
        fprintf(stderr, "tiny glb: %s\n", err.message);
        exit(1);
    }
    crowd_rig_free(&rig);
    return bytes;
}

static crowd_result read_bytes(const uint8_t *bytes, size_t size, crowd_rig *rig, crowd_error *err)
{
    crowd_gltf_desc desc = {.no_external_files = true};
    memset(err, 0, sizeof *err);
    return crowd_gltf_read_memory(bytes, size, "generated", "/nonexistent", &desc, rig, err);
}

static void truncated_prefixes(void)
{
    size_t size;
    uint8_t *glb = tiny_glb(&size);
    crowd_rig rig;
    crowd_error err;
    REQUIRE(read_bytes(glb, size, &rig, &err) == CROWD_OK);
    crowd_rig_free(&rig);
    int bad = 0;
    for (size_t n = 0; n < size; n++) {
        uint8_t *copy = malloc(n + 1); /* exactly n bytes readable: ASan sees any overread */
        memcpy(copy, glb, n);
        crowd_result r = read_bytes(copy, n, &rig, &err);
        bad += r == CROWD_OK || !err.message[0] || !strstr(err.message, "generated: ");
        free(copy);
    }
    CHECKF(bad == 0, "%d of %zu prefixes were accepted or had no message", bad, size);
    printf("     %zu prefixes refused\n", size);
    crowd_gltf_bytes_free(glb);
}

/* Random damage: whatever happens, a rig that validates or an error with a message. */
static void byte_flips(void)
{
    size_t glb_size;
    uint8_t *glb = tiny_glb(&glb_size);
    uint8_t bin[GLTF_FIXTURE_BYTES];
    gltf_fixture_bin(bin);
    char *text = gltf_fixture_json(bin, sizeof bin);
    uint64_t state = 0x9e3779b97f4a7c15ull;
    int accepted = 0, refused = 0, broken = 0;
    for (int i = 0; i < 3000; i++) {
        bool use_glb = i % 2;
        size_t size = use_glb ? glb_size : strlen(text);
        uint8_t *copy = malloc(size);
        memcpy(copy, use_glb ? glb : (const uint8_t *)text, size);
        int flips = 1 + (int)(test_rand(&state) % 4);
        for (int f = 0; f < flips; f++)
            copy[test_rand(&state) % size] ^= (uint8_t)(1u << (test_rand(&state) % 8));
        crowd_rig rig;
        crowd_error err;
        crowd_result r = read_bytes(copy, size, &rig, &err);
        if (r == CROWD_OK) {
            broken += crowd_rig_validate(&rig, &err) != CROWD_OK;
            accepted++;
        } else {
            broken += !err.message[0];
            refused++;
        }
        crowd_rig_free(&rig);
        free(copy);
    }
    CHECK(broken == 0);
    printf("     3000 damaged files: %d still bake, %d refused\n", accepted, refused);
    crowd_gltf_bytes_free(glb);
    free(text);
}

/* Damage with a known answer: the message must name the JSON path of the problem. */
static void targeted_damage(void)
{
    uint8_t bin[GLTF_FIXTURE_BYTES];
    const float nan = NAN, inf = INFINITY, one = 1.0f;
    const uint8_t joint7 = 7;
    const struct {
        const char *from, *to; /* JSON edit, or NULL */
        size_t at;             /* byte edit at `at` (when size > 0) */
        const void *bytes;
        size_t size;
        const char *expect;
    } cases[] = {
        {"\"count\":4,\"type\":\"VEC3\",\"min\"", "\"count\":4000000000,\"type\":\"VEC3\",\"min\"", 0, NULL, 0,
         "accessors[0]"},
        {"\"byteOffset\":368", "\"byteOffset\":400", 0, NULL, 0,
         "accessors[8]: 3 elements from byte 400 run past the end of bufferViews[0]"},
        {"\"buffers\":[{\"byteLength\":416", "\"buffers\":[{\"byteLength\":1e12", 0, NULL, 0, "buffers[0].byteLength"},
        {"\"bufferViews\":[{\"buffer\":0,\"byteLength\":416",
         "\"bufferViews\":[{\"buffer\":0,\"byteLength\":99999999999", 0, NULL, 0, "bufferViews[0]"},
        {"{\"name\":\"joint1\",", "{\"name\":\"joint1\",\"children\":[0],", 0, NULL, 0, "is its own ancestor"},
        {"\"children\":[1]", "\"children\":[0]", 0, NULL, 0, "is its own ancestor"},
        {"\"joints\":[0,1]", "\"joints\":[0,9]", 0, NULL, 0, "skins[0].joints[1]: nodes 9 out of range (3 nodes)"},
        {"\"nodes\":[0,2]", "\"nodes\":[0,2,7]", 0, NULL, 0, "scenes[0].nodes[2]: nodes 7 out of range"},
        {"\"asset\":{\"version\":\"2.0\"}",
         "\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"KHR_draco_mesh_compression\"]", 0, NULL, 0,
         "KHR_draco_mesh_compression (extensionsUsed[0]: compressed data that crowdbake does not decode)"},
        {"\"asset\":{\"version\":\"2.0\"}",
         "\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"EXT_meshopt_compression\"]", 0, NULL, 0,
         "EXT_meshopt_compression (extensionsUsed[0]: compressed data"},
        {"\"asset\":{\"version\":\"2.0\"}",
         "\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"KHR_texture_basisu\"],\"extensionsRequired\":[\"KHR_"
         "texture_basisu\"]",
         0, NULL, 0, "KHR_texture_basisu (extensionsRequired[0]: compressed data"},
        {"\"asset\":{\"version\":\"2.0\"}",
         "\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"EXT_x\"],\"extensionsRequired\":[\"EXT_x\"]", 0, NULL,
         0, "EXT_x (extensionsRequired[0]: not implemented)"},
        {"\"asset\":{\"version\":\"2.0\"}",
         "\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"EXT_x\",\"KHR_draco_mesh_compression\"],"
         "\"extensionsRequired\":[\"EXT_x\"]",
         0, NULL, 0,
         "needs 2 glTF extensions crowdbake cannot read: EXT_x (extensionsRequired[0]: not implemented), "
         "KHR_draco_mesh_compression (extensionsUsed[1]"},
        {"base64,", "base64,*", 0, NULL, 0, "buffers[0].uri: invalid base64 character at offset 0"},
        {"base64,", "base64,AAAA", 0, NULL, 0, "buffers[0]: byteLength 416 but the URI holds 419 bytes"},
        {"\"uri\":\"data:", "\"uri\":\"../../etc/passwd\",\"x\":\"", 0, NULL, 0, "buffers[0].uri: external file"},
        {"\"componentType\":5126,\"count\":4,\"type\":\"VEC3\",\"min\"",
         "\"componentType\":5126,\"count\":4,\"type\":\"VEC3\",\"normalized\":true,\"min\"", 0, NULL, 0,
         "accessors[0].normalized"},
        {"\"path\":\"rotation\"", "\"path\":\"pointer\"", 0, NULL, 0, "channels[1].target.path"},
        {"{\"input\":6,\"output\":7}", "{\"input\":6,\"output\":7,\"interpolation\":\"BEZIER\"}", 0, NULL, 0,
         "animations[0].samplers[0].interpolation"},
        {NULL, NULL, 332 + 4 * 4, &nan, 4, "accessors[7]: element 1 component 1 is not a finite number"},
        {NULL, NULL, 368, &inf, 4, "accessors[8]: element 0 component 0 is not a finite number"},
        {NULL, NULL, 320 + 4, &inf, 4, "accessors[6]: element 1 component 0 is not a finite number"},
        {NULL, NULL, 320 + 8, &one, 4, "animations[0].samplers[0].input[2]: time 1 does not increase"},
        {NULL, NULL, 96 + 8, &joint7, 1,
         "meshes[0].primitives[0].attributes.JOINTS_0[2]: joint 7 out of range (2 joints)"},
        {NULL, NULL, 176 + 2, &joint7, 1, "meshes[0].primitives[0].indices[1]: vertex 7 out of range (4 vertices)"},
        {NULL, NULL, 112, &(float){-1.0f}, 4, "meshes[0].primitives[0].attributes.WEIGHTS_0[0]: negative weight"},
        {NULL, NULL, 192 + 12, &one, 4, "skins[0].inverseBindMatrices[0]: not an affine matrix"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gltf_fixture_bin(bin);
        if (cases[i].size)
            memcpy(bin + cases[i].at, cases[i].bytes, cases[i].size);
        char *json = gltf_fixture_json(bin, sizeof bin);
        if (cases[i].from) {
            char *edited = replace_once(json, cases[i].from, cases[i].to);
            CHECKF(edited, "case %zu: edit not found", i);
            free(json);
            json = edited;
            if (!json)
                continue;
        }
        crowd_rig rig;
        crowd_error err;
        crowd_result r = read_bytes((const uint8_t *)json, strlen(json), &rig, &err);
        CHECKF(r != CROWD_OK && strstr(err.message, cases[i].expect), "case %zu: expected \"%s\", got %s", i,
               cases[i].expect, err.message);
        crowd_rig_free(&rig);
        free(json);
    }
}

/* Structures far past the limits: refused quickly, without deep recursion. */
static void absurd_structures(void)
{
    crowd_rig rig;
    crowd_error err;
    /* a chain of 20000 nodes above the joints: the bones would pass the limit */
    size_t cap = 2u << 20;
    char *json = malloc(cap);
    int o = snprintf(json, cap, "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[");
    for (int n = 0; n < 20000; n++)
        o += snprintf(json + o, cap - (size_t)o, "%s{\"children\":[%d]}", n ? "," : "", n + 1);
    o += snprintf(json + o, cap - (size_t)o,
                  ",{\"mesh\":0}],\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],"
                  "\"accessors\":[{\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"}]}");
    CHECK(read_bytes((const uint8_t *)json, (size_t)o, &rig, &err) == CROWD_ERROR_LIMIT &&
          strstr(err.message, "more than 1024 bones"));
    /* JSON nested a million deep: a syntax error from the parser's depth limit, not a stack overflow */
    o = 0;
    for (int d = 0; d < 1000000 && (size_t)o + 2 < cap; d++)
        json[o++] = '[';
    CHECK(read_bytes((const uint8_t *)json, (size_t)o, &rig, &err) != CROWD_OK && err.message[0]);
    /* a view-less accessor of a billion elements: a limit, not an allocation */
    const char *huge = "{\"asset\":{\"version\":\"2.0\"},\"accessors\":[{\"componentType\":5126,\"count\":1000000000,"
                       "\"type\":\"MAT4\"}]}";
    CHECK(read_bytes((const uint8_t *)huge, strlen(huge), &rig, &err) == CROWD_ERROR_LIMIT &&
          strstr(err.message, "accessors[0].count"));
    /* 200,000 materials and 20,000 primitives sharing their vertices: linear work, or this test
     * runs into its ctest timeout (each lookup used to walk a list) */
    o = snprintf(json, cap, "{\"asset\":{\"version\":\"2.0\"},\"materials\":[");
    for (int m = 0; m < 200000 && (size_t)o + 64 < cap; m++)
        o += snprintf(json + o, cap - (size_t)o, "%s{}", m ? "," : "");
    o += snprintf(json + o, cap - (size_t)o, "],\"nodes\":[{\"mesh\":0}],\"meshes\":[{\"primitives\":[");
    for (int p = 0; p < 20000 && (size_t)o + 128 < cap; p++)
        o += snprintf(json + o, cap - (size_t)o, "%s{\"attributes\":{\"POSITION\":0,\"NORMAL\":0}}", p ? "," : "");
    o += snprintf(json + o, cap - (size_t)o,
                  "]}],\"accessors\":[{\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"}]}");
    crowd_result r = read_bytes((const uint8_t *)json, (size_t)o, &rig, &err);
    CHECKF(r == CROWD_OK && rig.vertex_count == 3 && rig.index_count == 60000, "%s", err.message);
    crowd_rig_free(&rig);
    free(json);
}

int main(void)
{
    RUN_TEST(invalid_corpus);
    RUN_TEST(valid_controls);
    RUN_TEST(truncated_prefixes);
    RUN_TEST(byte_flips);
    RUN_TEST(targeted_damage);
    RUN_TEST(absurd_structures);
    TEST_MAIN_END();
}
