/* Encoder bounds: fp16 (rounding, subnormals, overflow), octahedral normals, 16-bit positions. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "bake/encode.h"
#include "check.h"
#include "core/half.h"
#include "core/octahedral.h"
#include "test_support.h"

static float from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint32_t to_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* Every finite half converts to float and back exactly; infinities and NaN keep their class. */
static void half_round_trip_is_exact(void)
{
    int bad = 0;
    for (uint32_t h = 0; h < 65536; h++) {
        float f = crowd_half_to_float((uint16_t)h);
        uint16_t back = crowd_half_from_float(f);
        bool nan = (h & 0x7C00u) == 0x7C00u && (h & 0x3FFu);
        if (nan)
            bad += !(isnan(f) && (back & 0x7C00u) == 0x7C00u && (back & 0x3FFu));
        else
            bad += back != h;
    }
    CHECKF(bad == 0, "%d halves did not round-trip", bad);
    CHECK(crowd_half_to_float(0x3C00) == 1.0f);
    CHECK(crowd_half_to_float(0x7BFF) == 65504.0f);
    CHECK(crowd_half_to_float(0x0001) == 5.9604644775390625e-8f); /* smallest subnormal 2^-24 */
    CHECK(crowd_half_to_float(0x0400) == 6.103515625e-5f);        /* smallest normal 2^-14 */
}

/* Rounding boundaries, proven by exhaustion: for each pair of adjacent positive halves the exact
 * midpoint rounds to the even one and the floats just either side of it to the nearer one. */
static void half_rounds_to_nearest_even(void)
{
    int bad = 0;
    for (uint32_t h = 0; h < 0x7BFF; h++) {
        float lo = crowd_half_to_float((uint16_t)h), hi = crowd_half_to_float((uint16_t)(h + 1));
        float mid = (float)(((double)lo + hi) / 2.0); /* exact: halves have 11 significant bits */
        uint16_t even = (h & 1u) ? (uint16_t)(h + 1) : (uint16_t)h;
        bad += crowd_half_from_float(mid) != even;
        bad += crowd_half_from_float(from_bits(to_bits(mid) - 1)) != h;
        bad += crowd_half_from_float(from_bits(to_bits(mid) + 1)) != h + 1;
        bad += crowd_half_from_float(-mid) != (uint16_t)(even | 0x8000u);
    }
    CHECKF(bad == 0, "%d rounding-boundary cases wrong", bad);
}

static void half_overflow_underflow_and_specials(void)
{
    CHECK(crowd_half_from_float(65504.0f) == 0x7BFF);
    CHECK(crowd_half_from_float(65519.996f) == 0x7BFF); /* below the midpoint to 65536 */
    CHECK(crowd_half_from_float(65520.0f) == 0x7C00);   /* midpoint: ties to even = infinity */
    CHECK(crowd_half_from_float(1e9f) == 0x7C00);
    CHECK(crowd_half_from_float(-1e9f) == 0xFC00);
    CHECK(crowd_half_from_float(INFINITY) == 0x7C00);
    CHECK(crowd_half_from_float(-INFINITY) == 0xFC00);
    uint16_t nan = crowd_half_from_float(NAN);
    CHECK((nan & 0x7C00) == 0x7C00 && (nan & 0x3FF) != 0);
    CHECK(crowd_half_from_float(2.9802322e-8f) == 0x0000); /* 2^-25: tie between 0 and 2^-24 -> 0 */
    CHECK(crowd_half_from_float(2.9802326e-8f) == 0x0001); /* just above the tie */
    CHECK(crowd_half_from_float(1e-30f) == 0x0000);
    CHECK(crowd_half_from_float(-1e-30f) == 0x8000); /* signed zero */
    CHECK(crowd_half_from_float(-0.0f) == 0x8000);
    CHECK(crowd_half_from_float(6.1035156e-5f) == 0x0400);
}

/* The documented bound on random floats over the normal range: half an ulp. */
static void half_error_bound(void)
{
    uint64_t state = 42;
    double worst = 0.0;
    for (int i = 0; i < 1000000; i++) {
        float f = (float)(ldexp(1.0 + test_uniform(&state), (int)(test_rand(&state) % 29) - 14)); /* < 32768 */
        float back = crowd_half_to_float(crowd_half_from_float(f));
        int e;
        frexp(f, &e); /* f = m * 2^e, m in [0.5, 1) */
        double ulp = ldexp(1.0, e - 11);
        worst = fmax(worst, fabs((double)back - f) / ulp);
    }
    CHECKF(worst <= 0.5, "worst error %.4f ulp", worst);
}

static void random_unit(uint64_t *state, float n[3])
{
    double z = 2.0 * test_uniform(state) - 1.0, a = 2.0 * 3.14159265358979 * test_uniform(state);
    double r = sqrt(fmax(0.0, 1.0 - z * z));
    n[0] = (float)(r * cos(a));
    n[1] = (float)(r * sin(a));
    n[2] = (float)z;
}

static double angle(const float a[3], const float b[3])
{
    double d = (double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2];
    double c[3] = {(double)a[1] * b[2] - (double)a[2] * b[1], (double)a[2] * b[0] - (double)a[0] * b[2],
                   (double)a[0] * b[1] - (double)a[1] * b[0]};
    return atan2(sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]), d);
}

