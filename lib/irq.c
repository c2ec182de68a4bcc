/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "irq.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <immintrin.h>
#endif

#include "attr.h"
#include "sysfs.h"

/* The kernel numbers IRQs below IRQ_BITMAP_BITS (NR_IRQS + 8196, about half a
 * million with MAXSMP): a row far beyond that is corruption, not a machine. */
#define IRQ_MAX (1 << 24)
/* A corrupt file of tens of MB could otherwise yield millions of warnings;
 * past this many, only a count of the rest is kept. */
#define MAX_WARNINGS 100

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool digit(char c)
{
	return c >= '0' && c <= '9';
}

static const char *skip_blanks(const char *p)
{
	while (blank(*p))
		p++;
	return p;
}

/* The same over a row of counts, which the kernel prints "%10u ": mostly
 * blanks, passed 8 at a time. end is the row's NUL. */
static const char *skip_count_blanks(const char *p, const char *end)
{
	uint64_t w;
	while (end - p >= 8 && (memcpy(&w, p, sizeof(w)), w == UINT64_C(0x2020202020202020)))
		p += 8;
	return skip_blanks(p);
}

#ifdef __SSE2__
/* Without -mpopcnt (the x86-64 baseline), __builtin_popcountll is a call
 * into libgcc's table walk: a fifth of this walk's cost. */
