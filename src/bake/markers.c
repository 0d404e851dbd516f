/* Clip markers of a bake (the MARK section): the ones the desc names, checked before anything is
 * sampled, and footsteps found on the placed frames of each locomotion clip. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bake/bake_job.h"
#include "core/alloc.h"
#include "core/error.h"

/* A foot touches down when its side's lowest point comes within CONTACT_IN of the height of that
 * side's lowest over the cycle, having been more than CONTACT_OUT above it: the gap between the
 * two keeps a foot that brushes the ground mid-swing, or rocks from heel to toe, to one step. */
#define CONTACT_IN 0.005
#define CONTACT_OUT 0.02
#define MAX_FOOTSTEPS_PER_SIDE 8u /* a gait steps once per foot per cycle; more is noise */

static const char *const footstep_names[2] = {"footstep_l", "footstep_r"};

/* The baked clip a desc marker names (as crowd_match_clip_name), or UINT32_MAX. */
static uint32_t baked_clip_named(const bake_job *job, const char *name)
{
    const char *names[CROWD_MAX_CLIPS];
    uint32_t index;
    if (job->clip_count > CROWD_MAX_CLIPS) /* select_clips keeps it within; the array's bound */
        return UINT32_MAX;
    for (uint32_t k = 0; k < job->clip_count; k++)
        names[k] = job->rig->clips[job->clips[k].rig_clip].name;
    return crowd_match_clip_name(names, sizeof names[0], job->clip_count, name, &index) ? index : UINT32_MAX;
}

crowd_result crowd_bake_check_markers(const bake_job *job, crowd_error *error)
{
    const crowd_bake_desc *d = job->desc;
    if (d->marker_count && !d->markers)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_bake_desc.marker_count %u without markers",
                          d->marker_count);
    if (d->footsteps < -1 || d->footsteps > 0)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_bake_desc.footsteps %d: 0 (on) or -1 (off)",
                          d->footsteps);
    if (d->marker_count > CROWD_MAX_MARKERS / 2) /* footsteps take the other half at most */
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_bake_desc.marker_count %u above %u", d->marker_count,
                          CROWD_MAX_MARKERS / 2);
    for (uint32_t i = 0; i < d->marker_count; i++) {
        const crowd_bake_marker *m = &d->markers[i];
        if (!crowd_marker_name_ok(m->name))
            return crowd_fail(error, CROWD_ERROR_ARGUMENT,
                              "crowd_bake_desc.markers[%u]: name \"%.64s\" must be 1..%u letters, digits, '_', '-' "
                              "or '.'",
                              i, m->name ? m->name : "(null)", CROWD_MAX_MARKER_NAME);
        if (!m->clip)
            return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_bake_desc.markers[%u] \"%s\": no clip given", i,
                              m->name);
        if (!isfinite(m->time))
            return crowd_fail(error, CROWD_ERROR_ARGUMENT,
                              "crowd_bake_desc.markers[%u] \"%s\": time %g s is not finite", i, m->name,
                              (double)m->time);
        uint32_t clip = baked_clip_named(job, m->clip);
        if (clip == UINT32_MAX)
            return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_bake_desc.markers[%u] \"%s\": no clip named \"%s\"",
                              i, m->name, m->clip);
        const crowd_rig_clip *c = &job->rig->clips[job->clips[clip].rig_clip];
        if (!(m->time >= 0.0f && m->time <= (float)c->duration)) /* false for NaN */
            return crowd_fail(error, CROWD_ERROR_ARGUMENT,
                              "crowd_bake_desc.markers[%u] \"%s\": time %g s outside clip \"%s\" (0..%g s)", i, m->name,
                              (double)m->time, c->name, (double)(float)c->duration);
    }
    return CROWD_OK;
}

/* Per frame, the lowest point of each side of the body (x > 0 the left, x < 0 the right). */
static void lowest_per_side(const bake_job *job, const baked_clip *bc, double *low)
{
    uint32_t vc = job->rig->vertex_count;
    for (uint32_t f = 0; f < bc->frame_count; f++) {
        const float *p = job->positions + ((size_t)bc->first_frame + f) * vc * 3;
        double lo[2] = {INFINITY, INFINITY};
        for (uint32_t v = 0; v < vc; v++) {
            int side = p[3 * v] > 0.0f ? 0 : 1;
            if (p[3 * v] != 0.0f && p[3 * v + 1] < lo[side])
                lo[side] = p[3 * v + 1];
        }
        low[2 * f] = lo[0];
        low[2 * f + 1] = lo[1];
    }
}

