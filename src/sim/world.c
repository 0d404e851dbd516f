/* A world of several kinds (crowd_world, crowdbake/sim.h): one crowd and one sim per kind, stepped
 * together, and one separation pass across kinds. Each kind's own sim keeps separating its agents
 * from each other (sim_separation.c); this pass adds only the pushes between agents of different
 * kinds, into the same drift, so the next step moves them exactly as it moves a kind's own
 * jostled agents (same weight, same 1.5 m/s per unit, same decay).
 *
 * The pass gathers every live agent of every kind (its position at the end of the step, read
 * from its record), counting-sorts them into one grid with cells as wide as the largest personal
 * space, and gives each agent the pushes of the other kinds' agents in the 3 x 3 cells around it.
 * Each agent sums its own pushes (a pair is evaluated from both sides): no agent writes another's,
 * so the order of the sum is fixed by the sort and the result is the same on every run. */
#include <math.h>
#include <string.h>

#include "core/alloc.h"
#include "core/clock.h"
#include "core/error.h"
#include "sim/sim_internal.h"

#define DEFAULT_RADIUS 0.7f /* crowd_sim_desc.separation_radius's default */
#define PLAZA_AREA 1.2f     /* m^2 per agent of the default radius: sim_steer.c's gather plaza */
/* Candidates (of any kind) looked at per agent, at most: agents piled on one point (all clamped
 * to the world's border, a gather of thousands on one spot) would otherwise make the pass
 * quadratic. Past a few dozen the pushes saturate anyway. */
#define MAX_TESTS_PER_AGENT 64u

struct crowd_world {
    crowd_sim *kinds[CROWD_WORLD_MAX_KINDS];
    float shares[CROWD_WORLD_MAX_KINDS];
    float radius[CROWD_WORLD_MAX_KINDS]; /* each kind's resolved separation radius */
    uint32_t kind_count;
    int separation;
    float world_min, cell, inv_cell;
    uint32_t dim;
    uint32_t *count;   /* dim * dim + 2: the counting sort (see cross_separation) */
    uint32_t *cell_of; /* gathered agent -> cell */
    float *xz;         /* gathered (x, z) */
    uint32_t *slot;    /* gathered slot in its kind's crowd */
    uint8_t *kind;     /* gathered kind */
    float *sorted_xz;
    uint32_t *sorted_slot, *sorted_cell;
    uint8_t *sorted_kind;
    crowd_world_stats stats;
};

void crowd_world_destroy(crowd_world *w)
{
    if (!w)
        return;
    crowd_free(w->count);
    crowd_free(w->cell_of);
    crowd_free(w->xz);
    crowd_free(w->slot);
    crowd_free(w->kind);
    crowd_free(w->sorted_xz);
    crowd_free(w->sorted_slot);
    crowd_free(w->sorted_cell);
    crowd_free(w->sorted_kind);
    crowd_free(w);
}

static crowd_result check_desc(const crowd_world_desc *d, crowd_error *error)
{
    if (!d->kinds || d->kind_count < 1 || d->kind_count > CROWD_WORLD_MAX_KINDS)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_world_create: %u kinds (1..%u, kinds not NULL)",
                          d->kind_count, CROWD_WORLD_MAX_KINDS);
    if (d->separation < -1 || d->separation > 1)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_world_create: separation %d (0, 1 or -1)", d->separation);
    float world = 0.0f, sum = 0.0f;
    for (uint32_t k = 0; k < d->kind_count; k++) {
        const crowd_sim *sim = d->kinds[k];
        if (!sim)
            return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_world_create: kinds[%u] is NULL", k);
        for (uint32_t j = 0; j < k; j++)
            if (d->kinds[j] == sim || d->kinds[j]->crowd == sim->crowd)
                return crowd_fail(error, CROWD_ERROR_ARGUMENT,
                                  "crowd_world_create: kinds[%u] and kinds[%u] drive the same crowd", j, k);
        float size = crowd_settings(sim->crowd)->world_size;
        if (k && size != world)
            return crowd_fail(error, CROWD_ERROR_ARGUMENT,
                              "crowd_world_create: kinds[%u]'s world is %g m, kinds[0]'s %g m (one world for all)", k,
                              (double)size, (double)world);
        world = size;
        if (d->shares) {
            if (!(d->shares[k] >= 0.0f && d->shares[k] <= 1e6f))
                return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_world_create: shares[%u] = %g outside 0..1e6", k,
                                  (double)d->shares[k]);
            sum += d->shares[k];
        }
    }
    if (d->shares && !(sum > 0.0f))
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_world_create: every share is 0");
    return CROWD_OK;
}

