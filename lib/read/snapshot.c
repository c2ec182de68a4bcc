/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What a snapshot copies (the topology, PCI functions and what hangs off
 * them, /proc, IRQ debugfs state, irqbalance's comm, the kubelet's state,
 * what keeps CPUs free of IRQs under /etc) and
 * where it goes (a directory, or an archive made by tar). How each file is
 * copied is lib/read/snapshot-copy.c's. */
#include "read/snapshot.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "change/attr.h"
#include "read/irqbalance-conf.h"
#include "read/kubelet.h"
#include "read/pci.h"
#include "read/snapshot-copy.h"
#include "read/sysfs.h"
#include "read/tuned.h"

static const char *const cpu_files[] = {
	"online", "offline", "possible", "present", "isolated", "nohz_full", "kernel_max", NULL,
};
/* What hwloc reads of each cache; numaplace reads index3's shared_cpu_list
 * (the L3 domains), and without the rest lstopo on a snapshot would show a
 * machine without caches. */
static const char *const cache_files[] = {
	"level", "type", "size", "shared_cpu_map", "shared_cpu_list", "coherency_line_size",
	"ways_of_associativity", "number_of_sets", "physical_line_partition", "id", NULL,
};
static const char *const node_files[] = { "cpulist", "cpumap", "distance", "meminfo", NULL };
/* libpci (through numaplace) and hwloc; config is cut to its standard header. */
static const char *const pci_files[] = {
	"vendor", "device", "class", "revision", "subsystem_vendor", "subsystem_device", "irq",
	"numa_node", "local_cpus", "local_cpulist", "modalias", "resource", "config", NULL,
};
#define PCI_CONFIG_HEADER 64
static const char *const net_files[] = { "ifindex", "type", "mtu", "speed", "operstate", NULL };
/* Besides these, each directory gets the files of the tunable kinds that
 * live there (np_attrs[].snapshot): see with_attr_files. */
static const char *const queue_files[] = { NULL };
static const char *const block_files[] = {
	"queue/scheduler", "queue/nr_requests", "queue/rotational", "queue/logical_block_size", NULL,
};
/* The kernel release and version are copied (the version says PREEMPT_RT,
 * as /sys/kernel/realtime does); the hostname and boot id, which identify
 * the machine and this boot, are not (report shows null for them). */
static const char *const proc_files[] = {
	"/proc/interrupts", "/proc/uptime", "/proc/stat", "/proc/softirqs", "/proc/cmdline", "/proc/cpuinfo",
	"/proc/meminfo", "/proc/sys/kernel/osrelease", "/proc/sys/kernel/version", "/sys/kernel/realtime", NULL,
};
static const char *const irq_files[] = {
	"effective_affinity", "effective_affinity_list", "node", NULL,
};
#define MAX_DIR_FILES 32

static int follow(struct snap *s, const char *dir, enum follow kind);

/* own, then the files of every kind whose values live in a directory of
 * this sort, so that a new kind is copied by its row alone. */
static const char *const *with_attr_files(const char **out, const char *const *own, enum np_attr_dir where)
{
	size_t n = 0;
	for (; own[n] && n < MAX_DIR_FILES - 1; n++)
		out[n] = own[n];
	for (int a = 0; a < NP_ATTR_COUNT; a++)
		for (const char *const *f = np_attrs[a].snapshot; np_attrs[a].dir == where && f && *f; f++)
			if (n < MAX_DIR_FILES - 1)
				out[n++] = *f;
	out[n] = NULL;
	return out;
}

/* A directory entry that is usually a link (class and bus listings, driver,
 * nodeN, cpuN): the link is recreated with the same text, then what it leads
 * to is copied as kind says. Old kernels have real directories instead. */
