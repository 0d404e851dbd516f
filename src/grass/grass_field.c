/* The grass field's CPU side: defaults, blade generation, the chunk test, the tier rule and the
 * CPU reference both paths are checked against (see grass.h). No GL here. */
#include <math.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "grass/grass_testing.h"

/* Ground within near_radius = NEAR_PER_HEIGHT x camera height is kept in every direction; past it
 * a ground point is seen at most atan(1 / NEAR_PER_HEIGHT) below the horizon, which bounds how far
 * off the heading it can be at any pitch (grass_eye_of). */
#define NEAR_PER_HEIGHT 4.0f

static float or_default(float v, float d)
{
    return v != 0.0f ? v : d;
}

crowd_grass_desc crowd_grass_resolve(const crowd_grass_desc *desc)
{
    crowd_grass_desc d = desc ? *desc : (crowd_grass_desc){0};
    d.blades = d.blades ? d.blades : CROWD_GRASS_DEFAULT_BLADES;
    d.extent = or_default(d.extent, CROWD_GRASS_DEFAULT_EXTENT);
    d.chunk_size = or_default(d.chunk_size, CROWD_GRASS_DEFAULT_CHUNK);
    d.full_density_distance = or_default(d.full_density_distance, CROWD_GRASS_DEFAULT_FULL_DENSITY);
    d.density_power = or_default(d.density_power, CROWD_GRASS_DEFAULT_DENSITY_POWER);
    d.density_falloff = or_default(d.density_falloff, CROWD_GRASS_DEFAULT_DENSITY_FALLOFF);
    d.min_density = d.min_density == 0.0f  ? CROWD_GRASS_DEFAULT_MIN_DENSITY
                    : d.min_density < 0.0f ? 0.0f
                                           : d.min_density;
    if (d.near_band[0] == 0.0f && d.near_band[1] == 0.0f)
        d.near_band[0] = 18.0f, d.near_band[1] = 32.0f;
    if (d.far_band[0] == 0.0f && d.far_band[1] == 0.0f)
        d.far_band[0] = 60.0f, d.far_band[1] = 84.0f;
    d.draw_distance = or_default(d.draw_distance, d.extent);
    d.blade_height = or_default(d.blade_height, 0.55f);
    d.blade_width = or_default(d.blade_width, 0.045f);
    d.ground_size = d.ground_size == 0.0f ? 4000.0f : d.ground_size < 0.0f ? 0.0f : d.ground_size;
    d.seed = d.seed ? d.seed : 1u;
    d.path = d.path ? d.path : CROWD_GRASS_PATH_AUTO;
    d.trample_resolution = d.trample_resolution ? d.trample_resolution : 256u;
    d.trample_extent = or_default(d.trample_extent, 48.0f);
    d.trample_hold = or_default(d.trample_hold, 0.15f);
    d.trample_recovery = or_default(d.trample_recovery, 0.65f);
    d.trample_radius = or_default(d.trample_radius, 0.4f);
    d.cut_resolution = d.cut_resolution ? d.cut_resolution : 512u;
    d.cut_radius = or_default(d.cut_radius, 1.4f);
    d.cut_height = or_default(d.cut_height, 0.14f);
    d.field_passes = d.field_passes ? d.field_passes : CROWD_GRASS_FIELDS_AUTO;
    return d;
}

