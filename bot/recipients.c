/* recipients.c - see recipients.h. */
#include "recipients.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "strbuf.h"

static bool seen(const struct rm_recipients *r, const char *addr)
{
	size_t i;

	for (i = 0; i < r->nto; i++)
		if (!strcasecmp(r->to[i].addr, addr))
			return true;
	for (i = 0; i < r->ncc; i++)
		if (!strcasecmp(r->cc[i].addr, addr))
			return true;
	return false;
}

static void drop(struct rm_recipients *r, const char *addr, const char *why)
{
	struct rm_sb sb = RM_SB_INIT;

	rm_sb_init(&sb);
	rm_sb_addf(&sb, "%.200s: %s", addr ? addr : "(none)", why);
	r->dropped = rm_xrealloc(r->dropped, (r->ndropped + 1) * sizeof(char *));
	r->dropped[r->ndropped++] = rm_sb_detach(&sb, NULL);
}

/* Add "Name <addr>", "<addr>" or "addr". */
static void add(struct rm_recipients *r, bool to, const char *name, const char *spec)
{
	char *addr, *nm = NULL;
	const char *lt = spec ? strrchr(spec, '<') : NULL;
	struct rm_address **list = to ? &r->to : &r->cc;
	size_t *n = to ? &r->nto : &r->ncc;

	if (!spec)
		return;
	if (lt && strchr(lt, '>')) {
		size_t nl = (size_t)(lt - spec);

		addr = rm_xstrndup(lt + 1, (size_t)(strchr(lt, '>') - lt - 1));
		while (nl && spec[nl - 1] == ' ')
			nl--;
		if (nl)
			nm = rm_xstrndup(spec, nl);
	} else {
		addr = rm_xstrdup(spec);
	}
	if (!nm && name && *name)
		nm = rm_xstrdup(name);
	if (!rm_address_valid(addr)) {
		drop(r, addr, "not a valid address");
	} else if (!seen(r, addr)) {
		*list = rm_xrealloc(*list, (*n + 1) * sizeof(**list));
		(*list)[*n].addr = addr;
		(*list)[*n].name = nm;
		(*n)++;
		return;
	}
	free(addr);
	free(nm);
}

void rm_recipients_build(struct rm_recipients *r, const struct rm_config *cfg,
			 const struct rm_tree_cfg *tree, const struct rm_commit_facts *head,
			 const char *override)
{
	size_t i;

	memset(r, 0, sizeof(*r));
	if (override) {
		add(r, true, NULL, override);
		return;
	}
	if (head && head->author.email)
		add(r, true, head->author.name, head->author.email);
	for (i = 0; tree && i < tree->mail_to.n; i++)
		add(r, !r->nto, NULL, tree->mail_to.v[i]);
	for (i = 0; i < cfg->cc.n; i++)
		add(r, false, NULL, cfg->cc.v[i]);
	for (i = 0; tree && i < tree->mail_cc.n; i++)
		add(r, false, NULL, tree->mail_cc.v[i]);
	if (cfg->cc_self)
		add(r, false, NULL, cfg->robot_address);
}

void rm_recipients_free(struct rm_recipients *r)
{
	size_t i;

	for (i = 0; i < r->nto; i++) {
		free(r->to[i].addr);
		free(r->to[i].name);
	}
	for (i = 0; i < r->ncc; i++) {
		free(r->cc[i].addr);
		free(r->cc[i].name);
	}
	for (i = 0; i < r->ndropped; i++)
		free(r->dropped[i]);
	free(r->to);
	free(r->cc);
	free(r->dropped);
	memset(r, 0, sizeof(*r));
}
