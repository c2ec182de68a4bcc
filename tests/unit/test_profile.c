/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Profile parsing, validation messages, the canonical text, loading and the
 * search path, and the profiles shipped in profiles/. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "change/profile.h"
#include "tmproot.h"

#define HEAD "{\"format\": \"numaplace-profile/1\", \"name\": \"t\", "

static const char settings_text[] =
	"{\n"
	"\t\"format\": \"numaplace-profile/1\",\n"
	"\t\"name\": \"db-host.v2_x\",\n"
	"\t\"description\": \"Pinned by hand.\",\n"
	"\t\"settings\": [\n"
	"\t\t{\"kind\": \"irq_affinity\", \"device\": \"23:00.0\", \"queue\": 3, \"cpus\": \"3,1\"},\n"
	"\t\t{\"cpus\": \"0, 1, 2, 3\", \"vector\": \"eth0-TxRx-0\", \"device\": \"eth0\", \"kind\": \"irq_affinity\"},\n"
	"\t\t{\"kind\": \"irq_affinity\", \"irq\": 42, \"cpus\": \"8-15\"},\n"
	"\t\t{\"kind\": \"irq_affinity\", \"device\": \"0000:AF:00.1\", \"vector\": \"mlx5_comp3@pci:0000:af:00.1\", \"cpus\": \"4\"},\n"
	"\t\t{\"kind\": \"rq_affinity\", \"block\": \"nvme0n1\", \"value\": 2},\n"
	"\t\t{\"kind\": \"rps_cpus\", \"net\": \"eth0\", \"queue\": 0, \"cpus\": \"\"},\n"
	"\t\t{\"kind\": \"xps_cpus\", \"net\": \"eth0\", \"queue\": 1, \"cpus\": \"2\"},\n"
	"\t\t{\"kind\": \"irq_affinity\", \"device\": \"0000:00:1c.0\", \"vector\": \"PCIe PME, pciehp\", \"cpus\": \"0\"}\n"
	"\t]\n"
	"}\n";

static const char rules_text[] =
	"{\"format\": \"numaplace-profile/1\", \"name\": \"portable\",\n"
	" \"rules\": [\n"
	"  {\"match\": {\"class\": \"network\", \"driver\": \"ixgbe\", \"ids\": \"8086:10FB\", \"net\": \"eth*\",\n"
	"             \"pci\": \"0000:2?:*\"}, \"irqs\": \"local\", \"rps\": \"off\", \"xps\": \"follow-irq\"},\n"
	"  {\"match\": {\"class\": \"0X0108\"}, \"irqs\": \"app\", \"rq_affinity\": 2},\n"
	"  {\"match\": {\"driver\": \"mlx5_core\"}, \"irqs\": \"spread\", \"rps\": \"app\"},\n"
	"  {\"match\": {\"pci\": \"0000:AF:*\"}, \"irqs\": \"8,0-3\"},\n"
	"  {\"match\": {\"class\": \"storage\"}, \"rq_affinity\": 0}\n"
	" ],\n"
	" \"app\": {\"cpus\": \"15,8-14\"}\n"
	"}";

static struct np_ctx ctx;

static void parse_ok(const char *text, struct np_profile *p)
{
	int rc = np_profile_parse(&ctx, "p.json", text, p);
	if (rc)
		print_error("unexpected failure: %s\n", ctx.err);
	assert_int_equal(rc, 0);
}

/* Every failure is -EINVAL with exactly this message, and leaves nothing to free. */
static void parse_fails(const char *text, const char *message)
{
	struct np_profile p;
	ctx.err[0] = '\0';
	assert_int_equal(np_profile_parse(&ctx, "p.json", text, &p), -EINVAL);
	assert_string_equal(ctx.err, message);
	assert_null(p.name);
	assert_null(p.settings);
	assert_null(p.rules);
	assert_null(p.file);
	np_profile_free(&p);
}

static void assert_str_or_null(const char *a, const char *b)
{
	if (!a || !b)
		assert_ptr_equal(a, b);
	else
		assert_string_equal(a, b);
}

static void assert_same_profile(const struct np_profile *a, const struct np_profile *b)
{
	assert_str_or_null(a->name, b->name);
	assert_str_or_null(a->description, b->description);
	assert_str_or_null(a->app_cpus, b->app_cpus);
	assert_int_equal(a->app_node, b->app_node);
	assert_int_equal(a->nsettings, b->nsettings);
	for (size_t i = 0; i < a->nsettings; i++) {
		const struct np_setting *x = &a->settings[i], *y = &b->settings[i];
		assert_int_equal(x->kind, y->kind);
		assert_str_or_null(x->target.device, y->target.device);
		assert_int_equal(x->target.queue, y->target.queue);
		assert_str_or_null(x->target.vector, y->target.vector);
		assert_int_equal(x->target.irq, y->target.irq);
		assert_str_or_null(x->target.net, y->target.net);
		assert_str_or_null(x->target.block, y->target.block);
		assert_str_or_null(x->value, y->value);
		assert_str_or_null(x->where, y->where);
	}
	assert_int_equal(a->nrules, b->nrules);
	for (size_t i = 0; i < a->nrules; i++) {
		const struct np_rule *x = &a->rules[i], *y = &b->rules[i];
		assert_str_or_null(x->match_class, y->match_class);
		assert_str_or_null(x->match_driver, y->match_driver);
		assert_str_or_null(x->match_ids, y->match_ids);
		assert_str_or_null(x->match_net, y->match_net);
		assert_str_or_null(x->match_pci, y->match_pci);
		assert_int_equal(x->irqs, y->irqs);
		assert_str_or_null(x->irq_cpus, y->irq_cpus);
		assert_int_equal(x->rq_affinity, y->rq_affinity);
		assert_int_equal(x->rps, y->rps);
		assert_int_equal(x->xps_follow_irq, y->xps_follow_irq);
		assert_str_or_null(x->where, y->where);
	}
}

/* to_text, parsed again, gives the same profile, and its text is a fixed point. */
static void round_trip(const struct np_profile *p)
{
	char *text = np_profile_to_text(p);
	assert_non_null(text);
	assert_int_equal(text[strlen(text) - 1], '\n');
	struct np_profile again;
	parse_ok(text, &again);
	assert_same_profile(p, &again);
	char *text2 = np_profile_to_text(&again);
	assert_non_null(text2);
	assert_string_equal(text, text2);
	free(text2);
	free(text);
	np_profile_free(&again);
}

