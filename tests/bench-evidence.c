/* bench-evidence.c - evidence extraction throughput and memory on a large log.
 *
 *   bench-evidence plain MB     a generated console log of MB MiB, streamed
 *                               through a pipe (never on disk), the failure's
 *                               trace at its very end
 *   bench-evidence xz MB FILE   the same log written xz-compressed to FILE
 *                               (not timed), then read back and timed
 *
 * Prints "bytes N seconds S mbps R maxrss_kib K excerpt_lines L".  The peak
 * RSS is this process's (the generator of the plain mode is a child). */
#include <archive.h>
#include <archive_entry.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "evidence.h"

#define TRACE \
	"[ 9999.000000][    T1] BUG: kernel NULL pointer dereference, address: 0000000000000008\n" \
	"[ 9999.000001][    T1] Oops: 0000 [#1] PREEMPT SMP PTI\n" \
	"[ 9999.000002][    T1] ---[ end trace 0000000000000000 ]---\n"

/* Write mb MiB of log lines (one 64 KiB block of distinct lines, again and
 * again: the generator must not be what is measured), then the trace. */
static void generate(unsigned long long mb, void (*write_fn)(void *, const char *, size_t), void *ctx)
{
	static char buf[1 << 16];
	unsigned long long total = mb << 20, done = 0, line = 0;
	size_t n = 0;

	while (n + 128 < sizeof(buf)) {
		int k = snprintf(buf + n, sizeof(buf) - n,
				 "[%5llu.%06llu][ T%4llu] systemd[1]: Started unit %llu of the bench run.\n",
				 line / 100000 % 9000, line % 1000000, line % 4096, line);
		n += (size_t)k;
		line++;
	}
	while (done < total) {
		write_fn(ctx, buf, n);
		done += n;
	}
	write_fn(ctx, TRACE, strlen(TRACE));
}

static void write_fd(void *ctx, const char *p, size_t n)
{
	int fd = *(int *)ctx;

	while (n) {
		ssize_t w = write(fd, p, n);

		if (w <= 0)
			_exit(1);
		p += w;
		n -= (size_t)w;
	}
}

static void write_ar(void *ctx, const char *p, size_t n)
{
	if (archive_write_data(ctx, p, n) != (la_ssize_t)n)
		exit(1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct rm_evidence_limits lim;
	struct rm_evidence e;
	struct rm_error err;
	struct rusage ru;
	unsigned long long mb;
	char path[64];
	const char *file;
	double t0, t1;
	pid_t pid = 0;
	size_t lines = 0;
	const char *p;

	if (argc < 3 || (strcmp(argv[1], "plain") && strcmp(argv[1], "xz")) ||
	    (!strcmp(argv[1], "xz") && argc < 4)) {
		fprintf(stderr, "usage: bench-evidence plain MB | xz MB FILE\n");
		return 2;
	}
	mb = strtoull(argv[2], NULL, 10);
	rm_evidence_limits_default(&lim);
	if (!strcmp(argv[1], "plain")) {
		int fds[2];

		if (pipe(fds))
			return 1;
		pid = fork();
		if (pid == 0) {
			close(fds[0]);
			generate(mb, write_fd, &fds[1]);
			close(fds[1]);
			_exit(0);
		}
		close(fds[1]);
		snprintf(path, sizeof(path), "/dev/fd/%d", fds[0]);
		file = path;
	} else {
		struct archive *w = archive_write_new();
		struct archive_entry *en = archive_entry_new();

		file = argv[3];
		archive_write_set_format_raw(w);
		archive_write_add_filter_xz(w);
		archive_write_set_filter_option(w, "xz", "compression-level", "1");
		if (archive_write_open_filename(w, file) != ARCHIVE_OK)
			return 1;
		archive_entry_set_filetype(en, AE_IFREG);
		archive_entry_set_pathname(en, "dmesg");
		archive_write_header(w, en);
		generate(mb, write_ar, w);
		archive_write_close(w);
		archive_write_free(w);
		archive_entry_free(en);
	}
	t0 = now();
	if (rm_evidence_scan_file(file, "9999.000000", &lim, &e, &err)) {
		fprintf(stderr, "bench-evidence: %s\n", err.msg);
		return 1;
	}
	t1 = now();
	if (pid)
		waitpid(pid, NULL, 0);
	getrusage(RUSAGE_SELF, &ru);
	for (p = e.excerpt; p && *p; p++)
		lines += *p == '\n';
	printf("bytes %llu seconds %.3f mbps %.1f maxrss_kib %ld excerpt_lines %zu%s%s\n", e.bytes,
	       t1 - t0, e.bytes / 1048576.0 / (t1 - t0), ru.ru_maxrss, lines,
	       e.problem ? " problem " : "", e.problem ? e.problem : "");
	rm_evidence_free(&e);
	return lines == 3 ? 0 : 1;
}
