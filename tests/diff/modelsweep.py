#!/usr/bin/env python3
"""Model sweep: `mlsubmit check` against the official MLCommons checker on a submission tree that
holds EVERY model of a round, then on one-change copies of it.

For a round R (v3.1, v4.0, v4.1, v5.0, v5.1: the rounds tests/e2e/lib/mkround.sh generates), the
base tree is mkround.sh's output whose closed division is rebuilt: for every model of the
official checker's MODEL_CONFIG[R]["models"], results in every scenario its
"required-scenarios-<type>" (and "optional-scenarios-<type>") asks for, on the datacenter system
"dc1" and the edge system "edge1". mkround.sh's resnet50 logs are the template of a vision (or
other) model, its LLM's logs the template of an LLM; every number comes from the official checker
of the round, read as data (Python's ast, never executed, as tools/gen-old-rules.py does):
performance-sample-count, dataset-size, min-queries, latency-constraint, the Offline samples per
query (OFFLINE_MIN_SPQ and OFFLINE_MIN_SPQ_SINCE_V4), seeds and test05_seeds, accuracy-target and
accuracy-upper-limit (an accuracy.txt line that ACC_PATTERN of each metric matches, checked here
with the checker's own patterns), the TTFT/TPOT limits of LLM_LATENCY_LIMITS (or
LLAMA2_LATENCY_LIMITS), REQUIRED_ACC_BENCHMARK's extra accuracy files, the models
requires_equal_issue names, and the compliance tests: the statements of check_compliance_dir that
build `test_list` are interpreted for each model.

Each case (the base tree, then one change: accuracy just below a target or above an upper limit,
a compliance test folder removed, the performance sample count or the minimum query count or the
Offline samples per query one below, a Server latency over its constraint, a required scenario
missing, the accuracy run's dataset count one short) is run through both checkers and compared
with difftest.py's comparison (summary.csv rows as multisets, summary counts, exit status);
where the official checker crashes, mlsubmit must exit 1 and name the file (difftest.crash_ok).

Usage (see tests/diff/README.md):
  modelsweep.py [--rounds v5.1,...] [--cases all|base|N] [--only SUBSTR] [--keep DIR] [--list]
"""
import argparse
import ast
import collections
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the worktree
import difftest  # noqa: E402
from derive import gen_old_rules  # noqa: E402

ROUNDS = ("v3.1", "v4.0", "v4.1", "v5.0", "v5.1")
# (system, its MODEL_CONFIG key suffix, its system_type): mkround.sh's datacenter and edge systems
# and a "datacenter,edge" one made from the former (set_type's third kind)
SYSTEMS = (("dc1", "datacenter", "datacenter"), ("edge1", "edge", "edge"),
           ("dcedge1", "datacenter-edge", "datacenter,edge"))
SUBMITTER = "Org1"


