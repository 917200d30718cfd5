/* Reading the runs database: list, show, compare, export, gc (read-only except gc). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "runs/internal.h"

const char *const rn_list_columns[] = {"id", "kind", "started_at", "duration_s", "sut", "model",
                                       "scenario", "mode", "test", "validity", "verdict",
                                       "metric_name", "metric", "exit_code", "hostname", NULL};

const char *const rn_filter_columns[] = {
    "id", "kind", "started_at", "ended_at", "duration_s", "cwd", "command", "sut", "model",
    "scenario", "mode", "test", "loadgen_compat", "mlsubmit_version", "loadgen_sha256",
    "hostname", "cpu_model", "cpu_cores", "memory_bytes", "kernel", "cpu_governor", "exit_code",
    "validity", "verdict", "metric_name", "metric", "query_count", "n_errors", "n_warnings",
    "error", "log_dir", "rerun_of", NULL};

static int in_list(const char *s, const char *const *l)
{
    for (; *l; l++)
        if (!strcmp(s, *l))
            return 1;
    return 0;
}

ms_runs_db *ms_runs_open(const char *path, int writable, ms_err *e)
{
    ms_runs_db *d = calloc(1, sizeof *d);
    if (!d || !(d->path = strdup(path))) {
        free(d);
        ms_err_oom(e);
        return NULL;
    }
    if (rn_open(path, writable ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY, &d->db, e) != MS_OK) {
        free(d->path);
        free(d);
        return NULL;
    }
    return d;
}

void ms_runs_close(ms_runs_db *d)
{
    if (!d)
        return;
    sqlite3_close(d->db);
    free(d->path);
    free(d);
}

int ms_runs_filter_parse(const char *text, ms_runs_filter *f, ms_err *e)
{
    memset(f, 0, sizeof *f);
    size_t k = strcspn(text, "=!<>~");
    if (!text[k] || k == 0)
        return ms_err_set(e, MS_EUSAGE, "--where '%s': expected KEY OP VALUE with OP one of = != < > <= >= ~", text);
    const char *op = text + k;
    size_t ol = (op[1] == '=' && (op[0] == '!' || op[0] == '<' || op[0] == '>')) ? 2 : 1;
    if (op[0] == '!' && ol == 1)
        return ms_err_set(e, MS_EUSAGE, "--where '%s': '!' must be followed by '='", text);
    if (k >= sizeof f->key || strlen(op + ol) >= sizeof f->value)
        return ms_err_set(e, MS_EUSAGE, "--where '%s': too long", text);
    memcpy(f->key, text, k);
    memcpy(f->op, op, ol);
    strcpy(f->value, op + ol);
    int json_key = (!strncmp(f->key, "settings.", 9) || !strncmp(f->key, "effective.", 10));
    if (json_key) {
        const char *n = strchr(f->key, '.') + 1;
        if (!*n || strspn(n, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(n))
            return ms_err_set(e, MS_EUSAGE, "--where '%s': a setting name is lower-case letters, digits and _", text);
    } else if (!in_list(f->key, rn_filter_columns)) {
        ms_buf b = {0};
        for (size_t i = 0; rn_filter_columns[i]; i++)
            ms_buf_printf(&b, "%s%s", i ? ", " : "", rn_filter_columns[i]);
        int rc = ms_err_set(e, MS_EUSAGE, "--where '%s': unknown key '%s' (one of %s, settings.NAME, effective.NAME)",
                            text, f->key, b.data ? b.data : "");
        ms_buf_free(&b);
        return rc;
    }
    return MS_OK;
}

/* The SQL expression of a filter key (column names come from the fixed list, setting names are
 * checked to be identifiers; values are always bound). */
static void key_expr(const ms_runs_filter *f, ms_buf *b)
{
    if (!strncmp(f->key, "settings.", 9))
        ms_buf_printf(b, "coalesce(json_extract(settings, '$.requested.%s'), json_extract(settings, '$.options.%s'))",
                      f->key + 9, f->key + 9);
    else if (!strncmp(f->key, "effective.", 10))
        ms_buf_printf(b, "json_extract(settings, '$.effective.%s')", f->key + 10);
    else
        ms_buf_printf(b, "%s", f->key);
}

