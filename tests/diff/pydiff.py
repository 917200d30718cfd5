#!/usr/bin/env python3
"""Differential test of mlsubmit's Python module (src/python/, build/python/mlperf_loadgen) against
the MLCommons reference Python bindings (loadgen/bindings/python_api.cc, pybind11).

The reference module of each tag is built once (g++, the machine's pybind11) into a cache under
/tmp. For each seed and tag a harness case valid for that tag's Python API is drawn (scenario,
mode, counts, settings as attributes and through FromConfig on a user.conf, log settings, SUT
kind and threading, response data, token calls) and tests/diff/pyref/harness.py runs it twice,
in separate processes: once with PYTHONPATH at the reference module, once at ours. Compared:
the SUT's issued queries (sample indices, query sizes), the QSL's load / unload sets, the
deterministic detail-log entries, the summary's parameter lines and the accuracy log's
(qsl_idx, data) set (lgdiff.py's rules), and the exception classes of the bad-use probes.

  pydiff.py --n 50 [--first 1] [--tags v5.1.1,v4.0]   a campaign
  pydiff.py --seed 17 --tags v4.0 [--keep]            replay one case (prints the differences)
  pydiff.py --build-only [--tags ...]                 build the reference modules only
  pydiff.py --export DIR --seed N --tags TAG          store the reference's side of one case
  pydiff.py --check-data DIR                          replay stored cases on ours only
  pydiff.py --refresh-data DIR                        run the reference again on stored cases
Exit status: 0 no divergence, 1 divergences, 2 setup error (3: skipped, no sources/g++/pybind11).
"""
import argparse, hashlib, json, os, random, re, shutil, subprocess, sys, sysconfig, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import lgdiff  # noqa: E402  (the reference sources, the settings draws, the log comparison rules)

UPSTREAM = lgdiff.UPSTREAM
HARNESS = os.path.join(HERE, "pyref", "harness.py")
CACHE = os.environ.get("PYDIFF_CACHE", os.path.join(tempfile.gettempdir(), "mlsubmit-pydiff-ref"))
CXXFLAGS = ["-std=c++14", "-O2", "-DNDEBUG", "-fPIC", "-fvisibility=hidden", "-w"]
PY = sys.executable
TAGS = lgdiff.TAGS


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def pybind11_include():
    try:
        import pybind11
        return pybind11.get_include()
    except ImportError:
        return "/usr/include" if os.path.exists("/usr/include/pybind11/pybind11.h") else None


# ---- building the reference module ------------------------------------------------------------
def ref_module(tag, quiet=False, build=True):
    """The directory holding the reference mlperf_loadgen module of tag (built once per source
    tree, interpreter and flags; objects kept). With build=False: None when not built yet."""
    src = os.path.join(UPSTREAM, tag)
    pyinc = sysconfig.get_paths()["include"]
    pyb = pybind11_include()
    ext = sysconfig.get_config_var("EXT_SUFFIX")
    h = hashlib.sha1()
    for d in (src, os.path.join(src, "bindings")):
        for f in sorted(os.listdir(d)):
            p = os.path.join(d, f)
            if os.path.isfile(p) and f.endswith((".cc", ".h", ".conf")):
                h.update(f.encode()); h.update(open(p, "rb").read())
    h.update(" ".join(CXXFLAGS + [pyinc, str(pyb), ext]).encode())
    b = os.path.join(CACHE, "%s-%s" % (tag, h.hexdigest()[:12]))
    mod = os.path.join(b, "mod")
    if os.path.exists(os.path.join(mod, "mlperf_loadgen" + ext)):
        return mod
    if not build:
        return None
    if not quiet:
        log("pydiff: building the reference Python module %s into %s" % (tag, b))
    lgdiff.write_generated(tag, b, "pydiff")
    units = [os.path.join(src, x) for x in sorted(os.listdir(src)) if x.endswith(".cc")]
    units += [os.path.join(src, "bindings", "python_api.cc"), os.path.join(b, "generated", "version_generated.cc")]
    objs = [os.path.join(b, os.path.basename(u)[:-3] + ".o") for u in units]
    todo = [(u, o) for u, o in zip(units, objs) if not os.path.exists(o)]
    procs = []
    for u, o in todo:
        cmd = ["nice", "-n", "19", "g++"] + CXXFLAGS + ["-I", b, "-I", src, "-I", pyb, "-I", pyinc,
                                                       "-c", u, "-o", o + ".tmp"]
        procs.append((u, o, subprocess.Popen(cmd)))
        while sum(p.poll() is None for _, _, p in procs) >= 2:
            time.sleep(0.2)
    bad = []
    for u, o, p in procs:
        if p.wait() == 0:
            os.rename(o + ".tmp", o)
        else:
            bad.append(os.path.basename(u))
    if bad:
        raise RuntimeError("pydiff: the reference module %s did not build (%s)" % (tag, ", ".join(bad)))
    os.makedirs(mod + ".tmp", exist_ok=True)
    subprocess.check_call(["g++", "-shared", "-o", os.path.join(mod + ".tmp", "mlperf_loadgen" + ext)] + objs
                          + ["-pthread"])
    if os.path.exists(mod):
        shutil.rmtree(mod)
    os.rename(mod + ".tmp", mod)
    return mod


