/*
 * smtp.h - SMTP delivery with libetpan's ESMTP client (mailsmtp).
 *
 * Owns: one SMTP session (smtp:// with optional STARTTLS, or smtps:// with
 * implicit TLS), server certificate verification (on by default; a CA file
 * can be named; libetpan checks nothing, so the chain and the host name are
 * verified here with GnuTLS), AUTH through libetpan's SASL (PLAIN/LOGIN/
 * CRAM-MD5, password from a file or environment variable, never logged),
 * timeouts on every step, the connection reused for many messages (RSET
 * after a failed transaction), each recipient's result with the server's
 * own reply text, and 8-bit bodies: MAIL FROM ... BODY=8BITMIME when the
 * server offers 8BITMIME (RFC 6152), else a quoted-printable downgrade whose
 * decoded body is byte-identical.
 *
 * libcurl was used before; it cannot send the BODY parameter and replaces a
 * server's refusal after DATA by its own words ("Weird server reply").
 *
 * Must not: mark anything sent (it reports; schedule.c records through store.h),
 * know about reports.
 */
#ifndef RM_SMTP_H
#define RM_SMTP_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "store.h"

struct rm_smtp_cfg {
	const char *url;       /* smtp://host:port or smtps://host:port */
	bool starttls;         /* require STARTTLS on smtp:// */
	bool verify;           /* verify the server certificate (default true) */
	const char *ca_file;   /* CA bundle, or NULL for the system's */
	const char *user;      /* AUTH user, or NULL */
	const char *password;  /* AUTH password (the caller read it from file/env) */
	const char *helo;      /* EHLO name, or NULL */
	long connect_timeout, timeout; /* seconds */
	/* public-inbox:DIR (deliver.c): the inbox's PI_CONFIG and list address */
	const char *pi_config;
	const char *pi_address;
};

struct rm_smtp;

/* Prepare a session (no connection is made before the first message). */
struct rm_smtp *rm_smtp_new(const struct rm_smtp_cfg *cfg);
void rm_smtp_free(struct rm_smtp *s);

/* Send one message (CRLF bytes) to n recipients.  res[i].code receives each
 * recipient's outcome: 250 accepted, 4xx try later, 5xx refused, and
 * res[i].text the server's reply as it wrote it ("550 5.1.1 <a@b>: user
 * unknown"; for accepted recipients the reply to the message).  On a
 * connection-level failure (refused, TLS, timeout, dropped) every recipient
 * gets a 4xx code; when MAIL FROM, DATA or the message itself is refused,
 * every recipient still pending gets that reply.  Either way `error` says
 * what happened and the return value is -1; otherwise 0 (each recipient's
 * result says the rest).  res[i].text points into storage owned by s, valid
 * until the next call. */
int rm_smtp_send(struct rm_smtp *s, const char *from, char *const *rcpts, size_t n,
		 const char *bytes, size_t len, struct rm_rcpt_result *res, char *error,
		 size_t errlen);

/* `bytes` (a CRLF message with an 8-bit body) re-encoded for a server
 * without 8BITMIME: Content-Transfer-Encoding: quoted-printable, the body
 * quoted-printable (decoding it gives the original bytes).  NULL
 * when there is no empty line ending the header.  Caller frees. */
char *rm_smtp_downgrade_qp(const char *bytes, size_t len, size_t *outlen);

/* Connect (and TLS, verifying the certificate, EHLO, AUTH) without sending anything.
 * 0 ok, -1 not; `why` says which. */
int rm_smtp_ping(const struct rm_smtp_cfg *cfg, char *why, size_t len);

#endif
