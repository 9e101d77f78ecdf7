/* test_recipients.c - who gets a report (recipients.h): the commit author,
 * the robot's lists and the tree's, the PCRE2 rules, MAINTAINERS, the
 * commit's trailers, the opt-out file applied last to every source, and the
 * cap.  Each test loads a real configuration file (rm_config_load) written
 * into a private temporary directory with its MAINTAINERS and opt-out files. */
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "fileutil.h"
#include "recipients.h"
#include "strbuf.h"

struct fixture {
	char dir[256];
	struct rm_config cfg;
	bool loaded;
};

static int setup(void **state)
{
	struct fixture *f = rm_xcalloc(1, sizeof(*f));
	const char *tmp = getenv("TMPDIR");

	snprintf(f->dir, sizeof(f->dir), "%s/robotmail-unit-rcpt.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(f->dir)) {
		free(f);
		return -1;
	}
	*state = f;
	return 0;
}

static void put(const struct fixture *f, const char *name, const char *text)
{
	char *p = rm_path_join(f->dir, name);
	struct rm_error err;

	assert_int_equal(rm_write_file(p, text, strlen(text)), 0);
	(void)err;
	free(p);
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	static const char *const files[] = { "robotmail.yaml", "MAINTAINERS", "opt-out" };
	size_t i;

	if (f->loaded)
		rm_config_free(&f->cfg);
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *p = rm_path_join(f->dir, files[i]);

		unlink(p);
		free(p);
	}
	rmdir(f->dir);
	free(f);
	return 0;
}

/* Load `yaml` (each "@DIR@" replaced by the fixture's directory) as the
 * configuration. */
static void load(struct fixture *f, const char *yaml)
{
	struct rm_sb sb = RM_SB_INIT;
	struct rm_error err;
	const char *p, *q;
	char *file;

	for (p = yaml; (q = strstr(p, "@DIR@")); p = q + 5) {
		rm_sb_add(&sb, p, (size_t)(q - p));
		rm_sb_adds(&sb, f->dir);
	}
	rm_sb_adds(&sb, p);
	put(f, "robotmail.yaml", sb.buf);
	rm_sb_release(&sb);
	file = rm_path_join(f->dir, "robotmail.yaml");
	if (rm_config_load(&f->cfg, file, &err))
		fail_msg("config: %s", err.msg);
	f->loaded = true;
	free(file);
}

/* The full configuration: every source of recipients in use. */
static const char base_yaml[] =
	"robot:\n"
	"  address: robot@example.org\n"
	"  cc: [lists@example.org]\n"
	"  cc_self: true\n"
	"trees:\n"
	"  - name: linus\n"
	"    branch: master\n"
	"    url: https://git.example.org/linux.git\n"
	"    provider: cgit\n"
	"    api: https://git.example.org/linux.git\n"
	"    mail_to: [fallback@example.org]\n"
	"    mail_cc: [tree-list@example.org]\n"
	"recipients:\n"
	"  trailers: [Signed-off-by, Reviewed-by, Acked-by, Cc]\n"
	"  rules:\n"
	"    - {on: subject, pattern: '^mm:', cc: [linux-mm@example.org]}\n"
	"    - {on: subject, pattern: '^net:', cc: [never-subject@example.org]}\n"
	"    - {on: path, pattern: '^drivers/net/', cc: [netdev@example.org]}\n"
	"    - {on: path, pattern: '^fs/', cc: [never-path@example.org]}\n"
	"    - {on: testcase, pattern: '^stress-ng$', cc: [stress@example.org]}\n"
	"    - {on: testcase, pattern: '^boot$', cc: [never-testcase@example.org]}\n"
	"  maintainers: @DIR@/MAINTAINERS\n"
	"  opt_out: @DIR@/opt-out\n";

