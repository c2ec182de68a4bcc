/* SPDX-License-Identifier: GPL-2.0-or-later */
/* numaplace hold: apply a profile, then keep it applied as devices come and
 * go and others write over it, until SIGTERM. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "read/conffile.h"
#include "change/hold.h"
#include "change/irqbalance.h"
#include "base/quote.h"
#include "change/pipeline.h"
#include "read/sysfs.h"
#include "read/uevent.h"
#include "cmd.h"
#include "metrics.h"
#include "render/output.h"
#include "render/render.h"

#define DEFAULT_INTERVAL 30
#define MAX_PENDING 64
/* A NIC coming up sends an event per queue and link change, within
 * milliseconds: waiting this long after an event makes them one pass. */
#define EVENT_SETTLE_MS 50
/* Event lines logged a second at most: a flood (100k events in 10 s wrote
 * 4.2 MB) is said as one line with the count of those not logged. */
#define EVENT_LOG_MAX 20

struct hold_opts {
	int interval;
	bool report_only, json, boot;
	struct np_dirlist dirs;
	const char *state_dir, *metrics;
	enum np_irqb_mode irqbalance;
};

const struct np_option hold_options[] = {
	NP_OPT_CALLBACK('i', "interval", struct hold_opts, interval, int, "SECONDS",
			"check every value against the profile this often (default 30)", NULL, np_opt_whole_seconds),
	NP_OPT_BOOL(0, "report-only", struct hold_opts, report_only, "log drift and device events, change nothing"),
	NP_OPT_JSON(struct hold_opts, json, "log one JSON object per line"),
	NP_OPT_CALLBACK(0, "profile-dir", struct hold_opts, dirs, struct np_dirlist, "DIR",
			"look for profiles in DIR first (repeatable)", "dir", np_opt_dir),
	NP_OPT_STRING(0, "state-dir", struct hold_opts, state_dir, "DIR",
		      "keep transactions in DIR (default /var/lib/numaplace, under --root)", "dir"),
	/* As apply decides (lib/change/irqbalance-ban.c): hold runs for long, and an IRQ that
	 * irqbalance moves would be a fight every minute. */
	NP_OPT_CALLBACK(0, "irqbalance", struct hold_opts, irqbalance, enum np_irqb_mode, "MODE",
			"ban the IRQs placed in irqbalance's configuration file at the first apply and at each "
			"re-apply (default if irqbalance runs or is installed), warn, or ignore", NULL,
			np_opt_irqbalance),
	NP_OPT_BOOL(0, "boot", struct hold_opts, boot, "hold " NP_BOOT_PROFILE " ('numaplace enable --hold')"),
	NP_OPT_STRING(0, "metrics", struct hold_opts, metrics, "FILE",
		      "write 'numaplace metrics' to FILE after each pass, with hold's counters", "file"),
	NP_OPT_END,
};

struct holder {
	struct np_ctx *ctx;
	struct np_hold h;
	struct np_profile prof;
	struct np_dirlist dirs;
	const char *name;        /* the PROFILE argument, re-read on SIGHUP */
	bool json;
	const char *metrics;     /* --metrics FILE, or NULL */
	const char *state_dir;
	struct np_metrics_hold *counts; /* per device re-applied or given up */
	size_t ncounts;
	/* Passes to make: after events settle, or once a rate limit allows. */
	struct pending {
		char device[64]; /* "" for every device */
		char cause[160];
		long long due;
	} pending[MAX_PENDING];
	size_t npending;
	long long log_window;     /* when the current second of event lines began */
	int logged;               /* event lines logged in it */
	unsigned long long folded; /* events not logged in it */
	/* SIGTERM, SIGINT and SIGHUP, blocked from the start: the loop reads
	 * them (signalfd), and a transaction under way when one comes is
	 * stopped and rolled back (SIGTERM, SIGINT) or finished (SIGHUP). */
	struct np_stop stop;
};

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* One line on stderr: text, or a JSON object with event and message and
 * the given string fields (name, value pairs, NULL-terminated). */
