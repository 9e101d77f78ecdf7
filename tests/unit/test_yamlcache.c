/*
 * test_yamlcache.c - the parsed rule-file cache (bot/yamlcache.c), in a
 * temporary $XDG_CACHE_HOME of its own: a cold load writes a cache file and
 * a warm load reads it back with the same document node by node (the real
 * rule files and every YAML of the yamldoc tests' made cases); a corrupted,
 * truncated, grown, foreign (magic, version, byte order, libyaml) or
 * colliding cache file, a changed rule file, an unwritable cache place and
 * ROBOTMAIL_CACHE=off all give the document a fresh parse gives; writing a
 * cache file prunes only our own files older than 30 days.
 */
#include "unit.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fileutil.h"
#include "strbuf.h"
#include "yamlcache.h"
#include "yamldoc.h"

#ifndef RM_DATADIR
#define RM_DATADIR "config"
#endif

static char cache_home[256];

int unit_cache_home_open(char *dir, size_t size, const char *tag)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(dir, size, "%s/robotmail-unit-%s.XXXXXX", tmp && *tmp ? tmp : "/tmp", tag);
	if (!mkdtemp(dir))
		return -1;
	setenv("XDG_CACHE_HOME", dir, 1);
	unsetenv("ROBOTMAIL_CACHE");
	return 0;
}

int unit_cache_home_close(const char *dir)
{
	char *cmd = rm_xstrfmt("rm -rf '%s'", dir);
	int rc;

	rc = system(cmd); /* the test's own mkdtemp directory */
	free(cmd);
	setenv("ROBOTMAIL_CACHE", "off", 1); /* as test_main.c left it */
	return rc ? -1 : 0;
}

static int setup(void **state)
{
	(void)state;
	return unit_cache_home_open(cache_home, sizeof(cache_home), "cache");
}

static int teardown(void **state)
{
	(void)state;
	return unit_cache_home_close(cache_home);
}

static int same_mark(yaml_mark_t a, yaml_mark_t b)
{
	return a.index == b.index && a.line == b.line && a.column == b.column;
}

/* Node by node, as test_yamldoc.c does it. */
static void assert_same_doc(const struct rm_yaml *a, const struct rm_yaml *b)
{
	const yaml_document_t *x = &a->doc, *y = &b->doc;
	long n = x->nodes.top - x->nodes.start, i;

	assert_int_equal(n, y->nodes.top - y->nodes.start);
	assert_true(same_mark(x->start_mark, y->start_mark) && same_mark(x->end_mark, y->end_mark));
	assert_int_equal(x->start_implicit, y->start_implicit);
	assert_int_equal(x->end_implicit, y->end_implicit);
	assert_string_equal(a->file, b->file);
	for (i = 0; i < n; i++) {
		const yaml_node_t *p = &x->nodes.start[i], *q = &y->nodes.start[i];

		assert_int_equal(p->type, q->type);
		assert_string_equal((const char *)p->tag, (const char *)q->tag);
		assert_true(same_mark(p->start_mark, q->start_mark) && same_mark(p->end_mark, q->end_mark));
		if (p->type == YAML_SCALAR_NODE) {
			assert_int_equal(p->data.scalar.length, q->data.scalar.length);
			assert_int_equal(p->data.scalar.style, q->data.scalar.style);
			assert_memory_equal(p->data.scalar.value, q->data.scalar.value, p->data.scalar.length + 1);
		} else if (p->type == YAML_SEQUENCE_NODE) {
			long k = p->data.sequence.items.top - p->data.sequence.items.start;

			assert_int_equal(p->data.sequence.style, q->data.sequence.style);
			assert_int_equal(k, q->data.sequence.items.top - q->data.sequence.items.start);
			if (k)
				assert_memory_equal(p->data.sequence.items.start, q->data.sequence.items.start,
						    (size_t)k * sizeof(yaml_node_item_t));
		} else {
			long k = p->data.mapping.pairs.top - p->data.mapping.pairs.start;

			assert_int_equal(p->data.mapping.style, q->data.mapping.style);
			assert_int_equal(k, q->data.mapping.pairs.top - q->data.mapping.pairs.start);
			if (k)
				assert_memory_equal(p->data.mapping.pairs.start, q->data.mapping.pairs.start,
						    (size_t)k * sizeof(yaml_node_pair_t));
		}
	}
}

