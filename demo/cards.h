/* The demo's imposter level (settings "imposters" and "card_distance"): the crowd's cards past the
 * last mesh level, for an asset that carries an atlas (crowd-bake --imposters; make bakes the
 * humanoid with a web-sized one). */
#ifndef DEMO_CARDS_H
#define DEMO_CARDS_H

#include "crowdbake/crowd.h"

/* Sets d->imposters and, with cards on, the LOD chain: the library's default distances, each
 * ending no later than the cards begin, and the cards from `distance` metres (0: where one atlas
 * tile spans as many pixels as the figure at 720 pixels and 58 degrees, the nearest a card may be
 * seen without magnifying its texels). Off, or an asset without an atlas: no cards, default
 * distances. */
void demo_cards_apply(crowd_desc *d, const crowd_asset *asset, bool on, double distance);

/* The distance cards start at for these settings (0 without cards). */
float demo_cards_distance(const crowd_asset *asset, bool on, double distance);

#endif
