/* The three body plans: how the RNG shapes each one within its species' profile, and how its gait
 * and springs pose it; then the species' extra parts, posed on their hosts.
 *
 * Every gait is a phase-driven step cycle with planted feet: a foot (or a tube segment) in stance
 * stays where it landed while the body moves on at the clip's speed, then swings forward in an arc.
 * Gait periods are whole numbers of captured frames so the cycle can close exactly; what keeps a
 * loop from closing is everything that is simulated rather than driven (the squash spring, arms,
 * tails, ears and antennae are verlet chains that lag behind the body), which the capture's loop
 * search settles. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "critters/critter_internal.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846 /* C11 has no M_PI */
#endif

/* ---- random numbers ---------------------------------------------------------------------------- */

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void critter_rng_seed(critter_rng *rng, uint64_t seed)
{
    uint64_t x = seed;
    rng->state = splitmix(&x) | 1u;
}

double critter_rng_unit(critter_rng *rng)
{
    uint64_t x = rng->state; /* xorshift64* */
    x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
    rng->state = x;
    return (double)((x * 0x2545F4914F6CDD1Dull) >> 11) / 9007199254740992.0;
}

double critter_rng_range(critter_rng *rng, double lo, double hi)
{
    return lo + (hi - lo) * critter_rng_unit(rng);
}

/* ---- shared state ---------------------------------------------------------------------------- */

#define MAX_CHAINS 6
#define CHAIN_MAX 8

typedef struct chain {
    int n;
    double seg, stiffness;
    double x[CHAIN_MAX][3], prev[CHAIN_MAX][3];
    double radius0, radius1;
} chain;

typedef struct gait {
    double period, speed, duty, lift, bob;
} gait;

struct critter_sim {
    const critter_species *sp;
    crowd_critter_kind plan;
    int extra_first; /* the primitive of the species' first extra */
    double fps;
    gait gaits[3]; /* idle (period = breathing), walk, run */
    int clip;
    double t, phase, speed, root_z;
    double squash, squash_v;
    chain chains[MAX_CHAINS];
    int chain_count;
    double size[24]; /* the look, per plan (see the enums below) */
    uint8_t colors[6][4];
};

typedef struct anchors {
    double at[MAX_CHAINS][3], dir[MAX_CHAINS][3];
} anchors;

static double quantize(const critter_sim *s, double seconds)
{
    double frames = floor(seconds * s->fps + 0.5);
    return (frames < 4 ? 4 : frames) / s->fps;
}

static bool given(critter_range r)
{
    return r.lo != 0.0 || r.hi != 0.0;
}

/* One draw from the species' range, or from the plan's own where the species keeps it: the same
 * call either way, so a plan kind draws exactly what it always drew. */
static double draw(critter_rng *rng, critter_range r, double lo, double hi)
{
    return given(r) ? critter_rng_range(rng, r.lo, r.hi) : critter_rng_range(rng, lo, hi);
}

static double or_default(double value, double fallback)
{
    return value != 0.0 ? value : fallback;
}

static bool has(const critter_sim *s, unsigned feature)
{
    return (s->sp->features & feature) != 0;
}

static void set3(float *o, double x, double y, double z)
{
    o[0] = (float)x, o[1] = (float)y, o[2] = (float)z;
}

static void norm3(double v[3])
{
    double l = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (l > 1e-12)
        v[0] /= l, v[1] /= l, v[2] /= l;
}

static void hsv(double h, double s, double v, uint8_t out[4])
{
    h = fmod(h, 1.0) * 6.0;
    int i = (int)h;
    double f = h - i, p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));
    double r[6] = {v, q, p, p, t, v}, g[6] = {t, v, v, q, p, p}, b[6] = {p, p, t, v, v, q};
    out[0] = (uint8_t)lround(255 * r[i % 6]);
    out[1] = (uint8_t)lround(255 * g[i % 6]);
    out[2] = (uint8_t)lround(255 * b[i % 6]);
    out[3] = 255;
}

/* A foot's offset from its hip along the travel (dz) and its height, at its own phase: planted
 * (sliding back at the body's speed) for the first `duty` of the cycle, then an arc forward. */
static void step_cycle(const gait *g, double speed, double phase, double *dz, double *lift)
{
    double stance = speed * g->duty * g->period;
    phase -= floor(phase);
    if (phase < g->duty) {
        *dz = stance * (0.5 - phase / g->duty);
        *lift = 0.0;
    } else {
        double u = (phase - g->duty) / (1.0 - g->duty);
        double eased = u * u * (3.0 - 2.0 * u);
        *dz = stance * (eased - 0.5);
        *lift = speed > 0 ? g->lift * sin(M_PI * u) : 0.0;
    }
}

/* Ellipsoid pose: centre, then radii along a frame rotated by yaw (about Y), pitch (about X) and
 * roll (about Z), in that order of application to the body. */
static void ellipsoid(prim_pose *p, const double c[3], double rx, double ry, double rz, double yaw, double pitch,
                      double roll)
{
    double cy = cos(yaw), sy = sin(yaw), cp = cos(pitch), sp = sin(pitch), cr = cos(roll), sr = sin(roll);
    /* R = Ry * Rx * Rz, columns are the local axes */
    double ax[3][3] = {{cy * cr + sy * sp * sr, cp * sr, -sy * cr + cy * sp * sr},
                       {-cy * sr + sy * sp * cr, cp * cr, sy * sr + cy * sp * cr},
                       {sy * cp, -sp, cy * cp}};
    double r[3] = {rx, ry, rz};
    set3(p->v, c[0], c[1], c[2]);
    for (int a = 0; a < 3; a++)
        set3(p->v + 3 + 3 * a, ax[a][0] * r[a], ax[a][1] * r[a], ax[a][2] * r[a]);
}

/* A point on an ellipsoid pose at local unit-sphere direction d, pushed out by `out` (1 = surface). */
static void on_ellipsoid(const prim_pose *p, double dx, double dy, double dz, double out, double w[3])
{
    double d[3] = {dx, dy, dz};
    norm3(d);
    for (int k = 0; k < 3; k++)
        w[k] = p->v[k] + out * (p->v[3 + k] * d[0] + p->v[6 + k] * d[1] + p->v[9 + k] * d[2]);
}

/* An axis of an ellipsoid pose as a unit vector in world space. */
static void axis_of(const prim_pose *p, int a, double out[3])
{
    for (int k = 0; k < 3; k++)
        out[k] = p->v[3 + 3 * a + k];
    norm3(out);
}

static void sphere(prim_pose *p, const double c[3], double r)
{
    ellipsoid(p, c, r, r, r, 0, 0, 0);
}

