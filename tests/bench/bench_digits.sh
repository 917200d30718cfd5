#!/usr/bin/env bash
# digits benchmark: FP32 vs INT8 Offline throughput (samples/s) measured in the same run, as a
# ratio; and each cheater's speed-up over its honest twin in the situation it exploits.
#   BENCH_DIGITS_MS (default 1000): min_duration of each Offline run.
set -eu
M=${MLSUBMIT:-$(pwd)/build/mlsubmit}
DATA=${MLSUBMIT_DATA:-data}
if [ ! -f "$DATA/digits/digits.csv.gz" ] || [ ! -f "$DATA/digits/digits-fp32.bin" ]; then
  echo "bench_digits: $DATA/digits is incomplete; run 'make data' first" >&2
  exit 1
fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/mlsubmit-bench-XXXXXX")
trap 'rm -rf "$TMP"' EXIT
export MLSUBMIT_RUNS_DB="$TMP/runs.sqlite"  # runs are recorded; never into the real home
export MLSUBMIT_NO_PROGRESS=1
MS=${BENCH_DIGITS_MS:-1000}
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
RUN="$M loadgen run --data $DATA --quiet"
qps() { grep -m1 '^Samples per second' "$1/mlperf_log_summary.txt" | sed 's/.*: *//'; }
p90() { grep -m1 '^90.00 percentile latency' "$1/mlperf_log_summary.txt" | sed 's/.*: *//'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
off() { # name spec extra-settings...
  local name=$1 spec=$2; shift 2
  $RUN --scenario Offline --mode performance --sut "$spec" --set min_duration_ms="$MS" "$@" -o "$TMP/$name" || true
}

# 1. FP32 vs INT8, alternating twice, best of each (the machine is shared)
for i in 1 2; do
  off fp32-$i digits --set offline_expected_qps=2000000
  off int8-$i digits:int8 --set offline_expected_qps=3000000
done
f=$(printf '%s\n' "$(qps "$TMP/fp32-1")" "$(qps "$TMP/fp32-2")" | sort -g | tail -1)
q=$(printf '%s\n' "$(qps "$TMP/int8-1")" "$(qps "$TMP/int8-2")" | sort -g | tail -1)
echo "digits Offline: FP32 $f samples/s, INT8 $q samples/s, INT8/FP32 = $(ratio "$q" "$f")"

# 2. cheaters vs honest twins (cost=20us emulates a bigger model; 2 workers)
SAME="--set performance_issue_same=1 --set performance_issue_same_index=3"
off cc cheat-cache:cost=20us $SAME --set offline_expected_qps=2000000
off cc-h digits:cost=20us $SAME --set offline_expected_qps=100000
echo "cheat-cache (same-index run, TEST04): $(qps "$TMP/cc") vs digits $(qps "$TMP/cc-h") samples/s: x$(ratio "$(qps "$TMP/cc")" "$(qps "$TMP/cc-h")")"
off cca cheat-cache:cap=all,cost=20us --set offline_expected_qps=2000000
off cc64 cheat-cache:cap=64,cost=20us --set offline_expected_qps=100000
echo "cheat-cache cap=all (normal run): $(qps "$TMP/cca") vs cap=64 $(qps "$TMP/cc64") samples/s: x$(ratio "$(qps "$TMP/cca")" "$(qps "$TMP/cc64")")"
off cp cheat-perf:cost=20us --set offline_expected_qps=2000000
off cp-h digits:cost=20us --set offline_expected_qps=100000
echo "cheat-perf (performance mode): $(qps "$TMP/cp") vs digits $(qps "$TMP/cp-h") samples/s: x$(ratio "$(qps "$TMP/cp")" "$(qps "$TMP/cp-h")")"
off cp0 cheat-perf --set offline_expected_qps=4000000
echo "cheat-perf without emulated cost: $(qps "$TMP/cp0") vs digits (FP32, above) $f samples/s: x$(ratio "$(qps "$TMP/cp0")" "$f")"
: > "$TMP/user.conf"
SS="--scenario SingleStream --mode performance --user-conf $TMP/user.conf --model digits --set min_duration_ms=0 --set min_query_count=1000 --set single_stream_expected_latency_ns=100000"
$RUN $SS --sut cheat-seed:fetch=1ms -o "$TMP/cs" || true
$RUN $SS --sut cheat-seed:fetch=1ms --set qsl_rng_seed=7975553102935885558 --set sample_index_rng_seed=11403566307062068064 \
  --set schedule_rng_seed=15816800565822761601 -o "$TMP/cs-alt" || true
echo "cheat-seed SingleStream p90: official seeds $(p90 "$TMP/cs") ns vs TEST05 seeds $(p90 "$TMP/cs-alt") ns: x$(ratio "$(p90 "$TMP/cs-alt")" "$(p90 "$TMP/cs")") faster"
