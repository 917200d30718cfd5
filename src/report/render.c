/* mlsubmit report: results tables from an index (or a tree indexed in memory).
 *
 * json: the published summary_results.json (generate_final_report.py) — columns
 *       renamed, clean-ups, Details/Code URLs, Unique ID, ColorKey, IDs (ids.json), the
 *       per-suite (Model, Scenario) filter of rules/report.json, the record order, duplicate
 *       removal and performance/power merging, Python json.dumps(indent=2) text; floats as
 *       pandas' to_json (10 decimals) read back by Python (repr).
 *       Types: each column's dtype as pandas.read_csv infers it over the report's rows (the
 *       script reads the checker's summary.csv), then the script's clean-ups on the typed values
 *       (infer_columns, transform); or, with --published-types, the dtypes of the round's
 *       published summary_results.json (rules/report.json), which pandas inferred over the
 *       whole round.
 * csv:  those records as RFC 4180 CSV.  md: a table per division and suite.
 * html: one self-contained page: sortable tables, filters, inline SVG charts. */
#include "report/report.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/csv.h"
#include "common/fsutil.h"
#include "common/pyfmt.h"
#include "report/internal.h"

/* ------------------------------------------------------------ values ---- */

/* V_BIGINT: a Python int beyond 64 bits (int() of a long text of digits), its decimal text in s */
typedef enum vt { V_NONE, V_STR, V_INT, V_FLOAT, V_BOOL, V_BIGINT } vt;
typedef struct val {
    vt t;
    char *s;       /* V_STR, V_BIGINT */
    long long i;   /* V_INT, V_BOOL */
    double d;      /* V_FLOAT */
} val;

typedef struct field {
    char *key;
    val v;
} field;

typedef struct rec {
    field *f;
    size_t n, cap;
    size_t order;  /* position before sorting (stable sorts) */
    int dead;
} rec;

static void val_free(val *v)
{
    if (v->t == V_STR || v->t == V_BIGINT)
        free(v->s);
    memset(v, 0, sizeof *v);
}

static field *rec_get(rec *r, const char *k)
{
    for (size_t i = 0; i < r->n; i++)
        if (!strcmp(r->f[i].key, k))
            return &r->f[i];
    return NULL;
}

static const char *rec_str(rec *r, const char *k)
{
    field *f = rec_get(r, k);
    return f && f->v.t == V_STR ? f->v.s : "";
}

static int rec_set(rec *r, const char *k, val v)
{
    field *f = rec_get(r, k);
    if (f) {
        val_free(&f->v);
        f->v = v;
        return 0;
    }
    if (MS_GROW(r->f, r->cap, r->n + 1, 48))
        return -1;
    r->f[r->n].key = strdup(k);
    if (!r->f[r->n].key)
        return -1;
    r->f[r->n++].v = v;
    return 0;
}

static void rec_del(rec *r, const char *k)
{
    for (size_t i = 0; i < r->n; i++)
        if (!strcmp(r->f[i].key, k)) {
            free(r->f[i].key);
            val_free(&r->f[i].v);
            memmove(&r->f[i], &r->f[i + 1], (r->n - i - 1) * sizeof *r->f);
            r->n--;
            return;
        }
}

static void rec_free(rec *r)
{
    for (size_t i = 0; i < r->n; i++) {
        free(r->f[i].key);
        val_free(&r->f[i].v);
    }
    free(r->f);
    memset(r, 0, sizeof *r);
}

static val vstr(const char *s)
{
    val v = {.t = V_STR, .s = strdup(s ? s : "")};
    if (!v.s)
        v.t = V_NONE;
    return v;
}

/* pandas' default NA strings (pandas 2, as the published files were made: "None" is one since
 * pandas 2.0, pandas-dev/pandas issue 52493; pandas 1.x reads it as text): such a field reads
 * as NaN, then fillna("") makes it "" */
static int is_na(const char *s)
{
    static const char *const na[] = {"", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan",
                                     "1.#IND", "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a",
                                     "nan", "null"};
    for (size_t i = 0; i < sizeof na / sizeof *na; i++)
        if (!strcmp(s, na[i]))
            return 1;
    return 0;
}

/* ---- pandas' reading of summary.csv --------------------------------------------------------
 * generate_final_report.py reads the checker's summary.csv with pandas.read_csv, then fillna(""):
 * each column gets one dtype from all of its values (the C parser's inference), and the records
 * of summary_results.json carry the values as that dtype gives them. An integer column with a
 * missing value becomes float64 (32 is written 32.0), a column with a text becomes object (its
 * numbers stay text), True/False alone make a bool column. Inferred here over the rows of the
 * report (one round), as the script does over its input. */

/* PC_NEG: an integer written with a '-' (-0 too); PC_UINT: an integer of the uint64 range
 * beyond int64 */
typedef enum pcls { PC_NA, PC_INT, PC_FLOAT, PC_BOOL, PC_OTHER, PC_NEG, PC_UINT } pcls;

static int pd_space(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v';
}

static const char *pd_skip_space(const char *p)
{
    while (pd_space(*p))
        p++;
    return p;
}

/* skips a sign */
static const char *pd_skip_sign(const char *p)
{
    return *p == '-' || *p == '+' ? p + 1 : p;
}

/* skips decimal digits, returns how many */
static size_t pd_digits(const char **p)
{
    size_t n = 0;
    while (isdigit((unsigned char)**p)) {
        (*p)++;
        n++;
    }
    return n;
}

/* the C parser's integer (str_to_int64): blanks around, a sign, decimal digits. Beyond int64,
 * *overflow is 1, or 2 for a number of the uint64 range (the column may still be uint64);
 * beyond that, no integer and no float either (the column stays text). */
static int pd_int(const char *s, long long *out, int *overflow)
{
    *overflow = 0;
    const char *num = pd_skip_space(s), *p = pd_skip_sign(num);
    if (!pd_digits(&p))
        return -1;
    const char *end = p;
    if (*pd_skip_space(p))
        return -1;
    char buf[64];
    size_t n = (size_t)(end - num);
    if (n >= sizeof buf) {
        *overflow = 1;
        return -1;
    }
    memcpy(buf, num, n);
    buf[n] = '\0';
    errno = 0;
    *out = strtoll(buf, NULL, 10);
    if (errno) {
        *overflow = 1;
        if (buf[0] != '-') {
            errno = 0;
            (void)strtoull(buf, NULL, 10);
            if (!errno)
                *overflow = 2;
        }
        return -1;
    }
    return 0;
}

/* the C parser's float (precise_xstrtod, then _try_double's infinities): blanks around, a sign,
 * digits with an optional point, an optional exponent; inf/infinity in any case; an overflow
 * is no float */
static int pd_float(const char *s, double *out)
{
    const char *num = pd_skip_space(s), *p = pd_skip_sign(num);
    if (!strcasecmp(p, "inf") || !strcasecmp(p, "infinity")) {
        *out = *num == '-' ? -INFINITY : INFINITY;
        return 0;
    }
    size_t digits = pd_digits(&p);
    if (*p == '.') {
        p++;
        digits += pd_digits(&p);
    }
    if (!digits)
        return -1;
    if (*p == 'e' || *p == 'E') {
        p = pd_skip_sign(p + 1);
        if (!pd_digits(&p))
            return -1;
    }
    const char *end = p;
    if (*pd_skip_space(p))
        return -1;
    char *stop;
    errno = 0;
    *out = strtod(num, &stop);
    if (stop != end || errno == ERANGE)
        return -1;
    return 0;
}

static int pd_bool(const char *s, int *b)
{
    if (!strcmp(s, "True") || !strcmp(s, "TRUE") || !strcmp(s, "true"))
        *b = 1;
    else if (!strcmp(s, "False") || !strcmp(s, "FALSE") || !strcmp(s, "false"))
        *b = 0;
    else
        return -1;
    return 0;
}

static pcls pd_class(const char *s)
{
    long long i;
    double d;
    int b, over;
    if (!*s || is_na(s))
        return PC_NA;
    if (!pd_int(s, &i, &over))
        return *pd_skip_space(s) == '-' ? PC_NEG : PC_INT;
    if (over)
        return over == 2 ? PC_UINT : PC_OTHER;
    if (!pd_float(s, &d))
        return PC_FLOAT;
    if (!pd_bool(s, &b))
        return PC_BOOL;
    return PC_OTHER;
}

/* PD_BOOL_NA: booleans with a missing value, an object column whose booleans stay booleans;
 * PD_UINT: uint64 (an integer beyond int64 and none written with a '-'); PD_RAW: an object
 * column read without NA filtering (integers beyond int64 with NA strings or a '-': the C
 * parser's int64 conversion overflows and it reads the column again as text, na_filter off, and
 * the numeric conversion then refuses a uint64 beside a missing or negative value), where 'N/A'
 * stays 'N/A' */
typedef enum pdtype { PD_INT, PD_FLOAT, PD_BOOL, PD_BOOL_NA, PD_OBJECT, PD_UINT, PD_RAW } pdtype;

/* The dtype of a column from which classes of values it holds (seen[pcls]). */
static pdtype pd_infer(const int *seen)
{
    int ints = seen[PC_INT] || seen[PC_NEG], num = ints || seen[PC_FLOAT] || seen[PC_UINT];
    if (seen[PC_OTHER] || (seen[PC_BOOL] && num))
        return PD_OBJECT;
    if (seen[PC_BOOL])
        return seen[PC_NA] ? PD_BOOL_NA : PD_BOOL;
    if (seen[PC_UINT] && !seen[PC_FLOAT])
        return seen[PC_NA] || seen[PC_NEG] ? PD_RAW : PD_UINT;
    if (ints && !seen[PC_FLOAT] && !seen[PC_UINT])
        return seen[PC_NA] ? PD_FLOAT : PD_INT;
    return PD_FLOAT; /* also every value missing: float64 of NaN, "" after fillna */
}

