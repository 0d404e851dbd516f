// One work group per visible chunk (an indirect dispatch sized by grass_chunk.comp): each root of
// the chunk's prefix goes to one tier's partition of the id buffer; the partitions' counters are
// the instanceCount of the three indirect draws (src/gl/gpu_cull.h's bindings 1 and 2).
layout(local_size_x = 256) in;
layout(std430, binding = 1) writeonly buffer grass_ids { uint g_ids[]; };
layout(std430, binding = 2) buffer grass_commands { uint g_commands[]; };
layout(std430, binding = 4) readonly buffer grass_visible { uint g_dispatch[4]; uvec2 g_chunks[]; };
uniform uvec4 u_chunk_counts;
uniform uint u_capacity;

shared uint s_count[3];
shared uint s_base[3];

// Slots are taken from work-group counters first and from the global ones once per tier per round
// (3 global atomics a round instead of one per root: llvmpipe serialises contended atomics).
void main()
{
    uvec2 entry = g_chunks[gl_WorkGroupID.x];
    uint first = entry.x * u_chunk_counts.x + min(entry.x, u_chunk_counts.y);
    for (uint round0 = 0u; round0 < entry.y; round0 += 256u) { // the same trip count in the whole group
        if (gl_LocalInvocationID.x < 3u)
            s_count[gl_LocalInvocationID.x] = 0u;
        barrier();
        uint k = round0 + gl_LocalInvocationID.x, i = first + k, local = 0u;
        int tier = 3;
        if (k < entry.y) {
            vec4 b = grass_blade(i);
            tier = grass_tier(grass_distance(b.xy), b.z);
            if (tier < 3)
                local = atomicAdd(s_count[tier], 1u);
        }
        barrier();
        if (gl_LocalInvocationID.x < 3u) {
            uint t = gl_LocalInvocationID.x;
            s_base[t] = s_count[t] > 0u ? atomicAdd(g_commands[5u * t + 1u], s_count[t]) : 0u;
        }
        barrier();
        if (tier < 3)
            g_ids[uint(tier) * u_capacity + s_base[tier] + local] = i;
        barrier();
    }
}
