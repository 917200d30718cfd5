#!/usr/bin/env bash
# Python binding benchmark (issue 17): one null-SUT harness (tests/bench/py_null_sut.py, completing
# inside issue_query) on mlsubmit's mlperf_loadgen module and on the reference module built here
# from ../shared/upstream/loadgen/v5.1.1 with Debian's pybind11 (python3-pybind11) into a
# temporary directory (never committed). Skipped when ../shared or pybind11 is absent.
#   Server: completed samples/s at an offered load past the reference's saturation
#   Offline: samples/s
# Goal: >= 1.5x the reference on both. BENCH_PY_MS sets each run's duration (default 3000 ms).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
ref_src="$root/../shared/upstream/loadgen/v5.1.1"
PYTHON=${PYTHON:-python3}
ms=${BENCH_PY_MS:-3000}
server_qps=${BENCH_PY_SERVER_QPS:-700000}
offline_qps=${BENCH_PY_OFFLINE_QPS:-1000000}
ourmod=$(ls "$root"/build/python/mlperf_loadgen*.so 2>/dev/null | head -1)
if [ -z "$ourmod" ]; then echo "bench_python: skipped (build/python/mlperf_loadgen is not built: make python)"; exit 0; fi
if [ ! -d "$ref_src" ]; then echo "bench_python: skipped (../shared/upstream/loadgen/v5.1.1 is absent)"; exit 0; fi
pyb_inc=$("$PYTHON" -c 'import pybind11; print(pybind11.get_include())' 2>/dev/null)
[ -n "$pyb_inc" ] || { [ -f /usr/include/pybind11/pybind11.h ] && pyb_inc=/usr/include; }
if [ -z "$pyb_inc" ]; then echo "bench_python: skipped (pybind11 is not installed: make deps installs python3-pybind11)"; exit 0; fi
command -v g++ >/dev/null || { echo "bench_python: skipped (no g++ to build the reference module)"; exit 0; }

work=$(mktemp -d "${TMPDIR:-/tmp}/bench_python.XXXXXX")
trap 'rm -rf "$work"' EXIT
# the reference module, cached per source tree and interpreter (a rebuild takes ~2 min on 2 cores)
pyinc=$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
ext=$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
# the flags of a pip build of the reference (Pybind11Extension over the interpreter's CFLAGS)
refflags="-std=c++17 -O3 -DNDEBUG -fPIC -fvisibility=hidden -DMAJOR_VERSION=5 -DMINOR_VERSION=1"
key=$(cat "$ref_src"/*.cc "$ref_src"/*.h "$ref_src"/bindings/python_api.cc | cat - <(echo "$pyinc $pyb_inc $refflags") | sha1sum | cut -c1-12)
refdir="${TMPDIR:-/tmp}/mlsubmit-bench-refloadgen-$key"
if [ ! -f "$refdir/mlperf_loadgen$ext" ]; then
  echo "bench_python: building the reference module (g++, pybind11) into $refdir"
  b="$refdir.build"; mkdir -p "$b/generated"   # objects kept: a rebuild only redoes what changed
  mkdir -p "$b/bindings"; cp -p -u "$ref_src"/*.cc "$ref_src"/*.h "$b/"; cp -p -u "$ref_src"/bindings/* "$b/bindings/"
  # generated files of the reference build (setup.py): the embedded mlperf.conf and version info
  "$PYTHON" - "$ref_src/mlperf.conf" "$b/mlperf_conf.h" <<'PY'
import sys
t = open(sys.argv[1]).read().replace('\\', '\\\\').replace('"', '\\"').replace('\n', '\\n"\n"')
open(sys.argv[2], 'w').write('const char* mlperf_conf =\n"%s";\n' % t)
PY
  cat > "$b/generated/version_generated.cc.new" <<'CC'
#include <string>
namespace mlperf {
#define S(f, v) const std::string& f() { static const std::string s(v); return s; }
S(LoadgenVersion, "5.1.1") S(LoadgenGitRevision, "bench") S(LoadgenBuildDateLocal, "bench")
S(LoadgenBuildDateUtc, "bench") S(LoadgenGitCommitDate, "bench") S(LoadgenGitStatus, "")
S(LoadgenGitLog, "") S(LoadgenSha1OfFiles, "0 bench")
}
CC
  cmp -s "$b/generated/version_generated.cc.new" "$b/generated/version_generated.cc" || \
    mv "$b/generated/version_generated.cc.new" "$b/generated/version_generated.cc"
  objs=()
  for f in early_stopping issue_query_controller loadgen logging test_settings_internal utils version results \
           bindings/python_api generated/version_generated; do
    objs+=("$b/$f.o")
    [ -f "$b/$f.o" ] && [ "$b/$f.o" -nt "$b/$f.cc" ] && continue
    ( cd "$b" && nice g++ $refflags -I. -I"$pyb_inc" -I"$pyinc" -c "$f.cc" -o "$f.o" ) &
    while [ "$(jobs -rp | wc -l)" -ge 2 ]; do wait -n; done
  done
  wait
  mkdir -p "$refdir.tmp"
  if ! g++ -shared -o "$refdir.tmp/mlperf_loadgen$ext" "${objs[@]}" -pthread; then
    echo "bench_python: FAILED to build the reference module"; rm -rf "$refdir.tmp"; exit 1
  fi
  rm -rf "$refdir"; mv "$refdir.tmp" "$refdir"
fi

run() { # module-dir scenario qps -> samples/s
  local out
  out=$(cd "$work" && PYTHONPATH="$1" nice timeout 300 "$PYTHON" "$here/py_null_sut.py" "$2" "$3" "$ms" "$work/logs_$2" 2>"$work/err") || {
    echo "bench_python: the $2 run with $1 failed:" >&2; cat "$work/err" >&2; echo 0; return; }
  echo "$out" | awk '{print $3}'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
check() { awk -v r="$1" 'BEGIN { exit !(r != "n/a" && r >= 1.5) }' && echo "goal met" || echo "BELOW the 1.5x goal"; }

ok=0
for sc in Server Offline; do
  q=$server_qps; [ $sc = Offline ] && q=$offline_qps
  ref=$(run "$refdir" $sc $q)
  ours=$(run "$root/build/python" $sc $q)
  r=$(ratio "$ours" "$ref")
  printf 'python %-7s offered %7s/s: mlsubmit %10.0f samples/s, reference %10.0f samples/s, ratio %sx (%s)\n' \
    $sc "$q" "$ours" "$ref" "$r" "$(check "$r")"
done
exit 0
