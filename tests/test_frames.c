/* Vertex frames and critters: dump round trip, hostile dumps, dump -> bake -> verify within the
 * quantum, the critters' loop seams and strides against the distance they travelled (every kind),
 * determinism per seed, kind names and plans, every pair of kinds told apart by what a capture
 * measures, and bone mode refused. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "crowdbake/bake.h"
#include "crowdbake/critters.h"

int check_failures;

/* Two tetrahedra (two parts) swaying over 6 frames: small enough to damage byte by byte. */
static float tiny_positions[6 * 8 * 3];
static const uint32_t tiny_indices[] = {0, 2, 1, 0, 1, 3, 1, 2, 3, 0, 3, 2, 4, 6, 5, 4, 5, 7, 5, 6, 7, 4, 7, 6};
static const uint16_t tiny_parts[8] = {0, 0, 0, 0, 1, 1, 1, 1};
static uint8_t tiny_colors[8 * 4];
static const crowd_frames_clip tiny_clips[2] = {{"sway", 0, 4, 30.0f, true, NAN}, {"pose", 4, 2, 30.0f, false, 0.0f}};

static crowd_vertex_frames tiny_frames(void)
{
    static const float base[8][3] = {{0, 0, 0},    {0.2f, 0, 0}, {0, 0, 0.2f},    {0.05f, 0.3f, 0.05f},
                                     {0.5f, 0, 0}, {0.7f, 0, 0}, {0.5f, 0, 0.2f}, {0.55f, 0.3f, 0.05f}};
    for (int f = 0; f < 6; f++)
        for (int v = 0; v < 8; v++)
            for (int k = 0; k < 3; k++)
                tiny_positions[(f * 8 + v) * 3 + k] =
                    base[v][k] + (k == 0 && base[v][1] > 0 ? 0.05f * sinf(f * 1.5f) : 0);
    memset(tiny_colors, 200, sizeof tiny_colors);
    return (crowd_vertex_frames){.vertex_count = 8,
                                 .index_count = 24,
                                 .frame_count = 6,
                                 .positions = tiny_positions,
                                 .indices = tiny_indices,
                                 .parts = tiny_parts,
                                 .part_count = 2,
                                 .colors = tiny_colors,
                                 .clip_count = 2,
                                 .clips = tiny_clips,
                                 .source_name = "tiny"};
}

static void dump_round_trip(void)
{
    crowd_vertex_frames f = tiny_frames();
    uint8_t *bytes = NULL, *again = NULL;
    size_t size = 0, size2 = 0;
    crowd_error err = {0};
    REQUIRE(crowd_frames_dump_write(&f, &bytes, &size, &err) == CROWD_OK);
    crowd_frames_dump d;
    REQUIRE(crowd_frames_dump_read(bytes, size, &d, &err) == CROWD_OK);
    CHECK(d.frames.vertex_count == 8 && d.frames.frame_count == 6 && d.frames.clip_count == 2);
    CHECK(!memcmp(d.frames.positions, tiny_positions, sizeof tiny_positions));
    CHECK(!memcmp(d.frames.indices, tiny_indices, sizeof tiny_indices));
    CHECK(d.frames.parts && d.frames.parts[5] == 1 && d.frames.part_count == 2);
    CHECK(isnan(d.frames.clips[0].stride) && d.frames.clips[1].stride == 0.0f && !d.frames.clips[1].loop);
    CHECK(!strcmp(d.frames.clips[0].name, "sway") && !strcmp(d.frames.source_name, "tiny"));
    CHECK(d.frames.normals == NULL);
    REQUIRE(crowd_frames_dump_write(&d.frames, &again, &size2, &err) == CROWD_OK);
    CHECK(size2 == size && !memcmp(again, bytes, size));
    crowd_frames_dump_bytes_free(again);
    crowd_frames_dump_free(&d);
    crowd_frames_dump_bytes_free(bytes);
}

/* Every truncated prefix, every single-byte corruption of the header and the clip table, and a
 * few chosen bad values: each is refused with a message, or (for a value that stays legal)
 * decodes into frames that validate; nothing crashes or leaks (run under ASan). */