# ---- the API of a tag ---------------------------------------------------------------------------
def api_of(tag):
    """What the tag's python_api.cc binds: TestSettings attributes (Python name -> C++ field),
    LogOutputSettings fields, module functions, QuerySampleResponse constructors, response_cb."""
    text = open(os.path.join(UPSTREAM, tag, "bindings", "python_api.cc")).read()
    attrs = dict(re.findall(r'def_readwrite\(\s*"(\w+)",\s*&TestSettings::(\w+)\)', text))
    lo = re.findall(r'def_readwrite\(\s*"(\w+)",\s*&LogOutputSettings::\w+\)', text)
    ls = [x for x in re.findall(r'def_readwrite\(\s*"(\w+)",\s*&LogSettings::\w+\)', text) if x != "log_output"]
    funcs = set(re.findall(r'm\.def\(\s*"(\w+)"', text))
    return {"attrs": attrs, "log_output": lo, "log_settings": ls, "funcs": funcs,
            "qsr4": "init<ResponseId, uintptr_t, size_t, int64_t>" in text,
            "response_cb": "ResponseCallback" in text, "conf_type": '"conf_type"' in text,
            "report_latencies": "ReportLatencyResultsCallback" in text,
            "pickle": "pybind11::pickle" in text, "multistreamfree": "MultiStreamFree" in text,
            "audit_arg": "audit_config_filename" in text,
            "arg_names": set(re.findall(r'arg\("(\w+)"\)', text))}


# ---- drawing a case ---------------------------------------------------------------------------
def typed(r, ctype, text):
    """A setting's text as the Python value a harness would assign (the C++ type decides)."""
    if ctype == "bool":
        return r.choice([True, True, 1]) if text not in ("0", "false") else False
    if ctype in ("double", "float"):
        x = float(text)
        return int(x) if x.is_integer() and abs(x) < 2**53 and r.random() < 0.3 else x
    return int(text)