static void tube_point(prim_pose *p, int k, const double c[3], double r)
{
    set3(p->v + 4 * k, c[0], c[1], c[2]);
    p->v[4 * k + 3] = (float)r;
}

/* Two-bone leg: hip -> knee -> ankle, the knee pushed towards `bend` (a unit direction). */
static void leg(prim_pose *p, const double hip[3], const double ankle[3], double length, const double bend[3],
                double r_hip, double r_ankle)
{
    double d[3] = {ankle[0] - hip[0], ankle[1] - hip[1], ankle[2] - hip[2]};
    double dist = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    double half = 0.5 * length, out = dist < length ? sqrt(half * half - 0.25 * dist * dist) : 0.0;
    double b[3] = {bend[0], bend[1], bend[2]};
    if (dist > 1e-9) { /* bend across the leg only */
        double k = (b[0] * d[0] + b[1] * d[1] + b[2] * d[2]) / (dist * dist);
        for (int e = 0; e < 3; e++)
            b[e] -= k * d[e];
        norm3(b);
    }
    double knee[3];
    for (int e = 0; e < 3; e++)
        knee[e] = 0.5 * (hip[e] + ankle[e]) + out * b[e];
    tube_point(p, 0, hip, r_hip);
    tube_point(p, 1, knee, 0.5 * (r_hip + r_ankle));
    tube_point(p, 2, ankle, r_ankle);
}

/* ---- chains (arms, tails, ears, antennae) ------------------------------------------------------ */

static void chain_init(chain *c, int n, double seg, double stiffness, double r0, double r1)
{
    memset(c, 0, sizeof *c);
    c->n = n, c->seg = seg, c->stiffness = stiffness, c->radius0 = r0, c->radius1 = r1;
}

static void chain_place(chain *c, const double at[3], const double dir[3])
{
    for (int i = 0; i < c->n; i++)
        for (int k = 0; k < 3; k++)
            c->x[i][k] = c->prev[i][k] = at[k] + dir[k] * c->seg * i;
}

/* Verlet with a pull towards the rest shape and exact segment lengths: the chain trails the body,
 * overshoots and settles, which is what makes it read as soft. */
static void chain_step(chain *c, const double at[3], const double dir[3], double dt)
{
    const double damping = 0.965, gravity = -3.0;
    for (int k = 0; k < 3; k++)
        c->prev[0][k] = c->x[0][k], c->x[0][k] = at[k];
    for (int i = 1; i < c->n; i++) {
        double *x = c->x[i], *pv = c->prev[i];
        for (int k = 0; k < 3; k++) {
            double v = (x[k] - pv[k]) * damping;
            pv[k] = x[k];
            x[k] += v + (k == 1 ? gravity * dt * dt : 0.0);
            double target = c->x[i - 1][k] + dir[k] * c->seg;
            x[k] += (target - x[k]) * c->stiffness;
        }
        double d[3] = {x[0] - c->x[i - 1][0], x[1] - c->x[i - 1][1], x[2] - c->x[i - 1][2]};
        double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        if (len > 1e-9)
            for (int k = 0; k < 3; k++)
                x[k] = c->x[i - 1][k] + d[k] * (c->seg / len);
    }
}

static void chain_pose(const chain *c, prim_pose *p)
{
    for (int i = 0; i < c->n; i++)
        tube_point(p, i, c->x[i], c->radius0 + (c->radius1 - c->radius0) * i / (c->n - 1));
}

/* The axis a tube's side (prim_shape.side) lies along: roughly across its first span. */
typedef enum tube_side { SIDE_X, SIDE_Y, SIDE_Z } tube_side;

static void tube_shape(prim_shape *s, uint16_t part, int points, int sub, int ring, const uint8_t color[4],
                       tube_side side)
{
    memset(s, 0, sizeof *s);
    s->type = PRIM_TUBE, s->part = part, s->points = points, s->sub = sub, s->ring = ring;
    memcpy(s->color, color, 4);
    memcpy(s->alt, color, 4);
    s->side[side] = 1.0f;
}

static void ellipsoid_shape(prim_shape *s, uint16_t part, int lat, int lon, const uint8_t color[4])
{
    memset(s, 0, sizeof *s);
    s->type = PRIM_ELLIPSOID, s->part = part, s->lat = lat, s->lon = lon;
    memcpy(s->color, color, 4);
    memcpy(s->alt, color, 4);
}

static const uint8_t white[4] = {240, 240, 235, 255}, black[4] = {20, 18, 24, 255};

/* Speed follows the clip's target with a first-order lag (the critter is steered along +Z from
 * rest), and the gait clock advances at the clip's period. */
static void advance(critter_sim *s, double dt)
{
    const gait *g = &s->gaits[s->clip];
    s->t += dt;
    s->phase += dt / g->period;
    s->phase -= floor(s->phase);
    s->speed += (g->speed - s->speed) * (1.0 - exp(-4.0 * dt));
    s->root_z += s->speed * dt;
}

/* The squash spring is driven by the body's vertical acceleration (the bob's second derivative). */
static void squash_step(critter_sim *s, double dt, double bob_amp, double harmonics, double gain)
{
    const gait *g = &s->gaits[s->clip];
    double w = 2.0 * M_PI * harmonics / g->period;
    double accel = bob_amp * w * w * cos(2.0 * M_PI * harmonics * s->phase);
    s->squash_v += (-90.0 * s->squash - 6.0 * s->squash_v - gain * accel) * dt;
    s->squash += s->squash_v * dt;
}

/* ---- blob: a soft biped -------------------------------------------------------------------------- */

enum { B_RX, B_RY, B_RZ, B_LEG, B_HIPW, B_LEGR, B_FOOTL, B_FOOTH, B_ARM, B_EYE, B_TUFT, B_ARMR };

/* The blob's look: sizes, colours and cadence, drawn in a fixed order (the order is the seed's
 * meaning, so it never changes; a species only narrows the ranges). */
