#!/usr/bin/env bash
# Network division (docs/NETWORK.md): `mlsubmit sut serve` nodes on loopback (ports chosen free by
# the kernel, read from --port-file) and `loadgen run --sut network:URL,...`: every scenario VALID
# with two and three nodes, digits accuracy over the network equal to a local run, the faults
# (node down at start, node dying mid-run, garbage, unknown id, slow node), the token, SIGTERM.
. "$(dirname "$0")/lib.sh"
M=$MLSUBMIT
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done; rm -rf "$TMP"' EXIT

# start_node NAME SPEC [extra args]: sets NODE_URL and NODE_PID (waits at most 10 s)
start_node() {
  local name=$1 spec=$2; shift 2
  rm -f "$TMP/port.$name"
  $M sut serve --sut "$spec" --listen 127.0.0.1:0 --name "$name" --port-file "$TMP/port.$name" "$@" \
    2>"$TMP/node.$name.log" &
  NODE_PID=$!
  PIDS+=("$NODE_PID")
  for _ in $(seq 100); do [ -s "$TMP/port.$name" ] && break; sleep 0.1; done
  NODE_URL="http://127.0.0.1:$(cat "$TMP/port.$name" 2>/dev/null)"
}
stop_node() { kill "$1" 2>/dev/null; timeout 10 tail --pid="$1" -f /dev/null; }

# short runs (700 queries: enough for early stopping); a lenient latency bound keeps Server VALID
# on a busy 2-core machine
SHORT="--total-samples 256 --set min_duration_ms=0 --set min_query_count=700 --set single_stream_expected_latency_ns=500000
  --set multi_stream_expected_latency_ns=1000000 --set offline_expected_qps=1000 --set server_target_qps=200
  --set server_target_latency_ns=1000000000"
# ---- two and three nodes, every scenario VALID, null and latency SUTs -----------------------------
# valid_run DIR WHAT CMD...: the run ends VALID. Under valgrind (SLOW_TOOL) a Server run's latency
# bound is timing, which memcheck's 20-50x slowdown breaks: there it may also end INVALID (exit 1),
# as the other tests skip their timing checks; make test and make asan check it.
valid_run() {
  local dir=$1 what=$2; shift 2
  if [ -n "$SLOW_TOOL" ] && [[ " $* " == *" --scenario Server "* ]]; then
    "$@" >"$TMP/out" 2>"$TMP/err"; local rc=$?
    case $rc in 0|1) ok ;; *) fail "exit $rc (wanted 0, or 1 under valgrind): $*" ;; esac
  else
    expect_exit 0 "$@"
    expect_grep 'Result is : VALID' "$dir/mlperf_log_summary.txt" "$what"
  fi
}

for sut in null "latency:fixed=200us"; do
  start_node "$sut-a" "$sut"; A=$NODE_URL; PA=$NODE_PID
  start_node "$sut-b" "$sut"; B=$NODE_URL; PB=$NODE_PID
  start_node "$sut-c" "$sut"; C=$NODE_URL; PC=$NODE_PID
  for nodes in "$A,$B" "$A,$B,$C"; do
    for sc in SingleStream MultiStream Offline Server; do
      o="$TMP/run-${sut%%:*}-$sc-$(echo "$nodes" | tr -cd , | wc -c)"
      valid_run "$o" "$sut $sc over $nodes" timeout 120 $M loadgen run --scenario $sc --mode performance --sut "network:$nodes" $SHORT --timeout 20s -o "$o"
      expect_grep '"sut_name", "value": "Network SUT \([23] nodes: '"$sut"'-a, '"$sut"'-b' "$o/mlperf_log_detail.txt"
    done
  done
  # accuracy mode: every sample comes back with its payload (the 4-byte index)
  expect_exit 0 timeout 60 $M loadgen run --scenario Offline --mode accuracy --sut "network:$A,$B" --total-samples 64 -o "$TMP/acc-${sut%%:*}"
  n=$(grep -c '"qsl_idx"' "$TMP/acc-${sut%%:*}/mlperf_log_accuracy.json")
  [ "$n" = 64 ] && ok || fail "accuracy log over the network has $n entries (wanted 64)"
  have_python && python3 - "$TMP/acc-${sut%%:*}/mlperf_log_accuracy.json" <<'PY' && ok || fail "payloads over the network are not the sample indices"
import json, sys
for e in json.load(open(sys.argv[1])):
    assert int.from_bytes(bytes.fromhex(e["data"]), "little") == e["qsl_idx"], e
