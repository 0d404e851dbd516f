// Shared by the grass field's vertex and fragment stages: the one RGBA noise texture
// (crowd_grass_noise_texture) and the one zoning function (lush grass vs soil patches) that colours
// the ground and, through the same world coordinates, the blade roots growing on it, so a soil
// patch grows short, matching grass. A concern a channel: R biome zoning (and the wind's gusts),
// G patchiness, B detail shading, A per-blade variation. Nothing here computes noise.
uniform highp sampler2D u_noise; // CROWD_GRASS_NOISE_SIZE^2 RGBA8, repeating every GRASS_NOISE_TILE metres
const float GRASS_NOISE_TILE = 256.0; // CROWD_GRASS_NOISE_TILE

// the noise under world point p (x, z); the vertex stage reads the top level, the ground filters
vec4 grass_noise_lod0(vec2 p)
{
    return textureLod(u_noise, p / GRASS_NOISE_TILE, 0.0);
}

// 0: bare soil, 1: lush grass
float grass_zone(vec4 noise)
{
    return smoothstep(0.18, 0.46, noise.r);
}

// A mown patch (the cut field): cut straw over the soil and on the stubs, lighter and yellower than
// the lawn. Without it a cut is hard to see from above: the ground under a lush patch is green too.
const vec3 GRASS_MOWN = vec3(0.34, 0.31, 0.12);

vec3 grass_ground(vec4 noise, float zone)
{
    vec3 soil = vec3(0.19, 0.14, 0.075), lush = vec3(0.10, 0.20, 0.04);
    return mix(soil, lush, zone) * (0.85 + 0.3 * noise.g);
}
