/* The baker for the page's Web Worker (bake-worker.mjs): the same glTF reader, critter capture and
 * crowd_bake as crowd-bake on the command line, with its options as JSON (the JavaScript names of
 * crowd_bake_desc's fields), progress and warnings reported as they come, and the result read back
 * through the validating loader before it is handed out, as the command-line tool does. */
#include <emscripten.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/error.h"
#include "crowdbake/bake.h"
#include "crowdbake/critters.h"
#include "crowdbake/gltf.h"
#include "crowdbake/rig.h"
#include "wasm_module.h"

EM_JS(void, cbw_report_progress, (float fraction, const char *stage), {
    if (Module.onBakeProgress)
        Module.onBakeProgress(fraction, UTF8ToString(stage));
});
EM_JS(void, cbw_report_warning, (const char *message), {
    if (Module.onBakeWarning)
        Module.onBakeWarning(UTF8ToString(message));
});

static void on_progress(void *user, float fraction, const char *stage)
{
    (void)user;
    cbw_report_progress(fraction, stage);
}

static void on_warning(void *user, const char *message)
{
    (void)user;
    cbw_report_warning(message);
}

/* What one bake holds until the next: the options' strings live in the parsed JSON. */
typedef struct bake_options {
    crowd_bake_desc desc;
    const char *clip_names[64];
    crowd_bake_clip_role roles[64];
    float lod_ratios[CROWD_MAX_LODS];
} bake_options;

static crowd_result refuse(crowd_error *error, const char *key, const char *expected)
{
    return crowd_fail(error, CROWD_ERROR_ARGUMENT, "bake option %s: expected %s", key, expected);
}

static crowd_result parse_axis(const cJSON *item, bake_options *o, crowd_error *error)
{
    static const char *const names[] = {"auto", "+z", "-z", "+x", "-x"};
    const char *text = cJSON_GetStringValue(item);
    for (int i = 0; text && i < 5; i++)
        if (!strcmp(text, names[i]))
            return o->desc.forward = (crowd_bake_forward)i, CROWD_OK;
    return refuse(error, "forward", "\"auto\", \"+z\", \"-z\", \"+x\" or \"-x\"");
}

static crowd_result parse_strings(const cJSON *item, const char **out, uint32_t *count, const char *key,
                                  crowd_error *error)
{
    const cJSON *entry;
    *count = 0;
    if (!cJSON_IsArray(item) || cJSON_GetArraySize(item) > 64)
        return refuse(error, key, "an array of up to 64 names");
    cJSON_ArrayForEach(entry, item)
    {
        if (!cJSON_IsString(entry))
            return refuse(error, key, "an array of names");
        out[(*count)++] = entry->valuestring;
    }
    return CROWD_OK;
}

static crowd_result parse_roles(const cJSON *item, bake_options *o, crowd_error *error)
{
    const cJSON *entry;
    o->desc.clip_role_count = 0;
    if (!cJSON_IsObject(item) || cJSON_GetArraySize(item) > 64)
        return refuse(error, "clipRoles", "{ clip: role }");
    cJSON_ArrayForEach(entry, item)
    {
        crowd_bake_clip_role *role = &o->roles[o->desc.clip_role_count++];
        role->clip = entry->string;
        if (!cJSON_IsString(entry) || !crowd_clip_role_parse(entry->valuestring, &role->role))
            return refuse(error, "clipRoles", "roles named locomotion, idle, action, pose or flight");
    }
    o->desc.clip_roles = o->roles;
    return CROWD_OK;
}

static crowd_result parse_ratios(const cJSON *item, bake_options *o, crowd_error *error)
{
    const cJSON *entry;
    uint32_t n = 0;
    if (!cJSON_IsArray(item) || cJSON_GetArraySize(item) > (int)CROWD_MAX_LODS)
        return refuse(error, "lodRatios", "an array of up to 8 ratios");
    cJSON_ArrayForEach(entry, item)
    {
        if (!cJSON_IsNumber(entry))
            return refuse(error, "lodRatios", "numbers");
        o->lod_ratios[n++] = (float)entry->valuedouble;
    }
    o->desc.lod_ratios = o->lod_ratios;
    if (!o->desc.lod_count)
        o->desc.lod_count = n;
    return CROWD_OK;
}

