/* Split region walks (crowd_internal.h, crowd_task): the binning pass of crowd_update and the
 * simulation's step run over the live regions in tasks on the crowd's pool. Each task bins into
 * chunk tables of its own, which are merged in task order: the merged stats are sums, minima and
 * maxima (the same whatever the split) and movers are appended in slot order, so the result is
 * exactly one binner's. */
#include <math.h>
#include <string.h>

#include "core/alloc.h"
#include "core/pool.h"
#include "crowd/crowd_internal.h"

/* Load balance: tasks are even shares of the live slots, but not of the work (chunks with obstacles,
 * turning agents, a far chunk's turn against its rest steps, sleepers). Many small tasks per thread
 * let the pool even that out, so the caller does not wait long for the last one (each task's
 * tables merge serially after: cheap at these grid sizes; docs/performance.md has the waits). */
#define TASKS_PER_THREAD 16
#define MIN_TASKS_PER_THREAD 4
#define MAX_TASKS 64u
#define MAX_TASK_CELLS 65536u /* a bigger grid walks on one thread: per-task tables would not pay */
#define MIN_TASK_SLOTS 4096u  /* a crowd of fewer than twice this walks on one thread */
#define TASK_SLOTS 1024u      /* a walk splits into no more tasks than its live slots / this */
/* Each task has tables of the grid's size (about 100 bytes a chunk): past this many task-chunks in
 * all (4 tasks per thread on the largest grid with two threads, about 50 MB), fewer tasks per
 * thread, down to MIN_TASKS_PER_THREAD. */
#define MAX_TASK_TABLES (1u << 19)

static void reset_cell(crowd_cell *cell)
{
    cell->count = 0;
    cell->min[0] = cell->min[1] = cell->min[2] = INFINITY;
    cell->max[0] = cell->max[1] = cell->max[2] = -INFINITY;
    cell->max_scale = cell->max_speed = 0.0f;
}

bool crowd_tasks_create(crowd *c)
{
    uint32_t threads = crowd_pool_threads(c->pool);
    if (threads < 2 || c->cell_count > MAX_TASK_CELLS)
        return true; /* nothing to split */
    uint32_t n = threads * TASKS_PER_THREAD < MAX_TASKS ? threads * TASKS_PER_THREAD : MAX_TASKS;
    uint32_t fit = MAX_TASK_TABLES / c->cell_count, least = threads * MIN_TASKS_PER_THREAD;
    least = least < MAX_TASKS ? least : MAX_TASKS;
    n = n <= fit ? n : fit > least ? fit : least;
    uint32_t regions = c->cell_count + 3;
    /* A task lists the movers of its share: four times an even share of the crowd's list, so an
     * uneven split still fits (a task that overflows makes the update lay out afresh, as one
     * binner with too many movers does). */
    c->task_mover_capacity = 4 * c->mover_capacity / n + 64;
    c->tasks = crowd_calloc(n, sizeof *c->tasks);
    c->task_cells = crowd_malloc((size_t)n * c->cell_count * sizeof *c->task_cells);
    c->task_touched = crowd_malloc((size_t)n * c->cell_count * sizeof *c->task_touched);
    c->task_region_dirty = crowd_calloc((size_t)n * regions, 1);
    c->task_movers = crowd_malloc((size_t)n * c->task_mover_capacity * sizeof *c->task_movers);
    if (!c->tasks || !c->task_cells || !c->task_touched || !c->task_region_dirty || !c->task_movers)
        return false;
    for (size_t i = 0; i < (size_t)n * c->cell_count; i++)
        reset_cell(&c->task_cells[i]);
    c->task_count = n;
    return true;
}

void crowd_tasks_destroy(crowd *c)
{
    crowd_free(c->tasks);
    crowd_free(c->task_cells);
    crowd_free(c->task_touched);
    crowd_free(c->task_region_dirty);
    crowd_free(c->task_movers);
}

static uint32_t live_slots(const crowd *c)
{
    uint32_t n = 0;
    for (uint32_t g = 0; g < c->parked_region; g++)
        n += c->regions[g].count;
    return n;
}

bool crowd_tasks_enabled(const crowd *c)
{
    return c->task_count > 1 && crowd_has_regions(c) && c->count >= 2 * MIN_TASK_SLOTS;
}

