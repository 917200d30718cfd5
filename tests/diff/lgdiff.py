#!/usr/bin/env python3
"""Differential test of mlsubmit's LoadGen against the MLCommons reference LoadGen builds.

For each seed and each release tag, random settings valid for that tag are drawn; the reference
LoadGen of the tag (built once from ../shared/upstream/loadgen/<tag> with g++ into a cache under
/tmp, linked with tests/diff/lgref/harness.cc: a null SUT and a QSL that write the issued-query
trace) and `mlsubmit loadgen run --sut null --loadgen-compat <release> --dump-issued` run with
them, and the traces and every deterministic key of the detail log and the summary are compared.

  lgdiff.py --n 100 [--first 1] [--tags v5.1.1,r0.5]   a campaign
  lgdiff.py --seed 17 --tags v4.0 [--keep]             replay one case (prints the differences)
  lgdiff.py --build-only [--tags ...]                  build the references only
  lgdiff.py --case FILE --tags TAG                     run a case described by a JSON file
  lgdiff.py --export DIR --seed N --tags TAG           write the reference's trace and keys of
                                                       one case (the e2e test's expected data)
Exit status: 0 no divergence, 1 divergences, 2 setup error (3: skipped, no sources or g++).
"""
import argparse, hashlib, json, os, random, re, shutil, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
UPSTREAM = os.path.join(os.path.dirname(ROOT), "shared", "upstream", "loadgen")
HARNESS = os.path.join(HERE, "lgref", "harness.cc")
CACHE = os.environ.get("LGDIFF_CACHE", os.path.join(tempfile.gettempdir(), "mlsubmit-lgdiff-ref"))
CXXFLAGS = ["-std=c++14", "-O2", "-DNDEBUG", "-w"]

# tag -> (--loadgen-compat release, the version string its build reports)
TAGS = {
    "r0.5": ("0.5", "0.5a0"), "v0.7.1": ("0.7", "0.5a0"), "v1.0.1": ("1.0", ".5a1"),
    "r1.1": ("1.1", "1.1"), "v2.0": ("2.0", "2.0"), "v2.1": ("2.1", "2.1"), "v3.0": ("3.0", "3.0"),
    "v4.0": ("4.0", "4.0"), "v4.1": ("4.1", "4.1"), "v5.0.1": ("5.0", "5.0.1"),
    "v5.1.1": ("5.1", "5.1.1"),
}
SCENARIOS = ["SingleStream", "MultiStream", "Server", "Offline"]
CONF_P = float(os.environ.get("LGDIFF_CONF_P", "0.3"))   # share of cases configured by a user.conf
AUDIT_P = float(os.environ.get("LGDIFF_AUDIT_P", "0.1"))  # share with an audit.config in the working directory


def log(*a):
    print(*a, file=sys.stderr, flush=True)


# ---- building the reference ------------------------------------------------------------------
def fields_of(src):
    """The TestSettings fields of a tag (name, C++ type) read from its test_settings.h."""
    text = open(os.path.join(src, "test_settings.h")).read()
    m = re.search(r"struct TestSettings\s*\{(.*?)\n\};", text, re.S)
    body = re.sub(r"//[^\n]*", "", m.group(1))
    out = []
    for mm in re.finditer(r"^\s*(uint64_t|int64_t|int|double|float|bool|std::string)\s+(\w+)\s*(=[^;]*)?;",
                          body, re.M):
        out.append((mm.group(2), mm.group(1)))
    return out


def ref_binary(tag, quiet=False):
    """The harness linked with the reference LoadGen of tag: the reference's objects are built
    once per source tree (and kept), the harness once per version of harness.cc."""
    src = os.path.join(UPSTREAM, tag)
    h = hashlib.sha1()
    for f in sorted(os.listdir(src)):
        p = os.path.join(src, f)
        if os.path.isfile(p) and (f.endswith((".cc", ".h", ".conf"))):
            h.update(f.encode()); h.update(open(p, "rb").read())
    h.update(" ".join(CXXFLAGS).encode())
    b = os.path.join(CACHE, "%s-%s" % (tag, h.hexdigest()[:12]))
    hh = hashlib.sha1(open(HARNESS, "rb").read() + " ".join(CXXFLAGS).encode()).hexdigest()[:12]
    exe = os.path.join(b, "harness-" + hh)
    if os.path.exists(exe):
        return exe
    objs = sorted(os.path.join(b, x) for x in os.listdir(b) if x.endswith(".o")) \
        if os.path.exists(os.path.join(b, "complete")) else None
    if objs is None:
        if not quiet:
            log("lgdiff: building the reference LoadGen %s into %s" % (tag, b))
        write_generated(tag, b, "lgdiff")
        units = [os.path.join(src, x) for x in sorted(os.listdir(src)) if x.endswith(".cc")]
        units += [os.path.join(b, "generated", "version_generated.cc")]
        objs = [os.path.join(b, os.path.basename(u)[:-3] + ".o") for u in units]
        compile_all(tag, [(u, o, ["-I", b, "-I", src]) for u, o in zip(units, objs)])
        open(os.path.join(b, "complete"), "w").close()
    with open(os.path.join(b, "lg_fields.inc"), "w") as f:
        for name, _ in fields_of(src):
            f.write("LGF(%s)\n" % name)
    ho = os.path.join(b, "harness-%s.obj" % hh)
    compile_all(tag, [(HARNESS, ho, ["-I", b, "-I", src])])
    subprocess.check_call(["g++", "-o", exe + ".tmp"] + objs + [ho, "-pthread"])
    os.rename(exe + ".tmp", exe)
    return exe


