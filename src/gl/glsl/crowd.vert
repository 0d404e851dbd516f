layout(location = 0) in uint a_region;
layout(location = 1) in vec2 a_uv;
layout(location = 2) in vec4 a_color;
layout(location = 3) in vec3 a_bind_position;
layout(location = 4) in vec3 a_bind_normal;
layout(location = 5) in uvec4 a_joints;
layout(location = 6) in vec4 a_weights;
// The instance's record (record.glsl, prepended): four attributes, or on the GPU-driven path
// (GLSL 4.30, src/gl/gpu_crowd.c) a buffer the cull pass indexed for this instance, where the four
// attributes are unused inputs.
layout(location = 8) in vec4 i_transform;   // words 0-3: x y z yaw
layout(location = 9) in vec4 i_play_a;      // words 4-7: offset_a, rate_a, scale, ref_time
layout(location = 10) in vec4 i_play_b;     // words 8-11: offset_b, rate_b, fade_start, fade_rate
layout(location = 11) in uvec4 i_look;      // words 12-15: clips + flags, velocity, tint, variant
#ifdef GPU_DRIVEN
// The cull pass wrote this instance's slot into its level's partition of the id buffer; the draw's
// baseInstance points i_slot there.
layout(location = 12) in uint i_slot;
layout(std430, binding = 0) readonly buffer crowd_records { crowd_rec u_records[]; };
crowd_rec instance_record()
{
    return u_records[i_slot];
}
#else
crowd_rec instance_record()
{
    return crowd_rec(i_transform, i_play_a, i_play_b, i_look);
}
#endif

#ifdef INVARIANT_POSITION
// The separate velocity pass (CROWD_GL_VELOCITY_PASS) depth-tests against the colour pass's depth
// with other programs: the same position computed the same way must land on the same depth.
invariant gl_Position;
#endif

uniform mat4 u_view_projection;
uniform float u_time;
uniform highp sampler2D u_clips;            // per clip: first frame, frame count, loop, 0
uniform int u_vertex_count;

#ifdef BONES
uniform highp sampler2D u_bones;
uniform int u_bone_width;
uniform int u_bone_count;
#else
#ifdef POS_F16
uniform highp sampler2D u_vat_positions;
#else
uniform highp usampler2D u_vat_positions;
#endif
#if defined(NORMAL_F16)
uniform highp sampler2D u_vat_normals;
#elif !defined(NORMAL_W8)
uniform highp usampler2D u_vat_normals;
#endif
uniform int u_vat_width;
uniform vec3 u_box_min;
uniform vec3 u_box_scale;                   // extent / 65535 (u16) or extent (f16)
#endif

#ifndef DEPTH_ONLY
uniform highp sampler2D u_palette;          // row = region, column = colour choice (sRGB rgba8)
uniform highp sampler2D u_regions;          // per region: palette size, textured; row 1 + choice: its UV transform
uniform int u_tint_region;                  // -1: the tint multiplies every region
uniform int u_flat;                         // 1: white, untextured (geometry comparisons)
uniform mat4 u_light_view_projection;
out vec3 v_normal;
out vec3 v_world;
out vec3 v_base;
out vec2 v_uv;
flat out float v_textured;
out vec4 v_shadow;
#endif
#ifdef VELOCITY
// Motion vectors (crowd_gl_desc.velocity): the same vertex decoded at the previous frame's time;
// its clip position goes to the fragment stage, which takes "now" from the pixel (output.glsl).
uniform float u_previous_time;
uniform mat4 u_previous_view_projection;
out vec4 v_clip_previous;
#endif

uniform vec3 u_camera;
uniform vec3 u_band;                        // imposter hand-off: near, far (metres), mode (0 off, 2 keep the mesh's share)

struct ClipSample { int row0; int row1; float t; };

// In a band chunk the cards draw the same records (imposter.vert): the mesh keeps the others.
bool band_card(crowd_rec rec)
{
    return record_band_card(rec, u_band, u_camera, u_time);
}

