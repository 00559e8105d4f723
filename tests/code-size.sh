#!/bin/sh
# code-size.sh DIR...: the size rules (README, issue #27): no function
# over MAX_FN (120) lines, from the "{" that opens its body to the "}" that
# closes it, in every *.c and *.h under each DIR (its folders included),
# and no *.c over MAX_FILE (800) lines.  Functions are found as the project writes them: the declarator
# from column 0, the body's braces alone at column 0.  It also fails when
# it finds fewer than 100 functions (the pattern no longer matches the
# code).  Test programs (any folder named tests, e.g. examples/tinynfs/tests)
# are left out, as tests/ itself is: a test reads as a list of cases.  code-size.sh --self-test: the check catches a function of 121
# lines and a file of 801.
set -eu
MAX_FN=${MAX_FN:-120}
MAX_FILE=${MAX_FILE:-800}

# long_functions FILE...: "file:line: N lines: declarator" for each
# function over MAX_FN lines; the last line is "functions N".
long_functions() {
	awk -v max="$MAX_FN" '
	FNR == 1 { cand = ""; start = 0 }
	/^[A-Za-z_].*\(/ && !/;[ \t]*$/ { cand = $0; candline = FNR }
	/^\{/ { if (cand != "") start = FNR }
	/^\}/ {
		if (start) {
			n = FNR - start + 1
			nfn++
			if (n > max)
				printf "%s:%d: %d lines: %s\n", FILENAME, candline, n, cand
		}
		start = 0; cand = ""
	}
	END { printf "functions %d\n", nfn }' "$@"
}

check() {
	bad=0 min=$1
	shift
	out=$(long_functions "$@")
	nfn=$(echo "$out" | sed -n 's/^functions //p')
	if echo "$out" | grep -v '^functions ' | grep .; then
		echo "code-size: the functions above exceed $MAX_FN lines"
		bad=1
	fi
	for f in "$@"; do
		case $f in *.c) ;; *) continue ;; esac
		n=$(wc -l < "$f")
		if [ "$n" -gt "$MAX_FILE" ]; then
			echo "$f: $n lines (at most $MAX_FILE)"
			bad=1
		fi
	done
	if [ "$nfn" -lt "$min" ]; then
		echo "code-size: only $nfn functions found: the pattern no longer matches"
		bad=1
	fi
	[ $bad = 0 ] && echo "code-size: $nfn functions, none over $MAX_FN lines; no .c over $MAX_FILE lines"
	return $bad
}

if [ "${1:-}" = --self-test ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	{
		echo "static int ok(int a)"; echo "{"; echo "	return a;"; echo "}"
		echo "int long_one(int a,"; echo "	     int b)"; echo "{"
		i=0; while [ $i -lt 119 ]; do echo "	a += b;"; i=$((i + 1)); done
		echo "}"
	} > "$tmp/long.c"
	if check 1 "$tmp/long.c" > "$tmp/out"; then
		cat "$tmp/out"; echo "code-size: a function of 121 lines passed"; exit 1
	fi
	grep -q 'long.c:5: 121 lines: int long_one' "$tmp/out" || { cat "$tmp/out"; exit 1; }
	i=0; while [ $i -lt 801 ]; do echo; i=$((i + 1)); done > "$tmp/big.c"
	echo "int f(void)" >> "$tmp/big.c"; echo "{" >> "$tmp/big.c"; echo "}" >> "$tmp/big.c"
	if check 1 "$tmp/big.c" > "$tmp/out"; then
		cat "$tmp/out"; echo "code-size: a file of 804 lines passed"; exit 1
	fi
	grep -q 'big.c: 804 lines' "$tmp/out" || { cat "$tmp/out"; exit 1; }
	echo "code-size: self-test caught a function of 121 lines and a file of 804"
	exit 0
fi
[ $# -gt 0 ] || { echo "usage: code-size.sh DIR... | --self-test"; exit 2; }
# shellcheck disable=SC2046 # the project's paths have no spaces
check 100 $(find "$@" -type d -name tests -prune -o -name '*.[ch]' -print | sort)
