/* The demo in a window: GLFW natively (desktop GL 3.3 core, functions through libepoxy) and in the
 * browser (Emscripten's GLFW on a WebGL2 canvas). On the web, the page loads the assets and calls
 * the exported web_* functions; natively the assets come from the command line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gl/gl_api.h" /* GL first: libepoxy natively, GLES3 on the web */
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "crowdbake/gl.h"
#include "demo/app.h"

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#include <emscripten/html5.h>
#include <math.h>

#include "demo/scene_probe.h"
#include "demo/web_api.h"
#include "webgpu/renderer_choice.h"
#define EXPORT EMSCRIPTEN_KEEPALIVE
#else
#define EXPORT
#ifdef CROWD_DEMO_SHOTS
#include "gl_context.h" /* tool_write_png */
#endif
#endif

static GLFWwindow *window;
static demo_app *app;
static double last_time;
static double mouse_x, mouse_y;
static float wheel;
static bool dragging;
/* Gun mode: a click locks the pointer (Esc, or leaving the mode, frees it) and the locked pointer
 * turns the view. Where the lock is refused (an embed without allow-pointer-lock, a headless
 * browser) or never granted, holding LMB still fires, at the crosshair, and a drag turns the view. */
typedef enum pointer_lock { LOCK_OFF, LOCK_ASKED, LOCK_ON } pointer_lock;
#define LOCK_WAIT_S 1.0 /* an ask not granted by then counts as refused */
static pointer_lock lock;
static double lock_time;  /* when the lock was asked for: the browser grants it a little later */
static bool lock_refused; /* refused or never granted, until a lock is granted: firing needs no lock */
static bool lock_click;   /* the press that asked for the lock: with a lock, it does not fire */

#ifndef __EMSCRIPTEN__
static void frame_drawn(int width, int height);
#endif

static bool gun_mode(void)
{
    return demo_get(app, DEMO_GUN) > 0.5;
}

#ifdef __EMSCRIPTEN__
static EM_BOOL on_lock_error(int type, const void *reserved, void *user)
{
    (void)type;
    (void)reserved;
    (void)user;
    if (lock == LOCK_ASKED) {
        lock = LOCK_OFF;
        lock_refused = true;
    }
    return EM_FALSE;
}
#endif

/* Asked from GLFW's button callback, inside the browser's mousedown (a user gesture, as browsers
 * require). Called directly: emscripten_request_pointerlock would defer it to the next html5.h
 * handler, and the demo has none (EM_ASM needs gnu11). The promise newer browsers return is caught:
 * a refusal arrives as pointerlockerror. */
static void lock_pointer(GLFWwindow *w, bool on)
{
#ifdef __EMSCRIPTEN__
    (void)w;
    if (on)
        emscripten_run_script("(function () { var c = document.querySelector('#canvas');"
                              " var p = c && c.requestPointerLock ? c.requestPointerLock() : null;"
                              " if (p && p.catch) p.catch(function () {}); })()");
    else
        emscripten_exit_pointerlock();
    lock = on ? LOCK_ASKED : LOCK_OFF;
#else
    glfwSetInputMode(w, GLFW_CURSOR, on ? GLFW_CURSOR_DISABLED : GLFW_CURSOR_NORMAL);
    lock = on ? LOCK_ON : LOCK_OFF;
#endif
    lock_time = glfwGetTime();
}

static void on_key(GLFWwindow *w, int key, int scancode, int action, int mods)
{
    (void)scancode;
    if (action != GLFW_PRESS)
        return;
    if (key == GLFW_KEY_ESCAPE && lock != LOCK_OFF) {
        lock_pointer(w, false);
        return;
    }
    if (key == GLFW_KEY_ESCAPE) {
        glfwSetWindowShouldClose(w, GLFW_TRUE);
        return;
    }
    demo_key(app, key, (mods & GLFW_MOD_SHIFT) != 0);
    if (lock != LOCK_OFF && !gun_mode())
        lock_pointer(w, false);
}

static void on_scroll(GLFWwindow *w, double dx, double dy)
{
    (void)w;
    (void)dx;
    wheel += (float)dy;
}