static void test_settings(void **state)
{
	(void)state;
	struct np_profile p;
	parse_ok(settings_text, &p);
	assert_string_equal(p.file, "p.json");
	assert_string_equal(p.name, "db-host.v2_x");
	assert_string_equal(p.description, "Pinned by hand.");
	assert_null(p.app_cpus);
	assert_int_equal(p.app_node, -1);
	assert_int_equal(p.nrules, 0);
	assert_int_equal(p.nsettings, 8);

	const struct np_setting *s = p.settings;
	assert_int_equal(s[0].kind, NP_ATTR_IRQ_AFFINITY);
	assert_string_equal(s[0].target.device, "0000:23:00.0"); /* short address made full */
	assert_int_equal(s[0].target.queue, 3);
	assert_null(s[0].target.vector);
	assert_int_equal(s[0].target.irq, -1);
	assert_string_equal(s[0].value, "1,3");
	assert_string_equal(s[0].where, "settings[0]");

	assert_string_equal(s[1].target.device, "eth0");
	assert_string_equal(s[1].target.vector, "eth0-TxRx-0");
	assert_int_equal(s[1].target.queue, -1);
	assert_string_equal(s[1].value, "0-3"); /* canonical list */

	assert_null(s[2].target.device);
	assert_int_equal(s[2].target.irq, 42);
	assert_int_equal(s[2].target.queue, -1);
	assert_string_equal(s[2].value, "8-15");

	assert_string_equal(s[3].target.device, "0000:af:00.1");
	assert_string_equal(s[7].target.vector, "PCIe PME, pciehp");
	assert_string_equal(s[3].target.vector, "mlx5_comp3@pci:0000:af:00.1");

	assert_int_equal(s[4].kind, NP_ATTR_RQ_AFFINITY);
	assert_string_equal(s[4].target.block, "nvme0n1");
	assert_string_equal(s[4].value, "2");

	assert_int_equal(s[5].kind, NP_ATTR_RPS_CPUS);
	assert_string_equal(s[5].target.net, "eth0");
	assert_int_equal(s[5].target.queue, 0);
	assert_string_equal(s[5].value, ""); /* RPS off */

	assert_int_equal(s[6].kind, NP_ATTR_XPS_CPUS);
	assert_int_equal(s[6].target.queue, 1);
	assert_string_equal(s[6].value, "2");
	assert_string_equal(s[6].where, "settings[6]");

	assert_string_equal(np_attr_name(NP_ATTR_IRQ_AFFINITY), "irq_affinity");
	assert_string_equal(np_attr_name(NP_ATTR_XPS_CPUS), "xps_cpus");
	round_trip(&p);
	np_profile_free(&p);
}

static void test_rules(void **state)
{
	(void)state;
	struct np_profile p;
	parse_ok(rules_text, &p);
	assert_string_equal(p.name, "portable");
	assert_null(p.description);
	assert_string_equal(p.app_cpus, "8-15");
	assert_int_equal(p.app_node, -1);
	assert_int_equal(p.nsettings, 0);
	assert_int_equal(p.nrules, 5);

	const struct np_rule *r = p.rules;
	assert_string_equal(r[0].match_class, "network");
	assert_string_equal(r[0].match_driver, "ixgbe");
	assert_string_equal(r[0].match_ids, "8086:10fb");
	assert_string_equal(r[0].match_net, "eth*");
	assert_string_equal(r[0].match_pci, "0000:2?:*");
	assert_int_equal(r[0].irqs, NP_IRQS_LOCAL);
	assert_null(r[0].irq_cpus);
	assert_int_equal(r[0].rq_affinity, -1);
	assert_int_equal(r[0].rps, NP_RPS_OFF);
	assert_true(r[0].xps_follow_irq);
	assert_string_equal(r[0].where, "rules[0]");

	assert_string_equal(r[1].match_class, "0x0108");
	assert_null(r[1].match_driver);
	assert_int_equal(r[1].irqs, NP_IRQS_APP);
	assert_int_equal(r[1].rq_affinity, 2);
	assert_int_equal(r[1].rps, NP_RPS_KEEP);
	assert_false(r[1].xps_follow_irq);

	assert_int_equal(r[2].irqs, NP_IRQS_SPREAD);
	assert_int_equal(r[2].rps, NP_RPS_APP);

	assert_string_equal(r[3].match_pci, "0000:af:*");
	assert_int_equal(r[3].irqs, NP_IRQS_CPUS);
	assert_string_equal(r[3].irq_cpus, "0-3,8");

	assert_int_equal(r[4].irqs, NP_IRQS_KEEP);
	assert_int_equal(r[4].rq_affinity, 0);
	assert_string_equal(r[4].where, "rules[4]");
	round_trip(&p);
	np_profile_free(&p);

	parse_ok(HEAD "\"app\": {\"node\": 1}, \"rules\": [{\"match\": {\"net\": \"ens*\"}, \"rps\": \"app\"}]}", &p);
	assert_int_equal(p.app_node, 1);
	assert_null(p.app_cpus);
	round_trip(&p);
	np_profile_free(&p);
}