# ------------------------------------------------------------------ the official checker as data --
class Official:
    """MODEL_CONFIG[round] and the module constants of an official checker, and what its functions
    decide per model (compliance tests, token-latency LLMs, equal issue), read from its AST."""

    def __init__(self, path, version):
        self.path, self.version = path, version
        self.g = gen_old_rules()
        self.tree = ast.parse(open(path, encoding="utf-8").read())
        self.consts = {}
        self.funcs = {}
        for n in ast.walk(self.tree):
            if isinstance(n, ast.FunctionDef):
                self.funcs.setdefault(n.name, n)
        for n in self.tree.body:
            if isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Name):
                try:
                    self.consts[n.targets[0].id] = self.g.value(n.value)
                except Exception:
                    pass
        self.mc = self.consts["MODEL_CONFIG"][version]
        self.models = list(self.mc["models"])
        self.llm = self._models_in_if("check_performance_dir", ("extra_check_llm", "extra_check_llama2"))
        self.equal_issue = self._strings_compared("requires_equal_issue")
        # check_performance_dir reads OFFLINE_MIN_SPQ_SINCE_V4[model] for every Offline run: a model
        # of the round absent from it raises there (tag v4.0 for v3.1's gpt3)
        since = self.consts.get("OFFLINE_MIN_SPQ_SINCE_V4")
        self.unchecked = [m for m in self.models if since is not None and m not in since and any(
            "Offline" in sum(self.scenarios(m, t), []) for t in ("datacenter", "edge"))]

    # --- helpers over the AST
    def _model_lists(self, node):
        """strings of `model in [...]` comparisons under node"""
        out = []
        for n in ast.walk(node):
            if isinstance(n, ast.Compare) and isinstance(n.left, ast.Name) and n.left.id == "model" \
                    and isinstance(n.ops[0], ast.In) and isinstance(n.comparators[0], (ast.List, ast.Tuple)):
                out += [e.value for e in n.comparators[0].elts if isinstance(e, ast.Constant)]
        return out

    def _models_in_if(self, func, callees):
        fn = self.funcs.get(func)
        out = set()
        for n in ast.walk(fn) if fn else []:
            if isinstance(n, ast.If):
                calls = {c.func.id for b in n.body for c in ast.walk(b)
                         if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)}
                if calls & set(callees):
                    out |= set(self._model_lists(n.test))
        return out

    def _strings_compared(self, func):
        fn = self.funcs.get(func)
        return set(self._model_lists(fn)) if fn else set()

    def compliance_tests(self, model, scenario=None):
        """check_compliance_dir's test_list for model: its statements up to the first one this
        interpreter cannot evaluate (the `if test_list and not os.path.exists(...)` check)."""
        fn = self.funcs["check_compliance_dir"]
        env = {"model": model, "config.version": self.version}
        if scenario:  # tags v1.0.1 and r1.1 drop TEST04-A/B for MultiStream (modelsweep_old.py)
            env["scenario"] = scenario

        def ev(e):
            if isinstance(e, ast.BoolOp):
                vals = [ev(v) for v in e.values]
                return all(vals) if isinstance(e.op, ast.And) else any(vals)
            if isinstance(e, ast.Compare) and len(e.ops) == 1 and isinstance(e.ops[0], (ast.In, ast.NotIn)):
                left = ast.unparse(e.left)
                if left not in env or not isinstance(e.comparators[0], (ast.List, ast.Tuple)):
                    raise ValueError(left)
                inside = env[left] in [x.value for x in e.comparators[0].elts]
                return inside if isinstance(e.ops[0], ast.In) else not inside
            raise ValueError(ast.dump(e))

        tests = []
        for st in fn.body:
            if isinstance(st, ast.Assign) and ast.unparse(st.targets[0]) == "test_list":
                tests = list(self.g.value(st.value))
            elif isinstance(st, ast.If):
                try:
                    hit = ev(st.test)
                except ValueError:
                    break
                if hit:
                    for b in st.body:
                        if isinstance(b, ast.Expr) and isinstance(b.value, ast.Call) and \
                                ast.unparse(b.value.func) in ("test_list.remove", "test_list.append"):
                            arg = b.value.args[0].value
                            if b.value.func.attr == "append":
                                tests.append(arg)
                            elif arg in tests:
                                tests.remove(arg)
        return tests

    # --- MODEL_CONFIG
    def scenarios(self, model, stype):
        req = self.mc.get("required-scenarios-" + stype, {}).get(model)
        if req is None:
            return [], []
        return list(req), list(self.mc.get("optional-scenarios-" + stype, {}).get(model, []))

    def targets(self, model):
        t = self.mc["accuracy-target"][model]
        return [(t[i], t[i + 1]) for i in range(0, len(t), 2)]

    def upper(self, model):
        t = self.mc.get("accuracy-upper-limit", {}).get(model) or []
        return [(t[i], t[i + 1]) for i in range(0, len(t), 2)]

    def psc(self, model):
        return self.mc["performance-sample-count"][model]

    def dataset(self, model):
        return self.mc.get("dataset-size", {}).get(model, self.psc(model))

    def min_queries(self, model, scen):
        return self.mc.get("min-queries", {}).get(model, {}).get(scen)

    def latency(self, model, scen):
        return self.mc.get("latency-constraint", {}).get(model, {}).get(scen)

    def offline_spq(self, model):
        """(the since-v4 per-model minimum or None, OFFLINE_MIN_SPQ)"""
        return self.consts.get("OFFLINE_MIN_SPQ_SINCE_V4", {}).get(model), self.consts.get("OFFLINE_MIN_SPQ", 1)

    def token_limits(self, model, scen):
        """[(ttft, tpot)] the checker may compare a non-Offline LLM run with: LLM_LATENCY_LIMITS[model]
        is one limit (tag v5.0.1), a limit per scenario (v5.1.1) or named constraints any of which
        passes (v4.1); LLAMA2_LATENCY_LIMITS (v4.0) the constraints of every LLM"""
        t = self.consts.get("LLM_LATENCY_LIMITS", {}).get(model)
        if t and "ttft" in t:
            return [(t["ttft"], t["tpot"])]
        if t and scen in t:
            return [(t[scen]["ttft"], t[scen]["tpot"])]
        if t and not set(t) & {"Server", "Interactive", "SingleStream", "MultiStream", "Offline"}:
            return [(v["ttft"], v["tpot"]) for v in t.values()]
        old = self.consts.get("LLAMA2_LATENCY_LIMITS")
        if old and model in self.llm:
            return [(v["ttft"], v["tpot"]) for v in old.values()]
        return []

    def result_fields(self, model, scen):
        new = self.consts.get("RESULT_FIELD_NEW", {})
        new = new.get(self.version, new)
        out = [new[scen]] if isinstance(new.get(scen), str) else []
        ow = self.consts.get("RESULT_FIELD_BENCHMARK_OVERWRITE", {})
        ow = ow.get(self.version, ow)
        f = ow.get(model, {}).get(scen) if isinstance(ow.get(model), dict) else None
        return out + ([f] if f else [])

    def extra_acc_files(self, model):
        return self.consts.get("REQUIRED_ACC_BENCHMARK", {}).get(model, {}).get(self.version, {})

    def pattern(self, metric):
        return self.consts["ACC_PATTERN"][metric]

    def seeds(self, test05=False):
        return self.mc["test05_seeds"] if test05 else self.mc["seeds"]


