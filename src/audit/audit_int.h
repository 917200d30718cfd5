/* Declarations shared by the files of src/audit/ (not part of the public API). */
#ifndef MS_AUDIT_INT_H
#define MS_AUDIT_INT_H

#include <stddef.h>
#include <stdint.h>

#include "audit/audit.h"
#include "common/buf.h"
#include "common/mllog.h"

/* ---- report.c: files, detail logs, the STRICT report (Python number text: common/pyfmt.h) ---- */

/* Copies src to dst atomically (temporary file + rename); MS_EINPUT if src is unreadable. */
int au_copy_file(const char *src, const char *dst, ms_err *e);
/* 1 if both paths name the same existing file. */
int au_same_file(const char *a, const char *b);
/* malloc'd "a/b/c" (b or c may be NULL); NULL on allocation failure. */
char *au_path3(const char *a, const char *b, const char *c);

/* Loads a detail log for verification. Returns 0, or -1 with why (a sentence naming the file)
 * for a missing or empty file, a first line that is not a :::MLLOG record, or a malformed
 * record (the MLCommons parser raises on any of these). */
int au_load_detail(const char *path, ms_mllog *log, char *why, size_t whysz);
/* Error entries as the MLCommons log parser counts them: the value of num_errors if logged,
 * else the records with metadata.is_error. */
uint64_t au_detail_errors(const ms_mllog *log);

/* A STRICT report: checks with PASS / FAIL / SKIP and indented detail lines. */
typedef struct au_rep {
    ms_buf *b;
    int fails, passes, skips;
} au_rep;

