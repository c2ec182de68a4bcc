/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The irqbalance ban (lib/change/irqbalance-edit.c): which IRQs a profile
 * places, and the edit of irqbalance's file that bans them; which file that
 * is on each distribution, and the CPUs its configuration bans
 * (lib/read/irqbalance-conf.c). */
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
#include <sys/stat.h>
#include <unistd.h>

#include "base/context.h"
#include "change/irqbalance.h"
#include "read/irqbalance-conf.h"
#include "read/sysfs.h"
#include "tmproot.h"

#define MARK NP_IRQBALANCE_MARK
#define TAIL " (added by 'numaplace apply'; 'numaplace revert' removes them)\n"

static struct np_ctx ctx;

static int setup(void **state)
{
	(void)state;
	return np_ctx_init(&ctx, NULL);
}

static int teardown(void **state)
{
	(void)state;
	np_ctx_fini(&ctx);
	return 0;
}

/* Bans irqs in text and checks the result (NULL: nothing to change) and
 * the IRQs reported as added ("34 40", "" for none). */
static void check_ban(const char *text, const int *irqs, size_t n, const char *want, const char *want_added)
{
	char *out = (char *)"unset", added_text[256] = "";
	int *added = (int *)1;
	size_t nadded = 99, len = 0;
	int rc = np_irqbalance_ban_text(&ctx, text, "IRQBALANCE_ARGS", irqs, n, &out, &added, &nadded);
	if (rc)
		fail_msg("ban of '%s' failed: %d %s", text, rc, ctx.err);
	for (size_t i = 0; i < nadded; i++)
		len += (size_t)snprintf(added_text + len, sizeof(added_text) - len, "%s%d", i ? " " : "", added[i]);
	if (!want) {
		if (out)
			fail_msg("expected no change of '%s', got '%s'", text, out);
	} else {
		if (!out)
			fail_msg("expected '%s', got no change", want);
		assert_string_equal(out, want);
	}
	assert_string_equal(added_text, want_added);
	free(out);
	free(added);
}

static void check_refused(const char *text, const char *why)
{
	static const int irq34[] = { 34 };
	char *out = (char *)"unset";
	int *added = NULL;
	size_t nadded = 0;
	assert_int_equal(np_irqbalance_ban_text(&ctx, text, "IRQBALANCE_ARGS", irq34, 1, &out, &added, &nadded), -EINVAL);
	assert_null(out);
	assert_null(added);
	if (!strstr(ctx.err, why))
		fail_msg("refusal of '%s' says '%s', lacks '%s'", text, ctx.err, why);
}

