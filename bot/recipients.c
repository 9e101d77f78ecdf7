/* recipients.c - see recipients.h. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "recipients.h"

#include <ctype.h>
#include <fnmatch.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fileutil.h"
#include "strbuf.h"
#include "text.h"

#define RCPT_MAX_FILE (8u << 20)

/* Record one address left out: "<what>: <why>", with control characters
 * shown as escapes so that a hostile fact stays one log line.  `invalid`
 * also lists it in r->invalid (a fact that failed the address rule). */
static void drop(struct rm_recipients *r, const char *what, const char *why, bool invalid)
{
	struct rm_sb sb = RM_SB_INIT;
	char *shown = rm_text_escaped(what ? what : "(none)", 200);
	char *line;

	rm_sb_init(&sb);
	rm_sb_addf(&sb, "%s: %s", shown, why);
	free(shown);
	line = rm_sb_detach(&sb, NULL);
	if (invalid) {
		r->invalid = rm_xrealloc(r->invalid, (r->ninvalid + 1) * sizeof(char *));
		r->invalid[r->ninvalid++] = rm_xstrdup(line);
	}
	r->dropped = rm_xrealloc(r->dropped, (r->ndropped + 1) * sizeof(char *));
	r->dropped[r->ndropped++] = line;
}

static char *trim(const char *s, size_t n)
{
	while (n && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return rm_xstrndup(s, n);
}

/* A section of the MAINTAINERS file, parsed once per context: its lines
 * "K: value" in file order, an N: line's pattern compiled (NULL when it
 * does not compile: such a line matches nothing, as before). */
struct maint_line {
	char key;
	char *value;
	pcre2_code *re;
};

struct rm_recipients_section {
	struct maint_line *v;
	size_t n;
};

struct builder {
	struct rm_recipients *r;
	const struct rm_recipients_in *in;
	struct rm_recipients_ctx *ctx;
	pcre2_match_data *md;
};

static bool seen(const struct rm_recipients *r, const char *addr)
{
	size_t i;

	for (i = 0; i < r->nto; i++)
		if (!strcasecmp(r->to[i].addr, addr))
			return true;
	for (i = 0; i < r->ncc; i++)
		if (!strcasecmp(r->cc[i].addr, addr))
			return true;
	return false;
}

static const char *opted_out(struct builder *b, const char *addr)
{
	const struct rm_recipients_ctx *c = b->ctx;
	size_t i;

	for (i = 0; i < c->noptout; i++)
		if (!strcasecmp(c->optout[i], addr))
			return "on the opt-out list";
	for (i = 0; i < c->noptre; i++)
		if (pcre2_match(c->optre[i], (PCRE2_SPTR)addr, strlen(addr), 0, 0, b->md, NULL) >= 0)
			return c->optre_text[i];
	return NULL;
}

/* Where a fact came from, for the reasons: "(from Cc) in commit <sha>". */
static void reason(char *buf, size_t len, const struct builder *b, const char *kind,
		   const char *source, bool fact, const char *detail)
{
	const struct rm_commit_facts *h = b->in->head;

	snprintf(buf, len, "%s (from %s)%s%s%s%s", kind, source,
		 fact && h && h->sha ? " in commit " : "", fact && h && h->sha ? h->sha : "",
		 detail ? ": " : "", detail ? detail : "");
}

/* Add one address: `a` is taken over (freed unless kept). */
static void add_address(struct builder *b, bool to, struct rm_address *a, const char *source)
{
	struct rm_recipients *r = b->r;
	const char *why;
	struct rm_address **list = to ? &r->to : &r->cc;
	size_t *n = to ? &r->nto : &r->ncc;

	if (seen(r, a->addr)) {
		/* a duplicate, in any case: the first keeps its place */
	} else if ((why = opted_out(b, a->addr))) {
		char text[300];

		snprintf(text, sizeof(text), "opted out (%s; from %s)", why, source);
		drop(r, a->addr, text, false);
	} else {
		*list = rm_xrealloc(*list, (*n + 1) * sizeof(**list));
		(*list)[(*n)++] = *a;
		return;
	}
	rm_address_free(a);
}

/* Add one mailbox written as people do ("Name <addr>" ...); `source` names
 * where it came from for the reasons, `fact` says it is a commit fact (the
 * reason then names the commit).  A spec that fails the strict parser is
 * left out, never repaired. */
static void add(struct builder *b, bool to, const char *spec, const char *source, bool fact)
{
	struct rm_address a;
	struct rm_error e;
	bool bad_spec;

	if (!spec || !*spec)
		return;
	rm_error_clear(&e);
	if (rm_address_parse(&a, spec, &bad_spec, &e)) {
		/* "malformed" names the whole spec, "not a valid address" the
		 * address alone, as the parser cut it out: e.msg is "malformed:
		 * <why>" or "not a valid address '<addr>': <why>" (no why holds
		 * "': ", so the last one ends the address) */
		char text[600];

		if (bad_spec) {
			reason(text, sizeof(text), b, "malformed", source, fact, e.msg + 11);
			drop(b->r, spec, text, fact);
		} else {
			const char *q = strchr(e.msg, '\''), *qe = NULL, *p;
			char *addr;

			for (p = q; p && (p = strstr(p + 1, "': ")); )
				qe = p;
			addr = q && qe ? rm_xstrndup(q + 1, (size_t)(qe - q - 1)) : rm_xstrdup(spec);
			reason(text, sizeof(text), b, "not a valid address", source, fact,
			       qe ? qe + 3 : NULL);
			drop(b->r, addr, text, fact);
			free(addr);
		}
		return;
	}
	add_address(b, to, &a, source);
}

/* The commit author: the email from its own field (never parsed out of a
 * "Name <addr>" string), the name only as display text. */
static void add_author(struct builder *b, const struct rm_person *who)
{
	struct rm_address a;
	struct rm_error e;

	rm_error_clear(&e);
	if (rm_address_make(&a, who->name, who->email, &e)) {
		const char *detail = strstr(e.msg, ": ");
		char text[600];

		reason(text, sizeof(text), b, "not a valid address", "the commit author's email", true,
		       detail ? detail + 2 : NULL);
		drop(b->r, who->email, text, true);
		return;
	}
	add_address(b, true, &a, "the commit author");
}

static void optout_free(struct rm_recipients_ctx *c)
{
	size_t i;

	for (i = 0; i < c->noptout; i++)
		free(c->optout[i]);
	free(c->optout);
	for (i = 0; i < c->noptre; i++) {
		pcre2_code_free(c->optre[i]);
		free(c->optre_text[i]);
	}
	free(c->optre);
	free(c->optre_text);
	c->optout = NULL;
	c->optre = NULL;
	c->optre_text = NULL;
	c->noptout = c->noptre = 0;
}

/* Read and compile the opt-out file into c, the first time it is needed;
 * a failure leaves c without it (the next report tries again and fails the
 * same way, as when every report read the file). */
static int load_optout(struct rm_recipients_ctx *c, const char *file, struct rm_error *err)
{
	char *buf, *line, *save = NULL;
	size_t len;

	if (!file || c->optout_loaded)
		return 0;
	c->reads++;
	if (rm_read_file(file, RCPT_MAX_FILE, &buf, &len, err))
		return -1;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *t = trim(line, strlen(line));
		size_t l = strlen(t);

		if (!l || t[0] == '#') {
			free(t);
			continue;
		}
		if (l > 2 && t[0] == '/' && t[l - 1] == '/') {
			int ec;
			PCRE2_SIZE eo;
			pcre2_code *re;

			t[l - 1] = '\0';
			c->compiled++;
			re = pcre2_compile((PCRE2_SPTR)(t + 1), PCRE2_ZERO_TERMINATED,
					   PCRE2_CASELESS | PCRE2_UTF, &ec, &eo, NULL);
			if (!re) {
				rm_error_set(err, RM_ERR_CONFIG, "'%s': bad pattern '%s'", file, t + 1);
				free(t);
				free(buf);
				optout_free(c);
				return -1;
			}
			c->optre = rm_xrealloc(c->optre, (c->noptre + 1) * sizeof(*c->optre));
			c->optre_text = rm_xrealloc(c->optre_text, (c->noptre + 1) * sizeof(char *));
			c->optre[c->noptre] = re;
			c->optre_text[c->noptre] = rm_xstrdup(t + 1);
			c->noptre++;
			free(t);
			continue;
		}
		c->optout = rm_xrealloc(c->optout, (c->noptout + 1) * sizeof(char *));
		c->optout[c->noptout++] = t;
	}
	free(buf);
	c->optout_loaded = true;
	return 0;
}

