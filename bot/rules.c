/* rules.c - see rules.h. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "rules.h"

#include <ctype.h>
#include <errno.h>
#include <pcre2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileutil.h"
#include "recache.h"
#include "strbuf.h"
#include "yamlcache.h"
#include "yamldoc.h"

#define RM_RULES_MAX_FILE (16u << 20)

/* ------------------------------------------------------------------ helpers */

static void add_regex_literal(struct rm_sb *sb, const char *s)
{
	for (; *s; s++) {
		if (strchr("\\^$.|?*+()[]{}", *s))
			rm_sb_addc(sb, '\\');
		rm_sb_addc(sb, *s);
	}
}

/* The regex text for one pattern under a match mode. */
static void anchored(struct rm_sb *sb, enum rm_match m, const char *p)
{
	rm_sb_adds(sb, "(?:");
	switch (m) {
	case RM_MATCH_START:
		rm_sb_addc(sb, '^');
		rm_sb_adds(sb, p);
		break;
	case RM_MATCH_FULL:
		rm_sb_addc(sb, '^');
		rm_sb_adds(sb, p);
		rm_sb_addc(sb, '$');
		break;
	case RM_MATCH_SEARCH:
		rm_sb_adds(sb, p);
		break;
	case RM_MATCH_PREFIX:
		rm_sb_addc(sb, '^');
		add_regex_literal(sb, p);
		break;
	}
	rm_sb_addc(sb, ')');
}

static pcre2_code *compile_checked(const struct rm_rules *r, const char *text,
				   const char *file, int line, const char *field,
				   const char *pattern, struct rm_error *err);

/* pcre2_compile through the compiled-pattern cache (recache.h): the same
 * code or the same error. */
static pcre2_code *compile_re(const struct rm_rules *r, const char *text, size_t len,
			      uint32_t options, int *code, PCRE2_SIZE *off)
{
	return rm_recache_compile(r->recache, text, len, options, code, off);
}

/* A search-mode pattern that can only match at the start: "^..." with no
 * '|' outside a group (which could start an unanchored branch; "^a(b|c)"
 * is anchored, "^a|b" is not), no "(?" (an option such as (?m) could change
 * what '^' means) and no \Q (quoted text the walk below cannot read).
 * Escapes and character classes are skipped so a '(' or '|' in them is not
 * taken for syntax; anything unbalanced counts as not anchored (measured:
 * 29 of the 33 denylist patterns searched at every offset were anchored
 * alternations, a third of the list's matching time). */
static bool top_level_plain(const char *p);

static bool starts_anchored(const char *p)
{
	return p[0] == '^' && top_level_plain(p + 1);
}

/* The character a regex literal at *pp stands for (a plain character or an
 * escaped punctuation mark) into *c, *pp moved past it; false (nothing
 * moved) at a metacharacter, an escape such as \d, or the end. */
static bool next_literal(const char **pp, char *c)
{
	const char *p = *pp;

	if (p[0] == '\\' && p[1] && !isalnum((unsigned char)p[1])) {
		*c = p[1];
		*pp = p + 2;
		return true;
	}
	if (p[0] && !strchr("\\^$.|?*+()[]{}", p[0])) {
		*c = p[0];
		*pp = p + 1;
		return true;
	}
	return false;
}

/* The ']' that closes the character class opening at p ('['), or NULL
 * when the pattern ends first.  A ']' first (or right after '^') is a
 * literal; a backslash takes the next character. */
static const char *class_end(const char *p)
{
	p++;
	if (*p == '^')
		p++;
	if (*p == ']')
		p++;
	for (; *p && *p != ']'; p++)
		if (*p == '\\' && !*++p)
			return NULL;
	return *p ? p : NULL;
}

/* No '|' outside a group, no "(?", no \Q, balanced (see starts_anchored). */
static bool top_level_plain(const char *p)
{
	int depth = 0;

	if (strstr(p, "(?") || strstr(p, "\\Q"))
		return false;
	for (; *p; p++) {
		if (*p == '\\') {
			if (!*++p)
				return false;
		} else if (*p == '[') {
			if (!(p = class_end(p)))
				return false;
		} else if (*p == '(') {
			depth++;
		} else if (*p == ')') {
			if (--depth < 0)
				return false;
		} else if (*p == '|' && depth == 0) {
			return false;
		}
	}
	return depth == 0;
}

/* Compile text (UTF, no JIT: that comes when the code is used often, see
 * RM_RULES_JIT_LIST); NULL with err naming file, line, field and pattern
 * when it does not compile. */
static pcre2_code *compile_checked(const struct rm_rules *r, const char *text,
				   const char *file, int line, const char *field,
				   const char *pattern, struct rm_error *err)
{
	int code;
	PCRE2_SIZE off;
	pcre2_code *re = compile_re(r, text, strlen(text), PCRE2_UTF, &code, &off);

	if (!re) {
		PCRE2_UCHAR msg[256];

		pcre2_get_error_message(code, msg, sizeof(msg));
		rm_error_set(err, RM_ERR_CONFIG, "'%s' line %d: %s: invalid pattern '%s': %s", file,
			     line, field, pattern, (char *)msg);
		return NULL;
	}
	return re;
}

/* When code gets JIT code: at its N-th use, N about what JIT-compiling it
 * costs over what JIT saves per match, measured in a robotmail process on
 * the bench trees' stat names (JIT in a fresh process costs far more than
 * its instruction count says: mmap'd executable memory, cold code).  A
 * list's alternation of one first byte (12..500 characters): JIT 4..210 us,
 * a match 60..240 ns interpreted, 25..50 ns JIT: ~100..1000 matches; the
 * threshold rules (45 branches): JIT 1..3 ms, a match 24 us interpreted,
 * 4 us JIT: 50..150; the direction rules (251 branches): JIT 11..25 ms,
 * a match 6..11 us interpreted, 0.7 us JIT: ~1000..2500.  Uses seen: the
 * direction rules 54, 521 and 5678 times at 10x2k, 10x20k and 10x200k
 * stats (JIT at the 128th use cost 11..25 ms at 10x20k, 3..7 ms without),
 * the busiest list alternation 1.3k, 17k and 186k times. */
#define RM_RULES_JIT_LIST 128
#define RM_RULES_JIT_THRESHOLDS 64
#define RM_RULES_JIT_DIRECTION 1024

/* JIT code for re, once it has been used `uses` times of `after`: JIT
 * costs as much as this many interpreted matches save (RM_RULES_JIT_*), so
 * code used less is never JIT-compiled and code used more pays at most
 * twice what JIT at load would have (the ski-rental bound).  JIT is best
 * effort (the interpreter stays when it fails); ROBOTMAIL_NO_JIT=1 turns it
 * off (valgrind cannot follow JIT code and reports its reads as
 * uninitialised).  Nothing matches from several threads (robotmail has
 * none), so changing re in place is safe. */
static void jit_when_paid(const void *re, size_t uses, size_t after)
{
	if (re && uses == after && !getenv("ROBOTMAIL_NO_JIT"))
		pcre2_jit_compile((pcre2_code *)re, PCRE2_JIT_COMPLETE);
}

/* Match re against s (len bytes; ascii: no byte >= 0x80, so a UTF
 * pattern's subject check can be skipped). */
static bool re_match_n(const struct rm_rules *r, const void *re, const char *s, size_t len,
		       bool ascii)
{
	return re && pcre2_match((const pcre2_code *)re, (PCRE2_SPTR)s, len, 0,
				 ascii ? PCRE2_NO_UTF_CHECK : 0, (pcre2_match_data *)r->match_data,
				 NULL) >= 0;
}

static bool re_match(const struct rm_rules *r, const void *re, const char *s)
{
	int rc;

	size_t len, i;
	uint64_t high = 0, w;

	if (!re)
		return false;
	/* PCRE2 checks a UTF subject's encoding on every call (about as much
	 * work as a match of these rules: measured 11% of `compare`); plain
	 * ASCII, what stat names nearly always are, cannot be invalid UTF-8,
	 * so the check is skipped for it and left to PCRE2 for anything else */
	len = strlen(s);
	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&w, s + i, 8);
		high |= w;
	}
	for (; i < len; i++)
		high |= (unsigned char)s[i];
	rc = pcre2_match((const pcre2_code *)re, (PCRE2_SPTR)s, len, 0,
			 (high & 0x8080808080808080ull) ? 0 : PCRE2_NO_UTF_CHECK,
			 (pcre2_match_data *)r->match_data, NULL);
	return rc >= 0;
}

static int parse_match(const char *s, enum rm_match *m)
{
	if (!strcmp(s, "start"))
		*m = RM_MATCH_START;
	else if (!strcmp(s, "full"))
		*m = RM_MATCH_FULL;
	else if (!strcmp(s, "search"))
		*m = RM_MATCH_SEARCH;
	else if (!strcmp(s, "prefix"))
		*m = RM_MATCH_PREFIX;
	else
		return -1;
	return 0;
}

static char **string_list(struct rm_yaml *y, yaml_node_t *seq, size_t *n, const char *field,
			  struct rm_error *err)
{
	char **out;
	yaml_node_item_t *it;
	size_t i = 0;

	*n = 0;
	if (!seq || seq->type != YAML_SEQUENCE_NODE) {
		rm_error_set(err, RM_ERR_CONFIG, "'%s' line %d: %s: expected a list of strings",
			     y->file, rm_yaml_line(seq), field);
		return NULL;
	}
	out = rm_xcalloc((size_t)(seq->data.sequence.items.top - seq->data.sequence.items.start) + 1,
			 sizeof(char *));
	for (it = seq->data.sequence.items.start; it < seq->data.sequence.items.top; it++) {
		yaml_node_t *v = rm_yaml_node(y, *it);
		const char *s = rm_yaml_scalar(v);

		if (!s || rm_yaml_has_nul(v)) {
			rm_error_set(err, RM_ERR_CONFIG, "'%s' line %d: %s: expected a string",
				     y->file, rm_yaml_line(v), field);
			while (i)
				free(out[--i]);
			free(out);
			return NULL;
		}
		out[i++] = rm_xstrdup(s);
	}
	*n = i;
	return out;
}

