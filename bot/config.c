/* config.c - see config.h. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "config.h"

#include <pcre2.h>

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "address.h"
#include "fileutil.h"
#include "message.h"
#include "strbuf.h"
#include "yamldoc.h"

#define CONFIG_MAX_FILE (1u << 20)

static const char *const provider_names[] = { "none", "cgit", "github", "gitea", "gitlab",
					      "local-git" };

const char *rm_config_provider_name(enum rm_provider p)
{
	return (size_t)p < sizeof(provider_names) / sizeof(provider_names[0]) ?
		       provider_names[p] : "?";
}

static void set_str(char **dst, const char *v)
{
	free(*dst);
	*dst = v ? rm_xstrdup(v) : NULL;
}

/* Neutral defaults: no built-in identity (robot.name and robot.address are
 * required, rm_config_check_identity), no lists copied, no links that name
 * somebody's archive.  The 0-day robot's values are a profile a configuration
 * includes: config/profiles/0day.yaml. */
static void defaults(struct rm_config *c)
{
	set_str(&c->robot_name, NULL);
	set_str(&c->robot_address, NULL);
	set_str(&c->msgid_local, "robotmail");
	set_str(&c->msgid_domain, NULL); /* the domain of robot.address */
	set_str(&c->timezone, "+0000");
	c->cc_self = true;
	set_str(&c->lore_base, NULL);
	set_str(&c->archive_base, NULL);
	set_str(&c->patch_link_base, "https://lore.kernel.org/all");
	set_str(&c->patch_branches, NULL);
	c->unknown_branch = RM_UNKNOWN_BRANCH_SKIP;
	set_str(&c->state_db, "var/state.db");
	c->lease = 60;
	set_str(&c->metrics, NULL);
	set_str(&c->programs, NULL);
	set_str(&c->templates, NULL);
	c->connect_timeout = 5;
	c->timeout = 20;
	c->retries = 2;
	c->concurrency = 4;
	c->miss_ttl = 3600;
	c->max_wait = 60;
	c->defer_on_failure = true;
	c->evidence_max_lines = 300;
	c->evidence_max_bytes = 65536;
	set_str(&c->inbox, "var/inbox");
	set_str(&c->done_dir, "var/done");
	set_str(&c->failed_dir, "var/failed");
	c->settle = 60;
	c->settle_max = 3600;
	set_str(&c->transport, "smtp://127.0.0.1:25");
	c->starttls = false;
	c->tls_verify = true;
	c->smtp_connect_timeout = 10;
	c->smtp_timeout = 60;
	c->max_age = 2 * 86400;
	c->backoff = 300;
	c->batch = 500;
	c->hourly_cap = 0;
	set_str(&c->emergency_stop, "var/STOP");
	set_str(&c->charset, "auto");
	c->cc_trailers.v = rm_xcalloc(4, sizeof(char *));
	c->cc_trailers.v[0] = rm_xstrdup("Signed-off-by");
	c->cc_trailers.v[1] = rm_xstrdup("Reviewed-by");
	c->cc_trailers.v[2] = rm_xstrdup("Acked-by");
	c->cc_trailers.v[3] = rm_xstrdup("Cc");
	c->cc_trailers.n = 4;
	c->maintainers_cap = 10;
	c->listen_rate = 20;
	c->max_recipients = 50;
}

static void free_list(struct rm_strlist *l);

/* ------------------------------------------------------------ typed getters */

struct ctx {
	struct rm_yaml *y;
	struct rm_error *err;
	struct rm_config *c;
};

static void note_where(struct ctx *x, const char *section, const char *key, yaml_node_t *k)
{
	struct rm_config *c = x->c;
	struct rm_sb kb = RM_SB_INIT, at = RM_SB_INIT;
	size_t i;

	if (!strcmp(section, "(top)"))
		section = "";
	rm_sb_init(&kb);
	rm_sb_addf(&kb, "%s%s%s", section, *section ? "." : "", key);
	rm_sb_init(&at);
	rm_sb_addf(&at, "'%s' line %d", x->y->file, rm_yaml_line(k));
	for (i = 0; i < c->where_keys.n; i++)
		if (!strcmp(c->where_keys.v[i], kb.buf)) {
			free(c->where_at.v[i]);
			c->where_at.v[i] = rm_sb_detach(&at, NULL);
			rm_sb_release(&kb);
			return;
		}
	c->where_keys.v = rm_xrealloc(c->where_keys.v, (c->where_keys.n + 1) * sizeof(char *));
	c->where_at.v = rm_xrealloc(c->where_at.v, (c->where_at.n + 1) * sizeof(char *));
	c->where_keys.v[c->where_keys.n++] = rm_sb_detach(&kb, NULL);
	c->where_at.v[c->where_at.n++] = rm_sb_detach(&at, NULL);
}

static int fail(struct ctx *x, yaml_node_t *n, const char *key, const char *what)
{
	return rm_error_set(x->err, RM_ERR_CONFIG, "'%s' line %d: '%s': %s", x->y->file,
			    rm_yaml_line(n), key, what);
}

