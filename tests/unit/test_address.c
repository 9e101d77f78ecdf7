/* test_address.c - the strict address parser, and the limits on untrusted
 * input: template lines, YAML and JSON depth. */
#include "unit.h"

#include <stdlib.h>
#include <string.h>

#include "address.h"
#include "jsonload.h"
#include "strbuf.h"
#include "template.h"
#include "yamldoc.h"

static void test_addr_spec_rule(void **state)
{
	static const char *const good[] = {
		"oliver.sang@intel.com", "a@b.c", "o'brien+tag@sub.example.org", "x_y-z@a-b.example.org",
		"\"a b\"@example.org", "\"a@b\"@example.org", "REV@Example.org",
	};
	static const char *const bad[] = {
		"", "a", "a@", "@b.c", "a@b", "a b@c.d", "<a@b.c>", "a@b.c>", "a@b.c,d@e.f", "a@b.c;",
		"a@b.c\r\nBcc: v@e.org", "a@b.c\n", "a\x85@b.c", "a@b.c\xe2\x80\xa8", "\"a\"b\"@c.d",
		"\"a\\\"b\"@c.d", "\"a<b\"@c.d", "\"a\r\"@c.d", "a..b@c.d", ".a@c.d", "a.@c.d",
		"a@-b.c", "a@b-.c", "a@b..c", "a@b.c.", "a@[1.2.3.4]", "v%evil.org@relay.example.org",
		"a!b@c.d", "=?UTF-8?Q?v=40e.org?=@example.org", "a@b@c.d", "j\xc3\xb6rg@example.org",
		"a@b\xc3\xa9.org", "a@b.c (comment)", "(c)a@b.c", "\"unclosed@b.c",
	};
	char big[400];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		assert_null(rm_address_check(good[i]));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (rm_address_check(bad[i]) == NULL)
			fail_msg("accepted '%s'", bad[i]);
	assert_false(rm_address_valid(NULL));
	/* lengths: local part 64, a label 63, the whole 254 */
	memset(big, 'a', 65);
	strcpy(big + 65, "@example.org");
	assert_non_null(rm_address_check(big));
	strcpy(big + 64, "@example.org");
	assert_null(rm_address_check(big));
	memset(big, 'a', 64);
	big[64] = '@';
	memset(big + 65, 'b', 64);
	strcpy(big + 129, ".org");
	assert_non_null(rm_address_check(big)); /* a 64-octet label */
	for (i = 0; i < 4; i++)
		memcpy(big + 65 + i * 50, "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb.", 50);
	strcpy(big + 265, "org");
	assert_string_equal(rm_address_check(big), "longer than 254 octets");
}

/* parse spec; returns the address (static buffer) or NULL, *mal the kind */
static const char *parse(const char *spec, bool *mal, char **name)
{
	static char got[300];
	struct rm_address a;
	struct rm_error err;

	rm_error_clear(&err);
	*name = NULL;
	if (rm_address_parse(&a, spec, mal, &err)) {
		assert_null(a.addr);
		assert_true(err.msg[0] != '\0');
		return NULL;
	}
	snprintf(got, sizeof(got), "%s", a.addr);
	*name = a.name ? strdup(a.name) : NULL;
	rm_address_free(&a);
	return got;
}

