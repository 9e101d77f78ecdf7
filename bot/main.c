/*
 * main.c - robotmail's entry point: pick the subcommand, print the error once.
 *
 * Exit codes: 0 ok, 1 bad input or failed reports, 2 usage or configuration
 * error, 75 temporary failure (see error.h).
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "dynlib.h"
#include "error.h"
#include "heap.h"
#include "help.h"

int main(int argc, char **argv)
{
	struct rm_error err;
	int rc;

	rm_error_clear(&err);
	signal(SIGPIPE, SIG_IGN);
	if (argc < 2) {
		rm_usage(1);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		rm_usage(0);
		return 0;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		rm_help_version(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "help")) {
		if (argc > 3) {
			fputs("robotmail: error: help takes one command\n", stderr);
			return 2;
		}
		if (argc > 2 && (!strcmp(argv[2], "-h") || !strcmp(argv[2], "--help")))
			argv[2] = "help";
		if (rm_help_print(argc > 2 ? argv[2] : NULL, stdout)) {
			fprintf(stderr, "robotmail: error: no command '%s'; robotmail --help lists them\n", argv[2]);
			return 2;
		}
		return 0;
	}
	/* a command (not --version or help): the heap's policy, before its
	 * first large block (heap.h: malloc keeps freed memory, huge pages) */
	rm_heap_setup();
	{
		int i;

		/* --dry-run may stand anywhere among the options */
		for (i = 1; i < argc && argv[i][0] == '-'; i++)
			if (!strcmp(argv[i], "--dry-run"))
				break;
		if (i < argc && !strcmp(argv[i], "--dry-run")) {
			rc = rm_cmd_dry_run(argc, argv, &err);
			goto done;
		}
	}
	/* libcurl, libpq, libetpan, libarchive, GnuTLS and SQLite are loaded
	 * by the commands that use them, libcurl's global set-up with it
	 * (dynlib.h): --version, help and compare DIR load none */
	if (!strcmp(argv[1], "compare")) {
		rc = rm_cmd_compare(argc - 1, argv + 1, &err);
	} else if (!strcmp(argv[1], "dry-run")) {
		rc = rm_cmd_dry_run(argc - 1, argv + 1, &err);
	} else if (!strcmp(argv[1], "run")) {
		rc = rm_cmd_run(argc - 1, argv + 1, &err);
	} else if (!strcmp(argv[1], "check-config")) {
		rc = rm_cmd_check_config(argc - 1, argv + 1, &err);
	} else if (!strcmp(argv[1], "queue")) {
		rc = rm_cmd_queue(argc - 1, argv + 1, &err);
	} else if (!strcmp(argv[1], "listen")) {
		rc = rm_cmd_listen(argc - 1, argv + 1, &err);
	} else if (!strcmp(argv[1], "status")) {
		rc = rm_cmd_status(argc - 1, argv + 1, &err);
	} else if (!strcmp(argv[1], "store")) {
		rc = rm_cmd_store(argc - 1, argv + 1, &err);
	} else if (!strcmp(argv[1], "commit")) {
		rc = rm_cmd_commit(argc - 1, argv + 1, &err);
	} else {
		rm_error_set(&err, RM_ERR_USAGE, "unknown command '%s'", argv[1]);
		rc = 2;
	}
done:
	/* a command returns 0, or -1 with err saying what and how bad (an
	 * empty message stands for failures it logged one by one); a failure
	 * a command went on after (rc 0) never changes the exit code */
	if (rc != 0 && err.kind != RM_OK) {
		if (err.msg[0])
			fprintf(stderr, "robotmail: error: %s\n", err.msg);
		if (err.kind == RM_ERR_USAGE)
			fprintf(stderr, "Try 'robotmail --help'.\n");
		if (rc < 0)
			rc = rm_error_exit_code(err.kind);
	} else if (rc < 0) {
		rc = 1; /* a failure without a kind: a bug, but never a success */
	}
	rm_dynlib_cleanup(); /* curl_global_cleanup when libcurl was loaded */
	return rc;
}
