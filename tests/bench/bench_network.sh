#!/usr/bin/env bash
# Network division benchmark (issue 12 goals), against the in-process null SUT measured in this
# same run: Server with the null SUT on two loopback nodes (`mlsubmit sut serve`) at rising QPS
# until the first INVALID run (goal: >= 50,000 queries/s VALID), the latency the network adds per
# query at 10,000 QPS (goal: p99 <= 200 us more), and Offline samples/s. Short runs
# (BENCH_NET_SECONDS, default 2 s each) so that the whole takes about a minute and a half.
# The added latency is measured BENCH_NET_REPS times (default 3), each time an in-process run
# then a network run back to back; added = network minus in-process percentile of the same
# repetition, and the median of the repetitions is reported. The latencies are mostly the
# machine's scheduling when it is shared: the load average is printed before and after, and the
# bench runs at the caller's niceness (printed; run it with nice -n 0 to measure).
# The summary's latencies run from each query's scheduled time, so they include how late the
# LoadGen's issuing thread was, which on a shared machine is most of an in-process p99. These runs
# also write the Chrome trace (--trace: the issue and completion times of every sample, kept in
# memory during the run and written after it), from which the bench reports a second measure: the
# time from the issue_query call to the completion, the part the SUT (here the QDL, the network
# and the nodes) takes, the same way for both runs; the median over the repetitions of its
# network-minus-in-process difference is the latency the network adds to a query once issued.
# The repetitions are made twice: as they are, then with --low-latency on every LoadGen run (and
# echo_floor holding the same request): the CPUs' wake-up latency requested down to 0 (Linux PM
# QoS), the knob a submitter sets for Server runs; without root the second set only warns.
# Each repetition also runs echo_floor.c, the floor of any networked SUT on this machine: Poisson
# arrivals at the same rate sent over loopback TCP to an echo server in another process (two
# thread wake-ups and two TCP trips, no HTTP, libcurl, libmicrohttpd or SUT); its percentiles
# minus the in-process ones are what no QDL could go below here.
set -eu
M=${MLSUBMIT:-$(pwd)/build/mlsubmit}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/mlsubmit-bench-XXXXXX")
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$TMP"' EXIT
export MLSUBMIT_NO_PROGRESS=1
SECS=${BENCH_NET_SECONDS:-2}
LL= # --low-latency for the second set of latency repetitions
val() { grep -m1 "^$1" "$2" | sed 's/.*: *//'; }
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), niceness $(nice)"
for n in a b; do
  "$M" sut serve --sut null --listen 127.0.0.1:0 --name "bench-$n" --port-file "$TMP/port.$n" 2>/dev/null &
  PIDS+=($!)
done
for _ in $(seq 100); do [ -s "$TMP/port.a" ] && [ -s "$TMP/port.b" ] && break; sleep 0.1; done
NET="network:http://127.0.0.1:$(cat "$TMP/port.a"),http://127.0.0.1:$(cat "$TMP/port.b")"
cc -O2 -pthread -o "$TMP/echo_floor" "$(dirname "$0")/echo_floor.c" -lm
COMMON="--total-samples 4096 --set min_duration_ms=$((SECS * 1000)) --set min_query_count=100"

server() { # server SUT QPS OUT [--trace]
  "$M" loadgen run --scenario Server --sut "$1" $COMMON --set server_target_qps="$2" \
    --set server_target_latency_ns=100000000 --timeout 30s -o "$3" ${4:-} $LL >/dev/null 2>&1 || true
}
# p50 and p99 of (completion - issue_query call) over the samples of a trace, in ns
sut_lat() {
  grep '"ph":"b"' "$1/mlperf_log_trace.json" |
    sed 's/.*"issue_start_ns":\([-0-9]*\),"complete_ns":\([-0-9]*\).*/\1 \2/' | awk '{print $2 - $1}' | sort -n |
    awk '{v[NR] = $1} END {a = int(NR * 0.5); b = int(NR * 0.99); print v[a < 1 ? 1 : a], v[b < 1 ? 1 : b]}'
}
# 1. Offline samples/s
for s in null "$NET"; do
  "$M" loadgen run --scenario Offline --sut "$s" $COMMON --set offline_expected_qps=200000 --timeout 30s \
    -o "$TMP/off" >/dev/null 2>&1 || true
  echo "offline ${s%%:*}: $(val 'Samples per second' "$TMP/off/mlperf_log_summary.txt") samples/s"
