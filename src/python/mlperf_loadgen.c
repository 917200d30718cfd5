/* mlperf_loadgen: a CPython extension module with the API of the MLCommons LoadGen's Python
 * bindings (loadgen/bindings/python_api.cc, PYBIND11_MODULE(mlperf_loadgen)), written on the
 * CPython C API over mlsubmit's C LoadGen (src/loadgen/loadgen.h).
 *
 * Threads and the GIL (docs/ARCHITECTURE.md, "Python binding"):
 *  - StartTest runs lg_start_test on a LoadGen thread of its own and waits for it with the GIL
 *    released; every 50 ms it takes the GIL to run Python's signal handlers, so Ctrl-C
 *    (KeyboardInterrupt) cancels the test (lg_run_options.cancel) and StartTest re-raises it.
 *  - issue_query, flush_queries, the QSL and QDL callbacks run on the LoadGen thread with the
 *    GIL held (PyGILState_Ensure, like the reference's gil_scoped_acquire).
 *  - QuerySamplesComplete / FirstTokenComplete may be called from any Python thread, including
 *    inside issue_query: the C completion path never waits for anything the LoadGen thread holds
 *    while it waits for the GIL, so it runs with the GIL held (large batches without a response
 *    callback release it, as the reference does for every call).
 *  - An exception in an SUT/QSL callback cancels the test: its traceback is printed, the logs
 *    written so far are finished as incomplete (lg_logs_finish_incomplete, as the CLI's
 *    supervisor does) and StartTest raises RuntimeError chained to it.
 *
 * Module state (the current test, the config session, the handle registry) is process-wide,
 * like the reference's (FromConfig's mlperf.conf bookkeeping, QuerySamplesComplete without a
 * test argument): it lives in the statics below. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "loadgen/loadgen.h"

/* ---- module state ------------------------------------------------------------------------- */

static PyObject *g_TestScenario, *g_TestMode, *g_LoggingMode; /* enum classes */
static PyObject *g_scen_members[4], *g_mode_members[4], *g_logmode_members[3];
static int g_msf;                      /* TestScenario has MultiStreamFree = 2 (the release at
                                          import has python_multistreamfree) */
static PyObject *g_registry;           /* handle (int) -> capsule of a pysut / pyqsl */
static lg_conf_session *g_conf;        /* FromConfig's process-wide state (the reference's) */
static lg_compat g_compat = LG_COMPAT_LATEST; /* set at import: python_default_compat() */
static char *g_dump_issued;            /* SetDumpIssued path, or NULL */
static _Atomic(lg_test *) g_test;      /* the running test, for the completion calls */
static _Atomic int g_inflight;         /* completion calls using g_test */
static _Atomic int g_running;

/* ---- exceptions as single objects (PyErr_GetRaisedException is 3.12+) ---------------------- */

static PyObject *exc_take(void)
{
    PyObject *t, *v, *tb;
    PyErr_Fetch(&t, &v, &tb);
    if (!t)
        return NULL;
    PyErr_NormalizeException(&t, &v, &tb);
    if (tb && v)
        PyException_SetTraceback(v, tb);
    Py_XDECREF(t);
    Py_XDECREF(tb);
    return v;
}

/* Sets exc (a reference is stolen) as the current exception. */
static void exc_restore(PyObject *exc)
{
    PyErr_Restore(Py_NewRef((PyObject *)Py_TYPE(exc)), exc, PyException_GetTraceback(exc));
}

/* ---- enums ----------------------------------------------------------------------------------- */

static const char enum_src[] =
    "import enum as _enum\n"
    "class _LGEnum(_enum.Enum):\n"
    "    def __int__(self): return self.value\n"
    "    def __index__(self): return self.value\n"
    "    def __hash__(self): return hash(self.value)\n"
    "class TestScenario(_LGEnum):\n"
    "    SingleStream = 0\n    MultiStream = 1\n    Server = 2\n    Offline = 3\n"
    "class TestMode(_LGEnum):\n"
    "    SubmissionRun = 0\n    AccuracyOnly = 1\n    PerformanceOnly = 2\n    FindPeakPerformance = 3\n"
    "class LoggingMode(_LGEnum):\n"
    "    AsyncPoll = 0\n    EndOfTestOnly = 1\n    Synchronous = 2\n"
    "for _c in (TestScenario, TestMode, LoggingMode):\n"
    "    _c.__module__ = 'mlperf_loadgen'\n"
    "class VectorQuerySample(list):\n    __module__ = 'mlperf_loadgen'\n"
    "class VectorQuerySampleResponse(list):\n    __module__ = 'mlperf_loadgen'\n";

/* The scenario enum of the releases up to tag r1.1 (their test_settings.h TestScenario):
 * MultiStreamFree between MultiStream and Server, which shifts Server and Offline. */
static const char enum_msf_src[] =
    "class TestScenario(_LGEnum):\n"
    "    SingleStream = 0\n    MultiStream = 1\n    MultiStreamFree = 2\n    Server = 3\n    Offline = 4\n"
    "TestScenario.__module__ = 'mlperf_loadgen'\n";

/* Value of an enum member of cls, or -1 with TypeError naming what. */
static int enum_value(PyObject *cls, PyObject *v, const char *what)
{
    int r = PyObject_IsInstance(v, cls);
    if (r < 0)
        return -1;
    if (!r) {
        PyErr_Format(PyExc_TypeError, "%s: expected mlperf_loadgen.%s, got %s", what,
                     ((PyTypeObject *)cls)->tp_name, Py_TYPE(v)->tp_name);
        return -1;
    }
    PyObject *val = PyObject_GetAttrString(v, "value");
    if (!val)
        return -1;
    long x = PyLong_AsLong(val);
    Py_DECREF(val);
    return (int)x;
}

/* ---- typed conversions: pybind11's casters as a def_readwrite setter or a bound function runs
 * them (convert mode, pybind11/cast.h type_caster<T>::load) --------------------------------------
 * integers: never a float (PyFloat_Check); an int (or bool) as it is; any other number (a type
 *   with __index__, __int__ or __float__: a Decimal, a Fraction) through int(), so truncated;
 *   a str, None or a list never; out of the C type's range: TypeError.
 * floats: anything float() takes that is a number (an int, a bool, a Decimal), never a str.
 * bools: True / False, None as false, else the type's own __bool__ (nb_bool) when it has one
 *   (0.0 and 2 convert; a str or a list, which have none, do not). */

/* v as a Python int (a new reference) the way the integer caster converts it, or NULL with no
 * exception set. */
static PyObject *caster_int(PyObject *v)
{
    if (PyFloat_Check(v))
        return NULL;
    if (PyLong_Check(v))
        return Py_NewRef(v);
    if (!PyNumber_Check(v))
        return NULL;
    PyObject *i = PyNumber_Long(v);
    if (!i)
        PyErr_Clear();
    return i;
}

static int to_u64(PyObject *v, uint64_t *out, const char *what)
{
    PyObject *i = caster_int(v);
    if (!i) {
        PyErr_Format(PyExc_TypeError, "%s: expected an int, got %s", what, Py_TYPE(v)->tp_name);
        return -1;
    }
    unsigned long long x = PyLong_AsUnsignedLongLong(i);
    Py_DECREF(i);
    if (x == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s: expected an int in [0, 2**64), got %R", what, v);
        return -1;
    }
    *out = x;
    return 0;
}

static int to_i64(PyObject *v, int64_t *out, const char *what)
{
    PyObject *i = caster_int(v);
    if (!i) {
        PyErr_Format(PyExc_TypeError, "%s: expected an int, got %s", what, Py_TYPE(v)->tp_name);
        return -1;
    }
    long long x = PyLong_AsLongLong(i);
    Py_DECREF(i);
    if (x == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s: expected a 64-bit int, got %R", what, v);
        return -1;
    }
    *out = x;
    return 0;
}

static int to_double(PyObject *v, double *out, const char *what)
{
    if (!PyFloat_Check(v) && !PyLong_Check(v) && !PyNumber_Check(v)) {
        PyErr_Format(PyExc_TypeError, "%s: expected a float, got %s", what, Py_TYPE(v)->tp_name);
        return -1;
    }
    double d = PyFloat_AsDouble(v);
    if (d == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s: expected a float, got %s", what, Py_TYPE(v)->tp_name);
        return -1;
    }
    *out = d;
    return 0;
}

static int to_bool(PyObject *v, int *out, const char *what)
{
    if (v == Py_True || v == Py_False || v == Py_None) {
        *out = v == Py_True;
        return 0;
    }
    PyNumberMethods *nm = Py_TYPE(v)->tp_as_number;
    if (nm && nm->nb_bool) {
        int r = nm->nb_bool(v);
        if (r == 0 || r == 1) {
            *out = r;
            return 0;
        }
        PyErr_Clear();
    }
    PyErr_Format(PyExc_TypeError, "%s: expected a bool, got %s", what, Py_TYPE(v)->tp_name);
    return -1;
}

static int to_str(PyObject *v, char **out, const char *what)
{
    if (!PyUnicode_Check(v)) {
        PyErr_Format(PyExc_TypeError, "%s: expected a str, got %s", what, Py_TYPE(v)->tp_name);
        return -1;
    }
    const char *s = PyUnicode_AsUTF8(v);
    if (!s)
        return -1;
    char *d = strdup(s);
    if (!d) {
        PyErr_NoMemory();
        return -1;
    }
    free(*out);
    *out = d;
    return 0;
}

/* ---- TestSettings -------------------------------------------------------------------------- */

enum { K_SCEN, K_MODE, K_DBL, K_U64, K_BOOL, K_INT };

typedef struct field {
    const char *name;   /* Python attribute */
    int kind;
    size_t off;
} field;

