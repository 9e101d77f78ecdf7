/*
 * cli.h - robotmail's subcommands.
 *
 * Owns: parsing each subcommand's arguments, help, and calling the stages
 * for it: the setup (setup.h), then run.h for `run` and `--dry-run`, the
 * pipeline's first stages (pipeline.h) for `compare`, lookup.h for
 * `commit`, checkconfig.h for `check-config`, schedule.h for `queue`,
 * listen.h, status.h, store.h.  A command returns 0,
 * or -1 with a struct rm_error whose kind main() maps to the exit code;
 * main() prints it once.
 * Must not: hold the logic of any stage, format a stage's data (the module
 * owning it does), print an error.
 */
#ifndef RM_CLI_H
#define RM_CLI_H

#include "error.h"

/* Each returns 0, or -1 with err set (rm_cmd_queue still returns an exit
 * code with err set; main() takes both). */
int rm_cmd_compare(int argc, char **argv, struct rm_error *err);
int rm_cmd_commit(int argc, char **argv, struct rm_error *err);
/* robotmail run: the cron entry (delivery through schedule.c).  robotmail
 * queue ...: parses the action; schedule.c runs it on the store. */
int rm_cmd_run(int argc, char **argv, struct rm_error *err);
int rm_cmd_queue(int argc, char **argv, struct rm_error *err);
/* robotmail store [-c CONFIG] check | migrate --to URL [--from PATH] */
int rm_cmd_store(int argc, char **argv, struct rm_error *err);
/* robotmail check-config [-c FILE] [--online] */
int rm_cmd_check_config(int argc, char **argv, struct rm_error *err);
/* robotmail --dry-run [options] ARCHIVE...: print what `run` would do. */
int rm_cmd_dry_run(int argc, char **argv, struct rm_error *err);

/* robotmail listen [-c FILE] [--now EPOCH] [--follow [--interval S]]: one
 * pass over listen's sources (for cron), or one every S seconds. */
int rm_cmd_listen(int argc, char **argv, struct rm_error *err);

/* robotmail status [-c FILE] [--html DIR] [--json DIR]: the findings page. */
int rm_cmd_status(int argc, char **argv, struct rm_error *err);

/* Print usage to stdout (help) or stderr. */
void rm_usage(int to_stderr);

#endif
