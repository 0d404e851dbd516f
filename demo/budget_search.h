/* The search behind compare mode's T key: the largest count whose measured CPU time per frame fits
 * a budget. Doubling from one until a count is over budget, then bisecting the bracket until it is
 * within 1/32 of the count that fits; each step lets the new count settle for a few frames, then
 * takes the median of a few measured ones, so one slow frame cannot end the search. Pure state and
 * arithmetic: the caller measures and applies the counts (demo/compare.c), tests drive it with a
 * cost model (tests/test_budget_search.c). */
#ifndef CROWD_DEMO_BUDGET_SEARCH_H
#define CROWD_DEMO_BUDGET_SEARCH_H

#include <stdbool.h>
#include <stdint.h>

#define DEMO_SEARCH_SETTLE 3  /* frames after a count change before measuring */
#define DEMO_SEARCH_SAMPLES 7 /* frames measured per step (median) */

typedef struct demo_budget_search {
    bool active;
    uint32_t lo, hi; /* lo fits the budget, hi does not (0: not found yet) */
    uint32_t cap;    /* the largest count the caller can hold */
    double budget_ms;
    int frames; /* into the current step */
    double samples[DEMO_SEARCH_SAMPLES];
    uint32_t result; /* when done: the largest count found to fit (0: not even one) */
    uint32_t steps;  /* counts measured so far */
} demo_budget_search;

/* Starts a search; returns the first count to apply (1). */
uint32_t demo_budget_search_start(demo_budget_search *search, double budget_ms, uint32_t cap);
/* After a frame drawn with `count`, measured at `ms`: the count to apply next (the same one while
 * the step settles or samples). When the search ends, `active` turns false and `result` holds the
 * answer, which is also the returned count (at least 1, so the caller keeps something on screen). */
uint32_t demo_budget_search_frame(demo_budget_search *search, uint32_t count, double ms);

#endif
