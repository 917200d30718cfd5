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
                     "summary_power_counts": False,
                     # check_results_dir of tag v3.0: neither a measurement failure nor a missing
                     # accuracy.txt / file list mismatch ends the scenario (no `continue`)
                     "measurements_failure_stops": False, "accuracy_failure_stops": False,
                     # ... nor a file list mismatch of performance/run_1
                     "performance_file_list_stops": False,
                     # check_performance_dir of tag v3.0 only logs these (no is_valid = False)
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
V3_HEAD = ROUNDS["v3.0"]["csv_header"]
OLD_SWITCHES = {"calibration_doc_required": False, "csv_weight_data_types_column": False,
                "csv_accuracy_value_only": True, "systems_results_check": False}
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
        # accuracy/ does not end the scenario (tag v4.1 added `continue`)
        "switches": dict(OLD_SWITCHES, accuracy_failure_stops=False),
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
    "switches": OLD_SWITCHES,
})


def main():
    checker, version, base_path, out_path = sys.argv[1:5]
    consts, mc = load(checker)
    cfg = {k.value: v for k, v in zip(mc[version].keys, mc[version].values)}
    lit = {k: ast.literal_eval(v) for k, v in cfg.items()
           if k not in ("accuracy-target", "accuracy-upper-limit")}
    base = json.load(open(base_path))
    hand = ROUNDS[version]
    out = dict(base)
    out["version"] = version
    models = lit["models"]
    out["models"] = models
    out["model_mapping"] = lit["model_mapping"]
    cats = {"datacenter": "datacenter", "edge": "edge", "datacenter,edge": "datacenter-edge",
            "edge,datacenter": "datacenter-edge"}
    out["required_scenarios"] = {c: lit.get("required-scenarios-" + s, {}) for c, s in cats.items()}
    out["optional_scenarios"] = {c: lit.get("optional-scenarios-" + s, {}) for c, s in cats.items()}
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
    out["offline_min_samples_per_query"] = {m: spq.get(m, consts["OFFLINE_MIN_SPQ"])
                                            for m in models} if spq and version >= "v4.0" \
        else {m: consts["OFFLINE_MIN_SPQ"] for m in models}
    out["latency_constraint_ns"] = lit.get("latency-constraint", {})
    out["seeds"] = {k: str(v) for k, v in lit["seeds"].items()}
    out["test05_seeds"] = {k: str(v) for k, v in lit["test05_seeds"].items()}
    out["result_field"] = {k: v for k, v in consts["RESULT_FIELD_NEW"][version].items()
                           if k != "MultiStreamLegacy"}
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
    out["accuracy_extra_files"] = {}
    # log_result's unit_dict: one unit per scenario, no per-model (Tokens/s) units before v5.0
    out["units"] = {"default": {k: v for k, v in base["units"]["default"].items()
                                if k != "Interactive"}, "overrides": {}}
    out["valid_divisions"] = consts["VALID_DIVISIONS"]
    out["valid_availabilities"] = consts["VALID_AVAILABILITIES"]
    out["scenario_dir_aliases"] = consts["SCENARIO_MAPPING"]
    out["measurements_required_files"] = consts["REQUIRED_MEASURE_FILES"]
    out["perf_dir_required_files"] = consts["REQUIRED_PERF_FILES"]
    out["perf_dir_optional_files"] = consts["OPTIONAL_PERF_FILES"]
    out["power_run_extra_required_files"] = consts["REQUIRED_PERF_POWER_FILES"]
    out["power_dir_required_files"] = consts["REQUIRED_POWER_FILES"]
    out["accuracy_dir_required_files"] = consts["REQUIRED_ACC_FILES"]
    out["system_desc_required_fields"] = [f for k in hand["sysdesc"] for f in consts[k]]
    out["system_desc_power_fields_known_not_enforced"] = consts[hand["sysdesc_power"]]
    out["system_desc_network_fields"] = consts["SYSTEM_DESC_REQUIRED_FIELDS_NETWORK_MODE"]
    out["system_desc_meaningful_fields"] = consts[hand["meaningful"]] if hand["meaningful"] else []
    out["power_measure_file_patterns"] = consts.get("REQUIRED_POWER_MEASURE_FILES", [])
    out["measurements_required_fields"] = consts["SYSTEM_IMP_REQUIRED_FILES"]
    out["csv_header_legacy"] = hand["csv_header"]
    out["csv_quoted_columns_legacy"] = [c for c in base["csv_quoted_columns_legacy"]
                                        if c in hand["csv_header"]]
    out["model_guesses"] = hand["guesses"]
    out["csv_design_power"] = False
    for k, v in hand.get("switches", {}).items():
        out[k] = v
    with open(out_path, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
