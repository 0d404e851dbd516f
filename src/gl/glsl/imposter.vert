// The imposter level: one camera-facing card per instance (6 vertices, no vertex buffer), textured
// from the two baked views nearest the camera's direction (asset.h, "imposter atlas").
// The instance's record (record.glsl, prepended), as crowd.vert's four attributes.
layout(location = 8) in vec4 i_transform;   // words 0-3
layout(location = 9) in vec4 i_play_a;      // words 4-7
layout(location = 10) in vec4 i_play_b;     // words 8-11
layout(location = 11) in uvec4 i_look;      // words 12-15

#ifdef INVARIANT_POSITION
// The separate velocity pass (CROWD_GL_VELOCITY_PASS) depth-tests against the colour pass's depth
// with other programs: the same position computed the same way must land on the same depth.
invariant gl_Position;
#endif

uniform mat4 u_view_projection;
uniform float u_time;
uniform vec3 u_camera;
uniform highp sampler2D u_clips;            // per clip: first frame, frame count, loop, 0
uniform highp sampler2D u_imposter_clips;   // per clip: (box min, first tile), (box max, 0)
uniform vec4 u_imposter_grid;               // frames, views, elevations, atlas columns
uniform vec4 u_imposter_elevation;          // radians, the baked elevations
uniform vec2 u_tile_scale;                  // one tile in atlas texture coordinates
uniform vec2 u_card_lod;                    // pixels per unit height at view depth 1, texels per tile
uniform vec3 u_band;                        // hand-off band: near, far (metres), mode (0 off, 1 keep cards)
uniform mat4 u_light_view_projection;
uniform float u_fog_density;

out vec4 v_uv0;                             // elevation 0: view 0's tile coordinates (xy), view 1's (zw)
out vec4 v_uv1;                             // elevation 1: the same
flat out vec4 v_tiles0;                     // elevation 0: atlas origin of view 0's tile (xy), view 1's (zw)
flat out vec4 v_tiles1;                     // elevation 1: the same
flat out vec2 v_blend;                      // weight of view 1 (x) and of elevation 1 (y)
flat out float v_lod;                       // the atlas mip level of the whole card
flat out vec2 v_turn;                       // sin, cos of the yaw: model -> world normals
flat out vec3 v_tint;                       // sRGB
out vec4 v_shadow;
flat out float v_fog;                       // the fog's kept fraction at the card's centre
#ifdef VELOCITY
// Motion vectors (crowd_gl_desc.velocity): the same corner of the card a frame earlier, the card
// then facing the previous camera from the record's previous place, in clip space (output.glsl).
uniform float u_previous_time;
uniform vec3 u_previous_camera;
uniform mat4 u_previous_view_projection;
out vec4 v_clip_previous;
#endif

#ifdef GPU_DRIVEN
// The GPU-driven path (gpu_crowd.c): the cull pass wrote this card's slot into the card partition.
layout(location = 12) in uint i_slot;
layout(std430, binding = 0) readonly buffer crowd_records { crowd_rec u_records[]; };
crowd_rec instance_record() { return u_records[i_slot]; }
#elif defined(RECORD_TEXTURE)
// The CPU path (imposter.c): one non-instanced indexed draw, 4 vertices per card; card k of the draw is
// record u_first + k of the records texture (4 texels per record, 512 a row: CROWD_GL_RECORDS_PER_ROW).
uniform highp usampler2D u_records;
uniform int u_first;
crowd_rec g_record;
crowd_rec fetch_record()
{
    int slot = u_first + gl_VertexID / 4; // an indexed draw: 4 corners a card (imposter.c)
    ivec2 at = ivec2((slot % 512) * 4, slot / 512);
    uvec4 w0 = texelFetch(u_records, at, 0), w1 = texelFetch(u_records, at + ivec2(1, 0), 0);
    uvec4 w2 = texelFetch(u_records, at + ivec2(2, 0), 0), w3 = texelFetch(u_records, at + ivec2(3, 0), 0);
    return crowd_rec(uintBitsToFloat(w0), uintBitsToFloat(w1), uintBitsToFloat(w2), w3);
}
crowd_rec instance_record() { return g_record; }
#else
crowd_rec instance_record() { return crowd_rec(i_transform, i_play_a, i_play_b, i_look); }
#endif
vec3 instance_position() { return record_position(instance_record(), u_time); }
float instance_yaw() { return record_yaw(instance_record(), u_time); }
float instance_scale() { return record_scale(instance_record()); }

// The clip showing and its phase: clip A, or clip B once a cross-fade is past half way; the
// same fract / clamp as crowd.vert's clip_sample.
void instance_clip(float time, out int clip, out float phase)
{
    crowd_rec r = instance_record();
    bool b = record_fade_weight(r, time) > 0.5;
    bool hold = b ? record_hold_b(r) : record_hold_a(r);
    float p = b ? r.play_b.x + time * r.play_b.y : r.play_a.x + time * r.play_a.y;
    clip = int(b ? record_clip_b(r) : record_clip_a(r));
    phase = hold ? clamp(p, 0.0, 1.0) : fract(p);
}

