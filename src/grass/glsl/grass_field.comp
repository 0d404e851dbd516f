// The interaction fields on desktop GL 4.3 (src/grass/grass_fields.c's compute variant): the decay
// and the discs of grass_field.vert/.frag as one pass per field, with the same arithmetic, including
// the RGBA8 rounding the fragment path's render target applies after the decay and after each
// blended disc (so both variants hold the same texels).
//  - Trample (default): the active texture of the pair is bound read-only, the other write-only.
//    They must be two images: an invocation reads the source texel its destination texel moved
//    from when the window followed the focus, which another invocation may be writing.
//  - CUT: one image read and written in place (an invocation reads and writes only its own texel),
//    dispatched over the bounding box of this update's discs only.
// The discs come binned by 16 x 16 texel tile (grass_fields.c bin_discs).
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

// per work group (tile, row by row): where its list starts (tiles + 1 words), then the lists: indices
// of this dispatch's discs from u_discs.x (grass_fields.c bin_discs)
layout(std430, binding = 8) readonly buffer grass_bins { uint g_bins[]; };

vec4 unorm8(vec4 v)
{
    return floor(clamp(v, 0.0, 1.0) * 255.0 + 0.5) / 255.0;
}

void main()
{
    ivec2 p = ivec2(gl_GlobalInvocationID.xy + u_discs.zw);
    int res = int(u_field.w);
    bool inside = p.x < res && p.y < res;
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
    // the discs that overlap this work group's tile, in stamp order (the blended result depends on
    // it): binned on the CPU, so no invocation tests a disc that misses its tile and no barrier is
    // needed (llvmpipe pays dearly for each)
    if (u_discs.y > 0u) {
        uint tile = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
        uint lists = gl_NumWorkGroups.x * gl_NumWorkGroups.y + 1u;
        for (uint j = g_bins[tile]; j < g_bins[tile + 1u]; j++) {
            vec4 d = g_stamps[u_discs.x + g_bins[lists + j]];
            vec2 local = (world - d.xy) / d.z;
            float r = length(local);
            if (r > 1.0)
                continue;
            float w = 1.0 - smoothstep(0.55, 1.0, r);
#ifdef CUT
            value = max(value, vec4(w)); // MAX blending
#else
            vec2 dir = r > 1e-3 ? local / r * min(r * 2.5, 1.0) : vec2(0.0);
            // the fragment path's blend: rgb towards (dir, 1) by w, alpha (the age) times 1 - w
            value = unorm8(vec4(vec3(dir * 0.5 + 0.5, 1.0) * w + value.rgb * (1.0 - w), value.a * (1.0 - w)));
#endif
        }
    }
    if (!inside)
        return;
#ifdef CUT
    imageStore(u_cut_image, p, unorm8(value));
#else
    imageStore(u_destination, p, value);
#endif
}
