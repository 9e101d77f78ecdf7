#!/usr/bin/env bash
# robotmail under valgrind, for `make check-valgrind`: any memory error or
# definite leak makes the command exit 99.
export ROBOTMAIL_NO_JIT=1 # valgrind cannot follow PCRE2's JIT code
exec valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
	--track-origins=no "$(dirname "$0")/../${BUILD:-build}/robotmail" "$@"
