/* mlsubmit audit run | verify | replay: the compliance audits (src/audit/audit.h). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/audit.h"
#include "cli/cli.h"
#include "cli/runrec.h"
#include "common/strutil.h"

static void usage(FILE *o)
{
    fprintf(o,
            "usage: mlsubmit audit <run|verify|replay> [options]\n"
            "\n"
            "  run     perform TEST01, TEST04 or TEST05 with the embedded LoadGen and a reference SUT,\n"
            "          verify, and write the TESTxx directory as a submitter places it\n"
            "  verify  verify the logs of any LoadGen and write the verify files\n"
            "  replay  re-derive from a detail log what an unmodified LoadGen would have done\n"
            "\n"
            "'mlsubmit audit <subcommand> --help' for details.\n");
}

static void usage_run(FILE *o)
{
    fprintf(o,
            "usage: mlsubmit audit run TEST01|TEST04|TEST05 --sut SPEC --model M --scenario S --output DIR\n"
            "                [--mode compat|strict] [--layout v6|v5.1] [--results DIR] [--reuse-results]\n"
            "                [--mlperf-conf F] [--user-conf F] [--set KEY=VALUE]...\n"
            "                [--total-samples N] [--performance-samples P] [--loadgen-compat 5.1|6.0]\n"
            "                [--data DIR] [--dtype byte|int32|int64|float32] [--sampling-target N]\n"
            "                [--seeds QSL,SAMPLE,SCHEDULE] [--timeout D] [--force] [--keep-work]\n"
            "                [--strict-report FILE] [--rules FILE] [--quiet]\n"
            "                [--runs-db FILE] [--no-record]   (recording: see 'mlsubmit loadgen run --help')\n"
            "\n"
            "Performs a compliance audit (COMPLIANCE.md): the reference run(s) the test compares against\n"
            "(TEST01: an accuracy run and a performance run; TEST04/TEST05: a performance run), the audited\n"
            "run with the test's audit.config (per-model values from rules/compliance.json), the\n"
            "verification, and DIR/TESTxx/ with verify_accuracy.txt (TEST01), verify_performance.txt,\n"
            "accuracy/ (TEST01) and performance/run_1/. Every run uses a fresh SUT instance.\n"
            "\n"
            "  --output DIR        the scenario directory of the layout; TESTxx/ is created inside\n"
            "  --layout L          v6 (default): DIR is results/<system>/<model>/<scenario>, the reference\n"
            "                      runs go to DIR/accuracy and DIR/performance/run_1;\n"
            "                      v5.1: DIR is compliance/<system>/<model>/<scenario>, the reference runs\n"
            "                      go to the same path under results/\n"
            "  --results DIR       where the reference runs go (or are, with --reuse-results)\n"
            "  --reuse-results     verify against the reference logs already in the results directory\n"
            "  --mode M            compat (default): upstream's verdicts; strict: also the spec's stronger\n"
            "                      checks (audit.config applied, full-byte TEST01, TEST04-U unique-index\n"
            "                      run, latency-based tolerance), reported separately\n"
            "  --model M           model for mlperf.conf and the audit values (resnet50, digits, ...)\n"
            "  --scenario S        SingleStream, MultiStream, Server or Offline\n"
            "  --set KEY=VALUE     TestSettings override for every run (e.g. min_duration_ms=500)\n"
            "  --dtype T           TEST01 element type of the first-element comparison (default int32:\n"
            "                      the reference SUTs answer 4-byte integers)\n"
            "  --sampling-target N TEST01 accuracy_log_sampling_target instead of the model's\n"
            "  --seeds Q,S,T       TEST05 alternate seeds instead of the round's test05 seeds\n"
            "  --force             run a test the round does not require for the model\n"
            "  --keep-work         keep the work directory (audit.config files, the unique-index runs)\n"
            "  --strict-report F   write the STRICT report to F (keep it outside the submission tree)\n"
            "  --timeout D         give up a run when no sample completes for D (e.g. 30s)\n"
            "\n"
            "The TEST01 fallback (baseline_accuracy.txt, compliance_accuracy.txt; only on an accuracy\n"
            "FAIL) uses the digits scorer for the digits SUTs and a byte comparison for the others.\n"
            "\n"
            "Exit: 0 the audit passed, 1 it failed, 2 usage, 3 bad input file, 4 runtime failure.\n");
}

static void usage_verify(FILE *o)
{
    fprintf(o,
            "usage: mlsubmit audit verify TEST01|TEST04|TEST05 --reference DIR --audit DIR\n"
            "                [--mode compat|strict] [--output DIR] [--unique DIR]\n"
            "                [--dtype byte|int32|int64|float32] [--unixmode] [--scorer none|bytes|digits]\n"
            "                [--data DIR] [--model M] [--seeds Q,S,T] [--strict-report FILE] [--rules FILE]\n"
            "\n"
            "Verifies the logs of a compliance run of any LoadGen. --reference is the submission's\n"
            "scenario directory (accuracy/, performance/run_1/); --audit is the audited run (its LoadGen\n"
            "output directory, or a placed TESTxx directory). Without --output the verify files are\n"
            "written to the current directory (like the upstream scripts); with --output DIR the whole\n"
            "DIR/TESTxx/ tree is written (verify files, logs, TEST01 accuracy.txt and fallback files).\n"
            "\n"
            "  --mode compat   (default) the upstream scripts' verdicts and file contents (TEST01\n"
            "                  verify_accuracy.py / verify_performance.py, TEST04 verify_performance.py,\n"
            "                  TEST05 v4.1 verify_performance.py); where they crash (missing file, error\n"
            "                  entries in a detail log) the file names the file and the reason instead\n"
            "  --mode strict   also: the audit.config was applied (1.7), every byte of every TEST01\n"
            "                  record, a plausible record count, TEST04 tolerance decided on the latency,\n"
            "                  Server target latency, TEST04-U against --unique DIR; reported on stdout\n"
            "                  (and --strict-report), never inside the verify files\n"
            "  --dtype T       TEST01 element type of upstream's first-element comparison (default byte)\n"
            "  --unixmode      TEST01 upstream's line-digest comparison instead\n"
            "  --scorer S      TEST01 fallback accuracy script: bytes, digits (with --data, default\n"
            "                  data/digits), none (default: no fallback files)\n"
            "  --model M       model name for the sampling target and fallback tolerance (default: from\n"
            "                  the directory names)\n"
            "\n"
            "Exit: 0 verdict PASS (strict: every check), 1 FAIL, 2 usage, 3 an input file is missing or\n"
            "malformed (named), 4 an output could not be written.\n");
}

static void usage_replay(FILE *o)
{
    fprintf(o,
            "usage: mlsubmit audit replay mlperf_log_detail.txt... [--loadgen-compat 5.1|6.0]\n"
            "                [--test TEST01|TEST04|TEST05] [--model M] [--accuracy-log F] [--rules FILE]\n"
            "\n"
            "Rebuilds the requested settings of each detail log and asks the LoadGen what an unmodified\n"
            "LoadGen does with them (the loaded_qsl_set, the generated query count / samples per query /\n"
            "duration, every effective_* value, the accuracy-log sampling probability and the expected\n"
            "record count), then lists every match and every MISMATCH with the key and both values.\n"
            "For a log in a TEST01/TEST04/TEST05 directory (or with --test) it also checks that the\n"
            "audit.config was applied (COMPLIANCE.md 1.7). The LoadGen rules (5.1: loaded set from all\n"
            "QSL indices; 6.0: LoadGen 6.0.6+) follow loadgen_version unless --loadgen-compat is given.\n"
            "\n"
            "Exit: 0 everything matches, 1 mismatches, 2 usage, 3 a log cannot be read.\n");
}

static int parse_seeds(const char *s, uint64_t out[3])
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", s);
    char *save = NULL, *tok = strtok_r(buf, ",", &save);
    for (int i = 0; i < 3; i++, tok = strtok_r(NULL, ",", &save))
        if (!tok || ms_parse_u64(tok, &out[i]) != 0)
            return -1;
    return tok ? -1 : 0;
}

/* Options shared by run and verify: --mode, --dtype, --seeds. Returns 1 if c was one of them
 * (*rc set on a bad value), else 0. */
