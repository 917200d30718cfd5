#!/usr/bin/env bash
# The command line of `mlsubmit check`: usage errors, exit statuses, outputs (default
# summary.csv, --json, --tsv), --strict, --skip, --waivers, --profile smoke, --submitter,
# --scenarios-to-skip, the MLCommons option names, colour, the default round, and a new round
# added as a data file only.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib/common.sh"
M() { $TEST_WRAP "$MLSUBMIT" "$@"; }
expect() { # expect RC DESCRIPTION -- command...
  local want=$1 what=$2; shift 3
  "$@" >"$TMP/o.txt" 2>"$TMP/e.txt"
  local rc=$?
  if [ "$rc" != "$want" ]; then
    echo "FAIL $what: exit $rc, expected $want"; tail -n 5 "$TMP/o.txt" "$TMP/e.txt"; fail=1; return 1
  fi
  return 0
}
bash "$HERE/lib/mkround.sh" "$TMP/t" --version v5.1 || exit 1
T=$TMP/t
C=closed/Org1
SSLOG=$C/results/edge1/resnet50/SingleStream/performance/run_1/mlperf_log_detail.txt

# --- usage errors: exit 2 ---
expect 2 "no root" -- M check
expect 2 "unknown option" -- M check "$T" --bogus
expect 2 "two roots" -- M check "$T" "$T"
expect 2 "--jobs 0" -- M check "$T" --jobs 0
expect 2 "--version missing value" -- M check "$T" --version
expect 2 "unknown round" -- M check "$T" --version v9.9 --no-csv
expect 2 "unknown --skip ID" -- M check "$T" --skip Q42 --no-csv
expect 2 "unknown profile" -- M check "$T" --version v5.1 --profile nope --no-csv
expect 2 "bad --color" -- M check "$T" --color purple
# --- unreadable input: exit 3 ---
expect 3 "missing root" -- M check "$TMP/nope" --no-csv
printf 'P7 only-two-fields\n' >"$TMP/bad.waivers"
expect 3 "waiver without justification" -- M check "$T" --version v5.1 --waivers "$TMP/bad.waivers" --no-csv
grep -q "bad.waivers:1" "$TMP/e.txt" || { echo "FAIL: waiver error does not name file:line"; fail=1; }
# --- help and catalogue ---
expect 0 "--help" -- M check --help && grep -q -- "--skip-power-check" "$TMP/o.txt" || { echo "FAIL: help lacks the MLCommons options"; fail=1; }
expect 0 "help check" -- M help check
expect 0 "--list-checks" -- M check --list-checks
for id in S1 S11 Y1 Y9 M1 M6 E1 E5 A1 A9 P0 P16 I1 I4 W1 W6 C1 C9 L1; do
  grep -q "^$id " "$TMP/o.txt" || { echo "FAIL: --list-checks lacks $id"; fail=1; }
done
# --- no --version: the round detected (this v5.1 tree: split layout, LoadGen 5.1); a LoadGen no
# round knows gets the newest rules file; default CSV in the working directory ---
(cd "$TMP" && M check "$T" >"$TMP/o.txt" 2>&1)
grep -q "rules v5.1" "$TMP/o.txt" || { echo "FAIL: the v5.1 tree is not detected as v5.1"; head -2 "$TMP/o.txt"; fail=1; }
cp -a "$T" "$TMP/t99"
find "$TMP/t99" -name mlperf_log_detail.txt -exec sed -i 's/"loadgen_version", "value": "[0-9.]*/"loadgen_version", "value": "9.9.0/' {} +
M check "$TMP/t99" --no-csv >"$TMP/o99.txt" 2>&1
grep -q "rules v6.1" "$TMP/o99.txt" || { echo "FAIL: the default round is not v6.1"; head -2 "$TMP/o99.txt"; fail=1; }
[ -f "$TMP/summary.csv" ] || { echo "FAIL: no default summary.csv in the working directory"; fail=1; }
# --- clean tree: exit 0, outputs ---
expect 0 "clean tree" -- M check "$T" --version v5.1 --csv "$TMP/a.csv" --json "$TMP/a.json" --tsv "$TMP/a.tsv"
[ "$(wc -l <"$TMP/a.csv")" = 8 ] || { echo "FAIL: expected 6 results + 1 power row + header"; fail=1; }
grep -q '"verdict": "submission looks OK"' "$TMP/a.json" || { echo "FAIL: JSON verdict"; fail=1; }
grep -q '^SUMMARY: submission looks OK$' "$TMP/o.txt" || { echo "FAIL: summary line"; fail=1; }
if grep -q $'\033\\[' "$TMP/o.txt"; then echo "FAIL: colour when stdout is not a terminal"; fail=1; fi
M check "$T" --version v5.1 --no-csv --color always >"$TMP/o.txt" 2>&1
grep -q $'\033\\[' "$TMP/o.txt" || { echo "FAIL: --color always has no colour"; fail=1; }
# --- official option names are accepted ---
for f in --skip_compliance --debug --submission-exceptions --skip-power-check \
         --skip-meaningful-fields-emptiness-check --skip-check-power-measure-files \
         --skip-empty-files-check --skip-extra-files-in-root-check --skip-extra-accuracy-files-check \
         --skip-all-systems-have-results-check --skip-calibration-check --skip-dataset-size-check; do
  expect 0 "$f" -- M check "$T" --version v5.1 --no-csv "$f"
