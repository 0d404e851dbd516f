#include "sim/sim_testing.h"

void sim_testing_set_hooks(crowd_sim *sim, const struct sim_test_hooks *hooks)
{
    sim->test_hooks = hooks;
}

bool sim_testing_agent(crowd_sim *sim, uint32_t index, sim_agent *agent, sim_drift *drift)
{
    if (index >= crowd_count(sim->crowd))
        return false;
    uint32_t slot = crowd_slot_of(sim->crowd, index);
    *agent = sim_agents(sim)[slot];
    *drift = sim_drifts(sim)[slot];
    return true;
}
