/* Reporting and packaging of submission trees: edge-result inference (infer), accuracy-log
 * truncation and its verification (truncate), the SQLite index of a tree (index, query), the
 * reproducible tarball (package) and the results tables (report). As the MLCommons
 * tools/submission scripts.
 *
 * Library code: nothing is printed except through the callbacks and FILE streams the caller
 * passes; errors come back in ms_err (file named, what was expected). Every output file is
 * written to a temporary file and renamed. */
#ifndef MS_REPORT_H
#define MS_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "checker/checker.h"
#include "common/error.h"

/* A line of progress or of an action list, for the caller to print. */
typedef void (*rp_note_fn)(void *ctx, const char *line);

/* ---- infer: edge-result inference (preprocess_submission.py infer_scenario_results, copy
 * low-accuracy results) */

typedef struct rp_infer_opts {
    const char *root;
    const char *version;        /* round (rules/<version>.json); NULL = newest */
    const char *data_dir;       /* NULL = found like the checker's */
    const char *submitter;      /* only this submitter directory, or NULL */
    const char *extra_model_benchmark_map; /* open-division mapping file; NULL = model_mapping.json */
    int dry_run;                /* print the actions, change nothing */
    int upstream;               /* exactly preprocess_submission.py: lower-case directory names,
                                   case-sensitive existence tests, compliance of closed only */
    int no_scenarios;           /* --noinfer-scenario-results */
    int no_low_accuracy;        /* --noinfer-low-accuracy-results */
    rp_note_fn note;
    void *ctx;
} rp_infer_opts;

typedef struct rp_infer_stats {
    size_t copies;              /* directories copied (or that would be) */
    uint64_t files, bytes;
    size_t problems;            /* systems or models that could not be processed */
} rp_infer_stats;

int rp_infer(const rp_infer_opts *o, rp_infer_stats *st, ms_err *e);

/* ---- truncate (truncate_accuracy_log.py) ----------------------------------------------------- */

#define RP_TRUNCATE_MANIFEST "mlsubmit-truncation.json"

typedef struct rp_truncate_opts {
    const char *root;
    const char *backup;         /* backup directory (required) */
    const char *version;        /* round: decides the layout (split or unified); NULL = newest */
    const char *submitter;      /* NULL = all */
    const char *const *scenarios_to_skip;
    size_t nskip;
    int dry_run;
    rp_note_fn note;
    void *ctx;
} rp_truncate_opts;

typedef struct rp_truncate_stats {
    size_t truncated, already, skipped, errors;
    size_t verified, mismatches;
} rp_truncate_stats;

/* Truncates every accuracy log, appends hash= to accuracy.txt, keeps the full logs under the
 * backup directory and records (path, full SHA-256 and size, truncated SHA-256 and size) in
 * <backup>/mlsubmit-truncation.json. */
int rp_truncate(const rp_truncate_opts *o, rp_truncate_stats *st, ms_err *e);
/* Verifies a truncation: every record's backup file has the recorded size and SHA-256, the
 * hash= line of accuracy.txt names it, and the log in the tree is exactly the truncation of
 * the backup. records_db: take the records from an index (its truncations table) instead of
 * the backup's manifest. Mismatches are counted (and noted); the return value is an error
 * only when nothing could be checked. */
int rp_truncate_verify(const rp_truncate_opts *o, const char *records_db, rp_truncate_stats *st,
                       ms_err *e);

/* ---- index (docs/index-schema.md) --------------------------------------------------------- */

typedef struct rp_index_opts {
    const char *root;
    const char *db;             /* output database (NULL for rp_index_mem) */
    const char *version;        /* round for the checker; NULL = newest */
    const char *data_dir;
    const char *backup;         /* import the truncation records of this backup directory */
    int jobs;                   /* hashing threads; <= 0 = CPUs */
    int full;                   /* re-hash everything even if size and mtime are unchanged */
    int no_check;               /* do not run the checker (no results, no findings) */
    int portable;               /* no mtimes, no absolute paths, no times (the package's index) */
    int refuse_failed_check;    /* fail (MS_FAIL, nothing written) when the check fails */
    const ck_options *check;    /* checker options (root, version, data_dir are filled in); NULL = defaults */
    rp_note_fn note;
    void *ctx;
} rp_index_opts;

