/* Motion vectors (crowd_gl_desc.velocity) on a real GL driver (Mesa llvmpipe through EGL), at
 * 1920 x 1080 into float targets the test attaches itself.
 *
 * Ground truth: the crowd's world positions rendered at the two times. Frame A at time t0 from
 * camera C0 writes each pixel's world position (P0); frame B at t1 from C1 writes the velocity (V),
 * and the same frame B again writes the world position now (W1) and a frame earlier (Wp). (The
 * renderer's test output, output.glsl, writes the pixel's window position and depth now and the
 * clip-space position then; the inverse view-projections, in double precision, take them back to
 * world space.) Two checks per pixel of the crowd:
 *  - Wp is where the crowd really was: projected with C0 it lands on a pixel of frame A whose
 *    position P0 is Wp (within the pixel's footprint), so the decode "a frame earlier" agrees with
 *    an actual render at t0 (positions, turns, fades, one-shots, cards facing C0, attachments);
 *  - V equals the finite difference of the projected positions, C1 x W1 - C0 x Wp in pixels,
 *    within 0.5 px on at least 99 % of each kind of instance's pixels.
 * On the CPU path (ES 3.0, or desktop 3.3 core) and the GPU-driven path (desktop), VAT and bones. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "common/cbmath.h"
#include "common/view_matrices.h"
#include "crowd/crowd_client.h"
#include "crowd/crowd_internal.h"
#include "crowd/record.h"
#include "crowdbake/gl.h"
#include "gl/gl_api.h"
#include "gl/renderer_internal.h"
#include "gl_fixture.h"
#include "test_support.h"

#define W 1920
#define H 1080

enum { WALKERS, FADING, TURNING, ONE_SHOTS, CARDS, ATTACHMENTS, KINDS };
static const char *const kind_names[KINDS] = {"walking", "cross-fading", "turning", "one-shot", "card", "attachment"};

static tool_gl gl;
static crowd_bake_output baked;
static crowd_asset plain, asset; /* asset: with a small imposter atlas */
static crowd_imposters atlas;
static uint8_t *with_atlas;
static size_t with_atlas_size;
static GLuint fbo, targets[2], depth;
/* the separate pass's framebuffer: target 1 as colour attachment 0 (GLES maps output i to attachment
   i only), with the same depth buffer */
static GLuint velocity_fbo;
static float *img_p0, *img_velocity, *img_now, *img_then, *img_bare; /* RGBA32F, W x H, rows bottom-up */

typedef struct camera {
    float view[16], projection[16], view_projection[16];
} camera;

static camera make_camera(float ex, float ey, float ez, float tx, float ty, float tz)
{
    camera c = {{0}};
    const float eye[3] = {ex, ey, ez}, target[3] = {tx, ty, tz}, up[3] = {0, 1, 0};
    cb_look_at(c.view, eye, target, up);
    cb_perspective(c.projection, 50.0f * 3.14159265f / 180.0f, (float)W / H, 0.1f, 500.0f);
    cb_mat4_mul(c.view_projection, c.projection, c.view);
    return c;
}

static void make_targets(void)
{
    glGenFramebuffers(1, &fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glGenTextures(2, targets);
    for (int i = 0; i < 2; i++) {
        glBindTexture(GL_TEXTURE_2D, targets[i]);
        glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA32F, W, H);
        glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0 + (GLenum)i, GL_TEXTURE_2D, targets[i], 0);
    }
    glGenRenderbuffers(1, &depth);
    glBindRenderbuffer(GL_RENDERBUFFER, depth);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT24, W, H);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, depth);
    const GLenum buffers[2] = {GL_COLOR_ATTACHMENT0, GL_COLOR_ATTACHMENT1};
    glDrawBuffers(2, buffers);
    REQUIRE(glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE);
    glGenFramebuffers(1, &velocity_fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, velocity_fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, targets[1], 0);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, depth);
    REQUIRE(glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glViewport(0, 0, W, H);
}

