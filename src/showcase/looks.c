#include "showcase/looks.h"

crowd_spawn_options showcase_spawn_look(const crowd_asset *asset)
{
    static const char *const gaits[3] = {"walk", "jog", "run"};
    /* a cap on 30 %, a balloon on 12 %, never both (accessory bits 0 and 1) */
    crowd_spawn_options o = {.scale_min = 0.92f,
                             .scale_max = 1.08f,
                             .shirts = 1,
                             .saturation_min = 0.35f,
                             .saturation_max = 0.95f,
                             .value_min = 0.45f,
                             .value_max = 0.95f,
                             .accessories = 2,
                             .accessory_odds = {0.3f, 0.12f}};
    if (crowd_asset_find_clip(asset, "idle", NULL))
        o.idle_clip = "idle";
    if (crowd_asset_find_clip(asset, "cheer", NULL))
        o.cheer_clip = "cheer";
    bool humanoid = true;
    for (int k = 0; k < 3; k++)
        humanoid &= crowd_asset_find_clip(asset, gaits[k], NULL);
    if (humanoid) {
        o.gait_clips = gaits;
        o.gait_clip_count = 3;
    }
    return o;
}
