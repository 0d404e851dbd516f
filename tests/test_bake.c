/* The baker on the humanoid: strides against truth, LOD topology, texture layout, determinism,
 * verification bounds for every encoding. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bake/layout.h"
#include "bake/stride.h"
#include "check.h"
#include "core/format.h"
#include "test_support.h"

static crowd_bake_output default_bake;
static crowd_asset default_asset;

static void load_default(void)
{
    crowd_bake_desc desc = {.bones = true};
    default_bake = bake_or_die(humanoid(), desc);
    crowd_error err;
    if (crowd_asset_load_memory(&default_asset, default_bake.bytes, default_bake.size, &err) != CROWD_OK) {
        fprintf(stderr, "load failed: %s\n", err.message);
        exit(1);
    }
}

/* The extractor recovers the analytic strides within 0.1 %, including the run's airborne phase. */
static void strides_match_truth(void)
{
    const crowd_rig *rig = humanoid();
    uint32_t gait_count;
    const crowd_gait *gaits = crowd_humanoid_gaits(&gait_count);
    for (uint32_t g = 0; g < gait_count; g++) {
        uint32_t c = clip_or_die(&default_asset, gaits[g].name);
        double error = fabs(default_asset.clips[c].stride - gaits[g].stride) / gaits[g].stride;
        CHECKF(error < 1e-3, "%s: stride %.5f vs %.5f", gaits[g].name, (double)default_asset.clips[c].stride,
               gaits[g].stride);
        CHECK(default_asset.clips[c].flags & CROWD_CLIP_LOCOMOTION);
        printf("     %-5s baked %.4f m  truth %.4f m  %+.4f%%\n", gaits[g].name, (double)default_asset.clips[c].stride,
               gaits[g].stride, 100.0 * (default_asset.clips[c].stride - gaits[g].stride) / gaits[g].stride);
    }
    for (const char *still[] = {"idle", "wave", "cheer"}, **s = still; s < still + 3; s++) {
        uint32_t c = clip_or_die(&default_asset, *s);
        CHECKF(default_asset.clips[c].stride == 0.0f && !(default_asset.clips[c].flags & CROWD_CLIP_LOCOMOTION),
               "%s should not travel", *s);
    }
    /* the run really has an airborne phase: frames where no vertex touches the ground */
    uint32_t run = clip_or_die(&default_asset, "run");
    const crowd_clip *clip = &default_asset.clips[run];
    int airborne = 0;
    for (uint32_t f = 0; f < clip->frame_count; f++) {
        float lowest = 1e9f, p[3], n[3];
        for (uint32_t v = 0; v < default_asset.vertex_count; v++) {
            crowd_asset_decode_vertex(&default_asset, clip->first_frame + f, v, p, n);
            lowest = fminf(lowest, p[1]);
        }
        airborne += lowest > 0.01f;
    }
    CHECKF(airborne > 0, "the run never leaves the ground");
    (void)rig;
}

/* A synthetic gait with known answer: a sole translating back at 1.5 m/s for 40% of a 1 s cycle,
 * flying for the rest: stride 1.5 m. Also a clip that does not travel. */
static void stride_extractor_synthetic(void)
{
    enum { FRAMES = 30, VERTS = 4 };
    float frames[FRAMES * VERTS * 3];
    for (int f = 0; f < FRAMES; f++) {
        double q = (double)f / FRAMES;
        for (int v = 0; v < VERTS; v++) {
            float *p = frames + (f * VERTS + v) * 3;
            bool stance = q < 0.4;
            p[0] = 0.1f * v;
            p[1] = v < 2 ? (stance ? 0.0f : 0.2f) : 1.7f; /* two sole vertices, two "head" vertices */
            p[2] = stance ? (float)(0.3 - 1.5 * q) : 0.0f;
        }
    }
    crowd_stride s;
    REQUIRE(crowd_extract_stride(frames, VERTS, FRAMES, 1.0, true, &s));
    CHECKF(fabs(s.stride - 1.5) < 1e-4 && s.locomotion, "stride %.6f", s.stride);
    for (int i = 0; i < FRAMES * VERTS; i++)
        frames[3 * i + 2] = 0.0f;
    REQUIRE(crowd_extract_stride(frames, VERTS, FRAMES, 1.0, true, &s));
    CHECK(s.stride == 0.0 && !s.locomotion);
}

