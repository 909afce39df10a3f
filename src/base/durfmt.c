// SPDX-License-Identifier: MIT
#include <inttypes.h>
#include <stdio.h>
#include "durfmt.h"

void lt_fmt_dur(uint64_t ns, char *buf, size_t len)
{
	double s = (double)ns / 1e9;
	if (s >= 100)
		snprintf(buf, len, "%.0f s", s);
	else if (s >= 10)
		snprintf(buf, len, "%.1f s", s);
	else if (s >= 1)
		snprintf(buf, len, "%.2f s", s);
	else if (ns >= 100000000)
		snprintf(buf, len, "%.0f ms", s * 1e3);
	else if (ns >= 1000000)
		snprintf(buf, len, "%.1f ms", s * 1e3);
	else if (ns >= 1000)
		snprintf(buf, len, "%.0f us", s * 1e6);
	else
		snprintf(buf, len, "%" PRIu64 " ns", ns);
}
