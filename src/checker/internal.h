/* Internal interfaces of the checker (the files of src/checker/). Data flow (docs/ARCHITECTURE.md):
 *   rules.c     rules/<version>.json -> ck_rules (read-only, shared by threads)
 *   plan        legacy.c / unified.c walk the directory skeleton (sequential, cheap)
 *   scenario.c  per-scenario checks (measurements, accuracy, performance, power, compliance),
 *               run in parallel by run.c's worker pool; each task owns its findings
 *   walk.c      per-submitter recursive walk (structure checks S4-S9, S12, S13), parallel
 *   legacy.c / unified.c   sequential bookkeeping in traversal order: result keys, counters,
 *               summary.csv rows, model-level checks
 *   report.c    text / JSON / CSV rendering of the ck_report */
#ifndef MS_CHECKER_INTERNAL_H
#define MS_CHECKER_INTERNAL_H

#include <jansson.h>
#include <pthread.h>
#include <stdint.h>

#include "checker/checker.h"
#include "common/buf.h"
#include "common/jschema.h"
#include "common/mllog.h"
#include "common/pytext.h"
#include "common/strutil.h"
#include "rules/rules.h"

/* ------------------------------------------------------------------ rules ---- */

typedef struct ck_metric_re {
    const char *metric;
    ms_pyre re;
    _Atomic int jit;           /* machine code made (ck_rules_pattern, once, at the first use) */
} ck_metric_re;

/* Behaviour switches of a round: the only place a round's different behaviour is decided
 * (read from rules/<version>.json by ck_rules_load; an absent key keeps the default noted,
 * the behaviour of the rounds from v5.0 on). docs/ARCHITECTURE.md maps each to its checks. */
