/* smtp.c - see smtp.h. */
#include "smtp.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dynlib_etpan.h"
#include "dynlib_gnutls.h"
#include "strbuf.h"

/* mailsmtp_send_command, mailsmtp_read_response and mailesmtp_parse_ehlo
 * (undeclared by libetpan, declared in dynlib_etpan.h) send one command as
 * written and read its reply: the only way to put BODY=8BITMIME on MAIL
 * FROM (mailesmtp_mail takes no such parameter) and to say EHLO with the
 * configured name. */

#define MAX_RCPTS 1000
#define SMTP_LINE 1000 /* RFC 5321 command line limit, CRLF included */

struct rm_smtp {
	struct rm_smtp_cfg cfg;
	char *host;
	unsigned short port;
	bool implicit_tls;     /* smtps:// */
	bool bad_url;
	mailsmtp *session;     /* NULL: not connected */
	char **texts;          /* reply texts of the last message, one per recipient */
	size_t ntexts;
};

/* smtp://HOST[:PORT][/...] or smtps://...; [v6] hosts in brackets. */
static bool parse_url(struct rm_smtp *s, const char *url)
{
	const char *h, *end, *colon;
	long port;

	if (!strncmp(url, "smtps://", 8)) {
		s->implicit_tls = true;
		h = url + 8;
		port = 465;
	} else if (!strncmp(url, "smtp://", 7)) {
		h = url + 7;
		port = 25;
	} else {
		return false;
	}
	end = h + strcspn(h, "/");
	if (*h == '[') {
		const char *rb = memchr(h, ']', (size_t)(end - h));

		if (!rb)
			return false;
		s->host = rm_xstrndup(h + 1, (size_t)(rb - h - 1));
		colon = rb[1] == ':' ? rb + 1 : NULL;
	} else {
		colon = memchr(h, ':', (size_t)(end - h));
		s->host = rm_xstrndup(h, (size_t)((colon ? colon : end) - h));
	}
	if (colon) {
		char *e;

		port = strtol(colon + 1, &e, 10);
		if (e != end || port < 1 || port > 65535)
			return false;
	}
	s->port = (unsigned short)port;
	return *s->host != '\0';
}

struct rm_smtp *rm_smtp_new(const struct rm_smtp_cfg *cfg)
{
	struct rm_smtp *s = rm_xcalloc(1, sizeof(*s));

	s->cfg = *cfg;
	s->bad_url = !parse_url(s, cfg->url);
	return s;
}

static bool quiet_and_open(struct rm_smtp *s);

/* Close the session; QUIT only when the server is still there and quiet. */
static void hang_up(struct rm_smtp *s, bool polite)
{
	if (!s->session)
		return;
	if (polite && quiet_and_open(s))
		mailsmtp_quit(s->session);
	mailsmtp_free(s->session);
	s->session = NULL;
}

static void free_texts(struct rm_smtp *s)
{
	size_t i;

	for (i = 0; i < s->ntexts; i++)
		free(s->texts[i]);
	free(s->texts);
	s->texts = NULL;
	s->ntexts = 0;
}

void rm_smtp_free(struct rm_smtp *s)
{
	if (!s)
		return;
	hang_up(s, true);
	free_texts(s);
	free(s->host);
	free(s);
}

/* The server's last reply as it said it: "550 5.1.1 <a@b>: user unknown"
 * (continuation lines joined with " / "; control characters scrubbed). */
static char *reply_text(mailsmtp *m)
{
	struct rm_sb sb = RM_SB_INIT;
	const char *r = m->response ? m->response : "";
	size_t l = strlen(r), i;

	while (l && (r[l - 1] == '\n' || r[l - 1] == '\r'))
		l--;
	rm_sb_init(&sb);
	if (!m->response_code) {
		rm_sb_adds(&sb, "no reply (connection lost or timed out)");
		return rm_sb_detach(&sb, NULL);
	}
	rm_sb_addf(&sb, "%d ", m->response_code);
	for (i = 0; i < l; i++) {
		if (r[i] == '\n')
			rm_sb_adds(&sb, " / ");
		else if (r[i] != '\r')
			rm_sb_add(&sb, r + i, 1);
	}
	rm_error_scrub(sb.buf);
	return rm_sb_detach(&sb, NULL);
}

/* ---------------------------------------------------------------- TLS */

