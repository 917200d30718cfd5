/* Checker options shared by infer/truncate/index/package/report (see rpopts.h). */
#include "cli/rpopts.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

const char rp_cli_check_help[] =
    "Checker options (as for 'mlsubmit check'): --profile NAME, --skip ID[,ID...], --strict,\n"
    "--skip-power-check, --skip-extra-files-in-root-check, --skip-extra-accuracy-files-check,\n"
    "--skip-all-systems-have-results-check, --skip-calibration-check, --skip-empty-files-check,\n"
    "--skip-meaningful-fields-emptiness-check, --skip-check-power-measure-files,\n"
    "--skip-dataset-size-check, --skip_compliance, --submission-exceptions.\n";

void rp_cli_check_init(rp_cli_check *c)
{
    memset(c, 0, sizeof *c);
    c->o.skip_ids = c->skip;
}

void rp_cli_print(void *ctx, const char *line)
{
    FILE *f = ctx ? (FILE *)ctx : stdout;
    fprintf(f, "%s\n", line);
}

int rp_cli_check_arg(rp_cli_check *c, int argc, char **argv, int *i, const char *cmd)
{
    const char *a = argv[*i];
    static const struct {
        const char *name;
        size_t off;
    } flags[] = {
        {"--strict", offsetof(ck_options, strict)},
        {"--skip-power-check", offsetof(ck_options, skip_power_check)},
        {"--skip-extra-files-in-root-check", offsetof(ck_options, skip_extra_files_in_root_check)},
        {"--skip-extra-accuracy-files-check", offsetof(ck_options, skip_extra_accuracy_files_check)},
        {"--skip-all-systems-have-results-check", offsetof(ck_options, skip_all_systems_have_results_check)},
        {"--skip-calibration-check", offsetof(ck_options, skip_calibration_check)},
        {"--skip-empty-files-check", offsetof(ck_options, skip_empty_files_check)},
        {"--skip-meaningful-fields-emptiness-check", offsetof(ck_options, skip_meaningful_fields_emptiness_check)},
        {"--skip-check-power-measure-files", offsetof(ck_options, skip_check_power_measure_files)},
        {"--skip-dataset-size-check", offsetof(ck_options, skip_dataset_size_check)},
        {"--skip_compliance", offsetof(ck_options, skip_compliance)},
        {"--submission-exceptions", offsetof(ck_options, submission_exceptions)},
    };
    for (size_t k = 0; k < sizeof flags / sizeof *flags; k++) {
        if (!strcmp(a, flags[k].name)) {
            *(int *)((char *)&c->o + flags[k].off) = 1;
            return 1;
        }
    }
    if (!strcmp(a, "--profile") || !strcmp(a, "--skip")) {
        if (*i + 1 >= argc) {
            cli_usage_error(cmd, "%s needs a value", a);
            return -1;
        }
        char *v = argv[++*i];
        if (!strcmp(a, "--profile")) {
            c->o.profile = v;
            return 1;
        }
        char *save = NULL;
        for (char *id = strtok_r(v, ",", &save); id; id = strtok_r(NULL, ",", &save)) {
            if (!ck_check_find(id)) {
                cli_usage_error(cmd, "--skip: unknown check ID '%s' (see 'mlsubmit check --list-checks')", id);
                return -1;
            }
            if (c->o.nskip >= RP_CHECK_MAX_SKIP) {
                cli_usage_error(cmd, "too many --skip IDs");
                return -1;
            }
            c->skip[c->o.nskip++] = id;
        }
        return 1;
    }
    return 0;
}