static float *new_image(void)
{
    float *image = malloc((size_t)W * H * 16);
    if (!image)
        exit(1);
    return image;
}

static void read_target(int which, float *out)
{
    glReadBuffer(GL_COLOR_ATTACHMENT0 + (GLenum)which);
    glReadPixels(0, 0, W, H, GL_RGBA, GL_FLOAT, out);
}

/* m^-1 by Gauss-Jordan with partial pivoting, in double (column-major in and out). */
static void invert(const float m[16], double out[16])
{
    double a[4][8];
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 8; c++)
            a[r][c] = c < 4 ? (double)m[c * 4 + r] : (c - 4 == r);
    for (int c = 0; c < 4; c++) {
        int p = c;
        for (int r = c + 1; r < 4; r++)
            p = fabs(a[r][c]) > fabs(a[p][c]) ? r : p;
        for (int k = 0; k < 8; k++) {
            double t = a[c][k];
            a[c][k] = a[p][k], a[p][k] = t;
        }
        for (int r = 0; r < 4; r++) {
            double f = r == c ? 0.0 : a[r][c] / a[c][c];
            for (int k = 0; k < 8; k++)
                a[r][k] -= f * a[c][k];
        }
    }
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++)
            out[c * 4 + r] = a[r][c + 4] / a[r][r];
}

/* An image of clip-space positions (w = 0: nothing drawn) to world positions (w = 1) through the
 * inverse of the view-projection that made them. With `window`, the image holds window positions
 * (x, y in pixels, depth in 0..1, w = 1) instead, taken back to NDC first. */
static void to_world(float *image, const float view_projection[16], bool window)
{
    double inv[16];
    invert(view_projection, inv);
    for (size_t i = 0; i < (size_t)W * H; i++) {
        float *p = image + 4 * i;
        if (p[3] == 0.0f)
            continue;
        if (window)
            p[0] = p[0] / W * 2.0f - 1.0f, p[1] = p[1] / H * 2.0f - 1.0f, p[2] = p[2] * 2.0f - 1.0f;
        double q[4];
        for (int r = 0; r < 4; r++)
            q[r] = inv[r] * p[0] + inv[4 + r] * p[1] + inv[8 + r] * p[2] + inv[12 + r] * p[3];
        for (int k = 0; k < 3; k++)
            p[k] = (float)(q[k] / q[3]);
        p[3] = 1.0f;
    }
}

/* A 0.36 m box around the head socket: every near instance wears it (accessory bit 0). */
static uint32_t add_box(crowd_gl_renderer *r)
{
    static float positions[24], normals[24];
    static const uint32_t indices[36] = {0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4,
                                         2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5};
    for (int v = 0; v < 8; v++)
        for (int k = 0; k < 3; k++) {
            float s = (v >> k) & 1 ? 1.0f : -1.0f;
            positions[v * 3 + k] = 0.18f * s + (k == 1 ? 0.1f : 0.0f);
            normals[v * 3 + k] = s * 0.57735f;
        }
    crowd_gl_attachment_desc d = {positions, normals, 8, indices, 36, "head", {200, 40, 40, 255}, 0, 7};
    uint32_t index = 0;
    crowd_error err = {0};
    CHECKF(crowd_gl_add_attachment(r, &d, &index, &err) == CROWD_OK, "%s", err.message);
    return index;
}

static crowd_gl_renderer *make_renderer_with(crowd_gl_path path, crowd_gl_mode mode, bool box,
                                             crowd_gl_velocity velocity)
{
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    crowd_gl_desc d = {.asset = &asset,
                       .capacity = 256,
                       .mode = mode,
                       .path = path,
                       .lod_band = -1.0f,
                       .shadow_map_size = 256,
                       .es = gl.es,
                       .velocity = velocity};
    crowd_gl_renderer *r = NULL;
    crowd_error err = {0};
    if (crowd_gl_create(&d, &r, &err) != CROWD_OK) {
        fprintf(stderr, "crowd_gl_create: %s\n", err.message);
        exit(1);
    }
    if (box)
        add_box(r);
    return r;
}

