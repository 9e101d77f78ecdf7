/* matrix.c - see matrix.h. */
#include "matrix.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonload.h"
#include "strbuf.h"
#include "text.h"

/* ------------------------------------------------------------ matrices */

static int cmp_series(const void *a, const void *b)
{
	return strcmp(((const struct rm_series *)a)->name, ((const struct rm_series *)b)->name);
}

const struct rm_series *rm_matrix_get(const struct rm_matrix *m, const char *name)
{
	struct rm_series key;

	key.name = (char *)name;
	return rm_bsearch(&key, m->s, m->n, sizeof(*m->s), cmp_series);
}

/* The pool: series of a matrix the reader made, carved from big chunks (one
 * malloc per chunk, not three per stat). */
struct chunk {
	struct chunk *next;
	size_t used, cap;
	size_t ready; /* data[0..ready) populated (rm_prefault) */
	max_align_t data[];
};

/* A chunk's pages are populated POOL_AHEAD bytes at a time, as the pool
 * reaches them: one madvise for 16 pages instead of 16 page faults, and at
 * most that much of a chunk's tail populated and never used. */
#define POOL_AHEAD ((size_t)64 << 10)

static void *pool_alloc(struct rm_matrix *m, size_t n)
{
	struct chunk *c = m->pool;
	void *p;

	n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
	if (!c || c->cap - c->used < n) {
		size_t cap = n > (256u << 10) ? n : 256u << 10;

		c = rm_xmalloc(sizeof(*c) + cap);
		c->next = m->pool;
		c->used = 0;
		c->ready = 0;
		c->cap = cap;
		m->pool = c;
	}
	p = (char *)c->data + c->used;
	c->used += n;
	if (c->used > c->ready) {
		size_t to = c->used + POOL_AHEAD < c->cap ? c->used + POOL_AHEAD : c->cap;

		rm_prefault((char *)c->data + c->ready, to - c->ready);
		c->ready = to;
	}
	return p;
}

void rm_matrix_free(struct rm_matrix *m)
{
	if (!m->shared) {
		struct chunk *c = m->pool;
		size_t i;

		for (i = 0; i < m->n; i++) {
			if (m->s[i].pooled)
				continue;
			free(m->s[i].name);
			free(m->s[i].v);
			free(m->s[i].is_int);
		}
		free(m->s);
		free(m->file_order);
		while (c) {
			struct chunk *next = c->next;

			free(c);
			c = next;
		}
	}
	memset(m, 0, sizeof(*m));
}

/* ------------------------------------------------------------ the scanner */

/*
 * A byte scanner over the whole file that accepts what jansson's json_loadb
 * (JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL) accepts after rm_json_load's
 * NaN/Infinity rewrite: the same grammar, the same checks.  It only decides
 * valid or not; the wording of a refusal is jansson's (see matrix.h).
 */
struct scan {
	const unsigned char *buf, *p, *end;
	bool bad;                 /* a syntax error was found */
	/* keys of nested objects (values no stat keeps, checked for duplicates
	 * as jansson does): decoded into `arena`, one entry per key */
	struct rm_sb arena;
	struct nkey {
		size_t off, len;
		unsigned level;
	} *nk;
	size_t nnk, nkalloc;
	struct rm_sb tmp;         /* a decoded string */
};

