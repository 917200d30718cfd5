/* mlsubmit serve: routing, the JSON API and the HTML pages (server-rendered, inline SVG charts,
 * no script, the report's style sheet). Every endpoint builds one JSON document; the page of
 * the same data renders it. */
#include <ctype.h>
#include <math.h>
#include "common/lazy_sqlite.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/buf.h"
#include "common/strutil.h"
#include "report/report.h"
#include "runs/runs.h"
#include "serve/serve.h"

#define MAX_PARAM_LEN 256
#define MAX_COMPARE 8
#define MAX_RESULTS 5000

struct ms_serve_ctx {
    sqlite3 *ix;          /* index, read-only (NULL: none) */
    int rounds;           /* the index has a round column (schema 2: several rounds); else a
                           * result's round is its summary.csv `version` */
    ms_runs_db *runs;     /* runs database, read-only (NULL: none) */
    char *runs_path;
};

ms_serve_ctx *ms_serve_ctx_new(const char *index_db, const char *runs_db, ms_err *e)
{
    ms_serve_ctx *c = calloc(1, sizeof *c);
    if (!c) {
        ms_err_oom(e);
        return NULL;
    }
    if ((index_db || runs_db) && ms_lazy_sqlite_load("mlsubmit serve", e)) {
        free(c);
        return NULL;
    }
    if (index_db) {
        if (sqlite3_open_v2(index_db, &c->ix, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
            sqlite3_exec(c->ix, "SELECT 1 FROM results LIMIT 1", NULL, NULL, NULL) != SQLITE_OK) {
            ms_err_set(e, MS_EINPUT, "%s: not an index made by `mlsubmit index` (%s)", index_db,
                       c->ix ? sqlite3_errmsg(c->ix) : "cannot open");
            ms_serve_ctx_free(c);
            return NULL;
        }
        c->rounds = sqlite3_exec(c->ix, "SELECT round FROM results LIMIT 1", NULL, NULL, NULL) == SQLITE_OK &&
                    sqlite3_exec(c->ix, "SELECT round FROM systems LIMIT 1", NULL, NULL, NULL) == SQLITE_OK;
    }
    if (runs_db) {
        if (!(c->runs = ms_runs_open(runs_db, 0, e)) || !(c->runs_path = strdup(runs_db))) {
            ms_serve_ctx_free(c);
            return NULL;
        }
    }
    return c;
}

void ms_serve_ctx_free(ms_serve_ctx *c)
{
    if (!c)
        return;
    sqlite3_close(c->ix);
    ms_runs_close(c->runs);
    free(c->runs_path);
    free(c);
}

void ms_serve_response_free(ms_serve_response *r)
{
    free(r->body);
    free(r->file_path);
    memset(r, 0, sizeof *r);
}

/* ---- small helpers ---- */

static void respond(ms_serve_response *r, int status, const char *type, char *body)
{
    r->status = status;
    r->content_type = type;
    r->body = body;
    r->len = body ? strlen(body) : 0;
}

static void respond_json(ms_serve_response *r, int status, json_t *j)
{
    char *s = json_dumps(j, JSON_INDENT(1) | JSON_SORT_KEYS);
    json_decref(j);
    respond(r, s ? status : 500, "application/json", s ? s : strdup("{\"error\": \"out of memory\"}"));
}

static void respond_error(ms_serve_response *r, int status, int html, const char *msg)
{
    if (!html) {
        respond_json(r, status, json_pack("{s:s,s:i}", "error", msg, "status", status));
        return;
    }
    ms_buf b = {0};
    ms_buf_printf(&b, "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>%d</title></head>"
                      "<body><h1>%d</h1><p>", status, status);
    for (const char *p = msg; *p; p++) {
        if (*p == '<')
            ms_buf_puts(&b, "&lt;");
        else if (*p == '&')
            ms_buf_puts(&b, "&amp;");
        else
            ms_buf_putc(&b, *p);
    }
    ms_buf_puts(&b, "</p><p><a href=\"/\">home</a></p></body></html>\n");
    respond(r, status, "text/html; charset=utf-8", ms_buf_steal(&b));
}

static void esc(ms_buf *b, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': ms_buf_puts(b, "&amp;"); break;
        case '<': ms_buf_puts(b, "&lt;"); break;
        case '>': ms_buf_puts(b, "&gt;"); break;
        case '"': ms_buf_puts(b, "&quot;"); break;
        case '\'': ms_buf_puts(b, "&#39;"); break;
        default: ms_buf_putc(b, *s);
        }
    }
}

/* percent-encodes a query value */
static void qesc(ms_buf *b, const char *s)
{
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (isalnum(ch) || strchr("-_.~", ch))
            ms_buf_putc(b, (char)ch);
        else
            ms_buf_printf(b, "%%%02X", ch);
    }
}

static void jval(ms_buf *b, json_t *v)
{
    if (!v || json_is_null(v))
        ms_buf_puts(b, "");
    else if (json_is_string(v))
        esc(b, json_string_value(v));
    else if (json_is_integer(v))
        ms_buf_printf(b, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v))
        ms_buf_printf(b, "%.6g", json_real_value(v));
    else {
        char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
        esc(b, s);
        free(s);
    }
}

static const char *param(const ms_serve_param *p, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(p[i].name, name))
            return p[i].value;
    return NULL;
}

/* 400 unless every parameter is one of allowed and no value is too long. */
static int check_params(const ms_serve_param *p, size_t n, const char *const *allowed, char *msg, size_t msz)
{
    for (size_t i = 0; i < n; i++) {
        int ok = 0;
        for (size_t k = 0; allowed && allowed[k]; k++)
            ok |= !strcmp(p[i].name, allowed[k]);
        if (!ok) {
            snprintf(msg, msz, "unknown parameter '%.64s'", p[i].name);
            return -1;
        }
        if (strlen(p[i].value) > MAX_PARAM_LEN) {
            snprintf(msg, msz, "parameter '%.64s' is longer than %d bytes", p[i].name, MAX_PARAM_LEN);
            return -1;
        }
    }
    return 0;
}

static json_t *col(sqlite3_stmt *st, int i)
{
    switch (sqlite3_column_type(st, i)) {
    case SQLITE_INTEGER: return json_integer(sqlite3_column_int64(st, i));
    case SQLITE_FLOAT: return json_real(sqlite3_column_double(st, i));
    case SQLITE_NULL: return json_null();
    default: return json_string((const char *)sqlite3_column_text(st, i));
    }
}

/* Every row of a prepared statement as objects keyed by column name. */
static json_t *rows(sqlite3_stmt *st)
{
    json_t *a = json_array();
    while (a && sqlite3_step(st) == SQLITE_ROW) {
        json_t *o = json_object();
        for (int i = 0; i < sqlite3_column_count(st); i++)
            json_object_set_new(o, sqlite3_column_name(st, i), col(st, i));
        json_array_append_new(a, o);
    }
    sqlite3_finalize(st);
    return a;
}