static void on_button(GLFWwindow *w, int button, int action, int mods)
{
    (void)mods;
    if (button == GLFW_MOUSE_BUTTON_LEFT) {
        lock_click = action == GLFW_PRESS && gun_mode() && lock == LOCK_OFF;
        if (lock_click)
            lock_pointer(w, true);       /* asked again after a refusal too: the next click may be granted */
        dragging = action == GLFW_PRESS; /* a free cursor drags the view (a locked one turns it anyway) */
    }
    glfwGetCursorPos(w, &mouse_x, &mouse_y);
}

static float key_axis(int positive, int negative)
{
    return (glfwGetKey(window, positive) == GLFW_PRESS ? 1.0f : 0.0f) -
           (glfwGetKey(window, negative) == GLFW_PRESS ? 1.0f : 0.0f);
}

#ifdef __EMSCRIPTEN__
/* The page's renderer choice (web_renderer) and the HUD line that says what draws: rewritten only
 * when its words change (the device arrives, or is refused, a few frames after the start). */
static crowd_renderer_choice renderer_choice;
static char renderer_line[256];

static void renderer_frame(void)
{
    char line[sizeof renderer_line];
    crowd_renderer_label(renderer_choice, line, sizeof line);
    if (strcmp(line, renderer_line) != 0) {
        memcpy(renderer_line, line, sizeof line);
        demo_set_renderer_line(app, renderer_line);
    }
}
#endif

static void frame(void)
{
    double now = glfwGetTime(), x, y;
    glfwGetCursorPos(window, &x, &y);
#ifdef __EMSCRIPTEN__
    EmscriptenPointerlockChangeEvent status;
    bool active = emscripten_get_pointerlock_status(&status) == EMSCRIPTEN_RESULT_SUCCESS && status.isActive;
    if (lock == LOCK_ASKED && active) {
        lock = LOCK_ON;
        lock_refused = false;
    } else if (lock == LOCK_ASKED && now - lock_time > LOCK_WAIT_S) {
        lock = LOCK_OFF; /* never granted */
        lock_refused = true;
    } else if (lock == LOCK_ON && !active) {
        lock = LOCK_OFF; /* the browser let go (Esc) */
    }
#endif
    bool aim = lock == LOCK_ON && gun_mode(); /* a locked pointer turns the view without a drag */
    bool trigger = gun_mode() && glfwGetMouseButton(window, GLFW_MOUSE_BUTTON_LEFT) == GLFW_PRESS &&
                   ((aim && !lock_click) || (lock_refused && lock != LOCK_ON));
    demo_input input = {
        {key_axis(GLFW_KEY_D, GLFW_KEY_A), key_axis(GLFW_KEY_E, GLFW_KEY_Q), key_axis(GLFW_KEY_W, GLFW_KEY_S)},
        glfwGetKey(window, GLFW_KEY_LEFT_SHIFT) == GLFW_PRESS,
        {dragging || aim ? (float)(x - mouse_x) : 0.0f, dragging || aim ? (float)(y - mouse_y) : 0.0f},
        wheel,
        trigger};
    mouse_x = x;
    mouse_y = y;
    wheel = 0.0f;
    int width, height;
    glfwGetFramebufferSize(window, &width, &height);
    demo_frame(app, now - last_time, width, height, &input);
    last_time = now;
#ifdef __EMSCRIPTEN__
    renderer_frame();
#else
    frame_drawn(width, height);
#endif
    glfwSwapBuffers(window);
    glfwPollEvents();
}

static int open_window(bool es, int width, int height)
{
    if (!glfwInit()) {
        fprintf(stderr, "crowd-demo: cannot initialise GLFW (no display?) - try `make serve` or crowd-demo-headless\n");
        return 1;
    }
    if (es) {
        glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_ES_API);
        glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
        glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
    } else {
        glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
        glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
        glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
        glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    }
    glfwWindowHint(GLFW_SAMPLES, 0); /* MSAA is a setting: the demo draws into its own multisampled target */
    window = glfwCreateWindow(width, height, "crowdbake", NULL, NULL);
    if (!window) {
        fprintf(stderr, "crowd-demo: cannot open a GL %s window\n", es ? "ES 3.0" : "3.3 core");
        glfwTerminate();
        return 1;
    }
    glfwMakeContextCurrent(window);
    glfwSwapInterval(1);
    glfwSetKeyCallback(window, on_key);
    glfwSetScrollCallback(window, on_scroll);
    glfwSetMouseButtonCallback(window, on_button);
