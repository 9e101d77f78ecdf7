/* listen.c - see listen.h: inbound mail, replies matched to findings, the
 * commands in them. */
#include "listen.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <poll.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dynlib_archive.h"
#include "dynlib_curl.h"
#include "dynlib_etpan.h"
#include "fileutil.h"
#include "message.h"
#include "report.h"
#include "strbuf.h"
#include "text.h"

/* ---------------------------------------------------------------- commands */

static char *trimmed(const char *s, size_t n)
{
	while (n && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return rm_xstrndup(s, n);
}

/* A Message-ID holds no blank, control character or angle bracket (a CR
 * inside a line is none of the line's ends). */
static bool msgid_chars(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s <= 0x20 || *s == 0x7f || *s == '<' || *s == '>')
			return false;
	return true;
}

/* One command line after "#robotmail". */
static void parse_one(const char *rest, struct rm_listen_cmd *c)
{
	static const struct {
		const char *word;
		enum rm_listen_cmd_kind kind;
		int arg; /* 0 none, 1 required, 2 optional */
	} words[] = {
		{ "invalid", RM_CMD_INVALID, 0 },	  { "fixed", RM_CMD_FIXED, 1 },
		{ "fix", RM_CMD_FIXED, 1 },		  { "dup", RM_CMD_DUP, 1 },
		{ "unsubscribe", RM_CMD_UNSUBSCRIBE, 2 }, { "undo", RM_CMD_UNDO, 0 },
	};
	const char *w = rest, *a;
	size_t wl = 0, i;
	char *arg;

	while (w[wl] && !isspace((unsigned char)w[wl]) && w[wl] != ':')
		wl++;
	a = w + wl;
	if (*a == ':')
		a++;
	arg = trimmed(a, strlen(a));
	c->kind = RM_CMD_BAD;
	if (!wl) {
		c->problem = rm_xstrdup("no command after #robotmail");
		free(arg);
		return;
	}
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strlen(words[i].word) == wl && !strncasecmp(w, words[i].word, wl))
			break;
	if (i == sizeof(words) / sizeof(words[0])) {
		c->problem = rm_xstrfmt("unknown command '%.*s'", (int)(wl > 40 ? 40 : wl), w);
		free(arg);
		return;
	}
	if (words[i].arg == 0 && *arg) {
		c->problem = rm_xstrfmt("'%s' takes nothing after it", words[i].word);
		free(arg);
		return;
	}
	if (words[i].arg == 1 && !*arg) {
		c->problem = rm_xstrfmt("'%s' needs %s", words[i].word,
					words[i].kind == RM_CMD_DUP ? "the Message-ID of the other report" :
								      "the fix's commit or subject");
		free(arg);
		return;
	}
	if (words[i].kind == RM_CMD_DUP) {
		size_t n = strlen(arg);
		char *id = arg[0] == '<' && n > 2 && arg[n - 1] == '>' ? rm_xstrndup(arg + 1, n - 2) :
									 rm_xstrdup(arg);

		free(arg);
		arg = id;
		if (!strchr(arg, '@') || !msgid_chars(arg)) {
			c->problem = rm_xstrfmt("'%.80s' is not a Message-ID", arg);
			free(arg);
			return;
		}
	}
	if (words[i].kind == RM_CMD_UNSUBSCRIBE && *arg && strcasecmp(arg, "all")) {
		c->problem = rm_xstrfmt("unsubscribe takes nothing (this tree) or 'all', not '%.40s'",
					arg);
		free(arg);
		return;
	}
	c->kind = words[i].kind;
	if (*arg)
		c->arg = arg;
	else
		free(arg);
}

void rm_listen_parse_commands(const char *body, struct rm_listen_cmd **out, size_t *n)
{
	static const char tag[] = "#robotmail";
	const char *p = body;

	*out = NULL;
	*n = 0;
	while (p && *p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);

		if (len >= sizeof(tag) - 1 && !strncasecmp(p, tag, sizeof(tag) - 1) &&
		    (len == sizeof(tag) - 1 || isspace((unsigned char)p[sizeof(tag) - 1]) ||
		     p[sizeof(tag) - 1] == ':')) {
			struct rm_listen_cmd *c;
			char *line = trimmed(p, len), *rest;

			*out = rm_xrealloc(*out, (*n + 1) * sizeof(**out));
			c = &(*out)[(*n)++];
			memset(c, 0, sizeof(*c));
			c->line = line;
			rest = line + sizeof(tag) - 1;
			while (*rest == ':' || isspace((unsigned char)*rest))
				rest++;
			if (*n > RM_LISTEN_MAX_COMMANDS) {
				c->kind = RM_CMD_BAD;
				c->problem = rm_xstrfmt("more than %d commands in one mail",
							RM_LISTEN_MAX_COMMANDS);
				break;
			}
			parse_one(rest, c);
		}
		p = eol ? eol + 1 : NULL;
	}
}

void rm_listen_cmds_free(struct rm_listen_cmd *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].line);
		free(v[i].arg);
		free(v[i].problem);
	}
	free(v);
}

/* ---------------------------------------------------------------- parsing a mail */

/* A copy of s that is valid UTF-8: every byte of no well-formed sequence
 * becomes '?' (what listen reads goes to the store, whose PostgreSQL text
 * refuses anything else, the log and the answer). */
static char *utf8_dup(const char *s)
{
	char *d = rm_xstrdup(s);

	rm_utf8_repair(d);
	return d;
}

static char *lower_dup(const char *s)
{
	char *d = utf8_dup(s), *q;

	for (q = d; *q; q++)
		*q = (char)tolower((unsigned char)*q);
	return d;
}

static void add_str(char ***v, size_t *n, const char *s)
{
	*v = rm_xrealloc(*v, (*n + 1) * sizeof(char *));
	(*v)[(*n)++] = utf8_dup(s);
}

static void add_mailboxes(struct rm_inmail *m, const struct mailimf_mailbox_list *l)
{
	clistiter *it;

	for (it = l ? clist_begin(l->mb_list) : NULL; it; it = clist_next(it)) {
		const struct mailimf_mailbox *mb = clist_content(it);

		if (mb && mb->mb_addr_spec) {
			char *a = lower_dup(mb->mb_addr_spec);

			m->rcpts = rm_xrealloc(m->rcpts, (m->nrcpts + 1) * sizeof(char *));
			m->rcpts[m->nrcpts++] = a;
		}
	}
}

static void add_addresses(struct rm_inmail *m, const struct mailimf_address_list *l)
{
	clistiter *it;

	for (it = l ? clist_begin(l->ad_list) : NULL; it; it = clist_next(it)) {
		const struct mailimf_address *a = clist_content(it);

		if (a->ad_type == MAILIMF_ADDRESS_MAILBOX) {
			const struct mailimf_mailbox *mb = a->ad_data.ad_mailbox;

			if (mb->mb_addr_spec) {
				m->rcpts = rm_xrealloc(m->rcpts, (m->nrcpts + 1) * sizeof(char *));
				m->rcpts[m->nrcpts++] = lower_dup(mb->mb_addr_spec);
			}
		} else if (a->ad_type == MAILIMF_ADDRESS_GROUP && a->ad_data.ad_group) {
			add_mailboxes(m, a->ad_data.ad_group->grp_mb_list);
		}
	}
}

/* An unstructured header's value, unfolded, its RFC 2047 encoded words
 * decoded when `words` (raw 8-bit bytes taken as UTF-8), as valid UTF-8
 * with no control character, trimmed. */
static char *header_value(const char *v, bool words)
{
	struct rm_sb sb = RM_SB_INIT;
	const char *p;
	char *dec = NULL, *s, *t;
	size_t idx = 0;

	rm_sb_init(&sb);
	for (p = v; *p; p++)
		if (*p != '\r' && *p != '\n')
			rm_sb_addc(&sb, *p);
	if (words && mailmime_encoded_phrase_parse("utf-8", sb.buf, sb.len, &idx, "utf-8", &dec) ==
			     MAILIMF_NO_ERROR &&
	    dec) {
		s = rm_xstrdup(dec);
		free(dec);
		rm_sb_release(&sb);
	} else {
		s = rm_sb_detach(&sb, NULL);
	}
	rm_utf8_repair(s);
	rm_text_scrub(s, ' ');
	t = trimmed(s, strlen(s));
	free(s);
	return t;
}

