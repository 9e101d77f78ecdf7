/*
 * cli.h - robotmail's subcommands.
 *
 * Owns: parsing each subcommand's arguments and wiring the stages together
 * for it (archive -> stats -> table for `compare`).  Errors come back as
 * return codes with a struct rm_error; main() prints them once.
 * Must not: hold the logic of any stage.
 */
#ifndef RM_CLI_H
#define RM_CLI_H

#include "error.h"

/* Each returns the process exit code; on failure err holds the message. */
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
/* robotmail --dry-run [options] ARCHIVE...: print what would be sent. */
int rm_cmd_dry_run(int argc, char **argv, struct rm_error *err);

/* Print usage to stdout (help) or stderr. */
void rm_usage(int to_stderr);

#endif