static const char maintainers[] =
	"MEMORY MANAGEMENT\n"
	"M:\tMm Maint <mm-maint@example.org>\n"
	"L:\tmm-list@example.org\n"
	"F:\tmm/\n"
	"X:\tmm/excluded.c\n"
	"\n"
	"NETWORKING DRIVERS\n"
	"M:\tNet Maint <net-maint@example.org>\n"
	"F:\tdrivers/net/*.c\n"
	"\n"
	"DOCUMENTATION\n"
	"M:\tdoc-maint@example.org\n"
	"F:\tDocumentation/\n"
	"\n"
	"MINCORE BY NAME\n"
	"R:\tRegex Reviewer <rx@example.org>\n"
	"N:\tmincore\n";

static struct rm_trailer trailers[] = {
	{ "Signed-off-by", "Ann Author <ann@example.org>" }, /* the author again */
	{ "Reviewed-by", "Rev Iewer <rev@example.org>" },
	{ "Acked-by", "ack@example.org" },
	{ "Cc", "stable@example.org" },
	{ "Reported-by", "reporter@example.org" }, /* not a configured trailer */
	{ "Cc", "LISTS@EXAMPLE.ORG" },              /* robot.cc again, other case */
};
static char *files[] = { "mm/mincore.c", "drivers/net/x.c" };

static void head_facts(struct rm_commit_facts *h)
{
	memset(h, 0, sizeof(*h));
	h->subject = "mm: mincore: use kmalloc";
	h->author.name = "Ann Author";
	h->author.email = "ann@example.org";
	h->trailers = trailers;
	h->ntrailers = sizeof(trailers) / sizeof(trailers[0]);
	h->files = files;
	h->nfiles = sizeof(files) / sizeof(files[0]);
}

/* "to: a, b | cc: c, d" of r, addresses only */
static char *summary(const struct rm_recipients *r)
{
	struct rm_sb sb = RM_SB_INIT;
	size_t i;

	rm_sb_adds(&sb, "to:");
	for (i = 0; i < r->nto; i++)
		rm_sb_addf(&sb, " %s", r->to[i].addr);
	rm_sb_adds(&sb, " | cc:");
	for (i = 0; i < r->ncc; i++)
		rm_sb_addf(&sb, " %s", r->cc[i].addr);
	return rm_sb_detach(&sb, NULL);
}

/* whether some "addr: reason" of r->dropped is for addr and holds `why` */
static bool dropped(const struct rm_recipients *r, const char *addr, const char *why)
{
	size_t i, l = strlen(addr);

	for (i = 0; i < r->ndropped; i++)
		if (!strncmp(r->dropped[i], addr, l) && r->dropped[i][l] == ':' &&
		    strstr(r->dropped[i] + l, why))
			return true;
	return false;
}

static void build(struct fixture *f, const struct rm_commit_facts *h, const char *testcase,
		  const char *override, struct rm_recipients *r)
{
	struct rm_recipients_in in = { 0 };
	struct rm_error err;

	in.cfg = &f->cfg;
	in.tree = &f->cfg.trees[0];
	in.head = h;
	in.testcase = testcase;
	in.override = override;
	if (rm_recipients_build(r, &in, &err))
		fail_msg("rm_recipients_build: %s", err.msg);
}

static void test_every_source_in_order(void **state)
{
	struct fixture *f = *state;
	struct rm_commit_facts h;
	struct rm_recipients r;
	char *s;

	put(f, "MAINTAINERS", maintainers);
	put(f, "opt-out", "# nobody\n");
	load(f, base_yaml);
	head_facts(&h);
	build(f, &h, "stress-ng", NULL, &r);
	s = summary(&r);
	/* To the author; Cc: the tree's mail_to (Cc when there is an author:
	 * the code's behaviour, which recipients.h words as "or"), robot.cc,
	 * mail_cc, the rules that match (subject, path, testcase), MAINTAINERS
	 * (F: directory, F: glob, N: regex; not the DOCUMENTATION section), the
	 * configured trailers, the robot last */
	assert_string_equal(s, "to: ann@example.org | cc: fallback@example.org lists@example.org tree-list@example.org "
			       "linux-mm@example.org netdev@example.org stress@example.org "
			       "mm-maint@example.org mm-list@example.org net-maint@example.org "
			       "rx@example.org rev@example.org ack@example.org stable@example.org "
			       "robot@example.org");
	assert_string_equal(r.to[0].name, "Ann Author");
	assert_string_equal(r.cc[6].name, "Mm Maint");
	assert_null(r.cc[1].name);
	/* duplicates (the author's Signed-off-by, LISTS@ in another case) and
	 * unconfigured trailers are simply not there, and not reported either */
	assert_int_equal(r.ndropped, 0);
	free(s);
	rm_recipients_free(&r);
}

