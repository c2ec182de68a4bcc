/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "change/trial-outputs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "change/txn-store.h"
#include "read/sysfs.h"

/* The trials directory, opened (-ENOENT when there is none and !create):
 * under --state-dir as given, else inside the root. Its path into shown. */
static int open_trials(struct np_ctx *ctx, const char *state_dir, bool create, char *shown)
{
	int rc, fd;
	if (state_dir && *state_dir) {
		if (snprintf(shown, PATH_MAX, "%s/" NP_TRIALS_SUBDIR, state_dir) >= PATH_MAX)
			return np_fail(ctx, -ENAMETOOLONG, "%s: %s", state_dir, strerror(ENAMETOOLONG));
		/* mkdir -p: each parent that is missing. */
		for (char *p = shown + 1; create && (p = strchr(p, '/')); p++) {
			*p = '\0';
			int bad = mkdir(shown, 0700) && errno != EEXIST;
			*p = '/';
			if (bad)
				break;
		}
		if (create && mkdir(shown, 0700) && errno != EEXIST)
			return np_fail(ctx, -errno, "cannot create '%s': %s", shown, strerror(errno));
		fd = open(shown, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return np_fail(ctx, -errno, "cannot open '%s': %s", shown, strerror(errno));
		return fd;
	}
	const char *rel = NP_STATE_DIR "/" NP_TRIALS_SUBDIR;
	if ((rc = np_sysfs_path(ctx, shown, "%s", rel)) || (create && (rc = np_mkdirs(ctx, rel, 0700))))
		return rc;
	fd = np_open(ctx, rel, O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0)
		return np_fail(ctx, fd, "cannot open '%s': %s", shown, strerror(-fd));
	return fd;
}

int np_trial_dir_create(struct np_ctx *ctx, const char *state_dir, const char *id, char *path, int *dirfd)
{
	char trials[PATH_MAX];
	*dirfd = -1;
	int tfd = open_trials(ctx, state_dir, true, trials);
	if (tfd < 0)
		return tfd;
	int rc = 0, fd = -1;
	struct stat st;
	if (snprintf(path, PATH_MAX, "%s/%s", trials, id) >= PATH_MAX)
		rc = np_fail(ctx, -ENAMETOOLONG, "%s: %s", trials, strerror(ENAMETOOLONG));
	else if (mkdirat(tfd, id, 0700))
		rc = np_fail(ctx, -errno, "cannot create '%s': %s", path, strerror(errno));
	else if ((fd = openat(tfd, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		rc = np_fail(ctx, -errno, "cannot open '%s': %s", path, strerror(errno));
	else if (flock(fd, LOCK_EX | LOCK_NB) || fstat(fd, &st))
		rc = np_fail(ctx, -errno, "cannot lock '%s': %s", path, strerror(errno));
	else if (st.st_nlink == 0) /* a prune with --keep 0 took it before the lock */
		rc = np_fail(ctx, -ENOENT, "'%s' was removed as it was made; try again", path);
	close(tfd);
	if (rc && fd >= 0)
		close(fd);
	else
		*dirfd = fd;
	return rc;
}

/* What a trial names its directory: YYYYMMDD-HHMMSS-PID. */
static bool trial_id(const char *s)
{
	size_t n = strlen(s);
	if (n < 17 || n > 32 || s[8] != '-' || s[15] != '-')
		return false;
	for (size_t i = 0; i < n; i++)
		if (i != 8 && i != 15 && (s[i] < '0' || s[i] > '9'))
			return false;
	return true;
}

static int natural_order(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

/* The names of the entries of directory fd (a copy of it is read). */
static int list(int fd, char ***names, size_t *n)
{
	int copy = dup(fd);
	DIR *d = copy >= 0 ? fdopendir(copy) : NULL;
	struct dirent *de;
	*names = NULL;
	*n = 0;
	if (!d) {
		int err = errno;
		if (copy >= 0)
			close(copy);
		return -err;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		char **more = realloc(*names, (*n + 1) * sizeof(*more));
		if (!more || !(more[*n] = strdup(de->d_name))) {
			*names = more ? more : *names;
			closedir(d);
			return -ENOMEM;
		}
		*names = more;
		(*n)++;
	}
	closedir(d);
	return 0;
}

static void names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* One trial's directory and its files; -EBUSY when its trial runs. */
static int remove_trial(struct np_ctx *ctx, int tfd, const char *trials, const char *id)
{
	char **files;
	size_t n;
	int rc = 0, fd = openat(tfd, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return np_fail(ctx, -errno, "cannot open '%s/%s': %s", trials, id, strerror(errno));
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		close(fd);
		return -EBUSY;
	}
	if ((rc = list(fd, &files, &n))) {
		close(fd);
		return np_fail(ctx, rc, "cannot list '%s/%s': %s", trials, id, strerror(-rc));
	}
	for (size_t i = 0; i < n && !rc; i++)
		if (unlinkat(fd, files[i], 0))
			rc = np_fail(ctx, -errno, "cannot remove '%s/%s/%s': %s", trials, id, files[i], strerror(errno));
	names_free(files, n);
	if (!rc && unlinkat(tfd, id, AT_REMOVEDIR))
		rc = np_fail(ctx, -errno, "cannot remove '%s/%s': %s", trials, id, strerror(errno));
	close(fd);
	return rc;
}

int np_trial_dirs_prune(struct np_ctx *ctx, const char *state_dir, size_t keep, char ***removed,
			size_t *nremoved)
{
	char trials[PATH_MAX], **names;
	size_t n, ntrials = 0;
	*removed = NULL;
	*nremoved = 0;
	int tfd = open_trials(ctx, state_dir, false, trials);
	if (tfd == -ENOENT) {
		ctx->err[0] = '\0';
		return 0;
	}
	if (tfd < 0)
		return tfd;
	int rc = list(tfd, &names, &n);
	if (rc) {
		close(tfd);
		return np_fail(ctx, rc, "cannot list '%s': %s", trials, strerror(-rc));
	}
	for (size_t i = 0; i < n; i++) {
		if (trial_id(names[i]))
			names[ntrials++] = names[i];
		else
			free(names[i]);
	}
	qsort(names, ntrials, sizeof(*names), natural_order);
	char **out = calloc(ntrials ? ntrials : 1, sizeof(*out));
	if (!out)
		rc = np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
	for (size_t i = 0; !rc && i + keep < ntrials; i++) {
		int r = remove_trial(ctx, tfd, trials, names[i]);
		if (r == -EBUSY)
			continue;
		if (r) {
			rc = r;
			break;
		}
		out[(*nremoved)++] = names[i];
		names[i] = NULL;
	}
	names_free(names, ntrials);
	close(tfd);
	if (rc || !*nremoved) {
		names_free(out, *nremoved);
		*nremoved = 0;
		return rc;
	}
	*removed = out;
	return 0;
}
