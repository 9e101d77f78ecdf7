/* yamldoc.c - see yamldoc.h. */
#include "yamldoc.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

/* The limits, checked up front on libyaml's event stream (which stops at
 * the first level too deep) before the document is built: libyaml's scanner
 * and loader spend time and memory in proportion to depth x tokens, so 100,000
 * nested '[' took some 20 s. */
static int check_limits(const char *file, const char *buf, size_t len, struct rm_error *err)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	size_t depth = 0, nodes = 0;
	int rc = 0;

	if (len > RM_YAML_MAX_BYTES)
		return rm_error_set(err, RM_ERR_INPUT, "'%s': %zu bytes of YAML; at most %u are read",
				    file, len, RM_YAML_MAX_BYTES);
	if (!yaml_parser_initialize(&parser))
		return rm_error_set(err, RM_ERR_INTERNAL, "'%s': cannot initialise YAML parser", file);
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	for (;;) {
		yaml_event_type_t type;

		if (!yaml_parser_parse(&parser, &ev))
			break; /* the loader says what is wrong, with its position */
		type = ev.type;
		if (type == YAML_SEQUENCE_START_EVENT || type == YAML_MAPPING_START_EVENT) {
			if (++depth > RM_YAML_MAX_DEPTH)
				rc = rm_error_set(err, RM_ERR_INPUT,
						  "'%s' line %zu column %zu: nested deeper than %d levels",
						  file, ev.start_mark.line + 1, ev.start_mark.column + 1,
						  RM_YAML_MAX_DEPTH);
		} else if (type == YAML_SEQUENCE_END_EVENT || type == YAML_MAPPING_END_EVENT) {
			depth--;
		}
		if ((type == YAML_SCALAR_EVENT || type == YAML_ALIAS_EVENT ||
		     type == YAML_SEQUENCE_START_EVENT || type == YAML_MAPPING_START_EVENT) &&
		    ++nodes > RM_YAML_MAX_NODES && !rc)
			rc = rm_error_set(err, RM_ERR_INPUT, "'%s' line %zu: more than %d nodes", file,
					  ev.start_mark.line + 1, RM_YAML_MAX_NODES);
		yaml_event_delete(&ev);
		if (rc || type == YAML_STREAM_END_EVENT)
			break;
	}
	yaml_parser_delete(&parser);
	return rc;
}

int rm_yaml_load(struct rm_yaml *y, const char *file, const char *buf, size_t len,
		 struct rm_error *err)
{
	yaml_parser_t parser;
	int ok;

	memset(y, 0, sizeof(*y));
	if (check_limits(file, buf, len, err))
		return -1;
	if (!yaml_parser_initialize(&parser))
		return rm_error_set(err, RM_ERR_INTERNAL, "'%s': cannot initialise YAML parser", file);
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	ok = yaml_parser_load(&parser, &y->doc);
	if (!ok) {
		rm_error_set(err, RM_ERR_INPUT, "'%s' line %zu column %zu: invalid YAML: %s%s%s",
			     file, parser.problem_mark.line + 1, parser.problem_mark.column + 1,
			     parser.problem ? parser.problem : "parse error",
			     parser.context ? " " : "", parser.context ? parser.context : "");
		yaml_parser_delete(&parser);
		return -1;
	}
	yaml_parser_delete(&parser);
	y->file = rm_xstrdup(file);
	y->loaded = 1;
	return 0;
}

void rm_yaml_free(struct rm_yaml *y)
{
	if (y->loaded)
		yaml_document_delete(&y->doc);
	free(y->file);
	memset(y, 0, sizeof(*y));
}

yaml_node_t *rm_yaml_root(struct rm_yaml *y)
{
	return y->loaded ? yaml_document_get_root_node(&y->doc) : NULL;
}

yaml_node_t *rm_yaml_node(struct rm_yaml *y, int id)
{
	return yaml_document_get_node(&y->doc, id);
}

yaml_node_t *rm_yaml_get(struct rm_yaml *y, yaml_node_t *map, const char *key)
{
	yaml_node_pair_t *p;
	yaml_node_t *found = NULL;

	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = rm_yaml_node(y, p->key);

		if (k && k->type == YAML_SCALAR_NODE && !strcmp((char *)k->data.scalar.value, key))
			found = rm_yaml_node(y, p->value);
	}
	return found;
}

const char *rm_yaml_scalar(yaml_node_t *n)
{
	if (!n || n->type != YAML_SCALAR_NODE)
		return NULL;
	return (const char *)n->data.scalar.value;
}

int rm_yaml_line(yaml_node_t *n)
{
	return n ? (int)n->start_mark.line + 1 : 0;
}

int rm_yaml_is_null(yaml_node_t *n)
{
	const char *s;

	if (!n)
		return 1;
	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return 0;
	s = (const char *)n->data.scalar.value;
	return !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
	       !strcmp(s, "NULL");
}

int rm_yaml_has_nul(yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE &&
	       strlen((char *)n->data.scalar.value) != n->data.scalar.length;
}

