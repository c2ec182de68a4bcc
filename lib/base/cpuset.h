/* SPDX-License-Identifier: GPL-2.0-or-later */
/* CPU sets of any size, and the kernel's two text forms for them. */
#ifndef NUMAPLACE_CPUSET_H
#define NUMAPLACE_CPUSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Largest CPU number accepted from text: bounds the allocation and the work
 * a hostile or corrupt file can cause ("0-1048576" in cpu/present), far
 * above the kernel's NR_CPUS ceiling (8192 on x86-64). */
#define NP_CPUSET_MAX_CPU 65535

struct np_cpuset {
	uint64_t *bits;
	size_t nwords;
};

#define NP_CPUSET_INIT { NULL, 0 }

/* The bits set in x. x86-64's baseline has no popcnt instruction: without
 * -mpopcnt, __builtin_popcountll is a call into libgcc's table walk. */
static inline unsigned np_popcount64(uint64_t x)
{
	x -= (x >> 1) & UINT64_C(0x5555555555555555);
	x = (x & UINT64_C(0x3333333333333333)) + ((x >> 2) & UINT64_C(0x3333333333333333));
	x = (x + (x >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
	return (unsigned)((x * UINT64_C(0x0101010101010101)) >> 56);
}

void np_cpuset_free(struct np_cpuset *set);
void np_cpuset_clear(struct np_cpuset *set);
int np_cpuset_set(struct np_cpuset *set, unsigned cpu);
void np_cpuset_unset(struct np_cpuset *set, unsigned cpu);
bool np_cpuset_test(const struct np_cpuset *set, unsigned cpu);
unsigned np_cpuset_count(const struct np_cpuset *set);
/* The set's only CPU, or -1 when it holds none or more than one (an IRQ
 * pinned to one CPU: asked for every IRQ, where a count would be a walk). */
int np_cpuset_only(const struct np_cpuset *set);
bool np_cpuset_empty(const struct np_cpuset *set);
/* First CPU >= from in the set, or -1. */
int np_cpuset_next(const struct np_cpuset *set, int from);
/* Highest CPU in the set, or -1. */
int np_cpuset_last(const struct np_cpuset *set);
bool np_cpuset_equal(const struct np_cpuset *a, const struct np_cpuset *b);
bool np_cpuset_subset(const struct np_cpuset *sub, const struct np_cpuset *super);
bool np_cpuset_intersects(const struct np_cpuset *a, const struct np_cpuset *b);
int np_cpuset_copy(struct np_cpuset *dst, const struct np_cpuset *src);
int np_cpuset_or(struct np_cpuset *dst, const struct np_cpuset *src);
void np_cpuset_and(struct np_cpuset *dst, const struct np_cpuset *src);
void np_cpuset_andnot(struct np_cpuset *dst, const struct np_cpuset *src);

#define np_cpuset_foreach(cpu, set) \
	for (int cpu = np_cpuset_next((set), 0); cpu >= 0; cpu = np_cpuset_next((set), cpu + 1))

/* "0-3,8,10-11"; also "0, 1, 2" (blk-mq cpu_list); "" is the empty set.
 * Returns 0, -EINVAL on malformed text, -ERANGE past NP_CPUSET_MAX_CPU,
 * -ENOMEM. On error *set is left empty. */
int np_cpuset_parse_list(struct np_cpuset *set, const char *text);
/* The same, also accepting the stride form of util-linux (taskset --cpu-list,
 * lscpu users): "0-62:2" is 0,2,...,62. For lists people write; the kernel
 * writes and accepts no stride in sysfs, so files are read with the above. */
int np_cpuset_parse_user_list(struct np_cpuset *set, const char *text);
/* "00000000,000000aa": 32-bit hex groups, most significant first. */
int np_cpuset_parse_mask(struct np_cpuset *set, const char *text);
/* Newly allocated list text ("" when empty), or NULL on ENOMEM. */
char *np_cpuset_format_list(const struct np_cpuset *set);
/* The same into buf, as snprintf: returns the list's length; buf holds it
 * (NUL-terminated) when that is below size, else "" (when size > 0). */
size_t np_cpuset_print_list(const struct np_cpuset *set, char *buf, size_t size);
/* List text for people, where interleaved sets get long: the list form, with
 * each run of at least 3 CPUs at an equal step of 2 or more written "first-
 * last:step" (0,2,...,62 -> "0-62:2"; node 1 of 4 -> "1-61:4") when that is
 * shorter than listing them. A run gives up its last CPU to a range that
 * follows ("0,2,4-7", not "0-4:2,5-7"). Never longer than the list form;
 * read back by np_cpuset_parse_user_list. NULL on ENOMEM. */
char *np_cpuset_format_stride(const struct np_cpuset *set);
/* Newly allocated mask text, wide enough for ncpus CPUs (at least the set). */
char *np_cpuset_format_mask(const struct np_cpuset *set, unsigned ncpus);

#endif
