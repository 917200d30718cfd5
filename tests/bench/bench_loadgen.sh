#!/usr/bin/env bash
# LoadGen benchmarks (issue 2 targets), each reported with the machine's core count and, where
# it makes sense, as a ratio against a baseline measured in this same run.
#   BENCH_SERVER_SECONDS (default 60): length of the 500k QPS Server run (the reference's repro
#   uses 60 s and needed 9.5 GB to pre-generate its 30 M queries).
set -eu
M=${MLSUBMIT:-$(pwd)/build/mlsubmit}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/mlsubmit-bench-XXXXXX")
trap 'rm -rf "$TMP"' EXIT
export MLSUBMIT_RUNS_DB="$TMP/runs.sqlite"  # runs are recorded; never into the real home
export MLSUBMIT_NO_PROGRESS=1
SECS=${BENCH_SERVER_SECONDS:-60}
val() { grep -m1 "^$1" "$2" | sed 's/.*: *//'; }
rss() { sed -n 's/.*rss \([0-9]*\) KB.*/\1/p' "$1"; }
wall() { sed -n 's/^wall \([0-9.]*\) s.*/\1/p' "$1"; }
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"

cc -O2 -o "$TMP/baseline" tests/bench/loop_baseline.c
base=$("$TMP/baseline" 5000000)
echo "baseline: minimal issue/complete loop (2 clock reads + call + atomic): $base loops/s"

# 1. Offline, null SUT: >= 3M samples/s
/usr/bin/time -f "wall %e s, rss %M KB" -o "$TMP/t1" "$M" loadgen run --scenario Offline --sut null \
  --total-samples 1024 --set min_duration_ms=1000 --set offline_expected_qps=10000000 -o "$TMP/off" >/dev/null || true
sps=$(val "Samples per second" "$TMP/off/mlperf_log_summary.txt")
n=$(val "samples_per_query" "$TMP/off/mlperf_log_summary.txt")
e2e=$(awk -v n="$n" -v w="$(wall "$TMP/t1")" 'BEGIN{printf "%.0f", n / w}')
echo "offline null: $n samples, LoadGen-reported $sps samples/s (target >= 3e6); whole command incl. generation, results and logs: $e2e samples/s, peak RSS $(rss "$TMP/t1") KB"

# 2. SingleStream loop: >= 2M queries/s; 5M queries, results computed in < 2 s (whole run)
/usr/bin/time -f "wall %e s, rss %M KB" -o "$TMP/t2" "$M" loadgen run --scenario SingleStream --sut null \
  --total-samples 1024 --set min_duration_ms=0 --set min_query_count=5000000 -o "$TMP/ss" >/dev/null || true
qps=$(val "QPS w/ loadgen overhead" "$TMP/ss/mlperf_log_summary.txt")
ratio=$(awk -v a="$qps" -v b="$base" 'BEGIN{printf "%.2f", a / b}')
echo "singlestream null: $qps queries/s with loadgen overhead (target >= 2e6; ${ratio}x the minimal loop)"
echo "singlestream 5M queries: whole run (issue + results + early stopping + logs) $(wall "$TMP/t2") s (target: results < 2 s), peak RSS $(rss "$TMP/t2") KB"

# 3. Server, null SUT, 500k QPS, 10 ms p99 bound: VALID with peak RSS < 1 GB
/usr/bin/time -f "wall %e s, rss %M KB" -o "$TMP/t3" "$M" loadgen run --scenario Server --sut null \
  --total-samples 1000000 --set min_duration_ms=$((SECS * 1000)) --set min_query_count=270000 \
  --set server_target_qps=500000 --set server_target_latency_ns=10000000 -o "$TMP/srv" >/dev/null || true
res=$(val "Result is" "$TMP/srv/mlperf_log_summary.txt")
cps=$(val "Completed samples per second" "$TMP/srv/mlperf_log_summary.txt")
p99=$(val "99.00 percentile latency" "$TMP/srv/mlperf_log_summary.txt")
q=$(grep -o '"key": "generated_query_count", "value": [0-9]*' "$TMP/srv/mlperf_log_detail.txt" | awk '{print $NF}')
echo "server null 500k QPS, ${SECS} s: $res, $cps completed samples/s, p99 $p99 ns (bound 10 ms), $q queries, peak RSS $(rss "$TMP/t3") KB (target < 1 GB; reference 9.5 GB for 60 s), wall $(wall "$TMP/t3") s"
[ "$res" = VALID ] || { echo "server run not VALID"; exit 1; }