static void test_unknown_author_uses_mail_to(void **state)
{
	struct fixture *f = *state;
	struct rm_recipients r;
	char *s;

	put(f, "MAINTAINERS", maintainers);
	put(f, "opt-out", "");
	load(f, base_yaml);
	build(f, NULL, "boot", NULL, &r);
	s = summary(&r);
	/* no commit facts: the tree's mail_to, the lists, the testcase rule */
	assert_string_equal(s, "to: fallback@example.org | cc: lists@example.org tree-list@example.org "
			       "never-testcase@example.org robot@example.org");
	free(s);
	rm_recipients_free(&r);
}

static void test_maintainers_exclusion_and_cap(void **state)
{
	struct fixture *f = *state;
	struct rm_commit_facts h;
	struct rm_recipients r;
	char *excluded[] = { "mm/excluded.c" };
	char *yaml, *s;

	put(f, "MAINTAINERS", maintainers);
	put(f, "opt-out", "");
	/* at most 2 from MAINTAINERS */
	yaml = rm_xstrfmt("%s  maintainers_cap: 2\n", base_yaml);
	load(f, yaml);
	free(yaml);
	head_facts(&h);
	h.subject = "x86: something";
	h.ntrailers = 0;
	build(f, &h, "will-it-scale", NULL, &r);
	s = summary(&r);
	assert_string_equal(s, "to: ann@example.org | cc: fallback@example.org lists@example.org "
			       "tree-list@example.org netdev@example.org mm-maint@example.org mm-list@example.org "
			       "robot@example.org");
	free(s);
	rm_recipients_free(&r);
	/* X: takes a file out of its section */
	h.files = excluded;
	h.nfiles = 1;
	build(f, &h, "will-it-scale", NULL, &r);
	s = summary(&r);
	assert_string_equal(s, "to: ann@example.org | cc: fallback@example.org lists@example.org "
			       "tree-list@example.org robot@example.org");
	free(s);
	rm_recipients_free(&r);
}

static void test_opt_out_applies_to_every_source(void **state)
{
	struct fixture *f = *state;
	struct rm_commit_facts h;
	struct rm_recipients r;
	char *s;

	put(f, "MAINTAINERS", maintainers);
	/* an exact address in another case, and /regex/ lines (caseless) */
	put(f, "opt-out", "# people who asked\n  REV@example.org  \n/^stress@/\n/^MM-/\n/@EXAMPLE\\.ORG$x/\n\n"
			  "ann@example.org\n");
	load(f, base_yaml);
	head_facts(&h);
	build(f, &h, "stress-ng", NULL, &r);
	s = summary(&r);
	/* the author opted out: the tree's mail_to is To instead; the rule's
	 * stress@, MAINTAINERS' mm-*, the trailer's rev@ are all gone */
	assert_string_equal(s, "to: fallback@example.org | cc: lists@example.org tree-list@example.org "
			       "linux-mm@example.org netdev@example.org net-maint@example.org "
			       "rx@example.org ack@example.org stable@example.org robot@example.org");
	assert_true(dropped(&r, "ann@example.org", "opted out (on the opt-out list; from the commit author)"));
	assert_true(dropped(&r, "rev@example.org", "opted out (on the opt-out list; from Reviewed-by)"));
	assert_true(dropped(&r, "stress@example.org", "opted out (^stress@; from rule at line"));
	assert_true(dropped(&r, "mm-maint@example.org", "opted out (^MM-; from MAINTAINERS)"));
	assert_true(dropped(&r, "mm-list@example.org", "opted out (^MM-; from MAINTAINERS)"));
	/* the author's Signed-off-by is dropped again on its own */
	assert_true(dropped(&r, "ann@example.org", "opted out (on the opt-out list; from Signed-off-by)"));
	assert_int_equal(r.ndropped, 6);
	free(s);
	rm_recipients_free(&r);
}

