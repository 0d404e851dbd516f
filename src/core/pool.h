/* Internal: a small fork-join worker pool for the runtime's per-frame passes (binning, culling,
 * separation). The calling thread is one of the workers: crowd_pool_run hands out tasks 0..n-1 to
 * itself and the pool's threads and returns when all are done. Tasks must write only what their
 * task index owns (never "the worker's" slice) so that results do not depend on which thread ran
 * which task: then a pass is deterministic for a given task split.
 *
 * Threads come from pthreads (pool.c, the only file that includes a threads header). A build
 * without them (CROWD_NO_THREADS, Emscripten without -pthread, a platform that is not POSIX)
 * compiles the same calls as a loop on the caller's thread. crowd_pool_run allocates nothing;
 * threads start in crowd_pool_create and stop in crowd_pool_destroy. */
#ifndef CROWD_CORE_POOL_H
#define CROWD_CORE_POOL_H

#include <stdbool.h>
#include <stdint.h>

#define CROWD_POOL_MAX_THREADS 64u

typedef struct crowd_pool crowd_pool;
typedef void (*crowd_pool_fn)(void *context, uint32_t task);

/* The machine's cores (online processors), at least 1, at most CROWD_POOL_MAX_THREADS; 1 in a
 * build without threads. */
uint32_t crowd_pool_cores(void);

/* A pool of `threads` workers including the caller (0 = crowd_pool_cores(); clamped to
 * CROWD_POOL_MAX_THREADS). threads == 1, or a build without threads, starts no thread. NULL when
 * memory or a thread could not be had (threads already started are stopped). */
crowd_pool *crowd_pool_create(uint32_t threads);
void crowd_pool_destroy(crowd_pool *pool); /* NULL is fine */

/* Workers, the caller included (1 for NULL). */
uint32_t crowd_pool_threads(const crowd_pool *pool);

/* Runs fn(context, t) for every t in [0, tasks) and returns when all have returned. A NULL pool,
 * one worker or one task run in order on the caller's thread. Not reentrant: a task must not call
 * crowd_pool_run on the same pool, and one thread at a time runs a pool. */
void crowd_pool_run(crowd_pool *pool, uint32_t tasks, crowd_pool_fn fn, void *context);

#endif
