#!/usr/bin/env bash
# Inputs that crashed a fuzz harness once (tests/fuzz/regressions/<harness>-*), replayed through
# the command that reads them: a clear message and exit, no crash (run under make asan too).
. "$(dirname "$0")/lib.sh"
R=$REPO/tests/fuzz/regressions
M=$MLSUBMIT
# rules-*: a rules file of a round, loaded by `check`
for f in "$R"/rules-*; do
  [ -e "$f" ] || continue
  d=$TMP/data-$(basename "$f")
  mkdir -p "$d/rules" "$TMP/emptyroot"
  cp -r "$REPO/schemas" "$d/"
  cp "$f" "$d/rules/v9.9.json"
  MLSUBMIT_DATA_DIR=$d expect_exit 3 "$M" check "$TMP/emptyroot" --version v9.9 --no-csv
  expect_grep "v9.9.json" "$TMP/err" "$(basename "$f")"
  if grep -qE 'Sanitizer|runtime error' "$TMP/err"; then fail "$(basename "$f"): sanitizer report"; else ok; fi
done
finish
