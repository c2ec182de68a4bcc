/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Target classes: what a tunable kind's value belongs to (an IRQ, a network
 * queue, a block device, the machine), with the behaviour that depends on
 * it, one method table per shape as pciutils has one per access method.
 * Each attr row points to its class (attr.h); profiles, resolve and the
 * advisor ask the class, never switch on the kind. A kind of an existing
 * shape is one row; a new shape (per CPU, per node) is one class here. */
#ifndef NUMAPLACE_TARGET_H
#define NUMAPLACE_TARGET_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#include "change/attr.h"
#include "change/profile-reader.h"
#include "base/context.h"

struct np_machine;

/* What a profile's setting asks its class to find on a machine: its kind,
 * its target as the profile names it (borrowed), and where it stands, for
 * the messages ("p.json: settings[3].net: no interface 'eth9'"). */
struct np_target_wanted {
	enum np_attr kind;
	struct np_target target;
	const char *file;  /* the profile's */
	const char *where; /* "settings[3]" */
};

/* Where resolve hands each target a setting names on the machine. t is
 * borrowed for the call. */
typedef int np_target_emit(void *arg, const struct np_target *t);

struct np_target_class {
	const char *name;        /* "irq", "net queue", "interface", "block", "machine", "thread" */
	const char *const *keys; /* the profile keys that name a target, in order */
	/* Reads the target from f[] (the members of keys, in order, NULL when
	 * absent) into t (strings malloc'd). 0, -EINVAL or -ENOMEM, through r. */
	int (*parse)(struct np_setting_reader *r, const cJSON *const *f, struct np_target *t);
	/* Adds the target's keys to a setting's JSON object; false on ENOMEM. */
	bool (*to_json)(cJSON *o, const struct np_target *t);
	/* Finds on m what setting s of attr names and emits each target (an IRQ
	 * setting may name several vectors); -EINVAL, with ctx->err naming
	 * p's file and the field, when this machine has none. */
	int (*resolve)(struct np_ctx *ctx, const struct np_machine *m, const struct np_target_wanted *s,
		       np_target_emit *emit, void *arg);
	/* The target for humans ("eth0 queue 3", "sda"); NULL on ENOMEM. */
	char *(*describe)(const struct np_target *t);
	/* The stable names of a target found on m (a change, an advisor's
	 * record), for a setting: what of t a profile keeps (strings malloc'd
	 * into out). 0 or -ENOMEM. */
	int (*identify)(const struct np_machine *m, const struct np_target *t, struct np_target *out);
};

extern const struct np_target_class np_target_irq, np_target_net_queue, np_target_netif, np_target_block,
	np_target_machine, np_target_thread;

/* Frees a setting's target: every string is its own there. */
void np_target_free_all(struct np_target *t);

#endif
