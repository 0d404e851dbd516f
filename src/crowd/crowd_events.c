/* Events of one update's time step (crowd.h, "Events"): one-shots that reached their end, and clip
 * markers crossed. Both are read from the records as they stand at the update, so whoever wrote
 * them (a setter, the simulation through its door) is heard, and a one-shot something replaced is
 * simply no longer there. */
#include <math.h>

#include "core/alloc.h"
#include "crowd/crowd_internal.h"
#include "crowd/record.h"

bool crowd_events_create(crowd *c)
{
    const crowd_asset *a = c->asset;
    c->event_capacity = c->desc.event_capacity;
    c->events = crowd_malloc((size_t)c->event_capacity * sizeof *c->events);
    c->one_shots = crowd_malloc((size_t)c->capacity * sizeof *c->one_shots);
    c->one_shot_of_index = crowd_malloc((size_t)c->capacity * sizeof(uint32_t));
    c->marker_start = crowd_calloc((size_t)a->clip_count + 1, sizeof(uint32_t));
    if (!c->events || !c->one_shots || !c->one_shot_of_index || !c->marker_start)
        return false;
    for (uint32_t i = 0; i < c->capacity; i++)
        c->one_shot_of_index[i] = CROWD_HOLE;
    /* the asset keeps its markers sorted by clip (the loader sorts them): a count, then a prefix sum */
    for (uint32_t m = 0; m < a->marker_count; m++)
        if (a->markers[m].clip < a->clip_count)
            c->marker_start[a->markers[m].clip + 1]++;
    for (uint32_t k = 0; k < a->clip_count; k++)
        c->marker_start[k + 1] += c->marker_start[k];
    return true;
}

void crowd_events_destroy(crowd *c)
{
    crowd_free(c->events);
    crowd_free(c->one_shots);
    crowd_free(c->one_shot_of_index);
    crowd_free(c->marker_start);
}

void crowd_events_one_shot(crowd *c, uint32_t index, uint32_t clip)
{
    uint32_t e = c->one_shot_of_index[index];
    if (e == CROWD_HOLE) {
        e = c->one_shot_count++;
        c->one_shot_of_index[index] = e;
    }
    c->one_shots[e] = (crowd_one_shot){index, clip};
}

void crowd_events_forget(crowd *c, uint32_t index)
{
    uint32_t e = c->one_shot_of_index[index];
    if (e == CROWD_HOLE)
        return;
    c->one_shot_of_index[index] = CROWD_HOLE;
    uint32_t last = --c->one_shot_count; /* the last entry fills the gap */
    if (e != last) {
        c->one_shots[e] = c->one_shots[last];
        c->one_shot_of_index[c->one_shots[e].index] = e;
    }
}

void crowd_events_moved(crowd *c, uint32_t from, uint32_t to)
{
    crowd_events_forget(c, to);
    uint32_t e = c->one_shot_of_index[from];
    if (e == CROWD_HOLE)
        return;
    c->one_shot_of_index[from] = CROWD_HOLE;
    c->one_shot_of_index[to] = e;
    c->one_shots[e].index = to;
}

static void emit(crowd *c, crowd_event e)
{
    if (c->frame.event_count < c->event_capacity)
        c->events[c->frame.event_count++] = e;
    else
        c->frame.stats.events_dropped++;
}

/* One clip's phase words in a record: phase(t) = offset + t * rate. */
typedef struct clip_phase {
    double offset, rate;
    bool hold;
} clip_phase;

static clip_phase phase_of(const crowd_record *r, int which)
{
    if (which)
        return (clip_phase){r->offset_b, r->rate_b, (r->clips & CROWD_RECORD_HOLD_B) != 0};
    return (clip_phase){r->offset_a, r->rate_a, (r->clips & CROWD_RECORD_HOLD_A) != 0};
}

/* B's weight at time t of a running fade (the shaders' clamp((t - fade_start) * fade_rate, 0, 1)). */
static double fade_weight(const crowd_record *r, double t)
{
    double w = (t - r->fade_start) * r->fade_rate;
    return w < 0.0 ? 0.0 : w > 1.0 ? 1.0 : w;
}

/* Where a one-shot still plays in its record: clip B while a fade goes to it, else clip A. -1: it
 * was replaced (a turn's clip B words are no clip). */
static int one_shot_part(const crowd_record *r, uint32_t clip)
{
    bool fading = r->fade_rate > 0.0f && !crowd_rec_turning(r);
    if (fading && (r->clips & CROWD_RECORD_HOLD_B) && crowd_rec_clip_b(r) == clip)
        return 1;
    if ((r->clips & CROWD_RECORD_HOLD_A) && crowd_rec_clip_a(r) == clip)
        return 0;
    return -1;
}

/* Whether one-shot entry e is done with (finished or replaced); reports a finish in [t0, t1]. */
static bool finish_one_shot(crowd *c, const crowd_one_shot *e, double t0, double t1)
{
    const crowd_record *r = &c->records[crowd_slot_of(c, e->index)];
    int part = one_shot_part(r, e->clip);
    if (part < 0)
        return true;
    clip_phase p = phase_of(r, part);
    double end = p.rate > 0.0 ? 1.0 : 0.0, u1 = p.offset + t1 * p.rate;
    if (p.rate == 0.0 || (p.rate > 0.0 ? u1 < end : u1 > end))
        return false;
    double t = (end - p.offset) / p.rate;
    t = t < t0 ? t0 : t > t1 ? t1 : t;
    bool fading_out = part == 0 && r->fade_rate > 0.0f && !crowd_rec_turning(r);
    if (fading_out && fade_weight(r, t) >= 1.0) /* faded out before its end: replaced */
        return true;
    uint32_t detail = fading_out ? CROWD_FINISHED_FADING_OUT : CROWD_FINISHED_HOLDING;
    emit(c, (crowd_event){CROWD_EVENT_FINISHED, e->index, e->clip, detail, (float)t});
    return true;
}

