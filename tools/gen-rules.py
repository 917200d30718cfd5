#!/usr/bin/env python3
"""Regenerates rules/<version>.json from the spec's rules-data.json (maintainer tool; the build
never runs it: the generated JSON files are committed and are the source of truth afterwards).

Usage: tools/gen-rules.py ../shared/spec/rules-data.json rules/

Each output file is self-contained: the round's own tables, the `_common` constants merged in,
and the behaviour data the C checker reads instead of hard-coding (profile, model-name guesses,
smoke-profile relaxations, per-profile extras)."""
import json
import sys

LEGACY_GUESSES = [
    {"contains": ["mobilenet", "efficientnet", "resnet50"], "model": "resnet"},
    {"contains": ["bert-99.9"], "model": "bert-99.9"},
    {"contains": ["bert-99"], "model": "bert-99"},
]
UNIFIED_GUESSES = LEGACY_GUESSES + [{"contains": ["llama3_1-405b"], "model": "llama3.1-405b"}]

SMOKE = {
    "description": "dry runs on short tests: no minimum test duration, one query is enough, "
                   "early stopping and a result_validity of INVALID caused only by the "
                   "duration/query minimums are tolerated (latency constraints still apply)",
    "min_duration_ms": 0,
    "min_query_count": 1,
    "ignore_early_stopping": True,
    "accept_invalid_if_perf_constraints_met": True,
}


def main():
    src, outdir = sys.argv[1], sys.argv[2]
    data = json.load(open(src))
    common = data["_common"]
    for version in ("v5.0", "v5.1", "v6.0", "v6.1"):
        v = data[version]
        out = {"$schema": "../schemas/rules.schema.json", "version": version}
        out.update(v)
        for k, val in common.items():
            if k in out:
                raise SystemExit(f"{version}: key {k} in both the round and _common")
            out[k] = val
        unified = v["profile"] == "unified"
        out["model_guesses"] = UNIFIED_GUESSES if unified else LEGACY_GUESSES
        out["result_extra_divisor"] = {"wan-2.2-t2v-a14b": 1000} if unified else {}
        out["min_duration_exempt_models"] = ["e2e-rag-qna", "e2e-rag-db"] if unified else []
        out["profiles"] = {"smoke": SMOKE}
        # summary.csv column design_power_watts: filled (W6) from v6.1 on, empty before
        out["csv_design_power"] = version == "v6.1"
        with open(f"{outdir}/{version}.json", "w") as f:
            json.dump(out, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
