/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Each rule of the problem list on a small machine that has its problem
 * (the fixture roots of tests/fixtures): the right rule, on the right device,
 * with or without the changes that fix it, and nothing on a machine without. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/context.h"
#include "judge/findings.h"
#include "read/machine.h"

struct judged {
	struct np_ctx ctx;
	struct np_machine m;
	struct np_findings f;
};

static void judge(struct judged *j, const char *fixture, enum np_irq_policy policy)
{
	char root[256];
	snprintf(root, sizeof(root), "tests/fixtures/%s", fixture);
	assert_int_equal(np_ctx_init(&j->ctx, root), 0);
	if (np_machine_load(&j->ctx, &j->m))
		fail_msg("%s: %s", fixture, j->ctx.err);
	bool *selected = calloc(j->m.pci.ndevs + 1, sizeof(bool));
	assert_non_null(selected);
	assert_int_equal(np_select_devices(&j->ctx, &j->m, 0, NULL, false, selected), 0);
	struct np_advise_opts o = { .policy_name = "test", .min_interrupts = NP_FINDINGS_MIN_INTERRUPTS };
	assert_int_equal(np_advise_opts_for(&j->m, policy, selected, &o), 0);
	assert_int_equal(np_findings_collect(&j->m, &o, "numaplace advise", &j->f), 0);
	np_advise_opts_free(&o);
	free(selected);
}

static void done(struct judged *j)
{
	np_findings_free(&j->f);
	np_machine_free(&j->m);
	np_ctx_fini(&j->ctx);
}

/* The problems of rule with fixes (a summary line sending to advise). */
static size_t fixed(const struct judged *j, enum np_rule_id rule, const struct np_finding **first)
{
	size_t n = 0;
	for (size_t k = 0; k < j->f.n; k++)
		if (j->f.v[k].rule == rule && j->f.v[k].nfixes) {
			if (n++ == 0 && first)
				*first = &j->f.v[k];
		}
	return n;
}

static size_t with_fixes(const struct judged *j)
{
	size_t n = 0;
	for (size_t k = 0; k < j->f.n; k++)
		n += j->f.v[k].nfixes > 0;
	return n;
}

static const char *dev_addr(const struct judged *j, const struct np_finding *x)
{
	return x->dev >= 0 ? j->m.pci.devs[x->dev].addr : "";
}

static void test_balance_stacked_queues_on_a_flat_machine(void **state)
{
	(void)state;
	struct judged j;
	const struct np_finding *x = NULL;
	judge(&j, "flat8", NP_IRQS_LOCAL);
	assert_int_equal(fixed(&j, NP_RULE_BALANCE, &x), 1);
	assert_string_equal(dev_addr(&j, x), "0000:00:05.0");
	assert_int_equal(x->nirqs, 8);
	assert_int_equal(x->nfixes, 16); /* 8 queue IRQs, 8 XPS maps */
	assert_int_equal(with_fixes(&j), 1);
	done(&j);
}

static void test_balance_nothing_under_the_threshold(void **state)
{
	(void)state;
	struct judged j;
	judge(&j, "flat8-quiet", NP_IRQS_LOCAL);
	assert_int_equal(with_fixes(&j), 0);
	assert_int_equal(j.f.plan.n > 0, 1);
	for (size_t i = 0; i < j.f.plan.n; i++)
		assert_false(j.f.plan.v[i].change);
	done(&j);
}

static void test_vector_families_placed_server_has_no_problem(void **state)
{
	(void)state;
	struct judged j;
	judge(&j, "e810", NP_IRQS_LOCAL);
	assert_int_equal(with_fixes(&j), 0);
	done(&j);
}

static void test_remote_is_a_problem_under_local_a_fact_under_spread(void **state)
{
	(void)state;
	struct judged j;
	const struct np_finding *x = NULL;
	judge(&j, "r715", NP_IRQS_LOCAL);
	assert_int_equal(fixed(&j, NP_RULE_REMOTE, &x), 2);
	assert_int_equal(x->severity, NP_WARNING);
	done(&j);
	judge(&j, "r715", NP_IRQS_SPREAD);
	assert_int_equal(fixed(&j, NP_RULE_REMOTE, NULL), 0);
	size_t facts = 0;
	for (size_t k = 0; k < j.f.n; k++)
		facts += j.f.v[k].rule == NP_RULE_REMOTE && j.f.v[k].severity == NP_INFO;
	assert_int_equal(facts, 2);
	done(&j);
}

static void test_isolated_and_new_irqs(void **state)
{
	(void)state;
	struct judged j;
	const struct np_finding *x = NULL;
	judge(&j, "rt-ice16", NP_IRQS_LOCAL);
	assert_true(fixed(&j, NP_RULE_ISOLATED, &x) >= 1);
	assert_string_equal(dev_addr(&j, x), "0000:41:00.0");
	assert_int_equal(fixed(&j, NP_RULE_DEFAULT_AFFINITY, &x), 1);
	assert_int_equal(x->dev, -1);
	done(&j);
}

