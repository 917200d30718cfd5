/* The option parser of the subcommands (git's parse-options as the model, getopt_long
 * underneath): a command lists its options once, in a table of cli_opt, and that table both
 * parses argv and prints the option part of --help. Tables nest (CLI_TABLE), so options
 * shared by several commands (the checker's flags: cli_checker) are listed once.
 *
 *   const char *out = NULL; int force = 0;
 *   cli_opt opts[] = {
 *       CLI_STRING('o', "output", &out, "FILE", "write here"),
 *       CLI_FLAG(0, "force", &force, "write even when the check fails"),
 *       CLI_END,
 *   };
 *   char **pos;
 *   int n = cli_parse("report", usage_text, opts, argc, argv, &pos);
 *   if (n < 0)
 *       return cli_parse_exit(n);   // --help printed (0) or usage error printed (2)
 *
 * Options may come anywhere before "--", as --name VALUE, --name=VALUE, -o VALUE, and as an
 * unambiguous prefix of a long name (getopt_long). Usage errors are printed in the commands'
 * usual form ("mlsubmit CMD: MESSAGE" and a hint to --help). */
#ifndef MS_CLI_PARSEOPT_H
#define MS_CLI_PARSEOPT_H

#include <stdio.h>

typedef enum cli_opt_kind {
    CLI_OPT_END,
    CLI_OPT_FLAG,     /* int *value = 1 */
    CLI_OPT_STRING,   /* const char **value = the argument (points into argv) */
    CLI_OPT_CALLBACK, /* cb(opt, arg, ctx); arg NULL when argh is NULL (no value) */
    CLI_OPT_TABLE,    /* value: another cli_opt table, parsed and listed in place */
    CLI_OPT_TEXT,     /* help: a line of text in --help (a heading, a note) */
} cli_opt_kind;

typedef struct cli_opt cli_opt;
/* Returns 0, or non-zero after printing a usage error with cli_usage_error. */
typedef int (*cli_opt_cb)(const cli_opt *opt, const char *arg, const char *cmd);

struct cli_opt {
    cli_opt_kind kind;
    int short_name;        /* 0: none */
    const char *long_name; /* without "--"; NULL: none */
    void *value;
    const char *argh;      /* the value's name in --help ("FILE"); NULL: takes no value */
    const char *help;      /* lines separated by '\n'; NULL: accepted but not listed */
    cli_opt_cb cb;
    void *ctx;             /* for callbacks */
};

#define CLI_FLAG(s, l, v, h) {CLI_OPT_FLAG, (s), (l), (v), NULL, (h), NULL, NULL}
#define CLI_STRING(s, l, v, a, h) {CLI_OPT_STRING, (s), (l), (v), (a), (h), NULL, NULL}
#define CLI_CALLBACK(s, l, a, h, cb, ctx) {CLI_OPT_CALLBACK, (s), (l), NULL, (a), (h), (cb), (ctx)}
#define CLI_TABLE(t) {CLI_OPT_TABLE, 0, NULL, (t), NULL, NULL, NULL, NULL}
#define CLI_TEXT(h) {CLI_OPT_TEXT, 0, NULL, NULL, NULL, (h), NULL, NULL}
#define CLI_END {CLI_OPT_END, 0, NULL, NULL, NULL, NULL, NULL, NULL}

#define CLI_PARSE_HELP (-1)  /* --help or -h: usage printed to stdout */
#define CLI_PARSE_ERROR (-2) /* a usage error, printed to stderr */

/* Parses argv[1..argc-1] with the table. Returns the number of positional arguments (set in
 * *pos, in their order; argv is permuted), or CLI_PARSE_HELP after printing `usage` and the
 * option list, or CLI_PARSE_ERROR. */
int cli_parse(const char *cmd, const char *usage, const cli_opt *opts, int argc, char **argv, char ***pos);
/* cli_parse for a command that takes no positional argument: one is a usage error ("unexpected
 * argument", printed). Returns 0, CLI_PARSE_HELP or CLI_PARSE_ERROR. */
int cli_parse_no_args(const char *cmd, const char *usage, const cli_opt *opts, int argc, char **argv);
/* The exit code for a negative cli_parse result: MS_OK for help, MS_EUSAGE for an error. */
int cli_parse_exit(int r);
/* The one positional ROOT of a command (report, index, package, infer, truncate): sets *root
 * (unless npos is 0); more than one, or one besides --input, is a usage error (printed, -1). */
int cli_root_arg(const char *cmd, int npos, char **pos, const char **root);
/* Prints the option list of a table (what --help shows after the usage text): each option as
 * "  -o, --name ARG" with its help from column 25 (or on the next line when longer). */
void cli_print_options(FILE *f, const cli_opt *opts);

#endif
