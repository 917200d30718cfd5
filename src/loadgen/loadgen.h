/* mlsubmit LoadGen: a plain C load generator that behaves like the MLCommons LoadGen (same
 * settings, config files, seeded sample/schedule sequences, metrics and log files).
 *
 * A user links libmlsubmit.a, fills an lg_sut and an lg_qsl, sets lg_test_settings (defaults
 * from lg_settings_default, values from lg_settings_from_config) and calls lg_start_test. The
 * SUT answers through lg_query_samples_complete / lg_first_token_complete, from any thread.
 *
 * No global state: everything a test needs lives in the lg_test object handed to the SUT's
 * issue_query callback (the completion calls take it as their first argument). */
#ifndef MLSUBMIT_LOADGEN_H
#define MLSUBMIT_LOADGEN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- basic types (reference query_sample.h) -------------------------------------------------- */

typedef uintptr_t lg_response_id;   /* opaque, never 0; return it unchanged */
typedef size_t lg_sample_index;     /* index into the QSL, < total_sample_count */

typedef struct lg_query_sample {
    lg_response_id id;
    lg_sample_index index;
} lg_query_sample;

typedef struct lg_response {
    lg_response_id id;
    uintptr_t data;     /* address of size bytes owned by the SUT (copied if logged) */
    size_t size;
    int64_t n_tokens;   /* output tokens of this sample (LLM benchmarks), else 0 */
} lg_response;

typedef struct lg_test lg_test;     /* a running test (opaque) */

/* ---- SUT and QSL ----------------------------------------------------------------------------- */

typedef struct lg_sut {
    void *ctx;
    /* Human-readable name (logged as sut_name and printed in the summary). */
    const char *(*name)(void *ctx);
    /* Hands n >= 1 samples to the SUT. Every sample must be completed exactly once, from any
     * thread, possibly inside this call. The samples array is only valid during the call. */
    void (*issue_query)(void *ctx, lg_test *test, const lg_query_sample *samples, size_t n);
    /* Called after the last issue_query of each series (accuracy set, performance run). */
    void (*flush_queries)(void *ctx);
} lg_sut;

typedef struct lg_qsl {
    void *ctx;
    const char *(*name)(void *ctx);
    size_t total_sample_count;        /* dataset size */
    size_t performance_sample_count;  /* samples that fit in memory at once */
    /* Load / unload before and after each series; return 0, or non-zero to abort the test. */
    int (*load_samples)(void *ctx, const lg_sample_index *indices, size_t n);
    int (*unload_samples)(void *ctx, const lg_sample_index *indices, size_t n);
} lg_qsl;

/* Thread-safe completion calls (reference loadgen.cc, QuerySamplesComplete / FirstTokenComplete).
 * cb (optional) is invoked for every response whose payload is going to be logged, before it is
 * copied. */
typedef void (*lg_response_cb)(void *cb_ctx, lg_response *response);
void lg_query_samples_complete(lg_test *test, lg_response *responses, size_t n);
void lg_query_samples_complete_cb(lg_test *test, lg_response *responses, size_t n,
                                  lg_response_cb cb, void *cb_ctx);
void lg_first_token_complete(lg_test *test, lg_response *responses, size_t n);
void lg_first_token_complete_cb(lg_test *test, lg_response *responses, size_t n,
                                lg_response_cb cb, void *cb_ctx);

/* ---- completion sink: an lg_test without a run ----------------------------------------------
 * Code that drives a SUT outside a LoadGen test (the SUT node of `mlsubmit sut serve`, which
 * receives its queries over the network) hands the SUT a sink as its lg_test: every
 * lg_query_samples_complete(_cb) and lg_first_token_complete(_cb) on it calls fn instead, from
 * the completing thread, with first_token 1 for first tokens. fn must copy what it keeps
 * (response data is only valid during the call) and be thread-safe. The response callbacks of
 * the _cb variants are not invoked. Free the sink with lg_sink_free once the SUT is stopped. */
typedef void (*lg_sink_fn)(void *ctx, int first_token, lg_response *responses, size_t n);
lg_test *lg_sink_new(lg_sink_fn fn, void *ctx, ms_err *e);
void lg_sink_free(lg_test *sink);

/* ---- settings (reference test_settings.h) ---------------------------------------------------- */

typedef enum lg_scenario {
    LG_SINGLE_STREAM = 0,
    LG_MULTI_STREAM = 1,
    LG_SERVER = 2,
    LG_OFFLINE = 3,
} lg_scenario;

typedef enum lg_mode {
    LG_SUBMISSION_RUN = 0,
    LG_ACCURACY_ONLY = 1,
    LG_PERFORMANCE_ONLY = 2,
    LG_FIND_PEAK_PERFORMANCE = 3,
} lg_mode;

