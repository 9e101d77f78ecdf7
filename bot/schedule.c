/* schedule.c - see schedule.h. */
#include "schedule.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "deliver.h"
#include "fileutil.h"
#include "message.h" /* rm_message_crlf_to_lf */

static void logf_(const struct rm_schedule_log *log, enum rm_schedule_level level,
		  const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void logf_(const struct rm_schedule_log *log, enum rm_schedule_level level,
		  const char *fmt, ...)
{
	char text[2048];
	va_list ap;

	if (!log || !log->line)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	log->line(log->ctx, level, text);
}

int rm_schedule_recover(struct rm_store *st, const struct rm_schedule_log *log,
			struct rm_error *err)
{
	int back;

	if (rm_store_recover(st, &back, err))
		return -1;
	if (back > 0)
		logf_(log, RM_SCHEDULE_WARNING, "%d message(s) of an interrupted run queued again", back);
	return 0;
}

bool rm_schedule_held(const struct rm_config *cfg, const char *tree, char *const *rcpts,
		      size_t n)
{
	size_t i, k;

	for (i = 0; i < cfg->hold.n; i++) {
		if (tree && !strcmp(cfg->hold.v[i], tree))
			return true;
		for (k = 0; k < n; k++)
			if (!strcasecmp(cfg->hold.v[i], rcpts[k]))
				return true;
	}
	return false;
}

/* The first capped list among the recipients whose daily cap is reached,
 * into *list (NULL: none).  -1 when the store could not count: a cap that
 * cannot be checked does not bind silently. */
static int capped_list(struct rm_store *st, const struct rm_config *cfg,
		       const struct rm_store_msg *m, time_t now, const char **list,
		       struct rm_error *err)
{
	size_t i, k;

	*list = NULL;
	for (i = 0; i < cfg->cap_lists.n; i++)
		for (k = 0; k < m->nrcpts; k++) {
			long n;

			if (strcasecmp(cfg->cap_lists.v[i], m->rcpts[k]))
				continue;
			if (rm_store_rcpt_count_since(st, m->rcpts[k], now - 86400, &n, err))
				return -1;
			if (n >= cfg->cap_values[i]) {
				*list = cfg->cap_lists.v[i];
				return 0;
			}
		}
	return 0;
}

/* Why a message waits, for the log: the server's first 4xx reply to a
 * RCPT (its text starts with that code), else the session's error (a
 * refused connection, a 4xx at the greeting or after DATA). */
static void defer_reason(char *buf, size_t n, const char *error, const struct rm_rcpt_result *res,
			 size_t nrcpts)
{
	size_t k;

	for (k = 0; k < nrcpts; k++) {
		char code[8];

		snprintf(code, sizeof(code), "%d", res[k].code);
		if (res[k].code >= 400 && res[k].code < 500 && res[k].text &&
		    !strncmp(res[k].text, code, 3)) {
			snprintf(buf, n, "<%s>: %s", res[k].rcpt, res[k].text);
			return;
		}
	}
	snprintf(buf, n, "%s", error[0] ? error : "no reply from the server");
}

/* Why no server accepted a message: the session's error, else the first
 * refusal with its recipient. */
static void fail_reason(char *buf, size_t n, const char *error, const struct rm_rcpt_result *res,
			size_t nrcpts)
{
	size_t k;

	if (error[0]) {
		snprintf(buf, n, "%s", error);
		return;
	}
	for (k = 0; k < nrcpts; k++)
		if (res[k].code >= 500) {
			snprintf(buf, n, "<%s> refused: %s", res[k].rcpt, res[k].text ? res[k].text : "");
			return;
		}
	snprintf(buf, n, "recipients kept deferring");
}

/* The SMTP password from delivery.password_env or delivery.password_file
 * (first line), malloc'd; NULL when neither is set or readable (the server
 * then refuses AUTH, which the run reports). */
static char *read_secret(const struct rm_config *cfg)
{
	if (cfg->password_env && getenv(cfg->password_env))
		return rm_xstrdup(getenv(cfg->password_env));
	if (cfg->password_file) {
		char *buf;
		size_t len;
		struct rm_error e;

		if (!rm_read_file(cfg->password_file, 4096, &buf, &len, &e)) {
			buf[strcspn(buf, "\r\n")] = '\0';
			return buf;
		}
	}
	return NULL;
}

static int open_transport(const struct rm_config *cfg, struct rm_transport **t, char **password,
			  struct rm_error *err)
{
	struct rm_smtp_cfg sc;

	*password = read_secret(cfg);
	memset(&sc, 0, sizeof(sc));
	sc.starttls = cfg->starttls;
	sc.verify = cfg->tls_verify;
	sc.ca_file = cfg->ca_file;
	sc.user = cfg->smtp_user;
	sc.password = *password;
	sc.helo = cfg->helo;
	sc.connect_timeout = cfg->smtp_connect_timeout;
	sc.timeout = cfg->smtp_timeout;
	sc.pi_config = cfg->pi_config;
	sc.pi_address = cfg->pi_address;
	return rm_deliver_open(t, cfg->transport, &sc, err);
}

static void forget_secret(char *password)
{
	if (password) {
		memset(password, 0, strlen(password));
		free(password);
	}
}

/* How many messages may go now: delivery.batch, less what the hourly cap
 * still allows.  0 when the cap is reached. */
static int delivery_limit(struct rm_store *st, const struct rm_config *cfg, time_t now,
			  const struct rm_schedule_log *log, size_t *limit, struct rm_error *err)
{
	long sent;

	*limit = (size_t)cfg->batch;
	if (!cfg->hourly_cap)
		return 0;
	if (rm_store_sent_since(st, now - 3600, &sent, err))
		return -1;
	if (sent >= cfg->hourly_cap) {
		logf_(log, RM_SCHEDULE_INFO, "hourly cap of %ld reached; the rest waits", cfg->hourly_cap);
		*limit = 0;
	} else if ((size_t)(cfg->hourly_cap - sent) < *limit) {
		*limit = (size_t)(cfg->hourly_cap - sent);
	}
	return 0;
}

int rm_schedule_deliver(struct rm_store *st, const struct rm_config *cfg, time_t now,
			const struct rm_schedule_log *log, struct rm_schedule_counts *c,
			struct rm_error *err)
{
	struct rm_transport *t = NULL;
	struct rm_store_msg *msgs = NULL;
	size_t n = 0, i, limit, round;
	char *password = NULL, why_first[1100] = "";
	int rc = 0, retried = 0, done_before;
	time_t retry_first = 0;

	if (cfg->emergency_stop && !access(cfg->emergency_stop, F_OK)) {
		logf_(log, RM_SCHEDULE_WARNING, "emergency stop '%s' is present: nothing is delivered",
		      cfg->emergency_stop);
		c->stopped = true;
		return 0;
	}
	if (delivery_limit(st, cfg, now, log, &limit, err))
		return -1;
	if (!limit)
		return 0;
	round = rm_store_claim_round(st, limit);
	if (rm_store_claim_due(st, now, round, &msgs, &n, err))
		return -1;
	c->claimed += (int)n;
	if (!n)
		return 0;
	if (rm_store_set_durability(st, RM_STORE_FAST, err) || open_transport(cfg, &t, &password, err)) {
		/* nothing was attempted: put the claimed messages back */
		struct rm_error re;
		int back;

		rm_store_recover(st, &back, &re);
		rm_store_msgs_free(msgs, n);
		forget_secret(password);
		return -1;
	}
again:
	done_before = c->sent + c->failed;
	for (i = 0; i < n; i++) {
		struct rm_store_msg *m = &msgs[i];
		struct rm_rcpt_result *res = rm_xcalloc(m->nrcpts + 1, sizeof(*res));
		char error[1024], why[1100];
		long long shift = m->attempts < 16 ? m->attempts : 16;
		time_t retry = now + (time_t)((long long)cfg->backoff << shift);
		bool give_up = now - m->created_at >= cfg->max_age;
		enum rm_store_state state;
		const char *list;
		size_t k, pending = 0;

		if (retry - now > 86400)
			retry = now + 86400;
		if (rm_store_renew(st, err) || capped_list(st, cfg, m, now, &list, err)) {
			free(res);
			rc = -1;
			break;
		}
		if (list) {
			snprintf(why, sizeof(why), "daily cap of %s reached; waiting", list);
			logf_(log, RM_SCHEDULE_INFO, "%s: %s", m->message_id, why);
			free(res);
			if (rm_store_defer(st, m->id, now + 3600, why, err)) {
				rc = -1;
				break;
			}
			c->capped++;
			continue;
		}
		rm_deliver_send(t, m->mail_from, m->rcpts, m->nrcpts, m->bytes, m->len, res, error,
				  sizeof(error));
		for (k = 0; k < m->nrcpts; k++) {
			if (res[k].code >= 500) /* every refusal visible, even in a quiet run */
				logf_(log, RM_SCHEDULE_WARNING, "warning: %s: <%s> refused: %s", m->message_id,
				      res[k].rcpt, res[k].text ? res[k].text : "");
			pending += res[k].code < 200 || (res[k].code >= 400 && res[k].code < 500);
		}
		if (rm_store_record(st, m->id, res, m->nrcpts, error[0] ? error : NULL, now, retry,
				    give_up, &state, err)) {
			free(res);
			rc = -1;
			break;
		}
		switch (state) {
		case RM_STORE_SENT:
			c->sent++;
			if (pending)
				logf_(log, RM_SCHEDULE_WARNING,
				      "%s: sent, but %zu recipient(s) given up after %d attempts: %s",
				      m->message_id, pending, m->attempts + 1,
				      error[0] ? error : "recipients kept deferring");
			else
				logf_(log, RM_SCHEDULE_INFO, "sent %s via %s", m->message_id,
				      rm_deliver_spec(t));
			break;
		case RM_STORE_QUEUED:
			c->retried++;
			if (!retried++) {
				/* the first stands for the run's log line */
				retry_first = retry;
				defer_reason(why_first, sizeof(why_first), error, res, m->nrcpts);
			}
			logf_(log, RM_SCHEDULE_INFO, "%s: %zu recipient(s) deferred: %s", m->message_id,
			      pending, error[0] ? error : "4xx reply");
			break;
		default:
			/* no server accepted it: never "sent" (`queue retry` sends it again) */
			c->failed++;
			fail_reason(why, sizeof(why), error, res, m->nrcpts);
			if (pending)
				logf_(log, RM_SCHEDULE_ERROR, "%s: failed after %d attempts: %s",
				      m->message_id, m->attempts + 1, why);
			else
				logf_(log, RM_SCHEDULE_ERROR,
				      "%s: failed: no recipient was accepted via %s: %s", m->message_id,
				      rm_deliver_spec(t), why);
			break;
		}
		free(res);
	}
	/* a shared store is claimed a round at a time (other hosts' runs take
	 * their share); the next round while every message of this one was
	 * settled (sent or failed: a retried one is never claimed again here) */
	if (!rc && i == n && n == round && limit > n && c->sent + c->failed - done_before == (int)n) {
		limit -= n;
		rm_store_msgs_free(msgs, n);
		msgs = NULL;
		n = 0;
		round = rm_store_claim_round(st, limit);
		if (rm_store_claim_due(st, now, round, &msgs, &n, err))
			rc = -1;
		else if (n) {
			c->claimed += (int)n;
			goto again;
		}
		i = 0;
	}
	if (i < n) {
		/* the store failed mid-way: the claimed rest goes back to the queue */
		struct rm_error re;
		int back;

		rm_store_recover(st, &back, &re);
	}
	if (retried)
		logf_(log, RM_SCHEDULE_WARNING,
		      "delivery via %s: %d message(s) deferred, next attempt in %lld s: %s",
		      rm_deliver_spec(t), retried, (long long)(retry_first - now), why_first);
	rm_deliver_free(t);
	rm_store_msgs_free(msgs, n);
	forget_secret(password);
	return rc;
}

/* ================================================================ the queue */

static const struct {
	const char *name;
	enum rm_schedule_queue_cmd cmd;
	enum rm_store_action action;
} queue_cmds[] = {
	{ "list", RM_SCHEDULE_QUEUE_LIST, RM_STORE_RETRY },
	{ "show", RM_SCHEDULE_QUEUE_SHOW, RM_STORE_RETRY },
	{ "retry", RM_SCHEDULE_QUEUE_RETRY, RM_STORE_RETRY },
	{ "drop", RM_SCHEDULE_QUEUE_DROP, RM_STORE_DROP },
	{ "hold", RM_SCHEDULE_QUEUE_HOLD, RM_STORE_HOLD },
	{ "release", RM_SCHEDULE_QUEUE_RELEASE, RM_STORE_RELEASE },
	{ "resend", RM_SCHEDULE_QUEUE_RESEND, RM_STORE_RESEND },
	{ "prune", RM_SCHEDULE_QUEUE_PRUNE, RM_STORE_PRUNE },
};

int rm_schedule_queue_cmd_parse(const char *name, enum rm_schedule_queue_cmd *cmd)
{
	size_t i;

	for (i = 0; i < sizeof(queue_cmds) / sizeof(queue_cmds[0]); i++)
		if (!strcmp(queue_cmds[i].name, name)) {
			*cmd = queue_cmds[i].cmd;
			return 0;
		}
	return -1;
}

bool rm_schedule_queue_cmd_needs_id(enum rm_schedule_queue_cmd cmd)
{
	return cmd != RM_SCHEDULE_QUEUE_LIST;
}

/* One recipient's result: its word, the address, the server's code and
 * reply (the code once: most replies start with it). */
static void show_result(struct rm_sb *out, const struct rm_store_rcpt_row *r)
{
	char code[16];
	const char *text = r->text ? r->text : "";

	snprintf(code, sizeof(code), "%d", r->code);
	rm_sb_addf(out, "%s: %s %s%s%s\n",
		   r->code >= 200 && r->code < 300 ? "accepted" :
		   r->code >= 500		    ? "refused" :
						      "deferred",
		   r->rcpt, strncmp(text, code, strlen(code)) ? code : "",
		   strncmp(text, code, strlen(code)) && *text ? " " : "", text);
}

static int queue_show(struct rm_store *st, struct rm_sb *out, struct rm_store_msg *m,
		      struct rm_error *err)
{
	struct rm_store_rcpt_row *res;
	size_t k, nres;

	if (rm_store_results(st, m->id, &res, &nres, err))
		return -1;
	rm_sb_addf(out, "id: %lld\nstate: %s\nattempts: %d\n", m->id, rm_store_state_name(m->state),
		   m->attempts);
	/* a failed message keeps the recipients no server accepted, for retry */
	for (k = 0; k < m->nrcpts; k++)
		rm_sb_addf(out, "%s: %s\n", m->state == RM_STORE_FAILED ? "not-accepted" : "pending",
			   m->rcpts[k]);
	/* and what each server said to each recipient tried (issue 13) */
	for (k = 0; k < nres; k++)
		show_result(out, &res[k]);
	rm_store_rcpt_rows_free(res, nres);
	if (m->last_error)
		rm_sb_addf(out, "last-error: %s\n", m->last_error);
	if (!m->len)
		rm_sb_adds(out, "bytes: pruned (queue prune)\n");
	rm_sb_addc(out, '\n');
	m->len = rm_message_crlf_to_lf(m->bytes, m->len);
	rm_sb_add(out, m->bytes, m->len);
	return 0;
}

int rm_schedule_queue(struct rm_store *st, enum rm_schedule_queue_cmd cmd, const char *which,
		      time_t now, struct rm_sb *out, struct rm_error *err)
{
	size_t i;

	if (cmd == RM_SCHEDULE_QUEUE_LIST) {
		struct rm_store_msg *v;
		size_t n;

		if (rm_store_list(st, &v, &n, err))
			return -1;
		for (i = 0; i < n; i++)
			rm_sb_addf(out, "%lld\t%s\t%d\t<%s>\t%s%s%s\n", v[i].id,
				   rm_store_state_name(v[i].state), v[i].attempts, v[i].message_id,
				   v[i].subject ? v[i].subject : "", v[i].last_error ? "\t" : "",
				   v[i].last_error ? v[i].last_error : "");
		rm_store_msgs_free(v, n);
		return 0;
	}
	if (cmd == RM_SCHEDULE_QUEUE_SHOW) {
		struct rm_store_msg m;
		int found = rm_store_get(st, which, &m, err);

		if (found < 0)
			return -1;
		if (!found) {
			rm_error_set(err, RM_ERR_USAGE, "queue: no message '%s'", which);
			return 1;
		}
		found = queue_show(st, out, &m, err);
		rm_store_msg_free(&m);
		return found;
	}
	for (i = 0; i < sizeof(queue_cmds) / sizeof(queue_cmds[0]); i++)
		if (queue_cmds[i].cmd == cmd) {
			int changed = rm_store_set_state(st, which, queue_cmds[i].action, now, err);

			if (changed < 0)
				return -1;
			if (!changed) {
				rm_error_set(err, RM_ERR_USAGE,
					     "queue %s: no message '%s' in a state that allows it",
					     queue_cmds[i].name, which);
				return 1;
			}
			return 0;
		}
	return rm_error_set(err, RM_ERR_INTERNAL, "queue: unknown action %d", (int)cmd);
}

/* ---------------------------------------------------------------- filters */

void rm_schedule_filter_init(struct rm_schedule_filter *f)
{
	memset(f, 0, sizeof(*f));
	f->older_than = -1;
	f->sent_older_than = -1;
}

bool rm_schedule_filter_any(const struct rm_schedule_filter *f)
{
	return f->all || f->state || f->tree || f->commit || f->to || f->older_than >= 0 ||
	       f->sent_older_than >= 0;
}

int rm_schedule_parse_age(const char *s, long long *secs)
{
	static const struct { char unit; long long secs; } units[] = {
		{ 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 }, { 'w', 7 * 86400 },
	};
	char *end;
	long long v;
	size_t i;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || v < 0)
		return -1;
	if (!*end) {
		*secs = v;
		return 0;
	}
	if (end[1])
		return -1;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (*end == units[i].unit) {
			if (v > (long long)1e15 / units[i].secs)
				return -1;
			*secs = v * units[i].secs;
			return 0;
		}
	return -1;
}

