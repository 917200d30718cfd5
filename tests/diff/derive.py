#!/usr/bin/env python3
"""Derives a submission tree shaped like round TO from a real tree of an older round, so that a
round without an excerpt in ../shared/rounds (v1.1, v2.1, v3.1, v4.0, v4.1) can be compared
with its own official checker (difftest.py --tree OUT --round TO).

Usage: tests/diff/derive.py SRC_TREE TO OUT_TREE [--shared DIR]

What changes, all read from TO's official checker (MODEL_CONFIG[TO] and its module constants,
parsed with Python's ast like tools/gen-old-rules.py, never executed):
- the three LoadGen seeds in every mlperf_log_detail.txt become TO's `seeds` (`test05_seeds`
  under a TEST05 folder), so the runs are not rejected for the older round's seeds;
- every system JSON gets the fields TO's checker requires and lacks (and empty ones it needs
  meaningful), with a placeholder text;
Everything else (models, scenarios, logs, accuracy, compliance) is left as it is: where TO
differs (a model dropped, a compliance test added), both checkers must agree on the verdict.
Files are hard links where unchanged (a copy where linking fails); changed files are new."""
import ast
import importlib.util
import json
import os
import re
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
PLACEHOLDER = "derived for the differential test"


def gen_old_rules():
    spec = importlib.util.spec_from_file_location("gen_old_rules", os.path.join(REPO, "tools", "gen-old-rules.py"))
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def checker_of(shared, version):
    """the official checker script of the round (upstream/COMMITS.txt names the tag)"""
    tag = None
    for line in open(os.path.join(shared, "upstream", "COMMITS.txt")):
        f = line.split()
        if len(f) >= 3 and not line.startswith("#") and re.search(r"(^| )%s( |,|$|\))" % re.escape(version), " ".join(f[2:])):
            tag = f[0]
            break
    if not tag:
        raise SystemExit(f"derive: no official checker for {version} in upstream/COMMITS.txt")
    d = os.path.join(shared, "upstream", "submission-checkers", tag)
    for name in ("submission_checker.py", "submission-checker.py"):
        if os.path.exists(os.path.join(d, name)):
            return os.path.join(d, name)
    raise SystemExit(f"derive: no checker script in {d}")


def facts(checker, version):
    consts, mc = gen_old_rules().load(checker)
    cfg = {k.value: v for k, v in zip(mc[version].keys, mc[version].values)}
    lit = {}
    for k, v in cfg.items():
        try:
            lit[k] = ast.literal_eval(v)
        except ValueError:
            pass
    required = []
    for name, val in consts.items():
        if name.startswith("SYSTEM_DESC_REQUI") and "POWER" not in name and isinstance(val, list):
            required += [f for f in val if f not in required]
    meaningful = consts.get("SYSTEM_DESC_MEANINGFUL_RESPONSE_REQUIRED_FIELDS", [])
    return {"seeds": lit.get("seeds", {}), "test05_seeds": lit.get("test05_seeds", {}),
            "required": required, "meaningful": meaningful if isinstance(meaningful, list) else []}


# requested_* and effective_* (LoadGen 1.0 on) or bare keys
SEED_RE = re.compile(rb'("key": "(?:requested_|effective_)?(qsl_rng_seed|sample_index_rng_seed|schedule_rng_seed)", "value": )(\d+)')


def derive(src, to, out, shared):
    f = facts(checker_of(shared, to), to)
    changed = {"seeds": 0, "systems": 0}
    for root, dirs, files in os.walk(src):
        dirs.sort()
        rel = os.path.relpath(root, src)
        dst = os.path.join(out, rel) if rel != "." else out
        os.makedirs(dst, exist_ok=True)
        for name in sorted(files):
            s, d = os.path.join(root, name), os.path.join(dst, name)
            parts = rel.split(os.sep)
            if name == "mlperf_log_detail.txt" and f["seeds"]:
                seeds = f["test05_seeds"] if "TEST05" in parts and f["test05_seeds"] else f["seeds"]
                data = open(s, "rb").read()
                new = SEED_RE.sub(lambda m: m.group(1) + str(seeds.get(m.group(2).decode(), m.group(3).decode())).encode(), data)
                if new != data:
                    open(d, "wb").write(new)
                    changed["seeds"] += 1
                    continue
            if len(parts) >= 3 and parts[-1] == "systems" and name.endswith(".json"):
                try:
                    j = json.load(open(s, encoding="utf-8"))
                except (ValueError, UnicodeDecodeError):
                    j = None
                if isinstance(j, dict):
                    add = {k: PLACEHOLDER for k in f["required"] if k not in j}
                    add.update({k: PLACEHOLDER for k in f["meaningful"] if k in j and j[k] in ("", None)})
                    if add:
                        j.update(add)
                        with open(d, "w", encoding="utf-8") as o:
                            json.dump(j, o, indent=2)
                        changed["systems"] += 1
                        continue
            try:
                os.link(s, d)
            except OSError:
                shutil.copy2(s, d)
    return changed


def main():
    args = sys.argv[1:]
    shared = os.environ.get("MLSUBMIT_SHARED", os.path.join(REPO, "..", "shared"))
    if "--shared" in args:
        i = args.index("--shared")
        shared = args[i + 1]
        del args[i:i + 2]
    if len(args) != 3:
        raise SystemExit(__doc__.split("\n\n")[1])
    src, to, out = args
    if os.path.exists(out):
        raise SystemExit(f"derive: {out} exists")
    c = derive(src, to, out, shared)
    print(f"derive: {out}: a {to}-shaped copy of {src} ({c['seeds']} detail logs with {to}'s seeds, "
          f"{c['systems']} system JSONs completed)")


if __name__ == "__main__":
    main()