#define F(py, k, c) {py, k, offsetof(lg_test_settings, c)}
static const field ts_fields[] = {
    F("scenario", K_SCEN, scenario),
    F("mode", K_MODE, mode),
    F("single_stream_expected_latency_ns", K_DBL, single_stream_expected_latency_ns),
    F("single_stream_target_latency_percentile", K_DBL, single_stream_target_latency_percentile),
    F("multi_stream_expected_latency_ns", K_DBL, multi_stream_expected_latency_ns),
    F("multi_stream_target_latency_percentile", K_DBL, multi_stream_target_latency_percentile),
    F("multi_stream_samples_per_query", K_U64, multi_stream_samples_per_query),
    /* the early MultiStream (SetLoadgenCompat of 0.5 to 1.1; reference r0.5 TestSettings) */
    F("multi_stream_target_qps", K_DBL, multi_stream_target_qps),
    F("multi_stream_max_async_queries", K_U64, multi_stream_max_async_queries),
    F("multi_stream_target_latency_ns", K_U64, multi_stream_target_latency_ns),
    F("server_target_qps", K_DBL, server_target_qps),
    F("server_target_latency_ns", K_U64, server_target_latency_ns),
    F("server_target_latency_percentile", K_DBL, server_target_latency_percentile),
    F("server_coalesce_queries", K_BOOL, server_coalesce_queries),
    F("server_find_peak_qps_decimals_of_precision", K_INT, server_find_peak_qps_decimals_of_precision),
    F("server_find_peak_qps_boundary_step_size", K_DBL, server_find_peak_qps_boundary_step_size),
    F("server_max_async_queries", K_U64, server_max_async_queries),
    F("server_num_issue_query_threads", K_U64, server_num_issue_query_threads),
    F("offline_expected_qps", K_DBL, offline_expected_qps),
    F("min_duration_ms", K_U64, min_duration_ms),
    F("max_duration_ms", K_U64, max_duration_ms),
    F("min_query_count", K_U64, min_query_count),
    F("max_query_count", K_U64, max_query_count),
    F("qsl_rng_seed", K_U64, qsl_rng_seed),
    F("sample_index_rng_seed", K_U64, sample_index_rng_seed),
    F("schedule_rng_seed", K_U64, schedule_rng_seed),
    F("accuracy_log_rng_seed", K_U64, accuracy_log_rng_seed),
    F("accuracy_log_probability", K_DBL, accuracy_log_probability),
    F("print_timestamps", K_BOOL, print_timestamps),
    F("performance_issue_unique", K_BOOL, performance_issue_unique),
    F("performance_issue_same", K_BOOL, performance_issue_same),
    F("performance_issue_same_index", K_U64, performance_issue_same_index),
    F("performance_sample_count_override", K_U64, performance_sample_count_override),
    F("test05", K_BOOL, test05),
    F("test05_qsl_rng_seed", K_U64, test05_qsl_rng_seed),
    F("test05_sample_index_rng_seed", K_U64, test05_sample_index_rng_seed),
    F("test05_schedule_rng_seed", K_U64, test05_schedule_rng_seed),
    F("use_token_latencies", K_BOOL, use_token_latencies),
    F("ttft_latency", K_U64, server_ttft_latency),
    F("tpot_latency", K_U64, server_tpot_latency),
    F("infer_token_latencies", K_BOOL, infer_token_latencies),
    F("token_latency_scaling_factor", K_U64, token_latency_scaling_factor),
    /* extras: the remaining TestSettings fields of loadgen/test_settings.h (not bound by the
     * reference module) */
    F("server_ttft_latency", K_U64, server_ttft_latency),
    F("server_tpot_latency", K_U64, server_tpot_latency),
    F("accuracy_log_sampling_target", K_U64, accuracy_log_sampling_target),
    F("sample_concatenate_permutation", K_BOOL, sample_concatenate_permutation),
    F("accuracy_sample_count_override", K_U64, accuracy_sample_count_override),
};
#undef F
#define NFIELDS (sizeof ts_fields / sizeof ts_fields[0])

typedef struct {
    PyObject_HEAD
    lg_test_settings s;
} TestSettingsObject;

static PyTypeObject TestSettings_Type;

static int TestSettings_init(TestSettingsObject *self, PyObject *args, PyObject *kw)
{
    if (PyTuple_GET_SIZE(args) || (kw && PyDict_GET_SIZE(kw))) {
        PyErr_SetString(PyExc_TypeError, "TestSettings() takes no arguments");
        return -1;
    }
    /* the emulated release's TestSettings defaults (its test_settings.h, as `loadgen run` uses) */
    lg_settings_default(&self->s);
    lg_settings_release_defaults(&self->s, lg_version_rules_of_compat(g_compat));
    return 0;
}

/* The field an attribute reaches: in the releases whose rules row has python_test05_seeds_alias
 * the test05_*_rng_seed attributes are the main seeds (bindings/python_api.cc of tag v3.0). */
static const field *ts_target(const field *f)
{
    static const char *const alias[][2] = {{"test05_qsl_rng_seed", "qsl_rng_seed"},
                                           {"test05_sample_index_rng_seed", "sample_index_rng_seed"},
                                           {"test05_schedule_rng_seed", "schedule_rng_seed"}};
    if (!lg_version_rules_of_compat(g_compat)->python_test05_seeds_alias)
        return f;
    for (size_t i = 0; i < sizeof alias / sizeof alias[0]; i++)
        if (!strcmp(f->name, alias[i][0]))
            for (size_t j = 0; j < NFIELDS; j++)
                if (!strcmp(ts_fields[j].name, alias[i][1]))
                    return &ts_fields[j];
    return f;
}

/* single_stream_expected_latency_ns is a uint64_t in the releases of integer_expected_latency
 * (test_settings.h up to tag r1.1): an int read back, a float refused as pybind11 refuses it */
static int ts_integer_latency(const field *f)
{
    return f->off == offsetof(lg_test_settings, single_stream_expected_latency_ns) &&
           lg_version_rules_of_compat(g_compat)->integer_expected_latency;
}

static PyObject *ts_get(TestSettingsObject *self, void *closure)
{
    const field *f = ts_target(closure);
    char *p = (char *)&self->s + f->off;
    if (ts_integer_latency(f))
        return PyLong_FromUnsignedLongLong((unsigned long long)*(double *)p);
    switch (f->kind) {
    case K_SCEN: {
        int v = *(lg_scenario *)p;
        PyObject *m = v >= 0 && v < 4 ? g_scen_members[v] : Py_None;
        Py_INCREF(m);
        return m;
    }
    case K_MODE: {
        int v = *(lg_mode *)p;
        PyObject *m = v >= 0 && v < 4 ? g_mode_members[v] : Py_None;
        Py_INCREF(m);
        return m;
    }
    case K_DBL: return PyFloat_FromDouble(*(double *)p);
    case K_U64: return PyLong_FromUnsignedLongLong(*(uint64_t *)p);
    case K_BOOL: return PyBool_FromLong(*(int *)p);
    default: return PyLong_FromLong(*(int *)p);
    }
}

static int ts_set(TestSettingsObject *self, PyObject *v, void *closure)
{
    const field *f = ts_target(closure);
    char what[96];
    snprintf(what, sizeof what, "TestSettings.%s", f->name);
    if (!v) {
        PyErr_Format(PyExc_AttributeError, "%s cannot be deleted", what);
        return -1;
    }
    char *p = (char *)&self->s + f->off;
    if (ts_integer_latency(f)) {
        uint64_t x;
        if (to_u64(v, &x, what))
            return -1;
        *(double *)p = (double)x;
        return 0;
    }
    switch (f->kind) {
    case K_SCEN: {
        int x = enum_value(g_TestScenario, v, what);
        if (x < 0)
            return -1;
        if (g_msf && x == 2) {
            PyErr_Format(PyExc_ValueError, "%s: MultiStreamFree is not run by mlsubmit's LoadGen", what);
            return -1;
        }
        if (g_msf && x > 2)
            x--;
        *(lg_scenario *)p = (lg_scenario)x;
        return 0;
    }
    case K_MODE: {
        int x = enum_value(g_TestMode, v, what);
        if (x < 0)
            return -1;
        *(lg_mode *)p = (lg_mode)x;
        return 0;
    }
    case K_DBL: return to_double(v, (double *)p, what);
    case K_U64: return to_u64(v, (uint64_t *)p, what);
    case K_BOOL: return to_bool(v, (int *)p, what);
    default: {
        int64_t x;
        if (to_i64(v, &x, what))
            return -1;
        if (x < INT32_MIN || x > INT32_MAX) {
            PyErr_Format(PyExc_TypeError, "%s: expected a 32-bit int, got %R", what, v);
            return -1;
        }
        *(int *)p = (int)x;
        return 0;
    }
    }
}

static PyGetSetDef ts_getset[NFIELDS + 1];

/* FromConfig(path, model, scenario, conf_type=1) -> 0 on success (TestSettings::FromConfig). */
static PyObject *TestSettings_FromConfig(TestSettingsObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"path", "model", "scenario", "conf_type", NULL};
    PyObject *po, *mo, *so, *co = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOO|O:FromConfig", kwlist, &po, &mo, &so, &co))
        return NULL;
    PyObject *objs[3] = {po, mo, so};
    static const char *names[3] = {"path", "model", "scenario"};
    for (int i = 0; i < 3; i++)
        if (!PyUnicode_Check(objs[i]))
            return PyErr_Format(PyExc_TypeError, "FromConfig(): argument '%s' must be str, not %s",
                                names[i], Py_TYPE(objs[i])->tp_name);
    int64_t conf_type = 1;
    if (co && to_i64(co, &conf_type, "FromConfig(): argument 'conf_type'"))
        return NULL;
    const char *path = PyUnicode_AsUTF8(po), *model = PyUnicode_AsUTF8(mo),
               *scen = PyUnicode_AsUTF8(so);
    if (!path || !model || !scen)
        return NULL;
    if (!g_conf) {
        ms_err e;
        g_conf = lg_conf_session_new(g_compat, NULL, &e);
        if (!g_conf)
            return PyErr_Format(PyExc_RuntimeError, "%s", e.msg);
    }
    /* conf_type 0 parses the embedded mlperf.conf whatever the path (TestSettings::FromConfig) */
    int r = conf_type == 0 ? lg_settings_apply_mlperf_conf(g_conf, &self->s, model, scen)
                           : lg_settings_from_config(g_conf, &self->s, path, model, scen, (int)conf_type);
    return PyLong_FromLong(r);
}

