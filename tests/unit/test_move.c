/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A move's transaction (lib/change/move.c, lib/change/thread-affinity.c and the engine) on this
 * test's own threads: their affinity is the only thing it changes, and the
 * state directory is a scratch one. Threads started during the move and
 * after it, a thread gone before the revert, a TID that names another
 * thread now, a thread its application re-pinned, a revert under a root
 * that is another machine, and a failed write that undoes the threads
 * moved before it. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "change/move.h"
#include "change/txn.h"
#include "read/sysfs.h"

#define MAX_HELPERS 4

struct helper {
	pthread_t thread;
	int fds[2];      /* written to end it */
	int tid;
	cpu_set_t start; /* set on itself first, when start_set */
	bool start_set;
	pthread_mutex_t lock;
	pthread_cond_t ready;
	bool up;
};

struct fix {
	struct np_ctx ctx;
	char state[64];
	struct np_txn_opts opts;
	cpu_set_t all;   /* the test's affinity before */
	int ncpus;
	struct helper helpers[MAX_HELPERS];
	int nhelpers;
	struct np_move mv;
};

static void *helper_main(void *arg)
{
	struct helper *h = arg;
	char c;
	if (h->start_set)
		sched_setaffinity(0, sizeof(h->start), &h->start);
	pthread_mutex_lock(&h->lock);
	h->tid = (int)syscall(SYS_gettid);
	h->up = true;
	pthread_cond_signal(&h->ready);
	pthread_mutex_unlock(&h->lock);
	while (read(h->fds[0], &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

static struct helper *start_helper(struct fix *f, const cpu_set_t *start)
{
	struct helper *h = &f->helpers[f->nhelpers++];
	memset(h, 0, sizeof(*h));
	assert_int_equal(pipe(h->fds), 0);
	pthread_mutex_init(&h->lock, NULL);
	pthread_cond_init(&h->ready, NULL);
	if (start) {
		h->start = *start;
		h->start_set = true;
	}
	assert_int_equal(pthread_create(&h->thread, NULL, helper_main, h), 0);
	pthread_mutex_lock(&h->lock);
	while (!h->up)
		pthread_cond_wait(&h->ready, &h->lock);
	pthread_mutex_unlock(&h->lock);
	return h;
}

static void stop_helper(struct helper *h)
{
	if (h->fds[1] < 0)
		return;
	assert_int_equal(write(h->fds[1], "x", 1), 1);
	pthread_join(h->thread, NULL);
	close(h->fds[0]);
	close(h->fds[1]);
	h->fds[1] = -1;
}

static int setup(void **state)
{
	struct fix *f = calloc(1, sizeof(*f));
	assert_non_null(f);
	assert_int_equal(np_ctx_init(&f->ctx, "/"), 0);
	snprintf(f->state, sizeof(f->state), "/tmp/np-move-XXXXXX");
	assert_non_null(mkdtemp(f->state));
	f->opts = (struct np_txn_opts){ .state_dir = f->state, .wait_for_lock = true };
	assert_int_equal(sched_getaffinity(0, sizeof(f->all), &f->all), 0);
	f->ncpus = CPU_COUNT(&f->all);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fix *f = *state;
	for (int i = 0; i < f->nhelpers; i++)
		stop_helper(&f->helpers[i]);
	/* Whatever failed, the test's own thread runs where it did. */
	sched_setaffinity(0, sizeof(f->all), &f->all);
	np_move_free(&f->mv);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->state);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", f->state);
	np_ctx_fini(&f->ctx);
	free(f);
	return 0;
}

/* The last CPU the test may run on: where the move goes. */
static int last_cpu(const struct fix *f)
{
	int last = -1;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &f->all))
			last = c;
	return last;
}

static bool runs_only_on(int tid, int cpu)
{
	cpu_set_t s;
	return sched_getaffinity(tid, sizeof(s), &s) == 0 && CPU_COUNT(&s) == 1 && CPU_ISSET(cpu, &s);
}

static bool runs_on_all(const struct fix *f, int tid)
{
	cpu_set_t s;
	return sched_getaffinity(tid, sizeof(s), &s) == 0 && CPU_EQUAL(&s, &f->all);
}

/* Plans moving this process to its last CPU; false (the test skipped) on a
 * machine with one CPU or where a cgroup owns the test's placement. */
