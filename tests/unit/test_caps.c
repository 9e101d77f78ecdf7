/* test_caps.c - the cap on one inbound mail (RM_LISTEN_MAX_MAIL): a mail
 * just under it is read, one just over it is skipped unparsed, warned
 * about (source, Message-ID or name, place, size), counted and remembered,
 * so the next pass neither reads nor warns about it again; the rest of the
 * source is read.  The mails are made here, at the cap's size. */
#include "unit.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "fileutil.h"
#include "listen.h"
#include "store.h"
#include "strbuf.h"

/* A mail of exactly `total` bytes into sb (added): a header (with a
 * Message-ID unless msgid is NULL) and body lines of 'x'. */
static void make_mail(struct rm_sb *sb, const char *msgid, const char *from, size_t total)
{
	size_t start = sb->len, left;

	rm_sb_addf(sb, "From: %s\nTo: lkp@example.org\nSubject: a long mail\n", from);
	if (msgid)
		rm_sb_addf(sb, "Message-ID: <%s>\n", msgid);
	rm_sb_adds(sb, "\n");
	assert_true(sb->len - start < total);
	while ((left = total - (sb->len - start)) > 0) {
		size_t line = left > 77 ? 77 : left;

		rm_sb_addn(sb, 'x', line - 1);
		rm_sb_addc(sb, '\n');
	}
	assert_int_equal(sb->len - start, total);
}

/* stderr into a file while a pass runs, then read back. */
struct capture {
	int saved;
	char path[64];
};

static void capture_begin(struct capture *c)
{
	const char *t = getenv("TMPDIR");
	int fd;

	snprintf(c->path, sizeof(c->path), "%s/robotmail-caps.XXXXXX", t && *t && strlen(t) < 30 ? t : "/tmp");
	fd = mkstemp(c->path);
	assert_true(fd >= 0);
	fflush(stderr);
	c->saved = dup(2);
	assert_true(c->saved >= 0);
	assert_int_equal(dup2(fd, 2), 2);
	close(fd);
}

static char *capture_end(struct capture *c)
{
	char *buf = NULL;
	size_t len;
	struct rm_error err;

	fflush(stderr);
	assert_int_equal(dup2(c->saved, 2), 2);
	close(c->saved);
	assert_int_equal(rm_read_file(c->path, 1u << 20, &buf, &len, &err), 0);
	unlink(c->path);
	return buf;
}

#define PI "public-inbox:http://pi.example.org/test"

/* One pass over the download (mbox != NULL, as source PI) or over cfg's
 * sources, at `now`: its stats into *ls, what it said on stderr returned
 * (malloc'd). */
static char *pass(const struct rm_config *cfg, struct rm_store *st, time_t now,
		  const struct rm_sb *mbox, struct rm_listen_stats *ls)
{
	struct rm_error err;
	struct capture cap;

	memset(ls, 0, sizeof(*ls));
	capture_begin(&cap);
	if (mbox)
		assert_int_equal(rm_listen_mbox_read(cfg, st, now, PI, mbox->buf, mbox->len, ls, &err), 0);
	else
		assert_int_equal(rm_listen_run(cfg, st, now, ls, &err), 0);
	return capture_end(&cap);
}