PROBES = [
    ["set", "TestSettings", "not_a_setting", 3],
    ["set", "TestSettings", "min_query_count", "5"],
    ["set", "TestSettings", "min_query_count", -1],
    ["set", "TestSettings", "min_query_count", 1.5],
    ["set", "TestSettings", "min_query_count", 2**64],
    ["set", "TestSettings", "min_query_count", 2**64 - 1],
    ["set", "TestSettings", "min_query_count", True],
    ["set", "TestSettings", "min_query_count", None],
    ["set", "TestSettings", "server_target_qps", "1.5"],
    ["set", "TestSettings", "server_target_qps", 7],
    ["set", "TestSettings", "server_target_qps", True],
    ["set", "TestSettings", "server_target_qps", {"float": "inf"}],
    ["set", "TestSettings", "server_target_qps", 2**70],
    ["set", "TestSettings", "performance_issue_unique", 1],
    ["set", "TestSettings", "performance_issue_unique", 0.0],
    ["set", "TestSettings", "performance_issue_unique", "x"],
    ["set", "TestSettings", "performance_issue_unique", None],
    ["set", "TestSettings", "min_query_count", {"dec": "2.7"}],
    ["set", "TestSettings", "min_query_count", {"frac": [7, 2]}],
    ["set", "TestSettings", "min_query_count", []],
    ["set", "TestSettings", "server_target_qps", {"dec": "2.5"}],
    ["set", "TestSettings", "server_target_qps", None],
    ["set", "TestSettings", "server_target_qps", 2**1100],
    ["set", "TestSettings", "performance_issue_unique", 2],
    ["set", "TestSettings", "performance_issue_unique", []],
    ["set", "TestSettings", "performance_issue_unique", {"dec": "0"}],
    ["set", "TestSettings", "server_find_peak_qps_decimals_of_precision", {"dec": "-2.5"}],
    ["set", "TestSettings", "server_find_peak_qps_decimals_of_precision", -3],
    ["set", "TestSettings", "server_find_peak_qps_decimals_of_precision", 2**31],
    ["set", "TestSettings", "server_find_peak_qps_decimals_of_precision", 2.0],
    ["set", "TestSettings", "scenario", 2],
    ["set", "TestSettings", "scenario", "Server"],
    ["set", "TestSettings", "scenario", {"enum": ["TestMode", "AccuracyOnly"]}],
    ["set", "TestSettings", "mode", {"enum": ["TestMode", "FindPeakPerformance"]}],
    ["set", "TestSettings", "mode", None],
    ["set", "LogOutputSettings", "outdir", 3],
    ["set", "LogOutputSettings", "prefix", None],
    ["set", "LogOutputSettings", "suffix", "x"],
    ["set", "LogOutputSettings", "copy_summary_to_stdout", 1],
    ["set", "LogOutputSettings", "copy_summary_to_stdout", "x"],
    ["set", "LogOutputSettings", "not_a_field", 1],
    ["set", "LogSettings", "log_mode", 1],
    ["set", "LogSettings", "log_mode", {"enum": ["LoggingMode", "Synchronous"]}],
    ["set", "LogSettings", "enable_trace", "x"],
    ["set", "LogSettings", "log_mode_async_poll_interval_ms", -1],
    ["set", "LogSettings", "log_output", 3],
    ["set", "QuerySample", "index", -1],
    ["set", "QuerySample", "id", 2**64],
    ["set", "QuerySample", "index", 2**64 - 1],
    ["set", "QuerySampleResponse", "size", -1],
    ["set", "QuerySampleResponse", "data", 1.5],
    ["set", "QuerySampleResponse", "data", 2**63],
    ["call", "TestSettings", [1]],
    ["call", "FromConfig", [1, "m", "Server"]],
    ["call", "FromConfig", ["m", "Server"]],
    ["call", "ConstructQSL", ["a", 1, {"fn": 1}, {"fn": 1}]],
    ["call", "ConstructQSL", [-1, 1, {"fn": 1}, {"fn": 1}]],
    ["call", "ConstructQSL", [1, 1, 1, 1]],
    ["call", "ConstructQSL", [1, 1, {"fn": 1}]],
    ["call", "ConstructSUT", [1, 2]],
    ["call", "ConstructSUT", [{"fn": 1}]],
    ["call", "QuerySample", [1]],
    ["call", "QuerySample", [1, 2, 3]],
    ["call", "QuerySample", [-1, 0]],
    ["call", "QuerySample", [3, 4]],
    ["call", "QuerySampleResponse", [1, 2]],
    ["call", "QuerySampleResponse", [1, 0, 0]],
    ["call", "QuerySampleResponse", [1, 0, -1]],
    ["call", "QuerySampleResponse", ["a", 0, 0]],
    ["call", "QuerySampleResponse", [1, 0, 0, 5, 6]],
    ["call", "QuerySamplesComplete", ["x"]],
    ["call", "QuerySamplesComplete", [[1]]],
    ["call", "QuerySamplesComplete", [[]]],
    ["call", "QuerySamplesComplete", []],
    ["eval", "lg.QuerySamplesComplete(())"],
    ["eval", "lg.QuerySamplesComplete(iter([]))"],
    ["eval", "lg.QuerySamplesComplete([None])"],
    ["eval", "lg.QuerySamplesComplete(b'')"],
    ["eval", "lg.QuerySamplesComplete(responses=[])", ["responses"]],
    ["eval", "lg.QuerySamplesComplete(response=[])", ["responses"]],
    ["eval", "lg.TestSettings().FromConfig(path='no/such', model='m', scenario='Offline')", ["path"]],
    ["eval", "lg.TestSettings().FromConfig('no/such', 'm', 'Offline', conf_type=1)", ["conf_type"]],
    ["eval", "lg.StartTest(sut=1, qsl=2)", ["sut"]],
    ["call", "StartTest", [1]],
    ["call", "StartTest", ["a", "b", {"obj": "TestSettings"}]],
    ["eval", "int(lg.TestScenario.Server)"],
    ["eval", "lg.TestScenario.Offline.name"],
    ["eval", "lg.TestScenario.MultiStream.value"],
    ["eval", "lg.TestScenario.Server == 2"],
    ["eval", "lg.TestScenario.Server == lg.TestScenario.Server"],
    ["eval", "lg.TestScenario(3)"],
    ["eval", "str(lg.TestMode.AccuracyOnly)"],
    ["eval", "lg.TestMode.FindPeakPerformance.value"],
    ["eval", "lg.LoggingMode.Synchronous.value"],
    ["eval", "sorted(lg.TestScenario.__members__)"],
    ["eval", "sorted(lg.TestMode.__members__)"],
    ["eval", "[int(lg.TestScenario.Server), int(lg.TestScenario.Offline)]"],
    ["eval", "(lambda s: (setattr(s, 'scenario', lg.TestScenario(3)), s.scenario)[1])(lg.TestSettings())"],
    ["eval", "lg.TestSettings().scenario"],
    ["eval", "lg.TestSettings().mode"],
    ["eval", "lg.LogSettings().log_mode"],
    ["eval", "[lg.QuerySample().id, lg.QuerySample().index]"],
    ["eval", "[lg.QuerySampleResponse().id, lg.QuerySampleResponse().data, lg.QuerySampleResponse().size]"],
    ["eval", "(lambda q: [q.id, q.index])(pickle.loads(pickle.dumps(lg.QuerySample(3, 4))))"],
    ["eval", "(lambda q: [q.id, q.data, q.size])(pickle.loads(pickle.dumps(lg.QuerySampleResponse(5, 6, 7))))"],
    ["eval", "hash(lg.TestScenario.Server) == hash(lg.TestScenario.Server)"],
    ["eval", "lg.TestSettings().FromConfig('no/such/user.conf', 'm', 'Offline')"],
]
PROBES_TOKENS = [   # v4.0 on (n_tokens)
    ["eval", "lg.QuerySampleResponse().n_tokens"],
    ["eval", "lg.QuerySampleResponse(1, 2, 3, 4).n_tokens"],
    ["eval", "(lambda q: [q.id, q.data, q.size, q.n_tokens])(pickle.loads(pickle.dumps(lg.QuerySampleResponse(5, 6, 7, 8))))"],
    ["set", "QuerySampleResponse", "n_tokens", -1],
    ["set", "QuerySampleResponse", "n_tokens", 2**63],
    ["set", "QuerySampleResponse", "n_tokens", "x"],
]


