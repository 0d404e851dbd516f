/* The on-screen overlay: lines of text (stb_easy_font) over a translucent panel, drawn with a tiny
 * GL program in pixel coordinates. Same code natively and in WebGL2. */
#ifndef CROWD_DEMO_HUD_H
#define CROWD_DEMO_HUD_H

#include <stdbool.h>

#include "crowdbake/base.h"

typedef struct demo_hud demo_hud;

crowd_result demo_hud_create(bool es, demo_hud **out, crowd_error *error);
void demo_hud_destroy(demo_hud *hud);

/* Draws `text` (lines separated by '\n') at the top-left (right = false) or top-right corner; the
 * panel's size in pixels comes back through panel_width / panel_height (may be NULL). */
void demo_hud_draw(demo_hud *hud, const char *text, int width, int height, bool right, int *panel_width,
                   int *panel_height);

#endif
