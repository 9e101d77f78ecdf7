/* yamlcache.c - see yamlcache.h. */
#include "yamlcache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fileutil.h"
#include "strbuf.h"

/*
 * A cache image, in the writer's byte order (checked by `order`):
 *
 *   struct head                      96 bytes
 *   the YAML bytes                   src_len bytes, padded to 4
 *   struct rec  [nnodes]             the nodes, in the document's order
 *   int32       [nitems]             every sequence's items, one run each
 *   int32[2]    [npairs]             every mapping's (key, value) pairs
 *   strings                          nstr bytes: tags (each once) and scalar
 *                                    values, each NUL-terminated
 *   uint64 checksum                  rm_yamlcache_hash of all bytes before it
 *
 * Read back, items, pairs and strings are used where they lie in the image
 * (the image becomes the document's arena); only the yaml_node_t array is
 * built.  Bump RM_YAMLCACHE_VERSION whenever the layout or yamldoc.c's
 * loader changes what a document holds.
 */
#define RM_YAMLCACHE_VERSION 1u
#define RM_YAMLCACHE_MAGIC "RMYAMLC\n"
#define RM_YAMLCACHE_MAX_IMAGE (128u << 20)

struct head {
	char magic[8];
	uint32_t version;
	uint32_t order;      /* 0x01020304 as the writer stored it */
	char libyaml[16];    /* yaml_get_version_string(), NUL-padded */
	uint64_t src_len;
	uint64_t src_hash;   /* informative: the file name says it too */
	uint32_t nnodes, nitems, npairs, nstr;
	uint32_t doc[8];     /* start mark (index, line, column), end mark, start/end implicit */
};

struct rec {
	uint32_t type, style, tag, value, length, first, count;
	uint32_t mark[6]; /* start (index, line, column), end (index, line, column) */
};

_Static_assert(sizeof(struct head) == 96, "cache header has no padding");
_Static_assert(sizeof(struct rec) == 52, "cache node record has no padding");
_Static_assert(sizeof(yaml_node_item_t) == 4 && sizeof(yaml_node_pair_t) == 8,
	       "items and pairs are read in place as int32");

static size_t pad4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

/*
 * A 64-bit hash, 8 bytes a step (about half an instruction a byte). Not
 * cryptographic and not meant to be: it only names a cache file and
 * catches a damaged one; the YAML bytes themselves are compared before an
 * image is used.  (SHA-256 from GnuTLS would cost ten times as much and
 * tie the compare path to that library.)
 */
uint64_t rm_yamlcache_hash(const void *data, size_t len)
{
	return rm_hash(data, len);
}

static void fill_head_id(struct head *h)
{
	const char *v = yaml_get_version_string();
	size_t n = strlen(v);

	memcpy(h->magic, RM_YAMLCACHE_MAGIC, 8);
	h->version = RM_YAMLCACHE_VERSION;
	h->order = 0x01020304u;
	memset(h->libyaml, 0, sizeof(h->libyaml));
	memcpy(h->libyaml, v, n < sizeof(h->libyaml) ? n : sizeof(h->libyaml) - 1);
}

static int mark_fits(yaml_mark_t m)
{
	return m.index <= UINT32_MAX && m.line <= UINT32_MAX && m.column <= UINT32_MAX;
}

static void put_mark(uint32_t *out, yaml_mark_t m)
{
	out[0] = (uint32_t)m.index;
	out[1] = (uint32_t)m.line;
	out[2] = (uint32_t)m.column;
}

static yaml_mark_t get_mark(const uint32_t *in)
{
	yaml_mark_t m;

	m.index = in[0];
	m.line = in[1];
	m.column = in[2];
	return m;
}

/* Offset of tag t in the strings, adding it when new (tags are few: the
 * three defaults and a handful of explicit ones; past 64 distinct ones
 * each is simply stored again). */
