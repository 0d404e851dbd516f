#include "test_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/view_matrices.h"
#include "core/crc32.h"
#include "core/format.h"
#include "crowdbake/rig_record.h"

int check_failures;

/* ---- tiny rig: a vertical strip of 2 x 9 vertices, bone 1 bends it at y = 0.5 ----------------- */

static void tiny_sample(const crowd_rig *rig, uint32_t clip, double time, crowd_trs *pose, float *morph)
{
    (void)clip;
    (void)morph;
    for (uint32_t b = 0; b < rig->bone_count; b++)
        pose[b] = rig->bones[b].rest;
    double angle = 0.8 * sin(2 * 3.14159265358979323846 * time / rig->clips[0].duration);
    pose[1].rotation[0] = (float)sin(angle / 2); /* about x */
    pose[1].rotation[3] = (float)cos(angle / 2);
    pose[0].translation[2] = 0.0f;
}

crowd_result tiny_rig_build(crowd_rig *rig, crowd_error *error)
{
    (void)error;
    memset(rig, 0, sizeof *rig);
    const uint32_t rows = 9, vc = rows * 2, tris = (rows - 1) * 2;
    rig->vertex_count = vc;
    rig->index_count = tris * 3;
    rig->positions = calloc(vc * 3, sizeof(float));
    rig->normals = calloc(vc * 3, sizeof(float));
    rig->regions = calloc(vc, 1);
    rig->indices = calloc(rig->index_count, sizeof(uint32_t));
    rig->influence_count = 2;
    rig->joints = calloc(vc * 2, sizeof(uint16_t));
    rig->weights = calloc(vc * 2, sizeof(float));
    for (uint32_t r = 0; r < rows; r++) {
        float y = (float)r / (rows - 1);
        float w1 = y < 0.4f ? 0.0f : y > 0.6f ? 1.0f : (y - 0.4f) / 0.2f;
        for (uint32_t c = 0; c < 2; c++) {
            uint32_t v = r * 2 + c;
            rig->positions[3 * v] = c ? 0.1f : -0.1f;
            rig->positions[3 * v + 1] = y;
            rig->normals[3 * v + 2] = 1.0f;
            rig->joints[2 * v] = 0;
            rig->joints[2 * v + 1] = 1;
            rig->weights[2 * v] = 1.0f - w1;
            rig->weights[2 * v + 1] = w1;
        }
    }
    for (uint32_t r = 0; r + 1 < rows; r++) {
        uint32_t a = 2 * r, *t = rig->indices + 6 * r;
        t[0] = a, t[1] = a + 1, t[2] = a + 2;
        t[3] = a + 1, t[4] = a + 3, t[5] = a + 2;
    }
    rig->bone_count = 2;
    rig->bones = calloc(2, sizeof *rig->bones);
    for (int b = 0; b < 2; b++) {
        crowd_rig_bone *bone = &rig->bones[b];
        bone->name = malloc(8);
        snprintf(bone->name, 8, "bone%d", b);
        bone->parent = b - 1;
        bone->rest.rotation[3] = 1.0f;
        bone->rest.scale[0] = bone->rest.scale[1] = bone->rest.scale[2] = 1.0f;
        bone->rest.translation[1] = b ? 0.5f : 0.0f;
        memset(bone->inverse_bind, 0, sizeof bone->inverse_bind);
        bone->inverse_bind[0] = bone->inverse_bind[5] = bone->inverse_bind[10] = bone->inverse_bind[15] = 1.0f;
        bone->inverse_bind[13] = b ? -0.5f : 0.0f;
    }
    rig->clip_count = 1;
    rig->clips = calloc(1, sizeof *rig->clips);
    rig->clips[0].name = malloc(8);
    strcpy(rig->clips[0].name, "bend");
    rig->clips[0].duration = 1.0;
    rig->clips[0].loop = true;
    rig->clips[0].stride_truth = 0.0;
    rig->socket_count = 1;
    rig->sockets = calloc(1, sizeof *rig->sockets);
    rig->sockets[0].name = malloc(8);
    strcpy(rig->sockets[0].name, "tip");
    rig->sockets[0].bone = 1;
    rig->sockets[0].offset[0] = rig->sockets[0].offset[5] = rig->sockets[0].offset[10] = 1.0f;
    rig->sockets[0].offset[15] = 1.0f;
    rig->sockets[0].offset[13] = 0.5f;
    rig->region_count = 1;
    rig->regions_info = calloc(1, sizeof *rig->regions_info);
    rig->regions_info[0].name = malloc(8);
    strcpy(rig->regions_info[0].name, "body");
    rig->regions_info[0].palette_count = 1;
    rig->regions_info[0].palette = calloc(1, 4);
    rig->regions_info[0].palette[0][0] = 200;
    rig->regions_info[0].palette[0][3] = 255;
    rig->sample = tiny_sample;
    rig->source = CROWD_RIG_PROCEDURAL;
    rig->source_name = malloc(16);
    strcpy(rig->source_name, "tiny strip");
    return CROWD_OK;
}

