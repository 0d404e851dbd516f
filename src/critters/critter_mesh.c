/* Posed primitives -> vertices. Topology depends on the shapes only, so every frame of a capture
 * has the same vertices and triangles (what a frames dump requires). */
#include <math.h>
#include <string.h>

#include "critters/critter_internal.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846 /* C11 has no M_PI */
#endif

static uint32_t ellipsoid_vertices(const prim_shape *s)
{
    return (uint32_t)(s->lat * s->lon + 2);
}

static uint32_t tube_rings(const prim_shape *s)
{
    return (uint32_t)((s->points - 1) * s->sub + 1);
}

static uint32_t tube_vertices(const prim_shape *s)
{
    return tube_rings(s) * (uint32_t)s->ring + 2;
}

uint32_t critter_mesh_vertex_count(const prim_shape *shapes, int count)
{
    uint32_t n = 0;
    for (int i = 0; i < count; i++)
        n += shapes[i].type == PRIM_ELLIPSOID ? ellipsoid_vertices(&shapes[i]) : tube_vertices(&shapes[i]);
    return n;
}

/* Both primitives are a grid of rings closed by two pole/cap vertices: (rings - 1) * per * 2
 * quad triangles plus per triangles at each end. */
static uint32_t grid_indices(uint32_t rings, uint32_t per)
{
    return ((rings - 1) * per * 2 + 2 * per) * 3;
}

uint32_t critter_mesh_index_count(const prim_shape *shapes, int count)
{
    uint32_t n = 0;
    for (int i = 0; i < count; i++) {
        const prim_shape *s = &shapes[i];
        n += s->type == PRIM_ELLIPSOID ? grid_indices((uint32_t)s->lat, (uint32_t)s->lon)
                                       : grid_indices(tube_rings(s), (uint32_t)s->ring);
    }
    return n;
}

/* Vertex order of one primitive: first pole, rings x per, last pole. */
static uint32_t grid_topology(uint32_t base, uint32_t rings, uint32_t per, uint32_t *out)
{
    uint32_t *o = out, first = base, last = base + 1 + rings * per;
    for (uint32_t k = 0; k < per; k++) {
        uint32_t a = base + 1 + k, b = base + 1 + (k + 1) % per;
        *o++ = first, *o++ = b, *o++ = a;
    }
    for (uint32_t r = 0; r + 1 < rings; r++)
        for (uint32_t k = 0; k < per; k++) {
            uint32_t a = base + 1 + r * per + k, b = base + 1 + r * per + (k + 1) % per;
            uint32_t c = a + per, d = b + per;
            *o++ = a, *o++ = b, *o++ = d;
            *o++ = a, *o++ = d, *o++ = c;
        }
    for (uint32_t k = 0; k < per; k++) {
        uint32_t a = base + 1 + (rings - 1) * per + k, b = base + 1 + (rings - 1) * per + (k + 1) % per;
        *o++ = last, *o++ = a, *o++ = b;
    }
    return (uint32_t)(o - out);
}

void critter_mesh_topology(const prim_shape *shapes, int count, uint32_t *indices, uint16_t *parts, uint8_t *colors)
{
    uint32_t base = 0;
    for (int i = 0; i < count; i++) {
        const prim_shape *s = &shapes[i];
        bool ell = s->type == PRIM_ELLIPSOID;
        uint32_t rings = ell ? (uint32_t)s->lat : tube_rings(s), per = ell ? (uint32_t)s->lon : (uint32_t)s->ring;
        indices += grid_topology(base, rings, per, indices);
        uint32_t n = rings * per + 2;
        for (uint32_t v = 0; v < n; v++) {
            parts[base + v] = s->part;
            /* stripes: alternate spans of a tube (the caps take their neighbouring ring's colour) */
            uint32_t ring = v == 0 ? 0 : (v == n - 1 ? rings - 1 : (v - 1) / per);
            bool alt = !ell && s->stripes && ((ring + (uint32_t)s->sub / 2) / (uint32_t)s->sub) % 2 == 1;
            memcpy(colors + 4 * (size_t)(base + v), alt ? s->alt : s->color, 4);
        }
        base += n;
    }
}

static void ellipsoid_positions(const prim_shape *s, const prim_pose *p, float *out)
{
    const float *c = p->v, *a0 = p->v + 3, *a1 = p->v + 6, *a2 = p->v + 9;
    float *o = out;
    for (int k = 0; k < 3; k++)
        *o++ = c[k] + a1[k];
    for (int r = 0; r < s->lat; r++) {
        double theta = M_PI * (r + 1) / (s->lat + 1);
        double y = cos(theta), ring = sin(theta);
        for (int k = 0; k < s->lon; k++) {
            double phi = 2.0 * M_PI * k / s->lon;
            double x = ring * cos(phi), z = ring * sin(phi);
            for (int e = 0; e < 3; e++)
                *o++ = (float)(c[e] + a0[e] * x + a1[e] * y + a2[e] * z);
        }
    }
    for (int k = 0; k < 3; k++)
        *o++ = c[k] - a1[k];
}

