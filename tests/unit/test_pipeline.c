/* test_pipeline.c - the stages around the report loop: threading (message.c),
 * the store's report and thread records, and the inbox rules. */
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "fileutil.h"
#include "inbox.h"
#include "message.h"
#include "store.h"
#include "strbuf.h"

/* a private directory under $TMPDIR, removed by rmtree() */
static char *tmpdir(void)
{
	const char *t = getenv("TMPDIR");
	char *d = rm_path_join(t && *t ? t : "/tmp", "robotmail-unit.XXXXXX");

	assert_non_null(mkdtemp(d));
	return d;
}

static void rmtree(const char *d)
{
	struct rm_sb cmd = RM_SB_INIT;

	rm_sb_init(&cmd);
	rm_sb_addf(&cmd, "rm -rf '%s'", d);
	assert_int_equal(system(cmd.buf), 0);
	rm_sb_release(&cmd);
}

static void test_thread_new_and_patch_reply(void **state)
{
	struct rm_thread t;

	(void)state;
	rm_message_thread(NULL, "id1@example.org", NULL, "[t:b] x: y 1% regression", &t);
	assert_null(t.in_reply_to);
	assert_int_equal(t.nrefs, 0);
	assert_false(t.send_refs);
	assert_string_equal(t.subject, "[t:b] x: y 1% regression");
	assert_null(rm_message_thread_refs_text(&t));
	rm_message_thread_free(&t);

	/* a patch reply: In-Reply-To only, "Re: " once */
	rm_message_thread(NULL, "id1@example.org", "patch@example.org", "Re: [PATCH] mm: fix", &t);
	assert_string_equal(t.in_reply_to, "patch@example.org");
	assert_null(t.first_id);
	assert_false(t.send_refs);
	assert_int_equal(t.nrefs, 1);
	assert_string_equal(t.subject, "Re: [PATCH] mm: fix");
	rm_message_thread_free(&t);
}

static void test_thread_follow_up(void **state)
{
	struct rm_thread_first f = { (char *)"first@example.org", (char *)"Re: Re: [PATCH] mm: fix",
				     (char *)"patch@example.org\nold@example.org\n" };
	struct rm_thread t;
	char *refs;

	(void)state;
	rm_message_thread(&f, "second@example.org", "patch@example.org", "[PATCH] mm: fix", &t);
	assert_string_equal(t.in_reply_to, "first@example.org");
	assert_string_equal(t.first_id, "first@example.org");
	assert_true(t.send_refs);
	assert_int_equal(t.nrefs, 3);
	assert_string_equal(t.refs[0], "patch@example.org");
	assert_string_equal(t.refs[1], "old@example.org");
	assert_string_equal(t.refs[2], "first@example.org");
	assert_string_equal(t.subject, "Re: [PATCH] mm: fix");
	refs = rm_message_thread_refs_text(&t);
	assert_string_equal(refs, "patch@example.org\nold@example.org\nfirst@example.org");
	free(refs);
	rm_message_thread_free(&t);

	/* the first mail itself is no follow-up of itself */
	rm_message_thread(&f, "first@example.org", NULL, "[t:b] s", &t);
	assert_null(t.in_reply_to);
	assert_string_equal(t.subject, "[t:b] s");
	rm_message_thread_free(&t);
}

