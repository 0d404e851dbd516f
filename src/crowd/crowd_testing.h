/* Internal, for tests and benchmarks only: a switch that makes the runtime take its reference path,
 * and the counters of the work its updates did. Production code never sets the hooks. */
#ifndef CROWD_CROWD_TESTING_H
#define CROWD_CROWD_TESTING_H

#include <stdbool.h>

#include "crowd/crowd_internal.h"

struct crowd_test_hooks {
    /* coverage policy: sort every slot whenever the rank order breaks, the reference the
     * incremental bucket moves are held to */
    bool coverage_full_sort;
};

/* Borrowed (it must outlive the crowd or be unset with NULL). */
void crowd_testing_set_hooks(crowd *c, const struct crowd_test_hooks *hooks);
crowd_work crowd_testing_work(const crowd *c);

#endif