crowd_bake_output bake_or_die(const crowd_rig *rig, crowd_bake_desc desc)
{
    crowd_bake_output out;
    crowd_error err;
    desc.rig = rig;
    if (crowd_bake(&desc, &out, &err) != CROWD_OK) {
        fprintf(stderr, "bake failed: %s\n", err.message);
        exit(1);
    }
    return out;
}

static crowd_rig humanoid_rig;
static bool humanoid_built;

static void free_humanoid(void)
{
    crowd_rig_free(&humanoid_rig);
}

void test_view_at(crowd_view *v, float ex, float ey, float ez, float tx, float ty, float tz)
{
    const float eye[3] = {ex, ey, ez}, target[3] = {tx, ty, tz}, up[3] = {0, 1, 0};
    cb_look_at(v->view, eye, target, up);
    cb_perspective(v->projection, 58.0f * 3.14159265f / 180.0f, 16.0f / 9.0f, 0.3f, 900.0f);
    v->viewport_height = 1080.0f;
}

void humanoid_asset_or_die(crowd_bake_desc desc, crowd_bake_output *baked, crowd_asset *asset)
{
    *baked = bake_or_die(humanoid(), desc);
    crowd_error err;
    if (crowd_asset_load_memory(asset, baked->bytes, baked->size, &err) != CROWD_OK) {
        fprintf(stderr, "loading the baked humanoid: %s\n", err.message);
        exit(1);
    }
}

const crowd_rig *humanoid(void)
{
    if (!humanoid_built) {
        crowd_error err;
        if (crowd_rig_build_humanoid(NULL, &humanoid_rig, &err) != CROWD_OK) {
            fprintf(stderr, "humanoid failed: %s\n", err.message);
            exit(1);
        }
        humanoid_built = true;
        atexit(free_humanoid);
    }
    return &humanoid_rig;
}

void reseal(uint8_t *bytes, size_t size)
{
    uint32_t count = crowd_rd32(bytes + 12);
    if ((uint64_t)32 + 32ull * count > size) /* an edited count: seal what fits */
        count = (uint32_t)((size - 32) / 32);
    for (uint32_t i = 0; i < count; i++) {
        uint8_t *entry = bytes + 32 + 32 * i;
        uint64_t offset = crowd_rd64(entry + 8), length = crowd_rd64(entry + 16);
        if (offset + length <= size)
            crowd_wr32(entry + 24, crowd_crc32(0, bytes + offset, (size_t)length));
    }
    crowd_wr32(bytes + 24, 0);
    crowd_wr32(bytes + 24,
               crowd_crc32(0, bytes,
                           32 + 32 * (size_t)crowd_rd32(bytes + 12) <= size ? 32 + 32 * (size_t)crowd_rd32(bytes + 12)
                                                                            : 32 + 32 * (size_t)count));
}

