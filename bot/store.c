/* store.c - see store.h: the backend choice, the dispatch, and what every
 * backend shares (message structs, the commit-cache callbacks). */
#include "store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commit.h"
#include "strbuf.h"

int rm_store_open(struct rm_store **st, const char *location, enum rm_store_mode mode,
		  struct rm_error *err)
{
	*st = NULL;
	if (!location || !*location)
		return rm_error_set(err, RM_ERR_CONFIG, "paths.state_db: no state store is configured");
	if (rm_store_location_shared(location))
		return rm_store_pg_open(st, location, mode, err);
	return rm_store_sqlite_open(st, location, mode, err);
}

void rm_store_close(struct rm_store *st)
{
	if (st)
		st->ops->close(st);
}

const char *rm_store_backend(const struct rm_store *st)
{
	return st ? st->ops->name : "none";
}

/* A write to a store that is read-only or missing: a caller's bug. */
static int refuse_write(const struct rm_store *st, const char *what, struct rm_error *err)
{
	return rm_error_set(err, RM_ERR_INTERNAL, "state store: %s on a %s store", what,
			    st ? "read-only" : "missing");
}

/* An optional op this backend does not have (yet): a clear error, not a
 * call through NULL. */
static int lacks(const struct rm_store *st, const char *what, struct rm_error *err)
{
	return rm_error_set(err, RM_ERR_CONFIG, "%s is not supported by the %s store yet", what,
			    st->ops->name);
}

int rm_store_schema_version(struct rm_store *st, int *version, struct rm_error *err)
{
	*version = 0;
	return st ? st->ops->schema_version(st, version, err) : 0;
}

int rm_store_set_durability(struct rm_store *st, enum rm_store_durability d,
			    struct rm_error *err)
{
	if (!st || st->readonly)
		return refuse_write(st, "setting durability", err);
	return st->ops->set_durability(st, d, err);
}

int rm_store_cache_get(struct rm_store *st, const char *tree, const char *sha, time_t now,
		       char **json, bool *found, struct rm_error *err)
{
	*json = NULL;
	*found = false;
	return st ? st->ops->cache_get(st, tree, sha, now, json, found, err) : 0;
}

int rm_store_cache_put(struct rm_store *st, const char *tree, const char *sha, bool found,
		       const char *json, time_t now, long ttl, struct rm_error *err)
{
	if (!st || st->readonly)
		return refuse_write(st, "writing the commit cache", err);
	return st->ops->cache_put(st, tree, sha, found, json, now, ttl, err);
}

int rm_store_cache_miss_get(struct rm_store *st, const char *tree, const char *sha,
			    struct rm_commit_miss *m, struct rm_error *err)
{
	memset(m, 0, sizeof(*m));
	return st ? st->ops->cache_miss_get(st, tree, sha, m, err) : 0;
}

int rm_store_cache_miss_put(struct rm_store *st, const char *tree, const char *sha,
			    const struct rm_commit_miss *m, struct rm_error *err)
{
	if (!st || st->readonly)
		return refuse_write(st, "writing the commit cache", err);
	return st->ops->cache_miss_put(st, tree, sha, m, err);
}

static int cache_cb_miss_get(void *ctx, const char *tree, const char *sha,
			     struct rm_commit_miss *m)
{
	struct rm_error e;

	return rm_store_cache_miss_get(ctx, tree, sha, m, &e);
}

static int cache_cb_miss_put(void *ctx, const char *tree, const char *sha,
			     const struct rm_commit_miss *m)
{
	struct rm_error e;

	return rm_store_cache_miss_put(ctx, tree, sha, m, &e);
}

/* gitweb's cache callbacks.  The interface has no error channel beyond -1:
 * gitweb treats a failed get as a miss and fetches, and a failed put costs
 * only a later refetch, so the detail is not kept. */
static int cache_cb_get(void *ctx, const char *tree, const char *sha, char **json, bool *found)
{
	struct rm_error e;

	return rm_store_cache_get(ctx, tree, sha, time(NULL), json, found, &e);
}

