#!/usr/bin/env bash
# audit replay across LoadGen releases: the real detail logs of the published rounds in
# ../shared/rounds/*/tree (v1.0, v2.0, v3.0: LoadGen .5a1 / 2.0 / 2.1 / 3.0, built with older
# standard libraries) and the v5.1 mini round all match, except the mini round's real finding;
# edited copies (a seed, a loaded set, a query count) are caught; a requested double logged with
# six digits (3.07681e+06) is no false alarm; a TEST01 run without its audit.config is one; the
# tree walk, its table, --json and --jobs.
. "$(dirname "$0")/lib.sh"
M=$MLSUBMIT
export MLSUBMIT_RULES="$REPO/rules"

# ---- LoadGen 4.0 applied sample_concatenate_permutation without logging it -------------------------
# (a log of the embedded LoadGen with the key removed and the release set to 4.0: the replay
# infers the equal-issue generation from the logged figures; with 5.0 rules the key's absence
# means off, and the figures mismatch)
$M loadgen run --sut null --total-samples 1000 --performance-samples 100 --model resnet50 --scenario SingleStream \
  --set min_duration_ms=50 --set sample_concatenate_permutation=1 --set single_stream_expected_latency_ns=20000 \
  -o "$TMP/eq" --quiet >/dev/null 2>&1
grep -v sample_concatenate_permutation "$TMP/eq/mlperf_log_detail.txt" |
  sed -E 's/"key": "loadgen_version", "value": "[^"]*"/"key": "loadgen_version", "value": "4.0 @ 0000000000"/' > "$TMP/eq/v40.txt"
expect_exit 0 $M audit replay "$TMP/eq/v40.txt"
expect_grep '^note +sample_concatenate_permutation is not logged by this release; the logged figures are those of its equal-issue generation' "$TMP/out"
expect_exit 1 $M audit replay --loadgen-compat 5.1 "$TMP/eq/v40.txt"
expect_grep '^MISMATCH +effective_min_query_count' "$TMP/out"

need_shared

# ---- every real log of the older rounds matches ---------------------------------------------------
# (under valgrind, where a large Server log takes minutes, one round's tree: the same code walks
# every tree; make test and make asan replay all three)
ROUNDS="v1.0 v2.0 v3.0"; [ -n "$SLOW_TOOL" ] && ROUNDS="v2.0"
for v in $ROUNDS; do
  root="$SHARED/rounds/$v/tree"
  [ -d "$root" ] || { echo "SKIP rounds/$v: absent"; continue; }
  n=$(find "$root" -name mlperf_log_detail.txt -path '*/results/*' -o -name mlperf_log_detail.txt -path '*/compliance/*' | wc -l)
  expect_exit 0 $M audit replay "$root"
  expect_grep "^total +$n +$n +0 +0$" "$TMP/out" "rounds/$v: all $n logs match"
  cp "$TMP/out" "$TMP/$v.table"
done
# the builds of those rounds: the loaded sets come from the older libstdc++ shuffle too
expect_exit 0 $M audit replay "$SHARED/rounds/v3.0/tree/closed/rebellions/results/ATOM/resnet50/SingleStream/performance/run_1/mlperf_log_detail.txt"
expect_grep '^LoadGen 3\.0 @ [0-9a-f]+ -> the rules of LoadGen 3\.0 until 4\.0' "$TMP/out"
expect_grep '^match +loaded_qsl_set \(1024 indices, .*libstdc\+\+ \(GCC 7 to 10\) shuffle\)' "$TMP/out"

# v1.0: TEST04-B (performance_issue_same) shortens the run as LoadGen 1.x did; TEST05 without
# the test05 flag (the audit.config set the seeds): other seeds than the submission run's
V1="$SHARED/rounds/v1.0/tree/open/Mobilint"
if [ -d "$V1" ]; then
  expect_exit 0 $M audit replay "$V1/compliance/mobilint_edgefive/resnet/Offline/TEST04-B/performance/run_1/mlperf_log_detail.txt"
  expect_grep '^LoadGen \.5a1 @ [0-9a-f]+ -> the rules of LoadGen 1\.0 until 2\.0' "$TMP/out"
  expect_grep '^match +generated_samples_per_query = 1024$' "$TMP/out"
  expect_exit 0 $M audit replay "$V1/compliance/mobilint_edgefive/resnet/Offline/TEST05/performance/run_1/mlperf_log_detail.txt"
  expect_grep '^match +TEST05: the audit.config set other seeds than the submission run' "$TMP/out"
  # accuracy runs of 1.x log the effective samples_per_query, not the query's size
  expect_exit 0 $M audit replay "$V1/results/mobilint_edgefive/resnet/Offline/accuracy/mlperf_log_detail.txt"
  # forcing the v5.0 rules on that log: the logged samples per query differ
  expect_exit 1 $M audit replay --loadgen-compat 5.0 "$V1/results/mobilint_edgefive/resnet/Offline/accuracy/mlperf_log_detail.txt"
  expect_grep '^MISMATCH +generated_samples_per_query \(series 1\): log [0-9]+, unmodified LoadGen [0-9]+' "$TMP/out"