done
expect 0 "--input" -- M check --input "$T" --version v5.1 --no-csv --extra-model-benchmark-map model_mapping.json
expect 0 "--skip_compliance CSV" -- M check "$T" --version v5.1 --skip_compliance --csv "$TMP/nc.csv"
grep -q '^Org1,available,closed,.*,0,0,v5.1,' "$TMP/nc.csv" || { echo "FAIL: --skip_compliance should write compliance=0 for closed rows"; fail=1; }
expect 0 "--submitter" -- M check "$T" --version v5.1 --submitter Org1 --csv "$TMP/sub.csv"
expect 0 "--submitter other" -- M check "$T" --version v5.1 --submitter Nobody --csv "$TMP/none.csv"
[ "$(wc -l <"$TMP/none.csv")" = 1 ] || { echo "FAIL: --submitter filter"; fail=1; }
# --scenarios-to-skip drops the scenario and its requirement
rm -rf "$TMP/u" && cp -a "$T" "$TMP/u" && rm -rf "$TMP/u/$C/results/edge1/resnet50/MultiStream"
expect 1 "missing MultiStream" -- M check "$TMP/u" --version v5.1 --no-csv
expect 0 "--scenarios-to-skip MultiStream" -- M check "$TMP/u" --version v5.1 --no-csv --scenarios-to-skip MultiStream

# --- a broken seed: --skip, waivers, strict ---
rm -rf "$TMP/p7" && cp -a "$T" "$TMP/p7"
sed -i -E 's/("key": "effective_qsl_rng_seed", "value": )[0-9]+/\142/' "$TMP/p7/$SSLOG"
expect 1 "wrong seed" -- M check "$TMP/p7" --version v5.1 --no-csv
expect 0 "--skip P7" -- M check "$TMP/p7" --version v5.1 --csv "$TMP/p7.csv" --skip P7
grep -q ',SingleStream,1.341022,' "$TMP/p7.csv" || { echo "FAIL: --skip P7 should keep the row"; fail=1; }
printf '# reviewed with the committee\nP7 %s seeds approved by the WG (ticket 42)\n' "$SSLOG" >"$TMP/w.txt"
expect 0 "waived seed" -- M check "$TMP/p7" --version v5.1 --no-csv --waivers "$TMP/w.txt" --tsv "$TMP/w.tsv"
grep -q "^WAIVED	P7	$SSLOG" "$TMP/w.tsv" || { echo "FAIL: waived finding not shown as WAIVED"; fail=1; }
grep -q "waived: seeds approved by the WG" "$TMP/o.txt" || { echo "FAIL: waiver justification not shown"; fail=1; }
printf 'P7 closed/Org1/results/dc1 not this one\n' >"$TMP/w2.txt"
expect 1 "waiver for another path" -- M check "$TMP/p7" --version v5.1 --no-csv --waivers "$TMP/w2.txt"
grep -q "matched no finding" "$TMP/o.txt" || { echo "FAIL: unused waiver not reported"; fail=1; }
# a waived structure failure does not stop the traversal (S2 would skip everything)
rm -rf "$TMP/s2" && cp -a "$T" "$TMP/s2" && echo notes >"$TMP/s2/notes.txt"
expect 1 "file at the root" -- M check "$TMP/s2" --version v5.1 --no-csv
printf 'S2 * release notes are part of the package\n' >"$TMP/w3.txt"
expect 0 "waived S2" -- M check "$TMP/s2" --version v5.1 --csv "$TMP/s2.csv" --waivers "$TMP/w3.txt"
[ "$(wc -l <"$TMP/s2.csv")" = 8 ] || { echo "FAIL: waived S2 should still check every result"; fail=1; }
# a warning (unknown system field) passes, and fails under --strict
rm -rf "$TMP/y8" && cp -a "$T" "$TMP/y8"
sed -i 's/^{$/{ "extra_field": "x",/' "$TMP/y8/$C/systems/edge1.json"
expect 0 "warning only" -- M check "$TMP/y8" --version v5.1 --no-csv
grep -q "WARNING Y8" "$TMP/o.txt" || { echo "FAIL: Y8 warning not shown"; fail=1; }
expect 1 "--strict" -- M check "$TMP/y8" --version v5.1 --csv "$TMP/y8.csv" --strict
grep -q '^SUMMARY: submission has errors$' "$TMP/o.txt" || { echo "FAIL: --strict summary"; fail=1; }
# --- smoke profile: short runs pass, and the output says so ---
rm -rf "$TMP/sm" && cp -a "$T" "$TMP/sm"
for f in $(grep -rl effective_min_duration_ms "$TMP/sm"); do
  sed -i -E 's/("key": "effective_min_duration_ms", "value": )[0-9]+/\110000/; s/("key": "result_validity", "value": )"VALID"/\1"INVALID"/; s/("key": "early_stopping_met", "value": )true/\1false/' "$f"