crowd_result crowd_world_create(const crowd_world_desc *desc, crowd_world **out, crowd_error *error)
{
    if (!desc || !out)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_world_create: NULL desc or out");
    *out = NULL;
    crowd_result r = check_desc(desc, error);
    if (r != CROWD_OK)
        return r;
    crowd_world *w = crowd_calloc(1, sizeof *w);
    if (!w)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "world: out of memory");
    w->kind_count = desc->kind_count;
    w->separation = desc->separation;
    float widest = 0.0f;
    uint64_t capacity = 0;
    for (uint32_t k = 0; k < w->kind_count; k++) {
        w->kinds[k] = desc->kinds[k];
        w->shares[k] = desc->shares ? desc->shares[k] : 1.0f;
        w->radius[k] = w->kinds[k]->desc.separation_radius;
        widest = w->radius[k] > widest ? w->radius[k] : widest;
        capacity += crowd_settings(w->kinds[k]->crowd)->capacity;
    }
    float world = w->kinds[0]->world;
    w->world_min = w->kinds[0]->grid.origin;
    w->cell = fmaxf(widest, world / 2048.0f); /* a pair in range is never more than one cell apart */
    w->inv_cell = 1.0f / w->cell;
    w->dim = (uint32_t)ceilf(world / w->cell);
    size_t n = (size_t)capacity;
    w->count = crowd_malloc(sizeof(uint32_t) * ((size_t)w->dim * w->dim + 2));
    w->cell_of = crowd_malloc(sizeof(uint32_t) * n);
    w->xz = crowd_malloc(2 * sizeof(float) * n);
    w->slot = crowd_malloc(sizeof(uint32_t) * n);
    w->kind = crowd_malloc(n);
    w->sorted_xz = crowd_malloc(2 * sizeof(float) * n);
    w->sorted_slot = crowd_malloc(sizeof(uint32_t) * n);
    w->sorted_cell = crowd_malloc(sizeof(uint32_t) * n);
    w->sorted_kind = crowd_malloc(n);
    if (!w->count || !w->cell_of || !w->xz || !w->slot || !w->kind || !w->sorted_xz || !w->sorted_slot ||
        !w->sorted_cell || !w->sorted_kind) {
        crowd_world_destroy(w);
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "world: out of memory for %llu agents",
                          (unsigned long long)capacity);
    }
    *out = w;
    return CROWD_OK;
}

void crowd_world_split(const crowd_world *w, uint32_t total, uint32_t *counts)
{
    if (!w || !counts)
        return;
    double sum = 0.0, rest[CROWD_WORLD_MAX_KINDS];
    for (uint32_t k = 0; k < w->kind_count; k++)
        sum += w->shares[k];
    uint64_t given = 0;
    for (uint32_t k = 0; k < w->kind_count; k++) {
        double ideal = (double)total * w->shares[k] / sum;
        counts[k] = (uint32_t)floor(ideal);
        rest[k] = ideal - counts[k];
        given += counts[k];
    }
    while (given < total) { /* largest remainder first, ties to the lower kind */
        uint32_t best = 0;
        for (uint32_t k = 1; k < w->kind_count; k++)
            if (rest[k] > rest[best])
                best = k;
        counts[best]++;
        rest[best] = -1.0;
        given++;
    }
    uint64_t over = 0; /* a kind past its capacity hands the rest to the kinds after it, then before */
    for (uint32_t k = 0; k < w->kind_count; k++) {
        uint32_t cap = crowd_settings(w->kinds[k]->crowd)->capacity;
        if (counts[k] > cap) {
            over += counts[k] - cap;
            counts[k] = cap;
        }
    }
    for (uint32_t pass = 0; pass < 2 * w->kind_count && over; pass++) {
        uint32_t k = pass % w->kind_count, room = crowd_settings(w->kinds[k]->crowd)->capacity - counts[k];
        uint32_t add = over < room ? (uint32_t)over : room;
        counts[k] += add;
        over -= add;
    }
}

