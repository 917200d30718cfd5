#!/usr/bin/env bash
# The repository explains itself: code, README and docs cite the MLCommons source a behaviour
# comes from (file and function) or a page of docs/, never the section numbers of specification
# files that are not part of the repository: src, README, docs, the rules and schemas (their
# descriptions and the audit.config lines they write), and the tests.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
cd "$REPO" || exit 1
if ! git rev-parse --git-dir >/dev/null 2>&1; then echo "SKIP $(basename "$0"): not a git checkout"; exit 0; fi

pat='spec [0-9]+(\.[0-9]+)*|\b(CHECKER|LOADGEN|COMPLIANCE)\.md\b|shared/(spec|rounds|upstream)|§ ?[0-9]'
git grep -nE "$pat" -- src README.md docs rules schemas > "$TMP/cites" 2>/dev/null
# tests may read ../shared (its rounds and upstream sources), but cite no section numbers either
git grep -nE 'spec [0-9]+(\.[0-9]+)*|\b(CHECKER|LOADGEN|COMPLIANCE)\.md\b|§ ?[0-9]' -- tests ':!tests/e2e/test_repo_citations.sh' >> "$TMP/cites" 2>/dev/null
if [ -s "$TMP/cites" ]; then
  fail "$(wc -l < "$TMP/cites") lines cite specification sections outside the repository:"
  head -20 "$TMP/cites" | sed 's/^/  /' >&2
else ok; fi
finish