static void hold_log(const struct holder *hd, const char *event, const char *const *fields, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void hold_log(const struct holder *hd, const char *event, const char *const *fields, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* Names in events and subjects are the kernel's bytes (a journald
	 * reader's terminal, a log shipper's JSON): escaped, as all output. */
	char esc[sizeof(msg)];
	if (!hd->json) {
		fprintf(stderr, "numaplace: hold: %s\n", np_escape(msg, esc, sizeof(esc)));
		return;
	}
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "time", (double)ts.tv_sec + ts.tv_nsec / 1e9);
	cJSON_AddStringToObject(o, "event", event);
	cJSON_AddStringToObject(o, "message", np_escape(msg, esc, sizeof(esc)));
	for (size_t i = 0; fields && fields[i]; i += 2)
		cJSON_AddStringToObject(o, fields[i], fields[i + 1] ? np_escape(fields[i + 1], esc, sizeof(esc)) : "");
	char *text = cJSON_PrintUnformatted(o);
	if (text)
		fprintf(stderr, "%s\n", text);
	free(text);
	cJSON_Delete(o);
}

/* Schedules a pass over device ("": all) at due; one already pending for
 * it keeps its cause and takes the earlier time. */
static void pending_add(struct holder *hd, const char *device, const char *cause, long long due)
{
	for (size_t i = 0; i < hd->npending; i++)
		if (!strcmp(hd->pending[i].device, device)) {
			if (due < hd->pending[i].due)
				hd->pending[i].due = due;
			return;
		}
	if (hd->npending == MAX_PENDING) { /* many at once: one check of everything covers them */
		device = "", cause = "check after many events";
		hd->npending = 0;
	}
	struct pending *p = &hd->pending[hd->npending++];
	snprintf(p->device, sizeof(p->device), "%s", device);
	snprintf(p->cause, sizeof(p->cause), "%s", cause);
	p->due = due;
}

/* The counters of device, made on first use; NULL when out of memory. */
static struct np_metrics_hold *count_of(struct holder *hd, const char *device)
{
	for (size_t i = 0; i < hd->ncounts; i++)
		if (!strcmp(hd->counts[i].device, device))
			return &hd->counts[i];
	struct np_metrics_hold *more = realloc(hd->counts, (hd->ncounts + 1) * sizeof(*more));
	if (!more)
		return NULL;
	hd->counts = more;
	more[hd->ncounts] = (struct np_metrics_hold){ .device = strdup(device) };
	return more[hd->ncounts].device ? &more[hd->ncounts++] : NULL;
}

/* --metrics: what metrics says, with the held profile and hold's counters. */
static void write_metrics(struct holder *hd)
{
	if (!hd->metrics)
		return;
	struct np_metrics_src src = { .profile = &hd->prof, .state_dir = hd->state_dir, .hold = hd->counts,
				      .nhold = hd->ncounts };
	if (np_metrics_write(hd->ctx, &src, hd->metrics))
		hold_log(hd, "error", NULL, "cannot write the metrics, still holding: %s", hd->ctx->err);
}

/* The one line that says an unfinished transaction was rolled back first. */
static void log_recovered(const struct holder *hd, const struct np_txn *t, const char *cause)
{
	char line[512];
	if (t->id)
		hold_log(hd, "recovered", (const char *const[]){ "transaction", t->id, "cause", cause, NULL }, "%s",
			 np_recovered_line(t, false, line, sizeof(line)));
}

