#!/usr/bin/env python3
"""Writes rules/<version>.json for a round before v5.0 from that round's official checker
(maintainer tool; the build never runs it: the JSON files it writes are committed and are the
source of truth afterwards, reviewed and edited by hand where needed).

Usage: tools/gen-old-rules.py CHECKER.py VERSION BASE.json OUT.json

CHECKER.py is tools/submission/submission_checker.py of the MLCommons inference tag that checked
VERSION. Its MODEL_CONFIG[VERSION] and module-level constants are read as data (Python's ast: the
file is parsed, never executed); arithmetic in accuracy targets (76.46 * 0.99) is evaluated here.
BASE.json (rules/v5.0.json) gives the keys an older checker has no table for; the per-round
behaviour switches and the hand-read facts (compliance tests, CSV columns) are in ROUNDS below."""
import ast
import json
import operator
import os
import sys

OPS = {ast.Mult: operator.mul, ast.Sub: operator.sub, ast.Add: operator.add,
       ast.Div: operator.truediv}


def num(node):
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in OPS:
        return OPS[type(node.op)](num(node.left), num(node.right))
    raise ValueError(ast.dump(node))


def value(node):
    """a literal whose numbers may be arithmetic (2000 * 1000000)"""
    if isinstance(node, ast.Dict):
        return {value(k): value(v) for k, v in zip(node.keys, node.values)}
    if isinstance(node, (ast.List, ast.Tuple)):
        return [value(e) for e in node.elts]
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return num(node)


def target(node):
    """("acc", 76.46 * 0.99) -> {metric, expr, reference, fraction, value}"""
    out = []
    elts = node.elts
    for i in range(0, len(elts), 2):
        metric = elts[i].value
        e = elts[i + 1]
        ref, frac = (num(e.left), num(e.right)) if isinstance(e, ast.BinOp) and \
            isinstance(e.op, ast.Mult) else (num(e), None)
        out.append({"metric": metric, "expr": ast.unparse(e), "reference": ref,
                    "fraction": frac, "value": num(e)})
    return out


def load(path):
    tree = ast.parse(open(path).read())
    consts, mc = {}, None
    for n in tree.body:
        if isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Name):
            name = n.targets[0].id
            if name == "MODEL_CONFIG":
                mc = {k.value: v for k, v in zip(n.value.keys, n.value.values)}
            else:
                try:
                    consts[name] = ast.literal_eval(n.value)
                except ValueError:
                    if isinstance(n.value, ast.BinOp) and isinstance(n.value.op, ast.Add):
                        try:
                            consts[name] = consts[n.value.left.id] + ast.literal_eval(n.value.right)
                        except (KeyError, AttributeError, ValueError):
                            pass
                    elif isinstance(n.value, ast.List):
                        try:
                            consts[name] = [consts[e.id] if isinstance(e, ast.Name)
                                            else ast.literal_eval(e) for e in n.value.elts]
                        except (KeyError, ValueError):
                            pass
                    else:
                        try:
                            consts[name] = value(n.value)
                        except (ValueError, AttributeError):
                            pass
    return consts, mc