static int parse_id(const char *s, int64_t *id)
{
    uint64_t u;
    if (!s || ms_parse_u64(s, &u) != 0 || u == 0 || u > INT64_MAX)
        return -1;
    *id = (int64_t)u;
    return 0;
}

/* ---- data: the index ---- */

/* results columns under API names; a result's round is the index's round column (several
 * rounds in one index), in a schema-1 index its summary.csv `version` */
#define RESULT_COLS_ROUND(RND, SAME_ROUND)                                                                    \
    "r.id AS id, " RND " AS round, r.\"Division\" AS division, r.\"SystemType\" AS suite, "                 \
    "r.\"Organization\" AS submitter, r.\"Availability\" AS availability, r.\"SystemName\" AS system_name, " \
    "r.\"Platform\" AS platform, r.\"Model\" AS model, r.\"Scenario\" AS scenario, r.result_num AS result, " \
    "r.\"Units\" AS units, r.\"Accuracy\" AS accuracy, r.\"accelerator_model_name\" AS accelerator, "    \
    "coalesce((SELECT s.rowid FROM systems s WHERE s.division = r.\"Division\" AND s.system = r.\"Platform\" " \
    "AND s.submitter = r.\"Organization\"" SAME_ROUND "), (SELECT s.rowid FROM systems s WHERE "             \
    "s.division = r.\"Division\" AND s.system = r.\"Platform\" " SAME_ROUND " AND "                         \
    "instr(r.\"Location\", s.division || '/' || s.submitter || '/') > 0 LIMIT 1)) AS system_id"
#define RESULT_COLS_1 RESULT_COLS_ROUND("r.version", "")
#define RESULT_COLS_2 RESULT_COLS_ROUND("r.round", " AND s.round = r.round")
#define RESULT_COLS(c) ((c)->rounds ? RESULT_COLS_2 : RESULT_COLS_1)
#define ROUND_COL(c) ((c)->rounds ? "r.round" : "r.version")

/* the filters of /results; round takes a comma-separated list (round=v0.5,v1.0) */
static const char *const result_filters[] = {"round", "division", "suite", "model", "scenario",
                                             "availability", "submitter", NULL};
static const char *const result_filter_cols[] = {NULL /* ROUND_COL */, "r.\"Division\"", "r.\"SystemType\"",
                                                 "r.\"Model\"", "r.\"Scenario\"", "r.\"Availability\"",
                                                 "r.\"Organization\"", NULL};

/* the SQL condition of filter i, parameter number nb */
static void filter_cond(ms_serve_ctx *c, ms_buf *q, size_t i, int nb)
{
    if (i == 0) /* a list: instr over ",a,b," */
        ms_buf_printf(q, " AND instr(',' || ?%d || ',', ',' || %s || ',') > 0", nb, ROUND_COL(c));
    else
        ms_buf_printf(q, " AND %s = ?%d", result_filter_cols[i], nb);
}
static const char *const result_sorts[] = {"round", "division", "suite", "submitter", "system_name",
                                           "model", "scenario", "result", "availability", "id", NULL};

static int in_list(const char *s, const char *const *l)
{
    for (; *l; l++)
        if (!strcmp(s, *l))
            return 1;
    return 0;
}

static json_t *data_rounds(ms_serve_ctx *c)
{
    sqlite3_stmt *st;
    json_t *o = json_object();
    ms_buf q = {0};
    const char *rc = ROUND_COL(c) + 2; /* without "r." */
    ms_buf_printf(&q, "SELECT %s AS round, count(*) AS results, count(DISTINCT \"Organization\") AS submitters, "
                      "count(DISTINCT \"Division\"||'/'||\"Platform\") AS systems FROM results "
                      "WHERE row_type = 'performance' GROUP BY %s ORDER BY %s",
                  rc, rc, rc);
    if (q.data && sqlite3_prepare_v2(c->ix, q.data, -1, &st, NULL) == SQLITE_OK)
        json_object_set_new(o, "rounds", rows(st));
    ms_buf_reset(&q);
    ms_buf_printf(&q, "SELECT \"Organization\" AS submitter, count(*) AS results, group_concat(DISTINCT %s) AS rounds "
                      "FROM results WHERE row_type = 'performance' GROUP BY \"Organization\" ORDER BY \"Organization\"",
                  rc);
    if (q.data && sqlite3_prepare_v2(c->ix, q.data, -1, &st, NULL) == SQLITE_OK)
        json_object_set_new(o, "submitters", rows(st));
    ms_buf_free(&q);
    return o;
}

static int data_results(ms_serve_ctx *c, const ms_serve_param *p, size_t np, json_t **out, char *msg, size_t msz)
{
    const char *sort = param(p, np, "sort"), *order = param(p, np, "order"), *limit_s = param(p, np, "limit");
    if (sort && !in_list(sort, result_sorts)) {
        snprintf(msg, msz, "sort: expected one of round, division, suite, submitter, system_name, model, "
                           "scenario, result, availability, id");
        return -1;
    }
    if (order && strcmp(order, "asc") && strcmp(order, "desc")) {
        snprintf(msg, msz, "order: expected asc or desc");
        return -1;
    }
    uint64_t limit = MAX_RESULTS;
    if (limit_s && (ms_parse_u64(limit_s, &limit) != 0 || limit == 0 || limit > MAX_RESULTS)) {
        snprintf(msg, msz, "limit: expected 1..%d", MAX_RESULTS);
        return -1;
    }
    ms_buf q = {0};
    ms_buf_printf(&q, "SELECT %s FROM results r WHERE r.row_type = 'performance'", RESULT_COLS(c));
    int nb = 0;
    for (size_t i = 0; result_filters[i]; i++)
        if (param(p, np, result_filters[i]) && *param(p, np, result_filters[i]))
            filter_cond(c, &q, i, ++nb);
    ms_buf_printf(&q, " ORDER BY %s %s, id LIMIT %llu", sort ? sort : "id",
                  order && !strcmp(order, "desc") ? "DESC" : "ASC", (unsigned long long)limit);
    sqlite3_stmt *st;
    if (!q.data || sqlite3_prepare_v2(c->ix, q.data, -1, &st, NULL) != SQLITE_OK) {
        snprintf(msg, msz, "query failed: %s", sqlite3_errmsg(c->ix));
        ms_buf_free(&q);
        return -2;
    }
    ms_buf_free(&q);
    nb = 0;
    json_t *filters = json_object();
    for (size_t i = 0; result_filters[i]; i++) {
        const char *v = param(p, np, result_filters[i]);
        if (v && *v) {
            sqlite3_bind_text(st, ++nb, v, -1, SQLITE_TRANSIENT);
            json_object_set_new(filters, result_filters[i], json_string(v));
        }
    }
    json_t *o = json_object();
    json_object_set_new(o, "results", rows(st));
    json_object_set_new(o, "filters", filters);
    /* the values each filter can take */
    json_t *choices = json_object();
    for (size_t i = 0; result_filters[i]; i++) {
        char sql[256];
        const char *fc = i ? result_filter_cols[i] : ROUND_COL(c);
        snprintf(sql, sizeof sql, "SELECT DISTINCT %s FROM results r WHERE row_type = 'performance' AND %s IS NOT NULL ORDER BY 1",
                 fc, fc);
        json_t *vals = json_array();
        if (sqlite3_prepare_v2(c->ix, sql, -1, &st, NULL) == SQLITE_OK) {
            while (sqlite3_step(st) == SQLITE_ROW)
                json_array_append_new(vals, json_string((const char *)sqlite3_column_text(st, 0)));
            sqlite3_finalize(st);
        }
        json_object_set_new(choices, result_filters[i], vals);
    }
    json_object_set_new(o, "choices", choices);
    json_object_set_new(o, "sort", json_string(sort ? sort : "id"));
    json_object_set_new(o, "order", json_string(order ? order : "asc"));
    *out = o;
    return 0;
}

