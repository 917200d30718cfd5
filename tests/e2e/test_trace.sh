#!/usr/bin/env bash
# loadgen run --trace: a Chrome trace (chrome://tracing, Perfetto) with, for every sample, the
# reference's async Sample begin/end pair and instant events on the threads that issued it, sent
# its first token (token runs) and completed it; the run's recorded trace_path points at it.
. "$(dirname "$0")/lib.sh"
M=$MLSUBMIT
have_python || { echo "SKIP $(basename "$0"): python3 is needed to read the trace"; exit 0; }
expect_exit 0 $M loadgen run --scenario SingleStream --sut latency:fixed=1ms --total-samples 100 \
  --set min_duration_ms=100 --set min_query_count=100 --trace -o "$TMP/ss"
python3 - "$TMP/ss/mlperf_log_trace.json" > "$TMP/py.out" 2>&1 <<'PY' && ok || fail "SingleStream trace: $(cat "$TMP/py.out")"
import json, sys, collections
ev = json.load(open(sys.argv[1]))["traceEvents"]
begins = {e["id"]: e for e in ev if e.get("name") == "Sample" and e["ph"] == "b"}
assert len(begins) >= 100, len(begins)
inst = collections.defaultdict(dict)
for e in ev:
    if e.get("ph") == "i":
        assert e["tid"] > 0 and e["s"] == "t", e
        inst[e["args"]["sample_seq"]][e["name"]] = e
for seq, b in begins.items():
    i = inst[seq]
    assert "Issue" in i and "Complete" in i and "FirstToken" not in i, (seq, i)
    assert i["Issue"]["ts"] <= i["Complete"]["ts"], i
PY
# (VALID or not does not matter here: the trace is what is checked)
$M loadgen run --scenario Server --sut tokens:ttft=2ms,tpot=100us,len=4..8 --total-samples 100 --quiet \
  --set min_duration_ms=50 --set min_query_count=40 --set server_target_qps=100 --set use_token_latencies=1 \
  --trace -o "$TMP/tok" 2>/dev/null
python3 - "$TMP/tok/mlperf_log_trace.json" > "$TMP/py.out" 2>&1 <<'PY' && ok || fail "token trace: $(cat "$TMP/py.out")"
import json, sys, collections
ev = json.load(open(sys.argv[1]))["traceEvents"]
inst = collections.defaultdict(dict)
for e in ev:
    if e.get("ph") == "i":
        inst[e["args"]["sample_seq"]][e["name"]] = e
seqs = [e["id"] for e in ev if e.get("name") == "Sample" and e["ph"] == "b"]
assert len(seqs) >= 40
for s in seqs:
    i = inst[s]
    assert i["Issue"]["ts"] <= i["FirstToken"]["ts"] <= i["Complete"]["ts"], i
# the SUT answers from its own threads, the LoadGen issues from another
assert {i["Issue"]["tid"] for i in inst.values()} != {i["Complete"]["tid"] for i in inst.values()}
PY
if command -v sqlite3 >/dev/null; then
  [ "$(sqlite3 "$MLSUBMIT_RUNS_DB" "SELECT trace_path FROM runs WHERE id=1")" = "$(cd "$TMP/ss" && pwd -P)/mlperf_log_trace.json" ] \
    && ok || fail "the run's trace_path is not recorded"
fi
finish