#ifdef __EMSCRIPTEN__
    emscripten_set_pointerlockerror_callback(EMSCRIPTEN_EVENT_TARGET_DOCUMENT, NULL, EM_FALSE, on_lock_error);
#endif
    return 0;
}

#ifdef __EMSCRIPTEN__

/* ---- the browser: the page feeds assets, then starts; the panel calls web_set -------------------- */

typedef struct pending_asset {
    uint8_t *bytes;
    int size;
    char name[64];
} pending_asset;
static pending_asset pending[8];
static int pending_count;

static char add_error[sizeof(((crowd_error *)0)->message)];

/* Before web_start the asset waits for the demo; after it (a character baked in the page) it joins
 * the running demo's asset menu. */
EXPORT int web_add_asset(const uint8_t *bytes, int size, const char *name)
{
    add_error[0] = '\0';
    if (app) {
        crowd_error err = {0};
        uint32_t index = 0;
        if (size <= 0 || demo_add_asset(app, bytes, (size_t)size, name, &index, &err) != CROWD_OK) {
            snprintf(add_error, sizeof add_error, "%s", size <= 0 ? "no bytes" : err.message);
            return -1;
        }
        return (int)index;
    }
    if (pending_count == 8 || size <= 0)
        return -1;
    pending_asset *p = &pending[pending_count];
    p->bytes = malloc((size_t)size);
    if (!p->bytes)
        return -1;
    memcpy(p->bytes, bytes, (size_t)size);
    p->size = size;
    snprintf(p->name, sizeof p->name, "%s", name);
    return pending_count++;
}

EXPORT int web_renderer(const char *name)
{
    int choice = crowd_renderer_parse(name);
    renderer_choice = choice < 0 ? CROWD_RENDERER_AUTO : (crowd_renderer_choice)choice;
    return choice < 0 ? -1 : 0;
}

EXPORT int web_start(int debug, int timers, int upload)
{
    if (open_window(true, 1280, 720))
        return 1;
    demo_desc desc = {.es = true,
                      .auto_quality = true,
                      .capacity = 250000,
                      .initial_count = 20000,
                      .gl_debug = debug != 0,
                      .gl_timers = timers != 0,
                      .gl_upload = upload};
    crowd_error err;
    if (demo_create(&desc, &app, &err) != CROWD_OK) {
        fprintf(stderr, "crowd-demo: %s\n", err.message);
        return 1;
    }
    for (int i = 0; i < pending_count; i++) {
        if (demo_add_asset(app, pending[i].bytes, (size_t)pending[i].size, pending[i].name, NULL, &err) != CROWD_OK)
            fprintf(stderr, "crowd-demo: %s\n", err.message);
        free(pending[i].bytes);
    }
    crowd_renderer_start(renderer_choice);
    last_time = glfwGetTime();
    emscripten_set_main_loop(frame, 0, 0);
    return 0;
}

EXPORT int web_set(const char *name, double value)
{
    int s = demo_setting_find(name);
    return s < 0 ? -1 : (int)demo_set(app, (demo_setting)s, value);
}

EXPORT double web_get(const char *name)
{
    int s = demo_setting_find(name);
    return s < 0 ? -1.0 : demo_get(app, (demo_setting)s);
}

EXPORT const char *web_settings_json(void)
{
    static char json[4096];
    const demo_setting_info *t = demo_setting_table();
    int n = snprintf(json, sizeof json, "[");
    for (int i = 0; i < DEMO_SETTING_COUNT && n < (int)sizeof json - 256; i++)
        n += snprintf(json + n, sizeof json - (size_t)n,
                      "%s{\"name\":\"%s\",\"label\":\"%s\",\"min\":%g,\"max\":%g,\"step\":%g,\"choices\":\"%s\","
                      "\"value\":%.9g}",
                      i ? "," : "", t[i].name, t[i].label, t[i].min, t[i].max, t[i].step,
                      t[i].choices ? t[i].choices : "", app ? demo_get(app, (demo_setting)i) : 0.0);
    snprintf(json + n, sizeof json - (size_t)n, "]");
    return json;
}

EXPORT const char *web_status(void)
{
    return demo_status(app);
}

EXPORT const char *web_status_details(void)
{
    return demo_status_details(app);
}