static void read_fields(struct rm_inmail *m, const struct mailimf_fields *f)
{
	clistiter *it;
	char **irt = NULL, **refs = NULL;
	size_t nirt = 0, nrefs = 0, i;

	for (it = f ? clist_begin(f->fld_list) : NULL; it; it = clist_next(it)) {
		const struct mailimf_field *fl = clist_content(it);
		clistiter *j;

		switch (fl->fld_type) {
		case MAILIMF_FIELD_MESSAGE_ID:
			if (!m->message_id && fl->fld_data.fld_message_id->mid_value)
				m->message_id = utf8_dup(fl->fld_data.fld_message_id->mid_value);
			break;
		case MAILIMF_FIELD_FROM:
			if (!m->from && fl->fld_data.fld_from->frm_mb_list) {
				j = clist_begin(fl->fld_data.fld_from->frm_mb_list->mb_list);
				if (j && ((struct mailimf_mailbox *)clist_content(j))->mb_addr_spec)
					m->from = lower_dup(
						((struct mailimf_mailbox *)clist_content(j))->mb_addr_spec);
			}
			break;
		case MAILIMF_FIELD_TO:
			add_addresses(m, fl->fld_data.fld_to->to_addr_list);
			break;
		case MAILIMF_FIELD_CC:
			add_addresses(m, fl->fld_data.fld_cc->cc_addr_list);
			break;
		case MAILIMF_FIELD_SUBJECT:
			if (!m->subject && fl->fld_data.fld_subject->sbj_value)
				m->subject = header_value(fl->fld_data.fld_subject->sbj_value, true);
			break;
		case MAILIMF_FIELD_IN_REPLY_TO:
			for (j = clist_begin(fl->fld_data.fld_in_reply_to->mid_list); j;
			     j = clist_next(j))
				add_str(&irt, &nirt, clist_content(j));
			break;
		case MAILIMF_FIELD_REFERENCES:
			for (j = clist_begin(fl->fld_data.fld_references->mid_list); j;
			     j = clist_next(j))
				add_str(&refs, &nrefs, clist_content(j));
			break;
		case MAILIMF_FIELD_OPTIONAL_FIELD: {
			const struct mailimf_optional_field *o = fl->fld_data.fld_optional_field;
			char **dst = !strcasecmp(o->fld_name, "Auto-Submitted") ? &m->auto_submitted :
				     !strcasecmp(o->fld_name, "Precedence")     ? &m->precedence :
				     !strcasecmp(o->fld_name, "List-Id")        ? &m->list_id :
										  NULL;

			if (dst && !*dst && o->fld_value)
				*dst = header_value(o->fld_value, false);
			break;
		}
		default:
			break;
		}
	}
	/* the nearest first: In-Reply-To, then References from the end */
	for (i = 0; i < nirt; i++)
		m->refs = rm_xrealloc(m->refs, (m->nrefs + 1) * sizeof(char *)),
		m->refs[m->nrefs++] = irt[i];
	for (i = nrefs; i-- > 0;)
		m->refs = rm_xrealloc(m->refs, (m->nrefs + 1) * sizeof(char *)),
		m->refs[m->nrefs++] = refs[i];
	free(irt);
	free(refs);
}

static bool is_text_plain(const struct mailmime *mm)
{
	const struct mailmime_content *ct = mm->mm_content_type;

	if (!ct) /* no Content-Type: text/plain (RFC 2045) */
		return true;
	return ct->ct_type && ct->ct_type->tp_type == MAILMIME_TYPE_DISCRETE_TYPE &&
	       ct->ct_type->tp_data.tp_discrete_type &&
	       ct->ct_type->tp_data.tp_discrete_type->dt_type == MAILMIME_DISCRETE_TYPE_TEXT &&
	       ct->ct_subtype && !strcasecmp(ct->ct_subtype, "plain");
}

/* A text part's n bytes at p as UTF-8: converted from the charset its
 * Content-Type names (libetpan's charconv, iconv), or taken as UTF-8 (none
 * named, or one iconv does not know), then repaired (utf8_dup). */
static char *text_utf8(const struct mailmime *mm, const char *p, size_t n)
{
	const struct mailmime_content *ct = mm->mm_content_type;
	const char *cs = NULL;
	char *conv = NULL, *out;
	clistiter *it;

	for (it = ct && ct->ct_parameters ? clist_begin(ct->ct_parameters) : NULL; it;
	     it = clist_next(it)) {
		const struct mailmime_parameter *pa = clist_content(it);

		if (pa && pa->pa_name && pa->pa_value && !strcasecmp(pa->pa_name, "charset"))
			cs = pa->pa_value;
	}
	if (cs && strcasecmp(cs, "utf-8") && strcasecmp(cs, "us-ascii") &&
	    charconv("utf-8", cs, p, n, &conv) == MAIL_CHARCONV_NO_ERROR && conv) {
		out = rm_xstrdup(conv);
		free(conv);
	} else {
		out = rm_xstrndup(p, n);
	}
	rm_utf8_repair(out);
	return out;
}

/* The first text/plain part, decoded (its transfer encoding, its charset),
 * or NULL. */
static char *first_text(const struct mailmime *mm)
{
	clistiter *it;

	switch (mm->mm_type) {
	case MAILMIME_SINGLE: {
		const struct mailmime_data *d = mm->mm_data.mm_single;
		size_t idx = 0, dlen = 0;
		char *dec = NULL, *out;

		if (!d || !is_text_plain(mm) || d->dt_type != MAILMIME_DATA_TEXT)
			return NULL;
		if (!d->dt_encoded)
			return text_utf8(mm, d->dt_data.dt_text.dt_data, d->dt_data.dt_text.dt_length);
		{
			/* libetpan 1.9.4's quoted-printable decoder reads two
			 * bytes past a part that ends in '=' and one more byte
			 * (found by fuzz_listen_mail): it decodes a copy with
			 * NULs after it */
			size_t n = d->dt_data.dt_text.dt_length;
			char *padded = rm_xcalloc(n + 4, 1);
			int r;

			memcpy(padded, d->dt_data.dt_text.dt_data, n);
			r = mailmime_part_parse(padded, n, &idx, d->dt_encoding, &dec, &dlen);
			free(padded);
			if (r != MAILIMF_NO_ERROR)
				return NULL;
		}
		out = text_utf8(mm, dec, dlen);
		mailmime_decoded_part_free(dec);
		return out;
	}
	case MAILMIME_MULTIPLE:
		for (it = clist_begin(mm->mm_data.mm_multipart.mm_mp_list); it; it = clist_next(it)) {
			char *t = first_text(clist_content(it));

			if (t)
				return t;
		}
		return NULL;
	case MAILMIME_MESSAGE:
		return mm->mm_data.mm_message.mm_msg_mime ?
			       first_text(mm->mm_data.mm_message.mm_msg_mime) :
			       NULL;
	default:
		return NULL;
	}
}

int rm_listen_parse_mail(const char *bytes, size_t len, struct rm_inmail *m,
			 struct rm_error *err)
{
	struct mailmime *mm = NULL;
	size_t idx = 0;

	memset(m, 0, sizeof(*m));
	if (rm_dynlib_need(RM_LIB_ETPAN, err))
		return -1;
	if (mailmime_parse(bytes, len, &idx, &mm) != MAILIMF_NO_ERROR || !mm)
		return rm_error_set(err, RM_ERR_INPUT, "not a mail (cannot parse its headers)");
	if (mm->mm_type == MAILMIME_MESSAGE) {
		read_fields(m, mm->mm_data.mm_message.mm_fields);
		if (mm->mm_data.mm_message.mm_msg_mime)
			m->body = first_text(mm->mm_data.mm_message.mm_msg_mime);
	}
	mailmime_free(mm);
	if (!m->body)
		m->body = rm_xstrdup("");
	return 0;
}

void rm_inmail_free(struct rm_inmail *m)
{
	size_t i;

	free(m->message_id);
	free(m->from);
	free(m->subject);
	for (i = 0; i < m->nrefs; i++)
		free(m->refs[i]);
	free(m->refs);
	for (i = 0; i < m->nrcpts; i++)
		free(m->rcpts[i]);
	free(m->rcpts);
	free(m->auto_submitted);
	free(m->precedence);
	free(m->list_id);
	free(m->body);
	memset(m, 0, sizeof(*m));
}

void rm_listen_stats_print(const struct rm_listen_stats *stats, FILE *out)
{
	fprintf(out,
		"robotmail: listen: %d read, %d ignored, %d refused, %d command(s) applied, %d answer(s) queued",
		stats->read, stats->ignored, stats->refused, stats->applied, stats->answered);
	if (stats->oversize)
		fprintf(out, ", %d skipped (over the %u MiB cap of one mail)", stats->oversize,
			RM_LISTEN_MAX_MAIL >> 20);
	fputc('\n', out);
}

/* ---------------------------------------------------------------- rules */

