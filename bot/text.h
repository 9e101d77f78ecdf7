/*
 * text.h - control characters and white space in UTF-8 text from archives.
 *
 * Owns: which characters may not appear in text that robotmail copies from
 * an archive into a table, a report body or a header, and how such text is
 * shown in an error message.
 *   - RM_TEXT_LINE (a job.yaml key or value): no C0 or C1 control character,
 *     no DEL, no U+2028/U+2029 line or paragraph separator.
 *   - RM_TEXT_NAME (a stat name, archive-format.md 2.6 "names never contain
 *     whitespace"): the same, and no white space (ASCII space, U+00A0,
 *     U+1680, U+2000..U+200A, U+202F, U+205F, U+3000).
 * Bytes that are not well-formed UTF-8 are not matched here (the JSON and
 * YAML readers refuse them).
 * Also the one scrubber (rm_text_scrub) for text that is shown rather than
 * refused: errors, warnings, commit facts, header values.
 * Must not: read files, or decide what to do about a bad character (the
 * callers refuse the input with an error naming file and field).
 */
#ifndef RM_TEXT_H
#define RM_TEXT_H

#include <stddef.h>

enum rm_text_class { RM_TEXT_LINE, RM_TEXT_NAME };

/* The first character of `s` that `cls` does not allow, or NULL.  *cp gets
 * its code point when one is found. */
const char *rm_text_bad_char(const char *s, enum rm_text_class cls, unsigned *cp);

/* A copy of `s` cut to at most `max` bytes of input, for an error message:
 * control characters, separators and non-ASCII white space as C-style
 * escapes (\n, \t, \r, \xHH, \uXXXX), bytes that are not UTF-8 as \xHH.
 * The caller frees the result. */
char *rm_text_escaped(const char *s, size_t max);

/* Replace every C0 control character (CR, LF, TAB, ESC ...) and DEL of the
 * string s by `repl`, in place; s may be NULL.  (Commit facts keep C1
 * controls and U+2028/9 here, so that the address rule refuses a fact
 * holding them rather than see it "repaired" into another address; header
 * text also turns those into spaces, message.c.)  Errors use '?'
 * (rm_error_scrub), commit facts and header values ' '. */
void rm_text_scrub(char *s, char repl);

#endif
