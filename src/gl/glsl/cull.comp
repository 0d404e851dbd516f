// The crowd's GPU cull pass (GLSL 4.30, desktop GL 4.3+; see src/gl/gpu_cull.h for the layer).
// One invocation per slot in use; the live ones (their owner, frame.slot_instances, is a live
// instance) go on: frustum test of the instance's culling sphere (its clip's: crowd_cull_sphere in
// crowd_lod.c), its level of
// detail (screen coverage or distance, the CPU policy's thresholds and hysteresis, plus the
// stochastic band), then compaction of its slot into the partition of its level (colour pass)
// and, when it casts, into the shadow partition of that level. Casters follow the CPU path's rule
// at instance granularity: what the camera draws, up to the shadow's last level, inside the
// light's frustum (the CPU path casts the camera's visible chunks; nobody outside the view casts). A partition's counter is the
// instanceCount of its indirect draw command: nothing is read back.
//
// With a vertex budget the pass runs in three stages (u_stage): 0 adds every visible instance to a
// histogram of (preferred level, log2 coverage bin); 1 (one invocation) walks the bins from the
// smallest coverage up, demoting whole bins to the last level until the submitted indices fit,
// and stores the cutoff bin (seed 004's rule at bin granularity: smallest first, each as far as
// it goes, nobody hidden); 2 classifies and compacts, instances at or below the cutoff taking the
// last level. Without a budget only stage 2 runs.
layout(local_size_x = 256) in;

// The records (crowd_rec and its decode: record.glsl, prepended).
layout(std430, binding = 0) readonly buffer crowd_records { crowd_rec records[]; };
layout(std430, binding = 1) writeonly buffer crowd_ids { uint ids[]; };
// DrawElementsIndirectCommand x partitions: count, instanceCount, firstIndex, baseVertex, baseInstance
layout(std430, binding = 2) buffer crowd_commands { uint commands[]; };
layout(std430, binding = 3) buffer crowd_state { uint state[]; }; // per instance: last level (hysteresis)
layout(std430, binding = 4) readonly buffer crowd_owners { uint slot_instances[]; }; // per slot: its instance
// [level * BINS + bin] counts, then the result: cutoff bin (-1: none), satisfied, demoted, indices
// submitted (low, high words)
#define BINS 256
layout(std430, binding = 5) buffer crowd_budget { uint histogram[]; };
// attachments' commands: 16 per attachment, instanceCount copied from the crowd's (stage 3)
layout(std430, binding = 6) buffer crowd_attachment_commands { uint attachment_commands[]; };
#define RESULT (8 * BINS)
// per clip: the yaw-invariant culling sphere (crowd_clip.cull_center_y, cull_radius), model space
layout(std430, binding = 7) readonly buffer crowd_clip_spheres { vec2 clip_spheres[]; };

uniform float u_time;                 // the frame's shader time: positions are extrapolated to it
uniform uint u_live;                  // live instances: a slot whose owner is >= this is slack or parked
uniform uint u_total;                 // slots in use
uniform vec4 u_planes[6];             // camera frustum, a x + b y + c z + d >= 0 inside
uniform vec4 u_light_planes[6];       // the light's frustum (shadow casters)
uniform vec3 u_camera;
uniform float u_projection_scale;     // projection[5]
uniform int u_perspective;
uniform float u_sphere_y, u_sphere_radius; // the asset sphere: level of detail (coverage, distance)
uniform uint u_clip_count;
uniform int u_levels;                 // mesh levels
uniform int u_cards;                  // 1: the imposter level (cards) follows the last mesh level
uniform float u_card_band;            // imposter hand-off width b (crowd_desc.imposter_band); 0: hard switch
uniform int u_card_from;              // the hand-off's mesh side: levels from it may take the card (crowd.h CROWD_DRAW_BAND)
uniform int u_policy;                 // 0: distance, 1: screen coverage
uniform float u_thresholds[8];        // coverage: minimum per level; distance: where each level ends
uniform float u_hysteresis;           // coverage policy's relative dead band
uniform float u_bias;
uniform float u_min_coverage;
uniform float u_band;                 // log of (1 + band width); 0: no band
uniform int u_shadow_max_lod;         // -1: no shadow casters
uniform uint u_partition;             // ids per partition
uniform uint u_shadow_base;           // partition index of shadow level 0
uniform int u_stage;                  // 0 histogram, 1 resolve, 2 classify and compact, 3 attachments
uniform int u_budget_on;
uniform uint u_budget;                // index references
uniform uint u_index_counts[8];       // per level (the cards' 6 after the mesh levels)

shared uint s_count[16];
shared uint s_base[16];

// A fixed random value in [0, 1) per instance (integer hash; no state).
float instance_random(uint s)
{
    s ^= s >> 16u;
    s *= 0x7feb352du;
    s ^= s >> 15u;
    s *= 0x846ca68bu;
    s ^= s >> 16u;
    return float(s >> 8u) * (1.0 / 16777216.0);
}

