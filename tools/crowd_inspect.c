/* crowd-inspect: a readable (or JSON) account of a .crowd asset: clips and strides, LODs, sockets,
 * regions, and where the bytes go. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/container_read.h"
#include "crowdbake/asset.h"
#include "tool_support.h"

static void usage(FILE *out)
{
    fprintf(out, "usage: crowd-inspect <file.crowd> [--json]\n");
}

static const char *position_encoding_name(crowd_position_encoding e)
{
    return e == CROWD_POSITION_F16_BOX ? "fp16 box-normalised (RGBA16F)" : "16-bit box-normalised (RGBA16UI)";
}

static const char *normal_encoding_name(crowd_normal_encoding e)
{
    switch (e) {
    case CROWD_NORMAL_OCT16:
        return "octahedral 16+16 (RG16UI)";
    case CROWD_NORMAL_OCT8_IN_W:
        return "octahedral 8+8 in position w";
    case CROWD_NORMAL_OCT_F16:
        return "octahedral fp16 (RG16F)";
    }
    return "?";
}

/* The clip markers (MARK), one line each. */
static void print_markers_text(const crowd_asset *a)
{
    if (!a->marker_count)
        return;
    printf("\nmarkers       %-16s %-20s %9s %7s\n", "clip", "name", "time s", "phase");
    for (uint32_t m = 0; m < a->marker_count; m++) {
        const crowd_marker *k = &a->markers[m];
        printf("              %-16s %-20s %9.4f %7.4f\n", a->clips[k->clip].name, k->name, (double)k->time,
               (double)k->phase);
    }
}

static void print_markers_json(const crowd_asset *a)
{
    printf("\"markers\":[");
    for (uint32_t m = 0; m < a->marker_count; m++) {
        const crowd_marker *k = &a->markers[m];
        printf("%s{\"clip\":%u,\"name\":", m ? "," : "", k->clip);
        tool_json_string(k->name);
        printf(",\"time\":%.9g,\"phase\":%.9g}", (double)k->time, (double)k->phase);
    }
    printf("],");
}

