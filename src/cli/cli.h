/* The command-line front end: one file per subcommand (src/cli/<name>.c defines
 * cmd_<name>), listed once in commands.def. Each command gets argv with argv[0] = its name,
 * handles --help itself, and returns the process exit code (enum ms_status). */
#ifndef MS_CLI_H
#define MS_CLI_H

#include <stdio.h>

#include "common/error.h"

#define CMD(name, summary) int cmd_##name(int argc, char **argv);
#include "cli/commands.def"
#undef CMD

/* Prints "mlsubmit <cmd>: <message>" to stderr and returns e->code (MS_ERUNTIME if unset). */
int cli_fail(const char *cmd, const ms_err *e);
/* A writer to stdout for the library's console callbacks (lg_run_options.console). */
void cli_stdout_write(void *ctx, const char *text, size_t len);
/* --low-latency (loadgen run, audit run, sut serve): holds the CPU wake-up latency request in
 * *q (common/pmqos.h) or, without the permission, warns that `cmd` goes on without it. */
struct ms_pmqos;
void cli_low_latency(const char *cmd, struct ms_pmqos *q);
/* Warns on stderr when root is a directory holding none of the division folders (closed/, open/,
 * network/): a command given the wrong folder (the parent of the submission root, a submitter's
 * folder) finds nothing there and would otherwise succeed silently; what: the consequence
 * ("nothing was checked", ...). Returns the number of division folders found. */
int cli_warn_not_root(const char *cmd, const char *root, const char *what);
/* The help of an option table's --low-latency (audit run, sut serve; loadgen run's usage text
 * says the same at more length). */
#define CLI_LOW_LATENCY_OPT_HELP                                                                       \
    "keep the CPUs out of deep idle states while running (Linux PM QoS,\n"                            \
    "/dev/cpu_dma_latency; needs root, else a warning): a query waits less for a\n"                   \
    "sleeping CPU to wake; idle CPUs then use power"
/* Prints a usage error with a hint to --help and returns MS_EUSAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The --data option, the same in every command (rules/rules.h ru_dataset_dir). */
#define CLI_DATA_HELP                                                                                  \
    "  --data DIR     data folder holding digits/ (the folder itself is accepted too); default:\n"     \
    "                 $MLSUBMIT_DATA, then data/ beside the rules: ./data, the build tree's data/,\n"  \
    "                 PREFIX/share/mlsubmit/data (make install)\n"
/* The same as the help of an option table's --data (cli/parseopt.h). */
#define CLI_DATA_OPT_HELP                                                                              \
    "data folder holding digits/ (the folder itself is accepted too); default:\n"                     \
    "$MLSUBMIT_DATA, then data/ beside the rules: ./data, the build tree's data/,\n"                  \
    "PREFIX/share/mlsubmit/data (make install)"
/* 1 if argv contains -h or --help before any "--". */
int cli_wants_help(int argc, char **argv);
/* The start of a command with subcommands (audit, loadgen, runs, sut): with no subcommand it
 * prints usage to stderr (*rc = MS_EUSAGE), with -h or --help as the first word to stdout
 * (*rc = MS_OK), and returns 1; 0 when argv[1] is a subcommand to dispatch. */
int cli_group_help(int argc, char **argv, void (*print_usage)(FILE *), int *rc);

struct cli_rec;
/* A subcommand: run gets argv from the subcommand's name on; run_rec instead is recorded in the
 * runs database as "<command> <name>" (cli/runrec.h cli_rec_run). */
typedef struct cli_subcmd {
    const char *name;
    int (*run)(int argc, char **argv);
    int (*run_rec)(int argc, char **argv, struct cli_rec *rec);
} cli_subcmd;

/* A command with subcommands: cli_group_help, then the subcommand of subs (ended by a NULL
 * name) named by argv[1]; another name is a usage error listing them. */
int cli_dispatch(const char *cmd, int argc, char **argv, void (*print_usage)(FILE *), const cli_subcmd *subs);

#endif
