layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
layout(location = 8) in vec4 i_transform;   // x y z yaw
layout(location = 9) in vec4 i_scale;       // x y z, unused
layout(location = 10) in vec4 i_color;      // sRGB, normalised

uniform mat4 u_view_projection;
#if defined(GROUND)
uniform mat4 u_light_view_projection;
uniform vec3 u_camera;
uniform vec3 u_sun_direction;
uniform vec3 u_sun_color;
uniform vec3 u_sky_color;
uniform vec3 u_ground_color;
flat out vec3 v_base;
flat out vec3 v_ambient;
flat out vec3 v_sun;
out vec3 v_eye;
out vec4 v_shadow;
#elif !defined(DEPTH_ONLY)
uniform mat4 u_light_view_projection;
out vec3 v_normal;
out vec3 v_world;
out vec3 v_base;
out vec2 v_uv;
flat out float v_textured;
out vec4 v_shadow;
#endif

void main()
{
    float s = sin(i_transform.w), c = cos(i_transform.w);
    vec3 p = a_position * i_scale.xyz;
    vec3 world = vec3(c * p.x + s * p.z, p.y, -s * p.x + c * p.z) + i_transform.xyz;
    gl_Position = u_view_projection * vec4(world, 1.0);
#if defined(GROUND)
    // lit.frag's lighting for a flat face, once per vertex: every vertex of a triangle has the same normal
    vec3 m = a_normal / i_scale.xyz;
    vec3 n = normalize(vec3(c * m.x + s * m.z, m.y, -s * m.x + c * m.z));
    v_base = pow(i_color.rgb, vec3(2.2));
    v_ambient = mix(u_ground_color, u_sky_color, n.y * 0.5 + 0.5);
    v_sun = u_sun_color * max(dot(n, u_sun_direction), 0.0);
    v_eye = world - u_camera;
    v_shadow = u_light_view_projection * vec4(world, 1.0);
#elif !defined(DEPTH_ONLY)
    vec3 n = a_normal / i_scale.xyz;
    v_normal = vec3(c * n.x + s * n.z, n.y, -s * n.x + c * n.z);
    v_world = world;
    v_base = pow(i_color.rgb, vec3(2.2));
    v_uv = vec2(0.0);
    v_textured = 0.0;
    v_shadow = u_light_view_projection * vec4(world, 1.0);
#endif
}
