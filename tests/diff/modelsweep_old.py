#!/usr/bin/env python3
"""Model sweep of the older rounds: `mlsubmit check` against the official MLCommons checker on a
tree that holds EVERY model of a round from v0.5 to v3.0, then on one-change copies of it.

modelsweep.py does this for the rounds tests/e2e/lib/mkround.sh generates (v3.1 on); the older
rounds have real excerpts instead (../shared/rounds/<R>/tree, with the official verdict on them),
and this sweep builds from those. For a round R (v0.5, v0.7, v1.0, v1.1, v2.0, v2.1, v3.0; v1.1 and v2.1
are first derived from v1.0 and v2.0 with derive.py), the base tree's closed division holds, for
the datacenter system "dc1" and the edge system "edge1", every model of the official checker's
MODEL_CONFIG[R]["models"] in every scenario its "required-scenarios-<type>" asks for. Each such
result is a REAL result directory of the same scenario from the excerpt (one the official checker
accepted there: a row of its expected_summary.csv), copied with its measurements and compliance
folders and retargeted to the model: folders renamed, the measurements JSON renamed to the new
system, and what the checker reads per model rewritten with the numbers of the official config,
read as data (Python's ast, as modelsweep.Official does): the performance sample count, the
minimum query count, the Server (MultiStream) latency constraint, the Offline samples per query
(OFFLINE_MIN_SPQ), in the detail log (LoadGen's :::MLLOG keys, or the "key : value" lines of the
v0.7 era) and the summary alike; an accuracy.txt line per metric of the model's accuracy-target
that the tag's ACC_PATTERN reads (checked here with that pattern); and the compliance tests that
the tag's check_compliance_dir asks of that model in that scenario, interpreted from its code
(copied from real compliance folders of the excerpt, retargeted the same way).

v0.5 (tag v0.7.1, --version v0.5) requires no scenario: Config.get_optional makes all four optional
for it, and the base tree holds each model in each scenario the excerpt has a result of. Its
published results have no accuracy log: the base tree gets a truncated one (MAX_ACCURACY_LOG_SIZE),
as it does wherever a template lacks it or holds an untruncated one.

Cases: the base tree, then one change (accuracy just below or at a target, a compliance test
folder removed, the performance sample count one below, the minimum query count or the Offline
samples per query below or at the minimum, a latency over or at its constraint, a required scenario
missing, ...; tests/diff/README.md lists them all), compared with difftest.py
(rows as multisets, counts, exit status; where the official checker crashes, mlsubmit must exit 1
and name the file).

Usage (see tests/diff/README.md, Model sweep of the older rounds):
  modelsweep_old.py [--rounds v3.0,...] [--cases all|base|N] [--only SUBSTR] [--keep DIR] [--list]
"""
import argparse
import ast
import collections
import csv
import json
import os
import random
import re
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import difftest  # noqa: E402
import derive  # noqa: E402
from modelsweep import Official, Case, common_args, print_case, accuracy_text, accuracy_values, fmt, just_below, rewrite, run_case  # noqa: E402

ROUNDS = ("v0.5", "v0.7", "v1.0", "v1.1", "v2.0", "v2.1", "v3.0")
# a round without an excerpt, derived from the excerpt of another
DERIVED = {"v1.1": "v1.0", "v2.1": "v2.0"}
SYSTEMS = (("dc1", "datacenter"), ("edge1", "edge"))
SUBMITTER = "Org1"
SCEN_FIX = {"singlestream": "SingleStream", "multistream": "MultiStream", "server": "Server", "offline": "Offline"}


class OldOfficial(Official):
    def compliance_tests(self, model, scen=None):
        """check_compliance_dir's test_list for (model, scenario); [] where the tag has none (v0.7.1)"""
        return super().compliance_tests(model, scen) if "check_compliance_dir" in self.funcs else []

    def _version_return(self, func):
        """what Config.<func> returns for this version before reading MODEL_CONFIG (v0.7.1's
        get_required and get_optional: `if self.version in ["v0.5"]: return set([...])`), or None"""
        fn = self.funcs.get(func)
        for n in ast.walk(fn) if fn else []:
            if isinstance(n, ast.If) and isinstance(n.test, ast.Compare) and ast.unparse(n.test.left) == "self.version" \
                    and isinstance(n.test.ops[0], ast.In) and isinstance(n.body[0], ast.Return) \
                    and self.version in [e.value for e in n.test.comparators[0].elts]:
                call = n.body[0].value
                if isinstance(call, ast.Call) and ast.unparse(call.func) == "set":
                    return list(self.g.value(call.args[0])) if call.args else []
        return None

    def scenarios(self, model, stype):
        req, opt = self._version_return("get_required"), self._version_return("get_optional")
        if req is None and opt is None:
            return super().scenarios(model, stype)
        return (req or []), (opt or [])

    def offline_min_spq(self):
        return self.consts.get("OFFLINE_MIN_SPQ")


