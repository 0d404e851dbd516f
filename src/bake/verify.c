/* crowd_verify: the numeric round trip. Everything the GPU will show is decoded here with the
 * shaders' arithmetic (crowd_asset_decode_vertex, the bone texture) and compared with ground
 * truth skinned in double precision from the source rig (bake/reference.c). */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bake/reference.h"
#include "bake/stride.h"
#include "core/alloc.h"
#include "core/error.h"
#include "core/octahedral.h"
#include "crowdbake/bake.h"

#define RAD_TO_DEG (180.0 / 3.14159265358979323846)
/* Float arithmetic in skinning and decoding, well below any encoding's quantum (plus a term
 * proportional to the coordinates' magnitude, in set_bounds). */
#define POSITION_SLACK_M 2e-6
#define NORMAL_SLACK_RAD 2e-5
#define BONE_BOUND_MM 0.05
#define STRIDE_TOLERANCE 1e-3

typedef struct verify_state {
    const crowd_asset *asset;
    const crowd_rig *rig;
    crowd_verify_report *report;
    crowd_reference ref;
    double *truth_positions, *truth_normals;
    float *decoded; /* one clip's decoded positions, for the stride */
    double position_sum, normal_sum, bone_sum;
    double placement[12]; /* source -> asset, 3x4 row-major */
} verify_state;

static void fail(crowd_verify_report *report, const char *fmt, ...) CROWD_PRINTF(2, 3);
static void fail(crowd_verify_report *report, const char *fmt, ...)
{
    if (!report->passed)
        return; /* keep the first */
    report->passed = false;
    va_list args;
    va_start(args, fmt);
    vsnprintf(report->failure, sizeof report->failure, fmt, args);
    va_end(args);
}

static double angle_between(const float a[3], const double b[3])
{
    double d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    double la = sqrt((double)a[0] * a[0] + (double)a[1] * a[1] + (double)a[2] * a[2]);
    double c = d / la;
    /* acos loses precision near 1; the cross product's length does not */
    double x[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
    return atan2(sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]) / la, c);
}

static double distance(const float a[3], const double b[3])
{
    double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    return sqrt(dx * dx + dy * dy + dz * dz);
}

static void set_bounds(verify_state *s)
{
    const crowd_asset *a = s->asset;
    crowd_verify_report *r = s->report;
    float q[3];
    crowd_asset_position_quantum(a, q);
    double half2 = 0.0, qmax = 0.0;
    for (int k = 0; k < 3; k++) {
        /* Rounding to nearest: half a quantum (u16: one step; f16 in [0, 1]: the 2^-11 ulp below 1). */
        double per_axis = q[k] / 2.0;
        half2 += per_axis * per_axis;
        qmax = fmax(qmax, q[k]);
    }
    /* float rounding in skinning and decoding grows with the coordinates' magnitude */
    double magnitude = 0.0;
    for (int k = 0; k < 3; k++)
        magnitude = fmax(magnitude, fmax(fabs(a->bounds_min[k]), fabs(a->bounds_max[k])));
    r->quantum_mm = qmax * 1e3;
    r->position_bound_mm = (sqrt(half2) + POSITION_SLACK_M + 8.0 * FLT_EPSILON * magnitude) * 1e3;
    double normal_rad = a->normal_encoding == CROWD_NORMAL_OCT16       ? crowd_oct_error_bound(16)
                        : a->normal_encoding == CROWD_NORMAL_OCT8_IN_W ? crowd_oct_error_bound(8)
                                                                       : CROWD_OCT_ERROR_FACTOR * (1.0 / 2048.0);
    r->normal_bound_deg = (normal_rad + NORMAL_SLACK_RAD) * RAD_TO_DEG;

    bool exact_bones = s->rig->morph_target_count == 0;
    for (uint32_t v = 0; exact_bones && v < s->rig->vertex_count; v++) {
        uint32_t nonzero = 0;
        for (uint32_t k = 0; k < s->rig->influence_count; k++)
            nonzero += s->rig->weights[(size_t)v * s->rig->influence_count + k] != 0.0f;
        exact_bones = nonzero <= CROWD_INFLUENCES;
    }
    /* unorm16 weights: each of the 4 is off by up to half a step, moving the vertex by that much of
     * the distance between its bones' transforms of it, which grows with the model: 0.05 mm holds
     * at human scale, and a larger model (Fox.glb is 100 units tall) gets the same relative bound. */
    double extent = 0.0;
    for (int k = 0; k < 3; k++)
        extent = fmax(extent, (double)a->bounds_max[k] - a->bounds_min[k]);
    double weight_step = 4.0 * 0.5 / 65535.0 * extent * 1e3;
    r->bone_bound_mm = exact_bones ? fmax(BONE_BOUND_MM, weight_step) : NAN;
}