def write_generated(tag, b, label):
    """The generated files of the reference build (setup.py / CMakeLists.txt) in b: the version
    info (b/generated/version_generated.cc, the tag's version string, label for the rest) and,
    from v5.0, the embedded mlperf.conf (b/mlperf_conf.h)."""
    src = os.path.join(UPSTREAM, tag)
    os.makedirs(os.path.join(b, "generated"), exist_ok=True)
    with open(os.path.join(b, "generated", "version_generated.cc"), "w") as f:
        f.write('#include <string>\nnamespace mlperf {\n'
                '#define S(f, v) const std::string& f() { static const std::string s(v); return s; }\n'
                'S(LoadgenVersion, "%s") S(LoadgenGitRevision, "%s") S(LoadgenBuildDateLocal, "%s")\n'
                'S(LoadgenBuildDateUtc, "%s") S(LoadgenGitCommitDate, "%s") S(LoadgenGitStatus, "")\n'
                'S(LoadgenGitLog, "") S(LoadgenSha1OfFiles, "0 %s")\n}\n' % ((TAGS[tag][1],) + (label,) * 5))
    conf = os.path.join(src, "mlperf.conf")
    if os.path.exists(conf):
        t = open(conf).read().replace("\\", "\\\\").replace('"', '\\"').replace("\n", '\\n"\n"')
        open(os.path.join(b, "mlperf_conf.h"), "w").write('const char* mlperf_conf =\n"%s";\n' % t)


def compile_all(tag, jobs):
    """g++ -c each (source, object, flags), two at a time, niced."""
    procs = []
    for u, o, fl in jobs:
        cmd = ["nice", "-n", "10", "g++"] + CXXFLAGS + fl + ["-c", u, "-o", o]
        procs.append((u, subprocess.Popen(cmd)))
        while sum(p.poll() is None for _, p in procs) >= 2:
            time.sleep(0.2)
    bad = [u for u, p in procs if p.wait() != 0]
    if bad:
        raise RuntimeError("lgdiff: the reference %s did not build (%s)" % (tag, ", ".join(bad)))


# ---- settings ------------------------------------------------------------------------------
def official_seeds(tag):
    """The tag's official seeds: *.*.<name> of the inference repository's mlperf.conf."""
    src = os.path.join(UPSTREAM, tag)
    seeds = {}
    for f in sorted(os.listdir(src)):
        if f.startswith("root") and f.endswith(".conf"):
            for m in re.finditer(r"^\*\.\*\.(\w*rng_seed)\s*=\s*(\d+)", open(os.path.join(src, f)).read(), re.M):
                seeds[m.group(1)] = m.group(2)
    return seeds


def loguniform(r, lo, hi):
    import math
    return math.exp(r.uniform(math.log(lo), math.log(hi)))


