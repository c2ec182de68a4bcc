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
	/* Touched through a volatile pointer: a memset of memory never read
	 * again may be left out by the compiler. */
	for (size_t i = 0; i < len; i += 4096)
		((volatile char *)p)[i] = 1;
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}
