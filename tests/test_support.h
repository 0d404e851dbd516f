/* Shared by the tests: small rigs, bakes, and helpers to craft damaged .crowd files. */
#ifndef CROWD_TESTS_TEST_SUPPORT_H
#define CROWD_TESTS_TEST_SUPPORT_H

#include "crowdbake/asset.h"
#include "crowdbake/bake.h"
#include "crowdbake/gl.h"
#include "crowdbake/gltf.h"
#include "crowdbake/rig.h"

/* A two-bone bending strip (a few dozen vertices, one 1-second looping clip "bend") with an exact
 * analytic sampler: the smallest rig that exercises every stage. */
crowd_result tiny_rig_build(crowd_rig *rig, crowd_error *error);

/* Bakes `rig` with `desc` (rig filled in) and returns the image; aborts the test run on failure. */
crowd_bake_output bake_or_die(const crowd_rig *rig, crowd_bake_desc desc);

/* The humanoid at density 1, built once per process. */
const crowd_rig *humanoid(void);

/* A camera at eye looking at target (up +y), 58 degrees, 16:9, near 0.3, far 900, 1080 rows: the
 * seed's view from (28, 16, 44) to (0, 1.2, 0) unless moved. */
void test_view_at(crowd_view *v, float ex, float ey, float ez, float tx, float ty, float tz);

/* The humanoid baked with `desc` into *baked and loaded from it into *asset (which points into
 * *baked: free the asset first); aborts the test run on failure. */
void humanoid_asset_or_die(crowd_bake_desc desc, crowd_bake_output *baked, crowd_asset *asset);

/* Recomputes every section CRC and the table CRC of an image (after a deliberate edit), so the
 * loader reaches the semantic check the test aims at. */
void reseal(uint8_t *bytes, size_t size);

/* Offset and size of the section `tag` in an image, or 0 when absent. */
size_t section_offset(const uint8_t *bytes, uint32_t tag, uint64_t *size);

/* A 16-byte aligned copy (free() it). */
uint8_t *aligned_copy(const uint8_t *bytes, size_t size);

/* The index of a clip the test needs; aborts the test run (with its name) when the asset lacks it. */
uint32_t clip_or_die(const crowd_asset *asset, const char *name);

/* The reference for per-instance culling (crowd_cull_sphere, cull.comp), from the asset's public
 * fields: the span on the y axis of clip A's and clip B's culling spheres (crowd_clip.cull_*),
 * scaled, at the record's position at shader time `time`. */
void test_cull_sphere(const crowd_asset *asset, const crowd_record *r, float time, float centre[3], float *radius);

/* Whether a sphere meets the frustum of six normalised planes (a x + b y + c z + d >= 0 inside), as
 * crowd_sphere_visible and cull.comp test it. */
bool test_sphere_in(const float planes[6][4], const float c[3], float radius);

/* Deterministic pseudo-random numbers (xorshift64*). */
uint64_t test_rand(uint64_t *state);
double test_uniform(uint64_t *state); /* [0, 1) */

/* The GL tests' light: sun, hemisphere, fog and shadows on; the camera left zero. */
crowd_gl_scene test_default_scene(void);

/* Of `pixels` RGB pixels, how many are darker in `a` than in `b` (summed channels lower by more
 * than `darker_by`); *lighter gets how many are lighter by more than `lighter_by`. */
uint32_t test_count_darker(const uint8_t *a, const uint8_t *b, int pixels, int darker_by, int lighter_by,
                           uint32_t *lighter);

/* Clip B's weight in a record at shader time t (0 when no fade runs), as record.glsl computes it. */
float test_fade_weight(const crowd_record *record, float t);

/* Poses a crowd record at shader time `time`: the record decoded into the poser's blend (clips,
 * phases, holds, fade weight; crowdbake/rig.h crowd_rig_blend), then crowd_rig_pose_blend. */
bool test_pose_record(crowd_rig_poser *poser, const crowd_record *record, float time, float *rows);

#endif

/* ---- glTF fixtures ------------------------------------------------------------------------------
 * A small skinned quad as a .gltf with its buffer in a base64 data URI, built in memory so tests
 * can damage any byte or any JSON value. Buffer (GLTF_FIXTURE_BYTES bytes, one bufferView):
 *   accessor 0 POSITION  @0    4 x VEC3 float      quad (0,0,0) (1,0,0) (0,1,0) (1,1,0)
 *   accessor 1 NORMAL    @48   4 x VEC3 float      +z
 *   accessor 2 JOINTS_0  @96   4 x VEC4 u8         bottom row joint 0, top row joint 1
 *   accessor 3 WEIGHTS_0 @112  4 x VEC4 float      (1,0,0,0)
 *   accessor 4 indices   @176  6 x u16
 *   accessor 5 IBM       @192  2 x MAT4            identity, translate(0,-1,0)
 *   accessor 6 times     @320  3 x float           0, 1, 2
 *   accessor 7 T output  @332  3 x VEC3            (0,1,0) (0,2,0) (0,1,0)
 *   accessor 8 R output  @368  3 x VEC4            identity, 90 deg about z, identity
 * Nodes: 0 "root" (children [1]), 1 "joint1" at (0,1,0), 2 "mesh" (mesh 0, skin 0). One
 * animation "move" (LINEAR) drives joint1's translation and rotation. */
#define GLTF_FIXTURE_BYTES 416u
void gltf_fixture_bin(uint8_t bin[GLTF_FIXTURE_BYTES]);
/* The .gltf text for `bin` (malloc'ed, NUL-terminated). */
char *gltf_fixture_json(const uint8_t *bin, size_t size);
/* A copy of `text` with the first occurrence of `from` replaced by `to` (NULL when absent). */
char *replace_once(const char *text, const char *from, const char *to);
/* A whole file, NUL-terminated (malloc'ed; NULL when it cannot be read); its size in *size. */
char *test_read_file(const char *path, size_t *size);
/* MorphStressTest (under asset_dir/gltf) with KHR_materials_variants: the bars' material (region 1)
 * gets variant "painted" (red, the grid texture: another tile) and "plain" (blue, untextured). Its
 * relative URIs resolve against asset_dir/gltf. malloc'ed text, NULL when the file is missing. */
char *test_variants_gltf(const char *asset_dir);
/* Reads a glTF from memory (no external files); warnings are counted into *warnings when given. */
crowd_result read_gltf_text(const char *text, crowd_rig *rig, crowd_error *error, int *warnings);
