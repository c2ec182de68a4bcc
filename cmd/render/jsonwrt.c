/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "render/jsonwrt.h"

#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/quote.h"

void np_jw_init(struct np_jw *jw, FILE *out, bool pretty)
{
	jw->out = out;
	jw->pretty = pretty;
	jw->failed = false;
	jw->keyed = false;
	jw->depth = 0;
	jw->len = 0;
}

static void flush(struct np_jw *jw)
{
	if (jw->len && fwrite(jw->buf, 1, jw->len, jw->out) != jw->len)
		jw->failed = true;
	jw->len = 0;
}

static inline __attribute__((always_inline)) void put(struct np_jw *jw, const char *s, size_t len)
{
	if (len > sizeof(jw->buf) - jw->len) {
		flush(jw);
		if (len > sizeof(jw->buf)) {
			if (fwrite(s, 1, len, jw->out) != len)
				jw->failed = true;
			return;
		}
	}
	memcpy(jw->buf + jw->len, s, len);
	jw->len += len;
}

static inline __attribute__((always_inline)) void putch(struct np_jw *jw, char c)
{
	if (jw->len == sizeof(jw->buf))
		flush(jw);
	jw->buf[jw->len++] = c;
}

static void tabs(struct np_jw *jw, int n)
{
	while (n-- > 0)
		putch(jw, '\t');
}

/* The bytes that end a run written as it is: NUL, controls, '"', '\\'. */
static const bool stop[256] = {
	[0x00] = 1, [0x01] = 1, [0x02] = 1, [0x03] = 1, [0x04] = 1, [0x05] = 1, [0x06] = 1, [0x07] = 1,
	[0x08] = 1, [0x09] = 1, [0x0a] = 1, [0x0b] = 1, [0x0c] = 1, [0x0d] = 1, [0x0e] = 1, [0x0f] = 1,
	[0x10] = 1, [0x11] = 1, [0x12] = 1, [0x13] = 1, [0x14] = 1, [0x15] = 1, [0x16] = 1, [0x17] = 1,
	[0x18] = 1, [0x19] = 1, [0x1a] = 1, [0x1b] = 1, [0x1c] = 1, [0x1d] = 1, [0x1e] = 1, [0x1f] = 1,
	['"'] = 1, ['\\'] = 1,
	[0x80 ... 0xff] = 1,
};

/* Whether the len bytes at s need no escaping (none stops a run: plain
 * ASCII without controls, '"' or '\\'), eight at a time. */
static bool plain(const char *s, size_t len)
{
	const uint64_t ones = UINT64_C(0x0101010101010101), highs = UINT64_C(0x8080808080808080);
	size_t i = 0;
	for (uint64_t w; i + 8 <= len; i += 8) {
		memcpy(&w, s + i, sizeof(w));
		uint64_t quote = w ^ (ones * '"'), backslash = w ^ (ones * '\\');
		/* A byte below 0x20, a '"', a '\\' or one with its high bit set. */
		if (((w - ones * 0x20) | (quote - ones) | (backslash - ones) | w) & highs)
			return false;
	}
	for (; i < len; i++)
		if (stop[(unsigned char)s[i]])
			return false;
	return true;
}

/* s in quotes (then colon, a key of the compact form) in one copy, when it
 * needs no escaping and fits the buffer: every key and most values. */
static bool quoted_plain(struct np_jw *jw, const char *s, bool colon)
{
	size_t n = strlen(s);
	if (n + 3 > sizeof(jw->buf) - jw->len || !plain(s, n))
		return false;
	char *out = jw->buf + jw->len;
	out[0] = '"';
	memcpy(out + 1, s, n);
	out[n + 1] = '"';
	out[n + 2] = ':'; /* in the room checked, counted only for a key */
	jw->len += n + 2 + colon;
	return true;
}

/* A string as cJSON escapes it: '"', '\\' and control characters; valid
 * UTF-8 as it is. A byte of invalid UTF-8 (a name is the kernel's bytes)
 * would make the document invalid JSON: it is written as the text \xHH,
 * as text output shows it (np_escape), where cJSON would copy it. */
