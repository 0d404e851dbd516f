/* libFuzzer target for the glTF reader: any bytes, as a .gltf or .glb, must give a rig that
 * validates or an error with a message; never a crash, a leak or an out-of-bounds access.
 * Built by `make fuzz` (clang, -fsanitize=fuzzer,address,undefined in build-fuzz/). */
#include <stdio.h>
#include <stdlib.h>

#include "crowdbake/gltf.h"

static void ignore(void *user, const char *message)
{
    (void)user, (void)message;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    crowd_gltf_desc desc = {.no_external_files = true, .warn = ignore};
    crowd_rig rig;
    crowd_error err = {0};
    crowd_result r = crowd_gltf_read_memory(data, size, "fuzz", NULL, &desc, &rig, &err);
    if (r == CROWD_OK && crowd_rig_validate(&rig, &err) != CROWD_OK)
        abort(); /* the reader promised a bakeable rig */
    if (r != CROWD_OK && !err.message[0])
        abort(); /* every refusal says why */
    crowd_rig_free(&rig);
    return 0;
}
