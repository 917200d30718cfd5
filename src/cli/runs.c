/* mlsubmit runs list | show | compare | rerun | export | gc: the runs database (src/runs/). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/parseopt.h"
#include "cli/runrec.h"
#include "common/fsutil.h"
#include "common/strutil.h"
#include "runs/runs.h"

static const char usage_text[] =
    "usage: mlsubmit runs <list|show|compare|rerun|export|gc> [--runs-db FILE] [options]\n"
    "\n"
    "Every `loadgen run` and `audit run` records one row (unless --no-record) in the runs\n"
    "database: --runs-db FILE, else $MLSUBMIT_RUNS_DB, else $XDG_DATA_HOME/mlsubmit/runs.sqlite\n"
    "(~/.local/share/mlsubmit/runs.sqlite). Schema: docs/runs-schema.md.\n"
    "\n"
    "  list [--where KEY OP VALUE]... [--limit N] [--json]\n"
    "           runs, newest first; OP is = != < > <= >= or ~ (substring); KEY a column (id,\n"
    "           kind, sut, model, scenario, mode, test, validity, verdict, metric, exit_code,\n"
    "           hostname, started_at, ...) or settings.NAME / effective.NAME\n"
    "  show ID [--json]           everything recorded about a run\n"
    "  compare A B [C...] [--json]\n"
    "           settings that differ, metrics side by side with deltas against A, and for\n"
    "           latency percentiles whether the difference exceeds run-to-run noise\n"
    "  rerun ID [--output DIR]    run the same command again (in its directory; --output\n"
    "           replaces its output directory), then compare: exit 0 when reproducible\n"
    "  export --format csv|json [-o FILE]   every run (stdout by default)\n"
    "  gc --keep N                delete all but the newest N runs\n";

static const char usage_tail[] =
    "\n"
    "Exit: 0 success, 1 rerun not reproducible, 2 usage, 3 no such run / not a runs database,\n"
    "4 runtime failure.";

static int parse_id(const char *s, int64_t *id)
{
    uint64_t u;
    if (ms_parse_u64(s, &u) != 0 || u == 0 || u > INT64_MAX)
        return -1;
    *id = (int64_t)u;
    return 0;
}

static const char *jstr(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

static void print_value(FILE *f, json_t *v)
{
    if (!v || json_is_null(v))
        fputs("-", f);
    else if (json_is_string(v))
        fputs(json_string_value(v), f);
    else if (json_is_integer(v))
        fprintf(f, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v))
        fprintf(f, "%.6g", json_real_value(v));
    else {
        char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
        fputs(s ? s : "?", f);
        free(s);
    }
}

static int print_json(json_t *j)
{
    char *s = json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_ENCODE_ANY);
    if (!s)
        return MS_ERUNTIME;
    puts(s);
    free(s);
    return MS_OK;
}

/* Options common to every subcommand: --runs-db FILE, --json, plus the subcommand's own. */
typedef struct common_opts {
    const char *db;
    int json;
    const char *output;
    const char *format;
    const char *keep;
    const char *limit;
    const char **where;
    size_t nwhere;
    int64_t id;    /* show, rerun: the run */
    int64_t *ids;  /* compare: the runs */
    size_t nids;
} common_opts;

static int where_cb(const cli_opt *opt, const char *arg, const char *cmd)
{
    common_opts *o = opt->ctx;
    o->where[o->nwhere++] = arg;
    return 0;
}

#define RUNS_NOPTS 10

/* The options of every subcommand, one table: parsed into o, listed by --help. */
static void runs_options(common_opts *o, cli_opt opts[RUNS_NOPTS])
{
    const cli_opt t[RUNS_NOPTS] = {
        CLI_TEXT("\nOptions (every subcommand takes them; each uses its own):"),
        CLI_STRING(0, "runs-db", &o->db, "FILE", "the runs database"),
        CLI_FLAG(0, "json", &o->json, "list, show, compare: JSON on stdout"),
        CLI_STRING('o', "output", &o->output, "PATH", "rerun: its output directory; export: the file (default: stdout)"),
        CLI_STRING(0, "format", &o->format, "F", "export: csv or json"),
        CLI_STRING(0, "keep", &o->keep, "N", "gc: how many of the newest runs to keep"),
        CLI_STRING(0, "limit", &o->limit, "N", "list: at most N runs"),
        CLI_CALLBACK(0, "where", "'KEY OP VALUE'", "list: only the runs where KEY OP VALUE holds (repeatable)", where_cb, o),
        CLI_TEXT(usage_tail),
        CLI_END,
    };
    memcpy(opts, t, sizeof t);
}