static void test_mbox_mail_cap(void **state)
{
	struct rm_config cfg;
	struct rm_store *st = unit_fresh_store();
	struct rm_listen_stats ls;
	struct rm_error err;
	struct rm_sb mbox = RM_SB_INIT;
	size_t over_at;
	char *log, want[200];
	bool seen;

	(void)state;
	assert_int_equal(rm_config_load(&cfg, NULL, &err), 0);
	rm_sb_init(&mbox);
	/* newest first, as public-inbox answers; every mail but the last ends
	 * at the next one's From_ line, which its size does not count */
	rm_sb_adds(&mbox, "From mboxrd@z Thu Jan  1 00:00:00 1970\n");
	make_mail(&mbox, "s2@example.org", "ann@example.org", 300);
	rm_sb_adds(&mbox, "From mboxrd@z Thu Jan  1 00:00:00 1970\n");
	over_at = mbox.len;
	make_mail(&mbox, "over@example.org", "bob@example.org", RM_LISTEN_MAX_MAIL + 1);
	rm_sb_adds(&mbox, "From mboxrd@z Thu Jan  1 00:00:00 1970\n");
	make_mail(&mbox, "under@example.org", "cid@example.org", RM_LISTEN_MAX_MAIL);
	rm_sb_adds(&mbox, "From mboxrd@z Thu Jan  1 00:00:00 1970\n");
	make_mail(&mbox, NULL, "dan@example.org", RM_LISTEN_MAX_MAIL + 100); /* no Message-ID */
	rm_sb_adds(&mbox, "From mboxrd@z Thu Jan  1 00:00:00 1970\n");
	make_mail(&mbox, "s1@example.org", "eve@example.org", 300);
	rm_sb_adds(&mbox, "From mboxrd@z Thu Jan  1 00:00:00 1970\n");
	make_mail(&mbox, "last@example.org", "fay@example.org", RM_LISTEN_MAX_MAIL + 1);

	log = pass(&cfg, st, 1000, &mbox, &ls);
	/* the three under the cap read (none is a reply: ignored), three skipped */
	assert_int_equal(ls.read, 3);
	assert_int_equal(ls.ignored, 3);
	assert_int_equal(ls.oversize, 3);
	snprintf(want, sizeof(want),
		 "robotmail: listen: warning: '" PI "': <over@example.org> (the download's mail at byte %zu):"
		 " skipped: %u bytes, over the 4 MiB cap of one mail (not parsed)\n",
		 over_at, RM_LISTEN_MAX_MAIL + 1);
	assert_non_null(strstr(log, want));
	assert_non_null(strstr(log, "<last@example.org> (the download's mail at byte "));
	assert_non_null(strstr(log, "<mbox:")); /* no Message-ID: named by its bytes */
	assert_non_null(strstr(log, "<under@example.org>: ignored: not a reply to a report"));
	assert_null(strstr(log, "<under@example.org> ("));
	free(log);
	/* remembered, each under the name it was warned about */
	assert_int_equal(rm_store_inbound_seen(st, PI, "over@example.org", &seen, &err), 0);
	assert_true(seen);
	assert_int_equal(rm_store_inbound_seen(st, PI, "last@example.org", &seen, &err), 0);
	assert_true(seen);
	assert_int_equal(rm_store_inbound_seen(st, PI, "under@example.org", &seen, &err), 0);
	assert_true(seen);

	/* the next pass over the same download: nothing read, skipped or said */
	log = pass(&cfg, st, 1100, &mbox, &ls);
	assert_int_equal(ls.read, 0);
	assert_int_equal(ls.oversize, 0);
	assert_string_equal(log, "");
	free(log);
	rm_sb_release(&mbox);
	rm_store_close(st);
	rm_config_free(&cfg);
}

/* A Maildir file over the cap: skipped, named by its Message-ID or, without
 * one, by its file name; a file at the cap is read. */
