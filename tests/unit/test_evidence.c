/* test_evidence.c - evidence.c: stamps, excerpt boundaries, decoded traces,
 * Code: listings, xz logs, truncated xz, binary garbage. */
#include "unit.h"

#include <archive.h>
#include <archive_entry.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <string.h>

#include "evidence.h"
#include "strbuf.h"

static struct rm_evidence_limits lim;

static int setup(void **state)
{
	(void)state;
	rm_evidence_limits_default(&lim);
	return 0;
}

static void test_stamps(void **state)
{
	static const struct {
		const char *line, *want;
	} cases[] = {
		{ "[   12.841558][    T1] BUG: kernel NULL pointer dereference", "12.841558" },
		{ "[    0.000000] Linux version 6.18.0", "0.000000" },
		{ "<4>[  256.557393] [ INFO: possible circular locking ]", "256.557393" },
		{ "kern  :err   : [  423.821741] [   T5591] LTP: starting", "423.821741" },
		{ "[123456.123456][ T2585] twelve digits and more", "123456.123456" },
		{ "[1234567.123456] seven integer digits", "" },
		{ "[   12.84155] five decimals", "" },
		{ "[   12.841558]no blank", "" },
		{ "no stamp [   12.841558] later", "" },
		{ "", "" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[32] = "";
		size_t n = rm_evidence_line_stamp(cases[i].line, strlen(cases[i].line), buf, sizeof(buf));

		assert_int_equal(n, strlen(cases[i].want));
		if (n)
			assert_string_equal(buf, cases[i].want);
	}
}

/* A console log: noise, a first WARNING with decode_stacktrace's listing,
 * then a BUG; lines before, between and after must stay out. */
#define NOISE "[    1.000000][    T1] Run /init as init process\n" \
	      "[    1.100000][    T1] systemd[1]: Detected virtualization kvm.\n"
#define WARN_BLOCK \
	"[   12.841558][    T1] ------------[ cut here ]------------\n" \
	"[ 12.842688][ T1] WARNING: CPU: 0 PID: 1 at mm/page_counter.c:60 page_counter_cancel (mm/page_counter.c:60) \n" \
	"[   12.843999][    T1] Modules linked in:\n" \
	"[   12.844100][    T1] Call Trace:\n" \
	"[   12.844200][    T1]  <TASK>\n" \
	"[ 12.844300][ T1] page_counter_uncharge (mm/page_counter.c:181) \n" \
	"[   12.844400][    T1]  </TASK>\n" \
	"[   12.844500][    T1] ---[ end trace 0000000000000000 ]---\n"
#define DECODE \
	"[ 12.844600][ T1] Code: 48 89 df e8 <0f> 0b\n" \
	"All code\n" \
	"========\n" \
	"   0:\t48 89 df             \tmov    %rbx,%rdi\n" \
	"   3:\te8                   \t.byte 0xe8\n" \
	"Code starting with the faulting instruction\n" \
	"===========================================\n" \
	"   0:\t0f 0b                \tud2\n" \
	"  1a:\t90                   \tnop\n" \
	"     ...\n"
#define AFTER "[   13.000000][    T1] random: crng init done\n"
#define BUG_BLOCK \
	"[   20.100000][    C0] BUG: kernel NULL pointer dereference, address: 0000000000000008\n" \
	"[   20.100001][    C0] #PF: supervisor read access in kernel mode\n" \
	"[   20.100002][    C0] Oops: 0000 [#1] PREEMPT SMP PTI\n" \
	"[   20.100003][    C0] RIP: 0010:foo+0x12/0x40\n" \
	"[   20.100004][    C0] ---[ end trace 0000000000000000 ]---\n" \
	"[   20.100005][    C0] Kernel panic - not syncing: Fatal exception\n"

static const char LOG[] = NOISE WARN_BLOCK DECODE AFTER BUG_BLOCK;

static void test_excerpt_with_decoded_listing(void **state)
{
	struct rm_evidence e;

	(void)state;
	rm_evidence_scan_memory("dmesg", LOG, strlen(LOG), "12.841558", &lim, &e);
	assert_null(e.problem);
	assert_non_null(e.excerpt);
	assert_string_equal(e.excerpt, WARN_BLOCK DECODE);
	assert_false(e.capped);
	rm_evidence_free(&e);
}

static void test_excerpt_second_trace(void **state)
{
	struct rm_evidence e;

	(void)state;
	/* the id's line is the trace's first: the WARNING block stays out, and
	 * so does the panic line after the end of the trace */
	rm_evidence_scan_memory("dmesg", LOG, strlen(LOG), "20.100000", &lim, &e);
	assert_null(e.problem);
	assert_string_equal(e.excerpt,
			    "[   20.100000][    C0] BUG: kernel NULL pointer dereference, address: 0000000000000008\n"
			    "[   20.100001][    C0] #PF: supervisor read access in kernel mode\n"
			    "[   20.100002][    C0] Oops: 0000 [#1] PREEMPT SMP PTI\n"
			    "[   20.100003][    C0] RIP: 0010:foo+0x12/0x40\n"
			    "[   20.100004][    C0] ---[ end trace 0000000000000000 ]---\n");
	rm_evidence_free(&e);
}

/* A target inside a trace (the WARNING line, not the cut-here line) names
 * the whole trace; a trace without decode listing ends at its end line. */
static void test_excerpt_target_inside_trace(void **state)
{
	static const char log[] = NOISE WARN_BLOCK AFTER;
	struct rm_evidence e;

	(void)state;
	rm_evidence_scan_memory("dmesg", log, strlen(log), "12.843999", &lim, &e);
	assert_string_equal(e.excerpt, WARN_BLOCK);
	rm_evidence_free(&e);
}

/* A stamp no line carries, and binary garbage: a problem, no excerpt. */
static void test_no_such_stamp_and_garbage(void **state)
{
	char garbage[70000];
	struct rm_evidence e;
	size_t i;
	unsigned x = 12345;

	(void)state;
	rm_evidence_scan_memory("dmesg", LOG, strlen(LOG), "99.000000", &lim, &e);
	assert_null(e.excerpt);
	assert_non_null(strstr(e.problem, "no kernel message stamped [99.000000]"));
	rm_evidence_free(&e);
	for (i = 0; i < sizeof(garbage); i++) {
		x = x * 1103515245u + 12345u;
		garbage[i] = (char)(x >> 16);
	}
	rm_evidence_scan_memory("dmesg", garbage, sizeof(garbage), "12.841558", &lim, &e);
	assert_null(e.excerpt);
	assert_non_null(e.problem);
	rm_evidence_free(&e);
}

/* The caps: a trace of 100 lines ends there; max_lines bounds the rest. */
static void test_caps(void **state)
{
	struct rm_sb sb = RM_SB_INIT;
	struct rm_evidence_limits small = lim;
	struct rm_evidence e;
	size_t i, n = 0;
	const char *p;

	(void)state;
	rm_sb_init(&sb);
	rm_sb_adds(&sb, "[    5.000000][    T1] BUG: sleeping function called\n");
	for (i = 1; i < 300; i++)
		rm_sb_addf(&sb, "[    5.%06zu][    T1] frame %zu\n", i, i);
	rm_evidence_scan_memory("dmesg", sb.buf, sb.len, "5.000000", &lim, &e);
	for (p = e.excerpt; p && *p; p++)
		n += *p == '\n';
	/* lib/dmesg.rb: the line that passes CALLTRACE_LIMIT_LEN (100) is kept */
	assert_int_equal(n, 101);
	rm_evidence_free(&e);
	small.max_lines = 10;
	rm_evidence_scan_memory("dmesg", sb.buf, sb.len, "5.000000", &small, &e);
	for (n = 0, p = e.excerpt; p && *p; p++)
		n += *p == '\n';
	assert_int_equal(n, 10);
	assert_true(e.capped);
	rm_evidence_free(&e);
	rm_sb_release(&sb);
	/* the cap counts the decode listing kept after the trace too */
	small.max_lines = 9;
	rm_evidence_scan_memory("dmesg", LOG, strlen(LOG), "12.841558", &small, &e);
	assert_string_equal(e.excerpt, WARN_BLOCK "[ 12.844600][ T1] Code: 48 89 df e8 <0f> 0b\n");
	assert_true(e.capped);
	rm_evidence_free(&e);
}

/* xz through libarchive: whole, and cut short. */
static void *xz(const char *data, size_t len, size_t *outlen)
{
	struct archive *w = archive_write_new();
	struct archive_entry *en = archive_entry_new();
	size_t cap = len + 65536, used = 0;
	void *buf = malloc(cap);

	assert_int_equal(archive_write_set_format_raw(w), ARCHIVE_OK);
	assert_int_equal(archive_write_add_filter_xz(w), ARCHIVE_OK);
	assert_int_equal(archive_write_open_memory(w, buf, cap, &used), ARCHIVE_OK);
	archive_entry_set_filetype(en, AE_IFREG);
	archive_entry_set_pathname(en, "dmesg");
	assert_int_equal(archive_write_header(w, en), ARCHIVE_OK);
	assert_int_equal(archive_write_data(w, data, len), (la_ssize_t)len);
	archive_write_close(w);
	archive_write_free(w);
	archive_entry_free(en);
	*outlen = used;
	return buf;
}

static void test_xz_and_truncated_xz(void **state)
{
	struct rm_sb sb = RM_SB_INIT;
	struct rm_evidence e;
	size_t i, n;
	unsigned x = 7;
	void *z;

	(void)state;
	rm_sb_init(&sb);
	/* incompressible noise first, so that a cut stream stops before the trace */
	for (i = 0; i < 20000; i++) {
		x = x * 1103515245u + 12345u;
		rm_sb_addf(&sb, "[    0.%06zu][    T0] noise %08x\n", i % 1000000, x);
	}
	rm_sb_adds(&sb, LOG);
	z = xz(sb.buf, sb.len, &n);
	rm_evidence_scan_memory("dmesg.xz", z, n, "12.841558", &lim, &e);
	assert_null(e.problem);
	assert_string_equal(e.excerpt, WARN_BLOCK DECODE);
	assert_true(e.bytes > 0);
	rm_evidence_free(&e);
	rm_evidence_scan_memory("dmesg.xz", z, n / 2, "12.841558", &lim, &e);
	assert_null(e.excerpt);
	assert_non_null(strstr(e.problem, "dmesg.xz cannot be read to its end"));
	rm_evidence_free(&e);
	free(z);
	rm_sb_release(&sb);
}

/* A 1 GiB log, streamed through a pipe from a child, the trace at its very
 * end: found, every byte read, and this process's peak RSS stays within a
 * fixed bound (the log is never held).  The cap on one log's bytes
 * (max_log, test_evidence_bomb.c) is raised above the log for this. */
static void test_one_gib_log_bounded_memory(void **state)
{
	static char block[1 << 16];
	const unsigned long long total = 1ull << 30;
	struct rm_evidence_limits big = lim;
	size_t n = 0;
	unsigned long long line = 0;
	int fds[2];
	pid_t pid;
	char path[32];
	struct rm_evidence e;
	struct rm_error err;
	struct rusage ru;

	(void)state;
	while (n + 100 < sizeof(block)) {
		n += (size_t)snprintf(block + n, sizeof(block) - n,
				      "[%5llu.%06llu][ T%4llu] systemd[1]: Started unit %llu.\n",
				      line / 100000, line % 1000000, line % 4096, line);
		line++;
	}
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		unsigned long long done = 0;
		static const char tail[] = WARN_BLOCK AFTER;

		close(fds[0]);
		for (; done < total; done += n)
			if (write(fds[1], block, n) != (ssize_t)n)
				_exit(1);
		if (write(fds[1], tail, sizeof(tail) - 1) != (ssize_t)(sizeof(tail) - 1))
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	snprintf(path, sizeof(path), "/dev/fd/%d", fds[0]);
	big.max_log = 2 * total;
	assert_int_equal(rm_evidence_scan_file(path, "12.841558", &big, &e, &err), 0);
	close(fds[0]);
	waitpid(pid, NULL, 0);
	getrusage(RUSAGE_SELF, &ru);
	{
		bool ok = !e.problem && e.excerpt && !strcmp(e.excerpt, WARN_BLOCK) && e.bytes >= total &&
			  !e.cut && !e.nwarnings;

		rm_evidence_free(&e);
		assert_true(ok);
	}
#if defined(__SANITIZE_ADDRESS__)
	/* AddressSanitizer keeps up to 256 MiB of freed memory in quarantine,
	 * so the bound is checked by the plain build of these tests (run-tests.sh
	 * runs both); this one checks the excerpt and that nothing leaks */
	(void)ru;
#else
	assert_true(ru.ru_maxrss < 64 * 1024); /* KiB */
#endif
}

/* NUL bytes a serial console printed are dropped from the excerpt. */
static void test_nul_bytes_dropped(void **state)
{
	static const char log[] = "[    1.000000][    T1] BUG: x\0y\n[    1.000001][    T1] ---[ end trace ]---\n";
	struct rm_evidence e;

	(void)state;
	rm_evidence_scan_memory("dmesg", log, sizeof(log) - 1, "1.000000", &lim, &e);
	assert_string_equal(e.excerpt, "[    1.000000][    T1] BUG: xy\n[    1.000001][    T1] ---[ end trace ]---\n");
	rm_evidence_free(&e);
}

/* A report's banner ('=' only) just before the trace's first line is kept,
 * and lockdep's empty message before the banner; a banner further up, or
 * an ordinary line before the trace, is not. */
static void test_banner_kept(void **state)
{
	static const char log[] =
		"[  116.800000][   T21] smpboot: CPU 1 is now offline\n"
		"[  116.814009][   T21] \n"
		"[  116.814488][   T21] ============================================\n"
		"[  116.815227][   T21] WARNING: possible recursive locking detected\n"
		"[  116.816878][   T21] --------------------------------------------\n"
		"[  116.817000][   T21] migration/1/21 is trying to acquire lock:\n"
		"[  116.900000][   T21] ---[ end trace 0000000000000000 ]---\n"
		"[  117.000000][   T21] done\n"
		"[  166.142496][    C0] =============================================================================\n"
		"[  166.146355][    C0] BUG kmalloc-96 (Not tainted): Freepointer corrupt\n"
		"[  166.147370][    C0] -----------------------------------------------------------------------------\n"
		"[  166.150000][    C0] ---[ end trace 0000000000000000 ]---\n"
		"[  170.000000][    C0] ==========\n"
		"[  170.100000][    C0] something else\n"
		"[  170.200000][    C0] WARNING: CPU: 0 PID: 1 at mm/x.c:1 f+0x1/0x2\n"
		"[  170.300000][    C0] ---[ end trace 0000000000000000 ]---\n";
	struct rm_evidence e;

	(void)state;
	rm_evidence_scan_memory("dmesg", log, strlen(log), "116.815227", &lim, &e);
	assert_non_null(e.excerpt);
	assert_true(!strncmp(e.excerpt, "[  116.814009][   T21] \n[  116.814488][   T21] ====", 50));
	rm_evidence_free(&e);
	rm_evidence_scan_memory("dmesg", log, strlen(log), "166.146355", &lim, &e);
	assert_non_null(e.excerpt);
	assert_true(!strncmp(e.excerpt, "[  166.142496][    C0] =====", 27));
	assert_null(strstr(e.excerpt, "done"));
	rm_evidence_free(&e);
	rm_evidence_scan_memory("dmesg", log, strlen(log), "170.200000", &lim, &e);
	assert_non_null(e.excerpt);
	assert_true(!strncmp(e.excerpt, "[  170.200000][    C0] WARNING:", 31));
	rm_evidence_free(&e);
}

/* LTP's ltp-pan output: the block whose tag= names the test, from its
 * <<<test_start>>> through the next test's start or the end of the output
 * (runltp's closing lines kept); a tag that only begins with the name is
 * another test; TAP-looking lines inside a block do not end it. */
static void test_ltp_blocks(void **state)
{
	static const char out[] =
		"Running tests.......\n"
		"<<<test_start>>>\n"
		"tag=uevent011 stime=1\n"
		"uevent011.c:1: TFAIL: not this one\n"
		"<<<test_end>>>\n"
		"<<<test_start>>>\n"
		"tag=uevent01 stime=2\n"
		"<<<test_output>>>\n"
		"not ok 1 looks like TAP\n"
		"tst_device.c:190: TWARN: ioctl failed: EINVAL (22)\n"
		"<<<test_end>>>\n"
		"INFO: ltp-pan reported some tests FAIL\n"
		"<<<test_start>>>\n"
		"tag=uevent02 stime=3\n"
		"<<<test_end>>>\n"
		"       ####\n"
		"\n";
	struct rm_evidence e;

	(void)state;
	rm_evidence_scan_test_memory("ltp", out, strlen(out), "ltp.uevent01.fail", "ltp", &lim, &e);
	assert_non_null(e.excerpt);
	assert_string_equal(e.excerpt, "<<<test_start>>>\ntag=uevent01 stime=2\n<<<test_output>>>\n"
				       "not ok 1 looks like TAP\n"
				       "tst_device.c:190: TWARN: ioctl failed: EINVAL (22)\n<<<test_end>>>\n"
				       "INFO: ltp-pan reported some tests FAIL\n");
	rm_evidence_free(&e);
	/* the last test: through the end of the output */
	rm_evidence_scan_test_memory("ltp", out, strlen(out), "ltp.uevent02.fail", "ltp", &lim, &e);
	assert_non_null(e.excerpt);
	assert_string_equal(e.excerpt, "<<<test_start>>>\ntag=uevent02 stime=3\n<<<test_end>>>\n"
				       "       ####\n\n");
	rm_evidence_free(&e);
	rm_evidence_scan_test_memory("ltp", out, strlen(out), "ltp.uevent03.fail", "ltp", &lim, &e);
	assert_null(e.excerpt);
	assert_non_null(e.problem);
	assert_non_null(strstr(e.problem, "no LTP test block tagged uevent03"));
	rm_evidence_free(&e);
	/* capped: the first max_lines of the block */
	lim.max_lines = 2;
	rm_evidence_scan_test_memory("ltp", out, strlen(out), "ltp.uevent01.fail", "ltp", &lim, &e);
	assert_non_null(e.excerpt);
	assert_string_equal(e.excerpt, "<<<test_start>>>\ntag=uevent01 stime=2\n");
	assert_true(e.capped);
	rm_evidence_free(&e);
}

/* A trace without an end line that holds its own decoded listing (an RCU
 * stall's NMI backtrace): past its 100th line the lines that follow stay,
 * up to the next trace (lib/dmesg.rb keeps them when decode_stacktrace ran);
 * the same trace without a listing ends at its 100th line. */
static void test_after_cap_kept_with_listing(void **state)
{
	struct rm_sb log = RM_SB_INIT, want = RM_SB_INIT;
	struct rm_evidence e;
	int i;

	(void)state;
	rm_sb_init(&log);
	rm_sb_adds(&log, "[  310.105890][    C1] rcu: INFO: rcu_sched detected stalls on CPUs/tasks:\n"
			 "Code starting with the faulting instruction\n");
	for (i = 0; i < 98; i++)
		rm_sb_addf(&log, "[  310.062003][    C0] line %d\n", i);
	for (i = 0; i < 5; i++)
		rm_sb_addf(&log, "[  315.000000][   T61] after %d\n", i);
	rm_sb_init(&want);
	rm_sb_add(&want, log.buf, log.len);
	rm_sb_adds(&log, "[  373.125892][    C1] rcu: INFO: rcu_sched detected stalls on CPUs/tasks:\n"
			 "[  373.125893][    C1] next\n");
	rm_evidence_scan_memory("dmesg", log.buf, log.len, "310.105890", &lim, &e);
	assert_non_null(e.excerpt);
	assert_string_equal(e.excerpt, want.buf);
	rm_evidence_free(&e);
	/* without the listing: through the line that passed the cap only */
	memcpy(strstr(log.buf, "Code starting"), "Xode", 4);
	rm_evidence_scan_memory("dmesg", log.buf, log.len, "310.105890", &lim, &e);
	assert_non_null(e.excerpt);
	assert_non_null(strstr(e.excerpt, "line 97\n[  315.000000][   T61] after 0\n"));
	assert_null(strstr(e.excerpt, "after 1"));
	rm_evidence_free(&e);
	rm_sb_release(&log);
	rm_sb_release(&want);
}

/* A WARNING whose trace holds its decoded Code listing before its end line
 * (published case 2420): the lines after the end line stay up to the next
 * trace, or to the end of the log; a start line inside the trace after the
 * listing (" INFO: ") does not make the trace forget it; the same trace
 * without the listing ends at its end line. */
static void test_after_end_kept_with_listing(void **state)
{
#define W_HEAD "[   13.041399][    T0] ------------[ cut here ]------------\n" \
	       "[ 13.042302][ T0] WARNING: CPU: 0 PID: 0 at lib/percpu-refcount.c:151 f (lib/percpu-refcount.c:151) \n" \
	       "[ 13.042302][ T0] Code: 03 75 58 <0f> 0b\n" \
	       "All code\n" \
	       "========\n" \
	       "   0:\t03 75 58             \tadd    0x58(%rbp),%esi\n" \
	       "\n"
#define W_FLAG "Code starting with the faulting instruction\n" \
	       "===========================================\n" \
	       "   0:\t0f 0b                \tud2\n"
#define W_TAIL "[   13.042302][    T0] INFO: lockdep is turned off.\n" \
	       "[   13.042302][    T0] Call Trace:\n" \
	       "[   13.042302][    T0]  </TASK>\n" \
	       "[   13.042302][    T0] ---[ end trace 0000000000000000 ]---\n"
#define W_AFTER "[   13.044823][    T0] AppArmor: AppArmor initialized\n" \
		"[   13.062176][    T0] Mount-cache hash table entries: 32768\n" \
		"[   13.065846][    T0] Mountpoint-cache hash table entries: 32768\n"
#define W_NEXT "[   13.068114][    T0] ------------[ cut here ]------------\n" \
	       "[   13.068115][    T0] next\n"
	static const char with_next[] = NOISE W_HEAD W_FLAG W_TAIL W_AFTER W_NEXT;
	static const char to_end[] = NOISE W_HEAD W_FLAG W_TAIL W_AFTER;
	char *plain = rm_xstrdup(with_next);
	struct rm_evidence e;

	(void)state;
	rm_evidence_scan_memory("dmesg", with_next, strlen(with_next), "13.042302", &lim, &e);
	assert_null(e.problem);
	assert_non_null(e.excerpt);
	assert_string_equal(e.excerpt, W_HEAD W_FLAG W_TAIL W_AFTER);
	rm_evidence_free(&e);
	rm_evidence_scan_memory("dmesg", to_end, strlen(to_end), "13.042302", &lim, &e);
	assert_non_null(e.excerpt);
	assert_string_equal(e.excerpt, W_HEAD W_FLAG W_TAIL W_AFTER);
	rm_evidence_free(&e);
	/* without the listing: through the end line only */
	memcpy(strstr(plain, "Code starting"), "Xode", 4);
	rm_evidence_scan_memory("dmesg", plain, strlen(plain), "13.042302", &lim, &e);
	assert_non_null(e.excerpt);
	assert_non_null(strstr(e.excerpt, "---[ end trace 0000000000000000 ]---\n"));
	assert_null(strstr(e.excerpt, "AppArmor"));
	rm_evidence_free(&e);
	free(plain);
#undef W_HEAD
#undef W_FLAG
#undef W_TAIL
#undef W_AFTER
#undef W_NEXT
}

const struct CMUnitTest unit_evidence_tests[] = {
	cmocka_unit_test_setup(test_after_end_kept_with_listing, setup),
	cmocka_unit_test_setup(test_after_cap_kept_with_listing, setup),
	cmocka_unit_test_setup(test_ltp_blocks, setup),
	cmocka_unit_test_setup(test_nul_bytes_dropped, setup),
	cmocka_unit_test_setup(test_one_gib_log_bounded_memory, setup),
	cmocka_unit_test_setup(test_stamps, setup),
	cmocka_unit_test_setup(test_banner_kept, setup),
	cmocka_unit_test_setup(test_excerpt_with_decoded_listing, setup),
	cmocka_unit_test_setup(test_excerpt_second_trace, setup),
	cmocka_unit_test_setup(test_excerpt_target_inside_trace, setup),
	cmocka_unit_test_setup(test_no_such_stamp_and_garbage, setup),
	cmocka_unit_test_setup(test_caps, setup),
	cmocka_unit_test_setup(test_xz_and_truncated_xz, setup),
};
const size_t unit_evidence_ntests = sizeof(unit_evidence_tests) / sizeof(unit_evidence_tests[0]);