static json_t *column_value(sqlite3_stmt *st, int i)
{
    switch (sqlite3_column_type(st, i)) {
    case SQLITE_INTEGER: return json_integer(sqlite3_column_int64(st, i));
    case SQLITE_FLOAT: return json_real(sqlite3_column_double(st, i));
    case SQLITE_NULL: return json_null();
    default: return json_string((const char *)sqlite3_column_text(st, i));
    }
}

int ms_runs_list(ms_runs_db *d, const ms_runs_filter *f, size_t nf, size_t limit, json_t **out,
                 ms_err *e)
{
    *out = NULL;
    ms_buf q = {0};
    ms_buf_puts(&q, "SELECT ");
    for (size_t i = 0; rn_list_columns[i]; i++)
        ms_buf_printf(&q, "%s%s", i ? ", " : "", rn_list_columns[i]);
    ms_buf_puts(&q, " FROM runs");
    for (size_t i = 0; i < nf; i++) {
        ms_buf_puts(&q, i ? " AND " : " WHERE ");
        int jk = strchr(f[i].key, '.') != NULL, ord = f[i].op[0] == '<' || f[i].op[0] == '>';
        if (jk && ord) /* settings are stored as text: order them as numbers */
            ms_buf_puts(&q, "CAST(");
        key_expr(&f[i], &q);
        if (jk && ord)
            ms_buf_puts(&q, " AS REAL)");
        if (!strcmp(f[i].op, "~"))
            ms_buf_printf(&q, " LIKE '%%' || ?%zu || '%%'", i + 1);
        else if (!strcmp(f[i].op, "=") || !strcmp(f[i].op, "!="))
            /* text equality, or numeric when both sides are numbers (metric=1e3) */
            ms_buf_printf(&q, " %s CASE WHEN typeof(?%zu) IN ('integer','real') THEN ?%zu ELSE ?%zu END",
                          f[i].op, i + 1, i + 1, i + 1);
        else
            ms_buf_printf(&q, " %s ?%zu", f[i].op, i + 1);
    }
    ms_buf_puts(&q, " ORDER BY id DESC");
    if (limit)
        ms_buf_printf(&q, " LIMIT %zu", limit);
    if (!q.data)
        return ms_err_oom(e);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(d->db, q.data, -1, &st, NULL) != SQLITE_OK) {
        int rc = rn_sql_error(d->db, d->path, "cannot list runs", e);
        ms_buf_free(&q);
        return rc;
    }
    ms_buf_free(&q);
    for (size_t i = 0; i < nf; i++) {
        double v;
        char *end;
        v = strtod(f[i].value, &end);
        int ord = f[i].op[0] == '<' || f[i].op[0] == '>';
        int text_key = !strcmp(f[i].key, "started_at") || !strcmp(f[i].key, "ended_at") ||
                       (strchr(f[i].key, '.') && !ord); /* settings compare as their text */
        if (*f[i].value && !*end && strcmp(f[i].op, "~") && isfinite(v) && !text_key)
            sqlite3_bind_double(st, (int)i + 1, v);
        else
            sqlite3_bind_text(st, (int)i + 1, f[i].value, -1, SQLITE_TRANSIENT);
    }
    json_t *arr = json_array();
    int r;
    while (arr && (r = sqlite3_step(st)) == SQLITE_ROW) {
        json_t *o = json_object();
        for (int i = 0; rn_list_columns[i]; i++)
            json_object_set_new(o, rn_list_columns[i], column_value(st, i));
        json_array_append_new(arr, o);
    }
    sqlite3_finalize(st);
    if (!arr)
        return ms_err_oom(e);
    *out = arr;
    return MS_OK;
}

static const char *const json_columns[] = {"argv", "settings", "latency", "early_stopping", "result", NULL};

/* The row of run id from sql (its parameter ?1: the id), stepped onto it; the caller finalizes
 * *st. MS_EINPUT when there is no such run. */