static void hostile_dumps(void)
{
    crowd_vertex_frames f = tiny_frames();
    uint8_t *bytes = NULL;
    size_t size = 0;
    crowd_error err = {0};
    REQUIRE(crowd_frames_dump_write(&f, &bytes, &size, &err) == CROWD_OK);
    uint8_t *copy = malloc(size + 8);
    REQUIRE(copy);
    crowd_frames_dump d;
    for (size_t n = 0; n < size; n++) {
        memcpy(copy, bytes, n);
        err.message[0] = '\0';
        CHECKF(crowd_frames_dump_read(copy, n, &d, &err) != CROWD_OK && err.message[0], "prefix %zu", n);
    }
    memcpy(copy, bytes, size);
    copy[size] = 0;
    CHECK(crowd_frames_dump_read(copy, size + 1, &d, &err) != CROWD_OK); /* trailing byte */
    size_t header_and_clips = 64 + 4 + 2 * 56;
    static const uint8_t values[] = {0x00, 0x01, 0x7f, 0x80, 0xff};
    uint32_t accepted = 0;
    for (size_t at = 0; at < header_and_clips; at++)
        for (size_t k = 0; k < sizeof values; k++) {
            memcpy(copy, bytes, size);
            if (copy[at] == values[k])
                continue;
            copy[at] = values[k];
            crowd_result r = crowd_frames_dump_read(copy, size, &d, &err);
            if (r == CROWD_OK) {
                accepted++;
                CHECK(crowd_vertex_frames_validate(&d.frames, &err) == CROWD_OK);
                crowd_frames_dump_free(&d);
            } else {
                CHECKF(err.message[0] && d.storage == NULL, "byte %zu = %u", at, values[k]);
            }
        }
    printf("  hostile: %zu prefixes refused; %u of %zu header/clip corruptions still legal\n", size, accepted,
           header_and_clips * sizeof values);
    /* a NaN position, an index out of range, a clip beyond the frames */
    size_t positions_at = size - sizeof tiny_positions;
    memcpy(copy, bytes, size);
    memcpy(copy + positions_at + 4, &(float){NAN}, 4);
    CHECK(crowd_frames_dump_read(copy, size, &d, &err) != CROWD_OK && strstr(err.message, "finite"));
    memcpy(copy, bytes, size);
    copy[64 + 4 + 2 * 56] = 9; /* indices[0] = 9 of 8 vertices */
    CHECK(crowd_frames_dump_read(copy, size, &d, &err) != CROWD_OK && strstr(err.message, "out of range"));
    memcpy(copy, bytes, size);
    copy[64 + 4 + 56 + 36] = 7; /* clip "pose" 4..11 of 6 frames */
    CHECK(crowd_frames_dump_read(copy, size, &d, &err) != CROWD_OK && strstr(err.message, "outside"));
    free(copy);
    crowd_frames_dump_bytes_free(bytes);
}

/* Where docs/frames-dump.md is precise, the reader is too: a stride marked known must be a number,
 * names must be UTF-8, and a normal of any finite non-zero length is made unit (3e38 and 1e-30
 * overflow or vanish when squared). */