int rm_schedule_filter_arg(struct rm_schedule_filter *f, int argc, char *const *argv, int i,
			   struct rm_error *err)
{
	static const char *const opts[] = { "--state", "--tree", "--commit", "--to", "--older-than",
					    "--sent-older-than" };
	const char *o = argv[i], *v;
	size_t k;

	if (!strcmp(o, "--all"))
		return f->all = true, 1;
	if (!strcmp(o, "--dry-run") || !strcmp(o, "-n"))
		return f->dry_run = true, 1;
	for (k = 0; k < sizeof(opts) / sizeof(opts[0]); k++)
		if (!strcmp(o, opts[k]))
			break;
	if (k == sizeof(opts) / sizeof(opts[0]))
		return 0;
	if (i + 1 >= argc || !argv[i + 1][0])
		return rm_error_set(err, RM_ERR_USAGE, "queue: %s: a value is missing", o);
	v = argv[i + 1];
	switch (k) {
	case 0: {
		static const char *const states[] = { "held", "queued", "sending", "sent", "failed" };
		size_t j;

		for (j = 0; j < sizeof(states) / sizeof(states[0]); j++)
			if (!strcmp(v, states[j]))
				break;
		if (j == sizeof(states) / sizeof(states[0]))
			return rm_error_set(err, RM_ERR_USAGE,
					    "queue: --state: '%s' is none of held, queued, sending, sent, failed", v);
		f->state = v;
		break;
	}
	case 1:
		f->tree = v;
		break;
	case 2:
		if (strlen(v) < 4 || strlen(v) > 64 || strspn(v, "0123456789abcdefABCDEF") != strlen(v))
			return rm_error_set(err, RM_ERR_USAGE,
					    "queue: --commit: '%s' is not a commit (4 to 64 hex digits)", v);
		f->commit = v;
		break;
	case 3:
		f->to = v;
		break;
	default:
		if (rm_schedule_parse_age(v, k == 4 ? &f->older_than : &f->sent_older_than))
			return rm_error_set(err, RM_ERR_USAGE,
					    "queue: %s: '%s' is not an age (seconds, or a number with s, m, h, d or w)", o, v);
		break;
	}
	return 2;
}

