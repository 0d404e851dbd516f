/* Internal: the GPU-driven layer (desktop GL 4.3+): per-item classification by a compute pass into
 * partitions of one id buffer, whose atomic counters are the instanceCount of indirect draw
 * commands, with a skip-when-unchanged key and stats read back a few frames late. The crowd
 * renderer (gpu_crowd.c) is its first user; the grass field is meant to be the second: it brings
 * its own classification shader and keeps these bindings.
 *
 * Bindings the classification shader sees while the layer's pass is open:
 *   binding 1: ids       uint[partitions * partition_capacity]; partition p starts at p * capacity
 *   binding 2: commands  uint[5 * CROWD_GPU_MAX_PARTITIONS], DrawElementsIndirectCommand per
 *              partition; the shader atomicAdd()s its items into word 5 p + 1 (instanceCount),
 *              which the layer has reset to 0, and writes its ids at baseInstance + the old value
 *   binding 3: state     uint per item, kept across frames (hysteresis), zero at creation
 * Binding 0 and 4 and up belong to the caller (the crowd: records and live ranges).
 *
 * Nothing here waits for the GPU in a frame: no glGetError, no query result, no fence wait, no
 * glGetBufferSubData. The one driver question per frame is glGetSynciv(GL_SYNC_STATUS) on the
 * oldest stats copy's fence (crowd_gpu_layer_poll): a status poll that returns at once, signalled
 * or not; that copy is mapped only once its fence has passed. crowd_gpu_layer_read, for tests,
 * does stall. */
#ifndef CROWD_GL_GPU_CULL_H
#define CROWD_GL_GPU_CULL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crowdbake/base.h"
#include "gl/gl_api.h"

#ifndef __EMSCRIPTEN__
#define CROWD_GPU_MAX_PARTITIONS 16
#define CROWD_GPU_KEY_MAX 512
#define CROWD_GPU_RING 3
#define CROWD_GPU_EXTRA_WORDS 16

typedef struct crowd_gpu_layer {
    GLuint ids, commands, template_commands, state;
    uint32_t partition_count, partition_capacity, state_items;
    uint32_t template[5 * CROWD_GPU_MAX_PARTITIONS];

    /* skip-when-unchanged: the caller's key of the last pass that ran */
    unsigned char key[CROWD_GPU_KEY_MAX];
    size_t key_size;
    bool key_valid;
    uint64_t passes_run, passes_skipped;

    /* stats: copies of the commands, each with a fence, read when the fence has passed */
    GLuint ring[CROWD_GPU_RING];
    GLsync fence[CROWD_GPU_RING];
    uint64_t ring_pass[CROWD_GPU_RING]; /* passes_run when the copy was made */
    uint32_t ring_next;
    GLuint extra; /* optional: words of the caller's copied along (crowd_gpu_layer_set_extra) */
    uint32_t extra_offset, extra_words;
    uint32_t late_counts[CROWD_GPU_MAX_PARTITIONS];
    uint32_t late_extra[CROWD_GPU_EXTRA_WORDS];
    uint64_t late_pass; /* the pass those counts come from; 0 = none yet */
} crowd_gpu_layer;

/* Buffers for `partitions` partitions of `capacity` ids each and `state_items` state words. */
crowd_result crowd_gpu_layer_create(crowd_gpu_layer *g, uint32_t partitions, uint32_t capacity, uint32_t state_items,
                                    crowd_error *error);
void crowd_gpu_layer_destroy(crowd_gpu_layer *g);

/* The fixed part of partition p's draw command (index count, first index, base vertex); takes
 * effect at the next pass. Invalidates the key. */
void crowd_gpu_layer_set_command(crowd_gpu_layer *g, uint32_t p, uint32_t count, uint32_t first_index,
                                 int32_t base_vertex);

/* Starts a pass unless `key` (size bytes, at most CROWD_GPU_KEY_MAX) equals the last pass's and
 * nothing is `dirty`: then returns false, counts a skip, and last pass's commands stay (they are
 * still right). Otherwise resets the counters, binds ids, commands and state and returns true: the
 * caller binds the rest, dispatches, and calls crowd_gpu_layer_end. */
bool crowd_gpu_layer_begin(crowd_gpu_layer *g, const void *key, size_t size, bool dirty);

/* Makes the pass's writes visible to indirect draws and vertex fetches, and copies the counters for
 * the stats ring. */
void crowd_gpu_layer_end(crowd_gpu_layer *g);

/* Forgets the key: the next begin runs. */
void crowd_gpu_layer_invalidate(crowd_gpu_layer *g);

/* Reads the oldest stats copy if its fence has passed (one zero-timeout status query, at most once
 * per call: call once per frame). Updates late_counts / late_pass. */
void crowd_gpu_layer_poll(crowd_gpu_layer *g);

/* Copies `words` (<= CROWD_GPU_EXTRA_WORDS) words at byte `offset` of `buffer` with every stats copy,
 * into late_extra (a pass's own results, e.g. the crowd's budget outcome). */
void crowd_gpu_layer_set_extra(crowd_gpu_layer *g, GLuint buffer, uint32_t offset, uint32_t words);

/* Compiles and links a compute shader (`source` without #version; GLSL 4.30 header prepended). */
crowd_result crowd_gpu_compute_program(GLuint *program, const char *name, const char *source, crowd_error *error);

/* For tests and debugging only (it stalls): the current counts and ids of every partition. `ids`
 * holds partition_count * partition_capacity words, or is NULL. */
void crowd_gpu_layer_read(const crowd_gpu_layer *g, uint32_t counts[CROWD_GPU_MAX_PARTITIONS], uint32_t *ids);
#endif

#endif