bool crowd_task_span(crowd_task *t, uint32_t *first, uint32_t *end)
{
    crowd *c = t->bin.c;
    if (!t->live_count)
        return false;
    while (t->region < c->parked_region && t->skip >= c->regions[t->region].count) {
        t->region++;
        t->skip = 0;
    }
    if (t->region >= c->parked_region)
        return false;
    const crowd_slot_region *r = &c->regions[t->region];
    uint32_t n = r->count - t->skip < t->live_count ? r->count - t->skip : t->live_count;
    *first = r->start + t->skip;
    *end = *first + n;
    t->skip += n;
    t->live_count -= n;
    crowd_bin_region(&t->bin, t->region);
    return true;
}

typedef struct task_job {
    crowd *c;
    crowd_task_fn fn;
    void *context;
} task_job;

static void run_task(void *context, uint32_t index)
{
    task_job *job = context;
    crowd_task *t = &job->c->tasks[index];
    job->fn(job->context, t);
    crowd_bin_close(&t->bin, &t->bin.run);
    t->bin.run = (crowd_run){.id = CROWD_PARKED_CELL};
}

/* Task t's stats into the main binner's; its tables back to empty. */
static void merge_task(crowd_binner *main, crowd_task *t, uint32_t last_region)
{
    crowd *c = main->c;
    crowd_binner *b = &t->bin;
    for (uint32_t i = 0; i < b->touched_count; i++) {
        crowd_cell *from = &b->cells[b->touched[i]], *to = &main->cells[b->touched[i]];
        to->count += from->count;
        for (int k = 0; k < 3; k++) {
            to->min[k] = from->min[k] < to->min[k] ? from->min[k] : to->min[k];
            to->max[k] = from->max[k] > to->max[k] ? from->max[k] : to->max[k];
        }
        to->max_scale = from->max_scale > to->max_scale ? from->max_scale : to->max_scale;
        to->max_speed = from->max_speed > to->max_speed ? from->max_speed : to->max_speed;
        reset_cell(from);
    }
    for (uint32_t g = t->first_region; g <= last_region && g < c->parked_region; g++) {
        c->regions[g].dirty |= b->region_dirty[g] != 0;
        b->region_dirty[g] = 0;
    }
    for (uint32_t k = 0; k < b->mover_count; k++) {
        if (main->mover_count == main->mover_capacity) {
            main->movers_overflow = true;
            break;
        }
        main->movers[main->mover_count++] = b->movers[k];
    }
    main->movers_overflow |= b->movers_overflow;
    main->fades += b->fades;
}

crowd_task *crowd_run_tasks(crowd *c, crowd_binner *main, crowd_task_fn fn, void *context, uint32_t *count)
{
    uint32_t live = live_slots(c), n = c->task_count, by_size = live / TASK_SLOTS;
    n = n <= by_size ? n : by_size > 2 ? by_size : 2; /* (crowd_tasks_enabled: live >= 2 * MIN_TASK_SLOTS) */
    uint32_t regions = c->cell_count + 3;
    /* Task t walks live ordinals [t * live / n, (t + 1) * live / n): find where each starts. */
    uint32_t g = 0, before = 0; /* live slots in regions before g */
    for (uint32_t t = 0; t < n; t++) {
        uint32_t from = (uint32_t)((uint64_t)live * t / n), to = (uint32_t)((uint64_t)live * (t + 1) / n);
        while (g < c->parked_region && before + c->regions[g].count <= from && g + 1 < c->parked_region) {
            before += c->regions[g].count;
            g++;
        }
        crowd_task *task = &c->tasks[t];
        *task = (crowd_task){.index = t,
                             .live_before = from,
                             .live_count = to - from,
                             .region = g,
                             .skip = from - before,
                             .first_region = g};
        task->bin = (crowd_binner){.c = c,
                                   .grid = main->grid,
                                   .region = CROWD_NO_REGION,
                                   .time = main->time,
                                   .now = main->now,
                                   .dirty = main->dirty,
                                   .region_of_cell = main->region_of_cell,
                                   .run = {.id = CROWD_PARKED_CELL},
                                   .cells = c->task_cells + (size_t)t * c->cell_count,
                                   .touched = c->task_touched + (size_t)t * c->cell_count,
                                   .region_dirty = c->task_region_dirty + (size_t)t * regions,
                                   .movers = c->task_movers + (size_t)t * c->task_mover_capacity,
                                   .mover_capacity = c->task_mover_capacity};
    }
    task_job job = {c, fn, context};
    crowd_pool_run(c->pool, n, run_task, &job);
    crowd_bin_close(main, &main->run);
    main->run = (crowd_run){.id = CROWD_PARKED_CELL};
    for (uint32_t t = 0; t < n; t++)
        merge_task(main, &c->tasks[t], c->tasks[t].region);
    *count = n;
    return c->tasks;
}
