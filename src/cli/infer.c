/* mlsubmit infer: edge-result inference in place (preprocess_submission.py infer_scenario_results,
 * copy low-accuracy results). */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/rpopts.h"
#include "report/report.h"

static const char usage_text[] =
    "usage: mlsubmit infer ROOT [--version vX.Y] [--dry-run] [--submitter NAME] [--upstream]\n"
    "                      [--noinfer-scenario-results] [--noinfer-low-accuracy-results]\n"
    "                      [--extra-model-benchmark-map FILE]\n"
    "\n"
    "Materialises the results a round lets an edge system infer, as the round's\n"
    "preprocess_submission.py does, in place: for every model directory of results/,\n"
    "measurements/ and compliance/ (v6 layout: results/ only), a SingleStream directory is\n"
    "copied to Offline and MultiStream when neither exists (each only if the model allows it for\n"
    "the system's category), to MultiStream alone when only Offline exists; a MultiStream directory\n"
    "is copied to Offline when that is missing; a <model>-99.9 directory is copied to <model>-99\n"
    "(and its code) when the category requires that model. Every action is printed, with the value\n"
    "the checker will compute for the inferred result (I1-I3). Nothing is ever overwritten or\n"
    "deleted; each copy is made in a temporary directory and renamed into place.\n"
    "\n"
    "  --version vX.Y     round (rules/vX.Y.json); default: the newest\n"
    "  --dry-run          print the actions only\n"
    "  --submitter NAME   only this submitter directory\n"
    "  --upstream         exactly the upstream tool: lower-case names (offline, multistream),\n"
    "                     existence tested on those names only, compliance trees of closed only\n"
    "                     (default: canonical names, case-insensitive tests, every division)\n"
    "  --noinfer-scenario-results, --noinfer-low-accuracy-results   as upstream\n"
    "\n"
    "Exit: 0 done, 1 some systems or models could not be processed (listed as 'problem:'),\n"
    "2 usage, 3 bad input (root, rules), 4 a copy failed.\n";

int cmd_infer(int argc, char **argv)
{
    rp_infer_opts o = {.note = rp_cli_print};
    const cli_opt opts[] = {
        CLI_FLAG(0, "dry-run", &o.dry_run, NULL),
        CLI_FLAG(0, "upstream", &o.upstream, NULL),
        CLI_FLAG(0, "noinfer-scenario-results", &o.no_scenarios, NULL),
        CLI_FLAG(0, "noinfer-low-accuracy-results", &o.no_low_accuracy, NULL),
        CLI_STRING(0, "version", &o.version, "vX.Y", NULL),
        CLI_STRING(0, "submitter", &o.submitter, "NAME", NULL),
        CLI_STRING(0, "extra-model-benchmark-map", &o.extra_model_benchmark_map, "FILE", NULL),
        CLI_STRING(0, "input", &o.root, "DIR", NULL),
        CLI_END,
    };
    char **pos;
    int npos = cli_parse("infer", usage_text, opts, argc, argv, &pos);
    if (npos < 0)
        return cli_parse_exit(npos);
    if (cli_root_arg("infer", npos, pos, &o.root))
        return MS_EUSAGE;
    if (!o.root)
        return cli_usage_error("infer", "ROOT is required");
    cli_warn_not_root("infer", o.root, "nothing was inferred");
    ms_err e;
    ms_err_clear(&e);
    rp_infer_stats st;
    int rc = rp_infer(&o, &st, &e);
    if (rc)
        return cli_fail("infer", &e);
    printf("%s: %zu director%s %s (%llu files, %llu bytes), %zu problem%s\n",
           o.dry_run ? "dry run" : "summary", st.copies, st.copies == 1 ? "y" : "ies",
           o.dry_run ? "would be copied" : "copied", (unsigned long long)st.files,
           (unsigned long long)st.bytes, st.problems, st.problems == 1 ? "" : "s");
    return st.problems ? MS_FAIL : MS_OK;
}