static void blob_draw(critter_sim *s, critter_rng *rng)
{
    const blob_profile *pr = &s->sp->blob;
    double *z = s->size;
    z[B_RX] = draw(rng, pr->body, 0.22, 0.34);
    z[B_RY] = z[B_RX] * draw(rng, pr->tall, 1.05, 1.45);
    z[B_RZ] = z[B_RX] * draw(rng, pr->deep, 0.85, 1.05);
    z[B_LEG] = draw(rng, pr->leg, 0.16, 0.30);
    z[B_HIPW] = z[B_RX] * draw(rng, pr->hips, 0.4, 0.6);
    z[B_LEGR] = draw(rng, pr->leg_r, 0.035, 0.06);
    z[B_FOOTL] = draw(rng, pr->foot, 0.07, 0.11);
    z[B_FOOTH] = critter_rng_range(rng, 0.03, 0.045);
    z[B_ARM] = draw(rng, pr->arm, 0.16, 0.3);
    z[B_ARMR] = draw(rng, pr->arm_r, 0.025, 0.045);
    z[B_EYE] = z[B_RX] * draw(rng, pr->eye, 0.22, 0.34);
    z[B_TUFT] = draw(rng, pr->tuft, 0.06, 0.18);
    double hue = draw(rng, pr->hue, 0.0, 1.0);  /* 0 + 1 * u: the unit draw itself */
    double val = draw(rng, pr->val, 0.7, 0.95); /* value before saturation: the order the seeds have */
    double sat = draw(rng, pr->sat, 0.45, 0.8);
    hsv(hue, sat, val, s->colors[0]);
    hsv(hue + draw(rng, pr->accent, 0.3, 0.7), or_default(pr->feet_sv[0], 0.6), or_default(pr->feet_sv[1], 0.55),
        s->colors[1]);
    hsv(hue + 0.08, 0.5, 0.85, s->colors[2]);
    double walk = quantize(s, critter_rng_range(rng, 0.85, 1.1));
    s->gaits[0] = (gait){quantize(s, critter_rng_range(rng, 2.0, 2.8)), 0, 0.6, 0, 0};
    /* a species bobs, and unless it says otherwise walks, in proportion to its legs (the plan's
     * bob and speed suit the plan's legs) */
    double bob = given(pr->leg) ? z[B_LEG] / 0.23 : 1.0;
    double speed = draw(rng, pr->speed, 0.45, 0.7) * (given(pr->speed) ? 1.0 : bob);
    s->gaits[1] = (gait){walk, speed, 0.62, z[B_LEG] * 0.35, 0.02 * bob};
    s->gaits[2] = (gait){quantize(s, walk * 0.6), s->gaits[1].speed * 2.2, 0.38, z[B_LEG] * 0.55, 0.045 * bob};
    if (has(s, FEAT_NO_TUFT)) /* short enough to stay inside the body from its sunken anchor */
        z[B_TUFT] = z[B_RX] * 0.3;
}

static int blob_build(critter_sim *s, critter_rng *rng, prim_shape *shapes)
{
    const double *z = s->size;
    blob_draw(s, rng);
    int n = 0;
    ellipsoid_shape(&shapes[n], (uint16_t)n, 14, 20, s->colors[0]), n++; /* 0 body */
    for (int i = 0; i < 2; i++)
        tube_shape(&shapes[n], (uint16_t)n, 3, 4, 10, s->colors[0], SIDE_X), n++; /* 1, 2 legs */
    for (int i = 0; i < 2; i++)
        ellipsoid_shape(&shapes[n], (uint16_t)n, 7, 12, s->colors[1]), n++; /* 3, 4 feet */
    for (int i = 0; i < 2; i++)
        tube_shape(&shapes[n], (uint16_t)n, 4, 3, 8, s->colors[0], SIDE_Z), n++; /* 5, 6 arms */
    for (int i = 0; i < 2; i++)
        ellipsoid_shape(&shapes[n], (uint16_t)n, 8, 12, white), n++; /* 7, 8 eyes */
    for (int i = 0; i < 2; i++)
        ellipsoid_shape(&shapes[n], (uint16_t)n, 5, 10, black), n++;         /* 9, 10 pupils */
    tube_shape(&shapes[n], (uint16_t)n, 4, 3, 6, s->colors[2], SIDE_X), n++; /* 11 tuft */
    s->chain_count = 3;
    chain_init(&s->chains[0], 4, z[B_ARM] / 3, 0.08, z[B_ARMR], z[B_ARMR] * 0.8);
    chain_init(&s->chains[1], 4, z[B_ARM] / 3, 0.08, z[B_ARMR], z[B_ARMR] * 0.8);
    /* a sunken tuft has nothing to show: held to its rest line (fully driven, so it loops) rather
     * than left to swing where no loop would close over it */
    chain_init(&s->chains[2], 4, z[B_TUFT] / 3, has(s, FEAT_NO_TUFT) ? 1.0 : 0.05, 0.02, 0.006);
    return n;
}

/* The rigid part of the blob's pose, and where its chains hang from. */
static void blob_frame(const critter_sim *s, prim_pose *p, double root[3], anchors *an)
{
    const double *z = s->size;
    const gait *g = &s->gaits[s->clip];
    double ph = s->phase, moving = s->clip > 0;
    double breath = moving ? 0.0 : sin(2.0 * M_PI * ph);
    double bob = moving ? -g->bob * cos(4.0 * M_PI * ph) : 0.01 * breath;
    double hip_y = z[B_LEG] + z[B_FOOTH] * 1.6;
    double body_y = hip_y + z[B_RY] * 0.72 + bob;
    double sq = 1.0 + s->squash + 0.02 * breath, wide = 1.0 / sqrt(sq);
    double roll = moving ? 0.07 * sin(2.0 * M_PI * ph) : 0.02 * sin(2.0 * M_PI * ph + 1.0);
    double pitch = moving ? 0.05 + 0.04 * s->speed : 0.0;
    double yaw = moving ? 0.0 : 0.25 * sin(2.0 * M_PI * ph) + 0.08 * sin(4.0 * M_PI * ph);
    root[0] = 0, root[1] = 0, root[2] = s->root_z;
    double c[3] = {0.0, body_y, s->root_z};
    ellipsoid(&p[0], c, z[B_RX] * wide, z[B_RY] * sq, z[B_RZ] * wide, yaw, pitch, roll);
    for (int i = 0; i < 2; i++) {
        double side = i ? -1.0 : 1.0, dz, lift;
        step_cycle(g, s->speed, ph + 0.5 * i, &dz, &lift);
        double foot_x = side * (z[B_HIPW] + 0.02);
        double ankle[3] = {foot_x, lift + z[B_FOOTH] * 1.4, s->root_z + dz};
        double hip[3];
        on_ellipsoid(&p[0], side * 0.5, -0.8, 0.0, 0.85, hip);
        double fwd[3] = {0, 0.15, 1};
        leg(&p[1 + i], hip, ankle, hip_y * 1.08, fwd, z[B_LEGR], z[B_LEGR] * 0.8);
        double foot[3] = {foot_x, lift + z[B_FOOTH], s->root_z + dz + z[B_FOOTL] * 0.35};
        ellipsoid(&p[3 + i], foot, z[B_FOOTL] * 0.7, z[B_FOOTH], z[B_FOOTL], 0, moving ? -lift * 2.0 : 0, 0);
        /* arms swing against the legs */
        double swing = moving ? 0.5 * sin(2.0 * M_PI * (ph + 0.5 * i)) * (s->clip == 2 ? 1.6 : 1.0) : 0.1 * breath;
        on_ellipsoid(&p[0], side, -0.05, 0.05, 0.95, an->at[i]);
        double d[3] = {side * 0.35, -1.0, swing};
        norm3(d);
        memcpy(an->dir[i], d, sizeof d);
        double eye[3], fwd_axis[3];
        const double *at = s->sp->blob.eyes_at;
        on_ellipsoid(&p[0], side * or_default(at[0], 0.38), or_default(at[1], 0.4), or_default(at[2], 0.85), 0.9, eye);
        sphere(&p[7 + i], eye, z[B_EYE]);
        axis_of(&p[0], 2, fwd_axis);
        double pupil[3] = {eye[0] + fwd_axis[0] * z[B_EYE] * 0.7, eye[1] + fwd_axis[1] * z[B_EYE] * 0.7,
                           eye[2] + fwd_axis[2] * z[B_EYE] * 0.7};
        sphere(&p[9 + i], pupil, z[B_EYE] * 0.45);
    }
    on_ellipsoid(&p[0], 0.0, 1.0, 0.1, has(s, FEAT_NO_TUFT) ? 0.4 : 0.97, an->at[2]);
    double up[3] = {0, 1, -0.35};
    norm3(up);
    memcpy(an->dir[2], up, sizeof up);
}