static void tls_setup(struct mailstream_ssl_context *ctx, void *data)
{
	struct rm_smtp *s = data;

	mailstream_ssl_set_server_name(ctx, s->host); /* SNI */
}

/* libetpan's TLS checks nothing (shared/notes/deps-and-peers.md): verify the
 * server's chain against the CA file or the system's trust store, and its
 * name against the host we dialled, with GnuTLS. */
static int verify_peer(struct rm_smtp *s, char *why, size_t len)
{
	carray *chain;
	gnutls_x509_crt_t *crts = NULL;
	gnutls_x509_trust_list_t tl = NULL;
	gnutls_typed_vdata_st vd;
	unsigned int i, n = 0, status = 0;
	int rc = -1, gr;

	if (!s->cfg.verify)
		return 0;
	chain = mailstream_get_certificate_chain(s->session->stream);
	if (!chain || !carray_count(chain)) {
		snprintf(why, len, "TLS: the server sent no certificate");
		goto out;
	}
	n = carray_count(chain);
	crts = rm_xcalloc(n, sizeof(*crts));
	for (i = 0; i < n; i++) {
		MMAPString *der = carray_get(chain, i);
		gnutls_datum_t d = { (unsigned char *)der->str, (unsigned int)der->len };

		if (gnutls_x509_crt_init(&crts[i]) < 0 ||
		    gnutls_x509_crt_import(crts[i], &d, GNUTLS_X509_FMT_DER) < 0) {
			snprintf(why, len, "TLS: cannot read the server's certificate %u", i);
			goto out;
		}
	}
	if (gnutls_x509_trust_list_init(&tl, 0) < 0) {
		snprintf(why, len, "TLS: cannot make a trust list");
		goto out;
	}
	gr = s->cfg.ca_file ?
		     gnutls_x509_trust_list_add_trust_file(tl, s->cfg.ca_file, NULL, GNUTLS_X509_FMT_PEM, 0, 0) :
		     gnutls_x509_trust_list_add_system_trust(tl, 0, 0);
	if (gr <= 0) {
		snprintf(why, len, "TLS: no trusted certificates in %s%s%s",
			 s->cfg.ca_file ? "'" : "the system store", s->cfg.ca_file ? s->cfg.ca_file : "",
			 s->cfg.ca_file ? "'" : "");
		goto out;
	}
	memset(&vd, 0, sizeof(vd));
	vd.type = GNUTLS_DT_DNS_HOSTNAME;
	vd.data = (unsigned char *)s->host;
	vd.size = 0;
	if (gnutls_x509_trust_list_verify_crt2(tl, crts, n, &vd, 1, 0, &status, NULL) < 0) {
		snprintf(why, len, "TLS: the certificate could not be verified");
		goto out;
	}
	if (status) {
		gnutls_datum_t out = { NULL, 0 };

		gnutls_certificate_verification_status_print(status, GNUTLS_CRT_X509, &out, 0);
		snprintf(why, len, "TLS: the certificate of '%s' is not trusted: %s", s->host,
			 out.data ? (char *)out.data : "verification failed");
		gnutls_free(out.data);
		goto out;
	}
	rc = 0;
out:
	if (tl)
		gnutls_x509_trust_list_deinit(tl, 1);
	for (i = 0; crts && i < n; i++)
		if (crts[i])
			gnutls_x509_crt_deinit(crts[i]);
	free(crts);
	if (chain)
		mailstream_certificate_chain_free(chain);
	return rc;
}

/* ---------------------------------------------------------------- session */

static int ehlo(struct rm_smtp *s)
{
	int code;

	if (s->cfg.helo) {
		char cmd[SMTP_LINE];

		snprintf(cmd, sizeof(cmd), "EHLO %s\r\n", s->cfg.helo);
		if (mailsmtp_send_command(s->session, cmd))
			return -1;
		code = mailsmtp_read_response(s->session);
		if (code == 250)
			return mailesmtp_parse_ehlo(s->session) == MAILSMTP_NO_ERROR ? 0 : -1;
	} else {
		if (mailesmtp_ehlo(s->session) == MAILSMTP_NO_ERROR)
			return 0;
		code = s->session->response_code;
	}
	/* a server without ESMTP: HELO */
	if (code >= 500 && code < 600)
		return mailsmtp_helo(s->session) == MAILSMTP_NO_ERROR ? 0 : -1;
	return -1;
}

/* Connect, greet, TLS (verified), AUTH.  -1 with `why` (the server's own
 * reply when it gave one). */
