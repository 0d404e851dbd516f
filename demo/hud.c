#include "demo/hud.h"

#include <stdio.h>
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

#define HUD_MAX_QUADS 16000

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
    char text[8192]; /* the text being drawn (stb_easy_font takes a mutable string): no allocation per frame */
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

/* stb_easy_font takes a mutable string: the text is copied into the HUD's own buffer. */
static char *copy_text(demo_hud *h, const char *text)
{
    size_t length = strlen(text);
    length = length < sizeof h->text - 1 ? length : sizeof h->text - 1;
    memcpy(h->text, text, length);
    h->text[length] = '\0';
    return h->text;
}

float demo_hud_text_width(const char *text)
{
    static char copy[1024];
    snprintf(copy, sizeof copy, "%s", text ? text : "");
    return (float)stb_easy_font_width(copy);
}

/* The panel (vertices 0..5), then two triangles per glyph quad; returns the quads. */
static int layout(demo_hud *h, char *text, const demo_hud_style *s, int *panel_width, int *panel_height)
{
    float scale = s->scale > 0.0f ? s->scale : 1.0f, pad = 4.0f + 2.0f * scale;
    float text_w = (float)stb_easy_font_width(text) * scale, text_h = (float)stb_easy_font_height(text) * scale;
    float x0 = s->centred ? s->x - 0.5f * text_w : s->x, y0 = s->y;
    int quads = stb_easy_font_print(0, 0, text, NULL, h->quads, 64 * HUD_MAX_QUADS);
    quad(h->vertices, x0 - pad, y0 - pad, x0 + text_w + pad, y0 + text_h + pad);
    if (panel_width)
        *panel_width = (int)(text_w + 2.0f * pad);
    if (panel_height)
        *panel_height = (int)(text_h + 2.0f * pad);
    for (int i = 0; i < quads; i++) {
        const float *c = (const float *)(h->quads + 64 * i); /* 4 corners of 16 bytes: x, y, z, rgba */
        quad(h->vertices + 12 * (i + 1), x0 + c[0] * scale, y0 + c[1] * scale, x0 + c[8] * scale, y0 + c[9] * scale);
    }
    return quads;
}

void demo_hud_draw(demo_hud *h, const char *text, const demo_hud_style *style, int width, int height, int *panel_width,
                   int *panel_height)
{
    if (!h || !text || !*text || !style)
        return;
    int quads = layout(h, copy_text(h, text), style, panel_width, panel_height);
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_CULL_FACE);
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glUseProgram(h->program.id);
    glUniform2f(h->u_viewport, (float)width, (float)height);
    glBindVertexArray(h->vao);
    glBindBuffer(GL_ARRAY_BUFFER, h->vbo);
    /* a fresh store each draw (orphaning): the last draw may still be reading the old one */
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(sizeof(float) * 12 * (quads + 1)), h->vertices, GL_DYNAMIC_DRAW);
    glUniform4f(h->u_color, 0.05f, 0.06f, 0.08f, 0.6f);
    glDrawArrays(GL_TRIANGLES, 0, 6);
    glUniform4f(h->u_color, style->color[0], style->color[1], style->color[2], 1.0f);
    glDrawArrays(GL_TRIANGLES, 6, 6 * quads);
    glBindVertexArray(0);
    glDisable(GL_BLEND);
    glEnable(GL_DEPTH_TEST);
}
