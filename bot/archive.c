/* archive.c - see archive.h. */
#include "archive.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dynlib_archive.h"
#include "fileutil.h"
#include "jsonload.h"
#include "strbuf.h"
#include "text.h"

#define MAX_DIR_DEPTH 32

struct rm_file {
	char *path;
	char *data;
	size_t len;
	/* a commit's matrix.json found by a directory walk is not held: it is
	 * read from here when its root loads, and freed once read (data NULL) */
	char *abs;
	/* a tarball's commit matrix.json, read while the tarball was (rows
	 * no rule keeps dropped; data NULL): load_matrix takes it */
	struct rm_matrix *matrix;
	/* a tarball's run stats.json met before its commit's matrix.json
	 * could: skipped, its declared size counted (len), read in a second
	 * pass only if no matrix.json came (read_pending) */
	bool pending;
};

/* ------------------------------------------------------------ small helpers */

/* libarchive's message, never NULL */
static const char *aerr(struct archive *ar)
{
	const char *s = archive_error_string(ar);

	return s ? s : "unexpected end of data";
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* Is the component [s, s+len) a run directory name (1 to 5 digits)? */
static bool is_run_name(const char *s, size_t len)
{
	size_t i;

	if (len < 1 || len > 5)
		return false;
	for (i = 0; i < len; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return true;
}

/* The name of the directory holding `path`, as [*s, *s + *len). */
static bool parent_name(const char *path, const char **s, size_t *len)
{
	const char *end = strrchr(path, '/');
	const char *start;

	if (!end)
		return false;
	start = end;
	while (start > path && start[-1] != '/')
		start--;
	*s = start;
	*len = (size_t)(end - start);
	return true;
}

static bool parent_is_run(const char *path)
{
	const char *s;
	size_t len;

	return parent_name(path, &s, &len) && is_run_name(s, len);
}

/* Which members robotmail keeps in memory. */
static bool is_wanted(const char *path)
{
	const char *b = base_name(path);

	if (!strcmp(b, "job.yaml") || !strcmp(b, "job.sh") || !strcmp(b, "reproduce.sh") ||
	    !strcmp(b, "stats.json") || !strcmp(b, "stats.json.gz"))
		return true;
	/* a kernel config shipped with a run: config-<kernel release> */
	if (!strncmp(b, "config-", 7) && parent_is_run(path))
		return true;
	/* the commit-level matrix; a run's matrix.json.gz is its time series */
	if (!strcmp(b, "matrix.json") || !strcmp(b, "matrix.json.gz"))
		return !parent_is_run(path);
	return false;
}

/* A run's reproduction materials: only a queued report's materials read
 * them (rm_archive_opts.no_materials). */
static bool is_material(const char *path)
{
	const char *b = base_name(path);

	return (!strcmp(b, "job.sh") || !strcmp(b, "reproduce.sh") || !strncmp(b, "config-", 7)) &&
	       parent_is_run(path);
}

/* A run's stats.json is only needed when its commit has no matrix.json:
 * these say which files those are and where their commit directory ends. */
static bool is_run_stats(const char *path)
{
	const char *b = base_name(path);

	return (!strcmp(b, "stats.json") || !strcmp(b, "stats.json.gz")) && parent_is_run(path);
}

/* Length of the commit directory part of "<commit>/<run>/stats.json". */
static size_t stats_commit_len(const char *path)
{
	const char *rs;
	size_t rlen;

	if (!parent_name(path, &rs, &rlen) || rs == path)
		return 0;
	return (size_t)(rs - path) - 1;
}

static bool is_commit_matrix(const char *path)
{
	const char *b = base_name(path);

	return (!strcmp(b, "matrix.json") || !strcmp(b, "matrix.json.gz")) && !parent_is_run(path);
}

static void add_warning(struct rm_archive *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void add_warning(struct rm_archive *a, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	rm_error_scrub(buf); /* one warning, one line */
	a->warnings = rm_xrealloc(a->warnings, (a->nwarnings + 1) * sizeof(char *));
	a->warnings[a->nwarnings++] = rm_xstrdup(buf);
}

struct filelist {
	struct rm_file *v;
	size_t n, alloc;
	unsigned long long total;
	bool no_materials; /* rm_archive_opts.no_materials, for a directory walk */
	unsigned long long max_stream; /* rm_archive_opts.max_stream, or RM_ARCHIVE_MAX_STREAM */
};

/* Count len more bytes of result files (at `path`) against
 * RM_ARCHIVE_MAX_TOTAL. */
static int count_bytes(struct filelist *fl, const char *source, const char *path, size_t len,
		       struct rm_error *err)
{
	fl->total += len;
	if (fl->total > RM_ARCHIVE_MAX_TOTAL)
		return rm_error_set(err, RM_ERR_INPUT,
				    "'%s': more than %llu MiB of result files (at '%s')", source,
				    RM_ARCHIVE_MAX_TOTAL >> 20, path);
	return 0;
}

static int add_file(struct filelist *fl, const char *source, const char *path, char *data,
		    size_t len, struct rm_error *err)
{
	if (count_bytes(fl, source, path, len, err)) {
		free(data);
		return -1;
	}
	fl->v = rm_xgrow(fl->v, &fl->alloc, fl->n + 1, sizeof(*fl->v));
	fl->v[fl->n].path = rm_xstrdup(path);
	fl->v[fl->n].data = data;
	fl->v[fl->n].len = len;
	fl->v[fl->n].abs = NULL;
	fl->v[fl->n].matrix = NULL;
	fl->v[fl->n].pending = false;
	fl->n++;
	return 0;
}

/* Does the list hold <dir>/matrix.json(.gz)? (linear: called per stats.json
 * of tarballs, and per deferred stats.json of directories) */
static bool has_commit_matrix(const struct filelist *fl, const char *dir, size_t dlen)
{
	size_t i;

	for (i = 0; i < fl->n; i++) {
		const char *p = fl->v[i].path;

		if (!strncmp(p, dir, dlen) && p[dlen] == '/' &&
		    (!strcmp(p + dlen + 1, "matrix.json") || !strcmp(p + dlen + 1, "matrix.json.gz")))
			return true;
	}
	return false;
}

/* Drop stats.json entries of the commit directory `dir`. */
static void drop_run_stats(struct filelist *fl, const char *dir, size_t dlen)
{
	size_t i, j = 0;

	for (i = 0; i < fl->n; i++) {
		const char *p = fl->v[i].path;

		if (is_run_stats(p) && stats_commit_len(p) == dlen && !strncmp(p, dir, dlen)) {
			fl->total -= fl->v[i].len;
			free(fl->v[i].path);
			free(fl->v[i].data);
			continue;
		}
		fl->v[j++] = fl->v[i];
	}
	fl->n = j;
}

static int cmp_file(const void *a, const void *b)
{
	return strcmp(((const struct rm_file *)a)->path, ((const struct rm_file *)b)->path);
}

const char *rm_archive_file_path(const struct rm_archive *a, size_t i)
{
	return i < a->nfiles ? a->files[i].path : NULL;
}

static struct rm_file *find_file(const struct rm_archive *a, const char *path)
{
	struct rm_file key;

	key.path = (char *)path;
	return rm_bsearch(&key, a->files, a->nfiles, sizeof(*a->files), cmp_file);
}

const char *rm_archive_file(const struct rm_archive *a, const char *path, size_t *len)
{
	struct rm_file *f = find_file(a, path);

	if (!f)
		return NULL;
	if (len)
		*len = f->len;
	return f->data;
}

/* ------------------------------------------------------------ directories */

/* Run stats.json files found by a directory walk, read afterwards. */
struct deferred {
	char **abs, **rel;
	size_t n, alloc;
};

/* Read the file `name` of the directory open as `dfd` (AT_FDCWD: `name` is
 * a path), found by the walk: opened without following a symlink swapped in
 * since the walk saw a regular file (O_NOFOLLOW), and without blocking on a
 * FIFO swapped in (O_NONBLOCK); the descriptor opened is the one read, after
 * rm_read_fd checked it is a regular file within RM_ARCHIVE_MAX_MEMBER.
 * `path` names the file in errors.  *buf is malloc'd; the caller frees it. */
static int read_regular_at(int dfd, const char *name, const char *path, char **buf, size_t *len,
			   struct rm_error *err)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	int rc;

	if (fd < 0)
		return rm_error_set(err, RM_ERR_INPUT, "cannot open '%s': %s", path, strerror(errno));
	rc = rm_read_fd(fd, path, RM_ARCHIVE_MAX_MEMBER, buf, len, err);
	close(fd);
	if (rc)
		rm_error_prefix(err, "cannot read '%s'", path); /* not err->msg into itself */
	return rc;
}

static int read_regular(const char *path, char **buf, size_t *len, struct rm_error *err)
{
	return read_regular_at(AT_FDCWD, path, path, buf, len, err);
}

/* Read the deferred run stats.json files whose commit has no matrix.json,
 * unless `rc` already says the walk failed (then only free them).  Returns
 * the walk's or the first read's result. */
static int read_deferred(struct filelist *fl, struct deferred *df, const char *source, int rc,
			 struct rm_error *err)
{
	size_t i;

	for (i = 0; i < df->n; i++) {
		size_t dlen = stats_commit_len(df->rel[i]);

		if (!rc && !has_commit_matrix(fl, df->rel[i], dlen)) {
			char *buf;
			size_t len;

			rc = read_regular(df->abs[i], &buf, &len, err);
			if (!rc)
				rc = add_file(fl, source, df->rel[i], buf, len, err);
		}
		free(df->abs[i]);
		free(df->rel[i]);
	}
	free(df->abs);
	free(df->rel);
	memset(df, 0, sizeof(*df));
	return rc;
}

/* The type of the entry `name` of the directory open as `dfd`, as an S_IF*
 * value: readdir's d_type when the filesystem gives it, else lstat's
 * (fstatat without following).  Fills *st when it had to stat.  0, or -1
 * with err set. */
static int entry_type(int dfd, const char *name, unsigned char d_type, const char *cabs,
		      struct stat *st, mode_t *type, struct rm_error *err)
{
	switch (d_type) {
	case DT_DIR:
		*type = S_IFDIR;
		return 0;
	case DT_REG:
		*type = S_IFREG;
		return 0;
	case DT_LNK:
		*type = S_IFLNK;
		return 0;
	case DT_FIFO:
		*type = S_IFIFO;
		return 0;
	case DT_SOCK:
		*type = S_IFSOCK;
		return 0;
	case DT_CHR:
		*type = S_IFCHR;
		return 0;
	case DT_BLK:
		*type = S_IFBLK;
		return 0;
	default:
		break;
	}
	if (fstatat(dfd, name, st, AT_SYMLINK_NOFOLLOW))
		return rm_error_set(err, RM_ERR_INPUT, "cannot stat '%s': %s", cabs, strerror(errno));
	*type = st->st_mode & S_IFMT;
	return 0;
}

/* Walk the directory `abs` (`name` of the directory open as `pfd`; the top
 * is opened by its path, following a symlink the operator named, and every
 * directory below without following one).  Entries are typed by readdir's
 * d_type (lstat only where the filesystem gives DT_UNKNOWN, and for a
 * commit's matrix.json, whose size counts against RM_ARCHIVE_MAX_TOTAL);
 * symlinks, sockets, FIFOs and devices are never followed or read.  Files
 * are opened relative to their directory's descriptor, kept open while its
 * entries are handled (one per level, at most MAX_DIR_DEPTH + 1). */
static int walk_dir(struct filelist *fl, struct deferred *df, const char *source, int pfd,
		    const char *name, const char *abs, const char *rel, int depth,
		    struct rm_error *err)
{
	DIR *d;
	struct dirent *de;
	char **names = NULL;
	unsigned char *types = NULL;
	size_t n = 0, alloc = 0, talloc = 0, i;
	int rc = 0, dfd;

	if (depth > MAX_DIR_DEPTH)
		return rm_error_set(err, RM_ERR_INPUT, "'%s': directories nested deeper than %d at '%s'",
				    source, MAX_DIR_DEPTH, rel);
	dfd = openat(pfd, name,
		     O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK | (depth ? O_NOFOLLOW : 0));
	d = dfd < 0 ? NULL : fdopendir(dfd);
	if (!d) {
		int e = errno;

		if (dfd >= 0)
			close(dfd);
		return rm_error_set(err, RM_ERR_INPUT, "cannot open directory '%s': %s", abs,
				    strerror(e));
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		names = rm_xgrow(names, &alloc, n + 1, sizeof(*names));
		types = rm_xgrow(types, &talloc, n + 1, sizeof(*types));
		types[n] = de->d_type;
		names[n++] = rm_xstrdup(de->d_name);
	}
	for (i = 0; i < n && !rc; i++) {
		char *cabs = rm_path_join(abs, names[i]);
		char *crel = *rel ? rm_path_join(rel, names[i]) : rm_xstrdup(names[i]);
		struct stat st;
		mode_t type = 0;

		if (entry_type(dfd, names[i], types[i], cabs, &st, &type, err)) {
			rc = -1;
		} else if (type == S_IFDIR) {
			rc = walk_dir(fl, df, source, dfd, names[i], cabs, crel, depth + 1, err);
		} else if (type == S_IFREG && is_run_stats(crel)) {
			/* read later, and only when the commit has no matrix.json */
			if (df->n + 1 > df->alloc) {
				df->alloc = df->alloc ? df->alloc * 2 : 16;
				df->abs = rm_xrealloc(df->abs, df->alloc * sizeof(char *));
				df->rel = rm_xrealloc(df->rel, df->alloc * sizeof(char *));
			}
			df->abs[df->n] = cabs;
			df->rel[df->n] = crel;
			df->n++;
			cabs = crel = NULL;
		} else if (type == S_IFREG && is_commit_matrix(crel)) {
			/* read when its root loads (struct rm_file); its size
			 * counts now, so stat it when d_type spared that */
			if (types[i] != DT_UNKNOWN && fstatat(dfd, names[i], &st, AT_SYMLINK_NOFOLLOW))
				rc = rm_error_set(err, RM_ERR_INPUT, "cannot stat '%s': %s", cabs,
						  strerror(errno));
			else if (!S_ISREG(st.st_mode))
				; /* no longer a regular file: skipped, as the walk skips those */
			else
				rc = add_file(fl, source, crel, NULL, (size_t)st.st_size, err);
			if (!rc && S_ISREG(st.st_mode)) {
				fl->v[fl->n - 1].abs = cabs;
				fl->v[fl->n - 1].len = 0;
				cabs = NULL;
			}
		} else if (type == S_IFREG && fl->no_materials && is_wanted(crel) &&
			   is_material(crel)) {
			/* sized, not read: the limits read_regular_at and
			 * add_file would apply, with their messages */
			if (types[i] != DT_UNKNOWN && fstatat(dfd, names[i], &st, AT_SYMLINK_NOFOLLOW))
				rc = rm_error_set(err, RM_ERR_INPUT, "cannot stat '%s': %s", cabs,
						  strerror(errno));
			else if (!S_ISREG(st.st_mode))
				; /* no longer a regular file: skipped */
			else if ((unsigned long long)st.st_size > RM_ARCHIVE_MAX_MEMBER)
				rc = rm_error_set(err, RM_ERR_INPUT,
						  "cannot read '%s': '%s': file too large (%lld bytes, limit %zu)",
						  cabs, cabs, (long long)st.st_size,
						  (size_t)RM_ARCHIVE_MAX_MEMBER);
			else
				rc = count_bytes(fl, source, crel, (size_t)st.st_size, err);
		} else if (type == S_IFREG && is_wanted(crel)) {
			char *buf;
			size_t len;

			rc = read_regular_at(dfd, names[i], cabs, &buf, &len, err);
			if (!rc)
				rc = add_file(fl, source, crel, buf, len, err);
		}
		/* symlinks, sockets and devices inside a result directory are
		 * never followed or read */
		free(cabs);
		free(crel);
	}
	closedir(d);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(types);
	return rc;
}

/* ------------------------------------------------------------ tarballs */

/* Normalise a member name: strip leading "./", reject absolute paths and
 * "..".  Returns a malloc'd path, or NULL with err set. */
static char *safe_member_path(const char *source, const char *name, struct rm_error *err)
{
	struct rm_sb sb = RM_SB_INIT;
	const char *p = name;

	if (!*name) {
		rm_error_set(err, RM_ERR_INPUT, "'%s': member with an empty name", source);
		return NULL;
	}
	if (*name == '/') {
		rm_error_set(err, RM_ERR_INPUT,
			     "'%s': member '%s' has an absolute path; expected paths relative to the archive",
			     source, name);
		return NULL;
	}
	rm_sb_init(&sb);
	while (*p) {
		const char *end = strchr(p, '/');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len == 2 && p[0] == '.' && p[1] == '.') {
			rm_sb_release(&sb);
			rm_error_set(err, RM_ERR_INPUT,
				     "'%s': member '%s' leaves the archive with '..'; refused",
				     source, name);
			return NULL;
		}
		if (len && !(len == 1 && p[0] == '.')) {
			if (sb.len)
				rm_sb_addc(&sb, '/');
			rm_sb_add(&sb, p, len);
		}
		p += len;
		if (*p == '/')
			p++;
	}
	return rm_sb_detach(&sb, NULL);
}

/* Read the current member's data into *out (malloc'd, NUL-terminated) and
 * *outlen.  `declared` is the size its header gives (-1: not given): then
 * the data goes straight into one block of that size, populated at once
 * (rm_prefault), instead of through a 64 KiB buffer into a doubling one
 * (a 10x20k tarball's run stats.json are 2 MiB each); should more come
 * than declared, the block grows by doubling. */
static int read_member(struct archive *ar, const char *source, const char *path,
		       long long declared, char **out, size_t *outlen, struct rm_error *err)
{
	/* a header can lie: what it declares is only trusted up to 32 MiB
	 * (above, memory follows the data read, as without a declared size) */
	bool known = declared >= 0 && declared < (32ll << 20);
	size_t cap = known ? (size_t)declared + 1 : 65536;
	char *p = rm_xmalloc(cap);
	size_t len = 0;

	if (known)
		rm_prefault(p, cap);
	for (;;) {
		la_ssize_t n;

		if (cap - len < 2) {
			cap *= 2;
			p = rm_xrealloc(p, cap);
		}
		n = archive_read_data(ar, p + len, cap - len - 1);
		if (n == 0)
			break;
		if (n < 0) {
			rm_error_set(err, RM_ERR_INPUT, "'%s': member '%s': corrupt or truncated: %s",
				     source, path, aerr(ar));
			free(p);
			return -1;
		}
		if (len + (size_t)n > RM_ARCHIVE_MAX_MEMBER) {
			rm_error_set(err, RM_ERR_INPUT,
				     "'%s': member '%s' is larger than %llu MiB; refused", source,
				     path, RM_ARCHIVE_MAX_MEMBER >> 20);
			free(p);
			return -1;
		}
		len += (size_t)n;
	}
	p[len] = '\0';
	*out = p;
	*outlen = len;
	return 0;
}

static bool keep_stat(void *ctx, const char *name, unsigned read, const char **stored,
		      bool *again);

/* A member being read from an open tarball, as a matrix stream source. */
struct tar_src {
	struct archive *ar;
	unsigned long long total;
};

static long tar_read(void *ctx, char *buf, size_t cap)
{
	struct tar_src *t = ctx;
	la_ssize_t n = archive_read_data(t->ar, buf, cap);

	if (n < 0)
		return -1;
	t->total += (unsigned long long)n;
	return t->total > RM_ARCHIVE_MAX_MEMBER ? -1 : (long)n;
}

/* Open the tarball at source with ar (tar, plain or compressed with gzip,
 * xz, zstd or bzip2): libarchive's ARCHIVE_OK, or its error (aerr(ar)
 * says it).  The caller frees ar with archive_read_free either way. */
static int open_tarball(struct archive *ar, const char *source)
{
	archive_read_support_filter_gzip(ar);
	archive_read_support_filter_xz(ar);
	archive_read_support_filter_zstd(ar);
	archive_read_support_filter_bzip2(ar);
	archive_read_support_format_tar(ar);
	return archive_read_open_filename(ar, source, 65536);
}

/* Read member `path` of the tarball `source` again, from the start (a
 * matrix whose stream could not settle it, or that must be read with no
 * row dropped): its bytes into *data (malloc'd) and *len.  Rare: errors and
 * regex stems only. */
static int reread_member(const char *source, const char *path, char **data, size_t *len,
			 struct rm_error *err)
{
	struct archive *ar = archive_read_new();
	struct archive_entry *e;
	int rc = 1;

	if (open_tarball(ar, source) == ARCHIVE_OK) {
		while (rc == 1) {
			struct rm_error ignored;
			const char *name;
			char *p;
			int r = archive_read_next_header(ar, &e);

			if (r != ARCHIVE_OK && r != ARCHIVE_WARN)
				break;
			name = archive_entry_pathname(e);
			p = name ? safe_member_path(source, name, &ignored) : NULL;
			if (p && !strcmp(p, path))
				rc = read_member(ar, source, path,
						 archive_entry_size_is_set(e) ? (long long)archive_entry_size(e) : -1,
						 data, len, err);
			free(p);
		}
	}
	if (rc == 1)
		rc = rm_error_set(err, RM_ERR_INPUT, "'%s': member '%s' could not be read again: %s",
				  source, path, aerr(ar));
	archive_read_free(ar);
	return rc;
}

/* A commit's plain matrix.json met in a tarball: streamed into a matrix
 * now (matrix.h), so its bytes are never held.  Returns 0 with *out set;
 * 1 when the stream cannot settle it (an error, anything unusual): the
 * caller then reads the member again whole, and load_matrix words it. */
static int stream_tar_matrix(struct archive *ar, const char *source, const char *path,
			     const struct rm_rules *rules, const struct rm_matrix *like,
			     struct rm_matrix **out, size_t *len)
{
	struct tar_src t = { ar, 0 };
	struct rm_matrix *m = rm_xcalloc(1, sizeof(*m));
	char *display = rm_path_join(source, path);
	int rc = rm_matrix_read_stream_like(m, display, tar_read, &t, rules ? keep_stat : NULL,
					    (void *)rules, like);

	free(display);
	if (rc) {
		free(m);
		return 1;
	}
	*out = m;
	*len = (size_t)t.total;
	return 0;
}

static int cmp_file_ptr(const void *a, const void *b)
{
	return strcmp((*(struct rm_file *const *)a)->path, (*(struct rm_file *const *)b)->path);
}

/* The second pass over the tarball `source`, only when run stats.json were
 * skipped whose commit has no matrix.json after all: their bytes read in
 * place of the size counted (fl->total is charged what was read). */
static int read_pending(struct filelist *fl, const char *source, struct rm_error *err)
{
	struct rm_file **want = NULL;
	struct archive *ar;
	struct archive_entry *e;
	size_t i, n = 0, left;
	int rc = 0;

	for (i = 0; i < fl->n; i++)
		n += fl->v[i].pending;
	if (!n)
		return 0;
	want = rm_xmalloc(n * sizeof(*want));
	for (i = 0, n = 0; i < fl->n; i++)
		if (fl->v[i].pending)
			want[n++] = &fl->v[i];
	rm_sort(want, n, sizeof(*want), cmp_file_ptr);
	left = n;
	ar = archive_read_new();
	if (open_tarball(ar, source) == ARCHIVE_OK) {
		while (left && !rc) {
			struct rm_error ignored;
			struct rm_file key, *kp = &key, **hit;
			const char *name;
			int r = archive_read_next_header(ar, &e);

			if (r != ARCHIVE_OK && r != ARCHIVE_WARN)
				break;
			name = archive_entry_pathname(e);
			key.path = name ? safe_member_path(source, name, &ignored) : NULL;
			if (!key.path)
				continue;
			hit = is_run_stats(key.path) ? rm_bsearch(&kp, want, n, sizeof(*want), cmp_file_ptr) : NULL;
			/* the first of equal paths still pending (a duplicate is
			 * refused later, by path, as when held) */
			while (hit && hit > want && !strcmp(hit[-1]->path, key.path))
				hit--;
			while (hit && hit < want + n && !strcmp((*hit)->path, key.path) && !(*hit)->pending)
				hit++;
			if (hit && hit < want + n && !strcmp((*hit)->path, key.path) &&
			    archive_entry_filetype(e) == AE_IFREG) {
				struct rm_file *f = *hit;
				size_t counted = f->len; /* its declared size, charged in the first pass */

				rc = read_member(ar, source, f->path,
						 archive_entry_size_is_set(e) ? (long long)archive_entry_size(e) : -1,
						 &f->data, &f->len, err);
				if (!rc) {
					f->pending = false;
					left--;
					fl->total -= counted;
					rc = count_bytes(fl, source, f->path, f->len, err);
				}
			}
			free(key.path);
		}
	}
	if (!rc && left)
		for (i = 0; i < n && !rc; i++)
			if (want[i]->pending)
				rc = rm_error_set(err, RM_ERR_INPUT,
						  "'%s': member '%s' could not be read again: %s", source,
						  want[i]->path, aerr(ar));
	archive_read_free(ar);
	free(want);
	return rc;
}

static int read_tarball(struct filelist *fl, const char *source, const struct rm_rules *rules,
			struct rm_error *err)
{
	struct archive *ar = archive_read_new();
	struct archive_entry *e;
	size_t members = 0;
	char *prev = NULL; /* the last member read, for the errors about what follows it */
	const struct rm_matrix *last_mx = NULL; /* the last matrix streamed */
	int rc = 0;

	if (open_tarball(ar, source) != ARCHIVE_OK) {
		rc = rm_error_set(err, RM_ERR_INPUT,
				  "'%s': not a result directory or tar archive (.tar, .tar.gz, .tar.xz, .tar.zst): %s",
				  source, aerr(ar));
		archive_read_free(ar);
		return rc;
	}
	for (;;) {
		const char *name;
		char *path;
		mode_t type;
		int r = archive_read_next_header(ar, &e);

		if (r == ARCHIVE_EOF)
			break;
		if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
			if (members == 0)
				rc = rm_error_set(err, RM_ERR_INPUT,
						  "'%s': not a result directory or tar archive (.tar, .tar.gz, .tar.xz, .tar.zst): %s",
						  source, aerr(ar));
			else
				rc = rm_error_set(err, RM_ERR_INPUT,
						  "'%s': corrupt or truncated archive after %zu members, in the header after member '%s': %s",
						  source, members, prev ? prev : "", aerr(ar));
			break;
		}
		name = archive_entry_pathname(e);
		/* a compression bomb: the stream unpacked so far (skipped
		 * members included), never more than one member past the cap */
		if (archive_filter_code(ar, 0) != ARCHIVE_FILTER_NONE &&
		    (unsigned long long)archive_filter_bytes(ar, 0) > fl->max_stream) {
			rc = rm_error_set(err, RM_ERR_INPUT,
					  "'%s': the compressed tarball unpacks to more than %llu MiB (at member %zu '%s'); refused",
					  source, fl->max_stream >> 20, members + 1, name ? name : "?");
			break;
		}
		if (++members > RM_ARCHIVE_MAX_MEMBERS) {
			rc = rm_error_set(err, RM_ERR_INPUT,
					  "'%s': more than %d members (member %zu '%s'); refused", source,
					  RM_ARCHIVE_MAX_MEMBERS, members, name ? name : "?");
			break;
		}
		if (!name) {
			rc = rm_error_set(err, RM_ERR_INPUT,
					  "'%s': member %zu (after member '%s') has no readable name",
					  source, members, prev ? prev : "");
			break;
		}
		if (!*name) {
			rc = rm_error_set(err, RM_ERR_INPUT,
					  "'%s': member %zu (after member '%s') has an empty name", source,
					  members, prev ? prev : "");
			break;
		}
		path = safe_member_path(source, name, err);
		if (!path) {
			rc = -1;
			break;
		}
		free(prev);
		prev = rm_xstrdup(path);
		type = archive_entry_filetype(e);
		if (archive_entry_hardlink(e) || type == AE_IFLNK) {
			rc = rm_error_set(err, RM_ERR_INPUT,
					  "'%s': member '%s' is a link; expected only files and directories",
					  source, path);
			free(path);
			break;
		}
		if (type != AE_IFREG && type != AE_IFDIR) {
			rc = rm_error_set(err, RM_ERR_INPUT,
					  "'%s': member '%s' is a device, FIFO or socket; expected only files and directories",
					  source, path);
			free(path);
			break;
		}
		if (type == AE_IFREG && archive_entry_size_is_set(e) &&
		    (unsigned long long)archive_entry_size(e) > RM_ARCHIVE_MAX_MEMBER) {
			rc = rm_error_set(err, RM_ERR_INPUT,
					  "'%s': member '%s' declares %lld bytes, more than the %llu MiB limit; refused",
					  source, path, (long long)archive_entry_size(e),
					  RM_ARCHIVE_MAX_MEMBER >> 20);
			free(path);
			break;
		}
		if (type == AE_IFREG && is_run_stats(path) &&
		    has_commit_matrix(fl, path, stats_commit_len(path))) {
			archive_read_data_skip(ar);
		} else if (type == AE_IFREG && is_run_stats(path) && archive_entry_size_is_set(e)) {
			/* its commit's matrix.json, which drops it, usually
			 * follows: skipped, but counted as if held until then */
			rc = add_file(fl, source, path, NULL, (size_t)archive_entry_size(e), err);
			if (!rc) {
				fl->v[fl->n - 1].pending = true;
				if (archive_read_data_skip(ar) < 0)
					rc = rm_error_set(err, RM_ERR_INPUT,
							  "'%s': member '%s': corrupt or truncated: %s",
							  source, path, aerr(ar));
			}
		} else if (type == AE_IFREG && is_wanted(path)) {
			char *data = NULL;
			size_t len = 0;
			struct rm_matrix *mx = NULL;

			if (is_commit_matrix(path) && !strcmp(base_name(path), "matrix.json") &&
			    stream_tar_matrix(ar, source, path, rules, last_mx, &mx, &len))
				rc = reread_member(source, path, &data, &len, err);
			else if (!mx)
				rc = read_member(ar, source, path,
						 archive_entry_size_is_set(e) ? (long long)archive_entry_size(e) : -1,
						 &data, &len, err);
			if (!rc)
				rc = add_file(fl, source, path, data, len, err);
			if (!rc && mx) {
				fl->v[fl->n - 1].matrix = mx;
				last_mx = mx; /* the next one is sorted like it */
			}
			else if (mx) {
				rm_matrix_free(mx);
				free(mx);
			}
			if (!rc && is_commit_matrix(path)) {
				const char *slash = strrchr(path, '/');

				if (slash)
					drop_run_stats(fl, path, (size_t)(slash - path));
			}
		} else {
			archive_read_data_skip(ar);
		}
		free(path);
		if (rc)
			break;
	}
	free(prev);
	archive_read_free(ar);
	return rc ? rc : read_pending(fl, source, err);
}

