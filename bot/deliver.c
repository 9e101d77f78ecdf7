/* deliver.c - see deliver.h. */
#include "deliver.h"

#include <errno.h>
#include <strings.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dynlib.h"
#include "dynlib_sqlite.h"
#include "strbuf.h"

extern char **environ;

enum kind { T_SMTP, T_MBOX, T_MAILDIR, T_SENDMAIL, T_PUBLIC_INBOX };

struct rm_transport {
	enum kind kind;
	char *spec;
	char *path;          /* mbox file, maildir, or the sendmail command line */
	struct rm_smtp *smtp;
	unsigned counter;
	char *pi_config, *pi_address;
};

/* Whether `prog` (a path, or a name looked up in $PATH as execvp does) is
 * an executable file. */
static bool program_exists(const char *prog)
{
	const char *path = getenv("PATH"), *p;
	struct stat st;

	if (strchr(prog, '/'))
		return !stat(prog, &st) && S_ISREG(st.st_mode) && !access(prog, X_OK);
	for (p = path && *path ? path : "/usr/local/bin:/usr/bin:/bin"; p && *p;) {
		const char *colon = strchr(p, ':');
		size_t dl = colon ? (size_t)(colon - p) : strlen(p);
		struct rm_sb f = RM_SB_INIT;
		bool ok;

		rm_sb_init(&f);
		rm_sb_addf(&f, "%.*s/%s", (int)dl, dl ? p : ".", prog);
		ok = !stat(f.buf, &st) && S_ISREG(st.st_mode) && !access(f.buf, X_OK);
		rm_sb_release(&f);
		if (ok)
			return true;
		p = colon ? colon + 1 : NULL;
	}
	return false;
}

/* publicinboxmda.spamcheck of the public-inbox configuration, through
 * `git config` (the file is git-config syntax; git is what reads it right).
 * Returns 0 with *value malloc'd ("spamc", public-inbox's default, when the
 * key is unset), or -1 with `why`. */
static int pi_spamcheck(const char *file, char **value, char *why, size_t len)
{
	char *argv[] = { "git", "config", "-f", (char *)file, "--get", "publicinboxmda.spamcheck", NULL };
	posix_spawn_file_actions_t fa;
	char buf[256];
	size_t got = 0;
	ssize_t r;
	int pipefd[2], status = 0;
	pid_t pid;

	if (pipe(pipefd)) {
		snprintf(why, len, "cannot run git config: %s", strerror(errno));
		return -1;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
	posix_spawn_file_actions_addclose(&fa, pipefd[0]);
	posix_spawn_file_actions_addclose(&fa, pipefd[1]);
	if (posix_spawnp(&pid, "git", &fa, NULL, argv, environ)) {
		snprintf(why, len, "cannot run git config to read '%s': %s", file, strerror(errno));
		posix_spawn_file_actions_destroy(&fa);
		close(pipefd[0]);
		close(pipefd[1]);
		return -1;
	}
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[1]);
	while (got + 1 < sizeof(buf) && ((r = read(pipefd[0], buf + got, sizeof(buf) - 1 - got)) > 0 ||
					 (r < 0 && errno == EINTR)))
		if (r > 0)
			got += (size_t)r;
	close(pipefd[0]);
	buf[got] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || (WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 1)) {
		snprintf(why, len, "git config could not read '%s'", file);
		return -1;
	}
	*value = rm_xstrdup(WEXITSTATUS(status) == 0 ? buf : "spamc");
	return 0;
}

int rm_deliver_open(struct rm_transport **tp, const char *spec, const struct rm_smtp_cfg *smtp,
		      struct rm_error *err)
{
	struct rm_transport *t;

