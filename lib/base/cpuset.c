/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "base/cpuset.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

void np_cpuset_free(struct np_cpuset *set)
{
	free(set->bits);
	set->bits = NULL;
	set->nwords = 0;
}

void np_cpuset_clear(struct np_cpuset *set)
{
	if (set->bits)
		memset(set->bits, 0, set->nwords * sizeof(*set->bits));
}

static int grow(struct np_cpuset *set, size_t nwords)
{
	if (nwords <= set->nwords)
		return 0;
	uint64_t *bits = realloc(set->bits, nwords * sizeof(*bits));
	if (!bits)
		return -ENOMEM;
	memset(bits + set->nwords, 0, (nwords - set->nwords) * sizeof(*bits));
	set->bits = bits;
	set->nwords = nwords;
	return 0;
}

int np_cpuset_set(struct np_cpuset *set, unsigned cpu)
{
	if (cpu > NP_CPUSET_MAX_CPU)
		return -ERANGE;
	int rc = grow(set, cpu / 64 + 1);
	if (rc)
		return rc;
	set->bits[cpu / 64] |= UINT64_C(1) << (cpu % 64);
	return 0;
}

void np_cpuset_unset(struct np_cpuset *set, unsigned cpu)
{
	if (cpu / 64 < set->nwords)
		set->bits[cpu / 64] &= ~(UINT64_C(1) << (cpu % 64));
}

bool np_cpuset_test(const struct np_cpuset *set, unsigned cpu)
{
	return cpu / 64 < set->nwords && (set->bits[cpu / 64] >> (cpu % 64)) & 1;
}

unsigned np_cpuset_count(const struct np_cpuset *set)
{
	unsigned n = 0;
	/* Most words of a large machine's set are 0. */
	for (size_t i = 0; i < set->nwords; i++)
		if (set->bits[i])
			n += np_popcount64(set->bits[i]);
	return n;
}

int np_cpuset_only(const struct np_cpuset *set)
{
	int cpu = -1;
	for (size_t i = 0; i < set->nwords; i++) {
		uint64_t w = set->bits[i];
		if (!w)
			continue;
		if (cpu >= 0 || (w & (w - 1)))
			return -1;
		cpu = (int)(i * 64) + __builtin_ctzll(w);
	}
	return cpu;
}

bool np_cpuset_empty(const struct np_cpuset *set)
{
	for (size_t i = 0; i < set->nwords; i++)
		if (set->bits[i])
			return false;
	return true;
}

int np_cpuset_next(const struct np_cpuset *set, int from)
{
	if (from < 0)
		from = 0;
	size_t w = (size_t)from / 64;
	if (w >= set->nwords)
		return -1;
	uint64_t word = set->bits[w] & (~UINT64_C(0) << (from % 64));
	for (;;) {
		if (word)
			return (int)(w * 64 + (size_t)__builtin_ctzll(word));
		if (++w >= set->nwords)
			return -1;
		word = set->bits[w];
	}
}

int np_cpuset_last(const struct np_cpuset *set)
{
	for (size_t w = set->nwords; w-- > 0;)
		if (set->bits[w])
			return (int)(w * 64 + 63 - (size_t)__builtin_clzll(set->bits[w]));
	return -1;
}

static uint64_t word_at(const struct np_cpuset *set, size_t w)
{
	return w < set->nwords ? set->bits[w] : 0;
}

bool np_cpuset_equal(const struct np_cpuset *a, const struct np_cpuset *b)
{
	size_t n = a->nwords > b->nwords ? a->nwords : b->nwords;
	for (size_t w = 0; w < n; w++)
		if (word_at(a, w) != word_at(b, w))
			return false;
	return true;
}

bool np_cpuset_subset(const struct np_cpuset *sub, const struct np_cpuset *super)
{
	for (size_t w = 0; w < sub->nwords; w++)
		if (sub->bits[w] & ~word_at(super, w))
			return false;
	return true;
}

bool np_cpuset_intersects(const struct np_cpuset *a, const struct np_cpuset *b)
{
	size_t n = a->nwords < b->nwords ? a->nwords : b->nwords;
	for (size_t w = 0; w < n; w++)
		if (a->bits[w] & b->bits[w])
			return true;
	return false;
}

int np_cpuset_copy(struct np_cpuset *dst, const struct np_cpuset *src)
{
	np_cpuset_clear(dst);
	return np_cpuset_or(dst, src);
}

int np_cpuset_or(struct np_cpuset *dst, const struct np_cpuset *src)
{
	int rc = grow(dst, src->nwords);
	if (rc)
		return rc;
	for (size_t w = 0; w < src->nwords; w++)
		dst->bits[w] |= src->bits[w];
	return 0;
}

void np_cpuset_and(struct np_cpuset *dst, const struct np_cpuset *src)
{
	for (size_t w = 0; w < dst->nwords; w++)
		dst->bits[w] &= word_at(src, w);
}

