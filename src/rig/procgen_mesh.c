/* The humanoid's surface: eight closed tubes (torso, head, two arms, two legs, two feet).
 *
 * Each tube is a stack of rings interpolated from a few profile keys (position along the tube,
 * radii, centre offset). Separate closed parts keep the LOD simplifier from welding limbs, and
 * give each body part a clean silhouette at any level of detail. Skinning weights blend two
 * bones across each joint over a short band, so joints bend smoothly and segments stay rigid. */
#include <stdlib.h>
#include <string.h>

#include "common/cbmath.h"
#include "core/alloc.h"
#include "core/error.h"
#include "rig/procgen.h"

typedef enum tube_axis { AXIS_Y, AXIS_Z } tube_axis;

/* One profile key: where along the axis, radii across it, and the centre's offset. */
typedef struct profile_key {
    double along;    /* y for vertical parts, z for feet */
    double radius_a; /* across x */
    double radius_b; /* across z (vertical parts) or y (feet) */
    double offset;   /* centre z (vertical parts) or centre y above the sole (feet: = radius_b) */
} profile_key;

/* A bone chain along the tube: bones[0] at the start of the axis, joints[k] where bones[k] hands
 * over to bones[k+1], blended over +-blend. */
typedef struct bone_chain {
    int bone_count;
    int bones[6];
    double joints[5];
    double blend;
} bone_chain;

typedef struct part_spec {
    tube_axis axis;
    const profile_key *keys;
    int key_count;
    int rings, around;              /* at density 1 */
    double exponent;                /* superellipse exponent of the cross-section: 2 = ellipse */
    double mirror;                  /* +1 left or centre, -1 right: mirrors x */
    const double (*centre_line)[2]; /* (along, x) points for limbs that are not vertical, or NULL */
    int centre_line_count;
    bone_chain chain;
    int (*region)(const double p[3], double along);
} part_spec;

/* ---- regions ---------------------------------------------------------------------------------- */

static int torso_region(const double p[3], double along)
{
    (void)p;
    return along < 1.09 ? HR_PANTS : along < 1.515 ? HR_SHIRT : HR_SKIN;
}

static int arm_region(const double p[3], double along)
{
    (void)p;
    return along > 1.30 ? HR_SHIRT : HR_SKIN;
}

static int leg_region(const double p[3], double along)
{
    (void)p;
    (void)along;
    return HR_PANTS;
}

static int foot_region(const double p[3], double along)
{
    (void)p;
    (void)along;
    return HR_SHOES;
}

#define HEAD_CY 1.715
#define HEAD_CZ 0.012
#define HEAD_RX 0.092
#define HEAD_RY 0.118
#define HEAD_RZ 0.108

static int head_region(const double p[3], double along)
{
    (void)along;
    double y = (p[1] - HEAD_CY) / HEAD_RY, z = (p[2] - HEAD_CZ) / HEAD_RZ;
    return (y > 0.35 || (z < -0.3 && y > -0.35)) ? HR_HAIR : HR_SKIN;
}

/* ---- part definitions ------------------------------------------------------------------------- */

static const profile_key torso_keys[] = {
    {0.86, 0.100, 0.080, 0.000},  {0.92, 0.155, 0.105, -0.005}, {1.00, 0.170, 0.115, -0.010},
    {1.08, 0.160, 0.110, -0.005}, {1.16, 0.148, 0.105, 0.000},  {1.26, 0.160, 0.115, 0.010},
    {1.36, 0.175, 0.120, 0.015},  {1.44, 0.190, 0.110, 0.005},  {1.50, 0.175, 0.090, 0.000},
    {1.54, 0.080, 0.065, 0.000},  {1.60, 0.055, 0.055, 0.005},  {1.66, 0.050, 0.050, 0.010},
};