/* Bone mode as the shader does it: blend four 3x4 matrices by unorm16 weights, transform. */
static void bone_skin(const crowd_asset *a, uint32_t frame, uint32_t v, float p[3], float n[3])
{
    float m[12] = {0};
    for (uint32_t k = 0; k < CROWD_INFLUENCES; k++) {
        float w = a->weights[CROWD_INFLUENCES * v + k] / 65535.0f, b[12];
        crowd_asset_bone_matrix(a, frame, a->joints[CROWD_INFLUENCES * v + k], b);
        for (int e = 0; e < 12; e++)
            m[e] += w * b[e];
    }
    const float *bp = a->bind_positions + 3 * v, *bn = a->bind_normals + 3 * v;
    for (int r = 0; r < 3; r++) {
        p[r] = m[r * 4] * bp[0] + m[r * 4 + 1] * bp[1] + m[r * 4 + 2] * bp[2] + m[r * 4 + 3];
        n[r] = m[r * 4] * bn[0] + m[r * 4 + 1] * bn[1] + m[r * 4 + 2] * bn[2];
    }
}

static void check_frame(verify_state *s, uint32_t clip, uint32_t frame, float *decoded_frame)
{
    const crowd_asset *a = s->asset;
    crowd_verify_report *r = s->report;
    crowd_verify_clip *vc = &r->clips[clip];
    for (uint32_t v = 0; v < a->vertex_count; v++) {
        const double *tp = s->truth_positions + 3 * v, *tn = s->truth_normals + 3 * v;
        float p[3], n[3];
        if (crowd_asset_decode_vertex(a, frame, v, p, n) != CROWD_OK)
            fail(r, "frame %u vertex %u: does not decode", frame, v);
        memcpy(decoded_frame + 3 * v, p, sizeof p);
        double dp = distance(p, tp) * 1e3, dn = angle_between(n, tn) * RAD_TO_DEG;
        /* fmax() drops NaN, so a non-finite decode must be caught here or it would pass unseen */
        if (!isfinite(dp) || !isfinite(dn))
            fail(r, "frame %u vertex %u: VAT decodes to a non-finite %s (%g %g %g)", frame, v,
                 isfinite(dp) ? "normal" : "position", (double)(isfinite(dp) ? n : p)[0],
                 (double)(isfinite(dp) ? n : p)[1], (double)(isfinite(dp) ? n : p)[2]);
        s->position_sum += dp;
        s->normal_sum += dn;
        r->position_max_mm = fmax(r->position_max_mm, dp);
        r->normal_max_deg = fmax(r->normal_max_deg, dn);
        vc->position_max_mm = fmax(vc->position_max_mm, dp);
        if (r->clip_bounds_checked) { /* the clip's sphere must hold what the shader decodes */
            const crowd_clip *cl = &a->clips[clip];
            double dx = p[0] - cl->bound_center[0], dy = p[1] - cl->bound_center[1], dz = p[2] - cl->bound_center[2];
            double ratio = sqrt(dx * dx + dy * dy + dz * dz) / (cl->bound_radius > 0.0f ? cl->bound_radius : 1e-30);
            vc->bound_ratio = fmax(vc->bound_ratio, ratio);
        }
        if (r->bones_checked) {
            bone_skin(a, frame, v, p, n);
            double bp = distance(p, tp) * 1e3;
            if (!isfinite(bp) || !isfinite(angle_between(n, tn)))
                fail(r, "frame %u vertex %u: bone mode gives a non-finite position or normal", frame, v);
            s->bone_sum += bp;
            r->bone_position_max_mm = fmax(r->bone_position_max_mm, bp);
            r->bone_normal_max_deg = fmax(r->bone_normal_max_deg, angle_between(n, tn) * RAD_TO_DEG);
        }
    }
}

/* The truth in the asset's space: the bake's recorded placement (rotation, scale, ground), or the
 * unit scale alone for files without a BAKE section. */
static void place_truth(verify_state *s, size_t vertex_count)
{
    const double *m = s->placement;
    double scale = sqrt(m[0] * m[0] + m[4] * m[4] + m[8] * m[8]);
    for (size_t v = 0; v < vertex_count; v++) {
        double *p = s->truth_positions + 3 * v, *n = s->truth_normals + 3 * v, q[3], r[3];
        for (int k = 0; k < 3; k++) {
            q[k] = m[4 * k] * p[0] + m[4 * k + 1] * p[1] + m[4 * k + 2] * p[2] + m[4 * k + 3];
            r[k] = (m[4 * k] * n[0] + m[4 * k + 1] * n[1] + m[4 * k + 2] * n[2]) / scale;
        }
        memcpy(p, q, sizeof q);
        memcpy(n, r, sizeof r);
    }
}

