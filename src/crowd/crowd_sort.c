/* An in-place heap sort for the runtime's per-frame sorts. glibc's qsort allocates a merge buffer
 * for anything over a kilobyte, and crowd_update promises no allocation after crowd_create. The
 * comparators used with it give a total order, so the result does not depend on the algorithm. */
#include <string.h>

#include "crowd/crowd_internal.h"

static void swap_items(unsigned char *a, unsigned char *b, size_t size)
{
    unsigned char t[CROWD_SORT_MAX_ITEM];
    memcpy(t, a, size);
    memcpy(a, b, size);
    memcpy(b, t, size);
}

/* Restores the max-heap below `root` in items[0, n). */
static void sift_down(unsigned char *items, size_t root, size_t n, size_t size, crowd_compare_fn compare)
{
    for (;;) {
        size_t child = 2 * root + 1;
        if (child >= n)
            return;
        if (child + 1 < n && compare(items + child * size, items + (child + 1) * size) < 0)
            child++;
        if (compare(items + root * size, items + child * size) >= 0)
            return;
        swap_items(items + root * size, items + child * size, size);
        root = child;
    }
}

void crowd_sort(void *base, size_t n, size_t size, crowd_compare_fn compare)
{
    unsigned char *items = base;
    if (n < 2)
        return;
    for (size_t i = n / 2; i-- > 0;)
        sift_down(items, i, n, size, compare);
    for (size_t end = n - 1; end > 0; end--) {
        swap_items(items, items + end * size, size);
        sift_down(items, 0, end, size, compare);
    }
}
