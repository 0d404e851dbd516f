/* crowdbake/gltf.h — reading glTF 2.0 characters into a rig, and writing a rig as a .glb.
 *
 * READING. crowd_gltf_read_file / crowd_gltf_read_memory turn a .gltf (JSON, with external or
 * base64 `data:` buffers) or a .glb into a crowd_rig the baker consumes. The whole document is
 * validated before anything is built: every buffer, view, accessor, node, skin, mesh, material and
 * animation, whether the character uses it or not. Bad data never crashes, hangs or reads out of
 * bounds: the result is a crowd_result and an error message that names the JSON path and the
 * problem ("skins[0].joints[3]: node 41 out of range (40 nodes)"). Every size taken from a file
 * is overflow-checked against the limits below before anything is allocated.
 *
 * What becomes of a glTF scene:
 *   - The character is the scene (`scene`, else scene 0, else every root node) minus what belongs
 *     to another character: skinned meshes whose skin shares joints with the selected skin (see
 *     crowd_gltf_desc.skin; default: the skin of the animated skinned mesh with most vertices),
 *     rigid meshes attached under that skin's joints, and rigid meshes attached to no skin at all.
 *     Files without skins (morph-only, node-animated) take every mesh in the scene.
 *   - Bones: the selected skins' joints, every rigid mesh node, and all their ancestors (so
 *     non-joint ancestors animate the character as glTF says), parents first. A joint used by two
 *     skins with different inverse bind matrices becomes two bones that share the node's motion.
 *   - Skinned vertices are baked where glTF puts them: joint world transforms times inverse
 *     binds, ignoring the mesh node's own transform. Rigid meshes are bones of their own with one
 *     influence of weight 1, bind pose = the node's world transform at rest. A missing
 *     inverseBindMatrices means identity matrices (the spec's rule).
 *   - Every JOINTS_n / WEIGHTS_n set is read (4n influences; VAT bakes them all). Weights must be
 *     non-negative; sums other than 1 (common in real exports) are renormalised with a warning.
 *   - Morph targets of every mesh instance become rig targets (deltas in bind space), driven by
 *     the node's default weights (node.weights, else mesh.weights, else 0) and `weights` channels.
 *   - Primitives: TRIANGLES, TRIANGLE_STRIP and TRIANGLE_FAN (converted); POINTS and LINES are
 *     skipped with a warning. Consecutive primitives of a mesh with the same attribute accessors
 *     (one per material, as exporters write them) share vertices.
 *     Missing normals are computed flat (each triangle gets its own three vertices), as the spec
 *     asks.
 *   - Materials become regions (name, palette[0] = baseColorFactor in sRGB rgba8, `textured`
 *     when the material has a base-colour texture). One albedo texture per asset: when materials
 *     use several base-colour images they are packed into one atlas (each image at its own
 *     resolution, an 8-texel gutter of its edge texels round it) and each region's UVs are moved
 *     into its image's tile. A texture that repeats is laid out repeated over the UV range its
 *     vertices use (up to 256 copies and a quarter of the atlas side); past that its UVs are clamped
 *     to the tile (a warning says so). An atlas wider or taller than 8192 texels is not made: the
 *     image covering the most vertices is kept and the other regions are not textured (a warning).
 *     A single image is the albedo as it is (its UVs may repeat). Images are decoded with stb_image
 *     (PNG and JPEG). COLOR_0 becomes vertex colours (sRGB rgba8, like the palette).
 *   - Animations become clips: [first key, last key] of all the animation's samplers, so clips
 *     that start after t = 0 keep their timing. LINEAR (slerp for rotations), STEP and
 *     CUBICSPLINE (Hermite with tangents scaled by the key interval, as the spec says) are
 *     evaluated exactly at each baked frame. Loop detection: a clip loops when
 *       (a) its last pose equals its first: every bone's model-space origin within 1 % of the
 *           rest pose's size (its diagonal, skinned: the space the bones move in, which is not
 *           the bind mesh's when a centimetre mesh hangs under a 0.01-scaled armature), every
 *           morph weight within 0.01 (a last key that repeats the first); or
 *       (b) it is a cycle exported one sample short: every skinned bone's way from the last
 *           pose back to the first is at most 1.5x its own last key step (plus the 1 % above),
 *           morph weights likewise, and the largest under 25 % of the size. Such a clip's duration grows by that key interval and the sampler
 *           interpolates from the last key back to the first inside it, so the loop closes with
 *           a step like every other; or
 *       (c) it is a root-motion cycle: the displacement the skinned bones share between the first
 *           and last pose (per-axis median) is at least 5 % of the size (along any axis: a
 *           Z-up file walks along -Y), and every skinned bone moved by it within 1 % (rule (a)
 *           after the travel). The sampler takes that travel out of the root bones linearly over
 *           the clip, so it plays in place with its feet sliding back as any in-place cycle's do
 *           (the baker then measures the stride from them); crowd_rig_clip.root_travel records
 *           the distance and root_motion the vector; or
 *       (d) its last pose is within 5 % of the size of its first (morph weights within 0.05),
 *           after taking out root motion as in (c) where there is some: a cycle whose seam is a
 *           few percent off. The sampler blends the seam away over the clip's last quarter
 *           second (at most a quarter of the clip): the pose is offset, smoothly more, by the
 *           way from the last pose to the first, so the cycle ends where it starts.
 *           crowd_rig_clip.seam records the gap. A one-shot that ends elsewhere (a roll, a
 *           jump, a walk cut a quarter second short) is further off than that.
 *     Only bones that carry vertices count in (a)-(c); a looping clip in which a bone without
 *     vertices travels (root motion kept as data, Mannequiny's "root") records that bone's
 *     distance as root_travel and plays as it is. Tested by test_own_character (loop_rule_b:
 *     (b), (c) and (d)) and test_gltf_assets (Mannequiny's run_root: (b)).
 *     Anything else is a one-shot and samples both ends. crowd_rig_clip.key_count records the
 *     most keys of any of the clip's channels (the baker calls <= 2 keys a pose). Clip names are made unique ("Walk", "Walk_2"). Start and end are rounded
 *     to the microsecond, so a 1.05 s clip stored as float 1.0499999523 stays 1.05 s. A file
 *     without animations bakes one clip, "rest", of a single frame.
 *   - MSFT_lod on a mesh node (with MSFT_screencoverage in the node's extras) becomes the rig's
 *     authored LOD levels; the lower levels' vertices join the rig (they share the texture).
 *   - Sockets: crowd_gltf_desc.sockets maps a socket name to a node name; nodes written by
 *     crowd_gltf_write (extras.crowdbake_socket) come back as sockets by themselves.
 *   - Refused by name: KHR_draco_mesh_compression, EXT_meshopt_compression, KHR_texture_basisu
 *     (used or required), and any other required extension this reader does not implement. One
 *     message names every refused extension with its JSON path.
 *
 * Warnings (the document is baked, a message goes to desc->warn), each for a problem that cannot
 * change a bake: quaternion keyframes that are not unit length (normalised), weights that do not
 * sum to 1 (renormalised) or are all zero (the vertex follows its first joint), accessor min/max
 * that disagree with the data (bounds are recomputed), animation inputs without min/max, a UTF-8
 * byte order mark, a byteStride on inverse bind matrices, skin joints without a common root or
 * outside the scene, a skeleton that is not their ancestor, a scene listing a non-root node,
 * skipped point/line primitives, a second base-colour image, undecodable images, and
 * KHR_texture_transform (ignored). Implicit data (accessors without a bufferView, buffers without
 * bytes) is checked where the character uses it, so a file is refused only for data it holds or
 * needs.
 *
 * WRITING. crowd_gltf_write_glb writes any rig as a self-contained .glb: one mesh (a primitive
 * per run of triangles of one region), one skin over every bone with inverse bind matrices,
 * materials with base colours, the albedo as PNG, morph targets, sockets as named child nodes,
 * and every clip sampled as LINEAR keyframes at `fps` (exactly at the times the baker samples).
 */
