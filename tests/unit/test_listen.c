/* test_listen.c - listen's command parsing, mail parsing, loop rules, and
 * the store's findings, inbound mail and opt-outs behind them. */
#include "unit.h"

#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "listen.h"
#include "recipients.h"
#include "store.h"

static void test_commands_good(void **state)
{
	struct rm_listen_cmd *c;
	size_t n;

	(void)state;
	rm_listen_parse_commands("Hi,\r\n#robotmail invalid\r\n"
				 "#robotmail fixed: 1234abcd mm: fix it \n"
				 "#ROBOTMAIL dup: <a.b@example.org>\n"
				 "#robotmail unsubscribe\n"
				 "#robotmail unsubscribe: all\n"
				 "#robotmail undo",
				 &c, &n);
	assert_int_equal(n, 6);
	assert_int_equal(c[0].kind, RM_CMD_INVALID);
	assert_string_equal(c[0].line, "#robotmail invalid");
	assert_null(c[0].arg);
	assert_int_equal(c[1].kind, RM_CMD_FIXED);
	assert_string_equal(c[1].arg, "1234abcd mm: fix it");
	assert_int_equal(c[2].kind, RM_CMD_DUP);
	assert_string_equal(c[2].arg, "a.b@example.org");
	assert_int_equal(c[3].kind, RM_CMD_UNSUBSCRIBE);
	assert_null(c[3].arg);
	assert_int_equal(c[4].kind, RM_CMD_UNSUBSCRIBE);
	assert_string_equal(c[4].arg, "all");
	assert_int_equal(c[5].kind, RM_CMD_UNDO);
	rm_listen_cmds_free(c, n);
}

