/* fileutil.c - see fileutil.h. */
#include "fileutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "strbuf.h"

int rm_read_fd(int fd, const char *name, size_t max, char **buf, size_t *len,
	       struct rm_error *err)
{
	struct stat st;
	char *p;
	size_t got = 0;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		return rm_error_set(err, RM_ERR_INPUT, "'%s': expected a regular file", name);
	if ((unsigned long long)st.st_size > max)
		return rm_error_set(err, RM_ERR_INPUT, "'%s': file too large (%lld bytes, limit %zu)",
				    name, (long long)st.st_size, max);
	p = rm_xmalloc((size_t)st.st_size + 1);
	for (;;) {
		ssize_t n;

		if (got == (size_t)st.st_size) {
			/* the file may have grown; read no further than we sized */
			break;
		}
		n = read(fd, p + got, (size_t)st.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			free(p);
			return rm_error_set(err, RM_ERR_INPUT, "cannot read '%s': %s", name,
					    strerror(e));
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	p[got] = '\0';
	*buf = p;
	*len = got;
	return 0;
}

int rm_read_file(const char *path, size_t max, char **buf, size_t *len, struct rm_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	int rc;

	if (fd < 0)
		return rm_error_set(err, RM_ERR_INPUT,
				    "cannot open '%s': %s", path, strerror(errno));
	rc = rm_read_fd(fd, path, max, buf, len, err);
	close(fd);
	return rc;
}

char *rm_path_join(const char *a, const char *b)
{
	struct rm_sb sb = RM_SB_INIT;
	size_t la = strlen(a);

	rm_sb_init(&sb);
	rm_sb_adds(&sb, a);
	if (la && a[la - 1] != '/' && *b)
		rm_sb_addc(&sb, '/');
	rm_sb_adds(&sb, b);
	return rm_sb_detach(&sb, NULL);
}

int rm_write_file(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "w");
	int bad;

	if (!f)
		return -1;
	bad = fwrite(data, 1, len, f) != len;
	bad |= fclose(f) != 0;
	return bad ? -1 : 0;
}

int rm_mkdir_p(const char *dir)
{
	char *p = rm_xstrdup(dir), *s;
	struct stat st;
	int rc = 0;

	for (s = p + 1; *s && !rc; s++) {
		if (*s == '/' && s[-1] != '/') {
			*s = '\0';
			if (mkdir(p, 0777) && errno != EEXIST)
				rc = -1;
			*s = '/';
		}
	}
	if (!rc && mkdir(p, 0777) && errno != EEXIST)
		rc = -1;
	if (!rc && stat(p, &st))
		rc = -1;
	else if (!rc && !S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		rc = -1;
	}
	free(p);
	return rc;
}