static void string(struct np_jw *jw, const char *s)
{
	if (quoted_plain(jw, s, false))
		return;
	putch(jw, '"');
	const char *run = s;
	for (const unsigned char *p = (const unsigned char *)s;; p++) {
		unsigned char c = *p;
		if (!stop[c])
			continue;
		if (c >= 0x80) {
			size_t len = np_utf8_char(p, strnlen((const char *)p, 4));
			if (len) {
				p += len - 1;
				continue;
			}
		}
		put(jw, run, (size_t)((const char *)p - run));
		if (!c)
			break;
		run = (const char *)p + 1;
		char esc[8];
		if (c >= 0x80) {
			snprintf(esc, sizeof(esc), "\\\\x%02x", c);
			put(jw, esc, strlen(esc));
			continue;
		}
		switch (c) {
		case '"': case '\\': esc[0] = '\\'; esc[1] = (char)c; esc[2] = '\0'; break;
		case '\b': memcpy(esc, "\\b", 3); break;
		case '\f': memcpy(esc, "\\f", 3); break;
		case '\n': memcpy(esc, "\\n", 3); break;
		case '\r': memcpy(esc, "\\r", 3); break;
		case '\t': memcpy(esc, "\\t", 3); break;
		default: snprintf(esc, sizeof(esc), "\\u%04x", c); break;
		}
		put(jw, esc, strlen(esc));
	}
	putch(jw, '"');
}

/* Before a value: the separator after the previous one and the
 * indentation. cJSON's pretty form puts an object's members one a line,
 * indented by tabs to the depth, "key":<tab>value; an array's elements on
 * one line, ", " between them. Returns whether a key comes next (a member of
 * an object). */
static inline __attribute__((always_inline)) bool separate(struct np_jw *jw)
{
	if (jw->depth == 0)
		return false;
	int d = jw->depth - 1;
	if (jw->array[d]) {
		if (jw->any[d])
			put(jw, ", ", jw->pretty ? 2 : 1);
		jw->any[d] = true;
		return false;
	}
	if (jw->any[d]) {
		if (jw->pretty)
			put(jw, ",\n", 2);
		else
			putch(jw, ',');
	}
	jw->any[d] = true;
	if (jw->pretty)
		tabs(jw, jw->depth);
	return true;
}

static void after_key(struct np_jw *jw)
{
	if (jw->pretty)
		put(jw, ":\t", 2);
	else
		putch(jw, ':');
}

static void member(struct np_jw *jw, const char *key)
{
	if (jw->keyed) {
		jw->keyed = false;
		return;
	}
	if (!separate(jw))
		return;
	key = key ? key : "";
	/* The compact form's colon goes with a plain key (every member of every row). */
	if (!jw->pretty && quoted_plain(jw, key, true))
		return;
	string(jw, key);
	after_key(jw);
}

bool np_jw_key_init(const struct np_jw *jw, struct np_jw_key *key, const char *name)
{
	size_t n = strlen(name), after = jw->pretty ? 2 : 1;
	if (n + 2 + after > sizeof(key->text) || !plain(name, n))
		return false;
	key->text[0] = '"';
	memcpy(key->text + 1, name, n);
	key->text[n + 1] = '"';
	memcpy(key->text + n + 2, ":\t", after);
	key->len = (unsigned char)(n + 2 + after);
	return true;
}

void np_jw_key(struct np_jw *jw, const struct np_jw_key *key)
{
	if (!separate(jw))
		return;
	/* One copy of a fixed size, no call to memcpy. */
	if (sizeof(jw->buf) - jw->len < sizeof(key->text))
		flush(jw);
	memcpy(jw->buf + jw->len, key->text, sizeof(key->text));
	jw->len += key->len;
	jw->keyed = true;
}

static void open_container(struct np_jw *jw, const char *key, bool array)
{
	member(jw, key);
	if (jw->depth >= NP_JW_MAX_DEPTH) {
		jw->failed = true;
		return;
	}
	putch(jw, array ? '[' : '{');
	if (!array && jw->pretty)
		putch(jw, '\n');
	jw->array[jw->depth] = array;
	jw->any[jw->depth] = false;
	jw->depth++;
}