static crowd_gl_renderer *make_renderer(crowd_gl_path path, crowd_gl_mode mode, bool box)
{
    return make_renderer_with(path, mode, box, CROWD_GL_VELOCITY_MRT);
}

/* Near instances (15 to 25 m from the cameras, mesh level 0) in four groups along x, one kind each,
 * all wearing the box; far ones (75 to 95 m) on cards. */
static crowd *make_crowd(void)
{
    crowd_desc d = {.asset = &asset,
                    .capacity = 96,
                    .world_size = 240.0f,
                    .chunk_size = 8.0f,
                    .far_pool = -1,
                    .shadows = -1,
                    .imposters = 1,
                    .imposter_band = CROWD_BAND_NONE};
    for (uint32_t l = 0; l + 1 < CROWD_MAX_LODS; l++)
        d.lod_distances[l] = l + 1 < asset.lod_count ? 40.0f + (float)l : l + 1 == asset.lod_count ? 50.0f : 1e5f;
    crowd *c = NULL;
    crowd_error err = {0};
    if (crowd_create(&d, &c, &err) != CROWD_OK) {
        fprintf(stderr, "crowd_create: %s\n", err.message);
        exit(1);
    }
    crowd_set_count(c, 96);
    uint32_t walk = clip_or_die(&asset, "walk");
    uint64_t rng = 7;
    for (uint32_t i = 0; i < 96; i++) {
        bool near = i < 48;
        uint32_t group = (i % 48) / 12, k = i % 12;
        float x =
            near ? -11.0f + 6.0f * (float)group + 1.7f * (float)(k % 3) : -30.0f + 60.0f * (float)test_uniform(&rng);
        float z = near ? -1.0f - 2.2f * (float)(k / 3) : -60.0f - 20.0f * (float)test_uniform(&rng);
        crowd_set_transform(c, i, x, 0.0f, z, (float)i * 0.7f);
        crowd_variant v = {{(uint8_t)(40 * i), (uint8_t)(200 - 13 * i), (uint8_t)(90 + 31 * i)}, {0}, near ? 1 : 0};
        crowd_set_variant(c, i, &v);
        crowd_play(c, i, walk, 1.0f / asset.clips[walk].duration, 0.0f);
        crowd_set_phase(c, i, (float)test_uniform(&rng));
        if (!near || group == WALKERS)
            crowd_set_velocity(c, i, 1.3f * sinf((float)i), 1.3f * cosf((float)i));
    }
    return c;
}

/* At crowd time 0.5: the fades (2 s, to run), the one-shots (cheer: half of them over by 1.0 and
 * held on the last frame, half still playing) and the turns (written into the records as the
 * simulation writes them). */
static void start_motions(crowd *c)
{
    uint32_t run = clip_or_die(&asset, "run"), cheer = clip_or_die(&asset, "cheer");
    for (uint32_t k = 0; k < 12; k++) {
        crowd_play(c, FADING * 12 + k, run, 1.0f / asset.clips[run].duration, 2.0f);
        float rate = (k % 2 ? 4.0f : 0.4f) / asset.clips[cheer].duration;
        crowd_play_once(c, ONE_SHOTS * 12 + k, cheer, rate, 0.0f);
        uint32_t slot = crowd_slot_of(c, TURNING * 12 + k);
        crowd_record *rec = &c->records[slot];
        float a = 0.9f * (float)k;
        rec->velocity = crowd_pack_velocity(1.4f * sinf(a), 1.4f * cosf(a));
        rec->ref_time = crowd_time(c);
        rec->offset_b = 1.4f * sinf(a + 2.0f), rec->rate_b = 1.4f * cosf(a + 2.0f);
        rec->fade_start = 1.5f, rec->fade_rate = 0.0f;
        crowd_rec_set_clip_b(rec, crowd_rec_clip_a(rec));
        rec->clips |= CROWD_RECORD_TURN;
        c->dirty[slot] = 1;
    }
}

