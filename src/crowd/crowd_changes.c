/* Change tracking: what each kind of change makes stale (crowd_internal.h). One table, so a new
 * setter picks a kind instead of remembering which flags to set. */
#include "crowd/crowd_internal.h"

static const uint32_t effects[CROWD_CHANGE_KINDS] = {
    /* a record written where it stands: its slot re-uploads, the client's view of it is old */
    [CROWD_CHANGED_LOOKS] = CROWD_STALE_UPLOAD_SCAN | CROWD_STALE_CLIENT,
    /* moved, or its bounds changed: the chunk stats too */
    [CROWD_CHANGED_PLACE] = CROWD_STALE_BINNING | CROWD_STALE_UPLOAD_SCAN | CROWD_STALE_CLIENT,
    /* instances came or went: they change region, so the layout is made afresh */
    [CROWD_CHANGED_COUNT] = CROWD_STALE_BINNING | CROWD_STALE_GRID | CROWD_STALE_LAYOUT | CROWD_STALE_CLIENT,
    [CROWD_CHANGED_REMOVED] = CROWD_STALE_BINNING | CROWD_STALE_UPLOAD_SCAN | CROWD_STALE_CLIENT,
    /* levels and distances: a settled grid's classification and the client's level of detail */
    [CROWD_CHANGED_SETTINGS] = CROWD_STALE_GRID | CROWD_STALE_CLIENT,
    /* the other policy orders slots its own way */
    [CROWD_CHANGED_POLICY] = CROWD_STALE_BINNING | CROWD_STALE_GRID | CROWD_STALE_LAYOUT | CROWD_STALE_CLIENT,
    /* every record's times moved (and sleep times are shader times) */
    [CROWD_CHANGED_TIME] = CROWD_STALE_BINNING | CROWD_STALE_GRID | CROWD_STALE_CLIENT,
    /* records in new slots: the index map; the client's arrays moved along, what it derived did not */
    [CROWD_CHANGED_ORDER] = CROWD_STALE_INDEX_MAP | CROWD_STALE_CLIENT,
    [CROWD_CHANGED_COMPACTED] = CROWD_STALE_LAYOUT | CROWD_STALE_CLIENT,
    /* nothing the crowd derives; the client re-checks what it may skip */
    [CROWD_CHANGED_RATE_KEPT] = CROWD_STALE_CLIENT,
};

void crowd_note(crowd *c, crowd_change change)
{
    uint32_t e = effects[change];
    c->stale |= e & ~(uint32_t)CROWD_STALE_CLIENT; /* (the client's is a counter) */
    if (e & CROWD_STALE_CLIENT)
        c->client.changes++;
}

uint32_t crowd_change_effects(crowd_change change)
{
    return (unsigned)change < CROWD_CHANGE_KINDS ? effects[change] : 0u;
}
