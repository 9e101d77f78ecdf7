/* metrics.c - see metrics.h. */
#include "metrics.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileutil.h"
#include "store.h"
#include "strbuf.h"

static void one(struct rm_sb *sb, const char *name, const char *type, const char *help)
{
	rm_sb_addf(sb, "# HELP robotmail_%s %s\n# TYPE robotmail_%s %s\n", name, help, name, type);
}

int rm_metrics_write(const char *path, const struct rm_metrics *m, struct rm_error *err)
{
	struct rm_sb sb = RM_SB_INIT, tmp = RM_SB_INIT;
	int rc = 0;

	rm_sb_init(&sb);
	one(&sb, "last_run_timestamp_seconds", "gauge", "When the last run ended.");
	rm_sb_addf(&sb, "robotmail_last_run_timestamp_seconds %lld\n", (long long)m->end);
	one(&sb, "last_run_duration_seconds", "gauge", "How long the last run took.");
	rm_sb_addf(&sb, "robotmail_last_run_duration_seconds %.3f\n", m->seconds);
	one(&sb, "last_run_exit_code", "gauge",
	    "The last run's exit status (0 ok, 1 failures, 2 the operator must fix, 75 to retry later).");
	rm_sb_addf(&sb, "robotmail_last_run_exit_code %d\n", m->exit_code);
	one(&sb, "last_run_complete", "gauge",
	    "1 when the last run went to its end; 0 when it stopped early (a configuration or"
	    " store error, see the exit code) and the counts below are what it did before.");
	rm_sb_addf(&sb, "robotmail_last_run_complete %d\n", m->complete ? 1 : 0);
	one(&sb, "last_run_archives", "gauge", "Archives of the last run by what became of them.");
	rm_sb_addf(&sb, "robotmail_last_run_archives{fate=\"done\"} %d\n", m->arch_done);
	rm_sb_addf(&sb, "robotmail_last_run_archives{fate=\"failed\"} %d\n", m->arch_failed);
	rm_sb_addf(&sb, "robotmail_last_run_archives{fate=\"deferred\"} %d\n", m->arch_waiting);
	rm_sb_addf(&sb, "robotmail_last_run_archives{fate=\"unsettled\"} %d\n", m->inbox_waiting);
	one(&sb, "last_run_reports", "gauge", "Reports of the last run by outcome.");
	rm_sb_addf(&sb, "robotmail_last_run_reports{outcome=\"new\"} %d\n",
		   m->reports - m->duplicates);
	rm_sb_addf(&sb, "robotmail_last_run_reports{outcome=\"already_reported\"} %d\n",
		   m->duplicates);
	rm_sb_addf(&sb, "robotmail_last_run_reports{outcome=\"deferred\"} %d\n", m->deferred);
	one(&sb, "last_run_mails", "gauge",
	    "Mails of the last run: queued (held among them) and delivery attempts by result.");
	rm_sb_addf(&sb, "robotmail_last_run_mails{outcome=\"queued\"} %d\n", m->queued);
	rm_sb_addf(&sb, "robotmail_last_run_mails{outcome=\"held\"} %d\n", m->held);
	rm_sb_addf(&sb, "robotmail_last_run_mails{outcome=\"sent\"} %d\n", m->sent);
	rm_sb_addf(&sb, "robotmail_last_run_mails{outcome=\"retry\"} %d\n", m->retried);
	rm_sb_addf(&sb, "robotmail_last_run_mails{outcome=\"failed\"} %d\n", m->failed);
	rm_sb_addf(&sb, "robotmail_last_run_mails{outcome=\"capped\"} %d\n", m->capped);
	one(&sb, "emergency_stop", "gauge", "1 when the last run found the emergency stop.");
	rm_sb_addf(&sb, "robotmail_emergency_stop %d\n", m->stopped ? 1 : 0);
	if (m->outbox_known) {
		int i;

		one(&sb, "outbox_messages", "gauge", "Messages in the outbox by state.");
		for (i = 0; i < 5; i++)
			rm_sb_addf(&sb, "robotmail_outbox_messages{state=\"%s\"} %ld\n", rm_store_state_name((enum rm_store_state)i),
				   m->outbox[i]);
		one(&sb, "outbox_oldest_waiting_age_seconds", "gauge",
		    "Age of the oldest message waiting for delivery (queued or sending); 0 when none.");
		rm_sb_addf(&sb, "robotmail_outbox_oldest_waiting_age_seconds %lld\n",
			   m->oldest_waiting);
	}
	/* beside it, then renamed over it: a collector reads the old or the new */
	rm_sb_init(&tmp);
	rm_sb_addf(&tmp, "%s.tmp.%ld", path, (long)getpid());
	if (rm_write_file(tmp.buf, sb.buf, sb.len) || rename(tmp.buf, path)) {
		rc = rm_error_set(err, RM_ERR_TEMP, "cannot write the metrics file '%s' (paths.metrics_file): %s",
				  path, strerror(errno));
		unlink(tmp.buf);
	}
	rm_sb_release(&tmp);
	rm_sb_release(&sb);
	return rc;
}
