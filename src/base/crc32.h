/* SPDX-License-Identifier: MIT */
/* CRC-32 of zlib (polynomial 0xEDB88320, reflected, inverted in and out):
 * lt_crc32_update(crc, buf, len) == zlib's crc32(crc, buf, len) for every
 * input, so the trace format's checksums are unchanged.  On CPUs with
 * PCLMULQDQ (and SSE4.1) long buffers are folded 64 bytes at a time with
 * carry-less multiplications; the last 16 folded bytes and any tail go to
 * zlib.  Private to src/. */
#ifndef LT_CRC32_H
#define LT_CRC32_H

#include <stddef.h>
#include <stdint.h>

uint32_t lt_crc32_update(uint32_t crc, const void *buf, size_t len);
/* The same, never with PCLMULQDQ (for tests). */
uint32_t lt_crc32_update_zlib(uint32_t crc, const void *buf, size_t len);

#endif