void np_jw_object(struct np_jw *jw, const char *key)
{
	open_container(jw, key, false);
}

void np_jw_array(struct np_jw *jw, const char *key)
{
	open_container(jw, key, true);
}

void np_jw_close(struct np_jw *jw)
{
	if (jw->depth == 0) {
		jw->failed = true;
		return;
	}
	int d = --jw->depth;
	if (jw->array[d]) {
		putch(jw, ']');
		return;
	}
	if (jw->pretty) {
		if (jw->any[d])
			putch(jw, '\n');
		tabs(jw, d);
	}
	putch(jw, '}');
}

void np_jw_str(struct np_jw *jw, const char *key, const char *s)
{
	if (!s)
		return np_jw_null(jw, key);
	member(jw, key);
	string(jw, s);
}

/* The decimal digits of i, ending at end; returns where they start. Two
 * digits a division (64,000 counts in a 1024-CPU report). */
static char *digits_at(char *end, long long i)
{
	static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
				    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
				    "8081828384858687888990919293949596979899";
	char *p = end;
	unsigned long long u = i < 0 ? 0ULL - (unsigned long long)i : (unsigned long long)i;
	while (u >= 100) {
		p -= 2;
		memcpy(p, pairs + 2 * (u % 100), 2);
		u /= 100;
	}
	if (u >= 10) {
		p -= 2;
		memcpy(p, pairs + 2 * u, 2);
	} else {
		*--p = (char)('0' + u);
	}
	if (i < 0)
		*--p = '-';
	return p;
}

/* Text of at most 24 bytes, p to end, in a buffer of 48 that ends it at
 * its middle: copied as one move of a fixed 24 bytes, not a call to memcpy
 * (16 numbers an IRQ row, 4000 rows). */
#define SHORT_MIDDLE 24
static void put_short(struct np_jw *jw, const char *p, const char *end)
{
	if (sizeof(jw->buf) - jw->len < SHORT_MIDDLE)
		flush(jw);
	memcpy(jw->buf + jw->len, p, SHORT_MIDDLE);
	jw->len += (size_t)(end - p);
}

/* The same for a count's whole member ("15":1234567). */
#define SHORT_MEMBER 48

static void digits(struct np_jw *jw, long long i)
{
	char tmp[2 * SHORT_MIDDLE];
	put_short(jw, digits_at(tmp + SHORT_MIDDLE, i), tmp + SHORT_MIDDLE);
}

/* "%1.15g" of d without printf, when d is the double nearest to a decimal
 * of at most 15 significant digits between 1e-4 and 1e15 (a rate of
 * interrupts over whole seconds, 1012188.582): that decimal, found as the
 * fewest decimals k for which d * 10^k rounds to an integer m with
 * m / 10^k == d (a correctly rounded division: m / 10^k is d exactly when
 * d is the double nearest to it), is what "%1.15g" prints, and reads back
 * as d. Returns its length in buf, 0 for any other d. */
static size_t short_decimal(double d, char buf[32])
{
	static const double p10[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15 };
	double a = fabs(d);
	if (!(a >= 1e-4 && a < 1e15))
		return 0;
	for (int k = 1; k < 16; k++) {
		double m = nearbyint(a * p10[k]);
		if (m >= 1e15)
			return 0;
		if (m / p10[k] != a)
			continue;
		/* m's digits, least first, at least one before the point */
		char rev[24];
		int nd = 0;
		for (unsigned long long u = (unsigned long long)m; u || nd <= k; u /= 10)
			rev[nd++] = (char)('0' + u % 10);
		size_t n = 0;
		if (d < 0)
			buf[n++] = '-';
		for (int i = nd - 1; i >= 0; i--) {
			buf[n++] = rev[i];
			if (i == k)
				buf[n++] = '.';
		}
		return n;
	}
	return 0;
}

/* cJSON stores every number as a double and prints it with 15 significant
 * digits, or 17 when 15 do not read back as the same value (within
 * DBL_EPSILON); an integer of 15 digits or fewer prints as its digits. */
