/* Recording runs: the schema, the database path, and one transaction per run. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/hash.h"
#include "common/mllog.h"
#include "common/summary.h"
#include "rules/rules.h"
#include "runs/internal.h"

#ifndef MLSUBMIT_VERSION
#define MLSUBMIT_VERSION "0.0.0"
#endif

extern const char lg_loadgen_file_sha1_json[];

/* Directory walks for file hashes are bounded: a run's outputs are a handful of logs. */
#define RN_MAX_FILES 4096
#define RN_MAX_DEPTH 8

static const char schema_sql[] =
    "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);"
    "CREATE TABLE IF NOT EXISTS runs("
    " id INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL,"
    " started_at TEXT, ended_at TEXT, start_unix_ns INTEGER, end_unix_ns INTEGER, duration_s REAL,"
    " cwd TEXT, argv TEXT NOT NULL, command TEXT,"
    " sut TEXT, model TEXT, scenario TEXT, mode TEXT, test TEXT, loadgen_compat TEXT,"
    " settings TEXT,"
    " mlsubmit_version TEXT, loadgen_sha256 TEXT, loadgen_files TEXT,"
    " hostname TEXT, cpu_model TEXT, cpu_cores INTEGER, memory_bytes INTEGER, kernel TEXT,"
    " cpu_governor TEXT,"
    " exit_code INTEGER, validity TEXT, verdict TEXT, metric_name TEXT, metric REAL,"
    " query_count INTEGER, latency TEXT, early_stopping TEXT, result TEXT,"
    " n_errors INTEGER, n_warnings INTEGER, error TEXT, log_dir TEXT, trace_path TEXT,"
    " rerun_of INTEGER);"
    "CREATE TABLE IF NOT EXISTS run_files("
    " run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, role TEXT NOT NULL,"
    " path TEXT NOT NULL, size INTEGER, sha256 TEXT, PRIMARY KEY(run_id, role, path));"
    "CREATE INDEX IF NOT EXISTS runs_rerun ON runs(rerun_of);";

int rn_sql_error(sqlite3 *db, const char *path, const char *what, ms_err *e)
{
    return ms_err_set(e, MS_ERUNTIME, "%s: %s: %s", path, what, db ? sqlite3_errmsg(db) : "cannot open");
}

int rn_open(const char *path, int flags, sqlite3 **out, ms_err *e)
{
    *out = NULL;
    sqlite3 *db = NULL;
    if (ms_lazy_sqlite_load("the runs database", e))
        return MS_ERUNTIME;
    if (sqlite3_open_v2(path, &db, flags, NULL) != SQLITE_OK) {
        int rc = ms_err_set(e, (flags & SQLITE_OPEN_CREATE) ? MS_ERUNTIME : MS_EINPUT,
                            "%s: cannot open the runs database: %s", path,
                            db ? sqlite3_errmsg(db) : "out of memory");
        sqlite3_close(db);
        return rc;
    }
    sqlite3_busy_timeout(db, 30000);
    sqlite3_extended_result_codes(db, 1);
    if (flags & SQLITE_OPEN_READWRITE) {
        if (sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA foreign_keys=ON;", NULL, NULL, NULL) != SQLITE_OK) {
            int rc = rn_sql_error(db, path, "cannot enable WAL", e);
            sqlite3_close(db);
            return rc;
        }
    }
    if (flags & SQLITE_OPEN_CREATE) {
        /* the schema in its own immediate transaction: two first recorders race safely */
        char *msg = NULL;
        if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, &msg) != SQLITE_OK ||
            sqlite3_exec(db, schema_sql, NULL, NULL, &msg) != SQLITE_OK ||
            sqlite3_exec(db, "PRAGMA user_version=1;"
                             "INSERT OR IGNORE INTO meta VALUES('schema_version','1');",
                         NULL, NULL, &msg) != SQLITE_OK ||
            sqlite3_exec(db, "COMMIT", NULL, NULL, &msg) != SQLITE_OK) {
            int rc = ms_err_set(e, MS_ERUNTIME, "%s: cannot create the runs schema: %s", path,
                                msg ? msg : sqlite3_errmsg(db));
            sqlite3_free(msg);
            sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
            sqlite3_close(db);
            return rc;
        }
    } else {
        sqlite3_stmt *st = NULL;
        int ok = sqlite3_prepare_v2(db, "SELECT argv FROM runs, run_files LIMIT 1", -1, &st, NULL) == SQLITE_OK;
        sqlite3_finalize(st);
        if (!ok) {
            int rc = ms_err_set(e, MS_EINPUT, "%s: not a runs database (no runs table)", path);
            sqlite3_close(db);
            return rc;
        }
    }
    *out = db;
    return MS_OK;
}

