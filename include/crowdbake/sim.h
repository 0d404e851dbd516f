/* crowdbake/sim.h — a simulation that drives a crowd's instances (steering, scenarios,
 * separation, obstacles, gaits), and a world of several kinds. Optional: an engine with its own
 * simulation drives the crowd through crowd.h's setters and never calls these. Part of
 * crowdbake::core. */
#ifndef CROWDBAKE_SIM_H
#define CROWDBAKE_SIM_H

#include <stdbool.h>
#include "crowd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- crowd_sim: agents that drive a crowd ----------------------------------------------------
 *
 * Steering (wander, scenarios), neighbour separation through a fine grid, obstacle avoidance, and
 * speed -> gait (idle / walk / jog / run) -> stride-matched rate. The simulation walks the crowd's
 * records in slot order (memory order) and rewrites only agents that move (standing agents that
 * show their idle already are not touched).
 *
 * Separation pushes feed a drift velocity of their own that decays at the steering rate: an agent
 * moves by steering plus drift (exactly as one velocity with the pushes added would), but only
 * steering sets its heading, gait and rate, so a jostled walker keeps facing where it walks.
 * Pushes are computed at the end of a step, from where everyone then is, for the next step. */

typedef enum crowd_scenario {
    CROWD_SCENARIO_WANDER = 0, /* everyone ambles about, some jog or run, some stand */
    CROWD_SCENARIO_STAMPEDE,   /* everyone runs east; the world wraps */
    CROWD_SCENARIO_PARADE,     /* walking lanes around the centre */
    CROWD_SCENARIO_MILL,       /* jogging in a vortex around the centre */
    CROWD_SCENARIO_GATHER,     /* converge on the centre, slow down, cheer */
    CROWD_SCENARIO_COUNT
} crowd_scenario;

typedef struct crowd_obstacle {
    float x, z, radius; /* a round obstacle (pillar, tree, statue) */
} crowd_obstacle;

/* How crowd_sim_spawn dresses and sizes agents, and which clips the gaits use. Zeroed fields take
 * the defaults listed, which are neutral (a white tint, no accessories, each region's palette choice
 * at random, sizes within 8 %); toggles are int: 0 default, 1 the values given, -1 off. Looks come
 * from a random stream of their own: they never move where anyone stands. */
typedef struct crowd_spawn_options {
    float scale_min, scale_max;           /* uniform size range; both 0 = 0.92..1.08; else
                                             0.001 <= min <= max <= 1000 */
    int shirts;                           /* 0 or -1: every tint white (the asset's own colours);
                                             1: a random colour per agent, hue any, in the ranges below */
    float saturation_min, saturation_max; /* with shirts = 1: HSV ranges in [0, 1], min <= max */
    float value_min, value_max;
    int accessories;         /* 0 or -1: none; 1: each slot by its odds, independently; 2: one slot at
                                most, slot k with chance accessory_odds[k] (their sum at most 1) */
    float accessory_odds[8]; /* with accessories 1 or 2: chance per slot, [0, 1] */
    /* Clip names, matched as crowd_asset_match_clip (case-insensitive, "Armature|Idle" is "idle").
     * NULL = the default; a name the asset lacks is an error at crowd_sim_create. idle: "idle" when
     * its role can stand (idle, or unknown without a stride), else the first idle-role clip, else a
     * pose, else the slowest gait held still in a contact pose (crowd_sim_gaits.holds_pose); never
     * an action. An idle named here that is a gait is held the same way. cheer (gather scenario, arrived): "cheer", else none; gaits: NULL =
     * every locomotion clip with a stride, slowest first (the humanoid: walk, jog, run), else the
     * named clips (each with a stride), in any order (sorted by natural speed). The scenarios ask
     * for a walk (the slowest gait), a run (the fastest) or a jog (the gait nearest between). */
    const char *idle_clip; /* borrowed: read by crowd_sim_create only */
    const char *cheer_clip;
    const char *const *gait_clips;
    uint32_t gait_clip_count; /* entries of gait_clips; at most 7 */
} crowd_spawn_options;