static PyMethodDef ts_methods[] = {
    {"FromConfig", (PyCFunction)(void (*)(void))TestSettings_FromConfig, METH_VARARGS | METH_KEYWORDS,
     "FromConfig(path, model, scenario, conf_type=1) -> int\n\nApplies a config file like the "
     "reference TestSettings::FromConfig: conf_type 1 = user.conf (the embedded mlperf.conf is "
     "applied first, once per process), 0 = mlperf.conf, 2 = audit.config. Returns 0 on success."},
    {NULL, NULL, 0, NULL}};

static PyTypeObject TestSettings_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "mlperf_loadgen.TestSettings",
    .tp_basicsize = sizeof(TestSettingsObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "LoadGen test settings (loadgen/test_settings.h); every field with the reference's "
              "name and default.",
    .tp_init = (initproc)TestSettings_init,
    .tp_new = PyType_GenericNew,
    .tp_methods = ts_methods,
};

/* ---- LogOutputSettings / LogSettings --------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    char *outdir, *prefix, *suffix;
    int prefix_with_datetime, copy_detail_to_stdout, copy_summary_to_stdout;
} LogOutputObject;

static PyTypeObject LogOutput_Type;

static int lo_defaults(LogOutputObject *o)
{
    free(o->outdir);
    free(o->prefix);
    free(o->suffix);
    o->outdir = strdup(".");
    o->prefix = strdup("mlperf_log_");
    o->suffix = strdup("");
    o->prefix_with_datetime = o->copy_detail_to_stdout = o->copy_summary_to_stdout = 0;
    if (!o->outdir || !o->prefix || !o->suffix) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static int LogOutput_init(LogOutputObject *self, PyObject *args, PyObject *kw)
{
    if (PyTuple_GET_SIZE(args) || (kw && PyDict_GET_SIZE(kw))) {
        PyErr_SetString(PyExc_TypeError, "LogOutputSettings() takes no arguments");
        return -1;
    }
    return lo_defaults(self);
}

static void LogOutput_dealloc(LogOutputObject *self)
{
    free(self->outdir);
    free(self->prefix);
    free(self->suffix);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

#define LO_STR(n)                                                                         \
    static PyObject *lo_get_##n(LogOutputObject *s, void *c)                              \
    {                                                                                     \
        return PyUnicode_FromString(s->n ? s->n : "");                                    \
    }                                                                                     \
    static int lo_set_##n(LogOutputObject *s, PyObject *v, void *c)                       \
    {                                                                                     \
        if (!v) {                                                                         \
            PyErr_SetString(PyExc_AttributeError, "cannot delete");                       \
            return -1;                                                                    \
        }                                                                                 \
        return to_str(v, &s->n, "LogOutputSettings." #n);                                 \
    }
#define LO_BOOL(n)                                                                        \
    static PyObject *lo_get_##n(LogOutputObject *s, void *c) { return PyBool_FromLong(s->n); } \
    static int lo_set_##n(LogOutputObject *s, PyObject *v, void *c)                       \
    {                                                                                     \
        if (!v) {                                                                         \
            PyErr_SetString(PyExc_AttributeError, "cannot delete");                       \
            return -1;                                                                    \
        }                                                                                 \
        return to_bool(v, &s->n, "LogOutputSettings." #n);                                \
    }
LO_STR(outdir)
LO_STR(prefix)
LO_STR(suffix)
LO_BOOL(prefix_with_datetime)
LO_BOOL(copy_detail_to_stdout)
LO_BOOL(copy_summary_to_stdout)
#define GS(n) {#n, (getter)lo_get_##n, (setter)lo_set_##n, NULL, NULL}
static PyGetSetDef lo_getset[] = {GS(outdir), GS(prefix), GS(suffix), GS(prefix_with_datetime),
                                  GS(copy_detail_to_stdout), GS(copy_summary_to_stdout),
                                  {NULL, NULL, NULL, NULL, NULL}};
#undef GS

static PyObject *LogOutput_new(PyTypeObject *t, PyObject *a, PyObject *k)
{
    LogOutputObject *o = (LogOutputObject *)t->tp_alloc(t, 0);
    if (o && lo_defaults(o) != 0) {
        Py_DECREF(o);
        return NULL;
    }
    return (PyObject *)o;
}

static PyTypeObject LogOutput_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "mlperf_loadgen.LogOutputSettings",
    .tp_basicsize = sizeof(LogOutputObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "Where the LoadGen writes its logs (outdir, prefix, suffix, ...).",
    .tp_init = (initproc)LogOutput_init,
    .tp_new = LogOutput_new,
    .tp_dealloc = (destructor)LogOutput_dealloc,
    .tp_getset = lo_getset,
};

typedef struct {
    PyObject_HEAD
    LogOutputObject *log_output;    /* owned; assignment copies into it (pybind11 copies) */
    int log_mode;
    uint64_t log_mode_async_poll_interval_ms;
    int enable_trace;
} LogSettingsObject;

static PyTypeObject LogSettings_Type;

static PyObject *LogSettings_new(PyTypeObject *t, PyObject *a, PyObject *k)
{
    LogSettingsObject *o = (LogSettingsObject *)t->tp_alloc(t, 0);
    if (!o)
        return NULL;
    o->log_output = (LogOutputObject *)LogOutput_new(&LogOutput_Type, NULL, NULL);
    if (!o->log_output) {
        Py_DECREF(o);
        return NULL;
    }
    o->log_mode_async_poll_interval_ms = 1000;
    o->enable_trace = 1;
    return (PyObject *)o;
}

static int LogSettings_init(LogSettingsObject *self, PyObject *args, PyObject *kw)
{
    if (PyTuple_GET_SIZE(args) || (kw && PyDict_GET_SIZE(kw))) {
        PyErr_SetString(PyExc_TypeError, "LogSettings() takes no arguments");
        return -1;
    }
    return 0;
}

static int LogSettings_traverse(LogSettingsObject *self, visitproc visit, void *arg)
{
    Py_VISIT(self->log_output);
    return 0;
}