/* The id of a List-Id ("Name <id>" or "id"), compared without case. */
static bool known_list(const char *list_id, const struct rm_strlist *lists)
{
	const char *lt = strrchr(list_id, '<'), *gt;
	size_t i, n;

	if (lt && (gt = strchr(lt, '>')) != NULL) {
		lt++;
		n = (size_t)(gt - lt);
	} else {
		lt = list_id;
		n = strlen(list_id);
	}
	for (i = 0; i < lists->n; i++) {
		const char *k = lists->v[i];
		size_t kn = strlen(k);

		if (kn > 2 && k[0] == '<' && k[kn - 1] == '>') {
			k++;
			kn -= 2;
		}
		if (kn == n && !strncasecmp(k, lt, n))
			return true;
	}
	return false;
}

const char *rm_listen_loop_reason(const struct rm_inmail *m, const struct rm_config *cfg)
{
	if (m->auto_submitted && strcasecmp(m->auto_submitted, "no"))
		return "an automatic mail (Auto-Submitted)";
	/* a list marks what it distributes "Precedence: bulk" or "list" (vger
	 * does): from a list in listen.lists that is no automatic mail */
	if (m->precedence &&
	    (!strcasecmp(m->precedence, "junk") ||
	     ((!strcasecmp(m->precedence, "bulk") || !strcasecmp(m->precedence, "list")) &&
	      !(m->list_id && known_list(m->list_id, &cfg->listen_lists)))))
		return "a bulk mail (Precedence)";
	if (m->list_id && !known_list(m->list_id, &cfg->listen_lists))
		return "a mail of a list not in listen.lists (List-Id)";
	if (!m->from)
		return "no sender (From)";
	if (cfg->robot_address && !strcasecmp(m->from, cfg->robot_address))
		return "a mail from the robot itself";
	return NULL;
}

/* ---------------------------------------------------------------- one mail */

struct pass {
	const struct rm_config *cfg;
	struct rm_store *st;
	time_t now;
	struct rm_listen_stats *stats;
	const char *source;
};

static void say(const char *id, const char *what)
{
	char *safe = rm_text_escaped(id, 200);

	fprintf(stderr, "robotmail: listen: <%s>: %s\n", safe, what);
	free(safe);
}

static bool in_list(const char *addr, char *const *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcasecmp(addr, v[i]))
			return true;
	return false;
}

/* The report this mail answers: the first of its references that is a
 * report in the outbox (a message with a thread key). 1 found, 0 none. */
static int find_report(struct pass *ps, const struct rm_inmail *m, struct rm_store_msg *rep,
		       struct rm_error *err)
{
	size_t i;

	for (i = 0; i < m->nrefs; i++) {
		int got;

		if (!strchr(m->refs[i], '@'))
			continue; /* not a Message-ID (the store would take "5" for the 5th message) */
		got = rm_store_get(ps->st, m->refs[i], rep, err);

		if (got < 0)
			return -1;
		if (got && rep->thread_key)
			return 1;
		rm_store_msg_free(rep);
	}
	return 0;
}

int rm_listen_answer_build(const struct rm_inmail *m, const struct rm_listen_cmd *c, size_t n,
			   const struct rm_listen_answer_from *from, const char *subject,
			   char **bytes, size_t *len, struct rm_error *err)
{
	struct rm_sb body = RM_SB_INIT;
	struct rm_message_in in;
	struct rm_address to = { NULL, m->from };
	const char **refs;
	size_t i, nrefs = 0;
	int rc;

	rm_sb_init(&body);
	rm_sb_adds(&body, "robotmail did not understand this in your mail:\n\n");
	for (i = 0; i < n; i++)
		if (c[i].kind == RM_CMD_BAD)
			rm_sb_addf(&body, "  %s\n    %s\n", c[i].line, c[i].problem);
	rm_sb_adds(&body,
		   "\nNothing else in it changed, unless this answer says so above.\n"
		   "The commands are, one per line at the start of a line:\n"
		   "  #robotmail invalid                  the report is a false positive\n"
		   "  #robotmail fixed: <commit or subject>\n"
		   "  #robotmail dup: <Message-ID of the other report>\n"
		   "  #robotmail unsubscribe              no more reports of this tree to you\n"
		   "  #robotmail unsubscribe: all         no more reports to you at all\n"
		   "  #robotmail undo                     take back the last change\n");
	/* References: the mail's chain oldest first, then the mail */
	refs = rm_xcalloc(m->nrefs + 1, sizeof(char *));
	for (i = m->nrefs; i-- > 1;) /* refs[0] is In-Reply-To, also the newest reference */
		refs[nrefs++] = m->refs[i];
	if (m->message_id)
		refs[nrefs++] = m->message_id;
	memset(&in, 0, sizeof(in));
	in.from_name = from->name;
	in.from_addr = from->address;
	in.to = &to;
	in.nto = 1;
	in.subject = subject;
	in.message_id = from->message_id;
	in.in_reply_to = m->message_id;
	in.references = refs;
	in.nreferences = nrefs;
	in.date = from->date;
	in.zone_seconds = from->zone_seconds;
	in.charset = "auto";
	in.auto_replied = true;
	in.body = body.buf;
	*bytes = NULL;
	*len = 0;
	rc = rm_message_build(&in, bytes, len, err);
	free(refs);
	rm_sb_release(&body);
	return rc;
}

/* Queue the in-thread answer naming the commands not understood.  `id` is
 * the mail's Message-ID or, for a mail without one, its id in the source
 * (then the answer has no In-Reply-To and References of the mail). */
static int answer(struct pass *ps, const struct rm_inmail *m, const char *id,
		  const struct rm_store_msg *rep, const struct rm_listen_cmd *c, size_t n,
		  struct rm_error *err)
{
	struct rm_sb key = RM_SB_INIT;
	struct rm_listen_answer_from from;
	struct rm_store_msg out;
	char *subject, *bytes = NULL, *mid, *rcpts[1];
	size_t len = 0;
	int rc;

	rm_sb_init(&key);
	rm_sb_addf(&key, "answer:%s", id);
	mid = rm_report_message_id(ps->cfg, key.buf, ps->now);
	subject = rm_xstrfmt("Re: %s", m->subject && !strncasecmp(m->subject, "Re: ", 4) ?
						  m->subject + 4 :
					  m->subject ? m->subject : rep->subject);
	from.name = ps->cfg->robot_name;
	from.address = ps->cfg->robot_address;
	from.message_id = mid;
	from.date = ps->now;
	from.zone_seconds = rm_report_zone_seconds(ps->cfg->timezone);
	rc = rm_listen_answer_build(m, c, n, &from, subject, &bytes, &len, err);
	if (!rc) {
		memset(&out, 0, sizeof(out));
		rcpts[0] = m->from;
		out.message_id = mid;
		out.dedupe_key = key.buf; /* one answer per mail, even after a crash */
		out.tree = rep->tree;
		out.subject = subject;
		out.mail_from = ps->cfg->robot_address;
		out.rcpts = rcpts;
		out.nrcpts = 1;
		out.bytes = bytes;
		out.len = len;
		out.state = RM_STORE_QUEUED;
		rc = rm_store_enqueue(ps->st, &out, ps->now, err) < 0 ? -1 : 0;
		if (!rc)
			ps->stats->answered++;
	} else {
		/* a sender address the message stage refuses: logged, not fatal */
		say(id, err->msg);
		rm_error_clear(err);
		rc = 0;
	}
	free(bytes);
	free(subject);
	free(mid);
	rm_sb_release(&key);
	return rc;
}

/* Apply the commands; *bad counts those not understood or not possible.
 * `id` names the mail (its Message-ID, or its id in the source). */
static int apply(struct pass *ps, const struct rm_inmail *m, const char *id,
		 const struct rm_store_msg *rep, struct rm_listen_cmd *c, size_t n, size_t *bad,
		 struct rm_error *err)
{
	size_t i;

	*bad = 0;
	for (i = 0; i < n; i++) {
		int rc = 0;
		char *what = NULL;

		switch (c[i].kind) {
		case RM_CMD_INVALID:
			rc = rm_store_finding_set(ps->st, rep->thread_key, rep->tree, RM_FINDING_INVALID,
						  NULL, c[i].line, m->from, id, ps->now, err);
			what = rm_xstrdup("finding marked invalid");
			break;
		case RM_CMD_FIXED:
			rc = rm_store_finding_set(ps->st, rep->thread_key, rep->tree, RM_FINDING_FIXED,
						  c[i].arg, c[i].line, m->from, id, ps->now, err);
			what = rm_xstrfmt("finding marked fixed by '%s'", c[i].arg);
			break;
		case RM_CMD_DUP:
			rc = rm_store_finding_set(ps->st, rep->thread_key, rep->tree, RM_FINDING_DUP,
						  c[i].arg, c[i].line, m->from, id, ps->now, err);
			what = rm_xstrfmt("finding marked a duplicate of <%s>", c[i].arg);
			break;
		case RM_CMD_UNSUBSCRIBE: {
			const char *scope = c[i].arg ? "*" : rep->tree ? rep->tree : "*";

			rc = rm_store_optout_add(ps->st, m->from, scope, id, ps->now, err);
			what = rm_xstrfmt("%s opted out of %s%s", m->from,
					  !strcmp(scope, "*") ? "every tree" : "tree ",
					  !strcmp(scope, "*") ? "" : scope);
			break;
		}
		case RM_CMD_UNDO:
			rc = rm_store_finding_undo(ps->st, rep->thread_key, c[i].line, m->from, id,
						   ps->now, err);
			if (rc == 0) {
				c[i].kind = RM_CMD_BAD;
				c[i].problem = rm_xstrdup("there is nothing to undo on this finding");
			} else {
				what = rm_xstrdup("the finding's last change taken back");
			}
			break;
		case RM_CMD_BAD:
			break;
		}
		if (rc < 0) {
			free(what);
			return -1;
		}
		if (c[i].kind == RM_CMD_BAD) {
			char *t = rm_xstrfmt("not understood: %s (%s)", c[i].line, c[i].problem);

			say(id, t);
			free(t);
			(*bad)++;
		} else {
			say(id, what);
			ps->stats->applied++;
		}
		free(what);
	}
	return 0;
}