static void dump_reader_follows_the_spec(void)
{
    crowd_vertex_frames f = tiny_frames();
    float normals[6 * 8 * 3];
    static const float lengths[] = {3e38f, 1e-30f, 1e-40f, 1.0f};
    for (int i = 0; i < 6 * 8; i++) /* along +Y, -X and a diagonal, at each of the lengths */
        for (int k = 0; k < 3; k++)
            normals[3 * i + k] = lengths[i % 4] * (i % 3 == 0 ? (k == 1) : i % 3 == 1 ? -(k == 0) : 1.0f);
    f.normals = normals;
    uint8_t *bytes = NULL;
    size_t size = 0;
    crowd_error err = {0};
    REQUIRE(crowd_frames_dump_write(&f, &bytes, &size, &err) == CROWD_OK);
    crowd_frames_dump d;
    CHECKF(crowd_frames_dump_read(bytes, size, &d, &err) == CROWD_OK, "%s", err.message);
    float worst = 0.0f;
    for (int i = 0; d.storage && i < 6 * 8; i++) {
        const float *n = d.frames.normals + 3 * i;
        float expect = i % 3 == 2 ? 1.0f / sqrtf(3.0f) : 1.0f;
        worst = fmaxf(worst, fabsf(sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]) - 1.0f));
        worst = fmaxf(worst, fabsf(fabsf(n[i % 3 == 1 ? 0 : 1]) - expect));
    }
    CHECKF(worst < 1e-6f, "normals of length 3e38 .. 1e-40 read back %g off unit", (double)worst);
    crowd_frames_dump_free(&d);
    crowd_bake_output out;
    crowd_bake_desc desc = {.lod_count = 1};
    CHECKF(crowd_bake_frames(&f, &desc, &out, &err) == CROWD_OK, "%s", err.message);
    crowd_bake_output_free(&out);
    normals[4] = 0.0f, normals[3] = 0.0f, normals[5] = 0.0f; /* a zero normal stays refused */
    CHECK(crowd_vertex_frames_validate(&f, &err) != CROWD_OK && strstr(err.message, "normal zero"));

    uint8_t *copy = malloc(size);
    REQUIRE(copy);
    size_t clips_at = 64 + 4; /* the header, then "tiny" */
    memcpy(copy, bytes, size);
    memcpy(copy + clips_at + 56 + 48, &(float){NAN}, 4); /* "pose": stride known (0), now NaN */
    CHECK(crowd_frames_dump_read(copy, size, &d, &err) != CROWD_OK && strstr(err.message, "not a number"));
    static const char *const bad_names[] = {"s\xC3y", "\xFFway", "s\xC0\xA1y", "s\xED\xA0\x80", "s\xF4\x90\x80\x80"};
    for (size_t k = 0; k < sizeof bad_names / sizeof *bad_names; k++) {
        memcpy(copy, bytes, size);
        memset(copy + clips_at, 0, 32);
        memcpy(copy + clips_at, bad_names[k], strlen(bad_names[k]));
        err.message[0] = '\0';
        CHECKF(crowd_frames_dump_read(copy, size, &d, &err) != CROWD_OK && strstr(err.message, "UTF-8"),
               "clip name %zu: %s", k, err.message);
    }
    memcpy(copy, bytes, size);
    memcpy(copy + clips_at, "s\xC3\xA9\xE2\x82\xACy", 7); /* "s", e acute, the euro sign, "y": fine */
    CHECKF(crowd_frames_dump_read(copy, size, &d, &err) == CROWD_OK, "%s", err.message);
    crowd_frames_dump_free(&d);
    memcpy(copy, bytes, size);
    copy[64 + 1] = 0xFF; /* the source name "tiny" */
    CHECK(crowd_frames_dump_read(copy, size, &d, &err) != CROWD_OK && strstr(err.message, "UTF-8"));
    crowd_frames_clip named[2] = {tiny_clips[0], tiny_clips[1]};
    named[1].name = "p\xFFse";
    f.clips = named;
    f.normals = NULL;
    CHECK(crowd_vertex_frames_validate(&f, &err) != CROWD_OK && strstr(err.message, "UTF-8"));
    free(copy);
    crowd_frames_dump_bytes_free(bytes);
}

/* A character needs a size: frames that are one point, or 3.8e-37 m across, are refused with a
 * message, never baked into a file the loader then refuses (whatever crowd_bake hands out loads). */
static void sizeless_characters_refused(void)
{
    crowd_vertex_frames f = tiny_frames();
    float positions[6 * 8 * 3];
    static const float factors[] = {0.0f, 1e-37f, 1e-5f};
    for (size_t k = 0; k < sizeof factors / sizeof *factors; k++) {
        for (size_t i = 0; i < sizeof positions / sizeof *positions; i++)
            positions[i] = tiny_positions[i] * factors[k];
        f.positions = positions;
        crowd_bake_output out = {0};
        crowd_bake_desc desc = {.lod_count = 1};
        crowd_error err = {0};
        crowd_result r = crowd_bake_frames(&f, &desc, &out, &err);
        CHECKF(r == CROWD_ERROR_INVALID_DATA && strstr(err.message, "m over all its frames"), "positions x %g: %s (%s)",
               (double)factors[k], crowd_result_name(r), err.message);
        CHECK(out.bytes == NULL);
        crowd_bake_output_free(&out);
    }
    /* full size but for a rest pose (frame 0) shrunk to 1e-41 m: what the bake would write is checked
     * by the loader before it is handed out */
    memcpy(positions, tiny_positions, sizeof positions);
    for (int i = 0; i < 8 * 3; i++)
        positions[i] *= 1e-41f;
    f.positions = positions;
    crowd_bake_output out = {0};
    crowd_error err = {0};
    crowd_result r = crowd_bake_frames(&f, &(crowd_bake_desc){.lod_count = 1}, &out, &err);
    if (r == CROWD_OK) {
        crowd_asset a;
        CHECKF(crowd_asset_load_memory(&a, out.bytes, out.size, &err) == CROWD_OK, "baked but refused: %s",
               err.message);
        crowd_asset_free(&a);
    } else {
        printf("  a rest pose of 1e-41 m: %s\n", err.message);
        CHECK(out.bytes == NULL && err.message[0]);
    }
    crowd_bake_output_free(&out);
}

