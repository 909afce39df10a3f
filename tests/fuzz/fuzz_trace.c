// SPDX-License-Identifier: MIT
/* libFuzzer harness: the trace reader (src/trace/tracefile.c, src/trace/codec.c), the
 * SYMBOLS parser, event formatting and the whole report (src/report*.c)
 * on a file built from the input.  The input is taken as a trace whose
 * preamble is made valid and whose chunk CRCs are recomputed, so that
 * mutations reach the decoders instead of stopping at the checksum.
 * Build and run: make fuzz; docs/fuzzing.md. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>
#include "locksyms.h"
#include "report.h"
#include "locktrace/tracefile.h"
#include "u64map.h"

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The input with a valid preamble, chunk magics and CRCs (lengths are kept
 * unless they run past the end: then the rest is the last chunk).  With
 * bit 0x40 of the first byte, one chunk after the header (the 1st to 8th,
 * by its low bits) keeps a wrong CRC: the reader must read past it to the
 * chunks after it, which may refer to what it held. */
static uint8_t *fixup(const uint8_t *in, size_t n, size_t *outlen)
{
	uint8_t *b = malloc(n + LT_PREAMBLE_LEN + 1);
	if (!b)
		return NULL;
	memcpy(b, LT_MAGIC, 8);
	b[8] = LT_VERSION_MAJOR;
	b[9] = 0;
	b[10] = n ? in[0] % 4 : 0; /* any minor version */
	b[11] = 0;
	memset(b + 12, 0, 4);
	memcpy(b + LT_PREAMBLE_LEN, in, n);
	size_t len = n + LT_PREAMBLE_LEN, off = LT_PREAMBLE_LEN;
	unsigned damaged = n && (in[0] & 0x40) ? 1u + (in[0] & 7u) : 0, k = 0;
	while (off + LT_CHUNK_HDR_LEN <= len) {
		uint8_t *h = b + off;
		uint32_t plen = get32(h + 8);
		if (plen > len - off - LT_CHUNK_HDR_LEN) {
			plen = (uint32_t)(len - off - LT_CHUNK_HDR_LEN);
			put32(h + 8, plen);
		}
		put32(h, 0x4b43544cu);
		uint32_t crc = (uint32_t)crc32(0L, h + 4, 8);
		crc = (uint32_t)crc32(crc, h + LT_CHUNK_HDR_LEN, plen);
		put32(h + 12, k++ == damaged ? ~crc : crc);
		off += LT_CHUNK_HDR_LEN + plen;
	}
	*outlen = len;
	return b;
}

static void read_all(const char *path)
{
	struct lt_reader r;
	struct lt_item it;
	char err[256], line[1024];

	if (lt_reader_open(&r, path, err, sizeof(err)))
		return;
	for (int n = 0; lt_reader_next(&r, &it) > 0 && n < 100000; n++) {
		if (it.type == LT_ITEM_EVENT) {
			lt_format_event(&it.ev, line, sizeof(line));
		} else if (it.sec_type == LT_CHUNK_SYMBOLS) {
			struct lt_u64map m = { 0 };
			lt_locksyms_parse(it.data, it.len, &m);
			lt_symmap_free(&m);
		}
	}
	char dmg[2048] = ""; /* the lines a command would warn with */
	lt_trace_damage_append(&r, dmg, sizeof(dmg));
	lt_reader_close(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	size_t len;

	if (fd < 0) {
		fd = memfd_create("fuzz-trace", 0);
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	uint8_t *b = fixup(data, size, &len);
	if (!b || ftruncate(fd, 0) || pwrite(fd, b, len, 0) != (ssize_t)len) {
		free(b);
		return 0;
	}
	free(b);
	read_all(path);
	FILE *out = fopen("/dev/null", "w");
	if (out) {
		char err[512];
		lt_report_file_opts(path, out, size && (data[0] & 0x80), NULL, err, sizeof(err));
		fclose(out);
	}
	return 0;
}