static int get_str(struct ctx *x, yaml_node_t *n, const char *key, char **dst)
{
	const char *s = rm_yaml_scalar(n);

	if (!s || rm_yaml_has_nul(n))
		return fail(x, n, key, "expected a string");
	if (strpbrk(s, "\r\n"))
		return fail(x, n, key, "must be one line");
	set_str(dst, s);
	return 0;
}

/* Multi-line text (a disclaimer, a signature): tabs and newlines allowed,
 * other control characters not; trailing newlines dropped (the template
 * places the line ends).  An empty value means none. */
static int get_text(struct ctx *x, yaml_node_t *n, const char *key, char **dst)
{
	const char *s = rm_yaml_scalar(n), *p;
	size_t len;

	if (!s || rm_yaml_has_nul(n))
		return fail(x, n, key, "expected a string");
	for (p = s; *p; p++)
		if (((unsigned char)*p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7f)
			return fail(x, n, key, "control characters other than tab and newline");
	len = strlen(s);
	while (len && s[len - 1] == '\n')
		len--;
	free(*dst);
	*dst = len ? rm_xstrndup(s, len) : NULL;
	return 0;
}

static int get_long(struct ctx *x, yaml_node_t *n, const char *key, long min, long max,
		    long *dst)
{
	const char *s = rm_yaml_scalar(n);
	char *end;
	long v;

	if (!s || !*s)
		return fail(x, n, key, "expected a whole number");
	v = strtol(s, &end, 10);
	if (*end || v < min || v > max) {
		char what[96];

		snprintf(what, sizeof(what), "expected a whole number from %ld to %ld", min, max);
		return fail(x, n, key, what);
	}
	*dst = v;
	return 0;
}

/* "60", "60s", "2m" or "1h", within [min, max] seconds */
static int get_seconds(struct ctx *x, yaml_node_t *n, const char *key, long min, long max,
		       long *dst)
{
	const char *s = rm_yaml_scalar(n);
	char *end;
	long v, unit = 1;

	if (!s || !*s)
		return fail(x, n, key, "expected a duration such as 60s, 2m or 1h");
	v = strtol(s, &end, 10);
	if (*end && end[1])
		unit = 0; /* more than one letter after the number */
	else if (*end)
		unit = strchr("smh", *end) ? (*end == 's' ? 1 : *end == 'm' ? 60 : 3600) : 0;
	if (end == s || !unit || v < min / unit || v > max / unit || v * unit < min) {
		char what[128];

		snprintf(what, sizeof(what), "expected a duration from %lds to %lds (such as 60s, 2m)",
			 min, max);
		return fail(x, n, key, what);
	}
	*dst = v * unit;
	return 0;
}

static int get_bool(struct ctx *x, yaml_node_t *n, const char *key, bool *dst)
{
	char *s = rm_yaml_ruby_string(n);
	int rc = 0;

	if (!strcmp(s, "true"))
		*dst = true;
	else if (!strcmp(s, "false"))
		*dst = false;
	else
		rc = fail(x, n, key, "expected true or false");
	free(s);
	return rc;
}

static int get_list(struct ctx *x, yaml_node_t *n, const char *key, struct rm_strlist *dst)
{
	yaml_node_item_t *it;

	if (n && n->type == YAML_SCALAR_NODE && !rm_yaml_is_null(n)) {
		dst->v = rm_xrealloc(dst->v, (dst->n + 1) * sizeof(char *));
		dst->v[dst->n] = NULL;
		if (get_str(x, n, key, &dst->v[dst->n]))
			return -1;
		dst->n++;
		return 0;
	}
	if (rm_yaml_is_null(n))
		return 0;
	if (n->type != YAML_SEQUENCE_NODE)
		return fail(x, n, key, "expected a list of strings");
	for (it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
		yaml_node_t *e = rm_yaml_node(x->y, *it);

		dst->v = rm_xrealloc(dst->v, (dst->n + 1) * sizeof(char *));
		dst->v[dst->n] = NULL;
		if (get_str(x, e, key, &dst->v[dst->n]))
			return -1;
		dst->n++;
	}
	return 0;
}

/* A mailbox ("Name <addr>", "addr"), by the strict rule of address.h. */
static int check_mailbox(struct ctx *x, yaml_node_t *n, const char *key, const char *spec)
{
	struct rm_address a;
	struct rm_error e;
	bool bad_spec;

	rm_error_clear(&e);
	if (rm_address_parse(&a, spec, &bad_spec, &e))
		return fail(x, n, key, e.msg);
	rm_address_free(&a);
	return 0;
}

/* get_list, then every item must be a mailbox */
static int get_mailboxes(struct ctx *x, yaml_node_t *n, const char *key, struct rm_strlist *dst)
{
	size_t first = dst->n, i;

	if (get_list(x, n, key, dst))
		return -1;
	if (n && n->type == YAML_SEQUENCE_NODE) {
		yaml_node_item_t *it;

		for (it = n->data.sequence.items.start, i = first;
		     it < n->data.sequence.items.top && i < dst->n; it++, i++)
			if (check_mailbox(x, rm_yaml_node(x->y, *it), key, dst->v[i]))
				return -1;
	} else {
		for (i = first; i < dst->n; i++)
			if (check_mailbox(x, n, key, dst->v[i]))
				return -1;
	}
	return 0;
}

static void free_list(struct rm_strlist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

/* Walk a mapping, calling `one` for each key; unknown keys are errors. */
typedef int (*key_fn)(struct ctx *x, void *obj, const char *key, yaml_node_t *val,
		      yaml_node_t *keynode);

static int each_key(struct ctx *x, yaml_node_t *map, const char *where, void *obj, key_fn one)
{
	yaml_node_pair_t *p;

	if (rm_yaml_is_null(map))
		return 0;
	if (map->type != YAML_MAPPING_NODE)
		return fail(x, map, where, "expected a mapping");
	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = rm_yaml_node(x->y, p->key);
		const char *key = rm_yaml_scalar(k);

		if (!key)
			return fail(x, k, where, "expected string keys");
		note_where(x, where, key, k);
		if (one(x, obj, key, rm_yaml_node(x->y, p->value), k))
			return -1;
	}
	return 0;
}

static int unknown(struct ctx *x, yaml_node_t *k, const char *section, const char *key)
{
	return rm_error_set(x->err, RM_ERR_CONFIG, "'%s' line %d: unknown key '%s%s%s'",
			    x->y->file, rm_yaml_line(k), section, *section ? "." : "", key);
}

/* ------------------------------------------------------------ sections */

static int robot_key(struct ctx *x, void *obj, const char *key, yaml_node_t *v, yaml_node_t *k)
{
	struct rm_config *c = obj;

	if (!strcmp(key, "name"))
		return get_str(x, v, "robot.name", &c->robot_name);
	if (!strcmp(key, "address")) {
		const char *why;

		if (get_str(x, v, "robot.address", &c->robot_address))
			return -1;
		why = rm_address_check(c->robot_address);
		return why ? fail(x, v, "robot.address", why) : 0;
	}
	if (!strcmp(key, "cc")) {
		free_list(&c->cc);
		return get_mailboxes(x, v, "robot.cc", &c->cc);
	}
	if (!strcmp(key, "disclaimer"))
		return get_text(x, v, "robot.disclaimer", &c->disclaimer);
	if (!strcmp(key, "signature"))
		return get_text(x, v, "robot.signature", &c->signature);
	if (!strcmp(key, "cc_self"))
		return get_bool(x, v, "robot.cc_self", &c->cc_self);
	if (!strcmp(key, "patch_base")) {
		const char *s = rm_yaml_scalar(v);

		if (!s || (strcmp(s, "always") && strcmp(s, "guessed")))
			return fail(x, v, "robot.patch_base", "expected always or guessed");
		c->patch_base_guessed = !strcmp(s, "guessed");
		return 0;
	}
	if (!strcmp(key, "msgid_local"))
		return get_str(x, v, "robot.msgid_local", &c->msgid_local);
	if (!strcmp(key, "msgid_domain")) {
		if (get_str(x, v, "robot.msgid_domain", &c->msgid_domain))
			return -1;
		if (!*c->msgid_domain || strpbrk(c->msgid_domain, " <>@\t") || c->msgid_domain[0] == '.')
			return fail(x, v, "robot.msgid_domain", "expected a domain name");
		return 0;
	}
	if (!strcmp(key, "timezone")) {
		const char *s = rm_yaml_scalar(v);

		if (!s || strlen(s) != 5 || (s[0] != '+' && s[0] != '-') ||
		    strspn(s + 1, "0123456789") != 4)
			return fail(x, v, "robot.timezone", "expected +HHMM or -HHMM");
		return get_str(x, v, "robot.timezone", &c->timezone);
	}
	return unknown(x, k, "robot", key);
}

static int links_key(struct ctx *x, void *obj, const char *key, yaml_node_t *v, yaml_node_t *k)
{
	struct rm_config *c = obj;

	if (!strcmp(key, "lore"))
		return get_str(x, v, "links.lore", &c->lore_base);
	if (!strcmp(key, "status"))
		return get_str(x, v, "links.status", &c->status_base);
	if (!strcmp(key, "archive"))
		return get_str(x, v, "links.archive", &c->archive_base);
	if (!strcmp(key, "patch_link"))
		return get_str(x, v, "links.patch_link", &c->patch_link_base);
	if (!strcmp(key, "patch_branches"))
		return get_str(x, v, "links.patch_branches", &c->patch_branches);
	if (!strcmp(key, "patch_mail"))
		return get_str(x, v, "links.patch_mail", &c->patch_mail_base);
	return unknown(x, k, "links", key);
}

static int paths_key(struct ctx *x, void *obj, const char *key, yaml_node_t *v, yaml_node_t *k)
{
	struct rm_config *c = obj;

	if (!strcmp(key, "state_db"))
		return get_str(x, v, "paths.state_db", &c->state_db);
	if (!strcmp(key, "metrics"))
		return get_str(x, v, "paths.metrics", &c->metrics);
	if (!strcmp(key, "metrics_file"))
		return get_str(x, v, "paths.metrics_file", &c->metrics_file);
	if (!strcmp(key, "programs"))
		return get_str(x, v, "paths.programs", &c->programs);
	if (!strcmp(key, "templates"))
		return get_str(x, v, "paths.templates", &c->templates);
	if (!strcmp(key, "inbox"))
		return get_str(x, v, "paths.inbox", &c->inbox);
	if (!strcmp(key, "done"))
		return get_str(x, v, "paths.done", &c->done_dir);
	if (!strcmp(key, "failed"))
		return get_str(x, v, "paths.failed", &c->failed_dir);
	if (!strcmp(key, "emergency_stop"))
		return get_str(x, v, "paths.emergency_stop", &c->emergency_stop);
	if (!strcmp(key, "inbox_links"))
		return get_list(x, v, "paths.inbox_links", &c->inbox_links);
	return unknown(x, k, "paths", key);
}

static int gitweb_key(struct ctx *x, void *obj, const char *key, yaml_node_t *v, yaml_node_t *k)
{
	struct rm_config *c = obj;

	if (!strcmp(key, "connect_timeout"))
		return get_long(x, v, "gitweb.connect_timeout", 1, 600, &c->connect_timeout);
	if (!strcmp(key, "timeout"))
		return get_long(x, v, "gitweb.timeout", 1, 3600, &c->timeout);
	if (!strcmp(key, "retries"))
		return get_long(x, v, "gitweb.retries", 0, 20, &c->retries);
	if (!strcmp(key, "concurrency"))
		return get_long(x, v, "gitweb.concurrency", 1, 64, &c->concurrency);
	if (!strcmp(key, "miss_ttl"))
		return get_long(x, v, "gitweb.miss_ttl", 0, 30L * 86400, &c->miss_ttl);
	if (!strcmp(key, "max_wait"))
		return get_long(x, v, "gitweb.max_wait", 0, 3600, &c->max_wait);
	if (!strcmp(key, "lookup_horizon"))
		return get_long(x, v, "gitweb.lookup_horizon", 0, 30L * 86400, &c->lookup_horizon);
	if (!strcmp(key, "on_failure")) {
		const char *s = rm_yaml_scalar(v);

		if (!s || (strcmp(s, "defer") && strcmp(s, "send")))
			return fail(x, v, "gitweb.on_failure", "expected defer or send");
		c->defer_on_failure = !strcmp(s, "defer");
		return 0;
	}
	return unknown(x, k, "gitweb", key);
}

static int evidence_key(struct ctx *x, void *obj, const char *key, yaml_node_t *v,
			yaml_node_t *k)
{
	struct rm_config *c = obj;

	if (!strcmp(key, "max_lines"))
		return get_long(x, v, "evidence.max_lines", 10, 100000, &c->evidence_max_lines);
	if (!strcmp(key, "max_bytes"))
		return get_long(x, v, "evidence.max_bytes", 1024, 16L << 20, &c->evidence_max_bytes);
	return unknown(x, k, "evidence", key);
}

static int delivery_key(struct ctx *x, void *obj, const char *key, yaml_node_t *v,
			yaml_node_t *k)
{
	struct rm_config *c = obj;

	if (!strcmp(key, "transport"))
		return get_str(x, v, "delivery.transport", &c->transport);
	if (!strcmp(key, "starttls"))
		return get_bool(x, v, "delivery.starttls", &c->starttls);
	if (!strcmp(key, "verify"))
		return get_bool(x, v, "delivery.verify", &c->tls_verify);
	if (!strcmp(key, "ca_file"))
		return get_str(x, v, "delivery.ca_file", &c->ca_file);
	if (!strcmp(key, "user"))
		return get_str(x, v, "delivery.user", &c->smtp_user);
	if (!strcmp(key, "password_file"))
		return get_str(x, v, "delivery.password_file", &c->password_file);
	if (!strcmp(key, "password_env"))
		return get_str(x, v, "delivery.password_env", &c->password_env);
	if (!strcmp(key, "password"))
		return fail(x, v, "delivery.password",
			    "a password is never written in the configuration; use password_file or password_env");
	if (!strcmp(key, "helo"))
		return get_str(x, v, "delivery.helo", &c->helo);
	if (!strcmp(key, "connect_timeout"))
		return get_long(x, v, "delivery.connect_timeout", 1, 600, &c->smtp_connect_timeout);
	if (!strcmp(key, "timeout"))
		return get_long(x, v, "delivery.timeout", 1, 3600, &c->smtp_timeout);
	if (!strcmp(key, "max_age"))
		return get_long(x, v, "delivery.max_age", 0, 365L * 86400, &c->max_age);
	if (!strcmp(key, "backoff"))
		return get_long(x, v, "delivery.backoff", 0, 86400, &c->backoff);
	if (!strcmp(key, "batch"))
		return get_long(x, v, "delivery.batch", 1, 1000000, &c->batch);
	if (!strcmp(key, "hourly_cap"))
		return get_long(x, v, "delivery.hourly_cap", 0, 1000000, &c->hourly_cap);
	if (!strcmp(key, "settle"))
		return get_long(x, v, "delivery.settle", 0, 86400, &c->settle);
	if (!strcmp(key, "settle_max"))
		return get_long(x, v, "delivery.settle_max", 0, 30 * 86400, &c->settle_max);
	if (!strcmp(key, "hold"))
		return get_list(x, v, "delivery.hold", &c->hold);
	if (!strcmp(key, "charset")) {
		const char *s = rm_yaml_scalar(v);

		/* the body is UTF-8: declaring it anything else would lie */
		if (!s || (strcmp(s, "auto") && strcasecmp(s, "utf-8")))
			return fail(x, v, "delivery.charset",
				    "expected auto (us-ascii, iso-8859-1 or utf-8, the narrowest that holds the body) or utf-8");
		return get_str(x, v, "delivery.charset", &c->charset);
	}
	if (!strcmp(key, "public_inbox_config"))
		return get_str(x, v, "delivery.public_inbox_config", &c->pi_config);
	if (!strcmp(key, "public_inbox_address")) {
		const char *why;

		if (get_str(x, v, "delivery.public_inbox_address", &c->pi_address))
			return -1;
		why = rm_address_check(c->pi_address);
		return why ? fail(x, v, "delivery.public_inbox_address", why) : 0;
	}
	if (!strcmp(key, "daily_caps")) {
		yaml_node_pair_t *p;

		if (v->type != YAML_MAPPING_NODE)
			return fail(x, v, "delivery.daily_caps", "expected a mapping of list address: messages per day");
		for (p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
			yaml_node_t *kn = rm_yaml_node(x->y, p->key);
			long n;

			if (!rm_yaml_scalar(kn))
				return fail(x, kn, "delivery.daily_caps", "expected list addresses as keys");
			if (get_long(x, rm_yaml_node(x->y, p->value), "delivery.daily_caps", 0, 1000000, &n))
				return -1;
			c->cap_lists.v = rm_xrealloc(c->cap_lists.v, (c->cap_lists.n + 1) * sizeof(char *));
			c->cap_values = rm_xrealloc(c->cap_values, (c->cap_lists.n + 1) * sizeof(long));
			c->cap_lists.v[c->cap_lists.n] = rm_xstrdup(rm_yaml_scalar(kn));
			c->cap_values[c->cap_lists.n] = n;
			c->cap_lists.n++;
		}
		return 0;
	}
	return unknown(x, k, "delivery", key);
}

static int rule_key(struct ctx *x, void *obj, const char *key, yaml_node_t *v, yaml_node_t *k)
{
	struct rm_rcpt_rule *r = obj;

	if (!strcmp(key, "on")) {
		const char *s = rm_yaml_scalar(v);

		if (!s || (strcmp(s, "subject") && strcmp(s, "path") && strcmp(s, "testcase")))
			return fail(x, v, "recipients.rules[].on", "expected subject, path or testcase");
		return get_str(x, v, "recipients.rules[].on", &r->on);
	}
	if (!strcmp(key, "pattern"))
		return get_str(x, v, "recipients.rules[].pattern", &r->pattern);
	if (!strcmp(key, "cc"))
		return get_mailboxes(x, v, "recipients.rules[].cc", &r->cc);
	return unknown(x, k, "recipients.rules[]", key);
}

static int recipients_key(struct ctx *x, void *obj, const char *key, yaml_node_t *v,
			  yaml_node_t *k)
{
	struct rm_config *c = obj;

	if (!strcmp(key, "trailers")) {
		free_list(&c->cc_trailers);
		return get_list(x, v, "recipients.trailers", &c->cc_trailers);
	}
	if (!strcmp(key, "maintainers"))
		return get_str(x, v, "recipients.maintainers", &c->maintainers);
	if (!strcmp(key, "maintainers_cap"))
		return get_long(x, v, "recipients.maintainers_cap", 0, 1000, &c->maintainers_cap);
	if (!strcmp(key, "opt_out"))
		return get_str(x, v, "recipients.opt_out", &c->opt_out);
	if (!strcmp(key, "max"))
		return get_long(x, v, "recipients.max", 1, 1000, &c->max_recipients);
	if (!strcmp(key, "rules")) {
		yaml_node_item_t *it;

		if (v->type != YAML_SEQUENCE_NODE)
			return fail(x, v, "recipients.rules", "expected a list of {on, pattern, cc}");
		for (it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
			yaml_node_t *rn = rm_yaml_node(x->y, *it);
			struct rm_rcpt_rule *r;

			c->rules = rm_xrealloc(c->rules, (c->nrules + 1) * sizeof(*c->rules));
			r = &c->rules[c->nrules++];
			memset(r, 0, sizeof(*r));
			r->line = rm_yaml_line(rn);
			if (each_key(x, rn, "recipients.rules[]", r, rule_key))
				return -1;
			if (!r->on || !r->pattern || !r->cc.n)
				return fail(x, rn, "recipients.rules[]", "each rule needs on, pattern and cc");
			{
				int ec;
				PCRE2_SIZE eo;
				pcre2_code *re = pcre2_compile((PCRE2_SPTR)r->pattern, PCRE2_ZERO_TERMINATED,
							       PCRE2_UTF, &ec, &eo, NULL);

				if (!re) {
					PCRE2_UCHAR msg[200];

					pcre2_get_error_message(ec, msg, sizeof(msg));
					return rm_error_set(x->err, RM_ERR_CONFIG,
							    "'%s' line %d: 'recipients.rules[].pattern': '%s': %s",
							    x->y->file, r->line, r->pattern, (char *)msg);
				}
				pcre2_code_free(re);
			}
		}
		return 0;
	}
	return unknown(x, k, "recipients", key);
}

static int tree_key(struct ctx *x, void *obj, const char *key, yaml_node_t *v, yaml_node_t *k)
{
	struct rm_tree_cfg *t = obj;

	if (!strcmp(key, "name"))
		return get_str(x, v, "trees.name", &t->name);
	if (!strcmp(key, "branch"))
		return get_str(x, v, "trees.branch", &t->branch);
	if (!strcmp(key, "url"))
		return get_str(x, v, "trees.url", &t->url);
	if (!strcmp(key, "api"))
		return get_str(x, v, "trees.api", &t->api);
	if (!strcmp(key, "token_file"))
		return get_str(x, v, "trees.token_file", &t->token_file);
	if (!strcmp(key, "token_env"))
		return get_str(x, v, "trees.token_env", &t->token_env);
	if (!strcmp(key, "aliases"))
		return get_list(x, v, "trees.aliases", &t->aliases);
	if (!strcmp(key, "patches"))
		return get_bool(x, v, "trees.patches", &t->patches);
	if (!strcmp(key, "mail_to"))
		return get_mailboxes(x, v, "trees.mail_to", &t->mail_to);
	if (!strcmp(key, "mail_cc"))
		return get_mailboxes(x, v, "trees.mail_cc", &t->mail_cc);
	if (!strcmp(key, "provider")) {
		const char *s = rm_yaml_scalar(v);
		size_t i;

		for (i = 1; s && i < sizeof(provider_names) / sizeof(provider_names[0]); i++)
			if (!strcmp(s, provider_names[i])) {
				t->provider = (enum rm_provider)i;
				return 0;
			}
		return fail(x, v, "trees.provider",
			    "expected cgit, github, gitea, gitlab or local-git");
	}
	return unknown(x, k, "trees[]", key);
}

static void free_tree(struct rm_tree_cfg *t)
{
	free(t->name);
	free(t->branch);
	free(t->url);
	free(t->api);
	free(t->token_file);
	free(t->token_env);
	free_list(&t->aliases);
	free_list(&t->mail_to);
	free_list(&t->mail_cc);
}

static int load_trees(struct ctx *x, struct rm_config *c, yaml_node_t *seq)
{
	yaml_node_item_t *it;

	if (rm_yaml_is_null(seq))
		return 0;
	if (seq->type != YAML_SEQUENCE_NODE)
		return fail(x, seq, "trees", "expected a list of trees");
	for (it = seq->data.sequence.items.start; it < seq->data.sequence.items.top; it++) {
		yaml_node_t *tn = rm_yaml_node(x->y, *it);
		struct rm_tree_cfg *t;
		size_t i;

		c->trees = rm_xrealloc(c->trees, (c->ntrees + 1) * sizeof(*c->trees));
		t = &c->trees[c->ntrees++];
		memset(t, 0, sizeof(*t));
		if (each_key(x, tn, "trees[]", t, tree_key))
			return -1;
		if (!t->name || !t->url || !t->branch)
			return fail(x, tn, "trees[]", "each tree needs name, branch and url");
		if (strpbrk(t->name, " /:[]") || strpbrk(t->branch, " []"))
			return fail(x, tn, "trees[].name", "name and branch may not hold spaces, '/', ':' or brackets in the name");
		if (t->provider != RM_PROVIDER_NONE && !t->api)
			return fail(x, tn, "trees[].api", "a provider needs an api base URL or directory");
		for (i = 0; i + 1 < c->ntrees; i++)
			if (!strcmp(c->trees[i].name, t->name) &&
			    !strcmp(c->trees[i].branch, t->branch))
				return fail(x, tn, "trees[].name", "the same tree and branch twice");
	}
	return 0;
}

/* One listen mapping: a source's keys and the keys for all sources. */
static int listen_key(struct ctx *x, void *obj, const char *key, yaml_node_t *v, yaml_node_t *k)
{
	struct rm_config *c = obj;
	struct rm_listen_src *l = &c->listen[c->nlisten - 1];

	if (!strcmp(key, "source")) {
		const char *s = rm_yaml_scalar(v);

		if (!s || (strncmp(s, "maildir:", 8) && strncmp(s, "imaps://", 8) &&
			   strncmp(s, "public-inbox:", 13)))
			return fail(x, v, "listen.source",
				    "expected maildir:DIR, imaps://HOST:PORT/MAILBOX or public-inbox:URL");
		l->line = rm_yaml_line(v);
		return get_str(x, v, "listen.source", &l->source);
	}
	if (!strcmp(key, "user"))
		return get_str(x, v, "listen.user", &l->user);
	if (!strcmp(key, "password_file"))
		return get_str(x, v, "listen.password_file", &l->password_file);
	if (!strcmp(key, "ca_file"))
		return get_str(x, v, "listen.ca_file", &l->ca_file);
	if (!strcmp(key, "maintainers"))
		return get_list(x, v, "listen.maintainers", &c->listen_maintainers);
	if (!strcmp(key, "lists"))
		return get_list(x, v, "listen.lists", &c->listen_lists);
	if (!strcmp(key, "rate_limit"))
		return get_long(x, v, "listen.rate_limit", 1, 100000, &c->listen_rate);
	if (!strcmp(key, "footer"))
		return get_bool(x, v, "listen.footer", &c->listen_footer);
	return unknown(x, k, "listen", key);
}

static int load_listen_one(struct ctx *x, struct rm_config *c, yaml_node_t *m)
{
	struct rm_listen_src *l;

	c->listen = rm_xrealloc(c->listen, (c->nlisten + 1) * sizeof(*c->listen));
	memset(&c->listen[c->nlisten++], 0, sizeof(*c->listen));
	if (each_key(x, m, "listen", c, listen_key))
		return -1;
	l = &c->listen[c->nlisten - 1];
	if (l->source)
		return 0;
	if (l->user || l->password_file || l->ca_file)
		return fail(x, m, "listen.source", "missing");
	c->nlisten--; /* only the keys for all sources: no source of its own */
	return 0;
}

static int load_listen(struct ctx *x, struct rm_config *c, yaml_node_t *v)
{
	yaml_node_item_t *it;

	if (rm_yaml_is_null(v))
		return 0;
	if (v->type != YAML_SEQUENCE_NODE)
		return load_listen_one(x, c, v);
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++)
		if (load_listen_one(x, c, rm_yaml_node(x->y, *it)))
			return -1;
	return 0;
}

