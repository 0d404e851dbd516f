#include "demo/camera.h"

#include <math.h>

#include "common/view_matrices.h"

#define PI_F 3.14159265f

/* The tour: eye and target keyframes, looped with Catmull-Rom, 8 s apart. */
static const float tour_keys[][6] = {
    {60, 30, 60, 0, 0, 0},   {20, 4, 35, 0, 1.5f, 0}, {-8, 1.7f, 12, 5, 1.6f, -10},
    {-30, 12, -20, 0, 1, 0}, {-90, 60, 10, 0, 0, 0},  {10, 120, 150, 0, 0, 0},
};
#define TOUR_KEYS (int)(sizeof tour_keys / sizeof tour_keys[0])
#define TOUR_SECONDS_PER_KEY 8.0

void demo_camera_init(demo_camera *c)
{
    *c = (demo_camera){.mode = CAMERA_ORBIT,
                       .orbit_yaw = 0.55f,
                       .orbit_pitch = 0.32f,
                       .orbit_distance = 55.0f,
                       .orbit_target = {0, 1.2f, 0},
                       .walk_position = {-12, 1.7f, 18},
                       .walk_yaw = 2.6f};
}

static float catmull(float p0, float p1, float p2, float p3, float t)
{
    return 0.5f * (2 * p1 + (-p0 + p2) * t + (2 * p0 - 5 * p1 + 4 * p2 - p3) * t * t +
                   (-p0 + 3 * p1 - 3 * p2 + p3) * t * t * t);
}

static void tour_pose(double time, float eye[3], float target[3])
{
    double k = fmod(time / TOUR_SECONDS_PER_KEY, (double)TOUR_KEYS);
    int i = (int)k;
    float t = (float)(k - i);
    const float *p0 = tour_keys[(i + TOUR_KEYS - 1) % TOUR_KEYS], *p1 = tour_keys[i];
    const float *p2 = tour_keys[(i + 1) % TOUR_KEYS], *p3 = tour_keys[(i + 2) % TOUR_KEYS];
    for (int j = 0; j < 3; j++) {
        eye[j] = catmull(p0[j], p1[j], p2[j], p3[j], t);
        target[j] = catmull(p0[3 + j], p1[3 + j], p2[3 + j], p3[3 + j], t);
    }
    eye[1] = eye[1] < 1.2f ? 1.2f : eye[1];
}

void demo_camera_update(demo_camera *c, const demo_input *in, float seconds, float world)
{
    switch (c->mode) {
    case CAMERA_ORBIT: {
        c->orbit_yaw -= in->look[0] * 0.005f;
        c->orbit_pitch += in->look[1] * 0.005f;
        c->orbit_pitch = c->orbit_pitch < 0.02f ? 0.02f : c->orbit_pitch > 1.5f ? 1.5f : c->orbit_pitch;
        c->orbit_distance *= powf(0.88f, in->zoom);
        c->orbit_distance = c->orbit_distance < 3.0f ? 3.0f : c->orbit_distance > 600.0f ? 600.0f : c->orbit_distance;
        float d = c->orbit_distance;
        for (int i = 0; i < 3; i++)
            c->target[i] = c->orbit_target[i];
        c->eye[0] = c->target[0] + d * cosf(c->orbit_pitch) * sinf(c->orbit_yaw);
        c->eye[1] = c->target[1] + d * sinf(c->orbit_pitch);
        c->eye[2] = c->target[2] + d * cosf(c->orbit_pitch) * cosf(c->orbit_yaw);
        break;
    }
    case CAMERA_WALK: {
        c->walk_yaw -= in->look[0] * 0.004f;
        c->walk_pitch -= in->look[1] * 0.004f;
        c->walk_pitch = c->walk_pitch < -1.3f ? -1.3f : c->walk_pitch > 1.3f ? 1.3f : c->walk_pitch;
        float fx = sinf(c->walk_yaw), fz = cosf(c->walk_yaw), speed = (in->fast ? 6.0f : 1.6f) * seconds;
        c->walk_position[0] += (fx * in->move[2] - fz * in->move[0]) * speed;
        c->walk_position[2] += (fz * in->move[2] + fx * in->move[0]) * speed;
        c->walk_position[1] += in->move[1] * speed;
        c->walk_position[1] = c->walk_position[1] < 0.5f ? 0.5f : c->walk_position[1];
        float half = world * 0.5f;
        for (int i = 0; i < 3; i += 2)
            c->walk_position[i] = c->walk_position[i] < -half  ? -half
                                  : c->walk_position[i] > half ? half
                                                               : c->walk_position[i];
        for (int i = 0; i < 3; i++)
            c->eye[i] = c->walk_position[i];
        float cp = cosf(c->walk_pitch);
        c->target[0] = c->eye[0] + fx * cp;
        c->target[1] = c->eye[1] + sinf(c->walk_pitch);
        c->target[2] = c->eye[2] + fz * cp;
        break;
    }
    case CAMERA_TOUR:
        c->tour_time += seconds;
        tour_pose(c->tour_time, c->eye, c->target);
        break;
    }
}

void demo_camera_look_at(demo_camera *c, const float eye[3], const float target[3])
{
    float d[3] = {target[0] - eye[0], target[1] - eye[1], target[2] - eye[2]};
    c->mode = CAMERA_WALK;
    for (int i = 0; i < 3; i++)
        c->walk_position[i] = eye[i];
    c->walk_yaw = atan2f(d[0], d[2]);
    c->walk_pitch = atan2f(d[1], sqrtf(d[0] * d[0] + d[2] * d[2]));
}

void demo_camera_matrices(const demo_camera *c, float aspect, float view[16], float projection[16])
{
    const float up[3] = {0, 1, 0};
    cb_look_at(view, c->eye, c->target, up);
    float near_z = c->mode == CAMERA_WALK ? 0.1f : 0.3f;
    cb_perspective(projection, 58.0f * PI_F / 180.0f, aspect, near_z, 900.0f);
}

void demo_camera_shadow_focus(const demo_camera *c, float centre[3], float *radius)
{
    float d[3] = {c->target[0] - c->eye[0], c->target[1] - c->eye[1], c->target[2] - c->eye[2]};
    float len = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) + 1e-6f;
    float height = c->eye[1] < 2.0f ? 2.0f : c->eye[1];
    /* look ahead along the view, further the higher the eye; cover what is close enough to matter */
    float reach = height * 2.5f + 12.0f;
    reach = reach > 120.0f ? 120.0f : reach;
    for (int i = 0; i < 3; i++)
        centre[i] = c->eye[i] + d[i] / len * reach * 0.8f;
    centre[1] = 0.0f;
    *radius = reach;
}
