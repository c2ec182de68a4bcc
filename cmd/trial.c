/* SPDX-License-Identifier: GPL-2.0-or-later */
/* numaplace trial: run the user's command with and without a profile, in
 * pairs whose order is drawn from a printed seed, and keep the profile only
 * when the per-pair ratios say it wins (lib/judge/trial-stats). The runner is here;
 * the outcome (statistics, verdict, table and JSON) is trial-report.c's. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "change/irqbalance.h"
#include "read/machine.h"
#include "change/profile.h"
#include "change/pipeline.h"
#include "read/sysfs.h"
#include "judge/trial-stats.h"
#include "change/txn.h"
#include "render/output.h"
#include "trial.h"

#define DEFAULT_PAIRS 10
/* Six pairs are the fewest whose exact signed-rank interval reaches 95%
 * (1 - 2/2^6 = 96.9%). */
#define MIN_PAIRS 6
/* After SIGTERM, the time CMD has to exit before it is killed. */
#define KILL_GRACE 5
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

/* What a signal handler may touch. */
static volatile sig_atomic_t stop_signal, timed_out, term_sent, child_pgid;

static void on_signal(int sig)
{
	if (sig == SIGALRM) {
		if (term_sent) {
			if (child_pgid > 0)
				kill(-child_pgid, SIGKILL);
			return;
		}
		timed_out = 1;
	} else {
		stop_signal = sig;
	}
	if (child_pgid > 0 && !term_sent) {
		kill(-child_pgid, SIGTERM);
		term_sent = 1;
		alarm(KILL_GRACE);
	}
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Sleeps seconds unless a signal stops the trial. */
static void settle(double seconds)
{
	double until = now_s() + seconds;
	while (!stop_signal) {
		double left = until - now_s();
		if (left <= 0)
			return;
		struct timespec ts = { (time_t)left, (long)((left - floor(left)) * 1e9) };
		nanosleep(&ts, NULL);
	}
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

/* The machine as it was: the trial's transactions reverted, newest first.
 * force: a value someone changed while the profile was applied is put back
 * too, since the baseline is what the trial promised. */
static int to_baseline(struct trial *t)
{
	int rc = EXIT_OK;
	while (t->napplied) {
		struct np_txn txn;
		char *id = t->applied[t->napplied - 1];
		if (np_txn_revert(t->ctx, &t->topts, id, true, &txn)) {
			rc = np_error("trial: reverting transaction %s: %s; undo it with 'numaplace revert %s'", id,
				      t->ctx->err, id);
			break;
		}
		np_txn_free(&txn);
		free(id);
		t->napplied--;
	}
	if (rc == EXIT_OK)
		t->state = ARM_BASELINE;
	return rc;
}

/* The value of the last line of out that matches the metric. */
static int read_metric(struct trial *t, const char *path, double *value, char *why, size_t whylen)
{
	FILE *f = fopen(path, "re");
	if (!f) {
		snprintf(why, whylen, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	char *line = NULL, last[128] = "";
	size_t cap = 0;
	ssize_t len;
	bool found = false;
	while ((len = getline(&line, &cap, f)) >= 0) {
		if (len && line[len - 1] == '\n')
			line[len - 1] = '\0';
		regmatch_t m[2];
		if (regexec(&t->re, line, 2, m, 0) || m[1].rm_so < 0)
			continue;
		found = true;
		snprintf(last, sizeof(last), "%.*s", (int)(m[1].rm_eo - m[1].rm_so), line + m[1].rm_so);
	}
	free(line);
	fclose(f);
	if (!found) {
		snprintf(why, whylen, "no line of its output matches --metric (%s)", path);
		return -1;
	}
	char *end;
	errno = 0;
	double v = strtod(last, &end);
	if (errno || end == last || *end || !isfinite(v) || v <= 0) {
		snprintf(why, whylen, "--metric captured '%s', not a positive number (%s)", last, path);
		return -1;
	}
	*value = v;
	return 0;
}

/* Runs CMD once, its output in r->output. Returns 0, or -errno when it
 * could not start (ctx->err). */
static int run_cmd(struct trial *t, struct run *r)
{
	if (snprintf(r->output, sizeof(r->output), "%s/%03zu-%s%s.out", t->dir, r->number, trial_arm_names[r->arm],
		     r->warmup ? "-warmup" : "") >= (int)sizeof(r->output))
		return np_fail(t->ctx, -ENAMETOOLONG, "%s: %s", t->dir, strerror(ENAMETOOLONG));
	int out = open(r->output, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (out < 0)
		return np_fail(t->ctx, -errno, "cannot create %s: %s", r->output, strerror(errno));
	fflush(stdout);
	fflush(stderr);
	term_sent = timed_out = 0;
	double start = now_s();
	pid_t pid = fork();
	if (pid < 0) {
		int err = errno;
		close(out);
		return np_fail(t->ctx, -err, "cannot start '%s': %s", t->cmd[0], strerror(err));
	}
	if (pid == 0) {
		/* Its own process group, so that a stop reaches whatever it started. */
		setpgid(0, 0);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGALRM, SIG_DFL);
		int null = open("/dev/null", O_RDONLY);
		if (null >= 0)
			dup2(null, STDIN_FILENO);
		dup2(out, STDOUT_FILENO);
		dup2(out, STDERR_FILENO);
		execvp(t->cmd[0], t->cmd);
		dprintf(STDERR_FILENO, "numaplace: trial: cannot run '%s': %s\n", t->cmd[0], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	setpgid(pid, pid);
	child_pgid = pid;
	if (stop_signal && !term_sent) { /* it came between the fork and here */
		kill(-pid, SIGTERM);
		term_sent = 1;
		alarm(KILL_GRACE);
	} else if (t->o->timeout) {
		alarm((unsigned)t->o->timeout);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	r->seconds = now_s() - start;
	alarm(0);
	child_pgid = 0;
	/* Whatever it left running in its group goes with it. */
	kill(-pid, SIGKILL);
	close(out);
	r->done = true;
	r->timed_out = timed_out;
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	r->value = NAN;
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
	if (read_metric(t, r->output, &r->value, detail, sizeof(detail))) {
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
	for (size_t i = 0; i < t->nruns && !stop_signal; i++) {
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
			settle(t->o->settle);
		/* Checked again after the settling too: a driver may undo a
		 * value as it reacts to the switch. */
		if (r->arm == ARM_PROFILE && (rc = to_profile(t, r->number)) != EXIT_OK)
			return rc;
		if (stop_signal)
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
		if (stop_signal) {
			r->done = false;
			break;
		}
		char why[3 * PATH_MAX];
		r->ok = run_value(t, r, why, sizeof(why));
		counted += !r->warmup;
		progress(t, r, counted);
		if (!r->ok && !t->o->keep_going)
			return np_error("trial: %s; the trial stops (--keep-going leaves the pair out instead)", why);
		if (!r->ok)
			np_notef("trial: warning: %s: its pair is left out\n", why);
	}
	return EXIT_OK;
}


/* The directory of this trial's outputs, made. */
static int make_dir(struct trial *t)
{
	char rel[PATH_MAX];
	int rc;
	if (t->o->state_dir && *t->o->state_dir) {
		if (snprintf(t->dir, sizeof(t->dir), "%s/trials/%s", t->o->state_dir, t->id) >= (int)sizeof(t->dir))
			return np_error("%s: %s", t->o->state_dir, strerror(ENAMETOOLONG));
		/* mkdir -p: each parent that is missing, then the trial's own, new. */
		for (char *p = t->dir + 1; (p = strchr(p, '/')); p++) {
			*p = '\0';
			int bad = mkdir(t->dir, 0700) && errno != EEXIST;
			*p = '/';
			if (bad)
				break;
		}
		if (mkdir(t->dir, 0700))
			return np_error("cannot create %s: %s", t->dir, strerror(errno));
		return EXIT_OK;
	}
	/* Inside the root, as the journals are. */
	snprintf(rel, sizeof(rel), "%s/trials/%s", NP_STATE_DIR, t->id);
	if ((rc = np_mkdirs(t->ctx, rel, 0700)) || (rc = np_sysfs_path(t->ctx, t->dir, "%s", rel)))
		return np_error("%s", t->ctx->err);
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
	if ((rc = make_dir(t)) != EXIT_OK || (rc = plan(t)) != EXIT_OK)
		return rc;
	return EXIT_OK;
}

/* A trial leaves a journal per switch to the profile: the old ones go as
 * apply's do, and a failure to prune is only a warning. */
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
}

static int trial_run(struct trial *t)
{
	int rc = prepare(t);
	if (rc != EXIT_OK)
		return rc;
	/* Told before it starts, so a trial stopped halfway can be repeated. */
	if (!t->o->json)
		printf("trial %s: %s, %d pairs (%zu runs), seed %llu (--seed %llu repeats the order); outputs in %s\n",
		       t->id, t->profile_name, t->o->pairs, t->nruns, (unsigned long long)t->seed,
		       (unsigned long long)t->seed, t->dir);
	fflush(stdout);
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART }, old[3];
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old[0]);
	sigaction(SIGTERM, &sa, &old[1]);
	sigaction(SIGALRM, &sa, &old[2]);
	rc = execute(t);
	int back = to_baseline(t);
	prune(t);
	if (back != EXIT_OK) {
		rc = back;
	} else if (stop_signal) {
		rc = np_error("trial: %s: CMD stopped; the machine is back to its baseline (outputs in %s)",
			      strsignal(stop_signal), t->dir);
	} else if (rc != EXIT_OK) {
		np_notef("trial: the machine is back to its baseline (outputs in %s)\n", t->dir);
	} else {
		rc = trial_conclude(t);
	}
	sigaction(SIGINT, &old[0], NULL);
	sigaction(SIGTERM, &old[1], NULL);
	sigaction(SIGALRM, &old[2], NULL);
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
	struct trial_opts o = { .pairs = DEFAULT_PAIRS };
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
	struct trial t = { .ctx = ctx, .self = self, .o = &o, .cmd = argv + dashdash + 1, .state = ARM_BASELINE };
	if (rc == NP_CONTINUE && o.metric) {
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
	free(t.runs);
	if (t.has_re)
		regfree(&t.re);
	np_pipeline_free(&p);
	np_profile_free(&prof);
	np_machine_free(&m);
	return rc;
}