/* One pass over device (NULL: all), logged; cause is the transaction's. */
static void pass(struct holder *hd, const char *device, const char *cause)
{
	char n[32], ms[32];
	struct np_hold_result r;
	long long start = now_ms();
	int rc = np_hold_pass(hd->ctx, &hd->h, &hd->prof, device, cause, start, &r);
	snprintf(ms, sizeof(ms), "%lld", now_ms() - start);
	log_recovered(hd, &r.recovered, cause);
	if (r.finished)
		hold_log(hd, "finished", (const char *const[]){ "transaction", r.finished, "cause", cause, NULL },
			 "reverted transaction %s, which a failed re-apply had left pending (%s)", r.finished, cause);
	for (size_t i = 0; i < r.nmissing; i++)
		hold_log(hd, "skipped", (const char *const[]){ "subject", r.missing[i], "cause", cause, NULL },
		      "skipped (%s): %s: gone from the machine", cause, r.missing[i]);
	for (size_t i = 0; i < r.ndrift; i++) {
		const struct np_hold_drift *d = &r.drift[i];
		const char *what = hd->h.report_only ? "reported" : d->what == NP_HOLD_FIX ? "re-apply"
				 : d->what == NP_HOLD_WAIT ? "rate-limited" : "left-alone";
		const char *say = hd->h.report_only ? "report only, left as is"
				: d->what == NP_HOLD_FIX ? "re-applying"
				: d->what == NP_HOLD_WAIT ? "its device was re-applied less than a second ago: again shortly"
				: "left alone: someone else keeps rewriting its device";
		hold_log(hd, "drift", (const char *const[]){ "subject", d->subject, "path", d->path, "current", d->current,
							  "wanted", d->wanted, "device", d->device, "action", what,
							  "cause", cause, NULL },
		      "drift (%s): %s (%s) is '%s', the profile wants '%s': %s", cause, d->subject, d->path,
		      d->current ? d->current : "?", d->wanted, say);
	}
	if (rc == -EINVAL) {
		hold_log(hd, "error", (const char *const[]){ "cause", cause, NULL },
		      "the profile does not fit the machine now, skipped (%s): %s", cause, hd->ctx->err);
	} else if (rc == -EINTR) {
		hold_log(hd, "stopped", (const char *const[]){ "cause", cause, NULL }, "re-apply (%s) %s", cause,
			 hd->ctx->err);
	} else if (rc && r.txn.id) {
		hold_log(hd, "error", (const char *const[]){ "cause", cause, "transaction", r.txn.id, NULL },
			 "re-apply failed, still holding (%s): %s; the next pass reverts transaction %s first",
			 cause, hd->ctx->err, r.txn.id);
	} else if (rc) {
		hold_log(hd, "error", (const char *const[]){ "cause", cause, NULL },
		      "re-apply failed, nothing changed, still holding (%s): %s", cause, hd->ctx->err);
	} else if (r.txn.nchanges) {
		if (r.ban.ban)
			hold_log(hd, "banned", (const char *const[]){ "file", r.ban.conf.path, "cause", cause, NULL },
				 "%s added to %s (%s): restart irqbalance for it to read them",
				 r.ban.change.subject + strlen("irqbalance: "), r.ban.conf.path, cause);
		snprintf(n, sizeof(n), "%zu", r.txn.nchanges);
		hold_log(hd, "reapplied", (const char *const[]){ "transaction", r.txn.id, "changes", n, "cause", cause,
							      "ms", ms, NULL },
		      "re-applied %zu value%s (transaction %s, %s) in %s ms", r.txn.nchanges,
		      r.txn.nchanges == 1 ? "" : "s", r.txn.id, cause, ms);
	}
	for (size_t i = 0; i < r.ngave_up; i++)
		hold_log(hd, "gave-up", (const char *const[]){ "device", r.gave_up[i].device, "culprit",
							    r.gave_up[i].culprit, NULL },
			 "giving up on %s: it drifted back after each of %d re-applies within a minute; "
			 "likely culprit: %s", r.gave_up[i].device, NP_HOLD_FIGHT_TRIES, r.gave_up[i].culprit);
	if (r.retry_ms > 0)
		pending_add(hd, device ? device : "", cause, now_ms() + r.retry_ms);
	/* A device counts once a pass, however many of its values it re-applied. */
	for (size_t i = 0; rc == 0 && r.txn.nchanges && i < r.ndrift; i++) {
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++)
			seen = r.drift[j].what == NP_HOLD_FIX && !strcmp(r.drift[j].device, r.drift[i].device);
		struct np_metrics_hold *c = r.drift[i].what == NP_HOLD_FIX && !seen ? count_of(hd, r.drift[i].device) : NULL;
		if (c)
			c->reapplies++;
	}
	for (size_t i = 0; i < r.ngave_up; i++) {
		struct np_metrics_hold *c = count_of(hd, r.gave_up[i].device);
		if (c)
			c->giveups++;
	}
	np_hold_result_free(&r);
	write_metrics(hd);
}

/* first_apply was stopped by SIGTERM or SIGINT, its writes undone: hold
 * ends as a stop in its loop does (exit status 0). */
#define EXIT_STOPPED (-1)

/* The first apply: all of the profile as one transaction, as apply does,
 * with apply's irqbalance decision. Returns an exit status, or EXIT_STOPPED. */