float band_random(crowd_rec r)
{
    return record_band_random(r);
}

// From the hand-off's mesh side (u_card_from) on: the cards or that level, as crowd_lod.c decides it per instance.
// Coverage: the threshold T = u_thresholds[last] with the dead band (no hand-off band), or
// inside [T / (1 + b), T (1 + b)] the card when the instance's value is below the blend factor
// (log coverage). Distance: the card from T (x bias) on, or inside [T / (1 + b), T (1 + b)] metres
// of the record's own position the same rule, linear in metres (CROWD_DRAW_BAND).
bool takes_card(crowd_rec r, float coverage, float pos_dist, float centre_dist, int previous)
{
    int l = u_levels - 1;
    float t = u_thresholds[l];
    if (u_policy == 1) {
        float v = coverage * u_bias;
        if (u_card_band > 0.0) {
            float b = 1.0 + u_card_band;
            if (v >= t * b)
                return false;
            if (v > t / b)
                return band_random(r) < log(t * b / v) / (2.0 * log(b));
            return true;
        }
        return !(v >= t * (l < previous ? 1.0 + u_hysteresis : 1.0 - u_hysteresis));
    }
    if (!(t > 0.0))
        return false;
    if (u_card_band > 0.0) {
        float lo = t * u_bias / (1.0 + u_card_band), hi = t * u_bias * (1.0 + u_card_band);
        return band_random(r) < clamp((pos_dist - lo) / (hi - lo), 0.0, 1.0);
    }
    return centre_dist / u_bias >= t;
}

// Clip k's culling sphere as its lowest and highest y; the asset's for an index out of range.
vec2 clip_cull_span(uint k)
{
    vec2 s = k < u_clip_count ? clip_spheres[k] : vec2(u_sphere_y, u_sphere_radius);
    precise float lo = s.x - s.y, hi = s.x + s.y;
    return vec2(lo, hi);
}

// crowd_cull_sphere: clip A's sphere, or the one holding clip A's and clip B's, scaled (xyz centre,
// w radius), at the record's position `at`.
vec4 cull_sphere(crowd_rec r, vec3 at, float scale)
{
    vec2 a = clip_cull_span(record_clip_a(r)), b = clip_cull_span(record_clip_b(r));
    precise float lo = min(a.x, b.x), hi = max(a.y, b.y);
    precise float y = at.y + (hi + lo) * 0.5 * scale, radius = (hi - lo) * 0.5 * scale;
    return vec4(at.x, y, at.z, radius);
}

bool sphere_in(vec4 planes[6], vec3 c, float radius)
{
    for (int i = 0; i < 6; i++) {
        precise float d = planes[i].x * c.x + planes[i].y * c.y + planes[i].z * c.z + planes[i].w;
        if (d < -radius)
            return false;
    }
    return true;
}

// The level for metric m (coverage x bias, or distance / bias) with the previous level's dead
// band, exactly as crowd_lod.c computes it; `personal` moves every threshold of this instance
// inside the band (1 without a band).
int coverage_level(float m, int previous, float personal)
{
    for (int l = 0; l < u_levels - 1; l++) {
        precise float threshold = u_thresholds[l] * (l < previous ? 1.0 + u_hysteresis : 1.0 - u_hysteresis);
        if (m >= threshold * personal)
            return l;
    }
    return u_levels - 1;
}

int distance_level(float d, float personal)
{
    int level = 0;
    while (level < u_levels - 1 && u_thresholds[level] > 0.0 && d >= u_thresholds[level] * personal)
        level++;
    return level;
}

int coverage_bin(float coverage)
{
    return clamp(int(floor((log2(max(coverage, 1e-30)) + 16.0) * 8.0)), 0, BINS - 1);
}

void resolve_budget()
{
    int last = u_levels - 1;
    double total = 0.0;
    for (int l = 0; l < u_levels + u_cards; l++)
        for (int b = 0; b < BINS; b++)
            total += double(histogram[l * BINS + b]) * double(u_index_counts[l]);
    int cutoff = -1;
    uint demoted = 0u;
    double budget = double(u_budget);
    for (int b = 0; b < BINS && total > budget; b++) {
        for (int l = 0; l < last; l++) {
            uint n = histogram[l * BINS + b];
            total -= double(n) * (double(u_index_counts[l]) - double(u_index_counts[last]));
            demoted += n;
        }
        cutoff = b;
    }
    histogram[RESULT] = uint(cutoff);
    histogram[RESULT + 1] = total <= budget ? 1u : 0u;
    histogram[RESULT + 2] = demoted;
    uint high = uint(total / 4294967296.0);
    histogram[RESULT + 3] = uint(total - double(high) * 4294967296.0);
    histogram[RESULT + 4] = high;
}