done
# the edited logs of the power result: re-record the power session's checksums (W4)
. "$HERE/lib/power.sh"
for p in $(find "$TMP/sm" -type d -path '*/performance/power'); do power_rehash "$(dirname "$p")"; done
expect 1 "short runs" -- M check "$TMP/sm" --version v5.1 --no-csv
expect 0 "--profile smoke" -- M check "$TMP/sm" --version v5.1 --no-csv --profile smoke --json "$TMP/sm.json"
grep -q "PROFILE smoke" "$TMP/o.txt" || { echo "FAIL: the smoke profile is not printed"; fail=1; }
grep -q '"smoke_profile": "smoke"' "$TMP/sm.json" || { echo "FAIL: the smoke profile is not in the JSON"; fail=1; }

# --- a new round is a data file: copy v6.1 as v9.0 ---
D=$TMP/data
mkdir -p "$D" && cp -r rules schemas "$D/"
sed 's/"version": "v6.1"/"version": "v9.0"/' rules/v6.1.json >"$D/rules/v9.0.json"
bash "$HERE/lib/mkround.sh" "$TMP/t6" --version v6.0 >/dev/null || exit 1
MLSUBMIT_DATA_DIR=$D M check "$TMP/t6" --no-csv >"$TMP/o.txt" 2>&1
grep -q "rules v9.0" "$TMP/o.txt" || { echo "FAIL: MLSUBMIT_DATA_DIR round v9.0 not the default"; fail=1; }
grep -q "qsl_rng_seed is wrong, expected=2085463073848966840" "$TMP/o.txt" || { echo "FAIL: v9.0 rules not applied"; fail=1; }
MLSUBMIT_DATA_DIR=$TMP/nowhere M check "$TMP/t6" --no-csv >/dev/null 2>"$TMP/e.txt"
[ $? = 3 ] || { echo "FAIL: a bad MLSUBMIT_DATA_DIR is not exit 3"; fail=1; }

# --- v6.1: private IDs (generated once, written into the tree, then read back) and the W6
# design power column ---
bash "$HERE/lib/mkround.sh" "$TMP/t61" --version v6.1 >/dev/null || exit 1
expect 0 "v6.1 --private-ids" -- M check "$TMP/t61" --version v6.1 --private-ids --csv "$TMP/p1.csv"
P=$TMP/t61/closed/Org1/results/edge1/privateid.json
id=$(sed -n 's/^    "edge1": "\(.*\)"$/\1/p' "$P")
[[ "$id" =~ ^[a-z]+-[a-z]+-[0-9a-f]{4}$ ]] || { echo "FAIL: private ID '$id' in $P"; fail=1; }
grep -q "\"$id\"\$" "$TMP/p1.csv" || { echo "FAIL: PrivateID column lacks $id"; fail=1; }
grep -q 'Watts","fp8","None","' "$TMP/p1.csv" || { echo "FAIL: design_power_watts without a nameplate should be None"; fail=1; }
grep -q "W6" "$TMP/o.txt" || { echo "FAIL: no W6 warning without a nameplate"; fail=1; }
sed -i 's/^{$/{ "system_power_capacity": 1234.5,/' "$TMP/t61/closed/Org1/systems/edge1.json"
expect 0 "v6.1 nameplate" -- M check "$TMP/t61" --version v6.1 --private-ids --csv "$TMP/p2.csv"
grep -q "Watts\",\"fp8\",\"1234.5\",\"$id\"" "$TMP/p2.csv" || { echo "FAIL: design power / private ID on the second run"; fail=1; }
# the nameplate YAML: the largest "Min PSUs Needed" PSU capacities of every leaf, summed as
# Python sums them (ints stay ints, a float makes the sum a float)
sed -i 's/^{ "system_power_capacity": 1234.5,$/{/' "$TMP/t61/closed/Org1/systems/edge1.json"
printf 'Sys:\n- Rack:\n  - Server:\n    - Min PSUs Needed: 2\n      PSUs:\n      - {Name: a, PowerCapacityWatts: 800}\n      - {Name: b, PowerCapacityWatts: 1_200}\n      - {Name: c, PowerCapacityWatts: 1000}\n  - Switch: {min psus needed: 1, psus: [{PowerCapacityWatts: 250.5}, {PowerCapacityWatts: 100}]}\n' \
  > "$TMP/t61/closed/Org1/systems/edge1_power.yaml"