static int first_apply(struct holder *hd, const struct np_command *self, enum np_irqb_mode irqb)
{
	struct np_machine m;
	struct np_pipeline p = { 0 };
	char list[256];
	int rc;
	if (np_machine_load_some(hd->ctx, &m, NP_LOAD_NO_NAMES))
		return np_error("%s", hd->ctx->err);
	np_print_warnings(&m);
	if ((rc = np_pipeline_resolve(hd->ctx, &m, &hd->prof, &p))) {
		np_machine_free(&m);
		return rc == -EINVAL ? np_usage_error(self, "%s", hd->ctx->err) : np_error("%s", hd->ctx->err);
	}
	for (size_t i = 0; i < p.res.nwarnings; i++)
		hold_log(hd, "note", NULL, "note: %s", p.res.warnings[i]);
	if (hd->h.report_only) {
		rc = EXIT_OK;
		goto out;
	}
	if (np_pipeline_decide(hd->ctx, &p, NULL, 0, m.irqbalance, irqb)) {
		rc = np_error("%s", hd->ctx->err);
		goto out;
	}
	const struct np_irqban *ib = &p.ban;
	if (ib->note[0])
		hold_log(hd, "warning", NULL, "%s", ib->note);
	if (ib->warn)
		hold_log(hd, "warning", NULL, "irqbalance %s and may move IRQ%s %s, undoing this placement: ban %s "
			 "(--irqbalance=ban) or stop irqbalance", ib->running ? "is running" : "is installed",
			 ib->nirqs == 1 ? "" : "s", np_irqban_list(list, sizeof(list), ib->irqs, ib->nirqs),
			 ib->nirqs == 1 ? "it" : "them");
	/* Started beside an apply (a playbook's, a boot unit's), the first
	 * apply waits its turn; a re-apply never does: the next pass retries. */
	hd->h.txn.wait_for_lock = true;
	hd->h.txn.lock_timeout = NP_BOOT_LOCK_TIMEOUT;
	rc = np_pipeline_write(hd->ctx, &p, &hd->h.txn, hd->prof.name, NP_PIPELINE_ALL);
	hd->h.txn.wait_for_lock = false;
	hd->h.txn.lock_timeout = 0;
	log_recovered(hd, &p.recovered, "start");
	if (rc == -EINTR) {
		hold_log(hd, "exit", NULL, "%s", hd->ctx->err);
		rc = EXIT_STOPPED;
		goto out;
	}
	if (rc) {
		rc = np_error("%s", hd->ctx->err);
		goto out;
	}
	const struct np_txn *txn = &p.txn;
	if (txn->nchanges && !(hd->h.session = strdup(txn->id))) {
		rc = np_error("%s", strerror(ENOMEM));
		goto out;
	}
	if (txn->nchanges)
		hold_log(hd, "applied", (const char *const[]){ "transaction", txn->id, NULL },
		      "applied %s: %zu change%s (transaction %s)", hd->prof.name, txn->nchanges,
		      txn->nchanges == 1 ? "" : "s", txn->id);
	else
		hold_log(hd, "applied", NULL, "%s already applied: nothing to change", hd->prof.name);
	if (ib->nadded && ib->running)
		hold_log(hd, "warning", NULL, "banned IRQs in %s: restart irqbalance for it to read them", ib->conf.path);
	rc = EXIT_OK;
out:
	np_pipeline_free(&p);
	np_machine_free(&m);
	return rc;
}

/* SIGHUP: the profile re-read; on a bad one the old one stays held. */
static void reload(struct holder *hd, const struct np_command *self)
{
	struct np_profile p;
	if (np_profile_open(hd->ctx, self, &hd->dirs, hd->name, &p) != EXIT_OK) {
		hold_log(hd, "error", NULL, "SIGHUP: cannot read the profile '%s': still holding %s", hd->name, hd->prof.name);
		return;
	}
	np_profile_free(&hd->prof);
	hd->prof = p;
	/* A new profile may want what the old one's fights were about. */
	np_hold_free(&hd->h);
	hold_log(hd, "reload", NULL, "SIGHUP: re-read %s", hd->name);
	pass(hd, NULL, "SIGHUP reload");
}

/* Test hook lines: read what is there, one event per complete line. */
struct linebuf {
	char buf[4096];
	size_t len;
};

/* The count of the events the last second did not log, once it is over. */
static void log_folded(struct holder *hd, long long now)
{
	if (now - hd->log_window < 1000)
		return;
	if (hd->folded) {
		char n[32];
		snprintf(n, sizeof(n), "%llu", hd->folded);
		hold_log(hd, "events-not-logged", (const char *const[]){ "count", n, NULL },
			 "%llu more device event%s within a second not logged (at most %d a second are); "
			 "each was handled", hd->folded, hd->folded == 1 ? "" : "s", EVENT_LOG_MAX);
	}
	hd->folded = 0;
	hd->logged = 0;
	hd->log_window = now;
}

