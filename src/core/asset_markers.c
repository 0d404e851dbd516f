/* Loading the MARK section: clip markers, each checked (its clip, a time inside the clip, a valid
 * name, the order) before the runtime indexes clips by them. */
#include "core/asset_markers.h"

#include <math.h>
#include <stdio.h>

#include "core/alloc.h"
#include "core/error.h"

bool crowd_marker_name_ok(const char *name)
{
    if (!name || !name[0])
        return false;
    size_t n = 0;
    for (const char *p = name; *p; p++, n++) {
        char ch = *p;
        bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
                  ch == '-' || ch == '.';
        if (!ok || n >= CROWD_MAX_MARKER_NAME)
            return false;
    }
    return true;
}

uint32_t crowd_asset_clip_markers(const crowd_asset *a, uint32_t clip, uint32_t *first)
{
    if (!a || clip >= a->clip_count || !a->markers)
        return 0;
    uint32_t lo = 0, hi = a->marker_count; /* the first marker of a clip >= `clip` */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (a->markers[mid].clip < clip)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint32_t end = lo;
    while (end < a->marker_count && a->markers[end].clip == clip)
        end++;
    if (end > lo && first)
        *first = lo;
    return end - lo;
}

static crowd_result check_header(const uint8_t *d, uint64_t size, uint32_t version, crowd_error *error)
{
    if (version < CROWD_VERSION_MARKERS)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA,
                          "MARK section in a version-%u file (markers need version %u)", version,
                          CROWD_VERSION_MARKERS);
    if (size < CROWD_MARK_HEADER_BYTES)
        return crowd_fail(error, CROWD_ERROR_TRUNCATED, "MARK: %llu bytes, shorter than its %u-byte header",
                          (unsigned long long)size, CROWD_MARK_HEADER_BYTES);
    uint32_t count = crowd_rd32(d);
    if (count == 0 || count > CROWD_MAX_MARKERS)
        return crowd_fail(error, CROWD_ERROR_LIMIT, "MARK: marker_count %u outside 1..%u", count, CROWD_MAX_MARKERS);
    for (int k = 1; k < 4; k++)
        if (crowd_rd32(d + 4 * k))
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "MARK: reserved word %d is not zero", k);
    uint64_t need = CROWD_MARK_HEADER_BYTES + (uint64_t)count * CROWD_MARK_RECORD_BYTES;
    if (size != need)
        return crowd_fail(error, CROWD_ERROR_OVERFLOW, "MARK: %llu bytes; %u markers need %llu",
                          (unsigned long long)size, count, (unsigned long long)need);
    return CROWD_OK;
}

/* One record into *m: name, clip, a time inside the clip, and after the marker before it. */
static crowd_result read_marker(const crowd_asset *a, const uint8_t *rec, uint32_t i, const uint8_t *strings,
                                uint64_t strings_size, crowd_marker *m, crowd_error *error)
{
    uint32_t name = crowd_rd32(rec);
    m->clip = crowd_rd32(rec + 4);
    m->time = crowd_rdf32(rec + 8);
    if (name >= strings_size)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA,
                          "MARK: markers[%u].name: string offset %u outside the %llu-byte string table", i, name,
                          (unsigned long long)strings_size);
    m->name = (const char *)strings + name; /* the table ends with a NUL (the loader checked) */
    if (!crowd_marker_name_ok(m->name))
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA,
                          "MARK: markers[%u]: name \"%.64s\" is not 1..%u letters, digits, '_', '-' or '.'", i, m->name,
                          CROWD_MAX_MARKER_NAME);
    if (crowd_rd32(rec + 12))
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "MARK: markers[%u] \"%s\": reserved word is not zero", i,
                          m->name);
    if (m->clip >= a->clip_count)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "MARK: markers[%u] \"%s\": clip %u out of range (%u clips)",
                          i, m->name, m->clip, a->clip_count);
    float duration = a->clips[m->clip].duration;
    if (!(m->time >= 0.0f && m->time <= duration)) /* false for NaN */
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA,
                          "MARK: markers[%u] \"%s\": time %g s outside clip %u \"%s\" (0..%g s)", i, m->name,
                          (double)m->time, m->clip, a->clips[m->clip].name, (double)duration);
    m->phase = duration > 0.0f ? m->time / duration : 0.0f;
    if (m->phase > 1.0f)
        m->phase = 1.0f;
    if (i > 0 && (m[-1].clip > m->clip || (m[-1].clip == m->clip && m[-1].time > m->time)))
        return crowd_fail(
            error, CROWD_ERROR_INVALID_DATA,
            "MARK: markers[%u] \"%s\" (clip %u, %g s) comes before the marker ahead of it (clip %u, %g s)", i, m->name,
            m->clip, (double)m->time, m[-1].clip, (double)m[-1].time);
    return CROWD_OK;
}

crowd_result crowd_asset_check_markers(crowd_asset *a, const uint8_t *d, uint64_t size, uint32_t version,
                                       const uint8_t *strings, uint64_t strings_size, crowd_marker **owned,
                                       crowd_error *error)
{
    crowd_result r = check_header(d, size, version, error);
    if (r != CROWD_OK)
        return r;
    uint32_t count = crowd_rd32(d);
    crowd_marker *markers = crowd_calloc(count, sizeof *markers);
    if (!markers)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "MARK: out of memory for %u markers", count);
    *owned = markers; /* freed with the asset, also when a record below is refused */
    const uint8_t *rec = d + CROWD_MARK_HEADER_BYTES;
    for (uint32_t i = 0; i < count; i++, rec += CROWD_MARK_RECORD_BYTES)
        if ((r = read_marker(a, rec, i, strings, strings_size, &markers[i], error)) != CROWD_OK)
            return r;
    a->markers = markers;
    a->marker_count = count;
    return CROWD_OK;
}