static bool re_any(pcre2_code *re, pcre2_match_data *md, const char *s)
{
	return s && pcre2_match(re, (PCRE2_SPTR)s, strlen(s), 0, 0, md, NULL) >= 0;
}

static void apply_rules(struct builder *b)
{
	const struct rm_config *cfg = b->ctx->cfg;
	const struct rm_commit_facts *h = b->in->head;
	size_t i, k;

	for (i = 0; i < cfg->nrules; i++) {
		const struct rm_rcpt_rule *rule = &cfg->rules[i];
		pcre2_code *re = b->ctx->rules[i];
		pcre2_match_data *md = b->ctx->rules_md[i];
		bool hit = false;
		char src[64];

		if (!re)
			continue; /* checked when the configuration was loaded */
		if (!strcmp(rule->on, "subject")) {
			hit = h && re_any(re, md, h->subject);
		} else if (!strcmp(rule->on, "testcase")) {
			hit = re_any(re, md, b->in->testcase);
		} else {
			for (k = 0; h && k < h->nfiles && !hit; k++)
				hit = re_any(re, md, h->files[k]);
		}
		snprintf(src, sizeof(src), "rule at line %d", rule->line);
		for (k = 0; hit && k < rule->cc.n; k++)
			add(b, false, rule->cc.v[k], src, false);
	}
}

