/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Profiles are parsed strictly: root applies them, so a typo must stop the
 * apply with a message pointing at it, never be skipped or guessed at. */
#include "change/profile.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cpuset.h"
#include "change/channels-value.h"
#include "read/pci.h"
#include "change/profile-reader.h"
#include "change/target.h"

/* A profile is a hand-edited file; anything bigger is a mistake (or an
 * attempt to make root allocate), not a profile. */
#define MAX_FILE (1 << 20)
/* nvme queue ids are 16 bits; no NIC comes near. Bounds typos, not hardware. */
#define MAX_INDEX 65535


static const char *const top_keys[] = { "format", "name", "description", "app", "settings", "rules", NULL };
static const char *const app_keys[] = { "cpus", "node", NULL };
static const char *const rule_keys[] = { "match", "irqs", "rq_affinity", "rps", "xps", "channels", NULL };
static const char *const match_keys[] = { "class", "driver", "ids", "net", "pci", NULL };

static const char *const class_names[] = { "network", "storage", "display", "accelerator", NULL };

/* Room for "kind" and every key a kind's row names, NULL-terminated. */
#define MAX_SETTING_KEYS 16

static void join_keys(char *buf, size_t size, const char *const *keys)
{
	size_t n = 0;
	buf[0] = '\0';
	for (int i = 0; keys[i] && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? ", " : "", keys[i]);
}

static int key_index(const char *const *keys, const char *key)
{
	for (int i = 0; keys[i]; i++)
		if (!strcmp(keys[i], key))
			return i;
	return -1;
}

/* A setting's keys: "kind", its kind's target class's, then its value's
 * (attr < 0: every settable kind's, each once). *nclass: how many the
 * class has (attr >= 0). */
static void setting_keys(int attr, const char **keys, size_t *nclass)
{
	size_t n = 0;
	keys[n++] = "kind";
	for (int a = 0; a < NP_ATTR_COUNT; a++) {
		if ((attr >= 0 && a != attr) || !np_attrs[a].target)
			continue;
		for (const char *const *k = np_attrs[a].target->keys; *k && n < MAX_SETTING_KEYS - 2; k++) {
			keys[n] = NULL;
			if (key_index(keys, *k) < 0)
				keys[n++] = *k;
		}
		if (nclass)
			*nclass = n - 1;
		keys[n] = NULL;
		if (key_index(keys, np_attr_value_key((enum np_attr)a)) < 0)
			keys[n++] = np_attr_value_key((enum np_attr)a);
	}
	keys[n] = NULL;
}

/* The kinds a profile may set, in table order. */
static void settable_kinds(const char **names)
{
	size_t n = 0;
	for (int a = 0; a < NP_ATTR_COUNT; a++)
		if (np_attrs[a].target)
			names[n++] = np_attrs[a].name;
	names[n] = NULL;
}

/* Sorts obj's members into found[] by keys (NULL-terminated). Unknown keys
 * and repeated ones are errors: cJSON keeps both copies of a repeated key
 * and a lookup would silently use the first. elsewhere, when given, names
 * keys valid in a sibling form (another setting kind), for a better message. */
static int members(struct np_profile_reader *ps, const cJSON *obj, const char *path, const char *const *keys,
		   const char *const *elsewhere, const char *form, const cJSON **found)
{
	char p[NP_PR_PATH_MAX], list[256];
	int n = 0;
	while (keys[n])
		found[n++] = NULL;
	for (const cJSON *m = obj->child; m; m = m->next) {
		np_pr_subpath(p, path, m->string);
		int i = key_index(keys, m->string);
		if (i < 0) {
			join_keys(list, sizeof(list), keys);
			if (elsewhere && key_index(elsewhere, m->string) >= 0)
				return np_pr_bad(ps, p, "not a key of %s, expected one of %s", form, list);
			return np_pr_bad(ps, p, "unknown key, expected one of %s", list);
		}
		if (found[i])
			return np_pr_bad(ps, p, "duplicate key, expected each key once");
		found[i] = m;
	}
	return 0;
}

static const cJSON *first_member(const cJSON *obj, const char *key)
{
	for (const cJSON *m = obj->child; m; m = m->next)
		if (!strcmp(m->string, key))
			return m;
	return NULL;
}

