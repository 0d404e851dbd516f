/* Compare mode's budget search (demo/budget_search.c), driven frame by frame with cost models in
 * place of measured time: a linear cost per character, the same with frame-to-frame noise and a
 * rare large spike, a fixed overhead that alone breaks the budget, and a cost that never reaches it.
 * The answer must fit the budget under the model, be within the search's 1/32 of the largest count
 * that does, and come within a bounded number of frames. */
#include <math.h>
#include <stdint.h>

#include "check.h"
#include "demo/budget_search.h"

int check_failures;

typedef struct cost_model {
    double fixed_ms, per_item_ms;
    double noise;         /* relative, uniform in [-noise, +noise] */
    uint32_t spike_every; /* every n-th frame costs 10x (0: never) */
} cost_model;

static uint32_t rng_state = 20261201u;
static double uniform(void) /* [-1, 1) */
{
    rng_state = rng_state * 1664525u + 1013904223u;
    return (double)(rng_state >> 8) / (double)(1u << 23) - 1.0;
}

static double cost(const cost_model *m, uint32_t count, uint32_t frame)
{
    double ms = m->fixed_ms + m->per_item_ms * count;
    ms *= 1.0 + m->noise * uniform();
    if (m->spike_every && frame % m->spike_every == 0)
        ms *= 10.0;
    return ms;
}

/* Runs a search to the end; returns the result, *frames the frames it took. */
static uint32_t run(const cost_model *m, double budget, uint32_t cap, uint32_t *frames)
{
    demo_budget_search s;
    uint32_t count = demo_budget_search_start(&s, budget, cap), f = 0;
    while (s.active && f < 100000) {
        CHECK(count >= 1 && count <= cap);
        count = demo_budget_search_frame(&s, count, cost(m, count, f));
        f++;
    }
    CHECK(!s.active);
    CHECK(count == (s.result ? s.result : 1u)); /* the caller is left showing the answer */
    *frames = f;
    return s.result;
}

/* The largest count whose noiseless cost fits. */
static uint32_t largest_fitting(const cost_model *m, double budget, uint32_t cap)
{
    if (m->fixed_ms + m->per_item_ms > budget)
        return 0;
    double n = floor((budget - m->fixed_ms) / m->per_item_ms);
    return n >= cap ? cap : (uint32_t)n;
}

/* Frames allowed: a step per doubling up to the answer, one per bisection of the last doubling's
 * bracket down to 1/32 (5 halvings), and two steps' slack. */
static uint32_t frame_bound(uint32_t answer)
{
    uint32_t doublings = 0;
    while ((1u << doublings) <= (answer ? answer : 1u))
        doublings++;
    return (doublings + 1 + 5 + 2) * (DEMO_SEARCH_SETTLE + DEMO_SEARCH_SAMPLES);
}

static void linear_cost_finds_the_largest_count(void)
{
    /* a classic-skinned character at ~9 us of posing and upload, a VAT one at ~0.02 us */
    const cost_model models[] = {{0.3, 0.009, 0, 0}, {0.5, 0.00002, 0, 0}, {2.0, 1.1, 0, 0}};
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        const uint32_t cap = 250000;
        uint32_t frames, got = run(&models[i], 16.7, cap, &frames);
        uint32_t best = largest_fitting(&models[i], 16.7, cap);
        printf("  %.5f ms each + %.1f: %u found (largest %u) in %u frames\n", models[i].per_item_ms, models[i].fixed_ms,
               got, best, frames);
        CHECKF(got <= best, "%u found, only %u fit", got, best);
        CHECKF(got + (best / 32 > 1 ? best / 32 : 1) >= best, "%u found, %u fit", got, best);
        CHECKF(frames <= frame_bound(best), "%u frames, bound %u", frames, frame_bound(best));
    }
}

static void noise_and_spikes_do_not_mislead_it(void)
{
    /* 5 % frame-to-frame noise and a 10x frame every 9: the median of seven ignores both */
    const cost_model m = {0.3, 0.009, 0.05, 9};
    uint32_t frames, got = run(&m, 16.7, 20000, &frames);
    uint32_t best = largest_fitting(&m, 16.7, 20000);
    printf("  noisy: %u found (largest %u without noise) in %u frames\n", got, best, frames);
    CHECKF(got >= best * 0.93 && got <= best * 1.07, "%u found, %u fit", got, best);
}

static void over_budget_at_one_and_never_over(void)
{
    uint32_t frames;
    const cost_model heavy = {20.0, 0.1, 0, 0}; /* one character already breaks 16.7 ms */
    CHECK(run(&heavy, 16.7, 20000, &frames) == 0);
    CHECKF(frames <= 2 * (DEMO_SEARCH_SETTLE + DEMO_SEARCH_SAMPLES), "%u frames", frames);
    const cost_model light = {0.1, 1e-9, 0, 0}; /* the cap fits: the search stops there */
    CHECK(run(&light, 16.7, 20000, &frames) == 20000);
    CHECKF(frames <= frame_bound(20000), "%u frames", frames);
}

static void an_idle_search_leaves_the_count_alone(void)
{
    demo_budget_search s;
    demo_budget_search_start(&s, 16.7, 0); /* nothing can be held: never active */
    CHECK(!s.active);
    CHECK(demo_budget_search_frame(&s, 123, 5.0) == 123);
}

int main(void)
{
    RUN_TEST(linear_cost_finds_the_largest_count);
    RUN_TEST(noise_and_spikes_do_not_mislead_it);
    RUN_TEST(over_budget_at_one_and_never_over);
    RUN_TEST(an_idle_search_leaves_the_count_alone);
    TEST_MAIN_END();
}