static int py_int(const char *s, val *out);

/* A value as a column of dtype t holds it (after fillna: a missing value is ""). */
static val pd_value(const char *s, pdtype t)
{
    long long i;
    double d;
    int b, over;
    if (t == PD_RAW)
        return vstr(s);
    if (!*s || is_na(s))
        return vstr(""); /* NaN, then fillna("") */
    switch (t) {
    case PD_INT:
        if (!pd_int(s, &i, &over))
            return (val){.t = V_INT, .i = i};
        break;
    case PD_UINT: {
        val u;
        if (!pd_int(s, &i, &over))
            return (val){.t = V_INT, .i = i};
        if (!py_int(s, &u))
            return u;
        break;
    }
    case PD_FLOAT:
        if (!pd_int(s, &i, &over))
            return (val){.t = V_FLOAT, .d = (double)i};
        if (!pd_float(s, &d))
            return (val){.t = V_FLOAT, .d = d};
        break;
    case PD_BOOL:
    case PD_BOOL_NA:
        if (!pd_bool(s, &b))
            return (val){.t = V_BOOL, .i = b};
        break;
    case PD_OBJECT:
    case PD_RAW:
        break;
    }
    return vstr(s);
}

/* Python's int(text): surrounding blanks, a sign, decimal digits with single underscores
 * between them. 0 with the value in *out (V_INT, or V_BIGINT beyond 64 bits), -1 where Python
 * raises or without memory. */
static int py_int(const char *s, val *out)
{
    const char *p = pd_skip_space(s);
    ms_buf d = MS_BUF_INIT;
    if (*p == '-')
        ms_buf_putc(&d, '-');
    p = pd_skip_sign(p);
    if (!isdigit((unsigned char)*p))
        return -1;
    while (*p == '0' && (isdigit((unsigned char)p[1]) || (p[1] == '_' && isdigit((unsigned char)p[2]))))
        p += p[1] == '_' ? 2 : 1; /* leading zeros */
    for (; isdigit((unsigned char)*p) || (*p == '_' && isdigit((unsigned char)p[1])); p++)
        if (*p != '_')
            ms_buf_putc(&d, *p);
    if (*pd_skip_space(p) || !d.data) {
        ms_buf_free(&d);
        return -1;
    }
    if (!strcmp(d.data, "-0"))
        d.data[0] = '0', d.data[1] = '\0';
    long long i;
    int over;
    if (!pd_int(d.data, &i, &over)) {
        ms_buf_free(&d);
        *out = (val){.t = V_INT, .i = i};
        return 0;
    }
    *out = (val){.t = V_BIGINT, .s = d.data};
    return 0;
}

/* pandas to_json (double_precision 10, ultrajson's algorithm) then Python float(): the value
 * that appears in the published file. */
static double pandas_roundtrip(double value)
{
    if (!isfinite(value))
        return value;
    char buf[64];
    double thres_max = (double)1e16 - 1, thres_min = 1e-15;
    int neg = value < 0;
    double v = neg ? -value : value;
    if (v > thres_max || (v != 0.0 && v < thres_min)) {
        /* very large or small: printf's "%.<double_precision>g" (1.844674407e+19) */
        snprintf(buf, sizeof buf, "%.10g", value);
        return strtod(buf, NULL);
    }
    static const double pow10[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
                                   1000000000, 10000000000.0};
    double p10 = pow10[10];
    unsigned long long whole = (unsigned long long)v;
    double tmp = (v - (double)whole) * p10;
    unsigned long long frac = (unsigned long long)tmp;
    double diff = tmp - (double)frac;
    if (diff > 0.5)
        ++frac;
    else if (diff == 0.5 && ((frac == 0) || (frac & 1)))
        ++frac;
    if ((double)frac >= p10) {
        frac = 0;
        ++whole;
    }
    if (frac)
        snprintf(buf, sizeof buf, "%s%llu.%010llu", neg ? "-" : "", whole, frac);
    else
        snprintf(buf, sizeof buf, "%s%llu.0", neg ? "-" : "", whole);
    return strtod(buf, NULL);
}

/* ----------------------------------------------------------- loading ---- */

#define COLS rp_csv_columns
#define NCOLS RP_NCSV

static const char *rename_col(const char *c)
{
    static const char *const map[][2] = {
        {"Organization", "Submitter"}, {"Division", "Category"}, {"SystemType", "Suite"},
        {"SystemName", "System"}, {"number_of_nodes", "Nodes"}, {"host_processor_model_name", "Processor"},
        {"accelerator_model_name", "Accelerator"}, {"accelerators_per_node", "a#"}, {"notes", "Notes"},
        {"framework", "Software"}, {"Model", "UsedModel"}, {"MlperfModel", "Model"},
        {"total_accelerators", "Total Accelerators"}};
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (!strcmp(map[i][0], c))
            return map[i][1];
    return c;
}

typedef struct rctx {
    const rp_report_opts *o;
    sqlite3 *db;
    rec *recs;
    size_t n;
    char *round;      /* v5.1, ... */
    int unified;
    json_t *rules;    /* round rules (fallback filter) */
    json_t *report;   /* rules/report.json */
    const char *only; /* a multi-round index: this round's rows only (NULL: every row) */
    int multi;        /* several rounds: a Round column */
    /* the round's report switches (rules/<v>.json, read in report_switches) */
    int scen_filter;      /* report_scenario_filter: the per-suite (Model, Scenario) filter */
    int suite_exact;      /* report_suite_exact: a record's Suite equals the table's suite */
    const json_t *suites; /* report_suites: the suites the tables split by (empty: none) */
} rctx;

static const char *const default_suites[] = {"datacenter", "edge"};

/* The report switches of the round's rules, read here only (defaults: the tables of
 * generate_final_report.py from tag v2.0 on). */
static void report_switches(rctx *c)
{
    const json_t *j = json_object_get(c->rules, "report_scenario_filter");
    c->scen_filter = !json_is_false(j);
    c->suite_exact = json_is_true(json_object_get(c->rules, "report_suite_exact"));
    j = json_object_get(c->rules, "report_suites");
    c->suites = json_is_array(j) ? j : NULL;
}

/* Does a record of suite value `sv` belong to the table of `suite`? NULL: the round's tables
 * do not split by suite (every record). */
static int suite_match(const rctx *c, const char *sv, const char *suite)
{
    if (!suite)
        return 1;
    return c->suite_exact ? !strcmp(sv, suite) : strstr(sv, suite) != NULL;
}

/* The tables of md and html: a division and a suite; the suite "" holds the records of
 * neither suite (a round without system types, v0.5's tables: one per division). */
static const char *const table_suites[] = {"datacenter", "edge", ""};


static int load_rows(rctx *c, ms_err *e)
{
    ms_buf sql = MS_BUF_INIT;
    ms_buf_puts(&sql, "SELECT ");
    for (size_t k = 0; k < NCOLS; k++)
        ms_buf_printf(&sql, "%s\"%s\"", k ? ", " : "", COLS[k]);
    ms_buf_puts(&sql, c->only ? " FROM results WHERE round = ? ORDER BY id" : " FROM results ORDER BY id");
    sqlite3_stmt *st = NULL;
    if (!sql.data || sqlite3_prepare_v2(c->db, sql.data, -1, &st, NULL) != SQLITE_OK) {
        ms_buf_free(&sql);
        return ms_err_set(e, MS_EINPUT, "the index has no results table: %s", sqlite3_errmsg(c->db));
    }
    if (c->only)
        sqlite3_bind_text(st, 1, c->only, -1, SQLITE_TRANSIENT);
    ms_buf_free(&sql);
    int present[NCOLS] = {0};
    size_t cap = 0;
    int rc = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (MS_GROW(c->recs, cap, c->n + 1, 64)) {
            rc = ms_err_oom(e);
            break;
        }
        rec *r = &c->recs[c->n];
        memset(r, 0, sizeof *r);
        r->order = c->n++;
        for (size_t k = 0; k < NCOLS && !rc; k++) {
            if (sqlite3_column_type(st, (int)k) == SQLITE_NULL) {
                /* a column of the other profile: absent (kept absent when no row has it) */
                if (rec_set(r, COLS[k], (val){.t = V_NONE}))
                    rc = ms_err_oom(e);
                continue;
            }
            present[k] = 1;
            const char *s = (const char *)sqlite3_column_text(st, (int)k);
            if (rec_set(r, COLS[k], vstr(s))) /* NA strings: infer_columns */
                rc = ms_err_oom(e);
        }
    }
    sqlite3_finalize(st);
    /* drop absent columns */
    for (size_t k = 0; k < NCOLS && !rc; k++)
        if (!present[k])
            for (size_t i = 0; i < c->n; i++)
                rec_del(&c->recs[i], COLS[k]);
    return rc;
}

/* ------------------------------------------------------- transforming ---- */

static int json_has(const json_t *list, const char *s)
{
    return ru_list_has(list, s);
}

/* Is (Model, Scenario) shown for the suite? rules/report.json, else the round's tables. */
static int scenario_allowed(rctx *c, const char *suite, const char *model, const char *scen)
{
    if (!c->scen_filter)
        return 1;
    const json_t *tbl = json_object_get(json_object_get(c->report, "rounds"), c->round);
    if (!tbl)
        tbl = json_object_get(c->report, "default");
    const json_t *lst = json_object_get(json_object_get(tbl, suite), model);
    if (lst)
        return json_has(lst, scen);
    const json_t *req = json_object_get(json_object_get(json_object_get(c->rules, "required_scenarios"), suite), model);
    const json_t *opt = json_object_get(json_object_get(json_object_get(c->rules, "optional_scenarios"), suite), model);
    return json_has(req, scen) || json_has(opt, scen);
}

