#!/usr/bin/env bash
# The HTML report in headless Chromium: the page loads without console errors or JavaScript
# exceptions, the tables and charts render (DOM after scripts ran, screenshot), and the page's
# self-test sorts a table and applies a filter. Chromium comes from `make test`'s best-effort
# browser step (Debian package chromium); without it the test says so and skips.
source tests/e2e/lib.sh
M() { "$MLSUBMIT" "$@"; }
CHROME=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$CHROME" ]; then
  echo "SKIP $(basename "$0"): chromium is not installed and could not be installed (make deps-browser)"
  exit 0
fi
bash tests/e2e/lib/mkround.sh "$TMP/u" --version v6.1 >/dev/null
expect_exit 0 M report "$TMP/u" --version v6.1 --format html -o "$TMP/r.html" --title "HTML <test> & report"
run_chrome() { # run_chrome OUTFILE ARGS... (DOM or screenshot); stderr kept in $TMP/chrome.err
  local prof; prof=$(mktemp -d "$TMP/prof-XXXXXX")
  timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
    --disable-component-update --disable-sync --disable-dev-shm-usage --user-data-dir="$prof" \
    --enable-logging=stderr --v=0 "$@" 2>>"$TMP/chrome.err"
}
: > "$TMP/chrome.err"
run_chrome --dump-dom "file://$TMP/r.html#selftest" > "$TMP/dom.html"
[ -s "$TMP/dom.html" ] && ok || fail "chromium produced no DOM"
expect_grep 'data-ready="1"' "$TMP/dom.html"
expect_grep 'data-selftest="pass"' "$TMP/dom.html"
expect_grep '<pre id="js-errors"></pre>' "$TMP/dom.html"
expect_grep '<title>HTML &lt;test&gt; &amp; report</title>' "$TMP/dom.html"
expect_no_grep 'CONSOLE|Uncaught|SyntaxError|ReferenceError|TypeError' "$TMP/chrome.err"
[ "$(grep -o '<table class="results"' "$TMP/dom.html" | wc -l)" -ge 2 ] && ok || fail "result tables missing"
[ "$(grep -o '<tr data-division=' "$TMP/dom.html" | wc -l)" -ge 6 ] && ok || fail "result rows missing"
[ "$(grep -o 'class="bar"' "$TMP/dom.html" | wc -l)" -ge 3 ] && ok || fail "bar charts missing"
[ "$(grep -o 'class="lat"' "$TMP/dom.html" | wc -l)" -ge 6 ] && ok || fail "latency charts missing"
run_chrome --screenshot="$TMP/shot.png" --window-size=1280,1600 "file://$TMP/r.html" >/dev/null
[ "$(stat -c %s "$TMP/shot.png" 2>/dev/null || echo 0)" -gt 20000 ] && ok || fail "screenshot missing or blank"
# a page whose script throws is caught by this test (the harness itself is checked)
sed 's/applyFilters();$/applyFilters();undefinedFunctionCall();/' "$TMP/r.html" > "$TMP/broken.html"
grep -q undefinedFunctionCall "$TMP/broken.html" || sed -i 's#</script>#undefinedFunctionCall();</script>#' "$TMP/broken.html"
: > "$TMP/chrome.err"
run_chrome --dump-dom "file://$TMP/broken.html" > "$TMP/dom2.html"
grep -q 'data-ready="1"' "$TMP/dom2.html" && fail "a throwing script went unnoticed" || ok
finish