PY
  # both nodes got work (least outstanding work spreads a query)
  stop_node $PA; stop_node $PB; stop_node $PC
  for x in a b; do
    grep -qE 'stopped after [1-9][0-9]* sample' "$TMP/node.$sut-$x.log" && ok || fail "node $sut-$x served nothing: $(cat "$TMP/node.$sut-$x.log")"
  done
done

# ---- an Offline query: one share per node, each issued there as one query -------------------------
# (700 samples over two nodes, chunk=16: two shares of 350, not 44 frames of 16); a node whose
# --max-body takes fewer samples at once (max_query_samples in GET /info) gets its share cut there
start_node sh-a null; A=$NODE_URL; PA=$NODE_PID
start_node sh-b null; B=$NODE_URL; PB=$NODE_PID
valid_run "$TMP/share" "Offline shared over two nodes" timeout 120 $M loadgen run --scenario Offline --mode performance \
  --sut "network:$A,$B,chunk=16" $SHORT --timeout 20s -o "$TMP/share"
stop_node $PA; stop_node $PB
for x in a b; do
  expect_grep 'stopped after 350 sample\(s\) in 1 query$' "$TMP/node.sh-$x.log" "node sh-$x: its share as one query"
done
start_node sh-small null --max-body 2000; A=$NODE_URL; PA=$NODE_PID
curl -s "$A/info" | grep -q '"max_query_samples":71,' && ok || fail "max_query_samples of a 2000-byte --max-body: $(curl -s "$A/info")"
valid_run "$TMP/share1" "Offline over a node taking 71 samples at once" timeout 120 $M loadgen run --scenario Offline \
  --mode performance --sut "network:$A" $SHORT --timeout 20s -o "$TMP/share1"
stop_node $PA
expect_grep 'stopped after 700 sample\(s\) in 10 queries$' "$TMP/node.sh-small.log" "a share cut at max_query_samples"

# ---- tokens SUT: first tokens and token counts come back ------------------------------------------
start_node tok-a "tokens:ttft=1ms,tpot=50us,len=8..16,seed=3"; A=$NODE_URL; PA=$NODE_PID
start_node tok-b "tokens:ttft=1ms,tpot=50us,len=8..16,seed=3"; B=$NODE_URL; PB=$NODE_PID
valid_run "$TMP/tok" "tokens over the network" timeout 120 $M loadgen run --scenario Server --mode performance --sut "network:$A,$B" --total-samples 256 \
  --set min_duration_ms=0 --set min_query_count=700 --set server_target_qps=200 --set use_token_latencies=1 \
  --set server_ttft_latency=500000000 --set server_tpot_latency=50000000 --timeout 20s -o "$TMP/tok"
expect_grep 'TTFT' "$TMP/tok/mlperf_log_summary.txt" "tokens over the network"
stop_node $PA; stop_node $PB
# first tokens come back on their own, before the completion: with 20 tokens 5 ms apart the
# time to first token is far below the whole query's latency
start_node tok-c "tokens:ttft=1ms,tpot=5ms,len=20,seed=3"; A=$NODE_URL; PA=$NODE_PID
# (30 queries are too few for early stopping to call it VALID: exit 0 or 1, the latencies count)
timeout 120 $M loadgen run --scenario SingleStream --mode performance --sut "network:$A" --total-samples 64 \
  --set min_duration_ms=0 --set min_query_count=30 --set use_token_latencies=1 --timeout 30s -o "$TMP/tok3" >/dev/null 2>&1
rc=$?; case $rc in 0|1) ok ;; *) fail "tokens over the network, streamed: exit $rc" ;; esac
ttft=$(grep -m1 '^Mean First Token latency' "$TMP/tok3/mlperf_log_summary.txt" | sed 's/.*: *//')
lat=$(grep -m1 '^Mean latency' "$TMP/tok3/mlperf_log_summary.txt" | sed 's/.*: *//')
if [ -n "$SLOW_TOOL" ]; then  # a timing comparison: make test and make asan check it
  [ -n "$ttft" ] && [ -n "$lat" ] && ok || fail "no token latencies over the network"
else
  [ -n "$ttft" ] && [ -n "$lat" ] && [ "$ttft" -lt $((lat / 2)) ] && ok || fail "first token not streamed: mean TTFT '$ttft' ns, mean latency '$lat' ns"