static int top_key(struct ctx *x, void *obj, const char *key, yaml_node_t *v, yaml_node_t *k)
{
	struct rm_config *c = obj;

	if (!strcmp(key, "robot"))
		return each_key(x, v, "robot", c, robot_key);
	if (!strcmp(key, "links"))
		return each_key(x, v, "links", c, links_key);
	if (!strcmp(key, "paths"))
		return each_key(x, v, "paths", c, paths_key);
	if (!strcmp(key, "gitweb"))
		return each_key(x, v, "gitweb", c, gitweb_key);
	if (!strcmp(key, "trees"))
		return load_trees(x, c, v);
	if (!strcmp(key, "evidence"))
		return each_key(x, v, "evidence", c, evidence_key);
	if (!strcmp(key, "delivery"))
		return each_key(x, v, "delivery", c, delivery_key);
	if (!strcmp(key, "recipients"))
		return each_key(x, v, "recipients", c, recipients_key);
	if (!strcmp(key, "store"))
		return get_str(x, v, "store", &c->state_db); /* the same setting as paths.state_db */
	if (!strcmp(key, "host_id"))
		return get_str(x, v, "host_id", &c->host_id);
	if (!strcmp(key, "lease"))
		return get_seconds(x, v, "lease", 5, 3600, &c->lease);
	if (!strcmp(key, "unknown_branch")) {
		const char *s = rm_yaml_scalar(v);

		if (s && !strcmp(s, "skip"))
			c->unknown_branch = RM_UNKNOWN_BRANCH_SKIP;
		else if (s && !strcmp(s, "hold"))
			c->unknown_branch = RM_UNKNOWN_BRANCH_HOLD;
		else if (s && !strcmp(s, "fail"))
			c->unknown_branch = RM_UNKNOWN_BRANCH_FAIL;
		else
			return fail(x, v, "unknown_branch", "expected skip, hold or fail");
		return 0;
	}
	if (!strcmp(key, "include"))
		return 0; /* read first, by load_file */
	if (!strcmp(key, "listen"))
		return load_listen(x, c, v);
	return unknown(x, k, "", key);
}