/* Read, decide, act, remember: one mail.  `fallback_id` names a mail
 * without a Message-ID (its id in the source). */
static int handle(struct pass *ps, const char *bytes, size_t len, const char *fallback_id,
		  struct rm_error *err)
{
	struct rm_inmail m;
	struct rm_store_msg rep;
	struct rm_listen_cmd *cmds = NULL;
	struct rm_error pe;
	const char *why = NULL, *id;
	char *verdict = NULL;
	size_t ncmds = 0, bad = 0;
	bool seen;
	long count;
	int rc = -1, got;

	memset(&rep, 0, sizeof(rep));
	if (rm_listen_parse_mail(bytes, len, &m, &pe)) {
		memset(&m, 0, sizeof(m));
		why = "not a mail";
	}
	id = m.message_id ? m.message_id : fallback_id;
	if (rm_store_inbound_seen(ps->st, ps->source, id, &seen, err))
		goto out;
	if (seen) {
		rc = 0;
		goto out;
	}
	ps->stats->read++;
	if (!why)
		why = rm_listen_loop_reason(&m, ps->cfg);
	if (!why) {
		if (rm_store_inbound_count_since(ps->st, m.from, ps->now - 3600, &count, err))
			goto out;
		if (count >= ps->cfg->listen_rate)
			why = "over the per-sender limit (listen.rate_limit mails an hour)";
	}
	if (!why && m.subject && !strcasecmp(m.subject, "unsubscribe")) {
		/* the report's List-Unsubscribe: mailto:ROBOT?subject=unsubscribe;
		 * it opts out only the address it comes from */
		if (rm_store_optout_add(ps->st, m.from, "*", id, ps->now, err))
			goto out;
		ps->stats->applied++;
		verdict = rm_xstrfmt("%s opted out of every tree (List-Unsubscribe)", m.from);
		say(id, verdict);
		goto mark;
	}
	if (!why) {
		got = find_report(ps, &m, &rep, err);
		if (got < 0)
			goto out;
		if (!got)
			why = "not a reply to a report";
	}
	if (!why) {
		rm_listen_parse_commands(m.body, &cmds, &ncmds);
		if (!ncmds)
			why = "no #robotmail command";
	}
	if (why) {
		ps->stats->ignored++;
		verdict = rm_xstrfmt("ignored: %s", why);
		say(id, verdict);
	} else {
		struct rm_inmail r;
		struct rm_error re;
		bool allowed = in_list(m.from, ps->cfg->listen_maintainers.v,
				       ps->cfg->listen_maintainers.n);

		/* who received the report: its To and Cc, as sent */
		if (!allowed && !rm_listen_parse_mail(rep.bytes, rep.len, &r, &re)) {
			allowed = in_list(m.from, r.rcpts, r.nrcpts);
			rm_inmail_free(&r);
		}
		if (!allowed) {
			ps->stats->refused++;
			verdict = rm_xstrfmt("refused: %s did not receive the report and is not in"
					     " listen.maintainers", m.from);
			say(id, verdict);
		} else {
			if (apply(ps, &m, id, &rep, cmds, ncmds, &bad, err))
				goto out;
			if (bad && answer(ps, &m, id, &rep, cmds, ncmds, err))
				goto out;
			verdict = rm_xstrfmt("%zu command(s) applied, %zu not understood%s",
					     ncmds - bad, bad, bad ? " (answered)" : "");
		}
	}
mark:
	if (rm_store_inbound_mark(ps->st, ps->source, id, m.from, verdict, ps->now, err) < 0)
		goto out;
	rc = 0;
out:
	free(verdict);
	rm_listen_cmds_free(cmds, ncmds);
	rm_store_msg_free(&rep);
	rm_inmail_free(&m);
	return rc;
}

/* How many of the first n bytes of a mail (n at most RM_LISTEN_MAX_HEAD)
 * are its header: up to the empty line that ends it, or to the last whole
 * line when that is not in them. */
static size_t head_len(const char *p, size_t n)
{
	const char *nl;
	size_t i = 0, last = 0;

	while (i < n && (nl = memchr(p + i, '\n', n - i))) {
		i = (size_t)(nl - p) + 1;
		last = i;
		if (i < n && p[i] == '\n')
			return i + 1;
		if (i + 1 < n && p[i] == '\r' && p[i + 1] == '\n')
			return i + 2;
	}
	return last;
}

/* A mail over RM_LISTEN_MAX_MAIL, `size` bytes (`exact` false: at least
 * that many, the source did not say), skipped: only its header, in `head`
 * (hlen bytes: its first ones; at most RM_LISTEN_MAX_HEAD of them are
 * read), is parsed, to name it by its Message-ID (else by `fallback_id`,
 * its id in the source).  A mail not skipped before is counted, warned
 * about (naming the source, the mail, `where` it is and its size) and
 * remembered in the store as read with the verdict "skipped: ...", so the
 * next pass passes over it in silence.  0, or -1 with err (the store). */
static int skip_oversize(struct pass *ps, const char *head, size_t hlen, unsigned long long size,
			 bool exact, const char *fallback_id, const char *where,
			 struct rm_error *err)
{
	struct mailimf_message *msg = NULL;
	struct rm_inmail m;
	size_t idx = 0;
	const char *id;
	bool seen;
	int rc = -1;

	memset(&m, 0, sizeof(m));
	if (hlen > RM_LISTEN_MAX_HEAD)
		hlen = RM_LISTEN_MAX_HEAD;
	hlen = head ? head_len(head, hlen) : 0;
	if (hlen && mailimf_message_parse(head, hlen, &idx, &msg) == MAILIMF_NO_ERROR && msg)
		read_fields(&m, msg->msg_fields);
	if (msg)
		mailimf_message_free(msg);
	id = m.message_id ? m.message_id : fallback_id;
	if (rm_store_inbound_seen(ps->st, ps->source, id, &seen, err))
		goto out;
	if (!seen) {
		char *verdict = rm_xstrfmt("skipped: %s%llu bytes, over the %u MiB cap of one mail"
					   " (not parsed)", exact ? "" : "more than ", size,
					   RM_LISTEN_MAX_MAIL >> 20);
		char *sid = rm_text_escaped(id, 200), *swhere = rm_text_escaped(where, 300);
		int marked;

		ps->stats->oversize++;
		fprintf(stderr, "robotmail: listen: warning: '%s': <%s> (%s): %s\n", ps->source, sid,
			swhere, verdict);
		free(sid);
		free(swhere);
		marked = rm_store_inbound_mark(ps->st, ps->source, id, m.from, verdict, ps->now, err);
		free(verdict);
		if (marked < 0)
			goto out;
	}
	rc = 0;
out:
	rm_inmail_free(&m);
	return rc;
}

/* ---------------------------------------------------------------- sources */

/* The first bytes of the file at `path`, at most max, into out (reset
 * first); what could not be read is left out. */
static void read_head(const char *path, size_t max, struct rm_sb *out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	char buf[8192];
	ssize_t got;

	rm_sb_reset(out);
	if (fd < 0)
		return;
	while (out->len < max &&
	       (got = read(fd, buf, max - out->len < sizeof(buf) ? max - out->len : sizeof(buf))) > 0)
		rm_sb_add(out, buf, (size_t)got);
	close(fd);
}

static int cmp_msg(const void *a, const void *b)
{
	const struct maildir_msg *x = *(struct maildir_msg *const *)a;
	const struct maildir_msg *y = *(struct maildir_msg *const *)b;

	return strcmp(x->msg_uid, y->msg_uid);
}