// One slot: its instance, culling sphere (xyz, w radius), coverage, preferred level (hysteresis and
// band applied) and whether it is live, the camera sees it and it is large enough to draw at all.
struct Item { uint slot; uint instance; vec4 cull; float coverage; int level; bool big_enough; bool seen; };

Item classify(uint t)
{
    Item it;
    it.slot = t;
    it.instance = slot_instances[t];
    if (it.instance >= u_live) { // slack or parked: its record is undefined, never read it
        it.level = 0;
        it.cull = vec4(0.0);
        it.coverage = 0.0;
        it.big_enough = it.seen = false;
        return it;
    }
    crowd_rec r = records[it.slot];
    float scale = record_scale(r);
    precise vec3 at = record_position(r, u_time);
    precise vec3 centre = vec3(at.x, at.y + u_sphere_y * scale, at.z);
    precise float radius = u_sphere_radius * scale;
    precise vec3 d = centre - u_camera;
    precise float dist = sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
    precise float coverage = u_perspective != 0 ? (dist > radius ? radius * u_projection_scale / dist : 1e9)
                                                 : radius * u_projection_scale;
    // The band: this instance's thresholds sit at a fixed random point of [T / (1 + w), T (1 + w)],
    // so inside the band a fraction of instances equal to the blend factor takes the coarser level,
    // each drawn by exactly one level.
    float personal = u_band != 0.0 ? exp(u_band * (1.0 - 2.0 * instance_random(it.instance))) : 1.0;
    int previous = int(state[it.instance]);
    it.level = u_policy == 1 ? coverage_level(coverage * u_bias, previous, personal)
                             : distance_level(dist / u_bias, 1.0 / personal);
    if (u_cards != 0 && it.level >= u_card_from) {
        precise vec3 e = at - u_camera;
        if (takes_card(r, coverage, sqrt(e.x * e.x + e.y * e.y + e.z * e.z), dist, previous))
            it.level = u_levels; // the card partition (after the shadow ones: see main)
        else
            it.level = u_card_from; // the mesh side of the hand-off (the last mesh level, or where the chain ends)
    }
    it.cull = cull_sphere(r, at, scale);
    it.coverage = coverage;
    it.big_enough = coverage >= u_min_coverage;
    it.seen = it.big_enough && sphere_in(u_planes, it.cull.xyz, it.cull.w);
    return it;
}

void main()
{
    uint t = gl_GlobalInvocationID.x;
    if (u_stage == 1) {
        if (t == 0u)
            resolve_budget();
        return;
    }
    if (u_stage == 3) { // u_total = attachments x 16: each attachment draws its wearers' partitions
        if (t < u_total)
            attachment_commands[5u * t + 1u] = commands[5u * (t % 16u) + 1u];
        return;
    }
    if (u_stage == 0) { // uniform: the whole dispatch leaves here, before any barrier
        if (t < u_total) {
            Item it = classify(t);
            if (it.seen)
                atomicAdd(histogram[it.level * BINS + coverage_bin(it.coverage)], 1u);
        }
        return;
    }
    if (gl_LocalInvocationIndex < 16u)
        s_count[gl_LocalInvocationIndex] = 0u;
    barrier();

    int level = -1, shadow = -1;
    uint slot = 0u, local = 0u, shadow_local = 0u;
    if (t < u_total) {
        Item it = classify(t);
        slot = it.slot;
        int l = it.level;
        if (it.seen)
            state[it.instance] = uint(l); // the preferred level: budget demotions do not feed hysteresis
        if (u_budget_on != 0 && it.seen && l < u_levels && coverage_bin(it.coverage) <= int(histogram[RESULT]))
            l = u_levels - 1; // cards are cheaper than any mesh: the budget never moves them
        if (it.seen)
            level = l < u_levels ? l : int(u_shadow_base) + u_levels; // cards: the partition past the shadow ones
        if (it.seen && l < u_levels && l <= u_shadow_max_lod && sphere_in(u_light_planes, it.cull.xyz, it.cull.w))
            shadow = int(u_shadow_base) + l; // cards cast no shadow
        if (level >= 0)
            local = atomicAdd(s_count[level], 1u);
        if (shadow >= 0)
            shadow_local = atomicAdd(s_count[shadow], 1u);
    }
    barrier();
    if (gl_LocalInvocationIndex < 16u) {
        uint n = s_count[gl_LocalInvocationIndex];
        s_base[gl_LocalInvocationIndex] = n > 0u ? atomicAdd(commands[5u * gl_LocalInvocationIndex + 1u], n) : 0u;
    }
    barrier();
    if (level >= 0)
        ids[uint(level) * u_partition + s_base[level] + local] = slot;
    if (shadow >= 0)
        ids[uint(shadow) * u_partition + s_base[shadow] + shadow_local] = slot;
}