float band_random()
{
    return record_band_random(instance_record());
}

void view_axes(float yaw, float elevation, out vec3 right, out vec3 up)
{
    vec3 d = vec3(sin(yaw) * cos(elevation), sin(elevation), cos(yaw) * cos(elevation));
    right = normalize(vec3(d.z, 0.0, -d.x));
    up = cross(d, right);
}

// The box's extent along two axes: (min a, min b, max a, max b). In closed form (centre +- the
// half extents against the axis's absolute components): the same extremes as its eight corners,
// at a fifth of the work, and every card vertex computes five of these.
vec4 box_rect(vec3 lo, vec3 hi, vec3 a, vec3 b)
{
    vec3 c = 0.5 * (lo + hi), h = 0.5 * (hi - lo);
    vec2 m = vec2(dot(c, a), dot(c, b)), e = vec2(dot(h, abs(a)), dot(h, abs(b)));
    return vec4(m - e, m + e);
}

vec2 tile_origin(int tile)
{
    int columns = int(u_imposter_grid.w);
    return vec2(float(tile % columns), float(tile / columns)) * u_tile_scale;
}

vec2 tile_uv(vec3 q, float yaw, float elevation, vec3 lo, vec3 hi)
{
    vec3 right, up;
    view_axes(yaw, elevation, right, up);
    vec4 r = box_rect(lo, hi, right, up);
    return vec2((dot(q, right) - r.x) / (r.z - r.x), (r.w - dot(q, up)) / (r.w - r.y));
}

#ifdef VELOCITY
// Corner k of the card at shader time `time` seen from `camera`, in world space: main's geometry
// (the clip's box, the facing, the yaw, the place) at that time, without its texturing.
vec3 card_corner(float time, vec3 camera, vec2 k)
{
    crowd_rec rec = instance_record();
    vec3 pos = record_position(rec, time);
    float yaw = record_yaw(rec, time), scale = record_scale(rec), s = sin(yaw), c = cos(yaw);
    int clip;
    float phase;
    instance_clip(time, clip, phase);
    vec3 lo = texelFetch(u_imposter_clips, ivec2(0, clip), 0).xyz, hi = texelFetch(u_imposter_clips, ivec2(1, clip), 0).xyz;
    vec3 centre = 0.5 * (lo + hi), w = (camera - pos) / scale;
    vec3 d = normalize(vec3(c * w.x - s * w.z, w.y, s * w.x + c * w.z) - centre);
    vec3 side = vec3(d.z, 0.0, -d.x);
    vec3 right = dot(side, side) > 1e-8 ? normalize(side) : vec3(1.0, 0.0, 0.0), up = cross(d, right);
    vec4 r = box_rect(lo, hi, right, up);
    vec3 p = (right * mix(r.x, r.z, k.x) + up * mix(r.y, r.w, k.y) + d * dot(centre, d)) * scale;
    return vec3(c * p.x + s * p.z, p.y, -s * p.x + c * p.z) + pos;
}
#endif