static void print_text(const char *path, size_t size, const crowd_asset *a, const crowd_container_view *view)
{
    char b[32];
    printf("%s  %s\n", path, tool_bytes(size, b));
    printf("source        %s\n", a->source_name);
    printf("vertices      %u   frames %u   bones %u   bake fps %g   unit scale %g\n", a->vertex_count, a->frame_count,
           a->bone_count, (double)a->bake_fps, (double)a->unit_scale);
    printf("positions     %s, %u x %u\n", position_encoding_name(a->position_encoding), a->positions.width,
           a->positions.height);
    printf("normals       %s\n", normal_encoding_name(a->normal_encoding));
    printf("per vertex    %u bytes/vertex/frame%s\n", crowd_asset_vat_bytes_per_vertex_frame(a),
           a->tangents.data ? " (with tangents)" : "");
    printf("bounds        (%.3f %.3f %.3f) .. (%.3f %.3f %.3f) m; sphere r=%.3f at y=%.3f\n", (double)a->bounds_min[0],
           (double)a->bounds_min[1], (double)a->bounds_min[2], (double)a->bounds_max[0], (double)a->bounds_max[1],
           (double)a->bounds_max[2], (double)a->sphere_radius, (double)a->sphere_center_y);

    crowd_bake_notes n;
    static const char *const axes[] = {"+Z", "-Z", "+X", "-X", "+Y"};
    static const char *const how[] = {"default", "detected", "given"};
    static const char *const modes[] = {"not baked", "exact", "approximate", "unavailable"};
    if (crowd_asset_bake_notes(a, &n)) {
        printf("placement     source faced %s (%s), up %s; height %.3f m; unit scale %g (%s); ground offset %+.4f m "
               "(%s)",
               axes[n.forward], how[n.forward_decision], axes[n.up], (double)n.height, (double)a->unit_scale,
               how[n.scale_decision], (double)n.ground_offset, how[n.ground_decision]);
        if (n.hover > 0.0f)
            printf("; flier hovering %.3f m", (double)n.hover);
        printf("\nbone mode     %s", modes[n.bone_mode]);
        if (n.bone_mode != CROWD_BONE_MODE_NONE)
            printf(", worst error %.3f mm against the VAT frames", (double)n.bone_error * 1e3);
        printf("\n");
    } else {
        printf("placement     not recorded (baked before placement and roles)\n");
    }

    printf("\nclips         %-16s %6s %6s %8s %5s %-10s %9s %9s\n", "name", "first", "frames", "seconds", "loop",
           "role", "stride m", "speed m/s");
    for (uint32_t c = 0; c < a->clip_count; c++) {
        const crowd_clip *k = &a->clips[c];
        double speed = k->duration > 0 ? k->stride / k->duration : 0.0;
        printf("              %-16s %6u %6u %8.3f %5s %-10s %9.4f %9.3f\n", k->name, k->first_frame, k->frame_count,
               (double)k->duration, (k->flags & CROWD_CLIP_LOOP) ? "yes" : "no",
               crowd_clip_role_name(crowd_clip_role_of(k)), (double)k->stride, speed);
    }
    if (a->notes_) {
        printf("\nroles         %-16s %-10s  evidence\n", "name", "role");
        for (uint32_t c = 0; c < a->clip_count; c++) {
            crowd_clip_evidence e;
            crowd_asset_clip_evidence(a, c, &e);
            const crowd_clip *k = &a->clips[c];
            char keys[24];
            snprintf(keys, sizeof keys, e.key_count ? "%u" : "?", e.key_count);
            char root[64] = "";
            if (e.root_travel > 0.0f)
                snprintf(root, sizeof root,
                         (k->flags & CROWD_CLIP_LOOP) ? "; root motion %.4f m per cycle"
                                                      : "; the one-shot moves the body %.4f m",
                         (double)e.root_travel);
            printf("              %-16s %-10s  %s; %u/%u frames in ground contact; %u distinct frames, %s keys; "
                   "loop %s, end-to-start gap %.1f%% of height; clip ground %+.1f%% of height above rest; feet %s%s\n",
                   k->name, crowd_clip_role_name(crowd_clip_role_of(k)), e.overridden ? "--clip-role" : "detected",
                   e.contact_frames, e.frames, e.distinct_frames, keys, (k->flags & CROWD_CLIP_LOOP) ? "yes" : "no",
                   100.0 * e.loop_error, 100.0 * e.airborne, e.travels ? "plant and slide (travels)" : "do not travel",
                   root);
        }
    }
    printf("\nbounds        %-16s %28s %9s %9s %9s\n", "clip", "centre m", "radius m", "cull m", "of asset");
    for (uint32_t c = 0; c < a->clip_count; c++) {
        const crowd_clip *k = &a->clips[c];
        printf("              %-16s (%8.4f, %8.4f, %8.4f) %9.4f %9.4f %8.1f%%\n", k->name, (double)k->bound_center[0],
               (double)k->bound_center[1], (double)k->bound_center[2], (double)k->bound_radius, (double)k->cull_radius,
               100.0 * k->cull_radius / (a->sphere_radius > 0.0f ? a->sphere_radius : 1.0f));
    }
    if (!a->has_clip_bounds)
        printf("              (no CBND section: every clip uses the asset sphere)\n");
    print_markers_text(a);
    printf("\nlods          %5s %10s %8s\n", "level", "triangles", "of L0");
    for (uint32_t l = 0; l < a->lod_count; l++)
        printf("              %5u %10u %7.1f%%\n", l, a->lods[l].triangle_count,
               100.0 * a->lods[l].triangle_count / a->lods[0].triangle_count);
    if (a->socket_count) {
        printf("\nsockets      ");
        for (uint32_t s = 0; s < a->socket_count; s++)
            printf(" %s(%s)", a->sockets[s].name, a->bones_info[a->sockets[s].bone].name);
        printf("\n");
    }
    printf("\nregions      ");
    for (uint32_t g = 0; g < a->region_count; g++)
        printf(" %s(%u colours)", a->regions_info[g].name, a->regions_info[g].palette_count);
    printf("\n\nsections      %-6s %12s %7s\n", "tag", "bytes", "share");
    for (uint32_t i = 0; i < view->count; i++) {
        char tag[5];
        crowd_tag_name(view->sections[i].tag, tag);
        printf("              %-6s %12llu %6.2f%%\n", tag, (unsigned long long)view->sections[i].size,
               100.0 * (double)view->sections[i].size / (double)size);
    }
}