size_t section_offset(const uint8_t *bytes, uint32_t tag, uint64_t *size)
{
    uint32_t count = crowd_rd32(bytes + 12);
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *entry = bytes + 32 + 32 * i;
        if (crowd_rd32(entry) == tag) {
            if (size)
                *size = crowd_rd64(entry + 16);
            return (size_t)crowd_rd64(entry + 8);
        }
    }
    return 0;
}

uint8_t *aligned_copy(const uint8_t *bytes, size_t size)
{
    uint8_t *copy = aligned_alloc(16, (size + 16) & ~(size_t)15);
    if (!copy)
        exit(1);
    memcpy(copy, bytes, size);
    return copy;
}

uint32_t clip_or_die(const crowd_asset *asset, const char *name)
{
    uint32_t index;
    if (!crowd_asset_find_clip(asset, name, &index)) {
        fprintf(stderr, "FATAL: the asset has no clip \"%s\"\n", name);
        exit(1);
    }
    return index;
}

uint64_t test_rand(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 0x2545F4914F6CDD1Dull;
}

double test_uniform(uint64_t *state)
{
    return (double)(test_rand(state) >> 11) / 9007199254740992.0;
}

/* ---- glTF fixtures ------------------------------------------------------------------------------ */

static void put_floats(uint8_t *at, const float *v, size_t n)
{
    memcpy(at, v, n * sizeof(float)); /* the test machines are little-endian, like glTF */
}

void gltf_fixture_bin(uint8_t bin[GLTF_FIXTURE_BYTES])
{
    memset(bin, 0, GLTF_FIXTURE_BYTES);
    const float positions[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0};
    const float normals[] = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
    const uint8_t joints[] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    const float weights[] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    const uint16_t indices[] = {0, 1, 2, 2, 1, 3};
    const float ibm[] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0,  0, 1,
                         1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1};
    const float times[] = {0, 1, 2};
    const float translations[] = {0, 1, 0, 0, 2, 0, 0, 1, 0};
    const float s = 0.70710678f;
    const float rotations[] = {0, 0, 0, 1, 0, 0, s, s, 0, 0, 0, 1};
    put_floats(bin + 0, positions, 12);
    put_floats(bin + 48, normals, 12);
    memcpy(bin + 96, joints, sizeof joints);
    put_floats(bin + 112, weights, 16);
    memcpy(bin + 176, indices, sizeof indices);
    put_floats(bin + 192, ibm, 32);
    put_floats(bin + 320, times, 3);
    put_floats(bin + 332, translations, 9);
    put_floats(bin + 368, rotations, 12);
}

static char *base64(const uint8_t *bytes, size_t size)
{
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *out = malloc((size + 2) / 3 * 4 + 1), *o = out;
    for (size_t i = 0; i < size; i += 3) {
        uint32_t v = (uint32_t)bytes[i] << 16 | (i + 1 < size ? (uint32_t)bytes[i + 1] << 8 : 0) |
                     (i + 2 < size ? bytes[i + 2] : 0);
        *o++ = alphabet[v >> 18 & 63];
        *o++ = alphabet[v >> 12 & 63];
        *o++ = i + 1 < size ? alphabet[v >> 6 & 63] : '=';
        *o++ = i + 2 < size ? alphabet[v & 63] : '=';
    }
    *o = '\0';
    return out;
}