fi
# a node whose SUT completes later (first token, then the completion 5 ms on): the answer
# streams, chunked, the first token's frame before the completion's (request: one sample, id 1,
# index 5, no data)
printf 'MSQ1\001\000\000\000\001\000\000\000\000\000\000\000\005\000\000\000\000\000\000\000\000\000\000\000' >"$TMP/one"
code=$(curl -s -D "$TMP/tokq.h" -o "$TMP/tokq.out" -w '%{http_code}' -H 'Expect:' --data-binary @"$TMP/one" "$A/query" 2>/dev/null || true)
[ "$code" = 200 ] && ok || fail "tokens node query: HTTP $code"
expect_grep '^Transfer-Encoding: chunked' "$TMP/tokq.h" "a streamed answer"
[ "$(od -An -tx1 -N 8 "$TMP/tokq.out" | tr -d ' \n')" = 4d53523101000000 ] && ok ||
  fail "streamed answer starts with: $(od -An -tx1 -N 8 "$TMP/tokq.out")"
stop_node $PA

# ---- digits: the accuracy of a network run is the local one -----------------------------------------
if [ -f "$REPO/data/digits/digits.csv.gz" ] && [ -f "$REPO/data/digits/digits-fp32.bin" ]; then
  start_node dg-a digits --data "$REPO/data"; A=$NODE_URL; PA=$NODE_PID
  start_node dg-b digits --data "$REPO/data"; B=$NODE_URL; PB=$NODE_PID
  expect_exit 0 timeout 120 $M loadgen run --scenario Offline --mode accuracy --sut digits --data "$REPO/data" -o "$TMP/dl"
  expect_exit 0 timeout 120 $M loadgen run --scenario Offline --mode accuracy --sut "network:$A,$B" --data "$REPO/data" -o "$TMP/dn"
  expect_exit 0 $M accuracy digits "$TMP/dl/mlperf_log_accuracy.json" --data "$REPO/data" --rules "$REPO/rules/digits.json"
  expect_exit 0 $M accuracy digits "$TMP/dn/mlperf_log_accuracy.json" --data "$REPO/data" --rules "$REPO/rules/digits.json"
  cmp -s "$TMP/dl/accuracy.txt" "$TMP/dn/accuracy.txt" && ok || fail "digits accuracy over the network differs: $(cat "$TMP/dl/accuracy.txt") vs $(cat "$TMP/dn/accuracy.txt")"
  # the node says it infers from the bytes the QDL sends, and refuses a sample without them
  curl -s "$A/info" | grep -q '"dataset":"digits","sample_size":64' && ok || fail "digits node /info: $(curl -s "$A/info")"
  printf 'MSQ1\001\000\000\000\001\000\000\000\000\000\000\000\005\000\000\000\000\000\000\000\000\000\000\000' >"$TMP/nodata"
  code=$(curl -s -o "$TMP/nodata.out" -w '%{http_code}' -H 'Expect:' --data-binary @"$TMP/nodata" "$A/query")
  [ "$code" = 400 ] && grep -q 'infers from the sample' "$TMP/nodata.out" && ok || fail "a digits sample without its bytes got HTTP $code: $(cat "$TMP/nodata.out")"
  # the node infers from the bytes sent, not from its own copy: 40 samples, all index 0, with
  # 40 different images, answer more than one class (its own sample 0 would give one)
  if have_python; then
    python3 - "$A" <<'PY' && ok || fail "a digits node does not infer from the bytes sent"
import struct, sys, urllib.request
n = 40
body = b"MSQ1" + struct.pack("<I", n)
for k in range(n):
    img = bytes((k * 7 + p * (k % 5 + 1)) % 17 for p in range(64))
    body += struct.pack("<QQI", k + 1, 0, 64) + img
r = urllib.request.urlopen(urllib.request.Request(sys.argv[1] + "/query", data=body,
    headers={"Content-Type": "application/octet-stream"})).read()
classes, off = set(), 0
while off < len(r):
    assert r[off:off + 4] == b"MSR1", r[off:off + 8]
    cnt = struct.unpack_from("<I", r, off + 4)[0]; off += 8
    for _ in range(cnt):
        sid, ntok, flags = struct.unpack_from("<QqB", r, off); off += 17
        ln = struct.unpack_from("<I", r, off)[0]; off += 4
        classes.add(struct.unpack_from("<i", r, off)[0]); off += ln
assert len(classes) > 1, classes
PY
  fi
  stop_node $PA; stop_node $PB
  stop_node $PA; stop_node $PB
else
  echo "SKIP digits over the network: data/digits is absent (make data)"
fi

