/* recache.c - see recache.h. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "recache.h"

#include <pcre2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "strbuf.h"
#include "yamlcache.h"

/*
 * A cache image, in the writer's byte order (checked by `order`):
 *
 *   struct rhead                     64 bytes
 *   uint32[2]   [n]                  each entry's compile options and text length
 *   texts                            texts_len bytes: each entry's text and a NUL,
 *                                    in entry order; padded to 8
 *   serialized codes                 blob_len bytes (pcre2_serialize_encode of the
 *                                    n codes, in entry order); padded to 8
 *   uint64 checksum                  rm_yamlcache_hash of all bytes before it
 *
 * Bump RM_RECACHE_VERSION whenever the layout changes.
 */
#define RM_RECACHE_VERSION 1u
#define RM_RECACHE_MAGIC "RMPCREC\n"
/* Entries a file keeps at most.  Every run decodes all of a file's codes
 * (PCRE2 decodes a serialized set as a whole), and codes compiled when
 * first needed (a program's direction and threshold rules, a list's ASCII
 * copies) accumulate over runs that see other programs: 256 codes of ~1 KiB
 * bound that at ~64 pages a run, about what compiling the rules costs.
 * The codes compiled at load are written first, so they always fit. */
#define RM_RECACHE_MAX 256
/* pcre2_serialize's own header: magic, version, config, number of codes */
#define RM_RECACHE_SER_HEAD 16

struct rhead {
	char magic[8];
	uint32_t version;
	uint32_t order; /* 0x01020304 as the writer stored it */
	char pcre2[32]; /* pcre2_config(PCRE2_CONFIG_VERSION), NUL-padded */
	uint32_t n, texts_len;
	uint64_t blob_len;
};

_Static_assert(sizeof(struct rhead) == 64, "pattern cache header has no padding");

struct ent {
	const char *text; /* in the image (i < nold) or malloc'd */
	uint32_t len, opts;
	pcre2_code *code;  /* ours until handed out (old) or our copy (new) */
};

struct rm_recache {
	char *path;        /* NULL: nothing is read or written */
	unsigned char *img; /* the mapped file (its texts are the old entries') */
	size_t size;
	struct ent *e;
	size_t n, nold, cap;
	size_t nsaved;     /* entries the file on disk holds */
	uint32_t *slot;    /* open addressing: entry index + 1, 0 empty */
	size_t nslot;
};

static size_t pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

static void fill_head_id(struct rhead *h)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, RM_RECACHE_MAGIC, 8);
	h->version = RM_RECACHE_VERSION;
	h->order = 0x01020304u;
	/* at most 24 code units plus a NUL (pcre2api(3)); 32 leaves room */
	pcre2_config(PCRE2_CONFIG_VERSION, h->pcre2);
	h->pcre2[sizeof(h->pcre2) - 1] = '\0';
}

int rm_recache_check_image(const unsigned char *img, size_t size, size_t *n)
{
	struct rhead h, want;
	uint64_t sum;
	size_t off, texts, i, at;
	uint32_t ent[2];

	*n = 0;
	if (size < sizeof(h) + 8 || size % 8)
		return -1;
	memcpy(&sum, img + size - 8, 8);
	if (sum != rm_yamlcache_hash(img, size - 8))
		return -1;
	memcpy(&h, img, sizeof(h));
	fill_head_id(&want);
	if (memcmp(h.magic, want.magic, 8) || h.version != want.version || h.order != want.order ||
	    memcmp(h.pcre2, want.pcre2, sizeof(h.pcre2)) || h.n > RM_RECACHE_MAX ||
	    h.texts_len > size || h.blob_len > size || h.blob_len < RM_RECACHE_SER_HEAD)
		return -1;
	texts = sizeof(h) + (size_t)h.n * 8;
	off = texts + pad8(h.texts_len);
	if (off > size || size - off != pad8((size_t)h.blob_len) + 8)
		return -1;
	/* each text and its NUL, back to back, filling texts_len exactly */
	for (i = 0, at = 0; i < h.n; i++) {
		memcpy(ent, img + sizeof(h) + i * 8, 8);
		if (ent[1] >= h.texts_len - at || img[texts + at + ent[1]] != '\0')
			return -1;
		at += (size_t)ent[1] + 1;
	}
	if (at != h.texts_len ||
	    pcre2_serialize_get_number_of_codes(img + off) != (int32_t)h.n || !h.n)
		return -1;
	*n = h.n;
	return 0;
}

