#!/usr/bin/env bash
# make demo-network (tools/demo-network.sh): two digits SUT nodes and a LoadGen through the network
# SUT, end to end. Asserts what does not depend on the machine's speed: the run ends, the digits
# accuracy over the network equals a local run's, the Server run names both nodes, both nodes
# served samples and stopped cleanly on SIGTERM.
. "$(dirname "$0")/lib.sh"
M=$MLSUBMIT
if [ ! -f "$REPO/data/digits/digits.csv.gz" ] || [ ! -f "$REPO/data/digits/digits-fp32.bin" ]; then
  echo "SKIP $(basename "$0"): data/digits is absent (make data)"; exit 0
fi
[ -n "${TEST_WRAP:-}" ] && { echo "SKIP $(basename "$0"): a demo, not run under ${TEST_WRAP%% *}"; exit 0; }
O=$TMP/demo
expect_exit 0 env DEMO_NET_OUT="$O" DEMO_DATA="$REPO/data" timeout 300 "$REPO/tools/demo-network.sh" "$M"
expect_grep '^accuracy.txt: accuracy=' "$TMP/out"
expect_exit 0 $M loadgen run --scenario Offline --mode accuracy --sut digits --data "$REPO/data" -o "$TMP/local"
expect_exit 0 $M accuracy digits "$TMP/local/mlperf_log_accuracy.json" --data "$REPO/data" --rules "$REPO/rules/digits.json"
cmp -s "$TMP/local/accuracy.txt" "$O/accuracy/accuracy.txt" && ok || fail "demo accuracy over the network differs from a local run"
expect_grep '"sut_name", "value": "Network SUT \(2 nodes: node-a, node-b\)"' "$O/server/mlperf_log_detail.txt"
for n in node-a node-b; do
  expect_grep 'Terminated: stopped after [1-9][0-9]* sample' "$O/$n.log" "$n"
done
finish
