/* Internal: the MARK section (clip markers, format version 4), read by the loader
 * (asset_markers.c); the writer is src/bake/bake_pack.c. docs/format.md, "MARK". */
#ifndef CROWD_CORE_ASSET_MARKERS_H
#define CROWD_CORE_ASSET_MARKERS_H

#include "core/format.h"
#include "crowdbake/asset.h"

/* Validates a MARK section against the asset (its clips and their durations), the string table and
 * the file's version, and fills asset->markers (allocated here: *owned, freed with crowd_free) and
 * asset->marker_count. */
crowd_result crowd_asset_check_markers(crowd_asset *asset, const uint8_t *data, uint64_t size, uint32_t version,
                                       const uint8_t *strings, uint64_t strings_size, crowd_marker **owned,
                                       crowd_error *error);

#endif
