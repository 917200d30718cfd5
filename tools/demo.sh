#!/usr/bin/env bash
# make demo: the main job end to end on an embedded default (grows with each module).
set -euo pipefail
BIN=${1:?usage: demo.sh path/to/mlsubmit}
"$BIN" --version