static void free_strings(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* The byte every match of pattern p (a list's, under its mode) starts with,
 * or -1 when there is none to be sure of: an ASCII character that is not
 * regex syntax and is not made optional by a quantifier after it, in a
 * pattern that is anchored at the start as a whole (start/full modes, or
 * search-mode patterns starts_anchored accepts; prefix mode is literal). */
static int first_byte(enum rm_match m, const char *p)
{
	unsigned char c;

	if (m == RM_MATCH_PREFIX)
		return (unsigned char)p[0] > 0 && (unsigned char)p[0] < 0x80 ? (unsigned char)p[0] : -1;
	if (m == RM_MATCH_SEARCH) {
		if (!starts_anchored(p))
			return -1;
		p++;
	} else if (!top_level_plain(p)) {
		return -1;
	}
	c = (unsigned char)p[0];
	if (!c || c >= 0x80 || strchr("\\^$.|?*+()[]{}#", c) || (p[1] && strchr("?*{", p[1])))
		return -1;
	return c;
}

/* Is pattern p (a list's, under mode m) a literal looked for in the name?
 * The shapes: LEAD LIT TRAIL, LEAD ".+" (some character first: min_off 1)
 * or ".*" (none needed), or nothing in search mode; LIT plain characters
 * or escaped punctuation, none quantified; TRAIL "$" (at the end),
 * ".*" or nothing (anywhere; at the end in full mode).  On a name of
 * ASCII without control characters (no newline, so '.' takes every byte and '$' is only
 * the end; one byte per character) such a pattern matches exactly when
 * LIT occurs there.  Prefix mode has its own literal test.  On success
 * lit->text is the literal (the caller owns it). */
static bool literal_shape(enum rm_match m, const char *p, struct rm_literal *lit)
{
	struct rm_sb sb = RM_SB_INIT;
	const char *q;
	size_t min_off;
	bool at_end;

	if (m == RM_MATCH_PREFIX)
		return false;
	for (q = p; *q; q++)
		if ((unsigned char)*q < 0x20 || (unsigned char)*q > 0x7e)
			return false;
	if (p[0] == '.' && (p[1] == '+' || p[1] == '*')) {
		min_off = p[1] == '+';
		p += 2;
	} else if (m == RM_MATCH_SEARCH) {
		min_off = 0;
	} else {
		return false;
	}
	rm_sb_init(&sb);
	for (;;) {
		char c;

		if (!next_literal(&p, &c))
			break;
		if (*p && strchr("?*+{", *p)) {
			rm_sb_release(&sb); /* the character is quantified */
			return false;
		}
		rm_sb_addc(&sb, c);
	}
	if (!*p)
		at_end = m == RM_MATCH_FULL;
	else if (!strcmp(p, "$"))
		at_end = true;
	else if (!strcmp(p, ".*"))
		at_end = false;
	else
		sb.len = 0;
	if (!sb.len) {
		rm_sb_release(&sb);
		return false;
	}
	lit->len = sb.len;
	lit->text = rm_xstrndup(sb.buf, sb.len);
	lit->min_off = min_off;
	lit->at_end = at_end;
	lit->re = NULL;
	rm_sb_release(&sb);
	return true;
}

/* Does the literal pattern match s (ASCII without control characters, n
 * bytes)? */
static bool literal_match(const struct rm_literal *l, const char *s, size_t n)
{
	if (n < l->min_off + l->len)
		return false;
	if (l->at_end)
		return !memcmp(s + n - l->len, l->text, l->len);
	return strstr(s + l->min_off, l->text) != NULL;
}

/* ------------------------------------------------------------------ required literals
 *
 * A name that contains none of the literals every match of an alternation
 * must contain cannot match it: the alternation is then not run at all.
 * Measured at 10x2000: the failure list's '.+\.(error|warn|fail)[^_]*$'
 * (no first byte, no literal shape: a '.+' that backtracks over each
 * 73-byte name) cost 2.5k instructions a name, 3.6M of a 45M `compare`;
 * three strstr calls for ".error", ".warn" and ".fail" cost ~150.
 */
#define RM_GATE_MIN 3     /* shorter literals filter too little */
#define RM_GATE_MAX 16    /* literals an alternation's gate holds at most */
#define RM_GATE_SEARCHED 6 /* of them looked for anywhere (the others: at the start) */

struct req_lit {
	char *text;
	size_t len;
	bool at_start; /* at offset 0 of every match (the pattern is anchored) */
};

/* A set of literals, one of which every match contains. */
struct req_set {
	struct req_lit *v;
	size_t n;
};

static void req_set_free(struct req_set *set)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		free(set->v[i].text);
	free(set->v);
	set->v = NULL;
	set->n = 0;
}

static size_t req_set_min(const struct req_set *set)
{
	size_t i, m = (size_t)-1;

	for (i = 0; i < set->n; i++)
		if (set->v[i].len < m)
			m = set->v[i].len;
	return set->n ? m : 0;
}

/* One literal character at p (plain, or punctuation escaped): its length
 * in the pattern (1 or 2) with *c the character, or 0. */
static int lit_char(const char *p, char *c)
{
	if (p[0] == '\\' && p[1] && (unsigned char)p[1] >= 0x20 && (unsigned char)p[1] < 0x7f &&
	    !isalnum((unsigned char)p[1])) {
		*c = p[1];
		return 2;
	}
	if ((unsigned char)p[0] >= 0x20 && (unsigned char)p[0] < 0x7f &&
	    !strchr("\\^$.|?*+()[]{}", p[0])) {
		*c = p[0];
		return 1;
	}
	return 0;
}

/* Keep cand in *best when its shortest literal is longer (at the start
 * wins a tie: a compare instead of a search); cand is freed or taken. */
static void req_consider(struct req_set *best, struct req_set *cand)
{
	size_t a = req_set_min(cand), b = req_set_min(best);

	if (a >= RM_GATE_MIN &&
	    (a > b || (a == b && cand->v[0].at_start && best->n && !best->v[0].at_start))) {
		req_set_free(best);
		*best = *cand;
		cand->v = NULL;
		cand->n = 0;
	}
	req_set_free(cand);
}

static void req_run_done(struct req_set *best, struct rm_sb *run, bool at_start)
{
	if (run->len) {
		struct req_set one;

		one.v = rm_xcalloc(1, sizeof(*one.v));
		one.n = 1;
		one.v[0].text = rm_xstrndup(run->buf, run->len);
		one.v[0].len = run->len;
		one.v[0].at_start = at_start;
		req_consider(best, &one);
	}
	run->len = 0;
}

/* The group "(A|B|...)" at p (its length through ')' in *glen) when each
 * alternative is plain literal characters (none quantified, none empty):
 * each alternative after `before`, into set; false otherwise. */
static bool plain_alternatives(const char *p, const struct rm_sb *before, bool at_start,
			       struct req_set *set, size_t *glen)
{
	const char *q = p + 1;
	struct rm_sb alt = RM_SB_INIT;

	set->v = NULL;
	set->n = 0;
	rm_sb_init(&alt);
	rm_sb_add(&alt, before->buf, before->len);
	for (;;) {
		char c;
		int k = lit_char(q, &c);

		if (k) {
			if (q[k] && strchr("?*+{", q[k]))
				break;
			rm_sb_addc(&alt, c);
			q += k;
			continue;
		}
		if ((*q != '|' && *q != ')') || alt.len == before->len)
			break;
		set->v = rm_xrealloc(set->v, (set->n + 1) * sizeof(*set->v));
		set->v[set->n].text = rm_xstrndup(alt.buf, alt.len);
		set->v[set->n].len = alt.len;
		set->v[set->n].at_start = at_start;
		set->n++;
		alt.len = before->len;
		if (*q++ == ')') {
			rm_sb_release(&alt);
			*glen = (size_t)(q - p);
			return true;
		}
	}
	rm_sb_release(&alt);
	req_set_free(set);
	return false;
}

/* The literals one of which every match of pattern p (a list's, under
 * mode m) contains, into *best (empty: none found).  Only patterns of
 * printable ASCII with no '|' outside a group, no "(?" and no \Q
 * (top_level_plain): the pattern is then a sequence of atoms, and a run
 * of atoms that each match one given character exactly once is in every
 * match, as is a group of plain literal alternatives with the run before
 * it.  The walk stops at anything it does not read for sure ('{', an
 * escape of a letter or digit); what it found before stays true. */
static void required_literals(enum rm_match m, const char *p, struct req_set *best)
{
	struct rm_sb run = RM_SB_INIT;
	bool anchored_start, at_start;
	const char *q;

	best->v = NULL;
	best->n = 0;
	for (q = p; *q; q++)
		if ((unsigned char)*q < 0x20 || (unsigned char)*q > 0x7e)
			return;
	if (m == RM_MATCH_PREFIX) {
		struct req_set one;

		one.v = rm_xcalloc(1, sizeof(*one.v));
		one.n = 1;
		one.v[0].text = rm_xstrdup(p);
		one.v[0].len = strlen(p);
		one.v[0].at_start = true;
		req_consider(best, &one);
		return;
	}
	anchored_start = m != RM_MATCH_SEARCH || p[0] == '^';
	if (m == RM_MATCH_SEARCH && p[0] == '^')
		p++;
	if (!top_level_plain(p))
		return;
	rm_sb_init(&run);
	at_start = anchored_start;
	q = p;
	while (*q) {
		char c;
		int k = lit_char(q, &c);
		if (k) {
			char next = q[k];

			if (next == '?' || next == '*' || next == '{') {
				/* optional or counted: not required */
				req_run_done(best, &run, at_start);
				at_start = false;
				if (next == '{')
					break;
				for (q += k; *q && strchr("?*+", *q); q++)
					;
				continue;
			}
			rm_sb_addc(&run, c);
			q += k;
			if (next == '+') {
				/* once for sure, maybe more: the run ends */
				req_run_done(best, &run, at_start);
				at_start = false;
				for (; *q && strchr("?*+", *q); q++)
					;
			}
			continue;
		}
		if (*q == '(') {
			struct req_set set;
			size_t glen = 0;

			if (plain_alternatives(q, &run, at_start, &set, &glen)) {
				if (q[glen] && strchr("?*{", q[glen]))
					req_set_free(&set);
				else
					req_consider(best, &set);
			}
			req_run_done(best, &run, at_start);
			at_start = false;
			if (!glen)
				break; /* another group: its end is not looked for */
			for (q += glen; *q && strchr("?*+", *q); q++)
				;
			continue;
		}
		if (*q == '[') {
			/* a class: a ']' first (or after '^') is a literal */
			req_run_done(best, &run, at_start);
			at_start = false;
			if (!(q = class_end(q)))
				break;
			for (q++; *q && strchr("?*+", *q); q++)
				;
			continue;
		}
		if (*q == '.' || *q == '$' || *q == '^') {
			req_run_done(best, &run, at_start);
			at_start = false;
			if (*q == '{' || q[1] == '{')
				break;
			for (q++; *q && strchr("?*+", *q); q++)
				;
			continue;
		}
		break; /* an escaped letter or digit, a '{', a stray quantifier */
	}
	req_run_done(best, &run, at_start);
	rm_sb_release(&run);
}

/* An alternation's gate: the literals one of which every branch's matches
 * contain.  none: some branch has no such set (or the gate would be too
 * big), or the gate let most names through (RM_GATE_TRIAL): the
 * alternation always runs. */
struct rm_gate {
	struct req_lit *v;
	size_t n, searched;
	bool none;
	size_t tries, passes;
};

/* A gate that lets more than 3/4 of its first RM_GATE_TRIAL names through
 * is dropped: it only adds its cost to the alternation's (measured at
 * 10x2000: the denylist's "^interrupts." before the interrupts.* names,
 * which the denylist matches, cost 0.3M instructions more than it saved). */
#define RM_GATE_TRIAL 128

static void gate_add(struct rm_gate *g, enum rm_match m, const char *pattern)
{
	struct req_set set;
	size_t i;

	if (g->none)
		return;
	required_literals(m, pattern, &set);
	for (i = 0; i < set.n; i++)
		g->searched += !set.v[i].at_start;
	if (!set.n || g->n + set.n > RM_GATE_MAX || g->searched > RM_GATE_SEARCHED) {
		req_set_free(&set);
		for (i = 0; i < g->n; i++)
			free(g->v[i].text);
		free(g->v);
		g->v = NULL;
		g->n = 0;
		g->none = true;
		return;
	}
	g->v = rm_xrealloc(g->v, (g->n + set.n) * sizeof(*g->v));
	memcpy(g->v + g->n, set.v, set.n * sizeof(*set.v));
	g->n += set.n;
	free(set.v);
}

/* May the gated alternation match name (printable ASCII, n bytes)?  g
 * counts its answers (RM_GATE_TRIAL); the rules are const to their
 * users, the gates' counters are not. */
static bool gate_passes(struct rm_gate *g, const char *name, size_t n)
{
	size_t i;
	bool pass = false;

	if (g->none || !g->n)
		return true;
	for (i = 0; i < g->n && !pass; i++) {
		const struct req_lit *v = &g->v[i];

		/* literals are RM_GATE_MIN (>= 2) long: a second byte first */
		pass = v->at_start ? n >= v->len && name[1] == v->text[1] &&
					     !memcmp(name, v->text, v->len)
				   : strstr(name, v->text) != NULL;
	}
	g->passes += pass;
	if (++g->tries == RM_GATE_TRIAL && g->passes * 4 > g->tries * 3)
		g->none = true;
	return pass;
}

static void gates_free(struct rm_gate *gates)
{
	size_t i, k;

	for (i = 0; gates && i < RM_RULES_ASCII_SLOTS; i++) {
		for (k = 0; k < gates[i].n; k++)
			free(gates[i].v[k].text);
		free(gates[i].v);
	}
	free(gates);
}

/* The alternation text compiled without UTF (JIT when paid): for names that
 * are plain ASCII, where it matches exactly as the UTF code does (every
 * character is one byte on both sides) and is about twice as fast on
 * patterns like ".+\.(error|warn|fail)[^_]*$".  NULL when the text is not
 * all ASCII (a quantified multi-byte character would differ) or does not
 * compile without UTF. */
static void *compile_ascii(const struct rm_rules *r, const char *text)
{
	const char *q;
	int code;
	PCRE2_SIZE off;
	pcre2_code *re;

	for (q = text; *q; q++)
		if ((unsigned char)*q >= 0x80)
			return NULL;
	re = compile_re(r, text, strlen(text), 0, &code, &off);
	return re;
}

static bool self_contained(const char *p);

/* The error of the first pattern of l that does not compile alone (in the
 * order written, as the list's own error would name it), or 0 when each
 * does. */
static int first_bad_pattern(const struct rm_rules *r, const struct rm_pattern_list *l,
			     struct rm_yaml *y,
			     yaml_node_t *pats, const char *field, struct rm_error *err)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		struct rm_sb one = RM_SB_INIT;
		pcre2_code *re;

		rm_sb_init(&one);
		anchored(&one, l->match, l->patterns[i]);
		re = compile_checked(r, one.buf, y->file, rm_yaml_line(pats), field,
				     l->patterns[i], err);
		rm_sb_release(&one);
		if (!re)
			return -1;
		pcre2_code_free(re);
	}
	return 0;
}

