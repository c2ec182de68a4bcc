/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "change/attr.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "change/channels-value.h"
#include "change/target.h"



static const char *const irq_files[] = { "smp_affinity", "smp_affinity_list", NULL };
static const char *const rq_files[] = { "queue/rq_affinity", NULL };
static const char *const rps_files[] = { "rps_cpus", NULL };
static const char *const xps_files[] = { "xps_cpus", NULL };
static const char *const default_files[] = { "/proc/irq/default_smp_affinity", NULL };
static const char *const flow_cnt_files[] = { "rps_flow_cnt", NULL };
static const char *const sock_flow_files[] = { "/proc/sys/net/core/rps_sock_flow_entries", NULL };
/* A cgroup's own files, under cgroup v2's mount or v1's cpuset hierarchy. */
static const char *const cgroup_cpus_names[] = { "cpuset.cpus", NULL };
static const char *const cgroup_mems_names[] = { "cpuset.mems", NULL };
/* What distributions and irqbalance's own unit call its file. */
static const char *const irqbalance_names[] = { "irqbalance", "irqbalance.env", NULL };

const struct np_attr_desc np_attrs[NP_ATTR_COUNT] = {
	[NP_ATTR_IRQ_AFFINITY] = {
		.name = "irq_affinity", .value = NP_VALUE_CPULIST,
		.path = "/proc/irq/{irq}/smp_affinity_list",
		.subject = "{device} irq {irq} {vector}",
		.target = &np_target_irq, .dir = NP_DIR_IRQ, .snapshot = irq_files,
	},
	[NP_ATTR_RQ_AFFINITY] = {
		/* The kernel takes any number and ignores all but these. */
		.name = "rq_affinity", .value = NP_VALUE_INT, .min = 0, .max = 2,
		.path = "/sys/block/{block}/queue/rq_affinity",
		.subject = "{block} rq_affinity",
		.target = &np_target_block, .dir = NP_DIR_BLOCK, .snapshot = rq_files,
	},
	[NP_ATTR_RPS_CPUS] = {
		.name = "rps_cpus", .value = NP_VALUE_CPUMASK, .empty_ok = true,
		.path = "/sys/class/net/{net}/queues/rx-{queue}/rps_cpus",
		.subject = "{net} rx-{queue} rps_cpus",
		.target = &np_target_net_queue, .dir = NP_DIR_NET_QUEUE, .snapshot = rps_files,
	},
	[NP_ATTR_XPS_CPUS] = {
		.name = "xps_cpus", .value = NP_VALUE_CPUMASK, .empty_ok = true,
		.path = "/sys/class/net/{net}/queues/tx-{queue}/xps_cpus",
		.subject = "{net} tx-{queue} xps_cpus",
		.target = &np_target_net_queue, .dir = NP_DIR_NET_QUEUE, .snapshot = xps_files,
	},
	[NP_ATTR_DEFAULT_IRQ_AFFINITY] = {
		/* The kernel refuses a mask without an online CPU. */
		.name = "default_irq_affinity", .value = NP_VALUE_CPUMASK,
		.path = "/proc/irq/default_smp_affinity",
		.subject = "default_smp_affinity (new IRQs)",
		.target = &np_target_machine, .dir = NP_DIR_ROOT, .snapshot = default_files,
	},
	[NP_ATTR_IRQBALANCE_CONFIG] = {
		/* Written by apply itself (the bans), never named by a profile. */
		.name = "irqbalance_config", .value = NP_VALUE_TEXT, .survives_reboot = true,
		/* Debian's, the RHEL family's, OpenRC's or what the unit names
		 * (lib/read/irqbalance-conf.c finds which). */
		.path = "/etc/{file}", .files = irqbalance_names,
		.subject = "irqbalance",
	},
	[NP_ATTR_CHANNELS] = {
		/* No file: ethtool's netlink calls (channels.c); the "path" names
		 * the interface's channel counts, in the directory of its own. */
		.name = "channels", .value = NP_VALUE_CHANNELS, .resets_queues = true,
		.path = "/sys/class/net/{net}/channels",
		.subject = "{net} channels",
		.command = "ethtool -L {net}",
		.target = &np_target_netif, .access = &np_access_channels,
	},
	[NP_ATTR_THREAD_AFFINITY] = {
		/* No file: the "path" names the thread, its start time kept so that
		 * a revert never touches a newer thread that took the TID. The
		 * kernel narrows a mask to the thread's cpuset: the read-back says. */
		.name = "thread_affinity", .value = NP_VALUE_CPULIST,
		.path = "/proc/{pid}/task/{tid}@{start}",
		.subject = "pid {pid} thread {tid}",
		.target = &np_target_thread, .access = &np_access_thread_affinity, .keep_theirs = true,
	},
	[NP_ATTR_CGROUP_CPUS] = {
		/* "" is a v2 cgroup's "nothing of its own" (its parent's CPUs). */
		.name = "cgroup_cpus", .value = NP_VALUE_CPULIST, .empty_ok = true,
		.path = "/sys/fs/cgroup/{file}", .files = cgroup_cpus_names,
		.subject = "cgroup {file}",
	},
	[NP_ATTR_CGROUP_MEMS] = {
		/* Nodes, in the list form CPUs have. */
		.name = "cgroup_mems", .value = NP_VALUE_CPULIST, .empty_ok = true,
		.path = "/sys/fs/cgroup/{file}", .files = cgroup_mems_names,
		.subject = "cgroup {file}",
	},
	[NP_ATTR_RPS_FLOW_CNT] = {
		/* The kernel rounds a count up to a power of two (and shows
		 * that): the advisor writes powers of two, which read back as
		 * written. */
		.name = "rps_flow_cnt", .value = NP_VALUE_INT, .min = 0, .max = 1 << 29,
		.path = "/sys/class/net/{net}/queues/rx-{queue}/rps_flow_cnt",
		.subject = "{net} rx-{queue} rps_flow_cnt",
		.target = &np_target_net_queue, .dir = NP_DIR_NET_QUEUE, .snapshot = flow_cnt_files,
	},
	[NP_ATTR_RPS_SOCK_FLOW_ENTRIES] = {
		/* net.core.rps_sock_flow_entries: rounded up to a power of two, at most 2^29. */
		.name = "rps_sock_flow_entries", .value = NP_VALUE_INT, .min = 0, .max = 1 << 29,
		.path = "/proc/sys/net/core/rps_sock_flow_entries",
		.subject = "net.core.rps_sock_flow_entries",
		.target = &np_target_machine, .dir = NP_DIR_ROOT, .snapshot = sock_flow_files,
	},
	[NP_ATTR_PROCESS_AFFINITY] = {
		/* The CPUs of a process as taskset -p sees them: its main thread's,
		 * named by its start time. A move journals it in place of that
		 * thread: what its revert gives the threads started since. */
		.name = "process_affinity", .value = NP_VALUE_CPULIST,
		.path = "/proc/{pid}@{start}",
		.subject = "pid {pid}",
		.access = &np_access_thread_affinity, .keep_theirs = true,
	},
#ifdef NP_ATTR_MORE
#include NP_ATTR_MORE
#endif
};