static void test_irqbalance_is_said_without_a_change(void **state)
{
	(void)state;
	struct judged j;
	judge(&j, "r715", NP_IRQS_LOCAL);
	size_t n = 0;
	for (size_t k = 0; k < j.f.n; k++)
		if (j.f.v[k].rule == NP_RULE_IRQBALANCE) {
			n++;
			assert_int_equal(j.f.v[k].nfixes, 0);
			assert_int_equal(j.f.v[k].severity, NP_WARNING);
		}
	assert_int_equal(n, 1);
	done(&j);
}

/* Every change fixes exactly one problem: the plan is the problems' fixes. */
static void test_every_change_fixes_one_problem(void **state)
{
	(void)state;
	static const char *const roots[] = { "r715", "amd16", "rt-ice16", "smt-isolated", "flat8", "nonode" };
	for (size_t r = 0; r < sizeof(roots) / sizeof(roots[0]); r++) {
		struct judged j;
		judge(&j, roots[r], NP_IRQS_LOCAL);
		int *owner = calloc(j.f.plan.n + 1, sizeof(int));
		assert_non_null(owner);
		for (size_t k = 0; k < j.f.n; k++)
			for (size_t i = 0; i < j.f.v[k].nfixes; i++)
				owner[j.f.v[k].fixes[i]]++;
		for (size_t i = 0; i < j.f.plan.n; i++)
			if (owner[i] != (j.f.plan.v[i].change ? 1 : 0))
				fail_msg("%s: change %zu (%s) fixes %d problems", roots[r], i, j.f.plan.v[i].reason, owner[i]);
		free(owner);
		done(&j);
	}
}

/* One summary line per device, stating each of its problems: ens1f0 is on an
 * isolated CPU and off its node, ens1f1 allows isolated CPUs and its XPS does
 * not follow; every summary finding is in exactly one line. */
static void test_one_summary_line_per_device(void **state)
{
	(void)state;
	static const char *const fixtures[] = { "smt-isolated", "nonode", "kube", "rt-igb80", "r715" };
	for (size_t fx = 0; fx < sizeof(fixtures) / sizeof(fixtures[0]); fx++) {
		for (int pol = 0; pol < 2; pol++) {
			struct judged j;
			judge(&j, fixtures[fx], pol ? NP_IRQS_SPREAD : NP_IRQS_LOCAL);
			struct np_summary_line *lines;
			size_t n, covered = 0;
			assert_int_equal(np_findings_lines(&j.f, &lines, &n), 0);
			for (size_t a = 0; a < n; a++) {
				covered += lines[a].n;
				for (size_t i = 0; i < lines[a].n; i++) {
					const struct np_finding *x = &j.f.v[lines[a].v[i]];
					assert_int_equal(x->dev, lines[a].dev);
					/* each of its problems is said in the line */
					const char *fact = x->who && !strncmp(x->message, x->who, strlen(x->who))
								   ? x->message + strlen(x->who) + 2 : x->message;
					if (!strstr(lines[a].text, fact))
						fail_msg("%s: '%s' not in '%s'", fixtures[fx], fact, lines[a].text);
				}
				for (size_t b = a + 1; b < n; b++)
					if (lines[a].dev >= 0 && lines[a].dev == lines[b].dev &&
					    j.f.v[lines[a].v[0]].rule != NP_RULE_CHANNELS &&
					    j.f.v[lines[b].v[0]].rule != NP_RULE_CHANNELS)
						fail_msg("%s: two summary lines for %s", fixtures[fx], lines[a].text);
			}
			assert_int_equal(covered, np_findings_summary(&j.f));
			if (!strcmp(fixtures[fx], "smt-isolated") && !pol) {
				bool two = false;
				for (size_t a = 0; a < n; a++)
					two |= lines[a].n == 2 && strstr(lines[a].text, "ens1f0 ") == lines[a].text &&
					       strstr(lines[a].text, "isolated CPU 3") && strstr(lines[a].text, "off node 1");
				assert_true(two);
			}
			np_summary_lines_free(lines, n);
			done(&j);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_balance_stacked_queues_on_a_flat_machine),
		cmocka_unit_test(test_balance_nothing_under_the_threshold),
		cmocka_unit_test(test_vector_families_placed_server_has_no_problem),
		cmocka_unit_test(test_remote_is_a_problem_under_local_a_fact_under_spread),
		cmocka_unit_test(test_isolated_and_new_irqs),
		cmocka_unit_test(test_irqbalance_is_said_without_a_change),
		cmocka_unit_test(test_every_change_fixes_one_problem),
		cmocka_unit_test(test_one_summary_line_per_device),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
