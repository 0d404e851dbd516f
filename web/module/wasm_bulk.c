/* Bulk setters: one JavaScript-to-wasm call for N instances instead of N calls. */
#include <malloc.h>

#include "wasm_module.h"

crowd_result cbw_set_transforms(crowd *crowd, uint32_t first, uint32_t count, const float *xyz, const float *yaw,
                                uint32_t *failed)
{
    for (uint32_t i = 0; i < count; i++) {
        crowd_result result = crowd_set_transform(crowd, first + i, xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2], yaw[i]);
        if (result != CROWD_OK)
            return *failed = first + i, result;
    }
    return CROWD_OK;
}

crowd_result cbw_play(crowd *crowd, uint32_t first, uint32_t count, const uint32_t *clips, const float *rates,
                      float fade_seconds, int once, uint32_t *failed)
{
    for (uint32_t i = 0; i < count; i++) {
        float rate = rates ? rates[i] : 1.0f;
        crowd_result result = once ? crowd_play_once(crowd, first + i, clips[i], rate, fade_seconds)
                                   : crowd_play(crowd, first + i, clips[i], rate, fade_seconds);
        if (result != CROWD_OK)
            return *failed = first + i, result;
    }
    return CROWD_OK;
}

/* The one-float setters share this loop. */
typedef crowd_result (*float_setter)(crowd *crowd, uint32_t index, float value);

static crowd_result set_each(crowd *crowd, float_setter set, uint32_t first, uint32_t count, const float *values,
                             uint32_t *failed)
{
    for (uint32_t i = 0; i < count; i++) {
        crowd_result result = set(crowd, first + i, values[i]);
        if (result != CROWD_OK)
            return *failed = first + i, result;
    }
    return CROWD_OK;
}

crowd_result cbw_set_speeds(crowd *crowd, uint32_t first, uint32_t count, const float *speeds, uint32_t *failed)
{
    return set_each(crowd, crowd_set_speed, first, count, speeds, failed);
}

crowd_result cbw_set_scales(crowd *crowd, uint32_t first, uint32_t count, const float *scales, uint32_t *failed)
{
    return set_each(crowd, crowd_set_scale, first, count, scales, failed);
}

crowd_result cbw_set_phases(crowd *crowd, uint32_t first, uint32_t count, const float *phases, uint32_t *failed)
{
    return set_each(crowd, crowd_set_phase, first, count, phases, failed);
}

crowd_result cbw_set_velocities(crowd *crowd, uint32_t first, uint32_t count, const float *xz, uint32_t *failed)
{
    for (uint32_t i = 0; i < count; i++) {
        crowd_result result = crowd_set_velocity(crowd, first + i, xz[2 * i], xz[2 * i + 1]);
        if (result != CROWD_OK)
            return *failed = first + i, result;
    }
    return CROWD_OK;
}

void cbw_get_transforms(const crowd *crowd, float *xyz, float *yaw)
{
    uint32_t count = crowd_count(crowd);
    float time = crowd_time(crowd);
    for (uint32_t i = 0; i < count; i++) {
        crowd_record record;
        if (crowd_get(crowd, i, &record) != CROWD_OK)
            continue;
        crowd_record_position(&record, time, &xyz[3 * i]);
        yaw[i] = crowd_record_yaw(&record, time);
    }
}

uint32_t cbw_heap_in_use(void)
{
    return (uint32_t)mallinfo().uordblks;
}