# ------------------------------------------------------------------ log rewriting --
# what the checkers read per model: (the :::MLLOG key, the "key : value" text of the summary and
# of the v0.7-era detail log)
FIELDS = {
    "psc": (("effective_performance_sample_count", "qsl_reported_performance_count"), ("performance_sample_count",)),
    "min_query": (("effective_min_query_count",), ("min_query_count",)),
    "spq": (("effective_samples_per_query",), ("samples_per_query",)),
    "target_latency": (("effective_target_latency_ns",), ("target_latency (ns)",)),
    "p99": (("result_99.00_percentile_latency_ns",), ("99.00 percentile latency (ns)",)),
    "p99_query": (("result_99.00_percentile_per_query_latency_ns",), ()),
}


def read_fields(path):
    """field -> int value of a detail log or summary (the first one found)"""
    out = {}
    for line in open(path, encoding="utf-8", errors="replace"):
        if line.startswith(":::MLLOG "):
            try:
                r = json.loads(line[len(":::MLLOG "):])
            except ValueError:
                continue
            for f, (keys, _) in FIELDS.items():
                if r.get("key") in keys and f not in out and isinstance(r.get("value"), (int, float)):
                    out[f] = r["value"]
        else:
            for f, (_, texts) in FIELDS.items():
                for t in texts:
                    m = re.match(r"^(?:.*ns : )?\s*%s\s*:\s*(\d+)" % re.escape(t), line)
                    if m and f not in out:
                        out[f] = int(m.group(1))
    return out


def set_fields(path, values):
    """rewrite the fields in a detail log or summary (a new file: the tree may be hard links)"""
    lines = open(path, encoding="utf-8", errors="surrogateescape").read().split("\n")
    for i, line in enumerate(lines):
        if line.startswith(":::MLLOG "):
            try:
                r = json.loads(line[len(":::MLLOG "):])
            except ValueError:
                continue
            for f, v in values.items():
                if r.get("key") in FIELDS[f][0]:
                    r["value"] = v
                    lines[i] = ":::MLLOG " + json.dumps(r)
        else:
            for f, v in values.items():
                for t in FIELDS[f][1]:
                    lines[i] = re.sub(r"^((?:.*ns : )?\s*%s\s*:\s*)\d+" % re.escape(t),
                                      lambda m, v=v: m.group(1) + str(v), lines[i])
    os.unlink(path)
    with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write("\n".join(lines))


def perf_logs(d):
    """the detail logs and summaries of the performance runs under d"""
    out = []
    for root, _, files in os.walk(d):
        if os.sep + "performance" + os.sep in root + os.sep or os.path.basename(root).startswith("run_"):
            out += [os.path.join(root, f) for f in sorted(files) if f in ("mlperf_log_detail.txt", "mlperf_log_summary.txt")]
    return sorted(out)