/* Keys come out in one fixed order whatever order the file used. */
static void test_canonical_text(void **state)
{
	(void)state;
	struct np_profile p;
	parse_ok("{\"rules\": [{\"xps\": \"follow-irq\", \"irqs\": \"local\", \"match\": {\"pci\": \"*\", \"class\": \"network\"}}],"
		 " \"app\": {\"node\": 2}, \"description\": \"d\", \"name\": \"n\", \"format\": \"numaplace-profile/1\","
		 " \"settings\": [{\"cpus\": \"1\", \"queue\": 0, \"net\": \"eth0\", \"kind\": \"xps_cpus\"}]}", &p);
	char *text = np_profile_to_text(&p);
	assert_non_null(text);
	static const char *const order[] = { "\"format\"", "\"name\"", "\"description\"", "\"app\"", "\"node\"",
					     "\"settings\"", "\"kind\"", "\"net\"", "\"queue\"", "\"cpus\"",
					     "\"rules\"", "\"match\"", "\"class\"", "\"pci\"", "\"irqs\"", "\"xps\"", NULL };
	const char *at = text;
	for (int i = 0; order[i]; i++) {
		const char *next = strstr(at, order[i]);
		if (!next)
			print_error("%s missing or out of order in:\n%s", order[i], text);
		assert_non_null(next);
		at = next;
	}
	free(text);
	np_profile_free(&p);

	/* A profile built in memory, as advise -o does, without a description. */
	struct np_setting s = { .kind = NP_ATTR_RQ_AFFINITY, .target = { .irq = -1, .queue = -1, .block = "sdb" },
				.value = "1" };
	struct np_profile built = { .name = "advised", .app_node = -1, .settings = &s, .nsettings = 1 };
	text = np_profile_to_text(&built);
	assert_non_null(text);
	assert_string_equal(text, "{\n\t\"format\":\t\"numaplace-profile/1\",\n\t\"name\":\t\"advised\",\n"
				  "\t\"settings\":\t[{\n\t\t\t\"kind\":\t\"rq_affinity\",\n\t\t\t\"block\":\t\"sdb\",\n"
				  "\t\t\t\"value\":\t1\n\t\t}]\n}\n");
	parse_ok(text, &p);
	assert_string_equal(p.settings[0].target.block, "sdb");
	assert_string_equal(p.settings[0].value, "1");
	np_profile_free(&p);
	free(text);
}

/* A channels setting is ethtool -L's words, kept as named (its zeros too);
 * a rule's "channels" carries the count judged right. */
static void test_channels(void **state)
{
	(void)state;
	struct np_profile p;
	parse_ok("{\"format\": \"numaplace-profile/1\", \"name\": \"ch\", \"settings\": ["
		 "{\"kind\": \"channels\", \"net\": \"eth4\", \"value\": \"combined 4  rx 0\"}],"
		 " \"rules\": [{\"match\": {\"driver\": \"ixgbe\"}, \"irqs\": \"local\", \"channels\": \"per-core\"}]}", &p);
	assert_int_equal(p.settings[0].kind, NP_ATTR_CHANNELS);
	assert_string_equal(p.settings[0].target.net, "eth4");
	assert_string_equal(p.settings[0].value, "rx 0 combined 4");
	assert_int_equal(p.rules[0].channels, NP_CHANNELS_PER_CORE);
	char *text = np_profile_to_text(&p);
	assert_non_null(text);
	assert_non_null(strstr(text, "\"value\":\t\"rx 0 combined 4\""));
	assert_non_null(strstr(text, "\"channels\":\t\"per-core\""));
	np_profile_free(&p);
	parse_ok(text, &p);
	assert_string_equal(p.settings[0].value, "rx 0 combined 4");
	np_profile_free(&p);
	free(text);
#define CH(value) HEAD "\"settings\": [{\"kind\": \"channels\", \"net\": \"eth4\", \"value\": " value "}]}"
	static const char expected[] = "expected channel counts as ethtool -L takes them, such as \"combined 4\" or \"rx 2 tx 2\"";
	char want[256];
	snprintf(want, sizeof(want), "p.json: settings[0].value: got 4, %s", expected);
	parse_fails(CH("4"), want);
	snprintf(want, sizeof(want), "p.json: settings[0].value: got \"queues 4\", %s", expected);
	parse_fails(CH("\"queues 4\""), want);
	snprintf(want, sizeof(want), "p.json: settings[0].value: got \"rx 0\", %s", expected);
	parse_fails(CH("\"rx 0\""), want);
	parse_fails(HEAD "\"settings\": [{\"kind\": \"channels\", \"net\": \"eth4\", \"queue\": 0, \"value\": \"rx 1\"}]}",
		    "p.json: settings[0].queue: not a key of channels settings, expected one of kind, net, value");
#undef CH
#define RULE(body) HEAD "\"rules\": [" body "]}"
	parse_fails(RULE("{\"match\": {\"class\": \"network\"}, \"channels\": \"per-core\"}"),
		    "p.json: rules[0].channels: needs \"irqs\": the cores it gives the device's IRQs decide the count");
	parse_fails(RULE("{\"match\": {\"class\": \"network\"}, \"irqs\": \"local\", \"channels\": \"per-node\"}"),
		    "p.json: rules[0].channels: per-node goes with \"irqs\": \"spread\" (one queue on each node)");
	parse_fails(RULE("{\"match\": {\"class\": \"network\"}, \"irqs\": \"local\", \"channels\": 4}"),
		    "p.json: rules[0].channels: got 4, expected per-core or per-node");
#undef RULE
}

static void test_syntax_errors(void **state)
{
	(void)state;
	parse_fails("{\n\t\"format\": \"numaplace-profile/1\",\n\t\"name\" \"x\"\n}\n",
		    "p.json:3:9: invalid JSON near '\"x\"'");
	parse_fails("{\"format\": \"numaplace-profile/1\"} trailing",
		    "p.json:1:35: invalid JSON near 'trailing'");
	parse_fails("{\n  \"rules\": [1, 2,, 3]\n}", "p.json:2:18: invalid JSON near ', 3]'");
	parse_fails("", "p.json:1:1: invalid JSON at the end of the file");
	parse_fails("{\"name\": \"x\",\n", "p.json:2:1: invalid JSON at the end of the file");
	parse_fails("[]", "p.json: top level: got an array, expected a JSON object");
	/* cJSON would cut the string at the NUL and keep "eth0". */
	parse_fails(HEAD "\n \"settings\": [{\"kind\": \"rps_cpus\", \"net\": \"eth0\\u0000/../x\", \"queue\": 0, \"cpus\": \"\"}]}",
		    "p.json:2:48: \\u0000 in a string, expected text without NUL characters");
	struct np_profile p;
	parse_ok(HEAD "\"description\": \"a \\\\u0000 is fine when escaped\", \"rules\": [{\"match\": {\"class\": \"storage\"}, \"irqs\": \"local\"}]}", &p);
	assert_string_equal(p.description, "a \\u0000 is fine when escaped");
	np_profile_free(&p);
}

