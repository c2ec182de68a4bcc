/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The kernel's ethtool netlink answers as the channels kind reads them: a
 * CHANNELS_GET reply and an NLMSG_ERROR with its extended ack, whatever the
 * lengths say, are read inside the message (copied to exactly its size, at
 * an odd address too) or refused; and the same bytes as a channels value
 * parse only into a value that prints and parses back the same. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "change/channels.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const void *buf, size_t size)
{
	struct np_channels c;
	int rc = np_channels_reply(buf, size, &c);
	if (rc && rc != -EPROTO)
		abort();
	for (int k = 0; rc == 0 && k < NP_CH_COUNT; k++)
		if (c.has[k] && !c.max[k])
			abort();
	char why[64];
	rc = np_nlmsg_error(buf, size, why, sizeof(why));
	if (rc > 0 || rc < -4095 || !memchr(why, '\0', sizeof(why)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *buf = malloc(size + 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	check(buf, size);
	memmove(buf + 1, buf, size);
	check(buf + 1, size);
	/* As text: a value that parses prints and parses back the same. */
	memcpy(buf, data, size);
	buf[size] = '\0';
	struct np_channels a, b;
	if (np_channels_parse((const char *)buf, &a) == 0) {
		char *text = np_channels_format(&a, true);
		if (!text || np_channels_parse(text, &b) || memcmp(a.has, b.has, sizeof(a.has)) ||
		    memcmp(a.count, b.count, sizeof(a.count)))
			abort();
		free(text);
	}
	free(buf);
	return 0;
}