/* Every field of the reference TestSettings, same names, types, units and defaults. */
typedef struct lg_test_settings {
    lg_scenario scenario;
    lg_mode mode;
    double single_stream_expected_latency_ns;
    double single_stream_target_latency_percentile;
    double multi_stream_expected_latency_ns;
    double multi_stream_target_latency_percentile;
    uint64_t multi_stream_samples_per_query;
    double server_target_qps;
    uint64_t server_target_latency_ns;
    double server_target_latency_percentile;
    int server_coalesce_queries;
    int server_find_peak_qps_decimals_of_precision;
    double server_find_peak_qps_boundary_step_size;
    uint64_t server_max_async_queries;
    uint64_t server_num_issue_query_threads;
    double offline_expected_qps;
    int sample_concatenate_permutation;
    uint64_t min_duration_ms;
    uint64_t max_duration_ms;
    uint64_t min_query_count;
    uint64_t max_query_count;
    uint64_t qsl_rng_seed;
    uint64_t sample_index_rng_seed;
    uint64_t schedule_rng_seed;
    uint64_t accuracy_log_rng_seed;
    double accuracy_log_probability;
    uint64_t accuracy_log_sampling_target;
    int test05;
    uint64_t test05_qsl_rng_seed;
    uint64_t test05_sample_index_rng_seed;
    uint64_t test05_schedule_rng_seed;
    int print_timestamps;
    int performance_issue_unique;
    int performance_issue_same;
    uint64_t performance_issue_same_index;
    uint64_t performance_sample_count_override;
    uint64_t accuracy_sample_count_override;
    int use_token_latencies;
    uint64_t server_ttft_latency;
    uint64_t server_tpot_latency;
    int infer_token_latencies;
    uint64_t token_latency_scaling_factor;
    /* the early MultiStream (LoadGen 0.5 to 1.1, rows with early_multistream): a query of
     * multi_stream_samples_per_query samples every 1 / multi_stream_target_qps seconds, at most
     * multi_stream_max_async_queries in flight (reference r0.5 test_settings.h) */
    double multi_stream_target_qps;
    uint64_t multi_stream_max_async_queries;
    /* only logged (requested_multi_stream_target_latency_ns) by the early MultiStream's
     * releases; their MultiStreamFree scenario used it (reference r1.1 test_settings.h) */
    uint64_t multi_stream_target_latency_ns;
} lg_test_settings;

void lg_settings_default(lg_test_settings *s);
struct lg_version_rules;
/* The defaults of a release where they differ from the newest (its settings_defaults row);
 * call right after lg_settings_default. */
void lg_settings_release_defaults(lg_test_settings *s, const struct lg_version_rules *vr);

const char *lg_scenario_name(lg_scenario s);           /* "SingleStream", ... */
const char *lg_mode_name(lg_mode m);                   /* "PerformanceOnly", ... */
/* Accepts the log names and short forms (singlestream, ss, offline, ...); -1 if unknown. */
int lg_scenario_parse(const char *s);
/* Accepts PerformanceOnly/performance, AccuracyOnly/accuracy, SubmissionRun/submission,
 * FindPeakPerformance/findpeak; -1 if unknown. */
int lg_mode_parse(const char *s);

/* Sets one field by its spec name (e.g. "min_query_count", "qsl_rng_seed") from text.
 * Returns MS_OK, or MS_EUSAGE with a message for an unknown name or a bad value. */
int lg_settings_set(lg_test_settings *s, const char *name, const char *value, ms_err *e);
/* The value of one field as text (doubles with 17 significant digits, scenario and mode by
 * name, booleans 0/1). Returns 0, or -1 for an unknown name. */
int lg_settings_get(const lg_test_settings *s, const char *name, char *buf, size_t n);
/* Name of every settable field, NULL-terminated. */
extern const char *const lg_settings_field_names[];

/* ---- configuration files (reference test_settings_internal.cc, FromConfig) ------------------- */

/* Which LoadGen the run emulates: a row of the version table (rules/loadgen.json, compiled in;
 * see lg_version_rules below), as major * 100 + minor of its name; 0 = the newest row. The row
 * decides the loaded-set rule, the embedded mlperf.conf, the scenarios (the early MultiStream of
 * LoadGen 0.5 to 1.1) and the log format. */
typedef int lg_compat;
enum {
    LG_COMPAT_LATEST = 0,  /* the newest row (default) */
    LG_COMPAT_5_1 = 501,   /* LoadGen 5.1.x (round v5.1), kept for the callers that name it */
    LG_COMPAT_6_0 = 600,   /* LoadGen 6.0.6+ (master) */
};

/* A version name of the table (0.5, 5.1, ...), an alias (master), or a major version alone
 * (its newest row); -1 if unknown. */
int lg_compat_parse(const char *s);
const char *lg_compat_version(lg_compat c);  /* the loadgen_version it reports */
const char *lg_compat_name(lg_compat c);     /* the table's name of its row */
/* The table's names, comma-separated, into buf (for messages: "0.5, 0.7, ..., 6.0"). */
const char *lg_compat_names(char *buf, size_t n);