done
# 2. added latency at 10,000 QPS: repetitions of (in-process, network), median of the differences;
# then the same with --low-latency (a CPU wake-up latency request of 0 held during each run, and
# by echo_floor: the system's idle CPUs poll instead of halting; needs root, else each run warns)
median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : int((v[NR / 2] + v[NR / 2 + 1]) / 2)}'; }
latency_reps() { # latency_reps LABEL
  : >"$TMP/added50"; : >"$TMP/added99"; : >"$TMP/sut50"; : >"$TMP/sut99"; : >"$TMP/floor50"; : >"$TMP/floor99"
  for r in $(seq "${BENCH_NET_REPS:-3}"); do
    server null 10000 "$TMP/l0" --trace; server "$NET" 10000 "$TMP/l1" --trace
    line="server 10000 QPS$1 rep $r:"
    for p in 50.00 99.00; do
      a=$(val "$p percentile latency" "$TMP/l0/mlperf_log_summary.txt"); b=$(val "$p percentile latency" "$TMP/l1/mlperf_log_summary.txt")
      echo $((b - a)) >>"$TMP/added${p%%.*}"
      line="$line p${p%%.*} in-process $a ns, network $b ns, added $((b - a)) ns;"
    done
    echo "$line network $(val 'Result is' "$TMP/l1/mlperf_log_summary.txt"), load average $(cut -d' ' -f1 /proc/loadavg)"
    read -r a50 a99 < <(sut_lat "$TMP/l0" 2>/dev/null || true) || true; read -r b50 b99 < <(sut_lat "$TMP/l1" 2>/dev/null || true) || true
    a50=${a50:-0} a99=${a99:-0} b50=${b50:-0} b99=${b99:-0}
    echo $((b50 - a50)) >>"$TMP/sut50"; echo $((b99 - a99)) >>"$TMP/sut99"
    echo "  issue_query to completion (trace): p50 in-process $a50 ns, network $b50 ns; p99 in-process $a99 ns, network $b99 ns"
    read -r f50 f99 fs50 fs99 < <("$TMP/echo_floor" 10000 $((SECS * 10000)) ${LL:+low-latency} 2>/dev/null || true) || true
    f50=${f50:-0} f99=${f99:-0} fs50=${fs50:-0} fs99=${fs99:-0}
    echo $((f50 - $(val "50.00 percentile latency" "$TMP/l0/mlperf_log_summary.txt"))) >>"$TMP/floor50"
    echo $((f99 - $(val "99.00 percentile latency" "$TMP/l0/mlperf_log_summary.txt"))) >>"$TMP/floor99"
    echo "  floor (echo_floor, bare loopback TCP echo, Poisson 10,000/s): scheduled to answer p50 $f50 ns, p99 $f99 ns; sent to answer p50 $fs50 ns, p99 $fs99 ns"
  done
  echo "server 10000 QPS$1 added latency, median of ${BENCH_NET_REPS:-3}: p50 $(median <"$TMP/added50") ns, p99 $(median <"$TMP/added99") ns (goal p99 <= 200000)"
  echo "server 10000 QPS$1 added issue_query-to-completion time, median of ${BENCH_NET_REPS:-3}: p50 $(median <"$TMP/sut50") ns, p99 $(median <"$TMP/sut99") ns"
  echo "floor$1: bare loopback TCP echo minus in-process, median of ${BENCH_NET_REPS:-3}: p50 $(median <"$TMP/floor50") ns, p99 $(median <"$TMP/floor99") ns"
}
latency_reps ""
LL=--low-latency
latency_reps " --low-latency"
LL=
# 3. highest VALID Server QPS over two nodes
best=0
for q in 1000 5000 10000 20000 30000 40000 50000 60000 80000 100000 120000 150000; do
  server "$NET" $q "$TMP/s$q"
  r=$(val 'Result is' "$TMP/s$q/mlperf_log_summary.txt" || echo missing)
  echo "server over 2 nodes at $q QPS: $r, p99 $(val '99.00 percentile latency' "$TMP/s$q/mlperf_log_summary.txt" || echo ?) ns"
  [ "$r" = VALID ] || break
  best=$q
done
echo "server over 2 loopback nodes: highest VALID QPS tried $best (goal >= 50000)"
# control: the in-process null SUT at the goal's rate, same settings (a machine too busy for it
# cannot judge the network either)
server null 50000 "$TMP/c50"
echo "control: in-process null at 50000 QPS: $(val 'Result is' "$TMP/c50/mlperf_log_summary.txt" || echo missing), p99 $(val '99.00 percentile latency' "$TMP/c50/mlperf_log_summary.txt" || echo ?) ns"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg) (the 2 cores are shared: compare with the in-process lines)"
