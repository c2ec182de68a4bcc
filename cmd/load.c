/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What several commands load before they work: the machine (with the
 * warnings its reading left), the profile search path, and a profile
 * resolved on the machine; each failure printed as the command's error. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "judge/vector.h"
#include "read/machine.h"
#include "change/profile.h"
#include "change/resolve.h"
#include "render/render.h"


void np_print_warnings(const struct np_machine *m)
{
	np_topo_print_notes(&m->topo);
	for (size_t i = 0; i < m->pci.nnotes; i++)
		np_notef("note: %s\n", m->pci.notes[i]);
	for (size_t i = 0; i < m->kube.nnotes; i++)
		np_notef("note: %s\n", m->kube.notes[i]);
	/* Queue vectors no device claims (a copy without msi_irqs, names that
	 * name no interface): one note, so that what is judged is not taken
	 * for all there is. */
	size_t untied = 0;
	const char *first = NULL;
	for (size_t i = 0; i < m->irqs.n; i++) {
		struct np_vector_class c;
		if (m->irqs.v[i].dev < 0 && np_vector_classify(m->irqs.v[i].name, &c) && c.role == NP_ROLE_DATA) {
			untied++;
			first = first ? first : m->irqs.v[i].name;
		}
	}
	if (untied)
		np_notef("note: %zu IRQ%s named as device queues (%s%s) %s tied to no device (no msi_irqs, and neither the "
			 "name nor the chip tells which): listed without one, judged nowhere\n",
			 untied, untied == 1 ? "" : "s", first, untied > 1 ? ", ..." : "", untied == 1 ? "is" : "are");
	if (m->irqs.absent)
		np_notef("note: interrupts unknown: there is no /proc/interrupts here (a copy without it): no IRQ is "
			 "listed, and where interrupts run cannot be judged\n");
	for (size_t i = 0; i < m->irqs.nwarnings && i < 5; i++)
		np_notef("warning: %s\n", m->irqs.warnings[i]);
	if (m->irqs.nwarnings > 5)
		np_notef("warning: %zu more rows skipped\n", m->irqs.nwarnings - 5);
}

int np_find_one_device(struct np_ctx *ctx, const struct np_machine *m, const char *filter, size_t *index)
{
	const struct np_pci_dev *dev = NULL;
	for (size_t i = 0; i < m->pci.ndevs; i++) {
		if (!np_device_matches(ctx, m, i, filter))
			continue;
		if (dev)
			return np_error("'%s' matches several devices (%s, %s): name one by address", filter, dev->addr,
					m->pci.devs[i].addr);
		dev = &m->pci.devs[i];
	}
	if (!dev)
		return np_error("no PCI function matches '%s' (" NP_FILTER_KINDS ")", filter);
	*index = (size_t)(dev - m->pci.devs);
	return EXIT_OK;
}

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int np_dirs_add(struct np_dirlist *d, const char *dir)
{
	size_t len = strlen(dir);
	while (len > 1 && dir[len - 1] == '/')
		len--;
	for (size_t i = 0; i < d->n; i++)
		if (strlen(d->v[i]) == len && !strncmp(d->v[i], dir, len))
			return 0;
	char **bigger = realloc(d->v, (d->n + 2) * sizeof(*d->v));
	if (!bigger)
		return -ENOMEM;
	d->v = bigger;
	if (!(d->v[d->n] = strndup(dir, len)))
		return -ENOMEM;
	d->v[++d->n] = NULL;
	return 0;
}

int np_opt_dir(const struct np_command *cmd, const struct np_option *o, const char *arg, void *field)
{
	if (!*arg)
		return np_usage_error(cmd, "option '--%s' needs a directory, not an empty string", o->name);
	return np_dirs_add(field, arg) ? np_error("%s", strerror(ENOMEM)) : EXIT_OK;
}

void np_dirs_free(struct np_dirlist *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->v[i]);
	free(d->v);
	d->v = NULL;
	d->n = 0;
}

/* Running from a checkout, the profiles sit in the source tree: next to the
 * binary (./numaplace), or two levels up for build/san/numaplace, where the
 * source tree is recognised by lib/change/profile.h so that an unrelated
 * "profiles" directory above an installed binary is never picked up. */
static int add_source_tree(struct np_dirlist *d)
{
	char exe[PATH_MAX], path[PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return 0;
	exe[n] = '\0';
	for (int up = 0; up <= 2; up++) {
		char *slash = strrchr(exe, '/');
		if (!slash || slash == exe)
			return 0;
		*slash = '\0';
		snprintf(path, sizeof(path), "%s/lib/change/profile.h", exe);
		if (up > 0 && access(path, F_OK) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/profiles", exe);
		if (is_dir(path))
			return np_dirs_add(d, path);
	}
	return 0;
}

int np_profile_dirs_finish(struct np_dirlist *d)
{
	const char *data = getenv(NP_DATADIR_ENV);
	char shipped[PATH_MAX];
	snprintf(shipped, sizeof(shipped), "%s/profiles", data && *data ? data : NUMAPLACE_DATADIR);
	if (np_dirs_add(d, NP_PROFILE_SYSTEM_DIR) || np_dirs_add(d, shipped))
		return -ENOMEM;
	return add_source_tree(d);
}

int np_profile_open(struct np_ctx *ctx, const struct np_command *self, const struct np_dirlist *dirs,
		    const char *name, struct np_profile *out)
{
	char *path;
	int rc = np_profile_find(ctx, name, (const char *const *)dirs->v, &path);
	if (rc == 0) {
		rc = np_profile_load(ctx, path, out);
		free(path);
	}
	if (rc == -ENOMEM)
		return np_error("%s", ctx->err);
	return rc ? np_usage_error(self, "%s", ctx->err) : EXIT_OK;
}

/* A resolved profile on this machine; returns an exit status. The search
 * path is completed with the standard directories, then freed. */
int np_load_resolved(struct np_ctx *ctx, const struct np_command *self, struct np_dirlist *dirs,
		     const char *name, struct np_machine *m, struct np_profile *prof, struct np_resolved *res)
{
	if (np_profile_dirs_finish(dirs)) {
		np_dirs_free(dirs);
		return np_error("%s", strerror(ENOMEM));
	}
	int rc = np_profile_open(ctx, self, dirs, name, prof);
	np_dirs_free(dirs);
	if (rc != EXIT_OK)
		return rc;
	if (np_machine_load(ctx, m)) {
		np_profile_free(prof);
		return np_error("%s", ctx->err);
	}
	np_print_warnings(m);
	rc = np_profile_resolve(ctx, m, prof, res);
	if (rc) {
		np_machine_free(m);
		np_profile_free(prof);
		return rc == -EINVAL ? np_usage_error(self, "%s", ctx->err) : np_error("%s", ctx->err);
	}
	for (size_t i = 0; i < res->nwarnings; i++)
		np_notef("%s: note: %s\n", self->name, res->warnings[i]);
	return EXIT_OK;
}
