#!/usr/bin/env bash
# audit verify and audit replay end to end: upstream verdicts and verify-file contents on the
# published compliance directories of ../shared/testdata, upstream's quirks (mode A first element,
# A2c partial garbage), what STRICT adds, missing / empty / malformed inputs named instead of a
# crash, and replay of every performance log (match) and of edited copies (mismatch).
. "$(dirname "$0")/lib.sh"
M=$MLSUBMIT
export MLSUBMIT_RULES="$REPO/rules"

# ---- synthetic logs from the embedded LoadGen --------------------------------------------------
R="$TMP/ref"; A="$TMP/aud"
RUN="$M loadgen run --scenario Server --sut null --total-samples 500 --set min_duration_ms=200 --set server_target_qps=10000 --quiet"
$RUN --mode accuracy -o "$R/accuracy" >/dev/null 2>&1
$RUN -o "$R/performance/run_1" >/dev/null 2>&1
$RUN --set accuracy_log_rng_seed=720381539243781796 --set accuracy_log_sampling_target=200 -o "$A" >/dev/null 2>&1
[ -s "$R/accuracy/mlperf_log_accuracy.json" ] && [ -s "$A/mlperf_log_accuracy.json" ] && ok || fail "LoadGen runs for the synthetic logs"

# no audit.config was used: COMPAT passes (upstream checks nothing of 1.7), STRICT says why not
mkdir -p "$TMP/v1" && cd "$TMP/v1"
expect_exit 0 $M audit verify TEST01 --reference "$R" --audit "$A"
expect_grep '^TEST PASS$' verify_accuracy.txt
expect_grep '^TEST PASS$' verify_performance.txt
expect_grep '^Reference score = [0-9.]+$' verify_performance.txt
expect_exit 1 $M audit verify TEST01 --mode strict --reference "$R" --audit "$A"
expect_grep "^FAIL  warning 'Found Audit Config file" "$TMP/out"
expect_grep '^PASS  full-byte comparison' "$TMP/out"
expect_grep '^PASS  accuracy-log record count' "$TMP/out"
cd "$REPO"

# STRICT TEST01 in SingleStream also compares the measured percentile (early-stopping-aware; the
# tolerance is 20 % below the round's latency threshold, 10 % above, so it depends on the run):
# a copy of a reference run whose 90th percentile is 30 % higher but whose early-stopping
# estimate is the same passes COMPAT and fails STRICT
SSR="$TMP/ssref"; SSA="$TMP/ssaud"
$M loadgen run --scenario SingleStream --sut latency:fixed=100us --total-samples 500 --set min_duration_ms=100 \
   --set single_stream_expected_latency_ns=150000 --quiet -o "$SSR/performance/run_1" >/dev/null 2>&1
mkdir -p "$SSR/accuracy" "$SSA" && cp "$A/mlperf_log_accuracy.json" "$SSA/" && cp "$R/accuracy/mlperf_log_accuracy.json" "$SSR/accuracy/"
p90=$(sed -n 's/.*"key": "result_90.00_percentile_latency_ns", "value": \([0-9]*\).*/\1/p' "$SSR/performance/run_1/mlperf_log_detail.txt")
sed "s/\"key\": \"result_90.00_percentile_latency_ns\", \"value\": $p90,/\"key\": \"result_90.00_percentile_latency_ns\", \"value\": $((p90 * 13 / 10)),/" \
   "$SSR/performance/run_1/mlperf_log_detail.txt" > "$SSA/mlperf_log_detail.txt"
( cd "$TMP" && $M audit verify TEST01 --reference "$SSR" --audit "$SSA" >/dev/null 2>&1 ); rc=$?
[ $rc = 0 ] && ok || fail "SingleStream COMPAT: exit $rc"
( cd "$TMP" && $M audit verify TEST01 --mode strict --reference "$SSR" --audit "$SSA" >"$TMP/ss.out" 2>&1 ); rc=$?
[ $rc = 1 ] && ok || fail "SingleStream STRICT: exit $rc"
expect_grep "^FAIL  measured result_90.00_percentile_latency_ns within (10|20) % .*reference $p90 ns, test $((p90 * 13 / 10)) ns" "$TMP/ss.out"