static bool same_component(const uint32_t *component, uint32_t a, uint32_t b, uint32_t c)
{
    return component[a] == component[b] && component[b] == component[c];
}

static uint32_t find(uint32_t *parent, uint32_t v)
{
    while (parent[v] != v)
        v = parent[v] = parent[parent[v]];
    return v;
}

/* LODs: five levels, monotonic, the last <= 60 triangles; every index in range; no degenerate or
 * zero-area triangle; winding kept (face normal agrees with the vertex normals); no triangle joins
 * two parts that were separate in the full mesh (limbs never weld; vertices at one position are
 * one point of the surface). */
static void lod_topology(void)
{
    const crowd_asset *a = &default_asset;
    const crowd_rig *rig = humanoid();
    REQUIRE(a->lod_count == 5);
    CHECKF(a->lods[4].triangle_count <= 60, "last LOD has %u triangles", a->lods[4].triangle_count);
    CHECK(a->lods[0].triangle_count == rig->index_count / 3);
    uint32_t *parent = malloc(sizeof(uint32_t) * a->vertex_count);
    REQUIRE(parent);
    for (uint32_t v = 0; v < a->vertex_count; v++)
        parent[v] = v;
    for (uint32_t v = 0; v < a->vertex_count; v++)
        for (uint32_t w = 0; w < v; w++)
            if (!memcmp(a->bind_positions + 3 * v, a->bind_positions + 3 * w, 3 * sizeof(float)))
                parent[find(parent, v)] = find(parent, w);
    for (uint32_t i = 0; i < rig->index_count; i += 3) {
        uint32_t r0 = find(parent, rig->indices[i]);
        parent[find(parent, rig->indices[i + 1])] = r0;
        parent[find(parent, rig->indices[i + 2])] = r0;
    }
    for (uint32_t v = 0; v < a->vertex_count; v++)
        parent[v] = find(parent, v);
    printf("     lods:");
    for (uint32_t l = 0; l < a->lod_count; l++) {
        const crowd_lod *lod = &a->lods[l];
        printf(" %u", lod->triangle_count);
        if (l)
            CHECK(lod->triangle_count < a->lods[l - 1].triangle_count);
        int degenerate = 0, flipped = 0, welded = 0;
        for (uint32_t i = 0; i < lod->index_count; i += 3) {
            const uint32_t *t = a->indices + lod->first_index + i;
            REQUIRE(t[0] < a->vertex_count && t[1] < a->vertex_count && t[2] < a->vertex_count);
            const float *p0 = a->bind_positions + 3 * t[0], *p1 = a->bind_positions + 3 * t[1],
                        *p2 = a->bind_positions + 3 * t[2];
            double e1[3], e2[3], n[3], vn[3];
            for (int k = 0; k < 3; k++) {
                e1[k] = p1[k] - p0[k];
                e2[k] = p2[k] - p0[k];
                vn[k] = a->bind_normals[3 * t[0] + k] + a->bind_normals[3 * t[1] + k] + a->bind_normals[3 * t[2] + k];
            }
            n[0] = e1[1] * e2[2] - e1[2] * e2[1];
            n[1] = e1[2] * e2[0] - e1[0] * e2[2];
            n[2] = e1[0] * e2[1] - e1[1] * e2[0];
            double area = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
            degenerate += t[0] == t[1] || t[1] == t[2] || t[0] == t[2] || area < 1e-12;
            flipped += n[0] * vn[0] + n[1] * vn[1] + n[2] * vn[2] <= 0;
            welded += !same_component(parent, t[0], t[1], t[2]);
        }
        CHECKF(degenerate == 0, "LOD %u: %d degenerate triangles", l, degenerate);
        CHECKF(flipped == 0, "LOD %u: %d triangles against the surface normal", l, flipped);
        CHECKF(welded == 0, "LOD %u: %d triangles join separate parts", l, welded);
    }
    printf("\n");
    free(parent);
}

