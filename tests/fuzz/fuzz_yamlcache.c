/*
 * fuzz_yamlcache.c - libFuzzer target: the rule cache's reader and writer
 * (bot/yamlcache.c), without files.
 *
 * The first byte picks the mode:
 *   even: the rest is YAML; when it loads, its cache image is encoded and
 *         decoded again and the two documents must be equal node by node;
 *   odd:  the rest is a cache image; its trailing checksum is set right
 *         (so that mutations reach the structural checks behind it) and
 *         the YAML bytes it claims to hold are taken as the file's; when it
 *         decodes, every node, item, pair and string is walked (ASan checks
 *         that all lie within the image).
 *   'P':  the rest is a compiled-pattern cache image (bot/recache.c); its
 *         checksum is set right and rm_recache_check_image must refuse it or
 *         every entry's text must lie within it, a NUL after its length
 *         (a text may hold NULs: it is compared by length).  The PCRE2 codes it holds are not decoded: PCRE2's decoder
 *         trusts its input (the checksum and the cache directory's mode
 *         are what stand before it).
 * The seeds' image-* files are rm_yamlcache_encode's images of the yaml-*
 * seeds' YAML, behind a first byte 1, and image-pcre-* recache.c's images
 * behind a 'P' (make-corpus.py keeps them as they are; write them again
 * when an image format changes).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "recache.h"
#include "yamlcache.h"
#include "yamldoc.h"

static void walk(struct rm_yaml *y)
{
	yaml_node_t *n;
	size_t sum = 0;

	for (n = y->doc.nodes.start; n < y->doc.nodes.top; n++) {
		sum += strlen((const char *)n->tag);
		if (n->type == YAML_SCALAR_NODE) {
			if (n->data.scalar.value[n->data.scalar.length])
				abort();
			sum += (size_t)rm_yaml_has_nul(n);
		} else if (n->type == YAML_SEQUENCE_NODE) {
			yaml_node_item_t *it;

			for (it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++)
				if (!rm_yaml_node(y, *it))
					abort();
		} else if (n->type == YAML_MAPPING_NODE) {
			yaml_node_pair_t *p;

			for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++)
				if (!rm_yaml_node(y, p->key) || !rm_yaml_node(y, p->value))
					abort();
			(void)rm_yaml_get(y, n, "key");
		} else {
			abort();
		}
	}
	(void)rm_yaml_root(y);
	if (sum == (size_t)-1)
		abort();
}

static int same_mark(yaml_mark_t a, yaml_mark_t b)
{
	return a.index == b.index && a.line == b.line && a.column == b.column;
}

static void must_equal(const yaml_document_t *a, const yaml_document_t *b)
{
	long n = a->nodes.top - a->nodes.start, i;

	if (n != b->nodes.top - b->nodes.start || !same_mark(a->start_mark, b->start_mark) ||
	    !same_mark(a->end_mark, b->end_mark) || a->start_implicit != b->start_implicit ||
	    a->end_implicit != b->end_implicit)
		abort();
	for (i = 0; i < n; i++) {
		const yaml_node_t *x = &a->nodes.start[i], *y = &b->nodes.start[i];

		if (x->type != y->type || strcmp((const char *)x->tag, (const char *)y->tag) ||
		    !same_mark(x->start_mark, y->start_mark) || !same_mark(x->end_mark, y->end_mark))
			abort();
		if (x->type == YAML_SCALAR_NODE &&
		    (x->data.scalar.length != y->data.scalar.length || x->data.scalar.style != y->data.scalar.style ||
		     memcmp(x->data.scalar.value, y->data.scalar.value, x->data.scalar.length + 1)))
			abort();
		if (x->type == YAML_SEQUENCE_NODE) {
			long k = x->data.sequence.items.top - x->data.sequence.items.start;

			if (x->data.sequence.style != y->data.sequence.style ||
			    k != y->data.sequence.items.top - y->data.sequence.items.start ||
			    (k && memcmp(x->data.sequence.items.start, y->data.sequence.items.start,
					 (size_t)k * sizeof(yaml_node_item_t))))
				abort();
		}
		if (x->type == YAML_MAPPING_NODE) {
			long k = x->data.mapping.pairs.top - x->data.mapping.pairs.start;

			if (x->data.mapping.style != y->data.mapping.style ||
			    k != y->data.mapping.pairs.top - y->data.mapping.pairs.start ||
			    (k && memcmp(x->data.mapping.pairs.start, y->data.mapping.pairs.start,
					 (size_t)k * sizeof(yaml_node_pair_t))))
				abort();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rm_yaml y, back;
	struct rm_error err;

	if (size < 1)
		return 0;
	if (data[0] == 'P') {
		size_t isize = size - 1, n, i, at;
		unsigned char *img = malloc(isize ? isize : 1);
		uint32_t ent[2];
		uint64_t sum;

		if (!img)
			abort();
		memcpy(img, data + 1, isize);
		if (isize >= 8) {
			sum = rm_yamlcache_hash(img, isize - 8);
			memcpy(img + isize - 8, &sum, 8);
		}
		if (!rm_recache_check_image(img, isize, &n)) {
			/* 64-byte header, n (options, length) pairs, the texts */
			for (i = 0, at = 64 + n * 8; i < n; i++) {
				memcpy(ent, img + 64 + i * 8, 8);
				if (at + ent[1] >= isize - 8 || img[at + ent[1]])
					abort();
				at += (size_t)ent[1] + 1;
			}
		}
		free(img);
		return 0;
	}
	if (!(data[0] & 1)) {
		const char *buf = (const char *)data + 1;
		size_t len = size - 1, isize;
		unsigned char *img;

		if (rm_yaml_load(&y, "fuzz.yaml", buf, len, &err))
			return 0;
		img = rm_yamlcache_encode(&y, buf, len, &isize);
		if (img) {
			if (rm_yamlcache_decode(&back, "fuzz.yaml", buf, len, img, isize))
				abort(); /* its own image must read back */
			must_equal(&y.doc, &back.doc);
			walk(&back);
			rm_yaml_free(&back);
		} else if (!y.doc.version_directive && y.doc.tag_directives.start == y.doc.tag_directives.end) {
			abort(); /* only directives keep a document out of the cache */
		}
		rm_yaml_free(&y);
		return 0;
	}
	{
		size_t isize = size - 1, len = 0;
		unsigned char *img = malloc(isize ? isize : 1);
		uint64_t src_len, sum;

		if (!img)
			abort();
		memcpy(img, data + 1, isize);
		/* the header's src_len (offset 32) and the YAML bytes after the
		 * 96-byte header: the file the image claims to be of */
		if (isize >= 96 + 8) {
			memcpy(&src_len, img + 32, 8);
			if (src_len <= isize - 96 - 8)
				len = (size_t)src_len;
			sum = rm_yamlcache_hash(img, isize - 8);
			memcpy(img + isize - 8, &sum, 8);
		}
		{
			char *src = malloc(len + 1);

			if (!src)
				abort();
			if (len)
				memcpy(src, img + 96, len);
			src[len] = '\0';
			if (!rm_yamlcache_decode(&y, "fuzz.yaml", src, len, img, isize)) {
				walk(&y);
				rm_yaml_free(&y);
			}
			free(src);
		}
	}
	return 0;
}