/* ------------------------------------------------------------ gzip, JSON */

/* Decompress a gzip member in memory (libarchive's raw format). */
static int gunzip(const char *name, const char *data, size_t len, char **out, size_t *outlen,
		  struct rm_error *err)
{
	struct archive *ar;
	struct archive_entry *e;
	struct rm_sb sb = RM_SB_INIT;
	char buf[65536];
	int rc = 0;

	if (rm_dynlib_need(RM_LIB_ARCHIVE, err))
		return -1;
	ar = archive_read_new();
	archive_read_support_filter_gzip(ar);
	archive_read_support_format_raw(ar);
	rm_sb_init(&sb);
	if (archive_read_open_memory(ar, data, len) != ARCHIVE_OK ||
	    archive_read_next_header(ar, &e) != ARCHIVE_OK) {
		rc = rm_error_set(err, RM_ERR_INPUT, "'%s': not gzip data: %s", name,
				  aerr(ar));
		goto out;
	}
	for (;;) {
		la_ssize_t n = archive_read_data(ar, buf, sizeof(buf));

		if (n == 0)
			break;
		if (n < 0) {
			rc = rm_error_set(err, RM_ERR_INPUT, "'%s': corrupt gzip data: %s", name,
					  aerr(ar));
			goto out;
		}
		if (sb.len + (size_t)n > RM_ARCHIVE_MAX_MEMBER) {
			rc = rm_error_set(err, RM_ERR_INPUT,
					  "'%s': decompresses to more than %llu MiB; refused", name,
					  RM_ARCHIVE_MAX_MEMBER >> 20);
			goto out;
		}
		rm_sb_add(&sb, buf, (size_t)n);
	}
out:
	archive_read_free(ar);
	if (rc) {
		rm_sb_release(&sb);
		return rc;
	}
	*out = rm_sb_detach(&sb, outlen);
	return 0;
}

