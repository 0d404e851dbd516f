/* What the web page (web/main.js) calls in the wasm module. The page fetches the assets, hands
 * each to web_add_asset, then calls web_start; the panel calls web_set. */
#ifndef CROWD_DEMO_WEB_API_H
#define CROWD_DEMO_WEB_API_H

#include <stdint.h>

int web_add_asset(const uint8_t *bytes, int size, const char *name); /* copied; index or -1 (after web_start:
                                                                        joins the asset menu; web_add_error says why not) */
const char *web_add_error(void);
/* ?renderer=webgpu|webgl2|auto, before web_start: 0, or -1 for another name (auto then). */
int web_renderer(const char *name);
int web_start(int debug, int timers, int upload); /* opens the canvas, starts the loop; 0 = ok.
                                                          debug: GL errors checked every frame (?debug=1);
                                                          timers: GPU timer queries (?timers=1);
                                                          upload: a crowd_gl_upload_mode (?upload=ring) */
int web_set(const char *name, double value);      /* 0 = ok, -1 = unknown name, else a crowd_result */
double web_get(const char *name);
const char *web_settings_json(void);    /* the settings table, for building the panel */
const char *web_status(void);           /* the HUD text: plain words (demo_status) */
const char *web_status_details(void);   /* every figure (demo_status_details) */
const char *web_stats_json(void);       /* demo_stats as JSON (window.crowd.stats()) */
const char *web_error(void);            /* the last refused setting, "" if none */
void web_benchmark(void);               /* starts the scripted benchmark */
const char *web_benchmark_report(void); /* "" until it has finished */
void web_benchmark_plan(int count_a, int count_b, int warmup, int measure); /* a short run (count_b 0: one count) */
double web_measure_update(int count, int frames);                           /* median ms of sim + update, no drawing */
double web_measure_scene(int count, int warmup, int frames); /* the same on crowd-bench's scene (scene_probe.h) */
void web_key(int key);                                       /* a native shortcut, by GLFW key code */
void web_look_at(float ex, float ey, float ez, float tx, float ty, float tz); /* walk camera pose */
int web_aim_at_instance(int index); /* the walk camera, where it is, turned to an instance's chest; -1: none */

#endif