/* What happened to one line of a config file (for `loadgen check-conf` and the detail log). */
typedef enum lg_conf_finding_kind {
    LG_CONF_MALFORMED,     /* syntax error: the whole file is not applied (reference quirk) */
    LG_CONF_IGNORED,       /* silently dropped by the reference (k=1, key not allowed here...) */
    LG_CONF_UNKNOWN,       /* key name is not a LoadGen setting */
    LG_CONF_OVERRIDDEN,    /* applied, but a later line or file decides the final value */
    LG_CONF_NOT_APPLICABLE /* for another model or scenario (informational) */
} lg_conf_finding_kind;

typedef struct lg_conf_finding {
    lg_conf_finding_kind kind;
    char file[512];
    size_t line;
    char text[512];        /* what is wrong and what was expected */
} lg_conf_finding;

/* A configuration session replaces the reference's process-wide state: which mlperf.conf is
 * embedded, whether a user.conf was already applied, and the errors to put in the detail log. */
typedef struct lg_conf_session lg_conf_session;

/* mlperf_conf_path NULL = the embedded mlperf.conf of the compat version. */
lg_conf_session *lg_conf_session_new(lg_compat compat, const char *mlperf_conf_path, ms_err *e);
void lg_conf_session_free(lg_conf_session *cs);

/* FromConfig (reference test_settings_internal.cc, TestSettings::FromConfig): conf_type 0 =
 * mlperf.conf, 1 = user.conf, 2 = audit.config. The first user.conf applies the session's
 * mlperf.conf first. Returns 0, -2 (cannot open) or -22 (syntax error; nothing of this file
 * applied), like the reference; findings are recorded. */
int lg_settings_from_config(lg_conf_session *cs, lg_test_settings *s, const char *path,
                            const char *model, const char *scenario, int conf_type);
/* Same for text already in memory (name is used in messages). */
int lg_settings_from_config_text(lg_conf_session *cs, lg_test_settings *s, const char *name,
                                 const char *text, size_t len, const char *model,
                                 const char *scenario, int conf_type);

/* Applies only the session's mlperf.conf (conf_type 0), e.g. for a run without user.conf. */
int lg_settings_apply_mlperf_conf(lg_conf_session *cs, lg_test_settings *s, const char *model,
                                  const char *scenario);

/* Forgets the config errors collected so far (each lg_start_test given the session logs them):
 * a process running several tests with one session logs each error once, in the next test's
 * detail log, as the reference's process-wide logger does. */
void lg_conf_session_clear_log_errors(lg_conf_session *cs);

size_t lg_conf_session_nfindings(const lg_conf_session *cs);
const lg_conf_finding *lg_conf_session_finding(const lg_conf_session *cs, size_t i);
/* Resolves OVERRIDDEN findings across everything applied so far (call after the last file). */
void lg_conf_session_finish(lg_conf_session *cs);

/* Effective settings (reference test_settings_internal.cc, TestSettingsInternal and
 * LogEffectiveSettings): what the detail log reports as effective_*. */
typedef struct lg_effective {
    lg_scenario scenario;
    lg_mode mode;
    uint64_t samples_per_query;
    double target_qps;
    uint64_t target_latency_ns;
    double target_latency_percentile;
    uint64_t max_async_queries;
    uint64_t target_duration_ms;
    uint64_t min_duration_ms;
    uint64_t max_duration_ms;
    uint64_t min_query_count;
    uint64_t max_query_count;
    uint64_t min_sample_count;
    uint64_t qsl_rng_seed;
    uint64_t sample_index_rng_seed;
    uint64_t schedule_rng_seed;
    uint64_t accuracy_log_rng_seed;
    double accuracy_log_probability;
    uint64_t accuracy_log_sampling_target;
    int print_timestamps;
    int performance_issue_unique;
    int performance_issue_same;
    uint64_t performance_issue_same_index;
    uint64_t performance_sample_count;
    uint64_t accuracy_sample_count;
    int sample_concatenate_permutation;
    int use_token_latencies;
    uint64_t server_ttft_latency;
    uint64_t server_tpot_latency;
    int infer_token_latencies;
    uint64_t token_latency_scaling_factor;
    uint64_t server_num_issue_query_threads;
    int server_coalesce_queries;
    int server_find_peak_qps_decimals_of_precision;
    double server_find_peak_qps_boundary_step_size;
    /* not logged: the standard library whose integer distributions the run's engines feed
     * (an lg_stdlib of loadgen/rng.h; 0 = libstdc++ of GCC >= 11, what this LoadGen does).
     * audit replay plans with each to explain logs of LoadGen binaries built elsewhere. */
    int stdlib;
    /* not logged: the release whose rules derive and generate (NULL = this LoadGen's) */
    const struct lg_version_rules *rules;
    /* errors found while deriving (error_invalid_test_settings / negative qps) */
    int n_errors;
    char errors[4][400];
} lg_effective;

void lg_effective_derive(lg_effective *ef, const lg_test_settings *s, size_t qsl_total,
                         size_t qsl_perf);