/* The bytes of `path` or `path.gz` in the archive (LKP's load_json prefers
 * the .gz), decompressed.  Returns 1 with *data (freed with *owned when not
 * NULL), *len and *which (the member read, malloc'd) set; 0 when neither
 * exists; -1 with err set when the .gz is bad. */
static int member_bytes(const struct rm_archive *a, const char *path, char **which,
			const char **data, size_t *len, char **owned, struct rm_error *err)
{
	char *gz = rm_xmalloc(strlen(path) + 4);
	struct rm_file *f;

	*owned = NULL;
	*which = NULL;
	memcpy(gz, path, strlen(path));
	memcpy(gz + strlen(path), ".gz", 4);
	f = find_file(a, gz);
	if (f && f->abs) {
		char *raw = NULL;
		size_t rawlen;
		char *display = rm_path_join(a->source, gz);
		int rc = read_regular(f->abs, &raw, &rawlen, err);

		if (!rc)
			rc = gunzip(display, raw, rawlen, owned, len, err);
		free(raw);
		free(display);
		*which = gz;
		*data = *owned;
		return rc ? -1 : 1;
	}
	if ((*data = rm_archive_file(a, gz, len))) {
		char *display = rm_path_join(a->source, gz);
		int rc = gunzip(display, *data, *len, owned, len, err);

		free(display);
		*which = gz;
		*data = *owned;
		return rc ? -1 : 1;
	}
	free(gz);
	f = find_file(a, path);
	if (f && f->abs) {
		/* not held: read it now (the caller frees it) */
		if (read_regular(f->abs, owned, len, err))
			return -1;
		*which = rm_xstrdup(path);
		*data = *owned;
		return 1;
	}
	if ((*data = rm_archive_file(a, path, len))) {
		*which = rm_xstrdup(path);
		return 1;
	}
	return 0;
}