static void test_format(void **state)
{
	(void)state;
	parse_fails("{\"name\": \"t\", \"rules\": []}", "p.json: format: missing, expected \"numaplace-profile/1\"");
	parse_fails("{\"format\": \"numaplace-profile/2\", \"name\": \"t\"}",
		    "p.json: format: got \"numaplace-profile/2\", expected \"numaplace-profile/1\"");
	parse_fails("{\"format\": 1, \"name\": \"t\"}", "p.json: format: got 1, expected \"numaplace-profile/1\"");
	/* The version is checked before anything else it might explain. */
	parse_fails("{\"format\": \"numaplace-profile/2\", \"policies\": []}",
		    "p.json: format: got \"numaplace-profile/2\", expected \"numaplace-profile/1\"");
}

static void test_top_level(void **state)
{
	(void)state;
	static const char rule[] = "\"rules\": [{\"match\": {\"class\": \"network\"}, \"irqs\": \"local\"}]";
	char text[512];

	parse_fails(HEAD "\"settings\": [], \"rules\": []}",
		    "p.json: top level: no settings and no rules, expected at least one setting or rule");
	parse_fails(HEAD "\"description\": \"x\"}",
		    "p.json: top level: no settings and no rules, expected at least one setting or rule");
	snprintf(text, sizeof(text), HEAD "\"Rules\": [], %s}", rule);
	parse_fails(text, "p.json: Rules: unknown key, expected one of format, name, description, app, settings, rules");
	snprintf(text, sizeof(text), HEAD "%s, \"name\": \"u\"}", rule);
	parse_fails(text, "p.json: name: duplicate key, expected each key once");
	snprintf(text, sizeof(text), "{\"format\": \"numaplace-profile/1\", %s}", rule);
	parse_fails(text, "p.json: name: missing, expected a name of letters, digits, '.', '_' and '-'");
	snprintf(text, sizeof(text), "{\"format\": \"numaplace-profile/1\", \"name\": \"my profile\", %s}", rule);
	parse_fails(text, "p.json: name: got \"my profile\", expected a name of letters, digits, '.', '_' and '-', at most 64 characters");
	snprintf(text, sizeof(text), "{\"format\": \"numaplace-profile/1\", \"name\": 7, %s}", rule);
	parse_fails(text, "p.json: name: got 7, expected a name of letters, digits, '.', '_' and '-'");
	snprintf(text, sizeof(text), HEAD "\"description\": [\"x\"], %s}", rule);
	parse_fails(text, "p.json: description: got an array, expected a string");
	snprintf(text, sizeof(text), HEAD "\"description\": \"bell\\u0007\", %s}", rule);
	parse_fails(text, "p.json: description: control character 0x07, expected plain text");
	parse_fails(HEAD "\"settings\": {}}", "p.json: settings: got an object, expected an array");
	parse_fails(HEAD "\"rules\": null}", "p.json: rules: got null, expected an array");
	parse_fails(HEAD "\"rules\": [\"local\"]}",
		    "p.json: rules[0]: got \"local\", expected a rule object such as {\"match\": {\"class\": \"network\"}, \"irqs\": \"local\"}");
}

static void test_app(void **state)
{
	(void)state;
	parse_fails(HEAD "\"rules\": [{\"match\": {\"class\": \"network\"}, \"irqs\": \"local\"},"
		    " {\"match\": {\"class\": \"storage\"}, \"irqs\": \"app\"}]}",
		    "p.json: rules[1].irqs: \"app\" without an app section, expected a top-level \"app\": {\"node\": N} or {\"cpus\": \"LIST\"}");
	parse_fails(HEAD "\"rules\": [{\"match\": {\"class\": \"network\"}, \"rps\": \"app\"}]}",
		    "p.json: rules[0].rps: \"app\" without an app section, expected a top-level \"app\": {\"node\": N} or {\"cpus\": \"LIST\"}");
	parse_fails(HEAD "\"app\": {}, \"rules\": [{\"match\": {\"class\": \"network\"}, \"irqs\": \"app\"}]}",
		    "p.json: app: empty, expected {\"cpus\": \"LIST\"} or {\"node\": N}");
	parse_fails(HEAD "\"app\": {\"node\": 1, \"cpus\": \"0\"}, \"rules\": [{\"match\": {\"class\": \"network\"}, \"irqs\": \"app\"}]}",
		    "p.json: app: both cpus and node, expected {\"cpus\": \"LIST\"} or {\"node\": N}");
	parse_fails(HEAD "\"app\": {\"node\": -1}, \"rules\": [{\"match\": {\"class\": \"network\"}, \"irqs\": \"app\"}]}",
		    "p.json: app.node: got -1, expected a node number such as 1");
	parse_fails(HEAD "\"app\": {\"cpu\": \"1\"}, \"rules\": [{\"match\": {\"class\": \"network\"}, \"irqs\": \"app\"}]}",
		    "p.json: app.cpu: unknown key, expected one of cpus, node");
	parse_fails(HEAD "\"app\": {\"cpus\": \"\"}, \"rules\": [{\"match\": {\"class\": \"network\"}, \"irqs\": \"app\"}]}",
		    "p.json: app.cpus: no CPUs, expected a CPU list such as \"0-3,8\" (an IRQ has to run somewhere)");
	parse_fails(HEAD "\"app\": 1, \"rules\": [{\"match\": {\"class\": \"network\"}, \"irqs\": \"app\"}]}",
		    "p.json: app: got 1, expected {\"cpus\": \"LIST\"} or {\"node\": N}");
}

