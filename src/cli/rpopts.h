/* Options shared by the report/package commands (infer, truncate, index, package, report):
 * the checker options they pass through to ck_run. */
#ifndef MS_CLI_RPOPTS_H
#define MS_CLI_RPOPTS_H

#include "checker/checker.h"

#define RP_CHECK_MAX_SKIP 64

typedef struct rp_cli_check {
    ck_options o;
    const char *skip[RP_CHECK_MAX_SKIP];
} rp_cli_check;

void rp_cli_check_init(rp_cli_check *c);
/* If argv[*i] is a checker option (--profile NAME, --skip ID[,ID], --strict, --skip-power-check,
 * --skip-extra-files-in-root-check, ... as in `mlsubmit check`), consumes it (and its value) and
 * returns 1; 0 if it is not one; -1 on a usage error (message printed, cmd names the command). */
int rp_cli_check_arg(rp_cli_check *c, int argc, char **argv, int *i, const char *cmd);
extern const char rp_cli_check_help[];

/* Prints a line (callback for rp_note_fn): stdout. */
void rp_cli_print(void *ctx, const char *line);

#endif
