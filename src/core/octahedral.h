/* Internal: octahedral unit-vector encoding (Meyer et al., "On floating-point normal vectors").
 *
 * A unit vector is projected onto the octahedron |x|+|y|+|z| = 1, the lower half folded over the
 * upper, and the resulting square [-1,1]^2 stored in two channels. Quantising each channel to
 * b bits with step d = 2 / (2^b - 1) moves the decoded direction by at most
 * CROWD_OCT_ERROR_FACTOR * d radians (see octahedral.c for the derivation). */
#ifndef CROWD_CORE_OCTAHEDRAL_H
#define CROWD_CORE_OCTAHEDRAL_H

#include <stdint.h>

#define CROWD_OCT_ERROR_FACTOR 2.1214f /* sqrt(1.5) * sqrt(3), rounded up */

/* Direction (any length; zero gives +Z) -> square coordinates in [-1, 1]^2. */
void crowd_oct_encode(const float n[3], float square[2]);

/* Square coordinates -> unit vector, with the same operations as the GLSL decode. */
void crowd_oct_decode(const float square[2], float n[3]);

/* Quantised forms. `bits` is 8 or 16; the stored integer is round((s * 0.5 + 0.5) * (2^bits - 1)).
 * The _precise variant tries the four neighbouring grid points and keeps the one whose decode is
 * closest to n: same decoder, about a third lower worst-case error at 8 bits (0.63 deg vs 0.95). */
void crowd_oct_quantize(const float n[3], unsigned bits, uint16_t q[2]);
void crowd_oct_quantize_precise(const float n[3], unsigned bits, uint16_t q[2]);
void crowd_oct_dequantize(const uint16_t q[2], unsigned bits, float n[3]);

/* Worst-case angular error in radians for `bits` per channel (a proven bound, plus 1e-6 rad for the
 * float arithmetic of the decode). */
float crowd_oct_error_bound(unsigned bits);

#endif
