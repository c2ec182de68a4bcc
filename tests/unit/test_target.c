/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The target classes (lib/change/target.c), one shape at a time on the r715
 * fixture: a setting parsed, written back as text and parsed again is the
 * same; resolved on the machine it gives the kind's file and value; the
 * target found there, named again by its class for a profile, resolves to
 * the same change. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/machine.h"
#include "change/profile.h"
#include "change/resolve.h"
#include "change/target.h"

static struct np_ctx ctx;
static struct np_machine m;

static int setup(void **state)
{
	(void)state;
	char root[PATH_MAX];
	if (!realpath("tests/fixtures/r715", root) || np_ctx_init(&ctx, root))
		return -1;
	return np_machine_load(&ctx, &m);
}

static int teardown(void **state)
{
	(void)state;
	np_machine_free(&m);
	np_ctx_fini(&ctx);
	return 0;
}

static void parse(const char *setting, struct np_profile *p)
{
	char *text;
	assert_true(asprintf(&text, "{\"format\": \"numaplace-profile/1\", \"name\": \"t\", \"settings\": [%s]}",
			     setting) > 0);
	if (np_profile_parse(&ctx, "t.json", text, p))
		fail_msg("'%s' does not parse: %s", setting, ctx.err);
	free(text);
}

/* The setting as canonical text, without the profile around it. */
static char *setting_text(const struct np_profile *p)
{
	char *text = np_profile_to_text(p);
	assert_non_null(text);
	const char *start = strstr(text, "[{"), *end = strrchr(text, ']');
	assert_non_null(start);
	char *s = strndup(start, (size_t)(end - start + 1));
	free(text);
	return s;
}

/* One shape: setting (JSON) of class cls resolves to path = value, and
 * describe says want_describe. */
static void round_trip(const char *setting, const struct np_target_class *cls, const char *want_path,
		       const char *want_value, const char *want_describe)
{
	struct np_profile p, again, named;
	struct np_resolved res, res2;

	/* parse, format, parse */
	parse(setting, &p);
	assert_ptr_equal(np_attrs[p.settings[0].kind].target, cls);
	char *text = setting_text(&p), *wrapped;
	assert_true(asprintf(&wrapped, "%.*s", (int)strlen(text) - 2, text + 1) > 0);
	parse(wrapped, &again);
	char *text2 = setting_text(&again);
	assert_string_equal(text2, text);

	/* describe */
	char *d = cls->describe(&p.settings[0].target);
	assert_string_equal(d, want_describe);
	free(d);

	/* resolve */
	if (np_profile_resolve(&ctx, &m, &p, &res))
		fail_msg("'%s' does not resolve: %s", setting, ctx.err);
	assert_int_equal(res.n, 1);
	assert_string_equal(res.changes[0].path, want_path);
	assert_string_equal(res.changes[0].new_value, want_value);
	assert_int_equal(res.changes[0].attr, p.settings[0].kind);

	/* the target found, named for a profile, resolves to the same change */
	struct np_target found = res.changes[0].target;
	if (p.settings[0].kind == NP_ATTR_IRQ_AFFINITY) {
		/* A change's target keeps what its path says; the subject's names
		 * are the machine's. */
		const struct np_irq *irq = np_irqs_find(&m.irqs, found.irq);
		assert_non_null(irq);
		found.device = m.pci.devs[irq->dev].addr;
		found.vector = irq->name;
		found.queue = irq->queue;
	}
	named = (struct np_profile){ .file = "named.json", .name = "named", .app_node = -1, .nsettings = 1 };
	named.settings = calloc(1, sizeof(*named.settings));
	assert_non_null(named.settings);
	assert_int_equal(np_setting_make(&m, p.settings[0].kind, &found, p.settings[0].value, 0, &named.settings[0]), 0);
	if (np_profile_resolve(&ctx, &m, &named, &res2))
		fail_msg("the named setting of '%s' does not resolve: %s", setting, ctx.err);
	assert_int_equal(res2.n, 1);
	assert_string_equal(res2.changes[0].path, want_path);
	assert_string_equal(res2.changes[0].new_value, want_value);

	named.file = NULL;
	named.name = NULL;
	np_profile_free(&named);
	np_resolved_free(&res);
	np_resolved_free(&res2);
	np_profile_free(&p);
	np_profile_free(&again);
	free(text);
	free(text2);
	free(wrapped);
}

