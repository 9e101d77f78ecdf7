/* inbox.c - see inbox.h. */
#include "inbox.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileutil.h"
#include "store.h"
#include "strbuf.h"

static char *with_suffix(const char *path, const char *suffix)
{
	struct rm_sb sb = RM_SB_INIT;

	rm_sb_init(&sb);
	rm_sb_addf(&sb, "%s%s", path, suffix);
	return rm_sb_detach(&sb, NULL);
}

static char *fmt(const char *f, const char *a, const char *b)
{
	struct rm_sb sb = RM_SB_INIT;

	rm_sb_init(&sb);
	rm_sb_addf(&sb, f, a, b);
	return rm_sb_detach(&sb, NULL);
}

static int cmp_cstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_refused(const void *a, const void *b)
{
	return strcmp(((const struct rm_inbox_refused *)a)->path,
		      ((const struct rm_inbox_refused *)b)->path);
}

int rm_inbox_link_allowed(const char *path, const struct rm_strlist *roots, char **why)
{
	char target[PATH_MAX], *real;
	ssize_t tl = readlink(path, target, sizeof(target) - 1);
	size_t i;

	*why = NULL;
	if (tl < 0)
		tl = 0;
	target[tl] = '\0';
	rm_error_scrub(target);
	if (!roots->n) {
		*why = fmt("a symlink (to '%s'%s), and paths.inbox_links allows none", target, "");
		return -1;
	}
	real = realpath(path, NULL);
	if (!real) {
		*why = fmt("a symlink to '%s' that cannot be resolved: %s", target, strerror(errno));
		return -1;
	}
	for (i = 0; i < roots->n; i++) {
		char *root = realpath(roots->v[i], NULL);
		size_t rl = root ? strlen(root) : 0;
		int inside = root && !strncmp(real, root, rl) &&
			     (real[rl] == '/' || (rl == 1 && root[0] == '/'));

		free(root);
		if (inside) {
			free(real);
			return 0;
		}
	}
	rm_error_scrub(real);
	*why = fmt("a symlink to '%s' (%s), outside every directory of paths.inbox_links", target,
		   real);
	free(real);
	return -1;
}

static const char *kind_name(mode_t m)
{
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISSOCK(m))
		return "a socket";
	if (S_ISCHR(m) || S_ISBLK(m))
		return "a device";
	return "neither a file nor a directory";
}

/* The newest mtime of anything inside directory `dfd` (closed here) into
 * *t: a writer filling a directory archive changes files deep inside, not
 * the directory's own mtime.  Links are not followed; at most 64 levels
 * and 100,000 entries are looked at (what cannot be read counts as "now":
 * it may still be being written). */
static void newest_mtime(int dfd, time_t now, int depth, long *budget, time_t *t)
{
	DIR *d = fdopendir(dfd);
	struct dirent *de;

	if (!d) {
		close(dfd);
		*t = now;
		return;
	}
	while ((de = readdir(d))) {
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (--*budget < 0)
			break; /* a huge tree: what was seen so far */
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW)) {
			*t = now;
			break;
		}
		if (st.st_mtime > *t)
			*t = st.st_mtime;
		if (S_ISDIR(st.st_mode) && depth < 64) {
			int sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (sub < 0) {
				*t = now;
				break;
			}
			newest_mtime(sub, now, depth + 1, budget, t);
		}
	}
	closedir(d);
}

/* When `path` (stat'ed into *st) last changed: a file's mtime; for a
 * directory the newest mtime of the whole tree. */
static time_t settled_since(const char *path, const struct stat *st, time_t now)
{
	time_t t = st->st_mtime;
	long budget = 100000;
	int fd;

	if (!S_ISDIR(st->st_mode))
		return t;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return now;
	newest_mtime(fd, now, 0, &budget, &t);
	return t;
}

static void refuse(struct rm_inbox_scan *s, char *path, char *reason)
{
	s->refused = rm_xrealloc(s->refused, (s->nrefused + 1) * sizeof(*s->refused));
	s->refused[s->nrefused].path = path;
	s->refused[s->nrefused].reason = reason;
	s->nrefused++;
}

