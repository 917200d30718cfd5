#!/usr/bin/env bash
# make data: fetch the reference datasets and build the reference model weights.
#
# digits: the UCI optical-recognition handwritten digits (1,797 8x8 images) as shipped in
# Debian's python3-sklearn package. The .deb is downloaded with apt-get (no Python is installed)
# and only sklearn/datasets/data/digits.csv.gz is extracted, into data/digits/. Idempotent: an
# existing file whose SHA-256 matches rules/datasets/digits.sha256 is kept.
#
# Then, if the mlsubmit binary exists (build/mlsubmit, or $MLSUBMIT), the FP32 weights of the
# digits model are trained (data/digits/digits-fp32.bin) when missing or older than the binary.
set -euo pipefail
cd "$(dirname "$0")/.."

DATA=${MLSUBMIT_DATA:-data}
DIGITS_DIR="$DATA/digits"
MANIFEST=rules/datasets/digits.sha256
MEMBER=./usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz

checksum_ok() {
    [ -f "$DIGITS_DIR/digits.csv.gz" ] && (cd "$DIGITS_DIR" && sha256sum --quiet --status -c "$OLDPWD/$MANIFEST")
}

mkdir -p "$DIGITS_DIR"
if checksum_ok; then
    echo "data: $DIGITS_DIR/digits.csv.gz present, checksum ok"
else
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    echo "data: downloading python3-sklearn (Debian) for digits.csv.gz"
    if ! (cd "$tmp" && apt-get download -q python3-sklearn >/dev/null 2>"$tmp/apt.err"); then
        # A stale or empty package list: refresh it once and retry.
        SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
        $SUDO apt-get update -qq >/dev/null 2>&1 || true
        (cd "$tmp" && apt-get download -q python3-sklearn >/dev/null 2>"$tmp/apt.err") || {
            cat "$tmp/apt.err" >&2
            echo "data: cannot download python3-sklearn with apt-get" >&2
            exit 1
        }
    fi
    deb=$(ls "$tmp"/python3-sklearn_*.deb)
    dpkg-deb --fsys-tarfile "$deb" | tar -x -O "$MEMBER" > "$tmp/digits.csv.gz"
    (cd "$tmp" && sha256sum --quiet --status -c "$OLDPWD/$MANIFEST") || {
        echo "data: digits.csv.gz from $(basename "$deb") does not match $MANIFEST:" >&2
        sha256sum "$tmp/digits.csv.gz" >&2
        exit 1
    }
    mv "$tmp/digits.csv.gz" "$DIGITS_DIR/digits.csv.gz.tmp"
    mv "$DIGITS_DIR/digits.csv.gz.tmp" "$DIGITS_DIR/digits.csv.gz"
    echo "data: $DIGITS_DIR/digits.csv.gz extracted, checksum ok"
fi

BIN=${MLSUBMIT:-build/mlsubmit}
MODEL="$DIGITS_DIR/digits-fp32.bin"
if [ -x "$BIN" ]; then
    if [ ! -f "$MODEL" ] || [ "$BIN" -nt "$MODEL" ]; then
        "$BIN" digits train --data "$DATA" -o "$MODEL"
    else
        echo "data: $MODEL up to date"
    fi
else
    echo "data: $BIN is not built: 'make data' builds it, then trains the digits model"
fi
