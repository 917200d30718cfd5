/* Compliance audits (MLCommons compliance/TESTxx; README, Audits): TEST01 (accuracy in performance mode), TEST04 (caching
 * detection), TEST05 (alternate seeds), TEST06 (LLM output consistency), TEST07 (full-dataset
 * accuracy in performance mode), TEST08 (DLRMv3 accuracy in performance mode) and TEST09 (LLM
 * output length in performance mode).
 *
 *   au_run     performs an audit with the embedded LoadGen and a reference SUT: the reference
 *              run(s), the audited run with the test's audit.config, verification, and the
 *              TESTxx/ directory as a submitter places it.
 *   au_verify  verifies the logs of any LoadGen and writes the verify files. COMPAT reproduces
 *              the upstream scripts' verdicts and file contents; STRICT adds mlsubmit's stronger
 *              checks and reports them separately (never inside the COMPAT files).
 *   au_replay  re-derives from a detail log's requested settings what an unmodified LoadGen
 *              would have done, and lists every mismatch with the log.
 *
 * Per-test and per-model values (audit.config contents, sampling targets, seeds, required
 * tests, tolerances) are data: rules/compliance.json. Library code: no printing, no exit;
 * errors come back in ms_err naming the file and what was expected. */
#ifndef MS_AUDIT_H
#define MS_AUDIT_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/error.h"
#include "loadgen/loadgen.h"

typedef enum au_test {
    AU_TEST01 = 1,
    AU_TEST04 = 4,
    AU_TEST05 = 5,
    AU_TEST06 = 6,
    AU_TEST07 = 7,
    AU_TEST08 = 8,
    AU_TEST09 = 9
} au_test;

/* 1 for the tests whose per-benchmark values are in tests.TESTxx of the rules (TEST06-TEST09). */
#define AU_IS_BENCH_TEST(t) ((t) >= AU_TEST06 && (t) <= AU_TEST09)

/* "TEST01", "test01", "01" and "1" (likewise 04 to 09); -1 if unknown. */
int au_test_parse(const char *s);
const char *au_test_name(au_test t);

typedef enum au_mode { AU_COMPAT = 0, AU_STRICT = 1 } au_mode;

/* TEST01 mode A element type (upstream --dtype): byte (signed 8-bit), int32, int64, float32. */
typedef enum au_dtype { AU_DT_BYTE = 0, AU_DT_INT32, AU_DT_INT64, AU_DT_FLOAT32 } au_dtype;
int au_dtype_parse(const char *s);
const char *au_dtype_name(au_dtype d);

/* Directory layouts of a round (where each round's submission_checker.py check_compliance_dir
 * looks). */
typedef enum au_layout { AU_LAYOUT_UNIFIED = 0, AU_LAYOUT_LEGACY = 1 } au_layout;
struct au_rules;
/* The layout of a round name (v6.1, 6, v5.1...): the "layouts" of rules/compliance.json; -1 if none */
int au_layout_parse(const struct au_rules *r, const char *s);

/* The accuracy script used by the TEST01 non-determinism fallback
 * (compliance/TEST01/create_accuracy_baseline.sh and the TEST01 README): none (no fallback files),
 * bytes (share of records byte-identical to the accuracy run: for SUTs without a dataset), digits
 * (the digits benchmark's scorer, on the dataset in data_dir). */
typedef enum au_scorer { AU_SCORER_NONE = 0, AU_SCORER_BYTES, AU_SCORER_DIGITS } au_scorer;

/* ---- rules data (rules/compliance.json) ---- */

typedef struct au_rules au_rules;

/* path NULL = rules/compliance.json of the data folder (rules/rules.h ru_rules_file). */
au_rules *au_rules_load(const char *path, ms_err *e);
void au_rules_free(au_rules *r);

/* The audit.config directory upstream uses for a model (mlperf.conf or checker name: resnet50,
 * resnet, bert-99.9, ...); NULL if the model is not in the rules. */
const char *au_rules_audit_dir(const au_rules *r, const char *model);
/* TEST01 accuracy_log_sampling_target of a model; 0 if unknown. */
uint64_t au_rules_sampling_target(const au_rules *r, const char *model);
/* 1 required, 0 not required, -1 the model is not in that round's lists. round: v5.1... */
int au_rules_required(const au_rules *r, const char *round, au_test t, const char *model);
/* The round the embedded LoadGen of a compat version stands for (v5.1, v6.1). */
const char *au_rules_round_of(const au_rules *r, lg_compat c);
/* The alternate (TEST05) seeds of a round: qsl, sample index, schedule. -1 if none. */
int au_rules_test05_seeds(const au_rules *r, const char *round, uint64_t seeds[3]);

