#include "core/half.h"

#include <string.h>

static uint32_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float bits_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* Shifts `mantissa` right by `shift` (1..31), rounding to nearest with ties to even. */
static uint32_t shift_round_even(uint32_t mantissa, uint32_t shift)
{
    uint32_t kept = mantissa >> shift;
    uint32_t rest = mantissa & ((1u << shift) - 1u);
    uint32_t halfway = 1u << (shift - 1u);
    if (rest > halfway || (rest == halfway && (kept & 1u)))
        kept++;
    return kept;
}

uint16_t crowd_half_from_float(float value)
{
    uint32_t bits = float_bits(value);
    uint16_t sign = (uint16_t)((bits >> 16) & 0x8000u);
    uint32_t magnitude = bits & 0x7FFFFFFFu;

    if (magnitude >= 0x7F800000u) { /* infinity or NaN */
        if (magnitude == 0x7F800000u)
            return sign | 0x7C00u;
        return sign | 0x7E00u | (uint16_t)((magnitude >> 13) & 0x1FFu);
    }
    if (magnitude >= 0x477FF000u) /* >= 65520: rounds past the largest half (65504) */
        return sign | 0x7C00u;
    if (magnitude < 0x38800000u) { /* below 2^-14: a subnormal half, or zero */
        uint32_t exponent = magnitude >> 23;
        if (exponent < 102u) /* below 2^-25: rounds to zero */
            return sign;
        uint32_t mantissa = (magnitude & 0x7FFFFFu) | 0x800000u;
        /* value = mantissa * 2^(exponent-150); in units of 2^-24 that is mantissa >> (126-exponent).
         * A carry into 0x400 correctly yields the smallest normal. */
        return sign | (uint16_t)shift_round_even(mantissa, 126u - exponent);
    }
    /* Normal: rebias the exponent (127 -> 15) and round the 23-bit mantissa to 10 bits. A carry
     * out of the mantissa increments the exponent, which is exactly right. */
    return sign | (uint16_t)shift_round_even(magnitude - 0x38000000u, 13u);
}

float crowd_half_to_float(uint16_t half)
{
    uint32_t sign = (uint32_t)(half & 0x8000u) << 16;
    uint32_t exponent = (half >> 10) & 0x1Fu;
    uint32_t mantissa = half & 0x3FFu;

    if (exponent == 0x1Fu) /* infinity or NaN */
        return bits_float(sign | 0x7F800000u | (mantissa << 13));
    if (exponent != 0)
        return bits_float(sign | ((exponent + 112u) << 23) | (mantissa << 13));
    if (mantissa == 0)
        return bits_float(sign);
    /* Subnormal: mantissa * 2^-24, exact in float. */
    float value = (float)mantissa * (1.0f / 16777216.0f);
    return sign ? -value : value;
}