static int parse_app(struct np_profile_reader *ps, const cJSON *v, struct np_profile *p)
{
	static const char expected[] = "{\"cpus\": \"LIST\"} or {\"node\": N}";
	const cJSON *f[3];
	int rc;
	if (!cJSON_IsObject(v))
		return np_pr_wrong(ps, "app", v, expected);
	if ((rc = members(ps, v, "app", app_keys, NULL, NULL, f)))
		return rc;
	if (f[0] && f[1])
		return np_pr_bad(ps, "app", "both cpus and node, expected %s", expected);
	if (f[0])
		return np_pr_cpus(ps, f[0], "app.cpus", false, &p->app_cpus);
	if (f[1])
		return np_pr_int(ps, f[1], "app.node", 0, MAX_INDEX, "a node number such as 1",
			       &p->app_node);
	return np_pr_bad(ps, "app", "empty, expected %s", expected);
}

/* "0, 1 or 2", or "a number from 1 to 4096". */
static void int_expected(char *buf, size_t size, int min, int max)
{
	size_t n = 0;
	if (max - min > 3) {
		snprintf(buf, size, "a number from %d to %d", min, max);
		return;
	}
	buf[0] = '\0';
	for (int v = min; v <= max && n < size; v++)
		n += (size_t)snprintf(buf + n, size - n, "%s%d", v == min ? "" : v == max ? " or " : ", ", v);
}

/* The value of a setting of attr, under its key: the kind's value, not its target, decides. */
static int parse_value(struct np_profile_reader *ps, const cJSON *v, enum np_attr attr, struct np_setting *s)
{
	const struct np_attr_desc *d = &np_attrs[attr];
	const char *key = np_attr_value_key(attr);
	char path[NP_PR_PATH_MAX], expected[96];
	if (d->value == NP_VALUE_INT) {
		int value = 0;
		int_expected(expected, sizeof(expected), d->min, d->max);
		if (!v)
			return np_pr_missing(ps, s->where, key, expected);
		np_pr_subpath(path, s->where, key);
		int rc = np_pr_int(ps, v, path, d->min, d->max, expected, &value);
		if (rc)
			return rc;
		return asprintf(&s->value, "%d", value) < 0 ? (s->value = NULL, np_pr_no_memory(ps)) : 0;
	}
	if (d->value == NP_VALUE_CHANNELS) {
		static const char channels_expected[] = "channel counts as ethtool -L takes them, such as \"combined 4\" "
							"or \"rx 2 tx 2\"";
		struct np_channels c;
		const char *text;
		if (!v)
			return np_pr_missing(ps, s->where, key, channels_expected);
		np_pr_subpath(path, s->where, key);
		int rc = np_pr_string(ps, v, path, channels_expected, &text);
		if (rc == 0 && (np_channels_parse(text, &c) || !np_attr_value_ok(attr, text)))
			rc = np_pr_wrong(ps, path, v, channels_expected);
		/* Its zeros are kept: "rx 0" is asked for, an unnamed kind is left as it is. */
		if (rc == 0 && !(s->value = np_channels_format(&c, true)))
			rc = np_pr_no_memory(ps);
		return rc;
	}
	if (!v)
		return np_pr_missing(ps, s->where, key,
			       d->empty_ok ? "a CPU list such as \"0-3,8\", or \"\" for none" : "a CPU list such as \"0-3,8\"");
	np_pr_subpath(path, s->where, key);
	/* An empty mask is how RPS and XPS are turned off. */
	return np_pr_cpus(ps, v, path, d->empty_ok, &s->value);
}

