/* notice.c - see notice.h. */
#include "notice.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileutil.h"
#include "store.h"
#include "strbuf.h"

#define SAID_MAX (1 << 20) /* bytes: the file keeps only keys of the last period */

bool rm_notice_due(const char *state_db, const char *key, time_t now, long period)
{
	struct rm_sb path = RM_SB_INIT, tmp = RM_SB_INIT, out = RM_SB_INIT;
	struct rm_error e;
	char *buf = NULL, *line, *next;
	size_t len = 0;
	bool due = true;

	if (!state_db || rm_store_location_shared(state_db) || strpbrk(key, "\t\n"))
		return true;
	rm_sb_init(&path);
	rm_sb_addf(&path, "%s.said", state_db);
	if (rm_read_file(path.buf, SAID_MAX, &buf, &len, &e) && access(path.buf, F_OK) == 0) {
		rm_sb_release(&path); /* there, but unreadable: say it */
		return true;
	}
	rm_sb_init(&out);
	/* keep the lines of the last period (others are due again anyway) */
	for (line = buf; line && *line; line = next) {
		char *tab = strchr(line, '\t'), *end;
		long long at;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!tab)
			continue;
		*tab = '\0';
		errno = 0;
		at = strtoll(line, &end, 10);
		if (errno || *end || now - at >= period || at > now)
			continue;
		if (!strcmp(tab + 1, key))
			due = false;
		rm_sb_addf(&out, "%lld\t%s\n", at, tab + 1);
	}
	free(buf);
	if (due) {
		rm_sb_addf(&out, "%lld\t%s\n", (long long)now, key);
		rm_sb_init(&tmp);
		rm_sb_addf(&tmp, "%s.tmp.%ld", path.buf, (long)getpid());
		if (rm_write_file(tmp.buf, out.buf, out.len) || rename(tmp.buf, path.buf))
			unlink(tmp.buf);
		rm_sb_release(&tmp);
	}
	rm_sb_release(&out);
	rm_sb_release(&path);
	return due;
}
