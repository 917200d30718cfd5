#!/usr/bin/env bash
# Acceptance of `mlsubmit check` on the reference data in ../shared (skipped when absent):
#  - v5.1-mini (a real v5.1 round): --version v5.1 --csv gives expected_summary.csv as a multiset
#    of rows, the summary counts of expected_counts.txt, exit 0;
#  - the MLCommons v6 sample tree with --version v6.0: the seed mismatches of the v6.0 checker
#    (the sample logs carry v5.1 seeds), the stable-diffusion-xl datacenter model without a
#    scenario table (where the upstream checker crashes), no crash, exit 1.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib/common.sh"
SHARED=${MLSUBMIT_SHARED:-../shared}
if [ ! -d "$SHARED/testdata" ]; then
  echo "SKIP: $SHARED/testdata is absent"
  exit 0
fi
T=$SHARED/testdata/v5.1-mini

# --- v5.1-mini parity ---
$TEST_WRAP "$MLSUBMIT" check "$T/tree" --version v5.1 --csv "$TMP/summary.csv" >"$TMP/out.txt" 2>&1
rc=$?
[ $rc = 0 ] || { echo "FAIL v5.1-mini: exit $rc (expected 0)"; tail -20 "$TMP/out.txt"; fail=1; }
if ! cmp -s <(head -1 "$TMP/summary.csv") <(head -1 "$T/expected_summary.csv"); then
  echo "FAIL v5.1-mini: CSV header differs"; fail=1
fi
if ! diff <(tail -n +2 "$TMP/summary.csv" | LC_ALL=C sort) <(tail -n +2 "$T/expected_summary.csv" | LC_ALL=C sort); then
  echo "FAIL v5.1-mini: CSV rows differ from expected_summary.csv"; fail=1
fi
grep -E '^(Results=|Closed |Open |Network |Systems=|SUMMARY:)' "$TMP/out.txt" >"$TMP/counts.txt"
if ! diff "$TMP/counts.txt" "$T/expected_counts.txt"; then
  echo "FAIL v5.1-mini: summary counts differ from expected_counts.txt"; fail=1
fi
# the same verdict and bytes with one worker and with many
for j in 1 8; do
  $TEST_WRAP "$MLSUBMIT" check "$T/tree" --version v5.1 --jobs $j --csv "$TMP/s$j.csv" >/dev/null 2>&1 || { echo "FAIL: --jobs $j exit"; fail=1; }
  cmp -s "$TMP/s$j.csv" "$TMP/summary.csv" || { echo "FAIL: --jobs $j changes summary.csv"; fail=1; }
done

# --- the v6 sample tree ---
S=$SHARED/testdata/submission-samples/sample_1
if [ -d "$S" ]; then
  $TEST_WRAP "$MLSUBMIT" check "$S" --version v6.0 --csv "$TMP/s6.csv" --tsv "$TMP/s6.tsv" --json "$TMP/s6.json" >"$TMP/s6.txt" 2>&1
  rc=$?
  [ $rc = 1 ] || { echo "FAIL samples v6.0: exit $rc (expected 1)"; tail "$TMP/s6.txt"; fail=1; }
  for seed in qsl_rng_seed sample_index_rng_seed schedule_rng_seed; do
    n=$(grep -c "^ERROR	P7	.*$seed is wrong, expected=.*found=" "$TMP/s6.tsv")
    [ "$n" -ge 20 ] || { echo "FAIL samples v6.0: only $n P7 findings for $seed"; fail=1; }
  done
  grep -q "^ERROR	P7	closed/AMD/results/8xMI300X_2xEPYC_9575F/llama2-70b-99/Interactive/performance/run_1/mlperf_log_detail.txt	[0-9]*		qsl_rng_seed is wrong, expected=2465351861681999779, found=1780908523862526354" "$TMP/s6.tsv" ||
    { echo "FAIL samples v6.0: missing the qsl seed finding of llama2-70b-99 Interactive"; fail=1; }
  grep -q "^ERROR	M3	closed/AMD/results/8xMI325x_2xEPYC-9655/stable-diffusion-xl	" "$TMP/s6.tsv" ||
    { echo "FAIL samples v6.0: no M3 for stable-diffusion-xl on a datacenter system"; fail=1; }
  grep -q '^Results=0, NoResults=22, Power Results=0$' "$TMP/s6.txt" || { echo "FAIL samples v6.0: counts"; grep Results= "$TMP/s6.txt"; fail=1; }
  [ "$(wc -l <"$TMP/s6.csv")" = 1 ] || { echo "FAIL samples v6.0: rows written for invalid results"; fail=1; }
  [ "$(head -1 "$TMP/s6.csv" | tr ',' '\n' | wc -l)" = 31 ] || { echo "FAIL samples v6.0: CSV header is not the 31-column unified one"; fail=1; }
  # every round's rules run over the sample tree without crashing
  for v in v5.0 v5.1 v6.1; do
    $TEST_WRAP "$MLSUBMIT" check "$S" --version $v --no-csv >"$TMP/o.txt" 2>&1
    rc=$?
    [ $rc = 1 ] || { echo "FAIL samples $v: exit $rc (expected 1: findings, no crash)"; tail -3 "$TMP/o.txt"; fail=1; }
  done
fi
exit $fail
