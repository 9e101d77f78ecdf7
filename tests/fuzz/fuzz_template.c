/*
 * fuzz_template.c - libFuzzer target: arbitrary bytes as template text.
 *
 * The input is split at its first "\n====\n": the part before is the
 * template, the part after (up to a NUL) becomes the value of {{input}} and
 * of one params item's {{value}}, so hostile values are rendered too.
 * Without the separator the whole input is the template.  It is rendered by
 * rm_template_render_text with no template directory (a partial is an
 * error) against fixed data that defines every name the templates in templates/ use,
 * plus an empty string, an empty list and nested lists of maps.
 *
 * Nested sections over lists multiply (k nested {{#details}} render 3^k
 * times), so when 3^k times the template size passes a few MB the data's
 * lists get one item each: deep nesting is still parsed and rendered, the
 * output stays linear.
 *
 * Checked: an error says something and appends nothing; a success renders
 * the same bytes a second time.
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "strbuf.h"
#include "template.h"

#define MARK "prefix\n"

static struct rm_tdata *make_data(const char *input, int width)
{
	struct rm_tdata *d = rm_tdata_new(), *it, *row;
	int i, j;

	rm_tdata_set(d, "input", input);
	rm_tdata_set(d, "empty", "");
	rm_tdata_list(d, "none");
	rm_tdata_set(d, "commit_sha", "e5e1a8d3a28c98ac2743ad22197185fd9c4fc440");
	rm_tdata_set(d, "commit_subject", "mm: avoid {{unnecessary}} lru drain");
	rm_tdata_set(d, "tree_url", "https://git.kernel.org/cgit/linux/kernel/git/torvalds/linux.git");
	rm_tdata_set(d, "tree_branch", "master");
	rm_tdata_set(d, "patch_link", width > 1 ? "https://lore.kernel.org/all/x@example.org/" : "");
	rm_tdata_set(d, "patch_subject", "[PATCH v2 1/3] mm: avoid lru drain");
	rm_tdata_set(d, "failure", "BUG:kernel_NULL_pointer_dereference");
	rm_tdata_set(d, "testcase", "stress-ng");
	rm_tdata_set(d, "kconfig", "x86_64-rhel-9.4");
	rm_tdata_set(d, "compiler", "gcc-14");
	rm_tdata_set(d, "machine", "256 threads 4 sockets Emerald Rapids");
	rm_tdata_set(d, "archive_url", "https://download.01.org/0day-ci/archive/20251015/x");
	rm_tdata_set(d, "preamble", "");
	rm_tdata_set(d, "pct", "10.6");
	rm_tdata_set(d, "kind", "improvement");
	rm_tdata_set(d, "metric", "stress-ng.mlockmany.ops_per_sec");
	rm_tdata_set(d, "in_addition", "");
	rm_tdata_set(d, "is_regression", "1");
	rm_tdata_set(d, "reported_by", "kernel test robot <oliver.sang@intel.com>");
	rm_tdata_set(d, "closes_url", "https://lore.kernel.org/oe-lkp/x@intel.com");
	for (i = 0; i < width && i < 2; i++) {
		it = rm_tdata_add(d, "brackets");
		rm_tdata_setf(it, "line", "[test failed on linux-next/master %d]", i);
	}
	if (width > 1) {
		it = rm_tdata_add(d, "params");
		rm_tdata_set(it, "key", "nr_threads");
		rm_tdata_set(it, "value", "100%");
	}
	it = rm_tdata_add(d, "params");
	rm_tdata_set(it, "key", "input");
	rm_tdata_set(it, "value", input);
	for (i = 0; i < width; i++) {
		it = rm_tdata_add(d, "details");
		rm_tdata_set(it, "additional", i ? "1" : "");
		rm_tdata_setf(it, "tbox_group", "lkp-emr-2sp%d", i);
		rm_tdata_set(it, "table", "=========\n  a  b\n");
		/* nested lists, shadowing a top-level name */
		for (j = 0; j < (width > 1 ? i : 1); j++) {
			row = rm_tdata_add(it, "rows");
			rm_tdata_setf(row, "machine", "row %d.%d", i, j);
			rm_tdata_list(row, "cells");
			rm_tdata_set(rm_tdata_add(row, "cells"), "value", "c");
		}
		rm_tdata_list(it, "rows");
	}
	return d;
}

/* 3 when rendering with 3-item lists stays under ~4 MB of work, else 1 */
static int list_width(const char *text, size_t len)
{
	double work = (double)len + 64;
	const char *p = text, *end = text + len;

	while (p < end && (p = memmem(p, (size_t)(end - p), "{{#", 3))) {
		work *= 3;
		if (work > (double)(1u << 22))
			return 1;
		p += 3;
	}
	return 3;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data, *sep;
	size_t tlen = size;
	char *input = NULL;
	struct rm_tdata *d;
	struct rm_error err;
	struct rm_sb out, again;
	int rc;

	sep = memmem(data, size, "\n====\n", 6);
	if (sep) {
		size_t off = (size_t)(sep - text) + 6;

		tlen = (size_t)(sep - text);
		input = strndup(text + off, size - off);
		if (!input)
			abort();
	}
	d = make_data(input ? input : "{{input}} {{#none}}", list_width(text, tlen));

	rm_error_clear(&err);
	rm_sb_init(&out);
	rm_sb_adds(&out, MARK);
	rc = rm_template_render_text(NULL, "fuzz.txt", text, tlen, d, &out, &err);
	if (rc) {
		if (err.kind == RM_OK || !err.msg[0])
			__builtin_trap();
		if (out.len != strlen(MARK) || memcmp(out.buf, MARK, out.len))
			__builtin_trap(); /* an error appends nothing */
	} else {
		rm_error_clear(&err);
		rm_sb_init(&again);
		rm_sb_adds(&again, MARK);
		if (rm_template_render_text(NULL, "fuzz.txt", text, tlen, d, &again, &err) ||
		    again.len != out.len || memcmp(again.buf, out.buf, out.len))
			__builtin_trap();
		rm_sb_release(&again);
	}
	rm_sb_release(&out);
	rm_tdata_free(d);
	free(input);
	return 0;
}
