/*
 * bench-rusage.c - run a command once, as /usr/bin/time would, for
 * tests/bench.sh: `bench-rusage OUT CMD [ARG...]` writes "WALL USER SYS
 * MAXRSS" to OUT, seconds to the microsecond (the kernel's own accounting,
 * read with wait4) and the peak RSS in KiB.  GNU time prints user and sys to
 * 10 ms only, which made the bench's cpu ratios of runs of 50-300 ms mostly
 * rounding.  A C program, not a script: the kernel carries the peak RSS of
 * the process that spawned CMD into CMD's across exec, so the launcher must
 * be small (a Python launcher showed 13 MiB for a 1.5 MiB program).
 * stdin, stdout and stderr are CMD's; the exit code is CMD's (128 + N when
 * signal N ended it, 127 when it cannot start).  Not part of robotmail.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE
#include <spawn.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>

extern char **environ;

static double secs(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	struct rusage ru;
	pid_t pid;
	int status, rc;
	FILE *out;

	if (argc < 3) {
		fputs("usage: bench-rusage OUT CMD [ARG...]\n", stderr);
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = posix_spawnp(&pid, argv[2], NULL, NULL, argv + 2, environ);
	if (rc) {
		fprintf(stderr, "bench-rusage: cannot run %s\n", argv[2]);
		return 127;
	}
	if (wait4(pid, &status, 0, &ru) != pid) {
		perror("bench-rusage: wait4");
		return 127;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	out = fopen(argv[1], "w");
	if (!out) {
		perror(argv[1]);
		return 127;
	}
	fprintf(out, "%.6f %.6f %.6f %ld\n",
		(double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
		secs(ru.ru_utime), secs(ru.ru_stime), ru.ru_maxrss);
	if (fclose(out))
		return 127;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
