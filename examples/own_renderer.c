/* A renderer of your own: draws a crowd_frame's draw list with its own shaders, written from the
 * decode in docs/format.md ("Playback"), and checks itself against crowdbake's renderer drawing
 * the same frame. An engine's HLSL or Metal port is this vertex shader in another language.
 *
 * Motion: straight extrapolation only. This crowd has no simulation; a crowd_sim writes turning
 * records for far agents (CROWD_RECORD_TURN), whose position and yaw follow the closed form in
 * docs/format.md "Motion" (crowdbake's own shaders: src/gl/glsl/record.glsl). A port that draws a
 * simulated crowd decodes that too.
 *
 * Headless: OpenGL ES 3.0 through EGL's surfaceless platform (Mesa), one offscreen framebuffer.
 * Handles the default bake (U16_BOX positions, OCT16 normals).   Usage: own_renderer [file.crowd] */
#include <epoxy/egl.h>
#include <epoxy/gl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crowdbake/bake.h"
#include "crowdbake/gl.h"
#include "crowdbake/sim.h"

#define W 320
#define H 200

static const char *vertex_shader =
    "#version 300 es\n"
    "precision highp float; precision highp int;\n"
    "layout(location = 0) in vec4 i_transform;  // record floats 0-3: x y z (at ref_time), yaw\n"
    "layout(location = 1) in vec4 i_play_a;     // 4-7: clip A's phase offset, rate; scale, ref_time\n"
    "layout(location = 2) in vec4 i_play_b;     // 8-11: clip B's phase offset, rate; fade start, fade rate\n"
    "layout(location = 3) in uvec4 i_look;      // 12-15: clips (A bits 0-11, B 12-23), velocity (2 halves),\n"
    "                                           //        tint, variant\n"
    "uniform highp usampler2D u_positions;      // RGBA16UI\n"
    "uniform highp usampler2D u_normals;        // RG16UI\n"
    "uniform int u_width, u_vertex_count, u_cross_fade;\n"
    "uniform vec3 u_box_min, u_box_max;\n"
    "uniform vec4 u_clips[16];                  // first frame, frame count, loops, 0\n"
    "uniform float u_time;\n"
    "uniform mat4 u_view_projection;\n"
    "out vec3 v_normal;\n"
    "// phase -> two frames (absolute rows) and the weight between them\n"
    "void frames(uint clip, float offset, float rate, out int f0, out int f1, out float t) {\n"
    "    vec4 c = u_clips[int(clip)];\n"
    "    int n = int(c.y);\n"
    "    bool loops = c.z > 0.5;\n"
    "    float f = fract(offset + u_time * rate) * float(loops ? n : n - 1);\n"
    "    int k = min(int(f), n - 1);\n"
    "    f0 = int(c.x) + k;\n"
    "    f1 = int(c.x) + (loops ? (k + 1) % n : min(k + 1, n - 1));\n"
    "    t = f - float(k);\n"
    "}\n"
    "vec3 octahedral(vec2 s) {  // fold first, then normalise\n"
    "    vec3 n = vec3(s, 1.0 - abs(s.x) - abs(s.y));\n"
    "    float k = max(-n.z, 0.0);\n"
    "    n.x += n.x >= 0.0 ? -k : k;\n"
    "    n.y += n.y >= 0.0 ? -k : k;\n"
    "    return normalize(n);\n"
    "}\n"
    "void fetch(int frame, out vec3 p, out vec3 n) {\n"
    "    int i = frame * u_vertex_count + gl_VertexID;  // gl_VertexID: the index buffer's value\n"
    "    ivec2 at = ivec2(i % u_width, i / u_width);\n"
    "    uvec4 q = texelFetch(u_positions, at, 0);\n"
    "    p = u_box_min + vec3(q.xyz) * ((u_box_max - u_box_min) / 65535.0);\n"
    "    n = octahedral(vec2(texelFetch(u_normals, at, 0).xy) / 65535.0 * 2.0 - 1.0);\n"
    "}\n"
    "void pose(uint clip, float offset, float rate, out vec3 p, out vec3 n) {\n"
    "    int f0, f1; float t; vec3 p0, n0, p1, n1;\n"
    "    frames(clip, offset, rate, f0, f1, t);\n"
    "    fetch(f0, p0, n0);\n"
    "    fetch(f1, p1, n1);\n"
    "    p = mix(p0, p1, t);\n"
    "    n = mix(n0, n1, t);\n"
    "}\n"
    "float half_float(uint h) {  // an IEEE half, widened (docs/format.md, Motion)\n"
    "    return (h & 0x7C00u) == 0u ? 0.0\n"
    "         : uintBitsToFloat(((h & 0x8000u) << 16u) | (((h & 0x7FFFu) + 0x1C000u) << 13u));\n"
    "}\n"
    "void main() {\n"
    "    vec3 p, n;\n"
    "    pose(i_look.x & 4095u, i_play_a.x, i_play_a.y, p, n);\n"
    "    float fade_rate = i_play_b.w;\n"
    "    if (u_cross_fade != 0 && fade_rate > 0.0) {\n"
    "        vec3 pb, nb;\n"
    "        pose((i_look.x >> 12u) & 4095u, i_play_b.x, i_play_b.y, pb, nb);\n"
    "        float w = clamp((u_time - i_play_b.z) * fade_rate, 0.0, 1.0);\n"
    "        p = mix(p, pb, w);\n"
    "        n = mix(n, nb, w);\n"
    "    }\n"
    "    float s = sin(i_transform.w), c = cos(i_transform.w);\n"
    "    p *= i_play_a.z;\n"
    "    vec2 v = vec2(half_float(i_look.y & 0xFFFFu), half_float(i_look.y >> 16u));  // ground velocity\n"
    "    vec3 at = i_transform.xyz + vec3(v.x, 0.0, v.y) * (u_time - i_play_a.w);  // moved on since ref_time\n"
    "    vec3 world = vec3(c * p.x + s * p.z, p.y, -s * p.x + c * p.z) + at;\n"
    "    v_normal = vec3(c * n.x + s * n.z, n.y, -s * n.x + c * n.z);\n"
    "    gl_Position = u_view_projection * vec4(world, 1.0);\n"
    "}\n";

