/* The runtime without the simulation: this test links the runtime's objects (crowd_runtime) and
 * nothing of src/sim, so its link proves the runtime does not know the simulation. It drives a crowd
 * the way an engine with its own steering does: setters, updates, draws, hit tests. Argument: a
 * .crowd file (the build's humanoid). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/view_matrices.h"
#include "crowdbake/crowd.h"
#include "crowdbake/hits.h"

static int failures;
#define CHECK(x)                                                            \
    do {                                                                    \
        if (!(x)) {                                                         \
            fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #x); \
            failures++;                                                     \
        }                                                                   \
    } while (0)

int main(int argc, char **argv)
{
    static crowd_asset asset;
    crowd_error err;
    if (argc < 2 || crowd_asset_load_file(&asset, argv[1], &err) != CROWD_OK) {
        fprintf(stderr, "test_runtime_alone: %s\n", argc < 2 ? "usage: test_runtime_alone file.crowd" : err.message);
        return 1;
    }
    crowd *c = NULL;
    crowd_desc d = {.asset = &asset, .capacity = 2000};
    CHECK(crowd_create(&d, &c, &err) == CROWD_OK);
    CHECK(crowd_set_count(c, 2000) == CROWD_OK);
    for (uint32_t i = 0; i < 2000; i++) { /* a grid of walkers heading +x, the engine's own steering */
        float x = (float)(i % 50) * 2.0f - 50.0f, z = (float)(i / 50) * 2.0f - 40.0f;
        CHECK(crowd_set_transform(c, i, x, 0.0f, z, 1.5708f) == CROWD_OK);
        CHECK(crowd_set_velocity(c, i, 1.4f, 0.0f) == CROWD_OK);
    }
    crowd_view view = {.viewport_height = 720.0f};
    const float eye[3] = {0, 20, 60}, target[3] = {0, 0, 0}, up[3] = {0, 1, 0};
    cb_look_at(view.view, eye, target, up);
    cb_perspective(view.projection, 1.0f, 16.0f / 9.0f, 0.3f, 500.0f);
    const crowd_frame *f = NULL;
    for (int frame = 0; frame < 60; frame++)
        f = crowd_update(c, 1.0f / 60.0f, &view);
    CHECK(f && f->draw_count > 0 && f->stats.submitted > 1000 && f->stats.simulated == 2000);
    crowd_record r;
    float p[3];
    CHECK(crowd_get(c, 0, &r) == CROWD_OK);
    crowd_record_position(&r, crowd_time(c), p);
    CHECK(fabsf(p[0] - (-50.0f + 1.4f * crowd_time(c))) < 0.01f); /* walked on by extrapolation alone */
    crowd_hits *hits = NULL;
    CHECK(crowd_hits_create(c, &hits, &err) == CROWD_OK);
    crowd_hits_update(hits);
    crowd_ray_hit hit;
    const float down[3] = {0, -1, 0};
    float above[3] = {p[0], 5.0f, p[2]};
    CHECK(crowd_raycast(hits, above, down, 10.0f, &hit) && hit.index == 0);
    crowd_hits_destroy(hits);
    crowd_destroy(c);
    crowd_asset_free(&asset);
    printf("test_runtime_alone: %s\n", failures ? "FAILED" : "ok");
    return failures != 0;
}
