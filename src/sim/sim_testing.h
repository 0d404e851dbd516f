/* Internal, for tests only: switches that make the simulation take a reference path, and a look at
 * an agent's state. Production code never sets the hooks. */
#ifndef CROWD_SIM_TESTING_H
#define CROWD_SIM_TESTING_H

#include <stdbool.h>

#include "sim/sim_internal.h"

struct sim_test_hooks {
    bool no_sleep;          /* step every agent: the reference the sleepers are held to, byte for byte */
    bool every_edge;        /* gather every resting far agent near any chunk edge as a neighbour */
    bool gather_now;        /* far agents gathered where they are, not halfway through their interval */
    bool offscreen_stripes; /* which chunks re-plan at the offscreen rate: moving stripes, whatever the view */
};

/* Borrowed (it must outlive the sim or be unset with NULL). */
void sim_testing_set_hooks(crowd_sim *sim, const struct sim_test_hooks *hooks);

/* Instance `index`'s agent and drift (bit for bit), or false for an index past the count. */
bool sim_testing_agent(crowd_sim *sim, uint32_t index, sim_agent *agent, sim_drift *drift);

#endif