static inline bool is_ws(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static inline void skip_ws(struct scan *s)
{
	while (s->p < s->end && is_ws(*s->p))
		s->p++;
}

static inline bool is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static int hexval(unsigned char c)
{
	if (is_digit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* \uXXXX at p (p points at the 'u'); -1 when not 4 hex digits */
static long hex4(const unsigned char *p, const unsigned char *end)
{
	long v = 0;
	int i;

	if (end - p < 5)
		return -1;
	for (i = 1; i <= 4; i++) {
		int h = hexval(p[i]);

		if (h < 0)
			return -1;
		v = v * 16 + h;
	}
	return v;
}

/* One UTF-8 sequence at p (first byte >= 0x80) as jansson's utf8_check_first
 * and utf8_check_full judge it: its length, or 0 when invalid. */
static size_t utf8_len(const unsigned char *p, const unsigned char *end)
{
	unsigned char u = p[0];
	size_t n, i;
	unsigned long v;

	if (u >= 0xC2 && u <= 0xDF) {
		n = 2;
		v = u & 0x1F;
	} else if (u >= 0xE0 && u <= 0xEF) {
		n = 3;
		v = u & 0x0F;
	} else if (u >= 0xF0 && u <= 0xF4) {
		n = 4;
		v = u & 0x07;
	} else {
		return 0;
	}
	if ((size_t)(end - p) < n)
		return 0;
	for (i = 1; i < n; i++) {
		if (p[i] < 0x80 || p[i] > 0xBF)
			return 0;
		v = (v << 6) | (p[i] & 0x3F);
	}
	if (v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF) || (n == 3 && v < 0x800) ||
	    (n == 4 && v < 0x10000))
		return 0;
	return n;
}

static void put_utf8(struct rm_sb *sb, unsigned long cp)
{
	char b[4];

	if (cp < 0x80) {
		b[0] = (char)cp;
		rm_sb_add(sb, b, 1);
	} else if (cp < 0x800) {
		b[0] = (char)(0xC0 | (cp >> 6));
		b[1] = (char)(0x80 | (cp & 0x3F));
		rm_sb_add(sb, b, 2);
	} else if (cp < 0x10000) {
		b[0] = (char)(0xE0 | (cp >> 12));
		b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		b[2] = (char)(0x80 | (cp & 0x3F));
		rm_sb_add(sb, b, 3);
	} else {
		b[0] = (char)(0xF0 | (cp >> 18));
		b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
		b[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
		b[3] = (char)(0x80 | (cp & 0x3F));
		rm_sb_add(sb, b, 4);
	}
}

#define ONES 0x0101010101010101ull
#define HIGHS 0x8080808080808080ull

/* Has w a zero byte?  Has it a byte below n (n <= 128)?  (exact as yes/no) */
#define HAS_ZERO(w) (((w) - ONES) & ~(w) & HIGHS)
#define HAS_LESS(w, n) (((w) - ONES * (n)) & ~(w) & HIGHS)

/* Has w a byte a JSON string cannot hold as it is, or a non-ASCII one? */
static inline bool has_special(uint64_t w)
{
	return (w & HIGHS) || HAS_LESS(w, 0x20) || HAS_ZERO(w ^ (ONES * '"')) ||
	       HAS_ZERO(w ^ (ONES * '\\'));
}

/* Is name[0..len) printable ASCII without blanks (what
 * rm_matrix_check_name accepts without decoding)? */
static bool name_plain(const char *name, size_t len)
{
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		uint64_t w;

		memcpy(&w, name + i, 8);
		if ((w & HIGHS) || HAS_LESS(w, 0x21) || HAS_ZERO(w ^ (ONES * 0x7f)))
			return false;
	}
	for (; i < len; i++)
		if ((unsigned char)name[i] <= 0x20 || (unsigned char)name[i] >= 0x7f)
			return false;
	return true;
}

/* A string at s->p (on the opening quote).  When out is not NULL it gets the
 * decoded bytes (reset first).  Returns 0, or -1 (s->bad) when jansson would
 * refuse it. */
static int scan_string(struct scan *s, struct rm_sb *out)
{
	const unsigned char *p = s->p + 1, *end = s->end, *run = p;

	if (out)
		rm_sb_reset(out);
	for (;;) {
		unsigned char c;

		/* eight plain bytes a step: none a quote, a backslash, a control
		 * character or a byte of a UTF-8 sequence (the loop below reads
		 * those one by one) */
		while (end - p >= 8) {
			uint64_t w;

			memcpy(&w, p, 8);
			if (has_special(w))
				break;
			p += 8;
		}
		if (p >= end)
			goto bad;
		c = *p;
		if (c == '"')
			break;
		if (c < 0x20)
			goto bad;
		if (c >= 0x80) {
			size_t n = utf8_len(p, end);

			if (!n)
				goto bad;
			p += n;
			continue;
		}
		if (c != '\\') {
			p++;
			continue;
		}
		/* an escape */
		if (out)
			rm_sb_add(out, run, (size_t)(p - run));
		if (p + 1 >= end)
			goto bad;
		c = p[1];
		if (c == 'u') {
			long v = hex4(p + 1, end);

			if (v < 0)
				goto bad;
			p += 6;
			if (v >= 0xD800 && v <= 0xDBFF) {
				long v2;

				if (end - p < 2 || p[0] != '\\' || p[1] != 'u')
					goto bad;
				v2 = hex4(p + 1, end);
				if (v2 < 0xDC00 || v2 > 0xDFFF)
					goto bad;
				p += 6;
				v = ((v - 0xD800) << 10) + (v2 - 0xDC00) + 0x10000;
			} else if (v >= 0xDC00 && v <= 0xDFFF) {
				goto bad;
			}
			if (out)
				put_utf8(out, (unsigned long)v);
		} else {
			char d;

			switch (c) {
			case '"': d = '"'; break;
			case '\\': d = '\\'; break;
			case '/': d = '/'; break;
			case 'b': d = '\b'; break;
			case 'f': d = '\f'; break;
			case 'n': d = '\n'; break;
			case 'r': d = '\r'; break;
			case 't': d = '\t'; break;
			default: goto bad;
			}
			if (out)
				rm_sb_addc(out, d);
			p += 2;
		}
		run = p;
	}
	if (out)
		rm_sb_add(out, run, (size_t)(p - run));
	s->p = p + 1;
	return 0;
bad:
	s->bad = true;
	return -1;
}

/* The exact powers of ten a double holds (10^22 is the last). */
static const double pow10_exact[] = { 1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
				      1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
				      1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };

/* One decimal digit into the mantissa: *m is exact while *nd, the digits
 * seen (leading zeros too), is at most 19. */
static inline void add_digit(uint64_t *m, int *nd, unsigned d)
{
	if (++*nd <= 19)
		*m = *m * 10 + d;
}

/*
 * A number at s->p, checked and converted in one pass.  With want, *v and
 * *is_int get its value as jansson would hold it (json_integer as a double,
 * or json_real).  Refused as jansson refuses it: a leading zero before a
 * digit, a bare '-', '.' or 'e' without digits, an integer beyond long long,
 * a real beyond DBL_MAX.
 *
 * A real is converted without strtod when it is simple enough to be exact:
 * its digits, without the point, make an integer M <= 2^53 (read exactly:
 * at most 19 digits, leading zeros included) and its decimal exponent e is
 * within +-22.  Then M
 * and 10^|e| are exact doubles and one multiplication or division rounds
 * once, correctly, which is strtod's result (Clinger's fast path).  Any other
 * real goes to strtod.
 */
static int scan_number(struct scan *s, bool want, double *v, bool *is_int)
{
	const unsigned char *p = s->p, *end = s->end, *digits;
	bool neg = false, real = false, fast = true;
	size_t nd;
	uint64_t m = 0;
	int ndig = 0;
	long e = 0;

	if (p < end && *p == '-') {
		neg = true;
		p++;
	}
	digits = p;
	if (p < end && *p == '0') {
		p++;
		if (p < end && is_digit(*p))
			goto bad;
	} else if (p < end && is_digit(*p)) {
		while (p < end && is_digit(*p))
			add_digit(&m, &ndig, (unsigned)(*p++ - '0'));
	} else {
		goto bad;
	}
	nd = (size_t)(p - digits);
	if (p < end && *p == '.') {
		real = true;
		p++;
		if (p >= end || !is_digit(*p))
			goto bad;
		while (p < end && is_digit(*p)) {
			add_digit(&m, &ndig, (unsigned)(*p++ - '0'));
			e--;
		}
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		long ex = 0;
		bool eneg = false;

		real = true;
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			eneg = *p++ == '-';
		if (p >= end || !is_digit(*p))
			goto bad;
		while (p < end && is_digit(*p)) {
			if (ex <= 1000)
				ex = ex * 10 + (*p - '0');
			p++;
		}
		if (ex > 1000)
			fast = false;
		e += eneg ? -ex : ex;
		nd = 400; /* an exponent: only strtod can tell an overflow */
	}
	if (!real) {
		/* json_int_t is long long: "too big integer" beyond it (19
		 * digits at most, so m holds them all) */
		if (nd > 19)
			goto bad;
		if (m > (unsigned long long)LLONG_MAX + (neg ? 1u : 0u))
			goto bad;
		if (want) {
			long long ll = neg ? (m == (unsigned long long)LLONG_MAX + 1u
						      ? LLONG_MIN
						      : -(long long)m)
					   : (long long)m;

			*v = (double)ll;
			*is_int = true;
		}
	} else if (want && fast && ndig <= 19 && m <= (1ull << 53) && e >= -22 && e <= 22) {
		double d = (double)m;

		d = e < 0 ? d / pow10_exact[-e] : d * pow10_exact[e];
		*v = neg ? -d : d;
		*is_int = false;
	} else if (want || nd > 308) {
		/* strtod reads a copy: the buffer is not NUL-terminated */
		char small[64], *text = small, *tend;
		size_t len = (size_t)(p - s->p);
		double d;

		if (len >= sizeof(small))
			text = rm_xmalloc(len + 1);
		memcpy(text, s->p, len);
		text[len] = '\0';
		errno = 0;
		d = strtod(text, &tend);
		if (text != small)
			free(text);
		if ((d == HUGE_VAL || d == -HUGE_VAL) && errno == ERANGE)
			goto bad;
		if (want) {
			*v = d;
			*is_int = false;
		}
	}
	s->p = p;
	return 0;
bad:
	s->bad = true;
	return -1;
}

/* true, false, null, and what rm_json_load reads as null: NaN, Infinity,
 * -Infinity.  Returns 0 and moves past it, or -1 (not one of them). */
static int scan_literal(struct scan *s)
{
	static const char *const words[] = { "true", "false", "null", "NaN", "Infinity",
					     "-Infinity" };
	size_t i, left = (size_t)(s->end - s->p);

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		size_t n = strlen(words[i]);

		if (left >= n && !memcmp(s->p, words[i], n)) {
			s->p += n;
			return 0;
		}
	}
	s->bad = true;
	return -1;
}

static int cmp_nkey(const void *a, const void *b, const char *arena)
{
	const struct nkey *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(arena + x->off, arena + y->off, n);

	if (c)
		return c;
	return (x->len > y->len) - (x->len < y->len);
}

/* the arena the nested-key comparator reads (qsort passes no context;
 * robotmail reads one matrix at a time) */
static const char *sort_arena;

static int cmp_nkey_sort(const void *a, const void *b)
{
	return cmp_nkey(a, b, sort_arena);
}

/* Close a nested object at `level`: refuse duplicate keys among its own. */
static int close_object(struct scan *s, unsigned level)
{
	size_t first = s->nnk;

	while (first > 0 && s->nk[first - 1].level == level)
		first--;
	if (s->nnk - first > 1) {
		size_t i;

		sort_arena = s->arena.buf;
		rm_sort(s->nk + first, s->nnk - first, sizeof(*s->nk), cmp_nkey_sort);
		for (i = first + 1; i < s->nnk; i++)
			if (!cmp_nkey(&s->nk[i - 1], &s->nk[i], s->arena.buf)) {
				s->bad = true;
				return -1;
			}
	}
	s->nnk = first;
	if (first == 0)
		rm_sb_reset(&s->arena);
	else
		s->arena.len = s->nk[first - 1].off + s->nk[first - 1].len;
	return 0;
}

/* A key of a nested object: decoded, kept for the duplicate check. */
static int nested_key(struct scan *s, unsigned level)
{
	if (s->p >= s->end || *s->p != '"' || scan_string(s, &s->tmp))
		goto bad;
	if (memchr(s->tmp.buf, '\0', s->tmp.len))
		goto bad; /* "NUL byte in object key not supported" */
	s->nk = rm_xgrow(s->nk, &s->nkalloc, s->nnk + 1, sizeof(*s->nk));
	s->nk[s->nnk].off = s->arena.len;
	s->nk[s->nnk].len = s->tmp.len;
	s->nk[s->nnk].level = level;
	s->nnk++;
	rm_sb_add(&s->arena, s->tmp.buf, s->tmp.len);
	return 0;
bad:
	s->bad = true;
	return -1;
}

/*
 * Any value at s->p, at nesting depth `depth` (the top-level value is 1),
 * checked and skipped without recursion.  *kind gets its first byte's class:
 * 'n' number, 's' string, 'l' literal, '[' or '{'.
 */
static int skip_value(struct scan *s, unsigned depth, int *kind)
{
	/* one entry per open container: '[' or '{' */
	char stackbuf[64], *stack = stackbuf;
	size_t top = 0, cap = sizeof(stackbuf);
	int rc = -1;

	*kind = 0;
	for (;;) {
		unsigned d = depth + (unsigned)top;
		unsigned char c;

		/* a value */
		skip_ws(s);
		if (d > RM_MATRIX_MAX_DEPTH || s->p >= s->end)
			goto out;
		c = *s->p;
		if (c == '[' || c == '{') {
			if (!*kind)
				*kind = c;
			s->p++;
			if (top + 1 > cap) {
				char *n = rm_xmalloc(cap * 2);

				memcpy(n, stack, top);
				if (stack != stackbuf)
					free(stack);
				stack = n;
				cap *= 2;
			}
			stack[top++] = (char)c;
			skip_ws(s);
			if (s->p < s->end && *s->p == (c == '[' ? ']' : '}')) {
				s->p++;
				top--;
				goto after_value;
			}
			if (c == '{') {
				if (nested_key(s, depth + (unsigned)top))
					goto out;
				skip_ws(s);
				if (s->p >= s->end || *s->p != ':')
					goto out;
				s->p++;
			}
			continue;
		}
		if (c == '"') {
			if (!*kind)
				*kind = 's';
			if (scan_string(s, NULL))
				goto out;
		} else if (is_digit(c) || (c == '-' && !(s->end - s->p >= 9 &&
							  !memcmp(s->p, "-Infinity", 9)))) {
			if (!*kind)
				*kind = 'n';
			if (scan_number(s, false, NULL, NULL))
				goto out;
		} else {
			if (!*kind)
				*kind = 'l';
			if (scan_literal(s))
				goto out;
		}
after_value:
		/* after a value: close containers or go to the next element */
		for (;;) {
			char open;

			if (!top) {
				rc = 0;
				goto out;
			}
			open = stack[top - 1];
			skip_ws(s);
			if (s->p >= s->end)
				goto out;
			if (*s->p == ',') {
				s->p++;
				if (open == '{') {
					skip_ws(s);
					if (nested_key(s, depth + (unsigned)top))
						goto out;
					skip_ws(s);
					if (s->p >= s->end || *s->p != ':')
						goto out;
					s->p++;
				}
				break;
			}
			if (*s->p != (open == '[' ? ']' : '}'))
				goto out;
			s->p++;
			if (open == '{' && close_object(s, depth + (unsigned)top))
				goto out;
			top--;
		}
	}
out:
	if (stack != stackbuf)
		free(stack);
	if (rc)
		s->bad = true;
	return rc;
}

static void scan_init(struct scan *s, const char *buf, size_t len)
{
	memset(s, 0, sizeof(*s));
	s->buf = s->p = (const unsigned char *)buf;
	s->end = s->buf + len;
	rm_sb_init(&s->arena);
	rm_sb_init(&s->tmp);
}

static void scan_release(struct scan *s)
{
	rm_sb_release(&s->arena);
	rm_sb_release(&s->tmp);
	free(s->nk);
}

bool rm_matrix_json_valid(const char *buf, size_t len)
{
	struct scan s;
	int kind;
	bool ok;

	scan_init(&s, buf, len);
	skip_ws(&s);
	ok = s.p < s.end && (*s.p == '[' || *s.p == '{') && !skip_value(&s, 1, &kind);
	skip_ws(&s);
	ok = ok && s.p == s.end;
	scan_release(&s);
	return ok;
}

/* ------------------------------------------------------------ the reader */

/* The top-level keys, for the duplicate check: a hash and where the key
 * starts in the file (a collision is settled by decoding it again). */
struct keyset {
	struct kslot {
		uint64_t h;
		/* the file offset of the opening quote + 1 (0 = empty); when
		 * streaming, the series index + 1, or KEY_DROPPED */
		size_t off;
	} *v;
	size_t n, cap;
};

#define KEY_DROPPED ((size_t)-1)

static void keyset_grow(struct keyset *k)
{
	size_t cap = k->cap ? k->cap * 2 : 1024, i;
	struct kslot *v = rm_xcalloc_touched(cap, sizeof(*v)); /* filled to 3/4 */

	for (i = 0; i < k->cap; i++) {
		size_t j;

		if (!k->v[i].off)
			continue;
		for (j = k->v[i].h & (cap - 1); v[j].off; j = (j + 1) & (cap - 1))
			;
		v[j] = k->v[i];
	}
	free(k->v);
	k->v = v;
	k->cap = cap;
}

/* Add key (decoded: key[0..len)) found at file offset off.  Returns false
 * when it is already there.  Streaming (m not NULL), off is what the slot
 * keeps (struct kslot), and *suspect is set when the hash matches a dropped
 * key's, which only the whole file can settle. */
static bool keyset_add(struct keyset *k, struct scan *s, const char *key, size_t len, size_t off,
		       const struct rm_matrix *m, bool *suspect)
{
	uint64_t h = rm_hash(key, len);
	size_t j;

	/* filled up to 3/4 (the hash's low bits spread stat names well):
	 * at 1/2 the set of a 10x20k matrix held 1 MiB more at the peak */
	if ((k->n + 1) * 4 > k->cap * 3)
		keyset_grow(k);
	for (j = h & (k->cap - 1); k->v[j].off; j = (j + 1) & (k->cap - 1)) {
		if (k->v[j].h == h && m) {
			const char *other;

			if (k->v[j].off == KEY_DROPPED) {
				*suspect = true;
				return false;
			}
			other = m->s[k->v[j].off - 1].name;
			if (strlen(other) == len && !memcmp(other, key, len))
				return false;
		} else if (k->v[j].h == h) {
			/* decode the earlier key again and compare */
			const unsigned char *save = s->p;
			bool same;

			s->p = s->buf + k->v[j].off - 1;
			scan_string(s, &s->tmp);
			same = s->tmp.len == len && !memcmp(s->tmp.buf, key, len);
			s->p = save;
			if (same)
				return false;
		}
	}
	k->v[j].h = h;
	k->v[j].off = m ? off : off + 1;
	k->n++;
	return true;
}

int rm_matrix_check_name(const char *file, const char *key, struct rm_error *err)
{
	unsigned cp = 0;
	const unsigned char *k = (const unsigned char *)key;
	char *shown;

	/* printable ASCII without blanks is always fine: no need to decode */
	while (*k > 0x20 && *k < 0x7f)
		k++;
	if (!*k || !rm_text_bad_char(key, RM_TEXT_NAME, &cp))
		return 0;
	shown = rm_text_escaped(key, 200);
	rm_error_set(err, RM_ERR_INPUT,
		     "'%s': stat '%s': expected a stat name without white space or control characters (found U+%04X)",
		     file, shown, cp);
	free(shown);
	return -1;
}

/* A ".pass" name whose stem holds regex syntax (see struct rm_matrix). */
static bool regex_stem(const char *name, size_t len)
{
	size_t i;

	if (len < 5 || memcmp(name + len - 5, ".pass", 5))
		return false;
	for (i = 0; i + 5 < len; i++)
		if (strchr("\\^$|?*+()[]{}", name[i]))
			return true;
	return false;
}

static unsigned dropped_base(const char *name)
{
	if (!strncmp(name, "perf-profile.", 13))
		return RM_MATRIX_DROPPED_PERF_PROFILE;
	if (!strncmp(name, "lock_stat.", 10))
		return RM_MATRIX_DROPPED_LOCK_STAT;
	return 0;
}

struct reader {
	struct scan s;
	struct keyset keys;
	struct rm_sb key;       /* the current key, decoded */
	double *tv;             /* the current row's values */
	unsigned char *ti;
	size_t talloc;
	size_t salloc;
	bool src_seen, src_bad, any;
	size_t src_count, first, last;
	struct rm_error key_err; /* the first key at fault, in file order */
	/* streaming (rm_matrix_read_stream): anything but a clean pair sends
	 * the caller to rm_matrix_read over the whole file */
	bool stream, fallback;
	unsigned read; /* this reading's number for keep()'s marks, when streaming */
	/* the copy keep() lent for the pair being read, and whether it was
	 * marked before then: a pair short of bytes is read again from its
	 * start after a refill, and keep() then finds its own mark */
	const char *pending;
	bool pending_again;
};

/* The array of one stat at s->p ('['): its values into r->tv/ti when want. */
static int read_row(struct reader *r, bool want, size_t *n, bool *is_string, bool *is_bad)
{
	struct scan *s = &r->s;

	*n = 0;
	s->p++; /* '[' */
	skip_ws(s);
	if (s->p < s->end && *s->p == ']') {
		s->p++;
		return 0;
	}
	for (;;) {
		unsigned char c;
		double v = 0;
		bool is_int = true;

		skip_ws(s);
		if (s->p >= s->end) {
			s->bad = true;
			return -1;
		}
		c = *s->p;
		if (is_digit(c) || (c == '-' && !(s->end - s->p >= 9 &&
						  !memcmp(s->p, "-Infinity", 9)))) {
			if (scan_number(s, want, &v, &is_int))
				return -1;
		} else {
			int kind;

			/* depth 3: the top object, the stat's array, this value */
			if (skip_value(s, 3, &kind))
				return -1;
			if (kind == 's')
				*is_string = true;
			else
				*is_bad = true; /* null, NaN, booleans, arrays, objects */
			v = 0;
			is_int = true;
		}
		if (want) {
			if (*n + 1 > r->talloc) {
				r->talloc = r->talloc ? r->talloc * 2 : 64;
				r->tv = rm_xrealloc(r->tv, r->talloc * sizeof(*r->tv));
				r->ti = rm_xrealloc(r->ti, r->talloc);
			}
			r->tv[*n] = v;
			r->ti[*n] = is_int;
		}
		(*n)++;
		skip_ws(s);
		if (s->p < s->end && *s->p == ',') {
			s->p++;
			continue;
		}
		if (s->p < s->end && *s->p == ']') {
			s->p++;
			return 0;
		}
		s->bad = true;
		return -1;
	}
}

/* One "key": value pair of the top object, s->p on the key's quote.  Nothing
 * is recorded until the whole pair and the byte after it are read, so a
 * stream can read the pair again from its start with more bytes. */
static int read_pair(struct reader *r, struct rm_matrix *m, const char *file,
		     rm_matrix_keep_fn keep, void *ctx)
{
	struct scan *s = &r->s;
	size_t off = (size_t)(s->p - s->buf), n = 0, count = 0;
	const char *name, *stored = NULL;
	bool want = false, is_string = false, is_bad = false, suspect = false, again = false;
	bool source, array;
	int kind;

	if (scan_string(s, &r->key))
		return -1;
	name = r->key.buf;
	if (memchr(name, '\0', r->key.len)) {
		s->bad = true; /* "NUL byte in object key not supported" */
		return -1;
	}
	skip_ws(s);
	if (s->p >= s->end || *s->p != ':') {
		s->bad = true;
		return -1;
	}
	s->p++;
	skip_ws(s);
	if (s->p >= s->end) {
		s->bad = true;
		return -1;
	}
	source = !strcmp(name, "stats_source");
	array = *s->p == '[';
	if (source && array) {
		if (read_row(r, false, &count, &is_string, &is_bad))
			return -1;
	} else if (!array) {
		if (skip_value(s, 2, &kind))
			return -1;
	} else {
		if (regex_stem(name, r->key.len))
			m->regex_stem = true;
		want = r->key_err.kind == RM_OK &&
		       (!keep || keep(ctx, name, r->read, &stored, &again));
		if (stored && stored == r->pending)
			again = r->pending_again; /* this pair again, after a refill */
		r->pending = stored;
		r->pending_again = again;
		if (read_row(r, want, &n, &is_string, &is_bad))
			return -1;
	}
	/* the pair is whole only when a byte follows it */
	skip_ws(s);
	if (s->p >= s->end) {
		s->bad = true;
		return -1;
	}
	/* duplicates: a name keep() lent marked with this reading (while
	 * streaming, a stat's every key goes through keep(), or the reading
	 * stops at the first that does not: matrix.h); else the key in the
	 * set as a kept series, a dropped one, or a file offset;
	 * stats_source is never a series (its strings made is_string true:
	 * the slot named the next series, a duplicate stats_source was then
	 * taken for another key or read a series not yet made) */
	r->pending = NULL; /* the pair is whole: the next one is another key */
	if (r->read && stored) {
		if (again) {
			s->bad = true;
			r->fallback = true;
			return -1;
		}
	} else if (!keyset_add(&r->keys, s, name, r->key.len,
			r->stream ? (!source && (want || is_string || is_bad) ? m->n + 1 : KEY_DROPPED) : off,
			r->stream ? m : NULL, &suspect)) {
		s->bad = true;
		r->fallback = r->fallback || suspect || r->stream;
		return -1;
	}
	if (source) {
		if (array) {
			r->src_seen = true;
			r->src_count = count;
		} else {
			r->src_bad = true;
		}
		return 0;
	}
	if (r->key_err.kind == RM_OK &&
	    (name_plain(name, r->key.len) || !rm_matrix_check_name(file, name, &r->key_err)) &&
	    !array)
		rm_error_set(&r->key_err, RM_ERR_INPUT,
			     "'%s': stat '%.200s': expected an array with one value per run", file,
			     name);
	if (r->key_err.kind != RM_OK) {
		r->fallback = r->stream;
		return r->stream ? -1 : 0;
	}
	if (!r->any)
		r->first = n;
	r->any = true;
	r->last = n;
	if (want || is_string || is_bad) {
		struct rm_series *se;
		size_t alloc = n ? n : 1;

		m->s = rm_xgrow(m->s, &r->salloc, m->n + 1, sizeof(*m->s));
		se = &m->s[m->n++];
		memset(se, 0, sizeof(*se));
		se->pooled = true;
		se->v = pool_alloc(m, alloc * sizeof(*se->v) + alloc + (stored ? 0 : r->key.len + 1));
		se->is_int = (unsigned char *)(se->v + alloc);
		if (stored) {
			se->name = (char *)stored; /* keep()'s copy (matrix.h): not ours */
			se->name_kept = true;
			m->kept_by = ctx;
		} else {
			se->name = (char *)se->is_int + alloc;
			memcpy(se->name, name, r->key.len + 1);
		}
		if (want) {
			memcpy(se->v, r->tv, n * sizeof(*se->v));
			memcpy(se->is_int, r->ti, n);
		} else {
			/* kept for its flags only (see keep_fn): no values read */
			memset(se->v, 0, alloc * sizeof(*se->v));
			memset(se->is_int, 1, alloc);
		}
		se->n = n;
		se->is_string = is_string;
		se->is_bad = is_bad;
	} else {
		m->ndropped++;
		m->dropped_bases |= dropped_base(name);
	}
	return 0;
}

/* A name of `like` by its pointer: a Fibonacci hash of the address. */
static size_t ptr_slot(const char *k, size_t mask)
{
	return (size_t)(((uint64_t)(uintptr_t)k * 0x9e3779b97f4a7c15u) >> 32) & mask;
}

struct unplaced {
	const char *name;
	uint32_t i;
};

/* Sort m's series by name as `like`, a sorted matrix whose names the same
 * keep() lent (name_kept), has them: each of m's names like has takes
 * like's place for it (found by the pointer), in that order; the others
 * are sorted by name and each put where a binary search among those says.
 * So a matrix with the names of one read before is sorted without reading
 * its names (at 10x200k, 185,000 names of ~110 bytes spread over ~25 MiB).
 * at[] as rm_sort_by_name's.  False, with nothing done, when fewer than
 * half of m's names are in like. */
static bool sort_like(struct rm_matrix *m, const struct rm_matrix *like, uint32_t *at)
{
	size_t cap = 1024, i, j, nr = 0, mask;
	const char **key;
	uint32_t *val, *rank, *slot;
	size_t *seq;

	while (cap / 4 * 3 < like->n)
		cap *= 2;
	mask = cap - 1;
	key = rm_xcalloc(cap, sizeof(*key));
	val = rm_xmalloc(cap * sizeof(*val));
	for (i = 0; i < like->n; i++) {
		if (!like->s[i].name_kept)
			continue;
		for (j = ptr_slot(like->s[i].name, mask); key[j]; j = (j + 1) & mask)
			;
		key[j] = like->s[i].name;
		val[j] = (uint32_t)i;
	}
	rank = rm_xmalloc(m->n * sizeof(*rank));
	for (i = 0; i < m->n; i++) {
		rank[i] = UINT32_MAX;
		if (!m->s[i].name_kept)
			continue;
		for (j = ptr_slot(m->s[i].name, mask); key[j]; j = (j + 1) & mask)
			if (key[j] == m->s[i].name) {
				rank[i] = val[j];
				nr++;
				break;
			}
	}
	free(key);
	free(val);
	if (nr < m->n / 2) {
		free(rank);
		return false;
	}
	/* seq[place] = the series that goes there: those like has, in its order */
	slot = rm_xmalloc(like->n * sizeof(*slot));
	memset(slot, 0xff, like->n * sizeof(*slot));
	for (i = 0; i < m->n; i++)
		if (rank[i] != UINT32_MAX)
			slot[rank[i]] = (uint32_t)i;
	seq = rm_xmalloc(m->n * sizeof(*seq));
	for (i = 0, j = 0; i < like->n; i++)
		if (slot[i] != UINT32_MAX)
			seq[j++] = slot[i];
	free(slot);
	if (nr < m->n) {
		/* the others by name, each before the first of those greater */
		struct unplaced *un = rm_xmalloc((m->n - nr) * sizeof(*un));
		size_t *merged = rm_xmalloc(m->n * sizeof(*merged));
		size_t k, o = 0, nu = 0;

		for (i = 0; i < m->n; i++)
			if (rank[i] == UINT32_MAX) {
				un[nu].name = m->s[i].name;
				un[nu++].i = (uint32_t)i;
			}
		rm_sort_by_name(un, nu, sizeof(*un), offsetof(struct unplaced, name), NULL);
		for (k = 0, j = 0; k < nu; k++) {
			size_t lo = j, hi = nr;

			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;

				if (strcmp(m->s[seq[mid]].name, un[k].name) < 0)
					lo = mid + 1;
				else
					hi = mid;
			}
			while (j < lo)
				merged[o++] = seq[j++];
			merged[o++] = un[k].i;
		}
		while (j < nr)
			merged[o++] = seq[j++];
		free(un);
		free(seq);
		seq = merged;
	}
	free(rank);
	for (i = 0; i < m->n; i++)
		at[seq[i]] = (uint32_t)i;
	rm_permute(m->s, m->n, sizeof(*m->s), seq);
	free(seq);
	return true;
}

