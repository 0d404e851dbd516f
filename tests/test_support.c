#include "test_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/crc32.h"
#include "core/format.h"

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
    crowd_wr32(bytes + 24, crowd_crc32(0, bytes, 32 + 32 * (size_t)crowd_rd32(bytes + 12) <= size
                                                       ? 32 + 32 * (size_t)crowd_rd32(bytes + 12)
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
