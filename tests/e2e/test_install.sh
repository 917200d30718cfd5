#!/usr/bin/env bash
# make install PREFIX=...: a user program compiled against the installed header and library
# runs a test with its own SUT.
. "$(dirname "$0")/lib.sh"
command -v cc >/dev/null || { echo "SKIP: no C compiler"; exit 0; }
make -s install PREFIX="$TMP/prefix" PYTHONDIR="$TMP/pysite" >/dev/null 2>&1 && ok || fail "make install"
# the Python module goes to PYTHONDIR (default: the interpreter's site-packages)
if ls build/python/mlperf_loadgen*.so >/dev/null 2>&1 && ! nm -D build/python/mlperf_loadgen*.so | grep -q __asan_; then
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
finish
