/* status.c - see status.h: the findings page. */
#include "status.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "fileutil.h"
#include "strbuf.h"

struct finding {
	const struct rm_store_msg *first; /* the report that began the thread */
	int reports;                      /* reports in the thread */
	time_t last;                      /* the newest report */
	struct rm_store_finding f;        /* state (open when never changed) */
	struct rm_store_event *ev;
	size_t nev;
	char id[17];                      /* the page's name: a hash of the key */
};

static void html_text(struct rm_sb *sb, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<':
			rm_sb_adds(sb, "&lt;");
			break;
		case '>':
			rm_sb_adds(sb, "&gt;");
			break;
		case '&':
			rm_sb_adds(sb, "&amp;");
			break;
		case '"':
			rm_sb_adds(sb, "&quot;");
			break;
		default:
			rm_sb_addc(sb, *s);
		}
	}
}

static const char *when(time_t t, char *buf, size_t n)
{
	struct tm tm;

	if (!t || !gmtime_r(&t, &tm) || !strftime(buf, n, "%Y-%m-%d %H:%M UTC", &tm))
		snprintf(buf, n, "-");
	return buf;
}

static void page_head(struct rm_sb *sb, const char *title)
{
	rm_sb_adds(sb, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>");
	html_text(sb, title);
	rm_sb_adds(sb, "</title>\n<style>body{font-family:sans-serif}td,th{padding:0 .6em;text-align:left}"
		       ".invalid,.fixed,.dup{color:#666}</style>\n</head>\n<body>\n<h1>");
	html_text(sb, title);
	rm_sb_adds(sb, "</h1>\n");
}

static void thread_link(struct rm_sb *sb, const struct rm_config *cfg, const char *msgid)
{
	if (!cfg->lore_base || !*cfg->lore_base) { /* no archive configured: the id alone */
		html_text(sb, msgid);
		return;
	}
	rm_sb_adds(sb, "<a href=\"");
	html_text(sb, cfg->lore_base);
	rm_sb_addc(sb, '/');
	html_text(sb, msgid);
	rm_sb_adds(sb, "/\">");
	html_text(sb, msgid);
	rm_sb_adds(sb, "</a>");
}

static int write_out(const char *dir, const char *name, const struct rm_sb *sb,
		     struct rm_error *err)
{
	char *p = rm_path_join(dir, name);
	int rc = rm_write_file(p, sb->buf, sb->len);

	if (rc)
		rm_error_set(err, RM_ERR_TEMP, "status: cannot write '%s': %s", p, strerror(errno));
	free(p);
	return rc ? -1 : 0;
}

static void finding_page(struct rm_sb *sb, const struct rm_config *cfg, const struct finding *f)
{
	char b1[40], b2[40];
	size_t i;

	page_head(sb, f->first->subject ? f->first->subject : f->first->thread_key);
	rm_sb_adds(sb, "<table>\n<tr><th>state</th><td>");
	html_text(sb, rm_finding_state_name(f->f.state));
	if (f->f.arg) {
		rm_sb_adds(sb, ": ");
		html_text(sb, f->f.arg);
	}
	rm_sb_adds(sb, "</td></tr>\n<tr><th>tree</th><td>");
	html_text(sb, f->first->tree);
	rm_sb_addf(sb, "</td></tr>\n<tr><th>first seen</th><td>%s</td></tr>\n"
		       "<tr><th>last seen</th><td>%s</td></tr>\n<tr><th>reports</th><td>%d</td></tr>\n"
		       "<tr><th>thread</th><td>",
		   when(f->first->created_at, b1, sizeof(b1)), when(f->last, b2, sizeof(b2)),
		   f->reports);
	thread_link(sb, cfg, f->first->message_id);
	rm_sb_adds(sb, "</td></tr>\n</table>\n<h2>Commands received</h2>\n");
	if (!f->nev)
		rm_sb_adds(sb, "<p>none</p>\n");
	else
		rm_sb_adds(sb, "<table>\n<tr><th>when</th><th>from</th><th>command</th><th>state after</th></tr>\n");
	for (i = 0; i < f->nev; i++) {
		rm_sb_addf(sb, "<tr><td>%s</td><td>", when(f->ev[i].at, b1, sizeof(b1)));
		html_text(sb, f->ev[i].by);
		rm_sb_adds(sb, "</td><td>");
		if (f->ev[i].undone)
			rm_sb_adds(sb, "<s>");
		html_text(sb, f->ev[i].command);
		if (f->ev[i].undone)
			rm_sb_adds(sb, "</s>");
		rm_sb_adds(sb, "</td><td>");
		html_text(sb, rm_finding_state_name(f->ev[i].state));
		rm_sb_adds(sb, "</td></tr>\n");
	}
	if (f->nev)
		rm_sb_adds(sb, "</table>\n");
	rm_sb_adds(sb, "<p><a href=\"../index.html\">all findings</a></p>\n</body>\n</html>\n");
}

void rm_status_finding_id(const char *key, char id[17])
{
	unsigned long long h = 14695981039346656037ull; /* FNV-1a */
	const char *q;

	for (q = key; *q; q++) {
		h ^= (unsigned char)*q;
		h *= 1099511628211ull;
	}
	snprintf(id, 17, "%016llx", h);
}

int rm_status_write(const struct rm_config *cfg, struct rm_store *st, const char *dir,
		    bool html, bool json, size_t *nfindings, struct rm_error *err)
{
	struct rm_store_msg *msgs = NULL;
	struct finding *fs = NULL;
	size_t nmsgs = 0, nfs = 0, i, k;
	struct rm_sb sb = RM_SB_INIT;
	json_t *arr = NULL;
	char *sub = NULL;
	int rc = -1;

	*nfindings = 0;
	if (rm_store_list(st, &msgs, &nmsgs, err))
		return -1;
	/* one finding per thread key, in the order first reported */
	for (i = 0; i < nmsgs; i++) {
		if (!msgs[i].thread_key)
			continue;
		for (k = 0; k < nfs && strcmp(fs[k].first->thread_key, msgs[i].thread_key); k++)
			;
		if (k == nfs) {
			fs = rm_xrealloc(fs, (nfs + 1) * sizeof(*fs));
			memset(&fs[nfs], 0, sizeof(*fs));
			fs[nfs].first = &msgs[i];
			rm_status_finding_id(msgs[i].thread_key, fs[nfs].id);
			nfs++;
		}
		fs[k].reports++;
		if (msgs[i].created_at > fs[k].last)
			fs[k].last = msgs[i].created_at;
	}
	for (k = 0; k < nfs; k++)
		if (rm_store_finding_get(st, fs[k].first->thread_key, &fs[k].f, err) < 0 ||
		    rm_store_finding_events(st, fs[k].first->thread_key, &fs[k].ev, &fs[k].nev, err))
			goto out;
	if (mkdir(dir, 0755) && errno != EEXIST) {
		rm_error_set(err, RM_ERR_CONFIG, "status: cannot make '%s': %s", dir, strerror(errno));
		goto out;
	}
	sub = rm_path_join(dir, "f");
	if (html && mkdir(sub, 0755) && errno != EEXIST) {
		rm_error_set(err, RM_ERR_CONFIG, "status: cannot make '%s': %s", sub, strerror(errno));
		goto out;
	}
	if (html) {
		char b[40];

		rm_sb_init(&sb);
		page_head(&sb, "robotmail findings");
		rm_sb_addf(&sb, "<p>%zu finding(s)</p>\n<table>\n<tr><th>state</th><th>tree</th>"
				"<th>report</th><th>last seen</th><th>reports</th></tr>\n",
			   nfs);
		for (k = 0; k < nfs; k++) {
			const char *sn = rm_finding_state_name(fs[k].f.state);

			rm_sb_addf(&sb, "<tr class=\"%s\"><td>%s</td><td>", sn, sn);
			html_text(&sb, fs[k].first->tree);
			rm_sb_addf(&sb, "</td><td><a href=\"f/%s.html\">", fs[k].id);
			html_text(&sb, fs[k].first->subject);
			rm_sb_addf(&sb, "</a></td><td>%s</td><td>%d</td></tr>\n",
				   when(fs[k].last, b, sizeof(b)), fs[k].reports);
		}
		rm_sb_adds(&sb, "</table>\n</body>\n</html>\n");
		if (write_out(dir, "index.html", &sb, err))
			goto out;
		for (k = 0; k < nfs; k++) {
			char name[32];

			rm_sb_reset(&sb);
			finding_page(&sb, cfg, &fs[k]);
			snprintf(name, sizeof(name), "%s.html", fs[k].id);
			if (write_out(sub, name, &sb, err))
				goto out;
		}
	}
	if (json) {
		char *text;

		arr = json_array();
		for (k = 0; k < nfs; k++) {
			json_t *o = json_object(), *ev = json_array();

			json_object_set_new(o, "id", json_string(fs[k].id));
			json_object_set_new(o, "key", json_string(fs[k].first->thread_key));
			json_object_set_new(o, "tree", fs[k].first->tree ? json_string(fs[k].first->tree) : json_null());
			json_object_set_new(o, "subject", fs[k].first->subject ? json_string(fs[k].first->subject) : json_null());
			json_object_set_new(o, "message_id", json_string(fs[k].first->message_id));
			json_object_set_new(o, "state", json_string(rm_finding_state_name(fs[k].f.state)));
			json_object_set_new(o, "arg", fs[k].f.arg ? json_string(fs[k].f.arg) : json_null());
			json_object_set_new(o, "first_seen", json_integer((json_int_t)fs[k].first->created_at));
			json_object_set_new(o, "last_seen", json_integer((json_int_t)fs[k].last));
			json_object_set_new(o, "reports", json_integer(fs[k].reports));
			for (i = 0; i < fs[k].nev; i++) {
				json_t *e = json_object();

				json_object_set_new(e, "command", json_string(fs[k].ev[i].command));
				json_object_set_new(e, "by", fs[k].ev[i].by ? json_string(fs[k].ev[i].by) : json_null());
				json_object_set_new(e, "state", json_string(rm_finding_state_name(fs[k].ev[i].state)));
				json_object_set_new(e, "undone", json_boolean(fs[k].ev[i].undone));
				json_object_set_new(e, "at", json_integer((json_int_t)fs[k].ev[i].at));
				json_array_append_new(ev, e);
			}
			json_object_set_new(o, "commands", ev);
			json_array_append_new(arr, o);
		}
		text = json_dumps(arr, JSON_INDENT(1) | JSON_ENSURE_ASCII);
		if (!text) {
			rm_error_set(err, RM_ERR_INTERNAL, "status: cannot write the JSON");
			goto out;
		}
		rm_sb_reset(&sb);
		rm_sb_adds(&sb, text);
		rm_sb_addc(&sb, '\n');
		free(text);
		if (write_out(dir, "findings.json", &sb, err))
			goto out;
	}
	*nfindings = nfs;
	rc = 0;
out:
	json_decref(arr);
	rm_sb_release(&sb);
	free(sub);
	for (k = 0; k < nfs; k++) {
		rm_store_finding_free(&fs[k].f);
		rm_store_events_free(fs[k].ev, fs[k].nev);
	}
	free(fs);
	rm_store_msgs_free(msgs, nmsgs);
	return rc;
}

int rm_status_write_dirs(const struct rm_config *cfg, struct rm_store *st, const char *html,
			 const char *json, size_t *nfindings, struct rm_error *err)
{
	if (html && json && strcmp(html, json)) {
		if (rm_status_write(cfg, st, html, true, false, nfindings, err))
			return -1;
		return rm_status_write(cfg, st, json, false, true, nfindings, err);
	}
	return rm_status_write(cfg, st, html ? html : json, html != NULL, json != NULL, nfindings,
			       err);
}
