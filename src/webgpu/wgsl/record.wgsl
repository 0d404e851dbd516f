// The record decode in WGSL: src/gl/glsl/record.glsl (and crowd.vert's clip_sample) function by
// function, same names, same operations in the same order, so the WebGPU path places, turns,
// fades and animates an instance exactly where the GL path and the CPU (crowd.c, record.h) do.
// Prepended to every WGSL shader the WebGPU backend builds that reads a crowd_record.
// A record is 16 words: transform = words 0-3, play_a = 4-7, play_b = 8-11, look = 12-15; in a
// storage buffer that is this struct (size and stride 64 bytes: four 16-byte vectors).
struct crowd_rec {
    transform: vec4<f32>, // position x y z (at ref_time), yaw
    play_a: vec4<f32>,    // offset_a, rate_a, scale, ref_time
    play_b: vec4<f32>,    // offset_b, rate_b, fade_start, fade_rate
    look: vec4<u32>,      // clips (A bits 0-11, B bits 12-23, HOLD_A bit 24, HOLD_B bit 25, TURN bit 26),
                          // velocity (x, z as IEEE halves), tint rgba8, variant
}
// A turning record (TURN): play_b.x, play_b.y = the velocity d it turns to, play_b.z = the rate k;
// no fade runs (play_b.w = 0).

// An IEEE half in the low 16 bits, widened exactly (the runtime stores no subnormals, infinities
// or NaN); written out as record.glsl does, so both languages decode the same bits.
fn record_half(h: u32) -> f32 {
    if ((h & 0x7C00u) == 0u) {
        return 0.0;
    }
    return bitcast<f32>(((h & 0x8000u) << 16u) | (((h & 0x7FFFu) + 0x1C000u) << 13u));
}

fn record_velocity(r: crowd_rec) -> vec2<f32> {
    return vec2<f32>(record_half(r.look.y & 0xFFFFu), record_half(r.look.y >> 16u));
}

fn record_ref_time(r: crowd_rec) -> f32 {
    return r.play_a.w;
}

fn record_turning(r: crowd_rec) -> bool {
    return (r.look.x & (1u << 26u)) != 0u;
}

// Where the instance stands at shader time `time`: its reference position moved on at its
// ground velocity, or for a turning record along the closed form of its turn (record.h's
// crowd_rec_position, operation for operation).
fn record_position(r: crowd_rec, time: f32) -> vec3<f32> {
    let v = record_velocity(r);
    let dt = time - r.play_a.w;
    if (record_turning(r)) {
        let k = r.play_b.z;
        let e = exp(-k * dt);
        let w = (1.0 - e) / k;
        return vec3<f32>(r.transform.x + r.play_b.x * dt + (v.x - r.play_b.x) * w, r.transform.y,
                         r.transform.z + r.play_b.y * dt + (v.y - r.play_b.y) * w);
    }
    return vec3<f32>(r.transform.x + v.x * dt, r.transform.y, r.transform.z + v.y * dt);
}

// crowd_atan2 (record.h), operation for operation: the yaw the runtime gives its agents.
fn record_atan2(y: f32, x: f32) -> f32 {
    let ax = abs(x);
    let ay = abs(y);
    let a = select(ay, ax, ax < ay) / (select(ax, ay, ax < ay) + 1e-20);
    let s = a * a;
    var r = ((-0.0464964749 * s + 0.15931422) * s - 0.327622764) * s * a + a;
    if (ay > ax) {
        r = 1.57079637 - r;
    }
    if (x < 0.0) {
        r = 3.14159274 - r;
    }
    return select(r, -r, y < 0.0);
}

// The yaw at shader time `time`: a turning record faces along its velocity then (its yaw field
// while slower than 0.05 m/s).
fn record_yaw(r: crowd_rec, time: f32) -> f32 {
    if (!record_turning(r)) {
        return r.transform.w;
    }
    let v0 = record_velocity(r);
    let d = r.play_b.xy;
    let e = exp(-r.play_b.z * (time - r.play_a.w));
    let v = vec2<f32>(d.x + (v0.x - d.x) * e, d.y + (v0.y - d.y) * e);
    if (v.x * v.x + v.y * v.y > 0.0025) {
        return record_atan2(v.x, v.y);
    }
    return r.transform.w;
}

