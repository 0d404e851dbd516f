/* Internal: what the per-instance loops of the runtime and the simulation use to keep their speed
 * the same from one compiler and one edit to the next. */
#ifndef CROWD_COMMON_HOT_H
#define CROWD_COMMON_HOT_H

/* For the few per-agent helpers whose inlining decides a loop's speed (compilers otherwise weigh
 * their size against the loop's and go either way from one edit to the next). */
#if defined(__GNUC__) || defined(__clang__)
#define CROWD_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define CROWD_ALWAYS_INLINE inline
#endif

/* Asks for memory that a pass will read soon. */
static inline void crowd_prefetch(const void *p)
{
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(p);
#else
    (void)p;
#endif
}

#endif
