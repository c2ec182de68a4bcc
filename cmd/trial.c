/* SPDX-License-Identifier: GPL-2.0-or-later */
/* numaplace trial: run the user's command with and without a profile, in
 * pairs whose order is drawn from a printed seed, and keep the profile only
 * when the per-pair ratios say it wins (lib/judge/trial-stats). The runner is here;
 * the outcome (statistics, verdict, table and JSON) is trial-report.c's. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <regex.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "change/irqbalance.h"
#include "change/pipeline.h"
#include "change/profile.h"
#include "change/trial-outputs.h"
#include "change/txn.h"
#include "judge/trial-metric.h"
#include "judge/trial-stats.h"
#include "read/machine.h"
#include "read/sysfs.h"
#include "read/task.h"
#include "render/output.h"
#include "trial.h"

#define DEFAULT_PAIRS 10
/* Six pairs are the fewest whose exact signed-rank interval reaches 95%
 * (1 - 2/2^6 = 96.9%). */
#define MIN_PAIRS 6
/* After SIGTERM, the time CMD has to exit before it is killed. */
#define KILL_GRACE 5
/* After SIGKILL, the time CMD's processes have to be gone. */
#define KILL_WAIT 5
/* What --metric's matching of one run's output may take. */
#define METRIC_LIMIT 5
/* --keep-output: the KiB of each run's output kept, by default and at most. */
#define DEFAULT_KEEP_KIB 1024
#define MAX_KEEP_KIB (1024 * 1024)
/* Seeds stay exact in JSON (a double holds integers up to 2^53). */
#define MAX_SEED ((1ULL << 53) - 1)


static int parse_pairs(const struct np_command *cmd, const struct np_option *o, const char *arg, void *field)
{
	char *end;
	errno = 0;
	long v = strtol(arg, &end, 10);
	bool warm = !strcmp(o->name, "warmup");
	long lo = warm ? 0 : MIN_PAIRS, hi = warm ? 100 : NP_TRIAL_MAX_PAIRS;
	if (errno || end == arg || *end || v < lo || v > hi)
		return np_usage_error(cmd, "--%s takes a whole number from %ld to %ld, not '%s'", o->name, lo, hi, arg);
	*(int *)field = (int)v;
	return EXIT_OK;
}

static int parse_keep(const struct np_command *cmd, const struct np_option *o, const char *arg, void *field)
{
	char *end;
	errno = 0;
	long v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < 1 || v > MAX_KEEP_KIB)
		return np_usage_error(cmd, "--%s takes KiB from 1 to %d, not '%s'", o->name, MAX_KEEP_KIB, arg);
	*(int *)field = (int)v;
	return EXIT_OK;
}

static int parse_settle(const struct np_command *cmd, const struct np_option *o, const char *arg, void *field)
{
	char *end;
	errno = 0;
	double v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v >= 0 && v <= 3600))
		return np_usage_error(cmd, "--%s takes seconds from 0 to 3600, not '%s'", o->name, arg);
	*(double *)field = v;
	return EXIT_OK;
}

/* A percentage, "5" or "5%", kept as the log of the ratio it means. */
static int parse_gain(const struct np_command *cmd, const struct np_option *o, const char *arg, void *field)
{
	char *end;
	errno = 0;
	double v = strtod(arg, &end);
	if (*end == '%')
		end++;
	if (errno || end == arg || *end || !(v >= 0 && v < 1000))
		return np_usage_error(cmd, "--%s takes a percentage from 0 to 999, not '%s'", o->name, arg);
	*(double *)field = log1p(v / 100);
	return EXIT_OK;
}

static int parse_seed(const struct np_command *cmd, const struct np_option *o, const char *arg, void *field)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(arg, &end, 10);
	if (errno || end == arg || *end || *arg == '-' || v > MAX_SEED)
		return np_usage_error(cmd, "--%s takes a whole number from 0 to %llu, not '%s'", o->name, MAX_SEED, arg);
	*(struct seed_opt *)field = (struct seed_opt){ true, v };
	return EXIT_OK;
}

