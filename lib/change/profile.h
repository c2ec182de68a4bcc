/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Tuning profiles: JSON files kept in version control. Settings name devices
 * by stable identity (PCI address, interface, block device, queue), never by
 * IRQ number except as an explicit fallback; rules are portable intents that
 * are resolved on the host at apply time. A profile holds no file paths. */
#ifndef NUMAPLACE_PROFILE_H
#define NUMAPLACE_PROFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "change/attr.h"
#include "base/context.h"
#include "base/paths.h"
#include "judge/policies.h"

#define NP_PROFILE_FORMAT "numaplace-profile/1"
#define NP_PROFILE_SYSTEM_DIR NUMAPLACE_CONFDIR "/profiles"

/* One concrete value. JSON: {"kind": "irq_affinity", "device": "0000:23:00.0",
 * "queue": 3, "cpus": "1,3"}; the IRQ is chosen by "queue" (the index its
 * name tells), "vector" (its whole action name), or "irq" (a number: the
 * explicit fallback, allowed only without "device"). {"kind": "rq_affinity",
 * "block": "sda", "value": 2}; {"kind": "rps_cpus" | "xps_cpus", "net":
 * "eth0", "queue": 0, "cpus": "1"} ("" turns RPS off);
 * {"kind": "default_irq_affinity", "cpus": "0-3"}. The kinds and their keys
 * are the settable rows of the attr table (attr.h) and their target classes. */
struct np_setting {
	enum np_attr kind;
	/* What it is for, as its kind's target class names it (target.h): an
	 * IRQ by device and queue or vector (or number), a network queue by
	 * interface and index, a block device, or nothing for the machine.
	 * Every string is the setting's own. */
	struct np_target target;
	char *value;    /* as a profile writes it: a canonical CPU list, or a number */
	char *where;    /* field path for messages: "settings[3]" */
};

/* A portable intent. JSON: {"match": {"class": "network", "driver": "ixgbe",
 * "ids": "8086:10fb", "net": "eth*", "pci": "0000:2?:*"}, "irqs": "local" |
 * "app" | "spread" | "0-3", "rq_affinity": 2, "rps": "off" | "app", "xps":
 * "follow-irq", "channels": "per-core" | "per-node"}. Every match field given
 * must match (globs for net and pci). */
struct np_rule {
	char *match_class;  /* "network", "storage", "display", "accelerator", or hex "0x0200" */
	char *match_driver;
	char *match_ids;    /* "8086:10fb" */
	char *match_net;    /* glob on interface names */
	char *match_pci;    /* glob on full PCI addresses */
	enum np_irq_policy irqs;
	char *irq_cpus;     /* NP_IRQS_CPUS */
	int rq_affinity;    /* -1 when not given */
	enum np_rps_policy rps;
	bool xps_follow_irq;
	enum np_channels_policy channels; /* NP_CHANNELS_KEEP when not given */
	char *where;        /* "rules[2]" */
};

struct np_profile {
	char *file;         /* where it was read from */
	char *name;
	char *description;
	char *app_cpus;     /* "app": {"cpus": "8-15"} or {"node": 1}, for the app policy */
	int app_node;       /* -1 when not given */
	struct np_setting *settings;
	size_t nsettings;
	struct np_rule *rules;
	size_t nrules;
};

/* Parses and validates a profile's text. Errors name the file and either the
 * JSON line and column (syntax) or the field path ("rules[2].match.driver")
 * and what was expected; unknown keys are errors. Returns 0 or -EINVAL. */
int np_profile_parse(struct np_ctx *ctx, const char *file, const char *text, struct np_profile *out);
/* Reads a profile file (a user file: not through the machine root). */
int np_profile_load(struct np_ctx *ctx, const char *path, struct np_profile *out);
/* Finds a profile by NAME (NAME.json in each dir, in order) or takes it as a
 * path when it contains '/' or ends in ".json". dirs is NULL-terminated. */
int np_profile_find(struct np_ctx *ctx, const char *name, const char *const *dirs, char **path);
struct np_machine;
/* The setting of attr to value for a target found on m (a change, an
 * advisor's record): its class keeps what names the target stably (an IRQ
 * by device and queue, or vector when the queue number is not unique).
 * where is "settings[index]". 0 or -ENOMEM. */
int np_setting_make(const struct np_machine *m, enum np_attr attr, const struct np_target *t, const char *value,
		    size_t index, struct np_setting *out);
void np_setting_free(struct np_setting *s);

/* The profile as JSON text in the canonical form (what advise -o writes). */
char *np_profile_to_text(const struct np_profile *p);
void np_profile_free(struct np_profile *p);

#endif
