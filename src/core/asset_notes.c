/* The optional BAKE section (what a bake decided: placement, bone-mode status, clip evidence),
 * clip roles and clip-name matching. The loader only checks the section here; the accessors decode
 * it on demand, so files without it cost nothing. */
#include <ctype.h>
#include <math.h>
#include <string.h>

#include "core/asset_notes.h"
#include "core/error.h"
#include "core/format.h"

crowd_result crowd_asset_check_notes(crowd_asset *a, const uint8_t *data, uint64_t size, crowd_error *error)
{
    if (size < CROWD_BAKE_NOTES_BYTES || crowd_rd32(data + CROWD_BAKE_CLIP_COUNT) != a->clip_count ||
        size != CROWD_BAKE_NOTES_BYTES + (uint64_t)a->clip_count * CROWD_CLIP_EVIDENCE_BYTES)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "section BAKE is %llu bytes; %u clips need %u + %u x %u",
                          (unsigned long long)size, a->clip_count, CROWD_BAKE_NOTES_BYTES, a->clip_count,
                          CROWD_CLIP_EVIDENCE_BYTES);
    if (crowd_rd32(data + CROWD_BAKE_RESERVED) != 0)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "section BAKE: reserved field not zero");
    for (uint32_t k = 0; k < 12 + 4; k++) {
        uint32_t at = k < 12 ? 4 * k : CROWD_BAKE_BONE_ERROR + 4 * (k - 12);
        if (!isfinite(crowd_rdf32(data + at)))
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "section BAKE: byte %u holds a non-finite number", at);
    }
    uint32_t forward = crowd_rd32(data + CROWD_BAKE_FORWARD), up = crowd_rd32(data + CROWD_BAKE_UP);
    uint32_t mode = crowd_rd32(data + CROWD_BAKE_BONE_MODE);
    if (forward > CROWD_AXIS_NEG_X || (up != CROWD_AXIS_POS_Y && up != CROWD_AXIS_POS_Z) ||
        mode > CROWD_BONE_MODE_UNAVAILABLE || crowd_rd32(data + CROWD_BAKE_FORWARD_DECISION) > CROWD_DECIDED_GIVEN ||
        crowd_rd32(data + CROWD_BAKE_SCALE_DECISION) > CROWD_DECIDED_GIVEN ||
        crowd_rd32(data + CROWD_BAKE_GROUND_DECISION) > CROWD_DECIDED_GIVEN)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "section BAKE: axis, decision or bone mode out of range");
    if ((mode != CROWD_BONE_MODE_NONE) != ((a->flags & CROWD_ASSET_HAS_BONES) != 0))
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "section BAKE: bone mode %u disagrees with HAS_BONES", mode);
    for (uint32_t c = 0; c < a->clip_count; c++) {
        const uint8_t *rec = data + CROWD_BAKE_NOTES_BYTES + (size_t)c * CROWD_CLIP_EVIDENCE_BYTES;
        if (!isfinite(crowd_rdf32(rec + 16)) || !isfinite(crowd_rdf32(rec + 20)) || (crowd_rd32(rec + 24) & ~3u) ||
            !(crowd_rdf32(rec + 28) >= 0.0f && crowd_rdf32(rec + 28) < 1e9f))
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "section BAKE: clip %u evidence is malformed", c);
    }
    a->notes_ = data;
    a->notes_size_ = size;
    return CROWD_OK;
}

bool crowd_asset_bake_notes(const crowd_asset *asset, crowd_bake_notes *notes)
{
    memset(notes, 0, sizeof *notes);
    notes->placement[0] = notes->placement[5] = notes->placement[10] = 1.0f;
    notes->up = CROWD_AXIS_POS_Y;
    if (!asset || !asset->notes_)
        return false;
    const uint8_t *p = asset->notes_;
    for (int k = 0; k < 12; k++)
        notes->placement[k] = crowd_rdf32(p + CROWD_BAKE_PLACEMENT + 4 * k);
    notes->forward = (crowd_axis)crowd_rd32(p + CROWD_BAKE_FORWARD);
    notes->forward_decision = (crowd_decision)crowd_rd32(p + CROWD_BAKE_FORWARD_DECISION);
    notes->up = (crowd_axis)crowd_rd32(p + CROWD_BAKE_UP);
    notes->scale_decision = (crowd_decision)crowd_rd32(p + CROWD_BAKE_SCALE_DECISION);
    notes->ground_decision = (crowd_decision)crowd_rd32(p + CROWD_BAKE_GROUND_DECISION);
    notes->bone_mode = (crowd_bone_mode)crowd_rd32(p + CROWD_BAKE_BONE_MODE);
    notes->bone_error = crowd_rdf32(p + CROWD_BAKE_BONE_ERROR);
    notes->height = crowd_rdf32(p + CROWD_BAKE_HEIGHT);
    notes->ground_offset = crowd_rdf32(p + CROWD_BAKE_GROUND_OFFSET);
    notes->hover = crowd_rdf32(p + CROWD_BAKE_HOVER);
    return true;
}