	*tp = NULL;
	if (!spec || !*spec)
		return rm_error_set(err, RM_ERR_CONFIG, "delivery.transport: empty");
	/* SMTP is libetpan's, its certificate checks GnuTLS's (dynlib.h) */
	if ((!strncmp(spec, "smtp://", 7) || !strncmp(spec, "smtps://", 8)) &&
	    (rm_dynlib_need(RM_LIB_ETPAN, err) || rm_dynlib_need(RM_LIB_GNUTLS, err)))
		return -1;
	/* public-inbox: its msgmap.sqlite3 is read after each posting (SQLite) */
	if (!strncmp(spec, "public-inbox:", 13) && spec[13] && rm_dynlib_need(RM_LIB_SQLITE, err))
		return -1;
	t = rm_xcalloc(1, sizeof(*t));
	t->spec = rm_xstrdup(spec);
	if (!strncmp(spec, "smtp://", 7) || !strncmp(spec, "smtps://", 8)) {
		struct rm_smtp_cfg c = *smtp;

		t->kind = T_SMTP;
		c.url = t->spec;
		t->smtp = rm_smtp_new(&c);
	} else if (!strncmp(spec, "mbox:", 5) && spec[5]) {
		t->kind = T_MBOX;
		t->path = rm_xstrdup(spec + 5);
	} else if (!strncmp(spec, "maildir:", 8) && spec[8]) {
		t->kind = T_MAILDIR;
		t->path = rm_xstrdup(spec + 8);
	} else if (!strncmp(spec, "sendmail:", 9) && spec[9]) {
		size_t pl;
		char *prog;

		t->kind = T_SENDMAIL;
		t->path = rm_xstrdup(spec + 9);
		pl = strcspn(t->path, " \t");
		prog = rm_xstrndup(t->path, pl);
		if (!pl || !program_exists(prog)) {
			rm_error_set(err, RM_ERR_CONFIG,
				     "delivery.transport: '%s': the program '%s' does not exist or is not executable",
				     spec, prog);
			free(prog);
			rm_deliver_free(t);
			return -1;
		}
		free(prog);
	} else if (!strncmp(spec, "public-inbox:", 13) && spec[13]) {
		t->kind = T_PUBLIC_INBOX;
		t->path = rm_xstrdup(spec + 13);
		if (!smtp->pi_address) {
			rm_deliver_free(t);
			return rm_error_set(err, RM_ERR_CONFIG,
					    "delivery.public_inbox_address: needed for a public-inbox transport");
		}
		if (!program_exists("public-inbox-mda")) {
			rm_deliver_free(t);
			return rm_error_set(err, RM_ERR_CONFIG,
					    "delivery.transport: '%s': the program 'public-inbox-mda' is not in $PATH (Debian: apt-get install public-inbox)",
					    spec);
		}
		{
			/* public-inbox-mda runs spamc on every message unless told not
			 * to; without spamassassin every posting fails (issue 13) */
			const char *env = getenv("PI_CONFIG"), *home = getenv("HOME");
			struct rm_sb f = RM_SB_INIT;
			char why[400], *sc = NULL;
			int bad = 0;

			rm_sb_init(&f);
			if (smtp->pi_config)
				rm_sb_adds(&f, smtp->pi_config);
			else if (env && *env)
				rm_sb_adds(&f, env);
			else
				rm_sb_addf(&f, "%s/.public-inbox/config", home ? home : "");
			if (pi_spamcheck(f.buf, &sc, why, sizeof(why))) {
				bad = rm_error_set(err, RM_ERR_CONFIG, "delivery.transport: '%s': %s", spec, why);
			} else if (strcmp(sc, "none") && !program_exists("spamc")) {
				bad = rm_error_set(err, RM_ERR_CONFIG,
					     "delivery.transport: '%s': public-inbox-mda would run spamc "
					     "(publicinboxmda.spamcheck is '%s' in '%s') and spamc is not installed, "
					     "so every posting would fail: set it with "
					     "git config -f '%s' publicinboxmda.spamcheck none, or install spamassassin",
					     spec, sc, f.buf, f.buf);
			}
			if (bad) {
				free(sc);
				rm_sb_release(&f);
				rm_deliver_free(t);
				return -1;
			}
			free(sc);
			rm_sb_release(&f);
		}
		t->pi_address = rm_xstrdup(smtp->pi_address);
		t->pi_config = smtp->pi_config ? rm_xstrdup(smtp->pi_config) : NULL;
	} else {
		rm_deliver_free(t);
		return rm_error_set(err, RM_ERR_CONFIG,
				    "delivery.transport: '%s': expected smtp://HOST:PORT, smtps://HOST:PORT, mbox:PATH, maildir:PATH or sendmail:COMMAND",
				    spec);
	}
	*tp = t;
	return 0;
}

void rm_deliver_free(struct rm_transport *t)
{
	if (!t)
		return;
	rm_smtp_free(t->smtp);
	free(t->pi_config);
	free(t->pi_address);
	free(t->spec);
	free(t->path);
	free(t);
}

