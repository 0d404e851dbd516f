// minimal.c in C++11: the public headers are plain C with extern "C", so an engine includes them
// as they are. Zero-initialise the descs with {} (C++11 has no designated initialisers) and set
// what you need.   Usage: minimal_cpp [file.crowd]
#include <cmath>
#include <cstdio>
#include <cstring>

#include "crowdbake/bake.h"
#include "crowdbake/crowd.h"

namespace {

// The asset, either loaded from a file or baked in memory; released in one place.
struct Asset {
    crowd_asset asset = {};
    crowd_bake_output baked = {};
    ~Asset()
    {
        crowd_asset_free(&asset);
        crowd_bake_output_free(&baked);
    }
    bool open(const char *path, crowd_error *err)
    {
        if (path)
            return crowd_asset_load_file(&asset, path, err) == CROWD_OK;
        crowd_rig rig;
        if (crowd_rig_build_humanoid(nullptr, &rig, err) != CROWD_OK)
            return false;
        crowd_bake_desc bake = {};
        bake.rig = &rig;
        bake.fps = 10;
        bool ok = crowd_bake(&bake, &baked, err) == CROWD_OK &&
                  crowd_asset_load_memory(&asset, baked.bytes, baked.size, err) == CROWD_OK;
        crowd_rig_free(&rig);
        return ok;
    }
    uint32_t clip(const char *name) const
    {
        for (uint32_t i = 0; i < asset.clip_count; i++)
            if (std::strcmp(asset.clips[i].name, name) == 0)
                return i;
        return 0;
    }
};

// A camera at (0, 10, 30) looking at the origin (column-major, as crowd_view wants).
void camera(crowd_view *view)
{
    const float len = std::sqrt(10.0f * 10.0f + 30.0f * 30.0f), fy = -10 / len, fz = -30 / len;
    const float e[3] = {0, 10, 30}, u[3] = {0, -fz, fy};
    const float v[16] = {
        1, u[0], 0, 0, 0, u[1], -fy, 0, 0, u[2], -fz, 0, -e[0], -(u[1] * e[1] + u[2] * e[2]), fy * e[1] + fz * e[2], 1};
    const float n = 0.1f, f = 500.0f, t = 1.0f / std::tan(0.5f * 0.87f), aspect = 16.0f / 9.0f;
    const float p[16] = {t / aspect, 0, 0, 0, 0, t, 0, 0, 0, 0, (f + n) / (n - f), -1, 0, 0, 2 * f * n / (n - f), 0};
    std::memcpy(view->view, v, sizeof v);
    std::memcpy(view->projection, p, sizeof p);
    view->viewport_height = 720;
}

} // namespace

int main(int argc, char **argv)
{
    crowd_error err;
    Asset a;
    if (!a.open(argc > 1 ? argv[1] : nullptr, &err)) {
        std::fprintf(stderr, "asset: %s\n", err.message);
        return 1;
    }
    std::printf("asset: %u vertices, %u clips, %u LODs\n", a.asset.vertex_count, a.asset.clip_count, a.asset.lod_count);

    crowd_desc desc = {};
    desc.asset = &a.asset;
    desc.capacity = 1000;
    crowd *c = nullptr;
    if (crowd_create(&desc, &c, &err) != CROWD_OK) {
        std::fprintf(stderr, "crowd: %s\n", err.message);
        return 1;
    }
    crowd_set_count(c, 100);
    const uint32_t walk = a.clip("walk");
    for (uint32_t i = 0; i < 100; i++) {
        crowd_set_transform(c, i, 2.0f * float(i % 10) - 9.0f, 0.0f, 2.0f * float(i / 10) - 9.0f, 0.0f);
        crowd_play(c, i, walk, 1.0f, 0.0f);
        crowd_set_speed(c, i, 1.2f);
    }
    crowd_play(c, 0, a.clip("wave"), 1.0f, 0.25f);

    crowd_view view = {}; /* zeroed: CPU culling, no margin; camera() fills the matrices */
    camera(&view);
    const crowd_frame *frame = nullptr;
    for (int f = 0; f < 5; f++)
        frame = crowd_update(c, 1.0f / 60.0f, &view);
    std::printf("time %.4f s: %u draws, %u records\n", double(frame->time), frame->draw_count, frame->record_count);
    for (uint32_t d = 0; d < frame->draw_count; d++)
        std::printf("  draw %u: LOD %u, %u instances from record %u\n", d, frame->draws[d].lod, frame->draws[d].count,
                    frame->draws[d].first);
    const bool drew = frame->draw_count > 0;
    crowd_destroy(c);
    return drew ? 0 : 1;
}
