/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Replays corpus files through a harness without libFuzzer's runtime, so
 * that make check runs them under the sanitizers with any compiler. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		if (!f) {
			perror(argv[i]);
			return 1;
		}
		/* Says which input a failure came from: the abort says no more. */
		fprintf(stderr, "input %s\n", argv[i]);
		static uint8_t buf[1 << 20];
		size_t n = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		LLVMFuzzerTestOneInput(buf, n);
	}
	printf("replayed %d inputs\n", argc - 1);
	return 0;
}
