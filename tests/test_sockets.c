/* Sockets and bones in world space on the CPU (crowd.h: crowd_record_socket, crowd_socket_transform
 * and their bone and bulk forms), without GL (test_sockets_gl.c holds them to the GPU's output):
 *  - every refusal: NULL arguments, a bake without bones, a socket, bone, clip or instance out of
 *    range, a non-finite time or result; a sentence naming the value, the output untouched;
 *  - the decode against one built by hand in double precision from the five public calls it
 *    replaces (crowd_record_sample, crowd_asset_bone_matrix, the cross-fade weight,
 *    crowd_record_yaw, crowd_record_position), over instances that loop between frames, cross-fade,
 *    hold a one-shot before and after its end, turn, walk, and carry scale and yaw;
 *  - a bone's origin lies at its socket's origin less the socket's offset (a rigid skin keeps
 *    the distance); the crowd-level calls, single and bulk, equal the record-level one bit for bit. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "crowd/crowd_internal.h"
#include "crowd/record.h"
#include "crowdbake/crowd.h"
#include "test_support.h"

static crowd_bake_output baked;
static crowd_asset asset;

#define COUNT 8u

/* The hand-built reference: skin (clip A, blended by B's weight while a fade runs) * offset, scaled,
 * turned and placed, in double. */
static void reference(const crowd_record *r, uint32_t bone, const float offset[12], float time, double out[12])
{
    double skin[12] = {0};
    for (int which = 0; which < 2; which++) {
        double weight = 1.0;
        if (which) {
            if (!(r->fade_rate > 0.0f))
                break;
            double w = ((double)time - r->fade_start) * r->fade_rate;
            weight = w < 0.0 ? 0.0 : w > 1.0 ? 1.0 : w;
            for (int i = 0; i < 12; i++)
                skin[i] *= 1.0 - weight;
        }
        crowd_clip_sample s;
        float m0[12], m1[12];
        CHECK(crowd_record_sample(&asset, r, which, time, &s) == CROWD_OK);
        CHECK(crowd_asset_bone_matrix(&asset, s.frame0, bone, m0) == CROWD_OK);
        CHECK(crowd_asset_bone_matrix(&asset, s.frame1, bone, m1) == CROWD_OK);
        for (int i = 0; i < 12; i++)
            skin[i] += weight * ((1.0 - s.t) * m0[i] + (double)s.t * m1[i]);
    }
    double local[12];
    for (int row = 0; row < 3; row++)
        for (int col = 0; col < 4; col++)
            local[4 * row + col] = skin[4 * row] * offset[col] + skin[4 * row + 1] * offset[4 + col] +
                                   skin[4 * row + 2] * offset[8 + col] + (col == 3 ? skin[4 * row + 3] : 0.0);
    double yaw = crowd_record_yaw(r, time), c = cos(yaw), s = sin(yaw);
    float p[3];
    crowd_record_position(r, time, p);
    for (int col = 0; col < 4; col++) {
        double x = local[col] * r->scale, y = local[4 + col] * r->scale, z = local[8 + col] * r->scale;
        out[col] = c * x + s * z + (col == 3 ? p[0] : 0.0);
        out[4 + col] = y + (col == 3 ? p[1] : 0.0);
        out[8 + col] = -s * x + c * z + (col == 3 ? p[2] : 0.0);
    }
}

static bool all_finite(const float *m, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(m[i]))
            return false;
    return true;
}

