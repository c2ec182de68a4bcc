/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The advisor's rq_affinity decision (lib/judge/advise-queues.c) as blk-mq
 * completes requests today (blk_mq_complete_need_ipi(): under 1 locally when
 * the interrupt's CPU submitted the request or shares its LLC, else by IPI on
 * the submitting CPU; under 2 on the submitting CPU; nothing sent under
 * forced IRQ threads), against each row of seed 004 (Alan D. Brunelle, LKML,
 * April 2008: I/O processes pinned on the CPU handling their device's IRQ,
 * pinned elsewhere, or placed by the scheduler), whose rq_affinity=1 completed
 * on the submitting CPU: today's 1 across caches, 2 also within one. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/advise.h"
#include "judge/advise-queues.h"
#include "judge/findings.h"

/* Submitters pinned (or not) and where they are against the completion CPU. */
enum where { ON_IRQ_CPU, SAME_LLC, OTHER_LLC };

static int decide(bool pinned, enum where w, int current, const char **why)
{
	struct np_rq_facts f = { .current = current, .pinned = pinned, .irq_on_submitters = w == ON_IRQ_CPU,
				 .shares_llc = w == SAME_LLC };
	*why = NULL;
	int want = np_rq_affinity_decide(&f, why);
	assert_non_null(*why);
	return want;
}

/* "rq=0 local=1 12.312 / rq=1 local=1 12.314 K ios/sec" (4-way), "50.018 / 50.035"
 * (16-way): pinned on the IRQ's CPU, forcing gains nothing: leave it. */
static void test_seed004_pinned_on_the_irq_cpu(void **state)
{
	(void)state;
	const char *why;
	assert_int_equal(decide(true, ON_IRQ_CPU, 1, &why), -1);
	assert_non_null(strstr(why, "12.312"));
}

/* "rq=0 local=0 39.842 / rq=1 local=0 44.995 K ios/sec" (16-way, +12.9%):
 * pinned off the IRQ's CPU. Inside its LLC today's 1 completes on the IRQ's
 * CPU, so 2 is what that rq_affinity=1 did; across LLCs today's 1 sends the
 * completion to the submitter already, and 2 changes nothing. */
static void test_seed004_pinned_off_the_irq_cpu(void **state)
{
	(void)state;
	const char *why;
	assert_int_equal(decide(true, SAME_LLC, 1, &why), 2);
	assert_non_null(strstr(why, "12.9%"));
	assert_non_null(strstr(why, "blk_mq_complete_need_ipi()"));
	assert_int_equal(decide(true, OTHER_LLC, 1, &why), -1);
	assert_non_null(strstr(why, "as 2 would"));
	/* 2 already: what 1 would change is nothing the submitters gain. */
	assert_int_equal(decide(true, OTHER_LLC, 2, &why), -1);
	/* 0 completes where the interrupt ran: 1 is Brunelle's gain there. */
	assert_int_equal(decide(true, OTHER_LLC, 0, &why), 1);
	assert_non_null(strstr(why, "12.9%"));
}

/* "rq=0 47.760 avg / rq=1 41.007 avg K ios/sec": the scheduler placing the
 * processes, forcing cost 14%: never without application placement. */
static void test_seed004_unpinned(void **state)
{
	(void)state;
	const char *why;
	assert_int_equal(decide(false, SAME_LLC, 1, &why), -1);
	assert_non_null(strstr(why, "14%"));
	assert_int_equal(decide(false, ON_IRQ_CPU, 1, &why), -1);
}

/* Forced IRQ threads (threadirqs, PREEMPT_RT): blk_mq_complete_need_ipi()
 * sends no IPI whatever the value: nothing to recommend. */
static void test_forced_irq_threads(void **state)
{
	(void)state;
	const char *why = NULL;
	struct np_rq_facts f = { .current = 1, .pinned = true, .shares_llc = true,
				 .irq_threads = "threadirqs on the kernel command line" };
	assert_int_equal(np_rq_affinity_decide(&f, &why), -1);
	assert_non_null(strstr(why, "force_irqthreads()"));
}

/* NVMe with a managed queue per CPU: completion is already on the
 * submitter's queue; 2 would only add IPIs. */
static void test_per_cpu_managed_queues(void **state)
{
	(void)state;
	const char *why = NULL;
	struct np_rq_facts f = { .current = 1, .pinned = true, .shares_llc = true, .per_cpu_queues = true };
	assert_int_equal(np_rq_affinity_decide(&f, &why), -1);
	assert_non_null(strstr(why, "per CPU"));
}

/* Whether the plan keeps net's XPS in the drivers' form: each of its XPS
 * records a change for a queue whose interrupt moves, to the one CPU the
 * interrupt moves to. */