/* The dtype of every column over the rows of the round (pandas.read_csv's inference), or, with
 * --published-types, the dtype the round's published summary_results.json shows
 * (rules/report.json "published_types", where listed; pandas inferred it over the whole round),
 * then each value as its column holds it. -1 out of memory. */
static int infer_columns(rctx *c, const json_t *published)
{
    rec *r0 = &c->recs[0];
    for (size_t k = 0; k < r0->n; k++) {
        const char *key = r0->f[k].key;
        int seen[PC_UINT + 1] = {0};
        for (size_t i = 0; i < c->n; i++) {
            field *f = rec_get(&c->recs[i], key);
            if (f && f->v.t == V_STR)
                seen[pd_class(f->v.s)] = 1;
        }
        pdtype t = pd_infer(seen);
        const char *pt = json_string_value(json_object_get(published, key));
        if (pt) {
            static const char *const names[] = {"int", "float", "bool", "bool_na", "object", "uint", "raw"};
            for (size_t n = 0; n < sizeof names / sizeof *names; n++)
                if (!strcmp(pt, names[n]))
                    t = (pdtype)n;
        }
        for (size_t i = 0; i < c->n; i++) {
            field *f = rec_get(&c->recs[i], key);
            if (!f || f->v.t != V_STR)
                continue;
            val nv = pd_value(f->v.s, t);
            if (nv.t == V_NONE)
                return -1;
            val_free(&f->v);
            f->v = nv;
        }
    }
    return 0;
}

static int transform(rctx *c, ms_err *e)
{
    const rp_report_opts *o = c->o;
    const char *owner = o->repository_owner ? o->repository_owner : "mlcommons";
    const char *branch = o->repository_branch ? o->repository_branch : "main";
    char *repo = o->repository ? strdup(o->repository) : rp_fmt("inference_results_%s", c->round);
    if (!repo)
        return ms_err_oom(e);
    for (size_t i = 0; i < c->n; i++) {
        rec *r = &c->recs[i];
        /* 1. rename */
        for (size_t k = 0; k < r->n; k++) {
            const char *nk = rename_col(r->f[k].key);
            if (nk != r->f[k].key) {
                char *d = strdup(nk);
                if (!d) {
                    free(repo);
                    return ms_err_oom(e);
                }
                free(r->f[k].key);
                r->f[k].key = d;
            }
        }
        /* v6: canonical scenarios */
        field *sc = rec_get(r, "Scenario");
        if (sc && sc->v.t == V_STR) {
            const char *can = ru_scenario_canon(NULL, sc->v.s);
            if (can && strcmp(can, sc->v.s))
                rec_set(r, "Scenario", vstr(can));
        }
    }
    /* 2. types: pandas' dtypes of the columns, then the script's clean-ups (main() of
     * generate_final_report.py: "fix issues with raw data", "cleanup counts") on the typed values */
    const json_t *published = NULL;
    if (o->published_types) {
        published = json_object_get(json_object_get(c->report, "published_types"), c->round);
        if (!json_is_object(published)) {
            free(repo);
            return ms_err_set(e, MS_EUSAGE, "--published-types: rules/report.json records no published "
                              "types of round %s", c->round);
        }
    }
    if (c->n && infer_columns(c, published)) {
        free(repo);
        return ms_err_oom(e);
    }
    for (size_t i = 0; i < c->n; i++) {
        rec *r = &c->recs[i];
        field *f = rec_get(r, "host_processor_core_count");
        if (f && f->v.t == V_STR && !strcmp(f->v.s, "2 (big); 4 (LITTLE)")) {
            val_free(&f->v);
            f->v = (val){.t = V_INT, .i = 2};
        }
        f = rec_get(r, "Availability");
        if (f && f->v.t == V_STR && !strcmp(f->v.s, "on-premise"))
            rec_set(r, "Availability", vstr("available"));
        f = rec_get(r, "Accelerator");
        if (f && f->v.t == V_STR && !strcmp(f->v.s, "-"))
            rec_set(r, "Accelerator", vstr(""));
        /* a#: int(x) if str(x).isnumeric() (a text of digits; an int column's numbers >= 0),
         * then "" for a value equal to 0 (0, 0.0, False) */
        f = rec_get(r, "a#");
        if (f && f->v.t == V_STR && f->v.s[0]) {
            int digits = 1;
            for (const char *p = f->v.s; *p; p++)
                digits &= isdigit((unsigned char)*p) != 0;
            val a;
            if (digits && !py_int(f->v.s, &a)) {
                val_free(&f->v);
                f->v = a;
            }
        }
        if (f && ((f->v.t == V_INT || f->v.t == V_BOOL) ? f->v.i == 0 : f->v.t == V_FLOAT && f->v.d == 0.0))
            rec_set(r, "a#", vstr(""));
        /* p#: int(host_processors_per_node) (a text Python's int() refuses stops the script:
         * kept as it is here) */
        field *pp = rec_get(r, "host_processors_per_node");
        val pv = {.t = V_NONE};
        if (pp && (pp->v.t == V_INT || pp->v.t == V_BOOL))
            pv = (val){.t = V_INT, .i = pp->v.i};
        else if (pp && pp->v.t == V_FLOAT && isfinite(pp->v.d))
            pv = (val){.t = V_INT, .i = (long long)pp->v.d};
        else if (pp && pp->v.t == V_STR && !py_int(pp->v.s, &pv))
            ;
        else if (pp && pp->v.t == V_BIGINT && (pv.s = strdup(pp->v.s)) != NULL)
            pv.t = V_BIGINT;
        else
            pv = vstr(pp && pp->v.t == V_STR ? pp->v.s : "");
        /* 3. URLs */
        char *details = rp_fmt("https://github.com/%s/%s/tree/%s/%s/%s/results/%s", owner, repo, branch,
                               rec_str(r, "Category"), rec_str(r, "Submitter"), rec_str(r, "Platform"));
        char *code = rp_fmt("https://github.com/%s/%s/tree/%s/%s/%s/%s", owner, repo, branch, rec_str(r, "Category"),
                            rec_str(r, "Submitter"), c->unified ? "src" : "code");
        int open = !strcmp(rec_str(r, "Category"), "open");
        /* no system type (v0.5): the ID starts at the division */
        const char *suite = rec_str(r, "Suite");
        char *uid = open ? rp_fmt("%s%s%s/%s/%s/%s", suite, suite[0] ? "/" : "", rec_str(r, "Category"),
                                  rec_str(r, "Submitter"), rec_str(r, "Platform"), rec_str(r, "UsedModel"))
                         : rp_fmt("%s%s%s/%s/%s", suite, suite[0] ? "/" : "", rec_str(r, "Category"),
                                  rec_str(r, "Submitter"), rec_str(r, "Platform"));
        char *ck = rp_fmt("%s%s", rec_str(r, "Availability"), rec_str(r, "Submitter"));
        int bad = !details || !code || !uid || !ck;
        if (!bad)
            bad = rec_set(r, "p#", pv) || rec_set(r, "Details", vstr(details)) || rec_set(r, "Code", vstr(code)) ||
                  rec_set(r, "Unique ID (e.g. for Audit)", vstr(uid)) || rec_set(r, "ColorKey", vstr(ck));
        free(details);
        free(code);
        free(uid);
        free(ck);
        if (bad) {
            free(repo);
            return ms_err_oom(e);
        }
    }
    free(repo);
    return 0;
}

/* Compares two records by the text of keys, then by their previous position (a stable sort). */
static int cmp_keys(rec *x, rec *y, const char *const *keys, size_t nk)
{
    for (size_t k = 0; k < nk; k++) {
        int d = strcmp(rec_str(x, keys[k]), rec_str(y, keys[k]));
        if (d)
            return d;
    }
    return x->order < y->order ? -1 : x->order > y->order;
}

static int cmp_sortkey(const void *a, const void *b)
{
    static const char *const keys[] = {"Category", "Availability", "Submitter", "Unique ID (e.g. for Audit)"};
    return cmp_keys((rec *)a, (rec *)b, keys, 4);
}

static int assign_ids(rctx *c, ms_err *e)
{
    if (c->n)
        qsort(c->recs, c->n, sizeof *c->recs, cmp_sortkey);
    for (size_t i = 0; i < c->n; i++)
        c->recs[i].order = i;
    json_t *ids = NULL;
    if (c->o->ids && ms_path_exists(c->o->ids)) {
        ids = rp_json_load(c->o->ids, e);
        if (!ids || !json_is_object(ids)) {
            json_decref(ids);
            return ms_err_set(e, MS_EINPUT, "%s: expected a JSON object {\"<Unique ID>\": number}", c->o->ids);
        }
    } else if (!(ids = json_object()))
        return ms_err_oom(e);
    long long maxid = 0;
    const char *k;
    json_t *v;
    json_object_foreach(ids, k, v) {
        if (!json_is_integer(v)) {
            json_decref(ids);
            return ms_err_set(e, MS_EINPUT, "%s: \"%s\": expected an integer", c->o->ids, k);
        }
        if (json_integer_value(v) > maxid)
            maxid = json_integer_value(v);
    }
    char *rv = c->o->report_version ? strdup(c->o->report_version)
                                    : strdup(c->round[0] == 'v' ? c->round + 1 : c->round);
    if (!rv) {
        json_decref(ids);
        return ms_err_oom(e);
    }
    int rc = 0;
    for (size_t i = 0; i < c->n && !rc; i++) {
        const char *u = rec_str(&c->recs[i], "Unique ID (e.g. for Audit)");
        json_t *num = json_object_get(ids, u);
        if (!num) {
            num = json_integer(++maxid);
            if (!num || json_object_set_new(ids, u, num)) {
                rc = ms_err_oom(e);
                break;
            }
        }
        char *id = rp_fmt("%s-%04lld", rv, (long long)json_integer_value(num));
        if (!id || rec_set(&c->recs[i], "ID", vstr(id)))
            rc = ms_err_oom(e);
        free(id);
    }
    if (!rc && c->o->ids) {
        /* written back like upstream (json.dumps indent=4), atomically */
        ms_buf b = MS_BUF_INIT;
        ms_buf_puts(&b, "{");
        size_t cnt = 0;
        /* keep the file's order, new keys appended: Jansson keeps insertion order */
        json_object_foreach(ids, k, v) {
            ms_buf_puts(&b, cnt++ ? ",\n    " : "\n    ");
            rp_json_str(&b, k);
            ms_buf_printf(&b, ": %lld", (long long)json_integer_value(v));
        }
        ms_buf_puts(&b, cnt ? "\n}" : "}");
        rc = b.data ? ms_write_file_atomic(c->o->ids, b.data, b.len, e) : ms_err_oom(e);
        ms_buf_free(&b);
    }
    free(rv);
    json_decref(ids);
    return rc;
}

