/* strbuf.c - see strbuf.h. */
#include "strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "heap.h"

char rm_sb_empty[1];

static void oom(void)
{
	fputs("robotmail: out of memory\n", stderr);
	abort();
}

void *rm_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		oom();
	return p;
}

void rm_prefault(void *p, size_t n)
{
#ifdef MADV_POPULATE_WRITE
	static uintptr_t page;
	uintptr_t start, end;

	rm_heap_grown(); /* the heap may have grown for this block: advise it first */
	if (!page) {
		long ps = sysconf(_SC_PAGESIZE);

		page = ps > 0 ? (uintptr_t)ps : 4096;
	}
	start = ((uintptr_t)p + page - 1) & ~(page - 1);
	end = ((uintptr_t)p + n) & ~(page - 1);
	if (end > start && end - start >= 4 * page)
		(void)madvise((void *)start, end - start, MADV_POPULATE_WRITE);
#else
	(void)p;
	(void)n;
#endif
}

void *rm_xcalloc_touched(size_t n, size_t size)
{
	void *p;

	if (size && n > SIZE_MAX / size)
		oom();
	p = rm_xmalloc(n * size);
	rm_prefault(p, n * size);
	memset(p, 0, n * size);
	return p;
}

void *rm_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		oom();
	return p;
}

void *rm_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		oom();
	return q;
}

char *rm_xstrdup(const char *s)
{
	return rm_xstrndup(s, strlen(s));
}