static const crowd_frame *step(crowd *c, crowd_gl_renderer *r, const camera *cam, float dt)
{
    crowd_view view;
    crowd_gl_view(r, cam->view, cam->projection, H, &view);
    const crowd_frame *f = crowd_update(c, dt, &view);
    if (crowd_gl_upload(r, f, NULL) != CROWD_OK)
        exit(1);
    crowd_gl_cull(r, f, &view, NULL);
    return f;
}

/* One colour pass into the float targets: velocity (or with `positions` the test output). */
static void draw(crowd_gl_renderer *r, const crowd_frame *f, const crowd_gl_scene *s, bool positions)
{
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glViewport(0, 0, W, H);
    const float zero[4] = {0, 0, 0, 0};
    glClearBufferfv(GL_COLOR, 0, zero);
    glClearBufferfv(GL_COLOR, 1, zero);
    glClearBufferfi(GL_DEPTH_STENCIL, 0, 1.0f, 0);
    r->output_positions = positions;
    CHECK(crowd_gl_draw(r, f, s) == CROWD_OK);
    r->output_positions = false;
}

/* p projected by m to window pixels (x, y up), and its clip w. */
static double project(const float m[16], const float *p, double out[2])
{
    double c[4];
    for (int i = 0; i < 4; i++)
        c[i] = (double)m[i] * p[0] + (double)m[4 + i] * p[1] + (double)m[8 + i] * p[2] + (double)m[12 + i];
    out[0] = (c[0] / c[3] * 0.5 + 0.5) * W;
    out[1] = (c[1] / c[3] * 0.5 + 0.5) * H;
    return c[3];
}

typedef struct tally {
    uint32_t pixels, good, framed, placed, missing, control_missing;
    double worst, mean_speed;
} tally;

static int kind_of(size_t i)
{
    const float *w = img_now + 4 * i, *b = img_bare + 4 * i;
    if (b[3] == 0.0f || fabsf(b[0] - w[0]) + fabsf(b[1] - w[1]) + fabsf(b[2] - w[2]) > 1e-4f)
        return ATTACHMENTS; /* drawn with the box, not (or not there) without it */
    if (w[2] < -40.0f)
        return CARDS;
    int group = (int)floorf((w[0] + 13.0f) / 6.0f);
    return group < 0 ? 0 : group > ONE_SHOTS ? ONE_SHOTS : group;
}

/* Whether frame A drew point p (projected by C0 into its pixel): 1 when one of the 3 x 3 pixels
 * around holds p within two pixel footprints (a pixel centre is up to half a pixel off the point,
 * and on a surface seen edge-on that is far in depth), 0 when the pixel holds a surface nearer the
 * camera by more than that (p was hidden at t0: something moved in front), -1 when it holds nothing
 * or a surface behind p (frame A did not draw the crowd at p). 2: p falls outside the frame. */
static int seen_at_t0(const camera *c0, const float *p)
{
    double b[2];
    double w = project(c0->view_projection, p, b), footprint = w * 2.0 * tan(25.0 * 3.14159265 / 180.0) / H;
    int x = (int)floor(b[0]), y = (int)floor(b[1]);
    if (x < 1 || y < 1 || x >= W - 1 || y >= H - 1)
        return 2;
    double nearest = 1e30;
    for (int j = -1; j <= 1; j++)
        for (int k = -1; k <= 1; k++) {
            const float *q = img_p0 + 4 * ((size_t)(y + j) * W + (size_t)(x + k));
            double ex = (double)q[0] - p[0], ey = (double)q[1] - p[1], ez = (double)q[2] - p[2];
            if (q[3] != 0.0f)
                nearest = fmin(nearest, sqrt(ex * ex + ey * ey + ez * ez));
        }
    if (nearest <= 2.0 * footprint)
        return 1;
    const float *q = img_p0 + 4 * ((size_t)y * W + (size_t)x);
    double there[2];
    return q[3] != 0.0f && project(c0->view_projection, q, there) < w - 2.0 * footprint ? 0 : -1;
}