/* ------------------------------------------------------------ API */

#define CONFIG_MAX_INCLUDE 4

static int load_file(struct rm_config *c, const char *file, int depth, struct rm_error *err);

/* `include: FILE` or a list of files, relative to the including file. */
static int load_includes(struct ctx *x, struct rm_config *c, int depth)
{
	yaml_node_t *root = rm_yaml_root(x->y);
	yaml_node_pair_t *p;

	if (!root || root->type != YAML_MAPPING_NODE)
		return 0;
	for (p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
		const char *key = rm_yaml_scalar(rm_yaml_node(x->y, p->key));
		yaml_node_t *v = rm_yaml_node(x->y, p->value);
		struct rm_strlist files = { NULL, 0 };
		size_t i;

		if (!key || strcmp(key, "include"))
			continue;
		if (depth >= CONFIG_MAX_INCLUDE)
			return fail(x, v, "include", "includes nested too deep (an include loop?)");
		if (get_list(x, v, "include", &files)) {
			free_list(&files);
			return -1;
		}
		for (i = 0; i < files.n; i++) {
			const char *slash = strrchr(x->y->file, '/');
			char *path;
			int rc;

			if (files.v[i][0] == '/' || !slash) {
				path = rm_xstrdup(files.v[i]);
			} else {
				char *dir = rm_xstrndup(x->y->file, (size_t)(slash - x->y->file));

				path = rm_path_join(dir, files.v[i]);
				free(dir);
			}
			rc = load_file(c, path, depth + 1, x->err);
			if (rc)
				rm_error_prefix(x->err, "'%s' line %d: 'include'", x->y->file, rm_yaml_line(v));
			free(path);
			if (rc) {
				free_list(&files);
				return -1;
			}
		}
		free_list(&files);
	}
	return 0;
}

