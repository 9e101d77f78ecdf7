/*
 * help.h - robotmail's help texts: the overview, one page per command, and
 * the version.
 *
 * Owns: the words of `robotmail --help`, `robotmail help CMD`,
 * `robotmail CMD --help` and `robotmail --version` (cli.c and main.c call
 * these; the options themselves are parsed in cli.c).  Kept beside the
 * man page contrib/robotmail.1, which says the same at length.
 *
 * Must not: parse arguments, read files, or run anything.
 */
#ifndef RM_HELP_H
#define RM_HELP_H

#include <stdio.h>

/* Print the help of command `cmd` ("run", "queue", "--dry-run" or
 * "dry-run", ...), or the overview when cmd is NULL, to f.  0, or -1 when
 * there is no such command (nothing printed). */
int rm_help_print(const char *cmd, FILE *f);

/* "robotmail VERSION" and the data directories it reads, to f. */
void rm_help_version(FILE *f);

#endif