int rm_inbox_scan(const struct rm_config *cfg, time_t now, int verbose, struct rm_inbox_scan *s,
		  struct rm_error *err)
{
	DIR *d;
	struct dirent *de;

	memset(s, 0, sizeof(*s));
	if (!cfg->inbox)
		return 0;
	d = opendir(cfg->inbox);
	if (!d) {
		if (errno == ENOENT)
			return 0;
		return rm_error_set(err, RM_ERR_CONFIG, "cannot read the inbox '%s' (paths.inbox): %s",
				    cfg->inbox, strerror(errno));
	}
	while ((de = readdir(d))) {
		struct stat st;
		char *p, *marker;
		size_t l = strlen(de->d_name);
		bool done;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		p = rm_path_join(cfg->inbox, de->d_name);
		if (de->d_name[0] == '.') {
			if (verbose)
				fprintf(stderr, "robotmail: '%s': a hidden name, ignored\n", p);
			free(p);
			continue;
		}
		if (l > 9 && !strcmp(de->d_name + l - 9, ".note.txt")) {
			free(p); /* a note goes with its archive, it is none */
			continue;
		}
		if (l > 5 && !strcmp(de->d_name + l - 5, ".done")) {
			/* a marker goes with its archive */
			char *arch = rm_xstrndup(p, strlen(p) - 5);

			if (verbose && access(arch, F_OK) && errno == ENOENT)
				fprintf(stderr, "robotmail: '%s': a marker without its archive, ignored\n",
					p);
			free(arch);
			free(p);
			continue;
		}
		if (l > 5 && (!strcmp(de->d_name + l - 5, ".part") ||
			      !strcmp(de->d_name + l - 4, ".tmp"))) {
			/* by convention an archive still being copied in
			 * (rsync, curl -o NAME.part, mktemp NAME.tmp): left
			 * alone until it is renamed to its final name */
			if (verbose)
				fprintf(stderr, "robotmail: '%s' is still being written (.%s); later\n", p,
					de->d_name[l - 4] == 'p' ? "part" : "tmp");
			s->nwaiting++;
			free(p);
			continue;
		}
		if (lstat(p, &st)) {
			/* gone since readdir: another process moved it */
			if (verbose)
				fprintf(stderr, "robotmail: '%s': %s, skipped\n", p, strerror(errno));
			free(p);
			continue;
		}
		if (S_ISLNK(st.st_mode)) {
			char *why;

			if (rm_inbox_link_allowed(p, &cfg->inbox_links, &why)) {
				refuse(s, p, why);
				continue;
			}
			if (stat(p, &st)) {
				refuse(s, p, fmt("a symlink whose target cannot be read: %s%s",
						 strerror(errno), ""));
				continue;
			}
		}
		if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
			refuse(s, p, fmt("%s, not an archive%s", kind_name(st.st_mode), ""));
			continue;
		}
		marker = with_suffix(p, ".done");
		done = !access(marker, F_OK);
		free(marker);
		if (!done &&
		    now - (cfg->settle ? settled_since(p, &st, now) : st.st_mtime) < cfg->settle) {
			if (verbose)
				fprintf(stderr, "robotmail: '%s' may still be written; later\n", p);
			s->nwaiting++;
			free(p);
			continue;
		}
		s->ready = rm_xrealloc(s->ready, (s->nready + 1) * sizeof(char *));
		s->ready[s->nready++] = p;
	}
	closedir(d);
	rm_sort(s->ready, s->nready, sizeof(char *), cmp_cstr);
	rm_sort(s->refused, s->nrefused, sizeof(*s->refused), cmp_refused);
	return 0;
}

bool rm_inbox_maybe_writing(const struct rm_config *cfg, const char *path, time_t now)
{
	struct stat st;
	char *marker;
	bool done;

	if (!cfg->settle || !cfg->settle_max || stat(path, &st))
		return false;
	marker = with_suffix(path, ".done");
	done = !access(marker, F_OK);
	free(marker);
	return !done && now - settled_since(path, &st, now) < cfg->settle_max;
}