static const char *const value_kind_names[] = {
	[NP_VALUE_CPULIST] = "cpulist",
	[NP_VALUE_CPUMASK] = "cpumask",
	[NP_VALUE_INT] = "int",
	[NP_VALUE_TEXT] = "text",
	[NP_VALUE_CHANNELS] = "channels",
};
#define NVALUE_KINDS (sizeof(value_kind_names) / sizeof(value_kind_names[0]))

const char *np_attr_name(enum np_attr attr)
{
	return (unsigned)attr < NP_ATTR_COUNT ? np_attrs[attr].name : "unknown";
}

const char *np_attr_value_key(enum np_attr attr)
{
	return (unsigned)attr < NP_ATTR_COUNT && (np_attrs[attr].value == NP_VALUE_INT ||
						  np_attrs[attr].value == NP_VALUE_CHANNELS)
		       ? "value"
		       : "cpus";
}

int np_attr_by_name(const char *name, bool settable)
{
	for (int i = 0; name && i < NP_ATTR_COUNT; i++)
		if (!strcmp(name, np_attrs[i].name) && (!settable || np_attrs[i].target))
			return i;
	return -1;
}

const char *np_value_kind_name(enum np_value_kind kind)
{
	return (unsigned)kind < NVALUE_KINDS ? value_kind_names[kind] : "unknown";
}

int np_value_kind_parse(const char *name, enum np_value_kind *out)
{
	for (size_t i = 0; i < NVALUE_KINDS; i++) {
		if (!strcmp(name, value_kind_names[i])) {
			*out = (enum np_value_kind)i;
			return 0;
		}
	}
	return -EINVAL;
}

/* ---- patterns ---- */

