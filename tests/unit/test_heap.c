/* test_heap.c - the heap policy (bot/heap.c): after rm_heap_setup, a block
 * too big for malloc's default mmap threshold comes from the heap, and heap
 * growth advised by rm_prefault carries MADV_HUGEPAGE.  Runs in the unit
 * test process, whose heap exists already (robotmail's main calls setup
 * before its heap is made: tests/suites/heap.sh checks that path).  Skipped
 * where the answer is not ours: another malloc (ASan's), or a kernel
 * without transparent huge pages. */
#include "unit.h"

#include <stdio.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "heap.h"
#include "strbuf.h"

/* The "VmFlags:" line and name of the mapping holding p in
 * /proc/self/smaps, into flags/name; 0, or -1 when not found. */
static int mapping_of(const void *p, char *flags, size_t nflags, char *name, size_t nname)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	int in = 0, found = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		char path[256] = "";

		if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %255s", &lo, &hi, path) >= 2 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			in = (unsigned long)p >= lo && (unsigned long)p < hi;
			if (in)
				snprintf(name, nname, "%s", path);
		} else if (in && !strncmp(line, "VmFlags:", 8)) {
			snprintf(flags, nflags, "%s", line + 8);
			found = 0;
			break;
		}
	}
	fclose(f);
	return found;
}

static void test_big_blocks_from_advised_heap(void **state)
{
	char flags[512], name[256];
	size_t n;
	char *p;

	(void)state;
#if defined(__SANITIZE_ADDRESS__)
	skip(); /* ASan's allocator ignores mallopt and has no brk heap */
#endif
	rm_heap_setup();
	/* more than the heap holds free (earlier groups left some), so that
	 * it grows; over malloc's default 128 KiB mmap threshold, under ours */
	n = mallinfo2().fordblks + (8u << 20);
	if (n >= 60u << 20)
		skip();
	p = rm_xmalloc(n);
	rm_prefault(p, n);
	memset(p, 1, n);
	/* its end: its start may lie in the heap as it was before (the top
	 * chunk's old free space), which was not advised */
	assert_int_equal(mapping_of(p + n - 1, flags, sizeof(flags), name, sizeof(name)), 0);
	/* M_MMAP_THRESHOLD: from the heap, not a mapping of its own */
	assert_string_equal(name, "[heap]");
	/* rm_prefault advised the growth (VmFlags "hg"), where the kernel has
	 * transparent huge pages at all */
	if (access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK) == 0)
		assert_non_null(strstr(flags, " hg"));
	free(p);
	/* freed memory stays with the heap: the same block again is had
	 * without a new mapping (the break does not move back) */
	{
		void *brk_before = sbrk(0);

		p = rm_xmalloc(n);
		assert_ptr_equal(sbrk(0), brk_before);
		assert_int_equal(mapping_of(p, flags, sizeof(flags), name, sizeof(name)), 0);
		assert_string_equal(name, "[heap]");
		free(p);
	}
}

const struct CMUnitTest unit_heap_tests[] = {
	cmocka_unit_test(test_big_blocks_from_advised_heap),
};
const size_t unit_heap_ntests = sizeof(unit_heap_tests) / sizeof(unit_heap_tests[0]);