static int load_list(struct rm_rules *r, struct rm_yaml *y, const char *field,
		     struct rm_pattern_list *l, struct rm_error *err)
{
	yaml_node_t *root = rm_yaml_root(y);
	yaml_node_t *node = rm_yaml_get(y, root, field);
	yaml_node_t *m, *pats;
	struct rm_sb sb = RM_SB_INIT, rest = RM_SB_INIT;
	struct rm_sb *first[RM_RULES_FIRST] = { NULL };
	struct rm_gate *gates;
	size_t i;
	int c;
	bool failed;

	if (!node || node->type != YAML_MAPPING_NODE)
		return rm_error_set(err, RM_ERR_CONFIG,
				    "'%s' line %d: '%s': expected a mapping with match and patterns",
				    y->file, rm_yaml_line(node ? node : root), field);
	m = rm_yaml_get(y, node, "match");
	if (!rm_yaml_scalar(m) || parse_match(rm_yaml_scalar(m), &l->match))
		return rm_error_set(err, RM_ERR_CONFIG,
				    "'%s' line %d: '%s.match': expected start, full, search or prefix",
				    y->file, rm_yaml_line(m ? m : node), field);
	pats = rm_yaml_get(y, node, "patterns");
	l->patterns = string_list(y, pats, &l->n, field, err);
	if (!l->patterns)
		return -1;
	l->gates = gates = rm_xcalloc(RM_RULES_ASCII_SLOTS, sizeof(*gates));
	/* two alternations: the patterns that can only match at the start
	 * (tried once, at the start) and the others (searched) */
	rm_sb_init(&sb);
	rm_sb_init(&rest);
	for (i = 0; i < l->n; i++) {
		struct rm_sb one = RM_SB_INIT;
		struct rm_sb *to = l->match != RM_MATCH_SEARCH || starts_anchored(l->patterns[i])
					   ? &sb : &rest;
		pcre2_code *re = NULL;
		struct rm_literal lit;
		bool lit_shape = literal_shape(l->match, l->patterns[i], &lit);

		/* a pattern alone is compiled only when its alternation cannot
		 * tell whether it compiles (self_contained) or when it is a
		 * literal (its regex serves the names a string search cannot
		 * decide); the others are checked by compiling the alternation
		 * they are a branch of (measured: compiling each pattern alone
		 * was a third of the instructions of loading the rules) */
		if (lit_shape || !self_contained(l->patterns[i])) {
			rm_sb_init(&one);
			anchored(&one, l->match, l->patterns[i]);
			/* a pattern only checked needs no code when the
			 * compiled-pattern cache knows that it compiles */
			bool known = !lit_shape &&
				     rm_recache_known(r->recache, one.buf, one.len, PCRE2_UTF);

			re = known ? NULL
				   : compile_checked(r, one.buf, y->file, rm_yaml_line(pats), field,
						     l->patterns[i], err);
			rm_sb_release(&one);
			if (!re && !known) {
				if (lit_shape)
					free(lit.text);
				rm_sb_release(&sb);
				rm_sb_release(&rest);
				for (c = 0; c < RM_RULES_FIRST; c++)
					if (first[c]) {
						rm_sb_release(first[c]);
						free(first[c]);
					}
				/* an earlier pattern may be wrong too: the
				 * first one is named, as when each was compiled */
				first_bad_pattern(r, l, y, pats, field, err);
				return -1;
			}
		}
		if (lit_shape) {
			/* decided by a string search; the regex alone serves
			 * names that are not ASCII or hold a control character */
			lit.re = re;
			l->lits = rm_xrealloc(l->lits, (l->nlits + 1) * sizeof(*l->lits));
			l->lits[l->nlits++] = lit;
			continue;
		}
		pcre2_code_free(re);
		c = to == &sb ? first_byte(l->match, l->patterns[i]) : -1;
		gate_add(&gates[c >= 0 ? c : to == &sb ? RM_RULES_FIRST : RM_RULES_FIRST + 1], l->match,
			 l->patterns[i]);
		if (c >= 0) {
			/* a name only tries the patterns of its own first byte */
			if (!first[c]) {
				first[c] = rm_xmalloc(sizeof(*first[c]));
				rm_sb_init(first[c]);
			}
			to = first[c];
		}
		if (to->len)
			rm_sb_addc(to, '|');
		anchored(to, l->match, l->patterns[i]);
	}
	/* each alternation compiled with UTF here (this checks its patterns;
	 * an error names the list; no JIT: it serves names that are not
	 * ASCII), and again without UTF when an ASCII name first needs it
	 * (ascii_code: a name tries only the alternations of its first byte,
	 * so most are never needed) */
	failed = false;
	l->ascii = rm_xcalloc(RM_RULES_ASCII_SLOTS, sizeof(*l->ascii));
	if (sb.len) {
		l->ascii[RM_RULES_FIRST].text = rm_xstrdup(sb.buf);
		failed = !(l->combined = compile_checked(r, sb.buf, y->file, rm_yaml_line(pats), field,
							 "(all)", err));
	}
	if (rest.len && !failed) {
		l->ascii[RM_RULES_FIRST + 1].text = rm_xstrdup(rest.buf);
		failed = !(l->rest = compile_checked(r, rest.buf, y->file, rm_yaml_line(pats), field,
						     "(all)", err));
	}
	for (c = 0; c < RM_RULES_FIRST; c++) {
		if (!first[c])
			continue;
		if (!failed) {
			l->ascii[c].text = rm_xstrdup(first[c]->buf);
			failed = !(l->first[c] = compile_checked(r, first[c]->buf, y->file,
								 rm_yaml_line(pats), field,
								 "(all)", err));
		}
		rm_sb_release(first[c]);
		free(first[c]);
	}
	rm_sb_release(&sb);
	rm_sb_release(&rest);
	/* a pattern that does not compile alone is named, as when each was
	 * compiled alone before its alternation; else the list's error */
	if (failed)
		first_bad_pattern(r, l, y, pats, field, err);
	return failed ? -1 : 0;
}