typedef struct ck_switches {
    int calibration_doc_required;   /* "calibration_doc_required" (1): S11 */
    int csv_weight_data_types;      /* "csv_weight_data_types_column" (1): last summary.csv column */
    int emptiness_checks;           /* "emptiness_checks" (1): E2/E3 empty files, E4 empty values */
    int csv_accuracy_value_only;    /* "csv_accuracy_value_only" (0): Accuracy column = value */
    int accuracy_last_value;        /* "accuracy_last_value" (0): only each metric's last value counts */
    int summary_power_counts;       /* "summary_power_counts" (1): power/division/system counts */
    int measurements_failure_stops; /* "measurements_failure_stops" (1): legacy E failure ends the
                                     * scenario; 0: only a missing dir nulls its key, checks go on */
    int accuracy_failure_stops;     /* "accuracy_failure_stops" (1): legacy A1/A2 end the scenario;
                                     * 0: A1 only fails accuracy, A2 is logged, checks go on */
    int systems_results_check;      /* "systems_results_check" (1): S10, measurements/ and
                                     * systems/ entries need a results/ directory */
    int performance_file_list_stops; /* "performance_file_list_stops" (1): a performance/run_1
                                      * file list mismatch (P1) fails the run; 0: logged only */
    int has_test05_seeds;           /* "test05_seeds" present: TEST05 runs use those seeds (P7) */
    uint64_t test05_seeds[3];
    int compliance_rejects;         /* "compliance_failure_rejects_result" (1): C1/C2/C4 null it */
    int compliance_perf_checked;    /* "compliance_runs_perf_checked" (1): C3 on compliance runs */
    int compliance_last_decides;    /* "compliance_last_test_decides" (0): last test's verdict */
    int early_stopping;             /* "early_stopping" (1): P9/P10, else P11 for every scenario */
    int multistream_inference;      /* "multistream_inference" (1): Offline inferred from a
                                     * MultiStream log, MultiStream from a SingleStream one (I2,
                                     * I3); 0: only Offline from SingleStream (I1) */
    int result_counts_unless_none;  /* "result_counts_unless_none" (0): Results= counts every
                                     * result that has a value, 0 included (v is not None);
                                     * 0: only truthy ones (if v:) */
    int open_accuracy_needs_value;  /* "open_accuracy_needs_value" (0): open-division leniency
                                     * (A9) only when accuracy.txt gave a metric value */
    int summary_row_needs_scenario; /* "summary_row_needs_scenario" (1): a result in a folder
                                     * naming no scenario has no row (M4); 0: folder name as label */
    int csv_power_extra_row;        /* "csv_power_extra_row" (1): a second row for power */
    int csv_notes_always_joined;    /* "csv_notes_always_joined" (0): hw_notes + ". " + sw_notes */
    int power_wg_default;           /* "power_wg_check_by_default" (1): W4 without --more-power-check */
    int ranging_run_checked;        /* "ranging_run_checked" (1): W3 reads the ranging detail log */
    int result_from_summary;        /* "result_from_summary" (0): v0.7.1's summary-file results */
    int perf_constraints;           /* "perf_constraints_checked" (1): P10-P14 */
    int server_runs;                /* "server_performance_runs" (1): run_1..run_N for Server */
    int detail_log_query_count;     /* "detail_log_query_count" (1): result_query_count logged */
    int tree_walk_checks;           /* "tree_walk_checks" (1): S4-S13 on each submitter tree */
    int status_checked;             /* "status_checked" (1): Y2, and the CSV status lower-cased */
    int network_mode_checked;       /* "network_mode_checked" (1): Y4 and is_network's Y9 */
    int interactive_needs_server;   /* "interactive_needs_server_log" (1): I4 */
    int submitter_case_sensitive;   /* "system_desc_submitter_case_sensitive" (0): Y6 exact */
    int bad_system_keeps_models;    /* "system_desc_failure_keeps_models" (0): Y5-Y7 null the
                                     * system key, its models are still checked (v0.7.1) */
    int measurement_stops;          /* "measurement_failure_stops_scenario" (1): E1-E5 end it */
    int extra_model_map_inline;     /* "extra_model_map_inline" (0): the option is name:model;... */
    int scenario_check_open;        /* "scenario_check_open" (0): M4 (scenario neither required nor
                                     * optional) also in the open division */
    int submitter_without_results;  /* "submitter_without_results_counts" (0): a submitter folder
                                     * without results/ is S14 and a NoResults key */
    int llm_check_decides_validity; /* "llm_check_decides_validity" (0): for an LLM model, the
                                     * token-latency check (P3) replaces result_validity (P2) */
    int equal_issue_closed_only;    /* "equal_issue_closed_only" (0): P4 (and E7) only in the
                                     * closed and network divisions */
    int token_limits_all_but_offline; /* "token_limits_all_but_offline" (0): P3's TTFT/TPOT limits
                                     * (the model's Server entry) in every scenario but Offline */
    int test01_delta_overrides;     /* "test01_delta_overrides" (1): TEST01's fallback compares a
                                     * metric with accuracy_delta_perc_overrides; 0: only with
                                     * accuracy_delta_perc_default */
    int csv_wdt_str;                /* "csv_weight_data_types_str" (1): the performance row writes
                                     * str(weight_data_types); 0: concatenated, as the power row */
    int equal_issue_from_conf;      /* "equal_issue_from_conf" (0): P4 passes when mlperf.conf or
                                     * user.conf set sample_concatenate_permutation (E7) or the log
                                     * holds the string "true" */
} ck_switches;

typedef struct ck_rules {
    json_t *j;                 /* the whole rules file */
    const char *version;       /* points into j */
    int unified;               /* profile "unified" */
    uint64_t seeds[3];         /* qsl, sample_index, schedule */
    ck_switches sw;            /* the round's behaviour switches (ck_rules_load) */
    ck_metric_re *patterns;    /* compiled accuracy_patterns */
    size_t npatterns;
    pthread_mutex_t jit_mu;    /* the patterns' machine code is made under it */
    int jit_mu_ok;
    ms_pyre hash_re;
    ms_pyre *power_file_res;   /* power_measure_file_patterns compiled (code NULL: one that
                                  does not compile, which no file matches) */
    size_t npower_file_res;
    const json_t *smoke;       /* selected profile object, or NULL */
    char *path;
} ck_rules;

