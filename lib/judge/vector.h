/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What an IRQ's action name says about its vector, in one place: its family
 * (the name with the queue number taken out: "ice-ens3f0-TxRx-",
 * "irdma-0000:4b:00.0-CEQ-", "mlx5_comp@pci:0000:81:00.0"), its queue number,
 * direction and role. Two vectors are one queue pair only when they are of
 * one family but for the direction ("eth0-rx-3" and "eth0-tx-3",
 * "virtio0-input.3" and "virtio0-output.3"). The naming is the drivers' own
 * (their request_irq names); tests/unit/vector-corpus.txt holds the real
 * names this is checked against, with where each was seen. */
#ifndef NUMAPLACE_VECTOR_H
#define NUMAPLACE_VECTOR_H

#include <stdbool.h>

enum np_vec_dir { NP_VEC_NONE, NP_VEC_RX, NP_VEC_TX, NP_VEC_COMBINED };

enum np_vec_role {
	NP_ROLE_MISC,    /* async events, link, mailbox, config, admin: little traffic */
	NP_ROLE_DATA,    /* a data queue (network queue pair, block hardware queue) */
	NP_ROLE_CONTROL, /* a control VSI's queue (ice ctrl) */
	NP_ROLE_FDIR,    /* flow director programming (i40e fdir) */
	NP_ROLE_RDMA,    /* RDMA completion events (irdma CEQ) */
};

#define NP_VEC_FAMILY_MAX 96

struct np_vector_class {
	char family[NP_VEC_FAMILY_MAX]; /* the name without its queue number */
	char pair[NP_VEC_FAMILY_MAX];   /* the family without its direction: the key of a queue pair */
	int queue;                      /* -1: none */
	enum np_vec_dir dir;
	enum np_vec_role role;
};

/* Classifies name (an action name of /proc/interrupts). Returns false when no
 * rule knows the name: it is then a misc vector without a queue. */
bool np_vector_classify(const char *name, struct np_vector_class *out);
/* Data queues and RDMA completion vectors carry the traffic that balance
 * counts; control, flow director and misc vectors never move for balance. */
bool np_vector_balanced(const struct np_vector_class *c);
const char *np_vec_dir_name(enum np_vec_dir dir);
const char *np_vec_role_name(enum np_vec_role role);

#endif
