#include "core/crc32.h"

#include <stdatomic.h>

/* Eight 256-entry tables let the loop consume 8 bytes per iteration instead of one: the .crowd
 * loader checks every byte of a multi-megabyte file, so the loop's speed is the load's. */
static uint32_t tables[8][256];
static atomic_int table_state; /* 0 unbuilt, 1 being built, 2 ready */

static void build_tables(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        tables[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++)
        for (int t = 1; t < 8; t++)
            tables[t][i] = (tables[t - 1][i] >> 8) ^ tables[0][tables[t - 1][i] & 0xFF];
}

static void ensure_tables(void)
{
    if (atomic_load_explicit(&table_state, memory_order_acquire) == 2)
        return;
    int expected = 0;
    if (atomic_compare_exchange_strong(&table_state, &expected, 1)) {
        build_tables();
        atomic_store_explicit(&table_state, 2, memory_order_release);
        return;
    }
    while (atomic_load_explicit(&table_state, memory_order_acquire) != 2) {
        /* another thread builds them: a few microseconds */
    }
}

static uint32_t load_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

uint32_t crowd_crc32(uint32_t crc, const void *data, size_t size)
{
    ensure_tables();
    const uint8_t *p = data;
    crc = ~crc;
    while (size >= 8) {
        uint32_t lo = load_le32(p) ^ crc;
        uint32_t hi = load_le32(p + 4);
        crc = tables[7][lo & 0xFF] ^ tables[6][(lo >> 8) & 0xFF] ^ tables[5][(lo >> 16) & 0xFF] ^ tables[4][lo >> 24] ^
              tables[3][hi & 0xFF] ^ tables[2][(hi >> 8) & 0xFF] ^ tables[1][(hi >> 16) & 0xFF] ^ tables[0][hi >> 24];
        p += 8;
        size -= 8;
    }
    while (size--)
        crc = tables[0][(crc ^ *p++) & 0xFF] ^ (crc >> 8);
    return ~crc;
}