static int copy_entry(struct snap *s, const char *mp, enum follow kind)
{
	char src[PATH_MAX], target[PATH_MAX], dir[PATH_MAX];
	struct stat st;
	const char *base;
	int rc = np_sysfs_path(s->ctx, src, "%s", mp);
	if (rc)
		return rc;
	int pfd = np_open_parent(s->ctx, mp, &base);
	if (pfd < 0)
		return snap_skip_or_fail(s, -pfd, src);
	int err = fstatat(pfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0 ? errno : 0;
	if (err || !S_ISLNK(st.st_mode)) {
		close(pfd);
		if (err)
			return snap_skip_or_fail(s, err, src);
		if (S_ISDIR(st.st_mode))
			return kind == FOLLOW_NONE ? 0 : follow(s, mp, kind);
		return 0;
	}
	ssize_t n = readlinkat(pfd, base, target, sizeof(target));
	err = n < 0 ? errno : (size_t)n >= sizeof(target) ? ENAMETOOLONG : 0;
	close(pfd);
	if (err)
		return snap_skip_or_fail(s, err, src);
	target[n] = '\0';
	if ((rc = snap_copy_link(s, mp, target)))
		return rc;
	if (kind == FOLLOW_NONE || !snap_resolve(mp, target, dir) || strncmp(dir, "/sys/", 5))
		return 0;
	return follow(s, dir, kind);
}

/* /sys/bus/NAME/drivers/DRIVER: empty, only so that driver links resolve.
 * libpci names no driver when the link is dangling, so a copy of a root
 * whose link dangles leaves it dangling. */
static int copy_driver(struct snap *s, const char *dir)
{
	if (strncmp(dir, "/sys/bus/", 9))
		return 0;
	const char *p = strchr(dir + 9, '/');
	if (!p || strncmp(p, "/drivers/", 9) || !p[9] || strchr(p + 9, '/'))
		return 0;
	int fd = np_open(s->ctx, dir, O_PATH | O_DIRECTORY, 0);
	if (fd < 0)
		return 0;
	close(fd);
	return snap_ensure_dir(s, dir);
}

/* The files of one PCI function that identify it, and its driver link. */
static int copy_pci_files(struct snap *s, const char *dir)
{
	char mp[PATH_MAX];
	int rc = snap_first_visit(s, 'F', dir);
	if (rc <= 0)
		return rc;
	for (size_t i = 0; pci_files[i] && rc >= 0; i++)
		if (!(rc = snap_mp_fmt(s, mp, "%s/%s", dir, pci_files[i])))
			rc = snap_copy_file(s, mp, strcmp(pci_files[i], "config") ? 0 : PCI_CONFIG_HEADER);
	if (rc < 0 || (rc = snap_mp_fmt(s, mp, "%s/driver", dir)))
		return rc;
	return copy_entry(s, mp, FOLLOW_DRIVER);
}

/* hwloc builds the bridge hierarchy from the functions above a device: the
 * PCI-address components between /sys/devices/pciDDDD:BB and dir. */
static int copy_pci_parents(struct snap *s, const char *dir)
{
	static const char prefix[] = "/sys/devices/";
	char parent[PATH_MAX], comp[NP_PCI_ADDR_LEN], addr[NP_PCI_ADDR_LEN];
	if (strncmp(dir, prefix, sizeof(prefix) - 1))
		return 0;
	for (const char *p = dir + sizeof(prefix) - 1, *slash; (slash = strchr(p, '/')); p = slash + 1) {
		size_t len = (size_t)(slash - p);
		if (len != NP_PCI_ADDR_LEN - 1)
			continue;
		memcpy(comp, p, len);
		comp[len] = '\0';
		if (!np_pci_parse_addr(comp, addr))
			continue;
		snprintf(parent, sizeof(parent), "%.*s", (int)(slash - dir), dir);
		int rc = copy_pci_files(s, parent);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int copy_msi_irqs(struct snap *s, const char *dir)
{
	char mp[PATH_MAX], **names;
	size_t n;
	bool present;
	int rc = snap_mp_fmt(s, mp, "%s/msi_irqs", dir);
	if (rc || (rc = snap_list(s, mp, &names, &n, &present)))
		return rc;
	if (present)
		rc = snap_ensure_dir(s, mp);
	for (size_t i = 0; i < n && rc >= 0; i++) {
		char entry[PATH_MAX];
		if ((rc = snap_mp_fmt(s, entry, "%s/%s", mp, names[i])))
			break;
		/* Before Linux 3.14 each vector was a directory holding "mode". */
		if ((rc = snap_copy_file(s, entry, 0)) == COPY_IS_DIR && !(rc = snap_ensure_dir(s, entry)) &&
		    !(rc = snap_mp_fmt(s, entry, "%s/%s/mode", mp, names[i])))
			rc = snap_copy_file(s, entry, 0);
	}
	np_names_free(names, n);
	return rc < 0 ? rc : 0;
}

/* The children numaplace looks for by name: virtioN (with its driver) and
 * nvme/nvmeN, which interrupt names refer to, and infiniband/NAME. */
static int copy_pci_children(struct snap *s, const char *dir)
{
	char mp[PATH_MAX], **names;
	size_t n;
	bool present;
	int rc = snap_list(s, dir, &names, &n, NULL);
	for (size_t i = 0; i < n && !rc; i++) {
		if (strncmp(names[i], "virtio", 6) || names[i][6] < '0' || names[i][6] > '9')
			continue;
		if (!(rc = snap_mp_fmt(s, mp, "%s/%s", dir, names[i])) && !(rc = snap_ensure_dir(s, mp)) &&
		    !(rc = snap_mp_fmt(s, mp, "%s/%s/driver", dir, names[i])))
			rc = copy_entry(s, mp, FOLLOW_DRIVER);
	}
	np_names_free(names, n);
	/* nvme/nvmeN, and infiniband/NAME: the RDMA device names devices --near shows. */
	for (const char *const *sub = (const char *const[]){ "nvme", "infiniband", NULL }; *sub && !rc; sub++) {
		if ((rc = snap_mp_fmt(s, mp, "%s/%s", dir, *sub)) || (rc = snap_list(s, mp, &names, &n, &present)))
			return rc;
		if (present)
			rc = snap_ensure_dir(s, mp);
		for (size_t i = 0; i < n && !rc; i++) {
			char child[PATH_MAX];
			if (!(rc = snap_mp_fmt(s, child, "%s/%s", mp, names[i])))
				rc = snap_ensure_dir(s, child);
		}
		np_names_free(names, n);
	}
	return rc;
}

static int copy_pci_function(struct snap *s, const char *dir)
{
	int rc = snap_first_visit(s, 'P', dir);
	if (rc <= 0)
		return rc;
	if ((rc = copy_pci_parents(s, dir)) || (rc = copy_pci_files(s, dir)) || (rc = copy_msi_irqs(s, dir)))
		return rc;
	return copy_pci_children(s, dir);
}

/* The directory must exist even when none of its files can be read: numaplace
 * counts queues by their directories. */
static int copy_dir_of(struct snap *s, const char *dir, const char *sub, const char *const *files,
		       const char *file)
{
	char mp[PATH_MAX], **names;
	size_t n;
	bool present;
	int rc = snap_mp_fmt(s, mp, "%s/%s", dir, sub);
	if (rc || (rc = snap_list(s, mp, &names, &n, &present)))
		return rc;
	if (present)
		rc = snap_ensure_dir(s, mp);
	for (size_t i = 0; i < n && !rc; i++) {
		char child[PATH_MAX];
		if ((rc = snap_mp_fmt(s, child, "%s/%s", mp, names[i])) || (rc = snap_ensure_dir(s, child)))
			break;
		if (files)
			rc = snap_copy_files(s, child, files);
		else if (!(rc = snap_mp_fmt(s, child, "%s/%s/%s", mp, names[i], file)))
			rc = snap_copy_plain(s, child);
	}
	np_names_free(names, n);
	return rc;
}

static int copy_netif(struct snap *s, const char *dir)
{
	char mp[PATH_MAX];
	int rc = snap_first_visit(s, 'N', dir);
	if (rc <= 0)
		return rc;
	const char *files[MAX_DIR_FILES];
	if ((rc = snap_ensure_dir(s, dir)) || (rc = snap_copy_files(s, dir, net_files)) ||
	    (rc = copy_dir_of(s, dir, "queues", with_attr_files(files, queue_files, NP_DIR_NET_QUEUE), NULL)) ||
	    (rc = snap_mp_fmt(s, mp, "%s/device", dir)))
		return rc;
	return copy_entry(s, mp, FOLLOW_NONE);
}

static int copy_block(struct snap *s, const char *dir)
{
	char mp[PATH_MAX];
	int rc = snap_first_visit(s, 'B', dir);
	if (rc <= 0)
		return rc;
	const char *files[MAX_DIR_FILES];
	if ((rc = snap_ensure_dir(s, dir)) || (rc = snap_copy_files(s, dir, with_attr_files(files, block_files, NP_DIR_BLOCK))) ||
	    (rc = copy_dir_of(s, dir, "mq", NULL, "cpu_list")) || (rc = snap_mp_fmt(s, mp, "%s/device", dir)))
		return rc;
	return copy_entry(s, mp, FOLLOW_NONE);
}

static int follow(struct snap *s, const char *dir, enum follow kind)
{
	switch (kind) {
	case FOLLOW_PCI:
		return copy_pci_function(s, dir);
	case FOLLOW_DRIVER:
		return copy_driver(s, dir);
	case FOLLOW_NET:
		return copy_netif(s, dir);
	case FOLLOW_BLOCK:
		return copy_block(s, dir);
	case FOLLOW_NONE:
		break;
	}
	return 0;
}

/* name is PREFIX followed by digits only. */
static bool numbered(const char *name, const char *prefix)
{
	size_t len = strlen(prefix);
	if (strncmp(name, prefix, len) || !name[len])
		return false;
	return strspn(name + len, "0123456789") == strlen(name + len);
}

static int copy_cpu(struct snap *s, const char *cpu)
{
	char mp[PATH_MAX], **names;
	size_t n;
	int rc;
	if ((rc = snap_ensure_dir(s, cpu)) || (rc = snap_mp_fmt(s, mp, "%s/online", cpu)) || (rc = snap_copy_plain(s, mp)))
		return rc;
	if ((rc = snap_mp_fmt(s, mp, "%s/topology", cpu)) || (rc = snap_list(s, mp, &names, &n, NULL)))
		return rc;
	for (size_t i = 0; i < n && !rc; i++) {
		char file[PATH_MAX];
		if (!(rc = snap_mp_fmt(s, file, "%s/%s", mp, names[i])))
			rc = snap_copy_plain(s, file);
	}
	np_names_free(names, n);
	if (rc || (rc = snap_list(s, cpu, &names, &n, NULL)))
		return rc;
	for (size_t i = 0; i < n && !rc; i++)
		if (numbered(names[i], "node") && !(rc = snap_mp_fmt(s, mp, "%s/%s", cpu, names[i])))
			rc = copy_entry(s, mp, FOLLOW_NONE);
	np_names_free(names, n);
	if (rc || (rc = snap_mp_fmt(s, mp, "%s/cache", cpu)) || (rc = snap_list(s, mp, &names, &n, NULL)))
		return rc;
	for (size_t i = 0; i < n && !rc; i++) {
		char index[PATH_MAX];
		if (numbered(names[i], "index") && !(rc = snap_mp_fmt(s, index, "%s/%s", mp, names[i])))
			rc = snap_copy_files(s, index, cache_files);
	}
	np_names_free(names, n);
	return rc;
}

static int copy_cpus(struct snap *s)
{
	static const char dir[] = "/sys/devices/system/cpu";
	char mp[PATH_MAX], **names;
	size_t n;
	int rc = snap_copy_files(s, dir, cpu_files);
	if (rc || (rc = snap_list(s, dir, &names, &n, NULL)))
		return rc;
	for (size_t i = 0; i < n && !rc; i++)
		if (numbered(names[i], "cpu") && !(rc = snap_mp_fmt(s, mp, "%s/%s", dir, names[i])))
			rc = copy_cpu(s, mp);
	np_names_free(names, n);
	return rc;
}

static int copy_nodes(struct snap *s)
{
	static const char dir[] = "/sys/devices/system/node";
	char mp[PATH_MAX], **names;
	size_t n;
	bool present;
	/* Present but empty is an error for numaplace, absent a kernel without NUMA. */
	int rc = snap_list(s, dir, &names, &n, &present);
	if (!rc && present)
		rc = snap_ensure_dir(s, dir);
	for (size_t i = 0; i < n && !rc; i++) {
		if ((rc = snap_mp_fmt(s, mp, "%s/%s", dir, names[i])))
			break;
		/* online, possible, has_cpu, has_memory, has_normal_memory, ... */
		if (!strcmp(names[i], "online") || !strcmp(names[i], "possible") || !strncmp(names[i], "has_", 4)) {
			rc = snap_copy_plain(s, mp);
			continue;
		}
		if (!numbered(names[i], "node"))
			continue;
		char **cpus;
		size_t ncpus;
		if ((rc = snap_ensure_dir(s, mp)) || (rc = snap_copy_files(s, mp, node_files)) ||
		    (rc = snap_list(s, mp, &cpus, &ncpus, NULL)))
			break;
		for (size_t j = 0; j < ncpus && !rc; j++) {
			char link[PATH_MAX];
			if (numbered(cpus[j], "cpu") && !(rc = snap_mp_fmt(s, link, "%s/%s", mp, cpus[j])))
				rc = copy_entry(s, link, FOLLOW_NONE);
		}
		np_names_free(cpus, ncpus);
	}
	np_names_free(names, n);
	return rc;
}

/* Every entry of a class or bus listing, with what it leads to. */
static int copy_listing(struct snap *s, const char *dir, enum follow kind)
{
	char mp[PATH_MAX], **names;
	size_t n;
	bool present;
	int rc = snap_list(s, dir, &names, &n, &present);
	if (!rc && present)
		rc = snap_ensure_dir(s, dir);
	for (size_t i = 0; i < n && !rc; i++)
		if (!(rc = snap_mp_fmt(s, mp, "%s/%s", dir, names[i])))
			rc = copy_entry(s, mp, kind);
	np_names_free(names, n);
	return rc;
}

/* hwloc finds disks in /sys/class/block, where partitions (which have a
 * "partition" file) are left out. */
static int copy_class_block(struct snap *s)
{
	static const char dir[] = "/sys/class/block";
	char mp[PATH_MAX], **names;
	size_t n;
	int rc = snap_list(s, dir, &names, &n, NULL);
	for (size_t i = 0; i < n && !rc; i++)
		if (!np_sysfs_exists(s->ctx, "%s/%s/partition", dir, names[i]) &&
		    !(rc = snap_mp_fmt(s, mp, "%s/%s", dir, names[i])))
			rc = copy_entry(s, mp, FOLLOW_BLOCK);
	np_names_free(names, n);
	return rc;
}

static int copy_proc(struct snap *s)
{
	char mp[PATH_MAX], **names;
	const char *top[MAX_DIR_FILES], *per_irq[MAX_DIR_FILES];
	size_t n;
	int rc = 0;
	with_attr_files(top, proc_files, NP_DIR_ROOT);
	with_attr_files(per_irq, irq_files, NP_DIR_IRQ);
	for (size_t i = 0; top[i] && rc >= 0; i++)
		rc = snap_copy_file(s, top[i], 0);
	if (rc < 0 || (rc = snap_list(s, "/proc/irq", &names, &n, NULL)))
		return rc;
	for (size_t i = 0; i < n && !rc; i++)
		if (numbered(names[i], "") && !(rc = snap_mp_fmt(s, mp, "/proc/irq/%s", names[i])) &&
		    !(rc = snap_ensure_dir(s, mp)))
			rc = snap_copy_files(s, mp, per_irq);
	np_names_free(names, n);
	return rc;
}

/* Readable by root only, and only when debugfs is mounted. numaplace takes
 * the directory's presence to mean that the managed state is known: it is
 * not created when its files are there but none could be read. */
static int copy_debugfs_irqs(struct snap *s)
{
	static const char dir[] = "/sys/kernel/debug/irq/irqs";
	char mp[PATH_MAX], **names;
	size_t n;
	bool present;
	unsigned long files = s->stats->files;
	int rc = snap_list(s, dir, &names, &n, &present);
	for (size_t i = 0; i < n && !rc; i++)
		if (numbered(names[i], "") && !(rc = snap_mp_fmt(s, mp, "%s/%s", dir, names[i])))
			rc = snap_copy_plain(s, mp);
	if (!rc && present && (n == 0 || s->stats->files > files))
		rc = snap_ensure_dir(s, dir);
	np_names_free(names, n);
	return rc;
}

/* The report says whether irqbalance runs, from /proc/PID/comm: the comm of
 * an irqbalance process is copied, and the first process's (init's, on a
 * machine), so that a copy without irqbalance says it does not run rather
 * than that it cannot tell; neither says more than the report itself. */
static int copy_irqbalance(struct snap *s)
{
	char mp[PATH_MAX], **names;
	size_t n;
	int rc = snap_list(s, "/proc", &names, &n, NULL);
	long first = -1;
	bool found = false;
	for (size_t i = 0; i < n && !rc && !found; i++) {
		char *comm;
		if (!numbered(names[i], "") || np_read_text(s->ctx, &comm, "/proc/%s/comm", names[i]))
			continue; /* not a process, or one that just exited */
		found = !strcmp(comm, "irqbalance");
		free(comm);
		if (first < 0 || strtol(names[i], NULL, 10) < first)
			first = strtol(names[i], NULL, 10);
		if (found && !(rc = snap_mp_fmt(s, mp, "/proc/%s/comm", names[i])))
			rc = snap_copy_plain(s, mp);
	}
	np_names_free(names, n);
	if (!rc && !found && first >= 0 && !(rc = snap_mp_fmt(s, mp, "/proc/%ld/comm", first)))
		rc = snap_copy_plain(s, mp);
	return rc;
}

/* A Kubernetes node's CPU manager state, and the etc-hosts of its pods with
 * exclusive CPUs (the pod's name is its last line): what report reads. */
static int copy_kubelet(struct snap *s)
{
	struct np_kubelet k;
	char mp[PATH_MAX];
	int rc = snap_copy_plain(s, NP_KUBELET_STATE);
	if (rc || np_kubelet_load(s->ctx, NULL, &k))
		return rc;
	for (size_t i = 0; i < k.n && !rc; i++)
		if (!strchr(k.v[i].pod_uid, '/') && !(rc = snap_mp_fmt(s, mp, NP_KUBELET_PODS "/%s/etc-hosts", k.v[i].pod_uid)))
			rc = snap_copy_plain(s, mp);
	np_kubelet_free(&k);
	return rc;
}

/* What keeps CPUs free of IRQs in /etc: irqbalance's configuration (its
 * units, drop-ins and the files they name) and TuneD's active profile with
 * the variables of the isolating ones, as lib/read finds them. */
static int copy_etc(struct snap *s)
{
	char **paths;
	size_t n;
	int rc = np_irqbalance_files(s->ctx, &paths, &n);
	for (size_t i = 0; i < n && rc == 0; i++)
		if (paths[i][0] == '/')
			rc = snap_copy_plain(s, paths[i]);
	np_names_free(paths, n);
	for (size_t i = 0; rc == 0 && np_tuned_file(i); i++)
		rc = snap_copy_plain(s, np_tuned_file(i));
	return rc;
}

static int write_tree(struct np_ctx *ctx, const char *out, struct np_snapshot_stats *stats)
{
	struct snap s = { .ctx = ctx, .stats = stats, .outlen = strlen(out) };
	memcpy(s.out, out, s.outlen + 1);
	int rc = snap_ensure_dir(&s, "/sys");
	if (!rc)
		rc = snap_ensure_dir(&s, "/proc");
	if (!rc)
		rc = copy_cpus(&s);
	if (!rc)
		rc = copy_nodes(&s);
	if (!rc)
		rc = copy_listing(&s, "/sys/bus/pci/devices", FOLLOW_PCI);
	if (!rc)
		rc = copy_listing(&s, "/sys/class/net", FOLLOW_NET);
	if (!rc)
		rc = copy_listing(&s, "/sys/block", FOLLOW_BLOCK);
	if (!rc)
		rc = copy_class_block(&s);
	if (!rc)
		rc = copy_proc(&s);
	if (!rc)
		rc = copy_irqbalance(&s);
	if (!rc)
		rc = copy_debugfs_irqs(&s);
	if (!rc)
		rc = copy_kubelet(&s);
	if (!rc)
		rc = copy_etc(&s);
	snap_seen_free(&s.seen);
	return rc;
}

/* Removes name under the directory at, without following links. */
static int remove_at(int at, const char *name)
{
	if (unlinkat(at, name, 0) == 0 || errno == ENOENT)
		return 0;
	if (errno != EISDIR && errno != EPERM)
		return -errno;
	int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	DIR *d = fdopendir(fd);
	if (!d) {
		int err = errno;
		close(fd);
		return -err;
	}
	int rc = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			int r = remove_at(dirfd(d), de->d_name);
			if (r && !rc)
				rc = r;
		}
	}
	closedir(d);
	if (unlinkat(at, name, AT_REMOVEDIR) < 0 && !rc)
		rc = -errno;
	return rc;
}

/* One snapshot directory per machine: files of two machines in one tree
 * would make a machine that never existed. */
static int check_empty(struct np_ctx *ctx, const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return np_fail(ctx, -errno, "'%s': %s", dir, strerror(errno));
	struct dirent *de;
	bool empty = true;
	while (empty && (de = readdir(d)))
		empty = !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..");
	closedir(d);
	if (!empty)
		return np_fail(ctx, -ENOTEMPTY, "'%s' is not empty: give a new or empty directory", dir);
	return 0;
}

static int snapshot_dir(struct np_ctx *ctx, const char *dir, struct np_snapshot_stats *stats)
{
	bool created = mkdir(dir, 0755) == 0;
	if (!created && errno != EEXIST)
		return np_fail(ctx, -errno, "cannot create '%s': %s", dir, strerror(errno));
	int rc = created ? 0 : check_empty(ctx, dir);
	if (rc)
		return rc;
	if ((rc = write_tree(ctx, dir, stats))) {
		if (created) {
			remove_at(AT_FDCWD, dir);
		} else {
			char sub[PATH_MAX + 8];
			snprintf(sub, sizeof(sub), "%s/sys", dir);
			remove_at(AT_FDCWD, sub);
			snprintf(sub, sizeof(sub), "%s/proc", dir);
			remove_at(AT_FDCWD, sub);
		}
	}
	return rc;
}

/* Runs tar with argv (what: "create" or "unpack", for the message about
 * archive). Its stderr is kept for the error detail: the library prints
 * nothing, and neither does its child. */
static int run_tar(struct np_ctx *ctx, char *const argv[], const char *what, const char *archive)
{
	int pipefd[2];
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return np_fail(ctx, -errno, "cannot run tar: %s", strerror(errno));
	pid_t pid = fork();
	if (pid < 0) {
		int err = errno;
		close(pipefd[0]);
		close(pipefd[1]);
		return np_fail(ctx, -err, "cannot run tar: %s", strerror(err));
	}
	if (pid == 0) {
		/* No tar left writing once numaplace is gone (a kill). */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		int null = open("/dev/null", O_RDWR);
		if (null >= 0) {
			dup2(null, STDIN_FILENO);
			dup2(null, STDOUT_FILENO);
		}
		dup2(pipefd[1], STDERR_FILENO);
		execvp(argv[0], argv);
		static const char msg[] = "cannot run tar: not found or not executable\n";
		ssize_t unused = write(STDERR_FILENO, msg, sizeof(msg) - 1);
		(void)unused;
		_exit(127);
	}
	close(pipefd[1]);
	char msg[512];
	size_t len = 0;
	for (;;) {
		char chunk[512];
		ssize_t n = read(pipefd[0], chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		size_t keep = sizeof(msg) - 1 - len < (size_t)n ? sizeof(msg) - 1 - len : (size_t)n;
		memcpy(msg + len, chunk, keep);
		len += keep;
	}
	close(pipefd[0]);
	msg[len] = '\0';
	msg[strcspn(msg, "\n")] = '\0';
	int status;
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return np_fail(ctx, -errno, "waiting for tar: %s", strerror(errno));
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	char how[32];
	if (WIFEXITED(status))
		snprintf(how, sizeof(how), "exit %d", WEXITSTATUS(status));
	else
		snprintf(how, sizeof(how), "signal %d", WTERMSIG(status));
	return np_fail(ctx, -EIO, "tar could not %s '%s' (%s)%s%s", what, archive, how, *msg ? ": " : "", msg);
}

static int snapshot_archive(struct np_ctx *ctx, const char *file, struct np_snapshot_stats *stats)
{
	struct stat st;
	if (lstat(file, &st) == 0)
		return np_fail(ctx, -EEXIST, "'%s' already exists", file);
	if (errno != ENOENT)
		return np_fail(ctx, -errno, "'%s': %s", file, strerror(errno));
	/* Next to the archive: same file system, and the user chose a place with room. */
	char tmp[PATH_MAX];
	const char *slash = strrchr(file, '/');
	if (slash)
		snprintf(tmp, sizeof(tmp), "%.*s/.numaplace-snapshot-XXXXXX", (int)(slash - file), file);
	else
		snprintf(tmp, sizeof(tmp), ".numaplace-snapshot-XXXXXX");
	if (!mkdtemp(tmp))
		return np_fail(ctx, -errno, "cannot create a temporary directory next to '%s': %s", file,
			       strerror(errno));
	int rc = write_tree(ctx, tmp, stats);
	/* sys and proc always; etc, usr, var... when something there was copied. */
	static const char *const tops[] = { "etc", "lib", "run", "usr", "var" };
	char *argv[8 + sizeof(tops) / sizeof(tops[0])] = { "tar", "-czf", (char *)file, "-C", tmp, "sys", "proc" };
	size_t argc = 7;
	for (size_t i = 0; i < sizeof(tops) / sizeof(tops[0]); i++) {
		char top[PATH_MAX + 8];
		struct stat dst;
		snprintf(top, sizeof(top), "%s/%s", tmp, tops[i]);
		if (lstat(top, &dst) == 0 && S_ISDIR(dst.st_mode))
			argv[argc++] = (char *)tops[i];
	}
	argv[argc] = NULL;
	if (!rc && (rc = run_tar(ctx, argv, "create", file)))
		unlink(file);
	int removed = remove_at(AT_FDCWD, tmp);
	if (!rc && removed)
		rc = np_fail(ctx, removed, "cannot remove the temporary tree '%s': %s", tmp, strerror(-removed));
	return rc;
}

bool np_snapshot_is_archive(const char *out)
{
	size_t len = strlen(out);
	return (len > 7 && !strcmp(out + len - 7, ".tar.gz")) || (len > 4 && !strcmp(out + len - 4, ".tgz"));
}

int np_snapshot(struct np_ctx *ctx, const char *out, struct np_snapshot_stats *stats)
{
	char path[PATH_MAX];
	memset(stats, 0, sizeof(*stats));
	size_t len = strlen(out);
	while (len > 1 && out[len - 1] == '/')
		len--;
	if (!len)
		return np_fail(ctx, -EINVAL, "snapshot: empty output path");
	/* Room for the longest machine path below it. */
	if (len >= PATH_MAX / 2)
		return np_fail(ctx, -ENAMETOOLONG, "'%s': %s", out, strerror(ENAMETOOLONG));
	memcpy(path, out, len);
	path[len] = '\0';
	return np_snapshot_is_archive(path) ? snapshot_archive(ctx, path, stats) : snapshot_dir(ctx, path, stats);
}

/* The directory of dir that holds sys/: dir itself, or its one subdirectory
 * (hwloc's test archives hold NAME/sys, NAME/proc). */
static int find_root(struct np_ctx *ctx, const char *archive, const char *dir, char *root)
{
	struct stat st;
	snprintf(root, PATH_MAX, "%s/sys", dir);
	if (lstat(root, &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(root, PATH_MAX, "%s", dir);
		return 0;
	}
	DIR *d = opendir(dir);
	if (!d)
		return np_fail(ctx, -errno, "'%s': %s", dir, strerror(errno));
	struct dirent *e;
	int found = 0;
	while ((e = readdir(d))) {
		char sys[PATH_MAX];
		if (e->d_name[0] == '.')
			continue;
		snprintf(sys, sizeof(sys), "%s/%s/sys", dir, e->d_name);
		if (lstat(sys, &st) == 0 && S_ISDIR(st.st_mode) && found++ == 0)
			snprintf(root, PATH_MAX, "%s/%s", dir, e->d_name);
	}
	closedir(d);
	if (found == 1)
		return 0;
	return np_fail(ctx, -ENOENT, "the archive '%s' holds %s: it is no snapshot (numaplace snapshot OUT.tar.gz makes one)",
		       archive, found ? "several directories with sys/" : "no sys/ at its top or in one directory");
}

int np_snapshot_tmpdir(struct np_ctx *ctx, const char *archive, char *tmpdir)
{
	const char *base = getenv("TMPDIR");
	snprintf(tmpdir, PATH_MAX, "%s/numaplace-root-XXXXXX", base && *base == '/' ? base : "/tmp");
	/* mkdtemp's directory is the caller's only (0700). */
	if (!mkdtemp(tmpdir))
		return np_fail(ctx, -errno, "cannot create a temporary directory for '%s': %s", archive, strerror(errno));
	return 0;
}

int np_snapshot_unpack(struct np_ctx *ctx, const char *archive, const char *tmpdir, char *root)
{
	/* tar strips leading '/' and refuses '..' in member names; links it
	 * recreates are read through openat2 inside the root, never followed out. */
	char *argv[] = { "tar", "-xf", (char *)archive, "-C", (char *)tmpdir, "--no-same-owner", "--no-same-permissions",
			 NULL };
	int rc = run_tar(ctx, argv, "unpack", archive);
	return rc ? rc : find_root(ctx, archive, tmpdir, root);
}

int np_snapshot_remove(const char *dir)
{
	return remove_at(AT_FDCWD, dir);
}