/* A Maildir (new/ and cur/), through libetpan's maildir driver; it is only
 * read (flags are not changed): the store remembers what was read.  Mails
 * are taken in the order of their names (a delivery time first). */
static int read_maildir(struct pass *ps, const char *dir, struct rm_error *err)
{
	struct maildir *md;
	struct maildir_msg **v;
	struct stat sb;
	struct rm_sb head = RM_SB_INIT;
	char *sub = rm_path_join(dir, "cur");
	unsigned i, n;
	int rc = 0;

	if (stat(dir, &sb) || !S_ISDIR(sb.st_mode) || stat(sub, &sb) || !S_ISDIR(sb.st_mode)) {
		free(sub);
		return rm_error_set(err, RM_ERR_CONFIG, "listen.source '%s': not a Maildir (no cur/)",
				    ps->source);
	}
	free(sub);
	md = maildir_new(dir);
	if (!md)
		return rm_error_set(err, RM_ERR_TEMP, "listen.source '%s': cannot open", ps->source);
	if (maildir_update(md) != MAILDIR_NO_ERROR) {
		maildir_free(md);
		return rm_error_set(err, RM_ERR_TEMP, "listen.source '%s': cannot read", ps->source);
	}
	n = carray_count(md->mdir_msg_list);
	v = rm_xcalloc(n + 1, sizeof(*v));
	for (i = 0; i < n; i++)
		v[i] = carray_get(md->mdir_msg_list, i);
	rm_sort(v, n, sizeof(*v), cmp_msg);
	rm_sb_init(&head);
	for (i = 0; i < n && !rc; i++) {
		char *path = maildir_message_get(md, v[i]->msg_uid), *buf = NULL;
		size_t len = 0;
		struct rm_error fe;

		if (!path)
			continue; /* gone since the update: another reader took it */
		if (!stat(path, &sb) && S_ISREG(sb.st_mode) &&
		    (unsigned long long)sb.st_size > RM_LISTEN_MAX_MAIL) {
			char *where = rm_xstrfmt("Maildir file %s", v[i]->msg_uid);

			read_head(path, RM_LISTEN_MAX_HEAD, &head);
			rc = skip_oversize(ps, head.buf, head.len, (unsigned long long)sb.st_size, true,
					   v[i]->msg_uid, where, err);
			free(where);
		} else if (rm_read_file(path, RM_LISTEN_MAX_MAIL, &buf, &len, &fe)) {
			say(v[i]->msg_uid, fe.msg);
		} else {
			rc = handle(ps, buf, len, v[i]->msg_uid, err);
		}
		free(buf);
		free(path);
	}
	rm_sb_release(&head);
	free(v);
	maildir_free(md);
	return rc;
}

/* ---- IMAP (imaps://HOST:PORT/MAILBOX)
 *
 * Through libcurl's IMAP: TLS with the certificate verified (ca_file, or
 * the system's CAs), UID SEARCH and FETCH by UID; the mails are parsed by
 * libetpan like any other.  Each UID read is remembered in the store under
 * the mailbox's UIDVALIDITY ("uid:VALIDITY:UID"), so a UID is fetched once
 * and a recreated mailbox is read again (its mails are still deduplicated
 * by Message-ID).  libetpan's mailimap would do as well, but its TLS does
 * not verify the server's certificate; curl does. */

/* An answer kept in sb, up to max bytes: a larger one stops the transfer
 * (curl's write error) and sets `over`. */
struct capped {
	struct rm_sb *sb;
	size_t max;
	bool over;
};

static size_t capped_write(char *p, size_t size, size_t n, void *ctx)
{
	struct capped *c = ctx;

	if (c->sb->len + size * n > c->max) {
		c->over = true;
		return 0; /* too large: curl stops with a write error */
	}
	rm_sb_add(c->sb, p, size * n);
	return size * n;
}

/* One IMAP request: the URL, with `request` as a custom command or NULL
 * (a FETCH by the URL's UID); the answer (untagged lines, or the mail)
 * into out, at most max bytes.  An answer over max is an error, or with
 * `over` set 0 with *over true and out holding its first bytes (curl has
 * stopped the transfer and drops the connection: the next request makes a
 * new one). */
static int imap_do(const struct pass *ps, const struct rm_listen_src *src, const char *password,
		   CURL *c, const char *url, const char *request, struct rm_sb *out, size_t max,
		   bool *over, struct rm_error *err)
{
	char ebuf[CURL_ERROR_SIZE] = "";
	struct capped cap = { out, max, false };
	CURLcode rc;

	/* the same handle for every request of a pass: curl keeps the logged-in
	 * connection between them */
	curl_easy_reset(c);
	rm_sb_reset(out);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, ebuf);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, ps->cfg->connect_timeout > 0 ? ps->cfg->connect_timeout : 10L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 300L);
	curl_easy_setopt(c, CURLOPT_USE_SSL, (long)CURLUSESSL_ALL);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
	if (src->ca_file)
		curl_easy_setopt(c, CURLOPT_CAINFO, src->ca_file);
	if (src->user)
		curl_easy_setopt(c, CURLOPT_USERNAME, src->user);
	if (password)
		curl_easy_setopt(c, CURLOPT_PASSWORD, password);
	if (request)
		curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, request);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, capped_write);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &cap);
	rc = curl_easy_perform(c);
	if (over)
		*over = cap.over;
	if (rc == CURLE_WRITE_ERROR && cap.over && over)
		return 0;
	if (rc == CURLE_WRITE_ERROR && cap.over)
		return rm_error_set(err, RM_ERR_TEMP, "listen.source '%s': the answer to %s is over %zu MiB",
				    ps->source, request ? request : "a FETCH", max >> 20);
	if (rc != CURLE_OK)
		return rm_error_set(err, rc == CURLE_LOGIN_DENIED ? RM_ERR_CONFIG : RM_ERR_TEMP,
				    "listen.source '%s': %s", ps->source,
				    ebuf[0] ? ebuf : curl_easy_strerror(rc));
	return 0;
}

/* The size of the mail `uid` (its RFC822.SIZE), asked of the server for
 * the warning about a mail over the cap: 0 when it does not say. */
static unsigned long long imap_size(const struct pass *ps, const struct rm_listen_src *src,
				    const char *password, CURL *c, const char *url,
				    unsigned long long uid)
{
	struct rm_sb ans = RM_SB_INIT;
	struct rm_error e;
	unsigned long long size = 0;
	char *req = rm_xstrfmt("UID FETCH %llu (RFC822.SIZE)", uid);
	const char *p;

	rm_sb_init(&ans);
	if (!imap_do(ps, src, password, c, url, req, &ans, RM_LISTEN_MAX_IMAP_ANSWER, NULL, &e) &&
	    (p = strstr(ans.buf, "RFC822.SIZE ")) && isdigit((unsigned char)p[12]))
		size = strtoull(p + 12, NULL, 10);
	rm_sb_release(&ans);
	free(req);
	return size;
}

/* The source's password (first line of password_file) into *password
 * (malloc'd, or NULL without a file; the caller wipes and frees it). */
static int read_password(const struct rm_listen_src *src, char **password, struct rm_error *err)
{
	size_t len;

	*password = NULL;
	if (!src->password_file)
		return 0;
	if (rm_read_file(src->password_file, 4096, password, &len, err)) {
		err->kind = RM_ERR_CONFIG;
		return -1;
	}
	while (len && ((*password)[len - 1] == '\n' || (*password)[len - 1] == '\r'))
		(*password)[--len] = '\0';
	return 0;
}

static void wipe(char *password)
{
	if (password) {
		memset(password, 0, strlen(password));
		free(password);
	}
}