/* Load `path` or `path.gz` from the archive as JSON.  Returns NULL without an
 * error when neither exists (err->kind stays RM_OK), NULL with err set when
 * one exists but is bad. */
static json_t *load_json_member(const struct rm_archive *a, const char *path, char **which,
				struct rm_error *err)
{
	const char *data;
	char *owned, *display;
	size_t len;
	json_t *j;
	int rc = member_bytes(a, path, which, &data, &len, &owned, err);

	if (rc <= 0)
		return NULL;
	display = rm_path_join(a->source, *which);
	j = rm_json_load(display, data, len, NULL, err);
	free(display);
	free(owned);
	return j;
}

/* ------------------------------------------------------------ matrices */

static void series_push(struct rm_series *s, size_t *alloc, double v, bool is_int)
{
	if (s->n + 1 > *alloc) {
		size_t a2 = *alloc ? *alloc * 2 : 4;

		s->v = rm_xrealloc(s->v, a2 * sizeof(*s->v));
		s->is_int = rm_xrealloc(s->is_int, a2);
		*alloc = a2;
	}
	s->v[s->n] = v;
	s->is_int[s->n] = is_int;
	s->n++;
}

static void series_add_json(struct rm_series *s, size_t *alloc, json_t *v)
{
	if (json_is_integer(v)) {
		series_push(s, alloc, (double)json_integer_value(v), true);
	} else if (json_is_real(v)) {
		series_push(s, alloc, json_real_value(v), false);
	} else if (json_is_string(v)) {
		s->is_string = true;
		series_push(s, alloc, 0, true);
	} else {
		/* null (a NaN/Infinity token), true/false, arrays, objects */
		s->is_bad = true;
		series_push(s, alloc, 0, true);
	}
}

