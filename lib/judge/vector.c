/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "judge/vector.h"

#include <ctype.h>
#include <string.h>

/* The text right before a queue number, as the drivers write it; the first
 * row that ends the name's prefix wins (longer before shorter). */
static const struct {
	const char *suffix;
	enum np_vec_dir dir;
	enum np_vec_role role;
	const char *pair;   /* the suffix with the direction taken out, for rx/tx */
} rows[] = {
	{ "-TxRx-", NP_VEC_COMBINED, NP_ROLE_DATA, NULL },     /* i40e, ice, ixgbe, igb, bnxt */
	{ "-Tx-Rx-", NP_VEC_COMBINED, NP_ROLE_DATA, NULL },    /* ena */
	{ "-fp-", NP_VEC_COMBINED, NP_ROLE_DATA, NULL },       /* bnx2x, qede fast path */
	{ "-rx-", NP_VEC_RX, NP_ROLE_DATA, "-*-" },            /* ixgbe, igb, i40e, igbvf split vectors */
	{ "-tx-", NP_VEC_TX, NP_ROLE_DATA, "-*-" },
	{ "-input.", NP_VEC_RX, NP_ROLE_DATA, "-*." },         /* virtio_net */
	{ "-output.", NP_VEC_TX, NP_ROLE_DATA, "-*." },
	{ "-req.", NP_VEC_NONE, NP_ROLE_DATA, NULL },          /* virtio_blk */
	{ "-AEQCEQ-", NP_VEC_NONE, NP_ROLE_RDMA, NULL },       /* irdma: async and completion events */
	{ "-CEQ-", NP_VEC_NONE, NP_ROLE_RDMA, NULL },          /* irdma completion event queues */
	{ "-msix", NP_VEC_NONE, NP_ROLE_DATA, NULL },          /* megaraid_sas, mpt3sas reply queues */
	{ "_comp", NP_VEC_COMBINED, NP_ROLE_DATA, NULL },      /* mlx5_comp<N>@pci:ADDR */
	{ "_async", NP_VEC_NONE, NP_ROLE_MISC, NULL },         /* mlx5_async<N>@pci:ADDR */
	{ "-ntfy-blk", NP_VEC_NONE, NP_ROLE_DATA, NULL },      /* gve: a notify block serves one TX or RX queue */
	{ "-event-", NP_VEC_NONE, NP_ROLE_MISC, NULL },        /* vmxnet3's event vector */
	{ "-", NP_VEC_COMBINED, NP_ROLE_DATA, NULL },          /* bnx2, tg3: <if>-<N>; mlx4-comp-<N>, vmxnet3 -rxtx-<N> */
};

/* "nvme<N>q": the NVMe driver's queue vectors, q0 the admin queue. */
static bool nvme_prefix(const char *prefix, size_t len)
{
	if (len < 6 || strncmp(prefix, "nvme", 4) || prefix[len - 1] != 'q')
		return false;
	for (size_t i = 4; i < len - 1; i++)
		if (!isdigit((unsigned char)prefix[i]))
			return false;
	return true;
}

static bool ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);
	return len >= n && !memcmp(s + len - n, suffix, n);
}

/* out = the first alen bytes of a, then b and c, cut to fit as snprintf
 * would cut them: the planner classifies every vector of the machine (4000
 * on a large one), and snprintf cost more than the rest of the work. */
static void join(char out[NP_VEC_FAMILY_MAX], const char *a, size_t alen, const char *b, const char *c)
{
	size_t n = 0;
	const char *part[] = { a, b, c };
	size_t len[] = { alen, strlen(b), strlen(c) };
	for (int i = 0; i < 3; i++) {
		size_t k = len[i] < NP_VEC_FAMILY_MAX - 1 - n ? len[i] : NP_VEC_FAMILY_MAX - 1 - n;
		memcpy(out + n, part[i], k);
		n += k;
	}
	out[n] = '\0';
}

bool np_vector_classify(const char *name, struct np_vector_class *out)
{
	memset(out, 0, sizeof(*out));
	out->queue = -1;
	if (!name || !*name)
		return false;
	/* mlx5 and ena name the function after the vector: "mlx5_comp3@pci:ADDR". */
	const char *at = strchr(name, '@');
	size_t head = at ? (size_t)(at - name) : strlen(name), digits = head;
	while (digits > 0 && isdigit((unsigned char)name[digits - 1]))
		digits--;
	join(out->family, name, strlen(name), "", "");
	memcpy(out->pair, out->family, sizeof(out->pair));
	out->role = NP_ROLE_MISC;
	if (digits < head) {
		int queue = 0;
		for (size_t i = digits; i < head && queue < 1 << 20; i++)
			queue = queue * 10 + (name[i] - '0');
		bool found = false;
		if (nvme_prefix(name, digits)) {
			found = true;
			out->role = queue == 0 ? NP_ROLE_MISC : NP_ROLE_DATA;
			out->queue = queue == 0 ? -1 : queue;
			join(out->pair, name, digits, "", "");
		}
		for (size_t r = 0; !found && r < sizeof(rows) / sizeof(rows[0]); r++) {
			if (!ends_with(name, digits, rows[r].suffix))
				continue;
			found = true;
			out->dir = rows[r].dir;
			out->role = rows[r].role;
			out->queue = rows[r].role == NP_ROLE_MISC ? -1 : queue;
			size_t base = digits - strlen(rows[r].suffix);
			join(out->pair, name, base, rows[r].pair ? rows[r].pair : rows[r].suffix, at ? at : "");
		}
		/* Otherwise the digits are glued to a word ("eno1", "rtc0",
		 * "dmar1"): part of a name, not a queue. */
		if (found)
			join(out->family, name, digits, at ? at : "", "");
	}
	/* The roles a queue-named vector can have besides data. */
	if (out->queue >= 0 && strstr(name, ":fdir"))
		out->role = NP_ROLE_FDIR;
	else if (out->queue >= 0 && strstr(name, ":ctrl"))
		out->role = NP_ROLE_CONTROL;
	if (out->role == NP_ROLE_MISC)
		out->dir = NP_VEC_NONE;
	return true;
}

bool np_vector_balanced(const struct np_vector_class *c)
{
	return c->queue >= 0 && (c->role == NP_ROLE_DATA || c->role == NP_ROLE_RDMA);
}

const char *np_vec_dir_name(enum np_vec_dir dir)
{
	static const char *const names[] = { "none", "rx", "tx", "combined" };
	return names[dir];
}

const char *np_vec_role_name(enum np_vec_role role)
{
	static const char *const names[] = { "misc", "data", "control", "fdir", "rdma" };
	return names[role];
}