static int run_row(ms_runs_db *d, const char *sql, int64_t id, sqlite3_stmt **st, ms_err *e)
{
    *st = NULL;
    if (sqlite3_prepare_v2(d->db, sql, -1, st, NULL) != SQLITE_OK)
        return rn_sql_error(d->db, d->path, "cannot read a run", e);
    sqlite3_bind_int64(*st, 1, id);
    if (sqlite3_step(*st) != SQLITE_ROW) {
        sqlite3_finalize(*st);
        *st = NULL;
        return ms_err_set(e, MS_EINPUT, "%s: no run %lld", d->path, (long long)id);
    }
    return MS_OK;
}

int ms_runs_get(ms_runs_db *d, int64_t id, json_t **out, ms_err *e)
{
    *out = NULL;
    sqlite3_stmt *st;
    int rc = run_row(d, "SELECT * FROM runs WHERE id = ?1", id, &st, e);
    if (rc != MS_OK)
        return rc;
    json_t *o = json_object();
    for (int i = 0; o && i < sqlite3_column_count(st); i++) {
        const char *name = sqlite3_column_name(st, i);
        json_t *v = NULL;
        if (in_list(name, json_columns) && sqlite3_column_type(st, i) == SQLITE_TEXT)
            v = json_loads((const char *)sqlite3_column_text(st, i), 0, NULL);
        if (!v)
            v = column_value(st, i);
        json_object_set_new(o, name, v);
    }
    sqlite3_finalize(st);
    if (!o)
        return ms_err_oom(e);
    json_t *files = json_array();
    if (sqlite3_prepare_v2(d->db, "SELECT role, path, size, sha256 FROM run_files WHERE run_id = ?1 ORDER BY role, path",
                           -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, id);
        while (sqlite3_step(st) == SQLITE_ROW)
            json_array_append_new(files, json_pack("{s:o,s:o,s:o,s:o}", "role", column_value(st, 0), "path",
                                                   column_value(st, 1), "size", column_value(st, 2),
                                                   "sha256", column_value(st, 3)));
    }
    sqlite3_finalize(st);
    json_object_set_new(o, "files", files);
    *out = o;
    return MS_OK;
}

/* ---- compare ---- */

static double quantile_at(const double (*pts)[2], size_t n, double p)
{
    if (p <= pts[0][0])
        return pts[0][1];
    for (size_t i = 1; i < n; i++)
        if (p <= pts[i][0]) {
            double w = (pts[i][0] - pts[i - 1][0]) > 0 ? (p - pts[i - 1][0]) / (pts[i][0] - pts[i - 1][0]) : 1;
            return pts[i - 1][1] + w * (pts[i][1] - pts[i - 1][1]);
        }
    return pts[n - 1][1];
}

int ms_runs_quantile_ci(const double (*pts)[2], size_t npts, double p, uint64_t n, double *lo, double *hi)
{
    if (npts < 2 || n == 0 || p <= 0 || p >= 1)
        return -1;
    double h = 1.96 * sqrt(p * (1 - p) / (double)n);
    if (p - h < 0 || p + h > 1)
        return -1; /* the interval reaches the min or max: too few samples to bound it */
    *lo = quantile_at(pts, npts, p - h);
    *hi = quantile_at(pts, npts, p + h);
    return 0;
}

/* The quantile points of a run's latency object: (0,min), percentiles/100, (1,max). */
static size_t latency_points(json_t *lat, double (*pts)[2], size_t cap)
{
    size_t n = 0;
    json_t *mn = json_object_get(lat, "min"), *mx = json_object_get(lat, "max");
    if (mn && n < cap) {
        pts[n][0] = 0;
        pts[n++][1] = json_number_value(mn);
    }
    json_t *pc = json_object_get(lat, "percentiles");
    for (size_t i = 0; i < json_array_size(pc) && n < cap; i++) {
        json_t *pr = json_array_get(pc, i);
        pts[n][0] = json_number_value(json_array_get(pr, 0)) / 100.0;
        pts[n++][1] = json_number_value(json_array_get(pr, 1));
    }
    if (mx && n < cap) {
        pts[n][0] = 1;
        pts[n++][1] = json_number_value(mx);
    }
    for (size_t i = 1; i < n; i++) /* sorted by p */
        for (size_t j = i; j > 0 && pts[j - 1][0] > pts[j][0]; j--) {
            double t0 = pts[j][0], t1 = pts[j][1];
            pts[j][0] = pts[j - 1][0];
            pts[j][1] = pts[j - 1][1];
            pts[j - 1][0] = t0;
            pts[j - 1][1] = t1;
        }
    return n;
}

