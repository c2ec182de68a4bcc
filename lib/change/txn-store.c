/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The state directory: its checks, the lock, journals read and written
 * whole, the list of transactions, new ids and retention. */
#include "change/txn-store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read/sysfs.h"

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
 * root (lib/read/sysfs), so that a link in a copied tree ("var -> /elsewhere")
 * cannot put the journals and the lock outside it. */
static int open_state_dir(struct np_ctx *ctx, const struct np_txn_opts *opts, bool create,
			  struct txn_store *st)
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

void txn_state_close(struct txn_store *st)
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
int txn_state_open(struct np_ctx *ctx, const struct np_txn_opts *opts, bool create,
		      struct txn_store *st)
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
			txn_state_close(st);
			return rc;
		}
	}
	rc = open_dir_at(ctx, st->dirfd, TXN_SUBDIR, st->txndir, &st->txnfd);
	if (rc == -ENOENT && !create) {
		ctx->err[0] = '\0';
		return 0;
	}
	if (rc)
		txn_state_close(st);
	return rc;
}

/* A writer killed between writing a journal's temporary file and its rename
 * left "ID.json.tmp" behind: garbage (the rename never happened), which only
 * the lock's holder may remove, for no other writer is alive then. */
static void remove_stale_tmps(struct txn_store *st)
{
	if (st->txnfd < 0)
		return;
	int fd = dup(st->txnfd);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	if (!dir) {
		if (fd >= 0)
			close(fd);
		return;
	}
	rewinddir(dir);
	struct dirent *de;
	static const char tail[] = JOURNAL_EXT TMP_EXT;
	while ((de = readdir(dir))) {
		size_t len = strlen(de->d_name);
		if (len > sizeof(tail) - 1 && !strcmp(de->d_name + len - (sizeof(tail) - 1), tail))
			unlinkat(st->txnfd, de->d_name, 0);
	}
	closedir(dir);
}