int ck_rules_load(ck_rules *r, const char *path, const char *profile, ms_err *e);
void ck_rules_free(ck_rules *r);
const json_t *ck_rget(const ck_rules *r, const char *key);
/* 1 if the rules array `key` contains the string s */
int ck_rlist_has(const ck_rules *r, const char *key, const char *s);
int ck_jlist_has(const json_t *arr, const char *s);
/* rules[key][a] or rules[key][a][b]; NULL when absent */
const json_t *ck_rget2(const ck_rules *r, const char *key, const char *a);
const json_t *ck_rget3(const ck_rules *r, const char *key, const char *a, const char *b);
/* The compiled accuracy pattern of a metric (NULL: none); made machine code (PCRE2's JIT) at its
 * first use: it is matched on every line of every accuracy.txt, and only the metrics the tree
 * uses are worth the compiling. Thread-safe. */
const ms_pyre *ck_rules_pattern(const ck_rules *r, const char *metric);
/* required / optional scenario lists for (category, model); NULL when the model is absent */
const char *ck_remap(const ck_rules *r, const char *model);
const json_t *ck_required(const ck_rules *r, const char *category, const char *model);
const json_t *ck_optional(const ck_rules *r, const char *category, const char *model);
/* accuracy target or upper-limit list for a model (scenario-specific tables resolved as the
 * unified checker does: the scenario dir name, "default", "Offline", "Server") */
const json_t *ck_targets(const ck_rules *r, const char *key, const char *model,
                         const char *scen_dir);

/* the target lists of an accuracy_targets / accuracy_upper_limits entry: the list itself, or
 * the per-scenario lists of a scenario-specific entry; returns how many (at most max) */
size_t ck_target_lists(const json_t *entry, const json_t **lists, size_t max);

/* -------------------------------------------------------------- findings ---- */

typedef enum ck_sev { CK_SEV_ERROR = 0, CK_SEV_WARNING = 1, CK_SEV_INFO = 2 } ck_sev;

typedef struct ck_finding {
    const char *id;            /* static */
    ck_sev sev;
    int waived;
    char *waiver;              /* justification */
    char *file;                /* relative to ROOT, may be NULL */
    long line;                 /* 0 = none */
    char *pointer;             /* JSON pointer, may be NULL */
    char *expected, *found;    /* may be NULL */
    char *message;
    char *group[5];            /* division, submitter, system, benchmark (model dir), scenario */
    long key;                  /* result key index it affects (-1 none) */
} ck_finding;

typedef struct ck_flist {
    ck_finding *v;
    size_t n, cap;
} ck_flist;

void ck_flist_free(ck_flist *l);
int ck_flist_move(ck_flist *dst, ck_flist *src);  /* appends src's findings, empties src */

typedef struct ck_waiver {
    char *id, *path, *why;
    long line;
    int used;
} ck_waiver;

/* Where a finding belongs (grouping) */
typedef struct ck_where {
    const char *division, *submitter, *system, *model, *scenario;
} ck_where;

struct ck_state;

/* Records a finding. Returns 1 if the failure counts against the verdict, 0 if the check is
 * skipped (--skip, official skip flags) or waived (the finding is then kept, marked waived).
 * Severity CK_SEV_WARNING/CK_SEV_INFO findings always return 0 (unless --strict promotes warnings:
 * then 1). fmt is the message; file relative to ROOT. */
int ck_report_finding(struct ck_state *run, ck_flist *out, const ck_where *w, const char *id,
                      ck_sev sev, const char *file, long line, const char *pointer,
                      const char *expected, const char *found, const char *fmt, ...)
    __attribute__((format(printf, 11, 12)));
int ck_skipped(const struct ck_state *run, const char *id);

/* ------------------------------------------------------------ file system ---- */

typedef struct ck_entry {
    char *name;
    unsigned char is_dir;      /* stat() follows links, like os.path.isdir */
    unsigned char is_file;     /* like os.path.isfile */
    unsigned char is_link;
    unsigned char stat_ok;     /* stat() (following links) succeeded: os.path.exists */
    unsigned char size_known;  /* size was stat'ed (ck_dir_read_sized, links, odd types) */
    long long size;            /* following links; -1 if unknown */
    size_t listing_pos;        /* position in readdir's (os.listdir's) order, before sorting */
} ck_entry;

