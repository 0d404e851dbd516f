/* The demo's three cameras: orbit (drag to turn, wheel to zoom), walk (WASD at eye level inside the
 * crowd, mouse look) and tour (a scripted fly-through). */
#ifndef CROWD_DEMO_CAMERA_H
#define CROWD_DEMO_CAMERA_H

#include "demo/app.h"

typedef enum demo_camera_mode { CAMERA_ORBIT, CAMERA_WALK, CAMERA_TOUR } demo_camera_mode;

typedef struct demo_camera {
    demo_camera_mode mode;
    float orbit_yaw, orbit_pitch, orbit_distance, orbit_target[3];
    float walk_position[3], walk_yaw, walk_pitch;
    double tour_time;
    float eye[3], target[3]; /* the result of the last update */
} demo_camera;

void demo_camera_init(demo_camera *camera);

/* Applies input and time, then computes eye and target. `world` bounds the walk. */
void demo_camera_update(demo_camera *camera, const demo_input *input, float seconds, float world);

/* Switches to the walk camera at `eye`, turned towards `target`. */
void demo_camera_look_at(demo_camera *camera, const float eye[3], const float target[3]);

/* View and projection for a viewport aspect ratio. */
void demo_camera_matrices(const demo_camera *camera, float aspect, float view[16], float projection[16]);

/* Where the shadow map should centre, and how far it should reach, for this camera. */
void demo_camera_shadow_focus(const demo_camera *camera, float centre[3], float *radius);

#endif
