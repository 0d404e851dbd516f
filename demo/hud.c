#include "demo/hud.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "gl/gl_api.h"
#include "gl/program.h"

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wunused-function"
#endif
#include <stb/stb_easy_font.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#define HUD_SCALE 1.0f /* stb_easy_font at 1:1, about 6 x 12 px per character: a compact overlay */
#define HUD_MAX_QUADS 6000

static const char hud_vertex[] = "layout(location = 0) in vec2 a_position;\n"
                                 "uniform vec2 u_viewport;\n"
                                 "void main() {\n"
                                 "    vec2 ndc = a_position / u_viewport * 2.0 - 1.0;\n"
                                 "    gl_Position = vec4(ndc.x, -ndc.y, 0.0, 1.0);\n"
                                 "}\n";
static const char hud_fragment[] = "uniform vec4 u_color;\n"
                                   "out vec4 o_color;\n"
                                   "void main() { o_color = u_color; }\n";

struct demo_hud {
    crowd_program program;
    GLint u_viewport, u_color;
    GLuint vao, vbo;
    float *vertices; /* x, y per triangle corner */
    char *quads;     /* stb_easy_font output: 4 vertices x 16 bytes per quad */
    char text[4096]; /* the text being drawn (stb_easy_font takes a mutable string): no allocation per frame */
};

crowd_result demo_hud_create(bool es, demo_hud **out, crowd_error *error)
{
    demo_hud *h = calloc(1, sizeof *h);
    if (!h)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "hud: out of memory");
    h->vertices = malloc(sizeof(float) * 12 * (HUD_MAX_QUADS + 1));
    h->quads = malloc(64 * HUD_MAX_QUADS);
    crowd_result r = h->vertices && h->quads
                         ? crowd_program_build(&h->program, "hud", es, NULL, hud_vertex, hud_fragment, error)
                         : crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "hud: out of memory");
    if (r != CROWD_OK) {
        demo_hud_destroy(h);
        return r;
    }
    h->u_viewport = glGetUniformLocation(h->program.id, "u_viewport");
    h->u_color = glGetUniformLocation(h->program.id, "u_color");
    glGenVertexArrays(1, &h->vao);
    glGenBuffers(1, &h->vbo);
    glBindVertexArray(h->vao);
    glBindBuffer(GL_ARRAY_BUFFER, h->vbo);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(sizeof(float) * 12 * (HUD_MAX_QUADS + 1)), NULL, GL_DYNAMIC_DRAW);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, NULL);
    glBindVertexArray(0);
    *out = h;
    return CROWD_OK;
}

void demo_hud_destroy(demo_hud *h)
{
    if (!h)
        return;
    crowd_program_release(&h->program);
    if (h->vao)
        glDeleteVertexArrays(1, &h->vao);
    if (h->vbo)
        glDeleteBuffers(1, &h->vbo);
    free(h->vertices);
    free(h->quads);
    free(h);
}

static void quad(float *v, float x0, float y0, float x1, float y1)
{
    const float q[12] = {x0, y0, x1, y0, x1, y1, x0, y0, x1, y1, x0, y1};
    memcpy(v, q, sizeof q);
}

void demo_hud_draw(demo_hud *h, const char *text, int width, int height, bool right, int *panel_width,
                   int *panel_height)
{
    if (!h || !text || !*text)
        return;
    size_t length = strlen(text);
    length = length < sizeof h->text - 1 ? length : sizeof h->text - 1;
    memcpy(h->text, text, length);
    h->text[length] = '\0';
    char *copy = h->text;
    float text_w = (float)stb_easy_font_width(copy) * HUD_SCALE, text_h = (float)stb_easy_font_height(copy) * HUD_SCALE;
    float x0 = right ? (float)width - text_w - 16.0f : 8.0f, y0 = 8.0f;
    int quads = stb_easy_font_print(0, 0, copy, NULL, h->quads, 64 * HUD_MAX_QUADS);
    /* vertex 0..5: the panel; then two triangles per glyph quad */
    quad(h->vertices, x0 - 6, y0 - 6, x0 + text_w + 8, y0 + text_h + 6);
    if (panel_width)
        *panel_width = (int)(text_w + 14);
    if (panel_height)
        *panel_height = (int)(text_h + 12);
    for (int i = 0; i < quads; i++) {
        const float *c = (const float *)(h->quads + 64 * i); /* 4 corners of 16 bytes: x, y, z, rgba */
        quad(h->vertices + 12 * (i + 1), x0 + c[0] * HUD_SCALE, y0 + c[1] * HUD_SCALE, x0 + c[8] * HUD_SCALE,
             y0 + c[9] * HUD_SCALE);
    }
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_CULL_FACE);
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glUseProgram(h->program.id);
    glUniform2f(h->u_viewport, (float)width, (float)height);
    glBindVertexArray(h->vao);
    glBindBuffer(GL_ARRAY_BUFFER, h->vbo);
    /* a fresh store each frame (orphaning): last frame's HUD draw may still be reading the old one */
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(sizeof(float) * 12 * (quads + 1)), h->vertices, GL_DYNAMIC_DRAW);
    glUniform4f(h->u_color, 0.05f, 0.06f, 0.08f, 0.6f);
    glDrawArrays(GL_TRIANGLES, 0, 6);
    glUniform4f(h->u_color, 0.95f, 0.96f, 0.9f, 1.0f);
    glDrawArrays(GL_TRIANGLES, 6, 6 * quads);
    glBindVertexArray(0);
    glDisable(GL_BLEND);
    glEnable(GL_DEPTH_TEST);
}