static int load_file(struct rm_config *c, const char *file, int depth, struct rm_error *err)
{
	struct rm_yaml y;
	struct ctx x;
	char *buf;
	size_t len;
	int rc;

	if (rm_read_file(file, CONFIG_MAX_FILE, &buf, &len, err)) {
		err->kind = RM_ERR_CONFIG;
		return -1;
	}
	rc = rm_yaml_load(&y, file, buf, len, err);
	free(buf);
	if (rc) {
		err->kind = RM_ERR_CONFIG;
		return -1;
	}
	x.y = &y;
	x.err = err;
	x.c = c;
	rc = load_includes(&x, c, depth);
	if (!rc && rm_yaml_root(&y))
		rc = each_key(&x, rm_yaml_root(&y), "(top)", c, top_key);
	rm_yaml_free(&y);
	return rc;
}

int rm_config_load(struct rm_config *c, const char *file, struct rm_error *err)
{
	memset(c, 0, sizeof(*c));
	defaults(c);
	if (file) {
		if (load_file(c, file, 0, err)) {
			rm_config_free(c);
			return -1;
		}
		c->file = rm_xstrdup(file);
	}
	if (!c->msgid_domain && c->robot_address)
		set_str(&c->msgid_domain, strrchr(c->robot_address, '@') + 1);
	return 0;
}

