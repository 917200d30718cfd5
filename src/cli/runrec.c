/* The runs-database hook shared by `loadgen run` and `audit run` (src/cli/runrec.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/runrec.h"
#include "common/strutil.h"

static int64_t now_unix_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

char *cli_runs_db(const char *cmd, const char *opt)
{
    ms_err e = {0};
    char *p = ms_runs_db_path(opt, getenv("MLSUBMIT_RUNS_DB"), getenv("XDG_DATA_HOME"), getenv("HOME"), &e);
    if (!p)
        cli_fail(cmd, &e);
    return p;
}

int cli_rec_begin(cli_rec *c, const char *cmd, const char *prefix, int *argc, char **argv)
{
    memset(c, 0, sizeof *c);
    c->r.start_unix_ns = now_unix_ns();
    /* argv without --runs-db/--no-record (a rerun chooses its own database) */
    c->argv = calloc((size_t)*argc + 2, sizeof *c->argv);
    if (!c->argv)
        return MS_ERUNTIME;
    if (prefix)
        c->argv[c->argc++] = (char *)prefix;
    int out = 0;
    for (int i = 0; i < *argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) {
            for (; i < *argc; i++)
                argv[out++] = c->argv[c->argc++] = argv[i];
            break;
        }
        if (!strcmp(a, "--no-record")) {
            c->no_record = 1;
            continue;
        }
        if (!strcmp(a, "--runs-db")) {
            if (i + 1 >= *argc) {
                free(c->argv);
                c->argv = NULL;
                return cli_usage_error(cmd, "--runs-db needs a FILE");
            }
            c->db_opt = argv[++i];
            continue;
        }
        if (ms_starts_with(a, "--runs-db=")) {
            c->db_opt = a + 10;
            continue;
        }
        argv[out++] = c->argv[c->argc++] = argv[i];
    }
    *argc = out;
    argv[out] = NULL;
    return MS_OK;
}

int cli_rec_finish(cli_rec *c, const char *cmd, int exit_code)
{
    if (c->r.kind && !c->no_record) {
        c->r.argc = c->argc;
        c->r.argv = c->argv;
        c->r.exit_code = exit_code;
        c->r.end_unix_ns = now_unix_ns();
        const char *of = getenv("MLSUBMIT_RERUN_OF");
        uint64_t u;
        if (of && ms_parse_u64(of, &u) == 0)
            c->r.rerun_of = (int64_t)u;
        char *db = cli_runs_db(cmd, c->db_opt);
        if (db) {
            ms_err e = {0};
            int64_t id = 0;
            if (ms_runs_record(db, &c->r, &id, NULL, NULL, &e) != MS_OK)
                fprintf(stderr, "mlsubmit %s: warning: the run was not recorded: %s\n", cmd, e.msg);
            else if (getenv("MLSUBMIT_RUNS_VERBOSE"))
                fprintf(stderr, "mlsubmit %s: recorded as run %lld in %s\n", cmd, (long long)id, db);
            free(db);
        }
    }
    free(c->argv);
    free(c->opts);
    c->argv = NULL;
    c->opts = NULL;
    return exit_code;
}

int cli_rec_run(const char *cmd, int argc, char **argv, int (*run)(int argc, char **argv, cli_rec *rec))
{
    cli_rec rec;
    int rc = cli_rec_begin(&rec, cmd, NULL, &argc, argv);
    return rc != MS_OK ? rc : cli_rec_finish(&rec, cmd, run(argc - 1, argv + 1, &rec));
}
