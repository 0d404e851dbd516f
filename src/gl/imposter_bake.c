/* Baking the imposter atlas: the asset's clips rendered by this renderer (the same shaders the
 * mesh levels draw with) into a small framebuffer, one tile at a time, read back and filtered down.
 * A one-off at bake time, so readbacks and GL queries are fine here. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/view_matrices.h"
#include "core/alloc.h"
#include "core/error.h"
#include "gl/renderer_internal.h"

typedef struct tile_view {
    float view[16], projection[16];
} tile_view;

static void view_axes(float yaw, float elevation, float d[3], float right[3], float up[3])
{
    d[0] = sinf(yaw) * cosf(elevation), d[1] = sinf(elevation), d[2] = cosf(yaw) * cosf(elevation);
    float rl = sqrtf(d[2] * d[2] + d[0] * d[0]);
    right[0] = d[2] / rl, right[1] = 0.0f, right[2] = -d[0] / rl; /* cross(+Y, d) */
    up[0] = d[1] * right[2] - d[2] * right[1];                    /* cross(d, right) */
    up[1] = d[2] * right[0] - d[0] * right[2];
    up[2] = d[0] * right[1] - d[1] * right[0];
}

/* The orthographic camera of asset.h's framing: the box's projection fills the tile exactly. */
static void frame_view(const crowd_imposter_clip *clip, float yaw, float elevation, tile_view *t)
{
    float d[3], right[3], up[3], lo[3] = {1e30f, 1e30f, 1e30f}, hi[3] = {-1e30f, -1e30f, -1e30f};
    view_axes(yaw, elevation, d, right, up);
    for (int i = 0; i < 8; i++) {
        float q[3] = {(i & 1) ? clip->box_max[0] : clip->box_min[0], (i & 2) ? clip->box_max[1] : clip->box_min[1],
                      (i & 4) ? clip->box_max[2] : clip->box_min[2]};
        float p[3] = {q[0] * right[0] + q[1] * right[1] + q[2] * right[2], q[0] * up[0] + q[1] * up[1] + q[2] * up[2],
                      q[0] * d[0] + q[1] * d[1] + q[2] * d[2]};
        for (int k = 0; k < 3; k++)
            lo[k] = fminf(lo[k], p[k]), hi[k] = fmaxf(hi[k], p[k]);
    }
    float distance = hi[2] + 1.0f; /* the eye sits on d, in front of the box */
    float m[16] = {right[0], up[0], d[0], 0, right[1], up[1], d[1], 0, right[2], up[2], d[2], 0, 0, 0, -distance, 1};
    memcpy(t->view, m, sizeof m);
    if (hi[0] - lo[0] < 1e-6f)
        hi[0] = lo[0] + 1e-6f;
    if (hi[1] - lo[1] < 1e-6f)
        hi[1] = lo[1] + 1e-6f;
    cb_orthographic(t->projection, lo[0], hi[0], lo[1], hi[1], distance - hi[2] - 0.5f, distance - lo[2] + 0.5f);
}

static crowd_result clip_boxes(const crowd_asset *a, crowd_imposter_clip *clips, crowd_error *error)
{
    for (uint32_t c = 0; c < a->clip_count; c++) {
        crowd_imposter_clip *k = &clips[c];
        for (int i = 0; i < 3; i++)
            k->box_min[i] = 1e30f, k->box_max[i] = -1e30f;
        for (uint32_t f = 0; f < a->clips[c].frame_count; f++)
            for (uint32_t v = 0; v < a->vertex_count; v++) {
                float p[3], n[3];
                crowd_result r = crowd_asset_decode_vertex(a, a->clips[c].first_frame + f, v, p, n);
                if (r != CROWD_OK)
                    return crowd_fail(error, r, "crowd_gl_bake_imposters: clip %u frame %u undecodable", c, f);
                for (int i = 0; i < 3; i++)
                    k->box_min[i] = fminf(k->box_min[i], p[i]), k->box_max[i] = fmaxf(k->box_max[i], p[i]);
            }
        for (int i = 0; i < 3; i++) { /* half a texel of margin keeps edge pixels inside the tile */
            float pad = 0.01f * (k->box_max[1] - k->box_min[1]);
            k->box_min[i] -= pad, k->box_max[i] += pad;
        }
    }
    return CROWD_OK;
}

