/* SPDX-License-Identifier: GPL-2.0-or-later */
/* /proc/interrupts: the one streaming pass that turns its rows into each
 * IRQ's counts per node (np_irqs_read_counts and its file and text forms),
 * the difference of two passes, and the np_irqs container itself. Each
 * IRQ's /proc/irq and debugfs state is lib/read/irq.c's. */
#include "read/irq.h"

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

#include "read/irq-warnings.h"
#include "read/sysfs.h"

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
	size_t k = hw ? (size_t)__builtin_popcountll(good) : np_popcount64(good);
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

/* A run of zero counts as the kernel prints them: " %10u" a CPU (before
 * 6.18's change of spacing, "%10u "), so that from just after the row's
 * ':' or after a count, each zero is ten blanks then "0". 32 of them are
 * compared at once (memcmp compares 32 bytes a few instructions) before
 * the walk above looks at what is left: most of a 1024-CPU row. */
#define ZERO_COUNT "          0"
#define ZERO_COUNTS4 ZERO_COUNT ZERO_COUNT ZERO_COUNT ZERO_COUNT
#define ZERO_COUNTS16 ZERO_COUNTS4 ZERO_COUNTS4 ZERO_COUNTS4 ZERO_COUNTS4
static const char zero_run[] = ZERO_COUNTS16 ZERO_COUNTS16;
#define ZERO_RUN_COUNTS 32
#define ZERO_RUN_BYTES (sizeof(zero_run) - 1)

/* Passes whole runs of zero counts at p (at most max counts), which must be
 * followed by a blank or the row's end; returns how many counts. */
static size_t skip_zero_runs(const char **pp, const char *end, size_t max)
{
	const char *p = *pp;
	size_t n = 0;
	while (max - n >= ZERO_RUN_COUNTS && (size_t)(end - p) >= ZERO_RUN_BYTES &&
	       !memcmp(p, zero_run, ZERO_RUN_BYTES) && (blank(p[ZERO_RUN_BYTES]) || !p[ZERO_RUN_BYTES])) {
		p += ZERO_RUN_BYTES;
		n += ZERO_RUN_COUNTS;
	}
	*pp = p;
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

int np_irqs_warn(struct np_irqs *out, size_t *dropped, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = vwarn(out, dropped, fmt, ap);
	va_end(ap);
	return rc;
}

/* The summary goes past the cap on purpose: it is the only trace of the rest. */
int np_irqs_warn_dropped(struct np_irqs *out, size_t dropped, const char *where, const char *what)
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
	np_cpuset_free(&irqs->columns);
	free(irqs->dev_start);
	free(irqs->of_dev);
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
	/* A second grouping of the same columns into nodes, counted in the same
	 * pass (np_irqs_read_counts_split), or none. */
	const struct np_topology *topo2;
	struct np_irqs *out2;
	int *col_node2;
	unsigned long long *acc2;
};

static void parser_free(struct parser *ps)
{
	free(ps->col_cpu);
	free(ps->col_node);
	free(ps->col_quiet);
	free(ps->acc);
	free(ps->ran);
	free(ps->lines);
	free(ps->col_node2);
	free(ps->acc2);
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
	if (ps->topo2) {
		ps->col_node2 = malloc(n * sizeof(int));
		ps->acc2 = malloc(((size_t)ps->topo2->nnodes + 1) * sizeof(*ps->acc2));
		if (!ps->col_node2 || !ps->acc2)
			return -ENOMEM;
	}

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
		if (ps->topo2)
			ps->col_node2[ps->ncols] = node_index(ps->topo2, (int)cpu);
		ps->col_quiet[ps->ncols] = np_cpuset_test(&ps->topo->isolated, (unsigned)cpu) ||
					   np_cpuset_test(&ps->topo->nohz_full, (unsigned)cpu);
		ps->ncols++;
		if (cpu > max)
			max = cpu;
	}
	/* Kept: a copy pasted from elsewhere is checked against the root's CPUs. */
	np_cpuset_free(&ps->out->columns);
	ps->out->columns = seen;
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
	if (ps->out2) {
		if (!(v = realloc(ps->out2->v, cap * sizeof(*v))))
			return -ENOMEM;
		ps->out2->v = v;
	}
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
	return np_irqs_warn(ps->out, &ps->dropped, "'%s' line %zu: %s", ps->path, lineno,
		    has_control(line, len) ? "binary content" : reason);
}

#define SKIP(fmt, ...) return skip_row(ps, line, len, lineno, fmt, ##__VA_ARGS__)

/* One numbered row. Everything is checked before anything is kept, so a
 * malformed row leaves no count behind. Returns 0 (kept or skipped) or -ENOMEM. */
/* Row q as the second grouping counts it: counts only (no chip, hwirq or
 * name), at the same index in ps->out2 as q in ps->out. */
