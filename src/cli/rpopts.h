/* The checker's options, listed once (cli_checker_opts): `mlsubmit check` and the commands
 * that run the checker on the way (infer, index, package, report) include this table in
 * theirs (parseopt.h CLI_TABLE). */
#ifndef MS_CLI_RPOPTS_H
#define MS_CLI_RPOPTS_H

#include "checker/checker.h"
#include "cli/parseopt.h"

#define CLI_CHECKER_NOPTS 20

typedef struct cli_checker {
    ck_options o;      /* the flags, --profile, --skip (skip_ids/nskip point into skip) */
    char **skip;       /* --skip IDs, validated, each its own allocation */
    size_t nskip, cap;
    cli_opt opts[CLI_CHECKER_NOPTS];
} cli_checker;

/* Fills c->opts (pointing into c): --strict, --skip ID[,ID...] (repeatable, IDs checked
 * against the catalogue), --profile NAME and the flags of the MLCommons checker
 * (submission_checker.py get_args). heading: a CLI_TEXT line before them in --help, or NULL. */
void cli_checker_init(cli_checker *c, const char *heading);
void cli_checker_free(cli_checker *c);

/* --jobs N for the report commands: N from 1 to 256 into *(int *)opt->ctx. */
int cli_jobs_cb(const cli_opt *opt, const char *arg, const char *cmd);

/* Prints a line (callback for rp_note_fn): stdout. */
void rp_cli_print(void *ctx, const char *line);

#endif
