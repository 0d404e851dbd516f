/* Internal: IEEE 754 binary16 ("half float") conversion. */
#ifndef CROWD_CORE_HALF_H
#define CROWD_CORE_HALF_H

#include <stdint.h>

/* float -> half, round to nearest, ties to even. Values below half the smallest subnormal
 * (2^-25) become signed zero, subnormals are produced exactly, magnitudes >= 65520 become
 * infinity, NaN stays NaN (quiet, payload truncated). Error bound for a normal result:
 * |half(x) - x| <= 2^-11 * 2^floor(log2|x|), i.e. half a unit in the last place. */
uint16_t crowd_half_from_float(float value);

/* half -> float, exact for every input (subnormals, infinities, NaN included). */
float crowd_half_to_float(uint16_t half);

#endif
