/* mlsubmit loadgen run | check-conf | suts */
#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/parseopt.h"
#include "cli/runrec.h"
#include "common/fsutil.h"
#include "common/pmqos.h"
#include "common/strutil.h"
#include "loadgen/loadgen.h"

static void usage_run(FILE *o)
{
    fprintf(o,
            "usage: mlsubmit loadgen run --scenario S --sut SPEC [--mode M]\n"
            "                [--total-samples N] [--performance-samples P]\n"
            "                [--model NAME] [--mlperf-conf F] [--user-conf F] [--audit-config F]\n"
            "                [--set KEY=VALUE]... [--output DIR] [--dump-issued FILE]\n"
            "                [--loadgen-compat V] [--trace] [--timeout D] [--data DIR] [--quiet]\n"
            "                [--low-latency] [--runs-db FILE] [--no-record]\n"
            "\n"
            "Runs the embedded LoadGen against a reference SUT and writes mlperf_log_summary.txt,\n"
            "mlperf_log_detail.txt, mlperf_log_accuracy.json and mlperf_log_trace.json to DIR\n"
            "(default: the current directory), exactly as the MLCommons LoadGen would.\n"
            "\n"
            "  --scenario S          SingleStream, MultiStream, Server or Offline\n"
            "  --mode M              performance (default), accuracy, submission (accuracy then\n"
            "                        performance) or findpeak (Server: the peak target QPS; the\n"
            "                        fixed-interval MultiStream of the early releases: the peak stream\n"
            "                        count, with stability runs; every trial is printed and written\n"
            "                        to DIR/mlperf_log_findpeak.json)\n"
            "  --sut SPEC            NAME[:option=value,...], see the list below\n"
            "  --total-samples N     QSL size for SUTs without a dataset of their own\n"
            "  --performance-samples P   QSL performance sample count (default: N)\n"
            "  --model NAME          model name for the mlperf.conf/user.conf lookups; with it the\n"
            "                        embedded mlperf.conf is applied (official seeds, durations)\n"
            "  --mlperf-conf F       use F instead of the embedded mlperf.conf\n"
            "  --user-conf F         apply F like the reference FromConfig(user.conf)\n"
            "  --audit-config F      the audit.config to apply (default: ./audit.config if present)\n"
            "  --set KEY=VALUE       set any TestSettings field by name after the config files\n"
            "                        (e.g. --set min_query_count=3000); repeatable\n"
            "  --output DIR          where the logs go (created if missing)\n"
            "  --dump-issued FILE    write 'L ...' (loaded sets) and 'Q ...' (issued queries) lines\n"
            "  --loadgen-compat V    the LoadGen release to emulate, a row of rules/loadgen.json\n"
            "                        (default: its newest): its embedded mlperf.conf, loaded-set\n"
            "                        rule, log keys; the early releases' rows run the\n"
            "                        fixed-interval MultiStream (multi_stream_target_qps,\n"
            "                        multi_stream_samples_per_query, multi_stream_max_async_queries)\n"
            "                        and the earliest write the text detail log\n"
            "  --trace               write the Chrome trace (mlperf_log_trace.json)\n"
            "  --timeout D           give up when no sample completes for D (e.g. 30s); exit 4\n"
            "  --data DIR            data folder of dataset SUTs, holding digits/ (the folder itself is\n"
            "                        accepted too); default: $MLSUBMIT_DATA, then data/ beside the\n"
            "                        rules: ./data, the build tree's data/, PREFIX/share/mlsubmit/data\n"
            "  --quiet               no result line on stdout\n"
            "  --low-latency         keep the CPUs out of deep idle states while the test runs\n"
            "                        (Linux PM QoS, /dev/cpu_dma_latency; needs root): a query\n"
            "                        waits less for a sleeping CPU to wake (a network SUT: each\n"
            "                        query wakes threads on both sides); idle CPUs then use power.\n"
            "                        Without the permission a warning says so and the run goes on\n"
            "  --runs-db FILE        record the run in FILE (default: $MLSUBMIT_RUNS_DB, else\n"
            "                        $XDG_DATA_HOME/mlsubmit/runs.sqlite, ~/.local/share/...); see\n"
            "                        'mlsubmit runs'\n"
            "  --no-record           do not record the run\n"
            "\n"
            "Exit: 0 the run completed (VALID, or an accuracy run) with no error in the detail log;\n"
            "1 INVALID or error entries in the detail log; 2 usage; 3 bad config file; 4 runtime\n"
            "failure (SUT timeout, cannot write logs).\n"
            "\nSUTs:\n");
    lg_sut_list(o);
}