static void free_list(struct rm_pattern_list *l)
{
	size_t i;

	free_strings(l->patterns, l->n);
	pcre2_code_free(l->combined);
	pcre2_code_free(l->rest);
	for (i = 0; i < RM_RULES_FIRST; i++)
		pcre2_code_free(l->first[i]);
	for (i = 0; l->ascii && i < RM_RULES_ASCII_SLOTS; i++) {
		free(l->ascii[i].text);
		pcre2_code_free(l->ascii[i].code);
	}
	free(l->ascii);
	for (i = 0; i < l->nlits; i++) {
		free(l->lits[i].text);
		pcre2_code_free(l->lits[i].re);
	}
	free(l->lits);
	gates_free(l->gates);
	memset(l, 0, sizeof(*l));
}

static int parse_number(const char *s, double *v, bool *is_int)
{
	char *end;

	if (!s || !*s)
		return -1;
	*v = strtod(s, &end);
	if (*end)
		return -1;
	*is_int = !strpbrk(s, ".eE") && strcmp(s, "inf") && strcmp(s, "nan");
	return 0;
}

/* Compile rule i's pattern alone, under mode; an error names item's line. */
static int rule_alone(const struct rm_rules *r, struct rm_rule *rule, enum rm_match mode, struct rm_yaml *y,
		      yaml_node_t *item, const char *field, struct rm_error *err)
{
	struct rm_sb sb = RM_SB_INIT;

	rm_sb_init(&sb);
	anchored(&sb, mode, rule->pattern);
	rule->re = compile_checked(r, sb.buf, y->file, rm_yaml_line(item), field, rule->pattern, err);
	rm_sb_release(&sb);
	return rule->re ? 0 : -1;
}

/* The first of rules[0..n) (items of the sequence `rules`) that does not
 * compile alone, with its error; 0 when each does (they are compiled). */
static int first_bad_rule(const struct rm_rules *r, struct rm_rule *rules, size_t n, enum rm_match mode,
			  struct rm_yaml *y, yaml_node_t *seq, const char *field,
			  struct rm_error *err)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!rules[i].re && rule_alone(r, &rules[i], mode, y,
					       rm_yaml_node(y, seq->data.sequence.items.start[i]),
					       field, err))
			return -1;
	return 0;
}

static bool combinable(const char *p);
static void *combine_rules(const struct rm_rules *r, const struct rm_rule *rules, size_t n,
			   enum rm_match mode);

/* The ordered rules of `field` into *out, and *any their marked alternation
 * (combine_rules; NULL: the rules are asked one by one).  A rule's pattern
 * is compiled alone only when the alternation cannot check it
 * (self_contained) or there is no alternation; the others when first asked
 * alone (rule_code).  Errors name the first wrong item, as when every
 * pattern was compiled in turn. */
static int load_rules(const struct rm_rules *r, struct rm_yaml *y, const char *field, const char *valkey,
		      struct rm_rule **out, size_t *nout, enum rm_match *mode, void **any,
		      struct rm_error *err)
{
	yaml_node_t *node = rm_yaml_get(y, rm_yaml_root(y), field);
	yaml_node_t *m, *rules;
	yaml_node_item_t *it;
	size_t n = 0;

	*out = NULL;
	*nout = 0;
	*any = NULL;
	if (!node || node->type != YAML_MAPPING_NODE)
		return rm_error_set(err, RM_ERR_CONFIG,
				    "'%s': '%s': expected a mapping with match and rules", y->file,
				    field);
	m = rm_yaml_get(y, node, "match");
	if (!rm_yaml_scalar(m) || parse_match(rm_yaml_scalar(m), mode))
		return rm_error_set(err, RM_ERR_CONFIG,
				    "'%s' line %d: '%s.match': expected start, full, search or prefix",
				    y->file, rm_yaml_line(m ? m : node), field);
	rules = rm_yaml_get(y, node, "rules");
	if (!rules || rules->type != YAML_SEQUENCE_NODE)
		return rm_error_set(err, RM_ERR_CONFIG, "'%s' line %d: '%s.rules': expected a list",
				    y->file, rm_yaml_line(rules ? rules : node), field);
	*out = rm_xcalloc((size_t)(rules->data.sequence.items.top -
				   rules->data.sequence.items.start) + 1,
			  sizeof(**out));
	for (it = rules->data.sequence.items.start; it < rules->data.sequence.items.top; it++) {
		yaml_node_t *item = rm_yaml_node(y, *it);
		const char *pat = rm_yaml_scalar(rm_yaml_get(y, item, "pattern"));
		const char *val = rm_yaml_scalar(rm_yaml_get(y, item, valkey));
		struct rm_rule *rule = &(*out)[n];

		if (!pat || parse_number(val, &rule->value, &rule->is_int)) {
			*nout = n;
			/* an earlier rule's pattern error comes first */
			if (first_bad_rule(r, *out, n, *mode, y, rules, field, err))
				return -1;
			return rm_error_set(err, RM_ERR_CONFIG,
					    "'%s' line %d: '%s': expected {pattern: STRING, %s: NUMBER}",
					    y->file, rm_yaml_line(item), field, valkey);
		}
		rule->pattern = rm_xstrdup(pat);
		*nout = ++n;
		if (!self_contained(pat) && rule_alone(r, rule, *mode, y, item, field, err)) {
			first_bad_rule(r, *out, n - 1, *mode, y, rules, field, err);
			return -1;
		}
	}
	/* the marked alternation checks the other patterns; without it, they
	 * are compiled alone now (in order: the first wrong one is named) */
	*any = combine_rules(r, *out, n, *mode);
	return *any ? 0 : first_bad_rule(r, *out, n, *mode, y, rules, field, err);
}

/* Can the pattern be one branch of a combined alternation without changing
 * what it matches?  Not when it refers to groups by number or name (their
 * numbers shift; a condition (?(N) too) or uses a backtracking verb. */
static bool combinable(const char *p)
{
	for (; *p; p++) {
		if (p[0] == '\\' && p[1]) {
			if (strchr("123456789gkR", p[1]))
				return false;
			p++;
			continue;
		}
		if (p[0] == '(' && (p[1] == '*' || (p[1] == '?' && p[2] &&
						     strchr("0123456789R&+-P(", p[2]))))
			return false;
	}
	return true;
}

/* Does the pattern compile alone exactly when it compiles as a branch of an
 * alternation (wrapped in "(?:...)" either way)?  Then compiling the
 * alternation checks it.  Only what cannot reach out of its wrapper: no
 * reference to a group (combinable), groups and classes that close within
 * the pattern, no \Q quoting, \c (which takes the next character), POSIX
 * class or comment, and no "(?" but a plain group or a lookaround (an
 * option such as (?x) changes how the rest is read).  Anything else is
 * compiled alone as well (a false "no" only costs that compile). */
static bool self_contained(const char *p)
{
	int depth = 0;

	if (!combinable(p) || strstr(p, "\\Q") || strstr(p, "\\c") || strstr(p, "[:") ||
	    strstr(p, "[.") || strstr(p, "[="))
		return false;
	for (; *p; p++) {
		if (*p == '\\') {
			if (!*++p)
				return false;
		} else if (*p == '[') {
			if (!(p = class_end(p)))
				return false;
		} else if (*p == '(') {
			if (p[1] == '?' && !(p[2] && strchr(":=!>", p[2])) &&
			    !(p[2] == '<' && (p[3] == '=' || p[3] == '!')))
				return false;
			depth++;
		} else if (*p == ')') {
			if (--depth < 0)
				return false;
		}
	}
	return depth == 0;
}

/* The ordered rules as one alternation, branch i marked i, when the match
 * mode anchors every branch at the start (so the first branch that matches
 * is the first rule that matches).  NULL when that cannot be done. */
static void *combine_rules(const struct rm_rules *r, const struct rm_rule *rules, size_t n,
			   enum rm_match mode)
{
	struct rm_sb sb = RM_SB_INIT;
	int code;
	PCRE2_SIZE off;
	pcre2_code *re;
	size_t i;

	if (!n || mode == RM_MATCH_SEARCH)
		return NULL;
	for (i = 0; i < n; i++)
		if (!combinable(rules[i].pattern))
			return NULL;
	rm_sb_init(&sb);
	for (i = 0; i < n; i++) {
		if (i)
			rm_sb_addc(&sb, '|');
		anchored(&sb, mode, rules[i].pattern);
		rm_sb_addf(&sb, "(*MARK:%zu)", i);
	}
	/* JIT-compiled later, when used often enough (first_rule) */
	re = compile_re(r, sb.buf, sb.len, PCRE2_UTF, &code, &off);
	rm_sb_release(&sb);
	return re;
}

/* Rule i's code: compiled alone when first asked for (load_rules checked
 * it: a self-contained pattern that compiled as a branch of the marked
 * alternation compiles alone, so a failure here is out of memory). */
static const void *rule_code(const struct rm_rules *r, const struct rm_rule *rule,
			     enum rm_match mode)
{
	if (!rule->re) {
		struct rm_sb sb = RM_SB_INIT;
		int code;
		PCRE2_SIZE off;

		rm_sb_init(&sb);
		anchored(&sb, mode, rule->pattern);
		/* the rules are const to their users; their code is made
		 * when needed, as the decision cache remembers answers */
		((struct rm_rule *)rule)->re = compile_re(r, sb.buf, sb.len, PCRE2_UTF, &code, &off);
		rm_sb_release(&sb);
		if (!rule->re) {
			fputs("robotmail: out of memory\n", stderr);
			abort();
		}
	}
	return rule->re;
}

/* The literal text every match of pattern p (an ordered rule's, under
 * mode) starts with, maybe empty: the plain or escaped characters from
 * the start, up to any other syntax (a character made optional by a
 * quantifier after it is left out), only for a pattern with no '|' outside
 * a group and no "(?" (top_level_plain).  In sb. */
static void literal_prefix(enum rm_match mode, const char *p, struct rm_sb *sb)
{
	if (mode == RM_MATCH_PREFIX) {
		rm_sb_adds(sb, p);
		return;
	}
	if (mode == RM_MATCH_SEARCH || !top_level_plain(p))
		return;
	for (;;) {
		char c;

		if (!next_literal(&p, &c))
			return;
		if (*p && strchr("?*{", *p))
			return; /* c is optional (or counted) */
		rm_sb_addc(sb, c);
	}
}

