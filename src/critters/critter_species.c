/* The critter kinds: one row each, a body plan with a parameter profile (critter_internal.h).
 *
 * A profile narrows the ranges the plan draws from, so every seed of a kind stays recognisably that
 * kind: the kinds of one plan are told apart by size, proportions, palette and extra parts, and a
 * seed only moves a kind within its ranges. The plan kinds (blob, quad, tube) keep every range at
 * {0, 0}, the plan's own, and draw exactly what they always drew. Sizes are metres, colours HSV
 * (hue 0..1 from red), extras' sizes are in radii of the part they sit on. */
#include <string.h>

#include "critters/critter_internal.h"

#define R(lo, hi) \
    {             \
        lo, hi    \
    } /* a range (critter_range) */
#define BLACK 0x1A1A1A
#define WHITE 0xF4F2EC

/* A table, laid out by hand (clang-format would put every field on a line of its own): a few lines
 * per kind, each extra named. */
// clang-format off
static const critter_species species[CROWD_CRITTER_KIND_COUNT] = {
    [CROWD_CRITTER_BLOB] = {"blob", CROWD_CRITTER_BLOB,
        "a soft-bodied biped: squashy egg body on two stubby legs, dangling arms, big eyes, a tuft"},
    [CROWD_CRITTER_QUAD] = {"quad", CROWD_CRITTER_QUAD,
        "a trotting quadruped: long body, four legs, neck and head with snout and ears, a springy tail"},
    [CROWD_CRITTER_TUBE] = {"tube", CROWD_CRITTER_TUBE,
        "a crawling tube: 8-12 striped segments moved by a wave of steps from tail to head, spring antennae"},

    /* ---- blob plan ---- */
    [CROWD_CRITTER_PENGUIN] = {"penguin", CROWD_CRITTER_BLOB,
        "blob plan: tall and black with a white belly, orange beak and feet, short flippers", FEAT_NO_TUFT,
        .blob = {.body = R(0.2, 0.22), .tall = R(1.6, 1.7), .deep = R(0.9, 1.0), .leg = R(0.11, 0.12),
                 .hips = R(0.45, 0.5), .leg_r = R(0.03, 0.035), .foot = R(0.09, 0.1), .arm = R(0.13, 0.15),
                 .arm_r = R(0.04, 0.045), .eye = R(0.2, 0.22), .hue = R(0.07, 0.08), .sat = R(0.1, 0.15),
                 .val = R(0.12, 0.16), .accent = R(0.0, 0.01), .feet_sv = {0.9, 0.95}},
        .extras = {{EXTRA_BUMP, HOST_BODY, 1, {0, -0.35, 1}, 0.75, {0.6, 0.35, 0.72}, .rgb = WHITE, /* belly */
                    .paint = PAINT_RGB},
                   {EXTRA_BUMP, HOST_BODY, 1, {0, 0.3, 1}, 0.95, {0.13, 0.38, 0.09}, /* beak */
                    .paint = PAINT_ACCENT}}},
    [CROWD_CRITTER_FROG] = {"frog", CROWD_CRITTER_BLOB,
        "blob plan: flat and wide, green with dark spots, eyes on top, big feet", FEAT_NO_TUFT,
        .blob = {.body = R(0.26, 0.29), .tall = R(0.62, 0.7), .deep = R(1.0, 1.1), .leg = R(0.1, 0.12),
                 .hips = R(0.55, 0.6), .leg_r = R(0.04, 0.05), .foot = R(0.12, 0.14), .arm = R(0.1, 0.12),
                 .arm_r = R(0.03, 0.035), .eye = R(0.3, 0.34), .hue = R(0.28, 0.31), .sat = R(0.6, 0.7),
                 .val = R(0.55, 0.65), .accent = R(0.02, 0.05), .feet_sv = {0.7, 0.45}, .eyes_at = {0.45, 0.85, 0.45}},
        .extras = {{EXTRA_BUMP, HOST_BODY, 6, .out = 0.97, .size = {0.16, 0.05, 0.16}, .paint = PAINT_RGB, /* spots */
                    .rgb = 0x2E5522}}},
    [CROWD_CRITTER_CHICK] = {"chick", CROWD_CRITTER_BLOB,
        "blob plan: small and yellow, orange beak and feet, a tuft", 0,
        .blob = {.body = R(0.14, 0.16), .tall = R(1.0, 1.1), .deep = R(0.95, 1.0), .leg = R(0.08, 0.1),
                 .leg_r = R(0.015, 0.02), .foot = R(0.05, 0.06), .arm = R(0.07, 0.09), .arm_r = R(0.025, 0.03),
                 .eye = R(0.25, 0.28), .tuft = R(0.05, 0.07), .hue = R(0.14, 0.15), .sat = R(0.75, 0.8),
                 .val = R(0.95, 0.98), .accent = R(-0.08, -0.07), .feet_sv = {0.9, 0.95}},
        .extras = {{EXTRA_BUMP, HOST_BODY, 1, {0, 0.2, 1}, 0.95, {0.14, 0.3, 0.09}, .paint = PAINT_ACCENT}}}, /* beak */
    [CROWD_CRITTER_YETI] = {"yeti", CROWD_CRITTER_BLOB,
        "blob plan: big and white, long arms, a blue-grey face", 0,
        .blob = {.body = R(0.42, 0.46), .tall = R(1.45, 1.55), .deep = R(0.9, 1.0), .leg = R(0.32, 0.36),
                 .leg_r = R(0.05, 0.055), .foot = R(0.13, 0.15), .arm = R(0.5, 0.56), .arm_r = R(0.06, 0.07),
                 .eye = R(0.12, 0.14), .tuft = R(0.12, 0.16), .hue = R(0.55, 0.6), .sat = R(0.05, 0.1),
                 .val = R(0.92, 0.96), .accent = R(0.0, 0.02), .feet_sv = {0.3, 0.6}},
        .extras = {{EXTRA_BUMP, HOST_BODY, 1, {0, 0.15, 1}, 0.8, {0.5, 0.25, 0.35}, .paint = PAINT_ACCENT}}}, /* face */
    [CROWD_CRITTER_IMP] = {"imp", CROWD_CRITTER_BLOB,
        "blob plan: small and red, black feet, two black horns", FEAT_NO_TUFT,
        .blob = {.body = R(0.17, 0.19), .tall = R(1.15, 1.25), .leg = R(0.18, 0.2), .arm = R(0.2, 0.22),
                 .eye = R(0.2, 0.22), .hue = R(0.0, 0.015), .sat = R(0.8, 0.85), .val = R(0.75, 0.8),
                 .accent = R(0.0, 0.01), .feet_sv = {0.3, 0.12}},
        .extras = {{EXTRA_HORN, HOST_BODY, 2, {0.35, 0.9, 0.1}, 0.9, {0.55, 0.13, 0.02}, {0.3, 1, 0.1}, /* horns */
                    {0.15, 0, -0.3}, PAINT_RGB, BLACK}}},
    [CROWD_CRITTER_POTATO] = {"potato", CROWD_CRITTER_BLOB,
        "blob plan: squat and brown with dark eyes in its skin, barely any legs", FEAT_NO_TUFT,
        .blob = {.body = R(0.24, 0.27), .tall = R(0.8, 0.88), .deep = R(1.1, 1.2), .leg = R(0.05, 0.07),
                 .leg_r = R(0.03, 0.035), .arm = R(0.08, 0.1), .arm_r = R(0.025, 0.03), .eye = R(0.14, 0.16),
                 .hue = R(0.08, 0.09), .sat = R(0.45, 0.5), .val = R(0.55, 0.6), .accent = R(0.0, 0.01),
                 .feet_sv = {0.5, 0.35}},
        .extras = {{EXTRA_BUMP, HOST_BODY, 7, .out = 0.97, .size = {0.1, 0.04, 0.1}, /* eyes in the skin */
                    .paint = PAINT_RGB, .rgb = 0x4A3018}}},
    [CROWD_CRITTER_BEAN] = {"bean", CROWD_CRITTER_BLOB,
        "blob plan: tall and narrow, green, a sprout on top", 0,
        .blob = {.body = R(0.12, 0.135), .tall = R(2.0, 2.2), .deep = R(0.9, 1.0), .leg = R(0.1, 0.12),
                 .leg_r = R(0.025, 0.03), .arm = R(0.12, 0.14), .arm_r = R(0.02, 0.025), .eye = R(0.3, 0.34),
                 .tuft = R(0.08, 0.1), .hue = R(0.3, 0.33), .sat = R(0.55, 0.6), .val = R(0.7, 0.75),
                 .accent = R(-0.1, -0.08)}},
    [CROWD_CRITTER_GNOME] = {"gnome", CROWD_CRITTER_BLOB,
        "blob plan: a blue coat under a tall red hat, white beard, round nose", FEAT_NO_TUFT,
        .blob = {.body = R(0.2, 0.22), .tall = R(1.2, 1.3), .leg = R(0.1, 0.12), .leg_r = R(0.035, 0.045),
                 .arm = R(0.14, 0.16), .eye = R(0.16, 0.18), .hue = R(0.6, 0.62), .sat = R(0.6, 0.65),
                 .val = R(0.5, 0.55), .accent = R(0.45, 0.47), .feet_sv = {0.6, 0.35}},
        .extras = {{EXTRA_HORN, HOST_BODY, 1, {0, 1, 0}, 0.75, {1.6, 0.8, 0.05}, {0, 1, 0}, {0, -0.2, -0.6}, /* hat */
                    PAINT_RGB, 0xC02020},
                   {EXTRA_BUMP, HOST_BODY, 1, {0, -0.3, 1}, 0.8, {0.55, 0.35, 0.55}, .paint = PAINT_RGB, /* beard */
                    .rgb = WHITE},
                   {EXTRA_BUMP, HOST_BODY, 1, {0, 0.22, 1}, 1.0, {0.17, 0.17, 0.15}, .paint = PAINT_RGB, /* nose */
                    .rgb = 0xF0A090}}},
    [CROWD_CRITTER_OWL] = {"owl", CROWD_CRITTER_BLOB,
        "blob plan: brown with huge eyes, ear tufts, a hooked beak, a pale breast", FEAT_NO_TUFT,
        .blob = {.body = R(0.24, 0.26), .tall = R(1.25, 1.35), .leg = R(0.1, 0.11), .arm = R(0.18, 0.2),
                 .arm_r = R(0.05, 0.055), .eye = R(0.36, 0.4), .hue = R(0.07, 0.08), .sat = R(0.45, 0.5),
                 .val = R(0.45, 0.5), .accent = R(0.05, 0.07), .feet_sv = {0.8, 0.85}, .eyes_at = {0.36, 0.45, 0.85}},
        .extras = {{EXTRA_HORN, HOST_BODY, 2, {0.45, 0.85, 0.1}, 0.9, {0.5, 0.14, 0.02}, {0.35, 1, 0}}, /* ear tufts */
                   {EXTRA_BUMP, HOST_BODY, 1, {0, 0.22, 1}, 0.95, {0.1, 0.2, 0.14}, .paint = PAINT_RGB, /* beak */
                    .rgb = 0xD8A020},
                   {EXTRA_BUMP, HOST_BODY, 1, {0, -0.4, 1}, 0.75, {0.6, 0.35, 0.6}, .paint = PAINT_RGB, /* breast */
                    .rgb = 0xE8D2A8}}},
    [CROWD_CRITTER_MUSHROOM] = {"mushroom", CROWD_CRITTER_BLOB,
        "blob plan: a pale stem under a wide red cap with white spots", FEAT_NO_TUFT,
        .blob = {.body = R(0.13, 0.15), .tall = R(1.3, 1.4), .leg = R(0.08, 0.1), .arm = R(0.1, 0.12),
                 .eye = R(0.22, 0.25), .hue = R(0.11, 0.12), .sat = R(0.12, 0.16), .val = R(0.9, 0.93),
                 .accent = R(0.0, 0.01), .feet_sv = {0.3, 0.7}},
        .extras = {{EXTRA_BUMP, HOST_BODY, 1, {0, 1, 0}, 0.95, {1.8, 0.7, 1.8}, .paint = PAINT_RGB, /* cap */
                    .rgb = 0xC42A1E},
                   {EXTRA_BUMP, HOST_EXTRA(0), 6, .out = 0.97, .size = {0.16, 0.06, 0.16}, /* spots on the cap */
                    .paint = PAINT_RGB, .rgb = WHITE}}},
    [CROWD_CRITTER_ALIEN] = {"alien", CROWD_CRITTER_BLOB,
        "blob plan: pale green, huge eyes, thin long limbs, clubbed antennae", FEAT_NO_TUFT,
        .blob = {.body = R(0.18, 0.2), .tall = R(1.35, 1.45), .leg = R(0.2, 0.22), .leg_r = R(0.022, 0.026),
                 .arm = R(0.28, 0.32), .arm_r = R(0.018, 0.022), .eye = R(0.42, 0.46), .hue = R(0.36, 0.38),
                 .sat = R(0.35, 0.4), .val = R(0.72, 0.76), .accent = R(0.0, 0.01)},
        .extras = {{EXTRA_HORN, HOST_BODY, 2, {0.3, 0.95, 0.2}, 0.95, {0.9, 0.04, 0.1}, {0.3, 1, 0.2}, /* antennae */
                    {0.3, -0.2, 0.4}}}},

    /* ---- quad plan ---- */
    [CROWD_CRITTER_DOG] = {"dog", CROWD_CRITTER_QUAD,
        "quad plan: golden, floppy ears, a black nose", FEAT_DROOPY_EARS,
        .quad = {.body = R(0.32, 0.36), .wide = R(0.45, 0.5), .tall = R(1.0, 1.1), .leg = R(0.26, 0.3),
                 .leg_r = R(0.04, 0.045), .neck = R(0.16, 0.2), .head = R(0.11, 0.12), .snout = R(0.9, 1.0),
                 .ear = R(0.1, 0.12), .tail = R(0.3, 0.35), .hue = R(0.09, 0.1), .sat = R(0.55, 0.6),
                 .val = R(0.8, 0.85)},
        .extras = {{EXTRA_BUMP, HOST_SNOUT, 1, {0, 0.3, 1}, 0.95, {0.35, 0.3, 0.3}, .paint = PAINT_RGB, /* nose */
                    .rgb = BLACK}}},
    [CROWD_CRITTER_FOX] = {"fox", CROWD_CRITTER_QUAD,
        "quad plan: orange, a long pointed snout, white chest, a bushy tail", FEAT_PLAIN,
        .quad = {.body = R(0.3, 0.32), .wide = R(0.4, 0.42), .tall = R(0.95, 1.0), .leg = R(0.2, 0.22),
                 .leg_r = R(0.03, 0.035), .neck = R(0.15, 0.17), .head = R(0.1, 0.11), .snout = R(1.0, 1.1),
                 .ear = R(0.12, 0.14), .tail = R(0.42, 0.48), .hue = R(0.055, 0.065), .sat = R(0.85, 0.9),
                 .val = R(0.85, 0.9), .snout_sv = {0.05, 0.95}, .tail_r = 2.2},
        .extras = {{EXTRA_BUMP, HOST_BODY, 1, {0, -0.1, 1}, 0.8, {0.45, 0.3, 0.55}, .paint = PAINT_RGB, /* chest */
                    .rgb = WHITE},
                   {EXTRA_BUMP, HOST_SNOUT, 1, {0, 0.3, 1}, 0.95, {0.3, 0.25, 0.25}, .paint = PAINT_RGB, /* nose */
                    .rgb = BLACK}}},
    [CROWD_CRITTER_CAT] = {"cat", CROWD_CRITTER_QUAD,
        "quad plan: small grey tabby, a short face, pointed ears, a long striped tail", FEAT_STRIPES,
        .quad = {.body = R(0.24, 0.26), .wide = R(0.42, 0.45), .tall = R(0.95, 1.0), .leg = R(0.2, 0.22),
                 .leg_r = R(0.025, 0.03), .neck = R(0.1, 0.12), .head = R(0.1, 0.11), .snout = R(0.5, 0.55),
                 .ear = R(0.08, 0.09), .tail = R(0.45, 0.5), .hue = R(0.08, 0.09), .sat = R(0.06, 0.1),
                 .val = R(0.6, 0.65), .tail_stiff = 0.1, .trim_sv = {0.1, 0.25}},
        .extras = {{EXTRA_BUMP, HOST_BODY, 5, .out = 0.97, .size = {0.35, 0.05, 0.1}, /* tabby stripes */
                    .paint = PAINT_TRIM}}},
    [CROWD_CRITTER_HORSE] = {"horse", CROWD_CRITTER_QUAD,
        "quad plan: tall and chestnut, a long face, a dark mane", 0,
        .quad = {.body = R(0.55, 0.6), .wide = R(0.38, 0.4), .tall = R(1.3, 1.4), .leg = R(0.6, 0.65),
                 .leg_r = R(0.055, 0.06), .neck = R(0.45, 0.5), .head = R(0.14, 0.15), .snout = R(1.2, 1.3),
                 .ear = R(0.1, 0.11), .tail = R(0.5, 0.55), .hue = R(0.05, 0.06), .sat = R(0.65, 0.7),
                 .val = R(0.45, 0.5), .neck_rise = 1.1},
        .extras = {{EXTRA_HORN, HOST_HEAD, 1, {0, 0.75, -0.6}, 0.9, {3.0, 0.3, 0.2}, {0, -0.6, -1}, /* mane */
                    {0, -0.3, 0}, PAINT_TRIM}}},
    [CROWD_CRITTER_GIRAFFE] = {"giraffe", CROWD_CRITTER_QUAD,
        "quad plan: very tall, long legs and neck, brown patches, two ossicones", 0,
        .quad = {.body = R(0.45, 0.5), .wide = R(0.4, 0.42), .tall = R(1.15, 1.2), .leg = R(0.8, 0.85),
                 .leg_r = R(0.045, 0.05), .neck = R(0.9, 1.0), .head = R(0.12, 0.13), .snout = R(1.0, 1.1),
                 .ear = R(0.08, 0.09), .tail = R(0.35, 0.4), .hue = R(0.1, 0.11), .sat = R(0.7, 0.75),
                 .val = R(0.85, 0.9), .neck_rise = 1.4},
        .extras = {{EXTRA_HORN, HOST_HEAD, 2, {0.3, 0.9, -0.2}, 0.9, {0.9, 0.12, 0.16}, {0.15, 1, -0.2}, /* ossicones */
                    .paint = PAINT_TRIM},
                   {EXTRA_BUMP, HOST_BODY, 8, .out = 0.97, .size = {0.28, 0.05, 0.28}, .paint = PAINT_RGB, /* patches */
                    .rgb = 0x8A5220}}},
    [CROWD_CRITTER_DACHSHUND] = {"dachshund", CROWD_CRITTER_QUAD,
        "quad plan: long and low, red-brown, floppy ears, a black nose", FEAT_DROOPY_EARS,
        .quad = {.body = R(0.36, 0.4), .wide = R(0.3, 0.32), .tall = R(1.05, 1.1), .leg = R(0.08, 0.09),
                 .leg_r = R(0.03, 0.035), .neck = R(0.1, 0.12), .head = R(0.1, 0.11), .snout = R(1.0, 1.1),
                 .ear = R(0.12, 0.13), .tail = R(0.25, 0.3), .hue = R(0.03, 0.04), .sat = R(0.75, 0.8),
                 .val = R(0.45, 0.5), .speed = R(1.3, 1.4)},
        .extras = {{EXTRA_BUMP, HOST_SNOUT, 1, {0, 0.3, 1}, 0.95, {0.35, 0.3, 0.3}, .paint = PAINT_RGB, /* nose */
                    .rgb = BLACK}}},
    [CROWD_CRITTER_PIG] = {"pig", CROWD_CRITTER_QUAD,
        "quad plan: pink and round on short legs, a flat snout", 0,
        .quad = {.body = R(0.38, 0.42), .wide = R(0.6, 0.65), .tall = R(0.95, 1.0), .leg = R(0.14, 0.16),
                 .leg_r = R(0.04, 0.045), .neck = R(0.06, 0.08), .head = R(0.15, 0.16), .snout = R(0.55, 0.6),
                 .ear = R(0.08, 0.1), .tail = R(0.12, 0.15), .hue = R(0.96, 0.97), .sat = R(0.3, 0.35),
                 .val = R(0.92, 0.95), .snout_sv = {0.4, 0.9}, .trim_sv = {0.4, 0.75}, .speed = R(1.2, 1.4)},
        .extras = {{EXTRA_BUMP, HOST_SNOUT, 1, {0, 0, 1}, 0.9, {0.75, 0.25, 0.65}, .paint = PAINT_RGB, /* snout disc */
                    .rgb = 0xE08A94}}},
    [CROWD_CRITTER_COW] = {"cow", CROWD_CRITTER_QUAD,
        "quad plan: big, white with black patches, horns", 0,
        .quad = {.body = R(0.6, 0.65), .wide = R(0.5, 0.55), .tall = R(1.2, 1.25), .leg = R(0.5, 0.55),
                 .leg_r = R(0.06, 0.065), .neck = R(0.25, 0.3), .head = R(0.17, 0.18), .snout = R(0.8, 0.85),
                 .ear = R(0.1, 0.11), .tail = R(0.5, 0.55), .hue = R(0.1, 0.11), .sat = R(0.05, 0.08),
                 .val = R(0.92, 0.95), .snout_sv = {0.35, 0.9}, .trim_sv = {0.2, 0.15}},
        .extras = {{EXTRA_HORN, HOST_HEAD, 2, {0.6, 0.75, -0.1}, 0.9, {1.0, 0.14, 0.04}, {1, 0.5, 0.2}, /* horns */
                    {-0.2, 0.6, 0.3}, PAINT_RGB, 0xEDE3C8},
                   {EXTRA_BUMP, HOST_BODY, 6, .out = 0.97, .size = {0.45, 0.05, 0.35}, .paint = PAINT_RGB, /* patches */
                    .rgb = BLACK}}},
    [CROWD_CRITTER_BEAR] = {"bear", CROWD_CRITTER_QUAD,
        "quad plan: big and dark brown, thick legs, round ears", FEAT_NO_EARS,
        .quad = {.body = R(0.55, 0.6), .wide = R(0.6, 0.65), .tall = R(1.1, 1.15), .leg = R(0.35, 0.38),
                 .leg_r = R(0.1, 0.11), .neck = R(0.1, 0.12), .head = R(0.2, 0.22), .snout = R(0.55, 0.6),
                 .ear = R(0.02, 0.03), .tail = R(0.08, 0.1), .hue = R(0.06, 0.07), .sat = R(0.55, 0.6),
                 .val = R(0.3, 0.33), .snout_sv = {0.45, 0.6}, .tail_r = 1.0},
        .extras = {{EXTRA_BUMP, HOST_HEAD, 2, {0.6, 0.8, -0.2}, 0.9, {0.3, 0.1, 0.3}}, /* round ears */
                   {EXTRA_BUMP, HOST_SNOUT, 1, {0, 0.3, 1}, 0.95, {0.35, 0.3, 0.3}, .paint = PAINT_RGB, /* nose */
                    .rgb = BLACK}}},
    [CROWD_CRITTER_MOUSE] = {"mouse", CROWD_CRITTER_QUAD,
        "quad plan: tiny and grey, big round ears, a long thin tail", FEAT_NO_EARS,
        .quad = {.body = R(0.08, 0.09), .wide = R(0.5, 0.55), .tall = R(1.0, 1.05), .leg = R(0.05, 0.06),
                 .leg_r = R(0.012, 0.014), .neck = R(0.03, 0.04), .head = R(0.045, 0.05), .snout = R(0.8, 0.9),
                 .ear = R(0.01, 0.015), .tail = R(0.22, 0.25), .hue = R(0.08, 0.09), .sat = R(0.05, 0.1),
                 .val = R(0.6, 0.65), .snout_sv = {0.35, 0.9}, .tail_r = 0.6, .tail_stiff = 0.3, .speed = R(1.4, 1.5)},
        .extras = {{EXTRA_BUMP, HOST_HEAD, 2, {0.55, 0.8, -0.2}, 0.9, {0.65, 0.08, 0.65}, /* round ears */
                    .paint = PAINT_ACCENT}}},
    [CROWD_CRITTER_LIZARD] = {"lizard", CROWD_CRITTER_QUAD,
        "quad plan: low and green with yellow spots, sprawling legs, a long thick tail",
        FEAT_SPRAWL | FEAT_PLAIN | FEAT_NO_EARS,
        .quad = {.body = R(0.3, 0.33), .wide = R(0.3, 0.32), .tall = R(0.6, 0.65), .leg = R(0.07, 0.08),
                 .leg_r = R(0.025, 0.03), .neck = R(0.05, 0.06), .head = R(0.09, 0.1), .snout = R(0.95, 1.0),
                 .ear = R(0.01, 0.015), .tail = R(0.7, 0.8), .hue = R(0.3, 0.32), .sat = R(0.65, 0.7),
                 .val = R(0.55, 0.6), .snout_sv = {0.5, 0.7}, .tail_r = 2.0, .sprawl = 1.8, .speed = R(1.5, 1.6)},
        .extras = {{EXTRA_BUMP, HOST_BODY, 6, .out = 0.97, .size = {0.2, 0.05, 0.2}, .paint = PAINT_RGB, /* spots */
                    .rgb = 0xD8C040}}},
    [CROWD_CRITTER_SHEEP] = {"sheep", CROWD_CRITTER_QUAD,
        "quad plan: a woolly white body, black head and legs",
        FEAT_DARK_HEAD | FEAT_DARK_LEGS | FEAT_DROOPY_EARS | FEAT_PLAIN,
        .quad = {.body = R(0.4, 0.43), .wide = R(0.6, 0.65), .tall = R(1.0, 1.05), .leg = R(0.22, 0.24),
                 .leg_r = R(0.03, 0.035), .neck = R(0.1, 0.12), .head = R(0.1, 0.11), .snout = R(0.7, 0.75),
                 .ear = R(0.07, 0.08), .tail = R(0.1, 0.12), .hue = R(0.12, 0.13), .sat = R(0.05, 0.08),
                 .val = R(0.93, 0.96), .trim_sv = {0.1, 0.15}, .tail_stiff = 0.3, .tail_r = 1.5},
        .extras = {{EXTRA_BUMP, HOST_BODY, 9, .out = 0.95, .size = {0.35, 0.3, 0.35}}}}, /* wool */
    [CROWD_CRITTER_BUNNY] = {"bunny", CROWD_CRITTER_QUAD,
        "quad plan: small and pale, long upright ears, a puff tail", FEAT_PLAIN,
        .quad = {.body = R(0.15, 0.17), .wide = R(0.6, 0.65), .tall = R(1.1, 1.15), .leg = R(0.1, 0.11),
                 .leg_r = R(0.025, 0.03), .neck = R(0.05, 0.06), .head = R(0.09, 0.1), .snout = R(0.5, 0.55),
                 .ear = R(0.18, 0.2), .tail = R(0.03, 0.04), .hue = R(0.08, 0.09), .sat = R(0.1, 0.15),
                 .val = R(0.85, 0.9), .snout_sv = {0.3, 0.95}, .trim_sv = {0.3, 0.9}, .ear_r = 0.3, .tail_stiff = 0.5,
                 .speed = R(1.3, 1.5)},
        .extras = {{EXTRA_BUMP, HOST_BODY, 1, {0, 0.3, -1}, 0.95, {0.35, 0.35, 0.35}, /* puff tail */
                    .paint = PAINT_RGB, .rgb = WHITE}}},
    [CROWD_CRITTER_LLAMA] = {"llama", CROWD_CRITTER_QUAD,
        "quad plan: cream, a long upright neck, tall ears", 0,
        .quad = {.body = R(0.42, 0.46), .wide = R(0.5, 0.55), .tall = R(1.2, 1.25), .leg = R(0.45, 0.5),
                 .leg_r = R(0.045, 0.05), .neck = R(0.6, 0.65), .head = R(0.11, 0.12), .snout = R(0.9, 1.0),
                 .ear = R(0.13, 0.15), .tail = R(0.12, 0.15), .hue = R(0.1, 0.11), .sat = R(0.25, 0.3),
                 .val = R(0.88, 0.92), .neck_rise = 1.5, .tail_r = 1.5}},
    [CROWD_CRITTER_ELEPHANT] = {"elephant", CROWD_CRITTER_QUAD,
        "quad plan: huge and grey, a trunk, tusks, big flat ears", FEAT_NO_EARS,
        .quad = {.body = R(0.75, 0.8), .wide = R(0.6, 0.65), .tall = R(1.2, 1.25), .leg = R(0.6, 0.65),
                 .leg_r = R(0.14, 0.15), .neck = R(0.08, 0.1), .head = R(0.3, 0.32), .snout = R(0.5, 0.55),
                 .ear = R(0.02, 0.03), .tail = R(0.3, 0.35), .hue = R(0.6, 0.62), .sat = R(0.05, 0.08),
                 .val = R(0.55, 0.6), .snout_sv = {0.05, 0.55}, .trim_sv = {0.05, 0.45}},
        .extras = {{EXTRA_HORN, HOST_SNOUT, 1, {0, -0.2, 1}, 0.7, {5.0, 1.0, 0.5}, {0, -1, 0.25}, /* trunk */
                    {0, 0.3, 0.5}},
                   {EXTRA_HORN, HOST_SNOUT, 2, {0.5, -0.4, 0.5}, 0.9, {2.0, 0.18, 0.05}, {0.2, -0.3, 1}, /* tusks */
                    {0, 0.5, 0}, PAINT_RGB, WHITE},
                   {EXTRA_BUMP, HOST_HEAD, 2, {0.95, 0.1, -0.3}, 0.9, {0.9, 0.12, 1.0}}}}, /* ears */
    [CROWD_CRITTER_CAMEL] = {"camel", CROWD_CRITTER_QUAD,
        "quad plan: sandy, long legs, a long neck, a hump", 0,
        .quad = {.body = R(0.55, 0.6), .wide = R(0.4, 0.42), .tall = R(1.1, 1.15), .leg = R(0.7, 0.75),
                 .leg_r = R(0.05, 0.055), .neck = R(0.55, 0.6), .head = R(0.13, 0.14), .snout = R(1.1, 1.2),
                 .ear = R(0.05, 0.06), .tail = R(0.3, 0.35), .hue = R(0.1, 0.11), .sat = R(0.45, 0.5),
                 .val = R(0.72, 0.76), .neck_rise = 0.9},
        .extras = {{EXTRA_BUMP, HOST_BODY, 1, {0, 1, 0.1}, 0.9, {0.45, 0.5, 0.55}}}}, /* hump */

    /* ---- tube plan ---- */
    [CROWD_CRITTER_CATERPILLAR] = {"caterpillar", CROWD_CRITTER_TUBE,
        "tube plan: fat, green with yellow bands, a horn on its tail", 0,
        .tube = {.segments = R(10, 12), .spacing = R(0.1, 0.11), .radius = R(0.09, 0.1), .head = R(1.1, 1.15),
                 .antenna = R(0.05, 0.06), .hue = R(0.27, 0.3), .sat = R(0.75, 0.8), .val = R(0.7, 0.75),
                 .accent = R(-0.14, -0.12), .accent_s = R(0.8, 0.85), .accent_v = 0.9},
        .extras = {{EXTRA_HORN, HOST_TAIL, 1, {0, 0.6, -0.8}, 1.0, {1.2, 0.25, 0.05}, {0, 1, -0.6}, /* tail horn */
                    {0, 0, -0.3}, PAINT_RGB, 0xE0C030}}},
    [CROWD_CRITTER_CENTIPEDE] = {"centipede", CROWD_CRITTER_TUBE,
        "tube plan: long and thin, red-orange, long legs, long antennae", FEAT_LONG_LEGS,
        .tube = {.segments = R(14, 14.99), .spacing = R(0.07, 0.075), .radius = R(0.035, 0.04), .head = R(1.2, 1.3),
                 .antenna = R(0.16, 0.2), .hue = R(0.03, 0.045), .sat = R(0.8, 0.85), .val = R(0.6, 0.65),
                 .accent = R(0.03, 0.04), .accent_s = R(0.8, 0.85), .accent_v = 0.8, .legs = 2.5}},
    [CROWD_CRITTER_MILLIPEDE] = {"millipede", CROWD_CRITTER_TUBE,
        "tube plan: long, dark brown with orange bands, many short legs", 0,
        .tube = {.segments = R(13, 13.99), .spacing = R(0.05, 0.055), .radius = R(0.045, 0.05), .head = R(1.0, 1.05),
                 .antenna = R(0.05, 0.06), .hue = R(0.05, 0.06), .sat = R(0.4, 0.5), .val = R(0.25, 0.3),
                 .accent = R(0.02, 0.04), .accent_s = R(0.8, 0.85), .accent_v = 0.6}},
    [CROWD_CRITTER_SLUG] = {"slug", CROWD_CRITTER_TUBE,
        "tube plan: short, plain olive, a mantle, long eye stalks", FEAT_PLAIN,
        .tube = {.segments = R(8, 9.99), .spacing = R(0.08, 0.09), .radius = R(0.07, 0.075), .head = R(1.0, 1.05),
                 .antenna = R(0.14, 0.16), .hue = R(0.13, 0.14), .sat = R(0.5, 0.55), .val = R(0.5, 0.55),
                 .accent = R(0.0, 0.01), .accent_s = R(0.3, 0.35), .accent_v = 0.7},
        .extras = {{EXTRA_BUMP, HOST_SEGMENT(1), 1, {0, 1, -0.3}, 0.6, {1.1, 0.55, 1.6}, /* mantle */
                    .paint = PAINT_RGB, .rgb = 0x5A5A2A}}},
    [CROWD_CRITTER_SNAIL] = {"snail", CROWD_CRITTER_TUBE,
        "tube plan: short and beige under a brown spiral shell", FEAT_PLAIN,
        .tube = {.segments = R(7, 8.99), .spacing = R(0.07, 0.08), .radius = R(0.06, 0.065), .head = R(1.0, 1.05),
                 .antenna = R(0.12, 0.14), .hue = R(0.12, 0.13), .sat = R(0.2, 0.25), .val = R(0.7, 0.75),
                 .accent = R(0.0, 0.01), .accent_s = R(0.2, 0.25), .accent_v = 0.6},
        .extras = {{EXTRA_BUMP, HOST_SEGMENT(3), 1, {0, 1, 0}, 1.5, {1.6, 1.7, 1.6}, .paint = PAINT_RGB, /* shell */
                    .rgb = 0x8A5A30},
                   {EXTRA_BUMP, HOST_EXTRA(0), 2, {1, 0.2, 0}, 0.75, {0.4, 0.3, 0.6}, .paint = PAINT_RGB, /* whorls */
                    .rgb = 0xC89060}}},
    [CROWD_CRITTER_GRUB] = {"grub", CROWD_CRITTER_TUBE,
        "tube plan: fat and short, cream with tan bands, a small head", 0,
        .tube = {.segments = R(6, 7.99), .spacing = R(0.07, 0.075), .radius = R(0.1, 0.11), .head = R(0.7, 0.75),
                 .antenna = R(0.02, 0.03), .hue = R(0.12, 0.13), .sat = R(0.15, 0.2), .val = R(0.9, 0.95),
                 .accent = R(0.0, 0.02), .accent_s = R(0.5, 0.55), .accent_v = 0.55}},
    [CROWD_CRITTER_SILKWORM] = {"silkworm", CROWD_CRITTER_TUBE,
        "tube plan: white with grey bands, dark eye spots", 0,
        .tube = {.segments = R(10, 11.99), .spacing = R(0.075, 0.08), .radius = R(0.06, 0.065), .head = R(1.0, 1.05),
                 .antenna = R(0.03, 0.04), .hue = R(0.1, 0.11), .sat = R(0.05, 0.08), .val = R(0.95, 0.98),
                 .accent = R(0.0, 0.01), .accent_s = R(0.1, 0.12), .accent_v = 0.75},
        .extras = {{EXTRA_BUMP, HOST_SEGMENT(1), 2, {0.5, 0.7, 0}, 0.95, {0.3, 0.1, 0.3}, /* eye spots */
                    .paint = PAINT_RGB, .rgb = 0x303030}}},
    [CROWD_CRITTER_INCHWORM] = {"inchworm", CROWD_CRITTER_TUBE,
        "tube plan: thin and light green, its legless middle arched up", FEAT_ARCH | FEAT_PLAIN,
        .tube = {.segments = R(9, 10.99), .spacing = R(0.07, 0.075), .radius = R(0.03, 0.035), .head = R(1.1, 1.2),
                 .antenna = R(0.02, 0.03), .hue = R(0.22, 0.24), .sat = R(0.6, 0.65), .val = R(0.75, 0.8),
                 .accent = R(0.0, 0.01), .accent_s = R(0.6, 0.65), .accent_v = 0.6, .arch = 4.0}},
    [CROWD_CRITTER_WOOLLYBEAR] = {"woollybear", CROWD_CRITTER_TUBE,
        "tube plan: fat and fuzzy, rust with black bands", 0,
        .tube = {.segments = R(10, 11.99), .spacing = R(0.06, 0.065), .radius = R(0.08, 0.09), .head = R(0.9, 0.95),
                 .antenna = R(0.02, 0.03), .hue = R(0.07, 0.08), .sat = R(0.85, 0.9), .val = R(0.45, 0.5),
                 .accent = R(0.5, 0.51), .accent_s = R(0.2, 0.25), .accent_v = 0.12}},
    [CROWD_CRITTER_GLOWWORM] = {"glowworm", CROWD_CRITTER_TUBE,
        "tube plan: dark and plain, a glowing lantern of a tail", FEAT_PLAIN,
        .tube = {.segments = R(8, 9.99), .spacing = R(0.06, 0.065), .radius = R(0.045, 0.05), .head = R(1.1, 1.2),
                 .antenna = R(0.05, 0.06), .hue = R(0.6, 0.62), .sat = R(0.3, 0.35), .val = R(0.3, 0.35),
                 .accent = R(0.0, 0.01), .accent_s = R(0.3, 0.35), .accent_v = 0.25},
        .extras = {{EXTRA_BUMP, HOST_TAIL, 1, {0, 0, -1}, 0.5, {1.3, 1.3, 1.3}, .paint = PAINT_RGB, /* lantern */
                    .rgb = 0xE8FF50}}},
    [CROWD_CRITTER_EARTHWORM] = {"earthworm", CROWD_CRITTER_TUBE,
        "tube plan: long, thin and pink, a saddle band, tiny eyes", FEAT_PLAIN,
        .tube = {.segments = R(14, 14.99), .spacing = R(0.06, 0.065), .radius = R(0.03, 0.035), .head = R(0.95, 1.0),
                 .antenna = R(0.005, 0.01), .hue = R(0.97, 0.99), .sat = R(0.4, 0.45), .val = R(0.75, 0.8),
                 .accent = R(0.0, 0.01), .accent_s = R(0.45, 0.5), .accent_v = 0.6, .eye = 0.12},
        .extras = {{EXTRA_BUMP, HOST_SEGMENT(4), 1, {0, 1, 0}, 0.0, {1.2, 1.2, 1.6}, /* saddle band */
                    .paint = PAINT_RGB, .rgb = 0xD07080}}},
};
// clang-format on

const critter_species *critter_species_of(crowd_critter_kind kind)
{
    return &species[kind];
}

const char *crowd_critter_kind_name(crowd_critter_kind kind)
{
    return (unsigned)kind < CROWD_CRITTER_KIND_COUNT ? species[kind].name : NULL;
}

const char *crowd_critter_kind_summary(crowd_critter_kind kind)
{
    return (unsigned)kind < CROWD_CRITTER_KIND_COUNT ? species[kind].summary : NULL;
}

crowd_critter_kind crowd_critter_kind_plan(crowd_critter_kind kind)
{
    return (unsigned)kind < CROWD_CRITTER_KIND_COUNT ? species[kind].plan : CROWD_CRITTER_KIND_COUNT;
}

bool crowd_critter_kind_parse(const char *name, crowd_critter_kind *kind)
{
    for (int k = 0; name && k < CROWD_CRITTER_KIND_COUNT; k++)
        if (!strcmp(name, species[k].name)) {
            *kind = (crowd_critter_kind)k;
            return true;
        }
    return false;
}