# ------------------------------------------------------------------ accuracy.txt --
# A line per metric in the form of the evaluation scripts; the metrics written as a Python dict by
# the LLM and SDXL scripts share one dict line. Each is checked with the round's ACC_PATTERN.
LINE_FORMATS = {
    "acc": "accuracy={v}%, good=38032, total=50000",
    "mAP": "mAP={v}",
    "AUC": "AUC={v}",
    "F1": '{{"exact_match": 83.1, "f1": {v}}}',
    "DICE": "Accuracy: mean = {v}, kidney = 0.93, tumor = 0.79",
    "ACCURACY": "Word Error Rate: 2.0%, accuracy={v}%",
    "WER": "Word Error Rate: 2.0%, accuracy={v}%",
    "bleu": "BLEU: {v}",
    "meanAcc": "{{'mean-accuracy': {v}}}",
}
DICT_KEYS = {"ROUGE1": "rouge1", "ROUGE2": "rouge2", "ROUGEL": "rougeL", "ROUGELSUM": "rougeLsum",
             "GEN_LEN": "gen_len", "TOKENS_PER_SAMPLE": "tokens_per_sample", "CLIP_SCORE": "CLIP_SCORE",
             "FID_SCORE": "FID_SCORE", "gsm8k_accuracy": "gsm8k", "mbxp_accuracy": "mbxp",
             "exact_match": "exact_match"}


def fmt(v):
    s = "%.6f" % v
    return s


def just_above(t):
    return t * (1 + 1e-5) + 1e-6


def just_below(t):
    return t * (1 - 1e-5) - 1e-6


def accuracy_values(off, model):
    """metric -> a value just above its target (within the upper limit)"""
    vals = {m: just_above(t) for m, t in off.targets(model)}
    for m, lim in off.upper(model):
        if m in vals and vals[m] > lim:
            raise SystemExit("modelsweep: %s %s target above its upper limit" % (model, m))
    return vals


# Other ways the evaluation scripts of published results print the same values (e.g. the SDXL
# script of v5.0 submitters: "Accuracy Results: {'FID_SCORE': '23.81', 'CLIP_SCORE': '31.74'}"),
# which the patterns of some tags read and others do not: the dict's values as strings, two
# blanks after the colon, a text before each line.
PRINTED_FORMS = ("quoted", "two_blanks", "prefixed")


def accuracy_text(off, model, vals, form=None):
    lines, d = [], []
    for m, v in vals.items():
        if m in LINE_FORMATS:
            lines.append(LINE_FORMATS[m].format(v=fmt(v)))
        else:
            d.append(("'%s': '%s'" if form == "quoted" else "'%s':  %s" if form == "two_blanks" else "'%s': %s")
                     % (DICT_KEYS[m], fmt(v)))
    if d:
        lines.append("{" + ", ".join(d) + "}")
    if form == "prefixed":
        lines = ["Accuracy Results: " + ln for ln in lines]
    lines.append("hash=%064x" % 12345)
    text = "\n".join(lines) + "\n"
    if form:
        return text  # whether the official pattern reads it is what the case asks
    # each metric must be read back by the official pattern, with the value written
    for m, v in vals.items():
        got = [re.match(off.pattern(m), ln) for ln in text.splitlines()]
        got = [g.group(1) for g in got if g]
        if fmt(v) not in got:
            raise SystemExit("modelsweep: %s: ACC_PATTERN[%s] does not read the written line (%r)" % (model, m, got))
    return text


# ------------------------------------------------------------------ detail logs --
def read_log(path):
    recs = []
    for line in open(path, encoding="utf-8"):
        if line.startswith(":::MLLOG "):
            recs.append(json.loads(line[len(":::MLLOG "):]))
    return recs


def write_log(path, recs):
    with open(path, "w", encoding="utf-8") as f:
        for r in recs:
            f.write(":::MLLOG " + json.dumps(r) + "\n")


def set_key(recs, key, value, before="result_validity"):
    for r in recs:
        if r["key"] == key:
            r["value"] = value
            return
    tpl = dict(recs[0])
    tpl["metadata"] = dict(tpl["metadata"])
    tpl.update(key=key, value=value)
    idx = next((i for i, r in enumerate(recs) if r["key"] == before), len(recs))
    recs.insert(idx, tpl)


def drop_keys(recs, keys):
    return [r for r in recs if r["key"] not in keys]


def get_key(recs, key):
    return next((r["value"] for r in recs if r["key"] == key), None)


TOKEN_KEYS = ("result_first_token_99.00_percentile_latency_ns", "result_time_per_output_token_99.00_percentile_ns",
              "result_completed_tokens_per_second", "result_tokens_per_second")