static json_t *data_system(ms_serve_ctx *c, int64_t id)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(c->ix, "SELECT rowid AS id, * FROM systems WHERE rowid = ?1", -1, &st, NULL) != SQLITE_OK)
        return NULL;
    sqlite3_bind_int64(st, 1, id);
    json_t *a = rows(st);
    json_t *sys = json_incref(json_array_get(a, 0));
    json_decref(a);
    if (!sys)
        return NULL;
    json_t *js = json_object_get(sys, "json");
    if (json_is_string(js)) {
        json_t *parsed = json_loads(json_string_value(js), 0, NULL);
        if (parsed)
            json_object_set_new(sys, "json", parsed);
    }
    const char *div = json_string_value(json_object_get(sys, "division"));
    const char *sub = json_string_value(json_object_get(sys, "submitter"));
    const char *name = json_string_value(json_object_get(sys, "system"));
    /* its results: of its round when the index has several */
    const char *round = c->rounds ? json_string_value(json_object_get(sys, "round")) : NULL;
    ms_buf q = {0};
    ms_buf_printf(&q, "SELECT %s FROM results r WHERE r.row_type = 'performance' AND r.\"Division\" = ?1 AND "
                      "r.\"Platform\" = ?2%s ORDER BY r.\"Model\", r.\"Scenario\"",
                  RESULT_COLS(c), c->rounds ? " AND r.round IS ?3" : "");
    if (q.data && sqlite3_prepare_v2(c->ix, q.data, -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, div ? div : "", -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 2, name ? name : "", -1, SQLITE_TRANSIENT);
        if (c->rounds && round)
            sqlite3_bind_text(st, 3, round, -1, SQLITE_TRANSIENT);
        json_object_set_new(sys, "results", rows(st));
    }
    ms_buf_free(&q);
    /* its files: the description and everything under <div>/<sub>/{results,measurements,
     * compliance}/<system>/ (legacy and unified layouts) */
    if (sqlite3_prepare_v2(c->ix, c->rounds ? "SELECT path, size, sha256 FROM files WHERE round IS ?5 AND (path = ?4 OR ("
                                  "division = ?1 AND submitter = ?2 AND (instr(path, '/results/' || ?3 || '/') > 0 "
                                  "OR instr(path, '/measurements/' || ?3 || '/') > 0 "
                                  "OR instr(path, '/compliance/' || ?3 || '/') > 0))) ORDER BY path LIMIT 5000"
                                  : "SELECT path, size, sha256 FROM files WHERE path = ?4 OR ("
                                  "division = ?1 AND submitter = ?2 AND (instr(path, '/results/' || ?3 || '/') > 0 "
                                  "OR instr(path, '/measurements/' || ?3 || '/') > 0 "
                                  "OR instr(path, '/compliance/' || ?3 || '/') > 0)) ORDER BY path LIMIT 5000",
                           -1, &st, NULL) == SQLITE_OK) {
        if (c->rounds && round)
            sqlite3_bind_text(st, 5, round, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 1, div ? div : "", -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 2, sub ? sub : "", -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 3, name ? name : "", -1, SQLITE_TRANSIENT);
        const char *path = json_string_value(json_object_get(sys, "path"));
        sqlite3_bind_text(st, 4, path ? path : "", -1, SQLITE_TRANSIENT);
        json_object_set_new(sys, "files", rows(st));
    }
    return sys;
}

static int lower_is_better(const char *units)
{
    return units && (strstr(units, "atency") || strstr(units, "(ms)") || strstr(units, "(s)"));
}

static json_t *data_history(ms_serve_ctx *c, const char *model, const char *scenario, const char *rounds)
{
    sqlite3_stmt *st;
    json_t *o = json_pack("{s:s,s:s}", "model", model, "scenario", scenario);
    if (rounds && *rounds)
        json_object_set_new(o, "round", json_string(rounds));
    /* the rounds there are, for the page's chooser */
    ms_buf q = {0};
    ms_buf_printf(&q, "SELECT DISTINCT %s FROM results r WHERE row_type = 'performance' AND %s IS NOT NULL ORDER BY 1",
                  ROUND_COL(c), ROUND_COL(c));
    json_t *all_rounds = json_array();
    if (q.data && sqlite3_prepare_v2(c->ix, q.data, -1, &st, NULL) == SQLITE_OK) {
        while (sqlite3_step(st) == SQLITE_ROW)
            json_array_append_new(all_rounds, json_string((const char *)sqlite3_column_text(st, 0)));
        sqlite3_finalize(st);
    }
    json_object_set_new(o, "rounds", all_rounds);
    ms_buf_reset(&q);
    ms_buf_printf(&q, "SELECT %s FROM results r WHERE r.row_type = 'performance' AND r.\"Model\" = ?1 AND "
                      "r.\"Scenario\" = ?2 AND r.result_num IS NOT NULL",
                  RESULT_COLS(c));
    if (rounds && *rounds)
        filter_cond(c, &q, 0, 3);
    ms_buf_printf(&q, " ORDER BY %s, r.id", ROUND_COL(c));
    if (!q.data || sqlite3_prepare_v2(c->ix, q.data, -1, &st, NULL) != SQLITE_OK) {
        ms_buf_free(&q);
        return o;
    }
    ms_buf_free(&q);
    sqlite3_bind_text(st, 1, model, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, scenario, -1, SQLITE_TRANSIENT);
    if (rounds && *rounds)
        sqlite3_bind_text(st, 3, rounds, -1, SQLITE_TRANSIENT);
    json_t *all = rows(st);
    json_t *best = json_array();
    size_t i;
    json_t *r;
    json_array_foreach(all, i, r)
    {
        const char *round = json_string_value(json_object_get(r, "round"));
        json_t *last = json_array_get(best, json_array_size(best) - 1);
        int same = last && round && !strcmp(json_string_value(json_object_get(last, "round")), round);
        double v = json_number_value(json_object_get(r, "result"));
        int lower = lower_is_better(json_string_value(json_object_get(r, "units")));
        if (!same)
            json_array_append(best, r);
        else if (lower ? v < json_number_value(json_object_get(last, "result"))
                       : v > json_number_value(json_object_get(last, "result")))
            json_array_set(best, json_array_size(best) - 1, r);
    }
    json_decref(all);
    json_object_set_new(o, "best_per_round", best);
    /* the model/scenario pairs there are, for the page's chooser */
    if (sqlite3_prepare_v2(c->ix, "SELECT DISTINCT \"Model\" AS model, \"Scenario\" AS scenario FROM results "
                                  "WHERE row_type = 'performance' ORDER BY 1, 2", -1, &st, NULL) == SQLITE_OK)
        json_object_set_new(o, "pairs", rows(st));
    return o;
}

