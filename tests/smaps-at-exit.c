/*
 * smaps-at-exit.c - for tests/suites/heap.sh: a preload library that, when
 * the process it is loaded into exits, copies /proc/self/smaps (its memory
 * map with each mapping's flags and huge pages) to the file named by
 * $RM_SMAPS_OUT.  Build: cc -shared -fPIC -o X.so tests/smaps-at-exit.c;
 * use: RM_SMAPS_OUT=F LD_PRELOAD=X.so robotmail ...  Not part of robotmail.
 */
#include <stdio.h>
#include <stdlib.h>

__attribute__((destructor)) static void smaps_at_exit(void)
{
	const char *to = getenv("RM_SMAPS_OUT");
	FILE *in, *out;
	char line[1024];

	if (!to || !(in = fopen("/proc/self/smaps", "r")))
		return;
	out = fopen(to, "w");
	if (out) {
		while (fgets(line, sizeof(line), in))
			fputs(line, out);
		fclose(out);
	}
	fclose(in);
}
