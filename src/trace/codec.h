/* SPDX-License-Identifier: MIT */
/* Event codec of EVENTS chunks (src/trace/codec.c).  Private to src/ and tests. */
#ifndef LT_CODEC_H
#define LT_CODEC_H

#include <stddef.h>
#include <stdint.h>
#include "locktrace/event.h"

#define LT_COMM_CACHE 256
/* the longest encoding of one event: fixed bytes, varints, two comms */
#define LT_EVENT_MAX_ENCODED 160

struct lt_comm_slot {
	uint32_t tid;
	int valid;
	char comm[LT_COMM_LEN];
};

struct lt_codec {
	int32_t pid;
	uint64_t prev_ts;
	uint64_t prev_uaddr;
	struct lt_comm_slot comms[LT_COMM_CACHE];
};

void lt_codec_reset(struct lt_codec *c, int32_t pid, uint64_t base_ts);
/* Encodes ev at out (LT_EVENT_MAX_ENCODED bytes of room); returns its size,
 * 0 for an unknown kind. */
size_t lt_codec_encode(struct lt_codec *c, uint8_t *out, const struct lt_event *ev);
/* Decodes one event at *pp (advanced past it); 0 or -EINVAL. */
int lt_codec_decode(struct lt_codec *c, const uint8_t **pp, const uint8_t *end,
		    struct lt_event *ev);

#endif
