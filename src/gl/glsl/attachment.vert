layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in vec2 a_uv;         // with its own texture (crowd_gl_attachment_desc.texture)
// The instance's record (record.glsl), as crowd.vert reads it (see there).
layout(location = 8) in vec4 i_transform;
layout(location = 9) in vec4 i_play_a;
layout(location = 10) in vec4 i_play_b;
layout(location = 11) in uvec4 i_look;
#ifdef GPU_DRIVEN
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
uniform highp sampler2D u_clips;
uniform highp sampler2D u_bones;
uniform int u_bone_width;
uniform int u_bone_count;
uniform int u_bone;                // the socket's bone
uniform mat4 u_offset;             // socket offset in bind-pose model space
uniform uint u_accessory_bit;
uniform vec3 u_camera;
uniform vec3 u_band;               // as crowd.vert's: worn by the instances a band chunk's mesh keeps
// x: metres from the socket's origin to the farthest vertex (at scale 1); y: the smallest size drawn,
// pixels across; z: pixels across per metre at a view depth of 1 m (0: no size test)
uniform vec3 u_attachment;
#ifndef DEPTH_ONLY
uniform vec3 u_color;              // linear
uniform vec2 u_attachment_look;    // x: its texture is bound as u_albedo; y: times the record's tint
uniform mat4 u_light_view_projection;
out vec3 v_normal;
out vec3 v_world;
out vec3 v_base;
out vec2 v_uv;
flat out float v_textured;
out vec4 v_shadow;
#endif
#ifdef VELOCITY
// Motion vectors (crowd_gl_desc.velocity): the vertex a frame earlier, in clip space (output.glsl).
uniform float u_previous_time;
uniform mat4 u_previous_view_projection;
out vec4 v_clip_previous;
#endif

vec4 bone_texel(int i)
{
    return texelFetch(u_bones, ivec2(i % u_bone_width, i / u_bone_width), 0);
}

// The socket bone's matrix at a clip's phase, frames blended (phase as crowd.vert's clip_sample:
// wrapped, or clamped and held on the last frame).
void bone_rows(uint clip, float offset, float rate, bool hold, float time, out vec4 r0, out vec4 r1, out vec4 r2)
{
    vec4 c = texelFetch(u_clips, ivec2(int(clip), 0), 0);
    int n = int(c.y);
    bool loops = c.z > 0.5;
    float p = offset + time * rate;
    float f = (hold ? clamp(p, 0.0, 1.0) : fract(p)) * float(loops ? n : max(n - 1, 0));
    if (hold)
        f = min(f, float(max(n - 1, 0)));
    int f0 = min(int(f), n - 1);
    int f1 = loops && !hold ? (f0 + 1 == n ? 0 : f0 + 1) : min(f0 + 1, n - 1);
    float t = f - float(f0);
    int a = ((int(c.x) + f0) * u_bone_count + u_bone) * 3, b = ((int(c.x) + f1) * u_bone_count + u_bone) * 3;
    r0 = mix(bone_texel(a), bone_texel(b), t);
    r1 = mix(bone_texel(a + 1), bone_texel(b + 1), t);
    r2 = mix(bone_texel(a + 2), bone_texel(b + 2), t);
}

// The socket bone's matrix at shader time `time`, through the record's cross-fade.
void socket_rows(crowd_rec rec, float time, out vec4 r0, out vec4 r1, out vec4 r2)
{
    bone_rows(record_clip_a(rec), rec.play_a.x, rec.play_a.y, record_hold_a(rec), time, r0, r1, r2);
    if (record_fade_rate(rec) > 0.0) {
        vec4 s0, s1, s2;
        bone_rows(record_clip_b(rec), rec.play_b.x, rec.play_b.y, record_hold_b(rec), time, s0, s1, s2);
        float w = record_fade_weight(rec, time);
        r0 = mix(r0, s0, w); r1 = mix(r1, s1, w); r2 = mix(r2, s2, w);
    }
}

// This vertex in world space at shader time `time`, given the socket's rows then.
vec3 socket_world(crowd_rec rec, float time, vec4 r0, vec4 r1, vec4 r2)
{
    vec4 local = u_offset * vec4(a_position, 1.0);
    vec3 p = vec3(dot(r0, local), dot(r1, local), dot(r2, local)) * record_scale(rec);
    float s = sin(record_yaw(rec, time)), c = cos(record_yaw(rec, time));
    return vec3(c * p.x + s * p.z, p.y, -s * p.x + c * p.z) + record_position(rec, time);
}

// Smaller on screen than u_attachment.y pixels: its bounding sphere projected at the view depth
// (clip w) of the instance's position. Tested before the socket's bone rows are fetched, so the far
// ones cost a record decode a vertex, not the pose.
bool too_small(crowd_rec rec)
{
    if (u_attachment.z <= 0.0)
        return false;
    float depth = max((u_view_projection * vec4(record_position(rec, u_time), 1.0)).w, 1e-4);
    return 2.0 * u_attachment.x * record_scale(rec) * u_attachment.z / depth < u_attachment.y;
}

void main()
{
    crowd_rec rec = instance_record();
    // not worn, worn by a card of the hand-off band, or under the size test: a degenerate triangle
    if ((record_variant(rec) >> (24u + u_accessory_bit) & 1u) == 0u || record_band_card(rec, u_band, u_camera, u_time) ||
        too_small(rec)) {
        gl_Position = vec4(0.0, 0.0, 0.0, 1.0);
#ifdef VELOCITY
        v_clip_previous = vec4(0.0, 0.0, 0.0, 1.0);
#endif
#ifndef DEPTH_ONLY
        v_normal = vec3(0.0, 1.0, 0.0); v_world = vec3(0.0); v_base = vec3(0.0); v_uv = vec2(0.0);
        v_textured = 0.0; v_shadow = vec4(0.0);
#endif
        return;
    }
    vec4 r0, r1, r2;
    socket_rows(rec, u_time, r0, r1, r2);
    vec3 nl = mat3(u_offset) * a_normal;
    vec3 world = socket_world(rec, u_time, r0, r1, r2);
    vec3 n = vec3(dot(r0.xyz, nl), dot(r1.xyz, nl), dot(r2.xyz, nl));
    float s = sin(record_yaw(rec, u_time)), c = cos(record_yaw(rec, u_time));
    gl_Position = u_view_projection * vec4(world, 1.0);
#ifdef VELOCITY
    vec4 q0, q1, q2;
    socket_rows(rec, u_previous_time, q0, q1, q2);
    v_clip_previous = u_previous_view_projection * vec4(socket_world(rec, u_previous_time, q0, q1, q2), 1.0);
#endif
#ifndef DEPTH_ONLY
    v_world = world;
    v_normal = vec3(c * n.x + s * n.z, n.y, -s * n.x + c * n.z);
    uint tint = record_tint(rec);
    vec3 tint_srgb = vec3(float(tint & 255u), float((tint >> 8u) & 255u), float((tint >> 16u) & 255u)) / 255.0;
    v_base = u_attachment_look.y > 0.5 ? u_color * pow(tint_srgb, vec3(2.2)) : u_color;
    v_uv = a_uv;
    v_textured = u_attachment_look.x;
    v_shadow = u_light_view_projection * vec4(world, 1.0);
#endif
}
