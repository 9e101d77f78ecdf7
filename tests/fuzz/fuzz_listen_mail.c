/*
 * fuzz_listen_mail.c - libFuzzer target: arbitrary bytes as an inbound mail,
 * as `robotmail listen` reads one from anyone on the Internet (a Maildir
 * file, an IMAP FETCH, a public-inbox mbox entry): rm_listen_parse_mail
 * (RFC 5322 headers and MIME parts through libetpan, the first text/plain
 * part decoded), the loop rules (rm_listen_loop_reason, against a fixed
 * listen.lists and robot address), the `#robotmail` command reader on the
 * decoded body and on the raw bytes, and the in-thread answer listen
 * queues (rm_listen_answer_build, the code answer() calls) from the mail's
 * Subject, Message-ID, From and references, which is then read back.
 *
 * Invariants: parsing succeeds or fails with an error message and every
 * field NULL; parsing twice gives the same fields; every string is valid
 * UTF-8 (listen.h) and the body is never NULL; Subject, Auto-Submitted,
 * Precedence and List-Id hold no control character and are trimmed; From
 * and the recipients hold no upper-case ASCII; the loop rule is NULL or one of its reasons and
 * NULL only for a mail with a sender that is not the robot and is no
 * automatic, junk or foreign-list mail; the commands are as many as the
 * "#robotmail" lines (at most RM_LISTEN_MAX_COMMANDS and one refusal), each
 * one of the documented kinds with its argument in the documented shape
 * (listen.h), and parsing them twice gives the same; an answer that builds
 * has CRLF line ends only, no line over 998 octets, no NUL, one From, To,
 * Subject and Message-ID header, and reads back with the robot as sender,
 * the mail's sender as its one recipient and the mail (when it has a
 * Message-ID) as its In-Reply-To.
 */
#include <ctype.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "address.h"
#include "config.h"
#include "error.h"
#include "listen.h"
#include "message.h"
#include "strbuf.h"

#define ROBOT "robot@example.org"
#define ANSWER_ID "answer.1@example.org"

static char list_a[] = "<lkp.lists.example.org>", list_b[] = "linux-mm.example.org";
static char *lists[] = { list_a, list_b };
static char robot[] = ROBOT;

static int same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static void check_utf8(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned cp;

	while (*p) {
		size_t k = rm_utf8_decode(p, &cp);

		if (!k)
			abort();
		p += k;
	}
}

static void check_text(const char *s, size_t max)
{
	size_t n;
	const char *p;

	if (!s)
		return;
	n = strlen(s);
	if (n > max)
		abort();
	check_utf8(s);
	for (p = s; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			abort();
	if (n && (isspace((unsigned char)s[0]) || isspace((unsigned char)s[n - 1])))
		abort();
}

static void check_lower(const char *s, size_t max)
{
	if (!s || strlen(s) > max)
		abort();
	check_utf8(s);
	for (; *s; s++)
		if (*s >= 'A' && *s <= 'Z')
			abort();
}

static void check_mail(const struct rm_inmail *m, size_t size)
{
	size_t i;

	if (!m->body)
		abort();
	check_utf8(m->body);
	check_text(m->subject, 4 * size);
	check_text(m->auto_submitted, size);
	check_text(m->precedence, size);
	check_text(m->list_id, size);
	if (m->from)
		check_lower(m->from, size);
	if (m->message_id && strlen(m->message_id) > size)
		abort();
	if (m->message_id)
		check_utf8(m->message_id);
	if ((m->nrefs && !m->refs) || (m->nrcpts && !m->rcpts))
		abort();
	for (i = 0; i < m->nrefs; i++)
		if (!m->refs[i] || strlen(m->refs[i]) > size)
			abort();
		else
			check_utf8(m->refs[i]);
	for (i = 0; i < m->nrcpts; i++)
		check_lower(m->rcpts[i], size);
}

static void check_same_mail(const struct rm_inmail *a, const struct rm_inmail *b)
{
	size_t i;

	if (!same(a->message_id, b->message_id) || !same(a->from, b->from) ||
	    !same(a->subject, b->subject) || !same(a->auto_submitted, b->auto_submitted) ||
	    !same(a->precedence, b->precedence) || !same(a->list_id, b->list_id) ||
	    !same(a->body, b->body) || a->nrefs != b->nrefs || a->nrcpts != b->nrcpts)
		abort();
	for (i = 0; i < a->nrefs; i++)
		if (!same(a->refs[i], b->refs[i]))
			abort();
	for (i = 0; i < a->nrcpts; i++)
		if (!same(a->rcpts[i], b->rcpts[i]))
			abort();
}

static void check_loop(const struct rm_inmail *m, const struct rm_config *cfg)
{
	static const char *const reasons[] = {
		"an automatic mail (Auto-Submitted)", "a bulk mail (Precedence)",
		"a mail of a list not in listen.lists (List-Id)", "no sender (From)",
		"a mail from the robot itself",
	};
	const char *why = rm_listen_loop_reason(m, cfg);
	size_t i;

	if (m->auto_submitted && strcasecmp(m->auto_submitted, "no") && why != NULL &&
	    strcmp(why, reasons[0]))
		abort();
	if (!why) {
		if (!m->from || !strcasecmp(m->from, ROBOT) ||
		    (m->auto_submitted && strcasecmp(m->auto_submitted, "no")) ||
		    (m->precedence && !strcasecmp(m->precedence, "junk")))
			abort();
		return;
	}
	for (i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++)
		if (!strcmp(why, reasons[i]))
			return;
	abort();
}

/* How many commands the reader must find: lines starting "#robotmail"
 * followed by the line's end, a blank or ':' (listen.h). */
static size_t command_lines(const char *body)
{
	static const char tag[] = "#robotmail";
	const size_t tl = sizeof(tag) - 1;
	const char *p = body;
	size_t k = 0;

	while (p && *p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);

		if (len >= tl && !strncasecmp(p, tag, tl) &&
		    (len == tl || isspace((unsigned char)p[tl]) || p[tl] == ':'))
			k++;
		p = eol ? eol + 1 : NULL;
	}
	return k;
}

