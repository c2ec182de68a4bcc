/* SPDX-License-Identifier: GPL-2.0-or-later */
/* PCI names from the ID database (lib/read/pci-names.c) against libpci's
 * pci_lookup_name over the installed database: every vendor (with its first
 * device and an ID it lacks) and every subclass of every class, known or not. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pci/pci.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/pci.h"

static void add(struct np_pci *pci, size_t cap, unsigned vendor, unsigned device, unsigned cls)
{
	assert_true(pci->ndevs < cap);
	struct np_pci_dev *d = &pci->devs[pci->ndevs++];
	d->vendor_id = vendor, d->device_id = device, d->class_id = cls;
}

static void expect_same(struct pci_access *a, int flags, const char *got, int id1, int id2)
{
	char buf[256];
	const char *want =
		pci_lookup_name(a, buf, sizeof(buf), flags | PCI_LOOKUP_NO_NUMBERS | PCI_LOOKUP_NO_HWDB, id1, id2);
	if (!want || !got)
		assert_ptr_equal(want, got);
	else
		assert_string_equal(got, want);
}

static void test_like_libpci(void **state)
{
	(void)state;
	struct pci_access *a = pci_alloc();
	pci_init(a);
	char path[4096];
	snprintf(path, sizeof(path), "%s", a->id_file_name);
	size_t len = strlen(path);
	if (len > 3 && !strcmp(path + len - 3, ".gz"))
		path[len - 3] = '\0';
	FILE *f = fopen(path, "r");
	if (!f) {
		pci_cleanup(a);
		skip();
	}
	size_t cap = 20000;
	struct np_pci pci = { .devs = calloc(cap, sizeof(struct np_pci_dev)) };
	assert_non_null(pci.devs);
	char line[512];
	unsigned vendor = 0;
	bool first = false;
	while (fgets(line, sizeof(line), f)) {
		unsigned id;
		if (line[0] != '\t' && line[0] != '#' && line[1] != ' ' && sscanf(line, "%4x", &id) == 1) {
			vendor = id;
			first = true;
			add(&pci, cap, vendor, 0xfffe, NP_PCI_CLASS_UNKNOWN);
		} else if (first && line[0] == '\t' && line[1] != '\t' && sscanf(line + 1, "%4x", &id) == 1) {
			add(&pci, cap, vendor, id, NP_PCI_CLASS_UNKNOWN);
			first = false;
		}
	}
	fclose(f);
	for (unsigned cls = 0; cls < 0x2000; cls++)
		add(&pci, cap, NP_PCI_ID_UNKNOWN, NP_PCI_ID_UNKNOWN, cls);
	assert_true(pci.ndevs > 0x2000 + 1000); /* the database has its vendors */

	struct np_ctx ctx = { .root = "" };
	assert_int_equal(np_pci_lookup_names(&ctx, &pci), 0);
	for (size_t i = 0; i < pci.ndevs; i++) {
		const struct np_pci_dev *d = &pci.devs[i];
		if (d->vendor_id != NP_PCI_ID_UNKNOWN) {
			expect_same(a, PCI_LOOKUP_VENDOR, d->vendor, (int)d->vendor_id, 0);
			expect_same(a, PCI_LOOKUP_DEVICE, d->device, (int)d->vendor_id, (int)d->device_id);
		} else {
			assert_null(d->vendor);
			assert_null(d->device);
		}
		if (d->class_id != NP_PCI_CLASS_UNKNOWN)
			expect_same(a, PCI_LOOKUP_CLASS, d->class_name, (int)d->class_id, 0);
		else
			assert_null(d->class_name);
	}
	np_pci_free(&pci);
	pci_cleanup(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_like_libpci),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
