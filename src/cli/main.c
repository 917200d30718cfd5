/* mlsubmit: git-style dispatch to the subcommands of src/cli/. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/fsutil.h"
#include "common/pmqos.h"
#include "cli/runrec.h"

#ifndef MLSUBMIT_VERSION
#define MLSUBMIT_VERSION "0.0.0"
#endif

struct command {
    const char *name;
    const char *summary;
    int (*fn)(int, char **);
};

static const struct command commands[] = {
#define CMD(name, summary) {#name, summary, cmd_##name},
#include "cli/commands.def"
#undef CMD
};

static void usage(FILE *out)
{
    fprintf(out,
            "usage: mlsubmit [--version] [--help] <command> [<args>]\n"
            "\n"
            "MLPerf Inference submission toolkit: LoadGen, audits, checker, packaging.\n"
            "\n"
            "Commands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out,
            "\n"
            "'mlsubmit help <command>' or 'mlsubmit <command> --help' describes a command.\n"
            "Exit codes: 0 success, 1 negative verdict (errors found, INVALID, mismatch),\n"
            "2 usage error, 3 bad input file, 4 runtime failure.\n");
}

int cli_fail(const char *cmd, const ms_err *e)
{
    fprintf(stderr, "mlsubmit %s: %s\n", cmd, e->msg[0] ? e->msg : "failed");
    return e->code ? e->code : MS_ERUNTIME;
}

void cli_low_latency(const char *cmd, ms_pmqos *q)
{
    ms_err e;
    if (ms_pmqos_hold(q, 0, &e) != MS_OK)
        fprintf(stderr, "mlsubmit %s: warning: --low-latency: %s; going on without it\n", cmd, e.msg);
}

int cli_warn_not_root(const char *cmd, const char *root, const char *what)
{
    if (!root || !ms_is_dir(root))
        return 0; /* the command itself says what is wrong with it */
    int ndiv = 0;
    static const char *const divisions[] = {"closed", "open", "network"};
    for (size_t i = 0; i < sizeof divisions / sizeof *divisions; i++) {
        char *dp = ms_path_join(root, divisions[i]);
        ndiv += dp && ms_is_dir(dp);
        free(dp);
    }
    if (!ndiv)
        fprintf(stderr, "mlsubmit %s: warning: %s holds no division folder (closed/, open/ or network/): "
                "%s; is it the submission root?\n", cmd, root, what);
    return ndiv;
}

void cli_stdout_write(void *ctx, const char *text, size_t len)
{
    (void)ctx;
    fwrite(text, 1, len, stdout);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "mlsubmit %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n(see 'mlsubmit %s --help')\n", cmd);
    va_end(ap);
    return MS_EUSAGE;
}

int cli_wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--"))
            return 0;
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
            return 1;
    }
    return 0;
}

int cli_group_help(int argc, char **argv, void (*print_usage)(FILE *), int *rc)
{
    if (argc >= 2 && strcmp(argv[1], "--help") && strcmp(argv[1], "-h"))
        return 0;
    print_usage(argc < 2 ? stderr : stdout);
    *rc = argc < 2 ? MS_EUSAGE : MS_OK;
    return 1;
}

int cli_dispatch(const char *cmd, int argc, char **argv, void (*print_usage)(FILE *), const cli_subcmd *subs)
{
    int rc;
    if (cli_group_help(argc, argv, print_usage, &rc))
        return rc;
    char names[256] = "";
    for (const cli_subcmd *s = subs; s->name; s++) {
        if (!strcmp(argv[1], s->name)) {
            if (!s->run_rec)
                return s->run(argc - 1, argv + 1);
            char full[64];
            snprintf(full, sizeof full, "%s %s", cmd, s->name);
            return cli_rec_run(full, argc, argv, s->run_rec);
        }
        size_t l = strlen(names);
        snprintf(names + l, sizeof names - l, "%s%s", l ? ", " : "", s->name);
    }
    return cli_usage_error(cmd, "unknown subcommand '%s' (%s)", argv[1], names);
}

static const struct command *find(const char *name)
{
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(commands[i].name, name))
            return &commands[i];
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return MS_EUSAGE;
    }
    const char *name = argv[1];
    if (!strcmp(name, "--version") || !strcmp(name, "version")) {
        printf("mlsubmit %s\n", MLSUBMIT_VERSION);
        return MS_OK;
    }
    if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
        usage(stdout);
        return MS_OK;
    }
    if (!strcmp(name, "help")) {
        if (argc < 3) {
            usage(stdout);
            return MS_OK;
        }
        const struct command *c = find(argv[2]);
        if (!c) {
            fprintf(stderr, "mlsubmit: '%s' is not a command (see 'mlsubmit help')\n", argv[2]);
            return MS_EUSAGE;
        }
        char *hargv[] = {(char *)c->name, "--help", NULL};
        return c->fn(2, hargv);
    }
    const struct command *c = find(name);
    if (!c) {
        fprintf(stderr, "mlsubmit: '%s' is not a command (see 'mlsubmit help')\n", name);
        return MS_EUSAGE;
    }
    return c->fn(argc - 1, argv + 1);
}
