/* job.c - see job.h. */
#include "job.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "text.h"
#include "yamldoc.h"

/* Bounds against hostile documents (alias loops, deep nesting). */
#define JOB_MAX_DEPTH 16
#define JOB_MAX_NODES 100000

struct kvlist {
	struct rm_kv *v;
	size_t n, alloc;
};

/* Set key (first position, last value). Takes ownership of value. */
static void kv_set(struct kvlist *l, const char *key, char *value)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		if (!strcmp(l->v[i].key, key)) {
			free(l->v[i].value);
			l->v[i].value = value;
			return;
		}
	}
	l->v = rm_xgrow(l->v, &l->alloc, l->n + 1, sizeof(*l->v));
	l->v[l->n].key = rm_xstrdup(key);
	l->v[l->n].value = value;
	l->v[l->n].is_false = 0;
	l->n++;
}

static const char *kv_get(const struct rm_kv *v, size_t n, const char *key)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(v[i].key, key))
			return v[i].value;
	return NULL;
}

const char *rm_job_field(const struct rm_job *job, const char *key)
{
	return kv_get(job->fields, job->nfields, key);
}

time_t rm_job_epoch(const struct rm_job *job, const char *key)
{
	const char *s = rm_job_field(job, key);
	char *end;
	long long v;

	if (!s || !*s)
		return 0;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (*end || errno || v <= 0 || v >= 253402300800LL - 86400)
		return 0;
	return (time_t)v;
}

const char *rm_job_axis(const struct rm_job *job, const char *key)
{
	return kv_get(job->axes, job->naxes, key);
}

char *rm_job_rootfs_filename(const char *rootfs)
{
	const char *last = rootfs, *p;

	for (p = rootfs; *p; p++) {
		char c = *p;

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '_' || c == '-'))
			last = p + 1;
	}
	return rm_xstrdup(last);
}

/* Ruby's to_s of a YAML value: scalars typed per YAML 1.1, sequences as
 * ["a", "b"], nil as NULL.  Sequences are cut short ("...") past
 * JOB_MAX_VALUE bytes, so aliases nested into a bomb cannot blow up. */
#define JOB_MAX_VALUE 4096

static char *value_string(struct rm_yaml *y, yaml_node_t *n, int depth)
{
	if (!n || rm_yaml_is_null(n))
		return NULL;
	if (n->type == YAML_SCALAR_NODE)
		return rm_yaml_ruby_string(n);
	if (n->type == YAML_SEQUENCE_NODE && depth < JOB_MAX_DEPTH) {
		struct rm_sb sb = RM_SB_INIT;
		yaml_node_item_t *it;

		rm_sb_init(&sb);
		rm_sb_addc(&sb, '[');
		for (it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
			yaml_node_t *e = rm_yaml_node(y, *it);
			char *s;

			if (sb.len > JOB_MAX_VALUE) {
				rm_sb_adds(&sb, ", ...");
				break;
			}
			s = value_string(y, e, depth + 1);

			if (it != n->data.sequence.items.start)
				rm_sb_adds(&sb, ", ");
			if (!s)
				rm_sb_adds(&sb, "nil");
			else if (e->type == YAML_SCALAR_NODE)
				rm_sb_addf(&sb, "\"%s\"", s);
			else
				rm_sb_adds(&sb, s);
			free(s);
		}
		rm_sb_addc(&sb, ']');
		return rm_sb_detach(&sb, NULL);
	}
	return rm_xstrdup("{...}");
}

/* A job key or value robotmail copies into tables, reports and headers
 * must be one line of text: a control character (CR, LF, TAB, ESC, BEL,
 * C1, U+2028 ...) would break the table header, the parameters block or a
 * header line.  Sets err naming the file, line and (escaped) key. */
static int check_text(const char *file, int line, const char *key, const char *value,
		      struct rm_error *err)
{
	unsigned cp = 0;
	bool in_key = rm_text_bad_char(key, RM_TEXT_LINE, &cp) != NULL;
	char *shown;

