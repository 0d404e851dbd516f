/* A consumer of the installed (or add_subdirectory'd) crowdbake, in C: bakes the built-in humanoid
 * in memory with crowd_bake, loads the image, runs a crowd on it. With a path argument it also
 * writes the image there (for the C++ consumer). Exits non-zero on any failure. */
#include <stdlib.h>

#include <crowdbake/bake.h>

#include "consumer.h"

int main(int argc, char **argv)
{
    crowd_rig rig;
    crowd_bake_desc bake;
    crowd_bake_output out;
    crowd_asset asset;
    crowd_error error;
    int status = 1;

    memset(&rig, 0, sizeof rig);
    memset(&out, 0, sizeof out);
    memset(&asset, 0, sizeof asset);
    if (crowd_rig_build_humanoid(NULL, &rig, &error) != CROWD_OK) {
        fprintf(stderr, "consumer: humanoid: %s\n", error.message);
        return 1;
    }
    memset(&bake, 0, sizeof bake);
    bake.rig = &rig;
    bake.fps = 10.0f; /* small and quick: this is a link-and-run check, not a quality one */
    if (crowd_bake(&bake, &out, &error) != CROWD_OK) {
        fprintf(stderr, "consumer: bake: %s\n", error.message);
        goto done;
    }
    if (crowd_asset_load_memory(&asset, out.bytes, out.size, &error) != CROWD_OK) {
        fprintf(stderr, "consumer: load: %s\n", error.message);
        goto done;
    }
    if (argc > 1) {
        FILE *file = fopen(argv[1], "wb");
        if (!file || fwrite(out.bytes, 1, out.size, file) != out.size || fclose(file) != 0) {
            fprintf(stderr, "consumer: cannot write %s\n", argv[1]);
            goto done;
        }
    }
    status = consumer_run(&asset, "consumer (C)");
done:
    crowd_asset_free(&asset);
    crowd_bake_output_free(&out);
    crowd_rig_free(&rig);
    return status;
}