static void LogSettings_dealloc(LogSettingsObject *self)
{
    PyObject_GC_UnTrack(self);
    Py_CLEAR(self->log_output);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *ls_get_log_output(LogSettingsObject *s, void *c)
{
    Py_INCREF(s->log_output);
    return (PyObject *)s->log_output;
}

static int ls_set_log_output(LogSettingsObject *s, PyObject *v, void *c)
{
    if (!v || !PyObject_TypeCheck(v, &LogOutput_Type)) {
        PyErr_Format(PyExc_TypeError, "LogSettings.log_output: expected mlperf_loadgen.LogOutputSettings, got %s",
                     v ? Py_TYPE(v)->tp_name : "deletion");
        return -1;
    }
    LogOutputObject *src = (LogOutputObject *)v, *d = s->log_output;
    if (src == d)
        return 0;
    char *a = strdup(src->outdir), *b = strdup(src->prefix), *cc = strdup(src->suffix);
    if (!a || !b || !cc) {
        free(a);
        free(b);
        free(cc);
        PyErr_NoMemory();
        return -1;
    }
    free(d->outdir);
    free(d->prefix);
    free(d->suffix);
    d->outdir = a;
    d->prefix = b;
    d->suffix = cc;
    d->prefix_with_datetime = src->prefix_with_datetime;
    d->copy_detail_to_stdout = src->copy_detail_to_stdout;
    d->copy_summary_to_stdout = src->copy_summary_to_stdout;
    return 0;
}

static PyObject *ls_get_log_mode(LogSettingsObject *s, void *c)
{
    PyObject *m = g_logmode_members[s->log_mode];
    Py_INCREF(m);
    return m;
}

static int ls_set_log_mode(LogSettingsObject *s, PyObject *v, void *c)
{
    if (!v) {
        PyErr_SetString(PyExc_AttributeError, "cannot delete");
        return -1;
    }
    int x = enum_value(g_LoggingMode, v, "LogSettings.log_mode");
    if (x < 0)
        return -1;
    s->log_mode = x;
    return 0;
}

static PyObject *ls_get_poll(LogSettingsObject *s, void *c)
{
    return PyLong_FromUnsignedLongLong(s->log_mode_async_poll_interval_ms);
}

static int ls_set_poll(LogSettingsObject *s, PyObject *v, void *c)
{
    if (!v) {
        PyErr_SetString(PyExc_AttributeError, "cannot delete");
        return -1;
    }
    return to_u64(v, &s->log_mode_async_poll_interval_ms, "LogSettings.log_mode_async_poll_interval_ms");
}

static PyObject *ls_get_trace(LogSettingsObject *s, void *c) { return PyBool_FromLong(s->enable_trace); }

static int ls_set_trace(LogSettingsObject *s, PyObject *v, void *c)
{
    if (!v) {
        PyErr_SetString(PyExc_AttributeError, "cannot delete");
        return -1;
    }
    return to_bool(v, &s->enable_trace, "LogSettings.enable_trace");
}

static PyGetSetDef ls_getset[] = {
    {"log_output", (getter)ls_get_log_output, (setter)ls_set_log_output, NULL, NULL},
    {"log_mode", (getter)ls_get_log_mode, (setter)ls_set_log_mode, NULL, NULL},
    {"log_mode_async_poll_interval_ms", (getter)ls_get_poll, (setter)ls_set_poll, NULL, NULL},
    {"enable_trace", (getter)ls_get_trace, (setter)ls_set_trace, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject LogSettings_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "mlperf_loadgen.LogSettings",
    .tp_basicsize = sizeof(LogSettingsObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "LoadGen log settings (log_output, log_mode, enable_trace).",
    .tp_init = (initproc)LogSettings_init,
    .tp_new = LogSettings_new,
    .tp_dealloc = (destructor)LogSettings_dealloc,
    .tp_traverse = (traverseproc)LogSettings_traverse,
    .tp_getset = ls_getset,
};

/* ---- QuerySample / QuerySampleResponse ------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    uint64_t id;
    uint64_t index;
} QSObject;

typedef struct {
    PyObject_HEAD
    uint64_t id;
    uint64_t data;
    uint64_t size;
    int64_t n_tokens;
} QSRObject;

static PyTypeObject QS_Type, QSR_Type;

static PyObject *u64_get(PyObject *self, void *off)
{
    return PyLong_FromUnsignedLongLong(*(uint64_t *)((char *)self + (size_t)off));
}

static int u64_set(PyObject *self, PyObject *v, void *off)
{
    if (!v) {
        PyErr_SetString(PyExc_AttributeError, "cannot delete");
        return -1;
    }
    if (PyLong_CheckExact(v)) {
        unsigned long long x = PyLong_AsUnsignedLongLong(v);
        if (!(x == (unsigned long long)-1 && PyErr_Occurred())) {
            *(uint64_t *)((char *)self + (size_t)off) = x;
            return 0;
        }
        PyErr_Clear();
    }
    char what[80];
    snprintf(what, sizeof what, "%s attribute", Py_TYPE(self)->tp_name);
    return to_u64(v, (uint64_t *)((char *)self + (size_t)off), what);
}

static PyObject *ntok_get(QSRObject *self, void *c) { return PyLong_FromLongLong(self->n_tokens); }

static int ntok_set(QSRObject *self, PyObject *v, void *c)
{
    if (!v) {
        PyErr_SetString(PyExc_AttributeError, "cannot delete");
        return -1;
    }
    return to_i64(v, &self->n_tokens, "QuerySampleResponse.n_tokens");
}

#define OFF(T, f) ((void *)offsetof(T, f))
static PyGetSetDef qs_getset[] = {
    {"id", u64_get, u64_set, "response id (pass it back unchanged)", OFF(QSObject, id)},
    {"index", u64_get, u64_set, "QSL sample index", OFF(QSObject, index)},
    {NULL, NULL, NULL, NULL, NULL}};
static PyGetSetDef qsr_getset[] = {
    {"id", u64_get, u64_set, "response id of the QuerySample", OFF(QSRObject, id)},
    {"data", u64_get, u64_set, "address of the response bytes (logged in accuracy mode)", OFF(QSRObject, data)},
    {"size", u64_get, u64_set, "number of bytes at data", OFF(QSRObject, size)},
    {"n_tokens", (getter)ntok_get, (setter)ntok_set, "output tokens (token latencies)", NULL},
    {NULL, NULL, NULL, NULL, NULL}};
#undef OFF

/* Parses positional ints into u64 slots (what names the constructor for messages). */
static int parse_u64_args(PyObject *const *args, Py_ssize_t n, uint64_t **slots, const char *const *names,
                          const char *what)
{
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = args[i];
        if (PyLong_CheckExact(v)) {
            unsigned long long x = PyLong_AsUnsignedLongLong(v);
            if (!(x == (unsigned long long)-1 && PyErr_Occurred())) {
                *slots[i] = x;
                continue;
            }
            PyErr_Clear();
        }
        char w[96];
        snprintf(w, sizeof w, "%s(): argument '%s'", what, names[i]);
        if (to_u64(v, slots[i], w))
            return -1;
    }
    return 0;
}

static PyObject *QS_vectorcall(PyObject *type, PyObject *const *args, size_t nargsf, PyObject *kw)
{
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    if ((kw && PyTuple_GET_SIZE(kw)) || (n != 0 && n != 2))
        return PyErr_Format(PyExc_TypeError, "QuerySample() takes 0 or 2 positional arguments (id, index), got %zd", n);
    PyTypeObject *tp = (PyTypeObject *)type;
    QSObject *o = tp == &QS_Type ? PyObject_New(QSObject, &QS_Type) : (QSObject *)tp->tp_alloc(tp, 0);
    if (!o)
        return NULL;
    o->id = o->index = 0;
    static const char *const names[] = {"id", "index"};
    uint64_t *slots[] = {&o->id, &o->index};
    if (parse_u64_args(args, n, slots, names, "QuerySample")) {
        Py_DECREF(o);
        return NULL;
    }
    return (PyObject *)o;
}

static PyObject *QS_new(PyTypeObject *tp, PyObject *args, PyObject *kw)
{
    if (kw && PyDict_GET_SIZE(kw))
        return PyErr_Format(PyExc_TypeError, "QuerySample() takes no keyword arguments");
    return QS_vectorcall((PyObject *)tp, &PyTuple_GET_ITEM(args, 0), (size_t)PyTuple_GET_SIZE(args), NULL);
}

static PyObject *QSR_vectorcall(PyObject *type, PyObject *const *args, size_t nargsf, PyObject *kw)
{
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    if ((kw && PyTuple_GET_SIZE(kw)) || (n != 0 && n != 3 && n != 4))
        return PyErr_Format(PyExc_TypeError,
                            "QuerySampleResponse() takes 0, 3 or 4 positional arguments (id, data, size[, n_tokens]), got %zd", n);
    PyTypeObject *tp = (PyTypeObject *)type;
    QSRObject *o = tp == &QSR_Type ? PyObject_New(QSRObject, &QSR_Type) : (QSRObject *)tp->tp_alloc(tp, 0);
    if (!o)
        return NULL;
    o->id = o->data = o->size = 0;
    o->n_tokens = 0;
    static const char *const names[] = {"id", "data", "size"};
    uint64_t *slots[] = {&o->id, &o->data, &o->size};
    if (parse_u64_args(args, n < 3 ? n : 3, slots, names, "QuerySampleResponse") ||
        (n == 4 && to_i64(args[3], &o->n_tokens, "QuerySampleResponse(): argument 'n_tokens'"))) {
        Py_DECREF(o);
        return NULL;
    }
    return (PyObject *)o;
}

static PyObject *QSR_new(PyTypeObject *tp, PyObject *args, PyObject *kw)
{
    if (kw && PyDict_GET_SIZE(kw))
        return PyErr_Format(PyExc_TypeError, "QuerySampleResponse() takes no keyword arguments");
    return QSR_vectorcall((PyObject *)tp, &PyTuple_GET_ITEM(args, 0), (size_t)PyTuple_GET_SIZE(args), NULL);
}

static PyObject *QS_reduce(QSObject *self, PyObject *unused)
{
    return Py_BuildValue("(O(KK))", Py_TYPE(self), (unsigned long long)self->id,
                         (unsigned long long)self->index);
}

static PyObject *QSR_reduce(QSRObject *self, PyObject *unused)
{
    return Py_BuildValue("(O(KKKL))", Py_TYPE(self), (unsigned long long)self->id,
                         (unsigned long long)self->data, (unsigned long long)self->size,
                         (long long)self->n_tokens);
}

static PyObject *QS_repr(QSObject *self)
{
    return PyUnicode_FromFormat("QuerySample(id=%llu, index=%llu)", (unsigned long long)self->id,
                                (unsigned long long)self->index);
}

static PyObject *QSR_repr(QSRObject *self)
{
    return PyUnicode_FromFormat("QuerySampleResponse(id=%llu, data=%llu, size=%llu, n_tokens=%lld)",
                                (unsigned long long)self->id, (unsigned long long)self->data,
                                (unsigned long long)self->size, (long long)self->n_tokens);
}

static PyMethodDef qs_methods[] = {{"__reduce__", (PyCFunction)QS_reduce, METH_NOARGS, NULL},
                                   {NULL, NULL, 0, NULL}};
static PyMethodDef qsr_methods[] = {{"__reduce__", (PyCFunction)QSR_reduce, METH_NOARGS, NULL},
                                    {NULL, NULL, 0, NULL}};

static PyTypeObject QS_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "mlperf_loadgen.QuerySample",
    .tp_basicsize = sizeof(QSObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "QuerySample(id, index): one sample of an issued query.",
    .tp_new = QS_new,
    .tp_vectorcall = QS_vectorcall,
    .tp_getset = qs_getset,
    .tp_methods = qs_methods,
    .tp_repr = (reprfunc)QS_repr,
};

static PyTypeObject QSR_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "mlperf_loadgen.QuerySampleResponse",
    .tp_basicsize = sizeof(QSRObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "QuerySampleResponse(id, data, size[, n_tokens]): the SUT's answer to one sample.",
    .tp_new = QSR_new,
    .tp_vectorcall = QSR_vectorcall,
    .tp_getset = qsr_getset,
    .tp_methods = qsr_methods,
    .tp_repr = (reprfunc)QSR_repr,
};

/* ---- SUT / QSL / QDL handles --------------------------------------------------------------- */

enum { H_SUT, H_FASTSUT, H_QDL, H_QSL };
static const char *const h_names[] = {"SUT", "FastSUT", "QDL", "QSL"};

struct pyrun;

typedef struct pyobj {
    int kind;
    int in_use;
    PyObject *cb1, *cb2, *cb3;          /* SUT: issue, flush, name (QDL) or report_latency_results
                                           (a SUT of python_report_latencies); QSL: load, unload */
    lg_sut sut;
    lg_qsl qsl;
    char name[256];
    struct pyrun *run;                  /* the test using it */
} pyobj;

static void pyobj_free(PyObject *cap)
{
    pyobj *p = PyCapsule_GetPointer(cap, "mlperf_loadgen.handle");
    if (!p)
        return;
    Py_XDECREF(p->cb1);
    Py_XDECREF(p->cb2);
    Py_XDECREF(p->cb3);
    free(p);
}

static PyObject *handle_register(pyobj *p)
{
    PyObject *cap = PyCapsule_New(p, "mlperf_loadgen.handle", pyobj_free);
    if (!cap) {
        free(p);
        return NULL;
    }
    PyObject *h = PyLong_FromVoidPtr(p);
    if (!h || PyDict_SetItem(g_registry, h, cap) != 0) {
        Py_XDECREF(h);
        Py_DECREF(cap);
        return NULL;
    }
    Py_DECREF(cap);
    return h;
}

/* The object of handle h, or NULL with TypeError/ValueError naming the argument. */
static pyobj *handle_lookup(PyObject *h, const char *fn, const char *arg, int want_qsl)
{
    if (!PyLong_Check(h)) {
        PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be an int handle from %s, not %s", fn, arg,
                     want_qsl ? "ConstructQSL" : "ConstructSUT/ConstructFastSUT/ConstructQDL",
                     Py_TYPE(h)->tp_name);
        return NULL;
    }
    PyObject *cap = PyDict_GetItemWithError(g_registry, h);
    pyobj *p = cap ? PyCapsule_GetPointer(cap, "mlperf_loadgen.handle") : NULL;
    if (!p || (want_qsl ? p->kind != H_QSL : p->kind == H_QSL)) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_ValueError, "%s(): argument '%s' (%R) is not a live handle from %s%s%s", fn, arg, h,
                         want_qsl ? "ConstructQSL" : "ConstructSUT/ConstructFastSUT/ConstructQDL",
                         p ? "; it is a handle of a " : "", p ? h_names[p->kind] : "");
        return NULL;
    }
    return p;
}

