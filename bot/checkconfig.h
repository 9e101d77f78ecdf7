/*
 * checkconfig.h - `robotmail check-config`: the checks of a loaded
 * configuration and their report.
 *
 * Owns: what check-config checks and the lines it prints, one per check
 * ("ok   WHAT: DETAIL" or "FAIL WHAT: DETAIL") and the closing verdict: the
 * robot identity, the rule files, both templates rendered against the
 * variables report.c provides, password and token files, each tree (with
 * --online: its server answers), the transport (with --online: the SMTP
 * server answers), the state directory or shared store, the inbox, listen's
 * sources and the opt-outs received by mail.
 * Must not: load the configuration or the rules (cli.c does and hands them
 * over), create or change anything (no directory, no store write), return
 * an error for a problem it found (a problem is a FAIL line of the report).
 */
#ifndef RM_CHECKCONFIG_H
#define RM_CHECKCONFIG_H

#include <stdbool.h>
#include <stdio.h>

#include "config.h"
#include "rules.h"

/* The one line for a configuration or rule file that did not load (why:
 * the loader's message); check-config stops after it. */
void rm_checkconfig_load_failed(FILE *out, const char *why);

/* Run every check on cfg and rules (both loaded), templates read from
 * templates_dir; with online, also ask each tree's server and the SMTP
 * server.  Prints each check's line and the verdict on out.  Returns the
 * number of problems found (0: all good).  Reads the store read-only when
 * listen is configured; keeps nothing. */
int rm_checkconfig_run(const struct rm_config *cfg, const struct rm_rules *rules,
		       const char *templates_dir, bool online, FILE *out);

#endif