static void print_json(size_t size, const crowd_asset *a, const crowd_container_view *view)
{
    printf("{\"bytes\":%zu,\"source\":\"%s\",\"vertices\":%u,\"frames\":%u,\"bones\":%u,", size,
           a->source_kind == CROWD_SOURCE_GLTF ? "gltf" : "procedural", a->vertex_count, a->frame_count, a->bone_count);
    printf("\"texture\":[%u,%u],\"bytes_per_vertex_frame\":%u,", a->positions.width, a->positions.height,
           crowd_asset_vat_bytes_per_vertex_frame(a));
    printf("\"position_encoding\":%d,\"normal_encoding\":%d,\"unit_scale\":%.9g,", (int)a->position_encoding,
           (int)a->normal_encoding, (double)a->unit_scale);
    crowd_bake_notes n;
    if (crowd_asset_bake_notes(a, &n))
        printf("\"placement\":{\"forward\":%d,\"forward_decision\":%d,\"up\":%d,\"height_m\":%.6g,"
               "\"ground_offset_m\":%.6g,\"hover_m\":%.6g,\"bone_mode\":%d,\"bone_error_m\":%.6g},",
               (int)n.forward, (int)n.forward_decision, (int)n.up, (double)n.height, (double)n.ground_offset,
               (double)n.hover, (int)n.bone_mode, (double)n.bone_error);
    printf("\"clips\":[");
    for (uint32_t c = 0; c < a->clip_count; c++) {
        const crowd_clip *k = &a->clips[c];
        printf("%s{\"name\":", c ? "," : "");
        tool_json_string(k->name);
        printf(",\"first_frame\":%u,\"frames\":%u,\"duration\":%.6g,\"loop\":%s,\"stride\":%.6g,\"role\":\"%s\"",
               k->first_frame, k->frame_count, (double)k->duration, (k->flags & CROWD_CLIP_LOOP) ? "true" : "false",
               (double)k->stride, crowd_clip_role_name(crowd_clip_role_of(k)));
        printf(",\"bound\":{\"centre\":[%.6g,%.6g,%.6g],\"radius\":%.6g,\"cull_y\":%.6g,\"cull_radius\":%.6g}",
               (double)k->bound_center[0], (double)k->bound_center[1], (double)k->bound_center[2],
               (double)k->bound_radius, (double)k->cull_center_y, (double)k->cull_radius);
        crowd_clip_evidence e;
        if (crowd_asset_clip_evidence(a, c, &e))
            printf(",\"evidence\":{\"frames\":%u,\"contact_frames\":%u,\"distinct_frames\":%u,\"key_count\":%u,"
                   "\"loop_error\":%.6g,\"airborne\":%.6g,\"travels\":%s,\"overridden\":%s,\"root_travel_m\":%.6g}",
                   e.frames, e.contact_frames, e.distinct_frames, e.key_count, (double)e.loop_error, (double)e.airborne,
                   e.travels ? "true" : "false", e.overridden ? "true" : "false", (double)e.root_travel);
        printf("}");
    }
    printf("],");
    print_markers_json(a);
    printf("\"lods\":[");
    for (uint32_t l = 0; l < a->lod_count; l++)
        printf("%s%u", l ? "," : "", a->lods[l].triangle_count);
    printf("],\"sockets\":[");
    for (uint32_t s = 0; s < a->socket_count; s++) {
        printf("%s{\"name\":", s ? "," : "");
        tool_json_string(a->sockets[s].name);
        printf(",\"bone\":%u}", a->sockets[s].bone);
    }
    printf("],\"regions\":[");
    for (uint32_t g = 0; g < a->region_count; g++) {
        printf("%s{\"name\":", g ? "," : "");
        tool_json_string(a->regions_info[g].name);
        printf(",\"colours\":%u}", a->regions_info[g].palette_count);
    }
    printf("],\"sections\":{");
    for (uint32_t i = 0; i < view->count; i++) {
        char tag[5];
        crowd_tag_name(view->sections[i].tag, tag);
        printf("%s\"%s\":%llu", i ? "," : "", tag, (unsigned long long)view->sections[i].size);
    }
    printf("}}\n");
}

int main(int argc, char **argv)
{
    const char *path = NULL;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return tool_finish_stdout("crowd-inspect", 0);
        } else if (!strcmp(argv[i], "--json")) {
            json = true;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "crowd-inspect: unknown option %s (see --help)\n", argv[i]);
            return 2;
        } else if (path) {
            fprintf(stderr, "crowd-inspect: more than one file (%s and %s)\n", path, argv[i]);
            return 2;
        } else {
            path = argv[i];
        }
    }
    if (!path) {
        usage(stderr);
        return 2;
    }
    crowd_error err;
    size_t size = 0;
    uint8_t *bytes = tool_read_file(path, &size, &err);
    crowd_asset asset = {0};
    crowd_container_view view;
    int status = 1;
    if (!bytes) { /* the message names the path */
        tool_print_error("crowd-inspect", err.message);
        goto done;
    }
    if (crowd_asset_load_memory(&asset, bytes, size, &err) != CROWD_OK ||
        crowd_container_read(bytes, size, &view, &err) != CROWD_OK) {
        char text[sizeof err.message];
        fprintf(stderr, "crowd-inspect: %s: %s\n", path, tool_flag_text(err.message, text, sizeof text));
        goto done;
    }
    if (json)
        print_json(size, &asset, &view);
    else
        print_text(path, size, &asset, &view);
    status = 0;
done:
    crowd_asset_free(&asset);
    free(bytes);
    return tool_finish_stdout("crowd-inspect", status);
}