/* One pixel of frame B: V against the difference of the projected positions, Wp against frame A,
 * and (the control) the position now against frame A. */
static void check_pixel(size_t i, const camera *c0, const camera *c1, tally *t)
{
    const float *w1 = img_now + 4 * i, *wp = img_then + 4 * i, *v = img_velocity + 4 * i;
    double a[2], b[2];
    project(c1->view_projection, w1, a);
    project(c0->view_projection, wp, b);
    double dx = a[0] - b[0] - v[0], dy = a[1] - b[1] - v[1], error = sqrt(dx * dx + dy * dy);
    t->pixels++;
    t->good += error <= 0.5;
    t->worst = fmax(t->worst, error);
    t->mean_speed += hypot(a[0] - b[0], a[1] - b[1]);
    int seen = seen_at_t0(c0, wp), control = seen_at_t0(c0, w1);
    t->framed += seen != 2;
    t->placed += seen == 1;
    t->missing += seen == -1;
    t->control_missing += control == -1;
}

static void velocity_on(crowd_gl_path path, crowd_gl_mode mode)
{
    crowd *c = make_crowd();
    crowd_gl_renderer *r = make_renderer(path, mode, true), *r_bare = make_renderer(path, mode, false);
    CHECK(crowd_gl_get_path(r) == path);
    const camera c0 = make_camera(0.0f, 5.0f, 14.0f, 0.0f, 1.0f, -4.0f),
                 c1 = make_camera(0.8f, 5.3f, 13.4f, 0.4f, 1.1f, -4.0f);
    crowd_gl_scene s = test_default_scene();
    s.shadows = false; /* velocity in pixels (the default units) of the target viewport: W x H */
    memcpy(s.view, c0.view, sizeof s.view), memcpy(s.projection, c0.projection, sizeof s.projection);
    step(c, r, &c0, 0.5f);
    start_motions(c);
    const crowd_frame *f = step(c, r, &c0, 0.6f);
    float t0 = f->time;
    /* the first frame has nothing earlier: every pixel 0 (to rounding: the pixel's own position
       against its surface point's projection) */
    draw(r, f, &s, false);
    read_target(1, img_velocity);
    uint32_t moving = 0, covered = 0;
    for (size_t i = 0; i < (size_t)W * H; i++) {
        covered += img_velocity[4 * i + 3] == 1.0f;
        moving += hypotf(img_velocity[4 * i], img_velocity[4 * i + 1]) > 0.01f;
    }
    CHECKF(covered > 20000 && moving == 0, "first frame: %u px of %u move", moving, covered);
    draw(r, f, &s, true); /* frame A: P0 */
    read_target(0, img_p0);
    to_world(img_p0, c0.view_projection, true);
    /* frame B: the kept camera and time (A's), then the same frame's positions given them */
    f = step(c, r, &c1, 0.1f);
    memcpy(s.view, c1.view, sizeof s.view), memcpy(s.projection, c1.projection, sizeof s.projection);
    draw(r, f, &s, false);
    read_target(1, img_velocity);
    s.previous = CROWD_GL_PREVIOUS_GIVEN, s.previous_time = t0;
    memcpy(s.previous_view_projection, c0.view_projection, sizeof s.previous_view_projection);
    draw(r, f, &s, true);
    read_target(0, img_now);
    read_target(1, img_then);
    to_world(img_now, c1.view_projection, true);
    to_world(img_then, c0.view_projection, false);
    crowd_view view;
    crowd_gl_view(r_bare, c1.view, c1.projection, H, &view);
    REQUIRE(crowd_gl_upload(r_bare, f, NULL) == CROWD_OK);
    crowd_gl_cull(r_bare, f, &view, NULL);
    draw(r_bare, f, &s, true);
    read_target(0, img_bare);
    to_world(img_bare, c1.view_projection, true);

    tally t[KINDS] = {{0}};
    for (size_t i = 0; i < (size_t)W * H; i++)
        if (img_now[4 * i + 3] == 1.0f)
            check_pixel(i, &c0, &c1, &t[kind_of(i)]);
    printf("     %s path, %s:\n", path == CROWD_GL_PATH_GPU ? "GPU-driven" : "CPU",
           mode == CROWD_GL_BONES ? "bones" : "VAT");
    for (int k = 0; k < KINDS; k++) {
        const tally *q = &t[k];
        double good = q->pixels ? (double)q->good / q->pixels : 0.0, framed = q->framed ? q->framed : 1;
        printf("       %-12s %6u px, moved %5.1f px, V within 0.5 px: %.4f (worst %.4f px); a frame earlier: "
               "drawn there %.3f, hidden %.3f, not drawn there %.4f (the position now: %.3f)\n",
               kind_names[k], q->pixels, q->pixels ? q->mean_speed / q->pixels : 0.0, good, q->worst,
               q->placed / framed, (q->framed - q->placed - q->missing) / framed, q->missing / framed,
               q->control_missing / framed);
        CHECKF(q->pixels >= 300 && q->framed >= q->pixels * 0.9, "%s: %u px, %u framed", kind_names[k], q->pixels,
               q->framed);
        CHECKF(good >= 0.99, "%s: %.4f within 0.5 px", kind_names[k], good);
        /* a card's silhouette changes with its key frame and view, and faces of the box that turn
           towards the moved camera were culled at t0: their pixels show what is behind them then */
        double allowed = k == CARDS || k == ATTACHMENTS ? 0.05 : 0.01;
        CHECKF(q->placed >= 0.85 * framed && q->missing <= allowed * framed, "%s: drawn there %.3f, not %.4f",
               kind_names[k], q->placed / framed, q->missing / framed);
    }
    /* the control: the walkers' positions now are not where frame A drew them */
    CHECKF(t[WALKERS].control_missing > 20 * t[WALKERS].missing, "control %u vs %u px", t[WALKERS].control_missing,
           t[WALKERS].missing);
    crowd_gl_destroy(r);
    crowd_gl_destroy(r_bare);
    crowd_destroy(c);
}

