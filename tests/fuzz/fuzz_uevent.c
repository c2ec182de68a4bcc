/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Kernel uevent datagrams as hold reads them: whatever the bytes, the parser
 * stays inside them (the copy is exactly their size, so the sanitizer sees
 * one byte too far) and a device it reports is a whole, non-empty name. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "read/uevent.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_event(const struct np_event *ev)
{
	if (!memchr(ev->action, '\0', sizeof(ev->action)) || !memchr(ev->subsystem, '\0', sizeof(ev->subsystem)) ||
	    !memchr(ev->device, '\0', sizeof(ev->device)) || !ev->device[0])
		abort();
	if (strcmp(ev->subsystem, "net") && strcmp(ev->subsystem, "block") && strcmp(ev->subsystem, "pci"))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	struct np_event ev;
	if (np_uevent_parse(buf, size, &ev))
		check_event(&ev);
	free(buf);
	return 0;
}
