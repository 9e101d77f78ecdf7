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

/* Parse buf (need not be NUL-terminated).  Returns a new reference the caller
 * must json_decref(), or NULL with err set to
 * "'<file>' line L column C: <jansson's text>".  *nan_count (may be NULL)
 * receives the number of non-finite tokens that were turned into null.
 * Duplicate object keys are rejected. */
json_t *rm_json_load(const char *file, const char *buf, size_t len, size_t *nan_count,
		     struct rm_error *err);

#endif
