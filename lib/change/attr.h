/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The tunable kinds: one descriptor row each, in the spirit of pciutils'
 * method tables. A row says what the kind is called (in profiles, plans and
 * journals), what its value looks like, where it lives on the machine and
 * how a human calls it, which profile keys set it, and which files snapshot
 * copies for it. Everything else (profile parsing, resolving, the journal,
 * revert's path check, the irqbalance ban) asks the table.
 *
 * Adding a kind takes: one row in np_attrs[] (attr.c) and its enum value
 * here; one reader that puts its current value into the machine model
 * (machine.h); one advisor rule (advise.c) when numaplace should recommend a
 * value; its section in man/numaplace-profile.5 (and its line in the
 * DESCRIPTION of numaplace.8). Profiles, resolve, apply, verify, revert,
 * the journal and snapshot follow from the row, as long as the kind belongs
 * to a target class numaplace has (target.h: an IRQ, a network queue, a
 * block device, the machine); a new sort of target (per CPU, per node) is
 * one more class there. */
#ifndef NUMAPLACE_ATTR_H
#define NUMAPLACE_ATTR_H

#include <stdbool.h>

#include "base/cpuset.h"

enum np_attr {
	NP_ATTR_IRQ_AFFINITY,         /* /proc/irq/N/smp_affinity_list */
	NP_ATTR_RQ_AFFINITY,          /* /sys/block/X/queue/rq_affinity */
	NP_ATTR_RPS_CPUS,             /* /sys/class/net/IF/queues/rx-N/rps_cpus */
	NP_ATTR_XPS_CPUS,             /* /sys/class/net/IF/queues/tx-N/xps_cpus */
	NP_ATTR_DEFAULT_IRQ_AFFINITY, /* /proc/irq/default_smp_affinity */
	NP_ATTR_IRQBALANCE_CONFIG,    /* irqbalance's file under /etc (the bans), not in profiles */
	NP_ATTR_CHANNELS,             /* a NIC's channel counts: ethtool netlink, no file */
	NP_ATTR_THREAD_AFFINITY,      /* a thread's CPUs: sched_setaffinity, no file (move) */
	NP_ATTR_CGROUP_CPUS,          /* /sys/fs/cgroup/PATH/cpuset.cpus (move --cgroup), not in profiles */
	NP_ATTR_CGROUP_MEMS,          /* /sys/fs/cgroup/PATH/cpuset.mems (move --cgroup --memory) */
	NP_ATTR_RPS_FLOW_CNT,         /* /sys/class/net/IF/queues/rx-N/rps_flow_cnt (RFS, per queue) */
	NP_ATTR_RPS_SOCK_FLOW_ENTRIES,/* /proc/sys/net/core/rps_sock_flow_entries (RFS, global) */
	NP_ATTR_PROCESS_AFFINITY,     /* a process's CPUs, its main thread's (move), not in profiles */
	/* A build with kinds more: NP_ATTR_MORE names a file of rows (make's
	 * test build, tests/unit/newrow-rows.h), included here for their ids
	 * and in attr.c for their rows. */
#ifdef NP_ATTR_MORE
#define NP_ATTR_MORE_IDS
#include NP_ATTR_MORE
#undef NP_ATTR_MORE_IDS
#endif
	NP_ATTR_COUNT
};

/* How a value is written and compared after normalization (read-back,
 * drift, revert). */
enum np_value_kind {
	NP_VALUE_CPULIST, /* "0-3" == "0,1,2,3" */
	NP_VALUE_CPUMASK, /* "00000003" == "3"; profiles still say CPU lists */
	NP_VALUE_INT,     /* a number in [min, max] */
	NP_VALUE_TEXT,    /* a whole configuration file, byte for byte, replaced atomically */
	NP_VALUE_CHANNELS, /* ethtool -L's words: "rx 2 tx 2" == "rx 2 tx 2 combined 0" (change/channels-value.h) */
};

/* What one value belongs to. The path is built from irq, queue, net,
 * block, file and a thread's pid, tid and start; device and vector only
 * name it for humans. */
struct np_target {
	int irq;            /* -1 when none */
	int queue;          /* -1 when none */
	int pid, tid;       /* a thread: its process and its own id; 0 when none */
	unsigned long long start; /* a thread's start time (stat field 22, clock ticks
				   * since boot): with tid, what names it, as TIDs are reused */
	const char *net;    /* interface */
	const char *block;  /* block device */
	const char *device; /* subject only: PCI address */
	const char *vector; /* subject only: the IRQ's action name */
	const char *file;   /* a configuration file, relative to /etc ("default/irqbalance") */
};
#define NP_TARGET_NONE ((struct np_target){ .irq = -1, .queue = -1 })

struct np_target_class; /* target.h */
struct np_ctx;          /* context.h */
struct np_change;       /* below */

/* How a value that is no file is read and written, one method table per
 * way, as pciutils has one per access method: a thread's affinity is
 * sched_getaffinity/sched_setaffinity. path is the change's path, its
 * row's pattern filled in (np_attr_match gives the target back), so the
 * journal, revert and verify handle it as any other value. */
struct np_attr_access {
	/* The current value (malloc'd). -ESRCH when the target is gone (a
	 * thread that exited, or whose TID a newer thread took), else -errno
	 * with ctx->err naming it. */
	int (*read)(struct np_ctx *ctx, const char *path, char **out);
	/* Writes value; -ESRCH when the target is gone. */
	int (*write)(struct np_ctx *ctx, const char *path, const char *value);
	/* A profile's value made whole from the current one (out malloc'd):
	 * channels a setting does not name keep their counts, as ethtool -L
	 * leaves them. NULL: a value is always whole. */
	int (*complete)(struct np_ctx *ctx, const char *path, const char *value, char **out);
	/* At a revert, before any value is read: the values of this kind that
	 * the journal's changes (all of the transaction's) lack, to restore with
	 * them (a move's threads started since it), into *more (malloc'd, each
	 * marked added, old_value what the revert restores); or -errno, ctx->err
	 * saying why, to refuse the revert and leave the transaction as it is
	 * (a process that is not this machine's). NULL: none. */
	int (*revert_more)(struct np_ctx *ctx, const struct np_change *changes, size_t n, struct np_change **more,
			   size_t *nmore);
};
extern const struct np_attr_access np_access_thread_affinity; /* thread-affinity.c */
extern const struct np_attr_access np_access_channels;        /* channels.c */

/* Where snapshot finds a kind's files: relative to which directory. */
enum np_attr_dir {
	NP_DIR_NONE,      /* snapshot copies nothing for it */
	NP_DIR_ROOT,      /* absolute machine paths */
	NP_DIR_IRQ,       /* /proc/irq/N */
	NP_DIR_NET_QUEUE, /* /sys/class/net/IF/queues/{rx,tx}-N */
	NP_DIR_BLOCK,     /* /sys/block/X */
};

struct np_attr_desc {
	const char *name;             /* profile "kind", plan "kind", journal "attr" */
	enum np_value_kind value;
	int min, max;                 /* NP_VALUE_INT: the values the kernel honours */
	bool empty_ok;                /* CPU sets: "" is a value (turns the feature off) */
	bool survives_reboot;         /* a file on disk, not a kernel value */
	/* A change of it re-creates the interface's queues (their IRQs, XPS
	 * and RPS, which the driver may reset): it is written before every
	 * other value of its transaction, which are resolved again after it
	 * (IRQ numbers change), and reverted before them. */
	bool resets_queues;
	/* The command that sets it by hand, its value appended ("ethtool -L
	 * eth0" + " combined 4"), shown beside a recommendation. */
	/* At a revert, a value someone else set since is theirs: left as it
	 * is and counted (np_change.theirs), never refused, --force or not (a
	 * thread its application pinned itself). */
	bool keep_theirs;
	/* A recommendation the user carries out (its command in the subject's
	 * place): no path, never in a profile, a change or a journal. */
	const char *command;
	/* Machine path and subject, with fields from the target: {irq} and
	 * {queue} are numbers, {net} and {block} names; the subject may also
	 * say {device} and {vector}. */
	const char *path;
	const char *subject;
	const char *const *files;     /* {file}: the names its last component may have */
	/* What its value belongs to, and how a profile names that (target.h):
	 * a setting's keys are "kind", the class's, then np_attr_value_key's.
	 * NULL: no profile sets it. */
	const struct np_target_class *target;
	/* NULL: the path is a file, read and written as one; else how the
	 * value the path names is read and written. */
	const struct np_attr_access *access;
	enum np_attr_dir dir;
	const char *const *snapshot;  /* what snapshot copies, relative to dir */
};

extern const struct np_attr_desc np_attrs[NP_ATTR_COUNT];

const char *np_attr_name(enum np_attr attr);
/* The profile key of attr's value: "cpus" for a CPU set, "value" for a number. */
const char *np_attr_value_key(enum np_attr attr);
/* The kind called name, or -1. settable: only kinds that profiles may set. */
int np_attr_by_name(const char *name, bool settable);
/* The machine path of attr for t (malloc'd); NULL when a field the path
 * needs is missing or unsafe (a name with '/' or "..") or out of memory. */
char *np_attr_path(enum np_attr attr, const struct np_target *t);
/* The command that sets attr by hand for t and value ("ethtool -L eth0
 * combined 4"), malloc'd; NULL for a kind without one, or on ENOMEM. */
char *np_attr_command(enum np_attr attr, const struct np_target *t, const char *value);
/* The human subject ("eth0 rx-0 rps_cpus"); NULL on ENOMEM. */
char *np_attr_subject(enum np_attr attr, const struct np_target *t);
/* The kind whose path pattern path matches exactly, or -1: a path that is
 * no kind's own (another file, a "..", a name with a slash) matches none.
 * With t, fills it from the path; its net and block are malloc'd (free
 * with np_target_free). */
int np_attr_match(const char *path, struct np_target *t);
/* The access method of the kind whose path path is, when it is no file
 * (struct np_attr_access); NULL for a file. */
const struct np_attr_access *np_attr_access_of(const char *path);
void np_target_free(struct np_target *t);

/* Normalizes a value of the given kind ("0,1,2" -> "0-2", masks to lists);
 * NULL when malformed. */
char *np_value_normalize(enum np_value_kind kind, const char *value);
const char *np_value_kind_name(enum np_value_kind kind);
int np_value_kind_parse(const char *name, enum np_value_kind *out);
/* Whether value is one attr takes: its kind's syntax, an int in range, a
 * CPU set empty only where empty_ok. */
bool np_attr_value_ok(enum np_attr attr, const char *value);
/* A CPU set in attr's file form: a list, or a mask ncpus wide. */
char *np_attr_format_cpus(enum np_attr attr, const struct np_cpuset *set, unsigned ncpus);

/* One value to write: what np_txn_apply takes and a journal holds. */
struct np_change {
	char *path;        /* machine path, "/proc/irq/45/smp_affinity_list" */
	enum np_attr attr; /* path is attr's pattern filled with target */
	char *subject;     /* stable identity for humans: "0000:23:00.0 irq 45 eth0-TxRx-0" */
	char *old_value;   /* as read before writing (filled by np_txn_apply); for a
			    * NP_VALUE_TEXT kind the caller may set it (malloc'd) to
			    * the text new_value was made from: the apply then fails
			    * (-EAGAIN) when the file, once locked, holds another */
	char *new_value;
	struct np_target target; /* the fields path says (net, block owned); the rest unset */
	bool gone;         /* its target no longer exists (a thread that exited): an apply
			    * skipped it, a revert restored nothing there (-ESRCH from its
			    * access method) */
	bool reset;        /* a revert restored its interface's channels first and the
			    * driver then rewrote it (or re-created its IRQ): left as the
			    * driver set it, nothing written there */
	bool theirs;       /* a revert left it: someone else set it since (keep_theirs) */
	bool added;        /* not in the journal: a revert found it (revert_more) */
};

/* Fills c (path, subject, the target its path says, new_value copied).
 * Returns 0, -EINVAL when t lacks what attr's path needs, -ENOMEM. */
int np_change_make(struct np_change *c, enum np_attr attr, const struct np_target *t, const char *new_value);
void np_change_free(struct np_change *c);

#endif
