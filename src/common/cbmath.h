/* Internal: the small amount of 3D math the baker and runtime need. Header-only, no state.
 *
 * mat4 is column-major (m[col * 4 + row]) like glTF and GL; quaternions are (x, y, z, w).
 * mat34 is the 3x4 row-major form stored in .crowd files (three rows of xyzw). */
#ifndef CROWD_COMMON_CBMATH_H
#define CROWD_COMMON_CBMATH_H

#include <math.h>
#include <stdbool.h>
#include <string.h>

#define CB_PI 3.14159265358979323846

static inline void cb_mat4_identity(float m[16])
{
    memset(m, 0, 16 * sizeof(float));
    m[0] = m[5] = m[10] = m[15] = 1.0f;
}

/* out = a * b (out may alias neither). */
static inline void cb_mat4_mul(float out[16], const float a[16], const float b[16])
{
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++)
            out[c * 4 + r] = a[0 * 4 + r] * b[c * 4 + 0] + a[1 * 4 + r] * b[c * 4 + 1] + a[2 * 4 + r] * b[c * 4 + 2] +
                             a[3 * 4 + r] * b[c * 4 + 3];
}

/* Rotation-translation-scale -> matrix (T * R * S), glTF's node transform. */
static inline void cb_mat4_from_trs(float m[16], const float t[3], const float q[4], const float s[3])
{
    float x = q[0], y = q[1], z = q[2], w = q[3];
    float xx = x * x, yy = y * y, zz = z * z, xy = x * y, xz = x * z, yz = y * z, wx = w * x, wy = w * y, wz = w * z;
    m[0] = (1 - 2 * (yy + zz)) * s[0];
    m[1] = 2 * (xy + wz) * s[0];
    m[2] = 2 * (xz - wy) * s[0];
    m[3] = 0;
    m[4] = 2 * (xy - wz) * s[1];
    m[5] = (1 - 2 * (xx + zz)) * s[1];
    m[6] = 2 * (yz + wx) * s[1];
    m[7] = 0;
    m[8] = 2 * (xz + wy) * s[2];
    m[9] = 2 * (yz - wx) * s[2];
    m[10] = (1 - 2 * (xx + yy)) * s[2];
    m[11] = 0;
    m[12] = t[0];
    m[13] = t[1];
    m[14] = t[2];
    m[15] = 1;
}

/* General 4x4 inverse by cofactors; returns 0 when singular (|det| tiny), leaving out untouched. */
static inline int cb_mat4_invert(float out[16], const float m[16])
{
    double inv[16], a[16];
    for (int i = 0; i < 16; i++)
        a[i] = m[i];
    inv[0] = a[5] * a[10] * a[15] - a[5] * a[11] * a[14] - a[9] * a[6] * a[15] + a[9] * a[7] * a[14] +
             a[13] * a[6] * a[11] - a[13] * a[7] * a[10];
    inv[4] = -a[4] * a[10] * a[15] + a[4] * a[11] * a[14] + a[8] * a[6] * a[15] - a[8] * a[7] * a[14] -
             a[12] * a[6] * a[11] + a[12] * a[7] * a[10];
    inv[8] = a[4] * a[9] * a[15] - a[4] * a[11] * a[13] - a[8] * a[5] * a[15] + a[8] * a[7] * a[13] +
             a[12] * a[5] * a[11] - a[12] * a[7] * a[9];
    inv[12] = -a[4] * a[9] * a[14] + a[4] * a[10] * a[13] + a[8] * a[5] * a[14] - a[8] * a[6] * a[13] -
              a[12] * a[5] * a[10] + a[12] * a[6] * a[9];
    inv[1] = -a[1] * a[10] * a[15] + a[1] * a[11] * a[14] + a[9] * a[2] * a[15] - a[9] * a[3] * a[14] -
             a[13] * a[2] * a[11] + a[13] * a[3] * a[10];
    inv[5] = a[0] * a[10] * a[15] - a[0] * a[11] * a[14] - a[8] * a[2] * a[15] + a[8] * a[3] * a[14] +
             a[12] * a[2] * a[11] - a[12] * a[3] * a[10];
    inv[9] = -a[0] * a[9] * a[15] + a[0] * a[11] * a[13] + a[8] * a[1] * a[15] - a[8] * a[3] * a[13] -
             a[12] * a[1] * a[11] + a[12] * a[3] * a[9];
    inv[13] = a[0] * a[9] * a[14] - a[0] * a[10] * a[13] - a[8] * a[1] * a[14] + a[8] * a[2] * a[13] +
              a[12] * a[1] * a[10] - a[12] * a[2] * a[9];
    inv[2] = a[1] * a[6] * a[15] - a[1] * a[7] * a[14] - a[5] * a[2] * a[15] + a[5] * a[3] * a[14] +
             a[13] * a[2] * a[7] - a[13] * a[3] * a[6];
    inv[6] = -a[0] * a[6] * a[15] + a[0] * a[7] * a[14] + a[4] * a[2] * a[15] - a[4] * a[3] * a[14] -
             a[12] * a[2] * a[7] + a[12] * a[3] * a[6];
    inv[10] = a[0] * a[5] * a[15] - a[0] * a[7] * a[13] - a[4] * a[1] * a[15] + a[4] * a[3] * a[13] +
              a[12] * a[1] * a[7] - a[12] * a[3] * a[5];
    inv[14] = -a[0] * a[5] * a[14] + a[0] * a[6] * a[13] + a[4] * a[1] * a[14] - a[4] * a[2] * a[13] -
              a[12] * a[1] * a[6] + a[12] * a[2] * a[5];
    inv[3] = -a[1] * a[6] * a[11] + a[1] * a[7] * a[10] + a[5] * a[2] * a[11] - a[5] * a[3] * a[10] -
             a[9] * a[2] * a[7] + a[9] * a[3] * a[6];
    inv[7] = a[0] * a[6] * a[11] - a[0] * a[7] * a[10] - a[4] * a[2] * a[11] + a[4] * a[3] * a[10] +
             a[8] * a[2] * a[7] - a[8] * a[3] * a[6];
    inv[11] = -a[0] * a[5] * a[11] + a[0] * a[7] * a[9] + a[4] * a[1] * a[11] - a[4] * a[3] * a[9] -
              a[8] * a[1] * a[7] + a[8] * a[3] * a[5];
    inv[15] = a[0] * a[5] * a[10] - a[0] * a[6] * a[9] - a[4] * a[1] * a[10] + a[4] * a[2] * a[9] + a[8] * a[1] * a[6] -
              a[8] * a[2] * a[5];
    double det = a[0] * inv[0] + a[1] * inv[4] + a[2] * inv[8] + a[3] * inv[12];
    if (!(fabs(det) > 1e-30))
        return 0;
    for (int i = 0; i < 16; i++)
        out[i] = (float)(inv[i] / det);
    return 1;
}