crowd_result crowd_world_spawn(crowd_world *w, uint32_t total)
{
    if (!w)
        return CROWD_ERROR_ARGUMENT;
    uint32_t counts[CROWD_WORLD_MAX_KINDS];
    crowd_world_split(w, total, counts);
    crowd_result result = CROWD_OK;
    for (uint32_t k = 0; k < w->kind_count; k++) {
        crowd_result r = crowd_sim_spawn(w->kinds[k], counts[k]);
        result = result == CROWD_OK ? r : result;
    }
    return result;
}

void crowd_world_set_scenario(crowd_world *w, crowd_scenario scenario)
{
    for (uint32_t k = 0; w && k < w->kind_count; k++)
        crowd_sim_set_scenario(w->kinds[k], scenario);
}

void crowd_world_set_separation(crowd_world *w, int mode)
{
    if (w && mode >= -1 && mode <= 1)
        w->separation = mode;
}

const crowd_world_stats *crowd_world_get_stats(const crowd_world *w)
{
    return w ? &w->stats : NULL;
}

/* The gather plaza holds every kind: 1.2 m^2 per agent at the default radius, scaled by each
 * kind's personal space squared. */
static void size_plaza(crowd_world *w)
{
    float area = 0.0f;
    for (uint32_t k = 0; k < w->kind_count; k++) {
        float r = w->radius[k] / DEFAULT_RADIUS;
        area += (float)crowd_count(w->kinds[k]->crowd) * PLAZA_AREA * r * r;
    }
    for (uint32_t k = 0; k < w->kind_count; k++)
        w->kinds[k]->gather_area = area > 0.0f ? area : PLAZA_AREA;
}

static inline uint32_t cell_index(const crowd_world *w, float v)
{
    return (uint32_t)crowd_clamp_cell((v - w->world_min) * w->inv_cell, (float)(w->dim - 1));
}

/* Every live agent of every kind, where its record puts it at the end of the step; returns how
 * many. Coordinates are clamped to the world plus a margin (as the sim's gatherer does): one set
 * 1e20 m away must not overflow a difference into inf. */
static uint32_t gather_all(crowd_world *w, float dt)
{
    float lo = w->world_min - 1.0f, hi = -w->world_min + 1.0f;
    uint32_t n = 0, cells = w->dim * w->dim;
    memset(w->count, 0, sizeof(uint32_t) * (cells + 2));
    for (uint32_t k = 0; k < w->kind_count; k++) {
        const crowd_slots *c = &w->kinds[k]->slots;                    /* as its step left them */
        float t = (float)(crowd_client_time(w->kinds[k]->crowd) + dt); /* the step's t_next */
        for (uint32_t s = 0; s < c->used; s++) {
            if (c->instance[s] >= c->count)
                continue;
            float p[3];
            crowd_rec_position(&c->records[s], t, p);
            float x = p[0] > lo ? p[0] : lo, z = p[2] > lo ? p[2] : lo;
            x = x < hi ? x : hi;
            z = z < hi ? z : hi;
            uint32_t cell = cell_index(w, z) * w->dim + cell_index(w, x);
            w->xz[2 * n] = x;
            w->xz[2 * n + 1] = z;
            w->slot[n] = s;
            w->kind[n] = (uint8_t)k;
            w->cell_of[n] = cell;
            w->count[cell + 1]++;
            n++;
        }
    }
    return n;
}

/* Counting sort by cell, filled from each cell's end backwards so count[c + 1] is left at cell
 * c's start and count[c + 2] at its end. */
static void sort_all(crowd_world *w, uint32_t n)
{
    uint32_t cells = w->dim * w->dim, *count = w->count;
    for (uint32_t i = 0; i < cells; i++)
        count[i + 1] += count[i];
    for (uint32_t m = n; m-- > 0;) {
        uint32_t k = --count[w->cell_of[m] + 1];
        w->sorted_xz[2 * k] = w->xz[2 * m];
        w->sorted_xz[2 * k + 1] = w->xz[2 * m + 1];
        w->sorted_slot[k] = w->slot[m];
        w->sorted_kind[k] = w->kind[m];
        w->sorted_cell[k] = w->cell_of[m];
    }
    count[cells + 1] = n;
}

