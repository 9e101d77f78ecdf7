/* help.c - see help.h. */
#include "help.h"

#include <string.h>

#ifndef RM_VERSION
#define RM_VERSION "0.1"
#endif
#ifndef RM_DATADIR
#define RM_DATADIR "/usr/share/robotmail"
#endif
#ifndef RM_TEMPLATEDIR
#define RM_TEMPLATEDIR "/usr/share/robotmail/templates"
#endif

#define CONFIG_OPT "  -c, --config FILE  the configuration (also $ROBOTMAIL_CONFIG)\n"
#define EXITS                                                                                      \
	"Exit codes: 0 ok, 1 a bad archive or a failed report (details on stderr),\n"              \
	"2 usage or configuration error (the operator must fix it), 75 temporary\n"               \
	"failure (a later run can fix it).  See robotmail(1).\n"

struct page {
	const char *cmd;
	const char *text;
};

static const struct page pages[] = {
	{ NULL,
	  "usage: robotmail COMMAND [options] [arguments]\n"
	  "\n"
	  "commands:\n"
	  "  compare        the LKP comparison table of result archives\n"
	  "  --dry-run      every report as it would be sent; changes nothing\n"
	  "  run            the cron entry: scan the inbox, report, queue, deliver\n"
	  "  queue          operate the outbox (list, show, retry, drop, hold, release, resend, prune)\n"
	  "  store          check the state store, or migrate SQLite to PostgreSQL\n"
	  "  commit         the commit facts robotmail looks up for a tree\n"
	  "  check-config   validate the configuration; --online also connects\n"
	  "  listen         read replies: #robotmail commands change findings\n"
	  "  status         the findings page (HTML, JSON) from the state database\n"
	  "  help [COMMAND] this overview, or one command's options\n"
	  "\n"
	  "  -h, --help     this overview; COMMAND --help for a command's options\n"
	  "  -V, --version  the version and the data directories\n"
	  "\n" EXITS },
	{ "compare",
	  "usage: robotmail compare [options] ARCHIVE...\n"
	  "       robotmail compare [options] BASE_DIR HEAD_DIR\n"
	  "\n"
	  "Print the comparison table of every test group of each archive, byte for\n"
	  "byte as lkp-tests' ncompare.  ARCHIVE is a result directory or a .tar,\n"
	  ".tar.gz, .tar.xz or .tar.zst file.\n"
	  "\n" CONFIG_OPT
	  "                     (trees: commit subjects from their git web API)\n"
	  "  --base COMMIT      use COMMIT (or a prefix) as the base of every group\n"
	  "  --head COMMIT      use COMMIT (or a prefix) as the head of every group\n"
	  "  --metrics FILE     metric rules (default: $ROBOTMAIL_DATADIR/metrics.yaml)\n"
	  "  --programs FILE    LKP program facts (default: $ROBOTMAIL_DATADIR/lkp-programs.yaml)\n"
	  "  -v, --verbose      report skipped groups and stats on stderr\n"
	  "  -h, --help         this help\n"
	  "\n" EXITS },
	{ "dry-run",
	  "usage: robotmail --dry-run [options] ARCHIVE...\n"
	  "\n"
	  "Show what run would do with each report, through the same pipeline: the\n"
	  "SMTP envelope and the whole message run would queue (byte for byte), \"would\n"
	  "reply to <ID>\" for a follow-up, \"already reported as <ID> on DATE, nothing\n"
	  "sent\" for a report the state database holds, HELD, REFUSED, SKIPPED.\n"
	  "Writes nothing, sends nothing, changes no state (the state database is\n"
	  "only read).  Exits as run would: 1 for a bad archive, else 75 when a\n"
	  "report is held.\n"
	  "\n" CONFIG_OPT
	  "  -o, --output DIR   write one NAME.eml per report into DIR instead\n"
	  "                     (DIR and its parents are created when missing)\n"
	  "  --force            also print the mail of a report already sent\n"
	  "  --note FILE        open every report with the operator's note\n"
	  "                     (ARCHIVE.note.txt beside an archive wins)\n"
	  "  --to ADDR          every recipient replaced by ADDR\n"
	  "  --now EPOCH        the Date: of the messages (seconds since 1970;\n"
	  "                     anything else is exit 2)\n"
	  "  -v, --verbose      every address left out and why, skipped groups\n"
	  "  -h, --help         this help\n"
	  "\n" EXITS },
	{ "run",
	  "usage: robotmail run [options]\n"
	  "\n"
	  "The cron entry: take the lock (another run exits 0 at once), scan\n"
	  "paths.inbox for finished archives, report what is new (never twice),\n"
	  "queue each message with its final bytes, deliver what is due, retry with\n"
	  "backoff, move archives to paths.done or paths.failed.  Errors, deferrals\n"
	  "and refused recipients always go to stderr; the last line, also without\n"
	  "-v, is the run's summary (archives, reports, mails queued/sent/failed/waiting).\n"
	  "A missing inbox, a state directory that cannot be created, an invalid\n"
	  "robot.address or a transport program that does not exist is exit 2.\n"
	  "\n" CONFIG_OPT
	  "  --once ARCHIVE     report this one archive (the inbox is not scanned,\n"
	  "                     nothing is moved)\n"
	  "  --to ADDR          reflect: every report to ADDR only, under its own\n"
	  "                     Message-ID; nothing is consumed (a later run still\n"
	  "                     sends the real report), no archive is moved\n"
	  "  --note FILE        open every report with the operator's note\n"
	  "                     (ARCHIVE.note.txt beside an archive wins)\n"
	  "  --now EPOCH        the time of the run (seconds since 1970; anything\n"
	  "                     else is exit 2)\n"
	  "  --materials DIR    keep each report's job.yaml, job-script, reproduce,\n"
	  "                     kernel config and, for a failure, its kernel log in DIR\n"
	  "  -v, --verbose      one line per action and a summary\n"
	  "  -h, --help         this help\n"
	  "\n" EXITS },
	{ "queue",
	  "usage: robotmail queue [-c FILE] list [FILTER...]\n"
	  "       robotmail queue [-c FILE] show|retry|drop|hold|release|resend|prune ID\n"
	  "       robotmail queue [-c FILE] retry|drop|hold|release|resend|prune\n"
	  "                                 (--all | FILTER...) [--dry-run]\n"
	  "\n"
	  "Operate the outbox in the state database.  ID is the number queue list\n"
	  "prints, or the Message-ID.  An unknown argument, a bad value, or an ID\n"
	  "with filters is exit 2.\n"
	  "\n"
	  "  list      every message: id, state, attempts, Message-ID, subject, last error\n"
	  "            (tab-separated; a header row when stdout is a terminal)\n"
	  "  show ID   one message: its state, pending recipients, each recipient's\n"
	  "            result (accepted/refused/deferred: address, code, reply),\n"
	  "            last error and bytes\n"
	  "  retry ID  deliver a queued or failed message at the next run\n"
	  "  drop ID   never deliver it\n"
	  "  hold ID   keep it until release\n"
	  "  release ID  deliver a held message\n"
	  "  resend ID   send a sent message again (same bytes, same Message-ID,\n"
	  "              every recipient it went to) at the next run\n"
	  "  prune ID    drop a sent message's stored bytes (its row, report key and\n"
	  "              results stay; it can no longer be resent)\n"
	  "\n"
	  "Filters (all must match; an action prints each message it changes and a\n"
	  "count; a filter never retries a message the operator dropped):\n"
	  "  --all              every message\n"
	  "  --state STATE      held, queued, sending, sent or failed\n"
	  "  --tree NAME        the report's tree\n"
	  "  --commit SHA       a prefix (4+ hex digits) of the tested commit\n"
	  "  --to ADDR          a recipient (pending, or with a result)\n"
	  "  --older-than AGE   queued at least AGE ago (seconds, or 30m, 12h, 90d, 2w)\n"
	  "  --sent-older-than AGE  sent at least AGE ago (queue prune --sent-older-than 90d)\n"
	  "  --dry-run          print what would change, change nothing\n"
	  "\n" CONFIG_OPT
	  "  -h, --help         this help\n"
	  "\n" EXITS },
	{ "store",
	  "usage: robotmail store [-c FILE] check\n"
	  "       robotmail store [-c FILE] migrate --to postgresql://... [--from FILE]\n"
	  "\n"
	  "check: the store's backend, schema version, row counts and consistency\n"
	  "(exit 1 when inconsistent).  migrate: copy a SQLite store (the configured\n"
	  "one, or FILE) into an empty PostgreSQL database and compare every count.\n"
	  "The password of a postgresql:// URL belongs in a libpq password file.\n"
	  "\n" CONFIG_OPT
	  "  -h, --help         this help\n"
	  "\n" EXITS },
	{ "commit",
	  "usage: robotmail commit [options] TREE SHA\n"
	  "\n"
	  "Print the commit facts robotmail looks up through the tree's git web API\n"
	  "(trees[].provider and trees[].api): subject, author, committer, date,\n"
	  "parent, trailers, the patch's Message-ID, changed files.\n"
	  "\n" CONFIG_OPT
	  "  --subject S        when the API does not know SHA, search by subject S\n"
	  "  --no-cache         ask the network, not the state database's cache\n"
	  "  -h, --help         this help\n"
	  "\n" EXITS },
	{ "check-config",
	  "usage: robotmail check-config [-c FILE] [--online]\n"
	  "\n"
	  "Validate the configuration, the robot identity, the rule files, the\n"
	  "templates (each renders), secret file permissions, the transport (its\n"
	  "program exists), the state directory and the inbox.  One line per check,\n"
	  "ok or FAIL with the key and where it was set; exit 2 when anything fails.\n"
	  "\n" CONFIG_OPT
	  "  --online           also connect to the SMTP server (TLS, AUTH) and each\n"
	  "                     tree's git web API\n"
	  "  -h, --help         this help\n"
	  "\n" EXITS },
	{ "listen",
	  "usage: robotmail listen [-c FILE] [--now EPOCH] [--follow [--interval S]]\n"
	  "\n"
	  "Read the replies in listen.source (maildir:DIR, imaps://HOST:PORT/MAILBOX\n"
	  "or public-inbox:URL),\n"
	  "match each to its report, apply its #robotmail commands (invalid, fixed:,\n"
	  "dup:, unsubscribe, undo) and queue an answer for those not understood.\n"
	  "Each mail is read once.\n"
	  "\n" CONFIG_OPT
	  "  --now EPOCH        the time of the pass (seconds since 1970)\n"
	  "  --follow           passes until killed; between them a wait of at most\n"
	  "                     --interval seconds (60), ended by IMAP IDLE news\n"
	  "  -h, --help         this help\n"
	  "\n" EXITS },
	{ "status",
	  "usage: robotmail status [-c FILE] [--html DIR] [--json DIR]\n"
	  "\n"
	  "Write the findings page from the state database: DIR/index.html,\n"
	  "DIR/t/TREE.html per tree and DIR/f/ID.html per finding (with a plot of\n"
	  "the metric per run on each head where it was seen, or a failure's\n"
	  "fail:runs per head), or DIR/findings.json.\n"
	  "\n" CONFIG_OPT
	  "  -h, --help         this help\n"
	  "\n" EXITS },
	{ "help",
	  "usage: robotmail help [COMMAND]\n"
	  "\n"
	  "The overview, or the options of COMMAND (compare, --dry-run, run, queue,\n"
	  "commit, check-config, listen, status).\n" },
};

int rm_help_print(const char *cmd, FILE *f)
{
	size_t i;

	if (cmd && !strcmp(cmd, "--dry-run"))
		cmd = "dry-run";
	for (i = 0; i < sizeof(pages) / sizeof(pages[0]); i++)
		if ((!cmd && !pages[i].cmd) || (cmd && pages[i].cmd && !strcmp(cmd, pages[i].cmd))) {
			fputs(pages[i].text, f);
			return 0;
		}
	return -1;
}

void rm_help_version(FILE *f)
{
	fprintf(f, "robotmail %s\ndata: %s\ntemplates: %s\n", RM_VERSION, RM_DATADIR, RM_TEMPLATEDIR);
}