int rm_config_check_identity(const struct rm_config *c, struct rm_error *err)
{
	const char *f = c->file ? c->file : "(no configuration file)";

	if (!c->robot_name || !*c->robot_name)
		return rm_error_set(err, RM_ERR_CONFIG,
				    "'%s': 'robot.name' is required: the From display name of every report "
				    "(e.g. 'Example CI robot'); robotmail has no built-in identity "
				    "(config/profiles/0day.yaml holds the 0-day robot's layout)", f);
	if (!c->robot_address)
		return rm_error_set(err, RM_ERR_CONFIG,
				    "'%s': 'robot.address' is required: the From and MAIL FROM address of every "
				    "report (e.g. robot@example.org); robotmail has no built-in identity", f);
	return 0;
}

void rm_config_free(struct rm_config *c)
{
	size_t i;

	free(c->file);
	free(c->robot_name);
	free(c->robot_address);
	free(c->msgid_local);
	free(c->msgid_domain);
	free(c->timezone);
	free(c->disclaimer);
	free(c->signature);
	free(c->lore_base);
	free(c->status_base);
	free(c->archive_base);
	free(c->patch_link_base);
	free(c->patch_branches);
	free(c->patch_mail_base);
	free(c->state_db);
	free(c->host_id);
	free(c->metrics);
	free(c->metrics_file);
	free(c->programs);
	free(c->templates);
	free_list(&c->cc);
	free(c->inbox);
	free(c->done_dir);
	free(c->failed_dir);
	free(c->transport);
	free(c->ca_file);
	free(c->smtp_user);
	free(c->password_file);
	free(c->password_env);
	free(c->helo);
	free(c->emergency_stop);
	free_list(&c->hold);
	free_list(&c->inbox_links);
	free_list(&c->cap_lists);
	free(c->cap_values);
	free(c->charset);
	free(c->pi_config);
	free(c->pi_address);
	free_list(&c->cc_trailers);
	free_list(&c->where_keys);
	free_list(&c->where_at);
	for (i = 0; i < c->nrules; i++) {
		free(c->rules[i].on);
		free(c->rules[i].pattern);
		free_list(&c->rules[i].cc);
	}
	free(c->rules);
	free(c->maintainers);
	free(c->opt_out);
	for (i = 0; i < c->nlisten; i++) {
		free(c->listen[i].source);
		free(c->listen[i].user);
		free(c->listen[i].password_file);
		free(c->listen[i].ca_file);
	}
	free(c->listen);
	free_list(&c->listen_maintainers);
	free_list(&c->listen_lists);
	for (i = 0; i < c->ntrees; i++)
		free_tree(&c->trees[i]);
	free(c->trees);
	memset(c, 0, sizeof(*c));
}

