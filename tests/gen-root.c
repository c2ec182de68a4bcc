/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gen-root: writes a synthetic but kernel-faithful machine root (DIR/sys and
 * DIR/proc) for tests and benchmarks. Standalone: plain libc, no numaplace code.
 *
 *   gen-root OUTDIR --cpus N --nodes M --devices D --irqs I [--smt] [--seed S]
 *                   [--legacy-format] [--hardlink] [--jobs J] [--nic-queues Q]
 *
 * The machine: an x86 server, N CPUs in M NUMA nodes (contiguous CPU ranges;
 * with --smt the sibling of CPU c is c + N/2, Intel numbering), two nodes per
 * package, distances 10 / 12 (same package) / 32. D PCI functions spread
 * round-robin over the nodes (one root bus per node), half Intel 82599 NICs
 * (ixgbe, ethK) and half NVMe controllers (nvme, nvmeKn1), with about I/D
 * MSI-X vectors each numbered from 100 up (with --nic-queues, each NIC has Q
 * queues and Q + 1 vectors instead, the NVMe controllers keeping theirs), their /proc/irq/N directories, and
 * /proc/interrupts as the kernel prints it for N online CPUs. Everything
 * random (counts, affinity policies, block settings) is drawn from --seed, so
 * the same arguments always give the same tree.
 *
 * /proc/interrupts spacing follows Linux 6.18 (measured on this project's
 * machines): "%*d:" then " %10u" per CPU, then " %8s" chip. --legacy-format
 * prints the older "%*d: " then "%10u " per CPU form (one more space before the
 * chip column).
 *
 * Beyond what numaplace reads, the tree has what other readers expect of a
 * real one: cpuN/cache/indexM (hwloc asks this machine's own CPUID without
 * them), PCI resource/config/uevent/modalias (libpci's sysfs scan needs
 * resource), msi_irqs/N files reading "msix" as the kernel's do, affinity_hint
 * and an action-name directory in each /proc/irq/N, legacy IO-APIC and DMAR
 * IRQs below 100, the lo interface, /proc/cpuinfo and /proc/meminfo; and each
 * IRQ's debugfs state (sys/kernel/debug/irq/irqs/N), as a kernel with
 * CONFIG_GENERIC_IRQ_DEBUGFS and debugfs mounted shows it.
 *
 * What the counts cover and what they cost, as tests/fixtures/make-fixtures.sh
 * models it: /proc/uptime (UPTIME seconds), /proc/stat (each CPU's time at
 * USER_HZ 100: an interrupt costs 2 us in hard IRQ and 6 us in the softirq it
 * raises, the rest 20% user, 5% system and idle; the intr line with every
 * IRQ's total up to nr_irqs) and /proc/softirqs (NET_RX for a NIC's
 * interrupts, BLOCK for an NVMe controller's, TIMER, SCHED and RCU at 250 Hz).
 *
 * Files have the kernel's modes: 0644 where the kernel takes writes, 0444
 * elsewhere. With --hardlink, read-only (0444) files with the same contents are
 * hard links to one inode: readers see the same tree, it is several times
 * cheaper to create, but editing one such file in place (echo x > file)
 * changes all of them; leave it off for trees a test will modify. The tree is
 * written by --jobs processes (default: the online CPUs, at most 16); its
 * contents do not depend on that number.
 *
 * OUTDIR must not exist or be empty; OUTDIR/.gen-root, written last, records
 * the arguments. Every write is checked: on any error the program names the
 * path and exits 1 (2 for usage errors). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FIRST_DEVICE_IRQ 100
#define NODES_PER_PACKAGE 2

/* ------------------------------------------------------------------ errors */

static const char *outdir;
static pid_t *workers; /* in the parent: the worker processes, 0 when done */
static int nworkers;

static void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void die(const char *fmt, ...)
{
	va_list ap;
	fputs("gen-root: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	/* never leave workers writing into the tree after we are gone */
	for (int w = 0; w < nworkers; w++)
		if (workers[w] > 0) {
			kill(workers[w], SIGKILL);
			waitpid(workers[w], NULL, 0);
		}
	exit(1);
}

static void *xmalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);
	if (!p)
		die("out of memory (%zu bytes)", n);
	return p;
}

/* ----------------------------------------------------------------- buffers */

struct buf {
	char *p;
	size_t len, cap;
};

static void b_reserve(struct buf *b, size_t more)
{
	if (b->len + more + 1 <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 4096;
	while (cap < b->len + more + 1)
		cap *= 2;
	char *p = realloc(b->p, cap);
	if (!p)
		die("out of memory (%zu bytes)", cap);
	b->p = p;
	b->cap = cap;
}

static void b_put(struct buf *b, const char *s, size_t n)
{
	b_reserve(b, n);
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void b_puts(struct buf *b, const char *s)
{
	b_put(b, s, strlen(s));
}

static void b_putc(struct buf *b, char c)
{
	b_reserve(b, 1);
	b->p[b->len++] = c;
	b->p[b->len] = '\0';
}

static void b_fill(struct buf *b, char c, size_t n)
{
	b_reserve(b, n);
	memset(b->p + b->len, c, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void b_vprintf(struct buf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	b_reserve(b, 256);
	int n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
	if (n < 0)
		die("formatting failed");
	if ((size_t)n >= b->cap - b->len) {
		b_reserve(b, (size_t)n);
		vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap2);
	}
	va_end(ap2);
	b->len += (size_t)n;
}

static void b_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void b_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	b_vprintf(b, fmt, ap);
	va_end(ap);
}

/* Unsigned decimal, right-aligned in width (0: no padding). */
static void b_putu(struct buf *b, unsigned long long v, int width)
{
	char tmp[24];
	int n = 0;
	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10));
	if (width > n)
		b_fill(b, ' ', (size_t)(width - n));
	b_reserve(b, (size_t)n);
	while (n)
		b->p[b->len++] = tmp[--n];
	b->p[b->len] = '\0';
}

/* ------------------------------------------------------------------- files */

static unsigned long nfiles, ndirs, nlinks;
static unsigned long long nbytes;
static int cur_fd = -1;          /* the directory files are written into */
static char cur_path[PATH_MAX];  /* relative to OUTDIR, for messages */

static void write_all(int fd, const char *p, size_t n, const char *dir, const char *name)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			die("cannot write '%s/%s/%s': %s", outdir, dir, name, w < 0 ? strerror(errno) : "short write");
		p += w;
		n -= (size_t)w;
		nbytes += (unsigned long long)w;
	}
}

static void mkdir_p(const char *path)
{
	if (mkdir(path, 0755) == 0) {
		ndirs++;
		return;
	}
	if (errno == EEXIST)
		return;
	if (errno != ENOENT)
		die("cannot create directory '%s/%s': %s", outdir, path, strerror(errno));
	char parent[PATH_MAX];
	snprintf(parent, sizeof(parent), "%s", path);
	char *slash = strrchr(parent, '/');
	if (!slash || slash == parent)
		die("cannot create directory '%s/%s': %s", outdir, path, strerror(ENOENT));
	*slash = '\0';
	mkdir_p(parent);
	if (mkdir(path, 0755) != 0 && errno != EEXIST)
		die("cannot create directory '%s/%s': %s", outdir, path, strerror(errno));
	ndirs++;
}