static crowd_result check_clip(verify_state *s, uint32_t c, crowd_error *error)
{
    const crowd_asset *a = s->asset;
    const crowd_clip *clip = &a->clips[c];
    int rig_clip = crowd_rig_find_clip(s->rig, clip->name);
    if (rig_clip < 0)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "clip \"%s\" is not in the source rig", clip->name);
    const crowd_rig_clip *rc = &s->rig->clips[rig_clip];
    crowd_verify_clip *vc = &s->report->clips[c];
    vc->name = clip->name;
    vc->manifest_stride = clip->stride;
    vc->truth = rc->stride_truth * a->unit_scale;

    size_t frame_values = (size_t)a->vertex_count * 3;
    for (uint32_t f = 0; f < clip->frame_count; f++) {
        double t = crowd_reference_frame_time(rc, f, clip->frame_count);
        crowd_reference_skin(&s->ref, (uint32_t)rig_clip, t, s->truth_positions, s->truth_normals);
        place_truth(s, frame_values / 3);
        check_frame(s, c, clip->first_frame + f, s->decoded + f * frame_values);
    }
    crowd_stride stride;
    if (!crowd_extract_stride(s->decoded, a->vertex_count, clip->frame_count, rc->duration, rc->loop, &stride))
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "verify: out of memory");
    vc->decoded_stride = stride.stride;
    if (!isfinite(vc->decoded_stride) || !isfinite(vc->manifest_stride))
        fail(s->report, "clip \"%s\": stride not finite (manifest %g m, decoded %g m)", clip->name,
             (double)vc->manifest_stride, vc->decoded_stride);
    if (isfinite(vc->truth)) {
        /* The manifest stride comes from the float frames and must meet the tolerance. The decoded
         * one also carries the encoding's error: a velocity from two frames each off by up to the
         * position bound, relative to the distance a foot travels per frame. */
        double scale = vc->truth > 0 ? vc->truth : 1.0; /* in-place clips: absolute metres */
        double per_frame = vc->truth > 0 ? vc->truth / clip->frame_count : 1.0;
        double decoded_tolerance = STRIDE_TOLERANCE + 2e-3 * s->report->position_bound_mm / per_frame;
        double manifest_error = fabs(vc->manifest_stride - vc->truth) / scale;
        double decoded_error = fabs(vc->decoded_stride - vc->truth) / scale;
        vc->max_relative_error = fmax(manifest_error, decoded_error);
        if (manifest_error > STRIDE_TOLERANCE || decoded_error > decoded_tolerance)
            fail(s->report, "clip \"%s\": stride %.4f m (decoded %.4f m) vs truth %.4f m", clip->name,
                 (double)vc->manifest_stride, vc->decoded_stride, vc->truth);
    }
    return CROWD_OK;
}

/* The report's header from the asset (bone mode and its recorded error from the BAKE section), and
 * the placement the truth is moved by (the BAKE section's, else the unit scale alone). */
static void start_report(verify_state *s)
{
    const crowd_asset *asset = s->asset;
    crowd_verify_report *report = s->report;
    report->passed = true;
    report->stride_tolerance = STRIDE_TOLERANCE;
    report->bones_checked = asset->bones.data != NULL;
    report->clip_bounds_checked = asset->has_clip_bounds;
    report->clip_count = asset->clip_count;
    crowd_bake_notes notes;
    bool has_notes = crowd_asset_bake_notes(asset, &notes);
    for (int k = 0; k < 12; k++)
        s->placement[k] = has_notes ? notes.placement[k] : (k % 5 == 0 ? asset->unit_scale : 0.0);
    report->bone_mode = has_notes               ? notes.bone_mode
                        : report->bones_checked ? CROWD_BONE_MODE_EXACT
                                                : CROWD_BONE_MODE_NONE;
    report->bone_recorded_mm = has_notes ? notes.bone_error * 1e3 : NAN;
}

static bool allocate_state(verify_state *s)
{
    const crowd_asset *asset = s->asset;
    s->report->clips = crowd_calloc(asset->clip_count, sizeof *s->report->clips);
    uint32_t longest = 0;
    for (uint32_t c = 0; c < asset->clip_count; c++)
        longest = asset->clips[c].frame_count > longest ? asset->clips[c].frame_count : longest;
    s->truth_positions = crowd_malloc((size_t)asset->vertex_count * 3 * sizeof(double));
    s->truth_normals = crowd_malloc((size_t)asset->vertex_count * 3 * sizeof(double));
    s->decoded = crowd_malloc((size_t)longest * asset->vertex_count * 3 * sizeof(float));
    return s->report->clips && s->truth_positions && s->truth_normals && s->decoded;
}