/* Sun and hemisphere light, as crowdbake's renderer lights a white character. */
static const char *fragment_shader = "#version 300 es\n"
                                     "precision highp float;\n"
                                     "in vec3 v_normal;\n"
                                     "uniform vec3 u_sun_direction, u_sun_color, u_sky_color, u_ground_color;\n"
                                     "out vec4 o_color;\n"
                                     "void main() {\n"
                                     "    vec3 n = normalize(v_normal);\n"
                                     "    vec3 light = mix(u_ground_color, u_sky_color, n.y * 0.5 + 0.5) + u_sun_color "
                                     "* max(dot(n, u_sun_direction), 0.0);\n"
                                     "    o_color = vec4(pow(light, vec3(1.0 / 2.2)), 1.0);\n"
                                     "}\n";

static GLuint compile(GLenum type, const char *source)
{
    GLuint s = glCreateShader(type);
    glShaderSource(s, 1, &source, NULL);
    glCompileShader(s);
    GLint ok = 0;
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[2048];
        glGetShaderInfoLog(s, sizeof log, NULL, log);
        fprintf(stderr, "shader: %s\n", log);
        exit(1);
    }
    return s;
}

static GLuint texture(const crowd_texture *t, GLenum internal, GLenum format)
{
    GLuint id;
    glGenTextures(1, &id);
    glBindTexture(GL_TEXTURE_2D, id);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST); /* integer textures: no filtering */
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexImage2D(GL_TEXTURE_2D, 0, (GLint)internal, (GLsizei)t->width, (GLsizei)t->height, 0, format, GL_UNSIGNED_SHORT,
                 t->data);
    return id;
}

