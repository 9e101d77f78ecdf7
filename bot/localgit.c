/* localgit.c - see localgit.h. */
#include "localgit.h"

#include <errno.h>
#include <poll.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fileutil.h"
#include "strbuf.h"

extern char **environ;

#define LOCALGIT_MAX_OUT (16u << 20) /* git output kept, at most */

static void set(char **dst, const char *v)
{
	free(*dst);
	*dst = v ? rm_xstrdup(v) : NULL;
}

static void set_clean(char **dst, const char *v)
{
	set(dst, v);
	rm_commit_clean(*dst);
}

/* `git -C DIR ARGS...`: its stdout into out (at most LOCALGIT_MAX_OUT bytes
 * kept), the start of its stderr into errout, its wait status into *status.
 * -1 when git cannot start. */
static int run_git(const char *dir, char *const argv_tail[], struct rm_sb *out,
		   struct rm_sb *errout, int *status)
{
	char *argv[16];
	int po[2], pe[2], n = 0, i, open_fds = 2;
	pid_t pid;
	posix_spawn_file_actions_t fa;
	char buf[8192];

	argv[n++] = "git";
	argv[n++] = "-C";
	argv[n++] = (char *)dir;
	for (i = 0; argv_tail[i] && n < 15; i++)
		argv[n++] = argv_tail[i];
	argv[n] = NULL;
	if (pipe(po))
		return -1;
	if (pipe(pe)) {
		close(po[0]);
		close(po[1]);
		return -1;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, po[1], 1);
	posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
	posix_spawn_file_actions_addclose(&fa, po[0]);
	posix_spawn_file_actions_addclose(&fa, po[1]);
	posix_spawn_file_actions_addclose(&fa, pe[0]);
	posix_spawn_file_actions_addclose(&fa, pe[1]);
	if (posix_spawnp(&pid, "git", &fa, NULL, argv, environ)) {
		posix_spawn_file_actions_destroy(&fa);
		close(po[0]);
		close(po[1]);
		close(pe[0]);
		close(pe[1]);
		return -1;
	}
	posix_spawn_file_actions_destroy(&fa);
	close(po[1]);
	close(pe[1]);
	/* both pipes at once: git must never block on a full one */
	while (open_fds) {
		struct pollfd pfd[2] = { { po[0], POLLIN, 0 }, { pe[0], POLLIN, 0 } };
		int k;

		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (k = 0; k < 2; k++) {
			struct rm_sb *sb = k ? errout : out;
			size_t cap = k ? 4096 : LOCALGIT_MAX_OUT;
			ssize_t got;

			if (pfd[k].fd < 0 || !(pfd[k].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			got = read(pfd[k].fd, buf, sizeof(buf));
			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0) {
				close(k ? pe[0] : po[0]);
				if (k)
					pe[0] = -1;
				else
					po[0] = -1;
				open_fds--;
				continue;
			}
			if (sb->len + (size_t)got <= cap)
				rm_sb_add(sb, buf, (size_t)got); /* else drain, but keep no more */
		}
	}
	if (po[0] >= 0)
		close(po[0]);
	if (pe[0] >= 0)
		close(pe[0]);
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
	return 0;
}

/* The first line of git's complaint, for a message. */
static const char *first_line(struct rm_sb *e)
{
	char *p = e->buf;

	while (!strncmp(p, "warning: ", 9) && strchr(p, '\n'))
		p = strchr(p, '\n') + 1;
	p[strcspn(p, "\n")] = '\0';
	rm_commit_clean(p);
	return *p ? p : "no message";
}

int rm_localgit_lookup(const char *dir, const char *sha, struct rm_commit_facts *f,
		       unsigned *runs, struct rm_error *err)
{
	char fmt[] = "--format=%H%x00%P%x00%an%x00%ae%x00%aI%x00%cn%x00%ce%x00%cI%x00%B";
	char *show[] = { "show", "-s", fmt, "--no-color", (char *)sha, "--", NULL };
	char *names[] = { "show", "--name-only", "--format=", "--no-color", (char *)sha, "--", NULL };
	struct rm_sb out = RM_SB_INIT, errout = RM_SB_INIT;
	const char *field[9];
	int status = 0, i;
	char *p;

	memset(f, 0, sizeof(*f));
	rm_sb_init(&out);
	rm_sb_init(&errout);
	(*runs)++;
	{
		/* a missing clone is a failure to retry, never an "unknown commit" */
		char *dotgit = rm_path_join(dir, ".git"), *head = rm_path_join(dir, "HEAD");
		bool repo = !access(dotgit, F_OK) || !access(head, F_OK);

		free(dotgit);
		free(head);
		if (!repo) {
			rm_sb_release(&out);
			rm_sb_release(&errout);
			return rm_error_set(err, RM_ERR_TEMP,
					    "local clone '%s' is missing or not a git repository", dir);
		}
	}
	if (run_git(dir, show, &out, &errout, &status)) {
		rm_sb_release(&out);
		rm_sb_release(&errout);
		return rm_error_set(err, RM_ERR_TEMP, "cannot run git in '%s'", dir);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		int rc = 0;

		if (strstr(errout.buf, "dubious ownership") || strstr(errout.buf, "safe.directory"))
			/* git >= 2.35.2 reads no repository owned by another user:
			 * every commit would look unknown, for good */
			rc = rm_error_set(err, RM_ERR_CONFIG,
					  "git refuses the local clone '%s': it is owned by another user "
					  "(dubious ownership); run robotmail as its owner, or allow it with "
					  "git config --global --add safe.directory '%s'",
					  dir, dir);
		else if (!WIFEXITED(status) ||
			 (!strstr(errout.buf, "unknown revision") && !strstr(errout.buf, "bad object") &&
			  !strstr(errout.buf, "bad revision") && !strstr(errout.buf, "ambiguous argument")))
			rc = rm_error_set(err, RM_ERR_TEMP, "git show %s in '%s' failed: %s", sha, dir,
					  first_line(&errout));
		/* else: the clone does not have the commit (git exits 128) */
		rm_sb_release(&out);
		rm_sb_release(&errout);
		return rc;
	}
	p = out.buf;
	for (i = 0; i < 9; i++) {
		field[i] = p;
		if (i < 8) {
			char *z = memchr(p, '\0', out.len - (size_t)(p - out.buf));

			if (!z) {
				rm_sb_release(&out);
				rm_sb_release(&errout);
				return rm_error_set(err, RM_ERR_TEMP,
						    "unexpected output from git show in '%s'", dir);
			}
			p = z + 1;
		}
	}
	set(&f->sha, field[0]);
	if (*field[1])
		f->parent = rm_xstrndup(field[1], strcspn(field[1], " \n"));
	/* git prints a date placeholder as it is when it cannot parse the
	 * ident line it belongs to (an author line with a CR or NUL in it):
	 * that date is unknown, as it always was, not a malformed answer */
	if (!strcmp(field[4], "%aI"))
		field[4] += 3;
	if (!strcmp(field[7], "%cI"))
		field[7] += 3;
	set_clean(&f->author.name, field[2]);
	set_clean(&f->author.email, field[3]);
	set_clean(&f->date, field[4]);
	set_clean(&f->committer.name, field[5]);
	set_clean(&f->committer.email, field[6]);
	{
		/* %aI and %cI are strict ISO 8601; anything else is not this git's answer */
		long long unused;

		if (rm_commit_read_date(field[4], "%aI", dir, &unused, err) ||
		    rm_commit_read_date(field[7], "%cI", dir, &f->commit_time, err)) {
			rm_sb_release(&out);
			rm_sb_release(&errout);
			err->kind = RM_ERR_TEMP;
			return -1;
		}
	}
	rm_commit_set_message(f, field[8]);
	rm_sb_reset(&out);
	rm_sb_reset(&errout);
	if (!run_git(dir, names, &out, &errout, &status) && WIFEXITED(status) && !WEXITSTATUS(status)) {
		const char *q = out.buf;

		while (*q) {
			size_t l = strcspn(q, "\n");

			if (l)
				rm_commit_add_file(f, q, l);
			q += l;
			if (*q)
				q++;
		}
	}
	rm_sb_release(&out);
	rm_sb_release(&errout);
	return 1;
}

int rm_localgit_is_ancestor(const char *dir, const char *ancestor, const char *commit,
			    struct rm_error *err)
{
	char *argv[] = { "merge-base", "--is-ancestor", (char *)ancestor, (char *)commit, NULL };
	struct rm_sb out = RM_SB_INIT, errout = RM_SB_INIT;
	int status = 0, rc;

	rm_sb_init(&out);
	rm_sb_init(&errout);
	if (run_git(dir, argv, &out, &errout, &status))
		rc = rm_error_set(err, RM_ERR_TEMP, "cannot run git in '%s'", dir);
	else if (WIFEXITED(status) && WEXITSTATUS(status) <= 1)
		rc = WEXITSTATUS(status) == 0; /* 0: an ancestor, 1: not */
	else /* 128: an unknown commit, no repository, ... */
		rc = rm_error_set(err, RM_ERR_TEMP, "git merge-base --is-ancestor %s %s in '%s' failed: %s",
				  ancestor, commit, dir, first_line(&errout));
	rm_sb_release(&out);
	rm_sb_release(&errout);
	return rc;
}