/* The ordered rules a stat of one program can match: for the names that
 * start with key K (the name up to its first '.', that included; the whole
 * name when it has none), the rules whose literal prefix (literal_prefix)
 * agrees with K as far as both go, in their order, as one alternation
 * marked with the rules' numbers, compiled when such a name is first
 * asked about.  A name then tries its program's few rules, not all 251
 * direction rules (measured at 10x20k: a match 69k instructions
 * interpreted with all of them, 7k JIT-compiled, 1-3k with its program's;
 * a comparison's names have a few dozen programs). */
#define RM_RULES_GROUPS_MAX 1024
/* One alternation text of rule_groups, compiled once: programs whose
 * names can match the same rules share it and its JIT code (measured at
 * 10x2000: 5 of the direction and threshold groups repeated another's
 * text). */
struct group_code {
	char *text;
	size_t len;
	void *code;
	size_t uses;
};
struct rule_group {
	char *key;
	size_t len;
	struct group_code *gc; /* NULL: no rule can match (or the whole set serves) */
	bool none;
};
struct rule_groups {
	struct group_code **codes;
	size_t ncodes;
	char **lit; /* each rule's literal prefix */
	struct rule_group *g;
	size_t n;
};

/* The alternation of the ordered rules for a name (see struct
 * rule_groups; *pg made when first needed), or NULL to use the whole
 * set's; *none when no rule can match the name. */
static const void *rules_for_name(const struct rm_rules *r, void **pg, const struct rm_rule *rules, size_t n,
				  enum rm_match mode, const char *name, bool *none)
{
	struct rule_groups *gs = *pg;
	const char *dot = strchr(name, '.');
	size_t len = dot ? (size_t)(dot - name) + 1 : strlen(name), i;
	struct rule_group *g = NULL;

	*none = false;
	if (!gs) {
		gs = *pg = rm_xcalloc(1, sizeof(*gs));
		gs->lit = rm_xcalloc(n + 1, sizeof(*gs->lit));
		for (i = 0; i < n; i++) {
			struct rm_sb sb = RM_SB_INIT;

			rm_sb_init(&sb);
			literal_prefix(mode, rules[i].pattern, &sb);
			gs->lit[i] = rm_sb_detach(&sb, NULL);
		}
	}
	for (i = 0; i < gs->n && !g; i++)
		if (gs->g[i].len == len && !memcmp(gs->g[i].key, name, len))
			g = &gs->g[i];
	if (!g) {
		struct rm_sb sb = RM_SB_INIT;
		int code;
		PCRE2_SIZE off;

		if (gs->n >= RM_RULES_GROUPS_MAX)
			return NULL;
		gs->g = rm_xrealloc(gs->g, (gs->n + 1) * sizeof(*gs->g));
		g = &gs->g[gs->n++];
		memset(g, 0, sizeof(*g));
		g->key = rm_xstrndup(name, len);
		g->len = len;
		rm_sb_init(&sb);
		for (i = 0; i < n; i++) {
			size_t l = strlen(gs->lit[i]);

			if (memcmp(gs->lit[i], name, l < len ? l : len))
				continue;
			if (sb.len)
				rm_sb_addc(&sb, '|');
			anchored(&sb, mode, rules[i].pattern);
			rm_sb_addf(&sb, "(*MARK:%zu)", i);
		}
		for (i = 0; i < gs->ncodes && sb.len && !g->gc; i++)
			if (gs->codes[i]->len == sb.len && !memcmp(gs->codes[i]->text, sb.buf, sb.len))
				g->gc = gs->codes[i];
		/* branches of the whole set's alternation, which compiled:
		 * these do too; were they not to, the whole set serves */
		if (!sb.len) {
			g->none = true;
		} else if (!g->gc) {
			void *re = compile_re(r, sb.buf, sb.len, PCRE2_UTF, &code, &off);

			if (re) {
				g->gc = rm_xcalloc(1, sizeof(*g->gc));
				g->gc->len = sb.len;
				g->gc->code = re;
				g->gc->text = rm_sb_detach(&sb, NULL);
				gs->codes = rm_xrealloc(gs->codes, (gs->ncodes + 1) * sizeof(*gs->codes));
				gs->codes[gs->ncodes++] = g->gc;
			}
		}
		rm_sb_release(&sb);
	}
	*none = g->none;
	if (!g->gc)
		return NULL;
	jit_when_paid(g->gc->code, ++g->gc->uses, RM_RULES_JIT_LIST);
	return g->gc->code;
}

static void free_rule_groups(void *p, size_t nrules)
{
	struct rule_groups *gs = p;
	size_t i;

	if (!gs)
		return;
	for (i = 0; i < gs->n; i++)
		free(gs->g[i].key);
	free(gs->g);
	for (i = 0; i < gs->ncodes; i++) {
		free(gs->codes[i]->text);
		pcre2_code_free(gs->codes[i]->code);
		free(gs->codes[i]);
	}
	free(gs->codes);
	for (i = 0; i < nrules; i++)
		free(gs->lit[i]);
	free(gs->lit);
	free(gs);
}

/* The first rule that matches name, or -1.  *uses counts the uses of the
 * whole set (combined, or each rule asked one by one), which gets JIT code
 * at the `after`-th (jit_when_paid); *idx: the alternations by program
 * (rules_for_name). */
static long first_rule(const struct rm_rules *r, const struct rm_rule *rules, size_t n,
		       enum rm_match mode, void *combined, void **idx, size_t *uses,
		       size_t after, const char *name)
{
	size_t i;

	if (combined) {
		PCRE2_SPTR mark;
		const void *code = NULL;
		bool none = false;

		code = rules_for_name(r, idx, rules, n, mode, name, &none);
		if (none)
			return -1;
		if (!code) {
			code = combined;
			jit_when_paid(combined, ++*uses, after);
		}
		if (pcre2_match((const pcre2_code *)code, (PCRE2_SPTR)name, strlen(name), 0, 0,
				(pcre2_match_data *)r->match_data, NULL) < 0)
			return -1;
		mark = pcre2_get_mark((pcre2_match_data *)r->match_data);
		if (mark)
			return strtol((const char *)mark, NULL, 10);
		/* no mark cannot happen; fall back to asking rule by rule */
	}
	if (!combined)
		++*uses;
	for (i = 0; !combined && *uses == after && i < n; i++)
		jit_when_paid(rule_code(r, &rules[i], mode), *uses, after);
	for (i = 0; i < n; i++)
		if (re_match(r, rule_code(r, &rules[i], mode), name))
			return (long)i;
	return -1;
}

static void free_rules(struct rm_rule *rules, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(rules[i].pattern);
		pcre2_code_free(rules[i].re);
	}
	free(rules);
}

static int cmp_program(const void *a, const void *b)
{
	return strcmp(((const struct rm_program *)a)->name, ((const struct rm_program *)b)->name);
}

static int load_options(struct rm_yaml *y, yaml_node_t *map, struct rm_option **out,
			size_t *nout, const char *what, struct rm_error *err)
{
	yaml_node_pair_t *p;
	size_t n = 0;

	*out = NULL;
	*nout = 0;
	if (!map || rm_yaml_is_null(map))
		return 0;
	if (map->type != YAML_MAPPING_NODE)
		return rm_error_set(err, RM_ERR_CONFIG,
				    "'%s' line %d: %s: expected a mapping of option: '-' or '='",
				    y->file, rm_yaml_line(map), what);
	*out = rm_xcalloc((size_t)(map->data.mapping.pairs.top - map->data.mapping.pairs.start) + 1,
			  sizeof(**out));
	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		const char *k = rm_yaml_scalar(rm_yaml_node(y, p->key));
		const char *v = rm_yaml_scalar(rm_yaml_node(y, p->value));

		if (!k || !v || (strcmp(v, "-") && strcmp(v, "="))) {
			*nout = n;
			return rm_error_set(err, RM_ERR_CONFIG,
					    "'%s' line %d: %s: expected option: '-' or '='", y->file,
					    rm_yaml_line(rm_yaml_node(y, p->key)), what);
		}
		(*out)[n].name = rm_xstrdup(k);
		(*out)[n].type = v[0];
		n++;
	}
	*nout = n;
	return 0;
}

static void free_options(struct rm_option *o, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(o[i].name);
	free(o);
}

static int load_programs(struct rm_rules *r, struct rm_yaml *y, struct rm_error *err)
{
	yaml_node_t *root = rm_yaml_root(y);
	yaml_node_t *progs = rm_yaml_get(y, root, "programs");
	yaml_node_pair_t *p;
	static const struct {
		const char *key;
		unsigned bit;
	} kinds[] = { { "run", RM_PROG_RUN },	      { "parse", RM_PROG_PARSE },
		      { "setup", RM_PROG_SETUP },     { "daemon", RM_PROG_DAEMON },
		      { "monitor", RM_PROG_MONITOR } };

	if (load_options(y, rm_yaml_get(y, root, "wrapper_options"), &r->wrapper_options,
			 &r->nwrapper_options, "wrapper_options", err))
		return -1;
	if (!progs || progs->type != YAML_MAPPING_NODE)
		return rm_error_set(err, RM_ERR_CONFIG, "'%s' line %d: 'programs': expected a mapping",
				    y->file, rm_yaml_line(progs ? progs : root));
	r->programs = rm_xcalloc((size_t)(progs->data.mapping.pairs.top -
					  progs->data.mapping.pairs.start) + 1,
				 sizeof(*r->programs));
	for (p = progs->data.mapping.pairs.start; p < progs->data.mapping.pairs.top; p++) {
		yaml_node_t *kn = rm_yaml_node(y, p->key);
		yaml_node_t *vn = rm_yaml_node(y, p->value);
		struct rm_program *prog = &r->programs[r->nprograms];
		size_t k;

		if (!rm_yaml_scalar(kn) || (vn->type != YAML_MAPPING_NODE && !rm_yaml_is_null(vn)))
			return rm_error_set(err, RM_ERR_CONFIG,
					    "'%s' line %d: programs: expected NAME: {run: true, ...}",
					    y->file, rm_yaml_line(kn));
		prog->name = rm_xstrdup(rm_yaml_scalar(kn));
		r->nprograms++;
		for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
			const char *v = rm_yaml_scalar(rm_yaml_get(y, vn, kinds[k].key));

			if (v && (!strcmp(v, "true") || !strcmp(v, "1")))
				prog->kinds |= kinds[k].bit;
		}
		if (load_options(y, rm_yaml_get(y, vn, "options"), &prog->options,
				 &prog->noptions, prog->name, err))
			return -1;
	}
	rm_sort(r->programs, r->nprograms, sizeof(*r->programs), cmp_program);
	return 0;
}

