/* Internal: camera matrices for the tools and the demo (engines bring their own). Column-major,
 * GL clip conventions (z in [-w, w]). */
#ifndef CROWD_COMMON_VIEW_MATRICES_H
#define CROWD_COMMON_VIEW_MATRICES_H

#include <math.h>
#include <string.h>

static inline void cb_look_at(float m[16], const float eye[3], const float target[3], const float up[3])
{
    float f[3] = {target[0] - eye[0], target[1] - eye[1], target[2] - eye[2]};
    float fl = sqrtf(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
    for (int i = 0; i < 3; i++)
        f[i] /= fl;
    float s[3] = {f[1] * up[2] - f[2] * up[1], f[2] * up[0] - f[0] * up[2], f[0] * up[1] - f[1] * up[0]};
    float sl = sqrtf(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
    for (int i = 0; i < 3; i++)
        s[i] /= sl;
    float u[3] = {s[1] * f[2] - s[2] * f[1], s[2] * f[0] - s[0] * f[2], s[0] * f[1] - s[1] * f[0]};
    float r[16] = {s[0],
                   u[0],
                   -f[0],
                   0,
                   s[1],
                   u[1],
                   -f[1],
                   0,
                   s[2],
                   u[2],
                   -f[2],
                   0,
                   -(s[0] * eye[0] + s[1] * eye[1] + s[2] * eye[2]),
                   -(u[0] * eye[0] + u[1] * eye[1] + u[2] * eye[2]),
                   f[0] * eye[0] + f[1] * eye[1] + f[2] * eye[2],
                   1};
    memcpy(m, r, sizeof r);
}

static inline void cb_perspective(float m[16], float fovy_radians, float aspect, float near_z, float far_z)
{
    float f = 1.0f / tanf(fovy_radians * 0.5f);
    memset(m, 0, 16 * sizeof(float));
    m[0] = f / aspect;
    m[5] = f;
    m[10] = (far_z + near_z) / (near_z - far_z);
    m[11] = -1.0f;
    m[14] = 2.0f * far_z * near_z / (near_z - far_z);
}

static inline void cb_orthographic(float m[16], float left, float right, float bottom, float top, float near_z,
                                   float far_z)
{
    memset(m, 0, 16 * sizeof(float));
    m[0] = 2.0f / (right - left);
    m[5] = 2.0f / (top - bottom);
    m[10] = -2.0f / (far_z - near_z);
    m[12] = -(right + left) / (right - left);
    m[13] = -(top + bottom) / (top - bottom);
    m[14] = -(far_z + near_z) / (far_z - near_z);
    m[15] = 1.0f;
}

#endif