void np_jw_number(struct np_jw *jw, const char *key, double d)
{
	member(jw, key);
	if (isnan(d) || isinf(d)) {
		put(jw, "null", 4);
		return;
	}
	if (d == floor(d) && fabs(d) < 1e15 && !(d == 0 && signbit(d))) {
		digits(jw, (long long)d);
		return;
	}
	char buf[32];
	size_t len = short_decimal(d, buf);
	if (len) {
		put(jw, buf, len);
		return;
	}
	snprintf(buf, sizeof(buf), "%1.15g", d);
	double back = strtod(buf, NULL);
	double max = fabs(back) > fabs(d) ? fabs(back) : fabs(d);
	if (!(fabs(back - d) <= max * DBL_EPSILON))
		snprintf(buf, sizeof(buf), "%1.17g", d);
	put(jw, buf, strlen(buf));
}

void np_jw_int(struct np_jw *jw, const char *key, long long i)
{
	/* Beyond 15 digits, the double cJSON would have kept. */
	if (i <= -1000000000000000LL || i >= 1000000000000000LL)
		return np_jw_number(jw, key, (double)i);
	member(jw, key);
	digits(jw, i);
}

void np_jw_uint(struct np_jw *jw, const char *key, unsigned long long u)
{
	if (u >= 1000000000000000ULL)
		return np_jw_number(jw, key, (double)u);
	np_jw_int(jw, key, (long long)u);
}

void np_jw_count(struct np_jw *jw, long long key, unsigned long long n)
{
	if (n >= 1000000000000000ULL) {
		char buf[24], *k = digits_at(buf + sizeof(buf) - 1, key);
		buf[sizeof(buf) - 1] = '\0';
		return np_jw_number(jw, k, (double)n);
	}
	/* A number needs no escaping: its key written as it is, before the
	 * count's digits, and the member copied at once (a node's count: 16 an
	 * IRQ row). At most 2 + 20 + 2 + 15 bytes. */
	if (!separate(jw))
		return digits(jw, (long long)n);
	char tmp[2 * SHORT_MEMBER], *end = tmp + SHORT_MEMBER, *p = digits_at(end, (long long)n);
	if (jw->pretty)
		*--p = '\t';
	*--p = ':';
	*--p = '"';
	p = digits_at(p, key);
	*--p = '"';
	if (sizeof(jw->buf) - jw->len < SHORT_MEMBER)
		flush(jw);
	memcpy(jw->buf + jw->len, p, SHORT_MEMBER);
	jw->len += (size_t)(end - p);
}

void np_jw_bool(struct np_jw *jw, const char *key, bool b)
{
	member(jw, key);
	put(jw, b ? "true" : "false", b ? 4 : 5);
}

void np_jw_null(struct np_jw *jw, const char *key)
{
	member(jw, key);
	put(jw, "null", 4);
}

void np_jw_cjson(struct np_jw *jw, const char *key, const cJSON *item)
{
	if (!item) {
		jw->failed = true;
		return;
	}
	switch (item->type & 0xff) {
	case cJSON_False:
		return np_jw_bool(jw, key, false);
	case cJSON_True:
		return np_jw_bool(jw, key, true);
	case cJSON_NULL:
		return np_jw_null(jw, key);
	case cJSON_Number:
		return np_jw_number(jw, key, item->valuedouble);
	case cJSON_String:
		return np_jw_str(jw, key, item->valuestring ? item->valuestring : "");
	case cJSON_Raw:
		member(jw, key);
		if (item->valuestring)
			put(jw, item->valuestring, strlen(item->valuestring));
		return;
	case cJSON_Array:
	case cJSON_Object: {
		bool array = (item->type & 0xff) == cJSON_Array;
		open_container(jw, key, array);
		for (const cJSON *c = item->child; c; c = c->next)
			np_jw_cjson(jw, array ? NULL : c->string, c);
		return np_jw_close(jw);
	}
	default:
		jw->failed = true;
	}
}

int np_jw_finish(struct np_jw *jw)
{
	putch(jw, '\n');
	flush(jw);
	int err = fflush(jw->out) || ferror(jw->out) ? (errno ? errno : EIO) : 0;
	if (!err && (jw->failed || jw->depth))
		err = ENOMEM;
	return -err;
}