/* What an unmodified LoadGen does with these settings, without running anything (used by
 * `audit replay` to check a log): effective settings, the loadable sets, and per series the
 * generated query count, samples per query and schedule duration. */
typedef struct lg_plan_series {
    size_t *loaded;             /* loaded_qsl_set (with MultiStream padding) */
    size_t nloaded;
    uint64_t query_count;       /* generated_query_count */
    uint64_t samples_per_query; /* generated_samples_per_query */
    int64_t duration_ns;        /* generated_query_duration */
} lg_plan_series;

typedef struct lg_plan {
    lg_effective ef;
    int accuracy;               /* series are accuracy sets (else one performance series) */
    lg_plan_series *series;
    size_t nseries;
    double accuracy_log_probability; /* the sampling probability of performance series */
} lg_plan;

/* accuracy: plan the accuracy sets (mode AccuracyOnly / first part of SubmissionRun) instead of
 * the performance run. */
int lg_plan_test(const lg_test_settings *s, size_t qsl_total, size_t qsl_perf, lg_compat compat,
                 int accuracy, lg_plan *out, ms_err *e);
void lg_plan_free(lg_plan *p);

/* The C++ standard library a LoadGen binary was built with decides how std::shuffle and
 * std::uniform_int_distribution turn engine output into indices (the engine and the real
 * distributions are the same everywhere). The published logs come from all of them. */
typedef enum lg_stdlib {
    LG_STDLIB_GCC11 = 0,   /* libstdc++ of GCC >= 11: Lemire's method, paired shuffle draws */
    LG_STDLIB_GCC7 = 1,    /* libstdc++ of GCC 7 to 10: division with rejection, paired draws */
    LG_STDLIB_GCC4 = 2,    /* libstdc++ before GCC 7: division with rejection, one draw per swap */
    LG_STDLIB_LIBCXX = 3,  /* LLVM libc++: masked bits with rejection, forward shuffle */
    LG_STDLIB_MSVC = 4,    /* Microsoft STL: modulo with rejection, one draw per swap */
    LG_STDLIB_COUNT = 5
} lg_stdlib;

const char *lg_stdlib_name(lg_stdlib s);  /* src/loadgen/rng.c */

/* ---- LoadGen versions (src/loadgen/versions.c) ------------------------------------------------ */

/* What a published LoadGen release does differently, for replaying its logs (audit replay). One
 * row per release whose behaviour differs, from the reference sources of each tag
 * (test_settings_internal.cc TestSettingsInternal, loadgen.cc GenerateQueries,
 * GenerateLoadableSets, StartTest). A row holds from its release to the next row's. */