static const profile_key arm_keys[] = {
    {1.56, 0.035, 0.035, 0.0}, {1.52, 0.058, 0.060, 0.0}, {1.44, 0.056, 0.058, 0.0},  {1.34, 0.050, 0.052, 0.0},
    {1.27, 0.046, 0.046, 0.0}, {1.20, 0.040, 0.042, 0.0}, {1.08, 0.040, 0.040, 0.0},  {0.96, 0.026, 0.030, 0.0},
    {0.90, 0.020, 0.046, 0.0}, {0.82, 0.016, 0.040, 0.0}, {0.765, 0.010, 0.022, 0.0},
};

static const double arm_centre_line[][2] = {{1.56, 0.195}, {1.50, 0.20}, {1.20, 0.22}, {0.94, 0.24}, {0.765, 0.255}};

static const profile_key leg_keys[] = {
    {1.07, 0.050, 0.050, 0.000},  {1.02, 0.085, 0.090, 0.000},  {0.90, 0.080, 0.085, 0.005},
    {0.72, 0.066, 0.070, 0.010},  {0.58, 0.050, 0.055, 0.010},  {0.54, 0.049, 0.054, 0.015},
    {0.45, 0.052, 0.058, -0.005}, {0.30, 0.044, 0.046, -0.005}, {0.16, 0.034, 0.036, 0.000},
    {0.10, 0.032, 0.034, 0.000},  {0.06, 0.025, 0.025, 0.000},
};

static const profile_key foot_keys[] = {
    {-0.085, 0.030, 0.035, 0.035}, {-0.070, 0.042, 0.050, 0.050}, {-0.020, 0.046, 0.058, 0.058},
    {0.040, 0.050, 0.048, 0.048},  {0.100, 0.052, 0.036, 0.036},  {0.160, 0.048, 0.030, 0.030},
    {0.200, 0.036, 0.024, 0.024},  {0.215, 0.020, 0.015, 0.015},
};

#define KEYS(k) (k), (int)(sizeof(k) / sizeof((k)[0]))

static const part_spec torso_part = {
    AXIS_Y,
    KEYS(torso_keys),
    16,
    24,
    2.0,
    1.0,
    NULL,
    0,
    {6, {HB_HIPS, HB_SPINE1, HB_SPINE2, HB_CHEST, HB_NECK, HB_HEAD}, {1.14, 1.25, 1.36, 1.55, 1.64}, 0.045},
    torso_region};

/* ---- mesh builder ----------------------------------------------------------------------------- */

typedef struct mesh_builder {
    crowd_rig *rig;
    uint32_t vertex_count, index_count;
} mesh_builder;

static void add_vertex(mesh_builder *mb, const double p[3], double u, double v, int region, const int bones[2],
                       const double weights[2])
{
    crowd_rig *rig = mb->rig;
    uint32_t i = mb->vertex_count++;
    for (int k = 0; k < 3; k++)
        rig->positions[3 * i + k] = (float)p[k];
    rig->uvs[2 * i] = (float)u;
    rig->uvs[2 * i + 1] = (float)v;
    rig->regions[i] = (uint8_t)region;
    for (int k = 0; k < 2; k++) {
        rig->joints[4 * i + k] = (uint16_t)bones[k];
        rig->weights[4 * i + k] = (float)weights[k];
    }
}

static void add_triangle(mesh_builder *mb, uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t *idx = mb->rig->indices + mb->index_count;
    idx[0] = a;
    idx[1] = b;
    idx[2] = c;
    mb->index_count += 3;
}

/* Catmull-Rom through the keys' fields, parameterised by key index. */
static double spline(const double *values, int count, double t)
{
    if (t <= 0)
        return values[0];
    if (t >= count - 1)
        return values[count - 1];
    int i = (int)t;
    double f = t - i;
    double p0 = values[i > 0 ? i - 1 : 0], p1 = values[i], p2 = values[i + 1];
    double p3 = values[i + 2 < count ? i + 2 : count - 1];
    return 0.5 * ((2 * p1) + (-p0 + p2) * f + (2 * p0 - 5 * p1 + 4 * p2 - p3) * f * f +
                  (-p0 + 3 * p1 - 3 * p2 + p3) * f * f * f);
}