static int cache_cb_put(void *ctx, const char *tree, const char *sha, bool found,
			const char *json)
{
	struct rm_store *st = ctx;
	struct rm_error e;

	return rm_store_cache_put(st, tree, sha, found, json, time(NULL), st->cache_miss_ttl, &e);
}

void rm_store_commit_cache(struct rm_store *st, long miss_ttl, struct rm_commit_cache *cache)
{
	memset(cache, 0, sizeof(*cache));
	cache->miss_cap = miss_ttl; /* without a store too: a dry run says when run would ask */
	if (!st)
		return;
	st->cache_miss_ttl = miss_ttl;
	cache->ctx = st;
	cache->get = cache_cb_get;
	cache->put = st->readonly ? NULL : cache_cb_put;
	cache->miss_get = cache_cb_miss_get;
	cache->miss_put = st->readonly ? NULL : cache_cb_miss_put;
}

void rm_store_msg_free(struct rm_store_msg *m)
{
	size_t i;

	if (!m)
		return;
	free(m->thread_key);
	free(m->refs);
	free(m->message_id);
	free(m->dedupe_key);
	free(m->tree);
	free(m->subject);
	free(m->mail_from);
	for (i = 0; i < m->nrcpts; i++)
		free(m->rcpts[i]);
	free(m->rcpts);
	free(m->bytes);
	free(m->last_error);
	memset(m, 0, sizeof(*m));
}

void rm_store_msgs_free(struct rm_store_msg *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		rm_store_msg_free(&v[i]);
	free(v);
}

const char *rm_store_state_name(enum rm_store_state s)
{
	switch (s) {
	case RM_STORE_HELD:
		return "held";
	case RM_STORE_QUEUED:
		return "queued";
	case RM_STORE_SENDING:
		return "sending";
	case RM_STORE_SENT:
		return "sent";
	case RM_STORE_FAILED:
		return "failed";
	}
	return "?";
}

int rm_store_thread_first(struct rm_store *st, const char *thread_key, char **message_id,
			  char **subject, char **refs, struct rm_error *err)
{
	*message_id = *subject = *refs = NULL;
	if (!st || !thread_key)
		return 0;
	return st->ops->thread_first(st, thread_key, message_id, subject, refs, err);
}

int rm_store_threads_ending(struct rm_store *st, const char *suffix, size_t limit, char ***keys,
			    size_t *n, struct rm_error *err)
{
	*keys = NULL;
	*n = 0;
	if (!st || !suffix || !*suffix || !limit)
		return 0;
	return st->ops->threads_ending(st, suffix, limit, keys, n, err);
}

int rm_store_report_get(struct rm_store *st, const char *dedupe_key, char **message_id,
			time_t *at, struct rm_error *err)
{
	*message_id = NULL;
	*at = 0;
	if (!st || !dedupe_key)
		return 0;
	return st->ops->report_get(st, dedupe_key, message_id, at, err);
}

int rm_store_report_seen(struct rm_store *st, const char *dedupe_key, bool *seen,
			 struct rm_error *err)
{
	char *id;
	time_t at;
	int got = rm_store_report_get(st, dedupe_key, &id, &at, err);

	free(id);
	*seen = got > 0;
	return got < 0 ? -1 : 0;
}

int rm_store_enqueue(struct rm_store *st, const struct rm_store_msg *m, time_t now,
		     struct rm_error *err)
{
	if (!st || st->readonly)
		return refuse_write(st, "queueing a message", err);
	if (m->state != RM_STORE_QUEUED && m->state != RM_STORE_HELD)
		return rm_error_set(err, RM_ERR_INTERNAL, "state store: a new message is %s",
				    rm_store_state_name(m->state));
	return st->ops->enqueue(st, m, now, err);
}

int rm_store_recover(struct rm_store *st, int *n, struct rm_error *err)
{
	*n = 0;
	if (!st || st->readonly)
		return refuse_write(st, "recovering messages", err);
	return st->ops->recover(st, n, err);
}

