/* Reading cost against file size (`make bench-gltf`): the humanoid exported at growing mesh
 * densities and key rates, each read from memory 9 times; prints the median and the cost per
 * byte, which stays flat when reading is linear in the file's size. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "crowdbake/gltf.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int compare(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(void)
{
    const struct {
        float density, fps;
    } cases[] = {{0.25f, 10}, {0.5f, 30}, {1, 30}, {1, 120}, {2, 60}, {4, 60}, {4, 240}};
    printf("| density | keys/s | file KB | read ms (median of 9) | ns per byte |\n| --- | --- | --- | --- | --- |\n");
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        crowd_rig rig;
        crowd_error err;
        crowd_humanoid_desc hd = {.density = cases[c].density};
        crowd_gltf_write_desc wd = {.fps = cases[c].fps};
        uint8_t *glb;
        size_t size;
        if (crowd_rig_build_humanoid(&hd, &rig, &err) || crowd_gltf_write_glb(&rig, &wd, &glb, &size, &err)) {
            fprintf(stderr, "%s\n", err.message);
            return 1;
        }
        crowd_rig_free(&rig);
        double ms[9];
        for (int run = 0; run < 9; run++) {
            double t0 = now_ms();
            if (crowd_gltf_read_memory(glb, size, "bench", NULL, NULL, &rig, &err) != CROWD_OK) {
                fprintf(stderr, "%s\n", err.message);
                return 1;
            }
            ms[run] = now_ms() - t0;
            crowd_rig_free(&rig);
        }
        qsort(ms, 9, sizeof *ms, compare);
        printf("| %.2f | %.0f | %.0f | %.2f | %.1f |\n", (double)cases[c].density, (double)cases[c].fps, size / 1024.0,
               ms[4], ms[4] * 1e6 / (double)size);
        crowd_gltf_bytes_free(glb);
    }
    return 0;
}