static void bones_refused(void)
{
    crowd_vertex_frames f = tiny_frames();
    crowd_bake_desc desc = {.bones = true, .lod_count = 1};
    crowd_bake_output out;
    crowd_error err = {0};
    CHECK(crowd_bake_frames(&f, &desc, &out, &err) == CROWD_ERROR_ARGUMENT && strstr(err.message, "no skeleton"));
    crowd_rig rig;
    REQUIRE(crowd_rig_from_frames(&f, &rig, &err) == CROWD_OK);
    desc.rig = &rig;
    CHECK(crowd_bake(&desc, &out, &err) == CROWD_ERROR_ARGUMENT && strstr(err.message, "no skeleton"));
    crowd_rig_free(&rig);
}

/* A critter (a capture of seed 3) through a dump, baked and verified against the dumped frames. */
static void critter_dump_bake_verify(crowd_critter_kind kind, const crowd_critter *captured)
{
    const crowd_critter c = *captured;
    crowd_error err = {0};
    crowd_critter_desc again;
    CHECKF(crowd_critter_parse(c.source_name, &again) && again.kind == kind && again.seed == 3, "%s", c.source_name);
    uint8_t *bytes = NULL;
    size_t size = 0;
    crowd_frames_dump d = {0};
    crowd_bake_output out = {0};
    crowd_asset asset = {0};
    crowd_rig rig = {0};
    crowd_verify_report report = {0};
    REQUIRE(crowd_frames_dump_write(&c.frames, &bytes, &size, &err) == CROWD_OK);
    REQUIRE(crowd_frames_dump_read(bytes, size, &d, &err) == CROWD_OK);
    crowd_bake_desc bd = {0};
    if (crowd_bake_frames(&d.frames, &bd, &out, &err) != CROWD_OK ||
        crowd_asset_load_memory(&asset, out.bytes, out.size, &err) != CROWD_OK ||
        crowd_rig_from_frames(&d.frames, &rig, &err) != CROWD_OK ||
        crowd_verify(&asset, &rig, &report, &err) != CROWD_OK) {
        CHECKF(0, "%s: %s", crowd_critter_kind_name(kind), err.message);
        goto done;
    }
    CHECKF(report.passed, "%s: %s", crowd_critter_kind_name(kind), report.failure);
    CHECK(report.position_max_mm <= report.position_bound_mm);
    CHECK(asset.bones.data == NULL && asset.lod_count >= 2);
    printf("  %s seed 3: %u vertices, %u frames, %zu bytes dump, %zu bytes .crowd, max error %.4f mm (bound %.4f)\n",
           crowd_critter_kind_name(kind), asset.vertex_count, asset.frame_count, size, out.size, report.position_max_mm,
           report.position_bound_mm);
    for (uint32_t i = 0; i < asset.clip_count && i < 3; i++) {
        const crowd_clip *clip = &asset.clips[i];
        const crowd_critter_clip_stats *cs = &c.clip_stats[i];
        /* the seam pops no more than a typical frame moves */
        CHECKF(cs->seam_rms_m <= 0.5 * cs->step_rms_m + 1e-5, "%s %s: seam rms %.3f mm, step %.3f mm",
               crowd_critter_kind_name(kind), clip->name, cs->seam_rms_m * 1e3, cs->step_rms_m * 1e3);
        if (i == 0) {
            CHECK(clip->stride == 0.0f);
            continue;
        }
        /* the bake measured the stride from the planted feet; it must match the distance travelled */
        double rel = fabs(clip->stride - cs->travelled_m) / cs->travelled_m;
        CHECKF(cs->travelled_m > 0.05 && rel < 2e-3, "%s %s: baked stride %.4f m, travelled %.4f m",
               crowd_critter_kind_name(kind), clip->name, (double)clip->stride, cs->travelled_m);
        printf("    %-5s loop %3u frames from %3u, seam rms %.3f mm (step %.3f), stride %.4f m, travelled %.4f m\n",
               clip->name, cs->loop_frames, cs->loop_start, cs->seam_rms_m * 1e3, cs->step_rms_m * 1e3,
               (double)clip->stride, cs->travelled_m);
    }
done:
    crowd_verify_report_free(&report);
    crowd_rig_free(&rig);
    crowd_asset_free(&asset);
    crowd_bake_output_free(&out);
    crowd_frames_dump_free(&d);
    crowd_frames_dump_bytes_free(bytes);
}