/* ---- quad: a trotting quadruped ------------------------------------------------------------------ */

enum { Q_RW, Q_RH, Q_RL, Q_LEG, Q_LEGR, Q_PAW, Q_NECK, Q_HEAD, Q_SNOUT, Q_EAR, Q_TAIL, Q_EYE };

/* The quadruped's look, drawn in a fixed order (see blob_draw). A species that names its hue range
 * keeps its palette: the plan's occasional half-turn of hue is drawn but not taken. */
static void quad_draw(critter_sim *s, critter_rng *rng)
{
    const quad_profile *pr = &s->sp->quad;
    double *z = s->size;
    z[Q_RL] = draw(rng, pr->body, 0.3, 0.48);
    z[Q_RW] = z[Q_RL] * draw(rng, pr->wide, 0.38, 0.55);
    z[Q_RH] = z[Q_RW] * draw(rng, pr->tall, 0.9, 1.2);
    z[Q_LEG] = draw(rng, pr->leg, 0.22, 0.4);
    z[Q_LEGR] = draw(rng, pr->leg_r, 0.035, 0.06);
    z[Q_PAW] = z[Q_LEGR] * 1.25;
    z[Q_NECK] = draw(rng, pr->neck, 0.12, 0.3);
    z[Q_HEAD] = draw(rng, pr->head, 0.09, 0.14);
    z[Q_SNOUT] = z[Q_HEAD] * draw(rng, pr->snout, 0.5, 1.0);
    z[Q_EAR] = draw(rng, pr->ear, 0.06, 0.16);
    z[Q_TAIL] = draw(rng, pr->tail, 0.2, 0.5);
    z[Q_EYE] = z[Q_HEAD] * 0.22;
    double hue = draw(rng, pr->hue, 0.02, 0.14);
    double turn = critter_rng_unit(rng) < 0.3 && !given(pr->hue) ? 0.5 : 0.0;
    hue += turn;
    double val = draw(rng, pr->val, 0.45, 0.85);
    double sat = draw(rng, pr->sat, 0.3, 0.75);
    hsv(hue, sat, val, s->colors[0]);
    hsv(hue, or_default(pr->snout_sv[0], 0.25), or_default(pr->snout_sv[1], 0.95), s->colors[1]);
    hsv(hue + 0.02, or_default(pr->trim_sv[0], 0.5), or_default(pr->trim_sv[1], 0.3), s->colors[2]);
    double walk = quantize(s, critter_rng_range(rng, 0.7, 0.95) * sqrt(z[Q_LEG] / 0.3));
    s->gaits[0] = (gait){quantize(s, critter_rng_range(rng, 2.2, 3.2)), 0, 0.6, 0, 0};
    double speed = draw(rng, pr->speed, 0.7, 1.0) * z[Q_LEG] / 0.3;
    double bob = given(pr->leg) ? z[Q_LEG] / 0.3 : 1.0; /* as the blob's */
    s->gaits[1] = (gait){walk, speed, 0.6, z[Q_LEG] * 0.25, 0.012 * bob};
    s->gaits[2] = (gait){quantize(s, walk * 0.7), s->gaits[1].speed * 2.0, 0.42, z[Q_LEG] * 0.4, 0.03 * bob};
}

static int quad_build(critter_sim *s, critter_rng *rng, prim_shape *shapes)
{
    const double *z = s->size;
    quad_draw(s, rng);
    const uint8_t *legs = s->colors[has(s, FEAT_DARK_LEGS) ? 2 : 0], *head = s->colors[has(s, FEAT_DARK_HEAD) ? 2 : 0];
    int n = 0;
    ellipsoid_shape(&shapes[n], (uint16_t)n, 12, 20, s->colors[0]), n++; /* 0 body */
    for (int i = 0; i < 4; i++)
        tube_shape(&shapes[n], (uint16_t)n, 3, 4, 9, legs, SIDE_X), n++; /* 1-4 legs */
    for (int i = 0; i < 4; i++)
        ellipsoid_shape(&shapes[n], (uint16_t)n, 5, 10, s->colors[2]), n++;                             /* 5-8 paws */
    tube_shape(&shapes[n], (uint16_t)n, 3, 3, 10, head, SIDE_X), n++;                                   /* 9 neck */
    ellipsoid_shape(&shapes[n], (uint16_t)n, 10, 14, head), n++;                                        /* 10 head */
    ellipsoid_shape(&shapes[n], (uint16_t)n, 7, 12, has(s, FEAT_DARK_HEAD) ? head : s->colors[1]), n++; /* 11 snout */
    for (int i = 0; i < 2; i++)
        tube_shape(&shapes[n], (uint16_t)n, 3, 3, 6, s->colors[2], SIDE_Z), n++; /* 12, 13 ears */
    for (int i = 0; i < 2; i++)
        ellipsoid_shape(&shapes[n], (uint16_t)n, 5, 8, black), n++;     /* 14, 15 eyes */
    tube_shape(&shapes[n], (uint16_t)n, 6, 3, 8, s->colors[0], SIDE_X); /* 16 tail */
    bool stripes = critter_rng_unit(rng) < 0.5;
    shapes[n].stripes = has(s, FEAT_STRIPES) || (stripes && !has(s, FEAT_PLAIN));
    memcpy(shapes[n].alt, s->colors[2], 4);
    n++;
    const quad_profile *pr = &s->sp->quad;
    double ear_r = z[Q_HEAD] * or_default(pr->ear_r, 0.22), tail_r = z[Q_LEGR] * or_default(pr->tail_r, 0.9);
    double ear_k = has(s, FEAT_NO_EARS) ? 1.0 : 0.12; /* nubs: held, as the blob's sunken tuft */
    s->chain_count = 3;
    chain_init(&s->chains[0], 3, z[Q_EAR] / 2, ear_k, ear_r, 0.01);
    chain_init(&s->chains[1], 3, z[Q_EAR] / 2, ear_k, ear_r, 0.01);
    chain_init(&s->chains[2], 6, z[Q_TAIL] / 5, or_default(pr->tail_stiff, 0.04), tail_r, 0.01);
    return n;
}