static bool plan(struct fix *f)
{
	struct np_cpuset cpus = NP_CPUSET_INIT, nodes = NP_CPUSET_INIT;
	if (f->ncpus < 2)
		return false;
	assert_int_equal(np_cpuset_set(&cpus, (unsigned)last_cpu(f)), 0);
	assert_int_equal(np_cpuset_set(&nodes, 0), 0);
	int rc = np_move_plan(&f->ctx, getpid(), &cpus, &nodes, false, false, &f->mv);
	np_cpuset_free(&cpus);
	np_cpuset_free(&nodes);
	if (rc == -EPERM)
		return false;
	if (rc)
		fail_msg("plan: %s", f->ctx.err);
	return true;
}

static void apply(struct fix *f, struct np_txn *txn)
{
	f->opts.more = np_move_more;
	f->opts.more_arg = &f->mv;
	if (np_txn_apply(&f->ctx, &f->opts, "move test", f->mv.changes, f->mv.nchanges, txn))
		fail_msg("apply: %s", f->ctx.err);
	f->opts.more = NULL;
}

/* Only CPU 0: where an application pins a thread of its own. */
static cpu_set_t first_cpu(void)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(0, &s);
	return s;
}

/* The newest transaction's state and count of changes, as its journal says. */
static enum np_txn_state newest(struct fix *f, size_t *nchanges)
{
	struct np_txn *all;
	size_t n;
	assert_int_equal(np_txn_list(&f->ctx, &f->opts, &all, &n), 0);
	assert_true(n > 0);
	enum np_txn_state state = all[n - 1].state;
	if (nchanges)
		*nchanges = all[n - 1].nchanges;
	np_txns_free(all, n);
	return state;
}

/* The change a revert added for thread tid (started after the move), or NULL. */
static const struct np_change *added(const struct np_txn *txn, int tid)
{
	for (size_t i = 0; i < txn->nchanges; i++)
		if (txn->changes[i].added && txn->changes[i].target.tid == tid)
			return &txn->changes[i];
	return NULL;
}

static size_t count_gone(const struct np_txn *txn)
{
	size_t n = 0;
	for (size_t i = 0; i < txn->nchanges; i++)
		n += txn->changes[i].gone;
	return n;
}

static void test_move_and_revert(void **state)
{
	struct fix *f = *state;
	struct helper *a = start_helper(f, NULL), *b = start_helper(f, NULL);
	struct np_txn txn, back;
	if (!plan(f))
		skip();
	apply(f, &txn);
	int cpu = last_cpu(f), me = (int)syscall(SYS_gettid);
	assert_true(runs_only_on(me, cpu));
	assert_true(runs_only_on(a->tid, cpu));
	assert_true(runs_only_on(b->tid, cpu));
	assert_true(txn.nchanges >= 3);
	/* The main thread's row is the process's. */
	size_t processes = 0;
	for (size_t i = 0; i < txn.nchanges; i++) {
		const struct np_change *c = &txn.changes[i];
		if (c->attr == NP_ATTR_PROCESS_AFFINITY) {
			processes++;
			assert_int_equal(c->target.pid, getpid());
		} else {
			assert_int_equal(c->attr, NP_ATTR_THREAD_AFFINITY);
			assert_int_not_equal(c->target.tid, getpid());
		}
	}
	assert_int_equal(processes, 1);
	assert_int_equal(np_txn_revert(&f->ctx, &f->opts, txn.id, false, &back), 0);
	assert_int_equal(count_gone(&back), 0);
	assert_true(runs_on_all(f, me));
	assert_true(runs_on_all(f, a->tid));
	assert_true(runs_on_all(f, b->tid));
	np_txn_free(&back);
	np_txn_free(&txn);
}

/* The move's own lister, with a thread started on the old CPUs before its
 * first listing, as one started by a thread not moved yet would be. */
static struct fix *spawning;
static int spawned;
static int spawn_then_list(struct np_ctx *ctx, void *arg, struct np_change **changes, size_t *n)
{
	if (!spawned++)
		start_helper(spawning, &spawning->all);
	return np_move_more(ctx, arg, changes, n);
}

static void test_thread_started_during_the_move(void **state)
{
	struct fix *f = *state;
	struct np_txn txn, back;
	start_helper(f, NULL);
	if (!plan(f))
		skip();
	size_t planned = f->mv.nchanges;
	spawning = f;
	spawned = 0;
	f->opts.more = spawn_then_list;
	f->opts.more_arg = &f->mv;
	if (np_txn_apply(&f->ctx, &f->opts, "move test", f->mv.changes, f->mv.nchanges, &txn))
		fail_msg("apply: %s", f->ctx.err);
	f->opts.more = NULL;
	struct helper *late = &f->helpers[f->nhelpers - 1];
	assert_int_equal(f->nhelpers, 2);
	/* Listed again, moved and journaled in the same transaction. */
	assert_int_equal(txn.nchanges, planned + 1);
	assert_true(runs_only_on(late->tid, last_cpu(f)));
	assert_int_equal(np_txn_revert(&f->ctx, &f->opts, txn.id, false, &back), 0);
	assert_true(runs_on_all(f, late->tid));
	np_txn_free(&back);
	np_txn_free(&txn);
}