typedef struct lg_version_rules {
    const char *name;             /* 0.5, ..., 6.0: what --loadgen-compat accepts */
    int major, minor, patch;      /* first release with these rules */
    const char *loadgen_version;  /* the loadgen_version this emulation reports */
    const char *aliases[4];       /* other names (a loadgen_version text such as ".5a1", "master") */
    const char *mlperf_conf;      /* the embedded mlperf.conf (src/loadgen/conf/) */
    /* MultiStream is the fixed-interval scenario of LoadGen 0.5 to 1.1 (reference r0.5
     * loadgen.cc QueryScheduler<MultiStream>::Wait): a query every 1 / target_qps, skipped
     * intervals counted, valid when the target percentile of the per-query interval counts is
     * below 2 (PerformanceSummary::PerfConstraintsMet) */
    int early_multistream;
    /* the detail log is text: "pid": P, "tid": T, "ts": Nns : message (reference r0.5
     * logging.h AsyncLog::LogDetail), with the entries of the r0.5 / v0.7.1 LoadGen (version
     * block, settings blocks, Loading QSL, GeneratedQueries, ...), not :::MLLOG keys */
    int text_detail_log;
    /* early stopping decides validity and the SingleStream/MultiStream metric (from 2.0,
     * reference early_stopping.cc); before, the target-percentile latency and no early-stopping
     * lines in the summary and detail log */
    int early_stopping;
    /* the summary's token latency label: "Time to Output Token" or "Time per Output Token" */
    const char *tpot_word;
    /* FindPeak of the early MultiStream: confirmation runs at the found stream count */
    int stability_runs;
    /* the rules document's scenario table of the era (0 where the table has none) */
    struct {
        struct { uint64_t min_queries; double percentile; } single_stream, multi_stream,
            server_image, server_other;
        uint64_t offline_min_samples;
        uint64_t min_duration_ms;
    } rules_table;
    /* MultiStream from multi_stream_target_qps / multi_stream_max_async_queries (target latency
     * max_async / qps), not from multi_stream_expected_latency_ns */
    int ms_from_target_qps;
    /* performance_issue_same generates like performance_issue_unique (no duration, |L| / spq
     * queries; Offline: performance_sample_count samples) */
    int issue_same_as_unique;
    /* sample_concatenate_permutation: 0 unknown; 1 Offline padding of the query to a multiple of
     * the loaded set (and SingleStream's equal-issue draw); 2 also min_queries padded to a
     * multiple of the set and raised while the duration is not met (not Offline) */
    int equal_issue;
    /* with equal_issue 2: Offline's min_queries is padded too when its query needs no padding */
    int equal_issue_pads_offline_queries;
    /* generated_samples_per_query is the generated query's size (else the effective
     * samples_per_query, whatever the query holds: Offline accuracy, equal-issue padding) */
    int logs_query_spq;
    /* loaded sets drawn from the first performance/accuracy_sample_count indices (else from
     * every QSL index) */
    int loaded_set_from_count;
    /* requested/effective_sample_concatenate_permutation are logged (else, with equal_issue,
     * whether it was on is not in the log) */
    int logs_concatenation;
    /* effective_accuracy_sample_count is logged (and accuracy_sample_count_override is a key) */
    int logs_accuracy_sample_count;
    /* the test05 keys of audit.config override the seeds with a "Test05 flag detected"
     * warning (else TEST05's audit.config sets the seeds themselves) */
    int test05_flag;
    /* some builds of the release left Offline's target_latency_percentile unset (garbage) */
    int offline_percentile_unset;
    /* TestSettings defaults of the release that differ from the newest (test_settings.h of its
     * tag; 0 keeps the newest's) */
    struct {
        uint64_t multi_stream_samples_per_query;
        double multi_stream_target_latency_percentile;
    } settings_defaults;
    /* single_stream_expected_latency_ns is an integer (uint64_t in test_settings.h up to tag
     * r1.1): a fraction is dropped and the detail log shows an integer */
    int integer_expected_latency;
    /* queries are issued by IssueQueryController (issue_query_controller.cc, from tag v0.7.1):
     * the text log's end-of-issue messages name the thread ("IssueQueryThread "0" :  Ending
     * early: ...", " Ending naturally: ...") */
    int issue_query_controller;
    /* accuracy_log_sampling_target and server_num_issue_query_threads are TestSettings fields
     * (from tag v0.7.1): the text log's settings blocks and the summary show them */
    int logs_sampling_target;
    /* accuracy_log_sampling_target: the expected sample count is at least min_query_count x
     * samples_per_query (Offline: min_sample_count), from tag v1.0.1 */
    int sampling_expected_floor;
    /* TestSettings::FromConfig has conf_type (from tag v5.0.1): the seeds,
     * accuracy_log_probability and the test05 keys are read from mlperf.conf only, and a second
     * user.conf logs "Multiple conf files are used" (up to tag v4.1 every file sets every key) */
    int mlperf_conf_only_keys;
    /* the performance summary logs result_query_count (from tag v2.0: loadgen.cc
     * PerformanceSummary::LogDetail; not in tag v1.0.1) */
    int logs_result_query_count;
    /* num_errors in the detail log: 0 never; 1 at the end of the performance summary only (tag
     * v5.1.1 results.cc PerformanceSummary::LogDetail); 2 also after an accuracy run and a
     * test that could not run */
    int num_errors_logged;
    /* the Python bindings' ConstructSUT / ConstructFastSUT take a third callback,
     * report_latency_results(latencies_ns), called after each performance run (bindings/python_api.cc
     * up to tag v2.0, SystemUnderTest::ReportLatencyResults) */
    int python_report_latencies;
    /* the Python bindings' test05_qsl_rng_seed, test05_sample_index_rng_seed and
     * test05_schedule_rng_seed attributes set (and read) qsl_rng_seed, sample_index_rng_seed and
     * schedule_rng_seed (bindings/python_api.cc of tag v3.0 binds them to those fields) */
    int python_test05_seeds_alias;
    /* the Python bindings' TestScenario has MultiStreamFree = 2, Server = 3, Offline = 4
     * (test_settings.h up to tag r1.1); mlsubmit's LoadGen does not run MultiStreamFree */
    int python_multistreamfree;
    /* the release the Python module emulates until told otherwise (SetLoadgenCompat,
     * MLSUBMIT_LOADGEN_COMPAT): that of the newest released mlperf_loadgen bindings (one row) */
    int python_default;
} lg_version_rules;

/* The rules of a loadgen_version text ("5.1.0 @ 091d51f041", "2.0 @ ...", ".5a1 @ ..." as the
 * LoadGen 1.x builds report). NULL when the text is not a version (the caller picks). */
const lg_version_rules *lg_version_rules_of(const char *loadgen_version);
/* The newest rules (this LoadGen's), and the rules an lg_compat emulates. */
const lg_version_rules *lg_version_rules_latest(void);
const lg_version_rules *lg_version_rules_of_compat(lg_compat c); /* newest for 0 / unknown */
/* The lg_compat of a row. */
lg_compat lg_version_rules_compat(const lg_version_rules *v);
/* The rows, oldest first. */
size_t lg_version_rules_count(void);
const lg_version_rules *lg_version_rules_at(size_t i);
/* The first later row whose rules differ from v's (NULL: none, v's rules hold to this day). */
const lg_version_rules *lg_version_rules_next_change(const lg_version_rules *v);
/* The emulation whose loaded-set rule v follows: the first row with loaded_set_from_count when
 * v has it, else the newest row before that one (rules/loadgen.json decides both). */
