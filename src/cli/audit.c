/* mlsubmit audit run | verify | replay: the compliance audits (src/audit/audit.h). */
#include <math.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit/audit.h"
#include "cli/cli.h"
#include "cli/parseopt.h"
#include "common/pmqos.h"
#include "common/fsutil.h"
#include "cli/runrec.h"
#include "common/strutil.h"

static void usage(FILE *o)
{
    fprintf(o,
            "usage: mlsubmit audit <run|verify|replay> [options]\n"
            "\n"
            "  run     perform TEST01, TEST04, TEST05, TEST06, TEST07, TEST08 or TEST09 with the embedded\n"
            "          LoadGen and a reference SUT,\n"
            "          verify, and write the TESTxx directory as a submitter places it\n"
            "  verify  verify the logs of any LoadGen and write the verify files\n"
            "  replay  re-derive from a detail log what an unmodified LoadGen would have done\n"
            "\n"
            "'mlsubmit audit <subcommand> --help' for details.\n");
}

static const char usage_run[] =
    "usage: mlsubmit audit run TEST01|TEST04|TEST05|TEST06|TEST07|TEST08|TEST09 --sut SPEC --model M\n"
    "                --scenario S --output DIR\n"
    "                [--mode compat|strict] [--layout unified|legacy|ROUND] [--results DIR] [--reuse-results]\n"
    "                [--mlperf-conf F] [--user-conf F] [--set KEY=VALUE]...\n"
    "                [--total-samples N] [--performance-samples P] [--loadgen-compat V]\n"
    "                [--data DIR] [--dtype byte|int32|int64|float32] [--sampling-target N]\n"
    "                [--seeds QSL,SAMPLE,SCHEDULE] [--timeout D] [--force] [--keep-work]\n"
    "                [--strict-report FILE] [--accuracy-script CMD] [--rules FILE] [--quiet]\n"
    "                [--low-latency] [--runs-db FILE] [--no-record]   (recording: see 'mlsubmit loadgen run --help')\n"
    "\n"
    "Performs a compliance audit (MLCommons compliance/TESTxx): the reference run(s) the\n"
    "test compares against (TEST01: an accuracy run and a performance run; TEST04/TEST05:\n"
    "a performance run), the audited run with the test's audit.config (per-model values\n"
    "from rules/compliance.json), the verification, and DIR/TESTxx/ with verify_accuracy.txt\n"
    "(TEST01), verify_performance.txt, accuracy/ (TEST01) and performance/run_1/. Every run\n"
    "uses a fresh SUT instance.\n"
    "\n"
    "TEST06 (LLM output consistency), TEST07 (full-dataset accuracy in performance mode), TEST08\n"
    "(DLRMv3 accuracy in performance mode) and TEST09 (mean output length within bounds) apply to\n"
    "the benchmarks with values in rules/compliance.json (tests.TESTxx.benchmarks): one audited run\n"
    "(TEST08 also an accuracy run), then verify_accuracy.txt (TEST09: verify_output_len.txt),\n"
    "accuracy/ and (not TEST06) performance/run_1/. A SUT without its own dataset gets a counting\n"
    "QSL of the benchmark's dataset size unless --total-samples is given. TEST07 of a benchmark\n"
    "scored by its own script (gpt-oss-120b) needs --accuracy-script \"COMMAND {accuracy_log}\".\n"
    "\n";

static const char usage_run_tail[] =
    "\n"
    "The TEST01 fallback (baseline_accuracy.txt, compliance_accuracy.txt; only on an accuracy\n"
    "FAIL) uses the digits scorer for the digits SUTs and a byte comparison for the others.\n"
    "\n"
    "Exit: 0 the audit passed, 1 it failed, 2 usage, 3 bad input file, 4 runtime failure.";

