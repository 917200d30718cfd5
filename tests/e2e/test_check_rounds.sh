#!/usr/bin/env bash
# `mlsubmit check` on excerpts of published rounds before v5.0 (../shared/rounds/<v>/, skipped
# when absent): --version <v> --csv gives the round's expected_summary.csv as a multiset of rows
# (the `errors` column aside: it counts the official checker's logged errors, which differ in
# wording and number), the counts of expected_counts.txt, and exit 0 for a tree that looks OK.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib/common.sh"
SHARED=${MLSUBMIT_SHARED:-../shared}
if [ ! -d "$SHARED/rounds" ]; then
  echo "SKIP: $SHARED/rounds is absent"
  exit 0
fi

ran=0
for v in v0.5 v0.7 v1.0 v2.0 v3.0; do
  T=$SHARED/rounds/$v
  [ -d "$T/tree" ] || { echo "SKIP $v: $T/tree is absent"; continue; }
  ran=$((ran + 1))
  $TEST_WRAP "$MLSUBMIT" check "$T/tree" --version $v --csv "$TMP/$v.csv" >"$TMP/$v.out" 2>&1
  rc=$?
  want_rc=1
  grep -q '^SUMMARY: submission looks OK' "$T/expected_counts.txt" && want_rc=0
  [ $rc = $want_rc ] || { echo "FAIL $v: exit $rc (expected $want_rc)"; tail -20 "$TMP/$v.out"; fail=1; }
  cmp -s <(head -1 "$TMP/$v.csv") <(head -1 "$T/expected_summary.csv") ||
    { echo "FAIL $v: CSV header differs"; head -1 "$TMP/$v.csv"; fail=1; }
  if ! diff <(rows_sans_errors "$TMP/$v.csv") <(rows_sans_errors "$T/expected_summary.csv"); then
    echo "FAIL $v: CSV rows differ from expected_summary.csv"; fail=1
  fi
  grep -E '^(Results=|Closed |Open |Network |Systems=|SUMMARY:)' "$TMP/$v.out" >"$TMP/$v.counts"
  if ! diff "$TMP/$v.counts" "$T/expected_counts.txt"; then
    echo "FAIL $v: summary counts differ from expected_counts.txt"; fail=1
  fi
done
[ $ran -gt 0 ] || echo "SKIP: no round excerpt under $SHARED/rounds"

# round detection (no --version): each excerpt's round is found and printed; the rows equal
for v in v0.5 v0.7 v1.0 v2.0 v3.0; do
  T=$SHARED/rounds/$v
  [ -d "$T/tree" ] || continue
  $TEST_WRAP "$MLSUBMIT" check "$T/tree" --csv "$TMP/d$v.csv" >"$TMP/d$v.out" 2>"$TMP/d$v.err"
  grep -q "^mlsubmit check: round $v (detected: " "$TMP/d$v.err" ||
    { echo "FAIL detect $v: not detected"; cat "$TMP/d$v.err"; fail=1; }
  diff -q <(rows_sans_errors "$TMP/d$v.csv") <(rows_sans_errors "$T/expected_summary.csv") >/dev/null ||
    { echo "FAIL detect $v: rows differ"; fail=1; }
done
# round detection of the LoadGen 5.x era: the folder layout tells v5.x (code/, measurements/,
# compliance/) from v6.x (src/ only), LoadGen 5.1 excludes v5.0, closed model folders exclude
# the rounds without those models; what is left alike (v5.0 or v5.1 on LoadGen 5.0 logs, v6.0 or
# v6.1) gets the newest, said so
detect_is() { # tree round [message]
  $TEST_WRAP "$MLSUBMIT" check "$1" --no-csv >"$TMP/det.out" 2>"$TMP/det.err"
  grep -q "^mlsubmit check: round $2 (detected: .*${3:-}" "$TMP/det.err" ||
    { echo "FAIL detect $1: expected $2 ${3:-}"; head -2 "$TMP/det.err"; fail=1; }
}
TD=$SHARED/testdata
if [ -d "$TD/v5.1-mini/tree" ]; then
  detect_is "$TD/v5.1-mini/tree" v5.1 "LoadGen 5.1.0; compliance/ layout)"
  # the same tree with LoadGen 5.0 logs: its closed llama3.1-8b is a model of v5.1 only...
  cp -a "$TD/v5.1-mini/tree" "$TMP/lg50"
  find "$TMP/lg50" -name mlperf_log_detail.txt -exec sed -i 's/"loadgen_version", "value": "5\.1\.0/"loadgen_version", "value": "5.0.25/' {} +
  detect_is "$TMP/lg50" v5.1 "LoadGen 5.0.25; compliance/ layout)"
  # ...without the closed division, v5.0 and v5.1 fit alike
  rm -rf "$TMP/lg50/closed"
  detect_is "$TMP/lg50" v5.1 "v5.0 or v5.1 fit alike: the newest"