bool crowd_asset_clip_evidence(const crowd_asset *asset, uint32_t clip, crowd_clip_evidence *e)
{
    memset(e, 0, sizeof *e);
    if (!asset || !asset->notes_ || clip >= asset->clip_count)
        return false;
    const uint8_t *rec = asset->notes_ + CROWD_BAKE_NOTES_BYTES + (size_t)clip * CROWD_CLIP_EVIDENCE_BYTES;
    e->frames = crowd_rd32(rec);
    e->contact_frames = crowd_rd32(rec + 4);
    e->distinct_frames = crowd_rd32(rec + 8);
    e->key_count = crowd_rd32(rec + 12);
    e->loop_error = crowd_rdf32(rec + 16);
    e->airborne = crowd_rdf32(rec + 20);
    e->travels = crowd_rd32(rec + 24) & 1u;
    e->overridden = (crowd_rd32(rec + 24) & 2u) != 0;
    e->root_travel = crowd_rdf32(rec + 28);
    return true;
}

/* ---- roles ------------------------------------------------------------------------------------ */

static const char *const role_names[CROWD_ROLE_COUNT] = {"unknown", "locomotion", "idle", "action", "pose", "flight"};

crowd_clip_role crowd_clip_role_of(const crowd_clip *clip)
{
    uint32_t role = clip ? (clip->flags & CROWD_CLIP_ROLE_MASK) >> CROWD_CLIP_ROLE_SHIFT : 0;
    return role < CROWD_ROLE_COUNT ? (crowd_clip_role)role : CROWD_ROLE_UNKNOWN;
}

const char *crowd_clip_role_name(crowd_clip_role role)
{
    return (unsigned)role < CROWD_ROLE_COUNT ? role_names[role] : "unknown";
}

static bool same_text(const char *a, const char *b, size_t n_a)
{
    size_t i = 0;
    for (; i < n_a && b[i]; i++)
        if (tolower((unsigned char)a[i]) != tolower((unsigned char)b[i]))
            return false;
    return i == n_a && !b[i];
}

bool crowd_clip_role_parse(const char *text, crowd_clip_role *role)
{
    if (!text)
        return false;
    size_t n = strlen(text);
    for (int r = 1; r < CROWD_ROLE_COUNT; r++)
        if (same_text(text, role_names[r], n)) {
            *role = (crowd_clip_role)r;
            return true;
        }
    if (same_text(text, "swim", n) || same_text(text, "swimming", n) || same_text(text, "flying", n))
        return *role = CROWD_ROLE_FLIGHT, true;
    if (same_text(text, "one-shot", n) || same_text(text, "oneshot", n))
        return *role = CROWD_ROLE_ACTION, true;
    return false;
}

/* ---- matching names as people write them ------------------------------------------------------ */

static const char *after_bar(const char *name)
{
    const char *bar = strrchr(name, '|');
    return bar ? bar + 1 : name;
}

bool crowd_match_clip_name(const char *const *names, size_t stride, uint32_t count, const char *name, uint32_t *index)
{
    if (!names || !name || !*name)
        return false;
    const char *want = after_bar(name);
    size_t n = strlen(name), nw = strlen(want);
    for (int pass = 0; pass < 3; pass++)
        for (uint32_t i = 0; i < count; i++) {
            const char *have = *(const char *const *)((const char *)names + (size_t)i * stride);
            if (!have)
                continue;
            bool hit = pass == 0   ? strcmp(have, name) == 0
                       : pass == 1 ? same_text(name, have, n)
                                   : same_text(want, after_bar(have), nw);
            if (hit) {
                if (index)
                    *index = i;
                return true;
            }
        }
    return false;
}

bool crowd_asset_match_clip(const crowd_asset *asset, const char *name, uint32_t *index)
{
    if (!asset || !asset->clips)
        return false;
    return crowd_match_clip_name(&asset->clips[0].name, sizeof(crowd_clip), asset->clip_count, name, index);
}