static const char usage_verify[] =
    "usage: mlsubmit audit verify TEST01|TEST04|TEST05|TEST06|TEST07|TEST08|TEST09 --audit DIR\n"
    "                [--reference DIR] [--mode compat|strict] [--output DIR] [--unique DIR]\n"
    "                [--scenario S] [--accuracy-script CMD]\n"
    "                [--dtype byte|int32|int64|float32] [--unixmode] [--scorer none|bytes|digits]\n"
    "                [--data DIR] [--model M] [--seeds Q,S,T] [--strict-report FILE] [--rules FILE]\n"
    "\n"
    "Verifies the logs of a compliance run of any LoadGen. --reference is the submission's\n"
    "scenario directory (accuracy/, performance/run_1/); --audit is the audited run (its LoadGen\n"
    "output directory, or a placed TESTxx directory). Without --output the verify files are\n"
    "written to the current directory (like the upstream scripts); with --output DIR the whole\n"
    "DIR/TESTxx/ tree is written (verify files, logs, TEST01 accuracy.txt and fallback files).\n"
    "\n";

static const char usage_verify_tail[] =
    "\n"
    "TEST06-TEST09 (upstream compliance/TEST0x/run_verification.py): --audit is the audited run\n"
    "(its accuracy log, and the detail log that must show the test's audit.config applied);\n"
    "--reference only for TEST08 (the accuracy-mode log). TEST06 takes the scenario from the\n"
    "detail log unless --scenario is given; TEST07 scores with the benchmark's scorer in the rules\n"
    "(digits) or with --accuracy-script \"COMMAND {accuracy_log}\" (its output must match the\n"
    "benchmark's score pattern, e.g. 'exact_match': N). A log without the audit applied, or\n"
    "without the records the test needs, is a bad input (exit 3, no verdict file).\n"
    "\n"
    "Exit: 0 verdict PASS (strict: every check), 1 FAIL, 2 usage, 3 an input file is missing or\n"
    "malformed (named), 4 an output could not be written.";

static const char usage_replay[] =
    "usage: mlsubmit audit replay (mlperf_log_detail.txt | ROOT)... [--loadgen-compat V]\n"
    "                [--test TEST01|TEST04|TEST05] [--model M] [--accuracy-log F] [--rules FILE]\n"
    "                [--jobs N] [--json] [--details]\n"
    "\n"
    "Rebuilds the requested settings of each detail log and asks the LoadGen what an unmodified\n"
    "LoadGen of the release that wrote it does with them: the loaded_qsl_set (drawn with each C++\n"
    "standard library's shuffle until one reproduces it), the generated query count / samples per\n"
    "query / duration, every effective_* value and seed, the accuracy-log sampling; then lists every\n"
    "match, every MISMATCH with the key and both values, and every note (cannot tell, and why).\n"
    "The requested doubles are logged with 6 significant digits: a figure is a mismatch only when\n"
    "no double that prints as the logged text explains it. For a log in a TEST01/TEST04/TEST05\n"
    "directory (or with --test) it also checks that the audit.config was applied, and it checks\n"
    "that the log's scenario is the directory's (or one its result may be inferred from).\n"
    "\n"
    "  ROOT                  a submission tree (or any folder): every mlperf_log_detail.txt under\n"
    "                        its results/ and compliance/ directories, replayed in parallel, a line\n"
    "                        per mismatched or undecided log and a table per submitter\n";

static const char usage_replay_tail[] =
    "\n"
    "Exit: 0 everything matches (or cannot tell), 1 mismatches, 2 usage, 3 a log cannot be read.";

static const char *verdict_name(au_replay_verdict v)
{
    return v == AU_REPLAY_MATCH ? "match" : v == AU_REPLAY_MISMATCH ? "mismatch" : "cannot-tell";
}

typedef struct sub_count {
    const char *name;
    size_t logs, n[3];
} sub_count;