/* Key index (fractional) at which the profile reaches `along`: the keys are monotonic. */
static double key_parameter(const profile_key *keys, int count, double along)
{
    for (int i = 0; i + 1 < count; i++) {
        double a = keys[i].along, b = keys[i + 1].along;
        if ((along - a) * (along - b) <= 0)
            return i + (b != a ? (along - a) / (b - a) : 0);
    }
    return fabs(along - keys[0].along) < fabs(along - keys[count - 1].along) ? 0 : count - 1;
}

static double interpolate_line(const double (*line)[2], int count, double along)
{
    for (int i = 0; i + 1 < count; i++) {
        double a = line[i][0], b = line[i + 1][0];
        if ((along - a) * (along - b) <= 0)
            return line[i][1] + (line[i + 1][1] - line[i][1]) * (b != a ? (along - a) / (b - a) : 0);
    }
    return line[count - 1][1];
}

/* Two-bone weights at `along` on a chain whose axis runs from keys[0] towards keys[last]. */
static void chain_weights(const bone_chain *chain, double along, double direction, int bones[2], double w[2])
{
    bones[0] = bones[1] = chain->bones[0];
    w[0] = 1.0;
    w[1] = 0.0;
    for (int k = 0; k + 1 < chain->bone_count; k++) {
        /* t: how far past joint k we are, 0..1 across the blend band */
        double t = ((along - chain->joints[k]) * direction + chain->blend) / (2 * chain->blend);
        if (t <= 0)
            return;
        if (t >= 1) {
            bones[0] = bones[1] = chain->bones[k + 1];
            continue;
        }
        bones[0] = chain->bones[k];
        bones[1] = chain->bones[k + 1];
        w[0] = 1 - t;
        w[1] = t;
        return;
    }
}

static int mirror_bone(int bone, double mirror)
{
    if (mirror > 0)
        return bone;
    /* right-side bones follow the left ones at a fixed distance in the enum */
    if (bone >= HB_CLAVICLE_L && bone <= HB_FINGERS_L)
        return bone + (HB_CLAVICLE_R - HB_CLAVICLE_L);
    if (bone >= HB_THIGH_L && bone <= HB_TOE_L)
        return bone + (HB_THIGH_R - HB_THIGH_L);
    return bone;
}

static double signed_pow(double v, double e)
{
    return v < 0 ? -pow(-v, e) : pow(v, e);
}

static int scaled(int base, float density, int minimum)
{
    int n = (int)lround(base * sqrt((double)density));
    return n < minimum ? minimum : n;
}

static void part_counts(const part_spec *spec, float density, int *rings, int *around)
{
    *rings = scaled(spec->rings, density, 4);
    *around = scaled(spec->around, density, 6);
}

/* A point on ring `ring` at angle index k. Angle 0 is at the back (-z, or -y for feet) so the UV
 * seam hides there. */
static void ring_point(const part_spec *spec, const double centre[3], double ra, double rb, int k, int around,
                       double p[3])
{
    double theta = -CB_PI / 2 + 2 * CB_PI * k / around;
    double e = 2.0 / spec->exponent;
    double ca = signed_pow(cos(theta), e) * ra, cb = signed_pow(sin(theta), e) * rb;
    p[0] = centre[0] + ca * spec->mirror;
    if (spec->axis == AXIS_Y) {
        p[1] = centre[1];
        p[2] = centre[2] + cb;
    } else {
        p[1] = centre[1] + cb;
        p[2] = centre[2];
    }
}

/* The part's rings, `around` + 1 vertices each (the last repeats the first: the UV seam), from the
 * first key to the last along the part's axis, weighted to its bone chain. */