static void test_store_threads_and_reports(void **state)
{
	char *d = tmpdir(), *db = rm_path_join(d, "state.db");
	struct rm_store *ob = NULL;
	struct rm_store_msg m;
	struct rm_thread_first f;
	struct rm_error err;
	char *rcpts[] = { (char *)"a@example.org" }, *id = NULL;
	time_t at = 0;

	(void)state;
	rm_error_clear(&err);
	assert_int_equal(rm_store_open(&ob, db, RM_STORE_READWRITE, &err), 0);
	memset(&m, 0, sizeof(m));
	m.message_id = (char *)"first@example.org";
	m.dedupe_key = (char *)"t:b|base|head|axes|metric";
	m.thread_key = (char *)"t:b|head|axes|metric|regression";
	m.refs = (char *)"patch@example.org";
	m.subject = (char *)"Re: s";
	m.mail_from = (char *)"robot@example.org";
	m.rcpts = rcpts;
	m.nrcpts = 1;
	m.bytes = (char *)"x\r\n";
	m.len = 3;
	m.state = RM_STORE_QUEUED;
	assert_int_equal(rm_store_enqueue(ob, &m, 1000, &err), 1);
	/* a reflected copy: no dedupe key, no thread key */
	m.message_id = (char *)"first-reflect-1@example.org";
	m.dedupe_key = NULL;
	m.thread_key = NULL;
	assert_int_equal(rm_store_enqueue(ob, &m, 1001, &err), 1);

	assert_int_equal(rm_message_thread_first(ob, "t:b|head|axes|metric|regression", &f, &err), 1);
	assert_string_equal(f.message_id, "first@example.org");
	assert_string_equal(f.subject, "Re: s");
	assert_string_equal(f.refs, "patch@example.org");
	rm_message_thread_first_free(&f);
	/* another direction is another finding */
	assert_int_equal(rm_message_thread_first(ob, "t:b|head|axes|metric|improvement", &f, &err), 0);
	assert_null(f.message_id);
	assert_int_equal(rm_message_thread_first(NULL, "t:b|head|axes|metric|regression", &f, &err), 0);

	assert_int_equal(rm_store_report_get(ob, "t:b|base|head|axes|metric", &id, &at, &err), 1);
	assert_string_equal(id, "first@example.org");
	assert_int_equal((long)at, 1000);
	free(id);
	assert_int_equal(rm_store_report_get(ob, "other", &id, &at, &err), 0);
	assert_null(id);
	assert_int_equal(rm_store_report_get(NULL, "other", &id, &at, &err), 0);
	rm_store_close(ob);
	rmtree(d);
	free(db);
	free(d);
}

static void touch_file(const char *dir, const char *name)
{
	char *p = rm_path_join(dir, name);

	assert_int_equal(rm_write_file(p, "x", 1), 0);
	free(p);
}

static void test_inbox_links(void **state)
{
	char *d = tmpdir(), *ok_dir = rm_path_join(d, "ok"), *no_dir = rm_path_join(d, "no");
	char *in = rm_path_join(d, "in"), *l1 = rm_path_join(in, "l1"), *l2 = rm_path_join(in, "l2");
	char *l3 = rm_path_join(in, "l3"), *t1 = rm_path_join(ok_dir, "a.tar");
	char *t2 = rm_path_join(no_dir, "b.tar"), *why = NULL;
	char *roots_v[] = { ok_dir };
	struct rm_strlist none = { NULL, 0 }, roots = { roots_v, 1 };

	(void)state;
	assert_int_equal(mkdir(ok_dir, 0755), 0);
	assert_int_equal(mkdir(no_dir, 0755), 0);
	assert_int_equal(mkdir(in, 0755), 0);
	touch_file(ok_dir, "a.tar");
	touch_file(no_dir, "b.tar");
	assert_int_equal(symlink(t1, l1), 0);
	assert_int_equal(symlink(t2, l2), 0);
	assert_int_equal(symlink("/nonexistent/robotmail-unit", l3), 0);

	assert_int_equal(rm_inbox_link_allowed(l1, &roots, &why), 0);
	assert_null(why);
	assert_int_equal(rm_inbox_link_allowed(l1, &none, &why), -1);
	assert_non_null(strstr(why, "paths.inbox_links allows none"));
	free(why);
	assert_int_equal(rm_inbox_link_allowed(l2, &roots, &why), -1);
	assert_non_null(strstr(why, "outside every directory of paths.inbox_links"));
	free(why);
	assert_int_equal(rm_inbox_link_allowed(l3, &roots, &why), -1);
	assert_non_null(strstr(why, "cannot be resolved"));
	free(why);
	rmtree(d);
	free(d);
	free(ok_dir);
	free(no_dir);
	free(in);
	free(l1);
	free(l2);
	free(l3);
	free(t1);
	free(t2);
}