# A2c: only the bytes after the first differ. COMPAT mode A (byte) passes, STRICT and --unixmode fail
mkdir -p "$TMP/a2c"
sed -E 's/("data" : "[0-9A-F]{2})[0-9A-F]{6}"/\1ABCDEF"/' "$A/mlperf_log_accuracy.json" > "$TMP/a2c/mlperf_log_accuracy.json"
cp "$A/mlperf_log_detail.txt" "$A/mlperf_log_summary.txt" "$TMP/a2c/"
cd "$TMP/a2c"
expect_exit 0 $M audit verify TEST01 --reference "$R" --audit "$TMP/a2c"
expect_grep '^num_perf_log_data_mismatch = 0$' verify_accuracy.txt
expect_exit 1 $M audit verify TEST01 --mode strict --reference "$R" --audit "$TMP/a2c" --strict-report "$TMP/a2c.report"
expect_grep '^FAIL  full-byte comparison' "$TMP/a2c.report"
expect_grep 'invisible to COMPAT mode A' "$TMP/a2c.report"
expect_grep '^TEST PASS$' verify_accuracy.txt "STRICT keeps the COMPAT file"
expect_exit 1 $M audit verify TEST01 --unixmode --reference "$R" --audit "$TMP/a2c"
expect_grep '^Each dot represents 1% completion:$' verify_accuracy.txt
expect_grep '^TEST FAIL$' verify_accuracy.txt
# int32 sees the whole 4-byte label: the first element differs
expect_exit 1 $M audit verify TEST01 --dtype int32 --reference "$R" --audit "$TMP/a2c"
cd "$REPO"
# --unixmode on the honest logs: pass; fewer than 100 lines do not crash (upstream divides by 0)
head -3 "$A/mlperf_log_accuracy.json" | sed '$ s/,$//' > "$TMP/small.json"; echo "]" >> "$TMP/small.json"
mkdir -p "$TMP/small" && cp "$TMP/small.json" "$TMP/small/mlperf_log_accuracy.json" && cp "$A"/mlperf_log_{detail,summary}.txt "$TMP/small/"
( cd "$TMP/small" && $M audit verify TEST01 --unixmode --reference "$R" --audit "$TMP/small" >/dev/null 2>"$TMP/err" ); rc=$?
[ $rc = 0 ] && ok || fail "unixmode on a 4-line log: exit $rc"
expect_grep 'fewer than 100 lines' "$TMP/err"

# fallback with the bytes scorer: produced only on FAIL, in the exact v5.1 set
mkdir -p "$TMP/garb"
sed -E 's/"data" : "[0-9A-F]{8}"/"data" : "FFFFFFFF"/' "$A/mlperf_log_accuracy.json" > "$TMP/garb/mlperf_log_accuracy.json"
cp "$A/mlperf_log_detail.txt" "$A/mlperf_log_summary.txt" "$TMP/garb/"
expect_exit 1 $M audit verify TEST01 --scorer bytes --reference "$R" --audit "$TMP/garb" -o "$TMP/garb-out"
[ "$(ls "$TMP/garb-out/TEST01/accuracy" | tr '\n' ' ')" = "accuracy.txt baseline_accuracy.txt compliance_accuracy.txt mlperf_log_accuracy.json " ] \
  && ok || fail "fallback files: $(ls "$TMP/garb-out/TEST01/accuracy" | tr '\n' ' ')"
expect_grep '^accuracy=100\.000%' "$TMP/garb-out/TEST01/accuracy/baseline_accuracy.txt"
expect_grep '^accuracy=0\.000%' "$TMP/garb-out/TEST01/accuracy/compliance_accuracy.txt"
# a later PASS into the same directory removes them again (Q11)
expect_exit 0 $M audit verify TEST01 --scorer bytes --reference "$R" --audit "$A" -o "$TMP/garb-out"
[ "$(ls "$TMP/garb-out/TEST01/accuracy" | tr '\n' ' ')" = "accuracy.txt mlperf_log_accuracy.json " ] && ok || fail "stale fallback files kept"