int rm_store_claim_due(struct rm_store *st, time_t now, size_t limit, struct rm_store_msg **out,
		       size_t *n, struct rm_error *err)
{
	*out = NULL;
	*n = 0;
	if (!st || st->readonly)
		return refuse_write(st, "claiming messages", err);
	return st->ops->claim_due(st, now, limit, out, n, err);
}

int rm_store_record(struct rm_store *st, long long id, const struct rm_rcpt_result *res,
		    size_t n, const char *error, time_t now, time_t retry_at, bool give_up,
		    enum rm_store_state *state, struct rm_error *err)
{
	if (!st || st->readonly)
		return refuse_write(st, "recording an attempt", err);
	return st->ops->record(st, id, res, n, error, now, retry_at, give_up, state, err);
}

int rm_store_defer(struct rm_store *st, long long id, time_t until, const char *why,
		   struct rm_error *err)
{
	if (!st || st->readonly)
		return refuse_write(st, "deferring a message", err);
	return st->ops->defer(st, id, until, why, err);
}

int rm_store_sent_since(struct rm_store *st, time_t since, long *count, struct rm_error *err)
{
	*count = 0;
	return st ? st->ops->sent_since(st, since, count, err) : 0;
}

int rm_store_rcpt_count_since(struct rm_store *st, const char *rcpt, time_t since, long *count,
			      struct rm_error *err)
{
	*count = 0;
	return st ? st->ops->rcpt_count_since(st, rcpt, since, count, err) : 0;
}

int rm_store_list(struct rm_store *st, struct rm_store_msg **out, size_t *n,
		  struct rm_error *err)
{
	*out = NULL;
	*n = 0;
	return st ? st->ops->list(st, out, n, err) : 0;
}

int rm_store_get(struct rm_store *st, const char *which, struct rm_store_msg *m,
		 struct rm_error *err)
{
	memset(m, 0, sizeof(*m));
	return st ? st->ops->get(st, which, m, err) : 0;
}

int rm_store_set_state(struct rm_store *st, const char *which, enum rm_store_action action,
		       time_t now, struct rm_error *err)
{
	if (!st || st->readonly)
		return refuse_write(st, "changing the queue", err);
	return st->ops->set_state(st, which, action, now, err);
}

/* ---- findings, inbound mail, opt-outs */

const char *rm_finding_state_name(enum rm_finding_state s)
{
	switch (s) {
	case RM_FINDING_OPEN:
		return "open";
	case RM_FINDING_INVALID:
		return "invalid";
	case RM_FINDING_FIXED:
		return "fixed";
	case RM_FINDING_DUP:
		return "dup";
	}
	return "?";
}

void rm_store_finding_free(struct rm_store_finding *f)
{
	if (!f)
		return;
	free(f->key);
	free(f->tree);
	free(f->arg);
	memset(f, 0, sizeof(*f));
}

void rm_store_events_free(struct rm_store_event *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].command);
		free(v[i].by);
		free(v[i].message_id);
	}
	free(v);
}

int rm_store_finding_get(struct rm_store *st, const char *key, struct rm_store_finding *f,
			 struct rm_error *err)
{
	memset(f, 0, sizeof(*f));
	if (!st || !key)
		return 0;
	if (!st->ops->finding_get)
		return lacks(st, "reading findings", err);
	return st->ops->finding_get(st, key, f, err);
}

int rm_store_finding_set(struct rm_store *st, const char *key, const char *tree,
			 enum rm_finding_state state, const char *arg, const char *command,
			 const char *by, const char *message_id, time_t now, struct rm_error *err)
{
	if (!st || st->readonly)
		return refuse_write(st, "changing a finding", err);
	if (!st->ops->finding_set)
		return lacks(st, "changing a finding", err);
	return st->ops->finding_set(st, key, tree, state, arg, command, by, message_id, now, err);
}

int rm_store_finding_undo(struct rm_store *st, const char *key, const char *command,
			  const char *by, const char *message_id, time_t now,
			  struct rm_error *err)
{
	if (!st || st->readonly)
		return refuse_write(st, "changing a finding", err);
	if (!st->ops->finding_undo)
		return lacks(st, "undoing a change of a finding", err);
	return st->ops->finding_undo(st, key, command, by, message_id, now, err);
}

