#!/usr/bin/env bash
# mlsubmit serve: every page and API endpoint over an index and a runs database (curl: status
# codes, content types, 400 with a message on bad parameters, 404 on unknown ids, path traversal,
# oversized and non-GET requests refused), the server stops by itself, and, when Chromium is
# available, each page loads without console errors (screenshots kept in build/serve-shots/).
. "$(dirname "$0")/lib.sh"
M=$MLSUBMIT
command -v curl >/dev/null || { echo "SKIP $(basename "$0"): curl is not installed"; exit 0; }
bash tests/e2e/lib/mkround.sh "$TMP/u" --version v6.1 --submitters 2 >/dev/null
expect_exit 0 $M index "$TMP/u" --db "$TMP/ix.sqlite" --version v6.1
# a second round in the same index: the round filter (the index's round column)
bash tests/e2e/lib/mkround.sh "$TMP/u51" --version v5.1 --submitters 1 >/dev/null
expect_exit 0 $M index "$TMP/u51" --db "$TMP/ix.sqlite" --version v5.1
RUNS="$TMP/runs.sqlite"
RUN="loadgen run --scenario SingleStream --total-samples 100 --set min_duration_ms=100 --set min_query_count=200 --runs-db $RUNS"
expect_exit 0 $M $RUN --sut latency:fixed=1ms --output "$TMP/o1" --trace
expect_exit 0 $M $RUN --sut latency:fixed=2ms --output "$TMP/o2"

# usage and bad databases
expect_exit 2 timeout 20 $M serve --db "$TMP/ix.sqlite" --listen nonsense --max-seconds 3
expect_exit 2 timeout 20 $M serve --db "$TMP/ix.sqlite" --listen 127.0.0.1:99999 --max-seconds 3
# (bounded in case one of them starts serving after all)
B="--listen 127.0.0.1:0 --max-seconds 3"
expect_exit 3 timeout 20 $M serve --db "$TMP/none.sqlite" $B
expect_exit 3 timeout 20 $M serve --db "$RUNS" $B
expect_grep 'not an index' "$TMP/err"
expect_exit 3 timeout 20 $M serve --runs "$TMP/ix.sqlite" $B
expect_grep 'not a runs database' "$TMP/err"

# start (bounded by --max-seconds; SIGTERM below), loopback, any free port
start=$(date +%s%N)
$M serve --db "$TMP/ix.sqlite" --runs "$RUNS" --listen 127.0.0.1:0 --max-seconds 500 > "$TMP/serve.out" 2> "$TMP/serve.err" &
SPID=$!
trap 'kill $SPID 2>/dev/null; rm -rf "$TMP"' EXIT
for _ in $(seq 100); do grep -q listening "$TMP/serve.out" && break; sleep 0.05; done
ms=$(( ($(date +%s%N) - start) / 1000000 ))
U=$(sed -n 's/^mlsubmit serve: listening on //p' "$TMP/serve.out")
case "$U" in http://127.0.0.1:[0-9]*/) ok ;; *) fail "no listening line: $(cat "$TMP/serve.out" "$TMP/serve.err")"; finish; exit 1 ;; esac
echo "serve: listening after ${ms} ms"
# get PATH [CURL-ARGS]: status, content type and body in $TMP/body
get() { local p=$1; shift; curl -s --path-as-is -o "$TMP/body" -D "$TMP/hdr" -w '%{http_code} %{content_type}' "$@" "$U${p#/}"; }
expect_get() { # expect_get STATUS TYPE-PREFIX PATH [CURL-ARGS]
  local got; got=$(get "$3" "${@:4}")
  case "$got" in "$1 $2"*) ok ;; *) fail "GET $3: got '$got', expected '$1 $2'"; head -c 300 "$TMP/body" >&2 ;; esac
}
ID=$(sqlite3 "$TMP/ix.sqlite" "SELECT rowid FROM systems WHERE system='edge1' LIMIT 1" 2>/dev/null || echo 2)

# pages
for p in / /rounds /results "/results?model=resnet50&sort=result&order=desc" "/results?division=closed&scenario=Offline" \
         "/systems/$ID" /history "/history?model=resnet50&scenario=Offline" /runs /runs/1 /runs/2 "/compare?ids=1,2"; do
  expect_get 200 text/html "$p"
  expect_grep '^(Content-Security-Policy|content-security-policy): default-src .none.' "$TMP/hdr" "CSP on $p"
  expect_no_grep '(src|href)="https?://' "$TMP/body" "$p loads nothing from the network"
