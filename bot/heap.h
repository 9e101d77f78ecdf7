/*
 * heap.h - how the process's heap gets its memory from the kernel.
 *
 * Owns: malloc's tunables (mallopt) and the kernel's advice on the heap's
 * pages (madvise MADV_HUGEPAGE and MADV_COLLAPSE): set once by main.c
 * before a command runs (rm_heap_setup), kept up as the heap grows
 * (rm_heap_grown, from rm_prefault, just before a large block is filled).
 * Must not: allocate for callers, change what any allocation returns or
 * holds, print, or fail: every step is advice, and where the kernel or the
 * allocator does not take it the heap simply stays as malloc makes it.
 *
 * Why: memory touched for the first time is most of what a short command
 * costs beyond its own arithmetic.  Measured on the 2-core VM the project
 * runs on (shadow paging): the first write to a fresh 4 KiB page costs
 * 8-13 us (7 us even after MADV_POPULATE_WRITE), where one 2 MiB huge page
 * costs 150-300 us for all its 512 pages.  `robotmail compare` of the
 * 10x2000 bench tree touched ~2.2 MiB of fresh heap (decoded rule files,
 * then the tables), 3-5 ms of its 17.
 * So, for the life of the process:
 * - freed memory stays in the heap for the next allocation
 *   (M_MMAP_THRESHOLD 64 MiB, M_TRIM_THRESHOLD 128 MiB): by default a
 *   block of 128 KiB or more was mapped on its own and unmapped at free, so
 *   the next one (the next rule file's nodes, a table) touched fresh pages
 *   again;
 * - the heap grows 16 MiB of address space at a time (M_TOP_PAD; pages
 *   never touched cost nothing);
 * - the heap starts on a 2 MiB boundary and carries MADV_HUGEPAGE, so that
 *   where transparent huge pages are "always" or "madvise" each 2 MiB of
 *   it is one page.  Its first 2 MiB, already touched by malloc's own chunk
 *   header when the advice can first be given, is collapsed into a huge page
 *   (MADV_COLLAPSE, Linux 6.1).  A later growth is advised by rm_heap_grown.
 * Costs: a peak RSS up to 2 MiB higher, and memory freed is kept for the
 * process's next allocations, not given back before exit (up to 128 MiB
 * free at the heap's top): right for robotmail's commands, which are
 * short-lived (a cron run, a compare, a report) or, for `listen --follow`,
 * long-lived but small, each pass reusing what the last one freed.
 *
 * Not taken under a finite RLIMIT_DATA or RLIMIT_AS (`ulimit -d`, `-v`,
 * systemd's LimitDATA=/LimitAS=): those count address space, touched or
 * not, and the 18 MiB reserved ahead would make a process near its limit
 * fail where malloc's defaults keep it within (a memory cgroup, which
 * counts pages used, is no reason to step aside).
 * ROBOTMAIL_HEAP=plain leaves malloc and the kernel at their defaults (the
 * benchmark's "before", and a way out should a platform misbehave).
 *
 * Not thread-safe: robotmail runs one thread.
 */
#ifndef RM_HEAP_H
#define RM_HEAP_H

/* Set malloc's tunables and advise the heap, once, before the command's
 * first large allocation (main.c calls it after parsing the command name).
 * Best effort: never fails, never prints. */
void rm_heap_setup(void);

/* Extend the huge-page advice to heap growth since the last call: called
 * by rm_prefault (strbuf.c) before a large block is populated.  Cheap
 * (sbrk(0) does not enter the kernel) and a no-op before rm_heap_setup or
 * with ROBOTMAIL_HEAP=plain. */
void rm_heap_grown(void);

#endif