typedef struct ck_dir {
    ck_entry *v;
    size_t n;
    int err;                   /* errno when the directory could not be read */
    int packed;                /* the names follow the entries in v's block (a copy from the
                                  listing store): freed with it */
} ck_dir;

/* Lists a directory (names sorted byte-wise; "." and ".." left out; each entry keeps its
 * position in the file system's own order, which is os.listdir's, as listing_pos). */
int ck_dir_read(ck_dir *d, const char *path);
/* The same with the size of every non-directory entry (size_known set): one stat per file. */
int ck_dir_read_sized(ck_dir *d, const char *path);
/* The same with the directory opened as name relative to the open directory at (AT_FDCWD:
 * name is a path); path is its whole path (the listing store's key). keep: when the listing is
 * made here (not taken from the store), *keep gets the directory's open descriptor for the
 * caller to open entries relative to it and close; otherwise -1. */
int ck_dir_read_sized_at(ck_dir *d, int at, const char *name, const char *path, int *keep);
/* The pattern compiled with these PCRE2 options once per check: owned by the check's store (the
 * caller never frees it; match data stays the caller's), shared by the threads (pcre2_match only
 * reads it). NULL outside a check's store, on a compile error or without memory: then the
 * caller compiles its own. */
const pcre2_code *ck_re_shared(const char *pattern, uint32_t options);
void ck_dir_free(ck_dir *d);
int ck_pexists(const char *path);   /* os.path.exists (follows links) */
int ck_isdir(const char *path);
int ck_isfile(const char *path);
long long ck_fsize(const char *path);  /* -1 if missing */
/* Store of directory listings shared by the threads of one check (fsx.c): ck_run makes one
 * and brackets its traversal with begin/end, the worker pool brackets each worker thread (with
 * the caller's store, or one of its own); the calls above use it inside these brackets only. ck_fs_store_new returns NULL without memory (then nothing is kept). */
typedef struct ck_fs_store ck_fs_store;
ck_fs_store *ck_fs_store_new(void);
void ck_fs_store_free(ck_fs_store *s);
void ck_fs_cache_begin(ck_fs_store *s);
void ck_fs_cache_end(void);
ck_fs_store *ck_fs_cache_current(void);  /* this thread's store, NULL if none */
char *ck_join(const char *a, const char *b);
char *ck_join3(const char *a, const char *b, const char *c);
#define ck_fmt ms_fmt /* common/strutil.h */
/* 1 if name is the canonical name of scenario sc (rules/rules.h ru_scenario; exact, like
 * strcmp; NULL is none) */
#define CK_SCEN_IS(name, sc) (ru_scenario_parse(name) == (int)(sc))

/* Python files_diff: the set symmetric difference of the plain files of dir and required,
 * minus optional and the always-ignored names; result as "{'a', 'b'}" text in *diff
 * (NULL when equal). Returns -1 on allocation failure. */
int ck_files_diff(const ck_rules *r, const char *dir, const json_t *required,
                  const json_t *optional, const char *const *extra_required, char **diff);

/* Reads a whole text file (bounded). */
int ck_read_text(const char *path, size_t max, char **out, size_t *len, ms_err *e);

/* ----------------------------------------------------------- detail logs ---- */

typedef struct ck_dval {
    char *key;                 /* key and raw live in the ck_dlog's text blocks */
    size_t key_len;            /* a decoded key may hold a NUL (\u0000) */
    unsigned char key_bslash;  /* the decoded key holds a backslash */
    ms_jv_kind kind;
    char *raw;                 /* lexical value (NUL-terminated copy); NULL if too large */
    size_t raw_len;
    size_t line;
} ck_dval;

/* A block of the texts a ck_dlog keeps (keys and values): they are carved out of blocks that
 * never move, freed together by ck_dlog_free, not allocated one by one */
