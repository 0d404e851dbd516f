/* The runtime's CPU cost on crowd-bench's scene, inside whatever build runs it: the browser page
 * reports the wasm build's (web_measure_scene), beside crowd-bench's native figures, at counts the
 * page's own crowd cannot hold (it stops at 250,000). */
#ifndef CROWD_DEMO_SCENE_PROBE_H
#define CROWD_DEMO_SCENE_PROBE_H

#include <stdint.h>

#include "crowdbake/crowd.h"

/* A crowd of `count` wanderers of `asset` on crowd-bench's scene (420 m, 24 m chunks, the 26
 * pillars, seed 7, its camera; one thread, separation by the sim's default: off above 40,000),
 * stepped and updated `warmup` frames, then `frames` more: the median of those frames' simulation
 * step + crowd update, in ms. Everything is freed before it returns. NaN on a bad argument or when
 * the crowd cannot be made (memory): the caller says so. */
double demo_measure_scene(const crowd_asset *asset, uint32_t count, uint32_t warmup, uint32_t frames);

#endif
