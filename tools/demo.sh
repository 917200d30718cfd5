#!/usr/bin/env bash
# make demo: the main job end to end on an embedded default. Each stage prints where its output
# is. (Stages are added as the modules land: LoadGen now; dataset, audits, check, package and
# report join them.)
set -euo pipefail
BIN=${1:?usage: demo.sh path/to/mlsubmit}
OUT=${DEMO_OUT:-demo-out}
rm -rf "$OUT"
mkdir -p "$OUT"
export MLSUBMIT_NO_PROGRESS=${MLSUBMIT_NO_PROGRESS:-}
echo "== mlsubmit demo ($("$BIN" --version)) -> $OUT/"
for scen in Offline SingleStream MultiStream Server; do
  sut=latency:uniform=1ms..2ms,seed=7
  [ $scen = Offline ] && sut=batch:max=64,workers=2,per_sample=250us
  "$BIN" loadgen run --scenario $scen --sut $sut --total-samples 1024 \
     --performance-samples 256 --set min_duration_ms=2000 --set offline_expected_qps=8000 \
     --set single_stream_expected_latency_ns=1500000 --set multi_stream_expected_latency_ns=2500000 \
     --set server_target_qps=1000 -o "$OUT/loadgen/$scen" || true
done
echo "== LoadGen logs: $OUT/loadgen/<scenario>/mlperf_log_{summary,detail}.txt"