/* Column-major look-at from `eye` to `target` (+Y up) and a 50-degree perspective. */
static void camera(const float eye[3], const float target[3], float view[16], float projection[16])
{
    float f[3] = {target[0] - eye[0], target[1] - eye[1], target[2] - eye[2]};
    float l = sqrtf(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
    f[0] /= l, f[1] /= l, f[2] /= l;
    float s[3] = {-f[2], 0, f[0]}; /* forward x up */
    l = sqrtf(s[0] * s[0] + s[2] * s[2]);
    s[0] /= l, s[2] /= l;
    float u[3] = {s[1] * f[2] - s[2] * f[1], s[2] * f[0] - s[0] * f[2], s[0] * f[1] - s[1] * f[0]};
    float v[16] = {s[0],
                   u[0],
                   -f[0],
                   0,
                   s[1],
                   u[1],
                   -f[1],
                   0,
                   s[2],
                   u[2],
                   -f[2],
                   0,
                   -(s[0] * eye[0] + s[1] * eye[1] + s[2] * eye[2]),
                   -(u[0] * eye[0] + u[1] * eye[1] + u[2] * eye[2]),
                   f[0] * eye[0] + f[1] * eye[1] + f[2] * eye[2],
                   1};
    float n = 0.1f, far = 200.0f, t = 1.0f / tanf(0.5f * 50.0f * 3.14159265f / 180.0f), aspect = (float)W / H;
    float p[16] = {t / aspect, 0, 0, 0, 0, t, 0, 0, 0, 0, (far + n) / (n - far), -1, 0, 0, 2 * far * n / (n - far), 0};
    memcpy(view, v, sizeof v);
    memcpy(projection, p, sizeof p);
}

static void multiply(const float a[16], const float b[16], float out[16])
{
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++)
            out[c * 4 + r] =
                a[r] * b[c * 4] + a[4 + r] * b[c * 4 + 1] + a[8 + r] * b[c * 4 + 2] + a[12 + r] * b[c * 4 + 3];
}

static bool make_context(void)
{
    EGLDisplay display = eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
    EGLint config_attributes[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_ES3_BIT, EGL_NONE};
    EGLint context_attributes[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_NONE}, count = 0;
    EGLConfig config;
    if (display == EGL_NO_DISPLAY || !eglInitialize(display, NULL, NULL) || !eglBindAPI(EGL_OPENGL_ES_API) ||
        !eglChooseConfig(display, config_attributes, &config, 1, &count) || count == 0)
        return false;
    EGLContext context = eglCreateContext(display, config, EGL_NO_CONTEXT, context_attributes);
    return context != EGL_NO_CONTEXT && eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context);
}