static void test_revert_skips_a_thread_gone(void **state)
{
	struct fix *f = *state;
	struct helper *a = start_helper(f, NULL), *b = start_helper(f, NULL);
	struct np_txn txn, back;
	if (!plan(f))
		skip();
	apply(f, &txn);
	int gone_tid = a->tid;
	stop_helper(a);
	assert_int_equal(np_txn_revert(&f->ctx, &f->opts, txn.id, false, &back), 0);
	assert_int_equal(count_gone(&back), 1);
	for (size_t i = 0; i < back.nchanges; i++)
		assert_int_equal(back.changes[i].gone, back.changes[i].target.tid == gone_tid);
	assert_true(runs_on_all(f, b->tid));
	np_txn_free(&back);
	np_txn_free(&txn);
}

/* A journal whose thread has another start time than the thread with its
 * TID now (the TID reused by a newer thread of the process): the journaled
 * one is gone, and the newer one, on the moved CPUs as a thread started
 * after the move would be, is found and restored as one. */
static void test_revert_skips_a_reused_tid(void **state)
{
	struct fix *f = *state;
	struct helper *a = start_helper(f, NULL);
	struct np_txn txn, back;
	if (!plan(f))
		skip();
	apply(f, &txn);
	char path[256], needle[64];
	snprintf(path, sizeof(path), "%s/txn/%s.json", f->state, txn.id);
	FILE *in = fopen(path, "r");
	assert_non_null(in);
	char text[65536];
	size_t len = fread(text, 1, sizeof(text) - 1, in);
	fclose(in);
	text[len] = '\0';
	snprintf(needle, sizeof(needle), "/task/%d@", a->tid);
	char *at = strstr(text, needle);
	assert_non_null(at);
	at += strlen(needle);
	/* One more tick: the same TID, a thread started later. */
	char *end;
	unsigned long long start = strtoull(at, &end, 10);
	char rest[65536];
	snprintf(rest, sizeof(rest), "%s", end);
	snprintf(at, sizeof(text) - (size_t)(at - text), "%llu%s", start + 1, rest);
	FILE *out = fopen(path, "w");
	assert_non_null(out);
	fputs(text, out);
	fclose(out);

	assert_int_equal(np_txn_revert(&f->ctx, &f->opts, txn.id, false, &back), 0);
	assert_int_equal(count_gone(&back), 1);
	const struct np_change *found = added(&back, a->tid);
	assert_non_null(found);
	assert_false(found->gone);
	assert_true(runs_on_all(f, a->tid));
	assert_true(runs_on_all(f, (int)syscall(SYS_gettid)));
	np_txn_free(&back);
	np_txn_free(&txn);
}

/* A thread started after the move takes the moved CPUs from the thread
 * that starts it: the revert finds it and gives it the process's CPUs from
 * before the move; one started pinned elsewhere by its application is
 * left, and said. */
static void test_revert_restores_threads_started_after_the_move(void **state)
{
	struct fix *f = *state;
	struct np_txn txn, back;
	start_helper(f, NULL);
	if (!plan(f))
		skip();
	apply(f, &txn);
	struct helper *late = start_helper(f, NULL);
	cpu_set_t first = first_cpu();
	struct helper *pinned = start_helper(f, &first);
	assert_true(runs_only_on(late->tid, last_cpu(f)));
	assert_int_equal(np_txn_revert(&f->ctx, &f->opts, txn.id, false, &back), 0);
	assert_true(runs_on_all(f, late->tid));
	assert_true(runs_only_on(pinned->tid, 0));
	const struct np_change *l = added(&back, late->tid), *p = added(&back, pinned->tid);
	assert_non_null(l);
	assert_non_null(p);
	assert_false(l->theirs);
	assert_true(p->theirs);
	/* Journaled with the others: the journal says what the revert did. */
	size_t journaled;
	assert_int_equal(newest(f, &journaled), NP_TXN_REVERTED);
	assert_int_equal(journaled, back.nchanges);
	np_txn_free(&back);
	np_txn_free(&txn);
}

/* A thread its application re-pinned since the move is its application's:
 * left where it is and said, never a refusal (it was one: "changed since
 * the transaction, use --force"), and the others restored. */