/* Determinism per seed: a second capture of seed 1 dumps the same bytes as the first (`first`, its
 * dump), and seed 2's capture (`other`) dumps different ones. */
static void critter_is_deterministic(crowd_critter_kind kind, const uint8_t *first, size_t first_size,
                                     const crowd_critter *other)
{
    crowd_critter again;
    crowd_error err;
    crowd_critter_desc d = {.kind = kind, .seed = 1};
    REQUIRE(crowd_critter_capture(&d, &again, &err) == CROWD_OK);
    uint8_t *ba, *bo;
    size_t sa, so;
    REQUIRE(crowd_frames_dump_write(&again.frames, &ba, &sa, &err) == CROWD_OK);
    REQUIRE(crowd_frames_dump_write(&other->frames, &bo, &so, &err) == CROWD_OK);
    CHECKF(sa == first_size && !memcmp(ba, first, sa), "%s seed 1: two captures differ", crowd_critter_kind_name(kind));
    CHECKF(so != first_size || memcmp(bo, first, so) != 0, "%s: seeds 1 and 2 alike", crowd_critter_kind_name(kind));
    crowd_frames_dump_bytes_free(ba), crowd_frames_dump_bytes_free(bo);
    crowd_critter_free(&again);
}

/* Every name parses back to its kind; names are lower-case single tokens short enough for the
 * parser's buffer; each kind names a plan, the plan kinds themselves; unknown names are refused. */
static void critter_names_and_plans(void)
{
    for (int k = 0; k < CROWD_CRITTER_KIND_COUNT; k++) {
        crowd_critter_kind kind = (crowd_critter_kind)k, back = CROWD_CRITTER_KIND_COUNT;
        const char *name = crowd_critter_kind_name(kind);
        REQUIRE(name && crowd_critter_kind_summary(kind));
        CHECKF(crowd_critter_kind_parse(name, &back) && back == kind, "%s", name);
        CHECKF(strlen(name) >= 3 && strlen(name) <= 15 && strspn(name, "abcdefghijklmnopqrstuvwxyz") == strlen(name),
               "%s", name);
        crowd_critter_kind plan = crowd_critter_kind_plan(kind);
        CHECKF(plan == CROWD_CRITTER_BLOB || plan == CROWD_CRITTER_QUAD || plan == CROWD_CRITTER_TUBE, "%s", name);
        CHECKF(k > CROWD_CRITTER_TUBE || plan == kind, "%s", name);
    }
    CHECK(CROWD_CRITTER_KIND_COUNT >= 40);
    CHECK(crowd_critter_kind_name(CROWD_CRITTER_KIND_COUNT) == NULL);
    CHECK(crowd_critter_kind_plan(CROWD_CRITTER_KIND_COUNT) == CROWD_CRITTER_KIND_COUNT);
    CHECK(crowd_critter_kind_plan(CROWD_CRITTER_PENGUIN) == CROWD_CRITTER_BLOB);
    CHECK(crowd_critter_kind_plan(CROWD_CRITTER_GIRAFFE) == CROWD_CRITTER_QUAD);
    CHECK(crowd_critter_kind_plan(CROWD_CRITTER_WOOLLYBEAR) == CROWD_CRITTER_TUBE);
    crowd_critter_desc p;
    CHECK(crowd_critter_parse("quad:42", &p) && p.kind == CROWD_CRITTER_QUAD && p.seed == 42);
    CHECK(crowd_critter_parse("critter tube seed=7 fps=30", &p) && p.kind == CROWD_CRITTER_TUBE && p.seed == 7);
    CHECK(crowd_critter_parse("penguin", &p) && p.kind == CROWD_CRITTER_PENGUIN && p.seed == 1);
    CHECK(crowd_critter_parse("giraffe:9", &p) && p.kind == CROWD_CRITTER_GIRAFFE && p.seed == 9);
    CHECK(crowd_critter_parse("critter woollybear seed=4 fps=24", &p) && p.kind == CROWD_CRITTER_WOOLLYBEAR &&
          p.seed == 4 && p.fps == 24.0f);
    crowd_critter_kind k;
    CHECK(crowd_critter_kind_parse("dachshund", &k) && k == CROWD_CRITTER_DACHSHUND);
    static const char *const unknown[] = {"dragon", "Penguin", "penguins", "peng", "", "woolly bear", "blob ", "quad2"};
    for (size_t i = 0; i < sizeof unknown / sizeof *unknown; i++)
        CHECKF(!crowd_critter_kind_parse(unknown[i], &k) && !crowd_critter_parse(unknown[i], &p), "\"%s\"", unknown[i]);
    CHECK(!crowd_critter_parse("dragon:3", &p) && !crowd_critter_parse("critter dragon seed=1 fps=30", &p));
    CHECK(!crowd_critter_parse("blob:", &p) && !crowd_critter_parse("blob:-1", &p));
}