static int is_power_units(const char *u)
{
    return !strcmp(u, "Watts") || !strcmp(u, "millijoules") || !strcmp(u, "millijoules/Stream");
}

static int rec_clone(rec *dst, rec *src)
{
    memset(dst, 0, sizeof *dst);
    dst->order = src->order;
    for (size_t i = 0; i < src->n; i++) {
        val v = src->f[i].v;
        if ((v.t == V_STR || v.t == V_BIGINT) && !(v.s = strdup(src->f[i].v.s)))
            return -1;
        if (rec_set(dst, src->f[i].key, v))
            return -1;
    }
    return 0;
}

static int cmp_final(const void *a, const void *b)
{
    static const char *const keys[] = {"ID", "UsedModel", "Scenario", "Units"};
    return cmp_keys((rec *)a, (rec *)b, keys, 4);
}

static int same_keys(rec *x, rec *y, size_t nk)
{
    static const char *const keys[] = {"ID", "UsedModel", "Scenario", "Units"};
    for (size_t k = 0; k < nk; k++)
        if (strcmp(rec_str(x, keys[k]), rec_str(y, keys[k])))
            return 0;
    return 1;
}

static int truthy_val(const val *v)
{
    switch (v->t) {
    case V_STR: return v->s[0] != 0;
    case V_BIGINT: return 1;
    case V_INT:
    case V_BOOL: return v->i != 0;
    case V_FLOAT: return v->d != 0.0;
    default: return 0;
    }
}

static void move_field(rec *dst, const char *dk, rec *src, const char *sk)
{
    field *f = rec_get(src, sk);
    val v = {.t = V_NONE};
    if (f) {
        v = f->v;
        if ((v.t == V_STR || v.t == V_BIGINT) && !(v.s = strdup(f->v.s)))
            v.t = V_NONE;
    }
    rec_set(dst, dk, v);
}

/* The records of summary_results.json (generate_final_report.py). */
static int build_records(rctx *c, rec **out, size_t *nout, ms_err *e)
{
    size_t cap = c->n * 2 + 1, n = 0;
    rec *v = calloc(cap, sizeof *v);
    if (!v)
        return ms_err_oom(e);
    static const char *const cats[] = {"closed", "open", "network"};
    /* the round's suites (report_suites; [] = one table per division) */
    size_t nsuites = c->suites ? json_array_size(c->suites) : 2;
    size_t order = 0;
    for (size_t ci = 0; ci < 3; ci++)
        for (size_t si = 0; si < (nsuites ? nsuites : 1); si++) {
            const char *suite = !nsuites    ? NULL
                                : c->suites ? json_string_value(json_array_get(c->suites, si))
                                            : default_suites[si];
            if (nsuites && !suite)
                continue;
            for (int power = 0; power < 2; power++)
                for (size_t i = 0; i < c->n; i++) {
                    rec *r = &c->recs[i];
                    if (strcmp(rec_str(r, "Category"), cats[ci]) || !suite_match(c, rec_str(r, "Suite"), suite))
                        continue;
                    if (!power && is_power_units(rec_str(r, "Units")))
                        continue;
                    field *hp = rec_get(r, "has_power");
                    if (power && !(hp && hp->v.t == V_BOOL && hp->v.i))
                        continue;
                    if (suite && !scenario_allowed(c, suite, rec_str(r, "Model"), rec_str(r, "Scenario")))
                        continue;
                    if (MS_GROW(v, cap, n + 1, 16))
                        goto oom;
                    if (rec_clone(&v[n], r))
                        goto oom;
                    v[n++].order = order++;
                }
        }
    /* ID first */
    for (size_t i = 0; i < n; i++) {
        field *f = rec_get(&v[i], "ID");
        if (f && f != &v[i].f[0]) {
            field tmp = *f;
            memmove(&v[i].f[1], &v[i].f[0], (size_t)(f - v[i].f) * sizeof *f);
            v[i].f[0] = tmp;
        }
    }
    qsort(v, n, sizeof *v, cmp_final);
    /* consecutive duplicates (ID, UsedModel, Scenario, Units) */
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && same_keys(&v[i], &v[j], 4))
            v[j++].dead = 1;
        i = j;
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i].dead)
            rec_free(&v[i]);
        else
            v[m++] = v[i];
    }
    n = m;
    /* merge performance and power */
    for (size_t i = 0; i + 1 < n; i++) {
        if (v[i].dead || !same_keys(&v[i], &v[i + 1], 3))
            continue;
        const char *u = rec_str(&v[i], "Units");
        if (strstr(u, "Watts") || strstr(u, "joules")) {
            move_field(&v[i], "Performance_Result", &v[i + 1], "Result");
            move_field(&v[i], "Performance_Units", &v[i + 1], "Units");
            move_field(&v[i], "Power_Result", &v[i], "Result");
            move_field(&v[i], "Power_Units", &v[i], "Units");
        } else {
            move_field(&v[i], "Power_Result", &v[i + 1], "Result");
            move_field(&v[i], "Power_Units", &v[i + 1], "Units");
            move_field(&v[i], "Performance_Result", &v[i], "Result");
            move_field(&v[i], "Performance_Units", &v[i], "Units");
        }
        v[i + 1].dead = 1;
        rec_del(&v[i], "Result");
        rec_del(&v[i], "Units");
    }
    for (size_t i = 0; i < n; i++) {
        field *f = rec_get(&v[i], "Result");
        if (!v[i].dead && f && truthy_val(&f->v)) {
            move_field(&v[i], "Performance_Result", &v[i], "Result");
            move_field(&v[i], "Performance_Units", &v[i], "Units");
            rec_del(&v[i], "Result");
            rec_del(&v[i], "Units");
        }
    }
    m = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i].dead)
            rec_free(&v[i]);
        else
            v[m++] = v[i];
    }
    *out = v;
    *nout = m;
    return 0;
oom:
    for (size_t i = 0; i < n; i++)
        rec_free(&v[i]);
    free(v);
    return ms_err_oom(e);
}

/* ------------------------------------------------------------ output ---- */

static void put_val(ms_buf *b, const val *v)
{
    char num[MS_PY_FLOAT_MAX];
    switch (v->t) {
    case V_STR: rp_json_str(b, v->s); break;
    case V_BIGINT: ms_buf_puts(b, v->s); break;
    case V_INT: ms_buf_printf(b, "%lld", v->i); break;
    case V_BOOL: ms_buf_puts(b, v->i ? "true" : "false"); break;
    case V_FLOAT: {
        double d = pandas_roundtrip(v->d);
        if (!isfinite(d))
            ms_buf_puts(b, "null"); /* pandas' to_json writes NaN and infinities as null */
        else {
            ms_py_float_repr(d, num);
            ms_buf_puts(b, num);
        }
        break;
    }
    default: ms_buf_puts(b, "null");
    }
}

static void text_val(ms_buf *b, const val *v)
{
    char num[MS_PY_FLOAT_MAX];
    switch (v->t) {
    case V_STR:
    case V_BIGINT: ms_buf_puts(b, v->s); break;
    case V_INT: ms_buf_printf(b, "%lld", v->i); break;
    case V_BOOL: ms_buf_puts(b, v->i ? "True" : "False"); break;
    case V_FLOAT:
        ms_py_float_repr(pandas_roundtrip(v->d), num);
        ms_buf_puts(b, num);
        break;
    default: break;
    }
}

static void json_out(ms_buf *b, rec *v, size_t n)
{
    if (!n) {
        ms_buf_puts(b, "[]");
        return;
    }
    ms_buf_puts(b, "[\n");
    for (size_t i = 0; i < n; i++) {
        ms_buf_puts(b, "  {\n");
        for (size_t k = 0; k < v[i].n; k++) {
            ms_buf_puts(b, "    ");
            rp_json_str(b, v[i].f[k].key);
            ms_buf_puts(b, ": ");
            put_val(b, &v[i].f[k].v);
            ms_buf_puts(b, k + 1 < v[i].n ? ",\n" : "\n");
        }
        ms_buf_puts(b, i + 1 < n ? "  },\n" : "  }\n");
    }
    ms_buf_puts(b, "]");
}

static const char *const CSV_OUT[] = {
    "Round", "ID", "Submitter", "Availability", "Category", "Suite", "System", "Platform", "UsedModel", "Model",
    "Scenario", "Accuracy", "Nodes", "Processor", "host_processors_per_node", "host_processor_core_count",
    "Accelerator", "a#", "Total Accelerators", "Location", "Software", "operating_system", "Notes",
    "compliance", "errors", "version", "inferred", "has_power", "weight_data_types", "design_power_watts",
    "PrivateID", "p#", "Details", "Code", "Unique ID (e.g. for Audit)", "ColorKey", "Performance_Result",
    "Performance_Units", "Power_Result", "Power_Units", "Result", "Units"};