/* The series by name (names are distinct here: a duplicate key is refused
 * while reading), remembering the file's order (matrix.h: file_order). */
static void sort_series(struct rm_matrix *m, const struct rm_matrix *like)
{
	if (m->n > UINT32_MAX) {
		rm_sort_by_name(m->s, m->n, sizeof(*m->s), offsetof(struct rm_series, name), NULL);
		return;
	}
	m->file_order = rm_xmalloc((m->n ? m->n : 1) * sizeof(*m->file_order));
	if (like && m->n && like->n && like->n < UINT32_MAX && like->kept_by && like->kept_by == m->kept_by &&
	    sort_like(m, like, m->file_order))
		return;
	rm_sort_by_name(m->s, m->n, sizeof(*m->s), offsetof(struct rm_series, name),
			m->file_order);
}

/* Pad every series with Integer 0 up to m->cols (matrix_fill_missing_zeros). */
static void fill_zeros(struct rm_matrix *m)
{
	size_t i, k;

	if (m->n) /* the series array, grown by doubling, to its size */
		m->s = rm_xrealloc(m->s, m->n * sizeof(*m->s));

	for (i = 0; i < m->n; i++) {
		struct rm_series *se = &m->s[i];

		if (se->n >= m->cols)
			continue;
		if (se->pooled) {
			/* a short row: its own arrays from here on */
			double *v = rm_xmalloc(m->cols * sizeof(*v));
			unsigned char *is_int = rm_xmalloc(m->cols);

			memcpy(v, se->v, se->n * sizeof(*v));
			memcpy(is_int, se->is_int, se->n);
			se->name = rm_xstrdup(se->name);
			se->name_kept = false;
			se->v = v;
			se->is_int = is_int;
			se->pooled = false;
		} else {
			se->v = rm_xrealloc(se->v, m->cols * sizeof(*se->v));
			se->is_int = rm_xrealloc(se->is_int, m->cols);
		}
		for (k = se->n; k < m->cols; k++) {
			se->v[k] = 0;
			se->is_int[k] = 1;
		}
		se->n = m->cols;
	}
}