/* Makes DIR (and its parents) and writes the following files into it. */
static void at(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void at(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(cur_path, sizeof(cur_path), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(cur_path))
		die("path too long: %s", cur_path);
	mkdir_p(cur_path);
	if (cur_fd >= 0)
		close(cur_fd);
	cur_fd = open(cur_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cur_fd < 0)
		die("cannot open directory '%s/%s': %s", outdir, cur_path, strerror(errno));
}

/* Modes as the kernel shows them: the attributes it accepts writes to are
 * 0644 (0200 for the driver's bind/unbind/new_id/remove_id), all others 0444. */
static mode_t mode_for(const char *name)
{
	static const char *const writable[] = {
		"numa_node", "enable", "msi_bus", "uevent", "config", "mtu", "carrier", "rps_cpus",
		"rps_flow_cnt", "xps_cpus", "xps_rxqs", "tx_maxrate", "rq_affinity", "scheduler",
		"nr_requests", "rotational", "max_sectors_kb", "smp_affinity", "smp_affinity_list",
		"default_smp_affinity", "control", ".gen-root",
	};
	static const char *const write_only[] = { "bind", "unbind", "new_id", "remove_id" };
	const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
	for (size_t i = 0; i < sizeof(writable) / sizeof(writable[0]); i++)
		if (!strcmp(base, writable[i]))
			return 0644;
	for (size_t i = 0; i < sizeof(write_only) / sizeof(write_only[0]); i++)
		if (!strcmp(base, write_only[i]))
			return 0200;
	/* cpuN/online takes writes; cpu/online and node/online do not */
	if (!strcmp(base, "online") && strstr(cur_path, "/cpu/cpu"))
		return 0644;
	return 0444;
}

/* --hardlink: read-only files with the same contents share one inode (much
 * cheaper to create than a new file). Readers cannot tell; but a test that
 * edits such a file in place changes every file sharing it. */
static bool hardlink;

struct same {
	uint64_t hash;
	char *data, *path;
	size_t len;
	unsigned links;
};
static struct same *same_tab;
static size_t same_cap, same_used;

static uint64_t hash_bytes(const void *data, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (const unsigned char *p = data, *end = p + len; p < end; p++)
		h = (h ^ *p) * 0x100000001b3ULL;
	return h;
}

static struct same *same_slot(const void *data, size_t len, uint64_t h)
{
	if (2 * (same_used + 1) > same_cap) {
		size_t cap = same_cap ? 2 * same_cap : 4096;
		struct same *tab = xmalloc(cap * sizeof(*tab));
		for (size_t i = 0; i < same_cap; i++)
			if (same_tab[i].path) {
				size_t j = same_tab[i].hash & (cap - 1);
				while (tab[j].path)
					j = (j + 1) & (cap - 1);
				tab[j] = same_tab[i];
			}
		free(same_tab);
		same_tab = tab;
		same_cap = cap;
	}
	size_t j = h & (same_cap - 1);
	while (same_tab[j].path &&
	       !(same_tab[j].hash == h && same_tab[j].len == len && !memcmp(same_tab[j].data, data, len)))
		j = (j + 1) & (same_cap - 1);
	return &same_tab[j];
}

static void put(const char *name, const void *data, size_t len)
{
	mode_t mode = mode_for(name);
	struct same *e = NULL;
	if (hardlink && mode == 0444) {
		uint64_t h = hash_bytes(data, len);
		e = same_slot(data, len, h);
		if (e->path && e->links < 60000) { /* ext4 allows 65000 links */
			if (linkat(AT_FDCWD, e->path, cur_fd, name, 0) == 0) {
				e->links++;
				nfiles++;
				return;
			}
			if (errno != EMLINK)
				die("cannot link '%s/%s/%s' to '%s': %s", outdir, cur_path, name, e->path, strerror(errno));
		}
		if (!e->path) {
			same_used++;
			e->hash = h;
			e->len = len;
			if (!(e->data = malloc(len ? len : 1)))
				die("out of memory");
			memcpy(e->data, data, len);
		}
		free(e->path);
		if (asprintf(&e->path, "%s/%s", cur_path, name) < 0)
			die("out of memory");
		e->links = 1;
	}
	int fd = openat(cur_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (fd < 0)
		die("cannot create '%s/%s/%s': %s", outdir, cur_path, name, strerror(errno));
	write_all(fd, data, len, cur_path, name);
	if (close(fd) != 0)
		die("cannot write '%s/%s/%s': %s", outdir, cur_path, name, strerror(errno));
	nfiles++;
}

static void putb(const char *name, const struct buf *b)
{
	put(name, b->p, b->len);
}

static void putf(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(const char *name, const char *fmt, ...)
{
	static struct buf b;
	va_list ap;
	b.len = 0;
	va_start(ap, fmt);
	b_vprintf(&b, fmt, ap);
	va_end(ap);
	putb(name, &b);
}

static void subdir(const char *name)
{
	if (mkdirat(cur_fd, name, 0755) != 0 && errno != EEXIST)
		die("cannot create directory '%s/%s/%s': %s", outdir, cur_path, name, strerror(errno));
	ndirs++;
}

static void link_to(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void link_to(const char *name, const char *fmt, ...)
{
	char target[PATH_MAX];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(target, sizeof(target), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(target))
		die("link target too long for '%s/%s'", cur_path, name);
	if (symlinkat(target, cur_fd, name) != 0)
		die("cannot create link '%s/%s/%s': %s", outdir, cur_path, name, strerror(errno));
	nlinks++;
}

/* Large files: buffered, written in big blocks. */
struct out {
	int fd;
	char name[PATH_MAX];
	struct buf b;
};

static void out_open(struct out *o, const char *dir, const char *name)
{
	memset(o, 0, sizeof(*o));
	at("%s", dir);
	snprintf(o->name, sizeof(o->name), "%s", name);
	o->fd = openat(cur_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
	if (o->fd < 0)
		die("cannot create '%s/%s/%s': %s", outdir, cur_path, name, strerror(errno));
	o->b.len = 0;
	b_reserve(&o->b, 1 << 22);
	nfiles++;
}

static void out_flush(struct out *o, bool force)
{
	if (o->b.len && (force || o->b.len >= (1u << 22))) {
		write_all(o->fd, o->b.p, o->b.len, cur_path, o->name);
		o->b.len = 0;
	}
}

static void out_close(struct out *o)
{
	out_flush(o, true);
	if (close(o->fd) != 0)
		die("cannot write '%s/%s/%s': %s", outdir, cur_path, o->name, strerror(errno));
	free(o->b.p);
	memset(&o->b, 0, sizeof(o->b));
}

/* ------------------------------------------------------------------ random */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned rndn(unsigned n)
{
	return n ? (unsigned)(rnd() % n) : 0;
}

/* A count of magnitude 10^lo .. 10^(hi+1)-1, capped below 2^32 (the kernel's
 * counters are unsigned int). */
static unsigned count_between(int lo, int hi)
{
	static const unsigned long long p10[] = { 1, 10, 100, 1000, 10000, 100000, 1000000,
						  10000000, 100000000, 1000000000ULL };
	int e = lo + (int)rndn((unsigned)(hi - lo + 1));
	unsigned long long v = p10[e] + rnd() % (9 * p10[e]);
	return v > 4000000000ULL ? 4000000000U : (unsigned)v;
}

/* -------------------------------------------------------------- CPU sets */

typedef uint64_t word;
static int ncpus, nwords; /* CPU sets have ncpus bits */

static word *set_new(void)
{
	return xmalloc((size_t)nwords * sizeof(word));
}
static void set_add(word *s, int c)
{
	s[c / 64] |= 1ULL << (c % 64);
}
static bool set_has(const word *s, int c)
{
	return (s[c / 64] >> (c % 64)) & 1;
}
static void set_zero(word *s)
{
	memset(s, 0, (size_t)nwords * sizeof(word));
}
static void set_or(word *d, const word *s)
{
	for (int i = 0; i < nwords; i++)
		d[i] |= s[i];
}

/* "0-3,8,10-11" */
static void put_list(struct buf *b, const word *s, int nbits)
{
	bool first = true;
	for (int c = 0; c < nbits; c++) {
		if (!set_has(s, c))
			continue;
		int e = c;
		while (e + 1 < nbits && set_has(s, e + 1))
			e++;
		if (!first)
			b_putc(b, ',');
		first = false;
		b_putu(b, (unsigned)c, 0);
		if (e > c) {
			b_putc(b, '-');
			b_putu(b, (unsigned)e, 0);
		}
		c = e;
	}
}

/* "0, 1, 2": blk-mq's mq/N/cpu_list */
static void put_list_spaced(struct buf *b, const word *s, int nbits)
{
	bool first = true;
	for (int c = 0; c < nbits; c++)
		if (set_has(s, c)) {
			if (!first)
				b_puts(b, ", ");
			first = false;
			b_putu(b, (unsigned)c, 0);
		}
}

/* The kernel's "%*pb": 32-bit groups, most significant first, comma separated;
 * the first group only as wide as the bits it holds needs. s may be NULL (all
 * zeros) and must otherwise hold at least nbits bits. */
static void put_mask(struct buf *b, const word *s, int nbits)
{
	static const char hex[] = "0123456789abcdef";
	int chunks = (nbits + 31) / 32;
	int first_bits = nbits - 32 * (chunks - 1);
	b_reserve(b, (size_t)chunks * 9);
	for (int i = chunks - 1; i >= 0; i--) {
		uint32_t v = s ? (uint32_t)(s[i / 2] >> (32 * (i % 2))) : 0;
		int digits = i == chunks - 1 ? (first_bits + 3) / 4 : 8;
		for (int d = digits - 1; d >= 0; d--)
			b->p[b->len++] = hex[(v >> (4 * d)) & 0xf];
		if (i)
			b->p[b->len++] = ',';
	}
	b->p[b->len] = '\0';
}

/* ---------------------------------------------------------------- machine */

static int nnodes, npackages, ncores, ndevs, nirqs_wanted;
static int nic_queues; /* --nic-queues: each NIC's queues, whatever --irqs gives the others; 0: from --irqs */
static bool smt, legacy_format;
static unsigned long long seed = 1;

static int *core_node;      /* per core */
static int *node_first_core; /* per node, and [nnodes] = ncores */
static word **node_cpus, **pkg_cpus;
static word *all_cpus;
static int **node_spread;   /* per node: its CPUs in number order, then the other nodes' by distance */
static int **node_grouped;  /* per node: its CPUs with SMT siblings next to each other */
static int *node_ncpus;

static int cpu_core(int c)
{
	return smt ? c % ncores : c;
}
static int cpu_thread(int c)
{
	return smt ? c / ncores : 0;
}
static int cpu_node(int c)
{
	return core_node[cpu_core(c)];
}
static int node_package(int n)
{
	return n / NODES_PER_PACKAGE;
}
static int distance(int a, int b)
{
	return a == b ? 10 : node_package(a) == node_package(b) ? 12 : 32;
}

static void build_machine(void)
{
	ncores = smt ? ncpus / 2 : ncpus;
	nwords = (ncpus + 63) / 64;
	npackages = (nnodes + NODES_PER_PACKAGE - 1) / NODES_PER_PACKAGE;
	core_node = xmalloc((size_t)ncores * sizeof(int));
	node_first_core = xmalloc((size_t)(nnodes + 1) * sizeof(int));
	for (int n = 0; n <= nnodes; n++)
		node_first_core[n] = -1;
	for (int core = 0; core < ncores; core++) {
		/* contiguous, balanced: node sizes differ by at most one core */
		core_node[core] = (int)((long long)core * nnodes / ncores);
		if (node_first_core[core_node[core]] < 0)
			node_first_core[core_node[core]] = core;
	}
	node_first_core[nnodes] = ncores;
	all_cpus = set_new();
	node_cpus = xmalloc((size_t)nnodes * sizeof(word *));
	pkg_cpus = xmalloc((size_t)npackages * sizeof(word *));
	node_ncpus = xmalloc((size_t)nnodes * sizeof(int));
	for (int n = 0; n < nnodes; n++)
		node_cpus[n] = set_new();
	for (int p = 0; p < npackages; p++)
		pkg_cpus[p] = set_new();
	for (int c = 0; c < ncpus; c++) {
		set_add(all_cpus, c);
		set_add(node_cpus[cpu_node(c)], c);
		set_add(pkg_cpus[node_package(cpu_node(c))], c);
		node_ncpus[cpu_node(c)]++;
	}
	/* cpumask_local_spread() order: the node's CPUs by number, then the
	 * other nodes' from the nearest. */
	node_spread = xmalloc((size_t)nnodes * sizeof(int *));
	node_grouped = xmalloc((size_t)nnodes * sizeof(int *));
	for (int n = 0; n < nnodes; n++) {
		int *order = node_spread[n] = xmalloc((size_t)ncpus * sizeof(int));
		int k = 0;
		for (int d = 10; d <= 32; d++)
			for (int m = 0; m < nnodes; m++)
				if (distance(n, m) == d)
					for (int t = 0; t < (smt ? 2 : 1); t++)
						for (int core = node_first_core[m]; core < node_first_core[m + 1]; core++)
							order[k++] = core + t * ncores;
		int *g = node_grouped[n] = xmalloc((size_t)node_ncpus[n] * sizeof(int));
		k = 0;
		for (int core = node_first_core[n]; core < node_first_core[n + 1]; core++) {
			g[k++] = core;
			if (smt)
				g[k++] = core + ncores;
		}
	}
}

/* -------------------------------------------------------------- topology */

static const char model_name[] = "INTEL(R) XEON(R) PLATINUM 8592+";
static const char cpu_flags[] =
	"fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush dts acpi "
	"mmx fxsr sse sse2 ss ht tm pbe syscall nx pdpe1gb rdtscp lm constant_tsc art arch_perfmon "
	"pebs bts rep_good nopl xtopology nonstop_tsc cpuid aperfmperf tsc_known_freq pni pclmulqdq "
	"dtes64 monitor ds_cpl vmx smx est tm2 ssse3 sdbg fma cx16 xtpr pdcm pcid dca sse4_1 sse4_2 "
	"x2apic movbe popcnt tsc_deadline_timer aes xsave avx f16c rdrand lahf_lm abm 3dnowprefetch "
	"cpuid_fault epb cat_l3 cat_l2 cdp_l3 intel_ppin cdp_l2 ssbd mba ibrs ibpb stibp ibrs_enhanced "
	"tpr_shadow flexpriority ept vpid ept_ad fsgsbase tsc_adjust bmi1 avx2 smep bmi2 erms invpcid "
	"cqm rdt_a avx512f avx512dq rdseed adx smap avx512ifma clflushopt clwb intel_pt avx512cd "
	"sha_ni avx512bw avx512vl xsaveopt xsavec xgetbv1 xsaves cqm_llc cqm_occup_llc cqm_mbm_total "
	"cqm_mbm_local split_lock_detect avx_vnni avx512_bf16 wbnoinvd dtherm ida arat pln pts hfi "
	"vnmi avx512vbmi umip pku ospke waitpkg avx512_vbmi2 gfni vaes vpclmulqdq avx512_vnni "
	"avx512_bitalg tme avx512_vpopcntdq la57 rdpid bus_lock_detect cldemote movdiri movdir64b "
	"enqcmd fsrm md_clear serialize tsxldtrk pconfig arch_lbr ibt amx_bf16 avx512_fp16 amx_tile "
	"amx_int8 flush_l1d arch_capabilities";

static void put_mask_and_list(const char *what, const struct buf *mask, const struct buf *list)
{
	char name[64];
	snprintf(name, sizeof(name), "topology/%s", what);
	putb(name, mask);
	snprintf(name, sizeof(name), "topology/%s_list", what);
	putb(name, list);
}

/* cpu/{online,possible,...}: the files of no particular CPU */
static void gen_cpu_common(void)
{
	struct buf all = { 0 };
	put_list(&all, all_cpus, ncpus);
	b_putc(&all, '\n');
	at("sys/devices/system/cpu");
	putb("online", &all);
	putb("possible", &all);
	putb("present", &all);
	putf("offline", "\n");
	putf("isolated", "\n");
	putf("kernel_max", "%d\n", ncpus - 1 > 8191 ? ncpus - 1 : 8191);
	subdir("smt");
	putf("smt/active", "%d\n", smt ? 1 : 0);
	putf("smt/control", "%s\n", smt ? "on" : "notsupported");
	free(all.p);
}

/* cpuN/ for CPUs from..to-1 */
static void gen_cpus(int from, int to)
{
	struct buf m = { 0 }, l = { 0 };
	word *sib = set_new();
	struct buf *pmask = xmalloc((size_t)npackages * sizeof(struct buf));
	struct buf *plist = xmalloc((size_t)npackages * sizeof(struct buf));
	for (int p = 0; p < npackages; p++) {
		put_mask(&pmask[p], pkg_cpus[p], ncpus);
		b_putc(&pmask[p], '\n');
		put_list(&plist[p], pkg_cpus[p], ncpus);
		b_putc(&plist[p], '\n');
	}
	for (int c = from; c < to; c++) {
		int core = cpu_core(c), node = cpu_node(c), pkg = node_package(node);
		char name[32];
		at("sys/devices/system/cpu/cpu%d", c);
		if (c)
			putf("online", "1\n");
		snprintf(name, sizeof(name), "node%d", node);
		link_to(name, "../../node/node%d", node);
		subdir("topology");
		putf("topology/physical_package_id", "%d\n", pkg);
		putf("topology/die_id", "0\n");
		putf("topology/core_id", "%d\n", core - node_first_core[pkg * NODES_PER_PACKAGE]);
		set_zero(sib);
		set_add(sib, core);
		if (smt)
			set_add(sib, core + ncores);
		m.len = l.len = 0;
		put_mask(&m, sib, ncpus);
		b_putc(&m, '\n');
		put_list(&l, sib, ncpus);
		b_putc(&l, '\n');
		put_mask_and_list("thread_siblings", &m, &l);
		put_mask_and_list("core_cpus", &m, &l);
		put_mask_and_list("core_siblings", &pmask[pkg], &plist[pkg]);
		put_mask_and_list("die_cpus", &pmask[pkg], &plist[pkg]);
		put_mask_and_list("package_cpus", &pmask[pkg], &plist[pkg]);

		/* caches: L1d, L1i, L2 per core, L3 per package (hwloc takes them
		 * from here; without them it asks this machine's own CPUID) */
		subdir("cache");
		for (int i = 0; i < 4; i++) {
			static const struct {
				int level, kb, ways;
				const char *type;
			} cache[4] = {
				{ 1, 48, 12, "Data" },
				{ 1, 32, 8, "Instruction" },
				{ 2, 2048, 16, "Unified" },
				{ 3, 327680, 16, "Unified" },
			};
			char dir[32], file[64];
			snprintf(dir, sizeof(dir), "cache/index%d", i);
			subdir(dir);
#define CACHE_FILE(nm) (snprintf(file, sizeof(file), "%s/%s", dir, nm), file)
			putf(CACHE_FILE("level"), "%d\n", cache[i].level);
			putf(CACHE_FILE("type"), "%s\n", cache[i].type);
			putf(CACHE_FILE("size"), "%dK\n", cache[i].kb);
			putf(CACHE_FILE("coherency_line_size"), "64\n");
			putf(CACHE_FILE("ways_of_associativity"), "%d\n", cache[i].ways);
			putf(CACHE_FILE("number_of_sets"), "%d\n", cache[i].kb * 1024 / (64 * cache[i].ways));
			putf(CACHE_FILE("id"), "%d\n", i == 3 ? pkg : core);
			putb(CACHE_FILE("shared_cpu_map"), i == 3 ? &pmask[pkg] : &m);
			putb(CACHE_FILE("shared_cpu_list"), i == 3 ? &plist[pkg] : &l);
#undef CACHE_FILE
		}
	}
	for (int p = 0; p < npackages; p++) {
		free(pmask[p].p);
		free(plist[p].p);
	}
	free(pmask);
	free(plist);
	free(m.p);
	free(l.p);
	free(sib);
}

static unsigned long long *node_mem_kb;

static void meminfo_line(struct buf *b, const char *prefix, const char *label, unsigned long long kb)
{
	/* the kernel's show_val_kb(): label padded to 16 columns, value to 8 */
	b_puts(b, prefix);
	b_printf(b, "%-16s%8llu kB\n", label, kb);
}

static void gen_nodes(void)
{
	struct buf b = { 0 };
	char name[32];
	node_mem_kb = xmalloc((size_t)nnodes * sizeof(*node_mem_kb));
	at("sys/devices/system/node");
	b_printf(&b, "%s%d\n", nnodes > 1 ? "0-" : "", nnodes - 1);
	putb("online", &b);
	putb("possible", &b);
	putb("has_cpu", &b);
	putb("has_memory", &b);
	putb("has_normal_memory", &b);
	for (int n = 0; n < nnodes; n++) {
		at("sys/devices/system/node/node%d", n);
		b.len = 0;
		put_list(&b, node_cpus[n], ncpus);
		b_putc(&b, '\n');
		putb("cpulist", &b);
		b.len = 0;
		put_mask(&b, node_cpus[n], ncpus);
		b_putc(&b, '\n');
		putb("cpumap", &b);
		b.len = 0;
		for (int m = 0; m < nnodes; m++)
			b_printf(&b, "%s%d", m ? " " : "", distance(n, m));
		b_putc(&b, '\n');
		putb("distance", &b);

		unsigned long long total = 263000000ULL + rndn(400000);
		unsigned long long free_kb = total - 8000000 - rndn(20000000);
		unsigned long long file = 2000000 + rndn(4000000), anon = 1000000 + rndn(3000000);
		node_mem_kb[n] = total;
		char prefix[32];
		snprintf(prefix, sizeof(prefix), "Node %d ", n);
		b.len = 0;
		meminfo_line(&b, prefix, "MemTotal:", total);
		meminfo_line(&b, prefix, "MemFree:", free_kb);
		meminfo_line(&b, prefix, "MemUsed:", total - free_kb);
		meminfo_line(&b, prefix, "SwapCached:", 0);
		meminfo_line(&b, prefix, "Active:", file / 2 + anon);
		meminfo_line(&b, prefix, "Inactive:", file / 2);
		meminfo_line(&b, prefix, "Active(anon):", anon);
		meminfo_line(&b, prefix, "Inactive(anon):", 0);
		meminfo_line(&b, prefix, "Active(file):", file / 2);
		meminfo_line(&b, prefix, "Inactive(file):", file - file / 2);
		meminfo_line(&b, prefix, "Unevictable:", 0);
		meminfo_line(&b, prefix, "Mlocked:", 0);
		meminfo_line(&b, prefix, "Dirty:", rndn(2000));
		meminfo_line(&b, prefix, "Writeback:", 0);
		meminfo_line(&b, prefix, "FilePages:", file);
		meminfo_line(&b, prefix, "Mapped:", file / 8);
		meminfo_line(&b, prefix, "AnonPages:", anon);
		meminfo_line(&b, prefix, "Shmem:", 20000 + rndn(10000));
		meminfo_line(&b, prefix, "KernelStack:", 30000 + rndn(10000));
		meminfo_line(&b, prefix, "PageTables:", 10000 + rndn(10000));
		meminfo_line(&b, prefix, "SecPageTables:", 0);
		meminfo_line(&b, prefix, "NFS_Unstable:", 0);
		meminfo_line(&b, prefix, "Bounce:", 0);
		meminfo_line(&b, prefix, "WritebackTmp:", 0);
		meminfo_line(&b, prefix, "KReclaimable:", 300000 + rndn(100000));
		meminfo_line(&b, prefix, "Slab:", 900000 + rndn(100000));
		meminfo_line(&b, prefix, "SReclaimable:", 300000 + rndn(100000));
		meminfo_line(&b, prefix, "SUnreclaim:", 500000 + rndn(100000));
		meminfo_line(&b, prefix, "AnonHugePages:", 0);
		meminfo_line(&b, prefix, "ShmemHugePages:", 0);
		meminfo_line(&b, prefix, "ShmemPmdMapped:", 0);
		meminfo_line(&b, prefix, "FileHugePages:", 0);
		meminfo_line(&b, prefix, "FilePmdMapped:", 0);
		b_printf(&b, "%sHugePages_Total: %5d\n", prefix, 0);
		b_printf(&b, "%sHugePages_Free:  %5d\n", prefix, 0);
		b_printf(&b, "%sHugePages_Surp:  %5d\n", prefix, 0);
		putb("meminfo", &b);

		for (int c = 0; c < ncpus; c++)
			if (cpu_node(c) == n) {
				snprintf(name, sizeof(name), "cpu%d", c);
				link_to(name, "../../cpu/cpu%d", c);
			}
	}
	free(b.p);
}

static void gen_proc_basics(void)
{
	struct buf b = { 0 };
	at("proc");
	putf("cmdline", "BOOT_IMAGE=/boot/vmlinuz-6.1.0-28-amd64 root=UUID=5d1e2c4a-8f3b-4c6e-9a7d-2b1f0e9c8d7a ro quiet\n");

	unsigned long long total = 0;
	for (int n = 0; n < nnodes; n++)
		total += node_mem_kb[n];
	unsigned long long free_kb = total - total / 30, cached = total / 100;
	meminfo_line(&b, "", "MemTotal:", total);
	meminfo_line(&b, "", "MemFree:", free_kb);
	meminfo_line(&b, "", "MemAvailable:", free_kb + cached);
	meminfo_line(&b, "", "Buffers:", 300000);
	meminfo_line(&b, "", "Cached:", cached);
	meminfo_line(&b, "", "SwapCached:", 0);
	meminfo_line(&b, "", "Active:", cached / 2);
	meminfo_line(&b, "", "Inactive:", cached / 2);
	meminfo_line(&b, "", "Active(anon):", cached / 4);
	meminfo_line(&b, "", "Inactive(anon):", 0);
	meminfo_line(&b, "", "Active(file):", cached / 4);
	meminfo_line(&b, "", "Inactive(file):", cached / 2);
	meminfo_line(&b, "", "Unevictable:", 0);
	meminfo_line(&b, "", "Mlocked:", 0);
	meminfo_line(&b, "", "SwapTotal:", 0);
	meminfo_line(&b, "", "SwapFree:", 0);
	meminfo_line(&b, "", "Zswap:", 0);
	meminfo_line(&b, "", "Zswapped:", 0);
	meminfo_line(&b, "", "Dirty:", 1024);
	meminfo_line(&b, "", "Writeback:", 0);
	meminfo_line(&b, "", "AnonPages:", cached / 4);
	meminfo_line(&b, "", "Mapped:", cached / 16);
	meminfo_line(&b, "", "Shmem:", 400000);
	meminfo_line(&b, "", "KReclaimable:", total / 200);
	meminfo_line(&b, "", "Slab:", total / 100);
	meminfo_line(&b, "", "SReclaimable:", total / 200);
	meminfo_line(&b, "", "SUnreclaim:", total / 200);
	meminfo_line(&b, "", "KernelStack:", (unsigned long long)ncpus * 400);
	meminfo_line(&b, "", "PageTables:", 200000);
	meminfo_line(&b, "", "SecPageTables:", 0);
	meminfo_line(&b, "", "NFS_Unstable:", 0);
	meminfo_line(&b, "", "Bounce:", 0);
	meminfo_line(&b, "", "WritebackTmp:", 0);
	meminfo_line(&b, "", "CommitLimit:", total / 2);
	meminfo_line(&b, "", "Committed_AS:", cached);
	meminfo_line(&b, "", "VmallocTotal:", 13743895347199ULL);
	meminfo_line(&b, "", "VmallocUsed:", 2000000);
	meminfo_line(&b, "", "VmallocChunk:", 0);
	meminfo_line(&b, "", "Percpu:", (unsigned long long)ncpus * 200);
	meminfo_line(&b, "", "HardwareCorrupted:", 0);
	meminfo_line(&b, "", "AnonHugePages:", 0);
	meminfo_line(&b, "", "ShmemHugePages:", 0);
	meminfo_line(&b, "", "ShmemPmdMapped:", 0);
	meminfo_line(&b, "", "FileHugePages:", 0);
	meminfo_line(&b, "", "FilePmdMapped:", 0);
	b_printf(&b, "HugePages_Total:   %5d\nHugePages_Free:    %5d\nHugePages_Rsvd:    %5d\nHugePages_Surp:    %5d\n",
		 0, 0, 0, 0);
	meminfo_line(&b, "", "Hugepagesize:", 2048);
	meminfo_line(&b, "", "Hugetlb:", 0);
	meminfo_line(&b, "", "DirectMap4k:", 1000000);
	meminfo_line(&b, "", "DirectMap2M:", 50000000);
	meminfo_line(&b, "", "DirectMap1G:", (total / 1048576 + 1) * 1048576);
	putb("meminfo", &b);

	/* /proc/cpuinfo as x86's show_cpuinfo() prints it */
	struct out o;
	out_open(&o, "proc", "cpuinfo");
	int threads_per_pkg = ncpus / npackages, cores_per_pkg = ncores / npackages;
	for (int c = 0; c < ncpus; c++) {
		int node = cpu_node(c), pkg = node_package(node);
		int core_id = cpu_core(c) - node_first_core[pkg * NODES_PER_PACKAGE];
		int apicid = (pkg << 8) | (core_id << 1) | cpu_thread(c);
		b_printf(&o.b,
			 "processor\t: %d\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 207\n"
			 "model name\t: %s\nstepping\t: 2\nmicrocode\t: 0x21000230\ncpu MHz\t\t: 1900.000\n"
			 "cache size\t: 327680 KB\nphysical id\t: %d\nsiblings\t: %d\ncore id\t\t: %d\n"
			 "cpu cores\t: %d\napicid\t\t: %d\ninitial apicid\t: %d\nfpu\t\t: yes\n"
			 "fpu_exception\t: yes\ncpuid level\t: 31\nwp\t\t: yes\nflags\t\t: %s\n"
			 "bugs\t\t: spectre_v1 spectre_v2 spec_store_bypass swapgs eibrs_pbrsb bhi\n"
			 "bogomips\t: 3800.00\nclflush size\t: 64\ncache_alignment\t: 64\n"
			 "address sizes\t: 52 bits physical, 57 bits virtual\npower management:\n\n",
			 c, model_name, pkg, threads_per_pkg, core_id, cores_per_pkg, apicid, apicid, cpu_flags);
		out_flush(&o, false);
	}
	out_close(&o);

	at("proc/sys/kernel/random");
	putf("boot_id", "%08llx-%04llx-4%03llx-a%03llx-%012llx\n", (unsigned long long)(rnd() & 0xffffffffULL),
	     (unsigned long long)(rnd() & 0xffff), (unsigned long long)(rnd() & 0xfff),
	     (unsigned long long)(rnd() & 0xfff), (unsigned long long)(rnd() & 0xffffffffffffULL));
	free(b.p);
}

/* ---------------------------------------------------------- devices, IRQs */

struct dev {
	int node, nic, k; /* k: the N of ethN or nvmeN */
	int bus, slot, fn;
	char addr[16];
	int nq, nvec, first_irq;
	int policy;       /* NICs: 0 driver hint, 1 moved to a remote node, 2 default affinity */
	bool rps;         /* NICs: RPS on, to the local node */
	word **groups;    /* NVMe: the managed affinity of each I/O queue */
};

struct irq {
	int num, node;
	int aff_cpu;          /* >= 0: affinity is this one CPU */
	const word *aff_set;  /* otherwise this set */
	int eff, hint;        /* effective CPU; affinity_hint CPU or -1 */
	int hwirq;
	const char *handler;  /* "edge", "fasteoi" */
	char chip[40], name[40];
	int lo, hi;           /* magnitude of the main count, see count_between() */
	bool spread_anywhere; /* extra counts may land outside the affinity */
	bool managed;         /* NVMe I/O queue vectors: IRQD_AFFINITY_MANAGED */
};

static struct dev *devs;
static struct irq *irqs;
static int nirqs, nlegacy;

static const char *dev_driver(const struct dev *d)
{
	return d->nic ? "ixgbe" : "nvme";
}

/* group_cpus_evenly(): groups spread over the nodes in proportion to their
 * CPUs, never crossing a node when there are at least as many groups as nodes,
 * SMT siblings kept together. */
static word **spread_groups(int ngroups)
{
	word **g = xmalloc((size_t)ngroups * sizeof(word *));
	for (int q = 0; q < ngroups; q++)
		g[q] = set_new();
	if (ngroups < nnodes) {
		for (int n = 0; n < nnodes; n++)
			set_or(g[(int)((long long)n * ngroups / nnodes)], node_cpus[n]);
		return g;
	}
	int before = 0, next = 0;
	for (int n = 0; n < nnodes; n++) {
		int gn = (int)((long long)ngroups * (before + node_ncpus[n]) / ncpus) -
			 (int)((long long)ngroups * before / ncpus);
		before += node_ncpus[n];
		if (gn == 0) { /* a node too small for a group of its own joins the previous one */
			set_or(g[next ? next - 1 : 0], node_cpus[n]);
			continue;
		}
		for (int k = 0; k < gn; k++) {
			int from = (int)((long long)k * node_ncpus[n] / gn);
			int to = (int)((long long)(k + 1) * node_ncpus[n] / gn);
			for (int i = from; i < to; i++)
				set_add(g[next], node_grouped[n][i]);
			next++;
		}
	}
	return g;
}

static int first_cpu(const word *s)
{
	for (int c = 0; c < ncpus; c++)
		if (set_has(s, c))
			return c;
	return 0;
}

static struct irq *new_irq(int num, int node, const char *chip, int hwirq, const char *handler, const char *name)
{
	struct irq *q = &irqs[nirqs++];
	memset(q, 0, sizeof(*q));
	q->num = num;
	q->node = node;
	q->aff_cpu = -1;
	q->aff_set = all_cpus;
	q->eff = (int)rndn((unsigned)ncpus);
	q->hint = -1;
	q->hwirq = hwirq;
	q->handler = handler;
	snprintf(q->chip, sizeof(q->chip), "%s", chip);
	snprintf(q->name, sizeof(q->name), "%s", name);
	q->lo = 0;
	q->hi = 2;
	return q;
}

static void plan(void)
{
	devs = xmalloc((size_t)(ndevs ? ndevs : 1) * sizeof(*devs));
	int base = ndevs ? nirqs_wanted / ndevs : 0, extra = ndevs ? nirqs_wanted % ndevs : 0;
	int stride = nnodes <= 16 ? 16 : 256 / nnodes;
	int next_irq = FIRST_DEVICE_IRQ, nics = 0, nvmes = 0, total_vec = 0;
	for (int i = 0; i < ndevs; i++) {
		struct dev *d = &devs[i];
		int k = i / nnodes;
		d->node = i % nnodes;
		/* alternate the kinds so that every node gets both */
		d->nic = ((i + (nnodes % 2 == 0 ? i / nnodes : 0)) % 2) == 0;
		d->k = d->nic ? nics++ : nvmes++;
		d->bus = d->node * stride + 1;
		d->slot = k % 32;
		d->fn = k / 32;
		snprintf(d->addr, sizeof(d->addr), "0000:%02x:%02x.%u", (unsigned)d->bus & 0xff, (unsigned)d->slot & 0x1f,
			 (unsigned)d->fn & 7);
		int want = base + (i < extra);
		if (d->nic && nic_queues)
			want = nic_queues + 1;
		d->nq = want - 1 > ncpus ? ncpus : want - 1; /* queues never outnumber CPUs */
		d->nvec = d->nq + 1;
		d->first_irq = next_irq;
		next_irq += d->nvec;
		total_vec += d->nvec;
		unsigned r = rndn(10);
		d->policy = r < 6 ? 0 : r < 8 ? 1 : 2;
		d->rps = rndn(4) == 0;
		if (!d->nic)
			d->groups = spread_groups(d->nq);
	}

	nlegacy = 5 + npackages;
	irqs = xmalloc((size_t)(nlegacy + total_vec) * sizeof(*irqs));
	struct irq *q;
	q = new_irq(0, 0, "IR-IO-APIC", 2, "edge", "timer");
	q->eff = 0, q->lo = 1, q->hi = 1;
	q = new_irq(1, 0, "IR-IO-APIC", 1, "edge", "i8042");
	q = new_irq(8, 0, "IR-IO-APIC", 8, "edge", "rtc0");
	q = new_irq(9, 0, "IR-IO-APIC", 9, "fasteoi", "acpi");
	q = new_irq(12, 0, "IR-IO-APIC", 12, "edge", "i8042");
	for (int p = 0; p < npackages; p++) {
		char name[16];
		snprintf(name, sizeof(name), "dmar%d", p);
		q = new_irq(24 + p, p * NODES_PER_PACKAGE, "DMAR-MSI", 0, "edge", name);
		q->eff = first_cpu(pkg_cpus[p]);
	}

	for (int i = 0; i < ndevs; i++) {
		struct dev *d = &devs[i];
		char chip[40], name[40];
		snprintf(chip, sizeof(chip), "IR-PCI-MSIX-%s", d->addr);
		int remote = nnodes > 1 ? (d->node + (nnodes / 2 > 1 ? nnodes / 2 : 1)) % nnodes : d->node;
		for (int v = 0; v < d->nvec; v++) {
			if (d->nic && v < d->nq)
				snprintf(name, sizeof(name), "eth%d-TxRx-%d", d->k, v);
			else if (d->nic)
				snprintf(name, sizeof(name), "eth%d", d->k);
			else
				snprintf(name, sizeof(name), "nvme%dq%d", d->k, v);
			q = new_irq(d->first_irq + v, d->node, chip, v, "edge", name);
			if (d->nic && v < d->nq) {
				q->hint = node_spread[d->node][v % ncpus];
				q->lo = 4, q->hi = 8;
				if (d->policy == 0)
					q->aff_cpu = q->eff = q->hint;
				else if (d->policy == 1)
					q->aff_cpu = q->eff = node_spread[remote][v % ncpus];
				q->spread_anywhere = true;
			} else if (!d->nic && v > 0) {
				q->aff_set = d->groups[v - 1];
				q->managed = true;
				q->eff = first_cpu(q->aff_set);
				q->lo = 3, q->hi = 7;
			} else {
				q->lo = 0, q->hi = d->nic ? 2 : 3; /* misc, admin */
			}
		}
	}
}

static void put_irq_set(struct buf *b, const struct irq *q, bool mask, word *scratch)
{
	if (q->aff_cpu < 0) {
		if (mask)
			put_mask(b, q->aff_set, ncpus);
		else
			put_list(b, q->aff_set, ncpus);
		return;
	}
	set_add(scratch, q->aff_cpu);
	if (mask)
		put_mask(b, scratch, ncpus);
	else
		put_list(b, scratch, ncpus);
	set_zero(scratch);
}

static void put_one_cpu(struct buf *b, int cpu, bool mask, word *scratch)
{
	if (cpu < 0) {
		put_mask(b, NULL, ncpus);
		return;
	}
	set_add(scratch, cpu);
	if (mask)
		put_mask(b, scratch, ncpus);
	else
		put_list(b, scratch, ncpus);
	set_zero(scratch);
}

static void gen_pci(void)
{
	struct buf b = { 0 };
	word *scratch = set_new();
	bool *bus_done = xmalloc(256);
	bool drv_done[2] = { false, false };
	char name[64];

	at("sys/bus/pci/devices");
	at("sys/bus/pci/drivers");
	at("sys/class/net");
	at("sys/block");
	at("sys/class/block");
	if (ndevs)
		at("sys/class/nvme");
	at("sys/class/pci_bus");

	for (int i = 0; i < ndevs; i++) {
		struct dev *d = &devs[i];
		const char *drv = dev_driver(d);
		if (!bus_done[d->bus]) {
			bus_done[d->bus] = true;
			at("sys/devices/pci0000:%02x/pci_bus/0000:%02x", d->bus, d->bus);
			b.len = 0;
			put_mask(&b, node_cpus[d->node], ncpus);
			b_putc(&b, '\n');
			putb("cpuaffinity", &b);
			b.len = 0;
			put_list(&b, node_cpus[d->node], ncpus);
			b_putc(&b, '\n');
			putb("cpulistaffinity", &b);
			at("sys/class/pci_bus");
			snprintf(name, sizeof(name), "0000:%02x", d->bus);
			link_to(name, "../../devices/pci0000:%02x/pci_bus/0000:%02x", d->bus, d->bus);
		}
		if (!drv_done[d->nic]) {
			drv_done[d->nic] = true;
			at("sys/bus/pci/drivers/%s", drv);
			put("bind", "", 0);
			put("unbind", "", 0);
			put("new_id", "", 0);
			put("remove_id", "", 0);
			put("uevent", "", 0);
		}

		unsigned vendor = d->nic ? 0x8086 : 0x144d, device = d->nic ? 0x10fb : 0xa808;
		unsigned svendor = d->nic ? 0x8086 : 0x144d, sdevice = d->nic ? 0x000c : 0xa801;
		unsigned cls = d->nic ? 0x020000 : 0x010802, rev = d->nic ? 1 : 0;
		int legacy_irq = 16 + i % 8;
		at("sys/devices/pci0000:%02x/%s", d->bus, d->addr);
		putf("vendor", "0x%04x\n", vendor);
		putf("device", "0x%04x\n", device);
		putf("subsystem_vendor", "0x%04x\n", svendor);
		putf("subsystem_device", "0x%04x\n", sdevice);
		putf("class", "0x%06x\n", cls);
		putf("revision", "0x%02x\n", rev);
		putf("numa_node", "%d\n", d->node);
		b.len = 0;
		put_list(&b, node_cpus[d->node], ncpus);
		b_putc(&b, '\n');
		putb("local_cpulist", &b);
		b.len = 0;
		put_mask(&b, node_cpus[d->node], ncpus);
		b_putc(&b, '\n');
		putb("local_cpus", &b);
		putf("irq", "%d\n", legacy_irq);
		putf("enable", "1\n");
		putf("msi_bus", "1\n");
		putf("dma_mask_bits", "64\n");
		putf("consistent_dma_mask_bits", "64\n");
		putf("current_link_speed", "%s\n", d->nic ? "5.0 GT/s PCIe" : "8.0 GT/s PCIe");
		putf("max_link_speed", "%s\n", d->nic ? "5.0 GT/s PCIe" : "8.0 GT/s PCIe");
		putf("current_link_width", "%d\n", d->nic ? 8 : 4);
		putf("max_link_width", "%d\n", d->nic ? 8 : 4);
		putf("modalias", "pci:v%08Xd%08Xsv%08Xsd%08Xbc%02Xsc%02Xi%02X\n", vendor, device, svendor, sdevice,
		     cls >> 16, (cls >> 8) & 0xff, cls & 0xff);
		putf("uevent", "DRIVER=%s\nPCI_CLASS=%X\nPCI_ID=%04X:%04X\nPCI_SUBSYS_ID=%04X:%04X\nPCI_SLOT_NAME=%s\n"
		     "MODALIAS=pci:v%08Xd%08Xsv%08Xsd%08Xbc%02Xsc%02Xi%02X\n",
		     drv, cls, vendor, device, svendor, sdevice, d->addr, vendor, device, svendor, sdevice, cls >> 16,
		     (cls >> 8) & 0xff, cls & 0xff);
		/* BAR 0: 64-bit memory; 7 lines for a non-bridge function */
		unsigned long long bar = 0x200000000000ULL + (unsigned long long)i * 0x100000;
		unsigned long long size = d->nic ? 0x80000 : 0x4000;
		b.len = 0;
		b_printf(&b, "0x%016llx 0x%016llx 0x%016llx\n", bar, bar + size - 1, 0x140204ULL);
		for (int r = 1; r < 7; r++)
			b_printf(&b, "0x%016llx 0x%016llx 0x%016llx\n", 0ULL, 0ULL, 0ULL);
		putb("resource", &b);
		/* config space: a type 0 header, no capability list */
		unsigned char cfg[4096] = { 0 };
		cfg[0] = vendor & 0xff, cfg[1] = vendor >> 8, cfg[2] = device & 0xff, cfg[3] = device >> 8;
		cfg[4] = 0x06, cfg[5] = 0x04; /* memory space, bus master, INTx disabled */
		cfg[8] = (unsigned char)rev, cfg[9] = cls & 0xff, cfg[10] = (cls >> 8) & 0xff, cfg[11] = cls >> 16;
		cfg[0x10] = 0x04 | (unsigned char)(bar & 0xf0);
		for (int j = 1; j < 8; j++)
			cfg[0x10 + j] = (unsigned char)(bar >> (8 * j));
		cfg[0x2c] = svendor & 0xff, cfg[0x2d] = svendor >> 8, cfg[0x2e] = sdevice & 0xff, cfg[0x2f] = sdevice >> 8;
		cfg[0x3c] = (unsigned char)legacy_irq, cfg[0x3d] = 1;
		put("config", cfg, sizeof(cfg));
		link_to("driver", "../../../bus/pci/drivers/%s", drv);
		link_to("subsystem", "../../../bus/pci");
		subdir("msi_irqs");
		for (int v = 0; v < d->nvec; v++) {
			snprintf(name, sizeof(name), "msi_irqs/%d", d->first_irq + v);
			put(name, "msix\n", 5);
		}

		at("sys/bus/pci/devices");
		link_to(d->addr, "../../../devices/pci0000:%02x/%s", d->bus, d->addr);
		at("sys/bus/pci/drivers/%s", drv);
		link_to(d->addr, "../../../../devices/pci0000:%02x/%s", d->bus, d->addr);

		if (d->nic) {
			at("sys/devices/pci0000:%02x/%s/net/eth%d", d->bus, d->addr, d->k);
			putf("address", "00:1b:21:%02x:%02x:%02x\n", d->bus, d->slot, d->fn);
			putf("addr_len", "6\n");
			putf("ifindex", "%d\n", d->k + 2);
			putf("iflink", "%d\n", d->k + 2);
			putf("mtu", "1500\n");
			putf("operstate", "up\n");
			putf("carrier", "1\n");
			putf("speed", "10000\n");
			putf("type", "1\n");
			putf("uevent", "INTERFACE=eth%d\nIFINDEX=%d\n", d->k, d->k + 2);
			link_to("device", "../../../%s", d->addr);
			link_to("subsystem", "../../../../../class/net");
			for (int q = 0; q < d->nq; q++) {
				at("sys/devices/pci0000:%02x/%s/net/eth%d/queues/rx-%d", d->bus, d->addr, d->k, q);
				b.len = 0;
				put_mask(&b, d->rps ? node_cpus[d->node] : NULL, ncpus);
				b_putc(&b, '\n');
				putb("rps_cpus", &b);
				putf("rps_flow_cnt", "0\n");
			}
			for (int q = 0; q < d->nq; q++) {
				at("sys/devices/pci0000:%02x/%s/net/eth%d/queues/tx-%d", d->bus, d->addr, d->k, q);
				b.len = 0;
				put_one_cpu(&b, irqs[nlegacy + (d->first_irq - FIRST_DEVICE_IRQ) + q].hint, true, scratch);
				b_putc(&b, '\n');
				putb("xps_cpus", &b);
				b.len = 0;
				put_mask(&b, NULL, d->nq);
				b_putc(&b, '\n');
				putb("xps_rxqs", &b);
				putf("tx_maxrate", "0\n");
				putf("tx_timeout", "0\n");
			}
			at("sys/class/net");
			snprintf(name, sizeof(name), "eth%d", d->k);
			link_to(name, "../../devices/pci0000:%02x/%s/net/eth%d", d->bus, d->addr, d->k);
		} else {
			at("sys/devices/pci0000:%02x/%s/nvme/nvme%d", d->bus, d->addr, d->k);
			putf("model", "%-40s\n", "SAMSUNG MZQL23T8HCLS-00A07");
			putf("serial", "S64HNE0R%06d      \n", 100000 + d->k);
			putf("firmware_rev", "GDC5602Q\n");
			putf("state", "live\n");
			putf("transport", "pcie\n");
			putf("address", "%s\n", d->addr);
			putf("cntlid", "%d\n", 6);
			putf("queue_count", "%d\n", d->nq + 1);
			putf("sqsize", "1023\n");
			putf("dev", "241:%d\n", d->k);
			putf("uevent", "MAJOR=241\nMINOR=%d\nDEVNAME=nvme%d\nNVME_TRTYPE=pcie\n", d->k, d->k);
			link_to("device", "../../../%s", d->addr);
			link_to("subsystem", "../../../../../class/nvme");

			at("sys/devices/pci0000:%02x/%s/nvme/nvme%d/nvme%dn1", d->bus, d->addr, d->k, d->k);
			putf("dev", "259:%d\n", d->k);
			putf("size", "%llu\n", 7501476528ULL);
			putf("ro", "0\n");
			putf("removable", "0\n");
			putf("uevent", "MAJOR=259\nMINOR=%d\nDEVNAME=nvme%dn1\nDEVTYPE=disk\nDISKSEQ=%d\n", d->k, d->k,
			     d->k + 9);
			link_to("device", "../../nvme%d", d->k);
			link_to("subsystem", "../../../../../../class/block");
			subdir("queue");
			unsigned r = rndn(10);
			putf("queue/rq_affinity", "%d\n", r < 7 ? 1 : r < 9 ? 2 : 0);
			putf("queue/scheduler", "%s\n", rndn(4) ? "[none] mq-deadline" : "none [mq-deadline]");
			putf("queue/nr_requests", "1023\n");
			putf("queue/logical_block_size", "512\n");
			putf("queue/physical_block_size", "512\n");
			putf("queue/hw_sector_size", "512\n");
			putf("queue/rotational", "0\n");
			putf("queue/max_sectors_kb", "1280\n");
			subdir("mq");
			for (int q = 0; q < d->nq; q++) {
				at("sys/devices/pci0000:%02x/%s/nvme/nvme%d/nvme%dn1/mq/%d", d->bus, d->addr, d->k, d->k, q);
				b.len = 0;
				put_list_spaced(&b, d->groups[q], ncpus);
				b_putc(&b, '\n');
				putb("cpu_list", &b);
				putf("nr_tags", "1023\n");
				putf("nr_reserved_tags", "0\n");
			}
			at("sys/block");
			snprintf(name, sizeof(name), "nvme%dn1", d->k);
			link_to(name, "../devices/pci0000:%02x/%s/nvme/nvme%d/nvme%dn1", d->bus, d->addr, d->k, d->k);
			at("sys/class/block");
			link_to(name, "../../devices/pci0000:%02x/%s/nvme/nvme%d/nvme%dn1", d->bus, d->addr, d->k, d->k);
			at("sys/class/nvme");
			snprintf(name, sizeof(name), "nvme%d", d->k);
			link_to(name, "../../devices/pci0000:%02x/%s/nvme/nvme%d", d->bus, d->addr, d->k);
		}
	}

	/* the loopback interface: not a PCI function, one queue of each kind */
	at("sys/devices/virtual/net/lo");
	putf("address", "00:00:00:00:00:00\n");
	putf("addr_len", "6\n");
	putf("ifindex", "1\n");
	putf("iflink", "1\n");
	putf("mtu", "65536\n");
	putf("operstate", "unknown\n");
	putf("carrier", "1\n");
	putf("type", "772\n");
	putf("uevent", "INTERFACE=lo\nIFINDEX=1\n");
	link_to("subsystem", "../../../../class/net");
	at("sys/devices/virtual/net/lo/queues/rx-0");
	b.len = 0;
	put_mask(&b, NULL, ncpus);
	b_putc(&b, '\n');
	putb("rps_cpus", &b);
	putf("rps_flow_cnt", "0\n");
	at("sys/devices/virtual/net/lo/queues/tx-0");
	putf("tx_maxrate", "0\n");
	putf("tx_timeout", "0\n");
	at("sys/class/net");
	link_to("lo", "../../devices/virtual/net/lo");

	free(bus_done);
	free(scratch);
	free(b.p);
}

static void gen_proc_irq_common(void)
{
	struct buf b = { 0 };
	at("proc/irq");
	put_mask(&b, all_cpus, ncpus);
	b_putc(&b, '\n');
	putb("default_smp_affinity", &b);
	free(b.p);
}

/* sys/kernel/debug/irq/irqs/N as kernel/irq/debugfs.c prints it (x86, 6.8):
 * an MSI-X vector, requested and started, its domain hierarchy down to the
 * vector domain; the managed flag where the kernel spread it. */
static void put_debugfs(struct buf *b, const struct irq *q, word *scratch)
{
	unsigned dstate = 0x200 | 0x400000 | 0x1000000 | (q->managed ? 0x200000 | 0x1000 : 0) |
			  (q->aff_cpu >= 0 ? 0x1000 : 0);
	static const struct {
		unsigned bit;
		const char *name;
	} flags[] = { { 0x200, "IRQD_ACTIVATED" },	 { 0x400000, "IRQD_IRQ_STARTED" },
		      { 0x1000000, "IRQD_SINGLE_TARGET" }, { 0x1000, "IRQD_AFFINITY_SET" },
		      { 0x200000, "IRQD_AFFINITY_MANAGED" } };
	b_printf(b, "handler:  handle_%s_irq\ndevice:   %s\nstatus:   0x%08x\nistate:   0x%08x\n"
		    "ddepth:   0\nwdepth:   0\ndstate:   0x%08x\n",
		 q->handler, !strncmp(q->chip, "IR-PCI-MSIX-", 12) ? q->chip + 12 : "(null)", 0, 0, dstate);
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (dstate & flags[i].bit)
			b_printf(b, "            %s\n", flags[i].name);
	b_printf(b, "node:     %d\naffinity: ", q->node);
	put_irq_set(b, q, false, scratch);
	b_printf(b, "\neffectiv: %d\npending:  \n", q->eff);
	b_printf(b, "domain:  %s\n hwirq:   0x%x\n chip:    %s\n  flags:   0x30\n"
		    "             IRQCHIP_SKIP_SET_WAKE\n             IRQCHIP_ONESHOT_SAFE\n",
		 q->chip, q->hwirq, q->chip);
	b_printf(b, " parent:\n    domain:  VECTOR\n     hwirq:   0x%x\n     chip:    APIC\n      flags:   0x0\n"
		    "     Vector: %5u\n     Target: %5u\n     move_in_progress: 0\n     is_managed:       %d\n"
		    "     can_reserve:      0\n     has_reserved:     0\n     cleanup_pending:  0\n",
		 (unsigned)q->num, 34 + (unsigned)q->num % 180, (unsigned)q->eff, q->managed);
}

/* /proc/irq/N for irqs[from..to-1] */
static void gen_proc_irq(int from, int to)
{
	struct buf b = { 0 };
	word *scratch = set_new();
	for (int i = from; i < to; i++) {
		const struct irq *q = &irqs[i];
		at("proc/irq/%d", q->num);
		b.len = 0;
		put_irq_set(&b, q, true, scratch);
		b_putc(&b, '\n');
		putb("smp_affinity", &b);
		b.len = 0;
		put_irq_set(&b, q, false, scratch);
		b_putc(&b, '\n');
		putb("smp_affinity_list", &b);
		b.len = 0;
		put_one_cpu(&b, q->eff, true, scratch);
		b_putc(&b, '\n');
		putb("effective_affinity", &b);
		putf("effective_affinity_list", "%d\n", q->eff);
		b.len = 0;
		put_one_cpu(&b, q->hint, true, scratch);
		b_putc(&b, '\n');
		putb("affinity_hint", &b);
		putf("node", "%d\n", q->node);
		subdir(q->name);
	}
	at("sys/kernel/debug/irq/irqs");
	for (int i = from; i < to; i++) {
		char name[16];
		b.len = 0;
		put_debugfs(&b, &irqs[i], scratch);
		snprintf(name, sizeof(name), "%d", irqs[i].num);
		putb(name, &b);
	}
	free(scratch);
	free(b.p);
}

/* ---------------------------------------------------------- /proc/interrupts */

static int prec; /* width of the first column, from nr_irqs as the kernel does */
static long long nr_irqs;
static char *zero_row;
/* What /proc/interrupts holds, for /proc/stat and /proc/softirqs: each row's
 * total, and each CPU's interrupts from NICs and from NVMe controllers. */
static unsigned long long *row_total, *cpu_net, *cpu_blk;

static void put_counts_begin(struct buf *b)
{
	b_put(b, zero_row, (size_t)ncpus * 11);
}

/* Overwrites CPU cpu's column in the row whose counts start at offset start. */
static void put_count(struct buf *b, size_t start, int cpu, unsigned v)
{
	/* 6.18: " %10u" per CPU; older: "%10u " */
	char *field = b->p + start + (size_t)cpu * 11 + (legacy_format ? 0 : 1);
	for (int i = 9; i >= 0; i--) {
		field[i] = v || i == 9 ? (char)('0' + v % 10) : ' ';
		v /= 10;
	}
}

/* Counts v on CPU cpu for row i (a device's vector from FIRST_DEVICE_IRQ on). */
static void tally(int i, const struct irq *q, int cpu, unsigned v)
{
	row_total[i] += v;
	if (q->num >= FIRST_DEVICE_IRQ)
		(strncmp(q->name, "eth", 3) ? cpu_blk : cpu_net)[cpu] += v;
}

static void put_irq_row(struct buf *b, int i, const struct irq *q)
{
	b_putu(b, (unsigned)q->num, prec);
	b_putc(b, ':');
	if (legacy_format)
		b_putc(b, ' ');
	size_t start = b->len;
	put_counts_begin(b);
	if (q->num == 0 || rndn(20)) { /* one in twenty rows never fired */
		unsigned main_count = count_between(q->lo, q->hi);
		put_count(b, start, q->eff, main_count);
		tally(i, q, q->eff, main_count);
		if (rndn(100) < 35) {
			/* counts left behind on CPUs the IRQ ran on before */
			int extra = 1 + (int)rndn(3);
			for (int e = 0; e < extra; e++) {
				int c = (int)rndn((unsigned)ncpus);
				if (!q->spread_anywhere && q->aff_cpu < 0) {
					for (int tries = 0; tries < 64 && !set_has(q->aff_set, c); tries++)
						c = (int)rndn((unsigned)ncpus);
					if (!set_has(q->aff_set, c))
						continue;
				}
				if (c != q->eff) {
					unsigned v = 1 + main_count / (20 + rndn(2000));
					put_count(b, start, c, v);
					tally(i, q, c, v);
				}
			}
		}
	}
	b_putc(b, ' ');
	size_t chip = strlen(q->chip);
	if (chip < 8)
		b_fill(b, ' ', 8 - chip);
	b_put(b, q->chip, chip);
	b_putc(b, ' ');
	b_putu(b, (unsigned)q->hwirq, prec);
	b_putc(b, '-');
	b_puts(b, q->handler);
	if (strlen(q->handler) < 8)
		b_fill(b, ' ', 8 - strlen(q->handler));
	b_puts(b, "  ");
	b_puts(b, q->name);
	b_putc(b, '\n');
}

struct arch_row {
	const char *sym, *text;
	int lo, hi; /* -1: all zero */
};

static const struct arch_row arch_rows[] = {
	{ "NMI", "Non-maskable interrupts", 2, 4 },
	{ "LOC", "Local timer interrupts", 7, 8 },
	{ "SPU", "Spurious interrupts", -1, 0 },
	{ "PMI", "Performance monitoring interrupts", 2, 4 },
	{ "IWI", "IRQ work interrupts", 1, 4 },
	{ "RTR", "APIC ICR read retries", -1, 0 },
	{ "RES", "Rescheduling interrupts", 4, 7 },
	{ "CAL", "Function call interrupts", 4, 7 },
	{ "TLB", "TLB shootdowns", 3, 6 },
	{ "TRM", "Thermal event interrupts", -1, 0 },
	{ "THR", "Threshold APIC interrupts", -1, 0 },
	{ "DFR", "Deferred Error APIC interrupts", -1, 0 },
	{ "MCE", "Machine check exceptions", -1, 0 },
	{ "MCP", "Machine check polls", 3, 3 },
	{ "HYP", "Hypervisor callback interrupts", -1, 0 },
	{ "ERR", NULL, 0, 0 },
	{ "MIS", NULL, 0, 0 },
	{ "PIN", "Posted-interrupt notification event", -1, 0 },
	{ "NPI", "Nested posted-interrupt event", -1, 0 },
	{ "PIW", "Posted-interrupt wakeup event", -1, 0 },
};

static unsigned long long gen_interrupts(void)
{
	int last = nirqs ? irqs[nirqs - 1].num : 0;
	nr_irqs = 24 + 16 + 8LL * ncpus + 24 * 16; /* x86 arch_probe_nr_irqs(), one IO-APIC */
	if (nr_irqs < last + 1)
		nr_irqs = last + 1;
	long long j = 1000;
	for (prec = 3; prec < 10 && j <= nr_irqs; prec++)
		j *= 10;

	zero_row = xmalloc((size_t)ncpus * 11 + 1);
	for (int c = 0; c < ncpus; c++)
		memcpy(zero_row + (size_t)c * 11, legacy_format ? "         0 " : "          0", 11);

	struct out o;
	unsigned long long before = nbytes;
	out_open(&o, "proc", "interrupts");
	b_fill(&o.b, ' ', (size_t)prec + 8);
	for (int c = 0; c < ncpus; c++)
		b_printf(&o.b, "CPU%-8d", c);
	b_putc(&o.b, '\n');
	row_total = xmalloc(((size_t)nirqs + 1) * sizeof(*row_total));
	cpu_net = xmalloc((size_t)ncpus * sizeof(*cpu_net));
	cpu_blk = xmalloc((size_t)ncpus * sizeof(*cpu_blk));
	for (int i = 0; i < nirqs; i++) {
		put_irq_row(&o.b, i, &irqs[i]);
		out_flush(&o, false);
	}
	for (size_t r = 0; r < sizeof(arch_rows) / sizeof(arch_rows[0]); r++) {
		const struct arch_row *a = &arch_rows[r];
		if (!a->text) {
			b_printf(&o.b, "%*s: %10u\n", prec, a->sym, 0);
			continue;
		}
		b_printf(&o.b, "%*s:", prec, a->sym);
		size_t start = o.b.len;
		/* arch rows keep the older " " + "%10u " per CPU + "  " + text */
		b_putc(&o.b, ' ');
		for (int c = 0; c < ncpus; c++)
			b_put(&o.b, "         0 ", 11);
		if (a->lo >= 0)
			for (int c = 0; c < ncpus; c++) {
				char *field = o.b.p + start + 1 + (size_t)c * 11;
				unsigned v = count_between(a->lo, a->hi);
				for (int k = 9; k >= 0; k--) {
					field[k] = v || k == 9 ? (char)('0' + v % 10) : ' ';
					v /= 10;
				}
			}
		b_puts(&o.b, "  ");
		b_puts(&o.b, a->text);
		b_putc(&o.b, '\n');
	}
	out_close(&o);
	free(zero_row);
	return nbytes - before;
}

/* ------------------------------------- /proc/uptime, /proc/stat, /proc/softirqs */

#define UPTIME 1000 /* seconds: what the counts cover */

/* After gen_interrupts(): the CPU time its interrupts cost. */
static void gen_proc_load(void)
{
	struct buf b = { 0 };
	at("proc");
	putf("uptime", "%d.00 %llu.00\n", UPTIME, (unsigned long long)UPTIME * (unsigned)ncpus * 9 / 10);

	/* user nice system idle iowait irq softirq steal guest guest_nice */
	unsigned long long all = UPTIME * 100ULL, sum[10] = { 0 };
	unsigned long long(*t)[10] = xmalloc((size_t)ncpus * sizeof(*t));
	for (int c = 0; c < ncpus; c++) {
		unsigned long long n = cpu_net[c] + cpu_blk[c];
		t[c][0] = all / 5;
		t[c][2] = all / 20;
		t[c][5] = n / 5000;
		t[c][6] = n * 6 / 10000;
		unsigned long long used = t[c][0] + t[c][2] + t[c][5] + t[c][6];
		t[c][3] = used < all ? all - used : 0;
		for (int k = 0; k < 10; k++)
			sum[k] += t[c][k];
	}
	b_puts(&b, "cpu ");
	for (int k = 0; k < 10; k++)
		b_printf(&b, " %llu", sum[k]);
	b_putc(&b, '\n');
	for (int c = 0; c < ncpus; c++) {
		b_printf(&b, "cpu%d", c);
		for (int k = 0; k < 10; k++)
			b_printf(&b, " %llu", t[c][k]);
		b_putc(&b, '\n');
	}
	free(t);
	/* intr: the sum, then every IRQ number's total below nr_irqs */
	unsigned long long intr = 0;
	for (int i = 0; i < nirqs; i++)
		intr += row_total[i];
	b_printf(&b, "intr %llu", intr);
	for (long long n = 0, i = 0; n < nr_irqs; n++) {
		unsigned long long v = 0;
		if (i < nirqs && irqs[i].num == n)
			v = row_total[i++];
		b_printf(&b, " %llu", v);
	}
	static const char *const names[] = { "HI", "TIMER", "NET_TX", "NET_RX", "BLOCK",
					     "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU" };
	unsigned long long soft[10] = { 0 };
	for (int c = 0; c < ncpus; c++) {
		soft[1] += UPTIME * 250ULL;
		soft[2] += cpu_net[c] / 50;
		soft[3] += cpu_net[c];
		soft[4] += cpu_blk[c];
		soft[7] += UPTIME * 120ULL;
		soft[9] += UPTIME * 90ULL;
	}
	unsigned long long soft_all = 0;
	for (int k = 0; k < 10; k++)
		soft_all += soft[k];
	b_printf(&b, "\nctxt %llu\nbtime 1700000000\nprocesses %d\nprocs_running 1\nprocs_blocked 0\nsoftirq %llu",
		 UPTIME * 4000ULL * (unsigned)ncpus, UPTIME * 3, soft_all);
	for (int k = 0; k < 10; k++)
		b_printf(&b, " %llu", soft[k]);
	b_putc(&b, '\n');
	putb("stat", &b);

	b.len = 0;
	b_fill(&b, ' ', 20);
	for (int c = 0; c < ncpus; c++)
		b_printf(&b, "CPU%-8d", c);
	b_putc(&b, '\n');
	for (int k = 0; k < 10; k++) {
		b_printf(&b, "%12s:", names[k]);
		for (int c = 0; c < ncpus; c++) {
			unsigned long long v = k == 1 ? UPTIME * 250ULL : k == 7 ? UPTIME * 120ULL : k == 9 ? UPTIME * 90ULL
					     : k == 2 ? cpu_net[c] / 50 : k == 3 ? cpu_net[c] : k == 4 ? cpu_blk[c] : 0;
			b_printf(&b, " %10llu", v);
		}
		b_putc(&b, '\n');
	}
	putb("softirqs", &b);
	free(b.p);
}

/* --------------------------------------------------------------- parallel */

/* The tree is written by `jobs` processes. Everything random is drawn by job
 * 0 alone, in a fixed order (the rest reads only what plan() decided before
 * the fork), so the tree does not depend on the number of processes. */
static int jobs;

struct counts {
	unsigned long files, dirs, links;
	unsigned long long bytes;
};

static unsigned long long run_job(int j, int ncpu_chunks, int cpu_chunk, int irq_chunk)
{
	if (j == 0) {
		gen_cpu_common();
		gen_nodes();
		gen_proc_basics();
		gen_pci();
		gen_proc_irq_common();
		unsigned long long bytes = gen_interrupts();
		gen_proc_load();
		return bytes;
	}
	j--;
	if (j < ncpu_chunks) {
		int from = j * cpu_chunk;
		gen_cpus(from, from + cpu_chunk < ncpus ? from + cpu_chunk : ncpus);
	} else {
		int from = (j - ncpu_chunks) * irq_chunk;
		gen_proc_irq(from, from + irq_chunk < nirqs ? from + irq_chunk : nirqs);
	}
	return 0;
}

static unsigned long long run_jobs(void)
{
	int cpu_chunk = 64, irq_chunk = 256;
	int ncpu_chunks = (ncpus + cpu_chunk - 1) / cpu_chunk;
	int njobs = 1 + ncpu_chunks + (nirqs + irq_chunk - 1) / irq_chunk;
	int fds[2];
	pid_t *pids = xmalloc((size_t)jobs * sizeof(pid_t));
	if (jobs > 1 && pipe(fds) != 0)
		die("cannot create a pipe: %s", strerror(errno));
	fflush(NULL);
	workers = pids;
	for (int w = 1; w < jobs; w++) {
		pid_t pid = fork();
		if (pid < 0)
			die("cannot fork: %s", strerror(errno));
		if (pid == 0) {
			nworkers = 0; /* a worker has none of its own */
			close(fds[0]);
			for (int j = w; j < njobs; j += jobs)
				run_job(j, ncpu_chunks, cpu_chunk, irq_chunk);
			struct counts c = { nfiles, ndirs, nlinks, nbytes };
			if (write(fds[1], &c, sizeof(c)) != (ssize_t)sizeof(c))
				die("cannot report to the parent: %s", strerror(errno));
			_exit(0);
		}
		pids[w] = pid;
		nworkers = w + 1;
	}
	if (jobs > 1)
		close(fds[1]);
	unsigned long long isize = 0;
	for (int j = 0; j < njobs; j += jobs)
		isize += run_job(j, ncpu_chunks, cpu_chunk, irq_chunk);
	bool failed = false;
	for (int w = 1; w < jobs; w++) {
		int status;
		while (waitpid(pids[w], &status, 0) < 0)
			if (errno != EINTR)
				die("cannot wait for a worker: %s", strerror(errno));
		pids[w] = 0;
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			failed = true;
		struct counts c;
		if (!failed && read(fds[0], &c, sizeof(c)) == (ssize_t)sizeof(c)) {
			nfiles += c.files, ndirs += c.dirs, nlinks += c.links, nbytes += c.bytes;
		}
	}
	if (jobs > 1)
		close(fds[0]);
	nworkers = 0;
	free(pids);
	if (failed)
		die("a worker process failed (see above)");
	return isize;
}

/* -------------------------------------------------------------------- main */

static void usage(FILE *f)
{
	fputs("usage: gen-root OUTDIR --cpus N --nodes M --devices D --irqs I [--smt] [--seed S] [--legacy-format]\n"
	      "                [--hardlink] [--jobs J] [--nic-queues Q]\n"
	      "Writes a synthetic x86 machine under OUTDIR/sys and OUTDIR/proc (OUTDIR must be new or empty).\n"
	      "--hardlink: read-only files with the same contents share one inode (faster; never edit\n"
	      "            such a tree's files in place). --jobs: processes writing in parallel (default:\n"
	      "            online CPUs, at most 16); the tree is the same whatever the number.\n"
	      "--nic-queues: each NIC has Q queues (Q + 1 vectors), whatever --irqs gives the NVMe ones.\n",
	      f);
}

static long long number(const char *opt, const char *v, long long min, long long max)
{
	char *end;
	errno = 0;
	long long n = v ? strtoll(v, &end, 10) : 0;
	if (!v || !*v || *end || errno || n < min || n > max) {
		fprintf(stderr, "gen-root: %s: expected a number from %lld to %lld, got '%s'\n", opt, min, max,
			v ? v : "");
		exit(2);
	}
	return n;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double t0 = now();
	int have = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = NULL;
		char opt[32];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		}
		if (strncmp(a, "--", 2)) {
			if (outdir) {
				fprintf(stderr, "gen-root: unexpected argument '%s'\n", a);
				usage(stderr);
				return 2;
			}
			outdir = a;
			continue;
		}
		const char *eq = strchr(a, '=');
		snprintf(opt, sizeof(opt), "%.*s", eq ? (int)(eq - a) : (int)strlen(a), a);
		if (!strcmp(opt, "--smt") && !eq) {
			smt = true;
			continue;
		}
		if (!strcmp(opt, "--legacy-format") && !eq) {
			legacy_format = true;
			continue;
		}
		if (!strcmp(opt, "--hardlink") && !eq) {
			hardlink = true;
			continue;
		}
		v = eq ? eq + 1 : i + 1 < argc ? argv[++i] : NULL;
		if (!strcmp(opt, "--cpus"))
			ncpus = (int)number(opt, v, 1, 65536), have |= 1;
		else if (!strcmp(opt, "--nodes"))
			nnodes = (int)number(opt, v, 1, 128), have |= 2;
		else if (!strcmp(opt, "--devices"))
			ndevs = (int)number(opt, v, 0, 32768), have |= 4;
		else if (!strcmp(opt, "--irqs"))
			nirqs_wanted = (int)number(opt, v, 0, 1000000), have |= 8;
		else if (!strcmp(opt, "--seed"))
			seed = (unsigned long long)number(opt, v, 0, LLONG_MAX);
		else if (!strcmp(opt, "--jobs"))
			jobs = (int)number(opt, v, 1, 64);
		else if (!strcmp(opt, "--nic-queues"))
			nic_queues = (int)number(opt, v, 1, 65536);
		else {
			fprintf(stderr, "gen-root: unknown option '%s'\n", a);
			usage(stderr);
			return 2;
		}
	}
	if (!outdir || have != 15) {
		fprintf(stderr, "gen-root: %s\n", !outdir ? "missing OUTDIR" : "--cpus, --nodes, --devices and --irqs are required");
		usage(stderr);
		return 2;
	}
	if (smt && ncpus % 2) {
		fprintf(stderr, "gen-root: --smt needs an even number of CPUs\n");
		return 2;
	}
	if ((smt ? ncpus / 2 : ncpus) < nnodes) {
		fprintf(stderr, "gen-root: %d nodes need at least %d %s\n", nnodes, nnodes, smt ? "cores (2 CPUs each)" : "CPUs");
		return 2;
	}
	if (ndevs > 256 * nnodes) {
		fprintf(stderr, "gen-root: at most 256 devices per node (one root bus each)\n");
		return 2;
	}
	if (ndevs && nirqs_wanted < 2 * ndevs) {
		fprintf(stderr, "gen-root: --irqs must be at least 2 per device (%d)\n", 2 * ndevs);
		return 2;
	}
	if (!ndevs && nirqs_wanted) {
		fprintf(stderr, "gen-root: --irqs needs devices to belong to\n");
		return 2;
	}

	/* OUTDIR: new or empty, never merged into an old tree */
	if (mkdir(outdir, 0755) != 0) {
		if (errno != EEXIST)
			die("cannot create '%s': %s", outdir, strerror(errno));
		DIR *dir = opendir(outdir);
		if (!dir)
			die("cannot open '%s': %s", outdir, strerror(errno));
		struct dirent *de;
		while ((de = readdir(dir)))
			if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
				die("'%s' is not empty (refusing to write into an existing tree)", outdir);
		closedir(dir);
	}
	if (chdir(outdir) != 0)
		die("cannot enter '%s': %s", outdir, strerror(errno));

	rng_state = seed;
	build_machine();
	plan();
	if (jobs <= 0) {
		long online = sysconf(_SC_NPROCESSORS_ONLN);
		jobs = online < 1 ? 1 : online > 16 ? 16 : (int)online;
	}
	unsigned long long isize = run_jobs();

	/* written last: its presence says the tree is complete */
	at(".");
	char nicq[32] = "";
	if (nic_queues)
		snprintf(nicq, sizeof(nicq), " --nic-queues %d", nic_queues);
	putf(".gen-root", "gen-root --cpus %d --nodes %d --devices %d --irqs %d%s --seed %llu%s%s%s\n", ncpus, nnodes,
	     ndevs, nirqs_wanted, smt ? " --smt" : "", seed, legacy_format ? " --legacy-format" : "",
	     hardlink ? " --hardlink" : "", nicq);
	if (cur_fd >= 0 && close(cur_fd) != 0)
		die("cannot close '%s': %s", outdir, strerror(errno));

	printf("gen-root: %s: %d CPUs, %d nodes, %d devices, %d device IRQs (%d-%d) + %d others; "
	       "%lu files, %lu dirs, %lu links, %.1f MB (/proc/interrupts %.1f MB) in %.2f s\n",
	       outdir, ncpus, nnodes, ndevs, nirqs - nlegacy, FIRST_DEVICE_IRQ,
	       nirqs > nlegacy ? irqs[nirqs - 1].num : FIRST_DEVICE_IRQ - 1, nlegacy, nfiles, ndirs, nlinks,
	       nbytes / 1e6, isize / 1e6, now() - t0);
	if (fflush(stdout) != 0 || ferror(stdout))
		die("cannot write to standard output");
	return 0;
}