static int parse_setting(struct np_profile_reader *ps, const cJSON *v, struct np_setting *s)
{
	/* Room for every kind's name (each under 32 bytes with its separator). */
	char kp[NP_PR_PATH_MAX], kinds[32 * NP_ATTR_COUNT];
	const char *names[NP_ATTR_COUNT + 1], *keys[MAX_SETTING_KEYS], *any_keys[MAX_SETTING_KEYS];
	const cJSON *f[MAX_SETTING_KEYS];
	const char *kind;
	size_t nclass = 0;
	int rc;

	settable_kinds(names);
	join_keys(kinds, sizeof(kinds), names);
	if (!cJSON_IsObject(v))
		return np_pr_wrong(ps, s->where, v, "a setting object such as {\"kind\": \"rq_affinity\", \"block\": \"sda\", \"value\": 2}");
	/* The kind decides which keys are allowed, so it is read first. */
	const cJSON *k = first_member(v, "kind");
	if (!k)
		return np_pr_bad(ps, s->where, "missing \"kind\", expected one of %s", kinds);
	np_pr_subpath(kp, s->where, "kind");
	char expected[sizeof(kinds) + 8];
	snprintf(expected, sizeof(expected), "one of %s", kinds);
	if ((rc = np_pr_string(ps, k, kp, expected, &kind)))
		return rc;
	int attr = np_attr_by_name(kind, true);
	if (attr < 0)
		return np_pr_wrong(ps, kp, k, expected);
	s->kind = (enum np_attr)attr;
	char form[48];
	snprintf(form, sizeof(form), "%s settings", kind);
	setting_keys(attr, keys, &nclass);
	setting_keys(-1, any_keys, NULL);
	if ((rc = members(ps, v, s->where, keys, any_keys, form, f)))
		return rc;

	/* f[] follows the keys: "kind", the class's, the value's. */
	struct np_setting_reader r = { ps, s->where };
	if ((rc = np_attrs[attr].target->parse(&r, f + 1, &s->target)))
		return rc;
	return parse_value(ps, f[1 + nclass], s->kind, s);
}

/* Exactly n hex digits at s (the terminator fails the test). */
static bool hex_digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!s[i] || !strchr("0123456789abcdefABCDEF", s[i]))
			return false;
	return true;
}

static void lower(char *s)
{
	for (; *s; s++)
		if (*s >= 'A' && *s <= 'Z')
			*s = (char)(*s - 'A' + 'a');
}

static int parse_match(struct np_profile_reader *ps, const cJSON *v, const char *path, struct np_rule *r)
{
	static const char class_expected[] = "network, storage, display, accelerator or a hex class such as \"0x0200\"";
	static const char ids_expected[] = "vendor:device in hex such as \"8086:10fb\"";
	static const char pci_expected[] = "a glob on PCI addresses such as \"0000:2?:*\"";
	const cJSON *f[5];
	char p[NP_PR_PATH_MAX], q[64];
	const char *s;
	int rc;

	if (!cJSON_IsObject(v))
		return np_pr_wrong(ps, path, v, "an object with class, driver, ids, net or pci");
	if ((rc = members(ps, v, path, match_keys, NULL, NULL, f)))
		return rc;
	if (!f[0] && !f[1] && !f[2] && !f[3] && !f[4])
		return np_pr_bad(ps, path, "empty, expected at least one of class, driver, ids, net, pci");
	if (f[0]) {
		np_pr_subpath(p, path, "class");
		if ((rc = np_pr_string(ps, f[0], p, class_expected, &s)))
			return rc;
		if (key_index(class_names, s) < 0 && !(s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && hex_digits(s + 2, 4) && !s[6]))
			return np_pr_wrong(ps, p, f[0], class_expected);
		if ((rc = np_pr_dup(ps, &r->match_class, s)))
			return rc;
		lower(r->match_class);
	}
	if (f[1]) {
		np_pr_subpath(p, path, "driver");
		if ((rc = np_pr_name(ps, f[1], p, "a driver name such as \"ixgbe\"", &r->match_driver)))
			return rc;
	}
	if (f[2]) {
		np_pr_subpath(p, path, "ids");
		if ((rc = np_pr_string(ps, f[2], p, ids_expected, &s)))
			return rc;
		if (strlen(s) != 9 || s[4] != ':' || !hex_digits(s, 4) || !hex_digits(s + 5, 4))
			return np_pr_wrong(ps, p, f[2], ids_expected);
		if ((rc = np_pr_dup(ps, &r->match_ids, s)))
			return rc;
		lower(r->match_ids);
	}
	if (f[3]) {
		np_pr_subpath(p, path, "net");
		if ((rc = np_pr_name(ps, f[3], p, "a glob on interface names such as \"eth*\"", &r->match_net)))
			return rc;
	}
	if (f[4]) {
		np_pr_subpath(p, path, "pci");
		if ((rc = np_pr_string(ps, f[4], p, pci_expected, &s)))
			return rc;
		/* Only what can appear in an address, plus fnmatch's own characters. */
		size_t len = strlen(s), ok = strspn(s, "0123456789abcdefABCDEF:.*?[]!-");
		np_pr_quote(q, sizeof(q), s);
		if (!len || len > NP_PR_NAME_MAX)
			return np_pr_bad(ps, p, "%s %s, expected %s", q, len ? "is longer than 64 characters" : "is empty", pci_expected);
		if (ok != len)
			return np_pr_bad(ps, p, "%s contains '%c', expected %s", q,
				   (unsigned char)s[ok] < 0x20 || s[ok] == 0x7f ? '?' : s[ok], pci_expected);
		if ((rc = np_pr_dup(ps, &r->match_pci, s)))
			return rc;
		lower(r->match_pci);
	}
	return 0;
}

