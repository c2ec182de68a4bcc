/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "txn.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "conffile.h"
#include "cpuset.h"
#include "irqbalance.h"
#include "sysfs.h"

#define BOOT_ID_PATH "/proc/sys/kernel/random/boot_id"
#define UNKNOWN_BOOT "unknown"
#define TXN_SUBDIR "txn"
#define LOCK_NAME "lock"
#define JOURNAL_EXT ".json"
#define TMP_EXT ".tmp"
#define ID_MAX 96
/* A journal holds one entry per written file; this bounds what a corrupt
 * file can make us allocate while leaving room for very large machines. */
#define JOURNAL_MAX_BYTES (256u << 20)

struct state {
	char dir[PATH_MAX];
	char txndir[PATH_MAX + sizeof(TXN_SUBDIR) + 1];
	int dirfd; /* -1: the state directory does not exist (read-only callers) */
	int txnfd; /* -1: no journal was ever written */
	int lockfd;
};

static const char *const state_names[] = {
	[NP_TXN_PENDING] = "pending",
	[NP_TXN_APPLIED] = "applied",
	[NP_TXN_ROLLED_BACK] = "rolled_back",
	[NP_TXN_REVERTED] = "reverted",
	[NP_TXN_STALE] = "stale",
	[NP_TXN_UNREADABLE] = "unreadable",
};

const char *np_txn_state_name(enum np_txn_state state)
{
	if ((size_t)state < sizeof(state_names) / sizeof(state_names[0]))
		return state_names[state];
	return "unknown";
}

static int state_parse(const char *name, enum np_txn_state *out)
{
	/* "unreadable" is what we say of a file, never what a file may say. */
	for (size_t i = 0; i < NP_TXN_UNREADABLE; i++) {
		if (!strcmp(name, state_names[i])) {
			*out = (enum np_txn_state)i;
			return 0;
		}
	}
	return -EINVAL;
}

static bool attr_valid(enum np_attr attr)
{
	return (unsigned)attr < NP_ATTR_COUNT;
}

/* How a change's value is read, written and compared. */
static enum np_value_kind kind_of(const struct np_change *c)
{
	return np_attrs[c->attr].value;
}

/* ---- values ---- */

/* ROOT + path for messages, so the user sees the file really touched. */
static const char *full_path(struct np_ctx *ctx, const char *path, char *buf)
{
	char saved[sizeof(ctx->err)];
	memcpy(saved, ctx->err, sizeof(saved));
	if (np_sysfs_path(ctx, buf, "%s", path)) {
		memcpy(ctx->err, saved, sizeof(saved));
		snprintf(buf, PATH_MAX, "%s", path);
	}
	return buf;
}

/* Every value is read whole, byte for byte, so that a revert restores
 * exactly what was there ("0-15" without a newline stays so). */
static int read_value(struct np_ctx *ctx, enum np_value_kind kind, const char *path, char **out)
{
	size_t len;
	if (kind == NP_VALUE_TEXT)
		return np_conf_read(ctx, path, out);
	return np_read_bytes(ctx, out, &len, "%s", path);
}

/* A configuration file is replaced by a rename, never truncated and
 * rewritten: a crash leaves the old text or the new, both in the journal.
 * exact: the bytes read before (a revert or an undo); else a value of the
 * profile, newline-terminated as the kernel prints it. */
static int write_value(struct np_ctx *ctx, enum np_value_kind kind, const char *path,
		       const char *value, bool exact)
{
	if (kind == NP_VALUE_TEXT)
		return np_conf_write(ctx, path, value, 0, false);
	if (exact)
		return np_write_bytes(ctx, value, strlen(value), "%s", path);
	return np_write_text(ctx, value, "%s", path);
}

/* A value quoted in a message: np_excerpt without the trailing newlines. */
static const char *show(const char *value, char *buf, size_t size)
{
	size_t len = strlen(value);
	while (len && value[len - 1] == '\n')
		len--;
	return np_excerpt_n(value, len, buf, size);
}

/* A value as the user sees it: without the newlines a file ends in. */
static char *trimmed(const char *value)
{
	size_t len = strlen(value);
	while (len && value[len - 1] == '\n')
		len--;
	return strndup(value, len);
}

/* The values handed back to callers are for showing; the exact bytes stay
 * in the journal. A revert's dry run hands back the current values, as
 * read, in new_value: trimmed the same way. */
static int trim_values(struct np_txn *txn)
{
	for (size_t i = 0; i < txn->nchanges; i++) {
		struct np_change *c = &txn->changes[i];
		if (kind_of(c) == NP_VALUE_TEXT)
			continue;
		char **values[] = { &c->old_value, &c->new_value };
		for (size_t k = 0; k < 2; k++) {
			if (!*values[k])
				continue;
			char *t = trimmed(*values[k]);
			if (!t)
				return -ENOMEM;
			free(*values[k]);
			*values[k] = t;
		}
	}
	return 0;
}

/* Reads the value at path; 1 when it equals value once both are normalized,
 * 0 when not, -errno when unreadable or malformed. *current gets the raw
 * text when asked for, and is NULL on error. */
static int current_matches(struct np_ctx *ctx, const char *path, enum np_value_kind kind,
			   const char *value, char **current)
{
	char fp[PATH_MAX], ex[64];
	char *want = np_value_normalize(kind, value), *cur = NULL, *have = NULL;
	int rc;

	if (current)
		*current = NULL;
	if (!want) {
		rc = np_fail(ctx, -EINVAL, "'%s' is not a valid %s value for '%s'",
			     np_excerpt(value ? value : "", ex, sizeof(ex)), np_value_kind_name(kind),
			     full_path(ctx, path, fp));
		goto out;
	}
	rc = read_value(ctx, kind, path, &cur);
	if (rc)
		goto out;
	have = np_value_normalize(kind, cur);
	if (!have) {
		rc = np_fail(ctx, -EINVAL, "'%s': expected a %s value, found '%s'",
			     full_path(ctx, path, fp), np_value_kind_name(kind),
			     show(cur, ex, sizeof(ex)));
		goto out;
	}
	rc = strcmp(want, have) == 0;
	if (current) {
		*current = cur;
		cur = NULL;
	}
out:
	free(want);
	free(have);
	free(cur);
	return rc;
}

int np_value_matches(struct np_ctx *ctx, const char *path, enum np_value_kind kind,
		     const char *value)
{
	return current_matches(ctx, path, kind, value, NULL);
}

int np_value_matches_current(struct np_ctx *ctx, const char *path, enum np_value_kind kind,
			     const char *value, char **current)
{
	return current_matches(ctx, path, kind, value, current);
}

static bool same_value(enum np_value_kind kind, const char *a, const char *b)
{
	char *na = np_value_normalize(kind, a), *nb = np_value_normalize(kind, b);
	bool same = na && nb && !strcmp(na, nb);
	free(na);
	free(nb);
	return same;
}

/* ---- changes and transactions in memory ---- */

static const char *subject_of(const struct np_change *c)
{
	return c->subject ? c->subject : "";
}

/* How a change is named to the user: its subject, else its path. */
static const char *display_name(const struct np_change *c)
{
	return c->subject && *c->subject ? c->subject : c->path;
}

/* Appends the change's subject to the detail already in ctx->err. */
static int with_subject(struct np_ctx *ctx, int rc, const struct np_change *c)
{
	char detail[sizeof(ctx->err)];
	if (!*subject_of(c))
		return rc;
	memcpy(detail, ctx->err, sizeof(detail));
	return np_fail(ctx, rc, "%s (%s)", detail, c->subject);
}

/* A journal's change (its path checked against its kind's): values of its kind's form. */
static const char *change_refused(const struct np_change *c)
{
	if (kind_of(c) == NP_VALUE_TEXT)
		return np_irqbalance_edit_ok(c->old_value, c->new_value)
			       ? NULL
			       : "its text differs in more than irqbalance's banned IRQs";
	return same_value(kind_of(c), c->old_value, c->old_value) &&
			       same_value(kind_of(c), c->new_value, c->new_value)
		       ? NULL
		       : "a value is not of its kind's form";
}

