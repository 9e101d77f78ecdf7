/* test_message.c - RFC 5322 messages: encoding, folding, dates, injection. */
#include "unit.h"

#include <libetpan/libetpan.h>
#include <stdlib.h>
#include <string.h>

#include "message.h"
#include "template.h"

static char *decode(const char *s)
{
	size_t idx = 0;
	char *out = NULL;

	assert_int_equal(mailmime_encoded_phrase_parse("us-ascii", s, strlen(s), &idx, "utf-8", &out),
			 MAILIMF_NO_ERROR);
	return out;
}

static void test_rfc2047_round_trip(void **state)
{
	static const char *const cases[] = { "J\xc3\xb6rg R\xc3\xb6" "del",
					     "\xe4\xb8\xad\xe6\x96\x87\xe6\xa0\x87\xe9\xa2\x98 "
					     "\xe4\xb8\xad\xe6\x96\x87\xe6\xa0\x87\xe9\xa2\x98 "
					     "\xe4\xb8\xad\xe6\x96\x87\xe6\xa0\x87\xe9\xa2\x98 "
					     "\xe4\xb8\xad\xe6\x96\x87\xe6\xa0\x87\xe9\xa2\x98",
					     "a = b? c_d" };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *enc = rm_message_rfc2047_encode(cases[i]);
		char *dec = decode(enc), *w;

		assert_string_equal(dec, cases[i]);
		/* every encoded word is at most 75 characters */
		for (w = strtok(enc, " "); w; w = strtok(NULL, " "))
			assert_true(strlen(w) <= 75);
		free(enc);
		free(dec);
	}
	{
		char *plain = rm_message_rfc2047_encode("plain ascii subject");

		assert_string_equal(plain, "plain ascii subject");
		free(plain);
	}
}

static void test_date_half_hour_zones(void **state)
{
	char buf[64];

	(void)state;
	rm_message_format_date(1765347349, 8 * 3600, buf, sizeof(buf));
	assert_string_equal(buf, "Wed, 10 Dec 2025 14:15:49 +0800");
	rm_message_format_date(1765347349, 5 * 3600 + 1800, buf, sizeof(buf));
	assert_string_equal(buf, "Wed, 10 Dec 2025 11:45:49 +0530");
	rm_message_format_date(1765347349, -(9 * 3600 + 1800), buf, sizeof(buf));
	assert_string_equal(buf, "Tue, 9 Dec 2025 20:45:49 -0930");
}

static char *build(const char *subject, const char *name, const char *addr, const char *body,
		   int expect_ok, struct rm_error *err)
{
	struct rm_address to = { (char *)name, (char *)addr };
	struct rm_message_in in;
	char *out = NULL;
	size_t len;
	int rc;

	memset(&in, 0, sizeof(in));
	in.from_name = "kernel test robot";
	in.from_addr = "robot@example.org";
	in.to = &to;
	in.nto = 1;
	in.subject = subject;
	in.message_id = "202512101408.af3876df-lkp@example.org";
	in.date = 1765347349;
	in.zone_seconds = 19800;
	in.body = body;
	rc = rm_message_build(&in, &out, &len, err);
	assert_int_equal(rc, expect_ok ? 0 : -1);
	return out;
}

static void test_headers_have_no_injection(void **state)
{
	struct rm_error err;
	char subject[1200], *msg, *hdr_end, *p;
	size_t i;

	(void)state;
	strcpy(subject, "evil\r\nBcc: victim@example.org\x01 ");
	for (i = strlen(subject); i < 1100; i++)
		subject[i] = 'x';
	subject[1100] = '\0';
	msg = build(subject, "Name\r\nCc: x@y.z", "a@example.org", "body\n", 1, &err);
	hdr_end = strstr(msg, "\r\n\r\n");
	assert_non_null(hdr_end);
	*hdr_end = '\0';
	/* no header starts where the hostile text tried to start one */
	assert_null(strstr(msg, "\r\nBcc:"));
	assert_null(strstr(msg, "\r\nCc: x@y.z"));
	/* every header line is folded under 78 columns, or is a single long word */
	for (p = msg; *p;) {
		char *eol = strstr(p, "\r\n");
		size_t l = eol ? (size_t)(eol - p) : strlen(p);

		assert_true(l <= 998);
		p += l + (eol ? 2 : 0);
	}
	assert_non_null(strstr(msg, "Date: Wed, 10 Dec 2025 11:45:49 +0530"));
	free(msg);
}

