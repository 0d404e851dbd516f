/* Where each agent wants to go: the five scenarios, the world's edge, and round obstacles. All per
 * agent per step, so no trigonometry here except on rare decisions. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "sim/sim_internal.h"

#define PI_F 3.14159265f

/* A gait's natural speed by the role it plays: 1 walk (the slowest gait), 3 run (the fastest), 2 jog
 * (the gait nearest the middle of the two). By speed, not by position: a file may have two walks.
 * Without a gait every role stands: moving would glide on the idle. */
static float role_speed(const crowd_sim *sim, uint32_t role)
{
    if (sim->gait_count <= 1)
        return 0.0f;
    float slow = sim->gaits[1].speed, fast = sim->gaits[sim->gait_count - 1].speed;
    if (role <= 1 || role >= 3)
        return role == 0 ? sim->gaits[0].speed : role == 1 ? slow : fast;
    float middle = 0.5f * (slow + fast), best = slow;
    for (uint32_t g = 1; g < sim->gait_count; g++)
        if (fabsf(sim->gaits[g].speed - middle) < fabsf(best - middle))
            best = sim->gaits[g].speed;
    return best;
}

float sim_top_speed(const crowd_sim *sim)
{
    return role_speed(sim, 3) * 1.15f; /* wander's run at the top of its jitter; the others ask less */
}

static void set_direction(sim_agent *a, float x, float z)
{
    a->direction[0] = (int16_t)(x * 32767.0f);
    a->direction[1] = (int16_t)(z * 32767.0f);
}

/* A new whim, every 2-6 s: the step's only trigonometry. */
static void wander_decide(crowd_sim *sim, uint32_t slot)
{
    sim_agent *a = &sim_agents(sim)[slot];
    uint32_t w = sim_hash(sim->slots.instance[slot], sim->decisions++ ^ sim->desc.seed);
    float turn = (sim_hash_unit(w) - 0.5f) * PI_F, cs = cosf(turn), sn = sinf(turn);
    float x = a->direction[0] / 32767.0f, z = a->direction[1] / 32767.0f;
    set_direction(a, cs * x + sn * z, -sn * x + cs * z);
    float pick = sim_hash_unit(sim_hash(w, 1u));
    uint32_t role = pick < 0.12f ? 0 : pick < 0.78f ? 1 : pick < 0.92f ? 2 : 3;
    float cruise = role_speed(sim, role) * (0.85f + 0.3f * sim_hash_unit(sim_hash(w, 2u)));
    a->cruise = (uint8_t)(cruise * 20.0f < 254.0f ? cruise * 20.0f : 254.0f);
    a->due = (uint8_t)(sim->tick + 40 + sim_hash(w, 3u) % 80); /* 2..6 s */
}

/* Past the edge margin, heading further out on an axis it is past it on (sim_heads_out): head back
 * in, at the centre. Once it heads in on every axis it is past the margin on, its direction holds
 * (until its next whim), so it walks back on a straight line, steady (sim.c lets it sleep and turn
 * as a record) instead of being re-aimed at the centre from wherever it is every step. */
static void head_back(sim_agent *a, const float *p)
{
    float len = sqrtf(p[0] * p[0] + p[2] * p[2]) + 1e-6f;
    set_direction(a, -p[0] / len, -p[2] / len);
}

/* Each agent re-decides when the step's tick reaches its deadline (sim_decision_due). A batch at a
 * time with everything in locals: the desired-velocity stores would otherwise make the compiler
 * reload every setting per agent. */
static void wander_batch(crowd_sim *sim, uint32_t first, uint32_t n, float *out)
{
    const crowd_record *const records = sim->slots.records;
    sim_agent *const agents = sim_agents(sim);
    const float half = -sim->grid.origin - SIM_WANDER_EDGE, *const scale_of = sim->cruise_scale;
    const uint32_t tick = sim->tick;
    const float t_now = sim->t_now;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t s = first + i;
        sim_agent *a = &agents[s];
        float p[3];
        crowd_rec_position(&records[s], t_now, p);
        if (sim_decision_due(a, tick))
            wander_decide(sim, s);
        if (sim_heads_out(a, p, half))
            head_back(a, p);
        sim_wander_velocity(a, scale_of, out + 2 * i);
    }
}

static void wander(crowd_sim *sim, uint32_t slot, float out[2])
{
    wander_batch(sim, slot, 1, out);
}

static inline void stampede(crowd_sim *sim, uint32_t slot, float out[2])
{
    sim_agent *a = &sim_agents(sim)[slot];
    if (a->cruise == 0xFF || a->cruise < 2) {
        float jitter = sim_hash_unit(sim_hash(sim->slots.instance[slot], sim->desc.seed + 3u));
        a->cruise = (uint8_t)(role_speed(sim, 3) * (0.9f + 0.2f * jitter) * 20.0f);
    }
    out[0] = a->cruise * (1.0f / 20.0f);
    out[1] = 0.0f;
}

