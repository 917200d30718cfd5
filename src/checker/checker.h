/* The submission checker: `mlsubmit check ROOT`. It walks an MLPerf Inference submission tree
 * with the rules of one round (rules/<version>.json, a data file per round) and reproduces
 * the verdict and summary.csv of the MLCommons checker of that round (legacy profile for
 * v5.x, unified for v6.x), with every finding identified by a check ID (S1.., Y1.., M1..,
 * E1.., A1.., P0.., I1.., W1.., C1.., see docs/ARCHITECTURE.md and `mlsubmit check
 * --list-checks`).
 *
 * Library code: no printing, no exit; errors come back in ms_err. A run returns a ck_report
 * that the caller renders (text, JSON, CSV) and asks for the exit status. */
#ifndef MS_CHECKER_H
#define MS_CHECKER_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "common/csv.h"
#include "common/error.h"

typedef struct ck_options {
    const char *root;          /* submission root, as given (used verbatim in unified keys) */
    const char *version;       /* v5.1, ...; NULL = the newest round in <data_dir>/rules */
    const char *data_dir;      /* directory holding rules/ and schemas/ (rules/rules.h ru_data_dir) */
    const char *submitter;     /* only this submitter directory (exact name), or NULL */
    const char *profile;       /* NULL or a profile of the rules file ("smoke") */
    int strict;                /* warnings of the stricter checks count as errors */
    int jobs;                  /* worker threads; <= 0 = number of online CPUs */
    const char *const *skip_ids; /* check IDs whose failures are ignored */
    size_t nskip;
    const char *waivers_path;  /* waivers file, or NULL */

    /* options of the MLCommons checkers (submission_checker.py get_args) */
    int skip_compliance;
    int debug;
    int submission_exceptions;
    int skip_power_check;
    int more_power_check;      /* --more-power-check (v1.0 to v4.1): run the Power WG checks */
    int skip_meaningful_fields_emptiness_check;
    int skip_check_power_measure_files;
    int skip_empty_files_check;
    int skip_extra_files_in_root_check;
    int skip_extra_accuracy_files_check;
    int skip_all_systems_have_results_check;
    int skip_calibration_check;
    int skip_dataset_size_check;
    int private_ids;
    const char *extra_model_benchmark_map; /* NULL = "model_mapping.json" */
    const char *const *scenarios_to_skip;
    size_t nscenarios_to_skip;
} ck_options;

typedef struct ck_report ck_report;

/* Runs the checker. On success *out holds the report (free with ck_report_free). Fails only
 * for problems that prevent checking at all: unknown version, unreadable rules, missing
 * root (MS_EINPUT / MS_EUSAGE), bad waivers file (MS_EINPUT), out of memory (MS_ERUNTIME). */
int ck_run(const ck_options *o, ck_report **out, ms_err *e);
void ck_report_free(ck_report *r);

/* 0 when the verdict is "submission looks OK", 1 when it has errors. */
int ck_report_exit_code(const ck_report *r);

/* Where a check's time went (wall clock, milliseconds), phase by phase, for `check --timings`:
 * what runs on every core (systems, tasks) and what runs on one (the rest). */
typedef struct ck_timings {
    double setup_ms;       /* rules, schemas, waivers, the root */
    double systems_ms;     /* system descriptions, and their results' listings, on every core */
    double plan_ms;        /* listing the tree into result tasks, outside the systems phase */
    double tasks_ms;       /* submitter walks and result directories, on every core */
    double bookkeeping_ms; /* result keys, summary rows, counts */
    double free_ms;        /* the plan and the directory listings freed */
    size_t systems, tasks; /* how many of each */
    int jobs;              /* threads of the parallel phases */
} ck_timings;
const ck_timings *ck_report_timings(const ck_report *r);

/* Human-readable report: findings grouped by division/submitter, system, benchmark and
 * scenario, then the official summary lines. flags: CK_TEXT_COLOR (ANSI colours),
 * CK_TEXT_QUIET (only the findings that count against the verdict, and the summary). */
enum { CK_TEXT_COLOR = 1, CK_TEXT_QUIET = 2 };
int ck_report_write_text(const ck_report *r, FILE *out, unsigned flags);
/* Machine-readable report (findings, results, counts), written atomically. */
int ck_report_write_json(const ck_report *r, const char *path, ms_err *e);
/* One finding per line, tab-separated: severity (ERROR, WARNING, INFO, WAIVED), ID, file,
 * line, JSON pointer, message. */
int ck_report_write_tsv(const ck_report *r, const char *path, ms_err *e);
/* The official summary.csv of the round's profile, written atomically. */
int ck_report_write_csv(const ck_report *r, const char *path, ms_err *e);

/* The results as data, for callers that use them in memory (report, index, package): no file.
 * ck_report_document: the document ck_report_write_json writes (tool, rules_version, profile,
 * verdict, exit_code, counts, findings with their IDs, severities, places and groups, results:
 * the result keys with their values), a new reference; NULL with e when out of memory.
 * ck_report_rows: the rows of summary.csv (rows[0] the header) with the fields a CSV reader
 * gets from the official file, the legacy profile's unescaped quotes included; a row whose
 * unquoted field holds a comma or line break (no reader could split it into the header's
 * columns) has the fields the checker wrote. */
json_t *ck_report_document(const ck_report *r, ms_err *e);
int ck_report_rows(const ck_report *r, ms_csv *out, ms_err *e);

/* The round of a submission tree (detect.c): the LoadGen versions and format of a sample of its
 * performance detail logs, its compliance layout and system JSONs against the "detect" block
 * of each rules file. On success *version and *why (the evidence, for the caller to print) are
 * malloc'd; a mixed or unknown tree is MS_EINPUT with a message naming what was seen. A tree
 * whose LoadGen no detect block knows gets the newest round. */
int ck_detect_round(const char *root, const char *data_dir, char **version, char **why, ms_err *e);

/* Lints a rules file: JSON Schema (schemas/rules.schema.json), then cross-references (every
 * model of a scenario table has targets, patterns for every metric, regexes compile, seeds fit
 * 64 bits...). Problems are appended to out (one per line); returns the number of problems, or
 * -1 if the file could not be checked at all (e set). */
int ck_rules_lint(const char *path, const char *data_dir, char **out, ms_err *e);

/* Check catalogue (src/checker/checks.def): ID, title, hint; for --list-checks and option
 * validation. ck_check_id numbers the checks in listing order (CK_S1 .. CK_R1); CK_ID(P7) is
 * the string P7 as a literal, and a name not in the catalogue does not compile. */
#define CK_KIND_OFFICIAL 0
#define CK_KIND_STRICTER 1
typedef enum ck_check_id {
#define CK_CHECK(id, kind, title, hint) CK_##id,
#include "checker/checks.def"
#undef CK_CHECK
    CK_NCHECKS
} ck_check_id;
/* the check's ID as a string; CK_##id makes an ID missing from checks.def a compile error */
#define CK_ID(id) (&(#id)[0 * CK_##id])
typedef struct ck_check_info {
    const char *id;
    const char *title;
    const char *hint;
    int stricter;  /* 1: a stricter-than-official check (warning unless --strict) */
} ck_check_info;
const ck_check_info *ck_checks(size_t *n);
const ck_check_info *ck_check_find(const char *id);
/* The option of the official checker that skips check id in the profile (unified 1, legacy 0;
 * -1 unknown: only flags that apply in both), e.g. "--skip-extra-files-in-root-check" for S2;
 * NULL when the check has none (--skip ID skips any check). */
const char *ck_check_skip_flag(const char *id, int unified);

#endif