/* The report of a stream-count FindPeak (every trial): a table on out (when given) and
 * OUTDIR/mlperf_log_findpeak.json, written through a temporary file. */
static int write_peak_report(const lg_run_result *res, const lg_test_settings *s, int compat,
                             const char *outdir, FILE *out, ms_err *e)
{
    if (out) {
        fprintf(out, "FindPeak (MultiStream streams, LoadGen %s rules, %g percentile bound):\n",
                lg_compat_name(compat), s->multi_stream_target_latency_percentile * 100);
        fprintf(out, "  %-3s %-9s %8s  %-6s %10s %14s %9s %9s %8s\n", "#", "phase", "streams", "result",
                "intervals", "latency_ns", "overtime", "skipped", "queries");
        for (size_t i = 0; i < res->n_peak_trials; i++) {
            const lg_peak_trial *t = &res->peak_trials[i];
            fprintf(out, "  %-3zu %-9s %8llu  %-6s %10lld %14lld %9llu %9llu %8llu\n", i + 1,
                    lg_peak_phase_name(t->phase), (unsigned long long)t->streams, t->passed ? "pass" : "FAIL",
                    (long long)t->intervals_target, (long long)t->latency_target_ns,
                    (unsigned long long)t->overtime_queries, (unsigned long long)t->skipped_intervals,
                    (unsigned long long)t->queries);
        }
        fprintf(out, "  peak: %llu stream(s)\n", (unsigned long long)res->peak_streams);
    }
    json_t *trials = json_array();
    json_t *root = json_pack("{s:s, s:s, s:f, s:f, s:I, s:b, s:o}", "loadgen_compat", lg_compat_name(compat),
                             "scenario", "MultiStream", "target_qps", s->multi_stream_target_qps,
                             "target_latency_percentile", s->multi_stream_target_latency_percentile,
                             "peak_streams", (json_int_t)res->peak_streams, "found", res->peak_found,
                             "trials", trials);
    if (!root)
        return ms_err_oom(e);
    for (size_t i = 0; i < res->n_peak_trials; i++) {
        const lg_peak_trial *t = &res->peak_trials[i];
        json_t *o = json_pack("{s:I, s:s, s:I, s:b, s:b, s:I, s:I, s:I, s:I, s:I}", "trial", (json_int_t)(i + 1),
                              "phase", lg_peak_phase_name(t->phase), "streams", (json_int_t)t->streams,
                              "passed", t->passed, "valid", t->valid, "intervals_at_target",
                              (json_int_t)t->intervals_target, "query_latency_at_target_ns",
                              (json_int_t)t->latency_target_ns, "overtime_queries", (json_int_t)t->overtime_queries,
                              "skipped_intervals", (json_int_t)t->skipped_intervals, "queries",
                              (json_int_t)t->queries);
        if (!o || json_array_append_new(trials, o)) {
            json_decref(root);
            return ms_err_oom(e);
        }
    }
    char *text = json_dumps(root, JSON_INDENT(2));
    json_decref(root);
    if (!text)
        return ms_err_oom(e);
    char path[4096];
    snprintf(path, sizeof path, "%s/mlperf_log_findpeak.json", outdir);
    ms_afile f;
    int rc = ms_afile_open(&f, path, e);
    if (rc == MS_OK) {
        fputs(text, f.fp);
        fputc('\n', f.fp);
        rc = ms_afile_commit(&f, e);
    }
    free(text);
    return rc;
}

static const char usage_checkconf[] =
            "usage: mlsubmit loadgen check-conf FILE... --model M --scenario S\n"
            "                [--mlperf-conf F] [--loadgen-compat V] [--effective]\n"
            "\n"
            "Applies the files as the LoadGen would (a file named mlperf.conf replaces the embedded\n"
            "one, audit.config is applied with model '*', anything else is a user.conf) and lists,\n"
            "with file:line, every line that is malformed (the LoadGen then ignores the whole file),\n"
            "ignored, unknown or overridden. Lines for other models or scenarios are listed as\n"
            "notes. --effective prints the resulting settings.\n"
            "\n"
            "Exit: 0 no findings, 1 findings, 2 usage.\n";