enum field { F_IRQ, F_QUEUE, F_NET, F_BLOCK, F_DEVICE, F_VECTOR, F_FILE, F_PID, F_TID, F_START, F_BAD };

static const char *const field_names[] = { "irq", "queue", "net", "block", "device", "vector", "file",
					   "pid", "tid", "start" };

/* The field named at p ("{irq}..."), its length in *len. */
static enum field field_at(const char *p, size_t *len)
{
	for (int f = 0; f < F_BAD; f++) {
		size_t n = strlen(field_names[f]);
		if (!strncmp(p + 1, field_names[f], n) && p[n + 1] == '}') {
			*len = n + 2;
			return (enum field)f;
		}
	}
	return F_BAD;
}

/* Names reach paths: nothing that could leave the attribute's directory. */
static bool safe_name(const char *s, size_t len)
{
	if (!len || (len == 1 && s[0] == '.') || (len == 2 && s[0] == '.' && s[1] == '.'))
		return false;
	for (size_t i = 0; i < len; i++)
		if (s[i] == '/' || s[i] == '\0')
			return false;
	return true;
}

/* A relative path of safe names, the last one of names: "default/irqbalance",
 * never "../x", "a//b" or "passwd". */
static bool safe_file(const char *s, size_t len, const char *const *names)
{
	size_t last = 0;
	if (!len || !names)
		return false;
	for (size_t i = 0; i < len;) {
		size_t n = strcspn(s + i, "/");
		if (n > len - i)
			n = len - i;
		if (!safe_name(s + i, n))
			return false;
		last = i;
		i += n + 1;
		if (i == len)
			return false; /* a trailing slash */
	}
	for (size_t i = 0; names[i]; i++)
		if (strlen(names[i]) == len - last && !strncmp(s + last, names[i], len - last))
			return true;
	return false;
}

/* Text grown by appending (open_memstream's set-up cost more than the rest
 * of an expansion: one a row of advise's table). */
struct text {
	char *s;
	size_t len, cap;
	bool failed;
};

static void append(struct text *x, const char *s, size_t len)
{
	if (x->failed)
		return;
	if (x->len + len + 1 > x->cap) {
		size_t cap = x->cap ? x->cap : 64;
		while (cap < x->len + len + 1)
			cap *= 2;
		char *bigger = realloc(x->s, cap);
		if (!bigger) {
			x->failed = true;
			return;
		}
		x->s = bigger;
		x->cap = cap;
	}
	memcpy(x->s + x->len, s, len);
	x->len += len;
	x->s[x->len] = '\0';
}

/* Expands pattern with t's fields into *out. path: every field must be
 * there and safe (-EINVAL); otherwise a missing one reads "?". */
static int expand(const char *pattern, const char *const *files, const struct np_target *t, bool path, char **out)
{
	struct text x = { NULL, 0, 0, false };
	int rc = 0;
	*out = NULL;
	append(&x, "", 0);
	for (const char *p = pattern; rc == 0 && *p;) {
		size_t len;
		enum field fd = *p == '{' ? field_at(p, &len) : F_BAD;
		if (fd == F_BAD) {
			len = strcspn(p + 1, "{") + 1;
			append(&x, p, len);
			p += len;
			continue;
		}
		p += len;
		/* A thread's ids are > 0 (0: none); its start time is there with
		 * its tid, or a process's with its pid. */
		int num = fd == F_IRQ ? t->irq : fd == F_QUEUE ? t->queue : fd == F_PID ? (t->pid > 0 ? t->pid : -1)
			: fd == F_TID ? (t->tid > 0 ? t->tid : -1) : -1;
		const char *s = fd == F_NET ? t->net : fd == F_BLOCK ? t->block
			      : fd == F_DEVICE ? t->device : fd == F_VECTOR ? t->vector : fd == F_FILE ? t->file : NULL;
		bool numeric = fd == F_IRQ || fd == F_QUEUE || fd == F_PID || fd == F_TID || fd == F_START;
		bool safe = s && (fd == F_FILE ? safe_file(s, strlen(s), files) : safe_name(s, strlen(s)));
		char n[24];
		if (fd == F_START && (t->tid > 0 || t->pid > 0))
			append(&x, n, (size_t)snprintf(n, sizeof(n), "%llu", t->start));
		else if (numeric && fd != F_START && num >= 0)
			append(&x, n, (size_t)snprintf(n, sizeof(n), "%d", num));
		else if (!numeric && s && (!path || safe))
			append(&x, s, strlen(s));
		else if (path)
			rc = -EINVAL;
		else
			append(&x, "?", 1);
	}
	if (x.failed && rc == 0)
		rc = -ENOMEM;
	if (rc)
		free(x.s);
	else
		*out = x.s;
	return rc;
}

