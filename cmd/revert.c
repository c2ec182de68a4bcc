#include <errno.h>
#include <string.h>

#include "../lib/txn.h"
#include "cmd.h"

const struct np_option revert_options[] = {
	{ "force", 'f', NULL, "restore even values that someone changed since the apply", NULL },
	{ "state-dir", 0, "DIR", "where the transactions are (default /var/lib/numaplace, under --root)", "dir" },
	{ "no-wait", 0, NULL, "fail at once when another apply or revert holds the lock", NULL },
	{ NULL, 0, NULL, NULL, NULL },
};

int cmd_revert(int argc, char **argv, struct np_ctx *ctx)
{
	const struct np_command *self = np_command_find("revert");
	struct np_optparse st = { 0 };
	struct np_txn_opts topts = { .wait_for_lock = true };
	const char *arg;
	bool force = false;
	int opt;
	while ((opt = np_opt_next(&st, self, argc, argv, &arg)) >= 0) {
		const char *name = self->options[opt].name;
		if (!strcmp(name, "force"))
			force = true;
		else if (!strcmp(name, "state-dir"))
			topts.state_dir = arg;
		else
			topts.wait_for_lock = false;
	}
	if (opt != NP_OPT_END)
		return opt == NP_OPT_HELP ? EXIT_OK : EXIT_USAGE;
	if (argc - st.index > 1)
		return np_usage_error(self, "expected at most one transaction ID (see 'numaplace history')");

	struct np_txn txn;
	int rc = np_txn_revert(ctx, &topts, st.index < argc ? argv[st.index] : NULL, force, &txn);
	if (rc == -ESTALE) {
		/* Not a failure: the values are already the boot's defaults. */
		printf("%s\n", ctx->err);
		return EXIT_OK;
	}
	if (rc)
		return np_error("%s", ctx->err);
	bool config = false;
	for (size_t i = 0; i < txn.nchanges; i++) {
		const struct np_change *c = &txn.changes[i];
		/* A whole file is no line to show: say what changed in it. */
		bool text = np_attrs[c->attr].value == NP_VALUE_TEXT;
		if (text)
			printf("  %s removed: %s restored\n", c->subject, c->path);
		else
			printf("  %s: %s -> %s\n", c->subject, c->new_value, c->old_value);
		config |= text;
	}
	printf("reverted transaction %s (%s): %zu value%s restored\n", txn.id, txn.profile, txn.nchanges,
	       txn.nchanges == 1 ? "" : "s");
	if (config)
		puts("restart irqbalance if it runs: systemctl restart irqbalance (it reads IRQBALANCE_ARGS only when it starts)");
	np_txn_free(&txn);
	return EXIT_OK;
}