/* The states states_crowd claims, checked on the records (a test that missed them would prove less). */
static void states_are_as_named(const crowd *c)
{
    crowd_record r[COUNT];
    float t = crowd_time(c);
    for (uint32_t i = 0; i < COUNT; i++)
        CHECK(crowd_get(c, i, &r[i]) == CROWD_OK);
    crowd_clip_sample s;
    CHECK(crowd_record_sample(&asset, &r[0], 0, t, &s) == CROWD_OK && s.t > 0.05f && s.t < 0.95f);
    CHECK(r[1].velocity != 0u && r[1].yaw != 0.0f && r[1].scale != 1.0f);
    float w2 = test_fade_weight(&r[2], t), w5 = test_fade_weight(&r[5], t);
    CHECKF(w2 > 0.2f && w2 < 0.8f, "instance 2's fade weight %g", (double)w2);
    CHECK((r[3].clips & CROWD_RECORD_HOLD_A) && r[3].offset_a + t * r[3].rate_a < 0.9f);
    CHECK((r[4].clips & CROWD_RECORD_HOLD_A) && r[4].offset_a + t * r[4].rate_a > 1.2f);
    CHECKF((r[5].clips & CROWD_RECORD_HOLD_B) && w5 > 0.2f && w5 < 0.9f, "instance 5's fade weight %g", (double)w5);
    CHECK((r[6].clips & CROWD_RECORD_TURN) && fabsf(crowd_record_yaw(&r[6], t) - r[6].yaw) > 0.1f);
}

/* A crowd whose instances show every state the decode must follow, at crowd_time(). */
static crowd *states_crowd(void)
{
    crowd_desc d;
    memset(&d, 0, sizeof d);
    d.asset = &asset;
    d.capacity = 64;
    crowd *c = NULL;
    crowd_error err;
    if (crowd_create(&d, &c, &err) != CROWD_OK) {
        fprintf(stderr, "crowd_create: %s\n", err.message);
        exit(1);
    }
    uint32_t walk = clip_or_die(&asset, "walk"), run = clip_or_die(&asset, "run"), cheer = clip_or_die(&asset, "cheer");
    CHECK(crowd_set_count(c, COUNT) == CROWD_OK);
    for (uint32_t i = 0; i < COUNT; i++) {
        CHECK(crowd_set_transform(c, i, -6.0f + 1.7f * (float)i, 0.1f * (float)i, 3.0f - (float)i,
                                  0.9f * (float)i - 2.0f) == CROWD_OK);
        CHECK(crowd_set_scale(c, i, 0.7f + 0.15f * (float)i) == CROWD_OK);
        CHECK(crowd_play(c, i, walk, 1.0f, 0.0f) == CROWD_OK);
        CHECK(crowd_set_phase(c, i, 0.113f * (float)i + 0.031f) == CROWD_OK); /* between baked frames */
    }
    crowd_view v;
    memset(&v, 0, sizeof v);
    test_view_at(&v, 0, 20, 30, 0, 0, 0);
    CHECK(crowd_update(c, 0.25f, &v) != NULL);
    CHECK(crowd_set_velocity(c, 1, 1.2f, -0.7f) == CROWD_OK);    /* walks on: extrapolated */
    CHECK(crowd_play(c, 2, run, 1.3f, 1.0f) == CROWD_OK);        /* 0.4 s into a 1 s fade at the end */
    CHECK(crowd_play_once(c, 3, cheer, 0.5f, 0.0f) == CROWD_OK); /* held, 0.2 of the way through */
    CHECK(crowd_play_once(c, 4, cheer, 4.0f, 0.0f) == CROWD_OK); /* held after its end (0.25 s) */
    CHECK(crowd_play_once(c, 5, cheer, 0.8f, 0.5f) == CROWD_OK); /* fading into a one-shot (HOLD_B) */
    crowd_record *turn = &c->records[crowd_slot_of(c, 6)];       /* turning, as the simulation writes */
    turn->velocity = crowd_pack_velocity(1.4f, 0.0f);
    turn->ref_time = crowd_time(c);
    turn->offset_b = -0.3f, turn->rate_b = 1.3f, turn->fade_start = 1.5f, turn->fade_rate = 0.0f;
    crowd_rec_set_clip_b(turn, crowd_rec_clip_a(turn));
    turn->clips |= CROWD_RECORD_TURN;
    c->dirty[crowd_slot_of(c, 6)] = 1;
    CHECK(crowd_update(c, 0.4f, &v) != NULL);
    states_are_as_named(c);
    return c;
}

