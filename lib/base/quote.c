/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "base/quote.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t np_utf8_char(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len;
	unsigned min, cp;
	if (c < 0x80)
		return n ? 1 : 0;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, min = 0x80, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, min = 0x800, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, min = 0x10000, cp = c & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* How many bytes at p (n left) show as themselves: 0 for one that needs \xHH.
 * A C1 control (U+0080..U+009F, 0xc2 0x80..0x9f) is a terminal control too. */
static size_t shows(const unsigned char *p, size_t n)
{
	if (*p < 0x20 || *p == 0x7f || *p == '\\')
		return 0;
	size_t len = np_utf8_char(p, n);
	if (len == 2 && p[0] == 0xc2 && p[1] < 0xa0)
		return 0;
	return len;
}

bool np_printable(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);
	while (n) {
		size_t len = shows(p, n);
		if (!len)
			return false;
		p += len;
		n -= len;
	}
	return true;
}

/* Writes the escaped s into out (room for 4 * strlen(s) + 1) when out is
 * not NULL; returns the escaped length. */
static size_t escape_into(const char *s, char *out)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), o = 0;
	while (n) {
		size_t len = shows(p, n);
		if (len) {
			if (out)
				memcpy(out + o, p, len);
			o += len;
			p += len;
			n -= len;
			continue;
		}
		if (out) {
			out[o] = '\\';
			out[o + 1] = 'x';
			out[o + 2] = hex[*p >> 4];
			out[o + 3] = hex[*p & 15];
		}
		o += 4;
		p++;
		n--;
	}
	if (out)
		out[o] = '\0';
	return o;
}

const char *np_escape(const char *s, char *buf, size_t size)
{
	if (np_printable(s) || !size)
		return s;
	char *full = malloc(4 * strlen(s) + 1);
	if (!full) {
		/* Cannot say it safely: say that much. */
		snprintf(buf, size, "%s", "?");
		return buf;
	}
	escape_into(s, full);
	size_t len = strlen(full);
	if (len >= size) {
		/* Never cut inside an escape: up to the last whole one. */
		len = size - 1;
		char *bs = memrchr(full, '\\', len);
		if (bs && (size_t)(bs - full) + 4 > len)
			len = (size_t)(bs - full);
	}
	memcpy(buf, full, len);
	buf[len] = '\0';
	free(full);
	return buf;
}

char *np_escape_dup(const char *s)
{
	char *out = malloc(escape_into(s, NULL) + 1);
	if (out)
		escape_into(s, out);
	return out;
}

char *np_shell_quote(const char *s)
{
	static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-";
	size_t n = strlen(s);
	if (n && strspn(s, safe) == n)
		return strdup(s);
	size_t quotes = 0;
	for (const char *p = s; *p; p++)
		quotes += *p == '\'';
	char *out = malloc(n + 3 * quotes + 3), *o = out;
	if (!out)
		return NULL;
	*o++ = '\'';
	for (const char *p = s; *p; p++) {
		if (*p == '\'') {
			memcpy(o, "'\\''", 4);
			o += 4;
		} else {
			*o++ = *p;
		}
	}
	*o++ = '\'';
	*o = '\0';
	return out;
}
