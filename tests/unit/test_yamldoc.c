/*
 * test_yamldoc.c - rm_yaml_load's one event pass against the double pass it
 * replaced (the limits checked on a first event pass, then libyaml's own
 * yaml_parser_load), kept here only as the reference: on every input both
 * must give the same document, node by node (type, tag, value bytes,
 * style, start and end marks, items, pairs, directives), or the same error
 * message.  The inputs are every YAML file of the repository (config/,
 * tests/), the fuzz corpora of the YAML targets, prefixes of each (cut
 * anywhere, so most end in a syntax error) and hand-made cases for anchors,
 * aliases, tags, directives, several documents and the limits.
 */
#include "unit.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fileutil.h"
#include "strbuf.h"
#include "yamldoc.h"

#ifndef RM_DATADIR
#define RM_DATADIR "config"
#endif

/* The old rm_yaml_load, verbatim but for its name. */
static int old_check_limits(const char *file, const char *buf, size_t len, struct rm_error *err)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	size_t depth = 0, nodes = 0;
	int rc = 0;

	if (len > RM_YAML_MAX_BYTES)
		return rm_error_set(err, RM_ERR_INPUT, "'%s': %zu bytes of YAML; at most %u are read",
				    file, len, RM_YAML_MAX_BYTES);
	if (!yaml_parser_initialize(&parser))
		return rm_error_set(err, RM_ERR_INTERNAL, "'%s': cannot initialise YAML parser", file);
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	for (;;) {
		yaml_event_type_t type;

		if (!yaml_parser_parse(&parser, &ev))
			break;
		type = ev.type;
		if (type == YAML_SEQUENCE_START_EVENT || type == YAML_MAPPING_START_EVENT) {
			if (++depth > RM_YAML_MAX_DEPTH)
				rc = rm_error_set(err, RM_ERR_INPUT,
						  "'%s' line %zu column %zu: nested deeper than %d levels",
						  file, ev.start_mark.line + 1, ev.start_mark.column + 1,
						  RM_YAML_MAX_DEPTH);
		} else if (type == YAML_SEQUENCE_END_EVENT || type == YAML_MAPPING_END_EVENT) {
			depth--;
		}
		if ((type == YAML_SCALAR_EVENT || type == YAML_ALIAS_EVENT ||
		     type == YAML_SEQUENCE_START_EVENT || type == YAML_MAPPING_START_EVENT) &&
		    ++nodes > RM_YAML_MAX_NODES && !rc)
			rc = rm_error_set(err, RM_ERR_INPUT, "'%s' line %zu: more than %d nodes", file,
					  ev.start_mark.line + 1, RM_YAML_MAX_NODES);
		yaml_event_delete(&ev);
		if (rc || type == YAML_STREAM_END_EVENT)
			break;
	}
	yaml_parser_delete(&parser);
	return rc;
}

static int old_load(yaml_document_t *doc, const char *file, const char *buf, size_t len,
		    struct rm_error *err)
{
	yaml_parser_t parser;

	memset(doc, 0, sizeof(*doc));
	if (old_check_limits(file, buf, len, err))
		return -1;
	if (!yaml_parser_initialize(&parser))
		return rm_error_set(err, RM_ERR_INTERNAL, "'%s': cannot initialise YAML parser", file);
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	if (!yaml_parser_load(&parser, doc)) {
		rm_error_set(err, RM_ERR_INPUT, "'%s' line %zu column %zu: invalid YAML: %s%s%s",
			     file, parser.problem_mark.line + 1, parser.problem_mark.column + 1,
			     parser.problem ? parser.problem : "parse error",
			     parser.context ? " " : "", parser.context ? parser.context : "");
		yaml_parser_delete(&parser);
		return -1;
	}
	yaml_parser_delete(&parser);
	return 0;
}

static int same_mark(yaml_mark_t a, yaml_mark_t b)
{
	return a.index == b.index && a.line == b.line && a.column == b.column;
}

