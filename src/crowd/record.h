/* Internal: the record's packed words, decoded and written exactly as the shaders read them
 * (record.glsl, operation for operation): clip indices and flags, the half-float velocity, the
 * extrapolated position and yaw, turning records (crowd.h "crowd_record", docs/format.md "Motion").
 * Shared by the runtime, the simulation and the tests; nothing here knows a crowd. */
#ifndef CROWD_RECORD_H
#define CROWD_RECORD_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "crowdbake/crowd.h"

static inline uint32_t crowd_rec_clip_a(const crowd_record *r)
{
    return r->clips & CROWD_RECORD_CLIP_MASK;
}
static inline uint32_t crowd_rec_clip_b(const crowd_record *r)
{
    return (r->clips >> 12) & CROWD_RECORD_CLIP_MASK;
}
static inline void crowd_rec_set_clip_a(crowd_record *r, uint32_t clip)
{
    r->clips = (r->clips & ~CROWD_RECORD_CLIP_MASK) | (clip & CROWD_RECORD_CLIP_MASK);
}
static inline void crowd_rec_set_clip_b(crowd_record *r, uint32_t clip)
{
    r->clips = (r->clips & ~(CROWD_RECORD_CLIP_MASK << 12)) | (clip & CROWD_RECORD_CLIP_MASK) << 12;
}

/* IEEE half <-> float. Packing rounds to nearest even, stores magnitudes under 2^-14 as +0 and
 * clamps at 65504; unpacking is exact and is the shaders' record_half (record.glsl) bit for bit. */
static inline uint32_t crowd_rec_half(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint32_t sign = (x >> 16) & 0x8000u, a = x & 0x7FFFFFFFu;
    if (a < 0x38800000u) /* below the smallest normal half (NaN never gets here: callers check) */
        return 0u;
    if (a >= 0x477FE000u)
        return sign | 0x7BFFu;
    uint32_t r = a - 0x38000000u; /* exponent rebased from 127 to 15 */
    return sign | ((r + 0x0FFFu + ((r >> 13) & 1u)) >> 13);
}
static inline float crowd_rec_unhalf(uint32_t h)
{
    uint32_t x = (h & 0x7C00u) ? ((h & 0x8000u) << 16) | (((h & 0x7FFFu) + 0x1C000u) << 13) : 0u;
    float f;
    memcpy(&f, &x, sizeof f);
    return f;
}
static inline uint32_t crowd_pack_velocity(float vx, float vz)
{
    return crowd_rec_half(vx) | crowd_rec_half(vz) << 16;
}
static inline bool crowd_rec_turning(const crowd_record *r)
{
    return (r->clips & CROWD_RECORD_TURN) != 0;
}
/* Where record r places its instance at shader time t: the one formula every CPU path uses
 * (record.glsl's record_position, operation for operation). A turning record: the velocity
 * v(t) = d + (v0 - d) e^(-k dt) integrated, p0 + d dt + (v0 - d) (1 - e^(-k dt)) / k. */
static inline void crowd_rec_position(const crowd_record *r, float t, float out[3])
{
    float dt = t - r->ref_time;
    float vx = crowd_rec_unhalf(r->velocity & 0xFFFFu), vz = crowd_rec_unhalf(r->velocity >> 16);
    if (r->clips & CROWD_RECORD_TURN) {
        float k = r->fade_start, e = expf(-k * dt), w = (1.0f - e) / k;
        out[0] = r->position[0] + r->offset_b * dt + (vx - r->offset_b) * w;
        out[1] = r->position[1];
        out[2] = r->position[2] + r->rate_b * dt + (vz - r->rate_b) * w;
        return;
    }
    out[0] = r->position[0] + vx * dt;
    out[1] = r->position[1];
    out[2] = r->position[2] + vz * dt;
}
/* A clip's phase at shader time t from its offset and rate: fract for a looping play, clamped to
 * [0, 1] for a held one (crowd.vert's clip_sample, record.wgsl's record_phase, operation for
 * operation; fract is p - floor(p) in all three). */
static inline float crowd_rec_phase(float offset, float rate, bool hold, float t)
{
    float p = offset + t * rate;
    return hold ? (p < 0.0f ? 0.0f : p > 1.0f ? 1.0f : p) : p - floorf(p);
}
/* A turning record's velocity at t (record.glsl's record_turn_velocity). */
static inline void crowd_rec_turn_velocity(const crowd_record *r, float t, float v[2])
{
    float e = expf(-r->fade_start * (t - r->ref_time));
    float vx = crowd_rec_unhalf(r->velocity & 0xFFFFu), vz = crowd_rec_unhalf(r->velocity >> 16);
    v[0] = r->offset_b + (vx - r->offset_b) * e;
    v[1] = r->rate_b + (vz - r->rate_b) * e;
}
/* atan2 to about 1e-3 rad without a libm call: the yaw of every moving agent (the simulation's, and
 * a turning record's decode: record.glsl's record_atan2, operation for operation). */