def draw(seed, tag):
    """A harness case valid for tag (the JSON harness.py reads), and lgdiff's case it extends."""
    api = api_of(tag)
    scen, mode, total, perf, s, conf = lgdiff.draw(seed, tag)
    r = random.Random("pydiff/%d/%s" % (seed, tag))
    fields = dict(lgdiff.fields_of(os.path.join(UPSTREAM, tag)))
    py_of = {}
    for p, c in sorted(api["attrs"].items()):
        py_of.setdefault(c, []).append(p)
    attrs = []
    for k, v in s.items():
        if k in py_of:   # a field two attributes reach (tag v3.0's test05 seeds): either
            attrs.append([r.choice(py_of[k]), typed(r, fields.get(k, "uint64_t"), v)])
    case = {"tag": tag, "seed": seed, "scenario": scen, "mode": mode, "total": total, "perf": perf,
            "attrs": attrs, "pre_attrs": [], "fromconfig": [], "files": {}}
    if conf and conf.get("text"):
        text = conf["text"]
        if conf.get("malformed"):   # the reference would run on mlperf.conf's long runs
            text = "".join(l for l in text.splitlines(True) if "= = " not in l)
        case["files"]["user.conf"] = text
        if conf.get("mlperf_conf"):
            case["fromconfig"].append([conf["mlperf_conf"], conf["model"], scen])
        fc = ["user.conf", conf["model"], scen]
        if api["conf_type"] and r.random() < 0.3:
            fc.append(1)
        if api["conf_type"] and r.random() < 0.15:
            # mlperf.conf alone first (the path is not read), then the user.conf
            case["fromconfig"].append(["", conf["model"], scen, 0])
        case["fromconfig"].append(fc)
        if r.random() < 0.1:
            case["fromconfig"].append(fc)   # a second user.conf ("Multiple conf files" from v5.0)
        # the seeds may go before FromConfig (which then keeps or overrides them)
        if r.random() < 0.5:
            case["pre_attrs"] = [a for a in attrs if a[0].endswith("rng_seed")]
            case["attrs"] = [a for a in attrs if not a[0].endswith("rng_seed")]
    if conf and conf.get("audit"):
        case["files"]["audit.config"] = conf["audit"]
    if api["audit_arg"] and r.random() < 0.2:
        # StartTest's audit_config_filename (v2.0 on): the audit.config under another name, or a
        # file that is not there
        if "audit.config" in case["files"] and r.random() < 0.7:
            case["files"]["my_audit.cfg"] = case["files"].pop("audit.config")
            case["audit_arg"] = "my_audit.cfg"
        else:
            case["audit_arg"] = r.choice(["no_such_audit.config", "audit.config"])
        case["audit_kw"] = r.random() < 0.5
    # the SUT
    kinds = ["sut"] * 6 + (["fast"] * 3 if "ConstructFastSUT" in api["funcs"] else []) + \
        (["qdl"] * 2 if "ConstructQDL" in api["funcs"] else [])
    case["sut"] = r.choice(kinds)
    case["report_latencies"] = api["report_latencies"]
    case["threaded"] = r.random() < 0.4
    case["data"] = "bytes" if r.random() < 0.6 else "none"
    case["batch"] = r.random() < 0.5
    case["qsr"] = r.choice(["args3", "args3", "attrs"] + (["args4"] * 2 if api["qsr4"] else []))
    case["response_cb"] = api["response_cb"] and r.random() < 0.2
    case["tokens"] = False
    if "FirstTokenComplete" in api["funcs"] and r.random() < 0.25:
        case["tokens"] = True
        if r.random() < 0.7 and "use_token_latencies" in api["attrs"]:
            case["attrs"].append(["use_token_latencies", True])
    # the logs
    if r.random() < 0.25:
        case["log"] = None
    else:
        log = {}
        lo = api["log_output"]
        x = r.random()
        log["outdir"] = "." if x < 0.3 else ("logs" if x < 0.99 else "no/such/dir")
        if "prefix" in lo and r.random() < 0.5:
            log["prefix"] = r.choice(["mlperf_log_", "run1_", "", "a.b-"])
        if "suffix" in lo and r.random() < 0.4:
            log["suffix"] = r.choice(["", "_x", ".part"])
        if "copy_summary_to_stdout" in lo and r.random() < 0.3:
            log["copy_summary_to_stdout"] = True
        if "prefix_with_datetime" in lo and r.random() < 0.2:
            log["prefix_with_datetime"] = False
        case["log"] = log
        case["log_whole"] = r.random() < 0.3
        if r.random() < 0.2:
            case["log_mode"] = r.choice(["AsyncPoll", "EndOfTestOnly", "Synchronous"])
    # bad use
    case["probes"] = []
    probes = [p for p in PROBES + (PROBES_TOKENS if api["qsr4"] else []) if probe_compared(p, api)]
    if seed % 10 == 0:
        pool = probes           # every probe, once in ten seeds
    elif r.random() < 0.5:
        pool = r.sample(probes, r.randint(1, 6))
    else:
        pool = []
    if seed % 10 == 0 or r.random() < 0.1:
        # every default a fresh object has, under the names the tag binds
        pool = pool + [["defaults", "TestSettings", sorted(api["attrs"])],
                       ["defaults", "LogOutputSettings", sorted(api["log_output"])],
                       ["defaults", "LogSettings", sorted(api["log_settings"])]]
    if pool:
        for p in pool:
            p = json.loads(json.dumps(p))
            if p[0] == "set" and p[1] == "TestSettings" and p[2] not in api["attrs"] and p[2] not in (
                    "scenario", "mode", "not_a_setting"):
                continue
            if p[0] == "set" and p[1] == "LogOutputSettings" and p[2] not in api["log_output"] + ["not_a_field"]:
                continue
            case["probes"].append(p)
    return case


