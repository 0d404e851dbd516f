/* An asset described for JavaScript: what a web developer inspects before making a crowd (the clips
 * and their roles, sockets, LODs, bounds, what the bake decided). Names are escaped as JSON strings;
 * bytes that are not printable ASCII become \u00XX, so the text is valid whatever the file holds. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "crowdbake/asset.h"
#include "wasm_module.h"

typedef struct text {
    char *data;
    size_t used, room;
    int failed;
} text;

static void put(text *t, const char *format, ...)
{
    if (t->failed)
        return;
    for (;;) {
        va_list args;
        va_start(args, format);
        int n = vsnprintf(t->data + t->used, t->room - t->used, format, args);
        va_end(args);
        if (n < 0) {
            t->failed = 1;
            return;
        }
        if (t->used + (size_t)n < t->room) {
            t->used += (size_t)n;
            return;
        }
        size_t room = 2 * t->room + (size_t)n + 1;
        char *grown = realloc(t->data, room);
        if (!grown) {
            t->failed = 1;
            return;
        }
        t->data = grown, t->room = room;
    }
}

static void put_string(text *t, const char *s)
{
    put(t, "\"");
    for (const unsigned char *c = (const unsigned char *)(s ? s : ""); *c; c++) {
        if (*c == '"' || *c == '\\')
            put(t, "\\%c", *c);
        else if (*c < 0x20 || *c > 0x7e)
            put(t, "\\u%04x", *c);
        else
            put(t, "%c", *c);
    }
    put(t, "\"");
}

/* A clip's markers: {index (into the asset's markers, as events name them), name, time, phase}. */
static void put_markers(text *t, const crowd_asset *a, uint32_t clip)
{
    uint32_t first = 0, count = crowd_asset_clip_markers(a, clip, &first);
    for (uint32_t m = first; m < first + count; m++) {
        put(t, "%s{\"index\":%u,\"name\":", m > first ? "," : "", m);
        put_string(t, a->markers[m].name);
        put(t, ",\"time\":%.9g,\"phase\":%.9g}", a->markers[m].time, a->markers[m].phase);
    }
}

static void put_clips(text *t, const crowd_asset *a)
{
    put(t, "\"clips\":[");
    for (uint32_t i = 0; i < a->clip_count; i++) {
        const crowd_clip *c = &a->clips[i];
        put(t, "%s{\"name\":", i ? "," : "");
        put_string(t, c->name);
        put(t, ",\"role\":\"%s\",\"frames\":%u,\"duration\":%.9g,\"stride\":%.9g,\"loop\":%s,\"markers\":[",
            crowd_clip_role_name(crowd_clip_role_of(c)), c->frame_count, c->duration, c->stride,
            (c->flags & CROWD_CLIP_LOOP) ? "true" : "false");
        put_markers(t, a, i);
        put(t, "]}");
    }
    put(t, "]");
}

static void put_named(text *t, const char *key, uint32_t count, const char *(*name_of)(const crowd_asset *, uint32_t),
                      const crowd_asset *a)
{
    put(t, ",\"%s\":[", key);
    for (uint32_t i = 0; i < count; i++) {
        put(t, i ? "," : "");
        put_string(t, name_of(a, i));
    }
    put(t, "]");
}

static const char *socket_name(const crowd_asset *a, uint32_t i)
{
    return a->sockets[i].name;
}
static const char *bone_name(const crowd_asset *a, uint32_t i)
{
    return a->bones_info[i].name;
}
static const char *region_name(const crowd_asset *a, uint32_t i)
{
    return a->regions_info[i].name;
}

static void put_lods(text *t, const crowd_asset *a)
{
    put(t, ",\"lods\":[");
    for (uint32_t i = 0; i < a->lod_count; i++)
        put(t, "%s{\"triangles\":%u,\"screenCoverage\":%.9g}", i ? "," : "", a->lods[i].triangle_count,
            a->lods[i].screen_coverage);
    put(t, "]");
}

static void put_bounds(text *t, const crowd_asset *a)
{
    put(t,
        ",\"bounds\":{\"min\":[%.9g,%.9g,%.9g],\"max\":[%.9g,%.9g,%.9g],\"sphereCenterY\":%.9g,\"sphereRadius\":%.9g}",
        a->bounds_min[0], a->bounds_min[1], a->bounds_min[2], a->bounds_max[0], a->bounds_max[1], a->bounds_max[2],
        a->sphere_center_y, a->sphere_radius);
}

static void put_notes(text *t, const crowd_asset *a)
{
    static const char *const axes[] = {"+Z", "-Z", "+X", "-X", "+Y", "-Y"};
    static const char *const decisions[] = {"default", "detected", "given"};
    static const char *const bone_modes[] = {"none", "exact", "approximate", "unavailable"};
    crowd_bake_notes n;
    if (!crowd_asset_bake_notes(a, &n))
        return put(t, ",\"notes\":null");
    put(t,
        ",\"notes\":{\"forward\":\"%s\",\"forwardDecision\":\"%s\",\"up\":\"%s\",\"height\":%.9g,"
        "\"scaleDecision\":\"%s\",\"groundOffset\":%.9g,\"hover\":%.9g,\"boneMode\":\"%s\",\"boneError\":%.9g}",
        axes[(unsigned)n.forward % 6], decisions[(unsigned)n.forward_decision % 3], axes[(unsigned)n.up % 6], n.height,
        decisions[(unsigned)n.scale_decision % 3], n.ground_offset, n.hover, bone_modes[(unsigned)n.bone_mode % 4],
        n.bone_error);
}

const char *cbw_asset_json(const crowd_asset *a)
{
    static text t;
    t.used = 0, t.failed = 0;
    put(&t, "{\"vertexCount\":%u,\"frameCount\":%u,\"hasBones\":%s,\"hasAlbedo\":%s,\"imposters\":%s,", a->vertex_count,
        a->frame_count, (a->flags & CROWD_ASSET_HAS_BONES) ? "true" : "false",
        (a->flags & CROWD_ASSET_HAS_ALBEDO) ? "true" : "false", a->imposters.frames ? "true" : "false");
    put(&t, "\"source\":");
    put_string(&t, a->source_name);
    put(&t, ",\"unitScale\":%.9g,", a->unit_scale);
    put_clips(&t, a);
    put_named(&t, "sockets", a->socket_count, socket_name, a);
    put_named(&t, "bones", a->bone_count, bone_name, a);
    put_named(&t, "regions", a->region_count, region_name, a);
    put_lods(&t, a);
    put_bounds(&t, a);
    put_notes(&t, a);
    put(&t, "}");
    return t.failed ? "" : t.data;
}
