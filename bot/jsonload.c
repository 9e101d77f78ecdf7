/* jsonload.c - see jsonload.h. */
#include "jsonload.h"

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

json_t *rm_json_load(const char *file, const char *buf, size_t len, size_t *nan_count,
		     struct rm_error *err)
{
	json_error_t jerr;
	json_t *j;
	struct rm_sb text = RM_SB_INIT;
	size_t count;

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