static void usage(FILE *o)
{
    fprintf(o,
            "usage: mlsubmit loadgen <run|check-conf|diff-trace|suts> [options]\n"
            "\n"
            "  run         run the embedded LoadGen with a reference SUT\n"
            "  check-conf  report ignored, malformed, unknown and overridden config lines\n"
            "  diff-trace  compare two issued-query traces, naming the first difference\n"
            "  suts        list the reference SUTs and their options\n"
            "\n"
            "'mlsubmit loadgen <subcommand> --help' for details.\n");
}

static void print_settings(const lg_test_settings *s)
{
    char v[64];
    for (size_t i = 0; lg_settings_field_names[i]; i++)
        printf("%s = %s\n", lg_settings_field_names[i],
               lg_settings_get(s, lg_settings_field_names[i], v, sizeof v) == 0 ? v : "?");
}

static const char *kind_name(lg_conf_finding_kind k)
{
    switch (k) {
    case LG_CONF_MALFORMED: return "malformed";
    case LG_CONF_IGNORED: return "ignored";
    case LG_CONF_UNKNOWN: return "unknown";
    case LG_CONF_OVERRIDDEN: return "overridden";
    case LG_CONF_NOT_APPLICABLE: return "note";
    }
    return "?";
}

static int base_is(const char *path, const char *name)
{
    const char *b = strrchr(path, '/');
    return !strcmp(b ? b + 1 : path, name);
}

static int cmd_check_conf(int argc, char **argv)
{
    const char *model = NULL, *scen_s = NULL, *mlperf = NULL;
    int compat = LG_COMPAT_LATEST, effective = 0;
    const char *compat_s = NULL;
    const cli_opt opts[] = {
        CLI_STRING(0, "model", &model, "M", NULL),
        CLI_STRING(0, "scenario", &scen_s, "S", NULL),
        CLI_STRING(0, "mlperf-conf", &mlperf, "F", NULL),
        CLI_STRING(0, "loadgen-compat", &compat_s, "V", NULL),
        CLI_FLAG(0, "effective", &effective, NULL),
        CLI_END,
    };
    char **files;
    int nfiles = cli_parse("loadgen check-conf", usage_checkconf, opts, argc, argv, &files);
    if (nfiles < 0)
        return cli_parse_exit(nfiles);
    if (compat_s && (compat = lg_compat_parse(compat_s)) < 0) {
        char names[256];
        return cli_usage_error("loadgen check-conf", "--loadgen-compat: expected one of %s, got '%s'",
                               lg_compat_names(names, sizeof names), compat_s);
    }
    if (!model || !scen_s)
        return cli_usage_error("loadgen check-conf", "--model and --scenario are required");
    int scen = lg_scenario_parse(scen_s);
    if (scen < 0)
        return cli_usage_error("loadgen check-conf", "--scenario: '%s' is not SingleStream, MultiStream, Server or Offline", scen_s);
    if (nfiles == 0)
        return cli_usage_error("loadgen check-conf", "no config file given");
    /* a file named mlperf.conf on the command line replaces the embedded one; the others are
     * applied in their order (argv is permuted: files points into it) */
    int nconf = 0;
    for (int i = 0; i < nfiles; i++) {
        if (base_is(files[i], "mlperf.conf"))
            mlperf = files[i];
        else
            files[nconf++] = files[i];
    }
    ms_err e;
    lg_run_spec sp = {.scenario = (lg_scenario)scen, .mode = -1, .model = model, .mlperf_conf = mlperf,
                      .compat = (lg_compat)compat, .conf_files = (const char *const *)files,
                      .nconf_files = (size_t)nconf, .check_files = 1};
    lg_run_setup rs;
    if (lg_run_settings_build(&sp, &rs, &e) != MS_OK) {
        lg_run_setup_free(&rs);
        return cli_fail("loadgen check-conf", &e);
    }
    lg_conf_session *cs = rs.conf;
    const lg_test_settings *s = &rs.settings;
    const char *sname = lg_scenario_name((lg_scenario)scen);
    lg_conf_session_finish(cs);
    size_t problems = 0, notes = 0, nf = lg_conf_session_nfindings(cs);
    /* print in file order, then by line (stable) */
    const lg_conf_finding **order = calloc(nf ? nf : 1, sizeof *order);
    if (!order) {
        lg_run_setup_free(&rs);
        return MS_ERUNTIME;
    }
    for (size_t i = 0; i < nf; i++) {
        const lg_conf_finding *f = lg_conf_session_finding(cs, i);
        size_t j = i;
        while (j > 0 && !strcmp(order[j - 1]->file, f->file) && order[j - 1]->line > f->line) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = f;
    }
    for (size_t i = 0; i < nf; i++) {
        const lg_conf_finding *f = order[i];
        if (f->kind == LG_CONF_NOT_APPLICABLE)
            notes++;
        else
            problems++;
        if (f->line)
            printf("%s:%zu: %s: %s\n", f->file, f->line, kind_name(f->kind), f->text);
        else
            printf("%s: %s: %s\n", f->file, kind_name(f->kind), f->text);
    }
    free(order);
    printf("%zu finding%s, %zu note%s (model %s, scenario %s)\n", problems, problems == 1 ? "" : "s",
           notes, notes == 1 ? "" : "s", model, sname);
    if (effective)
        print_settings(s);
    lg_run_setup_free(&rs);
    return problems ? MS_FAIL : MS_OK;
}

