/* checkconfig.c - see checkconfig.h. */
#include "checkconfig.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "deliver.h"
#include "gitweb.h"
#include "inbox.h"
#include "report.h"
#include "smtp.h"
#include "store.h"
#include "strbuf.h"
#include "template.h"

struct checks {
	FILE *out;
	int bad;
};

static void check_line(struct checks *c, bool ok, const char *what, const char *detail)
{
	fprintf(c->out, "%s %s%s%s\n", ok ? "ok  " : "FAIL", what, detail && *detail ? ": " : "",
		detail ? detail : "");
	if (!ok)
		c->bad++;
}

void rm_checkconfig_load_failed(FILE *out, const char *why)
{
	struct checks c = { out, 0 };

	check_line(&c, false, "configuration and rule files", why);
}

/* Every template parses and knows every name it uses: rendered against
 * the variables report.c provides, once with each filled and once with
 * each empty (both sides of a section). */
static void check_templates(struct checks *c, const char *tdir)
{
	static const char *const names[] = { "perf.txt", "functional.txt" };
	struct rm_tdata *full = rm_report_sample_vars(true), *empty = rm_report_sample_vars(false);
	size_t k;

	for (k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		struct rm_sb out = RM_SB_INIT;
		struct rm_error te;
		char what[64];
		int trc;

		rm_error_clear(&te);
		rm_sb_init(&out);
		snprintf(what, sizeof(what), "template %s", names[k]);
		trc = rm_template_render(tdir, names[k], full, &out, &te);
		if (!trc)
			trc = rm_template_render(tdir, names[k], empty, &out, &te);
		check_line(c, !trc, what, trc ? te.msg : tdir);
		rm_sb_release(&out);
	}
	rm_tdata_free(full);
	rm_tdata_free(empty);
}

static void check_secrets(struct checks *c, const struct rm_config *cfg)
{
	if (cfg->password_file) {
		struct stat st;

		if (stat(cfg->password_file, &st))
			check_line(c, false, "password file", strerror(errno));
		else
			check_line(c, !(st.st_mode & 077), "password file",
				   (st.st_mode & 077) ? "readable by others: chmod 600 it" : cfg->password_file);
	}
	if (cfg->password_env)
		check_line(c, getenv(cfg->password_env) != NULL, "password variable", cfg->password_env);
}

static void check_trees(struct checks *c, const struct rm_config *cfg, bool online)
{
	size_t k;

	for (k = 0; k < cfg->ntrees; k++) {
		const struct rm_tree_cfg *t = &cfg->trees[k];
		char what[200];

		snprintf(what, sizeof(what), "tree %s:%s (%s)", t->name, t->branch, rm_config_provider_name(t->provider));
		if (t->token_file) {
			struct stat st;

			check_line(c, !stat(t->token_file, &st) && !(st.st_mode & 077), what,
				   "token file must exist and be readable by robotmail only");
		}
		if (online && t->provider != RM_PROVIDER_NONE && t->provider != RM_PROVIDER_LOCAL_GIT) {
			struct rm_gitweb_opts o;
			char why[256];

			rm_gitweb_opts_from_config(&o, cfg);
			check_line(c, !rm_gitweb_ping(t->api, &o, why, sizeof(why)), what, why);
		} else if (t->provider == RM_PROVIDER_LOCAL_GIT) {
			struct stat st;

			check_line(c, !stat(t->api, &st) && S_ISDIR(st.st_mode), what, t->api);
		} else {
			check_line(c, true, what, t->url);
		}
	}
}

static void check_transport(struct checks *c, const struct rm_config *cfg, bool online)
{
	if (online && (!strncmp(cfg->transport, "smtp://", 7) || !strncmp(cfg->transport, "smtps://", 8))) {
		struct rm_smtp_cfg sc;
		char why[256];

		memset(&sc, 0, sizeof(sc));
		sc.url = cfg->transport;
		sc.starttls = cfg->starttls;
		sc.verify = cfg->tls_verify;
		sc.ca_file = cfg->ca_file;
		sc.connect_timeout = cfg->smtp_connect_timeout;
		sc.timeout = cfg->smtp_timeout;
		check_line(c, !rm_smtp_ping(&sc, why, sizeof(why)), "SMTP server", why);
	} else {
		struct rm_error te;

		rm_error_clear(&te);
		check_line(c, !rm_deliver_check(cfg, &te), "transport", te.kind ? te.msg : cfg->transport);
	}
}