void rm_inbox_scan_free(struct rm_inbox_scan *s)
{
	size_t i;

	for (i = 0; i < s->nready; i++)
		free(s->ready[i]);
	free(s->ready);
	for (i = 0; i < s->nrefused; i++) {
		free(s->refused[i].path);
		free(s->refused[i].reason);
	}
	free(s->refused);
	memset(s, 0, sizeof(*s));
}

int rm_inbox_move(const char *path, const char *dir, struct rm_error *err)
{
	const char *base = strrchr(path, '/');
	char *dst;
	struct stat st;
	int rc = 0, n;

	base = base ? base + 1 : path;
	if (mkdir(dir, 0755) && errno != EEXIST)
		return rm_error_set(err, RM_ERR_TEMP, "cannot create '%s': %s", dir, strerror(errno));
	dst = rm_path_join(dir, base);
	/* never over an earlier archive of the same name: NAME.1, NAME.2 ... */
	for (n = 1; !lstat(dst, &st) && n < 10000; n++) {
		struct rm_sb sb = RM_SB_INIT;

		free(dst);
		rm_sb_init(&sb);
		rm_sb_addf(&sb, "%s/%s.%d", dir, base, n);
		dst = rm_sb_detach(&sb, NULL);
	}
	if (rename(path, dst)) {
		rc = rm_error_set(err, RM_ERR_TEMP, "cannot move '%s' to '%s': %s", path, dst,
				  strerror(errno));
	} else {
		/* its "finished" marker has done its job */
		char *marker = with_suffix(path, ".done");

		unlink(marker);
		free(marker);
	}
	free(dst);
	return rc;
}

int rm_inbox_claim(const struct rm_config *cfg, int *fd, struct rm_error *err)
{
	char *lockpath;

	*fd = -1;
	if (rm_store_location_shared(cfg->state_db))
		return 1; /* runs overlap; archives are claimed in the store */
	lockpath = with_suffix(cfg->state_db, ".lock");
	*fd = open(lockpath, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (*fd < 0) {
		rm_error_set(err, RM_ERR_TEMP, "cannot open the lock '%s': %s", lockpath,
			     strerror(errno));
		free(lockpath);
		return -1;
	}
	if (flock(*fd, LOCK_EX | LOCK_NB)) {
		fprintf(stderr, "robotmail: another run is active (lock '%s'); nothing to do\n",
			lockpath);
		close(*fd);
		*fd = -1;
		free(lockpath);
		return 0;
	}
	free(lockpath);
	return 1;
}

void rm_inbox_release(int fd)
{
	if (fd >= 0)
		close(fd);
}

size_t rm_inbox_claim_batch(const struct rm_config *cfg, size_t nready)
{
	return rm_store_location_shared(cfg->state_db) ? 8 : nready ? nready : 1;
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

int rm_inbox_claim_archives(struct rm_store *st, const struct rm_config *cfg, char *const *paths,
			    size_t n, char ***mine, size_t *nmine, struct rm_error *err)
{
	bool shared = rm_store_location_shared(cfg->state_db);
	size_t i;

	*mine = rm_xcalloc(n + 1, sizeof(char *));
	*nmine = 0;
	if (rm_store_renew(st, err)) /* what this run holds already stays its own */
		return -1;
	for (i = 0; i < n; i++) {
		struct stat sb;
		bool got;

		if (rm_store_claim_archive(st, base_name(paths[i]), &got, err))
			return -1; /* those claimed so far: the caller releases *mine */
		if (!got)
			continue; /* another live run has it */
		if (shared && lstat(paths[i], &sb)) {
			/* another run finished it between our scan and our claim */
			if (rm_store_release_archive(st, base_name(paths[i]), err))
				return -1;
			continue;
		}
		(*mine)[(*nmine)++] = paths[i];
	}
	return 0;
}

int rm_inbox_release_archives(struct rm_store *st, char *const *paths, size_t n,
			      struct rm_error *err)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (rm_store_release_archive(st, base_name(paths[i]), err))
			return -1; /* the rest expire with their lease */
	return 0;
}

char *rm_inbox_materials_dir(const char *dir, const char *message_id)
{
	char day[9], *d1, *d2;

	snprintf(day, sizeof(day), "%.8s", message_id);
	d1 = rm_path_join(dir, day);
	d2 = rm_path_join(d1, message_id);
	mkdir(dir, 0755);
	mkdir(d1, 0755);
	mkdir(d2, 0755);
	free(d1);
	return d2;
}

void rm_inbox_write_materials(const char *dir, const char *message_id,
			      const struct rm_material *files, size_t nfiles, int verbose)
{
	char *d2;
	size_t i;

	if (!dir)
		return;
	d2 = rm_inbox_materials_dir(dir, message_id);
	for (i = 0; i < nfiles; i++) {
		char *dst = rm_path_join(d2, files[i].name);

		if (rm_write_file(dst, files[i].data, files[i].len))
			fprintf(stderr, "robotmail: warning: cannot write '%s'\n", dst);
		else if (verbose && strncmp(files[i].name, "config-", 7))
			fprintf(stderr, "robotmail: wrote %s\n", dst);
		free(dst);
	}
	free(d2);
}

int rm_inbox_claim_refused(struct rm_store *st, const struct rm_config *cfg,
			   const struct rm_inbox_refused *v, size_t n, struct rm_inbox_refused **mine,
			   size_t *nmine, struct rm_error *err)
{
	char **paths = rm_xcalloc(n + 1, sizeof(char *)), **got = NULL;
	size_t i, j, ngot = 0;
	int rc;

	*mine = rm_xcalloc(n + 1, sizeof(**mine));
	*nmine = 0;
	for (i = 0; i < n; i++)
		paths[i] = v[i].path;
	rc = rm_inbox_claim_archives(st, cfg, paths, n, &got, &ngot, err);
	for (i = 0; i < n; i++)
		for (j = 0; j < ngot; j++)
			if (got[j] == v[i].path)
				(*mine)[(*nmine)++] = v[i];
	free(got);
	free(paths);
	return rc;
}

int rm_inbox_release_refused(struct rm_store *st, const struct rm_inbox_refused *v, size_t n,
			     struct rm_error *err)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (rm_store_release_archive(st, base_name(v[i].path), err))
			return -1;
	return 0;
}