static void quad_frame(const critter_sim *s, prim_pose *p, double root[3], anchors *an)
{
    const double *z = s->size;
    const gait *g = &s->gaits[s->clip];
    double ph = s->phase, moving = s->clip > 0;
    double breath = moving ? 0.0 : sin(2.0 * M_PI * ph);
    double bob = moving ? -g->bob * cos(4.0 * M_PI * ph) : 0.006 * breath;
    double hip_y = z[Q_LEG] + z[Q_PAW];
    double body_y = hip_y + z[Q_RH] * 0.35 + bob;
    double sq = 1.0 + s->squash + 0.02 * breath, wide = 1.0 / sqrt(sq);
    double pitch = moving ? 0.03 * sin(4.0 * M_PI * ph) : 0.0;
    root[0] = 0, root[1] = 0, root[2] = s->root_z;
    double c[3] = {0.0, body_y, s->root_z};
    ellipsoid(&p[0], c, z[Q_RW] * wide, z[Q_RH] * sq, z[Q_RL], 0, pitch, 0);
    static const double leg_phase[4] = {0.0, 0.5, 0.5, 0.0}; /* FL FR BL BR: a trot */
    for (int i = 0; i < 4; i++) {
        double side = (i % 2) ? -1.0 : 1.0, front = i < 2 ? 1.0 : -1.0, dz, lift;
        step_cycle(g, s->speed, ph + leg_phase[i], &dz, &lift);
        double hip[3];
        on_ellipsoid(&p[0], side * 0.6, -0.55, front * 0.72, 0.8, hip);
        double out = has(s, FEAT_SPRAWL) ? s->sp->quad.sprawl : 1.05;
        double ankle[3] = {hip[0] * out, lift + z[Q_PAW], s->root_z + front * z[Q_RL] * 0.62 + dz};
        double bend[3] = {0, 0, front};
        leg(&p[1 + i], hip, ankle, hip_y * 1.1, bend, z[Q_LEGR] * (front > 0 ? 1.0 : 1.3), z[Q_LEGR] * 0.7);
        double paw[3] = {ankle[0], lift + z[Q_PAW] * 0.8, ankle[2] + z[Q_PAW] * 0.4};
        ellipsoid(&p[5 + i], paw, z[Q_PAW], z[Q_PAW] * 0.8, z[Q_PAW] * 1.4, 0, 0, 0);
    }
    /* neck and head: the head nods with the trot, grazes and looks around when idle */
    double look = moving ? 0.0 : 0.35 * sin(2.0 * M_PI * ph);
    double nod = moving ? 0.03 * sin(4.0 * M_PI * ph + 0.6) : 0.04 * sin(4.0 * M_PI * ph);
    double base[3];
    on_ellipsoid(&p[0], 0.0, 0.45, 0.9, 0.8, base);
    double rise = or_default(s->sp->quad.neck_rise, 0.8);
    double head[3] = {base[0] + sin(look) * z[Q_NECK] * 0.6, base[1] + z[Q_NECK] * rise + nod,
                      base[2] + cos(look) * z[Q_NECK] * 0.6};
    double mid[3] = {0.5 * (base[0] + head[0]), 0.5 * (base[1] + head[1]) + 0.02, 0.5 * (base[2] + head[2])};
    tube_point(&p[9], 0, base, z[Q_RW] * 0.45);
    tube_point(&p[9], 1, mid, z[Q_HEAD] * 0.6);
    tube_point(&p[9], 2, head, z[Q_HEAD] * 0.5);
    ellipsoid(&p[10], head, z[Q_HEAD] * 0.85, z[Q_HEAD] * 0.9, z[Q_HEAD], look, -nod, 0);
    double snout[3];
    on_ellipsoid(&p[10], 0.0, -0.25, 1.0, 1.0, snout);
    ellipsoid(&p[11], snout, z[Q_SNOUT] * 0.55, z[Q_SNOUT] * 0.5, z[Q_SNOUT] * 0.8, look, 0.15 - nod, 0);
    for (int i = 0; i < 2; i++) {
        double side = i ? -1.0 : 1.0, eye[3];
        on_ellipsoid(&p[10], side * 0.5, 0.35, 0.8, 0.95, eye);
        sphere(&p[14 + i], eye, z[Q_EYE]);
        if (has(s, FEAT_DROOPY_EARS)) /* from the sides of the head, not its crown */
            on_ellipsoid(&p[10], side * 0.9, 0.45, -0.1, 0.9, an->at[i]);
        else
            on_ellipsoid(&p[10], side * 0.55, 0.8, -0.1, 0.9, an->at[i]);
        double d[3] = {side * 0.5, 1.0, -0.2}, droop[3] = {side * 0.45, -1.0, -0.1};
        norm3(d), norm3(droop);
        memcpy(an->dir[i], has(s, FEAT_DROOPY_EARS) ? droop : d, sizeof d);
    }
    on_ellipsoid(&p[0], 0.0, 0.3, -1.0, 0.95, an->at[2]);
    double wag = moving ? 0.0 : 0.6 * sin(4.0 * M_PI * ph);
    double d[3] = {sin(wag) * 0.8, 0.7, -cos(wag) * 0.8};
    norm3(d);
    memcpy(an->dir[2], d, sizeof d);
}

/* ---- tube: a crawler moved by a wave of steps ---------------------------------------------------- */

enum { T_NODES, T_SPACING, T_RADIUS, T_HEAD, T_ANTENNA, T_EYE, T_BULGE0 };

/* The crawler's look, drawn in a fixed order (see blob_draw). Twelve bulges are drawn whatever the
 * segment count; segments past the twelfth (a species may have up to CRITTER_TUBE_MAX) take none. */