/* Clip frame ranges tile the texture; texel index = frame * vertex_count + vertex. */
static void clips_tile_the_texture(void)
{
    const crowd_asset *a = &default_asset;
    uint32_t next = 0;
    for (uint32_t c = 0; c < a->clip_count; c++) {
        CHECK(a->clips[c].first_frame == next);
        next += a->clips[c].frame_count;
        int rc = crowd_rig_find_clip(humanoid(), a->clips[c].name);
        REQUIRE(rc >= 0);
        CHECKF(a->clips[c].frame_count == (uint32_t)lround(humanoid()->clips[rc].duration * 30.0), "%s: %u frames",
               a->clips[c].name, a->clips[c].frame_count);
    }
    CHECK(next == a->frame_count);
    CHECK((uint64_t)a->positions.width * a->positions.height >= (uint64_t)a->vertex_count * a->frame_count);
    CHECK((uint64_t)a->positions.width * (a->positions.height - 1) < (uint64_t)a->vertex_count * a->frame_count);
    CHECK(a->positions.width == 4096);
}

/* Narrow textures still work, and the width grows when the height would pass 16384. */
static void texture_width_grows(void)
{
    uint32_t w, h;
    crowd_error err;
    CHECK(crowd_layout_texture(16384ull * 64, 64, "t", &w, &h, &err) == CROWD_OK && w == 64 && h == 16384);
    CHECK(crowd_layout_texture(16384ull * 64 + 1, 64, "t", &w, &h, &err) == CROWD_OK && w == 128 && h == 8193);
    CHECK(crowd_layout_texture(16384ull * 16384, 100, "t", &w, &h, &err) == CROWD_OK && w == 16384 && h == 16384);
    CHECK(crowd_layout_texture(16384ull * 16384 + 1, 4096, "t", &w, &h, &err) == CROWD_ERROR_LIMIT);
    CHECK(crowd_layout_texture(10, 4096, "t", &w, &h, &err) == CROWD_OK && w == 10 && h == 1);

    crowd_bake_desc desc = {.tex_width = 64, .clip_names = (const char *const[]){"walk"}, .clip_name_count = 1};
    crowd_bake_output out = bake_or_die(humanoid(), desc);
    crowd_asset a;
    REQUIRE(crowd_asset_load_memory(&a, out.bytes, out.size, &err) == CROWD_OK);
    CHECK(a.positions.width == 64 && a.positions.height == (a.vertex_count * a.frame_count + 63) / 64);
    /* same texels as the 4096-wide bake of the same clip */
    float p1[3], n1[3], p2[3], n2[3];
    uint32_t walk = clip_or_die(&default_asset, "walk");
    int mismatches = 0;
    for (uint32_t f = 0; f < a.frame_count; f++)
        for (uint32_t v = 0; v < a.vertex_count; v += 7) {
            crowd_asset_decode_vertex(&a, f, v, p1, n1);
            crowd_asset_decode_vertex(&default_asset, default_asset.clips[walk].first_frame + f, v, p2, n2);
            mismatches += fabsf(p1[0] - p2[0]) > 1e-4f || fabsf(p1[1] - p2[1]) > 1e-4f || fabsf(p1[2] - p2[2]) > 1e-4f;
        }
    CHECKF(mismatches == 0, "%d texels differ between layouts", mismatches);
    crowd_asset_free(&a);
    crowd_bake_output_free(&out);
}

/* Two bakes of the same input are byte-identical, in every mode. */
static void bakes_are_deterministic(void)
{
    crowd_bake_desc modes[] = {{.bones = true}, {.compact = true, .tangents = true}, {.fp16 = true, .bones = true}};
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        crowd_bake_output a = bake_or_die(humanoid(), modes[m]), b = bake_or_die(humanoid(), modes[m]);
        CHECKF(a.size == b.size && !memcmp(a.bytes, b.bytes, a.size), "mode %zu differs", m);
        crowd_bake_output_free(&a);
        crowd_bake_output_free(&b);
    }
    CHECK(default_bake.size > 0);
}