# ------------------------------------------------------------------ templates --
class Excerpt:
    """The real excerpt of a round: its valid results per scenario (rows of expected_summary.csv),
    their system descriptions, and its compliance test folders per (scenario, test)."""

    def __init__(self, tree, summary):
        self.tree = tree
        self.rows = []
        with open(summary, encoding="utf-8") as f:
            for row in csv.DictReader(f):
                self.rows.append(row)
        self.rows.sort(key=lambda r: (r["Division"] != "closed", r["Location"]))
        self.comp = collections.defaultdict(list)
        for div in ("closed",):
            ddir = os.path.join(tree, div)
            for sub in sorted(os.listdir(ddir)) if os.path.isdir(ddir) else []:
                cdir = os.path.join(ddir, sub, "compliance")
                for root, dirs, _ in os.walk(cdir):
                    dirs.sort()
                    for d in dirs:
                        if re.match(r"^TEST\d", d):
                            scen = SCEN_FIX.get(os.path.basename(root).lower(), os.path.basename(root))
                            self.comp[(scen, d)].append(os.path.join(root, d))

    def result(self, scen):
        """(division, submitter, system, model, scenario folder) of a result of scen: one the
        official checker accepted (a row of expected_summary.csv, the closed division first), else
        one of the closed division it rejected (tag v0.7.1 rejects every SingleStream run: its
        RESULT_FIELD has no "Single Stream" key); one with a measurements folder where possible"""
        cands = []
        for r in self.rows:
            if r["Scenario"] == scen and "/results/" in r["Location"]:
                div, sub, _, sysn, model, sdir = r["Location"].split("/")
                cands.append((div, sub, sysn, model, sdir))
        cdir = os.path.join(self.tree, "closed")
        for sub in sorted(os.listdir(cdir)):
            rdir = os.path.join(cdir, sub, "results")
            for sysn in sorted(os.listdir(rdir)) if os.path.isdir(rdir) else []:
                sdir = os.path.join(rdir, sysn)
                for model in sorted(os.listdir(sdir)) if os.path.isdir(sdir) else []:
                    mdir = os.path.join(sdir, model)
                    cands += [("closed", sub, sysn, model, d) for d in (sorted(os.listdir(mdir)) if os.path.isdir(mdir) else [])
                              if SCEN_FIX.get(d.lower(), d) == scen]
        with_meas = [c for c in cands if os.path.isdir(os.path.join(self.tree, c[0], c[1], "measurements", *c[2:]))]
        return (with_meas or cands or [None])[0]

    def compliance(self, scen, test):
        """a real folder of that compliance test: one that passed (verify_performance.txt says TEST
        PASS; TEST01's accuracy passed with no baseline to compare), of the same scenario where
        possible; TEST04 (tags v2.1 on) is a TEST04-A folder of the rounds before"""
        def flaw(p):
            n = 0
            vp = os.path.join(p, "verify_performance.txt")
            if os.path.exists(vp) and "TEST PASS" not in open(vp, encoding="utf-8", errors="replace").read():
                n += 2
            va = os.path.join(p, "verify_accuracy.txt")
            if os.path.exists(va):
                passed = "TEST PASS" in open(va, encoding="utf-8", errors="replace").read()
                accd = os.path.join(p, "accuracy")
                extra = os.path.isdir(accd) and "baseline_accuracy.txt" in os.listdir(accd)
                n += 1 if (not passed or extra) else 0
            return n
        for t in (test, test + "-A"):
            cands = [(flaw(p), s != scen, p) for (s, tt), ps in self.comp.items() if tt == t for p in ps]
            if cands:
                return min(cands)[2]
        return None

    def system(self, stype):
        """a system description of that type among the valid results (any type else)"""
        for want in (stype, None):
            for r in self.rows:
                if want is None or r["SystemType"] == want:
                    div, sub, _, sysn = r["Location"].split("/")[:4]
                    p = os.path.join(self.tree, div, sub, "systems", sysn + ".json")
                    if os.path.isfile(p):
                        return p
        raise SystemExit("modelsweep_old: no system description in " + self.tree)


def excerpt_of(shared, version, off, work):
    src = DERIVED.get(version, version)
    rdir = os.path.join(shared, "rounds", src)
    if not os.path.isdir(os.path.join(rdir, "tree")):
        return None
    tree = os.path.join(rdir, "tree")
    if version in DERIVED:
        out = os.path.join(work, "derived-" + version)
        shutil.rmtree(out, ignore_errors=True)
        derive.derive(tree, version, out, shared)
        tree = out
    return Excerpt(tree, os.path.join(rdir, "expected_summary.csv"))


