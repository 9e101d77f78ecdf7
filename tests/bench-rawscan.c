/*
 * bench-rawscan.c - the floor of `robotmail compare`'s own work, for
 * tests/bench.sh: read each file named on the command line and turn every
 * number in it into a double with strtod, nothing else (no tree, no names, no
 * statistics).  Prints how many numbers and files it read and a checksum (so
 * the work cannot be optimised away).  Not part of robotmail.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	size_t numbers = 0, cap = 0;
	double sum = 0;
	char *buf = NULL;
	int i;

	for (i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		size_t len = 0, n;
		char *p, *end;

		if (!f) {
			perror(argv[i]);
			return 1;
		}
		for (;;) {
			if (len + 65536 + 1 > cap) {
				cap = cap ? cap * 2 : 1 << 20;
				buf = realloc(buf, cap);
				if (!buf)
					return 1;
			}
			n = fread(buf + len, 1, 65536, f);
			len += n;
			if (n < 65536)
				break;
		}
		fclose(f);
		buf[len] = '\0';
		p = buf;
		end = buf + len;
		while (p < end) {
			if (*p == '"') {
				/* a string: skip it, escapes included */
				for (p++; p < end && *p != '"'; p++)
					if (*p == '\\')
						p++;
				p++;
			} else if ((*p >= '0' && *p <= '9') || *p == '-') {
				char *q;

				sum += strtod(p, &q);
				numbers++;
				p = q > p ? q : p + 1;
			} else {
				p++;
			}
		}
	}
	free(buf);
	printf("%zu numbers in %d files (checksum %g)\n", numbers, argc - 1, sum);
	return 0;
}