void np_cpuset_andnot(struct np_cpuset *dst, const struct np_cpuset *src)
{
	for (size_t w = 0; w < dst->nwords; w++)
		dst->bits[w] &= ~word_at(src, w);
}

/* isdigit() without its locale table lookup (decimal digits are these in
 * every locale): a call a digit, 45,000 CPUs a report. */
static bool digit(char c)
{
	return c >= '0' && c <= '9';
}

static int parse_cpu(const char **p, unsigned long *out)
{
	if (!digit(**p))
		return -EINVAL;
	unsigned long v = 0;
	while (digit(**p)) {
		v = v * 10 + (unsigned long)(**p - '0');
		if (v > NP_CPUSET_MAX_CPU)
			return -ERANGE;
		(*p)++;
	}
	*out = v;
	return 0;
}

static const char *skip_blanks(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* Trailing newline (as read from sysfs) and blanks are allowed. */
static bool at_end(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	return *p == '\0';
}

static int parse_list(struct np_cpuset *set, const char *text, bool stride)
{
	const char *p = skip_blanks(text);
	int rc = 0;

	np_cpuset_clear(set);
	if (at_end(p))
		return 0;
	for (;;) {
		unsigned long lo, hi;
		if ((rc = parse_cpu(&p, &lo)))
			goto fail;
		unsigned long step = 1;
		hi = lo;
		if (*p == '-') {
			p++;
			if ((rc = parse_cpu(&p, &hi)))
				goto fail;
			if (hi < lo) {
				rc = -EINVAL;
				goto fail;
			}
			if (stride && *p == ':') {
				p++;
				if ((rc = parse_cpu(&p, &step)))
					goto fail;
				if (step == 0) {
					rc = -EINVAL;
					goto fail;
				}
			}
		}
		/* As in util-linux, the last member is the last step not past hi. */
		hi = lo + (hi - lo) / step * step;
		/* Grown for the top bit first, so once per range (and once for a
		 * list of single CPUs in order, blk-mq's "0, 1, 2"). */
		if (hi / 64 >= set->nwords && (rc = grow(set, hi / 64 + 1)))
			goto fail;
		if (step == 1) {
			/* A word at a time: "0-1023" is every IRQ's affinity on a big machine. */
			for (unsigned long c = lo; c <= hi;) {
				unsigned long end = c / 64 * 64 + 63 < hi ? c / 64 * 64 + 63 : hi;
				uint64_t bits = ~UINT64_C(0) >> (63 - (end - c)) << (c % 64);
				set->bits[c / 64] |= bits;
				c = end + 1;
			}
		} else {
			for (unsigned long c = lo; c <= hi; c += step)
				set->bits[c / 64] |= UINT64_C(1) << (c % 64);
		}
		p = skip_blanks(p);
		if (at_end(p))
			return 0;
		if (*p != ',') {
			rc = -EINVAL;
			goto fail;
		}
		p = skip_blanks(p + 1);
	}
fail:
	np_cpuset_clear(set);
	return rc;
}

int np_cpuset_parse_list(struct np_cpuset *set, const char *text)
{
	return parse_list(set, text, false);
}

int np_cpuset_parse_user_list(struct np_cpuset *set, const char *text)
{
	return parse_list(set, text, true);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int np_cpuset_parse_mask(struct np_cpuset *set, const char *text)
{
	const char *start = skip_blanks(text), *end = start;
	int rc = 0;

	np_cpuset_clear(set);
	end += strcspn(end, "\n \t");
	if (!at_end(end) || end == start)
		return -EINVAL;
	/* Walk from the least significant digit; commas only between 8-digit groups. */
	unsigned bit = 0, group_digits = 0;
	for (const char *p = end; p-- > start;) {
		if (*p == ',') {
			if (group_digits != 8 || p == start) {
				rc = -EINVAL;
				goto fail;
			}
			group_digits = 0;
			continue;
		}
		/* A whole group of zeros at once: most of a large machine's mask. */
		if (group_digits == 0 && p - start >= 7 && !memcmp(p - 7, "00000000", 8)) {
			group_digits = 8;
			bit += 32;
			p -= 7;
			continue;
		}
		int v = hexval(*p);
		if (v < 0 || ++group_digits > 8) {
			rc = -EINVAL;
			goto fail;
		}
		/* A nibble at a multiple of 4 never straddles two words; most are 0
		 * (a 1024-CPU rps_cpus is 256 digits). */
		if (v) {
			if (bit + 31 - (unsigned)__builtin_clz((unsigned)v) > NP_CPUSET_MAX_CPU) {
				rc = -ERANGE;
				goto fail;
			}
			if ((rc = grow(set, bit / 64 + 1)))
				goto fail;
			set->bits[bit / 64] |= (uint64_t)v << (bit % 64);
		}
		bit += 4;
	}
	return 0;
fail:
	np_cpuset_clear(set);
	return rc;
}

/* The first CPU at or after from that is not in the set. */
static int next_clear(const struct np_cpuset *set, int from)
{
	for (size_t w = (size_t)from / 64; w < set->nwords; w++) {
		uint64_t clear = ~set->bits[w] & (w == (size_t)from / 64 ? ~UINT64_C(0) << (from % 64) : ~UINT64_C(0));
		if (clear)
			return (int)(w * 64) + __builtin_ctzll(clear);
	}
	return (int)(set->nwords * 64);
}

static size_t put_int(char *out, int n)
{
	char tmp[12];
	size_t len = 0;
	do
		tmp[len++] = (char)('0' + n % 10);
	while (n /= 10);
	for (size_t i = 0; i < len; i++)
		out[i] = tmp[len - 1 - i];
	return len;
}

/* Runs found a word at a time and numbers written without printf: every
 * IRQ's affinity of a 1024-CPU machine is "0-1023", in each report. */
size_t np_cpuset_print_list(const struct np_cpuset *set, char *buf, size_t size)
{
	size_t len = 0;
	bool fits = size > 0;
	for (int cpu = np_cpuset_next(set, 0); cpu >= 0;) {
		int last = next_clear(set, cpu) - 1;
		char run[24];
		size_t n = 0;
		if (len)
			run[n++] = ',';
		n += put_int(run + n, cpu);
		if (last != cpu) {
			run[n++] = '-';
			n += put_int(run + n, last);
		}
		fits = fits && len + n < size;
		if (fits)
			memcpy(buf + len, run, n);
		len += n;
		cpu = np_cpuset_next(set, last + 1);
	}
	if (fits)
		buf[len] = '\0';
	else if (size)
		buf[0] = '\0';
	return len;
}

char *np_cpuset_format_list(const struct np_cpuset *set)
{
	/* Measured on the stack first: most lists are short ("0-1023"). */
	char small[128];
	size_t len = np_cpuset_print_list(set, small, sizeof(small));
	char *out = malloc(len + 1);
	if (out && len < sizeof(small))
		memcpy(out, small, len + 1);
	else if (out)
		np_cpuset_print_list(set, out, len + 1);
	return out;
}

static size_t digits(int n)
{
	size_t d = 1;
	while (n >= 10)
		n /= 10, d++;
	return d;
}

char *np_cpuset_format_stride(const struct np_cpuset *set)
{
	/* The list form's worst case bounds this form too (never longer). */
	size_t cap = (size_t)np_cpuset_count(set) * 9 + 1, len = 0;
	char *out = malloc(cap);
	if (!out)
		return NULL;
	out[0] = '\0';
	int cpu = np_cpuset_next(set, 0);
	while (cpu >= 0) {
		const char *sep = len ? "," : "";
		int second = np_cpuset_next(set, cpu + 1);
		int step = second - cpu, last = second, n = 2;
		if (second < 0) {
			len += (size_t)snprintf(out + len, cap - len, "%s%d", sep, cpu);
			break;
		}
		/* The run from cpu at its first step, over consecutive members only. */
		for (int c = np_cpuset_next(set, last + 1); c >= 0 && c - last == step; c = np_cpuset_next(set, c + 1))
			last = c, n++;
		if (step == 1) {
			len += (size_t)snprintf(out + len, cap - len, "%s%d-%d", sep, cpu, last);
			cpu = np_cpuset_next(set, last + 1);
			continue;
		}
		if (np_cpuset_test(set, (unsigned)last + 1))
			last -= step, n--;
		size_t listed = 0;
		for (int c = cpu; c <= last; c += step)
			listed += digits(c) + 1;
		if (n >= 3 && digits(cpu) + digits(last) + digits(step) + 2 < listed - 1) {
			len += (size_t)snprintf(out + len, cap - len, "%s%d-%d:%d", sep, cpu, last, step);
			cpu = np_cpuset_next(set, last + 1);
		} else {
			len += (size_t)snprintf(out + len, cap - len, "%s%d", sep, cpu);
			cpu = second;
		}
	}
	return out;
}

char *np_cpuset_format_mask(const struct np_cpuset *set, unsigned ncpus)
{
	unsigned need = (unsigned)(np_cpuset_last(set) + 1);
	if (ncpus < need)
		ncpus = need;
	/* Like the kernel: one hex digit per 4 CPUs, commas every 8 digits from the right. */
	unsigned digits = ncpus ? (ncpus + 3) / 4 : 1;
	char *out = malloc(digits + digits / 8 + 1);
	if (!out)
		return NULL;
	char *p = out;
	for (unsigned d = digits; d-- > 0;) {
		unsigned v = (unsigned)(word_at(set, d / 16) >> (d % 16 * 4)) & 0xf;
		*p++ = "0123456789abcdef"[v];
		if (d && d % 8 == 0)
			*p++ = ',';
	}
	*p = '\0';
	return out;
}
