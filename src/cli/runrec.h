/* Recording a run in the runs database from a command (`loadgen run`, `audit run`): the
 * command calls cli_rec_begin before parsing its options (it removes --runs-db FILE and
 * --no-record and notes the start time), fills rec->r after the run, and calls cli_rec_finish
 * with its exit code. A failure to record is a warning on stderr, never a change of exit code. */
#ifndef MS_CLI_RUNREC_H
#define MS_CLI_RUNREC_H

#include "runs/runs.h"

typedef struct cli_rec {
    ms_run_record r;            /* filled by the command; r.kind set means "record this run" */
    lg_test_settings settings;  /* a copy the command may point r.settings at */
    const char *db_opt;         /* --runs-db */
    int no_record;              /* --no-record */
    int argc;                   /* the command line recorded: argv after "mlsubmit" */
    char **argv;
    const char *io[16];         /* storage for r.inputs / r.outputs */
    char paths[4][4096];        /* storage for paths the command builds */
    char error[2048];           /* storage for r.error (the command's frame is gone when it is written) */
    const char **opts;          /* malloc'd storage for r.options (freed by cli_rec_finish) */
} cli_rec;

/* prefix: the words before argv[0] ("loadgen" for `loadgen run`). Returns MS_OK or a usage
 * error (printed). */
int cli_rec_begin(cli_rec *c, const char *cmd, const char *prefix, int *argc, char **argv);
/* Records (unless --no-record or r.kind is NULL), frees, and returns exit_code. */
int cli_rec_finish(cli_rec *c, const char *cmd, int exit_code);
/* A recorded subcommand: argv[1] is its name; cli_rec_begin, run(argc - 1, argv + 1, rec),
 * cli_rec_finish. */
int cli_rec_run(const char *cmd, int argc, char **argv, int (*run)(int argc, char **argv, cli_rec *rec));
/* The runs database path from --runs-db and the environment (MLSUBMIT_RUNS_DB, XDG_DATA_HOME,
 * HOME); NULL with a printed error. */
char *cli_runs_db(const char *cmd, const char *opt);

#endif