char *ms_runs_db_path(const char *opt, const char *env_db, const char *xdg, const char *home, ms_err *e)
{
    char *p = NULL;
    if (opt && *opt)
        p = strdup(opt);
    else if (env_db && *env_db)
        p = strdup(env_db);
    else if (xdg && *xdg == '/')
        p = ms_path_join(xdg, "mlsubmit/runs.sqlite");
    else if (home && *home) {
        char *base = ms_path_join(home, ".local/share");
        p = base ? ms_path_join(base, "mlsubmit/runs.sqlite") : NULL;
        free(base);
    } else {
        ms_err_set(e, MS_EUSAGE, "no runs database: give --runs-db FILE or set MLSUBMIT_RUNS_DB (HOME is not set)");
        return NULL;
    }
    if (!p)
        ms_err_oom(e);
    return p;
}

static void iso_utc(int64_t ns, char out[40])
{
    time_t t = (time_t)(ns / 1000000000);
    struct tm tm;
    gmtime_r(&t, &tm);
    char base[32];
    strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out, 40, "%s.%03dZ", base, (int)((ns % 1000000000) / 1000000));
}

/* ---- files and their hashes ---- */

typedef struct file_list {
    json_t *arr;   /* [ [role, path, size, sha256], ... ] */
    size_t n;
} file_list;

static void add_file(file_list *fl, const char *role, const char *path, const struct stat *st)
{
    if (fl->n >= RN_MAX_FILES)
        return;
    char hex[MS_HASH_HEX_MAX];
    ms_err e;
    unsigned long long bytes = 0;
    char abs[PATH_MAX];
    const char *shown = realpath(path, abs) ? abs : path;
    json_t *row = json_pack("[ssI]", role, shown, (json_int_t)st->st_size);
    if (!row)
        return;
    if (ms_hash_file("sha256", path, hex, &bytes, &e) == MS_OK)
        json_array_append_new(row, json_string(hex));
    else
        json_array_append_new(row, json_null());
    json_array_append_new(fl->arr, row);
    fl->n++;
}

static void add_path(file_list *fl, const char *role, const char *path, int depth)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    if (S_ISREG(st.st_mode)) {
        add_file(fl, role, path, &st);
        return;
    }
    if (!S_ISDIR(st.st_mode) || depth >= RN_MAX_DEPTH)
        return;
    DIR *d = opendir(path);
    if (!d)
        return;
    /* sorted, so that the rows come in a stable order */
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        if (MS_GROW(names, cap, n + 1, 16))
            break;
        if (!(names[n] = strdup(de->d_name)))
            break;
        n++;
    }
    closedir(d);
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            char *t = names[j];
            names[j] = names[j - 1];
            names[j - 1] = t;
        }
    for (size_t i = 0; i < n; i++) {
        char *child = ms_path_join(path, names[i]);
        if (child)
            add_path(fl, role, child, depth + 1);
        free(child);
        free(names[i]);
    }
    free(names);
}

/* ---- the result, from the LoadGen's summary and detail logs ---- */

