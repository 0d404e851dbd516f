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
    uvec4 look;     // clips (A bits 0-11, B bits 12-23, HOLD_A bit 24, HOLD_B bit 25), velocity
                    // (x, z as IEEE halves), tint rgba8, variant
};

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

// Where the instance stands at shader time `time`: its reference position moved on at its
// ground velocity.
vec3 record_position(crowd_rec r, float time)
{
    vec2 v = record_velocity(r);
    float dt = time - r.play_a.w;
    return vec3(r.transform.x + v.x * dt, r.transform.y, r.transform.z + v.y * dt);
}

float record_yaw(crowd_rec r)
{
    return r.transform.w;
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