/* Load through the cache; compare with a plain parse; return whether the
 * document came from the cache. */
static int load_compare(const char *buf, size_t len)
{
	struct rm_yaml plain, cached;
	struct rm_error err;
	int hit;

	assert_int_equal(rm_yaml_load(&plain, "rules.yaml", buf, len, &err), 0);
	assert_int_equal(rm_yamlcache_load(&cached, "rules.yaml", buf, len, &err), 0);
	assert_null(plain.arena);
	assert_same_doc(&plain, &cached);
	/* the lookups callers make work the same */
	if (rm_yaml_root(&plain)) {
		assert_non_null(rm_yaml_root(&cached));
		assert_int_equal(rm_yaml_line(rm_yaml_root(&plain)), rm_yaml_line(rm_yaml_root(&cached)));
	}
	hit = cached.arena != NULL;
	rm_yaml_free(&plain);
	rm_yaml_free(&cached);
	return hit;
}

static char *read_data(const char *name, size_t *len)
{
	char *p = rm_path_join(RM_DATADIR, name), *buf;
	struct rm_error err;

	assert_int_equal(rm_read_file(p, 1 << 24, &buf, len, &err), 0);
	free(p);
	return buf;
}

static unsigned char *read_image(const char *path, size_t *size)
{
	char *buf;
	struct rm_error err;

	assert_int_equal(rm_read_file(path, 1 << 28, &buf, size, &err), 0);
	return (unsigned char *)buf;
}

static void write_image(const char *path, const void *img, size_t size)
{
	assert_int_equal(rm_write_file(path, img, size), 0);
}

static void test_cold_then_warm(void **state)
{
	static const char *const files[] = { "metrics.yaml", "lkp-programs.yaml", "eras.yaml" };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		size_t len;
		char *buf = read_data(files[i], &len);
		char *path = rm_yamlcache_path(buf, len);
		struct stat st;

		assert_non_null(path);
		assert_non_null(strstr(path, cache_home));
		unlink(path);
		assert_false(load_compare(buf, len)); /* cold: parsed, then written */
		assert_int_equal(stat(path, &st), 0);
		assert_int_equal(st.st_mode & 0777, 0600);
		assert_true(load_compare(buf, len)); /* warm: read back */
		free(path);
		free(buf);
	}
	{
		char *dir = rm_path_join(cache_home, "robotmail");
		struct stat st;

		assert_int_equal(stat(dir, &st), 0);
		assert_int_equal(st.st_mode & 0777, 0700);
		free(dir);
	}
}

/* Documents of every shape: each is cached (or not, with directives) and
 * read back equal. */
static void test_shapes(void **state)
{
	static const char *const cases[] = {
		"", "# comment\n", "--- ~\n", "a: 1\n", "a: &x [1, 2]\nb: *x\n", "&r [*r]\n",
		"!!str a: !foo b\nc: ! d\n! e: !<tag:x> f\n", "{a: 1, a: 2, b: {c: [d, {e: f}]}}\n",
		"- a\n-\n- - c\n  - d\n- []\n- {}\n", "a: 'x'\nb: \"\\x41\\0z\"\nc: |\n  lit\nd: >-\n  f\n",
		"a: 1\n---\nb: 2\n", "%YAML 1.1\n---\na: 1\n", "%TAG !e! tag:example.org,2002:\n--- !e!x\na: 1\n",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len = strlen(cases[i]);
		int directives = strchr(cases[i], '%') != NULL;

		assert_false(load_compare(cases[i], len));
		assert_int_equal(load_compare(cases[i], len), !directives);
	}
}