crowd_result grass_check_desc(const crowd_grass_desc *d, crowd_error *error)
{
    if (d->blades > CROWD_GRASS_MAX_BLADES)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "grass: %u blades (at most %u)", d->blades,
                          CROWD_GRASS_MAX_BLADES);
    if (!(d->extent > 0.0f && d->extent <= 1e5f) || !(d->chunk_size > 0.0f) || d->chunk_size > 2.0f * d->extent ||
        2.0f * d->extent / d->chunk_size > 1024.0f)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT,
                          "grass: extent %g m, chunk %g m (positive, at most 1024 chunks per side)", d->extent,
                          d->chunk_size);
    if (!(d->near_band[0] >= 0.0f && d->near_band[0] < d->near_band[1] && d->near_band[1] <= d->far_band[0] &&
          d->far_band[0] < d->far_band[1]))
        return crowd_fail(error, CROWD_ERROR_ARGUMENT,
                          "grass: bands near %g..%g m, far %g..%g m (each increasing, near before far)",
                          d->near_band[0], d->near_band[1], d->far_band[0], d->far_band[1]);
    if (!(d->full_density_distance > 0.0f) || !(d->draw_distance > 0.0f) || !(d->density_power > 0.0f) ||
        !(d->density_falloff > 0.0f) || !(d->min_density <= 1.0f) || !(d->blade_height > 0.0f) ||
        !(d->blade_width > 0.0f) || d->path > CROWD_GRASS_PATH_AUTO)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT,
                          "grass: distances, power, falloff and blade sizes must be positive, min density <= 1, "
                          "path one of crowd_grass_path");
    if (d->trample_resolution < 8 || d->trample_resolution > 4096 || d->cut_resolution < 8 ||
        d->cut_resolution > 8192 || !(d->trample_extent > 0.0f) || !(d->trample_hold > 0.0f) ||
        !(d->trample_recovery > 0.0f) || !(d->trample_radius > 0.0f) || !(d->cut_radius > 0.0f) ||
        !(d->cut_height > 0.0f && d->cut_height <= 1.0f) || d->field_passes > CROWD_GRASS_FIELDS_AUTO)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT,
                          "grass: fields: resolutions 8..4096 (trample) and 8..8192 (cut), extent, hold, recovery and "
                          "radii positive, cut height in (0, 1], field_passes one of crowd_grass_field_passes");
    return CROWD_OK;
}

grass_layout grass_layout_of(const crowd_grass_desc *d)
{
    grass_layout l;
    l.per_axis = (uint32_t)ceilf(2.0f * d->extent / d->chunk_size - 1e-4f);
    l.chunks = l.per_axis * l.per_axis;
    l.blades = d->blades;
    l.base = d->blades / l.chunks;
    l.extra = d->blades % l.chunks;
    l.chunk = d->chunk_size;
    l.origin = -0.5f * d->chunk_size * (float)l.per_axis;
    return l;
}

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static float unit(uint64_t *s) /* [0, 1) with 24 bits: exact in a float */
{
    return (float)(splitmix(s) >> 40) * (1.0f / 16777216.0f);
}

/* ---- the noise texture ---- */

static uint32_t lattice_hash(uint32_t seed, uint32_t channel, uint32_t x, uint32_t y)
{
    uint64_t s = ((uint64_t)seed << 32) ^ ((uint64_t)channel << 58) ^ ((uint64_t)y << 16) ^ x;
    return (uint32_t)(splitmix(&s) >> 40); /* 24 bits */
}

/* Value noise with a lattice of `cell` texels, periodic over GRASS_NOISE_SIZE (cell divides it), smooth
 * (smoothstep) between lattice points: [0, 1). */
static float periodic_noise(uint32_t seed, uint32_t channel, uint32_t x, uint32_t y, uint32_t cell)
{
    uint32_t period = GRASS_NOISE_SIZE / cell;
    uint32_t i = x / cell, j = y / cell;
    float fx = (float)(x % cell) / (float)cell, fy = (float)(y % cell) / (float)cell;
    fx = fx * fx * (3.0f - 2.0f * fx);
    fy = fy * fy * (3.0f - 2.0f * fy);
    float v[4];
    for (int k = 0; k < 4; k++)
        v[k] = (float)lattice_hash(seed, channel, (i + (uint32_t)(k & 1)) % period, (j + (uint32_t)(k >> 1)) % period) /
               16777216.0f;
    return (v[0] * (1.0f - fx) + v[1] * fx) * (1.0f - fy) + (v[2] * (1.0f - fx) + v[3] * fx) * fy;
}

static uint8_t to_unorm8(float v)
{
    v = v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v;
    return (uint8_t)(v * 255.0f + 0.5f);
}

void grass_noise_generate(uint32_t seed, uint8_t *rgba)
{
    for (uint32_t y = 0; y < GRASS_NOISE_SIZE; y++)
        for (uint32_t x = 0; x < GRASS_NOISE_SIZE; x++) {
            uint8_t *t = &rgba[4 * ((size_t)y * GRASS_NOISE_SIZE + x)];
            /* R biome zoning: 16 m and 4 m lattices; G patchiness: 1 m; B detail shading and A
               per-blade variation: a value per texel (the sampler's filtering smooths them) */
            t[0] = to_unorm8(0.7f * periodic_noise(seed, 0, x, y, 32) + 0.3f * periodic_noise(seed, 1, x, y, 8));
            t[1] = to_unorm8(periodic_noise(seed, 2, x, y, 2));
            t[2] = to_unorm8((float)lattice_hash(seed, 3, x, y) / 16777216.0f);
            t[3] = to_unorm8((float)lattice_hash(seed, 4, x, y) / 16777216.0f);
        }
}