static crowd_result parse_ground(const cJSON *item, bake_options *o, crowd_error *error)
{
    if (cJSON_IsNumber(item)) {
        o->desc.ground = CROWD_GROUND_OFFSET;
        o->desc.ground_offset = (float)item->valuedouble;
    } else if (cJSON_IsString(item) && !strcmp(item->valuestring, "auto")) {
        o->desc.ground = CROWD_GROUND_AUTO;
    } else if (cJSON_IsString(item) && !strcmp(item->valuestring, "none")) {
        o->desc.ground = CROWD_GROUND_NONE;
    } else {
        return refuse(error, "ground", "\"auto\", \"none\" or an offset in metres");
    }
    return CROWD_OK;
}

/* Numbers and switches: the field each key sets. The desc's own checks bound the values. */
static crowd_result parse_scalar(const cJSON *item, bake_options *o, crowd_error *error)
{
    crowd_bake_desc *d = &o->desc;
    const char *k = item->string;
    bool *flag = !strcmp(k, "bones")      ? &d->bones
                 : !strcmp(k, "tangents") ? &d->tangents
                 : !strcmp(k, "compact")  ? &d->compact
                 : !strcmp(k, "fp16")     ? &d->fp16
                                          : NULL;
    float *real = !strcmp(k, "fps")      ? &d->fps
                  : !strcmp(k, "scale")  ? &d->scale
                  : !strcmp(k, "height") ? &d->height
                                         : NULL;
    uint32_t *whole = !strcmp(k, "frames")     ? &d->frames
                      : !strcmp(k, "lods")     ? &d->lod_count
                      : !strcmp(k, "texWidth") ? &d->tex_width
                                               : NULL;
    bool max_bytes = !strcmp(k, "maxBytes");
    if (flag)
        return cJSON_IsBool(item) ? (*flag = cJSON_IsTrue(item), CROWD_OK) : refuse(error, k, "true or false");
    if (!real && !whole && !max_bytes)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "bake options: unknown option \"%.64s\"", k);
    double v = cJSON_IsNumber(item) ? item->valuedouble : -1.0;
    if (real)
        return cJSON_IsNumber(item) ? (*real = (float)v, CROWD_OK) : refuse(error, k, "a number");
    if (whole && v >= 0 && v <= 1e9 && v == (double)(uint32_t)v)
        return *whole = (uint32_t)v, CROWD_OK;
    if (max_bytes && v >= 0 && v <= 9e15)
        return d->max_bytes = (uint64_t)v, CROWD_OK;
    return refuse(error, k, "a whole number >= 0");
}

static crowd_result parse_option(const cJSON *item, bake_options *o, crowd_error *error)
{
    const char *k = item->string;
    if (!strcmp(k, "forward"))
        return parse_axis(item, o, error);
    if (!strcmp(k, "up")) {
        const char *v = cJSON_GetStringValue(item);
        if (!v || (strcmp(v, "y") && strcmp(v, "z")))
            return refuse(error, "up", "\"y\" or \"z\"");
        return o->desc.up = v[0] == 'y' ? CROWD_UP_POS_Y : CROWD_UP_POS_Z, CROWD_OK;
    }
    if (!strcmp(k, "ground"))
        return parse_ground(item, o, error);
    if (!strcmp(k, "clips"))
        return parse_strings(item, o->clip_names, &o->desc.clip_name_count, k, error) == CROWD_OK
                   ? (o->desc.clip_names = o->clip_names, CROWD_OK)
                   : CROWD_ERROR_ARGUMENT;
    if (!strcmp(k, "clipRoles"))
        return parse_roles(item, o, error);
    if (!strcmp(k, "lodRatios"))
        return parse_ratios(item, o, error);
    return parse_scalar(item, o, error);
}

static crowd_result parse_options(const char *json, bake_options *o, cJSON **root, crowd_error *error)
{
    memset(o, 0, sizeof *o);
    *root = cJSON_Parse(json);
    if (!*root || !cJSON_IsObject(*root))
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "bake options: not a JSON object");
    const cJSON *item;
    cJSON_ArrayForEach(item, *root)
    {
        crowd_result r = parse_option(item, o, error);
        if (r != CROWD_OK)
            return r;
    }
    o->desc.warn = on_warning;
    o->desc.progress = on_progress;
    return CROWD_OK;
}

/* The source: a glTF file already in the worker's file system, "critter:KIND:SEED", or "humanoid"
 * (the built-in character crowd-bake bakes when given no file). */
static crowd_result read_source(const char *source, crowd_rig *rig, crowd_critter *critter, crowd_error *error)
{
    if (!strcmp(source, "humanoid")) {
        crowd_humanoid_desc desc = {0};
        return crowd_rig_build_humanoid(&desc, rig, error);
    }
    if (!strncmp(source, "critter:", 8)) {
        crowd_critter_desc desc;
        if (!crowd_critter_parse(source + 8, &desc))
            return crowd_fail(error, CROWD_ERROR_ARGUMENT,
                              "%.64s: not a critter (a kind from critterKinds(), then :seed)", source);
        return crowd_critter_capture(&desc, critter, error);
    }
    crowd_gltf_desc gltf = {.warn = on_warning};
    return crowd_gltf_read_file(source, &gltf, rig, error);
}