static void test_bad_images(void **state)
{
	size_t len, size, cut;
	char *buf = read_data("eras.yaml", &len);
	char *path = rm_yamlcache_path(buf, len);
	unsigned char *good, *img;
	size_t at;

	(void)state;
	unlink(path);
	assert_false(load_compare(buf, len));
	good = read_image(path, &size);
	assert_true(load_compare(buf, len));
	/* a flipped byte anywhere: header, YAML bytes, nodes, strings, checksum */
	for (at = 0; at < size; at += size / 97 + 1) {
		img = malloc(size);
		memcpy(img, good, size);
		img[at] ^= 0x20;
		write_image(path, img, size);
		assert_false(load_compare(buf, len)); /* ignored and written again */
		assert_true(load_compare(buf, len));
		free(img);
	}
	/* truncated, empty, grown */
	for (cut = 0; cut < size; cut += size / 13 + 1) {
		write_image(path, good, cut);
		assert_false(load_compare(buf, len));
	}
	img = malloc(size + 8);
	memcpy(img, good, size);
	memset(img + size, 0, 8);
	write_image(path, img, size + 8);
	assert_false(load_compare(buf, len));
	/* foreign: another magic, version, byte order, libyaml, each with a
	 * right checksum so that only the check of that field refuses it */
	{
		static const size_t fields[] = { 0, 8, 12, 16 };
		size_t f;

		for (f = 0; f < sizeof(fields) / sizeof(fields[0]); f++) {
			uint64_t sum;

			memcpy(img, good, size);
			img[fields[f]] ^= 1;
			sum = rm_yamlcache_hash(img, size - 8);
			memcpy(img + size - 8, &sum, 8);
			write_image(path, img, size);
			assert_false(load_compare(buf, len));
			assert_true(load_compare(buf, len));
		}
	}
	/* a directory where the file should be */
	unlink(path);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_false(load_compare(buf, len));
	assert_false(load_compare(buf, len));
	assert_int_equal(rmdir(path), 0);
	/* no temp file left behind by any of the failed writes */
	{
		char *dir = rm_path_join(cache_home, "robotmail");
		DIR *d = opendir(dir);
		struct dirent *de;

		assert_non_null(d);
		while ((de = readdir(d)))
			assert_false(!strncmp(de->d_name, ".yaml-", 6));
		closedir(d);
		free(dir);
	}
	free(img);
	free(good);
	free(path);
	free(buf);
}

/* A cache file under the name of other bytes (a hash collision, or a file
 * copied by hand): the bytes differ, so it is not used. */
static void test_collision_and_change(void **state)
{
	const char *a = "x: 1\ny: [a, b]\n", *b = "x: 2\ny: [a, c]\n";
	char *pa = rm_yamlcache_path(a, strlen(a)), *pb = rm_yamlcache_path(b, strlen(b));
	unsigned char *img;
	size_t size;

	(void)state;
	assert_string_not_equal(pa, pb);
	assert_false(load_compare(a, strlen(a)));
	assert_true(load_compare(a, strlen(a)));
	img = read_image(pa, &size);
	write_image(pb, img, size);
	/* b's place holds a's document: b is parsed (and its own written) */
	assert_false(load_compare(b, strlen(b)));
	assert_true(load_compare(b, strlen(b)));
	/* a changed rule file: another name, parsed again; the old one stays valid */
	assert_true(load_compare(a, strlen(a)));
	{
		struct rm_yaml y;
		unsigned char *back = malloc(size);

		/* decode checks the bytes itself, whatever the name */
		memcpy(back, img, size);
		assert_int_equal(rm_yamlcache_decode(&y, "f", b, strlen(b), back, size), -1);
		back = malloc(size);
		memcpy(back, img, size);
		assert_int_equal(rm_yamlcache_decode(&y, "f", a, strlen(a), back, size), 0);
		assert_string_equal(rm_yaml_scalar(rm_yaml_get(&y, rm_yaml_root(&y), "x")), "1");
		rm_yaml_free(&y);
	}
	free(img);
	free(pa);
	free(pb);
}