# ---- audits over the network: TEST01 and TEST04 against two nodes --------------------------------
# (under valgrind the nodes and the LoadGen are 20-50x slower: a rate they all keep up with)
AQPS=2000; [ -n "$SLOW_TOOL" ] && AQPS=300
start_node au-a null; A=$NODE_URL; PA=$NODE_PID
start_node au-b null; B=$NODE_URL; PB=$NODE_PID
for t in TEST01 TEST04; do
  MLSUBMIT_RULES="$REPO/rules" expect_exit 0 timeout 300 $M audit run $t --sut "network:$A,$B" --total-samples 2000 --model digits \
    --scenario Server --set min_duration_ms=300 --set server_target_qps=$AQPS --set server_target_latency_ns=1000000000 -o "$TMP/audit/Server"
  expect_grep "^$t: PASS \(compat\)" "$TMP/out" "$t over the network"
  expect_grep '"sut_name", "value": "Network SUT \(2 nodes: au-a, au-b\)"' "$TMP/audit/Server/$t/performance/run_1/mlperf_log_detail.txt"
done
expect_grep '^TEST PASS$' "$TMP/audit/Server/TEST01/verify_accuracy.txt"
stop_node $PA; stop_node $PB

# ---- the token ------------------------------------------------------------------------------------
echo s3cret > "$TMP/token"
start_node tk null --token-file "$TMP/token"; A=$NODE_URL; PA=$NODE_PID
code=$(curl -s -o /dev/null -w '%{http_code}' "$A/health")
[ "$code" = 401 ] && ok || fail "a request without the token got HTTP $code (wanted 401)"
code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer wrong' "$A/name")
[ "$code" = 401 ] && ok || fail "a request with a wrong token got HTTP $code (wanted 401)"
code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer s3cret' "$A/health")
[ "$code" = 200 ] && ok || fail "a request with the token got HTTP $code (wanted 200)"
expect_exit 4 timeout 30 $M loadgen run --scenario SingleStream --sut "network:$A" $SHORT -o "$TMP/notok"
expect_grep 'HTTP 401' "$TMP/err"
expect_exit 0 timeout 60 $M loadgen run --scenario SingleStream --sut "network:$A,token-file=$TMP/token" $SHORT -o "$TMP/tok2"
# bounded request sizes: 413
head -c 200000 /dev/zero > "$TMP/big"
stop_node $PA
start_node small null --max-body 1000; A=$NODE_URL; PA=$NODE_PID
code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Expect:' --data-binary @"$TMP/big" "$A/query")
[ "$code" = 413 ] && ok || fail "a too large request got HTTP $code (wanted 413)"
code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Expect:' --data-binary 'garbage' "$A/query")
[ "$code" = 400 ] && ok || fail "a garbage request got HTTP $code (wanted 400)"
# an answer complete when the node first looks (the null SUT answers from issue_query) goes in
# one piece with Content-Length, not chunked, and is the documented bytes
curl -s -D "$TMP/one.h" -o "$TMP/one.out" -H 'Expect:' --data-binary @"$TMP/one" "$A/query"
expect_grep '^Content-Length: 33' "$TMP/one.h" "a complete answer in one piece"
expect_no_grep '^Transfer-Encoding' "$TMP/one.h" "a complete answer in one piece"
[ "$(od -An -tx1 "$TMP/one.out" | tr -d ' \n')" = 4d5352310100000001000000000000000000000000000000000400000005000000 ] && ok ||
  fail "one-sample answer: $(od -An -tx1 "$TMP/one.out")"
# inputs that once crashed the request decoder (tests/fuzz/regressions/net_request-*): 400
for r in "$REPO"/tests/fuzz/regressions/net_request-*; do
  [ -e "$r" ] || continue
  code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Expect:' --data-binary @"$r" "$A/query")
  [ "$code" = 400 ] && ok || fail "$(basename "$r"): HTTP $code (wanted 400)"
done
# SIGTERM ends a node cleanly (exit 0, says so)
kill -TERM $PA
timeout 10 tail --pid=$PA -f /dev/null
wait $PA; rc=$?
[ "$rc" = 0 ] && ok || fail "node exit $rc after SIGTERM (wanted 0)"
expect_grep 'Terminated: stopped after' "$TMP/node.small.log"