static void catmull_rom(const float *p0, const float *p1, const float *p2, const float *p3, double t, double out[4])
{
    double t2 = t * t, t3 = t2 * t;
    for (int k = 0; k < 4; k++)
        out[k] = 0.5 * (2.0 * p1[k] + (-p0[k] + p2[k]) * t + (2.0 * p0[k] - 5.0 * p1[k] + 4.0 * p2[k] - p3[k]) * t2 +
                        (-p0[k] + 3.0 * p1[k] - 3.0 * p2[k] + p3[k]) * t3);
}

static void normalize(double v[3])
{
    double l = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (l > 1e-12)
        v[0] /= l, v[1] /= l, v[2] /= l;
}

static void tube_positions(const prim_shape *s, const prim_pose *p, float *out)
{
    uint32_t rings = tube_rings(s);
    double centre[CRITTER_TUBE_MAX * 8][4];
    for (uint32_t r = 0; r < rings; r++) {
        int span = (int)(r / (uint32_t)s->sub);
        double t = (double)(r % (uint32_t)s->sub) / s->sub;
        if (span >= s->points - 1)
            span = s->points - 2, t = 1.0;
        const float *q1 = p->v + 4 * span, *q2 = p->v + 4 * (span + 1);
        const float *q0 = span > 0 ? p->v + 4 * (span - 1) : q1;
        const float *q3 = span + 2 < s->points ? p->v + 4 * (span + 2) : q2;
        catmull_rom(q0, q1, q2, q3, t, centre[r]);
        if (centre[r][3] < 1e-4)
            centre[r][3] = 1e-4;
    }
    /* ring frames by projection of the previous normal (rotation-minimising, no flips) */
    double normal[3] = {s->side[0], s->side[1], s->side[2]};
    float *o = out;
    double tangent0[3] = {centre[1][0] - centre[0][0], centre[1][1] - centre[0][1], centre[1][2] - centre[0][2]};
    normalize(tangent0);
    for (int k = 0; k < 3; k++)
        *o++ = (float)(centre[0][k] - tangent0[k] * centre[0][3] * 0.6);
    for (uint32_t r = 0; r < rings; r++) {
        uint32_t a = r > 0 ? r - 1 : r, b = r + 1 < rings ? r + 1 : r;
        double t[3] = {centre[b][0] - centre[a][0], centre[b][1] - centre[a][1], centre[b][2] - centre[a][2]};
        normalize(t);
        double d = normal[0] * t[0] + normal[1] * t[1] + normal[2] * t[2];
        for (int k = 0; k < 3; k++)
            normal[k] -= d * t[k];
        normalize(normal);
        double bin[3] = {t[1] * normal[2] - t[2] * normal[1], t[2] * normal[0] - t[0] * normal[2],
                         t[0] * normal[1] - t[1] * normal[0]};
        for (int k = 0; k < s->ring; k++) {
            double phi = 2.0 * M_PI * k / s->ring, cs = cos(phi), sn = sin(phi);
            for (int e = 0; e < 3; e++)
                *o++ = (float)(centre[r][e] + centre[r][3] * (normal[e] * cs + bin[e] * sn));
        }
    }
    double tangent1[3] = {centre[rings - 1][0] - centre[rings - 2][0], centre[rings - 1][1] - centre[rings - 2][1],
                          centre[rings - 1][2] - centre[rings - 2][2]};
    normalize(tangent1);
    for (int k = 0; k < 3; k++)
        *o++ = (float)(centre[rings - 1][k] + tangent1[k] * centre[rings - 1][3] * 0.6);
}

void critter_mesh_positions(const prim_shape *shapes, const prim_pose *poses, int count, float *positions)
{
    for (int i = 0; i < count; i++) {
        const prim_shape *s = &shapes[i];
        if (s->type == PRIM_ELLIPSOID) {
            ellipsoid_positions(s, &poses[i], positions);
            positions += 3 * ellipsoid_vertices(s);
        } else {
            tube_positions(s, &poses[i], positions);
            positions += 3 * tube_vertices(s);
        }
    }
}

void critter_mesh_orient(const prim_shape *shapes, int count, const float *positions, uint32_t *indices)
{
    uint32_t base = 0;
    for (int i = 0; i < count; i++) {
        const prim_shape *s = &shapes[i];
        bool ell = s->type == PRIM_ELLIPSOID;
        uint32_t n = ell ? ellipsoid_vertices(s) : tube_vertices(s);
        uint32_t m =
            ell ? grid_indices((uint32_t)s->lat, (uint32_t)s->lon) : grid_indices(tube_rings(s), (uint32_t)s->ring);
        /* signed volume of the closed surface: negative when the triangles face inwards */
        double volume = 0.0;
        for (uint32_t t = 0; t < m; t += 3) {
            const float *a = positions + 3 * indices[t], *b = positions + 3 * indices[t + 1],
                        *c = positions + 3 * indices[t + 2];
            volume += a[0] * ((double)b[1] * c[2] - (double)b[2] * c[1]) -
                      a[1] * ((double)b[0] * c[2] - (double)b[2] * c[0]) +
                      a[2] * ((double)b[0] * c[1] - (double)b[1] * c[0]);
        }
        if (volume < 0.0)
            for (uint32_t t = 0; t < m; t += 3) {
                uint32_t x = indices[t + 1];
                indices[t + 1] = indices[t + 2];
                indices[t + 2] = x;
            }
        indices += m;
        base += n;
    }
    (void)base;
}
