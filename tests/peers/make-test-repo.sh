#!/bin/sh
# tests/peers/make-test-repo.sh DIR
#
# Creates a deterministic git repository in DIR (which must not exist or be
# empty).  Names, e-mails, dates and file contents are fixed and no user or
# system git configuration is read, so the SHAs are the same on every run and
# machine.  On success prints only the manifest on stdout, one line per
# commit in creation order: "<sha> <subject>".  The repository is made
# world-readable (cgit's CGI may run as nobody).
set -eu

if [ $# -ne 1 ]; then
	echo "usage: $0 DIR" >&2
	exit 2
fi
DIR=$1
if [ -e "$DIR" ] && [ -n "$(ls -A "$DIR" 2>/dev/null)" ]; then
	echo "$0: $DIR exists and is not empty" >&2
	exit 1
fi
# RM_FIXTURE_CACHE (set by tests/run-tests.sh for one `make test`): the
# repository, the same on every run, is made there once and copied from it
if [ -n "${RM_FIXTURE_CACHE:-}" ]; then
	C=$RM_FIXTURE_CACHE/test-repo
	if [ ! -f "$C/done" ]; then
		mkdir -p "$RM_FIXTURE_CACHE"
		tmp=$(mktemp -d "$C.XXXXXX")
		RM_FIXTURE_CACHE= "$0" "$tmp/repo" >"$tmp/manifest" || { rm -rf "$tmp"; exit 1; }
		touch "$tmp/done"
		mv -T "$tmp" "$C" 2>/dev/null || rm -rf "$tmp" # another run made it first
	fi
	mkdir -p "$DIR"
	cp -a "$C/repo/." "$DIR/"
	cat "$C/manifest"
	exit 0
fi
mkdir -p "$DIR"

# no dependence on ~/.gitconfig, /etc/gitconfig, hooks or the environment
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 HOME=/nonexistent
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL \
	GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL GIT_AUTHOR_DATE GIT_COMMITTER_DATE \
	GIT_TEMPLATE_DIR 2>/dev/null || true
export TZ=UTC LC_ALL=C

cd "$DIR"

g() {
	git -c user.name="Mm Maintainer" -c user.email=maint@example.org \
		-c commit.gpgsign=false -c core.autocrlf=false -c core.hooksPath=/dev/null \
		-c init.defaultBranch=master -c advice.detachedHead=false "$@"
}

g init -q --template= .

# commit TIME AUTHOR_NAME AUTHOR_EMAIL MESSAGE: commit the index, print manifest line
T=1760000000
commit() {
	GIT_AUTHOR_NAME=$2 GIT_AUTHOR_EMAIL=$3 GIT_AUTHOR_DATE="$1 +0200" \
	GIT_COMMITTER_NAME="Mm Maintainer" GIT_COMMITTER_EMAIL=maint@example.org \
	GIT_COMMITTER_DATE="$(($1 + 3600)) +0000" \
		g commit -q --cleanup=strip -F - <<EOF
$4
EOF
	printf '%s %s\n' "$(g rev-parse HEAD)" "$(printf '%s\n' "$4" | head -n1)"
}

# put PATH LINE: append LINE to PATH (creating directories) and stage it
put() {
	mkdir -p "$(dirname "$1")"
	printf '%s\n' "$2" >>"$1"
	g add -- "$1"
}

put README 'Test tree for robotmail.'
put Makefile 'all:'
put mm/page_alloc.c '/* mm/page_alloc.c */'
put mm/memory.c '/* mm/memory.c */'
put mm/memcontrol.c '/* mm/memcontrol.c */'
put mm/mincore.c '/* mm/mincore.c */'
put mm/vmscan.c '/* mm/vmscan.c */'
put drivers/iommu/x.c '/* drivers/iommu/x.c */'
put tools/testing/selftests/mm/gup_test.c '/* gup_test.c */'
commit $T "Linus Torvalds" torvalds@example.org "Initial commit"

put mm/page_alloc.c 'static void prep_compound_tail(void) { }'
commit $((T + 86400)) "Ann Author" ann@example.org \
"mm/page_alloc: remove set_page_private() in prep_compound_tail()

The tail page's private field is already zero here, so clearing it again
is pointless.

Signed-off-by: Ann Author <ann@example.org>"

put mm/memory.c 'static bool wp_can_reuse_anon_folio(void) { return true; }'
put mm/swap.c 'void lru_add_drain(void) { }'
commit $((T + 2 * 86400)) "Ann Author" ann@example.org \
"mm: avoid unnecessary lru drain for wp_can_reuse_anon_folio()

Only drain the per-CPU LRU caches when the folio is actually in one of
them; draining unconditionally costs an IPI on large machines.

Link: https://lore.kernel.org/r/20251014093512.12345-1-author@example.org
Signed-off-by: Ann Author <ann@example.org>
Reviewed-by: Rev Iewer <rev@example.org>
Acked-by: Ack Er <ack@example.org>
Cc: list@vger.example.org"

put drivers/iommu/x.c 'int iommu_fix_the_thing(void) { return 0; }'
commit $((T + 3 * 86400)) "Jörg Rödel" joro@example.org \
"iommu: fix the thing

The thing was broken; fix it.

Signed-off-by: Jörg Rödel <joro@example.org>"

# side branch forks here, merged at the end
g branch side

put mm/vmscan.c 'static unsigned long shrink_list(void) { return 0; }'
commit $((T + 4 * 86400)) "Bob Builder" bob@example.org \
"mm/vmscan: simplify shrink_list() return path

Signed-off-by: Bob Builder <bob@example.org>
Link: https://patch.msgid.link/20251101-x-v2-1-abc@example.org"

put tools/testing/selftests/mm/gup_test.c '/* FOLL_WRITE comes from the gup_test ioctl */'
commit $((T + 5 * 86400)) "Ann Author" ann@example.org \
"selftests/mm: gup_test: fix comment regarding origin of FOLL_WRITE

Signed-off-by: Ann Author <ann@example.org>"

put mm/memcontrol.c 'static void memcg_stat(void) { mod_node_page_state(); }'
commit $((T + 6 * 86400)) "Carl Coder" carl@example.org \
"memcg: use mod_node_page_state to update stats

Signed-off-by: Carl Coder <carl@example.org>"

put mm/mincore.c 'static int mincore_pte(void) { return 0; }'
commit $((T + 7 * 86400)) "Dora Dev" dora@example.org \
"mm: mincore: remove special handling for VM_PFNMAP

Signed-off-by: Dora Dev <dora@example.org>"

put mm/mincore.c 'static unsigned char *tmp; /* kmalloc(PAGE_SIZE) */'
commit $((T + 8 * 86400)) "Dora Dev" dora@example.org \
"mm: mincore: replace __get_free_page() with kmalloc()

Signed-off-by: Dora Dev <dora@example.org>"

g checkout -q side
put mm/vmstat.c 'void vmstat_update(void) { }'
commit $((T + 9 * 86400)) "Eve Side" eve@example.org \
"mm/vmstat: add vmstat_update() stub

Signed-off-by: Eve Side <eve@example.org>"
g checkout -q master

GIT_AUTHOR_NAME="Mm Maintainer" GIT_AUTHOR_EMAIL=maint@example.org \
GIT_AUTHOR_DATE="$((T + 10 * 86400)) +0000" \
GIT_COMMITTER_NAME="Mm Maintainer" GIT_COMMITTER_EMAIL=maint@example.org \
GIT_COMMITTER_DATE="$((T + 10 * 86400)) +0000" \
	g merge -q --no-ff --no-edit -m "Merge branch 'side'" side >/dev/null
printf '%s %s\n' "$(g rev-parse HEAD)" "Merge branch 'side'"

g gc -q --prune=now 2>/dev/null || true
chmod -R a+rX .