enum { AU_SKIP = -1, AU_FAILED = 0, AU_PASSED = 1 };
void au_rep_check(au_rep *r, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void au_rep_detail(au_rep *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* printf-style append of one note line ("...\n") to a buffer (allocation failures ignored). */
void au_note(ms_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A model name guessed from a path: the first directory component the rules know as a model
 * (.../resnet50/Offline/TEST01 -> resnet50). NULL if none; points into a static-free buffer
 * given by the caller. */
const char *au_model_from_path(const au_rules *r, const char *path, char *buf, size_t n);
/* "TEST01"/"TEST04"/"TEST05" component of a path, or 0. */
int au_test_from_path(const char *path);

/* ---- rules.c ---- */

/* TEST06-TEST09: the values of one benchmark (rules tests.TESTxx.benchmarks.<name>). */
typedef struct au_bench {
    au_test test;
    char name[64];               /* the benchmark (audit directory) name */
    size_t nset;
    struct {
        char key[64], value[64];
    } set[16];                   /* the LoadGen settings of its audit.config, in order */
    int64_t eos_id;              /* TEST06: the tokenizer's EOS id (STRICT) */
    int64_t compat_eos_id;       /* TEST06: the id upstream's script always uses (2) */
    double threshold;            /* TEST07 accuracy threshold */
    char scorer[16];             /* TEST07: digits, bytes or external */
    char score_pattern[256];     /* TEST07: regex, group 1 = the score */
    uint64_t dataset_size;       /* TEST07/TEST09: records the run must log (0 = unknown) */
    double tolerance;            /* TEST08 relative NE tolerance */
    double min_tokens, max_tokens; /* TEST09 bounds of the mean output length */
} au_bench;

/* Fills b for model (an alias of the rules' models table or the benchmark name). MS_EUSAGE
 * naming the benchmarks the test applies to when the model has no values. */
int au_rules_bench(const au_rules *r, au_test t, const char *model, au_bench *b, ms_err *e);
/* The value of a setting of b's audit.config, or NULL. */
const char *au_bench_setting(const au_bench *b, const char *key);

/* Fallback tolerance (allowed delta, percent) for a model
 * (compliance/TEST01/create_accuracy_baseline.sh and the TEST01 README). */
double au_rules_fallback_delta(const au_rules *r, const char *model);
/* Tolerances of a test's performance comparison. */
void au_rules_tolerance(const au_rules *r, const char *test, double *delta, double *relaxed,
                        double *ss_ns, double *ms_ns);
double au_rules_sigmas(const au_rules *r);
/* The TEST01 logging seed (720381539243781796). */
uint64_t au_rules_test01_seed(const au_rules *r);
/* TEST04 same index (its audit.config's performance_issue_same_index). */
uint64_t au_rules_same_index(const au_rules *r);
/* The round whose alternate seeds a LoadGen version string ("4.1.3 @ ...") stands for, or
 * NULL: v3.0, v3.1, v4.0, v4.1; v5.0+ maps to the rounds of rules (all share one triple). */
const char *au_rules_round_of_version(const au_rules *r, const char *loadgen_version);

/* ---- settings.c: what a detail log says was requested ---- */

typedef struct au_logged {
    lg_test_settings s;        /* rebuilt from the requested_* keys */
    size_t qsl_total, qsl_perf;
    int compat;                /* lg_compat decided from loadgen_version (or forced) */
    const lg_version_rules *rules; /* the release's rules, from loadgen_version (or forced) */
    int version_known;         /* loadgen_version named a release */
    double ms_target_qps;      /* LoadGen 1.x MultiStream: requested_multi_stream_target_qps */
    uint64_t ms_max_async;     /* ... requested_multi_stream_max_async_queries */
    int have_ms_legacy;        /* both were logged */
    int test05_warning;        /* "Test05 flag detected" was logged */
    int audit_warning;         /* "Found Audit Config file" was logged */
    char version[128];
    char missing[512];         /* requested keys that were absent (defaults used) */
} au_logged;

/* Rebuilds the requested settings of a detail log. compat -1 = from loadgen_version. Returns
 * 0, or -1 with why when the log lacks the keys needed (scenario, mode, QSL counts). */
int au_logged_settings(const ms_mllog *log, int compat, au_logged *out, char *why, size_t whysz);
/* 1 if the release of version (a loadgen_version text) loads the performance set from
 * accuracy_sample_count (its rules/loadgen.json row's loaded_set_from_count). */
int au_loads_set_from_count(const char *version);

/* Expected accuracy-log sampling of a performance run (reference loadgen.cc, GenerateQueries:
 * accuracy_log_rng_seed): probability and samples generated. -1 with why if the log does not allow
 * it. */
int au_expected_sampling(const ms_mllog *log, double *p, uint64_t *samples, char *why,
                         size_t whysz);

/* ---- applied.c: was the audit.config applied (README, Audits) ---- */

/* Adds the checks of 1.7 for test t to rep. target: the TEST01 sampling target expected (0 =
 * unknown, any non-zero accepted); seeds: TEST05 expected seeds (NULL = not checked);
 * acc_records: records in the audited run's accuracy log (-1 = unknown). */
void au_check_applied(au_rep *rep, au_test t, const ms_mllog *log, const au_rules *r,
                      uint64_t target, const uint64_t *seeds, long long acc_records);

/* ---- test01.c ---- */

typedef struct au_t01 {
    const char *ref_log, *test_log;
    au_dtype dtype;
    int unixmode;
    int strict;
    /* results */
    int pass;                  /* COMPAT verdict */
    int input_error;
    uint64_t acc_entries, acc_dup, acc_mismatch;
    uint64_t perf_entries, qsl_match, data_mismatch, missing;
    uint64_t full_mismatch, covered;  /* STRICT */
} au_t01;

/* Writes the verify_accuracy.txt text into out; STRICT comparison findings into rep (if
 * t->strict). Problems with the inputs are named in notes (and the file says TEST FAIL). */
int au_test01_accuracy(au_t01 *t, ms_buf *out, au_rep *rep, ms_buf *notes, ms_err *e);

typedef struct au_fallback {
    au_scorer scorer;
    const char *data_dir;
    const char *work_dir;      /* where the baseline JSON is written */
    double allowed_pct;
    /* results */
    double baseline, compliance, delta_pct;
    int pass;
    char *baseline_text, *compliance_text;   /* malloc'd accuracy script outputs */
} au_fallback;

/* The reason an accuracy log cannot be read: the reader's message, or that the packaging tool
 * truncated it (submission tools' truncate_accuracy_log.py). */
void au_explain_acclog_error(const char *path, const ms_err *pe, char *why, size_t n);

/* TEST01 fallback (compliance/TEST01/create_accuracy_baseline.sh): the baseline subset of the
 * reference log, both accuracy outputs, the delta. */
int au_test01_fallback(const char *ref_log, const char *test_log, au_fallback *f, ms_err *e);
void au_fallback_free(au_fallback *f);
/* The scorer's one-line output on an accuracy log ("accuracy=96.648%, good=519, total=537"). */
int au_score_log(au_scorer sc, const char *data_dir, const char *ref_log, const char *log,
                 char **text, double *metric, ms_err *e);

/* ---- llm.c: TEST06-TEST09 verification (compliance/TEST0x/run_verification.py) ---- */

typedef struct au_llm_in {
    const au_rules *r;
    au_test test;
    au_mode mode;
    const char *model;
    const char *scenario;        /* NULL = from the detail log */
    const char *ref_acc;         /* TEST08: the accuracy-mode log */
    const char *acc, *detail;    /* the audited run's logs */
    const char *data_dir;        /* TEST07 digits scorer */
    const char *accuracy_script; /* TEST07 external scorer */
} au_llm_in;

/* Verifies, writes the verdict file (verify_accuracy.txt / verify_output_len.txt) into out_dir,
 * sets res (verdicts, counters, verify_file, compat_pass) and adds the STRICT checks to rep.
 * MS_EINPUT (res->notes says why, no verdict file) when an input cannot be used: logs missing
 * or malformed, the audit.config not applied, no records. */
int au_llm_verify(const au_llm_in *in, const char *out_dir, au_verify_result *res, au_rep *rep, ms_err *e);

/* ---- perf.c ---- */

/* TEST01 verify_performance.txt (detail logs, compliance/TEST01/verify_performance.py). */
int au_test01_performance(const au_rules *r, const char *ref_detail, const char *test_detail,
                          ms_buf *out, int *pass, double *ref_score, double *test_score,
                          ms_buf *notes);
/* TEST04 / TEST05 verify_performance.txt (summary logs, 4.4 / 5.4). */
int au_summary_performance(const au_rules *r, au_test t, const char *ref_summary,
                           const char *test_summary, ms_buf *out, int *pass, double *ref_score,
                           double *test_score, ms_buf *notes);
/* STRICT performance checks of TEST04/TEST05: Q4 (tolerance decided on the latency), Q5
 * (Server target latency from the detail logs), and TEST04-U when unique_summary is given. */
void au_strict_performance(au_rep *rep, const au_rules *r, au_test t, const char *ref_summary,
                           const char *test_summary, const char *ref_detail,
                           const char *test_detail, const char *unique_summary);
/* The metric of a summary as a rate (samples/s; 1e9 / the headline percentile latency for
 * SingleStream and MultiStream). 0, or -1 if not found. */
int au_summary_rate(const char *summary, double *rate);
/* How many unique-index runs `audit run` makes for STRICT TEST04 (the best one counts). */
#define AU_UNIQUE_RUNS 3
/* STRICT TEST01 (SingleStream / MultiStream): the measured target percentile must agree as well
 * as the early-stopping estimate COMPAT compares (early-stopping-aware tolerance). */
void au_strict_test01_performance(au_rep *rep, const au_rules *r, const char *ref_detail,
                                  const char *test_detail);

#endif