static int open_session(struct rm_smtp *s, char *why, size_t len)
{
	int r;

	if (s->bad_url) {
		snprintf(why, len, "'%s': expected smtp://HOST[:PORT] or smtps://HOST[:PORT]", s->cfg.url);
		return -1;
	}
	{
		struct rm_error e;

		if (rm_dynlib_need(RM_LIB_ETPAN, &e) || rm_dynlib_need(RM_LIB_GNUTLS, &e)) {
			snprintf(why, len, "%.400s", e.msg);
			return -1;
		}
	}
	s->session = mailsmtp_new(0, NULL);
	if (!s->session) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	/* 1.9.4 applies this to connect() only; the stream gets its own below */
	mailsmtp_set_timeout(s->session, (time_t)s->cfg.connect_timeout);
	if (s->implicit_tls)
		r = mailsmtp_ssl_connect_with_callback(s->session, s->host, s->port, tls_setup, s);
	else
		r = mailsmtp_socket_connect(s->session, s->host, s->port);
	if (r != MAILSMTP_NO_ERROR) {
		if (s->session->response_code) {
			char *t = reply_text(s->session);

			snprintf(why, len, "greeting: %s", t);
			free(t);
		} else {
			snprintf(why, len, "cannot connect to %s port %u: %s", s->host, s->port,
				 mailsmtp_strerror(r));
		}
		goto fail;
	}
	mailstream_low_set_timeout(mailstream_get_low(s->session->stream), (time_t)s->cfg.timeout);
	if (s->implicit_tls && verify_peer(s, why, len))
		goto fail;
	if (ehlo(s))
		goto fail_reply;
	if (s->cfg.starttls && !s->implicit_tls) {
		if (!(s->session->esmtp & MAILSMTP_ESMTP_STARTTLS)) {
			snprintf(why, len, "the server does not offer STARTTLS (delivery.starttls is true)");
			goto fail;
		}
		r = mailsmtp_socket_starttls_with_callback(s->session, tls_setup, s);
		if (r != MAILSMTP_NO_ERROR) {
			snprintf(why, len, "STARTTLS failed: %s", mailsmtp_strerror(r));
			goto fail;
		}
		mailstream_low_set_timeout(mailstream_get_low(s->session->stream), (time_t)s->cfg.timeout);
		if (verify_peer(s, why, len))
			goto fail;
		if (ehlo(s))
			goto fail_reply;
	}
	if (s->cfg.user) {
		r = mailsmtp_auth(s->session, s->cfg.user, s->cfg.password ? s->cfg.password : "");
		if (r != MAILSMTP_NO_ERROR) {
			char *t = reply_text(s->session);

			snprintf(why, len, "AUTH as '%s' failed: %s", s->cfg.user,
				 s->session->response_code >= 400 ? t : mailsmtp_strerror(r));
			free(t);
			goto fail;
		}
	}
	return 0;
fail_reply: {
	char *t = reply_text(s->session);

	snprintf(why, len, "EHLO: %s", t);
	free(t);
}
fail:
	hang_up(s, false);
	return -1;
}

/* ---------------------------------------------------------------- 8-bit */

static bool has_8bit(const char *b, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if ((unsigned char)b[i] >= 0x80)
			return true;
	return false;
}

/* Quoted-printable (RFC 2045 section 6.7) of a CRLF text body: CRLF stays a
 * line end; '=', control and 8-bit bytes, and a blank before a line end,
 * become =XX; soft line breaks keep every line within 76 characters.
 * Written here because libetpan 1.9.4's encoder
 * (mailmime_quoted_printable_write_mem) writes a blank that ends a line
 * twice ("x \r\n" becomes "x =20"), which changes the decoded text. */
static void qp_body(struct rm_sb *out, const char *b, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";
	const char *p = b, *end = b + len;

	while (p < end) {
		const char *eol = p;
		size_t col = 0;
		bool crlf;

		while (eol < end && !(eol + 1 < end && eol[0] == '\r' && eol[1] == '\n'))
			eol++;
		crlf = eol < end;
		for (; p < eol; p++) {
			unsigned char c = (unsigned char)*p;
			bool last = p + 1 == eol;
			char tok[3];
			size_t tl;

			if ((c >= 33 && c <= 126 && c != '=') || ((c == ' ' || c == '\t') && !last)) {
				tok[0] = (char)c;
				tl = 1;
			} else {
				tok[0] = '=';
				tok[1] = hex[c >> 4];
				tok[2] = hex[c & 15];
				tl = 3;
			}
			if (col + tl > 75) {
				rm_sb_adds(out, "=\r\n");
				col = 0;
			}
			rm_sb_add(out, tok, tl);
			col += tl;
		}
		if (crlf) {
			rm_sb_adds(out, "\r\n");
			p = eol + 2;
		}
	}
}