char *gltf_fixture_json(const uint8_t *bin, size_t size)
{
    char *data = base64(bin, size);
    const char *format =
        "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0,2]}],"
        "\"nodes\":[{\"name\":\"root\",\"children\":[1]},{\"name\":\"joint1\",\"translation\":[0,1,0]},"
        "{\"name\":\"mesh\",\"mesh\":0,\"skin\":0}],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"NORMAL\":1,\"JOINTS_0\":2,\"WEIGHTS_0\":3},"
        "\"indices\":4}]}],"
        "\"skins\":[{\"joints\":[0,1],\"inverseBindMatrices\":5}],"
        "\"animations\":[{\"name\":\"move\",\"samplers\":[{\"input\":6,\"output\":7},{\"input\":6,\"output\":8}],"
        "\"channels\":[{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"translation\"}},"
        "{\"sampler\":1,\"target\":{\"node\":1,\"path\":\"rotation\"}}]}],"
        "\"accessors\":["
        "{\"bufferView\":0,\"byteOffset\":0,\"componentType\":5126,\"count\":4,\"type\":\"VEC3\",\"min\":[0,0,0],"
        "\"max\":[1,1,0]},"
        "{\"bufferView\":0,\"byteOffset\":48,\"componentType\":5126,\"count\":4,\"type\":\"VEC3\"},"
        "{\"bufferView\":0,\"byteOffset\":96,\"componentType\":5121,\"count\":4,\"type\":\"VEC4\"},"
        "{\"bufferView\":0,\"byteOffset\":112,\"componentType\":5126,\"count\":4,\"type\":\"VEC4\"},"
        "{\"bufferView\":0,\"byteOffset\":176,\"componentType\":5123,\"count\":6,\"type\":\"SCALAR\"},"
        "{\"bufferView\":0,\"byteOffset\":192,\"componentType\":5126,\"count\":2,\"type\":\"MAT4\"},"
        "{\"bufferView\":0,\"byteOffset\":320,\"componentType\":5126,\"count\":3,\"type\":\"SCALAR\",\"min\":[0],"
        "\"max\":[2]},"
        "{\"bufferView\":0,\"byteOffset\":332,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
        "{\"bufferView\":0,\"byteOffset\":368,\"componentType\":5126,\"count\":3,\"type\":\"VEC4\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":%zu}],"
        "\"buffers\":[{\"byteLength\":%zu,\"uri\":\"data:application/octet-stream;base64,%s\"}]}";
    size_t n = strlen(format) + strlen(data) + 64;
    char *json = malloc(n);
    snprintf(json, n, format, size, size, data);
    free(data);
    return json;
}

char *replace_once(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    if (!at)
        return NULL;
    size_t head = (size_t)(at - text), n = strlen(text) - strlen(from) + strlen(to) + 1;
    char *out = malloc(n);
    snprintf(out, n, "%.*s%s%s", (int)head, text, to, at + strlen(from));
    return out;
}

char *test_read_file(const char *path, size_t *out_size)
{
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    long size = f && fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (size > 0 && fseek(f, 0, SEEK_SET) == 0 && (text = malloc((size_t)size + 1)) &&
        fread(text, 1, (size_t)size, f) == (size_t)size)
        text[size] = 0, *out_size = (size_t)size;
    else
        free(text), text = NULL;
    if (f)
        fclose(f);
    return text;
}

/* MorphStressTest with KHR_materials_variants: the bars' material (region 1) gets a variant with
 * another material (red, the grid texture) and one with no texture (blue). */
char *test_variants_gltf(const char *asset_dir)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/gltf/MorphStressTest.gltf", asset_dir);
    size_t size = 0;
    char *json = test_read_file(path, &size), *next;
    static const char *const edits[][2] = {
        {"\"asset\" : {",
         "\"extensions\" : {\"KHR_materials_variants\" : {\"variants\" : [{\"name\" : \"painted\"}, "
         "{\"name\" : \"plain\"}]}}, \"extensionsUsed\" : [\"KHR_materials_variants\"], \"asset\" : {"},
        {"\"roughnessFactor\" : 0.5\n            }\n        }\n    ],",
         "\"roughnessFactor\" : 0.5\n            }\n        }, {\"name\" : \"Painted\", \"pbrMetallicRoughness\" : "
         "{\"baseColorFactor\" : [1, 0, 0, 1], \"baseColorTexture\" : {\"index\" : 1}}}, {\"name\" : \"Plain\", "
         "\"pbrMetallicRoughness\" : {\"baseColorFactor\" : [0, 0, 1, 1]}}\n    ],"},
        {"\"material\" : 1,", "\"material\" : 1, \"extensions\" : {\"KHR_materials_variants\" : {\"mappings\" : "
                              "[{\"material\" : 2, \"variants\" : [0]}, {\"material\" : 3, \"variants\" : [1]}]}},"}};
    for (size_t e = 0; json && e < sizeof edits / sizeof edits[0]; e++) {
        next = replace_once(json, edits[e][0], edits[e][1]);
        free(json);
        json = next;
    }
    return json;
}

