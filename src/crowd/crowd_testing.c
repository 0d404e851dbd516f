#include "crowd/crowd_testing.h"

void crowd_testing_set_hooks(crowd *c, const struct crowd_test_hooks *hooks)
{
    c->test_hooks = hooks;
}

crowd_work crowd_testing_work(const crowd *c)
{
    return c->work;
}