int main(int argc, char **argv)
{
    /* ---- an asset and a crowd: a row of characters, different clips, one mid cross-fade */
    crowd_asset asset;
    crowd_error err;
    crowd_bake_output baked = {0};
    crowd_rig rig;
    if (argc > 1 ? crowd_asset_load_file(&asset, argv[1], &err) != CROWD_OK
                 : crowd_rig_build_humanoid(NULL, &rig, &err) != CROWD_OK ||
                       crowd_bake(&(crowd_bake_desc){.rig = &rig, .fps = 15}, &baked, &err) != CROWD_OK ||
                       crowd_asset_load_memory(&asset, baked.bytes, baked.size, &err) != CROWD_OK) {
        fprintf(stderr, "asset: %s\n", err.message);
        return 1;
    }
    if (argc == 1)
        crowd_rig_free(&rig);
    if (asset.position_encoding != CROWD_POSITION_U16_BOX || asset.normal_encoding != CROWD_NORMAL_OCT16 ||
        asset.clip_count > 16) {
        fprintf(stderr, "this example decodes U16_BOX positions and OCT16 normals, up to 16 clips\n");
        return 1;
    }
    crowd *c = NULL;
    if (crowd_create(&(crowd_desc){.asset = &asset, .capacity = 64}, &c, &err) != CROWD_OK)
        return 1;
    crowd_set_count(c, 12);
    for (uint32_t i = 0; i < 12; i++) {
        uint32_t clip = i % asset.clip_count;
        crowd_set_transform(c, i, 1.1f * (float)(i % 6) - 2.75f, 0.0f, -1.6f * (float)(i / 6), 0.4f * (float)i - 2.0f);
        crowd_play(c, i, clip, 1.0f / asset.clips[clip].duration, 0.0f);
        crowd_set_phase(c, i, (float)i / 12.0f);
    }
    crowd_play(c, 3, 0, 1.0f / asset.clips[0].duration, 1.0f); /* a 1 s fade, 0.4 s in when drawn */
    crowd_set_velocity(c, 7, 0.8f, -0.3f); /* walks on its own: 0.32 m right, 0.12 m back when drawn */
    float eye[3] = {0.0f, 1.6f, 5.0f}, target[3] = {0.0f, 0.9f, -0.8f};
    crowd_view view = {.viewport_height = H};
    camera(eye, target, view.view, view.projection);
    crowd_update(c, 0.0f, &view);
    const crowd_frame *frame = crowd_update(c, 0.4f, &view);

    /* ---- GL: a context, a framebuffer, our program, the asset's textures and indices */
    if (!make_context()) {
        fprintf(stderr, "no EGL surfaceless OpenGL ES 3.0 context\n");
        return 1;
    }
    GLuint fbo, colour, depth;
    glGenRenderbuffers(1, &colour);
    glBindRenderbuffer(GL_RENDERBUFFER, colour);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, W, H);
    glGenRenderbuffers(1, &depth);
    glBindRenderbuffer(GL_RENDERBUFFER, depth);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT24, W, H);
    glGenFramebuffers(1, &fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, colour);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, depth);
    glViewport(0, 0, W, H);

    GLuint program = glCreateProgram();
    glAttachShader(program, compile(GL_VERTEX_SHADER, vertex_shader));
    glAttachShader(program, compile(GL_FRAGMENT_SHADER, fragment_shader));
    glLinkProgram(program);
    GLuint positions = texture(&asset.positions, GL_RGBA16UI, GL_RGBA_INTEGER);
    GLuint normals = texture(&asset.normals, GL_RG16UI, GL_RG_INTEGER);
    GLuint vao, records, indices;
    glGenVertexArrays(1, &vao);
    glBindVertexArray(vao);
    glGenBuffers(1, &indices);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, indices);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, (GLsizeiptr)asset.index_count * 4, asset.indices, GL_STATIC_DRAW);
    glGenBuffers(1, &records);
    glBindBuffer(GL_ARRAY_BUFFER, records);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)frame->record_count * 64, frame->records, GL_STREAM_DRAW);
    glBindVertexArray(0);

    /* ---- crowdbake's renderer draws the frame: white characters, no shadow, fog or ground */
    crowd_gl_renderer *reference = NULL;
    if (crowd_gl_create(&(crowd_gl_desc){.asset = &asset, .capacity = crowd_record_capacity(c), .es = true}, &reference,
                        &err) != CROWD_OK) {
        fprintf(stderr, "crowd_gl: %s\n", err.message);
        return 1;
    }
    crowd_gl_scene scene = {.sun_direction = {0.36f, 0.80f, 0.48f},
                            .sun_color = {1.6f, 1.5f, 1.4f},
                            .sky_color = {0.35f, 0.4f, 0.5f},
                            .ground_color = {0.15f, 0.13f, 0.1f},
                            .flat_color = true};
    memcpy(scene.view, view.view, sizeof scene.view);
    memcpy(scene.projection, view.projection, sizeof scene.projection);
    static uint8_t theirs[W * H * 4], ours[W * H * 4];
    glClearColor(0, 0, 0, 1);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    crowd_gl_upload(reference, frame, NULL);
    crowd_gl_draw(reference, frame, &scene);
    glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, theirs);

    /* ---- ours: per draw, the LOD's index range, instanced over the draw's records */
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glViewport(0, 0, W, H);
    glEnable(GL_DEPTH_TEST);
    glEnable(GL_CULL_FACE);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    glUseProgram(program);
    float view_projection[16], clips[16][4] = {{0}};
    multiply(view.projection, view.view, view_projection);
    for (uint32_t k = 0; k < asset.clip_count; k++) {
        clips[k][0] = (float)asset.clips[k].first_frame;
        clips[k][1] = (float)asset.clips[k].frame_count;
        clips[k][2] = asset.clips[k].flags & CROWD_CLIP_LOOP ? 1.0f : 0.0f;
    }
    glUniformMatrix4fv(glGetUniformLocation(program, "u_view_projection"), 1, GL_FALSE, view_projection);
    glUniform4fv(glGetUniformLocation(program, "u_clips"), 16, clips[0]);
    glUniform1f(glGetUniformLocation(program, "u_time"), frame->time);
    glUniform1i(glGetUniformLocation(program, "u_width"), (GLint)asset.positions.width);
    glUniform1i(glGetUniformLocation(program, "u_vertex_count"), (GLint)asset.vertex_count);
    glUniform3fv(glGetUniformLocation(program, "u_box_min"), 1, asset.bounds_min);
    glUniform3fv(glGetUniformLocation(program, "u_box_max"), 1, asset.bounds_max);
    glUniform3fv(glGetUniformLocation(program, "u_sun_direction"), 1, scene.sun_direction);
    glUniform3fv(glGetUniformLocation(program, "u_sun_color"), 1, scene.sun_color);
    glUniform3fv(glGetUniformLocation(program, "u_sky_color"), 1, scene.sky_color);
    glUniform3fv(glGetUniformLocation(program, "u_ground_color"), 1, scene.ground_color);
    glUniform1i(glGetUniformLocation(program, "u_positions"), 0);
    glUniform1i(glGetUniformLocation(program, "u_normals"), 1);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, positions);
    glActiveTexture(GL_TEXTURE1);
    glBindTexture(GL_TEXTURE_2D, normals);
    glBindVertexArray(vao);
    glBindBuffer(GL_ARRAY_BUFFER, records);
    for (uint32_t d = 0; d < frame->draw_count; d++) {
        const crowd_draw *draw = &frame->draws[d];
        const crowd_lod *lod = &asset.lods[draw->lod];
        for (GLuint a = 0; a < 4; a++) { /* the draw's records: 4 vec4 attributes, one record per instance */
            const void *at = (const void *)(uintptr_t)((size_t)draw->first * 64 + 16 * a);
            if (a == 3)
                glVertexAttribIPointer(a, 4, GL_UNSIGNED_INT, 64, at);
            else
                glVertexAttribPointer(a, 4, GL_FLOAT, GL_FALSE, 64, at);
            glEnableVertexAttribArray(a);
            glVertexAttribDivisor(a, 1);
        }
        glUniform1i(glGetUniformLocation(program, "u_cross_fade"), (draw->flags & CROWD_DRAW_CROSS_FADE) != 0);
        glDrawElementsInstanced(GL_TRIANGLES, (GLsizei)lod->index_count, GL_UNSIGNED_INT,
                                (const void *)(uintptr_t)((size_t)lod->first_index * 4), (GLsizei)draw->count);
    }
    glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, ours);
    GLenum gl_error = glGetError();

    /* ---- compare: silhouettes pixel by pixel, and the light where both drew */
    uint32_t either = 0, both = 0, only_one = 0, off = 0;
    double difference = 0;
    for (int i = 0; i < W * H; i++) {
        bool a = theirs[4 * i] | theirs[4 * i + 1] | theirs[4 * i + 2],
             b = ours[4 * i] | ours[4 * i + 1] | ours[4 * i + 2];
        either += a || b;
        only_one += a != b;
        if (a && b) {
            both++;
            int worst = 0;
            for (int k = 0; k < 3; k++) {
                int e = abs(theirs[4 * i + k] - ours[4 * i + k]);
                difference += e;
                worst = e > worst ? e : worst;
            }
            off += worst > 8;
        }
    }
    double silhouette = either ? 100.0 * only_one / either : 100.0, mean = both ? difference / (3.0 * both) : 255.0;
    printf("%u draws, %u instances; %u pixels covered; silhouettes differ on %u (%.3f %%); "
           "where both drew, mean difference %.3f levels, %u pixels over 8\n",
           frame->draw_count, frame->stats.submitted, either, only_one, silhouette, mean, off);
    /* Tolerance: a few edge pixels may round differently; 0.5 % of the silhouette and a mean of 1 level. */
    bool ok = gl_error == GL_NO_ERROR && either > W * H / 20 && silhouette < 0.5 && mean < 1.0 && off < both / 200;
    crowd_gl_destroy(reference);
    crowd_destroy(c);
    crowd_asset_free(&asset);
    crowd_bake_output_free(&baked);
    printf("%s\n", ok ? "own renderer agrees with crowd_gl" : "own renderer DISAGREES with crowd_gl");
    return ok ? 0 : 1;
}
