/* mlsubmit index and mlsubmit query: the SQLite index of a tree (docs/index-schema.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/rpopts.h"
#include "common/strutil.h"
#include "report/report.h"

static const char index_usage[] =
    "usage: mlsubmit index ROOT --db FILE [--version vX.Y] [--backup DIR] [--jobs N] [--full]\n"
    "                      [--no-check] [--force] [checker options]\n"
    "\n"
    "Indexes a submission tree into an SQLite database (schema: docs/index-schema.md): every file\n"
    "(SHA-256, size, mtime, mode; symbolic links as links, never followed), the system\n"
    "descriptions, one row per summary.csv row of the checker with every column, the checker's\n"
    "findings, one row per detail log (scenario, validity, throughput, latency percentiles) and\n"
    "the truncation records of --backup DIR. Files are hashed in parallel. Re-indexing reuses the\n"
    "hash of every file whose size and mtime are unchanged, and an unchanged tree is only\n"
    "re-stat'ed (the database is not rewritten). The database is written to a temporary file and\n"
    "renamed.\n"
    "\n"
    "Several rounds share one database: every table has a round column (the rounds table holds\n"
    "each round's root, options and verdict); indexing a tree adds or replaces its round's rows\n"
    "only. An index of schema 1 (one tree) is upgraded, its rows kept as the round it recorded.\n"
    "\n"
    "  --version vX.Y   the tree's round (default: detected from its logs and layout, as\n"
    "                   'mlsubmit check' does; else the newest)\n"
    "  --backup DIR     import DIR/mlsubmit-truncation.json (see 'mlsubmit truncate')\n"
    "  --jobs N         hashing threads (default: all CPUs)\n"
    "  --full           re-hash every file\n"
    "  --no-check       do not run the checker (no results, no findings)\n"
    "  --force          index a tree whose check fails (its results table then holds only what\n"
    "                   the checker accepts; the verdict and findings are in meta and findings)\n"
    "\n"
    "A tree whose check fails is refused: the message names the failing checks and the option\n"
    "that skips each (e.g. S2, files at the root: --skip-extra-files-in-root-check).\n"
    "\n"
    "Exit: 0 indexed (the verdict is stored in meta), 1 the check failed (not indexed), 2 usage,\n"
    "3 bad input, 4 cannot write the database.\n";

static const char query_usage[] =
    "usage: mlsubmit query FILE \"SQL\" [--csv]\n"
    "\n"
    "Runs read-only SQL on an index (opened read-only; statements that would write are refused)\n"
    "and prints the rows as aligned text, or as CSV (RFC 4180) with --csv. Example:\n"
    "  mlsubmit query index.db \"SELECT Platform, Scenario, Result, Units FROM results\"\n"
    "\n"
    "Exit: 0 ok, 2 usage (bad or writing SQL), 3 not an index.\n";

static int cli_index_run(rp_index_opts *op, cli_checker *ck, int force, int npos, char **pos);

int cmd_index(int argc, char **argv)
{
    rp_index_opts o = {.note = rp_cli_print};
    int force = 0;
    cli_checker ck;
    cli_checker_init(&ck, "\nChecker options (as for 'mlsubmit check'):");
    const cli_opt opts[] = {
        CLI_STRING(0, "db", &o.db, "FILE", NULL),
        CLI_STRING(0, "version", &o.version, "vX.Y", NULL),
        CLI_STRING(0, "backup", &o.backup, "DIR", NULL),
        CLI_CALLBACK(0, "jobs", "N", NULL, cli_jobs_cb, &o.jobs),
        CLI_FLAG(0, "full", &o.full, NULL),
        CLI_FLAG(0, "no-check", &o.no_check, NULL),
        CLI_FLAG(0, "force", &force, NULL),
        CLI_TABLE(ck.opts),
        CLI_END,
    };
    char **pos;
    int npos = cli_parse("index", index_usage, opts, argc, argv, &pos);
    if (npos < 0) {
        cli_checker_free(&ck);
        return cli_parse_exit(npos);
    }
    int rc = cli_index_run(&o, &ck, force, npos, pos);
    cli_checker_free(&ck);
    return rc;
}

static int cli_index_run(rp_index_opts *op, cli_checker *ck, int force, int npos, char **pos)
{
    rp_index_opts o = *op;
    if (cli_root_arg("index", npos, pos, &o.root))
        return MS_EUSAGE;
    if (!o.root || !o.db)
        return cli_usage_error("index", "ROOT and --db FILE are required");
    cli_warn_not_root("index", o.root, "no results were indexed");
    o.check = &ck->o;
    o.refuse_failed_check = !force;
    ms_err e;
    ms_err_clear(&e);
    rp_index_stats st;
    int rc = rp_index(&o, &st, &e);
    if (rc)
        return cli_fail("index", &e);
    if (st.unchanged) {
        printf("index %s: unchanged: %zu files re-stat'ed, nothing hashed or written; %.3f s\n", o.db, st.files,
               st.seconds);
        if (st.check_exit > 0)
            fprintf(stderr, "mlsubmit index: warning: %s records a failed check (indexed with --force; "
                            "'mlsubmit query %s \"SELECT * FROM findings WHERE counts\"' lists it)\n", o.db, o.db);
        return MS_OK;
    }
    if (st.check_exit > 0)
        fprintf(stderr, "mlsubmit index: warning: indexed with --force on a failed check: %s\n", st.check_failure);
    printf("index %s: %zu files (%zu hashed, %llu bytes; %zu unchanged), %zu links, %zu removed; "
           "%zu results, %zu findings, %zu systems, %zu runs; %.2f s\n",
           o.db, st.files, st.hashed, (unsigned long long)st.bytes_hashed, st.reused, st.symlinks, st.removed,
           st.results, st.findings, st.systems, st.runs, st.seconds);
    return MS_OK;
}

int cmd_query(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        fputs(query_usage, stdout);
        return MS_OK;
    }
    const char *db = NULL, *sql = NULL;
    int csv = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--csv"))
            csv = 1;
        else if (argv[i][0] == '-' && argv[i][1] && !sql && db)
            return cli_usage_error("query", "unknown option '%s'", argv[i]);
        else if (!db)
            db = argv[i];
        else if (!sql)
            sql = argv[i];
        else
            return cli_usage_error("query", "give the SQL as one argument (quote it)");
    }
    if (!db || !sql)
        return cli_usage_error("query", "FILE and SQL are required");
    ms_err e;
    ms_err_clear(&e);
    int rc = rp_query(db, sql, csv, stdout, &e);
    if (rc)
        return cli_fail("query", &e);
    return fflush(stdout) ? MS_ERUNTIME : MS_OK;
}
