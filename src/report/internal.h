/* Internal helpers shared by the files of src/report/ (not a public API). */
#ifndef MS_REPORT_INTERNAL_H
#define MS_REPORT_INTERNAL_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/error.h"
#include "common/strutil.h"
#include "rules/rules.h"

/* The required (or optional) scenarios of a model for a system_type; NULL if none. */
const json_t *rp_scenarios(const ru_round *r, const char *table, const char *system_type,
                           const char *model);

/* Sorted (bytewise) names of the subdirectories (dirs = 1) or regular files (dirs = 0) of path,
 * never following a symlink; "." and ".." left out. *out is NULL-terminated. A missing path
 * gives an empty list; a NULL path (an rp_fmt that ran out of memory) is out of memory. */
int rp_list(const char *path, int dirs, char ***out, size_t *n, ms_err *e);
void rp_list_free(char **v, size_t n);

/* Formats a line into *line (reused) and passes it to note (nothing when note is NULL). */
void rp_notef(void (*note)(void *, const char *), void *ctx, ms_buf *line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The summary.csv columns of both profiles (the unified header, a superset of the legacy one),
 * in the unified order: the results table's columns. */
extern const char *const rp_csv_columns[];
#define RP_NCSV 31

/* printf into a malloc'd string (NULL on allocation failure). */
#define rp_fmt ms_fmt /* common/strutil.h */

/* Recursive copy of the directory src to dst, which must not exist: into a temporary sibling,
 * renamed into place without replacing anything (renameat2 RENAME_NOREPLACE). Regular files
 * keep their mode and times, symbolic links are copied as links, other kinds are refused.
 * *files and *bytes (optional) count what was copied. */
int rp_copy_tree(const char *src, const char *dst, uint64_t *files, uint64_t *bytes, ms_err *e);

/* Python json.dumps-compatible string escaping (ensure_ascii: \uXXXX in lower-case hex, surrogate
 * pairs above U+FFFF); invalid UTF-8 bytes are written as U+FFFD. */
int rp_json_str(ms_buf *b, const char *s);

/* Reads a JSON file (Jansson); errors name the file, line and column. */
json_t *rp_json_load(const char *path, ms_err *e);

/* 1 if path names a directory (not following a final symlink). */
int rp_is_dir_nofollow(const char *path);

#endif

/* ---- the checker, through its public API (report/check.c) ---- */
#include "checker/checker.h"
#include "common/csv.h"

typedef struct rp_check_out {
    ms_csv csv;        /* summary.csv (header + rows) */
    json_t *report;    /* the JSON report (findings, results, counts, verdict) */
    int exit_code;     /* 0 looks OK, 1 errors */
    char *version;     /* rules version used */
} rp_check_out;

/* Runs ck_run on root with the options (NULL = defaults) and takes its results as data
 * (ck_report_rows, ck_report_document): nothing is written. */
int rp_check_run(const char *root, const char *version, const char *data_dir,
                 const ck_options *opts, rp_check_out *out, ms_err *e);
void rp_check_out_free(rp_check_out *c);
/* Names what failed a check, for the refusals of report, package and index: the findings
 * (objects with id, title, file, found, counts: the checker's JSON report) that count against
 * the verdict, grouped by check ID with a count, the first file (else what was found) and the official option that
 * skips the check, if it has one (ck_check_skip_flag). unified: the rules' profile (1, 0; -1 unknown).
 * Truncated to outsz. */
void rp_check_failure_text(const json_t *findings, int unified, char *out, size_t outsz);
/* The profile of a check run: 1 unified, 0 legacy, -1 unknown. */
int rp_check_unified(const rp_check_out *c);

/* ---- the index database (report/index.c) ---- */
#include "common/lazy_sqlite.h"
/* Creates the schema of docs/index-schema.md in an empty database. */
int rp_db_schema(sqlite3 *db, ms_err *e);
/* Executes SQL, errors naming what. */
int rp_db_exec(sqlite3 *db, const char *sql, const char *what, ms_err *e);