static void test_setting_errors(void **state)
{
	(void)state;
#define SET(body) HEAD "\"settings\": [{\"kind\": \"irq_affinity\", \"device\": \"eth0\", \"queue\": 0, \"cpus\": \"1\"}, " body "]}"
	parse_fails(SET("{\"kind\": \"irq_affinity\", \"device\": \"eth0\", \"queue\": 1, \"cpu\": \"1\"}"),
		    "p.json: settings[1].cpu: unknown key, expected one of kind, device, queue, vector, irq, cpus");
	parse_fails(SET("{\"kind\": \"irq_affinity\", \"device\": \"eth0\", \"queue\": 1, \"cpus\": \"1\", \"block\": \"sda\"}"),
		    "p.json: settings[1].block: not a key of irq_affinity settings, expected one of kind, device, queue, vector, irq, cpus");
	parse_fails(SET("{\"kind\": \"rq_affinity\", \"block\": \"sda\", \"value\": 1, \"value\": 2}"),
		    "p.json: settings[1].value: duplicate key, expected each key once");
	parse_fails(SET("{\"kind\": \"rq_affinity\", \"kind\": \"rq_affinity\", \"block\": \"sda\", \"value\": 1}"),
		    "p.json: settings[1].kind: duplicate key, expected each key once");
	parse_fails(SET("{\"device\": \"eth0\"}"),
		    "p.json: settings[1]: missing \"kind\", expected one of irq_affinity, rq_affinity, rps_cpus, xps_cpus, default_irq_affinity, channels, thread_affinity, rps_flow_cnt, rps_sock_flow_entries");
	parse_fails(SET("{\"kind\": \"smp_affinity\"}"),
		    "p.json: settings[1].kind: got \"smp_affinity\", expected one of irq_affinity, rq_affinity, rps_cpus, xps_cpus, default_irq_affinity, channels, thread_affinity, rps_flow_cnt, rps_sock_flow_entries");
	parse_fails(SET("[1]"), "p.json: settings[1]: got an array, expected a setting object such as {\"kind\": \"rq_affinity\", \"block\": \"sda\", \"value\": 2}");

	/* The IRQ-number fallback stands alone. */
	parse_fails(SET("{\"kind\": \"irq_affinity\", \"device\": \"eth0\", \"irq\": 24, \"cpus\": \"1\"}"),
		    "p.json: settings[1]: both \"device\" and \"irq\", expected \"device\" with \"queue\" or \"vector\", or \"irq\" alone as the fallback");
	parse_fails(SET("{\"kind\": \"irq_affinity\", \"irq\": 24, \"queue\": 1, \"cpus\": \"1\"}"),
		    "p.json: settings[1]: \"irq\" with \"queue\", expected \"irq\" alone (or \"device\" with it)");
	parse_fails(SET("{\"kind\": \"irq_affinity\", \"irq\": \"24\", \"cpus\": \"1\"}"),
		    "p.json: settings[1].irq: got \"24\", expected an IRQ number");
	parse_fails(SET("{\"kind\": \"irq_affinity\", \"irq\": 2.5, \"cpus\": \"1\"}"),
		    "p.json: settings[1].irq: got 2.5, expected an IRQ number");
	parse_fails(SET("{\"kind\": \"irq_affinity\", \"cpus\": \"1\"}"),
		    "p.json: settings[1]: missing \"device\", expected a device (PCI address, interface or block device) with \"queue\" or \"vector\", or \"irq\" as the fallback");
	parse_fails(SET("{\"kind\": \"irq_affinity\", \"device\": \"eth0\", \"cpus\": \"1\"}"),
		    "p.json: settings[1]: missing \"queue\", expected \"queue\" (an index) or \"vector\" (an IRQ action name) with \"device\"");
	parse_fails(SET("{\"kind\": \"irq_affinity\", \"device\": \"eth0\", \"queue\": 1, \"vector\": \"eth0-TxRx-1\", \"cpus\": \"1\"}"),
		    "p.json: settings[1]: both \"queue\" and \"vector\", expected one of them");
	parse_fails(SET("{\"kind\": \"irq_affinity\", \"device\": \"eth0\", \"queue\": \"1\", \"cpus\": \"1\"}"),
		    "p.json: settings[1].queue: got \"1\", expected a queue index from 0 to 65535");
	parse_fails(SET("{\"kind\": \"irq_affinity\", \"device\": \"eth0\", \"queue\": 65536, \"cpus\": \"1\"}"),
		    "p.json: settings[1].queue: got 65536, expected a queue index from 0 to 65535");
	parse_fails(SET("{\"kind\": \"irq_affinity\", \"device\": \"eth0\", \"queue\": 1}"),
		    "p.json: settings[1]: missing \"cpus\", expected a CPU list such as \"0-3,8\"");
	parse_fails(SET("{\"kind\": \"irq_affinity\", \"device\": \"eth0\", \"queue\": 1, \"cpus\": \"\"}"),
		    "p.json: settings[1].cpus: no CPUs, expected a CPU list such as \"0-3,8\" (an IRQ has to run somewhere)");

	parse_fails(SET("{\"kind\": \"rq_affinity\", \"block\": \"sda\", \"value\": 3}"),
		    "p.json: settings[1].value: got 3, expected 0, 1 or 2");
	parse_fails(SET("{\"kind\": \"rq_affinity\", \"block\": \"sda\", \"value\": \"2\"}"),
		    "p.json: settings[1].value: got \"2\", expected 0, 1 or 2");
	parse_fails(SET("{\"kind\": \"rq_affinity\", \"block\": \"sda\"}"),
		    "p.json: settings[1]: missing \"value\", expected 0, 1 or 2");
	parse_fails(SET("{\"kind\": \"rq_affinity\", \"value\": 1}"),
		    "p.json: settings[1]: missing \"block\", expected a block device such as \"sda\"");
	parse_fails(SET("{\"kind\": \"rps_cpus\", \"net\": \"eth0\", \"queue\": 0, \"cpus\": \"1\", \"vector\": \"x\"}"),
		    "p.json: settings[1].vector: not a key of rps_cpus settings, expected one of kind, net, queue, cpus");
	parse_fails(SET("{\"kind\": \"xps_cpus\", \"net\": \"eth0\", \"cpus\": \"1\"}"),
		    "p.json: settings[1]: missing \"queue\", expected a queue index from 0 to 65535");
	parse_fails(SET("{\"kind\": \"xps_cpus\", \"net\": \"eth0\", \"queue\": 0}"),
		    "p.json: settings[1]: missing \"cpus\", expected a CPU list such as \"0-3,8\", or \"\" for none");
	parse_fails(SET("{\"kind\": \"rps_cpus\", \"queue\": 0, \"cpus\": \"\"}"),
		    "p.json: settings[1]: missing \"net\", expected an interface such as \"eth0\"");
#undef SET
}