/* Around the centre: parade walks lanes at fixed radii, the mill jogs a vortex at any radius. */
static inline void circle(crowd_sim *sim, uint32_t slot, bool lanes, float out[2])
{
    const sim_agent *a = &sim_agents(sim)[slot];
    float p[3];
    sim_position(sim, slot, p);
    float x = p[0], z = p[2];
    float d = sqrtf(x * x + z * z) + 1e-6f;
    float tx = -z / d, tz = x / d; /* counter-clockwise tangent */
    float outer = -sim->grid.origin - 10.0f;
    float target = lanes ? 20.0f + 2.5f * (float)(a->lane % 24) : (d < 8.0f ? 8.0f : d > outer ? outer : d);
    float pull = (target - d) * 0.5f; /* radial correction towards the lane */
    pull = pull < -1.0f ? -1.0f : pull > 1.0f ? 1.0f : pull;
    float speed = lanes ? role_speed(sim, 1) : role_speed(sim, 2);
    out[0] = (tx + pull * x / d) * speed;
    out[1] = (tz + pull * z / d) * speed;
}

static inline void gather(crowd_sim *sim, uint32_t slot, float out[2])
{
    float p[3];
    sim_position(sim, slot, p);
    float x = p[0], z = p[2];
    float d = sqrtf(x * x + z * z) + 1e-6f;
    /* a plaza big enough for everyone at ~1.2 m^2 each (or, in a crowd_world, for every kind) */
    float area = sim->gather_area > 0.0f ? sim->gather_area : (float)sim->slots.count * 1.2f;
    float plaza = sqrtf(area / PI_F);
    float t = (d - plaza) / 6.0f;
    float speed = role_speed(sim, 1) * (t < 0.0f ? 0.0f : t > 1.0f ? 1.0f : t);
    out[0] = -x / d * speed;
    out[1] = -z / d * speed;
}

static inline void desired_velocity(crowd_sim *sim, crowd_scenario scenario, uint32_t slot, float out[2])
{
    switch (scenario) {
    case CROWD_SCENARIO_STAMPEDE:
        stampede(sim, slot, out);
        break;
    case CROWD_SCENARIO_PARADE:
        circle(sim, slot, true, out);
        break;
    case CROWD_SCENARIO_MILL:
        circle(sim, slot, false, out);
        break;
    case CROWD_SCENARIO_GATHER:
        gather(sim, slot, out);
        break;
    default:
        wander(sim, slot, out);
        break;
    }
}

void sim_desired_velocity(crowd_sim *sim, uint32_t slot, float out[2])
{
    desired_velocity(sim, sim->desc.scenario, slot, out);
}

/* A batch of consecutive slots, the scenario dispatched once: the per-agent loop is then a tight
 * one with the scenario's code inline. */
void sim_desired_velocities(crowd_sim *sim, uint32_t first, uint32_t n, float *out)
{
#define BATCH(scenario)                                          \
    for (uint32_t i = 0; i < n; i++)                             \
        desired_velocity(sim, scenario, first + i, out + 2 * i); \
    break
    switch (sim->desc.scenario) {
    case CROWD_SCENARIO_STAMPEDE:
        BATCH(CROWD_SCENARIO_STAMPEDE);
    case CROWD_SCENARIO_PARADE:
        BATCH(CROWD_SCENARIO_PARADE);
    case CROWD_SCENARIO_MILL:
        BATCH(CROWD_SCENARIO_MILL);
    case CROWD_SCENARIO_GATHER:
        BATCH(CROWD_SCENARIO_GATHER);
    default:
        wander_batch(sim, first, n, out);
    }
#undef BATCH
}

/* Steers around obstacles ahead and never lets a body overlap one. Returns whether it changed the
 * position or velocity (most agents in a chunk with an obstacle are nowhere near it). */
bool sim_avoid_obstacles(const crowd_sim *sim, uint32_t cell, float position[3], float velocity[2])
{
    bool changed = false;
    for (uint32_t k = sim->chunk_obstacle_start[cell]; k < sim->chunk_obstacle_start[cell + 1]; k++) {
        const crowd_obstacle *o = &sim->obstacles[sim->obstacle_ids[k]];
        float ex = position[0] - o->x, ez = position[2] - o->z;
        float d = sqrtf(ex * ex + ez * ez) + 1e-6f, clearance = d - o->radius - SIM_BODY_RADIUS;
        if (clearance > 2.5f)
            continue;
        float nx = ex / d, nz = ez / d;
        if (clearance < 0.0f) { /* inside: out to the surface */
            position[0] -= nx * clearance;
            position[2] -= nz * clearance;
            changed = true;
        }
        float toward = -(velocity[0] * nx + velocity[1] * nz);
        if (toward <= 0.0f)
            continue; /* moving away */
        changed = true;
        /* turn along the surface, harder the closer: slide to the side the velocity already leans */
        float side = velocity[0] * -nz + velocity[1] * nx >= 0.0f ? 1.0f : -1.0f;
        float w = clearance < 0.0f ? 1.0f : (2.5f - clearance) / 2.5f;
        velocity[0] += (nx * toward + -nz * side * toward) * w;
        velocity[1] += (nz * toward + nx * side * toward) * w;
    }
    return changed;
}