const char *rm_deliver_spec(const struct rm_transport *t)
{
	return t->spec;
}

static void accept_all(struct rm_rcpt_result *res, char *const *rcpts, size_t n, int code,
		       const char *text)
{
	size_t i;

	for (i = 0; i < n; i++) {
		res[i].rcpt = rcpts[i];
		res[i].code = code;
		res[i].text = text;
	}
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* CRLF bytes as LF text; mboxrd quoting of /^>*From / when `mboxrd`. */
static void to_lf(struct rm_sb *out, const char *b, size_t len, int mboxrd)
{
	size_t i = 0;

	while (i < len) {
		const char *eol = memchr(b + i, '\n', len - i);
		size_t l = eol ? (size_t)(eol - (b + i)) : len - i;
		size_t k = 0;

		/* cppcheck-suppress knownConditionTrueFalse ; an empty line has l == 0 */
		if (l && b[i + l - 1] == '\r')
			l--;
		while (k < l && b[i + k] == '>')
			k++;
		if (mboxrd && l - k >= 5 && !memcmp(b + i + k, "From ", 5))
			rm_sb_addc(out, '>');
		rm_sb_add(out, b + i, l);
		rm_sb_addc(out, '\n');
		i += (eol ? (size_t)(eol - (b + i)) + 1 : len - i);
	}
}

static int deliver_mbox(struct rm_transport *t, const char *from, const char *bytes, size_t len,
			char *error, size_t errlen)
{
	struct rm_sb sb = RM_SB_INIT;
	struct flock fl;
	char date[64];
	time_t now = time(NULL);
	struct tm tm;
	int fd, rc = 0;

	fd = open(t->path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(error, errlen, "cannot open mbox '%s': %s", t->path, strerror(errno));
		return -1;
	}
	memset(&fl, 0, sizeof(fl));
	fl.l_type = F_WRLCK;
	fl.l_whence = SEEK_SET;
	if (fcntl(fd, F_SETLKW, &fl)) {
		snprintf(error, errlen, "cannot lock mbox '%s': %s", t->path, strerror(errno));
		close(fd);
		return -1;
	}
	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%a %b %e %H:%M:%S %Y", &tm);
	rm_sb_init(&sb);
	rm_sb_addf(&sb, "From %s %s\n", from, date);
	to_lf(&sb, bytes, len, 1);
	rm_sb_addc(&sb, '\n');
	if (write_all(fd, sb.buf, sb.len) || fsync(fd)) {
		snprintf(error, errlen, "cannot write mbox '%s': %s", t->path, strerror(errno));
		rc = -1;
	}
	rm_sb_release(&sb);
	close(fd); /* releases the lock */
	return rc;
}

static int mkdir_p(const char *dir)
{
	char *p = rm_xstrdup(dir), *s;

	for (s = p + 1; *s; s++) {
		if (*s == '/') {
			*s = '\0';
			if (mkdir(p, 0700) && errno != EEXIST) {
				free(p);
				return -1;
			}
			*s = '/';
		}
	}
	if (mkdir(p, 0700) && errno != EEXIST) {
		free(p);
		return -1;
	}
	free(p);
	return 0;
}

static int deliver_maildir(struct rm_transport *t, const char *bytes, size_t len, char *error,
			   size_t errlen)
{
	static const char *const sub[] = { "tmp", "new", "cur" };
	struct rm_sb name = RM_SB_INIT, tmp = RM_SB_INIT, dst = RM_SB_INIT, body = RM_SB_INIT;
	char host[64] = "localhost";
	struct timespec ts;
	size_t i;
	int fd, rc = -1;

	for (i = 0; i < 3; i++) {
		struct rm_sb d = RM_SB_INIT;

		rm_sb_init(&d);
		rm_sb_addf(&d, "%s/%s", t->path, sub[i]);
		if (mkdir_p(d.buf)) {
			snprintf(error, errlen, "cannot create maildir '%s': %s", d.buf, strerror(errno));
			rm_sb_release(&d);
			return -1;
		}
		rm_sb_release(&d);
	}
	gethostname(host, sizeof(host) - 1);
	host[strcspn(host, "/:")] = '\0';
	clock_gettime(CLOCK_REALTIME, &ts);
	rm_sb_init(&name);
	rm_sb_addf(&name, "%lld.M%ldP%dQ%u.%s", (long long)ts.tv_sec, ts.tv_nsec / 1000, (int)getpid(),
		   ++t->counter, host);
	rm_sb_init(&tmp);
	rm_sb_addf(&tmp, "%s/tmp/%s", t->path, name.buf);
	rm_sb_init(&dst);
	rm_sb_addf(&dst, "%s/new/%s", t->path, name.buf);
	rm_sb_init(&body);
	to_lf(&body, bytes, len, 0);
	fd = open(tmp.buf, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(error, errlen, "cannot create '%s': %s", tmp.buf, strerror(errno));
	} else if (write_all(fd, body.buf, body.len) || fsync(fd)) {
		snprintf(error, errlen, "cannot write '%s': %s", tmp.buf, strerror(errno));
		close(fd);
		unlink(tmp.buf);
	} else if (close(fd) || rename(tmp.buf, dst.buf)) {
		snprintf(error, errlen, "cannot deliver '%s': %s", dst.buf, strerror(errno));
		unlink(tmp.buf);
	} else {
		rc = 0;
	}
	rm_sb_release(&name);
	rm_sb_release(&tmp);
	rm_sb_release(&dst);
	rm_sb_release(&body);
	return rc;
}

/* Run the sendmail command (split at blanks, no shell) with the message on
 * its standard input. Returns its exit status, or -1. */
static int run_with_input(char *const argv[], char *const envp[], const char *bytes, size_t len,
			  char *error, size_t errlen);

static int deliver_sendmail(struct rm_transport *t, const char *bytes, size_t len, char *error,
			    size_t errlen)
{
	char *cmd = rm_xstrdup(t->path), *argv[32], *save = NULL, *tok;
	int argc = 0, rc;

	for (tok = strtok_r(cmd, " \t", &save); tok && argc < 31; tok = strtok_r(NULL, " \t", &save))
		argv[argc++] = tok;
	argv[argc] = NULL;
	if (!argc) {
		snprintf(error, errlen, "sendmail: no command in '%s'", t->path);
		free(cmd);
		return -1;
	}
	rc = run_with_input(argv, environ, bytes, len, error, errlen);
	free(cmd);
	return rc;
}

/* The Message-ID of a message (without <>), or NULL. */
static char *message_id_of(const char *b, size_t len)
{
	const char *p = b, *end = b + len;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		size_t l = eol ? (size_t)(eol - p) : (size_t)(end - p);

		if (l <= 1)
			break; /* the end of the headers */
		if (l > 11 && !strncasecmp(p, "Message-ID:", 11)) {
			const char *lt = memchr(p, '<', l), *gt = lt ? memchr(lt, '>', l - (size_t)(lt - p)) : NULL;

			if (lt && gt)
				return rm_xstrndup(lt + 1, (size_t)(gt - lt - 1));
		}
		p = eol ? eol + 1 : end;
	}
	return NULL;
}