const struct np_option trial_options[] = {
	NP_OPT_CALLBACK(0, "runs", struct trial_opts, pairs, int, "N",
			"run CMD N times in each state, in N pairs (default 10, at least 6)", NULL, parse_pairs),
	NP_OPT_STRING(0, "metric", struct trial_opts, metric, "REGEX",
		      "the number in REGEX's first group on CMD's last matching output line\n"
		      "(default: CMD's wall time)", NULL),
	NP_OPT_BOOL(0, "lower-is-better", struct trial_opts, lower, "a lower --metric is better (as a latency)"),
	NP_OPT_CALLBACK(0, "min-gain", struct trial_opts, min_gain, double, "PCT",
			"keep only when the whole interval is above PCT percent (default 0)", NULL, parse_gain),
	NP_OPT_CALLBACK(0, "warmup", struct trial_opts, warmup, int, "N",
			"run CMD N times first, before any switch, and count none of them", NULL, parse_pairs),
	NP_OPT_CALLBACK(0, "keep-output", struct trial_opts, keep_output, int, "KIB",
			"keep the last KIB KiB of each run's output (default 1024)", NULL, parse_keep),
	NP_OPT_CALLBACK(0, "timeout", struct trial_opts, timeout, int, "SECONDS",
			"stop a run of CMD after SECONDS: a failed run", NULL, np_opt_whole_seconds),
	NP_OPT_CALLBACK(0, "settle", struct trial_opts, settle, double, "SECONDS",
			"wait this long after each switch between the states", NULL, parse_settle),
	NP_OPT_CALLBACK(0, "seed", struct trial_opts, seed, struct seed_opt, "SEED",
			"draw the order of the pairs from SEED (a trial prints its own)", NULL, parse_seed),
	NP_OPT_BOOL(0, "keep-going", struct trial_opts, keep_going,
		    "go on when CMD fails (its pair is left out) instead of stopping"),
	NP_OPT_BOOL(0, "require-keep", struct trial_opts, require_keep, "exit 4 when the verdict is not keep"),
	NP_OPT_CALLBACK(0, "profile-dir", struct trial_opts, dirs, struct np_dirlist, "DIR",
			"look for profiles in DIR first (repeatable)", "dir", np_opt_dir),
	NP_OPT_STRING(0, "state-dir", struct trial_opts, state_dir, "DIR",
		      "keep transactions and CMD's output in DIR\n(default /var/lib/numaplace, under --root)",
		      "dir"),
	NP_OPT_CALLBACK(0, "irqbalance", struct trial_opts, irqbalance, enum np_irqb_mode, "MODE",
			"ban the IRQs placed in irqbalance's configuration file while the\n"
			"profile is applied (default if irqbalance runs or is installed), warn, or ignore",
			"irqbalance", np_opt_irqbalance),
	NP_OPT_TABLE(struct trial_opts, table),
	NP_OPT_JSON(struct trial_opts, json, "print JSON: the runs, the medians, the interval and the verdict"),
	NP_OPT_PRETTY(struct trial_opts, pretty),
	NP_OPT_END,
};

/* The signals that end a process by default and can be caught: each
 * returns the machine to its baseline first (SIGKILL and SIGSTOP cannot be
 * caught: a revert undoes what they leave). One that numaplace was started
 * with ignored (nohup) stays ignored. */
static const int stop_signals[] = {
	SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGALRM, SIGTERM, SIGUSR1, SIGUSR2, SIGXCPU, SIGXFSZ,
	SIGVTALRM, SIGPROF, SIGIO, SIGPWR,
#ifdef SIGSTKFLT
	SIGSTKFLT,
#endif
};

static int catch_signals(struct trial *t)
{
	sigemptyset(&t->sigs);
	for (size_t i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++) {
		struct sigaction sa;
		if (sigaction(stop_signals[i], NULL, &sa) == 0 && sa.sa_handler != SIG_IGN)
			sigaddset(&t->sigs, stop_signals[i]);
	}
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++) {
		struct sigaction sa;
		if (sigaction(sig, NULL, &sa) == 0 && sa.sa_handler != SIG_IGN)
			sigaddset(&t->sigs, sig);
	}
	/* CMD's end wakes the wait; ignored, the kernel would reap it unseen. */
	signal(SIGCHLD, SIG_DFL);
	sigaddset(&t->sigs, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &t->sigs, &t->oldmask))
		return np_error("trial: cannot block signals: %s", strerror(errno));
	t->sigfd = signalfd(-1, &t->sigs, SFD_NONBLOCK | SFD_CLOEXEC);
	if (t->sigfd < 0) {
		int err = errno;
		sigprocmask(SIG_SETMASK, &t->oldmask, NULL);
		return np_error("trial: signalfd: %s", strerror(err));
	}
	return EXIT_OK;
}

/* A signal that came after the trial's end is of no trial: it is taken
 * now, as the default would have, once the mask is back. */
static void release_signals(struct trial *t)
{
	if (t->sigfd < 0)
		return;
	close(t->sigfd);
	t->sigfd = -1;
	sigprocmask(SIG_SETMASK, &t->oldmask, NULL);
}

/* Takes the signals that came, without waiting: a terminating one stops
 * the trial; SIGCHLD only wakes a wait. Returns whether it is stopped. */