/* What the runs database gets from a run (src/cli/runrec.h): the recorder reads the logs in
 * outdir for the result and effective settings and hashes the files named here. */
static void record_run(cli_rec *c, const lg_test_settings *s, const lg_run_result *res, const char *sut,
                       const char *model, int compat, const char *outdir, const char *data,
                       const char *user, const char *mlperf, const char *audit, const char *dump,
                       int trace, int own_dataset)
{
    static const char *const logs[] = {"mlperf_log_summary.txt", "mlperf_log_detail.txt",
                                       "mlperf_log_accuracy.json", "mlperf_log_trace.json"};
    c->settings = *s;
    c->r = (ms_run_record){.kind = "loadgen run", .start_unix_ns = c->r.start_unix_ns, .sut = sut,
                           .model = model, .scenario = lg_scenario_name(s->scenario),
                           .mode = lg_mode_name(s->mode), .loadgen_compat = lg_compat_version(compat),
                           .settings = &c->settings, .log_dir = outdir, .n_errors = res->n_errors,
                           .n_warnings = res->n_warnings, .error = NULL};
    /* res lives in cmd_run's frame; the row is written after it returns */
    snprintf(c->error, sizeof c->error, "%s", res->first_error);
    c->r.error = c->error;
    size_t n = 0;
    const char *in[] = {user, mlperf, audit, own_dataset ? data : NULL};
    for (size_t i = 0; i < 4; i++)
        if (in[i])
            c->io[n++] = in[i];
    c->r.inputs = c->io;
    c->r.ninputs = n;
    for (size_t i = 0; i < 4; i++) {
        if (i == 3 && !trace)
            break;
        snprintf(c->paths[i], sizeof c->paths[i], "%s/%s", outdir, logs[i]);
        c->io[n++] = c->paths[i];
    }
    if (dump)
        c->io[n++] = dump;
    c->r.outputs = c->io + c->r.ninputs;
    c->r.noutputs = n - c->r.ninputs;
    if (trace)
        c->r.trace_path = c->paths[3];
}

/* The supervisor's messages (the SUT process died: why, and the logs marked incomplete). */
static void supervisor_msg(void *ctx, const char *msg)
{
    fprintf(stderr, "mlsubmit %s: %s\n", (const char *)ctx, msg);
}

/* A SUT that cannot go on (the network SUT: a node died or answered garbage) ends the test
 * process here: its supervisor then finishes the logs and marks them incomplete (exit 4). */
static void sut_fatal(void *ctx, const char *msg)
{
    fprintf(stderr, "mlsubmit %s: %s\n", (const char *)ctx, msg);
    fflush(stderr);
    _exit(MS_ERUNTIME);
}

/* --set KEY=VALUE, repeatable: collected in order */
typedef struct sets_arg {
    char **v;
    size_t *n;
} sets_arg;

static int set_cb(const cli_opt *opt, const char *arg, const char *cmd)
{
    sets_arg *sa = opt->ctx;
    sa->v[(*sa->n)++] = (char *)arg;
    return 0;
}

