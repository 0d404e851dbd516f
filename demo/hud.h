/* The on-screen overlay: lines of text (stb_easy_font) over a translucent panel, drawn with a tiny
 * GL program in pixel coordinates. Same code natively and in WebGL2. */
#ifndef CROWD_DEMO_HUD_H
#define CROWD_DEMO_HUD_H

#include <stdbool.h>

#include "crowdbake/base.h"

typedef struct demo_hud demo_hud;

/* Where a block of text goes and how it looks. */
typedef struct demo_hud_style {
    float x, y;     /* pixels from the top-left corner: the text's top-left, or with `centred` its top-centre */
    float scale;    /* 1: stb_easy_font's own size (about 6 x 12 px a character); glyphs and panel scale */
    bool centred;   /* x is the middle of the text's widest line */
    float color[3]; /* the glyphs' (the panel behind them is a translucent dark grey) */
} demo_hud_style;

crowd_result demo_hud_create(bool es, demo_hud **out, crowd_error *error);
void demo_hud_destroy(demo_hud *hud);

/* Draws `text` (lines separated by '\n') over a translucent panel into the bound framebuffer of
 * width x height pixels; the panel's size in pixels comes back through panel_width / panel_height
 * (may be NULL). */
void demo_hud_draw(demo_hud *hud, const char *text, const demo_hud_style *style, int width, int height,
                   int *panel_width, int *panel_height);

/* The width of `text`'s widest line at scale 1, in pixels: for fitting text into a space. */
float demo_hud_text_width(const char *text);

#endif