int rm_inbox_check_state_dir(const struct rm_config *cfg, struct rm_error *err)
{
	char *dir, *slash, *p;
	struct stat st;

	if (rm_store_location_shared(cfg->state_db))
		return 0; /* a database server, no directory */
	dir = rm_xstrdup(cfg->state_db);
	slash = strrchr(dir, '/');
	if (!slash) {
		free(dir);
		return 0; /* the current directory */
	}
	*slash = '\0';
	for (p = dir + 1; *dir && p <= dir + strlen(dir); p++) {
		char c = *p;

		if (c != '/' && c != '\0')
			continue;
		*p = '\0';
		if (mkdir(dir, 0750) && errno != EEXIST) {
			rm_error_set(err, RM_ERR_CONFIG, "paths.state_db (%s): cannot create the state directory '%s': %s",
				     rm_config_where(cfg, "paths.state_db"), dir, strerror(errno));
			free(dir);
			return -1;
		}
		*p = c;
	}
	if (*dir && (stat(dir, &st) || !S_ISDIR(st.st_mode) || access(dir, W_OK))) {
		rm_error_set(err, RM_ERR_CONFIG, "paths.state_db (%s): the state directory '%s' %s",
			     rm_config_where(cfg, "paths.state_db"), dir,
			     stat(dir, &st) ? strerror(errno) : !S_ISDIR(st.st_mode) ? "is not a directory" :
			     "is not writable");
		free(dir);
		return -1;
	}
	free(dir);
	return 0;
}

int rm_inbox_check_dir(const struct rm_config *cfg, struct rm_error *err)
{
	struct stat st;

	if (stat(cfg->inbox, &st))
		return rm_error_set(err, RM_ERR_CONFIG, "paths.inbox (%s): '%s': %s",
				    rm_config_where(cfg, "paths.inbox"), cfg->inbox, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return rm_error_set(err, RM_ERR_CONFIG, "paths.inbox (%s): '%s' is not a directory",
				    rm_config_where(cfg, "paths.inbox"), cfg->inbox);
	return 0;
}
