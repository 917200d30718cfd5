/* mlsubmit check: the submission checker (src/checker/). */
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checker/checker.h"
#include "cli/cli.h"
#include "common/progress.h"
#include "common/fsutil.h"
#include "cli/rpopts.h"
#include "rules/rules.h"
#include "common/strutil.h"

static const char usage_text[] =
    "usage: mlsubmit check ROOT [options]\n"
    "\n"
    "Checks an MLPerf Inference submission tree with the rules of one round and gives the\n"
    "verdict and summary.csv of the MLCommons checker of that round (legacy profile for v5.x,\n"
    "unified for v6.x), with every finding identified by a check ID.\n"
    "\n"
    "Options:\n";

static const char usage_tail[] =
    "\n"
    "Data: rules/ and schemas/ are found through $MLSUBMIT_DATA_DIR, else in the working\n"
    "directory, else next to the binary's parent directory (source tree), else\n"
    "<prefix>/share/mlsubmit (installed).\n"
    "\n"
    "Exit status: 0 submission looks OK, 1 submission has errors, 2 usage error,\n"
    "3 unreadable input (root, rules, waivers), 4 runtime failure (cannot write output).";

/* Appends the comma-separated items of s to a NULL-free list. */
static int add_list(char ***list, size_t *n, const char *s)
{
    char *copy = strdup(s);
    if (!copy)
        return -1;
    for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        while (*tok == ' ')
            tok++;
        if (!*tok)
            continue;
        char **nl = realloc(*list, (*n + 1) * sizeof **list);
        if (!nl) {
            free(copy);
            return -1;
        }
        *list = nl;
        (*list)[*n] = strdup(tok);
        if (!(*list)[*n]) {
            free(copy);
            return -1;
        }
        (*n)++;
    }
    free(copy);
    return 0;
}

static void free_list(char **l, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(l[i]);
    free(l);
}

static int list_checks(void)
{
    size_t n;
    const ck_check_info *c = ck_checks(&n);
    for (size_t i = 0; i < n; i++)
        printf("%-4s %s%s\n      %s\n", c[i].id, c[i].title, c[i].stricter ? " (stricter)" : "",
               c[i].hint);
    return MS_OK;
}

/* the argument of --jobs, --color, --scenarios-to-skip, --input */
typedef struct check_args {
    ck_options *o;
    const char *color;
    char **scen_skip;
    size_t nscen;
    int list;
} check_args;

static int jobs_cb(const cli_opt *opt, const char *arg, const char *cmd)
{
    check_args *a = opt->ctx;
    uint64_t j;
    if (ms_parse_u64(arg, &j) || j < 1 || j > 64)
        return cli_usage_error(cmd, "--jobs needs a number from 1 to 64, not '%s'", arg);
    a->o->jobs = (int)j;
    return 0;
}

static int color_cb(const cli_opt *opt, const char *arg, const char *cmd)
{
    check_args *a = opt->ctx;
    if (strcmp(arg, "auto") && strcmp(arg, "always") && strcmp(arg, "never"))
        return cli_usage_error(cmd, "--color must be auto, always or never");
    a->color = arg;
    return 0;
}

static int scen_skip_cb(const cli_opt *opt, const char *arg, const char *cmd)
{
    check_args *a = opt->ctx;
    return add_list(&a->scen_skip, &a->nscen, arg) ? cli_usage_error(cmd, "out of memory") : 0;
}

static int input_cb(const cli_opt *opt, const char *arg, const char *cmd)
{
    check_args *a = opt->ctx;
    if (a->o->root)
        return cli_usage_error(cmd, "more than one submission root");
    a->o->root = arg;
    return 0;
}

/* --timings: the library's phases (ck_timings), the round's detection and the outputs, and how
 * much of the whole ran on one thread */
static void print_timings(const ck_timings *t, double detect_ms, double out_ms, double total_ms)
{
    double serial = total_ms - t->systems_ms - t->tasks_ms;
    fprintf(stderr,
            "mlsubmit check: timings (%d thread%s): detect %.1f ms, setup %.1f ms, systems %.1f ms (%zu, "
            "parallel), plan %.1f ms, tasks %.1f ms (%zu, parallel), bookkeeping %.1f ms, freeing %.1f "
            "ms, outputs %.1f ms; total %.1f ms, %.1f ms of it on one thread\n",
            t->jobs, t->jobs == 1 ? "" : "s", detect_ms, t->setup_ms, t->systems_ms, t->systems,
            t->plan_ms, t->tasks_ms, t->tasks, t->bookkeeping_ms, t->free_ms, out_ms, total_ms,
            serial > 0 ? serial : 0);
}