static int cmd_run(int argc, char **argv, cli_rec *rec)
{
    const char *scen_s = NULL, *mode_s = NULL, *sut_spec = NULL, *model = NULL, *mlperf = NULL;
    const char *user = NULL, *audit = NULL, *outdir = ".", *dump = NULL, *data = NULL;
    uint64_t total = 0, perf = 0;
    int compat = LG_COMPAT_LATEST, trace = 0, quiet = 0, low_latency = 0;
    int64_t timeout = 0;
    char **sets = calloc((size_t)argc + 1, sizeof *sets);
    size_t nsets = 0;
    if (!sets)
        return MS_ERUNTIME;
    if (cli_wants_help(argc, argv)) {
        free(sets);
        usage_run(stdout);
        return MS_OK;
    }
    const char *total_s = NULL, *perf_s = NULL, *compat_s = NULL, *timeout_s = NULL;
    sets_arg sa = {sets, &nsets};
    const cli_opt opts[] = {
        CLI_STRING(0, "scenario", &scen_s, "S", NULL),
        CLI_STRING(0, "mode", &mode_s, "M", NULL),
        CLI_STRING(0, "sut", &sut_spec, "SPEC", NULL),
        CLI_STRING(0, "total-samples", &total_s, "N", NULL),
        CLI_STRING(0, "performance-samples", &perf_s, "P", NULL),
        CLI_STRING(0, "model", &model, "NAME", NULL),
        CLI_STRING(0, "mlperf-conf", &mlperf, "F", NULL),
        CLI_STRING(0, "user-conf", &user, "F", NULL),
        CLI_STRING(0, "audit-config", &audit, "F", NULL),
        CLI_CALLBACK(0, "set", "KEY=VALUE", NULL, set_cb, &sa),
        CLI_STRING('o', "output", &outdir, "DIR", NULL),
        CLI_STRING(0, "dump-issued", &dump, "FILE", NULL),
        CLI_STRING(0, "loadgen-compat", &compat_s, "V", NULL),
        CLI_FLAG(0, "trace", &trace, NULL),
        CLI_STRING(0, "timeout", &timeout_s, "D", NULL),
        CLI_STRING(0, "data", &data, "DIR", NULL),
        CLI_FLAG(0, "quiet", &quiet, NULL),
        CLI_FLAG(0, "low-latency", &low_latency, NULL),
        CLI_END,
    };
    int rc = MS_OK;
    const char *cmd = "loadgen run";
    int pr = cli_parse_no_args(cmd, NULL, opts, argc, argv);
    if (pr < 0) {
        free(sets);
        return cli_parse_exit(pr);
    }
    if (total_s && (ms_parse_u64(total_s, &total) != 0 || total == 0)) {
        free(sets);
        return cli_usage_error(cmd, "--total-samples: expected a positive integer, got '%s'", total_s);
    }
    if (perf_s && (ms_parse_u64(perf_s, &perf) != 0 || perf == 0)) {
        free(sets);
        return cli_usage_error(cmd, "--performance-samples: expected a positive integer, got '%s'", perf_s);
    }
    if (compat_s && (compat = lg_compat_parse(compat_s)) < 0) {
        char names[256];
        free(sets);
        return cli_usage_error(cmd, "--loadgen-compat: expected one of %s, got '%s'",
                               lg_compat_names(names, sizeof names), compat_s);
    }
    if (timeout_s && (ms_parse_duration_ns(timeout_s, 1000000000, &timeout) != 0 || timeout <= 0)) {
        free(sets);
        return cli_usage_error(cmd, "--timeout: expected a duration such as 30s or 500ms, got '%s'", timeout_s);
    }
    if (!scen_s || !sut_spec) {
        free(sets);
        return cli_usage_error(cmd, "--scenario and --sut are required");
    }
    int scen = lg_scenario_parse(scen_s);
    if (scen < 0) {
        free(sets);
        return cli_usage_error(cmd, "--scenario: '%s' is not SingleStream, MultiStream, Server or Offline", scen_s);
    }
    int mode = -1;
    if (mode_s && (mode = lg_mode_parse(mode_s)) < 0) {
        free(sets);
        return cli_usage_error(cmd, "--mode: '%s' is not performance, accuracy, submission or findpeak", mode_s);
    }
    if (user && !model) {
        free(sets);
        return cli_usage_error(cmd, "--user-conf needs --model (the config lookups are per model)");
    }
    if (perf && total && perf > total) {
        free(sets);
        return cli_usage_error(cmd, "--performance-samples (%llu) exceeds --total-samples (%llu)",
                               (unsigned long long)perf, (unsigned long long)total);
    }

    /* --low-latency: the request is held by this process, and by the supervised test process,
     * which inherits the descriptor, until both have ended */
    ms_pmqos qos = MS_PMQOS_INIT;
    if (low_latency)
        cli_low_latency(cmd, &qos);

    /* Run supervised (MLSUBMIT_NO_SUPERVISE=1 runs in this process). */
    int log_pipe = -1;
    const char *nosup = getenv("MLSUBMIT_NO_SUPERVISE");
    if (!(nosup && *nosup && strcmp(nosup, "0"))) {
        fflush(NULL);
        int code;
        if (lg_supervised_fork(&log_pipe, &code, supervisor_msg, (void *)cmd)) {
            free(sets);
            ms_pmqos_release(&qos);
            return code;
        }
    }

    ms_err e;
    lg_run_spec sp = {.scenario = (lg_scenario)scen, .mode = mode, .model = model, .mlperf_conf = mlperf,
                      .user_conf = user, .sets = (const char *const *)sets, .nsets = nsets,
                      .compat = (lg_compat)compat, .sut_spec = sut_spec, .data_dir = data,
                      .total_samples = (size_t)total, .performance_samples = (size_t)perf};
    lg_run_setup rs;
    rc = lg_run_setup_build(&sp, &rs, &e);
    free(sets);
    if (rc != MS_OK) {
        if (rs.user_conf_rejected) {
            for (size_t i = 0; i < lg_conf_session_nfindings(rs.conf); i++) {
                const lg_conf_finding *f = lg_conf_session_finding(rs.conf, i);
                if (f->kind == LG_CONF_MALFORMED)
                    fprintf(stderr, "mlsubmit %s: %s:%zu: %s\n", cmd, f->file, f->line, f->text);
            }
            fprintf(stderr, "mlsubmit %s: %s was not applied (the LoadGen rejects the whole file)\n", cmd, user);
        } else if (rs.bad_set) {
            cli_usage_error(cmd, "%s", e.msg); /* --set */
        } else {
            cli_fail(cmd, &e);
        }
        lg_run_setup_free(&rs);
        return rc;
    }
    lg_test_settings s = rs.settings;
    lg_conf_session *cs = rs.conf;
    lg_sut_instance *si = rs.sut;
    const char *sname = lg_scenario_name(s.scenario);
    lg_sut_instance_on_fatal(si, sut_fatal, (void *)cmd);
    if (ms_mkdir_p(outdir, &e) != MS_OK) {
        lg_sut_destroy(si);
        lg_conf_session_free(cs);
        return cli_fail(cmd, &e);
    }
    lg_log_settings ls;
    lg_log_settings_default(&ls);
    ls.outdir = outdir;
    ls.enable_trace = trace;
    lg_run_options ro;
    lg_run_options_default(&ro);
    ro.compat = (lg_compat)compat;
    ro.conf = cs;
    ro.timeout_ns = timeout;
    ro.progress = 1;
    ro.console = cli_stdout_write;
    if (log_pipe >= 0) {
        ro.on_log_file = lg_supervised_log_file;
        ro.on_log_file_ctx = &log_pipe;
    }
    if (audit) {
        if (!ms_is_regular_file(audit)) {
            lg_sut_destroy(si);
            lg_conf_session_free(cs);
            fprintf(stderr, "mlsubmit %s: --audit-config %s: no such file\n", cmd, audit);
            return MS_EINPUT;
        }
        ro.audit_config_path = audit;
    }
    ms_afile dumpf = {0};
    if (dump) {
        if (ms_afile_open(&dumpf, dump, &e) != MS_OK) {
            lg_sut_destroy(si);
            lg_conf_session_free(cs);
            return cli_fail(cmd, &e);
        }
        setvbuf(dumpf.fp, NULL, _IOFBF, 1 << 20);
        ro.dump_issued = dumpf.fp;
    }
    lg_run_result res;
    int r = lg_start_test(lg_sut_instance_sut(si), lg_sut_instance_qsl(si), &s, &ls, &ro, &res, &e);
    record_run(rec, &s, &res, sut_spec, model, compat, outdir, data, user, mlperf, audit, dump, trace,
               strcmp(lg_sut_instance_qsl(si)->name(lg_sut_instance_qsl(si)->ctx), "QSL") != 0);
    if (res.timed_out) {
        /* stop the SUT (joining its threads) before freeing the test it may still reference */
        lg_sut_destroy(si);
        lg_test_free(res.abandoned);
        lg_conf_session_free(cs);
        if (dump)
            ms_afile_abort(&dumpf);
        fprintf(stderr, "mlsubmit %s: %s\n", cmd, res.first_error[0] ? res.first_error : e.msg);
        fprintf(stderr, "mlsubmit %s: logs written to %s\n", cmd, outdir);
        return MS_ERUNTIME;
    }
    lg_sut_destroy(si);
    lg_conf_session_free(cs);
    if (dump) {
        ms_err e2;
        if (r == MS_OK && ms_afile_commit(&dumpf, &e2) != MS_OK)
            r = cli_fail(cmd, &e2);
        else if (r != MS_OK)
            ms_afile_abort(&dumpf);
    }
    if (r != MS_OK)
        return cli_fail(cmd, &e);
    if (res.n_peak_trials) {
        ms_err e3;
        if (write_peak_report(&res, &s, compat, outdir, quiet ? NULL : stdout, &e3) != MS_OK)
            return cli_fail(cmd, &e3);
    }
    if (!quiet) {
        if (res.ran_performance && res.n_peak_trials)
            printf("%s %s: %s, peak %llu streams (samples per query), %zu trial(s), %zu error(s), "
                   "%zu warning(s); logs in %s\n",
                   sname, lg_mode_name(s.mode), res.valid ? "VALID" : "INVALID",
                   (unsigned long long)res.peak_streams, res.n_peak_trials, res.n_errors, res.n_warnings, outdir);
        else if (res.ran_performance)
            printf("%s %s: %s, %s %.6g, %llu queries, %zu error(s), %zu warning(s); logs in %s\n",
                   sname, lg_mode_name(s.mode), res.valid ? "VALID" : "INVALID",
                   s.scenario == LG_SERVER || s.scenario == LG_OFFLINE ? "samples/s"
                   : s.scenario == LG_MULTI_STREAM && lg_version_rules_of_compat(compat)->early_multistream
                       ? "samples per query"
                       : "latency ns",
                   res.metric, (unsigned long long)res.query_count, res.n_errors, res.n_warnings, outdir);
        else
            printf("%s %s: done, %zu error(s), %zu warning(s); logs in %s\n", sname,
                   lg_mode_name(s.mode), res.n_errors, res.n_warnings, outdir);
    }
    if (res.n_errors) {
        fprintf(stderr, "mlsubmit %s: the detail log has %zu error(s); first: %s\n", cmd, res.n_errors,
                res.first_error);
        return MS_FAIL;
    }
    if (res.ran_performance && !res.valid)
        return MS_FAIL;
    return MS_OK;
}

