#!/bin/sh
# Every RMAIB_* variable rmaib reads is documented, and every documented one is
# read, as TAP:
#  - the library's (string literals "RMAIB_..." in src/): in README.md's table and
#    in the man page rmaib(7), and each variable of those two is read in src/;
#  - the tests', benchmarks' and scripts' (test/, bench/, maint/, examples/, .ci/):
#    in README.md, test/README.md or bench/README.md, and each variable of
#    test/README.md's table is read there.
set -u
top_srcdir=${RMAIB_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$top_srcdir" || exit 1
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "# $l"; done; }
check() {   # description, then the offending names (none: ok)
    d=$1; shift
    if [ $# -eq 0 ]; then ok "$d"; else not_ok "$d" "$@"; fi
}
names() { grep -ohE 'RMAIB_[A-Z][A-Z0-9_]*[A-Z0-9]' "$@" 2>/dev/null | sort -u; }
table() { sed -n 's/^| `\(RMAIB_[A-Z0-9_]*\)` |.*/\1/p' "$1" | sort -u; }
missing() { # names of list $1 not in list $2 (both newline-separated)
    printf '%s\n' "$1" | grep -vxF -e "$(printf '%s\n' "$2")" | grep . || true
}

lib_read=$(grep -rohE '"RMAIB_[A-Z][A-Z0-9_]*"' src --include='*.c' --include='*.h' | tr -d '"' | sort -u)
readme=$(table README.md)
man=$(sed -n 's/^\.BR \(RMAIB_[A-Z0-9_]*\) .*/\1/p' man/rmaib.7.in | sort -u)
# shellcheck disable=SC2046
check "every variable the library reads is in README.md's table" $(missing "$lib_read" "$readme")
# shellcheck disable=SC2046
check "every variable the library reads is in rmaib(7)" $(missing "$lib_read" "$man")
# shellcheck disable=SC2046
check "every variable of README.md's table is read by the library" $(missing "$readme" "$lib_read")
# shellcheck disable=SC2046
check "every variable of rmaib(7) is read by the library" $(missing "$man" "$lib_read")

# C and Fortran programs read a variable by its name in quotes; scripts with $NAME
# or ${NAME.
tool_c=$(find test bench examples -name '*.[ch]' -o -name '*.[fF]90' | sort)
tool_sh=$(find test bench maint examples .ci -type f ! -name '*.[ch]' ! -name '*.[fF]90' ! -name '*.md' | sort)
# shellcheck disable=SC2086
tool_read=$( { grep -ohE '"RMAIB_[A-Z][A-Z0-9_]*"' $tool_c | tr -d '"'
               grep -ohE '[$][{]?RMAIB_[A-Z][A-Z0-9_]*' $tool_sh | tr -d '${'; } | sort -u)
docs=$(names README.md test/README.md bench/README.md)
testdoc=$(table test/README.md)
# shellcheck disable=SC2046
check "every variable the tests, benchmarks and scripts read is documented" $(missing "$tool_read" "$docs")
# shellcheck disable=SC2046
check "every variable of test/README.md's table is read by a test or script" $(missing "$testdoc" "$tool_read")
echo "1..$n"
