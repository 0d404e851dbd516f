// The record decode (docs/format.md "Playback" and "Motion"), prepended to every vertex and
// compute shader the library builds, so each shader that reads a crowd_record (crowd.vert,
// attachment.vert, cull.comp, and any new one) decodes it one way. crowd.c mirrors it on the CPU:
// crowd_record_position, crowd_record_velocity, crowd_record_clip, crowd_record_sample.
// A record is 16 words: transform = words 0-3, play_a = 4-7, play_b = 8-11, look = 12-15. As
// instance attributes that is three vec4 and one uvec4; in a std430 buffer it is this struct.
struct crowd_rec {
    vec4 transform; // position x y z (at ref_time), yaw
    vec4 play_a;    // offset_a, rate_a, scale, ref_time
    vec4 play_b;    // offset_b, rate_b, fade_start, fade_rate
    uvec4 look;     // clips (A bits 0-11, B bits 12-23, HOLD_A bit 24, HOLD_B bit 25, TURN bit 26),
                    // velocity (x, z as IEEE halves), tint rgba8, variant
};
// A turning record (TURN): play_b.x, play_b.y = the velocity d it turns to, play_b.z = the rate k;
// no fade runs (play_b.w = 0).

// An IEEE half in the low 16 bits, widened exactly (the runtime stores no subnormals, infinities
// or NaN); unpackHalf2x16 written out, which GLSL 3.30 lacks.
float record_half(uint h)
{
    return (h & 0x7C00u) == 0u ? 0.0 : uintBitsToFloat(((h & 0x8000u) << 16u) | (((h & 0x7FFFu) + 0x1C000u) << 13u));
}

vec2 record_velocity(crowd_rec r)
{
    return vec2(record_half(r.look.y & 0xFFFFu), record_half(r.look.y >> 16u));
}

float record_ref_time(crowd_rec r)
{
    return r.play_a.w;
}

bool record_turning(crowd_rec r)
{
    return (r.look.x & (1u << 26u)) != 0u;
}

// Where the instance stands at shader time `time`: its reference position moved on at its
// ground velocity, or for a turning record along the closed form of its turn (crowd.c's
// crowd_rec_position, operation for operation).
vec3 record_position(crowd_rec r, float time)
{
    vec2 v = record_velocity(r);
    float dt = time - r.play_a.w;
    if (record_turning(r)) {
        float k = r.play_b.z, e = exp(-k * dt), w = (1.0 - e) / k;
        return vec3(r.transform.x + r.play_b.x * dt + (v.x - r.play_b.x) * w, r.transform.y,
                    r.transform.z + r.play_b.y * dt + (v.y - r.play_b.y) * w);
    }
    return vec3(r.transform.x + v.x * dt, r.transform.y, r.transform.z + v.y * dt);
}

// crowd_atan2 (crowd_internal.h), operation for operation: the yaw the runtime gives its agents.
float record_atan2(float y, float x)
{
    float ax = abs(x), ay = abs(y);
    float a = (ax < ay ? ax : ay) / ((ax < ay ? ay : ax) + 1e-20), s = a * a;
    float r = ((-0.0464964749 * s + 0.15931422) * s - 0.327622764) * s * a + a;
    if (ay > ax)
        r = 1.57079637 - r;
    if (x < 0.0)
        r = 3.14159274 - r;
    return y < 0.0 ? -r : r;
}

// The yaw at shader time `time`: a turning record faces along its velocity then (its yaw field
// while slower than 0.05 m/s).
float record_yaw(crowd_rec r, float time)
{
    if (!record_turning(r))
        return r.transform.w;
    vec2 v0 = record_velocity(r), d = r.play_b.xy;
    float e = exp(-r.play_b.z * (time - r.play_a.w));
    vec2 v = vec2(d.x + (v0.x - d.x) * e, d.y + (v0.y - d.y) * e);
    return v.x * v.x + v.y * v.y > 0.0025 ? record_atan2(v.x, v.y) : r.transform.w;
}

float record_scale(crowd_rec r)
{
    return r.play_a.z;
}

uint record_clip_a(crowd_rec r)
{
    return r.look.x & 4095u;
}

uint record_clip_b(crowd_rec r)
{
    return (r.look.x >> 12u) & 4095u;
}

bool record_hold_a(crowd_rec r)
{
    return (r.look.x & (1u << 24u)) != 0u;
}

bool record_hold_b(crowd_rec r)
{
    return (r.look.x & (1u << 25u)) != 0u;
}

float record_fade_rate(crowd_rec r)
{
    return r.play_b.w;
}

// Clip B's weight at `time`: 0 when no fade runs.
float record_fade_weight(crowd_rec r, float time)
{
    return r.play_b.w > 0.0 ? clamp((time - r.play_b.z) * r.play_b.w, 0.0, 1.0) : 0.0;
}

uint record_tint(crowd_rec r)
{
    return r.look.z;
}

uint record_variant(crowd_rec r)
{
    return r.look.w;
}

// crowd_band_random (crowd.h): the imposter hand-off's fixed value per instance, a hash of its tint
// and variant.
float record_band_random(crowd_rec r)
{
    uint h = record_tint(r) * 0x9E3779B1u ^ record_variant(r);
    h ^= h >> 15u;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12u;
    h *= 0x297A2D39u;
    h ^= h >> 15u;
    return float(h >> 8u) * (1.0 / 16777216.0);
}

// A band chunk's instance the cards take (CROWD_DRAW_BAND): band = (near, far, mode); mode 2 asks,
// anything under 0.5 means no band. The mesh (and what it wears) keeps the others.
bool record_band_card(crowd_rec r, vec3 band, vec3 camera, float time)
{
    if (band.z < 0.5)
        return false;
    float f = clamp((length(camera - record_position(r, time)) - band.x) / max(band.y - band.x, 1e-6), 0.0, 1.0);
    return record_band_random(r) < f;
}