# ---- faults -------------------------------------------------------------------------------------------
# duplicate names
start_node same null; A=$NODE_URL; PA=$NODE_PID
rm -f "$TMP/port.same"; $M sut serve --sut null --listen 127.0.0.1:0 --name same --port-file "$TMP/port.same" 2>/dev/null &
PB=$!; PIDS+=("$PB"); for _ in $(seq 100); do [ -s "$TMP/port.same" ] && break; sleep 0.1; done
B="http://127.0.0.1:$(cat "$TMP/port.same")"
expect_exit 2 timeout 30 $M loadgen run --scenario SingleStream --sut "network:$A,$B" $SHORT -o "$TMP/dup"
expect_grep "same name 'same'" "$TMP/err"
# a node down at start (B stopped: its port is closed)
stop_node $PB
expect_exit 4 timeout 30 $M loadgen run --scenario SingleStream --sut "network:$A,$B" $SHORT -o "$TMP/down"
expect_grep "node $B is not reachable" "$TMP/err"
stop_node $PA
# a node dying mid-run: named, samples lost counted, logs marked incomplete, exit 4
# killed 1.5 s into the run (12 s under valgrind, whose start alone takes seconds), while the
# nodes' SUT still holds the samples of the Offline query (each answered only after HOLD: the
# run cannot end before the kill, however fast the machine; a 1 ms SUT did, in under a second)
HOLD=$([ -n "$SLOW_TOOL" ] && echo 40s || echo 4s)
start_node live "latency:fixed=$HOLD"; A=$NODE_URL; PA=$NODE_PID
start_node dies "latency:fixed=$HOLD"; B=$NODE_URL; PB=$NODE_PID
( sleep "$([ -n "$SLOW_TOOL" ] && echo 12 || echo 1.5)"; kill -9 $PB ) &
expect_exit 4 timeout 90 $M loadgen run --scenario Offline --mode performance --sut "network:$A,$B,chunk=16" --total-samples 256 \
  --set offline_expected_qps=1000 --set min_duration_ms=20000 -o "$TMP/mid"
expect_grep "node 'dies' \($B\) failed mid-run: .*; [0-9]+ sample\(s\) sent to it were lost" "$TMP/err"
expect_grep 'logs written so far are in place and marked incomplete' "$TMP/err"
expect_grep 'Test incomplete' "$TMP/mid/mlperf_log_detail.txt"
stop_node $PA
# a slow node: --timeout ends the test, exit 4, logs written
start_node slow "latency:fixed=30s"; A=$NODE_URL; PA=$NODE_PID
expect_exit 4 timeout 60 $M loadgen run --scenario SingleStream --sut "network:$A" $SHORT --timeout 1s -o "$TMP/slow"
[ -s "$TMP/slow/mlperf_log_detail.txt" ] && ok || fail "no detail log after a slow node's timeout"
kill -9 $PA
# garbage and an unknown id (a fake node)
if have_python; then
  for mode in garbage unknown; do
    rm -f "$TMP/port.fake"
    python3 - "$mode" "$TMP/port.fake" <<'PY' &
import http.server, struct, sys
mode, portfile = sys.argv[1], sys.argv[2]
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def send(self, body, ctype="text/plain"):
        self.send_response(200); self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body)
    def do_GET(self):
        if self.path == "/info":
            self.send(b'{"name":"fake","sut":"fake","total_sample_count":256,"performance_sample_count":256}')
        else:
            self.send(b"fake")
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        n = struct.unpack_from("<I", body, 4)[0]
        if mode == "garbage":
            self.send(b"not a response at all", "application/octet-stream"); return
        out = b"MSR1" + struct.pack("<I", n)
        for i in range(n):
            sid = struct.unpack_from("<Q", body, 8 + 20 * i)[0]
            out += struct.pack("<QqB", sid + 12345, 0, 0) + struct.pack("<I", 0)
        self.send(out, "application/octet-stream")
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
open(portfile, "w").write(str(s.server_address[1]))
s.serve_forever()
PY
    PF=$!; PIDS+=("$PF")
    for _ in $(seq 100); do [ -s "$TMP/port.fake" ] && break; sleep 0.1; done
    F="http://127.0.0.1:$(cat "$TMP/port.fake")"
    expect_exit 4 timeout 60 $M loadgen run --scenario SingleStream --sut "network:$F" $SHORT -o "$TMP/fake-$mode"
    if [ $mode = garbage ]; then expect_grep "node 'fake' .* answered garbage: query response" "$TMP/err"
    else expect_grep "node 'fake' .* answered an unknown id" "$TMP/err"; fi
    expect_grep 'Test incomplete' "$TMP/fake-$mode/mlperf_log_detail.txt"
    kill $PF 2>/dev/null; wait $PF 2>/dev/null
  done
else
  echo "SKIP garbage/unknown-id faults: python3 is absent"
fi

finish