# facts read by hand from each tag's checker (check_compliance_dir, check_results_dir's CSV head,
# Config's uses_* methods) and the behaviour switches they become
ROUNDS = {
    "v3.0": {
        # check_compliance_dir: TEST01, TEST04, TEST05; TEST04 left out for these models
        "compliance": (["TEST01", "TEST04", "TEST05"],
                       {"TEST04": ["rnnt", "bert-99", "bert-99.9", "dlrm-99", "dlrm-99.9",
                                   "3d-unet-99", "3d-unet-99.9", "retinanet"]}),
        "csv_header": ["Organization", "Availability", "Division", "SystemType", "SystemName",
                       "Platform", "Model", "MlperfModel", "Scenario", "Result", "Accuracy",
                       "number_of_nodes", "host_processor_model_name",
                       "host_processors_per_node", "host_processor_core_count",
                       "accelerator_model_name", "accelerators_per_node", "Location",
                       "framework", "operating_system", "notes", "compliance", "errors",
                       "version", "inferred", "has_power", "Units"],
        "sysdesc": ["SYSTEM_DESC_REQUIRED_FIELDS", "SYSTEM_DESC_REQUIED_FIELDS_SINCE_V1"],
        "sysdesc_power": "SYSTEM_DESC_REQUIED_FIELDS_POWER",
        "meaningful": None,
        "switches": {"calibration_doc_required": False, "csv_weight_data_types_column": False,
                     "emptiness_checks": False, "csv_accuracy_value_only": True,
                     "summary_power_counts": False, "power_wg_check_by_default": False,
                     # check_power_dir of tag v3.0 (and before) compares the ranging folder's
                     # file list only; v4.0 runs check_performance_dir on it
                     "ranging_run_checked": False,
                     # check_results_dir of tag v3.0: neither a measurement failure nor a missing
                     # accuracy.txt / file list mismatch ends the scenario (no `continue`)
                     "measurements_failure_stops": False, "accuracy_failure_stops": False,
                     # ... nor a file list mismatch of performance/run_1 (logged only from
                     # tag v1.0.1 on; v2.1-v1.0 below inherit it)
                     "performance_file_list_stops": False,
                     # check_performance_dir of tags v1.0.1-v3.0 only logs these (no
                     # is_valid = False); v2.1-v1.0 below inherit the list
                     "performance_findings_logged_only": ["P7", "P10", "P12", "P13", "P14"],
                     # the S10 check (systems without results) came in tag v5.1.1
                     "systems_results_check": False},
        "guesses": [
            {"contains": ["ssdlite", "ssd-inception", "yolo", "ssd-mobilenet", "ssd-resnet50"],
             "model": "ssd-small"},
            {"contains": ["mobilenet"], "model": "mobilenet"},
            {"contains": ["efficientnet", "resnet50"], "model": "resnet"},
            {"contains": ["rcnn"], "model": "ssd-small"},
            {"contains": ["bert-99.9"], "model": "bert-99.9"},
            {"contains": ["bert-99"], "model": "bert-99"},
        ],
    },
}
# RESULT_FIELD_NEW of the v1.0.1 checker (flat): the detail-log keys of a round checked from its
# summary file, for the detail-log readers of this project (round detection, audits)
RESULT_FIELD_NEW_V1 = {"Offline": "result_samples_per_second",
                       "SingleStream": "result_90.00_percentile_latency_ns",
                       "MultiStream": "effective_samples_per_query",
                       "Server": "result_scheduled_samples_per_sec"}
V3_HEAD = ROUNDS["v3.0"]["csv_header"]
# tags v4.0 and v4.1 (v3.1-v4.1) run the Power WG check unless --skip-power-check (v3.0 and
# before: only with --more-power-check)
OLD_SWITCHES = {"calibration_doc_required": False, "csv_weight_data_types_column": False,
                "csv_accuracy_value_only": True, "power_wg_check_by_default": True,
                # check_performance_dir of tags v4.0, v4.1: extra_check_llm's verdict replaces
                # is_valid (result_validity)
                "llm_check_decides_validity": True, "systems_results_check": False}
LLM2 = ["llama2-70b-99", "llama2-70b-99.9"]
GPTJ = ["gptj-99", "gptj-99.9"]
NO_TEST04_V4 = ["rnnt", "bert-99", "bert-99.9", "dlrm-v2-99", "dlrm-v2-99.9", "3d-unet-99",
                "3d-unet-99.9", "retinanet"] + GPTJ + LLM2
