#!/usr/bin/env bash
# --low-latency of `loadgen run`, `audit run` and `sut serve` (common/pmqos.h): the CPU wake-up latency request
# on /dev/cpu_dma_latency is held while the command runs (the node keeps the device open; a run
# goes on VALID), and where it cannot be made (no permission) the command warns, naming the
# device, and runs without it.
. "$(dirname "$0")/lib.sh"
M=$MLSUBMIT
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done; rm -rf "$TMP"' EXIT
DEV=/dev/cpu_dma_latency
[ -e "$DEV" ] || { echo "SKIP $(basename "$0"): $DEV is absent (not Linux, or no PM QoS)"; exit 0; }
SHORT="--total-samples 256 --set min_duration_ms=0 --set min_query_count=200 --set offline_expected_qps=1000"

if [ -w "$DEV" ] && [ -z "$SLOW_TOOL" ]; then
  # a node that holds the request while it serves
  $M sut serve --sut null --listen 127.0.0.1:0 --name ll-a --port-file "$TMP/port" --low-latency 2>"$TMP/node.log" &
  NP=$!
  PIDS+=("$NP")
  for _ in $(seq 100); do [ -s "$TMP/port" ] && break; sleep 0.1; done
  held=0
  for fd in /proc/$NP/fd/*; do [ "$(readlink "$fd" 2>/dev/null)" = "$DEV" ] && held=1; done
  [ "$held" = 1 ] && ok || fail "sut serve --low-latency does not hold $DEV open"
  expect_no_grep 'warning' "$TMP/node.log" "sut serve --low-latency with permission: no warning"
  # a run over it, with the request held by the LoadGen node too
  expect_exit 0 timeout 60 $M loadgen run --scenario Offline --sut "network:http://127.0.0.1:$(cat "$TMP/port")" \
    $SHORT --low-latency --timeout 20s -o "$TMP/net"
  expect_grep 'Result is : VALID' "$TMP/net/mlperf_log_summary.txt" "network Offline with --low-latency"
  expect_no_grep 'warning' "$TMP/err" "loadgen run --low-latency with permission: no warning"
  # SIGTERM: the node stops cleanly, and the request ends with it
  kill -TERM $NP
  timeout 10 tail --pid=$NP -f /dev/null
  wait $NP && ok || fail "sut serve --low-latency did not exit 0 on SIGTERM"
  expect_grep 'stopped after [1-9]' "$TMP/node.log" "the node served the run"
  # an in-process run
  expect_exit 0 $M loadgen run --scenario SingleStream --sut null $SHORT --low-latency -o "$TMP/ss"
  expect_grep 'Result is : VALID' "$TMP/ss/mlperf_log_summary.txt" "in-process SingleStream with --low-latency"
  # an audit's runs
  # (Server: its performance is the scheduled QPS, which no load on the machine moves)
  expect_exit 0 $M audit run TEST04 --sut null --model resnet50 --scenario Server --output "$TMP/au/Server" \
    --total-samples 2000 --set min_duration_ms=300 --set server_target_qps=20000 \
    --set server_target_latency_ns=1000000000 --low-latency --quiet --no-record
  expect_no_grep 'warning' "$TMP/err" "audit run --low-latency with permission: no warning"
else
  echo "note $(basename "$0"): $DEV is not writable here (or under valgrind): the held-request part is skipped"
fi

# without the permission: a warning naming the device, and the run goes on
NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
chmod o+x "$TMP"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && [ -z "$SLOW_TOOL" ] &&
   $NOBODY $M loadgen suts >/dev/null 2>&1; then
  mkdir -p "$TMP/nobody" && chmod 777 "$TMP/nobody"
  expect_exit 0 $NOBODY env HOME="$TMP/nobody" \
    $M loadgen run --scenario SingleStream --sut null $SHORT --low-latency --no-record -o "$TMP/nobody/ss"
  expect_grep "warning: --low-latency: $DEV: cannot open it" "$TMP/err" "the warning names the device"
  expect_grep 'going on without it' "$TMP/err" "the warning says the run goes on"
  expect_grep 'Result is : VALID' "$TMP/nobody/ss/mlperf_log_summary.txt" "the run without the request"
else
  echo "note $(basename "$0"): not root, no setpriv, or the binary not reachable by another user: the no-permission part is skipped"
fi
finish
