/* The file size a bake predicts from its layout alone, and the advice of a size refusal: which
 * change of the options would bring the file under max_bytes, each with the size predicted for it
 * by the same arithmetic the bake checks, so every suggestion applied bakes. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bake/bake_job.h"
#include "bake/layout.h"

uint32_t crowd_bake_clip_frames(const crowd_rig_clip *c, double fps, uint32_t fixed)
{
    if (c->duration <= 0.0)
        return 1;
    if (fixed)
        return fixed;
    long n = lround(c->duration * fps) + (c->loop ? 0 : 1);
    return n < 2 ? 2u : (uint32_t)n;
}

uint64_t crowd_bake_predict_bytes(const bake_job *job, uint64_t frames, bake_size_options o)
{
    const crowd_rig *rig = job->rig;
    uint32_t width = job->desc->tex_width ? job->desc->tex_width : 4096, w, h, bone_w = 0, bone_h = 0;
    if (crowd_layout_texture(frames * rig->vertex_count, width, "animation", &w, &h, NULL) != CROWD_OK ||
        (o.bones &&
         crowd_layout_texture(frames * rig->bone_count * 3, width, "bone", &bone_w, &bone_h, NULL) != CROWD_OK))
        return UINT64_MAX; /* does not fit a texture at all */
    uint64_t per_texel = 8u + (o.compact ? 0u : 4u) + (o.tangents ? 4u : 0u);
    uint64_t vertex = 12u + 12u + (rig->uvs ? 8u : 0u) + (rig->colors ? 4u : 0u) + 1u + (o.bones ? 16u : 0u);
    return (uint64_t)w * h * per_texel + (uint64_t)bone_w * bone_h * 16 + (uint64_t)rig->vertex_count * vertex +
           (uint64_t)rig->index_count * 4 * 2 + (uint64_t)rig->albedo_width * rig->albedo_height * 4 + 65536;
}

/* Frames of the job's clips sampled at `fps`, or `fixed` each (the clips a bake keeps: `kept`, one
 * flag per job clip, NULL for all). */
static uint64_t frames_at(const bake_job *job, double fps, uint32_t fixed, const bool *kept)
{
    uint64_t frames = 0;
    for (uint32_t i = 0; i < job->clip_count; i++)
        if (!kept || kept[i])
            frames += crowd_bake_clip_frames(&job->rig->clips[job->clips[i].rig_clip], fps, fixed);
    return frames;
}

/* The highest fps below the job's (or frame count below desc->frames) at which the bake fits under
 * `limit` with options `o`: its size, and the value in *value; UINT64_MAX and 0 where none does. */
static uint64_t lower_rate(const bake_job *job, bake_size_options o, uint64_t limit, uint32_t *value)
{
    uint32_t fixed = job->desc->frames;
    uint32_t top = fixed ? fixed - 1 : (uint32_t)ceil(job->fps) - 1;
    for (uint32_t v = top; v >= (fixed ? 2u : 1u) && v <= top; v--) {
        uint64_t bytes = crowd_bake_predict_bytes(job, frames_at(job, v, fixed ? v : 0, NULL), o);
        if (bytes <= limit) {
            *value = v;
            return bytes;
        }
    }
    *value = 0;
    return UINT64_MAX;
}

/* Drops the clips with the most frames, one at a time, until the bake fits (keeping one at least):
 * the clips kept in *kept, its size (UINT64_MAX where even one clip is too big), at `fps` or `fixed`
 * frames each. */
static uint64_t fewer_clips(const bake_job *job, bake_size_options o, double fps, uint32_t fixed, uint64_t limit,
                            bool *kept)
{
    uint32_t left = job->clip_count;
    for (uint32_t i = 0; i < job->clip_count; i++)
        kept[i] = true;
    while (left > 1) {
        uint32_t most = UINT32_MAX;
        for (uint32_t i = 0; i < job->clip_count; i++)
            if (kept[i] && (most == UINT32_MAX || job->clips[i].frame_count > job->clips[most].frame_count))
                most = i;
        kept[most] = false;
        left--;
        uint64_t bytes = crowd_bake_predict_bytes(job, frames_at(job, fps, fixed, kept), o);
        if (bytes <= limit)
            return bytes;
    }
    return UINT64_MAX;
}

typedef struct advice_text {
    char *s;
    size_t size, n;
    uint32_t items;
} advice_text;

static void append(advice_text *t, const char *format, ...) __attribute__((format(printf, 2, 3)));
static void append(advice_text *t, const char *format, ...)
{
    if (t->n + 1 >= t->size)
        return;
    va_list args;
    va_start(args, format);
    int wrote = vsnprintf(t->s + t->n, t->size - t->n, format, args);
    va_end(args);
    t->n += wrote < 0 ? 0 : (size_t)wrote < t->size - t->n ? (size_t)wrote : t->size - t->n - 1;
}

/* One option and the size it predicts. */
static void say(advice_text *t, const char *text, uint64_t bytes)
{
    double mb = bytes / 1048576.0; /* (small limits need the second decimal to read as over or under) */
    append(t, "%s%s (%.*f MB)", t->items++ ? "; " : "", text, mb < 10.0 ? 2 : 1, mb);
}

/* "crowd_bake_desc.clip_names a,b" for the clips kept, cut short with ",..." (then only an example)
 * past 180 characters: the message holds the other options too. */
