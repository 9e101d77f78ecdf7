/*
 * fuzz_evidence.c - libFuzzer target: arbitrary bytes as a kernel log.
 *
 * The input is scanned by rm_evidence_scan_memory (libarchive's raw reader
 * first: the bytes may also be taken for xz, gzip or zstd) twice: for the
 * stamp of the first stamped line of the input, and for a fixed stamp,
 * under small limits.
 *
 * Checked: a result is an excerpt or a problem, never both missing when a
 * stamp was asked for; an excerpt keeps the limits (lines, bytes) and ends
 * in a newline; no more than max_log bytes are read, and a log cut there
 * carries a warning.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "evidence.h"

static void check(const struct rm_evidence *e, const struct rm_evidence_limits *lim)
{
	size_t lines = 0;
	const char *p;

	if (!e->excerpt && !e->problem)
		abort();
	/* never more than max_log bytes read; a log cut there is said to the operator */
	if (e->bytes > lim->max_log || (e->cut && (e->bytes != lim->max_log || !e->nwarnings)))
		abort();
	if (!e->excerpt)
		return;
	for (p = e->excerpt; *p; p++)
		lines += *p == '\n';
	if (lines > lim->max_lines || strlen(e->excerpt) > lim->max_bytes ||
	    e->excerpt[strlen(e->excerpt) - 1] != '\n')
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rm_evidence_limits lim;
	struct rm_evidence e;
	char stamp[32] = "";
	const char *p = (const char *)data, *end = p + size;

	rm_evidence_limits_default(&lim);
	lim.max_lines = 40;
	lim.max_bytes = 2048;
	lim.max_line = 200;
	lim.max_log = 256u << 10; /* a bomb in 64 KiB stays fast; the cap's logic is the same */
	/* the first stamped line's stamp */
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (rm_evidence_line_stamp(p, len, stamp, sizeof(stamp)))
			break;
		stamp[0] = '\0';
		p += len + 1;
	}
	if (stamp[0]) {
		rm_evidence_scan_memory("dmesg", data, size, stamp, &lim, &e);
		check(&e, &lim);
		rm_evidence_free(&e);
	}
	rm_evidence_scan_memory("dmesg", data, size, "12.841558", &lim, &e);
	check(&e, &lim);
	rm_evidence_free(&e);
	return 0;
}