static uint32_t ent_hash(const char *text, size_t len, uint32_t opts)
{
	return (uint32_t)rm_hash(text, len) ^ (opts * 0x9e3779b9u);
}

static struct ent *find(const struct rm_recache *c, const char *text, size_t len, uint32_t opts)
{
	size_t j;

	if (!c->nslot)
		return NULL;
	for (j = ent_hash(text, len, opts) & (c->nslot - 1); c->slot[j];
	     j = (j + 1) & (c->nslot - 1)) {
		struct ent *e = &c->e[c->slot[j] - 1];

		if (e->len == len && e->opts == opts && !memcmp(e->text, text, len))
			return e;
	}
	return NULL;
}

static void index_entry(struct rm_recache *c, size_t i)
{
	size_t j;

	if ((c->n + 1) * 2 > c->nslot) {
		size_t k;

		free(c->slot);
		c->nslot = c->nslot ? c->nslot * 2 : 256;
		while (c->nslot < (c->n + 1) * 2)
			c->nslot *= 2;
		c->slot = rm_xcalloc(c->nslot, sizeof(*c->slot));
		for (k = 0; k < i; k++) {
			for (j = ent_hash(c->e[k].text, c->e[k].len, c->e[k].opts) & (c->nslot - 1);
			     c->slot[j]; j = (j + 1) & (c->nslot - 1))
				;
			c->slot[j] = (uint32_t)k + 1;
		}
	}
	for (j = ent_hash(c->e[i].text, c->e[i].len, c->e[i].opts) & (c->nslot - 1); c->slot[j];
	     j = (j + 1) & (c->nslot - 1))
		;
	c->slot[j] = (uint32_t)i + 1;
}

/* The image's entries and their decoded codes into c, or -1 (c unchanged). */
static int load_image(struct rm_recache *c)
{
	size_t n, i, at, texts;
	pcre2_code **codes;
	struct rhead h;

	if (rm_recache_check_image(c->img, c->size, &n))
		return -1;
	memcpy(&h, c->img, sizeof(h));
	texts = sizeof(h) + n * 8;
	codes = rm_xcalloc(n, sizeof(*codes));
	if (pcre2_serialize_decode(codes, (int32_t)n, c->img + texts + pad8(h.texts_len), NULL) !=
	    (int32_t)n) {
		free(codes);
		return -1;
	}
	c->cap = n + 16;
	c->e = rm_xcalloc(c->cap, sizeof(*c->e));
	for (i = 0, at = 0; i < n; i++) {
		uint32_t ent[2];

		memcpy(ent, c->img + sizeof(h) + i * 8, 8);
		c->e[i].opts = ent[0];
		c->e[i].len = ent[1];
		c->e[i].text = (const char *)c->img + texts + at;
		c->e[i].code = codes[i];
		at += (size_t)ent[1] + 1;
		c->n = i + 1;
		index_entry(c, i);
	}
	c->nold = c->nsaved = n;
	free(codes);
	return 0;
}

char *rm_recache_path(const char *src, size_t len)
{
	return rm_yamlcache_file("pcre", rm_yamlcache_hash(src, len));
}

struct rm_recache *rm_recache_open(const char *src, size_t len)
{
	struct rm_recache *c = rm_xcalloc(1, sizeof(*c));

	c->path = rm_recache_path(src, len);
	if (c->path)
		c->img = rm_yamlcache_map(c->path, &c->size);
	if (c->img && load_image(c)) {
		munmap(c->img, c->size);
		c->img = NULL;
	}
	return c;
}