void main()
{
#if defined(RECORD_TEXTURE) && !defined(GPU_DRIVEN)
    g_record = fetch_record(); // once: every helper below reads it
#endif
    vec3 pos = instance_position();
    float yaw = instance_yaw(), scale = instance_scale();
    float s = sin(yaw), c = cos(yaw);
    if (u_band.z > 0.5) { // a band chunk: the mesh draw keeps the rest (crowd.vert)
        float f = clamp((length(u_camera - pos) - u_band.x) / max(u_band.y - u_band.x, 1e-6), 0.0, 1.0);
        if (!(band_random() < f)) {
            gl_Position = vec4(0.0, 0.0, 2.0, 1.0); // every corner on one point: no pixels
            return;
        }
    }
    int clip;
    float phase;
    instance_clip(u_time, clip, phase);
    vec4 t0 = texelFetch(u_imposter_clips, ivec2(0, clip), 0), t1 = texelFetch(u_imposter_clips, ivec2(1, clip), 0);
    vec3 lo = t0.xyz, hi = t1.xyz, centre = 0.5 * (lo + hi);

    // the camera in model space (inverse of crowd.vert's place())
    vec3 w = (u_camera - pos) / scale;
    vec3 m = vec3(c * w.x - s * w.z, w.y, s * w.x + c * w.z) - centre;
    vec3 d = normalize(m);
    float frames = u_imposter_grid.x, views = u_imposter_grid.y;
    int elevations = int(u_imposter_grid.z);
    float v = atan(d.x, d.z) / 6.2831853 * views;
    v = v < 0.0 ? v + views : v;
    float j0 = floor(v);
    int view0 = int(j0) % int(views), view1 = (view0 + 1) % int(views);
    // the two baked elevations around the camera's, blended like the two yaw views (clamped past
    // the first and the last)
    float el = asin(clamp(d.y, -1.0, 1.0));
    int e0 = 0;
    for (int k = 1; k < 4; k++)
        if (k < elevations && u_imposter_elevation[k] <= el)
            e0 = k;
    int e1 = min(e0 + 1, elevations - 1);
    float eb = e1 != e0 ? clamp((el - u_imposter_elevation[e0]) / (u_imposter_elevation[e1] - u_imposter_elevation[e0]), 0.0, 1.0) : 0.0;
    v_blend = vec2(v - j0, eb);

    vec4 info = texelFetch(u_clips, ivec2(clip, 0), 0);
    int n = int(frames);
    int key = info.z > 0.5 ? int(floor(phase * frames + 0.5)) % n : clamp(int(floor(phase * (frames - 1.0) + 0.5)), 0, n - 1);
    int first0 = int(t0.w) + (key * elevations + e0) * int(views), first1 = int(t0.w) + (key * elevations + e1) * int(views);
    v_tiles0 = vec4(tile_origin(first0 + view0), tile_origin(first0 + view1));
    v_tiles1 = vec4(tile_origin(first1 + view0), tile_origin(first1 + view1));

    // the card: facing the camera, through the box centre, covering the box
    vec3 side = vec3(d.z, 0.0, -d.x); // straight above or below: any horizontal right will do
    vec3 right = dot(side, side) > 1e-8 ? normalize(side) : vec3(1.0, 0.0, 0.0), up = cross(d, right);
    vec4 r = box_rect(lo, hi, right, up);
#if defined(RECORD_TEXTURE) && !defined(GPU_DRIVEN)
    // corners 00 10 11 01, the triangles (0, 1, 2), (0, 2, 3) from the index buffer: SwiftShader's
    // vertex cache then runs this shader 4 times a card instead of 6
    int corner = gl_VertexID % 4;
    vec2 k = vec2(corner == 1 || corner == 2 ? 1.0 : 0.0, corner >= 2 ? 1.0 : 0.0);
#else
    int corner = gl_VertexID % 6;
    vec2 k = vec2(corner == 1 || corner == 2 || corner == 4 ? 1.0 : 0.0, corner >= 2 && corner != 3 ? 1.0 : 0.0);
#endif
    vec3 q = right * mix(r.x, r.z, k.x) + up * mix(r.y, r.w, k.y) + d * dot(centre, d);
    float step = 6.2831853 / views;
    float a0 = u_imposter_elevation[e0], a1 = u_imposter_elevation[e1];
    v_uv0 = vec4(tile_uv(q, float(view0) * step, a0, lo, hi), tile_uv(q, float(view1) * step, a0, lo, hi));
    v_uv1 = vec4(tile_uv(q, float(view0) * step, a1, lo, hi), tile_uv(q, float(view1) * step, a1, lo, hi));

    vec3 p = q * scale;
    vec3 world = vec3(c * p.x + s * p.z, p.y, -s * p.x + c * p.z) + pos;
    gl_Position = u_view_projection * vec4(world, 1.0);
    // One mip level for the card, as the hardware would pick it from its pixels' texel footprint:
    // the card faces the camera, so the footprint is the same all over it, the tile's texels over
    // the card's pixels along its narrower side. A level per card instead of per pixel saves the
    // fragment shader its derivatives and four gradient fetches' level selection (in SwiftShader
    // the card pixels are most of the frame at 20k).
    vec3 centre_world = vec3(c * centre.x * scale + s * centre.z * scale, centre.y * scale,
                             -s * centre.x * scale + c * centre.z * scale) + pos;
    vec4 middle = u_view_projection * vec4(centre_world, 1.0);
    float pixels = u_card_lod.x * scale * min(r.z - r.x, r.w - r.y) / max(middle.w, 1e-3);
    v_lod = max(log2(u_card_lod.y / max(pixels, 1e-6)), 0.0);
    v_turn = vec2(s, c);
    uint tint = record_tint(instance_record());
    v_tint = vec3(float(tint & 255u), float((tint >> 8u) & 255u), float((tint >> 16u) & 255u)) / 255.0;
    v_shadow = u_light_view_projection * vec4(world, 1.0);
    // The fog per card, at the box centre, not per pixel (in SwiftShader the card pixels are most of
    // the frame at 100k): at the demo's density (0.0011) the fog over a card's +-1 m differs by under
    // 0.2 / 255 out to 400 m (the slope grows with density x distance).
    float fog = length(centre_world - u_camera) * u_fog_density;
    v_fog = exp(-fog * fog);
#ifdef VELOCITY
    v_clip_previous = u_previous_view_projection * vec4(card_corner(u_previous_time, u_previous_camera, k), 1.0);
#endif
}