static void test_cap_drops_from_the_end_keeping_the_robot(void **state)
{
	struct fixture *f = *state;
	struct rm_commit_facts h;
	struct rm_recipients r;
	char *yaml, *s;

	put(f, "MAINTAINERS", maintainers);
	put(f, "opt-out", "");
	yaml = rm_xstrfmt("%s  max: 4\n", base_yaml);
	load(f, yaml);
	free(yaml);
	head_facts(&h);
	build(f, &h, "stress-ng", NULL, &r);
	s = summary(&r);
	/* 4 in all: the author, the first two Cc, the robot's own copy */
	assert_string_equal(s, "to: ann@example.org | cc: fallback@example.org lists@example.org "
			       "robot@example.org");
	assert_true(dropped(&r, "tree-list@example.org", "over the recipient cap"));
	assert_true(dropped(&r, "stable@example.org", "over the recipient cap"));
	assert_true(dropped(&r, "linux-mm@example.org", "over the recipient cap"));
	assert_int_equal(r.ndropped, 11);
	free(s);
	rm_recipients_free(&r);
}

static void test_override_and_bad_addresses(void **state)
{
	struct fixture *f = *state;
	struct rm_commit_facts h;
	struct rm_recipients r;
	struct rm_trailer bad[] = { { "Cc", "<broken@example.org" }, { "Cc", "not an address" },
				    { "Cc", "nodomain@localhost" }, { "Cc", "a,b@example.org" },
				    { "Acked-by", "ok@example.org (Ok Person)" } };
	char *s;

	put(f, "MAINTAINERS", "");
	put(f, "opt-out", "tester@example.org\n");
	load(f, base_yaml);
	head_facts(&h);
	/* --to replaces everyone, and the opt-out file does not apply to it */
	build(f, &h, "stress-ng", "Tester <tester@example.org>", &r);
	s = summary(&r);
	assert_string_equal(s, "to: tester@example.org | cc:");
	assert_string_equal(r.to[0].name, "Tester");
	free(s);
	rm_recipients_free(&r);
	/* malformed and invalid addresses are left out with their reason */
	h.subject = "x86: y";
	h.files = NULL;
	h.nfiles = 0;
	h.trailers = bad;
	h.ntrailers = sizeof(bad) / sizeof(bad[0]);
	build(f, &h, "boot", NULL, &r);
	s = summary(&r);
	assert_string_equal(s, "to: ann@example.org | cc: fallback@example.org lists@example.org "
			       "tree-list@example.org never-testcase@example.org ok@example.org robot@example.org");
	assert_string_equal(r.cc[4].name, "Ok Person");
	assert_true(dropped(&r, "<broken@example.org", "malformed (from Cc)"));
	assert_true(dropped(&r, "not an address", "malformed (from Cc)"));
	assert_true(dropped(&r, "nodomain@localhost", "not a valid address (from Cc)"));
	assert_true(dropped(&r, "a,b@example.org", "not a valid address (from Cc)"));
	assert_int_equal(r.ndropped, 4);
	free(s);
	rm_recipients_free(&r);
}

static void test_unreadable_opt_out_is_an_error(void **state)
{
	struct fixture *f = *state;
	struct rm_commit_facts h;
	struct rm_recipients r;
	struct rm_recipients_in in = { 0 };
	struct rm_error err;

	put(f, "MAINTAINERS", maintainers);
	load(f, base_yaml); /* no opt-out file written */
	head_facts(&h);
	in.cfg = &f->cfg;
	in.tree = &f->cfg.trees[0];
	in.head = &h;
	assert_int_equal(rm_recipients_build(&r, &in, &err), -1);
	assert_non_null(strstr(err.msg, "opt-out"));
	rm_recipients_free(&r);
}