static void add_metric(json_t *metrics, const char *name, json_t *runs, const double *vals,
                       const int *have, size_t n, double pct)
{
    (void)runs;
    json_t *m = json_pack("{s:s}", "name", name);
    json_t *va = json_array(), *da = json_array(), *pa = json_array();
    for (size_t i = 0; i < n; i++) {
        json_array_append_new(va, have[i] ? json_real(vals[i]) : json_null());
        int dh = have[i] && have[0];
        json_array_append_new(da, dh ? json_real(vals[i] - vals[0]) : json_null());
        json_array_append_new(pa, dh && vals[0] != 0 ? json_real(100.0 * (vals[i] - vals[0]) / vals[0]) : json_null());
    }
    json_object_set_new(m, "values", va);
    json_object_set_new(m, "delta", da);
    json_object_set_new(m, "delta_pct", pa);
    if (pct > 0) {
        json_t *na = json_array();
        for (size_t i = 0; i < n; i++) {
            json_t *ri = json_array_get(runs, i), *r0 = json_array_get(runs, 0);
            json_t *li = json_object_get(ri, "latency"), *l0 = json_object_get(r0, "latency");
            double pi[32][2], p0[32][2], lo0, hi0, loi, hii;
            size_t ni = latency_points(li, pi, 32), n0 = latency_points(l0, p0, 32);
            json_int_t ci = json_integer_value(json_object_get(li, "count"));
            json_int_t c0 = json_integer_value(json_object_get(l0, "count"));
            if (i == 0 || !have[i] || !have[0] || !ci || !c0) {
                json_array_append_new(na, json_null());
                continue;
            }
            if (ms_runs_quantile_ci((const double (*)[2])p0, n0, pct, (uint64_t)c0, &lo0, &hi0) != 0 ||
                ms_runs_quantile_ci((const double (*)[2])pi, ni, pct, (uint64_t)ci, &loi, &hii) != 0) {
                json_array_append_new(na, json_pack("{s:s}", "verdict", "too few samples to tell"));
                continue;
            }
            int beyond = loi > hi0 || hii < lo0;
            json_array_append_new(na, json_pack("{s:s,s:[ff],s:[ff]}", "verdict",
                                                beyond ? "beyond noise" : "within noise", "ci_first",
                                                lo0, hi0, "ci", loi, hii));
        }
        json_object_set_new(m, "noise", na);
    }
    json_array_append_new(metrics, m);
}