static int check_callable(PyObject *f, const char *fn, int pos, const char *what, int allow_none)
{
    if (allow_none && f == Py_None)
        return 0;
    if (!PyCallable_Check(f)) {
        PyErr_Format(PyExc_TypeError, "%s(): argument %d (%s) must be callable, not %s", fn, pos, what,
                     Py_TYPE(f)->tp_name);
        return -1;
    }
    return 0;
}

static void sut_issue(void *ctx, lg_test *test, const lg_query_sample *s, size_t n);
static void sut_flush(void *ctx);
static const char *sut_name(void *ctx);
static int qsl_load(void *ctx, const lg_sample_index *idx, size_t n);
static int qsl_unload(void *ctx, const lg_sample_index *idx, size_t n);
static const char *qsl_name(void *ctx) { return "PyQSL"; }

/* ConstructSUT / ConstructFastSUT take (issue_query, flush_queries), and in the releases whose
 * rules row has python_report_latencies a third callback, report_latency_results(latencies_ns)
 * (bindings/python_api.cc up to tag v2.0); ConstructQDL takes (issue_query, flush_queries, name). */
static PyObject *construct_sut(PyObject *args, int kind, const char *fn)
{
    int report = kind != H_QDL && lg_version_rules_of_compat(g_compat)->python_report_latencies;
    Py_ssize_t want = kind == H_QDL || report ? 3 : 2;
    if (!PyTuple_Check(args) || PyTuple_GET_SIZE(args) != want)
        return PyErr_Format(PyExc_TypeError, "%s() takes %zd arguments (%s), got %zd", fn, want,
                            kind == H_QDL ? "issue_query, flush_queries, name"
                            : report      ? "issue_query, flush_queries, report_latency_results"
                                          : "issue_query, flush_queries",
                            PyTuple_GET_SIZE(args));
    PyObject *a = PyTuple_GET_ITEM(args, 0), *b = PyTuple_GET_ITEM(args, 1);
    PyObject *c = want == 3 ? PyTuple_GET_ITEM(args, 2) : NULL;
    if (check_callable(a, fn, 1, "issue_query", 0) || check_callable(b, fn, 2, "flush_queries", 1) ||
        (c && check_callable(c, fn, 3, report ? "report_latency_results" : "name", report)))
        return NULL;
    pyobj *p = calloc(1, sizeof *p);
    if (!p)
        return PyErr_NoMemory();
    p->kind = kind;
    Py_INCREF(a);
    Py_INCREF(b);
    Py_XINCREF(c);
    p->cb1 = a;
    p->cb2 = b;
    p->cb3 = c;
    p->sut.ctx = p;
    p->sut.name = sut_name;
    p->sut.issue_query = sut_issue;
    p->sut.flush_queries = sut_flush;
    snprintf(p->name, sizeof p->name, "%s", kind == H_SUT ? "PySUT" : kind == H_FASTSUT ? "PyFastSUT" : "PyQDL");
    return handle_register(p);
}