/* A velocity mode, a previous-state source or units out of range: refused with a message, no draw. */
static void bad_input_is_refused(void)
{
    crowd_gl_desc d = {.asset = &asset, .es = gl.es, .velocity = (crowd_gl_velocity)3};
    crowd_gl_renderer *r = NULL;
    crowd_error err = {0};
    CHECK(crowd_gl_create(&d, &r, &err) == CROWD_ERROR_ARGUMENT && r == NULL && strstr(err.message, "velocity"));
    crowd *c = make_crowd();
    r = make_renderer(CROWD_GL_PATH_CPU, CROWD_GL_VAT, false);
    const camera c0 = make_camera(0.0f, 5.0f, 14.0f, 0.0f, 1.0f, -4.0f);
    const crowd_frame *f = step(c, r, &c0, 0.1f);
    crowd_gl_scene s = test_default_scene();
    memcpy(s.view, c0.view, sizeof s.view), memcpy(s.projection, c0.projection, sizeof s.projection);
    s.previous = (crowd_gl_previous)5;
    CHECK(crowd_gl_draw(r, f, &s) == CROWD_ERROR_ARGUMENT && strstr(crowd_gl_last_error(r), "previous"));
    s.previous = CROWD_GL_PREVIOUS_KEPT, s.velocity_units = (crowd_gl_velocity_units)9;
    CHECK(crowd_gl_draw(r, f, &s) == CROWD_ERROR_ARGUMENT);
    s.velocity_units = CROWD_GL_VELOCITY_NDC;
    CHECK(crowd_gl_draw(r, f, &s) == CROWD_OK);
    /* the separate pass needs a renderer made for it */
    CHECK(crowd_gl_draw_velocity(r, f, &s) == CROWD_ERROR_ARGUMENT && strstr(crowd_gl_last_error(r), "PASS"));
    crowd_gl_destroy(r);
    crowd_destroy(c);
}

