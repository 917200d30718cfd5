#!/usr/bin/env bash
# mlsubmit report: summary_results.json of the v5.1 mini tree byte-identical to the published
# records (field names, values, types with --published-types, order, text), IDs kept in
# ids.json, csv and md, a self-contained html page, errors. (Types inferred from the rows, as
# generate_final_report.py does: test_report_types.sh.)
source tests/e2e/lib.sh
M() { "$MLSUBMIT" "$@"; }
D=tests/e2e/data
if [ -n "$SHARED" ] && [ -d "$SHARED/testdata/v5.1-mini/tree" ]; then
  T="$SHARED/testdata/v5.1-mini/tree"
  cp "$D/v5.1-mini-ids.json" "$TMP/ids.json"
  expect_exit 0 M report "$T" --version v5.1 --format json --published-types --ids "$TMP/ids.json" -o "$TMP/sr.json"
  expect_grep "7 records from 7 summary rows" "$TMP/out"
  cmp -s "$TMP/sr.json" "$D/v5.1-mini-summary_results.json" && ok ||
    { fail "summary_results.json differs from the published records"; diff "$TMP/sr.json" "$D/v5.1-mini-summary_results.json" | head >&2; }
  # from an index too, and without ids.json: numbered from 1 in the report's order
  expect_exit 0 M index "$T" --db "$TMP/i.db" --version v5.1
  expect_exit 0 M report --db "$TMP/i.db" --format json --published-types -o "$TMP/sr2.json" --ids "$TMP/new-ids.json"
  sed -e 's/"5.1-0082"/"5.1-0001"/; s/"5.1-0083"/"5.1-0002"/; s/"5.1-0387"/"5.1-0003"/' "$D/v5.1-mini-summary_results.json" > "$TMP/renum.json"
  sed -i 's/"5.1-0082"/"5.1-0001"/g; s/"5.1-0083"/"5.1-0002"/g; s/"5.1-0387"/"5.1-0003"/g' "$TMP/renum.json"
  cmp -s "$TMP/sr2.json" "$TMP/renum.json" && ok || fail "records from the index (new IDs) differ"
  expect_grep '"datacenter/closed/RedHat/IBM_Cloud_gx3-48x240x2l40s_vLLM": 1' "$TMP/new-ids.json"
  expect_grep '"edge/open/Lenovo/se100_ultra7_255h/resnet50": 3' "$TMP/new-ids.json"
  # a new system gets max + 1 while existing ones keep their number
  printf '{\n    "edge/open/Lenovo/se100_ultra7_255h/resnet50": 40\n}' > "$TMP/some-ids.json"
  expect_exit 0 M report --db "$TMP/i.db" --format json --ids "$TMP/some-ids.json"
  expect_grep '"ID": "5.1-0041"' "$TMP/out"
  expect_grep '"ID": "5.1-0040"' "$TMP/out"
  # csv and md
  expect_exit 0 M report --db "$TMP/i.db" --format csv -o "$TMP/r.csv"
  head -1 "$TMP/r.csv" | grep -q '^ID,Submitter,Availability,Category,Suite,System' && ok || fail "csv header"
  [ "$(tail -n +2 "$TMP/r.csv" | wc -l)" = 7 ] && ok || fail "csv: 7 records expected"
  expect_grep '^5.1-0003,Lenovo,available,open,edge,Lenovo ThinkEdge SE100 .*,757.865,Samples/s' "$TMP/r.csv"
  expect_exit 0 M report --db "$TMP/i.db" --format md -o "$TMP/r.md"
  expect_grep '^## closed, datacenter$' "$TMP/r.md"
  expect_grep '^## open, edge$' "$TMP/r.md"
  expect_grep '^\| 5.1-0003 \| Lenovo .* \| resnet50 \(resnet\) \| Offline \| 757.865 Samples/s \|' "$TMP/r.md"
  # html: one file, nothing loaded from elsewhere
  expect_exit 0 M report --db "$TMP/i.db" --format html -o "$TMP/r.html"
  expect_no_grep '<(script|link|img|iframe)[^>]* (src|href)=' "$TMP/r.html"
  expect_no_grep 'url\(' "$TMP/r.html"
  expect_grep "<table class=\"results\" id=\"t-closed-datacenter\">" "$TMP/r.html"
  expect_grep "<svg " "$TMP/r.html"
  expect_grep "data-chart=\"latency\"" "$TMP/r.html"
else
  echo "SKIP (part) $(basename "$0"): ../shared is absent"
fi
# a generated v6.1 round with power results: performance and power merged into one record
bash tests/e2e/lib/mkround.sh "$TMP/u" --version v6.1 >/dev/null
expect_exit 0 M report "$TMP/u" --version v6.1 --format json -o "$TMP/u.json"
if have_python; then
  python3 - "$TMP/u.json" <<'PY' && ok || fail "v6.1 records: power/performance merge or types"
import json, sys
recs = json.load(open(sys.argv[1]))
merged = [r for r in recs if "Power_Result" in r]
assert merged, "no merged power record"
for r in merged:
    assert list(r)[-4:] == ["Power_Result", "Power_Units", "Performance_Result", "Performance_Units"], list(r)[-4:]
    assert r["Power_Units"] in ("Watts", "millijoules") and "Result" not in r