static int replay_tree(const char *root, const au_replay_opts *o, const au_rules *r, int jobs, int json,
                       int details)
{
    const char *cmd = "audit replay";
    au_replay_tree_result t;
    ms_err e = {0};
    if (au_replay_tree(root, o, r, jobs, details, &t, &e) != MS_OK)
        return cli_fail(cmd, &e);
    sub_count *sc = calloc(t.n + 1, sizeof *sc);
    if (!sc) {
        au_replay_tree_free(&t);
        fprintf(stderr, "mlsubmit %s: out of memory\n", cmd);
        return MS_ERUNTIME;
    }
    size_t nsub = 0, tot[3] = {0, 0, 0};
    for (size_t i = 0; i < t.n; i++) {
        const au_replay_item *it = &t.items[i];
        size_t k = 0;
        while (k < nsub && strcmp(sc[k].name, it->submitter) != 0)
            k++;
        if (k == nsub)
            sc[nsub++].name = it->submitter;
        sc[k].logs++;
        sc[k].n[it->res.verdict]++;
        tot[it->res.verdict]++;
    }
    if (json) {
        json_t *doc = json_object(), *logs = json_array(), *subs = json_object();
        for (size_t i = 0; doc && logs && subs && i < t.n; i++) {
            const au_replay_item *it = &t.items[i];
            json_t *x = json_pack("{s:s, s:s, s:s, s:s, s:I, s:I, s:I}", "path", it->path, "submitter", it->submitter,
                                  "verdict", verdict_name(it->res.verdict), "rules", it->res.rules_used,
                                  "checked", (json_int_t)it->res.checked, "mismatches", (json_int_t)it->res.mismatches,
                                  "notes", (json_int_t)it->res.notes);
            if (x && it->res.mismatches)
                json_object_set_new(x, "first_mismatch", json_string(it->res.first_mismatch));
            if (x && it->error)
                json_object_set_new(x, "error", json_string(it->error));
            if (x && it->report)
                json_object_set_new(x, "report", json_string(it->report));
            json_array_append_new(logs, x);
        }
        for (size_t k = 0; subs && k < nsub; k++)
            json_object_set_new(subs, sc[k].name,
                                json_pack("{s:I, s:I, s:I, s:I}", "logs", (json_int_t)sc[k].logs, "matched",
                                          (json_int_t)sc[k].n[0], "mismatched", (json_int_t)sc[k].n[1], "cannot_tell",
                                          (json_int_t)sc[k].n[2]));
        if (doc) {
            json_object_set_new(doc, "root", json_string(root));
            json_object_set_new(doc, "logs", logs);
            json_object_set_new(doc, "submitters", subs);
            json_object_set_new(doc, "total", json_pack("{s:I, s:I, s:I, s:I}", "logs", (json_int_t)t.n, "matched",
                                                        (json_int_t)tot[0], "mismatched", (json_int_t)tot[1],
                                                        "cannot_tell", (json_int_t)tot[2]));
        }
        char *text = doc ? json_dumps(doc, JSON_INDENT(1) | JSON_PRESERVE_ORDER) : NULL;
        if (text)
            printf("%s\n", text);
        free(text);
        json_decref(doc);
    } else {
        printf("replay of %s: %zu detail logs\n", root, t.n);
        for (size_t i = 0; i < t.n; i++) {
            const au_replay_item *it = &t.items[i];
            if (details && it->report)
                fputs(it->report, stdout);
            if (it->res.verdict == AU_REPLAY_MISMATCH)
                printf("MISMATCH     %s: %s%s\n", it->path, it->res.first_mismatch,
                       it->res.mismatches > 1 ? " (and more)" : "");
            else if (it->res.verdict == AU_REPLAY_CANNOT_TELL)
                printf("CANNOT TELL  %s: %s\n", it->path,
                       it->error ? it->error : "no loaded set or generated query figure to check");
        }
        size_t w = 9;
        for (size_t k = 0; k < nsub; k++)
            if (strlen(sc[k].name) > w)
                w = strlen(sc[k].name);
        printf("\n%-*s %6s %8s %11s %12s\n", (int)w, "submitter", "logs", "matched", "mismatched", "cannot tell");
        for (size_t k = 0; k < nsub; k++)
            printf("%-*s %6zu %8zu %11zu %12zu\n", (int)w, sc[k].name, sc[k].logs, sc[k].n[0], sc[k].n[1], sc[k].n[2]);
        printf("%-*s %6zu %8zu %11zu %12zu\n", (int)w, "total", t.n, tot[0], tot[1], tot[2]);
    }
    free(sc);
    au_replay_tree_free(&t);
    return tot[1] ? MS_FAIL : MS_OK;
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

/* ---- option callbacks (cli/parseopt.h); a bad value is a usage error naming the option ---- */

static int mode_cb(const cli_opt *opt, const char *arg, const char *cmd)
{
    if (strcmp(arg, "compat") && strcmp(arg, "strict"))
        return cli_usage_error(cmd, "--mode: expected compat or strict, got '%s'", arg);
    *(au_mode *)opt->ctx = strcmp(arg, "strict") ? AU_COMPAT : AU_STRICT;
    return 0;
}

static int dtype_cb(const cli_opt *opt, const char *arg, const char *cmd)
{
    int k = au_dtype_parse(arg);
    if (k < 0)
        return cli_usage_error(cmd, "--dtype: expected byte, int32, int64 or float32, got '%s'", arg);
    *(au_dtype *)opt->ctx = (au_dtype)k;
    return 0;
}

/* --seeds: the three values, and the options' pointer to them */
typedef struct seeds_arg {
    uint64_t v[3];
    const uint64_t **out;
} seeds_arg;

static int seeds_cb(const cli_opt *opt, const char *arg, const char *cmd)
{
    seeds_arg *sa = opt->ctx;
    if (parse_seeds(arg, sa->v) != 0)
        return cli_usage_error(cmd, "--seeds: expected three unsigned integers QSL,SAMPLE,SCHEDULE, got '%s'", arg);
    *sa->out = sa->v;
    return 0;
}

/* a word kept as given once valid() accepts it (>= 0); msg: the usage error, %s the word */
typedef struct word_arg {
    const char **value;
    int (*valid)(const char *s);
    const char *msg;
} word_arg;

static int word_cb(const cli_opt *opt, const char *arg, const char *cmd)
{
    const word_arg *w = opt->ctx;
    if (w->valid(arg) < 0)
        return cli_usage_error(cmd, w->msg, arg);
    *w->value = arg;
    return 0;
}

/* a positive integer (uint64_t) */
static int positive_cb(const cli_opt *opt, const char *arg, const char *cmd)
{
    uint64_t *v = opt->ctx;
    if (ms_parse_u64(arg, v) != 0 || *v == 0)
        return cli_usage_error(cmd, "--%s: expected a positive integer, got '%s'", opt->long_name, arg);
    return 0;
}

static int compat_cb(const cli_opt *opt, const char *arg, const char *cmd)
{
    int k = lg_compat_parse(arg);
    if (k < 0) {
        char names[256];
        return cli_usage_error(cmd, "--loadgen-compat: expected one of %s, got '%s'", lg_compat_names(names, sizeof names),
                               arg);
    }
    *(lg_compat *)opt->ctx = (lg_compat)k;
    return 0;
}

static int timeout_cb(const cli_opt *opt, const char *arg, const char *cmd)
{
    int64_t *v = opt->ctx;
    if (ms_parse_duration_ns(arg, 1000000000, v) != 0 || *v <= 0)
        return cli_usage_error(cmd, "--timeout: expected a duration such as 30s, got '%s'", arg);
    return 0;
}

/* --set KEY=VALUE, repeated */
typedef struct sets_arg {
    const char **v;
    size_t *n;
} sets_arg;

static int set_cb(const cli_opt *opt, const char *arg, const char *cmd)
{
    sets_arg *sa = opt->ctx;
    sa->v[(*sa->n)++] = arg;
    return 0;
}

static int scorer_cb(const cli_opt *opt, const char *arg, const char *cmd)
{
    au_scorer *sc = opt->ctx;
    if (!strcmp(arg, "none"))
        *sc = AU_SCORER_NONE;
    else if (!strcmp(arg, "bytes"))
        *sc = AU_SCORER_BYTES;
    else if (!strcmp(arg, "digits"))
        *sc = AU_SCORER_DIGITS;
    else
        return cli_usage_error(cmd, "--scorer: expected none, bytes or digits, got '%s'", arg);
    return 0;
}

/* replay's --loadgen-compat: any release of the rules table (rules/loadgen.json) */
static int replay_compat_cb(const cli_opt *opt, const char *arg, const char *cmd)
{
    au_replay_opts *o = opt->ctx;
    o->compat = lg_compat_parse(arg);
    o->rules = o->compat >= 0 ? lg_version_rules_of_compat((lg_compat)o->compat) : lg_version_rules_of(arg);
    if (!o->rules || arg[0] == '.') {
        char names[256];
        return cli_usage_error(cmd, "--loadgen-compat: expected a LoadGen release (%s), got '%s'",
                               lg_compat_names(names, sizeof names), arg);
    }
    return 0;
}

static int jobs_cb(const cli_opt *opt, const char *arg, const char *cmd)
{
    uint64_t u = 0;
    if (ms_parse_u64(arg, &u) != 0 || u < 1 || u > 256)
        return cli_usage_error(cmd, "--jobs: expected 1 to 256, got '%s'", arg);
    *(int *)opt->ctx = (int)u;
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
    if (!quiet && AU_IS_BENCH_TEST(t)) {
        if (v->input_error) {
            /* the notes say why; no verdict */
        } else if (t == AU_TEST06) {
            printf("TEST06 %s: first token %s, EOS %s, sample length %s (%llu records)  %s\n", v->verify_file,
                   v->first_token_pass < 0 ? "Skipped" : v->first_token_pass ? "True" : "False",
                   v->eos_pass ? "True" : "False", v->length_pass ? "True" : "False",
                   (unsigned long long)v->perf_entries, v->verify_accuracy_path);
        } else if (t == AU_TEST07) {
            printf("TEST07 %s: %s (score %.6g, threshold %.6g, %llu records)  %s\n", v->verify_file,
                   v->compat_pass ? "TEST PASS" : "TEST FAIL", v->have_scores ? v->score : NAN, v->threshold,
                   (unsigned long long)v->perf_entries, v->verify_accuracy_path);
        } else if (t == AU_TEST08) {
            printf("TEST08 %s: %s (%llu records, %llu matched, %llu unmatched, %llu NE mismatches)  %s\n",
                   v->verify_file, v->compat_pass ? "TEST PASS" : "TEST FAIL", (unsigned long long)v->perf_entries,
                   (unsigned long long)v->matched, (unsigned long long)v->unmatched,
                   (unsigned long long)v->ne_mismatch, v->verify_accuracy_path);
        } else {
            printf("TEST09 %s: %s (mean output tokens %.2f, bounds %.6g..%.6g, %llu records)  %s\n", v->verify_file,
                   v->compat_pass ? "TEST PASS" : "TEST FAIL", v->score, v->threshold, v->max_threshold,
                   (unsigned long long)v->perf_entries, v->verify_accuracy_path);
        }
        if (v->strict_run)
            fputs(v->strict_report.data ? v->strict_report.data : "", stdout);
        if (!v->input_error)
            printf("%s: %s (%s)\n", au_test_name(t), (mode == AU_STRICT ? v->strict_pass : v->compat_pass) ? "PASS" : "FAIL",
                   mode == AU_STRICT ? "strict" : "compat");
    } else if (!quiet) {
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
                           .loadgen_compat = lg_compat_version(o->compat),
                           .noptions = o->nsets,
                           .verdict = rc == MS_OK ? "PASS" : rc == MS_FAIL ? "FAIL" : NULL,
                           .error = NULL};
    if (rc > MS_FAIL) {
        snprintf(c->error, sizeof c->error, "%s", e->msg);
        c->r.error = c->error;
    }
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
    /* res lives in cmd_run's frame and the row is written after it returns: copy its paths */
    if (!o->reuse_results && res->results_dir[0]) {
        snprintf(c->paths[1], sizeof c->paths[1], "%s", res->results_dir);
        c->io[n++] = c->paths[1];
    }
    if (res->test_dir[0]) {
        snprintf(c->paths[2], sizeof c->paths[2], "%s", res->test_dir);
        c->io[n++] = c->paths[2];
    }
    c->r.outputs = c->io + c->r.ninputs;
    c->r.noutputs = n - c->r.ninputs;
}

static int cmd_run(int argc, char **argv, cli_rec *rec)
{
    const char *cmd = "audit run";
    au_run_opts o;
    au_run_opts_default(&o);
    const char *rules = NULL, *scen = NULL, *layout = NULL;
    seeds_arg seeds = {{0, 0, 0}, &o.test05_seeds};
    uint64_t total = 0, perf = 0;
    int quiet = 0, low_latency = 0, rc = MS_OK;
    const char **sets = calloc((size_t)argc + 1, sizeof *sets);
    if (!sets)
        return MS_ERUNTIME;
    sets_arg sa = {sets, &o.nsets};
    const cli_opt opts[] = {
        CLI_STRING(0, "sut", &o.sut_spec, "SPEC", "the SUT (mlsubmit loadgen suts lists them)"),
        CLI_STRING('o', "output", &o.output_dir, "DIR", "the scenario directory of the layout; TESTxx/ is created inside"),
        CLI_STRING(0, "layout", &layout, "L",
                   "unified (default): DIR is results/<system>/<model>/<scenario>, the\n"
                   "reference runs go to DIR/accuracy and DIR/performance/run_1;\n"
                   "legacy: DIR is compliance/<system>/<model>/<scenario>, the reference runs\n"
                   "go to the same path under results/; or a round, the layout\n"
                   "rules/compliance.json lists it under"),
        CLI_STRING(0, "results", &o.results_dir, "DIR", "where the reference runs go (or are, with --reuse-results)"),
        CLI_FLAG(0, "reuse-results", &o.reuse_results, "verify against the reference logs already in the results directory"),
        CLI_CALLBACK(0, "mode", "M",
                     "compat (default): upstream's verdicts; strict: also mlsubmit's stronger\n"
                     "checks (audit.config applied, full-byte TEST01, TEST04-U unique-index\n"
                     "run, latency-based tolerance), reported separately",
                     mode_cb, &o.mode),
        CLI_STRING(0, "model", &o.model, "M", "model for mlperf.conf and the audit values (resnet50, digits, ...)"),
        CLI_STRING(0, "scenario", &scen, "S", "SingleStream, MultiStream, Server or Offline"),
        CLI_STRING(0, "mlperf-conf", &o.mlperf_conf, "F", "the mlperf.conf (default: the embedded one of the release)"),
        CLI_STRING(0, "user-conf", &o.user_conf, "F", "a user.conf for every run"),
        CLI_CALLBACK(0, "set", "KEY=VALUE", "TestSettings override for every run (e.g. min_duration_ms=500)", set_cb,
                     &sa),
        CLI_CALLBACK(0, "total-samples", "N", "a counting QSL of N samples", positive_cb, &total),
        CLI_CALLBACK(0, "performance-samples", "P", "its performance sample count", positive_cb, &perf),
        CLI_CALLBACK(0, "loadgen-compat", "V", "the LoadGen release to emulate", compat_cb, &o.compat),
        CLI_STRING(0, "data", &o.data_dir, "DIR", CLI_DATA_OPT_HELP),
        CLI_CALLBACK(0, "dtype", "T",
                     "TEST01 element type of the first-element comparison (default int32:\n"
                     "the reference SUTs answer 4-byte integers)",
                     dtype_cb, &o.dtype),
        CLI_CALLBACK(0, "sampling-target", "N", "TEST01 accuracy_log_sampling_target instead of the model's",
                     positive_cb, &o.sampling_target),
        CLI_CALLBACK(0, "seeds", "Q,S,T", "TEST05 alternate seeds instead of the round's test05 seeds", seeds_cb,
                     &seeds),
        CLI_CALLBACK(0, "timeout", "D", "give up a run when no sample completes for D (e.g. 30s)", timeout_cb,
                     &o.timeout_ns),
        CLI_FLAG(0, "force", &o.force, "run a test the round does not require for the model"),
        CLI_FLAG(0, "keep-work", &o.keep_work, "keep the work directory (audit.config files, the unique-index runs)"),
        CLI_STRING(0, "strict-report", &o.strict_report_path, "F",
                   "write the STRICT report to F (keep it outside the submission tree)"),
        CLI_STRING(0, "accuracy-script", &o.accuracy_script, "CMD", "TEST07's scorer: \"COMMAND {accuracy_log}\""),
        CLI_STRING(0, "rules", &rules, "FILE", "the compliance rules (default: rules/compliance.json)"),
        CLI_FLAG(0, "quiet", &quiet, "no progress, no outcome lines"),
        CLI_FLAG(0, "low-latency", &low_latency, CLI_LOW_LATENCY_OPT_HELP),
        CLI_TEXT(usage_run_tail),
        CLI_END,
    };
    char **pos;
    int npos = cli_parse(cmd, usage_run, opts, argc, argv, &pos);
    if (npos < 0) {
        free(sets);
        return cli_parse_exit(npos);
    }
    o.total_samples = (size_t)total;
    o.performance_samples = (size_t)perf;
    o.sets = sets;
    int t = npos > 0 ? au_test_parse(pos[0]) : -1;
    if (t < 0 || npos != 1) {
        free(sets);
        return cli_usage_error(cmd, npos > 0 ? "expected one test (TEST01, TEST04 to TEST09), got '%s'"
                                             : "expected a test (TEST01, TEST04 to TEST09)%s",
                               npos > 0 ? pos[0] : "");
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
    if (layout) {
        int lay = au_layout_parse(r, layout);
        if (lay < 0) {
            au_rules_free(r);
            free(sets);
            return cli_usage_error(cmd, "--layout: expected unified, legacy or a round of rules/compliance.json's layouts, got '%s'", layout);
        }
        o.layout = (au_layout)lay;
    }
    o.note = print_note;
    o.note_ctx = &quiet;
    o.console = cli_stdout_write;
    ms_pmqos qos = MS_PMQOS_INIT;
    if (low_latency)
        cli_low_latency(cmd, &qos);
    au_run_result res;
    ms_err e = {0};
    rc = au_run(&o, r, &res, &e);
    ms_pmqos_release(&qos);
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
    seeds_arg seeds = {{0, 0, 0}, &o.test05_seeds};
    word_arg scen = {&o.scenario, lg_scenario_parse,
                     "--scenario: '%s' is not SingleStream, MultiStream, Server or Offline"};
    int rc = MS_OK;
    const cli_opt opts[] = {
        CLI_STRING(0, "audit", &o.audit_dir, "DIR", "the audited run (its LoadGen output directory, or a placed TESTxx)"),
        CLI_STRING(0, "reference", &o.reference_dir, "DIR", "the submission's scenario directory"),
        CLI_CALLBACK(0, "mode", "M",
                     "compat (default): the upstream scripts' verdicts and file contents (TEST01\n"
                     "verify_accuracy.py / verify_performance.py, TEST04 verify_performance.py,\n"
                     "TEST05 verify_performance.py); where they crash (missing file, error\n"
                     "entries in a detail log) the file names the file and the reason instead;\n"
                     "strict: also the audit.config was applied (its settings in the detail log), every byte of every TEST01\n"
                     "record, a plausible record count, TEST04 tolerance decided on the latency,\n"
                     "Server target latency, TEST04-U against --unique DIR; reported on stdout\n"
                     "(and --strict-report), never inside the verify files",
                     mode_cb, &o.mode),
        CLI_STRING('o', "output", &o.output_dir, "DIR", "write the whole DIR/TESTxx/ tree"),
        CLI_STRING(0, "unique", &o.unique_dir, "DIR", "TEST04 strict: the unique-index run (TEST04-U)"),
        CLI_CALLBACK(0, "scenario", "S", "TEST06: the run's scenario (default: from its detail log)", word_cb, &scen),
        CLI_STRING(0, "accuracy-script", &o.accuracy_script, "CMD", "TEST07's scorer: \"COMMAND {accuracy_log}\""),
        CLI_CALLBACK(0, "dtype", "T", "TEST01 element type of upstream's first-element comparison (default byte)",
                     dtype_cb, &o.dtype),
        CLI_FLAG(0, "unixmode", &o.unixmode, "TEST01 upstream's line-digest comparison instead"),
        CLI_CALLBACK(0, "scorer", "S",
                     "TEST01 fallback accuracy script: bytes, digits (the dataset of --data),\n"
                     "none (default: no fallback files)",
                     scorer_cb, &o.scorer),
        CLI_STRING(0, "data", &o.data_dir, "DIR", CLI_DATA_OPT_HELP),
        CLI_STRING(0, "model", &o.model, "M",
                   "model name for the sampling target and fallback tolerance, and the\n"
                   "benchmark of TEST06-TEST09 (default: from the directory names)"),
        CLI_CALLBACK(0, "seeds", "Q,S,T", "TEST05 strict: the expected alternate seeds (default: the round's)", seeds_cb,
                     &seeds),
        CLI_STRING(0, "strict-report", &o.strict_report_path, "FILE", "strict: also write the report to FILE"),
        CLI_STRING(0, "rules", &rules, "FILE", "the compliance rules (default: rules/compliance.json)"),
        CLI_TEXT(usage_verify_tail),
        CLI_END,
    };
    char **pos;
    int npos = cli_parse(cmd, usage_verify, opts, argc, argv, &pos);
    if (npos < 0)
        return cli_parse_exit(npos);
    int t = npos > 0 ? au_test_parse(pos[0]) : -1;
    if (t < 0 || npos != 1)
        return cli_usage_error(cmd, "expected one test: TEST01, TEST04 to TEST09");
    if (!o.audit_dir || (!o.reference_dir && (!AU_IS_BENCH_TEST(t) || t == AU_TEST08)))
        return cli_usage_error(cmd, AU_IS_BENCH_TEST(t) && t != AU_TEST08 ? "--audit is required"
                                                                          : "--reference and --audit are required");
    if (o.unique_dir && t != AU_TEST04)
        return cli_usage_error(cmd, "--unique is for TEST04 only");
    o.test = (au_test)t;
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
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int jobs = ncpu > 0 ? (int)ncpu : 1, json = 0, details = 0;
    word_arg test = {&o.test, au_test_parse, "--test: expected TEST01, TEST04 or TEST05, got '%s'"};
    const cli_opt opts[] = {
        CLI_CALLBACK(0, "loadgen-compat", "V",
                     "the rules of LoadGen release V (a version of rules/loadgen.json)\n"
                     "instead of the log's loadgen_version",
                     replay_compat_cb, &o),
        CLI_CALLBACK(0, "test", "TEST", "the audit of the log (default: from its directory)", word_cb, &test),
        CLI_STRING(0, "model", &o.model, "M", "the log's model (default: from the directory names)"),
        CLI_STRING(0, "accuracy-log", &o.accuracy_log, "F", "the log's accuracy log (a single detail log)"),
        CLI_STRING(0, "rules", &rules, "FILE", "the compliance rules (default: rules/compliance.json)"),
        CLI_CALLBACK(0, "jobs", "N", "threads for a tree (default: the online CPUs)", jobs_cb, &jobs),
        CLI_FLAG(0, "json", &json, "a tree's verdicts as JSON on stdout (every log, per submitter, total)"),
        CLI_FLAG(0, "details", &details, "a tree: every log's full report too"),
        CLI_TEXT(usage_replay_tail),
        CLI_END,
    };
    char **pos;
    int npos = cli_parse(cmd, usage_replay, opts, argc, argv, &pos);
    if (npos < 0)
        return cli_parse_exit(npos);
    if (npos == 0)
        return cli_usage_error(cmd, "expected one or more mlperf_log_detail.txt files");
    if (o.accuracy_log && npos > 1)
        return cli_usage_error(cmd, "--accuracy-log goes with a single detail log");
    int rc = MS_OK;
    au_rules *r = load_rules(cmd, rules, &rc);
    if (!r)
        return rc;
    int worst = MS_OK;
    if (json)
        for (int i = 0; i < npos; i++)
            if (!ms_is_dir(pos[i])) {
                au_rules_free(r);
                return cli_usage_error(cmd, "--json goes with tree roots (directories), not '%s'", pos[i]);
            }
    for (int i = 0; i < npos; i++) {
        if (ms_is_dir(pos[i])) {
            rc = replay_tree(pos[i], &o, r, jobs, json, details);
            if (rc > worst)
                worst = rc;
            continue;
        }
        ms_buf out = MS_BUF_INIT;
        au_replay_result res;
        ms_err e = {0};
        rc = au_replay(pos[i], &o, r, &out, &res, &e);
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
    static const cli_subcmd subs[] = {
        {"run", NULL, cmd_run}, {"verify", cmd_verify, NULL}, {"replay", cmd_replay, NULL}, {NULL, NULL, NULL}};
    return cli_dispatch("audit", argc, argv, usage, subs);
}