lg_compat lg_loaded_set_compat(const lg_version_rules *v);
/* v's loaded-set rule named by the release that changed it, into buf: "6.0.6+" or
 * "before 6.0.6" (for messages). */
const char *lg_loaded_set_rule_name(const lg_version_rules *v, char *buf, size_t n);
/* "major.minor[.patch]" of a row into buf. */
const char *lg_version_rules_name(const lg_version_rules *v, char *buf, size_t n);

/* A plan (lg_plan_test) under a given release's rules and standard library. */
typedef struct lg_plan_request {
    const lg_test_settings *s;
    size_t qsl_total, qsl_perf;
    const lg_version_rules *rules;   /* NULL = lg_version_rules_latest() */
    int stdlib;                      /* an lg_stdlib (loadgen/rng.h) */
    int accuracy;
    int sets_only;                   /* the loaded sets only (no query generation: counts 0) */
    /* LoadGen 1.x MultiStream (rules->ms_from_target_qps): the requested values */
    double ms_target_qps;
    uint64_t ms_max_async_queries;
} lg_plan_request;

int lg_plan_test_req(const lg_plan_request *rq, lg_plan *out, ms_err *e);

/* ---- logging and running ------------------------------------------------------------------------ */

typedef struct lg_log_settings {
    const char *outdir;          /* default "." */
    const char *prefix;          /* default "mlperf_log_" */
    const char *suffix;          /* default "" */
    int prefix_with_datetime;
    int copy_detail_to_stdout;
    int copy_summary_to_stdout;
    int enable_trace;            /* default 1 in the reference; mlsubmit's CLI defaults to 0 */
} lg_log_settings;

void lg_log_settings_default(lg_log_settings *l);

/* mlsubmit extensions to StartTest. */
typedef struct lg_run_options {
    lg_compat compat;
    lg_conf_session *conf;         /* optional: supplies config errors for the detail log and the
                                      audit.config handling (NULL = a fresh session) */
    const char *audit_config_path; /* default "audit.config" in the working directory; "" = none */
    FILE *dump_issued;             /* optional: "L ..." / "Q ..." trace of loads and queries */
    int64_t timeout_ns;            /* 0 = wait forever for completions; else abort the test when
                                      no sample completes for this long */
    int progress;                  /* progress line on a terminal */
    /* optional: told the descriptor and final path of every log file as it is opened (the files
     * are unnamed until the test ends; a supervisor holding a duplicate of the descriptor can
     * finish the logs if this process dies, see `loadgen run` and lg_logs_finish_incomplete) */
    void (*on_log_file)(void *ctx, int fd, const char *final_path);
    void *on_log_file_ctx;
    int audit_test05;              /* let audit.config set test05 and the test05_* seeds, as
                                      LoadGen <= v4.1 did (the alternate-seed audit, TEST05);
                                      0 = the reference's current behaviour (ignored) */
    /* optional: set *cancel non-zero from any thread to stop the test (an interrupted harness):
     * issuing and waiting stop within ~200 ms, the log files are NOT committed (they stay unnamed:
     * finish them through on_log_file and lg_logs_finish_incomplete), lg_start_test returns
     * MS_ERUNTIME with lg_run_result.canceled set and the test in lg_run_result.abandoned */
    const _Atomic int *cancel;
    int keep_test;                 /* always hand the test back in lg_run_result.abandoned (a
                                      caller whose completion calls may race with the end of the
                                      test frees it with lg_test_free once they stopped) */
    /* optional: the text the reference LoadGen prints on its standard output (the copies of the
     * detail and summary logs asked for by copy_*_to_stdout, the print_timestamps lines), in
     * order, from the thread that logs it (any thread: the writer must be thread-safe, as
     * stdio's fwrite is); NULL = dropped. The library
     * prints nothing itself: `loadgen run` and the Python module pass a writer to stdout. */
    void (*console)(void *ctx, const char *text, size_t len);
    void *console_ctx;
    /* optional: after each performance run, before its summary, the latency (ns) of every sample
     * it issued, in issue order (SystemUnderTest::ReportLatencyResults of the LoadGen releases
     * up to tag v2.0, loadgen.cc RunPerformanceMode; the Python module passes them to the
     * report_latency_results callback of those releases' ConstructSUT). The array is only valid
     * during the call. */
    void (*report_latencies)(void *ctx, const int64_t *latencies_ns, size_t n);
    void *report_latencies_ctx;
} lg_run_options;

void lg_run_options_default(lg_run_options *o);