static int read_imap(struct pass *ps, const struct rm_listen_src *src, struct rm_error *err)
{
	const char *rest = src->source + 8, *slash = strchr(rest, '/');
	char *host, *mailbox, *password = NULL, *url = NULL, *req = NULL, *p;
	struct rm_sb ans = RM_SB_INIT, mail = RM_SB_INIT;
	unsigned long long validity = 0;
	CURL *c = NULL;
	int rc = -1;

	if (!slash || slash == rest)
		return rm_error_set(err, RM_ERR_CONFIG, "listen.source '%s': expected imaps://HOST:PORT/MAILBOX",
				    src->source);
	host = rm_xstrndup(rest, (size_t)(slash - rest));
	mailbox = rm_xstrdup(slash[1] ? slash + 1 : "INBOX");
	if (strpbrk(mailbox, "\"\\\r\n") || strpbrk(host, "@ ")) {
		rm_error_set(err, RM_ERR_CONFIG, "listen.source '%s': a mailbox or host name robotmail cannot use",
			     src->source);
		goto out;
	}
	if (read_password(src, &password, err))
		goto out;
	c = curl_easy_init();
	if (!c) {
		rm_error_set(err, RM_ERR_INTERNAL, "listen: cannot start libcurl");
		goto out;
	}
	rm_sb_init(&ans);
	rm_sb_init(&mail);
	url = rm_xstrfmt("imaps://%s/", host);
	req = rm_xstrfmt("STATUS \"%s\" (UIDVALIDITY)", mailbox);
	if (imap_do(ps, src, password, c, url, req, &ans, RM_LISTEN_MAX_IMAP_ANSWER, NULL, err))
		goto out;
	p = ans.buf ? strstr(ans.buf, "UIDVALIDITY ") : NULL;
	if (!p || !isdigit((unsigned char)p[12])) {
		rm_error_set(err, RM_ERR_TEMP, "listen.source '%s': the server named no UIDVALIDITY",
			     src->source);
		goto out;
	}
	validity = strtoull(p + 12, NULL, 10);
	free(url);
	{
		char *esc = curl_easy_escape(NULL, mailbox, 0);

		url = rm_xstrfmt("imaps://%s/%s", host, esc ? esc : mailbox);
		curl_free(esc);
	}
	if (imap_do(ps, src, password, c, url, "UID SEARCH ALL", &ans, RM_LISTEN_MAX_IMAP_ANSWER, NULL,
		    err))
		goto out;
	p = ans.buf ? strstr(ans.buf, "* SEARCH") : NULL;
	for (p = p ? p + 8 : NULL; p && *p && *p != '\r' && *p != '\n';) {
		char *end, id[64], *furl;
		unsigned long long uid;
		bool seen, over = false;
		int hr;

		while (*p == ' ')
			p++;
		if (!isdigit((unsigned char)*p))
			break;
		uid = strtoull(p, &end, 10);
		p = end;
		snprintf(id, sizeof(id), "uid:%llu:%llu", validity, uid);
		if (rm_store_inbound_seen(ps->st, ps->source, id, &seen, err))
			goto out;
		if (seen)
			continue;
		furl = rm_xstrfmt("%s;UID=%llu", url, uid);
		if (imap_do(ps, src, password, c, furl, NULL, &mail, RM_LISTEN_MAX_MAIL, &over, err)) {
			free(furl);
			goto out;
		}
		free(furl);
		if (over) {
			/* what came of it (its first 4 MiB) names it */
			unsigned long long size = imap_size(ps, src, password, c, url, uid);
			char *where = rm_xstrfmt("IMAP UID %llu", uid);

			hr = skip_oversize(ps, mail.buf, mail.len,
					   size > RM_LISTEN_MAX_MAIL ? size : RM_LISTEN_MAX_MAIL,
					   size > RM_LISTEN_MAX_MAIL, id, where, err);
			free(where);
		} else {
			hr = handle(ps, mail.buf ? mail.buf : "", mail.len, id, err);
		}
		if (hr || rm_store_inbound_mark(ps->st, ps->source, id, NULL, "read", ps->now, err) < 0)
			goto out;
	}
	rc = 0;
out:
	rm_sb_release(&ans);
	rm_sb_release(&mail);
	if (c)
		curl_easy_cleanup(c);
	free(req);
	free(url);
	wipe(password);
	free(mailbox);
	free(host);
	return rc;
}

/* ---- public-inbox (public-inbox:URL, URL the inbox's address, e.g.
 * https://lore.kernel.org/lkml)
 *
 * Through its HTTP interface: a POST of URL/?q=rt:SINCE..&x=m answers every
 * mail the inbox received since SINCE (seconds since 1970) as one gzipped
 * mboxrd, newest first (public-inbox's search download, the one lei uses;
 * the inbox must be indexed for search, as public-inbox-init does by
 * default); "No results found" (404) is an empty answer.  SINCE is the
 * newest time a mail of this source was read, less a day (a mail delayed
 * on its way carries an earlier received time), or 30 days back at the
 * first pass.  Each mail is remembered in the store by its Message-ID, so
 * the overlap reads nothing twice.  The gzip is undone by libarchive (its
 * raw format); the mboxrd is split here because libetpan's mbox driver
 * reads only a file it locks: a line "From " begins a mail, and a line
 * ">From ", ">>From " ... loses one '>'. */

#define PI_OVERLAP (24 * 3600)
#define PI_FIRST (30 * 24 * 3600)

/* The gzip in `gz` unpacked into out. */
static int gunzip(const struct pass *ps, const struct rm_sb *gz, struct rm_sb *out,
		  struct rm_error *err)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	char buf[65536];
	la_ssize_t n = 0;
	int rc = -1;

	if (!a)
		return rm_error_set(err, RM_ERR_INTERNAL, "listen: cannot start libarchive");
	archive_read_support_filter_gzip(a);
	archive_read_support_format_raw(a);
	if (archive_read_open_memory(a, gz->buf, gz->len) != ARCHIVE_OK ||
	    archive_read_next_header(a, &e) != ARCHIVE_OK) {
		rm_error_set(err, RM_ERR_TEMP, "listen.source '%s': the answer is no gzipped mbox: %s",
			     ps->source, archive_error_string(a) ? archive_error_string(a) : "?");
		goto out;
	}
	while ((n = archive_read_data(a, buf, sizeof(buf))) > 0) {
		if (out->len + (size_t)n > RM_LISTEN_MAX_MBOX) {
			rm_error_set(err, RM_ERR_TEMP, "listen.source '%s': the mbox is over %u MiB",
				     ps->source, RM_LISTEN_MAX_MBOX >> 20);
			goto out;
		}
		rm_sb_add(out, buf, (size_t)n);
	}
	if (n < 0) {
		rm_error_set(err, RM_ERR_TEMP, "listen.source '%s': a broken gzip: %s", ps->source,
			     archive_error_string(a) ? archive_error_string(a) : "?");
		goto out;
	}
	rc = 0;
out:
	archive_read_free(a);
	return rc;
}

/* See listen.h. */
void rm_listen_mbox_split(const char *mbox, size_t len, size_t **at, size_t *n)
{
	size_t i = 0;

	*at = NULL;
	*n = 0;
	while (i < len) {
		const char *eol = memchr(mbox + i, '\n', len - i);
		size_t next = eol ? (size_t)(eol - mbox) + 1 : len;

		if (len - i >= 5 && !memcmp(mbox + i, "From ", 5)) {
			*at = rm_xrealloc(*at, (*n + 2) * sizeof(**at));
			(*at)[(*n)++] = next; /* the mail begins after the From_ line */
		}
		i = next;
	}
	if (*n)
		(*at)[*n] = len;
}

/* See listen.h. */
void rm_listen_mbox_mail(const char *p, const char *end, struct rm_sb *out)
{
	rm_sb_reset(out);
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *next = eol ? eol + 1 : end, *q = p;

		if (next - p >= 5 && !memcmp(p, "From ", 5))
			break; /* the next mail's From_ line */
		while (q < next && *q == '>')
			q++;
		if (q > p && next - q >= 5 && !memcmp(q, "From ", 5))
			p++; /* >From -> From, >>From -> >From */
		rm_sb_add(out, p, (size_t)(next - p));
		p = next;
	}
}

/* The name of a public-inbox mail without a Message-ID: "mbox:" and an
 * FNV-1a hash of its bytes (public-inbox gives every mail one; this is for
 * an inbox that does not), into fb. */
static void mbox_id(const char *p, size_t n, char fb[40])
{
	unsigned long long h = 14695981039346656037ull;
	size_t j;

	for (j = 0; j < n; j++)
		h = (h ^ (unsigned char)p[j]) * 1099511628211ull;
	snprintf(fb, 40, "mbox:%016llx", h);
}

/* See listen.h. */
size_t rm_listen_mbox_end(const char *mbox, const size_t *at, size_t n, size_t k)
{
	size_t end = at[k + 1];

	if (k + 1 < n) /* back over the next mail's From_ line */
		for (end = at[k + 1] - 1; end > at[k] && mbox[end - 1] != '\n'; end--)
			;
	return end;
}

/* See listen.h. */
int rm_listen_mbox_read(const struct rm_config *cfg, struct rm_store *st, time_t now,
			const char *source, const char *mbox, size_t len,
			struct rm_listen_stats *stats, struct rm_error *err)
{
	struct pass ps = { cfg, st, now, stats, source };
	struct rm_sb one = RM_SB_INIT;
	size_t *at = NULL, n = 0, k;
	int rc = -1;