static bool stopped(struct trial *t)
{
	struct signalfd_siginfo si;
	while (read(t->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if ((int)si.ssi_signo == SIGCHLD)
			continue;
		if (t->stop)
			t->stop_again = true;
		else
			t->stop = (int)si.ssi_signo;
	}
	return t->stop != 0;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Waits until a signal, fd readable (-1: none) or the monotonic time
 * until, whichever comes first. */
static void wait_for(struct trial *t, int fd, double until)
{
	struct pollfd p[2] = { { .fd = t->sigfd, .events = POLLIN }, { .fd = fd, .events = POLLIN } };
	double left = until - now_s();
	int ms = !isfinite(until) ? -1 : left <= 0 ? 0 : left > 3600 ? 3600000 : (int)ceil(left * 1000);
	poll(p, fd >= 0 ? 2 : 1, ms);
}

/* Sleeps seconds unless a signal stops the trial. */
static void settle(struct trial *t, double seconds)
{
	double until = now_s() + seconds;
	while (!stopped(t) && now_s() < until)
		wait_for(t, -1, until);
}

/* The output a run keeps: its last cap bytes, in a buffer that grows to
 * cap and then turns into a ring whose oldest byte is at head. */
struct tail {
	char *buf;
	size_t cap, size, len, head;
	unsigned long long total;
	bool failed;
};

static void tail_add(struct tail *tl, const char *p, size_t n)
{
	tl->total += n;
	if (tl->failed)
		return;
	if (n > tl->cap) {
		p += n - tl->cap;
		n = tl->cap;
		tl->len = tl->head = 0;
	}
	if (tl->len < tl->cap && tl->len + n + 1 > tl->size) {
		size_t want = tl->size * 2 > tl->len + n + 1 ? tl->size * 2 : tl->len + n + 1;
		want = want > tl->cap + 1 ? tl->cap + 1 : want;
		char *more = realloc(tl->buf, want);
		if (!more) {
			tl->failed = true;
			return;
		}
		tl->buf = more;
		tl->size = want;
	}
	while (n) {
		size_t k;
		if (tl->len < tl->cap) {
			k = n < tl->cap - tl->len ? n : tl->cap - tl->len;
			memcpy(tl->buf + tl->len, p, k);
			tl->len += k;
		} else {
			k = n < tl->cap - tl->head ? n : tl->cap - tl->head;
			memcpy(tl->buf + tl->head, p, k);
			tl->head = (tl->head + k) % tl->cap;
		}
		p += k;
		n -= k;
	}
}

/* The kept bytes in order, with room for a NUL after them, into r. */
static int tail_take(struct tail *tl, struct run *r)
{
	r->bytes = tl->total;
	if (tl->failed) {
		free(tl->buf);
		return -ENOMEM;
	}
	if (!tl->buf && !(tl->buf = malloc(1))) /* nothing written */
		return -ENOMEM;
	if (tl->head) {
		char *line = malloc(tl->cap + 1);
		if (!line) {
			free(tl->buf);
			return -ENOMEM;
		}
		memcpy(line, tl->buf + tl->head, tl->cap - tl->head);
		memcpy(line + tl->cap - tl->head, tl->buf, tl->head);
		free(tl->buf);
		tl->buf = line;
	}
	r->kept = tl->buf;
	r->nkept = tl->len;
	tl->buf = NULL;
	return 0;
}

/* Reads what the pipe *fd holds now into tl; at its end (or an error)
 * closes it and sets *fd to -1. */
static void drain(int *fd, struct tail *tl)
{
	char buf[65536];
	while (*fd >= 0) {
		ssize_t n = read(*fd, buf, sizeof(buf));
		if (n > 0)
			tail_add(tl, buf, (size_t)n);
		else if (n < 0 && errno == EAGAIN)
			return;
		else if (n == 0 || errno != EINTR) {
			close(*fd);
			*fd = -1;
		}
	}
}

/* Sends sig to CMD's process group and to every process below the trial
 * that is not numaplace's own: the trial is their subreaper, so what CMD
 * started and left, in a session of its own (setsid) or not, is below it.
 * Returns how many processes were below. */
static size_t signal_tree(struct trial *t, pid_t pgid, int sig)
{
	int *pids = NULL;
	size_t n = 0, count = 0;
	if (pgid > 0)
		kill(-pgid, sig);
	if (np_descendants(&t->live, getpid(), &pids, &n))
		return 0; /* no /proc: the group is all it can reach */
	for (size_t i = 0; i < n; i++) {
		bool own = false;
		for (size_t j = 0; j < t->nown && !own; j++)
			own = pids[i] == t->own[j];
		if (!own) {
			kill(pids[i], sig);
			count++;
		}
	}
	free(pids);
	return count;
}

/* Collects the children that ended: CMD's status into *st once it has. */
static void reap(pid_t cmd, int *st, bool *exited)
{
	int s;
	pid_t p;
	while ((p = waitpid(-1, &s, WNOHANG)) > 0)
		if (p == cmd) {
			*st = s;
			*exited = true;
		}
}

/* After CMD: whatever it left is killed, until nothing is left (or a
 * process that does not die, as one stuck in the kernel, outlasts
 * KILL_WAIT: said). */
static void end_tree(struct trial *t, pid_t pgid)
{
	double until = now_s() + KILL_WAIT;
	int st;
	bool exited;
	for (;;) {
		size_t left = signal_tree(t, pgid, SIGKILL);
		reap(pgid, &st, &exited);
		if (!left)
			return;
		if (now_s() > until) {
			np_notef("trial: WARNING: %zu process%s that '%s' started did not end %d s after SIGKILL\n", left,
				 left == 1 ? "" : "es", t->cmd[0], KILL_WAIT);
			return;
		}
		wait_for(t, -1, now_s() + 0.02);
	}
}

/* Runs CMD once, its output kept in r. Returns 0, or -errno when it
 * could not start (ctx->err). */
static int run_cmd(struct trial *t, struct run *r)
{
	if (snprintf(r->output, sizeof(r->output), "%s/%03zu-%s%s.out", t->dir, r->number, trial_arm_names[r->arm],
		     r->warmup ? "-warmup" : "") >= (int)sizeof(r->output))
		return np_fail(t->ctx, -ENAMETOOLONG, "%s: %s", t->dir, strerror(ENAMETOOLONG));
	int out[2];
	if (pipe2(out, O_CLOEXEC))
		return np_fail(t->ctx, -errno, "cannot start '%s': pipe: %s", t->cmd[0], strerror(errno));
	fflush(stdout);
	fflush(stderr);
	double start = now_s();
	pid_t pid = fork();
	if (pid < 0) {
		int err = errno;
		close(out[0]);
		close(out[1]);
		return np_fail(t->ctx, -err, "cannot start '%s': %s", t->cmd[0], strerror(err));
	}
	if (pid == 0) {
		/* Its own process group, so that a stop reaches whatever it started. */
		setpgid(0, 0);
		sigprocmask(SIG_SETMASK, &t->oldmask, NULL);
		int null = open("/dev/null", O_RDONLY);
		if (null >= 0)
			dup2(null, STDIN_FILENO);
		dup2(out[1], STDOUT_FILENO);
		dup2(out[1], STDERR_FILENO);
		execvp(t->cmd[0], t->cmd);
		dprintf(STDERR_FILENO, "numaplace: trial: cannot run '%s': %s\n", t->cmd[0], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	setpgid(pid, pid);
	close(out[1]);
	fcntl(out[0], F_SETFL, O_NONBLOCK);
	struct tail tl = { .cap = (size_t)t->o->keep_output * 1024 };
	double deadline = t->o->timeout ? start + t->o->timeout : INFINITY, kill_at = INFINITY;
	bool exited = false, stopping = false, killed = false, timed_out = false;
	int st = 0, fd = out[0];
	while (!exited) {
		wait_for(t, fd, kill_at < deadline ? kill_at : deadline);
		drain(&fd, &tl);
		/* The SIGCHLD taken before the reap: one that comes after it
		 * wakes the next wait. */
		bool stop = stopped(t);
		reap(pid, &st, &exited);
		if (!stopping && (stop || now_s() >= deadline)) {
			timed_out = !stop;
			signal_tree(t, pid, SIGTERM);
			stopping = true;
			kill_at = now_s() + KILL_GRACE;
			deadline = INFINITY; /* passed: the grace is what is waited for now */
		}
		if (stopping && !killed && (t->stop_again || now_s() >= kill_at)) {
			signal_tree(t, pid, SIGKILL);
			killed = true;
			kill_at = INFINITY;
		}
	}
	r->seconds = now_s() - start;
	/* Whatever it left running goes with it; then the pipe has no writer. */
	end_tree(t, pid);
	drain(&fd, &tl);
	if (fd >= 0) /* held open by a process that escaped: what it writes is lost */
		close(fd);
	r->done = true;
	r->timed_out = timed_out;
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	r->value = NAN;
	if (tail_take(&tl, r))
		return np_fail(t->ctx, -ENOMEM, "the output of run %zu: %s", r->number, strerror(ENOMEM));
	return 0;
}

/* The machine with the profile: one transaction, read back. Before every
 * profile run, and not only at the switch: irqbalance or a driver may have
 * undone a value since, and the apply writes only what differs. */
static int to_profile(struct trial *t, size_t number)
{
	char cause[96];
	snprintf(cause, sizeof(cause), "trial %s: profile before run %zu", t->id, number);
	struct np_txn_opts opts = t->topts;
	opts.cause = cause;
	/* Once applied, only the placements are checked: the irqbalance ban
	 * (last) is a file nobody else undoes, and its change is made from the
	 * text before the ban. */
	size_t n = t->state == ARM_PROFILE ? t->pipeline->nplaced : NP_PIPELINE_ALL;
	if (np_pipeline_write(t->ctx, t->pipeline, &opts, t->profile_name, n))
		return np_error("trial: applying %s: %s; the trial stops", t->profile_name, t->ctx->err);
	const struct np_txn *txn = &t->pipeline->txn;
	int rc = EXIT_OK;
	if (txn->nchanges) {
		char **more = realloc(t->applied, (t->napplied + 1) * sizeof(*more));
		if (!more || !(more[t->napplied] = strdup(txn->id))) {
			t->applied = more ? more : t->applied;
			rc = np_error("%s", strerror(ENOMEM));
		} else {
			t->applied = more;
			t->napplied++;
			if (t->state == ARM_PROFILE) {
				t->reapplied++;
				np_notef("trial: before run %zu, %zu value%s had drifted from the profile: re-applied "
					 "(transaction %s)\n", number, txn->nchanges, txn->nchanges == 1 ? "" : "s", txn->id);
			}
		}
	}
	t->state = ARM_PROFILE;
	return rc;
}

static void save_outputs(struct trial *t);

/* The machine as it was: the trial's transactions reverted, newest first;
 * then the outputs held meanwhile are written. force: a value someone
 * changed while the profile was applied is put back too, since the
 * baseline is what the trial promised. */
static int to_baseline(struct trial *t)
{
	int rc = EXIT_OK;
	while (t->napplied) {
		struct np_txn txn;
		char *id = t->applied[t->napplied - 1];
		int err = np_txn_revert(t->ctx, &t->topts, id, true, &txn);
		if (err == -ENOSPC || err == -EDQUOT) {
			rc = np_error("trial: reverting transaction %s: %s; the state directory's filesystem is full: "
				      "make room (this trial's outputs are in %s, older trials' beside it in trials/: "
				      "'numaplace history --prune' removes those) and undo it with 'numaplace revert %s'",
				      id, t->ctx->err, t->dir, id);
			break;
		}
		if (err) {
			rc = np_error("trial: reverting transaction %s: %s; undo it with 'numaplace revert %s'", id,
				      t->ctx->err, id);
			break;
		}
		np_txn_free(&txn);
		free(id);
		t->napplied--;
	}
	if (rc == EXIT_OK) {
		t->state = ARM_BASELINE;
		save_outputs(t);
	}
	t->restore_failed = rc != EXIT_OK;
	return rc;
}

/* Writes what r kept into its file (called with the machine at its
 * baseline: a full filesystem cannot stop a restore then, there being none
 * to make). A file that cannot be written whole is removed, so that the
 * room it took is the journals' again, and the run goes on without it. */
static void save_output(struct trial *t, struct run *r)
{
	char head[160];
	int len = 0;
	if (r->bytes > r->nkept)
		len = snprintf(head, sizeof(head), "numaplace trial: the first %llu bytes of this run's output are left "
			       "out (--keep-output %d KiB)\n", r->bytes - r->nkept, t->o->keep_output);
	const char *name = strrchr(r->output, '/') + 1;
	int fd = openat(t->dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	int rc = fd < 0 ? -errno : 0;
	if (!rc)
		rc = np_write_all(fd, head, (size_t)len);
	if (!rc)
		rc = np_write_all(fd, r->kept, r->nkept);
	if (fd >= 0 && close(fd) && !rc)
		rc = -errno;
	if (rc && fd >= 0)
		unlinkat(t->dirfd, name, 0);
	if (rc)
		np_notef("trial: WARNING: the output of run %zu was not saved in %s: %s\n", r->number, r->output,
			 strerror(-rc));
	r->saved = !rc;
	free(r->kept);
	r->kept = NULL;
}

/* Writes the outputs held (the machine is at its baseline now). */
static void save_outputs(struct trial *t)
{
	for (size_t i = 0; i < t->nruns; i++)
		if (t->runs[i].kept)
			save_output(t, &t->runs[i]);
}

/* What the matcher hands back: whether a line matched, and its group. */
struct match {
	char found;
	char text[127];
};

/* The metric of r's output, matched in a child process that has
 * METRIC_LIMIT seconds: glibc's matcher can take time that grows as a
 * power of a line's length (or exponentially, with back-references, which
 * --metric refuses), and nothing else stops it. 0 with *value, or -1 with
 * why (or with t->stop set, no why: a signal came first). */
static int match_metric(struct trial *t, struct run *r, double *value, char *why, size_t whylen)
{
	struct match m = { 0 };
	int p[2];
	if (pipe2(p, O_CLOEXEC)) {
		snprintf(why, whylen, "cannot match --metric: pipe: %s", strerror(errno));
		return -1;
	}
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(why, whylen, "cannot match --metric: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		close(p[0]);
		m.found = np_trial_metric_last(&t->re, r->kept, r->nkept, r->bytes > r->nkept, m.text, sizeof(m.text));
		_exit(write(p[1], &m, sizeof(m)) == (ssize_t)sizeof(m) ? 0 : 1);
	}
	close(p[1]);
	double until = now_s() + METRIC_LIMIT;
	ssize_t got = -1;
	while (got < 0 && !stopped(t) && now_s() < until) {
		wait_for(t, p[0], until);
		struct pollfd pf = { .fd = p[0], .events = POLLIN };
		if (poll(&pf, 1, 0) == 1)
			got = read(p[0], &m, sizeof(m));
	}
	close(p[0]);
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	if (t->stop)
		return -1;
	if (got < 0) {
		snprintf(why, whylen, "--metric took more than %d s to match the %zu bytes of output kept: an expression "
			 "whose matching backtracks? (%s)", METRIC_LIMIT, r->nkept, r->output);
		return -1;
	}
	if (got != (ssize_t)sizeof(m) || !m.found) {
		snprintf(why, whylen, "no line of its output matches --metric (%s)", r->output);
		return -1;
	}
	m.text[sizeof(m.text) - 1] = '\0';
	char *end;
	errno = 0;
	double v = strtod(m.text, &end);
	if (errno || end == m.text || *end || !isfinite(v) || v <= 0) {
		snprintf(why, whylen, "--metric captured '%s', not a positive number (%s)", m.text, r->output);
		return -1;
	}
	*value = v;
	return 0;
}

/* A run's value, or why it has none (printed as the trial's error). */
static bool run_value(struct trial *t, struct run *r, char *why, size_t whylen)
{
	if (r->timed_out) {
		snprintf(why, whylen, "run %zu (%s) took more than --timeout %d s: stopped", r->number,
			 trial_arm_names[r->arm], t->o->timeout);
		return false;
	}
	if (r->status) {
		snprintf(why, whylen, "run %zu (%s): '%s' exited with status %d (its output: %s)", r->number,
			 trial_arm_names[r->arm], t->cmd[0], r->status, r->output);
		return false;
	}
	if (!t->has_re) {
		r->value = r->seconds;
		return true;
	}
	char detail[2 * PATH_MAX];
	detail[0] = '\0';
	if (match_metric(t, r, &r->value, detail, sizeof(detail))) {
		snprintf(why, whylen, "run %zu (%s): %s", r->number, trial_arm_names[r->arm], detail);
		return false;
	}
	return true;
}

static void progress(const struct trial *t, const struct run *r, size_t counted)
{
	if (!t->progress)
		return;
	char val[32] = "no value";
	if (r->ok)
		snprintf(val, sizeof(val), "%.6g", r->value);
	if (r->warmup)
		fprintf(stderr, "trial: warm-up %zu of %d: %s\n", r->number, t->o->warmup, val);
	else
		fprintf(stderr, "trial: run %zu of %d (%s): %s; medians baseline %.6g, profile %.6g\n", counted,
			2 * t->o->pairs, trial_arm_names[r->arm], val, trial_arm_median(t, ARM_BASELINE), trial_arm_median(t, ARM_PROFILE));
}

/* The order of the runs: warm-ups at the baseline, then each pair in the
 * order the seed draws. */
static int plan(struct trial *t)
{
	size_t pairs = (size_t)t->o->pairs, warm = (size_t)t->o->warmup;
	bool *first = calloc(pairs, sizeof(*first));
	t->nruns = warm + 2 * pairs;
	t->runs = calloc(t->nruns, sizeof(*t->runs));
	if (!first || !t->runs) {
		free(first);
		return np_error("%s", strerror(ENOMEM));
	}
	np_trial_order(t->seed, pairs, first);
	for (size_t i = 0; i < t->nruns; i++) {
		struct run *r = &t->runs[i];
		r->number = i + 1;
		r->value = NAN;
		if (i < warm) {
			r->warmup = true;
			r->arm = ARM_BASELINE;
			continue;
		}
		size_t k = i - warm;
		r->pair = k / 2;
		bool profile_first = first[r->pair];
		r->arm = (k % 2 == 0) == profile_first ? ARM_PROFILE : ARM_BASELINE;
	}
	free(first);
	return EXIT_OK;
}

/* Runs the plan. Returns an exit status; the machine may be in either
 * state: the caller returns it to the baseline. */
static int execute(struct trial *t)
{
	size_t counted = 0;
	for (size_t i = 0; i < t->nruns && !stopped(t); i++) {
		struct run *r = &t->runs[i];
		int rc = EXIT_OK;
		bool switched = r->arm != t->state;
		if (r->arm == ARM_BASELINE && switched)
			rc = to_baseline(t);
		else if (r->arm == ARM_PROFILE && switched)
			rc = to_profile(t, r->number);
		if (rc != EXIT_OK)
			return rc;
		if (switched && t->o->settle > 0)
			settle(t, t->o->settle);
		/* Checked again after the settling too: a driver may undo a
		 * value as it reacts to the switch. */
		if (r->arm == ARM_PROFILE && (rc = to_profile(t, r->number)) != EXIT_OK)
			return rc;
		if (stopped(t))
			break;
		/* Never while a transaction is half applied, ours or anyone's. */
		char *pending = NULL;
		if (np_txn_pending(t->ctx, &t->topts, &pending))
			return np_error("%s", t->ctx->err);
		if (pending) {
			rc = np_error("trial: transaction %s is unfinished (another numaplace, or a crash): the trial "
				      "stops; run 'numaplace revert %s'", pending, pending);
			free(pending);
			return rc;
		}
		if (run_cmd(t, r))
			return np_error("trial: %s", t->ctx->err);
		char why[3 * PATH_MAX];
		r->ok = !t->stop && run_value(t, r, why, sizeof(why));
		if (t->stop) {
			r->done = r->ok = false; /* cut short: no run of the trial */
			break;
		}
		if (t->state == ARM_BASELINE)
			save_outputs(t);
		counted += !r->warmup;
		progress(t, r, counted);
		if (!r->ok && !t->o->keep_going)
			return np_error("trial: %s; the trial stops (--keep-going leaves the pair out instead)", why);
		if (!r->ok)
			np_notef("trial: warning: %s: its pair is left out\n", why);
	}
	return EXIT_OK;
}

/* How many of the changes would write: a profile the machine already
 * matches leaves nothing to compare. */
static int count_differing(struct trial *t, size_t *n)
{
	*n = 0;
	for (size_t i = 0; i < t->pipeline->res.n; i++) {
		const struct np_change *c = &t->pipeline->res.changes[i];
		int m = np_value_matches(t->ctx, c->path, np_attrs[c->attr].value, c->new_value);
		if (m < 0)
			return np_error("%s", t->ctx->err);
		*n += m == 0;
	}
	return EXIT_OK;
}

/* Whether CMD can be run, as execvp would find it: a trial whose every run
 * would fail is refused before it changes anything. */
static bool runnable(const char *cmd)
{
	if (strchr(cmd, '/'))
		return access(cmd, X_OK) == 0;
	const char *path = getenv("PATH");
	char buf[PATH_MAX];
	for (const char *p = path && *path ? path : "/usr/local/bin:/usr/bin:/bin"; *p;) {
		size_t len = strcspn(p, ":");
		if (snprintf(buf, sizeof(buf), "%.*s/%s", (int)len, len ? p : ".", cmd) < (int)sizeof(buf) &&
		    access(buf, X_OK) == 0)
			return true;
		p += len + (p[len] == ':');
	}
	return false;
}

static int prepare(struct trial *t)
{
	char *pending = NULL;
	size_t differing;
	int rc;
	if (!runnable(t->cmd[0]))
		return np_error("cannot run '%s': not an executable file%s", t->cmd[0],
				strchr(t->cmd[0], '/') ? "" : " in PATH");
	if (np_txn_pending(t->ctx, &t->topts, &pending))
		return np_error("%s", t->ctx->err);
	if (pending) {
		rc = np_error("transaction %s is unfinished (a crash, or another numaplace): run 'numaplace revert "
			      "%s' before a trial", pending, pending);
		free(pending);
		return rc;
	}
	if ((rc = count_differing(t, &differing)) != EXIT_OK)
		return rc;
	if (!differing)
		return np_error("the machine already matches %s: no baseline to compare it with; revert it "
				"('numaplace revert') and try again", t->profile_name);
	if (t->o->seed.set) {
		t->seed = t->o->seed.value;
	} else {
		uint64_t s;
		if (getrandom(&s, sizeof(s), 0) != sizeof(s))
			s = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
		t->seed = s & 0xffffffffu; /* short enough to type */
	}
	struct tm tm;
	time_t now = time(NULL);
	localtime_r(&now, &tm);
	snprintf(t->id, sizeof(t->id), "%04d%02d%02d-%02d%02d%02d-%d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
		 tm.tm_hour, tm.tm_min, tm.tm_sec, (int)getpid());
	if (np_trial_dir_create(t->ctx, t->o->state_dir, t->id, t->dir, &t->dirfd))
		return np_error("%s", t->ctx->err);
	return plan(t);
}

/* A trial leaves a journal per switch to the profile and its outputs: the
 * old ones go as apply's journals do (history --prune), and a failure to
 * prune is only a warning. */
static void prune(struct trial *t)
{
	struct np_txn_opts opts = t->topts;
	char **ids;
	size_t n;
	opts.wait_for_lock = false;
	int rc = np_txn_prune(t->ctx, &opts, NP_TXN_KEEP, &ids, &n);
	if (rc == -EBUSY || rc == -EWOULDBLOCK)
		return;
	if (rc) {
		np_notef("trial: WARNING: old transactions were not pruned: %s\n", t->ctx->err);
		return;
	}
	for (size_t i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
	if (np_trial_dirs_prune(t->ctx, t->o->state_dir, NP_TXN_KEEP, &ids, &n)) {
		np_notef("trial: WARNING: the outputs of old trials were not pruned: %s\n", t->ctx->err);
		return;
	}
	for (size_t i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
}

/* CMD's processes for the trial to end: it becomes their subreaper, so
 * that what they leave behind comes to it, and it knows its own children
 * from before (an archive root's remover) to leave those. */
static int adopt(struct trial *t)
{
	if (np_ctx_init(&t->live, ""))
		return np_error("%s", strerror(ENOMEM));
	if (np_descendants(&t->live, getpid(), &t->own, &t->nown))
		return np_error("trial: %s", t->live.err);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0))
		return np_error("trial: cannot become the subreaper of CMD's processes: %s", strerror(errno));
	return EXIT_OK;
}

static int trial_run(struct trial *t)
{
	int rc = prepare(t);
	if (rc != EXIT_OK)
		return rc;
	if ((rc = adopt(t)) != EXIT_OK || (rc = catch_signals(t)) != EXIT_OK)
		return rc;
	/* Told before it starts, so a trial stopped halfway can be repeated. */
	if (!t->o->json)
		printf("trial %s: %s, %d pairs (%zu runs), seed %llu (--seed %llu repeats the order); outputs in %s\n",
		       t->id, t->profile_name, t->o->pairs, t->nruns, (unsigned long long)t->seed,
		       (unsigned long long)t->seed, t->dir);
	fflush(stdout);
	rc = execute(t);
	/* Once more unless that is what just failed (said already). */
	int back = t->restore_failed ? rc : to_baseline(t);
	prune(t);
	if (back != EXIT_OK) {
		rc = back;
	} else if (stopped(t)) {
		rc = np_error("trial: %s: CMD stopped; the machine is back to its baseline (outputs in %s)",
			      strsignal(t->stop), t->dir);
	} else if (rc != EXIT_OK) {
		np_notef("trial: the machine is back to its baseline (outputs in %s)\n", t->dir);
	} else {
		rc = trial_conclude(t);
	}
	release_signals(t);
	prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
	return rc;
}

int cmd_trial(int argc, char **argv, struct np_ctx *ctx)
{
	const struct np_command *self = np_command_find("trial");
	/* CMD follows "--", and its options are its own: only what is before
	 * is parsed. */
	int dashdash = 1;
	while (dashdash < argc && strcmp(argv[dashdash], "--"))
		dashdash++;
	struct trial_opts o = { .pairs = DEFAULT_PAIRS, .keep_output = DEFAULT_KEEP_KIB };
	int first, rc = np_parse_options(self, dashdash, argv, &o, &first);
	/* -o help, or a column that does not exist, before the runs and not after. */
	if (rc == NP_CONTINUE && o.table.columns) {
		struct np_table tb;
		int r = np_table_init(&tb, self, trial_run_columns, TRIAL_RUN_DEFAULTS, &o.table, o.json, NULL);
		if (r != NP_CONTINUE) {
			np_dirs_free(&o.dirs);
			return r;
		}
		np_table_free(&tb);
	}
	if (rc == NP_CONTINUE && dashdash == argc && argc - first > 1)
		rc = np_usage_error(self, "CMD goes after '--': numaplace trial PROFILE -- CMD ARGS...");
	else if (rc == NP_CONTINUE && dashdash - first != 1)
		rc = np_usage_error(self, "expected one PROFILE (a name or a file) before '--'");
	else if (rc == NP_CONTINUE && dashdash + 1 >= argc)
		rc = np_usage_error(self, "no command to run (numaplace trial PROFILE -- CMD ARGS...)");
	struct trial t = { .ctx = ctx, .self = self, .o = &o, .cmd = argv + dashdash + 1, .state = ARM_BASELINE,
			   .dirfd = -1, .sigfd = -1, .live = { .rootfd = -1 } };
	long backref = o.metric ? np_trial_metric_backref(o.metric) : -1;
	if (rc == NP_CONTINUE && backref >= 0) {
		rc = np_usage_error(self, "--metric '%s': it refers back to group %c (a back-reference), whose matching can "
				    "take longer than the trial: write the expression without it", o.metric,
				    o.metric[backref + 1]);
	} else if (rc == NP_CONTINUE && o.metric) {
		int err = regcomp(&t.re, o.metric, REG_EXTENDED);
		if (err) {
			char msg[256];
			regerror(err, &t.re, msg, sizeof(msg));
			rc = np_usage_error(self, "--metric '%s': %s", o.metric, msg);
		} else {
			t.has_re = true;
			if (t.re.re_nsub < 1)
				rc = np_usage_error(self, "--metric '%s' has no group: put the number in ( )", o.metric);
		}
	}
	if (rc != NP_CONTINUE) {
		if (t.has_re)
			regfree(&t.re);
		np_dirs_free(&o.dirs);
		return rc;
	}
	/* Time: lower is better. */
	if (!o.metric)
		o.lower = true;
	t.topts = (struct np_txn_opts){ .state_dir = o.state_dir, .wait_for_lock = true };
	t.progress = isatty(STDERR_FILENO);

	struct np_machine m;
	struct np_profile prof;
	struct np_pipeline p = { 0 };
	rc = np_load_resolved(ctx, self, &o.dirs, argv[first], &m, &prof, &p.res);
	if (rc != EXIT_OK) {
		if (t.has_re)
			regfree(&t.re);
		return rc;
	}
	p.prof = &prof;
	if (np_pipeline_decide(ctx, &p, NULL, 0, m.irqbalance, o.irqbalance)) {
		rc = np_error("%s", ctx->err);
	} else {
		if (p.ban.note[0])
			np_notef("trial: %s\n", p.ban.note);
		if (p.ban.warn)
			np_notef("trial: WARNING: irqbalance may move the profile's IRQs during the trial; each "
				 "profile run re-applies them (--irqbalance=ban keeps it from moving them)\n");
		if (np_pipeline_join(&p)) {
			rc = np_error("%s", strerror(ENOMEM));
		} else {
			t.profile_name = prof.name;
			t.pipeline = &p;
			rc = trial_run(&t);
		}
	}
	for (size_t i = 0; i < t.napplied; i++)
		free(t.applied[i]);
	free(t.applied);
	for (size_t i = 0; i < t.nruns; i++)
		free(t.runs[i].kept);
	free(t.runs);
	free(t.own);
	if (t.dirfd >= 0)
		close(t.dirfd);
	np_ctx_fini(&t.live);
	if (t.has_re)
		regfree(&t.re);
	np_pipeline_free(&p);
	np_profile_free(&prof);
	np_machine_free(&m);
	return rc;
}