int rm_matrix_read(struct rm_matrix *m, const char *file, const char *buf, size_t len,
		   rm_matrix_keep_fn keep, void *ctx, struct rm_error *err)
{
	struct reader r;
	struct scan *s = &r.s;
	bool object = false;
	int kind, rc = 0;

	memset(m, 0, sizeof(*m));
	memset(&r, 0, sizeof(r));
	scan_init(s, buf, len);
	rm_sb_init(&r.key);
	rm_error_clear(&r.key_err);
	skip_ws(s);
	if (s->p < s->end && *s->p == '{') {
		object = true;
		s->p++;
		skip_ws(s);
		if (s->p < s->end && *s->p == '}') {
			s->p++;
		} else {
			for (;;) {
				skip_ws(s);
				if (s->p >= s->end || *s->p != '"') {
					s->bad = true;
					break;
				}
				if (read_pair(&r, m, file, keep, ctx))
					break;
				skip_ws(s);
				if (s->p < s->end && *s->p == ',') {
					s->p++;
					continue;
				}
				if (s->p < s->end && *s->p == '}')
					s->p++;
				else
					s->bad = true;
				break;
			}
		}
	} else if (s->p < s->end && *s->p == '[') {
		skip_value(s, 1, &kind);
	} else {
		s->bad = true;
	}
	skip_ws(s);
	if (!s->bad && s->p != s->end)
		s->bad = true; /* "end of file expected" */
	if (s->bad) {
		/* jansson words the refusal, exactly as before this reader */
		json_t *j = rm_json_load(file, buf, len, NULL, err);

		if (j) {
			/* cannot happen unless the two disagree: still refuse */
			json_decref(j);
			rm_error_set(err, RM_ERR_INPUT,
				     "'%s' byte %zu: invalid JSON: refused by robotmail's reader", file,
				     (size_t)(s->p - s->buf));
		}
		rc = -1;
	} else if (!object) {
		rc = rm_error_set(err, RM_ERR_INPUT, "'%s': expected a JSON object of stat arrays",
				  file);
	} else if (r.src_bad) {
		rc = rm_error_set(err, RM_ERR_INPUT, "'%s': 'stats_source': expected an array", file);
	} else if (r.key_err.kind != RM_OK) {
		*err = r.key_err;
		rc = -1;
	}
	scan_release(s);
	rm_sb_release(&r.key);
	free(r.keys.v);
	free(r.tv);
	free(r.ti);
	if (rc) {
		rm_matrix_free(m);
		return -1;
	}
	/* matrix_cols (archive-format.md 2.4): the stats_source count; without
	 * it, the longer of the first and the last array in file order */
	m->cols = r.src_seen ? r.src_count : r.first > r.last ? r.first : r.last;
	fill_zeros(m);
	sort_series(m, NULL);
	return 0;
}