static int shared_opt(const char *cmd, int c, au_mode *mode, au_dtype *dt, uint64_t seeds[3],
                      const uint64_t **seedp, int *rc)
{
    int k;
    switch (c) {
    case 'M':
        if (strcmp(optarg, "compat") && strcmp(optarg, "strict"))
            *rc = cli_usage_error(cmd, "--mode: expected compat or strict, got '%s'", optarg);
        *mode = strcmp(optarg, "strict") ? AU_COMPAT : AU_STRICT;
        return 1;
    case 't':
        if ((k = au_dtype_parse(optarg)) < 0)
            *rc = cli_usage_error(cmd, "--dtype: expected byte, int32, int64 or float32, got '%s'", optarg);
        *dt = (au_dtype)k;
        return 1;
    case 'E':
        if (parse_seeds(optarg, seeds) != 0)
            *rc = cli_usage_error(cmd, "--seeds: expected three unsigned integers QSL,SAMPLE,SCHEDULE, got '%s'", optarg);
        *seedp = seeds;
        return 1;
    }
    return 0;
}

static au_rules *load_rules(const char *cmd, const char *path, int *rc)
{
    ms_err e = {0};
    au_rules *r = au_rules_load(path, &e);
    if (!r)
        *rc = cli_fail(cmd, &e);
    return r;
}

