/* setup.c - see setup.h. */
#include "setup.h"

#include <stdlib.h>
#include <string.h>

#include "fileutil.h"
#include "strbuf.h"

#ifndef RM_DATADIR
#define RM_DATADIR "/usr/share/robotmail"
#endif
#ifndef RM_TEMPLATEDIR
#define RM_TEMPLATEDIR "/usr/share/robotmail/templates"
#endif

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

	if (!rc) {
		/* the era table beside the installed rules (config/eras.yaml) */
		char *e = data_file("eras.yaml");

		rc = rm_rules_load_eras(rules, e, err);
		free(e);
		if (rc)
			rm_rules_free(rules);
	}
	free(m);
	free(p);
	return rc;
}

static const char *config_path(const char *opt)
{
	const char *env = getenv("ROBOTMAIL_CONFIG");

	if (opt)
		return opt;
	return env && *env ? env : NULL;
}

void rm_setup_wire_cache(struct rm_setup *s)
{
	rm_store_commit_cache(s->ob, s->cfg.miss_ttl, &s->cache);
}

int rm_setup_open(struct rm_setup *s, const char *config, const char *metrics,
		  const char *programs, bool need_rules, bool use_cache, struct rm_error *err)
{
	memset(s, 0, sizeof(*s));
	if (rm_config_load(&s->cfg, config_path(config), err))
		return -1;
	s->have_cfg = true;
	if (need_rules) {
		if (load_rules(&s->rules, metrics ? metrics : s->cfg.metrics,
			       programs ? programs : s->cfg.programs, err))
			return -1;
		s->have_rules = true;
	}
	if (use_cache && s->cfg.file) {
		if (rm_store_open(&s->ob, s->cfg.state_db, RM_STORE_READWRITE, err))
			return -1;
		rm_setup_wire_cache(s);
	}
	return 0;
}

int rm_setup_read_note(struct rm_setup *s, const char *path, struct rm_error *err)
{
	size_t len;

	if (rm_read_file(path, RM_PIPELINE_NOTE_MAX, &s->note, &len, err)) {
		err->kind = RM_ERR_USAGE;
		return -1;
	}
	return 0;
}

const char *rm_setup_templates_dir(const struct rm_config *cfg)
{
	const char *env_t = getenv("ROBOTMAIL_TEMPLATES");

	return cfg->templates ? cfg->templates : env_t && *env_t ? env_t : RM_TEMPLATEDIR;
}

void rm_setup_pipeline(struct rm_setup *s, struct rm_pipeline *p, const char *to, time_t now,
		       int verbose)
{
	memset(p, 0, sizeof(*p));
	p->cfg = &s->cfg;
	p->rules = &s->rules;
	p->ob = s->ob;
	p->cache = &s->cache; /* without a store: no get or put, but the wait rule (miss_cap) */
	p->templates_dir = rm_setup_templates_dir(&s->cfg);
	p->to = to;
	p->note = s->note;
	p->now = now;
	p->verbose = verbose;
}

void rm_setup_close(struct rm_setup *s)
{
	free(s->note);
	s->note = NULL;
	if (s->have_rules)
		rm_rules_free(&s->rules);
	if (s->have_cfg)
		rm_config_free(&s->cfg);
	rm_store_close(s->ob);
}
