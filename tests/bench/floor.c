/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The floor: the least I/O `numaplace report --json` can do on a machine root.
 *
 *   bench-floor ROOT [PCI_IDS]
 *
 * Opens and reads once each file the report reads (strace -f -e
 * trace=openat2,readlink,getdents64 of `numaplace --root ROOT report --json`
 * lists them) and does nothing with the contents, except what it takes to
 * know which files come next (the CPU numbers in "present" and "online",
 * the IRQ numbers at the start of /proc/interrupts lines, the names in
 * directories):
 * - the CPUs and nodes: present, online, the kernel command line, isolated,
 *   nohz_full, node/possible and each node's cpulist, distance and meminfo,
 *   each CPU's package, core and thread siblings, one shared_cpu_list per L3
 *   domain;
 * - what keeps CPUs free of IRQs or says what the kernel is: realtime,
 *   the kernel's version, rps_sock_flow_entries, the kubelet's CPU manager
 *   state, irqbalance's unit and configuration files, TuneD's active
 *   profile (absent on the bench root: what a present one names is not
 *   followed here);
 * - each PCI function's vendor/device/class/irq/numa_node/local_cpulist, its
 *   driver link and msi_irqs listing; each network queue's rps_cpus,
 *   rps_flow_cnt (receive) or xps_cpus (transmit); each block device's
 *   queue/rq_affinity, queue/scheduler and mq/N/cpu_list;
 * - the PCI ID database (PCI_IDS, when given: the report names the devices);
 * - /proc/interrupts in full, each IRQ's smp_affinity_list,
 *   effective_affinity_list and debugfs state (sys/kernel/debug/irq/irqs/N,
 *   where the root has it), default_smp_affinity;
 * - /proc/uptime, /proc/stat and /proc/softirqs (what the counts cover and
 *   what interrupts cost), the host's name, kernel and boot id, and each
 *   /proc/PID/comm (irqbalance running?).
 * A file is read until a short read (open, read, close: the least a reader
 * can do), as numaplace reads a copy's files; /proc/interrupts to its end.
 * Prints the number of bytes read and nothing else.
 * Absent files are skipped (as optional ones are by numaplace); any other
 * error is reported and exits 1. Standalone: plain libc. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *root;
static unsigned long long total;
static char buf[1 << 16];

static void fail(const char *what, const char *path)
{
	fprintf(stderr, "bench-floor: %s '%s': %s\n", what, path, strerror(errno));
	exit(1);
}

static const char *pathf(char *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static const char *pathf(char *out, const char *fmt, ...)
{
	size_t len = strlen(root);
	memcpy(out, root, len);
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(out + len, PATH_MAX - len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= PATH_MAX - len) {
		errno = ENAMETOOLONG;
		fail("path too long under", root);
	}
	return out;
}

/* Reads a whole file into buf (NUL-terminated, truncated to buf's size);
 * returns its length, or -1 when it does not exist. */
static long slurp(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return -1;
		fail("cannot open", path);
	}
	size_t len = 0;
	for (;;) {
		ssize_t n = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			fail("cannot read", path);
		if (n == 0)
			break;
		total += (unsigned long long)n;
		size_t want = sizeof(buf) - 1 - len;
		len += (size_t)n;
		if ((size_t)n < want)
			break; /* a short read ends a regular file */
		if (len == sizeof(buf) - 1)
			len = 0; /* longer than any file read here: keep counting */
	}
	close(fd);
	buf[len] = '\0';
	return (long)len;
}

