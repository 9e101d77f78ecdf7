/* localgit.c - see localgit.h. */
#include "localgit.h"

#include <errno.h>
#include <fcntl.h>
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

/* `git -C DIR ARGS...`, its stdout into out (at most LOCALGIT_MAX_OUT
 * bytes kept), its wait status into *status.  -1 when git cannot start. */
static int run_git(const char *dir, char *const argv_tail[], struct rm_sb *out, int *status)
{
	char *argv[16];
	int pipefd[2], n = 0, i;
	pid_t pid;
	posix_spawn_file_actions_t fa;
	char buf[8192];

	argv[n++] = "git";
	argv[n++] = "-C";
	argv[n++] = (char *)dir;
	for (i = 0; argv_tail[i] && n < 15; i++)
		argv[n++] = argv_tail[i];
	argv[n] = NULL;
	if (pipe(pipefd))
		return -1;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addclose(&fa, pipefd[0]);
	posix_spawn_file_actions_addclose(&fa, pipefd[1]);
	if (posix_spawnp(&pid, "git", &fa, NULL, argv, environ)) {
		posix_spawn_file_actions_destroy(&fa);
		close(pipefd[0]);
		close(pipefd[1]);
		return -1;
	}
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[1]);
	for (;;) {
		ssize_t got = read(pipefd[0], buf, sizeof(buf));

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		if (out->len + (size_t)got > LOCALGIT_MAX_OUT)
			continue; /* drain, but keep no more */
		rm_sb_add(out, buf, (size_t)got);
	}
	close(pipefd[0]);
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
	return 0;
}

int rm_localgit_lookup(const char *dir, const char *sha, struct rm_commit_facts *f,
		       unsigned *runs, struct rm_error *err)
{
	char fmt[] = "--format=%H%x00%P%x00%an%x00%ae%x00%aI%x00%cn%x00%ce%x00%cI%x00%B";
	char *show[] = { "show", "-s", fmt, "--no-color", (char *)sha, "--", NULL };
	char *names[] = { "show", "--name-only", "--format=", "--no-color", (char *)sha, "--", NULL };
	struct rm_sb out = RM_SB_INIT;
	const char *field[9];
	int status = 0, i;
	char *p;

	memset(f, 0, sizeof(*f));
	rm_sb_init(&out);
	(*runs)++;
	{
		/* a missing clone is a failure to retry, never an "unknown commit" */
		char *dotgit = rm_path_join(dir, ".git"), *head = rm_path_join(dir, "HEAD");
		bool repo = !access(dotgit, F_OK) || !access(head, F_OK);

		free(dotgit);
		free(head);
		if (!repo) {
			rm_sb_release(&out);
			return rm_error_set(err, RM_ERR_TEMP,
					    "local clone '%s' is missing or not a git repository", dir);
		}
	}
	if (run_git(dir, show, &out, &status)) {
		rm_sb_release(&out);
		return rm_error_set(err, RM_ERR_TEMP, "cannot run git in '%s'", dir);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		/* git exits 128 for an unknown revision */
		rm_sb_release(&out);
		return 0;
	}
	p = out.buf;
	for (i = 0; i < 9; i++) {
		field[i] = p;
		if (i < 8) {
			char *z = memchr(p, '\0', out.len - (size_t)(p - out.buf));

			if (!z) {
				rm_sb_release(&out);
				return rm_error_set(err, RM_ERR_TEMP,
						    "unexpected output from git show in '%s'", dir);
			}
			p = z + 1;
		}
	}
	set(&f->sha, field[0]);
	if (*field[1])
		f->parent = rm_xstrndup(field[1], strcspn(field[1], " \n"));
	set_clean(&f->author.name, field[2]);
	set_clean(&f->author.email, field[3]);
	set_clean(&f->date, field[4]);
	set_clean(&f->committer.name, field[5]);
	set_clean(&f->committer.email, field[6]);
	f->commit_time = rm_commit_date(field[7]);
	rm_commit_set_message(f, field[8]);
	rm_sb_reset(&out);
	if (!run_git(dir, names, &out, &status) && WIFEXITED(status) && !WEXITSTATUS(status)) {
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
	return 1;
}