fn record_scale(r: crowd_rec) -> f32 {
    return r.play_a.z;
}

fn record_clip_a(r: crowd_rec) -> u32 {
    return r.look.x & 4095u;
}

fn record_clip_b(r: crowd_rec) -> u32 {
    return (r.look.x >> 12u) & 4095u;
}

fn record_hold_a(r: crowd_rec) -> bool {
    return (r.look.x & (1u << 24u)) != 0u;
}

fn record_hold_b(r: crowd_rec) -> bool {
    return (r.look.x & (1u << 25u)) != 0u;
}

fn record_fade_rate(r: crowd_rec) -> f32 {
    return r.play_b.w;
}

// Clip B's weight at `time`: 0 when no fade runs.
fn record_fade_weight(r: crowd_rec, time: f32) -> f32 {
    if (r.play_b.w > 0.0) {
        return clamp((time - r.play_b.z) * r.play_b.w, 0.0, 1.0);
    }
    return 0.0;
}

fn record_tint(r: crowd_rec) -> u32 {
    return r.look.z;
}

fn record_variant(r: crowd_rec) -> u32 {
    return r.look.w;
}

// crowd_band_random (crowd.h): the imposter hand-off's fixed value per instance, a hash of its tint
// and variant (u32 arithmetic wraps in WGSL as in C).
fn record_band_random(r: crowd_rec) -> f32 {
    var h = (record_tint(r) * 0x9E3779B1u) ^ record_variant(r);
    h ^= h >> 15u;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12u;
    h *= 0x297A2D39u;
    h ^= h >> 15u;
    return f32(h >> 8u) * (1.0 / 16777216.0);
}

// A band chunk's instance the cards take (CROWD_DRAW_BAND): band = (near, far, mode); mode 2 asks,
// anything under 0.5 means no band. The mesh (and what it wears) keeps the others.
fn record_band_card(r: crowd_rec, band: vec3<f32>, camera: vec3<f32>, time: f32) -> bool {
    if (band.z < 0.5) {
        return false;
    }
    let f = clamp((length(camera - record_position(r, time)) - band.x) / max(band.y - band.x, 1e-6), 0.0, 1.0);
    return record_band_random(r) < f;
}

// A clip's phase at `time` (crowd_record_phase): a looping play wraps it, a held one (played once)
// clamps it to [0, 1]. fract is x - floor(x) in WGSL as in GLSL and in crowd.c.
fn record_phase(offset: f32, rate: f32, hold: bool, time: f32) -> f32 {
    let p = offset + time * rate;
    if (hold) {
        return clamp(p, 0.0, 1.0);
    }
    return fract(p);
}

// A clip's place in the animation texture: its first row, frame count and whether it loops
// (crowd.vert reads the same three from its clip texture).
struct clip_info {
    first_frame: u32,
    frame_count: u32,
    loops: u32,
    pad: u32,
}

// The two frames a vertex blends and the blend: rows in the animation texture.
struct clip_sample_out {
    row0: i32,
    row1: i32,
    t: f32,
}

// crowd.vert's clip_sample, line for line (crowd_record_sample mirrors it on the CPU): a held clip
// stays on its last frame, never blending back towards frame 0.
fn clip_sample(c: clip_info, offset: f32, rate: f32, hold: bool, time: f32) -> clip_sample_out {
    let n = i32(c.frame_count);
    let phase = record_phase(offset, rate, hold, time);
    let loops = c.loops != 0u;
    var f = phase * f32(select(max(n - 1, 0), n, loops));
    if (hold) {
        f = min(f, f32(max(n - 1, 0)));
    }
    let f0 = min(i32(f), n - 1);
    var f1 = min(f0 + 1, n - 1);
    if (loops && !hold) {
        f1 = select(f0 + 1, 0, f0 + 1 == n);
    }
    var s: clip_sample_out;
    s.row0 = i32(c.first_frame) + f0;
    s.row1 = i32(c.first_frame) + f1;
    s.t = f - f32(f0);
    return s;
}
