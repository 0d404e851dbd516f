/* The runtime half every consumer shares: a crowd of 64 on a grid, clip 0 playing, a few frames
 * through a camera that sees them all; the draw list must not be empty. Written in the common
 * subset of C and C++ so the C++ consumer compiles the very same code. */
#ifndef CROWD_CONSUMER_H
#define CROWD_CONSUMER_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <crowdbake/crowd.h>
#include <crowdbake/version.h>

/* column-major look-at from (0, 12, 30) to the origin, and a 60 degree perspective */
static void consumer_view(crowd_view *view)
{
    const float eye[3] = {0.0f, 12.0f, 30.0f};
    float f[3] = {-eye[0], -eye[1], -eye[2]};
    float len = sqrtf(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
    float s[3], u[3];
    float t = 1.0f / tanf(0.5f * 1.0471976f), near_ = 0.1f, far_ = 500.0f;
    int i;
    for (i = 0; i < 3; i++)
        f[i] /= len;
    s[0] = -f[2], s[1] = 0.0f, s[2] = f[0]; /* f x up(0,1,0) */
    len = sqrtf(s[0] * s[0] + s[2] * s[2]);
    s[0] /= len, s[2] /= len;
    u[0] = s[1] * f[2] - s[2] * f[1], u[1] = s[2] * f[0] - s[0] * f[2], u[2] = s[0] * f[1] - s[1] * f[0];
    memset(view, 0, sizeof *view);
    for (i = 0; i < 3; i++) {
        view->view[i * 4 + 0] = s[i];
        view->view[i * 4 + 1] = u[i];
        view->view[i * 4 + 2] = -f[i];
    }
    view->view[12] = -(s[0] * eye[0] + s[1] * eye[1] + s[2] * eye[2]);
    view->view[13] = -(u[0] * eye[0] + u[1] * eye[1] + u[2] * eye[2]);
    view->view[14] = f[0] * eye[0] + f[1] * eye[1] + f[2] * eye[2];
    view->view[15] = 1.0f;
    view->projection[0] = t / (16.0f / 9.0f);
    view->projection[5] = t;
    view->projection[10] = (far_ + near_) / (near_ - far_);
    view->projection[11] = -1.0f;
    view->projection[14] = 2.0f * far_ * near_ / (near_ - far_);
    view->viewport_height = 720.0f;
}

/* 0 when the crowd drew something, 1 (with a message) otherwise */
static int consumer_run(const crowd_asset *asset, const char *who)
{
    crowd_desc desc;
    crowd_view view;
    crowd_error error;
    crowd *c = NULL;
    const crowd_frame *frame = NULL;
    uint32_t i;
    int f;

    if (strcmp(crowd_version(), CROWD_VERSION_STRING) != 0) {
        fprintf(stderr, "%s: library %s, headers %s\n", who, crowd_version(), CROWD_VERSION_STRING);
        return 1;
    }
    memset(&desc, 0, sizeof desc);
    desc.asset = asset;
    desc.capacity = 64;
    if (crowd_create(&desc, &c, &error) != CROWD_OK) {
        fprintf(stderr, "%s: crowd_create: %s\n", who, error.message);
        return 1;
    }
    if (crowd_set_count(c, 64) != CROWD_OK)
        goto fail;
    for (i = 0; i < 64; i++) {
        if (crowd_set_transform(c, i, (float)(i % 8) * 2.0f - 7.0f, 0.0f, (float)(i / 8) * 2.0f - 7.0f, 0.0f) !=
                CROWD_OK ||
            crowd_play(c, i, 0, 1.0f, 0.0f) != CROWD_OK)
            goto fail;
    }
    memset(&view, 0, sizeof view); /* CPU culling, no margin */
    consumer_view(&view);
    for (f = 0; f < 5; f++)
        frame = crowd_update(c, 1.0f / 60.0f, &view);
    if (!frame || frame->draw_count == 0 || frame->stats.submitted == 0) {
        fprintf(stderr, "%s: empty draw list\n", who);
        goto fail;
    }
    printf("%s: crowdbake %s, %u draws, %u instances submitted\n", who, crowd_version(), frame->draw_count,
           frame->stats.submitted);
    crowd_destroy(c);
    return 0;
fail:
    fprintf(stderr, "%s: the runtime refused a call\n", who);
    crowd_destroy(c);
    return 1;
}

#endif
