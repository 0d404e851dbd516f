/* The worker pool (pool.h) on pthreads. With file_open.c one of the core's two POSIX files: it
 * asks for POSIX itself (the rest of the core is plain C11), and without POSIX threads it compiles to a loop. */
#if !defined(CROWD_NO_THREADS) && (defined(__unix__) || defined(__APPLE__)) && \
    (!defined(__EMSCRIPTEN__) || defined(__EMSCRIPTEN_PTHREADS__))
#define CROWD_POOL_PTHREADS 1
#if !defined(_POSIX_C_SOURCE) && !defined(__APPLE__)
#define _POSIX_C_SOURCE 200809L
#endif
#endif

#include "core/pool.h"

#include "core/alloc.h"

#ifdef CROWD_POOL_PTHREADS
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

struct crowd_pool {
    uint32_t threads; /* workers, the caller included */
    pthread_t *ids;   /* threads - 1 */
    uint32_t started;
    pthread_mutex_t lock;
    pthread_cond_t wake, done; /* wake: a job or stop for the threads; done: the last task ended */
    /* the job, under lock */
    crowd_pool_fn fn;
    void *context;
    uint32_t tasks, next;
    /* written under lock; read without it too, by a thread spinning for them (spin_while_u64, spin_while_below) */
    _Atomic uint32_t finished;
    _Atomic uint64_t generation; /* counts jobs: a thread joins each job once */
    _Atomic bool stop;
};

/* A frame runs its passes back to back (the step's walk, the separation's pairs, the pushes): a
 * thread that has just finished one spins a little before it sleeps on the condition, since waking
 * from it costs far more than the gap between passes (each pass would start that much short of a
 * thread, and the caller wait as long again for the last task's signal). The spin is bounded:
 * SPIN_ROUNDS pause instructions (tens of microseconds where a pause takes ~140 cycles, a few where
 * it takes ~10; elsewhere than x86 and ARM, plain loads), so an idle pool (between frames) sleeps
 * and costs nothing. */
#define SPIN_ROUNDS 2048

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
    __asm__ __volatile__("yield");
#endif
}

/* Spins, lock not held, while *word still reads `seen` (and no stop), a bounded while. */
static void spin_while_u64(const _Atomic uint64_t *word, uint64_t seen, const _Atomic bool *stop)
{
    for (int i = 0; i < SPIN_ROUNDS && atomic_load_explicit(word, memory_order_relaxed) == seen &&
                    !atomic_load_explicit(stop, memory_order_relaxed);
         i++)
        cpu_relax();
}

static void spin_while_below(const _Atomic uint32_t *word, uint32_t target)
{
    for (int i = 0; i < SPIN_ROUNDS && atomic_load_explicit(word, memory_order_relaxed) < target; i++)
        cpu_relax();
}

uint32_t crowd_pool_cores(void)
{
#ifdef _SC_NPROCESSORS_ONLN
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n > (long)CROWD_POOL_MAX_THREADS)
        return CROWD_POOL_MAX_THREADS;
    return n > 0 ? (uint32_t)n : 1u;
#else
    return 1u;
#endif
}

/* Takes tasks until none is left; called with the lock held, returns with it held. */
static void work(crowd_pool *p)
{
    while (p->next < p->tasks) {
        uint32_t t = p->next++;
        crowd_pool_fn fn = p->fn;
        void *context = p->context;
        pthread_mutex_unlock(&p->lock);
        fn(context, t);
        pthread_mutex_lock(&p->lock);
        if (atomic_fetch_add_explicit(&p->finished, 1, memory_order_relaxed) + 1 == p->tasks)
            pthread_cond_signal(&p->done);
    }
}