/* crowd_verify: the 16-bit encoding meets 0.05 mm at 12 bytes; compact is 8 bytes; fp16 is
 * reported; every bound holds; a tampered texel is caught. */
static void verify_bounds(void)
{
    crowd_verify_report r;
    crowd_error err;
    REQUIRE(crowd_verify(&default_asset, humanoid(), &r, &err) == CROWD_OK);
    CHECKF(r.passed, "%s", r.failure);
    CHECKF(r.position_max_mm <= 0.05, "max %.4f mm", r.position_max_mm);
    CHECK(crowd_asset_vat_bytes_per_vertex_frame(&default_asset) == 12);
    CHECK(r.bones_checked && r.bone_position_max_mm <= 0.05);
    printf("     default: max %.4f mm (bound %.4f), normals %.4f deg; bones %.4f mm\n", r.position_max_mm,
           r.position_bound_mm, r.normal_max_deg, r.bone_position_max_mm);
    crowd_verify_report_free(&r);

    struct {
        crowd_bake_desc desc;
        uint32_t bytes;
        const char *name;
    } modes[] = {{{.compact = true}, 8, "compact"}, {{.fp16 = true}, 12, "fp16"}};
    for (int m = 0; m < 2; m++) {
        crowd_bake_output out = bake_or_die(humanoid(), modes[m].desc);
        crowd_asset a;
        REQUIRE(crowd_asset_load_memory(&a, out.bytes, out.size, &err) == CROWD_OK);
        CHECK(crowd_asset_vat_bytes_per_vertex_frame(&a) == modes[m].bytes);
        REQUIRE(crowd_verify(&a, humanoid(), &r, &err) == CROWD_OK);
        CHECKF(r.passed, "%s: %s", modes[m].name, r.failure);
        printf("     %-7s: max %.4f mm (bound %.4f), normals %.4f deg (bound %.4f)\n", modes[m].name, r.position_max_mm,
               r.position_bound_mm, r.normal_max_deg, r.normal_bound_deg);
        crowd_verify_report_free(&r);
        crowd_asset_free(&a);
        crowd_bake_output_free(&out);
    }

    /* every clip's sphere holds its decoded frames (measured: the farthest vertex at 1.0000 of it,
     * the bake fits the spheres to them); one shrunk by 1 % must fail */
    REQUIRE(crowd_verify(&default_asset, humanoid(), &r, &err) == CROWD_OK);
    CHECKF(r.clip_bounds_checked && r.bound_max_ratio > 0.99 && r.bound_max_ratio <= 1.0 + 1e-6,
           "clip spheres: farthest vertex at %.6f of the radius", r.bound_max_ratio);
    crowd_verify_report_free(&r);
    {
        uint8_t *shrunk = aligned_copy(default_bake.bytes, default_bake.size);
        uint64_t cbnd_size;
        size_t cbnd = section_offset(shrunk, CROWD_TAG_CBND, &cbnd_size);
        REQUIRE(cbnd_size >= CROWD_CBND_HEADER_BYTES + CROWD_CBND_CLIP_BYTES);
        float radius; /* clip 0's: 12 bytes into its record */
        memcpy(&radius, shrunk + cbnd + CROWD_CBND_HEADER_BYTES + 12, sizeof radius);
        radius *= 0.99f;
        memcpy(shrunk + cbnd + CROWD_CBND_HEADER_BYTES + 12, &radius, sizeof radius);
        reseal(shrunk, default_bake.size);
        crowd_asset small;
        REQUIRE(crowd_asset_load_memory(&small, shrunk, default_bake.size, &err) == CROWD_OK);
        REQUIRE(crowd_verify(&small, humanoid(), &r, &err) == CROWD_OK);
        CHECKF(!r.passed && strstr(r.failure, "bounding sphere") && r.clips[0].bound_ratio > 1.005,
               "a clip sphere shrunk by 1 %%: %s (ratio %.4f)", r.passed ? "passed" : r.failure,
               r.clips[0].bound_ratio);
        crowd_verify_report_free(&r);
        crowd_asset_free(&small);
        free(shrunk);
    }

    /* move one texel by two quanta: verify must fail */
    uint8_t *copy = aligned_copy(default_bake.bytes, default_bake.size);
    uint64_t size;
    size_t at = section_offset(copy, CROWD_TAG_TPOS, &size);
    uint16_t *texel = (uint16_t *)(copy + at) + 4 * 1234;
    texel[1] = (uint16_t)(texel[1] > 100 ? texel[1] - 2 : texel[1] + 2);
    reseal(copy, default_bake.size);
    crowd_asset a;
    REQUIRE(crowd_asset_load_memory(&a, copy, default_bake.size, &err) == CROWD_OK);
    REQUIRE(crowd_verify(&a, humanoid(), &r, &err) == CROWD_OK);
    CHECK(!r.passed);
    crowd_verify_report_free(&r);
    crowd_asset_free(&a);
    free(copy);
}