fi
if [ -d "$TD/submission-samples/sample_1" ]; then
  # unified layout; closed mixtral-8x7b and llama2-70b-99 are no v6.1 models
  detect_is "$TD/submission-samples/sample_1" v6.0 "unified layout (src/))"
  cp -a "$TD/submission-samples/sample_1" "$TMP/s6"
  rm -rf "$TMP"/s6/closed/AMD/results/*/mixtral-8x7b "$TMP"/s6/closed/AMD/results/*/llama2-70b-99
  detect_is "$TMP/s6" v6.1 "v6.0 or v6.1 fit alike: the newest"
fi

# v1.0-v2.1: --extra-model-benchmark-map is a list name:model;... (extra_model_map_inline)
T=$SHARED/rounds/v2.0
if [ -d "$T/tree" ]; then
  $TEST_WRAP "$MLSUBMIT" check "$T/tree" --version v2.0 --csv "$TMP/map.csv" \
    --extra-model-benchmark-map "ssd-mobilenet:ssd-large;other:resnet" >/dev/null 2>&1
  # merged into model_mapping: it overrides ssd-mobilenet -> ssd-small, in the closed division too
  grep -q ',ssd-mobilenet,ssd-large,MultiStream,' "$TMP/map.csv" ||
    { echo "FAIL extra-model-benchmark-map: the mapping is not applied"; fail=1; }
  $TEST_WRAP "$MLSUBMIT" check "$T/tree" --version v2.0 --no-csv --extra-model-benchmark-map nocolon \
    >"$TMP/map.out" 2>&1
  grep -q " M7 .*'nocolon' is not a name:model pair" "$TMP/map.out" ||
    { echo "FAIL extra-model-benchmark-map: a malformed list is not reported"; fail=1; }
fi

# trees mixing two rounds are refused clearly (exit 3, message): mixed DIV1 from round A and
# DIV2 from round B by symlinks
mixed_tree() { # name roundA div1 roundB div2 expected-message
  mkdir -p "$TMP/$1/$3" "$TMP/$1/$5"
  for d in "$SHARED/rounds/$2/tree/$3"/*; do ln -s "$(cd "$d" && pwd)" "$TMP/$1/$3/"; done
  for d in "$SHARED/rounds/$4/tree/$5"/*; do ln -s "$(cd "$d" && pwd)" "$TMP/$1/$5/"; done
  $TEST_WRAP "$MLSUBMIT" check "$TMP/$1" --no-csv >"$TMP/$1.out" 2>&1
  local rc=$?
  [ $rc = 3 ] && grep -q "$6" "$TMP/$1.out" ||
    { echo "FAIL $1: exit $rc, expected 3 and '$6'"; tail -3 "$TMP/$1.out"; fail=1; }
}
if [ -d "$SHARED/rounds/v0.7/tree/closed" ] && [ -d "$SHARED/rounds/v3.0/tree/open" ] &&
   [ -d "$SHARED/rounds/v1.0/tree/closed" ]; then
  # text logs of v0.7 beside the :::MLLOG logs of v3.0
  mixed_tree mixed v0.7 closed v3.0 open "mixes rounds"
  # LoadGen .5a1 (v1.0) beside LoadGen 3.0 (v3.0): no round fits both
  mixed_tree mixed2 v1.0 closed v3.0 open "matches no known round"
fi

# the test05_seeds switch: v3.0's TEST05 runs carry the TEST05 seeds, so checking them against the
# round's main seeds (test05_seeds replaced by the main ones in a rules copy) fails them (C3;
# v3.0's checker only logs wrong seeds, so the copy also makes them errors: P7 taken out of
# performance_findings_logged_only)
T=$SHARED/rounds/v3.0
if [ -d "$T/tree" ]; then
  DATA=$(cd "$HERE/../.." && pwd)
  mkdir -p "$TMP/data" && cp -r "$DATA/rules" "$DATA/schemas" "$TMP/data/"
  python3 - "$TMP/data/rules/v3.0.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["test05_seeds"] = dict(d["seeds"])
d["performance_findings_logged_only"] = [x for x in d.get("performance_findings_logged_only", []) if x != "P7"]
json.dump(d, open(sys.argv[1], "w"))
PY
  MLSUBMIT_DATA_DIR=$TMP/data $TEST_WRAP "$MLSUBMIT" check "$T/tree" --version v3.0 --no-csv >"$TMP/s5.out" 2>&1
  rc=$?
  [ $rc = 1 ] && grep -q ' C3 .*TEST05' "$TMP/s5.out" ||
    { echo "FAIL test05_seeds: exit $rc, expected 1 with C3 on the TEST05 runs"; tail -5 "$TMP/s5.out"; fail=1; }
fi
exit $fail