def probe_compared(p, api):
    """Whether a probe is compared on the tag (the deliberate differences are left out;
    tests/diff/README.md): mlsubmit takes keyword arguments under the newest names
    in every release (the reference: where its bindings name them); it pickles QuerySample and
    QuerySampleResponse in every release (the reference: from r1.1, and from v4.0 its
    QuerySampleResponse.__setstate__ always raises)."""
    text = json.dumps(p)
    if p[0] == "eval" and len(p) > 2 and not set(p[2]) <= api["arg_names"]:
        return False   # keywords: mlsubmit takes the newest names in every release
    if "pickle" in text and (not api["pickle"] or ("QuerySampleResponse" in text and api["qsr4"])):
        return False
    return True


# ---- running ----------------------------------------------------------------------------------
def log_paths(case, side_dir):
    log = case.get("log")
    outdir = (log or {}).get("outdir", ".")
    prefix = (log or {}).get("prefix", "mlperf_log_")
    suffix = (log or {}).get("suffix", "")
    base = os.path.join(side_dir, outdir, prefix)
    return {k: base + k + suffix + ext for k, ext in (("summary", ".txt"), ("detail", ".txt"),
                                                       ("accuracy", ".json"))}


def run_side(case, d, side, moddir, env_extra=None):
    sd = os.path.join(d, side)
    os.makedirs(os.path.join(sd, "logs"), exist_ok=True)
    for name, text in case["files"].items():
        with open(os.path.join(sd, name), "w") as f:
            f.write(text)
    with open(os.path.join(sd, "case.json"), "w") as f:
        json.dump(case, f)
    env = dict(os.environ, PYTHONPATH=moddir, PYTHONDONTWRITEBYTECODE="1")
    env.pop("MLSUBMIT_LOADGEN_COMPAT", None)
    env.update(env_extra or {})
    try:
        p = subprocess.run(["nice", "-n", "19", PY, HARNESS, "case.json", "trace.json"], cwd=sd, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=180)
        rc, out = p.returncode, p.stdout.decode(errors="replace") + p.stderr.decode(errors="replace")
        with open(os.path.join(sd, "stdout.txt"), "wb") as f:
            f.write(p.stdout)
    except subprocess.TimeoutExpired:
        rc, out = -999, "timed out"
    with open(os.path.join(sd, "rc"), "w") as f:
        f.write("%d\n" % rc)
    return rc, out