class Templates:
    """The detail logs of mkround.sh's tree: resnet50's SingleStream/MultiStream/Offline (vision),
    the LLM's Offline/Server, read per mode."""

    def __init__(self, gen, llm):
        base = os.path.join(gen, "closed", SUBMITTER, "results")
        self.logs = {}
        for sysn, model, scens in (("edge1", "resnet50", ("SingleStream", "MultiStream", "Offline")),
                                   ("dc1", llm, ("Offline", "Server"))):
            kind = "vision" if model == "resnet50" else "llm"
            for s in scens:
                for mode, sub in (("acc", "accuracy"), ("perf", "performance/run_1")):
                    recs = read_log(os.path.join(base, sysn, model, s, sub, "mlperf_log_detail.txt"))
                    self.logs[(kind, s, mode)] = drop_keys(recs, ("power_begin", "power_end"))
        # the v5.1 generator writes token results in every Offline/Server log
        self.tokens_everywhere = get_key(self.logs[("vision", "Offline", "perf")], "result_tokens_per_second") is not None

    def log(self, is_llm, scen, mode):
        """a template for (model kind, scenario): the LLM's own where it has the scenario, the vision
        one else; a vision Server comes from the LLM Server log without its token results"""
        key = ("llm" if is_llm else "vision", scen, mode)
        if key in self.logs:
            recs = self.logs[key]
        elif ("vision", scen, mode) in self.logs:
            recs = self.logs[("vision", scen, mode)]
        else:
            recs = self.logs[("llm", scen, mode)]
            if not is_llm and not self.tokens_everywhere:
                recs = drop_keys(recs, TOKEN_KEYS)
        return json.loads(json.dumps(recs))


