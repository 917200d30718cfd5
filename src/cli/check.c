/* mlsubmit check: the submission checker (src/checker/). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checker/checker.h"
#include "cli/cli.h"
#include "rules/rules.h"
#include "common/strutil.h"

static const char usage_text[] =
    "usage: mlsubmit check ROOT [options]\n"
    "\n"
    "Checks an MLPerf Inference submission tree with the rules of one round and gives the\n"
    "verdict and summary.csv of the MLCommons checker of that round (legacy profile for v5.x,\n"
    "unified for v6.x), with every finding identified by a check ID.\n"
    "\n"
    "Options:\n"
    "  --version vX.Y        round (rules/<vX.Y>.json); default: detected from the tree (the\n"
    "                        LoadGen versions and format of its detail logs, its compliance\n"
    "                        layout, its system JSONs) and printed; a mixed or unknown tree is\n"
    "                        an error; a LoadGen newer than every detect block: the newest round\n"
    "  --submitter NAME      only this submitter directory (exact name)\n"
    "  --csv FILE            write summary.csv here (default: summary.csv in the current\n"
    "                        directory, like the MLCommons checker)\n"
    "  --no-csv              do not write summary.csv\n"
    "  --json FILE           write the findings, results and counts as JSON\n"
    "  --tsv FILE            write the findings one per line: severity, ID, file, line,\n"
    "                        JSON pointer, message (tab-separated)\n"
    "  --strict              warnings of the stricter checks count as errors\n"
    "  --skip ID[,ID...]     ignore failures of these checks (repeatable; see --list-checks)\n"
    "  --waivers FILE        waivers: lines '<CHECK-ID> <path> <justification>'\n"
    "  --jobs N              worker threads (default: all online CPUs)\n"
    "  --profile NAME        rules profile, e.g. 'smoke' (relaxed minimums for dry runs on\n"
    "                        short tests; always printed, never an official verdict)\n"
    "  --color WHEN          auto (default: colour on a terminal), always, never\n"
    "  --quiet               print only errors and the summary\n"
    "  --list-checks         list the check IDs and exit\n"
    "\n"
    "Options of the MLCommons checker (accepted so that scripts carry over):\n"
    "  --input DIR  --skip_compliance  --extra-model-benchmark-map FILE  --debug\n"
    "  --submission-exceptions  --skip-power-check  --more-power-check (v1.0-v4.1)\n"
    "  --skip-meaningful-fields-emptiness-check\n"
    "  --skip-check-power-measure-files  --skip-empty-files-check\n"
    "  --skip-extra-files-in-root-check  --skip-extra-accuracy-files-check\n"
    "  --skip-all-systems-have-results-check  --skip-calibration-check\n"
    "  --scenarios-to-skip A,B  --skip-dataset-size-check  --private-ids\n"
    "\n"
    "Data: rules/ and schemas/ are found through $MLSUBMIT_DATA_DIR, else in the working\n"
    "directory, else next to the binary's parent directory (source tree), else\n"
    "<prefix>/share/mlsubmit (installed).\n"
    "\n"
    "Exit status: 0 submission looks OK, 1 submission has errors, 2 usage error,\n"
    "3 unreadable input (root, rules, waivers), 4 runtime failure (cannot write output).\n";

typedef struct flag {
    const char *name;
    size_t off;
} flag;

#define F(n, field) {n, offsetof(ck_options, field)}
static const flag flags[] = {
    F("--strict", strict),
    F("--skip_compliance", skip_compliance),
    F("--debug", debug),
    F("--submission-exceptions", submission_exceptions),
    F("--skip-power-check", skip_power_check),
    F("--more-power-check", more_power_check),
    F("--skip-meaningful-fields-emptiness-check", skip_meaningful_fields_emptiness_check),
    F("--skip-check-power-measure-files", skip_check_power_measure_files),
    F("--skip-empty-files-check", skip_empty_files_check),
    F("--skip-extra-files-in-root-check", skip_extra_files_in_root_check),
    F("--skip-extra-accuracy-files-check", skip_extra_accuracy_files_check),
    F("--skip-all-systems-have-results-check", skip_all_systems_have_results_check),
    F("--skip-calibration-check", skip_calibration_check),
    F("--skip-dataset-size-check", skip_dataset_size_check),
    F("--private-ids", private_ids),
};
#undef F

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

int cmd_check(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        fputs(usage_text, stdout);
        return MS_OK;
    }
    ck_options o;
    memset(&o, 0, sizeof o);
    const char *csv = "summary.csv", *json = NULL, *tsv = NULL, *color = "auto";
    int no_csv = 0, quiet = 0;
    char **skips = NULL, **scen_skip = NULL;
    size_t nskips = 0, nscen = 0;
    int rc = MS_OK;
    char *detected = NULL; /* the round ck_detect_round found (no --version) */
    for (int i = 1; i < argc; i++) {
        char *a = argv[i];
        const char *val = NULL;
        char name[64];
        /* --opt=value */
        char *eq = a[0] == '-' && a[1] == '-' ? strchr(a, '=') : NULL;
        if (eq && (size_t)(eq - a) < sizeof name) {
            snprintf(name, sizeof name, "%.*s", (int)(eq - a), a);
            val = eq + 1;
        } else {
            snprintf(name, sizeof name, "%s", a);
        }
        int handled = 0;
        for (size_t k = 0; k < sizeof flags / sizeof *flags; k++)
            if (!strcmp(name, flags[k].name)) {
                if (val) {
                    rc = cli_usage_error("check", "%s takes no value", name);
                    goto done;
                }
                *(int *)((char *)&o + flags[k].off) = 1;
                handled = 1;
            }
        if (handled)
            continue;
        if (!strcmp(name, "--no-csv")) {
            no_csv = 1;
            continue;
        }
        if (!strcmp(name, "--quiet") || !strcmp(name, "-q")) {
            quiet = 1;
            continue;
        }
        if (!strcmp(name, "--list-checks")) {
            rc = list_checks();
            goto done;
        }
        static const char *const with_value[] = {
            "--version", "--submitter", "--csv", "--json", "--skip", "--waivers", "--jobs",
            "--profile", "--color", "--input", "--extra-model-benchmark-map",
            "--scenarios-to-skip", "--tsv"};
        int wv = -1;
        for (size_t k = 0; k < sizeof with_value / sizeof *with_value; k++)
            if (!strcmp(name, with_value[k]))
                wv = (int)k;
        if (wv >= 0) {
            if (!val) {
                if (i + 1 >= argc) {
                    rc = cli_usage_error("check", "%s needs a value", name);
                    goto done;
                }
                val = argv[++i];
            }
            switch (wv) {
            case 0: o.version = val; break;
            case 1: o.submitter = val; break;
            case 2: csv = val; break;
            case 3: json = val; break;
            case 4:
                if (add_list(&skips, &nskips, val)) {
                    rc = MS_ERUNTIME;
                    goto done;
                }
                break;
            case 5: o.waivers_path = val; break;
            case 6: {
                uint64_t j;
                if (ms_parse_u64(val, &j) || j < 1 || j > 64) {
                    rc = cli_usage_error("check", "--jobs needs a number from 1 to 64, not '%s'", val);
                    goto done;
                }
                o.jobs = (int)j;
                break;
            }
            case 7: o.profile = val; break;
            case 8:
                if (strcmp(val, "auto") && strcmp(val, "always") && strcmp(val, "never")) {
                    rc = cli_usage_error("check", "--color must be auto, always or never");
                    goto done;
                }
                color = val;
                break;
            case 9:
                if (o.root) {
                    rc = cli_usage_error("check", "more than one submission root");
                    goto done;
                }
                o.root = val;
                break;
            case 10: o.extra_model_benchmark_map = val; break;
            case 11:
                if (add_list(&scen_skip, &nscen, val)) {
                    rc = MS_ERUNTIME;
                    goto done;
                }
                break;
            case 12: tsv = val; break;
            }
            continue;
        }
        if (a[0] == '-' && a[1]) {
            rc = cli_usage_error("check", "unknown option '%s'", a);
            goto done;
        }
        if (o.root) {
            rc = cli_usage_error("check", "more than one submission root ('%s' and '%s')", o.root, a);
            goto done;
        }
        o.root = a;
    }
    if (!o.root) {
        rc = cli_usage_error("check", "the submission root is required");
        goto done;
    }
    o.skip_ids = (const char *const *)skips;
    o.nskip = nskips;
    o.scenarios_to_skip = (const char *const *)scen_skip;
    o.nscenarios_to_skip = nscen;
    ms_err e;
    ms_err_clear(&e);
    char *data = ru_data_dir(NULL, NULL, &e);
    if (!data) {
        rc = cli_fail("check", &e);
        goto done;
    }
    o.data_dir = data;
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
    rc = ck_run(&o, &rep, &e);
    if (rc) {
        free(data);
        rc = cli_fail("check", &e);
        goto done;
    }
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
    ck_report_free(rep);
    free(data);
done:
    free(detected);
    free_list(skips, nskips);
    free_list(scen_skip, nscen);
    return rc;
}