def accuracy_entries(path):
    """The accuracy log as a sorted list of 'seq_id qsl_idx data [token_count]'."""
    try:
        a = json.load(open(path))
    except (OSError, ValueError) as e:
        return ["<accuracy log unreadable: %s>" % (e.strerror if isinstance(e, OSError) else "bad JSON")]
    return sorted(" ".join(str(x.get(k)) for k in ("seq_id", "qsl_idx", "data", "token_count") if k in x) for x in a)


def detail_entries(path):
    """lgdiff.py's deterministic detail-log entries, with the errors and warnings moved to the end
    in sorted order: the reference logs them synchronously from the thread that completes the
    sample, so where they fall among the other entries depends on timing when the SUT completes
    from a thread of its own (their number and text do not)."""
    e = lgdiff.detail_entries(path)
    flagged = [x for x in e if x.endswith((" [error]", " [warning]"))]
    return [x for x in e if not x.endswith((" [error]", " [warning]"))] + sorted(flagged)


def side_entries(case, d, side):
    sd = os.path.join(d, side)
    try:
        trace = json.load(open(os.path.join(sd, "trace.json")))
    except (OSError, ValueError):
        trace = None
    lp = log_paths(case, sd)
    if trace is not None and (case.get("log") or {}).get("copy_summary_to_stdout"):
        # the summary copied to the harness's standard output: its lines as the summary's
        trace["stdout_summary"] = lgdiff.summary_entries(os.path.join(sd, "stdout.txt"))
    return {"trace": trace, "detail": detail_entries(lp["detail"]),
            "summary": lgdiff.summary_entries(lp["summary"]), "accuracy": accuracy_entries(lp["accuracy"])}


def compare_entries(a, b, case=None):
    """Differences between the reference's entries a and ours b (case: to name the probes)."""
    diffs = []
    ta, tb = a["trace"] or {}, b["trace"] or {}
    if a["trace"] is None or b["trace"] is None:
        if a["trace"] is not None or b["trace"] is not None:
            diffs.append("harness trace: reference %s, ours %s" % ("written" if a["trace"] else "missing",
                                                                   "written" if b["trace"] else "missing"))
    pa, pb = ta.get("probes") or [], tb.get("probes") or []
    if pa != pb and len(pa) == len(pb):
        probes = (case or {}).get("probes") or [None] * len(pa)
        for p, x, y in zip(probes, pa, pb):
            if x != y:
                diffs.append("probe %s: reference %s, ours %s" % (json.dumps(p)[:200], x[:400], y[:400]))
        ta, tb = dict(ta, probes=None), dict(tb, probes=None)
    for k in ("probes", "fromconfig", "start", "flushes", "reports", "response_cbs", "stdout_summary", "arg_types",
              "loads", "unloads"):
        if ta.get(k) != tb.get(k):
            diffs.append("%s: reference %s, ours %s" % (k, json.dumps(ta.get(k))[:300], json.dumps(tb.get(k))[:300]))
    ia, ib = ta.get("issues") or [], tb.get("issues") or []
    if ia != ib:
        for i, (x, y) in enumerate(zip(ia + [None], ib + [None])):
            if x != y:
                break
        diffs.append("issued queries differ (%d / %d calls): call %d: reference %s, ours %s"
                     % (len(ia), len(ib), i + 1, json.dumps(x)[:120], json.dumps(y)[:120]))
    for k in ("detail", "summary", "accuracy"):
        diffs += lgdiff.compare_lists(k + " log" if k != "summary" else "summary", a[k], b[k])
    return diffs