EXPORT const char *web_stats_json(void)
{
    return demo_stats_json(app);
}

EXPORT const char *web_error(void)
{
    return demo_last_error(app);
}

EXPORT const char *web_add_error(void)
{
    return add_error;
}

EXPORT void web_benchmark(void)
{
    demo_start_benchmark(app);
}

EXPORT void web_benchmark_plan(int count_a, int count_b, int warmup, int measure)
{
    const uint32_t counts[2] = {count_a > 0 ? (uint32_t)count_a : 0, count_b > 0 ? (uint32_t)count_b : 0};
    demo_start_benchmark_plan(app, counts, counts[1] ? 2 : 1, warmup > 0 ? (uint32_t)warmup : 0,
                              measure > 0 ? (uint32_t)measure : 0);
}

EXPORT const char *web_benchmark_report(void)
{
    return demo_benchmark_report(app);
}

EXPORT double web_measure_update(int count, int frames)
{
    return demo_measure_update(app, (uint32_t)count, (uint32_t)frames);
}

EXPORT double web_measure_scene(int count, int warmup, int frames)
{
    if (count <= 0 || warmup < 0 || frames <= 0)
        return NAN;
    return demo_measure_scene(demo_active_asset(app), (uint32_t)count, (uint32_t)warmup, (uint32_t)frames);
}

EXPORT void web_key(int key)
{
    demo_key(app, key, false);
}

EXPORT void web_look_at(float ex, float ey, float ez, float tx, float ty, float tz)
{
    const float eye[3] = {ex, ey, ez}, target[3] = {tx, ty, tz};
    demo_look_at(app, eye, target);
}

EXPORT int web_aim_at_instance(int index)
{
    return index >= 0 && demo_aim_at_instance(app, (uint32_t)index) ? 0 : -1;
}

int main(void)
{
    return 0; /* the page calls web_start once the assets are in */
}

#else

/* ---- native: assets from the command line, a window until closed -------------------------------- */

static uint32_t frames_left;  /* --frames: close the window after this many frames (0: when the user does) */
static const char *shot_path; /* --shot: the last frame's pixels (at --frames or at Esc) from the back buffer */
static bool last_frame;       /* this frame is the last: read it back (--shot), then close */
static int shot_status;

#ifdef CROWD_DEMO_SHOTS
/* A frame whose pixels nearly all equal the first one is blank (nothing reached the window). */
static bool blank(const uint8_t *rgb, int n)
{
    int differing = 0;
    for (int i = 1; i < n; i++)
        differing += memcmp(rgb + 3 * i, rgb, 3) != 0;
    return differing < n / 20;
}

static int write_shot(const char *path, int width, int height)
{
    uint8_t *rgba = malloc((size_t)width * height * 4), *rgb = malloc((size_t)width * height * 3);
    int status = 1;
    crowd_error err = {0};
    if (rgba && rgb) {
        glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
        glReadBuffer(GL_BACK);
        glPixelStorei(GL_PACK_ALIGNMENT, 4);
        glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
        for (int y = 0; y < height; y++) /* GL rows are bottom-up */
            for (int x = 0; x < width; x++)
                memcpy(rgb + ((size_t)y * width + x) * 3, rgba + ((size_t)(height - 1 - y) * width + x) * 4, 3);
        if (tool_write_png(path, rgb, width, height, &err) != CROWD_OK)
            fprintf(stderr, "crowd-demo: %s\n", err.message);
        else if (blank(rgb, width * height))
            fprintf(stderr, "crowd-demo: %s: the window's frame is blank\n", path);
        else if (crowd_gl_check("the window's frame", &err) != CROWD_OK)
            fprintf(stderr, "crowd-demo: %s\n", err.message);
        else {
            printf("crowd-demo: %dx%d frame from the window in %s\n", width, height, path);
            status = 0;
        }
    }
    free(rgba);
    free(rgb);
    return status;
}
#endif

/* Called after each frame is drawn into the back buffer, before the swap. */
static void frame_drawn(int width, int height)
{
    if (frames_left && !--frames_left)
        last_frame = true;
    if (!last_frame)
        return;
#ifdef CROWD_DEMO_SHOTS
    if (shot_path)
        shot_status = write_shot(shot_path, width, height);
#else
    (void)width;
    (void)height;
#endif
    glfwSetWindowShouldClose(window, GLFW_TRUE);
}

