/*
 * config.h - robotmail's configuration (config/robotmail.yaml).
 *
 * Owns: loading the YAML configuration, validating every key with file:line
 * errors (an unknown key is an error: a typo must not silently fall back to
 * a default), `include:` of profile files (config/profiles/0day.yaml holds
 * the 0-day robot's names, links, disclaimer and signature), and neutral
 * defaults: no built-in identity, no lists, no links that name somebody's
 * archive.  Secrets are never read here: the config only names the file or
 * environment variable that holds them.
 *
 * Must not: read anything but the config file; open networks or databases.
 */
#ifndef RM_CONFIG_H
#define RM_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

enum rm_provider {
	RM_PROVIDER_NONE = 0,
	RM_PROVIDER_CGIT,
	RM_PROVIDER_GITHUB,
	RM_PROVIDER_GITEA,
	RM_PROVIDER_GITLAB,
	RM_PROVIDER_LOCAL_GIT,
};

/* What happens to a report on a branch that no tree names (unknown_branch:). */
enum rm_unknown_branch {
	RM_UNKNOWN_BRANCH_SKIP = 0, /* no report; the archive counts as done; one warning */
	RM_UNKNOWN_BRANCH_HOLD,     /* the archive waits in the inbox (exit 75) */
	RM_UNKNOWN_BRANCH_FAIL,     /* the archive goes to failed/ (exit 1) */
};

struct rm_strlist {
	char **v;
	size_t n;
};

/* One monitored git tree. */
struct rm_tree_cfg {
	char *name;        /* as in subjects: "linus" in [linus:master] */
	char *branch;      /* "master" */
	char *url;         /* printed in reports, e.g. https://git.kernel.org/cgit/.../linux.git */
	enum rm_provider provider;
	char *api;         /* provider base: cgit repo URL, https://api.github.com/repos/o/r,
			    * https://gitea.example/api/v1/repos/o/r, .../api/v4/projects/ID,
			    * or a local clone directory for local-git */
	char *token_file;  /* file holding an API token, or NULL */
	char *token_env;   /* environment variable holding it, or NULL */
	struct rm_strlist aliases; /* job.yaml branch prefixes that mean this tree */
	struct rm_strlist mail_to, mail_cc;
	bool patches;      /* a tree of mailing-list patches: reports reply to the patch mail */
};

/* A recipients rule: when `pattern` (PCRE2) matches the commit subject, one
 * of the changed paths, or the testcase, `cc` is copied. */
struct rm_rcpt_rule {
	char *on;       /* "subject", "path" or "testcase" */
	char *pattern;
	struct rm_strlist cc;
	int line;       /* where it was written */
};

/* One inbound mail source of `robotmail listen`. */
struct rm_listen_src {
	char *source;        /* maildir:DIR, imaps://HOST:PORT/MAILBOX or public-inbox:URL */
	char *user, *password_file, *ca_file;
	int line;            /* where it was written */
};

struct rm_config {
	char *file; /* NULL when only the embedded defaults are used */

	/* robot identity: name and address have no default (required) */
	char *robot_name;      /* "Example CI robot" */
	char *robot_address;   /* From address, e.g. robot@example.org */
	char *msgid_local;     /* "robotmail" in <YYYYMMDDhhmm.hash-robotmail@example.org> */
	char *msgid_domain;    /* default: the domain of robot_address */
	char *timezone;        /* "+0000": report times and Message-ID dates */
	char *disclaimer;      /* text after the tables of performance reports, or NULL */
	char *signature;       /* text that ends every report, or NULL */
	struct rm_strlist cc;  /* always copied (the robot's lists) */
	bool cc_self;          /* the robot copies itself, last */
	bool patch_base_guessed; /* robot.patch_base: guessed: a patch report prints
				  * base: only when the robot chose the base (the
				  * 0-day robot's reports); false (always): the
				  * submitter's base-commit: when given */

	/* links */
	char *lore_base;       /* Closes: <lore_base>/<msgid>, or NULL: no Closes: line */
	char *archive_base;    /* <archive_base>/<YYYYMMDD>/<msgid>, or NULL: no materials link */
	char *patch_link_base; /* patch link: <base>/<patch msgid>/ */
	char *patch_branches;  /* url: <base>/<Author-Name>/<subject-slug>/<YYYYMMDD-HHMMSS> */
	char *patch_mail_base; /* <base>/<patch msgid>/raw: the patch mail (public-inbox), or NULL */
	char *status_base;     /* links.status: where `robotmail status --html` is published;
				* reports end with <base>/f/<id>.html, or NULL */

	/* files */
	char *state_db;        /* a SQLite file, or a postgresql:// URL (top-level `store:`) */
	char *host_id;         /* this host among several on one PostgreSQL store (NULL: the hostname) */
	long lease;            /* seconds a claim holds without renewal (`lease: 60s`) */
	char *metrics;
	char *metrics_file;    /* paths.metrics_file: the Prometheus textfile `run` writes, or NULL */
	char *programs;
	char *templates;