static void handle_event(struct holder *hd, const struct np_event *ev)
{
	char cause[160];
	snprintf(cause, sizeof(cause), "%s %s %s", ev->action, ev->subsystem, ev->device);
	log_folded(hd, now_ms());
	if (hd->logged < EVENT_LOG_MAX) {
		hd->logged++;
		hold_log(hd, "device", (const char *const[]){ "action", ev->action, "subsystem", ev->subsystem,
							   "device", ev->device, NULL }, "event: %s", cause);
	} else {
		hd->folded++;
	}
	if (!strcmp(ev->action, "remove") || !strcmp(ev->action, "dellink") || !strcmp(ev->action, "unbind"))
		return; /* nothing left to place; it is re-placed when it comes back */
	pending_add(hd, ev->device, cause, now_ms() + EVENT_SETTLE_MS);
}

static int read_lines(struct holder *hd, int fd, struct linebuf *lb)
{
	ssize_t n = read(fd, lb->buf + lb->len, sizeof(lb->buf) - 1 - lb->len);
	if (n <= 0)
		return (int)n;
	lb->len += (size_t)n;
	lb->buf[lb->len] = '\0';
	char *start = lb->buf, *nl;
	while ((nl = strchr(start, '\n'))) {
		*nl = '\0';
		struct np_event ev;
		if (np_event_line(start, &ev))
			handle_event(hd, &ev);
		else if (*start)
			hold_log(hd, "error", NULL, "test event line '%s' is not ACTION SUBSYSTEM DEVICE: ignored", start);
		start = nl + 1;
	}
	lb->len -= (size_t)(start - lb->buf);
	memmove(lb->buf, start, lb->len);
	if (lb->len == sizeof(lb->buf) - 1)
		lb->len = 0; /* a line too long for any event */
	return (int)n;
}

static void read_netlink(struct holder *hd, int fd, bool rtnl)
{
	char buf[16384];
	ssize_t n;
	bool from_kernel;
	while ((n = np_netlink_recv(fd, buf, sizeof(buf) - 1, &from_kernel)) >= 0) {
		struct np_event evs[16];
		size_t count = 0;
		if (!from_kernel)
			continue;
		if (rtnl)
			count = np_rtnl_parse(buf, (size_t)n, evs, 16);
		else
			count = (size_t)np_uevent_parse(buf, (size_t)n, &evs[0]);
		for (size_t i = 0; i < count; i++)
			handle_event(hd, &evs[i]);
	}
	if (n == -ENOBUFS)
		/* Events were lost: only a check of everything is sure to see their devices. */
		pending_add(hd, "", "check after lost events", now_ms());
}

/* The kubelet replaces its CPU manager state by rename: its directory is
 * watched, and a change of the file (a pod started or gone) is a check of
 * every device, whose rules then keep IRQs off the new exclusive CPUs. */
struct kube_watch {
	char dir[PATH_MAX]; /* the state file's path, cut at its last slash */
	const char *base;   /* its name, in dir past the cut */
};

static int kube_watch_open(struct holder *hd, struct kube_watch *kw)
{
	const char *state = hd->ctx->kubelet_state;
	if (state && !strchr(state, '/'))
		snprintf(kw->dir, sizeof(kw->dir), "./%s", state);
	else if (state)
		snprintf(kw->dir, sizeof(kw->dir), "%s", state);
	else if (np_sysfs_path(hd->ctx, kw->dir, "%s", NP_KUBELET_STATE))
		return -1;
	char *slash = strrchr(kw->dir, '/');
	*slash = '\0';
	kw->base = slash + 1;
	int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (fd < 0)
		return -1;
	/* No kubelet directory: not a Kubernetes node, nothing to watch. */
	if (inotify_add_watch(fd, kw->dir[0] ? kw->dir : "/", IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_MOVED_FROM) < 0) {
		close(fd);
		return -1;
	}
	hold_log(hd, "watching", NULL, "watching %s/%s for pods' exclusive CPUs", kw->dir, kw->base);
	return fd;
}