/* The message with its 8-bit body re-encoded as quoted-printable for a
 * server without 8BITMIME (RFC 6152 section 3): the header's
 * Content-Transfer-Encoding says so, the decoded body is byte-identical.
 * NULL when the message has no header/body split. Caller frees. */
char *rm_smtp_downgrade_qp(const char *b, size_t len, size_t *outlen)
{
	const char *sep = NULL, *p;
	struct rm_sb out = RM_SB_INIT;
	bool cte = false;

	for (p = b; p + 3 < b + len; p++)
		if (!memcmp(p, "\r\n\r\n", 4)) {
			sep = p + 2; /* the header ends after its last CRLF */
			break;
		}
	if (!sep)
		return NULL;
	rm_sb_init(&out);
	/* header lines, the transfer encoding replaced */
	for (p = b; p < sep;) {
		const char *eol = memchr(p, '\n', (size_t)(sep - p));
		size_t l = eol ? (size_t)(eol - p + 1) : (size_t)(sep - p);

		if (l > 26 && !strncasecmp(p, "Content-Transfer-Encoding:", 26)) {
			rm_sb_adds(&out, "Content-Transfer-Encoding: quoted-printable\r\n");
			cte = true;
		} else {
			rm_sb_add(&out, p, l);
		}
		p += l;
	}
	if (!cte)
		rm_sb_adds(&out, "Content-Transfer-Encoding: quoted-printable\r\n");
	rm_sb_adds(&out, "\r\n");
	qp_body(&out, sep + 2, (size_t)(b + len - sep - 2));
	return rm_sb_detach(&out, outlen);
}

/* ---------------------------------------------------------------- send */

static void set_all(struct rm_smtp *s, struct rm_rcpt_result *res, size_t n, bool only_unset,
		    int code, const char *text)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (only_unset && res[i].code)
			continue;
		res[i].code = code;
		free(s->texts[i]);
		s->texts[i] = rm_xstrdup(text);
		res[i].text = s->texts[i];
	}
}

/* Whether the server has said or closed anything since its last reply: an
 * idle connection it closed is readable (EOF).  Reading from a closed
 * stream is what must never happen: libetpan 1.9.4 then reads before its
 * line buffer (mailstream_read_line_remove_eol, found with valgrind). */
static bool quiet_and_open(struct rm_smtp *s)
{
	struct pollfd p;

	if (!s->session || !s->session->stream)
		return false;
	p.fd = mailstream_low_get_fd(mailstream_get_low(s->session->stream));
	p.events = POLLIN;
	p.revents = 0;
	return p.fd >= 0 && poll(&p, 1, 0) == 0;
}

/* After a transaction failed: RSET keeps the connection; a lost one, or one
 * the server is closing (421), is closed without another read. */
static void after_failure(struct rm_smtp *s)
{
	if (s->session && s->session->response_code && s->session->response_code != 421 &&
	    quiet_and_open(s) && mailsmtp_reset(s->session) == MAILSMTP_NO_ERROR)
		return;
	hang_up(s, false);
}