/* Every instance, every socket and a spread of bones against the reference. */
static void decode_matches_the_hand_built_one(void)
{
    crowd *c = states_crowd();
    float time = crowd_time(c), worst = 0.0f;
    uint32_t checked = 0;
    for (uint32_t i = 0; i < COUNT; i++) {
        crowd_record r;
        REQUIRE(crowd_get(c, i, &r) == CROWD_OK);
        for (uint32_t k = 0; k < asset.socket_count + asset.bone_count; k++) {
            bool bone = k >= asset.socket_count;
            uint32_t which = bone ? k - asset.socket_count : k;
            const float *offset = bone ? asset.bones_info[which].bind : asset.sockets[which].offset;
            uint32_t b = bone ? which : asset.sockets[which].bone;
            float m[12];
            crowd_error err;
            crowd_result res = bone ? crowd_record_bone(&asset, &r, which, time, m, &err)
                                    : crowd_record_socket(&asset, &r, which, time, m, &err);
            REQUIRE(res == CROWD_OK);
            double want[12];
            reference(&r, b, offset, time, want);
            for (int e = 0; e < 12; e++)
                worst = fmaxf(worst, (float)fabs(m[e] - want[e]));
            checked++;
        }
    }
    /* float32 rounding of products of magnitude ~10 (metres from the origin): a few 1e-6 */
    CHECKF(worst < 2e-5f, "worst element differs by %g from the hand-built decode", (double)worst);
    printf("     %u socket/bone transforms of %u instances: worst element %.2g from the hand-built decode\n", checked,
           COUNT, (double)worst);
    crowd_destroy(c);
}

/* The bone under a socket: the socket's origin = the bone's frame applied to the socket's local offset. */
static void sockets_sit_on_their_bones(void)
{
    crowd *c = states_crowd();
    float worst = 0.0f;
    for (uint32_t s = 0; s < asset.socket_count; s++) {
        const crowd_socket *sock = &asset.sockets[s];
        const float *bind = asset.bones_info[sock->bone].bind;
        /* the socket's point in the bone's own space: offset's origin less the bind origin, turned
         * back by the bind rotation (rigid) */
        float d[3] = {sock->offset[3] - bind[3], sock->offset[7] - bind[7], sock->offset[11] - bind[11]}, q[3];
        for (int k = 0; k < 3; k++)
            q[k] = bind[k] * d[0] + bind[4 + k] * d[1] + bind[8 + k] * d[2];
        for (uint32_t i = 0; i < COUNT; i++) {
            float sm[12], bm[12];
            REQUIRE(crowd_socket_transform(c, i, s, sm) == CROWD_OK);
            REQUIRE(crowd_bone_transform(c, i, sock->bone, bm) == CROWD_OK);
            for (int row = 0; row < 3; row++) {
                const float *b = bm + 4 * row;
                float at = b[0] * q[0] + b[1] * q[1] + b[2] * q[2] + b[3];
                worst = fmaxf(worst, fabsf(at - sm[4 * row + 3]));
            }
        }
    }
    CHECKF(worst < 1e-4f, "a socket is %g m from where its bone puts it", (double)worst);
    printf("     %u sockets on their bones: worst %.2g m\n", asset.socket_count, (double)worst);
    crowd_destroy(c);
}