# v4.0's checker (tag v4.0) checked v3.1 and v4.0; SYSTEM_DESC_REQUIRED_FIELDS_SINCE_V3_1 and
# SYSTEM_DESC_MEANINGFUL_RESPONSE_REQUIRED_FIELDS apply to both (check_system_desc_id)
for _v in ("v3.1", "v4.0"):
    ROUNDS[_v] = {
        "compliance": (["TEST01", "TEST04", "TEST05"],
                       {"TEST04": NO_TEST04_V4 + ["stable-diffusion-xl"],
                        "TEST05": GPTJ + LLM2 + ["stable-diffusion-xl"],
                        "TEST01": GPTJ + LLM2 + ["stable-diffusion-xl"]},
                       {"TEST06": LLM2}),
        "csv_header": V3_HEAD,
        "sysdesc": ["SYSTEM_DESC_REQUIRED_FIELDS", "SYSTEM_DESC_REQUIRED_FIELDS_SINCE_V1",
                    "SYSTEM_DESC_REQUIRED_FIELDS_SINCE_V3_1"],
        "sysdesc_power": "SYSTEM_DESC_REQUIRED_FIELDS_POWER",
        "meaningful": "SYSTEM_DESC_MEANINGFUL_RESPONSE_REQUIRED_FIELDS",
        # check_results_dir of tag v4.0: a missing accuracy.txt or a file list mismatch of
        # accuracy/ does not end the scenario (tag v4.1 added `continue`); its
        # check_performance_dir only logs too short a run (P14)
        "switches": dict(OLD_SWITCHES, accuracy_failure_stops=False,
                         performance_findings_logged_only=["P14"]),
        "guesses": ROUNDS["v3.0"]["guesses"],
    }
ROUNDS["v4.1"] = dict(ROUNDS["v4.0"])
ROUNDS["v4.1"].update({
    # check_compliance_dir of tag v4.1: stable-diffusion-xl keeps TEST01 and TEST04 in v4.1
    "compliance": (["TEST01", "TEST04", "TEST05"],
                   {"TEST04": NO_TEST04_V4 + ["mixtral-8x7b"],
                    "TEST05": GPTJ + LLM2 + ["stable-diffusion-xl", "mixtral-8x7b"],
                    "TEST01": GPTJ + LLM2 + ["mixtral-8x7b"]},
                   {"TEST06": LLM2 + ["mixtral-8x7b"]}),
    "sysdesc": ["SYSTEM_DESC_REQUIRED_FIELDS"],
    # Config.requires_equal_issue of tag v4.1, as Python reads its list: missing commas join
    # "3d-unet-99.9" "gptj-99" and "gptj-99.9" "llama2-70b-99" into names no model has
    "equal_issue": ["3d-unet-99", "llama2-70b-99.9", "mixtral-8x7b"],
    # ... read from mlperf.conf / user.conf (check_measurement_dir); the log's boolean compared
    # with the string "true" never matches
    # (the model folder's name compared with a conf line's: model.replace("-99.9", "").replace("-99", ""))
    "switches": dict(OLD_SWITCHES, equal_issue_from_conf=True, equal_issue_closed_only=True,
                     equal_issue_conf_model_suffixes=["-99.9", "-99"]),
})

# v1.0 to v2.1: the checkers of tags v1.0.1, r1.1, v2.0 and v2.1 (check_compliance_dir, the CSV
# head of check_results_dir, log_result's unit dicts, Config.uses_* methods)
V1_SYSDESC = ["SYSTEM_DESC_REQUIRED_FIELDS", "SYSTEM_DESC_REQUIED_FIELDS_SINCE_V1"]
V2_GUESSES = ROUNDS["v3.0"]["guesses"][:5]
OLD_CSV = ["Organization", "Availability", "Division", "SystemType", "SystemName", "Platform",
           "Model", "MlperfModel", "Scenario", "Result", "Accuracy", "number_of_nodes",
           "host_processor_model_name", "host_processors_per_node", "host_processor_core_count",
           "accelerator_model_name", "accelerators_per_node", "Location", "framework",
           "operating_system", "notes", "compilance", "errors", "version"]
