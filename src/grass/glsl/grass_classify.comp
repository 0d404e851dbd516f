// One work group per visible chunk (an indirect dispatch sized by grass_chunk.comp): each root of
// the chunk's prefix goes to one tier's partition of the id buffer; the partitions' counters are
// the instanceCount of the three indirect draws (src/gl/gpu_cull.h's bindings 1 and 2).
layout(local_size_x = 256) in;
layout(std430, binding = 1) writeonly buffer grass_ids { uint g_ids[]; };
layout(std430, binding = 2) buffer grass_commands { uint g_commands[]; };
layout(std430, binding = 4) readonly buffer grass_visible { uint g_dispatch[4]; uvec2 g_chunks[]; };
uniform uvec4 u_chunk_counts;
uniform uint u_capacity;

void main()
{
    uvec2 entry = g_chunks[gl_WorkGroupID.x];
    uint first = entry.x * u_chunk_counts.x + min(entry.x, u_chunk_counts.y);
    for (uint k = gl_LocalInvocationID.x; k < entry.y; k += 256u) {
        uint i = first + k;
        vec4 b = grass_blade(i);
        int tier = grass_tier(grass_distance(b.xy), b.z);
        if (tier < 3) {
            uint slot = atomicAdd(g_commands[5u * uint(tier) + 1u], 1u);
            g_ids[uint(tier) * u_capacity + slot] = i;
        }
    }
}
