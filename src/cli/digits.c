/* mlsubmit digits: train and evaluate the digits reference model (src/loadgen/digits.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/parseopt.h"
#include "common/fsutil.h"
#include "common/strutil.h"
#include "loadgen/digits.h"

static const char usage_text[] =
    "usage: mlsubmit digits train [--data DIR] [-o FILE] [--epochs N]\n"
    "       mlsubmit digits eval  [--data DIR] [--model FILE]\n"
    "\n"
    "The digits reference benchmark (8x8 handwritten digits, a one-hidden-layer MLP).\n"
    "\n"
    "  train   trains the FP32 model on the training split, deterministically (fixed seed),\n"
    "          and writes the weights file atomically (default DIR/" DIGITS_MODEL_NAME ").\n"
    "          Prints the validation accuracy: the FP32 reference.\n"
    "  eval    prints FP32 and INT8 top-1 accuracy on every split.\n"
    "\n"
    "Split by row r of the file: r%10 in 0..5 training, 6 calibration, 7..9 validation\n"
    "(the accuracy set and the QSL of --sut digits).\n"
    "\n";

static int epochs_cb(const cli_opt *opt, const char *arg, const char *cmd)
{
    uint64_t v;
    if (ms_parse_u64(arg, &v) != 0 || v == 0 || v > 100000)
        return cli_usage_error(cmd, "--epochs: expected an integer 1..100000, got '%s'", arg);
    ((digits_train_params *)opt->ctx)->epochs = (unsigned)v;
    return 0;
}

static void print_acc(const char *what, size_t good, size_t total)
{
    printf("%-24s accuracy=%.3f%%, good=%zu, total=%zu\n", what, total ? 100.0 * (double)good / (double)total : 0.0,
           good, total);
}

int cmd_digits(int argc, char **argv)
{
    const char *data = NULL, *out = NULL, *model = NULL;
    digits_train_params tp;
    digits_train_params_default(&tp);
    /* one table per action: -o and --epochs are train's, --model is eval's */
    const cli_opt train_opts[] = {
        CLI_TEXT("train:"),
        CLI_STRING(0, "data", &data, "DIR", CLI_DATA_OPT_HELP),
        CLI_STRING('o', "output", &out, "FILE", "the weights file to write (default DIR/" DIGITS_MODEL_NAME ")"),
        CLI_CALLBACK(0, "epochs", "N", "training epochs (default 60; other values do not give the reference)",
                     epochs_cb, &tp),
        CLI_END,
    };
    const cli_opt eval_opts[] = {
        CLI_TEXT("eval:"),
        CLI_STRING(0, "data", &data, "DIR", CLI_DATA_OPT_HELP),
        CLI_STRING(0, "model", &model, "FILE", "the weights file (default DIR/" DIGITS_MODEL_NAME ")"),
        CLI_END,
    };
    if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        fputs(usage_text, stdout);
        cli_print_options(stdout, train_opts);
        cli_print_options(stdout, eval_opts);
        return MS_OK;
    }
    if (argc < 2)
        return cli_usage_error("digits", "missing action (train or eval)");
    const char *action = argv[1];
    int train = !strcmp(action, "train");
    if (!train && strcmp(action, "eval") != 0)
        return cli_usage_error("digits", "unknown action '%s' (expected train or eval)", action);
    int r = cli_parse_no_args("digits", usage_text, train ? train_opts : eval_opts, argc - 1, argv + 1);
    if (r < 0)
        return cli_parse_exit(r);
    ms_err e = {0};
    digits_dataset ds;
    char *dir = digits_find_dir(data, &e);
    if (!dir)
        return cli_fail("digits", &e);
    if (digits_load_dir(dir, &ds, &e) != MS_OK) {
        free(dir);
        return cli_fail("digits", &e);
    }
    digits_fp32 *m = malloc(sizeof *m);
    digits_int8 *q = malloc(sizeof *q);
    char *defpath = ms_path_join(dir, DIGITS_MODEL_NAME);
    free(dir);
    int rc = MS_OK;
    if (!m || !q || !defpath) {
        ms_err_oom(&e);
        rc = cli_fail("digits", &e);
        goto out;
    }
    size_t good, total;
    if (train) {
        if (digits_train(&ds, &tp, m, &e) != MS_OK || digits_fp32_save(out ? out : defpath, m, &e) != MS_OK) {
            rc = cli_fail("digits", &e);
            goto out;
        }
        digits_accuracy_fp32(m, &ds, DIGITS_SPLIT_VAL, &good, &total);
        printf("digits: wrote %s (%d-%d-%d MLP, seed %u, %u epochs)\n", out ? out : defpath, DIGITS_PIXELS,
               DIGITS_HIDDEN, DIGITS_CLASSES, tp.seed, tp.epochs);
        print_acc("FP32 validation", good, total);
        goto out;
    }
    if (digits_fp32_load(model ? model : defpath, m, &e) != MS_OK || digits_quantize(m, &ds, q, &e) != MS_OK) {
        rc = cli_fail("digits", &e);
        goto out;
    }
    for (int s = DIGITS_SPLIT_TRAIN; s <= DIGITS_SPLIT_VAL; s++) {
        char what[64];
        digits_accuracy_fp32(m, &ds, (digits_split)s, &good, &total);
        snprintf(what, sizeof what, "FP32 %s", digits_split_name((digits_split)s));
        print_acc(what, good, total);
        digits_accuracy_int8(q, &ds, (digits_split)s, &good, &total);
        snprintf(what, sizeof what, "INT8 %s", digits_split_name((digits_split)s));
        print_acc(what, good, total);
    }
out:
    digits_dataset_free(&ds);
    free(m);
    free(q);
    free(defpath);
    return rc;
}
