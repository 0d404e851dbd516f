/* demo/scene_probe.c, what the page's window.crowd.measureScene runs: crowd-bench's scene measured in
 * whatever build runs it. A finite, positive median for a real crowd; NaN, not a crash, for what
 * it refuses (no asset, no count, no frames, counts past 4 million) and for a crowd it cannot make. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "demo/scene_probe.h"
#include "test_support.h"

static crowd_bake_output baked;
static crowd_asset asset;

static void measures_a_crowd(void)
{
    double ms = demo_measure_scene(&asset, 20000, 15, 15);
    printf("     20,000 on crowd-bench's scene, 15 frames in: %.3f ms per step + update\n", ms);
    CHECKF(isfinite(ms) && ms > 0.0, "median %g", ms);
}

static void refuses_what_it_cannot_measure(void)
{
    CHECK(isnan(demo_measure_scene(NULL, 1000, 1, 1)));
    CHECK(isnan(demo_measure_scene(&asset, 0, 1, 1)));
    CHECK(isnan(demo_measure_scene(&asset, 1000, 1, 0)));
    CHECK(isnan(demo_measure_scene(&asset, 4000001, 1, 1)));
    CHECK(isnan(demo_measure_scene(&asset, 1000, 100001, 1)));
}

/* Allocation hooks that refuse anything over a megabyte: no 100k crowd can be made. */
static void *refuse_big(void *user, size_t size)
{
    (void)user;
    return size > (1u << 20) ? NULL : malloc(size);
}

static void release(void *user, void *pointer)
{
    (void)user;
    free(pointer);
}

static void nan_when_the_crowd_cannot_be_made(void)
{
    const crowd_allocator refusing = {refuse_big, release, NULL};
    crowd_set_allocator(&refusing);
    double ms = demo_measure_scene(&asset, 100000, 1, 1);
    crowd_set_allocator(NULL);
    CHECKF(isnan(ms), "median %g", ms);
}

int main(void)
{
    humanoid_asset_or_die((crowd_bake_desc){.bones = true}, &baked, &asset);
    RUN_TEST(measures_a_crowd);
    RUN_TEST(refuses_what_it_cannot_measure);
    RUN_TEST(nan_when_the_crowd_cannot_be_made);
    crowd_asset_free(&asset);
    crowd_bake_output_free(&baked);
    TEST_MAIN_END();
}