/* MAINTAINERS: does pattern `pat` (F:/X:) cover path? */
static bool maint_match(const char *pat, const char *path)
{
	size_t l = strlen(pat);

	if (l && pat[l - 1] == '/')
		return !strncmp(path, pat, l); /* a directory and everything below */
	if (!fnmatch(pat, path, FNM_PATHNAME))
		return true;
	return !strcmp(pat, path);
}

static void maintainers_free(struct rm_recipients_ctx *c)
{
	size_t i, k;

	for (i = 0; i < c->nmaint; i++) {
		for (k = 0; k < c->maint[i].n; k++) {
			free(c->maint[i].v[k].value);
			pcre2_code_free(c->maint[i].v[k].re);
		}
		free(c->maint[i].v);
	}
	free(c->maint);
	c->maint = NULL;
	c->nmaint = 0;
}

/* Read and parse the MAINTAINERS file into c, the first time it is
 * needed: sections are the text up to a blank line, lines shorter than 3
 * or without ':' second are skipped, an N: pattern is compiled here.  A
 * failure leaves c without it (the next report tries again). */
static int load_maintainers(struct rm_recipients_ctx *c, const char *file, struct rm_error *err)
{
	char *buf, *p;
	size_t len;

	if (c->maint_loaded)
		return 0;
	c->reads++;
	if (rm_read_file(file, RCPT_MAX_FILE, &buf, &len, err))
		return -1;
	p = buf;
	while (*p) {
		char *end = strstr(p, "\n\n");
		char *sec = rm_xstrndup(p, end ? (size_t)(end - p) : strlen(p));
		char *line, *save = NULL;
		struct rm_recipients_section ms = { NULL, 0 };

		for (line = strtok_r(sec, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			const char *v = line + 2;
			struct maint_line ml = { 0, NULL, NULL };

			if (strlen(line) < 3 || line[1] != ':')
				continue;
			while (*v == ' ' || *v == '\t')
				v++;
			ml.key = line[0];
			ml.value = rm_xstrdup(v);
			if (ml.key == 'N') {
				int ec;
				PCRE2_SIZE eo;

				c->compiled++;
				ml.re = pcre2_compile((PCRE2_SPTR)v, PCRE2_ZERO_TERMINATED, 0, &ec, &eo,
						      NULL);
			}
			ms.v = rm_xrealloc(ms.v, (ms.n + 1) * sizeof(*ms.v));
			ms.v[ms.n++] = ml;
		}
		free(sec);
		c->maint = rm_xrealloc(c->maint, (c->nmaint + 1) * sizeof(*c->maint));
		c->maint[c->nmaint++] = ms;
		if (!end)
			break;
		p = end + 2;
	}
	free(buf);
	c->maint_loaded = true;
	return 0;
}

static int apply_maintainers(struct builder *b, struct rm_error *err)
{
	const struct rm_config *cfg = b->ctx->cfg;
	const struct rm_commit_facts *h = b->in->head;
	size_t s, added = 0;

	if (!cfg->maintainers || !h || !h->nfiles || !cfg->maintainers_cap)
		return 0;
	if (load_maintainers(b->ctx, cfg->maintainers, err))
		return -1;
	for (s = 0; s < b->ctx->nmaint && added < (size_t)cfg->maintainers_cap; s++) {
		const struct rm_recipients_section *ms = &b->ctx->maint[s];
		bool match = false, excluded = false;
		size_t i, k;

		for (i = 0; i < ms->n; i++) {
			const struct maint_line *l = &ms->v[i];

			for (k = 0; k < h->nfiles; k++) {
				if (l->key == 'F' && maint_match(l->value, h->files[k]))
					match = true;
				if (l->key == 'X' && maint_match(l->value, h->files[k]))
					excluded = true;
				if (l->key == 'N' && l->re)
					match |= re_any(l->re, b->md, h->files[k]);
			}
		}
		for (i = 0; i < ms->n; i++) {
			const struct maint_line *l = &ms->v[i];

			if ((l->key == 'M' || l->key == 'R' || l->key == 'L') && match && !excluded &&
			    added < (size_t)cfg->maintainers_cap) {
				size_t before = b->r->ncc;

				add(b, false, l->value, "MAINTAINERS", false);
				added += b->r->ncc > before;
			}
		}
	}
	return 0;
}

void rm_recipients_ctx_open(struct rm_recipients_ctx *ctx, const struct rm_config *cfg)
{
	size_t i;

	memset(ctx, 0, sizeof(*ctx));
	ctx->cfg = cfg;
	ctx->rules = rm_xcalloc(cfg->nrules + 1, sizeof(*ctx->rules));
	ctx->rules_md = rm_xcalloc(cfg->nrules + 1, sizeof(*ctx->rules_md));
	for (i = 0; i < cfg->nrules; i++) {
		int ec;
		PCRE2_SIZE eo;

		ctx->compiled++;
		ctx->rules[i] = pcre2_compile((PCRE2_SPTR)cfg->rules[i].pattern,
					      PCRE2_ZERO_TERMINATED, PCRE2_UTF, &ec, &eo, NULL);
		if (ctx->rules[i])
			ctx->rules_md[i] = pcre2_match_data_create_from_pattern(ctx->rules[i], NULL);
	}
}

void rm_recipients_ctx_close(struct rm_recipients_ctx *ctx)
{
	size_t i;

	if (!ctx->cfg)
		return;
	for (i = 0; i < ctx->cfg->nrules; i++) {
		pcre2_match_data_free(ctx->rules_md[i]);
		pcre2_code_free(ctx->rules[i]);
	}
	free(ctx->rules);
	free(ctx->rules_md);
	optout_free(ctx);
	maintainers_free(ctx);
	memset(ctx, 0, sizeof(*ctx));
}

int rm_recipients_build(struct rm_recipients *r, const struct rm_recipients_in *in,
			struct rm_error *err)
{
	const struct rm_config *cfg = in->cfg;
	const struct rm_tree_cfg *tree = in->tree;
	const struct rm_commit_facts *head = in->head;
	struct builder b;
	struct rm_recipients_ctx own;
	size_t i, k;
	int rc = 0;

	memset(r, 0, sizeof(*r));
	memset(&b, 0, sizeof(b));
	memset(&own, 0, sizeof(own));
	b.r = r;
	b.in = in;
	if (in->ctx) {
		b.ctx = in->ctx;
	} else {
		rm_recipients_ctx_open(&own, cfg);
		b.ctx = &own;
	}
	b.md = pcre2_match_data_create(4, NULL);
	if (in->override) {
		add(&b, true, in->override, "--to", false);
		goto out;
	}
	if (load_optout(b.ctx, cfg->opt_out, err)) {
		rc = -1;
		goto out;
	}
	/* a patch report goes to whoever sent the patch (the robot's reports
	 * name the sender first when the commit's author, the body's From:,
	 * is another address: tests/data 2421) */
	if (in->patch && in->patch->from)
		add(&b, true, in->patch->from, "the patch mail's From", true);
	if (head && head->author.email)
		add_author(&b, &head->author);
	for (i = 0; tree && i < tree->mail_to.n; i++)
		add(&b, r->nto == 0, tree->mail_to.v[i], "the tree's mail_to", false);
	for (i = 0; i < cfg->cc.n; i++)
		add(&b, false, cfg->cc.v[i], "robot.cc", false);
	for (i = 0; tree && i < tree->mail_cc.n; i++)
		add(&b, false, tree->mail_cc.v[i], "the tree's mail_cc", false);
	apply_rules(&b);
	if (apply_maintainers(&b, err)) {
		rc = -1;
		goto out;
	}
	for (i = 0; head && i < head->ntrailers; i++)
		for (k = 0; k < cfg->cc_trailers.n; k++)
			if (!strcasecmp(head->trailers[i].key, cfg->cc_trailers.v[k]))
				add(&b, false, head->trailers[i].value, head->trailers[i].key, true);
	for (i = 0; in->patch && i < in->patch->nto; i++)
		add(&b, false, in->patch->to[i], "the patch mail's To", true);
	for (i = 0; in->patch && i < in->patch->ncc; i++)
		add(&b, false, in->patch->cc[i], "the patch mail's Cc", true);
	/* the cap: drop from the end of Cc, keeping the robot's own copy */
	while (r->nto + r->ncc + (cfg->cc_self ? 1 : 0) > (size_t)cfg->max_recipients && r->ncc) {
		struct rm_address *last = &r->cc[--r->ncc];

		drop(r, last->addr, "over the recipient cap", false);
		free(last->addr);
		free(last->name);
	}
	if (cfg->cc_self)
		add(&b, false, cfg->robot_address, "robot.cc_self", false);
out:
	rm_recipients_ctx_close(&own);
	pcre2_match_data_free(b.md);
	return rc;
}

void rm_recipients_free(struct rm_recipients *r)
{
	size_t i;

	for (i = 0; i < r->nto; i++) {
		free(r->to[i].addr);
		free(r->to[i].name);
	}
	for (i = 0; i < r->ncc; i++) {
		free(r->cc[i].addr);
		free(r->cc[i].name);
	}
	for (i = 0; i < r->ndropped; i++)
		free(r->dropped[i]);
	for (i = 0; i < r->ninvalid; i++)
		free(r->invalid[i]);
	free(r->invalid);
	free(r->to);
	free(r->cc);
	free(r->dropped);
	memset(r, 0, sizeof(*r));
}

/* Remove from v[0..*n) the addresses opted out in the store. */
static int drop_optouts(struct rm_recipients *r, struct rm_address *v, size_t *n,
			struct rm_store *st, const char *tree, struct rm_error *err)
{
	size_t i, k = 0;

	for (i = 0; i < *n; i++) {
		bool out = false;

		if (rm_store_optout_check(st, v[i].addr, tree, &out, err)) {
			for (; i < *n; i++) /* keep the rest: the caller frees r */
				v[k++] = v[i];
			*n = k;
			return -1;
		}
		if (out) {
			drop(r, v[i].addr, "opted out by mail (#robotmail unsubscribe)", false);
			free(v[i].addr);
			free(v[i].name);
		} else {
			v[k++] = v[i];
		}
	}
	*n = k;
	return 0;
}

int rm_recipients_drop_optouts(struct rm_recipients *r, struct rm_store *st, const char *tree,
			       struct rm_error *err)
{
	if (!st)
		return 0;
	if (drop_optouts(r, r->to, &r->nto, st, tree, err) ||
	    drop_optouts(r, r->cc, &r->ncc, st, tree, err))
		return -1;
	if (!r->nto && r->ncc) { /* the first copy becomes the addressee */
		r->to = rm_xrealloc(r->to, sizeof(*r->to));
		r->to[0] = r->cc[0];
		r->nto = 1;
		memmove(r->cc, r->cc + 1, (r->ncc - 1) * sizeof(*r->cc));
		r->ncc--;
	}
	return 0;
}
