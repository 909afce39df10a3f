// SPDX-License-Identifier: MIT
/* See budget.h. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "budget.h"

#define MAX_NOTES 8
#define NOTE_LEN 200

static __thread struct {
	int active;
	int64_t deadline, begun;
	const volatile sig_atomic_t *stop;
	sig_atomic_t stop0;
	bool over;
	size_t n;
	char notes[MAX_NOTES][NOTE_LEN];
	const char *ptrs[MAX_NOTES];
} B;

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void lt_budget_begin(int64_t deadline_ns, const volatile sig_atomic_t *stop)
{
	memset(&B, 0, sizeof(B));
	B.active = 1;
	B.deadline = deadline_ns;
	B.begun = now_ns();
	B.stop = stop;
	B.stop0 = stop ? *stop : 0;
}

int64_t lt_budget_deadline(int pid, int base_ms, int max_ms)
{
	char path[64], buf[256];
	long threads = 0;
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	FILE *f = fopen(path, "re");
	if (f) {
		while (fgets(buf, sizeof(buf), f))
			if (sscanf(buf, "Threads: %ld", &threads) == 1)
				break;
		fclose(f);
	}
	int64_t ms = base_ms + (threads > 0 ? threads : 0);
	if (ms > max_ms)
		ms = max_ms;
	return now_ns() + ms * 1000000;
}

void lt_budget_end(void)
{
	memset(&B, 0, sizeof(B));
}

static void vnote(const char *fmt, va_list ap)
{
	char buf[NOTE_LEN];
	vsnprintf(buf, sizeof(buf), fmt, ap);
	for (size_t i = 0; i < B.n; i++)
		if (!strcmp(B.notes[i], buf))
			return;
	if (B.n < MAX_NOTES)
		memcpy(B.notes[B.n++], buf, sizeof(buf));
}

void lt_budget_note(const char *fmt, ...)
{
	va_list ap;
	if (!B.active)
		return;
	va_start(ap, fmt);
	vnote(fmt, ap);
	va_end(ap);
}

static void note(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vnote(fmt, ap);
	va_end(ap);
}

bool lt_budget_over(void)
{
	if (!B.active)
		return false;
	if (B.over)
		return true;
	if (B.stop && *B.stop != B.stop0) {
		B.over = true;
		note("interrupted after %.2f s: the rest of the process was not read",
		     (double)(now_ns() - B.begun) / 1e9);
	} else if (B.deadline && now_ns() > B.deadline) {
		B.over = true;
		note("its time budget of %.1f s ran out: the rest of the process was not read",
		     (double)(B.deadline - B.begun) / 1e9);
	}
	return B.over;
}

const char *const *lt_budget_notes(size_t *n)
{
	for (size_t i = 0; i < B.n; i++)
		B.ptrs[i] = B.notes[i];
	*n = B.n;
	return B.ptrs;
}