int rm_store_findings(struct rm_store *st, struct rm_store_finding **out, size_t *n,
		      struct rm_error *err)
{
	*out = NULL;
	*n = 0;
	if (st && !st->ops->findings)
		return lacks(st, "reading findings", err);
	return st ? st->ops->findings(st, out, n, err) : 0;
}

int rm_store_finding_events(struct rm_store *st, const char *key, struct rm_store_event **out,
			    size_t *n, struct rm_error *err)
{
	*out = NULL;
	*n = 0;
	if (st && !st->ops->finding_events)
		return lacks(st, "reading a finding's events", err);
	return st ? st->ops->finding_events(st, key, out, n, err) : 0;
}

int rm_store_inbound_seen(struct rm_store *st, const char *source, const char *id, bool *seen,
			  struct rm_error *err)
{
	*seen = false;
	if (st && !st->ops->inbound_seen)
		return lacks(st, "reading inbound mail", err);
	return st ? st->ops->inbound_seen(st, source, id, seen, err) : 0;
}

int rm_store_inbound_mark(struct rm_store *st, const char *source, const char *id,
			  const char *sender, const char *verdict, time_t now,
			  struct rm_error *err)
{
	if (!st || st->readonly)
		return refuse_write(st, "recording inbound mail", err);
	if (!st->ops->inbound_mark)
		return lacks(st, "recording inbound mail", err);
	return st->ops->inbound_mark(st, source, id, sender, verdict, now, err);
}

int rm_store_inbound_count_since(struct rm_store *st, const char *sender, time_t since,
				 long *count, struct rm_error *err)
{
	*count = 0;
	if (st && !st->ops->inbound_count_since)
		return lacks(st, "counting inbound mail", err);
	return st ? st->ops->inbound_count_since(st, sender, since, count, err) : 0;
}

int rm_store_inbound_newest(struct rm_store *st, const char *source, time_t *at,
			    struct rm_error *err)
{
	*at = 0;
	if (st && !st->ops->inbound_newest)
		return lacks(st, "reading inbound mail", err);
	return st ? st->ops->inbound_newest(st, source, at, err) : 0;
}

void rm_store_keys_free(char **keys, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(keys[i]);
	free(keys);
}

void rm_store_points_free(struct rm_store_point *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].commit);
		free(v[i].role);
		free(v[i].label);
		free(v[i].vals);
		free(v[i].v);
	}
	free(v);
}

int rm_store_point_add(struct rm_store *st, const char *key, const char *test,
		       const char *commit, const char *role, const double *v, size_t n,
		       time_t at, struct rm_error *err)
{
	return rm_store_point_keep(st, key, test, commit, role, NULL, v, n, at, err);
}

int rm_store_point_keep(struct rm_store *st, const char *key, const char *test,
			const char *commit, const char *role, const char *label, const double *v,
			size_t n, time_t at, struct rm_error *err)
{
	char **lines, *vals;
	size_t i;
	int rc;

	if (!st || st->readonly)
		return refuse_write(st, "keeping a finding's values", err);
	if (!st->ops->point_add)
		return lacks(st, "keeping a finding's values", err);
	lines = rm_xcalloc(n + 1, sizeof(char *));
	for (i = 0; i < n; i++)
		lines[i] = rm_xstrfmt("%.17g", v[i]);
	vals = rm_store_join_lines(lines, n);
	for (i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
	rc = st->ops->point_add(st, key, test, commit, role, label, vals, at, err);
	free(vals);
	return rc;
}

int rm_store_points(struct rm_store *st, const char *key, struct rm_store_point **out,
		    size_t *n, struct rm_error *err)
{
	size_t i, k;

	*out = NULL;
	*n = 0;
	if (st && !st->ops->points)
		return lacks(st, "reading a finding's values", err);
	if (!st)
		return 0;
	if (st->ops->points(st, key, out, n, err))
		return -1;
	for (i = 0; i < *n; i++) {
		struct rm_store_point *p = &(*out)[i];
		char **lines;
		size_t nl;

		rm_store_split_lines(p->vals ? p->vals : "", &lines, &nl);
		p->v = rm_xcalloc(nl + 1, sizeof(double));
		for (k = 0; k < nl; k++) {
			char *end;
			double d = strtod(lines[k], &end);

			if (end != lines[k] && !*end)
				p->v[p->n++] = d;
			free(lines[k]);
		}
		free(lines);
	}
	return 0;
}

int rm_store_point_findings(struct rm_store *st, const char *prefix, char ***keys,
			    char ***tests, size_t *n, struct rm_error *err)
{
	*keys = NULL;
	*tests = NULL;
	*n = 0;
	if (st && !st->ops->point_findings)
		return lacks(st, "reading findings' values", err);
	return st ? st->ops->point_findings(st, prefix, keys, tests, n, err) : 0;
}

void rm_store_mentions_free(struct rm_store_mention *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].message_id);
		free(v[i].by_key);
	}
	free(v);
}