static int same_str(const yaml_char_t *a, const yaml_char_t *b)
{
	return (!a && !b) || (a && b && !strcmp((const char *)a, (const char *)b));
}

/* Node-by-node comparison; the first difference goes to why. */
static int same_doc(const yaml_document_t *a, const yaml_document_t *b, char *why, size_t whylen)
{
	long n = a->nodes.top - a->nodes.start, i;

	if (n != b->nodes.top - b->nodes.start)
		return snprintf(why, whylen, "%ld nodes, not %ld", (long)(b->nodes.top - b->nodes.start), n), 0;
	if (!same_mark(a->start_mark, b->start_mark) || !same_mark(a->end_mark, b->end_mark) ||
	    a->start_implicit != b->start_implicit || a->end_implicit != b->end_implicit)
		return snprintf(why, whylen, "document marks or implicit flags"), 0;
	if (!a->version_directive != !b->version_directive ||
	    (a->version_directive && (a->version_directive->major != b->version_directive->major ||
				      a->version_directive->minor != b->version_directive->minor)))
		return snprintf(why, whylen, "version directive"), 0;
	if (a->tag_directives.end - a->tag_directives.start != b->tag_directives.end - b->tag_directives.start)
		return snprintf(why, whylen, "tag directives"), 0;
	for (i = 0; i < a->tag_directives.end - a->tag_directives.start; i++)
		if (!same_str(a->tag_directives.start[i].handle, b->tag_directives.start[i].handle) ||
		    !same_str(a->tag_directives.start[i].prefix, b->tag_directives.start[i].prefix))
			return snprintf(why, whylen, "tag directive %ld", i), 0;
	for (i = 0; i < n; i++) {
		const yaml_node_t *x = &a->nodes.start[i], *y = &b->nodes.start[i];

		if (x->type != y->type || !same_str(x->tag, y->tag) || !same_mark(x->start_mark, y->start_mark) ||
		    !same_mark(x->end_mark, y->end_mark))
			return snprintf(why, whylen, "node %ld: type, tag or marks", i + 1), 0;
		if (x->type == YAML_SCALAR_NODE &&
		    (x->data.scalar.length != y->data.scalar.length || x->data.scalar.style != y->data.scalar.style ||
		     memcmp(x->data.scalar.value, y->data.scalar.value, x->data.scalar.length + 1)))
			return snprintf(why, whylen, "node %ld: scalar", i + 1), 0;
		if (x->type == YAML_SEQUENCE_NODE) {
			long k = x->data.sequence.items.top - x->data.sequence.items.start;

			if (x->data.sequence.style != y->data.sequence.style ||
			    k != y->data.sequence.items.top - y->data.sequence.items.start ||
			    (k && memcmp(x->data.sequence.items.start, y->data.sequence.items.start,
					 (size_t)k * sizeof(yaml_node_item_t))))
				return snprintf(why, whylen, "node %ld: sequence", i + 1), 0;
		}
		if (x->type == YAML_MAPPING_NODE) {
			long k = x->data.mapping.pairs.top - x->data.mapping.pairs.start;

			if (x->data.mapping.style != y->data.mapping.style ||
			    k != y->data.mapping.pairs.top - y->data.mapping.pairs.start ||
			    (k && memcmp(x->data.mapping.pairs.start, y->data.mapping.pairs.start,
					 (size_t)k * sizeof(yaml_node_pair_t))))
				return snprintf(why, whylen, "node %ld: mapping", i + 1), 0;
		}
	}
	return 1;
}

static int ncompared, nerrors;

