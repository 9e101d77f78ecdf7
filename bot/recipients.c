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

struct builder {
	struct rm_recipients *r;
	const struct rm_recipients_in *in;
	char **optout;        /* exact addresses */
	size_t noptout;
	pcre2_code **optre;   /* /regex/ lines */
	char **optre_text;
	size_t noptre;
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
	size_t i;

	for (i = 0; i < b->noptout; i++)
		if (!strcasecmp(b->optout[i], addr))
			return "on the opt-out list";
	for (i = 0; i < b->noptre; i++)
		if (pcre2_match(b->optre[i], (PCRE2_SPTR)addr, strlen(addr), 0, 0, b->md, NULL) >= 0)
			return b->optre_text[i];
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

static int load_optout(struct builder *b, const char *file, struct rm_error *err)
{
	char *buf, *line, *save = NULL;
	size_t len;

	if (!file)
		return 0;
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
			re = pcre2_compile((PCRE2_SPTR)(t + 1), PCRE2_ZERO_TERMINATED,
					   PCRE2_CASELESS | PCRE2_UTF, &ec, &eo, NULL);
			if (!re) {
				rm_error_set(err, RM_ERR_CONFIG, "'%s': bad pattern '%s'", file, t + 1);
				free(t);
				free(buf);
				return -1;
			}
			b->optre = rm_xrealloc(b->optre, (b->noptre + 1) * sizeof(*b->optre));
			b->optre_text = rm_xrealloc(b->optre_text, (b->noptre + 1) * sizeof(char *));
			b->optre[b->noptre] = re;
			b->optre_text[b->noptre] = rm_xstrdup(t + 1);
			b->noptre++;
			free(t);
			continue;
		}
		b->optout = rm_xrealloc(b->optout, (b->noptout + 1) * sizeof(char *));
		b->optout[b->noptout++] = t;
	}
	free(buf);
	return 0;
}

static bool re_any(pcre2_code *re, pcre2_match_data *md, const char *s)
{
	return s && pcre2_match(re, (PCRE2_SPTR)s, strlen(s), 0, 0, md, NULL) >= 0;
}

static void apply_rules(struct builder *b)
{
	const struct rm_config *cfg = b->in->cfg;
	const struct rm_commit_facts *h = b->in->head;
	size_t i, k;

	for (i = 0; i < cfg->nrules; i++) {
		const struct rm_rcpt_rule *rule = &cfg->rules[i];
		int ec;
		PCRE2_SIZE eo;
		pcre2_code *re = pcre2_compile((PCRE2_SPTR)rule->pattern, PCRE2_ZERO_TERMINATED,
					       PCRE2_UTF, &ec, &eo, NULL);
		pcre2_match_data *md;
		bool hit = false;
		char src[64];

		if (!re)
			continue; /* checked when the configuration was loaded */
		md = pcre2_match_data_create_from_pattern(re, NULL);
		if (!strcmp(rule->on, "subject")) {
			hit = h && re_any(re, md, h->subject);
		} else if (!strcmp(rule->on, "testcase")) {
			hit = re_any(re, md, b->in->testcase);
		} else {
			for (k = 0; h && k < h->nfiles && !hit; k++)
				hit = re_any(re, md, h->files[k]);
		}
		pcre2_match_data_free(md);
		pcre2_code_free(re);
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

static int apply_maintainers(struct builder *b, struct rm_error *err)
{
	const struct rm_config *cfg = b->in->cfg;
	const struct rm_commit_facts *h = b->in->head;
	char *buf, *p;
	size_t len, added = 0;

	if (!cfg->maintainers || !h || !h->nfiles || !cfg->maintainers_cap)
		return 0;
	if (rm_read_file(cfg->maintainers, RCPT_MAX_FILE, &buf, &len, err))
		return -1;
	p = buf;
	while (*p && added < (size_t)cfg->maintainers_cap) {
		/* one section: lines up to a blank line */
		char *end = strstr(p, "\n\n");
		char *sec = rm_xstrndup(p, end ? (size_t)(end - p) : strlen(p));
		char *line, *save = NULL;
		char **who = NULL;
		size_t nwho = 0, k;
		bool match = false, excluded = false;

		for (line = strtok_r(sec, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			const char *v = line + 2;

			if (strlen(line) < 3 || line[1] != ':')
				continue;
			while (*v == ' ' || *v == '\t')
				v++;
			for (k = 0; k < h->nfiles; k++) {
				if (line[0] == 'F' && maint_match(v, h->files[k]))
					match = true;
				if (line[0] == 'X' && maint_match(v, h->files[k]))
					excluded = true;
				if (line[0] == 'N') {
					int ec;
					PCRE2_SIZE eo;
					pcre2_code *re = pcre2_compile((PCRE2_SPTR)v, PCRE2_ZERO_TERMINATED,
								       0, &ec, &eo, NULL);

					if (re) {
						pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);

						match |= re_any(re, md, h->files[k]);
						pcre2_match_data_free(md);
						pcre2_code_free(re);
					}
				}
			}
			if (line[0] == 'M' || line[0] == 'R' || line[0] == 'L') {
				who = rm_xrealloc(who, (nwho + 1) * sizeof(char *));
				who[nwho++] = rm_xstrdup(v);
			}
		}
		for (k = 0; k < nwho; k++) {
			if (match && !excluded && added < (size_t)cfg->maintainers_cap) {
				size_t before = b->r->ncc;

				add(b, false, who[k], "MAINTAINERS", false);
				added += b->r->ncc > before;
			}
			free(who[k]);
		}
		free(who);
		free(sec);
		if (!end)
			break;
		p = end + 2;
	}
	free(buf);
	return 0;
}

int rm_recipients_build(struct rm_recipients *r, const struct rm_recipients_in *in,
			struct rm_error *err)
{
	const struct rm_config *cfg = in->cfg;
	const struct rm_tree_cfg *tree = in->tree;
	const struct rm_commit_facts *head = in->head;
	struct builder b;
	size_t i, k;
	int rc = 0;

	memset(r, 0, sizeof(*r));
	memset(&b, 0, sizeof(b));
	b.r = r;
	b.in = in;
	b.md = pcre2_match_data_create(4, NULL);
	if (in->override) {
		add(&b, true, in->override, "--to", false);
		goto out;
	}
	if (load_optout(&b, cfg->opt_out, err)) {
		rc = -1;
		goto out;
	}
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
	for (i = 0; i < b.noptout; i++)
		free(b.optout[i]);
	free(b.optout);
	for (i = 0; i < b.noptre; i++) {
		pcre2_code_free(b.optre[i]);
		free(b.optre_text[i]);
	}
	free(b.optre);
	free(b.optre_text);
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
