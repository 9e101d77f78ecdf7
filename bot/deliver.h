/*
 * deliver.h - where messages go: the transports behind one interface.
 *
 * Owns: choosing a transport from its specification and delivering one
 * message through it:
 *   smtp://HOST:PORT, smtps://HOST:PORT   (smtp.c; STARTTLS, AUTH, certificates)
 *   mbox:PATH        append, mboxrd-quoted, under an fcntl lock, fsync'd
 *   maildir:PATH     tmp/ then rename into new/, fsync'd
 *   sendmail:COMMAND [ARGS]  the message on the command's standard input;
 *                    exit 0 accepted, 75 try later, anything else refused
 *   public-inbox:DIR a public-inbox v2 inbox, through public-inbox-mda (with
 *                    PI_CONFIG and ORIGINAL_RECIPIENT from the settings); the
 *                    mda exits 0 even when it drops a message, so the import
 *                    is checked in DIR/msgmap.sqlite3
 * Opening checks what no later run can fix (a configuration error): the
 * sendmail program and public-inbox-mda exist, and public-inbox-mda will
 * not run spamc without spamassassin (publicinboxmda.spamcheck, read with
 * git config from PI_CONFIG).
 * File transports accept every recipient at once (code 250); they write
 * LF line ends, as mail readers expect of local files.
 *
 * Must not: decide what is due or record results (schedule.c and the store do).
 */
#ifndef RM_DELIVER_H
#define RM_DELIVER_H

#include "config.h"
#include "error.h"
#include "store.h"
#include "smtp.h"

struct rm_transport;

/* Open a transport; smtp holds the SMTP settings used for smtp(s):// (its
 * url is replaced by spec).  RM_ERR_CONFIG when it can never work (see
 * above).  Caller frees with rm_deliver_free(). */
int rm_deliver_open(struct rm_transport **t, const char *spec, const struct rm_smtp_cfg *smtp,
		      struct rm_error *err);
void rm_deliver_free(struct rm_transport *t);
const char *rm_deliver_spec(const struct rm_transport *t);

/* Deliver; res[i] for rcpts[i] as in rm_smtp_send().  Returns 0, or -1 with
 * `error` set when the attempt failed as a whole. */
int rm_deliver_send(struct rm_transport *t, const char *from, char *const *rcpts, size_t n,
		      const char *bytes, size_t len, struct rm_rcpt_result *res, char *error,
		      size_t errlen);

/* Can the configured transport work at all (a program that exists, a
 * public-inbox that can take mail)?  Opens and frees it, sending nothing.
 * Returns 0, or -1 with *err naming delivery.transport and where it was set
 * (a permanent problem: exit 2). */
int rm_deliver_check(const struct rm_config *cfg, struct rm_error *err);

#endif
