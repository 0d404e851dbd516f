/* Internal: checking the optional BAKE section while loading (asset_load.c calls it). */
#ifndef CROWD_CORE_ASSET_NOTES_H
#define CROWD_CORE_ASSET_NOTES_H

#include "crowdbake/asset.h"

/* Checks the section's size against the asset's clip count, its enums and floats; on success
 * points asset->notes_ at it. */
crowd_result crowd_asset_check_notes(crowd_asset *asset, const uint8_t *data, uint64_t size, crowd_error *error);

#endif