static float srgb_to_linear(uint8_t v)
{
    return powf((float)v / 255.0f, 2.2f);
}

/* Filters the supersampled passes of one tile into the atlas: alpha = covered fraction, colour
 * and normal averaged over covered samples, the tint mask from the white- and black-tint passes. */
static void resolve_tile(const uint8_t *white, const uint8_t *black, const uint8_t *normal, uint32_t tile, uint32_t ss,
                         uint8_t *albedo_out, uint8_t *normal_out, uint32_t stride)
{
    uint32_t side = tile * ss;
    for (uint32_t y = 0; y < tile; y++)
        for (uint32_t x = 0; x < tile; x++) {
            float col[3] = {0, 0, 0}, nrm[3] = {0, 0, 0}, mask = 0.0f;
            uint32_t covered = 0;
            for (uint32_t sy = 0; sy < ss; sy++)
                for (uint32_t sx = 0; sx < ss; sx++) {
                    /* GL rows are bottom-up; tile row 0 is the top */
                    size_t i = ((size_t)(side - 1 - (y * ss + sy)) * side + x * ss + sx) * 4;
                    if (white[i + 3] < 128)
                        continue;
                    covered++;
                    float w = 0.0f, b = 0.0f;
                    for (int k = 0; k < 3; k++) {
                        col[k] += white[i + k];
                        nrm[k] += normal[i + k];
                        w = fmaxf(w, srgb_to_linear(white[i + k]));
                        b = fmaxf(b, srgb_to_linear(black[i + k]));
                    }
                    mask += w > 1e-4f ? fminf(fmaxf(1.0f - b / w, 0.0f), 1.0f) : 0.0f;
                }
            uint8_t *oa = albedo_out + ((size_t)y * stride + x) * 4, *on = normal_out + ((size_t)y * stride + x) * 4;
            if (!covered) {
                memset(oa, 0, 4);
                on[0] = on[1] = on[2] = 128, on[3] = 0;
                continue;
            }
            for (int k = 0; k < 3; k++) {
                oa[k] = (uint8_t)lrintf(col[k] / (float)covered);
                on[k] = (uint8_t)lrintf(nrm[k] / (float)covered);
            }
            oa[3] = (uint8_t)lrintf(255.0f * (float)covered / (float)(ss * ss));
            on[3] = (uint8_t)lrintf(255.0f * mask / (float)covered);
        }
}

typedef struct bake_state {
    crowd *crowd;
    crowd_gl_renderer *renderer;
    GLuint fbo, color, depth;
    uint32_t side;
    uint8_t *pass[3];
    uint8_t accessories; /* the cards' attachments, worn in every tile */
} bake_state;

static void render_pass(bake_state *s, const tile_view *t, int which, uint8_t *out)
{
    crowd_variant look = {0};
    memset(look.tint, which == 1 ? 0 : 255, 3);
    look.accessories = s->accessories;
    crowd_set_variant(s->crowd, 0, &look);
    crowd_view view = {.viewport_height = (float)s->side};
    memcpy(view.view, t->view, sizeof view.view);
    memcpy(view.projection, t->projection, sizeof view.projection);
    const crowd_frame *f = crowd_update(s->crowd, 0.0f, &view);
    crowd_gl_upload(s->renderer, f, NULL);
    crowd_gl_scene scene = {0};
    memcpy(scene.view, t->view, sizeof scene.view);
    memcpy(scene.projection, t->projection, sizeof scene.projection);
    scene.sun_direction[1] = 1.0f;
    for (int k = 0; k < 3; k++)
        scene.sky_color[k] = scene.ground_color[k] = 1.0f; /* full, even ambient: the albedo */
    s->renderer->output_normals = which == 2;
    glBindFramebuffer(GL_FRAMEBUFFER, s->fbo);
    glViewport(0, 0, (GLsizei)s->side, (GLsizei)s->side);
    glClearColor(0, 0, 0, 0);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    crowd_gl_draw(s->renderer, f, &scene);
    s->renderer->output_normals = false;
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, (GLsizei)s->side, (GLsizei)s->side, GL_RGBA, GL_UNSIGNED_BYTE, out);
}