static void emit_rings(mesh_builder *mb, const part_spec *spec, double base_x, int rings, int around)
{
    double first = spec->keys[0].along, last = spec->keys[spec->key_count - 1].along;
    double direction = last > first ? 1.0 : -1.0;
    double ra[64], rb[64], off[64];
    for (int i = 0; i < spec->key_count; i++) {
        ra[i] = spec->keys[i].radius_a;
        rb[i] = spec->keys[i].radius_b;
        off[i] = spec->keys[i].offset;
    }
    for (int r = 0; r < rings; r++) {
        double along = first + (last - first) * r / (rings - 1);
        double t = key_parameter(spec->keys, spec->key_count, along);
        double x = spec->centre_line ? interpolate_line(spec->centre_line, spec->centre_line_count, along) : base_x;
        double centre[3];
        if (spec->axis == AXIS_Y) {
            centre[0] = x * spec->mirror;
            centre[1] = along;
            centre[2] = spline(off, spec->key_count, t);
        } else {
            centre[0] = x * spec->mirror;
            centre[1] = spline(off, spec->key_count, t);
            centre[2] = along;
        }
        int bones[2];
        double w[2];
        chain_weights(&spec->chain, along, direction, bones, w);
        bones[0] = mirror_bone(bones[0], spec->mirror);
        bones[1] = mirror_bone(bones[1], spec->mirror);
        for (int k = 0; k <= around; k++) {
            double p[3];
            ring_point(spec, centre, spline(ra, spec->key_count, t), spline(rb, spec->key_count, t), k, around, p);
            add_vertex(mb, p, (double)k / around, (double)r / (rings - 1), spec->region(p, along), bones, w);
        }
    }
}

/* Poles close both ends, slightly beyond the end rings along the axis; poles[0] at the first. */
static void emit_poles(mesh_builder *mb, const part_spec *spec, uint32_t part_first, int rings, int around,
                       uint32_t poles[2])
{
    double first = spec->keys[0].along, last = spec->keys[spec->key_count - 1].along;
    for (int end = 0; end < 2; end++) {
        uint32_t ring_start = part_first + (uint32_t)(end ? (rings - 1) * (around + 1) : 0);
        double p[3] = {0, 0, 0};
        for (int k = 0; k < around; k++)
            for (int c = 0; c < 3; c++)
                p[c] += mb->rig->positions[3 * (ring_start + k) + c] / around;
        double step = (last - first) / (rings - 1) * 0.35 * (end ? 1 : -1);
        p[spec->axis == AXIS_Y ? 1 : 2] += step;
        int bones[2] = {mb->rig->joints[4 * ring_start], mb->rig->joints[4 * ring_start + 1]};
        double w[2] = {mb->rig->weights[4 * ring_start], mb->rig->weights[4 * ring_start + 1]};
        poles[end] = mb->vertex_count;
        add_vertex(mb, p, 0.5, end, spec->region(p, end ? last : first), bones, w);
    }
}

/* Quads between neighbouring rings, and a fan from each pole to its end ring. */
static void emit_triangles(mesh_builder *mb, uint32_t part_first, int rings, int around, const uint32_t poles[2])
{
    for (int r = 0; r + 1 < rings; r++) {
        for (int k = 0; k < around; k++) {
            uint32_t a = part_first + (uint32_t)(r * (around + 1) + k), b = a + 1;
            uint32_t c = a + (uint32_t)(around + 1), d = c + 1;
            add_triangle(mb, a, c, b);
            add_triangle(mb, b, c, d);
        }
    }
    uint32_t last_ring = part_first + (uint32_t)((rings - 1) * (around + 1));
    for (int k = 0; k < around; k++) {
        add_triangle(mb, poles[0], part_first + (uint32_t)k, part_first + (uint32_t)k + 1);
        add_triangle(mb, poles[1], last_ring + (uint32_t)k + 1, last_ring + (uint32_t)k);
    }
}