/* Pad every series with Integer 0 up to m->cols (matrix_fill_missing_zeros). */
static void matrix_fill_zeros(struct rm_matrix *m)
{
	size_t i;

	for (i = 0; i < m->n; i++) {
		struct rm_series *s = &m->s[i];
		size_t alloc = s->n;

		while (s->n < m->cols)
			series_push(s, &alloc, 0, true);
	}
}

static void matrix_sort(struct rm_matrix *m)
{
	/* names are distinct: unite_find makes one series per name */
	rm_sort_by_name(m->s, m->n, sizeof(*m->s), offsetof(struct rm_series, name), NULL);
}

/* Build a matrix from runs' stats.json the way lkp-tests' unite does it:
 * a stat first seen in a later run gets leading zeros. */
struct unite {
	struct rm_matrix m;
	size_t *alloc;
	size_t cap;
	/* the series by name: open addressing over indexes + 1 (0 = empty),
	 * hashcap a power of two at least twice m.n */
	size_t *slot;
	size_t hashcap;
};

static size_t *unite_slot(struct unite *u, const char *key)
{
	size_t j = (size_t)rm_hash(key, strlen(key)) & (u->hashcap - 1);

	while (u->slot[j] && strcmp(u->m.s[u->slot[j] - 1].name, key))
		j = (j + 1) & (u->hashcap - 1);
	return &u->slot[j];
}

/* The series named key, or NULL (a hash lookup: a scan of every series per
 * stat and run made uniting quadratic in the stats). */
static struct rm_series *unite_find(struct unite *u, const char *key, size_t **alloc)
{
	size_t *slot;

	if (!u->hashcap)
		return NULL;
	slot = unite_slot(u, key);
	if (!*slot)
		return NULL;
	*alloc = &u->alloc[*slot - 1];
	return &u->m.s[*slot - 1];
}

/* Index the series just added (the last one). */
static void unite_index(struct unite *u)
{
	if (u->m.n * 2 > u->hashcap) {
		size_t i;

		free(u->slot);
		u->hashcap = u->hashcap ? u->hashcap * 2 : 1024;
		u->slot = rm_xcalloc(u->hashcap, sizeof(*u->slot));
		for (i = 0; i + 1 < u->m.n; i++)
			*unite_slot(u, u->m.s[i].name) = i + 1;
	}
	*unite_slot(u, u->m.s[u->m.n - 1].name) = u->m.n;
}

static int unite_add(struct rm_archive *a, struct unite *u, json_t *stats, const char *file,
		     struct rm_error *err)
{
	const char *key;
	json_t *val;
	size_t columns = 0, i;

	if (!json_is_object(stats))
		return rm_error_set(err, RM_ERR_INPUT, "'%s': expected a JSON object of stats", file);
	for (i = 0; i < u->m.n; i++)
		if (u->m.s[i].n > columns)
			columns = u->m.s[i].n;
	json_object_foreach(stats, key, val) {
		struct rm_series *s;
		size_t *alloc;

		if (!strcmp(key, "stats_source"))
			continue;
		if (rm_matrix_check_name(file, key, err))
			return -1;
		s = unite_find(u, key, &alloc);
		if (!s) {
			if (u->m.n + 1 > u->cap) {
				size_t c2 = u->cap ? u->cap * 2 : 64;

				u->m.s = rm_xrealloc(u->m.s, c2 * sizeof(*u->m.s));
				u->alloc = rm_xrealloc(u->alloc, c2 * sizeof(*u->alloc));
				u->cap = c2;
			}
			s = &u->m.s[u->m.n];
			memset(s, 0, sizeof(*s));
			u->alloc[u->m.n] = 0;
			alloc = &u->alloc[u->m.n];
			u->m.n++;
			s->name = rm_xstrdup(key);
			unite_index(u);
		}
		while (s->n < columns)
			series_push(s, alloc, 0, true);
		/* one value per stat and run (archive-format.md 2.2, 2.4): an
		 * array or object is one non-number in this run's column, so the
		 * stat is left out and the other runs keep their columns */
		if (json_is_array(val) || json_is_object(val))
			add_warning(a, "'%s': stat '%.200s': expected one number, found %s; stat left out",
				    file, key, json_is_array(val) ? "an array" : "an object");
		series_add_json(s, alloc, val);
	}
	u->m.cols++;
	return 0;
}

/* Is `name` a per-CPU sched_debug value, ^sched_debug.*\.[0-9]+$ ? */
static bool is_sched_debug_cpu(const char *name)
{
	size_t n = strlen(name), d = n;

	if (strncmp(name, "sched_debug", 11))
		return false;
	while (d > 11 && isdigit((unsigned char)name[d - 1]))
		d--;
	return d < n && d > 11 && name[d - 1] == '.';
}

/* Every value is an Integer 0 (a string or a non-number is not). */
static bool series_all_int_zero(const struct rm_series *s)
{
	size_t i;

	if (s->is_string || s->is_bad)
		return false;
	for (i = 0; i < s->n; i++)
		if (!s->is_int[i] || s->v[i] != 0)
			return false;
	return true;
}

/* The clean-up lkp-tests' unite_to does before saving a matrix.json
 * (archive-format.md 2.4): per-CPU sched_debug keys, and keys whose array
 * is empty or entirely Integer 0, are dropped.  In place. */
static void matrix_cleanup(struct rm_matrix *m)
{
	size_t i, j = 0;

	for (i = 0; i < m->n; i++) {
		struct rm_series *s = &m->s[i];

		if (is_sched_debug_cpu(s->name) || series_all_int_zero(s)) {
			free(s->name);
			free(s->v);
			free(s->is_int);
			continue;
		}
		m->s[j++] = *s;
	}
	m->n = j;
}

/* Remove the columns of incomplete runs (last_state.is_incomplete_run == 1)
 * and the key itself: lkp-tests' complete_matrix. */
static void matrix_complete(struct rm_matrix *dst, const struct rm_matrix *src)
{
	const struct rm_series *inc = rm_matrix_get(src, "last_state.is_incomplete_run");
	size_t i, k, removed = 0;

	memset(dst, 0, sizeof(*dst));
	if (!inc) {
		/* no incomplete run: the same series */
		*dst = *src;
		dst->shared = true;
		return;
	}
	dst->dropped_bases = src->dropped_bases;
	dst->ndropped = src->ndropped;
	dst->regex_stem = src->regex_stem;
	dst->s = rm_xcalloc(src->n + 1, sizeof(*dst->s));
	for (k = 0; k < inc->n; k++)
		removed += inc->v[k] == 1;
	for (i = 0; i < src->n; i++) {
		const struct rm_series *s = &src->s[i];
		struct rm_series *d;
		size_t alloc = 0;

		if (s == inc)
			continue;
		d = &dst->s[dst->n++];
		d->name = rm_xstrdup(s->name);
		d->is_string = s->is_string;
		d->is_bad = s->is_bad;
		for (k = 0; k < s->n; k++)
			if (!(k < inc->n && inc->v[k] == 1))
				series_push(d, &alloc, s->v[k], s->is_int[k]);
	}
	dst->cols = src->cols >= removed ? src->cols - removed : 0;
}

/* ------------------------------------------------------------ result roots */

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* Is `s` a commit a result tree can hold?  archive-format.md 1.2 step 4: a
 * commit is exactly 40 lowercase hex characters; a local run may name a tag
 * instead ([A-Za-z0-9._+-], not all hex).  A value of hex digits only is a
 * SHA, so it must be those 40 lowercase digits: "8807B682..." or a short
 * "8807b68269" is refused, never lower-cased or guessed.  Returns NULL when
 * fine, otherwise what is wrong. */
static const char *commit_problem(const char *s, char *why, size_t len)
{
	size_t n = 0;
	bool hex = true, upper = false;

	for (; s[n]; n++) {
		unsigned char c = (unsigned char)s[n];

		if (!isalnum(c) && !strchr("._+-", c)) {
			snprintf(why, len, "expected 40 lowercase hex digits, or a tag of [A-Za-z0-9._+-]");
			return why;
		}
		if (!isxdigit(c))
			hex = false;
		else if (isupper(c))
			upper = true;
	}
	if (n == 0 || n > 128) {
		snprintf(why, len, "expected 40 lowercase hex digits, or a tag of [A-Za-z0-9._+-]");
		return why;
	}
	if (hex && upper) {
		snprintf(why, len, "uppercase hex digits; expected 40 lowercase hex digits");
		return why;
	}
	if (hex && n != 40) {
		snprintf(why, len, "%zu hex digits; expected 40 lowercase hex digits", n);
		return why;
	}
	return NULL;
}

