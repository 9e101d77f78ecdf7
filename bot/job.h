/*
 * job.h - one LKP `job.yaml`: its fields, its test parameters and its axes.
 *
 * Owns: turning a job.yaml (YAML made of `#! <source>` blocks) into
 *   - the top-level fields robotmail uses (commit, head_commit, branch,
 *     kconfig, compiler, rootfs, testcase, tbox_group, version, the hosts
 *     fields ...), as the strings Ruby would print for them;
 *   - the test parameters in job order (lkp-tests Job#each_param: options
 *     declared by the programs the job uses, setup programs, wrapper options,
 *     `cluster`; never keys nested under a monitor), used for the report's
 *     "parameters:" block and `path_params`;
 *   - the axes (Job#axes): tbox_group testcase rootfs kconfig compiler commit,
 *     then the parameters.
 * Must not: read files (callers hand over bytes), compare anything.
 */
#ifndef RM_JOB_H
#define RM_JOB_H

#include <stddef.h>
#include <time.h>

#include "error.h"
#include "rules.h"

struct rm_kv {
	char *key;
	char *value;   /* NULL for a nil parameter */
	int is_false;  /* a YAML boolean false: Ruby skips it like nil */
};

struct rm_job {
	char *file;
	struct rm_kv *fields; /* top-level scalars: first position, last value */
	size_t nfields;
	struct rm_kv *params; /* parameters, job order */
	size_t nparams;
	struct rm_kv *axes;   /* Job#axes order; includes commit */
	size_t naxes;
};

/* Parse.  `file` is used in error messages ("'<file>' line L: ...").
 * Fills job, which the caller releases with rm_job_free(). */
int rm_job_parse(struct rm_job *job, const struct rm_rules *rules, const char *file,
		 const char *buf, size_t len, struct rm_error *err);
void rm_job_free(struct rm_job *job);

/* A top-level field's value or NULL. */
const char *rm_job_field(const struct rm_job *job, const char *key);
/* Epoch seconds from a top-level field (end_time, start_time), or 0 when it
 * is missing or not a time between 1970 and 9999 (strtoll's overflow
 * included). */
time_t rm_job_epoch(const struct rm_job *job, const char *key);
/* An axis value or NULL. */
const char *rm_job_axis(const struct rm_job *job, const char *key);

/* rootfs_filename(): the last piece after splitting on [^a-zA-Z0-9._-]. */
char *rm_job_rootfs_filename(const char *rootfs);

#endif
