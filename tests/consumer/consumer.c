/* A consumer of the installed (or add_subdirectory'd) crowdbake, in C: bakes the built-in humanoid
 * in memory with crowd_bake, loads the image, runs a crowd on it. With a path argument it also
 * writes the image there (for the C++ consumer), and poses a record's blend on the CPU
 * (rig_record.h, the header that knows both the runtime and the rig). Exits non-zero on any failure. */
#include <stdlib.h>

#include <crowdbake/bake.h>
#include <crowdbake/critters.h>
#include <crowdbake/gltf.h>
#include <crowdbake/hits.h>
#include <crowdbake/rig_record.h>
#include <crowdbake/sim.h>

#include "consumer.h"

/* A record playing clip 0 a quarter in, posed by the rig's own sampler (rig clip i as asset clip i:
 * this bake carries no bones, so no asset is given): every matrix finite. */
static int pose_a_record(const crowd_rig *rig)
{
    crowd_record record;
    crowd_rig_poser *poser = NULL;
    crowd_error error;
    float *rows = (float *)malloc(sizeof(float) * 12 * rig->bone_count);
    int status = 1;
    uint32_t i;
    memset(&record, 0, sizeof record);
    record.offset_a = 0.25f;
    if (rows && crowd_rig_poser_create(rig, NULL, &poser, &error) == CROWD_OK) {
        crowd_rig_blend blend = crowd_rig_blend_of_record(&record, 0.0f);
        status = crowd_rig_pose_blend(poser, &blend, rows) ? 0 : 1;
        for (i = 0; status == 0 && i < 12 * rig->bone_count; i++)
            status = isfinite(rows[i]) ? 0 : 1;
    }
    if (status)
        fprintf(stderr, "consumer: posing a record's blend failed\n");
    crowd_rig_poser_destroy(poser);
    free(rows);
    return status;
}

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
    if (status == 0)
        status = pose_a_record(&rig);
done:
    crowd_asset_free(&asset);
    crowd_bake_output_free(&out);
    crowd_rig_free(&rig);
    return status;
}