static void tube_draw(critter_sim *s, critter_rng *rng)
{
    const tube_profile *pr = &s->sp->tube;
    double *z = s->size;
    z[T_NODES] = floor(draw(rng, pr->segments, 8, 13)); /* 8..12 segments */
    if (z[T_NODES] > CRITTER_TUBE_MAX)
        z[T_NODES] = CRITTER_TUBE_MAX;
    z[T_SPACING] = draw(rng, pr->spacing, 0.07, 0.11);
    z[T_RADIUS] = draw(rng, pr->radius, 0.05, 0.085);
    z[T_HEAD] = z[T_RADIUS] * draw(rng, pr->head, 1.15, 1.5);
    z[T_ANTENNA] = draw(rng, pr->antenna, 0.06, 0.16);
    z[T_EYE] = z[T_HEAD] * or_default(pr->eye, 0.28);
    for (int i = 0; i < 12; i++)
        z[T_BULGE0 + i] = critter_rng_range(rng, 0.9, 1.1);
    for (int i = 12; i < CRITTER_TUBE_MAX; i++)
        z[T_BULGE0 + i] = 1.0;
    double hue = draw(rng, pr->hue, 0.0, 1.0); /* 0 + 1 * u: the unit draw itself */
    double val = draw(rng, pr->val, 0.6, 0.95);
    double sat = draw(rng, pr->sat, 0.5, 0.9);
    hsv(hue, sat, val, s->colors[0]);
    double accent_s = draw(rng, pr->accent_s, 0.4, 0.9);
    double accent = draw(rng, pr->accent, 0.1, 0.5);
    hsv(hue + accent, accent_s, or_default(pr->accent_v, 0.5), s->colors[1]);
    double crawl = quantize(s, critter_rng_range(rng, 0.9, 1.3));
    s->gaits[0] = (gait){quantize(s, critter_rng_range(rng, 2.0, 3.0)), 0, 0.6, 0, 0};
    double speed = draw(rng, pr->speed, 0.12, 0.2);
    s->gaits[1] = (gait){crawl, speed, 0.6, z[T_RADIUS] * 0.9, 0};
    s->gaits[2] = (gait){quantize(s, crawl * 0.65), s->gaits[1].speed * 2.0, 0.5, z[T_RADIUS] * 1.3, 0};
}

static int tube_build(critter_sim *s, critter_rng *rng, prim_shape *shapes)
{
    const double *z = s->size;
    tube_draw(s, rng);
    int n = 0;
    tube_shape(&shapes[n], (uint16_t)n, (int)z[T_NODES], 3, 12, s->colors[0], SIDE_Y); /* 0 body */
    shapes[n].stripes = !has(s, FEAT_PLAIN);
    memcpy(shapes[n].alt, s->colors[1], 4);
    n++;
    ellipsoid_shape(&shapes[n], (uint16_t)n, 10, 14, s->colors[0]), n++; /* 1 head */
    for (int i = 0; i < 2; i++)
        ellipsoid_shape(&shapes[n], (uint16_t)n, 6, 10, white), n++; /* 2, 3 eyes */
    for (int i = 0; i < 2; i++)
        ellipsoid_shape(&shapes[n], (uint16_t)n, 4, 8, black), n++; /* 4, 5 pupils */
    for (int i = 0; i < 2; i++)
        tube_shape(&shapes[n], (uint16_t)n, 4, 3, 5, s->colors[1], SIDE_X), n++; /* 6, 7 antennae */
    /* 8, 9, ...: a pair of prolegs under every segment; they, not the body, touch the ground */
    for (int i = 0; i < 2 * (int)z[T_NODES]; i++)
        ellipsoid_shape(&shapes[n], (uint16_t)n, 4, 8, s->colors[1]), n++;
    s->chain_count = 2;
    for (int i = 0; i < 2; i++)
        chain_init(&s->chains[i], 4, z[T_ANTENNA] / 3, 0.06, 0.01, 0.004);
    return n;
}

/* One proleg of a segment at c (radius r). Stubs stand under the segment; long legs (reach > 0)
 * slant from its side down to the ground; under an arch they tuck into the body. */
static void proleg(prim_pose *p, double side, const double c[3], double r, double lift, double clearance, double reach,
                   bool tucked)
{
    if (tucked) {
        ellipsoid(p, c, 0.3 * r, 0.3 * r, 0.35 * r, 0, 0, 0);
    } else if (reach > 0.0) {
        double thick = 0.5 * clearance, inner[3] = {side * 0.5 * r, c[1], c[2]};
        double outer[3] = {side * (0.5 * r + reach), lift, c[2]};
        double mid[3] = {0.5 * (inner[0] + outer[0]), 0.5 * (inner[1] + outer[1]), c[2]};
        double dx = outer[0] - inner[0], dy = outer[1] - inner[1], half = 0.5 * sqrt(dx * dx + dy * dy);
        double tilt = atan(dy / dx), st = sin(tilt), ct = cos(tilt);
        mid[1] = lift + sqrt(half * half * st * st + thick * thick * ct * ct); /* its lowest point on the ground */
        ellipsoid(p, mid, half, thick, 0.2 * r, 0, 0, tilt);
    } else {
        double foot[3] = {side * 0.55 * r, lift + clearance * 1.2, c[2]};
        ellipsoid(p, foot, 0.3 * r, clearance * 1.2, 0.35 * r, 0, 0, 0);
    }
}