/* --scale 0.01 (a centimetre asset made metres, here run backwards on the humanoid): every length
 * in the asset shrinks by exactly the factor, the rest stays, and the scaled asset still passes
 * verify against its unscaled rig, in both VAT and bone mode. */
static void unit_scale(void)
{
    const float s = 0.01f;
    crowd_bake_output out = bake_or_die(humanoid(), (crowd_bake_desc){.bones = true, .scale = s});
    crowd_asset a;
    crowd_error err;
    REQUIRE(crowd_asset_load_memory(&a, out.bytes, out.size, &err) == CROWD_OK);
    const crowd_asset *d = &default_asset;
    CHECK(a.unit_scale == s && d->unit_scale == 1.0f);
    double worst = 0.0;
    for (int k = 0; k < 3; k++) {
        worst = fmax(worst, fabs(a.bounds_min[k] - s * d->bounds_min[k]));
        worst = fmax(worst, fabs(a.bounds_max[k] - s * d->bounds_max[k]));
    }
    for (uint32_t v = 0; v < a.vertex_count * 3; v++)
        worst = fmax(worst, fabs(a.bind_positions[v] - s * d->bind_positions[v]));
    CHECKF(worst < 1e-7, "lengths off by %g m", worst);
    CHECK(fabs(a.sphere_radius - s * d->sphere_radius) < 1e-6 * d->sphere_radius + 1e-7);
    for (uint32_t c = 0; c < a.clip_count; c++)
        CHECKF(fabsf(a.clips[c].stride - s * d->clips[c].stride) <= 1e-5f * d->clips[c].stride + 1e-9f,
               "clip %s: stride %g vs %g", a.clips[c].name, (double)a.clips[c].stride, (double)d->clips[c].stride);
    REQUIRE(a.socket_count == d->socket_count && a.socket_count > 0);
    for (uint32_t k = 0; k < a.socket_count; k++)
        for (int e = 0; e < 12; e++) {
            float want = (e % 4 == 3) ? s * d->sockets[k].offset[e] : d->sockets[k].offset[e];
            CHECK(fabsf(a.sockets[k].offset[e] - want) < 1e-6f);
        }
    crowd_verify_report r;
    REQUIRE(crowd_verify(&a, humanoid(), &r, &err) == CROWD_OK);
    CHECKF(r.passed, "%s", r.failure);
    CHECK(r.bones_checked);
    printf("     scale 0.01: VAT max %.5f mm (bound %.5f), bone max %.5f mm\n", r.position_max_mm, r.position_bound_mm,
           r.bone_position_max_mm);
    crowd_verify_report_free(&r);
    crowd_asset_free(&a);
    crowd_bake_output_free(&out);
}

/* The value a size refusal suggests for `field` ("crowd_bake_desc.fps 12 (3.10 MB)": "12") into
 * value (empty for a flag), and its predicted size; false when the message does not name it. */
