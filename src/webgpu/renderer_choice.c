/* The renderer choice and its words (renderer_choice.h). */
#include "renderer_choice.h"

#include <stdio.h>
#include <string.h>

#include "wgpu_binding.h"

int crowd_renderer_parse(const char *name)
{
    if (!name || !name[0] || strcmp(name, "auto") == 0)
        return CROWD_RENDERER_AUTO;
    if (strcmp(name, "webgpu") == 0)
        return CROWD_RENDERER_WEBGPU;
    return strcmp(name, "webgl2") == 0 ? CROWD_RENDERER_WEBGL2 : -1;
}

void crowd_renderer_start(crowd_renderer_choice choice)
{
    if (choice != CROWD_RENDERER_WEBGL2)
        crowd_wgpu_request_device();
}

/* The browser's reason text goes into HUD text and JSON strings: no quotes, backslashes or
 * control characters. */
static void plain(char *text)
{
    for (; *text; text++)
        if (*text == '"' || *text == '\\' || (unsigned char)*text < 0x20)
            *text = *text == '"' ? '\'' : ' ';
}

const char *crowd_renderer_label(crowd_renderer_choice choice, char *out, uint32_t size)
{
    if (!out || size == 0)
        return out;
    if (choice == CROWD_RENDERER_WEBGL2) {
        snprintf(out, size, "renderer: WebGL2 (chosen)");
        return out;
    }
    int state = crowd_wgpu_device_state();
    if (state == CROWD_WGPU_PENDING) {
        snprintf(out, size, "renderer: WebGL2 (WebGPU: asking for a device)");
    } else if (state == CROWD_WGPU_READY) {
        snprintf(out, size, "renderer: WebGL2 (WebGPU device ready: compute only, WebGL2 draws)");
    } else {
        char reason[200];
        crowd_wgpu_device_reason(reason, sizeof reason);
        snprintf(out, size, "renderer: WebGL2 (WebGPU unavailable: %s)", reason[0] ? reason : "no reason given");
    }
    plain(out);
    return out;
}