PRE_V21 = {  # switches shared by the checkers of v1.0 to v2.0
    "compliance_failure_rejects_result": False,  # "# results[name] = None" commented out
    "compliance_runs_perf_checked": False,       # check_compliance_perf_dir only reads verify_*
    "compliance_last_test_decides": True,        # compliance_perf_pass = ... (overwritten)
    "accuracy_failure_stops": False,             # files_diff is only logged, no `continue`
    "csv_notes_always_joined": True,             # notes + ". " + sw_notes, even if notes == ""
}
ROUNDS["v2.1"] = {
    "compliance": (["TEST01", "TEST04", "TEST05"],
                   {"TEST04": ["rnnt", "bert-99", "bert-99.9", "dlrm-99", "dlrm-99.9",
                               "3d-unet-99", "3d-unet-99.9", "retinanet"]}),
    "csv_header": OLD_CSV + ["inferred", "has_power", "Units"],
    "csv_quoted": ["SystemType", "SystemName", "host_processor_model_name",
                   "accelerator_model_name", "framework", "operating_system", "notes"],
    "sysdesc": V1_SYSDESC,
    "sysdesc_power": "SYSTEM_DESC_REQUIED_FIELDS_POWER",
    "meaningful": None,
    "switches": dict(ROUNDS["v3.0"]["switches"], power_energy_scale=1, tree_walk_checks=False,
                     extra_model_map_inline=True),
    "power_units": {"SingleStream": "Joules", "MultiStream": "Joules", "Offline": "Watts",
                    "Server": "Watts"},
    "guesses": V2_GUESSES,
}
ROUNDS["v2.0"] = dict(ROUNDS["v2.1"])
ROUNDS["v2.0"].update({
    "compliance": (["TEST01", "TEST04-A", "TEST04-B", "TEST05"],
                   {"TEST04-A": ["rnnt", "bert-99", "bert-99.9", "dlrm-99", "dlrm-99.9",
                                 "3d-unet-99", "3d-unet-99.9"],
                    "TEST04-B": ["rnnt", "bert-99", "bert-99.9", "dlrm-99", "dlrm-99.9",
                                 "3d-unet-99", "3d-unet-99.9"]}),
    "switches": dict(ROUNDS["v2.1"]["switches"], **PRE_V21),
})
ROUNDS["v1.1"] = dict(ROUNDS["v2.0"])
ROUNDS["v1.1"].update({
    # r1.1: TEST04-A/B also left out for every MultiStream result
    "compliance": (["TEST01", "TEST04-A", "TEST04-B", "TEST05"],
                   {"TEST04-A": ["rnnt", "bert-99", "bert-99.9", "dlrm-99", "dlrm-99.9"],
                    "TEST04-B": ["rnnt", "bert-99", "bert-99.9", "dlrm-99", "dlrm-99.9"]}),
    "compliance_skip_scenarios": {"TEST04-A": ["MultiStream"], "TEST04-B": ["MultiStream"]},
    "csv_header": OLD_CSV + ["infered", "has_power", "Units"],
    "csv_quoted": ["SystemName", "host_processor_model_name", "accelerator_model_name",
                   "framework", "operating_system", "notes"],
    "units": {"SingleStream": "Latency (ms)", "MultiStream": "Streams", "Offline": "Samples/s",
              "Server": "Queries/s"},
    "power_units": {"SingleStream": "Joules", "MultiStream": "Joules/Stream",
                    "Offline": "Watts", "Server": "Watts"},
    # Config.uses_early_stopping / uses_legacy_multistream: False / True before v2.0; the
    # MultiStream result is effective_samples_per_query, only SingleStream is converted to ms
    # generate-final-report.py of tags v1.0.1 and r1.1: a sheet per division and suite with
    # `Suite == suite` (a "datacenter,edge" system is in neither) and no (Model, Scenario) filter
    "switches": dict(ROUNDS["v2.0"]["switches"], early_stopping=False,
                     result_ns_to_ms_scenarios=["SingleStream"], detail_log_query_count=False,
                     report_scenario_filter=False, report_suite_exact=True),
    "multistream_field": "effective_samples_per_query",
})
ROUNDS["v1.0"] = dict(ROUNDS["v1.1"])
ROUNDS["v1.0"].update({
    # v1.0.1: one row per result, the power metric in a `power` column, no units
    "csv_header": OLD_CSV + ["infered", "power"],
    "switches": dict(ROUNDS["v1.1"]["switches"], csv_power_extra_row=False),
})
# v0.5 and v0.7: the checker of tag v0.7.1 (a much smaller script): results from the summary
# file, the detail log only searched for ERROR lines, no compliance or power checks
ROUNDS["v0.7"] = {
    "compliance": ([], {}),
    "csv_header": ["Organization", "Availability", "Division", "SystemType", "Platform", "Model",
                   "MlperfModel", "Scenario", "Result", "Accuracy", "Location"],
    "csv_quoted": [],
    "sysdesc": ["SYSTEM_DESC_REQUIRED_FIELDS"],
    "sysdesc_known": "SYSTEM_DESC_OPTIONAL_FIELDS",
    "meaningful": None,
    # v0.7.1 has no --extra-model-benchmark-map and reads no model_mapping.json
    "switches": dict(ROUNDS["v1.0"]["switches"], result_from_summary=True,
                     server_performance_runs=5, status_checked=False,
                     system_desc_submitter_case_sensitive=True,
                     system_desc_failure_keeps_models=True,
                     measurement_failure_stops_scenario=False,
                     # no results-table tool in tag v0.7.1: the results tables are the
                     # checker's summary.csv rows, every one
                     report_suite_exact=False,
                     # check_results_dir of v0.7.1: a submitter without results/ is
                     # "no submission in" and results[results_path] = None
                     submitter_without_results_counts=True),
    # Config.get_mlperf_model of v0.7.1: prefixes, not substrings
    "guesses": [
        {"prefix": ["mobilenet"], "model": "mobilenet"},
        {"prefix": ["efficientnet"], "model": "resnet"},
        {"prefix": ["rcnn"], "model": "ssd-small"},
        {"prefix": ["ssdlite", "ssd-inception", "yolo", "ssd-mobilenet", "ssd-resnet50"],
         "model": "ssd-small"},
    ],
    "valid_system_types": ["datacenter", "edge"],
    "min_duration_ms": "TEST_DURATION_MS",
}
ROUNDS["v0.5"] = dict(ROUNDS["v0.7"])
ROUNDS["v0.5"].update({
    # v0.5: no system type (every scenario optional for every model), no latency or duration
    # checks ("not supported for v0.5")
    "valid_system_types": None,
    # no system type: one results table per division (the system JSON's `division`, its
    # `status` the Availability column), not per suite
    "switches": dict(ROUNDS["v0.7"]["switches"], perf_constraints_checked=False,
                     report_suites=[]),
})