/* ------------------------------------------------------------------ decision cache */

enum {
	D_REPORTABLE = 1u << 0,
	D_FUNCTION = 1u << 1,
	D_PERF = 1u << 2,
	D_KEEP = 1u << 3,
	D_THRESHOLD = 1u << 4, /* `known` only: threshold holds the answer */
	D_DIRECTION = 1u << 5, /* `known` only: direction holds the answer */
};

/* One stat's answers, and its name right behind them: an entry never
 * moves while the cache lives, so its name is the copy the series of a
 * matrix borrow (rm_rules_keep_stat_stored), and from that copy the entry
 * is found again without a lookup (rm_rules_focus). */
struct decision {
	int32_t threshold;   /* first matching threshold rule, -1 none */
	int32_t direction;   /* first matching direction rule, -1 none */
	uint32_t owner;      /* the cache's id (struct cache) */
	uint32_t read;       /* the last matrix reading that was lent the name (matrix.h) */
	unsigned char known; /* which answers are computed */
	unsigned char value; /* the yes/no answers among them */
	char name[];
};

/* A slot of the hash table: the entry and its hash's low half (a probe
 * compares names only when the halves agree). */
struct slot {
	struct decision *d; /* NULL: an empty slot */
	uint32_t h;
};

/* The entries, packed into chunks (one malloc per chunk, not one per
 * name: a 10x20k comparison asks about ~40,000 names). */
struct name_chunk {
	struct name_chunk *next;
	size_t used, cap;
	_Alignas(struct decision) char data[];
};

#define NAME_CHUNK (64u << 10)

struct cache {
	struct slot *v;
	size_t n, cap;
	size_t thresholds_uses, direction_uses; /* first_rule */
	struct name_chunk *names;
	uint32_t id; /* tells this cache's entries from another's (rm_rules_focus) */
	/* the entry decide() answered last: stats.c asks about one stat
	 * several times in a row (reportable? a failure? a perf metric?),
	 * with the cache's own copy of its name (matrix.h: the series
	 * borrow it), which is then found without a hash and a probe */
	struct decision *last;
};

/* The bytes an entry for a name of len bytes takes in a chunk. */
static size_t entry_size(size_t len)
{
	size_t need = offsetof(struct decision, name) + len + 1;

	return (need + _Alignof(struct decision) - 1) / _Alignof(struct decision) *
	       _Alignof(struct decision);
}

/* A new entry for name[0..len) in the cache's chunks, no answer known.
 * Behind the last entry of a chunk there is always an end mark (owner 0):
 * the entry after one can be looked at (decide). */
static struct decision *cache_entry(struct cache *c, const char *name, size_t len)
{
	struct name_chunk *k = c->names;
	size_t need = entry_size(len);
	struct decision *d;

	if (!k || k->cap - k->used < need + sizeof(struct decision)) {
		size_t cap = need > NAME_CHUNK ? need : NAME_CHUNK;

		cap += sizeof(struct decision); /* room for the end mark */
		k = rm_xmalloc(sizeof(*k) + cap);
		rm_prefault(k->data, cap); /* filled in order: 16 pages, one call */
		k->next = c->names;
		k->used = 0;
		k->cap = cap;
		c->names = k;
	}
	d = (struct decision *)(void *)(k->data + k->used);
	k->used += need;
	d->threshold = -1;
	d->direction = -1;
	d->owner = c->id;
	d->read = 0;
	d->known = 0;
	d->value = 0;
	memcpy(d->name, name, len + 1);
	((struct decision *)(void *)(k->data + k->used))->owner = 0; /* the end mark */
	return d;
}

static void cache_free(struct rm_rules *r)
{
	struct cache *c = r->cache;

	if (!c)
		return;
	while (c->names) {
		struct name_chunk *next = c->names->next;

		free(c->names);
		c->names = next;
	}
	free(c->v);
	free(c);
	r->cache = NULL;
}

static void cache_grow(struct cache *c)
{
	size_t cap = c->cap ? c->cap * 2 : 4096, i;
	struct slot *v = rm_xcalloc_touched(cap, sizeof(*v)); /* filled to 3/4 */

	for (i = 0; i < c->cap; i++) {
		size_t j;

		if (!c->v[i].d)
			continue;
		for (j = c->v[i].h & (cap - 1); v[j].d; j = (j + 1) & (cap - 1))
			;
		v[j] = c->v[i];
	}
	free(c->v);
	c->v = v;
	c->cap = cap;
}

/* The cache entry of stat, added when missing; `scratch` (no answer known)
 * when the cache is full.  The rules are const to their users, the cache
 * is not: it only remembers answers the const rules give. */
static struct decision *decide(const struct rm_rules *r, const char *stat,
			       struct decision *scratch)
{
	struct cache *c = r->cache;
	size_t len;
	uint32_t h;
	size_t j;

	/* the last entry again, asked with its own name: the same string by
	 * construction (an entry and its name never move nor change while
	 * the cache lives); no memory read to tell */
	if (c && c->last && c->last->name == stat)
		return c->last;
	len = strlen(stat);
	/* the entry made after the last one answered: a second matrix lists
	 * its stats mostly in the first one's order, whose names were entered
	 * in that order (found so, a name needs no hash, and the probe and the
	 * compare of a name ~25 MiB away at 10x200k are saved) */
	if (c && c->last) {
		struct decision *next = (struct decision *)(void *)((char *)c->last +
								    entry_size(strlen(c->last->name)));

		if (next->owner == c->id && !strcmp(next->name, stat)) {
			c->last = next;
			return next;
		}
	}
	h = (uint32_t)rm_hash(stat, len);

	if (!c) {
		static uint32_t ids; /* a process loads rules a few times */

		c = rm_xcalloc(1, sizeof(*c));
		c->id = ++ids;
		((struct rm_rules *)r)->cache = c;
	}
	if (c->cap)
		for (j = h & (c->cap - 1); c->v[j].d; j = (j + 1) & (c->cap - 1))
			if (c->v[j].h == h &&
			    (c->v[j].d->name == stat || !strcmp(c->v[j].d->name, stat))) {
				c->last = c->v[j].d;
				return c->last;
			}
	memset(scratch, 0, sizeof(*scratch));
	scratch->threshold = -1;
	scratch->direction = -1;
	if (c->n >= RM_RULES_CACHE_MAX)
		return scratch;
	if ((c->n + 1) * 4 > c->cap * 3) /* 3/4 full at most */
		cache_grow(c);
	for (j = h & (c->cap - 1); c->v[j].d; j = (j + 1) & (c->cap - 1))
		;
	c->v[j].d = cache_entry(c, stat, len);
	c->v[j].h = h;
	c->n++;
	c->last = c->v[j].d;
	return c->last;
}

void rm_rules_focus(const struct rm_rules *r, const char *stored)
{
	struct cache *c = r->cache;
	struct decision *d;

	if (!c || !stored)
		return;
	d = (struct decision *)(void *)(stored - offsetof(struct decision, name));
	if (d->owner == c->id)
		c->last = d;
}

/* ------------------------------------------------------------------ API */

static int load_metrics(struct rm_rules *r, struct rm_yaml *y, struct rm_error *err)
{
	yaml_node_t *root = rm_yaml_root(y);
	const char *s;

	if (!root || root->type != YAML_MAPPING_NODE)
		return rm_error_set(err, RM_ERR_CONFIG, "'%s': expected a mapping at the top",
				    y->file);
	s = rm_yaml_scalar(rm_yaml_get(y, root, "lkp_tests_commit"));
	r->lkp_tests_commit = rm_xstrdup(s ? s : "");
	s = rm_yaml_scalar(rm_yaml_get(y, root, "perf_profile_threshold"));
	r->perf_profile_threshold = s ? strtol(s, NULL, 10) : 5;
	if (load_list(r, y, "failure", &r->failure, err) ||
	    load_list(r, y, "pass", &r->pass, err) ||
	    load_list(r, y, "stat_denylist", &r->stat_denylist, err) ||
	    load_list(r, y, "stat_allowlist", &r->stat_allowlist, err) ||
	    load_list(r, y, "report_allowlist", &r->report_allowlist, err) ||
	    load_list(r, y, "perf_metrics_patterns", &r->perf_metrics_patterns, err) ||
	    load_list(r, y, "perf_metrics_prefixes", &r->perf_metrics_prefixes, err))
		return -1;
	if (load_rules(r, y, "perf_metrics_threshold", "value", &r->thresholds, &r->nthresholds,
		       &r->thresholds_match, &r->thresholds_any, err))
		return -1;
	if (load_rules(r, y, "direction", "weight", &r->direction, &r->ndirection,
		       &r->direction_match, &r->direction_any, err))
		return -1;
	r->linux_test_cases = string_list(y, rm_yaml_get(y, root, "linux_test_cases"),
					  &r->nlinux_test_cases, "linux_test_cases", err);
	if (!r->linux_test_cases)
		return -1;
	r->other_test_cases = string_list(y, rm_yaml_get(y, root, "other_test_cases"),
					  &r->nother_test_cases, "other_test_cases", err);
	if (!r->other_test_cases)
		return -1;
	return 0;
}

/* With pc: *pc the compiled-pattern cache of the file's bytes. */
static int load_yaml_file(struct rm_yaml *y, const char *file, struct rm_recache **pc,
			  struct rm_error *err)
{
	char *buf;
	size_t len;
	int rc;

	if (rm_read_file(file, RM_RULES_MAX_FILE, &buf, &len, err)) {
		err->kind = RM_ERR_CONFIG;
		return -1;
	}
	/* the operator's rule files: through the parsed-document cache */
	rc = rm_yamlcache_load(y, file, buf, len, err);
	if (pc && !rc)
		*pc = rm_recache_open(buf, len);
	free(buf);
	if (rc)
		err->kind = RM_ERR_CONFIG;
	return rc;
}

int rm_rules_load(struct rm_rules *r, const char *metrics_file, const char *programs_file,
		  struct rm_error *err)
{
	struct rm_yaml y;
	int rc;