static void kept_names(const bake_job *job, const bool *kept, char *out, size_t size)
{
    static const char field[] = "crowd_bake_desc.clip_names ";
    size_t cap = size < 180 ? size : 180, n = sizeof field - 1; /* (callers give 100 bytes at least) */
    memcpy(out, field, sizeof field);
    for (uint32_t i = 0, first = 1; i < job->clip_count; i++) {
        if (!kept[i])
            continue;
        const char *name = job->rig->clips[job->clips[i].rig_clip].name;
        size_t length = strlen(name);
        // cppcheck-suppress knownConditionTrueFalse ; false positive: cap is 100..180, names of any length
        if (n + length + 6 >= cap) { /* a comma, the name and ",..." would not fit */
            memcpy(out + n, ",...", 5);
            return;
        }
        if (!first)
            out[n++] = ',';
        memcpy(out + n, name, length + 1);
        n += length;
        first = 0;
    }
}

/* The cheapest options first: compact keeps everything, tangents and bones are features. */
static bake_size_options reduced(const bake_job *job, int stage)
{
    const crowd_bake_desc *d = job->desc;
    return (bake_size_options){.compact = d->compact || (!d->fp16 && stage >= 1),
                               .tangents = d->tangents && stage < 2,
                               .bones = d->bones && stage < 3};
}

static int reduction_text(const bake_job *job, bake_size_options o, char *out, size_t size)
{
    const crowd_bake_desc *d = job->desc;
    return snprintf(out, size, "%s%s%s", o.compact && !d->compact ? "crowd_bake_desc.compact, " : "",
                    d->tangents && !o.tangents ? "without crowd_bake_desc.tangents, " : "",
                    d->bones && !o.bones ? "without crowd_bake_desc.bones, " : "");
}

/* No single option fits: the first stage of reductions (compact, then no tangents, then no bones)
 * at which a lower fps or frame count fits; else all of them at the lowest rate with the clips that
 * fit; else the smallest bake of all (one clip), said to be still over. `kept`: scratch. */
static void combined(const bake_job *job, uint64_t limit, advice_text *t, bool *kept)
{
    const char *rate = job->desc->frames ? "crowd_bake_desc.frames" : "crowd_bake_desc.fps";
    char text[256];
    for (int stage = 1; stage <= 3; stage++) { /* (stage 0, the rate alone, was a single option) */
        bake_size_options o = reduced(job, stage);
        uint32_t value;
        uint64_t bytes = lower_rate(job, o, limit, &value);
        if (bytes == UINT64_MAX)
            continue;
        int n = reduction_text(job, o, text, sizeof text);
        snprintf(text + n, sizeof text - (size_t)n, "%s %u", rate, value);
        append(t, "no single option fits; together: ");
        say(t, text, bytes);
        return;
    }
    bake_size_options o = reduced(job, 3);
    uint32_t lowest = job->desc->frames ? 2u : 1u, fixed = job->desc->frames ? 2u : 0u;
    int n = reduction_text(job, o, text, sizeof text);
    uint64_t bytes = job->clip_count > 1 ? fewer_clips(job, o, lowest, fixed, limit, kept) : UINT64_MAX;
    if (bytes != UINT64_MAX) {
        n += snprintf(text + n, sizeof text - (size_t)n, "%s %u, ", rate, lowest);
        kept_names(job, kept, text + n, sizeof text - (size_t)n);
        append(t, "no single option fits; together: ");
        say(t, text, bytes);
        return;
    }
    uint64_t frames = UINT64_MAX;
    for (uint32_t i = 0; i < job->clip_count; i++) { /* the single clip with the fewest frames */
        uint64_t f = crowd_bake_clip_frames(&job->rig->clips[job->clips[i].rig_clip], lowest, fixed);
        frames = f < frames ? f : frames;
    }
    snprintf(text + n, sizeof text - (size_t)n, "%s %u and one clip", rate, lowest);
    append(t, "nothing fits; the smallest bake, ");
    say(t, text, crowd_bake_predict_bytes(job, frames, o));
    append(t, ", is still over: raise crowd_bake_desc.max_bytes");
}

void crowd_bake_size_advice(const bake_job *job, uint64_t limit, char *out, size_t size)
{
    bool kept[CROWD_MAX_CLIPS];
    const crowd_bake_desc *d = job->desc;
    advice_text t = {out, size, 0, 0};
    out[0] = '\0';
    bake_size_options now = reduced(job, 0), o = now;
    uint64_t frames = job->frame_count, bytes;
    append(&t, "each of these alone fits: ");
    char text[256];
    uint32_t value;
    if ((bytes = lower_rate(job, now, limit, &value)) != UINT64_MAX) {
        snprintf(text, sizeof text, "%s %u", d->frames ? "crowd_bake_desc.frames" : "crowd_bake_desc.fps", value);
        say(&t, text, bytes);
    }
    o.compact = !d->fp16;
    if (!d->compact && o.compact && (bytes = crowd_bake_predict_bytes(job, frames, o)) <= limit)
        say(&t, "crowd_bake_desc.compact", bytes);
    o = now;
    o.tangents = false;
    if (d->tangents && (bytes = crowd_bake_predict_bytes(job, frames, o)) <= limit)
        say(&t, "without crowd_bake_desc.tangents", bytes);
    o = now;
    o.bones = false;
    if (d->bones && (bytes = crowd_bake_predict_bytes(job, frames, o)) <= limit)
        say(&t, "without crowd_bake_desc.bones (no bone mode)", bytes);
    if (job->clip_count > 1 && (bytes = fewer_clips(job, now, job->fps, d->frames, limit, kept)) != UINT64_MAX) {
        kept_names(job, kept, text, sizeof text);
        say(&t, text, bytes);
    }
    if (t.items)
        return;
    t.n = 0;
    out[0] = '\0';
    combined(job, limit, &t, kept);
}
