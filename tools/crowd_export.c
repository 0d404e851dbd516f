/* crowd-export: write a rig (the built-in humanoid, or a glTF file as crowdbake reads it) as an
 * animated .glb: skin, inverse binds, every clip sampled as keyframes. */
#include <stdio.h>
#include <string.h>

#include "crowdbake/gltf.h"
#include "tool_support.h"

static void usage(FILE *out)
{
    fprintf(out, "usage: crowd-export [input.gltf|input.glb] --out <file.glb> [--fps n] [--density f]\n"
                 "\n"
                 "Writes a rig as a self-contained animated .glb (one skin, inverse bind matrices, every\n"
                 "clip as LINEAR keyframes). Without an input, exports the built-in procedural humanoid.\n"
                 "\n"
                 "  --out <file.glb>   output path (required)\n"
                 "  --fps <n>          keyframes per second, 1..240 (default 30, the baker's default rate)\n"
                 "  --density <f>      procedural humanoid tessellation, 0.25..4 (default 1)\n"
                 "  --help             this text\n");
}

int main(int argc, char **argv)
{
    const char *input = NULL, *out = NULL;
    crowd_gltf_write_desc desc = {0};
    float density = 0.0f;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return tool_finish_stdout("crowd-export", 0);
        } else if ((!strcmp(a, "--out") || !strcmp(a, "--fps") || !strcmp(a, "--density")) && !v) {
            return tool_missing_value("crowd-export", a);
        } else if (!strcmp(a, "--out")) {
            out = argv[++i];
        } else if (!strcmp(a, "--fps")) {
            if (!tool_parse_float(v, 1.0f, 240.0f, &desc.fps)) {
                fprintf(stderr, "crowd-export: --fps %s: expected a number in 1..240\n", v);
                return 2;
            }
            i++;
        } else if (!strcmp(a, "--density")) {
            if (!tool_parse_float(v, 0.25f, 4.0f, &density)) {
                fprintf(stderr, "crowd-export: --density %s: expected a number in 0.25..4\n", v);
                return 2;
            }
            i++;
        } else if (a[0] == '-') {
            fprintf(stderr, "crowd-export: unknown option %s (see --help)\n", a);
            return 2;
        } else if (input) {
            fprintf(stderr, "crowd-export: more than one input (%s and %s)\n", input, a);
            return 2;
        } else {
            input = a;
        }
    }
    if (!out) {
        usage(stderr);
        return 2;
    }
    if (input && density != 0.0f) {
        fprintf(stderr, "crowd-export: --density applies to the procedural humanoid only\n");
        return 2;
    }
    crowd_rig rig = {0};
    crowd_error err = {0};
    int status = 1;
    if (tool_load_rig(input, density, NULL, &rig, &err) == CROWD_OK &&
        crowd_gltf_write_file(&rig, &desc, out, &err) == CROWD_OK) {
        printf("wrote %s: %u vertices, %u bones, %u clips\n", out, rig.vertex_count, rig.bone_count, rig.clip_count);
        status = 0;
    } else {
        fprintf(stderr, "crowd-export: %s\n", err.message);
    }
    crowd_rig_free(&rig);
    return tool_finish_stdout("crowd-export", status);
}