static void test_inbox_scan(void **state)
{
	char *d = tmpdir(), *fifo = rm_path_join(d, "pipe"), *link = rm_path_join(d, "link");
	char *sub = rm_path_join(d, "dir.d");
	struct rm_config cfg;
	struct rm_inbox_scan s;
	struct rm_error err;

	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	cfg.inbox = d;
	cfg.settle = 60;
	touch_file(d, "b.tar");
	touch_file(d, "a.tar");
	touch_file(d, "fresh.tar");
	touch_file(d, "fresh.tar.done"); /* finished by its marker */
	touch_file(d, "new.tar");        /* no marker: waits for `settle` */
	touch_file(d, ".hidden");
	assert_int_equal(mkdir(sub, 0755), 0);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(symlink("a.tar", link), 0);
	rm_error_clear(&err);
	/* at the files' own time: only marked archives are finished */
	assert_int_equal(rm_inbox_scan(&cfg, time(NULL), 0, &s, &err), 0);
	assert_int_equal(s.nready, 1);
	assert_string_equal(strrchr(s.ready[0], '/'), "/fresh.tar");
	assert_int_equal(s.nwaiting, 4);
	assert_int_equal(s.nrefused, 2);
	assert_string_equal(strrchr(s.refused[0].path, '/'), "/link");
	assert_non_null(strstr(s.refused[0].reason, "a symlink"));
	assert_string_equal(strrchr(s.refused[1].path, '/'), "/pipe");
	assert_string_equal(s.refused[1].reason, "a FIFO, not an archive");
	rm_inbox_scan_free(&s);
	/* an hour later every one is settled, sorted by name */
	assert_int_equal(rm_inbox_scan(&cfg, time(NULL) + 3600, 0, &s, &err), 0);
	assert_int_equal(s.nready, 5);
	assert_string_equal(strrchr(s.ready[0], '/'), "/a.tar");
	assert_string_equal(strrchr(s.ready[1], '/'), "/b.tar");
	assert_string_equal(strrchr(s.ready[2], '/'), "/dir.d");
	assert_int_equal(s.nwaiting, 0);
	rm_inbox_scan_free(&s);
	/* moving takes the marker along */
	{
		char *p = rm_path_join(d, "fresh.tar"), *done = rm_path_join(d, "done");
		char *m = rm_path_join(d, "fresh.tar.done"), *moved = rm_path_join(done, "fresh.tar");

		char *again = rm_path_join(done, "fresh.tar.1");

		assert_int_equal(rm_inbox_move(p, done, &err), 0);
		assert_int_equal(access(moved, F_OK), 0);
		assert_int_equal(access(m, F_OK), -1);
		/* the same name again: a suffix, the first one stays */
		touch_file(d, "fresh.tar");
		assert_int_equal(rm_inbox_move(p, done, &err), 0);
		assert_int_equal(access(moved, F_OK), 0);
		assert_int_equal(access(again, F_OK), 0);
		free(again);
		free(p);
		free(done);
		free(m);
		free(moved);
	}
	/* a missing inbox is an empty one */
	cfg.inbox = fifo;
	unlink(fifo);
	assert_int_equal(rm_inbox_scan(&cfg, time(NULL), 0, &s, &err), 0);
	assert_int_equal(s.nready + s.nrefused, 0);
	rmtree(d);
	free(d);
	free(fifo);
	free(link);
	free(sub);
}

const struct CMUnitTest unit_pipeline_tests[] = {
	cmocka_unit_test(test_thread_new_and_patch_reply),
	cmocka_unit_test(test_thread_follow_up),
	cmocka_unit_test(test_store_threads_and_reports),
	cmocka_unit_test(test_inbox_links),
	cmocka_unit_test(test_inbox_scan),
};
const size_t unit_pipeline_ntests = sizeof(unit_pipeline_tests) / sizeof(unit_pipeline_tests[0]);