typedef struct ck_dblock {
    struct ck_dblock *prev;
    size_t cap, used;
    char data[];
} ck_dblock;

typedef struct ck_dlog {
    ck_dval *v;                /* first occurrence of each key */
    ck_dblock *texts;          /* the keys and values of v (the newest block first) */
    size_t n, cap;
    size_t *slot;              /* hash index into v (index + 1; 0 = empty), nslot a power of 2 */
    size_t nslot;
    size_t last;               /* index + 1 of the previous record's key (0: none) */
    char **errors;             /* texts of the first is_error records */
    size_t nerror_texts;
    size_t n_error_recs;       /* all is_error records */
    int first_line_is_record;
    size_t nbad, first_bad_line;
    char bad_msg[200];
    int bad_utf8;
    size_t bad_utf8_line;
} ck_dlog;

/* Streams a detail log (universal newlines like Python's text mode) through the shared
 * :::MLLOG parser, keeping the first value of every key. I/O problems return MS_EINPUT with a
 * message; malformed content is recorded in nbad / bad_utf8. */
int ck_dlog_load(ck_dlog *d, const char *path, ms_err *e);
/* ck_dlog_load that also hands over the file's bytes in *kept (NUL-terminated, *kept_len bytes,
 * malloc'd) when it is a regular file of at most keep_max bytes (and under the longest line
 * read): it is then read whole, in one pass, instead of streamed; otherwise *kept is NULL. For
 * a check that reads the same file whole afterwards (the Power WG check's detail logs). */
int ck_dlog_load_keep(ck_dlog *d, const char *path, size_t keep_max, char **kept, size_t *kept_len,
                      ms_err *e);
void ck_dlog_free(ck_dlog *d);
/* The calling thread keeps the long values it validated (between begin and end, which frees
 * them): a later log's record with the same bytes is not scanned again (dlog.c, "values seen
 * before"). ck_parallel's workers do. */
void ck_dlog_memo_begin(void);
void ck_dlog_memo_end(void);
/* The end of the line starting at p: the first '\n' or '\r' in [p, end), or end; *high is set
 * when a byte >= 0x80 comes before it (only such a line needs the UTF-8 check). simd: an
 * ms_simd_level() value (at most the CPU's; every level gives the same result). */
const char *ck_dlog_line_stop(const char *p, const char *end, int *high, int simd);
/* The detail-log format detector's hook (dlog_text.c): when `path` is a LoadGen 0.5/0.7 text
 * log (ms_log_detect), its ERROR records become d's error texts (n_error_recs, errors), as the
 * v0.7.1 checker's scan for ERROR lines sees them; any other file leaves d unchanged. */
int ck_dlog_text_errors(ck_dlog *d, const char *path, ms_err *e);
const ck_dval *ck_dlog_get(const ck_dlog *d, const char *key);
int ck_dlog_u64(const ck_dlog *d, const char *key, uint64_t *out);
int ck_dlog_i64(const ck_dlog *d, const char *key, int64_t *out);
int ck_dlog_num(const ck_dlog *d, const char *key, double *out);    /* float(value) */
int ck_dlog_truthy(const ck_dlog *d, const char *key);              /* Python bool() */
char *ck_dlog_str(const ck_dlog *d, const char *key);               /* string value, malloc'd */
/* Python str() of the value, or "None" when absent (malloc'd) */
char *ck_dlog_text(const ck_dlog *d, const char *key);

/* ------------------------------------------------------------------- model ---- */

typedef struct ck_system {
    char *name;                /* directory name under results/ */
    char *json_rel;            /* systems/<name>.json relative to ROOT */
    json_t *j;                 /* parsed system JSON or NULL */
    int ok;                    /* passed the system checks (legacy: system-level key) */
    int walkable;              /* JSON read and system type valid: its models can be checked */
    const char *category;      /* system_type if valid, else NULL */
    int is_network;            /* legacy: string "true" (any case); unified: truthy */
    int np_done;               /* W6 evaluated (unified bookkeeping, sequential) */
    int np_ok;                 /* W6 passed: power results of the system may be valid */
    char *np_text;             /* design_power_watts as str() would print it, or NULL (None) */
    ck_flist findings;         /* system-level findings (reported once) */
} ck_system;