static void check_trimmed(const char *s)
{
	size_t n = strlen(s);

	if (!n || strchr(s, '\n') || isspace((unsigned char)s[0]) ||
	    isspace((unsigned char)s[n - 1]))
		abort();
}

static void check_cmds(const char *body, const struct rm_listen_cmd *c, size_t n)
{
	size_t want = command_lines(body), i;
	const char *p;

	if (want > RM_LISTEN_MAX_COMMANDS)
		want = RM_LISTEN_MAX_COMMANDS + 1;
	if (n != want || (n && !c))
		abort();
	for (i = 0; i < n; i++) {
		if (!c[i].line || strncasecmp(c[i].line, "#robotmail", 10))
			abort();
		check_trimmed(c[i].line);
		if (i == RM_LISTEN_MAX_COMMANDS &&
		    (c[i].kind != RM_CMD_BAD || !c[i].problem || !strstr(c[i].problem, "more than")))
			abort();
		if ((c[i].kind == RM_CMD_BAD) != (c[i].problem != NULL))
			abort();
		switch (c[i].kind) {
		case RM_CMD_INVALID:
		case RM_CMD_UNDO:
		case RM_CMD_BAD:
			if (c[i].arg)
				abort();
			if (c[i].problem && !*c[i].problem)
				abort();
			break;
		case RM_CMD_FIXED:
			if (!c[i].arg)
				abort();
			check_trimmed(c[i].arg);
			break;
		case RM_CMD_DUP:
			if (!c[i].arg || !strchr(c[i].arg, '@'))
				abort();
			for (p = c[i].arg; *p; p++)
				if ((unsigned char)*p <= 0x20 || *p == 0x7f || *p == '<' || *p == '>')
					abort();
			break;
		case RM_CMD_UNSUBSCRIBE:
			if (c[i].arg && strcasecmp(c[i].arg, "all"))
				abort();
			break;
		default:
			abort();
		}
	}
}

static void check_same_cmds(const struct rm_listen_cmd *a, size_t na, const struct rm_listen_cmd *b,
			    size_t nb)
{
	size_t i;

	if (na != nb)
		abort();
	for (i = 0; i < na; i++)
		if (a[i].kind != b[i].kind || !same(a[i].line, b[i].line) ||
		    !same(a[i].arg, b[i].arg) || !same(a[i].problem, b[i].problem))
			abort();
}

