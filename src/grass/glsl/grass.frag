// The grass field's one material (ground and blades of every tier): Lambert under the scene's
// hemisphere light and shadowed sun, the scene's fog. Prepended: grass_color.glsl.
in vec3 v_normal;
in vec3 v_world;
in vec3 v_base;
in float v_t;
flat in float v_ground;
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
uniform highp sampler2D u_cut; // the cut field, as the vertex stage reads it (grass.vert)
uniform highp vec4 u_cut_field;
uniform highp sampler2D u_paint; // crowd_grass_set_paint: -x/-z corner, 1 / size, on
uniform highp vec4 u_paint_field;

out vec4 o_color;

float lit_fraction()
{
    if (u_shadows == 0)
        return 1.0;
    vec3 p = v_shadow.xyz / v_shadow.w * 0.5 + 0.5;
    if (p.z >= 1.0 || p.x <= 0.0 || p.y <= 0.0 || p.x >= 1.0 || p.y >= 1.0)
        return 1.0;
    // the ground's kernel (src/gl/glsl/lit.frag): four hardware 2x2 PCF taps half a texel off centre,
    // so a blade and the ground under it are shadowed alike, at under half the nine taps' fetches
    float z = p.z - 0.0015;
    vec2 h = 0.5 * u_shadow_texel;
    float sum = texture(u_shadow_map, vec3(p.xy + vec2(-h.x, -h.y), z)) + texture(u_shadow_map, vec3(p.xy + vec2(h.x, -h.y), z)) +
                texture(u_shadow_map, vec3(p.xy + vec2(-h.x, h.y), z)) + texture(u_shadow_map, vec3(p.xy + vec2(h.x, h.y), z));
    return sum * 0.25;
}

void main()
{
    vec3 n = normalize(v_normal);
    vec3 base = v_base;
    if (v_ground > 0.5) {
        vec4 noise = texture(u_noise, v_world.xz / GRASS_NOISE_TILE);
        vec2 p = v_world.xz;
        base = grass_ground(noise, grass_zone(noise)) * (0.8 + 0.25 * noise.b);
        if (u_cut_field.w > 0.0) // the mown soil between the stubs
            base = mix(base, GRASS_MOWN, 0.85 * smoothstep(0.2, 0.6, texture(u_cut, (p - u_cut_field.xy) * u_cut_field.z).r));
    }
    if (u_paint_field.w > 0.0) { // paint on the blades and the ground between them
        vec4 paint = texture(u_paint, (v_world.xz - u_paint_field.xy) * u_paint_field.z);
        base = mix(base, paint.rgb, paint.a);
    }
    float sun = max(dot(n, u_sun_direction), 0.0) * lit_fraction();
    vec3 ambient = mix(u_ground_color, u_sky_color, n.y * 0.5 + 0.5) * (0.55 + 0.45 * v_t); // roots in the blades' shade
    vec3 color = base * (ambient + u_sun_color * sun);
    float d = length(v_world - u_camera) * u_fog_density;
    color = mix(u_fog_color, color, exp(-d * d));
    o_color = vec4(crowd_output(color), 1.0);
}
