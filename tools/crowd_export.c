/* crowd-export: write a rig (the built-in humanoid, or a glTF file as crowdbake reads it) as an
 * animated .glb: skin, inverse binds, every clip sampled as keyframes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crowdbake/gltf.h"
#include "dress.h"
#include "tool_support.h"

static void usage(FILE *out)
{
    fprintf(out, "usage: crowd-export [input.gltf|input.glb] --out <file.glb> [--fps n] [--density f] [dressing]\n"
                 "\n"
                 "Writes a rig as a self-contained animated .glb (one skin, inverse bind matrices, every\n"
                 "clip as LINEAR keyframes). Without an input, exports the built-in procedural humanoid.\n"
                 "\n"
                 "  --out <file.glb>   output path (required)\n"
                 "  --fps <n>          keyframes per second, 1..240 (default 30, the baker's default rate)\n"
                 "  --density <f>      procedural humanoid tessellation, 0.25..4 (default 1)\n"
                 "  --help             this text\n"
                 "\n"
                 "Dressing: the file a third-party tool would have written, to test crowd-bake against\n"
                 "  --face +z|-z|+x|-x  turn the character to face this axis (default +z, as it is)\n"
                 "  --up +y|+z          +z: then turn it 90 degrees about X, Z up (Blender's axes)\n"
                 "  --scale <f>         every length times f, 0.0001..10000 (100: centimetres, 39.37: inches)\n"
                 "  --lift <d>          move it up by d of its own units (metres for the humanoid) before\n"
                 "                      --scale, -1000..1000; negative sinks it\n"
                 "  --add-clip <list>   comma-separated extra clips: pose (the idle's first frame as 2 keys),\n"
                 "                      roll (a one-shot forward roll), fly (the wave cycle in the air, no\n"
                 "                      ground contact), walk-open (the walk cycle without its closing key),\n"
                 "                      walk-root (the walk with root motion: travelling, not in place),\n"
                 "                      walk-seam (the walk ending a few percent off its first pose),\n"
                 "                      fly-low (the wave cycle bobbing up from the ground: it brushes it)\n"
                 "  --mesh-unit <k>     the bind mesh k times larger, the inverse binds scaled back (100: a\n"
                 "                      centimetre mesh under a 0.01-scaled armature), 0.0001..10000\n"
                 "  --blender-names     rename every clip \"Armature|Name\"\n"
                 "  --add-variants <n>  1..8 more colour choices for every single-colour region (its colour\n"
                 "                      in other shades): a crowd of it picks one per instance\n");
}

int main(int argc, char **argv)
{
    const char *input = NULL, *out = NULL;
    crowd_gltf_write_desc desc = {0};
    float density = 0.0f;
    crowd_dress dress = {0};
    bool dressed = false;
    uint32_t variants = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return tool_finish_stdout("crowd-export", 0);
        } else if ((!strcmp(a, "--out") || !strcmp(a, "--fps") || !strcmp(a, "--density") || !strcmp(a, "--face") ||
                    !strcmp(a, "--up") || !strcmp(a, "--scale") || !strcmp(a, "--lift") || !strcmp(a, "--add-clip") ||
                    !strcmp(a, "--mesh-unit") || !strcmp(a, "--add-variants")) &&
                   !v) {
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
        } else if (!strcmp(a, "--face")) {
            static const char *const faces[] = {"+z", "-z", "+x", "-x"};
            int k = 0;
            while (k < 4 && strcmp(v, faces[k]))
                k++;
            if (k == 4) {
                fprintf(stderr, "crowd-export: --face %s: expected +z, -z, +x or -x\n", v);
                return 2;
            }
            dress.face = (crowd_axis)k, dressed = true, i++;
        } else if (!strcmp(a, "--up")) {
            if (strcmp(v, "+y") && strcmp(v, "+z")) {
                fprintf(stderr, "crowd-export: --up %s: expected +y or +z\n", v);
                return 2;
            }
            dress.z_up = !strcmp(v, "+z"), dressed = true, i++;
        } else if (!strcmp(a, "--scale")) {
            if (!tool_parse_float(v, 1e-4f, 1e4f, &dress.scale)) {
                fprintf(stderr, "crowd-export: --scale %s: expected a factor in 0.0001..10000\n", v);
                return 2;
            }
            dressed = true, i++;
        } else if (!strcmp(a, "--lift")) {
            if (!tool_parse_float(v, -1000.0f, 1000.0f, &dress.lift)) {
                fprintf(stderr, "crowd-export: --lift %s: expected a distance in -1000..1000 (the rig's units)\n", v);
                return 2;
            }
            dressed = true, i++;
        } else if (!strcmp(a, "--mesh-unit")) {
            if (!tool_parse_float(v, 1e-4f, 1e4f, &dress.mesh_unit)) {
                fprintf(stderr, "crowd-export: --mesh-unit %s: expected a factor in 0.0001..10000\n", v);
                return 2;
            }
            dressed = true, i++;
        } else if (!strcmp(a, "--add-clip")) {
            bool well_formed = v[0] != '\0';
            for (const char *name = v; well_formed && name;) {
                const char *comma = strchr(name, ',');
                size_t n = comma ? (size_t)(comma - name) : strlen(name);
                bool *flag = n == 4 && !strncmp(name, "pose", n)        ? &dress.pose
                             : n == 4 && !strncmp(name, "roll", n)      ? &dress.roll
                             : n == 3 && !strncmp(name, "fly", n)       ? &dress.fly
                             : n == 9 && !strncmp(name, "walk-open", n) ? &dress.open_walk
                             : n == 9 && !strncmp(name, "walk-root", n) ? &dress.root_walk
                             : n == 9 && !strncmp(name, "walk-seam", n) ? &dress.seam_walk
                             : n == 7 && !strncmp(name, "fly-low", n)   ? &dress.low_fly
                                                                        : NULL;
                if (!flag) {
                    fprintf(stderr,
                            "crowd-export: --add-clip %s: \"%.*s\" is not pose, roll, fly, fly-low, walk-open, "
                            "walk-root or walk-seam\n",
                            v, (int)n, name);
                    return 2;
                }
                *flag = true;
                name = comma ? comma + 1 : NULL;
            }
            if (!well_formed) {
                fprintf(stderr, "crowd-export: --add-clip: expected a comma-separated list of clips\n");
                return 2;
            }
            dressed = true, i++;
        } else if (!strcmp(a, "--add-variants")) {
            char *end = NULL;
            unsigned long n = strtoul(v, &end, 10);
            if (!end || *end || v[0] < '1' || v[0] > '9' || n < 1 || n > CROWD_DRESS_MAX_VARIANTS) {
                fprintf(stderr, "crowd-export: --add-variants %s: expected a count in 1..%u\n", v,
                        CROWD_DRESS_MAX_VARIANTS);
                return 2;
            }
            variants = (uint32_t)n, i++;
        } else if (!strcmp(a, "--blender-names")) {
            dress.blender_names = dressed = true;
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
    dress.fps = desc.fps;
    if (tool_load_rig(input, density, NULL, &rig, &err) == CROWD_OK &&
        (!dressed || crowd_dress_rig(&rig, &dress, &err) == CROWD_OK) &&
        (!variants || crowd_dress_variants(&rig, variants, &err) == CROWD_OK) &&
        crowd_gltf_write_file(&rig, &desc, out, &err) == CROWD_OK) {
        printf("wrote %s: %u vertices, %u bones, %u clips\n", out, rig.vertex_count, rig.bone_count, rig.clip_count);
        status = 0;
    } else {
        tool_print_error("crowd-export", err.message);
    }
    crowd_rig_free(&rig);
    return tool_finish_stdout("crowd-export", status);
}
