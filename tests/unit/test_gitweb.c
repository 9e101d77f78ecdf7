/* test_gitweb.c - the engine's rules that need no server: where a token may
 * go (same origin: scheme, host, port), escaping. */
#include "unit.h"

#include <stdlib.h>
#include <string.h>

#include "gitweb.h"

static void test_same_origin(void **state)
{
	(void)state;
	assert_true(rm_gitweb_same_origin("https://gitlab.example.org/api/v4/projects/42",
					  "https://GitLab.Example.org:443/other/path?x=1"));
	assert_true(rm_gitweb_same_origin("http://127.0.0.1:8080/a", "http://127.0.0.1:8080/b"));
	/* another port, another host, and https -> http are other origins */
	assert_false(rm_gitweb_same_origin("http://127.0.0.1:8080/a", "http://127.0.0.1:8081/a"));
	assert_false(rm_gitweb_same_origin("https://forge.example.org/a", "https://evil.example.org/a"));
	assert_false(rm_gitweb_same_origin("https://forge.example.org/a", "http://forge.example.org/a"));
	assert_false(rm_gitweb_same_origin("https://forge.example.org/a",
					   "https://forge.example.org.evil.example/a"));
	/* user info does not make a host */
	assert_false(rm_gitweb_same_origin("https://forge.example.org/a",
					   "https://forge.example.org@evil.example.org/a"));
	assert_false(rm_gitweb_same_origin("/relative/path", "/relative/path"));
}

static void test_escape(void **state)
{
	char *e;

	(void)state;
	e = rm_gitweb_escape("a b/c@d%");
	assert_string_equal(e, "a%20b%2Fc%40d%25");
	free(e);
	e = rm_gitweb_unescape("group%2Fproject");
	assert_string_equal(e, "group/project");
	free(e);
}

const struct CMUnitTest unit_gitweb_tests[] = {
	cmocka_unit_test(test_same_origin),
	cmocka_unit_test(test_escape),
};
const size_t unit_gitweb_ntests = sizeof(unit_gitweb_tests) / sizeof(unit_gitweb_tests[0]);