static void commands(const char *body)
{
	struct rm_listen_cmd *c = NULL, *c2 = NULL;
	size_t n = 0, n2 = 0;

	rm_listen_parse_commands(body, &c, &n);
	check_cmds(body, c, n);
	rm_listen_parse_commands(body, &c2, &n2);
	check_same_cmds(c, n, c2, n2);
	rm_listen_cmds_free(c, n);
	rm_listen_cmds_free(c2, n2);
}

/* The wire form of a built message: CRLF only, short lines, no NUL, the
 * single-instance headers once each. */
static void check_wire(const char *msg, size_t len)
{
	static const char *const once[] = { "From:", "To:", "Subject:", "Message-ID:" };
	size_t counts[4] = { 0 }, i, k;
	const char *l = msg, *end = msg + len;
	int in_header = 1;

	if (memchr(msg, '\0', len) || len < 2 || memcmp(end - 2, "\r\n", 2))
		abort();
	for (i = 0; i < len; i++)
		if ((msg[i] == '\r' && (i + 1 == len || msg[i + 1] != '\n')) ||
		    (msg[i] == '\n' && (i == 0 || msg[i - 1] != '\r')))
			abort();
	while (l < end) {
		const char *e = memchr(l, '\r', (size_t)(end - l));
		size_t ll = (size_t)(e - l);

		if (ll > 998)
			abort();
		if (in_header && !ll)
			in_header = 0;
		else if (in_header && *l != ' ' && *l != '\t') {
			if (!memchr(l, ':', ll))
				abort();
			for (k = 0; k < 4; k++)
				if (!strncasecmp(l, once[k], strlen(once[k])))
					counts[k]++;
		}
		l = e + 2;
	}
	if (in_header)
		abort();
	for (k = 0; k < 4; k++)
		if (counts[k] != 1)
			abort();
}

/* The answer listen.c queues (rm_listen_answer_build), from the mail. */
static void answer(const struct rm_inmail *m, const struct rm_listen_cmd *c, size_t n)
{
	struct rm_listen_answer_from from = { "robot", ROBOT, ANSWER_ID, 1700000000, 0 };
	struct rm_error err;
	char *subject, *bytes = NULL;
	size_t len = 0;

	subject = rm_xstrfmt("Re: %s", m->subject && !strncasecmp(m->subject, "Re: ", 4) ?
						  m->subject + 4 :
					  m->subject ? m->subject : "report");
	rm_error_clear(&err);
	if (!rm_listen_answer_build(m, c, n, &from, subject, &bytes, &len, &err)) {
		struct rm_inmail r;

		check_wire(bytes, len);
		if (rm_listen_parse_mail(bytes, len, &r, &err))
			abort();
		if (!same(r.from, ROBOT) || r.nrcpts != 1 || strcasecmp(r.rcpts[0], m->from) ||
		    !same(r.message_id, ANSWER_ID) || (m->message_id && (!r.nrefs || !same(r.refs[0], m->message_id))))
			abort();
		rm_inmail_free(&r);
	} else if (bytes || !err.msg[0]) {
		abort();
	}
	free(bytes);
	free(subject);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rm_config cfg;
	struct rm_inmail m, m2;
	struct rm_error err;
	char *raw = malloc(size + 1);

	if (!raw)
		abort();
	memcpy(raw, data, size);
	raw[size] = '\0';
	memset(&cfg, 0, sizeof(cfg));
	cfg.robot_address = robot;
	cfg.listen_lists.v = lists;
	cfg.listen_lists.n = 2;
	commands(raw); /* the reader on bytes the MIME layer did not touch */
	rm_error_clear(&err);
	if (rm_listen_parse_mail((const char *)data, size, &m, &err)) {
		if (!err.msg[0] || m.body || m.from || m.subject || m.message_id || m.refs || m.rcpts)
			abort();
		free(raw);
		return 0;
	}
	check_mail(&m, size);
	if (rm_listen_parse_mail((const char *)data, size, &m2, &err))
		abort();
	check_same_mail(&m, &m2);
	rm_inmail_free(&m2);
	check_loop(&m, &cfg);
	{
		struct rm_listen_cmd *c = NULL;
		size_t n = 0;

		commands(m.body);
		rm_listen_parse_commands(m.body, &c, &n);
		if (m.from)
			answer(&m, c, n);
		rm_listen_cmds_free(c, n);
	}
	rm_inmail_free(&m);
	free(raw);
	return 0;
}
