#!/usr/bin/env bash
# Hostile inputs (tests/hostile/mkhostile.sh, generated here): every command meets each with a
# diagnostic naming the file, a non-zero exit where it is an error, no crash or sanitizer report,
# bounded memory and time, and no write outside its output directory.
# When run as root the commands run as 'nobody' (setpriv) so that unreadable files are real.
. "$(dirname "$0")/lib.sh"
H=$TMP/h
bash "$REPO/tests/hostile/mkhostile.sh" "$H" >/dev/null 2>"$TMP/mk.err" || { fail "mkhostile.sh failed"; cat "$TMP/mk.err" >&2; finish; }
chmod 755 "$TMP" "$H"
OUT=$TMP/out
mkdir -p "$OUT" && chmod 777 "$OUT"
AS=()
M=$MLSUBMIT
DIGITS=$REPO/data/digits
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  AS=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  # A checkout inside a private directory (mktemp -d, mode 0700: CI's fresh clones) is closed
  # to 'nobody': the commands then run from a copy of the binary and its data in $TMP, laid out
  # as a build tree (build/mlsubmit beside rules/ and schemas/).
  if ! "${AS[@]}" test -x "$MLSUBMIT_REAL" || ! "${AS[@]}" test -r "$REPO/rules/v5.1.json"; then
    APP=$TMP/app
    mkdir -p "$APP/build" "$APP/data"
    cp "$MLSUBMIT_REAL" "$APP/build/mlsubmit"
    cp -r "$REPO/rules" "$REPO/schemas" "$APP/"
    [ -d "$REPO/data/digits" ] && cp -r "$REPO/data/digits" "$APP/data/"
    chmod -R a+rX "$APP"
    M=$APP/build/mlsubmit
    DIGITS=$APP/data/digits
    if [ -n "${TEST_WRAP:-}" ]; then
      printf '#!/bin/sh\nexec %s "%s" "$@"\n' "$TEST_WRAP" "$M" > "$APP/mlsubmit-wrapped"
      chmod 755 "$APP/mlsubmit-wrapped"
      M=$APP/mlsubmit-wrapped
    fi
    echo "note: $MLSUBMIT_REAL is closed to user nobody; running a copy in $APP"
  fi
fi
ASAN=0
nm "$MLSUBMIT" 2>/dev/null | grep -q __asan_init && ASAN=1
case "${TEST_WRAP:-}" in *valgrind*) ASAN=1 ;; esac   # memory figures are the tool's, not ours
snapshot() { find "$H" -printf '%p %s %T@ %m\n' 2>/dev/null | sort; }
snapshot > "$TMP/before"

# hrun NAME WANT-EXIT(s, e.g. "1" or "1|3") cmd...: runs unprivileged with time/RSS limits checks
hrun() {
  local name=$1 want=$2; shift 2
  local t0 t1 rc
  t0=$(date +%s)
  ( cd "$OUT" && "${AS[@]}" /usr/bin/time -f '%M' -o "$OUT/$name.rss" timeout 120 "$@" ) >"$OUT/$name.out" 2>"$OUT/$name.err"
  rc=$?
  t1=$(date +%s)
  cat "$OUT/$name.out" "$OUT/$name.err" > "$OUT/$name.all"
  if [[ "$rc" =~ ^($want)$ ]]; then ok; else fail "$name: exit $rc, wanted $want"; sed 's/^/    /' "$OUT/$name.err" | head -5 >&2; fi
  if grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:|Segmentation fault|core dumped' "$OUT/$name.err"; then
    fail "$name: crash or sanitizer report"; grep -m3 -E 'Sanitizer|runtime error' "$OUT/$name.err" >&2
  else ok; fi
  [ $((t1 - t0)) -lt 100 ] && ok || fail "$name: took $((t1 - t0)) s"
  if [ "$ASAN" = 0 ]; then
    local kb; kb=$(grep -Eo '^[0-9]+$' "$OUT/$name.rss" | tail -1)
    [ -n "$kb" ] && [ "$kb" -lt 1048576 ] && ok || fail "$name: peak RSS ${kb:-?} KB"
  fi
}
names() { # names NAME pattern...: the output of NAME names each pattern
  local n=$1; shift
  for p in "$@"; do grep -qF -- "$p" "$OUT/$n.all" && ok || fail "$n: no diagnostic naming '$p'"; done
}

