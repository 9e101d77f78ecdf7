/*
 * setup.h - what a command opens before it calls the stages.
 *
 * Owns: a command's shared setup: the configuration (-c FILE, else
 * $ROBOTMAIL_CONFIG, else the built-in defaults), the metric and program
 * rules (the configured files, else the installed ones under
 * $ROBOTMAIL_DATADIR or RM_DATADIR), the store and the commit cache over it,
 * the operator's --note, where the templates are ($ROBOTMAIL_TEMPLATES or
 * RM_TEMPLATEDIR unless paths.templates says), and a pipeline wired to all
 * of it.
 * Must not: parse arguments (cli.c), hold a stage's logic, print.
 */
#ifndef RM_SETUP_H
#define RM_SETUP_H

#include <stdbool.h>
#include <time.h>

#include "config.h"
#include "error.h"
#include "pipeline.h"
#include "rules.h"
#include "store.h"

struct rm_setup {
	struct rm_config cfg;
	bool have_cfg;
	struct rm_rules rules;
	bool have_rules;
	struct rm_store *ob;          /* the store, or NULL (not opened) */
	struct rm_commit_cache cache; /* over ob, once rm_setup_wire_cache() ran */
	char *note;                   /* --note FILE: the operator's note for every archive */
};

/* Load the configuration (config: -c FILE or NULL), and with need_rules
 * the rules (metrics, programs: the options' files or NULL for the
 * configured or installed ones); with use_cache and a configuration file,
 * open the store read-write and wire the commit cache.  Returns 0, or -1
 * with err; either way the caller calls rm_setup_close(s). */
int rm_setup_open(struct rm_setup *s, const char *config, const char *metrics,
		  const char *programs, bool need_rules, bool use_cache, struct rm_error *err);

/* The commit cache over the open store s->ob. */
void rm_setup_wire_cache(struct rm_setup *s);

/* Read the operator's note from path into s->note (at most
 * RM_PIPELINE_NOTE_MAX bytes).  Returns -1 with err set (kind RM_ERR_USAGE:
 * the option names a file that cannot be read). */
int rm_setup_read_note(struct rm_setup *s, const char *path, struct rm_error *err);

/* The templates directory of cfg (borrowed string). */
const char *rm_setup_templates_dir(const struct rm_config *cfg);

/* A pipeline over s (p borrows s's members: close s after p is done). */
void rm_setup_pipeline(struct rm_setup *s, struct rm_pipeline *p, const char *to, time_t now,
		       int verbose);

/* Free what rm_setup_open and rm_setup_read_note took; closes the store. */
void rm_setup_close(struct rm_setup *s);

#endif
