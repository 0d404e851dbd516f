/* The demo's imposter level: see cards.h. */
#include "demo/cards.h"

#include <math.h>

float demo_cards_distance(const crowd_asset *asset, bool on, double distance)
{
    if (!on || !asset->imposters.frames || !asset->imposters.tile || asset->lod_count >= CROWD_MAX_LODS)
        return 0.0f;
    if (distance > 0.0)
        return (float)distance;
    /* the bake's boxes are about 2.2 m tall for a 1.8 m figure; a 58 degree, 720 pixel view */
    return 2.2f * 720.0f / ((float)asset->imposters.tile * 2.0f * tanf(29.0f * 3.14159265f / 180.0f));
}

void demo_cards_apply(crowd_desc *d, const crowd_asset *asset, bool on, double distance)
{
    float at = demo_cards_distance(asset, on, distance);
    /* 0, not 1: on where the asset has an atlas, and no error for one without (the menagerie
       copies this desc to every kind) */
    d->imposters = at > 0.0f ? 0 : -1;
    if (at <= 0.0f)
        return;
    for (uint32_t l = 0; l + 1 < asset->lod_count; l++) /* 6, 14, 34, 80, ... (crowd.h's chain) */
        d->lod_distances[l] = fminf(6.0f * powf(2.35f, (float)l), at);
    d->lod_distances[asset->lod_count - 1] = at;
}