/* One run of FindPeakPerformance for the early MultiStream (streams = samples per query). */
typedef enum lg_peak_phase {
    LG_PEAK_BASE = 0,          /* the requested multi_stream_samples_per_query */
    LG_PEAK_BOUNDARY = 1,      /* doubling until a run fails */
    LG_PEAK_SEARCH = 2,        /* binary search between the last pass and the first failure */
    LG_PEAK_CONFIRM = 3,       /* stability runs at the found count (the row's stability_runs) */
} lg_peak_phase;

typedef struct lg_peak_trial {
    lg_peak_phase phase;
    uint64_t streams;
    int passed;                /* the tail-latency bound held (no skipped interval at the target
                                  percentile) */
    int valid;                 /* the whole result was VALID (also min duration and queries) */
    int64_t intervals_target;  /* interval count at the target percentile */
    int64_t latency_target_ns; /* per-query latency at the target percentile */
    uint64_t queries, overtime_queries, skipped_intervals;
} lg_peak_trial;

#define LG_MAX_PEAK_TRIALS 128
const char *lg_peak_phase_name(lg_peak_phase p);   /* "base", "boundary", "search", "confirm" */

/* What a run produced, for callers that do not want to parse the logs. */
typedef struct lg_run_result {
    int ran_performance;        /* a performance result was computed */
    int valid;                  /* result_validity == VALID */
    double metric;              /* headline: samples/s (Server, Offline) or latency ns */
    uint64_t query_count;       /* result_query_count */
    uint64_t sample_count;
    uint64_t generated_query_count;
    size_t n_errors;            /* error entries in the detail log */
    size_t n_warnings;
    int timed_out;              /* the SUT stopped answering (timeout_ns) */
    int canceled;               /* lg_run_options.cancel stopped the test */
    lg_test *abandoned;         /* after a timeout: the test the SUT may still reference; its
                                   late completions are ignored. Stop the SUT, then free it
                                   with lg_test_free. */
    char first_error[512];      /* text of the first error entry, if any */
    /* FindPeakPerformance of the early MultiStream: every trial in order, and the stream count
     * found (0 = none met the bound; peak_found 0 when the search did not finish) */
    lg_peak_trial peak_trials[LG_MAX_PEAK_TRIALS];
    size_t n_peak_trials;
    uint64_t peak_streams;
    int peak_found;
} lg_run_result;

/* Runs a whole test (reference loadgen.cc, StartTest) and writes the log files. Returns MS_OK when
 * the test ran to its end (whatever its validity); MS_ERUNTIME when the logs could not be opened,
 * the QSL failed, or the SUT timed out (logs are still written and say why; see
 * lg_run_result.abandoned). Completion calls that arrive after the test ended are ignored. */
int lg_start_test(const lg_sut *sut, const lg_qsl *qsl, const lg_test_settings *settings,
                  const lg_log_settings *log, const lg_run_options *opts, lg_run_result *result,
                  ms_err *e);

/* Finishes a log file left behind by a test whose process died (a duplicate of the descriptor
 * reported through lg_run_options.on_log_file, and its final path): the detail log gets an error
 * entry saying the test is incomplete and why, the summary an INCOMPLETE line and an error
 * trailer, the accuracy log keeps its complete entries and is closed; then the file is linked
 * into place. */
int lg_logs_finish_incomplete(int fd, const char *final_path, const char *reason, ms_err *e);

/* The run supervisor (supervise.c). Forks: in the parent, waits for the child, finishing its
 * logs if it dies before the test ends (msg is told why, and what was finished), and returns 1
 * with *exit_code (the child's exit status, or MS_ERUNTIME); in the child returns 0 with
 * *log_sock for lg_run_options.on_log_file_ctx (with on_log_file = lg_supervised_log_file).
 * Without a socket or a fork it returns 0 with *log_sock -1: run unsupervised. SIGTERM/SIGHUP
 * sent to the parent are forwarded to the child; SIGINT reaches the child from the terminal.
 * Flush stdio before calling it. */
int lg_supervised_fork(int *log_sock, int *exit_code, void (*msg)(void *ctx, const char *msg), void *ctx);
/* lg_run_options.on_log_file of a supervised child (ctx: &log_sock). */
void lg_supervised_log_file(void *ctx, int fd, const char *final_path);

/* Issued-query traces (`--dump-issued`): "L ..." per load call, "Q ..." per issued query. */
typedef struct lg_issued_trace {
    char *kinds;        /* 'L' or 'Q' per record */
    size_t *start;      /* first index of each record in idx */
    size_t *count;      /* samples of each record */
    size_t *line;       /* 1-based line of each record */
    uint64_t *idx;
    size_t nrecords, nidx;
} lg_issued_trace;

int lg_issued_trace_parse(const char *text, size_t len, const char *name, lg_issued_trace *t,
                          ms_err *e);
int lg_issued_trace_load(const char *path, lg_issued_trace *t, ms_err *e);
void lg_issued_trace_free(lg_issued_trace *t);
/* 0 if identical; 1 with msg describing the first difference (record, lines, position, values). */
int lg_issued_trace_diff(const lg_issued_trace *a, const lg_issued_trace *b, char *msg, size_t n);