int rm_store_mention_add(struct rm_store *st, const char *key, const char *message_id,
			 const char *by_key, time_t at, struct rm_error *err)
{
	if (!st || st->readonly)
		return refuse_write(st, "keeping a later report's mention", err);
	if (!st->ops->mention_add)
		return lacks(st, "keeping a later report's mention", err);
	return st->ops->mention_add(st, key, message_id, by_key, at, err);
}

int rm_store_mentions(struct rm_store *st, const char *key, struct rm_store_mention **out,
		      size_t *n, struct rm_error *err)
{
	*out = NULL;
	*n = 0;
	if (st && !st->ops->mentions)
		return lacks(st, "reading the later reports' mentions", err);
	return st ? st->ops->mentions(st, key, out, n, err) : 0;
}

int rm_store_optout_add(struct rm_store *st, const char *addr, const char *scope,
			const char *message_id, time_t now, struct rm_error *err)
{
	if (!st || st->readonly)
		return refuse_write(st, "recording an opt-out", err);
	if (!st->ops->optout_add)
		return lacks(st, "recording an opt-out", err);
	return st->ops->optout_add(st, addr, scope, message_id, now, err);
}

int rm_store_optout_check(struct rm_store *st, const char *addr, const char *tree, bool *out,
			  struct rm_error *err)
{
	*out = false;
	if (st && !st->ops->optout_check)
		return lacks(st, "reading opt-outs", err);
	return st ? st->ops->optout_check(st, addr, tree, out, err) : 0;
}

int rm_store_optout_count(struct rm_store *st, long *count, struct rm_error *err)
{
	*count = 0;
	if (st && !st->ops->optout_count)
		return lacks(st, "counting opt-outs", err);
	return st ? st->ops->optout_count(st, count, err) : 0;
}

/* ---- several hosts */

bool rm_store_location_shared(const char *location)
{
	return location &&
	       (!strncmp(location, "postgresql://", 13) || !strncmp(location, "postgres://", 11));
}

void rm_store_set_owner(struct rm_store *st, const char *host, long lease)
{
	if (!st)
		return;
	snprintf(st->host, sizeof(st->host), "%s", host ? host : "");
	st->lease = lease < 5 ? 5 : lease;
}

size_t rm_store_claim_round(const struct rm_store *st, size_t limit)
{
	/* a backend with archive claims is one several hosts share */
	return st && st->ops->claim_archive && limit > 32 ? 32 : limit;
}

int rm_store_renew(struct rm_store *st, struct rm_error *err)
{
	if (!st || st->readonly || !st->ops->renew)
		return 0;
	return st->ops->renew(st, err);
}

int rm_store_claim_archive(struct rm_store *st, const char *name, bool *got,
			   struct rm_error *err)
{
	*got = false;
	if (!st || st->readonly)
		return refuse_write(st, "claiming an archive", err);
	if (!st->ops->claim_archive) {
		*got = true; /* one host: run's lock already excludes every other run */
		return 0;
	}
	return st->ops->claim_archive(st, name, got, err);
}

