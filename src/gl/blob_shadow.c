/* Far shadows (crowd_gl_far_shadow, gl.h): a soft blob on the ground under every drawn instance that
 * casts no mesh shadow. On the CPU path one non-instanced draw of 6 vertices a blob over up to 64
 * runs of contiguous records (the far chunks' draws), reading them from the records texture as the cards do (SwiftShader runs every
 * instance of an instanced draw as a draw of its own); on the GPU-driven path one indirect draw over
 * the cull pass's partitions without shadow (gpu_crowd.c, crowd_gpu_blob_draw). */
#include <math.h>

#include "common/cbmath.h"
#include "gl/gpu_crowd.h"
#include "gl/renderer_internal.h"
#include "gl/shaders.h"

crowd_result crowd_gl_blob_create(crowd_gl_renderer *r, crowd_error *error)
{
    crowd_result result = crowd_program_build(&r->blob, "blob shadow", r->desc.es, NULL, crowd_glsl_blob_vert,
                                              crowd_glsl_blob_frag, error);
    if (result != CROWD_OK)
        return result;
    glGenVertexArrays(1, &r->blob_vao); /* empty: the quads come from gl_VertexID and the records texture */
    return crowd_gl_check("blob shadow", error);
}

void crowd_gl_blob_destroy(crowd_gl_renderer *r)
{
    crowd_program_release(&r->blob);
    if (r->blob_vao)
        glDeleteVertexArrays(1, &r->blob_vao);
    r->blob_vao = 0;
}

void crowd_gl_blob_begin(const crowd_gl_renderer *r, const crowd_program *p, const crowd_frame *f,
                         const float view_projection[16], const crowd_gl_scene *s)
{
    const crowd_asset *a = r->asset;
    const GLint *u = p->uniforms;
    glUseProgram(p->id);
    glUniformMatrix4fv(u[U_VIEW_PROJECTION], 1, GL_FALSE, view_projection);
    glUniform1f(u[U_TIME], f->time);
    float camera[3];
    crowd_gl_eye_of(s->view, camera);
    glUniform3fv(u[U_CAMERA], 1, camera);
    glUniform3fv(u[U_SUN_DIRECTION], 1, s->sun_direction);
    glUniform1f(u[U_FOG_DENSITY], s->fog_density);
    /* the footprint: three quarters of the box's mean half extent across x and z (the bounds hold every
       clip's swing of arms and legs, wider than the body that throws most of the shadow) */
    float radius = 0.375f * ((a->bounds_max[0] - a->bounds_min[0]) + (a->bounds_max[2] - a->bounds_min[2])) * 0.5f;
    float height = a->bounds_max[1] > 0.0f ? a->bounds_max[1] : 0.0f;
    glUniform4f(u[U_BLOB], radius, height, 0.02f, 0.0f);
    /* the ground in shadow over the ground lit, as lit.frag shades an upward face (ambient = sky
       colour; the sun's term drops), through the output's 2.2 power: a multiplier for what the
       framebuffer holds (exact for the gamma output without fog, close for ACES) */
    float shade[3];
    float sun_up = s->sun_direction[1] > 0.0f ? s->sun_direction[1] : 0.0f;
    for (int c = 0; c < 3; c++) {
        float lit = s->sky_color[c] + s->sun_color[c] * sun_up;
        shade[c] = lit > 0.0f ? powf(s->sky_color[c] / lit, 1.0f / 2.2f) : 1.0f;
    }
    glUniform3fv(u[U_COLOR], 1, shade);
    /* multiplied into what is there, tested against the ground (lifted 2 cm and pulled forward
       against z-fighting), written nowhere else; the quad's winding depends on the sun's side */
    glEnable(GL_BLEND);
    glBlendEquation(GL_FUNC_ADD);
    glBlendFunc(GL_DST_COLOR, GL_ZERO);
    glDepthMask(GL_FALSE);
    glDisable(GL_CULL_FACE);
    glEnable(GL_POLYGON_OFFSET_FILL);
    glPolygonOffset(-1.0f, -2.0f);
}