static bool suggested(const char *message, const char *field, char *value, size_t size, double *mb)
{
    const char *at = strstr(message, field);
    if (!at)
        return false;
    at += strlen(field);
    size_t n = 0;
    if (*at == ' ' && at[1] != '(')
        for (at++; *at && strncmp(at, " (", 2) && strncmp(at, ", ", 2) && n + 1 < size; at++)
            value[n++] = *at;
    value[n] = '\0';
    const char *open = strstr(at, "(");
    return open && sscanf(open, "(%lf MB)", mb) == 1;
}

/* The desc with a suggestion applied: "12" to fps, "walk,run" to clip_names (names in `store`). */
static crowd_bake_desc applied(crowd_bake_desc d, const char *field, char *value, const char **names)
{
    if (!strcmp(field, "crowd_bake_desc.compact"))
        d.compact = true;
    else if (!strcmp(field, "crowd_bake_desc.fps"))
        d.fps = (float)atof(value);
    else if (!strcmp(field, "crowd_bake_desc.clip_names")) {
        d.clip_name_count = 0;
        for (char *name = strtok(value, ","); name && d.clip_name_count < 8; name = strtok(NULL, ","))
            names[d.clip_name_count++] = name;
        d.clip_names = names;
    }
    return d;
}

/* Each suggestion of the refusal of `d` that names `field`, applied alone, bakes under the limit at
 * the size the message gave. Returns whether the message named it. */
static bool suggestion_fits(crowd_bake_desc d, const char *message, const char *field)
{
    char value[256];
    double mb;
    const char *names[8];
    if (!suggested(message, field, value, sizeof value, &mb))
        return false;
    crowd_bake_desc fixed = applied(d, field, value, names);
    crowd_bake_output out;
    crowd_error err;
    CHECKF(crowd_bake(&fixed, &out, &err) == CROWD_OK, "%s applied: %s", field, err.message);
    CHECKF(out.size <= d.max_bytes && out.stats.predicted_bytes <= d.max_bytes &&
               fabs(out.stats.predicted_bytes / 1048576.0 - mb) < 0.01,
           "%s applied: %zu bytes, predicted %llu, the message said %.2f MB", field, out.size,
           (unsigned long long)out.stats.predicted_bytes, mb);
    crowd_bake_output_free(&out);
    return true;
}

/* A size refusal names only options that fit, each with the size it predicts (the limits sit
 * between the humanoid's default and compact sizes): each applied bakes under the limit, the fps is
 * the highest that fits, a compact bake is not told to be compact, past every single option it
 * gives a combination that fits, and past everything it says so. */
static void size_refusal_suggests_what_fits(void)
{
    crowd_bake_output out;
    crowd_error err;
    crowd_bake_desc d = {.rig = humanoid(), .max_bytes = 6u << 20};
    REQUIRE(crowd_bake(&d, &out, &err) == CROWD_ERROR_LIMIT);
    printf("     6 MB: %s\n", err.message);
    CHECK(suggestion_fits(d, err.message, "crowd_bake_desc.compact"));
    CHECK(suggestion_fits(d, err.message, "crowd_bake_desc.fps"));
    CHECK(suggestion_fits(d, err.message, "crowd_bake_desc.clip_names"));
    char value[64];
    double mb;
    REQUIRE(suggested(err.message, "crowd_bake_desc.fps", value, sizeof value, &mb));
    crowd_bake_desc faster = d;
    faster.fps = (float)atof(value) + 1.0f;
    CHECK(crowd_bake(&faster, &out, &err) == CROWD_ERROR_LIMIT); /* the highest fps that fits */

    d = (crowd_bake_desc){.rig = humanoid(), .compact = true, .max_bytes = 3u << 20};
    REQUIRE(crowd_bake(&d, &out, &err) == CROWD_ERROR_LIMIT);
    printf("     3 MB, compact: %s\n", err.message);
    CHECKF(!strstr(err.message, "compact"), "a compact bake told of compact: %s", err.message);
    CHECK(suggestion_fits(d, err.message, "crowd_bake_desc.fps"));

    d = (crowd_bake_desc){.rig = humanoid(), .max_bytes = 500000};
    REQUIRE(crowd_bake(&d, &out, &err) == CROWD_ERROR_LIMIT);
    printf("     500 kB: %s\n", err.message);
    CHECK(strstr(err.message, "no single option fits; together: "));
    const char *names[8];
    char fps[16], clips[256];
    REQUIRE(suggested(err.message, "crowd_bake_desc.fps", fps, sizeof fps, &mb) &&
            suggested(err.message, "crowd_bake_desc.clip_names", clips, sizeof clips, &mb));
    crowd_bake_desc together =
        applied(applied(d, "crowd_bake_desc.fps", fps, names), "crowd_bake_desc.compact", NULL, names);
    together = applied(together, "crowd_bake_desc.clip_names", clips, names);
    CHECKF(crowd_bake(&together, &out, &err) == CROWD_OK && out.size <= d.max_bytes, "together: %s", err.message);
    crowd_bake_output_free(&out);

    d.max_bytes = 250000;
    REQUIRE(crowd_bake(&d, &out, &err) == CROWD_ERROR_LIMIT);
    CHECKF(strstr(err.message, "nothing fits") && strstr(err.message, "raise crowd_bake_desc.max_bytes"), "%s",
           err.message);
}

