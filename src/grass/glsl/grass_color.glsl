// Shared by the grass field's vertex and fragment stages: the one zoning function (lush grass vs
// soil patches) that colours the ground and, through the same world coordinates, the blade roots
// growing on it, so a soil patch grows short, matching grass.
float grass_hash(vec2 p)
{
    p = fract(p * vec2(0.1031, 0.1030));
    p += dot(p, p.yx + 33.33);
    return fract((p.x + p.y) * p.x);
}

float grass_noise(vec2 p)
{
    vec2 i = floor(p), f = fract(p);
    f = f * f * (3.0 - 2.0 * f);
    return mix(mix(grass_hash(i), grass_hash(i + vec2(1, 0)), f.x),
               mix(grass_hash(i + vec2(0, 1)), grass_hash(i + vec2(1, 1)), f.x), f.y);
}

// 0: bare soil, 1: lush grass
float grass_zone(vec2 p)
{
    return smoothstep(0.18, 0.46, grass_noise(p * 0.045) * 0.7 + grass_noise(p * 0.21) * 0.3);
}

// A mown patch (the cut field): cut straw over the soil and on the stubs, lighter and yellower than
// the lawn. Without it a cut is hard to see from above: the ground under a lush patch is green too.
const vec3 GRASS_MOWN = vec3(0.34, 0.31, 0.12);

vec3 grass_ground(vec2 p, float zone)
{
    vec3 soil = vec3(0.19, 0.14, 0.075), lush = vec3(0.10, 0.20, 0.04);
    return mix(soil, lush, zone) * (0.85 + 0.3 * grass_noise(p * 0.9));
}