#ifndef CROWDBAKE_GLTF_H
#define CROWDBAKE_GLTF_H

#include <stdbool.h>
#include "rig.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Explicit limits of the reader, checked before allocation. */
#define CROWD_GLTF_MAX_FILE_BYTES (1ull << 30) /* .glb, .gltf or one external buffer/image file */
#define CROWD_GLTF_MAX_JSON_BYTES (64u << 20)
#define CROWD_GLTF_MAX_ARRAY 1000000u /* entries in any top-level array */
#define CROWD_GLTF_MAX_NODES 65536u
#define CROWD_GLTF_MAX_MORPH_TARGETS 256u      /* over all baked meshes */
#define CROWD_GLTF_MAX_INFLUENCES 32u          /* joints per vertex: 8 JOINTS_n/WEIGHTS_n sets */
#define CROWD_GLTF_MAX_MORPH_FLOATS (1u << 27) /* morph targets x vertices x 6 */
#define CROWD_GLTF_MAX_KEYS (1u << 24)         /* keyframes in one sampler */
#define CROWD_GLTF_MAX_IMAGE_PIXELS (1u << 26)

typedef void (*crowd_gltf_warn_fn)(void *user, const char *message);

/* A socket taken from a named node: `name` in the asset, `node` the glTF node's name. */
typedef struct crowd_gltf_socket {
    const char *name;
    const char *node;
} crowd_gltf_socket;