static void test_irqs_of_changes(void **state)
{
	(void)state;
	/* The IRQ comes from the change's target, never from its path. */
	static const int nums[] = { 45, 7, 45, 1000 };
	struct np_change c[6];
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(np_change_make(&c[i], NP_ATTR_IRQ_AFFINITY,
						&(struct np_target){ .irq = nums[i], .queue = -1 }, "1"), 0);
	assert_int_equal(np_change_make(&c[4], NP_ATTR_RPS_CPUS,
					&(struct np_target){ .irq = -1, .queue = 0, .net = "eth0" }, "1"), 0);
	assert_int_equal(np_change_make(&c[5], NP_ATTR_DEFAULT_IRQ_AFFINITY, &NP_TARGET_NONE, "1"), 0);
	int *irqs;
	size_t n;
	assert_int_equal(np_irqbalance_irqs(c, 6, &irqs, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(irqs[0], 7);
	assert_int_equal(irqs[1], 45);
	assert_int_equal(irqs[2], 1000);
	free(irqs);
	assert_int_equal(np_irqbalance_irqs(c + 4, 2, &irqs, &n), 0);
	assert_int_equal(n, 0);
	assert_null(irqs);
	for (size_t i = 0; i < 6; i++)
		np_change_free(&c[i]);
}

static void test_ban_adds_to_the_users_args(void **state)
{
	(void)state;
	static const int irqs[] = { 40, 34 };
	check_ban("# settings\nIRQBALANCE_ARGS=\"--hintpolicy=exact\"\nIRQBALANCE_ONESHOT=\n", irqs, 2,
		  "# settings\n" MARK " 34 40" TAIL "IRQBALANCE_ARGS=\"--hintpolicy=exact --banirq=34 --banirq=40\"\n"
		  "IRQBALANCE_ONESHOT=\n",
		  "34 40");
	/* Single quotes stay, so do blanks and "export". */
	check_ban("  export IRQBALANCE_ARGS='-d '  \n", irqs, 1,
		  MARK " 40" TAIL "  export IRQBALANCE_ARGS='-d --banirq=40'  \n", "40");
	/* An unquoted value is quoted, for the words to stay one value. */
	check_ban("IRQBALANCE_ARGS=--hintpolicy=exact", irqs, 1,
		  MARK " 40" TAIL "IRQBALANCE_ARGS=\"--hintpolicy=exact --banirq=40\"", "40");
	check_ban("IRQBALANCE_ARGS=\n", irqs, 1, MARK " 40" TAIL "IRQBALANCE_ARGS=\"--banirq=40\"\n", "40");
	check_ban("IRQBALANCE_ARGS=\"\"\n", irqs, 1, MARK " 40" TAIL "IRQBALANCE_ARGS=\"--banirq=40\"\n", "40");
	/* The last assignment is the one that counts. */
	check_ban("IRQBALANCE_ARGS=\"-a\"\n#IRQBALANCE_ARGS=\"-c\"\nIRQBALANCE_ARGS=\"-b\"\n", irqs, 1,
		  "IRQBALANCE_ARGS=\"-a\"\n#IRQBALANCE_ARGS=\"-c\"\n" MARK " 40" TAIL "IRQBALANCE_ARGS=\"-b --banirq=40\"\n",
		  "40");
	/* Escaped quotes inside double quotes are part of the value. */
	check_ban("IRQBALANCE_ARGS=\"--x=\\\"a b\\\"\"\n", irqs, 1,
		  MARK " 40" TAIL "IRQBALANCE_ARGS=\"--x=\\\"a b\\\" --banirq=40\"\n", "40");
}

static void test_ban_appends_an_assignment(void **state)
{
	(void)state;
	static const int irqs[] = { 34 };
	/* Debian's file: every line a comment. */
	check_ban("# IRQBALANCE_ARGS\n#    Append any args here\n#IRQBALANCE_ARGS=\n", irqs, 1,
		  "# IRQBALANCE_ARGS\n#    Append any args here\n#IRQBALANCE_ARGS=\n\n" MARK " 34" TAIL
		  "IRQBALANCE_ARGS=\"--banirq=34\"\n",
		  "34");
	check_ban("IRQBALANCE_ONESHOT=1", irqs, 1,
		  "IRQBALANCE_ONESHOT=1\n\n" MARK " 34" TAIL "IRQBALANCE_ARGS=\"--banirq=34\"\n", "34");
	check_ban("", irqs, 1, MARK " 34" TAIL "IRQBALANCE_ARGS=\"--banirq=34\"\n", "34");
	/* A name that only starts the same is another variable. */
	check_ban("IRQBALANCE_ARGSX=\"-a\"\n", irqs, 1,
		  "IRQBALANCE_ARGSX=\"-a\"\n\n" MARK " 34" TAIL "IRQBALANCE_ARGS=\"--banirq=34\"\n", "34");
}

static void test_ban_is_idempotent(void **state)
{
	(void)state;
	static const int irqs[] = { 34, 40, 34 };
	/* Every spelling getopt takes counts as a ban. */
	check_ban("IRQBALANCE_ARGS=\"--banirq=34 -i40\"\n", irqs, 3, NULL, "");
	check_ban("IRQBALANCE_ARGS=\"--banirq 34 -i 40\"\n", irqs, 3, NULL, "");
	check_ban("IRQBALANCE_ARGS='-i 34'\n", irqs, 3, MARK " 40" TAIL "IRQBALANCE_ARGS='-i 34 --banirq=40'\n", "40");

	/* A second ban merges into numaplace's mark, and repeats nothing. */
	static const int first[] = { 34 }, second[] = { 34, 41 };
	const char *once = "# mine\n" MARK " 34" TAIL "IRQBALANCE_ARGS=\"-x --banirq=34\"\n";
	check_ban("# mine\nIRQBALANCE_ARGS=\"-x\"\n", first, 1, once, "34");
	check_ban(once, first, 1, NULL, "");
	check_ban(once, second, 2, "# mine\n" MARK " 34 41" TAIL "IRQBALANCE_ARGS=\"-x --banirq=34 --banirq=41\"\n",
		  "41");
	check_ban(once, NULL, 0, NULL, "");
}

static void test_ban_refuses_what_it_cannot_edit_safely(void **state)
{
	(void)state;
	check_refused("IRQBALANCE_ARGS=\"--a \\\n--b\"\n", "goes on past its line");
	check_refused("IRQBALANCE_ARGS='--a\n", "goes on past its line");
	check_refused("IRQBALANCE_ARGS=\"--a\" # comment\n", "text follows the value");
	check_refused("IRQBALANCE_ARGS=\"--a\"\"--b\"\n", "text follows the value");
	check_refused("IRQBALANCE_ARGS=--a --b\n", "text follows the value");
	check_refused("IRQBALANCE_ARGS=$OTHER\n", "would need quoting");
	check_refused("IRQBALANCE_ARGS=--a\\\n", "would need quoting");
	/* The shell would expand them, systemd would not. */
	check_refused("IRQBALANCE_ARGS=\"--a=$HOME\"\n", "which the shell expands and systemd does not");
	check_refused("IRQBALANCE_ARGS=\"`id`\"\n", "which the shell expands and systemd does not");
}

/* The revert's edit of current, for the ban edit old -> new. */
static void check_unban(const char *current, const char *old, const char *new, enum np_ban_state want_state,
			const char *want)
{
	enum np_ban_state state;
	char *out = (char *)"unset";
	assert_int_equal(np_irqbalance_unban_text(&ctx, current, old, new, &state, &out), 0);
	assert_int_equal(state, want_state);
	if (!want)
		assert_null(out);
	else
		assert_string_equal(out, want);
	free(out);
}

static void test_unban_restores_only_the_ban_lines(void **state)
{
	(void)state;
	const char *old = "A=1\nIRQBALANCE_ARGS=\"-x\"\nB=2\n";
	const char *new = "A=1\n" MARK " 34" TAIL "IRQBALANCE_ARGS=\"-x --banirq=34\"\nB=2\n";
	check_unban(new, old, new, NP_BANS_NEW, old);
	check_unban(old, old, new, NP_BANS_OLD, NULL);
	/* Lines edited or added since stay as they are now. */
	check_unban("A=9\n" MARK " 34" TAIL "IRQBALANCE_ARGS=\"-x --banirq=34\"\nB=2\nC=3\n", old, new, NP_BANS_NEW,
		    "A=9\nIRQBALANCE_ARGS=\"-x\"\nB=2\nC=3\n");
	/* The ban line edited since: drift, and forced, the old line. */
	check_unban("A=1\n" MARK " 34" TAIL "IRQBALANCE_ARGS=\"-x --banirq=34 -y\"\nB=2\n", old, new, NP_BANS_OTHER,
		    old);
	/* Removed since: drift, and forced, the old line at the end. */
	check_unban("A=1\nB=2", old, new, NP_BANS_OTHER, "A=1\nB=2\nIRQBALANCE_ARGS=\"-x\"\n");

	/* An appended assignment goes with the blank line before it, and the
	 * newline the file's last line lacked. */
	check_unban("IRQBALANCE_ONESHOT=1\n\n" MARK " 34" TAIL "IRQBALANCE_ARGS=\"--banirq=34\"\n", "IRQBALANCE_ONESHOT=1",
		    "IRQBALANCE_ONESHOT=1\n\n" MARK " 34" TAIL "IRQBALANCE_ARGS=\"--banirq=34\"\n", NP_BANS_NEW,
		    "IRQBALANCE_ONESHOT=1");
	check_unban("X=1\n\n\n" MARK " 34" TAIL "IRQBALANCE_ARGS=\"--banirq=34\"\nY=2\n", "X=1\n\n",
		    "X=1\n\n\n" MARK " 34" TAIL "IRQBALANCE_ARGS=\"--banirq=34\"\n", NP_BANS_NEW, "X=1\n\nY=2\n");
	check_unban(MARK " 34" TAIL "IRQBALANCE_ARGS=\"--banirq=34\"\n", "",
		    MARK " 34" TAIL "IRQBALANCE_ARGS=\"--banirq=34\"\n", NP_BANS_NEW, "");
}

/* What a journal of the kind may hold: the edit and nothing else. */
static void test_edit_ok_is_the_ban_edit_only(void **state)
{
	(void)state;
	const char *old = "A=1\nIRQBALANCE_ARGS=\"-x\"\n";
	assert_true(np_irqbalance_edit_ok(old, "A=1\n" MARK " 3\nIRQBALANCE_ARGS=\"-x --banirq=3\"\n"));
	assert_true(np_irqbalance_edit_ok("", MARK " 3\nIRQBALANCE_ARGS=\"--banirq=3\"\n"));
	/* Another line changed, a word other than a ban, nothing banned, free text. */
	assert_false(np_irqbalance_edit_ok(old, "A=2\n" MARK " 3\nIRQBALANCE_ARGS=\"-x --banirq=3\"\n"));
	assert_false(np_irqbalance_edit_ok(old, "A=1\n" MARK " 3\nIRQBALANCE_ARGS=\"-x -y\"\n"));
	assert_false(np_irqbalance_edit_ok(old, "A=1\n" MARK " 3\nIRQBALANCE_ARGS=\"-x\"\n"));
	assert_false(np_irqbalance_edit_ok("rm -rf /\n", "IRQBALANCE_ARGS=\"--banirq=3\"\n"));
	/* An old line the editor would not take: the revert would write it back. */
	assert_false(np_irqbalance_edit_ok("IRQBALANCE_ARGS=\"-x\"; rm -rf /\n",
					   MARK " 3\nIRQBALANCE_ARGS=\"-x --banirq=3\"; rm -rf /\n"));
	assert_false(np_irqbalance_edit_ok("IRQBALANCE_ARGS=\"$(id)\"\n",
					   MARK " 3\nIRQBALANCE_ARGS=\"$(id) --banirq=3\"\n"));
}

static void test_ban_change_reads_the_root(void **state)
{
	(void)state;
	char root[] = "/tmp/numaplace-irqb-XXXXXX", path[PATH_MAX];
	static const int irqs[] = { 34 };
	struct np_ctx rctx;
	struct np_change c;
	int *added;
	size_t nadded;

	struct np_irqb_conf conf;
	assert_non_null(mkdtemp(root));
	assert_int_equal(np_ctx_init(&rctx, root), 0);
	assert_int_equal(np_irqbalance_conf_find(&rctx, &conf), 0);
	assert_false(conf.exists);
	assert_int_equal(np_irqbalance_ban_change(&rctx, &conf, irqs, 1, &c, &added, &nadded), -ENOENT);
	assert_null(c.path);
	assert_non_null(strstr(rctx.err, "/etc/default/irqbalance"));

	snprintf(path, sizeof(path), "%s/etc", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/etc/default", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/etc/default/irqbalance", root);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("IRQBALANCE_ARGS=\"-x\"\n", f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(np_irqbalance_ban_change(&rctx, &conf, irqs, 1, &c, &added, &nadded), 0);
	assert_string_equal(c.path, "/etc/default/irqbalance");
	assert_string_equal(c.target.file, "default/irqbalance");
	assert_int_equal(c.attr, NP_ATTR_IRQBALANCE_CONFIG);
	assert_string_equal(c.subject, "irqbalance: --banirq=34");
	assert_string_equal(c.old_value, "IRQBALANCE_ARGS=\"-x\"\n");
	assert_string_equal(c.new_value, MARK " 34" TAIL "IRQBALANCE_ARGS=\"-x --banirq=34\"\n");
	assert_int_equal(nadded, 1);
	assert_int_equal(added[0], 34);
	np_change_free(&c);
	free(added);

	/* Banned already: no change. */
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("IRQBALANCE_ARGS=\"-i 34\"\n", f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(np_irqbalance_ban_change(&rctx, &conf, irqs, 1, &c, &added, &nadded), 0);
	assert_null(c.path);
	assert_null(c.new_value);
	assert_int_equal(nadded, 0);

	/* Refused: the message names the file. */
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("IRQBALANCE_ARGS=\"-x\" -y\n", f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(np_irqbalance_ban_change(&rctx, &conf, irqs, 1, &c, &added, &nadded), -EINVAL);
	assert_non_null(strstr(rctx.err, path));
	assert_non_null(strstr(rctx.err, "text follows the value"));

	np_ctx_fini(&rctx);
	assert_int_equal(tmproot_remove(root, NULL), 0);
}

/* Finds the file in a fresh root holding files (rel, content pairs, NULL-ended). */
static void check_conf(const char *const *files, const char *want_path, const char *want_var, bool want_exists,
		       const char *want_from)
{
	char root[64];
	struct np_ctx rctx;
	struct np_irqb_conf conf;
	assert_int_equal(tmproot_create(root, sizeof(root), "/tmp/numaplace-irqbconf-XXXXXX", &rctx), 0);
	for (size_t i = 0; files[i]; i += 2)
		tmproot_put(root, files[i], files[i + 1]);
	assert_int_equal(np_irqbalance_conf_find(&rctx, &conf), 0);
	assert_string_equal(conf.path, want_path);
	assert_string_equal(conf.var, want_var);
	assert_int_equal(conf.exists, want_exists);
	if (!strstr(conf.from, want_from))
		fail_msg("found %s through '%s', not '%s'", conf.path, conf.from, want_from);
	assert_int_equal(tmproot_remove(root, &rctx), 0);
}

static void test_conf_on_each_distribution(void **state)
{
	(void)state;
	check_conf((const char *const[]){ NULL }, "/etc/default/irqbalance", "IRQBALANCE_ARGS", false, "Debian");
	check_conf((const char *const[]){ "/etc/default/irqbalance", "", NULL }, "/etc/default/irqbalance",
		   "IRQBALANCE_ARGS", true, "Debian");
	check_conf((const char *const[]){ "/etc/sysconfig/irqbalance", "IRQBALANCE_ARGS=\n", NULL },
		   "/etc/sysconfig/irqbalance", "IRQBALANCE_ARGS", true, "RHEL");
	check_conf((const char *const[]){ "/etc/conf.d/irqbalance", "#IRQBALANCE_OPTS=\"\"\n", NULL },
		   "/etc/conf.d/irqbalance", "IRQBALANCE_OPTS", true, "OpenRC");
	/* The unit says, over any layout: the last of its files under /etc
	 * (upstream's vendor defaults under /usr are never edited). */
	check_conf((const char *const[]){
			   "/usr/lib/systemd/system/irqbalance.service",
			   "[Service]\nEnvironmentFile=-/usr/lib/irqbalance/defaults.env\n"
			   "EnvironmentFile=-/etc/sysconfig/irqbalance\nExecStart=/usr/sbin/irqbalance $IRQBALANCE_ARGS\n",
			   "/etc/default/irqbalance", "", "/etc/sysconfig/irqbalance", "", NULL },
		   "/etc/sysconfig/irqbalance", "IRQBALANCE_ARGS", true,
		   "EnvironmentFile= of /usr/lib/systemd/system/irqbalance.service");
	/* A drop-in in /etc replaces the list (an empty assignment clears it). */
	check_conf((const char *const[]){
			   "/lib/systemd/system/irqbalance.service",
			   "[Service]\nEnvironmentFile=-/etc/default/irqbalance\nExecStart=/usr/sbin/irqbalance $IRQBALANCE_OPTS\n",
			   "/etc/systemd/system/irqbalance.service.d/10-site.conf",
			   "[Service]\nEnvironmentFile=\nEnvironmentFile=/etc/irqbalance.env\n",
			   "/etc/irqbalance.env", "", "/etc/default/irqbalance", "", NULL },
		   "/etc/irqbalance.env", "IRQBALANCE_OPTS", true, "EnvironmentFile=");
	/* Named by the unit and missing: the unit's file, not existing. */
	check_conf((const char *const[]){ "/usr/lib/systemd/system/irqbalance.service",
					  "EnvironmentFile=-/etc/sysconfig/irqbalance\n", NULL },
		   "/etc/sysconfig/irqbalance", "IRQBALANCE_ARGS", false, "EnvironmentFile=");
}

/* OpenRC's variable: banned, checked as a journal's edit, and reverted byte for byte. */
static void test_ban_of_irqbalance_opts(void **state)
{
	(void)state;
	static const int irqs[] = { 7, 34 };
	const char *text = "# irqbalance\nIRQBALANCE_OPTS=\"--hintpolicy=exact\"\nIRQBALANCE_ARGS=\"-x\"\n";
	char *out, *back;
	int *added;
	size_t nadded;
	enum np_ban_state st;
	assert_int_equal(np_irqbalance_ban_text(&ctx, text, "IRQBALANCE_OPTS", irqs, 2, &out, &added, &nadded), 0);
	assert_string_equal(out, "# irqbalance\n" MARK " 7 34" TAIL
			    "IRQBALANCE_OPTS=\"--hintpolicy=exact --banirq=7 --banirq=34\"\nIRQBALANCE_ARGS=\"-x\"\n");
	assert_true(np_irqbalance_edit_ok(text, out));
	assert_int_equal(np_irqbalance_unban_text(&ctx, out, text, out, &st, &back), 0);
	assert_int_equal(st, NP_BANS_NEW);
	assert_string_equal(back, text);
	free(back);
	/* A line edited since stays. */
	char *since;
	assert_true(asprintf(&since, "%sIRQBALANCE_BANNED_CPULIST=0\n", out) > 0);
	assert_int_equal(np_irqbalance_unban_text(&ctx, since, text, out, &st, &back), 0);
	assert_string_equal(back, "# irqbalance\nIRQBALANCE_OPTS=\"--hintpolicy=exact\"\nIRQBALANCE_ARGS=\"-x\"\n"
				  "IRQBALANCE_BANNED_CPULIST=0\n");
	free(back);
	free(since);
	free(out);
	free(added);
}

/* The banned CPUs of a fresh root holding files (rel, content pairs,
 * NULL-ended): the list, the source text and the note. */
static void check_banned(const char *const *files, const char *want, const char *want_source, const char *want_note)
{
	char root[64];
	struct np_ctx rctx;
	struct np_irqb_banned b;
	assert_int_equal(tmproot_create(root, sizeof(root), "/tmp/numaplace-irqbban-XXXXXX", &rctx), 0);
	for (size_t i = 0; files[i]; i += 2)
		tmproot_put(root, files[i], files[i + 1]);
	assert_int_equal(np_irqbalance_banned_read(&rctx, &b), 0);
	char *list = np_cpuset_format_list(&b.cpus);
	assert_string_equal(list, want);
	if (want_source ? !b.source || !strstr(b.source, want_source) : b.source != NULL)
		fail_msg("source '%s', not '%s'", b.source ? b.source : "(none)", want_source ? want_source : "(none)");
	if (want_note ? !b.note || !strstr(b.note, want_note) : b.note != NULL)
		fail_msg("note '%s', not '%s'", b.note ? b.note : "(none)", want_note ? want_note : "(none)");
	free(list);
	np_irqbalance_banned_free(&b);
	assert_int_equal(tmproot_remove(root, &rctx), 0);
}

#define UNIT "/usr/lib/systemd/system/irqbalance.service"

static void test_banned_cpus(void **state)
{
	(void)state;
	/* Nothing set: irqbalance bans isolated and nohz_full, which are sources of their own. */
	check_banned((const char *const[]){ NULL }, "", NULL, NULL);
	check_banned((const char *const[]){ "/etc/default/irqbalance", "IRQBALANCE_ARGS=\n", NULL }, "", NULL, NULL);
	/* Empty values say nothing. */
	check_banned((const char *const[]){ "/etc/default/irqbalance",
					    "IRQBALANCE_BANNED_CPULIST=\nIRQBALANCE_BANNED_CPUS=\"\"\n", NULL },
		     "", NULL, NULL);
	check_banned((const char *const[]){ "/etc/sysconfig/irqbalance", "IRQBALANCE_BANNED_CPULIST=\"0,8-9\"\n", NULL },
		     "0,8-9", "IRQBALANCE_BANNED_CPULIST=0,8-9 in /etc/sysconfig/irqbalance", NULL);
	/* CRI-O's quoted mask in comma-separated 32-bit groups. */
	check_banned((const char *const[]){ "/etc/sysconfig/irqbalance",
					    "IRQBALANCE_BANNED_CPUS=\"ffffffff,ffff0000\"\n", NULL },
		     "16-63", "IRQBALANCE_BANNED_CPUS=16-63", NULL);
	/* Both: their union, and a note that irqbalance itself reads only the mask. */
	check_banned((const char *const[]){ "/etc/default/irqbalance",
					    "#IRQBALANCE_BANNED_CPULIST=1\nIRQBALANCE_BANNED_CPULIST=7\n"
					    "IRQBALANCE_BANNED_CPUS=00000011\n", NULL },
		     "0,4,7", "IRQBALANCE_BANNED_CPULIST=7", "setup_banned_cpus()");
	/* The last assignment counts, as the shell reads it. */
	check_banned((const char *const[]){ "/etc/default/irqbalance",
					    "IRQBALANCE_BANNED_CPULIST=1\nexport IRQBALANCE_BANNED_CPULIST=7\n", NULL },
		     "7", "IRQBALANCE_BANNED_CPULIST=7", NULL);
	/* A value irqbalance would not parse either is a note, not an error. */
	check_banned((const char *const[]){ "/etc/default/irqbalance", "IRQBALANCE_BANNED_CPULIST=x\n", NULL }, "", NULL,
		     "IRQBALANCE_BANNED_CPULIST='x' in /etc/default/irqbalance is not a CPU list");
}

/* With a unit: its Environment= first, then every EnvironmentFile= in order
 * (the vendor's defaults under /usr too), the last assignment winning; the
 * distribution's file no longer counts. */
static void test_banned_cpus_from_the_unit(void **state)
{
	(void)state;
	check_banned((const char *const[]){
			     UNIT, "[Service]\nEnvironmentFile=-/usr/lib/irqbalance/defaults.env\n"
				   "EnvironmentFile=-/etc/sysconfig/irqbalance\nExecStart=/usr/sbin/irqbalance $IRQBALANCE_ARGS\n",
			     "/usr/lib/irqbalance/defaults.env", "IRQBALANCE_BANNED_CPULIST=2\n",
			     "/etc/sysconfig/irqbalance", "IRQBALANCE_BANNED_CPULIST=3\n",
			     "/etc/default/irqbalance", "IRQBALANCE_BANNED_CPULIST=9\n", NULL },
		     "3", "IRQBALANCE_BANNED_CPULIST=3 in /etc/sysconfig/irqbalance", NULL);
	check_banned((const char *const[]){
			     UNIT, "[Service]\nEnvironmentFile=-/usr/lib/irqbalance/defaults.env\n",
			     "/usr/lib/irqbalance/defaults.env", "IRQBALANCE_BANNED_CPUS=\"\"\n",
			     "/etc/systemd/system/irqbalance.service.d/ban.conf",
			     "[Service]\nEnvironment=\"IRQBALANCE_BANNED_CPULIST=0-7,16-23\" OTHER=1\n", NULL },
		     "0-7,16-23", "in Environment= of " UNIT, NULL);
}

/* snapshot copies what the reader reads: every place a unit may be, the
 * drop-ins, the files a unit names and the distributions' files. */
static void test_irqbalance_files(void **state)
{
	(void)state;
	char root[64], **paths;
	size_t n;
	struct np_ctx rctx;
	assert_int_equal(tmproot_create(root, sizeof(root), "/tmp/numaplace-irqbfiles-XXXXXX", &rctx), 0);
	tmproot_put(root, UNIT, "[Service]\nEnvironmentFile=-/etc/irqbalance/env\n");
	tmproot_put(root, "/etc/systemd/system/irqbalance.service.d/x.conf", "[Service]\n");
	assert_int_equal(np_irqbalance_files(&rctx, &paths, &n), 0);
	const char *want[] = { UNIT, "/etc/systemd/system/irqbalance.service.d/x.conf", "/etc/irqbalance/env",
			       "/etc/default/irqbalance", "/etc/sysconfig/irqbalance", "/etc/conf.d/irqbalance" };
	for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		bool found = false;
		for (size_t i = 0; i < n && !found; i++)
			found = !strcmp(paths[i], want[k]);
		if (!found)
			fail_msg("%s is not among irqbalance's files", want[k]);
	}
	np_names_free(paths, n);
	assert_int_equal(tmproot_remove(root, &rctx), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_irqs_of_changes),
		cmocka_unit_test_setup_teardown(test_ban_adds_to_the_users_args, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ban_appends_an_assignment, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ban_is_idempotent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ban_refuses_what_it_cannot_edit_safely, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unban_restores_only_the_ban_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_edit_ok_is_the_ban_edit_only, setup, teardown),
		cmocka_unit_test(test_ban_change_reads_the_root),
		cmocka_unit_test(test_conf_on_each_distribution),
		cmocka_unit_test_setup_teardown(test_ban_of_irqbalance_opts, setup, teardown),
		cmocka_unit_test(test_banned_cpus),
		cmocka_unit_test(test_banned_cpus_from_the_unit),
		cmocka_unit_test(test_irqbalance_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
