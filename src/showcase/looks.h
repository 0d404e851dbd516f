/* Internal (the showcase): the demo's look for a crowd: bright shirts, a cap on some and a balloon
 * on others (the scene's attachments, showcase_scene_dress), sizes that vary a little, and the
 * clips by name where the asset has them. The simulation's own defaults are neutral. */
#ifndef CROWD_SHOWCASE_LOOKS_H
#define CROWD_SHOWCASE_LOOKS_H

#include "crowdbake/sim.h"

/* Spawn options for `asset` (the clip names point at static strings). */
crowd_spawn_options showcase_spawn_look(const crowd_asset *asset);

#endif
