/*
 * fuzz_json.c - libFuzzer target: arbitrary bytes as LKP JSON (stats.json,
 * matrix.json), through rm_json_load's NaN/Infinity rewriting and jansson,
 * and through matrix.c's own scanner, which must accept exactly what
 * rm_json_load accepts (a difference traps).
 */
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "jsonload.h"
#include "matrix.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rm_error err;
	size_t nan = (size_t)-1;
	json_t *j;

	rm_error_clear(&err);
	j = rm_json_load("fuzz/stats.json", (const char *)data, size, &nan, &err);
	if (rm_matrix_json_valid((const char *)data, size) != (j != NULL))
		__builtin_trap();
	if (!j) {
		if (err.kind == RM_OK || !err.msg[0])
			__builtin_trap();
		return 0;
	}
	/* at most one rewrite per 3 input bytes ("NaN" is the shortest token) */
	if (nan > size / 3)
		__builtin_trap();
	json_decref(j);
	return 0;
}