fi

# ---- the v5.1 mini round: everything matches but the real finding ---------------------------------
MINI="$SHARED/testdata/v5.1-mini/tree"
expect_exit 1 $M audit replay "$MINI"
expect_grep '^open/Lenovo +12 +8 +4 +0$' "$TMP/out"
expect_grep '^total +20 +16 +4 +0$' "$TMP/out"
expect_grep '^MISMATCH +.*/open/Lenovo/compliance/se100_ultra7_255h/resnet50/MultiStream/TEST01/performance/run_1/mlperf_log_detail.txt: scenario: the log is a SingleStream run in a MultiStream compliance directory' "$TMP/out"
cp "$TMP/out" "$TMP/mini.j2"
expect_exit 1 $M audit replay --jobs 1 "$MINI"
cmp -s "$TMP/out" "$TMP/mini.j2" && ok || fail "--jobs 1 and the default give different reports"
expect_exit 1 $M audit replay --json "$MINI"
if have_python; then
  python3 - "$TMP/out" <<'PY' && ok || fail "--json: the summary"
import json, sys
d = json.load(open(sys.argv[1]))
t = d["total"]
assert (t["logs"], t["matched"], t["mismatched"], t["cannot_tell"]) == (20, 16, 4, 0), t
assert d["submitters"]["open/Lenovo"]["mismatched"] == 4
bad = [x for x in d["logs"] if x["verdict"] == "mismatch"]
assert all("/open/Lenovo/compliance/" in x["path"] and x["first_mismatch"].startswith("scenario:") for x in bad), bad
PY
fi

# ---- edited copies are caught -----------------------------------------------------------------------
E="$TMP/edit/closed/X/results/sys/m/SingleStream/performance/run_1"; mkdir -p "$E"
for src in "$SHARED/rounds/v1.0/tree/closed/Edgecortix/results/edgecortix-DNA_F_SERIES/resnet50/SingleStream/performance/run_1/mlperf_log_detail.txt" \
           "$SHARED/rounds/v2.0/tree/closed/NVIDIA/results/Orin_TRT/ssd-mobilenet/SingleStream/performance/run_1/mlperf_log_detail.txt" \
           "$SHARED/rounds/v3.0/tree/closed/rebellions/results/ATOM/resnet50/SingleStream/performance/run_1/mlperf_log_detail.txt" \
           "$MINI/open/Lenovo/results/se100_ultra7_255h/resnet50/SingleStream/performance/run_1/mlperf_log_detail.txt"; do
  [ -f "$src" ] || { fail "missing $src"; continue; }
  cp "$src" "$E/mlperf_log_detail.txt"
  expect_exit 0 $M audit replay "$E/mlperf_log_detail.txt"
  # a seed: requested and effective edited together, the loaded set gives it away
  seed=$(grep -oE '"key": "effective_qsl_rng_seed", "value": [0-9]+' "$src" | grep -oE '[0-9]+$')
  # (seeds exceed 2^63: edited as text, the last digit changed)
  last=${seed: -1}; seed2="${seed%?}$(( (last + 1) % 10 ))"
  sed "s/\"value\": $seed,/\"value\": $seed2,/g" "$src" > "$E/mlperf_log_detail.txt"
  grep -q "\"effective_qsl_rng_seed\", \"value\": $seed2," "$E/mlperf_log_detail.txt" && ok || fail "$src: the seed edit"
  expect_exit 1 $M audit replay "$E/mlperf_log_detail.txt"
  expect_grep '^MISMATCH +loaded_qsl_set \(line [0-9]+\): position [0-9]+: log [0-9]+, unmodified LoadGen [0-9]+' "$TMP/out" "$src: edited seed"
  # a loaded set: its first two indices swapped
  sed -E 's/("key": "loaded_qsl_set", "value": \[)([0-9]+),([0-9]+),/\1\3,\2,/' "$src" > "$E/mlperf_log_detail.txt"
  expect_exit 1 $M audit replay "$E/mlperf_log_detail.txt"
  expect_grep '^MISMATCH +loaded_qsl_set \(line [0-9]+\): position 0: ' "$TMP/out" "$src: edited loaded set"
  # a query count
  q=$(grep -oE '"key": "generated_query_count", "value": [0-9]+' "$src" | grep -oE '[0-9]+$')
  sed "s/\"key\": \"generated_query_count\", \"value\": $q,/\"key\": \"generated_query_count\", \"value\": $((q + 1)),/" "$src" > "$E/mlperf_log_detail.txt"
  expect_exit 1 $M audit replay "$E/mlperf_log_detail.txt"
  expect_grep "^MISMATCH +generated_query_count: log $((q + 1)), unmodified LoadGen [0-9]+" "$TMP/out" "$src: edited query count"
