#!/usr/bin/env bash
# style: the C functions robotmail does not call in bot/ (curl's checksrc
# list; c-style-anchors.md 14 in the project notes): unbounded writes (sprintf,
# vsprintf, strcpy, strcat, gets), conversions that cannot report an error
# (atoi, atol, atoll, atof: use strtol/strtod and check the end), strtok
# (not reentrant: strtok_r) and system (a shell).  One check per function;
# a failure lists each FILE:LINE.  `make check-style` runs this suite.
. tests/lib.sh
for fn in sprintf vsprintf strcpy strcat gets atoi atol atoll atof strtok system; do
	# a call: the name not preceded by an identifier character, then "(";
	# comment lines (" * ...", "/* ...", "// ...") may name it
	hits=$(grep -nE "(^|[^A-Za-z0-9_])$fn[[:space:]]*\\(" bot/*.c bot/*.h |
		grep -vE '^[^:]+:[0-9]+:[[:space:]]*(\*|/\*|//)')
	if [ -z "$hits" ]; then
		ok "style: no $fn() in bot/"
	else
		not_ok "style: no $fn() in bot/" "$hits"
	fi
done