static int pi_has(const char *dir, const char *mid)
{
	char *db = rm_xstrfmt("%s/msgmap.sqlite3", dir);
	sqlite3 *h;
	sqlite3_stmt *st;
	int found = 0;

	if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(h, "SELECT 1 FROM msgmap WHERE mid = ?", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, mid, -1, SQLITE_STATIC);
		found = sqlite3_step(st) == SQLITE_ROW;
		sqlite3_finalize(st);
	}
	sqlite3_close(h);
	free(db);
	return found;
}

static int deliver_public_inbox(struct rm_transport *t, const char *bytes, size_t len,
				char *error, size_t errlen)
{
	char *mid = message_id_of(bytes, len);
	char *argv[] = { "public-inbox-mda", NULL };
	char **envp;
	size_t n = 0, i;
	int rc;

	if (!mid) {
		snprintf(error, errlen, "public-inbox: the message has no Message-ID");
		return 554;
	}
	for (i = 0; environ[i]; i++)
		n++;
	envp = rm_xcalloc(n + 3, sizeof(char *));
	for (i = 0, n = 0; environ[i]; i++)
		if (strncmp(environ[i], "PI_CONFIG=", 10) && strncmp(environ[i], "ORIGINAL_RECIPIENT=", 19))
			envp[n++] = environ[i];
	envp[n++] = rm_xstrfmt("ORIGINAL_RECIPIENT=%s", t->pi_address);
	if (t->pi_config)
		envp[n++] = rm_xstrfmt("PI_CONFIG=%s", t->pi_config);
	rc = run_with_input(argv, envp, bytes, len, error, errlen);
	free(envp[n - 1]);
	if (t->pi_config)
		free(envp[n - 2]);
	free(envp);
	if (rc == 0 && !pi_has(t->path, mid)) {
		snprintf(error, errlen,
			 "public-inbox-mda exited 0 but '%s' did not import <%s> (To/Cc must name %s)",
			 t->path, mid, t->pi_address);
		rc = 554;
	}
	free(mid);
	return rc;
}