typedef struct crowd_sim_desc {
    crowd *target; /* required; the crowd whose instances the sim drives */
    crowd_scenario scenario;
    const crowd_obstacle *obstacles; /* copied; up to 1024 */
    uint32_t obstacle_count;
    int separation;            /* 0: on up to separation_limit agents; 1: always; -1: never */
    uint32_t separation_limit; /* 0 = 40,000 */
    float separation_radius;   /* personal space, metres; 0 = 0.7 */
    uint32_t seed;             /* same seed, same crowd */
    /* Simulation level of detail: agents in chunks the last crowd_update found outside the view,
     * or farther than lod_distance metres from its camera (or in the far pool), re-plan their
     * steering every lod_interval-th step only, round robin by chunk (a chunk's agents together;
     * the far pool's agents by the chunk each is in; a wanderer also at its decision's step); in
     * between they walk on with the motion in their record (extrapolated, no cost: asleep until
     * their chunk's next turn where nothing else would wake them sooner).
     * Nearer agents re-plan every step. In the wander scenario without separation a far agent's
     * turn is itself a record the GPU extrapolates (CROWD_RECORD_TURN, written once at the
     * re-plan): it costs nothing until its next decision,
     * the world's edge margin, an obstacle or its chunk's edge; far agents then play the gait and
     * rate of the speed they turn to (their feet slide a little during a turn), near ones keep
     * stride-matched feet every step. With separation on, a far chunk's agents step together
     * (round robin by chunk, the far pool's agents by their own chunks, so each step steps about
     * 1 / interval of the far crowd): the whole chunk re-plans and takes its separation pushes every
     * interval-th step (lod_interval, or offscreen_interval below) and walks on in between (asleep
     * where away from its chunk's edges: skipped, and read on the step before its turn), so a far
     * crowd writes about 1 / interval of its records per step and the separation pairs only the
     * agents that step next plus their neighbours near the chunks that get pushes. A far chunk's
     * pushes are worth its interval's steps, but move each agent of a pair by at most half their
     * overlap over the interval, and are taken from where the agents' records will have them halfway
     * through it (pairs walking towards each other are parted as they close in, not after). Far
     * agents where no render path can
     * draw a cross-fade (every level they may take is past the crowd's cross_fade_max_lod, margins
     * for hysteresis and a GPU band up to 0.5 included; those levels show clip A only) change gait
     * with a cut instead of a fade that could not be seen, so a decision's turn is a record at
     * once (a fade's clip B words would otherwise hold it back until the fade folds).
     * lod_distance 0 = 40 m; lod_interval 0 = 4, 1 (and offscreen_interval 0 or 1) = every agent
     * every step (no level of detail).
     *
     * offscreen_interval: the chunks outside the view re-plan every offscreen_interval-th step
     * instead (visible far chunks every lod_interval-th): a multiple of lod_interval, at most 64;
     * 0 = 2 x lod_interval (8; lod_interval itself past 32, and 1 where lod_interval is 1);
     * lod_interval itself = no separate rate. The far pool's agents take the rate of the chunk each
     * is in; with lod_interval 1 and an offscreen rate, those in visible chunks re-plan every step
     * but are otherwise far (their turns are records, their gait changes may cut). A chunk takes its
     * new rate only on the step before a turn both rates share, so one coming into view keeps the
     * offscreen rate for up to offscreen_interval steps (0.13 s at 60 Hz and the defaults). Out of
     * view the separation keeps less space, and chunks coming into view bring it along: test_crowd
     * bounds the close pairs in view and out of it (docs/simulation.md); a lower offscreen_interval
     * keeps more space in view for more work per frame. */
    float lod_distance;
    uint32_t lod_interval;
    uint32_t offscreen_interval;
    crowd_spawn_options spawn; /* looks and clips; zeroed = the defaults */
} crowd_sim_desc;

typedef struct crowd_sim_stats {
    double ms_step;       /* the whole step, separation included */
    double ms_separation; /* the separation pass (sort and pairs; the step gathers
                                             its input as it goes) */
    uint32_t rewritten;   /* agents whose record changed */
    uint32_t asleep;      /* agents the step skipped: without separation, steady walkers and far agents
                             turning on a record (wander scenario) whose next decision, turn at the
                             edge or chunk crossing is still ahead (nothing read or written); with
                             it, far agents resting between their chunk's turns away from its edges
                             (on the step before the turn, read for the separation). Their records
                             walk them on */
    uint32_t separated;   /* agents the separation took this step: those it pushes (near, and far
                             ones whose chunk's turn is next) and their neighbours in resting chunks */
    bool separation_active;
} crowd_sim_stats;

