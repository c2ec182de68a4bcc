/* SPDX-License-Identifier: GPL-2.0-or-later */
/* PCI vendor, device and class names from the PCI ID database (pci.ids),
 * answered as libpci's pci_lookup_name answers them.
 *
 * libpci loads the whole database into a hash table before its first
 * answer: 1.4 MB parsed line by line through zlib's gzgets, a seventh of a
 * report's own time on a 1024-CPU machine, to name a few dozen functions.
 * Here the same file is mapped and passed over once, keeping only the
 * lines of the IDs asked for. libpci stays the reader of a compressed
 * database (pci.ids.gz) and the one that says where the database is. */
#include "read/pci.h"

#include <errno.h>
#include <fcntl.h>
#include <pci/pci.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* libpci's answers fit its callers' buffers of this size, cut with "...". */
#define NAME_MAX_LEN 256

/* libpci reports fatal errors through a callback that must not return:
 * jump back to np_pci_lookup_names and turn it into an error return. */
static jmp_buf *pci_escape;
static char pci_message[256];

static void __attribute__((noreturn)) pci_fatal(char *msg, ...)
{
	va_list ap;
	va_start(ap, msg);
	vsnprintf(pci_message, sizeof(pci_message), msg, ap);
	va_end(ap);
	longjmp(*pci_escape, 1);
}

/* A missing or odd ID database is only warned about: the names stay unknown. */
static void pci_quiet(char *msg, ...)
{
	(void)msg;
}

/* A name as libpci's pci_lookup_name puts it in a buffer of NAME_MAX_LEN:
 * name, then " [suffix]" when suffix is given, cut with "..." when longer. */
static char *name_dup(const char *name, size_t len, const char *suffix)
{
	char buf[NAME_MAX_LEN];
	int n = snprintf(buf, sizeof(buf), suffix ? "%.*s [%s]" : "%.*s", (int)len, name, suffix);
	if (n < 0)
		return NULL;
	if ((size_t)n >= sizeof(buf))
		memcpy(buf + sizeof(buf) - 4, "...", 3);
	return strdup(buf);
}

static char *lookup(struct pci_access *pacc, int flags, ...)
{
	char buf[NAME_MAX_LEN];
	va_list ap;
	va_start(ap, flags);
	int first = va_arg(ap, int), second = va_arg(ap, int);
	va_end(ap);
	/* Only the ID database: answers must not depend on this machine's udev. */
	const char *name = pci_lookup_name(pacc, buf, sizeof(buf),
					   flags | PCI_LOOKUP_NO_NUMBERS | PCI_LOOKUP_NO_HWDB, first, second);
	return name ? strdup(name) : NULL;
}

/* Every name through libpci (a compressed database). */
static int lookup_libpci(struct np_ctx *ctx, struct pci_access *pacc, struct np_pci *pci)
{
	jmp_buf escape;
	pacc->error = pci_fatal;
	pci_escape = &escape;
	if (setjmp(escape)) {
		pci_escape = NULL;
		return np_fail(ctx, -EIO, "looking up PCI names: %s", pci_message);
	}
	for (size_t i = 0; i < pci->ndevs; i++) {
		struct np_pci_dev *d = &pci->devs[i];
		/* An unknown ID has no name ("Illegal Vendor ID" is the database's for ffff). */
		if (d->vendor_id != NP_PCI_ID_UNKNOWN)
			d->vendor = lookup(pacc, PCI_LOOKUP_VENDOR, d->vendor_id, 0);
		if (d->vendor_id != NP_PCI_ID_UNKNOWN && d->device_id != NP_PCI_ID_UNKNOWN)
			d->device = lookup(pacc, PCI_LOOKUP_DEVICE, d->vendor_id, d->device_id);
		if (d->class_id != NP_PCI_CLASS_UNKNOWN)
			d->class_name = lookup(pacc, PCI_LOOKUP_CLASS, d->class_id, 0);
	}
	pci_escape = NULL;
	return 0;
}