static void test_mailbox_parser(void **state)
{
	bool mal;
	char *name;
	const char *a;

	(void)state;
	a = parse("J\xc3\xb6rg R\xc3\xb6" "del <joro@example.org>", &mal, &name);
	assert_string_equal(a, "joro@example.org");
	assert_string_equal(name, "J\xc3\xb6rg R\xc3\xb6" "del");
	free(name);
	a = parse("  \"Doe, John\" <john@example.org>  ", &mal, &name);
	assert_string_equal(a, "john@example.org");
	assert_string_equal(name, "Doe, John");
	free(name);
	a = parse("rev@example.org (Rev Iewer)", &mal, &name);
	assert_string_equal(a, "rev@example.org");
	assert_string_equal(name, "Rev Iewer");
	free(name);
	a = parse("<bare@example.org>", &mal, &name);
	assert_string_equal(a, "bare@example.org");
	assert_null(name);
	/* an address in the display name stays text: it is never a recipient */
	a = parse("victim@example.org <evil@example.org>", &mal, &name);
	assert_string_equal(a, "evil@example.org");
	assert_string_equal(name, "victim@example.org");
	free(name);
	/* malformed: never repaired into some address found inside */
	assert_null(parse("Evil <author@example.org>\r\nBcc: <victim@example.org>", &mal, &name));
	assert_true(mal);
	assert_null(parse("Evil <a@example.org> <victim@example.org>", &mal, &name));
	assert_true(mal);
	assert_null(parse("a@example.org, victim@example.org", &mal, &name));
	assert_true(mal);
	assert_null(parse("Evil\xe2\x80\xa8 <victim@example.org>", &mal, &name));
	assert_true(mal);
	assert_null(parse("Evil\xc2\x85 <victim@example.org>", &mal, &name));
	assert_true(mal);
	assert_null(parse("<bracket@example.org", &mal, &name));
	assert_true(mal);
	assert_null(parse("missing.brackets@example.org Name", &mal, &name));
	assert_true(mal);
	assert_null(parse("a@b.c (x) (y)", &mal, &name));
	assert_true(mal);
	assert_null(parse("\xff <a@b.c>", &mal, &name));
	assert_true(mal);
	/* well-formed, but the address fails the rule */
	assert_null(parse("\"Name\" <bad@>", &mal, &name));
	assert_false(mal);
	assert_null(parse("Name <a@b.c;victim@example.org>", &mal, &name));
	assert_false(mal);
	assert_null(parse("=?UTF-8?Q?victim=40example.org?=", &mal, &name));
	assert_false(mal);
}

static void test_display_name(void **state)
{
	char *n, big[600];

	(void)state;
	n = rm_address_name("  Evil\r\nBcc:\xc2\x85x\xe2\x80\xa8y\xe2\x80\xa9z\x7f ");
	assert_string_equal(n, "Evil  Bcc: x y z");
	free(n);
	assert_null(rm_address_name(" \r\n "));
	assert_null(rm_address_name(NULL));
	n = rm_address_name("a\xff" "b");
	assert_string_equal(n, "a\xef\xbf\xbd" "b");
	free(n);
	/* long names are cut at a character boundary, with "..." */
	memset(big, 0, sizeof(big));
	for (size_t i = 0; i < 290; i += 2)
		memcpy(big + i, "\xc3\xa9", 2);
	n = rm_address_name(big);
	assert_true(strlen(n) <= RM_ADDRESS_NAME_MAX);
	assert_string_equal(n + strlen(n) - 3, "...");
	assert_int_equal(strlen(n) % 2, 1); /* whole two-octet characters, then "..." */
	free(n);
}

static void test_template_long_values(void **state)
{
	struct rm_tdata *d = rm_tdata_new();
	struct rm_sb out = RM_SB_INIT, v = RM_SB_INIT;
	struct rm_error err;
	const char *t = "patch subject: {{s}} (end)\n{{s}}{{s}}\nshort: {{short}}\n";
	const char *p, *nl;
	size_t i;

	(void)state;
	rm_sb_init(&v);
	for (i = 0; i < 1000; i++)
		rm_sb_adds(&v, "\xe4\xb8\xad"); /* 3,000 octets */
	rm_tdata_set(d, "s", v.buf);
	rm_tdata_set(d, "short", "ok");
	rm_sb_init(&out);
	if (rm_template_render_text(NULL, "t.txt", t, strlen(t), d, &out, &err))
		fail_msg("%s", err.msg);
	for (p = out.buf; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		assert_non_null(nl);
		assert_true((size_t)(nl - p) <= RM_TEMPLATE_LINE_MAX);
	}
	/* cut at a character boundary, marked, and the template text kept */
	assert_non_null(strstr(out.buf, "\xe4\xb8\xad... (end)\n"));
	assert_non_null(strstr(out.buf, "\nshort: ok\n"));
	assert_int_equal(strncmp(out.buf, "patch subject: \xe4\xb8\xad", 18), 0);
	/* a short value is untouched; lines of a value are cut each */
	rm_sb_reset(&out);
	rm_tdata_set(d, "s", "a\nb");
	assert_int_equal(rm_template_render_text(NULL, "t.txt", "x {{s}} y\n", 10, d, &out, &err), 0);
	assert_string_equal(out.buf, "x a\nb y\n");
	/* only the template's own text can still make a line too long: an error */
	rm_sb_reset(&out);
	rm_sb_reset(&v);
	rm_sb_addn(&v, 'x', 1200);
	rm_sb_addc(&v, '\n');
	assert_int_equal(rm_template_render_text(NULL, "t.txt", v.buf, v.len, d, &out, &err), -1);
	assert_non_null(strstr(err.msg, "output line 1 is 1200 octets long"));
	rm_sb_release(&out);
	rm_sb_release(&v);
	rm_tdata_free(d);
}

