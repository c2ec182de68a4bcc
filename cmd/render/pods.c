/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Pods' exclusive CPUs (the kubelet's static CPU manager): topo shows them,
 * report's JSON carries them. */
#include <stdio.h>
#include <stdlib.h>

#include "base/quote.h"
#include "judge/cpuset-names.h"
#include "read/kubelet.h"
#include "read/machine.h"
#include "render/render.h"
#include "render/term.h"

void np_kube_print(const struct np_kubelet *k, FILE *out)
{
	if (!k->path || !k->n)
		return;
	/* The file's names are whatever bytes its writer chose: the wrapping
	 * escapes them, and fits the lines to the terminal. */
	char buf[512], *line;
	int width = np_term_width();
	fputc('\n', out);
	if (asprintf(&line, "Exclusive CPUs (kubelet static CPU manager, %s):", k->path) >= 0) {
		np_print_wrapped(out, line, width, 0, 4);
		free(line);
	}
	for (size_t i = 0; i < k->n; i++) {
		char *cpus = np_cpuset_format_short(&k->v[i].cpus, NP_CPUS_TEXT_MAX);
		if (asprintf(&line, "  %-12s %s", cpus ? cpus : "?", np_kube_container_text(&k->v[i], buf, sizeof(buf))) >= 0) {
			np_print_wrapped(out, line, width, 0, 15);
			free(line);
		}
		free(cpus);
	}
}

void np_kube_write(struct np_jw *jw, const struct np_kubelet *k)
{
	if (!k->path) {
		np_jw_null(jw, "kubelet");
		return;
	}
	np_jw_object(jw, "kubelet");
	np_jw_str(jw, "state", k->path);
	np_jw_str(jw, "policy", k->policy);
	char *def = np_cpuset_format_list(&k->default_cpus);
	np_jw_str(jw, "default_cpus", def ? def : "");
	free(def);
	np_jw_array(jw, "containers");
	for (size_t i = 0; i < k->n; i++) {
		char *cpus = np_cpuset_format_list(&k->v[i].cpus);
		if (!cpus)
			jw->failed = true;
		np_jw_object(jw, NULL);
		np_jw_str(jw, "pod_uid", k->v[i].pod_uid);
		np_jw_str(jw, "pod_name", k->v[i].pod_name);
		np_jw_str(jw, "container", k->v[i].name);
		np_jw_str(jw, "cpus", cpus ? cpus : "");
		np_jw_close(jw);
		free(cpus);
	}
	np_jw_close(jw);
	np_jw_array(jw, "notes");
	for (size_t i = 0; i < k->nnotes; i++)
		np_jw_str(jw, NULL, k->notes[i]);
	np_jw_close(jw);
	np_jw_close(jw);
}

const char *np_device_label(const struct np_pci_dev *d)
{
	return d->nnet ? d->net[0].name : d->nblock ? d->block[0].name : d->child_driver ? d->child_driver
					  : d->driver ? d->driver : "";
}

void np_where_write(struct np_jw *jw, const struct np_machine *m)
{
	np_jw_array(jw, "interrupts_where");
	for (size_t di = 0; di < m->pci.ndevs; di++) {
		const struct np_pci_dev *d = &m->pci.devs[di];
		struct np_where w;
		int node;
		if (!np_device_where(m, di, &w, &node))
			continue;
		np_jw_object(jw, NULL);
		np_jw_str(jw, "device", d->addr);
		np_jw_str(jw, "name", np_device_label(d));
		if (node >= 0)
			np_jw_int(jw, "node", node);
		else
			np_jw_null(jw, "node");
		np_jw_uint(jw, "local", w.local);
		np_jw_uint(jw, "remote", w.remote);
		np_jw_uint(jw, "isolated", w.isolated);
		np_jw_uint(jw, "exclusive", w.exclusive);
		np_jw_uint(jw, "per_cpu", w.per_cpu);
		np_jw_close(jw);
	}
	np_jw_close(jw);
}
