in vec3 v_world;
in vec4 v_uv0;
in vec4 v_uv1;
flat in vec4 v_tiles0;
flat in vec4 v_tiles1;
flat in vec2 v_blend;
flat in vec2 v_turn;
flat in vec3 v_tint;
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
uniform highp sampler2D u_imposter_albedo;
uniform highp sampler2D u_imposter_normals;
uniform vec2 u_tile_scale;
uniform int u_flat;

out vec4 o_color;

float lit_fraction()
{
    if (u_shadows == 0)
        return 1.0;
    vec3 p = v_shadow.xyz / v_shadow.w * 0.5 + 0.5;
    if (p.z >= 1.0 || p.x <= 0.0 || p.y <= 0.0 || p.x >= 1.0 || p.y >= 1.0)
        return 1.0;
    float sum = 0.0;
    for (int y = -1; y <= 1; y++)
        for (int x = -1; x <= 1; x++)
            sum += texture(u_shadow_map, vec3(p.xy + vec2(x, y) * u_shadow_texel, p.z - 0.0015));
    return sum / 9.0;
}

// One view's texels, weight 0 outside its tile (the views frame the box differently). Four views
// (two yaws at each of two elevations) add up, alpha-weighted; coverage is cut at half below.
// Measured (tests/test_imposters): the nearest yaw alone, a cut at 0.4, or the nearest view's own
// alpha kept as a floor all did no better than this plain blend.
void view_sample(vec2 uv, vec2 origin, float weight, inout vec4 albedo, inout vec4 normal)
{
    if (weight <= 0.0 || any(lessThan(uv, vec2(0.0))) || any(greaterThan(uv, vec2(1.0))))
        return;
    vec2 at = origin + clamp(uv, vec2(0.02), vec2(0.98)) * u_tile_scale;
    vec4 a = texture(u_imposter_albedo, at);
    vec4 n = texture(u_imposter_normals, at);
    float w = weight * a.a;
    albedo += vec4(a.rgb * w, w);
    normal += vec4(n.rgb * 2.0 - 1.0, n.a) * w;
}

void main()
{
    vec4 albedo = vec4(0.0), normal = vec4(0.0);
    float e1 = v_blend.y, e0 = 1.0 - e1;
    view_sample(v_uv0.xy, v_tiles0.xy, (1.0 - v_blend.x) * e0, albedo, normal);
    view_sample(v_uv0.zw, v_tiles0.zw, v_blend.x * e0, albedo, normal);
    view_sample(v_uv1.xy, v_tiles1.xy, (1.0 - v_blend.x) * e1, albedo, normal);
    view_sample(v_uv1.zw, v_tiles1.zw, v_blend.x * e1, albedo, normal);
    if (albedo.a < 0.5) // coverage of the blended views, as the mesh's edge would fall
        discard;
    vec3 base = albedo.rgb / albedo.a;
    float mask = normal.a / albedo.a;
    vec3 nm = normal.xyz;
    nm = length(nm) > 1e-4 ? normalize(nm) : vec3(0.0, 1.0, 0.0);
    vec3 n = vec3(v_turn.y * nm.x + v_turn.x * nm.z, nm.y, -v_turn.x * nm.x + v_turn.y * nm.z);
    vec3 color_base = u_flat != 0 ? vec3(1.0) : pow(base * mix(vec3(1.0), v_tint, mask), vec3(2.2));
    float sun = max(dot(n, u_sun_direction), 0.0) * lit_fraction();
    vec3 ambient = mix(u_ground_color, u_sky_color, n.y * 0.5 + 0.5);
    vec3 color = color_base * (ambient + u_sun_color * sun);
    float d = length(v_world - u_camera) * u_fog_density;
    color = mix(u_fog_color, color, exp(-d * d));
    o_color = vec4(crowd_output(color), 1.0);
}