int rm_store_release_archive(struct rm_store *st, const char *name, struct rm_error *err)
{
	if (!st || st->readonly)
		return refuse_write(st, "releasing an archive", err);
	return st->ops->release_archive ? st->ops->release_archive(st, name, err) : 0;
}

int rm_store_counts(struct rm_store *st, struct rm_store_counts *c, struct rm_error *err)
{
	memset(c, 0, sizeof(*c));
	return st ? st->ops->counts(st, c, err) : 0;
}

int rm_store_dump(struct rm_store *st, struct rm_store_dump *d, struct rm_error *err)
{
	size_t i;

	memset(d, 0, sizeof(*d));
	for (i = 0; i < RM_STORE_LISTEN_TABLES; i++)
		d->listen[i].ncols = rm_store_listen_tables[i].ncols;
	d->threads.ncols = rm_store_thread_table.ncols;
	return st ? st->ops->dump(st, d, err) : 0;
}

int rm_store_load(struct rm_store *st, const struct rm_store_dump *d, struct rm_error *err)
{
	if (!st || st->readonly)
		return refuse_write(st, "loading rows", err);
	if (!st->ops->load)
		return rm_error_set(err, RM_ERR_USAGE, "a %s store cannot be a migration's target",
				    st->ops->name);
	return st->ops->load(st, d, err);
}

const struct rm_store_listen_table rm_store_listen_tables[RM_STORE_LISTEN_TABLES] = {
	{ "findings", "key, tree, state, arg, updated_at", "updated_at, key",
	  "$1, $2, $3, $4, $5::bigint", 5 },
	{ "finding_events", "key, command, by_addr, message_id, prev_state, prev_arg, state, undone, at",
	  "id", "$1, $2, $3, $4, $5, $6, $7, $8::boolean, $9::bigint", 9 },
	{ "inbound", "source, id, sender, verdict, at", "source, id", "$1, $2, $3, $4, $5::bigint", 5 },
	/* PostgreSQL keeps addresses lower-case where SQLite compares them NOCASE */
	{ "optouts", "addr, scope, message_id, at", "addr, scope", "lower($1), $2, $3, $4::bigint", 4 },
	{ "finding_points", "key, test, commit_sha, role, vals, at, label", "id",
	  "$1, $2, $3, $4, $5, $6::bigint, $7", 7 },
	{ "finding_mentions", "key, message_id, by_key, at", "at, key, message_id",
	  "$1, $2, $3, $4::bigint", 4 },
};

const char rm_store_points_columns_v8[] = "key, test, commit_sha, role, vals, at, NULL";

const struct rm_store_listen_table rm_store_thread_table = {
	"threads", "key, message_id, created_at", "key", "$1, $2, $3::bigint", 3
};

void rm_store_text_rows_add(struct rm_store_text_rows *t, char **row)
{
	t->cells = rm_xrealloc(t->cells, (t->nrows + 1) * t->ncols * sizeof(*t->cells));
	memcpy(t->cells + t->nrows * t->ncols, row, t->ncols * sizeof(*row));
	t->nrows++;
}

void rm_store_rcpt_rows_free(struct rm_store_rcpt_row *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].rcpt);
		free(v[i].text);
	}
	free(v);
}

int rm_store_results(struct rm_store *st, long long id, struct rm_store_rcpt_row **out, size_t *n,
		     struct rm_error *err)
{
	*out = NULL;
	*n = 0;
	return st ? st->ops->results(st, id, out, n, err) : 0;
}

