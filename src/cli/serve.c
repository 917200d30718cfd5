/* mlsubmit serve: the local web UI and JSON API (src/serve/). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/parseopt.h"
#include "cli/runrec.h"
#include "common/fsutil.h"
#include "common/strutil.h"
#include "serve/serve.h"

static const char usage_text[] =
            "usage: mlsubmit serve [--db INDEX] [--runs RUNS] [--listen HOST:PORT] [--max-seconds N]\n"
            "\n"
            "A local web UI and JSON API over an index (`mlsubmit index`) and the runs database:\n"
            "  /                    rounds and submitters        /api/rounds\n"
            "  /results?...         results, filters and sorting /api/results?round=&division=&suite=\n"
            "                       (round division suite model   &model=&scenario=&availability=\n"
            "                       scenario availability          &submitter=&sort=&order=&limit=\n"
            "                       submitter)\n"
            "  /systems/ID          a system: results, JSON, files with SHA-256   /api/systems/ID\n"
            "  /history?model=&scenario=   best result per round, chart          /api/history?...\n"
            "  /runs, /runs/ID      runs; a run's settings, percentiles chart, trace  /api/runs, /api/runs/ID\n"
            "  /compare?ids=A,B     a comparison of runs                          /api/compare?ids=A,B\n"
            "\n"
            "  --db INDEX        the index (read-only)\n"
            "  --runs RUNS       the runs database (read-only; default: --runs-db's default, when it exists)\n"
            "  --listen H:P      address to listen on (default 127.0.0.1:8080, loopback; port 0: any free port)\n"
            "  --max-seconds N   stop after N seconds (default: until Ctrl-C / SIGTERM)\n"
            "\n"
            "Exit: 0 stopped, 2 usage, 3 a database cannot be opened, 4 cannot listen.\n";

static int max_seconds_cb(const cli_opt *opt, const char *arg, const char *cmd)
{
    double *v = opt->ctx;
    if (ms_parse_double(arg, v) != 0 || *v <= 0)
        return cli_usage_error(cmd, "--max-seconds: expected a positive number, got '%s'", arg);
    return 0;
}

static void on_listen(void *ctx, const char *url, int loopback)
{
    (void)ctx;
    printf("mlsubmit serve: listening on %s\n", url);
    if (!loopback)
        fprintf(stderr, "mlsubmit serve: warning: listening beyond loopback: anyone who can reach this address can read the databases\n");
    fflush(stdout);
}

int cmd_serve(int argc, char **argv)
{
    const char *cmd = "serve";
    ms_serve_opts o = {0};
    o.listen = "127.0.0.1:8080";
    const cli_opt opts[] = {
        CLI_STRING(0, "db", &o.index_db, "INDEX", NULL),
        CLI_STRING(0, "runs", &o.runs_db, "RUNS", NULL),
        CLI_STRING(0, "listen", &o.listen, "H:P", NULL),
        CLI_CALLBACK(0, "max-seconds", "N", NULL, max_seconds_cb, &o.max_seconds),
        CLI_END,
    };
    int pr = cli_parse_no_args(cmd, usage_text, opts, argc, argv);
    if (pr < 0)
        return cli_parse_exit(pr);
    char *def = NULL;
    if (!o.runs_db) {
        def = cli_runs_db(cmd, NULL);
        if (def && ms_is_regular_file(def))
            o.runs_db = def;
    }
    if (!o.index_db && !o.runs_db) {
        free(def);
        return cli_usage_error(cmd, "nothing to serve: give --db INDEX and/or --runs RUNS");
    }
    if (o.index_db && !ms_is_regular_file(o.index_db)) {
        free(def);
        fprintf(stderr, "mlsubmit %s: --db %s: no such file\n", cmd, o.index_db);
        return MS_EINPUT;
    }
    o.on_listen = on_listen;
    ms_err e = {0};
    int rc = ms_serve(&o, &e);
    free(def);
    return rc == MS_OK ? MS_OK : cli_fail(cmd, &e);
}
