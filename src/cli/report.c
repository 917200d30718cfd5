/* mlsubmit report: results tables (csv, md, html, json = summary_results.json). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/rpopts.h"
#include "report/report.h"

static const char usage_text[] =
    "usage: mlsubmit report ROOT|--db FILE --format csv|md|html|json [-o FILE] [--version vX.Y]\n"
    "                       [--round vX.Y[,vX.Y...]]\n"
    "                       [--ids ids.json] [--report-version V] [--repository NAME]\n"
    "                       [--repository-owner OWNER] [--repository-branch BRANCH] [--title TEXT]\n"
    "                       [--published-types] [--force] [checker options]\n"
    "\n"
    "Results tables from an index (--db) or from a tree (checked and indexed in memory):\n"
    "  json  the published summary_results.json record format of generate_final_report.py:\n"
    "        renamed columns (Submitter, Category, Suite, System, ...), Details/Code URLs,\n"
    "        Unique ID, ColorKey, ID <report-version>-NNNN (numbers kept in --ids, read and\n"
    "        written back), the per-suite model/scenario filter (rules/report.json), duplicate\n"
    "        removal, performance and power merged (Performance_*/Power_*); each column typed\n"
    "        as pandas reads it from the checker's summary.csv (an integer column with a missing\n"
    "        value is float: 32.0; a column with a text is text), so the records are the script's\n"
    "        for the same rows. --published-types: the types of the round's published file\n"
    "        instead (the rounds rules/report.json lists), so that a part of a published round gives\n"
    "        its published records byte for byte;\n"
    "  csv   the same records as CSV;  md  a table per division and suite;\n"
    "  html  one self-contained page (no network): sortable tables, filters by division,\n"
    "        category, availability, model and scenario, inline SVG charts (results per model\n"
    "        across systems, latency percentiles of each performance run from its detail log).\n"
    "Details/Code URLs: https://github.com/OWNER/REPOSITORY/tree/BRANCH/... (defaults mlcommons,\n"
    "inference_results_<round>, main). Output to FILE (temporary file + rename) or stdout.\n"
    "\n"
    "An index of several rounds (see 'mlsubmit index') is tabled round by round, each with its own\n"
    "rules, in one output with a Round column (first): every round it holds, or those of\n"
    "--round A,B,... (in that order; a round the index does not hold is a usage error).\n"
    "\n"
    "A tree whose check fails (or an index recording one) is refused: the message names the failing\n"
    "checks and the option that skips each (e.g. S2, files at the root: --skip-extra-files-in-root-check);\n"
    "--force writes the report anyway and says on stderr that it was built on a failed check.\n"
    "\n"
    "Exit: 0 written, 1 the check failed (not written), 2 usage, 3 bad input (tree, index,\n"
    "ids.json), 4 cannot write.\n";

static int format_cb(const cli_opt *opt, const char *v, const char *cmd)
{
    rp_report_opts *o = opt->ctx;
    if (!strcmp(v, "csv"))
        o->format = RP_FMT_CSV;
    else if (!strcmp(v, "md"))
        o->format = RP_FMT_MD;
    else if (!strcmp(v, "html"))
        o->format = RP_FMT_HTML;
    else if (!strcmp(v, "json"))
        o->format = RP_FMT_JSON;
    else
        return cli_usage_error(cmd, "--format wants csv, md, html or json, not '%s'", v);
    return 0;
}

static int report_run(rp_report_opts *op, cli_checker *ck, int npos, char **pos);

int cmd_report(int argc, char **argv)
{
    rp_report_opts o = {.note = rp_cli_print, .format = -1};
    cli_checker ck;
    cli_checker_init(&ck, "\nChecker options (as for 'mlsubmit check'):");
    const cli_opt opts[] = {
        CLI_STRING(0, "db", &o.db, "FILE", NULL),
        CLI_CALLBACK(0, "format", "FORMAT", NULL, format_cb, &o),
        CLI_STRING('o', "output", &o.output, "FILE", NULL),
        CLI_STRING(0, "version", &o.version, "vX.Y", NULL),
        CLI_STRING(0, "ids", &o.ids, "FILE", NULL),
        CLI_STRING(0, "report-version", &o.report_version, "V", NULL),
        CLI_STRING(0, "repository", &o.repository, "NAME", NULL),
        CLI_STRING(0, "repository-owner", &o.repository_owner, "OWNER", NULL),
        CLI_STRING(0, "repository-branch", &o.repository_branch, "BRANCH", NULL),
        CLI_STRING(0, "title", &o.title, "TEXT", NULL),
        CLI_STRING(0, "round", &o.rounds, "vX.Y[,vX.Y...]", NULL),
        CLI_FLAG(0, "force", &o.force, NULL),
        CLI_FLAG(0, "published-types", &o.published_types, NULL),
        CLI_TABLE(ck.opts),
        CLI_END,
    };
    char **pos;
    int npos = cli_parse("report", usage_text, opts, argc, argv, &pos);
    int rc = npos < 0 ? cli_parse_exit(npos) : report_run(&o, &ck, npos, pos);
    cli_checker_free(&ck);
    return rc;
}

static int report_run(rp_report_opts *op, cli_checker *ck, int npos, char **pos)
{
    rp_report_opts o = *op;
    int have_fmt = (int)o.format != -1;
    if (cli_root_arg("report", npos, pos, &o.root))
        return MS_EUSAGE;
    if (!have_fmt)
        return cli_usage_error("report", "--format csv|md|html|json is required");
    if (!!o.root == !!o.db)
        return cli_usage_error("report", "give either ROOT or --db FILE");
    if (o.rounds && !o.db)
        return cli_usage_error("report", "--round selects rounds of an index: give --db FILE");
    if (o.root)
        cli_warn_not_root("report", o.root, "there are no results to report");
    o.check = &ck->o;
    ms_err e;
    ms_err_clear(&e);
    rp_report_stats st;
    int rc = rp_report(&o, &st, &e);
    if (rc)
        return cli_fail("report", &e);
    if (st.text) {
        int bad = fwrite(st.text, 1, st.text_len, stdout) != st.text_len || fflush(stdout);
        free(st.text);
        if (bad) {
            ms_err_set(&e, MS_ERUNTIME, "cannot write the report to standard output");
            return cli_fail("report", &e);
        }
    }
    if (o.output)
        printf("report %s: %zu records from %zu summary rows\n", o.output, st.records, st.rows);
    if (st.check_failed)
        fprintf(stderr, "mlsubmit report: warning: written with --force on a failed check: %s\n", st.check_failure);
    return MS_OK;
}