def draw(seed, tag):
    """Random settings valid for tag: (scenario, mode, total, perf, {key: value-text})."""
    r = random.Random("lgdiff/%d/%s" % (seed, tag))
    fields = dict(fields_of(os.path.join(UPSTREAM, tag)))
    has = lambda k: k in fields
    early_ms = has("multi_stream_target_qps")          # the early MultiStream (up to r1.1)
    scen = r.choice(SCENARIOS)
    mode = "AccuracyOnly" if r.random() < 0.25 else "PerformanceOnly"
    if mode == "PerformanceOnly" and random.Random("lgdiff-mode/%d/%s" % (seed, tag)).random() < 0.12:
        mode = "SubmissionRun"   # accuracy, then performance (its own draw: other fields unchanged)
    total = r.choice([r.randint(1, 16), r.randint(1, 300), r.randint(1, 3000)])
    perf = total if r.random() < 0.3 else r.randint(1, total)
    s = {"min_duration_ms": "0"}
    seeds = official_seeds(tag)
    for k in ("qsl_rng_seed", "sample_index_rng_seed", "schedule_rng_seed"):
        x = r.random()
        s[k] = seeds.get(k, "0") if x < 0.4 else ("0" if x < 0.45 else str(r.getrandbits(64)))
    if r.random() < 0.2:
        s["accuracy_log_rng_seed"] = str(r.getrandbits(64))
        s["accuracy_log_probability"] = r.choice(["0.5", "1", "0.1", "%.4g" % r.random()])
    if has("accuracy_log_sampling_target") and r.random() < 0.1:
        s["accuracy_log_sampling_target"] = str(r.randint(1, 200))
    # queries: small enough for a run of about a second at most
    cap = {"SingleStream": 2000, "MultiStream": 400, "Server": 1500, "Offline": 3}[scen]
    mq = r.choice([1, r.randint(1, 20), r.randint(1, cap)])
    s["min_query_count"] = str(mq)
    x = r.random()
    s["max_query_count"] = "0" if x < 0.6 else (str(mq) if x < 0.8 else str(r.randint(1, 2 * mq)))
    spq = 1
    if r.random() < 0.7 or scen == "MultiStream":
        spq = r.choice([1, 2, r.randint(1, 16)])
        s["multi_stream_samples_per_query"] = str(spq)
    if r.random() < 0.5:
        s["single_stream_expected_latency_ns"] = str(int(loguniform(r, 1e3, 1e9)))
    if has("multi_stream_expected_latency_ns") and r.random() < 0.5:
        s["multi_stream_expected_latency_ns"] = str(int(loguniform(r, 1e3, 1e9)))
    n_issued = max(mq, total if mode != "PerformanceOnly" else 0)
    if early_ms:
        # a query every 1/target_qps s: keep the run under a second
        s["multi_stream_target_qps"] = "%g" % max(n_issued * 1.0, loguniform(r, 10, 1e5))
        if r.random() < 0.3:
            s["multi_stream_max_async_queries"] = str(r.randint(1, 4))
    if has("multi_stream_target_latency_ns") and r.random() < 0.3:
        s["multi_stream_target_latency_ns"] = str(int(loguniform(r, 1e5, 1e9)))
    for k in ("single_stream_target_latency_percentile", "multi_stream_target_latency_percentile",
              "server_target_latency_percentile"):
        if has(k) and r.random() < 0.2:
            s[k] = r.choice(["0.9", "0.97", "0.5", "%.3f" % r.random()])
    qps = max(n_issued * (spq if scen != "Server" else 1) / 1.0, loguniform(r, 100, 2e5))
    if r.random() < 0.5:
        qps = round(qps)
    s["server_target_qps"] = "%.6g" % qps
    if r.random() < 0.3:
        s["server_target_latency_ns"] = str(int(loguniform(r, 1e5, 1e9)))
    if r.random() < 0.2:
        s["server_find_peak_qps_decimals_of_precision"] = str(r.randint(0, 4))
        s["server_find_peak_qps_boundary_step_size"] = "%.3g" % r.uniform(0.1, 4)
    s["offline_expected_qps"] = r.choice(["1", "%.6g" % loguniform(r, 0.5, 1e5), str(r.randint(1, 5000))])
    if r.random() < 0.15:
        s["performance_issue_unique"] = "1"
    eff_perf = perf
    if has("performance_sample_count_override") and r.random() < 0.15:
        eff_perf = r.randint(1, total)
        s["performance_sample_count_override"] = str(eff_perf)
    if mode == "PerformanceOnly" and r.random() < 0.15:
        # an index past the loaded set is undefined behaviour in the reference (and an accuracy
        # set may be shorter than the performance sample count): never drawn
        s["performance_issue_same"] = "1"
        s["performance_issue_same_index"] = str(r.randint(0, min(perf, eff_perf) - 1))
    if has("sample_concatenate_permutation") and r.random() < 0.3:
        s["sample_concatenate_permutation"] = "1"
    if has("test05") and r.random() < 0.1:
        s["test05"] = "1"
        for k in ("test05_qsl_rng_seed", "test05_sample_index_rng_seed", "test05_schedule_rng_seed"):
            s[k] = seeds.get(k, str(r.getrandbits(64))) if r.random() < 0.5 else str(r.getrandbits(64))
    if has("server_ttft_latency") and r.random() < 0.2:
        s["server_ttft_latency"] = str(r.randint(1, 10**9))
        s["server_tpot_latency"] = str(r.randint(1, 10**9))
    s = {k: v for k, v in s.items() if has(k)}
    conf = None
    rc = random.Random("lgdiff-conf/%d/%s" % (seed, tag))
    if rc.random() < CONF_P:
        conf, s = draw_conf(rc, tag, scen, mode, total, s)
    ra = random.Random("lgdiff-audit/%d/%s" % (seed, tag))
    if ra.random() < AUDIT_P:
        conf = dict(conf or {})
        conf["audit"] = draw_audit(ra, tag, scen, mode)
    return scen, mode, total, perf, s, conf


def draw_audit(r, tag, scen, mode):
    """An audit.config (read by StartTest from the working directory with model '*', after every
    other setting): the kinds of keys the compliance tests set, bounded so the run stays short."""
    keys = conf_keys(tag)
    lines = ["# lgdiff audit.config"]
    sc = lambda: r.choice(["*.*", "*." + scen])
    if "accuracy_log_sampling_target" in keys and r.random() < 0.4:
        lines.append("%s.accuracy_log_sampling_target = %d" % (sc(), r.randint(1, 100)))
    if r.random() < 0.4:
        lines.append("%s.accuracy_log_rng_seed = %d" % (sc(), r.getrandbits(63)))
    if r.random() < 0.3:
        lines.append("%s.accuracy_log_probability = %d" % (sc(), r.randint(0, 100)))
    if mode == "PerformanceOnly" and r.random() < 0.3:
        lines.append("%s.performance_issue_unique = 1" % sc())
    if mode == "PerformanceOnly" and r.random() < 0.3:
        lines.append("%s.performance_issue_same = 1" % sc())
        lines.append("%s.performance_issue_same_index = 0" % sc())
    if r.random() < 0.3:
        for k in ("qsl_rng_seed", "sample_index_rng_seed", "schedule_rng_seed"):
            lines.append("%s.%s = %d" % (sc(), k, r.getrandbits(63)))
    if "test05" in keys and r.random() < 0.2:
        lines.append("%s.test05 = 1" % sc())
        for k in ("test05_qsl_rng_seed", "test05_sample_index_rng_seed", "test05_schedule_rng_seed"):
            lines.append("%s.%s = %d" % (sc(), k, r.getrandbits(63)))
    if r.random() < 0.2:
        lines.append("resnet50.%s.min_query_count = 3" % scen)   # model-specific: never matches '*'
    return "\n".join(lines) + "\n"