static void collect_finishes(crowd *c, double t0, double t1)
{
    for (uint32_t e = 0; e < c->one_shot_count;) {
        crowd_one_shot entry = c->one_shots[e];
        if (finish_one_shot(c, &entry, t0, t1))
            crowd_events_forget(c, entry.index); /* the last entry moves into e: look at e again */
        else
            e++;
    }
}

/* Crossings of marker phase m by phase(t) over (ta, tb]: the integers k with m + k in (u0, u1]
 * (forwards) or [u1, u0) (backwards); a held clip has k = 0 only. Emits them in order of k while
 * there is room, and counts the rest as dropped without walking them. */
static void cross_marker(crowd *c, crowd_event e, double m, clip_phase p, double ta, double tb)
{
    double u0 = p.offset + ta * p.rate, u1 = p.offset + tb * p.rate;
    double first, last; /* k range, inclusive */
    if (p.rate > 0.0) {
        first = floor(u0 - m) + 1.0;
        last = floor(u1 - m);
    } else {
        first = ceil(u1 - m);
        last = ceil(u0 - m) - 1.0;
    }
    if (p.hold) {
        first = first > 0.0 ? first : 0.0;
        last = last < 0.0 ? last : 0.0;
    }
    for (double k = first; k <= last; k++) {
        if (c->frame.event_count == c->event_capacity) {
            c->frame.stats.events_dropped += (uint32_t)fmin(last - k + 1.0, (double)UINT32_MAX);
            return;
        }
        double t = (m + k - p.offset) / p.rate;
        e.time = (float)(t < ta ? ta : t > tb ? tb : t);
        emit(c, e);
    }
}

/* floor for |x| < 2^62 without a libm call (the x86-64 baseline has no rounding instruction). */
static inline double floor_fast(double x)
{
    int64_t i = (int64_t)x;
    return (double)(i - (x < (double)i));
}

/* One clip of a record over (ta, tb]: each of its markers. The common case, a looping clip that
 * moves less than a cycle, takes the phase's fraction once and each marker's distance ahead of it
 * (behind it, backwards): crossed when that distance, in (0, 1], is within the step's span. The
 * span is the difference of the two phases computed as the neighbouring steps compute them, so a
 * crossing at a step's boundary falls in one step only. */
static void cross_clip(crowd *c, uint32_t index, uint32_t clip, clip_phase p, double ta, double tb)
{
    if (p.rate == 0.0 || !(tb > ta) || clip >= c->asset->clip_count)
        return;
    uint32_t first = c->marker_start[clip], end = c->marker_start[clip + 1];
    double u0 = p.offset + ta * p.rate, u1 = p.offset + tb * p.rate;
    double span = p.rate > 0.0 ? u1 - u0 : u0 - u1;
    if (p.hold || !(span < 1.0) || !(fabs(u0) < 1e15)) {
        for (uint32_t m = first; m < end; m++)
            cross_marker(c, (crowd_event){CROWD_EVENT_MARKER, index, clip, m, 0.0f}, c->asset->markers[m].phase, p, ta,
                         tb);
        return;
    }
    double f0 = u0 - floor_fast(u0), speed = fabs(p.rate);
    for (uint32_t m = first; m < end; m++) {
        double phase = c->asset->markers[m].phase, ahead = p.rate > 0.0 ? phase - f0 : f0 - phase;
        ahead += ahead <= 0.0 ? 1.0 : 0.0;
        if (ahead <= span) {
            double t = ta + ahead / speed;
            emit(c, (crowd_event){CROWD_EVENT_MARKER, index, clip, m, (float)(t < tb ? t : tb)});
        }
    }
}

/* A record's markers over (t0, t1]: clip A's, or during a fade clip A's until it is half way and
 * clip B's from then (the clip that shows more). */
static void collect_record_markers(crowd *c, const crowd_record *r, uint32_t index, double t0, double t1)
{
    if (r->fade_rate > 0.0f && !crowd_rec_turning(r)) {
        double half = r->fade_start + 0.5 / r->fade_rate;
        double split = half < t0 ? t0 : half > t1 ? t1 : half;
        cross_clip(c, index, crowd_rec_clip_a(r), phase_of(r, 0), t0, split);
        cross_clip(c, index, crowd_rec_clip_b(r), phase_of(r, 1), split, t1);
        return;
    }
    cross_clip(c, index, crowd_rec_clip_a(r), phase_of(r, 0), t0, t1);
}

void crowd_events_collect(crowd *c, double t0, double t1)
{
    c->frame.events = c->events;
    c->frame.event_count = 0;
    if (c->one_shot_count)
        collect_finishes(c, t0, t1);
    if (c->desc.marker_events > 0 && c->asset->marker_count && t1 > t0)
        for (uint32_t s = 0; s < c->slots; s++)
            if (c->index_of_slot[s] < c->count)
                collect_record_markers(c, &c->records[s], c->index_of_slot[s], t0, t1);
    c->frame.stats.events = c->frame.event_count;
    c->frame.stats.one_shots = c->one_shot_count;
}

void crowd_events_shift(crowd *c, double by)
{
    for (uint32_t i = 0; i < c->frame.event_count; i++)
        c->events[i].time = (float)((double)c->events[i].time - by);
}
