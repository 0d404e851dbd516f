in vec4 v_uv0;
in vec4 v_uv1;
flat in vec4 v_tiles0;
flat in vec4 v_tiles1;
flat in vec2 v_blend;
flat in float v_lod;
flat in vec2 v_turn;
flat in vec3 v_tint;
in vec4 v_shadow;
flat in float v_fog;

uniform vec3 u_sun_direction;
uniform vec3 u_sun_color;
uniform vec3 u_sky_color;
uniform vec3 u_ground_color;
uniform vec3 u_fog_color;
uniform int u_shadows;
uniform highp sampler2DShadow u_shadow_map;
uniform vec2 u_shadow_texel;
uniform highp sampler2D u_imposter_albedo;
uniform highp sampler2D u_imposter_normals;
uniform vec2 u_tile_scale;
uniform int u_flat;

CROWD_COLOR_OUTPUT // output.glsl: output 0, or a plain variable in the velocity pass

float lit_fraction()
{
    if (u_shadows == 0)
        return 1.0;
    vec3 p = v_shadow.xyz / v_shadow.w * 0.5 + 0.5;
    if (p.z >= 1.0 || p.x <= 0.0 || p.y <= 0.0 || p.x >= 1.0 || p.y >= 1.0)
        return 1.0;
    // one hardware 2x2 PCF tap: a card is far (past the last mesh level), a few pixels wide, and
    // its pixels are most of the frame's at 100k; the meshes' four-tap tent would not show here
    return texture(u_shadow_map, vec3(p.xy, p.z - 0.0015));
}

// One view's texels, weight 0 outside its tile (the views frame the box differently). Four views
// (two yaws at each of two elevations) add up, alpha-weighted; coverage is cut at half below.
// Measured (tests/test_imposters): the nearest yaw alone, a cut at 0.4, or the nearest view's own
// alpha kept as a floor all did no better than this plain blend.
// The albedo of all four comes first and the normals only for kept pixels: most of a card's box
// is empty, and the discard then skips half the fetches and all of the lighting. The mip level is
// the card's own (imposter.vert), so fetches may sit behind per-pixel branches.
vec2 view_at(vec2 uv, vec2 origin, float weight)
{
    if (weight <= 0.0 || any(lessThan(uv, vec2(0.0))) || any(greaterThan(uv, vec2(1.0))))
        return vec2(-1.0);
    return origin + clamp(uv, vec2(0.02), vec2(0.98)) * u_tile_scale;
}

float view_albedo(vec2 at, float weight, inout vec4 albedo)
{
    if (at.x < 0.0)
        return 0.0;
    vec4 a = textureLod(u_imposter_albedo, at, v_lod);
    float w = weight * a.a;
    albedo += vec4(a.rgb * w, w);
    return w;
}

void view_normal(vec2 at, float w, inout vec4 normal)
{
    if (w <= 0.0)
        return;
    vec4 n = textureLod(u_imposter_normals, at, v_lod);
    normal += vec4(n.rgb * 2.0 - 1.0, n.a) * w;
}

void main()
{
    vec4 albedo = vec4(0.0), normal = vec4(0.0);
    float e1 = v_blend.y, e0 = 1.0 - e1;
    vec4 weight = vec4((1.0 - v_blend.x) * e0, v_blend.x * e0, (1.0 - v_blend.x) * e1, v_blend.x * e1);
    vec2 at0 = view_at(v_uv0.xy, v_tiles0.xy, weight.x), at1 = view_at(v_uv0.zw, v_tiles0.zw, weight.y);
    vec2 at2 = view_at(v_uv1.xy, v_tiles1.xy, weight.z), at3 = view_at(v_uv1.zw, v_tiles1.zw, weight.w);
    vec4 w = vec4(view_albedo(at0, weight.x, albedo), view_albedo(at1, weight.y, albedo),
                  view_albedo(at2, weight.z, albedo), view_albedo(at3, weight.w, albedo));
    if (albedo.a < 0.5) // coverage of the blended views, as the mesh's edge would fall
        discard;
#ifdef VELOCITY
    if (write_velocity(o_color))
        return;
#endif
    view_normal(at0, w.x, normal);
    view_normal(at1, w.y, normal);
    view_normal(at2, w.z, normal);
    view_normal(at3, w.w, normal);
    vec3 base = albedo.rgb / albedo.a;
    float mask = normal.a / albedo.a;
    vec3 nm = normal.xyz;
    nm = length(nm) > 1e-4 ? normalize(nm) : vec3(0.0, 1.0, 0.0);
    vec3 n = vec3(v_turn.y * nm.x + v_turn.x * nm.z, nm.y, -v_turn.x * nm.x + v_turn.y * nm.z);
    vec3 color_base = u_flat != 0 ? vec3(1.0) : pow(base * mix(vec3(1.0), v_tint, mask), vec3(2.2));
    float sun = max(dot(n, u_sun_direction), 0.0) * lit_fraction();
    vec3 ambient = mix(u_ground_color, u_sky_color, n.y * 0.5 + 0.5);
    vec3 color = color_base * (ambient + u_sun_color * sun);
    color = mix(u_fog_color, color, v_fog);
    o_color = vec4(crowd_output(color), 1.0);
}
