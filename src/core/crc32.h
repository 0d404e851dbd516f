/* Internal: CRC-32 (IEEE 802.3 polynomial, reflected, as in zlib/PNG), slicing-by-8. */
#ifndef CROWD_CORE_CRC32_H
#define CROWD_CORE_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* Continues a CRC: start with crc = 0; crowd_crc32(crowd_crc32(0, a, n), b, m) equals the CRC of
 * a followed by b. About 1.5 bytes per cycle. */
uint32_t crowd_crc32(uint32_t crc, const void *data, size_t size);

#endif
