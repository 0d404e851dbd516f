/* libFuzzer target for the frames-dump reader and everything a dump feeds (the rig built from it).
 * Seeds: tests/fuzz/frames/. */
#include <stddef.h>
#include <stdint.h>

#include "crowdbake/bake.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    crowd_frames_dump dump;
    crowd_error err;
    if (crowd_frames_dump_read(data, size, &dump, &err) != CROWD_OK)
        return 0;
    crowd_rig rig;
    if (crowd_rig_from_frames(&dump.frames, &rig, &err) == CROWD_OK) {
        crowd_rig_validate(&rig, &err);
        crowd_rig_free(&rig);
    }
    crowd_frames_dump_free(&dump);
    return 0;
}