/* Zeroed fields take the defaults. */
typedef struct crowd_gltf_desc {
    bool select_skin;                 /* false: the skin the animated skinned mesh uses */
    uint32_t skin;                    /* with select_skin: the index in `skins` */
    const crowd_gltf_socket *sockets; /* borrowed; socket_count entries */
    uint32_t socket_count;
    bool no_external_files;  /* refuse URIs naming files (untrusted input, fuzzing) */
    crowd_gltf_warn_fn warn; /* optional: receives each warning */
    void *warn_user;
} crowd_gltf_desc;

/* Reads the glTF 2.0 file at `path` (.gltf or .glb; external files are resolved relative to its
 * directory) into `rig` (overwritten; free with crowd_rig_free). `desc` may be NULL. On failure
 * the rig is zeroed and nothing stays allocated. The rig's source_name is `path`. Cost: linear
 * in the file's size plus the decoded image. The file and its external files must be regular
 * files (a FIFO or a device is refused with CROWD_ERROR_IO before it is read); a failed
 * allocation anywhere, the JSON parse and the image decode included, is CROWD_ERROR_OUT_OF_MEMORY. */
CROWD_API crowd_result crowd_gltf_read_file(const char *path, const crowd_gltf_desc *desc, crowd_rig *rig,
                                            crowd_error *error);

/* As crowd_gltf_read_file for bytes already in memory (borrowed for the call only). `name` is
 * used in messages and as the rig's source_name (NULL: "memory"); `base_dir` resolves relative
 * URIs (NULL: every URI that names a file is refused). */
CROWD_API crowd_result crowd_gltf_read_memory(const void *data, size_t size, const char *name, const char *base_dir,
                                              const crowd_gltf_desc *desc, crowd_rig *rig, crowd_error *error);

typedef struct crowd_gltf_write_desc {
    float fps; /* keyframes per second per clip; 0 = 30. Range 1..240 */
} crowd_gltf_write_desc;

/* Writes `rig` (which must pass crowd_rig_validate) as a .glb image: *bytes (free with
 * crowd_gltf_bytes_free)
 * and *size. `desc` may be NULL. Cost: the rig's sampler is called (fps x duration + 1) times per
 * clip (twice for a clip whose key_count is 1 or 2: a pose read from two keys is written as two). */
CROWD_API crowd_result crowd_gltf_write_glb(const crowd_rig *rig, const crowd_gltf_write_desc *desc, uint8_t **bytes,
                                            size_t *size, crowd_error *error);

/* Releases the image of crowd_gltf_write_glb (through the allocator hooks of base.h). */
CROWD_API void crowd_gltf_bytes_free(uint8_t *bytes);

/* crowd_gltf_write_glb to a file, atomically (a failed write leaves nothing behind). */
CROWD_API crowd_result crowd_gltf_write_file(const crowd_rig *rig, const crowd_gltf_write_desc *desc, const char *path,
                                             crowd_error *error);

#ifdef __cplusplus
}
#endif
#endif
