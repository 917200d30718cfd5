#!/usr/bin/env bash
# The check catalogue is one X-macro list (src/checker/checks.def): the checker's code names a
# check with CK_ID(X), which does not compile for an ID missing from the list, and writes no
# bare "X9" literal that would silently become another ID; --list-checks shows every row.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
cd "$REPO" || exit 1
CC=${CC:-cc}

# no bare ID literal in the checker's code
if grep -nE '"[SYNMEAPICWLR][0-9]{1,2}"' src/checker/*.c src/checker/*.h > "$TMP/bare"; then
  fail "check IDs written as string literals (use CK_ID):"; head -5 "$TMP/bare" >&2
else ok; fi

# CK_ID of a catalogued ID compiles to its string; an unknown one does not compile
cat > "$TMP/good.c" <<'C'
#include <string.h>
#include "checker/checker.h"
int main(void) { static const char *p = CK_ID(P7); return strcmp(p, "P7") != 0 || CK_NCHECKS < 80; }
C
if $CC -std=c11 -Isrc $(pkg-config --cflags jansson 2>/dev/null) -o "$TMP/good" "$TMP/good.c" 2>"$TMP/good.err" \
   && "$TMP/good"; then ok; else fail "CK_ID(P7) did not compile or run: $(head -3 "$TMP/good.err")"; fi
sed 's/CK_ID(P7)/CK_ID(P77)/' "$TMP/good.c" > "$TMP/typo.c"
if $CC -std=c11 -Isrc $(pkg-config --cflags jansson 2>/dev/null) -c -o "$TMP/typo.o" "$TMP/typo.c" 2>"$TMP/typo.err"; then
  fail "CK_ID(P77), an ID not in checks.def, compiled"
elif grep -q 'CK_P77' "$TMP/typo.err"; then ok
else fail "CK_ID(P77) failed for another reason: $(head -3 "$TMP/typo.err")"; fi

# every catalogue row is listed, in order
want=$(grep -oE '^CK_CHECK\([A-Z][0-9]+' src/checker/checks.def | sed 's/CK_CHECK(//' | tr '\n' ' ')
got=$("$MLSUBMIT" check --list-checks | grep -oE '^[A-Z][0-9]+' | tr '\n' ' ')
if [ "$want" = "$got" ] && [ -n "$got" ]; then ok; else fail "--list-checks: '$got', checks.def: '$want'"; fi
finish