# A9: a legitimately non-deterministic SUT (one response of the sample differs): mode A fails, the
# fallback shows an accuracy delta within tolerance, so the audit is accepted (3.7)
mkdir -p "$TMP/a9"
sed -E '2s/"data" : "[0-9A-F]{8}"/"data" : "FEFFFFFF"/' "$A/mlperf_log_accuracy.json" > "$TMP/a9/mlperf_log_accuracy.json"
cp "$A/mlperf_log_detail.txt" "$A/mlperf_log_summary.txt" "$TMP/a9/"
expect_exit 0 $M audit verify TEST01 --scorer bytes --reference "$R" --audit "$TMP/a9" -o "$TMP/a9-out"
expect_grep '^TEST FAIL$' "$TMP/a9-out/TEST01/verify_accuracy.txt"
# (a later record of the same qsl_idx is compared with the changed one: upstream counts it too)
q9=$(sed -n '2s/.*"qsl_idx" : \([0-9]*\),.*/\1/p' "$A/mlperf_log_accuracy.json")
n9=$(grep -c "\"qsl_idx\" : $q9," "$A/mlperf_log_accuracy.json")
expect_grep "^num_perf_log_data_mismatch = $([ "$n9" -gt 1 ] && echo 2 || echo 1)\$" "$TMP/a9-out/TEST01/verify_accuracy.txt"
expect_grep 'fallback: baseline 100.000, compliance 99.[0-9]+, delta 0.[0-9]+ % \(allowed 1 %\): accepted' "$TMP/out"
expect_grep '^TEST01: PASS' "$TMP/out"
[ -f "$TMP/a9-out/TEST01/accuracy/baseline_accuracy.txt" ] && ok || fail "A9: no baseline_accuracy.txt"