	if (!in_key && !rm_text_bad_char(value, RM_TEXT_LINE, &cp))
		return 0;
	shown = rm_text_escaped(key, 100);
	rm_error_set(err, RM_ERR_INPUT,
		     "'%s' line %d: control character U+%04X in %s '%s'; expected one line of text without control characters",
		     file, line, cp, in_key ? "the key" : "the value of", shown);
	free(shown);
	return -1;
}

/* ------------------------------------------------------------ parameters */

struct walk {
	struct rm_yaml *y;
	const struct rm_rules *rules;
	struct kvlist options;   /* option name -> type ("-" or "=") */
	struct kvlist params;
	size_t visited;
	struct rm_error *err;
};

static void add_program_options(struct walk *w, const struct rm_program *p)
{
	size_t i;

	for (i = 0; i < p->noptions; i++)
		kv_set(&w->options, p->options[i].name,
		       rm_xstrndup(&p->options[i].type, 1));
}

static int is_workload_program(const struct rm_program *p)
{
	return p && (p->kinds & (RM_PROG_RUN | RM_PROG_SETUP | RM_PROG_DAEMON));
}

static int is_monitor(const struct rm_rules *r, const char *key)
{
	const struct rm_program *p = rm_rules_program(r, key);

	return p && (p->kinds & RM_PROG_MONITOR);
}

/* init_program_options: every workload program named anywhere in the job
 * contributes its declared options. */
static int find_programs(struct walk *w, yaml_node_t *map, int depth)
{
	yaml_node_pair_t *p;

	if (depth > JOB_MAX_DEPTH)
		return rm_error_set(w->err, RM_ERR_INPUT, "'%s' line %d: nested deeper than %d levels",
				    w->y->file, rm_yaml_line(map), JOB_MAX_DEPTH);
	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = rm_yaml_node(w->y, p->key);
		yaml_node_t *v = rm_yaml_node(w->y, p->value);
		const char *key = rm_yaml_scalar(k);

		if (++w->visited > JOB_MAX_NODES)
			return rm_error_set(w->err, RM_ERR_INPUT, "'%s': more than %d nodes",
					    w->y->file, JOB_MAX_NODES);
		if (key) {
			const struct rm_program *prog = rm_rules_program(w->rules, key);

			if (is_workload_program(prog))
				add_program_options(w, prog);
		}
		if (v && v->type == YAML_MAPPING_NODE && find_programs(w, v, depth + 1))
			return -1;
	}
	return 0;
}

static int is_param_key(struct walk *w, const char *key)
{
	if (kv_get(w->options.v, w->options.n, key))
		return 1;
	return is_workload_program(rm_rules_program(w->rules, key));
}

/* each_param: depth-first over the job; yields keys in the option/program
 * set whose value is not a mapping and whose parent is not a monitor. */
static int walk_params(struct walk *w, yaml_node_t *map, const char *parent, int depth)
{
	yaml_node_pair_t *p;

	if (depth > JOB_MAX_DEPTH)
		return 0; /* find_programs already reported it */
	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = rm_yaml_node(w->y, p->key);
		yaml_node_t *v = rm_yaml_node(w->y, p->value);
		const char *key = rm_yaml_scalar(k);

		if (!key)
			continue;
		if (rm_yaml_has_nul(k) || rm_yaml_has_nul(v))
			return rm_error_set(w->err, RM_ERR_INPUT, "'%s' line %d: NUL byte in '%s'",
					    w->y->file, rm_yaml_line(k), key);
		if (is_param_key(w, key) && !(v && v->type == YAML_MAPPING_NODE) &&
		    !(parent && is_monitor(w->rules, parent))) {
			char *s = value_string(w->y, v, 0);
			size_t i;

			if (check_text(w->y->file, rm_yaml_line(k), key, s, w->err)) {
				free(s);
				return -1;
			}
			kv_set(&w->params, key, s);
			for (i = 0; i < w->params.n; i++)
				if (!strcmp(w->params.v[i].key, key))
					w->params.v[i].is_false =
						s && !strcmp(s, "false") &&
						v->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
		}
		if (v && v->type == YAML_MAPPING_NODE && walk_params(w, v, key, depth + 1))
			return -1;
	}
	return 0;
}

static void free_kvs(struct rm_kv *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].key);
		free(v[i].value);
	}
	free(v);
}