static crowd_result setup(bake_state *s, const crowd_asset *a, uint32_t lod, bool es, crowd_error *error)
{
    crowd_desc cd = {.asset = a, .capacity = 1, .far_pool = -1, .shadows = -1, .imposters = -1};
    /* always level `lod`: every level before it ends at once, it lasts past any camera */
    for (uint32_t k = 0; k < lod; k++)
        cd.lod_distances[k] = 1e-3f;
    if (lod < CROWD_MAX_LODS - 1)
        cd.lod_distances[lod] = 1e6f;
    cd.hysteresis = CROWD_HYSTERESIS_NONE;
    crowd_result r = crowd_create(&cd, &s->crowd, error);
    if (r != CROWD_OK)
        return r;
    crowd_set_count(s->crowd, 1);
    crowd_gl_desc gd = {.asset = a, .capacity = 16, .es = es, .path = CROWD_GL_PATH_CPU};
    if ((r = crowd_gl_create(&gd, &s->renderer, error)) != CROWD_OK)
        return r;
    crowd_gl_set_cross_fade(s->renderer, false);
    glGenFramebuffers(1, &s->fbo);
    glGenTextures(1, &s->color);
    glGenRenderbuffers(1, &s->depth);
    glBindTexture(GL_TEXTURE_2D, s->color);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, (GLsizei)s->side, (GLsizei)s->side, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
    glBindRenderbuffer(GL_RENDERBUFFER, s->depth);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT24, (GLsizei)s->side, (GLsizei)s->side);
    glBindFramebuffer(GL_FRAMEBUFFER, s->fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, s->color, 0);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, s->depth);
    if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
        return crowd_fail(error, CROWD_ERROR_GL, "crowd_gl_bake_imposters: tile framebuffer incomplete");
    if ((r = crowd_gl_set_target(s->renderer, s->fbo, 0, 0, (int)s->side, (int)s->side, error)) != CROWD_OK)
        return r;
    size_t bytes = (size_t)s->side * s->side * 4;
    for (int i = 0; i < 3; i++)
        if (!(s->pass[i] = crowd_malloc(bytes)))
            return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "crowd_gl_bake_imposters: out of memory");
    return crowd_gl_check("crowd_gl_bake_imposters: set-up", error);
}

static void teardown(bake_state *s)
{
    for (int i = 0; i < 3; i++)
        crowd_free(s->pass[i]);
    if (s->fbo) {
        glBindFramebuffer(GL_FRAMEBUFFER, 0);
        glDeleteFramebuffers(1, &s->fbo);
        glDeleteTextures(1, &s->color);
        glDeleteRenderbuffers(1, &s->depth);
    }
    crowd_gl_destroy(s->renderer);
    crowd_destroy(s->crowd);
}

static void resolve_desc(const crowd_gl_imposter_desc *in, crowd_gl_imposter_desc *d)
{
    *d = in ? *in : (crowd_gl_imposter_desc){0};
    d->frames = d->frames ? d->frames : 8;
    d->views = d->views ? d->views : 32;
    d->elevations = d->elevations ? d->elevations : 3;
    d->tile = d->tile ? d->tile : 32;
    d->supersample = d->supersample ? d->supersample : 3;
    bool given = false;
    for (uint32_t e = 0; e < CROWD_MAX_IMPOSTER_ELEVATIONS; e++)
        given |= d->elevation_deg[e] != 0.0f;
    /* The defaults are the ones whose cards matched the mesh best for their size (mean IoU against
     * the level they replace; tests/test_imposters' IMP_SPEC and IMP_ELEV measure others; figures in
     * docs/performance.md): the yaw gap is most of the error, thin limbs moving between views. */
    if (!given) /* spread over 5..40 degrees: a crowd seen from a person's to a drone's height */
        for (uint32_t e = 0; e < d->elevations && e < CROWD_MAX_IMPOSTER_ELEVATIONS; e++)
            d->elevation_deg[e] = d->elevations == 1 ? 10.0f : 35.0f * (float)e / (float)(d->elevations - 1) + 5.0f;
}