/* ---- HTML ---- */

static void page_start(ms_buf *b, const char *title)
{
    ms_buf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                   "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>");
    esc(b, title);
    ms_buf_puts(b, " - mlsubmit serve</title>\n<style>\n");
    ms_buf_puts(b, rp_html_css);
    ms_buf_puts(b, "nav a{margin-right:1em}th a{color:inherit;text-decoration:none}"
                   "svg text{font-size:11px;font-family:sans-serif}\n</style>\n</head>\n<body>\n"
                   "<nav><a href=\"/\">Rounds</a><a href=\"/results\">Results</a><a href=\"/history\">History</a>"
                   "<a href=\"/runs\">Runs</a><span class=\"muted\">mlsubmit serve</span></nav>\n<h1>");
    esc(b, title);
    ms_buf_puts(b, "</h1>\n");
}

static char *page_end(ms_buf *b)
{
    ms_buf_puts(b, "</body>\n</html>\n");
    return ms_buf_steal(b);
}

/* a table of rows (objects) with the given columns; link: column -> href prefix from another
 * column ("system_name" -> "/systems/" + system_id) */
typedef struct tcol {
    const char *key, *label;
    const char *href_prefix, *href_key; /* optional link */
    int num;
} tcol;

static void table(ms_buf *b, json_t *rowsj, const tcol *cols, size_t ncols, const char *cls)
{
    ms_buf_printf(b, "<table class=\"%s\"><thead><tr>", cls);
    for (size_t k = 0; k < ncols; k++) {
        ms_buf_puts(b, "<th>");
        esc(b, cols[k].label);
        ms_buf_puts(b, "</th>");
    }
    ms_buf_puts(b, "</tr></thead><tbody>\n");
    size_t i;
    json_t *r;
    json_array_foreach(rowsj, i, r)
    {
        ms_buf_puts(b, "<tr>");
        for (size_t k = 0; k < ncols; k++) {
            ms_buf_puts(b, cols[k].num ? "<td class=\"num\">" : "<td>");
            json_t *hv = cols[k].href_key ? json_object_get(r, cols[k].href_key) : NULL;
            if (cols[k].href_prefix && hv && !json_is_null(hv)) {
                ms_buf_printf(b, "<a href=\"%s", cols[k].href_prefix);
                if (json_is_string(hv))
                    qesc(b, json_string_value(hv));
                else
                    jval(b, hv);
                ms_buf_puts(b, "\">");
                jval(b, json_object_get(r, cols[k].key));
                ms_buf_puts(b, "</a>");
            } else {
                jval(b, json_object_get(r, cols[k].key));
            }
            ms_buf_puts(b, "</td>");
        }
        ms_buf_puts(b, "</tr>\n");
    }
    ms_buf_puts(b, "</tbody></table>\n");
}

/* A bar chart (inline SVG): labels and values. */
static void bar_chart(ms_buf *b, const char *title, char **labels, const double *vals, size_t n, const char *cls)
{
    double mx = 0;
    for (size_t i = 0; i < n; i++)
        if (vals[i] > mx)
            mx = vals[i];
    int w = 60 + (int)n * 70, h = 220;
    ms_buf_printf(b, "<div class=\"chart\"><svg class=\"%s\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\"><title>",
                  cls, w, h, w, h);
    esc(b, title);
    ms_buf_puts(b, "</title>");
    for (size_t i = 0; i < n; i++) {
        double bh = mx > 0 ? 160.0 * vals[i] / mx : 0;
        int x = 40 + (int)i * 70;
        ms_buf_printf(b, "<rect class=\"bar\" x=\"%d\" y=\"%.1f\" width=\"50\" height=\"%.1f\" fill=\"#5b7bd5\"></rect>",
                      x, 180 - bh, bh);
        ms_buf_printf(b, "<text x=\"%d\" y=\"%.1f\">%.4g</text><text x=\"%d\" y=\"198\">", x, 175 - bh, vals[i], x);
        esc(b, labels[i]);
        ms_buf_puts(b, "</text>");
    }
    ms_buf_puts(b, "<line x1=\"35\" y1=\"180\" x2=\"");
    ms_buf_printf(b, "%d\" y2=\"180\" stroke=\"#444\"></line></svg></div>\n", w - 10);
}

/* A latency-percentile line chart of one or more runs (x: percentile on a log(1-p) scale). */
static void percentile_chart(ms_buf *b, json_t *runs)
{
    static const char *const colors[] = {"#5b7bd5", "#d55b5b", "#3a9a4a", "#b07a20", "#8a4ab0", "#208a8a", "#666", "#c0c"};
    double mx = 0;
    size_t i, j;
    json_t *r, *p;
    json_array_foreach(runs, i, r)
    {
        json_array_foreach(json_object_get(json_object_get(r, "latency"), "percentiles"), j, p)
        {
            double v = json_number_value(json_array_get(p, 1));
            if (v > mx)
                mx = v;
        }
    }
    if (mx <= 0)
        return;
    int w = 540, h = 260;
    ms_buf_printf(b, "<div class=\"chart\"><svg class=\"lat\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">"
                     "<title>latency percentiles (ns)</title>", w, h, w, h);
    ms_buf_printf(b, "<line x1=\"60\" y1=\"220\" x2=\"500\" y2=\"220\" stroke=\"#444\"></line>"
                     "<line x1=\"60\" y1=\"20\" x2=\"60\" y2=\"220\" stroke=\"#444\"></line>"
                     "<text x=\"2\" y=\"24\">%.3g</text><text x=\"40\" y=\"224\">0</text>", mx);
    json_array_foreach(runs, i, r)
    {
        ms_buf_printf(b, "<polyline class=\"line\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", colors[i % 8]);
        json_array_foreach(json_object_get(json_object_get(r, "latency"), "percentiles"), j, p)
        {
            double pc = json_number_value(json_array_get(p, 0));
            double x = 60 + 440 * fmin(1, log10(100.0 / fmax(1e-3, 100 - pc)) / 3.0);
            double y = 220 - 200 * json_number_value(json_array_get(p, 1)) / mx;
            ms_buf_printf(b, "%.1f,%.1f ", x, y);
        }
        ms_buf_puts(b, "\"></polyline>");
        ms_buf_printf(b, "<text x=\"%d\" y=\"%zu\" fill=\"%s\">run %lld</text>", 70, 30 + i * 14, colors[i % 8],
                      (long long)json_integer_value(json_object_get(r, "id")));
    }
    json_array_foreach(json_object_get(json_object_get(json_array_get(runs, 0), "latency"), "percentiles"), j, p)
    {
        double pc = json_number_value(json_array_get(p, 0));
        double x = 60 + 440 * fmin(1, log10(100.0 / fmax(1e-3, 100 - pc)) / 3.0);
        ms_buf_printf(b, "<text x=\"%.1f\" y=\"238\">p%g</text>", x - 8, pc);
    }
    ms_buf_puts(b, "</svg></div>\n");
}