done
get "/results?model=resnet50&sort=result&order=desc" >/dev/null
[ "$(grep -c '<tr data-model="resnet50"' "$TMP/body")" -ge 2 ] && ok || fail "results filter: no resnet50 rows"
expect_no_grep '<tr data-model="llama' "$TMP/body" "results filter lets other models through"
get "/systems/$ID" >/dev/null
expect_grep '<h2>Files</h2>' "$TMP/body" "system page"
expect_grep '[0-9a-f]{64}' "$TMP/body" "system files with SHA-256"
get /runs/1 >/dev/null
expect_grep 'class="lat"' "$TMP/body" "run page: percentiles chart"
expect_grep 'href="/runs/1/trace"' "$TMP/body" "run page links the trace"
expect_get 200 application/json /runs/1/trace
cmp -s "$TMP/body" "$TMP/o1/mlperf_log_trace.json" && ok || fail "the trace served is not the run's"
expect_get 404 text/html /runs/2/trace
get "/history?model=resnet50&scenario=Offline" >/dev/null
expect_grep 'class="bar"' "$TMP/body" "history chart"
get "/compare?ids=1,2" >/dev/null
expect_grep 'latency:fixed=2ms' "$TMP/body" "compare: the differing SUT"

# API
for p in /api/rounds /api/results "/api/results?round=v6.1&suite=edge&availability=available&submitter=Org1&sort=model" \
         "/api/systems/$ID" /api/runs /api/runs/1 "/api/compare?ids=1,2" "/api/history?model=resnet50&scenario=Offline"; do
  expect_get 200 application/json "$p"
done
if have_python; then
  get "/api/results?division=closed&scenario=Offline&sort=result&order=desc" >/dev/null
  python3 - "$TMP/body" <<'PY' && ok || fail "api/results filter and sort"
import json, sys
r = json.load(open(sys.argv[1]))["results"]
assert r and all(x["division"] == "closed" and x["scenario"] == "Offline" for x in r), r
v = [x["result"] for x in r]; assert v == sorted(v, reverse=True), v
PY
  get "/api/compare?ids=1,2" >/dev/null
  python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); assert c["runs"]==[1,2] and any(s["name"]=="sut" for s in c["settings"])' "$TMP/body" && ok || fail "api/compare"
fi
# the round filter: query parameter (one round or a comma-separated list) and the pages' controls
if have_python; then
  cnt() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"]; print(len(r), " ".join(sorted({x["round"] for x in r})))' "$TMP/body"; }
  n51=$(sqlite3 "$TMP/ix.sqlite" "SELECT count(*) FROM results WHERE round='v5.1' AND row_type='performance'" 2>/dev/null ||
        python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM results WHERE round=? AND row_type=?", ("v5.1","performance")).fetchone()[0])' "$TMP/ix.sqlite")
  get "/api/results?round=v5.1" >/dev/null
  [ "$(cnt)" = "$n51 v5.1" ] && ok || fail "api/results?round=v5.1: $(cnt), expected $n51 v5.1"
  get "/api/results?round=v6.1" >/dev/null
  case "$(cnt)" in "0 "*|*v5.1*) fail "api/results?round=v6.1: $(cnt)" ;; *" v6.1") ok ;; *) fail "api/results?round=v6.1: $(cnt)" ;; esac
  get "/api/results?round=v5.1,v6.1" >/dev/null
  case "$(cnt)" in *" v5.1 v6.1") ok ;; *) fail "api/results?round=v5.1,v6.1: $(cnt)" ;; esac
  get "/api/results?round=v4.0" >/dev/null
  [ "$(cnt)" = "0 " ] && ok || fail "api/results?round=v4.0: $(cnt)"
  get /api/rounds >/dev/null
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert [r["round"] for r in d["rounds"]]==["v5.1","v6.1"], d["rounds"]' "$TMP/body" &&
    ok || fail "api/rounds: not one row per indexed round"
  get "/api/history?model=resnet50&scenario=Offline&round=v5.1" >/dev/null
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); b=d["best_per_round"]; assert b and {r["round"] for r in b}=={"v5.1"} and d["rounds"]==["v5.1","v6.1"], d' "$TMP/body" &&
    ok || fail "api/history?round=v5.1"
  get "/api/history?model=resnet50&scenario=Offline" >/dev/null
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert [r["round"] for r in d["best_per_round"]]==["v5.1","v6.1"], d["best_per_round"]' "$TMP/body" &&
    ok || fail "api/history: not one best result per round"
fi
expect_get 200 text/html "/results?round=v5.1"
expect_grep '<select name="round"><option value="">\(all\)</option><option value="v5.1" selected>v5.1</option><option value="v6.1">v6.1</option>' "$TMP/body" "results page: the round control"
expect_no_grep '<td>v6.1</td>' "$TMP/body" "results page ?round=v5.1 shows v6.1 rows"
expect_grep '<td>v5.1</td>' "$TMP/body" "results page ?round=v5.1: no v5.1 rows"
expect_get 200 text/html "/results?round=v5.1,v6.1"
expect_grep '<option value="v5.1,v6.1" selected>v5.1,v6.1</option></select>' "$TMP/body" "results page: a round list stays selected"
expect_grep '<td>v6.1</td>' "$TMP/body" "results page ?round=v5.1,v6.1: no v6.1 rows"
expect_get 200 text/html "/history?model=resnet50&scenario=Offline&round=v6.1"
expect_grep '<option value="v6.1" selected>v6.1</option>' "$TMP/body" "history page: the round control"
expect_get 200 text/html /
expect_grep 'href="/results\?round=v5.1"' "$TMP/body" "rounds page links each round's results"