def lost_early_errors(ref, ours):
    """Whether two detail logs differ only by error_invalid_config entries (and num_errors) the
    reference lacks: FromConfig logs its errors before StartTest, and the reference's logger
    thread (logging.cc Logger::IOThread, one pass every poll period) drops what it gathers before
    StartTest has opened the log files; a harness slower between FromConfig and StartTest than
    that period loses them (the e2e harness is, under load)."""
    strip = lambda e: [x for x in e if not x.startswith(("error_invalid_config: ", "num_errors: "))]
    n = lambda e: sum(x.startswith("error_invalid_config: ") for x in e)
    return ref != ours and strip(ref) == strip(ours) and n(ref) < n(ours)


def garbage_loaded_set(ref, total):
    """Whether a loaded_qsl_set entry of the reference's detail log holds an index past the QSL:
    its logger formatted the set after the vector was gone (seen once in 2,000 cases, v5.0.1,
    with a SUT completing from its own thread)."""
    for e in ref:
        if e.startswith("loaded_qsl_set: ["):
            try:
                if any(int(x) >= total for x in e[len("loaded_qsl_set: ["):].split("]")[0].split(",") if x):
                    return True
            except ValueError:
                return True
    return False


def our_env(tag):
    return {"MLSUBMIT_LOADGEN_COMPAT": TAGS[tag][0]}


OURS = os.path.join(ROOT, "build", "python")


def run_case(case, keep=False, ours=OURS):
    tag = case["tag"]
    d = tempfile.mkdtemp(prefix="pydiff.")
    try:
        rrc, rout = run_side(case, d, "ref", ref_module(tag))
        if rrc < 0 or (rrc != 0 and "Traceback" not in rout):
            return ["CRASH reference %s: %s" % ("timed out" if rrc == -999 else "killed by signal %d" % -rrc
                                                if rrc < 0 else "exit %d" % rrc, rout.strip()[-200:])], d
        orc, oout = run_side(case, d, "ours", ours, our_env(tag))
        od = log_paths(case, os.path.join(d, "ours"))["detail"]
        if os.path.exists(od) and "is outside [0, 1]: no result can be computed" in open(od, errors="replace").read():
            # a percentile past 1 (a user.conf's x 0.01): the reference reads past its latencies
            # (undefined; lgdiff.py counts it the same way), ours stops the test with an error
            return ["CRASH reference undefined (target_latency_percentile past 1)"], d
        if case["threaded"] and any(os.path.exists(x) and "Too many outstanding queries" in open(x, errors="replace").read()
                                    for x in (od, log_paths(case, os.path.join(d, "ref"))["detail"])):
            # max_async_queries against a SUT completing from its own thread: when the test ends
            # early depends on how fast that thread is (issue_query_controller.cc)
            return ["CRASH timing: 'Too many outstanding queries' with a threaded SUT"], d
        ra, oa = side_entries(case, d, "ref"), side_entries(case, d, "ours")
        if lost_early_errors(ra["detail"], oa["detail"]):
            return ["CRASH timing: the reference lost the errors logged before StartTest"], d
        if garbage_loaded_set(ra["detail"], case["total"]):
            return ["CRASH reference undefined: its loaded_qsl_set holds indices past the QSL (freed memory)"], d
        diffs = []
        if rrc != orc:
            diffs.append("harness exit: reference %d, ours %d: reference %r, ours %r"
                         % (rrc, orc, rout.strip()[-300:], oout.strip()[-300:]))
        diffs += compare_entries(ra, oa, case)
        return diffs, d
    finally:
        if not keep:
            shutil.rmtree(d, ignore_errors=True)


def describe(case):
    c = dict(case)
    files = c.pop("files")
    s = json.dumps({k: v for k, v in c.items() if k not in ("tag", "seed")}, sort_keys=False)
    for n, t in files.items():
        s += " %s: %s" % (n, " | ".join(l for l in t.splitlines() if not l.startswith("# lgdiff")))
    return s


# ---- stored cases (the e2e test's data) ---------------------------------------------------------
def export_case(case, d, out_dir, why=None):
    e = side_entries(case, d, "ref")
    name = "%s-seed%d" % (case["tag"], case["seed"])
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, name + ".json"), "w") as f:
        rc = int(open(os.path.join(d, "ref", "rc")).read())
        json.dump(dict({"why": why} if why else {}, case=case, rc=rc, ref=e), f, separators=(",", ":"))
        f.write("\n")
    return name


