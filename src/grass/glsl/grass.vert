// The grass field's one vertex stage: three tiers of geometry, one program; the tier is a branch
// on the mesh's vertex (a_vertex.w), not a material switch. Prepended: grass_common.glsl.
layout(location = 0) in vec4 a_vertex; // blade of the cluster (0..2), height fraction t, side (-1..1), tier
#ifdef GPU_DRIVEN
// the classify pass wrote this blade's index into its tier's partition; baseInstance points here
layout(location = 1) in uint i_blade;
#else
// the CPU path: a table of entries (first blade, blades: at most GRASS_BLOCK) per tier, one instance a
// group of GRASS_GROUP entries (both defined by grass_gl.c); the mesh holds a group's clusters,
// cluster c's vertices tagged blade + 4c (grass_gl.c build_meshes)
uniform highp usampler2D u_blocks; // RG32UI, 256 wide
uniform int u_block_offset;         // this tier's first block
#endif

uniform mat4 u_view_projection;
uniform vec4 u_blade_size; // height, width, time, ground half size
uniform vec2 u_wind;
// the interaction fields (grass_fields.c): the active texture of the trample pair (one sample) and
// the cut; each field's -x/-z corner, 1 / its extent, and w: trample on / the cut height (0: none cut)
uniform highp sampler2D u_trample;
uniform highp sampler2D u_cut;
uniform vec4 u_trample_field;
uniform vec4 u_cut_field;

out vec3 v_normal;
out vec3 v_world;
out vec3 v_base;
out float v_t;
flat out float v_ground;
out vec4 v_shadow;
uniform mat4 u_light_view_projection;

void degenerate()
{
    gl_Position = vec4(2.0, 2.0, 2.0, 1.0); // every vertex of the triangle here: no area, clipped
    v_normal = vec3(0, 1, 0);
    v_world = vec3(0);
    v_base = vec3(0);
    v_t = 0.0;
    v_ground = 0.0;
    v_shadow = vec4(0.0, 0.0, 0.0, 1.0);
}

void main()
{
    int tier = int(a_vertex.w + 0.5);
    if (tier == 3) { // the ground beneath the field and out to the horizon: coloured per fragment
        vec3 p = vec3(a_vertex.x * u_blade_size.w + u_grass_eye.x, 0.0, a_vertex.y * u_blade_size.w + u_grass_eye.z);
        v_normal = vec3(0.0, 1.0, 0.0);
        v_world = p;
        v_base = vec3(0.0);
        v_t = 1.0;
        v_ground = 1.0;
        v_shadow = u_light_view_projection * vec4(p, 1.0);
        gl_Position = u_view_projection * vec4(p, 1.0);
        return;
    }
#ifdef GPU_DRIVEN
    uint i = i_blade;
#else
    int cluster = int(a_vertex.x + 0.5) / 4;
    int block = u_block_offset + gl_InstanceID * GRASS_GROUP + cluster / GRASS_BLOCK;
    uvec2 entry = texelFetch(u_blocks, ivec2(block % 256, block / 256), 0).xy;
    uint k = uint(cluster % GRASS_BLOCK);
    if (k >= entry.y) {
        degenerate();
        return;
    }
    uint i = entry.x + k;
#endif
    vec4 b = grass_blade(i);
    vec2 root = b.xy;
#ifndef GPU_DRIVEN
    if (grass_tier(grass_distance(root), b.z) != tier) { // another tier's draw has this root
        degenerate();
        return;
    }
#endif
    vec4 noise = grass_noise_lod0(root); // the one noise texture: zoning, variation (grass_color.glsl)
    float zone = grass_zone(noise);
    float height = u_blade_size.x * (0.7 + 0.45 * fract(b.w * 37.17) + 0.3 * noise.a) * mix(0.3, 1.0, zone);
    vec3 trample = vec3(0.0); // bend direction (xz), trail strength
    vec2 tuv = (root - u_trample_field.xy) * u_trample_field.z;
    if (u_trample_field.w > 0.5 && tuv.x > 0.0 && tuv.y > 0.0 && tuv.x < 1.0 && tuv.y < 1.0) {
        vec4 s = textureLod(u_trample, tuv, 0.0);
        trample = vec3(s.rg * 2.0 - 1.0, s.b);
    }
    float keep = 1.0, mown = 0.0; // the fraction of the blade left standing: a cut keeps its lower part
    if (u_cut_field.w > 0.0) { // stubble: every tier, so a cut patch stays cut across the hand-offs
        mown = smoothstep(0.2, 0.6, textureLod(u_cut, (root - u_cut_field.xy) * u_cut_field.z, 0.0).r);
        keep = mix(1.0, u_cut_field.w, mown);
        height *= keep;
    }
    float width = u_blade_size.y;
    int blade = int(a_vertex.x + 0.5) % 4; // the blade of the cluster (the rest is the CPU path's cluster)
    float t = a_vertex.y, side = a_vertex.z;
    vec2 to_camera = u_grass_eye.xz - root;
    to_camera /= max(length(to_camera), 1e-4);
    vec2 tangent, facing;
    if (tier == 2) {
        // the far card faces the camera and is as wide as mid's three blades seen from anywhere
        tangent = vec2(-to_camera.y, to_camera.x);
        facing = to_camera;
        width *= 3.0 * 0.63661977;
    } else {
        float a = b.w * 6.2831853 + float(blade) * 2.0943951;
        if (blade > 0) {
            root += 0.055 * vec2(cos(a + 0.9), sin(a + 0.9));
            height *= blade == 1 ? 0.78 : 0.64;
        }
        tangent = vec2(cos(a), sin(a));
        facing = vec2(-tangent.y, tangent.x);
    }
    float w = width * pow(max(1.0 - t * keep, 0.0), 0.7); // the one width curve of every tier (a stub: blunt)
    // gusts: the zoning channel scrolled downwind (6 s of wind strength a metre), and a flutter
    float gust = grass_noise_lod0(root - u_wind * (u_blade_size.z * 6.0)).r;
    float sway = 0.35 + 0.9 * gust + 0.1 * sin(u_blade_size.z * 2.3 + dot(root, vec2(0.23, 0.17)));
    vec2 bend = (facing * 0.18 + u_wind * sway * (1.0 - trample.z)) * height * t * t;
    bend += trample.xy * trample.z * 0.85 * height * t; // pressed over, away from what stood on it
    vec3 p = vec3(root.x + tangent.x * side * 0.5 * w + bend.x,
                  height * t * (1.0 - 0.12 * t * t) * (1.0 - 0.72 * trample.z),
                  root.y + tangent.y * side * 0.5 * w + bend.y);
    vec3 n = vec3(facing.x, 0.0, facing.y);
    if (dot(facing, to_camera) < 0.0)
        n = -n;
    v_normal = normalize(n * 0.55 + vec3(0.0, 1.0, 0.0));
    v_world = p;
    vec3 ground = grass_ground(noise, zone);
    vec3 tint = vec3(0.20, 0.38, 0.07) * (0.8 + 0.2 * fract(b.w * 91.3) + 0.2 * noise.a) *
                mix(vec3(1.25, 1.05, 0.7), vec3(1.0), zone);
    v_base = mix(mix(ground, tint, smoothstep(0.0, 0.6, t * keep)), GRASS_MOWN, 0.85 * mown); // a stub: straw
    v_t = t;
    v_ground = 0.0;
    v_shadow = u_light_view_projection * vec4(p, 1.0);
    gl_Position = u_view_projection * vec4(p, 1.0);
}