static void test_commands_bad(void **state)
{
	static const struct {
		const char *line, *problem;
	} cases[] = {
		{ "#robotmail", "no command after #robotmail" },
		{ "#robotmail frobnicate", "unknown command 'frobnicate'" },
		{ "#robotmail invalid because", "'invalid' takes nothing after it" },
		{ "#robotmail fixed:", "'fixed' needs the fix's commit or subject" },
		{ "#robotmail dup", "'dup' needs the Message-ID of the other report" },
		{ "#robotmail dup: nothing", "'nothing' is not a Message-ID" },
		/* a CR or another control character inside the line (fuzz_listen_mail) */
		{ "#robotmail dup: <a@example.org\r>", "'a@example.org\r' is not a Message-ID" },
		{ "#robotmail dup: a\x01" "b@example.org", "'a\x01" "b@example.org' is not a Message-ID" },
		{ "#robotmail unsubscribe: me", "unsubscribe takes nothing (this tree) or 'all', not 'me'" },
		{ "#robotmail undo it", "'undo' takes nothing after it" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rm_listen_cmd *c;
		size_t n;

		rm_listen_parse_commands(cases[i].line, &c, &n);
		assert_int_equal(n, 1);
		assert_int_equal(c[0].kind, RM_CMD_BAD);
		assert_string_equal(c[0].problem, cases[i].problem);
		rm_listen_cmds_free(c, n);
	}
}

static void test_commands_not_commands(void **state)
{
	struct rm_listen_cmd *c;
	size_t n;
	char *many = calloc(1, 64 * 30);
	int i;

	(void)state;
	/* quoted, indented, glued to another word, mid-line: none is a command */
	rm_listen_parse_commands("> #robotmail invalid\n  #robotmail invalid\n#robotmailinvalid\n"
				 "see #robotmail invalid\n",
				 &c, &n);
	assert_int_equal(n, 0);
	assert_null(c);
	rm_listen_parse_commands("", &c, &n);
	assert_int_equal(n, 0);
	/* at most RM_LISTEN_MAX_COMMANDS, then one that says so */
	for (i = 0; i < 30; i++)
		strcat(many, "#robotmail invalid\n");
	rm_listen_parse_commands(many, &c, &n);
	assert_int_equal(n, RM_LISTEN_MAX_COMMANDS + 1);
	assert_int_equal(c[RM_LISTEN_MAX_COMMANDS].kind, RM_CMD_BAD);
	assert_string_equal(c[RM_LISTEN_MAX_COMMANDS].problem, "more than 20 commands in one mail");
	rm_listen_cmds_free(c, n);
	free(many);
}

static void test_parse_mail(void **state)
{
	static const char mail[] =
		"From: Ann Author <Ann@Example.org>\r\n"
		"To: lkp@example.org, Group: a@example.org, b@example.org;\r\n"
		"Cc: c@example.org\r\n"
		"Subject: Re: [linus:master] a\r\n regression\r\n"
		"Message-ID: <r1@example.org>\r\n"
		"In-Reply-To: <two@example.org>\r\n"
		"References: <zero@example.org> <one@example.org>\r\n"
		"  <two@example.org>\r\n"
		"Auto-Submitted: no\r\n"
		"MIME-Version: 1.0\r\n"
		"Content-Type: multipart/alternative; boundary=XX\r\n"
		"\r\n"
		"--XX\r\n"
		"Content-Type: text/html\r\n\r\n<p>#robotmail frobnicate</p>\r\n"
		"--XX\r\n"
		"Content-Type: text/plain; charset=utf-8\r\n"
		"Content-Transfer-Encoding: quoted-printable\r\n\r\n"
		"#robotmail fixed: =\r\nabc=3Ddef\r\n"
		"--XX--\r\n";
	struct rm_inmail m;
	struct rm_error err;

	(void)state;
	assert_int_equal(rm_listen_parse_mail(mail, sizeof(mail) - 1, &m, &err), 0);
	assert_string_equal(m.message_id, "r1@example.org");
	assert_string_equal(m.from, "ann@example.org");
	assert_string_equal(m.subject, "Re: [linus:master] a regression");
	assert_int_equal(m.nrefs, 4);
	assert_string_equal(m.refs[0], "two@example.org");
	assert_string_equal(m.refs[1], "two@example.org");
	assert_string_equal(m.refs[2], "one@example.org");
	assert_string_equal(m.refs[3], "zero@example.org");
	assert_int_equal(m.nrcpts, 4);
	assert_string_equal(m.rcpts[1], "a@example.org");
	assert_string_equal(m.rcpts[3], "c@example.org");
	assert_string_equal(m.auto_submitted, "no");
	assert_null(m.precedence);
	/* the soft break joined, =3D decoded; the CRLF before the boundary
	 * belongs to the boundary (RFC 2046) */
	assert_string_equal(m.body, "#robotmail fixed: abc=def");
	rm_inmail_free(&m);
}

/* Hostile mail (fuzz_listen_mail): a quoted-printable part that ends in
 * '=' and one byte, in a buffer of exactly its size (libetpan read past it:
 * the unit tests under ASan catch that); every field valid UTF-8: a
 * Latin-1 body converted, 8-bit bytes of no charset repaired, the Subject's
 * encoded words decoded. */
static void test_parse_mail_hostile(void **state)
{
	static const char qp[] = "From: a@example.org\nContent-Transfer-Encoding: quoted-printable\n\n"
				 "#robotmail invalid\nJ=S";
	static const char latin1[] =
		"From: =?UTF-8?Q?J=C3=B6rg?= <j\xf6rg@example.org>\n"
		"Subject: =?UTF-8?Q?unsubscribe?=\n"
		"Message-ID: <caf\xe9@example.org>\n"
		"List-Id: a\x01" "b <x\xff.example.org>\n"
		"Content-Type: text/plain; charset=iso-8859-1\nContent-Transfer-Encoding: 8bit\n\n"
		"#robotmail fixed: caf\xe9\n";
	static const char raw8[] = "From: a@example.org\nSubject: Re: r\xe4port\n\n\xff\xfe #robotmail\n";
	char *exact = malloc(sizeof(qp) - 1);
	struct rm_listen_cmd *c;
	struct rm_inmail m;
	struct rm_error err;
	size_t n;

	(void)state;
	assert_non_null(exact);
	memcpy(exact, qp, sizeof(qp) - 1);
	assert_int_equal(rm_listen_parse_mail(exact, sizeof(qp) - 1, &m, &err), 0);
	assert_true(!strncmp(m.body, "#robotmail invalid\r\nJ", 21)); /* QP lines end CRLF */
	rm_inmail_free(&m);
	free(exact);

	assert_int_equal(rm_listen_parse_mail(latin1, sizeof(latin1) - 1, &m, &err), 0);
	assert_string_equal(m.from, "j?rg@example.org");
	assert_string_equal(m.message_id, "caf?@example.org");
	assert_string_equal(m.subject, "unsubscribe");
	assert_string_equal(m.list_id, "a b <x?.example.org>");
	rm_listen_parse_commands(m.body, &c, &n);
	assert_int_equal(n, 1);
	assert_string_equal(c[0].arg, "caf\xc3\xa9");
	rm_listen_cmds_free(c, n);
	rm_inmail_free(&m);

	assert_int_equal(rm_listen_parse_mail(raw8, sizeof(raw8) - 1, &m, &err), 0);
	assert_string_equal(m.subject, "Re: r?port");
	assert_string_equal(m.body, "?? #robotmail\n");
	rm_inmail_free(&m);
}

static void test_loop_rules(void **state)
{
	struct rm_config cfg;
	struct rm_inmail m;
	struct rm_error err;
	char *lists[] = { (char *)"<lkp.lists.example.org>" };

	(void)state;
	assert_int_equal(rm_config_load(&cfg, NULL, &err), 0);
	free(cfg.robot_address);
	cfg.robot_address = strdup("lkp@example.org");
	memset(&m, 0, sizeof(m));
	m.from = (char *)"ann@example.org";
	assert_null(rm_listen_loop_reason(&m, &cfg));
	m.auto_submitted = (char *)"No";
	assert_null(rm_listen_loop_reason(&m, &cfg));
	m.auto_submitted = (char *)"auto-replied";
	assert_string_equal(rm_listen_loop_reason(&m, &cfg), "an automatic mail (Auto-Submitted)");
	m.auto_submitted = NULL;
	m.precedence = (char *)"junk";
	assert_string_equal(rm_listen_loop_reason(&m, &cfg), "a bulk mail (Precedence)");
	m.precedence = (char *)"first-class";
	assert_null(rm_listen_loop_reason(&m, &cfg));
	m.list_id = (char *)"LKP <lkp.lists.example.org>";
	assert_string_equal(rm_listen_loop_reason(&m, &cfg),
			    "a mail of a list not in listen.lists (List-Id)");
	cfg.listen_lists.v = lists;
	cfg.listen_lists.n = 1;
	assert_null(rm_listen_loop_reason(&m, &cfg));
	/* the list's own mark on what it distributes */
	m.precedence = (char *)"bulk";
	assert_null(rm_listen_loop_reason(&m, &cfg));
	m.precedence = (char *)"list";
	assert_null(rm_listen_loop_reason(&m, &cfg));
	m.precedence = (char *)"junk";
	assert_string_equal(rm_listen_loop_reason(&m, &cfg), "a bulk mail (Precedence)");
	m.precedence = NULL;
	m.list_id = (char *)"lkp.lists.example.org.evil";
	assert_non_null(rm_listen_loop_reason(&m, &cfg));
	m.list_id = NULL;
	m.from = (char *)"LKP@example.org";
	assert_string_equal(rm_listen_loop_reason(&m, &cfg), "a mail from the robot itself");
	m.from = NULL;
	assert_string_equal(rm_listen_loop_reason(&m, &cfg), "no sender (From)");
	cfg.listen_lists.v = NULL;
	cfg.listen_lists.n = 0;
	rm_config_free(&cfg);
}

/* also in the store-postgresql group (unit_store_pg_tests) */
void unit_listen_test_store_findings(void **state)
{
	struct rm_store *st;
	struct rm_store_finding f, *all;
	struct rm_store_event *ev;
	struct rm_error err;
	size_t n;
	bool b;
	long count;

	(void)state;
	st = unit_fresh_store(); /* SQLite in memory, or PostgreSQL in its group */
	rm_error_clear(&err);
	assert_int_equal(rm_store_finding_get(st, "k", &f, &err), 0);
	assert_int_equal(rm_store_finding_undo(st, "k", "#robotmail undo", "a@example.org", "m0",
					       100, &err),
			 0);
	assert_int_equal(rm_store_finding_set(st, "k", "linus", RM_FINDING_INVALID, NULL,
					      "#robotmail invalid", "a@example.org", "m1", 100, &err),
			 1);
	/* the same mail's same command again: not applied twice */
	assert_int_equal(rm_store_finding_set(st, "k", "linus", RM_FINDING_INVALID, NULL,
					      "#robotmail invalid", "a@example.org", "m1", 101, &err),
			 0);
	assert_int_equal(rm_store_finding_set(st, "k", NULL, RM_FINDING_FIXED, "abc",
					      "#robotmail fixed: abc", "b@example.org", "m2", 102, &err),
			 1);
	assert_int_equal(rm_store_finding_get(st, "k", &f, &err), 1);
	assert_int_equal(f.state, RM_FINDING_FIXED);
	assert_string_equal(f.arg, "abc");
	assert_string_equal(f.tree, "linus");
	rm_store_finding_free(&f);
	/* undo goes back one change at a time */
	assert_int_equal(rm_store_finding_undo(st, "k", "#robotmail undo", "b@example.org", "m3", 103,
					       &err),
			 1);
	assert_int_equal(rm_store_finding_get(st, "k", &f, &err), 1);
	assert_int_equal(f.state, RM_FINDING_INVALID);
	assert_null(f.arg);
	rm_store_finding_free(&f);
	assert_int_equal(rm_store_finding_undo(st, "k", "#robotmail undo", "b@example.org", "m4", 104,
					       &err),
			 1);
	assert_int_equal(rm_store_finding_get(st, "k", &f, &err), 1);
	assert_int_equal(f.state, RM_FINDING_OPEN);
	rm_store_finding_free(&f);
	assert_int_equal(rm_store_finding_undo(st, "k", "#robotmail undo", "b@example.org", "m5", 105,
					       &err),
			 0);
	assert_int_equal(rm_store_finding_events(st, "k", &ev, &n, &err), 0);
	assert_int_equal(n, 4);
	assert_true(ev[0].undone);
	assert_true(ev[1].undone);
	assert_string_equal(ev[3].command, "#robotmail undo");
	assert_int_equal(ev[3].state, RM_FINDING_OPEN);
	rm_store_events_free(ev, n);
	assert_int_equal(rm_store_findings(st, &all, &n, &err), 0);
	assert_int_equal(n, 1);
	rm_store_finding_free(&all[0]);
	free(all);

	/* inbound mail */
	assert_int_equal(rm_store_inbound_seen(st, "maildir:x", "m1", &b, &err), 0);
	assert_false(b);
	assert_int_equal(rm_store_inbound_mark(st, "maildir:x", "m1", "A@example.org", "ok", 100, &err), 1);
	assert_int_equal(rm_store_inbound_mark(st, "maildir:x", "m1", "a@example.org", "ok", 100, &err), 0);
	assert_int_equal(rm_store_inbound_mark(st, "maildir:x", "m2", "a@example.org", "ok", 50, &err), 1);
	{
		/* where a public-inbox source asks from: the newest mail read */
		time_t at = 1;
		struct rm_store_point *pt;
		const double base[3] = { 1.5, 2, 0.1 }, head[2] = { 3, 1e-300 };

		assert_int_equal(rm_store_inbound_newest(st, "maildir:x", &at, &err), 0);
		assert_int_equal(at, 100);
		assert_int_equal(rm_store_inbound_newest(st, "public-inbox:y", &at, &err), 0);
		assert_int_equal(at, 0);
		/* a finding's values per commit: kept once, read back in order */
		assert_int_equal(rm_store_point_add(st, "k", "t", "c0", "base", base, 3, 10, &err), 1);
		assert_int_equal(rm_store_point_add(st, "k", "t", "c1", "head", head, 2, 10, &err), 1);
		assert_int_equal(rm_store_point_add(st, "k", "t", "c1", "head", base, 1, 11, &err), 0);
		assert_int_equal(rm_store_points(st, "k", &pt, &n, &err), 0);
		assert_int_equal(n, 2);
		assert_string_equal(pt[0].commit, "c0");
		assert_string_equal(pt[0].role, "base");
		assert_int_equal(pt[0].n, 3);
		assert_true(pt[0].v[0] == 1.5 && pt[0].v[1] == 2 && pt[0].v[2] == 0.1);
		assert_string_equal(pt[1].commit, "c1");
		assert_int_equal(pt[1].n, 2);
		assert_true(pt[1].v[0] == 3 && pt[1].v[1] == 1e-300);
		assert_null(pt[0].label); /* kept without one */
		rm_store_points_free(pt, n);
		/* another head where the finding was seen, with its tree/branch */
		assert_int_equal(rm_store_point_keep(st, "k", "t", "c2", "seen", "linux-next/master",
						     head, 2, 12, &err),
				 1);
		assert_int_equal(rm_store_point_keep(st, "k", "t", "c2", "seen", "other/x", base, 3,
						     13, &err),
				 0);
		assert_int_equal(rm_store_points(st, "k", &pt, &n, &err), 0);
		assert_int_equal(n, 3);
		assert_string_equal(pt[2].commit, "c2");
		assert_string_equal(pt[2].role, "seen");
		assert_string_equal(pt[2].label, "linux-next/master");
		assert_int_equal(pt[2].n, 2);
		assert_int_equal(pt[2].at, 12);
		rm_store_points_free(pt, n);
		assert_int_equal(rm_store_points(st, "other", &pt, &n, &err), 0);
		assert_int_equal(n, 0);
		{
			/* by test-key prefix, whose text may hold '%' and '_' */
			char **keys, **tests;
			size_t j;

			assert_int_equal(rm_store_point_add(st, "k2", "a:b|x=100%/|m|regression", "c0",
							    "base", base, 1, 10, &err),
					 1);
			assert_int_equal(rm_store_point_add(st, "k3", "a:b|x=1000/|m|regression", "c0",
							    "base", base, 1, 10, &err),
					 1);
			assert_int_equal(rm_store_point_findings(st, "a:b|x=100%/|", &keys, &tests, &n,
								 &err),
					 0);
			assert_int_equal(n, 1);
			assert_string_equal(keys[0], "k2");
			assert_string_equal(tests[0], "a:b|x=100%/|m|regression");
			for (j = 0; j < n; j++) {
				free(keys[j]);
				free(tests[j]);
			}
			free(keys);
			free(tests);
			assert_int_equal(rm_store_point_findings(st, "a:b|x=100_/|", &keys, &tests, &n,
								 &err),
					 0);
			assert_int_equal(n, 0);
			free(keys);
			free(tests);
		}
	}
	assert_int_equal(rm_store_inbound_seen(st, "maildir:x", "m1", &b, &err), 0);
	assert_true(b);
	assert_int_equal(rm_store_inbound_seen(st, "maildir:y", "m1", &b, &err), 0);
	assert_false(b);
	assert_int_equal(rm_store_inbound_count_since(st, "a@example.org", 60, &count, &err), 0);
	assert_int_equal(count, 1);

	/* opt-outs */
	assert_int_equal(rm_store_optout_add(st, "c@example.org", "linus", "m6", 100, &err), 0);
	assert_int_equal(rm_store_optout_check(st, "C@example.org", "linus", &b, &err), 0);
	assert_true(b);
	assert_int_equal(rm_store_optout_check(st, "c@example.org", "net-next", &b, &err), 0);
	assert_false(b);
	assert_int_equal(rm_store_optout_add(st, "d@example.org", "*", "m7", 100, &err), 0);
	assert_int_equal(rm_store_optout_check(st, "d@example.org", "net-next", &b, &err), 0);
	assert_true(b);
	assert_int_equal(rm_store_optout_count(st, &count, &err), 0);
	assert_int_equal(count, 2);
	rm_store_close(st);
}

/* also in the store-postgresql group (unit_store_pg_tests) */
void unit_listen_test_recipients_optouts(void **state)
{
	struct rm_store *st;
	struct rm_recipients r;
	struct rm_error err;

	(void)state;
	st = unit_fresh_store(); /* SQLite in memory, or PostgreSQL in its group */
	rm_error_clear(&err);
	assert_int_equal(rm_store_optout_add(st, "a@example.org", "linus", "m1", 100, &err), 0);
	assert_int_equal(rm_store_optout_add(st, "c@example.org", "*", "m2", 100, &err), 0);
	memset(&r, 0, sizeof(r));
	r.to = calloc(1, sizeof(*r.to));
	r.to[0].addr = strdup("A@example.org");
	r.to[0].name = strdup("A");
	r.nto = 1;
	r.cc = calloc(3, sizeof(*r.cc));
	r.cc[0].addr = strdup("b@example.org");
	r.cc[1].addr = strdup("c@example.org");
	r.cc[2].addr = strdup("d@example.org");
	r.ncc = 3;
	/* another tree: only the opt-out of all applies */
	assert_int_equal(rm_recipients_drop_optouts(&r, st, "net-next", &err), 0);
	assert_int_equal(r.nto, 1);
	assert_int_equal(r.ncc, 2);
	assert_string_equal(r.cc[1].addr, "d@example.org");
	assert_int_equal(r.ndropped, 1);
	assert_string_equal(r.dropped[0], "c@example.org: opted out by mail (#robotmail unsubscribe)");
	/* this tree: the To goes too, the first Cc takes its place */
	assert_int_equal(rm_recipients_drop_optouts(&r, st, "linus", &err), 0);
	assert_int_equal(r.nto, 1);
	assert_string_equal(r.to[0].addr, "b@example.org");
	assert_int_equal(r.ncc, 1);
	assert_string_equal(r.cc[0].addr, "d@example.org");
	assert_int_equal(r.ndropped, 2);
	/* no store: nobody opted out */
	assert_int_equal(rm_recipients_drop_optouts(&r, NULL, "linus", &err), 0);
	assert_int_equal(r.ncc, 1);
	rm_recipients_free(&r);
	rm_store_close(st);
}

const struct CMUnitTest unit_listen_tests[] = {
	cmocka_unit_test(unit_listen_test_recipients_optouts),
	cmocka_unit_test(test_commands_good),
	cmocka_unit_test(test_commands_bad),
	cmocka_unit_test(test_commands_not_commands),
	cmocka_unit_test(test_parse_mail),
	cmocka_unit_test(test_parse_mail_hostile),
	cmocka_unit_test(test_loop_rules),
	cmocka_unit_test(unit_listen_test_store_findings),
};
const size_t unit_listen_ntests = sizeof(unit_listen_tests) / sizeof(unit_listen_tests[0]);
