/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "read/app-devices.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/sysfs.h"

struct infer {
	struct np_ctx *ctx;
	const struct np_machine *m;
	int pid;
	bool *selected;
	char ***why;
	size_t *nwhy;
	char *mountinfo;
};

static int say(struct infer *in, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int say(struct infer *in, const char *fmt, ...)
{
	char **more = realloc(*in->why, (*in->nwhy + 1) * sizeof(*more));
	if (!more)
		return -ENOMEM;
	*in->why = more;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&more[*in->nwhy], fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	(*in->nwhy)++;
	return 0;
}

/* Selects the function owning block device or interface name; true when one does. */
static bool select_owner(struct infer *in, const char *name, bool net, const char **addr)
{
	for (size_t i = 0; i < in->m->pci.ndevs; i++) {
		const struct np_pci_dev *d = &in->m->pci.devs[i];
		size_t n = net ? d->nnet : d->nblock;
		for (size_t k = 0; k < n; k++) {
			if (strcmp(net ? d->net[k].name : d->block[k].name, name))
				continue;
			bool was = in->selected[i];
			in->selected[i] = true;
			*addr = d->addr;
			return !was;
		}
	}
	return false;
}

/* The whole disks behind block device MAJ:MIN: itself, its disk when it is
 * a partition, the disks under it when it is a device-mapper or md device. */
static int block_by_devno(struct infer *in, unsigned maj, unsigned min, const char *what, int depth)
{
	char *target = NULL;
	int rc = np_read_link(in->ctx, &target, "/sys/dev/block/%u:%u", maj, min);
	if (rc)
		return rc == -ENOENT ? 0 : rc; /* not a block device (tmpfs, proc, overlay's anonymous devices) */
	char *name = strrchr(target, '/');
	name = name ? name + 1 : target;
	char *slash = strrchr(target, '/');
	if (np_sysfs_exists(in->ctx, "/sys/dev/block/%u:%u/partition", maj, min) && slash) {
		*slash = '\0';
		char *parent = strrchr(target, '/');
		name = parent ? parent + 1 : target;
	}
	char **slaves = NULL;
	size_t nslaves = 0;
	if (depth < 4 && np_list_dir(in->ctx, &slaves, &nslaves, "/sys/dev/block/%u:%u/slaves", maj, min) == 0) {
		for (size_t i = 0; i < nslaves && rc == 0; i++) {
			char *dev = NULL;
			unsigned a, b;
			if (np_read_text(in->ctx, &dev, "/sys/class/block/%s/dev", slaves[i]) == 0 &&
			    sscanf(dev, "%u:%u", &a, &b) == 2)
				rc = block_by_devno(in, a, b, what, depth + 1);
			free(dev);
		}
		np_names_free(slaves, nslaves);
	}
	const char *addr;
	if (rc == 0 && select_owner(in, name, false, &addr))
		rc = say(in, "%s (%s): %s is on it (%u:%u)", name, addr, what, maj, min);
	free(target);
	return rc;
}

/* Device number of the mount with id mnt_id, or of the mount whose point is
 * the longest prefix of path (when mnt_id < 0), from /proc/PID/mountinfo. */
static bool mount_devno(const struct infer *in, long mnt_id, const char *path, unsigned *maj, unsigned *min)
{
	size_t best = 0;
	bool found = false;
	for (const char *line = in->mountinfo; line && *line;) {
		const char *end = strchr(line, '\n');
		long id, parent;
		unsigned a, b;
		char point[4096];
		if (sscanf(line, "%ld %ld %u:%u %*s %4095s", &id, &parent, &a, &b, point) == 5) {
			size_t len = strlen(point);
			bool prefix = path && !strncmp(path, point, len) &&
				      (path[len] == '/' || path[len] == '\0' || !strcmp(point, "/"));
			if ((mnt_id >= 0 && id == mnt_id) || (mnt_id < 0 && prefix && len >= best)) {
				*maj = a, *min = b, best = len, found = true;
				if (mnt_id >= 0)
					break;
			}
		}
		line = end ? end + 1 : NULL;
	}
	return found;
}

static int from_files(struct infer *in, unsigned long **inodes, size_t *ninodes)
{
	char **fds = NULL;
	size_t nfds = 0;
	int rc = np_list_dir(in->ctx, &fds, &nfds, "/proc/%d/fd", in->pid);
	if (rc)
		return rc == -ENOENT || rc == -EACCES ? 0 : rc;
	for (size_t i = 0; i < nfds && rc == 0; i++) {
		char *target = NULL, *info = NULL;
		if (np_read_link(in->ctx, &target, "/proc/%d/fd/%s", in->pid, fds[i]))
			continue;
		unsigned long ino;
		if (sscanf(target, "socket:[%lu]", &ino) == 1) {
			unsigned long *more = realloc(*inodes, (*ninodes + 1) * sizeof(*more));
			if (!more)
				rc = -ENOMEM;
			else
				(*inodes = more)[(*ninodes)++] = ino;
		} else if (target[0] == '/' && np_read_text(in->ctx, &info, "/proc/%d/fdinfo/%s", in->pid, fds[i]) == 0) {
			const char *mnt = strstr(info, "mnt_id:");
			unsigned maj, min;
			char what[4200];
			snprintf(what, sizeof(what), "its open file %s (fd %s)", target, fds[i]);
			if (mnt && mount_devno(in, strtol(mnt + 7, NULL, 10), NULL, &maj, &min))
				rc = block_by_devno(in, maj, min, what, 0);
		}
		free(info);
		free(target);
	}
	np_names_free(fds, nfds);
	return rc;
}

static int from_cwd_and_maps(struct infer *in)
{
	char *cwd = NULL, *maps = NULL;
	unsigned maj, min;
	int rc = 0;
	if (np_read_link(in->ctx, &cwd, "/proc/%d/cwd", in->pid) == 0 && mount_devno(in, -1, cwd, &maj, &min)) {
		char what[4200];
		snprintf(what, sizeof(what), "its working directory %s", cwd);
		rc = block_by_devno(in, maj, min, what, 0);
	}
	free(cwd);
	if (rc == 0 && np_read_text(in->ctx, &maps, "/proc/%d/maps", in->pid) == 0) {
		/* "start-end perms offset MAJ:MIN inode path", device in hex */
		for (char *line = maps; line && *line && rc == 0;) {
			char *end = strchr(line, '\n');
			if (end)
				*end = '\0';
			unsigned long ino;
			int pathat = 0;
			if (sscanf(line, "%*s %*s %*s %x:%x %lu %n", &maj, &min, &ino, &pathat) == 3 && ino && pathat) {
				char what[4200];
				snprintf(what, sizeof(what), "its mapped file %s", line + pathat);
				rc = block_by_devno(in, maj, min, what, 0);
			}
			line = end ? end + 1 : NULL;
		}
	}
	free(maps);
	return rc;
}

/* The interface holding a local address: IPv6 from if_inet6, IPv4 by the
 * directly connected route (gateway 0) of longest prefix containing it. */
static char *iface_of(struct infer *in, const unsigned char *addr, bool v6)
{
	char *text = NULL, *found = NULL;
	if (v6) {
		if (np_read_text(in->ctx, &text, "/proc/%d/net/if_inet6", in->pid))
			return NULL;
		char hex[33], name[64];
		for (int i = 0; i < 16; i++)
			sprintf(hex + 2 * i, "%02x", addr[i]);
		for (char *line = text; line && *line && !found;) {
			char a[64];
			if (sscanf(line, "%63s %*s %*s %*s %*s %63s", a, name) == 2 && !strcasecmp(a, hex))
				found = strdup(name);
			line = strchr(line, '\n');
			line = line ? line + 1 : NULL;
		}
	} else {
		if (np_read_text(in->ctx, &text, "/proc/%d/net/route", in->pid))
			return NULL;
		unsigned ip = (unsigned)addr[0] | (unsigned)addr[1] << 8 | (unsigned)addr[2] << 16 | (unsigned)addr[3] << 24;
		unsigned bestmask = 0;
		bool any = false;
		for (char *line = strchr(text, '\n'); line && *++line;) {
			char name[64];
			unsigned dest, gw, mask;
			if (sscanf(line, "%63s %x %x %*s %*s %*s %*s %x", name, &dest, &gw, &mask) == 4 && gw == 0 &&
			    (ip & mask) == dest && (!any || __builtin_popcount(mask) > __builtin_popcount(bestmask))) {
				free(found);
				found = strdup(name);
				bestmask = mask, any = true;
			}
			line = strchr(line, '\n');
		}
	}
	free(text);
	return found;
}

static int from_sockets(struct infer *in, const unsigned long *inodes, size_t ninodes)
{
	static const char *const tables[] = { "tcp", "tcp6", "udp", "udp6" };
	int rc = 0;
	for (size_t t = 0; t < 4 && rc == 0 && ninodes; t++) {
		char *text = NULL;
		bool v6 = strchr(tables[t], '6');
		if (np_read_text(in->ctx, &text, "/proc/%d/net/%s", in->pid, tables[t]))
			continue;
		for (char *line = strchr(text, '\n'); line && *++line && rc == 0;) {
			char local[64];
			unsigned long ino;
			/* "sl local rem st tx:rx tr:when retrnsmt uid timeout inode" */
			if (sscanf(line, "%*s %63[0-9A-Fa-f:] %*s %*s %*s %*s %*s %*s %*s %lu", local, &ino) == 2) {
				bool mine = false;
				for (size_t i = 0; i < ninodes && !mine; i++)
					mine = inodes[i] == ino;
				unsigned char a[16] = { 0 };
				size_t hexlen = strcspn(local, ":");
				if (mine && hexlen == (v6 ? 32u : 8u)) {
					/* The kernel prints each 32-bit word in host (little-endian) order. */
					for (size_t w = 0; w < hexlen / 8; w++) {
						unsigned word;
						char part[9];
						memcpy(part, local + 8 * w, 8);
						part[8] = '\0';
						word = (unsigned)strtoul(part, NULL, 16);
						for (int b = 0; b < 4; b++)
							a[4 * w + (size_t)b] = (unsigned char)(word >> (8 * b));
					}
					bool unspecified = true;
					for (size_t b = 0; b < hexlen / 2; b++)
						unspecified &= a[b] == 0;
					char *ifname = unspecified ? NULL : iface_of(in, a, v6);
					const char *addr;
					int port = (int)strtol(local + hexlen + 1, NULL, 16);
					if (unspecified)
						rc = say(in, "a %.3s socket on port %d listens on every address: no interface "
							 "inferred from it", tables[t], port);
					else if (ifname && select_owner(in, ifname, true, &addr))
						rc = say(in, "%s (%s): a %.3s socket (port %d) is bound to its address", ifname,
							 addr, tables[t], port);
					free(ifname);
				}
			}
			line = strchr(line, '\n');
		}
		free(text);
	}
	return rc;
}

int np_app_devices(struct np_ctx *ctx, const struct np_machine *m, int pid, bool *selected, char ***why,
		   size_t *nwhy)
{
	struct infer in = { .ctx = ctx, .m = m, .pid = pid, .selected = selected, .why = why, .nwhy = nwhy };
	unsigned long *inodes = NULL;
	size_t ninodes = 0;
	int rc = np_read_text(ctx, &in.mountinfo, "/proc/%d/mountinfo", pid);
	if (rc == -ENOENT && !np_sysfs_exists(ctx, "/proc/%d", pid))
		return np_fail(ctx, rc, "no process %d ('%s/proc/%d' is absent)", pid, ctx->root, pid);
	if (rc == -ENOENT)
		rc = 0;
	if (rc == 0)
		rc = from_files(&in, &inodes, &ninodes);
	if (rc == 0)
		rc = from_cwd_and_maps(&in);
	if (rc == 0)
		rc = from_sockets(&in, inodes, ninodes);
	free(inodes);
	free(in.mountinfo);
	return rc;
}
