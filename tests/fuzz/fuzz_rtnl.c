/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rtnetlink datagrams as hold reads them: whatever the lengths say, the
 * walk stays inside the datagram (copied to exactly its size, at an odd
 * address too, so no alignment is assumed), yields at most max events, each
 * a link or dellink of a whole, non-empty interface name. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "read/uevent.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const void *buf, size_t size, size_t max)
{
	struct np_event evs[8];
	size_t n = np_rtnl_parse(buf, size, evs, max);
	if (n > max)
		abort();
	for (size_t i = 0; i < n; i++) {
		if (strcmp(evs[i].action, "link") && strcmp(evs[i].action, "dellink"))
			abort();
		if (strcmp(evs[i].subsystem, "net") || !memchr(evs[i].device, '\0', sizeof(evs[i].device)) ||
		    !evs[i].device[0])
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *buf = malloc(size + 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	check(buf, size, 8);
	check(buf, size, 1);
	/* The same bytes one past an aligned address, still ending at the block's end. */
	memmove(buf + 1, buf, size);
	check(buf + 1, size, 8);
	free(buf);
	return 0;
}
