#ifdef GROUND
// the flat ground (prop.vert with GROUND): lit per vertex, so a pixel pays only its shadow, paint and fog
flat in vec3 v_base;
flat in vec3 v_ambient;                     // base colour's multiplier in shadow
flat in vec3 v_sun;                         // what the sun adds where it is not shadowed
in vec3 v_eye;                              // world - camera: fog, and the paint's position
#else
in vec3 v_normal;
in vec3 v_world;
in vec3 v_base;
in vec2 v_uv;
flat in float v_textured;
#endif
in vec4 v_shadow;

uniform vec3 u_camera;
uniform vec3 u_sun_direction;
uniform vec3 u_sun_color;
uniform vec3 u_sky_color;
uniform vec3 u_ground_color;
uniform vec3 u_fog_color;
uniform float u_fog_density;
uniform int u_shadows;
uniform highp sampler2DShadow u_shadow_map;
uniform vec2 u_shadow_texel;
uniform highp sampler2D u_albedo;
uniform int u_output;                       // 1: the unit normal * 0.5 + 0.5 (the imposter bake)
#ifdef GROUND_PAINT
uniform int u_ground_paint;                 // 1 while the ground draws with a paint texture over it
uniform highp sampler2D u_ground_paint_map; // premultiplied RGBA, display-encoded, over [-half, half]^2 in x, z
uniform float u_ground_paint_half;
#endif

CROWD_COLOR_OUTPUT // output.glsl: output 0, or a plain variable in the velocity pass

float lit_fraction()
{
    if (u_shadows == 0)
        return 1.0;
    vec3 p = v_shadow.xyz / v_shadow.w * 0.5 + 0.5;
    if (p.z >= 1.0 || p.x <= 0.0 || p.y <= 0.0 || p.x >= 1.0 || p.y >= 1.0)
        return 1.0;
    // four hardware 2x2 PCF taps half a texel off centre: a 3x3-texel tent, as soft as the nine
    // taps one texel apart it replaced at under half the fetches (the ground pays them per pixel)
    float z = p.z - 0.0015;
    vec2 h = 0.5 * u_shadow_texel;
    float sum = texture(u_shadow_map, vec3(p.xy + vec2(-h.x, -h.y), z)) + texture(u_shadow_map, vec3(p.xy + vec2(h.x, -h.y), z)) +
                texture(u_shadow_map, vec3(p.xy + vec2(-h.x, h.y), z)) + texture(u_shadow_map, vec3(p.xy + vec2(h.x, h.y), z));
    return sum * 0.25;
}

#ifdef GROUND
void main()
{
    if (u_output == 1) {
        o_color = vec4(0.5, 1.0, 0.5, 1.0);
        return;
    }
    vec3 base = v_base;
#ifdef GROUND_PAINT
    if (u_ground_paint == 1) { // paint over the ground's colour, so it is lit, shadowed and fogged as the ground is
        vec4 paint = texture(u_ground_paint_map, (v_eye.xz + u_camera.xz) / (2.0 * u_ground_paint_half) + 0.5);
        base = base * (1.0 - paint.a) + pow(paint.rgb, vec3(2.2));
    }
#endif
    vec3 color = base * (v_ambient + v_sun * lit_fraction());
    // exp(-(length * density)^2) without the square root
    color = mix(u_fog_color, color, exp(-dot(v_eye, v_eye) * (u_fog_density * u_fog_density)));
    o_color = vec4(crowd_output(color), 1.0);
}
#else
void main()
{
#ifdef VELOCITY
    if (write_velocity(o_color))
        return;
#endif
    vec3 n = normalize(v_normal);
    if (u_output == 1) {
        o_color = vec4(n * 0.5 + 0.5, 1.0);
        return;
    }
    vec3 base = v_base;
    if (v_textured > 0.5)
        base *= texture(u_albedo, v_uv).rgb; // sRGB texture: sampled linear
    float sun = max(dot(n, u_sun_direction), 0.0) * lit_fraction();
    vec3 ambient = mix(u_ground_color, u_sky_color, n.y * 0.5 + 0.5);
    vec3 color = base * (ambient + u_sun_color * sun);
    float d = length(v_world - u_camera) * u_fog_density;
    color = mix(u_fog_color, color, exp(-d * d));
    o_color = vec4(crowd_output(color), 1.0);
}
#endif
