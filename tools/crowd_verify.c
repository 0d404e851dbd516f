/* crowd-verify: decode a .crowd asset exactly as the shaders will and compare it with fresh
 * CPU skinning of its source. Exit status 0 when every bound holds, 1 when one breaks. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "crowdbake/bake.h"
#include "tool_support.h"

static void usage(FILE *out)
{
    fprintf(out, "usage: crowd-verify <file.crowd> [--source file.gltf|file.glb] [--json] [--quiet]\n"
                 "\n"
                 "Decodes every vertex of every frame as the vertex shader does and compares it with\n"
                 "double-precision skinning of the source (the humanoid is rebuilt from its recorded\n"
                 "parameters; glTF sources are re-read from the recorded path unless --source is given).\n"
                 "Checks positions and normals against the encoding's bounds, bone mode when baked, and\n"
                 "strides against the truth where it is known. Exit status 1 when a bound is broken.\n");
}

static void print_text(const char *path, const crowd_asset *a, const crowd_verify_report *r)
{
    printf("crowd-verify %s (source: %s)\n", path, a->source_name);
    printf("  vertex-frames      %llu (%u vertices x %u frames)\n", (unsigned long long)r->vertex_frames,
           a->vertex_count, a->frame_count);
    printf("  VAT positions      max %.4f mm  mean %.4f mm  bound %.4f mm  (quantum %.4f mm, %s)\n", r->position_max_mm,
           r->position_mean_mm, r->position_bound_mm, r->quantum_mm,
           a->position_encoding == CROWD_POSITION_F16_BOX ? "fp16" : "16-bit box");
    printf("  VAT normals        max %.4f deg  mean %.4f deg  bound %.4f deg  (%s)\n", r->normal_max_deg,
           r->normal_mean_deg, r->normal_bound_deg,
           a->normal_encoding == CROWD_NORMAL_OCT16       ? "octahedral 16+16"
           : a->normal_encoding == CROWD_NORMAL_OCT8_IN_W ? "octahedral 8+8 in position w"
                                                          : "octahedral fp16");
    if (r->bones_checked && r->bone_mode == CROWD_BONE_MODE_UNAVAILABLE) {
        printf("  bone mode          NOT APPLICABLE: the bake found bone mode cannot play this asset (morph "
               "targets); max error %.4f mm\n",
               r->bone_position_max_mm);
    } else if (r->bones_checked) {
        printf("  bone positions     max %.4f mm  mean %.4f mm  ", r->bone_position_max_mm, r->bone_position_mean_mm);
        if (isfinite(r->bone_bound_mm))
            printf("bound %.4f mm\n", r->bone_bound_mm);
        else
            printf("(no bound: more than 4 influences or morph targets)\n");
        printf("  bone normals       max %.4f deg\n", r->bone_normal_max_deg);
    } else {
        printf("  bone mode          not baked (bake with --bones)\n");
    }
    if (r->clip_bounds_checked)
        printf("  clip spheres       farthest decoded vertex at %.6f of its clip's radius (CBND; <= 1 holds)\n",
               r->bound_max_ratio);
    else
        printf("  clip spheres       none in the file (every clip culled by the asset sphere)\n");
    printf("  %-18s %10s %10s %10s %10s %10s %8s\n", "clip", "stride m", "decoded m", "truth m", "error", "max mm",
           "sphere");
    for (uint32_t c = 0; c < r->clip_count; c++) {
        const crowd_verify_clip *vc = &r->clips[c];
        char truth[32] = "-", err[32] = "-";
        if (isfinite(vc->truth)) {
            snprintf(truth, sizeof truth, "%.4f", vc->truth);
            snprintf(err, sizeof err, vc->truth > 0 ? "%.4f%%" : "%.2g m",
                     vc->max_relative_error * (vc->truth > 0 ? 100 : 1));
        }
        char sphere[32] = "-";
        if (r->clip_bounds_checked)
            snprintf(sphere, sizeof sphere, "%.4f", vc->bound_ratio);
        printf("  %-18s %10.4f %10.4f %10s %10s %10.4f %8s\n", vc->name, (double)vc->manifest_stride,
               vc->decoded_stride, truth, err, vc->position_max_mm, sphere);
    }
    printf("%s%s\n", r->passed ? "PASS: every bound holds" : "FAIL: ",
           !r->passed ? r->failure
           : r->bones_checked && r->bone_mode == CROWD_BONE_MODE_UNAVAILABLE
               ? " (VAT mode only; bone mode not applicable)"
               : "");
}

static void json_number(double v)
{
    if (isfinite(v))
        printf("%.9g", v);
    else
        printf("null");
}

static void print_json(const crowd_asset *a, const crowd_verify_report *r)
{
    printf("{\"passed\":%s,\"failure\":", r->passed ? "true" : "false");
    tool_json_string(r->failure);
    printf(",\"vertex_frames\":%llu,\"vertices\":%u,\"frames\":%u", (unsigned long long)r->vertex_frames,
           a->vertex_count, a->frame_count);
    printf(",\"position_max_mm\":");
    json_number(r->position_max_mm);
    printf(",\"position_mean_mm\":");
    json_number(r->position_mean_mm);
    printf(",\"position_bound_mm\":");
    json_number(r->position_bound_mm);
    printf(",\"quantum_mm\":");
    json_number(r->quantum_mm);
    printf(",\"normal_max_deg\":");
    json_number(r->normal_max_deg);
    printf(",\"normal_mean_deg\":");
    json_number(r->normal_mean_deg);
    printf(",\"normal_bound_deg\":");
    json_number(r->normal_bound_deg);
    printf(",\"bones_checked\":%s,\"bone_position_max_mm\":", r->bones_checked ? "true" : "false");
    json_number(r->bone_position_max_mm);
    printf(",\"bone_position_mean_mm\":");
    json_number(r->bone_position_mean_mm);
    printf(",\"bone_bound_mm\":");
    json_number(r->bone_bound_mm);
    printf(",\"bone_normal_max_deg\":");
    json_number(r->bone_normal_max_deg);
    printf(",\"clip_bounds_checked\":%s,\"bound_max_ratio\":", r->clip_bounds_checked ? "true" : "false");
    json_number(r->bound_max_ratio);
    printf(",\"clips\":[");
    for (uint32_t c = 0; c < r->clip_count; c++) {
        const crowd_verify_clip *vc = &r->clips[c];
        printf("%s{\"name\":", c ? "," : "");
        tool_json_string(vc->name);
        printf(",\"stride\":");
        json_number(vc->manifest_stride);
        printf(",\"decoded_stride\":");
        json_number(vc->decoded_stride);
        printf(",\"truth\":");
        json_number(vc->truth);
        printf(",\"stride_error\":");
        json_number(vc->max_relative_error);
        printf(",\"position_max_mm\":");
        json_number(vc->position_max_mm);
        printf(",\"bound_ratio\":");
        json_number(vc->bound_ratio);
        printf("}");
    }
    printf("]}\n");
}

int main(int argc, char **argv)
{
    const char *path = NULL, *source = NULL;
    bool json = false, quiet = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return tool_finish_stdout("crowd-verify", 0);
        } else if (!strcmp(argv[i], "--json")) {
            json = true;
        } else if (!strcmp(argv[i], "--quiet")) {
            quiet = true;
        } else if (!strcmp(argv[i], "--source")) {
            if (++i >= argc)
                return tool_missing_value("crowd-verify", "--source");
            source = argv[i];
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "crowd-verify: unknown option %s (see --help)\n", argv[i]);
            return 2;
        } else if (path) {
            fprintf(stderr, "crowd-verify: more than one file (%s and %s)\n", path, argv[i]);
            return 2;
        } else {
            path = argv[i];
        }
    }
    if (!path) {
        usage(stderr);
        return 2;
    }

    crowd_asset asset;
    crowd_rig rig = {0};
    crowd_verify_report report = {0};
    crowd_error err = {0};
    int status = 1;
    if (crowd_asset_load_file(&asset, path, &err) != CROWD_OK) {
        tool_print_error("crowd-verify", err.message);
        return 1;
    }
    if (tool_load_source_rig(&asset, source, &rig, &err) != CROWD_OK ||
        crowd_verify(&asset, &rig, &report, &err) != CROWD_OK) {
        char text[sizeof err.message];
        fprintf(stderr, "crowd-verify: %s: %s\n", path, tool_flag_text(err.message, text, sizeof text));
        goto done;
    }
    if (json)
        print_json(&asset, &report);
    else if (!quiet || !report.passed)
        print_text(path, &asset, &report);
    status = report.passed ? 0 : 1;
done:
    crowd_verify_report_free(&report);
    crowd_rig_free(&rig);
    crowd_asset_free(&asset);
    return tool_finish_stdout("crowd-verify", status);
}
