/* Shared by the tests: small rigs, bakes, and helpers to craft damaged .crowd files. */
#ifndef CROWD_TESTS_TEST_SUPPORT_H
#define CROWD_TESTS_TEST_SUPPORT_H

#include "crowdbake/asset.h"
#include "crowdbake/bake.h"
#include "crowdbake/rig.h"

/* A two-bone bending strip (a few dozen vertices, one 1-second looping clip "bend") with an exact
 * analytic sampler: the smallest rig that exercises every stage. */
crowd_result tiny_rig_build(crowd_rig *rig, crowd_error *error);

/* Bakes `rig` with `desc` (rig filled in) and returns the image; aborts the test run on failure. */
crowd_bake_output bake_or_die(const crowd_rig *rig, crowd_bake_desc desc);

/* The humanoid at density 1, built once per process. */
const crowd_rig *humanoid(void);

/* Recomputes every section CRC and the table CRC of an image (after a deliberate edit), so the
 * loader reaches the semantic check the test aims at. */
void reseal(uint8_t *bytes, size_t size);

/* Offset and size of the section `tag` in an image, or 0 when absent. */
size_t section_offset(const uint8_t *bytes, uint32_t tag, uint64_t *size);

/* A 16-byte aligned copy (free() it). */
uint8_t *aligned_copy(const uint8_t *bytes, size_t size);

/* Deterministic pseudo-random numbers (xorshift64*). */
uint64_t test_rand(uint64_t *state);
double test_uniform(uint64_t *state); /* [0, 1) */

#endif