/* Run argv with the message (LF) on its standard input; its exit status or -1. */
static int run_with_input(char *const argv[], char *const envp[], const char *bytes, size_t len,
			  char *error, size_t errlen)
{
	int pipefd[2], status = 0;
	posix_spawn_file_actions_t fa;
	struct rm_sb body = RM_SB_INIT;
	pid_t pid;

	if (pipe(pipefd)) {
		snprintf(error, errlen, "cannot start '%s': %s", argv[0], strerror(errno));
		return -1;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pipefd[0], 0);
	posix_spawn_file_actions_addclose(&fa, pipefd[0]);
	posix_spawn_file_actions_addclose(&fa, pipefd[1]);
	if (posix_spawnp(&pid, argv[0], &fa, NULL, argv, envp)) {
		snprintf(error, errlen, "cannot run '%s': %s", argv[0], strerror(errno));
		posix_spawn_file_actions_destroy(&fa);
		close(pipefd[0]);
		close(pipefd[1]);
		return -1;
	}
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[0]);
	rm_sb_init(&body);
	to_lf(&body, bytes, len, 0);
	if (write_all(pipefd[1], body.buf, body.len))
		snprintf(error, errlen, "'%s' did not read the message", argv[0]);
	close(pipefd[1]);
	rm_sb_release(&body);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

int rm_deliver_send(struct rm_transport *t, const char *from, char *const *rcpts, size_t n,
		      const char *bytes, size_t len, struct rm_rcpt_result *res, char *error,
		      size_t errlen)
{
	int rc;

	error[0] = '\0';
	switch (t->kind) {
	case T_SMTP:
		return rm_smtp_send(t->smtp, from, rcpts, n, bytes, len, res, error, errlen);
	case T_MBOX:
		rc = deliver_mbox(t, from, bytes, len, error, errlen);
		accept_all(res, rcpts, n, rc ? 451 : 250, rc ? error : "written to the mbox");
		return rc;
	case T_MAILDIR:
		rc = deliver_maildir(t, bytes, len, error, errlen);
		accept_all(res, rcpts, n, rc ? 451 : 250, rc ? error : "written to the maildir");
		return rc;
	case T_SENDMAIL:
		rc = deliver_sendmail(t, bytes, len, error, errlen);
		if (rc == 0) {
			accept_all(res, rcpts, n, 250, "accepted by sendmail");
			return 0;
		}
		if (!error[0])
			snprintf(error, errlen, "sendmail: '%s' exited %d", t->path, rc);
		accept_all(res, rcpts, n, rc == 75 || rc < 0 ? 451 : 554, error);
		return -1;
	case T_PUBLIC_INBOX:
		rc = deliver_public_inbox(t, bytes, len, error, errlen);
		if (rc == 0) {
			accept_all(res, rcpts, n, 250, "imported into the public-inbox");
			return 0;
		}
		if (!error[0])
			snprintf(error, errlen, "public-inbox-mda exited %d", rc);
		accept_all(res, rcpts, n, rc == 75 || rc < 0 ? 451 : 554, error);
		return -1;
	}
	return -1;
}

int rm_deliver_check(const struct rm_config *cfg, struct rm_error *err)
{
	struct rm_transport *t;
	struct rm_smtp_cfg sc;

	memset(&sc, 0, sizeof(sc));
	sc.pi_address = cfg->pi_address;
	sc.pi_config = cfg->pi_config;
	if (rm_deliver_open(&t, cfg->transport, &sc, err)) {
		rm_error_prefix(err, "%s", rm_config_where(cfg, "delivery.transport"));
		return -1;
	}
	rm_deliver_free(t);
	return 0;
}