static void usage(FILE *f)
{
    fprintf(f, "%s\n'mlsubmit runs <subcommand> --help' lists the options.\n%s\n", usage_text, usage_tail);
}

static ms_runs_db *open_db(const char *cmd, const char *opt, int writable, int *rc)
{
    char *path = cli_runs_db(cmd, opt);
    if (!path) {
        *rc = MS_EUSAGE;
        return NULL;
    }
    if (!ms_is_regular_file(path)) {
        fprintf(stderr, "mlsubmit %s: %s: no runs database (nothing recorded yet?)\n", cmd, path);
        free(path);
        *rc = MS_EINPUT;
        return NULL;
    }
    ms_err e = {0};
    ms_runs_db *db = ms_runs_open(path, writable, &e);
    free(path);
    if (!db)
        *rc = cli_fail(cmd, &e);
    return db;
}

static int do_list(const common_opts *o)
{
    const char *cmd = "runs list";
    uint64_t limit = 0;
    if (o->limit && ms_parse_u64(o->limit, &limit) != 0)
        return cli_usage_error(cmd, "--limit: expected a number, got '%s'", o->limit);
    ms_runs_filter *f = calloc(o->nwhere + 1, sizeof *f);
    if (!f)
        return MS_ERUNTIME;
    ms_err e = {0};
    for (size_t i = 0; i < o->nwhere; i++)
        if (ms_runs_filter_parse(o->where[i], &f[i], &e) != MS_OK) {
            free(f);
            return cli_usage_error(cmd, "%s", e.msg);
        }
    int rc = MS_OK;
    ms_runs_db *db = open_db(cmd, o->db, 0, &rc);
    if (!db) {
        free(f);
        return rc;
    }
    json_t *arr = NULL;
    rc = ms_runs_list(db, f, o->nwhere, (size_t)limit, &arr, &e);
    free(f);
    ms_runs_close(db);
    if (rc != MS_OK)
        return cli_fail(cmd, &e);
    if (o->json) {
        rc = print_json(arr);
    } else {
        printf("%-5s %-24s %-11s %-28s %-28s %-9s %s\n", "ID", "STARTED (UTC)", "KIND", "SUT",
               "MODEL/SCENARIO/MODE", "RESULT", "METRIC");
        size_t i;
        json_t *r;
        json_array_foreach(arr, i, r)
        {
            char ms[128];
            const char *test = jstr(r, "test");
            snprintf(ms, sizeof ms, "%s/%s/%s", jstr(r, "model") ? jstr(r, "model") : "-",
                     jstr(r, "scenario") ? jstr(r, "scenario") : "-", test ? test : jstr(r, "mode") ? jstr(r, "mode") : "-");
            const char *res = jstr(r, "verdict") ? jstr(r, "verdict") : jstr(r, "validity");
            printf("%-5lld %-24s %-11s %-28s %-28s %-9s ", (long long)json_integer_value(json_object_get(r, "id")),
                   jstr(r, "started_at") ? jstr(r, "started_at") : "-", jstr(r, "kind"),
                   jstr(r, "sut") ? jstr(r, "sut") : "-", ms, res ? res : "-");
            if (json_is_number(json_object_get(r, "metric")))
                printf("%.6g (%s)", json_number_value(json_object_get(r, "metric")),
                       jstr(r, "metric_name") ? jstr(r, "metric_name") : "");
            else
                printf("exit %lld", (long long)json_integer_value(json_object_get(r, "exit_code")));
            putchar('\n');
        }
        printf("%zu run%s\n", json_array_size(arr), json_array_size(arr) == 1 ? "" : "s");
    }
    json_decref(arr);
    return rc;
}