static bool xps_follows_moves(const struct np_findings *f, const char *net)
{
	size_t n = 0;
	for (size_t i = 0; i < f->plan.n; i++) {
		const struct np_rec *x = &f->plan.v[i];
		if (x->kind != NP_ATTR_XPS_CPUS || strcmp(x->net, net))
			continue;
		bool moved = false;
		for (size_t k = 0; k < f->plan.n && !moved; k++) {
			const struct np_rec *y = &f->plan.v[k];
			moved = y->kind == NP_ATTR_IRQ_AFFINITY && y->change && y->dev == x->dev && y->queue == x->queue &&
				!strcmp(y->recommended, x->recommended);
		}
		if (!x->change || !moved)
			return false;
		n++;
	}
	return n > 0;
}

/* XPS as scaling.rst puts it: once the plan is applied, each housekeeping CPU
 * is in exactly one transmit queue's xps_cpus of an interface the plan sets
 * (its records, changed or kept, are the interface's whole map), and no CPU in
 * two; or, where the driver's maps (one CPU a queue, its interrupt's) are kept,
 * only the queues whose interrupt moves change, to that CPU (*followed
 * counts them). Returns the interfaces checked either way. */
static int xps_one_queue_per_cpu(const char *fixture, enum np_irq_policy policy, int *followed)
{
	char root[256];
	struct np_ctx ctx;
	struct np_machine m;
	struct np_findings f;
	snprintf(root, sizeof(root), "tests/fixtures/%s", fixture);
	assert_int_equal(np_ctx_init(&ctx, root), 0);
	if (np_machine_load(&ctx, &m))
		fail_msg("%s: %s", fixture, ctx.err);
	bool *selected = calloc(m.pci.ndevs + 1, sizeof(bool));
	assert_non_null(selected);
	assert_int_equal(np_select_devices(&ctx, &m, 0, NULL, false, selected), 0);
	struct np_advise_opts o = { .policy_name = "test", .min_interrupts = NP_FINDINGS_MIN_INTERRUPTS };
	assert_int_equal(np_advise_opts_for(&m, policy, selected, &o), 0);
	assert_int_equal(np_findings_collect(&m, &o, "numaplace advise", &f), 0);
	struct np_cpuset usable = NP_CPUSET_INIT, cpus = NP_CPUSET_INIT;
	assert_int_equal(np_usable_cpus(&m.topo, &o.exclude, &usable), 0);
	int checked = 0;
	for (size_t i = 0; i < f.plan.n; i++) {
		const struct np_rec *r = &f.plan.v[i];
		bool first = r->kind == NP_ATTR_XPS_CPUS;
		for (size_t k = 0; first && k < i; k++)
			first = !(f.plan.v[k].kind == NP_ATTR_XPS_CPUS && !strcmp(f.plan.v[k].net, r->net));
		if (!first)
			continue;
		if (xps_follows_moves(&f, r->net)) {
			(*followed)++;
			checked++;
			continue;
		}
		int *times = calloc((size_t)m.topo.max_cpu + 1, sizeof(int));
		assert_non_null(times);
		for (size_t k = i; k < f.plan.n; k++) {
			const struct np_rec *x = &f.plan.v[k];
			if (x->kind != NP_ATTR_XPS_CPUS || strcmp(x->net, r->net))
				continue;
			assert_int_equal(np_cpuset_parse_list(&cpus, x->recommended), 0);
			np_cpuset_foreach(cpu, &cpus) {
				if (cpu > m.topo.max_cpu || !np_cpuset_test(&usable, (unsigned)cpu))
					fail_msg("%s: %s tx-%d maps CPU %d, not a housekeeping CPU", fixture, x->net, x->queue,
						 cpu);
				times[cpu]++;
			}
		}
		np_cpuset_foreach(cpu, &usable)
			if (times[cpu] != 1)
				fail_msg("%s: %s: CPU %d is in %d transmit queues' xps_cpus, not 1", fixture, r->net, cpu,
					 times[cpu]);
		free(times);
		checked++;
	}
	np_cpuset_free(&usable);
	np_cpuset_free(&cpus);
	np_findings_free(&f);
	np_advise_opts_free(&o);
	free(selected);
	np_machine_free(&m);
	np_ctx_fini(&ctx);
	return checked;
}

/* The findings of fixture under policy, with the IRQ lines' reasons
 * written or not (report: no_irq_reasons). */
static void judge(const char *fixture, enum np_irq_policy policy, bool no_reasons, struct np_ctx *ctx,
		  struct np_machine *m, struct np_advise_opts *o, struct np_findings *f)
{
	char root[256];
	snprintf(root, sizeof(root), "tests/fixtures/%s", fixture);
	assert_int_equal(np_ctx_init(ctx, root), 0);
	if (np_machine_load(ctx, m))
		fail_msg("%s: %s", fixture, ctx->err);
	bool *selected = calloc(m->pci.ndevs + 1, sizeof(bool));
	assert_non_null(selected);
	assert_int_equal(np_select_devices(ctx, m, 0, NULL, false, selected), 0);
	*o = (struct np_advise_opts){ .policy_name = "test", .min_interrupts = NP_FINDINGS_MIN_INTERRUPTS };
	assert_int_equal(np_advise_opts_for(m, policy, selected, o), 0);
	o->no_irq_reasons = no_reasons;
	assert_int_equal(np_findings_collect(m, o, "numaplace advise", f), 0);
	free(selected);
}