/* Octahedral at 8 and 16 bits: the proven bound holds over a million directions plus the axes and
 * the octant seams; the precise rounding is never worse than nearest. */
static void octahedral_bounds(void)
{
    uint64_t state = 7;
    for (unsigned bits = 8; bits <= 16; bits += 8) {
        double bound = crowd_oct_error_bound(bits), worst = 0.0, worst_precise = 0.0, length_error = 0.0;
        int precise_worse = 0;
        for (int i = 0; i < 1000000 + 26; i++) {
            float n[3];
            if (i < 26) { /* axes, edges and corners of the cube, normalised */
                int x = i % 3 - 1, y = (i / 3) % 3 - 1, z = (i / 9) % 3 - 1;
                if (!x && !y && !z)
                    z = 1;
                float l = sqrtf((float)(x * x + y * y + z * z));
                n[0] = x / l, n[1] = y / l, n[2] = z / l;
            } else {
                random_unit(&state, n);
            }
            uint16_t q[2], p[2];
            float d[3], dp[3];
            crowd_oct_quantize(n, bits, q);
            crowd_oct_dequantize(q, bits, d);
            crowd_oct_quantize_precise(n, bits, p);
            crowd_oct_dequantize(p, bits, dp);
            double e = angle(n, d), ep = angle(n, dp);
            worst = fmax(worst, e);
            worst_precise = fmax(worst_precise, ep);
            precise_worse += ep > e + 1e-7;
            length_error =
                fmax(length_error, fabs(sqrt((double)d[0] * d[0] + (double)d[1] * d[1] + (double)d[2] * d[2]) - 1.0));
        }
        CHECKF(worst <= bound, "%u bits: worst %.6f rad, bound %.6f", bits, worst, bound);
        CHECKF(worst_precise <= worst, "%u bits: precise %.6f worse than nearest %.6f", bits, worst_precise, worst);
        CHECKF(precise_worse == 0, "%u bits: precise rounding worse in %d cases", bits, precise_worse);
        CHECK(length_error < 1e-6);
        printf("     octahedral %2u bits: worst %.4f deg nearest, %.4f deg precise, bound %.4f deg\n", bits,
               worst * 57.29578, worst_precise * 57.29578, bound * 57.29578);
    }
    /* zero-length input encodes a direction, not NaN */
    float zero[3] = {0, 0, 0}, s[2];
    crowd_oct_encode(zero, s);
    CHECK(s[0] == 0.0f && s[1] == 0.0f);
}

/* Octahedral through fp16 (the seed-compatible path): bound with step 2^-11. */
static void octahedral_fp16_bound(void)
{
    uint64_t state = 99;
    double worst = 0.0, bound = CROWD_OCT_ERROR_FACTOR / 2048.0;
    for (int i = 0; i < 200000; i++) {
        float n[3], s[2], d[3];
        random_unit(&state, n);
        crowd_oct_encode(n, s);
        float h[2] = {crowd_half_to_float(crowd_half_from_float(s[0])),
                      crowd_half_to_float(crowd_half_from_float(s[1]))};
        crowd_oct_decode(h, d);
        worst = fmax(worst, angle(n, d));
    }
    CHECKF(worst <= bound, "fp16 octahedral worst %.6f rad, bound %.6f", worst, bound);
}

/* 16-bit box positions: half a quantum, whatever the box. */
static void position_u16_bound(void)
{
    uint64_t state = 3;
    double worst = 0.0;
    for (int i = 0; i < 1000000; i++) {
        float min = (float)(test_uniform(&state) * 4 - 2), extent = (float)(test_uniform(&state) * 5 + 1e-3);
        float v = min + (float)test_uniform(&state) * extent;
        uint16_t q = crowd_quantize_unorm16(v, min, extent);
        float decoded = min + (float)q * (extent / 65535.0f); /* the shader's decode */
        /* half a quantum, plus the float rounding of the decode itself (an ulp or two of the value) */
        double allowed = 0.5 * extent / 65535.0 + 2.0 * FLT_EPSILON * fmax(fabs(min), fabs(min + extent));
        worst = fmax(worst, fabs((double)decoded - v) / allowed);
    }
    CHECKF(worst <= 1.0, "worst %.5f of the allowed error", worst);
    CHECK(crowd_quantize_unorm16(5.0f, 1.0f, 0.0f) == 0);   /* flat axis */
    CHECK(crowd_quantize_unorm16(-10.0f, 0.0f, 1.0f) == 0); /* clamped */
    CHECK(crowd_quantize_unorm16(10.0f, 0.0f, 1.0f) == 65535);
    CHECK(crowd_quantize_unorm16(NAN, 0.0f, 1.0f) == 0);
}

int main(void)
{
    RUN_TEST(half_round_trip_is_exact);
    RUN_TEST(half_rounds_to_nearest_even);
    RUN_TEST(half_overflow_underflow_and_specials);
    RUN_TEST(half_error_bound);
    RUN_TEST(octahedral_bounds);
    RUN_TEST(octahedral_fp16_bound);
    RUN_TEST(position_u16_bound);
    TEST_MAIN_END();
}