static int do_show(const common_opts *o)
{
    const char *cmd = "runs show";
    int rc = MS_OK;
    ms_runs_db *db = open_db(cmd, o->db, 0, &rc);
    if (!db)
        return rc;
    json_t *r = NULL;
    ms_err e = {0};
    rc = ms_runs_get(db, o->id, &r, &e);
    ms_runs_close(db);
    if (rc != MS_OK)
        return cli_fail(cmd, &e);
    if (o->json) {
        rc = print_json(r);
        json_decref(r);
        return rc;
    }
    static const char *const keys[] = {"id", "kind", "command", "cwd", "started_at", "ended_at", "duration_s",
                                       "exit_code", "sut", "model", "scenario", "mode", "test",
                                       "loadgen_compat", "validity", "verdict", "metric_name", "metric",
                                       "query_count", "n_errors", "n_warnings", "error", "log_dir",
                                       "trace_path", "rerun_of", "mlsubmit_version", "loadgen_sha256",
                                       "hostname", "cpu_model", "cpu_cores", "memory_bytes", "kernel",
                                       "cpu_governor", NULL};
    for (size_t i = 0; keys[i]; i++) {
        json_t *v = json_object_get(r, keys[i]);
        if (!v || json_is_null(v))
            continue;
        printf("%-18s ", keys[i]);
        print_value(stdout, v);
        putchar('\n');
    }
    json_t *lat = json_object_get(r, "latency");
    json_t *pc = json_object_get(lat, "percentiles");
    if (json_array_size(pc)) {
        printf("latency (ns):      min %.0f  mean %.0f  max %.0f  (n=%lld)\n", json_number_value(json_object_get(lat, "min")),
               json_number_value(json_object_get(lat, "mean")), json_number_value(json_object_get(lat, "max")),
               (long long)json_integer_value(json_object_get(lat, "count")));
        size_t i;
        json_t *p;
        json_array_foreach(pc, i, p) printf("  p%-6g %.0f\n", json_number_value(json_array_get(p, 0)),
                                            json_number_value(json_array_get(p, 1)));
    }
    json_t *es = json_object_get(json_object_get(r, "early_stopping"), "text");
    if (json_array_size(es)) {
        printf("early stopping:\n");
        size_t i;
        json_t *t;
        json_array_foreach(es, i, t) printf("  %s\n", json_string_value(t));
    }
    static const char *const groups[] = {"requested", "effective", "options", NULL};
    for (size_t g = 0; groups[g]; g++) {
        json_t *grp = json_object_get(json_object_get(r, "settings"), groups[g]);
        if (!json_object_size(grp))
            continue;
        printf("settings (%s):\n", groups[g]);
        const char *k;
        json_t *v;
        json_object_foreach(grp, k, v)
        {
            printf("  %s = ", k);
            print_value(stdout, v);
            putchar('\n');
        }
    }
    json_t *files = json_object_get(r, "files");
    if (json_array_size(files)) {
        printf("files:\n");
        size_t i;
        json_t *f;
        json_array_foreach(files, i, f) printf("  %-6s %s  %lld  %s\n", jstr(f, "role"),
                                               jstr(f, "sha256") ? jstr(f, "sha256") : "-",
                                               (long long)json_integer_value(json_object_get(f, "size")), jstr(f, "path"));
    }
    json_decref(r);
    return MS_OK;
}