/* ------------------------------------------------------------ streaming */

size_t rm_matrix_stream_window = 64u << 10;

struct window {
	unsigned char *buf;
	size_t cap;
	bool eof;
	bool failed; /* the source could not be read */
	rm_matrix_read_fn rd;
	void *ctx;
};

/* Keep s->buf[from..end), read more after it (the window doubles when what
 * is kept fills half of it).  Returns -1 when nothing more can come. */
static int refill(struct window *w, struct scan *s, const unsigned char *from)
{
	size_t keep = (size_t)(s->end - from), off = (size_t)(s->p - from), len;

	if (w->eof)
		return -1;
	memmove(w->buf, from, keep);
	if (keep * 2 > w->cap) {
		w->cap *= 2;
		w->buf = rm_xrealloc(w->buf, w->cap);
	}
	len = keep;
	while (len < w->cap && !w->eof) {
		long n = w->rd(w->ctx, (char *)w->buf + len, w->cap - len);

		if (n < 0) {
			w->failed = w->eof = true;
			return -1;
		}
		if (n == 0)
			w->eof = true;
		len += (size_t)n;
	}
	s->buf = w->buf;
	s->p = w->buf + off;
	s->end = w->buf + len;
	return 0;
}

/* Skip white space, reading more as needed; false at the end of input. */
static bool stream_ws(struct window *w, struct scan *s)
{
	for (;;) {
		skip_ws(s);
		if (s->p < s->end)
			return true;
		if (refill(w, s, s->p))
			return false;
	}
}