static void test_maildir_mail_cap(void **state)
{
	const char *t = getenv("TMPDIR");
	char *d = rm_path_join(t && *t ? t : "/tmp", "robotmail-unit.XXXXXX"), *p, *log;
	struct rm_config cfg;
	struct rm_store *st = unit_fresh_store();
	struct rm_listen_stats ls;
	struct rm_error err;
	struct rm_sb m = RM_SB_INIT;
	static const char *const sub[] = { "new", "cur", "tmp" };
	static const struct {
		const char *file, *msgid;
		size_t size;
	} mails[] = {
		{ "1700000001.M1P1.test", "md-under@example.org", RM_LISTEN_MAX_MAIL },
		{ "1700000002.M2P1.test", "md-over@example.org", RM_LISTEN_MAX_MAIL + 1 },
		{ "1700000003.M3P1.test", NULL, RM_LISTEN_MAX_MAIL + 7 },
		{ "1700000004.M4P1.test", "md-small@example.org", 200 },
	};
	size_t i;
	bool seen;

	(void)state;
	assert_non_null(mkdtemp(d));
	for (i = 0; i < 3; i++) {
		p = rm_path_join(d, sub[i]);
		assert_int_equal(rm_mkdir_p(p), 0);
		free(p);
	}
	rm_sb_init(&m);
	for (i = 0; i < sizeof(mails) / sizeof(mails[0]); i++) {
		char *rel = rm_xstrfmt("new/%s", mails[i].file);

		rm_sb_reset(&m);
		make_mail(&m, mails[i].msgid, "ann@example.org", mails[i].size);
		p = rm_path_join(d, rel);
		assert_int_equal(rm_write_file(p, m.buf, m.len), 0);
		free(p);
		free(rel);
	}
	assert_int_equal(rm_config_load(&cfg, NULL, &err), 0);
	cfg.listen = calloc(1, sizeof(*cfg.listen));
	cfg.listen[0].source = rm_xstrfmt("maildir:%s", d);
	cfg.nlisten = 1;

	log = pass(&cfg, st, 1000, NULL, &ls);
	assert_int_equal(ls.read, 2);
	assert_int_equal(ls.oversize, 2);
	p = rm_xstrfmt("robotmail: listen: warning: '%s': <md-over@example.org> (Maildir file %s):"
		       " skipped: %u bytes, over the 4 MiB cap of one mail (not parsed)\n",
		       cfg.listen[0].source, mails[1].file, RM_LISTEN_MAX_MAIL + 1);
	assert_non_null(strstr(log, p));
	free(p);
	p = rm_xstrfmt("<%s> (Maildir file %s): skipped: %u bytes", mails[2].file, mails[2].file,
		       RM_LISTEN_MAX_MAIL + 7);
	assert_non_null(strstr(log, p));
	free(p);
	assert_non_null(strstr(log, "<md-small@example.org>: ignored"));
	free(log);
	assert_int_equal(rm_store_inbound_seen(st, cfg.listen[0].source, "md-over@example.org", &seen, &err), 0);
	assert_true(seen);
	assert_int_equal(rm_store_inbound_seen(st, cfg.listen[0].source, mails[2].file, &seen, &err), 0);
	assert_true(seen);

	/* the next pass: nothing read, skipped or said */
	log = pass(&cfg, st, 1100, NULL, &ls);
	assert_int_equal(ls.read, 0);
	assert_int_equal(ls.oversize, 0);
	assert_string_equal(log, "");
	free(log);

	for (i = 0; i < sizeof(mails) / sizeof(mails[0]); i++) {
		char *rel = rm_xstrfmt("new/%s", mails[i].file);

		p = rm_path_join(d, rel);
		unlink(p);
		free(p);
		free(rel);
	}
	for (i = 0; i < 3; i++) {
		p = rm_path_join(d, sub[i]);
		rmdir(p);
		free(p);
	}
	rmdir(d);
	free(d);
	rm_sb_release(&m);
	rm_store_close(st);
	rm_config_free(&cfg);
}

/* The pass's line names the skipped mails only when there are some (the
 * line without them is the one scripts and the suites read). */
static void test_stats_line(void **state)
{
	struct rm_listen_stats ls = { 2, 1, 0, 1, 0, 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	rm_listen_stats_print(&ls, f);
	ls.oversize = 3;
	rm_listen_stats_print(&ls, f);
	fclose(f);
	assert_string_equal(buf,
			    "robotmail: listen: 2 read, 1 ignored, 0 refused, 1 command(s) applied, 0 answer(s) queued\n"
			    "robotmail: listen: 2 read, 1 ignored, 0 refused, 1 command(s) applied, 0 answer(s) queued,"
			    " 3 skipped (over the 4 MiB cap of one mail)\n");
	free(buf);
}

const struct CMUnitTest unit_caps_tests[] = {
	cmocka_unit_test(test_stats_line),
	cmocka_unit_test(test_mbox_mail_cap),
	cmocka_unit_test(test_maildir_mail_cap),
};
const size_t unit_caps_ntests = sizeof(unit_caps_tests) / sizeof(unit_caps_tests[0]);