/* The audit.config text for a test (t), or for the STRICT unique-index run when unique != 0
 * (TEST04 only). model picks the TEST01 sampling target (sampling_target != 0 overrides it);
 * seeds (TEST05, may be NULL = the round's) fill the TEST05 file. *out is malloc'd. */
int au_audit_config_text(const au_rules *r, au_test t, int unique, const char *model,
                         uint64_t sampling_target, const char *round, const uint64_t *seeds,
                         char **out, ms_err *e);

/* ---- verification ---- */

typedef struct au_verify_opts {
    au_test test;
    au_mode mode;
    /* The submission's scenario directory: accuracy/mlperf_log_accuracy.json and
     * performance/run_1/ (a directory holding the logs directly is also accepted for the
     * performance logs). */
    const char *reference_dir;
    /* The audited run: a LoadGen output directory (mlperf_log_*) or a placed TESTxx directory
     * (accuracy/, performance/run_1/). */
    const char *audit_dir;
    /* TEST04 STRICT: the unique-index run (TEST04-U), or NULL (that check is then not made). */
    const char *unique_dir;
    /* Where the TESTxx directory goes (the scenario directory of the layout): verify files,
     * logs, fallback files. NULL: only the verify files, into verify_dir (default "."). */
    const char *output_dir;
    const char *verify_dir;
    const char *strict_report_path; /* STRICT: also write the report there (outside the tree) */
    au_dtype dtype;                 /* TEST01 mode A */
    int unixmode;                   /* TEST01 mode B (line digests) instead of mode A */
    au_scorer scorer;               /* TEST01 fallback */
    const char *data_dir;           /* for AU_SCORER_DIGITS: --data (digits_find_dir); NULL = default places */
    const char *model;              /* for the TEST01 sampling target and the fallback tolerance;
                                       NULL = guessed from the directory names */
    const uint64_t *test05_seeds;   /* TEST05 STRICT: expected alternate seeds (NULL = round's) */
    const char *scenario;           /* TEST06: the run's scenario (NULL = from its detail log) */
    const char *accuracy_script;    /* TEST07 for benchmarks scored by their own script: the
                                       command, {accuracy_log} replaced by the log's path */
} au_verify_opts;

void au_verify_opts_default(au_verify_opts *o);

typedef struct au_verify_result {
    int accuracy_pass;       /* TEST01 verify_accuracy.txt holds TEST PASS */
    int performance_pass;    /* verify_performance.txt holds TEST PASS */
    int fallback_run;        /* TEST01: the fallback files were produced */
    int fallback_pass;       /* ... and every delta is within tolerance */
    double fallback_baseline, fallback_compliance, fallback_delta_pct, fallback_allowed_pct;
    int compat_pass;         /* the verdict of the COMPAT files (TEST01: 3.7) */
    int strict_run;          /* STRICT checks were made */
    int strict_pass;         /* every STRICT check passed (skipped ones do not count) */
    int input_error;         /* an input file was missing or malformed (named in notes) */
    /* TEST06-TEST09 */
    int first_token_pass;    /* TEST06: -1 skipped (Offline) */
    int eos_pass, length_pass;
    double score, threshold; /* TEST07 accuracy, TEST09 mean output tokens (threshold: min) */
    double max_threshold;    /* TEST09 */
    uint64_t matched, unmatched, ne_mismatch; /* TEST08 */
    char verify_file[32];    /* TEST06-TEST09: the name of the verdict file */
    /* counters for the caller's summary */
    uint64_t perf_entries, qsl_match, data_mismatch, full_mismatch;
    double ref_score, test_score;
    int have_scores;
    char verify_accuracy_path[1024];
    char verify_performance_path[1024];
    ms_buf notes;            /* one line per message: inputs missing, copies made, ... */
    ms_buf strict_report;    /* the STRICT report (empty in COMPAT mode) */
} au_verify_result;

/* Verifies and writes the files. Returns MS_OK when it ran (whatever the verdicts; see res),
 * MS_EINPUT when an input could not be used at all (res->notes says which and why; the verify
 * files then say TEST FAIL with the reason), MS_ERUNTIME when an output could not be written. */
int au_verify(const au_verify_opts *o, const au_rules *r, au_verify_result *res, ms_err *e);
void au_verify_result_free(au_verify_result *res);

/* ---- running an audit ---- */