static char *html_rounds(json_t *d)
{
    ms_buf b = {0};
    page_start(&b, "Rounds and submitters");
    static const tcol rc[] = {{"round", "Round", "/results?round=", "round", 0},
                              {"results", "Results", NULL, NULL, 1},
                              {"submitters", "Submitters", NULL, NULL, 1},
                              {"systems", "Systems", NULL, NULL, 1}};
    ms_buf_puts(&b, "<h2>Rounds</h2>\n");
    table(&b, json_object_get(d, "rounds"), rc, 4, "results rounds");
    static const tcol sc[] = {{"submitter", "Submitter", "/results?submitter=", "submitter", 0},
                              {"results", "Results", NULL, NULL, 1},
                              {"rounds", "Rounds", NULL, NULL, 0}};
    ms_buf_puts(&b, "<h2>Submitters</h2>\n");
    table(&b, json_object_get(d, "submitters"), sc, 3, "results submitters");
    return page_end(&b);
}

static void option(ms_buf *b, const char *v, int selected)
{
    ms_buf_puts(b, "<option value=\"");
    esc(b, v);
    ms_buf_puts(b, selected ? "\" selected>" : "\">");
    esc(b, v);
    ms_buf_puts(b, "</option>");
}

/* the options of a filter's select: "(all)", each value, cur selected (a value not among them,
 * a list such as round=v5.1,v6.1, is added last) */
static void select_options(ms_buf *b, json_t *vals, const char *cur)
{
    ms_buf_puts(b, "<option value=\"\">(all)</option>");
    size_t k;
    json_t *v;
    int found = !cur || !*cur;
    json_array_foreach(vals, k, v)
    {
        int sel = cur && !strcmp(cur, json_string_value(v));
        found |= sel;
        option(b, json_string_value(v), sel);
    }
    if (!found)
        option(b, cur, 1);
}

static char *html_results(json_t *d)
{
    ms_buf b = {0};
    page_start(&b, "Results");
    json_t *filters = json_object_get(d, "filters"), *choices = json_object_get(d, "choices");
    ms_buf_puts(&b, "<form class=\"filters\" method=\"get\" action=\"/results\">\n");
    for (size_t i = 0; result_filters[i]; i++) {
        const char *cur = json_string_value(json_object_get(filters, result_filters[i]));
        ms_buf_printf(&b, "<label>%s <select name=\"%s\">", result_filters[i], result_filters[i]);
        select_options(&b, json_object_get(choices, result_filters[i]), cur);
        ms_buf_puts(&b, "</select></label>\n");
    }
    ms_buf_printf(&b, "<input type=\"hidden\" name=\"sort\" value=\"%s\"><input type=\"hidden\" name=\"order\" value=\"%s\">"
                      "<button type=\"submit\">Filter</button></form>\n",
                  json_string_value(json_object_get(d, "sort")), json_string_value(json_object_get(d, "order")));
    json_t *res = json_object_get(d, "results");
    ms_buf_printf(&b, "<p class=\"muted\"><span id=\"shown\">%zu</span> results</p>\n", json_array_size(res));
    /* sortable headers: links that keep the filters */
    static const struct { const char *key, *label; int num; } hc[] = {
        {"round", "Round", 0}, {"division", "Division", 0}, {"suite", "Suite", 0}, {"submitter", "Submitter", 0},
        {"system_name", "System", 0}, {"model", "Model", 0}, {"scenario", "Scenario", 0},
        {"result", "Result", 1}, {"availability", "Availability", 0}};
    ms_buf_puts(&b, "<table class=\"results\"><thead><tr>");
    const char *sort = json_string_value(json_object_get(d, "sort"));
    const char *order = json_string_value(json_object_get(d, "order"));
    for (size_t k = 0; k < sizeof hc / sizeof hc[0]; k++) {
        int cur = !strcmp(sort, hc[k].key);
        ms_buf_printf(&b, "<th%s><a href=\"/results?sort=%s&amp;order=%s", cur ? (!strcmp(order, "asc") ? " class=\"asc\"" : " class=\"desc\"") : "",
                      hc[k].key, cur && !strcmp(order, "asc") ? "desc" : "asc");
        const char *fk;
        json_t *fv;
        json_object_foreach(filters, fk, fv)
        {
            ms_buf_printf(&b, "&amp;%s=", fk);
            qesc(&b, json_string_value(fv));
        }
        ms_buf_printf(&b, "\">%s</a></th>", hc[k].label);
    }
    ms_buf_puts(&b, "<th>Units</th></tr></thead><tbody>\n");
    size_t i;
    json_t *r;
    json_array_foreach(res, i, r)
    {
        ms_buf_puts(&b, "<tr data-model=\"");
        esc(&b, json_string_value(json_object_get(r, "model")));
        ms_buf_puts(&b, "\">");
        for (size_t k = 0; k < sizeof hc / sizeof hc[0]; k++) {
            ms_buf_puts(&b, hc[k].num ? "<td class=\"num\">" : "<td>");
            json_t *sid = json_object_get(r, "system_id");
            if (!strcmp(hc[k].key, "system_name") && json_is_integer(sid)) {
                ms_buf_printf(&b, "<a href=\"/systems/%lld\">", (long long)json_integer_value(sid));
                jval(&b, json_object_get(r, hc[k].key));
                ms_buf_puts(&b, "</a>");
            } else if (!strcmp(hc[k].key, "model")) {
                ms_buf_puts(&b, "<a href=\"/history?model=");
                qesc(&b, json_string_value(json_object_get(r, "model")));
                ms_buf_puts(&b, "&amp;scenario=");
                qesc(&b, json_string_value(json_object_get(r, "scenario")));
                ms_buf_puts(&b, "\">");
                jval(&b, json_object_get(r, hc[k].key));
                ms_buf_puts(&b, "</a>");
            } else {
                jval(&b, json_object_get(r, hc[k].key));
            }
            ms_buf_puts(&b, "</td>");
        }
        ms_buf_puts(&b, "<td>");
        jval(&b, json_object_get(r, "units"));
        ms_buf_puts(&b, "</td></tr>\n");
    }
    ms_buf_puts(&b, "</tbody></table>\n");
    return page_end(&b);
}

