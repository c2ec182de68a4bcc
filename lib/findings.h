/* What a report points out: placements that cost performance, and facts the
 * user must know before changing anything. */
#ifndef NUMAPLACE_FINDINGS_H
#define NUMAPLACE_FINDINGS_H

#include <stddef.h>

#include "machine.h"

enum np_severity { NP_INFO, NP_WARNING };

struct np_finding {
	enum np_severity severity;
	const char *kind;   /* stable identifier: "remote_irqs", "no_numa_node", ... */
	char *subject;      /* the objects involved: "0000:22:00.0", "irq 36", "sda" */
	char *message;      /* one line, says why it matters */
};

struct np_findings {
	struct np_finding *v;
	size_t n;
};


int np_findings_collect(const struct np_machine *m, struct np_findings *out);
void np_findings_free(struct np_findings *f);
const char *np_severity_name(enum np_severity s);

#endif