static void test_invalid_input_is_refused(void **state)
{
	struct rm_error err;
	char line[1100];

	(void)state;
	assert_null(build("s", NULL, "bad@", "b\n", 0, &err));
	assert_non_null(strstr(err.msg, "invalid address"));
	assert_null(build("s", NULL, "a@b.c\r\nRCPT TO:<x@y.z>", "b\n", 0, &err));
	memset(line, 'y', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\0';
	assert_null(build("s", NULL, "a@b.c", line, 0, &err));
	assert_non_null(strstr(err.msg, "body line 1 is 1099 octets long"));
	assert_false(rm_address_valid("a b@c.d"));
	assert_false(rm_address_valid("<a@b.c>"));
	assert_true(rm_address_valid("oliver.sang@intel.com"));
}

static void test_body_in_wire_form(void **state)
{
	struct rm_error err;
	char *msg = build("s", NULL, "a@b.c", "line 1\nline 2\n\n\n", 1, &err);
	char *body = strstr(msg, "\r\n\r\n") + 4;

	(void)state;
	assert_string_equal(body, "line 1\r\nline 2\r\n\r\n\r\n");
	free(msg);
}

static void test_template_engine(void **state)
{
	struct rm_tdata *d = rm_tdata_new(), *it;
	struct rm_error err;
	struct rm_sb out = RM_SB_INIT;
	const char *t = "{{! comment }}\nA {{x}}\n{{#list}}\n\t{{k}}: {{v}} {{x}}\n{{/list}}\n{{^empty}}\nno\n{{/empty}}\nend \n";

	(void)state;
	rm_tdata_set(d, "x", "X");
	rm_tdata_set(d, "empty", "");
	it = rm_tdata_add(d, "list");
	rm_tdata_set(it, "k", "a");
	rm_tdata_set(it, "v", "1");
	it = rm_tdata_add(d, "list");
	rm_tdata_set(it, "k", "b");
	rm_tdata_set(it, "v", "2");
	rm_sb_init(&out);
	assert_int_equal(rm_template_render_text(NULL, "t.txt", t, strlen(t), d, &out, &err), 0);
	/* standalone tag lines vanish; tabs and trailing blanks stay */
	assert_string_equal(out.buf, "A X\n\ta: 1 X\n\tb: 2 X\nno\nend \n");
	rm_sb_reset(&out);
	assert_int_equal(rm_template_render_text(NULL, "t.txt", "a\n{{nope}}\n", 11, d, &out, &err), -1);
	assert_string_equal(err.msg, "template 't.txt' line 2: unknown variable 'nope'");
	assert_int_equal(rm_template_render_text(NULL, "t.txt", "{{#x}}\n", 7, d, &out, &err), -1);
	assert_non_null(strstr(err.msg, "line 1: section 'x' is not closed"));
	assert_int_equal(rm_template_render_text(NULL, "t.txt", "{{/x}}", 6, d, &out, &err), -1);
	assert_int_equal(rm_template_render_text(NULL, "t.txt", "{{#list}}{{nope}}{{/list}}", 26, d, &out, &err), -1);
	assert_int_equal(out.len, 0);
	rm_sb_release(&out);
	rm_tdata_free(d);
}

const struct CMUnitTest unit_message_tests[] = {
	cmocka_unit_test(test_rfc2047_round_trip),
	cmocka_unit_test(test_date_half_hour_zones),
	cmocka_unit_test(test_headers_have_no_injection),
	cmocka_unit_test(test_invalid_input_is_refused),
	cmocka_unit_test(test_body_in_wire_form),
	cmocka_unit_test(test_template_engine),
};
const size_t unit_message_ntests = sizeof(unit_message_tests) / sizeof(unit_message_tests[0]);