/* Names end up in paths numaplace builds: nothing that could leave them. */
static void test_names(void **state)
{
	(void)state;
#define SET(body) HEAD "\"settings\": [" body "]}"
	parse_fails(SET("{\"kind\": \"irq_affinity\", \"device\": \"../../etc\", \"queue\": 0, \"cpus\": \"1\"}"),
		    "p.json: settings[0].device: \"../../etc\" contains '/', expected a PCI address such as 0000:23:00.0, an interface or a block device");
	parse_fails(SET("{\"kind\": \"rq_affinity\", \"block\": \"sd..a\", \"value\": 1}"),
		    "p.json: settings[0].block: \"sd..a\" contains '..', expected a block device such as \"sda\"");
	parse_fails(SET("{\"kind\": \"rq_affinity\", \"block\": \"..\", \"value\": 1}"),
		    "p.json: settings[0].block: \"..\" contains '..', expected a block device such as \"sda\"");
	parse_fails(SET("{\"kind\": \"rps_cpus\", \"net\": \"eth0/queues\", \"queue\": 0, \"cpus\": \"\"}"),
		    "p.json: settings[0].net: \"eth0/queues\" contains '/', expected an interface such as \"eth0\"");
	parse_fails(SET("{\"kind\": \"rps_cpus\", \"net\": \"\", \"queue\": 0, \"cpus\": \"\"}"),
		    "p.json: settings[0].net: \"\" is empty, expected an interface such as \"eth0\"");
	parse_fails(SET("{\"kind\": \"rps_cpus\", \"net\": \"eth 0\", \"queue\": 0, \"cpus\": \"\"}"),
		    "p.json: settings[0].net: \"eth 0\" contains whitespace, expected an interface such as \"eth0\"");
	parse_fails(SET("{\"kind\": \"rps_cpus\", \"net\": \"eth0\\n\", \"queue\": 0, \"cpus\": \"\"}"),
		    "p.json: settings[0].net: \"eth0?\" contains a control character, expected an interface such as \"eth0\"");
	parse_fails(SET("{\"kind\": \"rps_cpus\", \"net\": \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\", \"queue\": 0, \"cpus\": \"\"}"),
		    "p.json: settings[0].net: \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...\" is longer than 64 characters, expected an interface such as \"eth0\"");
	parse_fails(SET("{\"kind\": \"irq_affinity\", \"device\": \"eth0\", \"vector\": \"x/../y\", \"cpus\": \"1\"}"),
		    "p.json: settings[0].vector: \"x/../y\" contains '/', expected an IRQ action name such as \"eth0-TxRx-3\"");
	parse_fails(SET("{\"kind\": \"irq_affinity\", \"device\": \"eth0\", \"vector\": \"eth0-TxRx-0 \", \"cpus\": \"1\"}"),
		    "p.json: settings[0].vector: \"eth0-TxRx-0 \" starts or ends with a space, expected an IRQ action name such as \"eth0-TxRx-3\"");
	parse_fails(SET("{\"kind\": \"irq_affinity\", \"device\": \"eth0\", \"vector\": \"a\\tb\", \"cpus\": \"1\"}"),
		    "p.json: settings[0].vector: \"a?b\" contains a control character, expected an IRQ action name such as \"eth0-TxRx-3\"");
	parse_fails(SET("{\"kind\": \"irq_affinity\", \"device\": 5, \"queue\": 0, \"cpus\": \"1\"}"),
		    "p.json: settings[0].device: got 5, expected a PCI address such as 0000:23:00.0, an interface or a block device");
	/* A ':' means a PCI address: interface and disk names cannot hold one. */
	parse_fails(SET("{\"kind\": \"irq_affinity\", \"device\": \"0000:23:00.9\", \"queue\": 0, \"cpus\": \"1\"}"),
		    "p.json: settings[0].device: \"0000:23:00.9\" is not a PCI address, expected a PCI address such as 0000:23:00.0");
	parse_fails(SET("{\"kind\": \"irq_affinity\", \"device\": \"zz:00.0\", \"queue\": 0, \"cpus\": \"1\"}"),
		    "p.json: settings[0].device: \"zz:00.0\" is not a PCI address, expected a PCI address such as 0000:23:00.0");
	parse_fails(SET("{\"kind\": \"irq_affinity\", \"device\": \"eth0:1\", \"queue\": 0, \"cpus\": \"1\"}"),
		    "p.json: settings[0].device: \"eth0:1\" is not a PCI address, expected a PCI address such as 0000:23:00.0");
	/* Odd keys are quoted harmlessly in the path. */
	parse_fails(SET("{\"kind\": \"rq_affinity\", \"block\": \"sda\", \"value\": 1, \"a\\nb\": 1}"),
		    "p.json: settings[0].a?b: unknown key, expected one of kind, block, value");
#undef SET
}

static void test_cpu_lists(void **state)
{
	(void)state;
#define SET(cpus) HEAD "\"settings\": [{\"kind\": \"xps_cpus\", \"net\": \"eth0\", \"queue\": 0, \"cpus\": " cpus "}]}"
	parse_fails(SET("\"0-\""), "p.json: settings[0].cpus: \"0-\" is not a CPU list, expected a CPU list such as \"0-3,8\"");
	parse_fails(SET("\"3-1\""), "p.json: settings[0].cpus: \"3-1\" is not a CPU list, expected a CPU list such as \"0-3,8\"");
	parse_fails(SET("\"all\""), "p.json: settings[0].cpus: \"all\" is not a CPU list, expected a CPU list such as \"0-3,8\"");
	parse_fails(SET("\"0-4000000000\""),
		    "p.json: settings[0].cpus: \"0-4000000000\" names a CPU above 65535, expected a CPU list such as \"0-3,8\"");
	parse_fails(SET("[0, 1]"), "p.json: settings[0].cpus: got an array, expected a CPU list such as \"0-3,8\"");
	parse_fails(SET("3"), "p.json: settings[0].cpus: got 3, expected a CPU list such as \"0-3,8\"");
#undef SET
}