static void csv_out(ms_buf *b, rec *v, size_t n)
{
    size_t nc = sizeof CSV_OUT / sizeof *CSV_OUT;
    int used[sizeof CSV_OUT / sizeof *CSV_OUT] = {0};
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < nc; k++)
            if (rec_get(&v[i], CSV_OUT[k]))
                used[k] = 1;
    int first = 1;
    for (size_t k = 0; k < nc; k++)
        if (used[k]) {
            if (!first)
                ms_buf_putc(b, ',');
            first = 0;
            ms_csv_put_field(b, CSV_OUT[k]);
        }
    ms_buf_puts(b, "\r\n");
    ms_buf cell = MS_BUF_INIT;
    for (size_t i = 0; i < n; i++) {
        first = 1;
        for (size_t k = 0; k < nc; k++) {
            if (!used[k])
                continue;
            if (!first)
                ms_buf_putc(b, ',');
            first = 0;
            field *f = rec_get(&v[i], CSV_OUT[k]);
            ms_buf_reset(&cell);
            ms_buf_puts(&cell, "");
            if (f)
                text_val(&cell, &f->v);
            ms_csv_put_field(b, cell.data ? cell.data : "");
        }
        ms_buf_puts(b, "\r\n");
    }
    ms_buf_free(&cell);
}

static void md_cell(ms_buf *b, const char *s)
{
    ms_buf_puts(b, " ");
    for (const char *p = s; *p; p++) {
        if (*p == '|')
            ms_buf_puts(b, "\\|");
        else if (*p == '\n' || *p == '\r')
            ms_buf_putc(b, ' ');
        else
            ms_buf_putc(b, *p);
    }
    ms_buf_puts(b, " |");
}

static void perf_text(ms_buf *b, rec *r, const char *rk, const char *uk)
{
    field *f = rec_get(r, rk), *u = rec_get(r, uk);
    if (f)
        text_val(b, &f->v);
    if (u && u->v.t == V_STR && u->v.s[0])
        ms_buf_printf(b, " %s", u->v.s);
}

static int in_table(rec *r, const char *cat, const char *suite)
{
    if (strcmp(rec_str(r, "Category"), cat))
        return 0;
    const char *sv = rec_str(r, "Suite");
    if (suite[0])
        return strstr(sv, suite) != NULL;
    for (size_t k = 0; k + 1 < sizeof table_suites / sizeof *table_suites; k++)
        if (strstr(sv, table_suites[k]))
            return 0;
    return 1;
}

static void md_out(rctx *c, ms_buf *b, rec *v, size_t n)
{
    ms_buf_printf(b, "# %s\n\n", c->o->title ? c->o->title : "MLPerf Inference results");
    ms_buf_printf(b, "Round %s; %zu results. Generated by mlsubmit report.\n", c->round, n);
    static const char *const cats[] = {"closed", "open", "network"};
    ms_buf cell = MS_BUF_INIT;
    for (size_t ci = 0; ci < 3; ci++)
        for (size_t si = 0; si < 3; si++) {
            size_t cnt = 0;
            for (size_t i = 0; i < n; i++)
                if (in_table(&v[i], cats[ci], table_suites[si]))
                    cnt++;
            if (!cnt)
                continue;
            if (table_suites[si][0])
                ms_buf_printf(b, "\n## %s, %s\n\n", cats[ci], table_suites[si]);
            else
                ms_buf_printf(b, "\n## %s\n\n", cats[ci]);
            ms_buf_puts(b, c->multi ? "| Round " : "");
            ms_buf_puts(b, "| ID | Submitter | System | Accelerator | a# | Model | Scenario | Performance | Power | "
                           "Accuracy | Availability |\n");
            ms_buf_puts(b, c->multi ? "|---" : "");
            ms_buf_puts(b, "|---|---|---|---|---:|---|---|---:|---:|---|---|\n");
            for (size_t i = 0; i < n; i++) {
                rec *r = &v[i];
                if (!in_table(r, cats[ci], table_suites[si]))
                    continue;
                ms_buf_puts(b, "|");
                if (c->multi)
                    md_cell(b, rec_str(r, "Round"));
                static const char *const ks[] = {"ID", "Submitter", "System", "Accelerator", "a#", "UsedModel",
                                                 "Scenario"};
                for (size_t k = 0; k < 7; k++) {
                    ms_buf_reset(&cell);
                    ms_buf_puts(&cell, "");
                    field *f = rec_get(r, ks[k]);
                    if (f)
                        text_val(&cell, &f->v);
                    if (k == 5 && strcmp(rec_str(r, "UsedModel"), rec_str(r, "Model")))
                        ms_buf_printf(&cell, " (%s)", rec_str(r, "Model"));
                    md_cell(b, cell.data);
                }
                ms_buf_reset(&cell);
                ms_buf_puts(&cell, "");
                if (rec_get(r, "Performance_Result"))
                    perf_text(&cell, r, "Performance_Result", "Performance_Units");
                else
                    perf_text(&cell, r, "Result", "Units");
                md_cell(b, cell.data);
                ms_buf_reset(&cell);
                ms_buf_puts(&cell, "");
                if (rec_get(r, "Power_Result"))
                    perf_text(&cell, r, "Power_Result", "Power_Units");
                md_cell(b, cell.data);
                md_cell(b, rec_str(r, "Accuracy"));
                md_cell(b, rec_str(r, "Availability"));
                ms_buf_puts(b, "\n");
            }
        }
    ms_buf_free(&cell);
}

/* ---- HTML ---- */

static void h(ms_buf *b, const char *s)
{
    for (const char *p = s; *p; p++) {
        switch (*p) {
        case '&': ms_buf_puts(b, "&amp;"); break;
        case '<': ms_buf_puts(b, "&lt;"); break;
        case '>': ms_buf_puts(b, "&gt;"); break;
        case '"': ms_buf_puts(b, "&quot;"); break;
        case '\'': ms_buf_puts(b, "&#39;"); break;
        default: ms_buf_putc(b, *p);
        }
    }
}

/* The report's style sheet, shared with `mlsubmit serve` (rp_html_css) for the same look. */
#define RP_HTML_CSS \
    "body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:1.5em;color:#222}\n" \
    "h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.6em}h3{font-size:1em}\n" \
    "table{border-collapse:collapse;margin:.5em 0;font-size:.85em}\n" \
    "th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}\n" \
    "th{background:#eef;cursor:pointer;user-select:none;white-space:nowrap}\n" \
    "th.asc::after{content:' \\25B2'}th.desc::after{content:' \\25BC'}\n" \
    "td.num{text-align:right;font-variant-numeric:tabular-nums}\n" \
    "tr:nth-child(even) td{background:#f8f8fb}\n" \
    ".filters{display:flex;flex-wrap:wrap;gap:1em;padding:.6em;background:#f4f4f8;border:1px solid #dde}\n" \
    ".filters label{font-size:.85em}.charts{display:flex;flex-wrap:wrap;gap:1.2em}\n" \
    ".chart{border:1px solid #ddd;padding:.4em;background:#fff}\n" \
    "#js-errors{color:#b00}.muted{color:#666;font-size:.85em}\n"

const char rp_html_css[] = RP_HTML_CSS;

static const char HTML_HEAD[] =
    "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
    "script-src 'unsafe-inline'; img-src data:\">\n"
    "<title>%TITLE%</title>\n<style>\n"
    RP_HTML_CSS
    "</style>\n</head>\n<body data-ready=\"0\">\n";

static const char HTML_JS[] =
    "<script>\n"
    "(function(){\n"
    "'use strict';\n"
    "var errs=document.getElementById('js-errors');\n"
    "window.addEventListener('error',function(ev){errs.textContent+='error: '+ev.message+'\\n';});\n"
    "function cellValue(td){var v=td.getAttribute('data-v');if(v!==null&&v!==''&&!isNaN(+v))return +v;"
    "return td.textContent.trim().toLowerCase();}\n"
    "function sortTable(th){var table=th.closest('table');var idx=Array.prototype.indexOf.call(th.parentNode.children,th);"
    "var asc=!th.classList.contains('asc');"
    "Array.prototype.forEach.call(th.parentNode.children,function(x){x.classList.remove('asc','desc');});"
    "th.classList.add(asc?'asc':'desc');var tb=table.tBodies[0];var rows=Array.prototype.slice.call(tb.rows);"
    "rows.sort(function(a,b){var x=cellValue(a.cells[idx]),y=cellValue(b.cells[idx]);"
    "if(typeof x===typeof y){return (x<y?-1:x>y?1:0)*(asc?1:-1);}return (typeof x==='number'?-1:1)*(asc?1:-1);});"
    "rows.forEach(function(r){tb.appendChild(r);});}\n"
    "Array.prototype.forEach.call(document.querySelectorAll('table.results th'),function(th){"
    "th.addEventListener('click',function(){sortTable(th);});});\n"
    "var sels=document.querySelectorAll('.filters select');\n"
    "function applyFilters(){var want={};Array.prototype.forEach.call(sels,function(s){want[s.name]=s.value;});"
    "var shown=0;Array.prototype.forEach.call(document.querySelectorAll('table.results tbody tr'),function(tr){"
    "var ok=true;for(var k in want){if(want[k]&&tr.getAttribute('data-'+k)!==want[k])ok=false;}"
    "tr.style.display=ok?'':'none';if(ok)shown++;});"
    "Array.prototype.forEach.call(document.querySelectorAll('section.table'),function(sec){"
    "var vis=sec.querySelectorAll('tbody tr:not([style*=\"none\"])').length;sec.style.display=vis?'':'none';});"
    "document.getElementById('shown').textContent=shown;}\n"
    "Array.prototype.forEach.call(sels,function(s){s.addEventListener('change',applyFilters);});\n"
    "applyFilters();\n"
    "if(location.hash==='#selftest'){var res='pass';var t=document.querySelector('table.results');"
    "if(t){var th=t.tHead.rows[0].cells[8];sortTable(th);var v=Array.prototype.map.call(t.tBodies[0].rows,"
    "function(r){return cellValue(r.cells[8]);});for(var i=1;i<v.length;i++){if(typeof v[i]==='number'&&"
    "typeof v[i-1]==='number'&&v[i]<v[i-1])res='fail: sort';}"
    "var ms=document.querySelector('.filters select[name=model]');if(ms&&ms.options.length>1){"
    "ms.value=ms.options[1].value;applyFilters();Array.prototype.forEach.call(document.querySelectorAll("
    "'table.results tbody tr'),function(tr){var vis=tr.style.display!=='none';"
    "if(vis!==(tr.getAttribute('data-model')===ms.value))res='fail: filter';});ms.value='';applyFilters();}}"
    "document.body.setAttribute('data-selftest',res);}\n"
    "document.body.setAttribute('data-ready','1');\n"
    "})();\n"
    "</script>\n";