static inline void cb_mat4_transform_point(const float m[16], const float p[3], float out[3])
{
    for (int r = 0; r < 3; r++)
        out[r] = m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r];
}

/* Column-major 4x4 -> row-major 3x4 (drops the last row, which is 0 0 0 1 for affine m). */
static inline void cb_mat4_to_mat34(const float m[16], float out[12])
{
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 4; c++)
            out[r * 4 + c] = m[c * 4 + r];
}

static inline void cb_quat_normalize(float q[4])
{
    float len = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (len > 0.0f)
        for (int i = 0; i < 4; i++)
            q[i] /= len;
}

/* out = a * b (apply b, then a); out may alias neither. */
static inline void cb_quat_mul(const float a[4], const float b[4], float out[4])
{
    out[0] = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    out[1] = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    out[2] = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    out[3] = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
}

/* out = conj(a) * b: the turn from a to b (unit quaternions); out may alias neither. */
static inline void cb_quat_mul_conj_left(const float a[4], const float b[4], float out[4])
{
    const float c[4] = {-a[0], -a[1], -a[2], a[3]};
    cb_quat_mul(c, b, out);
}

/* Scales v to unit length; false (v unchanged) when it is zero or not finite. Any finite non-zero
 * length works, 1e-40 or 3e38 alike: the components are divided by the largest first, so their
 * squares neither overflow nor vanish. */
static inline bool cb_vec3_normalize_any(float v[3])
{
    if (!isfinite(v[0]) || !isfinite(v[1]) || !isfinite(v[2]))
        return false;
    float big = fmaxf(fabsf(v[0]), fmaxf(fabsf(v[1]), fabsf(v[2])));
    if (!(big > 0.0f))
        return false;
    float x = v[0] / big, y = v[1] / big, z = v[2] / big, len = sqrtf(x * x + y * y + z * z);
    v[0] = x / len, v[1] = y / len, v[2] = z / len;
    return true;
}

/* Rotation part of an orthonormal 3x3 (given as columns x, y, z) -> unit quaternion. Double
 * precision: the procedural rig builds its poses from IK bases with it. */
static inline void cb_quat_from_basis(const double x[3], const double y[3], const double z[3], double q[4])
{
    double m00 = x[0], m10 = x[1], m20 = x[2], m01 = y[0], m11 = y[1], m21 = y[2], m02 = z[0], m12 = z[1], m22 = z[2];
    double trace = m00 + m11 + m22;
    if (trace > 0) {
        double s = sqrt(trace + 1.0) * 2;
        q[3] = 0.25 * s;
        q[0] = (m21 - m12) / s;
        q[1] = (m02 - m20) / s;
        q[2] = (m10 - m01) / s;
    } else if (m00 > m11 && m00 > m22) {
        double s = sqrt(1.0 + m00 - m11 - m22) * 2;
        q[3] = (m21 - m12) / s;
        q[0] = 0.25 * s;
        q[1] = (m01 + m10) / s;
        q[2] = (m02 + m20) / s;
    } else if (m11 > m22) {
        double s = sqrt(1.0 + m11 - m00 - m22) * 2;
        q[3] = (m02 - m20) / s;
        q[0] = (m01 + m10) / s;
        q[1] = 0.25 * s;
        q[2] = (m12 + m21) / s;
    } else {
        double s = sqrt(1.0 + m22 - m00 - m11) * 2;
        q[3] = (m10 - m01) / s;
        q[0] = (m02 + m20) / s;
        q[1] = (m12 + m21) / s;
        q[2] = 0.25 * s;
    }
    double len = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int i = 0; i < 4; i++)
        q[i] /= len;
}

#endif