static void test_rule_errors(void **state)
{
	(void)state;
#define RULE(body) HEAD "\"rules\": [{\"match\": {\"class\": \"network\"}, \"irqs\": \"local\"}, " body "]}"
	parse_fails(RULE("{\"match\": {\"class\": \"storage\"}, \"irq\": \"local\"}"),
		    "p.json: rules[1].irq: unknown key, expected one of match, irqs, rq_affinity, rps, xps, channels");
	parse_fails(RULE("{\"match\": {\"class\": \"storage\", \"model\": \"x\"}, \"irqs\": \"local\"}"),
		    "p.json: rules[1].match.model: unknown key, expected one of class, driver, ids, net, pci");
	parse_fails(RULE("{\"match\": {\"driver\": \"nvme\", \"driver\": \"ahci\"}, \"irqs\": \"local\"}"),
		    "p.json: rules[1].match.driver: duplicate key, expected each key once");
	parse_fails(RULE("{\"match\": {\"class\": \"storage\"}, \"irqs\": \"local\", \"irqs\": \"spread\"}"),
		    "p.json: rules[1].irqs: duplicate key, expected each key once");
	parse_fails(RULE("{\"irqs\": \"local\"}"),
		    "p.json: rules[1]: missing \"match\", expected an object with class, driver, ids, net or pci");
	parse_fails(RULE("{\"match\": {}, \"irqs\": \"local\"}"),
		    "p.json: rules[1].match: empty, expected at least one of class, driver, ids, net, pci");
	parse_fails(RULE("{\"match\": \"network\", \"irqs\": \"local\"}"),
		    "p.json: rules[1].match: got \"network\", expected an object with class, driver, ids, net or pci");
	parse_fails(RULE("{\"match\": {\"class\": \"storage\"}}"),
		    "p.json: rules[1]: no action, expected at least one of irqs, rq_affinity, rps, xps, channels");
	parse_fails(RULE("{\"match\": {\"class\": \"nic\"}, \"irqs\": \"local\"}"),
		    "p.json: rules[1].match.class: got \"nic\", expected network, storage, display, accelerator or a hex class such as \"0x0200\"");
	parse_fails(RULE("{\"match\": {\"class\": \"0x02\"}, \"irqs\": \"local\"}"),
		    "p.json: rules[1].match.class: got \"0x02\", expected network, storage, display, accelerator or a hex class such as \"0x0200\"");
	parse_fails(RULE("{\"match\": {\"ids\": \"8086-10fb\"}, \"irqs\": \"local\"}"),
		    "p.json: rules[1].match.ids: got \"8086-10fb\", expected vendor:device in hex such as \"8086:10fb\"");
	parse_fails(RULE("{\"match\": {\"ids\": \"808g:10fb\"}, \"irqs\": \"local\"}"),
		    "p.json: rules[1].match.ids: got \"808g:10fb\", expected vendor:device in hex such as \"8086:10fb\"");
	parse_fails(RULE("{\"match\": {\"driver\": \"../nvme\"}, \"irqs\": \"local\"}"),
		    "p.json: rules[1].match.driver: \"../nvme\" contains '/', expected a driver name such as \"ixgbe\"");
	parse_fails(RULE("{\"match\": {\"net\": \"eth*/x\"}, \"irqs\": \"local\"}"),
		    "p.json: rules[1].match.net: \"eth*/x\" contains '/', expected a glob on interface names such as \"eth*\"");
	parse_fails(RULE("{\"match\": {\"pci\": \"0000:2?/*\"}, \"irqs\": \"local\"}"),
		    "p.json: rules[1].match.pci: \"0000:2?/*\" contains '/', expected a glob on PCI addresses such as \"0000:2?:*\"");
	parse_fails(RULE("{\"match\": {\"pci\": \"\"}, \"irqs\": \"local\"}"),
		    "p.json: rules[1].match.pci: \"\" is empty, expected a glob on PCI addresses such as \"0000:2?:*\"");
	parse_fails(RULE("{\"match\": {\"class\": \"storage\"}, \"rq_affinity\": 3}"),
		    "p.json: rules[1].rq_affinity: got 3, expected 0, 1 or 2");
	parse_fails(RULE("{\"match\": {\"class\": \"storage\"}, \"rq_affinity\": \"2\"}"),
		    "p.json: rules[1].rq_affinity: got \"2\", expected 0, 1 or 2");
	parse_fails(RULE("{\"match\": {\"class\": \"storage\"}, \"rq_affinity\": true}"),
		    "p.json: rules[1].rq_affinity: got true, expected 0, 1 or 2");
	parse_fails(RULE("{\"match\": {\"class\": \"storage\"}, \"irqs\": \"nearby\"}"),
		    "p.json: rules[1].irqs: got \"nearby\", expected local, app, spread or a CPU list such as \"0-3\"");
	parse_fails(RULE("{\"match\": {\"class\": \"storage\"}, \"irqs\": \"0-\"}"),
		    "p.json: rules[1].irqs: \"0-\" is not a CPU list, expected a CPU list such as \"0-3,8\"");
	parse_fails(RULE("{\"match\": {\"class\": \"storage\"}, \"irqs\": \"\"}"),
		    "p.json: rules[1].irqs: no CPUs, expected a CPU list such as \"0-3,8\" (an IRQ has to run somewhere)");
	parse_fails(RULE("{\"match\": {\"class\": \"storage\"}, \"irqs\": 3}"),
		    "p.json: rules[1].irqs: got 3, expected local, app, spread or a CPU list such as \"0-3\"");
	parse_fails(RULE("{\"match\": {\"class\": \"network\"}, \"rps\": \"on\"}"),
		    "p.json: rules[1].rps: got \"on\", expected off or app");
	parse_fails(RULE("{\"match\": {\"class\": \"network\"}, \"xps\": true}"),
		    "p.json: rules[1].xps: got true, expected follow-irq");
#undef RULE
}

static char tmp_root[64];

static char *tmp_path(const char *name)
{
	char *p;
	assert_true(asprintf(&p, "%s/%s", tmp_root, name) > 0);
	return p;
}