expect 0 "v6.1 nameplate YAML" -- M check "$TMP/t61" --version v6.1 --csv "$TMP/p3.csv"
grep -q 'Watts","fp8","2450.5","' "$TMP/p3.csv" || { echo "FAIL: design power from the YAML should be 2450.5"; grep Watts "$TMP/p3.csv"; fail=1; }
grep -q 'SingleStream.*"fp8","None","' "$TMP/p3.csv" || { echo "FAIL: results without power should have design power None"; fail=1; }

# --- start-up: the binary links none of the libraries only some commands use (libcurl,
# libmicrohttpd, libarchive, libcrypto, SQLite are loaded when first needed: common/lazylib.h), and
# a check opens none of them but libcrypto (for the SHA-1 of power logs only) ---
if command -v readelf >/dev/null; then
  readelf -d "$MLSUBMIT" >"$TMP/dyn.txt" 2>&1
  for l in libcurl libmicrohttpd libarchive libcrypto libsqlite3; do
    grep -q "NEEDED.*\[$l\." "$TMP/dyn.txt" && { echo "FAIL: the binary links $l (it should be loaded when first needed)"; fail=1; }
  done
fi
if [ -z "$TEST_WRAP" ] && command -v strace >/dev/null; then
  strace -f -qq -e trace=openat -o "$TMP/strace.txt" "$MLSUBMIT" check "$T" --version v5.1 --no-csv >/dev/null 2>&1
  grep -E 'lib(curl|microhttpd|archive|sqlite3)[.]so' "$TMP/strace.txt" && { echo "FAIL: the check opened a library it does not use"; fail=1; }
  # a file is read once by the power checker (several sub-checks share it) and at most once more
  # by the run's own checks: no file of the tree is opened three times
  grep -v O_DIRECTORY "$TMP/strace.txt" | grep -o "\"$T/[^\"]*\"" | sort | uniq -c | awk '$1 > 2' >"$TMP/reopened.txt"
  [ -s "$TMP/reopened.txt" ] && { echo "FAIL: the check opens files more than twice:"; cat "$TMP/reopened.txt"; fail=1; }
fi

# --- --timings: one line on stderr, every phase in milliseconds, the parallel phases' counts;
# the verdict and summary.csv as without it ---
"$MLSUBMIT" check "$T" --timings --jobs 2 --csv "$TMP/tm.csv" >"$TMP/o.txt" 2>"$TMP/e.txt" ||
  { echo "FAIL: --timings: the check failed"; fail=1; }
"$MLSUBMIT" check "$T" --jobs 2 --csv "$TMP/tm0.csv" >/dev/null 2>&1
cmp -s "$TMP/tm.csv" "$TMP/tm0.csv" || { echo "FAIL: --timings changed summary.csv"; fail=1; }
re='^mlsubmit check: timings \(2 threads\): detect [0-9.]+ ms, setup [0-9.]+ ms, systems [0-9.]+ ms \([1-9][0-9]*, parallel\), plan [0-9.]+ ms, tasks [0-9.]+ ms \([1-9][0-9]*, parallel\), bookkeeping [0-9.]+ ms, freeing [0-9.]+ ms, outputs [0-9.]+ ms; total [0-9.]+ ms, [0-9.]+ ms of it on one thread$'
grep -Eq "$re" "$TMP/e.txt" || { echo "FAIL: --timings: no timings line"; cat "$TMP/e.txt"; fail=1; }
# the phases add up to no more than the total
grep -E "$re" "$TMP/e.txt" | sed 's/([^)]*)//g' | tr -s ' ,;:' '\n' | awk '
  /^[0-9.]+$/ { v[n++] = $1 } END { t = v[n - 2]; for (i = 0; i < n - 2; i++) s += v[i]; exit !(s <= t + 0.5 && t > 0) }' ||
  { echo "FAIL: --timings: the phases add up to more than the total"; cat "$TMP/e.txt"; fail=1; }