static void filter_select(ms_buf *b, rec *v, size_t n, const char *key, const char *name, const char *label)
{
    char **seen = calloc(n + 1, sizeof *seen);
    size_t ns = 0;
    if (!seen)
        return;
    for (size_t i = 0; i < n; i++) {
        const char *s = rec_str(&v[i], key);
        int dup = 0;
        for (size_t k = 0; k < ns && !dup; k++)
            dup = !strcmp(seen[k], s);
        if (!dup && s[0])
            seen[ns++] = (char *)s;
    }
    for (size_t i = 1; i < ns; i++)
        for (size_t k = i; k > 0 && strcmp(seen[k - 1], seen[k]) > 0; k--) {
            char *t = seen[k];
            seen[k] = seen[k - 1];
            seen[k - 1] = t;
        }
    ms_buf_printf(b, "<label>%s <select name=\"%s\"><option value=\"\">all</option>", label, name);
    for (size_t i = 0; i < ns; i++) {
        ms_buf_puts(b, "<option value=\"");
        h(b, seen[i]);
        ms_buf_puts(b, "\">");
        h(b, seen[i]);
        ms_buf_puts(b, "</option>");
    }
    ms_buf_puts(b, "</select></label>\n");
    free(seen);
}

static double perf_num(rec *r)
{
    field *f = rec_get(r, "Performance_Result");
    if (!f)
        f = rec_get(r, "Result");
    if (!f)
        return NAN;
    return f->v.t == V_FLOAT ? f->v.d : f->v.t == V_INT ? (double)f->v.i : NAN;
}

static const char *perf_units(rec *r)
{
    field *f = rec_get(r, "Performance_Units");
    return f ? rec_str(r, "Performance_Units") : rec_str(r, "Units");
}

/* Per (model, scenario, units): horizontal bars, one per system. */
static void svg_bars(ms_buf *b, rec *v, size_t n)
{
    int *done = calloc(n + 1, sizeof *done);
    if (!done)
        return;
    size_t charts = 0;
    for (size_t i = 0; i < n; i++) {
        if (done[i] || isnan(perf_num(&v[i])))
            continue;
        const char *model = rec_str(&v[i], "Model"), *scen = rec_str(&v[i], "Scenario"), *units = perf_units(&v[i]);
        size_t idx[64];
        size_t k = 0;
        double maxv = 0;
        for (size_t j = i; j < n && k < 64; j++) {
            if (done[j] || strcmp(rec_str(&v[j], "Model"), model) || strcmp(rec_str(&v[j], "Scenario"), scen) ||
                strcmp(perf_units(&v[j]), units) || isnan(perf_num(&v[j])))
                continue;
            done[j] = 1;
            idx[k++] = j;
            if (perf_num(&v[j]) > maxv)
                maxv = perf_num(&v[j]);
        }
        int bh = 18, lw = 260, cw = 300, hgt = 34 + (int)k * (bh + 6);
        ms_buf_printf(b, "<figure class=\"chart\" data-chart=\"bars\"><svg xmlns=\"http://www.w3.org/2000/svg\" "
                         "width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"",
                      lw + cw + 90, hgt);
        h(b, model);
        ms_buf_puts(b, " ");
        h(b, scen);
        ms_buf_printf(b, "\"><text x=\"4\" y=\"16\" font-size=\"13\" font-weight=\"bold\">");
        h(b, model);
        ms_buf_puts(b, " · ");
        h(b, scen);
        ms_buf_puts(b, " (");
        h(b, units);
        ms_buf_puts(b, strstr(units, "Latency") ? ", lower is better)</text>" : ", higher is better)</text>");
        for (size_t q = 0; q < k; q++) {
            rec *r = &v[idx[q]];
            double x = perf_num(r);
            int w = maxv > 0 ? (int)(x / maxv * cw + 0.5) : 0;
            if (w < 1)
                w = 1;
            int y = 28 + (int)q * (bh + 6);
            char num[MS_PY_FLOAT_MAX];
            ms_py_float_repr(pandas_roundtrip(x), num);
            ms_buf_printf(b, "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"end\">", lw - 6, y + 13);
            char lab[200];
            snprintf(lab, sizeof lab, "%s %s", rec_str(r, "Submitter"), rec_str(r, "Platform"));
            if (strlen(lab) > 42)
                strcpy(lab + 39, "...");
            h(b, lab);
            ms_buf_printf(b, "</text><rect class=\"bar\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
                             "fill=\"#4a6fb5\"><title>",
                          lw, y, w, bh);
            h(b, rec_str(r, "System"));
            ms_buf_printf(b, ": %s</title></rect><text x=\"%d\" y=\"%d\" font-size=\"11\">%s</text>\n", num, lw + w + 4,
                          y + 13, num);
        }
        ms_buf_puts(b, "</svg></figure>\n");
        charts++;
    }
    if (!charts)
        ms_buf_puts(b, "<p class=\"muted\">No numeric results to chart.</p>\n");
    free(done);
}

/* Latency percentiles of performance runs (from their detail logs, the runs table). */
static void svg_latency(rctx *c, ms_buf *b)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(c->db, "SELECT path, p50_ns, p90_ns, p95_ns, p97_ns, p99_ns, p999_ns, scenario_logged "
                                  "FROM runs WHERE kind = 'performance' AND coalesce(p50_ns, p90_ns, p95_ns, p97_ns, p99_ns, p999_ns) "
                                  "IS NOT NULL ORDER BY path LIMIT 24",
                           -1, &st, NULL) != SQLITE_OK) {
        ms_buf_puts(b, "<p class=\"muted\">The index has no runs table.</p>\n");
        return;
    }
    static const char *const lab[] = {"p50", "p90", "p95", "p97", "p99", "p99.9"};
    int any = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        double p[6], maxv = 0;
        for (int k = 0; k < 6; k++) {
            p[k] = sqlite3_column_type(st, k + 1) == SQLITE_NULL ? 0 : (double)sqlite3_column_int64(st, k + 1) / 1e6;
            if (p[k] > maxv)
                maxv = p[k];
        }
        const char *path = (const char *)sqlite3_column_text(st, 0);
        int W = 380, H = 190, x0 = 50, y0 = 160, ph = 120, bw = 40;
        ms_buf_printf(b, "<figure class=\"chart\" data-chart=\"latency\"><svg xmlns=\"http://www.w3.org/2000/svg\" "
                         "width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"latency percentiles\">",
                      W, H);
        ms_buf_puts(b, "<text x=\"4\" y=\"14\" font-size=\"11\">");
        char shortp[120];
        const char *sp = path ? path : "";
        size_t L = strlen(sp);
        snprintf(shortp, sizeof shortp, "%s%s", L > 70 ? "..." : "", L > 70 ? sp + L - 67 : sp);
        h(b, shortp);
        ms_buf_puts(b, "</text>");
        ms_buf_printf(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#999\"/>", x0, y0, W - 10, y0);
        for (int k = 0; k < 6; k++) {
            if (sqlite3_column_type(st, k + 1) == SQLITE_NULL)
                continue; /* not in this log */
            int hgt = maxv > 0 ? (int)(p[k] / maxv * ph + 0.5) : 0;
            int x = x0 + 8 + k * (bw + 8);
            char num[MS_PY_FLOAT_MAX];
            ms_py_float_repr(p[k], num);
            ms_buf_printf(b, "<rect class=\"lat\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#d0813a\">"
                             "<title>%s: %s ms</title></rect><text x=\"%d\" y=\"%d\" font-size=\"10\" "
                             "text-anchor=\"middle\">%s</text>",
                          x, y0 - hgt, bw, hgt, lab[k], num, x + bw / 2, y0 + 13, lab[k]);
            ms_buf_printf(b, "<text x=\"%d\" y=\"%d\" font-size=\"9\" text-anchor=\"middle\">%.4g</text>", x + bw / 2,
                          y0 - hgt - 3, p[k]);
        }
        ms_buf_printf(b, "<text x=\"4\" y=\"%d\" font-size=\"10\">ms</text></svg></figure>\n", y0 - ph);
        any = 1;
    }
    sqlite3_finalize(st);
    if (!any)
        ms_buf_puts(b, "<p class=\"muted\">No performance run with latency percentiles in the index.</p>\n");
}

