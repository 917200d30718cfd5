#!/usr/bin/env bash
# mlsubmit infer: acceptance on the published v5.1 mini tree (recreate the inferred directories
# file by file, then the checker reproduces expected_summary.csv), dry run, idempotence,
# never overwriting, --upstream naming, the unified layout, errors.
source tests/e2e/lib.sh
M() { "$MLSUBMIT" "$@"; }

# ---- generated trees (no shared data needed) ----
bash tests/e2e/lib/mkround.sh "$TMP/v6" --version v6.1 >/dev/null
E6="$TMP/v6/closed/Org1/results/edge1/resnet50"
rm -rf "$E6/MultiStream" "$E6/Offline"
expect_exit 0 M infer "$TMP/v6" --version v6.1 --dry-run
expect_grep "would copy closed/Org1/results/edge1/resnet50/SingleStream -> closed/Org1/results/edge1/resnet50/Offline" "$TMP/out"
expect_grep "I3: early_stopping_latency_ms \* 8 / 1e6" "$TMP/out"
[ ! -e "$E6/Offline" ] && [ ! -e "$E6/MultiStream" ] && ok || fail "dry run changed the tree"
expect_exit 0 M infer "$TMP/v6" --version v6.1
expect_grep "^summary: 4 directories copied" "$TMP/out"  # edge1 resnet50, and the open division's SingleStream-only model
diff -r "$E6/SingleStream" "$E6/Offline" >/dev/null && diff -r "$E6/SingleStream" "$E6/MultiStream" >/dev/null && ok ||
  fail "v6 copies differ from SingleStream (TESTxx, measurements.json must come along)"
[ -d "$E6/Offline/TEST01" ] && ok || fail "v6: the compliance directories were not copied"
# the datacenter model gets nothing (Server/Offline are not inferable)
expect_no_grep "dc1" "$TMP/out"
# idempotent: nothing left to infer
expect_exit 0 M infer "$TMP/v6" --version v6.1
expect_grep "^summary: 0 directories copied" "$TMP/out"
expect_exit 0 M check "$TMP/v6" --version v6.1 --no-csv --quiet
ls "$TMP"/v6/closed/Org1/results/edge1/resnet50/.*tmp* >/dev/null 2>&1 && fail "temporary directory left" || ok

# never overwrites, existence case-insensitive: an existing lower-case 'offline' stops the copy
bash tests/e2e/lib/mkround.sh "$TMP/v5" --version v5.1 >/dev/null
R5="$TMP/v5/closed/Org1/results/edge1/resnet50"
for t in results measurements compliance; do
  mv "$TMP/v5/closed/Org1/$t/edge1/resnet50/Offline" "$TMP/v5/closed/Org1/$t/edge1/resnet50/offline"
  rm -rf "$TMP/v5/closed/Org1/$t/edge1/resnet50/MultiStream"
done
expect_exit 0 M infer "$TMP/v5" --version v5.1
[ ! -e "$R5/Offline" ] && [ -d "$R5/MultiStream" ] && ok || fail "infer copied over an existing offline directory"
expect_grep "results/edge1/resnet50/SingleStream -> .*results/edge1/resnet50/MultiStream" "$TMP/out"
expect_grep "measurements/edge1/resnet50/SingleStream -> .*measurements/edge1/resnet50/MultiStream" "$TMP/out"
expect_grep "compliance/edge1/resnet50/SingleStream -> .*compliance/edge1/resnet50/MultiStream" "$TMP/out"

# --upstream: lower-case names
bash tests/e2e/lib/mkround.sh "$TMP/up" --version v5.1 >/dev/null
U="$TMP/up/closed/Org1/results/edge1/resnet50"
rm -rf "$U/MultiStream" "$U/Offline" "$TMP"/up/closed/Org1/{measurements,compliance}/edge1/resnet50/{MultiStream,Offline}
expect_exit 0 M infer "$TMP/up" --version v5.1 --upstream
[ -d "$U/offline" ] && [ -d "$U/multistream" ] && [ -d "$TMP/up/closed/Org1/compliance/edge1/resnet50/offline" ] && ok ||
  fail "--upstream: expected lower-case offline/multistream"
expect_exit 0 M check "$TMP/up" --version v5.1 --no-csv --quiet

# errors
expect_exit 2 M infer
expect_exit 2 M infer "$TMP/v6" --bogus
expect_exit 3 M infer "$TMP/none" --version v5.1
expect_exit 2 M infer "$TMP/v6" --version v9.9
mkdir -p "$TMP/bad/closed/X/results/sysA/resnet50/SingleStream"
expect_exit 1 M infer "$TMP/bad" --version v5.1
expect_grep "problem: .*systems/sysA.json: no system description" "$TMP/out"

# ---- acceptance on the published v5.1 tree ----
if [ -n "$SHARED" ] && [ -d "$SHARED/testdata/v5.1-mini/tree" ]; then
  cp -r "$SHARED/testdata/v5.1-mini/tree" "$TMP/mini"
  chmod -R u+w "$TMP/mini"
  # the inferred directories (copies of SingleStream) removed from every tree
  for t in results measurements compliance; do
    rm -rf "$TMP/mini/open/Lenovo/$t/se100_ultra7_255h/resnet50/"{MultiStream,Offline}
  done
  expect_exit 0 M infer "$TMP/mini" --version v5.1
  expect_grep "^summary: 6 directories copied" "$TMP/out"
  expect_grep "I1: result_qps_without_loadgen_overhead = 757.865" "$TMP/out"
  expect_grep "I3: .* = 11.060112 ms" "$TMP/out"
  diff -r "$TMP/mini" "$SHARED/testdata/v5.1-mini/tree" >"$TMP/diff" && ok || { fail "infer did not recreate the published tree"; head "$TMP/diff" >&2; }
  (cd "$TMP" && "$MLSUBMIT" check mini --version v5.1 --csv "$TMP/s.csv" --quiet >/dev/null)
  diff <(sort "$TMP/s.csv") <(sort "$SHARED/testdata/v5.1-mini/expected_summary.csv") >/dev/null && ok ||
    fail "checker after infer: summary.csv differs from expected_summary.csv"
else
  echo "SKIP (part) $(basename "$0"): ../shared is absent"
fi
finish