typedef struct ck_value {
    int set;
    double d;                  /* numeric value */
    char text[64];             /* Python str() of the value as the reference prints it */
} ck_value;

struct ck_submitter;

typedef struct ck_scen {
    /* identity */
    const char *division, *submitter, *system, *model_dir, *scen_dir;
    const char *mlperf_model;  /* canonical model */
    const char *scen_fixed;    /* canonical scenario (or the raw name when unknown) */
    int closed;                /* closed or network division */
    int open;
    const ck_system *sys;
    struct ck_submitter *sub;
    char *rel;                 /* <div>/<sub>/results/<sys>/<model>/<scen> */
    char *abs;                 /* path on disk */
    int skip_task;             /* not evaluated (legacy M4 or skipped scenario) */
    size_t listing_pos;        /* the directory's position in os.listdir's order */

    /* results of the task */
    ck_flist f;
    int stage;                 /* legacy: 0 ran to the end, 1 E-failure, 2 A1, 3 A2 */
    int errors;                /* legacy: increments of the model's errors counter */
    int acc_ok;
    char *acc_str;             /* Accuracy column */
    int perf_ran;              /* P0/P1 passed (legacy) */
    int perf_ok;
    ck_value value;
    /* the Result column when it is not value's text (result_from_summary: check_results_dir of
     * submission-checker.py v0.7.1 writes the `r` of the last run it read, "None" if that run
     * raised, while results[name] keeps the last valid run's); if row_result_set, else value.text */
    int row_result_set;
    char row_result[64];
    int inferred;
    char *effective_scenario;
    int has_power;
    int power_ok;
    double power_metric, power_eff;
    int comp_ok;
    int comp_ran;
    int meas_ok;
    int conf_equal_issue;      /* equal_issue_from_conf: mlperf.conf / user.conf set
                                * sample_concatenate_permutation to 1 for this scenario (E7) */
    int sys_ok;                /* unified: system group */
    json_t *weight_data_types; /* from the implementation JSON (owned), or NULL */
    int wdt_present;
    char *wdt_rel;             /* the implementation JSON it came from */
    char *meas_key;            /* legacy: measurement dir key to null on E failure */
    int unified_ok;            /* unified: every group passed */
} ck_scen;

typedef struct ck_submitter {
    char *division, *name;
    char *abs;
    ck_flist walk;             /* S4-S9, S12, S13 findings */
    int walk_failed;           /* legacy: an official S4-S9 failure */
    json_t *mapping;           /* open-division model_mapping.json */
} ck_submitter;

/* ------------------------------------------------------------------ plan ---- */

/* The directory skeleton of a run, in traversal order: submitters own a range of systems,
 * systems a range of models, models a range of scenarios (index ranges into flat arrays). */
typedef struct ck_pmodel {
    char *dir;
    const char *mlperf;        /* canonical model (M1) */
    int m2, m3;                /* legacy: model-level failures */
    int ok;                    /* unified: the scenario set passed */
    const json_t *req, *opt;   /* legacy: required / optional scenarios */
    size_t first, n;           /* scenarios */
    ck_flist f;
} ck_pmodel;

typedef struct ck_psystem {
    ck_system sys;
    size_t first, n;           /* models */
} ck_psystem;

typedef struct ck_psub {
    ck_submitter sub;
    size_t first, n;           /* systems */
    int skip;                  /* not walked, nothing below it evaluated */
    int no_results;            /* no results/ folder (S14): its key is <div>/<sub>/results */
    ck_flist f;                /* submitter-level findings (S10, S11, M7, R1) */
} ck_psub;

struct ck_state;

/* A system description checked ahead of the plan (ck_presys_*) */
typedef struct ck_pre_sys {
    char *div, *sub, *abs;
    ck_system sys;             /* name and json_rel set, the rest from ck_check_system */
} ck_pre_sys;

