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
#include "stats.h"
#include "strbuf.h"

struct finding {
	const struct rm_store_msg *first; /* the report that began the thread */
	int reports;                      /* reports in the thread */
	time_t last;                      /* the newest report */
	struct rm_store_finding f;        /* state (open when never changed) */
	struct rm_store_event *ev;
	size_t nev;
	struct rm_store_point *pt;        /* the metric's values per commit tested */
	size_t npt;
	struct rm_store_mention *mn;      /* later reports that mention it */
	size_t nmn;
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

/* A tree's page name (t/<name>.html): the tree's name when it is made of
 * [A-Za-z0-9._-] and does not begin with '.', else a hash of it. */
static void tree_page(const char *tree, char *name, size_t n)
{
	const char *q;
	bool plain = tree && *tree && *tree != '.' && strlen(tree) < n - 6;

	for (q = tree; plain && *q; q++)
		plain = (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
			(*q >= '0' && *q <= '9') || *q == '.' || *q == '_' || *q == '-';
	if (plain) {
		snprintf(name, n, "%s.html", tree);
	} else {
		char id[17];
		char *k = rm_xstrfmt("tree:%s", tree ? tree : "");

		rm_status_finding_id(k, id);
		free(k);
		snprintf(name, n, "%s.html", id);
	}
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

/* A group's colour: the report's base blue, its commit red, the other
 * heads where the finding was seen in turn green, orange, purple, teal. */
static const char *group_colour(const char *role, size_t nth_seen)
{
	static const char *const seen[] = { "#393", "#c80", "#939", "#399" };

	if (role && !strcmp(role, "base"))
		return "#36c";
	if (role && !strcmp(role, "head"))
		return "#c33";
	return seen[nth_seen % (sizeof(seen) / sizeof(seen[0]))];
}

/* The metric as an inline SVG: one group per commit tested (in the order
 * kept: the report's base, its commit, then the other heads where it was
 * seen and any other base), each with a circle per run, the mean as a line
 * and its +-stddev as a band, labelled under its column with its sha10,
 * tree/branch and role; under the plot a text legend, a line per group.
 * The y axis spans every value.  Drawn here (no script, nothing loaded at
 * view time). */
void rm_status_plot(struct rm_sb *sb, const char *metric, const struct rm_store_point *pt,
		    size_t n, const char *label)
{
	const double L = 90, R = 20, T = 30, B = 64, PH = 300, LH = 18;
	double lo = 0, hi = 0, colw, W, H;
	size_t i, k, total = 0, groups = 0, nseen = 0;
	bool any = false;

	for (i = 0; i < n; i++) {
		groups += pt[i].n > 0;
		for (k = 0; k < pt[i].n; k++) {
			if (!any || pt[i].v[k] < lo)
				lo = pt[i].v[k];
			if (!any || pt[i].v[k] > hi)
				hi = pt[i].v[k];
			any = true;
			total++;
		}
	}
	if (!any)
		return;
	if (hi - lo < 1e-12 * (hi > 0 ? hi : -hi) || hi == lo) {
		double pad = hi ? (hi > 0 ? hi : -hi) * 0.05 : 1;

		lo -= pad;
		hi += pad;
	} else {
		double pad = (hi - lo) * 0.08;

		lo -= pad;
		hi += pad;
	}
	/* at least 640 wide, at least 100 per group */
	W = L + R + (double)groups * 100 > 640 ? L + R + (double)groups * 100 : 640;
	H = PH + LH * (double)groups + 8;
	colw = (W - L - R) / (double)groups;
#define Y(v) (T + (PH - T - B) * (hi - (v)) / (hi - lo))
	rm_sb_addf(sb, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\""
		       " viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"",
		   W, H, W, H);
	html_text(sb, metric);
	rm_sb_addf(sb, ": %zu runs on %zu commits\">\n", total, groups);
	rm_sb_adds(sb, "<text x=\"10\" y=\"18\" font-size=\"13\">");
	html_text(sb, metric);
	rm_sb_adds(sb, "</text>\n");
	rm_sb_addf(sb, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>\n", L,
		   T, L, PH - B);
	rm_sb_addf(sb, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>\n", L,
		   PH - B, W - R, PH - B);
	rm_sb_addf(sb, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%.6g</text>\n",
		   L - 4, T + 4, hi);
	rm_sb_addf(sb, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%.6g</text>\n",
		   L - 4, PH - B, lo);
	for (i = 0, k = 0; i < n; i++) {
		const struct rm_store_point *p = &pt[i];
		const char *where = p->label ? p->label : label ? label : "?";
		const char *colour = group_colour(p->role, nseen);
		unsigned char *is_int;
		double cx, mean, sd, ly;
		char sha[11];
		size_t j;

		if (!p->n)
			continue;
		cx = L + colw * ((double)k + 0.5);
		ly = PH + LH * ((double)k + 1);
		k++;
		nseen += p->role && strcmp(p->role, "base") && strcmp(p->role, "head");
		is_int = rm_xcalloc(p->n + 1, 1);
		mean = rm_stats_mean(p->v, is_int, p->n);
		sd = p->n > 1 ? rm_stats_pstddev(p->v, is_int, p->n) : 0;
		free(is_int);
		snprintf(sha, sizeof(sha), "%s", p->commit ? p->commit : "?");
		rm_sb_addf(sb, "<g class=\"commit\"><title>");
		html_text(sb, p->commit);
		rm_sb_addf(sb, " (%s): mean %.6g, stddev %.6g, %zu runs</title>\n", p->role, mean, sd,
			   p->n);
		rm_sb_addf(sb, "<rect class=\"band\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\""
			       " fill=\"%s\" fill-opacity=\"0.25\"/>\n",
			   cx - colw * 0.3, Y(mean + sd), colw * 0.6, Y(mean - sd) - Y(mean + sd),
			   colour);
		rm_sb_addf(sb, "<line class=\"mean\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\""
			       " stroke=\"#333\"/>\n",
			   cx - colw * 0.3, Y(mean), cx + colw * 0.3, Y(mean));
		for (j = 0; j < p->n; j++) {
			/* spread the runs across the band so equal values stay visible */
			double x = cx - colw * 0.25 +
				   (p->n > 1 ? colw * 0.5 * (double)j / (double)(p->n - 1) : colw * 0.25);

			rm_sb_addf(sb, "<circle class=\"run\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n",
				   x, Y(p->v[j]), colour);
		}
		/* under the column: sha10, tree/branch, role */
		rm_sb_addf(sb, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\">",
			   cx, PH - B + 16);
		html_text(sb, sha);
		rm_sb_addf(sb, "</text>\n<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"middle\">",
			   cx, PH - B + 30);
		html_text(sb, where);
		rm_sb_addf(sb, "</text>\n<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\">",
			   cx, PH - B + 44);
		html_text(sb, p->role);
		rm_sb_adds(sb, "</text>\n");
		/* the legend's line */
		rm_sb_addf(sb, "<rect class=\"key\" x=\"10\" y=\"%.1f\" width=\"10\" height=\"10\" fill=\"%s\"/>\n"
			       "<text class=\"legend\" x=\"26\" y=\"%.1f\" font-size=\"12\">",
			   ly - 9, colour, ly);
		html_text(sb, sha);
		rm_sb_addc(sb, ' ');
		html_text(sb, where);
		rm_sb_adds(sb, " (");
		html_text(sb, p->role);
		rm_sb_addf(sb, "): mean %.6g &#177; %.6g, %zu run%s</text></g>\n", mean, sd, p->n,
			   p->n == 1 ? "" : "s");
	}
#undef Y
	rm_sb_adds(sb, "</svg>\n");
}

/* A failure id's values per head as a table (tree/branch, commit, role,
 * fail:runs, the count in each run): counts of 0 and 1 say more in a row of
 * numbers than as dots. */
void rm_status_fail_table(struct rm_sb *sb, const struct rm_store_point *pt, size_t n,
			  const char *label)
{
	size_t i, k;

	rm_sb_adds(sb, "<table class=\"failruns\">\n<tr><th>tree/branch</th><th>commit</th>"
		       "<th>role</th><th>fail:runs</th><th>per run</th></tr>\n");
	for (i = 0; i < n; i++) {
		const struct rm_store_point *p = &pt[i];
		double fails = 0;
		char sha[11];

		if (!p->n)
			continue;
		for (k = 0; k < p->n; k++)
			fails += p->v[k];
		snprintf(sha, sizeof(sha), "%s", p->commit ? p->commit : "?");
		rm_sb_adds(sb, "<tr><td>");
		html_text(sb, p->label ? p->label : label ? label : "?");
		rm_sb_adds(sb, "</td><td title=\"");
		html_text(sb, p->commit);
		rm_sb_adds(sb, "\">");
		html_text(sb, sha);
		rm_sb_adds(sb, "</td><td>");
		html_text(sb, p->role);
		rm_sb_addf(sb, "</td><td>%.6g:%zu</td><td>", fails, p->n);
		for (k = 0; k < p->n; k++)
			rm_sb_addf(sb, "%s%.6g", k ? " " : "", p->v[k]);
		rm_sb_adds(sb, "</td></tr>\n");
	}
	rm_sb_adds(sb, "</table>\n");
}

/* The later reports that mention the finding (store.h: the same finding
 * on another commit or tree): when, the report (its thread link), and the
 * page of the finding it reported. */
static void mentions_list(struct rm_sb *sb, const struct rm_config *cfg, const struct finding *f)
{
	char b1[40], id[17];
	size_t i;

	rm_sb_adds(sb, "<h2>Later reports that mention it</h2>\n");
	if (!f->nmn) {
		rm_sb_adds(sb, "<p>none</p>\n");
		return;
	}
	rm_sb_adds(sb, "<table>\n<tr><th>when</th><th>report</th><th>its finding</th></tr>\n");
	for (i = 0; i < f->nmn; i++) {
		rm_sb_addf(sb, "<tr><td>%s</td><td>", when(f->mn[i].at, b1, sizeof(b1)));
		thread_link(sb, cfg, f->mn[i].message_id);
		rm_status_finding_id(f->mn[i].by_key, id);
		rm_sb_addf(sb, "</td><td><a href=\"%s.html\">%s</a></td></tr>\n", id, id);
	}
	rm_sb_adds(sb, "</table>\n");
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
	if (f->first->tree) {
		char tp[80];

		tree_page(f->first->tree, tp, sizeof(tp));
		rm_sb_addf(sb, "<a href=\"../t/%s\">", tp);
		html_text(sb, f->first->tree);
		rm_sb_adds(sb, "</a>");
	} else {
		rm_sb_adds(sb, "-");
	}
	rm_sb_addf(sb, "</td></tr>\n<tr><th>first seen</th><td>%s</td></tr>\n"
		       "<tr><th>last seen</th><td>%s</td></tr>\n<tr><th>reports</th><td>%d</td></tr>\n"
		       "<tr><th>thread</th><td>",
		   when(f->first->created_at, b1, sizeof(b1)), when(f->last, b2, sizeof(b2)),
		   f->reports);
	thread_link(sb, cfg, f->first->message_id);
	rm_sb_adds(sb, "</td></tr>\n</table>\n");
	{
		const char *key = f->first->thread_key, *kind = strrchr(key, '|'), *q = kind;
		const char *bar = strchr(key, '|');
		char *m = NULL, *label = NULL;
		size_t i2, nv = 0;

		for (i2 = 0; i2 < f->npt; i2++)
			nv += f->pt[i2].n;
		/* the thread key ends "|<metric>|<kind>" and begins "<tree>:<branch>|" */
		while (q && q > key && q[-1] != '|')
			q--;
		if (q && q > key)
			m = rm_xstrndup(q, (size_t)(kind - q));
		if (bar && memchr(key, ':', (size_t)(bar - key))) {
			char *c;

			label = rm_xstrndup(key, (size_t)(bar - key));
			c = strchr(label, ':');
			*c = '/';
		}
		rm_sb_adds(sb, "<h2>The metric per run</h2>\n");
		if (!nv) {
			rm_sb_adds(sb, "<p class=\"novalues\">no per-run values recorded</p>\n");
		} else if (kind && !strcmp(kind, "|failure")) {
			rm_sb_adds(sb, "<p>");
			html_text(sb, m ? m : "the failure");
			rm_sb_adds(sb, ": in how many runs it showed, per head</p>\n");
			rm_status_fail_table(sb, f->pt, f->npt, label);
		} else {
			rm_sb_adds(sb, "<figure>\n");
			rm_status_plot(sb, m ? m : "the metric", f->pt, f->npt, label);
			rm_sb_adds(sb, "<figcaption>each dot a run; the line the mean, the band &plusmn;"
				       " one standard deviation</figcaption>\n</figure>\n");
		}
		free(m);
		free(label);
	}
	rm_sb_adds(sb, "<h2>Commands received</h2>\n");
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
	mentions_list(sb, cfg, f);
	rm_sb_adds(sb, "<p><a href=\"../index.html\">all findings</a></p>\n</body>\n</html>\n");
}

static bool on_tree(const struct finding *f, const char *tree)
{
	return !tree || !strcmp(f->first->tree ? f->first->tree : "", tree);
}

/* "2 open, 1 invalid" for the findings of `tree` */
static void tree_counts(struct rm_sb *sb, const struct finding *fs, size_t nfs, const char *tree)
{
	static const enum rm_finding_state states[] = { RM_FINDING_OPEN, RM_FINDING_INVALID,
							RM_FINDING_FIXED, RM_FINDING_DUP };
	size_t i, k, said = 0;

	for (i = 0; i < sizeof(states) / sizeof(states[0]); i++) {
		size_t n = 0;

		for (k = 0; k < nfs; k++)
			n += on_tree(&fs[k], tree) && fs[k].f.state == states[i];
		if (n)
			rm_sb_addf(sb, "%s%zu %s", said++ ? ", " : "", n,
				   rm_finding_state_name(states[i]));
	}
}

/* The table of findings (of `tree`, or all when NULL); `fdir` leads from
 * the page to the findings' pages. */
static void findings_table(struct rm_sb *sb, const struct finding *fs, size_t nfs,
			   const char *tree, const char *fdir)
{
	char b[40];
	size_t k;

	rm_sb_addf(sb, "<table>\n<tr><th>state</th>%s<th>report</th><th>last seen</th>"
		       "<th>reports</th></tr>\n",
		   tree ? "" : "<th>tree</th>");
	for (k = 0; k < nfs; k++) {
		const char *sn = rm_finding_state_name(fs[k].f.state);

		if (!on_tree(&fs[k], tree))
			continue;
		rm_sb_addf(sb, "<tr class=\"%s\"><td>%s</td>", sn, sn);
		if (!tree) {
			rm_sb_adds(sb, "<td>");
			html_text(sb, fs[k].first->tree);
			rm_sb_adds(sb, "</td>");
		}
		rm_sb_addf(sb, "<td><a href=\"%s%s.html\">", fdir, fs[k].id);
		html_text(sb, fs[k].first->subject);
		rm_sb_addf(sb, "</a></td><td>%s</td><td>%d</td></tr>\n", when(fs[k].last, b, sizeof(b)),
			   fs[k].reports);
	}
	rm_sb_adds(sb, "</table>\n");
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
	char *sub = NULL, *tdir = NULL;
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
		    rm_store_finding_events(st, fs[k].first->thread_key, &fs[k].ev, &fs[k].nev, err) ||
		    rm_store_points(st, fs[k].first->thread_key, &fs[k].pt, &fs[k].npt, err) ||
		    rm_store_mentions(st, fs[k].first->thread_key, &fs[k].mn, &fs[k].nmn, err))
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
		const char **trees = rm_xcalloc(nfs + 1, sizeof(char *));
		size_t ntrees = 0, t;

		/* the trees, in the order first reported */
		for (k = 0; k < nfs; k++) {
			const char *tn = fs[k].first->tree ? fs[k].first->tree : "";

			for (t = 0; t < ntrees && strcmp(trees[t], tn); t++)
				;
			if (t == ntrees)
				trees[ntrees++] = tn;
		}
		tdir = rm_path_join(dir, "t");
		if (mkdir(tdir, 0755) && errno != EEXIST) {
			rm_error_set(err, RM_ERR_CONFIG, "status: cannot make '%s': %s", tdir,
				     strerror(errno));
			free(trees);
			goto out;
		}
		rm_sb_init(&sb);
		page_head(&sb, "robotmail findings");
		rm_sb_addf(&sb, "<p>%zu finding(s) on %zu tree(s)</p>\n<h2>Trees</h2>\n<ul>\n", nfs,
			   ntrees);
		for (t = 0; t < ntrees; t++) {
			char tp[80];

			tree_page(trees[t], tp, sizeof(tp));
			rm_sb_addf(&sb, "<li><a href=\"t/%s\">", tp);
			html_text(&sb, *trees[t] ? trees[t] : "(no tree)");
			rm_sb_adds(&sb, "</a>: ");
			tree_counts(&sb, fs, nfs, trees[t]);
			rm_sb_adds(&sb, "</li>\n");
		}
		rm_sb_adds(&sb, "</ul>\n<h2>Findings</h2>\n");
		findings_table(&sb, fs, nfs, NULL, "f/");
		rm_sb_adds(&sb, "</body>\n</html>\n");
		if (write_out(dir, "index.html", &sb, err)) {
			free(trees);
			goto out;
		}
		/* one page per tree: its findings */
		for (t = 0; t < ntrees; t++) {
			char tp[80], *title = rm_xstrfmt("robotmail findings on %s",
							 *trees[t] ? trees[t] : "(no tree)");

			tree_page(trees[t], tp, sizeof(tp));
			rm_sb_reset(&sb);
			page_head(&sb, title);
			free(title);
			rm_sb_adds(&sb, "<p>");
			tree_counts(&sb, fs, nfs, trees[t]);
			rm_sb_adds(&sb, "</p>\n");
			findings_table(&sb, fs, nfs, trees[t], "../f/");
			rm_sb_adds(&sb, "<p><a href=\"../index.html\">all findings</a></p>\n</body>\n</html>\n");
			if (write_out(tdir, tp, &sb, err)) {
				free(trees);
				goto out;
			}
		}
		free(trees);
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
			{
				json_t *pts = json_array();

				for (i = 0; i < fs[k].npt; i++) {
					json_t *po = json_object(), *vals = json_array();
					size_t j;

					json_object_set_new(po, "commit", json_string(fs[k].pt[i].commit));
					json_object_set_new(po, "role", json_string(fs[k].pt[i].role));
					json_object_set_new(po, "label", fs[k].pt[i].label ?
								 json_string(fs[k].pt[i].label) :
								 json_null());
					for (j = 0; j < fs[k].pt[i].n; j++)
						json_array_append_new(vals, json_real(fs[k].pt[i].v[j]));
					json_object_set_new(po, "values", vals);
					json_array_append_new(pts, po);
				}
				json_object_set_new(o, "values", pts);
			}
			{
				json_t *mns = json_array();
				char mid[17];

				for (i = 0; i < fs[k].nmn; i++) {
					json_t *mo = json_object();

					rm_status_finding_id(fs[k].mn[i].by_key, mid);
					json_object_set_new(mo, "message_id", json_string(fs[k].mn[i].message_id));
					json_object_set_new(mo, "finding", json_string(mid));
					json_object_set_new(mo, "key", json_string(fs[k].mn[i].by_key));
					json_object_set_new(mo, "at", json_integer((json_int_t)fs[k].mn[i].at));
					json_array_append_new(mns, mo);
				}
				json_object_set_new(o, "mentioned_by", mns);
			}
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
	free(tdir);
	for (k = 0; k < nfs; k++) {
		rm_store_finding_free(&fs[k].f);
		rm_store_events_free(fs[k].ev, fs[k].nev);
		rm_store_points_free(fs[k].pt, fs[k].npt);
		rm_store_mentions_free(fs[k].mn, fs[k].nmn);
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