/* The means over every vertex-frame, and each clip's bound ratio against its sphere. */
static void summarize(verify_state *s)
{
    const crowd_asset *asset = s->asset;
    crowd_verify_report *report = s->report;
    report->vertex_frames = (uint64_t)asset->vertex_count * asset->frame_count;
    report->position_mean_mm = s->position_sum / (double)report->vertex_frames;
    report->normal_mean_deg = s->normal_sum / (double)report->vertex_frames;
    report->bone_position_mean_mm = report->bones_checked ? s->bone_sum / (double)report->vertex_frames : 0.0;
    /* the reference itself must be finite too: a NaN anywhere is a failure, never a pass */
    if (!isfinite(report->position_mean_mm) || !isfinite(report->normal_mean_deg) ||
        !isfinite(report->bone_position_mean_mm) || !isfinite(report->position_bound_mm))
        fail(report, "a mean or bound is not finite (position mean %g mm, normal mean %g deg)",
             report->position_mean_mm, report->normal_mean_deg);
    for (uint32_t c = 0; c < asset->clip_count; c++) {
        report->bound_max_ratio = fmax(report->bound_max_ratio, report->clips[c].bound_ratio);
        /* 1e-6: float rounding of a vertex the bake put on the sphere */
        if (report->clips[c].bound_ratio > 1.0 + 1e-6)
            fail(report, "clip \"%s\": a decoded vertex at %.6f of its bounding sphere's radius (CBND)",
                 report->clips[c].name, report->clips[c].bound_ratio);
    }
}

/* VAT mode against its bounds. Bone mode: an exact bake must meet its bound; an approximate one must
 * not be worse than the error the bake recorded; one the bake called unavailable is not applicable
 * (and not a pass). */
static void judge_bounds(crowd_verify_report *report)
{
    if (report->position_max_mm > report->position_bound_mm)
        fail(report, "VAT position error %.4f mm exceeds the bound %.4f mm", report->position_max_mm,
             report->position_bound_mm);
    if (report->normal_max_deg > report->normal_bound_deg)
        fail(report, "VAT normal error %.4f deg exceeds the bound %.4f deg", report->normal_max_deg,
             report->normal_bound_deg);
    if (report->bones_checked && report->bone_mode == CROWD_BONE_MODE_UNAVAILABLE) {
        report->bone_bound_mm = NAN;
    } else if (report->bones_checked && (report->bone_mode == CROWD_BONE_MODE_APPROXIMATE ||
                                         (!isfinite(report->bone_bound_mm) && isfinite(report->bone_recorded_mm)))) {
        report->bone_bound_mm = report->bone_recorded_mm * 1.001 + report->position_bound_mm;
        if (report->bone_position_max_mm > report->bone_bound_mm)
            fail(report, "bone-mode position error %.4f mm exceeds the %.4f mm the bake recorded",
                 report->bone_position_max_mm, report->bone_recorded_mm);
    } else if (report->bones_checked && !isfinite(report->bone_bound_mm)) {
        fail(report,
             "bone-mode position error %.4f mm and no bound (more than 4 influences or morph targets, baked "
             "before bone mode was checked at bake time)",
             report->bone_position_max_mm);
    } else if (report->bones_checked && report->bone_position_max_mm > report->bone_bound_mm) {
        fail(report, "bone-mode position error %.4f mm exceeds the bound %.4f mm", report->bone_position_max_mm,
             report->bone_bound_mm);
    }
}

crowd_result crowd_verify(const crowd_asset *asset, const crowd_rig *rig, crowd_verify_report *report,
                          crowd_error *error)
{
    if (!asset || !rig || !report)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_verify: NULL argument");
    memset(report, 0, sizeof *report);
    if (rig->vertex_count != asset->vertex_count)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "the asset has %u vertices but the source rig has %u",
                          asset->vertex_count, rig->vertex_count);
    if (asset->bones.data && rig->bone_count != asset->bone_count)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "the asset has %u bones but the source rig has %u",
                          asset->bone_count, rig->bone_count);

    verify_state s = {.asset = asset, .rig = rig, .report = report};
    start_report(&s);
    crowd_result r = CROWD_OK;
    if (!allocate_state(&s)) {
        r = crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "verify: out of memory");
        goto done;
    }
    if ((r = crowd_reference_init(&s.ref, rig, error)) != CROWD_OK)
        goto done;
    set_bounds(&s);
    for (uint32_t c = 0; c < asset->clip_count && r == CROWD_OK; c++)
        r = check_clip(&s, c, error);
    if (r != CROWD_OK)
        goto done;
    summarize(&s);
    judge_bounds(report);
done:
    crowd_reference_free(&s.ref);
    crowd_free(s.truth_positions);
    crowd_free(s.truth_normals);
    crowd_free(s.decoded);
    if (r != CROWD_OK)
        crowd_verify_report_free(report);
    return r;
}

void crowd_verify_report_free(crowd_verify_report *report)
{
    if (!report)
        return;
    crowd_free(report->clips);
    memset(report, 0, sizeof *report);
}