static void *thread_main(void *arg)
{
    crowd_pool *p = arg;
    uint64_t seen = 0;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        if (!p->stop && p->generation == seen) { /* the next pass may come at once: see SPIN_ROUNDS */
            pthread_mutex_unlock(&p->lock);
            spin_while_u64(&p->generation, seen, &p->stop);
            pthread_mutex_lock(&p->lock);
        }
        while (!p->stop && p->generation == seen)
            pthread_cond_wait(&p->wake, &p->lock);
        if (p->stop)
            break;
        seen = p->generation;
        work(p);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

crowd_pool *crowd_pool_create(uint32_t threads)
{
    if (!threads)
        threads = crowd_pool_cores();
    threads = threads < CROWD_POOL_MAX_THREADS ? threads : CROWD_POOL_MAX_THREADS;
    crowd_pool *p = crowd_calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->threads = threads;
    if (threads == 1)
        return p;
    p->ids = crowd_calloc(threads - 1, sizeof *p->ids);
    if (!p->ids)
        goto fail_ids;
    if (pthread_mutex_init(&p->lock, NULL))
        goto fail_lock;
    if (pthread_cond_init(&p->wake, NULL))
        goto fail_wake;
    if (pthread_cond_init(&p->done, NULL))
        goto fail_done;
    for (; p->started < threads - 1; p->started++)
        if (pthread_create(&p->ids[p->started], NULL, thread_main, p)) {
            crowd_pool_destroy(p);
            return NULL;
        }
    return p;
fail_done:
    pthread_cond_destroy(&p->wake);
fail_wake:
    pthread_mutex_destroy(&p->lock);
fail_lock:
    crowd_free(p->ids);
fail_ids:
    crowd_free(p);
    return NULL;
}

void crowd_pool_destroy(crowd_pool *p)
{
    if (!p)
        return;
    if (p->threads > 1) {
        pthread_mutex_lock(&p->lock);
        p->stop = true;
        pthread_cond_broadcast(&p->wake);
        pthread_mutex_unlock(&p->lock);
        for (uint32_t i = 0; i < p->started; i++)
            pthread_join(p->ids[i], NULL);
        pthread_cond_destroy(&p->done);
        pthread_cond_destroy(&p->wake);
        pthread_mutex_destroy(&p->lock);
    }
    crowd_free(p->ids);
    crowd_free(p);
}

void crowd_pool_run(crowd_pool *p, uint32_t tasks, crowd_pool_fn fn, void *context)
{
    if (!p || p->threads == 1 || tasks < 2) {
        for (uint32_t t = 0; t < tasks; t++)
            fn(context, t);
        return;
    }
    pthread_mutex_lock(&p->lock);
    p->fn = fn;
    p->context = context;
    p->tasks = tasks;
    p->next = 0;
    p->finished = 0;
    p->generation++;
    pthread_cond_broadcast(&p->wake);
    work(p);
    if (p->finished < p->tasks) { /* the last tasks are short, often: spin before sleeping */
        pthread_mutex_unlock(&p->lock);
        spin_while_below(&p->finished, p->tasks);
        pthread_mutex_lock(&p->lock);
    }
    while (p->finished < p->tasks)
        pthread_cond_wait(&p->done, &p->lock);
    pthread_mutex_unlock(&p->lock);
}

#else /* no threads: the same calls, on the caller's thread */

struct crowd_pool {
    uint32_t threads;
};

uint32_t crowd_pool_cores(void)
{
    return 1u;
}

crowd_pool *crowd_pool_create(uint32_t threads)
{
    (void)threads;
    crowd_pool *p = crowd_calloc(1, sizeof *p);
    if (p)
        p->threads = 1;
    return p;
}

void crowd_pool_destroy(crowd_pool *p)
{
    crowd_free(p);
}

void crowd_pool_run(crowd_pool *p, uint32_t tasks, crowd_pool_fn fn, void *context)
{
    (void)p;
    for (uint32_t t = 0; t < tasks; t++)
        fn(context, t);
}

#endif

uint32_t crowd_pool_threads(const crowd_pool *p)
{
    return p ? p->threads : 1u;
}