float sim_obstacle_time(const crowd_sim *sim, uint32_t cell, const float position[3], float vx, float vz)
{
    float first = INFINITY, vv = vx * vx + vz * vz;
    for (uint32_t k = sim->chunk_obstacle_start[cell]; k < sim->chunk_obstacle_start[cell + 1]; k++) {
        const crowd_obstacle *o = &sim->obstacles[sim->obstacle_ids[k]];
        /* sim_avoid_obstacles acts at clearance 2.5 m; 5 cm sooner here */
        float ex = position[0] - o->x, ez = position[2] - o->z, reach = o->radius + SIM_BODY_RADIUS + 2.55f;
        float cc = ex * ex + ez * ez - reach * reach, b = ex * vx + ez * vz; /* |e + v t|^2 = reach^2 */
        if (cc <= 0.0f)
            return 0.0f;
        float disc = b * b - vv * cc;
        if (b >= 0.0f || disc < 0.0f) /* moving away, or passing by */
            continue;
        float t = (-b - sqrtf(disc)) / vv;
        first = t < first ? t : first;
    }
    return first;
}

float sim_obstacle_reach_time(const crowd_sim *sim, uint32_t cell, const float position[3], float speed)
{
    float first = INFINITY;
    for (uint32_t k = sim->chunk_obstacle_start[cell]; k < sim->chunk_obstacle_start[cell + 1]; k++) {
        const crowd_obstacle *o = &sim->obstacles[sim->obstacle_ids[k]];
        float ex = position[0] - o->x, ez = position[2] - o->z, reach = o->radius + SIM_BODY_RADIUS + 2.55f;
        float gap = sqrtf(ex * ex + ez * ez) - reach;
        if (gap <= 0.0f)
            return 0.0f;
        float t = speed > 0.0f ? gap / speed : INFINITY;
        first = t < first ? t : first;
    }
    return first;
}

/* The chunks (crowd grid) an obstacle's reach overlaps, as an inclusive cell rectangle. */
static void obstacle_cells(const crowd_grid *g, const crowd_obstacle *o, int range[4])
{
    float reach = o->radius + SIM_BODY_RADIUS + 2.5f;
    float lo[2] = {o->x - reach, o->z - reach}, hi[2] = {o->x + reach, o->z + reach};
    int last = (int)g->dim - 1;
    for (int k = 0; k < 2; k++) {
        int a = (int)floorf((lo[k] - g->origin) / g->chunk), b = (int)floorf((hi[k] - g->origin) / g->chunk);
        range[2 * k] = a < 0 ? 0 : a > last ? last : a;
        range[2 * k + 1] = b < 0 ? 0 : b > last ? last : b;
    }
}

crowd_result sim_build_obstacle_grid(crowd_sim *sim, crowd_error *error)
{
    const crowd_grid *g = &sim->grid;
    uint32_t cells = g->chunks;
    uint32_t *start = crowd_calloc(cells + 1, sizeof(uint32_t)), *fill = crowd_malloc(sizeof(uint32_t) * (cells + 1));
    uint32_t *ids = NULL;
    if (!start || !fill)
        goto oom;
    for (uint32_t o = 0; o < sim->obstacle_count; o++) { /* count per chunk */
        int r[4];
        obstacle_cells(g, &sim->obstacles[o], r);
        for (int z = r[2]; z <= r[3]; z++)
            for (int x = r[0]; x <= r[1]; x++)
                start[(uint32_t)z * g->dim + (uint32_t)x + 1]++;
    }
    for (uint32_t i = 0; i < cells; i++)
        start[i + 1] += start[i];
    ids = crowd_malloc(sizeof(uint32_t) * (start[cells] ? start[cells] : 1));
    if (!ids)
        goto oom;
    memcpy(fill, start, sizeof(uint32_t) * (cells + 1));
    for (uint32_t o = 0; o < sim->obstacle_count; o++) { /* fill */
        int r[4];
        obstacle_cells(g, &sim->obstacles[o], r);
        for (int z = r[2]; z <= r[3]; z++)
            for (int x = r[0]; x <= r[1]; x++)
                ids[fill[(uint32_t)z * g->dim + (uint32_t)x]++] = o;
    }
    crowd_free(fill);
    crowd_free(sim->chunk_obstacle_start);
    crowd_free(sim->obstacle_ids);
    sim->chunk_obstacle_start = start;
    sim->obstacle_ids = ids;
    return CROWD_OK;
oom:
    crowd_free(start);
    crowd_free(fill);
    crowd_free(ids);
    return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "sim: out of memory for the obstacle grid");
}
