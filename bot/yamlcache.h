/*
 * yamlcache.h - the parsed-document cache for trusted rule files.
 *
 * Owns: the cache files of parsed YAML documents under
 * $XDG_CACHE_HOME/robotmail/ (else $HOME/.cache/robotmail/), their binary
 * format, and turning one back into a struct rm_yaml.  Must not: parse YAML
 * itself (yamldoc.c does), interpret keys, or cache anything but the files
 * its callers name as trusted operator files: the metric rules
 * (metrics.yaml), the program list (lkp-programs.yaml) and the era table
 * (eras.yaml), never a job.yaml, an archive's or a mail's YAML, nor the
 * configuration: a state_db PostgreSQL URL in it may carry a password,
 * which must not be copied into a cache (and it costs some 1M instructions,
 * in the commands that read it).
 *
 * libyaml's scanner costs some 25M instructions a run for files that change
 * only when the operator edits them; a cache file is read back in well
 * under 1M.  A cache file is named by a 64-bit hash of the YAML bytes and
 * holds those bytes too: it is used only when they are byte-identical to
 * the file being loaded, its magic, format version, byte order and libyaml
 * version match, its checksum (over the whole file) is right and every
 * node, item, pair and string it holds is within bounds.  Otherwise (a
 * missing, short, corrupt, stale or foreign file, a hash collision, an
 * unwritable directory) the YAML is parsed as without a cache and the cache
 * file written again (temp file + rename, mode 0600 in a 0700 directory),
 * so the cache can never change a result and deleting it is always safe.
 * A document with %YAML or %TAG directives, and any YAML that fails to
 * load, is never cached.  ROBOTMAIL_CACHE=off turns the cache off;
 * `--dry-run` only reads it.
 */
#ifndef RM_YAMLCACHE_H
#define RM_YAMLCACHE_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "yamldoc.h"

/* rm_yaml_load for a trusted rule file, through the cache: the same
 * document (y->arena set when it came from the cache) or the same error.
 * The caller frees y with rm_yaml_free. */
int rm_yamlcache_load(struct rm_yaml *y, const char *file, const char *buf, size_t len,
		      struct rm_error *err);

/* From now on the cache is only read, never written: `--dry-run` writes
 * nothing (design.md), not even a cache file. */
void rm_yamlcache_set_readonly(void);

/* Whether the cache is only read (rm_yamlcache_set_readonly). */
int rm_yamlcache_readonly(void);

/* The helpers below serve recache.c too (the compiled patterns of the same
 * rule files, in the same directory under the same rules).  The cache
 * file "<kind>-<16 hex of hash>.bin" in the cache directory (malloc'd;
 * caller frees), or NULL when the cache is off or has no place. */
char *rm_yamlcache_file(const char *kind, uint64_t hash);

/* A cache file mapped read-only (munmap it, *size bytes), or NULL when it
 * is missing, empty, not a regular file or too big. */
unsigned char *rm_yamlcache_map(const char *path, size_t *size);

/* Best effort: write img to path (temp file + rename, mode 0600 in a 0700
 * directory), then prune our files older than 30 days; any failure leaves
 * no file. */
void rm_yamlcache_store(const char *path, const unsigned char *img, size_t size);

/* The cache file for YAML bytes buf/len (malloc'd; caller frees), or NULL
 * when the cache is off or has no place (no $XDG_CACHE_HOME or $HOME). */
char *rm_yamlcache_path(const char *buf, size_t len);

/* The cache image of a loaded document y of the YAML bytes buf/len
 * (malloc'd, *size bytes; caller frees), or NULL when y cannot be cached
 * (directives, or a mark or count beyond 32 bits). */
unsigned char *rm_yamlcache_encode(const struct rm_yaml *y, const char *buf, size_t len, size_t *size);

/* Turn the cache image data/size (malloc'd, taken over: freed on failure)
 * for the YAML bytes buf/len back into y: 0, with y->arena = data, or -1
 * when the image is not a valid cache of exactly those bytes.  The caller
 * frees y with rm_yaml_free. */
int rm_yamlcache_decode(struct rm_yaml *y, const char *file, const char *buf, size_t len,
			unsigned char *data, size_t size);

/* The checksum a cache image of `size` bytes ends with: the hash of its
 * first size - 8 bytes (rm_hash, strbuf.h; also what names a cache file).
 * Exported for the fuzz target, so that mutated
 * images reach the structural checks behind it. */
uint64_t rm_yamlcache_hash(const void *data, size_t len);

#endif
