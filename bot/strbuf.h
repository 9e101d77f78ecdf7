/*
 * strbuf.h - a growable, always NUL-terminated byte buffer.
 *
 * Owns: the buffer memory.  Must not: know about anything but bytes; it is a
 * low-level primitive and only talks to libc.
 *
 * Invariants: `buf` is never NULL after rm_sb_init() or RM_SB_INIT (both point
 * it at the shared empty string rm_sb_empty); buf[len] == '\0'.
 * Allocation failure aborts the process (robotmail treats OOM as fatal: there
 * is nothing sensible to do with a half-built report).
 */
#ifndef RM_STRBUF_H
#define RM_STRBUF_H

#include <stddef.h>
#include <stdint.h>

struct rm_sb {
	char *buf;
	size_t len;
	size_t alloc;
};

/* The empty string every unallocated rm_sb points at (never written: a
 * buffer is copied out of it before its first byte is added). */
extern char rm_sb_empty[1];
#define RM_SB_INIT { rm_sb_empty, 0, 0 }

void rm_sb_init(struct rm_sb *sb);
/* Free the contents; the struct can be reused after rm_sb_init(). */
void rm_sb_release(struct rm_sb *sb);
/* Hand the buffer to the caller, who must free() it; sb is reset to empty. */
char *rm_sb_detach(struct rm_sb *sb, size_t *len);
void rm_sb_grow(struct rm_sb *sb, size_t extra);
void rm_sb_add(struct rm_sb *sb, const void *data, size_t len);
void rm_sb_adds(struct rm_sb *sb, const char *s);
void rm_sb_addc(struct rm_sb *sb, char c);
void rm_sb_addf(struct rm_sb *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append `n` copies of `c`. */
void rm_sb_addn(struct rm_sb *sb, char c, size_t n);
void rm_sb_reset(struct rm_sb *sb);

/* xmalloc family: abort on out-of-memory. */
void *rm_xmalloc(size_t n);
void *rm_xcalloc(size_t n, size_t size);
void *rm_xrealloc(void *p, size_t n);
char *rm_xstrdup(const char *s);
char *rm_xstrndup(const char *s, size_t n);
/* A malloc'd string formatted like printf (git's xstrfmt); caller frees. */
char *rm_xstrfmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Grow an array so it can hold at least `need` elements of `size` bytes. */
void *rm_xgrow(void *p, size_t *alloc, size_t need, size_t size);
/* Have the kernel back the whole pages within the n bytes at p now, in one
 * call (madvise MADV_POPULATE_WRITE, Linux 5.14), for a block just
 * allocated that the caller is about to write in full: its pages would
 * otherwise fault in one at a time on first touch (measured on this VM:
 * ~17 us a page that way, ~8 us populated).  Changes no byte; does nothing
 * for blocks under 4 pages, or where the kernel cannot.  Heap growth since
 * the last call is first advised to use huge pages (rm_heap_grown). */
void rm_prefault(void *p, size_t n);
/* rm_xcalloc for a table whose every page the caller will write (a hash
 * table filled to 3/4): its pages populated at once (rm_prefault), then
 * zeroed. */
void *rm_xcalloc_touched(size_t n, size_t size);

/* The UTF-8 sequence at p: its length (1-4) with *cp its code point, or 0
 * when p does not start a valid sequence (overlong forms, surrogates, code
 * points above U+10FFFF, a stray continuation byte), *cp then the byte. */
size_t rm_utf8_decode(const unsigned char *p, unsigned *cp);

/* Replace every byte that is not part of a valid UTF-8 sequence (overlong
 * forms, surrogates and code points above U+10FFFF included) by '?', in
 * place.  Text with it can be declared UTF-8 in mail and JSON. */
void rm_utf8_repair(char *s);

/* qsort/bsearch that accept an empty (possibly NULL) array. */
/* A fast 64-bit hash of p[0..n) for in-memory tables, and the rule caches'
 * file names and image checksums (yamlcache.h: against a damaged file, not
 * an attacker: every caller compares the keys or the cached bytes too). */
uint64_t rm_hash(const void *p, size_t n);
void rm_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));
/* Sort the n elements of size bytes at base by the NUL-terminated name
 * each points to (a char * at byte offset off), in strcmp order: what
 * rm_sort with a strcmp of the names does when the names are distinct (of
 * equal names the order is unspecified).  For the matrices' series: names
 * with long shared prefixes are read once per 8 bytes of them rather than
 * at each comparison (-10% of a 10x200k compare).  Allocates 24 bytes a
 * name; never more than O(n log n) string comparisons nor O(log n) stack.
 * With `at` (room for n, n < 2^32; the caller's): at[i] = where the
 * element that was at i is now. */
void rm_sort_by_name(void *base, size_t n, size_t size, size_t off, uint32_t *at);
/* Put the n elements of size bytes at base in the order from[] gives
 * (place j takes the element that was at from[j], a permutation of 0..n-1),
 * in place, one element aside; from[] is used up (every entry SIZE_MAX). */
void rm_permute(void *base, size_t n, size_t size, size_t *from);
void *rm_bsearch(const void *key, const void *base, size_t n, size_t size,
		 int (*cmp)(const void *, const void *));

#endif
