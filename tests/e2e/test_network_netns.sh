#!/usr/bin/env bash
# Network division across network namespaces, as separate machines would be: the LoadGen in one
# namespace, each SUT node in its own, joined to the LoadGen's by a veth pair whose both ends
# delay every packet with tc netem. Needs root and `ip netns` (skips cleanly otherwise); without
# the netem qdisc (a kernel without sch_netem) the namespaces run undelayed and the delay check
# says SKIP.
# Only lower bounds on latency are asserted (a busy machine only adds to them).
. "$(dirname "$0")/lib.sh"
M=$MLSUBMIT_REAL
DELAY_MS=2
skip() { echo "SKIP $(basename "$0"): $*"; rm -rf "$TMP"; exit 0; }
[ "$(id -u)" = 0 ] || skip "needs root"
command -v ip >/dev/null && command -v tc >/dev/null || skip "ip or tc is absent"
[ -n "${TEST_WRAP:-}" ] && skip "not under ${TEST_WRAP%% *} (the nodes run in namespaces through ip netns exec)"
P=mls$$                    # unique names: other tests may use namespaces at the same time
LG=${P}lg NS=()
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${PIDS[@]}"; do timeout 10 tail --pid="$p" -f /dev/null 2>/dev/null; done
  for n in "${NS[@]}"; do ip netns del "$n" 2>/dev/null; done
  rm -rf "$TMP"
}
trap cleanup EXIT
NETEM=1
ip netns add "$LG" 2>/dev/null || skip "ip netns add is not allowed here"
NS+=("$LG")
ip -n "$LG" link set lo up
# node i: namespace ${P}n<i>, veth ${P}l<i> (LoadGen side, 10.77.<i>.1) <-> ${P}s<i> (10.77.<i>.2)
for i in 1 2; do
  n=${P}n$i; NS+=("$n")
  ip netns add "$n" || skip "ip netns add failed"
  ip -n "$n" link set lo up
  ip link add "${P}l$i" type veth peer name "${P}s$i" || skip "veth pairs are not allowed here"
  ip link set "${P}l$i" netns "$LG"; ip link set "${P}s$i" netns "$n"
  ip -n "$LG" addr add "10.77.$i.1/24" dev "${P}l$i"; ip -n "$LG" link set "${P}l$i" up
  ip -n "$n" addr add "10.77.$i.2/24" dev "${P}s$i"; ip -n "$n" link set "${P}s$i" up
  if [ $NETEM = 1 ]; then
    tc -n "$LG" qdisc add dev "${P}l$i" root netem delay ${DELAY_MS}ms 2>"$TMP/tc.err" &&
      tc -n "$n" qdisc add dev "${P}s$i" root netem delay ${DELAY_MS}ms 2>>"$TMP/tc.err" || NETEM=0
  fi
done
[ $NETEM = 1 ] || echo "SKIP netem delay (the namespaces run undelayed): $(head -1 "$TMP/tc.err")"

URLS=""
for i in 1 2; do
  ip netns exec ${P}n$i "$M" sut serve --sut null --listen 10.77.$i.2:0 --name "node-$i" --port-file "$TMP/port.$i" \
    2>"$TMP/node.$i.log" &
  PIDS+=($!)
done
for i in 1 2; do
  for _ in $(seq 100); do [ -s "$TMP/port.$i" ] && break; sleep 0.1; done
  URLS="$URLS${URLS:+,}http://10.77.$i.2:$(cat "$TMP/port.$i")"
done
# the LoadGen reaches both nodes; the namespaces are separate: node 1 cannot reach node 2, and a
# node listens on its own namespace's address only, not on the LoadGen's loopback
for i in 1 2; do
  ip netns exec "$LG" curl -s -o /dev/null --max-time 5 "http://10.77.$i.2:$(cat "$TMP/port.$i")/health" && ok || fail "the LoadGen does not reach node $i"
done
ip netns exec ${P}n1 curl -s -o /dev/null --max-time 2 "http://10.77.2.2:$(cat "$TMP/port.2")/health" && fail "node 1 reaches node 2's namespace" || ok
ip netns exec "$LG" curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$(cat "$TMP/port.1")/health" && fail "node 1 answers on the LoadGen's loopback" || ok

# Server, VALID across the namespaces; SingleStream shows the fabric's delay in every query
expect_exit 0 timeout 120 ip netns exec "$LG" "$M" loadgen run --scenario Server --sut "network:$URLS" --total-samples 256 \
  --set min_duration_ms=500 --set min_query_count=500 --set server_target_qps=500 --set server_target_latency_ns=1000000000 \
  --timeout 30s -o "$TMP/server"
expect_grep 'Result is : VALID' "$TMP/server/mlperf_log_summary.txt"
expect_grep '"sut_name", "value": "Network SUT \(2 nodes: node-1, node-2\)"' "$TMP/server/mlperf_log_detail.txt"
timeout 120 ip netns exec "$LG" "$M" loadgen run --scenario SingleStream --sut "network:$URLS" --total-samples 64 \
  --set min_duration_ms=0 --set min_query_count=50 --timeout 30s -o "$TMP/ss" >/dev/null 2>&1
min=$(grep -m1 '^Min latency' "$TMP/ss/mlperf_log_summary.txt" | sed 's/.*: *//')
# a query crosses the veth pair twice (request and answer), each way delayed at both ends
if [ $NETEM = 1 ]; then
  [ -n "$min" ] && [ "$min" -ge $((2 * DELAY_MS * 1000000)) ] && ok || fail "min latency '$min' ns below the fabric's $((2 * DELAY_MS)) ms"
else
  [ -n "$min" ] && ok || fail "no SingleStream summary across the namespaces"
fi
for i in 1 2; do
  kill -TERM "${PIDS[$((i - 1))]}"; timeout 10 tail --pid="${PIDS[$((i - 1))]}" -f /dev/null
  grep -qE 'stopped after [1-9][0-9]* sample' "$TMP/node.$i.log" && ok || fail "node $i: $(cat "$TMP/node.$i.log")"
done
finish
