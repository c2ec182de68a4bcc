/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What more than one command shows: the topology, the devices and the IRQs
 * (report shows all three), each described once for text and JSON. */
#ifndef NUMAPLACE_RENDER_H
#define NUMAPLACE_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "change/attr.h"
#include "render/output.h"

struct np_machine;
struct np_topology;

/* topo: a summary, the nodes table and, with per_cpu, the CPUs table, with
 * each CPU's time in devices' interrupts from load (unknown when it has
 * none). Writes the topology's keys into the open object. self: the command
 * showing it, which its tables' messages name. Returns an exit status. */
struct np_cpu_load;
int np_topo_write(const struct np_command *self, struct np_jw *jw, const struct np_topology *topo,
		  const struct np_cpu_load *load);
int np_topo_print(const struct np_command *self, const struct np_topology *topo, const struct np_cpu_load *load,
		  FILE *out, bool per_cpu);
/* What the topology could not read, one "numaplace: note:" line each. */
void np_topo_print_notes(const struct np_topology *topo);

/* Pods' exclusive CPUs: a paragraph after the topology (nothing without
 * any), and the "kubelet" key (null without a state file). */
struct np_kubelet;
void np_kube_print(const struct np_kubelet *k, FILE *out);
void np_kube_write(struct np_jw *jw, const struct np_kubelet *k);
/* What a device is called in a line: its interface, block device or driver. */
struct np_pci_dev;
const char *np_device_label(const struct np_pci_dev *d);
/* "interrupts_where": per device with IRQs, its interrupts by where they ran
 * (np_device_where; m->kube split first), as metrics exports them. */
void np_where_write(struct np_jw *jw, const struct np_machine *m);

/* devices: the selected ones (a flag per PCI function). */
/* Writes them as the array key. */
void np_devices_write(struct np_jw *jw, const char *key, const struct np_machine *m, const bool *selected);
void np_devices_print(const struct np_machine *m, const bool *selected, FILE *out);

/* PCIe proximity (render-matrix.c): the link types between the selected
 * devices, as a matrix (text, or JSON "devices" and "links"), and the devices
 * nearest one (--near), rows of np_near_columns. */
struct np_pcitree;
int np_matrix_print(const struct np_machine *m, const struct np_pcitree *t, const bool *selected, FILE *out);
void np_matrix_write(struct np_jw *jw, const struct np_machine *m, const struct np_pcitree *t, const bool *selected);
struct np_near {
	const struct np_machine *m;
	const struct np_pcitree *tree;
	size_t dev; /* the device the others are near to */
};
extern const struct np_column np_near_columns[];
#define NP_NEAR_DEFAULT_COLUMNS "device,kind,link,acs,node,distance,netdev,rdma,block,name"
/* The selected devices but near->dev, nearest first: *rows (malloc'd) holds
 * *nrows rows of np_near_row_size() bytes each. 0 or -ENOMEM. */
int np_near_rows(const struct np_near *near, const bool *selected, void **rows, size_t *nrows);
size_t np_near_row_size(void);

/* irqs: one row per IRQ, the row a struct np_irq, the data an np_irq_view:
 * the machine and, after --interval, the seconds sampled (else 0). */
struct np_nodes_memo;
struct np_irq_view {
	const struct np_machine *m;
	double seconds;
	/* Optional (np_nodes_memo_new): the nodes of the last CPU sets asked
	 * about. Consecutive IRQs mostly share their affinity (all CPUs, a
	 * node's), and finding the nodes of 1024 CPUs walks each of them. */
	struct np_nodes_memo *memo;
};
struct np_nodes_memo *np_nodes_memo_new(void);
void np_nodes_memo_free(struct np_nodes_memo *memo);
extern const struct np_column np_irq_columns[];
#define NP_IRQ_DEFAULT_COLUMNS \
	"irq,name,device,queue,affinity,effective,effective_nodes,node,managed,total,per_node,remote_share,per_cpu"
#define NP_IRQ_RATE_COLUMNS \
	"irq,name,device,queue,affinity,effective,effective_nodes,node,managed,total,per_sec,per_node,remote_share,per_cpu"

/* A value of a change as people read it, the same in apply, verify, revert
 * and advise: CPU masks and lists as the CPU list ("1,8"; "off" when
 * empty), other values as they are (malloc'd). JSON and -r/-P keep the
 * file's own text, what is written. */
char *np_value_shown(enum np_value_kind kind, const char *value);
/* A table cell of such a value: shown so for people (v->text), else as it is. */
int np_val_change_value(struct np_value *v, enum np_value_kind kind, const char *value);
/* "  SUBJECT: FROM -> TO", the values shown so. */
void np_print_change_line(FILE *out, enum np_attr attr, const char *subject, const char *from, const char *to);

/* The changes of a transaction, as a JSON array of {path, subject, old, new}. */
struct np_change;
extern const struct np_column np_change_columns[];
cJSON *np_changes_json(const struct np_change *changes, size_t n);

/* What an apply or a hold rolled back before it wrote (np_pipeline's
 * recovered: an unfinished transaction of its profile), in one line for
 * the log: "rolled back transaction ID (PROFILE), which did not finish:
 * N values restored", or what a dry run would do. Returns buf. */
struct np_txn;
const char *np_recovered_line(const struct np_txn *t, bool dry_run, char *buf, size_t size);

/* irqbalance, the same object wherever it appears: {"running": bool, ...}. */
struct np_irqb_banned;
/* {"running": true|false|null (no process information)}, with the CPUs its
 * configuration bans when banned is given. */
cJSON *np_irqbalance_json(bool running, bool known, const struct np_irqb_banned *banned);

#endif