static uint32_t tag_offset(struct rm_sb *str, uint32_t *seen, size_t *nseen, const char *t)
{
	size_t i;
	uint32_t off;

	for (i = 0; i < *nseen; i++)
		if (!strcmp(str->buf + seen[i], t))
			return seen[i];
	off = (uint32_t)str->len;
	rm_sb_add(str, t, strlen(t) + 1);
	if (*nseen < 64)
		seen[(*nseen)++] = off;
	return off;
}

unsigned char *rm_yamlcache_encode(const struct rm_yaml *y, const char *buf, size_t len, size_t *size)
{
	const yaml_document_t *d = &y->doc;
	size_t nnodes = (size_t)(d->nodes.top - d->nodes.start), nitems = 0, npairs = 0, i, off;
	struct rm_sb str;
	uint32_t seen[64];
	size_t nseen = 0;
	struct head h;
	unsigned char *img, *p;
	int32_t *items, *pairs;
	uint64_t sum;

	if (d->version_directive || d->tag_directives.start != d->tag_directives.end ||
	    !mark_fits(d->start_mark) || !mark_fits(d->end_mark) || len > RM_YAML_MAX_BYTES ||
	    nnodes > RM_YAML_MAX_NODES)
		return NULL;
	for (i = 0; i < nnodes; i++) {
		const yaml_node_t *n = &d->nodes.start[i];

		if (!mark_fits(n->start_mark) || !mark_fits(n->end_mark) || !n->tag)
			return NULL;
		if (n->type == YAML_SEQUENCE_NODE)
			nitems += (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
		else if (n->type == YAML_MAPPING_NODE)
			npairs += (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
	}
	if (nitems > UINT32_MAX / 8 || npairs > UINT32_MAX / 8)
		return NULL;
	memset(&h, 0, sizeof(h));
	fill_head_id(&h);
	h.src_len = len;
	h.src_hash = rm_yamlcache_hash(buf, len);
	h.nnodes = (uint32_t)nnodes;
	h.nitems = (uint32_t)nitems;
	h.npairs = (uint32_t)npairs;
	put_mark(h.doc, d->start_mark);
	put_mark(h.doc + 3, d->end_mark);
	h.doc[6] = (uint32_t)d->start_implicit;
	h.doc[7] = (uint32_t)d->end_implicit;
	/* the records and strings first, the image once the sizes are known */
	rm_sb_init(&str);
	off = sizeof(h) + pad4(len);
	img = rm_xcalloc(1, off + nnodes * sizeof(struct rec) + 4 * nitems + 8 * npairs);
	items = (int32_t *)(img + off + nnodes * sizeof(struct rec));
	pairs = items + nitems;
	nitems = npairs = 0;
	for (i = 0; i < nnodes; i++) {
		const yaml_node_t *n = &d->nodes.start[i];
		struct rec r;

		memset(&r, 0, sizeof(r));
		r.type = (uint32_t)n->type;
		r.tag = tag_offset(&str, seen, &nseen, (const char *)n->tag);
		put_mark(r.mark, n->start_mark);
		put_mark(r.mark + 3, n->end_mark);
		if (n->type == YAML_SCALAR_NODE) {
			r.style = (uint32_t)n->data.scalar.style;
			r.value = (uint32_t)str.len;
			r.length = (uint32_t)n->data.scalar.length;
			rm_sb_add(&str, n->data.scalar.value, n->data.scalar.length + 1);
		} else if (n->type == YAML_SEQUENCE_NODE) {
			const yaml_node_item_t *it;

			r.style = (uint32_t)n->data.sequence.style;
			r.first = (uint32_t)nitems;
			for (it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++)
				items[nitems++] = *it;
			r.count = (uint32_t)nitems - r.first;
		} else {
			const yaml_node_pair_t *pp;

			r.style = (uint32_t)n->data.mapping.style;
			r.first = (uint32_t)npairs;
			for (pp = n->data.mapping.pairs.start; pp < n->data.mapping.pairs.top; pp++) {
				pairs[2 * npairs] = pp->key;
				pairs[2 * npairs + 1] = pp->value;
				npairs++;
			}
			r.count = (uint32_t)npairs - r.first;
		}
		memcpy(img + off + i * sizeof(struct rec), &r, sizeof(r));
		if (str.len > UINT32_MAX / 2) {
			rm_sb_release(&str);
			free(img);
			return NULL;
		}
	}
	h.nstr = (uint32_t)str.len;
	memcpy(img, &h, sizeof(h));
	memcpy(img + sizeof(h), buf, len);
	off += nnodes * sizeof(struct rec) + 4 * nitems + 8 * npairs;
	img = rm_xrealloc(img, off + str.len + 8);
	p = img + off;
	if (str.len)
		memcpy(p, str.buf, str.len);
	p += str.len;
	sum = rm_yamlcache_hash(img, (size_t)(p - img));
	memcpy(p, &sum, 8);
	*size = (size_t)(p - img) + 8;
	rm_sb_release(&str);
	return img;
}

/* rm_yamlcache_decode, leaving data to the caller when it fails. */
static int decode_image(struct rm_yaml *y, const char *file, const char *buf, size_t len,
			unsigned char *data, size_t size)
{
	struct head h, want;
	const unsigned char *recs;
	const int32_t *items, *pairs;
	const char *str;
	yaml_node_t *nodes = NULL;
	uint64_t sum, need;
	size_t i;

	if (size < sizeof(h) + 8)
		goto bad;
	memcpy(&h, data, sizeof(h));
	fill_head_id(&want);
	if (memcmp(h.magic, want.magic, sizeof(h.magic)) || h.version != want.version ||
	    h.order != want.order || memcmp(h.libyaml, want.libyaml, sizeof(h.libyaml)) || h.src_len != len)
		goto bad;
	need = sizeof(h) + pad4(len) + (uint64_t)h.nnodes * sizeof(struct rec) + 4ull * h.nitems +
	       8ull * h.npairs + h.nstr + 8;
	if (need != size)
		goto bad;
	memcpy(&sum, data + size - 8, 8);
	if (sum != rm_yamlcache_hash(data, size - 8) || memcmp(data + sizeof(h), buf, len))
		goto bad;
	recs = data + sizeof(h) + pad4(len);
	items = (const int32_t *)(recs + (size_t)h.nnodes * sizeof(struct rec));
	pairs = items + h.nitems;
	str = (const char *)(pairs + 2 * (size_t)h.npairs);
	if (h.nstr && str[h.nstr - 1])
		goto bad; /* then every string offset below nstr ends within the image */
	for (i = 0; i < h.nitems; i++)
		if (items[i] < 1 || (uint32_t)items[i] > h.nnodes)
			goto bad;
	for (i = 0; i < 2 * (size_t)h.npairs; i++)
		if (pairs[i] < 1 || (uint32_t)pairs[i] > h.nnodes)
			goto bad;
	if (h.doc[6] > 1 || h.doc[7] > 1)
		goto bad;
	if (h.nnodes) {
		nodes = rm_xmalloc((size_t)h.nnodes * sizeof(*nodes));
		rm_prefault(nodes, (size_t)h.nnodes * sizeof(*nodes)); /* written in full below */
	}
	for (i = 0; i < h.nnodes; i++) {
		yaml_node_t *n = &nodes[i];
		struct rec r;

		memcpy(&r, recs + i * sizeof(struct rec), sizeof(r));
		if (r.tag >= h.nstr)
			goto bad;
		memset(n, 0, sizeof(*n));
		n->tag = (yaml_char_t *)(str + r.tag);
		n->start_mark = get_mark(r.mark);
		n->end_mark = get_mark(r.mark + 3);
		switch (r.type) {
		case YAML_SCALAR_NODE:
			if (r.style > YAML_FOLDED_SCALAR_STYLE || r.value >= h.nstr ||
			    r.length >= h.nstr - r.value || str[r.value + r.length])
				goto bad;
			n->type = YAML_SCALAR_NODE;
			n->data.scalar.value = (yaml_char_t *)(str + r.value);
			n->data.scalar.length = r.length;
			n->data.scalar.style = (yaml_scalar_style_t)r.style;
			break;
		case YAML_SEQUENCE_NODE:
			if (r.style > YAML_FLOW_SEQUENCE_STYLE || r.first > h.nitems || r.count > h.nitems - r.first)
				goto bad;
			n->type = YAML_SEQUENCE_NODE;
			n->data.sequence.items.start = (yaml_node_item_t *)(items + r.first);
			n->data.sequence.items.top = n->data.sequence.items.start + r.count;
			n->data.sequence.items.end = n->data.sequence.items.top;
			n->data.sequence.style = (yaml_sequence_style_t)r.style;
			break;
		case YAML_MAPPING_NODE:
			if (r.style > YAML_FLOW_MAPPING_STYLE || r.first > h.npairs || r.count > h.npairs - r.first)
				goto bad;
			n->type = YAML_MAPPING_NODE;
			n->data.mapping.pairs.start = (yaml_node_pair_t *)(pairs + 2 * (size_t)r.first);
			n->data.mapping.pairs.top = n->data.mapping.pairs.start + r.count;
			n->data.mapping.pairs.end = n->data.mapping.pairs.top;
			n->data.mapping.style = (yaml_mapping_style_t)r.style;
			break;
		default:
			goto bad;
		}
	}
	memset(y, 0, sizeof(*y));
	y->doc.nodes.start = nodes;
	y->doc.nodes.top = y->doc.nodes.end = nodes + h.nnodes;
	y->doc.start_mark = get_mark(h.doc);
	y->doc.end_mark = get_mark(h.doc + 3);
	y->doc.start_implicit = (int)h.doc[6];
	y->doc.end_implicit = (int)h.doc[7];
	y->file = rm_xstrdup(file);
	y->loaded = 1;
	y->arena = data;
	return 0;
bad:
	free(nodes);
	return -1;
}

int rm_yamlcache_decode(struct rm_yaml *y, const char *file, const char *buf, size_t len,
			unsigned char *data, size_t size)
{
	if (decode_image(y, file, buf, len, data, size)) {
		free(data);
		return -1;
	}
	return 0;
}

/*
 * The cache file mapped read-only and populated at once, or NULL.  Mapped,
 * not read: its pages are the page cache's, where read() would copy them
 * into as many fresh pages of our own (each a page fault, which on a
 * virtual machine can cost 20 us: 1-2 ms a rule file).  Cache files are
 * only ever replaced by rename (and removed by unlink), which leave a
 * mapped file whole; only truncating one in place under a running
 * robotmail could end that run (SIGBUS).
 */
unsigned char *rm_yamlcache_map(const char *path, size_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	void *m = MAP_FAILED;

	if (fd < 0)
		return NULL;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (unsigned long long)st.st_size <= RM_YAMLCACHE_MAX_IMAGE) {
		*size = (size_t)st.st_size;
		m = mmap(NULL, *size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	}
	close(fd);
	return m == MAP_FAILED ? NULL : m;
}

static int readonly; /* process-wide, like the environment that can turn the cache off */

void rm_yamlcache_set_readonly(void)
{
	readonly = 1;
}

int rm_yamlcache_readonly(void)
{
	return readonly;
}

/* $XDG_CACHE_HOME/robotmail (an absolute $XDG_CACHE_HOME only, as the XDG
 * base directory specification says), else $HOME/.cache/robotmail; NULL
 * when the cache is off or there is neither. */
static char *cache_dir(void)
{
	const char *off = getenv("ROBOTMAIL_CACHE");
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");

	if (off && !strcmp(off, "off"))
		return NULL;
	if (xdg && xdg[0] == '/')
		return rm_path_join(xdg, "robotmail");
	if (home && home[0] == '/')
		return rm_xstrfmt("%s/.cache/robotmail", home);
	return NULL;
}

char *rm_yamlcache_file(const char *kind, uint64_t hash)
{
	char *dir = cache_dir(), *p;

	if (!dir)
		return NULL;
	p = rm_xstrfmt("%s/%s-%016llx.bin", dir, kind, (unsigned long long)hash);
	free(dir);
	return p;
}

char *rm_yamlcache_path(const char *buf, size_t len)
{
	return rm_yamlcache_file("yaml", rm_yamlcache_hash(buf, len));
}

/* Whether name is one of ours: a cache file "yaml-<16 hex>.bin" (or
 * "pcre-<16 hex>.bin", recache.c's) or a temp file ".yaml-XXXXXX" a crash
 * left. */
static int ours(const char *name)
{
	size_t i;

	if (!strncmp(name, ".yaml-", 6))
		return strlen(name) == 12;
	if ((strncmp(name, "yaml-", 5) && strncmp(name, "pcre-", 5)) ||
	    strlen(name) != 5 + 16 + 4 || strcmp(name + 21, ".bin"))
		return 0;
	for (i = 5; i < 21; i++)
		if (!strchr("0123456789abcdef", name[i]))
			return 0;
	return 1;
}

/* Each edit of a rule file leaves the old content's cache file behind:
 * when a new one is written, ours older than RM_YAMLCACHE_MAX_AGE days go
 * (one still in use is written again by the next run that needs it). */
#define RM_YAMLCACHE_MAX_AGE 30
static void prune(const char *dir, const char *keep)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	time_t now = time(NULL);

	if (!d)
		return;
	while ((de = readdir(d))) {
		struct stat st;
		char *p;

		if (!ours(de->d_name) || !strcmp(de->d_name, keep))
			continue;
		p = rm_path_join(dir, de->d_name);
		if (!lstat(p, &st) && S_ISREG(st.st_mode) &&
		    now - st.st_mtime > (time_t)RM_YAMLCACHE_MAX_AGE * 24 * 3600)
			unlink(p);
		free(p);
	}
	closedir(d);
}

/* Best effort: write img to path through a temp file and rename, the
 * directory made 0700 and the file 0600.  Any failure leaves no file. */
void rm_yamlcache_store(const char *path, const unsigned char *img, size_t size)
{
	char *dir = rm_xstrdup(path), *slash = strrchr(dir, '/'), *parent, *tmp;
	int fd;
	size_t done = 0;

	*slash = '\0';
	parent = rm_xstrdup(dir);
	*strrchr(parent, '/') = '\0';
	if ((rm_mkdir_p(parent) || mkdir(dir, 0700)) && errno != EEXIST) {
		free(parent);
		free(dir);
		return;
	}
	free(parent);
	tmp = rm_xstrfmt("%s/.yaml-XXXXXX", dir);
	fd = mkstemp(tmp); /* mode 0600 */
	if (fd < 0) {
		free(tmp);
		free(dir);
		return;
	}
	while (done < size) {
		ssize_t n = write(fd, img + done, size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		done += (size_t)n;
	}
	if (close(fd) || done != size || rename(tmp, path))
		unlink(tmp);
	else
		prune(dir, slash + 1);
	free(tmp);
	free(dir);
}

int rm_yamlcache_load(struct rm_yaml *y, const char *file, const char *buf, size_t len,
		      struct rm_error *err)
{
	char *path = rm_yamlcache_path(buf, len);
	size_t size = 0;
	unsigned char *img = path ? rm_yamlcache_map(path, &size) : NULL;

	if (img) {
		if (!decode_image(y, file, buf, len, img, size)) {
			y->arena_mapped = size;
			free(path);
			return 0;
		}
		munmap(img, size);
	}
	if (rm_yaml_load(y, file, buf, len, err)) {
		free(path);
		return -1;
	}
	if (path && !readonly) {
		img = rm_yamlcache_encode(y, buf, len, &size);
		if (img)
			rm_yamlcache_store(path, img, size);
		free(img);
	}
	free(path);
	return 0;
}