/* n hexadecimal digits at p (either case, as libpci reads them), or -1. */
static int hex_id(const char *p, const char *end, int n)
{
	int v = 0;
	if (end - p < n)
		return -1;
	for (int i = 0; i < n; i++) {
		char c = p[i];
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
						     : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			return -1;
		v = v << 4 | d;
	}
	return v;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

/* The name after an ID of n digits at p, which a blank must follow: its
 * start and length (without the one trailing blank libpci drops), or NULL. */
static const char *entry_name(const char *p, const char *end, int n, size_t *len)
{
	if (end - p <= n || !blank(p[n]))
		return NULL;
	p += n;
	while (p < end && blank(*p))
		p++;
	if (p == end)
		return NULL;
	if (blank(end[-1]))
		end--;
	*len = (size_t)(end - p);
	return p;
}

/* A bit per 16-bit ID. */
struct idset {
	uint64_t bits[1024];
};

static void idset_add(struct idset *s, unsigned id)
{
	s->bits[(id & 0xffff) / 64] |= UINT64_C(1) << (id % 64);
}

static bool idset_has(const struct idset *s, int id)
{
	return id >= 0 && (s->bits[id / 64] >> (id % 64)) & 1;
}

struct wanted {
	struct idset vendors, devices, classes; /* classes: base class in the high byte, as class_id */
};

static int set_names(struct np_pci *pci, size_t off, bool (*match)(const struct np_pci_dev *, int, int), int id1,
		     int id2, const char *name, size_t len)
{
	for (size_t i = 0; i < pci->ndevs; i++) {
		struct np_pci_dev *d = &pci->devs[i];
		char **slot = (char **)((char *)d + off);
		if (!*slot && match(d, id1, id2) && !(*slot = name_dup(name, len, NULL)))
			return -ENOMEM;
	}
	return 0;
}

static bool vendor_is(const struct np_pci_dev *d, int vendor, int unused)
{
	(void)unused;
	return d->vendor_id == (unsigned)vendor;
}

static bool device_is(const struct np_pci_dev *d, int vendor, int device)
{
	return d->vendor_id == (unsigned)vendor && d->device_id == (unsigned)device;
}

static bool class_is(const struct np_pci_dev *d, int base, int sub)
{
	return d->class_id == (unsigned)(base << 8 | sub);
}

/* One pass over the database for the names asked for (w), the first entry
 * winning (libpci refuses a database with two, which never ships). A base
 * class's own name is kept in base[] for functions whose subclass has none. */
static int scan(struct np_pci *pci, const struct wanted *w, const char *text, size_t size,
		const char *base[256], size_t base_len[256])
{
	enum { VENDOR, CLASS, OTHER } block = OTHER;
	int id1 = -1;
	bool wanted = false; /* the current vendor's or class's entries are asked for */
	int rc = 0;
	for (const char *line = text, *stop = text + size; rc == 0 && line < stop;) {
		const char *nl = memchr(line, '\n', (size_t)(stop - line));
		const char *p = line, *end = nl ? nl : stop;
		line = nl ? nl + 1 : stop;
		if (end > p && end[-1] == '\r')
			end--;
		/* The nesting is the count of leading tabs, as libpci counts it. */
		int tabs = 0;
		while (p < end && *p == '\t')
			p++, tabs++;
		const char *s = p, *name;
		while (s < end && blank(*s))
			s++;
		if (s == end || *s == '#')
			continue;
		size_t len;
		if (tabs == 0) {
			wanted = false;
			if (end - p > 1 && p[0] == 'C' && p[1] == ' ') {
				block = CLASS;
				id1 = hex_id(p + 2, end, 2);
				wanted = id1 >= 0 && idset_has(&w->classes, id1 << 8);
				if (wanted && (name = entry_name(p + 2, end, 2, &len)) && !base[id1])
					base[id1] = name, base_len[id1] = len;
			} else if (end - p > 1 && p[0] >= 'A' && p[0] <= 'Z' && p[1] == ' ') {
				block = OTHER; /* generic subsystems, and blocks yet to come */
			} else {
				block = VENDOR;
				id1 = hex_id(p, end, 4);
				wanted = idset_has(&w->vendors, id1);
				if (wanted && (name = entry_name(p, end, 4, &len)))
					rc = set_names(pci, offsetof(struct np_pci_dev, vendor), vendor_is, id1, 0, name, len);
			}
		} else if (tabs == 1 && wanted && block == VENDOR) {
			int id2 = hex_id(p, end, 4);
			if (idset_has(&w->devices, id2) && (name = entry_name(p, end, 4, &len)))
				rc = set_names(pci, offsetof(struct np_pci_dev, device), device_is, id1, id2, name, len);
		} else if (tabs == 1 && wanted && block == CLASS) {
			int id2 = hex_id(p, end, 2);
			if (id2 >= 0 && idset_has(&w->classes, id1 << 8 | id2) && (name = entry_name(p, end, 2, &len)))
				rc = set_names(pci, offsetof(struct np_pci_dev, class_name), class_is, id1, id2, name, len);
		}
	}
	return rc;
}

/* The names from the uncompressed database at path. *done false: it is
 * compressed, for libpci to read. A database that cannot be read leaves the
 * names unknown, as libpci does. libpci built to read a compressed one
 * names it pci.ids.gz, and reads pci.ids when there is no such file. */
static int lookup_mapped(struct np_pci *pci, const char *path, bool *done)
{
	char plain[4096];
	size_t plen = strlen(path);
	*done = true;
	if (plen > 3 && !strcmp(path + plen - 3, ".gz")) {
		if (access(path, F_OK) == 0 || plen - 3 >= sizeof(plain)) {
			*done = false;
			return 0;
		}
		memcpy(plain, path, plen - 3);
		plain[plen - 3] = '\0';
		path = plain;
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < 2) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	size_t size = (size_t)st.st_size;
	const char *text = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (text == MAP_FAILED)
		return 0;
	int rc = 0;
	if ((unsigned char)text[0] == 0x1f && (unsigned char)text[1] == 0x8b) {
		*done = false; /* gzip's magic, whatever the name */
	} else {
		struct wanted *w = calloc(1, sizeof(*w));
		const char *base[256] = { NULL };
		size_t base_len[256];
		rc = w ? 0 : -ENOMEM;
		for (size_t i = 0; w && i < pci->ndevs; i++) {
			const struct np_pci_dev *d = &pci->devs[i];
			/* An unknown ID has no name ("Illegal Vendor ID" is the database's for ffff). */
			if (d->vendor_id != NP_PCI_ID_UNKNOWN)
				idset_add(&w->vendors, d->vendor_id);
			if (d->vendor_id != NP_PCI_ID_UNKNOWN && d->device_id != NP_PCI_ID_UNKNOWN)
				idset_add(&w->devices, d->device_id);
			if (d->class_id != NP_PCI_CLASS_UNKNOWN) {
				idset_add(&w->classes, d->class_id);
				idset_add(&w->classes, d->class_id & 0xff00);
			}
		}
		if (rc == 0)
			rc = scan(pci, w, text, size, base, base_len);
		/* A subclass the database does not know: its class's name and the
		 * number, as libpci gives it ("Network controller [0280]"). */
		for (size_t i = 0; rc == 0 && i < pci->ndevs; i++) {
			struct np_pci_dev *d = &pci->devs[i];
			char num[8];
			snprintf(num, sizeof(num), "%04x", d->class_id & 0xffff);
			if (d->class_id != NP_PCI_CLASS_UNKNOWN && !d->class_name && base[d->class_id >> 8 & 0xff] &&
			    !(d->class_name = name_dup(base[d->class_id >> 8 & 0xff], base_len[d->class_id >> 8 & 0xff], num)))
				rc = -ENOMEM;
		}
		free(w);
	}
	munmap((void *)text, size);
	return rc;
}

int np_pci_lookup_names(struct np_ctx *ctx, struct np_pci *pci)
{
	/* libpci says where the database is; no access method is set up, so
	 * it opens nothing under the root. */
	struct pci_access *pacc = pci_alloc();
	if (!pacc)
		return np_fail(ctx, -ENOMEM, "looking up PCI names: %s", strerror(ENOMEM));
	pacc->warning = pci_quiet;
	pacc->debug = pci_quiet;
	bool done;
	int rc = lookup_mapped(pci, pacc->id_file_name, &done);
	if (rc == 0 && !done)
		rc = lookup_libpci(ctx, pacc, pci);
	pci_cleanup(pacc);
	if (rc == -ENOMEM)
		return np_fail(ctx, rc, "looking up PCI names: %s", strerror(ENOMEM));
	return rc;
}
