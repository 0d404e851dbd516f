// Shared by the grass field's compute passes and its vertex stage (src/grass/grass_gl.c): the blade
// fetch, the horizontal distance and the tier rule, written as grass_field.c's CPU reference does.
uniform highp sampler2D u_blades; // RGBA32F, 2048 texels a row: x, z, r (tier random), v (variation)
uniform vec4 u_grass_eye;         // camera x, y, z, draw distance
uniform vec4 u_grass_bands;       // near band start, 1 / its width, far band start, 1 / its width
#ifndef GRASS_PRECISE
#define GRASS_PRECISE
#endif

vec4 grass_blade(uint i)
{
    return texelFetch(u_blades, ivec2(int(i & 2047u), int(i >> 11u)), 0);
}

float grass_distance(vec2 p)
{
    GRASS_PRECISE float dx = p.x - u_grass_eye.x;
    GRASS_PRECISE float dz = p.y - u_grass_eye.z;
    GRASS_PRECISE float s = dx * dx + dz * dz;
    return sqrt(s);
}

// 0 near, 1 mid, 2 far, 3 not drawn. Inside a band the root's fixed random value against the
// blend factor picks exactly one tier: never two, never a fade.
int grass_tier(float d, float r)
{
    if (d > u_grass_eye.w)
        return 3;
    GRASS_PRECISE float near_blend = (d - u_grass_bands.x) * u_grass_bands.y;
    if (r >= near_blend)
        return 0;
    GRASS_PRECISE float far_blend = (d - u_grass_bands.z) * u_grass_bands.w;
    return r < far_blend ? 2 : 1;
}
