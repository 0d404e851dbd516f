/* The load-bearing glTF test: humanoid -> .glb -> read -> bake, compared with the direct bake
 * texel by texel (>= 99.99 % identical, the rest within one encoding quantum), strides equal. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "crowdbake/gltf.h"
#include "test_support.h"

static crowd_rig reread;
static uint8_t *glb;
static size_t glb_size;

static void export_and_read(void)
{
    crowd_error err;
    REQUIRE(crowd_gltf_write_glb(humanoid(), NULL, &glb, &glb_size, &err) == CROWD_OK);
    CHECKF(crowd_gltf_read_memory(glb, glb_size, "humanoid.glb", NULL, NULL, &reread, &err) == CROWD_OK, "%s",
           err.message);
}

/* The rig model survives: mesh streams bit for bit, skeleton, regions, clips, sockets. */
static void rig_survives(void)
{
    const crowd_rig *a = humanoid(), *b = &reread;
    REQUIRE(b->vertex_count == a->vertex_count && b->index_count == a->index_count);
    size_t vc = a->vertex_count;
    CHECK(!memcmp(a->positions, b->positions, vc * 3 * sizeof(float)));
    CHECK(!memcmp(a->normals, b->normals, vc * 3 * sizeof(float)));
    CHECK(!memcmp(a->regions, b->regions, vc));
    CHECK(!memcmp(a->indices, b->indices, a->index_count * sizeof(uint32_t)));
    CHECK((a->uvs != NULL) == (b->uvs != NULL) && (a->colors != NULL) == (b->colors != NULL));
    REQUIRE(b->bone_count == a->bone_count);
    for (uint32_t k = 0; k < a->bone_count; k++) {
        CHECKF(!strcmp(a->bones[k].name, b->bones[k].name) && a->bones[k].parent == b->bones[k].parent, "bone %u", k);
        CHECK(!memcmp(&a->bones[k].rest, &b->bones[k].rest, sizeof(crowd_trs)));
        CHECK(!memcmp(a->bones[k].inverse_bind, b->bones[k].inverse_bind, 12 * sizeof(float)));
    }
    /* influences: the same weight on the same bone (zero-weight slots may name another joint) */
    int influence_mismatch = 0;
    for (size_t v = 0; v < vc; v++)
        for (uint32_t k = 0; k < a->influence_count; k++) {
            size_t i = v * a->influence_count + k, j = v * b->influence_count + k;
            influence_mismatch += k < b->influence_count ? a->weights[i] != b->weights[j] ||
                                                               (a->weights[i] > 0 && a->joints[i] != b->joints[j])
                                                         : a->weights[i] != 0;
        }
    CHECKF(influence_mismatch == 0, "%d influences differ", influence_mismatch);
    REQUIRE(b->region_count == a->region_count);
    for (uint32_t g = 0; g < a->region_count; g++) {
        CHECK(!strcmp(a->regions_info[g].name, b->regions_info[g].name));
        CHECK(a->regions_info[g].palette_count == b->regions_info[g].palette_count);
        CHECK(!memcmp(a->regions_info[g].palette, b->regions_info[g].palette, 4 * a->regions_info[g].palette_count));
    }
    REQUIRE(b->clip_count == a->clip_count);
    for (uint32_t c = 0; c < a->clip_count; c++) {
        CHECK(!strcmp(a->clips[c].name, b->clips[c].name));
        CHECKF(a->clips[c].duration == b->clips[c].duration && a->clips[c].loop == b->clips[c].loop,
               "%s: %.9f s loop %d vs %.9f s loop %d", a->clips[c].name, a->clips[c].duration, a->clips[c].loop,
               b->clips[c].duration, b->clips[c].loop);
    }
    REQUIRE(b->socket_count == a->socket_count);
    for (uint32_t s = 0; s < a->socket_count; s++) {
        CHECK(!strcmp(a->sockets[s].name, b->sockets[s].name) && a->sockets[s].bone == b->sockets[s].bone);
        for (int e = 0; e < 16; e++)
            CHECK(fabsf(a->sockets[s].offset[e] - b->sockets[s].offset[e]) < 1e-6f);
    }
}