static void print_notes(const char *cmd, const ms_buf *b)
{
    for (const char *p = b->data; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        fprintf(stderr, "mlsubmit %s: %.*s\n", cmd, (int)n, p);
        p += n + (nl != NULL);
    }
}

/* The outcome lines shared by run and verify. Returns the exit code. */
static int report(const char *cmd, au_test t, au_mode mode, const au_verify_result *v, int quiet)
{
    if (!quiet) {
        if (t == AU_TEST01)
            printf("%s verify_accuracy.txt: %s (%llu records, %llu matched, %llu mismatched)  %s\n", au_test_name(t),
                   v->accuracy_pass ? "TEST PASS" : "TEST FAIL", (unsigned long long)v->perf_entries,
                   (unsigned long long)v->qsl_match, (unsigned long long)v->data_mismatch, v->verify_accuracy_path);
        if (v->fallback_run)
            printf("%s fallback: baseline %.3f, compliance %.3f, delta %.3g %% (allowed %.3g %%): %s\n", au_test_name(t),
                   v->fallback_baseline, v->fallback_compliance, v->fallback_delta_pct, v->fallback_allowed_pct,
                   v->fallback_pass ? "accepted" : "rejected");
        printf("%s verify_performance.txt: %s", au_test_name(t), v->performance_pass ? "TEST PASS" : "TEST FAIL");
        if (v->have_scores)
            printf(" (reference %.6g, test %.6g)", v->ref_score, v->test_score);
        printf("  %s\n", v->verify_performance_path);
        if (v->strict_run)
            fputs(v->strict_report.data ? v->strict_report.data : "", stdout);
        printf("%s: %s (%s)\n", au_test_name(t), (mode == AU_STRICT ? v->strict_pass : v->compat_pass) ? "PASS" : "FAIL",
               mode == AU_STRICT ? "strict" : "compat");
    }
    print_notes(cmd, &v->notes);
    return (mode == AU_STRICT ? v->strict_pass : v->compat_pass) ? MS_OK : MS_FAIL;
}

static void print_note(void *ctx, const char *msg)
{
    if (!*(int *)ctx)
        printf("%s\n", msg);
    fflush(stdout);
}

/* What the runs database gets from an audit (src/cli/runrec.h): the audited performance run's
 * logs give the result; the TESTxx directory (and the reference runs made) are the outputs. */
static void record_audit(cli_rec *c, const au_run_opts *o, const au_run_result *res, int rc, const ms_err *e)
{
    c->r = (ms_run_record){.kind = "audit run", .start_unix_ns = c->r.start_unix_ns, .sut = o->sut_spec,
                           .model = o->model, .scenario = lg_scenario_name(o->scenario),
                           .mode = o->mode == AU_STRICT ? "strict" : "compat", .test = au_test_name(o->test),
                           .loadgen_compat = o->compat == LG_COMPAT_5_1 ? "5.1" : "6.0",
                           .noptions = o->nsets,
                           .verdict = rc == MS_OK ? "PASS" : rc == MS_FAIL ? "FAIL" : NULL,
                           .error = rc > MS_FAIL ? e->msg : NULL};
    /* the --set values point into argv, which outlives the array holding them */
    if (o->nsets && (c->opts = malloc(o->nsets * sizeof *c->opts)))
        memcpy(c->opts, o->sets, o->nsets * sizeof *c->opts);
    c->r.options = c->opts;
    c->r.noptions = c->opts ? o->nsets : 0;
    snprintf(c->paths[0], sizeof c->paths[0], "%s/performance/run_1", res->test_dir);
    c->r.log_dir = res->test_dir[0] ? c->paths[0] : NULL;
    size_t n = 0;
    if (o->user_conf)
        c->io[n++] = o->user_conf;
    if (o->mlperf_conf)
        c->io[n++] = o->mlperf_conf;
    c->r.inputs = c->io;
    c->r.ninputs = n;
    if (!o->reuse_results && res->results_dir[0])
        c->io[n++] = res->results_dir;
    if (res->test_dir[0])
        c->io[n++] = res->test_dir;
    c->r.outputs = c->io + c->r.ninputs;
    c->r.noutputs = n - c->r.ninputs;
}

