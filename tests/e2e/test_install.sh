#!/usr/bin/env bash
# make install PREFIX=...: a user program compiled against the installed header and library
# runs a test with its own SUT.
. "$(dirname "$0")/lib.sh"
command -v cc >/dev/null || { echo "SKIP: no C compiler"; exit 0; }
# make install also installs the digits dataset and model (make data); without them on this
# machine (no network for make data), the rest is installed and tested
DATA=${MLSUBMIT_DATA:-data}
HAVE_DATA=0; [ -f "$DATA/digits/digits.csv.gz" ] && [ -f "$DATA/digits/digits-fp32.bin" ] && HAVE_DATA=1
[ "$HAVE_DATA" = 1 ] && INST="" || INST="INSTALL_DATA=0"
make -s install PREFIX="$TMP/prefix" PYTHONDIR="$TMP/pysite" $INST >/dev/null 2>&1 && ok || fail "make install"
# the Python module goes to PYTHONDIR (default: the interpreter's site-packages)
# (the installed one: under make asan, BUILD=build-asan reaches this make install, and an ASan
# module cannot be imported by a plain interpreter)
inst=$(ls "$TMP"/pysite/mlperf_loadgen*.so 2>/dev/null | head -1)
if [ -n "$inst" ] && ! nm -D "$inst" | grep -q __asan_; then
  PYTHONPATH="$TMP/pysite" python3 -c 'import mlperf_loadgen as lg; lg.TestSettings()' && ok || fail "import the installed mlperf_loadgen"
fi
cat > "$TMP/user.c" <<'C'
#include <stdio.h>
#include <loadgen/loadgen.h>
static const char *nm(void *c) { (void)c; return "user SUT"; }
static void issue(void *c, lg_test *t, const lg_query_sample *s, size_t n) {
    (void)c;
    for (size_t i = 0; i < n; i++) {
        lg_response r = {s[i].id, 0, 0, 0};
        lg_query_samples_complete(t, &r, 1);
    }
}
static void flush(void *c) { (void)c; }
int main(int argc, char **argv) {
    (void)argc;
    lg_sut sut = {NULL, nm, issue, flush};
    lg_qsl qsl = {NULL, nm, 100, 100, NULL, NULL};
    lg_test_settings s; lg_settings_default(&s);
    s.scenario = LG_OFFLINE; s.min_duration_ms = 0;
    lg_log_settings l; lg_log_settings_default(&l); l.outdir = argv[1];
    lg_run_result r; ms_err e;
    if (lg_start_test(&sut, &qsl, &s, &l, NULL, &r, &e)) { fprintf(stderr, "%s\n", e.msg); return 1; }
    printf("%s %llu\n", r.valid ? "VALID" : "INVALID", (unsigned long long)r.sample_count);
    return 0;
}
C
PK=$(pkg-config --libs sqlite3 libarchive libcrypto libpcre2-8 jansson)
# under `make asan` the installed library is instrumented: link with the same sanitizers
SAN=""
nm "$TMP/prefix/lib/libmlsubmit.a" 2>/dev/null | grep -q __asan_ && SAN="-fsanitize=address,undefined"
cc $SAN -std=c11 -I"$TMP/prefix/include/mlsubmit" "$TMP/user.c" "$TMP/prefix/lib/libmlsubmit.a" $PK -lm -pthread \
   -o "$TMP/user" 2>"$TMP/cc.err" && ok || { fail "compiling against the installed header"; cat "$TMP/cc.err" >&2; }
mkdir -p "$TMP/logs"
expect_exit 0 "$TMP/user" "$TMP/logs"
expect_grep '^VALID 100$' "$TMP/out"
expect_grep '^Samples per second' "$TMP/logs/mlperf_log_summary.txt"
# the installed binary finds its rules and data from any working directory, with nothing set
if [ "$HAVE_DATA" = 1 ]; then
  I="$TMP/prefix/share/mlsubmit/data/digits"
  cmp -s "$I/digits.csv.gz" "$DATA/digits/digits.csv.gz" && cmp -s "$I/digits-fp32.bin" "$DATA/digits/digits-fp32.bin" &&
    ok || fail "make install: the digits dataset and model are not in share/mlsubmit/data/digits"
  mkdir -p "$TMP/elsewhere"
  IB="$TMP/prefix/bin/mlsubmit"
  ( cd "$TMP/elsewhere" && env -u MLSUBMIT_DATA -u MLSUBMIT_RULES -u MLSUBMIT_DATA_DIR "$IB" digits eval ) > "$TMP/out" 2> "$TMP/err" &&
    ok || { fail "installed: digits eval"; head -3 "$TMP/err" >&2; }
  expect_grep '^FP32 validation +accuracy=96\.648%, good=519, total=537$' "$TMP/out" "installed digits eval"
  ( cd "$TMP/elsewhere" && env -u MLSUBMIT_DATA -u MLSUBMIT_RULES -u MLSUBMIT_DATA_DIR "$IB" loadgen run --sut digits \
      --scenario Offline --mode submission --set min_duration_ms=0 --set min_query_count=1 \
      --set offline_expected_qps=2000 -o "$TMP/elsewhere/run" ) > "$TMP/out" 2> "$TMP/err" &&
    ok || { fail "installed: loadgen run --sut digits"; head -3 "$TMP/err" >&2; }
  ( cd "$TMP/elsewhere/run" && env -u MLSUBMIT_DATA -u MLSUBMIT_RULES -u MLSUBMIT_DATA_DIR "$IB" accuracy digits \
      mlperf_log_accuracy.json ) > "$TMP/out" 2> "$TMP/err" && ok || { fail "installed: accuracy digits"; head -3 "$TMP/err" >&2; }
  expect_grep '^accuracy=96\.648%, good=519, total=537$' "$TMP/elsewhere/run/accuracy.txt" "installed: submission run accuracy"
  ( cd "$TMP/elsewhere" && env -u MLSUBMIT_DATA -u MLSUBMIT_RULES -u MLSUBMIT_DATA_DIR "$IB" audit run TEST04 --sut digits \
      --model digits --scenario Server --set min_duration_ms=300 --set server_target_qps=2000 \
      --set server_target_latency_ns=100000000 -o "$TMP/elsewhere/aud/Server" ) > "$TMP/out" 2> "$TMP/err" &&
    ok || { fail "installed: audit run --sut digits"; tail -3 "$TMP/err" >&2; }
  expect_grep '^TEST04: PASS' "$TMP/out" "installed: audit run"
else
  echo "SKIP (part) $(basename "$0"): $DATA/digits is incomplete (run make data)"
fi
finish
