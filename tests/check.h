/* Minimal test harness: CHECK records a failure and carries on, so one run reports everything. */
#ifndef CROWD_TESTS_CHECK_H
#define CROWD_TESTS_CHECK_H

#include <stdio.h>

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

#define RUN_TEST(fn)                                                         \
    do {                                                                     \
        int before_ = check_failures;                                        \
        fn();                                                                \
        printf("%s %s\n", check_failures == before_ ? "ok  " : "FAIL", #fn); \
        fflush(stdout);                                                      \
    } while (0)

#define TEST_MAIN_END() return check_failures ? 1 : 0

#endif
