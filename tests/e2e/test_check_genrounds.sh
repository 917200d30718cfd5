#!/usr/bin/env bash
# The generated rounds v3.1, v4.0, v4.1 and v5.0 (tests/e2e/lib/mkround.sh --version vX: power,
# TEST01/TEST04 and TEST05 where the round asks for it, the round's LLM with its token latencies
# and compliance, an open model mapped by model_mapping.json): `mlsubmit check --version vX`
# passes each tree, and gives the rows and counts of that round's official MLCommons checker
# (python3, read in place from ../shared/upstream/submission-checkers/<tag>/; that comparison is
# skipped when ../shared is absent).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib/common.sh"
SHARED=${MLSUBMIT_SHARED:-../shared}
[ -d "$SHARED" ] && SHARED=$(cd "$SHARED" && pwd)   # the official checker runs in a scratch dir
CHECKERS=$SHARED/upstream/submission-checkers
have_official=1
if [ ! -d "$CHECKERS" ] || [ ! -f "$SHARED/upstream/COMMITS.txt" ] || ! command -v python3 >/dev/null; then
  echo "SKIP (official comparison): $CHECKERS or python3 is absent"
  have_official=0
fi

# the counts lines of a checker's output, without its log prefix
counts() {
  sed -E 's/^\[[^]]*\] //' "$1" | grep -E '^(Results=|Closed |Open |Network |Systems=|SUMMARY:)'
}
# the official checker's tag of a round (COMMITS.txt: "tag commit rounds...")
tag_of() {
  awk -v v="$1" '!/^#/ && $3 !~ /^\(/ { for (i = 3; i <= NF; i++) { f = $i; gsub(/[^v0-9.]/, "", f); if (f == v) { print $1; exit } } }' \
    "$SHARED/upstream/COMMITS.txt"
}

for v in v3.1 v4.0 v4.1 v5.0; do
  T=$TMP/gen-$v
  bash "$HERE/lib/mkround.sh" "$T" --version $v >/dev/null || { echo "FAIL $v: mkround.sh"; fail=1; continue; }
  $TEST_WRAP "$MLSUBMIT" check "$T" --version $v --csv "$TMP/$v.csv" --color never >"$TMP/$v.out" 2>&1
  rc=$?
  if [ $rc = 0 ] && grep -q '^Results=7, NoResults=0, Power Results=1$' "$TMP/$v.out" &&
     grep -q '^SUMMARY: submission looks OK' "$TMP/$v.out"; then
    echo "ok: $v generated tree passes (7 results, 1 power)"
  else
    echo "FAIL $v: exit $rc on the generated tree"; grep -E 'ERROR|^Results=' "$TMP/$v.out" | head -10; fail=1
  fi
  [ $have_official = 1 ] || continue
  tag=$(tag_of $v)
  chk=$CHECKERS/$tag/submission_checker.py
  [ -n "$tag" ] && [ -f "$chk" ] || { echo "SKIP $v: no official checker in $CHECKERS"; continue; }
  mkdir -p "$TMP/off-$v"
  (cd "$TMP/off-$v" && python3 "$chk" --input "$T" --version $v --csv "$TMP/off-$v/summary.csv" \
     >"$TMP/off-$v/out" 2>&1)
  orc=$?
  [ $orc = 0 ] || { echo "FAIL $v: the official checker ($tag) exits $orc"; tail -5 "$TMP/off-$v/out"; fail=1; }
  if diff <(counts "$TMP/off-$v/out") <(counts "$TMP/$v.out") >"$TMP/$v.cdiff"; then
    echo "ok: $v counts equal the official checker's ($tag)"
  else
    echo "FAIL $v: counts differ from the official checker's ($tag)"; cat "$TMP/$v.cdiff"; fail=1
  fi
  n_off=$(($(wc -l <"$TMP/off-$v/summary.csv") - 1))
  if diff <(rows_sans_errors "$TMP/off-$v/summary.csv") <(rows_sans_errors "$TMP/$v.csv") >"$TMP/$v.rdiff"; then
    echo "ok: $v summary.csv rows equal the official checker's ($n_off rows)"
  else
    echo "FAIL $v: summary.csv rows differ from the official checker's"; cat "$TMP/$v.rdiff"; fail=1
  fi
done
exit $fail
