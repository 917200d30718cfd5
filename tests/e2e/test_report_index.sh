#!/usr/bin/env bash
# mlsubmit index and query: every file with its SHA-256, results with every summary.csv column,
# findings, systems, runs; incremental re-index (size + mtime); links recorded, never followed;
# read-only queries.
source tests/e2e/lib.sh
M() { "$MLSUBMIT" "$@"; }
Q() { "$MLSUBMIT" query "$TMP/i.db" "$@"; }
bash tests/e2e/lib/mkround.sh "$TMP/r" --version v5.1 >/dev/null
ln -s /etc/passwd "$TMP/r/closed/Org1/code/outside-link"
echo notes > "$TMP/r/closed/Org1/documentation/notes.md"
expect_exit 0 M index "$TMP/r" --db "$TMP/i.db" --version v5.1 --jobs 2
nfiles=$(cd "$TMP/r" && find . -type f | wc -l)
expect_grep "^index .*: $((nfiles + 1)) files \\($nfiles hashed" "$TMP/out"
# every file and its digest, as sha256sum computes it
Q "SELECT sha256 || '  ' || path FROM files WHERE type = 'file' ORDER BY path" --csv | tr -d '\r' | tail -n +2 > "$TMP/ours"
(cd "$TMP/r" && find . -type f | sed 's|^\./||' | LC_ALL=C sort | while read -r f; do sha256sum "$f"; done) > "$TMP/theirs"
cmp -s "$TMP/ours" "$TMP/theirs" && ok || fail "files.sha256 differs from sha256sum"
# the link is recorded as a link and not followed
expect_exit 0 Q "SELECT type, link_target, sha256 FROM files WHERE path = 'closed/Org1/code/outside-link'" --csv
tr -d '\r' < "$TMP/out" > "$TMP/out2"
expect_grep "^symlink,/etc/passwd,$" "$TMP/out2"
# results: one row per summary.csv row, every column
(cd "$TMP" && "$MLSUBMIT" check r --version v5.1 --csv "$TMP/s.csv" >/dev/null 2>&1)
expect_exit 0 Q "SELECT Organization, Availability, Division, SystemType, SystemName, Platform, Model, MlperfModel, Scenario, Result, Accuracy, number_of_nodes, host_processor_model_name, host_processors_per_node, host_processor_core_count, accelerator_model_name, accelerators_per_node, Location, framework, operating_system, notes, compliance, errors, version, inferred, has_power, Units, weight_data_types FROM results ORDER BY id" --csv
if have_python; then
  python3 - "$TMP/s.csv" "$TMP/out" <<'PY' && ok || fail "results rows differ from summary.csv"
import csv, sys
a = sorted(tuple(r) for r in csv.reader(open(sys.argv[1], newline='')))
b = sorted(tuple(r) for r in csv.reader(open(sys.argv[2], newline='')))
sys.exit(0 if a == b else 1)
PY
fi
expect_exit 0 Q "SELECT count(*) FROM systems; SELECT count(*) FROM runs WHERE kind = 'performance' AND result_validity = 'VALID'; SELECT value FROM meta WHERE key = 'verdict'"
expect_grep "submission looks OK" "$TMP/out"
# incremental: unchanged tree -> only re-stat'ed, database untouched
before=$(stat -c %Y.%s "$TMP/i.db")
sleep 1
expect_exit 0 M index "$TMP/r" --db "$TMP/i.db" --version v5.1
expect_grep "unchanged: $((nfiles + 1)) files re-stat'ed, nothing hashed or written" "$TMP/out"
[ "$(stat -c %Y.%s "$TMP/i.db")" = "$before" ] && ok || fail "an unchanged tree rewrote the database"
# one changed file: only it is hashed; a removed file disappears
echo "more" >> "$TMP/r/closed/Org1/documentation/calibration.md"
rm "$TMP/r/closed/Org1/documentation/notes.md"
expect_exit 0 M index "$TMP/r" --db "$TMP/i.db" --version v5.1
expect_grep "\\(1 hashed, [0-9]+ bytes; $((nfiles - 2)) unchanged\\), 1 links, 1 removed" "$TMP/out"
expect_exit 0 Q "SELECT sha256 FROM files WHERE path = 'closed/Org1/documentation/calibration.md'"
expect_grep "$(sha256sum "$TMP/r/closed/Org1/documentation/calibration.md" | cut -d' ' -f1)" "$TMP/out"
# a different checker option re-derives the tables (profile recorded in meta.options)
expect_exit 0 M index "$TMP/r" --db "$TMP/i.db" --version v5.1 --skip-power-check
expect_grep "0 hashed" "$TMP/out"
ls "$TMP"/i.db.tmp* >/dev/null 2>&1 && fail "temporary database left" || ok
# query: read-only
expect_exit 2 Q "DELETE FROM files"
expect_grep "only read-only statements" "$TMP/err"
expect_exit 2 Q "SELECT 1; DROP TABLE files"
expect_exit 2 Q "ATTACH DATABASE '$TMP/x.db' AS x"
expect_exit 0 Q "SELECT count(*) AS n FROM files"
expect_grep "^n" "$TMP/out"
expect_grep "^\\(1 row\\)" "$TMP/out"
expect_exit 2 Q "SELEC nothing"
expect_exit 3 M query "$TMP/s.csv" "SELECT 1"
expect_exit 2 M query "$TMP/i.db"
expect_exit 2 M index "$TMP/r"
expect_exit 3 M index "$TMP/none" --db "$TMP/n.db"
# v6 (unified) round: Location relative in a portable index is covered by the package test
bash tests/e2e/lib/mkround.sh "$TMP/u" --version v6.1 >/dev/null
expect_exit 0 M index "$TMP/u" --db "$TMP/u.db" --version v6.1
expect_exit 0 M query "$TMP/u.db" "SELECT count(*) FROM results WHERE total_accelerators IS NOT NULL AND PrivateID IS NOT NULL"
expect_no_grep "^0$" "$TMP/out"
finish