/* Frees a test handed back in lg_run_result.abandoned (after its SUT was stopped). */
void lg_test_free(lg_test *test);

/* ---- reference SUTs (src/loadgen/suts/) ------------------------------------------------------ */

/* A SUT created from a spec "name[:k=v,...]" (e.g. "null", "latency:fixed=1ms"). */
typedef struct lg_sut_instance lg_sut_instance;

typedef struct lg_sut_env {
    const lg_test_settings *settings;  /* settings the run will use (cheat-seed peeks here) */
    const char *data_dir;              /* where datasets and model files live (make data) */
    size_t total_sample_count;         /* from --total-samples (0 = SUT's own dataset size) */
    size_t performance_sample_count;
} lg_sut_env;

lg_sut_instance *lg_sut_create(const char *spec, const lg_sut_env *env, ms_err *e);
void lg_sut_destroy(lg_sut_instance *si);
/* Optional: fn is told when the SUT cannot go on (the network SUT: a node died or answered
 * garbage), with a message naming what failed, from any thread; the caller ends the test (the
 * CLI exits and its supervisor marks the logs incomplete). Without it such a SUT stops
 * answering and the run's timeout_ns ends the test. */
void lg_sut_instance_on_fatal(lg_sut_instance *si, void (*fn)(void *ctx, const char *msg), void *ctx);
const lg_sut *lg_sut_instance_sut(lg_sut_instance *si);
/* The QSL the SUT comes with (a dataset SUT brings its own; others use a counting QSL sized
 * by env). */
const lg_qsl *lg_sut_instance_qsl(lg_sut_instance *si);
/* Lines describing every registered SUT and its options (for --help). */
void lg_sut_list(FILE *out);

/* ---- one way to build a run (setup.c) -------------------------------------------------------- */

/* What a run is made of, as `loadgen run`, `audit run` and the other front ends take it. */
typedef struct lg_run_spec {
    lg_scenario scenario;
    int mode;                 /* an lg_mode, or -1: the settings' own (default, configs, --set) */
    int lock_scenario_mode;   /* 1: scenario and mode are set after --set (audit runs: the test
                               * decides them); 0: set before, so --set scenario=/mode= win */
    const char *model;        /* the config lookups' model; NULL: none */
    const char *mlperf_conf;  /* NULL: the compat's embedded mlperf.conf */
    const char *user_conf;    /* NULL: none */
    const char *const *sets;  /* KEY=VALUE, applied last (lg_settings_set) */
    size_t nsets;
    lg_compat compat;
    const char *sut_spec;     /* lg_sut_create */
    const char *data_dir;
    size_t total_samples;       /* 0: the SUT's own dataset size */
    size_t performance_samples; /* 0: total_samples */
    size_t fallback_samples;    /* total_samples 0 and a SUT without a dataset of its own: a
                                 * counting QSL of this many (sut serve); 0: that is an error */
    /* more config files after user_conf, in their order (loadgen check-conf): one named
     * audit.config is applied as the LoadGen applies an audit.config (model "*", on top of
     * mlperf.conf), any other as a user.conf */
    const char *const *conf_files;
    size_t nconf_files;
    int check_files;          /* 1 (check-conf): a rejected file stays a finding of conf, not an
                               * error, and mlperf.conf is only applied with a file */
} lg_run_spec;

typedef struct lg_run_setup {
    lg_test_settings settings;
    lg_conf_session *conf;    /* for lg_run_options.conf (it applies audit.config, model "*") */
    lg_sut_instance *sut;     /* its QSL: lg_sut_instance_qsl */
    int user_conf_rejected;   /* the user.conf was malformed: conf lists its LG_CONF_MALFORMED */
    int bad_set;              /* a --set was not KEY=VALUE or not a setting (MS_EUSAGE) */
} lg_run_setup;

/* Builds the settings in the reference's order (TestSettings::FromConfig as a submission's
 * harness calls it): defaults, mlperf.conf (loaded with the first user.conf; without one, applied
 * when a model or an mlperf.conf is named), user.conf, then each --set; then makes the SUT. The
 * audit.config is applied by lg_start_test from lg_run_options.audit_config_path (model "*").
 * Always free r with lg_run_setup_free, also after a failure (a rejected user.conf keeps conf);
 * r stays in place while the SUT lives (the SUT may read r->settings). */
int lg_run_setup_build(const lg_run_spec *spec, lg_run_setup *r, ms_err *e);
/* The settings part of lg_run_setup_build alone (r->sut stays NULL; sut_spec and the sample
 * counts are not used): for what only looks at the settings (loadgen check-conf). */
int lg_run_settings_build(const lg_run_spec *spec, lg_run_setup *r, ms_err *e);
void lg_run_setup_free(lg_run_setup *r);

#ifdef __cplusplus
}
#endif

#endif