static unsigned popcount64(uint64_t x)
{
	x -= (x >> 1) & UINT64_C(0x5555555555555555);
	x = (x & UINT64_C(0x3333333333333333)) + ((x >> 2) & UINT64_C(0x3333333333333333));
	x = (x + (x >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
	return (unsigned)((x * UINT64_C(0x0101010101010101)) >> 56);
}

/* One 64-byte chunk at p, given which of its bytes are blanks and which are
 * '0': passes the zero counts that open it (at most max - *n). Returns false
 * when the walk must stop there. hw: the popcnt instruction may be used
 * (constant where this is inlined). A chunk of only zero counts moves p by
 * 63 whatever it held, so the next chunk's loads need not wait for this
 * one's arithmetic; its byte 63 (whose next byte is beyond it) is the next
 * chunk's first. */
static inline __attribute__((always_inline)) bool zero_chunk(const char **p, size_t *n, size_t max, uint64_t space,
							     uint64_t zero, bool hw)
{
	/* p[-1] is a blank or the row's ':', never part of a count. */
	uint64_t starts = ~space & ~(~space << 1);
	/* "0" then a blank (never byte 63), and the tokens that are not that. */
	uint64_t zeros = zero & starts & (space >> 1);
	uint64_t other = starts & ~zeros & ~(UINT64_C(1) << 63);
	uint64_t good = other ? zeros & ((other & (0 - other)) - 1) : zeros;
	size_t k = hw ? (size_t)__builtin_popcountll(good) : popcount64(good);
	if (!other && k <= max - *n) {
		*p += 63;
		*n += k;
		return true;
	}
	for (; k > max - *n; k--)
		good &= ~(UINT64_C(1) << (63 - __builtin_clzll(good)));
	if (k) {
		*p += 64 - __builtin_clzll(good);
		*n += k;
	}
	return false;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define NP_AVX2 1
/* The same 32 bytes a compare, where the CPU has AVX2 (chosen at run time:
 * the build targets the x86-64 baseline). */
__attribute__((target("avx2,popcnt"))) static size_t zero_counts_avx2(const char **pp, const char *end,
									size_t max)
{
	size_t n = 0;
	const char *p = *pp;
	const __m256i sp = _mm256_set1_epi8(' '), zero_ch = _mm256_set1_epi8('0');
	while (n < max && end - p > 64) {
		__m256i v0 = _mm256_loadu_si256((const __m256i *)(const void *)p),
			v1 = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32));
#define MASK(v, c) ((uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8((v), (c))))
		uint64_t space = MASK(v0, sp) | MASK(v1, sp) << 32;
		uint64_t zero = MASK(v0, zero_ch) | MASK(v1, zero_ch) << 32;
#undef MASK
		if (!zero_chunk(&p, &n, max, space, zero, true))
			break;
	}
	*pp = p;
	return n;
}
#endif
#endif

/* Most counts of a large machine's rows are 0 (a row is 1024 of them): runs
 * of zero counts are passed 64 bytes at a time, their tokens found with bit
 * masks rather than a byte at a time (walking the rows was a third of a
 * report's own time on 1024 CPUs). Passes at most max; returns how many, *pp
 * moved past them onto a blank. Anything else (a non-zero count, a tab,
 * junk) is left to the byte-wise parse. */
static size_t skip_zero_counts(const char **pp, const char *end, size_t max)
{
	size_t n = 0;
#ifdef __SSE2__
#ifdef NP_AVX2
	static int avx2 = -1;
	if (avx2 < 0)
		avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt");
	if (avx2)
		return zero_counts_avx2(pp, end, max);
#endif
	const char *p = *pp;
	const __m128i sp = _mm_set1_epi8(' '), zero_ch = _mm_set1_epi8('0');
	while (n < max && end - p > 64) {
		const __m128i *q = (const __m128i *)(const void *)p;
		__m128i v0 = _mm_loadu_si128(q), v1 = _mm_loadu_si128(q + 1), v2 = _mm_loadu_si128(q + 2),
			v3 = _mm_loadu_si128(q + 3);
#define MASK(v, c) ((uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8((v), (c))))
		uint64_t space = MASK(v0, sp) | MASK(v1, sp) << 16 | MASK(v2, sp) << 32 | MASK(v3, sp) << 48;
		uint64_t zero = MASK(v0, zero_ch) | MASK(v1, zero_ch) << 16 | MASK(v2, zero_ch) << 32 |
				MASK(v3, zero_ch) << 48;
#undef MASK
		if (!zero_chunk(&p, &n, max, space, zero, false))
			break;
	}
	*pp = p;
#else
	(void)pp, (void)end, (void)max;
#endif
	return n;
}

static const char *token_end(const char *p)
{
	while (*p && !blank(*p))
		p++;
	return p;
}

static int vwarn(struct np_irqs *out, size_t *dropped, const char *fmt, va_list ap)
{
	if (out->nwarnings >= MAX_WARNINGS) {
		(*dropped)++;
		return 0;
	}
	char **bigger = realloc(out->warnings, (out->nwarnings + 1) * sizeof(*bigger));
	if (!bigger)
		return -ENOMEM;
	out->warnings = bigger;
	if (vasprintf(&out->warnings[out->nwarnings], fmt, ap) < 0)
		return -ENOMEM;
	out->nwarnings++;
	return 0;
}

static int warn(struct np_irqs *out, size_t *dropped, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int warn(struct np_irqs *out, size_t *dropped, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = vwarn(out, dropped, fmt, ap);
	va_end(ap);
	return rc;
}

/* The summary goes past the cap on purpose: it is the only trace of the rest. */
static int warn_dropped(struct np_irqs *out, size_t dropped, const char *where, const char *what)
{
	if (!dropped)
		return 0;
	char **bigger = realloc(out->warnings, (out->nwarnings + 1) * sizeof(*bigger));
	if (!bigger)
		return -ENOMEM;
	out->warnings = bigger;
	if (asprintf(&out->warnings[out->nwarnings], "'%s': %zu more %s", where, dropped, what) < 0)
		return -ENOMEM;
	out->nwarnings++;
	return 0;
}

static void irq_free(struct np_irq *q)
{
	free(q->chip);
	free(q->hwirq);
	free(q->name);
	free(q->per_node);
	np_cpuset_free(&q->ran_on);
	np_cpuset_free(&q->affinity);
	np_cpuset_free(&q->effective);
}

void np_irqs_free(struct np_irqs *irqs)
{
	for (size_t i = 0; i < irqs->n; i++)
		irq_free(&irqs->v[i]);
	free(irqs->v);
	for (size_t i = 0; i < irqs->nwarnings; i++)
		free(irqs->warnings[i]);
	free(irqs->warnings);
	np_cpuset_free(&irqs->default_affinity);
	memset(irqs, 0, sizeof(*irqs));
}

struct np_irq *np_irqs_find(struct np_irqs *irqs, int irq)
{
	size_t lo = 0, hi = irqs->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (irqs->v[mid].irq == irq)
			return &irqs->v[mid];
		if (irqs->v[mid].irq < irq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* State of the one pass over /proc/interrupts. */
struct parser {
	struct np_ctx *ctx;
	const struct np_topology *topo;
	struct np_irqs *out;
	char path[PATH_MAX];     /* root + /proc/interrupts, for messages */
	size_t ncols;
	int *col_cpu;            /* CPU id of each header column */
	int *col_node;           /* node index of each column; nnodes when unknown */
	bool *col_quiet;         /* the column's CPU is isolated or nohz_full */
	unsigned long long quiet; /* one row's sum over quiet columns */
	unsigned long long *acc; /* one row's sums per node index, unknown last */
	uint64_t *ran;           /* one row's CPUs with a non-zero count */
	size_t nwords;
	size_t cap;
	size_t *lines;           /* input line of each out->v entry */
	size_t dropped;
	bool unsorted;
};

static void parser_free(struct parser *ps)
{
	free(ps->col_cpu);
	free(ps->col_node);
	free(ps->col_quiet);
	free(ps->acc);
	free(ps->ran);
	free(ps->lines);
}

static int node_index(const struct np_topology *topo, int cpu)
{
	int id = np_topology_node_of_cpu(topo, cpu);
	for (int i = 0; id >= 0 && i < topo->nnodes; i++)
		if (topo->nodes[i].id == id)
			return i;
	return topo->nnodes;
}

/* "CPUn" -> n; -1 when the token is anything else. */
static long header_cpu(const char *tok, size_t len)
{
	if (len < 4 || len > 11 || memcmp(tok, "CPU", 3))
		return -1;
	long v = 0;
	for (size_t i = 3; i < len; i++) {
		if (!digit(tok[i]))
			return -1;
		v = v * 10 + (tok[i] - '0');
	}
	return v > NP_CPUSET_MAX_CPU ? -1 : v;
}

static int parse_header(struct parser *ps, const char *line, size_t lineno)
{
	size_t n = 0;
	for (const char *p = skip_blanks(line); *p; p = skip_blanks(token_end(p)))
		n++;
	ps->col_cpu = malloc(n * sizeof(int));
	ps->col_node = malloc(n * sizeof(int));
	ps->col_quiet = malloc(n * sizeof(bool));
	ps->acc = malloc(((size_t)ps->topo->nnodes + 1) * sizeof(*ps->acc));
	if (!ps->col_cpu || !ps->col_node || !ps->col_quiet || !ps->acc)
		return -ENOMEM;

	struct np_cpuset seen = NP_CPUSET_INIT;
	long max = -1;
	int rc = 0;
	for (const char *p = skip_blanks(line); *p; p = skip_blanks(token_end(p))) {
		size_t len = (size_t)(token_end(p) - p);
		long cpu = header_cpu(p, len);
		char ex[28];
		if (cpu < 0) {
			rc = np_fail(ps->ctx, -EINVAL, "'%s' line %zu: header column '%s' is not CPUn",
				     ps->path, lineno, np_excerpt_n(p, len, ex, sizeof(ex)));
			break;
		}
		if (np_cpuset_test(&seen, (unsigned)cpu)) {
			rc = np_fail(ps->ctx, -EINVAL, "'%s' line %zu: CPU%ld appears twice in the header",
				     ps->path, lineno, cpu);
			break;
		}
		if ((rc = np_cpuset_set(&seen, (unsigned)cpu)))
			break;
		ps->col_cpu[ps->ncols] = (int)cpu;
		ps->col_node[ps->ncols] = node_index(ps->topo, (int)cpu);
		ps->col_quiet[ps->ncols] = np_cpuset_test(&ps->topo->isolated, (unsigned)cpu) ||
					   np_cpuset_test(&ps->topo->nohz_full, (unsigned)cpu);
		ps->ncols++;
		if (cpu > max)
			max = cpu;
	}
	np_cpuset_free(&seen);
	if (rc)
		return rc;
	if (!ps->ncols)
		return np_fail(ps->ctx, -EINVAL, "'%s' line %zu: header names no CPU", ps->path, lineno);
	ps->nwords = (size_t)max / 64 + 1;
	ps->ran = malloc(ps->nwords * sizeof(*ps->ran));
	return ps->ran ? 0 : -ENOMEM;
}

/* "2-edge", "-edge" (no irq domain), "11534336-edge" (old PCI-MSI): optional
 * digits, '-', then the flow handler's name. */
static bool dash_hwirq(const char *tok, size_t len)
{
	size_t i = 0;
	while (i < len && digit(tok[i]))
		i++;
	if (i + 1 >= len || tok[i] != '-' || !isalpha((unsigned char)tok[i + 1]))
		return false;
	for (i += 2; i < len; i++)
		if (!isalnum((unsigned char)tok[i]) && tok[i] != '_')
			return false;
	return true;
}

static bool level_word(const char *tok, size_t len)
{
	return (len >= 4 && !memcmp(tok, "Edge", 4) && (len == 4 || tok[4] == '-')) ||
	       (len >= 5 && !memcmp(tok, "Level", 5) && (len == 5 || tok[5] == '-'));
}

static bool all_digits(const char *tok, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!digit(tok[i]))
			return false;
	return len > 0;
}

/* Splits "CHIP HWIRQ NAMES" after the counts. The hwirq is recognised by its
 * shape, since old kernels ("IO-APIC-edge  timer") and arm64 ("GICv3  27
 * Level  arch_timer") print it differently or not at all. */
static int split_tail(const char *p, struct np_irq *q)
{
	p = skip_blanks(p);
	if (*p) {
		const char *e = token_end(p);
		if (!(q->chip = strndup(p, (size_t)(e - p))))
			return -ENOMEM;
		p = skip_blanks(e);
	}
	const char *h = p, *e = token_end(p);
	size_t len = (size_t)(e - h);
	if (len && (dash_hwirq(h, len) || level_word(h, len) || all_digits(h, len))) {
		p = skip_blanks(e);
		if (all_digits(h, len)) {
			/* arm64 prints the trigger as its own word: keep "27 Level" together. */
			const char *e2 = token_end(p);
			if (level_word(p, (size_t)(e2 - p))) {
				e = e2;
				p = skip_blanks(e2);
			}
		}
		if (!(q->hwirq = strndup(h, (size_t)(e - h))))
			return -ENOMEM;
	}
	q->name = strdup(p);
	return q->name ? 0 : -ENOMEM;
}

static int grow_rows(struct parser *ps)
{
	if (ps->out->n < ps->cap)
		return 0;
	size_t cap = ps->cap ? ps->cap * 2 : 256;
	struct np_irq *v = realloc(ps->out->v, cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	ps->out->v = v;
	size_t *lines = realloc(ps->lines, cap * sizeof(*lines));
	if (!lines)
		return -ENOMEM;
	ps->lines = lines;
	ps->cap = cap;
	return 0;
}

static bool has_control(const char *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (((unsigned char)p[i] < 0x20 && p[i] != '\t') || p[i] == 0x7f)
			return true;
	return false;
}

/* Control bytes are looked for only once a row has failed (and in its short
 * tail), so 10 KB rows of counts are not walked twice: junk anywhere in the
 * counts makes them fail first, and is then named for what it is. */
static int skip_row(struct parser *ps, const char *line, size_t len, size_t lineno, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static int skip_row(struct parser *ps, const char *line, size_t len, size_t lineno, const char *fmt, ...)
{
	char reason[160];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	return warn(ps->out, &ps->dropped, "'%s' line %zu: %s", ps->path, lineno,
		    has_control(line, len) ? "binary content" : reason);
}

#define SKIP(fmt, ...) return skip_row(ps, line, len, lineno, fmt, ##__VA_ARGS__)

/* One numbered row. Everything is checked before anything is kept, so a
 * malformed row leaves no count behind. Returns 0 (kept or skipped) or -ENOMEM. */
static int parse_row(struct parser *ps, char *line, size_t len, size_t lineno)
{
	const struct np_topology *topo = ps->topo;
	char ex[28];

	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r' || blank(line[len - 1])))
		len--;
	line[len] = '\0';
	if (memchr(line, '\0', len))
		SKIP("binary content");
	const char *p = skip_blanks(line);
	if (!*p)
		return 0;
	if (isalpha((unsigned char)*p)) {
		const char *q = p;
		while (isalnum((unsigned char)*q) || *q == '_' || *q == '-' || *q == '/')
			q++;
		if (*q == ':')
			return 0; /* NMI:, LOC:, IPI0:, ...: not a device's IRQ */
		SKIP("not an interrupt row: '%s'",
		     np_excerpt(p, ex, sizeof(ex)));
	}
	if (*p == '-' && digit(p[1]))
		SKIP("negative IRQ number");
	if (!digit(*p))
		SKIP("not an interrupt row: '%s'", np_excerpt(p, ex, sizeof(ex)));
	long irq = 0;
	bool huge = false;
	for (; digit(*p); p++) {
		irq = irq * 10 + (*p - '0');
		if (irq > IRQ_MAX) {
			huge = true;
			irq = IRQ_MAX;
		}
	}
	if (*p != ':')
		SKIP("no ':' after the IRQ number");
	if (huge)
		SKIP("IRQ number out of range");
	p++;

	memset(ps->acc, 0, ((size_t)topo->nnodes + 1) * sizeof(*ps->acc));
	memset(ps->ran, 0, ps->nwords * sizeof(*ps->ran));
	unsigned long long total = 0;
	bool any = false;
	ps->quiet = 0;
	const char *end = line + len;
	for (size_t c = 0; c < ps->ncols; c++) {
		if ((c += skip_zero_counts(&p, end, ps->ncols - c)) == ps->ncols)
			break;
		p = skip_count_blanks(p, end);
		/* Most counts are 0, in a row of thousands. */
		if (*p == '0' && (blank(p[1]) || !p[1])) {
			p++;
			continue;
		}
		if (!digit(*p))
			SKIP("%zu counts for %zu CPU columns", c, ps->ncols);
		const char *start = p;
		unsigned long long v = 0;
		bool over = false;
		while (digit(*p))
			v = v * 10 + (unsigned)(*p++ - '0');
		/* Up to 19 digits always fit; only longer ones need checking. */
		if (p - start > 19) {
			v = 0;
			/* Two statements: the operands of | are unsequenced, and both write v. */
			for (const char *d = start; d < p; d++) {
				over = over || __builtin_mul_overflow(v, 10, &v);
				over = over || __builtin_add_overflow(v, (unsigned)(*d - '0'), &v);
			}
		}
		if (*p && !blank(*p))
			SKIP("malformed count '%s'",
			     np_excerpt_n(start, (size_t)(token_end(p) - start), ex, sizeof(ex)));
		if (over)
			SKIP("count too large for 64 bits in CPU%d's column",
			     ps->col_cpu[c]);
		if (!v)
			continue;
		/* No node's sum can overflow when the total does not. */
		if (__builtin_add_overflow(total, v, &total))
			SKIP("counts add up past 64 bits");
		ps->acc[ps->col_node[c]] += v;
		if (ps->col_quiet[c])
			ps->quiet += v;
		ps->ran[ps->col_cpu[c] / 64] |= UINT64_C(1) << (ps->col_cpu[c] % 64);
		any = true;
	}
	p = skip_blanks(p);
	if (all_digits(p, (size_t)(token_end(p) - p)))
		SKIP("more counts than the %zu CPU columns", ps->ncols);
	if (has_control(p, len - (size_t)(p - line)))
		SKIP("binary content");

	struct np_irqs *out = ps->out;
	if (out->n && out->v[out->n - 1].irq == irq)
		SKIP("IRQ %ld again (first on line %zu)", irq, ps->lines[out->n - 1]);
	if (out->n && out->v[out->n - 1].irq > irq)
		ps->unsorted = true;
	if (grow_rows(ps))
		return -ENOMEM;
	struct np_irq *q = &out->v[out->n];
	memset(q, 0, sizeof(*q));
	q->irq = (int)irq;
	q->total = total;
	q->unknown_node = ps->acc[topo->nnodes];
	q->quiet = ps->quiet;
	q->dev = -1;
	q->queue = -1;
	q->per_node = malloc((topo->nnodes ? (size_t)topo->nnodes : 1) * sizeof(*q->per_node));
	int rc = q->per_node ? split_tail(p, q) : -ENOMEM;
	if (!rc && any) {
		q->ran_on.bits = malloc(ps->nwords * sizeof(*q->ran_on.bits));
		if (q->ran_on.bits) {
			memcpy(q->ran_on.bits, ps->ran, ps->nwords * sizeof(*q->ran_on.bits));
			q->ran_on.nwords = ps->nwords;
		} else {
			rc = -ENOMEM;
		}
	}
	if (rc) {
		irq_free(q);
		return rc;
	}
	memcpy(q->per_node, ps->acc, (size_t)topo->nnodes * sizeof(*q->per_node));
	ps->lines[out->n++] = lineno;
	return 0;
}

#undef SKIP

struct order {
	int irq;
	size_t line, at;
};

static int by_irq_then_line(const void *a, const void *b)
{
	const struct order *x = a, *y = b;
	if (x->irq != y->irq)
		return x->irq < y->irq ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* Rows out of order are rare, so their duplicates are only found here. */
static int sort_rows(struct parser *ps)
{
	struct np_irqs *out = ps->out;
	struct order *ord = malloc(out->n * sizeof(*ord));
	struct np_irq *v = malloc(out->n * sizeof(*v));
	if (!ord || !v) {
		free(ord);
		free(v);
		return -ENOMEM;
	}
	for (size_t i = 0; i < out->n; i++)
		ord[i] = (struct order){ out->v[i].irq, ps->lines[i], i };
	qsort(ord, out->n, sizeof(*ord), by_irq_then_line);
	size_t n = 0, kept_line = 0;
	int rc = 0;
	for (size_t i = 0; i < out->n; i++) {
		struct np_irq *q = &out->v[ord[i].at];
		if (n && v[n - 1].irq == q->irq) {
			if (!rc)
				rc = warn(out, &ps->dropped, "'%s' line %zu: IRQ %d again (first on line %zu)",
					  ps->path, ord[i].line, q->irq, kept_line);
			irq_free(q);
			continue;
		}
		kept_line = ord[i].line;
		v[n++] = *q;
	}
	free(ord);
	free(out->v);
	out->v = v;
	out->n = n;
	return rc;
}

/* Far past 4000 IRQs on 1024 CPUs (46 MB); 65536 CPUs of 11-digit counts
 * make a line of 720 KB. */
#define NP_INTERRUPTS_MAX_BYTES ((size_t)1 << 30)
#define NP_INTERRUPTS_MAX_LINE ((size_t)4 << 20)

/* Parses an open /proc/interrupts (path: for messages) and closes it. */
static int read_counts(struct np_ctx *ctx, const struct np_topology *topo, FILE *f, const char *path,
		       struct np_irqs *out)
{
	struct parser ps = { .ctx = ctx, .topo = topo, .out = out };
	snprintf(ps.path, sizeof(ps.path), "%s", path);
	int rc = 0;
	char *line = NULL;
	size_t linecap = 0, lineno = 0;
	ssize_t len;
	bool header = false;
	errno = 0;
	while ((len = getline(&line, &linecap, f)) >= 0) {
		lineno++;
		if (header) {
			if ((rc = parse_row(&ps, line, (size_t)len, lineno)))
				break;
			continue;
		}
		const char *p = skip_blanks(line);
		if (*p == '\n' || *p == '\r' || !*p)
			continue;
		if (strncmp(p, "CPU", 3)) {
			rc = np_fail(ctx, -EINVAL, "'%s': no header line of CPU columns (line %zu comes first)",
				     ps.path, lineno);
			break;
		}
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (memchr(line, '\0', (size_t)len)) {
			rc = np_fail(ctx, -EINVAL, "'%s' line %zu: binary content in the header", ps.path, lineno);
			break;
		}
		if ((rc = parse_header(&ps, line, lineno)))
			break;
		header = true;
	}
	if (!rc && ferror(f)) {
		char total[32], longest[32];
		int err = errno ? errno : EIO;
		if (err == EFBIG)
			rc = np_fail(ctx, -EFBIG, "'%s' is larger than %s or has a line longer than %s; "
				     "refusing it", ps.path,
				     np_size_name(NP_INTERRUPTS_MAX_BYTES, total, sizeof(total)),
				     np_size_name(NP_INTERRUPTS_MAX_LINE, longest, sizeof(longest)));
		else
			rc = np_fail(ctx, -err, "cannot read '%s': %s", ps.path, strerror(err));
	}
	free(line);
	fclose(f);
	if (!rc && !header)
		rc = np_fail(ctx, -EINVAL, "'%s': no header line of CPU columns", ps.path);
	if (!rc && ps.unsorted)
		rc = sort_rows(&ps);
	if (!rc)
		rc = warn_dropped(out, ps.dropped, ps.path, "malformed lines skipped");
	parser_free(&ps);
	if (rc == -ENOMEM)
		np_fail(ctx, rc, "reading '%s': %s", ps.path, strerror(ENOMEM));
	if (rc)
		np_irqs_free(out);
	return rc;
}

int np_irqs_read_counts(struct np_ctx *ctx, const struct np_topology *topo, struct np_irqs *out)
{
	char path[PATH_MAX];
	memset(out, 0, sizeof(*out));
	int rc = np_sysfs_path(ctx, path, "/proc/interrupts");
	if (rc)
		return rc;
	FILE *f = np_fopen(ctx, &rc, NP_INTERRUPTS_MAX_BYTES, NP_INTERRUPTS_MAX_LINE, "/proc/interrupts");
	return f ? read_counts(ctx, topo, f, path, out) : rc;
}

/* A copy given by the user, not a file of the machine: not under --root,
 * but read with the same bounds (a FIFO or /dev/zero named by mistake is
 * refused, not waited on or read forever). */
int np_irqs_read_counts_file(struct np_ctx *ctx, const struct np_topology *topo, const char *path,
			     struct np_irqs *out)
{
	int rc;
	memset(out, 0, sizeof(*out));
	FILE *f = np_fopen_user(ctx, &rc, NP_INTERRUPTS_MAX_BYTES, NP_INTERRUPTS_MAX_LINE, path);
	return f ? read_counts(ctx, topo, f, path, out) : rc;
}

/* The text in memory: fmemopen gives the same stream the files give, so
 * one parser serves all three (and the fuzz harness). */
int np_irqs_parse_counts(struct np_ctx *ctx, const struct np_topology *topo, const char *name,
			 const char *text, size_t len, struct np_irqs *out)
{
	memset(out, 0, sizeof(*out));
	FILE *f = fmemopen((void *)text, len, "r");
	if (!f) {
		int err = errno;
		return np_fail(ctx, -err, "cannot read '%s': %s", name, strerror(err));
	}
	return read_counts(ctx, topo, f, name, out);
}

int np_irqs_delta(struct np_irqs *before, struct np_irqs *after, const struct np_topology *topo)
{
	int nnodes = topo->nnodes;
	for (size_t i = 0; i < before->n; i++) {
		struct np_irq *irq = &before->v[i];
		const struct np_irq *later = np_irqs_find(after, irq->irq);
		/* An IRQ freed in between, or reused (counts went down), ran nothing we can measure. */
		bool same = later && later->total >= irq->total;
		irq->total = same ? later->total - irq->total : 0;
		irq->unknown_node = same && later->unknown_node >= irq->unknown_node ? later->unknown_node - irq->unknown_node : 0;
		irq->quiet = same && later->quiet >= irq->quiet ? later->quiet - irq->quiet : 0;
		for (int n = 0; n < nnodes; n++)
			irq->per_node[n] = same && later->per_node[n] >= irq->per_node[n] ? later->per_node[n] - irq->per_node[n] : 0;
		/* Per-CPU counts are not kept: of the CPUs that ever ran it, those of
		 * the nodes that ran it in between. */
		np_cpuset_clear(&irq->ran_on);
		int rc = same && irq->total ? np_cpuset_copy(&irq->ran_on, &later->ran_on) : 0;
		if (rc)
			return rc;
		np_cpuset_foreach(cpu, &later->ran_on) {
			int n = node_index(topo, cpu);
			if (n >= nnodes || !irq->per_node[n])
				np_cpuset_unset(&irq->ran_on, (unsigned)cpu);
		}
	}
	return 0;
}

/* FILE_list (a CPU list), else FILE (a hex mask, on kernels without the
 * list form). Absent is not an error; unreadable or malformed is a warning. */
static int read_affinity(struct np_ctx *ctx, struct np_irqs *out, size_t *dropped, int irq,
			 const char *file, struct np_cpuset *set, bool *has)
{
	int rc = np_read_cpulist(ctx, set, "/proc/irq/%d/%s_list", irq, file);
	if (rc == -ENOENT)
		rc = np_read_cpumask(ctx, set, "/proc/irq/%d/%s", irq, file);
	*has = rc == 0;
	if (rc == 0 || rc == -ENOENT)
		return 0;
	np_cpuset_free(set);
	return rc == -ENOMEM ? rc : warn(out, dropped, "%s", ctx->err);
}

/* The flag as a whole word, not a prefix of a longer one. */
static bool has_flag(const char *text, const char *flag)
{
	size_t len = strlen(flag);
	for (const char *p = text; (p = strstr(p, flag)); p++) {
		char after = p[len];
		if ((p == text || (!isalnum((unsigned char)p[-1]) && p[-1] != '_')) &&
		    !isalnum((unsigned char)after) && after != '_')
			return true;
	}
	return false;
}

/* A mask file (lists exist only per IRQ). Absent (old kernels, roots that
 * lack it) leaves it unknown; unreadable or malformed is a warning. */
static int read_default_affinity(struct np_ctx *ctx, struct np_irqs *out, size_t *dropped)
{
	int rc = np_read_cpumask(ctx, &out->default_affinity, "%s", np_attrs[NP_ATTR_DEFAULT_IRQ_AFFINITY].path);
	out->has_default_affinity = rc == 0;
	if (rc == 0 || rc == -ENOENT)
		return 0;
	np_cpuset_free(&out->default_affinity);
	return rc == -ENOMEM ? rc : warn(out, dropped, "%s", ctx->err);
}

int np_irqs_read(struct np_ctx *ctx, const struct np_topology *topo, struct np_irqs *out)
{
	int rc = np_irqs_read_counts(ctx, topo, out);
	if (rc)
		return rc;
	size_t dropped = 0;
	out->debugfs = np_sysfs_exists(ctx, "/sys/kernel/debug/irq/irqs");
	for (size_t i = 0; i < out->n && !rc; i++) {
		struct np_irq *q = &out->v[i];
		rc = read_affinity(ctx, out, &dropped, q->irq, "smp_affinity", &q->affinity, &q->has_affinity);
		if (!rc)
			rc = read_affinity(ctx, out, &dropped, q->irq, "effective_affinity", &q->effective,
					   &q->has_effective);
		q->managed_unknown = true;
		if (rc || !out->debugfs)
			continue;
		char *text;
		int r = np_read_text(ctx, &text, "/sys/kernel/debug/irq/irqs/%d", q->irq);
		if (r == 0) {
			q->managed = has_flag(text, "IRQD_AFFINITY_MANAGED") ? NP_MANAGED_YES : NP_MANAGED_NO;
			q->managed_unknown = false;
			free(text);
		} else if (r == -ENOMEM) {
			rc = r;
		} else if (r == -EACCES || r == -EPERM) {
			/* Seen but not readable (lockdown): the managed state is not known after all. */
			out->debugfs = false;
			for (size_t j = 0; j < i; j++) {
				out->v[j].managed = NP_MANAGED_NO;
				out->v[j].managed_unknown = true;
			}
			rc = warn(out, &dropped, "%s", ctx->err);
		} else if (r != -ENOENT) {
			rc = warn(out, &dropped, "%s", ctx->err);
		}
	}
	if (!rc)
		rc = read_default_affinity(ctx, out, &dropped);
	char where[PATH_MAX];
	if (!rc && dropped && !(rc = np_sysfs_path(ctx, where, "/proc/irq")))
		rc = warn_dropped(out, dropped, where, "unreadable or malformed IRQ files skipped");
	if (rc) {
		if (rc == -ENOMEM)
			np_fail(ctx, rc, "reading /proc/irq: %s", strerror(ENOMEM));
		np_irqs_free(out);
	}
	return rc;
}

/* An ASCII PCI address "DDDD:BB:DD.F" at s, not inside a longer hex run. */
static bool pci_addr_at(const char *text, const char *s)
{
	static const char shape[] = "xxxx:xx:xx.f";
	if (s > text && isxdigit((unsigned char)s[-1]))
		return false;
	for (size_t i = 0; i < sizeof(shape) - 1; i++) {
		unsigned char c = (unsigned char)s[i];
		if (shape[i] == 'x' ? !isxdigit(c) : shape[i] == 'f' ? c < '0' || c > '7' : c != shape[i])
			return false;
	}
	return !isxdigit((unsigned char)s[sizeof(shape) - 1]);
}

/* Index of a known device whose full address appears in text, -1 when none. */
static int dev_by_addr_in(const struct np_pci *pci, const char *text)
{
	if (!text)
		return -1;
	for (const char *p = text; (p = strchr(p, ':')); p++) {
		if (p - text < 4 || !pci_addr_at(text, p - 4))
			continue;
		for (size_t d = 0; d < pci->ndevs; d++)
			if (!strncasecmp(pci->devs[d].addr, p - 4, NP_PCI_ADDR_LEN - 1))
				return (int)d;
	}
	return -1;
}

/* word as a whole token of name: "virtio1" is not in "virtio12-input.0",
 * "eth1" not in "eth10-TxRx-0"; an NVMe controller is also followed by the
 * 'q' of its queue ("nvme0q3"). */
static bool has_token(const char *name, const char *word)
{
	size_t len = strlen(word);
	if (!name || !len)
		return false;
	bool nvme = !strncmp(word, "nvme", 4);
	for (const char *p = name; (p = strstr(p, word)); p++) {
		if (p > name && isalnum((unsigned char)p[-1]))
			continue;
		unsigned char after = (unsigned char)p[len];
		if (!isalnum(after) || (nvme && after == 'q' && digit(p[len + 1])))
			return true;
	}
	return false;
}

/* The device whose interface or controller name is in the action name; the
 * longest name wins, so a more specific one is preferred. */
static int dev_by_alias(const struct np_pci *pci, const char *name)
{
	int best = -1;
	size_t best_len = 0;
	for (size_t d = 0; d < pci->ndevs; d++) {
		const struct np_pci_dev *dev = &pci->devs[d];
		for (size_t j = 0; j < dev->nnet; j++) {
			const char *w = dev->net[j].name;
			if (w && strlen(w) > best_len && has_token(name, w))
				best = (int)d, best_len = strlen(w);
		}
		for (size_t j = 0; j < dev->naliases; j++) {
			const char *w = dev->aliases[j];
			if (w && strlen(w) > best_len && has_token(name, w))
				best = (int)d, best_len = strlen(w);
		}
	}
	return best;
}

/* INTx lines are shared, so several functions can report the same irq: the
 * one whose driver named the action wins, then one not using MSI at all. */
static int dev_by_legacy(const struct np_pci *pci, const struct np_irq *q)
{
	int first = -1, no_msi = -1;
	for (size_t d = 0; d < pci->ndevs; d++) {
		const struct np_pci_dev *dev = &pci->devs[d];
		if (dev->legacy_irq <= 0 || dev->legacy_irq != q->irq)
			continue;
		if (dev->driver && *dev->driver && has_token(q->name, dev->driver))
			return (int)d;
		if (first < 0)
			first = (int)d;
		if (no_msi < 0 && !dev->nmsi)
			no_msi = (int)d;
	}
	return no_msi >= 0 ? no_msi : first;
}

static bool managed_driver(const char *drv)
{
	static const char *const known[] = {
		"nvme", "virtio_blk", "virtio-blk", "virtio_scsi", "megaraid_sas", "mpt3sas", "smartpqi",
	};
	for (size_t i = 0; drv && i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(drv, known[i]))
			return true;
	return false;
}

/* blk-mq maps each hardware queue to the CPUs of its vector's managed
 * affinity (blk_mq_pci_map_queues): where a device's block device has two
 * or more hardware queues and each one's cpu_list is the affinity of exactly
 * one of the device's IRQs, those IRQs are managed, whatever the driver. */
static void infer_from_blk_mq(struct np_irqs *irqs, const struct np_pci *pci)
{
	size_t *mine = malloc((irqs->n + 1) * sizeof(*mine)), *match = NULL;
	for (size_t d = 0; mine && d < pci->ndevs; d++) {
		size_t n = 0;
		for (size_t i = 0; i < irqs->n; i++)
			if (irqs->v[i].dev == (int)d && irqs->v[i].has_affinity)
				mine[n++] = i;
		for (size_t b = 0; n && b < pci->devs[d].nblock; b++) {
			const struct np_blockdev *bd = &pci->devs[d].block[b];
			size_t nhwq = bd->nhwq > 0 ? (size_t)bd->nhwq : 0, h = 0;
			size_t *bigger = nhwq >= 2 ? realloc(match, nhwq * sizeof(*match)) : NULL;
			if (!bigger)
				continue;
			match = bigger;
			for (; h < nhwq; h++) {
				size_t found = 0;
				for (size_t k = 0; k < n && found < 2; k++)
					if (np_cpuset_equal(&irqs->v[mine[k]].affinity, &bd->hwq_cpus[h]))
						match[h] = mine[k], found++;
				if (found != 1)
					break;
			}
			for (size_t k = 0; h == nhwq && k < nhwq; k++) {
				struct np_irq *q = &irqs->v[match[k]];
				if (q->managed_unknown) {
					q->managed = NP_MANAGED_INFERRED;
					q->managed_unknown = false;
				}
			}
		}
	}
	free(match);
	free(mine);
}

void np_irqs_tie(struct np_irqs *irqs, const struct np_pci *pci)
{
	for (size_t i = 0; i < irqs->n; i++) {
		struct np_irq *q = &irqs->v[i];
		q->dev = -1;
		q->tie = NP_TIE_NONE;
		q->queue = np_irq_queue_from_name(q->name);
		if (q->managed == NP_MANAGED_INFERRED)
			q->managed = NP_MANAGED_NO;
	}
	/* msi_irqs first, by lookup, so the cost follows the vectors, not IRQs x devices. */
	for (size_t d = 0; d < pci->ndevs; d++) {
		for (size_t j = 0; j < pci->devs[d].nmsi; j++) {
			struct np_irq *q = np_irqs_find(irqs, pci->devs[d].msi_irqs[j]);
			if (q && q->dev < 0) {
				q->dev = (int)d;
				q->tie = NP_TIE_MSI_IRQS;
			}
		}
	}
	for (size_t i = 0; i < irqs->n; i++) {
		struct np_irq *q = &irqs->v[i];
		int d;
		if (q->dev >= 0)
			continue;
		if ((d = dev_by_addr_in(pci, q->chip)) >= 0)
			q->tie = NP_TIE_CHIP;
		else if ((d = dev_by_addr_in(pci, q->name)) >= 0)
			q->tie = NP_TIE_NAME_ADDR;
		else if (q->name && (d = dev_by_alias(pci, q->name)) >= 0)
			q->tie = NP_TIE_NAME_ALIAS;
		else if (!(q->chip && strstr(q->chip, "MSI")) && (d = dev_by_legacy(pci, q)) >= 0)
			q->tie = NP_TIE_LEGACY;
		q->dev = d;
	}
	if (irqs->debugfs)
		return;
	for (size_t i = 0; i < irqs->n; i++) {
		struct np_irq *q = &irqs->v[i];
		if (q->dev < 0 || q->queue < 0 || q->managed != NP_MANAGED_NO)
			continue;
		const struct np_pci_dev *dev = &pci->devs[q->dev];
		if (managed_driver(dev->driver) || managed_driver(dev->child_driver)) {
			q->managed = NP_MANAGED_INFERRED;
			q->managed_unknown = false;
		}
	}
	infer_from_blk_mq(irqs, pci);
}

int np_irq_queue_from_name(const char *name)
{
	if (!name)
		return -1;
	/* "mlx5_comp3@pci:0000:af:00.0": the part after '@' is the device. */
	const char *end = strchr(name, '@');
	if (!end)
		end = name + strlen(name);
	const char *d = end;
	while (d > name && digit(d[-1]))
		d--;
	if (d == end || end - d > 9)
		return -1;
	int v = 0;
	for (const char *p = d; p < end; p++)
		v = v * 10 + (*p - '0');

	/* nvmeNqM; q0 is the admin queue. */
	if (!strncmp(name, "nvme", 4)) {
		const char *p = name + 4;
		while (p < d && digit(*p))
			p++;
		if (p > name + 4 && p + 1 == d && *p == 'q')
			return v ? v : -1;
	}
	size_t pre = (size_t)(d - name);
	if (pre >= 4 && (!memcmp(d - 4, "msix", 4) || !memcmp(d - 4, "comp", 4)))
		return v;
	if (pre && (d[-1] == '-' || d[-1] == '.')) {
		/* The function number of a PCI address ("ice-0000:4b:00.0") is no queue. */
		if (d[-1] == '.' && pre >= 11 && pci_addr_at(name, d - 11))
			return -1;
		return v;
	}
	return -1;
}