/* The state store (a shared one is only named: `robotmail store check`
 * connects to it) or the state directory, then the inbox. */
static void check_state(struct checks *c, const struct rm_config *cfg)
{
	struct rm_error pe;

	if (rm_store_location_shared(cfg->state_db)) {
		char *shown = rm_store_redact(cfg->state_db);

		check_line(c, true, "state store", shown);
		free(shown);
	} else {
		struct stat st;
		char *dir = rm_xstrdup(cfg->state_db), *slash = strrchr(dir, '/');

		/* the state directory: must exist or be creatable (nothing is created here) */
		rm_error_clear(&pe);
		if (slash) {
			*slash = '\0';
			while (*dir && stat(dir, &st) && errno == ENOENT && (slash = strrchr(dir, '/')))
				*slash = '\0';
		}
		if (slash && *dir && (stat(dir, &st) || !S_ISDIR(st.st_mode) || access(dir, W_OK)))
			rm_error_set(&pe, RM_ERR_CONFIG, "paths.state_db (%s): '%s' is not a writable directory",
				     rm_config_where(cfg, "paths.state_db"), dir);
		check_line(c, !pe.kind, "state directory", pe.kind ? pe.msg : cfg->state_db);
		free(dir);
	}
	rm_error_clear(&pe);
	check_line(c, !rm_inbox_check_dir(cfg, &pe), "inbox", pe.kind ? pe.msg : cfg->inbox);
}

/* listen's sources, and the opt-outs received by mail so far */
static void check_listen(struct checks *c, const struct rm_config *cfg)
{
	struct rm_store *ls = NULL;
	struct rm_error se;
	long n = 0;
	int v = 0;
	size_t k;

	for (k = 0; k < cfg->nlisten; k++)
		check_line(c, !strncmp(cfg->listen[k].source, "maildir:", 8) ||
				      !strncmp(cfg->listen[k].source, "imaps://", 8) ||
				      !strncmp(cfg->listen[k].source, "public-inbox:", 13),
			   "listen source", cfg->listen[k].source);
	rm_error_clear(&se);
	if (rm_store_open(&ls, cfg->state_db, RM_STORE_READONLY, &se) ||
	    rm_store_schema_version(ls, &v, &se) || (v >= 4 && rm_store_optout_count(ls, &n, &se))) {
		check_line(c, false, "opt-outs by mail", se.msg);
	} else {
		char detail[128];

		snprintf(detail, sizeof(detail), "%ld address(es) opted out", n);
		check_line(c, true, "opt-outs by mail", detail);
	}
	rm_store_close(ls);
}

int rm_checkconfig_run(const struct rm_config *cfg, const struct rm_rules *rules,
		       const char *templates_dir, bool online, FILE *out)
{
	struct checks c = { out, 0 };
	struct rm_error ce;

	check_line(&c, true, "configuration", cfg->file ? cfg->file : "(built-in defaults)");
	rm_error_clear(&ce);
	check_line(&c, !rm_config_check_identity(cfg, &ce), "robot identity",
		   ce.kind ? ce.msg : cfg->robot_address);
	check_line(&c, true, "metric rules", rules->metrics_file);
	check_line(&c, true, "program facts", rules->programs_file);
	check_templates(&c, templates_dir);
	check_secrets(&c, cfg);
	check_trees(&c, cfg, online);
	check_transport(&c, cfg, online);
	check_state(&c, cfg);
	if (cfg->nlisten)
		check_listen(&c, cfg);
	fprintf(out, "%s\n", c.bad ? "check-config: problems found" : "check-config: all good");
	return c.bad;
}