static void count_warning(void *user, const char *message)
{
    (void)message;
    if (user)
        ++*(int *)user;
}

crowd_result read_gltf_text(const char *text, crowd_rig *rig, crowd_error *error, int *warnings)
{
    crowd_gltf_desc desc = {.warn = count_warning, .warn_user = warnings};
    return crowd_gltf_read_memory(text, strlen(text), "fixture.gltf", NULL, &desc, rig, error);
}

crowd_gl_scene test_default_scene(void)
{
    crowd_gl_scene s = {0};
    float l = sqrtf(0.3f * 0.3f + 0.85f * 0.85f + 0.45f * 0.45f);
    s.sun_direction[0] = 0.3f / l, s.sun_direction[1] = 0.85f / l, s.sun_direction[2] = 0.45f / l;
    for (int k = 0; k < 3; k++) {
        s.sun_color[k] = 2.0f;
        s.sky_color[k] = k == 2 ? 0.55f : 0.42f;
        s.ground_color[k] = 0.16f;
        s.fog_color[k] = k == 2 ? 0.85f : 0.75f;
    }
    s.fog_density = 0.002f;
    s.shadows = true;
    return s;
}

uint32_t test_count_darker(const uint8_t *a, const uint8_t *b, int pixels, int darker_by, int lighter_by,
                           uint32_t *lighter)
{
    uint32_t darker = 0;
    *lighter = 0;
    for (int i = 0; i < pixels; i++) {
        int sa = a[3 * i] + a[3 * i + 1] + a[3 * i + 2], sb = b[3 * i] + b[3 * i + 1] + b[3 * i + 2];
        darker += sa < sb - darker_by;
        *lighter += sa > sb + lighter_by;
    }
    return darker;
}

void test_cull_sphere(const crowd_asset *asset, const crowd_record *r, float time, float centre[3], float *radius)
{
    const crowd_clip *a = &asset->clips[crowd_record_clip(r, 0)], *b = &asset->clips[crowd_record_clip(r, 1)];
    float lo = fminf(a->cull_center_y - a->cull_radius, b->cull_center_y - b->cull_radius);
    float hi = fmaxf(a->cull_center_y + a->cull_radius, b->cull_center_y + b->cull_radius);
    crowd_record_position(r, time, centre);
    centre[1] += (hi + lo) * 0.5f * r->scale;
    *radius = (hi - lo) * 0.5f * r->scale;
}

bool test_sphere_in(const float planes[6][4], const float c[3], float radius)
{
    for (int i = 0; i < 6; i++)
        if (planes[i][0] * c[0] + planes[i][1] * c[1] + planes[i][2] * c[2] + planes[i][3] < -radius)
            return false;
    return true;
}

bool test_pose_record(crowd_rig_poser *poser, const crowd_record *r, float time, float *rows)
{
    crowd_rig_blend blend = crowd_rig_blend_of_record(r, time);
    return crowd_rig_pose_blend(poser, &blend, rows);
}

float test_fade_weight(const crowd_record *r, float t)
{
    return r->fade_rate > 0.0f ? fminf(fmaxf((t - r->fade_start) * r->fade_rate, 0.0f), 1.0f) : 0.0f;
}
