// Chunk cull (grass_field.c grass_chunk_test on the GPU): one invocation per chunk; a visible
// chunk appends (id, prefix length) and counts itself into the classify pass's dispatch size.
layout(local_size_x = 256) in;
layout(std430, binding = 4) buffer grass_visible { uint g_dispatch[4]; uvec2 g_chunks[]; };
uniform uvec4 u_chunk_counts; // blades per chunk (base), chunks with one more, chunk count, per axis
uniform vec2 u_chunk_grid;    // field origin (x = z), chunk size
uniform vec4 u_cull;          // heading x, z, wedge half angle, near radius
uniform vec4 u_density;       // full density distance, power, falloff, min density
uniform float u_budget;

void main()
{
    uint c = gl_GlobalInvocationID.x;
    if (c >= u_chunk_counts.z)
        return;
    float size = u_chunk_grid.y;
    float x0 = u_chunk_grid.x + float(c % u_chunk_counts.w) * size, z0 = u_chunk_grid.x + float(c / u_chunk_counts.w) * size;
    float x1 = x0 + size, z1 = z0 + size;
    vec2 e = u_grass_eye.xz;
    vec2 n = vec2(clamp(e.x, x0, x1), clamp(e.y, z0, z1));
    float dmin = sqrt((n.x - e.x) * (n.x - e.x) + (n.y - e.y) * (n.y - e.y));
    float draw = u_grass_eye.w;
    if (dmin > draw)
        return;
    vec2 cc = vec2(0.5 * (x0 + x1), 0.5 * (z0 + z1)) - e;
    float dc = sqrt(cc.x * cc.x + cc.y * cc.y), radius = 0.70710678 * size;
    if (dc > u_cull.w + radius && dc > radius) {
        float cosphi = clamp((cc.x * u_cull.x + cc.y * u_cull.y) / dc, -1.0, 1.0);
        if (acos(cosphi) > u_cull.z + asin(radius / dc))
            return;
    }
    uint count = u_chunk_counts.x + (c < u_chunk_counts.y ? 1u : 0u);
    float keep = 1.0;
    if (dmin > u_density.x) {
        float span = draw - u_density.x;
        float t = span > 0.0 ? clamp((dmin - u_density.x) / span, 0.0, 1.0) : 1.0;
        keep = max(exp(-u_density.z * pow(t, u_density.y)), u_density.w);
    }
    uint prefix = min(count, uint(ceil(float(count) * (keep * u_budget))));
    uint slot = atomicAdd(g_dispatch[0], 1u);
    g_chunks[slot] = uvec2(c, prefix);
}