/* The tested (head) commit in a report's dedupe key
 * ("tree:branch|base|head|axes|metric"), or false for a message that is
 * no report (an answer of `listen`). */
static bool commit_matches(const char *dedupe_key, const char *prefix)
{
	const char *p = dedupe_key, *end;
	int field;

	if (!p)
		return false;
	for (field = 0; field < 2; field++) {
		p = strchr(p, '|');
		if (!p)
			return false;
		p++;
	}
	end = strchr(p, '|');
	if (!end || (size_t)(end - p) < strlen(prefix))
		return false;
	return !strncasecmp(p, prefix, strlen(prefix));
}

/* Does `f` match message m?  Reads m's recorded results for --to (and
 * for resend: a sent message without any has nobody to go to). */
static int filter_matches(struct rm_store *st, const struct rm_schedule_filter *f,
			  const struct rm_store_msg *m, time_t now, bool want_res, bool *match,
			  size_t *nres, struct rm_error *err)
{
	struct rm_store_rcpt_row *res = NULL;
	size_t k;

	*match = false;
	*nres = 0;
	if ((f->state && strcmp(f->state, rm_store_state_name(m->state))) ||
	    (f->tree && (!m->tree || strcmp(f->tree, m->tree))) ||
	    (f->commit && !commit_matches(m->dedupe_key, f->commit)) ||
	    (f->older_than >= 0 && now - m->created_at < f->older_than) ||
	    (f->sent_older_than >= 0 && (!m->sent_at || now - m->sent_at < f->sent_older_than)))
		return 0;
	if ((f->to || want_res) && rm_store_results(st, m->id, &res, nres, err))
		return -1;
	*match = !f->to;
	for (k = 0; f->to && !*match && k < m->nrcpts; k++)
		*match = !strcasecmp(f->to, m->rcpts[k]);
	for (k = 0; f->to && !*match && k < *nres; k++)
		*match = !strcasecmp(f->to, res[k].rcpt);
	rm_store_rcpt_rows_free(res, *nres);
	return 0;
}