// A looping play wraps its phase; a held one (played once) clamps it and stays on the last frame,
// never blending back towards frame 0. crowd_record_sample (crowd.c) mirrors this on the CPU.
ClipSample clip_sample(uint clip, float offset, float rate, bool hold, float time)
{
    vec4 c = texelFetch(u_clips, ivec2(int(clip), 0), 0);
    int n = int(c.y);
    float p = offset + time * rate;
    float phase = hold ? clamp(p, 0.0, 1.0) : fract(p);
    bool loops = c.z > 0.5;
    float f = phase * float(loops ? n : max(n - 1, 0));
    if (hold)
        f = min(f, float(max(n - 1, 0)));
    int f0 = min(int(f), n - 1);
    int f1 = loops && !hold ? (f0 + 1 == n ? 0 : f0 + 1) : min(f0 + 1, n - 1);
    ClipSample s;
    s.row0 = int(c.x) + f0;
    s.row1 = int(c.x) + f1;
    s.t = f - float(f0);
    return s;
}

vec3 oct_decode(vec2 s)
{
    vec3 n = vec3(s, 1.0 - abs(s.x) - abs(s.y));
    float t = max(-n.z, 0.0);
    n.x += n.x >= 0.0 ? -t : t;
    n.y += n.y >= 0.0 ? -t : t;
    return normalize(n);
}

#ifdef BONES
vec4 bone_texel(int i)
{
    return texelFetch(u_bones, ivec2(i % u_bone_width, i / u_bone_width), 0);
}

// The blended 3x4 skinning matrix of this vertex at one frame.
void skin_rows(int frame, out vec4 r0, out vec4 r1, out vec4 r2)
{
    r0 = vec4(0.0); r1 = vec4(0.0); r2 = vec4(0.0);
    for (int k = 0; k < 4; k++) {
        float w = a_weights[k];
        int base = (frame * u_bone_count + int(a_joints[k])) * 3;
        r0 += w * bone_texel(base);
        r1 += w * bone_texel(base + 1);
        r2 += w * bone_texel(base + 2);
    }
}

void pose(ClipSample s, out vec3 p, out vec3 n)
{
    vec4 a0, a1, a2, b0, b1, b2;
    skin_rows(s.row0, a0, a1, a2);
    skin_rows(s.row1, b0, b1, b2);
    vec4 r0 = mix(a0, b0, s.t), r1 = mix(a1, b1, s.t), r2 = mix(a2, b2, s.t);
    vec4 q = vec4(a_bind_position, 1.0);
    p = vec3(dot(r0, q), dot(r1, q), dot(r2, q));
    n = vec3(dot(r0.xyz, a_bind_normal), dot(r1.xyz, a_bind_normal), dot(r2.xyz, a_bind_normal));
}
#else
ivec2 vat_coord(int frame)
{
    int i = frame * u_vertex_count + gl_VertexID;
    return ivec2(i % u_vat_width, i / u_vat_width);
}

void vat_fetch(int frame, out vec3 p, out vec3 n)
{
    ivec2 c = vat_coord(frame);
#ifdef POS_F16
    vec4 q = texelFetch(u_vat_positions, c, 0);
    p = u_box_min + q.xyz * u_box_scale;
#else
    uvec4 q = texelFetch(u_vat_positions, c, 0);
    p = u_box_min + vec3(q.xyz) * u_box_scale;
#endif
#if defined(NORMAL_W8)
    n = oct_decode(vec2(float(q.w & 255u), float(q.w >> 8u)) / 255.0 * 2.0 - 1.0);
#elif defined(NORMAL_F16)
    n = oct_decode(texelFetch(u_vat_normals, c, 0).xy);
#else
    n = oct_decode(vec2(texelFetch(u_vat_normals, c, 0).xy) / 65535.0 * 2.0 - 1.0);
#endif
}

void pose(ClipSample s, out vec3 p, out vec3 n)
{
    vec3 p0, n0, p1, n1;
    vat_fetch(s.row0, p0, n0);
    vat_fetch(s.row1, p1, n1);
    p = mix(p0, p1, s.t);
    n = mix(n0, n1, s.t);
}
#endif

// The pose at shader time `time` (u_time, or the previous frame's for motion vectors).
void animated(crowd_rec rec, float time, out vec3 p, out vec3 n)
{
    pose(clip_sample(record_clip_a(rec), rec.play_a.x, rec.play_a.y, record_hold_a(rec), time), p, n);
#ifdef CROSS_FADE
    if (record_fade_rate(rec) > 0.0) {
        float w = record_fade_weight(rec, time);
        vec3 pb, nb;
        pose(clip_sample(record_clip_b(rec), rec.play_b.x, rec.play_b.y, record_hold_b(rec), time), pb, nb);
        p = mix(p, pb, w);
        n = mix(n, nb, w);
    }
#endif
}

