/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Every real action name of the corpus classified as written there, and the
 * pairs that matter: only one family's rx and tx vectors pair. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/vector.h"

#ifndef CORPUS
#define CORPUS "tests/unit/vector-corpus.txt"
#endif

static void test_corpus(void **state)
{
	(void)state;
	FILE *f = fopen(CORPUS, "r");
	assert_non_null(f);
	char line[512];
	int n = 0;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || line[0] == '\n')
			continue;
		char *field[7] = { 0 }, *save = NULL, *p = line;
		for (int i = 0; i < 7; i++, p = NULL)
			field[i] = strtok_r(p, "|\n", &save);
		if (!field[6])
			fail_msg("corpus line without its source: %s", line);
		struct np_vector_class c;
		if (!np_vector_classify(field[0], &c))
			fail_msg("%s: not classified", field[0]);
		if (strcmp(c.family, field[1]) || strcmp(c.pair, field[2]) || c.queue != atoi(field[3]) ||
		    strcmp(np_vec_dir_name(c.dir), field[4]) || strcmp(np_vec_role_name(c.role), field[5]))
			fail_msg("%s: got %s|%s|%d|%s|%s, the corpus says %s|%s|%s|%s|%s", field[0], c.family, c.pair,
				 c.queue, np_vec_dir_name(c.dir), np_vec_role_name(c.role), field[1], field[2], field[3],
				 field[4], field[5]);
		n++;
	}
	fclose(f);
	assert_true(n >= 30);
}

static bool paired(const char *a, const char *b)
{
	struct np_vector_class x, y;
	np_vector_classify(a, &x);
	np_vector_classify(b, &y);
	return x.queue >= 0 && x.queue == y.queue && !strcmp(x.pair, y.pair);
}

static void test_only_one_family_pairs(void **state)
{
	(void)state;
	assert_true(paired("eth0-rx-3", "eth0-tx-3"));
	assert_true(paired("virtio0-input.2", "virtio0-output.2"));
	assert_false(paired("ice-ens3f0-TxRx-7", "irdma-0000:4b:00.0-CEQ-7"));
	assert_false(paired("ice-ens3f0-TxRx-0", "ice-0000:4b:00.0:ctrl-TxRx-0"));
	assert_false(paired("i40e-ens7f0-TxRx-0", "i40e-0000:86:00.0:fdir-TxRx-0"));
	assert_false(paired("eth0-rx-3", "eth1-tx-3"));
	assert_false(paired("eth0-rx-3", "eth0-tx-4"));
}

static void test_balance_counts_data_and_rdma_only(void **state)
{
	(void)state;
	static const struct {
		const char *name;
		bool balanced;
	} v[] = {
		{ "ice-ens3f0-TxRx-7", true },         { "irdma-0000:4b:00.0-CEQ-7", true },
		{ "ice-0000:4b:00.0:ctrl-TxRx-0", false }, { "i40e-0000:31:00.0:fdir-TxRx-0", false },
		{ "mlx5_async0@pci:0000:81:00.0", false }, { "nvme0q0", false },
		{ "i40e-0000:86:00.1:misc", false },    { "eno1", false },
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct np_vector_class c;
		np_vector_classify(v[i].name, &c);
		if (np_vector_balanced(&c) != v[i].balanced)
			fail_msg("%s: balanced %d, expected %d", v[i].name, np_vector_balanced(&c), v[i].balanced);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_corpus),
		cmocka_unit_test(test_only_one_family_pairs),
		cmocka_unit_test(test_balance_counts_data_and_rdma_only),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