/* Prints a comparison; returns the number of latency metrics beyond noise. */
static size_t print_compare(json_t *c)
{
    json_t *ids = json_object_get(c, "runs");
    size_t n = json_array_size(ids), i, beyond = 0;
    json_t *v;
    printf("%-40s", "run");
    json_array_foreach(ids, i, v) printf(" %18lld", (long long)json_integer_value(v));
    putchar('\n');
    json_t *set = json_object_get(c, "settings");
    if (json_array_size(set)) {
        printf("settings that differ:\n");
        json_t *s;
        json_array_foreach(set, i, s)
        {
            printf("  %-38s", jstr(s, "name"));
            size_t j;
            json_array_foreach(json_object_get(s, "values"), j, v)
            {
                putchar(' ');
                char *t = json_is_string(v) ? strdup(json_string_value(v)) : json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
                printf("%18.18s", t ? t : "?");
                free(t);
            }
            putchar('\n');
        }
    } else {
        printf("settings: identical\n");
    }
    printf("metrics (delta against run %lld):\n", (long long)json_integer_value(json_array_get(ids, 0)));
    json_t *m;
    json_array_foreach(json_object_get(c, "metrics"), i, m)
    {
        printf("  %-38s", jstr(m, "name"));
        size_t j;
        json_array_foreach(json_object_get(m, "values"), j, v)
        {
            if (json_is_number(v))
                printf(" %18.6g", json_number_value(v));
            else
                printf(" %18s", "-");
        }
        putchar('\n');
        for (j = 1; j < n; j++) {
            json_t *d = json_array_get(json_object_get(m, "delta"), j);
            json_t *p = json_array_get(json_object_get(m, "delta_pct"), j);
            json_t *nz = json_array_get(json_object_get(m, "noise"), j);
            if (!json_is_number(d))
                continue;
            printf("    run %lld: %+.6g", (long long)json_integer_value(json_array_get(ids, j)), json_number_value(d));
            if (json_is_number(p))
                printf(" (%+.2f%%)", json_number_value(p));
            if (json_is_object(nz)) {
                printf(", %s", jstr(nz, "verdict"));
                if (!strcmp(jstr(nz, "verdict"), "beyond noise"))
                    beyond++;
            }
            putchar('\n');
        }
    }
    return beyond;
}

/* The run ids of compare (freed by the caller, also after an error). */
static int collect_ids(const char *cmd, int npos, char **pos, common_opts *o)
{
    o->ids = calloc((size_t)npos + 1, sizeof *o->ids);
    if (!o->ids)
        return MS_ERUNTIME;
    for (int i = 0; i < npos; i++)
        if (parse_id(pos[i], &o->ids[o->nids++]) != 0)
            return cli_usage_error(cmd, "'%s' is not a run id", pos[i]);
    if (o->nids < 2)
        return cli_usage_error(cmd, "expected two or more run ids");
    return MS_OK;
}

static int do_compare(const common_opts *o)
{
    const char *cmd = "runs compare";
    int rc = MS_OK;
    ms_runs_db *db = open_db(cmd, o->db, 0, &rc);
    if (!db)
        return rc;
    json_t *c = NULL;
    ms_err e = {0};
    rc = ms_runs_compare(db, o->ids, o->nids, &c, &e);
    ms_runs_close(db);
    if (rc != MS_OK)
        return cli_fail(cmd, &e);
    if (o->json)
        rc = print_json(c);
    else
        print_compare(c);
    json_decref(c);
    return rc;
}