/* The separate pass (CROWD_GL_VELOCITY_PASS) into output 0 against MRT's output 1, frame B of the
 * same crowd and cameras: over the colour pass's depth (LEQUAL, invariant positions) the same pixels
 * with the same vectors; over a depth buffer of its own, cleared, the same again. */
static void pass_frame(crowd_gl_renderer *r, const crowd_frame *f, const crowd_gl_scene *s, bool own_depth)
{
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    const float zero[4] = {0, 0, 0, 0};
    glClearBufferfv(GL_COLOR, 0, zero);
    glClearBufferfv(GL_COLOR, 1, zero);
    glClearBufferfi(GL_DEPTH_STENCIL, 0, 1.0f, 0);
    CHECK(crowd_gl_draw(r, f, s) == CROWD_OK);
    glBindFramebuffer(GL_FRAMEBUFFER, velocity_fbo);
    if (own_depth)
        glClearBufferfi(GL_DEPTH_STENCIL, 0, 1.0f, 0);
    CHECK(crowd_gl_draw_velocity(r, f, s) == CROWD_OK);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
}

static void compare_pass(const float *mrt, const float *pass, const char *what)
{
    uint32_t covered = 0, only_one = 0, differ = 0;
    double worst = 0.0;
    for (size_t i = 0; i < (size_t)W * H; i++) {
        const float *a = mrt + 4 * i, *b = pass + 4 * i;
        covered += a[3] == 1.0f;
        if ((a[3] == 1.0f) != (b[3] == 1.0f)) {
            only_one++;
            continue;
        }
        double e = hypot((double)a[0] - b[0], (double)a[1] - b[1]);
        worst = fmax(worst, e);
        differ += e > 1e-3;
    }
    printf("       %s: %u px with velocity, %u drawn by one of the two, %u differ (worst %.2g px)\n", what, covered,
           only_one, differ, worst);
    /* where two surfaces meet at one depth, LEQUAL keeps the later one, the colour pass's LESS the
       earlier: a few pixels in ten thousand may hold the other surface's vector */
    CHECKF(covered > 100000 && only_one <= covered / 10000 && differ <= covered / 2000, "%s: %u of %u px, %u differ",
           what, only_one, covered, differ);
}

static void separate_pass(crowd_gl_path path, crowd_gl_mode mode)
{
    crowd *c = make_crowd();
    crowd_gl_renderer *mrt = make_renderer(path, mode, true);
    crowd_gl_renderer *pass = make_renderer_with(path, mode, true, CROWD_GL_VELOCITY_PASS);
    const camera cams[2] = {make_camera(0.0f, 5.0f, 14.0f, 0.0f, 1.0f, -4.0f),
                            make_camera(0.8f, 5.3f, 13.4f, 0.4f, 1.1f, -4.0f)};
    crowd_gl_scene s = test_default_scene();
    s.shadows = false;
    const float steps[3] = {0.5f, 0.6f, 0.1f};
    for (int k = 0; k < 3; k++) { /* frame A (k = 1) keeps each renderer's previous state for frame B */
        const camera *cam = &cams[k == 2];
        crowd_view view;
        crowd_gl_view(mrt, cam->view, cam->projection, H, &view);
        const crowd_frame *f = crowd_update(c, steps[k], &view);
        if (k == 0)
            start_motions(c);
        crowd_gl_renderer *both[2] = {mrt, pass};
        for (int i = 0; i < 2; i++) {
            REQUIRE(crowd_gl_upload(both[i], f, NULL) == CROWD_OK);
            crowd_gl_cull(both[i], f, &view, NULL);
        }
        memcpy(s.view, cam->view, sizeof s.view), memcpy(s.projection, cam->projection, sizeof s.projection);
        draw(mrt, f, &s, false);
        read_target(1, img_velocity);
        pass_frame(pass, f, &s, false);
        read_target(1, img_then);
        if (k == 1) { /* frame A's camera and time, for drawing frame B's velocity twice */
            s.previous_time = f->time;
            memcpy(s.previous_view_projection, cam->view_projection, sizeof s.previous_view_projection);
        }
        if (k == 2) {
            compare_pass(img_velocity, img_then, "over the colour pass's depth");
            s.previous = CROWD_GL_PREVIOUS_GIVEN; /* a second pass of the frame: its previous given */
            pass_frame(pass, f, &s, true);
            read_target(1, img_then);
            compare_pass(img_velocity, img_then, "over its own depth");
        }
    }
    crowd_gl_destroy(mrt);
    crowd_gl_destroy(pass);
    crowd_destroy(c);
}