	if (rm_dynlib_need(RM_LIB_ETPAN, err))
		return -1;
	rm_sb_init(&one);
	rm_listen_mbox_split(mbox, len, &at, &n);
	/* oldest first: an undo comes after what it takes back */
	for (k = n; k-- > 0;) {
		size_t end = rm_listen_mbox_end(mbox, at, n, k);
		char fb[40];

		if (end - at[k] > RM_LISTEN_MAX_MAIL) {
			char *where = rm_xstrfmt("the download's mail at byte %zu", at[k]);

			/* named by its raw bytes, never copied or parsed whole */
			rm_listen_mbox_mail(mbox + at[k], mbox + at[k] + RM_LISTEN_MAX_HEAD, &one);
			mbox_id(mbox + at[k], end - at[k], fb);
			if (skip_oversize(&ps, one.buf, one.len, end - at[k], true, fb, where, err)) {
				free(where);
				goto out;
			}
			free(where);
			continue;
		}
		rm_listen_mbox_mail(mbox + at[k], mbox + end, &one);
		mbox_id(one.buf, one.len, fb);
		if (handle(&ps, one.buf, one.len, fb, err))
			goto out;
	}
	rc = 0;
out:
	free(at);
	rm_sb_release(&one);
	return rc;
}

static int read_public_inbox(struct pass *ps, const struct rm_listen_src *src,
			     struct rm_error *err)
{
	const char *base = src->source + 13;
	char ebuf[CURL_ERROR_SIZE] = "", *url = NULL;
	struct rm_sb gz = RM_SB_INIT, mbox = RM_SB_INIT;
	struct capped cap = { &gz, RM_LISTEN_MAX_DOWNLOAD, false };
	time_t newest, since;
	long status = 0;
	CURL *c = NULL;
	CURLcode cr;
	int rc = -1;

	if (strncmp(base, "http://", 7) && strncmp(base, "https://", 8))
		return rm_error_set(err, RM_ERR_CONFIG,
				    "listen.source '%s': expected public-inbox:http(s)://HOST/INBOX",
				    src->source);
	if (rm_store_inbound_newest(ps->st, ps->source, &newest, err))
		return -1;
	since = newest ? newest - PI_OVERLAP : ps->now - PI_FIRST;
	if (since < 0)
		since = 0;
	url = rm_xstrfmt("%s%s?q=rt:%lld..&x=m", base,
			 base[0] && base[strlen(base) - 1] == '/' ? "" : "/", (long long)since);
	rm_sb_init(&gz);
	rm_sb_init(&mbox);
	c = curl_easy_init();
	if (!c) {
		rm_error_set(err, RM_ERR_INTERNAL, "listen: cannot start libcurl");
		goto out;
	}
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, "");
	curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, 0L);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, ebuf);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT,
			 ps->cfg->connect_timeout > 0 ? ps->cfg->connect_timeout : 10L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 600L);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
	if (src->ca_file)
		curl_easy_setopt(c, CURLOPT_CAINFO, src->ca_file);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, capped_write);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &cap);
	cr = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	if (cr != CURLE_OK) {
		if (cr == CURLE_WRITE_ERROR && cap.over)
			rm_error_set(err, RM_ERR_TEMP, "listen.source '%s': the answer is over %u MiB",
				     ps->source, RM_LISTEN_MAX_DOWNLOAD >> 20);
		else
			rm_error_set(err, RM_ERR_TEMP, "listen.source '%s': %s", ps->source,
				     ebuf[0] ? ebuf : curl_easy_strerror(cr));
		goto out;
	}
	if (status == 404 && gz.buf && strstr(gz.buf, "No results found")) {
		rc = 0; /* nothing new */
		goto out;
	}
	if (status != 200) {
		rm_error_set(err, status >= 500 || status == 429 ? RM_ERR_TEMP : RM_ERR_CONFIG,
			     "listen.source '%s': HTTP %ld from %s%s", ps->source, status, url,
			     status == 404 ? " (no such inbox, or it is not indexed for search)" : "");
		goto out;
	}
	if (gunzip(ps, &gz, &mbox, err))
		goto out;
	rc = rm_listen_mbox_read(ps->cfg, ps->st, ps->now, ps->source, mbox.buf, mbox.len, ps->stats,
				 err);
out:
	if (c)
		curl_easy_cleanup(c);
	rm_sb_release(&mbox);
	rm_sb_release(&gz);
	free(url);
	return rc;
}

int rm_listen_run(const struct rm_config *cfg, struct rm_store *st, time_t now,
		  struct rm_listen_stats *stats, struct rm_error *err)
{
	size_t i;

	memset(stats, 0, sizeof(*stats));
	if (!cfg->nlisten)
		return rm_error_set(err, RM_ERR_CONFIG, "listen: no source configured (listen.source)");
	/* every source's mail is parsed with libetpan; imaps:// and
	 * public-inbox sources are read with libcurl (gzip: libarchive) */
	if (rm_dynlib_need(RM_LIB_ETPAN, err))
		return -1;
	for (i = 0; i < cfg->nlisten; i++)
		if (strncmp(cfg->listen[i].source, "maildir:", 8) &&
		    (rm_dynlib_need(RM_LIB_CURL, err) || rm_dynlib_need(RM_LIB_ARCHIVE, err)))
			return -1;
	for (i = 0; i < cfg->nlisten; i++) {
		struct pass ps = { cfg, st, now, stats, cfg->listen[i].source };
		const char *src = cfg->listen[i].source;

		if (!strncmp(src, "maildir:", 8)) {
			if (read_maildir(&ps, src + 8, err))
				return -1;
		} else if (!strncmp(src, "imaps://", 8)) {
			if (read_imap(&ps, &cfg->listen[i], err))
				return -1;
		} else {
			/* public-inbox: (the configuration accepts nothing else) */
			if (read_public_inbox(&ps, &cfg->listen[i], err))
				return -1;
		}
	}
	return 0;
}

/* ---- waiting for news (`listen --follow`): IMAP IDLE
 *
 * The first imaps:// source is watched with IDLE (RFC 2177) between
 * passes, so a reply is read a moment after the server has it instead of
 * at the next --interval.  libetpan's mailimap speaks IMAP (LOGIN, SELECT,
 * IDLE, DONE); its own TLS does not verify the server's certificate, so the
 * TLS connection is libcurl's (CONNECT_ONLY, the certificate checked as for
 * the passes: ca_file or the system's CAs, the host name) and libetpan
 * reads and writes through it (a mailstream_low driver over
 * curl_easy_recv/send).  Any news, or the interval over, ends the wait; the
 * next pass reads what is new (the passes themselves stay as they are).
 * Without an imaps:// source, or when the server has no IDLE or the
 * connection fails (a warning says why), the wait is a plain sleep. */

struct cstream {
	CURL *curl;
	curl_socket_t fd;
	/* bytes read since the connection was made or the last wait began:
	 * at RM_LISTEN_MAX_IMAP_ANSWER reads fail (libetpan keeps a response
	 * whole until its end; a server's flood must not grow it without end) */
	size_t got;
};

struct rm_listen_waiter {
	CURL *curl;
	curl_socket_t fd;
	mailimap *imap;    /* NULL: no IDLE connection (sleep) */
	struct cstream *cs; /* imap's stream's (freed with it), or NULL */
	bool warned, announced;
};

/* wait up to ms for the socket to be ready for `events`: 1 ready, 0 not */
static int cs_poll(curl_socket_t fd, short events, int ms)
{
	struct pollfd p = { fd, events, 0 };

	return poll(&p, 1, ms) > 0;
}

static ssize_t cs_read(mailstream_low *s, void *buf, size_t n)
{
	struct cstream *cs = s->data;

	if (cs->got >= RM_LISTEN_MAX_IMAP_ANSWER)
		return -1; /* over the cap: the waiter drops the connection */
	if (n > RM_LISTEN_MAX_IMAP_ANSWER - cs->got)
		n = RM_LISTEN_MAX_IMAP_ANSWER - cs->got;
	for (;;) {
		size_t got = 0;
		CURLcode rc = curl_easy_recv(cs->curl, buf, n, &got);

		if (rc == CURLE_OK) {
			cs->got += got;
			return (ssize_t)got; /* 0: the server closed */
		}
		if (rc != CURLE_AGAIN || !cs_poll(cs->fd, POLLIN, 60000))
			return -1;
	}
}

static ssize_t cs_write(mailstream_low *s, const void *buf, size_t n)
{
	struct cstream *cs = s->data;
	size_t done = 0;

	while (done < n) {
		size_t sent = 0;
		CURLcode rc = curl_easy_send(cs->curl, (const char *)buf + done, n - done, &sent);

		if (rc == CURLE_OK)
			done += sent;
		else if (rc != CURLE_AGAIN || !cs_poll(cs->fd, POLLOUT, 60000))
			return -1;
	}
	return (ssize_t)n;
}

static int cs_close(mailstream_low *s)
{
	(void)s;
	return 0; /* the waiter closes the curl handle */
}

static int cs_get_fd(mailstream_low *s)
{
	return (int)((struct cstream *)s->data)->fd;
}

static void cs_free(mailstream_low *s)
{
	free(s->data);
	free(s);
}

