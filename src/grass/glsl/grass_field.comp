// The interaction fields on desktop GL 4.3 (src/grass/grass_fields.c's compute variant): the decay
// and the discs of grass_field.vert/.frag as one pass per field, with the same arithmetic, including
// the RGBA8 rounding the fragment path's render target applies after the decay and after each
// blended disc (so both variants hold the same texels).
//  - Trample (default): the active texture of the pair is bound read-only, the other write-only.
//    They must be two images: an invocation reads the source texel its destination texel moved
//    from when the window followed the focus, which another invocation may be writing.
//  - CUT: one image read and written in place (an invocation reads and writes only its own texel),
//    dispatched over the bounding box of this update's discs only.
// The blade shader samples the result as an ordinary texture: grass_fields.c issues
// glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT | GL_SHADER_IMAGE_ACCESS_BARRIER_BIT | ...) after
// the pass; without it the samples may see the texture as it was (the seed's silent failure).
layout(local_size_x = 16, local_size_y = 16) in;
layout(std430, binding = 7) readonly buffer grass_stamps { vec4 g_stamps[]; }; // world x, z, radius, unused
uniform vec4 u_field;  // the field's -x/-z corner (world), texel size (m), resolution
uniform uvec4 u_discs; // first disc, disc count, the dispatch's first texel (x, z)
#ifdef CUT
layout(rgba8, binding = 0) uniform restrict image2D u_cut_image;
#else
layout(rgba8, binding = 0) readonly uniform restrict image2D u_source;
layout(rgba8, binding = 1) writeonly uniform restrict image2D u_destination;
uniform ivec4 u_shift; // texels the window moved (x, z), resolution, 1: decay the source (0: start clear)
uniform vec2 u_step;   // dt / hold, dt / recovery (grass_field.frag)
#endif

shared vec4 s_disc[256];
shared uint s_mask[8]; // a bit per disc of the batch that overlaps the tile

vec4 unorm8(vec4 v)
{
    return floor(clamp(v, 0.0, 1.0) * 255.0 + 0.5) / 255.0;
}

void main()
{
    uint lid = gl_LocalInvocationIndex;
    ivec2 p = ivec2(gl_GlobalInvocationID.xy + u_discs.zw);
    int res = int(u_field.w);
    bool inside = p.x < res && p.y < res;
    // the work group's texel centres in world metres: what a disc must overlap to matter here
    vec2 tile0 = u_field.xy + (vec2(gl_WorkGroupID.xy * 16u + u_discs.zw) + 0.5) * u_field.z;
    vec2 tile1 = tile0 + 15.0 * u_field.z;
    vec2 world = u_field.xy + (vec2(p) + 0.5) * u_field.z;
#ifdef CUT
    vec4 value = inside ? imageLoad(u_cut_image, p) : vec4(0.0);
#else
    vec4 value = vec4(0.5, 0.5, 0.0, 1.0); // ground the window just reached, or nothing to decay
    ivec2 q = p + u_shift.xy;
    if (inside && u_shift.w == 1 && q.x >= 0 && q.y >= 0 && q.x < u_shift.z && q.y < u_shift.z) {
        vec4 s = imageLoad(u_source, q);
        float age = s.a + u_step.x;
        float past = u_step.x > 0.0 ? clamp((age - 1.0) / u_step.x, 0.0, 1.0) : 0.0;
        float b = max(s.b - u_step.y * past, 0.0);
        value = b > 0.0 ? vec4(s.rg, b, min(age, 1.0)) : vec4(0.5, 0.5, 0.0, 1.0);
    }
    value = unorm8(value);
#endif
    // the discs in batches of 256: each invocation tests one against the tile and sets its bit in
    // a mask; every texel then applies the set bits lowest first, i.e. in stamp order, which the
    // blended result depends on (three barriers a batch: llvmpipe pays for each)
    for (uint b0 = 0u; b0 < u_discs.y; b0 += 256u) {
        if (lid < 8u)
            s_mask[lid] = 0u;
        barrier();
        uint k = b0 + lid;
        if (k < u_discs.y) {
            vec4 s = g_stamps[u_discs.x + k];
            s_disc[lid] = s;
            if (s.x + s.z >= tile0.x && s.x - s.z <= tile1.x && s.y + s.z >= tile0.y && s.y - s.z <= tile1.y)
                atomicOr(s_mask[lid >> 5], 1u << (lid & 31u));
        }
        barrier();
        for (uint w = 0u; w < 8u; w++) {
            uint bits = s_mask[w];
            while (bits != 0u) {
                int j = findLSB(bits);
                bits &= bits - 1u;
                vec4 d = s_disc[w * 32u + uint(j)];
                vec2 local = (world - d.xy) / d.z;
                float r = length(local);
                if (r > 1.0)
                    continue;
                float wt = 1.0 - smoothstep(0.55, 1.0, r);
#ifdef CUT
                value = max(value, vec4(wt)); // MAX blending
#else
                vec2 dir = r > 1e-3 ? local / r * min(r * 2.5, 1.0) : vec2(0.0);
                // the fragment path's blend: rgb towards (dir, 1) by wt, alpha (the age) times 1 - wt
                value = unorm8(vec4(vec3(dir * 0.5 + 0.5, 1.0) * wt + value.rgb * (1.0 - wt), value.a * (1.0 - wt)));
#endif
            }
        }
        barrier();
    }
    if (!inside)
        return;
#ifdef CUT
    imageStore(u_cut_image, p, unorm8(value));
#else
    imageStore(u_destination, p, value);
#endif
}