static void test_off_and_unwritable(void **state)
{
	const char *a = "off: [1, 2, 3]\n";
	char *path, *file, *home = getenv("HOME") ? rm_xstrdup(getenv("HOME")) : NULL;
	struct stat st;

	(void)state;
	setenv("ROBOTMAIL_CACHE", "off", 1);
	assert_null(rm_yamlcache_path(a, strlen(a)));
	assert_false(load_compare(a, strlen(a)));
	assert_false(load_compare(a, strlen(a)));
	unsetenv("ROBOTMAIL_CACHE");
	path = rm_yamlcache_path(a, strlen(a));
	assert_int_equal(stat(path, &st), -1);
	free(path);
	/* a relative $XDG_CACHE_HOME is not used (XDG says so); $HOME then */
	setenv("XDG_CACHE_HOME", "relative", 1);
	setenv("HOME", cache_home, 1);
	path = rm_yamlcache_path(a, strlen(a));
	assert_non_null(strstr(path, "/.cache/robotmail/"));
	free(path);
	if (home)
		setenv("HOME", home, 1);
	else
		unsetenv("HOME");
	free(home);
	/* the cache's place is a file: no cache, same document, no error */
	file = rm_path_join(cache_home, "a-file");
	write_image(file, "x", 1);
	setenv("XDG_CACHE_HOME", file, 1);
	assert_false(load_compare(a, strlen(a)));
	assert_false(load_compare(a, strlen(a)));
	setenv("XDG_CACHE_HOME", cache_home, 1);
	free(file);
	/* errors are never cached: the same error each time */
	{
		struct rm_yaml y;
		struct rm_error e1, e2;

		assert_int_equal(rm_yamlcache_load(&y, "bad.yaml", "a: [1\n", 6, &e1), -1);
		assert_int_equal(rm_yamlcache_load(&y, "bad.yaml", "a: [1\n", 6, &e2), -1);
		assert_string_equal(e1.msg, e2.msg);
		assert_non_null(strstr(e1.msg, "'bad.yaml' line "));
	}
}

static void touch_aged(const char *dir, const char *name, int days)
{
	char *p = rm_path_join(dir, name);
	struct timespec t[2];

	write_image(p, "x", 1);
	clock_gettime(CLOCK_REALTIME, &t[0]);
	t[0].tv_sec -= (time_t)days * 24 * 3600;
	t[1] = t[0];
	assert_int_equal(utimensat(AT_FDCWD, p, t, 0), 0);
	free(p);
}

static int exists_in(const char *dir, const char *name)
{
	char *p = rm_path_join(dir, name);
	struct stat st;
	int rc = !lstat(p, &st);

	free(p);
	return rc;
}

/* Writing a cache file removes ours older than 30 days, nothing else. */
static void test_prune(void **state)
{
	const char *a = "prune: [me, not]\n";
	char *dir = rm_path_join(cache_home, "robotmail");

	(void)state;
	assert_true(!mkdir(dir, 0700) || errno == EEXIST);
	touch_aged(dir, "yaml-0123456789abcdef.bin", 40);
	touch_aged(dir, ".yaml-Ab12Cd", 40);
	touch_aged(dir, "yaml-fedcba9876543210.bin", 20);
	touch_aged(dir, "yaml-0123456789ABCDEF.bin", 40); /* not a name we write */
	touch_aged(dir, "notes.txt", 40);
	assert_false(load_compare(a, strlen(a)));
	assert_false(exists_in(dir, "yaml-0123456789abcdef.bin"));
	assert_false(exists_in(dir, ".yaml-Ab12Cd"));
	assert_true(exists_in(dir, "yaml-fedcba9876543210.bin"));
	assert_true(exists_in(dir, "yaml-0123456789ABCDEF.bin"));
	assert_true(exists_in(dir, "notes.txt"));
	/* a warm load writes nothing, so prunes nothing */
	touch_aged(dir, "yaml-0123456789abcdef.bin", 40);
	assert_true(load_compare(a, strlen(a)));
	assert_true(exists_in(dir, "yaml-0123456789abcdef.bin"));
	free(dir);
}

const struct CMUnitTest unit_yamlcache_tests[] = {
	cmocka_unit_test(test_cold_then_warm),
	cmocka_unit_test(test_shapes),
	cmocka_unit_test(test_bad_images),
	cmocka_unit_test(test_collision_and_change),
	cmocka_unit_test(test_off_and_unwritable),
	cmocka_unit_test(test_prune),
};
const size_t unit_yamlcache_ntests = sizeof(unit_yamlcache_tests) / sizeof(unit_yamlcache_tests[0]);

int unit_yamlcache_setup(void **state)
{
	return setup(state);
}

int unit_yamlcache_teardown(void **state)
{
	return teardown(state);
}
