#!/usr/bin/env bash
# lint: cppcheck over bot/ must be silent (warning, style, portability, performance).
. tests/lib.sh
out=$(cppcheck --quiet --enable=warning,style,portability,performance --std=c11 \
	--inline-suppr --suppress=missingIncludeSystem -Ibot bot/ 2>&1)
if [ -z "$out" ]; then ok "cppcheck reports nothing on bot/"; else not_ok "cppcheck reports nothing on bot/" "$out"; fi