	memset(r, 0, sizeof(*r));
	r->metrics_file = rm_xstrdup(metrics_file);
	r->programs_file = rm_xstrdup(programs_file);
	r->match_data = pcre2_match_data_create(4, NULL);
	if (load_yaml_file(&y, metrics_file, (struct rm_recache **)&r->recache, err))
		goto fail;
	rc = load_metrics(r, &y, err);
	rm_yaml_free(&y);
	if (rc)
		goto fail;
	/* the codes compiled now, when the cache lacked them (those compiled
	 * later, when first needed, at rm_rules_free) */
	rm_recache_save(r->recache);
	if (load_yaml_file(&y, programs_file, NULL, err))
		goto fail;
	rc = load_programs(r, &y, err);
	rm_yaml_free(&y);
	if (rc)
		goto fail;
	return 0;
fail:
	/* a rule file that fails to load is never cached */
	rm_recache_close(r->recache);
	r->recache = NULL;
	rm_rules_free(r);
	return -1;
}

static int load_moved(struct rm_rules *r, struct rm_yaml *y, yaml_node_t *root, const char *file,
		      struct rm_error *err);

int rm_rules_load_eras(struct rm_rules *r, const char *file, struct rm_error *err)
{
	struct rm_yaml y;
	yaml_node_t *root, *progs;
	yaml_node_pair_t *p;

	if (load_yaml_file(&y, file, NULL, err))
		return -1;
	root = rm_yaml_root(&y);
	progs = root ? rm_yaml_get(&y, root, "programs") : NULL;
	if (!progs || progs->type != YAML_MAPPING_NODE) {
		rm_error_set(err, RM_ERR_CONFIG, "'%s' line %d: 'programs': expected a mapping OLD: NEW",
			     file, rm_yaml_line(progs ? progs : root));
		rm_yaml_free(&y);
		return -1;
	}
	for (p = progs->data.mapping.pairs.start; p < progs->data.mapping.pairs.top; p++) {
		yaml_node_t *kn = rm_yaml_node(&y, p->key), *vn = rm_yaml_node(&y, p->value);
		const char *o = rm_yaml_scalar(kn), *n = rm_yaml_scalar(vn);

		if (!o || !n || !*o || !*n || strchr(o, '.') || strchr(n, '.')) {
			rm_error_set(err, RM_ERR_CONFIG,
				     "'%s' line %d: programs: expected OLD: NEW (program names, no '.')", file,
				     rm_yaml_line(kn));
			rm_yaml_free(&y);
			return -1;
		}
		r->era_old = rm_xrealloc(r->era_old, (r->neras + 1) * sizeof(char *));
		r->era_new = rm_xrealloc(r->era_new, (r->neras + 1) * sizeof(char *));
		r->era_old[r->neras] = rm_xstrdup(o);
		r->era_new[r->neras++] = rm_xstrdup(n);
	}
	if (load_moved(r, &y, root, file, err)) {
		rm_yaml_free(&y);
		return -1;
	}
	rm_yaml_free(&y);
	cache_free(r); /* decisions made before the table are stale */
	return 0;
}

/* An epoch of the era table: decimal seconds > 0; -1 when not. */
static long long era_epoch(const char *s)
{
	char *end;
	long long v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	return *end || errno || v <= 0 ? -1 : v;
}

/* eras.yaml's optional tests_set_until: EPOCH and moved_to_programs:
 * {NAME: EPOCH} (rm_rules_resets_count). */
static int load_moved(struct rm_rules *r, struct rm_yaml *y, yaml_node_t *root, const char *file,
		      struct rm_error *err)
{
	yaml_node_t *until = rm_yaml_get(y, root, "tests_set_until");
	yaml_node_t *moved = rm_yaml_get(y, root, "moved_to_programs");
	yaml_node_pair_t *p;

	if (!until && !moved)
		return 0;
	if (!until || !moved || moved->type != YAML_MAPPING_NODE ||
	    (r->tests_set_until = era_epoch(rm_yaml_scalar(until))) < 0) {
		rm_error_set(err, RM_ERR_CONFIG,
			     "'%s' line %d: tests_set_until: EPOCH and moved_to_programs: {NAME: EPOCH} go together",
			     file, rm_yaml_line(until ? until : moved));
		r->tests_set_until = 0;
		return -1;
	}
	for (p = moved->data.mapping.pairs.start; p < moved->data.mapping.pairs.top; p++) {
		yaml_node_t *kn = rm_yaml_node(y, p->key), *vn = rm_yaml_node(y, p->value);
		const char *n = rm_yaml_scalar(kn);
		long long at = era_epoch(rm_yaml_scalar(vn));

		if (!n || !*n || strchr(n, '.') || at < 0) {
			rm_error_set(err, RM_ERR_CONFIG,
				     "'%s' line %d: moved_to_programs: expected NAME: EPOCH (a program name, seconds)",
				     file, rm_yaml_line(kn));
			return -1;
		}
		r->moved_name = rm_xrealloc(r->moved_name, (r->nmoved + 1) * sizeof(char *));
		r->moved_at = rm_xrealloc(r->moved_at, (r->nmoved + 1) * sizeof(long long));
		r->moved_name[r->nmoved] = rm_xstrdup(n);
		r->moved_at[r->nmoved++] = at;
	}
	return 0;
}

/* The name the rules know a stat by: "<new>.<rest>" for a stat of a program
 * renamed since (config/eras.yaml), else the stat itself (buf holds a
 * rewritten name; a name longer than buf is left as it is). */
static const char *era_stat(const struct rm_rules *r, const char *stat, char *buf, size_t size)
{
	size_t i;

	for (i = 0; i < r->neras; i++) {
		size_t l;

		/* era names are never empty (rm_rules_load_eras): the first
		 * byte first (measured at 10x20k: 8.6M instructions a run for
		 * a strlen and a strncmp of each era on each name asked about) */
		if (stat[0] != r->era_old[i][0])
			continue;
		l = strlen(r->era_old[i]);
		if (!strncmp(stat, r->era_old[i], l) && stat[l] == '.') {
			int n = snprintf(buf, size, "%s%s", r->era_new[i], stat + l);

			return n > 0 && (size_t)n < size ? buf : stat;
		}
	}
	return stat;
}

void rm_rules_free(struct rm_rules *r)
{
	size_t i;

	for (i = 0; i < r->neras; i++) {
		free(r->era_old[i]);
		free(r->era_new[i]);
	}
	free(r->era_old);
	free(r->era_new);
	for (i = 0; i < r->nmoved; i++)
		free(r->moved_name[i]);
	free(r->moved_name);
	free(r->moved_at);

	free(r->metrics_file);
	free(r->programs_file);
	free(r->lkp_tests_commit);
	free_list(&r->failure);
	free_list(&r->pass);
	free_list(&r->stat_denylist);
	free_list(&r->stat_allowlist);
	free_list(&r->report_allowlist);
	free_list(&r->perf_metrics_patterns);
	free_list(&r->perf_metrics_prefixes);
	free_rules(r->thresholds, r->nthresholds);
	free_rules(r->direction, r->ndirection);
	pcre2_code_free(r->thresholds_any);
	pcre2_code_free(r->direction_any);
	free_rule_groups(r->thresholds_first, r->nthresholds);
	free_rule_groups(r->direction_first, r->ndirection);
	cache_free(r);
	free_strings(r->linux_test_cases, r->nlinux_test_cases);
	free_strings(r->other_test_cases, r->nother_test_cases);
	for (i = 0; i < r->nprograms; i++) {
		free(r->programs[i].name);
		free_options(r->programs[i].options, r->programs[i].noptions);
	}
	free(r->programs);
	free_options(r->wrapper_options, r->nwrapper_options);
	pcre2_match_data_free(r->match_data);
	rm_recache_save(r->recache);
	rm_recache_close(r->recache);
	memset(r, 0, sizeof(*r));
}

/* The code an ASCII name is matched with in alternation slot `slot` of
 * l (utf: its UTF code, or NULL when the slot is empty): the copy without
 * UTF, compiled the first time it is asked for, or else utf; JIT code at
 * its RM_RULES_JIT_LIST-th use. */
static const void *ascii_code(const struct rm_rules *r, const struct rm_pattern_list *l,
			      size_t slot, void *utf)
{
	struct rm_ascii_re *a = &l->ascii[slot];

	if (!utf)
		return NULL;
	if (!a->done) {
		a->done = true;
		a->code = compile_ascii(r, a->text);
		free(a->text);
		a->text = NULL;
	}
	jit_when_paid(a->code ? a->code : utf, ++a->uses, RM_RULES_JIT_LIST);
	return a->code ? a->code : utf;
}

/* A stat name as the lists look at it: its length, and whether it is
 * ascii (no byte >= 0x80) and printable (nor any < 0x20: no newline or
 * other control character).  Worked out once per name for all the lists
 * asked about it (measured at 10x20k: ~8M instructions when each list
 * did it again). */
struct list_name {
	const char *s;
	size_t len;
	bool ascii, printable;
};

static struct list_name list_name(const char *name)
{
	struct list_name n;
	size_t len = strlen(name), i;
	uint64_t high = 0, low = 0, w;

	/* a word at a time (hasless(w, 0x20), exact as a yes/no for bytes
	 * below 0x80) */
	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&w, name + i, 8);
		high |= w;
		low |= (w - 0x2020202020202020ull) & ~w;
	}
	for (; i < len; i++) {
		high |= (unsigned char)name[i];
		low |= (unsigned char)name[i] < 0x20 ? 0x80u : 0u;
	}
	n.s = name;
	n.len = len;
	n.ascii = !(high & 0x8080808080808080ull);
	n.printable = n.ascii && !(low & 0x8080808080808080ull);
	return n;
}

