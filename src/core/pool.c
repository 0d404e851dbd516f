/* The worker pool (pool.h) on pthreads. This is the core's one POSIX file: it asks for POSIX
 * itself (the rest of the core is plain C11), and without POSIX threads it compiles to a loop. */
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
    uint32_t tasks, next, finished;
    uint64_t generation; /* counts jobs: a thread joins each job once */
    bool stop;
};

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
        if (++p->finished == p->tasks)
            pthread_cond_signal(&p->done);
    }
}

static void *thread_main(void *arg)
{
    crowd_pool *p = arg;
    uint64_t seen = 0;
    pthread_mutex_lock(&p->lock);
    for (;;) {
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