/* Does the action apply to a message in m's state (store.h's rules for
 * rm_store_set_state, which checks again when it changes it)? */
static bool action_applies(enum rm_store_action a, const struct rm_store_msg *m, size_t nres)
{
	switch (a) {
	case RM_STORE_RETRY:
		return (m->state == RM_STORE_QUEUED || m->state == RM_STORE_FAILED ||
			m->state == RM_STORE_HELD) && m->nrcpts > 0;
	case RM_STORE_RELEASE:
		return m->state == RM_STORE_HELD;
	case RM_STORE_HOLD:
		return m->state == RM_STORE_QUEUED;
	case RM_STORE_DROP:
		return m->state == RM_STORE_QUEUED || m->state == RM_STORE_HELD ||
		       m->state == RM_STORE_FAILED;
	case RM_STORE_RESEND:
		return m->state == RM_STORE_SENT && m->len > 0 && nres > 0;
	case RM_STORE_PRUNE:
		return m->state == RM_STORE_SENT && m->len > 0;
	}
	return false;
}

int rm_schedule_queue_many(struct rm_store *st, enum rm_schedule_queue_cmd cmd,
			   const struct rm_schedule_filter *f, time_t now, struct rm_sb *out,
			   struct rm_error *err)
{
	struct rm_store_msg *v = NULL;
	size_t n = 0, i, k;
	const char *name = NULL;
	enum rm_store_action action = RM_STORE_RETRY; /* list and show: unused */
	long matched = 0, changed = 0, other = 0, gone = 0, dropped = 0;
	int rc = 0;