typedef struct parsed_result {
    json_t *result;         /* every "key : value" line of the summary */
    json_t *latency;        /* {min, max, mean, count, percentiles: [[p, ns], ...]} */
    json_t *early;          /* {text: [...], estimates: {"90.0": ns, ...}} */
    json_t *effective;      /* effective_* of the detail log */
    char *validity, *metric_name;
    double metric;
    int have_metric;
    int64_t query_count;
} parsed_result;

static char *trimmed(const char *s, size_t n)
{
    while (n && (*s == ' ' || *s == '\t')) {
        s++;
        n--;
    }
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    return strndup(s, n);
}

static int parse_num(const char *s, double *out)
{
    char *end;
    errno = 0;
    double d = strtod(s, &end);
    if (end == s || errno || !isfinite(d))
        return -1;
    while (*end == ' ')
        end++;
    if (*end)
        return -1;
    *out = d;
    return 0;
}

static void parse_summary(const char *dir, parsed_result *pr)
{
    char *path = ms_path_join(dir, "mlperf_log_summary.txt");
    ms_summary s;
    ms_err e;
    if (!path || ms_summary_load(&s, path, &e) != MS_OK) {
        free(path);
        return;
    }
    free(path);
    pr->result = json_object();
    pr->latency = json_object();
    json_t *pcts = json_array();
    json_t *etext = json_array(), *est = json_object();
    int in_early = 0;
    for (size_t i = 0; i < s.nlines; i++) {
        const ms_summary_line *l = &s.lines[i];
        char *line = strndup(l->text, l->len);
        if (!line)
            break;
        if (!strncmp(line, "Early Stopping Result", 21)) {
            in_early = 1;
            free(line);
            continue;
        }
        if (in_early) {
            if (!l->len || line[0] == '=') {
                in_early = 0;
            } else {
                char *t = trimmed(line, l->len);
                if (t)
                    json_array_append_new(etext, json_string(t));
                /* " * Early stopping 90.0th percentile estimate: 2410917" */
                const char *m = strstr(line, "Early stopping ");
                const char *c = strstr(line, "th percentile estimate: ");
                double v;
                if (m && c && c > m + 15 && parse_num(c + 24, &v) == 0) {
                    char *pct = strndup(m + 15, (size_t)(c - (m + 15)));
                    if (pct)
                        json_object_set_new(est, pct, json_real(v));
                    free(pct);
                }
                free(t);
                free(line);
                continue;
            }
        }
        const char *colon = strchr(line, ':');
        if (colon && line[0] != '=') {
            char *k = trimmed(line, (size_t)(colon - line));
            char *v = trimmed(colon + 1, strlen(colon + 1));
            if (k && v && *k && *v) {
                json_object_set_new(pr->result, k, json_string(v));
                double d;
                int num = parse_num(v, &d) == 0;
                if (!strcmp(k, "Result is")) {
                    free(pr->validity);
                    pr->validity = strdup(v);
                    /* the headline metric is the line before "Result is" */
                    if (i > 0) {
                        const ms_summary_line *pl = &s.lines[i - 1];
                        char *prev = strndup(pl->text, pl->len);
                        char *pc = prev ? strchr(prev, ':') : NULL;
                        if (pc) {
                            char *pk = trimmed(prev, (size_t)(pc - prev));
                            char *pv = trimmed(pc + 1, strlen(pc + 1));
                            if (pk && pv && parse_num(pv, &pr->metric) == 0) {
                                pr->have_metric = 1;
                                free(pr->metric_name);
                                pr->metric_name = pk;
                                pk = NULL;
                            }
                            free(pk);
                            free(pv);
                        }
                        free(prev);
                    }
                } else if (num && !strcmp(k, "Min latency (ns)")) {
                    json_object_set_new(pr->latency, "min", json_real(d));
                } else if (num && !strcmp(k, "Max latency (ns)")) {
                    json_object_set_new(pr->latency, "max", json_real(d));
                } else if (num && !strcmp(k, "Mean latency (ns)")) {
                    json_object_set_new(pr->latency, "mean", json_real(d));
                } else if (num && strstr(k, " percentile latency (ns)") &&
                           strlen(k) == strcspn(k, " ") + strlen(" percentile latency (ns)")) {
                    double p;
                    char *ps = strndup(k, strcspn(k, " "));
                    if (ps && parse_num(ps, &p) == 0)
                        json_array_append_new(pcts, json_pack("[ff]", p, d));
                    free(ps);
                }
            }
            free(k);
            free(v);
        }
        free(line);
    }
    json_object_set_new(pr->latency, "percentiles", pcts);
    pr->early = json_pack("{s:o,s:o}", "text", etext, "estimates", est);
    ms_summary_free(&s);
}