static PyObject *destroy(PyObject *h, int kind, const char *fn)
{
    pyobj *p = handle_lookup(h, fn, "arg0", kind == H_QSL);
    if (!p)
        return NULL;
    if (p->in_use)
        return PyErr_Format(PyExc_RuntimeError, "%s(): the %s is used by the running test", fn, h_names[p->kind]);
    if (PyDict_DelItem(g_registry, h) != 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *py_ConstructSUT(PyObject *m, PyObject *args) { return construct_sut(args, H_SUT, "ConstructSUT"); }
static PyObject *py_ConstructFastSUT(PyObject *m, PyObject *args) { return construct_sut(args, H_FASTSUT, "ConstructFastSUT"); }
static PyObject *py_ConstructQDL(PyObject *m, PyObject *args) { return construct_sut(args, H_QDL, "ConstructQDL"); }
static PyObject *py_DestroySUT(PyObject *m, PyObject *h) { return destroy(h, H_SUT, "DestroySUT"); }
static PyObject *py_DestroyFastSUT(PyObject *m, PyObject *h) { return destroy(h, H_FASTSUT, "DestroyFastSUT"); }
static PyObject *py_DestroyQDL(PyObject *m, PyObject *h) { return destroy(h, H_QDL, "DestroyQDL"); }
static PyObject *py_DestroyQSL(PyObject *m, PyObject *h) { return destroy(h, H_QSL, "DestroyQSL"); }

static PyObject *py_ConstructQSL(PyObject *m, PyObject *args)
{
    const char *fn = "ConstructQSL";
    if (PyTuple_GET_SIZE(args) != 4)
        return PyErr_Format(PyExc_TypeError,
                            "ConstructQSL() takes 4 arguments (total_sample_count, performance_sample_count, "
                            "load_samples_to_ram, unload_samples_from_ram), got %zd", PyTuple_GET_SIZE(args));
    uint64_t total, perf;
    if (to_u64(PyTuple_GET_ITEM(args, 0), &total, "ConstructQSL(): argument 1 (total_sample_count)") ||
        to_u64(PyTuple_GET_ITEM(args, 1), &perf, "ConstructQSL(): argument 2 (performance_sample_count)"))
        return NULL;
    PyObject *a = PyTuple_GET_ITEM(args, 2), *b = PyTuple_GET_ITEM(args, 3);
    if (check_callable(a, fn, 3, "load_samples_to_ram", 1) || check_callable(b, fn, 4, "unload_samples_from_ram", 1))
        return NULL;
    pyobj *p = calloc(1, sizeof *p);
    if (!p)
        return PyErr_NoMemory();
    p->kind = H_QSL;
    Py_INCREF(a);
    Py_INCREF(b);
    p->cb1 = a;
    p->cb2 = b;
    p->qsl.ctx = p;
    p->qsl.name = qsl_name;
    p->qsl.total_sample_count = (size_t)total;
    p->qsl.performance_sample_count = (size_t)perf;
    p->qsl.load_samples = qsl_load;
    p->qsl.unload_samples = qsl_unload;
    return handle_register(p);
}

/* ---- a running test ------------------------------------------------------------------------- */

enum { MAXLOG = 8 };

typedef struct pyrun {
    _Atomic int cancel;
    int failed;                         /* a callback raised: stop calling Python */
    PyObject *exc;                      /* the exception that stopped the test (owned) */
    char reason[300];                   /* for the incomplete logs */
    pyobj *sut, *qsl;
    lg_test_settings ts;
    lg_log_settings ls;
    lg_run_options ro;
    lg_run_result res;
    ms_err e;
    int rc;
    int nlogs;
    int log_fd[MAXLOG];
    char *log_path[MAXLOG];
    char *outdir, *prefix, *suffix, *audit;
    int test_seen;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int done;
} pyrun;

/* Called with the GIL held: the current Python exception stops the test. */
static void run_fail(pyrun *r, const char *where)
{
    PyObject *exc = exc_take();
    if (!exc)
        return;
    if (!r->exc) {
        /* print the traceback now, like an unhandled exception in a thread */
        PyObject *tb = PyException_GetTraceback(exc);
        PyErr_Display((PyObject *)Py_TYPE(exc), exc, tb);
        Py_XDECREF(tb);
        PyObject *s = PyObject_Str(exc);
        const char *msg = s ? PyUnicode_AsUTF8(s) : NULL;
        if (!msg)
            PyErr_Clear();
        snprintf(r->reason, sizeof r->reason, "the SUT's %s callback raised %s%s%s", where,
                 Py_TYPE(exc)->tp_name, msg && *msg ? ": " : "", msg ? msg : "");
        Py_XDECREF(s);
        r->exc = exc;
    } else {
        Py_DECREF(exc);
    }
    r->failed = 1;
    atomic_store(&r->cancel, 1);
}

/* the LoadGen's console output: the process's stdout, as the reference LoadGen's std::cout */
static void console_write(void *ctx, const char *text, size_t len)
{
    (void)ctx;
    fwrite(text, 1, len, stdout);
}

static void on_log_file(void *ctx, int fd, const char *final_path)
{
    pyrun *r = ctx;
    if (r->nlogs >= MAXLOG)
        return;
    int d = dup(fd);
    if (d < 0)
        return;
    char *p = strdup(final_path);
    if (!p) {
        close(d);
        return;
    }
    r->log_fd[r->nlogs] = d;
    r->log_path[r->nlogs] = p;
    r->nlogs++;
}

static PyObject *index_list(const lg_sample_index *idx, size_t n)
{
    PyObject *l = PyList_New((Py_ssize_t)n);
    if (!l)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        PyObject *v = PyLong_FromSize_t(idx[i]);
        if (!v) {
            Py_DECREF(l);
            return NULL;
        }
        PyList_SET_ITEM(l, (Py_ssize_t)i, v);
    }
    return l;
}

static void sut_issue(void *ctx, lg_test *test, const lg_query_sample *s, size_t n)
{
    pyobj *p = ctx;
    pyrun *r = p->run;
    if (!r->test_seen) {
        atomic_store(&g_test, test);
        r->test_seen = 1;
    }
    PyGILState_STATE g = PyGILState_Ensure();
    if (r->failed) {
        PyGILState_Release(g);
        return;
    }
    PyObject *res = NULL;
    if (p->kind == H_FASTSUT) {
        PyObject *ids = PyList_New((Py_ssize_t)n), *ix = PyList_New((Py_ssize_t)n);
        if (ids && ix) {
            size_t i;
            for (i = 0; i < n; i++) {
                PyObject *a = PyLong_FromUnsignedLongLong(s[i].id), *b = PyLong_FromSize_t(s[i].index);
                if (!a || !b) {
                    Py_XDECREF(a);
                    Py_XDECREF(b);
                    break;
                }
                PyList_SET_ITEM(ids, (Py_ssize_t)i, a);
                PyList_SET_ITEM(ix, (Py_ssize_t)i, b);
            }
            if (i == n)
                res = PyObject_CallFunctionObjArgs(p->cb1, ids, ix, NULL);
        }
        Py_XDECREF(ids);
        Py_XDECREF(ix);
    } else {
        PyObject *l = PyList_New((Py_ssize_t)n);
        if (l) {
            size_t i;
            for (i = 0; i < n; i++) {
                QSObject *o = PyObject_New(QSObject, &QS_Type);
                if (!o)
                    break;
                o->id = s[i].id;
                o->index = s[i].index;
                PyList_SET_ITEM(l, (Py_ssize_t)i, (PyObject *)o);
            }
            if (i == n)
                res = PyObject_CallOneArg(p->cb1, l);
            Py_DECREF(l);
        }
    }
    if (!res)
        run_fail(r, "issue_query");
    Py_XDECREF(res);
    PyGILState_Release(g);
}

/* lg_run_options.report_latencies: the SUT's report_latency_results(list of ns). */
static void sut_report(void *ctx, const int64_t *lat, size_t n)
{
    pyobj *p = ctx;
    pyrun *r = p->run;
    if (!p->cb3 || p->cb3 == Py_None)
        return;
    PyGILState_STATE g = PyGILState_Ensure();
    if (!r->failed) {
        PyObject *l = PyList_New((Py_ssize_t)n);
        for (size_t i = 0; l && i < n; i++) {
            PyObject *v = PyLong_FromLongLong(lat[i]);
            if (!v)
                Py_CLEAR(l);
            else
                PyList_SET_ITEM(l, (Py_ssize_t)i, v);
        }
        PyObject *res = l ? PyObject_CallOneArg(p->cb3, l) : NULL;
        Py_XDECREF(l);
        if (!res)
            run_fail(r, "report_latency_results");
        Py_XDECREF(res);
    }
    PyGILState_Release(g);
}

static void sut_flush(void *ctx)
{
    pyobj *p = ctx;
    pyrun *r = p->run;
    if (p->cb2 == Py_None)
        return;
    PyGILState_STATE g = PyGILState_Ensure();
    if (!r->failed) {
        PyObject *res = PyObject_CallNoArgs(p->cb2);
        if (!res)
            run_fail(r, "flush_queries");
        Py_XDECREF(res);
    }
    PyGILState_Release(g);
}

static const char *sut_name(void *ctx)
{
    pyobj *p = ctx;
    if (p->kind != H_QDL)
        return p->name;
    /* the QDL's name comes from its name callback (QueryDispatchLibraryTrampoline::Name) */
    PyGILState_STATE g = PyGILState_Ensure();
    PyObject *res = PyObject_CallNoArgs(p->cb3);
    if (res && !PyUnicode_Check(res)) {
        PyErr_Format(PyExc_TypeError, "the QDL's name callback must return str, not %s", Py_TYPE(res)->tp_name);
        Py_CLEAR(res);
    }
    const char *s = res ? PyUnicode_AsUTF8(res) : NULL;
    if (s)
        snprintf(p->name, sizeof p->name, "%s", s);
    else
        run_fail(p->run, "name");
    Py_XDECREF(res);
    PyGILState_Release(g);
    return p->name;
}

static int qsl_call(pyobj *p, PyObject *cb, const lg_sample_index *idx, size_t n, const char *what)
{
    if (cb == Py_None)
        return 0;
    pyrun *r = p->run;
    PyGILState_STATE g = PyGILState_Ensure();
    int rc = 0;
    if (r->failed) {
        rc = -1;
    } else {
        PyObject *l = index_list(idx, n);
        PyObject *res = l ? PyObject_CallOneArg(cb, l) : NULL;
        Py_XDECREF(l);
        if (!res) {
            run_fail(r, what);
            rc = -1;
        }
        Py_XDECREF(res);
    }
    PyGILState_Release(g);
    return rc;
}

static int qsl_load(void *ctx, const lg_sample_index *idx, size_t n)
{
    pyobj *p = ctx;
    return qsl_call(p, p->cb1, idx, n, "load_samples_to_ram");
}

static int qsl_unload(void *ctx, const lg_sample_index *idx, size_t n)
{
    pyobj *p = ctx;
    return qsl_call(p, p->cb2, idx, n, "unload_samples_from_ram");
}

static void *loadgen_thread(void *arg)
{
    pyrun *r = arg;
    /* a thread state for the whole test: the callbacks' PyGILState_Ensure then only takes the
     * GIL instead of creating and destroying a thread state per call */
    PyGILState_STATE gs = PyGILState_Ensure();
    PyThreadState *ts = PyEval_SaveThread();
    FILE *dump = NULL;
    if (g_dump_issued) {
        dump = fopen(g_dump_issued, "w");
        r->ro.dump_issued = dump;
    }
    r->rc = lg_start_test(&r->sut->sut, &r->qsl->qsl, &r->ts, &r->ls, &r->ro, &r->res, &r->e);
    if (dump)
        fclose(dump);
    if (r->res.canceled) {
        /* the logs stay unnamed: finish them as the CLI's supervisor does */
        for (int i = 0; i < r->nlogs; i++) {
            struct stat st;
            if (fstat(r->log_fd[i], &st) != 0 || st.st_nlink != 0)
                continue;
            ms_err e;
            (void)lg_logs_finish_incomplete(r->log_fd[i], r->log_path[i],
                                            r->reason[0] ? r->reason : "the test was stopped", &e);
        }
    }
    PyEval_RestoreThread(ts);
    PyGILState_Release(gs);
    pthread_mutex_lock(&r->mu);
    r->done = 1;
    pthread_cond_signal(&r->cv);
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

static void run_free(pyrun *r)
{
    for (int i = 0; i < r->nlogs; i++) {
        close(r->log_fd[i]);
        free(r->log_path[i]);
    }
    free(r->outdir);
    free(r->prefix);
    free(r->suffix);
    free(r->audit);
    Py_XDECREF(r->exc);
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->cv);
    free(r);
}

static PyObject *start_test(PyObject *sut_h, PyObject *qsl_h, PyObject *tso, PyObject *lso, PyObject *audit,
                            const char *fn)
{
    pyobj *sut = handle_lookup(sut_h, fn, "sut", 0);
    if (!sut)
        return NULL;
    pyobj *qsl = handle_lookup(qsl_h, fn, "qsl", 1);
    if (!qsl)
        return NULL;
    if (!PyObject_TypeCheck(tso, &TestSettings_Type))
        return PyErr_Format(PyExc_TypeError, "%s(): argument 'test_settings' must be mlperf_loadgen.TestSettings, not %s",
                            fn, Py_TYPE(tso)->tp_name);
    if (lso && !PyObject_TypeCheck(lso, &LogSettings_Type))
        return PyErr_Format(PyExc_TypeError, "%s(): argument 'log_settings' must be mlperf_loadgen.LogSettings, not %s",
                            fn, Py_TYPE(lso)->tp_name);
    if (audit && !PyUnicode_Check(audit))
        return PyErr_Format(PyExc_TypeError, "%s(): argument 'audit_config_filename' must be str, not %s", fn,
                            Py_TYPE(audit)->tp_name);
    if (atomic_exchange(&g_running, 1))
        return PyErr_Format(PyExc_RuntimeError, "%s(): a test is already running in this process", fn);
    pyrun *r = calloc(1, sizeof *r);
    if (!r) {
        atomic_store(&g_running, 0);
        return PyErr_NoMemory();
    }
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->cv, NULL);
    r->sut = sut;
    r->qsl = qsl;
    r->ts = ((TestSettingsObject *)tso)->s;
    lg_log_settings_default(&r->ls);
    if (lso) {
        LogSettingsObject *l = (LogSettingsObject *)lso;
        r->outdir = strdup(l->log_output->outdir);
        r->prefix = strdup(l->log_output->prefix);
        r->suffix = strdup(l->log_output->suffix);
        r->ls.prefix_with_datetime = l->log_output->prefix_with_datetime;
        r->ls.copy_detail_to_stdout = l->log_output->copy_detail_to_stdout;
        r->ls.copy_summary_to_stdout = l->log_output->copy_summary_to_stdout;
        r->ls.enable_trace = l->enable_trace;
        if (!r->outdir || !r->prefix || !r->suffix) {
            run_free(r);
            atomic_store(&g_running, 0);
            return PyErr_NoMemory();
        }
        r->ls.outdir = r->outdir;
        r->ls.prefix = r->prefix;
        r->ls.suffix = r->suffix;
    }
    const char *ac = audit ? PyUnicode_AsUTF8(audit) : "audit.config";
    if (!ac || !(r->audit = strdup(ac))) {
        run_free(r);
        atomic_store(&g_running, 0);
        return ac ? PyErr_NoMemory() : NULL;
    }
    lg_run_options_default(&r->ro);
    r->ro.compat = g_compat;
    r->ro.conf = g_conf;
    r->ro.audit_config_path = r->audit;
    r->ro.on_log_file = on_log_file;
    r->ro.on_log_file_ctx = r;
    r->ro.console = console_write;
    r->ro.cancel = &r->cancel;
    r->ro.keep_test = 1;
    if (sut->kind != H_QDL && sut->cb3) {
        r->ro.report_latencies = sut_report;
        r->ro.report_latencies_ctx = sut;
    }
    sut->run = qsl->run = r;
    sut->in_use = qsl->in_use = 1;
    fflush(stdout);
    PyObject *pyout = PySys_GetObject("stdout"); /* borrowed */
    if (pyout) {
        PyObject *x = PyObject_CallMethod(pyout, "flush", NULL);
        Py_XDECREF(x);
        PyErr_Clear();
    }

    pthread_t th;
    int perr;
    Py_BEGIN_ALLOW_THREADS
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 8u << 20);
    perr = pthread_create(&th, &attr, loadgen_thread, r);
    pthread_attr_destroy(&attr);
    if (perr == 0) {
        pthread_mutex_lock(&r->mu);
        while (!r->done) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += 50000000;
            if (ts.tv_nsec >= 1000000000) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000;
            }
            pthread_cond_timedwait(&r->cv, &r->mu, &ts);
            if (r->done)
                break;
            pthread_mutex_unlock(&r->mu);
            /* Python runs signal handlers on the main thread only: give Ctrl-C its chance */
            Py_BLOCK_THREADS
            if (PyErr_CheckSignals() != 0) {
                PyObject *exc = exc_take();
                if (!r->exc) {
                    r->exc = exc;
                    snprintf(r->reason, sizeof r->reason, "interrupted (%s)", Py_TYPE(exc)->tp_name);
                } else {
                    Py_DECREF(exc);
                }
                r->failed = 1;
                atomic_store(&r->cancel, 1);
            }
            Py_UNBLOCK_THREADS
            pthread_mutex_lock(&r->mu);
        }
        pthread_mutex_unlock(&r->mu);
        pthread_join(th, NULL);
    }
    Py_END_ALLOW_THREADS

    /* late completion calls are dropped from here on; free the test once none is inside */
    atomic_store(&g_test, NULL);
    while (atomic_load(&g_inflight) != 0)
        sched_yield();
    if (r->res.abandoned)
        lg_test_free(r->res.abandoned);
    /* FromConfig's errors went into this test's detail log: the next test does not repeat them */
    if (r->ro.conf == g_conf)
        lg_conf_session_clear_log_errors(g_conf);
    sut->run = qsl->run = NULL;
    sut->in_use = qsl->in_use = 0;
    atomic_store(&g_running, 0);
    PyObject *ret = NULL;
    if (perr != 0) {
        PyErr_Format(PyExc_RuntimeError, "%s(): cannot start the LoadGen thread: %s", fn, strerror(perr));
    } else if (r->exc) {
        if (PyErr_GivenExceptionMatches(r->exc, PyExc_KeyboardInterrupt)) {
            exc_restore(r->exc);
        } else {
            PyErr_Format(PyExc_RuntimeError, "%s(): %s; the test was stopped and its logs are marked incomplete",
                         fn, r->reason);
            PyObject *rt = exc_take();
            PyException_SetCause(rt, Py_NewRef(r->exc));
            PyException_SetContext(rt, r->exc);
            exc_restore(rt);
        }
        r->exc = NULL;
    } else if (r->rc != MS_OK && !r->res.timed_out) {
        PyErr_Format(PyExc_RuntimeError, "%s(): %s", fn, r->e.msg);
    } else {
        ret = Py_NewRef(Py_None);
    }
    run_free(r);
    fflush(stdout);
    return ret;
}