def conf_keys(tag):
    """The keys TestSettings::FromConfig of tag reads (test_settings_internal.cc)."""
    text = open(os.path.join(UPSTREAM, tag, "test_settings_internal.cc")).read()
    return sorted(set(re.findall(r'lookupkv\(model, [A-Za-z"]+, "(\w+)"', text)))


def mlperf_conf_of(tag):
    """The mlperf.conf a harness of the tag reads (v5.0 on: embedded, read by FromConfig)."""
    src = os.path.join(UPSTREAM, tag)
    if os.path.exists(os.path.join(src, "mlperf.conf")):
        return None
    for f in sorted(os.listdir(src)):
        if f.startswith("root") and f.endswith(".conf"):
            return os.path.join(src, f)
    return None


def draw_conf(r, tag, scen, mode, total, s):
    """A user.conf for the case (FromConfig of the reference, --user-conf of ours): the keys
    FromConfig reads under every scoping (model.scenario, *.scenario, model.*, *.*), some
    noise (comments, unknown keys, one-token lines, rarely a malformed line); the run stays
    short and deterministic (min_duration_ms=0 set directly, query counts and rates scoped
    model.scenario)."""
    mc = mlperf_conf_of(tag) or os.path.join(UPSTREAM, tag, "mlperf.conf")
    models = sorted(set(re.findall(r"^(\w[\w-]*)\.\w+\.\w+\s*=", open(mc).read(), re.M)) - {"*"})
    model = r.choice(models) if models and r.random() < 0.4 else "lgdiffnet"
    keys = [k for k in conf_keys(tag) if k not in (
        "mode", "print_timestamps", "use_token_latencies", "infer_token_latencies", "coalesce_queries",
        "ttft_latency", "tpot_latency", "token_latency_scaling_factor", "max_duration")]
    early_ms = "multi_stream_target_qps" in dict(fields_of(os.path.join(UPSTREAM, tag)))
    lines = ["# lgdiff user.conf"]
    scopes = ["%s.%s" % (model, scen), "*.%s" % scen, "%s.*" % model, "*.*"]
    for _ in range(r.randint(0, 10)):
        k = r.choice(keys)
        if k == "target_latency_percentile" and r.random() < 0.8:
            # read x 0.01; past 100 the reference indexes past its latencies (undefined)
            lines.append("%s.%s = %s" % (r.choice(scopes), k, r.choice(["90", "99", "50", "%.3g" % r.uniform(0, 100)])))
            continue
        v = r.choice(["0", "1", str(r.randint(0, 50)), str(r.randint(0, 3000)), "%.3g" % r.uniform(0, 2),
                      str(r.getrandbits(63))])
        if k in ("min_query_count", "max_query_count", "samples_per_query", "target_qps", "target_latency",
                 "performance_sample_count_override", "performance_issue_same_index", "max_async_queries",
                 "min_duration", "performance_issue_same", "performance_issue_unique", "test05"):
            continue  # set below, bounded
        lines.append("%s.%s = %s" % (r.choice(scopes), k, v))
    # bounded ones, most specific scope last so they win whatever the wildcards say
    n_issued = total if mode != "PerformanceOnly" else 0
    mq = r.choice([1, r.randint(1, 20), r.randint(1, 300)])
    spq = r.choice([1, 2, r.randint(1, 8)])
    for sc in (r.choice(scopes[1:]), scopes[0]):
        lines.append("%s.min_query_count = %d" % (sc, mq))
    if r.random() < 0.3:
        lines.append("%s.max_query_count = %d" % (scopes[0], r.randint(1, 2 * mq)))
    if r.random() < 0.5 or scen == "MultiStream":
        lines.append("%s.samples_per_query = %d" % (r.choice(scopes[:2]) if scen == "MultiStream" else
                                                    r.choice(scopes), spq))
    qps = max(4 * max(mq * spq, n_issued), 2000)
    if scen == "Server" or (scen == "MultiStream" and early_ms):
        lines.append("%s.target_qps = %d" % (scopes[0], qps))
    elif r.random() < 0.5:
        lines.append("%s.target_qps = %s" % (r.choice(scopes), r.choice(["1", "%.4g" % r.uniform(1, 5000)])))
    if r.random() < 0.4:
        lines.append("%s.target_latency = %d" % (r.choice(scopes), r.randint(1, 200)))
    if r.random() < 0.2:
        lines.append("%s.min_duration = %d" % (r.choice(scopes), r.randint(0, 60000)))
    if r.random() < 0.15:
        lines.append("%s.performance_issue_unique = 1" % r.choice(scopes))
    if "sample_concatenate_permutation" in keys and r.random() < 0.2:
        lines.append("%s.sample_concatenate_permutation = 1" % r.choice(scopes))
    # noise
    if r.random() < 0.3:
        lines.append("%s.%s=%d" % (scopes[0], "min_query_count", r.randint(1, 9)))   # one token: ignored
    if r.random() < 0.3:
        lines.append("%s.not_a_setting = 3" % r.choice(scopes))
    if r.random() < 0.2:
        lines.append("   # an indented comment = 5")
    if r.random() < 0.1:
        # the test mode is set by the harness / --mode afterwards; a bad value is an error
        lines.append("%s.mode = %d" % (r.choice(scopes), r.choice([1, 2, 7])))
    if "max_async_queries" in keys and scen == "Server" and r.random() < 0.2:
        lines.append("%s.max_async_queries = %d" % (r.choice(scopes), r.randint(0, 3)))
    malformed = r.random() < 0.05
    if malformed:  # the reference then runs without the file (mlperf.conf's long runs): not run
        lines.append("%s.min_query_count = = 4" % scopes[0])
    r.shuffle(lines)
    d = {"min_duration_ms": "0"}
    for k in ("qsl_rng_seed", "sample_index_rng_seed", "schedule_rng_seed"):
        if k in s and r.random() < 0.5:
            d[k] = s[k]
    # a model of mlperf.conf may override the performance sample count past this QSL
    d["performance_sample_count_override"] = str(r.randint(1, total)) if model != "lgdiffnet" else "0"
    if "performance_sample_count_override" not in dict(fields_of(os.path.join(UPSTREAM, tag))):
        del d["performance_sample_count_override"]
    return {"model": model, "text": "\n".join(lines) + "\n", "mlperf_conf": mlperf_conf_of(tag),
            "malformed": malformed}, d