static void test_revert_leaves_a_thread_repinned_by_its_application(void **state)
{
	struct fix *f = *state;
	struct helper *a = start_helper(f, NULL), *b = start_helper(f, NULL);
	struct np_txn txn, back;
	if (!plan(f))
		skip();
	apply(f, &txn);
	cpu_set_t first = first_cpu();
	assert_int_equal(sched_setaffinity(a->tid, sizeof(first), &first), 0);
	assert_int_equal(np_txn_revert(&f->ctx, &f->opts, txn.id, false, &back), 0);
	assert_true(runs_only_on(a->tid, 0));
	assert_true(runs_on_all(f, b->tid));
	size_t theirs = 0;
	for (size_t i = 0; i < back.nchanges; i++) {
		theirs += back.changes[i].theirs;
		if (back.changes[i].theirs)
			assert_int_equal(back.changes[i].target.tid, a->tid);
	}
	assert_int_equal(theirs, 1);
	np_txn_free(&back);
	np_txn_free(&txn);
}

/* Under a root where the journal's process is not (a copy of another
 * machine, or of this one taken when it was not there), the revert refuses
 * and the transaction stays applied for the machine it was made on. */
static void test_revert_under_another_machines_root_refuses(void **state)
{
	struct fix *f = *state;
	struct np_txn txn, back;
	start_helper(f, NULL);
	if (!plan(f))
		skip();
	apply(f, &txn);
	char root[] = "/tmp/np-move-root-XXXXXX", path[PATH_MAX], *boot = NULL;
	assert_non_null(mkdtemp(root));
	/* The same boot: only the process tells the machines apart. */
	assert_int_equal(np_read_text(&f->ctx, &boot, "/proc/sys/kernel/random/boot_id"), 0);
	snprintf(path, sizeof(path), "mkdir -p '%s/proc/sys/kernel/random' && printf %%s '%s' >'%s/proc/sys/kernel/random/boot_id'",
		 root, boot, root);
	free(boot);
	assert_int_equal(system(path), 0);
	struct np_ctx other;
	assert_int_equal(np_ctx_init(&other, root), 0);
	assert_int_equal(np_txn_revert(&other, &f->opts, txn.id, false, &back), -EXDEV);
	assert_non_null(strstr(other.err, "is not under --root"));
	np_ctx_fini(&other);
	snprintf(path, sizeof(path), "rm -rf '%s'", root);
	assert_int_equal(system(path), 0);
	assert_int_equal(newest(f, NULL), NP_TXN_APPLIED);
	assert_true(runs_only_on((int)syscall(SYS_gettid), last_cpu(f)));
	/* On its own machine it reverts. */
	assert_int_equal(np_txn_revert(&f->ctx, &f->opts, txn.id, false, &back), 0);
	assert_true(runs_on_all(f, (int)syscall(SYS_gettid)));
	np_txn_free(&back);
	np_txn_free(&txn);
}

/* A write the kernel refuses (a CPU the machine does not have) undoes the
 * threads moved before it, and nothing is left applied. */
static void test_refused_write_undoes_the_others(void **state)
{
	struct fix *f = *state;
	struct helper *a = start_helper(f, NULL);
	struct np_txn txn;
	if (!plan(f))
		skip();
	size_t last = f->mv.nchanges - 1;
	free(f->mv.changes[last].new_value);
	f->mv.changes[last].new_value = strdup("4000");
	assert_int_not_equal(np_txn_apply(&f->ctx, &f->opts, "move test", f->mv.changes, f->mv.nchanges, &txn), 0);
	np_txn_free(&txn);
	assert_true(runs_on_all(f, (int)syscall(SYS_gettid)));
	assert_true(runs_on_all(f, a->tid));
	char *pending = NULL;
	assert_int_equal(np_txn_pending(&f->ctx, &f->opts, &pending), 0);
	assert_null(pending);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_move_and_revert, setup, teardown),
		cmocka_unit_test_setup_teardown(test_thread_started_during_the_move, setup, teardown),
		cmocka_unit_test_setup_teardown(test_revert_skips_a_thread_gone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_revert_skips_a_reused_tid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_write_undoes_the_others, setup, teardown),
		cmocka_unit_test_setup_teardown(test_revert_restores_threads_started_after_the_move, setup, teardown),
		cmocka_unit_test_setup_teardown(test_revert_leaves_a_thread_repinned_by_its_application, setup, teardown),
		cmocka_unit_test_setup_teardown(test_revert_under_another_machines_root_refuses, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