typedef struct ck_plan {
    struct ck_state *run;
    ck_pre_sys *pre;           /* in the plan's order; taken (sys moved out) as it gets there */
    size_t npre, cappre, pre_next;
    ck_psub *subs;
    size_t nsubs, capsubs;
    ck_psystem *syss;
    size_t nsyss, capsyss;
    ck_pmodel *models;
    size_t nmodels, capmodels;
    ck_scen *scens;
    size_t nscens, capscens;
    /* folders of each submitter (<div>/<sub>/<name>) that the plan lists itself: listed ahead,
     * on every core, with the submitter's system descriptions (NULL-terminated; NULL: none) */
    const char *const *sub_prefetch;
} ck_plan;

/* After planning: point every scenario at its submitter, system and model (the arrays may
 * have moved while they grew), then run the submitter walks and the scenario tasks in
 * parallel. */
void ck_plan_run_tasks(ck_plan *pl);
void ck_plan_free(ck_plan *pl);
/* The system descriptions, checked ahead of the plan all at once on every core (plan.c): the
 * candidates of one division (div/<submitter>/results/<system>), then all of them checked, then
 * each taken by the plan where it would have checked it: 1, or 0 when there is none (the plan
 * checks that system itself). */
void ck_presys_division(ck_plan *pl, const char *div);
void ck_presys_run(ck_plan *pl);
int ck_presys_take(ck_plan *pl, const char *div, const char *sub, ck_system *sys);

/* ------------------------------------------------------------------- run ---- */

typedef struct ck_key {
    char *key;
    int has_value;             /* the key holds a value (not None) */
    int truthy;                /* the value is truthy */
    char *value;               /* text printed on the Results line */
} ck_key;

typedef struct ck_row {
    char *text;                /* the CSV line without the newline */
    char *reader;              /* NULL, or the same fields in RFC 4180 quoting when a CSV reader
                                * could not split text into the header's columns (an unquoted
                                * field with a comma or line break: v0.7's availability
                                * "Research, Development, or Internal") */
    long key;
} ck_row;

typedef struct ck_counts {
    /* per division (closed, open, network): system identity -> count, power and non-power */
    char **ids[3][2];
    size_t *cnt[3][2];
    size_t n[3][2], cap[3][2];
} ck_counts;

typedef struct ck_state {
    const ck_options *o;
    ck_rules rules;
    ms_jschema *sys_schema, *meas_schema, *map_schema;
    char *root;                /* ROOT as given */
    ck_waiver *waivers;
    size_t nwaivers;
    int jobs;

    /* results */
    ck_flist findings;         /* in traversal order */
    ck_key *keys;
    size_t nkeys, capkeys;
    long *khash;               /* open addressing: index+1, 0 empty */
    size_t khash_cap;
    ck_row *rows;
    size_t nrows, caprows;
    ck_counts counts;
    _Atomic int oom;           /* set by any thread on allocation failure */
    char **notes;              /* run-level notes printed in the text report */
    size_t nnotes;
    ck_timings timings;        /* phase by phase (ck_report_timings) */
    /* memory the traversal no longer needs (the listing store, the plan): freed by ck_run on
     * a helper thread while its caller prints and writes the outputs; ck_report_free waits
     * for it (ck_defer_free) */
    struct ck_late {
        void (*fn)(void *);
        void *arg;
    } late[4];
    size_t nlate;
    pthread_t late_thread;
    int late_running;
} ck_state;

/* Hands arg to fn (which frees it) once the check is over: on ck_run's helper thread, or here
 * and now when there is no room left. */
void ck_defer_free(ck_state *run, void (*fn)(void *), void *arg);

/* milliseconds on the monotonic clock, for ck_timings */
double ck_now_ms(void);

