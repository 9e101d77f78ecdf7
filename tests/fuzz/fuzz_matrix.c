/*
 * fuzz_matrix.c - libFuzzer target: arbitrary bytes as the JSON of a result
 * tree, through rm_archive_open (directory walk), rm_compare and
 * rm_table_render.
 *
 * A fixed tree under a private temp dir (made once):
 *   r/t/p/b/r/k/c/<A>/0/job.yaml          base, fixed
 *   r/t/p/b/r/k/c/<A>/matrix.json         <- the fuzz bytes (commit matrix)
 *   r/t/p/b/r/k/c/<B>/{0,1,2}/job.yaml    head, fixed, head_commit: B
 *   r/t/p/b/r/k/c/<B>/0/stats.json        <- the fuzz bytes again (unite path)
 *   r/t/p/b/r/k/c/<B>/{1,2}/stats.json    fixed
 * so one input exercises both the matrix.json reader and the stats.json
 * uniting (zero fill, incomplete runs), then the comparison of the two.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_common.h"

#define A "819bfbd47e49df890123456789abcdef01234567"
#define B "8d596d8b81ef56bf61538d6b4760123456789abc"
#define ROOT "r/t/p/b/r/k/c"

static char tmpdir[4096];
static char *path_matrix, *path_stats0, *tree;

static const char job_fmt[] =
	"---\n"
	"#! jobs/stress-ng.yaml\n"
	"suite: stress-ng\n"
	"testcase: stress-ng\n"
	"category: benchmark\n"
	"nr_threads: 100%%\n"
	"testtime: 60s\n"
	"stress-ng:\n"
	"  test: mlockmany\n"
	"tbox_group: lkp-emr-2sp1\n"
	"rootfs: debian-13-x86_64-20250902.cgz\n"
	"kconfig: x86_64-rhel-9.4\n"
	"compiler: gcc-14\n"
	"cpufreq_governor: performance\n"
	"commit: %s\n"
	"head_commit: " B "\n";

static const char *const stats_fixed[] = {
	"{\"stress-ng.mlockmany.ops\": 1161061, \"stress-ng.time.user_time\": 98.61,"
	" \"vmstat.system.cs\": 3372.4, \"dmesg.oops\": 1,"
	" \"perf-profile.calltrace.cycles-pp.do_syscall_64\": 12.5}",
	"{\"stress-ng.mlockmany.ops\": 1196061, \"stress-ng.time.user_time\": 102.32,"
	" \"vmstat.system.cs\": 3410.0, \"last_state.is_incomplete_run\": 1,"
	" \"perf-profile.self.cycles-pp.memset\": 3}",
};

static void mkdirs(const char *path)
{
	char buf[4096];
	size_t i, n = strlen(path);

	if (n >= sizeof(buf))
		abort();
	memcpy(buf, path, n + 1);
	for (i = 1; i <= n; i++) {
		if (buf[i] == '/' || buf[i] == '\0') {
			char c = buf[i];

			buf[i] = '\0';
			if (mkdir(buf, 0700) && errno != EEXIST) {
				perror(buf);
				abort();
			}
			buf[i] = c;
		}
	}
}

static void write_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	size_t off = 0;

	if (fd < 0) {
		perror(path);
		abort();
	}
	while (off < len) {
		ssize_t n = write(fd, (const char *)data + off, len - off);

		if (n <= 0)
			abort();
		off += (size_t)n;
	}
	close(fd);
}

static char *pathf(const char *fmt, const char *a1, const char *a2)
{
	char buf[4096];

	snprintf(buf, sizeof(buf), fmt, tmpdir, a1, a2);
	return strdup(buf);
}

static void write_job(const char *commit, const char *run)
{
	char job[2048], *dir = pathf("%s/" ROOT "/%s/%s", commit, run), *f;

	mkdirs(dir);
	f = fuzz_join(dir, "job.yaml");
	snprintf(job, sizeof(job), job_fmt, commit);
	write_file(f, job, strlen(job));
	free(f);
	free(dir);
}

static void rm_tree(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;

	if (d) {
		while ((de = readdir(d))) {
			char *c;

			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			c = fuzz_join(path, de->d_name);
			rm_tree(c);
			free(c);
		}
		closedir(d);
		rmdir(path);
	} else {
		unlink(path);
	}
}

static void cleanup(void)
{
	if (tmpdir[0])
		rm_tree(tmpdir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *tmp = getenv("TMPDIR");
	char *f;

	(void)argc;
	(void)argv;
	fuzz_load_rules();
	snprintf(tmpdir, sizeof(tmpdir), "%s/robotmail-fuzz-matrix.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(tmpdir)) {
		perror("fuzz_matrix: mkdtemp");
		abort();
	}
	atexit(cleanup);
	tree = pathf("%s/r%s%s", "", "");
	write_job(A, "0");
	write_job(B, "0");
	write_job(B, "1");
	write_job(B, "2");
	f = pathf("%s/" ROOT "/%s/%s/stats.json", B, "1");
	write_file(f, stats_fixed[0], strlen(stats_fixed[0]));
	free(f);
	f = pathf("%s/" ROOT "/%s/%s/stats.json", B, "2");
	write_file(f, stats_fixed[1], strlen(stats_fixed[1]));
	free(f);
	path_matrix = pathf("%s/" ROOT "/%s/%s", A, "matrix.json");
	path_stats0 = pathf("%s/" ROOT "/%s/%s/stats.json", B, "0");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rm_archive a;
	struct rm_error err;

	write_file(path_matrix, data, size);
	write_file(path_stats0, data, size);
	rm_error_clear(&err);
	if (rm_archive_open(&a, tree, &fuzz_rules, NULL, &err)) {
		if (err.kind == RM_OK || !err.msg[0])
			abort();
		return 0;
	}
	if (a.ngroups != 1)
		abort(); /* one group: base A, head B */
	fuzz_compare_all(&a);
	rm_archive_free(&a);
	return 0;
}