static PyObject *py_StartTest(PyObject *m, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"sut", "qsl", "test_settings", "audit_config_filename", NULL};
    PyObject *a, *b, *c, *d = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOO|O:StartTest", kwlist, &a, &b, &c, &d))
        return NULL;
    return start_test(a, b, c, NULL, d, "StartTest");
}

static PyObject *py_StartTestWithLogSettings(PyObject *m, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"sut", "qsl", "test_settings", "log_settings", "audit_config_filename", NULL};
    PyObject *a, *b, *c, *l, *d = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOO|O:StartTestWithLogSettings", kwlist, &a, &b, &c, &l, &d))
        return NULL;
    return start_test(a, b, c, l, d, "StartTestWithLogSettings");
}

/* ---- completions ----------------------------------------------------------------------------- */

typedef struct cbctx {
    PyObject *cb;           /* Python response_cb or Py_None */
    PyObject **items;
    lg_response *base;
    int failed;             /* the Python callback raised */
    Py_ssize_t bad;         /* first response whose payload is not readable memory, or -1 */
    uint64_t bad_data, bad_size;
} cbctx;

/* Whether [data, data+size) is mapped memory (mincore fails with ENOMEM on unmapped pages):
 * the LoadGen copies logged payloads, and a harness's wrong address must not crash it. */
static int payload_readable(uintptr_t data, size_t size)
{
    if (size == 0)
        return 1;
    if (data == 0 || data + size < data)
        return 0;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = data & ~(page - 1), hi = data + size;
    unsigned char vec[64];
    while (lo < hi) {
        size_t len = (size_t)(hi - lo);
        if (len > 64 * page)
            len = 64 * page;
        if (mincore((void *)lo, len, vec) != 0)
            return 0;
        lo += len;
    }
    return 1;
}

static void check_payload(cbctx *c, Py_ssize_t i, lg_response *resp)
{
    if (payload_readable(resp->data, resp->size))
        return;
    if (c->bad < 0) {
        c->bad = i;
        c->bad_data = resp->data;
        c->bad_size = resp->size;
    }
    resp->data = 0; /* logged as an empty payload */
    resp->size = 0;
}

/* Called by the LoadGen for every response whose payload it is about to log. */
static void response_cb(void *ctx, lg_response *resp)
{
    cbctx *c = ctx;
    Py_ssize_t i = resp - c->base;
    if (c->cb != Py_None && !c->failed) {
        /* the GIL is held (completions with a Python callback never release it) */
        QSRObject *o = (QSRObject *)c->items[i];
        PyObject *res = PyObject_CallOneArg(c->cb, (PyObject *)o);
        if (!res) {
            c->failed = 1;
        } else {
            Py_DECREF(res);
            /* the callback may fill in the payload (the reference passes it the response) */
            resp->data = (uintptr_t)o->data;
            resp->size = (size_t)o->size;
            resp->n_tokens = o->n_tokens;
        }
    }
    check_payload(c, i, resp);
}

static PyObject *complete(PyObject *args, PyObject *kw, int first_token, const char *fn)
{
    PyObject *resps, *cb = Py_None;
    Py_ssize_t na = PyTuple_GET_SIZE(args);
    if (!kw && (na == 1 || na == 2)) {
        resps = PyTuple_GET_ITEM(args, 0);
        if (na == 2)
            cb = PyTuple_GET_ITEM(args, 1);
    } else {
        static char *kwlist[] = {"responses", "response_cb", NULL};
        char fmt[64];
        snprintf(fmt, sizeof fmt, "O|O:%s", fn);
        if (!PyArg_ParseTupleAndKeywords(args, kw, fmt, kwlist, &resps, &cb))
            return NULL;
    }
    if (cb != Py_None && !PyCallable_Check(cb))
        return PyErr_Format(PyExc_TypeError, "%s(): argument 'response_cb' must be callable or None, not %s", fn,
                            Py_TYPE(cb)->tp_name);
    if (!PyList_Check(resps) && !PyTuple_Check(resps))
        return PyErr_Format(PyExc_TypeError, "%s(): argument 'responses' must be a list of QuerySampleResponse, not %s",
                            fn, Py_TYPE(resps)->tp_name);
    Py_ssize_t n = PySequence_Fast_GET_SIZE(resps);
    PyObject **items = PySequence_Fast_ITEMS(resps);
    lg_response stack[32];
    lg_response *rs = n <= 32 ? stack : malloc((size_t)n * sizeof *rs);
    if (!rs)
        return PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *it = items[i];
        if (!Py_IS_TYPE(it, &QSR_Type) && !PyObject_TypeCheck(it, &QSR_Type)) {
            if (rs != stack)
                free(rs);
            return PyErr_Format(PyExc_TypeError,
                                "%s(): argument 'responses' must be a list of QuerySampleResponse; item %zd is %s", fn,
                                i, Py_TYPE(it)->tp_name);
        }
        QSRObject *o = (QSRObject *)it;
        rs[i].id = (lg_response_id)o->id;
        rs[i].data = (uintptr_t)o->data;
        rs[i].size = (size_t)o->size;
        rs[i].n_tokens = o->n_tokens;
    }
    cbctx c = {cb, items, rs, 0, -1, 0, 0};
    if (first_token) /* the LoadGen copies logged first tokens without a callback: check all */
        for (Py_ssize_t i = 0; i < n; i++)
            check_payload(&c, i, &rs[i]);
    /* keep the items alive if another thread mutates the list while the GIL is released */
    PyObject *keep = NULL;
    int release = n >= 256 && cb == Py_None;
    if (release && PyList_Check(resps) && !(keep = PyList_AsTuple(resps))) {
        if (rs != stack)
            free(rs);
        return NULL;
    }
    if (release) {
        /* inflight drops before the GIL is taken back: StartTest waits for it holding the GIL */
        Py_BEGIN_ALLOW_THREADS
        atomic_fetch_add(&g_inflight, 1);
        lg_test *t = atomic_load(&g_test);
        if (t && first_token)
            lg_first_token_complete(t, rs, (size_t)n);
        else if (t)
            lg_query_samples_complete_cb(t, rs, (size_t)n, response_cb, &c);
        atomic_fetch_sub(&g_inflight, 1);
        Py_END_ALLOW_THREADS
    } else {
        atomic_fetch_add(&g_inflight, 1);
        lg_test *t = atomic_load(&g_test);
        if (t && n) {
            if (first_token)
                lg_first_token_complete(t, rs, (size_t)n);
            else
                lg_query_samples_complete_cb(t, rs, (size_t)n, response_cb, &c);
        }
        atomic_fetch_sub(&g_inflight, 1);
    }
    Py_XDECREF(keep);
    if (rs != stack)
        free(rs);
    if (c.failed)
        return NULL;
    if (c.bad >= 0)
        return PyErr_Format(PyExc_ValueError,
                            "%s(): responses[%zd]: data=0x%llx size=%llu is not readable memory (the response "
                            "was completed with an empty payload)",
                            fn, c.bad, (unsigned long long)c.bad_data, (unsigned long long)c.bad_size);
    Py_RETURN_NONE;
}