static void root_free(struct rm_result_root *r)
{
	free(r->path);
	free(r->commit);
	free(r->job_path);
	rm_job_free(&r->job);
	free(r->runs);
	rm_matrix_free(&r->all);
	rm_matrix_free(&r->complete);
}

/* Rows of matrix.json worth reading (rm_matrix_keep_fn over the rules; the
 * series borrow the names of the rules' cache, which outlives every archive:
 * setup.c frees the rules after the pipeline). */
static bool keep_stat(void *ctx, const char *name, unsigned read, const char **stored,
		      bool *again)
{
	return rm_rules_keep_stat_stored(ctx, name, read, stored, again);
}

/* A commit matrix.json(.gz) a directory walk left on disk, streamed
 * (matrix.h); a refusal or anything unusual is left to the whole-file path. */
struct src {
	int fd;                 /* the plain file, or -1 */
	struct archive *ar;     /* the .gz, decompressing */
	unsigned long long total;
};

static long src_read(void *ctx, char *buf, size_t cap)
{
	struct src *s = ctx;
	long n;

	if (s->ar) {
		n = (long)archive_read_data(s->ar, buf, cap);
	} else {
		do
			n = (long)read(s->fd, buf, cap);
		while (n < 0 && errno == EINTR);
	}
	if (n < 0)
		return -1;
	s->total += (unsigned long long)n;
	return s->total > RM_ARCHIVE_MAX_MEMBER ? -1 : n;
}