/* keys */
long ck_key_set(ck_state *run, const char *key, const char *value, int truthy);
long ck_key_find(const ck_state *run, const char *key);
void ck_key_null(ck_state *run, long idx);
/* rows */
int ck_row_add(ck_state *run, char *text, long key);
/* ck_row_add with the row's reader text (owned; NULL: none). */
int ck_row_add_reader(ck_state *run, char *text, char *reader, long key);
/* counters: div 0 closed, 1 open, 2 network */
int ck_count_add(ck_state *run, const char *division, const char *identity, int power);
int ck_add_note(ck_state *run, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* parallel execution of n tasks */
typedef void (*ck_task_fn)(void *ctx, size_t i);
void ck_parallel(int jobs, size_t n, ck_task_fn fn, void *ctx);

/* scenario.c */
void ck_eval_scenario(ck_state *run, ck_scen *s);
/* power.c: W4, the Power WG checker's checks on <scenario>/performance (perf_rel) */
/* A file's bytes that one check of a scenario read and another adopts rather than reading the
 * file again: rel relative to ROOT, text NUL-terminated (NULL: none), utf8_ok known valid UTF-8 */
typedef struct ck_kept {
    char *rel, *text;
    size_t len;
    int utf8_ok;
} ck_kept;
/* The largest text file the Power WG check reads whole */
#define CK_POWER_TEXT_MAX (64u * 1024 * 1024)
/* kept: the ranging and run_1 detail logs as the performance checks read them (texts adopted,
 * set to NULL) */
void ck_power_wg_check(ck_state *run, ck_flist *out, const ck_where *w, const char *perf_rel,
                       ck_kept *kept, size_t nkept);
/* Python datetime.strptime(s, "%m-%d-%Y %H:%M:%S.%f") as UTC microseconds: 0, or -1 when
 * Python raises ValueError (-2: out of memory) */
int ck_ptd_strptime(const char *s, size_t n, int64_t *us);
/* nameplate.c: W6, the design power of systems/<sys>_power.yaml as str() of the sum (malloc'd
 * in *value). 0 on success; -1 when PyYAML's safe_load or the summation would fail (err says
 * why, with the line). */
int ck_nameplate_yaml(const char *path, char **value, char *err, size_t errlen);
/* walk.c */
void ck_walk_submitter(ck_state *run, ck_submitter *sub);
/* system checks (systems.c) */
/* network.c: the Network division's stricter checks (N1-N3) of one system (abs: its JSON) */
void ck_check_network_system(ck_state *run, ck_system *sys, const char *division, const char *submitter,
                             const char *abs);
void ck_check_system(ck_state *run, ck_system *sys, const char *division, const char *submitter,
                     const char *sys_json_abs);
void ck_scen_free(ck_scen *s);
void ck_scens_free(ck_scen *v, size_t n);  /* each, then the array */
void ck_system_free(ck_system *s);
void ck_submitter_free(ck_submitter *s);

/* legacy.c / unified.c: traversal and bookkeeping */
int ck_run_legacy(ck_state *run, ms_err *e);
int ck_run_unified(ck_state *run, ms_err *e);

/* csv fields */
int ck_csv_py(ms_buf *b, const json_t *v);  /* str(v) */
/* A summary row's unit, power unit (rules: units.overrides.<model>, then units.default;
 * power_units) of the scenario named scen, and its Result column: the power metric on a power
 * row, else the performance value as logged (report.c). */
void ck_row_unit_result(const ck_rules *r, const ck_scen *s, const char *scen, int power_row, const char **unit,
                        const char **punit, char result[64]);

/* Appends a zeroed element to a growable array (doubling); jumps to the caller's `oom` label
 * when realloc fails. */
#define CK_GROW(arr, n, cap)                                                                 \
    do {                                                                                     \
        if ((n) == (cap)) {                                                                  \
            size_t nc_ = (cap) ? (cap) * 2 : 16;                                             \
            void *np_ = realloc((arr), nc_ * sizeof *(arr));                                 \
            if (!np_)                                                                        \
                goto oom;                                                                    \
            (arr) = np_;                                                                     \
            (cap) = nc_;                                                                     \
        }                                                                                    \
        memset(&(arr)[(n)], 0, sizeof *(arr));                                               \
    } while (0)

#define CK_DIV_INDEX(d) (!strcmp((d), "closed") ? 0 : !strcmp((d), "open") ? 1 : 2)

#endif