char *np_attr_path(enum np_attr attr, const struct np_target *t)
{
	char *out;
	if ((unsigned)attr >= NP_ATTR_COUNT || !np_attrs[attr].path || expand(np_attrs[attr].path, np_attrs[attr].files, t, true, &out))
		return NULL;
	return out;
}

char *np_attr_command(enum np_attr attr, const struct np_target *t, const char *value)
{
	char *head, *out;
	if ((unsigned)attr >= NP_ATTR_COUNT || !np_attrs[attr].command || expand(np_attrs[attr].command, NULL, t, false, &head))
		return NULL;
	if (asprintf(&out, "%s %s", head, value) < 0)
		out = NULL;
	free(head);
	return out;
}

char *np_attr_subject(enum np_attr attr, const struct np_target *t)
{
	char *out;
	if ((unsigned)attr >= NP_ATTR_COUNT || expand(np_attrs[attr].subject, NULL, t, false, &out))
		return NULL;
	return out;
}

/* A decimal number as a path prints it: no sign, no leading zero. */
static bool parse_u64(const char *s, size_t len, unsigned long long *out)
{
	unsigned long long v = 0;
	if (!len || (len > 1 && s[0] == '0'))
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned digit = (unsigned)(s[i] - '0');
		if (!isdigit((unsigned char)s[i]) || v > (ULLONG_MAX - digit) / 10)
			return false;
		v = v * 10 + digit;
	}
	*out = v;
	return true;
}

static bool parse_number(const char *s, size_t len, int *out)
{
	long v = 0;
	if (!len || (len > 1 && s[0] == '0'))
		return false;
	for (size_t i = 0; i < len; i++) {
		if (!isdigit((unsigned char)s[i]) || v > INT_MAX / 10)
			return false;
		v = v * 10 + (s[i] - '0');
	}
	if (v > INT_MAX)
		return false;
	*out = (int)v;
	return true;
}

/* Matches path against pattern; fields into t (names malloc'd) when given. */
static bool match(const char *pattern, const char *const *files, const char *path, struct np_target *t)
{
	const char *p = pattern, *s = path;
	while (*p) {
		size_t len;
		enum field fd = *p == '{' ? field_at(p, &len) : F_BAD;
		if (fd == F_BAD) {
			if (*p++ != *s++)
				return false;
			continue;
		}
		p += len;
		/* A field runs to the next '/' (or the pattern's next literal
		 * character, for "rx-{queue}" and the like, which is never a digit);
		 * a file, which ends its pattern, to the end. */
		size_t n = fd == F_FILE ? strlen(s) : strcspn(s, "/");
		if (*p && *p != '/') {
			const char *lit = strchr(s, *p);
			if (!lit || (size_t)(lit - s) > n)
				return false;
			n = (size_t)(lit - s);
		}
		int num;
		unsigned long long big;
		switch (fd) {
		case F_IRQ:
		case F_QUEUE:
			if (!parse_number(s, n, &num))
				return false;
			if (t)
				*(fd == F_IRQ ? &t->irq : &t->queue) = num;
			break;
		case F_PID:
		case F_TID:
			if (!parse_number(s, n, &num) || num <= 0)
				return false;
			if (t)
				*(fd == F_PID ? &t->pid : &t->tid) = num;
			break;
		case F_START:
			if (!parse_u64(s, n, &big))
				return false;
			if (t)
				t->start = big;
			break;
		case F_NET:
		case F_BLOCK:
			if (!safe_name(s, n))
				return false;
			if (t) {
				char *copy = strndup(s, n);
				if (!copy)
					return false;
				if (fd == F_NET)
					t->net = copy;
				else
					t->block = copy;
			}
			break;
		case F_FILE:
			if (!safe_file(s, n, files) || (t && !(t->file = strndup(s, n))))
				return false;
			break;
		default:
			return false; /* subject-only fields never appear in paths */
		}
		s += n;
	}
	return *s == '\0';
}

void np_target_free(struct np_target *t)
{
	free((char *)t->net);
	free((char *)t->block);
	free((char *)t->file);
	t->net = t->block = t->file = NULL;
}