typedef struct crowd_sim crowd_sim;

/* Creates the simulation of `desc->target`. The agents' state (about 24 bytes per slot, 48 with
 * the double buffer) is allocated here and kept by the crowd in step with its records; a crowd
 * without a sim carries none of it. At most one sim per crowd (a second is an error); destroy the
 * sim before its crowd. */
CROWD_API crowd_result crowd_sim_create(const crowd_sim_desc *desc, crowd_sim **out, crowd_error *error);
CROWD_API void crowd_sim_destroy(crowd_sim *sim);

/* Sets the crowd's count and places every agent anew (random positions off the obstacles, random
 * looks from the spawn options, a gait that suits the scenario). */
CROWD_API crowd_result crowd_sim_spawn(crowd_sim *sim, uint32_t count);
CROWD_API void crowd_sim_set_scenario(crowd_sim *sim, crowd_scenario scenario);
CROWD_API void crowd_sim_set_separation(crowd_sim *sim, int mode);
/* Step 1 of the frame: moves every live agent by dt seconds. dt that is not finite or not
 * positive does nothing; dt above CROWD_SIM_MAX_DT is clamped to it (a hitch or a resume from
 * sleep must not throw agents across the world, nor overflow the decision clock). */
#define CROWD_SIM_MAX_DT 0.25f
CROWD_API void crowd_sim_step(crowd_sim *sim, float dt);
CROWD_API const crowd_sim_stats *crowd_sim_get_stats(const crowd_sim *sim);

/* How the simulation moves this asset's characters, decided at crowd_sim_create from its clips'
 * roles (or the spawn options' names), for a caller to tell its user (the demo's panel does).
 * A character is never moved without a gait to move it (docs/simulation.md, "Characters without a
 * gait or an idle"). */
typedef struct crowd_sim_gaits {
    uint32_t idle_clip;     /* what standing agents show */
    uint32_t gait_count;    /* locomotion clips the scenarios move agents with, 0..7; 0: no agent moves
                            in any scenario (they stand on idle_clip and turn in place towards their
                            heading: moving would glide) */
    uint32_t gait_clips[7]; /* their clip indices, slowest first */
    bool holds_pose;        /* no clip to stand in but a gait: idle_clip is that gait (the slowest),
                               held still (rate 0) at pose_phase, the frame with the most of the body
                               on the ground, instead of running in place */
    float pose_phase;       /* 0..1 of idle_clip's cycle, with holds_pose */
} crowd_sim_gaits;

/* Fills `out`; CROWD_ERROR_ARGUMENT for NULL arguments. */
CROWD_API crowd_result crowd_sim_get_gaits(const crowd_sim *sim, crowd_sim_gaits *out);
CROWD_API const char *crowd_scenario_name(crowd_scenario scenario);

