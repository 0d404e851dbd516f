/* Motion vectors (crowd_gl_desc.velocity): which camera and time "a frame earlier" means for the
 * pass that writes them, the uniforms that carry them to the shaders (output.glsl projects), and
 * which programs each pass draws with. */
#include <math.h>
#include <string.h>

#include "gl/renderer_internal.h"

/* The eye of a perspective view-projection: the point that x, y and w all map to 0 (Cramer's rule
 * on those three rows). False for an orthographic one (no finite eye) or a degenerate one. */
static bool eye_of_view_projection(const float m[16], float eye[3])
{
    /* rows x (0), y (1), w (3) of the column-major matrix: a[i] . e = -m[12 + row] */
    const int rows[3] = {0, 1, 3};
    double a[3][3], b[3];
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++)
            a[i][j] = m[j * 4 + rows[i]];
        b[i] = -(double)m[12 + rows[i]];
    }
    double det = a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
                 a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
    if (fabs(det) < 1e-12)
        return false;
    for (int k = 0; k < 3; k++) {
        double c[3][3];
        memcpy(c, a, sizeof c);
        for (int i = 0; i < 3; i++)
            c[i][k] = b[i];
        double dk = c[0][0] * (c[1][1] * c[2][2] - c[1][2] * c[2][1]) -
                    c[0][1] * (c[1][0] * c[2][2] - c[1][2] * c[2][0]) +
                    c[0][2] * (c[1][0] * c[2][1] - c[1][1] * c[2][0]);
        eye[k] = (float)(dk / det);
    }
    return true;
}

bool crowd_gl_velocity_written(const crowd_gl_renderer *r)
{
    return r->velocity || r->drawing_velocity;
}

void crowd_gl_velocity_begin(crowd_gl_renderer *r, const crowd_frame *f, const float view_projection[16],
                             const crowd_gl_scene *scene)
{
    if (!crowd_gl_velocity_written(r))
        return;
    float camera[3];
    crowd_gl_eye_of(scene->view, camera);
    if (scene->previous == CROWD_GL_PREVIOUS_GIVEN) {
        memcpy(r->previous_view_projection, scene->previous_view_projection, sizeof r->previous_view_projection);
        r->previous_time = scene->previous_time;
        /* the cards face the previous camera: an orthographic one has no eye, so they keep this one */
        if (!eye_of_view_projection(scene->previous_view_projection, r->previous_camera))
            memcpy(r->previous_camera, camera, sizeof camera);
    } else if (r->kept) {
        memcpy(r->previous_view_projection, r->kept_view_projection, sizeof r->previous_view_projection);
        memcpy(r->previous_camera, r->kept_camera, sizeof r->previous_camera);
        r->previous_time = r->kept_time;
    } else { /* the first frame: nothing earlier, so nothing moved */
        memcpy(r->previous_view_projection, view_projection, sizeof r->previous_view_projection);
        memcpy(r->previous_camera, camera, sizeof camera);
        r->previous_time = f->time;
    }
    bool pixels = scene->velocity_units != CROWD_GL_VELOCITY_NDC;
    r->velocity_scale[0] = pixels ? 0.5f * (float)r->target_viewport[2] : 1.0f;
    r->velocity_scale[1] = pixels ? 0.5f * (float)r->target_viewport[3] : 1.0f;
}

void crowd_gl_velocity_end(crowd_gl_renderer *r, const crowd_frame *f, const float view_projection[16],
                           const crowd_gl_scene *scene)
{
    if (!crowd_gl_velocity_written(r))
        return;
    memcpy(r->kept_view_projection, view_projection, sizeof r->kept_view_projection);
    crowd_gl_eye_of(scene->view, r->kept_camera);
    r->kept_time = f->time;
    r->kept = true;
}

void crowd_gl_velocity_uniforms(const crowd_gl_renderer *r, const GLint *u)
{
    glUniformMatrix4fv(u[U_PREVIOUS_VIEW_PROJECTION], 1, GL_FALSE, r->previous_view_projection);
    glUniform1f(u[U_PREVIOUS_TIME], r->previous_time);
    glUniform3fv(u[U_PREVIOUS_CAMERA], 1, r->previous_camera);
    glUniform3f(u[U_VELOCITY], r->velocity_scale[0], r->velocity_scale[1], r->output_positions ? 1.0f : 0.0f);
    const GLint *v = r->target_viewport;
    glUniform4f(u[U_VELOCITY_VIEWPORT], (float)v[0], (float)v[1], (float)v[2], (float)v[3]);
}

const char *crowd_gl_variant_defines(const crowd_gl_renderer *r, int variant)
{
    if (variant == PROGRAM_DEPTH)
        return "DEPTH_ONLY\n";
    if (variant == PROGRAM_VELOCITY)
        return r->velocity_pass ? "VELOCITY\nVELOCITY_PASS\nINVARIANT_POSITION\n" : NULL;
    return r->velocity ? "VELOCITY\n" : r->velocity_pass ? "INVARIANT_POSITION\n" : "";
}

int crowd_gl_program_variant(const crowd_gl_renderer *r, bool shadow)
{
    return shadow ? PROGRAM_DEPTH : r->drawing_velocity ? PROGRAM_VELOCITY : PROGRAM_COLOUR;
}
