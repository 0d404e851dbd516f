#include "bake/reference.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"

crowd_result crowd_reference_init(crowd_reference *ref, const crowd_rig *rig, crowd_error *error)
{
    memset(ref, 0, sizeof *ref);
    ref->rig = rig;
    ref->pose = crowd_malloc(rig->bone_count * sizeof *ref->pose);
    ref->global = crowd_malloc(rig->bone_count * 12 * sizeof(double));
    ref->skin = crowd_malloc(rig->bone_count * 12 * sizeof(double));
    ref->morph_weights = crowd_calloc(rig->morph_target_count + 1, sizeof(float));
    if (!ref->pose || !ref->global || !ref->skin || !ref->morph_weights) {
        crowd_reference_free(ref);
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "reference: out of memory");
    }
    return CROWD_OK;
}

void crowd_reference_free(crowd_reference *ref)
{
    crowd_free(ref->pose);
    crowd_free(ref->global);
    crowd_free(ref->skin);
    crowd_free(ref->morph_weights);
    memset(ref, 0, sizeof *ref);
}

double crowd_reference_frame_time(const crowd_rig_clip *clip, uint32_t f, uint32_t n)
{
    if (n <= 1)
        return clip->start;
    return clip->start + clip->duration * f / (clip->loop ? n : n - 1);
}

/* 3x4 row-major affine matrices in double. */
static void trs_to_rows(const crowd_trs *t, double m[12])
{
    double x = t->rotation[0], y = t->rotation[1], z = t->rotation[2], w = t->rotation[3];
    double len = sqrt(x * x + y * y + z * z + w * w);
    x /= len, y /= len, z /= len, w /= len;
    double r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
                   2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                   2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
    for (int row = 0; row < 3; row++) {
        for (int c = 0; c < 3; c++)
            m[row * 4 + c] = r[row * 3 + c] * t->scale[c];
        m[row * 4 + 3] = t->translation[row];
    }
}

static void mul_rows(const double a[12], const double b[12], double out[12])
{
    for (int row = 0; row < 3; row++) {
        for (int c = 0; c < 4; c++) {
            double v = a[row * 4] * b[c] + a[row * 4 + 1] * b[4 + c] + a[row * 4 + 2] * b[8 + c];
            out[row * 4 + c] = v + (c == 3 ? a[row * 4 + 3] : 0.0);
        }
    }
}

void crowd_reference_skin(crowd_reference *ref, uint32_t clip, double time, double *positions, double *normals)
{
    const crowd_rig *rig = ref->rig;
    rig->sample(rig, clip, time, ref->pose, ref->morph_weights);
    double *global = ref->global;
    for (uint32_t b = 0; b < rig->bone_count; b++) {
        double local[12];
        trs_to_rows(&ref->pose[b], local);
        int32_t parent = rig->bones[b].parent;
        if (parent < 0)
            memcpy(global + 12 * b, local, sizeof local);
        else
            mul_rows(global + 12 * (uint32_t)parent, local, global + 12 * b);
        double inverse_bind[12];
        for (int row = 0; row < 3; row++)
            for (int c = 0; c < 4; c++)
                inverse_bind[row * 4 + c] = rig->bones[b].inverse_bind[c * 4 + row];
        mul_rows(global + 12 * b, inverse_bind, ref->skin + 12 * b);
    }

    for (uint32_t v = 0; v < rig->vertex_count; v++) {
        double p[3], n[3], m[12] = {0};
        for (int k = 0; k < 3; k++) {
            p[k] = rig->positions[3 * v + k];
            n[k] = rig->normals[3 * v + k];
        }
        for (uint32_t t = 0; t < rig->morph_target_count; t++) {
            size_t i = ((size_t)t * rig->vertex_count + v) * 3;
            for (int k = 0; k < 3; k++) {
                p[k] += (double)ref->morph_weights[t] * rig->morph_positions[i + k];
                if (rig->morph_normals)
                    n[k] += (double)ref->morph_weights[t] * rig->morph_normals[i + k];
            }
        }
        for (uint32_t k = 0; k < rig->influence_count; k++) {
            size_t i = (size_t)v * rig->influence_count + k;
            const double *s = ref->skin + 12 * rig->joints[i];
            for (int e = 0; e < 12; e++)
                m[e] += rig->weights[i] * s[e];
        }
        double *op = positions + 3 * v, *on = normals + 3 * v;
        for (int row = 0; row < 3; row++) {
            op[row] = m[row * 4] * p[0] + m[row * 4 + 1] * p[1] + m[row * 4 + 2] * p[2] + m[row * 4 + 3];
            on[row] = m[row * 4] * n[0] + m[row * 4 + 1] * n[1] + m[row * 4 + 2] * n[2];
        }
        double len = sqrt(on[0] * on[0] + on[1] * on[1] + on[2] * on[2]);
        for (int k = 0; k < 3; k++)
            on[k] = len > 0 ? on[k] / len : (k == 1);
    }
}
