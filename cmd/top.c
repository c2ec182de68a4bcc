/* SPDX-License-Identifier: GPL-2.0-or-later */
/* numaplace top: where interrupts run now, refreshed every few seconds: per
 * node, per device, and the busiest IRQs. ncurses on a terminal; --batch
 * prints plain frames for scripts and tests. */
#include <curses.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "judge/cpuset-names.h"
#include "base/count.h"
#include "judge/request.h"
#include "read/machine.h"
#include "cmd.h"
#include "render/term.h"

struct top_opts {
	double delay;
	bool batch;
	int count;
	const char *filter;
};

static int parse_count(const struct np_command *cmd, const struct np_option *o, const char *arg, void *field)
{
	char *end;
	long v = strtol(arg, &end, 10);
	if (*end || end == arg || v < 1 || v > 1 << 22)
		return np_usage_error(cmd, "--%s needs a count of 1 or more, not '%s'", o->name, arg);
	*(int *)field = (int)v;
	return EXIT_OK;
}

const struct np_option top_options[] = {
	NP_OPT_CALLBACK('d', "delay", struct top_opts, delay, double, "SEC",
			"seconds between refreshes (0 < SEC <= 3600, default 1)", NULL, np_opt_interval),
	NP_OPT_BOOL('b', "batch", struct top_opts, batch, "print plain frames to stdout instead of a full-screen view"),
	NP_OPT_CALLBACK('n', "iterations", struct top_opts, count, int, "COUNT",
			"stop after COUNT frames (default: until q, or 1 with --batch)", NULL, parse_count),
	NP_OPT_STRING('f', "filter", struct top_opts, filter, "FILTER",
		      "only this device's IRQs (a FILTER as devices takes)", "device"),
	NP_OPT_END,
};

enum sort_key { SORT_RATE, SORT_IRQ, SORT_NAME, NSORT };
struct view;
static void read_filter(struct view *v);
static const char *const sort_names[] = { "rate", "irq", "name" };

struct view {
	struct np_machine *m;
	double seconds;       /* the interval the counts cover */
	enum sort_key sort;
	char filter[64];      /* "" for every device */
	bool *selected;       /* per device: the filter's (the request's selection, then f's) */
	bool paused;
	bool keys;            /* the screen: each setting says its key; --batch has no keys */
};

/* One frame as lines of text, at most width columns (0: no limit); the same
 * for the screen and for --batch. Returns a NULL-terminated array. */
struct lines {
	char **v;
	size_t n;
};

static void line_add(struct lines *l, int width, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void line_add(struct lines *l, int width, const char *fmt, ...)
{
	char **more = realloc(l->v, (l->n + 2) * sizeof(*more));
	if (!more)
		return;
	l->v = more;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&l->v[l->n], fmt, ap) < 0) {
		va_end(ap);
		return;
	}
	va_end(ap);
	if (width > 0 && strlen(l->v[l->n]) > (size_t)width)
		l->v[l->n][width] = '\0';
	l->v[++l->n] = NULL;
}