# round detection (detect.c): what a round's submissions look like. LoadGen versions as the
# detail logs print them (loadgen_version / "version :"); the first is the round's own, the
# others the older LoadGens its submitters still used (v3.0 has LoadGen 2.1 logs)
DETECT = {
    "v0.5": {
        "log_format": "text",
        "loadgen_versions": [
            ".5a1",
            "0.5"
        ],
        "compliance_dir": "audit",
        "system_type_field": False
    },
    "v0.7": {
        "log_format": "text",
        "loadgen_versions": [
            ".5a1",
            "0.7"
        ],
        "compliance_dir": "compliance",
        "system_type_field": True
    },
    "v1.0": {
        "log_format": "mllog",
        "loadgen_versions": [
            ".5a1",
            "1.0"
        ],
        "compliance_dir": "compliance"
    },
    "v1.1": {
        "log_format": "mllog",
        "loadgen_versions": [
            "1.1",
            ".5a1",
            "1.0"
        ],
        "compliance_dir": "compliance"
    },
    "v2.0": {
        "log_format": "mllog",
        "loadgen_versions": [
            "2.0",
            "1.1"
        ],
        "compliance_dir": "compliance"
    },
    "v2.1": {
        "log_format": "mllog",
        "loadgen_versions": [
            "2.1",
            "2.0"
        ],
        "compliance_dir": "compliance"
    },
    "v3.0": {
        "log_format": "mllog",
        "loadgen_versions": [
            "3.0",
            "2.1"
        ],
        "compliance_dir": "compliance"
    },
    "v3.1": {
        "log_format": "mllog",
        "loadgen_versions": [
            "3.1",
            "3.0"
        ],
        "compliance_dir": "compliance"
    },
    "v4.0": {
        "log_format": "mllog",
        "loadgen_versions": [
            "4.0",
            "3.1"
        ],
        "compliance_dir": "compliance"
    },
    "v4.1": {
        "log_format": "mllog",
        "loadgen_versions": [
            "4.1",
            "4.0"
        ],
        "compliance_dir": "compliance"
    }
}


