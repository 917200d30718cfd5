#!/usr/bin/env bash
# The generated rounds v3.1, v4.0, v4.1 and v5.0 (tests/e2e/lib/mkround.sh --version vX: power,
# TEST01/TEST04 and TEST05 where the round asks for it, the round's LLM with its token latencies
# and compliance, an open model mapped by model_mapping.json): `mlsubmit check --version vX`
# passes each tree, and gives the rows and counts of that round's official MLCommons checker
# (python3, read in place from ../shared/upstream/submission-checkers/<tag>/; that comparison is
# skipped when ../shared is absent). Last, v3.0 --more-power-check on the gen-v3.1 power session
# (tag v3.0's own PTD source-checksum table).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib/common.sh"
. "$HERE/lib/power.sh"
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

# v3.0 --more-power-check as tag v3.0's power/power_checker.py, on the gen-v3.1 power session
# re-recorded with the sources of the first entry of the source-checksum table tag v3.0 ships
# beside itself (sources_check: four PTD releases, none of v3.1's): it passes; with a server
# phase 900 ms late too (compare_time allows 1 s; 800 ms from tag v4.0); a _DC analyser (not in
# tag v3.0's SUPPORTED_MODEL) fails the PTD replies and configuration checks; an uncertainty
# WARNING line mid-run is a warning (tag v3.0 makes no testing warning an error and watches the
# whole load window; from tag v4.0, TIME_DELTA_TOLERANCE inside it), and so is a 'Bad watts
# reading nan' ERROR while ranging (tag v3.0 accepts only "Can't evaluate uncertainty"
# silently); a testing run 20 % shorter than the ranging run fails the time check (compare_duration:
# less than 15 % of the longer either way; 10 % passes); unchanged (v3.1's PTD release), both
# sources checks fail. Verdicts taken once from
# tag v3.0's check() on these sessions.
S=$TMP/gen-v3.1
if [ -d "$S" ]; then
  T=$TMP/v30-power
  rm -rf "$T" && cp -a "$S" "$T"
  for j in "$T"/closed/Org1/results/edge1/resnet50/Offline/performance/power/{client,server}.json; do
    sed -i -e 's/ac2aa093c8e8bbc9569b9e2a3471bc64e58a2258/4c2b78fb4849a7e5b584ef792d82aaed20b17f57/' \
      -e 's/611d8b29633d331eb19c9455ea3b5fa3284ed6df/624d0c0acc7c39aaff3674f0b99d6a09da53d1dc/' \
      -e 's/99303c836c683aa9017ec565104e636161d02acb/24ae49fb193809cf47f2c18b1c9c7c866244be4d/' \
      -e 's/80894ef2389e540781ff78de94db16aa4203a14e/3210db56eb0ff0df57bf4293dc4d4b03fffd46f1/' \
      -e 's/948c1995d4008bc2aa6c4046a34ffa3858d6d671/99ae15aef722f2000ee6ed1ae1523637bf1ae42b/' "$j"
  done
  T9=$TMP/v30-power-900ms
  rm -rf "$T9" && cp -a "$T" "$T9"
  sed -i 's/\[\([0-9]*\)\.5, 1581\.0\]/[\1.9, 1581.0]/' \
    "$T9"/closed/Org1/results/edge1/resnet50/Offline/performance/power/server.json
  TD=$TMP/v30-power-dc
  rm -rf "$TD" && cp -a "$T" "$TD"
  sed -i -e 's/"YokogawaWT310,C2PH/"YokogawaWT310_DC,C2PH/' -e 's/"device_type": 49/"device_type": 549/' \
    -e 's/"8888", "49"/"8888", "549"/' "$TD"/closed/Org1/results/edge1/resnet50/Offline/performance/power/server.json
  TW=$TMP/v30-power-warning
  rm -rf "$TW" && cp -a "$T" "$TW"
  P=$TW/closed/Org1/results/edge1/resnet50/Offline/performance
  sed -i 's/^08-01-2025 17:14:30.000: Completed test/08-01-2025 17:09:00.000: WARNING: Uncertainty 1.50%, which is above 1.00% limit for the last sample!\n&/' \
    "$P/power/ptd_logs.txt"
  power_rehash "$P"
  TR=$TMP/v30-power-ranging-error
  rm -rf "$TR" && cp -a "$T" "$TR"
  P=$TR/closed/Org1/results/edge1/resnet50/Offline/performance
  sed -i 's/^08-01-2025 17:00:20.000: Completed test/08-01-2025 16:55:00.000: ERROR: Bad watts reading nan from the analyzer\n&/' \
    "$P/power/ptd_logs.txt"
  power_rehash "$P"
  # the testing run 2 minutes (20 %) and 1 minute (10 %) shorter than the ranging run
  for cut in 12:20 13:10; do
    TT=$TMP/v30-power-short${cut#*:}
    rm -rf "$TT" && cp -a "$T" "$TT"
    P=$TT/closed/Org1/results/edge1/resnet50/Offline/performance
    sed -i "s/\"power_end\", \"value\": \"08-01-2025 17:14:17.500\"/\"power_end\", \"value\": \"08-01-2025 17:${cut%:*}:17.500\"/" \
      "$P/run_1/mlperf_log_detail.txt"
    power_rehash "$P"
  done
  # TREE|NAME|sources-checksum findings|time-difference findings|analyser findings|PTD log warnings
  while IFS='|' read -r t name want_src want_time want_dev want_warn; do
    $TEST_WRAP "$MLSUBMIT" check "$t" --version v3.0 --more-power-check --no-csv --tsv "$TMP/v30p.tsv" \
      >"$TMP/v30p.out" 2>&1
    n=$(grep -c "sources checksum" "$TMP/v30p.tsv")
    m=$(grep -c "'time difference'" "$TMP/v30p.tsv")
    d=$(grep -c "analyser.*is not supported" "$TMP/v30p.tsv")
    w=$(grep -cE "^WARNING.*during (the load stage|ranging, treated as a warning)" "$TMP/v30p.tsv")
    if [ "$n" = "$want_src" ] && [ "$m" = "$want_time" ] && [ "$d" = "$want_dev" ] && [ "$w" = "$want_warn" ]; then
      echo "ok: v3.0 --more-power-check, $name: $n sources, $m time-difference, $d analyser, $w PTD log warnings"
    else
      echo "FAIL v3.0 power, $name: $n sources (want $want_src), $m time-difference (want $want_time), $d analyser (want $want_dev), $w PTD log warnings (want $want_warn)"
      grep W4 "$TMP/v30p.tsv"; fail=1
    fi
  done <<EOF
$T|the sources of tag v3.0's table|0|0|0|0
$T9|a server phase 900 ms late|0|0|0|0
$TD|a YokogawaWT310_DC analyser (none before tag v4.0)|0|0|2|0
$TW|an uncertainty warning mid-run (a warning, no margin)|0|0|0|1
$TR|a 'Bad watts reading nan' error while ranging (one common error before v4.0)|0|0|0|1
$TMP/v30-power-short20|a testing run 20 % shorter (15 % allowed either way)|0|1|0|0
$TMP/v30-power-short10|a testing run 10 % shorter|0|0|0|0
$S|v3.1's PTD sources|2|0|0|0
EOF
fi
exit $fail