vec3 place(crowd_rec rec, vec3 p, float time)
{
    float s = sin(record_yaw(rec, time)), c = cos(record_yaw(rec, time));
    p *= record_scale(rec);
    return vec3(c * p.x + s * p.z, p.y, -s * p.x + c * p.z) + record_position(rec, time);
}

#ifdef VELOCITY
// place() at the previous frame's time, with no branch (a software rasteriser runs both sides of
// one) and no trigonometry: a record that does not turn keeps this frame's sine and cosine; a
// turning one faces along its velocity then, whose direction is that sine and cosine (within the
// runtime's atan2 polynomial, about 1e-5 rad; while slower than 0.05 m/s it keeps this frame's).
vec3 place_previous(crowd_rec rec, vec3 p)
{
    float yaw = record_yaw(rec, u_time), s = sin(yaw), c = cos(yaw);
    vec2 v0 = record_velocity(rec), d = rec.play_b.xy;
    vec2 v = d + (v0 - d) * exp(-rec.play_b.z * (u_previous_time - rec.play_a.w));
    float speed2 = dot(v, v);
    vec2 facing = record_turning(rec) && speed2 > 0.0025 ? v * inversesqrt(speed2) : vec2(s, c);
    p *= record_scale(rec);
    return vec3(facing.y * p.x + facing.x * p.z, p.y, -facing.x * p.x + facing.y * p.z) +
           record_position(rec, u_previous_time);
}
#endif

vec3 turn(crowd_rec rec, vec3 n)
{
    float s = sin(record_yaw(rec, u_time)), c = cos(record_yaw(rec, u_time));
    return vec3(c * n.x + s * n.z, n.y, -s * n.x + c * n.z);
}

vec3 srgb_to_linear(vec3 c)
{
    return pow(c, vec3(2.2));
}

void main()
{
    crowd_rec rec = instance_record();
    if (band_card(rec)) {
        gl_Position = vec4(0.0, 0.0, 2.0, 1.0); // every vertex on one point outside the clip volume
        return;
    }
    vec3 p, n;
    animated(rec, u_time, p, n);
    vec3 world = place(rec, p, u_time);
    gl_Position = u_view_projection * vec4(world, 1.0);
#ifdef VELOCITY
    vec3 previous_p, previous_n; // the normal is not used: the compiler drops its fetches
    animated(rec, u_previous_time, previous_p, previous_n);
    v_clip_previous = u_previous_view_projection * vec4(place_previous(rec, previous_p), 1.0);
#endif
#ifndef DEPTH_ONLY
    v_world = world;
    v_normal = turn(rec, n);
    int region = int(a_region);
    uint variant = record_variant(rec);
    vec4 info = texelFetch(u_regions, ivec2(region, 0), 0);
    int choice = region < 6 ? int((variant >> uint(4 * region)) & 15u) : 0;
    choice %= max(int(info.x), 1);
    vec3 palette = texelFetch(u_palette, ivec2(choice, region), 0).rgb;
    uint tint_word = record_tint(rec);
    vec3 tint = vec3(float(tint_word & 255u), float((tint_word >> 8u) & 255u), float((tint_word >> 16u) & 255u)) / 255.0;
    // Tinting a whole textured or single-material body with a shirt colour would paint it; a 40 %
    // wash keeps the author's colours readable while instances still differ.
    vec3 base = region == u_tint_region ? tint : (u_tint_region < 0 ? palette * mix(vec3(1.0), tint, 0.4) : palette);
    v_base = u_flat != 0 ? vec3(1.0) : srgb_to_linear(base) * a_color.rgb;
    vec4 uv_transform = texelFetch(u_regions, ivec2(region, 1 + choice), 0); // the choice's tile of the atlas
    v_uv = a_uv * uv_transform.xy + uv_transform.zw;
    v_textured = u_flat != 0 ? 0.0 : info.y;
    v_shadow = u_light_view_projection * vec4(world, 1.0);
#endif
}