static void test_irq(void **state)
{
	(void)state;
	round_trip("{\"kind\": \"irq_affinity\", \"device\": \"eth4\", \"queue\": 0, \"cpus\": \"2\"}", &np_target_irq,
		   "/proc/irq/40/smp_affinity_list", "2", "eth4 queue 0");
	round_trip("{\"kind\": \"irq_affinity\", \"device\": \"23:00.0\", \"vector\": \"eth4-TxRx-1\", \"cpus\": \"0-3\"}",
		   &np_target_irq, "/proc/irq/41/smp_affinity_list", "0-3", "0000:23:00.0 vector eth4-TxRx-1");
	round_trip("{\"kind\": \"irq_affinity\", \"irq\": 40, \"cpus\": \"5\"}", &np_target_irq,
		   "/proc/irq/40/smp_affinity_list", "5", "irq 40");
}

static void test_net_queue(void **state)
{
	(void)state;
	round_trip("{\"kind\": \"rps_cpus\", \"net\": \"eth4\", \"queue\": 0, \"cpus\": \"2,3\"}", &np_target_net_queue,
		   "/sys/class/net/eth4/queues/rx-0/rps_cpus", "000c", "eth4 queue 0");
	round_trip("{\"kind\": \"rps_cpus\", \"net\": \"eth4\", \"queue\": 0, \"cpus\": \"\"}", &np_target_net_queue,
		   "/sys/class/net/eth4/queues/rx-0/rps_cpus", "0000", "eth4 queue 0");
}

static void test_block(void **state)
{
	(void)state;
	round_trip("{\"kind\": \"rq_affinity\", \"block\": \"sda\", \"value\": 2}", &np_target_block,
		   "/sys/block/sda/queue/rq_affinity", "2", "sda");
}

static void test_machine(void **state)
{
	(void)state;
	round_trip("{\"kind\": \"default_irq_affinity\", \"cpus\": \"0-7\"}", &np_target_machine,
		   "/proc/irq/default_smp_affinity", "00ff", "the machine");
}

/* A class's keys are what a setting of its kinds may hold: another class's
 * key is refused with the kinds' own list. */
static void test_keys_come_from_the_class(void **state)
{
	(void)state;
	struct np_profile p;
	assert_int_equal(np_profile_parse(&ctx, "t.json",
					  "{\"format\": \"numaplace-profile/1\", \"name\": \"t\", \"settings\": "
					  "[{\"kind\": \"rq_affinity\", \"block\": \"sda\", \"queue\": 1, \"value\": 2}]}", &p),
			 -EINVAL);
	assert_string_equal(ctx.err, "t.json: settings[0].queue: not a key of rq_affinity settings, expected one of "
				     "kind, block, value");
	/* Every settable row has a class with every method. */
	for (int a = 0; a < NP_ATTR_COUNT; a++) {
		const struct np_target_class *c = np_attrs[a].target;
		if (!c)
			continue;
		assert_non_null(c->name);
		assert_non_null(c->keys);
		assert_true(c->parse && c->to_json && c->resolve && c->describe && c->identify);
	}
}

/* A target the machine lacks is an error naming the field. */
static void test_resolve_errors(void **state)
{
	(void)state;
	static const struct {
		const char *setting, *err;
	} cases[] = {
		{ "{\"kind\": \"irq_affinity\", \"device\": \"eth4\", \"queue\": 99, \"cpus\": \"2\"}",
		  "t.json: settings[0].queue: 0000:23:00.0 has no IRQ for queue 99" },
		{ "{\"kind\": \"rps_cpus\", \"net\": \"eth4\", \"queue\": 99, \"cpus\": \"2\"}",
		  "t.json: settings[0].queue: eth4 has no receive queue 99 with rps_cpus" },
		{ "{\"kind\": \"xps_cpus\", \"net\": \"eth9\", \"queue\": 0, \"cpus\": \"2\"}",
		  "t.json: settings[0].net: no interface 'eth9' on this machine" },
		{ "{\"kind\": \"rq_affinity\", \"block\": \"sdz\", \"value\": 1}",
		  "t.json: settings[0].block: no block device 'sdz' with rq_affinity on this machine" },
		{ "{\"kind\": \"default_irq_affinity\", \"cpus\": \"99\"}",
		  "t.json: settings[0].cpus: CPUs 99 are not online on this machine (online: 0-15)" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct np_profile p;
		struct np_resolved res;
		parse(cases[i].setting, &p);
		assert_int_equal(np_profile_resolve(&ctx, &m, &p, &res), -EINVAL);
		assert_string_equal(ctx.err, cases[i].err);
		np_profile_free(&p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_irq),
		cmocka_unit_test(test_net_queue),
		cmocka_unit_test(test_block),
		cmocka_unit_test(test_machine),
		cmocka_unit_test(test_keys_come_from_the_class),
		cmocka_unit_test(test_resolve_errors),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