/* ---- crowd_world: several kinds in one world (the menagerie) -------------------------------
 *
 * One crowd per kind (each its own asset, and its own renderer), one simulation for all of them:
 * the world borrows each kind's crowd_sim, steps them together, and adds one separation pass
 * across kinds, so agents of different kinds keep their distance as a kind's agents do among
 * themselves (a crowd_sim alone separates its own agents only). Each kind keeps its own gait
 * ladder, built from its own clips: the scenarios ask every kind for its own walk, jog or run, so
 * a fox trots at the fox's speeds and a humanoid walks at its own. The gather scenario's plaza is
 * sized for every kind together (1.2 m^2 per agent of the default 0.7 m radius, scaled by each
 * kind's radius squared) instead of each kind's own count, so all kinds meet on one plaza.
 *
 * Across kinds, two agents closer than the mean of their kinds' separation radii push each other
 * apart with the sims' own weight, (radius - d) / radius along the line between them, into the
 * same drift the kinds' own separation feeds (1.5 m/s per unit; the next step moves by it and
 * decays it). Pushes act on the agents of kinds whose own separation ran in the step
 * (crowd_sim_stats.separation_active; crowd_sim_desc.separation -1 or a count past
 * separation_limit turns a kind's off): a kind without separation is an obstacle to the others
 * but is itself never pushed.
 *
 * The frame: crowd_world_step (step 1 for every kind), then per kind crowd_update with the same
 * dt, upload, shadows and draw (steps 2-5 of the frame above, each crowd with its renderer).
 *
 * Costs: crowd_world_step is the kinds' steps plus one O(live agents of all kinds) pass (a gather
 * reading each record, a counting sort over a grid with cells as wide as the largest radius, at
 * most 64 neighbour tests per agent), on the calling thread. Memory: reserved by
 * crowd_world_create, about 34 bytes per instance of the kinds' capacities together plus 4 bytes
 * per grid cell ((world size / largest radius)^2; 1.4 MB for a 420 m world at 0.7 m); nothing
 * allocates after. The same calls give the same records, bit for bit. Not thread-safe (one thread
 * calls a world and its kinds at a time). */
#define CROWD_WORLD_MAX_KINDS 16u

typedef struct crowd_world_desc {
    /* The kinds, in order: each a sim of its own crowd (borrowed; destroy the world before them).
     * Every crowd's world_size must be the same. 1..CROWD_WORLD_MAX_KINDS. */
    crowd_sim *const *kinds;
    uint32_t kind_count;
    const float *shares; /* NULL = equal shares; else kind_count weights in 0..1e6, not all 0 (copied) */
    int separation;      /* across kinds: 0 (default) or 1 on, -1 off */
} crowd_world_desc;

typedef struct crowd_world_stats {
    double ms_step;          /* the whole world step */
    double ms_kinds;         /* the kinds' own steps (their separation included) */
    double ms_cross;         /* the separation pass across kinds */
    uint32_t agents;         /* live agents of every kind the pass gathered (0 when it is off) */
    uint32_t cross_contacts; /* agents within another kind's agent's pair radius, counted per
                                agent that receives pushes (a mutual contact counts twice) */
} crowd_world_stats;

typedef struct crowd_world crowd_world;

/* Checks the kinds (NULL, one crowd driven twice, different world sizes, bad shares:
 * CROWD_ERROR_ARGUMENT with the reason) and reserves the separation's scratch. */
CROWD_API crowd_result crowd_world_create(const crowd_world_desc *desc, crowd_world **out, crowd_error *error);
/* Frees the world's own scratch; the kinds' sims and crowds are the caller's. */
CROWD_API void crowd_world_destroy(crowd_world *world);

/* How `total` instances split among the kinds: by share, rounded by largest remainder (ties to
 * the lower kind), so the counts add up to total; a kind's count is capped at its crowd's
 * capacity and the excess goes to kinds with room (in kind order), so the counts add up to
 * less only when every crowd is full. Fills counts[kind_count]. */
CROWD_API void crowd_world_split(const crowd_world *world, uint32_t total, uint32_t *counts);
/* crowd_sim_spawn of every kind with its count from crowd_world_split: the instance total is the
 * world's. Returns the first error (the other kinds are still spawned). */
CROWD_API crowd_result crowd_world_spawn(crowd_world *world, uint32_t total);
CROWD_API void crowd_world_set_scenario(crowd_world *world, crowd_scenario scenario);
/* Separation across kinds: 0 or 1 on, -1 off (the kinds' own separation is theirs: crowd_sim_set_separation). */
CROWD_API void crowd_world_set_separation(crowd_world *world, int mode);
/* Step 1 of the frame for every kind: sizes the gather plaza for all kinds, runs each kind's
 * crowd_sim_step(dt) in kind order, then the pass across kinds. dt as crowd_sim_step takes it
 * (not finite or not positive: nothing; above CROWD_SIM_MAX_DT: clamped). */
CROWD_API void crowd_world_step(crowd_world *world, float dt);
CROWD_API const crowd_world_stats *crowd_world_get_stats(const crowd_world *world);

#ifdef __cplusplus
}
#endif
#endif