static int parse_rule(struct np_profile_reader *ps, const cJSON *v, struct np_rule *r)
{
	static const char irqs_expected[] = "local, app, spread or a CPU list such as \"0-3\"";
	const cJSON *f[6];
	char p[NP_PR_PATH_MAX];
	const char *s;
	int rc;

	if (!cJSON_IsObject(v))
		return np_pr_wrong(ps, r->where, v, "a rule object such as {\"match\": {\"class\": \"network\"}, \"irqs\": \"local\"}");
	if ((rc = members(ps, v, r->where, rule_keys, NULL, NULL, f)))
		return rc;
	if (!f[0])
		return np_pr_missing(ps, r->where, "match", "an object with class, driver, ids, net or pci");
	np_pr_subpath(p, r->where, "match");
	if ((rc = parse_match(ps, f[0], p, r)))
		return rc;
	if (!f[1] && !f[2] && !f[3] && !f[4] && !f[5])
		return np_pr_bad(ps, r->where, "no action, expected at least one of irqs, rq_affinity, rps, xps, channels");
	if (f[1]) {
		np_pr_subpath(p, r->where, "irqs");
		if ((rc = np_pr_string(ps, f[1], p, irqs_expected, &s)))
			return rc;
		if (!strcmp(s, "local")) {
			r->irqs = NP_IRQS_LOCAL;
		} else if (!strcmp(s, "app")) {
			r->irqs = NP_IRQS_APP;
		} else if (!strcmp(s, "spread")) {
			r->irqs = NP_IRQS_SPREAD;
		} else {
			/* A word that is not a policy reads better as one than as a bad list. */
			if (*s && !strchr("0123456789 \t", *s))
				return np_pr_wrong(ps, p, f[1], irqs_expected);
			if ((rc = np_pr_cpus(ps, f[1], p, false, &r->irq_cpus)))
				return rc;
			r->irqs = NP_IRQS_CPUS;
		}
	}
	if (f[2]) {
		np_pr_subpath(p, r->where, "rq_affinity");
		if ((rc = np_pr_int(ps, f[2], p, 0, 2, "0, 1 or 2", &r->rq_affinity)))
			return rc;
	}
	if (f[3]) {
		np_pr_subpath(p, r->where, "rps");
		if ((rc = np_pr_string(ps, f[3], p, "off or app", &s)))
			return rc;
		if (!strcmp(s, "off"))
			r->rps = NP_RPS_OFF;
		else if (!strcmp(s, "app"))
			r->rps = NP_RPS_APP;
		else
			return np_pr_wrong(ps, p, f[3], "off or app");
	}
	if (f[4]) {
		np_pr_subpath(p, r->where, "xps");
		if ((rc = np_pr_string(ps, f[4], p, "follow-irq", &s)))
			return rc;
		if (strcmp(s, "follow-irq"))
			return np_pr_wrong(ps, p, f[4], "follow-irq");
		r->xps_follow_irq = true;
	}
	if (f[5]) {
		np_pr_subpath(p, r->where, "channels");
		if ((rc = np_pr_string(ps, f[5], p, "per-core or per-node", &s)))
			return rc;
		if (!strcmp(s, "per-core"))
			r->channels = NP_CHANNELS_PER_CORE;
		else if (!strcmp(s, "per-node"))
			r->channels = NP_CHANNELS_PER_NODE;
		else
			return np_pr_wrong(ps, p, f[5], "per-core or per-node");
		/* The cores (or nodes) its IRQs are given decide the count. */
		if (r->irqs == NP_IRQS_KEEP)
			return np_pr_bad(ps, p, "needs \"irqs\": the cores it gives the device's IRQs decide the count");
		/* Queue i goes onto node i mod N under spread only. */
		if (r->channels == NP_CHANNELS_PER_NODE && r->irqs != NP_IRQS_SPREAD)
			return np_pr_bad(ps, p, "per-node goes with \"irqs\": \"spread\" (one queue on each node)");
	}
	return 0;
}

