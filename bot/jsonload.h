/*
 * jsonload.h - JSON as LKP writes it, into jansson.
 *
 * Owns: turning bytes into a json_t.  LKP's Ruby writer uses allow_nan, so
 * bare NaN, Infinity and -Infinity tokens can appear outside strings; jansson
 * rejects them, so they are rewritten to `null` before parsing and counted.
 * A caller treats a null where a number was expected as "not a number".
 * Must not: read files (callers hand over bytes), know what keys mean.
 */
#ifndef RM_JSONLOAD_H
#define RM_JSONLOAD_H

#include <jansson.h>
#include <stddef.h>

#include "error.h"

/* Limits, checked before jansson sees a byte: at most RM_JSON_MAX_BYTES
 * (the largest archive member, archive.h), arrays and objects nested at most
 * RM_JSON_MAX_DEPTH deep (LKP's files nest 2 or 3; the forges' commit
 * records 4).  Every JSON robotmail reads goes through rm_json_load, so a
 * reader that replaces the jansson tree (matrix.json) keeps these by calling
 * rm_json_check_limits() first. */
#define RM_JSON_MAX_BYTES (256u << 20)
#define RM_JSON_MAX_DEPTH 64

/* Parse buf (need not be NUL-terminated).  Returns a new reference the caller
 * must json_decref(), or NULL with err set to
 * "'<file>' line L column C: <jansson's text>" (or "... nested deeper than
 * 64 levels", "'<file>': N bytes of JSON; at most ... are read").  *nan_count (may be NULL)
 * receives the number of non-finite tokens that were turned into null.
 * Duplicate object keys are rejected. */
json_t *rm_json_load(const char *file, const char *buf, size_t len, size_t *nan_count,
		     struct rm_error *err);

/* The limits above on buf, and no NUL byte (JSON has none; jansson lets
 * one after a number pass): 0, or -1 with err naming the file and the line
 * and column where the nesting goes too deep or the NUL is.  Linear, no
 * allocation. */
int rm_json_check_limits(const char *file, const char *buf, size_t len, struct rm_error *err);

#endif