/* 0: r->all read; 1: use the whole-file path (errors are worded there). */
static int stream_matrix(const struct rm_archive *a, struct rm_result_root *r,
			 const struct rm_file *f, bool gz, const struct rm_rules *rules)
{
	struct src s;
	struct stat st;
	char *raw = NULL, *display;
	size_t rawlen;
	struct rm_error ignored;
	int rc = 1;

	memset(&s, 0, sizeof(s));
	s.fd = -1;
	if (gz) {
		/* without libarchive, the whole-file path says why */
		if (rm_dynlib_need(RM_LIB_ARCHIVE, &ignored) || read_regular(f->abs, &raw, &rawlen, &ignored))
			return 1;
		s.ar = archive_read_new();
		archive_read_support_filter_gzip(s.ar);
		archive_read_support_format_raw(s.ar);
		{
			struct archive_entry *e;

			if (archive_read_open_memory(s.ar, raw, rawlen) != ARCHIVE_OK ||
			    archive_read_next_header(s.ar, &e) != ARCHIVE_OK)
				goto out;
		}
	} else {
		s.fd = open(f->abs, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
		if (s.fd < 0 || fstat(s.fd, &st) || !S_ISREG(st.st_mode))
			goto out;
	}
	display = rm_path_join(a->source, f->path);
	/* sorted like the root read before it (the base's names, for a head) */
	rc = rm_matrix_read_stream_like(&r->all, display, src_read, &s, rules ? keep_stat : NULL,
					(void *)rules, r > a->roots ? &r[-1].all : NULL);
	free(display);
out:
	if (s.ar)
		archive_read_free(s.ar);
	if (s.fd >= 0)
		close(s.fd);
	free(raw);
	return rc;
}

/* The root's matrix: its matrix.json, read with rows no rule keeps dropped
 * (rules NULL: every row kept), or else its runs' stats.json united. */
static int load_matrix(struct rm_archive *a, struct rm_result_root *r, const struct rm_rules *rules,
		       struct rm_error *err)
{
	char *mpath = rm_path_join(r->path, "matrix.json");
	char *which = NULL, *owned;
	const char *data;
	size_t len;
	int rc = 0;

	rm_error_clear(err);
	{
		/* left on disk by a directory walk: streamed, not held */
		char *gz = rm_path_join(r->path, "matrix.json.gz");
		const struct rm_file *f = find_file(a, gz);
		struct rm_file *plain = find_file(a, mpath);

		free(gz);
		if ((f && f->abs && !stream_matrix(a, r, f, true, rules)) ||
		    (!f && plain && plain->abs && !stream_matrix(a, r, plain, false, rules))) {
			free(mpath);
			return 0;
		}
		/* streamed while the tarball was read, with these rules */
		if (!f && plain && plain->matrix && !plain->abs) {
			r->all = *plain->matrix;
			free(plain->matrix);
			plain->matrix = NULL;
			free(mpath);
			return 0;
		}
		/* wanted again whole (read with no row dropped, see
		 * reload_undropped): the tarball is read again for it */
		if (!f && plain && !plain->abs && !plain->data && a->is_tarball &&
		    reread_member(a->source, plain->path, &plain->data, &plain->len, err)) {
			free(mpath);
			return -1;
		}
	}
	rc = member_bytes(a, mpath, &which, &data, &len, &owned, err);
	free(mpath);
	if (rc > 0) {
		char *display = rm_path_join(a->source, which);

		rc = rm_matrix_read(&r->all, display, data, len, rules ? keep_stat : NULL,
				    (void *)rules, err);
		free(display);
		free(owned);
		free(which);
		return rc;
	}
	free(which);
	if (rc < 0)
		return -1;
	/* no commit-level matrix: unite the runs' stats.json in run order */
	{
		struct unite u;
		size_t i;

		memset(&u, 0, sizeof(u));
		for (i = 0; i < r->nruns && !rc; i++) {
			char num[16], *rundir, *spath;
			json_t *j;

			snprintf(num, sizeof(num), "%d", r->runs[i]);
			rundir = rm_path_join(r->path, num);
			spath = rm_path_join(rundir, "stats.json");
			j = load_json_member(a, spath, &which, err);
			if (j) {
				char *display = rm_path_join(a->source, which);

				rc = unite_add(a, &u, j, display, err);
				free(display);
				json_decref(j);
			} else if (err->kind != RM_OK) {
				rc = -1;
			} else {
				add_warning(a, "'%s/%s': run has no stats.json; left out", a->source,
					    rundir);
			}
			free(which);
			free(rundir);
			free(spath);
		}
		free(u.alloc);
		free(u.slot);
		r->all = u.m;
		if (rc)
			return -1;
		/* a matrix built here gets the clean-up a saved matrix.json had */
		matrix_cleanup(&r->all);
		matrix_fill_zeros(&r->all);
		matrix_sort(&r->all);
		if (r->all.cols == 0)
			return rm_error_set(err, RM_ERR_INPUT,
					    "'%s/%s': no matrix.json and no run with a stats.json",
					    a->source, r->path);
	}
	return 0;
}

static int load_root(struct rm_archive *a, struct rm_result_root *r, const struct rm_rules *rules,
		     struct rm_error *err)
{
	char num[16];
	const char *data, *commit;
	size_t len = 0, i;
	char *display;

	snprintf(num, sizeof(num), "%d", r->runs[0]);
	{
		char *rundir = rm_path_join(r->path, num);

		r->job_path = rm_path_join(rundir, "job.yaml");
		free(rundir);
	}
	data = rm_archive_file(a, r->job_path, &len);
	display = rm_path_join(a->source, r->job_path);
	if (rm_job_parse(&r->job, rules, display, data, len, err)) {
		free(display);
		return -1;
	}
	commit = rm_job_field(&r->job, "commit");
	if (!commit)
		commit = base_name(r->path);
	{
		char why[128];

		if (commit_problem(commit, why, sizeof(why))) {
			char *shown = rm_text_escaped(commit, 60);

			rm_error_set(err, RM_ERR_INPUT, "'%s': commit '%s' is not a commit id: %s",
				     display, shown, why);
			free(shown);
			free(display);
			return -1;
		}
	}
	free(display);
	r->commit = rm_xstrdup(commit);
	/* the commit axis is the commit used for grouping */
	for (i = 0; i < r->job.naxes; i++)
		if (!strcmp(r->job.axes[i].key, "commit")) {
			free(r->job.axes[i].value);
			r->job.axes[i].value = rm_xstrdup(commit);
		}
	if (load_matrix(a, r, rules, err))
		return -1;
	matrix_complete(&r->complete, &r->all);
	return 0;
}

/* A matrix with a ".pass" stat whose stem holds regex syntax: lkp-tests
 * matches that stem against every name of the other side, so every root is
 * read again with no row dropped (rare; see matrix.h). */
static int reload_undropped(struct rm_archive *a, struct rm_error *err)
{
	size_t i;

	for (i = 0; i < a->nroots; i++)
		if (a->roots[i].all.regex_stem)
			break;
	if (i == a->nroots)
		return 0;
	for (i = 0; i < a->nroots; i++) {
		struct rm_result_root *r = &a->roots[i];

		if (!r->all.ndropped)
			continue;
		rm_matrix_free(&r->complete);
		rm_matrix_free(&r->all);
		if (load_matrix(a, r, NULL, err))
			return -1;
		matrix_complete(&r->complete, &r->all);
	}
	return 0;
}

/* Find the _result_roots: parents of <run>/job.yaml. */
static int find_roots(struct rm_archive *a, const struct rm_rules *rules, struct rm_error *err)
{
	size_t i, alloc = 0;

	for (i = 0; i < a->nfiles; i++) {
		const char *p = a->files[i].path;
		const char *rs;
		size_t rlen, plen;
		struct rm_result_root *r;
		int run;

		if (strcmp(base_name(p), "job.yaml") || !parent_name(p, &rs, &rlen) ||
		    !is_run_name(rs, rlen) || rs == p)
			continue;
		/* a job.yaml at <root>/<run>/job.yaml: the root is everything before */
		plen = (size_t)(rs - p) - 1; /* the _result_root, without the slash */
		run = (int)strtol(rs, NULL, 10); /* is_run_name: digits only */
		r = a->nroots ? &a->roots[a->nroots - 1] : NULL;
		/* files are sorted, so runs of one root are adjacent */
		if (!r || strlen(r->path) != plen || strncmp(r->path, p, plen)) {
			a->roots = rm_xgrow(a->roots, &alloc, a->nroots + 1, sizeof(*a->roots));
			r = &a->roots[a->nroots++];
			memset(r, 0, sizeof(*r));
			r->path = rm_xstrndup(p, plen);
		}
		r->runs = rm_xrealloc(r->runs, (r->nruns + 1) * sizeof(*r->runs));
		r->runs[r->nruns++] = run;
	}
	if (!a->nroots)
		return rm_error_set(err, RM_ERR_INPUT,
				    "'%s': no LKP result roots found (expected <testcase>/.../<commit>/<run>/job.yaml)",
				    a->source);
	for (i = 0; i < a->nroots; i++) {
		rm_sort(a->roots[i].runs, a->roots[i].nruns, sizeof(int), cmp_int);
		if (load_root(a, &a->roots[i], rules, err))
			return -1;
	}
	return reload_undropped(a, err);
}

/* ------------------------------------------------------------ groups */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *axes_key(const struct rm_job *job)
{
	char **pieces = rm_xcalloc(job->naxes + 1, sizeof(char *));
	struct rm_sb sb = RM_SB_INIT;
	size_t i, n = 0;

	for (i = 0; i < job->naxes; i++) {
		struct rm_sb p = RM_SB_INIT;

		if (!strcmp(job->axes[i].key, "commit"))
			continue;
		rm_sb_init(&p);
		rm_sb_addf(&p, "%s=%s", job->axes[i].key, job->axes[i].value);
		pieces[n++] = rm_sb_detach(&p, NULL);
	}
	rm_sort(pieces, n, sizeof(char *), cmp_str);
	rm_sb_init(&sb);
	for (i = 0; i < n; i++) {
		if (i)
			rm_sb_addc(&sb, '/');
		rm_sb_adds(&sb, pieces[i]);
		free(pieces[i]);
	}
	free(pieces);
	return rm_sb_detach(&sb, NULL);
}

static bool commit_is(const char *commit, const char *want)
{
	size_t n = strlen(want);

	return n && !strncmp(commit, want, n);
}

static struct rm_result_root *pick(struct rm_result_root **m, size_t n, const char *want,
				   const struct rm_result_root *not)
{
	size_t i;

	if (!want)
		return NULL;
	for (i = 0; i < n; i++)
		if (m[i] != not && commit_is(m[i]->commit, want))
			return m[i];
	return NULL;
}

/* "'<archive>': " for messages, or nothing for `compare BASE_DIR HEAD_DIR`. */
static void source_prefix(struct rm_sb *sb, const struct rm_archive *a)
{
	if (*a->source)
		rm_sb_addf(sb, "'%s': ", a->source);
}

/* ", "-separated short commits of the group, for messages. */
static void group_commits(struct rm_sb *sb, const struct rm_group *g)
{
	size_t i;

	for (i = 0; i < g->nmembers && i < 8; i++)
		rm_sb_addf(sb, "%s%.12s", i ? ", " : "", g->members[i]->commit);
	if (g->nmembers > 8)
		rm_sb_adds(sb, ", ...");
}

/* The directory holding the group's commit directories. */
static void group_dir(struct rm_sb *sb, const struct rm_group *g)
{
	const char *p = g->members[0]->path, *slash = strrchr(p, '/');

	rm_sb_add(sb, p, slash ? (size_t)(slash - p) : strlen(p));
}

/* The member a --base/--head value names: its commit, or a prefix that only
 * one member's commit starts with.  Otherwise err names the option, the
 * value and the group's commits (README: an unknown commit exits 1). */
static int forced_member(const struct rm_archive *a, const struct rm_group *g, const char *opt,
			 const char *want, struct rm_result_root **out, struct rm_error *err)
{
	struct rm_sb sb = RM_SB_INIT;
	size_t i, hits = 0;

	*out = NULL;
	for (i = 0; i < g->nmembers; i++)
		if (commit_is(g->members[i]->commit, want)) {
			if (!*out)
				*out = g->members[i];
			hits++;
		}
	if (hits == 1)
		return 0;
	*out = NULL;
	rm_sb_init(&sb);
	source_prefix(&sb, a);
	rm_sb_addf(&sb, "%s '%.60s' %s in '", opt, want,
		   hits ? "is ambiguous: it starts more than one commit compared"
			: "names no commit compared");
	group_dir(&sb, g);
	rm_sb_adds(&sb, "' (");
	group_commits(&sb, g);
	rm_sb_addf(&sb, "); expected %s", hits ? "more digits of one of them" : "one of them");
	rm_error_set(err, RM_ERR_INPUT, "%s", sb.buf);
	rm_sb_release(&sb);
	return -1;
}

/* --base naming the head: refused, whether the head was forced or chosen. */
static int base_is_head(const struct rm_archive *a, const struct rm_group *g,
			const struct rm_archive_opts *opts, const struct rm_result_root *head,
			struct rm_error *err)
{
	struct rm_sb sb = RM_SB_INIT;

	rm_sb_init(&sb);
	source_prefix(&sb, a);
	rm_sb_addf(&sb, "--base '%.60s' names the head commit %s of '", opts->base, head->commit);
	group_dir(&sb, g);
	rm_sb_addf(&sb, "'%s; expected a different commit as the base",
		   opts->head ? " (the one --head names)" : " (from job.yaml; --head chooses another)");
	rm_error_set(err, RM_ERR_INPUT, "%s", sb.buf);
	rm_sb_release(&sb);
	return -1;
}

/* Choose base and head among a group's members. */
static int pair_group(struct rm_archive *a, struct rm_group *g, const struct rm_archive_opts *opts,
		      struct rm_error *err)
{
	struct rm_result_root *base = NULL, *head = NULL;
	size_t i;

	if (opts && opts->head && forced_member(a, g, "--head", opts->head, &head, err))
		return -1;
	if (!head) {
		/* the head_commit most members name (ties: path order) */
		size_t best = 0, k;

		for (i = 0; i < g->nmembers; i++) {
			struct rm_result_root *c = pick(g->members, g->nmembers,
							rm_job_field(&g->members[i]->job, "head_commit"),
							NULL);
			size_t votes = 0;

			if (!c)
				continue;
			for (k = 0; k < g->nmembers; k++)
				votes += pick(g->members, g->nmembers,
					      rm_job_field(&g->members[k]->job, "head_commit"), NULL) == c;
			if (votes > best) {
				best = votes;
				head = c;
			}
		}
	}
	if (opts && opts->base) {
		if (forced_member(a, g, "--base", opts->base, &base, err))
			return -1;
		if (base == head)
			return base_is_head(a, g, opts, head, err);
	}
	for (i = 0; !base && i < g->nmembers; i++)
		base = pick(g->members, g->nmembers, rm_job_field(&g->members[i]->job, "base_commit"),
			    head);
	if (head && !base && g->nmembers == 2)
		base = g->members[0] == head ? g->members[1] : g->members[0];
	if (!head && base && g->nmembers == 2)
		head = g->members[0] == base ? g->members[1] : g->members[0];
	if (!head || !base) {
		return rm_error_set(err, RM_ERR_INPUT,
				    "'%s': cannot tell base from head among the %zu commits of '%s': "
				    "job.yaml names no head_commit/base_commit that is present; use --base and --head",
				    a->source, g->nmembers, g->members[0]->path);
	}
	g->others = rm_xcalloc(g->nmembers + 1, sizeof(*g->others));
	for (i = 0; i < g->nmembers; i++)
		if (g->members[i] != base && g->members[i] != head)
			g->others[g->nothers++] = g->members[i];
	g->members[0] = base;
	g->members[1] = head;
	g->nmembers = 2;
	return 0;
}

/* `compare BASE_DIR HEAD_DIR`: the directories give base and head; --head
 * and --base override them the same way (members are base, head). */
static int pair_dirs(struct rm_archive *a, struct rm_group *g, const struct rm_archive_opts *opts,
		     struct rm_error *err)
{
	struct rm_result_root *head = g->members[1], *base = NULL;

	if (!opts)
		return 0;
	if (opts->head && forced_member(a, g, "--head", opts->head, &head, err))
		return -1;
	if (opts->base) {
		if (forced_member(a, g, "--base", opts->base, &base, err))
			return -1;
		if (base == head)
			return base_is_head(a, g, opts, head, err);
	}
	if (!base)
		base = g->members[0] == head ? g->members[1] : g->members[0];
	g->members[0] = base;
	g->members[1] = head;
	return 0;
}

static int cmp_group(const void *a, const void *b)
{
	const struct rm_group *x = a, *y = b;

	return strcmp(x->members[0]->path, y->members[0]->path);
}

static int build_groups(struct rm_archive *a, const struct rm_archive_opts *opts,
			struct rm_error *err)
{
	char **keys = rm_xcalloc(a->nroots + 1, sizeof(char *));
	size_t i, j;
	int rc = 0;

	a->groups = rm_xcalloc(a->nroots + 1, sizeof(*a->groups));
	for (i = 0; i < a->nroots; i++)
		keys[i] = axes_key(&a->roots[i].job);
	for (i = 0; i < a->nroots; i++) {
		struct rm_group *g = NULL;

		for (j = 0; j < a->ngroups; j++)
			if (!strcmp(a->groups[j].axes_key, keys[i]))
				g = &a->groups[j];
		if (!g) {
			g = &a->groups[a->ngroups++];
			g->axes_key = rm_xstrdup(keys[i]);
			g->members = rm_xcalloc(a->nroots + 1, sizeof(*g->members));
		}
		g->members[g->nmembers++] = &a->roots[i];
	}
	for (i = 0; i < a->nroots; i++)
		free(keys[i]);
	free(keys);
	/* members are in path order; the group's first path orders groups */
	for (i = 0, j = 0; i < a->ngroups; i++) {
		struct rm_group *g = &a->groups[i];

		if (g->nmembers < 2) {
			add_warning(a, "'%s/%s': no other commit with the same test axes; nothing to compare",
				    a->source, g->members[0]->path);
			free(g->axes_key);
			free(g->members);
			continue;
		}
		if (pair_group(a, g, opts, err)) {
			rc = -1;
			free(g->axes_key);
			free(g->members);
			for (i++; i < a->ngroups; i++) {
				free(a->groups[i].axes_key);
				free(a->groups[i].members);
			}
			break;
		}
		a->groups[j++] = *g;
	}
	a->ngroups = j;
	if (rc)
		return rc;
	if (!a->ngroups)
		return rm_error_set(err, RM_ERR_INPUT,
				    "'%s': no two commits with the same test axes to compare", a->source);
	rm_sort(a->groups, a->ngroups, sizeof(*a->groups), cmp_group);
	return 0;
}

/* ------------------------------------------------------------ API */

static int load_files(struct rm_archive *a, const char *path, const struct rm_rules *rules,
		      const struct rm_archive_opts *opts, struct rm_error *err)
{
	struct filelist fl;
	struct deferred df;
	struct stat st;
	size_t i;
	int rc;

	memset(&fl, 0, sizeof(fl));
	memset(&df, 0, sizeof(df));
	fl.no_materials = opts && opts->no_materials;
	fl.max_stream = opts && opts->max_stream ? opts->max_stream : RM_ARCHIVE_MAX_STREAM;
	if (stat(path, &st))
		return rm_error_set(err, RM_ERR_INPUT, "cannot open '%s': %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode)) {
		rc = walk_dir(&fl, &df, path, AT_FDCWD, path, path, "", 0, err);
		rc = read_deferred(&fl, &df, path, rc, err);
	} else if (S_ISREG(st.st_mode)) {
		a->is_tarball = true;
		rc = rm_dynlib_need(RM_LIB_ARCHIVE, err) ? -1 : read_tarball(&fl, path, rules, err);
	} else {
		rc = rm_error_set(err, RM_ERR_INPUT,
				  "'%s': expected a result directory or a tar archive", path);
	}
	rm_sort(fl.v, fl.n, sizeof(*fl.v), cmp_file);
	for (i = 1; !rc && i < fl.n; i++)
		if (!strcmp(fl.v[i - 1].path, fl.v[i].path))
			rc = rm_error_set(err, RM_ERR_INPUT, "'%s': member '%s' appears twice; refused",
					  path, fl.v[i].path);
	a->files = fl.v;
	a->nfiles = fl.n;
	return rc;
}

int rm_archive_open(struct rm_archive *a, const char *path, const struct rm_rules *rules,
		    const struct rm_archive_opts *opts, struct rm_error *err)
{
	memset(a, 0, sizeof(*a));
	a->source = rm_xstrdup(path);
	if (load_files(a, path, rules, opts, err) || find_roots(a, rules, err) || build_groups(a, opts, err)) {
		rm_archive_free(a);
		return -1;
	}
	return 0;
}

void rm_archive_free(struct rm_archive *a)
{
	size_t i;

	for (i = 0; i < a->nfiles; i++) {
		free(a->files[i].path);
		free(a->files[i].data);
		free(a->files[i].abs);
		if (a->files[i].matrix) {
			rm_matrix_free(a->files[i].matrix);
			free(a->files[i].matrix);
		}
	}
	free(a->files);
	for (i = 0; i < a->nroots; i++)
		root_free(&a->roots[i]);
	free(a->roots);
	for (i = 0; i < a->ngroups; i++) {
		free(a->groups[i].axes_key);
		free(a->groups[i].members);
		free(a->groups[i].others);
	}
	free(a->groups);
	for (i = 0; i < a->nwarnings; i++)
		free(a->warnings[i]);
	free(a->warnings);
	free(a->source);
	memset(a, 0, sizeof(*a));
}

int rm_archive_open_pair(struct rm_archive *a, const char *base_dir, const char *head_dir,
			 const struct rm_rules *rules, const struct rm_archive_opts *opts,
			 struct rm_error *err)
{
	const char *dirs[2] = { base_dir, head_dir };
	struct filelist fl;
	struct deferred df;
	size_t i;
	int rc = 0, swap;

	memset(a, 0, sizeof(*a));
	memset(&fl, 0, sizeof(fl));
	memset(&df, 0, sizeof(df));
	a->source = rm_xstrdup("");
	fl.no_materials = opts && opts->no_materials;
	fl.max_stream = opts && opts->max_stream ? opts->max_stream : RM_ARCHIVE_MAX_STREAM;
	for (i = 0; i < 2 && !rc; i++) {
		struct stat st;
		/* files are named by their real path, so each directory is a root */
		char *prefix = rm_xstrdup(dirs[i]);
		size_t len = strlen(prefix);

		while (len > 1 && prefix[len - 1] == '/')
			prefix[--len] = '\0';
		if (stat(dirs[i], &st) || !S_ISDIR(st.st_mode))
			rc = rm_error_set(err, RM_ERR_INPUT, "'%s': expected a commit result directory",
					  dirs[i]);
		else
			rc = walk_dir(&fl, &df, dirs[i], AT_FDCWD, dirs[i], dirs[i], prefix, 0, err);
		free(prefix);
	}
	rc = read_deferred(&fl, &df, "", rc, err);
	rm_sort(fl.v, fl.n, sizeof(*fl.v), cmp_file);
	a->files = fl.v;
	a->nfiles = fl.n;
	if (!rc)
		rc = find_roots(a, rules, err);
	if (!rc && a->nroots != 2)
		rc = rm_error_set(err, RM_ERR_INPUT,
				  "expected two commit result directories (<commit>/<run>/job.yaml), found %zu roots",
				  a->nroots);
	if (rc) {
		rm_archive_free(a);
		return -1;
	}
	{
		size_t len = strlen(dirs[0]);

		while (len > 1 && dirs[0][len - 1] == '/')
			len--;
		swap = strlen(a->roots[0].path) != len || strncmp(a->roots[0].path, dirs[0], len);
	}
	if (swap) {
		/* sorted paths put the head first: swap back to base, head */
		struct rm_result_root t = a->roots[0];

		a->roots[0] = a->roots[1];
		a->roots[1] = t;
	}
	a->groups = rm_xcalloc(1, sizeof(*a->groups));
	a->groups[0].axes_key = axes_key(&a->roots[1].job);
	a->groups[0].members = rm_xcalloc(2, sizeof(*a->groups[0].members));
	a->groups[0].members[0] = &a->roots[0];
	a->groups[0].members[1] = &a->roots[1];
	a->groups[0].nmembers = 2;
	a->ngroups = 1;
	if (pair_dirs(a, &a->groups[0], opts, err)) {
		rm_archive_free(a);
		return -1;
	}
	return 0;
}
