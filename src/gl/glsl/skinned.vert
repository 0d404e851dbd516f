// Classic skinning, one character per draw (src/gl/skinned.c): the bone palette is a uniform array
// uploaded per draw (GPU linear-blend skinning, 4 influences), or, with CPU_SKINNED, the vertices
// arrive already skinned. Everything after the pose (placement, regions, tint, the varyings lit.frag
// reads) is crowd.vert's, so both paths light, shadow and fog alike.
layout(location = 0) in uint a_region;
layout(location = 1) in vec2 a_uv;
layout(location = 2) in vec4 a_color;
layout(location = 3) in vec3 a_bind_position; // CPU_SKINNED: the skinned position
layout(location = 4) in vec3 a_bind_normal;   // CPU_SKINNED: the skinned normal
layout(location = 5) in uvec4 a_joints;
layout(location = 6) in vec4 a_weights;

uniform mat4 u_view_projection;
uniform vec4 u_character;       // x y z yaw
uniform float u_character_scale;
uniform uvec2 u_character_look; // tint rgba8, variant (crowd_record.tint, .variant)
#ifndef CPU_SKINNED
uniform vec4 u_bone_rows[3 * BONE_COUNT]; // 3x4 row-major skinning matrices, asset space
#endif

#ifndef DEPTH_ONLY
uniform highp sampler2D u_palette;
uniform highp sampler2D u_regions;
uniform int u_tint_region;
uniform int u_flat;
uniform mat4 u_light_view_projection;
out vec3 v_normal;
out vec3 v_world;
out vec3 v_base;
out vec2 v_uv;
flat out float v_textured;
out vec4 v_shadow;
#endif

void pose(out vec3 p, out vec3 n)
{
#ifdef CPU_SKINNED
    p = a_bind_position;
    n = a_bind_normal;
#else
    vec4 r0 = vec4(0.0), r1 = vec4(0.0), r2 = vec4(0.0);
    for (int k = 0; k < 4; k++) {
        float w = a_weights[k];
        int b = 3 * int(a_joints[k]);
        r0 += w * u_bone_rows[b];
        r1 += w * u_bone_rows[b + 1];
        r2 += w * u_bone_rows[b + 2];
    }
    vec4 q = vec4(a_bind_position, 1.0);
    p = vec3(dot(r0, q), dot(r1, q), dot(r2, q));
    n = vec3(dot(r0.xyz, a_bind_normal), dot(r1.xyz, a_bind_normal), dot(r2.xyz, a_bind_normal));
#endif
}

void main()
{
    vec3 p, n;
    pose(p, n);
    float s = sin(u_character.w), c = cos(u_character.w);
    p *= u_character_scale;
    vec3 world = vec3(c * p.x + s * p.z, p.y, -s * p.x + c * p.z) + u_character.xyz;
    gl_Position = u_view_projection * vec4(world, 1.0);
#ifndef DEPTH_ONLY
    v_world = world;
    v_normal = vec3(c * n.x + s * n.z, n.y, -s * n.x + c * n.z);
    int region = int(a_region);
    uint variant = u_character_look.y;
    vec4 info = texelFetch(u_regions, ivec2(region, 0), 0);
    int choice = region < 6 ? int((variant >> uint(4 * region)) & 15u) : 0;
    choice %= max(int(info.x), 1);
    vec3 palette = texelFetch(u_palette, ivec2(choice, region), 0).rgb;
    uint t = u_character_look.x;
    vec3 tint = vec3(float(t & 255u), float((t >> 8u) & 255u), float((t >> 16u) & 255u)) / 255.0;
    vec3 base = region == u_tint_region ? tint : (u_tint_region < 0 ? palette * mix(vec3(1.0), tint, 0.4) : palette);
    v_base = u_flat != 0 ? vec3(1.0) : pow(base, vec3(2.2)) * a_color.rgb;
    vec4 uv_transform = texelFetch(u_regions, ivec2(region, 1 + choice), 0); // the choice's tile of the atlas
    v_uv = a_uv * uv_transform.xy + uv_transform.zw;
    v_textured = u_flat != 0 ? 0.0 : info.y;
    v_shadow = u_light_view_projection * vec4(world, 1.0);
#endif
}