static crowd_bake_output result; /* the last bake's .crowd, until the next call */
static char *result_summary;

static void put_summary(const crowd_bake_output *out, const crowd_asset *asset)
{
    const crowd_bake_stats *s = &out->stats;
    const char *info = cbw_asset_json(asset);
    size_t room = strlen(info) + 512;
    free(result_summary);
    result_summary = malloc(room);
    if (!result_summary)
        return;
    snprintf(result_summary, room,
             "{\"asset\":%s,\"bytes\":%llu,\"predictedBytes\":%llu,\"vertices\":%u,\"triangles\":%u,\"bones\":%u,"
             "\"frames\":%u,\"lodTriangles\":[%u,%u,%u,%u,%u,%u,%u,%u],\"ms\":%.3f}",
             info, (unsigned long long)s->bytes_total, (unsigned long long)s->predicted_bytes, s->vertex_count,
             s->triangle_count, s->bone_count, s->frame_count, s->lod_triangles[0], s->lod_triangles[1],
             s->lod_triangles[2], s->lod_triangles[3], s->lod_triangles[4], s->lod_triangles[5], s->lod_triangles[6],
             s->lod_triangles[7], s->ms_total);
}

/* Bakes `source` with `options_json`; the .crowd and the summary stay valid until the next call
 * (cbw_bake_bytes, cbw_bake_summary). */
crowd_result cbw_bake(const char *source, const char *options_json, uint32_t *size, crowd_error *error)
{
    bake_options o;
    cJSON *root = NULL;
    crowd_rig rig = {0};
    crowd_critter critter = {0};
    crowd_bake_output out = {0};
    crowd_asset asset = {0};
    crowd_bake_output_free(&result);
    crowd_result r = parse_options(options_json, &o, &root, error);
    if (r == CROWD_OK)
        r = read_source(source, &rig, &critter, error);
    if (r == CROWD_OK) {
        o.desc.rig = &rig;
        r = critter.storage ? crowd_bake_frames(&critter.frames, &o.desc, &out, error)
                            : crowd_bake(&o.desc, &out, error);
    }
    if (r == CROWD_OK)
        r = crowd_asset_load_memory(&asset, out.bytes, out.size, error);
    if (r == CROWD_OK) {
        put_summary(&out, &asset);
        *size = (uint32_t)out.size;
        result = out;
        out = (crowd_bake_output){0};
    }
    crowd_asset_free(&asset);
    crowd_bake_output_free(&out);
    crowd_critter_free(&critter);
    crowd_rig_free(&rig);
    cJSON_Delete(root);
    return r;
}

const uint8_t *cbw_bake_bytes(void)
{
    return result.bytes;
}
const char *cbw_bake_summary(void)
{
    return result_summary ? result_summary : "{}";
}

/* Appends text to a JSON string under construction, quotes and backslashes escaped. */
static void put_json_text(char *out, size_t room, size_t *n, const char *text)
{
    for (const char *c = text; *c && *n + 3 < room; c++) {
        if (*c == '"' || *c == '\\')
            out[(*n)++] = '\\';
        out[(*n)++] = *c;
    }
}

/* The critter kinds, [{"name", "plan", "summary"}, ...] in crowd_critter_kind order; made once. */
const char *cbw_critter_kinds_json(void)
{
    static char json[16384];
    if (json[0])
        return json;
    size_t n = 0, room = sizeof json;
    json[n++] = '[';
    for (int k = 0; k < CROWD_CRITTER_KIND_COUNT && n + 64 < room; k++) {
        n += (size_t)snprintf(json + n, room - n, "%s{\"name\":\"", k ? "," : "");
        put_json_text(json, room, &n, crowd_critter_kind_name((crowd_critter_kind)k));
        n += (size_t)snprintf(json + n, room - n, "\",\"plan\":\"%s\",\"summary\":\"",
                              crowd_critter_kind_name(crowd_critter_kind_plan((crowd_critter_kind)k)));
        put_json_text(json, room, &n, crowd_critter_kind_summary((crowd_critter_kind)k));
        n += (size_t)snprintf(json + n, room - n, "\"}");
    }
    snprintf(json + n, room - n, "]");
    return json;
}