static void read_kube_watch(struct holder *hd, int fd, const struct kube_watch *kw)
{
	char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;
	bool changed = false, lost = false;
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;
			changed |= ev->len && !strcmp(ev->name, kw->base);
			lost |= (ev->mask & IN_Q_OVERFLOW) != 0;
			p += sizeof(*ev) + ev->len;
		}
	}
	/* The queue overflowed (fs.inotify.max_queued_events): the events
	 * after it were dropped, a change of the state file among them maybe. */
	if (lost) {
		hold_log(hd, "kubelet", (const char *const[]){ "path", kw->base, NULL },
			 "event: events of the kubelet's directory were lost (inotify queue overflow): "
			 "its CPU manager state may have changed");
		pending_add(hd, "", "kubelet events lost", now_ms() + EVENT_SETTLE_MS);
		return;
	}
	if (!changed)
		return;
	hold_log(hd, "kubelet", (const char *const[]){ "path", kw->base, NULL },
		 "event: the kubelet's CPU manager state changed");
	pending_add(hd, "", "kubelet state changed", now_ms() + EVENT_SETTLE_MS);
}

enum { FD_SIGNAL, FD_UEVENT, FD_RTNL, FD_TEST, FD_KUBE, NFDS };

static int hold_loop(struct holder *hd, const struct np_command *self, int interval)
{
	struct pollfd fds[NFDS];
	struct linebuf lb = { .len = 0 };
	int test_keep = -1, rc = EXIT_OK;
	sigset_t set;
	for (int i = 0; i < NFDS; i++)
		fds[i] = (struct pollfd){ .fd = -1, .events = POLLIN };
	/* What cmd_hold blocked: the stops, and SIGHUP. */
	set = hd->stop.stops;
	sigaddset(&set, SIGHUP);
	fds[FD_SIGNAL].fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (fds[FD_SIGNAL].fd < 0)
		return np_error("cannot receive signals: %s", strerror(errno));
	/* The kernel's events concern this machine only, not a copy under --root. */
	if (!hd->ctx->root[0]) {
		if ((fds[FD_UEVENT].fd = np_uevent_open(hd->ctx)) < 0 ||
		    (fds[FD_RTNL].fd = np_rtnl_open(hd->ctx)) < 0) {
			rc = np_error("%s", hd->ctx->err);
			goto out;
		}
	}
	const char *test = getenv(NP_HOLD_EVENTS_ENV);
	if (test && *test) {
		if ((fds[FD_TEST].fd = open(test, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0) {
			rc = np_error("cannot open '%s' (" NP_HOLD_EVENTS_ENV "): %s", test, strerror(errno));
			goto out;
		}
		/* A writer of our own: a FIFO whose writers come and go never hangs up. */
		struct stat sb;
		if (!fstat(fds[FD_TEST].fd, &sb) && S_ISFIFO(sb.st_mode))
			test_keep = open(test, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	}
	struct kube_watch kw;
	fds[FD_KUBE].fd = kube_watch_open(hd, &kw);
	hold_log(hd, "holding", NULL, "holding %s: checking every %d s%s", hd->prof.name, interval,
	      hd->h.report_only ? ", report only" : "");
	write_metrics(hd);
	long long next = now_ms() + interval * 1000LL;
	for (;;) {
		long long now = now_ms(), due = next;
		for (size_t i = 0; i < hd->npending; i++)
			if (hd->pending[i].due < due)
				due = hd->pending[i].due;
		if (hd->folded && hd->log_window + 1000 < due)
			due = hd->log_window + 1000;
		int timeout = due > now ? (int)(due - now) : 0;
		if (poll(fds, NFDS, timeout) < 0 && errno != EINTR) {
			rc = np_error("poll: %s", strerror(errno));
			break;
		}
		if (fds[FD_SIGNAL].revents & POLLIN) {
			struct signalfd_siginfo si;
			if (read(fds[FD_SIGNAL].fd, &si, sizeof(si)) == sizeof(si)) {
				if (si.ssi_signo == SIGHUP) {
					reload(hd, self);
				} else {
					hold_log(hd, "exit", NULL, "%s: stopping; the values stay applied (undo with "
					      "'numaplace revert')", strsignal((int)si.ssi_signo));
					break;
				}
			}
		}
		if (fds[FD_UEVENT].revents & POLLIN)
			read_netlink(hd, fds[FD_UEVENT].fd, false);
		if (fds[FD_RTNL].revents & POLLIN)
			read_netlink(hd, fds[FD_RTNL].fd, true);
		if (fds[FD_KUBE].revents & POLLIN)
			read_kube_watch(hd, fds[FD_KUBE].fd, &kw);
		if (fds[FD_TEST].revents & (POLLIN | POLLHUP)) {
			if (read_lines(hd, fds[FD_TEST].fd, &lb) == 0 && test_keep < 0) {
				close(fds[FD_TEST].fd); /* a plain file read to its end */
				fds[FD_TEST].fd = -1;
			}
		}
		now = now_ms();
		log_folded(hd, now);
		for (size_t i = 0; i < hd->npending;) {
			if (hd->pending[i].due > now) {
				i++;
				continue;
			}
			struct pending p = hd->pending[i];
			hd->pending[i] = hd->pending[--hd->npending];
			pass(hd, p.device[0] ? p.device : NULL, p.cause);
		}
		if (now_ms() >= next) {
			pass(hd, NULL, "interval check");
			next = now_ms() + interval * 1000LL;
		}
	}
out:
	for (int i = 0; i < NFDS; i++)
		if (fds[i].fd >= 0)
			close(fds[i].fd);
	if (test_keep >= 0)
		close(test_keep);
	return rc;
}

int cmd_hold(int argc, char **argv, struct np_ctx *ctx)
{
	const struct np_command *self = np_command_find("hold");
	struct hold_opts o = { .interval = DEFAULT_INTERVAL };
	int first, rc = np_parse_options(self, argc, argv, &o, &first);
	if (rc == NP_CONTINUE && o.boot && argc - first != 0)
		rc = np_usage_error(self, "--boot holds " NP_BOOT_PROFILE " and takes no PROFILE");
	else if (rc == NP_CONTINUE && !o.boot && argc - first != 1)
		rc = np_usage_error(self, "expected one PROFILE (a name or a file)");
	if (rc != NP_CONTINUE) {
		np_dirs_free(&o.dirs);
		return rc;
	}
	struct holder hd = { .ctx = ctx, .dirs = o.dirs, .json = o.json, .metrics = o.metrics,
			     .state_dir = o.state_dir };
	hd.h.report_only = o.report_only;
	hd.h.irqbalance = o.irqbalance;
	hd.h.txn.state_dir = o.state_dir;

	char bootpath[PATH_MAX];
	hd.name = o.boot ? bootpath : argv[first];
	if (o.boot && np_sysfs_path(ctx, bootpath, "%s", NP_BOOT_PROFILE)) {
		np_dirs_free(&hd.dirs);
		return np_error("%s", ctx->err);
	}
	if (o.boot && access(bootpath, F_OK) < 0 && errno == ENOENT) {
		np_dirs_free(&hd.dirs);
		puts("no boot profile enabled");
		return EXIT_OK;
	}
	if (np_profile_dirs_finish(&hd.dirs)) {
		np_dirs_free(&hd.dirs);
		return np_error("%s", strerror(ENOMEM));
	}
	/* From here on a stop (SIGTERM, SIGINT) ends hold between its
	 * transactions, never inside one; SIGHUP reloads, after it. All three,
	 * ignored or not, as the loop has always read them. */
	sigset_t sigs;
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGHUP);
	if (np_stop_hold(&hd.stop, &sigs)) {
		np_dirs_free(&hd.dirs);
		return np_error("cannot block signals: %s", strerror(errno));
	}
	sigdelset(&hd.stop.stops, SIGHUP);
	hd.h.txn.stop = &hd.stop.stops;
	/* An unfinished transaction of this profile (a hold or apply killed
	 * mid-write) is rolled back, not left for someone to revert by hand. */
	hd.h.txn.recover = true;
	int claim = -1;
	rc = o.report_only ? 0 : np_txn_hold_claim(ctx, &hd.h.txn, &claim);
	rc = rc ? np_error("%s", ctx->err) : np_profile_open(ctx, self, &hd.dirs, hd.name, &hd.prof);
	if (rc == EXIT_OK) {
		rc = first_apply(&hd, self, o.irqbalance);
		if (rc == EXIT_OK && hd.h.report_only)
			pass(&hd, NULL, "start");
		if (rc == EXIT_OK)
			rc = hold_loop(&hd, self, o.interval);
		if (rc == EXIT_STOPPED)
			rc = EXIT_OK;
		np_profile_free(&hd.prof);
	}
	if (claim >= 0)
		close(claim);
	np_hold_free(&hd.h);
	free(hd.h.session);
	free(hd.h.unfinished);
	np_dirs_free(&hd.dirs);
	for (size_t i = 0; i < hd.ncounts; i++)
		free(hd.counts[i].device);
	free(hd.counts);
	return rc;
}
