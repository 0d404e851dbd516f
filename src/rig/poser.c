/* Posing at run time: the baker's sampling path (rig->sample, global and skinning matrices) per
 * character per frame, turned into a bone palette in the asset's space. */
#include <math.h>
#include <string.h>

#include "common/cbmath.h"
#include "core/alloc.h"
#include "core/error.h"
#include "crowdbake/rig.h"

struct crowd_rig_poser {
    const crowd_rig *rig;
    uint32_t clip_count;
    uint32_t *rig_clip; /* per asset clip */
    bool *loops;        /* per asset clip: the asset's CROWD_CLIP_LOOP (what the shader reads) */
    bool identity;      /* no placement to apply */
    float placement[16], inverse[16];
    crowd_trs *pose;
    float *global, *skin, *rows_b; /* rows_b: clip B's palette during a fade */
};

void crowd_rig_poser_destroy(crowd_rig_poser *p)
{
    if (!p)
        return;
    crowd_free(p->rig_clip);
    crowd_free(p->loops);
    crowd_free(p->pose);
    crowd_free(p->global);
    crowd_free(p->skin);
    crowd_free(p->rows_b);
    crowd_free(p);
}

static crowd_result map_clips(crowd_rig_poser *p, const crowd_asset *asset, crowd_error *error)
{
    const crowd_rig *rig = p->rig;
    for (uint32_t c = 0; c < p->clip_count; c++) {
        if (!asset) {
            p->rig_clip[c] = c;
            p->loops[c] = rig->clips[c].loop;
            continue;
        }
        int index = crowd_rig_find_clip(rig, asset->clips[c].name);
        if (index < 0)
            return crowd_fail(error, CROWD_ERROR_ARGUMENT, "poser: asset clip %u \"%s\" is not a clip of the rig", c,
                              asset->clips[c].name);
        p->rig_clip[c] = (uint32_t)index;
        p->loops[c] = (asset->clips[c].flags & CROWD_CLIP_LOOP) != 0;
    }
    return CROWD_OK;
}

static void placement_of(crowd_rig_poser *p, const crowd_asset *asset)
{
    crowd_bake_notes notes;
    cb_mat4_identity(p->placement);
    p->identity = true;
    if (!asset || !crowd_asset_bake_notes(asset, &notes))
        return;
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 4; c++) {
            p->placement[4 * c + r] = notes.placement[4 * r + c];
            if (notes.placement[4 * r + c] != (r == c ? 1.0f : 0.0f))
                p->identity = false;
        }
    if (!p->identity && !cb_mat4_invert(p->inverse, p->placement))
        p->identity = true; /* the loader refuses singular placements; never reached */
}

crowd_result crowd_rig_poser_create(const crowd_rig *rig, const crowd_asset *asset, crowd_rig_poser **out,
                                    crowd_error *error)
{
    if (!rig || !out)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_rig_poser_create: NULL rig or out");
    *out = NULL;
    if (!rig->sample || rig->bone_count == 0 || rig->clip_count == 0)
        return crowd_fail(error, CROWD_ERROR_MISSING, "poser: the rig has no bones, clips or sampler");
    if (rig->morph_target_count)
        return crowd_fail(error, CROWD_ERROR_UNSUPPORTED,
                          "poser: the rig has %u morph targets, which a bone palette cannot play",
                          rig->morph_target_count);
    if (asset && (asset->bone_count != rig->bone_count || asset->vertex_count != rig->vertex_count))
        return crowd_fail(
            error, CROWD_ERROR_ARGUMENT,
            "poser: the asset (%u bones, %u vertices) was not baked from this rig (%u bones, %u vertices)",
            asset->bone_count, asset->vertex_count, rig->bone_count, rig->vertex_count);
    crowd_rig_poser *p = crowd_calloc(1, sizeof *p);
    if (!p)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "poser: out of memory");
    p->rig = rig;
    p->clip_count = asset ? asset->clip_count : rig->clip_count;
    size_t bones = rig->bone_count;
    p->rig_clip = crowd_calloc(p->clip_count, sizeof *p->rig_clip);
    p->loops = crowd_calloc(p->clip_count, sizeof *p->loops);
    p->pose = crowd_calloc(bones, sizeof *p->pose);
    p->global = crowd_calloc(bones * 16, sizeof(float));
    p->skin = crowd_calloc(bones * 16, sizeof(float));
    p->rows_b = crowd_calloc(bones * 12, sizeof(float));
    crowd_result r = CROWD_OK;
    if (!p->rig_clip || !p->loops || !p->pose || !p->global || !p->skin || !p->rows_b)
        r = crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "poser: out of memory");
    if (r == CROWD_OK)
        r = map_clips(p, asset, error);
    if (r != CROWD_OK) {
        crowd_rig_poser_destroy(p);
        return r;
    }
    placement_of(p, asset);
    *out = p;
    return CROWD_OK;
}

/* The rig's own sampling and matrix code, then P * skin * P^-1 into 3x4 rows. */
static void pose_at(crowd_rig_poser *p, uint32_t clip, float phase, float *rows)
{
    const crowd_rig *rig = p->rig;
    const crowd_rig_clip *c = &rig->clips[p->rig_clip[clip]];
    double t = c->start + c->duration * (double)phase;
    rig->sample(rig, p->rig_clip[clip], t, p->pose, NULL);
    crowd_rig_global_matrices(rig, p->pose, p->global);
    crowd_rig_skin_matrices(rig, p->global, p->skin);
    for (uint32_t b = 0; b < rig->bone_count; b++) {
        float *s = p->skin + 16 * b;
        if (!p->identity) {
            float t0[16], t1[16];
            cb_mat4_mul(t0, s, p->inverse);
            cb_mat4_mul(t1, p->placement, t0);
            memcpy(s, t1, sizeof t1);
        }
        cb_mat4_to_mat34(s, rows + 12 * b);
    }
}

static float wrap_phase(bool loops, float phase)
{
    if (loops)
        return phase - floorf(phase);
    return phase < 0.0f ? 0.0f : (phase > 1.0f ? 1.0f : phase);
}

bool crowd_rig_pose_phase(crowd_rig_poser *p, uint32_t clip, float phase, float *rows)
{
    if (!p || !rows || clip >= p->clip_count || !isfinite(phase))
        return false;
    pose_at(p, clip, wrap_phase(p->loops[clip], phase), rows);
    return true;
}

/* The shader's phase (crowd.vert clip_sample): fract for a looping play, clamp for a held one,
 * whatever the clip's own loop flag says. */
static float play_phase(float cycles, bool hold)
{
    if (hold)
        return cycles < 0.0f ? 0.0f : (cycles > 1.0f ? 1.0f : cycles);
    return cycles - floorf(cycles);
}

bool crowd_rig_pose_blend(crowd_rig_poser *p, const crowd_rig_blend *blend, float *rows)
{
    if (!p || !blend || !rows)
        return false;
    if (blend->clip_a >= p->clip_count || blend->clip_b >= p->clip_count)
        return false;
    pose_at(p, blend->clip_a, play_phase(blend->phase_a, blend->hold_a), rows);
    float w = blend->weight;
    w = w < 0.0f ? 0.0f : (w > 1.0f ? 1.0f : w);
    if (w == 0.0f)
        return true;
    pose_at(p, blend->clip_b, play_phase(blend->phase_b, blend->hold_b), p->rows_b);
    size_t n = (size_t)p->rig->bone_count * 12;
    for (size_t i = 0; i < n; i++)
        rows[i] += (p->rows_b[i] - rows[i]) * w;
    return true;
}
