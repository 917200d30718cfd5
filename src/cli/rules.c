/* mlsubmit rules: the per-round rules files (rules/<version>.json). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checker/checker.h"
#include "cli/cli.h"
#include "common/buf.h"
#include "rules/rules.h"

static const char usage_text[] =
    "usage: mlsubmit rules lint FILE...\n"
    "       mlsubmit rules list\n"
    "\n"
    "lint  validates rules files against schemas/rules.schema.json and cross-checks them\n"
    "      (targets and patterns for every model, regexes compile, seeds fit 64 bits, ...).\n"
    "list  prints the rounds available in the data directory (newest last).\n"
    "\n"
    "Exit status: 0 clean, 1 problems found, 2 usage error, 3 unreadable file.\n";

int cmd_rules(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        fputs(usage_text, stdout);
        return MS_OK;
    }
    if (argc < 2)
        return cli_usage_error("rules", "a subcommand is required (lint, list)");
    ms_err e;
    ms_err_clear(&e);
    char *data = ru_data_dir(NULL, NULL, &e);
    if (!data)
        return cli_fail("rules", &e);
    int rc = MS_OK;
    if (!strcmp(argv[1], "list")) {
        char **names;
        size_t n;
        if (ru_rounds(data, &names, &n, &e)) {
            free(data);
            return cli_fail("rules", &e);
        }
        for (size_t i = 0; i < n; i++)
            printf("%s\n", names[i]);
        ru_rounds_free(names, n);
    } else if (!strcmp(argv[1], "lint")) {
        if (argc < 3) {
            free(data);
            return cli_usage_error("rules", "lint needs at least one FILE");
        }
        for (int i = 2; i < argc; i++) {
            char *out = NULL;
            int n = ck_rules_lint(argv[i], data, &out, &e);
            if (n < 0) {
                ms_err_prefix(&e, "%s", argv[i]);
                rc = cli_fail("rules", &e);
                free(out);
                break;
            }
            if (n == 0) {
                printf("%s: OK\n", argv[i]);
            } else {
                char *save = NULL;
                for (char *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
                    printf("%s: %s\n", argv[i], l);
                printf("%s: %d problem(s)\n", argv[i], n);
                rc = MS_FAIL;
            }
            free(out);
        }
    } else {
        rc = cli_usage_error("rules", "unknown subcommand '%s' (lint, list)", argv[1]);
    }
    free(data);
    return rc;
}