/* A change writes only its kind's own path: the paths come back from a
 * journal file, and a revert writes wherever they point. */
static bool path_fits(const char *path, enum np_attr attr)
{
	return attr_valid(attr) && np_attr_match(path, NULL) == (int)attr;
}

void np_txn_free(struct np_txn *txn)
{
	if (!txn)
		return;
	free(txn->id);
	free(txn->profile);
	free(txn->cause);
	free(txn->boot_id);
	free(txn->unreadable);
	for (size_t i = 0; i < txn->nchanges; i++)
		np_change_free(&txn->changes[i]);
	free(txn->changes);
	memset(txn, 0, sizeof(*txn));
}

void np_txns_free(struct np_txn *txns, size_t count)
{
	for (size_t i = 0; i < count; i++)
		np_txn_free(&txns[i]);
	free(txns);
}

/* The copy's target is read from its (validated) path, as a journal's is:
 * a transaction never holds a target its path does not say. */
static int change_copy(struct np_change *dst, const struct np_change *src)
{
	dst->attr = src->attr;
	dst->path = strdup(src->path);
	dst->subject = strdup(subject_of(src));
	dst->old_value = strdup(src->old_value);
	dst->new_value = strdup(src->new_value);
	if (!dst->path || !dst->subject || !dst->old_value || !dst->new_value ||
	    np_attr_match(dst->path, &dst->target) != (int)dst->attr) {
		np_change_free(dst);
		return -ENOMEM;
	}
	return 0;
}

/* ---- the state directory ---- */

static int check_dir(struct np_ctx *ctx, const char *path, int fd)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return np_fail(ctx, -errno, "state directory '%s': %s", path, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return np_fail(ctx, -ENOTDIR,
			       "state directory '%s' is not a directory; refusing it", path);
	if (st.st_uid != geteuid())
		return np_fail(
			ctx, -EPERM,
			"state directory '%s' is owned by uid %u, not by us (uid %u); refusing it",
			path, (unsigned)st.st_uid, (unsigned)geteuid());
	/* Whoever can write there can replace journals and so choose what a revert writes. */
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return np_fail(
			ctx, -EPERM,
			"state directory '%s' is writable by other users (mode %04o); refusing it",
			path, (unsigned)(st.st_mode & 07777));
	return 0;
}

/* Opens name (a directory) under dirfd, or path when dirfd is AT_FDCWD. */
static int open_dir_at(struct np_ctx *ctx, int dirfd, const char *name, const char *path, int *fd)
{
	struct stat st;
	*fd = -1;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return np_fail(ctx, -errno, "state directory '%s': %s", path, strerror(errno));
	if (S_ISLNK(st.st_mode))
		return np_fail(ctx, -ELOOP, "state directory '%s' is a symbolic link; refusing it",
			       path);
	*fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (*fd < 0)
		return np_fail(ctx, -errno, "cannot open state directory '%s': %s", path,
			       strerror(errno));
	int rc = check_dir(ctx, path, *fd);
	if (rc) {
		close(*fd);
		*fd = -1;
	}
	return rc;
}

/* A new directory entry is only durable once its parent is synced. */
static void sync_parent(const char *path)
{
	char parent[PATH_MAX];
	snprintf(parent, sizeof(parent), "%s", path);
	char *slash = strrchr(parent, '/');
	if (!slash)
		snprintf(parent, sizeof(parent), ".");
	else if (slash == parent)
		parent[1] = '\0';
	else
		*slash = '\0';
	int fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

/* A state directory given by the caller is a path on this machine. */
static int make_dirs(struct np_ctx *ctx, const char *path)
{
	char buf[PATH_MAX];
	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1;; p++) {
		if (*p && *p != '/')
			continue;
		char c = *p;
		*p = '\0';
		if (mkdir(buf, 0700) == 0)
			sync_parent(buf);
		else if (errno != EEXIST)
			return np_fail(ctx, -errno, "cannot create state directory '%s': %s", buf,
				       strerror(errno));
		if (!c)
			return 0;
		*p = '/';
	}
}

/* The state directory: the caller's, or NP_STATE_DIR resolved inside the
 * root (lib/sysfs), so that a link in a copied tree ("var -> /elsewhere")
 * cannot put the journals and the lock outside it. */
static int open_state_dir(struct np_ctx *ctx, const struct np_txn_opts *opts, bool create,
			  struct state *st)
{
	if (opts && opts->state_dir && *opts->state_dir) {
		int rc = create ? make_dirs(ctx, st->dir) : 0;
		return rc ? rc : open_dir_at(ctx, AT_FDCWD, st->dir, st->dir, &st->dirfd);
	}
	const char *base;
	int rc = create ? np_mkdirs(ctx, NP_STATE_DIR, 0700) : 0;
	if (rc)
		return rc;
	int pfd = np_open_parent(ctx, NP_STATE_DIR, &base);
	if (pfd < 0)
		return np_fail(ctx, pfd, "state directory '%s': %s", st->dir, strerror(-pfd));
	rc = open_dir_at(ctx, pfd, base, st->dir, &st->dirfd);
	close(pfd);
	return rc;
}

static void state_close(struct state *st)
{
	if (st->lockfd >= 0)
		close(st->lockfd);
	if (st->txnfd >= 0)
		close(st->txnfd);
	if (st->dirfd >= 0)
		close(st->dirfd);
	st->lockfd = st->txnfd = st->dirfd = -1;
}

/* create: make the directories (apply). Otherwise an absent directory is
 * not an error: it leaves dirfd or txnfd at -1 (nothing was ever applied). */
static int state_open(struct np_ctx *ctx, const struct np_txn_opts *opts, bool create,
		      struct state *st)
{
	int rc;

	st->dirfd = st->txnfd = st->lockfd = -1;
	if (opts && opts->state_dir && *opts->state_dir) {
		if (strlen(opts->state_dir) >= sizeof(st->dir))
			return np_fail(ctx, -ENAMETOOLONG, "state directory '%s': %s",
				       opts->state_dir, strerror(ENAMETOOLONG));
		snprintf(st->dir, sizeof(st->dir), "%s", opts->state_dir);
	} else if ((rc = np_sysfs_path(ctx, st->dir, "%s", NP_STATE_DIR))) {
		return rc;
	}
	size_t len = strlen(st->dir);
	while (len > 1 && st->dir[len - 1] == '/')
		st->dir[--len] = '\0';
	if (len + sizeof("/" TXN_SUBDIR) > sizeof(st->txndir))
		return np_fail(ctx, -ENAMETOOLONG, "state directory '%s': %s", st->dir,
			       strerror(ENAMETOOLONG));
	snprintf(st->txndir, sizeof(st->txndir), "%s/%s", st->dir, TXN_SUBDIR);

	rc = open_state_dir(ctx, opts, create, st);
	if (rc == -ENOENT && !create) {
		ctx->err[0] = '\0';
		return 0;
	}
	if (rc)
		return rc;

	if (create) {
		if (mkdirat(st->dirfd, TXN_SUBDIR, 0700) == 0) {
			fsync(st->dirfd);
		} else if (errno != EEXIST) {
			rc = np_fail(ctx, -errno, "cannot create state directory '%s': %s",
				     st->txndir, strerror(errno));
			state_close(st);
			return rc;
		}
	}
	rc = open_dir_at(ctx, st->dirfd, TXN_SUBDIR, st->txndir, &st->txnfd);
	if (rc == -ENOENT && !create) {
		ctx->err[0] = '\0';
		return 0;
	}
	if (rc)
		state_close(st);
	return rc;
}

