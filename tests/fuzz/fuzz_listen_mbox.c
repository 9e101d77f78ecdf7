/*
 * fuzz_listen_mbox.c - libFuzzer target: arbitrary bytes as the mboxrd a
 * public-inbox search download unpacks to (listen.source public-inbox:URL),
 * split into its mails (rm_listen_mbox_split), each unquoted
 * (rm_listen_mbox_mail) and the first few parsed as `listen` parses them
 * (rm_listen_parse_mail, then the command reader on the body).
 *
 * Invariants: there are as many mails as lines starting "From "; each
 * mail begins right after such a line, the starts increase and (*at)[n] is
 * the length; an unquoted mail is NUL-terminated, no longer than its part
 * of the mbox, and quoting it again (one '>' before each line matching
 * ^>*From ) gives back exactly the bytes from its start up to the next
 * From_ line, where rm_listen_mbox_end says the mail ends (the size
 * RM_LISTEN_MAX_MAIL caps).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "listen.h"
#include "strbuf.h"

/* At most this many mails of one input are parsed (the split and unquoting
 * are checked for all). */
#define PARSE_MAX 8

static int is_from_line(const char *p, const char *end)
{
	return end - p >= 5 && !memcmp(p, "From ", 5);
}

/* The start of the line that ends right before `pos` (ends with the '\n'
 * at pos - 1, or is the mbox's last line, without '\n', when pos is its
 * length). */
static const char *line_before(const char *mbox, size_t pos)
{
	const char *ls;

	if (pos && mbox[pos - 1] == '\n')
		pos--;
	ls = mbox + pos;
	while (ls > mbox && ls[-1] != '\n')
		ls--;
	return ls;
}

/* Quote `s` again as mboxrd does and compare with [p, end). */
static void check_requote(const char *s, size_t n, const char *p, const char *end)
{
	struct rm_sb q = RM_SB_INIT;
	size_t i = 0;

	rm_sb_init(&q);
	while (i < n) {
		const char *eol = memchr(s + i, '\n', n - i);
		size_t next = eol ? (size_t)(eol - s) + 1 : n, k = i;

		while (k < next && s[k] == '>')
			k++;
		if (next - k >= 5 && !memcmp(s + k, "From ", 5))
			rm_sb_addc(&q, '>');
		rm_sb_add(&q, s + i, next - i);
		i = next;
	}
	if (q.len != (size_t)(end - p) || memcmp(q.buf, p, q.len))
		abort();
	rm_sb_release(&q);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *mbox = (const char *)data;
	struct rm_sb one = RM_SB_INIT;
	size_t *at = NULL, n = 0, want = 0, i = 0, k;

	while (i < size) { /* the From_ lines, counted here */
		const char *eol = memchr(mbox + i, '\n', size - i);
		size_t next = eol ? (size_t)(eol - mbox) + 1 : size;

		if (is_from_line(mbox + i, mbox + size))
			want++;
		i = next;
	}
	rm_listen_mbox_split(mbox, size, &at, &n);
	if (n != want || (n && !at) || (!n && at))
		abort();
	if (n && at[n] != size)
		abort();
	rm_sb_init(&one);
	for (k = 0; k < n; k++) {
		const char *start = mbox + at[k], *end = mbox + at[k + 1], *stop;

		if (at[k] > at[k + 1] || (k && at[k - 1] >= at[k]))
			abort();
		/* the line before the mail is a From_ line */
		if (at[k] < size && (!at[k] || mbox[at[k] - 1] != '\n'))
			abort();
		if (!is_from_line(line_before(mbox, at[k]), mbox + size))
			abort();
		/* where the mail stops: the next From_ line */
		stop = k + 1 < n ? line_before(mbox, at[k + 1]) : end;
		if (stop < start)
			abort();
		/* the end whose distance from the start is capped */
		if (mbox + rm_listen_mbox_end(mbox, at, n, k) != stop)
			abort();
		rm_listen_mbox_mail(start, end, &one);
		if (!one.buf || one.buf[one.len] || one.len > (size_t)(stop - start))
			abort();
		check_requote(one.buf, one.len, start, stop);
		if (k < PARSE_MAX) {
			struct rm_inmail m;
			struct rm_error err;

			rm_error_clear(&err);
			if (!rm_listen_parse_mail(one.buf, one.len, &m, &err)) {
				struct rm_listen_cmd *c = NULL;
				size_t nc = 0;

				rm_listen_parse_commands(m.body, &c, &nc);
				rm_listen_cmds_free(c, nc);
				rm_inmail_free(&m);
			}
		}
	}
	rm_sb_release(&one);
	free(at);
	return 0;
}