static struct mailstream_cancel *cs_get_cancel(mailstream_low *s)
{
	(void)s;
	return NULL;
}

static mailstream_low_driver cs_driver = {
	.mailstream_read = cs_read,
	.mailstream_write = cs_write,
	.mailstream_close = cs_close,
	.mailstream_get_fd = cs_get_fd,
	.mailstream_free = cs_free,
	.mailstream_get_cancel = cs_get_cancel,
};

static void waiter_drop(struct rm_listen_waiter *w)
{
	if (w->imap) {
		mailimap_logout(w->imap);
		mailimap_free(w->imap); /* frees the stream and its driver data */
		w->imap = NULL;
	}
	w->cs = NULL;
	if (w->curl) {
		curl_easy_cleanup(w->curl);
		w->curl = NULL;
	}
}

/* Connect, log in and select the mailbox of the imaps:// source. */
static int waiter_open(struct rm_listen_waiter *w, const struct rm_config *cfg,
		       const struct rm_listen_src *src, struct rm_error *err)
{
	const char *rest = src->source + 8, *slash = strchr(rest, '/');
	char ebuf[CURL_ERROR_SIZE] = "", *host, *url, *mailbox, *password = NULL;
	struct mailimap_capability_data *caps = NULL;
	struct cstream *cs;
	mailstream_low *low;
	mailstream *stream;
	CURLcode cr;
	int r, rc = -1;

	host = rm_xstrndup(rest, slash ? (size_t)(slash - rest) : strlen(rest));
	mailbox = rm_xstrdup(slash && slash[1] ? slash + 1 : "INBOX");
	/* https:// only to have curl make a verified TLS connection: with
	 * CONNECT_ONLY it sends nothing over it */
	url = rm_xstrfmt("https://%s%s/", host,
			 strchr(host, ']') ? (strstr(host, "]:") ? "" : ":993") :
					     (strchr(host, ':') ? "" : ":993"));
	w->curl = curl_easy_init();
	if (!w->curl) {
		rm_error_set(err, RM_ERR_INTERNAL, "listen: cannot start libcurl");
		goto out;
	}
	curl_easy_setopt(w->curl, CURLOPT_URL, url);
	curl_easy_setopt(w->curl, CURLOPT_CONNECT_ONLY, 1L);
	curl_easy_setopt(w->curl, CURLOPT_SSL_ENABLE_ALPN, 0L);
	curl_easy_setopt(w->curl, CURLOPT_ERRORBUFFER, ebuf);
	curl_easy_setopt(w->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(w->curl, CURLOPT_CONNECTTIMEOUT,
			 cfg->connect_timeout > 0 ? cfg->connect_timeout : 10L);
	curl_easy_setopt(w->curl, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(w->curl, CURLOPT_SSL_VERIFYHOST, 2L);
	if (src->ca_file)
		curl_easy_setopt(w->curl, CURLOPT_CAINFO, src->ca_file);
	cr = curl_easy_perform(w->curl);
	if (cr != CURLE_OK ||
	    curl_easy_getinfo(w->curl, CURLINFO_ACTIVESOCKET, &w->fd) != CURLE_OK ||
	    w->fd == CURL_SOCKET_BAD) {
		rm_error_set(err, RM_ERR_TEMP, "%s", ebuf[0] ? ebuf : curl_easy_strerror(cr));
		goto out;
	}
	cs = rm_xcalloc(1, sizeof(*cs));
	cs->curl = w->curl;
	cs->fd = w->fd;
	low = mailstream_low_new(cs, &cs_driver);
	stream = low ? mailstream_new(low, 8192) : NULL;
	w->imap = mailimap_new(0, NULL);
	if (!low || !stream || !w->imap) {
		if (stream)
			mailstream_close(stream);
		else if (low)
			mailstream_low_free(low);
		else
			free(cs);
		rm_error_set(err, RM_ERR_INTERNAL, "listen: cannot start libetpan's IMAP");
		goto out;
	}
	w->cs = cs;
	r = mailimap_connect(w->imap, stream);
	if (r != MAILIMAP_NO_ERROR_AUTHENTICATED && r != MAILIMAP_NO_ERROR_NON_AUTHENTICATED) {
		rm_error_set(err, RM_ERR_TEMP, "no IMAP greeting (libetpan error %d)", r);
		goto out;
	}
	if (read_password(src, &password, err))
		goto out;
	if (r == MAILIMAP_NO_ERROR_NON_AUTHENTICATED &&
	    mailimap_login(w->imap, src->user ? src->user : "", password ? password : "") !=
		    MAILIMAP_NO_ERROR) {
		rm_error_set(err, RM_ERR_CONFIG, "the server refused the login");
		goto out;
	}
	if (mailimap_capability(w->imap, &caps) != MAILIMAP_NO_ERROR) {
		rm_error_set(err, RM_ERR_TEMP, "CAPABILITY failed");
		goto out;
	}
	mailimap_capability_data_free(caps);
	if (!mailimap_has_idle(w->imap)) {
		rm_error_set(err, RM_ERR_TEMP, "the server has no IDLE");
		goto out;
	}
	if (mailimap_select(w->imap, mailbox) != MAILIMAP_NO_ERROR) {
		rm_error_set(err, RM_ERR_TEMP, "cannot select '%s'", mailbox);
		goto out;
	}
	rc = 0;
out:
	wipe(password);
	free(url);
	free(mailbox);
	free(host);
	if (rc && w->cs && w->cs->got >= RM_LISTEN_MAX_IMAP_ANSWER)
		rm_error_set(err, RM_ERR_TEMP, "the server sent over %u MiB before IDLE",
			     RM_LISTEN_MAX_IMAP_ANSWER >> 20);
	if (rc)
		waiter_drop(w);
	return rc;
}

void rm_listen_wait(const struct rm_config *cfg, long seconds, struct rm_listen_waiter **wp)
{
	const struct rm_listen_src *src = NULL;
	struct rm_listen_waiter *w = *wp;
	struct rm_error err;
	time_t until = time(NULL) + seconds;
	size_t i;

	for (i = 0; i < cfg->nlisten && !src; i++)
		if (!strncmp(cfg->listen[i].source, "imaps://", 8))
			src = &cfg->listen[i];
	if (!w)
		w = *wp = rm_xcalloc(1, sizeof(*w));
	rm_error_clear(&err);
	if (src && !w->imap && waiter_open(w, cfg, src, &err) && !w->warned) {
		char *safe = rm_text_escaped(err.msg, 300);

		fprintf(stderr, "robotmail: listen: warning: '%s': no IMAP IDLE (%s): polling every %ld s\n",
			src->source, safe, seconds);
		free(safe);
		w->warned = true; /* once; it is tried again before each wait */
	} else if (w->imap && !w->announced) {
		fprintf(stderr, "robotmail: listen: waiting on '%s' with IMAP IDLE (at most %ld s)\n",
			src->source, seconds);
		w->announced = true;
	}
	if (w->cs)
		w->cs->got = 0; /* the cap is on what one wait reads */
	if (w->imap && mailimap_idle(w->imap) == MAILIMAP_NO_ERROR) {
		/* news already read with the continuation, or on the socket */
		bool news = w->imap->imap_stream->read_buffer_len > 0;

		if (!news && seconds > 0)
			news = cs_poll(w->fd, POLLIN, (int)(seconds > 3600 ? 3600000 : seconds * 1000));
		(void)news; /* either way the next pass looks */
		if (mailimap_idle_done(w->imap) == MAILIMAP_NO_ERROR)
			return;
	}
	if (w->imap) {
		if (w->cs && w->cs->got >= RM_LISTEN_MAX_IMAP_ANSWER)
			fprintf(stderr,
				"robotmail: listen: warning: '%s': the server sent over %u MiB in one IMAP"
				" IDLE wait: connection dropped\n",
				src->source, RM_LISTEN_MAX_IMAP_ANSWER >> 20);
		waiter_drop(w); /* broken: opened again before the next wait */
	}
	while (time(NULL) < until)
		sleep((unsigned)(until - time(NULL)));
}

void rm_listen_waiter_free(struct rm_listen_waiter *w)
{
	if (w) {
		waiter_drop(w);
		free(w);
	}
}

int rm_listen_passes(const struct rm_config *cfg, struct rm_store *st, time_t now, long interval,
		     struct rm_error *err)
{
	struct rm_listen_stats ls;
	struct rm_listen_waiter *waiter = NULL;
	int rc;

	do {
		rc = rm_listen_run(cfg, st, now ? now : time(NULL), &ls, err);
		if (rc || !interval || ls.read || ls.oversize)
			rm_listen_stats_print(&ls, stderr);
		if (!rc && interval)
			rm_listen_wait(cfg, interval, &waiter);
	} while (!rc && interval);
	rm_listen_waiter_free(waiter);
	return rc;
}