def main():
    checker, version, base_path, out_path = sys.argv[1:5]
    consts, mc = load(checker)
    cfg = {k.value: v for k, v in zip(mc[version].keys, mc[version].values)}
    lit = {k: ast.literal_eval(v) for k, v in cfg.items()
           if k not in ("accuracy-target", "accuracy-upper-limit")}
    base = json.load(open(base_path))
    hand = ROUNDS[version]
    out = dict(base)
    # BASE's switch of tag v5.0.1 alone (its get_delta_perc is asked for acc_type[0], a letter);
    # v4.1's acc_type is a (metric, target) pair: the default, overrides applied
    out.pop("test01_delta_overrides", None)
    out["version"] = version
    models = lit["models"]
    out["models"] = models
    out["model_mapping"] = lit["model_mapping"]
    cats = {"datacenter": "datacenter", "edge": "edge", "datacenter,edge": "datacenter-edge",
            "edge,datacenter": "datacenter-edge"}
    # set(self.required[model]): a dict's keys are the scenarios (v0.7's dlrm and 3d-unet entries)
    def scen_table(t):
        return {m: list(v) for m, v in t.items()}
    out["required_scenarios"] = {c: scen_table(lit.get("required-scenarios-" + s, {}))
                                 for c, s in cats.items()}
    out["optional_scenarios"] = {c: scen_table(lit.get("optional-scenarios-" + s, {}))
                                 for c, s in cats.items()}
    if "valid_system_types" in hand:
        vst = hand["valid_system_types"]
        if vst is None:
            # v0.5: no system type; Config.get_required / get_optional answer set() and every
            # scenario for any model (the "any" category below)
            out.pop("valid_system_types", None)
            out["required_scenarios"] = {"any": {m: [] for m in models}}
            out["optional_scenarios"] = {"any": {m: ["SingleStream", "MultiStream", "Server",
                                                     "Offline"] for m in models}}
        else:
            out["valid_system_types"] = vst
    out["accuracy_targets"] = {ast.literal_eval(k): target(v) for k, v in
                               zip(cfg["accuracy-target"].keys, cfg["accuracy-target"].values)}
    ul = cfg.get("accuracy-upper-limit")
    out["accuracy_upper_limits"] = {ast.literal_eval(k): target(v) for k, v in
                                    zip(ul.keys, ul.values)} if ul else {}
    out["accuracy_delta_perc_overrides"] = lit.get("accuracy-delta-perc", {})
    out["accuracy_patterns"] = consts["ACC_PATTERN"]
    out["performance_sample_count"] = lit["performance-sample-count"]
    out["dataset_size"] = {}
    out["min_queries"] = lit.get("min-queries", {})
    spq = consts.get("OFFLINE_MIN_SPQ_SINCE_V4")
    # check_performance_dir of tag v4.0 asks v3.1 for OFFLINE_MIN_SPQ and OFFLINE_MIN_SPQ_SINCE_V4[model]
    # (v4.0 on: the latter only); a model absent from that table raises there, so it has no entry
    # (mlsubmit's P13 is then an error for its Offline runs: v3.1's gpt3-99/-99.9)
    out["offline_min_samples_per_query"] = (
        {m: spq[m] if version >= "v4.0" else max(spq[m], consts["OFFLINE_MIN_SPQ"])
         for m in models if m in spq} if spq
        else {m: consts["OFFLINE_MIN_SPQ"] for m in models})
    out["latency_constraint_ns"] = lit.get("latency-constraint", {})
    out["seeds"] = {k: str(v) for k, v in lit["seeds"].items()}
    if "test05_seeds" in lit:
        out["test05_seeds"] = {k: str(v) for k, v in lit["test05_seeds"].items()}
    else:
        out.pop("test05_seeds", None)
    rf = consts.get("RESULT_FIELD_NEW", {})
    rf = rf.get(version, rf) if any(k.startswith("v") for k in rf) else rf
    if hand.get("switches", {}).get("result_from_summary"):
        # the summary file's "Scenario : Single Stream" keys RESULT_FIELD (v0.7.1)
        rf = consts["RESULT_FIELD"]
        out["summary_result_field"] = rf
        rf = RESULT_FIELD_NEW_V1
    out["result_field"] = {k: v for k, v in rf.items() if k != "MultiStreamLegacy"}
    if hand.get("multistream_field"):
        out["result_field"]["MultiStream"] = hand["multistream_field"]
    ow = consts.get("RESULT_FIELD_BENCHMARK_OVERWRITE", {})
    ow = ow.get(version, {}) if any(k.startswith("v") for k in ow) else ow  # per round or flat
    out["result_field_overrides"] = {m: d for m, d in ow.items() if m in models}
    # LLM_LATENCY_LIMITS (per model) or LLAMA2_LATENCY_LIMITS (llama2 only); "conversational"
    # is the Server scenario
    lat = consts.get("LLM_LATENCY_LIMITS") or (
        {m: consts["LLAMA2_LATENCY_LIMITS"] for m in models if m.startswith("llama2-70b")}
        if "LLAMA2_LATENCY_LIMITS" in consts and version >= "v4.0" else {})
    out["llm_token_latency_limits_ns"] = {m: {"Server": d["conversational"]} for m, d in lat.items()
                                          if m in models}
    out["llm_models"] = sorted(out["llm_token_latency_limits_ns"])
    out["equal_issue_required_models"] = hand.get("equal_issue", [])
    tests, skip = hand["compliance"][:2]
    add = hand["compliance"][2] if len(hand["compliance"]) > 2 else {}
    out["compliance_tests"] = {m: [t for t in tests if m not in skip.get(t, [])] +
                               [t for t, ms in add.items() if m in ms] for m in models}
    # check_extra_files runs where REQUIRED_ACC_BENCHMARK[model] has the round's key (the
    # stable-diffusion-xl images of tags v4.0 and v4.1)
    out["accuracy_extra_files"] = {m: d[version] for m, d in consts.get("REQUIRED_ACC_BENCHMARK", {}).items()
                                   if version in d and m in models}
    # log_result's unit_dict: one unit per scenario, no per-model (Tokens/s) units before v5.0
    out["units"] = {"default": hand.get("units") or {
        k: v for k, v in base["units"]["default"].items() if k != "Interactive"}, "overrides": {}}
    if hand.get("power_units"):
        out["power_units"] = hand["power_units"]
    out["valid_divisions"] = consts["VALID_DIVISIONS"]
    out["valid_availabilities"] = consts.get("VALID_AVAILABILITIES", [])
    out["scenario_dir_aliases"] = consts["SCENARIO_MAPPING"]
    out["measurements_required_files"] = consts["REQUIRED_MEASURE_FILES"]
    out["perf_dir_required_files"] = consts["REQUIRED_PERF_FILES"]
    out["perf_dir_optional_files"] = consts["OPTIONAL_PERF_FILES"]
    out["power_run_extra_required_files"] = consts.get("REQUIRED_PERF_POWER_FILES", [])
    out["power_dir_required_files"] = consts.get("REQUIRED_POWER_FILES", [])
    out["accuracy_dir_required_files"] = consts["REQUIRED_ACC_FILES"]
    out["system_desc_required_fields"] = [f for k in hand["sysdesc"] for f in consts[k]]
    out["system_desc_power_fields_known_not_enforced"] = consts[hand["sysdesc_power"]] \
        if hand.get("sysdesc_power") else consts.get(hand.get("sysdesc_known"), [])
    out["system_desc_network_fields"] = consts.get("SYSTEM_DESC_REQUIRED_FIELDS_NETWORK_MODE", [])
    if "TEST_DURATION_MS_PRE_1_0" in consts and version in ("v0.5", "v0.7"):
        out["min_test_duration_ms"] = consts["TEST_DURATION_MS_PRE_1_0"]
    elif "TEST_DURATION_MS" in consts:
        out["min_test_duration_ms"] = consts["TEST_DURATION_MS"]
    out["system_desc_meaningful_fields"] = consts[hand["meaningful"]] if hand["meaningful"] else []
    out["power_measure_file_patterns"] = consts.get("REQUIRED_POWER_MEASURE_FILES", [])
    out["measurements_required_fields"] = consts["SYSTEM_IMP_REQUIRED_FILES"]
    out["csv_header_legacy"] = hand["csv_header"]
    out["csv_quoted_columns_legacy"] = hand["csv_quoted"] if "csv_quoted" in hand else \
        [c for c in base["csv_quoted_columns_legacy"] if c in hand["csv_header"]]
    if "compliance_skip_scenarios" in hand:
        out["compliance_skip_scenarios"] = hand["compliance_skip_scenarios"]
    out["model_guesses"] = hand["guesses"]
    out["csv_design_power"] = False
    if "ignore_errors" in lit:
        out["detail_log_ignored_errors"] = lit["ignore_errors"]
    # S10 (systems and measurements without results) exists from the v5.1.1 checker on
    out["systems_results_check"] = False
    out["detect"] = DETECT[version]
    # the Power WG checker's table of PTD source checksums ships beside the checker
    # (power/sources_checksums.json); BASE's table is another release's
    sums = os.path.join(os.path.dirname(checker), "power", "sources_checksums.json")
    if os.path.isfile(sums) and "power_checker" in out:
        out["power_checker"] = dict(out["power_checker"], sources_checksums=json.load(open(sums)))
        pconsts, _ = load(os.path.join(os.path.dirname(sums), "power_checker.py"))
        if "SUPPORTED_VERSION" in pconsts:
            out["power_checker"]["ptd_versions"] = pconsts["SUPPORTED_VERSION"]
        # compare_time: TIME_DELTA_TOLERANCE ms from tag v4.0 on; tag v3.0 compares with 1 s
        out["power_checker"]["phase_tolerance_ms"] = pconsts.get("TIME_DELTA_TOLERANCE", 1000)
        if "SUPPORTED_MODEL" in pconsts:
            out["power_checker"]["analyzer_models"] = pconsts["SUPPORTED_MODEL"]
        # check_ptd_logs: the accepted errors; before tag v4.0 no testing warning is an error and
        # a warning counts anywhere in the load window (v4.0 on: TIME_DELTA_TOLERANCE inside it)
        for key, const in (("ptd_log_common_ranging_errors", "COMMON_ERROR_RANGING"),
                           ("ptd_log_common_testing_errors", "COMMON_ERROR_TESTING")):
            if const in pconsts:
                out["power_checker"][key] = pconsts[const]
        out["power_checker"]["ptd_log_load_margin_s"] = pconsts.get("TIME_DELTA_TOLERANCE", 0)
        with open(os.path.join(os.path.dirname(sums), "power_checker.py")) as f:
            psrc = f.read()
        if "WARNING_NEEDS_TO_BE_ERROR_TESTING_RE" not in psrc:
            out["power_checker"]["ptd_log_testing_warnings_as_errors"] = []
        # phases_check's compare_duration of tag v3.0: within 15 % of the longer run, no
        # average-power check (get_avg_power from tag v4.0)
        if "def get_avg_power" not in psrc:
            out["power_checker"]["duration_error_ratio"] = 0.15
    for k, v in hand.get("switches", {}).items():
        out[k] = v
    with open(out_path, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
