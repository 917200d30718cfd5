/* The checker's options, listed once (see rpopts.h). */
#include "cli/rpopts.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/buf.h"
#include "common/strutil.h"

void rp_cli_print(void *ctx, const char *line)
{
    FILE *f = ctx ? (FILE *)ctx : stdout;
    fprintf(f, "%s\n", line);
}

/* --skip ID[,ID...]: items trimmed of leading spaces, empty ones ignored, each a known ID */
static int skip_cb(const cli_opt *opt, const char *arg, const char *cmd)
{
    cli_checker *c = opt->ctx;
    char *copy = strdup(arg);
    if (!copy)
        return cli_usage_error(cmd, "out of memory");
    int rc = 0;
    for (char *save = NULL, *id = strtok_r(copy, ",", &save); id && !rc; id = strtok_r(NULL, ",", &save)) {
        while (*id == ' ')
            id++;
        if (!*id)
            continue;
        if (!ck_check_find(id))
            rc = cli_usage_error(cmd, "--skip: unknown check ID '%s' (see 'mlsubmit check --list-checks')", id);
        else if (MS_GROW(c->skip, c->cap, c->nskip + 1, 8) || !(c->skip[c->nskip] = strdup(id)))
            rc = cli_usage_error(cmd, "out of memory");
        else
            c->nskip++;
    }
    free(copy);
    c->o.skip_ids = (const char *const *)c->skip;
    c->o.nskip = c->nskip;
    return rc;
}

/* The flags of the MLCommons checker (submission_checker.py get_args) and mlsubmit's --strict */
static const struct {
    const char *name;
    size_t off;
    const char *help;
} flags[] = {
    {"strict", offsetof(ck_options, strict), "warnings of the stricter checks count as errors"},
    {"skip_compliance", offsetof(ck_options, skip_compliance), "MLCommons checker: no compliance checks"},
    {"submission-exceptions", offsetof(ck_options, submission_exceptions),
     "MLCommons checker: tolerate LoadGen errors"},
    {"skip-power-check", offsetof(ck_options, skip_power_check), "MLCommons checker: no Power WG checks (W4)"},
    {"more-power-check", offsetof(ck_options, more_power_check),
     "MLCommons checker (the rounds that have it): run the Power WG checks"},
    {"skip-meaningful-fields-emptiness-check", offsetof(ck_options, skip_meaningful_fields_emptiness_check),
     "MLCommons checker: empty system fields allowed"},
    {"skip-check-power-measure-files", offsetof(ck_options, skip_check_power_measure_files),
     "MLCommons checker: no E3"},
    {"skip-empty-files-check", offsetof(ck_options, skip_empty_files_check), "MLCommons checker: no empty-file checks"},
    {"skip-extra-files-in-root-check", offsetof(ck_options, skip_extra_files_in_root_check),
     "MLCommons checker: no S2"},
    {"skip-extra-accuracy-files-check", offsetof(ck_options, skip_extra_accuracy_files_check),
     "MLCommons checker: no A8"},
    {"skip-all-systems-have-results-check", offsetof(ck_options, skip_all_systems_have_results_check),
     "MLCommons checker: no S10"},
    {"skip-calibration-check", offsetof(ck_options, skip_calibration_check), "MLCommons checker: no S11"},
    {"skip-dataset-size-check", offsetof(ck_options, skip_dataset_size_check), "MLCommons checker: no A7"},
    {"debug", offsetof(ck_options, debug), "MLCommons checker: also log the open division's missing scenarios"},
    {"private-ids", offsetof(ck_options, private_ids), "MLCommons checker: private IDs in summary.csv (unified)"},
};

void cli_checker_init(cli_checker *c, const char *heading)
{
    memset(c, 0, sizeof *c);
    _Static_assert(sizeof flags / sizeof *flags + 4 <= CLI_CHECKER_NOPTS, "cli_checker.opts is too small");
    size_t n = 0;
    c->opts[n++] = (cli_opt)CLI_TEXT(heading);
    c->opts[n++] = (cli_opt)CLI_CALLBACK(0, "skip", "ID[,ID...]", "ignore failures of these checks (repeatable; see\n"
                                        "'mlsubmit check --list-checks')", skip_cb, c);
    c->opts[n++] = (cli_opt)CLI_STRING(0, "profile", &c->o.profile, "NAME",
                                      "rules profile, e.g. 'smoke' (relaxed minimums for dry\n"
                                      "runs on short tests; always printed, never an official verdict)");
    for (size_t i = 0; i < sizeof flags / sizeof *flags; i++)
        c->opts[n++] = (cli_opt)CLI_FLAG(0, flags[i].name, (char *)&c->o + flags[i].off, flags[i].help);
    c->opts[n] = (cli_opt)CLI_END;
}

int cli_jobs_cb(const cli_opt *opt, const char *arg, const char *cmd)
{
    uint64_t j;
    if (ms_parse_u64(arg, &j) || j < 1 || j > 256)
        return cli_usage_error(cmd, "--jobs wants 1..256, not '%s'", arg);
    *(int *)opt->ctx = (int)j;
    return 0;
}

void cli_checker_free(cli_checker *c)
{
    for (size_t i = 0; i < c->nskip; i++)
        free(c->skip[i]);
    free(c->skip);
    c->skip = NULL;
    c->nskip = c->cap = 0;
}