int cmd_check(int argc, char **argv)
{
    cli_checker ck;
    cli_checker_init(&ck, NULL);
    ck_options *op = &ck.o;
    const char *csv = "summary.csv", *json = NULL, *tsv = NULL;
    int no_csv = 0, quiet = 0, timings = 0;
    check_args ca = {.o = op, .color = "auto"};
    int rc = MS_OK;
    char *detected = NULL; /* the round ck_detect_round found (no --version) */
    const cli_opt opts[] = {
        CLI_STRING(0, "version", &op->version, "vX.Y",
                   "round (rules/<vX.Y>.json); default: detected from the tree (the\n"
                   "LoadGen versions and format of its detail logs, its compliance\n"
                   "layout, its system JSONs) and printed; a mixed or unknown tree is\n"
                   "an error; a LoadGen newer than every detect block: the newest round"),
        CLI_STRING(0, "submitter", &op->submitter, "NAME", "only this submitter directory (exact name)"),
        CLI_STRING(0, "csv", &csv, "FILE", "write summary.csv here (default: summary.csv in the current\n"
                   "directory, like the MLCommons checker)"),
        CLI_FLAG(0, "no-csv", &no_csv, "do not write summary.csv"),
        CLI_STRING(0, "json", &json, "FILE", "write the findings, results and counts as JSON"),
        CLI_STRING(0, "tsv", &tsv, "FILE", "write the findings one per line: severity, ID, file, line,\n"
                   "JSON pointer, message (tab-separated)"),
        CLI_STRING(0, "waivers", &op->waivers_path, "FILE", "waivers: lines '<CHECK-ID> <path> <justification>'"),
        CLI_CALLBACK(0, "jobs", "N", "worker threads (default: all online CPUs)", jobs_cb, &ca),
        CLI_CALLBACK(0, "color", "WHEN", "auto (default: colour on a terminal), always, never", color_cb, &ca),
        CLI_FLAG('q', "quiet", &quiet, "print only errors and the summary"),
        CLI_FLAG(0, "list-checks", &ca.list, "list the check IDs and exit"),
        CLI_FLAG(0, "timings", &timings, "print where the check's time went, phase by phase, on stderr"),
        CLI_TABLE(ck.opts),
        CLI_CALLBACK(0, "input", "DIR", "MLCommons checker: the submission root", input_cb, &ca),
        CLI_STRING(0, "extra-model-benchmark-map", &op->extra_model_benchmark_map, "FILE",
                   "MLCommons checker: model mapping file (default model_mapping.json)"),
        CLI_CALLBACK(0, "scenarios-to-skip", "A,B", "MLCommons checker: scenarios not checked", scen_skip_cb, &ca),
        CLI_TEXT(usage_tail),
        CLI_END,
    };
    char **pos;
    int npos = cli_parse("check", usage_text, opts, argc, argv, &pos);
    if (npos < 0) {
        rc = cli_parse_exit(npos);
        goto done;
    }
    if (ca.list) {
        rc = list_checks();
        goto done;
    }
    for (int i = 0; i < npos; i++) {
        if (op->root) {
            rc = cli_usage_error("check", "more than one submission root ('%s' and '%s')", op->root, pos[i]);
            goto done;
        }
        op->root = pos[i];
    }
    if (!op->root) {
        rc = cli_usage_error("check", "the submission root is required");
        goto done;
    }
    ck_options o = *op;
    const char *color = ca.color;
    o.scenarios_to_skip = (const char *const *)ca.scen_skip;
    o.nscenarios_to_skip = ca.nscen;
    ms_err e;
    ms_err_clear(&e);
    char *data = ru_data_dir(NULL, NULL, &e);
    if (!data) {
        rc = cli_fail("check", &e);
        goto done;
    }
    o.data_dir = data;
    int64_t t_begin = ms_now_ns();
    if (!o.version) {
        /* without --version: the round the tree's logs and layout show (ck_detect_round) */
        char *why = NULL;
        if (ck_detect_round(o.root, data, &detected, &why, &e)) {
            free(data);
            rc = cli_fail("check", &e);
            goto done;
        }
        fprintf(stderr, "mlsubmit check: round %s (detected: %s)\n", detected, why);
        free(why);
        o.version = detected;
    }
    ck_report *rep;
    int64_t t_run = ms_now_ns();
    rc = ck_run(&o, &rep, &e);
    int64_t t_ran = ms_now_ns();
    if (rc) {
        free(data);
        rc = cli_fail("check", &e);
        goto done;
    }
    /* a folder that is not a submission root checks clean, as the official checker finds it:
     * say so, on stderr (the verdict stays the official one) */
    cli_warn_not_root("check", o.root, "nothing was checked");
    int use_color = !strcmp(color, "always") ||
                    (!strcmp(color, "auto") && isatty(STDOUT_FILENO) && !getenv("NO_COLOR"));
    ck_report_write_text(rep, stdout, (use_color ? CK_TEXT_COLOR : 0) | (quiet ? CK_TEXT_QUIET : 0));
    fflush(stdout);
    rc = ck_report_exit_code(rep);
    if (!no_csv && csv && ck_report_write_csv(rep, csv, &e)) {
        rc = cli_fail("check", &e);
    }
    if (json && ck_report_write_json(rep, json, &e)) {
        rc = cli_fail("check", &e);
    }
    if (tsv && ck_report_write_tsv(rep, tsv, &e)) {
        rc = cli_fail("check", &e);
    }
    if (timings)
        print_timings(ck_report_timings(rep), (double)(t_run - t_begin) / 1e6,
                      (double)(ms_now_ns() - t_ran) / 1e6, (double)(ms_now_ns() - t_begin) / 1e6);
    ck_report_free(rep);
    free(data);
done:
    free(detected);
    cli_checker_free(&ck);
    free_list(ca.scen_skip, ca.nscen);
    return rc;
}