static int cmd_run(int argc, char **argv, cli_rec *rec)
{
    const char *cmd = "audit run";
    au_run_opts o;
    au_run_opts_default(&o);
    const char *rules = NULL, *scen = NULL;
    uint64_t seeds[3];
    int quiet = 0, rc = MS_OK;
    const char **sets = calloc((size_t)argc + 1, sizeof *sets);
    if (!sets)
        return MS_ERUNTIME;
    static const struct option lo[] = {
        {"sut", required_argument, 0, 'u'},         {"model", required_argument, 0, 'm'},
        {"scenario", required_argument, 0, 's'},    {"output", required_argument, 0, 'o'},
        {"mode", required_argument, 0, 'M'},        {"layout", required_argument, 0, 'L'},
        {"results", required_argument, 0, 'R'},     {"reuse-results", no_argument, 0, 'r'},
        {"mlperf-conf", required_argument, 0, 'c'}, {"user-conf", required_argument, 0, 'U'},
        {"set", required_argument, 0, 'S'},         {"total-samples", required_argument, 0, 'n'},
        {"performance-samples", required_argument, 0, 'p'},
        {"loadgen-compat", required_argument, 0, 'v'}, {"data", required_argument, 0, 'D'},
        {"dtype", required_argument, 0, 't'},       {"sampling-target", required_argument, 0, 'T'},
        {"seeds", required_argument, 0, 'E'},       {"timeout", required_argument, 0, 'W'},
        {"force", no_argument, 0, 'f'},             {"keep-work", no_argument, 0, 'k'},
        {"strict-report", required_argument, 0, 'P'}, {"rules", required_argument, 0, 'j'},
        {"quiet", no_argument, 0, 'q'},             {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    optind = 1;
    int c, k;
    uint64_t u;
    while ((c = getopt_long(argc, argv, "o:", lo, NULL)) != -1) {
        if (shared_opt(cmd, c, &o.mode, &o.dtype, seeds, &o.test05_seeds, &rc)) {
            if (rc != MS_OK) {
                free(sets);
                return rc;
            }
            continue;
        }
        switch (c) {
        case 'u': o.sut_spec = optarg; break;
        case 'm': o.model = optarg; break;
        case 's': scen = optarg; break;
        case 'o': o.output_dir = optarg; break;
        case 'R': o.results_dir = optarg; break;
        case 'r': o.reuse_results = 1; break;
        case 'c': o.mlperf_conf = optarg; break;
        case 'U': o.user_conf = optarg; break;
        case 'S': sets[o.nsets++] = optarg; break;
        case 'D': o.data_dir = optarg; break;
        case 'f': o.force = 1; break;
        case 'k': o.keep_work = 1; break;
        case 'P': o.strict_report_path = optarg; break;
        case 'j': rules = optarg; break;
        case 'q': quiet = 1; break;
        case 'L':
            if ((k = au_layout_parse(optarg)) < 0)
                rc = cli_usage_error(cmd, "--layout: expected v6 or v5.1, got '%s'", optarg);
            o.layout = (au_layout)k;
            break;
        case 'n':
        case 'p':
            if (ms_parse_u64(optarg, &u) != 0 || u == 0)
                rc = cli_usage_error(cmd, "--%s: expected a positive integer, got '%s'",
                                     c == 'n' ? "total-samples" : "performance-samples", optarg);
            *(c == 'n' ? &o.total_samples : &o.performance_samples) = (size_t)u;
            break;
        case 'v':
            if ((k = lg_compat_parse(optarg)) < 0)
                rc = cli_usage_error(cmd, "--loadgen-compat: expected 5.1 or 6.0, got '%s'", optarg);
            o.compat = (lg_compat)k;
            break;
        case 'T':
            if (ms_parse_u64(optarg, &o.sampling_target) != 0 || o.sampling_target == 0)
                rc = cli_usage_error(cmd, "--sampling-target: expected a positive integer, got '%s'", optarg);
            break;
        case 'W':
            if (ms_parse_duration_ns(optarg, 1000000000, &o.timeout_ns) != 0 || o.timeout_ns <= 0)
                rc = cli_usage_error(cmd, "--timeout: expected a duration such as 30s, got '%s'", optarg);
            break;
        case 'h':
            usage_run(stdout);
            free(sets);
            return MS_OK;
        default:
            rc = cli_usage_error(cmd, "bad option");
        }
        if (rc != MS_OK) {
            free(sets);
            return rc;
        }
    }
    o.sets = sets;
    int t = optind < argc ? au_test_parse(argv[optind]) : -1;
    if (t < 0 || optind + 1 != argc) {
        free(sets);
        return cli_usage_error(cmd, optind < argc ? "expected one test, TEST01, TEST04 or TEST05, got '%s'"
                                                  : "expected a test (TEST01, TEST04 or TEST05)%s",
                               optind < argc ? argv[optind] : "");
    }
    o.test = (au_test)t;
    int sc = scen ? lg_scenario_parse(scen) : -1;
    if (!o.sut_spec || !o.model || !o.output_dir || sc < 0) {
        free(sets);
        return cli_usage_error(cmd, sc < 0 && scen ? "--scenario: '%s' is not SingleStream, MultiStream, Server or Offline"
                                                   : "--sut, --model, --scenario and --output are required%s",
                               scen && sc < 0 ? scen : "");
    }
    o.scenario = (lg_scenario)sc;
    au_rules *r = load_rules(cmd, rules, &rc);
    if (!r) {
        free(sets);
        return rc;
    }
    o.note = print_note;
    o.note_ctx = &quiet;
    au_run_result res;
    ms_err e = {0};
    rc = au_run(&o, r, &res, &e);
    if (rc == MS_OK)
        rc = report(cmd, o.test, o.mode, &res.v, quiet);
    else
        rc = cli_fail(cmd, &e);
    record_audit(rec, &o, &res, rc, &e);
    if (!quiet && res.work_dir[0])
        printf("work directory kept: %s\n", res.work_dir);
    au_run_result_free(&res);
    au_rules_free(r);
    free(sets);
    return rc;
}

static int cmd_verify(int argc, char **argv)
{
    const char *cmd = "audit verify";
    au_verify_opts o;
    au_verify_opts_default(&o);
    const char *rules = NULL;
    uint64_t seeds[3];
    int rc = MS_OK;
    static const struct option lo[] = {
        {"reference", required_argument, 0, 'r'}, {"audit", required_argument, 0, 'a'},
        {"mode", required_argument, 0, 'M'},      {"output", required_argument, 0, 'o'},
        {"unique", required_argument, 0, 'u'},    {"dtype", required_argument, 0, 't'},
        {"unixmode", no_argument, 0, 'x'},        {"scorer", required_argument, 0, 's'},
        {"data", required_argument, 0, 'D'},      {"model", required_argument, 0, 'm'},
        {"seeds", required_argument, 0, 'E'},     {"strict-report", required_argument, 0, 'P'},
        {"rules", required_argument, 0, 'j'},     {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "o:", lo, NULL)) != -1) {
        if (shared_opt(cmd, c, &o.mode, &o.dtype, seeds, &o.test05_seeds, &rc)) {
            if (rc != MS_OK)
                return rc;
            continue;
        }
        switch (c) {
        case 'r': o.reference_dir = optarg; break;
        case 'a': o.audit_dir = optarg; break;
        case 'o': o.output_dir = optarg; break;
        case 'u': o.unique_dir = optarg; break;
        case 'x': o.unixmode = 1; break;
        case 'D': o.data_dir = optarg; break;
        case 'm': o.model = optarg; break;
        case 'P': o.strict_report_path = optarg; break;
        case 'j': rules = optarg; break;
        case 's':
            if (!strcmp(optarg, "none"))
                o.scorer = AU_SCORER_NONE;
            else if (!strcmp(optarg, "bytes"))
                o.scorer = AU_SCORER_BYTES;
            else if (!strcmp(optarg, "digits"))
                o.scorer = AU_SCORER_DIGITS;
            else
                rc = cli_usage_error(cmd, "--scorer: expected none, bytes or digits, got '%s'", optarg);
            break;
        case 'h':
            usage_verify(stdout);
            return MS_OK;
        default:
            rc = cli_usage_error(cmd, "bad option");
        }
        if (rc != MS_OK)
            return rc;
    }
    int t = optind < argc ? au_test_parse(argv[optind]) : -1;
    if (t < 0 || optind + 1 != argc)
        return cli_usage_error(cmd, "expected one test: TEST01, TEST04 or TEST05");
    if (!o.reference_dir || !o.audit_dir)
        return cli_usage_error(cmd, "--reference and --audit are required");
    if (o.unique_dir && t != AU_TEST04)
        return cli_usage_error(cmd, "--unique is for TEST04 only");
    o.test = (au_test)t;
    if (o.scorer == AU_SCORER_DIGITS && !o.data_dir)
        o.data_dir = "data/digits";
    au_rules *r = load_rules(cmd, rules, &rc);
    if (!r)
        return rc;
    au_verify_result res;
    ms_err e = {0};
    rc = au_verify(&o, r, &res, &e);
    if (rc == MS_OK || rc == MS_EINPUT) {
        int v = report(cmd, o.test, o.mode, &res, 0);
        rc = rc == MS_EINPUT ? MS_EINPUT : v;
    } else {
        rc = cli_fail(cmd, &e);
    }
    au_verify_result_free(&res);
    au_rules_free(r);
    return rc;
}

static int cmd_replay(int argc, char **argv)
{
    const char *cmd = "audit replay";
    au_replay_opts o = {.compat = -1};
    const char *rules = NULL;
    static const struct option lo[] = {{"loadgen-compat", required_argument, 0, 'v'},
                                       {"test", required_argument, 0, 't'},
                                       {"model", required_argument, 0, 'm'},
                                       {"accuracy-log", required_argument, 0, 'a'},
                                       {"rules", required_argument, 0, 'j'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        switch (c) {
        case 'v':
            if ((o.compat = lg_compat_parse(optarg)) < 0)
                return cli_usage_error(cmd, "--loadgen-compat: expected 5.1 or 6.0, got '%s'", optarg);
            break;
        case 't':
            if (au_test_parse(optarg) < 0)
                return cli_usage_error(cmd, "--test: expected TEST01, TEST04 or TEST05, got '%s'", optarg);
            o.test = optarg;
            break;
        case 'm': o.model = optarg; break;
        case 'a': o.accuracy_log = optarg; break;
        case 'j': rules = optarg; break;
        case 'h': usage_replay(stdout); return MS_OK;
        default: return cli_usage_error(cmd, "bad option");
        }
    }
    if (optind >= argc)
        return cli_usage_error(cmd, "expected one or more mlperf_log_detail.txt files");
    if (o.accuracy_log && argc - optind > 1)
        return cli_usage_error(cmd, "--accuracy-log goes with a single detail log");
    int rc = MS_OK;
    au_rules *r = load_rules(cmd, rules, &rc);
    if (!r)
        return rc;
    int worst = MS_OK;
    for (int i = optind; i < argc; i++) {
        ms_buf out = MS_BUF_INIT;
        au_replay_result res;
        ms_err e = {0};
        rc = au_replay(argv[i], &o, r, &out, &res, &e);
        if (out.data)
            fputs(out.data, stdout);
        ms_buf_free(&out);
        if (rc != MS_OK)
            rc = cli_fail(cmd, &e);
        else if (res.mismatches)
            rc = MS_FAIL;
        if (rc > worst)
            worst = rc;
    }
    au_rules_free(r);
    return worst;
}

int cmd_audit(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? MS_EUSAGE : MS_OK;
    }
    if (!strcmp(argv[1], "run")) {
        cli_rec rec;
        int rc = cli_rec_begin(&rec, "audit run", NULL, &argc, argv);
        return rc != MS_OK ? rc : cli_rec_finish(&rec, "audit run", cmd_run(argc - 1, argv + 1, &rec));
    }
    if (!strcmp(argv[1], "verify"))
        return cmd_verify(argc - 1, argv + 1);
    if (!strcmp(argv[1], "replay"))
        return cmd_replay(argc - 1, argv + 1);
    return cli_usage_error("audit", "unknown subcommand '%s' (run, verify, replay)", argv[1]);
}
