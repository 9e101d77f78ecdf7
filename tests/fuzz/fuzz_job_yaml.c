/*
 * fuzz_job_yaml.c - libFuzzer target: arbitrary bytes as an LKP job.yaml.
 *
 * Exercises yamldoc.c (libyaml load, Ruby scalar typing) and job.c (fields,
 * parameters, axes), then renders a one-row table with the parsed axes so
 * that table.c sees hostile axis keys and values too.
 */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_common.h"
#include "job.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_load_rules();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rm_job job;
	struct rm_error err;
	size_t i;

	rm_error_clear(&err);
	if (rm_job_parse(&job, &fuzz_rules, "fuzz/0/job.yaml", (const char *)data, size, &err)) {
		/* an error must say something */
		if (err.kind == RM_OK || !err.msg[0])
			abort();
		return 0;
	}
	/* every lookup the rest of robotmail does */
	(void)rm_job_field(&job, "commit");
	(void)rm_job_field(&job, "head_commit");
	(void)rm_job_field(&job, "base_commit");
	(void)rm_job_axis(&job, "commit");
	for (i = 0; i < job.nparams; i++)
		if (!job.params[i].key)
			abort();
	for (i = 0; i < job.naxes; i++)
		if (!job.axes[i].key || !job.axes[i].value)
			abort();
	{
		struct rm_row row;
		struct rm_comparison cmp;
		struct rm_table_commit base = { "819bfbd47e49df890123456789abcdef01234567", NULL };
		struct rm_table_commit head = { "8d596d8b81ef56bf61538d6b4760123456789abc", "subject" };
		struct rm_sb out;

		memset(&row, 0, sizeof(row));
		memset(&cmp, 0, sizeof(cmp));
		row.name = "stress-ng.mlockmany.ops";
		row.avg[0] = 1050118;
		row.avg[1] = 1161061;
		row.stddev[0] = 5089.8;
		row.stddev[1] = 28577.4;
		row.change = 10.6;
		cmp.rows = &row;
		cmp.n = 1;
		rm_sb_init(&out);
		rm_table_render(&out, &job, &base, &head, &cmp);
		rm_sb_release(&out);
	}
	rm_job_free(&job);
	return 0;
}