# --- the checker on three hostile trees ---
hrun check_tree 1 "$M" check "$H/tree" --version v5.1 --csv "$OUT/t.csv" --json "$OUT/t.json"
names check_tree outside_link.txt loopdir/up with_newline big60.bin
hrun check_content 1 "$M" check "$H/content" --version v5.1 --csv "$OUT/c.csv" --json "$OUT/c.json"
names check_content "depth" "too big integer"
hrun check_logs 1 "$M" check "$H/logs" --version v5.1 --csv "$OUT/l.csv" --json "$OUT/l.json"
names check_logs mlperf_log_detail.txt
hrun check_file 3 "$M" check "$H/files/empty.txt" --version v5.1 --no-csv
names check_file empty.txt
hrun check_v6 "1" "$M" check "$H/tree" --version v6.0 --no-csv
# --- dataset checksums ---
hrun manifest_tree 0 "$M" dataset manifest "$H/tree" -o "$OUT/tree.sha256"
hrun manifest_logs 3 "$M" dataset manifest "$H/logs" -o "$OUT/logs.sha256"
names manifest_logs mlperf_log_summary.txt
[ ! -e "$OUT/logs.sha256" ] && ok || fail "manifest_logs: a manifest was written despite an unreadable file"
hrun verify_escape 3 "$M" dataset verify "$H/files/escape.sha256" --root "$H/tree"
names verify_escape escape.sha256
hrun verify_absolute 3 "$M" dataset verify "$H/files/absolute.sha256" --root "$H/tree"
names verify_absolute absolute.sha256
hrun verify_notmanifest 3 "$M" dataset verify "$H/files/random.bin" --root "$H/tree"
names verify_notmanifest random.bin
# --- audits ---
hrun replay_garbage "1|3" "$M" audit replay "$H/files/garbage_detail.txt"
names replay_garbage garbage_detail.txt
hrun replay_bigseed "1|3" "$M" audit replay "$H/files/bigseed_detail.txt"
names replay_bigseed bigseed_detail.txt
hrun replay_random "1|3" "$M" audit replay "$H/files/random.bin"
names replay_random random.bin
mkdir -p "$TMP/ref/performance/run_1" "$TMP/aud/performance/run_1" && chmod -R 755 "$TMP/ref" "$TMP/aud"
cp "$H/files/garbage_detail.txt" "$TMP/ref/performance/run_1/mlperf_log_detail.txt"
cp "$H/files/random.bin" "$TMP/ref/performance/run_1/mlperf_log_summary.txt"
cp "$H/files/empty.txt" "$TMP/aud/performance/run_1/mlperf_log_summary.txt"
chmod -R a+r "$TMP/ref" "$TMP/aud"
hrun verify_test04 "1|3" "$M" audit verify TEST04 --reference "$TMP/ref" --audit "$TMP/aud" --output "$OUT/v04"
names verify_test04 mlperf_log_summary.txt
# --- accuracy logs, configs, rules ---
hrun accuracy_notjson "1|3" "$M" accuracy digits "$H/files/notjson.json" -o "$OUT/acc.txt" --data "$DIGITS"
names accuracy_notjson notjson.json
hrun checkconf_bad 1 "$M" loadgen check-conf "$H/files/bad.conf" --model resnet50 --scenario Offline
names checkconf_bad bad.conf
hrun checkconf_random 1 "$M" loadgen check-conf "$H/files/random.bin" --model resnet50 --scenario Offline
hrun rules_deep "1|3" "$M" rules lint "$H/files/deep.json"
names rules_deep deep.json
hrun rules_bigint "1|3" "$M" rules lint "$H/files/bigint.json"

# nothing was written outside the output directory
snapshot > "$TMP/after"
diff -q "$TMP/before" "$TMP/after" >/dev/null && ok || { fail "files under the hostile trees changed"; diff "$TMP/before" "$TMP/after" | head -5 >&2; }
finish
