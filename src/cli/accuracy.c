/* mlsubmit accuracy: the benchmark accuracy script for the reference benchmarks (digits, and the
 * tokens SUT's deterministic outputs). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/parseopt.h"
#include "common/buf.h"
#include "rules/rules.h"
#include "common/fsutil.h"
#include "common/acclog.h"
#include "common/strutil.h"
#include "loadgen/digits.h"
#include "loadgen/suts/tokens.h"

static const char usage_text[] =
    "usage: mlsubmit accuracy digits mlperf_log_accuracy.json [--data DIR] [-o FILE]\n"
    "                                [--rules FILE]\n"
    "       mlsubmit accuracy tokens mlperf_log_accuracy.json [--seed N] [--len LO..HI] [-o FILE]\n"
    "\n"
    "Scores a LoadGen accuracy log of the digits benchmark: decodes every response (the\n"
    "predicted class, a little-endian int32), compares it with the label of its qsl_idx\n"
    "(the validation split), and writes the MLPerf-style result line\n"
    "    accuracy=<percent>%, good=<n>, total=<n>\n"
    "to FILE (default: accuracy.txt beside the log), atomically. A qsl_idx logged more\n"
    "than once is scored once (the first entry), as upstream accuracy scripts do.\n"
    "\n"
    "The target (99% of the FP32 reference accuracy) comes from the rules data\n"
    "(default: rules/digits.json in the working directory, else beside the binary).\n"
    "\n"
    "tokens: the LLM-style tokens SUT is deterministic (its outputs are a function of the seed\n"
    "and the sample index): a record is good when its data is exactly the sample's token\n"
    "sequence for --seed (1) and --len (32..256), the SUT's options; the target is every record.\n"
    "\n"
    "Exit status: 0 target met, 1 accuracy below the target, 2 usage, 3 bad input.\n"
    "\n";

static int seed_cb(const cli_opt *opt, const char *arg, const char *cmd)
{
    if (ms_parse_u64(arg, opt->ctx) != 0)
        return cli_usage_error(cmd, "--seed: expected an unsigned integer, got '%s'", arg);
    return 0;
}

static int len_cb(const cli_opt *opt, const char *arg, const char *cmd)
{
    uint64_t *lohi = opt->ctx;
    const char *dots = strstr(arg, "..");
    char a1[32];
    if (!dots || (size_t)(dots - arg) >= sizeof a1)
        return cli_usage_error(cmd, "--len: expected LO..HI, got '%s'", arg);
    snprintf(a1, sizeof a1, "%.*s", (int)(dots - arg), arg);
    if (ms_parse_u64(a1, &lohi[0]) != 0 || ms_parse_u64(dots + 2, &lohi[1]) != 0 || lohi[0] < 2 ||
        lohi[1] < lohi[0])
        return cli_usage_error(cmd, "--len: expected LO..HI with 2 <= LO <= HI, got '%s'", arg);
    return 0;
}

/* accuracy tokens: exact token sequences (first record of each qsl_idx). */
static int score_tokens(const char *log, uint64_t seed, uint64_t lo, uint64_t hi, size_t *good, size_t *total,
                        ms_err *e)
{
    ms_acclog *r = ms_acclog_open(log, 0, e);
    if (!r)
        return e->code;
    unsigned char *seen = NULL;
    size_t cap = 0;
    ms_acc_entry ent;
    int rc;
    *good = *total = 0;
    while ((rc = ms_acclog_next(r, &ent, e)) == 1) {
        if (ent.qsl_idx >= cap) {
            size_t nc = cap ? cap : 1024;
            while (nc <= ent.qsl_idx)
                nc *= 2;
            unsigned char *ns = realloc(seen, nc);
            if (!ns) {
                rc = ms_err_oom(e);
                break;
            }
            memset(ns + cap, 0, nc - cap);
            seen = ns;
            cap = nc;
        }
        if (seen[ent.qsl_idx])
            continue;
        seen[ent.qsl_idx] = 1;
        (*total)++;
        uint32_t n = tk_gen_len(seed, lo, hi, ent.qsl_idx);
        int ok = ent.data_len == 4 * (size_t)n;
        for (uint32_t k = 0; ok && k < n; k++) {
            const unsigned char *p = ent.data + 4 * k;
            uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
            ok = v == tk_gen_token(seed, ent.qsl_idx, k);
        }
        *good += (size_t)ok;
    }
    ms_acclog_close(r);
    free(seen);
    return rc < 0 ? (e->code ? e->code : MS_EINPUT) : MS_OK;
}

/* Writes the result line atomically to out, or to accuracy.txt beside the log, and prints it;
 * *written: the file written (to free). Returns MS_OK or the exit code of a printed error. */