static void test_yaml_json_depth(void **state)
{
	struct rm_sb s = RM_SB_INIT;
	struct rm_yaml y;
	struct rm_error err;
	json_t *j;

	(void)state;
	rm_sb_init(&s);
	rm_sb_adds(&s, "testcase: x\nunused: ");
	rm_sb_addn(&s, '[', 100000);
	rm_sb_addn(&s, ']', 100000);
	rm_sb_addc(&s, '\n');
	assert_int_equal(rm_yaml_load(&y, "job.yaml", s.buf, s.len, &err), -1);
	assert_string_equal(err.msg, "'job.yaml' line 2 column 72: nested deeper than 64 levels");
	/* 64 levels are fine */
	rm_sb_reset(&s);
	rm_sb_adds(&s, "a: ");
	rm_sb_addn(&s, '[', 63);
	rm_sb_addn(&s, ']', 63);
	assert_int_equal(rm_yaml_load(&y, "ok.yaml", s.buf, s.len, &err), 0);
	rm_yaml_free(&y);
	/* block nesting counts too */
	rm_sb_reset(&s);
	for (int i = 0; i < 70; i++) {
		rm_sb_addn(&s, ' ', (size_t)i);
		rm_sb_adds(&s, "k:\n");
	}
	assert_int_equal(rm_yaml_load(&y, "block.yaml", s.buf, s.len, &err), -1);
	assert_non_null(strstr(err.msg, "nested deeper than 64 levels"));

	rm_sb_reset(&s);
	rm_sb_adds(&s, "{\"a\": \"[[[[\\\"[[\", \"b\": ");
	rm_sb_addn(&s, '[', 100000);
	rm_sb_addn(&s, ']', 100000);
	rm_sb_addc(&s, '}');
	j = rm_json_load("matrix.json", s.buf, s.len, NULL, &err);
	assert_null(j);
	assert_string_equal(err.msg, "'matrix.json' line 1 column 87: nested deeper than 64 levels");
	rm_sb_reset(&s);
	rm_sb_adds(&s, "{\"a\": \"[[[[[[\\\\\", \"b\": ");
	rm_sb_addn(&s, '[', 63);
	rm_sb_addn(&s, ']', 63);
	rm_sb_addc(&s, '}');
	j = rm_json_load("ok.json", s.buf, s.len, NULL, &err);
	assert_non_null(j);
	json_decref(j);
	assert_int_equal(rm_json_check_limits("big.json", "{}", (size_t)RM_JSON_MAX_BYTES + 1, &err), -1);
	assert_non_null(strstr(err.msg, "bytes of JSON; at most"));
	rm_sb_release(&s);
}

const struct CMUnitTest unit_address_tests[] = {
	cmocka_unit_test(test_addr_spec_rule),
	cmocka_unit_test(test_mailbox_parser),
	cmocka_unit_test(test_display_name),
	cmocka_unit_test(test_template_long_values),
	cmocka_unit_test(test_yaml_json_depth),
};
const size_t unit_address_ntests = sizeof(unit_address_tests) / sizeof(unit_address_tests[0]);