/* The level to bake from, and the desc's ranges. */
static crowd_result check_desc(const crowd_asset *a, const crowd_gl_imposter_desc *d, uint32_t *lod, crowd_error *error)
{
    if (d->frames > CROWD_MAX_IMPOSTER_FRAMES || d->views > CROWD_MAX_IMPOSTER_VIEWS ||
        d->elevations > CROWD_MAX_IMPOSTER_ELEVATIONS || d->tile > CROWD_MAX_IMPOSTER_TILE || d->supersample > 8)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT,
                          "crowd_gl_imposter_desc: frames 1..%u, views 1..%u, elevations 1..%u, tile 1..%u, "
                          "supersample 1..8",
                          CROWD_MAX_IMPOSTER_FRAMES, CROWD_MAX_IMPOSTER_VIEWS, CROWD_MAX_IMPOSTER_ELEVATIONS,
                          CROWD_MAX_IMPOSTER_TILE);
    *lod = d->lod == CROWD_MAX_LOD_ZERO ? 0 : d->lod ? d->lod : a->lod_count >= 2 ? a->lod_count - 2 : 0;
    if (*lod >= a->lod_count)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_gl_imposter_desc.lod: %u, but the asset has levels 0..%u",
                          *lod, a->lod_count - 1);
    for (uint32_t e = 0; e < d->elevations; e++)
        if (!(fabsf(d->elevation_deg[e]) <= 89.0f) || (e && !(d->elevation_deg[e] > d->elevation_deg[e - 1])))
            return crowd_fail(error, CROWD_ERROR_ARGUMENT,
                              "crowd_gl_imposter_desc.elevation_deg: increasing angles within +-89 degrees");
    if (d->attachment_count > CROWD_GL_MAX_IMPOSTER_ATTACHMENTS || (d->attachment_count && !d->attachments))
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_gl_imposter_desc: %u attachments (at most %u, non-NULL)",
                          d->attachment_count, CROWD_GL_MAX_IMPOSTER_ATTACHMENTS);
    return CROWD_OK;
}

/* The cards' attachments: on the bake's renderer, each worn (accessory bit k for the k-th) at every
 * level, and the clips' boxes grown to hold them. */
static crowd_result dress_cards(bake_state *s, const crowd_asset *a, const crowd_gl_imposter_desc *d,
                                crowd_imposter_clip *clips, crowd_error *error)
{
    for (uint32_t k = 0; k < d->attachment_count; k++) {
        crowd_gl_attachment_desc at = d->attachments[k];
        at.accessory_bit = k, at.max_lod = CROWD_MAX_LOD_ALL, at.min_pixels = 0.0f;
        crowd_result r = crowd_gl_add_attachment(s->renderer, &at, NULL, error);
        if (r != CROWD_OK) {
            crowd_error_prefix(error, "crowd_gl_imposter_desc.attachments[%u]: ", k);
            return r;
        }
        uint32_t socket = 0;
        crowd_asset_find_socket(a, at.socket, &socket); /* (the renderer found it) */
        for (uint32_t c = 0; c < a->clip_count; c++)
            crowd_gl_attachment_box(a, &a->sockets[socket], at.positions, at.vertex_count, c, clips[c].box_min,
                                    clips[c].box_max);
        s->accessories |= (uint8_t)(1u << k);
    }
    return CROWD_OK;
}

/* Where the tiles go: a row-major grid of `columns` tiles of d->tile texels. */
typedef struct atlas_layout {
    uint32_t columns, width, height;
    size_t bytes; /* of one RGBA8 atlas */
} atlas_layout;

static crowd_result layout_atlas(const crowd_gl_imposter_desc *d, uint64_t tiles, atlas_layout *out, crowd_error *error)
{
    uint32_t columns = CROWD_MAX_TEXTURE_DIM / d->tile;
    if (columns > 64)
        columns = 64; /* a 2048-wide atlas at the default tile: uploads everywhere */
    if (tiles < columns)
        columns = (uint32_t)tiles;
    uint64_t rows = (tiles + columns - 1) / columns;
    if (rows * d->tile > CROWD_MAX_TEXTURE_DIM)
        return crowd_fail(error, CROWD_ERROR_LIMIT, "imposter atlas of %llu tiles of %u texels exceeds %u x %u",
                          (unsigned long long)tiles, d->tile, CROWD_MAX_TEXTURE_DIM, CROWD_MAX_TEXTURE_DIM);
    *out = (atlas_layout){columns, columns * d->tile, (uint32_t)rows * d->tile, 0};
    out->bytes = (size_t)out->width * out->height * 4;
    return CROWD_OK;
}