# A2b: an audit-aware SUT that is only honest when it sees the audit runs at half the speed
mkdir -p "$TMP/a2b" && cp "$A"/* "$TMP/a2b/"
sed -i -E 's/("key": "result_completed_samples_per_sec", "value": )([0-9.]+)/\1 4000.5/' "$TMP/a2b/mlperf_log_detail.txt"
( cd "$TMP/a2b" && $M audit verify TEST01 --reference "$R" --audit "$TMP/a2b" >/dev/null 2>&1 ); rc=$?
[ $rc = 1 ] && ok || fail "A2b: exit $rc"
expect_grep '^Test score = 4000.5$' "$TMP/a2b/verify_performance.txt"
expect_grep '^TEST FAIL: Test score invalid$' "$TMP/a2b/verify_performance.txt"

# A6: a TEST04 "audit" run without its audit.config passes COMPAT trivially; STRICT flags it
( cd "$TMP" && $M audit verify TEST04 --reference "$R" --audit "$R/performance/run_1" >/dev/null 2>&1 ); rc=$?
[ $rc = 0 ] && ok || fail "A6 COMPAT: exit $rc"
( cd "$TMP" && $M audit verify TEST04 --mode strict --reference "$R" --audit "$R/performance/run_1" >"$TMP/a6" 2>&1 ); rc=$?
[ $rc = 1 ] && ok || fail "A6 STRICT: exit $rc"
expect_grep "^FAIL  warning 'Found Audit Config file \(audit.config\)'" "$TMP/a6"
expect_grep '^FAIL  effective_performance_issue_same = true, logged: false$' "$TMP/a6"
expect_grep '^SKIP  TEST04-U unique-index run' "$TMP/a6"

# ---- inputs that upstream crashes on: named, never a crash ---------------------------------------
cd "$TMP"
expect_exit 3 $M audit verify TEST01 --reference "$R" --audit "$TMP/nonexistent"
expect_grep 'nonexistent/mlperf_log_accuracy.json' "$TMP/err"
mkdir -p "$TMP/empty" && : > "$TMP/empty/mlperf_log_accuracy.json" && : > "$TMP/empty/mlperf_log_detail.txt" && : > "$TMP/empty/mlperf_log_summary.txt"
expect_exit 3 $M audit verify TEST01 --reference "$R" --audit "$TMP/empty"
expect_grep 'empty/mlperf_log_detail.txt: the file is empty' "$TMP/err"
expect_grep '^TEST FAIL$' verify_accuracy.txt
expect_exit 3 $M audit verify TEST04 --reference "$R" --audit "$TMP/empty"
expect_grep 'empty/mlperf_log_summary.txt: the file is empty' verify_performance.txt
mkdir -p "$TMP/bad" && cp "$A"/* "$TMP/bad/" && sed -i '1s/^:::MLLOG/junk/' "$TMP/bad/mlperf_log_detail.txt"
expect_exit 3 $M audit verify TEST01 --reference "$R" --audit "$TMP/bad"
expect_grep "bad/mlperf_log_detail.txt:1: the first line is not a ':::MLLOG" verify_performance.txt
# error entries in a detail log: upstream's TEST01 verify_performance.py crashes; we warn, go on
mkdir -p "$TMP/errs" && cp "$A"/* "$TMP/errs/"
sed -i '0,/"key": "requested_scenario"/s//"key": "requested_scenario"/' "$TMP/errs/mlperf_log_detail.txt"
sed -i '2i :::MLLOG {"key": "error_invalid_config", "value": "Multiple conf files are used. This is not valid for official submission.", "time_ms": 0.1, "namespace": "mlperf::logging", "event_type": "POINT_IN_TIME", "metadata": {"is_error": true, "is_warning": false, "file": "x", "line_no": 1, "pid": 1, "tid": 1}}' "$TMP/errs/mlperf_log_detail.txt"
sed -i 's/"key": "num_errors", "value": 0/"key": "num_errors", "value": 1/' "$TMP/errs/mlperf_log_detail.txt"
expect_exit 0 $M audit verify TEST01 --reference "$R" --audit "$TMP/errs"
expect_grep "^WARNING: 1 ERROR reported in $TMP/errs/mlperf_log_detail.txt$" verify_performance.txt
expect_grep '^TEST PASS$' verify_performance.txt
expect_grep 'crashes on these; mlsubmit warns and continues' "$TMP/err"
# an INVALID compliance run (A8)
mkdir -p "$TMP/inv" && cp "$A"/* "$TMP/inv/" && sed -i 's/"key": "result_validity", "value": "VALID"/"key": "result_validity", "value": "INVALID"/' "$TMP/inv/mlperf_log_detail.txt"
expect_exit 1 $M audit verify TEST01 --reference "$R" --audit "$TMP/inv"
expect_grep "^TEST FAIL: Invalid results in $TMP/inv/mlperf_log_detail.txt$" verify_performance.txt
sed -i 's/^Result is : VALID/Result is : INVALID/' "$TMP/inv/mlperf_log_summary.txt"
expect_exit 1 $M audit verify TEST04 --reference "$R" --audit "$TMP/inv"
expect_grep '^TEST FAIL: Test results are invalid$' verify_performance.txt
cd "$REPO"

# ---- replay of the embedded LoadGen's own logs: every scenario, modes, equal issue, compat 5.1,
# requested doubles that the log rounds to 6 digits ------------------------------------------
i=0
for args in "--scenario MultiStream --set min_duration_ms=100 --set multi_stream_expected_latency_ns=100000" \
            "--scenario Offline --mode submission --set min_duration_ms=50 --set offline_expected_qps=100000" \
            "--scenario SingleStream --set min_duration_ms=50 --set sample_concatenate_permutation=1 --set single_stream_expected_latency_ns=20000" \
            "--scenario Server --set min_duration_ms=100 --set server_target_qps=33333.3333 --set sample_concatenate_permutation=1" \
            "--scenario MultiStream --mode accuracy" \
            "--scenario Offline --set min_duration_ms=50 --set offline_expected_qps=123456.789 --set sample_concatenate_permutation=1" \
            "--scenario SingleStream --loadgen-compat 5.1 --set min_duration_ms=50 --set single_stream_expected_latency_ns=12345.678"; do
  i=$((i+1))
  $M loadgen run --sut null --total-samples 1000 --performance-samples 100 --model resnet50 $args -o "$TMP/rp$i" --quiet >/dev/null 2>&1
  expect_exit 0 $M audit replay "$TMP/rp$i/mlperf_log_detail.txt"
  expect_grep '^replay: [0-9]+ checked, 0 mismatches' "$TMP/out" "replay of: $args"
  cp "$TMP/out" "$TMP/rp$i.out"
done
expect_grep '^match +generated_query_duration = [0-9]+ \(within the 6-digit rounding of requested_offline_expected_qps' "$TMP/rp6.out"
# a malformed record (the MLCommons parser would reject the log) does not stop a replay
sed '5a :::MLLOG {"key": "broken", "value": -nan}' "$TMP/rp1/mlperf_log_detail.txt" > "$TMP/rp1/broken.txt"
expect_exit 0 $M audit replay "$TMP/rp1/broken.txt"
expect_grep '^note +1 malformed record skipped \(first: line 6' "$TMP/out"

# ---- the published compliance directories (v5.1 mini round, v6 sample tree) ---------------------
need_shared
n=0
while IFS= read -r tdir; do
  t=$(basename "$tdir")
  scen=$(dirname "$tdir")
  case $scen in */compliance/*) ref=$(echo "$scen" | sed 's#/compliance/#/results/#') ;; *) ref=$scen ;; esac
  w="$TMP/pub$n"; mkdir -p "$w"; n=$((n+1))
  ( cd "$w" && $M audit verify "$t" --reference "$ref" --audit "$tdir" >"$w/out" 2>"$w/err" ); rc=$?
  if cmp -s "$w/verify_performance.txt" "$tdir/verify_performance.txt"; then ok; else
    fail "$tdir: verify_performance.txt differs from the published one"; diff "$w/verify_performance.txt" "$tdir/verify_performance.txt" | head -5 >&2; fi
  if [ "$t" = TEST04 ]; then
    [ $rc = 0 ] && ok || fail "$tdir: exit $rc"
  else
    # the published accuracy logs were truncated at packaging: upstream cannot verify them either
    [ $rc = 3 ] && ok || fail "$tdir: exit $rc (wanted 3: truncated accuracy logs)"
    expect_grep 'truncated by the packaging tool' "$w/err" "$tdir"
  fi
done < <(find "$SHARED/testdata" -type d \( -name TEST01 -o -name TEST04 \) | sort)
[ $n -ge 10 ] && ok || fail "only $n published TEST01/TEST04 directories found"

# ---- replay -------------------------------------------------------------------------------------
find "$SHARED/testdata" -name mlperf_log_detail.txt | sort > "$TMP/logs"
bad=0; found=0
while IFS= read -r f; do
  case $f in
    # a real finding: compliance directories of an open-division MultiStream / Offline result
    # holding the SingleStream run's logs (no inference copies compliance outside closed)
    */open/Lenovo/compliance/*/MultiStream/*|*/open/Lenovo/compliance/*/Offline/*)
      if $M audit replay "$f" > "$TMP/rep" 2>&1; then bad=$((bad+1)); echo "replay missed the scenario finding: $f" >&2
      elif grep -Eq '^MISMATCH +scenario: the log is a SingleStream run in a (MultiStream|Offline) compliance directory' "$TMP/rep" &&
           [ "$(grep -c '^MISMATCH' "$TMP/rep")" = 1 ]; then found=$((found+1))
      else bad=$((bad+1)); grep '^MISMATCH' "$TMP/rep" | head -3 >&2; fi ;;
    *)
      $M audit replay "$f" > "$TMP/rep" 2>&1 || { bad=$((bad+1)); echo "replay mismatch: $f" >&2; grep -v '^match' "$TMP/rep" | head -5 >&2; } ;;
  esac
done < "$TMP/logs"
[ $bad = 0 ] && ok || fail "$bad testdata logs do not replay as expected"
[ $found = 4 ] && ok || fail "the SingleStream logs in MultiStream/Offline compliance directories: $found findings, wanted 4"
[ "$(wc -l < "$TMP/logs")" -ge 60 ] && ok || fail "fewer testdata detail logs than expected"
# the SDXL TEST01 log: audit evidence and sampling expectations
SDXL="$SHARED/testdata/submission-samples/sample_1/closed/AMD/results/8xMI325x_2xEPYC-9655/stable-diffusion-xl/Offline"
expect_exit 0 $M audit replay "$SDXL/TEST01/performance/run_1/mlperf_log_detail.txt"
expect_grep '^match +loaded_qsl_set \(5000 indices, qsl_rng_seed 1780908523862526354, LoadGen before 6.0.6' "$TMP/out"
expect_grep '^match +generated_samples_per_query = 11220$' "$TMP/out"
expect_grep '^match +TEST01: effective_accuracy_log_sampling_target > 0 \(any target\), logged 128$' "$TMP/out"
expect_exit 0 $M audit replay --model stable-diffusion-xl "$SDXL/TEST01/performance/run_1/mlperf_log_detail.txt"
expect_grep '^match +TEST01: effective_accuracy_log_sampling_target = 128$' "$TMP/out"
expect_grep '^note +accuracy-log sampling: p = 0.0114082, 128.0 records expected; cannot count: .*truncated by the packaging tool' "$TMP/out"
# edited copies: the key and both values
L51="$SHARED/testdata/v5.1-mini/tree/open/Lenovo/compliance/se100_ultra7_255h/resnet50/SingleStream/TEST04/performance/run_1/mlperf_log_detail.txt"
E="$TMP/edit/TEST04/performance/run_1"; mkdir -p "$E"
sed 's/"key": "effective_sample_index_rng_seed", "value": 14771362308971278857/"key": "effective_sample_index_rng_seed", "value": 14771362308971278858/' "$L51" > "$E/mlperf_log_detail.txt"
expect_exit 1 $M audit replay "$E/mlperf_log_detail.txt"
expect_grep '^MISMATCH +effective_sample_index_rng_seed: log 14771362308971278858, unmodified LoadGen 14771362308971278857$' "$TMP/out"
sed -E 's/("key": "loaded_qsl_set", "value": \[)([0-9]+),([0-9]+),/\1\3,\2,/' "$L51" > "$E/mlperf_log_detail.txt"
expect_exit 1 $M audit replay "$E/mlperf_log_detail.txt"
expect_grep '^MISMATCH +loaded_qsl_set \(line [0-9]+\): position 0: log [0-9]+, unmodified LoadGen [0-9]+' "$TMP/out"
# requested and effective seed edited together: the loaded set gives it away
sed 's/1780908523862526354/1780908523862526355/g' "$L51" > "$E/mlperf_log_detail.txt"
expect_exit 1 $M audit replay "$E/mlperf_log_detail.txt"
expect_grep '^MISMATCH +loaded_qsl_set .*qsl_rng_seed 1780908523862526355' "$TMP/out"
# a TEST04 run whose audit.config was not applied
grep -v 'Found Audit Config' "$L51" | sed 's/"key": "effective_performance_issue_same", "value": true/"key": "effective_performance_issue_same", "value": false/;s/"key": "requested_performance_issue_same", "value": true/"key": "requested_performance_issue_same", "value": false/' > "$E/mlperf_log_detail.txt"
expect_exit 1 $M audit replay "$E/mlperf_log_detail.txt"
expect_grep "^MISMATCH +TEST04: warning 'Found Audit Config file" "$TMP/out"
expect_grep '^MISMATCH +TEST04: effective_performance_issue_same = true, logged: false$' "$TMP/out"
# --loadgen-compat 6.0 forces the other loaded-set rule onto a 5.1 log: mismatch
expect_exit 1 $M audit replay --loadgen-compat 6.0 "$L51"
expect_grep '^MISMATCH +loaded_qsl_set' "$TMP/out"
expect_exit 3 $M audit replay "$TMP/empty/mlperf_log_detail.txt"
expect_grep 'the file is empty' "$TMP/err"
finish