void rm_store_dump_free(struct rm_store_dump *d)
{
	size_t i, j;

	for (i = 0; i < RM_STORE_LISTEN_TABLES; i++) {
		for (j = 0; j < d->listen[i].nrows * d->listen[i].ncols; j++)
			free(d->listen[i].cells[j]);
		free(d->listen[i].cells);
	}
	for (j = 0; j < d->threads.nrows * d->threads.ncols; j++)
		free(d->threads.cells[j]);
	free(d->threads.cells);

	for (i = 0; i < d->nreports; i++) {
		free(d->reports[i].dedupe_key);
		free(d->reports[i].message_id);
	}
	free(d->reports);
	rm_store_msgs_free(d->msgs, d->nmsgs);
	rm_store_rcpt_rows_free(d->rcpts, d->nrcpts);
	for (i = 0; i < d->ncache; i++) {
		free(d->cache[i].tree);
		free(d->cache[i].sha);
		free(d->cache[i].facts);
		free(d->cache[i].failure);
	}
	free(d->cache);
	memset(d, 0, sizeof(*d));
}

/* postgresql://user:secret@host/db?password=x -> postgresql://user:***@host/db?password=*** */
char *rm_store_redact(const char *loc)
{
	struct rm_sb sb = RM_SB_INIT;
	const char *p = loc ? loc : "", *scheme = strstr(p, "://"), *at, *colon, *q;

	rm_sb_init(&sb);
	if (!scheme) {
		rm_sb_adds(&sb, p);
		return rm_sb_detach(&sb, NULL);
	}
	scheme += 3;
	at = scheme + strcspn(scheme, "@/?");
	colon = memchr(scheme, ':', (size_t)(at - scheme));
	if (*at == '@' && colon) {
		rm_sb_add(&sb, p, (size_t)(colon + 1 - p));
		rm_sb_adds(&sb, "***");
		p = at;
	}
	/* a password among the query parameters */
	while ((q = strstr(p, "password=")) && (q == p || q[-1] == '?' || q[-1] == '&')) {
		rm_sb_add(&sb, p, (size_t)(q + 9 - p));
		rm_sb_adds(&sb, "***");
		p = q + 9 + strcspn(q + 9, "&");
	}
	rm_sb_adds(&sb, p);
	return rm_sb_detach(&sb, NULL);
}

static void counts_line(struct rm_sb *out, const char *what, const struct rm_store_counts *c)
{
	rm_sb_addf(out,
		   "%s: %ld reports, %ld messages (%ld held, %ld queued, %ld sending, %ld sent,"
		   " %ld failed; %ld attempts), %ld recipient results, %ld commit-cache rows\n",
		   what, c->reports, c->messages, c->by_state[RM_STORE_HELD],
		   c->by_state[RM_STORE_QUEUED], c->by_state[RM_STORE_SENDING],
		   c->by_state[RM_STORE_SENT], c->by_state[RM_STORE_FAILED], c->attempts,
		   c->rcpt_results, c->cache);
	rm_sb_addf(out, "%s: %ld findings (%ld commands), %ld inbound mails read, %ld opt-outs,"
		   " %ld findings' commit values, %ld later reports' mentions\n", what,
		   c->listen[0], c->listen[1], c->listen[2], c->listen[3], c->listen[4], c->listen[5]);
	rm_sb_addf(out, "%s: %ld threads (one first message per thread key)\n", what, c->threads);
}

int rm_store_migrate(struct rm_store *src, struct rm_store *dst, struct rm_sb *out,
		     struct rm_error *err)
{
	struct rm_store_counts a, b;
	struct rm_store_dump d;
	int i, rc;

