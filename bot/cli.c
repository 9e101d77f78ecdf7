/* cli.c - see cli.h. */
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "archive.h"
#include "fileutil.h"
#include "rules.h"
#include "stats.h"
#include "strbuf.h"
#include "table.h"

#ifndef RM_DATADIR
#define RM_DATADIR "/usr/share/robotmail"
#endif

void rm_usage(int to_stderr)
{
	fputs("usage: robotmail compare [options] ARCHIVE...\n"
	      "       robotmail compare [options] BASE_DIR HEAD_DIR\n"
	      "\n"
	      "compare options:\n"
	      "  --base COMMIT      use COMMIT (or a prefix) as the base of every group\n"
	      "  --head COMMIT      use COMMIT (or a prefix) as the head of every group\n"
	      "  --metrics FILE     metric rules (default: $ROBOTMAIL_DATADIR/metrics.yaml)\n"
	      "  --programs FILE    LKP program facts (default: $ROBOTMAIL_DATADIR/lkp-programs.yaml)\n"
	      "  -v, --verbose      report skipped groups and stats on stderr\n"
	      "\n"
	      "ARCHIVE is a result directory or a .tar, .tar.gz, .tar.xz or .tar.zst file.\n"
	      "Exit codes: 0 ok, 1 bad archive, 2 usage or configuration error.\n",
	      to_stderr ? stderr : stdout);
}

static char *data_file(const char *name)
{
	const char *dir = getenv("ROBOTMAIL_DATADIR");

	return rm_path_join(dir && *dir ? dir : RM_DATADIR, name);
}

static int load_rules(struct rm_rules *rules, const char *metrics, const char *programs,
		      struct rm_error *err)
{
	char *m = metrics ? rm_xstrdup(metrics) : data_file("metrics.yaml");
	char *p = programs ? rm_xstrdup(programs) : data_file("lkp-programs.yaml");
	int rc = rm_rules_load(rules, m, p, err);

	free(m);
	free(p);
	return rc;
}

static int is_commit_dir(const char *path)
{
	/* a _result_root: a directory with <run>/job.yaml in it */
	struct stat st;
	int i, found = 0;

	for (i = 0; i < 100 && !found; i++) {
		char run[16];
		char *d, *probe;

		snprintf(run, sizeof(run), "%d", i);
		d = rm_path_join(path, run);
		probe = rm_path_join(d, "job.yaml");
		found = !stat(probe, &st) && S_ISREG(st.st_mode);
		free(d);
		free(probe);
	}
	return found;
}

static void print_warnings(const struct rm_archive *a)
{
	size_t i;

	for (i = 0; i < a->nwarnings; i++)
		fprintf(stderr, "robotmail: warning: %s\n", a->warnings[i]);
}

static int compare_archive(struct rm_archive *a, const struct rm_rules *rules, int verbose,
			   struct rm_error *err)
{
	size_t g;

	if (verbose)
		print_warnings(a);
	for (g = 0; g < a->ngroups; g++) {
		const struct rm_group *grp = &a->groups[g];
		struct rm_comparison cmp;
		struct rm_table_commit base = { grp->members[0]->commit, NULL };
		struct rm_table_commit head = { grp->members[1]->commit, NULL };
		struct rm_sb out = RM_SB_INIT;

		if (rm_compare(rules, grp->members[0], grp->members[1], &cmp, err))
			return -1;
		if (cmp.skipped_bad)
			fprintf(stderr,
				"robotmail: warning: '%s': %zu stats with NaN, Infinity or non-numbers left out\n",
				grp->members[1]->path, cmp.skipped_bad);
		if (verbose && !cmp.n)
			fprintf(stderr, "robotmail: '%s' vs '%s': no changed stats\n",
				grp->members[0]->path, grp->members[1]->path);
		rm_sb_init(&out);
		rm_table_render(&out, &grp->members[1]->job, &base, &head, &cmp);
		fwrite(out.buf, 1, out.len, stdout);
		rm_sb_release(&out);
		rm_comparison_free(&cmp);
	}
	return 0;
}

int rm_cmd_compare(int argc, char **argv, struct rm_error *err)
{
	static const struct option longopts[] = {
		{ "base", required_argument, NULL, 'b' },
		{ "head", required_argument, NULL, 'H' },
		{ "metrics", required_argument, NULL, 'm' },
		{ "programs", required_argument, NULL, 'p' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rm_archive_opts opts = { NULL, NULL };
	const char *metrics = NULL, *programs = NULL;
	struct rm_rules rules;
	int c, i, verbose = 0, rc = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			opts.base = optarg;
			break;
		case 'H':
			opts.head = optarg;
			break;
		case 'm':
			metrics = optarg;
			break;
		case 'p':
			programs = optarg;
			break;
		case 'v':
			verbose = 1;
			break;
		case 'h':
			rm_usage(0);
			return 0;
		default:
			return rm_error_set(err, RM_ERR_USAGE, "compare: bad option"), 2;
		}
	}
	if (optind >= argc)
		return rm_error_set(err, RM_ERR_USAGE, "compare: expected an ARCHIVE or BASE_DIR HEAD_DIR"), 2;
	if (load_rules(&rules, metrics, programs, err))
		return 2;
	fflush(stdout);
	if (argc - optind == 2 && is_commit_dir(argv[optind]) && is_commit_dir(argv[optind + 1])) {
		struct rm_archive a;

		if (rm_archive_open_pair(&a, argv[optind], argv[optind + 1], &rules, err)) {
			rc = rm_error_exit_code(err->kind);
		} else {
			if (compare_archive(&a, &rules, verbose, err))
				rc = rm_error_exit_code(err->kind);
			rm_archive_free(&a);
		}
		rm_rules_free(&rules);
		return rc;
	}
	for (i = optind; i < argc; i++) {
		struct rm_archive a;
		struct rm_error e;
		int bad;

		rm_error_clear(&e);
		if (rm_archive_open(&a, argv[i], &rules, &opts, &e)) {
			bad = 1;
		} else {
			bad = compare_archive(&a, &rules, verbose, &e) != 0;
			rm_archive_free(&a);
		}
		if (bad) {
			/* report each bad archive once, and go on with the others */
			fprintf(stderr, "robotmail: error: %s\n", e.msg);
			if (rm_error_exit_code(e.kind) > rc)
				rc = rm_error_exit_code(e.kind);
		}
	}
	rm_rules_free(&rules);
	return rc;
}