static bool list_match(const struct rm_rules *r, const struct rm_pattern_list *l,
		       const struct list_name *n)
{
	const char *name = n->s;
	unsigned char c = (unsigned char)name[0];
	size_t len = n->len, i;
	bool printable = n->printable, ascii = n->ascii;

	for (i = 0; i < l->nlits; i++)
		if (printable ? literal_match(&l->lits[i], name, len)
			      : re_match_n(r, l->lits[i].re, name, len, ascii))
			return true;
	if (ascii) {
		/* an alternation whose required literals (struct rm_gate)
		 * the name lacks is not run */
		struct rm_gate *g = l->gates;

		return (c < RM_RULES_FIRST && l->first[c] &&
			(!printable || gate_passes(&g[c], name, len)) &&
			re_match_n(r, ascii_code(r, l, c, l->first[c]), name, len, true)) ||
		       (l->combined && (!printable || gate_passes(&g[RM_RULES_FIRST], name, len)) &&
			re_match_n(r, ascii_code(r, l, RM_RULES_FIRST, l->combined), name, len,
				   true)) ||
		       (l->rest && (!printable || gate_passes(&g[RM_RULES_FIRST + 1], name, len)) &&
			re_match_n(r, ascii_code(r, l, RM_RULES_FIRST + 1, l->rest), name, len,
				   true));
	}
	return (c < RM_RULES_FIRST && re_match_n(r, l->first[c], name, len, false)) ||
	       re_match_n(r, l->combined, name, len, false) ||
	       re_match_n(r, l->rest, name, len, false);
}

bool rm_rules_list_match(const struct rm_rules *r, const struct rm_pattern_list *l,
			 const char *name)
{
	struct list_name n = list_name(name);

	return list_match(r, l, &n);
}

static bool compute_function(const struct rm_rules *r, const char *stat)
{
	struct list_name n = list_name(stat);

	/* the lists first: most names match neither, and then the three
	 * searches of the exceptions are not needed (both are pure, so the
	 * order changes no answer; measured at 10x20k: 7.5M instructions) */
	if (!list_match(r, &r->failure, &n) && !list_match(r, &r->pass, &n))
		return false;
	return !strstr(stat, ".time.") && !strstr(stat, ".timestamp:") && !strstr(stat, ".bootstage:");
}

static bool in_list(char **v, size_t n, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strlen(v[i]) == len && !memcmp(v[i], s, len))
			return true;
	return false;
}

static bool compute_perf(const struct rm_rules *r, const char *stat)
{
	static const char *const not_tests[] = { "kmsg", "dmesg", "stderr", "last_state" };
	const char *dot;
	char base[256];
	const struct rm_program *p;
	size_t i;
	struct list_name n = list_name(stat);

	if (list_match(r, &r->perf_metrics_patterns, &n) ||
	    list_match(r, &r->perf_metrics_prefixes, &n))
		return true;
	/* "<T>." for a program T with a parse script and a run or daemon
	 * script that is not a functional or "other" test case */
	dot = strchr(stat, '.');
	if (!dot || (size_t)(dot - stat) >= sizeof(base))
		return false;
	memcpy(base, stat, (size_t)(dot - stat));
	base[dot - stat] = '\0';
	p = rm_rules_program(r, base);
	if (!p || !(p->kinds & RM_PROG_PARSE) || !(p->kinds & (RM_PROG_RUN | RM_PROG_DAEMON)))
		return false;
	for (i = 0; i < sizeof(not_tests) / sizeof(not_tests[0]); i++)
		if (!strcmp(base, not_tests[i]))
			return false;
	return !in_list(r->linux_test_cases, r->nlinux_test_cases, base, strlen(base)) &&
	       !in_list(r->other_test_cases, r->nother_test_cases, base, strlen(base));
}

static bool compute_reportable(const struct rm_rules *r, const char *stat)
{
	struct list_name n = list_name(stat);

	if (list_match(r, &r->stat_allowlist, &n))
		return true;
	if (!list_match(r, &r->stat_denylist, &n))
		return true;
	return list_match(r, &r->report_allowlist, &n);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !memcmp(s + a - b, suffix, b);
}

/* One yes/no answer about stat, from the cache or computed into it (the
 * compute_* functions never touch the cache, so d stays valid). */
static bool answer(const struct rm_rules *r, const char *stat, unsigned bit,
		   bool (*compute)(const struct rm_rules *, const char *))
{
	struct decision scratch, *d = decide(r, stat, &scratch);

	if (!(d->known & bit)) {
		char buf[1024];

		d->known |= bit;
		if (compute(r, era_stat(r, stat, buf, sizeof(buf))))
			d->value |= bit;
	}
	return (d->value & bit) != 0;
}

bool rm_rules_is_function_stat(const struct rm_rules *r, const char *stat)
{
	return answer(r, stat, D_FUNCTION, compute_function);
}

bool rm_rules_is_perf_metric(const struct rm_rules *r, const char *stat)
{
	return answer(r, stat, D_PERF, compute_perf);
}

bool rm_rules_is_reportable(const struct rm_rules *r, const char *stat)
{
	return answer(r, stat, D_REPORTABLE, compute_reportable);
}

bool rm_rules_keep_stat(const struct rm_rules *r, const char *stat)
{
	const char *stored;
	bool again;

	return rm_rules_keep_stat_stored(r, stat, 0, &stored, &again);
}

bool rm_rules_keep_stat_stored(const struct rm_rules *r, const char *stat, unsigned read,
			       const char **stored, bool *again)
{
	struct decision scratch, *d = decide(r, stat, &scratch);

	if (!(d->known & D_KEEP)) {
		if (!(d->known & D_REPORTABLE)) {
			char buf[1024];

			d->known |= D_REPORTABLE;
			if (compute_reportable(r, era_stat(r, stat, buf, sizeof(buf))))
				d->value |= D_REPORTABLE;
		}
		d->known |= D_KEEP;
		if ((d->value & D_REPORTABLE) || ends_with(stat, ".pass") ||
		    ends_with(stat, ".error") || ends_with(stat, ".warn") ||
		    ends_with(stat, ".fail") || !strcmp(stat, "last_state.is_incomplete_run") ||
		    /* what a functional report reads beside the rules: the
		     * kernel-log ids' first times (the failure id) and the boot
		     * counts (the boot/dmesg table) */
		    !strncmp(stat, "dmesg.timestamp:", 16) || !strncmp(stat, "kmsg.timestamp:", 15) ||
		    !strcmp(stat, "dmesg.boot_failures") || !strcmp(stat, "kmsg.boot_failures") ||
		    !strcmp(stat, "boot_failures") || !strcmp(stat, "boot_successes"))
			d->value |= D_KEEP;
	}
	*stored = d == &scratch ? NULL : d->name;
	if (read && *stored) {
		*again = d->read == read;
		d->read = read;
	}
	return (d->value & D_KEEP) != 0;
}

bool rm_rules_reasonable_change(const struct rm_rules *r, const char *stat, double delta,
				double max)
{
	struct decision scratch, *d = decide(r, stat, &scratch);
	char buf[1024];
	const char *name = era_stat(r, stat, buf, sizeof(buf));

	if (!(d->known & D_THRESHOLD)) {
		d->threshold = (int32_t)first_rule(r, r->thresholds, r->nthresholds,
					       r->thresholds_match, r->thresholds_any,
					       &((struct rm_rules *)r)->thresholds_first,
					       &((struct cache *)r->cache)->thresholds_uses,
					       RM_RULES_JIT_THRESHOLDS, name);
		d->known |= D_THRESHOLD;
	}
	if (d->threshold >= 0) {
		const struct rm_rule *t = &r->thresholds[d->threshold];

		if (max < t->value)
			return false;
		/* Ruby: delta < v / 2 with Integer division, only for Integer v */
		if (t->is_int && delta < (double)((long long)t->value / 2))
			return false;
		return true;
	}
	if (!strncmp(name, "iostat", 6))
		return max > 1;
	if (!strncmp(name, "pagetypeinfo", 12) || !strncmp(name, "buddyinfo", 9) ||
	    !strncmp(name, "slabinfo", 8))
		return delta > 100;
	if (!strncmp(name, "proc-vmstat", 11) || strstr(name, "meminfo"))
		return max > 1000;
	/* lkp-tests compares the whole stat name with these two literals, so they
	 * never match a real lock_stat.* name; kept as the robot behaves. */
	if (!strncmp(name, "lock_stat", 9)) {
		if (!strcmp(name, "waittime-total"))
			return delta > 10000;
		if (!strcmp(name, "holdtime-total"))
			return delta > 100000;
		if (strstr(name, "time"))
			return delta > 1000;
		return delta > 10000;
	}
	if (!strncmp(name, "interrupts", 10) || !strncmp(name, "softirqs", 8))
		return max > 10000;
	return true;
}

double rm_rules_direction(const struct rm_rules *r, const char *stat)
{
	struct decision scratch, *d = decide(r, stat, &scratch);

	if (!(d->known & D_DIRECTION)) {
		char buf[1024];

		d->direction = (int32_t)first_rule(r, r->direction, r->ndirection, r->direction_match,
					       r->direction_any,
					       &((struct rm_rules *)r)->direction_first,
					       &((struct cache *)r->cache)->direction_uses,
					       RM_RULES_JIT_DIRECTION, era_stat(r, stat, buf, sizeof(buf)));
		d->known |= D_DIRECTION;
	}
	return d->direction >= 0 ? r->direction[d->direction].value : 0;
}

bool rm_rules_regex_match(const struct rm_rules *r, const char *pattern, const char *s, bool *ok)
{
	int code;
	PCRE2_SIZE off;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, PCRE2_UTF, &code,
				       &off, NULL);
	bool m;

	*ok = re != NULL;
	if (!re)
		return false;
	m = re_match(r, re, s);
	pcre2_code_free(re);
	return m;
}

const struct rm_program *rm_rules_program(const struct rm_rules *r, const char *name)
{
	struct rm_program key;
	const struct rm_program *p;
	size_t i;

	key.name = (char *)name;
	p = rm_bsearch(&key, r->programs, r->nprograms, sizeof(*r->programs), cmp_program);
	/* a program of an earlier era: under the name it has now */
	for (i = 0; !p && i < r->neras; i++)
		if (!strcmp(name, r->era_old[i])) {
			key.name = r->era_new[i];
			p = rm_bsearch(&key, r->programs, r->nprograms, sizeof(*r->programs), cmp_program);
		}
	return p;
}

bool rm_rules_is_test_program(const struct rm_rules *r, const char *name)
{
	const struct rm_program *p = rm_rules_program(r, name);

	return p && (p->kinds & (RM_PROG_RUN | RM_PROG_DAEMON));
}

bool rm_rules_resets_count(const struct rm_rules *r, const char *name, long long when)
{
	size_t i;

	if (!rm_rules_is_test_program(r, name))
		return false;
	if (!when || when >= r->tests_set_until)
		return true;
	for (i = 0; i < r->nmoved; i++)
		if (!strcmp(r->moved_name[i], name))
			return when < r->moved_at[i];
	return true;
}