static char *html_system(json_t *s)
{
    ms_buf b = {0};
    const char *name = json_string_value(json_object_get(s, "system_name"));
    page_start(&b, name ? name : json_string_value(json_object_get(s, "system")));
    ms_buf_puts(&b, "<p class=\"muted\">");
    esc(&b, json_string_value(json_object_get(s, "division")));
    ms_buf_puts(&b, " / ");
    esc(&b, json_string_value(json_object_get(s, "submitter")));
    ms_buf_puts(&b, " / ");
    esc(&b, json_string_value(json_object_get(s, "system")));
    ms_buf_puts(&b, "</p>\n<h2>Results</h2>\n");
    static const tcol rc[] = {{"round", "Round", NULL, NULL, 0}, {"model", "Model", NULL, NULL, 0},
                              {"scenario", "Scenario", NULL, NULL, 0}, {"result", "Result", NULL, NULL, 1},
                              {"units", "Units", NULL, NULL, 0}, {"accuracy", "Accuracy", NULL, NULL, 0}};
    table(&b, json_object_get(s, "results"), rc, 6, "results");
    ms_buf_puts(&b, "<h2>System description</h2>\n<table class=\"system\"><tbody>\n");
    json_t *js = json_object_get(s, "json");
    if (json_is_object(js)) {
        const char *k;
        json_t *v;
        json_object_foreach(js, k, v)
        {
            ms_buf_puts(&b, "<tr><th>");
            esc(&b, k);
            ms_buf_puts(&b, "</th><td>");
            jval(&b, v);
            ms_buf_puts(&b, "</td></tr>\n");
        }
    }
    ms_buf_puts(&b, "</tbody></table>\n<h2>Files</h2>\n");
    static const tcol fc[] = {{"path", "Path", NULL, NULL, 0}, {"size", "Size", NULL, NULL, 1},
                              {"sha256", "SHA-256", NULL, NULL, 0}};
    table(&b, json_object_get(s, "files"), fc, 3, "results files");
    return page_end(&b);
}

static char *html_history(json_t *h)
{
    ms_buf b = {0};
    page_start(&b, "History per model and scenario");
    ms_buf_puts(&b, "<ul class=\"pairs\">");
    size_t i;
    json_t *p;
    json_array_foreach(json_object_get(h, "pairs"), i, p)
    {
        ms_buf_puts(&b, "<li><a href=\"/history?model=");
        qesc(&b, json_string_value(json_object_get(p, "model")));
        ms_buf_puts(&b, "&amp;scenario=");
        qesc(&b, json_string_value(json_object_get(p, "scenario")));
        ms_buf_puts(&b, "\">");
        esc(&b, json_string_value(json_object_get(p, "model")));
        ms_buf_puts(&b, " ");
        esc(&b, json_string_value(json_object_get(p, "scenario")));
        ms_buf_puts(&b, "</a></li>");
    }
    ms_buf_puts(&b, "</ul>\n");
    json_t *best = json_object_get(h, "best_per_round");
    const char *model = json_string_value(json_object_get(h, "model"));
    const char *cur = json_string_value(json_object_get(h, "round"));
    if (model && *model) {
        /* the rounds charted: every one, or those chosen */
        ms_buf_puts(&b, "<form class=\"filters\" method=\"get\" action=\"/history\">"
                        "<input type=\"hidden\" name=\"model\" value=\"");
        esc(&b, model);
        ms_buf_puts(&b, "\"><input type=\"hidden\" name=\"scenario\" value=\"");
        esc(&b, json_string_value(json_object_get(h, "scenario")));
        ms_buf_puts(&b, "\"><label>round <select name=\"round\">");
        select_options(&b, json_object_get(h, "rounds"), cur);
        ms_buf_puts(&b, "</select></label><button type=\"submit\">Show</button></form>\n");
        ms_buf_puts(&b, "<h2>");
        esc(&b, model);
        ms_buf_puts(&b, " ");
        esc(&b, json_string_value(json_object_get(h, "scenario")));
        ms_buf_puts(&b, ": best result per round</h2>\n");
        size_t n = json_array_size(best);
        char **labels = calloc(n + 1, sizeof *labels);
        double *vals = calloc(n + 1, sizeof *vals);
        json_t *r;
        if (labels && vals) {
            json_array_foreach(best, i, r)
            {
                labels[i] = (char *)json_string_value(json_object_get(r, "round"));
                if (!labels[i])
                    labels[i] = "?";
                vals[i] = json_number_value(json_object_get(r, "result"));
            }
            if (n)
                bar_chart(&b, "best result per round", labels, vals, n, "bars");
        }
        free(labels);
        free(vals);
        static const tcol hc[] = {{"round", "Round", NULL, NULL, 0}, {"submitter", "Submitter", NULL, NULL, 0},
                                  {"system_name", "System", "/systems/", "system_id", 0},
                                  {"result", "Result", NULL, NULL, 1}, {"units", "Units", NULL, NULL, 0}};
        table(&b, best, hc, 5, "results");
    }
    return page_end(&b);
}

static char *html_runs(json_t *runs)
{
    ms_buf b = {0};
    page_start(&b, "Runs");
    ms_buf_puts(&b, "<form class=\"filters\" method=\"get\" action=\"/compare\"><label>compare runs (ids, comma-separated) "
                    "<input name=\"ids\" size=\"20\"></label><button type=\"submit\">Compare</button></form>\n");
    static const tcol c[] = {{"id", "Run", "/runs/", "id", 1}, {"started_at", "Started (UTC)", NULL, NULL, 0},
                             {"kind", "Kind", NULL, NULL, 0}, {"sut", "SUT", NULL, NULL, 0},
                             {"model", "Model", NULL, NULL, 0}, {"scenario", "Scenario", NULL, NULL, 0},
                             {"mode", "Mode", NULL, NULL, 0}, {"test", "Test", NULL, NULL, 0},
                             {"validity", "Validity", NULL, NULL, 0}, {"verdict", "Verdict", NULL, NULL, 0},
                             {"metric", "Metric", NULL, NULL, 1}, {"metric_name", "", NULL, NULL, 0},
                             {"exit_code", "Exit", NULL, NULL, 1}, {"hostname", "Host", NULL, NULL, 0}};
    table(&b, runs, c, sizeof c / sizeof c[0], "results runs");
    return page_end(&b);
}

static void kv_table(ms_buf *b, json_t *obj, const char *cls)
{
    ms_buf_printf(b, "<table class=\"%s\"><tbody>\n", cls);
    const char *k;
    json_t *v;
    json_object_foreach(obj, k, v)
    {
        ms_buf_puts(b, "<tr><th>");
        esc(b, k);
        ms_buf_puts(b, "</th><td>");
        jval(b, v);
        ms_buf_puts(b, "</td></tr>\n");
    }
    ms_buf_puts(b, "</tbody></table>\n");
}