void rm_ruby_float_to_s(double d, char *out, size_t outlen)
{
	char digits[40];
	int prec, exp10;
	char *e;

	if (isnan(d)) {
		snprintf(out, outlen, "NaN");
		return;
	}
	if (isinf(d)) {
		snprintf(out, outlen, d < 0 ? "-Infinity" : "Infinity");
		return;
	}
	if (d == 0) {
		snprintf(out, outlen, signbit(d) ? "-0.0" : "0.0");
		return;
	}
	/* shortest digits that round-trip */
	for (prec = 1; prec <= 17; prec++) {
		snprintf(digits, sizeof(digits), "%.*e", prec - 1, d);
		if (strtod(digits, NULL) == d)
			break;
	}
	/* digits = [-]D.DDDDe[+-]XX */
	e = strchr(digits, 'e');
	exp10 = (int)strtol(e + 1, NULL, 10);
	*e = '\0';
	{
		char mant[40];
		int m = 0, i;
		int neg = digits[0] == '-';

		for (i = neg; digits[i]; i++)
			if (isdigit((unsigned char)digits[i]))
				mant[m++] = digits[i];
		mant[m] = '\0';
		while (m > 1 && mant[m - 1] == '0')
			mant[--m] = '\0';
		int ndig = m;
		struct rm_sb sb = RM_SB_INIT;

		rm_sb_init(&sb);
		if (neg)
			rm_sb_addc(&sb, '-');
		if (exp10 < -4 || exp10 >= 16) {
			/* 1.0e+16, 1.5e-05 */
			rm_sb_addc(&sb, mant[0]);
			rm_sb_addc(&sb, '.');
			if (ndig > 1)
				rm_sb_adds(&sb, mant + 1);
			else
				rm_sb_addc(&sb, '0');
			rm_sb_addf(&sb, "e%c%02d", exp10 < 0 ? '-' : '+', abs(exp10));
		} else if (exp10 < 0) {
			rm_sb_adds(&sb, "0.");
			rm_sb_addn(&sb, '0', (size_t)(-exp10 - 1));
			rm_sb_adds(&sb, mant);
		} else {
			for (i = 0; i <= exp10; i++)
				rm_sb_addc(&sb, i < ndig ? mant[i] : '0');
			rm_sb_addc(&sb, '.');
			if (ndig > exp10 + 1)
				rm_sb_adds(&sb, mant + exp10 + 1);
			else
				rm_sb_addc(&sb, '0');
		}
		snprintf(out, outlen, "%s", sb.buf);
		rm_sb_release(&sb);
	}
}

static int all_match(const char *s, const char *set)
{
	for (; *s; s++)
		if (!strchr(set, *s))
			return 0;
	return 1;
}

char *rm_yaml_ruby_string(yaml_node_t *n)
{
	const char *s = rm_yaml_scalar(n);
	static const char *const truthy[] = { "yes", "Yes", "YES", "true", "True", "TRUE",
					      "on", "On", "ON", NULL };
	static const char *const falsy[] = { "no", "No", "NO", "false", "False", "FALSE",
					     "off", "Off", "OFF", NULL };
	char tmp[64];
	size_t len;
	int i;

	if (!s)
		return rm_xstrdup("");
	if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return rm_xstrdup(s);
	for (i = 0; truthy[i]; i++)
		if (!strcmp(s, truthy[i]))
			return rm_xstrdup("true");
	for (i = 0; falsy[i]; i++)
		if (!strcmp(s, falsy[i]))
			return rm_xstrdup("false");
	if (rm_yaml_is_null(n))
		return rm_xstrdup("");
	len = strlen(s);
	if (len == 0 || len > 40)
		return rm_xstrdup(s);
	/* integers: [-+]?(0|[1-9][0-9_]*), 0x.., 0b.., 0[0-7_]+ */
	{
		const char *p = s;
		int neg = 0;

		if (*p == '-' || *p == '+')
			neg = *p++ == '-';
		if (*p && all_match(p, "0123456789_") && (p[0] != '0' || !p[1]) && p[0] != '_') {
			char buf[64];
			size_t j = 0;

			if (neg)
				buf[j++] = '-';
			for (; *p && j < sizeof(buf) - 1; p++)
				if (*p != '_')
					buf[j++] = *p;
			buf[j] = '\0';
			if (!strcmp(buf, "-0"))
				return rm_xstrdup("0");
			return rm_xstrdup(buf);
		}
		if (p[0] == '0' && (p[1] == 'x') && p[2] && all_match(p + 2, "0123456789abcdefABCDEF_")) {
			unsigned long long v = 0;

			for (p += 2; *p; p++) {
				if (*p == '_')
					continue;
				if (v > (~0ULL >> 4))
					return rm_xstrdup(s);
				v = v * 16 + (unsigned)(isdigit((unsigned char)*p) ? *p - '0' :
							(tolower((unsigned char)*p) - 'a' + 10));
			}
			snprintf(tmp, sizeof(tmp), "%s%llu", neg ? "-" : "", v);
			return rm_xstrdup(tmp);
		}
	}
	/* floats: [-+]?([0-9][0-9_]*)?\.[0-9.]*([eE][-+][0-9]+)? as YAML 1.1 */
	{
		const char *p = s;
		int saw_dot = 0, saw_digit = 0;
		char buf[64];
		size_t j = 0;

		if (*p == '-' || *p == '+')
			buf[j++] = *p++;
		for (; *p && (isdigit((unsigned char)*p) || *p == '_' || *p == '.'); p++) {
			if (*p == '_')
				continue;
			if (*p == '.') {
				if (saw_dot)
					break;
				saw_dot = 1;
			} else {
				saw_digit = 1;
			}
			if (j < sizeof(buf) - 1)
				buf[j++] = *p;
		}
		if (saw_dot && saw_digit) {
			if ((*p == 'e' || *p == 'E') && (p[1] == '-' || p[1] == '+') && p[2] &&
			    all_match(p + 2, "0123456789")) {
				while (*p && j < sizeof(buf) - 1)
					buf[j++] = *p++;
			}
			if (!*p) {
				double d;

				buf[j] = '\0';
				errno = 0;
				d = strtod(buf, NULL);
				if (!errno) {
					rm_ruby_float_to_s(d, tmp, sizeof(tmp));
					return rm_xstrdup(tmp);
				}
			}
		}
	}
	return rm_xstrdup(s);
}
