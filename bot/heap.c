/* heap.c - see heap.h. */
#include "heap.h"

#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#define HUGE_PAGE ((uintptr_t)2 << 20) /* x86-64's and arm64's (4 KiB base pages) PMD size */

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25 /* Linux 6.1 uapi; older headers lack it, older kernels say EINVAL */
#endif

/* The break up to which the heap has been advised; 0 before rm_heap_setup
 * (or with ROBOTMAIL_HEAP=plain): nothing to keep up. */
static uintptr_t advised;

static uintptr_t page_down(uintptr_t a)
{
	long ps = sysconf(_SC_PAGESIZE);

	return a & ~(uintptr_t)(ps > 0 ? ps - 1 : 4095);
}

static void advise(uintptr_t from, uintptr_t to)
{
	from = page_down(from);
	if (to > from)
		(void)madvise((void *)from, to - from, MADV_HUGEPAGE);
}

void rm_heap_setup(void)
{
#if defined(__GLIBC__) /* mallopt's parameters and mallinfo2 are glibc's (2.33+) */
	const char *env = getenv("ROBOTMAIL_HEAP");
	uintptr_t start, cur;
	void *volatile first;

	struct rlimit rl;

	if (advised || (env && !strcmp(env, "plain")))
		return;
	/* A data or address-space limit counts address space, touched or
	 * not: the padding reserved ahead (up to 18 MiB) would fail a
	 * process near its limit that malloc's defaults keep within it */
	if ((getrlimit(RLIMIT_DATA, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) ||
	    (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY))
		return;
	mallopt(M_MMAP_THRESHOLD, 64 << 20);
	mallopt(M_TRIM_THRESHOLD, 128 << 20);
	mallopt(M_TOP_PAD, 16 << 20);
	start = (uintptr_t)sbrk(0);
	if (start == (uintptr_t)-1)
		return;
	/* Before malloc has made its heap (nothing allocated yet in the main
	 * arena), move the break to the next 2 MiB boundary so the heap starts
	 * there: the pages skipped are address space only, never touched. */
	if (mallinfo2().arena == 0 && (start & (HUGE_PAGE - 1))) {
		uintptr_t al = (start + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);

		if (sbrk((intptr_t)(al - start)) != (void *)-1)
			start = al;
	}
	/* Have malloc make (or grow) its heap now, so it can be advised before
	 * anything but this block's header is written to it. */
	first = malloc(1);
	if (first)
		*(volatile char *)first = 0; /* the header's page: touched anyway */
	free(first);
	cur = (uintptr_t)sbrk(0);
	if (cur == (uintptr_t)-1 || cur <= start) {
		advised = start; /* the heap grows later: rm_heap_grown advises it */
		return;
	}
	advise(start, cur);
	/* The heap's first 2 MiB already has a page (that header): a huge
	 * page is then only had by collapsing it.  Only when the heap starts
	 * on the boundary (a heap malloc made before us does not). */
	if (!(start & (HUGE_PAGE - 1)) && cur - start >= HUGE_PAGE)
		(void)madvise((void *)start, HUGE_PAGE, MADV_COLLAPSE);
	advised = cur;
#endif
}

void rm_heap_grown(void)
{
	uintptr_t cur;

	if (!advised)
		return;
	cur = (uintptr_t)sbrk(0);
	if (cur == (uintptr_t)-1)
		return;
	if (cur > advised)
		advise(advised, cur);
	advised = cur; /* a trimmed heap (lower break) is advised again as it regrows */
}