	for (k = 0; k < sizeof(queue_cmds) / sizeof(queue_cmds[0]); k++)
		if (queue_cmds[k].cmd == cmd) {
			name = queue_cmds[k].name;
			action = queue_cmds[k].action;
		}
	if (!name || cmd == RM_SCHEDULE_QUEUE_SHOW)
		return rm_error_set(err, RM_ERR_USAGE, "queue %s: takes one ID, not a filter",
				    name ? name : "?");
	if (cmd != RM_SCHEDULE_QUEUE_LIST && !rm_schedule_filter_any(f))
		return rm_error_set(err, RM_ERR_USAGE,
				    "queue %s: expected an ID, --all, or a filter (--state, --tree, --commit, --to, --older-than, --sent-older-than)",
				    name);
	if (rm_store_list(st, &v, &n, err))
		return -1;
	for (i = 0; i < n; i++) {
		struct rm_store_msg *m = &v[i];
		bool match;
		size_t nres;

		if (filter_matches(st, f, m, now, action == RM_STORE_RESEND && m->state == RM_STORE_SENT,
				   &match, &nres, err)) {
			rc = -1;
			break;
		}
		if (!match)
			continue;
		if (cmd == RM_SCHEDULE_QUEUE_LIST) {
			rm_sb_addf(out, "%lld\t%s\t%d\t<%s>\t%s%s%s\n", m->id,
				   rm_store_state_name(m->state), m->attempts, m->message_id,
				   m->subject ? m->subject : "", m->last_error ? "\t" : "",
				   m->last_error ? m->last_error : "");
			continue;
		}
		matched++;
		if (!action_applies(action, m, nres)) {
			other++;
			continue;
		}
		if (action == RM_STORE_RETRY && m->last_error &&
		    !strcmp(m->last_error, "dropped by the operator")) {
			dropped++; /* `retry ID` takes one back; a filter never does */
			continue;
		}
		if (!f->dry_run) {
			char id[32];
			int c;

			snprintf(id, sizeof(id), "%lld", m->id);
			c = rm_store_set_state(st, id, action, now, err);
			if (c < 0) {
				rc = -1;
				break;
			}
			if (!c) { /* changed by another process since it was listed */
				gone++;
				continue;
			}
		}
		changed++;
		rm_sb_addf(out, "%s%s %lld <%s> %s\n", f->dry_run ? "would " : "", name, m->id,
			   m->message_id, m->subject ? m->subject : "");
	}
	rm_store_msgs_free(v, n);
	if (rc || cmd == RM_SCHEDULE_QUEUE_LIST)
		return rc;
	rm_sb_addf(out, "queue %s%s: %ld of %ld matching message(s) %s", name,
		   f->dry_run ? " --dry-run" : "", changed, matched,
		   f->dry_run ? "would change" : "changed");
	if (other)
		rm_sb_addf(out, "; %ld in a state %s does not apply to", other, name);
	if (dropped)
		rm_sb_addf(out, "; %ld dropped by the operator left alone (retry ID takes one back)",
			   dropped);
	if (gone)
		rm_sb_addf(out, "; %ld changed by another run meanwhile", gone);
	rm_sb_addc(out, '\n');
	return 0;
}

