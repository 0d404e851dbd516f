// Far shadows (crowd_gl_far_shadow BLOB, blob_shadow.c): one soft ellipse on the ground per instance
// that casts no mesh shadow, 6 vertices of a quad, no vertex buffer. The record (record.glsl,
// prepended) decoded through its functions only.
uniform mat4 u_view_projection;
uniform float u_time;
uniform vec3 u_camera;
uniform vec3 u_sun_direction;
uniform float u_fog_density;
uniform vec4 u_blob; // footprint radius, box height (metres at scale 1), lift above the feet (metres), 0

out vec2 v_local;    // the ellipse's own coordinates: the rim at length 1
out float v_fog;     // exp2 fog transmittance at the centre: the darkening fades as the ground's colour does

#ifdef GPU_DRIVEN
// The GPU-driven path (gpu_crowd.c): the cull pass wrote the slot into a partition without shadow.
layout(location = 12) in uint i_slot;
layout(std430, binding = 0) readonly buffer crowd_records { crowd_rec u_records[]; };
crowd_rec instance_record() { return u_records[i_slot]; }
#else
// The CPU path: one non-instanced draw, 6 vertices a blob, over up to 64 runs of contiguous records
// (BLOB_RUNS in blob_shadow.c; two a vector: first record, first blob of the draw). Blob k belongs to
// the last run starting at or before k (a binary search), and its record comes from the records
// texture, laid out as imposter.vert reads it (4 texels a record, 512 a row: CROWD_GL_RECORDS_PER_ROW).
uniform highp usampler2D u_records;
uniform ivec4 u_runs[32];
uniform int u_run_count;
ivec2 run(int j)
{
    ivec4 v = u_runs[j >> 1];
    return (j & 1) == 0 ? v.xy : v.zw;
}
crowd_rec instance_record()
{
    int k = gl_VertexID / 6, lo = 0;
    for (int step = 32; step > 0; step >>= 1)
        if (lo + step < u_run_count && run(lo + step).y <= k)
            lo += step;
    ivec2 r = run(lo);
    int slot = r.x + k - r.y;
    ivec2 at = ivec2((slot % 512) * 4, slot / 512);
    uvec4 w0 = texelFetch(u_records, at, 0), w1 = texelFetch(u_records, at + ivec2(1, 0), 0);
    uvec4 w2 = texelFetch(u_records, at + ivec2(2, 0), 0), w3 = texelFetch(u_records, at + ivec2(3, 0), 0);
    return crowd_rec(uintBitsToFloat(w0), uintBitsToFloat(w1), uintBitsToFloat(w2), w3);
}
#endif

void main()
{
    crowd_rec rec = instance_record();
    vec3 feet = record_position(rec, u_time);
    float scale = record_scale(rec);
    // where the shadow falls: away from the sun on the ground, as far as the box's top would throw it
    // (the sun's height clamped at 0.25, about 14 degrees: a low sun stretches it at most 4 heights)
    vec2 flat_sun = u_sun_direction.xz;
    float across_sun = length(flat_sun);
    vec2 along = across_sun > 1e-4 ? -flat_sun / across_sun : vec2(1.0, 0.0);
    vec2 side = vec2(-along.y, along.x);
    float radius = u_blob.x * scale;
    float reach = u_blob.y * scale * across_sun / max(u_sun_direction.y, 0.25);
    int corner = gl_VertexID % 6; // two triangles: (0, 1, 2), (3, 4, 5) = corners 00 10 11, 00 11 01
    vec2 k = vec2(corner == 1 || corner == 2 || corner == 4 ? 1.0 : -1.0, corner >= 2 && corner != 3 ? 1.0 : -1.0);
    vec2 centre = feet.xz + along * (0.5 * reach);
    vec2 at = centre + along * (k.x * (0.5 * reach + radius)) + side * (k.y * radius);
    vec3 world = vec3(at.x, feet.y + u_blob.z, at.y);
    gl_Position = u_view_projection * vec4(world, 1.0);
    v_local = k;
    float d = length(vec3(centre.x, feet.y, centre.y) - u_camera) * u_fog_density;
    v_fog = exp(-d * d);
}