static void tube_frame(const critter_sim *s, prim_pose *p, double root[3], anchors *an)
{
    const double *z = s->size;
    const gait *g = &s->gaits[s->clip];
    int nodes = (int)z[T_NODES];
    double ph = s->phase, moving = s->clip > 0;
    root[0] = 0, root[1] = 0, root[2] = s->root_z;
    /* the wave runs from the tail (which steps first) to the head */
    for (int i = 0; i < nodes; i++) {
        double dz = 0.0, lift = 0.0, r = z[T_RADIUS] * z[T_BULGE0 + i] * (0.8 + 0.3 * sin(M_PI * (i + 1) / nodes));
        if (moving)
            step_cycle(g, s->speed, ph + 0.8 * (double)i / nodes, &dz, &lift);
        else
            r *= 1.0 + 0.06 * sin(2.0 * M_PI * (ph - (double)i / nodes));
        double clearance = 0.35 * z[T_RADIUS];
        double c[3] = {0.0, r + clearance + lift, s->root_z - i * z[T_SPACING] + dz};
        double arch = has(s, FEAT_ARCH) ? sin(M_PI * i / (nodes - 1)) : 0.0; /* 0 at the ends */
        c[1] += arch * arch * s->sp->tube.arch * z[T_RADIUS];
        tube_point(&p[0], i, c, r);
        double reach = has(s, FEAT_LONG_LEGS) ? s->sp->tube.legs * r : 0.0;
        for (int k = 0; k < 2; k++)
            proleg(&p[8 + 2 * i + k], k ? -1.0 : 1.0, c, r, lift, clearance, reach, arch > 0.5);
    }
    /* the head rides above the first segment, swaying while idle */
    double sway = moving ? 0.05 * sin(2.0 * M_PI * ph) : 0.3 * sin(2.0 * M_PI * ph);
    double raise = moving ? 0.0 : 0.5 + 0.5 * sin(4.0 * M_PI * ph);
    const float *front = p[0].v;
    double head[3] = {front[0] + sin(sway) * z[T_HEAD] * 0.9, front[1] + z[T_HEAD] * (0.55 + 0.5 * raise),
                      front[2] + cos(sway) * z[T_HEAD] * 0.9};
    ellipsoid(&p[1], head, z[T_HEAD], z[T_HEAD] * 0.9, z[T_HEAD], sway, -0.25 * raise, 0);
    for (int i = 0; i < 2; i++) {
        double side = i ? -1.0 : 1.0, eye[3], pupil[3];
        on_ellipsoid(&p[1], side * 0.45, 0.45, 0.8, 0.92, eye);
        sphere(&p[2 + i], eye, z[T_EYE]);
        on_ellipsoid(&p[1], side * 0.45, 0.45, 0.8, 0.92 + z[T_EYE] * 0.9 / z[T_HEAD], pupil);
        sphere(&p[4 + i], pupil, z[T_EYE] * 0.5);
        on_ellipsoid(&p[1], side * 0.35, 0.9, 0.3, 0.95, an->at[i]);
        double d[3] = {side * 0.5, 1.0, 0.6};
        norm3(d);
        memcpy(an->dir[i], d, sizeof d);
    }
}

/* ---- extras: a species' parts beyond its plan, posed on their hosts ------------------------------ */

static int extra_prims(const critter_extra *e)
{
    return e->type == EXTRA_NONE ? 0 : e->count > 1 ? e->count : 1;
}

/* The primitive a host names (see HOST_BODY in critter_internal.h); -1 for a tube segment. */
static int host_prim(const critter_sim *s, int host)
{
    static const int head[3] = {0, 10, 1}, snout[3] = {0, 11, 1};
    if (host >= HOST_SEGMENT(0))
        return -1;
    if (host >= HOST_EXTRA(0)) {
        int prim = s->extra_first;
        for (int i = 0; i < host - HOST_EXTRA(0); i++)
            prim += extra_prims(&s->sp->extras[i]);
        return prim;
    }
    return host == HOST_HEAD ? head[s->plan] : host == HOST_SNOUT ? snout[s->plan] : 0;
}

/* The host as an ellipsoid pose: its own, or a tube segment's sphere. */
static void host_pose(const critter_sim *s, const prim_pose *poses, int host, prim_pose *out)
{
    int prim = host_prim(s, host);
    if (prim >= 0 && !(s->plan == CROWD_CRITTER_TUBE && prim == 0)) {
        *out = poses[prim];
        return;
    }
    int last = (int)s->size[T_NODES] - 1, k = prim == 0 ? 0 : host - HOST_SEGMENT(0);
    const float *v = poses[0].v + 4 * (k < last ? k : last);
    double c[3] = {v[0], v[1], v[2]};
    sphere(out, c, v[3]);
}

/* A direction given in the host's frame (x right, y up, z forward), in world space. */
static void host_dir(const prim_pose *h, const double d[3], double mirror, double out[3])
{
    double axes[3][3];
    for (int a = 0; a < 3; a++)
        axis_of(h, a, axes[a]);
    for (int k = 0; k < 3; k++)
        out[k] = axes[0][k] * d[0] * mirror + axes[1][k] * d[1] + axes[2][k] * d[2];
    norm3(out);
}

static double host_radius(const prim_pose *h)
{
    double r = 0.0;
    for (int a = 0; a < 3; a++)
        r += sqrt((double)h->v[3 + 3 * a] * h->v[3 + 3 * a] + (double)h->v[4 + 3 * a] * h->v[4 + 3 * a] +
                  (double)h->v[5 + 3 * a] * h->v[5 + 3 * a]);
    return r / 3.0;
}

/* A bump at `at` (host frame): its first axis kept level with the host's right, so it turns with the
 * host; its second (the poles) along the outward direction there, so a beak ends in a point and
 * spots on a bump spread over its outer side; the third across both. */
static void pose_bump(const critter_extra *e, const prim_pose *h, const double at[3], double mirror, prim_pose *p)
{
    double c[3], n[3], right[3], third[3], rh = host_radius(h);
    on_ellipsoid(h, at[0] * mirror, at[1], at[2], e->out, c);
    host_dir(h, at, mirror, n);
    axis_of(h, 0, right);
    double d = right[0] * n[0] + right[1] * n[1] + right[2] * n[2];
    if (fabs(d) > 0.95) /* facing sideways: level with the host's forward instead */
        axis_of(h, 2, right), d = right[0] * n[0] + right[1] * n[1] + right[2] * n[2];
    for (int k = 0; k < 3; k++)
        right[k] -= d * n[k];
    norm3(right);
    third[0] = right[1] * n[2] - right[2] * n[1], third[1] = right[2] * n[0] - right[0] * n[2];
    third[2] = right[0] * n[1] - right[1] * n[0];
    set3(p->v, c[0], c[1], c[2]);
    set3(p->v + 3, right[0] * e->size[0] * rh, right[1] * e->size[0] * rh, right[2] * e->size[0] * rh);
    set3(p->v + 6, n[0] * e->size[1] * rh, n[1] * e->size[1] * rh, n[2] * e->size[1] * rh);
    set3(p->v + 9, third[0] * e->size[2] * rh, third[1] * e->size[2] * rh, third[2] * e->size[2] * rh);
}

#define HORN_POINTS 4

/* A horn: from `at` on the host along dir, curving by bend, tapering from base to tip radius. */
static void pose_horn(const critter_extra *e, const prim_pose *h, double mirror, prim_pose *p)
{
    double base[3], dir[3], bend[3], rh = host_radius(h), len = e->size[0] * rh;
    on_ellipsoid(h, e->at[0] * mirror, e->at[1], e->at[2], e->out, base);
    host_dir(h, e->dir, mirror, dir);
    double b[3] = {e->bend[0] * mirror, e->bend[1], e->bend[2]}, blen = sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
    host_dir(h, e->bend, mirror, bend);
    for (int k = 0; k < HORN_POINTS; k++) {
        double t = (double)k / (HORN_POINTS - 1), c[3];
        for (int a = 0; a < 3; a++)
            c[a] = base[a] + len * (t * dir[a] + t * t * blen * bend[a]);
        tube_point(p, k, c, rh * (e->size[1] + (e->size[2] - e->size[1]) * t));
    }
}

