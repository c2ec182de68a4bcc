/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Arrays that grow by one element at a time, to tens of thousands. */
#ifndef NUMAPLACE_ARRAY_H
#define NUMAPLACE_ARRAY_H

#include <stdint.h>
#include <stdlib.h>

/* v with room for element n (counted from 0), its room doubled when n
 * reaches it (4, 8, 16...): the room follows from n, so the array needs no
 * field for it (nor may it shrink by realloc). A plan of 256 queues a NIC
 * holds 15,000 records: reallocated one element at a time, each addition
 * copied the array. NULL when out of memory (v is then untouched). */
static inline void *np_array_room(void *v, size_t n, size_t size)
{
	if (n && (n < 4 || (n & (n - 1))))
		return v;
	size_t room = n ? 2 * n : 4;
	return room > SIZE_MAX / size ? NULL : realloc(v, room * size);
}

#endif