static int add_row2(struct parser *ps, const struct np_irq *q)
{
	size_t n2 = (size_t)ps->topo2->nnodes;
	struct np_irq *r = &ps->out2->v[ps->out2->n];
	memset(r, 0, sizeof(*r));
	r->irq = q->irq;
	r->total = q->total;
	r->quiet = q->quiet;
	r->unknown_node = ps->acc2[n2];
	r->dev = -1;
	r->queue = -1;
	if (!(r->per_node = malloc((n2 ? n2 : 1) * sizeof(*r->per_node))))
		return -ENOMEM;
	memcpy(r->per_node, ps->acc2, n2 * sizeof(*r->per_node));
	if (q->ran_on.bits && np_cpuset_copy(&r->ran_on, &q->ran_on)) {
		irq_free(r);
		return -ENOMEM;
	}
	ps->out2->n++;
	return 0;
}

static int parse_row(struct parser *ps, char *line, size_t len, size_t lineno)
{
	const struct np_topology *topo = ps->topo;
	char ex[28];

	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r' || blank(line[len - 1])))
		len--;
	line[len] = '\0';
	/* A NUL byte is binary content: in a numbered row, the parse stops at it
	 * and the row fails (skip_row names it so) or its tail holds it; a row
	 * left unread is searched here, not every 10 KB row twice. */
	const char *p = skip_blanks(line);
	if (!*p) {
		if ((size_t)(p - line) < len)
			SKIP("binary content");
		return 0;
	}
	if (isalpha((unsigned char)*p)) {
		const char *q = p;
		while (isalnum((unsigned char)*q) || *q == '_' || *q == '-' || *q == '/')
			q++;
		if (*q == ':' && memchr(q, '\0', len - (size_t)(q - line)))
			SKIP("binary content");
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
	if (ps->acc2)
		memset(ps->acc2, 0, ((size_t)ps->topo2->nnodes + 1) * sizeof(*ps->acc2));
	memset(ps->ran, 0, ps->nwords * sizeof(*ps->ran));
	unsigned long long total = 0;
	bool any = false;
	ps->quiet = 0;
	const char *end = line + len;
	for (size_t c = 0; c < ps->ncols; c++) {
		if ((c += skip_zero_runs(&p, end, ps->ncols - c)) == ps->ncols)
			break;
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
		if (ps->acc2)
			ps->acc2[ps->col_node2[c]] += v;
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
	if (ps->out2 && (rc = add_row2(ps, q))) {
		irq_free(q);
		return rc;
	}
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

/* Rows out of order are rare, so their duplicates are only found here.
 * out: ps->out, or ps->out2 (whose rows are ps->out's, at the same indexes,
 * and whose duplicates are not warned about twice). */
static int sort_rows(struct parser *ps, struct np_irqs *out)
{
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
			if (!rc && out == ps->out)
				rc = np_irqs_warn(out, &ps->dropped, "'%s' line %zu: IRQ %d again (first on line %zu)",
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
/* What read_counts asks for at a time, at least. */
#define READ_CHUNK ((size_t)256 << 10)

/* Where the text comes from: a file read with bounds, or text in memory. */
struct source {
	struct np_bounded *file;
	const char *text;
	size_t len, off;
};

static ssize_t source_read(struct source *s, char *buf, size_t size)
{
	if (s->file)
		return np_bounded_read(s->file, buf, size);
	size_t n = s->len - s->off < size ? s->len - s->off : size;
	memcpy(buf, s->text + s->off, n);
	s->off += n;
	return (ssize_t)n;
}

/* Parses /proc/interrupts from src (path: for messages) and closes it; with
 * topo2, counts by it into out2 in the same pass. */
static int read_counts(struct np_ctx *ctx, const struct np_topology *topo, struct source *src, const char *path,
		       struct np_irqs *out, const struct np_topology *topo2, struct np_irqs *out2)
{
	struct parser ps = { .ctx = ctx, .topo = topo, .out = out, .topo2 = topo2, .out2 = topo2 ? out2 : NULL };
	snprintf(ps.path, sizeof(ps.path), "%s", path);
	int rc = 0;
	/* Each line is parsed where it lies in a buffer of large reads, its '\n'
	 * made its NUL: a stream's copy and getline's (46 MB each on 1024 CPUs)
	 * were a fifth of report's instructions. The buffer grows for a longer
	 * line; the bound on a line keeps it bounded. */
	size_t cap = READ_CHUNK, have = 0, start = 0, lineno = 0;
	char *buf = malloc(cap + 1);
	bool header = false, eof = false;
	int read_err = 0;
	if (!buf)
		rc = -ENOMEM;
	errno = 0;
	while (!rc) {
		char *line = buf + start, *nl = memchr(line, '\n', have - start);
		size_t len;
		if (nl) {
			*nl = '\0';
			len = (size_t)(nl - line);
			start += len + 1;
		} else if (!eof) {
			memmove(buf, line, have - start);
			have -= start;
			start = 0;
			if (cap - have < READ_CHUNK / 2) {
				char *bigger = realloc(buf, 2 * cap + 1);
				if (!bigger) {
					rc = -ENOMEM;
					break;
				}
				buf = bigger;
				cap *= 2;
			}
			ssize_t n = source_read(src, buf + have, cap - have);
			if (n < 0) {
				read_err = errno ? errno : EIO;
				break;
			}
			have += (size_t)n;
			buf[have] = '\0';
			eof = n == 0;
			continue;
		} else if (start < have) {
			len = have - start; /* the last line, without its '\n' */
			start = have;
		} else {
			break;
		}
		lineno++;
		if (header) {
			if ((rc = parse_row(&ps, line, len, lineno)))
				break;
			continue;
		}
		const char *p = skip_blanks(line);
		if (*p == '\r' || !*p)
			continue;
		if (strncmp(p, "CPU", 3)) {
			rc = np_fail(ctx, -EINVAL, "'%s': no header line of CPU columns (line %zu comes first)",
				     ps.path, lineno);
			break;
		}
		while (len && line[len - 1] == '\r')
			line[--len] = '\0';
		if (memchr(line, '\0', len)) {
			rc = np_fail(ctx, -EINVAL, "'%s' line %zu: binary content in the header", ps.path, lineno);
			break;
		}
		if ((rc = parse_header(&ps, line, lineno)))
			break;
		header = true;
	}
	if (!rc && read_err) {
		char total[32], longest[32];
		int err = read_err;
		if (err == EFBIG)
			rc = np_fail(ctx, -EFBIG, "'%s' is larger than %s or has a line longer than %s; "
				     "refusing it", ps.path,
				     np_size_name(NP_INTERRUPTS_MAX_BYTES, total, sizeof(total)),
				     np_size_name(NP_INTERRUPTS_MAX_LINE, longest, sizeof(longest)));
		else
			rc = np_fail(ctx, -err, "cannot read '%s': %s", ps.path, strerror(err));
	}
	free(buf);
	np_bounded_close(src->file);
	if (!rc && !header)
		rc = np_fail(ctx, -EINVAL, "'%s': no header line of CPU columns", ps.path);
	if (!rc && ps.unsorted && ps.out2)
		rc = sort_rows(&ps, ps.out2);
	if (!rc && ps.unsorted)
		rc = sort_rows(&ps, out);
	if (!rc)
		rc = np_irqs_warn_dropped(out, ps.dropped, ps.path, "malformed lines skipped");
	parser_free(&ps);
	if (rc == -ENOMEM)
		np_fail(ctx, rc, "reading '%s': %s", ps.path, strerror(ENOMEM));
	if (rc) {
		np_irqs_free(out);
		if (ps.out2)
			np_irqs_free(ps.out2);
	}
	return rc;
}

int np_irqs_read_counts_split(struct np_ctx *ctx, const struct np_topology *topo, struct np_irqs *out,
			      const struct np_topology *split_topo, struct np_irqs *split)
{
	char path[PATH_MAX];
	memset(out, 0, sizeof(*out));
	if (split_topo)
		memset(split, 0, sizeof(*split));
	int rc = np_sysfs_path(ctx, path, "/proc/interrupts");
	if (rc)
		return rc;
	struct source src = {
		.file = np_bounded_open(ctx, &rc, NP_INTERRUPTS_MAX_BYTES, NP_INTERRUPTS_MAX_LINE, "/proc/interrupts"),
	};
	return src.file ? read_counts(ctx, topo, &src, path, out, split_topo, split) : rc;
}

int np_irqs_read_counts(struct np_ctx *ctx, const struct np_topology *topo, struct np_irqs *out)
{
	return np_irqs_read_counts_split(ctx, topo, out, NULL, NULL);
}

/* A copy given by the user, not a file of the machine: not under --root,
 * but read with the same bounds (a FIFO or /dev/zero named by mistake is
 * refused, not waited on or read forever). */
int np_irqs_read_counts_file(struct np_ctx *ctx, const struct np_topology *topo, const char *path,
			     struct np_irqs *out)
{
	int rc;
	memset(out, 0, sizeof(*out));
	struct source src = {
		.file = np_bounded_open_user(ctx, &rc, NP_INTERRUPTS_MAX_BYTES, NP_INTERRUPTS_MAX_LINE, path),
	};
	return src.file ? read_counts(ctx, topo, &src, path, out, NULL, NULL) : rc;
}

/* The text in memory: the same parser as the files' (and the fuzz harness's). */
int np_irqs_parse_counts(struct np_ctx *ctx, const struct np_topology *topo, const char *name,
			 const char *text, size_t len, struct np_irqs *out)
{
	memset(out, 0, sizeof(*out));
	struct source src = { .text = text, .len = len };
	return read_counts(ctx, topo, &src, name, out, NULL, NULL);
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