static void lines_free(struct lines *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static const char *rate_text(unsigned long long n, double seconds, char buf[16])
{
	return np_count_text((unsigned long long)((double)n / seconds + 0.5), buf);
}

static const char *dev_name(const struct np_pci_dev *d)
{
	return d->nnet ? d->net[0].name : d->nblock ? d->block[0].name : d->addr;
}

static bool irq_shown(const struct view *v, const struct np_irq *irq)
{
	if (!v->filter[0])
		return true;
	return irq->dev >= 0 && v->selected[irq->dev];
}

static const struct view *sort_view;

static int by_key(const void *a, const void *b)
{
	const struct np_irq *x = *(const struct np_irq *const *)a, *y = *(const struct np_irq *const *)b;
	if (sort_view->sort == SORT_RATE && x->total != y->total)
		return x->total > y->total ? -1 : 1;
	if (sort_view->sort == SORT_NAME) {
		int c = strcmp(x->name, y->name);
		if (c)
			return c;
	}
	return x->irq - y->irq;
}

struct dev_total {
	size_t dev;
	unsigned long long total, remote;
};

static int by_total(const void *a, const void *b)
{
	const struct dev_total *x = a, *y = b;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return (x->dev > y->dev) - (x->dev < y->dev);
}

/* The frame: irqs holds the counts of the last interval, tied to devices. */
static void render(const struct view *v, struct np_irqs *irqs, int width, int height, struct lines *out)
{
	const struct np_machine *m = v->m;
	char a[16], b[16];
	line_add(out, width, "numaplace top: interrupts per second over %g s; sort %s%s, filter %s%s%s", v->seconds,
		 sort_names[v->sort], v->keys ? " (s)" : "", v->filter[0] ? v->filter : "none", v->keys ? " (f)" : "",
		 v->paused ? "; PAUSED (p)" : "");
	line_add(out, width, "%s", "");

	/* Per node: what its CPUs handled, and the share that came from devices
	 * on other nodes. */
	line_add(out, width, "%-6s %10s %10s", "NODE", "IRQ/S", "REMOTE/S");
	for (int n = 0; n < m->topo.nnodes; n++) {
		unsigned long long sum = 0, remote = 0;
		for (size_t i = 0; i < irqs->n; i++) {
			const struct np_irq *irq = &irqs->v[i];
			if (!irq_shown(v, irq))
				continue;
			sum += irq->per_node[n];
			int dn = irq->dev >= 0 ? np_device_node(m, &m->pci.devs[irq->dev], NULL) : -1;
			if (dn >= 0 && dn != m->topo.nodes[n].id)
				remote += irq->per_node[n];
		}
		line_add(out, width, "%-6d %10s %10s", m->topo.nodes[n].id, rate_text(sum, v->seconds, a),
			 rate_text(remote, v->seconds, b));
	}
	line_add(out, width, "%s", "");

	/* Devices by rate. */
	struct dev_total *dt = calloc(m->pci.ndevs + 1, sizeof(*dt));
	size_t ndt = 0;
	for (size_t d = 0; dt && d < m->pci.ndevs; d++) {
		int node = np_device_node(m, &m->pci.devs[d], NULL);
		struct dev_total t = { d, 0, 0 };
		for (size_t i = 0; i < irqs->n; i++) {
			const struct np_irq *irq = &irqs->v[i];
			if (irq->dev != (int)d || !irq_shown(v, irq))
				continue;
			t.total += irq->total;
			double share = np_irq_remote_share(m, irq, node);
			if (share > 0)
				t.remote += (unsigned long long)(share * (double)irq->total + 0.5);
		}
		if (t.total)
			dt[ndt++] = t;
	}
	int room = height > 0 ? (height - m->topo.nnodes - 8) / 2 : 10;
	if (room < 3)
		room = 3;
	line_add(out, width, "%-16s %-12s %4s %10s %7s", "DEVICE", "ADDRESS", "NODE", "IRQ/S", "REMOTE");
	if (dt)
		qsort(dt, ndt, sizeof(*dt), by_total);
	for (size_t i = 0; i < ndt && (int)i < room; i++) {
		const struct np_pci_dev *d = &m->pci.devs[dt[i].dev];
		int node = np_device_node(m, d, NULL);
		char nodebuf[16] = "-";
		if (node >= 0)
			snprintf(nodebuf, sizeof(nodebuf), "%d", node);
		line_add(out, width, "%-16s %-12s %4s %10s %6.0f%%", dev_name(d), d->addr, nodebuf,
			 rate_text(dt[i].total, v->seconds, a), 100.0 * (double)dt[i].remote / (double)dt[i].total);
	}
	if (ndt == 0)
		line_add(out, width, "%s", "(no device interrupts)");
	free(dt);
	line_add(out, width, "%s", "");

	/* The busiest IRQs, with the CPUs that ran them. */
	const struct np_irq **order = calloc(irqs->n + 1, sizeof(*order));
	size_t no = 0;
	for (size_t i = 0; order && i < irqs->n; i++)
		if (irqs->v[i].total && irq_shown(v, &irqs->v[i]))
			order[no++] = &irqs->v[i];
	sort_view = v;
	if (order)
		qsort(order, no, sizeof(*order), by_key);
	line_add(out, width, "%5s %-24s %-12s %10s  %s", "IRQ", "NAME", "DEVICE", "IRQ/S", "RAN ON");
	int rows = height > 0 ? height - (int)out->n - 1 : 20;
	for (size_t i = 0; i < no && (int)i < rows; i++) {
		const struct np_irq *irq = order[i];
		char *where = np_cpus_where(&m->topo, &irq->ran_on);
		line_add(out, width, "%5d %-24.24s %-12s %10s  %s", irq->irq, irq->name,
			 irq->dev >= 0 ? dev_name(&m->pci.devs[irq->dev]) : "-", rate_text(irq->total, v->seconds, a),
			 where ? where : "?");
		free(where);
	}
	if (no == 0)
		line_add(out, width, "%s", "(no interrupts in this interval)");
	free(order);
}

static void sleep_for(double seconds)
{
	struct timespec ts = { (time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9) };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Reads the counts now, tied to the devices. */
static int read_now(struct np_ctx *ctx, const struct np_machine *m, struct np_irqs *out)
{
	int rc = np_irqs_read_counts(ctx, &m->topo, out);
	if (!rc)
		np_irqs_tie(out, &m->pci);
	return rc;
}

/* The counts of the interval ending now: prev becomes the difference, and
 * the reading of now is kept for the next one in *next. */
static int next_frame(struct np_ctx *ctx, const struct np_machine *m, struct np_irqs *prev, struct np_irqs *next)
{
	int rc = read_now(ctx, m, next);
	return rc ? rc : np_irqs_delta(prev, next, &m->topo);
}

static int run_batch(struct np_ctx *ctx, struct view *v, struct np_irqs *prev, long count)
{
	for (long f = 0; f < count; f++) {
		sleep_for(v->seconds);
		struct np_irqs next;
		int rc = next_frame(ctx, v->m, prev, &next);
		if (rc)
			return np_error("%s", ctx->err);
		struct lines l = { 0 };
		render(v, prev, 0, 0, &l);
		if (f)
			putchar('\n');
		for (size_t i = 0; i < l.n; i++)
			puts(l.v[i]);
		fflush(stdout);
		lines_free(&l);
		np_irqs_free(prev);
		*prev = next;
	}
	return EXIT_OK;
}

static void draw(const struct view *v, struct np_irqs *irqs)
{
	struct lines l = { 0 };
	render(v, irqs, COLS, LINES, &l);
	erase();
	for (size_t i = 0; i < l.n && (int)i < LINES - 1; i++) {
		if (i == 0 || (i > 0 && !l.v[i - 1][0]))
			attron(A_BOLD);
		mvaddnstr((int)i, 0, l.v[i], COLS);
		attroff(A_BOLD);
	}
	mvaddnstr(LINES - 1, 0, "q quit  p pause  s sort  f filter by device", COLS);
	refresh();
	lines_free(&l);
}

static int run_screen(struct np_ctx *ctx, struct view *v, struct np_irqs *prev, long count)
{
	struct np_irqs shown = { 0 }; /* the last interval's counts, kept for pause and redraws */
	bool have = false;
	int rc = EXIT_OK;
	initscr();
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	mvaddstr(0, 0, "numaplace top: sampling...");
	refresh();
	struct timespec due;
	clock_gettime(CLOCK_MONOTONIC, &due);
	for (long f = 0; count < 0 || f < count;) {
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		double left = v->seconds - ((double)(now.tv_sec - due.tv_sec) + (double)(now.tv_nsec - due.tv_nsec) / 1e9);
		if (left <= 0) {
			struct np_irqs next;
			if (next_frame(ctx, v->m, prev, &next)) {
				rc = EXIT_FAIL;
				break;
			}
			if (!v->paused) {
				np_irqs_free(&shown);
				shown = *prev;
				have = true;
				f++;
			} else {
				np_irqs_free(prev);
			}
			*prev = next;
			clock_gettime(CLOCK_MONOTONIC, &due);
			if (have)
				draw(v, &shown);
			continue;
		}
		timeout((int)(left * 1000) + 1);
		int c = getch();
		if (c == 'q' || c == 'Q') {
			break;
		} else if (c == 'p' || c == ' ') {
			v->paused = !v->paused;
		} else if (c == 's') {
			v->sort = (enum sort_key)((v->sort + 1) % NSORT);
		} else if (c == 'f') {
			read_filter(v);
			char *one = v->filter;
			/* A filter matching nothing shows nothing. */
			if (v->filter[0])
				np_select_devices(ctx, v->m, 1, &one, false, v->selected);
		} else if (c != KEY_RESIZE) {
			continue;
		}
		if (have)
			draw(v, &shown);
	}
	endwin();
	np_irqs_free(&shown);
	if (rc)
		return np_error("%s", ctx->err);
	return EXIT_OK;
}

/* The f prompt, edited here rather than by getnstr, which takes Esc and
 * what follows as text ("^[q"): Enter sets the filter, Esc leaves it as it
 * was, Backspace deletes, other printable characters are typed. */
static void read_filter(struct view *v)
{
	char text[sizeof(v->filter)];
	size_t len = 0;
	static const char prompt[] = "filter (device, empty for all; Esc: keep): ";
	curs_set(1);
	timeout(-1);
	for (;;) {
		text[len] = '\0';
		mvaddstr(LINES - 1, 0, prompt);
		addstr(text);
		clrtoeol();
		refresh();
		int c = getch();
		if (c == '\n' || c == '\r' || c == KEY_ENTER) {
			snprintf(v->filter, sizeof(v->filter), "%s", text);
			break;
		}
		if (c == 27 || c == ERR)
			break;
		if ((c == KEY_BACKSPACE || c == 127 || c == 8) && len > 0)
			len--;
		else if (c >= 0x20 && c < 0x7f && len + 1 < sizeof(text))
			text[len++] = (char)c;
	}
	curs_set(0);
}

int cmd_top(int argc, char **argv, struct np_ctx *ctx)
{
	const struct np_command *self = np_command_find("top");
	struct top_opts o = { .delay = 1, .count = -1 };
	int first, prc = np_parse_options(self, argc, argv, &o, &first);
	if (prc != NP_CONTINUE)
		return prc;
	if (first < argc)
		return np_usage_error(self, "unexpected argument '%s'", argv[first]);
	const char *filter = o.filter;
	bool batch = o.batch;
	double delay = o.delay;
	long count = o.count;
	if (!batch && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)))
		return np_usage_error(self, "the live view needs a terminal; use --batch for plain frames");
	if (!batch && !np_term_escapes(STDOUT_FILENO))
		return np_usage_error(self, "the live view needs a terminal that takes escapes, not TERM=dumb; use --batch for plain frames");
	if (batch && count < 0)
		count = 1;

	struct np_machine m;
	struct np_request req;
	struct np_request_opts ro = NP_REQUEST_OPTS_INIT;
	if (filter && np_filters_add(&ro.devices, filter))
		return np_error("%s", strerror(ENOMEM));
	if (np_machine_load(ctx, &m)) {
		np_filters_free(&ro.devices);
		return np_error("%s", ctx->err);
	}
	np_print_warnings(&m);
	/* The devices shown are the request's, as advise --device selects them. */
	int rc = np_request_setup(ctx, &m, &ro, NULL, &req);
	struct view v = { .m = &m, .seconds = delay, .keys = !batch, .selected = req.selected };
	if (filter)
		snprintf(v.filter, sizeof(v.filter), "%s", filter);
	if (rc == -ENOENT && filter) {
		rc = np_usage_error(self, "no device matches '%s'", filter);
	} else if (rc) {
		rc = np_error("%s", ctx->err);
	} else {
		struct np_irqs prev;
		if (read_now(ctx, &m, &prev)) {
			rc = np_error("%s", ctx->err);
		} else {
			rc = batch ? run_batch(ctx, &v, &prev, count) : run_screen(ctx, &v, &prev, count);
			np_irqs_free(&prev);
		}
	}
	np_request_free(&req);
	np_filters_free(&ro.devices);
	np_machine_free(&m);
	return rc;
}