static bool same_text(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* Without the IRQ lines' reasons (what report asks), the plan decides the
 * same (every record's value, change and rule) and the problems read the
 * same; only the IRQ lines' reasons are empty. */
static void test_no_irq_reasons_same_plan(void **state)
{
	(void)state;
	static const char *const fixtures[] = { "r715", "smt104", "wide112", "amd16", "rt-igb80", "kube", "vm1",
						"banned", "flat8", "e810" };
	static const enum np_irq_policy policies[] = { NP_IRQS_LOCAL, NP_IRQS_SPREAD };
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++)
		for (size_t k = 0; k < sizeof(policies) / sizeof(policies[0]); k++) {
			struct np_ctx c1, c2;
			struct np_machine m1, m2;
			struct np_advise_opts o1, o2;
			struct np_findings f1, f2;
			judge(fixtures[i], policies[k], false, &c1, &m1, &o1, &f1);
			judge(fixtures[i], policies[k], true, &c2, &m2, &o2, &f2);
			assert_int_equal(f1.plan.n, f2.plan.n);
			size_t irq_lines = 0;
			for (size_t r = 0; r < f1.plan.n; r++) {
				const struct np_rec *a = &f1.plan.v[r], *b = &f2.plan.v[r];
				if (a->kind != b->kind || a->dev != b->dev || a->irq != b->irq || a->queue != b->queue ||
				    a->change != b->change || a->rule != b->rule || a->advice != b->advice ||
				    !same_text(a->current, b->current) || !same_text(a->recommended, b->recommended))
					fail_msg("%s: record %zu differs without reasons", fixtures[i], r);
				if (a->kind == NP_ATTR_IRQ_AFFINITY) {
					assert_string_equal(b->reason, "");
					irq_lines++;
				} else {
					assert_string_equal(a->reason, b->reason);
				}
			}
			assert_true(irq_lines > 0);
			assert_int_equal(f1.n, f2.n);
			for (size_t x = 0; x < f1.n; x++) {
				assert_string_equal(f1.v[x].message, f2.v[x].message);
				assert_true(same_text(f1.v[x].fix, f2.v[x].fix));
				assert_int_equal(f1.v[x].severity, f2.v[x].severity);
				assert_int_equal(f1.v[x].minor, f2.v[x].minor);
				assert_int_equal(f1.v[x].nfixes, f2.v[x].nfixes);
			}
			np_findings_free(&f1);
			np_findings_free(&f2);
			np_advise_opts_free(&o1);
			np_advise_opts_free(&o2);
			np_machine_free(&m1);
			np_machine_free(&m2);
			np_ctx_fini(&c1);
			np_ctx_fini(&c2);
		}
}

static void test_xps_maps_each_housekeeping_cpu_once(void **state)
{
	(void)state;
	int followed = 0;
	/* eth5, 8 queues over 16 CPUs on 4 nodes (two CPUs each); eth4's maps are
	 * the driver's: only its moved queues follow */
	assert_int_equal(xps_one_queue_per_cpu("r715", NP_IRQS_SPREAD, &followed), 2);
	assert_int_equal(followed, 1);
	/* 8 queues, 8 CPUs: one each */
	assert_int_equal(xps_one_queue_per_cpu("flat8", NP_IRQS_LOCAL, &followed), 1);
	/* 16 queues, 16 CPUs, 4 nodes */
	assert_int_equal(xps_one_queue_per_cpu("amd16-cpu0", NP_IRQS_SPREAD, &followed), 1);
	/* isolated CPUs 3 and 11 in no queue */
	assert_true(xps_one_queue_per_cpu("smt-isolated", NP_IRQS_LOCAL, &followed) >= 1);
	xps_one_queue_per_cpu("e810", NP_IRQS_SPREAD, &followed);
	xps_one_queue_per_cpu("nonode", NP_IRQS_LOCAL, &followed);
	xps_one_queue_per_cpu("rt-ice16", NP_IRQS_LOCAL, &followed);
}

/* A ConnectX with the driver's XPS (each queue's map the CPU of its
 * interrupt): the 11 queues whose interrupts move change, to their new CPU,
 * and no other. */
static void test_xps_driver_form_follows_only_moved_queues(void **state)
{
	(void)state;
	int followed = 0;
	assert_int_equal(xps_one_queue_per_cpu("smt104", NP_IRQS_LOCAL, &followed), 1);
	assert_int_equal(followed, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seed004_pinned_on_the_irq_cpu),
		cmocka_unit_test(test_seed004_pinned_off_the_irq_cpu),
		cmocka_unit_test(test_seed004_unpinned),
		cmocka_unit_test(test_forced_irq_threads),
		cmocka_unit_test(test_per_cpu_managed_queues),
		cmocka_unit_test(test_xps_maps_each_housekeeping_cpu_once),
		cmocka_unit_test(test_xps_driver_form_follows_only_moved_queues),
		cmocka_unit_test(test_no_irq_reasons_same_plan),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