static int state_lock(struct np_ctx *ctx, const struct np_txn_opts *opts, struct state *st)
{
	char path[PATH_MAX + 8];
	bool wait = opts && opts->wait_for_lock;

	snprintf(path, sizeof(path), "%s/%s", st->dir, LOCK_NAME);
	st->lockfd = openat(st->dirfd, LOCK_NAME, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (st->lockfd < 0)
		return np_fail(ctx, -errno, "cannot open lock '%s': %s", path, strerror(errno));
	int rc;
	unsigned timeout = wait && opts ? opts->lock_timeout : 0;
	if (timeout) {
		/* flock has no timeout: poll, which a boot service can afford. */
		struct timespec now, end, nap = { 0, 100 * 1000 * 1000 };
		clock_gettime(CLOCK_MONOTONIC, &end);
		end.tv_sec += timeout;
		for (;;) {
			rc = flock(st->lockfd, LOCK_EX | LOCK_NB);
			if (rc == 0 || (errno != EWOULDBLOCK && errno != EINTR))
				break;
			clock_gettime(CLOCK_MONOTONIC, &now);
			if (now.tv_sec > end.tv_sec ||
			    (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec))
				return np_fail(ctx, -EBUSY,
					       "another numaplace apply or revert held the lock '%s' "
					       "for %u s; gave up waiting",
					       path, timeout);
			nanosleep(&nap, NULL);
		}
	} else {
		do
			rc = flock(st->lockfd, LOCK_EX | (wait ? 0 : LOCK_NB));
		while (rc < 0 && errno == EINTR);
	}
	if (rc < 0 && errno == EWOULDBLOCK)
		return np_fail(ctx, -EBUSY,
			       "another numaplace apply or revert is running (lock '%s')", path);
	if (rc < 0)
		return np_fail(ctx, -errno, "cannot lock '%s': %s", path, strerror(errno));
	return 0;
}

/* ---- journals on disk ---- */

static bool id_valid(const char *id)
{
	size_t len = strlen(id);
	if (!len || len > ID_MAX || id[0] == '-')
		return false;
	for (const char *p = id; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_')
			return false;
	return true;
}

static cJSON *journal_json(const struct np_txn *txn, const char *error)
{
	cJSON *root = cJSON_CreateObject(), *changes;
	if (!root)
		return NULL;
	if (!cJSON_AddStringToObject(root, "id", txn->id) ||
	    !cJSON_AddStringToObject(root, "profile", txn->profile ? txn->profile : "") ||
	    !cJSON_AddStringToObject(root, "boot_id", txn->boot_id) ||
	    !cJSON_AddNumberToObject(root, "time", (double)txn->time) ||
	    !cJSON_AddStringToObject(root, "state", np_txn_state_name(txn->state)) ||
	    !(changes = cJSON_AddArrayToObject(root, "changes")))
		goto fail;
	for (size_t i = 0; i < txn->nchanges; i++) {
		const struct np_change *c = &txn->changes[i];
		cJSON *o = cJSON_CreateObject();
		if (!o)
			goto fail;
		cJSON_AddItemToArray(changes, o);
		/* "kind" too: a numaplace from before the attr table can still
		 * revert this journal after a downgrade. */
		if (!cJSON_AddStringToObject(o, "path", c->path) ||
		    !cJSON_AddStringToObject(o, "attr", np_attr_name(c->attr)) ||
		    !cJSON_AddStringToObject(o, "kind", np_value_kind_name(kind_of(c))) ||
		    !cJSON_AddStringToObject(o, "subject", subject_of(c)) ||
		    !cJSON_AddStringToObject(o, "old", c->old_value) ||
		    !cJSON_AddStringToObject(o, "new", c->new_value))
			goto fail;
	}
	/* Absent rather than null without a cause: as journals were before it. */
	if (txn->cause && !cJSON_AddStringToObject(root, "cause", txn->cause))
		goto fail;
	if (error && *error && !cJSON_AddStringToObject(root, "error", error))
		goto fail;
	return root;
fail:
	cJSON_Delete(root);
	return NULL;
}

char *np_txn_format(const struct np_txn *txn, const char *error)
{
	cJSON *root = journal_json(txn, error);
	char *text = root ? cJSON_Print(root) : NULL;
	cJSON_Delete(root);
	return text;
}

/* Write to a temporary name, sync, rename, sync the directory: a crash
 * leaves either the old journal or the new one, never a torn one. sync_dir
 * false leaves the rename to the next directory sync: only for an outcome
 * replacing a pending journal (see np_txn_apply). */
static int write_journal_sync(struct np_ctx *ctx, struct state *st, const struct np_txn *txn,
			      const char *error, bool sync_dir)
{
	char name[ID_MAX + 16], tmp[ID_MAX + 24];
	int err = 0, fd = -1;

	snprintf(name, sizeof(name), "%s" JOURNAL_EXT, txn->id);
	snprintf(tmp, sizeof(tmp), "%s" TMP_EXT, name);
	char *text = np_txn_format(txn, error);
	if (!text)
		return np_fail(ctx, -ENOMEM, "cannot write journal '%s/%s': %s", st->txndir, name,
			       strerror(ENOMEM));

	/* A temporary file left by a crash is garbage: the rename never happened. */
	if (unlinkat(st->txnfd, tmp, 0) < 0 && errno != ENOENT)
		err = errno;
	if (!err && (fd = openat(st->txnfd, tmp,
				 O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0)
		err = errno;
	if (!err)
		err = -np_write_all(fd, text, strlen(text));
	if (!err)
		err = -np_write_all(fd, "\n", 1);
	/* The data and the size, not the times: enough for the rename to
	 * never show an empty or short file. */
	if (!err && fdatasync(fd) < 0)
		err = errno;
	if (fd >= 0 && close(fd) < 0 && !err)
		err = errno;
	if (!err && renameat(st->txnfd, tmp, st->txnfd, name) < 0)
		err = errno;
	if (!err && sync_dir && fsync(st->txnfd) < 0)
		err = errno;
	free(text);
	if (err) {
		if (fd >= 0)
			unlinkat(st->txnfd, tmp, 0);
		return np_fail(ctx, -err, "cannot write journal '%s/%s': %s", st->txndir, name,
			       strerror(err));
	}
	return 0;
}

static int write_journal(struct np_ctx *ctx, struct state *st, const struct np_txn *txn,
			 const char *error)
{
	return write_journal_sync(ctx, st, txn, error, true);
}

static int read_file_at(int dirfd, const char *name, char **out, size_t *len)
{
	struct stat st;
	int err = 0;
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		err = errno;
	else if (!S_ISREG(st.st_mode))
		err = EINVAL;
	else if ((size_t)st.st_size >= JOURNAL_MAX_BYTES)
		err = EFBIG;
	size_t cap = err ? 0 : (size_t)st.st_size + 1, n = 0;
	char *buf = err ? NULL : malloc(cap);
	if (!err && !buf)
		err = ENOMEM;
	while (!err) {
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			err = r < 0 ? errno : 0;
			break;
		}
		n += (size_t)r;
		if (n < cap)
			continue;
		/* Grew while we read it: go on, within the same bound. */
		char *bigger = cap * 2 <= JOURNAL_MAX_BYTES ? realloc(buf, cap * 2) : NULL;
		if (!bigger)
			err = cap * 2 <= JOURNAL_MAX_BYTES ? ENOMEM : EFBIG;
		else
			buf = bigger, cap *= 2;
	}
	close(fd);
	if (err) {
		free(buf);
		return -err;
	}
	*out = buf;
	*len = n;
	return 0;
}

static const char *json_string(const cJSON *obj, const char *key)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
	return cJSON_IsString(item) ? item->valuestring : NULL;
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* Parses journal text into txn (and its "error", when error is given). */
static int journal_parse(struct np_ctx *ctx, const char *path, const char *stem, const char *text,
			 size_t len, struct np_txn *txn, char **error)
{
	const char *why = "not a JSON object";
	char whybuf[256], ex[96];
	cJSON *root = cJSON_ParseWithLength(text, len);
	int rc = -EINVAL;

	memset(txn, 0, sizeof(*txn));
	if (!cJSON_IsObject(root))
		goto bad;
	const char *id = json_string(root, "id"), *profile = json_string(root, "profile");
	const char *boot = json_string(root, "boot_id"), *state = json_string(root, "state");
	const cJSON *time_item = cJSON_GetObjectItemCaseSensitive(root, "time");
	const cJSON *changes = cJSON_GetObjectItemCaseSensitive(root, "changes");
	why = "missing or wrong-typed field";
	if (!id || !profile || !boot || !state || !cJSON_IsNumber(time_item) ||
	    !cJSON_IsArray(changes))
		goto bad;
	why = "its id does not match its file name";
	if (strcmp(id, stem))
		goto bad;
	why = "unknown state";
	if (state_parse(state, &txn->state))
		goto bad;
	/* Converting a double out of range is undefined: check before the cast. */
	why = "time out of range";
	if (!(time_item->valuedouble >= 0 && time_item->valuedouble < 9e15))
		goto bad;
	txn->time = (long long)time_item->valuedouble;
	/* Optional: journals written before it have none. */
	const cJSON *cause = cJSON_GetObjectItemCaseSensitive(root, "cause");
	why = "its cause is not a string";
	if (cause && !cJSON_IsString(cause))
		goto bad;
	txn->id = strdup(id);
	txn->profile = strdup(profile);
	txn->boot_id = strdup(boot);
	if (!txn->id || !txn->profile || !txn->boot_id || (cause && !(txn->cause = strdup(cause->valuestring))))
		goto nomem;

	size_t n = (size_t)cJSON_GetArraySize(changes);
	if (n && !(txn->changes = calloc(n, sizeof(*txn->changes))))
		goto nomem;
	const cJSON *item;
	cJSON_ArrayForEach(item, changes) {
		struct np_change *c = &txn->changes[txn->nchanges];
		const char *cpath = json_string(item, "path"), *kind = json_string(item, "kind");
		const char *attr = json_string(item, "attr"), *subject = json_string(item, "subject");
		const char *old = json_string(item, "old"), *new = json_string(item, "new");
		enum np_value_kind vkind = NP_VALUE_TEXT;
		why = "a change lacks path, kind, subject, old or new";
		if (!cpath || (!kind && !attr) || !subject || !old || !new)
			goto bad;
		why = "a change has an unknown kind";
		if ((kind && np_value_kind_parse(kind, &vkind)) || (attr && np_attr_by_name(attr, false) < 0))
			goto bad;
		/* Journals from before the attr table say only the value kind: the
		 * path tells which attr it is, as it would had the table existed. */
		int a = attr ? np_attr_by_name(attr, false) : np_attr_match(cpath, NULL);
		why = "a change's path is not the path of a tunable kind";
		if (a < 0)
			goto bad;
		why = "a change's kind does not fit its path";
		if (!path_fits(cpath, (enum np_attr)a) || (kind && vkind != np_attrs[a].value))
			goto bad;
		c->attr = (enum np_attr)a;
		c->path = strdup(cpath);
		c->subject = strdup(subject);
		c->old_value = strdup(old);
		c->new_value = strdup(new);
		txn->nchanges++;
		if (!c->path || !c->subject || !c->old_value || !c->new_value ||
		    np_attr_match(cpath, &c->target) < 0)
			goto nomem;
		if ((why = change_refused(c))) {
			snprintf(whybuf, sizeof(whybuf), "change %zu ('%s'): %s", txn->nchanges,
				 np_excerpt(cpath, ex, sizeof(ex)), why);
			why = whybuf;
			goto bad;
		}
	}
	if (error) {
		*error = dup_or_null(json_string(root, "error"));
		if (json_string(root, "error") && !*error)
			goto nomem;
	}
	cJSON_Delete(root);
	return 0;
nomem:
	rc = np_fail(ctx, -ENOMEM, "cannot read journal '%s': %s", path, strerror(ENOMEM));
	goto out;
bad:
	rc = np_fail(ctx, -EINVAL, "journal '%s' is malformed: %s", path, why);
out:
	cJSON_Delete(root);
	np_txn_free(txn);
	return rc;
}

int np_txn_parse(struct np_ctx *ctx, const char *path, const char *id, const char *text, size_t len,
		 struct np_txn *txn, char **error)
{
	return journal_parse(ctx, path, id, text, len, txn, error);
}

static int journal_load(struct np_ctx *ctx, struct state *st, const char *id, struct np_txn *txn,
			char **error)
{
	char name[ID_MAX + 16], path[sizeof(((struct state *)0)->txndir) + ID_MAX + 17];
	char *text = NULL;
	size_t len = 0;

	snprintf(name, sizeof(name), "%s" JOURNAL_EXT, id);
	snprintf(path, sizeof(path), "%s/%s", st->txndir, name);
	int rc = read_file_at(st->txnfd, name, &text, &len);
	if (rc)
		return np_fail(ctx, rc, "cannot read journal '%s': %s", path,
			       rc == -EINVAL ? "not a regular file" : strerror(-rc));
	rc = journal_parse(ctx, path, id, text, len, txn, error);
	free(text);
	return rc;
}

static int by_id(const void *a, const void *b)
{
	/* Version order keeps "-PID" and the "-N" suffix numeric: "...-9" before "...-10". */
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

/* Ids of every journal, oldest first. */
static int journal_ids(struct np_ctx *ctx, struct state *st, char ***ids, size_t *count)
{
	*ids = NULL;
	*count = 0;
	if (st->txnfd < 0)
		return 0;
	int fd = dup(st->txnfd);
	DIR *dir = fd < 0 ? NULL : fdopendir(fd);
	if (!dir) {
		int err = errno;
		if (fd >= 0)
			close(fd);
		return np_fail(ctx, -err, "cannot list '%s': %s", st->txndir, strerror(err));
	}
	/* The dup shares the offset with txnfd, which may have been read before. */
	rewinddir(dir);
	char **list = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	int rc = 0;
	while ((de = readdir(dir))) {
		size_t len = strlen(de->d_name), ext = strlen(JOURNAL_EXT);
		if (len <= ext || strcmp(de->d_name + len - ext, JOURNAL_EXT))
			continue;
		char *id = strndup(de->d_name, len - ext);
		if (!id) {
			rc = -ENOMEM;
			break;
		}
		if (!id_valid(id)) {
			free(id);
			continue;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			char **bigger = realloc(list, cap * sizeof(*list));
			if (!bigger) {
				free(id);
				rc = -ENOMEM;
				break;
			}
			list = bigger;
		}
		list[n++] = id;
	}
	closedir(dir);
	if (rc) {
		for (size_t i = 0; i < n; i++)
			free(list[i]);
		free(list);
		return np_fail(ctx, rc, "cannot list '%s': %s", st->txndir, strerror(-rc));
	}
	if (n)
		qsort(list, n, sizeof(*list), by_id);
	*ids = list;
	*count = n;
	return 0;
}

static void ids_free(char **ids, size_t count)
{
	for (size_t i = 0; i < count; i++)
		free(ids[i]);
	free(ids);
}

/* One bad journal (tampered, a link, torn by a disk) must not hide or block
 * the others: it is listed with its reason, and only its revert refuses. */
static int unreadable_entry(struct np_ctx *ctx, const char *id, struct np_txn *txn)
{
	memset(txn, 0, sizeof(*txn));
	txn->state = NP_TXN_UNREADABLE;
	txn->id = strdup(id);
	txn->profile = strdup("");
	txn->boot_id = strdup(UNKNOWN_BOOT);
	txn->unreadable = strdup(ctx->err);
	ctx->err[0] = '\0';
	if (!txn->id || !txn->profile || !txn->boot_id || !txn->unreadable) {
		np_txn_free(txn);
		return np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
	}
	return 0;
}

static int load_all(struct np_ctx *ctx, struct state *st, struct np_txn **txns, size_t *count)
{
	char **ids;
	size_t n;
	int rc = journal_ids(ctx, st, &ids, &n);

	*txns = NULL;
	*count = 0;
	if (rc || !n)
		return rc;
	struct np_txn *list = calloc(n, sizeof(*list));
	if (!list) {
		ids_free(ids, n);
		return np_fail(ctx, -ENOMEM, "cannot list '%s': %s", st->txndir, strerror(ENOMEM));
	}
	size_t kept = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		rc = journal_load(ctx, st, ids[i], &list[kept], NULL);
		if (!rc)
			kept++;
		else if (rc == -ENOENT)
			rc = 0; /* listed, then gone: nothing to report about it */
		else if (rc != -ENOMEM && !(rc = unreadable_entry(ctx, ids[i], &list[kept])))
			kept++;
	}
	ids_free(ids, n);
	if (rc) {
		np_txns_free(list, kept);
		return rc;
	}
	if (!kept) {
		free(list);
		list = NULL;
	}
	*txns = list;
	*count = kept;
	return 0;
}

static int latest_pending(struct np_ctx *ctx, struct state *st, char **id)
{
	struct np_txn *txns;
	size_t n;
	int rc = load_all(ctx, st, &txns, &n);

	*id = NULL;
	if (rc)
		return rc;
	for (size_t i = n; i-- > 0 && !*id;) {
		if (txns[i].state == NP_TXN_PENDING && !(*id = strdup(txns[i].id)))
			rc = np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
	}
	np_txns_free(txns, n);
	return rc;
}

int np_txn_list(struct np_ctx *ctx, const struct np_txn_opts *opts, struct np_txn **txns,
		size_t *count)
{
	struct state st;
	*txns = NULL;
	*count = 0;
	int rc = state_open(ctx, opts, false, &st);
	if (rc)
		return rc;
	rc = load_all(ctx, &st, txns, count);
	for (size_t i = 0; !rc && i < *count; i++)
		if (trim_values(&(*txns)[i]))
			rc = np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
	state_close(&st);
	return rc;
}

int np_txn_pending(struct np_ctx *ctx, const struct np_txn_opts *opts, char **id)
{
	struct state st;
	*id = NULL;
	int rc = state_open(ctx, opts, false, &st);
	if (rc)
		return rc;
	rc = latest_pending(ctx, &st, id);
	state_close(&st);
	return rc;
}

/* ---- writing values ---- */

/* Journals in the state directory so far: the next transaction's sequence
 * number. IDs are created under the lock, so the number also orders two
 * transactions made within the same second. */
static unsigned journal_count(struct state *st)
{
	int fd = dup(st->txnfd);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	unsigned n = 0;
	struct dirent *de;
	if (!dir) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	/* The dup shares its offset with txnfd, which the pending check has
	 * read to the end: without this, every count after it was 0. */
	rewinddir(dir);
	while ((de = readdir(dir))) {
		size_t len = strlen(de->d_name);
		n += len > strlen(JOURNAL_EXT) && !strcmp(de->d_name + len - strlen(JOURNAL_EXT), JOURNAL_EXT);
	}
	closedir(dir);
	return n;
}

/* "YYYYMMDD-HHMMSS-SEQ": sortable by time (UTC, so daylight saving never
 * reorders) and, within one second, by sequence. */
static int new_id(struct np_ctx *ctx, struct state *st, time_t now, char **id)
{
	struct tm tm;
	char base[64], name[ID_MAX + 16];

	if (!gmtime_r(&now, &tm))
		return np_fail(ctx, -EOVERFLOW, "cannot name a transaction: %s",
			       strerror(EOVERFLOW));
	snprintf(base, sizeof(base), "%04d%02d%02d-%02d%02d%02d", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
	for (unsigned n = journal_count(st) + 1, tries = 0; tries < 100000; n++, tries++) {
		struct stat sb;
		snprintf(name, sizeof(name), "%s-%u" JOURNAL_EXT, base, n);
		if (fstatat(st->txnfd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0)
			continue;
		if (errno != ENOENT)
			return np_fail(ctx, -errno, "cannot name a transaction in '%s': %s",
				       st->txndir, strerror(errno));
		*id = strndup(name, strlen(name) - strlen(JOURNAL_EXT));
		return *id ? 0 : np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
	}
	return np_fail(ctx, -EEXIST, "cannot name a transaction in '%s': %s", st->txndir,
		       strerror(EEXIST));
}

/* 0: the release binary never reads NP_FAULT_ENV; test builds link
 * tests/testing.c, whose definition does. */
__attribute__((weak)) long np_txn_fault_after(void)
{
	return 0;
}

/* One write and its read-back. *written tells the caller whether the file
 * may have changed, so that a mismatching value is undone too. */
static int write_checked(struct np_ctx *ctx, const struct np_change *c, const char *value,
			 bool exact, bool *written)
{
	char fp[PATH_MAX], ex[64], ex2[64];
	char *cur;

	*written = false;
	int rc = write_value(ctx, kind_of(c), c->path, value, exact);
	if (rc)
		return with_subject(ctx, rc, c);
	*written = true;
	rc = current_matches(ctx, c->path, kind_of(c), value, &cur);
	if (rc == 0)
		rc = np_fail(
			ctx, -EIO,
			"wrote '%s' to '%s' but it reads back '%s': the kernel did not take the value",
			show(value, ex, sizeof(ex)), full_path(ctx, c->path, fp),
			show(cur, ex2, sizeof(ex2)));
	free(cur);
	if (rc == 1)
		return 0;
	return with_subject(ctx, rc, c);
}

/* Writes values[done[j]] back for j from last to first, reading each back.
 * Goes on past a failure so that as much as possible is restored; returns
 * the first error, its detail copied to err. */
static int undo_writes(struct np_ctx *ctx, const struct np_change *changes, char *const *values,
		       const size_t *done, size_t ndone, char *err, size_t errsize)
{
	int first = 0;
	for (size_t j = ndone; j-- > 0;) {
		bool written;
		int rc = write_checked(ctx, &changes[done[j]], values[done[j]], true, &written);
		if (rc && !first) {
			first = rc;
			snprintf(err, errsize, "%s", ctx->err);
		}
	}
	return first;
}

static int read_boot_id(struct np_ctx *ctx, char **out)
{
	char saved[sizeof(ctx->err)], *text = NULL;
	memcpy(saved, ctx->err, sizeof(saved));
	/* Without a boot id staleness cannot be told: record that rather than fail. */
	if (np_read_text(ctx, &text, BOOT_ID_PATH) || !*text) {
		free(text);
		memcpy(ctx->err, saved, sizeof(saved));
		text = strdup(UNKNOWN_BOOT);
	}
	*out = text;
	return text ? 0 : np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
}

static bool boot_differs(const char *a, const char *b)
{
	return strcmp(a, UNKNOWN_BOOT) && strcmp(b, UNKNOWN_BOOT) && strcmp(a, b);
}

static int by_path(const void *a, const void *b)
{
	return strcmp((*(const struct np_change *const *)a)->path,
		      (*(const struct np_change *const *)b)->path);
}

static int validate_changes(struct np_ctx *ctx, const struct np_change *changes, size_t n)
{
	char ex[64];
	int rc = 0;

	if (n && !changes)
		return np_fail(ctx, -EINVAL, "no changes given");
	for (size_t i = 0; i < n; i++) {
		const struct np_change *c = &changes[i];
		if (!attr_valid(c->attr))
			return np_fail(ctx, -EINVAL, "%s: unknown kind %d for '%s'",
				       display_name(c), (int)c->attr, c->path ? c->path : "(null)");
		if (!path_fits(c->path, c->attr))
			return np_fail(ctx, -EINVAL, "%s: '%s' is not the path of %s (%s)",
				       c->subject && *c->subject ? c->subject : "change",
				       c->path ? c->path : "(null)", np_attr_name(c->attr),
				       np_attrs[c->attr].path);
		if (!np_attr_value_ok(c->attr, c->new_value))
			return np_fail(
				ctx, -EINVAL, "%s: '%s' is not a valid %s value for '%s'",
				display_name(c),
				np_excerpt(c->new_value ? c->new_value : "(null)", ex, sizeof(ex)),
				np_attr_name(c->attr), c->path);
	}
	/* Two changes of one file would journal the same old value twice and
	 * make the first one's "new" look changed by someone else at revert. */
	const struct np_change **sorted = n ? malloc(n * sizeof(*sorted)) : NULL;
	if (n && !sorted)
		return np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
	for (size_t i = 0; i < n; i++)
		sorted[i] = &changes[i];
	if (n)
		qsort(sorted, n, sizeof(*sorted), by_path);
	for (size_t i = 1; i < n && !rc; i++)
		if (!strcmp(sorted[i - 1]->path, sorted[i]->path))
			rc = np_fail(ctx, -EINVAL, "two changes of '%s' (%s; %s)", sorted[i]->path,
				     subject_of(sorted[i - 1]), subject_of(sorted[i]));
	free(sorted);
	return rc;
}

/* Refuses to write while an earlier transaction is unfinished. */
static int refuse_pending(struct np_ctx *ctx, struct state *st)
{
	char *id;
	int rc = latest_pending(ctx, st, &id);
	if (rc || !id)
		return rc;
	rc = np_fail(ctx, -EBUSY,
		     "transaction %s did not finish (journal '%s/%s" JOURNAL_EXT
		     "' is pending): run 'numaplace revert' first",
		     id, st->txndir, id);
	free(id);
	return rc;
}

/* Fills changes[].old_value and keeps in txn the changes that differ. */
static int read_old_values(struct np_ctx *ctx, struct np_change *changes, size_t n,
			   struct np_txn *txn)
{
	char fp[PATH_MAX], ex[64];

	if (n && !(txn->changes = calloc(n, sizeof(*txn->changes))))
		return np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
	for (size_t i = 0; i < n; i++) {
		struct np_change *c = &changes[i];
		char *old;
		int rc = read_value(ctx, kind_of(c), c->path, &old);
		if (rc)
			return with_subject(ctx, rc, c);
		/* Made from another text than is there now: someone wrote the file
		 * since; writing ours would drop what they wrote. */
		if (kind_of(c) == NP_VALUE_TEXT && c->old_value && strcmp(c->old_value, old)) {
			free(old);
			rc = np_fail(ctx, -EAGAIN,
				     "'%s' changed while numaplace prepared its change; run it again",
				     full_path(ctx, c->path, fp));
			return with_subject(ctx, rc, c);
		}
		/* An old value we could not compare could not be checked at revert either. */
		char *norm = np_value_normalize(kind_of(c), old);
		if (!norm) {
			rc = np_fail(ctx, -EINVAL, "'%s': expected a %s value, found '%s'",
				     full_path(ctx, c->path, fp), np_value_kind_name(kind_of(c)),
				     show(old, ex, sizeof(ex)));
			free(old);
			return with_subject(ctx, rc, c);
		}
		free(norm);
		free(c->old_value);
		c->old_value = old;
		bool same = same_value(kind_of(c), old, c->new_value);
		if (!same && change_copy(&txn->changes[txn->nchanges++], c))
			return np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
		/* The journal keeps the bytes; the caller gets the value. */
		if (kind_of(c) != NP_VALUE_TEXT && !(c->old_value = trimmed(old)))
			rc = -ENOMEM;
		free(kind_of(c) != NP_VALUE_TEXT ? old : NULL);
		if (rc)
			return np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
	}
	return 0;
}

int np_txn_apply(struct np_ctx *ctx, const struct np_txn_opts *opts, const char *profile,
		 struct np_change *changes, size_t nchanges, struct np_txn *txn_out)
{
	struct np_txn txn = { 0 };
	struct state st = { .dirfd = -1, .txnfd = -1, .lockfd = -1 };
	char primary[sizeof(ctx->err)], undo_err[sizeof(ctx->err)], both[2 * sizeof(ctx->err) + 64];
	char **olds = NULL;
	size_t *done = NULL, ndone = 0;
	long fault = np_txn_fault_after(), nwrites = 0;
	int rc;

	if (txn_out)
		memset(txn_out, 0, sizeof(*txn_out));
	if ((rc = validate_changes(ctx, changes, nchanges)))
		return rc;
	if ((rc = state_open(ctx, opts, true, &st)) || (rc = state_lock(ctx, opts, &st)) ||
	    (rc = refuse_pending(ctx, &st)))
		goto out;
	if ((rc = read_boot_id(ctx, &txn.boot_id)) ||
	    (rc = read_old_values(ctx, changes, nchanges, &txn)))
		goto out;
	if (!txn.nchanges)
		goto out;

	txn.time = (long long)time(NULL);
	txn.state = NP_TXN_PENDING;
	if (!(txn.profile = strdup(profile ? profile : "")) ||
	    (opts && opts->cause && !(txn.cause = strdup(opts->cause)))) {
		rc = np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
		goto out;
	}
	olds = calloc(txn.nchanges, sizeof(*olds));
	done = calloc(txn.nchanges, sizeof(*done));
	if (!olds || !done) {
		rc = np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
		goto out;
	}
	for (size_t i = 0; i < txn.nchanges; i++)
		olds[i] = txn.changes[i].old_value;
	if ((rc = new_id(ctx, &st, (time_t)txn.time, &txn.id)) ||
	    (rc = write_journal(ctx, &st, &txn, NULL)))
		goto out;

	for (size_t i = 0; i < txn.nchanges; i++) {
		bool written;
		rc = write_checked(ctx, &txn.changes[i], txn.changes[i].new_value, false, &written);
		if (written)
			done[ndone++] = i;
		if (rc)
			break;
		if (fault && ++nwrites == fault)
			_exit(3);
	}

	if (rc) {
		snprintf(primary, sizeof(primary), "%s", ctx->err);
		int urc = undo_writes(ctx, txn.changes, olds, done, ndone, undo_err,
				      sizeof(undo_err));
		if (urc) {
			/* Some values are still new: the journal stays pending so that
			 * a revert can finish the job, and apply stays refused. */
			snprintf(both, sizeof(both),
				 "%s; undoing the earlier writes failed too: %s", primary,
				 undo_err);
			write_journal(ctx, &st, &txn, both);
			np_fail(ctx, rc,
				"%s; transaction %s is left pending: run 'numaplace revert' to retry",
				both, txn.id);
			goto out;
		}
		txn.state = NP_TXN_ROLLED_BACK;
		if (write_journal(ctx, &st, &txn, primary) == 0) {
			np_fail(ctx, rc, "%s", primary);
		} else {
			snprintf(undo_err, sizeof(undo_err), "%s", ctx->err);
			np_fail(ctx, rc, "%s; the writes were undone but %s", primary, undo_err);
		}
		goto out;
	}

	/* Not worth a directory sync: until the next one, a crash leaves the
	 * pending journal, whole, whose recovery (revert) restores the old
	 * values it holds, as it would have after a crash a moment earlier.
	 * The pending journal itself was synced, name and all, before the
	 * first write. */
	txn.state = NP_TXN_APPLIED;
	if ((rc = write_journal_sync(ctx, &st, &txn, NULL, false))) {
		snprintf(undo_err, sizeof(undo_err), "%s", ctx->err);
		np_fail(ctx, rc,
			"the values were written but %s; run 'numaplace revert' to undo them",
			undo_err);
		goto out;
	}
	if (txn_out && trim_values(&txn) == 0) {
		*txn_out = txn;
		memset(&txn, 0, sizeof(txn));
	}
out:
	free(olds);
	free(done);
	np_txn_free(&txn);
	state_close(&st);
	return rc;
}

/* ---- revert ---- */

static int pick_txn(struct np_ctx *ctx, struct state *st, const char *id, char **picked)
{
	struct np_txn *txns;
	size_t n;
	int rc;

	*picked = NULL;
	if (id) {
		struct stat sb;
		char name[ID_MAX + 16];
		snprintf(name, sizeof(name), "%s" JOURNAL_EXT, id);
		if (st->txnfd < 0 || fstatat(st->txnfd, name, &sb, AT_SYMLINK_NOFOLLOW) < 0)
			return np_fail(ctx, -ENOENT, "no transaction '%s' in '%s'", id, st->txndir);
		*picked = strdup(id);
		return *picked ? 0 : np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
	}
	if ((rc = load_all(ctx, st, &txns, &n)))
		return rc;
	for (size_t i = n; i-- > 0 && !*picked;) {
		if (txns[i].state != NP_TXN_APPLIED && txns[i].state != NP_TXN_PENDING)
			continue;
		if (!(*picked = strdup(txns[i].id)))
			rc = np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
	}
	np_txns_free(txns, n);
	if (!rc && !*picked)
		rc = np_fail(ctx, -ENOENT, "no applied transaction to revert in '%s'",
			     st->txnfd < 0 ? st->dir : st->txndir);
	return rc;
}

static int refuse_finished(struct np_ctx *ctx, const struct np_txn *txn)
{
	switch (txn->state) {
	case NP_TXN_REVERTED:
		return np_fail(ctx, -EINVAL,
			       "transaction %s was already reverted: nothing to revert", txn->id);
	case NP_TXN_ROLLED_BACK:
		return np_fail(
			ctx, -EINVAL,
			"transaction %s failed and was rolled back when applied: nothing to revert",
			txn->id);
	case NP_TXN_STALE:
		return np_fail(
			ctx, -EINVAL,
			"transaction %s is stale (applied during an earlier boot): nothing to revert",
			txn->id);
	default:
		return 0;
	}
}

/* What a revert of a transaction from an earlier boot still restores: the
 * configuration files, which a reboot leaves as the transaction wrote them. */
static bool survives_reboot(const struct np_change *c)
{
	return np_attrs[c->attr].survives_reboot;
}

static bool has_survivor(const struct np_txn *txn)
{
	for (size_t i = 0; i < txn->nchanges; i++)
		if (survives_reboot(&txn->changes[i]))
			return true;
	return false;
}

/* Where the current value of c stands, and what its revert writes over it
 * (*restore, malloc'd; NULL when it is the old value already): the old
 * value, or for the irqbalance kind the file as it is now with only its
 * banned-IRQ lines put back, so that what else someone edited stays. The
 * journal's text is never written whole. */
enum held { HELD_NEW, HELD_OLD, HELD_OTHER };

static int revert_value(struct np_ctx *ctx, const struct np_change *c, const char *current,
			enum held *held, char **restore)
{
	*restore = NULL;
	if (c->attr == NP_ATTR_IRQBALANCE_CONFIG) {
		enum np_ban_state bans;
		int rc = np_irqbalance_unban_text(ctx, current, c->old_value, c->new_value, &bans, restore);
		*held = bans == NP_BANS_NEW ? HELD_NEW : bans == NP_BANS_OLD ? HELD_OLD : HELD_OTHER;
		return rc;
	}
	*held = same_value(kind_of(c), current, c->new_value)   ? HELD_NEW
		: same_value(kind_of(c), current, c->old_value) ? HELD_OLD
								: HELD_OTHER;
	if (*held != HELD_OLD && !(*restore = strdup(c->old_value)))
		return np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
	return 0;
}

/* Reads every current value into before[], what the revert writes into
 * restore[] (NULL: nothing), and refuses values that someone else changed
 * since the transaction, unless force. stale: only the values that survive
 * a reboot (the others stay NULL). */
static int check_drift(struct np_ctx *ctx, const struct np_txn *txn, bool force, bool stale,
		       char **before, char **restore)
{
	char fp[PATH_MAX], ex[64], exn[64], exo[64];
	size_t ndrift = 0, first = 0;

	for (size_t i = 0; i < txn->nchanges; i++) {
		const struct np_change *c = &txn->changes[i];
		enum held held;
		if (stale && !survives_reboot(c))
			continue;
		/* A value that does not parse (a file emptied by hand, a foreign
		 * write) is drift like any other: --force restores over it. */
		int rc = read_value(ctx, kind_of(c), c->path, &before[i]);
		if (rc < 0)
			return with_subject(ctx, rc, c);
		if ((rc = revert_value(ctx, c, before[i], &held, &restore[i])))
			return with_subject(ctx, rc, c);
		/* A crashed apply may have stopped before this write. */
		if (held == HELD_NEW || (txn->state == NP_TXN_PENDING && held == HELD_OLD))
			continue;
		if (!ndrift++)
			first = i;
	}
	if (!ndrift || force)
		return 0;
	const struct np_change *c = &txn->changes[first];
	char more[64] = "";
	if (ndrift > 1)
		snprintf(more, sizeof(more), " (and %zu more)", ndrift - 1);
	if (c->attr == NP_ATTR_IRQBALANCE_CONFIG)
		return np_fail(ctx, -EBUSY,
			       "'%s' (%s): its banned-IRQ lines (IRQBALANCE_ARGS) changed since transaction %s%s; "
			       "use --force to put back the ones from before it anyway",
			       full_path(ctx, c->path, fp), display_name(c), txn->id, more);
	char expected[200];
	if (txn->state == NP_TXN_PENDING)
		snprintf(expected, sizeof(expected), "'%s' or '%s'",
			 np_excerpt(c->new_value, exn, sizeof(exn)),
			 show(c->old_value, exo, sizeof(exo)));
	else
		snprintf(expected, sizeof(expected), "'%s'",
			 np_excerpt(c->new_value, exn, sizeof(exn)));
	return np_fail(ctx, -EBUSY,
		       "'%s' (%s) changed since transaction %s: it is '%s', expected %s%s; "
		       "use --force to revert anyway",
		       full_path(ctx, c->path, fp), display_name(c), txn->id,
		       show(before[first], ex, sizeof(ex)), expected, more);
}

/* What a revert would write: the changes whose current value (before[i],
 * taken over) is not the old one yet, in journal order; the text of a
 * configuration file as it would be written (restore[i], taken over). */
static void revert_plan(struct np_txn *txn, bool stale, char **before, char **restore)
{
	size_t n = 0;
	for (size_t i = 0; i < txn->nchanges; i++) {
		struct np_change *c = &txn->changes[i];
		if ((stale && !survives_reboot(c)) || !restore[i]) {
			np_change_free(c);
			continue;
		}
		free(c->new_value);
		c->new_value = before[i];
		before[i] = NULL;
		if (kind_of(c) == NP_VALUE_TEXT) {
			free(c->old_value);
			c->old_value = restore[i];
			restore[i] = NULL;
		}
		txn->changes[n++] = *c;
	}
	txn->nchanges = n;
}

int np_txn_revert(struct np_ctx *ctx, const struct np_txn_opts *opts, const char *id, bool force,
		  struct np_txn *txn_out)
{
	struct np_txn txn = { 0 };
	struct state st = { .dirfd = -1, .txnfd = -1, .lockfd = -1 };
	char primary[sizeof(ctx->err)], undo_err[sizeof(ctx->err)];
	char *picked = NULL, *error = NULL, *boot = NULL, **before = NULL, **restore = NULL;
	size_t *done = NULL, ndone = 0, nbefore = 0;
	enum np_txn_state was;
	bool any = false, stale;
	int rc;

	if (txn_out)
		memset(txn_out, 0, sizeof(*txn_out));
	if (id && !id_valid(id))
		return np_fail(ctx, -EINVAL, "'%s' is not a transaction id", id);
	if ((rc = state_open(ctx, opts, false, &st)))
		return rc;
	if (st.dirfd < 0) {
		rc = np_fail(ctx, -ENOENT, "nothing to revert: no state directory '%s'", st.dir);
		goto out;
	}
	/* A dry run reads a journal another revert may be rewriting: it shows
	 * the plan of that moment, which is all a dry run promises. */
	if ((rc = opts->dry_run ? 0 : state_lock(ctx, opts, &st)) || (rc = pick_txn(ctx, &st, id, &picked)) ||
	    (rc = journal_load(ctx, &st, picked, &txn, &error)) ||
	    (rc = refuse_finished(ctx, &txn)) || (rc = read_boot_id(ctx, &boot)))
		goto out;

	stale = boot_differs(txn.boot_id, boot);
	if (stale && !has_survivor(&txn)) {
		txn.state = NP_TXN_STALE;
		rc = opts->dry_run ? 0 : write_journal(ctx, &st, &txn, error);
		if (!rc)
			rc = np_fail(
				ctx, -ESTALE,
				"transaction %s was applied during an earlier boot (boot id %s, now %s): "
				"the reboot already reset those values; %s",
				txn.id, txn.boot_id, boot,
				opts->dry_run ? "nothing to revert" : "marked it stale and wrote nothing");
		goto out;
	}

	before = calloc(txn.nchanges ? txn.nchanges : 1, sizeof(*before));
	restore = calloc(txn.nchanges ? txn.nchanges : 1, sizeof(*restore));
	done = calloc(txn.nchanges ? txn.nchanges : 1, sizeof(*done));
	if (!before || !restore || !done) {
		rc = np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
		goto out;
	}
	nbefore = txn.nchanges;
	if ((rc = check_drift(ctx, &txn, force, stale, before, restore)))
		goto out;
	if (opts->dry_run) {
		revert_plan(&txn, stale, before, restore);
		goto handout;
	}

	/* A writer killed between naming its temporary file and the rename
	 * left that name beside the file (np_replace_at); we hold the lock, so
	 * no writer of these files is alive. */
	for (size_t i = 0; i < txn.nchanges && txn.state == NP_TXN_PENDING; i++)
		if ((rc = np_remove_stale_temps(ctx, "%s", txn.changes[i].path)))
			goto out;

	/* Pending while the revert writes: if it crashes half way, the next
	 * revert accepts old and new values alike and finishes the job. */
	was = txn.state;
	for (size_t i = 0; i < txn.nchanges && !any; i++)
		any = restore[i] != NULL;
	if (any && was != NP_TXN_PENDING) {
		txn.state = NP_TXN_PENDING;
		if ((rc = write_journal(ctx, &st, &txn, error)))
			goto out;
	}

	for (size_t i = txn.nchanges; i-- > 0;) {
		const struct np_change *c = &txn.changes[i];
		bool written;
		if (!restore[i])
			continue;
		rc = write_checked(ctx, c, restore[i], true, &written);
		if (written)
			done[ndone++] = i;
		if (rc)
			break;
	}

	if (rc) {
		snprintf(primary, sizeof(primary), "%s", ctx->err);
		int urc = undo_writes(ctx, txn.changes, before, done, ndone, undo_err,
				      sizeof(undo_err));
		if (urc) {
			/* Values are mixed now: pending is the truth, and lets a revert retry. */
			np_fail(ctx, rc,
				"%s; restoring the values the revert had changed failed too: %s; "
				"transaction %s is left pending: run 'numaplace revert' to retry",
				primary, undo_err, txn.id);
			goto out;
		}
		txn.state = was;
		const char *undone = ndone ? "; the revert's writes were undone" : "";
		if (any && was != NP_TXN_PENDING && write_journal(ctx, &st, &txn, error)) {
			snprintf(undo_err, sizeof(undo_err), "%s", ctx->err);
			np_fail(ctx, rc, "%s%s; %s", primary, undone, undo_err);
		} else {
			np_fail(ctx, rc, "%s%s", primary, undone);
		}
		goto out;
	}

	txn.state = stale ? NP_TXN_STALE : NP_TXN_REVERTED;
	if ((rc = write_journal(ctx, &st, &txn, error))) {
		snprintf(undo_err, sizeof(undo_err), "%s", ctx->err);
		np_fail(ctx, rc, "the old values were restored but %s", undo_err);
		goto out;
	}
	if (stale) {
		char fp[PATH_MAX];
		const char *kept = "";
		for (size_t i = txn.nchanges; i-- > 0;)
			if (survives_reboot(&txn.changes[i]))
				kept = txn.changes[i].path;
		full_path(ctx, kept, fp);
		rc = np_fail(ctx, -ESTALE,
			     "transaction %s was applied during an earlier boot (boot id %s, now %s): "
			     "the reboot already reset its kernel values; %s '%s'%s and marked it stale",
			     txn.id, txn.boot_id, boot, any ? "restored" : "nothing to restore in", fp,
			     any ? ", which a reboot keeps," : "");
		goto out;
	}
handout:
	if (txn_out && trim_values(&txn) == 0) {
		*txn_out = txn;
		memset(&txn, 0, sizeof(txn));
	}
out:
	for (size_t i = 0; i < nbefore; i++) {
		free(before[i]);
		free(restore[i]);
	}
	free(before);
	free(restore);
	free(done);
	free(picked);
	free(error);
	free(boot);
	np_txn_free(&txn);
	state_close(&st);
	return rc;
}

/* ---- retention ---- */

static bool prunable(const struct np_txn *txn, const char *boot)
{
	switch (txn->state) {
	case NP_TXN_REVERTED:
	case NP_TXN_ROLLED_BACK:
	case NP_TXN_STALE:
		return true;
	case NP_TXN_APPLIED:
		/* A reboot reset its values; only a configuration file it changed
		 * would still need its revert. */
		return boot_differs(txn->boot_id, boot) && !has_survivor(txn);
	case NP_TXN_PENDING:
	default:
		return false;
	}
}

int np_txn_prune(struct np_ctx *ctx, const struct np_txn_opts *opts, size_t keep, char ***removed,
		 size_t *nremoved)
{
	struct state st;
	struct np_txn *txns = NULL;
	char *boot = NULL;
	size_t n = 0;
	int rc;

	*removed = NULL;
	*nremoved = 0;
	if ((rc = state_open(ctx, opts, false, &st)))
		return rc;
	if (st.dirfd < 0 || st.txnfd < 0)
		goto out;
	if ((rc = state_lock(ctx, opts, &st)) || (rc = load_all(ctx, &st, &txns, &n)) ||
	    (rc = read_boot_id(ctx, &boot)) || n <= keep)
		goto out;
	*removed = calloc(n - keep, sizeof(**removed));
	if (!*removed) {
		rc = np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
		goto out;
	}
	for (size_t i = 0; i < n - keep; i++) {
		char name[ID_MAX + 16];
		if (!prunable(&txns[i], boot))
			continue;
		snprintf(name, sizeof(name), "%s" JOURNAL_EXT, txns[i].id);
		if (unlinkat(st.txnfd, name, 0) < 0 && errno != ENOENT) {
			rc = np_fail(ctx, -errno, "cannot remove '%s/%s': %s", st.txndir, name, strerror(errno));
			break;
		}
		(*removed)[(*nremoved)++] = txns[i].id;
		txns[i].id = NULL;
	}
	if (*nremoved)
		fsync(st.txnfd);
out:
	if (!*nremoved) {
		free(*removed);
		*removed = NULL;
	}
	np_txns_free(txns, n);
	free(boot);
	state_close(&st);
	return rc;
}