/* Bad bake options come back as errors, not crashes. */
static void bad_options_are_refused(void)
{
    crowd_bake_output out;
    crowd_error err;
    crowd_bake_desc d = {.rig = humanoid(), .clip_names = (const char *const[]){"moonwalk"}, .clip_name_count = 1};
    CHECK(crowd_bake(&d, &out, &err) == CROWD_ERROR_ARGUMENT && strstr(err.message, "moonwalk"));
    d = (crowd_bake_desc){.rig = humanoid(), .fps = 1000};
    CHECK(crowd_bake(&d, &out, &err) == CROWD_ERROR_ARGUMENT);
    d = (crowd_bake_desc){.rig = humanoid(), .compact = true, .fp16 = true};
    CHECK(crowd_bake(&d, &out, &err) == CROWD_ERROR_ARGUMENT);
    d = (crowd_bake_desc){.rig = humanoid(), .lod_count = 3, .lod_ratios = (const float[]){1.0f, 0.5f, 0.7f}};
    CHECK(crowd_bake(&d, &out, &err) == CROWD_ERROR_ARGUMENT);
    d = (crowd_bake_desc){.rig = humanoid(), .lod_count = 7};
    CHECK(crowd_bake(&d, &out, &err) == CROWD_ERROR_ARGUMENT);
    d = (crowd_bake_desc){.rig = humanoid(), .frames = 65536, .tex_width = 1};
    CHECK(crowd_bake(&d, &out, &err) == CROWD_ERROR_LIMIT); /* 2358 x 6 x 65536 texels > 16384^2 */
    d = (crowd_bake_desc){.rig = humanoid(), .scale = -1.0f};
    CHECK(crowd_bake(&d, &out, &err) == CROWD_ERROR_ARGUMENT && strstr(err.message, "crowd_bake_desc.scale"));
    d = (crowd_bake_desc){.rig = humanoid(), .scale = NAN};
    CHECK(crowd_bake(&d, &out, &err) == CROWD_ERROR_ARGUMENT);
    d = (crowd_bake_desc){0};
    CHECK(crowd_bake(&d, &out, &err) == CROWD_ERROR_ARGUMENT);
    CHECK(out.bytes == NULL);
}

int main(void)
{
    load_default();
    RUN_TEST(strides_match_truth);
    RUN_TEST(unit_scale);
    RUN_TEST(stride_extractor_synthetic);
    RUN_TEST(lod_topology);
    RUN_TEST(clips_tile_the_texture);
    RUN_TEST(texture_width_grows);
    RUN_TEST(bakes_are_deterministic);
    RUN_TEST(verify_bounds);
    RUN_TEST(bad_options_are_refused);
    RUN_TEST(size_refusal_suggests_what_fits);
    crowd_asset_free(&default_asset);
    crowd_bake_output_free(&default_bake);
    TEST_MAIN_END();
}