/* One side's touchdowns over a looping cycle: walking from a frame where the foot is up, each
 * frame where it comes down. Writes their frames into `at`; returns how many (0 when the foot
 * never lifts, or when it steps implausibly often). */
static uint32_t touchdowns(const double *low, uint32_t n, int side, double height, uint32_t *at)
{
    double ground = INFINITY;
    for (uint32_t f = 0; f < n; f++)
        ground = fmin(ground, low[2 * f + side]);
    uint32_t start = UINT32_MAX;
    for (uint32_t f = 0; f < n && start == UINT32_MAX; f++)
        if (low[2 * f + side] > ground + CONTACT_OUT * height)
            start = f;
    if (start == UINT32_MAX || !isfinite(ground))
        return 0;
    uint32_t count = 0;
    bool down = false;
    for (uint32_t k = 1; k <= n; k++) {
        uint32_t f = (start + k) % n;
        double above = low[2 * f + side] - ground;
        if (!down && above <= CONTACT_IN * height) {
            if (count == MAX_FOOTSTEPS_PER_SIDE)
                return 0;
            at[count++] = f;
            down = true;
        } else if (down && above > CONTACT_OUT * height) {
            down = false;
        }
    }
    return count;
}

/* Footsteps of every looping locomotion clip, appended to job->markers (room reserved). */
static crowd_result find_footsteps(bake_job *job, crowd_error *error)
{
    double height = job->notes.height > 0.0f ? job->notes.height : (double)(job->box_max[1] - job->box_min[1]);
    for (uint32_t k = 0; k < job->clip_count; k++) {
        const baked_clip *bc = &job->clips[k];
        const crowd_rig_clip *c = &job->rig->clips[bc->rig_clip];
        if (bc->role != CROWD_ROLE_LOCOMOTION || !c->loop || bc->frame_count < 4)
            continue;
        double *low = crowd_malloc((size_t)bc->frame_count * 2 * sizeof(double));
        if (!low)
            return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "markers: out of memory");
        lowest_per_side(job, bc, low);
        for (int side = 0; side < 2; side++) {
            uint32_t at[MAX_FOOTSTEPS_PER_SIDE], n = touchdowns(low, bc->frame_count, side, height, at);
            for (uint32_t i = 0; i < n; i++) /* frame f of a loop of n frames shows phase f / n */
                job->markers[job->marker_count++] =
                    (job_marker){k, (float)(c->duration * at[i] / bc->frame_count), footstep_names[side]};
        }
        crowd_free(low);
    }
    return CROWD_OK;
}

static int by_clip_then_time(const void *a, const void *b)
{
    const job_marker *x = a, *y = b;
    if (x->clip != y->clip)
        return x->clip < y->clip ? -1 : 1;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return strcmp(x->name, y->name); /* a total order, so two bakes write the same bytes */
}

crowd_result crowd_bake_markers(bake_job *job, crowd_error *error)
{
    const crowd_bake_desc *d = job->desc;
    size_t room = d->marker_count + (d->footsteps < 0 ? 0 : (size_t)job->clip_count * 2 * MAX_FOOTSTEPS_PER_SIDE);
    if (!room)
        return CROWD_OK;
    job->markers = crowd_malloc(room * sizeof *job->markers);
    if (!job->markers)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "markers: out of memory for %zu", room);
    for (uint32_t i = 0; i < d->marker_count; i++) {
        const crowd_bake_marker *m = &d->markers[i];
        job->markers[job->marker_count++] = (job_marker){baked_clip_named(job, m->clip), m->time, m->name};
    }
    crowd_result r = d->footsteps < 0 ? CROWD_OK : find_footsteps(job, error);
    if (r != CROWD_OK)
        return r;
    if (job->marker_count > CROWD_MAX_MARKERS)
        return crowd_fail(error, CROWD_ERROR_LIMIT, "markers: %u, above %u", job->marker_count, CROWD_MAX_MARKERS);
    qsort(job->markers, job->marker_count, sizeof *job->markers, by_clip_then_time);
    return CROWD_OK;
}
