/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "change/channels-value.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[NP_CH_COUNT] = { "rx", "tx", "other", "combined" };

const char *np_channel_name(enum np_channel ch)
{
	return (unsigned)ch < NP_CH_COUNT ? names[ch] : "?";
}

int np_channels_parse(const char *text, struct np_channels *out)
{
	memset(out, 0, sizeof(*out));
	const char *p = text ? text : "";
	int named = 0;
	for (;;) {
		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		size_t len = strcspn(p, " \t\n");
		int ch = -1;
		for (int k = 0; k < NP_CH_COUNT; k++)
			if (strlen(names[k]) == len && !strncmp(p, names[k], len))
				ch = k;
		if (ch < 0 || out->has[ch])
			return -EINVAL;
		p += len;
		while (*p == ' ' || *p == '\t')
			p++;
		uint32_t v = 0;
		size_t digits = strspn(p, "0123456789");
		if (!digits || digits > 5 || (digits > 1 && *p == '0'))
			return -EINVAL;
		for (size_t i = 0; i < digits; i++)
			v = v * 10 + (uint32_t)(p[i] - '0');
		if (v > NP_CHANNELS_MAX_COUNT || (p[digits] && !isspace((unsigned char)p[digits])))
			return -EINVAL;
		p += digits;
		out->has[ch] = true;
		out->count[ch] = v;
		named++;
	}
	return named ? 0 : -EINVAL;
}

char *np_channels_format(const struct np_channels *c, bool zero_named)
{
	char buf[128];
	size_t len = 0;
	for (int k = 0; k < NP_CH_COUNT; k++)
		if (c->has[k] && (zero_named || c->count[k]))
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s %u", len ? " " : "", names[k],
						c->count[k]);
	return len ? strdup(buf) : NULL;
}

char *np_channels_normalize(const char *text)
{
	struct np_channels c;
	return np_channels_parse(text, &c) ? NULL : np_channels_format(&c, false);
}