int rm_smtp_send(struct rm_smtp *s, const char *from, char *const *rcpts, size_t n,
		 const char *bytes, size_t len, struct rm_rcpt_result *res, char *error,
		 size_t errlen)
{
	char cmd[SMTP_LINE], *qp = NULL, *t;
	const char *body = bytes;
	size_t i, blen = len, accepted = 0;
	int code = 0, attempt;

	free_texts(s);
	if (n > MAX_RCPTS)
		n = MAX_RCPTS;
	s->texts = rm_xcalloc(n + 1, sizeof(char *));
	s->ntexts = n;
	for (i = 0; i < n; i++) {
		res[i].rcpt = rcpts[i];
		res[i].code = 0;
		res[i].text = NULL;
	}
	error[0] = '\0';
	if (!from || strpbrk(from, "<>\r\n") || strlen(from) > 254) {
		snprintf(error, errlen, "%s: the envelope sender is not an address", s->cfg.url);
		set_all(s, res, n, false, 554, error);
		return -1;
	}
	/* a reused connection the server has closed since: one fresh try */
	for (attempt = 0; attempt < 2; attempt++) {
		bool reused = s->session != NULL, eight;
		char why[700] = "";

		if (reused && !quiet_and_open(s))
			hang_up(s, false); /* closed (or talking) since the last message */

		if (!s->session && open_session(s, why, sizeof(why))) {
			snprintf(error, errlen, "%s: %s", s->cfg.url, why);
			set_all(s, res, n, false, 451, error);
			return -1;
		}
		eight = has_8bit(bytes, len);
		free(qp);
		qp = NULL;
		body = bytes;
		blen = len;
		if (eight && !(s->session->esmtp & MAILSMTP_ESMTP_8BITMIME)) {
			qp = rm_smtp_downgrade_qp(bytes, len, &blen);
			if (qp)
				body = qp;
			else
				blen = len;
		}
		snprintf(cmd, sizeof(cmd), "MAIL FROM:<%s>%s\r\n", from,
			 eight && (s->session->esmtp & MAILSMTP_ESMTP_8BITMIME) ? " BODY=8BITMIME" : "");
		code = mailsmtp_send_command(s->session, cmd) ? 0 : mailsmtp_read_response(s->session);
		if (code == 0 && reused) {
			hang_up(s, false);
			continue;
		}
		break;
	}
	if (code != 250) {
		t = reply_text(s->session);
		snprintf(error, errlen, "%s: MAIL FROM: %s", s->cfg.url, t);
		free(t);
		set_all(s, res, n, false, code >= 400 && code < 600 ? code : 451, error);
		after_failure(s);
		free(qp);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (strpbrk(rcpts[i], "<>\r\n") || strlen(rcpts[i]) > 254) {
			res[i].code = 553;
			s->texts[i] = rm_xstrdup("not an address: refused before sending");
			res[i].text = s->texts[i];
			continue;
		}
		mailesmtp_rcpt(s->session, rcpts[i], 0, NULL);
		code = s->session->response_code;
		s->texts[i] = reply_text(s->session);
		res[i].text = s->texts[i];
		if (code == 0) {
			snprintf(error, errlen, "%s: RCPT TO: %s", s->cfg.url, s->texts[i]);
			set_all(s, res, n, false, 451, error);
			hang_up(s, false);
			free(qp);
			return -1;
		}
		res[i].code = code == 251 ? 250 : code;
		if (code == 250 || code == 251) {
			res[i].code = 0; /* accepted for now: the DATA reply decides */
			accepted++;
		}
	}
	if (!accepted) {
		/* every recipient refused or deferred: each has its own reply */
		after_failure(s);
		free(qp);
		return 0;
	}
	mailsmtp_data(s->session);
	code = s->session->response_code;
	if (code != 354) {
		t = reply_text(s->session);
		snprintf(error, errlen, "%s: DATA: %s", s->cfg.url, t);
		set_all(s, res, n, true, code >= 400 && code < 600 ? code : 451, t);
		free(t);
		after_failure(s);
		free(qp);
		return -1;
	}
	/* libetpan dot-stuffs and adds "\r\n.\r\n" itself: without our final
	 * CRLF the server gets exactly our bytes */
	if (blen >= 2 && body[blen - 2] == '\r' && body[blen - 1] == '\n')
		blen -= 2;
	mailsmtp_data_message(s->session, body, blen);
	free(qp);
	code = s->session->response_code;
	t = reply_text(s->session);
	if (code == 250) {
		set_all(s, res, n, true, 250, t);
		free(t);
		return 0;
	}
	/* refused (or lost) after the message: the server's own words */
	snprintf(error, errlen, "%s: after DATA: %s", s->cfg.url, t);
	set_all(s, res, n, true, code >= 400 && code < 600 ? code : 451, t);
	free(t);
	after_failure(s);
	return -1;
}

int rm_smtp_ping(const struct rm_smtp_cfg *cfg, char *why, size_t len)
{
	struct rm_smtp *s = rm_smtp_new(cfg);
	char w[700];
	int rc = open_session(s, w, sizeof(w));

	if (rc)
		snprintf(why, len, "%s: %s", cfg->url, w);
	else
		snprintf(why, len, "%s: connected", cfg->url);
	rm_smtp_free(s);
	return rc;
}