const struct rm_tree_cfg *rm_config_tree(const struct rm_config *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->ntrees; i++)
		if (!strcmp(c->trees[i].name, name))
			return &c->trees[i];
	return NULL;
}

const struct rm_tree_cfg *rm_config_tree_for_branch(const struct rm_config *c,
						    const char *branch)
{
	const char *slash;
	size_t n, i, j;

	if (!branch)
		return NULL;
	slash = strchr(branch, '/');
	n = slash ? (size_t)(slash - branch) : strlen(branch);
	for (i = 0; i < c->ntrees; i++) {
		const struct rm_tree_cfg *t = &c->trees[i];

		if (strlen(t->name) == n && !strncmp(t->name, branch, n) &&
		    (!slash || !strcmp(slash + 1, t->branch)))
			return t;
		for (j = 0; j < t->aliases.n; j++)
			if (!strcmp(t->aliases.v[j], branch))
				return t;
	}
	/* a tree by name alone when the branch differs */
	for (i = 0; i < c->ntrees; i++)
		if (strlen(c->trees[i].name) == n && !strncmp(c->trees[i].name, branch, n))
			return &c->trees[i];
	return NULL;
}

const char *rm_config_where(const struct rm_config *c, const char *key)
{
	size_t i;

	for (i = 0; i < c->where_keys.n; i++)
		if (!strcmp(c->where_keys.v[i], key))
			return c->where_at.v[i];
	return "the built-in default";
}