"$MLSUBMIT" check "$T" --no-csv >/dev/null 2>"$TMP/e.txt"
grep -q 'timings' "$TMP/e.txt" && { echo "FAIL: timings printed without --timings"; fail=1; }

# --- not a submission root: a missing folder names the system's reason; a folder without a
# division folder checks clean (as the official checker finds it) but says nothing was checked ---
"$MLSUBMIT" check "$TMP/no-such-root" >"$TMP/o.txt" 2>&1 && { echo "FAIL: a missing root checked"; fail=1; }
grep -q 'no-such-root: cannot list the submission root: No such file or directory' "$TMP/o.txt" ||
  { echo "FAIL: a missing root: no reason given"; cat "$TMP/o.txt"; fail=1; }
# the same reason with --version given (no round detection); a tarball is named as one, with
# what to do with it
"$MLSUBMIT" check "$TMP/no-such-root" --version v5.1 >"$TMP/o.txt" 2>&1 && { echo "FAIL: a missing root checked"; fail=1; }
grep -q 'no-such-root: cannot list the submission root: No such file or directory' "$TMP/o.txt" ||
  { echo "FAIL: a missing root with --version: no reason given"; cat "$TMP/o.txt"; fail=1; }
echo x >"$TMP/sub.TAR.GZ"
for v in "" "--version v5.1"; do
  "$MLSUBMIT" check "$TMP/sub.TAR.GZ" $v >"$TMP/o.txt" 2>&1; rc=$?
  [ $rc = 3 ] || { echo "FAIL: a tarball as root ($v): exit $rc, not 3"; fail=1; }
  grep -q 'sub.TAR.GZ: an archive, not a submission root: extract it (tar -xf) and give the folder holding closed/, open/ or network/' "$TMP/o.txt" ||
    { echo "FAIL: a tarball as root ($v): not named as one"; cat "$TMP/o.txt"; fail=1; }
done
"$MLSUBMIT" check "$TMP/sub.TAR.GZ.txt" --version v5.1 >"$TMP/o.txt" 2>&1
grep -q 'an archive' "$TMP/o.txt" && { echo "FAIL: a missing .txt called an archive"; fail=1; }
mkdir -p "$TMP/not-a-root/results"
"$MLSUBMIT" check "$TMP/not-a-root" --version v5.1 --no-csv >"$TMP/o.txt" 2>"$TMP/e.txt" ||
  { echo "FAIL: an empty tree's verdict changed"; fail=1; }
grep -q 'not-a-root holds no division folder (closed/, open/ or network/): nothing was checked' "$TMP/e.txt" ||
  { echo "FAIL: a folder without divisions: no warning"; cat "$TMP/e.txt"; fail=1; }
mkdir -p "$TMP/not-a-root/open"
"$MLSUBMIT" check "$TMP/not-a-root" --version v5.1 --no-csv >"$TMP/o.txt" 2>"$TMP/e.txt"
grep -q 'holds no division folder' "$TMP/e.txt" && { echo "FAIL: warned with a division folder"; fail=1; }

# --- an installed binary finds rules/ and schemas/ in <prefix>/share/mlsubmit ---
if command -v make >/dev/null && make -s install PREFIX="$TMP/prefix" >/dev/null 2>&1; then
  (unset MLSUBMIT_DATA_DIR; cd "$TMP" && "$TMP/prefix/bin/mlsubmit" rules list) >"$TMP/o.txt" 2>&1
  [ "$(tr '\n' ' ' <"$TMP/o.txt")" = "v0.5 v0.7 v1.0 v1.1 v2.0 v2.1 v3.0 v3.1 v4.0 v4.1 v5.0 v5.1 v6.0 v6.1 " ] || { echo "FAIL: installed binary does not find its rules"; cat "$TMP/o.txt"; fail=1; }
  [ -f "$TMP/prefix/share/mlsubmit/schemas/rules.schema.json" ] || { echo "FAIL: schemas not installed"; fail=1; }
fi
exit $fail
