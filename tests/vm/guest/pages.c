/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The process whose pages the guest's move --memory test migrates:
 *
 *   pages MIB
 *
 * touches MIB mebibytes of private memory (placed on the node of the CPU it
 * runs on, by the kernel's first-touch rule), prints "ready", then waits to
 * be killed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	size_t len = (argc > 1 ? strtoul(argv[1], NULL, 10) : 16) << 20;
	char *p = malloc(len);
	if (!p) {
		perror("pages: malloc");
		return 1;
	}
	memset(p, 1, len);
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}
