/*
 * fuzz_config.c - libFuzzer target: arbitrary bytes as robotmail.yaml.
 *
 * The bytes go to one reused in-memory file (memfd, read through
 * /proc/self/fd/N; a mkstemp file under $TMPDIR when memfd is unavailable),
 * which rm_config_load reads: libyaml, every section's typed keys, trees.
 * A loaded config is checked against the promises of config.h and its
 * lookups are exercised; then rm_config_free.
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "config.h"
#include "error.h"

static int fuzz_fd = -1;
static char fuzz_path[4096];

static void cleanup(void)
{
	if (fuzz_fd >= 0 && strncmp(fuzz_path, "/proc/", 6))
		unlink(fuzz_path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_fd = memfd_create("robotmail-fuzz.yaml", MFD_CLOEXEC);
	if (fuzz_fd >= 0) {
		snprintf(fuzz_path, sizeof(fuzz_path), "/proc/self/fd/%d", fuzz_fd);
		if (access(fuzz_path, R_OK) == 0)
			return 0;
		close(fuzz_fd);
	}
	{
		const char *tmp = getenv("TMPDIR");

		snprintf(fuzz_path, sizeof(fuzz_path), "%s/robotmail-fuzz-XXXXXX.yaml",
			 tmp && *tmp ? tmp : "/tmp");
		fuzz_fd = mkstemps(fuzz_path, 5);
		if (fuzz_fd < 0) {
			perror("fuzz_config: mkstemps");
			abort();
		}
		atexit(cleanup);
	}
	return 0;
}

static void check_one_line(const char *s)
{
	if (s && strpbrk(s, "\r\n"))
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rm_config c;
	struct rm_error err;
	size_t off = 0, i;

	if (ftruncate(fuzz_fd, 0))
		abort();
	while (off < size) {
		ssize_t n = pwrite(fuzz_fd, data + off, size - off, (off_t)off);

		if (n <= 0)
			abort();
		off += (size_t)n;
	}
	rm_error_clear(&err);
	if (rm_config_load(&c, fuzz_path, &err)) {
		if (err.kind != RM_ERR_CONFIG || !err.msg[0])
			__builtin_trap();
		return 0;
	}
	/* no built-in identity: robot.name/address may be missing after a load
	 * (rm_config_check_identity refuses that before a report is made) */
	if (!c.file || !c.timezone || !c.state_db)
		__builtin_trap();
	{
		struct rm_error ie;

		if (!rm_config_check_identity(&c, &ie) != (c.robot_name && *c.robot_name && c.robot_address))
			__builtin_trap();
	}
	if (strlen(c.timezone) != 5 || c.concurrency < 1 || c.concurrency > 64 ||
	    c.connect_timeout < 1 || c.timeout < 1 || c.retries < 0 || c.max_wait < 0 ||
	    c.miss_ttl < 0)
		__builtin_trap();
	check_one_line(c.robot_name);
	check_one_line(c.robot_address);
	for (i = 0; i < c.cc.n; i++)
		if (!c.cc.v[i])
			__builtin_trap();
	for (i = 0; i < c.ntrees; i++) {
		const struct rm_tree_cfg *t = &c.trees[i];
		size_t k;

		if (!t->name || !t->branch || !t->url || (t->provider != RM_PROVIDER_NONE && !t->api))
			__builtin_trap();
		if (rm_config_tree(&c, t->name) == NULL)
			__builtin_trap();
		for (k = 0; k < t->aliases.n; k++)
			(void)rm_config_tree_for_branch(&c, t->aliases.v[k]);
		(void)rm_config_provider_name(t->provider);
		for (k = 0; k < t->mail_to.n; k++)
			check_one_line(t->mail_to.v[k]);
	}
	(void)rm_config_tree_for_branch(&c, "linus/master");
	(void)rm_config_tree_for_branch(&c, "");
	rm_config_free(&c);
	return 0;
}