def refresh_data(data_dir):
    """Runs the reference again on every stored case of data_dir and rewrites its side (after a
    change of the harness or of what is compared); the cases and their 'why' are kept."""
    for name, doc in lgdiff.stored_cases(data_dir):
        d = tempfile.mkdtemp(prefix="pydiff.")
        try:
            run_side(doc["case"], d, "ref", ref_module(doc["case"]["tag"]))
            print("refreshed %s" % export_case(doc["case"], d, data_dir, doc.get("why")))
        finally:
            shutil.rmtree(d, ignore_errors=True)
    return 0


def check_data(data_dir, ours=OURS, only=None):
    """Runs the harness on ours for every case of data_dir and compares with the stored
    reference side."""
    bad = 0
    for name, doc in lgdiff.stored_cases(data_dir, only):
        case = doc["case"]
        d = tempfile.mkdtemp(prefix="pydiff.")
        try:
            orc, oout = run_side(case, d, "ours", ours, our_env(case["tag"]))
            diffs = [] if orc == doc.get("rc", 0) else ["harness exit %d: %s" % (orc, oout.strip()[-300:])]
            diffs += compare_entries(doc["ref"], side_entries(case, d, "ours"), case)
        finally:
            shutil.rmtree(d, ignore_errors=True)
        bad += lgdiff.print_data_result(name, "%s)" % doc.get("why", ""), diffs)
    return 1 if bad else 0


def available_tags(tags):
    """The tags whose sources and bindings are present; the others skipped with a note."""
    out = []
    for t in tags:
        if not os.path.exists(os.path.join(UPSTREAM, t, "bindings", "python_api.cc")):
            log("pydiff: %s skipped (no Python bindings in its sources)" % t)
            continue
        out.append(t)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tags", default=",".join(TAGS))
    ap.add_argument("--n", type=int, default=20)
    ap.add_argument("--first", type=int, default=1)
    ap.add_argument("--seed", type=int)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--show", action="store_true", help="print each case")
    ap.add_argument("--build-only", action="store_true")
    ap.add_argument("--cached", action="store_true", help="exit 0 when the tags' reference modules are built")
    ap.add_argument("--ours", default=OURS, help="the directory of mlsubmit's module (build/python)")
    ap.add_argument("--export", metavar="DIR", help="write the reference's side of each case as test data")
    ap.add_argument("--check-data", metavar="DIR", help="run ours on the stored cases of DIR (no reference needed)")
    ap.add_argument("--refresh-data", metavar="DIR", help="run the reference again on the stored cases of DIR")
    a = ap.parse_args()
    if not any(f.startswith("mlperf_loadgen") for f in os.listdir(a.ours)) if os.path.isdir(a.ours) else True:
        if not a.build_only:
            log("pydiff: %s holds no mlperf_loadgen module (make python)" % a.ours); return 2
    if a.check_data:
        return check_data(a.check_data, a.ours)
    tags = lgdiff.parse_tags(a.tags, "pydiff")
    if tags is None:
        return 2
    if a.refresh_data:
        return refresh_data(a.refresh_data)
    if a.cached:
        try:
            return 0 if pybind11_include() and all(ref_module(t, build=False) for t in tags) else 1
        except OSError:
            return 1
    if not os.path.isdir(UPSTREAM):
        log("pydiff: skipped (%s is absent)" % UPSTREAM); return 3
    if not shutil.which("g++"):
        log("pydiff: skipped (no g++ to build the reference)"); return 3
    if not pybind11_include():
        log("pydiff: skipped (pybind11 is not installed: python3-pybind11)"); return 3
    built = []
    for t in available_tags(tags):
        try:
            ref_module(t)
            built.append(t)
        except (RuntimeError, subprocess.CalledProcessError) as e:
            log("pydiff: %s skipped: %s" % (t, e))
    tags = built
    if a.build_only:
        return 0
    seeds = [a.seed] if a.seed is not None else list(range(a.first, a.first + a.n))

    def one(seed, t, case):
        diffs, d = run_case(case, keep=a.keep or bool(a.export), ours=a.ours)
        if a.export and not (diffs and diffs[0].startswith("CRASH")):
            print("exported %s" % export_case(case, d, a.export))
        if a.export and not a.keep:
            shutil.rmtree(d, ignore_errors=True)
        return diffs, d
    return lgdiff.campaign("pydiff", seeds, tags, draw, one, describe, a.show or a.seed is not None, a.keep,
                           "not compared")

if __name__ == "__main__":
    sys.exit(main())
