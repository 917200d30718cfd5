#!/usr/bin/env bash
# make demo-network: the Network division end to end on this machine. Two SUT nodes (`mlsubmit
# sut serve`, the digits SUT, on loopback ports the kernel picks) and a LoadGen reaching them
# through the QDL (`--sut network:URL,URL`): an Offline accuracy run whose every query carries
# the sample's 64 pixel bytes to a node (scored: accuracy.txt, equal to a local run's), a Server
# performance run spread over both nodes, a TEST04 audit over the network, then SIGTERM to the
# nodes (each says how many samples it served). DEMO_NET_OUT (default demo-network-out) holds
# the logs.
set -euo pipefail
BIN=${1:?usage: demo-network.sh path/to/mlsubmit}
REPO_DIR=$(cd "$(dirname "$0")/.." && pwd)
OUT=${DEMO_NET_OUT:-demo-network-out}
DATA=${DEMO_DATA:-data}
export MLSUBMIT_NO_PROGRESS=${MLSUBMIT_NO_PROGRESS:-1}
step() { printf '\n== %s\n' "$*"; }
rm -rf "$OUT"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
DATA=$(cd "$DATA" && pwd)
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT

step "two SUT nodes (digits), each its own process and port"
for n in node-a node-b; do
  "$BIN" sut serve --sut digits --data "$DATA" --listen 127.0.0.1:0 --name "$n" --port-file "$OUT/$n.port" \
    2>"$OUT/$n.log" &
  PIDS+=($!)
done
URLS=""
for n in node-a node-b; do
  for _ in $(seq 100); do [ -s "$OUT/$n.port" ] && break; sleep 0.1; done
  [ -s "$OUT/$n.port" ] || { echo "demo-network: $n did not start: $(cat "$OUT/$n.log")" >&2; exit 1; }
  URLS="$URLS${URLS:+,}http://127.0.0.1:$(cat "$OUT/$n.port")"
  echo "$n: http://127.0.0.1:$(cat "$OUT/$n.port")  $(curl -s "http://127.0.0.1:$(cat "$OUT/$n.port")/info" 2>/dev/null || true)"
done
NET="network:$URLS"

step "Offline accuracy over the network (every sample's bytes travel to a node) -> $OUT/accuracy"
"$BIN" loadgen run --scenario Offline --mode accuracy --sut "$NET" --data "$DATA" -o "$OUT/accuracy" >/dev/null
"$BIN" accuracy digits "$OUT/accuracy/mlperf_log_accuracy.json" --data "$DATA" --rules "$REPO_DIR/rules/digits.json" >/dev/null
echo "accuracy.txt: $(cat "$OUT/accuracy/accuracy.txt")"

step "Server performance over both nodes -> $OUT/server"
"$BIN" loadgen run --scenario Server --mode performance --sut "$NET" --data "$DATA" --set min_duration_ms=2000 \
  --set server_target_qps=2000 --set server_target_latency_ns=100000000 --timeout 30s -o "$OUT/server" >/dev/null || true
grep -E '^(SUT name|Scheduled samples per second|Completed samples per second|Result is|99.00 percentile latency)' \
  "$OUT/server/mlperf_log_summary.txt"

step "TEST04 audit with the network SUT -> $OUT/audit"
MLSUBMIT_RULES=${MLSUBMIT_RULES:-$REPO_DIR/rules} "$BIN" audit run TEST04 --sut "$NET" --model digits --data "$DATA" \
  --scenario Server --set min_duration_ms=500 --set server_target_qps=1000 --set server_target_latency_ns=1000000000 \
  -o "$OUT/audit/Server" 2>&1 | grep -E '^TEST04' || true

step "SIGTERM to the nodes"
for p in "${PIDS[@]}"; do kill -TERM "$p"; done
for p in "${PIDS[@]}"; do wait "$p" || true; done
PIDS=()
for n in node-a node-b; do echo "$n: $(tail -1 "$OUT/$n.log")"; done
echo
echo "demo-network: done (the wire format and what the QDL does: docs/NETWORK.md)"