static inline float crowd_atan2(float y, float x)
{
    float ax = fabsf(x), ay = fabsf(y); /* finite: plain compares, not fminf's NaN-aware libm call */
    float a = (ax < ay ? ax : ay) / ((ax < ay ? ay : ax) + 1e-20f), s = a * a;
    float r = ((-0.0464964749f * s + 0.15931422f) * s - 0.327622764f) * s * a + a;
    if (ay > ax)
        r = 1.57079637f - r;
    if (x < 0.0f)
        r = 3.14159274f - r;
    return y < 0.0f ? -r : r;
}
/* Below this speed squared (0.05 m/s) a turning record shows its yaw field, as the simulation
 * keeps an agent's heading while it barely moves. */
#define CROWD_TURN_YAW_SPEED2 0.0025f
/* The yaw record r shows at shader time t (record.glsl's record_yaw). */
static inline float crowd_rec_yaw(const crowd_record *r, float t)
{
    if (!(r->clips & CROWD_RECORD_TURN))
        return r->yaw;
    float v[2];
    crowd_rec_turn_velocity(r, t, v);
    return v[0] * v[0] + v[1] * v[1] > CROWD_TURN_YAW_SPEED2 ? crowd_atan2(v[0], v[1]) : r->yaw;
}
/* |vx| + |vz| of a record: a bound on its speed (culling bounds grow by speed x staleness). A
 * turning record's velocity lies between v0 and d component by component, so max(|v0x|, |dx|) +
 * max(|v0z|, |dz|) bounds it at any time: |p(t) - p(t')| <= that x |t - t'|. */
static inline float crowd_rec_speed_bound(const crowd_record *r)
{
    float x = crowd_rec_unhalf(r->velocity & 0x7FFFu), z = crowd_rec_unhalf((r->velocity >> 16) & 0x7FFFu);
    if (r->clips & CROWD_RECORD_TURN) {
        float dx = fabsf(r->offset_b), dz = fabsf(r->rate_b);
        x = dx > x ? dx : x;
        z = dz > z ? dz : z;
    }
    return x + z;
}
/* Whether the record moves at all (its chunk bounds grow with time). */
static inline bool crowd_rec_moves(const crowd_record *r)
{
    return r->velocity != 0u || (r->clips & CROWD_RECORD_TURN);
}
/* A turning record becomes a straight one (no-op for others): clip B's words back to clip A's, as
 * when no fade runs. The caller writes the motion. */
static inline void crowd_rec_clear_turn(crowd_record *r)
{
    if (r->clips & CROWD_RECORD_TURN) {
        r->clips &= ~(uint32_t)CROWD_RECORD_TURN;
        r->offset_b = r->offset_a;
        r->rate_b = r->rate_a;
        r->fade_start = 0.0f;
    }
}
/* A new straight motion: at p (x, z) at time t, walking on at the velocity word. */
static inline void crowd_rec_set_motion(crowd_record *r, const float p[3], float t, uint32_t velocity)
{
    crowd_rec_clear_turn(r);
    r->position[0] = p[0];
    r->position[2] = p[2];
    r->ref_time = t;
    r->velocity = velocity;
}
/* Re-anchors a record at time t (its position there), for a write that changes its motion. A
 * turning record goes straight on from there at its velocity and yaw then (the velocity rounded
 * to halves). */
static inline void crowd_rec_anchor(crowd_record *r, float t)
{
    float p[3];
    crowd_rec_position(r, t, p);
    uint32_t velocity = r->velocity;
    if (r->clips & CROWD_RECORD_TURN) {
        float v[2];
        crowd_rec_turn_velocity(r, t, v);
        r->yaw = crowd_rec_yaw(r, t);
        velocity = crowd_pack_velocity(v[0], v[1]);
    }
    crowd_rec_set_motion(r, p, t, velocity);
}

/* A finished fade: clip B becomes clip A, hold flag included. */
static inline void crowd_rec_fold_fade(crowd_record *r)
{
    crowd_rec_set_clip_a(r, crowd_rec_clip_b(r));
    r->offset_a = r->offset_b;
    r->rate_a = r->rate_b;
    r->fade_rate = 0.0f;
    r->clips = (r->clips & ~CROWD_RECORD_HOLD_A) | ((r->clips & CROWD_RECORD_HOLD_B) ? CROWD_RECORD_HOLD_A : 0u);
}

#endif