static int parse_array(struct np_profile_reader *ps, const cJSON *v, const char *key, size_t elem_size,
		       void **items, size_t *count)
{
	if (!cJSON_IsArray(v))
		return np_pr_wrong(ps, key, v, "an array");
	size_t n = (size_t)cJSON_GetArraySize(v);
	if (!n)
		return 0;
	*items = calloc(n, elem_size);
	if (!*items)
		return np_pr_no_memory(ps);
	*count = n;
	return 0;
}

/* Columns count bytes, as compilers do; a tab is one. */
static void line_col(const char *text, const char *at, int *line, int *col)
{
	*line = *col = 1;
	for (const char *c = text; c < at && *c; c++) {
		if (*c == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

/* cJSON reports only where it stopped; people look for a line and column. */
static int syntax_error(struct np_profile_reader *ps, const char *text, const char *at)
{
	int line, col;
	char near[48];
	if (!at || at < text)
		at = text;
	line_col(text, at, &line, &col);
	size_t n = 0;
	for (const char *c = at; *c && *c != '\n' && n < 20; c++)
		near[n++] = (unsigned char)*c < 0x20 || *c == 0x7f ? ' ' : *c;
	near[n] = '\0';
	if (!n)
		return np_fail(ps->ctx, -EINVAL, "%s:%d:%d: invalid JSON at the end of %s", ps->file, line,
			       col, *at ? "the line" : "the file");
	return np_fail(ps->ctx, -EINVAL, "%s:%d:%d: invalid JSON near '%s'", ps->file, line, col, near);
}

/* cJSON turns "\u0000" into the end of the string, so "eth0\u0000/x" would
 * quietly read as "eth0": refused instead. The text is valid JSON here. */
static int nul_escape(struct np_profile_reader *ps, const char *text)
{
	bool in_string = false;
	for (const char *c = text; *c; c++) {
		if (!in_string) {
			in_string = *c == '"';
			continue;
		}
		if (*c == '"') {
			in_string = false;
		} else if (*c == '\\' && c[1]) {
			c++;
			if (*c == 'u' && !strncmp(c + 1, "0000", 4)) {
				int line, col;
				line_col(text, c - 1, &line, &col);
				return np_fail(ps->ctx, -EINVAL, "%s:%d:%d: \\u0000 in a string, expected text without NUL characters",
					       ps->file, line, col);
			}
		}
	}
	return 0;
}

static int parse_root(struct np_profile_reader *ps, const cJSON *root, struct np_profile *p)
{
	const cJSON *f[6];
	const char *s;
	char q[64];
	int rc;

	if (!cJSON_IsObject(root))
		return np_pr_wrong(ps, "top level", root, "a JSON object");
	/* The version first: a file for another version would otherwise fail on
	 * whichever key changed, with a message that hides the real cause. */
	const cJSON *format = first_member(root, "format");
	if (!format)
		return np_pr_bad(ps, "format", "missing, expected \"" NP_PROFILE_FORMAT "\"");
	if (!cJSON_IsString(format) || strcmp(format->valuestring, NP_PROFILE_FORMAT))
		return np_pr_wrong(ps, "format", format, "\"" NP_PROFILE_FORMAT "\"");
	if ((rc = members(ps, root, "", top_keys, NULL, NULL, f)))
		return rc;

	static const char name_expected[] = "a name of letters, digits, '.', '_' and '-'";
	if (!f[1])
		return np_pr_bad(ps, "name", "missing, expected %s", name_expected);
	if ((rc = np_pr_string(ps, f[1], "name", name_expected, &s)))
		return rc;
	size_t len = strlen(s);
	if (!len || len > NP_PR_NAME_MAX || strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") != len) {
		np_pr_quote(q, sizeof(q), s);
		return np_pr_bad(ps, "name", "got %s, expected %s, at most 64 characters", q, name_expected);
	}
	if ((rc = np_pr_dup(ps, &p->name, s)))
		return rc;

	if (f[2]) {
		if ((rc = np_pr_string(ps, f[2], "description", "a string", &s)))
			return rc;
		/* Printed in tables and terminals: line breaks only. */
		for (const unsigned char *c = (const unsigned char *)s; *c; c++)
			if ((*c < 0x20 && *c != '\n' && *c != '\t') || *c == 0x7f)
				return np_pr_bad(ps, "description", "control character 0x%02x, expected plain text", *c);
		if ((rc = np_pr_dup(ps, &p->description, s)))
			return rc;
	}
	if (f[3] && (rc = parse_app(ps, f[3], p)))
		return rc;

	if (f[4]) {
		if ((rc = parse_array(ps, f[4], "settings", sizeof(*p->settings), (void **)&p->settings, &p->nsettings)))
			return rc;
		size_t i = 0;
		for (const cJSON *e = f[4]->child; e; e = e->next, i++) {
			struct np_setting *st = &p->settings[i];
			st->target = NP_TARGET_NONE;
			if (asprintf(&st->where, "settings[%zu]", i) < 0) {
				st->where = NULL;
				return np_pr_no_memory(ps);
			}
			if ((rc = parse_setting(ps, e, st)))
				return rc;
		}
	}
	if (f[5]) {
		if ((rc = parse_array(ps, f[5], "rules", sizeof(*p->rules), (void **)&p->rules, &p->nrules)))
			return rc;
		size_t i = 0;
		for (const cJSON *e = f[5]->child; e; e = e->next, i++) {
			struct np_rule *r = &p->rules[i];
			r->rq_affinity = -1;
			if (asprintf(&r->where, "rules[%zu]", i) < 0) {
				r->where = NULL;
				return np_pr_no_memory(ps);
			}
			if ((rc = parse_rule(ps, e, r)))
				return rc;
		}
	}
	if (!p->nsettings && !p->nrules)
		return np_pr_bad(ps, "top level", "no settings and no rules, expected at least one setting or rule");

	/* Checked last: "app" may come after the rules in the file. */
	bool have_app = p->app_cpus || p->app_node >= 0;
	for (size_t i = 0; i < p->nrules && !have_app; i++) {
		char path[NP_PR_PATH_MAX];
		const struct np_rule *r = &p->rules[i];
		if (r->irqs != NP_IRQS_APP && r->rps != NP_RPS_APP)
			continue;
		np_pr_subpath(path, r->where, r->irqs == NP_IRQS_APP ? "irqs" : "rps");
		return np_pr_bad(ps, path, "\"app\" without an app section, expected a top-level \"app\": {\"node\": N} or {\"cpus\": \"LIST\"}");
	}
	return 0;
}

int np_profile_parse(struct np_ctx *ctx, const char *file, const char *text, struct np_profile *out)
{
	struct np_profile_reader ps = { ctx, file ? file : "<profile>" };
	const char *end = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	out->app_node = -1;
	if (!text)
		return np_fail(ctx, -EINVAL, "%s: no text, expected a JSON profile", ps.file);
	if (!(out->file = strdup(ps.file)))
		return np_pr_no_memory(&ps);
	cJSON *root = cJSON_ParseWithOpts(text, &end, 1);
	if (!root) {
		/* cJSON also fails on ENOMEM, with no way to tell; the position
		 * then points at valid text, which at least does not mislead. */
		rc = syntax_error(&ps, text, end ? end : cJSON_GetErrorPtr());
	} else {
		rc = nul_escape(&ps, text);
		if (!rc)
			rc = parse_root(&ps, root, out);
		cJSON_Delete(root);
	}
	if (rc)
		np_profile_free(out);
	return rc;
}

int np_profile_load(struct np_ctx *ctx, const char *path, struct np_profile *out)
{
	struct stat st;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	out->app_node = -1;
	/* O_NONBLOCK so a FIFO cannot hang the open; reads block again below
	 * (process substitution, "<(generate-profile)", is a fair input). */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return np_fail(ctx, -errno, "%s: cannot open: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0) {
		rc = np_fail(ctx, -errno, "%s: cannot stat: %s", path, strerror(errno));
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		rc = np_fail(ctx, -EISDIR, "%s: a directory, expected a profile file", path);
		goto out;
	}
	int flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
		rc = np_fail(ctx, -errno, "%s: %s", path, strerror(errno));
		goto out;
	}
	for (;;) {
		if (len == cap) {
			if (cap > MAX_FILE) {
				rc = np_fail(ctx, -EFBIG, "%s: larger than 1 MiB, expected a profile of at most 1 MiB", path);
				goto out;
			}
			cap = cap ? cap * 2 : 16384;
			if (cap > MAX_FILE + 1)
				cap = MAX_FILE + 1;
			char *bigger = realloc(buf, cap + 1);
			if (!bigger) {
				rc = np_fail(ctx, -ENOMEM, "%s: out of memory", path);
				goto out;
			}
			buf = bigger;
		}
		ssize_t n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = np_fail(ctx, -errno, "%s: cannot read: %s", path, strerror(errno));
			goto out;
		}
		if (!n)
			break;
		len += (size_t)n;
	}
	if (len > MAX_FILE) {
		rc = np_fail(ctx, -EFBIG, "%s: larger than 1 MiB, expected a profile of at most 1 MiB", path);
		goto out;
	}
	buf[len] = '\0';
	if (memchr(buf, '\0', len)) {
		rc = np_fail(ctx, -EINVAL, "%s: a NUL byte, expected JSON text", path);
		goto out;
	}
	rc = np_profile_parse(ctx, path, buf, out);
out:
	free(buf);
	close(fd);
	return rc;
}

int np_profile_find(struct np_ctx *ctx, const char *name, const char *const *dirs, char **path)
{
	size_t len = name ? strlen(name) : 0;
	*path = NULL;
	if (!len)
		return np_fail(ctx, -EINVAL, "empty profile name, expected a name or a file");
	if (strchr(name, '/') || (len >= 5 && !strcmp(name + len - 5, ".json"))) {
		*path = strdup(name);
		return *path ? 0 : np_fail(ctx, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; dirs && dirs[i]; i++) {
		struct stat st;
		char *candidate;
		if (asprintf(&candidate, "%s/%s.json", dirs[i], name) < 0)
			return np_fail(ctx, -ENOMEM, "out of memory");
		if (stat(candidate, &st) == 0 && S_ISREG(st.st_mode)) {
			*path = candidate;
			return 0;
		}
		free(candidate);
	}
	char searched[768] = "";
	size_t n = 0;
	for (size_t i = 0; dirs && dirs[i] && n < sizeof(searched); i++)
		n += (size_t)snprintf(searched + n, sizeof(searched) - n, "%s%s", i ? ", " : "", dirs[i]);
	if (!n)
		return np_fail(ctx, -ENOENT, "profile '%s' not found, expected a file (no profile directories to search)", name);
	return np_fail(ctx, -ENOENT, "profile '%s' not found, expected %s.json in one of: %s", name, name, searched);
}

void np_setting_free(struct np_setting *s)
{
	np_target_free_all(&s->target);
	free(s->value);
	free(s->where);
	memset(s, 0, sizeof(*s));
	s->target = NP_TARGET_NONE;
}

int np_setting_make(const struct np_machine *m, enum np_attr attr, const struct np_target *t, const char *value,
		    size_t index, struct np_setting *out)
{
	memset(out, 0, sizeof(*out));
	out->kind = attr;
	out->target = NP_TARGET_NONE;
	if ((unsigned)attr >= NP_ATTR_COUNT || !np_attrs[attr].target)
		return -EINVAL;
	int rc = np_attrs[attr].target->identify(m, t, &out->target);
	if (!rc && (!(out->value = strdup(value)) || asprintf(&out->where, "settings[%zu]", index) < 0)) {
		out->where = NULL;
		rc = -ENOMEM;
	}
	if (rc)
		np_setting_free(out);
	return rc;
}

void np_profile_free(struct np_profile *p)
{
	for (size_t i = 0; i < p->nsettings; i++)
		np_setting_free(&p->settings[i]);
	for (size_t i = 0; i < p->nrules; i++) {
		struct np_rule *r = &p->rules[i];
		free(r->match_class);
		free(r->match_driver);
		free(r->match_ids);
		free(r->match_net);
		free(r->match_pci);
		free(r->irq_cpus);
		free(r->where);
	}
	free(p->settings);
	free(p->rules);
	free(p->file);
	free(p->name);
	free(p->description);
	free(p->app_cpus);
	memset(p, 0, sizeof(*p));
	p->app_node = -1;
}
