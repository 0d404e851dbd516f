#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "tool_support.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "common/utf8.h"
#include "core/error.h"
#include "core/file_read.h"
#include "crowdbake/bake.h"

/* strtoull/strtod skip leading white space and strtoull negates "-5" into a huge value: a number
 * on our command lines starts with a digit (or, for floats, a sign or a point). */
bool tool_parse_u32(const char *text, uint32_t min, uint32_t max, uint32_t *out)
{
    if (!text || !(*text >= '0' && *text <= '9'))
        return false;
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || *end || v < min || v > max)
        return false;
    *out = (uint32_t)v;
    return true;
}

bool tool_parse_u64(const char *text, uint64_t *out)
{
    if (!text || !(*text >= '0' && *text <= '9'))
        return false;
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || *end)
        return false;
    *out = (uint64_t)v;
    return true;
}

static bool float_start(const char *text)
{
    const char *p = text + (*text == '-' || *text == '+');
    return (*p >= '0' && *p <= '9') || (*p == '.' && p[1] >= '0' && p[1] <= '9');
}

bool tool_parse_float(const char *text, float min, float max, float *out)
{
    if (!text || !float_start(text))
        return false;
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    /* ERANGE also flags underflow to a denormal: refused, nothing on a command line needs 1e-320 */
    if (errno || *end || !isfinite(v) || !(v >= min && v <= max) || !isfinite((float)v))
        return false;
    *out = (float)v;
    return true;
}

bool tool_parse_floats(const char *text, uint32_t count, float min, float max, float *out)
{
    if (!text)
        return false;
    uint32_t n = 0;
    char **items = tool_split_list(text, &n);
    bool ok = items && n == count;
    float values[16];
    for (uint32_t i = 0; ok && i < n && i < 16; i++)
        ok = tool_parse_float(items[i], min, max, &values[i]);
    free(items);
    if (!ok || count > 16)
        return false;
    memcpy(out, values, count * sizeof *out);
    return true;
}

bool tool_parse_size(const char *text, uint32_t min, uint32_t max, uint32_t *width, uint32_t *height)
{
    const char *x = text ? strchr(text, 'x') : NULL;
    if (!x || x == text || strchr(x + 1, 'x'))
        return false;
    char w[16];
    size_t n = (size_t)(x - text);
    if (n >= sizeof w)
        return false;
    memcpy(w, text, n);
    w[n] = '\0';
    uint32_t a, b;
    if (!tool_parse_u32(w, min, max, &a) || !tool_parse_u32(x + 1, min, max, &b))
        return false;
    *width = a;
    *height = b;
    return true;
}

/* The file `path` names (*name NULL), or when there is none yet its directory and *name the last
 * component; false when neither can be looked at. */
static bool identify(const char *path, struct stat *info, const char **name)
{
    *name = NULL;
    if (stat(path, info) == 0)
        return true;
    const char *slash = strrchr(path, '/');
    char dir[4096];
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (snprintf(dir, sizeof dir, "%.*s", slash == path ? 1 : (int)(slash - path), path) >= (int)sizeof dir)
        return false;
    *name = slash ? slash + 1 : path;
    return stat(dir, info) == 0;
}

bool tool_same_file(const char *a, const char *b)
{
    if (!strcmp(a, b))
        return true;
    struct stat ia, ib;
    const char *na, *nb;
    if (!identify(a, &ia, &na) || !identify(b, &ib, &nb) || (na == NULL) != (nb == NULL))
        return false;
    return ia.st_dev == ib.st_dev && ia.st_ino == ib.st_ino && (!na || !strcmp(na, nb));
}

int tool_missing_value(const char *tool, const char *flag)
{
    fprintf(stderr, "%s: missing value for %s (see --help)\n", tool, flag);
    return 2;
}

/* The desc fields the tools' flags set, as the library's messages name them. */
static const struct {
    const char *field, *flag;
} field_flags[] = {
    {"crowd_bake_desc.fps", "--fps"},
    {"crowd_bake_desc.frames", "--frames"},
    {"crowd_bake_desc.clip_names", "--clips"},
    {"crowd_bake_desc.lod_count", "--lods"},
    {"crowd_bake_desc.lod_ratios", "--lod-ratios"},
    {"crowd_bake_desc.bones", "--bones"},
    {"crowd_bake_desc.tangents", "--tangents"},
    {"crowd_bake_desc.compact", "--compact"},
    {"crowd_bake_desc.fp16", "--fp16"},
    {"crowd_bake_desc.scale", "--scale"},
    {"crowd_bake_desc.tex_width", "--tex-width"},
    {"crowd_bake_desc.forward", "--forward"},
    {"crowd_bake_desc.up", "--up"},
    {"crowd_bake_desc.height", "--height"},
    {"crowd_bake_desc.ground_offset", "--ground"},
    {"crowd_bake_desc.clip_roles", "--clip-role"},
    {"crowd_bake_desc.markers", "--marker"},
    /* a limit keeps its name beside the flag: "exceeds --max-bytes 1000 bytes" reads as a flag */
    {"crowd_bake_desc.max_bytes", "max_bytes (--max-bytes)"},
    {"crowd_gltf_desc.skin", "--skin"},
    {"crowd_gltf_desc.sockets", "--socket"},
    {"crowd_gltf_write_desc.fps", "--fps"},
};