/* What a capture's first idle frame says about the look: size, proportions, detail and palette. */
enum { D_HEIGHT, D_LENGTH, D_WIDTH, D_VERTICES, D_RED, D_GREEN, D_BLUE, D_BRIGHTNESS, DESCRIPTORS };
static const char *const descriptor_names[DESCRIPTORS] = {"height (m)", "length/height", "width/height", "vertices",
                                                          "red share",  "green share",   "blue share",   "brightness"};

#define DISTINCT_SEEDS 4
_Static_assert(DISTINCT_SEEDS >= 3, "critters_every_kind takes seeds 2 and 3 for its other checks");
#define DISTINCT_MARGIN 0.02 /* the gap, relative to the larger value either side of it */

static void describe(const crowd_critter *c, double d[DESCRIPTORS])
{
    const crowd_vertex_frames *f = &c->frames;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY}, rgb[3] = {0, 0, 0};
    for (uint32_t v = 0; v < f->vertex_count; v++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], f->positions[3 * v + k]), hi[k] = fmax(hi[k], f->positions[3 * v + k]);
            rgb[k] += f->colors[4 * v + k] / 255.0;
        }
    double height = hi[1] - lo[1], sum = rgb[0] + rgb[1] + rgb[2];
    d[D_HEIGHT] = height;
    d[D_LENGTH] = (hi[2] - lo[2]) / height;
    d[D_WIDTH] = (hi[0] - lo[0]) / height;
    d[D_VERTICES] = f->vertex_count;
    d[D_RED] = rgb[0] / sum, d[D_GREEN] = rgb[1] / sum, d[D_BLUE] = rgb[2] / sum;
    d[D_BRIGHTNESS] = sum / (3.0 * f->vertex_count);
}

/* The critter stands on the ground (y = 0) and nothing of it sinks through: every frame's lowest
 * point is at most 2 mm below, and the first idle frame's within 3 mm of it (not floating). */
static void check_ground(const crowd_critter *c)
{
    const crowd_vertex_frames *f = &c->frames;
    double lowest = INFINITY, first = INFINITY;
    for (uint32_t i = 0; i < f->frame_count; i++) {
        const float *p = f->positions + (size_t)i * f->vertex_count * 3;
        double low = INFINITY;
        for (uint32_t v = 0; v < f->vertex_count; v++)
            low = fmin(low, p[3 * v + 1]);
        lowest = fmin(lowest, low);
        first = i == 0 ? low : first;
    }
    CHECKF(lowest >= -0.002 && fabs(first) <= 0.003, "%s: lowest %.4f m, first idle frame's %.4f m", c->source_name,
           lowest, first);
}

/* How far apart two kinds' ranges over the seeds are on their best descriptor (relative gap;
 * negative when they overlap on every one). */
static double separation(const double lo[][DESCRIPTORS], const double hi[][DESCRIPTORS], int a, int b, int *best)
{
    double margin = -INFINITY;
    for (int d = 0; d < DESCRIPTORS; d++) {
        double gap = fmax(lo[b][d] - hi[a][d], lo[a][d] - hi[b][d]);
        double scale = fmax(fmax(fabs(hi[a][d]), fabs(hi[b][d])), 1e-9);
        if (gap / scale > margin)
            margin = gap / scale, *best = d;
    }
    return margin;
}