/* Both ways on one input; fails the test on any difference. */
static void both_ways(const char *name, const char *buf, size_t len)
{
	yaml_document_t old;
	struct rm_yaml y;
	struct rm_error e1, e2;
	int r1, r2;
	char why[200];

	rm_error_clear(&e1);
	rm_error_clear(&e2);
	r1 = old_load(&old, name, buf, len, &e1);
	r2 = rm_yaml_load(&y, name, buf, len, &e2);
	if (r1 != r2 || (r1 && (strcmp(e1.msg, e2.msg) || e1.kind != e2.kind))) {
		fprintf(stderr, "%s (%zu bytes): old %d '%s', one pass %d '%s'\n", name, len, r1, e1.msg, r2,
			e2.msg);
		fail();
	}
	ncompared++;
	if (r1) {
		nerrors++;
		return;
	}
	if (!same_doc(&old, &y.doc, why, sizeof(why))) {
		fprintf(stderr, "%s (%zu bytes): documents differ: %s\n", name, len, why);
		fail();
	}
	yaml_document_delete(&old);
	rm_yaml_free(&y);
}

/* The whole input, then prefixes cut at 8 places. */
static void both_ways_cut(const char *name, const char *buf, size_t len)
{
	size_t k;

	both_ways(name, buf, len);
	for (k = 1; k < 8; k++)
		both_ways(name, buf, len * k / 8);
}

static int is_yaml_name(const char *n)
{
	size_t l = strlen(n);

	return l > 5 && (!strcmp(n + l - 5, ".yaml") || !strcmp(n + l - 4, ".yml"));
}

/* Every *.yaml under dir (every file when all), recursively. */
static void walk(const char *dir, int all)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	assert_non_null(d);
	while ((de = readdir(d))) {
		char *p;
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		p = rm_path_join(dir, de->d_name);
		if (!stat(p, &st) && S_ISDIR(st.st_mode)) {
			walk(p, all);
		} else if (S_ISREG(st.st_mode) && (all || is_yaml_name(de->d_name)) && st.st_size < (1 << 20)) {
			char *buf;
			size_t len;
			struct rm_error err;

			assert_int_equal(rm_read_file(p, 1 << 20, &buf, &len, &err), 0);
			both_ways_cut(p, buf, len);
			free(buf);
		}
		free(p);
	}
	closedir(d);
}

static char *repo_path(const char *rel)
{
	char *top = rm_path_join(RM_DATADIR, "..");
	char *p = rm_path_join(top, rel);

	free(top);
	return p;
}

static void test_repository_files(void **state)
{
	static const char *const dirs[] = { "config", "tests" };
	static const char *const corpora[] = { "tests/fuzz/corpus/fuzz_job_yaml", "tests/fuzz/corpus/fuzz_config" };
	size_t i;

	(void)state;
	ncompared = nerrors = 0;
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		char *p = repo_path(dirs[i]);

		walk(p, 0);
		free(p);
	}
	for (i = 0; i < sizeof(corpora) / sizeof(corpora[0]); i++) {
		char *p = repo_path(corpora[i]);

		walk(p, 1);
		free(p);
	}
	/* config/ and tests/ hold well over a hundred YAML files */
	assert_true(ncompared > 800);
	assert_true(nerrors > 100 && nerrors < ncompared - 100);
}

