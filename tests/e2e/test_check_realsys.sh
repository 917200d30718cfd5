#!/usr/bin/env bash
# The published-files sweep (tests/diff/realsys.py) on the published files that ../shared holds:
# the system descriptions, accuracy.txt, compliance verify files, measurements JSON and user.conf
# of the v2.0 and v3.0 round excerpts, laid out as realsys.py's --real folder, each put into the
# model sweeps' base tree of its round (and its descriptions into the next round's): `mlsubmit
# check` and the round's official checker must agree on a deterministic sample of 12 cases per
# round. The full sweep over files fetched from every published round is `make realsys REAL=DIR`
# (tests/diff/README.md). Skipped without ../shared or python3.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib/common.sh"
SHARED=${MLSUBMIT_SHARED:-../shared}
if [ ! -d "$SHARED/upstream/submission-checkers" ] || [ ! -d "$SHARED/rounds" ] || ! command -v python3 >/dev/null; then
  echo "SKIP: $SHARED/upstream/submission-checkers, $SHARED/rounds or python3 is absent"
  exit 0
fi
SHARED=$(cd "$SHARED" && pwd)
REAL=$TMP/real
for v in v2.0 v3.0; do
  [ -d "$SHARED/rounds/$v/tree" ] || continue
  (cd "$SHARED/rounds/$v/tree" &&
     find . -type f \( -path '*/systems/*.json' -o -name accuracy.txt -o -name 'verify_*.txt' \
          -o \( -path '*/measurements/*' \( -name '*.json' -o -name user.conf \) \) \) -print0 |
     xargs -0 cp --parents -t "$(mkdir -p "$REAL/$v" && cd "$REAL/$v" && pwd)")
done
n=$(find "$REAL" -type f | wc -l)
if [ "$n" -lt 20 ]; then
  echo "FAIL: only $n published files found in the excerpts"
  exit 1
fi
if TMPDIR=$TMP python3 "$HERE/../diff/realsys.py" --real "$REAL" --rounds v2.0,v3.0 --cases 12 \
     --mlsubmit "$MLSUBMIT" --shared "$SHARED" >"$TMP/out" 2>&1; then
  grep '^realsys' "$TMP/out" | sed 's/^/ok: /'
  grep -q '^realsys: 24 cases' "$TMP/out" || { echo "FAIL: expected 24 cases"; cat "$TMP/out"; fail=1; }
else
  cat "$TMP/out"
  echo "FAIL: mlsubmit check and the official checkers disagree on published files"
  fail=1
fi
exit $fail