/* Spot j of n, spread over the host's upper half by the golden angle, from the crown down to a
 * little below the equator. */
static void spot_at(int j, int n, double out[3])
{
    double y = 0.85 - 1.0 * (j + 0.5) / n, r = sqrt(1.0 - y * y), a = 2.39996323 * j;
    out[0] = r * cos(a), out[1] = y, out[2] = r * sin(a);
}

static void extras_pose(const critter_sim *s, prim_pose *poses)
{
    int prim = s->extra_first;
    for (int i = 0; i < CRITTER_MAX_EXTRAS; i++) {
        const critter_extra *e = &s->sp->extras[i];
        prim_pose h;
        if (e->type != EXTRA_NONE)
            host_pose(s, poses, e->host, &h);
        for (int j = 0; j < extra_prims(e) && prim < CRITTER_MAX_PRIMS; j++, prim++) {
            double mirror = e->count == 2 && j == 1 ? -1.0 : 1.0, at[3];
            if (e->type == EXTRA_HORN) {
                pose_horn(e, &h, mirror, &poses[prim]);
                continue;
            }
            if (e->count > 2)
                spot_at(j, e->count, at);
            else
                memcpy(at, e->at, sizeof at);
            pose_bump(e, &h, at, mirror, &poses[prim]);
        }
    }
}

static const uint8_t *paint(const critter_sim *s, const critter_extra *e, uint8_t rgb[4])
{
    if (e->paint != PAINT_RGB)
        return s->colors[e->paint == PAINT_BODY ? 0 : e->paint == PAINT_ACCENT ? 1 : 2];
    rgb[0] = (uint8_t)(e->rgb >> 16), rgb[1] = (uint8_t)(e->rgb >> 8), rgb[2] = (uint8_t)e->rgb, rgb[3] = 255;
    return rgb;
}

/* The extras' shapes after the plan's `n` primitives; returns the new count. Bigger bumps get more
 * rings, so a belly is as smooth as the body it sits on and a spot costs little. */
static int extras_build(critter_sim *s, prim_shape *shapes, int n)
{
    s->extra_first = n;
    for (int i = 0; i < CRITTER_MAX_EXTRAS; i++) {
        const critter_extra *e = &s->sp->extras[i];
        uint8_t rgb[4];
        const uint8_t *color = paint(s, e, rgb);
        double across = fmax(e->size[0], e->size[2]);
        int lat = across > 0.6 ? 10 : across > 0.25 ? 7 : 5;
        /* a horn's side: across its first span, so whichever host axis it grows least along */
        tube_side side = fabs(e->dir[0]) < fabs(e->dir[2]) ? SIDE_X : SIDE_Z;
        for (int j = 0; j < extra_prims(e) && n < CRITTER_MAX_PRIMS; j++, n++) {
            if (e->type == EXTRA_HORN)
                tube_shape(&shapes[n], (uint16_t)n, HORN_POINTS, 3, 8, color, side);
            else
                ellipsoid_shape(&shapes[n], (uint16_t)n, lat, lat * 3 / 2 + 2, color);
        }
    }
    return n;
}

/* ---- the kind table -------------------------------------------------------------------------------- */

typedef void (*frame_fn)(const critter_sim *, prim_pose *, double root[3], anchors *);

static frame_fn frame_of(crowd_critter_kind plan)
{
    return plan == CROWD_CRITTER_BLOB ? blob_frame : plan == CROWD_CRITTER_QUAD ? quad_frame : tube_frame;
}

static void reset(critter_sim *s, int clip)
{
    s->clip = clip;
    s->t = s->phase = s->root_z = s->squash = s->squash_v = 0.0;
    s->speed = 0.0;
    prim_pose poses[CRITTER_MAX_PRIMS];
    double root[3];
    anchors an;
    frame_of(s->plan)(s, poses, root, &an);
    for (int c = 0; c < s->chain_count; c++)
        chain_place(&s->chains[c], an.at[c], an.dir[c]);
}

static void step(critter_sim *s, double dt)
{
    advance(s, dt);
    const gait *g = &s->gaits[s->clip];
    squash_step(s, dt, s->clip ? g->bob : 0.0, 2.0, s->plan == CROWD_CRITTER_BLOB ? 1.4 : 0.5);
    prim_pose poses[CRITTER_MAX_PRIMS];
    double root[3];
    anchors an;
    frame_of(s->plan)(s, poses, root, &an);
    for (int c = 0; c < s->chain_count; c++)
        chain_step(&s->chains[c], an.at[c], an.dir[c], dt);
}

static void pose(const critter_sim *s, prim_pose *poses, double root[3])
{
    anchors an;
    frame_of(s->plan)(s, poses, root, &an);
    /* the chains are the plan's last tubes: arms + tuft, ears + tail, antennae */
    static const int order[3][3] = {{5, 6, 11}, {12, 13, 16}, {6, 7, -1}};
    for (int c = 0; c < s->chain_count; c++)
        chain_pose(&s->chains[c], &poses[order[s->plan][c]]);
    extras_pose(s, poses);
}

static void loop_range(const critter_sim *s, int clip, double *shortest, double *longest)
{
    double period = s->gaits[clip].period;
    *shortest = 0.6 * period;
    *longest = 1.5 * period;
}

static int build(critter_sim *s, critter_rng *rng, prim_shape *shapes)
{
    int n = s->plan == CROWD_CRITTER_BLOB   ? blob_build(s, rng, shapes)
            : s->plan == CROWD_CRITTER_QUAD ? quad_build(s, rng, shapes)
                                            : tube_build(s, rng, shapes);
    return extras_build(s, shapes, n);
}

static const critter_kind_ops ops = {build, reset, step, pose, loop_range};

const critter_kind_ops *critter_ops(crowd_critter_kind kind)
{
    (void)kind;
    return &ops;
}

critter_sim *critter_sim_new(crowd_critter_kind kind)
{
    critter_sim *s = crowd_calloc(1, sizeof *s);
    if (s)
        s->sp = critter_species_of(kind), s->plan = s->sp->plan, s->fps = 30.0;
    return s;
}

void critter_sim_set_fps(critter_sim *s, double fps)
{
    s->fps = fps;
}

void critter_sim_delete(critter_sim *sim)
{
    crowd_free(sim);
}
