/*
 * recache.h - the compiled-pattern cache for the trusted metric rules.
 *
 * Owns: the cache files of PCRE2 patterns compiled from config/metrics.yaml
 * ("pcre-<16 hex>.bin" beside yamlcache.c's files, named by a hash of the
 * rule file's bytes), their format, and handing their codes back to
 * rules.c.  Must not: decide what a pattern text is (rules.c builds them),
 * nor cache a pattern that did not compile, nor anything of a rule file
 * that failed to load (rules.c closes the cache without saving then).
 *
 * pcre2_compile was some 11.8M instructions of a 56.5M `compare` at
 * 10x2000, for files that change only when the operator edits them.
 * PCRE2 serializes compiled codes (pcre2_serialize_encode), but its decoder
 * trusts its input and the bytes are tied to the PCRE2 build, so a cache
 * file is used only when its magic, format version, byte order and the
 * PCRE2 version string match, its checksum (over the whole file) is right,
 * every entry lies within it and the serialized data says it holds as many
 * codes as the file has entries.  Each entry keeps the exact pattern text
 * and compile options it was compiled from, and a code is handed out only
 * for a request with byte-identical text and the same options; anything
 * else (a missing, short, corrupt, stale or foreign file, an unwritable
 * directory) is compiled as without a cache, so the cache cannot change an
 * answer or an error and deleting it is always safe.  New codes compiled
 * during a run are written by rm_recache_save (the file's entries and the
 * new ones, temp file + rename), unless the cache is read-only
 * (`--dry-run`) or off (ROBOTMAIL_CACHE=off); a caller whose rule file
 * failed to load closes the cache without saving.
 */
#ifndef RM_RECACHE_H
#define RM_RECACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rm_recache;

/* The cache of the patterns of rule-file bytes src/len: its file read when
 * valid, else empty.  Never NULL (with the cache off, a cache that only
 * compiles).  The caller closes it with rm_recache_close. */
struct rm_recache *rm_recache_open(const char *src, size_t len);

/* pcre2_compile(text, len, options) for an 8-bit pcre2_code, through the
 * cache: the cached code of exactly this text and options, else compiled
 * (and, when it compiles, kept for rm_recache_save).  NULL with
 * *errcode and *erroff set as pcre2_compile sets them.  The caller owns the
 * code (pcre2_code_free).  c may be NULL: a plain compile. */
void *rm_recache_compile(struct rm_recache *c, const char *text, size_t len, uint32_t options,
			 int *errcode, size_t *erroff);

/* Is text/len with options known to compile (a code of it in the cache
 * file, or compiled through c this run)?  For patterns compiled only to be
 * checked. */
bool rm_recache_known(const struct rm_recache *c, const char *text, size_t len, uint32_t options);

/* Write the cache file again when codes were compiled through c since it
 * was read or last saved (and the cache may be written): the file's
 * entries and the new ones.  Best effort, as yamlcache.c's writes. */
void rm_recache_save(struct rm_recache *c);

/* Free c and every cached code not handed out (nothing is written). */
void rm_recache_close(struct rm_recache *c);

/* For the unit tests and the fuzz target: the cache file of src/len
 * (malloc'd) or NULL when the cache is off; and 0 when img/size is a
 * structurally valid cache image, *n its entries (its checksum, which is
 * rm_yamlcache_hash of all bytes but the last 8, header, entries and the
 * serialized data's header; the codes themselves are not decoded), else -1. */
char *rm_recache_path(const char *src, size_t len);
int rm_recache_check_image(const unsigned char *img, size_t size, size_t *n);

#endif
