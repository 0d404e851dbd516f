/* Internal: which renderer a page draws with (?renderer=webgpu|webgl2|auto), and the words that say
 * so in its HUD and stats. The web build only. In this layer WebGPU runs compute work only (the
 * record decode) and WebGL2 draws every frame: the label says which, and why when WebGPU is
 * unavailable. */
#ifndef CROWD_WEBGPU_RENDERER_CHOICE_H
#define CROWD_WEBGPU_RENDERER_CHOICE_H

#include <stdint.h>

typedef enum crowd_renderer_choice {
    CROWD_RENDERER_AUTO = 0, /* WebGPU where the browser gives a device, else WebGL2 (the default) */
    CROWD_RENDERER_WEBGPU,   /* asked for WebGPU: still WebGL2 when there is no device, saying why */
    CROWD_RENDERER_WEBGL2,   /* WebGL2 only: no device is asked for */
} crowd_renderer_choice;

/* "auto", "webgpu" or "webgl2" (NULL or "" is auto); -1 for anything else. */
int crowd_renderer_parse(const char *name);
/* Starts asking for a WebGPU device unless the choice is WebGL2; call once, before the first frame. */
void crowd_renderer_start(crowd_renderer_choice choice);
/* The HUD's line for the choice now (the device arrives a few frames after the start), as
 * "renderer: WebGL2 (WebGPU unavailable: no adapter)"; plain ASCII quotes and backslashes are
 * replaced so the line can stand in a JSON string. Returns out. */
const char *crowd_renderer_label(crowd_renderer_choice choice, char *out, uint32_t size);

#endif