/* Clip c's tiles: every frame from every view, each resolved into the two atlases. */
static void bake_clip(bake_state *s, const crowd_asset *a, const crowd_gl_imposter_desc *d, const atlas_layout *l,
                      uint32_t c, const crowd_imposter_clip *clip, uint8_t *albedo, uint8_t *normals)
{
    bool loops = (a->clips[c].flags & CROWD_CLIP_LOOP) != 0;
    for (uint32_t k = 0; k < d->frames; k++) {
        float phase = loops ? (float)k / (float)d->frames : d->frames > 1 ? (float)k / (float)(d->frames - 1) : 0.0f;
        if (loops)
            crowd_play(s->crowd, 0, c, 0.0f, 0.0f);
        else
            crowd_play_once(s->crowd, 0, c, 0.0f, 0.0f);
        crowd_set_phase(s->crowd, 0, phase);
        for (uint32_t e = 0; e < d->elevations; e++)
            for (uint32_t j = 0; j < d->views; j++) {
                tile_view t;
                frame_view(clip, 6.2831853f * (float)j / (float)d->views, d->elevation_deg[e] * 0.017453293f, &t);
                for (int p = 0; p < 3; p++)
                    render_pass(s, &t, p, s->pass[p]);
                uint32_t tile = clip->first_tile + (k * d->elevations + e) * d->views + j;
                size_t at =
                    ((size_t)(tile / l->columns) * d->tile * l->width + (size_t)(tile % l->columns) * d->tile) * 4;
                resolve_tile(s->pass[0], s->pass[1], s->pass[2], d->tile, d->supersample, albedo + at, normals + at,
                             l->width);
            }
    }
}

crowd_result crowd_gl_bake_imposters(const crowd_asset *a, const crowd_gl_imposter_desc *desc, bool es,
                                     crowd_imposters *out, crowd_error *error)
{
    if (!a || !out)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_gl_bake_imposters: NULL asset or output");
    memset(out, 0, sizeof *out);
    crowd_gl_imposter_desc d;
    resolve_desc(desc, &d);
    uint32_t lod = 0;
    uint64_t per_clip = (uint64_t)d.frames * d.views * d.elevations;
    atlas_layout l = {0};
    crowd_result r = check_desc(a, &d, &lod, error);
    if (r == CROWD_OK)
        r = layout_atlas(&d, per_clip * a->clip_count, &l, error);
    if (r != CROWD_OK)
        return r;
    bake_state s = {.side = d.tile * d.supersample};
    crowd_imposter_clip *clips = crowd_calloc(a->clip_count, sizeof *clips);
    uint8_t *albedo = crowd_calloc(1, l.bytes), *normals = crowd_calloc(1, l.bytes);
    if (!clips || !albedo || !normals) {
        r = crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "crowd_gl_bake_imposters: out of memory for %zu bytes",
                       2 * l.bytes);
        goto fail;
    }
    if ((r = clip_boxes(a, clips, error)) || (r = setup(&s, a, lod, es, error)) ||
        (r = dress_cards(&s, a, &d, clips, error)))
        goto fail;
    for (uint32_t c = 0; c < a->clip_count; c++) {
        clips[c].first_tile = (uint32_t)(per_clip * c);
        bake_clip(&s, a, &d, &l, c, &clips[c], albedo, normals);
    }
    if ((r = crowd_gl_check("crowd_gl_bake_imposters: rendering", error)) != CROWD_OK)
        goto fail;
    teardown(&s);
    out->frames = d.frames, out->views = d.views, out->elevations = d.elevations, out->tile = d.tile;
    for (uint32_t e = 0; e < d.elevations; e++)
        out->elevation[e] = d.elevation_deg[e] * 0.017453293f;
    out->clip_count = a->clip_count;
    out->clips = clips;
    out->albedo = (crowd_texture){l.width, l.height, CROWD_TEXEL_RGBA8, 4, albedo, l.bytes};
    out->normals = (crowd_texture){l.width, l.height, CROWD_TEXEL_RGBA8, 4, normals, l.bytes};
    return CROWD_OK;
fail:
    teardown(&s);
    crowd_free(clips);
    crowd_free(albedo);
    crowd_free(normals);
    return r;
}

void crowd_gl_imposters_free(crowd_imposters *m)
{
    if (!m)
        return;
    crowd_free((void *)m->clips);
    crowd_free((void *)m->albedo.data);
    crowd_free((void *)m->normals.data);
    memset(m, 0, sizeof *m);
}