static int do_rerun(const common_opts *o)
{
    const char *cmd = "runs rerun";
    int64_t id = o->id;
    char *path = cli_runs_db(cmd, o->db);
    if (!path)
        return MS_EUSAGE;
    int rc = MS_OK;
    ms_runs_db *db = open_db(cmd, path, 0, &rc);
    if (!db) {
        free(path);
        return rc;
    }
    char **av = NULL, *cwd = NULL;
    int ac = 0;
    ms_err e = {0};
    rc = ms_runs_argv(db, id, &av, &ac, &cwd, &e);
    ms_runs_close(db);
    if (rc != MS_OK) {
        free(path);
        return cli_fail(cmd, &e);
    }
    /* mlsubmit <argv...> [--output DIR] --runs-db PATH */
    char **full = calloc((size_t)ac + 6, sizeof *full);
    char *abs_db = realpath(path, NULL);
    char *abs_out = NULL;
    if (o->output) {
        if (ms_mkdir_p(o->output, &e) != MS_OK) {
            rc = cli_fail(cmd, &e);
            goto out;
        }
        abs_out = realpath(o->output, NULL);
    }
    if (!full || !abs_db || (o->output && !abs_out)) {
        rc = cli_fail(cmd, &(ms_err){MS_ERUNTIME, "cannot resolve the database or output path"});
        goto out;
    }
    int n = 0, replaced = 0;
    full[n++] = "mlsubmit";
    for (int i = 0; i < ac; i++) {
        full[n++] = av[i];
        if (abs_out && (!strcmp(av[i], "--output") || !strcmp(av[i], "-o")) && i + 1 < ac) {
            full[n++] = abs_out;
            i++;
            replaced = 1;
        }
    }
    if (abs_out && !replaced) {
        full[n++] = "--output";
        full[n++] = abs_out;
    }
    full[n++] = "--runs-db";
    full[n++] = abs_db;
    full[n] = NULL;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        rc = cli_fail(cmd, &(ms_err){MS_ERUNTIME, "cannot fork"});
        goto out;
    }
    if (pid == 0) {
        char idbuf[32];
        snprintf(idbuf, sizeof idbuf, "%lld", (long long)id);
        setenv("MLSUBMIT_RERUN_OF", idbuf, 1);
        if (cwd && chdir(cwd) != 0) {
            fprintf(stderr, "mlsubmit %s: cannot enter the run's directory %s: %s\n", cmd, cwd, strerror(errno));
            _exit(MS_ERUNTIME);
        }
        execv("/proc/self/exe", full);
        fprintf(stderr, "mlsubmit %s: cannot run mlsubmit again: %s\n", cmd, strerror(errno));
        _exit(MS_ERUNTIME);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    db = open_db(cmd, abs_db, 0, &rc);
    if (!db)
        goto out;
    int64_t nid = ms_runs_latest_rerun(db, id);
    if (!nid) {
        ms_runs_close(db);
        fprintf(stderr, "mlsubmit %s: the rerun of run %lld was not recorded (exit %d)\n", cmd, (long long)id,
                WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        rc = MS_ERUNTIME;
        goto out;
    }
    int64_t ids[2] = {id, nid};
    json_t *c = NULL;
    rc = ms_runs_compare(db, ids, 2, &c, &e);
    ms_runs_close(db);
    if (rc != MS_OK) {
        rc = cli_fail(cmd, &e);
        goto out;
    }
    size_t beyond = 0;
    if (o->json) {
        print_json(c);
        size_t i, j;
        json_t *m;
        json_array_foreach(json_object_get(c, "metrics"), i, m)
        {
            json_t *nz;
            json_array_foreach(json_object_get(m, "noise"), j, nz) if (json_is_object(nz) &&
                                                                      !strcmp(jstr(nz, "verdict"), "beyond noise")) beyond++;
        }
    } else {
        printf("rerun of run %lld recorded as run %lld\n", (long long)id, (long long)nid);
        beyond = print_compare(c);
    }
    json_decref(c);
    if (!o->json)
        printf("%s\n", beyond ? "NOT REPRODUCIBLE: latency differences beyond run-to-run noise"
                              : "reproducible: no latency difference beyond run-to-run noise");
    rc = beyond ? MS_FAIL : MS_OK;
out:
    ms_runs_argv_free(av, ac);
    free(cwd);
    free(full);
    free(abs_db);
    free(abs_out);
    free(path);
    return rc;
}

static int do_export(const common_opts *o)
{
    const char *cmd = "runs export";
    if (!o->format || (strcmp(o->format, "csv") && strcmp(o->format, "json")))
        return cli_usage_error(cmd, "--format csv or --format json is required");
    int rc = MS_OK;
    ms_runs_db *db = open_db(cmd, o->db, 0, &rc);
    if (!db)
        return rc;
    char *text = NULL;
    size_t len = 0;
    ms_err e = {0};
    rc = ms_runs_export(db, o->format, &text, &len, &e);
    ms_runs_close(db);
    if (rc != MS_OK)
        return cli_fail(cmd, &e);
    if (o->output) {
        ms_afile af = {0};
        if ((rc = ms_afile_open(&af, o->output, &e)) == MS_OK) {
            if (fwrite(text, 1, len, af.fp) != len) {
                ms_afile_abort(&af);
                rc = ms_err_set(&e, MS_ERUNTIME, "%s: write failed", o->output);
            } else {
                rc = ms_afile_commit(&af, &e);
            }
        }
        if (rc != MS_OK)
            rc = cli_fail(cmd, &e);
    } else {
        fwrite(text, 1, len, stdout);
    }
    free(text);
    return rc;
}

static int do_gc(const common_opts *o)
{
    const char *cmd = "runs gc";
    uint64_t keep;
    if (!o->keep || ms_parse_u64(o->keep, &keep) != 0)
        return cli_usage_error(cmd, "--keep N is required (N >= 0)");
    int rc = MS_OK;
    ms_runs_db *db = open_db(cmd, o->db, 1, &rc);
    if (!db)
        return rc;
    size_t deleted = 0;
    ms_err e = {0};
    rc = ms_runs_gc(db, (size_t)keep, &deleted, &e);
    ms_runs_close(db);
    if (rc != MS_OK)
        return cli_fail(cmd, &e);
    printf("deleted %zu run%s, kept the newest %llu\n", deleted, deleted == 1 ? "" : "s", (unsigned long long)keep);
    return MS_OK;
}

typedef int (*runs_fn)(const common_opts *o);

/* What a subcommand takes besides its options. */
typedef enum runs_args { ARGS_NONE, ARGS_ONE_ID, ARGS_IDS } runs_args;

/* The positional words: none, one run id (o->id) or two or more (o->ids). */
static int take_args(const char *cmd, runs_args kind, int npos, char **pos, common_opts *o)
{
    if (kind == ARGS_IDS)
        return collect_ids(cmd, npos, pos, o);
    if (kind == ARGS_ONE_ID && (npos != 1 || parse_id(pos[0], &o->id) != 0))
        return cli_usage_error(cmd, "expected one run id (a positive integer)");
    if (kind == ARGS_NONE && npos > 0)
        return cli_usage_error(cmd, "unexpected argument '%s'", pos[0]);
    return MS_OK;
}

/* A subcommand: its options parsed with the one table, its words taken, then fn. */
static int run_sub(const char *cmd, runs_fn fn, runs_args kind, int argc, char **argv)
{
    common_opts o = {0};
    o.where = calloc((size_t)argc + 1, sizeof *o.where);
    if (!o.where)
        return MS_ERUNTIME;
    cli_opt opts[RUNS_NOPTS];
    runs_options(&o, opts);
    char **pos;
    int npos = cli_parse(cmd, usage_text, opts, argc, argv, &pos);
    int rc = npos < 0 ? cli_parse_exit(npos) : take_args(cmd, kind, npos, pos, &o);
    if (npos >= 0 && rc == MS_OK)
        rc = fn(&o);
    free(o.where);
    free(o.ids);
    return rc;
}

static int sub_list(int argc, char **argv) { return run_sub("runs list", do_list, ARGS_NONE, argc, argv); }
static int sub_show(int argc, char **argv) { return run_sub("runs show", do_show, ARGS_ONE_ID, argc, argv); }
static int sub_compare(int argc, char **argv) { return run_sub("runs compare", do_compare, ARGS_IDS, argc, argv); }
static int sub_rerun(int argc, char **argv) { return run_sub("runs rerun", do_rerun, ARGS_ONE_ID, argc, argv); }
static int sub_export(int argc, char **argv) { return run_sub("runs export", do_export, ARGS_NONE, argc, argv); }
static int sub_gc(int argc, char **argv) { return run_sub("runs gc", do_gc, ARGS_NONE, argc, argv); }

int cmd_runs(int argc, char **argv)
{
    static const cli_subcmd subs[] = {{"list", sub_list, NULL},       {"show", sub_show, NULL},
                                      {"compare", sub_compare, NULL}, {"rerun", sub_rerun, NULL},
                                      {"export", sub_export, NULL},   {"gc", sub_gc, NULL},
                                      {NULL, NULL, NULL}};
    return cli_dispatch("runs", argc, argv, usage, subs);
}
