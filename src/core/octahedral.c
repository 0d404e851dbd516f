#include "core/octahedral.h"

#include <math.h>
#include <stdbool.h>

/* Error bound. In the upper half the decoder forms v = (u1, u2, 1 - |u1| - |u2|) and normalises.
 * A rounding error e = (e1, e2), |ei| <= d/2, changes v by (e1, e2, -(+-e1 +- e2)), whose length is
 * at most sqrt(e1^2 + e2^2 + (|e1| + |e2|)^2) <= d * sqrt(1.5). On the octahedron |v| >= 1/sqrt(3),
 * and normalising divides a perpendicular displacement by |v|, so the direction turns by at most
 * d * sqrt(1.5) * sqrt(3). The fold used for the lower half is piecewise linear with the same unit
 * slopes, so the same bound holds there. */
float crowd_oct_error_bound(unsigned bits)
{
    float step = 2.0f / (float)((1u << bits) - 1u);
    /* + float rounding in the decode (normalisation), which the exact-arithmetic bound ignores */
    return CROWD_OCT_ERROR_FACTOR * step + 1e-6f;
}

static float sign_not_zero(float x)
{
    return x >= 0.0f ? 1.0f : -1.0f;
}

void crowd_oct_encode(const float n[3], float square[2])
{
    float l1 = fabsf(n[0]) + fabsf(n[1]) + fabsf(n[2]);
    if (!(l1 > 0.0f)) { /* no direction: encode +Z rather than NaN */
        square[0] = square[1] = 0.0f;
        return;
    }
    float x = n[0] / l1, y = n[1] / l1;
    if (n[2] < 0.0f) {
        float fx = (1.0f - fabsf(y)) * sign_not_zero(x);
        float fy = (1.0f - fabsf(x)) * sign_not_zero(y);
        x = fx;
        y = fy;
    }
    square[0] = x;
    square[1] = y;
}

/* Mirrors the shader:
 *   vec3 n = vec3(s, 1.0 - abs(s.x) - abs(s.y));
 *   float t = max(-n.z, 0.0);
 *   n.x += n.x >= 0.0 ? -t : t;  n.y += n.y >= 0.0 ? -t : t;
 *   n = normalize(n);
 * (for z < 0 this equals the fold x' = (1 - |y|) sign(x), y' = (1 - |x|) sign(y)). */
void crowd_oct_decode(const float square[2], float n[3])
{
    float x = square[0], y = square[1];
    float z = 1.0f - fabsf(x) - fabsf(y);
    float t = fmaxf(-z, 0.0f);
    x += x >= 0.0f ? -t : t;
    y += y >= 0.0f ? -t : t;
    float inv = 1.0f / sqrtf(x * x + y * y + z * z);
    n[0] = x * inv;
    n[1] = y * inv;
    n[2] = z * inv;
}

static float quantum_max(unsigned bits)
{
    return (float)((1u << bits) - 1u);
}

void crowd_oct_dequantize(const uint16_t q[2], unsigned bits, float n[3])
{
    float max = quantum_max(bits);
    float s[2] = {(float)q[0] / max * 2.0f - 1.0f, (float)q[1] / max * 2.0f - 1.0f};
    crowd_oct_decode(s, n);
}

static uint16_t quantize_channel(float s, float max)
{
    float v = (s * 0.5f + 0.5f) * max;
    if (!(v > 0.0f))
        return 0;
    if (v >= max)
        return (uint16_t)max;
    return (uint16_t)(v + 0.5f);
}

void crowd_oct_quantize(const float n[3], unsigned bits, uint16_t q[2])
{
    float s[2];
    crowd_oct_encode(n, s);
    float max = quantum_max(bits);
    q[0] = quantize_channel(s[0], max);
    q[1] = quantize_channel(s[1], max);
}

void crowd_oct_quantize_precise(const float n[3], unsigned bits, uint16_t q[2])
{
    float s[2];
    crowd_oct_encode(n, s);
    float max = quantum_max(bits);
    float base[2] = {floorf((s[0] * 0.5f + 0.5f) * max), floorf((s[1] * 0.5f + 0.5f) * max)};
    /* Compare candidates by tan^2 of their angle to n, |d x n|^2 / (d . n)^2, in double: it does not
     * depend on the vectors' lengths (the float decode is not exactly unit), and it resolves the
     * tiny angles of 16-bit grids where a float dot product cannot. */
    double best_cross = 1.0, best_dot = 0.0;
    bool have = false;
    for (int dx = 0; dx <= 1; dx++) {
        for (int dy = 0; dy <= 1; dy++) {
            float cx = fminf(fmaxf(base[0] + (float)dx, 0.0f), max);
            float cy = fminf(fmaxf(base[1] + (float)dy, 0.0f), max);
            uint16_t candidate[2] = {(uint16_t)cx, (uint16_t)cy};
            float d[3];
            crowd_oct_dequantize(candidate, bits, d);
            double dot = (double)d[0] * n[0] + (double)d[1] * n[1] + (double)d[2] * n[2];
            double x = (double)d[1] * n[2] - (double)d[2] * n[1], y = (double)d[2] * n[0] - (double)d[0] * n[2],
                   z = (double)d[0] * n[1] - (double)d[1] * n[0];
            double cross = x * x + y * y + z * z;
            if (dot <= 0.0)
                continue;
            if (!have || cross * best_dot * best_dot < best_cross * dot * dot) {
                have = true;
                best_cross = cross;
                best_dot = dot;
                q[0] = candidate[0];
                q[1] = candidate[1];
            }
        }
    }
    if (!have)
        crowd_oct_quantize(n, bits, q);
}