void *rm_recache_compile(struct rm_recache *c, const char *text, size_t len, uint32_t options,
			 int *errcode, size_t *erroff)
{
	struct ent *e = c ? find(c, text, len, options) : NULL;
	pcre2_code *re;

	if (e && e->code) {
		if ((size_t)(e - c->e) >= c->nold)
			return pcre2_code_copy(e->code); /* compiled this run already */
		re = e->code; /* handed out: the caller owns it now */
		e->code = NULL;
		return re;
	}
	re = pcre2_compile((PCRE2_SPTR)text, len, options, errcode, erroff, NULL);
	/* kept (a copy) for rm_recache_close, when it can be written */
	if (re && !e && c && c->path && !rm_yamlcache_readonly() && c->n < RM_RECACHE_MAX &&
	    len < UINT32_MAX) {
		if (c->n == c->cap) {
			c->cap = c->cap ? c->cap * 2 : 64;
			c->e = rm_xrealloc(c->e, c->cap * sizeof(*c->e));
		}
		e = &c->e[c->n];
		e->text = rm_xstrndup(text, len);
		e->len = (uint32_t)len;
		e->opts = options;
		e->code = pcre2_code_copy(re);
		if (!e->code) {
			free((char *)e->text);
			return re;
		}
		c->n++;
		index_entry(c, c->n - 1);
	}
	return re;
}

bool rm_recache_known(const struct rm_recache *c, const char *text, size_t len, uint32_t options)
{
	return c && find(c, text, len, options) != NULL;
}

/* Write the old entries and the new ones to c->path.  The file's codes are
 * compiled again from their texts, not decoded: pcre2_serialize_encode
 * takes only codes that share one set of character tables, and decoded
 * codes have a copy of their own (a cold path: a run that compiled new
 * patterns). */
void rm_recache_save(struct rm_recache *c)
{
	pcre2_code **codes;
	struct rhead h;
	struct rm_sb img = RM_SB_INIT;
	uint8_t *blob = NULL;
	PCRE2_SIZE blob_len = 0;
	size_t i, texts_len = 0;
	uint64_t sum;

	if (!c || c->n <= c->nsaved || !c->path || rm_yamlcache_readonly())
		return;
	c->nsaved = c->n; /* tried once: a failure is not retried */
	codes = rm_xcalloc(c->n, sizeof(*codes));
	for (i = 0; i < c->n; i++) {
		int code;
		PCRE2_SIZE off;

		codes[i] = i < c->nold ? pcre2_compile((PCRE2_SPTR)c->e[i].text, c->e[i].len,
						       c->e[i].opts, &code, &off, NULL)
				       : c->e[i].code;
		if (!codes[i])
			goto out;
		texts_len += (size_t)c->e[i].len + 1;
	}
	if (texts_len >= UINT32_MAX ||
	    pcre2_serialize_encode((const pcre2_code **)codes, (int32_t)c->n, &blob, &blob_len,
				   NULL) < 0)
		goto out;
	fill_head_id(&h);
	h.n = (uint32_t)c->n;
	h.texts_len = (uint32_t)texts_len;
	h.blob_len = blob_len;
	rm_sb_init(&img);
	rm_sb_add(&img, (const char *)&h, sizeof(h));
	for (i = 0; i < c->n; i++) {
		uint32_t ent[2] = { c->e[i].opts, c->e[i].len };

		rm_sb_add(&img, (const char *)ent, sizeof(ent));
	}
	for (i = 0; i < c->n; i++)
		rm_sb_add(&img, c->e[i].text, (size_t)c->e[i].len + 1);
	rm_sb_addn(&img, 0, pad8(texts_len) - texts_len);
	rm_sb_add(&img, (const char *)blob, blob_len);
	rm_sb_addn(&img, 0, pad8(blob_len) - blob_len);
	sum = rm_yamlcache_hash(img.buf, img.len);
	rm_sb_add(&img, (const char *)&sum, sizeof(sum));
	rm_yamlcache_store(c->path, (const unsigned char *)img.buf, img.len);
	rm_sb_release(&img);
out:
	if (blob)
		pcre2_serialize_free(blob);
	for (i = 0; i < c->nold; i++)
		pcre2_code_free(codes[i]);
	free(codes);
}

void rm_recache_close(struct rm_recache *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->n; i++) {
		pcre2_code_free(c->e[i].code);
		if (i >= c->nold)
			free((char *)c->e[i].text);
	}
	free(c->e);
	free(c->slot);
	if (c->img)
		munmap(c->img, c->size);
	free(c->path);
	free(c);
}
