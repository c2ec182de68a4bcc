/* Column-aligned text tables, the way lscpu and lsblk print them. */
#ifndef NUMAPLACE_TABLE_H
#define NUMAPLACE_TABLE_H

#include <stdio.h>

struct np_table;

/* headers: NULL-terminated. A header starting with '>' is right-aligned. */
struct np_table *np_table_new(const char *const *headers);
/* Adds one cell to the current row; a row ends after as many cells as headers. */
void np_table_cell(struct np_table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void np_table_print(struct np_table *t, FILE *out);
void np_table_free(struct np_table *t);

#endif