/* Single, bulk with a list, bulk over every live instance, record-level at crowd_time: one answer. */
static void bulk_equals_single(void)
{
    crowd *c = states_crowd();
    float all[COUNT * 12], listed[COUNT * 12];
    uint32_t order[COUNT];
    for (uint32_t i = 0; i < COUNT; i++)
        order[i] = COUNT - 1 - i;
    for (uint32_t s = 0; s < asset.socket_count; s++) {
        REQUIRE(crowd_socket_transforms(c, NULL, crowd_count(c), s, all) == CROWD_OK);
        REQUIRE(crowd_socket_transforms(c, order, COUNT, s, listed) == CROWD_OK);
        for (uint32_t i = 0; i < COUNT; i++) {
            float one[12], rec_m[12];
            crowd_record r;
            REQUIRE(crowd_socket_transform(c, i, s, one) == CROWD_OK);
            REQUIRE(crowd_get(c, i, &r) == CROWD_OK);
            REQUIRE(crowd_record_socket(&asset, &r, s, crowd_time(c), rec_m, NULL) == CROWD_OK);
            CHECK(!memcmp(one, all + 12 * i, sizeof one));
            CHECK(!memcmp(one, listed + 12 * (COUNT - 1 - i), sizeof one));
            CHECK(!memcmp(one, rec_m, sizeof one));
        }
    }
    uint32_t hand = 0;
    REQUIRE(crowd_asset_find_socket(&asset, "hand_l", &hand));
    uint32_t bone = asset.sockets[hand].bone;
    REQUIRE(crowd_bone_transforms(c, NULL, COUNT, bone, all) == CROWD_OK);
    for (uint32_t i = 0; i < COUNT; i++) {
        float one[12];
        REQUIRE(crowd_bone_transform(c, i, bone, one) == CROWD_OK);
        CHECK(!memcmp(one, all + 12 * i, sizeof one));
    }
    CHECK(crowd_socket_transforms(c, NULL, 0, 0, NULL) == CROWD_OK); /* nothing asked, nothing written */
    /* a prefix (index order), and every instance after removals moved records (no update since) */
    float prefix[3 * 12];
    REQUIRE(crowd_socket_transforms(c, NULL, 3, hand, prefix) == CROWD_OK);
    REQUIRE(crowd_socket_transforms(c, NULL, COUNT, hand, all) == CROWD_OK);
    CHECK(!memcmp(prefix, all, sizeof prefix));
    REQUIRE(crowd_remove(c, 2) == CROWD_OK && crowd_remove(c, 0) == CROWD_OK);
    REQUIRE(crowd_socket_transforms(c, NULL, crowd_count(c), hand, all) == CROWD_OK);
    for (uint32_t i = 0; i < crowd_count(c); i++) {
        float one[12];
        REQUIRE(crowd_socket_transform(c, i, hand, one) == CROWD_OK);
        CHECKF(!memcmp(one, all + 12 * i, sizeof one), "instance %u after the removals", i);
    }
    crowd_destroy(c);
}

static void refused(crowd_result got, const char *message, const char *needle)
{
    CHECKF(got == CROWD_ERROR_ARGUMENT, "result %d for \"%s\"", (int)got, needle);
    CHECKF(strstr(message, needle) != NULL, "\"%s\" does not say \"%s\"", message, needle);
}

static void untouched(const float *m, size_t n)
{
    for (size_t i = 0; i < n; i++)
        CHECKF(m[i] == 7.0f, "element %zu written (%g)", i, (double)m[i]);
}

static void record_level_refusals(void)
{
    crowd *c = states_crowd();
    crowd_record r;
    REQUIRE(crowd_get(c, 2, &r) == CROWD_OK); /* mid-fade */
    float m[12], t = crowd_time(c);
    for (int i = 0; i < 12; i++)
        m[i] = 7.0f;
    crowd_error err;
    refused(crowd_record_socket(NULL, &r, 0, t, m, &err), err.message, "no asset");
    refused(crowd_record_socket(&asset, NULL, 0, t, m, &err), err.message, "record is NULL");
    refused(crowd_record_socket(&asset, &r, 0, t, NULL, &err), err.message, "transform is NULL");
    char want[64];
    snprintf(want, sizeof want, "socket %u; the asset has %u sockets", asset.socket_count, asset.socket_count);
    refused(crowd_record_socket(&asset, &r, asset.socket_count, t, m, &err), err.message, want);
    refused(crowd_record_bone(&asset, &r, 9999, t, m, &err), err.message, "bone 9999");
    refused(crowd_record_socket(&asset, &r, 0, NAN, m, &err), err.message, "time nan is not finite");
    refused(crowd_record_bone(&asset, &r, 0, INFINITY, m, &err), err.message, "time inf is not finite");
    crowd_record bad = r;
    crowd_rec_set_clip_b(&bad, asset.clip_count); /* clip B is read: a fade runs */
    snprintf(want, sizeof want, "clip B is %u; the asset has %u clips", asset.clip_count, asset.clip_count);
    refused(crowd_record_socket(&asset, &bad, 0, t, m, &err), err.message, want);
    bad = r;
    bad.scale = 3e38f, bad.position[0] = 3e38f; /* would overflow: never an infinity out */
    refused(crowd_record_socket(&asset, &bad, 0, t, m, &err), err.message, "non-finite transform");
    bad = r;
    bad.offset_a = NAN;
    refused(crowd_record_socket(&asset, &bad, 0, t, m, &err), err.message, "clip A's phase");
    untouched(m, 12);
    CHECK(crowd_record_socket(&asset, &r, 0, t, m, NULL) == CROWD_OK && all_finite(m, 12)); /* NULL error is fine */
    crowd_destroy(c);
}