static int cmd_diff_trace(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        printf("usage: mlsubmit loadgen diff-trace A B\n\n"
               "Compares two issued-query traces (--dump-issued, or the reference traces): exit 0 when\n"
               "identical, 1 with the first difference (record, lines, position, both values).\n");
        return MS_OK;
    }
    if (argc != 3)
        return cli_usage_error("loadgen diff-trace", "expected two trace files");
    lg_issued_trace a, b;
    ms_err e;
    if (lg_issued_trace_load(argv[1], &a, &e) != MS_OK)
        return cli_fail("loadgen diff-trace", &e);
    if (lg_issued_trace_load(argv[2], &b, &e) != MS_OK) {
        lg_issued_trace_free(&a);
        return cli_fail("loadgen diff-trace", &e);
    }
    char msg[512];
    int d = lg_issued_trace_diff(&a, &b, msg, sizeof msg);
    printf("%s\n", msg);
    lg_issued_trace_free(&a);
    lg_issued_trace_free(&b);
    return d ? MS_FAIL : MS_OK;
}

static int cmd_suts(int argc, char **argv)
{
    lg_sut_list(stdout);
    return MS_OK;
}

int cmd_loadgen(int argc, char **argv)
{
    static const cli_subcmd subs[] = {{"run", NULL, cmd_run},
                                      {"check-conf", cmd_check_conf, NULL},
                                      {"diff-trace", cmd_diff_trace, NULL},
                                      {"suts", cmd_suts, NULL},
                                      {NULL, NULL, NULL}};
    return cli_dispatch("loadgen", argc, argv, usage, subs);
}