int rm_schedule_queue_args(struct rm_schedule_queue_args *a, int argc, char *const *argv, int i,
			   struct rm_error *err)
{
	int used;

	memset(a, 0, sizeof(*a));
	if (i >= argc)
		return rm_error_set(err, RM_ERR_USAGE, "queue: expected list, show ID, retry ID, drop ID, hold ID, release ID or resend ID");
	if (rm_schedule_queue_cmd_parse(argv[i], &a->cmd))
		return rm_error_set(err, RM_ERR_USAGE, "queue: unknown action '%s'", argv[i]);
	rm_schedule_filter_init(&a->f);
	for (i++; i < argc; i += used) {
		used = rm_schedule_filter_arg(&a->f, argc, argv, i, err);
		if (used < 0)
			return -1;
		if (!used && !a->which && argv[i][0] != '-' && rm_schedule_queue_cmd_needs_id(a->cmd)) {
			a->which = argv[i];
			used = 1;
		} else if (!used) {
			return rm_error_set(err, RM_ERR_USAGE, "queue: unexpected argument '%s'", argv[i]);
		}
	}
	if (a->which && rm_schedule_filter_any(&a->f))
		return rm_error_set(err, RM_ERR_USAGE, "queue: an ID or filters, not both");
	if (!a->which && a->cmd == RM_SCHEDULE_QUEUE_SHOW)
		return rm_error_set(err, RM_ERR_USAGE, "queue show: expected an ID");
	if (a->which && a->f.dry_run)
		return rm_error_set(err, RM_ERR_USAGE, "queue: --dry-run goes with --all or a filter");
	return 0;
}

