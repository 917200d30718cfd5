#!/usr/bin/env bash
# mlsubmit report --format json types each column as generate_final_report.py's pandas.read_csv
# reads it from the checker's summary.csv (main(): read_csv, fillna(""), the clean-ups of a#,
# p# and host_processor_core_count): a number column with a missing value ('N/A') is float
# (64.0), a column with a text keeps its numbers as text, a# of digits becomes a number and 0
# becomes "". --published-types gives the types of the round's published file instead. Where
# Debian's python3 has pandas and xlsxwriter (python3-pandas, python3-xlsxwriter) and ../shared
# holds the official script, the records are compared byte for byte with its output.
source tests/e2e/lib.sh
M() { "$MLSUBMIT" "$@"; }
bash tests/e2e/lib/mkround.sh "$TMP/u" --version v5.1 --submitters 2 >/dev/null
# what a complete round holds: a core count 'N/A' (read as missing), an accelerator count with
# a text, an accelerator count 0
sed -i 's/"host_processor_core_count": "64"/"host_processor_core_count": "N\/A"/' "$TMP/u/closed/Org2/systems/edge1.json"
sed -i 's/"accelerators_per_node": "[^"]*"/"accelerators_per_node": "4 (x2)"/' "$TMP/u/open/Org2/systems/opn1.json"
sed -i 's/"accelerators_per_node": "[^"]*"/"accelerators_per_node": "0"/' "$TMP/u/closed/Org1/systems/edge1.json"
# beyond 64 bits: the column stays text, then Python's int() makes it a number
sed -i 's/"accelerators_per_node": "[^"]*"/"accelerators_per_node": "99999999999999999999"/' "$TMP/u/closed/Org2/systems/dc1.json"
expect_exit 0 M report "$TMP/u" --version v5.1 --format json --ids "$TMP/ids.json" -o "$TMP/r.json"
count() { grep -c -- "$1" "$TMP/$2"; }
# host_processor_core_count: 64 and N/A -> float64, "" for the missing one
[ "$(count '"host_processor_core_count": 64.0,' r.json)" = 9 ] && ok || fail "core count: 64.0 expected in 9 records"
[ "$(count '"host_processor_core_count": "",' r.json)" = 3 ] && ok || fail "core count: \"\" expected in 3 records"
# a#: an object column (a text in it): digits -> int, 0 -> "", the text stays
[ "$(count '"a#": 8,' r.json)" = 6 ] && ok || fail "a#: 8 expected in 6 records"
[ "$(count '"a#": 99999999999999999999,' r.json)" = 2 ] && ok || fail "a#: a number beyond 64 bits"
[ "$(count '"a#": "4 (x2)",' r.json)" = 1 ] && ok || fail "a#: the text stays"
[ "$(count '"a#": "",' r.json)" = 3 ] && ok || fail "a#: 0 becomes \"\""
# p#, Nodes, compliance: integer columns; has_power: boolean; Result: float
expect_grep '"p#": 2,' "$TMP/r.json"
expect_no_grep '"Nodes": 1\.0' "$TMP/r.json"
expect_grep '"has_power": false' "$TMP/r.json"
expect_grep '"Performance_Result": 5777.08' "$TMP/r.json"
# numbers beyond int64: a uint64 column with a number beside 'N/A' is read without NA filtering
# (the C parser's overflow path), so 'N/A' stays; a float beside them makes the column float,
# printed as pandas' to_json prints very large values (%.10g)
cp -a "$TMP/u" "$TMP/big"
sed -i 's/"number_of_nodes": "[^"]*"/"number_of_nodes": "18446744073709551615"/' "$TMP/big/closed/Org1/systems/dc1.json"
sed -i 's/"number_of_nodes": "[^"]*"/"number_of_nodes": "N\/A"/' "$TMP/big/closed/Org2/systems/dc1.json"
sed -i 's/"host_processor_core_count": "[^"]*"/"host_processor_core_count": "18446744073709551615"/' "$TMP/big/open/Org1/systems/opn1.json"
sed -i 's/"host_processor_core_count": "[^"]*"/"host_processor_core_count": "1.5"/' "$TMP/big/open/Org2/systems/opn1.json"
expect_exit 0 M report "$TMP/big" --version v5.1 --format json --ids "$TMP/big-ids.json" -o "$TMP/big.json"
[ "$(count '"Nodes": "N/A",' big.json)" = 2 ] && ok || fail "uint64 column: 'N/A' kept as text"
[ "$(count '"Nodes": "18446744073709551615",' big.json)" = 2 ] && ok || fail "uint64 column with N/A: text"
[ "$(count '"host_processor_core_count": 1.844674407e+19,' big.json)" = 1 ] && ok || fail "a float column: %.10g"

# --published-types: the v5.1 publication's types (core counts as text there)
expect_exit 0 M report "$TMP/u" --version v5.1 --format json --published-types --ids "$TMP/ids2.json" -o "$TMP/p.json"
[ "$(count '"host_processor_core_count": "64",' p.json)" = 9 ] && ok || fail "--published-types: core counts as text"
# a round without recorded published types: a usage error naming the round
bash tests/e2e/lib/mkround.sh "$TMP/w" --version v6.1 >/dev/null
expect_exit 2 M report "$TMP/w" --version v6.1 --format json --published-types -o "$TMP/w.json"
expect_grep 'no published types of round v6.1' "$TMP/err"
[ ! -e "$TMP/w.json" ] && ok || fail "a refused report wrote its output"

# the official script on the same rows, byte for byte
GFR="$SHARED/upstream/submission-checkers/v5.1.1/generate_final_report.py"
if [ -f "$GFR" ] && /usr/bin/python3 -c 'import pandas, xlsxwriter' 2>/dev/null; then
  official() { # official TREE NAME: the script on mlsubmit check's summary.csv, in its own folder
    mkdir -p "$TMP/off-$2"
    M check "$1" --version v5.1 --csv "$TMP/off-$2/s.csv" >/dev/null 2>&1
    (cd "$TMP/off-$2" && /usr/bin/python3 "$GFR" --input s.csv --repository inference_results_v5.1 >/dev/null 2>&1)
  }
  official "$TMP/u" u
  cmp -s "$TMP/r.json" "$TMP/off-u/s_results.json" && ok ||
    { fail "records differ from generate_final_report.py's"; diff "$TMP/r.json" "$TMP/off-u/s_results.json" | head >&2; }
  MINI="$SHARED/testdata/v5.1-mini/tree"
  if [ -d "$MINI" ]; then
    official "$MINI" mini
    expect_exit 0 M report "$MINI" --version v5.1 --format json --ids "$TMP/mini-ids.json" -o "$TMP/mini.json"
    cmp -s "$TMP/mini.json" "$TMP/off-mini/s_results.json" && ok ||
      { fail "mini: records differ from generate_final_report.py's"; diff "$TMP/mini.json" "$TMP/off-mini/s_results.json" | head >&2; }
  fi
  # and a few seeds of the differential test (tests/diff/reportdiff.py: seeded system fields)
  # (not under valgrind: 8 x check + report)
  if [ -z "$SLOW_TOOL" ]; then
    python3 tests/diff/reportdiff.py --mlsubmit "$MLSUBMIT" --n 8 --first 1 >"$TMP/rd.out" 2>&1 && ok ||
      { fail "tests/diff/reportdiff.py"; tail -20 "$TMP/rd.out" >&2; }
    # and a generated v5.0 round against the v5.0.1 script
    python3 tests/diff/reportdiff.py --mlsubmit "$MLSUBMIT" --round v5.0 --n 4 --first 1 >"$TMP/rd50.out" 2>&1 && ok ||
      { fail "tests/diff/reportdiff.py --round v5.0"; tail -20 "$TMP/rd50.out" >&2; }
  fi
else
  echo "SKIP (part) $(basename "$0"): no official generate_final_report.py, or /usr/bin/python3 lacks pandas/xlsxwriter"
fi
finish