/* Orientation: make the closed part's signed volume positive (outward, counter-clockwise). */
static void orient_outwards(mesh_builder *mb, uint32_t first_index)
{
    double volume = 0;
    const float *pos = mb->rig->positions;
    for (uint32_t i = first_index; i < mb->index_count; i += 3) {
        const float *a = pos + 3 * mb->rig->indices[i], *b = pos + 3 * mb->rig->indices[i + 1],
                    *c = pos + 3 * mb->rig->indices[i + 2];
        volume += (double)a[0] * (b[1] * c[2] - b[2] * c[1]) - (double)a[1] * (b[0] * c[2] - b[2] * c[0]) +
                  (double)a[2] * (b[0] * c[1] - b[1] * c[0]);
    }
    if (volume < 0)
        for (uint32_t i = first_index; i < mb->index_count; i += 3) {
            uint32_t tmp = mb->rig->indices[i + 1];
            mb->rig->indices[i + 1] = mb->rig->indices[i + 2];
            mb->rig->indices[i + 2] = tmp;
        }
}

static void emit_part(mesh_builder *mb, const part_spec *spec, double base_x, float density)
{
    int rings, around;
    part_counts(spec, density, &rings, &around);
    uint32_t part_first = mb->vertex_count, first_index = mb->index_count, poles[2];
    emit_rings(mb, spec, base_x, rings, around);
    emit_poles(mb, spec, part_first, rings, around, poles);
    emit_triangles(mb, part_first, rings, around, poles);
    orient_outwards(mb, first_index);
}

/* The head is an ellipsoid expressed as a vertical tube whose keys follow the ellipse. */
static void head_keys(profile_key *keys, int count)
{
    for (int i = 0; i < count; i++) {
        double phi = 0.12 + (CB_PI - 0.24) * i / (count - 1); /* from the chin up to the crown */
        keys[i].along = HEAD_CY - HEAD_RY * cos(phi);
        keys[i].radius_a = HEAD_RX * sin(phi);
        keys[i].radius_b = HEAD_RZ * sin(phi);
        keys[i].offset = HEAD_CZ;
    }
}

/* A small nose so the heading reads at a distance. */
static void add_nose(crowd_rig *rig, uint32_t first, uint32_t last)
{
    for (uint32_t i = first; i < last; i++) {
        float *p = rig->positions + 3 * i;
        double x = p[0] / HEAD_RX, y = (p[1] - HEAD_CY) / HEAD_RY, z = (p[2] - HEAD_CZ) / HEAD_RZ;
        double d2 = x * x / 0.04 + (y + 0.1) * (y + 0.1) / 0.05;
        if (z > 0 && d2 < 1)
            p[2] += (float)(0.022 * (1 - d2) * (1 - d2));
    }
}

/* Smooth normals: area-weighted face normals summed over vertices that share a position (the UV
 * seam repeats one column per ring). */