static bool parse_count(const char *text, uint32_t min, uint32_t max, uint32_t *out)
{
    char *end;
    unsigned long n = strtoul(text, &end, 10);
    if (end == text || *end || text[0] == '-' || n < min || n > max)
        return false;
    *out = (uint32_t)n;
    return true;
}

static uint8_t *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    uint8_t *bytes = NULL;
    long n = -1;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 && (bytes = malloc((size_t)n)) &&
        fread(bytes, 1, (size_t)n, f) != (size_t)n) {
        free(bytes);
        bytes = NULL;
    }
    fclose(f);
    *size = n > 0 ? (size_t)n : 0;
    return bytes;
}

int main(int argc, char **argv)
{
    demo_desc desc = {.es = false, .capacity = 250000, .initial_count = 20000, .auto_quality = true};
    int assets = 0, width = 1280, height = 720;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--gl-debug"))
            desc.gl_debug = true;
        else if (!strcmp(argv[i], "--gl-timers"))
            desc.gl_timers = true;
        else if (!strcmp(argv[i], "--path") && i + 1 < argc && demo_path_parse(argv[i + 1]) >= 0)
            desc.gl_path = demo_path_parse(argv[++i]);
        else if (!strcmp(argv[i], "--frames") && i + 1 < argc && parse_count(argv[i + 1], 1, 1000000, &frames_left))
            i++;
        else if (!strcmp(argv[i], "--count") && i + 1 < argc &&
                 parse_count(argv[i + 1], 1, 250000, &desc.initial_count))
            i++;
        else if (!strcmp(argv[i], "--size") && i + 1 < argc && sscanf(argv[i + 1], "%dx%d", &width, &height) == 2 &&
                 width >= 64 && height >= 64 && width <= 8192 && height <= 8192)
            i++;
#ifdef CROWD_DEMO_SHOTS
        else if (!strcmp(argv[i], "--shot") && i + 1 < argc)
            shot_path = argv[++i];
#endif
        else if (argv[i][0] == '-') {
            fprintf(stderr, "crowd-demo: unknown option or value %s\n", argv[i]);
            return 2;
        } else
            assets++;
    }
    if (!assets) {
        fprintf(stderr,
                "usage: crowd-demo asset.crowd [more.crowd ...] [--gl-debug] [--gl-timers] [--path auto|cpu|gpu]\n"
                "                  [--count n] [--size WxH] [--frames n (close after n frames)] [--shot out.png (the "
                "last frame)]\n");
        return 2;
    }
    if (open_window(false, width, height))
        return 1;
    crowd_error err;
    if (demo_create(&desc, &app, &err) != CROWD_OK) {
        fprintf(stderr, "crowd-demo: %s\n", err.message);
        return 1;
    }
    int loaded = 0;
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-') {
            i += strncmp(argv[i], "--gl-", 5) != 0; /* the options with a value skip it */
            continue;
        }
        size_t size = 0;
        uint8_t *bytes = read_file(argv[i], &size);
        const char *name = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
        if (!bytes)
            fprintf(stderr, "crowd-demo: %s: cannot read\n", argv[i]);
        else if (demo_add_asset(app, bytes, size, name, NULL, &err) != CROWD_OK)
            fprintf(stderr, "crowd-demo: %s\n", err.message);
        else
            loaded++;
        free(bytes);
    }
    if (!loaded) {
        demo_destroy(app);
        glfwTerminate();
        return 1;
    }
    printf("crowd-demo: %d asset(s); F1 lists the keys, B runs the benchmark, Esc quits\n", loaded);
    last_time = glfwGetTime();
    while (!glfwWindowShouldClose(window))
        frame();
    if (shot_path && !last_frame) { /* closed by the user (Esc): one more frame, read back */
        last_frame = true;
        frame();
    }
    demo_stats stats;
    demo_get_stats(app, &stats);
    printf("crowd-demo: %u frames, %u instances live at the end, last frame %.1f ms\n%s\n%s\n", stats.frames,
           stats.instances, stats.frame_ms, demo_status(app), demo_status_details(app));
    demo_destroy(app);
    glfwDestroyWindow(window);
    glfwTerminate();
    return shot_status;
}

#endif