# ------------------------------------------------------------------ the tree --
class Sweep:
    def __init__(self, off, ex, tree):
        self.off, self.ex, self.tree = off, ex, tree
        self.entries = []   # (system, model, scenario, required?)
        self.comp = {}      # (model, scenario) -> compliance tests
        self.missing = []   # (system, model, scenario) without a template

    def path(self, kind, sysn, model, scen=None, *rest):
        p = [self.tree, "closed", SUBMITTER, kind, sysn, model]
        if scen:
            p.append(scen)
        return os.path.join(*(p + list(rest)))

    def values(self, model, scen, logs):
        """what the base tree's performance logs hold for (model, scenario): the official numbers
        (a template's own value where it already satisfies them)"""
        off = self.off
        have = {}
        for p in logs:
            for k, v in read_fields(p).items():
                have.setdefault(k, v)
        vals = {"psc": off.psc(model)}
        mq = off.min_queries(model, scen)
        if mq:
            vals["min_query"] = max(mq, have.get("min_query", 0))
        spq = off.offline_min_spq()
        if scen == "Offline" and spq:
            vals["spq"] = max(spq, have.get("spq", 0))
        lat = off.latency(model, scen)
        if lat:
            vals["target_latency"] = min(lat, have.get("target_latency", lat)) or lat
            key = "p99_query" if scen == "MultiStream" and "p99_query" in have else "p99"
            vals[key] = min(lat // 2, have.get(key, lat // 2))
            if key == "p99_query":
                vals["p99"] = min(lat // 2, have.get("p99", lat // 2))
        return vals

    def build(self):
        off, ex = self.off, self.ex
        c = os.path.join(self.tree, "closed", SUBMITTER)
        os.makedirs(os.path.join(c, "systems"))
        for sysn, stype in SYSTEMS:
            j = json.load(open(ex.system(stype), encoding="utf-8"))
            j.update(submitter=SUBMITTER, division="closed", system_type=stype, system_name=sysn)
            with open(os.path.join(c, "systems", sysn + ".json"), "w") as f:
                json.dump(j, f, indent=2)
        for model in off.models:
            for sysn, stype in SYSTEMS:
                req, opt = off.scenarios(model, stype)
                # the optional scenarios where no scenario is required (v0.5: all four optional)
                for scen in req or opt:
                    if ex.result(scen) is None:
                        self.missing.append((sysn, model, scen))
                        continue
                    self.entries.append((sysn, model, scen, scen in req))
                    self.scenario(sysn, model, scen)

    def scenario(self, sysn, model, scen):
        off, ex = self.off, self.ex
        div, sub, tsys, tmodel, tscen = ex.result(scen)
        troot = os.path.join(ex.tree, div, sub)
        res = self.path("results", sysn, model, scen)
        shutil.copytree(os.path.join(troot, "results", tsys, tmodel, tscen), res)
        # accuracy.txt: the model's metrics just above their targets, the template's hash line
        accp = os.path.join(res, "accuracy", "accuracy.txt")
        text = accuracy_text(off, model, accuracy_values(off, model))
        hashes = [ln for ln in open(accp, encoding="utf-8", errors="replace") if ln.startswith("hash=")]
        if hashes:
            text = "".join(ln for ln in text.splitlines(True) if not ln.startswith("hash=")) + hashes[0]
        rewrite(accp, text)
        # the accuracy log, where the excerpt has none (v0.5: none published) or an untruncated
        # one: a truncated log as the rules ask (MAX_ACCURACY_LOG_SIZE)
        logp = os.path.join(res, "accuracy", "mlperf_log_accuracy.json")
        limit = off.consts.get("MAX_ACCURACY_LOG_SIZE")
        if not os.path.exists(logp) or (limit and os.path.getsize(logp) > limit):
            rewrite(logp, '[\n{ "seq_id" : 0, "qsl_idx" : 5, "data" : "0A0B" }\n]\n') if os.path.exists(logp) else \
                open(logp, "w").write('[\n{ "seq_id" : 0, "qsl_idx" : 5, "data" : "0A0B" }\n]\n')
        # measurements: the JSON named after the new system, its implementation's code folder
        meas = self.path("measurements", sysn, model, scen)
        tmeas = os.path.join(troot, "measurements", tsys, tmodel, tscen)
        os.makedirs(meas)
        impl = "impl"
        for f in sorted(os.listdir(tmeas)) if os.path.isdir(tmeas) else []:
            src = os.path.join(tmeas, f)
            if not os.path.isfile(src):
                continue
            if f.endswith(".json") and f.startswith(tsys):
                rest = f[len(tsys):-len(".json")]
                for suf in ("_" + tscen, "_" + scen):
                    if rest.endswith(suf):
                        rest = rest[:-len(suf)]
                impl = rest.lstrip("_") or impl
                f = "%s_%s_%s.json" % (sysn, impl, scen)
            shutil.copyfile(src, os.path.join(meas, f))
        code = os.path.join(self.tree, "closed", SUBMITTER, "code", model, impl)
        os.makedirs(code, exist_ok=True)
        with open(os.path.join(code, "README.md"), "w") as f:
            f.write("# code\n")
        # compliance: the tests check_compliance_dir asks of (model, scenario), real folders of
        # that test (of the same scenario where the excerpt has one)
        tests = off.compliance_tests(model, scen)
        self.comp[(model, scen)] = tests
        comp = self.path("compliance", sysn, model, scen)
        for t in tests:
            src = ex.compliance(scen, t)
            if src:
                shutil.copytree(src, os.path.join(comp, t))
                if os.path.basename(src) != t:
                    # TEST04 from a TEST04-A folder: its run, a short one that tags v2.1 on reject
                    # as such, replaced by the result's own performance run (TEST04 is one)
                    run = os.path.join(comp, t, "performance", "run_1")
                    shutil.rmtree(run)
                    shutil.copytree(os.path.join(res, "performance", "run_1"), run)
        logs = perf_logs(os.path.join(res, "performance"))
        vals = self.values(model, scen, logs)
        for p in logs + perf_logs(comp):
            set_fields(p, vals)


def build_round(version, off, ex, work):
    tree = os.path.join(work, "sweep-" + version)
    shutil.rmtree(tree, ignore_errors=True)
    os.makedirs(tree)
    sw = Sweep(off, ex, tree)
    sw.build()
    return sw


# ------------------------------------------------------------------ one-change cases --
def edit_fields(tr, rels, **vals):
    for rel in rels:
        set_fields(os.path.join(tr, rel), vals)


def set_system_type(tr, sysn, stype):
    p = os.path.join(tr, "closed", SUBMITTER, "systems", sysn + ".json")
    j = json.load(open(p, encoding="utf-8"))
    j["system_type"] = stype
    rewrite(p, json.dumps(j, indent=2))


def rewrite_metric(off, tr, rel, metric, text):
    """accuracy.txt with the line of metric holding text (the other lines kept)"""
    p = os.path.join(tr, rel)
    lines = open(p, encoding="utf-8").read().splitlines(True)
    pat = off.pattern(metric)
    for i, ln in enumerate(lines):
        m = re.match(pat, ln)
        if m:
            lines[i] = ln[:m.start(1)] + text + ln[m.end(1):]
            break
    else:
        raise SystemExit("modelsweep_old: no %s line in %s" % (metric, p))
    rewrite(p, "".join(lines))


def test01_failed(off, tr, d, model, factor):
    """TEST01 of d failed its accuracy check, with a baseline and a compliance accuracy of the
    model's first metric factor times the allowed delta apart (1 %, 0.1 % for a 99.9 model)"""
    acc = os.path.join(tr, d, "accuracy")
    rewrite(os.path.join(tr, d, "verify_accuracy.txt"), "TEST FAIL\n")
    vals = accuracy_values(off, model)
    metric = off.targets(model)[0][0]
    allowed = 0.1 if "99.9" in model else 1.0
    comp = dict(vals)
    comp[metric] = vals[metric] / (1 - factor * allowed / 100)
    for name, v in (("baseline_accuracy.txt", vals), ("compliance_accuracy.txt", comp)):
        p = os.path.join(acc, name)
        if os.path.exists(p):
            os.unlink(p)
        with open(p, "w", encoding="utf-8") as f:
            f.write(accuracy_text(off, model, v))
    if not os.path.exists(os.path.join(acc, "accuracy.txt")):
        with open(os.path.join(acc, "accuracy.txt"), "w", encoding="utf-8") as f:
            f.write(accuracy_text(off, model, vals))


def cases(sw):
    off = sw.off
    out = [Case("base", lambda t: None, [])]
    # a model's folders named by an alias of the tag's model_mapping (resnet50 for resnet, ...)
    for alias, model in sorted(off.mc.get("model_mapping", {}).items()):
        if model not in off.models or alias in off.models:
            continue

        def rename(tr, model=model, alias=alias):
            for kind in ("results", "measurements", "compliance"):
                for sysn, _ in SYSTEMS:
                    d = os.path.join(tr, "closed", SUBMITTER, kind, sysn, model)
                    if os.path.isdir(d):
                        os.rename(d, os.path.join(os.path.dirname(d), alias))
            d = os.path.join(tr, "closed", SUBMITTER, "code", model)
            os.rename(d, os.path.join(os.path.dirname(d), alias))
        out.append(Case("alias %s for %s" % (alias, model), rename,
                        [os.path.join("closed", SUBMITTER, "results", s, alias) for s, _ in SYSTEMS]))
    # a system of both types (tags v1.0 on read required-scenarios-datacenter-edge for it)
    for sysn, stype in SYSTEMS:
        out.append(Case("%s as datacenter,edge" % sysn,
                        lambda tr, sysn=sysn: set_system_type(tr, sysn, "datacenter,edge"),
                        [os.path.join("closed", SUBMITTER, "systems", sysn + ".json")]))
    # the whole submission in the open division (accuracy, scenarios and compliance not required)
    def to_open(tr):
        os.rename(os.path.join(tr, "closed"), os.path.join(tr, "open"))
        for sysn, _ in SYSTEMS:
            p = os.path.join(tr, "open", SUBMITTER, "systems", sysn + ".json")
            j = json.load(open(p, encoding="utf-8"))
            j["division"] = "open"
            rewrite(p, json.dumps(j, indent=2))
    out.append(Case("division open", to_open, [os.path.join("open", SUBMITTER)]))
    seen = set()
    lower = set()
    for sysn, model, scen, required in sw.entries:
        rel = lambda kind, *rest: os.path.join("closed", SUBMITTER, kind, sysn, model, scen, *rest)  # noqa: E731
        acc_rel = rel("results", "accuracy", "accuracy.txt")
        logs = [os.path.relpath(p, sw.tree) for p in perf_logs(os.path.join(sw.tree, rel("results", "performance")))]
        tag = "%s/%s/%s" % (sysn, model, scen)
        dirs = [rel(k) for k in ("results", "measurements", "compliance")]
        first = model not in seen
        seen.add(model)
        if first:
            for m, t in off.targets(model):
                # just below the target, and exactly at it in the digits of Python's shortest
                # repr of the config's product
                for name, text in (("acc_below", fmt(just_below(t))), ("acc_at_target", repr(t))):
                    out.append(Case("%s %s %s" % (tag, name, m),
                                    lambda tr, a=acc_rel, m=m, x=text: rewrite_metric(off, tr, a, m, x), [acc_rel]))
            out.append(Case("%s psc_minus_1" % tag,
                            lambda tr, ls=logs, n=off.psc(model) - 1: edit_fields(tr, ls, psc=n), logs))
        for t in sw.comp.get((model, scen), []):
            d = rel("compliance", t)
            out.append(Case("%s drop %s" % (tag, t), lambda tr, d=d: shutil.rmtree(os.path.join(tr, d)), [d]))
            clogs = [os.path.relpath(p, sw.tree) for p in perf_logs(os.path.join(sw.tree, d))]
            if first and clogs:
                out.append(Case("%s %s psc_minus_1" % (tag, t),
                                lambda tr, ls=clogs, n=off.psc(model) - 1: edit_fields(tr, ls, psc=n), clogs))
            if first and t == "TEST01":
                # TEST01's accuracy failed: the baseline and compliance accuracy compared (tags
                # v2.1 on, check_compliance_acc_dir), a delta within and one over the allowed
                for name, factor in (("within", 0.5), ("over", 2.0)):
                    out.append(Case("%s TEST01 acc_fail_%s" % (tag, name),
                                    lambda tr, d=d, mo=model, f=factor: test01_failed(off, tr, d, mo, f),
                                    [os.path.join(d, "accuracy", "compliance_accuracy.txt")]))
        if scen not in lower:
            # the scenario folder in lower case (SCENARIO_MAPPING of the tags maps it)
            lower.add(scen)
            out.append(Case("%s lower_case_scenario" % tag,
                            lambda tr, ds=dirs: [os.rename(os.path.join(tr, d), os.path.join(tr, d[:-len(scen)] + scen.lower()))
                                                 for d in ds if os.path.isdir(os.path.join(tr, d))],
                            [dirs[0]]))
        mq = off.min_queries(model, scen)
        if mq and mq > 1:
            out.append(Case("%s min_query_below" % tag,
                            lambda tr, ls=logs, n=mq - 1: edit_fields(tr, ls, min_query=n), logs))
            out.append(Case("%s min_query_at" % tag,
                            lambda tr, ls=logs, n=mq: edit_fields(tr, ls, min_query=n), logs))
        spq = off.offline_min_spq()
        if scen == "Offline" and spq and spq > 1:
            out.append(Case("%s spq_%d" % (tag, spq - 1),
                            lambda tr, ls=logs, n=spq - 1: edit_fields(tr, ls, spq=n), logs))
            out.append(Case("%s spq_%d" % (tag, spq),
                            lambda tr, ls=logs, n=spq: edit_fields(tr, ls, spq=n), logs))
        lat = off.latency(model, scen)
        if lat:
            key = "p99_query" if scen == "MultiStream" else "p99"

            def over(tr, ls=logs, n=lat + 1, key=key):
                edit_fields(tr, ls, target_latency=n, p99=n)
                if key == "p99_query":
                    edit_fields(tr, ls, p99_query=n)
            out.append(Case("%s latency_over" % tag, over, logs))
            out.append(Case("%s latency_at_limit" % tag, lambda tr, f=over, n=lat: f(tr, n=n), logs))
        runs = sorted(d for d in os.listdir(os.path.join(sw.tree, rel("results", "performance"))) if d.startswith("run_"))
        if len(runs) > 1:
            # the last of several runs (tag v0.7.1 asks run_1 to run_5 of a Server result)
            last = rel("results", "performance", runs[-1])
            out.append(Case("%s drop %s" % (tag, runs[-1]), lambda tr, d=last: shutil.rmtree(os.path.join(tr, d)), [last]))
        if required:
            out.append(Case(tag + " missing_scenario", lambda tr, ds=dirs: remove_dirs(tr, ds), dirs[:1]))
    # a scenario's performance runs from another scenario of the model (the results the tags infer:
    # Offline from SingleStream, and from v2.0 on MultiStream from SingleStream and Offline from
    # MultiStream)
    have = collections.defaultdict(set)
    for sysn, model, scen, _ in sw.entries:
        have[(sysn, model)].add(scen)
    for (sysn, model), scens in have.items():
        for dst, src in (("Offline", "SingleStream"), ("MultiStream", "SingleStream"), ("Offline", "MultiStream")):
            if dst in scens and src in scens:
                perf = [os.path.join("closed", SUBMITTER, "results", sysn, model, x, "performance") for x in (dst, src)]
                out.append(Case("%s/%s/%s run_from_%s" % (sysn, model, dst, src),
                                lambda tr, p=perf: (shutil.rmtree(os.path.join(tr, p[0])),
                                                    shutil.copytree(os.path.join(tr, p[1]), os.path.join(tr, p[0]))),
                                perf[:1]))
    # a result where the tag asks for none: a scenario of the model on the other system that this
    # system type neither requires nor allows, or a model this system type does not list at all
    for sysn, model, scen, _ in sw.entries:
        for other, stype in SYSTEMS:
            req, opt = off.scenarios(model, stype)
            if other == sysn or scen in req + opt or scen in have[(other, model)]:
                continue
            src = [os.path.join("closed", SUBMITTER, k, sysn, model, scen) for k in ("results", "measurements", "compliance")]

            def copy(tr, src=src, sysn=sysn, other=other):
                for d in src:
                    if os.path.isdir(os.path.join(tr, d)):
                        shutil.copytree(os.path.join(tr, d), os.path.join(tr, d.replace(os.sep + sysn + os.sep, os.sep + other + os.sep)))
            out.append(Case("%s/%s/%s not asked of %s" % (other, model, scen, stype), copy,
                            [src[0].replace(os.sep + sysn + os.sep, os.sep + other + os.sep)]))
    return out


def remove_dirs(tr, dirs):
    for d in dirs:
        shutil.rmtree(os.path.join(tr, d), ignore_errors=True)


def select(todo, args, v):
    """the cases to run of round v: --only, then base, all, or the base and N sampled ones (with
    those --case names)"""
    todo = [c for c in todo if not args.only or args.only in c.name]
    if args.cases in ("all", "base"):
        return todo[:1] if args.cases == "base" else todo
    named = {c.split(":", 1)[1] for c in args.case if c.startswith(v + ":")}
    unknown = named - {c.name for c in todo}
    if unknown:
        raise SystemExit("modelsweep_old: no case %s in %s" % (", ".join(sorted(unknown)), v))
    order = {c.name: i for i, c in enumerate(todo)}
    rest = todo[1:]
    random.Random("%s-%d" % (v, args.seed)).shuffle(rest)
    keep = {c.name for c in rest[:int(args.cases)]} | named
    return todo[:1] + sorted((c for c in rest if c.name in keep), key=lambda c: order[c.name])


def sweep_round(args, v, checker, tag, work):
    """runs round v's cases; a Counter of outcomes, or None where the round has no excerpt"""
    off = OldOfficial(checker, v)
    ex = excerpt_of(args.shared, v, off, work)
    if ex is None:
        print("note: %s skipped, no excerpt of it (or of the round it derives from)" % v)
        return None
    sw = build_round(v, off, ex, work)
    for sysn, model, scen in sw.missing:
        print("note: %s %s/%s/%s left out: the excerpt has no result of that scenario to copy" % (v, sysn, model, scen))
    if args.tree_out:
        shutil.rmtree(os.path.join(args.tree_out, v), ignore_errors=True)
        shutil.copytree(sw.tree, os.path.join(args.tree_out, v))
    todo = select(cases(sw), args, v)
    if args.list:
        print("".join("%s\t%s\n" % (v, c.name) for c in todo), end="")
        return collections.Counter()
    rnd = difftest.Round("sweep-" + v, sw.tree, v, tag, checker)
    per, accepted = collections.Counter(), []
    for case in todo:
        outcome, d, o, me = run_case(args, rnd, sw, case, work)
        per[outcome] += 1
        if case.name != "base" and o.rc == 0:
            # a change the official checker let through (a check that tag only logs, or makes
            # not at all): listed with --verbose
            accepted.append(case.name)
        print_case(outcome, "%s %s" % (v, case.name), d, o, me, args.verbose)
    if accepted and args.verbose:
        print("%s: %d one-change cases the official checker accepted:\n  %s" % (v, len(accepted), "\n  ".join(accepted)))
    print("modelsweep_old %s: %d models, %d scenario results, %d cases: %d same, %d official crashed, "
          "%d divergences (%d changes accepted by both)" % (v, len(off.models), len(sw.entries), sum(per.values()),
                                                            per["same"], per["crashed"], per["DIFF"], len(accepted)),
          flush=True)
    shutil.rmtree(sw.tree, ignore_errors=True)
    return per


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add = ap.add_argument
    add("--rounds", default=",".join(ROUNDS))
    add("--cases", default="all", help="all, base (the unchanged tree only) or N: the base tree and a "
        "deterministic sample of N one-change cases per round")
    add("--seed", type=int, default=1, help="the sample's seed (with --cases N)")
    add("--only", help="only cases whose name contains this text")
    add("--case", action="append", default=[], metavar="vX.Y:NAME", help="also run this case of that round "
        "(its name as --list prints it); repeatable")
    add("--list", action="store_true", help="list the cases, run nothing")
    add("--tree-out", help="keep each round's base tree here (DIR/vX.Y)")
    common_args(add, "print every case, and the changes the official checker accepted")
    args = ap.parse_args()
    args.shared, args.mlsubmit = os.path.abspath(args.shared), os.path.abspath(args.mlsubmit)
    if not all(os.path.isdir(os.path.join(args.shared, d)) for d in ("upstream", "rounds")):
        print("SKIP: %s has no upstream/ or rounds/ (no official checker or excerpt)" % args.shared)
        return 0
    tags = difftest.checker_tags(args.shared)
    work = tempfile.mkdtemp(prefix="mlsubmit-modelsweep-old-")
    total = collections.Counter()
    try:
        for v in args.rounds.split(","):
            checker = difftest.checker_path(args.shared, tags.get(v))
            per = sweep_round(args, v, checker, tags.get(v), work) if checker else None
            if checker is None:
                print("note: %s skipped, no official checker in the upstream sources" % v)
            total.update(per or {})
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if not args.list:
        print("modelsweep_old: %d cases, %d same, %d official crashed, %d divergences"
              % (sum(total.values()), total["same"], total["crashed"], total["DIFF"]))
    return 1 if total["DIFF"] else 0


if __name__ == "__main__":
    sys.exit(main())
