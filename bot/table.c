/* table.c - see table.h. */
#include "table.h"

#include "rubyfmt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ABS_WIDTH 10
#define REL_WIDTH 10
#define ERR_WIDTH 6
#define PLUSMINUS "\xc2\xb1"

/* Ruby's %d of a Float: truncation toward zero, every digit printed. */
static void add_truncated(struct rm_sb *out, int width, double v)
{
	if (!isfinite(v)) {
		rm_sb_addf(out, "%*s", width, isnan(v) ? "NaN" : v < 0 ? "-Inf" : "Inf");
		return;
	}
	rm_sb_addf(out, "%*.0f", width, trunc(v));
}

void rm_table_value(struct rm_sb *out, double avg)
{
	double a = fabs(avg);

	/* Ruby's float formatting, which differs from printf near ties */
	if (a < 1000)
		rm_rubyfmt_double(out, "", ABS_WIDTH, 2, 'f', avg);
	else if (a > 100000000)
		rm_rubyfmt_double(out, "", ABS_WIDTH, 4, 'g', avg);
	else
		add_truncated(out, ABS_WIDTH, avg);
}

void rm_table_stddev(struct rm_sb *out, double avg, double stddev)
{
	double s = stddev;

	if (avg != 0)
		s = 100 * stddev / avg;
	if (s > 2) {
		rm_sb_adds(out, " " PLUSMINUS);
		add_truncated(out, ERR_WIDTH - 3, s);
		rm_sb_addc(out, '%');
	} else {
		rm_sb_addn(out, ' ', ERR_WIDTH);
	}
}

void rm_table_change(struct rm_sb *out, double p, int abs_change)
{
	if (fabs(p) < 100000)
		rm_rubyfmt_double(out, "+", REL_WIDTH, 1, 'f', p);
	else
		rm_rubyfmt_double(out, "+", REL_WIDTH, 2, 'g', p);
	rm_sb_adds(out, abs_change ? "  " : "% ");
}

static void add_fails(struct rm_sb *out, double f, size_t runs)
{
	if (f == 0)
		rm_sb_addn(out, ' ', ABS_WIDTH + 1);
	else
		add_truncated(out, ABS_WIDTH + 1, f);
	rm_sb_addf(out, ":%-*zu", ERR_WIDTH - 2, runs);
}

struct axis {
	const char *key, *value;
	char *sortkey;
};

static int cmp_axis(const void *a, const void *b)
{
	return strcmp(((const struct axis *)a)->sortkey, ((const struct axis *)b)->sortkey);
}

static void add_commit_line(struct rm_sb *out, const struct rm_table_commit *c)
{
	if (c->subject)
		rm_sb_addf(out, "  %.10s (\"%s\")\n", c->id, c->subject);
	else
		rm_sb_addf(out, "  %s\n", c->id);
}

static void add_cut(struct rm_sb *out, const char *s, int width)
{
	rm_sb_addf(out, "%*.*s ", width, width, s);
}

/* End a header line: ncompare keeps its trailing blanks, the functional
 * style drops them. */
static void end_header_line(struct rm_sb *out, enum rm_table_style style)
{
	if (style == RM_TABLE_FUNCTIONAL)
		while (out->len && out->buf[out->len - 1] == ' ')
			out->buf[--out->len] = '\0';
	rm_sb_addc(out, '\n');
}

void rm_table_render(struct rm_sb *out, const struct rm_job *job,
		     const struct rm_table_commit *base, const struct rm_table_commit *head,
		     const struct rm_comparison *cmp)
{
	rm_table_render_style(out, job, base, head, cmp, RM_TABLE_NCOMPARE);
}