# bad parameters: 400 with a message
for p in "/api/results?sort=evil" "/api/results?order=up" "/api/results?limit=0" "/api/results?bogus=1" \
         "/api/compare?ids=1" "/api/compare?ids=1,x" "/api/compare" "/api/systems/abc" "/api/runs/-1" "/api/history" \
         "/results?sort=evil" "/api/results?model=$(printf 'a%.0s' $(seq 300))"; do
  expect_get 400 "" "$p"
  grep -qi 'error\|<h1>400' "$TMP/body" && ok || fail "$p: 400 without a message"
done
# unknown ids and pages: 404
for p in /api/systems/99999 /api/runs/99999 "/api/compare?ids=1,99999" /runs/99999 /systems/99999 /nosuch /api/nosuch; do
  expect_get 404 "" "$p"
done
# path traversal, oversized requests, other methods
for p in "/../../etc/passwd" "/runs/1/../../../etc/passwd" "/api/runs/1/..%2f..%2fetc" "/%2e%2e/%2e%2e/etc/passwd"; do
  got=$(get "$p"); case "$got" in 400*|404*) ok ;; *) fail "traversal $p: $got" ;; esac
  expect_no_grep 'root:' "$TMP/body" "traversal $p"
done
got=$(get "/api/runs?x=$(head -c 100000 /dev/zero | tr '\0' a)"); case "$got" in 414*|431*|413*) ok ;; *) fail "oversized request target: $got" ;; esac
got=$(get /api/runs -H "X-Big: $(head -c 60000 /dev/zero | tr '\0' a)"); case "$got" in 4*) ok ;; *) fail "oversized header: $got" ;; esac
got=$(get /api/runs -X POST --data-binary @"$TMP/ix.sqlite"); case "$got" in 405*) ok ;; *) fail "POST: $got" ;; esac
got=$(get /api/runs -X DELETE); case "$got" in 405*) ok ;; *) fail "DELETE: $got" ;; esac
# the databases were opened read-only: nothing changed
[ "$(sqlite3 "$RUNS" 'SELECT count(*) FROM runs')" = 2 ] && ok || fail "runs database changed"

# headless Chromium: each page without console errors, a screenshot of each
CHROME=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -n "$CHROME" ]; then
  SHOTS="$REPO/build/serve-shots"; mkdir -p "$SHOTS"
  run_chrome() { local prof; prof=$(mktemp -d "$TMP/prof-XXXXXX")
    timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
      --disable-component-update --disable-sync --disable-dev-shm-usage --user-data-dir="$prof" \
      --enable-logging=stderr --v=0 "$@" 2>>"$TMP/chrome.err"; }
  for p in "rounds:/" "results:/results?model=resnet50&sort=result&order=desc" "system:/systems/$ID" \
           "history:/history?model=resnet50&scenario=Offline" "runs:/runs" "run:/runs/1" "compare:/compare?ids=1,2"; do
    name=${p%%:*}; path=${p#*:}
    : > "$TMP/chrome.err"
    run_chrome --dump-dom "$U${path#/}" > "$TMP/dom.html"
    grep -q '</nav>' "$TMP/dom.html" && ok || fail "chromium: $name page did not render"
    expect_no_grep 'CONSOLE|Uncaught|Refused|SyntaxError|ReferenceError|TypeError' "$TMP/chrome.err" "chromium console on $name"
    run_chrome --screenshot="$SHOTS/$name.png" --window-size=1280,1000 "$U${path#/}" >/dev/null
    [ "$(stat -c %s "$SHOTS/$name.png" 2>/dev/null || echo 0)" -gt 10000 ] && ok || fail "screenshot of $name missing or blank"
  done
else
  echo "SKIP chromium part of $(basename "$0"): chromium is not installed (make deps-browser)"
fi

# the server stops by itself (SIGTERM here; --max-seconds is tested below)
kill -TERM $SPID; wait $SPID; rc=$?
[ $rc = 0 ] && ok || fail "serve exit $rc on SIGTERM"
start=$(date +%s)
expect_exit 0 timeout 30 $M serve --runs "$RUNS" --listen 127.0.0.1:0 --max-seconds 1
[ $(( $(date +%s) - start )) -le 5 ] && ok || fail "--max-seconds 1 did not stop the server"
finish
