/* crowd-bench --sockets: what "where is everyone's head?" costs on the CPU. A crowd of each count
 * on a 200 m square, every instance walking in place on a random phase, yaw and scale; a quarter
 * cross-fading into another clip, an eighth holding a one-shot, a quarter walking on (extrapolated
 * position). After one update, the "head" socket of every instance: the bulk call over all live
 * instances, the bulk call over a shuffled index list (scattered records), the single call in a
 * loop, and the bulk bone call; each the median of REPEATS runs, in ns per instance. */
#include "bench_sockets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crowdbake/crowd.h"
#include "tool_support.h"

#define REPEATS 15

static uint32_t next(uint64_t *state)
{
    *state ^= *state >> 12, *state ^= *state << 25, *state ^= *state >> 27;
    return (uint32_t)((*state * 2685821657736338717ull) >> 32);
}

static float uniform(uint64_t *state)
{
    return (float)(next(state) >> 8) / 16777216.0f;
}

/* Mixed states, as the header says; one update so fades and holds are under way. */
static void spread(crowd *c, const crowd_asset *a, uint32_t count)
{
    uint64_t state = 20261207;
    crowd_set_count(c, count);
    for (uint32_t i = 0; i < count; i++) {
        crowd_set_transform(c, i, uniform(&state) * 200.0f - 100.0f, 0.0f, uniform(&state) * 200.0f - 100.0f,
                            uniform(&state) * 6.2831853f);
        crowd_set_scale(c, i, 0.8f + 0.4f * uniform(&state));
        crowd_play(c, i, next(&state) % a->clip_count, 1.0f, 0.0f);
        crowd_set_phase(c, i, uniform(&state));
        uint32_t kind = next(&state) % 8;
        if (kind < 2)
            crowd_play(c, i, next(&state) % a->clip_count, 1.2f, 0.5f + uniform(&state));
        else if (kind == 2)
            crowd_play_once(c, i, next(&state) % a->clip_count, 1.0f, 0.2f);
        else if (kind < 5)
            crowd_set_velocity(c, i, uniform(&state) * 2.0f - 1.0f, uniform(&state) * 2.0f - 1.0f);
    }
    crowd_view view;
    memset(&view, 0, sizeof view);
    crowd_update(c, 0.25f, &view);
}

typedef enum query { QUERY_ALL, QUERY_LIST, QUERY_SINGLE, QUERY_BONES, QUERY_KINDS } query;

/* ns per instance of one query kind, median of REPEATS; false when a call is refused. */
static bool time_query(crowd *c, query q, uint32_t socket, const uint32_t *list, float *out, double *ns)
{
    uint32_t count = crowd_count(c), bone = crowd_settings(c)->asset->sockets[socket].bone;
    double runs[REPEATS];
    bool ok = true;
    for (int r = 0; r < REPEATS; r++) {
        double t0 = tool_now_ms();
        if (q == QUERY_ALL)
            ok &= crowd_socket_transforms(c, NULL, count, socket, out) == CROWD_OK;
        else if (q == QUERY_LIST)
            ok &= crowd_socket_transforms(c, list, count, socket, out) == CROWD_OK;
        else if (q == QUERY_BONES)
            ok &= crowd_bone_transforms(c, NULL, count, bone, out) == CROWD_OK;
        else
            for (uint32_t i = 0; i < count; i++)
                ok &= crowd_socket_transform(c, i, socket, out + 12 * (size_t)i) == CROWD_OK;
        runs[r] = (tool_now_ms() - t0) * 1e6 / count;
    }
    *ns = tool_median(runs, REPEATS);
    return ok;
}

static int bench_count(const crowd_asset *a, uint32_t count, uint32_t socket)
{
    crowd_desc d;
    memset(&d, 0, sizeof d);
    d.asset = a;
    d.capacity = count;
    crowd *c = NULL;
    crowd_error err;
    float *out = malloc(sizeof(float) * 12 * (size_t)count);
    uint32_t *list = malloc(sizeof(uint32_t) * (size_t)count);
    int status = 1;
    if (!out || !list || crowd_create(&d, &c, &err) != CROWD_OK) {
        fprintf(stderr, "crowd-bench --sockets: %u instances: %s\n", count,
                out && list ? err.message : "out of memory");
        goto done;
    }
    spread(c, a, count);
    uint64_t state = 99;
    for (uint32_t i = 0; i < count; i++)
        list[i] = i;
    for (uint32_t i = count - 1; i > 0; i--) { /* Fisher-Yates: the records read in no order */
        uint32_t j = next(&state) % (i + 1), t = list[i];
        list[i] = list[j], list[j] = t;
    }
    double ns[QUERY_KINDS];
    for (int q = 0; q < QUERY_KINDS; q++)
        if (!time_query(c, (query)q, socket, list, out, &ns[q])) {
            fprintf(stderr, "crowd-bench --sockets: %s\n", crowd_last_error(c)->message);
            goto done;
        }
    printf("%9u | %9.1f %9.1f %9.1f %9.1f | %8.2f\n", count, ns[QUERY_ALL], ns[QUERY_LIST], ns[QUERY_SINGLE],
           ns[QUERY_BONES], ns[QUERY_ALL] * count * 1e-6);
    status = 0;
done:
    crowd_destroy(c);
    free(out);
    free(list);
    return status;
}

int bench_sockets(const crowd_asset *a, const uint32_t *counts, uint32_t n)
{
    uint32_t socket = 0;
    if (!a->bones.data || !a->socket_count) {
        fprintf(stderr, "crowd-bench --sockets: the asset has no bone texture or no sockets (bake with --bones)\n");
        return 1;
    }
    crowd_asset_find_socket(a, "head", &socket);
    printf("crowd-bench --sockets: socket \"%s\" of every instance (mixed states), ns per instance, medians of %d\n",
           a->sockets[socket].name, REPEATS);
    printf("%9s | %9s %9s %9s %9s | %8s\n", "instances", "bulk all", "bulk list", "single", "bone bulk", "ms all");
    int status = 0;
    for (uint32_t i = 0; i < n && !status; i++)
        status = bench_count(a, counts[i], socket);
    return status;
}
