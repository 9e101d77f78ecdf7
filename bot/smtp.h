/*
 * smtp.h - SMTP delivery with libcurl.
 *
 * Owns: one SMTP session (smtp:// with optional STARTTLS, or smtps:// with
 * implicit TLS), server certificate verification (on by default; a CA file
 * can be named), AUTH (PLAIN/LOGIN, password from a file or environment
 * variable, never logged), timeouts on every step, the connection reused for
 * many messages, and the result of each recipient (RCPT replies are read
 * from libcurl's protocol trace; libcurl has no API for them).
 *
 * Must not: mark anything sent (it reports; schedule.c records through store.h), know about
 * reports.  Chosen over libetpan's mailsmtp because libetpan's STARTTLS does
 * not verify certificates (shared/notes/deps-and-peers.md).
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
 * recipient's outcome: 250 accepted, 4xx try later, 5xx refused.  On a
 * connection-level failure (refused, TLS, timeout, dropped) every recipient
 * gets a 4xx code and `error` says why; the return value is then -1,
 * otherwise 0.  res[i].text points into storage owned by s, valid until the
 * next call. */
int rm_smtp_send(struct rm_smtp *s, const char *from, char *const *rcpts, size_t n,
		 const char *bytes, size_t len, struct rm_rcpt_result *res, char *error,
		 size_t errlen);

/* Connect (and TLS, verifying the certificate) without sending anything.
 * 0 ok, -1 not; `why` says which. */
int rm_smtp_ping(const struct rm_smtp_cfg *cfg, char *why, size_t len);

#endif