static bool identifier_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* The flag of the field `text` starts with (a whole identifier), and the field's length. */
static const char *flag_at(const char *text, size_t *length)
{
    for (size_t k = 0; k < sizeof field_flags / sizeof field_flags[0]; k++) {
        size_t n = strlen(field_flags[k].field);
        if (!strncmp(text, field_flags[k].field, n) && !identifier_char(text[n])) {
            *length = n;
            return field_flags[k].flag;
        }
    }
    return NULL;
}

const char *tool_flag_text(const char *message, char *out, size_t size)
{
    if (!size)
        return out;
    size_t n = 0;
    for (const char *m = message; *m && n + 1 < size;) {
        size_t length = 0;
        const char *flag = (m == message || !identifier_char(m[-1])) ? flag_at(m, &length) : NULL;
        if (!flag) {
            out[n++] = *m++;
            continue;
        }
        for (; *flag && n + 1 < size; flag++)
            out[n++] = *flag;
        m += length;
    }
    out[n] = '\0';
    return out;
}

void tool_print_error(const char *tool, const char *message)
{
    char text[1024];
    fprintf(stderr, "%s: %s\n", tool, tool_flag_text(message, text, sizeof text));
}

int tool_finish_stdout(const char *tool, int status)
{
    /* a full disk or a closed pipe shows up only here: the printf calls before buffered it */
    errno = 0;
    bool failed = fflush(stdout) != 0 || ferror(stdout);
    int e = errno;
    failed = fclose(stdout) != 0 || failed;
    if (!e)
        e = errno;
    if (failed) {
        fprintf(stderr, "%s: cannot write the output: %s\n", tool, e ? strerror(e) : "write error");
        return status ? status : 1;
    }
    return status;
}

char **tool_split_list(const char *text, uint32_t *count)
{
    *count = 0;
    if (!text || !*text)
        return NULL;
    size_t len = strlen(text);
    uint32_t items = 1;
    for (size_t i = 0; i < len; i++)
        items += text[i] == ',';
    char **list = malloc((items + 1) * sizeof(char *) + len + 1);
    if (!list)
        return NULL;
    char *copy = (char *)(list + items + 1);
    memcpy(copy, text, len + 1);
    uint32_t n = 0;
    for (char *item = copy;; item++) {
        char *comma = strchr(item, ',');
        if (comma)
            *comma = '\0';
        if (!*item) {
            free(list);
            return NULL;
        }
        list[n++] = item;
        if (!comma)
            break;
        item = comma;
    }
    list[n] = NULL;
    *count = n;
    return list;
}

static void print_warning(void *user, const char *message)
{
    char text[1024];
    fprintf(stderr, "%s: warning: %s\n", user ? (const char *)user : "crowdbake",
            tool_flag_text(message, text, sizeof text));
}

crowd_result tool_load_rig(const char *input, float density, const crowd_gltf_desc *gltf, crowd_rig *rig,
                           crowd_error *error)
{
    if (!input) {
        crowd_humanoid_desc desc = {.density = density};
        return crowd_rig_build_humanoid(&desc, rig, error);
    }
    crowd_gltf_desc desc = gltf ? *gltf : (crowd_gltf_desc){0};
    if (!desc.warn)
        desc.warn = print_warning;
    return crowd_gltf_read_file(input, &desc, rig, error);
}

static void ignore_warning(void *user, const char *message)
{
    (void)user, (void)message;
}

bool tool_is_frames_dump(const char *path)
{
    FILE *f = crowd_file_open_read(path, NULL);
    char magic[8] = {0};
    bool yes = f && fread(magic, 1, 8, f) == 8 && !memcmp(magic, "CRWDFRMS", 8);
    if (f)
        fclose(f);
    return yes;
}

crowd_result tool_load_frames(const char *critter_spec, const char *dump_path, tool_frames *out, crowd_error *error)
{
    memset(out, 0, sizeof *out);
    crowd_result r;
    if (critter_spec) {
        crowd_critter_desc desc;
        if (!crowd_critter_parse(critter_spec, &desc))
            return crowd_fail(
                error, CROWD_ERROR_ARGUMENT,
                "critter \"%.80s\": expected KIND or KIND:SEED (crowd-bake --critter list names the kinds)",
                critter_spec);
        r = crowd_critter_capture(&desc, &out->critter, error);
        out->frames = &out->critter.frames;
    } else {
        r = crowd_frames_dump_read_file(dump_path, &out->dump, error);
        out->frames = &out->dump.frames;
    }
    if (r != CROWD_OK)
        out->frames = NULL;
    return r;
}

void tool_frames_free(tool_frames *f)
{
    crowd_critter_free(&f->critter);
    crowd_frames_dump_free(&f->dump);
    f->frames = NULL;
}

