/* Test helper for tests/node/three_reference.mjs: the box around every vertex of a glTF file's
 * character at each baked frame of a clip, skinned in double precision from the rig the reader
 * builds. three.js computes the same boxes from the same file on its own; they must agree. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bake/reference.h"
#include "crowdbake/gltf.h"

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: gltf_frame_bounds file.glb clip frames\n");
        return 2;
    }
    crowd_rig rig;
    crowd_error err;
    if (crowd_gltf_read_file(argv[1], NULL, &rig, &err) != CROWD_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    int clip = crowd_rig_find_clip(&rig, argv[2]);
    uint32_t frames = (uint32_t)atoi(argv[3]);
    crowd_reference ref;
    double *p = malloc(rig.vertex_count * 3 * sizeof(double)), *n = malloc(rig.vertex_count * 3 * sizeof(double));
    if (clip < 0 || !frames || !p || !n || crowd_reference_init(&ref, &rig, &err) != CROWD_OK) {
        fprintf(stderr, "no clip \"%s\" or no memory\n", argv[2]);
        return 1;
    }
    const crowd_rig_clip *c = &rig.clips[clip];
    /* a cycle with a seam is blended over its last quarter second (gltf.h, rule d): that is the
     * reader's correction, not the file, so only the authored part is compared */
    double span = c->seam > 0.0 ? c->duration - fmin(0.25, 0.25 * c->duration) : c->duration;
    for (uint32_t f = 0; f < frames; f++) {
        double t = c->start + span * f / frames;
        crowd_reference_skin(&ref, (uint32_t)clip, t, p, n);
        double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (uint32_t v = 0; v < rig.vertex_count; v++)
            for (int k = 0; k < 3; k++) {
                lo[k] = fmin(lo[k], p[3 * v + k]);
                hi[k] = fmax(hi[k], p[3 * v + k]);
            }
        printf("%.9f %.9f %.9f %.9f %.9f %.9f %.9f\n", t, lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]);
    }
    crowd_reference_free(&ref);
    free(p);
    free(n);
    crowd_rig_free(&rig);
    return 0;
}
