"""Tests of the mlperf_loadgen module (src/python/): Python harnesses driving it.

usage: PYTHONPATH=build/python MLSUBMIT=build/mlsubmit python3 tests/python/run_tests.py [NAME...]
Every test runs its harness in a fresh interpreter in a temporary directory (a crash fails the
test, not the runner). The closing line is "N passed, N failed"; exit 1 if any failed."""
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import textwrap
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MLSUBMIT = os.environ.get("MLSUBMIT", os.path.join(HERE, "..", "..", "build", "mlsubmit"))
TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


class Fail(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Fail(msg)


PRELUDE = textwrap.dedent("""\
    import os, sys, threading, time
    import mlperf_loadgen as lg

    def null_issue(qs):
        lg.QuerySamplesComplete([lg.QuerySampleResponse(q.id, 0, 0) for q in qs])

    def settings(scen, mode="PerformanceOnly", **kw):
        s = lg.TestSettings()
        s.scenario = getattr(lg.TestScenario, scen)
        s.mode = getattr(lg.TestMode, mode)
        s.min_duration_ms = 0
        s.min_query_count = 50
        s.max_query_count = 50
        s.server_target_qps = 2000
        s.offline_expected_qps = 500
        s.single_stream_expected_latency_ns = 100000
        s.multi_stream_expected_latency_ns = 100000
        for k, v in kw.items():
            setattr(s, k, v)
        return s

    def refuses(f, *a):   # f(*a) raises TypeError (as the reference module's pybind11 casters do)
        try:
            f(*a)
        except TypeError:
            return
        raise AssertionError("no TypeError from %r%r" % (f, a))

    def qsl(n=200, perf=None):
        return lg.ConstructQSL(n, perf or n, lambda s: None, lambda s: None)

    def logs(outdir="."):
        ls = lg.LogSettings()
        os.makedirs(outdir, exist_ok=True)
        ls.log_output.outdir = outdir
        ls.enable_trace = False
        return ls
    """)


def run_py(code, cwd, timeout=120, env_extra=None, sig_after=None):
    """Runs PRELUDE + code; with sig_after, sends SIGINT that many seconds after the harness
    printed its first line (the test is about to start)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(os.path.abspath(x) for x in env.get("PYTHONPATH", "").split(os.pathsep) if x)
    env.update(env_extra or {})
    p = subprocess.Popen([sys.executable, "-c", PRELUDE + textwrap.dedent(code)], cwd=cwd, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = ""
    if sig_after is not None:
        first = p.stdout.readline()
        time.sleep(sig_after)
        p.send_signal(signal.SIGINT)
    try:
        out, err = p.communicate(timeout=timeout)
        out = first + out
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        raise Fail("harness timed out after %ss\nstdout:%s\nstderr:%s" % (timeout, out[-2000:], err[-2000:]))
    return p.returncode, out, err


def ok_py(code, cwd, **kw):
    rc, out, err = run_py(code, cwd, **kw)
    check(rc == 0, "harness exited %d\nstdout:\n%s\nstderr:\n%s" % (rc, out[-3000:], err[-3000:]))
    return out, err


def read(path):
    with open(path) as f:
        return f.read()


def detail_entries(path):
    out = []
    for line in read(path).splitlines():
        if line.startswith(":::MLLOG "):
            out.append(json.loads(line[len(":::MLLOG "):]))
    return out


def errors_of(path):
    return [e["value"] for e in detail_entries(path) if e["metadata"].get("is_error")]


def cli(*args, cwd=None):
    return subprocess.run([MLSUBMIT] + list(args), cwd=cwd, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=300)


# ---- API surface and settings ---------------------------------------------------------------

# loadgen/test_settings.h defaults (LoadGen 5.1), by the reference bindings' attribute names
DEFAULTS = {
    "single_stream_expected_latency_ns": 1000000.0, "single_stream_target_latency_percentile": 0.9,
    "multi_stream_expected_latency_ns": 8000000.0, "multi_stream_target_latency_percentile": 0.99,
    "multi_stream_samples_per_query": 8, "server_target_qps": 1.0,
    "server_target_latency_ns": 100000000, "server_target_latency_percentile": 0.99,
    "server_coalesce_queries": False, "server_find_peak_qps_decimals_of_precision": 1,
    "server_find_peak_qps_boundary_step_size": 1.0, "server_max_async_queries": 0,
    "server_num_issue_query_threads": 0, "offline_expected_qps": 1.0, "min_duration_ms": 10000,
    "max_duration_ms": 0, "min_query_count": 100, "max_query_count": 0, "qsl_rng_seed": 0,
    "sample_index_rng_seed": 0, "schedule_rng_seed": 0, "accuracy_log_rng_seed": 0,
    "accuracy_log_probability": 0.0, "print_timestamps": False, "performance_issue_unique": False,
    "performance_issue_same": False, "performance_issue_same_index": 0,
    "performance_sample_count_override": 0, "test05": False, "test05_qsl_rng_seed": 0,
    "test05_sample_index_rng_seed": 0, "test05_schedule_rng_seed": 0, "use_token_latencies": False,
    "ttft_latency": 100000000, "tpot_latency": 100000000, "infer_token_latencies": False,
}


@test
def api_surface(d):
    out, _ = ok_py("""
        names = ["TestSettings", "TestScenario", "TestMode", "LogSettings", "LogOutputSettings",
                 "LoggingMode", "QuerySample", "QuerySampleResponse", "ConstructSUT", "DestroySUT",
                 "ConstructFastSUT", "DestroyFastSUT", "ConstructQSL", "DestroyQSL", "StartTest",
                 "StartTestWithLogSettings", "QuerySamplesComplete", "FirstTokenComplete",
                 "ConstructQDL", "DestroyQDL", "VectorQuerySample", "VectorQuerySampleResponse"]
        missing = [n for n in names if not hasattr(lg, n)]
        assert not missing, missing
        s = lg.TestSettings()
        import json
        vals = {k: getattr(s, k) for k in %r}
        print(json.dumps({k: [v, type(v).__name__] for k, v in vals.items()}))
        assert s.scenario == lg.TestScenario.SingleStream and s.mode == lg.TestMode.PerformanceOnly
        assert [m.name for m in lg.TestScenario] == ["SingleStream", "MultiStream", "Server", "Offline"]
        assert int(lg.TestMode.FindPeakPerformance) == 3 and lg.LoggingMode.AsyncPoll.value == 0
        ls = lg.LogSettings()
        assert ls.enable_trace is True and ls.log_mode == lg.LoggingMode.AsyncPoll
        assert ls.log_mode_async_poll_interval_ms == 1000
        lo = ls.log_output
        assert (lo.outdir, lo.prefix, lo.suffix) == (".", "mlperf_log_", "")
        assert not lo.prefix_with_datetime and not lo.copy_detail_to_stdout and not lo.copy_summary_to_stdout
        ls.log_output.outdir = "x"          # in place, like pybind11's def_readwrite
        assert ls.log_output.outdir == "x"
        o = lg.LogOutputSettings(); o.prefix = "p_"; ls.log_output = o; o.prefix = "q_"
        assert ls.log_output.prefix == "p_"  # assignment copies
        q = lg.QuerySample(5, 7); r = lg.QuerySampleResponse(5, 0, 0, 3)
        assert (q.id, q.index, r.id, r.data, r.size, r.n_tokens) == (5, 7, 5, 0, 0, 3)
        import pickle
        q2 = pickle.loads(pickle.dumps(q)); assert (q2.id, q2.index) == (5, 7)
        assert lg.QuerySample().id == 0 and lg.QuerySampleResponse().n_tokens == 0
    """ % (list(DEFAULTS),), d)
    got = json.loads(out.strip().splitlines()[-1])
    for k, v in DEFAULTS.items():
        check(got[k][0] == v and got[k][1] == type(v).__name__,
              "TestSettings.%s = %r (%s), expected %r (%s)" % (k, got[k][0], got[k][1], v, type(v).__name__))


@test
def bad_types(d):
    ok_py("""
        def raises(exc, words, f, *a):
            try:
                f(*a)
            except exc as e:
                for w in words:
                    assert w in str(e), (w, str(e))
                return
            raise AssertionError("no %s from %r" % (exc.__name__, f))
        s = lg.TestSettings()
        raises(TypeError, ["min_query_count"], setattr, s, "min_query_count", 1.5)
        raises(TypeError, ["min_query_count"], setattr, s, "min_query_count", -1)
        raises(TypeError, ["server_target_qps"], setattr, s, "server_target_qps", "fast")
        raises(TypeError, ["scenario", "TestScenario"], setattr, s, "scenario", 2)
        raises(TypeError, ["mode"], setattr, s, "mode", lg.TestScenario.Server)
        raises(TypeError, ["path"], s.FromConfig, 3, "m", "Offline")
        raises(TypeError, ["index"], lg.QuerySample, 1, "x")
        raises(TypeError, ["size"], lg.QuerySampleResponse, 1, 0, 2.5)
        raises(TypeError, ["issue_query"], lg.ConstructSUT, 1, lambda: None)
        raises(TypeError, ["load_samples_to_ram"], lg.ConstructQSL, 10, 10, "x", None)
        raises(TypeError, ["total_sample_count"], lg.ConstructQSL, "10", 10, None, None)
        sut = lg.ConstructSUT(null_issue, lambda: None); q = qsl()
        raises(TypeError, ["test_settings"], lg.StartTest, sut, q, "settings")
        raises(TypeError, ["sut"], lg.StartTest, "sut", q, s)
        raises(ValueError, ["qsl"], lg.StartTest, sut, sut, s)
        raises(ValueError, ["sut"], lg.StartTest, 12345, q, s)
        raises(TypeError, ["log_settings"], lg.StartTestWithLogSettings, sut, q, s, 5)
        raises(TypeError, ["audit_config_filename"], lg.StartTest, sut, q, s, 7)
        raises(TypeError, ["responses"], lg.QuerySamplesComplete, [1, 2])
        raises(TypeError, ["responses"], lg.QuerySamplesComplete, 5)
        raises(TypeError, ["response_cb"], lg.QuerySamplesComplete, [], 5)
        raises(TypeError, ["responses"], lg.FirstTokenComplete, [None])
        lg.DestroySUT(sut)
        raises(ValueError, ["live handle"], lg.DestroySUT, sut)
        lg.DestroyQSL(q)
        lg.QuerySamplesComplete([lg.QuerySampleResponse(1, 0, 0)])  # no test running: ignored
        print("ok")
    """, d)


# ---- scenarios and modes, same issued samples and logs as `mlsubmit loadgen run` --------------

SCEN_SETS = {
    "SingleStream": ["single_stream_expected_latency_ns=100000"],
    "MultiStream": ["multi_stream_expected_latency_ns=100000"],
    "Server": ["server_target_qps=2000"],
    "Offline": ["offline_expected_qps=500"],
}
STABLE_KEYS_SKIP = re.compile(r"time|duration|latency|qps|per_second|sut_name|pid|tid|date|"
                              r"result_|power|early_stopping|ttft|tpot|num_errors|error")


@test
def scenarios_modes_same_as_cli(d):
    for scen in ["SingleStream", "MultiStream", "Server", "Offline"]:
        for mode, cli_mode in [("PerformanceOnly", "performance"), ("AccuracyOnly", "accuracy"),
                               ("SubmissionRun", "submission")]:
            w = os.path.join(d, scen + mode)
            os.makedirs(os.path.join(w, "py"))
            os.makedirs(os.path.join(w, "cli"))
            ok_py("""
                lg.SetDumpIssued("issued_py.txt")
                sut = lg.ConstructSUT(null_issue, lambda: None)
                lg.StartTestWithLogSettings(sut, qsl(200, 100), settings(%r, %r), logs("py"))
            """ % (scen, mode), w, env_extra={"MLSUBMIT_LOADGEN_COMPAT": "5.1"})
            r = cli("loadgen", "run", "--scenario", scen, "--mode", cli_mode, "--sut", "null",
                    "--total-samples", "200", "--performance-samples", "100", "--loadgen-compat", "5.1",
                    "--set", "min_duration_ms=0", "--set", "min_query_count=50", "--set", "max_query_count=50",
                    *sum([["--set", x] for x in SCEN_SETS[scen]], []),
                    "--output", "cli", "--dump-issued", "issued_cli.txt", "--quiet", cwd=w)
            check(os.path.exists(os.path.join(w, "issued_cli.txt")), "%s %s: the CLI run failed: %s" % (scen, mode, r.stderr))
            r = cli("loadgen", "diff-trace", "issued_py.txt", "issued_cli.txt", cwd=w)
            check(r.returncode == 0, "%s %s: issued samples differ from `mlsubmit loadgen run`: %s" % (scen, mode, r.stdout))
            for f in ["summary.txt", "detail.txt", "accuracy.json"]:
                check(os.path.exists(os.path.join(w, "py", "mlperf_log_" + f)), "%s %s: no mlperf_log_%s" % (scen, mode, f))
            # the same detail-log entries, in the same order (values that are timing are skipped)
            a = [(e["key"], e["value"]) for e in detail_entries(os.path.join(w, "py", "mlperf_log_detail.txt"))
                 if not STABLE_KEYS_SKIP.search(e["key"])]
            b = [(e["key"], e["value"]) for e in detail_entries(os.path.join(w, "cli", "mlperf_log_detail.txt"))
                 if not STABLE_KEYS_SKIP.search(e["key"])]
            check([k for k, _ in a] == [k for k, _ in b], "%s %s: detail-log keys differ:\n%s\n%s" % (scen, mode, a, b))
            diff = [(x, y) for x, y in zip(a, b) if x != y and x[0] not in ("qsl_name", "loadgen_file_sha1")]
            check(not diff, "%s %s: detail-log values differ: %s" % (scen, mode, diff[:3]))
            acc = json.load(open(os.path.join(w, "py", "mlperf_log_accuracy.json")))
            if mode != "PerformanceOnly":
                check(len(acc) >= 200, "%s %s: %d accuracy-log entries, expected every sample" % (scen, mode, len(acc)))
            if mode != "AccuracyOnly":
                summ = read(os.path.join(w, "py", "mlperf_log_summary.txt"))
                check("Result is" in summ, "%s %s: no result in the summary" % (scen, mode))


@test
def fast_sut_and_qdl(d):
    ok_py("""
        def fast(ids, idx):
            assert len(ids) == len(idx)
            lg.QuerySamplesComplete([lg.QuerySampleResponse(i, 0, 0) for i in ids])
        sut = lg.ConstructFastSUT(fast, lambda: None)
        lg.StartTestWithLogSettings(sut, qsl(), settings("Offline"), logs())
        lg.DestroyFastSUT(sut)
        assert "SUT name : PyFastSUT" in open("mlperf_log_summary.txt").read()
        qdl = lg.ConstructQDL(null_issue, lambda: None, lambda: "net-sut-7")
        lg.StartTestWithLogSettings(qdl, qsl(), settings("Server"), logs())
        lg.DestroyQDL(qdl)
        assert "SUT name : net-sut-7" in open("mlperf_log_summary.txt").read()
        print("ok")
    """, d)


@test
def token_metrics(d):
    ok_py("""
        def issue(qs):
            lg.FirstTokenComplete([lg.QuerySampleResponse(q.id, 0, 0) for q in qs])
            lg.QuerySamplesComplete([lg.QuerySampleResponse(q.id, 0, 0, 8) for q in qs])
        sut = lg.ConstructSUT(issue, lambda: None)
        for scen in ("Server", "Offline", "SingleStream"):
            lg.StartTestWithLogSettings(sut, qsl(), settings(scen, use_token_latencies=True), logs())
            summ = open("mlperf_log_summary.txt").read()
            if scen == "SingleStream":
                assert "first token percentile latency" in summ, summ
            else:
                assert "tokens per second" in summ.lower(), summ
            if scen == "Server":
                assert "TTFT" in summ and "TPOT" in summ, summ
        print("ok")
    """, d)
    errs = errors_of(os.path.join(d, "mlperf_log_detail.txt"))
    check(not errs, "token run logged errors: %s" % errs[:3])


@test
def from_config(d):
    with open(os.path.join(d, "user.conf"), "w") as f:
        f.write("*.Offline.min_query_count = 777\nresnet50.Offline.target_qps = 1234\n"
                "other.Offline.target_qps = 9\n*.Server.target_qps = 55\n")
    with open(os.path.join(d, "mlperf.conf"), "w") as f:
        f.write("*.Offline.min_duration_ms = 4242\n")
    with open(os.path.join(d, "bad.conf"), "w") as f:
        f.write("this is not a config line\n")
    ok_py("""
        s = lg.TestSettings()
        assert s.FromConfig("user.conf", "resnet50", "Offline") == 0
        assert s.min_query_count == 777 and s.offline_expected_qps == 1234.0, (s.min_query_count, s.offline_expected_qps)
        assert s.min_duration_ms == 600000, s.min_duration_ms   # the embedded mlperf.conf came first
        s2 = lg.TestSettings()
        # conf_type 0 is the embedded mlperf.conf whatever the path (TestSettings::FromConfig)
        assert s2.FromConfig("mlperf.conf", "resnet50", "Offline", 0) == 0 and s2.min_duration_ms == 600000
        assert s2.FromConfig(path="user.conf", model="resnet50", scenario="Server", conf_type=1) == 0
        assert s2.server_target_qps == 55.0
        assert s.FromConfig("missing.conf", "resnet50", "Offline") != 0
        print("bad.conf ->", s.FromConfig("bad.conf", "resnet50", "Offline"))
        # the config errors go into the next test's detail log, once
        sut = lg.ConstructSUT(null_issue, lambda: None)
        lg.StartTestWithLogSettings(sut, qsl(), settings("Offline"), logs("t1"))
        lg.StartTestWithLogSettings(sut, qsl(), settings("Offline"), logs("t2"))
        print("ok")
    """, d)
    e1 = errors_of(os.path.join(d, "t1", "mlperf_log_detail.txt"))
    e2 = errors_of(os.path.join(d, "t2", "mlperf_log_detail.txt"))
    check(any("can't open file missing.conf" in e for e in e1), "FromConfig error not logged: %s" % e1)
    check(not any("missing.conf" in e for e in e2), "FromConfig error logged again in the next test: %s" % e2)


@test
def completion_from_threads_1M(d):
    out, _ = ok_py("""
        import queue
        N = 1000000
        work = queue.SimpleQueue()
        def worker():
            C, R = lg.QuerySamplesComplete, lg.QuerySampleResponse
            while True:
                chunk = work.get()
                if chunk is None:
                    return
                if chunk[0] % 2:
                    for i in chunk[1]:
                        C([R(i, 0, 0)])
                else:
                    C([R(i, 0, 0) for i in chunk[1]])
        ths = [threading.Thread(target=worker) for _ in range(4)]
        for t in ths: t.start()
        def fast(ids, idx):
            # the first samples are completed right here, inside issue_query
            lg.QuerySamplesComplete([lg.QuerySampleResponse(i, 0, 0) for i in ids[:1000]])
            for k, j in enumerate(range(1000, len(ids), 5000)):
                work.put((k, ids[j:j + 5000]))
        sut = lg.ConstructFastSUT(fast, lambda: None)
        s = settings("Offline", offline_expected_qps=N / 1.1, min_duration_ms=1000, min_query_count=1, max_query_count=0)
        t0 = time.time()
        lg.StartTestWithLogSettings(sut, lg.ConstructQSL(1024, 1024, lambda s: None, lambda s: None), s, logs())
        for _ in ths: work.put(None)
        for t in ths: t.join()
        print("took %.2f" % (time.time() - t0))
    """, d, timeout=300)
    det = os.path.join(d, "mlperf_log_detail.txt")
    vals = {e["key"]: e["value"] for e in detail_entries(det)}
    check(vals.get("result_samples_per_second") and vals.get("generated_samples_per_query", 0) >= 1000000,
          "1M-sample run: %s" % {k: vals.get(k) for k in ("generated_samples_per_query", "result_samples_per_second")})
    check(not errors_of(det), "1M-sample run logged errors: %s" % errors_of(det)[:3])


@test
def server_completion_from_threads(d):
    ok_py("""
        import queue
        work = queue.SimpleQueue()
        def worker():
            while True:
                q = work.get()
                if q is None:
                    return
                lg.QuerySamplesComplete([lg.QuerySampleResponse(x.id, 0, 0) for x in q])
        ths = [threading.Thread(target=worker) for _ in range(3)]
        for t in ths: t.start()
        sut = lg.ConstructSUT(lambda qs: work.put(qs), lambda: None)
        lg.StartTestWithLogSettings(sut, qsl(), settings("Server", server_target_qps=20000, min_query_count=20000,
                                                          max_query_count=0), logs())
        for _ in ths: work.put(None)
        for t in ths: t.join()
    """, d, timeout=300)
    check(not errors_of(os.path.join(d, "mlperf_log_detail.txt")), "Server run logged errors")


@test
def unknown_and_repeated_ids(d):
    ok_py("""
        n = [0]
        def issue(qs):
            n[0] += 1
            rs = [lg.QuerySampleResponse(q.id, 0, 0) for q in qs]
            lg.QuerySamplesComplete(rs)
            if n[0] == 3:
                lg.QuerySamplesComplete(rs)                                   # repeated
                lg.QuerySamplesComplete([lg.QuerySampleResponse(987654321, 0, 0)])  # unknown
        sut = lg.ConstructSUT(issue, lambda: None)
        lg.StartTestWithLogSettings(sut, qsl(), settings("SingleStream"), logs())
    """, d)
    errs = errors_of(os.path.join(d, "mlperf_log_detail.txt"))
    check(any("complete a sample twice" in e for e in errs), "no repeated-id error: %s" % errs)
    check(any("unknown sample id 987654321" in e for e in errs), "no unknown-id error: %s" % errs)


def check_incomplete(d, what):
    summ = read(os.path.join(d, "mlperf_log_summary.txt"))
    check("TEST INCOMPLETE" in summ, "%s: summary not marked incomplete:\n%s" % (what, summ[-500:]))
    errs = errors_of(os.path.join(d, "mlperf_log_detail.txt"))
    check(any("Test incomplete" in e for e in errs), "%s: detail log not marked incomplete: %s" % (what, errs))
    json.load(open(os.path.join(d, "mlperf_log_accuracy.json")))  # still valid JSON


@test
def exception_in_issue_query(d):
    rc, out, err = run_py("""
        n = [0]
        def issue(qs):
            n[0] += 1
            if n[0] == 5:
                raise ValueError("boom in the harness")
            null_issue(qs)
        sut = lg.ConstructSUT(issue, lambda: None)
        try:
            lg.StartTestWithLogSettings(sut, qsl(), settings("SingleStream"), logs())
        except RuntimeError as e:
            assert isinstance(e.__cause__, ValueError), repr(e.__cause__)
            assert "issue_query" in str(e), str(e)
            print("raised", e)
            # the module is usable again afterwards
            sut2 = lg.ConstructSUT(null_issue, lambda: None)
            lg.StartTestWithLogSettings(sut2, qsl(), settings("Offline"), logs("again"))
            sys.exit(0)
        sys.exit(3)
    """, d, env_extra=None)
    check(rc == 0, "harness exited %d: %s %s" % (rc, out, err[-2000:]))
    check("ValueError: boom in the harness" in err and "Traceback" in err, "no traceback printed: %s" % err[-2000:])
    check_incomplete(d, "exception in issue_query")
    check("Result is" in read(os.path.join(d, "again", "mlperf_log_summary.txt")), "second test failed")


@test
def exception_in_qsl_and_flush(d):
    for cb in ("load", "flush"):
        w = os.path.join(d, cb)
        os.makedirs(w)
        rc, out, err = run_py("""
            def bad(*a):
                raise KeyError("%s failed")
            q = lg.ConstructQSL(100, 100, bad if %r == "load" else (lambda s: None), lambda s: None)
            sut = lg.ConstructSUT(null_issue, bad if %r == "flush" else (lambda: None))
            try:
                lg.StartTestWithLogSettings(sut, q, settings("Offline"), logs())
            except RuntimeError as e:
                assert isinstance(e.__cause__, KeyError)
                sys.exit(0)
            sys.exit(3)
        """ % (cb, cb, cb), w)
        check(rc == 0, "%s: harness exited %d: %s" % (cb, rc, err[-2000:]))
        check_incomplete(w, "exception in " + cb)


@test
def ctrl_c(d):
    rc, out, err = run_py("""
        sut = lg.ConstructSUT(null_issue, lambda: None)
        print("start", flush=True)
        lg.StartTestWithLogSettings(sut, qsl(), settings("Server", server_target_qps=1000, min_duration_ms=600000,
                                                          min_query_count=1, max_query_count=0), logs())
        print("not reached")
    """, d, sig_after=1.0, timeout=60)
    check(rc != 0 and "KeyboardInterrupt" in err, "Ctrl-C: rc %d, stderr %s" % (rc, err[-1000:]))
    check("not reached" not in out, "StartTest returned normally after Ctrl-C")
    check_incomplete(d, "Ctrl-C")


@test
def response_cb_and_accuracy_payload(d):
    ok_py("""
        import array
        keep = []
        def issue(qs):
            rs = []
            for q in qs:
                rs.append(lg.QuerySampleResponse(q.id, 0, 0))
            def cb(r):
                buf = array.array("B", [0xAB, 0xCD])
                keep.append(buf)
                r.data, r.size = buf.buffer_info()[0], 2
            lg.QuerySamplesComplete(rs, cb)
        sut = lg.ConstructSUT(issue, lambda: None)
        lg.StartTestWithLogSettings(sut, qsl(50), settings("Offline", "AccuracyOnly"), logs())
    """, d)
    acc = json.load(open(os.path.join(d, "mlperf_log_accuracy.json")))
    check(len(acc) == 50 and all(e["data"] == "ABCD" for e in acc), "accuracy log: %s" % acc[:3])


@test
def bad_payload_address(d):
    out, _ = ok_py("""
        errs = []
        def issue(qs):
            rs = [lg.QuerySampleResponse(q.id, 8, 16) for q in qs]   # address 8: never mapped
            try:
                lg.QuerySamplesComplete(rs)
            except ValueError as e:
                errs.append(str(e))
        sut = lg.ConstructSUT(issue, lambda: None)
        lg.StartTestWithLogSettings(sut, qsl(20), settings("Offline", "AccuracyOnly"), logs())
        try:
            lg.FirstTokenComplete([lg.QuerySampleResponse(1, 8, 4)])
        except ValueError as e:
            errs.append(str(e))
        print(len(errs), errs[0])
    """, d)
    check(out.startswith("2 ") and "not readable" in out, "bad payload address: %s" % out)
    acc = json.load(open(os.path.join(d, "mlperf_log_accuracy.json")))
    check(len(acc) == 20 and all(e["data"] == "" for e in acc), "accuracy log: %s" % acc[:2])


@test
def audit_config_and_log_settings(d):
    with open(os.path.join(d, "audit.config"), "w") as f:
        f.write("*.*.min_query_count = 123\n*.*.max_query_count = 123\n")
    ok_py("""
        sut = lg.ConstructSUT(null_issue, lambda: None)
        ls = logs("out")
        ls.log_output.prefix = "run_"
        ls.log_output.suffix = "_x"
        lg.StartTestWithLogSettings(sut, qsl(), settings("SingleStream"), ls)
        assert os.path.exists("out/run_summary_x.txt") and os.path.exists("out/run_detail_x.txt")
        lg.StartTestWithLogSettings(sut, qsl(), settings("SingleStream"), logs("noaudit"), "none.config")
    """, d)
    ents = detail_entries(os.path.join(d, "out", "run_detail_x.txt"))
    vals = {e["key"]: e["value"] for e in ents}
    check(vals.get("effective_min_query_count") == 123, "audit.config not applied: %s" % vals.get("effective_min_query_count"))
    check(any(e["metadata"].get("is_warning") and "audit.config" in str(e["value"]) for e in ents), "no audit warning")
    v2 = {e["key"]: e["value"] for e in detail_entries(os.path.join(d, "noaudit", "mlperf_log_detail.txt"))}
    check(v2.get("effective_min_query_count") == 50, "audit_config_filename ignored: %s" % v2.get("effective_min_query_count"))


@test
def default_start_test_and_compat(d):
    ok_py("""
        sut = lg.ConstructSUT(null_issue, lambda: None)
        lg.SetLoadgenCompat("6.0")
        lg.StartTest(sut, qsl(), settings("Offline"))
        assert os.path.exists("mlperf_log_trace.json")   # the reference's LogSettings trace default
        try:
            lg.SetLoadgenCompat("4.0")
        except ValueError:
            print("ok")
    """, d)
    v = {e["key"]: e["value"] for e in detail_entries(os.path.join(d, "mlperf_log_detail.txt"))}
    check(str(v.get("loadgen_version", "")).startswith("6."), "compat 6.0 not applied: %s" % v.get("loadgen_version"))


@test
def default_compat_is_the_python_default_row(d):
    # without SetLoadgenCompat or MLSUBMIT_LOADGEN_COMPAT the module emulates the release of the
    # row of rules/loadgen.json marked python_default (the newest released bindings)
    rows = json.load(open(os.path.join(HERE, "..", "..", "rules", "loadgen.json")))["versions"]
    marked = [r for r in rows if r.get("python_default")]
    check(len(marked) == 1, "rules/loadgen.json marks %d rows python_default" % len(marked))
    saved = os.environ.pop("MLSUBMIT_LOADGEN_COMPAT", None)
    try:
        ok_py("""
            sut = lg.ConstructSUT(null_issue, lambda: None)
            lg.StartTest(sut, qsl(), settings("Offline"))
        """, d)
    finally:
        if saved is not None:
            os.environ["MLSUBMIT_LOADGEN_COMPAT"] = saved
    v = {e["key"]: e["value"] for e in detail_entries(os.path.join(d, "mlperf_log_detail.txt"))}
    check(str(v.get("loadgen_version", "")).startswith(marked[0]["loadgen_version"]),
          "default compat: loadgen_version %s, the python_default row says %s"
          % (v.get("loadgen_version"), marked[0]["loadgen_version"]))


@test
def casters_like_pybind11(d):
    # bools, ints and floats convert as pybind11's casters do in a def_readwrite setter
    ok_py("""
        import decimal, fractions
        s = lg.TestSettings()

        for v, want in ((0.0, False), (2, True), (None, False), (decimal.Decimal("0"), False), (1.5, True)):
            s.performance_issue_unique = v
            assert s.performance_issue_unique is want, (v, s.performance_issue_unique)
        for v in ("x", [], [1]):
            refuses(setattr, s, "performance_issue_unique", v)
        s.min_query_count = decimal.Decimal("2.7"); assert s.min_query_count == 2
        s.min_query_count = fractions.Fraction(7, 2); assert s.min_query_count == 3
        s.server_target_qps = decimal.Decimal("2.5"); assert s.server_target_qps == 2.5
        for v in (1.5, "5", None, [], -1, 2**64):
            refuses(setattr, s, "min_query_count", v)
        print("ok")
    """, d)


@test
def release_bindings(d):
    # up to 2.0 ConstructSUT / ConstructFastSUT take report_latency_results, called after the
    # performance run with every sample's latency
    ok_py("""
        got = []
        refuses(lg.ConstructSUT, null_issue, lambda: None)   # two arguments under 2.0
        sut = lg.ConstructSUT(null_issue, lambda: None, lambda lat: got.append(list(lat)))
        s = lg.TestSettings()
        s.scenario = lg.TestScenario.SingleStream
        s.mode = lg.TestMode.PerformanceOnly
        s.min_duration_ms = 0; s.min_query_count = 37; s.max_query_count = 37
        lg.StartTest(sut, qsl(), s)
        assert len(got) == 1 and len(got[0]) == 37 and all(x > 0 for x in got[0]), got
        fast = lg.ConstructFastSUT(lambda i, x: None, None, None)
        lg.DestroyFastSUT(fast)
        print("ok")
    """, d, env_extra={"MLSUBMIT_LOADGEN_COMPAT": "2.0"})
    # a TestSettings has the release's defaults (test_settings.h up to tag r1.1)
    ok_py("""
        s = lg.TestSettings()
        assert s.multi_stream_samples_per_query == 4, s.multi_stream_samples_per_query
        assert s.multi_stream_target_latency_percentile == 0.9, s.multi_stream_target_latency_percentile
        # single_stream_expected_latency_ns is a uint64_t up to r1.1
        assert s.single_stream_expected_latency_ns == 1000000 and isinstance(s.single_stream_expected_latency_ns, int)
        refuses(setattr, s, "single_stream_expected_latency_ns", 1.5)
        # TestScenario has MultiStreamFree = 2 up to r1.1 (not run by mlsubmit's LoadGen)
        assert [int(lg.TestScenario.MultiStreamFree), int(lg.TestScenario.Server), int(lg.TestScenario.Offline)] == [2, 3, 4]
        s.scenario = lg.TestScenario(3)
        assert s.scenario is lg.TestScenario.Server, s.scenario
        s.scenario = lg.TestScenario.Offline
        assert s.scenario is lg.TestScenario.Offline, s.scenario
        try:
            s.scenario = lg.TestScenario.MultiStreamFree
            raise AssertionError("MultiStreamFree taken")
        except ValueError:
            pass
        print("ok")
    """, d, env_extra={"MLSUBMIT_LOADGEN_COMPAT": "1.1"})
    # 3.0's bindings bind the test05 seed attributes to the main seeds
    ok_py("""
        s = lg.TestSettings()
        s.test05_qsl_rng_seed = 11; s.test05_sample_index_rng_seed = 12; s.test05_schedule_rng_seed = 13
        assert (s.qsl_rng_seed, s.sample_index_rng_seed, s.schedule_rng_seed) == (11, 12, 13)
        refuses(lg.ConstructSUT, null_issue, lambda: None, lambda lat: None)   # three under 3.0
        print("ok")
    """, d, env_extra={"MLSUBMIT_LOADGEN_COMPAT": "3.0"})
    ok_py("""
        s = lg.TestSettings()
        s.test05_qsl_rng_seed = 11
        assert s.qsl_rng_seed != 11 and s.test05_qsl_rng_seed == 11
        assert s.multi_stream_samples_per_query == 8, s.multi_stream_samples_per_query
        print("ok")
    """, d, env_extra={"MLSUBMIT_LOADGEN_COMPAT": "5.1"})


def main():
    names = sys.argv[1:]
    passed = failed = 0
    for t in TESTS:
        if names and t.__name__ not in names:
            continue
        d = tempfile.mkdtemp(prefix="pytest_%s_" % t.__name__)
        t0 = time.time()
        try:
            t(d)
            passed += 1
            print("PASS %s (%.1fs)" % (t.__name__, time.time() - t0), flush=True)
        except Exception as e:  # Fail, or a test's own error (a missing file...)
            failed += 1
            print("FAIL %s: %s (kept %s)" % (t.__name__, e, d), flush=True)
            continue
        subprocess.run(["rm", "-rf", d])
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