/* A frames source as a rig (for crowd-verify). */
static crowd_result frames_rig(const char *critter_spec, const char *dump_path, crowd_rig *rig, crowd_error *error)
{
    tool_frames f;
    crowd_result r = tool_load_frames(critter_spec, dump_path, &f, error);
    if (r == CROWD_OK)
        r = crowd_rig_from_frames(f.frames, rig, error);
    tool_frames_free(&f);
    return r;
}

crowd_result tool_load_source_rig(const crowd_asset *asset, const char *source_override, crowd_rig *rig,
                                  crowd_error *error)
{
    /* the bake already showed the source's warnings */
    crowd_gltf_desc quiet = {.warn = ignore_warning};
    crowd_critter_desc critter;
    if (source_override && crowd_critter_parse(source_override, &critter))
        return frames_rig(source_override, NULL, rig, error);
    if (source_override && tool_is_frames_dump(source_override))
        return frames_rig(NULL, source_override, rig, error);
    if (source_override)
        return tool_load_rig(source_override, 0.0f, &quiet, rig, error);
    if (asset->source_kind == CROWD_SOURCE_FRAMES) {
        if (!strncmp(asset->source_name, "critter ", 8))
            return frames_rig(asset->source_name, NULL, rig, error);
        crowd_result r = frames_rig(NULL, asset->source_name, rig, error);
        if (r == CROWD_ERROR_IO && error) {
            char cause[sizeof error->message];
            snprintf(cause, sizeof cause, "%s", error->message);
            crowd_fail(error, r, "%.180s (the path recorded at bake time; name the dump with --source)", cause);
        }
        return r;
    }
    if (asset->source_kind == CROWD_SOURCE_PROCEDURAL) {
        float density = 1.0f;
        if (sscanf(asset->source_name, "humanoid density=%f", &density) != 1)
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "unknown procedural source \"%s\"", asset->source_name);
        return tool_load_rig(NULL, density, NULL, rig, error);
    }
    crowd_result r = tool_load_rig(asset->source_name, 0.0f, &quiet, rig, error);
    if (r == CROWD_ERROR_IO && error) { /* the recorded path is relative to where crowd-bake ran */
        char cause[sizeof error->message];
        snprintf(cause, sizeof cause, "%s", error->message);
        crowd_fail(error, r, "%.180s (the path recorded at bake time; name the file with --source)", cause);
    }
    return r;
}

uint8_t *tool_read_file(const char *path, size_t *size, crowd_error *error)
{
    FILE *f = crowd_file_open_read(path, error);
    if (!f)
        return NULL;
    uint8_t *bytes = NULL;
    uint64_t n = 0;
    if (crowd_file_size(f, path, CROWD_MAX_FILE_BYTES, &n, error) != CROWD_OK) {
        /* message filled */
    } else if (!(bytes = aligned_alloc(16, ((size_t)n + 16) & ~(size_t)15))) {
        crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "%s: out of memory for %llu bytes", path, (unsigned long long)n);
    } else if (crowd_file_read_all(f, path, bytes, n, error) != CROWD_OK) {
        free(bytes);
        bytes = NULL;
    } else {
        *size = (size_t)n;
    }
    fclose(f);
    return bytes;
}

crowd_result tool_bake_humanoid(crowd_bake_output *out, crowd_error *error)
{
    crowd_rig rig;
    crowd_result r = tool_load_rig(NULL, 0.0f, NULL, &rig, error);
    if (r != CROWD_OK)
        return r;
    crowd_bake_desc desc = {.rig = &rig, .bones = true};
    r = crowd_bake(&desc, out, error);
    crowd_rig_free(&rig);
    return r;
}

double tool_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

const char *tool_bytes(uint64_t bytes, char buffer[32])
{
    if (bytes >= 1024u * 1024u)
        snprintf(buffer, 32, "%.2f MB", bytes / (1024.0 * 1024.0));
    else if (bytes >= 1024u)
        snprintf(buffer, 32, "%.1f KB", bytes / 1024.0);
    else
        snprintf(buffer, 32, "%llu B", (unsigned long long)bytes);
    return buffer;
}

void tool_json_string(const char *text)
{
    putchar('"');
    const unsigned char *s = (const unsigned char *)text;
    size_t n = strlen(text);
    for (size_t at = 0; at < n;) {
        size_t len = cb_utf8_sequence(s + at, n - at);
        if (len == 0) { /* JSON is UTF-8: a byte that is not becomes U+FFFD, the replacement character */
            printf("\\ufffd");
            at++;
        } else if (s[at] == '"' || s[at] == '\\') {
            printf("\\%c", s[at++]);
        } else if (s[at] < 32 || s[at] == 127) {
            printf("\\u%04x", (unsigned)s[at++]);
        } else {
            fwrite(s + at, 1, len, stdout);
            at += len;
        }
    }
    putchar('"');
}

int tool_compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double tool_median(double *values, uint32_t count)
{
    if (!count)
        return 0.0;
    qsort(values, count, sizeof *values, tool_compare_double);
    return count % 2 ? values[count / 2] : 0.5 * (values[count / 2 - 1] + values[count / 2]);
}