static void slurpf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void slurpf(const char *fmt, ...)
{
	char rel[PATH_MAX], path[PATH_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	slurp(pathf(path, "%s", rel));
}

struct names {
	char **v;
	size_t n;
};

/* Directory entries (no "." and ".."); an absent directory gives none. */
static struct names list(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static struct names list(const char *fmt, ...)
{
	char rel[PATH_MAX], path[PATH_MAX];
	struct names out = { NULL, 0 };
	size_t cap = 0;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	DIR *dir = opendir(pathf(path, "%s", rel));
	if (!dir) {
		if (errno == ENOENT || errno == ENOTDIR)
			return out;
		fail("cannot list", path);
	}
	struct dirent *de;
	while ((de = readdir(dir))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (out.n == cap) {
			cap = cap ? 2 * cap : 64;
			out.v = realloc(out.v, cap * sizeof(*out.v));
			if (!out.v)
				fail("out of memory listing", path);
		}
		if (!(out.v[out.n++] = strdup(de->d_name)))
			fail("out of memory listing", path);
	}
	closedir(dir);
	return out;
}

static void names_free(struct names *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

/* Calls fn for each CPU of a list such as "0-3,8" held in text. */
static void each_in_list(const char *text, void (*fn)(int))
{
	const char *p = text;
	while (*p >= '0' && *p <= '9') {
		char *end;
		long a = strtol(p, &end, 10), b = a;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		for (long c = a; c <= b; c++)
			fn((int)c);
		p = *end == ',' ? end + 1 : end;
	}
}

/* CPUs already in a known L3 domain: report reads one shared_cpu_list per
 * domain (lib/read/cache.c). */
static unsigned char *in_l3;
static int max_cpu = -1;

static void mark_l3(int cpu)
{
	if (cpu >= 0 && cpu <= max_cpu)
		in_l3[cpu] = 1;
}

static void l3_domain(int cpu)
{
	if (cpu > max_cpu || in_l3[cpu])
		return;
	char path[PATH_MAX];
	in_l3[cpu] = 1;
	if (slurp(pathf(path, "/sys/devices/system/cpu/cpu%d/cache/index3/shared_cpu_list", cpu)) > 0) {
		char *list = strdup(buf);
		if (!list)
			fail("out of memory reading", path);
		each_in_list(list, mark_l3);
		free(list);
	}
}

static void find_max(int cpu)
{
	if (cpu > max_cpu)
		max_cpu = cpu;
}

static void cpu_files(int cpu)
{
	slurpf("/sys/devices/system/cpu/cpu%d/topology/physical_package_id", cpu);
	slurpf("/sys/devices/system/cpu/cpu%d/topology/core_id", cpu);
	slurpf("/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", cpu);
}

static void topology(void)
{
	char path[PATH_MAX];
	if (slurp(pathf(path, "/sys/devices/system/cpu/present")) > 0) {
		char *present = strdup(buf);
		if (!present)
			fail("out of memory reading", path);
		slurpf("/proc/cmdline");
		slurpf("/sys/devices/system/cpu/isolated");
		slurpf("/sys/devices/system/cpu/nohz_full");
		each_in_list(present, cpu_files);
		free(present);
	}
	if (slurp(pathf(path, "/sys/devices/system/cpu/online")) > 0) {
		char *online = strdup(buf);
		if (!online)
			fail("out of memory reading", path);
		each_in_list(online, find_max);
		if (!(in_l3 = calloc((size_t)max_cpu + 2, 1)))
			fail("out of memory reading", path);
		each_in_list(online, l3_domain);
		free(online);
		free(in_l3);
	}
	slurpf("/sys/devices/system/node/possible");
	struct names nodes = list("/sys/devices/system/node");
	for (size_t i = 0; i < nodes.n; i++) {
		if (strncmp(nodes.v[i], "node", 4) || nodes.v[i][4] < '0' || nodes.v[i][4] > '9')
			continue;
		slurpf("/sys/devices/system/node/%s/cpulist", nodes.v[i]);
		slurpf("/sys/devices/system/node/%s/meminfo", nodes.v[i]);
		slurpf("/sys/devices/system/node/%s/distance", nodes.v[i]);
	}
	names_free(&nodes);
}

static void block_device(const char *name)
{
	slurpf("/sys/block/%s/queue/rq_affinity", name);
	slurpf("/sys/block/%s/queue/scheduler", name);
	struct names hwq = list("/sys/block/%s/mq", name);
	for (size_t i = 0; i < hwq.n; i++)
		slurpf("/sys/block/%s/mq/%s/cpu_list", name, hwq.v[i]);
	names_free(&hwq);
}

static void pci(void)
{
	char path[PATH_MAX], target[PATH_MAX];
	struct names devs = list("/sys/bus/pci/devices");
	for (size_t i = 0; i < devs.n; i++) {
		const char *dev = devs.v[i];
		static const char *const attrs[] = { "vendor", "device", "class", "numa_node", "local_cpulist", "irq" };
		for (size_t a = 0; a < sizeof(attrs) / sizeof(attrs[0]); a++)
			slurpf("/sys/bus/pci/devices/%s/%s", dev, attrs[a]);
		if (readlink(pathf(path, "/sys/bus/pci/devices/%s/driver", dev), target, sizeof(target)) < 0 &&
		    errno != ENOENT)
			fail("cannot read link", path);
		struct names msi = list("/sys/bus/pci/devices/%s/msi_irqs", dev);
		names_free(&msi);

		struct names nets = list("/sys/bus/pci/devices/%s/net", dev);
		for (size_t n = 0; n < nets.n; n++) {
			struct names queues = list("/sys/bus/pci/devices/%s/net/%s/queues", dev, nets.v[n]);
			for (size_t q = 0; q < queues.n; q++) {
				if (!strncmp(queues.v[q], "rx-", 3)) {
					slurpf("/sys/bus/pci/devices/%s/net/%s/queues/%s/rps_cpus", dev, nets.v[n],
					       queues.v[q]);
					slurpf("/sys/bus/pci/devices/%s/net/%s/queues/%s/rps_flow_cnt", dev, nets.v[n],
					       queues.v[q]);
				} else if (!strncmp(queues.v[q], "tx-", 3))
					slurpf("/sys/bus/pci/devices/%s/net/%s/queues/%s/xps_cpus", dev, nets.v[n],
					       queues.v[q]);
			}
			names_free(&queues);
		}
		names_free(&nets);

		/* NVMe: nvme/nvmeK/nvmeKnN are the block devices */
		struct names ctrls = list("/sys/bus/pci/devices/%s/nvme", dev);
		for (size_t c = 0; c < ctrls.n; c++) {
			size_t len = strlen(ctrls.v[c]);
			struct names sub = list("/sys/bus/pci/devices/%s/nvme/%s", dev, ctrls.v[c]);
			for (size_t s = 0; s < sub.n; s++)
				if (!strncmp(sub.v[s], ctrls.v[c], len) && sub.v[s][len] == 'n')
					block_device(sub.v[s]);
			names_free(&sub);
		}
		names_free(&ctrls);
	}
	names_free(&devs);
}

static void irqs(void)
{
	char path[PATH_MAX];
	static char chunk[1 << 20];
	int fd = open(pathf(path, "/proc/interrupts"), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fail("cannot open", path);
	int *nums = NULL;
	size_t n = 0, cap = 0;
	/* the IRQ number at the start of each line: 0 line start, 1 digits, 2 rest of line */
	int state = 0;
	long num = 0;
	for (;;) {
		ssize_t got = read(fd, chunk, sizeof(chunk));
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			fail("cannot read", path);
		if (got == 0)
			break;
		total += (unsigned long long)got;
		for (const char *p = chunk, *end = chunk + got; p < end;) {
			if (state == 2) {
				const char *nl = memchr(p, '\n', (size_t)(end - p));
				if (!nl)
					break;
				p = nl + 1;
				state = 0;
				continue;
			}
			char ch = *p++;
			if (ch >= '0' && ch <= '9') {
				num = state == 1 ? num * 10 + (ch - '0') : ch - '0';
				state = 1;
			} else if (state == 0 && ch == ' ') {
				continue;
			} else if (state == 1 && ch == ':') {
				if (n == cap) {
					cap = cap ? 2 * cap : 1024;
					if (!(nums = realloc(nums, cap * sizeof(*nums))))
						fail("out of memory reading", path);
				}
				nums[n++] = (int)num;
				state = 2;
			} else {
				state = ch == '\n' ? 0 : 2;
			}
		}
	}
	close(fd);
	char dbg[PATH_MAX];
	bool managed_known = access(pathf(dbg, "/sys/kernel/debug/irq/irqs"), F_OK) == 0;
	for (size_t i = 0; i < n; i++) {
		slurpf("/proc/irq/%d/smp_affinity_list", nums[i]);
		slurpf("/proc/irq/%d/effective_affinity_list", nums[i]);
		if (managed_known)
			slurpf("/sys/kernel/debug/irq/irqs/%d", nums[i]);
	}
	free(nums);
}

/* What keeps CPUs free of IRQs, beyond isolated and nohz_full. */
static void settings(void)
{
	static const char *const files[] = {
		"/sys/kernel/realtime",
		"/proc/sys/kernel/version",
		"/proc/sys/net/core/rps_sock_flow_entries",
		"/var/lib/kubelet/cpu_manager_state",
		"/etc/systemd/system/irqbalance.service",
		"/run/systemd/system/irqbalance.service",
		"/usr/local/lib/systemd/system/irqbalance.service",
		"/usr/lib/systemd/system/irqbalance.service",
		"/lib/systemd/system/irqbalance.service",
		"/etc/default/irqbalance",
		"/etc/sysconfig/irqbalance",
		"/etc/conf.d/irqbalance",
		"/etc/tuned/active_profile",
	};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		slurpf("%s", files[i]);
}

/* The ID database, outside the root: read whole. */
static void pci_ids(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return;
		fail("cannot open", path);
	}
	ssize_t n;
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			fail("cannot read", path);
		total += (unsigned long long)n;
	}
	close(fd);
}

/* What the counts cover and cost, the host's identity (report --json),
 * irqbalance among the processes. */
static void once(void)
{
	slurpf("/proc/uptime");
	slurpf("/proc/stat");
	slurpf("/proc/softirqs");
	slurpf("/proc/sys/kernel/hostname");
	slurpf("/proc/sys/kernel/osrelease");
	slurpf("/proc/sys/kernel/random/boot_id");
	slurpf("/proc/irq/default_smp_affinity");
	struct names procs = list("/proc");
	for (size_t i = 0; i < procs.n; i++)
		if (procs.v[i][0] >= '0' && procs.v[i][0] <= '9')
			slurpf("/proc/%s/comm", procs.v[i]);
	names_free(&procs);
}

int main(int argc, char **argv)
{
	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: bench-floor ROOT [PCI_IDS]\n");
		return 2;
	}
	root = argv[1];
	topology();
	settings();
	pci();
	if (argc == 3)
		pci_ids(argv[2]);
	irqs();
	once();
	printf("%llu\n", total);
	return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
}