static void test_load(void **state)
{
	(void)state;
	struct np_profile p;
	char *path = tmp_path("ok.json"), *msg;

	tmproot_write(path, rules_text, strlen(rules_text));
	assert_int_equal(np_profile_load(&ctx, path, &p), 0);
	assert_string_equal(p.file, path);
	assert_int_equal(p.nrules, 5);
	np_profile_free(&p);
	free(path);

	/* Errors name the file they are about. */
	path = tmp_path("bad.json");
	static const char bad[] = "{\"format\": \"numaplace-profile/1\",\n\"name\": \"x\",\n\"rules\": [}\n";
	tmproot_write(path, bad, strlen(bad));
	assert_int_equal(np_profile_load(&ctx, path, &p), -EINVAL);
	assert_true(asprintf(&msg, "%s:3:11: invalid JSON near '}'", path) > 0);
	assert_string_equal(ctx.err, msg);
	free(msg);
	np_profile_free(&p);
	free(path);

	path = tmp_path("missing.json");
	assert_int_equal(np_profile_load(&ctx, path, &p), -ENOENT);
	assert_true(asprintf(&msg, "%s: cannot open: %s", path, strerror(ENOENT)) > 0);
	assert_string_equal(ctx.err, msg);
	free(msg);
	free(path);

	assert_int_equal(np_profile_load(&ctx, tmp_root, &p), -EISDIR);
	assert_true(asprintf(&msg, "%s: a directory, expected a profile file", tmp_root) > 0);
	assert_string_equal(ctx.err, msg);
	free(msg);

	path = tmp_path("nul.json");
	tmproot_write(path, "{\"format\"\0", 10);
	assert_int_equal(np_profile_load(&ctx, path, &p), -EINVAL);
	assert_true(asprintf(&msg, "%s: a NUL byte, expected JSON text", path) > 0);
	assert_string_equal(ctx.err, msg);
	free(msg);
	free(path);

	/* 1 MiB is accepted (blank padding), one byte more is not. */
	size_t big = 1 << 20;
	char *text = malloc(big + 1);
	assert_non_null(text);
	memset(text, ' ', big + 1);
	memcpy(text, rules_text, strlen(rules_text));
	path = tmp_path("big.json");
	tmproot_write(path, text, big);
	assert_int_equal(np_profile_load(&ctx, path, &p), 0);
	np_profile_free(&p);
	tmproot_write(path, text, big + 1);
	assert_int_equal(np_profile_load(&ctx, path, &p), -EFBIG);
	assert_true(asprintf(&msg, "%s: larger than 1 MiB, expected a profile of at most 1 MiB", path) > 0);
	assert_string_equal(ctx.err, msg);
	np_profile_free(&p);
	free(msg);
	free(path);
	free(text);
}

static void test_find(void **state)
{
	(void)state;
	char *d1 = tmp_path("d1"), *d2 = tmp_path("d2"), *d3 = tmp_path("absent"), *f, *found, *msg;
	assert_int_equal(mkdir(d1, 0755), 0);
	assert_int_equal(mkdir(d2, 0755), 0);
	const char *const dirs[] = { d1, d3, d2, NULL };

	assert_true(asprintf(&f, "%s/a.json", d1) > 0);
	tmproot_write(f, "{}", 2);
	free(f);
	assert_true(asprintf(&f, "%s/a.json", d2) > 0);
	tmproot_write(f, "{}", 2);
	free(f);
	assert_true(asprintf(&f, "%s/b.json", d2) > 0);
	tmproot_write(f, "{}", 2);
	free(f);
	/* A directory of that name is not a profile: the search goes on. */
	assert_true(asprintf(&f, "%s/c.json", d1) > 0);
	assert_int_equal(mkdir(f, 0755), 0);
	free(f);

	assert_int_equal(np_profile_find(&ctx, "a", dirs, &found), 0);
	assert_true(asprintf(&f, "%s/a.json", d1) > 0); /* the first directory wins */
	assert_string_equal(found, f);
	free(f);
	free(found);

	assert_int_equal(np_profile_find(&ctx, "b", dirs, &found), 0);
	assert_true(asprintf(&f, "%s/b.json", d2) > 0);
	assert_string_equal(found, f);
	free(f);
	free(found);

	assert_int_equal(np_profile_find(&ctx, "c", dirs, &found), -ENOENT);
	assert_null(found);
	assert_true(asprintf(&msg, "profile 'c' not found, expected c.json in one of: %s, %s, %s", d1, d3, d2) > 0);
	assert_string_equal(ctx.err, msg);
	free(msg);

	/* A path is taken as it is, found or not. */
	assert_int_equal(np_profile_find(&ctx, "./a", dirs, &found), 0);
	assert_string_equal(found, "./a");
	free(found);
	assert_int_equal(np_profile_find(&ctx, "a.json", dirs, &found), 0);
	assert_string_equal(found, "a.json");
	free(found);

	assert_int_equal(np_profile_find(&ctx, "a", NULL, &found), -ENOENT);
	assert_string_equal(ctx.err, "profile 'a' not found, expected a file (no profile directories to search)");
	assert_int_equal(np_profile_find(&ctx, "", dirs, &found), -EINVAL);

	free(d1);
	free(d2);
	free(d3);
}

/* Every shipped profile is valid, rule-based, explained, and named like its file. */
static void test_shipped_profiles(void **state)
{
	(void)state;
	/* tests/run.sh runs the unit tests from the top of the source tree. */
	const char *dir = "profiles";
	DIR *d = opendir(dir);
	if (!d)
		print_error("cannot open ./profiles: run from the top of the source tree\n");
	assert_non_null(d);
	int n = 0;
	bool seen_network = false, seen_storage = false, seen_app = false;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len < 6 || strcmp(e->d_name + len - 5, ".json"))
			continue;
		char *path;
		struct np_profile p;
		assert_true(asprintf(&path, "%s/%s", dir, e->d_name) > 0);
		int rc = np_profile_load(&ctx, path, &p);
		if (rc)
			print_error("%s\n", ctx.err);
		assert_int_equal(rc, 0);
		assert_true(p.nrules > 0);
		assert_non_null(p.description);
		assert_true(strlen(p.description) > 100);
		assert_int_equal(strlen(p.name), len - 5);
		assert_memory_equal(p.name, e->d_name, len - 5);
		seen_network |= !strcmp(p.name, "network-local");
		seen_storage |= !strcmp(p.name, "storage-forced-completion");
		if (!strcmp(p.name, "app-node")) {
			seen_app = true;
			assert_int_equal(p.app_node, 0);
		}
		round_trip(&p);
		np_profile_free(&p);
		free(path);
		n++;
	}
	closedir(d);
	assert_true(n >= 3);
	assert_true(seen_network && seen_storage && seen_app);
}

static int make_tmp(void **state)
{
	(void)state;
	return tmproot_create(tmp_root, sizeof(tmp_root), "/tmp/np-profile-test.XXXXXX", NULL);
}

static int remove_tmp(void **state)
{
	(void)state;
	return tmproot_remove(tmp_root, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_settings),
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_canonical_text),
		cmocka_unit_test(test_syntax_errors),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_top_level),
		cmocka_unit_test(test_app),
		cmocka_unit_test(test_setting_errors),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_cpu_lists),
		cmocka_unit_test(test_rule_errors),
		cmocka_unit_test(test_channels),
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_shipped_profiles),
	};
	return cmocka_run_group_tests(tests, make_tmp, remove_tmp);
}