static void pass_cpu_vat(void)
{
    separate_pass(CROWD_GL_PATH_CPU, CROWD_GL_VAT);
}

static void pass_gpu_bones(void)
{
    separate_pass(CROWD_GL_PATH_GPU, CROWD_GL_BONES);
}

static void cpu_vat(void)
{
    velocity_on(CROWD_GL_PATH_CPU, CROWD_GL_VAT);
}

static void cpu_bones(void)
{
    velocity_on(CROWD_GL_PATH_CPU, CROWD_GL_BONES);
}

static void gpu_vat(void)
{
    velocity_on(CROWD_GL_PATH_GPU, CROWD_GL_VAT);
}

static void gpu_bones(void)
{
    velocity_on(CROWD_GL_PATH_GPU, CROWD_GL_BONES);
}

int main(int argc, char **argv)
{
    bool desktop = gl_fixture_open(argc, argv, 64, 64, &gl, &baked, &plain);
    /* a small atlas (4 key frames, 8 views, one elevation): cards to draw, quickly baked */
    crowd_gl_imposter_desc spec = {.frames = 4, .views = 8, .elevations = 1, .tile = 16, .supersample = 1};
    crowd_error err = {0};
    if (crowd_gl_bake_imposters(&plain, &spec, gl.es, &atlas, &err) != CROWD_OK ||
        crowd_bake_add_imposters(baked.bytes, baked.size, &atlas, &with_atlas, &with_atlas_size, &err) != CROWD_OK ||
        crowd_asset_load_memory(&asset, with_atlas, with_atlas_size, &err) != CROWD_OK) {
        fprintf(stderr, "imposter bake: %s\n", err.message);
        return 1;
    }
    make_targets();
    img_p0 = new_image(), img_velocity = new_image(), img_now = new_image(), img_then = new_image();
    img_bare = new_image();
    RUN_TEST(bad_input_is_refused);
    RUN_TEST(cpu_vat);
    RUN_TEST(cpu_bones);
    RUN_TEST(pass_cpu_vat);
    if (desktop) {
        RUN_TEST(gpu_vat);
        RUN_TEST(gpu_bones);
        RUN_TEST(pass_gpu_bones);
    }
    free(img_p0), free(img_velocity), free(img_now), free(img_then), free(img_bare);
    glDeleteFramebuffers(1, &fbo);
    glDeleteFramebuffers(1, &velocity_fbo);
    glDeleteTextures(2, targets);
    glDeleteRenderbuffers(1, &depth);
    crowd_asset_free(&asset);
    crowd_gl_imposters_free(&atlas);
    crowd_bake_image_free(with_atlas);
    gl_fixture_close(&gl, &baked, &plain);
    printf("%s (%d failures)\n", check_failures ? "FAILED" : "ok", check_failures);
    return check_failures ? 1 : 0;
}