	if (!src || !dst)
		return rm_error_set(err, RM_ERR_USAGE, "store migrate: the source store does not exist");
	if (rm_store_counts(src, &a, err) || rm_store_dump(src, &d, err)) {
		rm_store_dump_free(&d);
		return -1;
	}
	/* the rows read must be the rows counted (nothing ran in between) */
	rc = (size_t)a.reports != d.nreports || (size_t)a.messages != d.nmsgs ||
	     (size_t)a.rcpt_results != d.nrcpts || (size_t)a.cache != d.ncache;
	for (i = 0; i < RM_STORE_LISTEN_TABLES; i++)
		rc |= (size_t)a.listen[i] != d.listen[i].nrows;
	/* a source from before the threads table dumps none (the target makes them) */
	rc |= d.threads.nrows && (size_t)a.threads != d.threads.nrows;
	if (rc) {
		rm_store_dump_free(&d);
		return rm_error_set(err, RM_ERR_TEMP,
				    "store migrate: the source changed while it was read; stop its runs and retry");
	}
	rc = rm_store_load(dst, &d, err);
	rm_store_dump_free(&d);
	if (rc || rm_store_counts(dst, &b, err))
		return -1;
	counts_line(out, "source", &a);
	counts_line(out, "target", &b);
	rc = a.reports != b.reports || a.messages != b.messages ||
	     a.rcpt_results != b.rcpt_results || a.cache != b.cache || a.attempts != b.attempts;
	for (i = 0; i < 5; i++)
		rc |= a.by_state[i] != b.by_state[i];
	for (i = 0; i < RM_STORE_LISTEN_TABLES; i++)
		rc |= a.listen[i] != b.listen[i];
	rc |= a.threads != b.threads;
	if (rc)
		return rm_error_set(err, RM_ERR_INTERNAL,
				    "store migrate: the target's counts differ from the source's (see above)");
	rm_sb_adds(out, "store migrate: every count matches\n");
	return 0;
}

int rm_store_check(struct rm_store *st, struct rm_sb *out, struct rm_error *err)
{
	struct rm_store_counts c;
	int v, problems = 0;

	if (!st) {
		rm_sb_adds(out, "store: none yet (an empty store)\n");
		return 0;
	}
	if (rm_store_schema_version(st, &v, err) || rm_store_counts(st, &c, err))
		return -1;
	rm_sb_addf(out, "backend: %s\nschema version: %d\n", rm_store_backend(st), v);
	counts_line(out, "rows", &c);
	if (c.orphans) {
		rm_sb_addf(out, "problem: %ld message(s) carry a dedupe key no report row has\n",
			   c.orphans);
		problems++;
	}
	if (c.thread_orphans) {
		rm_sb_addf(out, "problem: %ld thread key(s) without a stored first message\n",
			   c.thread_orphans);
		problems++;
	}
	if (c.stale_leases)
		rm_sb_addf(out, "note: %ld message(s) sending under an expired lease"
				" (a run died; the next run takes them over)\n",
			   c.stale_leases);
	if (c.archive_claims)
		rm_sb_addf(out, "note: %ld archive(s) claimed by runs now\n", c.archive_claims);
	rm_sb_addf(out, "store check: %s\n", problems ? "problems found" : "consistent");
	return problems ? 1 : 0;
}

int rm_store_check_or_migrate(bool migrate, const char *from, const char *to, struct rm_sb *out,
			      struct rm_error *err)
{
	struct rm_store *src = NULL, *dst = NULL;
	int rc = -1;

	if (!rm_store_open(&src, from, RM_STORE_READONLY, err) &&
	    !(to && rm_store_open(&dst, to, RM_STORE_READWRITE, err)))
		rc = migrate ? rm_store_migrate(src, dst, out, err) : rm_store_check(src, out, err);
	rm_store_close(dst);
	rm_store_close(src);
	return rc;
}

enum rm_store_state rm_store_state_from(const char *v)
{
	int i;

	for (i = RM_STORE_HELD; v && i <= RM_STORE_FAILED; i++)
		if (!strcmp(v, rm_store_state_name((enum rm_store_state)i)))
			return (enum rm_store_state)i;
	return RM_STORE_FAILED;
}

char *rm_store_join_lines(char *const *v, size_t n)
{
	struct rm_sb sb = RM_SB_INIT;
	size_t i;

	rm_sb_init(&sb);
	for (i = 0; i < n; i++) {
		rm_sb_adds(&sb, v[i]);
		rm_sb_addc(&sb, '\n');
	}
	return rm_sb_detach(&sb, NULL);
}

void rm_store_split_lines(const char *v, char ***out, size_t *n)
{
	*out = NULL;
	*n = 0;
	while (v && *v) {
		size_t l = strcspn(v, "\n");

		if (l) {
			*out = rm_xrealloc(*out, (*n + 1) * sizeof(char *));
			(*out)[(*n)++] = rm_xstrndup(v, l);
		}
		v += l;
		if (*v)
			v++;
	}
}
