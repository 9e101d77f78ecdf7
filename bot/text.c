/* text.c - see text.h. */
#include "text.h"

#include <stdbool.h>

#include "strbuf.h"

/* C0 and C1 controls, DEL, the line and paragraph separators (code points:
 * the text is decoded with rm_utf8_decode, strbuf.h). */
static bool is_control(unsigned c)
{
	return c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f) || c == 0x2028 || c == 0x2029;
}

static bool is_space(unsigned c)
{
	return c == 0x20 || c == 0xa0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
	       c == 0x202f || c == 0x205f || c == 0x3000;
}

const char *rm_text_bad_char(const char *s, enum rm_text_class cls, unsigned *cp)
{
	const unsigned char *p = (const unsigned char *)s;

	while (p && *p) {
		unsigned c;
		size_t n = rm_utf8_decode(p, &c);

		if (n && (is_control(c) || (cls == RM_TEXT_NAME && is_space(c)))) {
			if (cp)
				*cp = c;
			return (const char *)p;
		}
		p += n ? n : 1;
	}
	return NULL;
}

void rm_text_scrub(char *s, char repl)
{
	for (; s && *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = repl;
}

char *rm_text_escaped(const char *s, size_t max)
{
	struct rm_sb sb = RM_SB_INIT;
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	const unsigned char *end = p;

	while (*end && (size_t)(end - p) < max)
		end++;
	rm_sb_init(&sb);
	while (p < end) {
		unsigned c;
		size_t n = rm_utf8_decode(p, &c);

		if (!n || p + n > end) {
			rm_sb_addf(&sb, "\\x%02x", *p);
			p++;
			continue;
		}
		if (c == '\n')
			rm_sb_adds(&sb, "\\n");
		else if (c == '\t')
			rm_sb_adds(&sb, "\\t");
		else if (c == '\r')
			rm_sb_adds(&sb, "\\r");
		else if (c < 0x20 || c == 0x7f)
			rm_sb_addf(&sb, "\\x%02x", c);
		else if (is_control(c) || (c != ' ' && is_space(c)))
			rm_sb_addf(&sb, "\\u%04x", c);
		else
			rm_sb_add(&sb, p, n);
		p += n;
	}
	return rm_sb_detach(&sb, NULL);
}