/* Sorted agent j's push from the other kinds' agents around it; counts its contacts (those in range). The
 * weight is the sims': (radius - d) / radius along the unit direction, with the pair's radius the
 * mean of the two kinds' (a kind's own pairs use its own radius, so a kind among its own sees no
 * change). Coincident agents part along a direction fixed by their order. */
static void push_of(const crowd_world *w, uint32_t j, float push[2], uint32_t *pairs)
{
    const float *pos = w->sorted_xz;
    const uint32_t *begin = w->count + 1; /* begin[c], begin[c + 1]: cell c's range */
    uint32_t kj = w->sorted_kind[j], cell = w->sorted_cell[j], cx = cell % w->dim, cz = cell / w->dim;
    uint32_t x0 = cx ? cx - 1 : 0, x1 = cx + 1 < w->dim ? cx + 1 : cx;
    uint32_t z0 = cz ? cz - 1 : 0, z1 = cz + 1 < w->dim ? cz + 1 : cz;
    float rj = w->radius[kj], fx = 0.0f, fz = 0.0f;
    uint32_t tests = 0;
    for (uint32_t z = z0; z <= z1; z++) {
        /* the row's cells x0..x1 are one range of the sorted order */
        uint32_t m = begin[z * w->dim + x0], end = begin[z * w->dim + x1 + 1];
        for (; m < end && tests < MAX_TESTS_PER_AGENT; m++) {
            tests++;
            uint32_t km = w->sorted_kind[m];
            if (km == kj)
                continue; /* its own kind: its sim's separation */
            float rr = 0.5f * (rj + w->radius[km]);
            float ex = pos[2 * j] - pos[2 * m], ez = pos[2 * j + 1] - pos[2 * m + 1], d2 = ex * ex + ez * ez;
            if (!(d2 < rr * rr))
                continue;
            if (d2 < 1e-8f) {
                ex = j < m ? 1e-3f : -1e-3f;
                ez = 0.0f;
                d2 = 1e-6f;
            }
            float d = sqrtf(d2), weight = (rr - d) / (rr * d);
            fx += ex * weight;
            fz += ez * weight;
            (*pairs)++;
        }
    }
    push[0] = fx;
    push[1] = fz;
}

static uint32_t cross_separation(crowd_world *w, float dt, uint32_t *agents)
{
    uint32_t n = gather_all(w, dt), pairs = 0;
    *agents = n;
    sort_all(w, n);
    bool receives[CROWD_WORLD_MAX_KINDS] = {false};
    for (uint32_t k = 0; k < w->kind_count; k++) /* a kind whose step did not separate reads no drift */
        receives[k] = w->kinds[k]->stats.separation_active;
    for (uint32_t j = 0; j < n; j++) {
        uint32_t kj = w->sorted_kind[j];
        if (!receives[kj])
            continue;
        float push[2];
        push_of(w, j, push, &pairs);
        if (push[0] != 0.0f || push[1] != 0.0f) {
            sim_drift *d = &sim_drifts(w->kinds[kj])[w->sorted_slot[j]];
            d->x += push[0] * 1.5f;
            d->z += push[1] * 1.5f;
        }
    }
    return pairs;
}

void crowd_world_step(crowd_world *w, float dt)
{
    if (!w || !(dt > 0.0f) || !isfinite(dt))
        return;
    dt = dt < CROWD_SIM_MAX_DT ? dt : CROWD_SIM_MAX_DT; /* as crowd_sim_step clamps it */
    double t0 = crowd_clock_ms();
    size_plaza(w);
    for (uint32_t k = 0; k < w->kind_count; k++)
        crowd_sim_step(w->kinds[k], dt);
    double t1 = crowd_clock_ms();
    uint32_t agents = 0, contacts = 0;
    if (w->separation >= 0)
        contacts = cross_separation(w, dt, &agents);
    double t2 = crowd_clock_ms();
    w->stats.ms_kinds = t1 - t0;
    w->stats.ms_cross = t2 - t1;
    w->stats.ms_step = t2 - t0;
    w->stats.agents = agents;
    w->stats.cross_contacts = contacts;
}