/* A context opened once serves every report of a run: the rules, the
 * MAINTAINERS N: pattern and the opt-out /regex/ are compiled once, each
 * file read once (rewriting them afterwards changes nothing), and each
 * report gets what a report built on its own gets. */
static void test_context_compiles_and_reads_once(void **state)
{
	struct fixture *f = *state;
	struct rm_commit_facts h;
	struct rm_recipients r0, r1, r2;
	struct rm_recipients_in in = { 0 };
	struct rm_recipients_ctx ctx;
	struct rm_error err;
	char *s0, *s1, *s2;
	unsigned compiled;

	put(f, "MAINTAINERS", maintainers);
	put(f, "opt-out", "stable@example.org\n/^ack@/\n");
	load(f, base_yaml);
	head_facts(&h);
	build(f, &h, "stress-ng", NULL, &r0); /* on its own, no context */
	s0 = summary(&r0);

	rm_recipients_ctx_open(&ctx, &f->cfg);
	assert_int_equal(ctx.compiled, f->cfg.nrules);
	assert_int_equal(ctx.reads, 0);
	in.cfg = &f->cfg;
	in.tree = &f->cfg.trees[0];
	in.head = &h;
	in.testcase = "stress-ng";
	in.ctx = &ctx;
	if (rm_recipients_build(&r1, &in, &err))
		fail_msg("rm_recipients_build: %s", err.msg);
	compiled = ctx.compiled;
	assert_int_equal(compiled, f->cfg.nrules + 2); /* + N: mincore, + /^ack@/ */
	assert_int_equal(ctx.reads, 2);
	put(f, "MAINTAINERS", "");
	put(f, "opt-out", "");
	if (rm_recipients_build(&r2, &in, &err))
		fail_msg("rm_recipients_build: %s", err.msg);
	assert_int_equal(ctx.compiled, compiled);
	assert_int_equal(ctx.reads, 2);
	s1 = summary(&r1);
	s2 = summary(&r2);
	assert_string_equal(s1, s0);
	assert_string_equal(s2, s0);
	assert_non_null(strstr(s0, "mm-maint@example.org"));
	assert_non_null(strstr(s0, "rx@example.org"));
	assert_null(strstr(s0, " ack@example.org")); /* not fallback@ */
	assert_null(strstr(s0, "stable@example.org"));
	assert_true(dropped(&r2, "ack@example.org", "opted out"));
	rm_recipients_ctx_close(&ctx);
	free(s0);
	free(s1);
	free(s2);
	rm_recipients_free(&r0);
	rm_recipients_free(&r1);
	rm_recipients_free(&r2);
}

const struct CMUnitTest unit_recipients_tests[] = {
	cmocka_unit_test_setup_teardown(test_every_source_in_order, setup, teardown),
	cmocka_unit_test_setup_teardown(test_unknown_author_uses_mail_to, setup, teardown),
	cmocka_unit_test_setup_teardown(test_maintainers_exclusion_and_cap, setup, teardown),
	cmocka_unit_test_setup_teardown(test_opt_out_applies_to_every_source, setup, teardown),
	cmocka_unit_test_setup_teardown(test_cap_drops_from_the_end_keeping_the_robot, setup, teardown),
	cmocka_unit_test_setup_teardown(test_override_and_bad_addresses, setup, teardown),
	cmocka_unit_test_setup_teardown(test_unreadable_opt_out_is_an_error, setup, teardown),
	cmocka_unit_test_setup_teardown(test_context_compiles_and_reads_once, setup, teardown),
};
const size_t unit_recipients_ntests = sizeof(unit_recipients_tests) / sizeof(unit_recipients_tests[0]);