static char *html_run(json_t *r)
{
    ms_buf b = {0};
    char title[64];
    snprintf(title, sizeof title, "Run %lld", (long long)json_integer_value(json_object_get(r, "id")));
    page_start(&b, title);
    ms_buf_puts(&b, "<p><code>");
    esc(&b, json_string_value(json_object_get(r, "command")));
    ms_buf_puts(&b, "</code></p>\n");
    if (json_is_string(json_object_get(r, "trace_path")))
        ms_buf_printf(&b, "<p><a class=\"trace\" href=\"/runs/%lld/trace\">Chrome trace</a> "
                          "<span class=\"muted\">(open in chrome://tracing or ui.perfetto.dev)</span></p>\n",
                      (long long)json_integer_value(json_object_get(r, "id")));
    static const char *const keys[] = {"kind", "started_at", "ended_at", "duration_s", "exit_code", "sut", "model",
                                       "scenario", "mode", "test", "validity", "verdict", "metric_name", "metric",
                                       "query_count", "n_errors", "error", "log_dir", "rerun_of", "mlsubmit_version",
                                       "loadgen_sha256", "hostname", "cpu_model", "cpu_cores", "memory_bytes", "kernel",
                                       "cpu_governor", NULL};
    json_t *facts = json_object();
    for (size_t i = 0; keys[i]; i++) {
        json_t *v = json_object_get(r, keys[i]);
        if (v && !json_is_null(v))
            json_object_set(facts, keys[i], v);
    }
    kv_table(&b, facts, "run");
    json_decref(facts);
    json_t *one = json_pack("[O]", r);
    ms_buf_puts(&b, "<h2>Latency percentiles</h2>\n<div class=\"charts\">");
    percentile_chart(&b, one);
    ms_buf_puts(&b, "</div>\n");
    json_decref(one);
    json_t *pc = json_object_get(json_object_get(r, "latency"), "percentiles");
    if (json_array_size(pc)) {
        ms_buf_puts(&b, "<table class=\"results\"><thead><tr><th>Percentile</th><th>Latency (ns)</th></tr></thead><tbody>");
        size_t i;
        json_t *p;
        json_array_foreach(pc, i, p) ms_buf_printf(&b, "<tr><td>%g</td><td class=\"num\">%.0f</td></tr>",
                                                   json_number_value(json_array_get(p, 0)), json_number_value(json_array_get(p, 1)));
        ms_buf_puts(&b, "</tbody></table>\n");
    }
    static const char *const groups[] = {"requested", "effective", "options", NULL};
    for (size_t g = 0; groups[g]; g++) {
        json_t *grp = json_object_get(json_object_get(r, "settings"), groups[g]);
        if (!json_object_size(grp))
            continue;
        ms_buf_printf(&b, "<h2>Settings (%s)</h2>\n", groups[g]);
        kv_table(&b, grp, "settings");
    }
    ms_buf_puts(&b, "<h2>Files</h2>\n");
    static const tcol fc[] = {{"role", "Role", NULL, NULL, 0}, {"path", "Path", NULL, NULL, 0},
                              {"size", "Size", NULL, NULL, 1}, {"sha256", "SHA-256", NULL, NULL, 0}};
    table(&b, json_object_get(r, "files"), fc, 4, "results files");
    return page_end(&b);
}

static char *html_compare(json_t *c, json_t *runs)
{
    ms_buf b = {0};
    page_start(&b, "Comparison of runs");
    json_t *ids = json_object_get(c, "runs");
    size_t i, j;
    json_t *v, *m;
    ms_buf_puts(&b, "<h2>Settings that differ</h2>\n<table class=\"results compare\"><thead><tr><th>Setting</th>");
    json_array_foreach(ids, i, v) ms_buf_printf(&b, "<th><a href=\"/runs/%lld\">run %lld</a></th>",
                                                (long long)json_integer_value(v), (long long)json_integer_value(v));
    ms_buf_puts(&b, "</tr></thead><tbody>\n");
    json_array_foreach(json_object_get(c, "settings"), i, m)
    {
        ms_buf_puts(&b, "<tr><td>");
        esc(&b, json_string_value(json_object_get(m, "name")));
        ms_buf_puts(&b, "</td>");
        json_array_foreach(json_object_get(m, "values"), j, v)
        {
            ms_buf_puts(&b, "<td>");
            jval(&b, v);
            ms_buf_puts(&b, "</td>");
        }
        ms_buf_puts(&b, "</tr>\n");
    }
    ms_buf_puts(&b, "</tbody></table>\n<h2>Metrics</h2>\n<table class=\"results metrics\"><thead><tr><th>Metric</th>");
    json_array_foreach(ids, i, v) ms_buf_printf(&b, "<th>run %lld</th>", (long long)json_integer_value(v));
    ms_buf_puts(&b, "</tr></thead><tbody>\n");
    json_array_foreach(json_object_get(c, "metrics"), i, m)
    {
        ms_buf_puts(&b, "<tr><td>");
        esc(&b, json_string_value(json_object_get(m, "name")));
        ms_buf_puts(&b, "</td>");
        json_array_foreach(json_object_get(m, "values"), j, v)
        {
            ms_buf_puts(&b, "<td class=\"num\">");
            jval(&b, v);
            json_t *d = json_array_get(json_object_get(m, "delta_pct"), j);
            json_t *nz = json_array_get(json_object_get(m, "noise"), j);
            if (j && json_is_number(d))
                ms_buf_printf(&b, " <span class=\"muted\">(%+.2f%%)</span>", json_number_value(d));
            if (j && json_is_object(nz)) {
                ms_buf_puts(&b, " <span class=\"noise\">");
                esc(&b, json_string_value(json_object_get(nz, "verdict")));
                ms_buf_puts(&b, "</span>");
            }
            ms_buf_puts(&b, "</td>");
        }
        ms_buf_puts(&b, "</tr>\n");
    }
    ms_buf_puts(&b, "</tbody></table>\n<h2>Latency percentiles</h2>\n<div class=\"charts\">");
    percentile_chart(&b, runs);
    ms_buf_puts(&b, "</div>\n");
    return page_end(&b);
}

/* ---- routing ---- */

static const char *const no_params[] = {NULL};