char *rm_xstrndup(const char *s, size_t n)
{
	char *p = rm_xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *rm_xstrfmt(const char *fmt, ...)
{
	va_list ap;
	int n;
	char *p;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom();
	p = rm_xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

void *rm_xgrow(void *p, size_t *alloc, size_t need, size_t size)
{
	size_t n;

	if (need <= *alloc)
		return p;
	n = *alloc ? *alloc : 8;
	while (n < need) {
		if (n > ((size_t)-1) / 2 / size)
			oom();
		n *= 2;
	}
	*alloc = n;
	return rm_xrealloc(p, n * size);
}

void rm_sb_init(struct rm_sb *sb)
{
	sb->buf = rm_sb_empty;
	sb->len = 0;
	sb->alloc = 0;
}

void rm_sb_release(struct rm_sb *sb)
{
	if (sb->alloc)
		free(sb->buf);
	rm_sb_init(sb);
}

char *rm_sb_detach(struct rm_sb *sb, size_t *len)
{
	char *r;

	if (!sb->alloc)
		rm_sb_grow(sb, 0);
	r = sb->buf;
	if (len)
		*len = sb->len;
	rm_sb_init(sb);
	return r;
}

void rm_sb_grow(struct rm_sb *sb, size_t extra)
{
	size_t need;

	if (!sb->buf)
		rm_sb_init(sb);
	need = sb->len + extra + 1;
	if (need < sb->len)
		oom();
	if (need <= sb->alloc)
		return;
	if (!sb->alloc) {
		size_t n = need < 64 ? 64 : need;
		char *p = rm_xmalloc(n);

		memcpy(p, sb->buf, sb->len + 1);
		sb->buf = p;
		sb->alloc = n;
		return;
	}
	sb->buf = rm_xgrow(sb->buf, &sb->alloc, need, 1);
}

void rm_sb_add(struct rm_sb *sb, const void *data, size_t len)
{
	rm_sb_grow(sb, len);
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void rm_sb_adds(struct rm_sb *sb, const char *s)
{
	rm_sb_add(sb, s, strlen(s));
}

void rm_sb_addc(struct rm_sb *sb, char c)
{
	rm_sb_add(sb, &c, 1);
}

void rm_sb_addn(struct rm_sb *sb, char c, size_t n)
{
	rm_sb_grow(sb, n);
	memset(sb->buf + sb->len, c, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void rm_sb_addf(struct rm_sb *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	rm_sb_grow(sb, 64);
	va_start(ap, fmt);
	n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sb->alloc - sb->len) {
		rm_sb_grow(sb, (size_t)n);
		va_start(ap, fmt);
		vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, ap);
		va_end(ap);
	}
	sb->len += (size_t)n;
}

void rm_sb_reset(struct rm_sb *sb)
{
	if (!sb->buf)
		rm_sb_init(sb);
	sb->len = 0;
	if (sb->alloc)
		sb->buf[0] = '\0';
}

void rm_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

/* rm_sort_by_name: 8 bytes of an element's name from the current depth
 * (big-endian, so that integer order is byte order; zeros from its NUL
 * on), the name, and the element's place in the input. */
struct chunked {
	uint64_t k;
	const unsigned char *s;
	size_t i;
};

/* The 8 bytes of s from byte d on; s has no NUL before d. */
static uint64_t chunk_at(const unsigned char *s, size_t d)
{
	uint64_t k = 0;
	int b;

	s += d;
	for (b = 0; b < 8; b++) {
		k <<= 8;
		if (*s)
			k |= *s++;
	}
	return k;
}

static void chunked_swap(struct chunked *a, struct chunked *b)
{
	struct chunked t = *a;

	*a = *b;
	*b = t;
}

static int chunked_strcmp(const void *pa, const void *pb)
{
	return strcmp((const char *)((const struct chunked *)pa)->s,
		      (const char *)((const struct chunked *)pb)->s);
}

/* Sort v[0..n), whose names share their first d bytes and hold their
 * bytes d..d+7 in .k: a three-way quicksort on .k (integers in the array,
 * no name read); a run of equal keys without a NUL in them is then sorted
 * on the next 8 bytes (its names read once for them).  Names sharing a
 * long prefix ("perf-profile.calltrace.cycles-pp.") are so read once per
 * 8 bytes of it, where a strcmp sort reads two names at every comparison:
 * on 200,000 names spread over ~10 MiB, a cache miss each.
 * The two smaller of the three parts recurse and the largest is looped on,
 * so the stack holds O(log n) frames whatever the names' length; a few
 * names, or partitions that keep splitting badly (budget), end in a strcmp
 * sort from byte d (O(n log n) comparisons at worst). */
static void chunked_sort(struct chunked *v, size_t n, size_t d, unsigned budget)
{
	while (n > 1) {
		struct chunked *part[3];
		size_t len[3], dep[3], lt = 0, gt = n, i = 1, k, big = 0;
		uint64_t pv, a, b, c;

		if (n < 8 || !budget) {
			qsort(v, n, sizeof(*v), chunked_strcmp); /* they share d bytes */
			return;
		}
		budget--;
		/* median of three keys as the pivot, moved to v[0] */
		a = v[0].k, b = v[n / 2].k, c = v[n - 1].k;
		k = (a < b) ? (b < c ? n / 2 : a < c ? n - 1 : 0) : (a < c ? 0 : b < c ? n - 1 : n / 2);
		chunked_swap(&v[0], &v[k]);
		pv = v[0].k;
		/* Dijkstra's three-way partition: [0,lt) <, [lt,i) =, [gt,n) > */
		while (i < gt) {
			if (v[i].k < pv)
				chunked_swap(&v[lt++], &v[i++]);
			else if (v[i].k > pv)
				chunked_swap(&v[i], &v[--gt]);
			else
				i++;
		}
		part[0] = v, len[0] = lt, dep[0] = d;
		part[1] = v + lt, len[1] = gt - lt, dep[1] = d + 8;
		part[2] = v + gt, len[2] = n - gt, dep[2] = d;
		if (!(pv & 0xff)) {
			len[1] = 0; /* the key holds the names' ends: all equal */
		} else {
			/* the names 16 on asked for ahead (their places are
			 * random: -15% of the sort at 10x200k); each has bytes
			 * up to d + 8 at least, the key's last one not NUL */
			for (i = lt; i < gt; i++) {
				if (i + 16 < gt)
					__builtin_prefetch(v[i + 16].s + d + 8);
				v[i].k = chunk_at(v[i].s, d + 8);
			}
		}
		for (k = 1; k < 3; k++)
			if (len[k] > len[big])
				big = k;
		for (k = 0; k < 3; k++)
			if (k != big)
				chunked_sort(part[k], len[k], dep[k], budget);
		v = part[big], n = len[big], d = dep[big];
	}
}

void rm_sort_by_name(void *base, size_t n, size_t size, size_t off, uint32_t *at)
{
	unsigned char *b = base;
	struct chunked *v;
	unsigned budget = 8;
	size_t i, *from;

	if (n < 2) {
		if (n && at)
			at[0] = 0;
		return;
	}
	for (i = n; i > 1; i >>= 1)
		budget += 2; /* 2 log2(n) + 8 levels of bad splits, then strcmp */
	v = rm_xmalloc(n * sizeof(*v));
	for (i = 0; i < n; i++) {
		const char *s;

		memcpy(&s, b + i * size + off, sizeof(s));
		v[i].s = (const unsigned char *)s;
		v[i].k = chunk_at(v[i].s, 0);
		v[i].i = i;
	}
	chunked_sort(v, n, 0, budget);
	/* the places in, the keys out: v's memory becomes from[], packed in
	 * ascending order (from[i] ends before v[i + 1] starts: nothing not
	 * yet read is written over), then shrunk, so no more memory is held */
	for (i = 0; i < n; i++) {
		size_t was = v[i].i;

		if (at)
			at[was] = (uint32_t)i;
		memcpy((unsigned char *)v + i * sizeof(was), &was, sizeof(was));
	}
	from = rm_xrealloc(v, n * sizeof(*from));
	rm_permute(base, n, size, from);
	free(from);
}

void rm_permute(void *base, size_t n, size_t size, size_t *from)
{
	unsigned char *b = base, *tmp = rm_xmalloc(size ? size : 1);
	size_t i, j;

	/* each cycle of the permutation with one element aside; a place done
	 * is marked in from[] */
	for (i = 0; i < n; i++) {
		if (from[i] == SIZE_MAX)
			continue;
		memcpy(tmp, b + i * size, size);
		for (j = i;;) {
			size_t f = from[j];

			from[j] = SIZE_MAX;
			if (f == i) {
				memcpy(b + j * size, tmp, size);
				break;
			}
			memcpy(b + j * size, b + f * size, size);
			j = f;
		}
	}
	free(tmp);
}

void *rm_bsearch(const void *key, const void *base, size_t n, size_t size,
		 int (*cmp)(const void *, const void *))
{
	return n ? bsearch(key, base, n, size, cmp) : NULL;
}

size_t rm_utf8_decode(const unsigned char *p, unsigned *cp)
{
	size_t n, i;
	unsigned c;

	if (*p < 0x80) {
		*cp = *p;
		return 1;
	}
	if ((*p >> 5) == 6) {
		n = 2;
		c = *p & 0x1f;
	} else if ((*p >> 4) == 14) {
		n = 3;
		c = *p & 0x0f;
	} else if ((*p >> 3) == 30) {
		n = 4;
		c = *p & 0x07;
	} else {
		*cp = *p;
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80) {
			*cp = *p;
			return 0;
		}
		c = (c << 6) | (p[i] & 0x3f);
	}
	if ((n == 2 && c < 0x80) || (n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff)) {
		*cp = *p;
		return 0;
	}
	*cp = c;
	return n;
}

void rm_utf8_repair(char *s)
{
	unsigned char *p = (unsigned char *)s;

	while (p && *p) {
		unsigned cp;
		size_t n = rm_utf8_decode(p, &cp);

		if (n)
			p += n;
		else
			*p++ = '?';
	}
}

/* One splitmix64-style step: w mixed into h with a multiply. */
static inline uint64_t hash_step(uint64_t h, uint64_t w)
{
	h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 31);
}

uint64_t rm_hash(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ (uint64_t)n, w;

	/* Long inputs (the rule caches' files, hundreds of KiB) four words a
	 * step in four independent lanes: one lane is a chain of multiplies
	 * the cpu cannot overlap, ~1.4 GB/s here; four run side by side
	 * (3.5x on a 300 KiB image).  Short keys never reach this loop. */
	if (n >= 64) {
		uint64_t l[4] = { h, h ^ 0x243f6a8885a308d3ull, h ^ 0x13198a2e03707344ull,
				  h ^ 0xa4093822299f31d0ull };
		uint64_t x[4];

		while (n >= 32) {
			memcpy(x, s, 32);
			l[0] = hash_step(l[0], x[0]);
			l[1] = hash_step(l[1], x[1]);
			l[2] = hash_step(l[2], x[2]);
			l[3] = hash_step(l[3], x[3]);
			s += 32;
			n -= 32;
		}
		h = hash_step(hash_step(hash_step(l[0], l[1]), l[2]), l[3]);
	}
	/* eight bytes a step, each mixed in with a multiply (splitmix64's) */
	while (n >= 8) {
		memcpy(&w, s, 8);
		h = hash_step(h, w);
		s += 8;
		n -= 8;
	}
	w = 0;
	memcpy(&w, s, n);
	h = (h ^ w) * 0x94d049bb133111ebull;
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 32;
	return h;
}