int rm_schedule_queue_apply(struct rm_store *st, const struct rm_schedule_queue_args *a,
			    bool header, time_t now, struct rm_sb *out, struct rm_error *err)
{
	if (a->cmd == RM_SCHEDULE_QUEUE_LIST && header)
		rm_sb_adds(out, "ID\tSTATE\tATTEMPTS\tMESSAGE-ID\tSUBJECT\tLAST-ERROR\n");
	if (a->which || (a->cmd == RM_SCHEDULE_QUEUE_LIST && !rm_schedule_filter_any(&a->f)))
		return rm_schedule_queue(st, a->cmd, a->which, now, out, err);
	return rm_schedule_queue_many(st, a->cmd, &a->f, now, out, err);
}

int rm_schedule_waiting(struct rm_store *st, int *waiting, int *held, struct rm_error *err)
{
	struct rm_store_msg *v = NULL;
	size_t n = 0, k;

	*waiting = *held = 0;
	if (rm_store_list(st, &v, &n, err))
		return -1;
	for (k = 0; k < n; k++) {
		*waiting += v[k].state == RM_STORE_QUEUED || v[k].state == RM_STORE_SENDING;
		*held += v[k].state == RM_STORE_HELD;
	}
	rm_store_msgs_free(v, n);
	return 0;
}

int rm_schedule_outbox(struct rm_store *st, time_t now, long by[5], long long *oldest_waiting,
		       struct rm_error *err)
{
	struct rm_store_msg *v = NULL;
	size_t n = 0, k;

	memset(by, 0, 5 * sizeof(*by));
	*oldest_waiting = 0;
	if (rm_store_list(st, &v, &n, err))
		return -1;
	for (k = 0; k < n; k++) {
		if ((unsigned)v[k].state < 5)
			by[v[k].state]++;
		if ((v[k].state == RM_STORE_QUEUED || v[k].state == RM_STORE_SENDING) &&
		    now - v[k].created_at > *oldest_waiting)
			*oldest_waiting = (long long)(now - v[k].created_at);
	}
	rm_store_msgs_free(v, n);
	return 0;
}