assert all(isinstance(r["Nodes"], int) and isinstance(r["has_power"], bool) for r in recs)
assert all(r["Code"].endswith("/src") for r in recs)
assert all(r["Scenario"] in ("SingleStream", "MultiStream", "Offline", "Server", "Interactive") for r in recs)
PY
fi
# Interactive results of the LLMs are published records: generate_final_report.py (main,
# filter_scenarios / FilterScenario) lists Interactive for llama2-70b, llama3.1-405b and
# llama3.1-8b in datacenter tables of rounds after v5.0.
bash tests/e2e/lib/mkround.sh "$TMP/i51" --version v5.1 --interactive >/dev/null
expect_exit 0 M report "$TMP/i51" --version v5.1 --format json -o "$TMP/i51.json"
expect_grep "7 records from 8 summary rows" "$TMP/out"
if have_python; then
  python3 - "$TMP/i51.json" <<'PY' && ok || fail "v5.1: the llama3.1-8b Interactive record is missing"
import json, sys
recs = json.load(open(sys.argv[1]))
inter = [r for r in recs if r["Scenario"] == "Interactive"]
assert len(inter) == 1, [(r["Model"], r["Scenario"]) for r in recs]
r = inter[0]
# the v5.1 checker's units (submission_checker.py, log_result's special_unit_dict) give
# llama3.1-8b Tokens/s for Offline and Server only: its Interactive result is in Queries/s
assert (r["Model"], r["Performance_Units"], r["Suite"]) == ("llama3.1-8b", "Queries/s", "datacenter"), r
assert r["Performance_Result"] == 5103.99, r
PY
fi
bash tests/e2e/lib/mkround.sh "$TMP/i61" --version v6.1 --interactive >/dev/null
expect_exit 0 M report "$TMP/i61" --version v6.1 --format csv -o "$TMP/i61.csv"
expect_grep ',llama3.1-8b,Interactive,' "$TMP/i61.csv"
# the filter of rules/report.json is upstream's table, model for model (v5.0 and later rounds)
GFR="$SHARED/upstream/submission-checkers/v5.1.1/generate_final_report.py"
if [ -n "$SHARED" ] && [ -f "$GFR" ] && have_python; then
  python3 - "$GFR" rules/report.json <<'PY' && ok || fail "rules/report.json differs from generate_final_report.py's filter_scenarios"
import ast, json, sys
tree = ast.parse(open(sys.argv[1]).read())
tables = [ast.literal_eval(n.value) for n in ast.walk(tree)
          if isinstance(n, ast.Assign) and any(getattr(t, "id", "") == "filter_scenarios" for t in n.targets)]
ours = json.load(open(sys.argv[2]))
assert len(tables) == 2, len(tables)
def same(a, b):
    return {s: {m: sorted(v) for m, v in t.items()} for s, t in a.items()} == \
           {s: {m: sorted(v) for m, v in t.items()} for s, t in b.items()}
assert same(tables[0], ours["rounds"]["v5.0"]), "v5.0"
assert same(tables[1], ours["default"]), "default (rounds after v5.0)"
PY
fi
# a failed check (S2: a file outside the division folders, as in the published repositories):
# the official checker accepts nothing, so the report would be empty. Refused, naming the
# finding and the option that skips it; --force writes it and says so.
bash tests/e2e/lib/mkround.sh "$TMP/s2" --version v5.1 >/dev/null
echo notes > "$TMP/s2/notes.txt"
echo '{}' > "$TMP/s2-ids.json"
expect_exit 1 M report "$TMP/s2" --version v5.1 --format json -o "$TMP/s2.json" --ids "$TMP/s2-ids.json"
expect_grep "checker finds errors: S2 files at the root \\(1 finding: 'notes.txt'; skipped by --skip-extra-files-in-root-check\\)" "$TMP/err"
expect_grep "not written \\(--force writes it anyway\\)" "$TMP/err"
[ ! -e "$TMP/s2.json" ] && ok || fail "a refused report was written"
[ "$(cat "$TMP/s2-ids.json")" = '{}' ] && ok || fail "a refused report rewrote ids.json"
expect_exit 1 M report "$TMP/s2" --version v5.1 --format csv
[ ! -s "$TMP/out" ] && ok || fail "a refused report wrote to stdout"
expect_exit 0 M report "$TMP/s2" --version v5.1 --format json -o "$TMP/s2.json" --force
expect_grep "0 records from 0 summary rows" "$TMP/out"
expect_grep "warning: written with --force on a failed check: S2 files at the root" "$TMP/err"
expect_exit 0 M report "$TMP/s2" --version v5.1 --format json -o "$TMP/s2.json" --skip-extra-files-in-root-check
expect_grep "6 records from 7 summary rows" "$TMP/out"
expect_no_grep "warning" "$TMP/err"
# an index records the failed check: refused too (index --force keeps it), and so is a report of it
expect_exit 1 M index "$TMP/s2" --db "$TMP/s2.db" --version v5.1
expect_grep "checker finds errors: S2 files at the root .*--skip-extra-files-in-root-check.*not indexed \\(--force" "$TMP/err"
[ ! -e "$TMP/s2.db" ] && ok || fail "a refused index was written"
expect_exit 0 M index "$TMP/s2" --db "$TMP/s2.db" --version v5.1 --force
expect_grep "warning: indexed with --force on a failed check: S2" "$TMP/err"
expect_exit 0 M index "$TMP/s2" --db "$TMP/s2.db" --version v5.1 --force
expect_grep "records a failed check" "$TMP/err"
expect_exit 1 M report --db "$TMP/s2.db" --format csv
expect_grep "checker finds errors \\(recorded in the index\\): S2 files at the root" "$TMP/err"
expect_exit 0 M report --db "$TMP/s2.db" --format csv --force
expect_exit 2 M report "$TMP/u"
expect_exit 2 M report "$TMP/u" --db x --format json
expect_exit 2 M report "$TMP/u" --format pdf
expect_exit 3 M report --db "$TMP/missing.db" --format json
echo '[1,2]' > "$TMP/badids.json"
expect_exit 3 M report "$TMP/u" --version v6.1 --format json --ids "$TMP/badids.json"
finish