int ms_runs_compare(ms_runs_db *d, const int64_t *ids, size_t n, json_t **out, ms_err *e)
{
    *out = NULL;
    if (n < 2)
        return ms_err_set(e, MS_EUSAGE, "compare needs at least two runs");
    json_t *runs = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *r;
        int rc = ms_runs_get(d, ids[i], &r, e);
        if (rc != MS_OK) {
            json_decref(runs);
            return rc;
        }
        json_array_append_new(runs, r);
    }
    json_t *res = json_object();
    json_t *idarr = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(idarr, json_integer(ids[i]));
    json_object_set_new(res, "runs", idarr);

    /* settings that differ: top-level facts, then requested / effective / options settings */
    json_t *diff = json_array();
    static const char *const facts[] = {"kind", "sut", "model", "scenario", "mode", "test",
                                        "loadgen_compat", "mlsubmit_version", "loadgen_sha256",
                                        "hostname", "cpu_model", "cpu_cores", "memory_bytes",
                                        "kernel", "cpu_governor", "command", NULL};
    for (size_t k = 0; facts[k]; k++) {
        json_t *vals = json_array();
        int differ = 0;
        for (size_t i = 0; i < n; i++) {
            json_t *v = json_object_get(json_array_get(runs, i), facts[k]);
            json_array_append(vals, v ? v : json_null());
            if (i && !json_equal(v ? v : json_null(), json_array_get(vals, 0)))
                differ = 1;
        }
        if (differ)
            json_array_append_new(diff, json_pack("{s:s,s:o}", "name", facts[k], "values", vals));
        else
            json_decref(vals);
    }
    static const char *const groups[] = {"requested", "effective", "options", NULL};
    for (size_t g = 0; groups[g]; g++) {
        json_t *names = json_object(); /* union of keys, in first-seen order via sorted iteration */
        for (size_t i = 0; i < n; i++) {
            json_t *grp = json_object_get(json_object_get(json_array_get(runs, i), "settings"), groups[g]);
            const char *key;
            json_t *v;
            json_object_foreach(grp, key, v) json_object_set_new(names, key, json_true());
        }
        const char **keys = calloc(json_object_size(names) + 1, sizeof *keys);
        size_t nk = 0;
        const char *key;
        json_t *v;
        json_object_foreach(names, key, v)
        {
            if (keys)
                keys[nk++] = key;
        }
        for (size_t i = 1; i < nk; i++)
            for (size_t j = i; j > 0 && strcmp(keys[j - 1], keys[j]) > 0; j--) {
                const char *t = keys[j];
                keys[j] = keys[j - 1];
                keys[j - 1] = t;
            }
        for (size_t k = 0; k < nk; k++) {
            json_t *vals = json_array();
            int differ = 0;
            for (size_t i = 0; i < n; i++) {
                json_t *grp = json_object_get(json_object_get(json_array_get(runs, i), "settings"), groups[g]);
                json_t *sv = json_object_get(grp, keys[k]);
                json_array_append(vals, sv ? sv : json_null());
                if (i && !json_equal(sv ? sv : json_null(), json_array_get(vals, 0)))
                    differ = 1;
            }
            if (differ) {
                char name[200];
                snprintf(name, sizeof name, "%s.%s", groups[g] == groups[0] ? "settings" : groups[g], keys[k]);
                json_array_append_new(diff, json_pack("{s:s,s:o}", "name", name, "values", vals));
            } else {
                json_decref(vals);
            }
        }
        free(keys);
        json_decref(names);
    }
    json_object_set_new(res, "settings", diff);

    /* metrics side by side */
    json_t *metrics = json_array();
    double *vals = calloc(n, sizeof *vals);
    int *have = calloc(n, sizeof *have);
    if (!vals || !have) {
        free(vals);
        free(have);
        json_decref(runs);
        json_decref(res);
        json_decref(metrics);
        return ms_err_oom(e);
    }
    for (size_t i = 0; i < n; i++) {
        json_t *m = json_object_get(json_array_get(runs, i), "metric");
        have[i] = json_is_number(m);
        vals[i] = json_number_value(m);
    }
    const char *mname = json_string_value(json_object_get(json_array_get(runs, 0), "metric_name"));
    /* a latency headline (SingleStream/MultiStream) is a percentile: test it like one */
    double mp = 0;
    if (mname && strstr(mname, "th percentile latency"))
        mp = atof(mname) / 100.0;
    add_metric(metrics, mname ? mname : "metric", runs, vals, have, n, mp);
    static const char *const lat[] = {"min", "mean", "max", NULL};
    for (size_t k = 0; lat[k]; k++) {
        for (size_t i = 0; i < n; i++) {
            json_t *v = json_object_get(json_object_get(json_array_get(runs, i), "latency"), lat[k]);
            have[i] = json_is_number(v);
            vals[i] = json_number_value(v);
        }
        char name[64];
        snprintf(name, sizeof name, "%s latency (ns)", lat[k]);
        int any = 0;
        for (size_t i = 0; i < n; i++)
            any |= have[i];
        if (any)
            add_metric(metrics, name, runs, vals, have, n, 0);
    }
    /* every percentile of the first run */
    json_t *p0 = json_object_get(json_object_get(json_array_get(runs, 0), "latency"), "percentiles");
    for (size_t k = 0; k < json_array_size(p0); k++) {
        double p = json_number_value(json_array_get(json_array_get(p0, k), 0));
        for (size_t i = 0; i < n; i++) {
            json_t *pc = json_object_get(json_object_get(json_array_get(runs, i), "latency"), "percentiles");
            have[i] = 0;
            for (size_t j = 0; j < json_array_size(pc); j++)
                if (fabs(json_number_value(json_array_get(json_array_get(pc, j), 0)) - p) < 1e-9) {
                    have[i] = 1;
                    vals[i] = json_number_value(json_array_get(json_array_get(pc, j), 1));
                }
        }
        char name[64];
        snprintf(name, sizeof name, "p%g latency (ns)", p);
        add_metric(metrics, name, runs, vals, have, n, p / 100.0);
    }
    for (size_t i = 0; i < n; i++) {
        json_t *v = json_object_get(json_array_get(runs, i), "query_count");
        have[i] = json_is_number(v);
        vals[i] = json_number_value(v);
    }
    add_metric(metrics, "query count", runs, vals, have, n, 0);
    free(vals);
    free(have);
    json_object_set_new(res, "metrics", metrics);
    json_decref(runs);
    *out = res;
    return MS_OK;
}

