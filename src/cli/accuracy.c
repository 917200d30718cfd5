/* mlsubmit accuracy: the benchmark accuracy script for the reference benchmarks (digits). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/buf.h"
#include "common/datafile.h"
#include "common/fsutil.h"
#include "loadgen/digits.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: mlsubmit accuracy digits mlperf_log_accuracy.json [--data DIR] [-o FILE]\n"
            "                                [--rules FILE]\n"
            "\n"
            "Scores a LoadGen accuracy log of the digits benchmark: decodes every response (the\n"
            "predicted class, a little-endian int32), compares it with the label of its qsl_idx\n"
            "(the validation split), and writes the MLPerf-style result line\n"
            "    accuracy=<percent>%%, good=<n>, total=<n>\n"
            "to FILE (default: accuracy.txt beside the log), atomically. A qsl_idx logged more\n"
            "than once is scored once (the first entry), as upstream accuracy scripts do.\n"
            "\n"
            "The target (99%% of the FP32 reference accuracy) comes from the rules data\n"
            "(default: rules/digits.json in the working directory, else beside the binary).\n"
            "\n"
            CLI_DATA_HELP
            "  -o FILE        output file\n"
            "  --rules FILE   rules data file\n"
            "\n"
            "Exit status: 0 target met, 1 accuracy below the target, 2 usage, 3 bad input.\n");
}

int cmd_accuracy(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        usage(stdout);
        return MS_OK;
    }
    const char *bench = NULL, *log = NULL, *data = NULL, *out = NULL, *rules = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] == '-' && a[1]) {
            if (i + 1 >= argc)
                return cli_usage_error("accuracy", "option '%s' needs a value", a);
            if (!strcmp(a, "--data"))
                data = argv[++i];
            else if (!strcmp(a, "-o") || !strcmp(a, "--output"))
                out = argv[++i];
            else if (!strcmp(a, "--rules"))
                rules = argv[++i];
            else
                return cli_usage_error("accuracy", "unknown option '%s'", a);
        } else if (!bench) {
            bench = a;
        } else if (!log) {
            log = a;
        } else {
            return cli_usage_error("accuracy", "unexpected argument '%s'", a);
        }
    }
    if (!bench || !log)
        return cli_usage_error("accuracy", "expected a benchmark name and an accuracy log");
    if (strcmp(bench, "digits") != 0)
        return cli_usage_error("accuracy", "unknown benchmark '%s' (supported: digits)", bench);

    char rules_path[PATH_MAX + 64];
    if (rules)
        snprintf(rules_path, sizeof rules_path, "%s", rules);
    else if (!ms_find_rules_file("digits.json", rules_path, sizeof rules_path)) {
        ms_err e;
        ms_err_set(&e, MS_EINPUT, "rules/digits.json not found (run from the repository root or pass --rules)");
        return cli_fail("accuracy", &e);
    }
    ms_err e = {0};
    int rc;
    digits_rules rl;
    if (digits_rules_load(rules_path, &rl, &e) != MS_OK)
        return cli_fail("accuracy", &e);
    digits_dataset ds;
    char *dir = digits_find_dir(data, &e);
    rc = dir ? digits_load_dir(dir, &ds, &e) : MS_EINPUT;
    free(dir);
    if (rc != MS_OK)
        return cli_fail("accuracy", &e);
    digits_score sc;
    rc = digits_score_log(log, &ds, &sc, &e);
    digits_dataset_free(&ds);
    if (rc != MS_OK)
        return cli_fail("accuracy", &e);

    double pct = sc.total ? 100.0 * (double)sc.good / (double)sc.total : 0.0;
    ms_buf line = MS_BUF_INIT;
    if (ms_buf_printf(&line, "accuracy=%.3f%%, good=%zu, total=%zu\n", pct, sc.good, sc.total) != 0) {
        ms_err_oom(&e);
        return cli_fail("accuracy", &e);
    }
    char *defout = NULL;
    if (!out) {
        const char *slash = strrchr(log, '/');
        if (slash) {
            defout = malloc((size_t)(slash - log) + sizeof "/accuracy.txt");
            if (!defout) {
                ms_buf_free(&line);
                ms_err_oom(&e);
                return cli_fail("accuracy", &e);
            }
            memcpy(defout, log, (size_t)(slash - log));
            strcpy(defout + (slash - log), "/accuracy.txt");
        }
        out = defout ? defout : "accuracy.txt";
    }
    rc = ms_write_file_atomic(out, line.data, line.len, &e);
    if (rc != MS_OK) {
        free(defout);
        ms_buf_free(&line);
        return cli_fail("accuracy", &e);
    }
    fputs(line.data, stdout);
    ms_buf_free(&line);
    if (sc.duplicates)
        printf("note: %zu duplicate qsl_idx entries ignored (the first one of each was scored)\n", sc.duplicates);
    if (sc.total < sc.dataset)
        printf("note: %zu of the %zu validation samples are in the log\n", sc.total, sc.dataset);
    int meets = digits_rules_meets(&rl, sc.good, sc.total);
    printf("target: %.3f%% (%.0f%% of the FP32 reference %.3f%%): %s\n", 100.0 * digits_rules_target(&rl),
           100.0 * rl.target_fraction, 100.0 * (double)rl.ref_good / (double)rl.ref_total,
           meets ? "met" : "NOT met");
    printf("wrote %s\n", out);
    free(defout);
    return meets ? MS_OK : MS_FAIL;
}
