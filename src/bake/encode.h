/* Internal: encoding skinned frames into animation texels. Decoding lives in crowd_core
 * (asset_decode.c) and mirrors the shaders; these are the exact inverses, with known bounds:
 *   U16_BOX position:  |error| <= extent / 65535 / 2 per axis (+ float rounding)
 *   F16_BOX position:  |error| <= extent * 2^-12 per axis (half an fp16 ulp just below 1.0)
 *   octahedral normal: angle <= crowd_oct_error_bound(bits) (16 bits: 0.0037 deg; 8 bits: 0.95 deg) */
#ifndef CROWD_BAKE_ENCODE_H
#define CROWD_BAKE_ENCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Box-normalised 16-bit positions into RGBA16UI texels. w receives the 8+8-bit octahedral
 * normal (precise rounding) when `normals` is non-NULL (compact mode), else 0. */
void crowd_encode_positions_u16(const float *positions, const float *normals, size_t count, const float box_min[3],
                                const float box_max[3], uint16_t *texels);

/* 16+16-bit octahedral normals into RG16UI texels. */
void crowd_encode_normals_oct16(const float *normals, size_t count, uint16_t *texels);

/* Half-float box-normalised positions (RGBA16F, w = 0) and octahedral normals (RG16F). */
void crowd_encode_positions_f16(const float *positions, size_t count, const float box_min[3], const float box_max[3],
                                uint16_t *texels);
void crowd_encode_normals_f16(const float *normals, size_t count, uint16_t *texels);

/* Tangents into RG16UI: 16-bit octahedral x and y, with y's lowest bit replaced by the
 * handedness (1 = -1; the decoder masks it off). `tangents` is xyz, re-orthogonalised against
 * `normals` here; the handedness comes from `bind_tangents` (xyzw, vertex i % vertex_count). */
void crowd_encode_tangents(const float *tangents, const float *normals, const float *bind_tangents,
                           uint32_t vertex_count, size_t count, uint16_t *texels);

/* One position component to 16 bits: (v - min) / extent * 65535 rounded half up, clamped. */
uint16_t crowd_quantize_unorm16(float value, float min, float extent);

#endif