typedef struct rp_index_stats {
    size_t files, hashed, reused, removed, symlinks;
    int unchanged;              /* nothing changed: the database was left as it was */
    uint64_t bytes_hashed;
    size_t results, findings, systems, runs;
    int check_exit;             /* the checker's exit code (0 OK, 1 errors), -1 if not run */
    char check_failure[1024];   /* when it failed: what (rp_check_failure_text) */
    double seconds;
} rp_index_stats;

int rp_index(const rp_index_opts *o, rp_index_stats *st, ms_err *e);
/* Builds a portable index in memory; *data (malloc'd) receives the database file's bytes. */
int rp_index_mem(const rp_index_opts *o, rp_index_stats *st, unsigned char **data, size_t *len,
                 ms_err *e);

/* query: read-only SQL. Writes aligned text (or CSV) to out. Returns MS_EUSAGE for a statement
 * that would write or does not compile. */
int rp_query(const char *db, const char *sql, int csv, FILE *out, ms_err *e);

/* ---- package ------------------------------------------------------------------------------ */

#define RP_PACKAGE_INDEX ".mlsubmit/index.sqlite"

typedef struct rp_package_opts {
    const char *root;
    const char *output;         /* SUBMISSION.tar.gz; the .sha256 goes beside it */
    const char *version;
    const char *data_dir;
    const char *backup;         /* truncation records to embed (optional) */
    int force;                  /* package even when the checker finds errors */
    int jobs;
    const ck_options *check;
    rp_note_fn note;
    void *ctx;
} rp_package_opts;

typedef struct rp_package_stats {
    size_t members, files, dirs, symlinks;
    uint64_t bytes;
    int check_exit;
    char check_failure[1024];   /* when the check failed: what (rp_check_failure_text) */
    char sha256[65];
} rp_package_stats;

int rp_package(const rp_package_opts *o, rp_package_stats *st, ms_err *e);

typedef struct rp_verify_stats {
    size_t members, ok, changed, missing, extra, errors;
    int sha256_file;            /* 1 the .sha256 beside matched, 0 mismatched, -1 absent */
} rp_verify_stats;

/* Re-hashes every member of a package against its embedded index; each difference is noted
 * with the member's name. */
int rp_package_verify(const char *path, rp_note_fn note, void *ctx, rp_verify_stats *st, ms_err *e);
/* The same on a package held in memory (the fuzz harness). */
int rp_package_verify_mem(const void *data, size_t len, const char *name, rp_note_fn note,
                          void *ctx, rp_verify_stats *st, ms_err *e);

/* ---- report ------------------------------------------------------------------------------- */

typedef enum rp_format { RP_FMT_CSV, RP_FMT_MD, RP_FMT_HTML, RP_FMT_JSON } rp_format;

typedef struct rp_report_opts {
    const char *root;           /* a tree (indexed in memory first), or */
    const char *db;             /* an index */
    const char *version;
    const char *rounds;         /* an index's rounds to table, "v0.5,v4.1"; NULL = every round */
    const char *data_dir;
    rp_format format;
    const char *output;         /* NULL = the report comes back in rp_report_stats.text */
    const char *ids;            /* ids.json: Unique ID -> number (read and written back) */
    const char *report_version; /* ID prefix (5.1, ...); NULL = from the round */
    const char *repository;     /* Details/Code URLs */
    const char *repository_owner;
    const char *repository_branch;
    const char *title;
    int force;                  /* write even when the check failed (the stats say so) */
    int published_types;        /* json/csv: the column types of the round's published
                                   summary_results.json (rules/report.json) instead of the
                                   types pandas infers over the report's rows */
    const ck_options *check;
    rp_note_fn note;
    void *ctx;
} rp_report_opts;

typedef struct rp_report_stats {
    size_t rows, records;
    int check_failed;           /* the tree's (or index's) check failed; written with force */
    char check_failure[1024];   /* what failed (rp_check_failure_text) */
    char *text;                 /* without an output file: the report (malloc'd, the caller
                                   writes and frees it) */
    size_t text_len;
} rp_report_stats;

int rp_report(const rp_report_opts *o, rp_report_stats *st, ms_err *e);

/* The HTML report's style sheet (without <style>), for other pages with the same look. */
extern const char rp_html_css[];

#endif