static PyObject *py_QuerySamplesComplete(PyObject *m, PyObject *args, PyObject *kw)
{
    return complete(args, kw, 0, "QuerySamplesComplete");
}

static PyObject *py_FirstTokenComplete(PyObject *m, PyObject *args, PyObject *kw)
{
    return complete(args, kw, 1, "FirstTokenComplete");
}

/* ---- extras ---------------------------------------------------------------------------------- */

static PyObject *py_SetLoadgenCompat(PyObject *m, PyObject *v)
{
    if (!PyUnicode_Check(v))
        return PyErr_Format(PyExc_TypeError, "SetLoadgenCompat(): argument 'version' must be str, not %s",
                            Py_TYPE(v)->tp_name);
    int c = lg_compat_parse(PyUnicode_AsUTF8(v));
    if (c < 0)
    {
        char names[256];
        return PyErr_Format(PyExc_ValueError, "SetLoadgenCompat(): expected one of %s, got %R",
                            lg_compat_names(names, sizeof names), v);
    }
    if ((lg_compat)c != g_compat) {
        g_compat = (lg_compat)c;
        lg_conf_session_free(g_conf); /* its embedded mlperf.conf is the old version's */
        g_conf = NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *py_SetDumpIssued(PyObject *m, PyObject *v)
{
    if (v != Py_None && !PyUnicode_Check(v))
        return PyErr_Format(PyExc_TypeError, "SetDumpIssued(): argument 'path' must be str or None, not %s",
                            Py_TYPE(v)->tp_name);
    char *p = NULL;
    if (v != Py_None && to_str(v, &p, "SetDumpIssued(): argument 'path'"))
        return NULL;
    free(g_dump_issued);
    g_dump_issued = p;
    Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"ConstructSUT", py_ConstructSUT, METH_VARARGS, "ConstructSUT(issue_query, flush_queries) -> handle"},
    {"DestroySUT", py_DestroySUT, METH_O, "DestroySUT(handle)"},
    {"ConstructFastSUT", py_ConstructFastSUT, METH_VARARGS,
     "ConstructFastSUT(fast_issue_query(ids, indices), flush_queries) -> handle"},
    {"DestroyFastSUT", py_DestroyFastSUT, METH_O, "DestroyFastSUT(handle)"},
    {"ConstructQSL", py_ConstructQSL, METH_VARARGS,
     "ConstructQSL(total_sample_count, performance_sample_count, load_samples_to_ram, "
     "unload_samples_from_ram) -> handle"},
    {"DestroyQSL", py_DestroyQSL, METH_O, "DestroyQSL(handle)"},
    {"ConstructQDL", py_ConstructQDL, METH_VARARGS,
     "ConstructQDL(issue_query, flush_queries, name) -> handle (a SUT whose name comes from name())"},
    {"DestroyQDL", py_DestroyQDL, METH_O, "DestroyQDL(handle)"},
    {"StartTest", (PyCFunction)(void (*)(void))py_StartTest, METH_VARARGS | METH_KEYWORDS,
     "StartTest(sut, qsl, test_settings, audit_config_filename='audit.config')"},
    {"StartTestWithLogSettings", (PyCFunction)(void (*)(void))py_StartTestWithLogSettings,
     METH_VARARGS | METH_KEYWORDS,
     "StartTestWithLogSettings(sut, qsl, test_settings, log_settings, audit_config_filename='audit.config')"},
    {"QuerySamplesComplete", (PyCFunction)(void (*)(void))py_QuerySamplesComplete, METH_VARARGS | METH_KEYWORDS,
     "QuerySamplesComplete(responses, response_cb=None): any thread, also inside issue_query"},
    {"FirstTokenComplete", (PyCFunction)(void (*)(void))py_FirstTokenComplete, METH_VARARGS | METH_KEYWORDS,
     "FirstTokenComplete(responses, response_cb=None)"},
    {"SetLoadgenCompat", py_SetLoadgenCompat, METH_O,
     "mlsubmit extra: SetLoadgenCompat(version), the LoadGen release emulated (a version of "
     "rules/loadgen.json; default: the row marked python_default), like `mlsubmit loadgen run "
     "--loadgen-compat`"},
    {"SetDumpIssued", py_SetDumpIssued, METH_O,
     "mlsubmit extra: SetDumpIssued(path or None): write the issued-query trace of the following "
     "tests (`mlsubmit loadgen run --dump-issued`)"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "mlperf_loadgen",
    "MLPerf Inference load generator (mlsubmit's C LoadGen behind the API of the MLCommons "
    "LoadGen Python bindings).",
    -1, module_methods, NULL, NULL, NULL, NULL};

static int add_type(PyObject *m, PyTypeObject *t, const char *name)
{
    if (PyType_Ready(t) < 0)
        return -1;
    Py_INCREF(t);
    if (PyModule_AddObject(m, name, (PyObject *)t) < 0) {
        Py_DECREF(t);
        return -1;
    }
    return 0;
}

/* out[i] = cls(i), or with skip2 cls(i < 2 ? i : i + 1) (the MultiStreamFree scenario enum). */
static int cache_members(PyObject *cls, PyObject **out, int n, int skip2)
{
    for (int i = 0; i < n; i++) {
        PyObject *v = PyLong_FromLong(skip2 && i >= 2 ? i + 1 : i);
        out[i] = v ? PyObject_CallOneArg(cls, v) : NULL;
        Py_XDECREF(v);
        if (!out[i])
            return -1;
    }
    return 0;
}

/* The release of the row of rules/loadgen.json marked python_default (the newest released
 * bindings), or the newest row. */
static lg_compat python_default_compat(void)
{
    for (size_t i = 0; i < lg_version_rules_count(); i++)
        if (lg_version_rules_at(i)->python_default)
            return lg_version_rules_compat(lg_version_rules_at(i));
    return LG_COMPAT_LATEST;
}

PyMODINIT_FUNC PyInit_mlperf_loadgen(void)
{
    for (size_t i = 0; i < NFIELDS; i++) {
        ts_getset[i].name = ts_fields[i].name;
        ts_getset[i].get = (getter)ts_get;
        ts_getset[i].set = (setter)ts_set;
        ts_getset[i].closure = (void *)&ts_fields[i];
    }
    TestSettings_Type.tp_getset = ts_getset;
    PyObject *m = PyModule_Create(&moduledef);
    if (!m)
        return NULL;
    g_compat = python_default_compat();
    const char *c = getenv("MLSUBMIT_LOADGEN_COMPAT");
    if (c && lg_compat_parse(c) >= 0)
        g_compat = (lg_compat)lg_compat_parse(c);
    g_msf = lg_version_rules_of_compat(g_compat)->python_multistreamfree;
    PyObject *d = PyModule_GetDict(m);
    PyObject *r = PyRun_String(enum_src, Py_file_input, d, d);
    if (!r)
        goto fail;
    Py_DECREF(r);
    if (g_msf) {
        if (!(r = PyRun_String(enum_msf_src, Py_file_input, d, d)))
            goto fail;
        Py_DECREF(r);
    }
    g_TestScenario = PyDict_GetItemString(d, "TestScenario");
    g_TestMode = PyDict_GetItemString(d, "TestMode");
    g_LoggingMode = PyDict_GetItemString(d, "LoggingMode");
    if (!g_TestScenario || !g_TestMode || !g_LoggingMode)
        goto fail;
    Py_INCREF(g_TestScenario);
    Py_INCREF(g_TestMode);
    Py_INCREF(g_LoggingMode);
    if (cache_members(g_TestScenario, g_scen_members, 4, g_msf) || cache_members(g_TestMode, g_mode_members, 4, 0) ||
        cache_members(g_LoggingMode, g_logmode_members, 3, 0))
        goto fail;
    PyDict_DelItemString(d, "_enum");
    PyDict_DelItemString(d, "_c");
    if (add_type(m, &TestSettings_Type, "TestSettings") || add_type(m, &LogOutput_Type, "LogOutputSettings") ||
        add_type(m, &LogSettings_Type, "LogSettings") || add_type(m, &QS_Type, "QuerySample") ||
        add_type(m, &QSR_Type, "QuerySampleResponse"))
        goto fail;
    g_registry = PyDict_New();
    if (!g_registry)
        goto fail;
    PyModule_AddStringConstant(m, "__mlsubmit_version__", MLSUBMIT_VERSION);
    return m;
fail:
    Py_DECREF(m);
    return NULL;
}