# ---- running ---------------------------------------------------------------------------------
def write_conf(case, d):
    conf = case[5]
    if conf and conf.get("audit"):
        # the audit.config both pick up from the working directory (loadgen.cc StartTest)
        with open(os.path.join(d, "audit.config"), "w") as f:
            f.write(conf["audit"])
    if not conf or not conf.get("text"):
        return None
    path = os.path.join(d, "user.conf")
    with open(path, "w") as f:
        f.write(conf["text"])
    return path


def run_ref(exe, case, d):
    scen, mode, total, perf, s, conf = case
    os.makedirs(os.path.join(d, "ref"), exist_ok=True)
    with open(os.path.join(d, "ref.settings"), "w") as f:
        f.write("".join("%s=%s\n" % kv for kv in s.items()))
    extra = []
    uc = write_conf(case, d)
    if uc:
        extra = [uc, conf["model"]] + ([conf["mlperf_conf"]] if conf.get("mlperf_conf") else [])
    p = subprocess.run([exe, os.path.join(d, "ref.settings"), scen, mode, str(total), str(perf),
                        os.path.join(d, "ref"), os.path.join(d, "ref.trace")] + extra,
                       cwd=d, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
    return p.returncode, p.stdout.decode(errors="replace")


def our_cmd(mlsubmit, tag, case, d):
    scen, mode, total, perf, s, conf = case
    cmd = [mlsubmit, "loadgen", "run", "--sut", "null", "--loadgen-compat", TAGS[tag][0],
           "--scenario", scen, "--mode", {"AccuracyOnly": "accuracy", "SubmissionRun": "submission"}.get(mode, "performance"),
           "--total-samples", str(total), "--performance-samples", str(perf)]
    uc = write_conf(case, d)
    if uc:
        cmd += ["--model", conf["model"], "--user-conf", uc]
    for k, v in s.items():
        cmd += ["--set", "%s=%s" % (k, v)]
    return cmd + ["-o", os.path.join(d, "ours"), "--dump-issued", os.path.join(d, "ours.trace"),
                  "--no-record", "--quiet"]


def run_ours(mlsubmit, tag, case, d):
    env = dict(os.environ, MLSUBMIT_NO_PROGRESS="1")
    p = subprocess.run(our_cmd(mlsubmit, tag, case, d), cwd=d, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=120)
    return p.returncode, p.stdout.decode(errors="replace")


# ---- what is compared ------------------------------------------------------------------------
# detail-log keys that are not deterministic (time, identity of the build / SUT, latencies,
# anything decided by latencies) and are left out
SKIP_KEYS = re.compile(r"^(loadgen_|test_datetime$|sut_name$|qsl_name$|get_sut_name_duration_ns$|"
                       r"power_|logger_|early_stopping_|result_(?!query_count$|min_queries_met$|"
                       r"min_duration_met$)|num_warnings$)")
SKIP_TEXT = re.compile(r"^((ERROR|WARNING) : )?(LoadgenVersionInfo:|version :|build_date|git_|SHA1 of files|Date \+ time|"
                       r"System Under Test|Query Sample Library \(QSL\) name|Log Contention|\d+ : \w+_count$|"
                       r"POWER_|PerfClock|WARNING : Logging allocation|ERROR : CAS failed)")


def detail_entries(path):
    """The deterministic entries of a detail log: ['key: value-text'] in order."""
    try:
        text = open(path, encoding="utf-8", errors="replace").read()
    except OSError as e:
        return ["<no detail log: %s>" % e.strerror]
    out = []
    if ":::MLLOG" in text:
        dec = json.JSONDecoder()
        for line in text.splitlines():
            i = line.find(":::MLLOG ")
            if i < 0:
                continue
            m = re.search(r'"key": "([^"]*)", "value": ', line)
            if not m:
                out.append("<bad line %r>" % line[:80]); continue
            k = m.group(1)
            if SKIP_KEYS.match(k):
                continue
            try:
                _, end = dec.raw_decode(line, m.end())
                v = line[m.end():end]
            except ValueError:
                v = line[m.end():line.find(', "time_ms"', m.end())]
            flag = ""
            if '"is_error": true' in line:
                flag = " [error]"
            elif '"is_warning": true' in line:
                flag = " [warning]"
            # the reference logger's own buffer growth, and clock checks: not the test's
            if re.search(r"Logging allocation detected|CAS failed|PerfClock|system_clock", v):
                continue
            out.append("%s: %s%s" % (k, v, flag))
        return out
    # the text detail log of r0.5 / v0.7.1: `"pid": N, "tid": N, "ts": Nns : message`, an entry
    # continuing on the following lines that do not start with "pid"
    ents = []
    for line in text.splitlines():
        m = re.match(r'^"pid": \d+, "tid": \d+, "ts": \d+ns : ?(.*)$', line)
        if m:
            ents.append(m.group(1))
        elif ents:
            ents[-1] += "\n" + line
    skipping, scen = False, ""
    for e in ents:
        if e.startswith("Log Contention"):
            skipping = True
        elif skipping and not re.match(r"^\d+ : \w+$", e):
            skipping = False
        if skipping or SKIP_TEXT.match(e):
            continue
        if e.startswith("Scenario : "):
            scen = e[11:]
        # Offline leaves the effective target_latency_percentile unset in these releases: garbage
        if e.startswith("target_latency_percentile : ") and scen == "Offline":
            continue
        e = re.sub(r'"duration" : \d+', lambda m: m.group(0), e)
        out.append(e.rstrip())
    return out


def summary_entries(path):
    try:
        lines = open(path, encoding="utf-8", errors="replace").read().splitlines()
    except OSError as e:
        return ["<no summary: %s>" % e.strerror]
    out, section = [], ""
    for i, l in enumerate(lines):
        if l.startswith("===") or not l.strip():
            continue
        if i > 0 and lines[i - 1].startswith("===") and i + 1 < len(lines) and lines[i + 1].startswith("==="):
            section = l.strip(); continue
        if section == "Test Parameters Used":
            if l.startswith(("No warnings", "No errors")) or re.match(r"^\d+ (warning|ERROR)", l):
                continue
            out.append(l)
        elif re.match(r"^(Scenario|Mode|  Min queries satisfied|  Min duration satisfied|Samples per query)\b", l):
            out.append(l)
    return out


def accuracy_entries(path):
    try:
        a = json.load(open(path))
    except (OSError, ValueError) as e:
        return ["<accuracy log unreadable: %s>" % e]
    return sorted("%s %s" % (x.get("seq_id"), x.get("qsl_idx")) for x in a)


def compare_lists(what, a, b, limit=None):
    limit = limit or int(os.environ.get("LGDIFF_LINES", "6"))
    """Differences between the reference's list a and ours b, as lines (empty when equal)."""
    if a == b:
        return []
    import difflib
    out = ["%s differs (reference -, ours +):" % what]
    n = 0
    for l in difflib.unified_diff(a, b, lineterm="", n=0):
        if l.startswith(("---", "+++", "@@")):
            continue
        out.append("    " + (l if len(l) < 300 else l[:300] + "..."))
        n += 1
        if n >= limit:
            out.append("    ..."); break
    return out


def compare(d):
    diffs = []
    rt, ot = os.path.join(d, "ref.trace"), os.path.join(d, "ours.trace")
    a = open(rt).read().splitlines() if os.path.exists(rt) else ["<no trace>"]
    b = open(ot).read().splitlines() if os.path.exists(ot) else ["<no trace>"]
    if a != b:
        for i, (x, y) in enumerate(zip(a + ["<end>"], b + ["<end>"])):
            if x != y:
                break
        short = lambda l: l if len(l) < 120 else l[:120] + "..."
        diffs.append("trace differs (%d / %d records): record %d: reference %r, ours %r"
                     % (len(a), len(b), i + 1, short(x), short(y)))
    diffs += compare_lists("detail log", detail_entries(os.path.join(d, "ref", "mlperf_log_detail.txt")),
                           detail_entries(os.path.join(d, "ours", "mlperf_log_detail.txt")))
    diffs += compare_lists("summary", summary_entries(os.path.join(d, "ref", "mlperf_log_summary.txt")),
                           summary_entries(os.path.join(d, "ours", "mlperf_log_summary.txt")))
    diffs += compare_lists("accuracy log", accuracy_entries(os.path.join(d, "ref", "mlperf_log_accuracy.json")),
                           accuracy_entries(os.path.join(d, "ours", "mlperf_log_accuracy.json")), 3)
    return diffs


def case_entries(d, side):
    """What is compared of one side's run in d ('ref' or 'ours')."""
    t = os.path.join(d, side + ".trace")
    return {
        "trace": open(t).read().splitlines() if os.path.exists(t) else ["<no trace>"],
        "detail": detail_entries(os.path.join(d, side, "mlperf_log_detail.txt")),
        "summary": summary_entries(os.path.join(d, side, "mlperf_log_summary.txt")),
        "accuracy": accuracy_entries(os.path.join(d, side, "mlperf_log_accuracy.json")),
    }


def export_case(tag, seed, case, d, out_dir):
    """Writes the reference's side of a case as test data: NAME.json (the case, its detail,
    summary and accuracy entries) and NAME.trace."""
    scen, mode, total, perf, st, conf = case
    name = "%s-seed%d%s%s" % (tag, seed, "-conf" if conf and conf.get("text") else "",
                              "-audit" if conf and conf.get("audit") else "")
    e = case_entries(d, "ref")
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, name + ".trace"), "w") as f:
        f.write("".join(l + "\n" for l in e["trace"]))
    doc = {"tag": tag, "release": TAGS[tag][0], "seed": seed, "scenario": scen, "mode": mode,
           "total": total, "perf": perf, "settings": st,
           "conf": {k: conf[k] for k in ("model", "text", "audit") if k in conf} if conf else None,
           "detail": e["detail"],
           "summary": e["summary"], "accuracy": e["accuracy"]}
    with open(os.path.join(out_dir, name + ".json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    return name


def stored_cases(data_dir, only=None):
    """(name, document) of every NAME.json case in data_dir (only: the names wanted)."""
    for name in sorted(f[:-5] for f in os.listdir(data_dir) if f.endswith(".json")):
        if not only or name in only:
            yield name, json.load(open(os.path.join(data_dir, name + ".json")))


def check_data(mlsubmit, data_dir, only=None):
    """Runs ours on every case of data_dir and compares with the reference's stored side."""
    bad = 0
    for name, doc in stored_cases(data_dir, only):
        case = (doc["scenario"], doc["mode"], doc["total"], doc["perf"], doc["settings"], doc.get("conf"))
        d = tempfile.mkdtemp(prefix="lgdiff.")
        try:
            rc, out = run_ours(mlsubmit, doc["tag"], case, d)
            e = case_entries(d, "ours")
            want_trace = open(os.path.join(data_dir, name + ".trace")).read().splitlines()
            diffs = [] if rc in (0, 1) else ["mlsubmit exit %d: %s" % (rc, out.strip()[-300:])]
            if e["trace"] != want_trace:
                diffs.append("trace differs (%d / %d records)" % (len(want_trace), len(e["trace"])))
            for k in ("detail", "summary", "accuracy"):
                diffs += compare_lists(k, doc[k], e[k])
        finally:
            shutil.rmtree(d, ignore_errors=True)
        bad += print_data_result(name, "%s): %s" % (doc.get("why", ""), describe(case)), diffs)
    return 1 if bad else 0


def print_data_result(name, what, diffs):
    """One stored case's line ('ok NAME', or 'DIFF NAME (WHAT' and the differences): 1 if it
    differs."""
    if not diffs:
        print("ok   %s" % name)
        return 0
    print("DIFF %s (%s" % (name, what))
    for l in diffs:
        print("  " + l)
    return 1


def describe(case):
    scen, mode, total, perf, s, conf = case
    c = ""
    if conf and conf.get("text"):
        c = " user.conf(model %s): %s" % (conf["model"], " | ".join(
            l for l in conf["text"].splitlines() if not l.startswith("# lgdiff")))
    if conf and conf.get("audit"):
        c += " audit.config: %s" % " | ".join(conf["audit"].splitlines())
    return "%s %s total=%d perf=%d %s%s" % (scen, mode, total, perf,
                                            " ".join("%s=%s" % kv for kv in s.items()), c)


def run_case(mlsubmit, tag, case, keep=False):
    d = tempfile.mkdtemp(prefix="lgdiff.")
    try:
        exe = ref_binary(tag)
        if case[5] and case[5].get("malformed"):
            # FromConfig rejects the whole file (an error logged, nothing applied) and the
            # reference runs on mlperf.conf alone; mlsubmit's CLI refuses to run (deliberate)
            orc, oout = run_ours(mlsubmit, tag, case, d)
            if orc not in (0, 1) and "the whole file is rejected" in oout:
                return [], d
            return ["mlsubmit did not reject the malformed user.conf (exit %d): %s" % (orc, oout.strip()[-300:])], d
        try:
            rc, out = run_ref(exe, case, d)
        except subprocess.TimeoutExpired:
            return ["CRASH reference timed out"], d
        notes = []
        if rc < 0:
            # the reference itself crashed (an exception or a signal): not comparable
            return ["CRASH reference killed by signal %d: %s" % (-rc, out.strip()[-200:])], d
        if rc != 0:
            notes.append("reference exit %d: %s" % (rc, out.strip()[-300:]))
        orc, oout = run_ours(mlsubmit, tag, case, d)
        od = os.path.join(d, "ours", "mlperf_log_detail.txt")
        if orc not in (0, 1) and os.path.exists(od) and \
                "is outside [0, 1]: no result can be computed" in open(od, errors="replace").read():
            # a percentile past 1 (a conf's x 0.01): the reference reads past its latencies
            return ["CRASH reference undefined (target_latency_percentile past 1)"], d
        rdetail = os.path.join(d, "ref", "mlperf_log_detail.txt")
        if orc == 2 and "the whole file is rejected" in oout and (
                re.search(r"FromConfig\(\S*user\.conf\) failed", out) or
                (os.path.exists(rdetail) and "error_invalid_config" in open(rdetail, errors="replace").read())):
            # both reject the malformed user.conf; the reference runs on without it, mlsubmit's
            # CLI refuses to run (a deliberate difference: the user asked for that file)
            return [], d
        if orc not in (0, 1):
            notes.append("mlsubmit exit %d: %s" % (orc, oout.strip()[-300:]))
        diffs = notes + compare(d)
        return diffs, d
    finally:
        if not keep:
            shutil.rmtree(d, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mlsubmit", default=os.path.join(ROOT, "build", "mlsubmit"))
    ap.add_argument("--tags", default=",".join(TAGS))
    ap.add_argument("--n", type=int, default=20)
    ap.add_argument("--first", type=int, default=1)
    ap.add_argument("--seed", type=int)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--build-only", action="store_true")
    ap.add_argument("--show", action="store_true", help="print each case's settings")
    ap.add_argument("--export", metavar="DIR", help="with --seed: write the reference's side as test data")
    ap.add_argument("--check-data", metavar="DIR", help="run ours on the stored cases of DIR (no reference needed)")
    a = ap.parse_args()
    if a.check_data:
        return check_data(a.mlsubmit, a.check_data)
    tags = parse_tags(a.tags, "lgdiff")
    if tags is None:
        return 2
    if not os.path.isdir(UPSTREAM):
        log("lgdiff: skipped (%s is absent)" % UPSTREAM); return 3
    if not shutil.which("g++"):
        log("lgdiff: skipped (no g++ to build the reference)"); return 3
    for t in tags:
        ref_binary(t)
    if a.build_only:
        return 0
    if not os.access(a.mlsubmit, os.X_OK):
        log("lgdiff: %s is not built (make)" % a.mlsubmit); return 2
    seeds = [a.seed] if a.seed is not None else list(range(a.first, a.first + a.n))

    def one(seed, t, case):
        diffs, d = run_case(a.mlsubmit, t, case, keep=a.keep or bool(a.export))
        if a.export:
            print("exported %s" % export_case(t, seed, case, d, a.export))
            shutil.rmtree(d, ignore_errors=True)
        return diffs, d
    return campaign("lgdiff", seeds, tags, draw, one, describe, a.show or a.seed is not None, a.keep,
                    "ref crash/UB")


def parse_tags(text, tool):
    """The tags of a --tags list, or None (said) when one is unknown."""
    tags = [t for t in text.split(",") if t]
    for t in tags:
        if t not in TAGS:
            log("%s: unknown tag %s (known: %s)" % (tool, t, " ".join(TAGS)))
            return None
    return tags


def campaign(tool, seeds, tags, draw_case, run_one, describe_case, show, keep, apart):
    """Every seed on every tag: draw_case(seed, tag), run_one(seed, tag, case) -> (differences,
    folder); a first difference starting with CRASH counts the case apart (not compared). Prints
    each divergence with its replay command, then the table; returns the exit status."""
    stats = {t: [0, 0, 0] for t in tags}
    found = []
    for seed in seeds:
        for t in tags:
            case = draw_case(seed, t)
            if show:
                print("seed %d %s: %s" % (seed, t, describe_case(case)))
            diffs, d = run_one(seed, t, case)
            stats[t][0] += 1
            if diffs and diffs[0].startswith("CRASH"):
                stats[t][2] += 1
                print("not compared seed %d tag %s: %s" % (seed, t, diffs[0][6:]))
            elif diffs:
                stats[t][1] += 1
                found.append((seed, t))
                print("DIVERGENCE seed %d tag %s: %s" % (seed, t, describe_case(case)))
                for l in diffs:
                    print("  " + l)
                print("  replay: python3 tests/diff/%s.py --seed %d --tags %s --keep" % (tool, seed, t))
            elif keep:
                print("seed %d %s: identical" % (seed, t))
            if keep:
                print("  kept: %s" % d)
            sys.stdout.flush()
    print_table(tags, stats, apart)
    return 1 if found else 0


def print_table(tags, stats, apart):
    """The campaign's table: per tag [cases, divergences, cases counted apart]."""
    print("%-8s %8s %12s %16s" % ("tag", "cases", "divergences", apart))
    for t in tags:
        print("%-8s %8d %12d %16d" % (t, stats[t][0], stats[t][1], stats[t][2]))
    print("%-8s %8d %12d %16d" % ("total", sum(v[0] for v in stats.values()), sum(v[1] for v in stats.values()),
                                  sum(v[2] for v in stats.values())))


if __name__ == "__main__":
    sys.exit(main())