void grass_generate_chunk(const crowd_grass_desc *d, const grass_layout *l, uint32_t c, grass_blade *out)
{
    /* one stream per chunk: any chunk can be regenerated alone (the reference does) */
    uint64_t s = ((uint64_t)d->seed << 32) ^ (c * 0x2545F4914F6CDD1Dull);
    float x0 = l->origin + (float)(c % l->per_axis) * l->chunk, z0 = l->origin + (float)(c / l->per_axis) * l->chunk;
    uint32_t n = grass_chunk_count(l, c);
    for (uint32_t i = 0; i < n; i++) {
        grass_blade *b = &out[i];
        b->x = x0 + unit(&s) * l->chunk;
        b->z = z0 + unit(&s) * l->chunk;
        b->r = unit(&s);
        b->v = unit(&s);
    }
}

float crowd_grass_density(const crowd_grass_desc *d, float distance, float draw_distance)
{
    if (distance <= d->full_density_distance)
        return 1.0f;
    float span = draw_distance - d->full_density_distance;
    float t = span > 0.0f ? (distance - d->full_density_distance) / span : 1.0f;
    t = t < 0.0f ? 0.0f : t > 1.0f ? 1.0f : t;
    float k = expf(-d->density_falloff * powf(t, d->density_power));
    return k > d->min_density ? k : d->min_density;
}

crowd_grass_tier crowd_grass_tier_of(const crowd_grass_desc *d, float distance, float r, float draw_distance)
{
    if (distance > draw_distance)
        return CROWD_GRASS_NONE;
    /* times the band's reciprocal as the shaders do (grass_common.glsl gets the same floats) */
    volatile float near_blend = (distance - d->near_band[0]) * (1.0f / (d->near_band[1] - d->near_band[0]));
    if (r >= near_blend)
        return CROWD_GRASS_NEAR;
    volatile float far_blend = (distance - d->far_band[0]) * (1.0f / (d->far_band[1] - d->far_band[0]));
    return r < far_blend ? CROWD_GRASS_FAR : CROWD_GRASS_MID;
}

float grass_distance(float x, float z, const grass_eye *e)
{
    /* volatile: no contraction into fused multiply-adds, so the compute shader's `precise`
       arithmetic gives the same bits */
    volatile float dx = x - e->x, dz = z - e->z;
    volatile float xx = dx * dx, zz = dz * dz;
    volatile float sum = xx + zz;
    return sqrtf(sum);
}

grass_eye grass_eye_of(const crowd_grass_desc *d, const float v[16], const float p[16], float draw_distance,
                       float budget)
{
    grass_eye e;
    e.x = -(v[0] * v[12] + v[1] * v[13] + v[2] * v[14]);
    e.y = -(v[4] * v[12] + v[5] * v[13] + v[6] * v[14]);
    e.z = -(v[8] * v[12] + v[9] * v[13] + v[10] * v[14]);
    /* the view direction is minus the view matrix's third row; looking straight down it has no
       ground component, and the screen's up (second row) points where the view is heading */
    float hx = -v[2], hz = -v[10];
    if (hx * hx + hz * hz < 1e-6f)
        hx = v[1], hz = v[9];
    float len = sqrtf(hx * hx + hz * hz);
    e.hx = len > 0.0f ? hx / len : 0.0f;
    e.hz = len > 0.0f ? hz / len : 1.0f;
    /* the frustum's corner ray: no visible direction is further than c from the view axis. A ground
       point seen at depression delta (small past the near disc) is within c of the axis for some
       pitch only if its azimuth off the heading phi satisfies
       cos^2 delta cos^2 phi + sin^2 delta >= cos^2 c: the wedge below holds for every pitch */
    float th = p[0] != 0.0f ? 1.0f / fabsf(p[0]) : 1.0f, tv = p[5] != 0.0f ? 1.0f / fabsf(p[5]) : 1.0f;
    float c = atanf(sqrtf(th * th + tv * tv));
    float sin2 = 1.0f / (1.0f + NEAR_PER_HEIGHT * NEAR_PER_HEIGHT), cos2 = 1.0f - sin2;
    float cc = cosf(c) * cosf(c);
    float q = (cc - sin2) / cos2;
    e.half_angle = q > 0.0f ? acosf(sqrtf(q)) : 3.14159265f;
    float h = e.y > 0.0f ? e.y : 0.0f;
    e.near_radius = NEAR_PER_HEIGHT * h + d->chunk_size;
    e.draw_distance = draw_distance > 0.0f ? draw_distance : d->draw_distance;
    e.budget = budget > 0.0f && budget <= 1.0f ? budget : 1.0f;
    return e;
}