typedef struct au_run_opts {
    au_test test;
    au_mode mode;
    const char *sut_spec;
    const char *model;              /* mlperf.conf lookups and the per-model audit values */
    lg_scenario scenario;
    const char *mlperf_conf;        /* NULL = embedded */
    const char *user_conf;          /* NULL = none */
    const char *const *sets;        /* "KEY=VALUE" TestSettings overrides, after the files */
    size_t nsets;
    size_t total_samples, performance_samples; /* counting QSL size (0 = SUT's own) */
    lg_compat compat;
    const char *data_dir;           /* --data of dataset SUTs (digits_find_dir); NULL = default places */
    au_layout layout;
    const char *output_dir;         /* scenario directory: TESTxx/ goes inside */
    const char *results_dir;        /* where the reference runs are / go (NULL = by layout) */
    int reuse_results;              /* verify against the logs already in results_dir */
    au_dtype dtype;
    uint64_t sampling_target;       /* TEST01: override the model's target (0 = rules) */
    const uint64_t *test05_seeds;   /* TEST05: NULL = the round's alternate seeds */
    int64_t timeout_ns;             /* per run: give up when the SUT stops answering */
    int force;                      /* run a test the round does not require for the model */
    int keep_work;                  /* keep the work directory (audit.config files, unique runs) */
    const char *strict_report_path;
    const char *accuracy_script;    /* TEST07: the benchmark's own accuracy script (see verify) */
    /* progress messages ("reference performance run: ...") for the caller to print */
    void (*note)(void *ctx, const char *msg);
    /* the LoadGen's console output (lg_run_options.console), NULL = dropped */
    void (*console)(void *ctx, const char *text, size_t len);
    void *note_ctx;
} au_run_opts;

void au_run_opts_default(au_run_opts *o);

typedef struct au_run_result {
    au_verify_result v;
    char test_dir[1024];            /* the TESTxx directory written */
    char results_dir[1024];
    char work_dir[1024];            /* when kept */
    int runs;                       /* LoadGen runs performed */
} au_run_result;

/* Returns MS_OK when the audit ran (verdicts in res->v), MS_EUSAGE for bad options (unknown
 * model for TEST01 without a sampling target, test not required without force), MS_EINPUT for a
 * rejected config file, MS_ERUNTIME when a run failed (SUT timeout, logs not writable). */
int au_run(const au_run_opts *o, const au_rules *r, au_run_result *res, ms_err *e);
void au_run_result_free(au_run_result *res);

/* ---- replay ---- */

typedef struct au_replay_opts {
    int compat;          /* -1 = decide from loadgen_version (< 6.0.6: 5.1 rules), else lg_compat */
    const char *test;    /* "TEST01"/"TEST04"/"TEST05" to check the audit evidence for; NULL =
                            from the path (a TESTxx directory component) */
    const char *model;   /* for the TEST01 sampling target; NULL = from the path */
    const char *accuracy_log; /* the run's accuracy log for the sampling count; NULL = beside the
                                 detail log (or TESTxx/accuracy/) */
    const lg_version_rules *rules; /* --loadgen-compat V: that release's rules (NULL = from
                                      loadgen_version; overrides compat) */
} au_replay_opts;

typedef enum au_replay_verdict {
    AU_REPLAY_MATCH = 0,       /* no mismatch, and the loaded set (so the seed) or a generated figure
                                  was confirmed */
    AU_REPLAY_MISMATCH = 1,
    AU_REPLAY_CANNOT_TELL = 2, /* no mismatch, and nothing of the above could be checked */
} au_replay_verdict;

typedef struct au_replay_result {
    size_t checked;      /* comparisons made */
    size_t mismatches;
    size_t notes;        /* things that could not be checked (and why) */
    int compat_used;     /* lg_compat actually used */
    size_t core_matched; /* matches of loaded_qsl_set and generated_* */
    au_replay_verdict verdict;
    char rules_used[16]; /* the LoadGen release whose rules replayed the log */
    char first_mismatch[512]; /* the first MISMATCH line (without the tag) */
} au_replay_result;

/* Writes the report (one line per check: "match", "MISMATCH", "note") into out. Returns MS_OK
 * (mismatches or not), MS_EINPUT for an unreadable or unusable log. */
int au_replay(const char *detail_path, const au_replay_opts *o, const au_rules *r, ms_buf *out,
              au_replay_result *res, ms_err *e);

/* One log of a tree replay. */
typedef struct au_replay_item {
    char *path;
    char *submitter;     /* "<division>/<submitter>", or "(outside a submitter)" */
    int rc;              /* au_replay's return code (MS_OK, or the log could not be replayed) */
    char *error;         /* the message when rc != MS_OK */
    char *report;        /* the full report (keep_reports) */
    au_replay_result res;
} au_replay_item;

typedef struct au_replay_tree_result {
    au_replay_item *items; /* sorted by path */
    size_t n;
} au_replay_tree_result;

/* Replays every mlperf_log_detail.txt under the results/ and compliance/ directories of root
 * (src/audit/replay_tree.c) with jobs threads. Returns MS_OK (whatever the verdicts), or an
 * error when root cannot be walked. */
int au_replay_tree(const char *root, const au_replay_opts *o, const au_rules *r, int jobs, int keep_reports,
                   au_replay_tree_result *out, ms_err *e);
void au_replay_tree_free(au_replay_tree_result *t);

#endif