typedef struct texel_diff {
    uint64_t channels, identical, within_one;
    uint32_t worst;
} texel_diff;

static void compare_u16(const crowd_texture *a, const crowd_texture *b, uint32_t channels, texel_diff *d)
{
    const uint16_t *x = a->data, *y = b->data;
    uint64_t n = (uint64_t)a->width * a->height * channels;
    for (uint64_t i = 0; i < n; i++) {
        uint32_t delta = (uint32_t)abs((int)x[i] - (int)y[i]);
        d->channels++;
        d->identical += delta == 0;
        d->within_one += delta <= 1;
        d->worst = delta > d->worst ? delta : d->worst;
    }
}

/* Bake both, compare the textures texel by texel and the manifests. */
static void bakes_match(void)
{
    crowd_bake_desc desc = {.bones = true};
    crowd_bake_output direct = bake_or_die(humanoid(), desc), via = bake_or_die(&reread, desc);
    crowd_asset a, b;
    crowd_error err;
    REQUIRE(crowd_asset_load_memory(&a, direct.bytes, direct.size, &err) == CROWD_OK);
    REQUIRE(crowd_asset_load_memory(&b, via.bytes, via.size, &err) == CROWD_OK);
    REQUIRE(a.frame_count == b.frame_count && a.positions.width == b.positions.width &&
            a.positions.height == b.positions.height);
    for (int k = 0; k < 3; k++)
        CHECKF(fabsf(a.bounds_min[k] - b.bounds_min[k]) < 1e-6f && fabsf(a.bounds_max[k] - b.bounds_max[k]) < 1e-6f,
               "decode box axis %d", k);
    texel_diff positions = {0}, normals = {0};
    compare_u16(&a.positions, &b.positions, 4, &positions);
    compare_u16(&a.normals, &b.normals, 2, &normals);
    double pos_same = 100.0 * positions.identical / positions.channels;
    double nrm_same = 100.0 * normals.identical / normals.channels;
    printf("     positions: %.4f %% identical, worst %u quanta; normals: %.4f %% identical, worst %u\n", pos_same,
           positions.worst, nrm_same, normals.worst);
    CHECKF(pos_same >= 99.99 && positions.within_one == positions.channels, "positions %.4f %%, worst %u", pos_same,
           positions.worst);
    CHECKF(nrm_same >= 99.99 && normals.within_one == normals.channels, "normals %.4f %%, worst %u", nrm_same,
           normals.worst);
    /* bone texture: float matrices, compared with a float tolerance */
    const float *ba = a.bones.data, *bb = b.bones.data;
    double worst = 0;
    for (uint64_t i = 0; i < (uint64_t)a.bones.width * a.bones.height * 4; i++)
        worst = fmax(worst, fabs((double)ba[i] - bb[i]));
    CHECKF(worst < 1e-5, "bone texture differs by %g", worst);
    for (uint32_t c = 0; c < a.clip_count; c++) {
        CHECK(!strcmp(a.clips[c].name, b.clips[c].name) && a.clips[c].frame_count == b.clips[c].frame_count);
        CHECKF(a.clips[c].stride == b.clips[c].stride && a.clips[c].flags == b.clips[c].flags,
               "%s: stride %.7f vs %.7f", a.clips[c].name, (double)a.clips[c].stride, (double)b.clips[c].stride);
    }
    crowd_asset_free(&a);
    crowd_asset_free(&b);
    crowd_bake_output_free(&direct);
    crowd_bake_output_free(&via);
}

int main(void)
{
    RUN_TEST(export_and_read);
    RUN_TEST(rig_survives);
    RUN_TEST(bakes_match);
    crowd_rig_free(&reread);
    crowd_gltf_bytes_free(glb);
    TEST_MAIN_END();
}