bool grass_chunk_test(const crowd_grass_desc *d, const grass_layout *l, const grass_eye *e, uint32_t c,
                      uint32_t *prefix, float *dmin_out, float *dmax_out)
{
    float x0 = l->origin + (float)(c % l->per_axis) * l->chunk, z0 = l->origin + (float)(c / l->per_axis) * l->chunk;
    float x1 = x0 + l->chunk, z1 = z0 + l->chunk;
    float nx = e->x < x0 ? x0 : e->x > x1 ? x1 : e->x, nz = e->z < z0 ? z0 : e->z > z1 ? z1 : e->z;
    float fx = fmaxf(fabsf(e->x - x0), fabsf(e->x - x1)), fz = fmaxf(fabsf(e->z - z0), fabsf(e->z - z1));
    float dmin = sqrtf((nx - e->x) * (nx - e->x) + (nz - e->z) * (nz - e->z));
    float dmax = sqrtf(fx * fx + fz * fz);
    if (dmin > e->draw_distance)
        return false;
    float cx = 0.5f * (x0 + x1) - e->x, cz = 0.5f * (z0 + z1) - e->z;
    float dc = sqrtf(cx * cx + cz * cz), radius = 0.70710678f * l->chunk;
    if (dc > e->near_radius + radius && dc > radius) {
        float cosphi = (cx * e->hx + cz * e->hz) / dc;
        cosphi = cosphi < -1.0f ? -1.0f : cosphi > 1.0f ? 1.0f : cosphi;
        if (acosf(cosphi) > e->half_angle + asinf(radius / dc))
            return false;
    }
    uint32_t n = grass_chunk_count(l, c);
    float keep = crowd_grass_density(d, dmin, e->draw_distance) * e->budget;
    uint32_t k = (uint32_t)ceilf((float)n * keep);
    *prefix = k < n ? k : n;
    if (dmin_out)
        *dmin_out = dmin;
    if (dmax_out)
        *dmax_out = dmax;
    return true;
}

uint32_t grass_reference(const crowd_grass_desc *d, const grass_eye *e, uint32_t counts[CROWD_GRASS_TIERS],
                         uint8_t *tier_of_blade)
{
    grass_layout l = grass_layout_of(d);
    memset(counts, 0, sizeof(uint32_t) * CROWD_GRASS_TIERS);
    if (tier_of_blade)
        memset(tier_of_blade, CROWD_GRASS_NONE, l.blades);
    grass_blade *scratch = crowd_malloc(sizeof(grass_blade) * (l.base + 1));
    if (!scratch)
        return 0;
    uint32_t visible = 0;
    for (uint32_t c = 0; c < l.chunks; c++) {
        uint32_t prefix;
        if (!grass_chunk_test(d, &l, e, c, &prefix, NULL, NULL))
            continue;
        visible++;
        grass_generate_chunk(d, &l, c, scratch);
        uint32_t first = grass_chunk_first(&l, c);
        for (uint32_t k = 0; k < prefix; k++) {
            crowd_grass_tier t =
                crowd_grass_tier_of(d, grass_distance(scratch[k].x, scratch[k].z, e), scratch[k].r, e->draw_distance);
            if (t < CROWD_GRASS_TIERS)
                counts[t]++;
            if (tier_of_blade)
                tier_of_blade[first + k] = (uint8_t)t;
        }
    }
    crowd_free(scratch);
    return visible;
}
