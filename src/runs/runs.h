/* The runs database: one SQLite row per `loadgen run` / `audit run` (what ran, with which
 * settings and seeds, on which host and build, on which files, with which result), and the
 * queries behind `mlsubmit runs` and `mlsubmit serve`. Schema: docs/runs-schema.md.
 *
 * Writes are one IMMEDIATE transaction per run in WAL mode with a busy timeout, so concurrent
 * recorders on one machine serialise instead of failing, and a process killed before COMMIT
 * leaves nothing behind (SQLite's rollback on the next open). */
#ifndef MS_RUNS_H
#define MS_RUNS_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/error.h"
#include "loadgen/loadgen.h"

#define MS_RUNS_SCHEMA_VERSION 1

/* What one run did, as the command that ran it knows it. Everything is optional except kind and
 * argv; the recorder adds the host facts, the build, the file hashes and the parsed result. */
typedef struct ms_run_record {
    const char *kind;               /* "loadgen run", "audit run" */
    int argc;                       /* the command line after "mlsubmit" */
    char *const *argv;
    int64_t start_unix_ns, end_unix_ns;
    const char *sut;                /* the SUT spec */
    const char *model, *scenario, *mode;
    const char *test;               /* audits: TEST01, TEST04, ... */
    const char *loadgen_compat;     /* the emulated LoadGen release (lg_compat_version) */
    const lg_test_settings *settings; /* the requested TestSettings (every field, seeds included) */
    const char *const *options;     /* extra "KEY=VALUE" facts (e.g. audit --set values) */
    size_t noptions;
    const char *log_dir;            /* the (audited) performance run's LoadGen logs: its summary
                                       and detail log give the result and effective settings */
    const char *const *inputs;      /* files or directories read (configs, dataset, model) */
    size_t ninputs;
    const char *const *outputs;     /* files or directories written */
    size_t noutputs;
    const char *trace_path;         /* the Chrome trace, when one was written */
    int exit_code;
    const char *verdict;            /* audits: "PASS" / "FAIL" */
    const char *error;              /* the first error, if any */
    size_t n_errors, n_warnings;
    int64_t rerun_of;               /* the run this repeats (`runs rerun`), else 0 */
} ms_run_record;

/* Test seam: called inside the write transaction just before COMMIT (NULL in normal use). */
typedef void (*ms_runs_before_commit)(void *ctx);

/* The database path: opt (--runs-db) if set, else env_db (MLSUBMIT_RUNS_DB) if non-empty, else
 * $XDG_DATA_HOME/mlsubmit/runs.sqlite, else $HOME/.local/share/mlsubmit/runs.sqlite. The caller
 * passes the environment values (library code reads no environment). Returns a malloc'd path. */
char *ms_runs_db_path(const char *opt, const char *env_db, const char *xdg_data_home,
                      const char *home, ms_err *e);

/* Records one run (creating the database and its directory if needed). *id_out (optional)
 * receives the new row's id. */
int ms_runs_record(const char *db_path, const ms_run_record *r, int64_t *id_out,
                   ms_runs_before_commit hook, void *hook_ctx, ms_err *e);

/* ---- reading (the database opened read-only) ---- */

typedef struct ms_runs_db ms_runs_db;

/* Opens read-only (writable = 0) or read-write (for gc). A missing file is MS_EINPUT. */
ms_runs_db *ms_runs_open(const char *path, int writable, ms_err *e);
void ms_runs_close(ms_runs_db *db);

/* One filter of `runs list --where`: KEY OP VALUE with OP one of = != < > <= >= ~ (substring).
 * KEY is a column (id, kind, sut, model, scenario, mode, test, validity, verdict, metric,
 * exit_code, hostname, cpu_model, started_at, ...) or settings.NAME / effective.NAME. */
typedef struct ms_runs_filter {
    char key[96];
    char op[3];
    char value[512];
} ms_runs_filter;

/* Parses "KEY OP VALUE" (e.g. "scenario=Server", "metric>1000", "settings.min_query_count=100"). */
int ms_runs_filter_parse(const char *text, ms_runs_filter *f, ms_err *e);

/* Runs matching every filter, newest first (limit 0 = all): a JSON array of run summaries
 * (id, kind, started_at, duration_s, sut, model, scenario, mode, test, validity, verdict,
 * metric_name, metric, exit_code, hostname). */
int ms_runs_list(ms_runs_db *db, const ms_runs_filter *f, size_t nf, size_t limit, json_t **out,
                 ms_err *e);
/* Everything about one run (with its files); MS_EINPUT "no run N" when unknown. */
int ms_runs_get(ms_runs_db *db, int64_t id, json_t **out, ms_err *e);

/* Compares n >= 2 runs: {"runs": [...ids], "settings": [{name, values[]}] (only those that
 * differ), "metrics": [{name, values[], delta[], delta_pct[], noise[]}]} where delta is against the
 * first run and noise says, for a latency percentile, whether the difference exceeds run-to-run
 * noise (see ms_runs_quantile_ci). */
int ms_runs_compare(ms_runs_db *db, const int64_t *ids, size_t n, json_t **out, ms_err *e);

/* A distribution-free confidence interval for the p-quantile of a run from its recorded latency
 * percentiles and its sample count: the order statistics of ranks n*p -/+ 1.96*sqrt(n*p*(1-p)),
 * read off the piecewise-linear quantile function through (0, min), the percentiles, (1, max).
 * pts: pairs (p, value) sorted by p. Returns 0, or -1 if the points do not allow it or the
 * interval reaches p = 0 or 1 (too few samples to bound that quantile). */
int ms_runs_quantile_ci(const double (*pts)[2], size_t npts, double p, uint64_t n, double *lo,
                        double *hi);

/* Deletes all but the newest keep runs (and their file rows). *deleted receives the count. */
int ms_runs_gc(ms_runs_db *db, size_t keep, size_t *deleted, ms_err *e);

/* The command line of a run (argv after "mlsubmit") and its working directory, for rerun. */
int ms_runs_argv(ms_runs_db *db, int64_t id, char ***argv, int *argc, char **cwd, ms_err *e);
void ms_runs_argv_free(char **argv, int argc);

/* The newest run with rerun_of = id (0 if none). */
int64_t ms_runs_latest_rerun(ms_runs_db *db, int64_t id);

/* CSV (header + one line per run, RFC 4180 quoting) or JSON (array of full runs). */
int ms_runs_export(ms_runs_db *db, const char *format, char **out, size_t *len, ms_err *e);

#endif
