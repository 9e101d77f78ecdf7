/*
 * yamldoc.h - a loaded YAML document (libyaml) with the few lookups robotmail needs.
 *
 * Owns: one yaml_document_t and the name of the file it came from, for error
 * messages.  Must not: interpret keys; callers (job.c, rules.c, config.c) know
 * what the document means.
 *
 * Ruby's YAML (which wrote and reads LKP job files) keeps the *last* value of
 * a duplicated key at the position of its *first* occurrence; the lookups
 * here follow that rule.
 */
#ifndef RM_YAMLDOC_H
#define RM_YAMLDOC_H

#include <stddef.h>
#include <yaml.h>

#include "error.h"

struct rm_yaml {
	yaml_document_t doc;
	char *file;   /* owned */
	int loaded;
	/* Set when the document was read from the rule cache (yamlcache.h):
	 * then its strings, items and pairs live in this one block (owned:
	 * malloc'd, or a mapping of arena_mapped bytes when that is nonzero)
	 * and only doc.nodes.start is malloc'd apart; rm_yaml_free knows. */
	void *arena;
	size_t arena_mapped;
};

/* Limits on any YAML robotmail reads (job.yaml, the configuration, the rule
 * files), checked on libyaml's event stream as the document is built from
 * it, in one pass (yamldoc.c says how it matches yaml_parser_load). */
#define RM_YAML_MAX_BYTES (16u << 20)
#define RM_YAML_MAX_DEPTH 64       /* collections within collections */
#define RM_YAML_MAX_NODES 1000000  /* scalars, aliases and collections */

/* Parse exactly one document from buf, within the limits above.  An empty
 * input gives an empty mapping-less document (root NULL).  On error fills
 * err with "'<file>' line L column C: <problem>" (such as "nested deeper
 * than 64 levels") and returns -1.  On success the caller must call
 * rm_yaml_free(). */
int rm_yaml_load(struct rm_yaml *y, const char *file, const char *buf, size_t len,
		 struct rm_error *err);
void rm_yaml_free(struct rm_yaml *y);

yaml_node_t *rm_yaml_root(struct rm_yaml *y);
yaml_node_t *rm_yaml_node(struct rm_yaml *y, int id);
/* Value for `key` in mapping `map` (last occurrence wins), or NULL. */
yaml_node_t *rm_yaml_get(struct rm_yaml *y, yaml_node_t *map, const char *key);
/* Scalar text (NUL-terminated, owned by the document) or NULL if not a scalar. */
const char *rm_yaml_scalar(yaml_node_t *n);
/* 1-based line of a node. */
int rm_yaml_line(yaml_node_t *n);
/* True for an empty plain scalar or ~/null. */
int rm_yaml_is_null(yaml_node_t *n);
/* True when the scalar contains a NUL byte (YAML "\0" escape). */
int rm_yaml_has_nul(yaml_node_t *n);

/*
 * The string Ruby would print for a plain scalar after YAML typing it
 * (YAML 1.1 as Psych reads it): "yes" -> "true", "0x10" -> "16",
 * "2.50" -> "2.5", "1_000" -> "1000"; quoted scalars and strings are returned
 * unchanged.  Returns a malloc'd string the caller frees.
 */
char *rm_yaml_ruby_string(yaml_node_t *n);

/* Ruby's Float#to_s for a finite double: "60.52", "1.0e+16", "1.0". Writes into
 * out (at least 32 bytes). */
void rm_ruby_float_to_s(double d, char *out, size_t outlen);

#endif