void ms_serve_handle(ms_serve_ctx *c, const char *path, const ms_serve_param *p, size_t np, ms_serve_response *resp)
{
    memset(resp, 0, sizeof resp[0]);
    char msg[300];
    int api = !strncmp(path, "/api/", 5);
    const char *route = api ? path + 4 : path;
    if (strstr(path, "..") || strchr(path, '\\') || strstr(path, "//")) {
        respond_error(resp, 400, !api, "bad path");
        return;
    }
    int64_t id = 0;
    /* the index */
    if (!strcmp(route, "/") || !strcmp(route, "/rounds")) {
        if (!strcmp(route, "/") && api) {
            respond_error(resp, 404, 0, "no such endpoint");
            return;
        }
        if (check_params(p, np, no_params, msg, sizeof msg)) {
            respond_error(resp, 400, !api, msg);
            return;
        }
        if (!c->ix) {
            if (!api && c->runs) { /* runs only: the runs page is home */
                route = "/runs";
                goto runs_list;
            }
            respond_error(resp, 404, !api, "no index: start serve with --db INDEX");
            return;
        }
        json_t *d = data_rounds(c);
        if (api)
            respond_json(resp, 200, d);
        else {
            respond(resp, 200, "text/html; charset=utf-8", html_rounds(d));
            json_decref(d);
        }
        return;
    }
    if (!strcmp(route, "/results")) {
        static const char *const allowed[] = {"round", "division", "suite", "model", "scenario", "availability",
                                              "submitter", "sort", "order", "limit", NULL};
        if (check_params(p, np, allowed, msg, sizeof msg)) {
            respond_error(resp, 400, !api, msg);
            return;
        }
        if (!c->ix) {
            respond_error(resp, 404, !api, "no index: start serve with --db INDEX");
            return;
        }
        json_t *d = NULL;
        int r = data_results(c, p, np, &d, msg, sizeof msg);
        if (r) {
            respond_error(resp, r == -1 ? 400 : 500, !api, msg);
            return;
        }
        if (api)
            respond_json(resp, 200, d);
        else {
            respond(resp, 200, "text/html; charset=utf-8", html_results(d));
            json_decref(d);
        }
        return;
    }
    if (!strncmp(route, "/systems/", 9)) {
        if (check_params(p, np, no_params, msg, sizeof msg)) {
            respond_error(resp, 400, !api, msg);
            return;
        }
        if (parse_id(route + 9, &id)) {
            respond_error(resp, 400, !api, "a system id is a positive integer");
            return;
        }
        json_t *s = c->ix ? data_system(c, id) : NULL;
        if (!s) {
            respond_error(resp, 404, !api, "no such system");
            return;
        }
        if (api)
            respond_json(resp, 200, s);
        else {
            respond(resp, 200, "text/html; charset=utf-8", html_system(s));
            json_decref(s);
        }
        return;
    }
    if (!strcmp(route, "/history")) {
        static const char *const allowed[] = {"model", "scenario", "round", NULL};
        if (check_params(p, np, allowed, msg, sizeof msg)) {
            respond_error(resp, 400, !api, msg);
            return;
        }
        const char *model = param(p, np, "model"), *scen = param(p, np, "scenario");
        if (api && (!model || !scen)) {
            respond_error(resp, 400, 1, "model and scenario are required");
            return;
        }
        if (!c->ix) {
            respond_error(resp, 404, !api, "no index: start serve with --db INDEX");
            return;
        }
        json_t *h = data_history(c, model ? model : "", scen ? scen : "", param(p, np, "round"));
        if (api)
            respond_json(resp, 200, h);
        else {
            respond(resp, 200, "text/html; charset=utf-8", html_history(h));
            json_decref(h);
        }
        return;
    }
    /* the runs database */
    if (!strcmp(route, "/runs")) {
    runs_list:
        if (check_params(p, np, no_params, msg, sizeof msg)) {
            respond_error(resp, 400, !api, msg);
            return;
        }
        if (!c->runs) {
            respond_error(resp, 404, !api, "no runs database: start serve with --runs FILE");
            return;
        }
        json_t *l = NULL;
        ms_err e = {0};
        if (ms_runs_list(c->runs, NULL, 0, 1000, &l, &e) != MS_OK) {
            respond_error(resp, 500, !api, e.msg);
            return;
        }
        if (api)
            respond_json(resp, 200, json_pack("{s:o}", "runs", l));
        else {
            respond(resp, 200, "text/html; charset=utf-8", html_runs(l));
            json_decref(l);
        }
        return;
    }
    if (!strncmp(route, "/runs/", 6)) {
        if (check_params(p, np, no_params, msg, sizeof msg)) {
            respond_error(resp, 400, !api, msg);
            return;
        }
        char idtext[32];
        const char *rest = route + 6, *slash = strchr(rest, '/');
        size_t il = slash ? (size_t)(slash - rest) : strlen(rest);
        int trace = slash && !strcmp(slash, "/trace") && !api;
        if (il >= sizeof idtext || (slash && !trace)) {
            respond_error(resp, 404, !api, "no such page");
            return;
        }
        memcpy(idtext, rest, il);
        idtext[il] = '\0';
        if (parse_id(idtext, &id)) {
            respond_error(resp, 400, !api, "a run id is a positive integer");
            return;
        }
        json_t *r = NULL;
        ms_err e = {0};
        if (!c->runs || ms_runs_get(c->runs, id, &r, &e) != MS_OK) {
            respond_error(resp, 404, !api, "no such run");
            return;
        }
        if (trace) {
            /* the trace file the run recorded (never a path from the URL) */
            const char *tp = json_string_value(json_object_get(r, "trace_path"));
            if (!tp) {
                json_decref(r);
                respond_error(resp, 404, 1, "this run has no trace");
                return;
            }
            resp->status = 200;
            resp->content_type = "application/json";
            resp->file_path = strdup(tp);
            json_decref(r);
            return;
        }
        if (api)
            respond_json(resp, 200, r);
        else {
            respond(resp, 200, "text/html; charset=utf-8", html_run(r));
            json_decref(r);
        }
        return;
    }
    if (!strcmp(route, "/compare")) {
        static const char *const allowed[] = {"ids", NULL};
        if (check_params(p, np, allowed, msg, sizeof msg)) {
            respond_error(resp, 400, !api, msg);
            return;
        }
        const char *ids_s = param(p, np, "ids");
        int64_t ids[MAX_COMPARE];
        size_t n = 0;
        char buf[MAX_PARAM_LEN + 1];
        snprintf(buf, sizeof buf, "%s", ids_s ? ids_s : "");
        for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            if (n == MAX_COMPARE || parse_id(t, &ids[n])) {
                respond_error(resp, 400, !api, "ids: expected 2 to 8 run ids, comma-separated (ids=1,2)");
                return;
            }
            n++;
        }
        if (n < 2) {
            respond_error(resp, 400, !api, "ids: expected 2 to 8 run ids, comma-separated (ids=1,2)");
            return;
        }
        if (!c->runs) {
            respond_error(resp, 404, !api, "no runs database: start serve with --runs FILE");
            return;
        }
        json_t *cmp = NULL;
        ms_err e = {0};
        if (ms_runs_compare(c->runs, ids, n, &cmp, &e) != MS_OK) {
            respond_error(resp, e.code == MS_EINPUT ? 404 : 500, !api, e.msg);
            return;
        }
        if (api) {
            respond_json(resp, 200, cmp);
            return;
        }
        json_t *runs = json_array();
        for (size_t i = 0; i < n; i++) {
            json_t *r = NULL;
            if (ms_runs_get(c->runs, ids[i], &r, &e) == MS_OK)
                json_array_append_new(runs, r);
        }
        respond(resp, 200, "text/html; charset=utf-8", html_compare(cmp, runs));
        json_decref(cmp);
        json_decref(runs);
        return;
    }
    respond_error(resp, 404, !api, "no such page");
}