void rm_job_free(struct rm_job *job)
{
	free(job->file);
	free_kvs(job->fields, job->nfields);
	free_kvs(job->params, job->nparams);
	free_kvs(job->axes, job->naxes);
	memset(job, 0, sizeof(*job));
}

int rm_job_parse(struct rm_job *job, const struct rm_rules *rules, const char *file,
		 const char *buf, size_t len, struct rm_error *err)
{
	static const char *const maxis[] = { "tbox_group", "testcase", "rootfs", "kconfig",
					     "compiler", "commit" };
	struct rm_yaml y;
	yaml_node_t *root;
	yaml_node_pair_t *p;
	struct kvlist fields = { 0 }, axes = { 0 };
	struct walk w;
	size_t i;

	memset(job, 0, sizeof(*job));
	if (rm_yaml_load(&y, file, buf, len, err))
		return -1;
	root = rm_yaml_root(&y);
	if (!root || root->type != YAML_MAPPING_NODE) {
		rm_error_set(err, RM_ERR_INPUT, "'%s' line %d: expected a mapping of job keys", file,
			     rm_yaml_line(root));
		rm_yaml_free(&y);
		return -1;
	}
	for (p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
		yaml_node_t *k = rm_yaml_node(&y, p->key);
		yaml_node_t *v = rm_yaml_node(&y, p->value);
		const char *key = rm_yaml_scalar(k);

		if (!key || !v || v->type != YAML_SCALAR_NODE)
			continue;
		if (rm_yaml_has_nul(k) || rm_yaml_has_nul(v)) {
			rm_error_set(err, RM_ERR_INPUT, "'%s' line %d: NUL byte in '%s'", file,
				     rm_yaml_line(k), key);
			goto fail_fields;
		}
		{
			char *s = value_string(&y, v, 0);

			if (check_text(file, rm_yaml_line(k), key, s, err)) {
				free(s);
				goto fail_fields;
			}
			kv_set(&fields, key, s);
		}
	}

	memset(&w, 0, sizeof(w));
	w.y = &y;
	w.rules = rules;
	w.err = err;
	kv_set(&w.options, "cluster", rm_xstrdup("-"));
	for (i = 0; i < rules->nwrapper_options; i++)
		kv_set(&w.options, rules->wrapper_options[i].name,
		       rm_xstrndup(&rules->wrapper_options[i].type, 1));
	if (find_programs(&w, root, 0) || walk_params(&w, root, NULL, 0)) {
		free_kvs(w.options.v, w.options.n);
		free_kvs(w.params.v, w.params.n);
		goto fail_fields;
	}

	/* Job#axes */
	for (i = 0; i < sizeof(maxis) / sizeof(maxis[0]); i++) {
		const char *v = kv_get(fields.v, fields.n, maxis[i]);

		if (!strcmp(maxis[i], "rootfs"))
			kv_set(&axes, "rootfs", rm_job_rootfs_filename(v ? v : "debian-x86_64.cgz"));
		else if (!strcmp(maxis[i], "compiler"))
			kv_set(&axes, "compiler", rm_xstrdup(v ? v : "gcc-7"));
		else if (v)
			kv_set(&axes, maxis[i], rm_xstrdup(v));
	}
	for (i = 0; i < w.params.n; i++) {
		const char *type = kv_get(w.options.v, w.options.n, w.params.v[i].key);

		if ((w.params.v[i].value && !w.params.v[i].is_false) || (type && *type == '='))
			kv_set(&axes, w.params.v[i].key,
			       rm_xstrdup(w.params.v[i].value ? w.params.v[i].value : ""));
	}
	free_kvs(w.options.v, w.options.n);

	job->file = rm_xstrdup(file);
	job->fields = fields.v;
	job->nfields = fields.n;
	job->params = w.params.v;
	job->nparams = w.params.n;
	job->axes = axes.v;
	job->naxes = axes.n;
	rm_yaml_free(&y);
	return 0;

fail_fields:
	free_kvs(fields.v, fields.n);
	free_kvs(axes.v, axes.n);
	rm_yaml_free(&y);
	return -1;
}
