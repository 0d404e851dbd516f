/* Internal, for the tests only: the CPU reference of a whole culling pass, and read-backs of a
 * field's state. The reads stall the GL pipeline (glReadPixels, buffer maps): never in a frame. */
#ifndef CROWD_GRASS_TESTING_H
#define CROWD_GRASS_TESTING_H

#include "grass/grass_internal.h"

/* The CPU reference of a whole pass: counts per tier of the roots both paths draw. `tier_of_blade`
 * (blades entries, or NULL) gets each blade's tier (CROWD_GRASS_NONE for blades not drawn).
 * Returns the visible chunk count. Allocates one chunk's worth of scratch (malloc): tests only. */
uint32_t grass_reference(const crowd_grass_desc *resolved, const grass_eye *e, uint32_t counts[CROWD_GRASS_TIERS],
                         uint8_t *tier_of_blade);

/* grass_gl.c, for tests (the reads stall): the last pass's eye, the resolved desc, and on the GPU
 * path the partition counts and ids (3 x blades words, or NULL). false on the CPU path. */
grass_eye grass_gl_eye(const crowd_grass *g);
const crowd_grass_desc *grass_gl_desc(const crowd_grass *g);
/* The active trample texture (which 0, trample_resolution^2 RGBA8) or the cut texture (1); the
 * bound framebuffer stays. false with no_fields. */
bool grass_gl_read_field(const crowd_grass *g, int which, uint8_t *rgba);
bool grass_gl_read_partitions(const crowd_grass *g, uint32_t counts[CROWD_GRASS_TIERS], uint32_t *ids);

#endif
