/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The journal: a transaction in memory and its text in the state directory. */
#include "change/txn-journal.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "change/irqbalance.h"

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

/* A value as the user sees it: without the newlines a file ends in. */
char *txn_trimmed(const char *value)
{
	size_t len = strlen(value);
	while (len && value[len - 1] == '\n')
		len--;
	return strndup(value, len);
}

/* The values handed back to callers are for showing; the exact bytes stay
 * in the journal. A revert's dry run hands back the current values, as
 * read, in new_value: trimmed the same way. */
int txn_trim_values(struct np_txn *txn)
{
	for (size_t i = 0; i < txn->nchanges; i++) {
		struct np_change *c = &txn->changes[i];
		if (kind_of(c) == NP_VALUE_TEXT)
			continue;
		char **values[] = { &c->old_value, &c->new_value };
		for (size_t k = 0; k < 2; k++) {
			if (!*values[k])
				continue;
			char *t = txn_trimmed(*values[k]);
			if (!t)
				return -ENOMEM;
			free(*values[k]);
			*values[k] = t;
		}
	}
	return 0;
}

bool txn_same_value(enum np_value_kind kind, const char *a, const char *b)
{
	char *na = np_value_normalize(kind, a), *nb = np_value_normalize(kind, b);
	bool same = na && nb && !strcmp(na, nb);
	free(na);
	free(nb);
	return same;
}

/* A journal's change (its path checked against its kind's): values of its kind's form. */
static const char *change_refused(const struct np_change *c)
{
	if (kind_of(c) == NP_VALUE_TEXT)
		return np_irqbalance_edit_ok(c->old_value, c->new_value)
			       ? NULL
			       : "its text differs in more than irqbalance's banned IRQs";
	return txn_same_value(kind_of(c), c->old_value, c->old_value) &&
			       txn_same_value(kind_of(c), c->new_value, c->new_value)
		       ? NULL
		       : "a value is not of its kind's form";
}

/* A change writes only its kind's own path: the paths come back from a
 * journal file, and a revert writes wherever they point. */
bool txn_path_fits(const char *path, enum np_attr attr)
{
	return attr_valid(attr) && np_attr_match(path, NULL) == (int)attr;
}

/* What a revert of a transaction from an earlier boot still restores: the
 * configuration files, which a reboot leaves as the transaction wrote them. */
bool txn_survives_reboot(const struct np_change *c)
{
	return np_attrs[c->attr].survives_reboot;
}

bool txn_has_survivor(const struct np_txn *txn)
{
	for (size_t i = 0; i < txn->nchanges; i++)
		if (txn_survives_reboot(&txn->changes[i]))
			return true;
	return false;
}

void np_txn_free(struct np_txn *txn)
{
	if (!txn)
		return;
	free(txn->id);
	free(txn->profile);
	free(txn->cause);
	free(txn->trial);
	free(txn->session);
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

bool txn_id_valid(const char *id)
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
	if (txn->trial && !cJSON_AddStringToObject(root, "trial", txn->trial))
		goto fail;
	if (txn->session && !cJSON_AddStringToObject(root, "session", txn->session))
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
	const cJSON *trial = cJSON_GetObjectItemCaseSensitive(root, "trial");
	why = "its trial is not a string";
	if (trial && !cJSON_IsString(trial))
		goto bad;
	const cJSON *session = cJSON_GetObjectItemCaseSensitive(root, "session");
	why = "its session is not a transaction id";
	if (session && (!cJSON_IsString(session) || !txn_id_valid(session->valuestring)))
		goto bad;
	txn->id = strdup(id);
	txn->profile = strdup(profile);
	txn->boot_id = strdup(boot);
	if (!txn->id || !txn->profile || !txn->boot_id || (cause && !(txn->cause = strdup(cause->valuestring))) ||
	    (session && !(txn->session = strdup(session->valuestring))) ||
	    (trial && !(txn->trial = strdup(trial->valuestring))))
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
		if (!txn_path_fits(cpath, (enum np_attr)a) || (kind && vkind != np_attrs[a].value))
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
