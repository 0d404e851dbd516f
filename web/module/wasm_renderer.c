/* The Renderer's `renderer` option (auto, webgpu, webgl2) and the words that say what draws: the
 * demo page's choice (src/webgpu/renderer_choice.h), for the module. WebGL2 draws in this layer;
 * the words say whether WebGPU is there and, when it is not, why. */
#include <emscripten.h>

#include "wasm_module.h"
#include "webgpu/renderer_choice.h"

EMSCRIPTEN_KEEPALIVE int cbw_renderer_start(int choice)
{
    if (choice < CROWD_RENDERER_AUTO || choice > CROWD_RENDERER_WEBGL2)
        return -1;
    crowd_renderer_start((crowd_renderer_choice)choice);
    return 0;
}

EMSCRIPTEN_KEEPALIVE const char *cbw_renderer_label(int choice)
{
    static char label[256];
    if (choice < CROWD_RENDERER_AUTO || choice > CROWD_RENDERER_WEBGL2)
        choice = CROWD_RENDERER_AUTO;
    return crowd_renderer_label((crowd_renderer_choice)choice, label, sizeof label);
}