# ------------------------------------------------------------------ the tree --
class Sweep:
    def __init__(self, off, tpl, tree):
        self.off, self.tpl, self.tree = off, tpl, tree
        self.entries = []  # (system, model, scenario, required?)
        self.comp = {}     # model -> compliance tests

    def path(self, kind, sysn, model, scen=None, *rest):
        p = [self.tree, "closed", SUBMITTER, kind, sysn, model]
        if scen:
            p.append(scen)
        return os.path.join(*(p + list(rest)))

    def detail(self, model, scen, mode, test05=False):
        off = self.off
        is_llm = model in off.llm
        eff = "Server" if scen == "Interactive" else scen
        recs = self.tpl.log(is_llm, eff, mode)
        psc, total = off.psc(model), off.dataset(model)
        seeds = off.seeds(test05)
        set_key(recs, "qsl_reported_total_count", total)
        set_key(recs, "qsl_reported_performance_count", psc)
        set_key(recs, "effective_performance_sample_count", psc)
        for k in ("qsl_rng_seed", "sample_index_rng_seed", "schedule_rng_seed"):
            set_key(recs, "effective_" + k, seeds[k])
        mq = off.min_queries(model, scen if scen != "Interactive" else "Server")
        if mq is not None:
            set_key(recs, "effective_min_query_count", max(mq, get_key(recs, "effective_min_query_count") or 0))
        if eff == "Offline":
            since, old = off.offline_spq(model)
            set_key(recs, "effective_samples_per_query", max(since or 0, old))
        lat = off.latency(model, eff)
        set_key(recs, "effective_target_latency_ns", lat or 0)
        if get_key(recs, "requested_use_token_latencies") is not None or is_llm and off.token_limits(model, scen):
            set_key(recs, "requested_use_token_latencies", is_llm, before="effective_scenario")
        if get_key(recs, "effective_sample_concatenate_permutation") is not None:
            set_key(recs, "effective_sample_concatenate_permutation", model in off.equal_issue)
        if is_llm and eff != "Offline":
            lims = off.token_limits(model, scen)
            if lims:
                ttft = min(t for t, _ in lims) // 2
                tpot = min(t for _, t in lims) // 2
                set_key(recs, "result_first_token_99.00_percentile_latency_ns", ttft)
                set_key(recs, "result_time_per_output_token_99.00_percentile_ns", tpot)
                set_key(recs, "result_99.00_percentile_latency_ns", ttft)
        if lat:  # the checkers without early stopping (v1.x) compare the 99th percentile with it
            set_key(recs, "result_99.00_percentile_latency_ns",
                    min(get_key(recs, "result_99.00_percentile_latency_ns") or lat, lat // 2))
        for f in off.result_fields(model, eff):
            if get_key(recs, f) is None:
                set_key(recs, f, 1234.5 if "latency" not in f else 1340856)
        return recs

    def build(self):
        off = self.off
        c = os.path.join(self.tree, "closed", SUBMITTER)
        for d in ("results", "measurements", "compliance", "code"):
            shutil.rmtree(os.path.join(c, d), ignore_errors=True)
        for sysn, _, stype in SYSTEMS:
            path = os.path.join(c, "systems", sysn + ".json")
            if not os.path.exists(path):
                desc = json.load(open(os.path.join(c, "systems", "dc1.json"), encoding="utf-8"))
                desc.update(system_type=stype, system_name="Synthetic %s system" % stype)
                with open(path, "w", encoding="utf-8") as f:
                    json.dump(desc, f, indent=4)
        for model in off.models:
            self.comp[model] = off.compliance_tests(model)
            os.makedirs(os.path.join(c, "code", model), exist_ok=True)
            with open(os.path.join(c, "code", model, "README.md"), "w") as f:
                f.write("# code\n")
            for sysn, stype, _ in SYSTEMS:
                req, opt = off.scenarios(model, stype)
                for scen in req + [s for s in opt if s not in req]:
                    self.entries.append((sysn, model, scen, scen in req))
                    self.scenario(sysn, model, scen)

    def scenario(self, sysn, model, scen):
        off = self.off
        res = self.path("results", sysn, model, scen)
        acc = os.path.join(res, "accuracy")
        perf = os.path.join(res, "performance", "run_1")
        os.makedirs(acc)
        os.makedirs(perf)
        write_log(os.path.join(acc, "mlperf_log_detail.txt"), self.detail(model, scen, "acc"))
        write_log(os.path.join(perf, "mlperf_log_detail.txt"), self.detail(model, scen, "perf"))
        summ = self.summary(scen)
        for d in (acc, perf):
            with open(os.path.join(d, "mlperf_log_summary.txt"), "w") as f:
                f.write(summ)
            with open(os.path.join(d, "mlperf_log_accuracy.json"), "w") as f:
                f.write('[\n{ "seq_id" : 0, "qsl_idx" : 5, "data" : "0A0B" }\n]\n')
        with open(os.path.join(acc, "accuracy.txt"), "w") as f:
            f.write(accuracy_text(off, model, accuracy_values(off, model)))
        for sub, ids in off.extra_acc_files(model).items():
            os.makedirs(os.path.join(acc, sub))
            for i in list(ids) + ["captions"]:
                with open(os.path.join(acc, sub, i + (".txt" if i == "captions" else ".png")), "wb") as f:
                    f.write(b"\x89PNG\r\n" if i != "captions" else b"a caption\n")
        meas = self.path("measurements", sysn, model, scen)
        os.makedirs(meas)
        src = os.path.join(self.gen_meas, [f for f in os.listdir(self.gen_meas) if f.endswith(".json")][0])
        shutil.copyfile(src, os.path.join(meas, "%s_%s.json" % (sysn, scen)))
        conf = "*.%s.target_qps = 100\n" % scen
        if model in off.equal_issue:
            # LoadGen's mlperf.conf names a model without its accuracy suffix (3d-unet, llama2-70b)
            conf += "%s.%s.sample_concatenate_permutation = 1\n" % (re.sub(r"-99(\.9)?$", "", model), scen)
        with open(os.path.join(meas, "user.conf"), "w") as f:
            f.write(conf)
        with open(os.path.join(meas, "README.md"), "w") as f:
            f.write("# %s %s\nSteps to reproduce.\n" % (model, scen))
        if os.path.exists(os.path.join(self.gen_meas, "mlperf.conf")):
            shutil.copyfile(os.path.join(self.gen_meas, "mlperf.conf"), os.path.join(meas, "mlperf.conf"))
        comp = self.path("compliance", sysn, model, scen)
        for t in self.comp[model]:
            td = os.path.join(comp, t)
            os.makedirs(td)
            if t == "TEST06":
                with open(os.path.join(td, "verify_accuracy.txt"), "w") as f:
                    f.write("First token check pass: True\nEOS check pass: True\nSample length check pass: True\n"
                            "TEST06 verification complete\n")
                continue
            tp = os.path.join(td, "performance", "run_1")
            os.makedirs(tp)
            write_log(os.path.join(tp, "mlperf_log_detail.txt"), self.detail(model, scen, "perf", t == "TEST05"))
            with open(os.path.join(tp, "mlperf_log_summary.txt"), "w") as f:
                f.write(summ)
            with open(os.path.join(td, "verify_performance.txt"), "w") as f:
                f.write("Verifying performance.\nreference score = 745.7\ntest score = 751.6\nTEST PASS\n")
            if t == "TEST01":
                with open(os.path.join(td, "verify_accuracy.txt"), "w") as f:
                    f.write("Verifying accuracy. This might take a while...\nnum_perf_log_data_mismatch = 0\nTEST PASS\n")
                os.makedirs(os.path.join(td, "accuracy"))
                with open(os.path.join(td, "accuracy", "mlperf_log_accuracy.json"), "w") as f:
                    f.write('[\n{ "seq_id" : 0, "qsl_idx" : 5, "data" : "0A0B" }\n]\n')
                with open(os.path.join(td, "accuracy", "accuracy.txt"), "w") as f:
                    f.write("hash=%064x\n" % 999)

    @staticmethod
    def summary(scen):
        s = "Server" if scen == "Interactive" else scen
        return ("================================================\nMLPerf Results Summary\n"
                "================================================\nSUT name : SynthSUT\nScenario : %s\n"
                "Mode     : PerformanceOnly\nResult is : VALID\n" % s)


def build_round(version, off, work):
    """mkround.sh's tree of the round with its closed division rebuilt for every model"""
    gen = os.path.join(work, "gen-" + version)
    shutil.rmtree(gen, ignore_errors=True)
    p = subprocess.run(["bash", os.path.join(REPO, "tests", "e2e", "lib", "mkround.sh"), gen, "--version", version],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if p.returncode:
        raise SystemExit("modelsweep: mkround.sh failed: " + p.stdout.decode(errors="replace")[-300:])
    llm = [d for d in os.listdir(os.path.join(gen, "closed", SUBMITTER, "results", "dc1"))][0]
    tpl = Templates(gen, llm)
    tree = os.path.join(work, "sweep-" + version)
    shutil.rmtree(tree, ignore_errors=True)
    shutil.copytree(gen, tree)
    sw = Sweep(off, tpl, tree)
    sw.gen_meas = os.path.join(gen, "closed", SUBMITTER, "measurements", "edge1", "resnet50", "SingleStream")
    sw.build()
    shutil.rmtree(gen, ignore_errors=True)
    # the models the official checker cannot check are kept aside: the base tree lacks them, a
    # case adds each one back
    sw.aside = os.path.join(work, "aside-" + version)
    shutil.rmtree(sw.aside, ignore_errors=True)
    for model in off.unchecked:
        for kind in ("results", "measurements", "compliance"):
            for sysn, _, _ in SYSTEMS:
                src = sw.path(kind, sysn, model)
                if os.path.isdir(src):
                    dst = os.path.join(sw.aside, os.path.relpath(src, tree))
                    os.makedirs(os.path.dirname(dst), exist_ok=True)
                    shutil.move(src, dst)
        shutil.rmtree(os.path.join(tree, "closed", SUBMITTER, "code", model))
    sw.entries = [e for e in sw.entries if e[1] not in off.unchecked]
    return sw


# ------------------------------------------------------------------ one-change cases --
class Case:
    def __init__(self, name, apply, damaged):
        self.name, self.apply, self.damaged = name, apply, damaged


def edit_log(path, **kv):
    recs = read_log(path)
    for k, v in kv.items():
        set_key(recs, k, v)
    os.unlink(path)
    write_log(path, recs)


def rewrite(path, text):
    os.unlink(path)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def cases(sw):
    off = sw.off
    out = [Case("base", lambda t: None, [])]
    for model in off.unchecked:
        def add(tr, model=model):
            for root, dirs, _ in os.walk(sw.aside):
                for d in dirs:
                    rel = os.path.relpath(os.path.join(root, d), sw.aside)
                    if rel.split(os.sep)[-1] == model and not os.path.exists(os.path.join(tr, rel)):
                        shutil.copytree(os.path.join(sw.aside, rel), os.path.join(tr, rel))
            os.makedirs(os.path.join(tr, "closed", SUBMITTER, "code", model))
            with open(os.path.join(tr, "closed", SUBMITTER, "code", model, "README.md"), "w") as f:
                f.write("# code\n")
        out.append(Case("with %s (absent from OFFLINE_MIN_SPQ_SINCE_V4)" % model, add,
                        [os.path.join("closed", SUBMITTER, "results", s, model) for s, _, _ in SYSTEMS]))
    later = getattr(sw, "later", None)
    for model in [m for m in later.off.models if m not in off.models and m not in later.off.unchecked] if later else []:
        def add_later(tr, model=model):
            for kind in ("results", "measurements", "compliance"):
                for sysn, _, _ in SYSTEMS:
                    src = later.path(kind, sysn, model)
                    if os.path.isdir(src):
                        shutil.copytree(src, os.path.join(tr, os.path.relpath(src, later.tree)))
            shutil.copytree(os.path.join(later.tree, "closed", SUBMITTER, "code", model),
                            os.path.join(tr, "closed", SUBMITTER, "code", model))
        out.append(Case("with %s of %s" % (model, later.off.version), add_later,
                        [os.path.join("closed", SUBMITTER, "results", s, model) for s, _, _ in SYSTEMS]))
    seen = set()
    for sysn, model, scen, required in sw.entries:
        rel = lambda kind, *rest: os.path.join("closed", SUBMITTER, kind, sysn, model, scen, *rest)  # noqa: E731
        acc_rel = rel("results", "accuracy", "accuracy.txt")
        perf_rel = rel("results", "performance", "run_1", "mlperf_log_detail.txt")
        tag = "%s/%s/%s" % (sysn, model, scen)
        first = model not in seen  # per-model changes: on the model's first scenario only
        seen.add(model)
        if first:
            vals = accuracy_values(off, model)
            for m, t in off.targets(model):
                v2 = dict(vals)
                v2[m] = just_below(t)
                out.append(Case("%s acc_below %s" % (tag, m),
                                lambda tr, a=acc_rel, v=v2, mo=model: rewrite(os.path.join(tr, a), accuracy_text(off, mo, v)),
                                [acc_rel]))
            for m, lim in off.upper(model):
                v2 = dict(vals)
                v2[m] = lim * (1 + 1e-5) + 1e-6
                out.append(Case("%s acc_over_upper %s" % (tag, m),
                                lambda tr, a=acc_rel, v=v2, mo=model: rewrite(os.path.join(tr, a), accuracy_text(off, mo, v)),
                                [acc_rel]))
            out.append(Case("%s psc_minus_1" % tag,
                            lambda tr, p=perf_rel, n=off.psc(model) - 1: edit_log(os.path.join(tr, p), effective_performance_sample_count=n),
                            [perf_rel]))
            out.append(Case("%s dataset_minus_1" % tag,
                            lambda tr, p=rel("results", "accuracy", "mlperf_log_detail.txt"), n=off.dataset(model) - 1:
                            edit_log(os.path.join(tr, p), qsl_reported_total_count=n),
                            [rel("results", "accuracy", "mlperf_log_detail.txt")]))
            if model in off.equal_issue:
                conf = rel("measurements", "user.conf")
                out.append(Case("%s equal_issue_off" % tag,
                                lambda tr, p=perf_rel, c=conf, s=scen: (
                                    edit_log(os.path.join(tr, p), effective_sample_concatenate_permutation=False),
                                    rewrite(os.path.join(tr, c), "*.%s.target_qps = 100\n" % s)),
                                [perf_rel, conf]))
            for form in PRINTED_FORMS:
                if form != "prefixed" and not any(m in DICT_KEYS for m in vals):
                    continue
                out.append(Case("%s acc_printed_%s" % (tag, form),
                                lambda tr, a=acc_rel, v=vals, mo=model, f=form: rewrite(
                                    os.path.join(tr, a), accuracy_text(off, mo, v, f)),
                                [acc_rel]))
            for extra in off.extra_acc_files(model):
                d = rel("results", "accuracy", extra)
                out.append(Case("%s no_extra_acc_%s" % (tag, extra), lambda tr, d=d: shutil.rmtree(os.path.join(tr, d)), [d]))
        # per scenario
        for t in sw.comp[model]:
            if first or t != "TEST06":
                d = rel("compliance", t)
                out.append(Case("%s drop %s" % (tag, t), lambda tr, d=d: shutil.rmtree(os.path.join(tr, d)), [d]))
        eff = "Server" if scen == "Interactive" else scen
        mq = off.min_queries(model, eff)
        if mq:
            out.append(Case("%s min_query_below" % tag,
                            lambda tr, p=perf_rel, n=mq - 1: edit_log(os.path.join(tr, p), effective_min_query_count=n),
                            [perf_rel]))
        if eff == "Offline":
            since, old = off.offline_spq(model)
            for n in sorted({x - 1 for x in (since, old) if x}):
                out.append(Case("%s spq_%d" % (tag, n),
                                lambda tr, p=perf_rel, n=n: edit_log(os.path.join(tr, p), effective_samples_per_query=n),
                                [perf_rel]))
        lat = off.latency(model, eff)
        if lat:
            out.append(Case("%s p99_latency_over" % tag,
                            lambda tr, p=perf_rel, n=lat + 1: edit_log(os.path.join(tr, p), **{
                                "result_99.00_percentile_latency_ns": n}), [perf_rel]))
            out.append(Case("%s latency_over" % tag,
                            lambda tr, p=perf_rel, n=lat + 1: edit_log(os.path.join(tr, p), effective_target_latency_ns=n),
                            [perf_rel]))
        if model in off.llm and eff != "Offline":
            if off.token_limits(model, scen):
                out.append(Case("%s no_token_latencies" % tag,
                                lambda tr, p=perf_rel: rewrite(os.path.join(tr, p), "".join(
                                    ":::MLLOG " + json.dumps(r) + "\n" for r in read_log(os.path.join(tr, p))
                                    if not r["key"].startswith(("result_first_token", "result_time_per_output_token")))),
                                [perf_rel]))
            for i, (ttft, tpot) in enumerate(off.token_limits(model, scen)):
                out.append(Case("%s ttft_at_limit%s" % (tag, i or ""),
                                lambda tr, p=perf_rel, n=ttft: edit_log(os.path.join(tr, p), **{
                                    "result_first_token_99.00_percentile_latency_ns": n}), [perf_rel]))
                out.append(Case("%s tpot_at_limit%s" % (tag, i or ""),
                                lambda tr, p=perf_rel, n=tpot: edit_log(os.path.join(tr, p), **{
                                    "result_time_per_output_token_99.00_percentile_ns": n}), [perf_rel]))
        if required:
            dirs = [rel(k) for k in ("results", "measurements", "compliance")]
            out.append(Case("%s missing_scenario" % tag,
                            lambda tr, ds=dirs: [shutil.rmtree(os.path.join(tr, d), ignore_errors=True) for d in ds],
                            [dirs[0]]))
    return out


class Mut:  # what difftest.crash_ok reads
    def __init__(self, damaged):
        self.damaged = damaged


def run_case(args, rnd, sw, case, work):
    cdir = os.path.join(work, "case")
    shutil.rmtree(cdir, ignore_errors=True)
    os.makedirs(cdir)
    tree = os.path.join(cdir, "tree")
    difftest.link_tree(sw.tree, tree)
    case.apply(tree)
    off = difftest.official(rnd, tree, cdir)
    me = difftest.mine(args, rnd, tree, cdir)
    if off.crashed:
        why = difftest.crash_ok(me, Mut(case.damaged))
        d = ["  official checker crashed: " + (off.out.strip().splitlines() or ["?"])[-1]] + (["  " + why] if why else [])
        outcome = "crashed" if why is None else "DIFF"
    else:
        d = difftest.compare(off, me)
        outcome = "DIFF" if d else "same"
    if args.keep and outcome == "DIFF":
        keep = os.path.join(args.keep, rnd.version, re.sub(r"[^\w.-]+", "_", case.name))
        shutil.rmtree(keep, ignore_errors=True)
        shutil.copytree(tree, keep)
    shutil.rmtree(cdir, ignore_errors=True)
    return outcome, d, off, me


def print_case(outcome, title, d, o, me, verbose):
    """a case's outcome line, its differences and, for a divergence, both verdicts"""
    if outcome != "DIFF" and not verbose:
        return
    print("%s %s" % (outcome, title))
    for line in d:
        print(line)
    if outcome == "DIFF":
        print("  official: " + o.short().replace("\n", "\n  "))
        print("  mlsubmit: " + me.short().replace("\n", "\n  "))
    sys.stdout.flush()


def keep_later(later, sw):
    """sw becomes the later round of the next (older) round; the one before is removed"""
    if later:
        shutil.rmtree(later.tree, ignore_errors=True)
    return sw


def common_args(add, verbose_help="print every case"):
    """the options of every sweep (modelsweep.py, modelsweep_old.py, realsys.py)"""
    add("--keep", help="copy the tree of each divergent case under this folder")
    add("--verbose", action="store_true", help=verbose_help)
    add("--mlsubmit", default=os.path.join(REPO, "build", "mlsubmit"))
    add("--wrap", default=os.environ.get("TEST_WRAP", ""))
    add("--shared", default=os.environ.get("MLSUBMIT_SHARED", os.path.join(REPO, "..", "shared")))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", default=",".join(ROUNDS))
    ap.add_argument("--cases", default="all", help="all, base (the unchanged tree only) or N: the base tree "
                    "and a deterministic sample of N one-change cases per round")
    ap.add_argument("--seed", type=int, default=1, help="the sample's seed (with --cases N)")
    ap.add_argument("--only", help="only cases whose name contains this text")
    ap.add_argument("--case", action="append", default=[], metavar="vX.Y:NAME",
                    help="also run this case of that round (its name as --list prints it); repeatable")
    ap.add_argument("--list", action="store_true", help="list the cases, run nothing")
    ap.add_argument("--tree-out", help="keep each round's base tree here (DIR/vX.Y)")
    common_args(ap.add_argument)
    args = ap.parse_args()
    args.shared = os.path.abspath(args.shared)
    args.mlsubmit = os.path.abspath(args.mlsubmit)
    if not os.path.isdir(os.path.join(args.shared, "upstream")):
        print("SKIP: %s/upstream is absent (no official checker to compare with)" % args.shared)
        return 0
    tags = difftest.checker_tags(args.shared)
    work = tempfile.mkdtemp(prefix="mlsubmit-modelsweep-")
    total = collections.Counter()
    divergences = 0
    try:
        # newest round first: each round's tree is kept until the round before it has run, for
        # its "of a later round" cases (a model the later round added, which this round's
        # checker must refuse)
        later = None
        for v in sorted(args.rounds.split(","), key=lambda r: [int(x) for x in re.findall(r"\d+", r)], reverse=True):
            checker = difftest.checker_path(args.shared, tags.get(v))
            if not checker:
                print("note: %s skipped, no official checker in the upstream sources" % v)
                continue
            off = Official(checker, v)
            sw = build_round(v, off, work)
            sw.later = later
            if args.tree_out:
                dst = os.path.join(args.tree_out, v)
                shutil.rmtree(dst, ignore_errors=True)
                shutil.copytree(sw.tree, dst)
            rnd = difftest.Round("sweep-" + v, sw.tree, v, tags.get(v), checker)
            todo = cases(sw)
            if args.only:
                todo = [c for c in todo if args.only in c.name]
            if args.cases == "base":
                todo = todo[:1]
            elif args.cases != "all":
                rest = todo[1:]
                random.Random("%s-%d" % (v, args.seed)).shuffle(rest)
                named = {c.split(":", 1)[1] for c in args.case if c.split(":", 1)[0] == v}
                pick = rest[:int(args.cases)] + [c for c in rest[int(args.cases):] if c.name in named]
                missing = named - {c.name for c in todo}
                if missing:
                    raise SystemExit("modelsweep: no case %s in %s" % (", ".join(sorted(missing)), v))
                todo = todo[:1] + sorted(pick, key=lambda c: todo.index(c))
            if args.list:
                for c in todo:
                    print("%s\t%s" % (v, c.name))
                later = keep_later(later, sw)
                continue
            per = collections.Counter()
            for case in todo:
                outcome, d, o, me = run_case(args, rnd, sw, case, work)
                per[outcome] += 1
                per["rejected"] += outcome == "same" and o.rc != 0
                print_case(outcome, "%s %s" % (v, case.name), d, o, me, args.verbose)
            divergences += per["DIFF"]
            total.update(per)
            print("modelsweep %s: %d models, %d scenario results, %d cases: %d same (%d rejected by both), "
                  "%d official crashed, %d divergences"
                  % (v, len(off.models), len(sw.entries), per["same"] + per["crashed"] + per["DIFF"], per["same"],
                     per["rejected"], per["crashed"], per["DIFF"]), flush=True)
            later = keep_later(later, sw)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if not args.list:
        print("modelsweep: %d cases, %d same (%d rejected by both), %d official crashed, %d divergences"
              % (total["same"] + total["crashed"] + total["DIFF"], total["same"], total["rejected"],
                 total["crashed"], divergences))
    return 1 if divergences else 0


if __name__ == "__main__":
    sys.exit(main())