	/* git web API */
	long connect_timeout;  /* seconds */
	long timeout;          /* seconds, whole request */
	long retries;          /* extra attempts for 5xx and timeouts */
	long concurrency;      /* lookups in flight */
	long miss_ttl;         /* longest wait before an unknown commit is asked again (lookup.c) */
	long max_wait;         /* longest rate-limit wait honoured, seconds */
	long lookup_horizon;   /* seconds an archive waits for a commit its tree does not
				* know yet (a mirror behind); 0: unknown fails at once */
	bool defer_on_failure; /* hold reports whose commit facts failed */
	long evidence_max_lines; /* evidence.max_lines: lines of a log excerpt */
	long evidence_max_bytes; /* evidence.max_bytes: bytes of a log excerpt */

	struct rm_tree_cfg *trees;
	size_t ntrees;

	/* the cron run */
	char *inbox, *done_dir, *failed_dir; /* archives: new, reported, refused */
	struct rm_strlist inbox_links; /* directories an inbox symlink may point into
					* (empty: a symlink in the inbox is refused) */
	long settle;           /* seconds a tarball must be unchanged to count as finished */
	long settle_max;       /* seconds an unreadable archive without a marker may still
				* be a stalled writer's (left in the inbox); 0: never */
	enum rm_unknown_branch unknown_branch; /* a job whose branch no tree names */

	/* delivery */
	char *transport;       /* smtp://, smtps://, mbox:, maildir:, sendmail: */
	bool starttls;
	bool tls_verify;
	char *ca_file;
	char *smtp_user;
	char *password_file;   /* the SMTP password: a file ... */
	char *password_env;    /* ... or an environment variable; never on the command line */
	char *helo;
	long smtp_connect_timeout, smtp_timeout;
	long max_age;          /* seconds before a message that cannot be delivered fails */
	long backoff;          /* first retry delay; doubles per attempt */
	long batch;            /* messages delivered per run at most */
	long hourly_cap;       /* messages sent per hour at most (0: no cap) */
	char *emergency_stop;  /* when this file exists, nothing is delivered */
	struct rm_strlist hold; /* trees or list addresses whose reports wait for `queue release` */
	struct rm_strlist cap_lists; /* list addresses with a daily cap ... */
	long *cap_values;       /* ... of this many messages per 24 hours */
	char *charset;          /* Content-Type charset of the reports */
	char *pi_config, *pi_address; /* public-inbox transport: PI_CONFIG and the inbox address */

	/* recipients */
	struct rm_strlist cc_trailers;   /* trailers whose people are copied */
	struct rm_rcpt_rule *rules;      /* per-subsystem rules */
	size_t nrules;
	char *maintainers;               /* a MAINTAINERS file, or NULL */
	long maintainers_cap;            /* at most this many from it */
	char *opt_out;                   /* file of addresses and /regex/ lines */
	long max_recipients;             /* all To and Cc together */

	/* where each key was set: key "paths.inbox" -> "'FILE' line N" */
	struct rm_strlist where_keys, where_at;
	/* listen (replies and their commands) */
	struct rm_listen_src *listen;    /* listen: a mapping, or a list of them */
	size_t nlisten;
	struct rm_strlist listen_maintainers; /* may change any finding's state */
	struct rm_strlist listen_lists;  /* List-Ids whose mail may be answered */
	long listen_rate;                /* mails read per sender and hour at most */
	bool listen_footer;              /* reports end with a line on how to answer
					  * and opt out (the List-Unsubscribe header is
					  * there whenever listen has a source) */
};

/* Load `file` (NULL: neutral defaults only).  Relative paths in the file
 * are taken relative to the current directory; an `include:` (a file or a
 * list of files, read before the other keys of the including file, which
 * override them) is taken relative to the including file's directory.  On
 * error err names the file, line and key (kind RM_ERR_CONFIG).  Free with
 * rm_config_free(). */
int rm_config_load(struct rm_config *c, const char *file, struct rm_error *err);

/* The keys every command that builds mail needs: robot.name and
 * robot.address (there is no built-in identity).  -1 with err (RM_ERR_CONFIG)
 * naming the missing key and what to write. */
int rm_config_check_identity(const struct rm_config *c, struct rm_error *err);
void rm_config_free(struct rm_config *c);

/* The tree a job's `branch:` value belongs to ("linus/master" -> linus),
 * or NULL.  The tree name or one of its aliases must equal the part before
 * the first '/'. */
const struct rm_tree_cfg *rm_config_tree_for_branch(const struct rm_config *c,
						    const char *branch);
const struct rm_tree_cfg *rm_config_tree(const struct rm_config *c, const char *name);

const char *rm_config_provider_name(enum rm_provider p);

/* Where `key` (e.g. "paths.inbox", "delivery.transport") was set, as
 * "'FILE' line N", or "the default of 'KEY'" when no file set it; for
 * errors about a value that loaded fine but does not work.  Owned by c. */
const char *rm_config_where(const struct rm_config *c, const char *key);

#endif