static void crowd_level_refusals(void)
{
    crowd *c = states_crowd();
    float m[12 * 3];
    for (int i = 0; i < 36; i++)
        m[i] = 7.0f;
    const crowd_error *e = crowd_last_error(c);
    CHECK(crowd_socket_transform(NULL, 0, 0, m) == CROWD_ERROR_ARGUMENT);
    CHECK(crowd_socket_transforms(NULL, NULL, 1, 0, m) == CROWD_ERROR_ARGUMENT);
    refused(crowd_socket_transform(c, COUNT, 0, m), e->message, "crowd_socket_transform: instance 8 of 8");
    refused(crowd_bone_transform(c, UINT32_MAX, 0, m), e->message, "crowd_bone_transform: instance 4294967295 of 8");
    refused(crowd_socket_transform(c, 0, 77, m), e->message, "crowd_socket_transform: socket 77");
    refused(crowd_bone_transform(c, 0, 4000, m), e->message, "crowd_bone_transform: bone 4000");
    refused(crowd_socket_transform(c, 0, 0, NULL), e->message, "transform is NULL");
    refused(crowd_socket_transforms(c, NULL, 3, 0, NULL), e->message, "transforms are NULL");
    const uint32_t list[3] = {1, 2, 12};
    refused(crowd_socket_transforms(c, list, 3, 0, m), e->message, "indices[2] is instance 12 of 8");
    refused(crowd_bone_transforms(c, NULL, COUNT + 1, 0, m), e->message, "instance 8 of 8");
    untouched(m, 36); /* the list is checked before anything is written */
    crowd_destroy(c);
}

/* A VAT-only bake (the tiny rig, no bone texture): every call says to bake with bones. */
static void vat_only_bakes_are_refused(void)
{
    crowd_rig rig;
    crowd_error err;
    REQUIRE(tiny_rig_build(&rig, &err) == CROWD_OK);
    crowd_bake_output vat = bake_or_die(&rig, (crowd_bake_desc){.lod_count = 1});
    crowd_asset a;
    REQUIRE(crowd_asset_load_memory(&a, vat.bytes, vat.size, &err) == CROWD_OK);
    REQUIRE(!a.bones.data);
    crowd_record r;
    memset(&r, 0, sizeof r);
    r.scale = 1.0f;
    float m[12];
    refused(crowd_record_socket(&a, &r, 0, 0.0f, m, &err), err.message, "baked without bones");
    refused(crowd_record_bone(&a, &r, 0, 0.0f, m, &err), err.message, "bake with --bones");
    crowd_desc d;
    memset(&d, 0, sizeof d);
    d.asset = &a;
    d.capacity = 4;
    crowd *c = NULL;
    REQUIRE(crowd_create(&d, &c, &err) == CROWD_OK);
    REQUIRE(crowd_set_count(c, 2) == CROWD_OK);
    refused(crowd_socket_transform(c, 0, 0, m), crowd_last_error(c)->message, "baked without bones");
    refused(crowd_bone_transforms(c, NULL, 2, 0, m), crowd_last_error(c)->message, "bake with --bones");
    crowd_destroy(c);
    crowd_asset_free(&a);
    crowd_bake_output_free(&vat);
    crowd_rig_free(&rig);
}

int main(void)
{
    humanoid_asset_or_die((crowd_bake_desc){.bones = true, .lod_count = 1}, &baked, &asset);
    RUN_TEST(decode_matches_the_hand_built_one);
    RUN_TEST(sockets_sit_on_their_bones);
    RUN_TEST(bulk_equals_single);
    RUN_TEST(record_level_refusals);
    RUN_TEST(crowd_level_refusals);
    RUN_TEST(vat_only_bakes_are_refused);
    crowd_asset_free(&asset);
    crowd_bake_output_free(&baked);
    TEST_MAIN_END();
}