int np_attr_match(const char *path, struct np_target *t)
{
	if (!path)
		return -1;
	for (int i = 0; i < NP_ATTR_COUNT; i++) {
		struct np_target found = NP_TARGET_NONE;
		if (np_attrs[i].path && match(np_attrs[i].path, np_attrs[i].files, path, &found)) {
			if (t)
				*t = found;
			else
				np_target_free(&found);
			return i;
		}
		np_target_free(&found);
	}
	return -1;
}

const struct np_attr_access *np_attr_access_of(const char *path)
{
	for (int i = 0; path && i < NP_ATTR_COUNT; i++)
		if (np_attrs[i].access && match(np_attrs[i].path, np_attrs[i].files, path, NULL))
			return np_attrs[i].access;
	return NULL;
}

/* ---- values ---- */

static char *normalize_int(const char *value)
{
	const char *p = value;
	while (isspace((unsigned char)*p))
		p++;
	const char *digits = p + (*p == '-' || *p == '+');
	if (!isdigit((unsigned char)*digits))
		return NULL;
	char *end;
	errno = 0;
	long long v = strtoll(p, &end, 10);
	if (errno)
		return NULL;
	while (isspace((unsigned char)*end))
		end++;
	if (*end)
		return NULL;
	char *out;
	return asprintf(&out, "%lld", v) < 0 ? NULL : out;
}

char *np_value_normalize(enum np_value_kind kind, const char *value)
{
	if (!value)
		return NULL;
	switch (kind) {
	case NP_VALUE_CPULIST:
	case NP_VALUE_CPUMASK: {
		struct np_cpuset set = NP_CPUSET_INIT;
		int rc = kind == NP_VALUE_CPULIST ? np_cpuset_parse_list(&set, value)
						  : np_cpuset_parse_mask(&set, value);
		/* Masks compare as lists, so that the width never matters:
		 * "3" and "00000000,00000003" are the same CPUs. */
		char *out = rc ? NULL : np_cpuset_format_list(&set);
		np_cpuset_free(&set);
		return out;
	}
	case NP_VALUE_INT:
		return normalize_int(value);
	case NP_VALUE_TEXT:
		return strdup(value);
	case NP_VALUE_CHANNELS:
		return np_channels_normalize(value);
	}
	return NULL;
}

bool np_attr_value_ok(enum np_attr attr, const char *value)
{
	if ((unsigned)attr >= NP_ATTR_COUNT)
		return false;
	const struct np_attr_desc *d = &np_attrs[attr];
	char *norm = np_value_normalize(d->value, value);
	bool ok = norm != NULL;
	if (ok && d->value == NP_VALUE_INT) {
		long long v = strtoll(norm, NULL, 10);
		ok = v >= d->min && v <= d->max;
	} else if (ok && (d->value == NP_VALUE_CPULIST || d->value == NP_VALUE_CPUMASK)) {
		ok = *norm || d->empty_ok;
	}
	free(norm);
	return ok;
}

char *np_attr_format_cpus(enum np_attr attr, const struct np_cpuset *set, unsigned ncpus)
{
	if ((unsigned)attr < NP_ATTR_COUNT && np_attrs[attr].value == NP_VALUE_CPUMASK)
		return np_cpuset_format_mask(set, ncpus);
	return np_cpuset_format_list(set);
}

/* ---- changes ---- */

int np_change_make(struct np_change *c, enum np_attr attr, const struct np_target *t, const char *new_value)
{
	memset(c, 0, sizeof(*c));
	c->attr = attr;
	c->target = NP_TARGET_NONE;
	if ((unsigned)attr >= NP_ATTR_COUNT)
		return -EINVAL;
	int rc = expand(np_attrs[attr].path, np_attrs[attr].files, t, true, &c->path);
	if (rc)
		return rc;
	c->subject = np_attr_subject(attr, t);
	c->new_value = new_value ? strdup(new_value) : NULL;
	/* The target is what the path says, as for a change read back from a
	 * journal: the fields the path does not use stay unset. */
	if (!c->subject || (new_value && !c->new_value) || np_attr_match(c->path, &c->target) != (int)attr) {
		np_change_free(c);
		return -ENOMEM;
	}
	return 0;
}

void np_change_free(struct np_change *c)
{
	free(c->path);
	free(c->subject);
	free(c->old_value);
	free(c->new_value);
	np_target_free(&c->target);
	memset(c, 0, sizeof(*c));
	c->target = NP_TARGET_NONE;
}
