/* What gameplay code asks of a crowd, without GL: where an instance's hand is (a socket's world
 * transform, as the renderer draws attachments there), when its footsteps land (clip markers the
 * bake found) and when a one-shot ends (an event, not a poll).
 *
 * One character walks, cross-fades into a wave played once, and the program follows its right hand
 * throughout: it counts the footsteps in three whole cycles of the walk (three times the walk's
 * footstep markers), waits for the wave's finish event, and checks that the hand stays at arm's length of
 * the body through the fade and the one-shot. Exit status 0 when all of that holds.
 *
 * Usage: gameplay (bakes the built-in humanoid with bones in memory). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "crowdbake/bake.h"
#include "crowdbake/crowd.h"

static uint32_t clip_named(const crowd_asset *asset, const char *name)
{
    uint32_t clip = 0;
    if (!crowd_asset_find_clip(asset, name, &clip))
        fprintf(stderr, "gameplay: the asset has no clip \"%s\"\n", name);
    return clip;
}

/* The footsteps among one clip's markers (names starting "footstep"). */
static uint32_t footsteps_per_cycle(const crowd_asset *asset, uint32_t clip)
{
    uint32_t first = 0, count = crowd_asset_clip_markers(asset, clip, &first), steps = 0;
    for (uint32_t m = first; m < first + count; m++)
        steps += strncmp(asset->markers[m].name, "footstep", 8) == 0;
    return steps;
}

typedef struct followed {
    float count_from, count_to; /* footsteps are counted in this window of shader time */
    uint32_t footsteps, finishes;
    float finished_at;   /* shader time of the wave's finish event */
    float farthest_hand; /* metres from the body's vertical axis */
} followed;

/* One frame's events for instance 0 and where its right hand is. */
static void follow(const crowd *c, const crowd_frame *frame, const crowd_asset *asset, uint32_t hand, followed *f)
{
    for (uint32_t e = 0; e < frame->event_count; e++) {
        const crowd_event *event = &frame->events[e];
        if (event->instance != 0)
            continue;
        if (event->kind == CROWD_EVENT_MARKER && !strncmp(asset->markers[event->detail].name, "footstep", 8))
            f->footsteps += event->time >= f->count_from && event->time < f->count_to;
        if (event->kind == CROWD_EVENT_FINISHED)
            f->finishes++, f->finished_at = event->time;
    }
    float m[12], body[3];
    crowd_record record;
    if (crowd_socket_transform((crowd *)c, 0, hand, m) != CROWD_OK || crowd_get(c, 0, &record) != CROWD_OK)
        return;
    crowd_record_position(&record, frame->time, body);
    float reach = hypotf(m[3] - body[0], m[11] - body[2]);
    f->farthest_hand = reach > f->farthest_hand ? reach : f->farthest_hand;
}

int main(void)
{
    crowd_bake_output baked;
    crowd_asset asset;
    crowd_error err;
    crowd_rig rig;
    if (crowd_rig_build_humanoid(NULL, &rig, &err) != CROWD_OK)
        return fprintf(stderr, "gameplay: %s\n", err.message), 1;
    crowd_bake_desc bake = {.rig = &rig, .bones = true}; /* sockets need the bone texture */
    crowd_result baked_ok = crowd_bake(&bake, &baked, &err);
    crowd_rig_free(&rig);
    if (baked_ok != CROWD_OK || crowd_asset_load_memory(&asset, baked.bytes, baked.size, &err) != CROWD_OK)
        return fprintf(stderr, "gameplay: %s\n", err.message), 1;
    uint32_t walk = clip_named(&asset, "walk"), wave = clip_named(&asset, "wave"), hand = 0;
    if (!crowd_asset_find_socket(&asset, "hand_r", &hand))
        return fprintf(stderr, "gameplay: no hand_r socket\n"), 1;

    crowd_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.asset = &asset;
    desc.capacity = 16;
    desc.marker_events = 1; /* footsteps are markers: reported only when asked for */
    crowd *c = NULL;
    if (crowd_create(&desc, &c, &err) != CROWD_OK)
        return fprintf(stderr, "gameplay: %s\n", err.message), 1;
    crowd_set_count(c, 1);
    crowd_play(c, 0, walk, 1.0f, 0.0f);
    crowd_set_velocity(c, 0, 0.0f, 1.2f);
    crowd_set_speed(c, 0, 1.2f); /* stride-matched: the walk's rate follows the speed */
    crowd_record record;
    crowd_get(c, 0, &record);
    /* three whole cycles from 0.1 s on: each footstep marker is crossed exactly three times in them,
       wherever it sits in the cycle */
    const float cycles = 3.0f, walking = cycles / record.rate_a;

    crowd_view view;
    memset(&view, 0, sizeof view);
    for (int i = 0; i < 16; i++) /* identity camera matrices: culling does not matter here */
        view.view[i] = view.projection[i] = (i % 5 == 0) ? 1.0f : 0.0f;
    view.viewport_height = 720;
    followed f = {0.1f, 0.1f + walking, 0, 0, 0.0f, 0.0f};
    const float dt = 1.0f / 60.0f;
    bool waving = false;
    for (int frame = 0; frame < 60 * 8; frame++) {
        float now = crowd_time(c);
        if (!waving && now >= f.count_to + 0.2f) { /* three cycles walked: stop, wave once */
            crowd_set_velocity(c, 0, 0.0f, 0.0f);
            crowd_play_once(c, 0, wave, 1.0f, 0.25f);
            waving = true;
        }
        const crowd_frame *out = crowd_update(c, dt, &view);
        if (!out)
            return fprintf(stderr, "gameplay: update refused\n"), 1;
        follow(c, out, &asset, hand, &f);
        if (frame % 60 == 0) {
            float m[12];
            crowd_socket_transform(c, 0, hand, m);
            printf("t %5.2f s  right hand at (%6.3f, %6.3f, %6.3f)%s\n", out->time, m[3], m[7], m[11],
                   waving ? "  waving" : "  walking");
        }
    }
    uint32_t expected = (uint32_t)lrintf(cycles) * footsteps_per_cycle(&asset, walk);
    printf("footsteps while walking %u (the walk has %u a cycle: %u expected); wave finished %u time(s) at %.2f s; "
           "hand at most %.2f m from the body's axis\n",
           f.footsteps, footsteps_per_cycle(&asset, walk), expected, f.finishes, f.finished_at, f.farthest_hand);
    bool ok = expected > 0 && f.footsteps == expected && f.finishes == 1 && f.farthest_hand < 1.0f;
    crowd_destroy(c);
    crowd_asset_free(&asset);
    crowd_bake_output_free(&baked);
    return ok ? 0 : 1;
}