/* Every kind over seeds 1..4, each captured once (a capture is most of this test's time, under ASan
 * most of the tree's longest test), and from those captures:
 *  - every pair of kinds differs in at least one descriptor whose ranges over the seeds do not
 *    overlap (by DISTINCT_MARGIN): a kind's look holds across its seeds and no two kinds share one;
 *  - each stands on the ground and closes its loops;
 *  - determinism per seed (critter_is_deterministic, against seed 1's dump and seed 2's capture);
 *  - seed 3 through a dump, the bake and the verifier (critter_dump_bake_verify). */
static void critters_every_kind(void)
{
    static double lo[CROWD_CRITTER_KIND_COUNT][DESCRIPTORS], hi[CROWD_CRITTER_KIND_COUNT][DESCRIPTORS];
    uint8_t *first = NULL;
    size_t first_size = 0;
    for (int k = 0; k < CROWD_CRITTER_KIND_COUNT; k++)
        for (uint32_t seed = 1; seed <= DISTINCT_SEEDS; seed++) {
            crowd_critter_desc desc = {.kind = (crowd_critter_kind)k, .seed = seed};
            crowd_critter c;
            crowd_error err;
            REQUIRE(crowd_critter_capture(&desc, &c, &err) == CROWD_OK);
            if (seed == 1) {
                crowd_frames_dump_bytes_free(first);
                first = NULL;
                REQUIRE(crowd_frames_dump_write(&c.frames, &first, &first_size, &err) == CROWD_OK);
            } else if (seed == 2)
                critter_is_deterministic((crowd_critter_kind)k, first, first_size, &c);
            else if (seed == 3)
                critter_dump_bake_verify((crowd_critter_kind)k, &c);
            double d[DESCRIPTORS];
            describe(&c, d);
            check_ground(&c);
            /* a kind built on a plan closes its loops: its springs settle (the plan kinds keep their
             * seams as they were; quad seed 2's run is 56 mm apart across its seam) */
            for (int clip = 0; clip < 3 && k > CROWD_CRITTER_TUBE; clip++)
                CHECKF(c.clip_stats[clip].seam_max_m <= 0.001, "%s clip %d: seam %.2f mm", c.source_name, clip,
                       c.clip_stats[clip].seam_max_m * 1e3);
            for (int i = 0; i < DESCRIPTORS; i++) {
                lo[k][i] = seed == 1 ? d[i] : fmin(lo[k][i], d[i]);
                hi[k][i] = seed == 1 ? d[i] : fmax(hi[k][i], d[i]);
            }
            crowd_critter_free(&c);
        }
    crowd_frames_dump_bytes_free(first);
    double closest = INFINITY;
    int pair[2] = {0, 0}, which = 0;
    for (int a = 0; a < CROWD_CRITTER_KIND_COUNT; a++)
        for (int b = a + 1; b < CROWD_CRITTER_KIND_COUNT; b++) {
            int best = 0;
            double margin = separation((const double(*)[DESCRIPTORS])lo, (const double(*)[DESCRIPTORS])hi, a, b, &best);
            CHECKF(margin >= DISTINCT_MARGIN, "%s and %s: closest on %s, %s %.4f..%.4f, %s %.4f..%.4f",
                   crowd_critter_kind_name((crowd_critter_kind)a), crowd_critter_kind_name((crowd_critter_kind)b),
                   descriptor_names[best], crowd_critter_kind_name((crowd_critter_kind)a), lo[a][best], hi[a][best],
                   crowd_critter_kind_name((crowd_critter_kind)b), lo[b][best], hi[b][best]);
            if (margin < closest)
                closest = margin, pair[0] = a, pair[1] = b, which = best;
        }
    int a = pair[0], b = pair[1];
    printf("  %d kinds, seeds 1..%d: closest pair %s / %s, apart on %s by %.1f %% (%.4f..%.4f against %.4f..%.4f)\n",
           CROWD_CRITTER_KIND_COUNT, DISTINCT_SEEDS, crowd_critter_kind_name((crowd_critter_kind)a),
           crowd_critter_kind_name((crowd_critter_kind)b), descriptor_names[which], closest * 100.0, lo[a][which],
           hi[a][which], lo[b][which], hi[b][which]);
}

int main(void)
{
    RUN_TEST(dump_round_trip);
    RUN_TEST(hostile_dumps);
    RUN_TEST(dump_reader_follows_the_spec);
    RUN_TEST(sizeless_characters_refused);
    RUN_TEST(bones_refused);
    RUN_TEST(critter_names_and_plans);
    RUN_TEST(critters_every_kind);
    TEST_MAIN_END();
}