static void parse_detail(const char *dir, parsed_result *pr)
{
    char *path = ms_path_join(dir, "mlperf_log_detail.txt");
    ms_mllog log;
    ms_err e;
    if (!path || ms_mllog_load(&log, path, (size_t)1 << 30, &e) != MS_OK) {
        free(path);
        return;
    }
    free(path);
    pr->effective = json_object();
    for (size_t i = 0; i < log.nrecs; i++) {
        const ms_mllog_rec *r = &log.recs[i];
        if (strncmp(r->key, "effective_", 10))
            continue;
        char *v = r->kind == MS_JV_STRING ? ms_mllog_rec_str(r) : strndup(r->raw, r->raw_len);
        if (v && !json_object_get(pr->effective, r->key + 10))
            json_object_set_new(pr->effective, r->key + 10, json_string(v));
        free(v);
    }
    uint64_t q = 0, spq = 1;
    if (ms_mllog_get_u64(&log, "result_query_count", &q) == 0) {
        char *scen = ms_mllog_get_str(&log, "effective_scenario");
        /* Offline's percentiles are over the samples of its one query */
        if (ru_scenario_parse(scen) == RU_OFFLINE)
            ms_mllog_get_u64(&log, "effective_samples_per_query", &spq);
        free(scen);
        pr->query_count = (int64_t)q;
        if (pr->latency)
            json_object_set_new(pr->latency, "count", json_integer((json_int_t)(q * (spq ? spq : 1))));
    }
    ms_mllog_free(&log);
}

static void parsed_free(parsed_result *pr)
{
    json_decref(pr->result);
    json_decref(pr->latency);
    json_decref(pr->early);
    json_decref(pr->effective);
    free(pr->validity);
    free(pr->metric_name);
}

/* ---- binding helpers ---- */

static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
    if (s)
        sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, i);
}

/* a count or size, NULL where it is unknown (0) */
static void bind_count(sqlite3_stmt *st, int i, sqlite3_int64 v)
{
    if (v)
        sqlite3_bind_int64(st, i, v);
}

static void bind_json(sqlite3_stmt *st, int i, const json_t *j)
{
    char *s = j ? json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    bind_text(st, i, s);
    free(s);
}

static char *shell_join(int argc, char *const *argv)
{
    ms_buf b = {0};
    ms_buf_puts(&b, "mlsubmit");
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        ms_buf_putc(&b, ' ');
        if (*a && strspn(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=.,:/+@%") == strlen(a)) {
            ms_buf_puts(&b, a);
        } else {
            ms_buf_putc(&b, '\'');
            for (; *a; a++) {
                if (*a == '\'')
                    ms_buf_puts(&b, "'\\''");
                else
                    ms_buf_putc(&b, *a);
            }
            ms_buf_putc(&b, '\'');
        }
    }
    return ms_buf_steal(&b);
}