void crowd_gl_blob_end(void)
{
    glDisable(GL_POLYGON_OFFSET_FILL);
    glEnable(GL_CULL_FACE);
    glDepthMask(GL_TRUE);
    glDisable(GL_BLEND);
}

/* The CPU path: which draws get blobs (gl.h, crowd_gl_far_shadow): every draw that casts no mesh
 * shadow, but the cards of a band chunk, whose records the chunk's mesh draw covers. */
static bool wants_blobs(const crowd_draw *d)
{
    if (!d->count || (d->flags & CROWD_DRAW_SHADOW))
        return false;
    return !((d->flags & CROWD_DRAW_IMPOSTER) && (d->flags & CROWD_DRAW_BAND));
}

/* Runs of contiguous records per draw (blob.vert's u_runs: two a vector). A frame's far chunks are
 * separate runs (each chunk's records sit in a region of their own, slack between): one draw takes up
 * to this many, instead of one draw a chunk. */
#define BLOB_RUNS 64

typedef struct blob_batch {
    GLint runs[2 * BLOB_RUNS]; /* first record, first blob of the draw */
    int count;
    uint32_t blobs;
} blob_batch;

static void flush(crowd_gl_renderer *r, blob_batch *b)
{
    if (!b->count)
        return;
    glUniform4iv(r->blob.uniforms[U_RUNS], (b->count + 1) / 2, b->runs);
    glUniform1i(r->blob.uniforms[U_RUN_COUNT], b->count);
    glDrawArrays(GL_TRIANGLES, 0, 6 * (GLsizei)b->blobs);
    r->stats.draws++;
    r->stats.triangles += 2u * (uint64_t)b->blobs;
    b->count = 0;
    b->blobs = 0;
}

void crowd_gl_draw_far_shadows(crowd_gl_renderer *r, const crowd_frame *f, const crowd_gl_scene *scene)
{
    if (!r || !f || !scene)
        return;
    float view_projection[16];
    cb_mat4_mul(view_projection, scene->projection, scene->view);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    crowd_gl_blob_draw(r, f, view_projection, scene);
    glBindVertexArray(0);
    glActiveTexture(GL_TEXTURE0);
}

void crowd_gl_blob_draw(crowd_gl_renderer *r, const crowd_frame *f, const float view_projection[16],
                        const crowd_gl_scene *scene)
{
    if (scene->far_shadow != CROWD_GL_FAR_SHADOW_BLOB || !scene->shadows || !r->blob.id)
        return;
    if (crowd_gpu_crowd_driven(r)) {
        crowd_gpu_blob_draw(r, f, view_projection, scene);
        return;
    }
    bool used = false;
    blob_batch batch = {{0}, 0, 0};
    uint32_t first = 0, count = 0; /* the run of contiguous records not given to the batch yet */
    for (uint32_t d = 0; d <= f->draw_count; d++) {
        const crowd_draw *draw = d < f->draw_count ? &f->draws[d] : NULL;
        if (draw && !wants_blobs(draw))
            continue;
        if (draw && count && draw->first == first + count) {
            count += draw->count;
            continue;
        }
        if (count) {
            if (!used) {
                crowd_gl_blob_begin(r, &r->blob, f, view_projection, scene);
                crowd_gl_records_bind(r);
                glUniform1i(r->blob.uniforms[U_RECORDS], UNIT_RECORDS);
                glBindVertexArray(r->blob_vao);
                used = true;
            }
            if (batch.count == BLOB_RUNS)
                flush(r, &batch);
            batch.runs[2 * batch.count] = (GLint)first;
            batch.runs[2 * batch.count + 1] = (GLint)batch.blobs;
            batch.count++;
            batch.blobs += count;
        }
        if (draw)
            first = draw->first, count = draw->count;
    }
    flush(r, &batch);
    if (used)
        crowd_gl_blob_end();
}
