/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Checks `numaplace --root ROOT devices --matrix --class all --json` (on
 * stdin) against hwloc's own PCI tree of the same root (HWLOC_FSROOT, as
 * lstopo --whole-io reads it: hwloc places each function by the bridges'
 * secondary and subordinate bus numbers in config space, numaplace by its
 * sysfs path): the same functions, each below the same chain of bridges, and
 * two functions share a root bus for numaplace (PIX, PXB or PHB) exactly when
 * they share a host bridge in hwloc. Prints each difference; exits 1 when
 * there is any, 2 when it cannot compare. */
#include <cjson/cJSON.h>
#include <hwloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int differences;

#define DIFF(...) (differences++, fprintf(stderr, __VA_ARGS__), fputc('\n', stderr))

static char *slurp(FILE *f)
{
	size_t cap = 1 << 16, len = 0, n;
	char *buf = malloc(cap);
	while (buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (len + 1 == cap && !(buf = realloc(buf, cap *= 2)))
			return NULL;
	}
	if (buf)
		buf[len] = '\0';
	return buf;
}

static void busid(hwloc_obj_t o, char out[16])
{
	snprintf(out, 16, "%04x:%02x:%02x.%x", o->attr->pcidev.domain, o->attr->pcidev.bus, o->attr->pcidev.dev,
		 o->attr->pcidev.func);
}

/* The PCI-to-PCI bridges above o, root port first, comma-joined. */
static void hwloc_chain(hwloc_obj_t o, char *out, size_t size)
{
	hwloc_obj_t chain[64];
	size_t n = 0;
	for (hwloc_obj_t p = o->parent; p && n < 64; p = p->parent)
		if (p->type == HWLOC_OBJ_BRIDGE && p->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_PCI)
			chain[n++] = p;
	out[0] = '\0';
	while (n > 0) {
		char id[16];
		busid(chain[--n], id);
		snprintf(out + strlen(out), size - strlen(out), "%s%s", out[0] ? "," : "", id);
	}
}

static void numaplace_chain(const cJSON *dev, char *out, size_t size)
{
	const cJSON *b;
	out[0] = '\0';
	cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(dev, "bridges"))
	{
		if (cJSON_IsString(b))
			snprintf(out + strlen(out), size - strlen(out), "%s%s", out[0] ? "," : "", b->valuestring);
	}
}

static hwloc_obj_t host_bridge(hwloc_obj_t o)
{
	for (hwloc_obj_t p = o->parent; p; p = p->parent)
		if (p->type == HWLOC_OBJ_BRIDGE && p->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_HOST)
			return p;
	return NULL;
}

static const char *str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void compare(hwloc_topology_t topo, const cJSON *doc)
{
	const cJSON *devices = cJSON_GetObjectItemCaseSensitive(doc, "devices"), *d, *l;
	int ours = 0;
	cJSON_ArrayForEach(d, devices)
	{
		const char *addr = str(d, "device");
		hwloc_obj_t o = addr ? hwloc_get_pcidev_by_busidstring(topo, addr) : NULL;
		ours++;
		if (!o) {
			DIFF("%s: not a PCI device for hwloc", addr ? addr : "(no address)");
			continue;
		}
		char mine[2048], theirs[2048];
		numaplace_chain(d, mine, sizeof(mine));
		hwloc_chain(o, theirs, sizeof(theirs));
		if (strcmp(mine, theirs))
			DIFF("%s: bridges above it: hwloc [%s], numaplace [%s]", addr, theirs, mine);
	}
	/* --class all: every function but bridges, as hwloc's PCI devices. */
	int theirs = 0;
	for (hwloc_obj_t o = NULL; (o = hwloc_get_next_pcidev(topo, o));)
		theirs += o->attr->pcidev.class_id >> 8 != 0x06;
	if (theirs != ours)
		DIFF("functions but bridges: hwloc %d, numaplace %d", theirs, ours);
	cJSON_ArrayForEach(l, cJSON_GetObjectItemCaseSensitive(doc, "links"))
	{
		const char *a = str(l, "a"), *b = str(l, "b"), *link = str(l, "link");
		hwloc_obj_t oa = a ? hwloc_get_pcidev_by_busidstring(topo, a) : NULL;
		hwloc_obj_t ob = b ? hwloc_get_pcidev_by_busidstring(topo, b) : NULL;
		if (!oa || !ob || !link)
			continue;
		bool same_root = strcmp(link, "NODE") && strcmp(link, "SYS");
		if (same_root != (host_bridge(oa) == host_bridge(ob)))
			DIFF("%s %s: numaplace %s, hwloc %s host bridge", a, b, link,
			     host_bridge(oa) == host_bridge(ob) ? "one" : "different");
	}
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s ROOT < numaplace-matrix.json\n", argv[0]);
		return 2;
	}
	char *text = slurp(stdin);
	cJSON *doc = text ? cJSON_Parse(text) : NULL;
	free(text);
	if (!doc) {
		fprintf(stderr, "cannot parse numaplace's JSON\n");
		return 2;
	}
	setenv("HWLOC_FSROOT", argv[1], 1);
	/* The root's files only: the Linux backend and its sysfs I/O discovery
	 * (not libpciaccess, which reads this host's bus). */
	setenv("HWLOC_COMPONENTS", "linux,linuxio,stop", 1);
	hwloc_topology_t topo;
	if (hwloc_topology_init(&topo) < 0 ||
	    hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_ALL) < 0 ||
	    hwloc_topology_load(topo) < 0) {
		fprintf(stderr, "hwloc cannot load %s\n", argv[1]);
		return 2;
	}
	compare(topo, doc);
	hwloc_topology_destroy(topo);
	cJSON_Delete(doc);
	if (differences)
		fprintf(stderr, "%d difference(s) between hwloc and numaplace\n", differences);
	return differences ? 1 : 0;
}