/* ---- gc, rerun, export ---- */

int ms_runs_gc(ms_runs_db *d, size_t keep, size_t *deleted, ms_err *e)
{
    *deleted = 0;
    if (sqlite3_exec(d->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
        return rn_sql_error(d->db, d->path, "cannot start a transaction", e);
    sqlite3_stmt *st = NULL;
    int rc = MS_OK;
    if (sqlite3_prepare_v2(d->db,
                           "DELETE FROM runs WHERE id NOT IN (SELECT id FROM runs ORDER BY id DESC LIMIT ?1)",
                           -1, &st, NULL) != SQLITE_OK) {
        rc = rn_sql_error(d->db, d->path, "cannot prepare gc", e);
    } else {
        sqlite3_bind_int64(st, 1, (sqlite3_int64)keep);
        if (sqlite3_step(st) != SQLITE_DONE)
            rc = rn_sql_error(d->db, d->path, "cannot delete old runs", e);
        else
            *deleted = (size_t)sqlite3_changes(d->db);
    }
    sqlite3_finalize(st);
    /* file rows of deleted runs (also covered by ON DELETE CASCADE when foreign keys are on) */
    if (rc == MS_OK &&
        sqlite3_exec(d->db, "DELETE FROM run_files WHERE run_id NOT IN (SELECT id FROM runs)", NULL, NULL, NULL) != SQLITE_OK)
        rc = rn_sql_error(d->db, d->path, "cannot delete file rows", e);
    if (rc == MS_OK && sqlite3_exec(d->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        rc = rn_sql_error(d->db, d->path, "cannot commit gc", e);
    if (rc != MS_OK)
        sqlite3_exec(d->db, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

int ms_runs_argv(ms_runs_db *d, int64_t id, char ***argv_out, int *argc_out, char **cwd, ms_err *e)
{
    *argv_out = NULL;
    *argc_out = 0;
    *cwd = NULL;
    sqlite3_stmt *st;
    int rc = run_row(d, "SELECT argv, cwd FROM runs WHERE id = ?1", id, &st, e);
    if (rc != MS_OK)
        return rc;
    json_t *a = json_loads((const char *)sqlite3_column_text(st, 0), 0, NULL);
    const char *c = (const char *)sqlite3_column_text(st, 1);
    *cwd = c ? strdup(c) : NULL;
    sqlite3_finalize(st);
    if (!json_is_array(a) || !json_array_size(a)) {
        json_decref(a);
        free(*cwd);
        *cwd = NULL;
        return ms_err_set(e, MS_EINPUT, "%s: run %lld has no command line", d->path, (long long)id);
    }
    size_t n = json_array_size(a);
    char **v = calloc(n + 1, sizeof *v);
    for (size_t i = 0; v && i < n; i++) {
        const char *s = json_string_value(json_array_get(a, i));
        if (!(v[i] = strdup(s ? s : ""))) {
            ms_runs_argv_free(v, (int)i);
            v = NULL;
        }
    }
    json_decref(a);
    if (!v) {
        free(*cwd);
        *cwd = NULL;
        return ms_err_oom(e);
    }
    *argv_out = v;
    *argc_out = (int)n;
    return MS_OK;
}

void ms_runs_argv_free(char **argv, int argc)
{
    if (!argv)
        return;
    for (int i = 0; i < argc; i++)
        free(argv[i]);
    free(argv);
}

int64_t ms_runs_latest_rerun(ms_runs_db *d, int64_t id)
{
    sqlite3_stmt *st = NULL;
    int64_t out = 0;
    if (sqlite3_prepare_v2(d->db, "SELECT max(id) FROM runs WHERE rerun_of = ?1", -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, id);
        if (sqlite3_step(st) == SQLITE_ROW)
            out = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    return out;
}

static void csv_field(ms_buf *b, const char *s)
{
    if (!s)
        return;
    if (!strpbrk(s, ",\"\r\n")) {
        ms_buf_puts(b, s);
        return;
    }
    ms_buf_putc(b, '"');
    for (; *s; s++) {
        if (*s == '"')
            ms_buf_putc(b, '"');
        ms_buf_putc(b, *s);
    }
    ms_buf_putc(b, '"');
}

int ms_runs_export(ms_runs_db *d, const char *format, char **out, size_t *len, ms_err *e)
{
    *out = NULL;
    *len = 0;
    int csv = !strcmp(format, "csv");
    if (!csv && strcmp(format, "json"))
        return ms_err_set(e, MS_EUSAGE, "--format: expected csv or json, got '%s'", format);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(d->db, csv ? "SELECT * FROM runs ORDER BY id" : "SELECT id FROM runs ORDER BY id", -1,
                           &st, NULL) != SQLITE_OK)
        return rn_sql_error(d->db, d->path, "cannot export", e);
    ms_buf b = {0};
    int rc = MS_OK;
    if (csv) {
        int nc = sqlite3_column_count(st);
        for (int i = 0; i < nc; i++) {
            if (i)
                ms_buf_putc(&b, ',');
            csv_field(&b, sqlite3_column_name(st, i));
        }
        ms_buf_puts(&b, "\r\n");
        while (sqlite3_step(st) == SQLITE_ROW) {
            for (int i = 0; i < nc; i++) {
                if (i)
                    ms_buf_putc(&b, ',');
                if (sqlite3_column_type(st, i) == SQLITE_FLOAT) {
                    char num[40];
                    snprintf(num, sizeof num, "%.17g", sqlite3_column_double(st, i));
                    ms_buf_puts(&b, num);
                } else {
                    csv_field(&b, (const char *)sqlite3_column_text(st, i));
                }
            }
            ms_buf_puts(&b, "\r\n");
        }
        sqlite3_finalize(st);
    } else {
        json_t *arr = json_array();
        int64_t *ids = NULL;
        size_t n = 0, cap = 0;
        while (sqlite3_step(st) == SQLITE_ROW) {
            if (MS_GROW(ids, cap, n + 1, 64))
                break;
            ids[n++] = sqlite3_column_int64(st, 0);
        }
        sqlite3_finalize(st);
        for (size_t i = 0; rc == MS_OK && i < n; i++) {
            json_t *r;
            if ((rc = ms_runs_get(d, ids[i], &r, e)) == MS_OK)
                json_array_append_new(arr, r);
        }
        free(ids);
        char *s = rc == MS_OK ? json_dumps(arr, JSON_INDENT(2) | JSON_SORT_KEYS) : NULL;
        json_decref(arr);
        if (rc == MS_OK && !s)
            rc = ms_err_oom(e);
        if (s) {
            ms_buf_puts(&b, s);
            ms_buf_putc(&b, '\n');
            free(s);
        }
    }
    if (rc != MS_OK) {
        ms_buf_free(&b);
        return rc;
    }
    *len = b.len;
    *out = ms_buf_steal(&b);
    if (!*out) {
        *out = strdup("");
        if (!*out)
            return ms_err_oom(e);
    }
    return MS_OK;
}