int txn_state_lock(struct np_ctx *ctx, const struct np_txn_opts *opts, struct txn_store *st)
{
	char path[PATH_MAX + 8];
	bool wait = opts && opts->wait_for_lock;

	snprintf(path, sizeof(path), "%s/%s", st->dir, LOCK_NAME);
	st->lockfd = openat(st->dirfd, LOCK_NAME, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (st->lockfd < 0)
		return np_fail(ctx, -errno, "cannot open lock '%s': %s", path, strerror(errno));
	int rc;
	unsigned timeout = wait ? opts->lock_timeout : 0;
	if (wait && (timeout || opts->stop)) {
		/* flock has no timeout, and the stop signals are blocked (a
		 * blocking flock would sit out a Ctrl-C): poll, which a boot
		 * service can afford. */
		struct timespec now, end, nap = { 0, 100 * 1000 * 1000 };
		clock_gettime(CLOCK_MONOTONIC, &end);
		end.tv_sec += timeout;
		for (;;) {
			rc = flock(st->lockfd, LOCK_EX | LOCK_NB);
			if (rc == 0 || (errno != EWOULDBLOCK && errno != EINTR))
				break;
			int sig = np_stop_pending(opts->stop);
			if (sig)
				return np_fail(ctx, -EINTR, "stopped by %s while waiting for the lock '%s' of another "
					       "numaplace apply or revert; nothing written", np_stop_name(sig), path);
			clock_gettime(CLOCK_MONOTONIC, &now);
			if (timeout && (now.tv_sec > end.tv_sec ||
					(now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec)))
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
	remove_stale_tmps(st);
	return 0;
}

int np_txn_hold_claim(struct np_ctx *ctx, const struct np_txn_opts *opts, int *fd)
{
	struct txn_store st;
	char path[PATH_MAX + sizeof(HOLD_NAME) + 1], text[32];
	int rc = txn_state_open(ctx, opts, true, &st);

	*fd = -1;
	if (rc)
		return rc;
	snprintf(path, sizeof(path), "%s/%s", st.dir, HOLD_NAME);
	int lfd = openat(st.dirfd, HOLD_NAME, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	txn_state_close(&st);
	if (lfd < 0)
		return np_fail(ctx, -errno, "cannot open lock '%s': %s", path, strerror(errno));
	if (flock(lfd, LOCK_EX | LOCK_NB) < 0) {
		int err = errno;
		ssize_t n = err == EWOULDBLOCK ? pread(lfd, text, sizeof(text) - 1, 0) : -1;
		close(lfd);
		if (err != EWOULDBLOCK)
			return np_fail(ctx, -err, "cannot lock '%s': %s", path, strerror(err));
		text[n > 0 ? n : 0] = '\0';
		long pid = strtol(text, NULL, 10);
		char who[48] = "";
		if (pid > 0)
			snprintf(who, sizeof(who), " (pid %ld)", pid);
		return np_fail(ctx, -EBUSY,
			       "another numaplace hold%s keeps a profile applied with the state directory '%s' "
			       "(lock '%s'): two would undo each other's values; stop it first", who, st.dir, path);
	}
	int len = snprintf(text, sizeof(text), "%ld\n", (long)getpid());
	ssize_t n = ftruncate(lfd, 0) < 0 ? -1 : pwrite(lfd, text, (size_t)len, 0);
	if (n != len) {
		int err = n < 0 ? errno : EIO;
		close(lfd);
		return np_fail(ctx, -err, "cannot write lock '%s': %s", path, strerror(err));
	}
	*fd = lfd;
	return 0;
}

/* Write to a temporary name, sync, rename, sync the directory: a crash
 * leaves either the old journal or the new one, never a torn one. sync_dir
 * false leaves the rename to the next directory sync: only for an outcome
 * replacing a pending journal (see np_txn_apply). The values written before
 * (a write batch: lib/read/sysfs.h) are synced first: a journal never says
 * more than the disk holds. */
int txn_write_journal_sync(struct np_ctx *ctx, struct txn_store *st, const struct np_txn *txn,
			      const char *error, bool sync_dir)
{
	char name[ID_MAX + 16], tmp[ID_MAX + 24];
	int err = 0, fd = -1;

	snprintf(name, sizeof(name), "%s" JOURNAL_EXT, txn->id);
	if (np_write_batch_sync(ctx)) {
		char detail[sizeof(ctx->err)];
		snprintf(detail, sizeof(detail), "%s", ctx->err);
		return np_fail(ctx, -EIO, "cannot write journal '%s/%s': %s", st->txndir, name, detail);
	}
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

int txn_write_journal(struct np_ctx *ctx, struct txn_store *st, const struct np_txn *txn,
			 const char *error)
{
	return txn_write_journal_sync(ctx, st, txn, error, true);
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

int txn_journal_load(struct np_ctx *ctx, struct txn_store *st, const char *id, struct np_txn *txn,
			char **error)
{
	char name[ID_MAX + 16], path[sizeof(((struct txn_store *)0)->txndir) + ID_MAX + 17];
	char *text = NULL;
	size_t len = 0;

	snprintf(name, sizeof(name), "%s" JOURNAL_EXT, id);
	snprintf(path, sizeof(path), "%s/%s", st->txndir, name);
	int rc = read_file_at(st->txnfd, name, &text, &len);
	if (rc)
		return np_fail(ctx, rc, "cannot read journal '%s': %s", path,
			       rc == -EINVAL ? "not a regular file" : strerror(-rc));
	rc = np_txn_parse(ctx, path, id, text, len, txn, error);
	free(text);
	return rc;
}

static int by_id(const void *a, const void *b)
{
	/* Version order keeps "-PID" and the "-N" suffix numeric: "...-9" before "...-10". */
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

/* Ids of every journal, oldest first. */
static int journal_ids(struct np_ctx *ctx, struct txn_store *st, char ***ids, size_t *count)
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
		if (!txn_id_valid(id)) {
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

int txn_load_all(struct np_ctx *ctx, struct txn_store *st, struct np_txn **txns, size_t *count)
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
		rc = txn_journal_load(ctx, st, ids[i], &list[kept], NULL);
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

static int latest_pending(struct np_ctx *ctx, struct txn_store *st, char **id)
{
	struct np_txn *txns;
	size_t n;
	int rc = txn_load_all(ctx, st, &txns, &n);

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
	struct txn_store st;
	*txns = NULL;
	*count = 0;
	int rc = txn_state_open(ctx, opts, false, &st);
	if (rc)
		return rc;
	rc = txn_load_all(ctx, &st, txns, count);
	for (size_t i = 0; !rc && i < *count; i++)
		if (txn_trim_values(&(*txns)[i]))
			rc = np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
	txn_state_close(&st);
	return rc;
}

static bool touches(const struct np_txn *txn, const char *path)
{
	for (size_t j = 0; j < txn->nchanges; j++)
		if (!strcmp(txn->changes[j].path, path))
			return true;
	return false;
}

void txn_fold_session(struct np_ctx *ctx, struct txn_store *st, const struct np_txn *latest)
{
	char saved[sizeof(ctx->err)];
	struct np_txn *all;
	size_t n;
	memcpy(saved, ctx->err, sizeof(saved));
	if (!latest->session || txn_load_all(ctx, st, &all, &n)) {
		memcpy(ctx->err, saved, sizeof(saved));
		return;
	}
	bool *dirty = calloc(n ? n : 1, sizeof(*dirty));
	size_t self = 0;
	while (self < n && strcmp(all[self].id, latest->id))
		self++;
	for (size_t i = 0; dirty && self < n && i < all[self].nchanges; i++) {
		const char *path = all[self].changes[i].path;
		/* A file's text (irqbalance's) is reverted by putting back the
		 * block its old text had, not by a session's first value: the
		 * latest takes over the old text of the first re-apply it folds,
		 * so that its revert also undoes what that one added. Before, the
		 * folded bans stayed and the first apply's revert refused. */
		struct np_change *mine = &all[self].changes[i];
		bool earliest = true, text = kind_of(mine) == NP_VALUE_TEXT, took = false;
		for (size_t k = 0; k < self; k++) {
			struct np_txn *e = &all[k];
			if (e->state == NP_TXN_UNREADABLE || strcmp(txn_session_of(e), latest->session) ||
			    !touches(e, path))
				continue;
			/* The session's first value there is what its revert restores. */
			if (earliest) {
				earliest = false;
				continue;
			}
			if (e->state != NP_TXN_APPLIED)
				continue;
			size_t kept = 0;
			for (size_t j = 0; j < e->nchanges; j++) {
				if (strcmp(e->changes[j].path, path)) {
					e->changes[kept++] = e->changes[j];
					continue;
				}
				if (text && !took) {
					free(mine->old_value);
					mine->old_value = e->changes[j].old_value;
					e->changes[j].old_value = NULL;
					took = dirty[self] = true;
				}
				np_change_free(&e->changes[j]);
			}
			e->nchanges = kept;
			dirty[k] = true;
		}
	}
	/* The latest first: a crash after it leaves the folded re-apply's
	 * text at its old value already, which its revert then leaves alone. */
	if (dirty && self < n && dirty[self] && txn_write_journal(ctx, st, &all[self], NULL))
		memset(dirty, 0, n * sizeof(*dirty));
	for (size_t k = 0; dirty && k < self; k++) {
		char name[ID_MAX + 16];
		if (!dirty[k])
			continue;
		snprintf(name, sizeof(name), "%s" JOURNAL_EXT, all[k].id);
		/* Each step whole: a crash leaves this journal folded or not. */
		if (all[k].nchanges ? txn_write_journal(ctx, st, &all[k], NULL) : unlinkat(st->txnfd, name, 0))
			break;
	}
	free(dirty);
	np_txns_free(all, n);
	memcpy(ctx->err, saved, sizeof(saved));
}

int np_txn_session(struct np_ctx *ctx, const struct np_txn_opts *opts, const char *id, char ***ids,
		   size_t *count)
{
	struct txn_store st;
	struct np_txn *txns = NULL;
	size_t n = 0;
	const char *session = NULL;

	*ids = NULL;
	*count = 0;
	if (id && !txn_id_valid(id))
		return np_fail(ctx, -EINVAL, "'%s' is not a transaction id", id);
	int rc = txn_state_open(ctx, opts, false, &st);
	if (rc || (rc = txn_load_all(ctx, &st, &txns, &n)))
		goto out;
	for (size_t i = n; i-- > 0 && !session;) {
		bool live = txns[i].state == NP_TXN_APPLIED || txns[i].state == NP_TXN_PENDING;
		if (id ? !strcmp(txns[i].id, id) : live)
			session = txn_session_of(&txns[i]);
	}
	if (!session) {
		rc = id ? np_fail(ctx, -ENOENT, "no transaction '%s' in '%s'", id, st.txndir)
			: np_fail(ctx, -ENOENT, "no applied transaction to revert in '%s'",
				  st.txnfd < 0 ? st.dir : st.txndir);
		goto out;
	}
	if (!(*ids = calloc(n, sizeof(**ids)))) {
		rc = np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
		goto out;
	}
	for (size_t i = n; i-- > 0;) {
		if ((txns[i].state != NP_TXN_APPLIED && txns[i].state != NP_TXN_PENDING) ||
		    strcmp(txn_session_of(&txns[i]), session))
			continue;
		(*ids)[(*count)++] = txns[i].id;
		txns[i].id = NULL;
	}
out:
	np_txns_free(txns, n);
	txn_state_close(&st);
	return rc;
}

int np_txn_pending(struct np_ctx *ctx, const struct np_txn_opts *opts, char **id)
{
	struct txn_store st;
	*id = NULL;
	int rc = txn_state_open(ctx, opts, false, &st);
	if (rc)
		return rc;
	rc = latest_pending(ctx, &st, id);
	txn_state_close(&st);
	return rc;
}

/* The next transaction's sequence number: one more than any journal's. IDs
 * are created under the lock, so the number also orders two transactions
 * made within the same second. It was the count of journals, which drops
 * when a hold re-apply folds one away (or prune removes some): the next id
 * of that second then sorted before the newest, and 'revert' took them in
 * the wrong order. */
static unsigned journal_next_seq(struct txn_store *st)
{
	int fd = dup(st->txnfd);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	unsigned long max = 0;
	struct dirent *de;
	if (!dir) {
		if (fd >= 0)
			close(fd);
		return 1;
	}
	/* The dup shares its offset with txnfd, which the pending check has
	 * read to the end: without this, every count after it was 0. */
	rewinddir(dir);
	while ((de = readdir(dir))) {
		size_t len = strlen(de->d_name);
		if (len <= strlen(JOURNAL_EXT) || strcmp(de->d_name + len - strlen(JOURNAL_EXT), JOURNAL_EXT))
			continue;
		const char *dash = strrchr(de->d_name, '-');
		unsigned long seq = dash ? strtoul(dash + 1, NULL, 10) : 0;
		if (seq > max && seq < UINT_MAX - 100000)
			max = seq;
	}
	closedir(dir);
	return (unsigned)max + 1;
}

/* "YYYYMMDD-HHMMSS-SEQ": sortable by time (UTC, so daylight saving never
 * reorders) and, within one second, by sequence. */
int txn_new_id(struct np_ctx *ctx, struct txn_store *st, time_t now, char **id)
{
	struct tm tm;
	char base[64], name[ID_MAX + 16];

	if (!gmtime_r(&now, &tm))
		return np_fail(ctx, -EOVERFLOW, "cannot name a transaction: %s",
			       strerror(EOVERFLOW));
	snprintf(base, sizeof(base), "%04d%02d%02d-%02d%02d%02d", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
	for (unsigned n = journal_next_seq(st), tries = 0; tries < 100000; n++, tries++) {
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

int txn_read_boot_id(struct np_ctx *ctx, char **out)
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

bool txn_boot_differs(const char *a, const char *b)
{
	return strcmp(a, UNKNOWN_BOOT) && strcmp(b, UNKNOWN_BOOT) && strcmp(a, b);
}

int txn_pick(struct np_ctx *ctx, struct txn_store *st, const char *id, char **picked)
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
	if ((rc = txn_load_all(ctx, st, &txns, &n)))
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
		return txn_boot_differs(txn->boot_id, boot) && !txn_has_survivor(txn);
	case NP_TXN_PENDING:
	default:
		return false;
	}
}

int np_txn_prune(struct np_ctx *ctx, const struct np_txn_opts *opts, size_t keep, char ***removed,
		 size_t *nremoved)
{
	struct txn_store st;
	struct np_txn *txns = NULL;
	char *boot = NULL;
	size_t n = 0;
	int rc;

	*removed = NULL;
	*nremoved = 0;
	if ((rc = txn_state_open(ctx, opts, false, &st)))
		return rc;
	if (st.dirfd < 0 || st.txnfd < 0)
		goto out;
	if ((rc = txn_state_lock(ctx, opts, &st)) || (rc = txn_load_all(ctx, &st, &txns, &n)) ||
	    (rc = txn_read_boot_id(ctx, &boot)) || n <= keep)
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
	txn_state_close(&st);
	return rc;
}