int rm_matrix_read_stream(struct rm_matrix *m, const char *file, rm_matrix_read_fn rd,
			  void *rctx, rm_matrix_keep_fn keep, void *ctx)
{
	return rm_matrix_read_stream_like(m, file, rd, rctx, keep, ctx, NULL);
}

int rm_matrix_read_stream_like(struct rm_matrix *m, const char *file, rm_matrix_read_fn rd,
			       void *rctx, rm_matrix_keep_fn keep, void *ctx,
			       const struct rm_matrix *like)
{
	struct reader r;
	struct scan *s = &r.s;
	struct window w;
	bool ok = false;

	memset(m, 0, sizeof(*m));
	memset(&r, 0, sizeof(r));
	memset(&w, 0, sizeof(w));
	w.cap = rm_matrix_stream_window ? rm_matrix_stream_window : 1;
	w.buf = rm_xmalloc(w.cap);
	w.rd = rd;
	w.ctx = rctx;
	scan_init(s, (const char *)w.buf, 0);
	rm_sb_init(&r.key);
	rm_error_clear(&r.key_err);
	r.stream = true;
	{
		static unsigned readings; /* a process reads a few matrices */

		r.read = ++readings ? readings : ++readings;
	}
	if (refill(&w, s, s->p) || !stream_ws(&w, s) || *s->p != '{')
		goto out;
	s->p++;
	if (!stream_ws(&w, s))
		goto out;
	if (*s->p == '}') {
		s->p++;
	} else {
		for (;;) {
			const unsigned char *start;

			if (!stream_ws(&w, s) || *s->p != '"')
				goto out;
			start = s->p;
			while (read_pair(&r, m, file, keep, ctx)) {
				/* short of bytes, or wrong: read on from the pair's start */
				if (r.fallback || refill(&w, s, start))
					goto out;
				s->nnk = 0; /* nested keys of the pair: read again */
				rm_sb_reset(&s->arena);
				s->p = s->buf;
				s->bad = false;
				start = s->p;
			}
			if (!stream_ws(&w, s))
				goto out;
			if (*s->p == ',') {
				s->p++;
				continue;
			}
			if (*s->p != '}')
				goto out;
			s->p++;
			break;
		}
	}
	ok = !stream_ws(&w, s) && !w.failed && !r.src_bad;
out:
	scan_release(s);
	rm_sb_release(&r.key);
	free(r.keys.v);
	free(r.tv);
	free(r.ti);
	free(w.buf);
	if (!ok) {
		rm_matrix_free(m);
		return 1;
	}
	m->cols = r.src_seen ? r.src_count : r.first > r.last ? r.first : r.last;
	fill_zeros(m);
	sort_series(m, like);
	return 0;
}