static int write_line(const char *log, const char *out, const ms_buf *line, char **written)
{
    ms_err e = {0};
    const char *slash = strrchr(log, '/');
    char *path = out ? strdup(out) : slash ? ms_fmt("%.*s/accuracy.txt", (int)(slash - log), log)
                                           : strdup("accuracy.txt");
    if (!path) {
        ms_err_oom(&e);
        return cli_fail("accuracy", &e);
    }
    if (ms_write_file_atomic(path, line->data, line->len, &e) != MS_OK) {
        free(path);
        return cli_fail("accuracy", &e);
    }
    fputs(line->data, stdout);
    *written = path;
    return MS_OK;
}

int cmd_accuracy(int argc, char **argv)
{
    const char *data = NULL, *out = NULL, *rules = NULL;
    uint64_t seed = 1, lohi[2] = {32, 256};
    const cli_opt opts[] = {
        CLI_STRING(0, "data", &data, "DIR", CLI_DATA_OPT_HELP),
        CLI_STRING('o', "output", &out, "FILE", "the result file (default: accuracy.txt beside the log)"),
        CLI_STRING(0, "rules", &rules, "FILE", "digits: the rules data file"),
        CLI_CALLBACK(0, "seed", "N", "tokens: the SUT's seed (default 1)", seed_cb, &seed),
        CLI_CALLBACK(0, "len", "LO..HI", "tokens: the SUT's output lengths (default 32..256)", len_cb, lohi),
        CLI_END,
    };
    char **pos;
    int npos = cli_parse("accuracy", usage_text, opts, argc, argv, &pos);
    if (npos < 0)
        return cli_parse_exit(npos);
    if (npos > 2)
        return cli_usage_error("accuracy", "unexpected argument '%s'", pos[2]);
    const char *bench = npos > 0 ? pos[0] : NULL, *log = npos > 1 ? pos[1] : NULL;
    uint64_t lo = lohi[0], hi = lohi[1];
    if (!bench || !log)
        return cli_usage_error("accuracy", "expected a benchmark name and an accuracy log");
    if (!strcmp(bench, "tokens")) {
        ms_err e = {0};
        size_t good = 0, total = 0;
        if (score_tokens(log, seed, lo, hi, &good, &total, &e) != MS_OK)
            return cli_fail("accuracy", &e);
        ms_buf line = MS_BUF_INIT;
        if (ms_buf_printf(&line, "accuracy=%.3f%%, good=%zu, total=%zu\n", total ? 100.0 * (double)good / (double)total : 0.0,
                          good, total) != 0) {
            ms_err_oom(&e);
            return cli_fail("accuracy", &e);
        }
        char *written = NULL;
        int rc = write_line(log, out, &line, &written);
        ms_buf_free(&line);
        if (rc != MS_OK)
            return rc;
        printf("wrote %s\n", written);
        free(written);
        int met = total > 0 && good == total;
        printf("target: every record the exact token sequence of tokens:seed=%llu,len=%llu..%llu: %s\n",
               (unsigned long long)seed, (unsigned long long)lo, (unsigned long long)hi, met ? "met" : "NOT met");
        return met ? MS_OK : MS_FAIL;
    }
    if (strcmp(bench, "digits") != 0)
        return cli_usage_error("accuracy", "unknown benchmark '%s' (supported: digits, tokens)", bench);

    char rules_path[PATH_MAX + 64];
    if (rules)
        snprintf(rules_path, sizeof rules_path, "%s", rules);
    else {
        ms_err e;
        char *p = ru_rules_file("digits.json", &e);
        if (!p) {
            ms_err_prefix(&e, "the digits rules (pass --rules FILE)");
            return cli_fail("accuracy", &e);
        }
        snprintf(rules_path, sizeof rules_path, "%s", p);
        free(p);
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
    char *written = NULL;
    rc = write_line(log, out, &line, &written);
    ms_buf_free(&line);
    if (rc != MS_OK)
        return rc;
    if (sc.duplicates)
        printf("note: %zu duplicate qsl_idx entries ignored (the first one of each was scored)\n", sc.duplicates);
    if (sc.total < sc.dataset)
        printf("note: %zu of the %zu validation samples are in the log\n", sc.total, sc.dataset);
    int meets = digits_rules_meets(&rl, sc.good, sc.total);
    printf("target: %.3f%% (%.0f%% of the FP32 reference %.3f%%): %s\n", 100.0 * digits_rules_target(&rl),
           100.0 * rl.target_fraction, 100.0 * (double)rl.ref_good / (double)rl.ref_total,
           meets ? "met" : "NOT met");
    printf("wrote %s\n", written);
    free(written);
    return meets ? MS_OK : MS_FAIL;
}
