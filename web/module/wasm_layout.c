/* The byte layout of every public struct the JavaScript module reads or writes, as JSON, so that
 * crowdbake.mjs fills a crowd_desc or reads a crowd_stats at the offsets this compiler chose and
 * never keeps a second copy of them. Each field: [name, offset, type, count]; types are the
 * reader's: u8 i32 u32 f32 f64 u64 bool ptr. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "crowdbake/crowd.h"
#include "crowdbake/gl.h"
#include "crowdbake/sim.h"
#include "wasm_module.h"

typedef struct field {
    const char *name;
    size_t offset;
    const char *type;
    size_t count;
} field;

typedef struct layout {
    const char *name;
    size_t size;
    const field *fields;
    size_t field_count;
} layout;

#define F(s, m, t)               \
    {                            \
#m, offsetof(s, m), t, 1 \
    }
#define A(s, m, t, n)            \
    {                            \
#m, offsetof(s, m), t, n \
    }
#define LAYOUT(s, list)                                     \
    {                                                       \
#s, sizeof(s), list, sizeof(list) / sizeof(list[0]) \
    }

static const field error_fields[] = {F(crowd_error, code, "i32"), A(crowd_error, message, "u8", 512)};

static const field desc_fields[] = {
    F(crowd_desc, asset, "ptr"),
    F(crowd_desc, capacity, "u32"),
    F(crowd_desc, world_size, "f32"),
    F(crowd_desc, chunk_size, "f32"),
    F(crowd_desc, lod_policy, "i32"),
    F(crowd_desc, lod_pivot, "i32"),
    A(crowd_desc, lod_distances, "f32", CROWD_MAX_LODS - 1),
    F(crowd_desc, lod_bias, "f32"),
    A(crowd_desc, screen_coverage, "f32", CROWD_MAX_LODS),
    F(crowd_desc, min_coverage, "f32"),
    F(crowd_desc, hysteresis, "f32"),
    F(crowd_desc, vertex_budget, "u32"),
    F(crowd_desc, shadow_max_lod, "u32"),
    F(crowd_desc, cross_fade_max_lod, "u32"),
    F(crowd_desc, far_pool, "i32"),
    F(crowd_desc, shadows, "i32"),
    F(crowd_desc, threads, "u32"),
    F(crowd_desc, imposters, "i32"),
    F(crowd_desc, imposter_band, "f32"),
    F(crowd_desc, marker_events, "i32"),
    F(crowd_desc, event_capacity, "u32"),
};

static const field view_fields[] = {
    A(crowd_view, view, "f32", 16), A(crowd_view, projection, "f32", 16), F(crowd_view, viewport_height, "f32"),
    F(crowd_view, culling, "i32"),  F(crowd_view, cull_margin, "f32"),
};

static const field stats_fields[] = {
    F(crowd_stats, simulated, "u32"),
    F(crowd_stats, submitted, "u32"),
    F(crowd_stats, rasterised, "u32"),
    F(crowd_stats, draws, "u32"),
    F(crowd_stats, shadow_draws, "u32"),
    F(crowd_stats, triangles, "u64"),
    F(crowd_stats, shadow_triangles, "u64"),
    F(crowd_stats, bytes_uploaded, "u64"),
    A(crowd_stats, lod_histogram, "u32", CROWD_MAX_LODS),
    F(crowd_stats, chunks_visible, "u32"),
    F(crowd_stats, chunks_total, "u32"),
    F(crowd_stats, demoted, "u32"),
    F(crowd_stats, budget_satisfied, "bool"),
    F(crowd_stats, fades_active, "u32"),
    F(crowd_stats, extrapolating, "bool"),
    F(crowd_stats, ms_bin, "f32"),
    F(crowd_stats, ms_lod, "f32"),
    F(crowd_stats, ms_gather, "f32"),
    F(crowd_stats, ms_output, "f32"),
    F(crowd_stats, events, "u32"),
    F(crowd_stats, events_dropped, "u32"),
    F(crowd_stats, one_shots, "u32"),
    F(crowd_stats, ms_events, "f32"),
};

static const field frame_fields[] = {
    F(crowd_frame, draw_count, "u32"),  F(crowd_frame, record_count, "u32"), F(crowd_frame, upload_count, "u32"),
    F(crowd_frame, time, "f32"),        F(crowd_frame, stats, "struct"),     F(crowd_frame, events, "ptr"),
    F(crowd_frame, event_count, "u32"),
};

static const field event_fields[] = {
    F(crowd_event, kind, "i32"),   F(crowd_event, instance, "u32"), F(crowd_event, clip, "u32"),
    F(crowd_event, detail, "u32"), F(crowd_event, time, "f32"),
};

static const field record_fields[] = {
    A(crowd_record, position, "f32", 3), F(crowd_record, yaw, "f32"),     F(crowd_record, offset_a, "f32"),
    F(crowd_record, rate_a, "f32"),      F(crowd_record, scale, "f32"),   F(crowd_record, ref_time, "f32"),
    F(crowd_record, offset_b, "f32"),    F(crowd_record, rate_b, "f32"),  F(crowd_record, fade_start, "f32"),
    F(crowd_record, fade_rate, "f32"),   F(crowd_record, clips, "u32"),   F(crowd_record, velocity, "u32"),
    F(crowd_record, tint, "u32"),        F(crowd_record, variant, "u32"),
};

static const field variant_fields[] = {
    A(crowd_variant, tint, "u8", 3),
    A(crowd_variant, region_choice, "u8", 6),
    F(crowd_variant, accessories, "u8"),
};

static const field spawn_fields[] = {
    F(crowd_spawn_options, scale_min, "f32"),
    F(crowd_spawn_options, scale_max, "f32"),
    F(crowd_spawn_options, shirts, "i32"),
    F(crowd_spawn_options, saturation_min, "f32"),
    F(crowd_spawn_options, saturation_max, "f32"),
    F(crowd_spawn_options, value_min, "f32"),
    F(crowd_spawn_options, value_max, "f32"),
    F(crowd_spawn_options, accessories, "i32"),
    A(crowd_spawn_options, accessory_odds, "f32", 8),
    F(crowd_spawn_options, idle_clip, "ptr"),
    F(crowd_spawn_options, cheer_clip, "ptr"),
};

static const field sim_desc_fields[] = {
    F(crowd_sim_desc, target, "ptr"),
    F(crowd_sim_desc, scenario, "i32"),
    F(crowd_sim_desc, obstacles, "ptr"),
    F(crowd_sim_desc, obstacle_count, "u32"),
    F(crowd_sim_desc, separation, "i32"),
    F(crowd_sim_desc, separation_limit, "u32"),
    F(crowd_sim_desc, separation_radius, "f32"),
    F(crowd_sim_desc, seed, "u32"),
    F(crowd_sim_desc, lod_distance, "f32"),
    F(crowd_sim_desc, lod_interval, "u32"),
    F(crowd_sim_desc, offscreen_interval, "u32"),
    F(crowd_sim_desc, spawn, "struct"),
};

static const field sim_stats_fields[] = {
    F(crowd_sim_stats, ms_step, "f64"),   F(crowd_sim_stats, ms_separation, "f64"),
    F(crowd_sim_stats, rewritten, "u32"), F(crowd_sim_stats, asleep, "u32"),
    F(crowd_sim_stats, separated, "u32"), F(crowd_sim_stats, separation_active, "bool"),
};

static const field gl_desc_fields[] = {
    F(crowd_gl_desc, asset, "ptr"),
    F(crowd_gl_desc, sizing_crowd, "ptr"),
    F(crowd_gl_desc, capacity, "u32"),
    F(crowd_gl_desc, mode, "i32"),
    F(crowd_gl_desc, path, "i32"),
    F(crowd_gl_desc, lod_band, "f32"),
    F(crowd_gl_desc, shadow_map_size, "u32"),
    F(crowd_gl_desc, shadow_source, "ptr"),
    F(crowd_gl_desc, tint, "i32"),
    F(crowd_gl_desc, tint_region, "u32"),
    F(crowd_gl_desc, upload, "i32"),
    F(crowd_gl_desc, es, "bool"),
    F(crowd_gl_desc, debug, "bool"),
    F(crowd_gl_desc, timers, "bool"),
    F(crowd_gl_desc, velocity, "i32"),
};

static const field gl_scene_fields[] = {
    A(crowd_gl_scene, view, "f32", 16),
    A(crowd_gl_scene, projection, "f32", 16),
    A(crowd_gl_scene, sun_direction, "f32", 3),
    A(crowd_gl_scene, sun_color, "f32", 3),
    A(crowd_gl_scene, sky_color, "f32", 3),
    A(crowd_gl_scene, ground_color, "f32", 3),
    A(crowd_gl_scene, fog_color, "f32", 3),
    F(crowd_gl_scene, fog_density, "f32"),
    F(crowd_gl_scene, shadows, "bool"),
    F(crowd_gl_scene, flat_color, "bool"),
    F(crowd_gl_scene, output, "i32"),
    F(crowd_gl_scene, exposure, "f32"),
    F(crowd_gl_scene, far_shadow, "i32"),
    F(crowd_gl_scene, previous, "i32"),
    A(crowd_gl_scene, previous_view_projection, "f32", 16),
    F(crowd_gl_scene, previous_time, "f32"),
    F(crowd_gl_scene, velocity_units, "i32"),
};

static const field gl_stats_fields[] = {
    F(crowd_gl_stats, draws, "u32"),          F(crowd_gl_stats, shadow_draws, "u32"),
    F(crowd_gl_stats, triangles, "u64"),      F(crowd_gl_stats, shadow_triangles, "u64"),
    F(crowd_gl_stats, bytes_uploaded, "u64"), F(crowd_gl_stats, capacity, "u32"),
    F(crowd_gl_stats, timers, "bool"),        F(crowd_gl_stats, gpu_shadow_ms, "f64"),
    F(crowd_gl_stats, gpu_color_ms, "f64"),
};

static const layout layouts[] = {
    LAYOUT(crowd_error, error_fields),         LAYOUT(crowd_desc, desc_fields),
    LAYOUT(crowd_view, view_fields),           LAYOUT(crowd_stats, stats_fields),
    LAYOUT(crowd_frame, frame_fields),         LAYOUT(crowd_record, record_fields),
    LAYOUT(crowd_event, event_fields),         LAYOUT(crowd_variant, variant_fields),
    LAYOUT(crowd_spawn_options, spawn_fields), LAYOUT(crowd_sim_desc, sim_desc_fields),
    LAYOUT(crowd_sim_stats, sim_stats_fields), LAYOUT(crowd_gl_desc, gl_desc_fields),
    LAYOUT(crowd_gl_scene, gl_scene_fields),   LAYOUT(crowd_gl_stats, gl_stats_fields),
};

static size_t write_layout(char *out, size_t room, const layout *l)
{
    size_t used = (size_t)snprintf(out, room, "\"%s\":{\"size\":%zu,\"fields\":[", l->name, l->size);
    for (size_t i = 0; i < l->field_count && used < room; i++) {
        const field *f = &l->fields[i];
        used += (size_t)snprintf(out + used, room - used, "%s[\"%s\",%zu,\"%s\",%zu]", i ? "," : "", f->name, f->offset,
                                 f->type, f->count);
    }
    if (used < room)
        used += (size_t)snprintf(out + used, room - used, "]}");
    return used;
}

const char *cbw_layouts_json(void)
{
    static char json[16384];
    size_t used =
        (size_t)snprintf(json, sizeof json, "{\"crowd_asset\":{\"size\":%zu,\"fields\":[]}", sizeof(crowd_asset));
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0] && used < sizeof json; i++) {
        used += (size_t)snprintf(json + used, sizeof json - used, ",");
        if (used < sizeof json)
            used += write_layout(json + used, sizeof json - used, &layouts[i]);
    }
    if (used + 2 >= sizeof json)
        return "";
    memcpy(json + used, "}", 2);
    return json;
}