static void test_made_cases(void **state)
{
	static const char *const cases[] = {
		"",
		"# only a comment\n",
		"---\n",
		"--- ~\n",
		"a: 1\n",
		"a: &x [1, 2]\nb: *x\nc: *x\n",
		"&r [*r]\n",
		"a: &x 1\nb: &x 2\n",            /* duplicate anchor */
		"a: *nope\n",                     /* undefined alias */
		"a: *nope\nb: [\n",               /* undefined alias, then a syntax error */
		"? &k key\n: *k\n*k : v\n",
		"!!str a: !foo b\nc: ! d\n! e: !<tag:x> f\n",
		"%YAML 1.1\n%TAG !e! tag:example.org,2002:\n--- !e!x\na: !e!y [1]\n",
		"%YAML 1.1\n---\na\n...\n%YAML 1.1\n---\nb\n",
		"a: 1\n---\nb: [\n",              /* a syntax error in the second document */
		"a: 1\n---\n" "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]",
		"a: 'x\\q'\nb: \"\\x41\\u00e9\\0\"\nc: |\n  lit\n  eral\nd: >-\n  fold\n  ed\n",
		"{a: 1, a: 2, b: {c: [d, {e: f}]}}\n",
		"- a\n- b\n-\n- - c\n  - d\n",
		"a: [1, 2\n",
		"a: b: c\n",
		"\t- tab\n",
		"a: &x 1\nb: *x\nc: &y [*x, &z {k: *y}]\n",
		"&a a: &b b\n*a : *b\n",
		"- &x\n- *x\n",
		"[a, b]: c\n",
		"\xef\xbb\xbf" "a: 1\n",
		"\xff\xfe" "a\0:\0 \0" "1\0\n\0",
		"a: \x01\n",
	};
	struct rm_sb deep;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char name[32];
		/* the UTF-16 case holds NUL bytes */
		size_t len = i == sizeof(cases) / sizeof(cases[0]) - 2 ? 12 : strlen(cases[i]);

		snprintf(name, sizeof(name), "case %zu", i);
		both_ways_cut(name, cases[i], len);
	}
	/* deeper than the limit: the error names the 65th level */
	rm_sb_init(&deep);
	for (i = 0; i < RM_YAML_MAX_DEPTH + 10; i++)
		rm_sb_adds(&deep, "- ");
	rm_sb_adds(&deep, "x\n");
	both_ways("deep", deep.buf, deep.len);
	rm_sb_reset(&deep);
	/* exactly at the limit */
	for (i = 0; i < RM_YAML_MAX_DEPTH; i++)
		rm_sb_addc(&deep, '[');
	for (i = 0; i < RM_YAML_MAX_DEPTH; i++)
		rm_sb_addc(&deep, ']');
	both_ways("at the depth limit", deep.buf, deep.len);
	rm_sb_release(&deep);
	{
		struct rm_yaml y;
		struct rm_error err;

		assert_int_equal(rm_yaml_load(&y, "f.yaml", "a: &x 1\nb: &x 2\n", 16, &err), -1);
		assert_string_equal(err.msg, "'f.yaml' line 2 column 4: invalid YAML: second occurrence "
					     "found duplicate anchor; first occurrence");
		assert_int_equal(rm_yaml_load(&y, "f.yaml", "a:\n  - *nope\n", 13, &err), -1);
		assert_string_equal(err.msg, "'f.yaml' line 2 column 5: invalid YAML: found undefined alias");
	}
}

/* More than RM_YAML_MAX_NODES nodes: the error the double pass gave (the
 * one pass alone here: both ways took 2 s, 7 s under ASan).  Aliases count
 * as nodes but build none, which keeps the test fast. */
static void test_node_limit(void **state)
{
	struct rm_sb sb;
	struct rm_yaml y;
	struct rm_error err;
	size_t i;

	(void)state;
	rm_sb_init(&sb);
	rm_sb_adds(&sb, "a:\n- [&x 1,");
	for (i = 0; i < RM_YAML_MAX_NODES; i++)
		rm_sb_adds(&sb, "*x,");
	rm_sb_adds(&sb, "]\n");
	assert_int_equal(rm_yaml_load(&y, "many.yaml", sb.buf, sb.len, &err), -1);
	assert_int_equal(err.kind, RM_ERR_INPUT);
	assert_string_equal(err.msg, "'many.yaml' line 2: more than 1000000 nodes");
	rm_sb_release(&sb);
}

const struct CMUnitTest unit_yamldoc_tests[] = {
	cmocka_unit_test(test_repository_files),
	cmocka_unit_test(test_made_cases),
	cmocka_unit_test(test_node_limit),
};
const size_t unit_yamldoc_ntests = sizeof(unit_yamldoc_tests) / sizeof(unit_yamldoc_tests[0]);