done

# a loadgen_version that names no release: the loaded-set rule before 6.0.6 is tried too
V3="$SHARED/rounds/v3.0/tree/closed/rebellions/results/ATOM/resnet50/SingleStream/performance/run_1/mlperf_log_detail.txt"
sed -E 's/"key": "loadgen_version", "value": "[^"]*"/"key": "loadgen_version", "value": "custom build"/' "$V3" > "$E/mlperf_log_detail.txt"
expect_exit 0 $M audit replay "$E/mlperf_log_detail.txt"
expect_grep '^note +loadgen_version names no release: the loaded set is that of the rules before 6\.0\.6' "$TMP/out"
expect_grep '^match +loaded_qsl_set \(1024 indices' "$TMP/out"

# ---- a requested double printed with six digits: 3076811 ns logged as 3.07681e+06 -----------------
# 390016 queries of 3076811 ns make the logged 1200005518976 ns; 3076810 (the text read back)
# makes another duration, and so does every double that prints as the text but 3076811's neighbours
L="$MINI/open/Lenovo/results/se100_ultra7_255h/resnet50/SingleStream/performance/run_1/mlperf_log_detail.txt"
sed -e 's/"requested_single_stream_expected_latency_ns", "value": 2e+06/"requested_single_stream_expected_latency_ns", "value": 3.07681e+06/' \
    -e 's/"effective_target_qps", "value": 500,/"effective_target_qps", "value": 325.012,/' \
    -e 's/"generated_query_count", "value": 600001/"generated_query_count", "value": 390016/' \
    -e 's/"generated_query_duration", "value": 1200002000000/"generated_query_duration", "value": 1200005518976/' "$L" > "$E/mlperf_log_detail.txt"
grep -q '3.07681e+06' "$E/mlperf_log_detail.txt" && ok || fail "the 3.07681e+06 fixture"
expect_exit 0 $M audit replay "$E/mlperf_log_detail.txt"
expect_grep '^match +generated_query_duration = 1200005518976 \(within the 6-digit rounding of requested_single_stream_expected_latency_ns: requested_single_stream_expected_latency_ns = 3076811 ' "$TMP/out"
sed -i 's/"generated_query_duration", "value": 1200005518976/"generated_query_duration", "value": 1200005518977/' "$E/mlperf_log_detail.txt"
expect_exit 1 $M audit replay "$E/mlperf_log_detail.txt"
expect_grep '^MISMATCH +generated_query_duration: log 1200005518977, unmodified LoadGen [0-9]+ \(no double that prints as the logged requested_single_stream_expected_latency_ns explains the series\)' "$TMP/out"

# ---- real findings stay findings ---------------------------------------------------------------------
# a TEST01 run whose audit.config was not applied: no warning, sampling target 0
T01="$SHARED/testdata/submission-samples/sample_1/closed/AMD/results/8xMI325x_2xEPYC-9655/stable-diffusion-xl/Offline/TEST01/performance/run_1/mlperf_log_detail.txt"
D="$TMP/t01/closed/X/compliance/sys/m/Offline/TEST01/performance/run_1"; mkdir -p "$D"
grep -v 'Found Audit Config' "$T01" | sed -E 's/"key": "(requested|effective)_accuracy_log_sampling_target", "value": [0-9]+/"key": "\1_accuracy_log_sampling_target", "value": 0/' > "$D/mlperf_log_detail.txt"
expect_exit 1 $M audit replay "$D/mlperf_log_detail.txt"
expect_grep "^MISMATCH +TEST01: warning 'Found Audit Config file \(audit.config\)' in .*: absent" "$TMP/out"
expect_grep '^MISMATCH +TEST01: effective_accuracy_log_sampling_target > 0 \(any target\), logged 0$' "$TMP/out"
# a Server log in an Offline results directory (no result is inferred from Server)
S=$(find "$MINI" -path '*/Server/performance/run_1/mlperf_log_detail.txt' | head -1)
O="$TMP/scen/closed/X/results/sys/m/Offline/performance/run_1"; mkdir -p "$O"; cp "$S" "$O/"
expect_exit 1 $M audit replay "$O/mlperf_log_detail.txt"
expect_grep '^MISMATCH +scenario: the log is a Server run in a Offline results directory' "$TMP/out"
# a SingleStream log in an Offline results directory is an inferred result: a note
cp "$L" "$O/mlperf_log_detail.txt"
expect_exit 0 $M audit replay "$O/mlperf_log_detail.txt"
expect_grep '^note +scenario: a SingleStream run in a Offline directory: the result inferred from SingleStream' "$TMP/out"

# ---- usage ---------------------------------------------------------------------------------------------
expect_exit 2 $M audit replay --loadgen-compat 9x "$L"
expect_exit 2 $M audit replay --json "$L"
expect_exit 2 $M audit replay --jobs 0 "$MINI"
finish
