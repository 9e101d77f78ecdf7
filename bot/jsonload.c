/* jsonload.c - see jsonload.h. */
#include "jsonload.h"

#include <stdbool.h>
#include <string.h>

#include "strbuf.h"

/* Copy buf into sb, replacing bare NaN / Infinity / -Infinity tokens outside
 * strings with null.  Returns how many were replaced. */
static size_t rewrite_nonfinite(const char *buf, size_t len, struct rm_sb *sb)
{
	static const char *const tokens[] = { "-Infinity", "Infinity", "NaN" };
	size_t i = 0, count = 0, t;
	int in_str = 0;

	rm_sb_grow(sb, len + 16);
	while (i < len) {
		char c = buf[i];

		if (in_str) {
			if (c == '\\' && i + 1 < len) {
				rm_sb_add(sb, buf + i, 2);
				i += 2;
				continue;
			}
			if (c == '"')
				in_str = 0;
		} else if (c == '"') {
			in_str = 1;
		} else if (c == 'N' || c == 'I' || c == '-') {
			for (t = 0; t < 3; t++) {
				size_t n = strlen(tokens[t]);

				if (len - i >= n && !memcmp(buf + i, tokens[t], n)) {
					rm_sb_adds(sb, "null");
					i += n;
					count++;
					break;
				}
			}
			if (t < 3)
				continue;
		}
		rm_sb_addc(sb, c);
		i++;
	}
	return count;
}

int rm_json_check_limits(const char *file, const char *buf, size_t len, struct rm_error *err)
{
	size_t i, depth = 0, line = 1, col = 0;
	bool in_str = false;

	if (len > RM_JSON_MAX_BYTES)
		return rm_error_set(err, RM_ERR_INPUT, "'%s': %zu bytes of JSON; at most %u are read",
				    file, len, RM_JSON_MAX_BYTES);
	for (i = 0; i < len; i++) {
		char c = buf[i];

		col++;
		/* a NUL byte is JSON nowhere, but jansson drops one that follows
		 * a number or literal (it takes the byte it puts back for an
		 * empty buffer): found by fuzz_json, whose matrix.json scanner
		 * refused `{"a": 2<NUL>}` that rm_json_load accepted */
		if (c == '\0')
			return rm_error_set(err, RM_ERR_INPUT,
					    "'%s' line %zu column %zu: invalid JSON: a NUL byte", file, line,
					    col);
		if (c == '\n') {
			line++;
			col = 0;
		} else if (in_str) {
			if (c == '\\' && i + 1 < len && buf[i + 1] != '\0') {
				i++; /* the escaped character, whatever it is but a NUL */
				col++;
			} else if (c == '"') {
				in_str = false;
			}
		} else if (c == '"') {
			in_str = true;
		} else if (c == '[' || c == '{') {
			if (++depth > RM_JSON_MAX_DEPTH)
				return rm_error_set(err, RM_ERR_INPUT,
						    "'%s' line %zu column %zu: nested deeper than %d levels",
						    file, line, col, RM_JSON_MAX_DEPTH);
		} else if ((c == ']' || c == '}') && depth) {
			depth--;
		}
	}
	return 0;
}

json_t *rm_json_load(const char *file, const char *buf, size_t len, size_t *nan_count,
		     struct rm_error *err)
{
	json_error_t jerr;
	json_t *j;
	struct rm_sb text = RM_SB_INIT;
	size_t count;

	if (rm_json_check_limits(file, buf, len, err))
		return NULL;
	rm_sb_init(&text);
	count = rewrite_nonfinite(buf, len, &text);
	j = json_loadb(text.buf, text.len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &jerr);
	rm_sb_release(&text);
	if (!j) {
		rm_error_set(err, RM_ERR_INPUT, "'%s' line %d column %d: invalid JSON: %s", file,
			     jerr.line, jerr.column, jerr.text);
		return NULL;
	}
	if (nan_count)
		*nan_count = count;
	return j;
}
