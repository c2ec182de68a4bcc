/* SPDX-License-Identifier: GPL-2.0-or-later */
/* How a profile's values are read, for the parser (profile.c) and the target
 * classes (target.c) alike: each a typed getter whose message names the file
 * and the field ("p.json: settings[2].queue: got ..."). */
#include "change/profile-reader.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cpuset.h"
#include "read/pci.h"

int np_pr_bad(struct np_profile_reader *ps, const char *path, const char *fmt, ...)
{
	char what[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return np_fail(ps->ctx, -EINVAL, "%s: %s: %s", ps->file, path, what);
}

int np_pr_no_memory(struct np_profile_reader *ps)
{
	return np_fail(ps->ctx, -ENOMEM, "%s: out of memory", ps->file);
}

/* User text quoted into a one-line message: control characters would break
 * the line or drive the terminal, and a long value would bury the point. */
void np_pr_quote(char *buf, size_t size, const char *s)
{
	size_t n = 0, i = 0;
	buf[n++] = '"';
	for (; s[i] && i < 40 && n + 6 < size; i++) {
		unsigned char c = (unsigned char)s[i];
		buf[n++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
	}
	if (s[i] && n + 5 < size) {
		memcpy(buf + n, "...", 3);
		n += 3;
	}
	buf[n++] = '"';
	buf[n] = '\0';
}

/* What was found instead, for "got X, expected Y". */
static void describe(char *buf, size_t size, const cJSON *v)
{
	if (cJSON_IsString(v))
		np_pr_quote(buf, size, v->valuestring);
	else if (cJSON_IsNumber(v))
		snprintf(buf, size, "%.15g", v->valuedouble);
	else if (cJSON_IsTrue(v))
		snprintf(buf, size, "true");
	else if (cJSON_IsFalse(v))
		snprintf(buf, size, "false");
	else if (cJSON_IsNull(v))
		snprintf(buf, size, "null");
	else if (cJSON_IsArray(v))
		snprintf(buf, size, "an array");
	else
		snprintf(buf, size, "an object");
}

int np_pr_wrong(struct np_profile_reader *ps, const char *path, const cJSON *v, const char *expected)
{
	char got[64];
	describe(got, sizeof(got), v);
	return np_pr_bad(ps, path, "got %s, expected %s", got, expected);
}

void np_pr_subpath(char *buf, const char *parent, const char *key)
{
	char safe[48];
	size_t i = 0;
	/* The key may be anything the file says ("a\nb"); it lands in a message. */
	for (; key[i] && i < sizeof(safe) - 4; i++)
		safe[i] = (unsigned char)key[i] < 0x20 || key[i] == 0x7f ? '?' : key[i];
	if (key[i]) {
		memcpy(safe + i, "...", 3);
		i += 3;
	}
	safe[i] = '\0';
	if (*parent)
		snprintf(buf, NP_PR_PATH_MAX, "%s.%s", parent, safe);
	else
		snprintf(buf, NP_PR_PATH_MAX, "%s", safe);
}

int np_pr_dup(struct np_profile_reader *ps, char **out, const char *s)
{
	free(*out);
	*out = strdup(s);
	return *out ? 0 : np_pr_no_memory(ps);
}

int np_pr_string(struct np_profile_reader *ps, const cJSON *v, const char *path, const char *expected,
		      const char **out)
{
	*out = NULL;
	if (!cJSON_IsString(v))
		return np_pr_wrong(ps, path, v, expected);
	*out = v->valuestring;
	return 0;
}

int np_pr_int(struct np_profile_reader *ps, const cJSON *v, const char *path, int min, int max,
		   const char *expected, int *out)
{
	/* cJSON numbers are doubles: 1.5, 1e999 and NaN must not pass as ints. */
	if (!cJSON_IsNumber(v) || !(v->valuedouble >= min && v->valuedouble <= max) ||
	    (double)(int)v->valuedouble != v->valuedouble)
		return np_pr_wrong(ps, path, v, expected);
	*out = (int)v->valuedouble;
	return 0;
}

/* Names the kernel gives devices, queues and IRQ actions. They end up in
 * paths numaplace builds under /sys and /proc, so nothing that could leave
 * the intended directory gets through, whatever the resolver does later.
 * IRQ action names are only compared, never made into paths, and real ones
 * hold spaces ("PCIe PME", and "PCIe PME, pciehp" for a shared line, which
 * advise -o writes): spaces inside those are allowed. */
static const char *name_problem(const char *s, bool inner_spaces)
{
	if (!*s)
		return "is empty";
	if (strlen(s) > NP_PR_NAME_MAX)
		return "is longer than 64 characters";
	if (strchr(s, '/'))
		return "contains '/'";
	if (strstr(s, ".."))
		return "contains '..'";
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (*c < 0x20 || *c == 0x7f)
			return "contains a control character";
		if (*c == ' ' && (!inner_spaces || c == (const unsigned char *)s || !c[1]))
			return inner_spaces ? "starts or ends with a space" : "contains whitespace";
	}
	return NULL;
}

int np_pr_check_name(struct np_profile_reader *ps, const cJSON *v, const char *path, const char *expected,
		      bool inner_spaces, char **out)
{
	const char *s, *problem;
	char q[64];
	int rc = np_pr_string(ps, v, path, expected, &s);
	if (rc)
		return rc;
	if ((problem = name_problem(s, inner_spaces))) {
		np_pr_quote(q, sizeof(q), s);
		return np_pr_bad(ps, path, "%s %s, expected %s", q, problem, expected);
	}
	return np_pr_dup(ps, out, s);
}

int np_pr_name(struct np_profile_reader *ps, const cJSON *v, const char *path, const char *expected,
		    char **out)
{
	return np_pr_check_name(ps, v, path, expected, false, out);
}

/* Interface and block device names cannot hold ':', so one that does is
 * meant as a PCI address, and is stored in the full form the resolver and
 * sysfs use ("23:00.0" becomes "0000:23:00.0"). */
int np_pr_device(struct np_profile_reader *ps, const cJSON *v, const char *path, char **out)
{
	static const char expected[] = "a PCI address such as 0000:23:00.0, an interface or a block device";
	char addr[NP_PCI_ADDR_LEN], q[64];
	int rc = np_pr_name(ps, v, path, expected, out);
	if (rc || !strchr(*out, ':'))
		return rc;
	if (!np_pci_parse_addr(*out, addr)) {
		np_pr_quote(q, sizeof(q), *out);
		return np_pr_bad(ps, path, "%s is not a PCI address, expected a PCI address such as 0000:23:00.0",
			   q);
	}
	return np_pr_dup(ps, out, addr);
}

/* Only the syntax is checked here: whether the CPUs exist depends on the
 * machine the profile is applied to. Stored canonical, so that equal sets
 * give equal text. */
int np_pr_cpus(struct np_profile_reader *ps, const cJSON *v, const char *path, bool allow_empty,
		    char **out)
{
	static const char expected[] = "a CPU list such as \"0-3,8\"";
	struct np_cpuset set = NP_CPUSET_INIT;
	const char *s;
	char q[64];
	int rc = np_pr_string(ps, v, path, expected, &s);
	if (rc)
		return rc;
	np_pr_quote(q, sizeof(q), s);
	rc = np_cpuset_parse_list(&set, s);
	/* A failed parse may have grown the set before it met the bad part. */
	if (rc)
		np_cpuset_free(&set);
	if (rc == -ENOMEM)
		return np_pr_no_memory(ps);
	if (rc == -ERANGE)
		return np_pr_bad(ps, path, "%s names a CPU above %d, expected %s", q, NP_CPUSET_MAX_CPU,
			   expected);
	if (rc)
		return np_pr_bad(ps, path, "%s is not a CPU list, expected %s", q, expected);
	if (!allow_empty && np_cpuset_empty(&set)) {
		np_cpuset_free(&set);
		return np_pr_bad(ps, path, "no CPUs, expected %s (an IRQ has to run somewhere)", expected);
	}
	char *text = np_cpuset_format_list(&set);
	np_cpuset_free(&set);
	if (!text)
		return np_pr_no_memory(ps);
	free(*out);
	*out = text;
	return 0;
}

int np_pr_missing(struct np_profile_reader *ps, const char *path, const char *key, const char *expected)
{
	return np_pr_bad(ps, path, "missing \"%s\", expected %s", key, expected);
}

int np_reader_fail(struct np_setting_reader *r, const char *key, const char *fmt, ...)
{
	char path[NP_PR_PATH_MAX], what[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (key)
		np_pr_subpath(path, r->where, key);
	return np_pr_bad(r->ps, key ? path : r->where, "%s", what);
}

int np_reader_missing(struct np_setting_reader *r, const char *key, const char *expected)
{
	return np_pr_missing(r->ps, r->where, key, expected);
}

int np_reader_int(struct np_setting_reader *r, const cJSON *v, const char *key, int min, int max,
		  const char *expected, int *out)
{
	char path[NP_PR_PATH_MAX];
	np_pr_subpath(path, r->where, key);
	return np_pr_int(r->ps, v, path, min, max, expected, out);
}

int np_reader_name(struct np_setting_reader *r, const cJSON *v, const char *key, const char *expected,
		   bool inner_spaces, char **out)
{
	char path[NP_PR_PATH_MAX];
	np_pr_subpath(path, r->where, key);
	return np_pr_check_name(r->ps, v, path, expected, inner_spaces, out);
}

int np_reader_device(struct np_setting_reader *r, const cJSON *v, const char *key, char **out)
{
	char path[NP_PR_PATH_MAX];
	np_pr_subpath(path, r->where, key);
	return np_pr_device(r->ps, v, path, out);
}