static json_t *settings_json(const ms_run_record *r, const parsed_result *pr)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    if (r->settings) {
        json_t *req = json_object();
        char v[64];
        for (size_t i = 0; lg_settings_field_names[i]; i++)
            if (lg_settings_get(r->settings, lg_settings_field_names[i], v, sizeof v) == 0)
                json_object_set_new(req, lg_settings_field_names[i], json_string(v));
        json_object_set_new(o, "requested", req);
    }
    if (pr->effective)
        json_object_set(o, "effective", pr->effective);
    if (r->noptions) {
        json_t *opt = json_object();
        for (size_t i = 0; i < r->noptions; i++) {
            const char *eq = strchr(r->options[i], '=');
            char *k = eq ? strndup(r->options[i], (size_t)(eq - r->options[i])) : strdup(r->options[i]);
            if (k)
                json_object_set_new(opt, k, json_string(eq ? eq + 1 : ""));
            free(k);
        }
        json_object_set_new(o, "options", opt);
    }
    return o;
}

int ms_runs_record(const char *db_path, const ms_run_record *r, int64_t *id_out,
                   ms_runs_before_commit hook, void *hook_ctx, ms_err *e)
{
    if (id_out)
        *id_out = 0;
    /* everything slow (hashing, parsing) happens before the database is touched */
    parsed_result pr = {0};
    if (r->log_dir) {
        parse_summary(r->log_dir, &pr);
        parse_detail(r->log_dir, &pr);
    }
    file_list files = {json_array(), 0};
    for (size_t i = 0; i < r->ninputs; i++)
        if (r->inputs[i])
            add_path(&files, "input", r->inputs[i], 0);
    for (size_t i = 0; i < r->noutputs; i++)
        if (r->outputs[i])
            add_path(&files, "output", r->outputs[i], 0);
    rn_host h;
    rn_host_facts(&h);
    json_t *argv = json_array();
    for (int i = 0; i < r->argc; i++)
        json_array_append_new(argv, json_string(r->argv[i]));
    json_t *settings = settings_json(r, &pr);
    char *command = shell_join(r->argc, r->argv);
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
        cwd[0] = '\0';
    char lg_hash[MS_HASH_HEX_MAX] = "";
    ms_hash_mem("sha256", lg_loadgen_file_sha1_json, strlen(lg_loadgen_file_sha1_json), lg_hash, e);
    char t0[40], t1[40];
    iso_utc(r->start_unix_ns, t0);
    iso_utc(r->end_unix_ns, t1);

    int rc = MS_OK;
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    if (!files.arr || !argv || !settings || !command) {
        rc = ms_err_oom(e);
        goto out;
    }
    char *dir = strdup(db_path);
    if (!dir) {
        rc = ms_err_oom(e);
        goto out;
    }
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir) {
        *slash = '\0';
        rc = ms_mkdir_p(dir, e);
    }
    free(dir);
    if (rc != MS_OK)
        goto out;
    if ((rc = rn_open(db_path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, &db, e)) != MS_OK)
        goto out;
    if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
        rc = rn_sql_error(db, db_path, "cannot start a transaction", e);
        goto out;
    }
    static const char ins[] =
        "INSERT INTO runs(kind, started_at, ended_at, start_unix_ns, end_unix_ns, duration_s, cwd,"
        " argv, command, sut, model, scenario, mode, test, loadgen_compat, settings,"
        " mlsubmit_version, loadgen_sha256, loadgen_files, hostname, cpu_model, cpu_cores,"
        " memory_bytes, kernel, cpu_governor, exit_code, validity, verdict, metric_name, metric,"
        " query_count, latency, early_stopping, result, n_errors, n_warnings, error, log_dir,"
        " trace_path, rerun_of) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,"
        "?18,?19,?20,?21,?22,?23,?24,?25,?26,?27,?28,?29,?30,?31,?32,?33,?34,?35,?36,?37,?38,?39,?40)";
    if (sqlite3_prepare_v2(db, ins, -1, &st, NULL) != SQLITE_OK) {
        rc = rn_sql_error(db, db_path, "cannot prepare the insert", e);
        goto rollback;
    }
    bind_text(st, 1, r->kind);
    bind_text(st, 2, t0);
    bind_text(st, 3, t1);
    sqlite3_bind_int64(st, 4, r->start_unix_ns);
    sqlite3_bind_int64(st, 5, r->end_unix_ns);
    sqlite3_bind_double(st, 6, (double)(r->end_unix_ns - r->start_unix_ns) / 1e9);
    bind_text(st, 7, cwd[0] ? cwd : NULL);
    bind_json(st, 8, argv);
    bind_text(st, 9, command);
    bind_text(st, 10, r->sut);
    bind_text(st, 11, r->model);
    bind_text(st, 12, r->scenario);
    bind_text(st, 13, r->mode);
    bind_text(st, 14, r->test);
    bind_text(st, 15, r->loadgen_compat);
    bind_json(st, 16, settings);
    bind_text(st, 17, MLSUBMIT_VERSION);
    bind_text(st, 18, lg_hash[0] ? lg_hash : NULL);
    bind_text(st, 19, lg_loadgen_file_sha1_json);
    bind_text(st, 20, h.hostname);
    bind_text(st, 21, h.cpu_model);
    bind_count(st, 22, h.cores);
    bind_count(st, 23, h.memory_bytes);
    bind_text(st, 24, h.kernel);
    bind_text(st, 25, h.governor);
    sqlite3_bind_int(st, 26, r->exit_code);
    bind_text(st, 27, pr.validity);
    bind_text(st, 28, r->verdict);
    bind_text(st, 29, pr.metric_name);
    if (pr.have_metric)
        sqlite3_bind_double(st, 30, pr.metric);
    bind_count(st, 31, pr.query_count);
    bind_json(st, 32, pr.latency);
    bind_json(st, 33, pr.early);
    bind_json(st, 34, pr.result);
    sqlite3_bind_int64(st, 35, (sqlite3_int64)r->n_errors);
    sqlite3_bind_int64(st, 36, (sqlite3_int64)r->n_warnings);
    bind_text(st, 37, r->error && *r->error ? r->error : NULL);
    char logabs[PATH_MAX];
    bind_text(st, 38, r->log_dir ? (realpath(r->log_dir, logabs) ? logabs : r->log_dir) : NULL);
    char trabs[PATH_MAX];
    bind_text(st, 39, r->trace_path ? (realpath(r->trace_path, trabs) ? trabs : r->trace_path) : NULL);
    if (r->rerun_of > 0)
        sqlite3_bind_int64(st, 40, r->rerun_of);
    if (sqlite3_step(st) != SQLITE_DONE) {
        rc = rn_sql_error(db, db_path, "cannot insert the run", e);
        goto rollback;
    }
    sqlite3_finalize(st);
    st = NULL;
    int64_t id = sqlite3_last_insert_rowid(db);
    if (sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO run_files VALUES(?1,?2,?3,?4,?5)", -1, &st, NULL) != SQLITE_OK) {
        rc = rn_sql_error(db, db_path, "cannot prepare the file insert", e);
        goto rollback;
    }
    for (size_t i = 0; i < json_array_size(files.arr); i++) {
        json_t *row = json_array_get(files.arr, i);
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, id);
        bind_text(st, 2, json_string_value(json_array_get(row, 0)));
        bind_text(st, 3, json_string_value(json_array_get(row, 1)));
        sqlite3_bind_int64(st, 4, json_integer_value(json_array_get(row, 2)));
        bind_text(st, 5, json_string_value(json_array_get(row, 3)));
        if (sqlite3_step(st) != SQLITE_DONE) {
            rc = rn_sql_error(db, db_path, "cannot insert a file row", e);
            goto rollback;
        }
    }
    sqlite3_finalize(st);
    st = NULL;
    if (hook)
        hook(hook_ctx);
    if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
        rc = rn_sql_error(db, db_path, "cannot commit the run", e);
        goto rollback;
    }
    if (id_out)
        *id_out = id;
    goto out;
rollback:
    sqlite3_finalize(st);
    st = NULL;
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
out:
    sqlite3_finalize(st);
    sqlite3_close(db);
    rn_host_free(&h);
    json_decref(files.arr);
    json_decref(argv);
    json_decref(settings);
    free(command);
    parsed_free(&pr);
    return rc;
}
