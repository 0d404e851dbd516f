#include "demo/budget_search.h"

#include <string.h>

/* The middle of DEMO_SEARCH_SAMPLES values (odd), sorted in place: insertion sort, seven values. */
static double median_of_samples(double *v)
{
    for (int i = 1; i < DEMO_SEARCH_SAMPLES; i++)
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return v[DEMO_SEARCH_SAMPLES / 2];
}

uint32_t demo_budget_search_start(demo_budget_search *s, double budget_ms, uint32_t cap)
{
    memset(s, 0, sizeof *s);
    s->active = cap > 0;
    s->cap = cap ? cap : 1;
    s->budget_ms = budget_ms;
    return 1;
}

uint32_t demo_budget_search_frame(demo_budget_search *s, uint32_t count, double ms)
{
    if (!s->active)
        return count;
    int f = s->frames++;
    if (f < DEMO_SEARCH_SETTLE)
        return count;
    s->samples[f - DEMO_SEARCH_SETTLE] = ms;
    if (f - DEMO_SEARCH_SETTLE + 1 < DEMO_SEARCH_SAMPLES)
        return count;
    s->frames = 0;
    s->steps++;
    if (median_of_samples(s->samples) <= s->budget_ms)
        s->lo = count;
    else
        s->hi = count;
    uint32_t next;
    if (!s->hi) /* still doubling */
        next = s->lo > s->cap / 2 ? s->cap : s->lo * 2;
    else
        next = s->lo + (s->hi - s->lo) / 2;
    uint32_t tolerance = s->lo / 32 > 1 ? s->lo / 32 : 1;
    bool done = (s->hi && s->hi - s->lo <= tolerance) || (!s->hi && s->lo == s->cap);
    if (!done)
        return next;
    s->active = false;
    s->result = s->lo;
    return s->lo ? s->lo : 1;
}