static void compute_normals(crowd_rig *rig)
{
    float *n = rig->normals;
    memset(n, 0, 3 * sizeof(float) * rig->vertex_count);
    const float *p = rig->positions;
    for (uint32_t i = 0; i < rig->index_count; i += 3) {
        uint32_t a = rig->indices[i], b = rig->indices[i + 1], c = rig->indices[i + 2];
        double e1[3], e2[3];
        for (int k = 0; k < 3; k++) {
            e1[k] = p[3 * b + k] - p[3 * a + k];
            e2[k] = p[3 * c + k] - p[3 * a + k];
        }
        double f[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        for (int k = 0; k < 3; k++) {
            n[3 * a + k] += (float)f[k];
            n[3 * b + k] += (float)f[k];
            n[3 * c + k] += (float)f[k];
        }
    }
}

static void weld_seam_normals_and_normalize(crowd_rig *rig, const uint32_t *part_first, const int *rings,
                                            const int *around, int part_count)
{
    float *n = rig->normals;
    for (int part = 0; part < part_count; part++) {
        for (int r = 0; r < rings[part]; r++) {
            uint32_t a = part_first[part] + (uint32_t)(r * (around[part] + 1));
            uint32_t b = a + (uint32_t)around[part];
            for (int k = 0; k < 3; k++) {
                float sum = n[3 * a + k] + n[3 * b + k];
                n[3 * a + k] = n[3 * b + k] = sum;
            }
        }
    }
    for (uint32_t v = 0; v < rig->vertex_count; v++) {
        float *q = n + 3 * v;
        float len = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
        if (len > 0) {
            q[0] /= len;
            q[1] /= len;
            q[2] /= len;
        } else {
            q[1] = 1.0f;
        }
    }
}

crowd_result humanoid_build_mesh(crowd_rig *rig, float density, crowd_error *error)
{
    profile_key head_profile[16];
    head_keys(head_profile, 16);
    const part_spec head_part = {AXIS_Y,     head_profile, 16, 14, 24, 2.0, 1.0, NULL, 0, {1, {HB_HEAD}, {0}, 0.05},
                                 head_region};
    const bone_chain arm_chain = {
        5, {HB_CLAVICLE_L, HB_UPPER_ARM_L, HB_FOREARM_L, HB_HAND_L, HB_FINGERS_L}, {1.50, 1.20, 0.94, 0.86}, 0.035};
    const bone_chain leg_chain = {3, {HB_HIPS, HB_THIGH_L, HB_SHIN_L}, {1.03, 0.54}, 0.05};
    const bone_chain foot_chain = {2, {HB_FOOT_L, HB_TOE_L}, {0.13}, 0.03};
    part_spec parts[8] = {
        torso_part,
        head_part,
        {AXIS_Y, KEYS(arm_keys), 22, 12, 2.0, 1.0, arm_centre_line, 5, arm_chain, arm_region},
        {AXIS_Y, KEYS(arm_keys), 22, 12, 2.0, -1.0, arm_centre_line, 5, arm_chain, arm_region},
        {AXIS_Y, KEYS(leg_keys), 22, 14, 2.0, 1.0, NULL, 0, leg_chain, leg_region},
        {AXIS_Y, KEYS(leg_keys), 22, 14, 2.0, -1.0, NULL, 0, leg_chain, leg_region},
        {AXIS_Z, KEYS(foot_keys), 12, 14, 3.0, 1.0, NULL, 0, foot_chain, foot_region},
        {AXIS_Z, KEYS(foot_keys), 12, 14, 3.0, -1.0, NULL, 0, foot_chain, foot_region},
    };
    const double base_x[8] = {0, 0, 0, 0, 0.095, 0.095, 0.095, 0.095};

    int rings[8], around[8];
    uint32_t vertices = 0, indices = 0;
    for (int i = 0; i < 8; i++) {
        part_counts(&parts[i], density, &rings[i], &around[i]);
        vertices += (uint32_t)((around[i] + 1) * rings[i] + 2);
        indices += (uint32_t)(6 * around[i] * (rings[i] - 1) + 6 * around[i]);
    }
    rig->positions = crowd_calloc(3 * (size_t)vertices, sizeof(float));
    rig->normals = crowd_calloc(3 * (size_t)vertices, sizeof(float));
    rig->uvs = crowd_calloc(2 * (size_t)vertices, sizeof(float));
    rig->regions = crowd_calloc(vertices, 1);
    rig->joints = crowd_calloc(4 * (size_t)vertices, sizeof(uint16_t));
    rig->weights = crowd_calloc(4 * (size_t)vertices, sizeof(float));
    rig->indices = crowd_calloc(indices, sizeof(uint32_t));
    if (!rig->positions || !rig->normals || !rig->uvs || !rig->regions || !rig->joints || !rig->weights ||
        !rig->indices)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "humanoid: out of memory for %u vertices", vertices);
    rig->influence_count = 4;

    mesh_builder mb = {rig, 0, 0};
    uint32_t part_first[8];
    for (int i = 0; i < 8; i++) {
        part_first[i] = mb.vertex_count;
        emit_part(&mb, &parts[i], base_x[i], density);
        if (i == 1)
            add_nose(rig, part_first[1], mb.vertex_count);
    }
    rig->vertex_count = mb.vertex_count;
    rig->index_count = mb.index_count;
    compute_normals(rig);
    weld_seam_normals_and_normalize(rig, part_first, rings, around, 8);
    return CROWD_OK;
}