void rm_table_render_style(struct rm_sb *out, const struct rm_job *job,
			   const struct rm_table_commit *base, const struct rm_table_commit *head,
			   const struct rm_comparison *cmp, enum rm_table_style style)
{
	struct axis *ax;
	size_t i, n = 0;

	if (!cmp->n)
		return;
	/* axis keys in the order of their "key=value" strings */
	ax = rm_xcalloc(job->naxes + 1, sizeof(*ax));
	for (i = 0; i < job->naxes; i++) {
		struct rm_sb k = RM_SB_INIT;

		if (!strcmp(job->axes[i].key, "commit"))
			continue;
		rm_sb_init(&k);
		rm_sb_addf(&k, "%s=%s", job->axes[i].key, job->axes[i].value);
		ax[n].key = job->axes[i].key;
		ax[n].value = job->axes[i].value;
		ax[n].sortkey = rm_sb_detach(&k, NULL);
		n++;
	}
	rm_sort(ax, n, sizeof(*ax), cmp_axis);

	rm_sb_addn(out, '=', 89);
	rm_sb_addc(out, '\n');
	for (i = 0; i < n; i++) {
		if (i)
			rm_sb_addc(out, '/');
		rm_sb_adds(out, ax[i].key);
	}
	rm_sb_adds(out, ":\n  ");
	for (i = 0; i < n; i++) {
		if (i)
			rm_sb_addc(out, '/');
		rm_sb_adds(out, ax[i].value);
		free(ax[i].sortkey);
	}
	free(ax);
	rm_sb_adds(out, "\n\ncommit: \n");
	add_commit_line(out, base);
	add_commit_line(out, head);
	rm_sb_addc(out, '\n');
	add_cut(out, base->id, ABS_WIDTH + ERR_WIDTH);
	add_cut(out, head->id, ABS_WIDTH + ERR_WIDTH + REL_WIDTH + 1);
	end_header_line(out, style);
	rm_sb_addn(out, '-', ABS_WIDTH + ERR_WIDTH);
	rm_sb_addc(out, ' ');
	rm_sb_addn(out, '-', ABS_WIDTH + ERR_WIDTH + REL_WIDTH + 1);
	rm_sb_addc(out, ' ');
	end_header_line(out, style);

	if (cmp->nfailure) {
		rm_sb_adds(out, "       fail:runs  %reproduction    fail:runs\n");
		rm_sb_adds(out, "           |             |             |    ");
		end_header_line(out, style);
		for (i = 0; i < cmp->nfailure; i++) {
			const struct rm_row *r = &cmp->rows[i];

			add_fails(out, r->fails[0], r->runs[0]);
			rm_rubyfmt_double(out, "", REL_WIDTH, 0, 'f', r->reproduction);
			rm_sb_adds(out, "% ");
			add_fails(out, r->fails[1], r->runs[1]);
			rm_sb_addf(out, "  %s\n", r->name);
		}
	}
	if (cmp->n > cmp->nfailure) {
		rm_sb_adds(out, "         %stddev     %change         %stddev\n");
		rm_sb_adds(out, "             \\          |                \\  \n");
		for (i = cmp->nfailure; i < cmp->n; i++) {
			const struct rm_row *r = &cmp->rows[i];

			rm_table_value(out, r->avg[0]);
			rm_table_stddev(out, r->avg[0], r->stddev[0]);
			rm_table_change(out, r->change, r->abs_change);
			rm_table_value(out, r->avg[1]);
			rm_table_stddev(out, r->avg[1], r->stddev[1]);
			rm_sb_addf(out, "  %s\n", r->name);
		}
	}
	rm_sb_addc(out, '\n');
}

/* ------------------------------------------------------------ boot table */

static void boot_rule(struct rm_sb *out, size_t w)
{
	rm_sb_addc(out, '+');
	rm_sb_addn(out, '-', w);
	rm_sb_adds(out, "+------------+------------+\n");
}

void rm_table_render_boot(struct rm_sb *out, const char *base_sha, const char *head_sha,
			  const struct rm_table_boot_row *rows, size_t n)
{
	size_t w = 0, i;

	for (i = 0; i < n; i++)
		if (strlen(rows[i].name) > w)
			w = strlen(rows[i].name);
	w += 2;
	boot_rule(out, w);
	rm_sb_addf(out, "|%*s| %-10.10s | %-10.10s |\n", (int)w, "", base_sha, head_sha);
	boot_rule(out, w);
	for (i = 0; i < n; i++)
		rm_sb_addf(out, "| %-*s | %-10ld | %-10ld |\n", (int)(w - 2), rows[i].name,
			   rows[i].count[0], rows[i].count[1]);
	boot_rule(out, w);
}
