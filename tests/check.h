/* Minimal test harness: CHECK records a failure and carries on, so one run reports everything. */
#ifndef CROWD_TESTS_CHECK_H
#define CROWD_TESTS_CHECK_H

#include <stdio.h>
#include <time.h>

extern int check_failures;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
            check_failures++;                                                        \
        }                                                                            \
    } while (0)

#define CHECKF(cond, ...)                                                            \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                            \
            fputc('\n', stderr);                                                     \
            check_failures++;                                                        \
        }                                                                            \
    } while (0)

/* Stops the current test function when a precondition fails. */
#define REQUIRE(cond)                                                                  \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            fprintf(stderr, "%s:%d: REQUIRE failed: %s\n", __FILE__, __LINE__, #cond); \
            check_failures++;                                                          \
            return;                                                                    \
        }                                                                              \
    } while (0)

/* Runs one test function and prints its verdict and wall-clock seconds: the seconds are there to
 * find what makes the suite slow (the sanitizer trees run 10-40x slower), never to judge a test. */
static inline double check_seconds_now(void)
{
    struct timespec t;
    timespec_get(&t, TIME_UTC);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#define RUN_TEST(fn)                                                                                                \
    do {                                                                                                            \
        int before_ = check_failures;                                                                               \
        double start_ = check_seconds_now();                                                                        \
        fn();                                                                                                       \
        printf("%s %s (%.2f s)\n", check_failures == before_ ? "ok  " : "FAIL", #fn, check_seconds_now() - start_); \
        fflush(stdout);                                                                                             \
    } while (0)

#define TEST_MAIN_END() return check_failures ? 1 : 0

#endif