static void html_out(rctx *c, ms_buf *b, rec *v, size_t n)
{
    const char *title = c->o->title ? c->o->title : "MLPerf Inference results";
    const char *p = strstr(HTML_HEAD, "%TITLE%");
    ms_buf_append(b, HTML_HEAD, (size_t)(p - HTML_HEAD));
    h(b, title);
    ms_buf_puts(b, p + 7);
    ms_buf_puts(b, "<h1>");
    h(b, title);
    ms_buf_puts(b, "</h1>\n<p class=\"muted\">Round ");
    h(b, c->round);
    sqlite3_stmt *st = NULL;
    /* several rounds: meta's verdict is the last indexed tree's, not the page's */
    if (!c->multi &&
        sqlite3_prepare_v2(c->db, "SELECT value FROM meta WHERE key='verdict'", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
        ms_buf_puts(b, " · checker: ");
        h(b, (const char *)sqlite3_column_text(st, 0));
    }
    sqlite3_finalize(st);
    ms_buf_printf(b, " · %zu results · generated by mlsubmit report (self-contained: no network)</p>\n"
                     "<pre id=\"js-errors\"></pre>\n<div class=\"filters\">\n",
                  n);
    filter_select(b, v, n, "Category", "division", "Division");
    filter_select(b, v, n, "Suite", "suite", "Category");
    filter_select(b, v, n, "Availability", "availability", "Availability");
    filter_select(b, v, n, "Model", "model", "Model");
    filter_select(b, v, n, "Scenario", "scenario", "Scenario");
    ms_buf_puts(b, "<span class=\"muted\"><span id=\"shown\">0</span> shown</span>\n</div>\n");
    static const char *const cats[] = {"closed", "open", "network"};
    static const char *const allcols[] = {"Round", "ID", "Submitter", "System", "Platform", "Accelerator", "a#", "UsedModel",
                                       "Scenario", "Performance", "Power", "Accuracy", "Availability", "inferred"};
    const char *const *cols = allcols + !c->multi;
    size_t ncols = sizeof allcols / sizeof *allcols - !c->multi;
    int tables = 0;
    for (size_t ci = 0; ci < 3; ci++)
        for (size_t si = 0; si < 3; si++) {
            size_t cnt = 0;
            for (size_t i = 0; i < n; i++)
                if (in_table(&v[i], cats[ci], table_suites[si]))
                    cnt++;
            if (!cnt)
                continue;
            tables++;
            if (table_suites[si][0])
                ms_buf_printf(b, "<section class=\"table\"><h2>%s · %s</h2>\n<table class=\"results\" id=\"t-%s-%s\">"
                                 "<thead><tr>",
                              cats[ci], table_suites[si], cats[ci], table_suites[si]);
            else
                ms_buf_printf(b, "<section class=\"table\"><h2>%s</h2>\n<table class=\"results\" id=\"t-%s\">"
                                 "<thead><tr>",
                              cats[ci], cats[ci]);
            for (size_t k = 0; k < ncols; k++)
                ms_buf_printf(b, "<th>%s</th>", cols[k]);
            ms_buf_puts(b, "</tr></thead><tbody>\n");
            for (size_t i = 0; i < n; i++) {
                rec *r = &v[i];
                if (!in_table(r, cats[ci], table_suites[si]))
                    continue;
                ms_buf_puts(b, "<tr data-division=\"");
                h(b, rec_str(r, "Category"));
                ms_buf_puts(b, "\" data-suite=\"");
                h(b, rec_str(r, "Suite"));
                ms_buf_puts(b, "\" data-availability=\"");
                h(b, rec_str(r, "Availability"));
                ms_buf_puts(b, "\" data-model=\"");
                h(b, rec_str(r, "Model"));
                ms_buf_puts(b, "\" data-scenario=\"");
                h(b, rec_str(r, "Scenario"));
                ms_buf_puts(b, "\">");
                for (size_t k = 0; k < ncols; k++) {
                    ms_buf cell = MS_BUF_INIT;
                    ms_buf_puts(&cell, "");
                    double num = NAN;
                    if (!strcmp(cols[k], "Performance")) {
                        num = perf_num(r);
                        if (rec_get(r, "Performance_Result"))
                            perf_text(&cell, r, "Performance_Result", "Performance_Units");
                        else
                            perf_text(&cell, r, "Result", "Units");
                    } else if (!strcmp(cols[k], "Power")) {
                        field *f = rec_get(r, "Power_Result");
                        if (f) {
                            perf_text(&cell, r, "Power_Result", "Power_Units");
                            num = f->v.t == V_FLOAT ? f->v.d : NAN;
                        }
                    } else {
                        field *f = rec_get(r, cols[k]);
                        if (f)
                            text_val(&cell, &f->v);
                        if (f && f->v.t == V_INT)
                            num = (double)f->v.i;
                    }
                    if (!isnan(num))
                        ms_buf_printf(b, "<td class=\"num\" data-v=\"%.17g\">", num);
                    else
                        ms_buf_puts(b, "<td>");
                    h(b, cell.data ? cell.data : "");
                    ms_buf_puts(b, "</td>");
                    ms_buf_free(&cell);
                }
                ms_buf_puts(b, "</tr>\n");
            }
            ms_buf_puts(b, "</tbody></table></section>\n");
        }
    if (!tables)
        ms_buf_puts(b, "<p>No results.</p>\n");
    ms_buf_puts(b, "<h2>Results by model and scenario</h2>\n<div class=\"charts\" id=\"charts-bars\">\n");
    svg_bars(b, v, n);
    ms_buf_puts(b, "</div>\n<h2>Latency percentiles of the performance runs</h2>\n"
                   "<div class=\"charts\" id=\"charts-latency\">\n");
    svg_latency(c, b);
    ms_buf_puts(b, "</div>\n");
    ms_buf_puts(b, HTML_JS);
    ms_buf_puts(b, "</body>\n</html>\n");
}

/* ------------------------------------------------------------- driver ---- */

static int open_source(rctx *c, ms_err *e)
{
    const rp_report_opts *o = c->o;
    if (ms_lazy_sqlite_load("mlsubmit report", e))
        return MS_ERUNTIME;
    if (o->db) {
        if (sqlite3_open_v2(o->db, &c->db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
            return ms_err_set(e, MS_EINPUT, "%s: cannot open: %s", o->db, sqlite3_errmsg(c->db));
        return 0;
    }
    rp_index_opts io = {.root = o->root, .version = o->version, .data_dir = o->data_dir, .check = o->check,
                        .portable = 0};
    rp_index_stats is;
    unsigned char *data = NULL;
    size_t len = 0;
    int rc = rp_index_mem(&io, &is, &data, &len, e);
    if (rc)
        return rc;
    if (sqlite3_open_v2(":memory:", &c->db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
        free(data);
        return ms_err_oom(e);
    }
    unsigned char *copy = sqlite3_malloc64(len);
    if (!copy) {
        free(data);
        return ms_err_oom(e);
    }
    memcpy(copy, data, len);
    free(data);
    if (sqlite3_deserialize(c->db, "main", copy, (sqlite3_int64)len, (sqlite3_int64)len,
                            SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_READONLY) != SQLITE_OK)
        return ms_err_set(e, MS_ERUNTIME, "cannot load the in-memory index");
    return 0;
}

/* A report built on a failed check misses what the checker refused (with files outside the
 * division folders, finding S2, the official checker accepts nothing at all: every record).
 * The index records the check's exit code and findings; refuse unless forced, naming them. */
static int failed_check(rctx *c, rp_report_stats *st, ms_err *e)
{
    sqlite3_stmt *q = NULL;
    int failed = 0;
    if (c->only) {
        if (sqlite3_prepare_v2(c->db, "SELECT check_exit_code FROM rounds WHERE round = ?", -1, &q, NULL) == SQLITE_OK &&
            sqlite3_bind_text(q, 1, c->only, -1, SQLITE_TRANSIENT) == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW &&
            sqlite3_column_type(q, 0) != SQLITE_NULL)
            failed = sqlite3_column_int(q, 0) != 0;
    } else if (sqlite3_prepare_v2(c->db, "SELECT value FROM meta WHERE key='check_exit_code'", -1, &q, NULL) == SQLITE_OK &&
               sqlite3_step(q) == SQLITE_ROW && sqlite3_column_text(q, 0))
        failed = strcmp((const char *)sqlite3_column_text(q, 0), "0") != 0;
    sqlite3_finalize(q);
    if (!failed)
        return 0;
    json_t *fs = json_array();
    if (!fs)
        return ms_err_oom(e);
    q = NULL;
    if (sqlite3_prepare_v2(c->db, "SELECT check_id, title, file, found FROM findings WHERE counts AND "
                                  "(?1 IS NULL OR round = ?1) ORDER BY id", -1, &q, NULL) == SQLITE_OK &&
        sqlite3_bind_text(q, 1, c->only, -1, SQLITE_TRANSIENT) == SQLITE_OK)
        while (sqlite3_step(q) == SQLITE_ROW) {
            const char *t = (const char *)sqlite3_column_text(q, 1), *f = (const char *)sqlite3_column_text(q, 2),
                       *fd = (const char *)sqlite3_column_text(q, 3);
            json_t *o = json_pack("{s:s,s:s?,s:s?,s:s?,s:b}", "id", (const char *)sqlite3_column_text(q, 0), "title",
                                  t, "file", f, "found", fd, "counts", 1);
            if (!o || json_array_append_new(fs, o)) {
                sqlite3_finalize(q);
                json_decref(fs);
                return ms_err_oom(e);
            }
        }
    sqlite3_finalize(q);
    st->check_failed = 1;
    /* several rounds: name the round (the failures of each are kept, in order) */
    size_t at = 0;
    if (c->only) {
        at = strlen(st->check_failure);
        if (at + 1 < sizeof st->check_failure)
            at += (size_t)snprintf(st->check_failure + at, sizeof st->check_failure - at, "%sround %s: ", at ? "; " : "",
                                   c->only);
        if (at >= sizeof st->check_failure)
            at = sizeof st->check_failure - 1;
    }
    rp_check_failure_text(fs, c->unified, st->check_failure + at, sizeof st->check_failure - at);
    json_decref(fs);
    if (c->o->force)
        return 0;
    const char *src = c->o->db ? c->o->db : c->o->root;
    return ms_err_set(e, MS_FAIL,
                      "%s: the checker finds errors%s: %s. The report would hold only what the checker "
                      "accepts ('mlsubmit check' lists the findings); not written (--force writes it anyway)",
                      src, c->o->db ? " (recorded in the index)" : "", st->check_failure);
}

/* The rounds of one index to table: --round (each must be in the index), else every round it
 * holds. *multi: a Round column (several rounds, or --round given). */
static int pick_rounds(rctx *c, char ***out, size_t *nout, ms_err *e)
{
    *out = NULL;
    *nout = 0;
    sqlite3_stmt *q = NULL;
    char **have = NULL;
    size_t nh = 0, cap = 0;
    int rc = 0;
    if (sqlite3_prepare_v2(c->db, "SELECT round FROM rounds ORDER BY round", -1, &q, NULL) == SQLITE_OK)
        while (!rc && sqlite3_step(q) == SQLITE_ROW) {
            const char *r = (const char *)sqlite3_column_text(q, 0);
            if (MS_GROW(have, cap, nh + 1, 8) || !(have[nh] = strdup(r ? r : "")))
                rc = ms_err_oom(e);
            else
                nh++;
        }
    sqlite3_finalize(q);
    if (rc || !c->o->rounds) {
        *out = have;
        *nout = nh;
        return rc;
    }
    char **sel = calloc(nh + 1, sizeof *sel);
    char *list = strdup(c->o->rounds);
    if (!sel || !list)
        rc = ms_err_oom(e);
    size_t ns = 0;
    char *save = NULL;
    for (char *t = list && !rc ? strtok_r(list, ",", &save) : NULL; t && !rc; t = strtok_r(NULL, ",", &save)) {
        size_t k = 0, dup = 0;
        while (k < nh && (!have[k] || strcmp(have[k], t)))
            k++;
        for (size_t j = 0; j < ns; j++)
            dup |= !strcmp(sel[j], t);
        if (dup)
            continue;
        if (k == nh) {
            ms_buf hv = MS_BUF_INIT;
            for (size_t j = 0; j < nh; j++)
                ms_buf_printf(&hv, "%s%s", j ? ", " : "", have[j]);
            if (!nh)
                rc = ms_err_set(e, MS_EUSAGE, "--round: %s has no rounds table (an index of schema 1, one tree): "
                                              "'mlsubmit index ROOT --db %s' upgrades it", c->o->db, c->o->db);
            else
                rc = ms_err_set(e, MS_EUSAGE, "--round: %s holds no round '%s' (it holds: %s)", c->o->db, t,
                                hv.data ? hv.data : "none");
            ms_buf_free(&hv);
        } else {
            sel[ns++] = have[k];
            have[k] = NULL; /* once, in --round's order */
        }
    }
    free(list);
    for (size_t j = 0; j < nh; j++)
        free(have[j]);
    free(have);
    if (rc) {
        for (size_t j = 0; j < ns; j++)
            free(sel[j]);
        free(sel);
        return rc;
    }
    *out = sel;
    *nout = ns;
    return 0;
}

/* One round's records (the index's rows of c->only, or all): rules, check verdict, rows,
 * transforms, IDs. */
static int one_round(rctx *c, rp_report_stats *st, rec **v, size_t *n, ms_err *e)
{
    const rp_report_opts *o = c->o;
    sqlite3_stmt *q = NULL;
    char *name = NULL;
    int rc = 0;
    /* the round: the index's rules version, else --version, else the newest */
    if (c->only) {
        if (sqlite3_prepare_v2(c->db, "SELECT rules_version, rules_name FROM rounds WHERE round = ?", -1, &q, NULL) ==
                SQLITE_OK &&
            sqlite3_bind_text(q, 1, c->only, -1, SQLITE_TRANSIENT) == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW) {
            if (sqlite3_column_text(q, 0))
                c->round = strdup((const char *)sqlite3_column_text(q, 0));
            name = strdup(sqlite3_column_text(q, 1) ? (const char *)sqlite3_column_text(q, 1) : c->only);
        }
        sqlite3_finalize(q);
    } else {
        if (sqlite3_prepare_v2(c->db, "SELECT value FROM meta WHERE key='rules_version'", -1, &q, NULL) == SQLITE_OK &&
            sqlite3_step(q) == SQLITE_ROW && sqlite3_column_text(q, 0))
            c->round = strdup((const char *)sqlite3_column_text(q, 0));
        sqlite3_finalize(q);
        q = NULL;
        if (!o->version &&
            sqlite3_prepare_v2(c->db, "SELECT value FROM meta WHERE key='rules_name'", -1, &q, NULL) == SQLITE_OK &&
            sqlite3_step(q) == SQLITE_ROW && sqlite3_column_text(q, 0))
            name = strdup((const char *)sqlite3_column_text(q, 0));
        sqlite3_finalize(q);
    }
    ru_round rules;
    rc = ru_round_load(&rules, o->data_dir, c->only ? name : o->version ? o->version : name ? name : c->round, e);
    free(name);
    if (!rc) {
        c->unified = rules.unified;
        c->rules = json_incref(rules.j);
        report_switches(c);
        if (!c->round)
            c->round = strdup(rules.version);
        char *rp = rp_fmt("%s/rules/report.json", rules.data_dir);
        if (!rp || !c->round)
            rc = ms_err_oom(e);
        else if (!(c->report = rp_json_load(rp, e)))
            rc = MS_EINPUT;
        free(rp);
        ru_round_free(&rules);
    }
    if (!rc)
        rc = failed_check(c, st, e);
    if (!rc)
        rc = load_rows(c, e);
    if (!rc)
        rc = transform(c, e);
    if (!rc)
        rc = assign_ids(c, e);
    if (!rc)
        rc = build_records(c, v, n, e);
    return rc;
}

static void round_free(rctx *c)
{
    for (size_t i = 0; i < c->n; i++)
        rec_free(&c->recs[i]);
    free(c->recs);
    c->recs = NULL;
    c->n = 0;
    free(c->round);
    c->round = NULL;
    json_decref(c->rules);
    json_decref(c->report);
    c->rules = c->report = NULL;
}

int rp_report(const rp_report_opts *o, rp_report_stats *st, ms_err *e)
{
    memset(st, 0, sizeof *st);
    rctx c = {.o = o};
    int rc = open_source(&c, e);
    char **rounds = NULL;
    size_t nr = 0;
    if (!rc && o->db)
        rc = pick_rounds(&c, &rounds, &nr, e);
    if (!rc && o->rounds && !o->db)
        rc = ms_err_set(e, MS_EUSAGE, "--round selects rounds of an index (--db)");
    c.multi = nr > 1 || (o->rounds && nr);
    rec *v = NULL;
    size_t n = 0, rows = 0;
    ms_buf names = MS_BUF_INIT;
    if (!rc && !c.multi) {
        rc = one_round(&c, st, &v, &n, e);
        rows = c.n;
    }
    for (size_t r = 0; !rc && c.multi && r < nr; r++) {
        rec *rv = NULL;
        size_t rn = 0;
        c.only = rounds[r];
        round_free(&c);
        rc = one_round(&c, st, &rv, &rn, e);
        rows += c.n;
        ms_buf_printf(&names, "%s%s", r ? ", " : "", rounds[r]);
        rec *nv = rc ? NULL : realloc(v, (n + rn + 1) * sizeof *v);
        if (!rc && !nv)
            rc = ms_err_oom(e);
        for (size_t i = 0; i < rn; i++) {
            /* Round first: the records of each round, in --round's (or the index's) order */
            if (!rc && rec_set(&rv[i], "Round", vstr(rounds[r])))
                rc = ms_err_oom(e);
            if (!rc) {
                field f = rv[i].f[rv[i].n - 1];
                memmove(&rv[i].f[1], &rv[i].f[0], (rv[i].n - 1) * sizeof f);
                rv[i].f[0] = f;
            }
            if (!rc)
                nv[n++] = rv[i];
            else
                rec_free(&rv[i]);
        }
        free(rv);
        if (nv)
            v = nv;
    }
    if (!rc && c.multi) {
        free(c.round);
        c.round = ms_buf_steal(&names);
        if (!c.round)
            rc = ms_err_oom(e);
    }
    ms_buf_free(&names);
    ms_buf b = MS_BUF_INIT;
    if (!rc) {
        st->rows = rows;
        st->records = n;
        switch (o->format) {
        case RP_FMT_JSON: json_out(&b, v, n); break;
        case RP_FMT_CSV: csv_out(&b, v, n); break;
        case RP_FMT_MD: md_out(&c, &b, v, n); break;
        case RP_FMT_HTML: html_out(&c, &b, v, n); break;
        }
        if (!b.data)
            rc = ms_err_oom(e);
        else if (o->output)
            rc = ms_write_file_atomic(o->output, b.data, b.len, e);
        else {
            st->text_len = b.len;
            st->text = ms_buf_steal(&b);
        }
    }
    ms_buf_free(&b);
    for (size_t i = 0; i < n; i++)
        rec_free(&v[i]);
    free(v);
    for (size_t i = 0; i < nr; i++)
        free(rounds[i]);
    free(rounds);
    round_free(&c);
    sqlite3_close(c.db);
    return rc;
}
