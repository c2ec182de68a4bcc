/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Prints, one extended regular expression a line, the paths in a snapshot
 * (numaplace snapshot OUT, relative to OUT) of the files the tunable kinds'
 * rows name for a snapshot to copy (np_attrs[].dir and .snapshot): the part
 * of tests/scripts/snapshot.sh's allow-list that comes from the table, so
 * that a new kind needs no edit there. */
#include <stdio.h>
#include <string.h>

#include "change/attr.h"

/* Where a dir's files land in a snapshot: /sys/class/net and /sys/block are
 * links into /sys/devices, copied there. */
static const char *const dir_prefix[] = {
	[NP_DIR_ROOT] = "^",
	[NP_DIR_IRQ] = "^proc/irq/[0-9]+/",
	[NP_DIR_NET_QUEUE] = "^sys/devices/.*/queues/[rt]x-[0-9]+/",
	[NP_DIR_BLOCK] = "^sys/devices/.*/",
};

static void print_literal(const char *s)
{
	for (; *s; s++) {
		if (strchr(".[]()*+?{}|^$\\", *s))
			putchar('\\');
		putchar(*s);
	}
}

int main(void)
{
	for (int a = 0; a < NP_ATTR_COUNT; a++) {
		const struct np_attr_desc *d = &np_attrs[a];
		if (d->dir == NP_DIR_NONE || !d->snapshot)
			continue;
		if (d->dir >= sizeof(dir_prefix) / sizeof(dir_prefix[0]) || !dir_prefix[d->dir]) {
			fprintf(stderr, "attr-files: %s: a snapshot directory this program does not know\n", d->name);
			return 1;
		}
		for (const char *const *f = d->snapshot; *f; f++) {
			fputs(dir_prefix[d->dir], stdout);
			print_literal(d->dir == NP_DIR_ROOT && **f == '/' ? *f + 1 : *f);
			puts("$");
		}
	}
	return 0;
}
