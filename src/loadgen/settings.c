/* TestSettings: defaults (reference test_settings.h), set-by-name, config files with the
 * reference's grammar, lookup order and quirks (reference test_settings_internal.cc, FromConfig),
 * per-line findings for `loadgen check-conf`, and the effective settings (reference
 * test_settings_internal.cc, TestSettingsInternal and LogEffectiveSettings). */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/strutil.h"
#include "loadgen/embedded.h"
#include "loadgen/internal.h"
#include "loadgen/loadgen.h"

/* ---- names ------------------------------------------------------------------------------- */

static const char *const scenario_names[] = {"SingleStream", "MultiStream", "Server", "Offline"};
static const char *const mode_names[] = {"SubmissionRun", "AccuracyOnly", "PerformanceOnly",
                                         "FindPeakPerformance"};

const char *lg_scenario_name(lg_scenario s)
{
    return (unsigned)s < 4 ? scenario_names[s] : "Unknown";
}

const char *lg_mode_name(lg_mode m)
{
    return (unsigned)m < 4 ? mode_names[m] : "Unknown";
}

/* A name of a scenario or a mode, case-insensitively, and the value it stands for. */
typedef struct name_value {
    const char *name;
    int v;
} name_value;

static int lookup_name(const char *s, const name_value *t, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!strcasecmp(s, t[i].name))
            return t[i].v;
    return -1;
}

int lg_scenario_parse(const char *s)
{
    static const name_value t[] = {{"singlestream", LG_SINGLE_STREAM}, {"ss", LG_SINGLE_STREAM},
                                   {"multistream", LG_MULTI_STREAM},   {"ms", LG_MULTI_STREAM},
                                   {"server", LG_SERVER},              {"offline", LG_OFFLINE}};
    return lookup_name(s, t, sizeof t / sizeof t[0]);
}

int lg_mode_parse(const char *s)
{
    static const name_value t[] = {{"submissionrun", LG_SUBMISSION_RUN},
                                   {"submission", LG_SUBMISSION_RUN},
                                   {"accuracyonly", LG_ACCURACY_ONLY},
                                   {"accuracy", LG_ACCURACY_ONLY},
                                   {"performanceonly", LG_PERFORMANCE_ONLY},
                                   {"performance", LG_PERFORMANCE_ONLY},
                                   {"findpeakperformance", LG_FIND_PEAK_PERFORMANCE},
                                   {"findpeak", LG_FIND_PEAK_PERFORMANCE}};
    return lookup_name(s, t, sizeof t / sizeof t[0]);
}

/* ---- defaults and set-by-name ------------------------------------------------------------ */

void lg_settings_default(lg_test_settings *s)
{
    memset(s, 0, sizeof *s);
    s->scenario = LG_SINGLE_STREAM;
    s->mode = LG_PERFORMANCE_ONLY;
    s->single_stream_expected_latency_ns = 1000000;
    s->single_stream_target_latency_percentile = 0.90;
    s->multi_stream_expected_latency_ns = 8000000;
    s->multi_stream_target_latency_percentile = 0.99;
    s->multi_stream_samples_per_query = 8;
    s->server_target_qps = 1;
    s->server_target_latency_ns = 100000000;
    s->server_target_latency_percentile = 0.99;
    s->server_coalesce_queries = 0;
    s->server_find_peak_qps_decimals_of_precision = 1;
    s->server_find_peak_qps_boundary_step_size = 1;
    s->server_max_async_queries = 0;
    s->server_num_issue_query_threads = 0;
    s->offline_expected_qps = 1;
    s->min_duration_ms = 10000;
    s->max_duration_ms = 0;
    s->min_query_count = 100;
    s->max_query_count = 0;
    s->accuracy_log_probability = 0.0;
    s->server_ttft_latency = 100000000;
    s->server_tpot_latency = 100000000;
    s->token_latency_scaling_factor = 0;
    /* reference r0.5 test_settings.h, TestSettings */
    s->multi_stream_target_qps = 10.0;
    s->multi_stream_max_async_queries = 1;
    s->multi_stream_target_latency_ns = 100000000;
}

void lg_settings_release_defaults(lg_test_settings *s, const lg_version_rules *vr)
{
    if (!vr)
        return;
    if (vr->settings_defaults.multi_stream_samples_per_query)
        s->multi_stream_samples_per_query = vr->settings_defaults.multi_stream_samples_per_query;
    if (vr->settings_defaults.multi_stream_target_latency_percentile > 0)
        s->multi_stream_target_latency_percentile = vr->settings_defaults.multi_stream_target_latency_percentile;
}

void lg_log_settings_default(lg_log_settings *l)
{
    memset(l, 0, sizeof *l);
    l->outdir = ".";
    l->prefix = "mlperf_log_";
    l->suffix = "";
    l->enable_trace = 1;
}

void lg_run_options_default(lg_run_options *o)
{
    memset(o, 0, sizeof *o);
    o->compat = LG_COMPAT_LATEST;
    o->audit_config_path = "audit.config";
}

enum ftype { F_SCENARIO, F_MODE, F_DOUBLE, F_U64, F_BOOL, F_INT };

struct field {
    const char *name;
    enum ftype type;
    size_t off;
};

#define FLD(n, t) {#n, t, offsetof(lg_test_settings, n)}
static const struct field fields[] = {
    FLD(scenario, F_SCENARIO),
    FLD(mode, F_MODE),
    FLD(single_stream_expected_latency_ns, F_DOUBLE),
    FLD(single_stream_target_latency_percentile, F_DOUBLE),
    FLD(multi_stream_expected_latency_ns, F_DOUBLE),
    FLD(multi_stream_target_latency_percentile, F_DOUBLE),
    FLD(multi_stream_samples_per_query, F_U64),
    FLD(server_target_qps, F_DOUBLE),
    FLD(server_target_latency_ns, F_U64),
    FLD(server_target_latency_percentile, F_DOUBLE),
    FLD(server_coalesce_queries, F_BOOL),
    FLD(server_find_peak_qps_decimals_of_precision, F_INT),
    FLD(server_find_peak_qps_boundary_step_size, F_DOUBLE),
    FLD(server_max_async_queries, F_U64),
    FLD(server_num_issue_query_threads, F_U64),
    FLD(offline_expected_qps, F_DOUBLE),
    FLD(sample_concatenate_permutation, F_BOOL),
    FLD(min_duration_ms, F_U64),
    FLD(max_duration_ms, F_U64),
    FLD(min_query_count, F_U64),
    FLD(max_query_count, F_U64),
    FLD(qsl_rng_seed, F_U64),
    FLD(sample_index_rng_seed, F_U64),
    FLD(schedule_rng_seed, F_U64),
    FLD(accuracy_log_rng_seed, F_U64),
    FLD(accuracy_log_probability, F_DOUBLE),
    FLD(accuracy_log_sampling_target, F_U64),
    FLD(test05, F_BOOL),
    FLD(test05_qsl_rng_seed, F_U64),
    FLD(test05_sample_index_rng_seed, F_U64),
    FLD(test05_schedule_rng_seed, F_U64),
    FLD(print_timestamps, F_BOOL),
    FLD(performance_issue_unique, F_BOOL),
    FLD(performance_issue_same, F_BOOL),
    FLD(performance_issue_same_index, F_U64),
    FLD(performance_sample_count_override, F_U64),
    FLD(accuracy_sample_count_override, F_U64),
    FLD(use_token_latencies, F_BOOL),
    FLD(server_ttft_latency, F_U64),
    FLD(server_tpot_latency, F_U64),
    FLD(infer_token_latencies, F_BOOL),
    FLD(token_latency_scaling_factor, F_U64),
    FLD(multi_stream_target_qps, F_DOUBLE),
    FLD(multi_stream_max_async_queries, F_U64),
    FLD(multi_stream_target_latency_ns, F_U64),
};
#undef FLD
#define NFIELDS (sizeof fields / sizeof fields[0])

const char *const lg_settings_field_names[] = {
    "scenario", "mode", "single_stream_expected_latency_ns",
    "single_stream_target_latency_percentile", "multi_stream_expected_latency_ns",
    "multi_stream_target_latency_percentile", "multi_stream_samples_per_query",
    "server_target_qps", "server_target_latency_ns", "server_target_latency_percentile",
    "server_coalesce_queries", "server_find_peak_qps_decimals_of_precision",
    "server_find_peak_qps_boundary_step_size", "server_max_async_queries",
    "server_num_issue_query_threads", "offline_expected_qps", "sample_concatenate_permutation",
    "min_duration_ms", "max_duration_ms", "min_query_count", "max_query_count", "qsl_rng_seed",
    "sample_index_rng_seed", "schedule_rng_seed", "accuracy_log_rng_seed",
    "accuracy_log_probability", "accuracy_log_sampling_target", "test05", "test05_qsl_rng_seed",
    "test05_sample_index_rng_seed", "test05_schedule_rng_seed", "print_timestamps",
    "performance_issue_unique", "performance_issue_same", "performance_issue_same_index",
    "performance_sample_count_override", "accuracy_sample_count_override", "use_token_latencies",
    "server_ttft_latency", "server_tpot_latency", "infer_token_latencies",
    "token_latency_scaling_factor", "multi_stream_target_qps", "multi_stream_max_async_queries",
    "multi_stream_target_latency_ns", NULL};

/* Edit distance for "did you mean" hints. */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64)
        return 99;
    size_t d[65][65];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            size_t c = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < c)
                c = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < c)
                c = d[i][j - 1] + 1;
            d[i][j] = c;
        }
    return d[la][lb];
}

static const char *closest(const char *name, const char *const *cands, size_t n)
{
    const char *best = NULL;
    size_t bd = 4;
    for (size_t i = 0; i < n && cands[i]; i++) {
        size_t d = edit_distance(name, cands[i]);
        if (d < bd) {
            bd = d;
            best = cands[i];
        }
    }
    return best;
}

int lg_settings_set(lg_test_settings *s, const char *name, const char *value, ms_err *e)
{
    const struct field *f = NULL;
    for (size_t i = 0; i < NFIELDS; i++)
        if (!strcmp(fields[i].name, name))
            f = &fields[i];
    if (!f) {
        const char *hint = closest(name, lg_settings_field_names, NFIELDS);
        return ms_err_set(e, MS_EUSAGE, "unknown setting '%s'%s%s%s", name,
                          hint ? " (did you mean '" : "", hint ? hint : "", hint ? "'?)" : "");
    }
    char *p = (char *)s + f->off;
    switch (f->type) {
    case F_SCENARIO: {
        int v = lg_scenario_parse(value);
        if (v < 0)
            return ms_err_set(e, MS_EUSAGE, "%s: '%s' is not a scenario (SingleStream, MultiStream, Server, Offline)", name, value);
        *(lg_scenario *)p = (lg_scenario)v;
        return MS_OK;
    }
    case F_MODE: {
        int v = lg_mode_parse(value);
        uint64_t u;
        if (v < 0 && ms_parse_u64(value, &u) == 0 && u <= 3)
            v = (int)u;
        if (v < 0)
            return ms_err_set(e, MS_EUSAGE, "%s: '%s' is not a mode (SubmissionRun, AccuracyOnly, PerformanceOnly, FindPeakPerformance or 0..3)", name, value);
        *(lg_mode *)p = (lg_mode)v;
        return MS_OK;
    }
    case F_DOUBLE: {
        double d;
        if (ms_parse_double(value, &d) != 0)
            return ms_err_set(e, MS_EUSAGE, "%s: '%s' is not a finite number", name, value);
        *(double *)p = d;
        return MS_OK;
    }
    case F_U64: {
        uint64_t u;
        if (ms_parse_u64(value, &u) != 0)
            return ms_err_set(e, MS_EUSAGE, "%s: '%s' is not an unsigned 64-bit integer", name, value);
        *(uint64_t *)p = u;
        return MS_OK;
    }
    case F_BOOL: {
        int v;
        if (!strcmp(value, "1") || !strcasecmp(value, "true") || !strcasecmp(value, "yes"))
            v = 1;
        else if (!strcmp(value, "0") || !strcasecmp(value, "false") || !strcasecmp(value, "no"))
            v = 0;
        else
            return ms_err_set(e, MS_EUSAGE, "%s: '%s' is not a boolean (0/1/true/false)", name, value);
        *(int *)p = v;
        return MS_OK;
    }
    case F_INT: {
        int64_t v;
        if (ms_parse_i64(value, &v) != 0 || v < -1000000 || v > 1000000)
            return ms_err_set(e, MS_EUSAGE, "%s: '%s' is not a small integer", name, value);
        *(int *)p = (int)v;
        return MS_OK;
    }
    }
    return ms_err_set(e, MS_EUSAGE, "internal: bad field type");
}

int lg_settings_get(const lg_test_settings *s, const char *name, char *buf, size_t n)
{
    for (size_t i = 0; i < NFIELDS; i++) {
        if (strcmp(fields[i].name, name))
            continue;
        const char *p = (const char *)s + fields[i].off;
        switch (fields[i].type) {
        case F_SCENARIO: snprintf(buf, n, "%s", lg_scenario_name(*(const lg_scenario *)p)); break;
        case F_MODE: snprintf(buf, n, "%s", lg_mode_name(*(const lg_mode *)p)); break;
        case F_DOUBLE: snprintf(buf, n, "%.17g", *(const double *)p); break;
        case F_U64: snprintf(buf, n, "%llu", (unsigned long long)*(const uint64_t *)p); break;
        case F_BOOL:
        case F_INT: snprintf(buf, n, "%d", *(const int *)p); break;
        }
        return 0;
    }
    return -1;
}

/* ---- config files ------------------------------------------------------------------------ */

typedef struct conf_entry {
    char *key;
    char *value;
    size_t line;
    int used;       /* a lookup returned it */
    int matched;    /* a lookup considered it (possibly shadowed) */
    int noted;      /* a finding was already recorded for it */
} conf_entry;

typedef struct conf_file {
    char *name;
    int type;
    int applied;      /* 0 when the file had a syntax error */
    conf_entry *v;
    size_t n;
} conf_file;

typedef struct applied_rec {
    size_t field_off;   /* offsetof in lg_test_settings */
    size_t file;        /* index in files */
    size_t entry;       /* index in that file */
} applied_rec;

struct lg_conf_session {
    lg_compat compat;
    char *mlperf_text;
    size_t mlperf_len;
    char *mlperf_name;
    int user_conf_count;
    conf_file *files;
    size_t nfiles;
    applied_rec *applied;
    size_t napplied, capplied;
    lg_conf_finding *findings;
    size_t nfindings;
    char **log_errors;
    size_t nlog_errors;
    int oom;
    int audit_test05;  /* honour test05 and test05_* seeds in audit.config (LoadGen <= v4.1) */
};

const char *lg_embedded_mlperf_conf(lg_compat c, size_t *len, const char **name)
{
    const char *want = lg_version_rules_of_compat(c)->mlperf_conf;
    for (const struct lg_embedded_file *f = lg_embedded_files; f->name; f++)
        if (!strcmp(f->name, want)) {
            if (len)
                *len = f->len;
            if (name)
                *name = f->name;
            return f->text;
        }
    return NULL;
}

lg_conf_session *lg_conf_session_new(lg_compat compat, const char *mlperf_conf_path, ms_err *e)
{
    lg_conf_session *cs = calloc(1, sizeof *cs);
    if (!cs) {
        ms_err_oom(e);
        return NULL;
    }
    cs->compat = compat;
    if (mlperf_conf_path) {
        if (ms_read_file(mlperf_conf_path, 16u << 20, &cs->mlperf_text, &cs->mlperf_len, e)) {
            free(cs);
            return NULL;
        }
        cs->mlperf_name = strdup(mlperf_conf_path);
    } else {
        const char *name;
        const char *t = lg_embedded_mlperf_conf(compat, &cs->mlperf_len, &name);
        if (!t) {
            ms_err_set(e, MS_ERUNTIME, "internal: no embedded mlperf.conf for this version");
            free(cs);
            return NULL;
        }
        cs->mlperf_text = malloc(cs->mlperf_len + 1);
        if (cs->mlperf_text) {
            memcpy(cs->mlperf_text, t, cs->mlperf_len + 1);
        }
        char nm[80];
        snprintf(nm, sizeof nm, "<embedded %s>", name);
        cs->mlperf_name = strdup(nm);
    }
    if (!cs->mlperf_text || !cs->mlperf_name) {
        lg_conf_session_free(cs);
        ms_err_oom(e);
        return NULL;
    }
    return cs;
}

void lg_conf_session_free(lg_conf_session *cs)
{
    if (!cs)
        return;
    for (size_t i = 0; i < cs->nfiles; i++) {
        for (size_t j = 0; j < cs->files[i].n; j++) {
            free(cs->files[i].v[j].key);
            free(cs->files[i].v[j].value);
        }
        free(cs->files[i].v);
        free(cs->files[i].name);
    }
    free(cs->files);
    free(cs->applied);
    free(cs->findings);
    for (size_t i = 0; i < cs->nlog_errors; i++)
        free(cs->log_errors[i]);
    free(cs->log_errors);
    free(cs->mlperf_text);
    free(cs->mlperf_name);
    free(cs);
}

size_t lg_conf_session_nfindings(const lg_conf_session *cs)
{
    return cs->nfindings;
}

const lg_conf_finding *lg_conf_session_finding(const lg_conf_session *cs, size_t i)
{
    return i < cs->nfindings ? &cs->findings[i] : NULL;
}

void lg_conf_session_clear_log_errors(lg_conf_session *cs)
{
    if (!cs)
        return;
    for (size_t i = 0; i < cs->nlog_errors; i++)
        free(cs->log_errors[i]);
    cs->nlog_errors = 0;
}

size_t lg_conf_session_nlog_errors(const lg_conf_session *cs)
{
    return cs ? cs->nlog_errors : 0;
}

const char *lg_conf_session_log_error(const lg_conf_session *cs, size_t i)
{
    return i < cs->nlog_errors ? cs->log_errors[i] : NULL;
}

lg_compat lg_conf_session_compat(const lg_conf_session *cs)
{
    return cs->compat;
}

void lg_conf_session_set_audit_test05(lg_conf_session *cs, int on)
{
    cs->audit_test05 = on;
}

static void add_finding(lg_conf_session *cs, lg_conf_finding_kind kind, const char *file,
                        size_t line, const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void add_finding(lg_conf_session *cs, lg_conf_finding_kind kind, const char *file,
                        size_t line, const char *fmt, ...)
{
    lg_conf_finding *nf = realloc(cs->findings, (cs->nfindings + 1) * sizeof *nf);
    if (!nf) {
        cs->oom = 1;
        return;
    }
    cs->findings = nf;
    lg_conf_finding *f = &nf[cs->nfindings++];
    memset(f, 0, sizeof *f);
    f->kind = kind;
    snprintf(f->file, sizeof f->file, "%s", file);
    f->line = line;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->text, sizeof f->text, fmt, ap);
    va_end(ap);
}

static void add_log_error(lg_conf_session *cs, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void add_log_error(lg_conf_session *cs, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char **nl = realloc(cs->log_errors, (cs->nlog_errors + 1) * sizeof *nl);
    char *s = strdup(buf);
    if (!nl || !s) {
        free(s);
        if (nl)
            cs->log_errors = nl;
        cs->oom = 1;
        return;
    }
    cs->log_errors = nl;
    nl[cs->nlog_errors++] = s;
}

/* The reference's value test: strtoul(base 0) or strtod must consume the whole token. */
static int is_number_token(const char *tok)
{
    char *stop;
    size_t n = strlen(tok);
    (void)strtoul(tok, &stop, 0);
    if (stop == tok + n)
        return 1;
    (void)strtod(tok, &stop);
    return stop == tok + n;
}

static int entry_set(conf_file *cf, const char *key, const char *value, size_t line,
                     lg_conf_session *cs, int report_dups)
{
    for (size_t i = 0; i < cf->n; i++)
        if (!strcmp(cf->v[i].key, key)) {
            if (report_dups && cf->v[i].line != line)
                add_finding(cs, LG_CONF_OVERRIDDEN, cf->name, cf->v[i].line,
                            "'%s' is set again on line %zu, which replaces this value", key, line);
            char *nv = strdup(value);
            if (!nv)
                return -1;
            free(cf->v[i].value);
            cf->v[i].value = nv;
            cf->v[i].line = line;
            return 0;
        }
    conf_entry *ne = realloc(cf->v, (cf->n + 1) * sizeof *ne);
    if (!ne)
        return -1;
    cf->v = ne;
    conf_entry *en = &ne[cf->n];
    memset(en, 0, sizeof *en);
    en->key = strdup(key);
    en->value = strdup(value);
    en->line = line;
    if (!en->key || !en->value) {
        free(en->key);
        free(en->value);
        return -1;
    }
    cf->n++;
    return 0;
}

/* Tokenizes like `istream >> string` line by line (reference TestSettings::FromConfig). Returns
 * the number of syntax errors (each logged and recorded); -1 on allocation failure. */
static int parse_conf_text(lg_conf_session *cs, conf_file *cf, const char *text, size_t len)
{
    int errors = 0, report = cf->type != 0;
    size_t line_no = 0;
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        line_no++;
        int state = 0; /* 0 key, 1 equals, 2 value */
        char key[512] = "", tok[512];
        int ntok = 0, nvalues = 0;
        const char *q = le;
        const char *s = p;
        for (;;) {
            while (s < le && isspace((unsigned char)*s))
                s++;
            if (s >= le)
                break;
            const char *t0 = s;
            while (s < le && !isspace((unsigned char)*s))
                s++;
            size_t tl = (size_t)(s - t0);
            if (tl >= sizeof tok)
                tl = sizeof tok - 1;
            memcpy(tok, t0, tl);
            tok[tl] = '\0';
            ntok++;
            if (!strcmp(tok, "#") && state != 2)
                break;
            if (state == 2) {
                if (is_number_token(tok)) {
                    if (entry_set(cf, key, tok, line_no, cs, report && nvalues == 0) != 0)
                        return -1;
                    nvalues++;
                    continue;
                }
                errors++;
                add_log_error(cs, "value needs to be integer or double, line=%zu", line_no);
                add_finding(cs, LG_CONF_MALFORMED, cf->name, line_no,
                            "'%s' is not a number (value of '%s'; a trailing comment must not "
                            "follow a value); the whole file is rejected",
                            tok, key);
                break;
            }
            if (state == 1 && strcmp(tok, "=") != 0) {
                errors++;
                add_log_error(cs, "expected 'key=value', line=%zu", line_no);
                add_finding(cs, LG_CONF_MALFORMED, cf->name, line_no,
                            "expected '=' after '%s', found '%s' (write 'key = value' with spaces; "
                            "a comment is a lone '#'); the whole file is rejected",
                            key, tok);
                break;
            }
            if (state == 0)
                snprintf(key, sizeof key, "%s", tok);
            state++;
        }
        (void)q;
        if (report && ntok > 0 && state < 2 && errors == 0) {
            /* silently ignored by the reference */
            if (state == 1 && key[0] != '#' && strchr(key, '='))
                add_finding(cs, LG_CONF_IGNORED, cf->name, line_no,
                            "'%s' is one token, ignored by the LoadGen (write 'key = value' with spaces)", key);
            else if (state == 1 && key[0] != '#')
                add_finding(cs, LG_CONF_IGNORED, cf->name, line_no,
                            "'%s' alone on a line is ignored (expected 'key = value')", key);
        }
        if (report && state == 2 && nvalues == 0 && ntok == 2)
            add_finding(cs, LG_CONF_IGNORED, cf->name, line_no, "'%s =' has no value and is ignored", key);
        if (report && nvalues > 1)
            add_finding(cs, LG_CONF_IGNORED, cf->name, line_no,
                        "'%s' has %d values; only the last is used", key, nvalues);
        p = nl ? nl + 1 : end;
    }
    return errors;
}

/* ---- lookup and application (reference TestSettings::FromConfig, lookupkv) ---- */

typedef struct apply_ctx {
    lg_conf_session *cs;
    size_t file_idx;
    conf_file *cf;
    const char *model;
    const char *scenario;
    lg_test_settings *s;
} apply_ctx;

static conf_entry *find_entry(conf_file *cf, const char *key)
{
    for (size_t i = 0; i < cf->n; i++)
        if (!strcmp(cf->v[i].key, key))
            return &cf->v[i];
    return NULL;
}

static conf_entry *lookup(apply_ctx *a, const char *scen, const char *name)
{
    char k[4][600];
    snprintf(k[0], sizeof k[0], "%s.%s.%s", a->model, scen, name);
    snprintf(k[1], sizeof k[1], "*.%s.%s", scen, name);
    snprintf(k[2], sizeof k[2], "%s.*.%s", a->model, name);
    snprintf(k[3], sizeof k[3], "*.*.%s", name);
    conf_entry *found = NULL;
    for (int i = 0; i < 4; i++) {
        conf_entry *en = find_entry(a->cf, k[i]);
        if (!en)
            continue;
        en->matched = 1;
        if (!found) {
            found = en;
            en->used = 1;
        } else if (a->cf->type != 0 && !en->noted) {
            en->noted = 1;
            add_finding(a->cs, LG_CONF_OVERRIDDEN, a->cf->name, en->line,
                        "'%s' is shadowed by the more specific '%s' on line %zu", en->key,
                        found->key, found->line);
        }
    }
    return found;
}

static void record_applied(apply_ctx *a, size_t off, conf_entry *en)
{
    lg_conf_session *cs = a->cs;
    if (MS_GROW(cs->applied, cs->capplied, cs->napplied + 1, 64)) {
        cs->oom = 1;
        return;
    }
    cs->applied[cs->napplied++] = (applied_rec){off, a->file_idx, (size_t)(en - a->cf->v)};
}

enum { AP_U64, AP_DOUBLE, AP_BOOL_EQ1, AP_BOOL_NZ };

/* Sets the field at off from the key's value if the files have it (1), as the reference's
 * TestSettings::FromConfig reads it: AP_U64 and AP_DOUBLE times mult, AP_BOOL_EQ1 "== 1",
 * AP_BOOL_NZ "!= 0". */
static int apply_key(apply_ctx *a, int kind, const char *scen, const char *name, size_t off, double mult)
{
    conf_entry *en = lookup(a, scen, name);
    if (!en)
        return 0;
    char *field = (char *)a->s + off;
    if (kind == AP_DOUBLE) {
        *(double *)(void *)field = strtod(en->value, NULL) * mult;
    } else {
        uint64_t v = strtoull(en->value, NULL, 0);
        if (kind == AP_U64)
            *(uint64_t *)(void *)field = v * (uint64_t)mult;
        else
            *(int *)(void *)field = kind == AP_BOOL_EQ1 ? v == 1 : v != 0;
    }
    record_applied(a, off, en);
    return 1;
}

#define OFF(f) offsetof(lg_test_settings, f)

static void apply_all(apply_ctx *a)
{
    const char *S = a->scenario;
    lg_test_settings *s = a->s;
    int type = a->cf->type;
    conf_entry *en = lookup(a, S, "mode");
    if (en) {
        uint64_t v = strtoull(en->value, NULL, 0);
        if (v <= 3) {
            s->mode = (lg_mode)v;
            record_applied(a, OFF(mode), en);
        } else {
            add_log_error(a->cs, "Invalid value passed to Mode key in config.");
            add_finding(a->cs, LG_CONF_MALFORMED, a->cf->name, en->line,
                        "mode must be 0..3 (got %s); the LoadGen logs an error and keeps the mode",
                        en->value);
        }
    }
    const lg_version_rules *vr = lg_version_rules_of_compat(a->cs->compat);
    /* FromConfig's conf_type (tag v5.0.1 on): the seeds, accuracy_log_probability and the test05
     * keys come from mlperf.conf only; up to tag v4.1 every file sets them */
    int any_file = !vr->mlperf_conf_only_keys;
    if (type == 0 || any_file) {
        apply_key(a, AP_U64, S, "qsl_rng_seed", OFF(qsl_rng_seed), 1);
        apply_key(a, AP_U64, S, "sample_index_rng_seed", OFF(sample_index_rng_seed), 1);
        apply_key(a, AP_U64, S, "schedule_rng_seed", OFF(schedule_rng_seed), 1);
        apply_key(a, AP_DOUBLE, S, "accuracy_log_probability", OFF(accuracy_log_probability), 0.01);
    }
    if ((type == 0 || any_file || (type == 2 && a->cs->audit_test05)) && vr->test05_flag) {
        /* from mlperf.conf; in the alternate-seed audit (TEST05, compliance/nvidia/TEST05 of
         * v4.1) also from audit.config: LoadGen <= v4.1 read these from any file (the test05
         * field exists from tag v3.0) */
        apply_key(a, AP_BOOL_EQ1, S, "test05", OFF(test05), 1);
        apply_key(a, AP_U64, S, "test05_qsl_rng_seed", OFF(test05_qsl_rng_seed), 1);
        apply_key(a, AP_U64, S, "test05_sample_index_rng_seed", OFF(test05_sample_index_rng_seed), 1);
        apply_key(a, AP_U64, S, "test05_schedule_rng_seed", OFF(test05_schedule_rng_seed), 1);
    }
    apply_key(a, AP_BOOL_EQ1, S, "use_token_latencies", OFF(use_token_latencies), 1);
    if (s->use_token_latencies) {
        apply_key(a, AP_U64, "Server", "ttft_latency", OFF(server_ttft_latency), 1000000);
        apply_key(a, AP_U64, "Server", "tpot_latency", OFF(server_tpot_latency), 1000000);
    }
    apply_key(a, AP_BOOL_EQ1, S, "infer_token_latencies", OFF(infer_token_latencies), 1);
    if (s->infer_token_latencies)
        apply_key(a, AP_U64, S, "token_latency_scaling_factor", OFF(token_latency_scaling_factor), 1);
    apply_key(a, AP_DOUBLE, "SingleStream", "target_latency_percentile",
              OFF(single_stream_target_latency_percentile), 0.01);
    apply_key(a, AP_DOUBLE, "MultiStream", "target_latency_percentile",
              OFF(multi_stream_target_latency_percentile), 0.01);
    apply_key(a, AP_U64, "MultiStream", "samples_per_query", OFF(multi_stream_samples_per_query), 1);
    if (lg_version_rules_of_compat(a->cs->compat)->early_multistream) {
        /* reference r0.5 test_settings_internal.cc, TestSettings::FromConfig */
        apply_key(a, AP_DOUBLE, "MultiStream", "target_qps", OFF(multi_stream_target_qps), 1);
        apply_key(a, AP_U64, "MultiStream", "max_async_queries", OFF(multi_stream_max_async_queries), 1);
    }
    apply_key(a, AP_DOUBLE, "Server", "target_latency_percentile",
              OFF(server_target_latency_percentile), 0.01);
    apply_key(a, AP_U64, "Server", "target_latency", OFF(server_target_latency_ns), 1000000);
    apply_key(a, AP_BOOL_NZ, S, "performance_issue_unique", OFF(performance_issue_unique), 1);
    apply_key(a, AP_BOOL_NZ, S, "performance_issue_same", OFF(performance_issue_same), 1);
    apply_key(a, AP_U64, S, "performance_issue_same_index", OFF(performance_issue_same_index), 1);
    apply_key(a, AP_BOOL_EQ1, S, "sample_concatenate_permutation", OFF(sample_concatenate_permutation), 1);
    apply_key(a, AP_BOOL_NZ, "Server", "coalesce_queries", OFF(server_coalesce_queries), 1);
    apply_key(a, AP_U64, "Server", "max_async_queries", OFF(server_max_async_queries), 1);
    apply_key(a, AP_U64, S, "min_duration", OFF(min_duration_ms), 1);
    apply_key(a, AP_U64, S, "max_duration", OFF(max_duration_ms), 1);
    apply_key(a, AP_U64, S, "min_query_count", OFF(min_query_count), 1);
    apply_key(a, AP_U64, S, "max_query_count", OFF(max_query_count), 1);
    apply_key(a, AP_U64, S, "performance_sample_count_override", OFF(performance_sample_count_override), 1);
    if (lg_version_rules_of_compat(a->cs->compat)->logs_accuracy_sample_count)
        apply_key(a, AP_U64, S, "accuracy_sample_count_override", OFF(accuracy_sample_count_override), 1);
    apply_key(a, AP_DOUBLE, "SingleStream", "target_latency", OFF(single_stream_expected_latency_ns), 1e6);
    apply_key(a, AP_DOUBLE, "MultiStream", "target_latency", OFF(multi_stream_expected_latency_ns), 1e6);
    apply_key(a, AP_DOUBLE, "Server", "target_qps", OFF(server_target_qps), 1);
    apply_key(a, AP_DOUBLE, "Offline", "target_qps", OFF(offline_expected_qps), 1);
    apply_key(a, AP_BOOL_NZ, S, "print_timestamps", OFF(print_timestamps), 1);
    apply_key(a, AP_U64, S, "accuracy_log_rng_seed", OFF(accuracy_log_rng_seed), 1);
    if (vr->logs_sampling_target) /* a field from tag v0.7.1 */
        apply_key(a, AP_U64, S, "accuracy_log_sampling_target", OFF(accuracy_log_sampling_target), 1);
}

/* Names the LoadGen looks up, and from which files (for unknown/ignored diagnostics). */
static const char *const conf_names_any[] = {
    "mode", "use_token_latencies", "ttft_latency", "tpot_latency", "infer_token_latencies",
    "token_latency_scaling_factor", "target_latency_percentile", "samples_per_query",
    "target_latency", "performance_issue_unique", "performance_issue_same",
    "performance_issue_same_index", "sample_concatenate_permutation", "coalesce_queries",
    "max_async_queries", "min_duration", "max_duration", "min_query_count", "max_query_count",
    "performance_sample_count_override", "accuracy_sample_count_override", "target_qps",
    "print_timestamps", "accuracy_log_rng_seed", "accuracy_log_sampling_target", NULL};
static const char *const conf_names_mlperf_only[] = {
    "qsl_rng_seed", "sample_index_rng_seed", "schedule_rng_seed", "accuracy_log_probability",
    "test05", "test05_qsl_rng_seed", "test05_sample_index_rng_seed", "test05_schedule_rng_seed",
    NULL};

static int in_list(const char *s, const char *const *l)
{
    for (; *l; l++)
        if (!strcmp(s, *l))
            return 1;
    return 0;
}

static int is_scenario_component(const char *s)
{
    return !strcmp(s, "*") || !strcmp(s, "SingleStream") || !strcmp(s, "MultiStream") ||
           !strcmp(s, "Server") || !strcmp(s, "Offline");
}

/* 1 if `model` appears as a model component of the session's mlperf.conf. */
static int known_model(const lg_conf_session *cs, const char *model)
{
    size_t ml = strlen(model);
    const char *p = cs->mlperf_text;
    while (p && *p) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!strncmp(p, model, ml) && p[ml] == '.')
            return 1;
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    return 0;
}

static void report_unused(lg_conf_session *cs, conf_file *cf, const char *model, const char *scen)
{
    if (cf->type == 0)
        return;
    for (size_t i = 0; i < cf->n; i++) {
        conf_entry *en = &cf->v[i];
        if (en->used || en->noted)
            continue;
        /* split model.scenario.name (the model may itself contain dots, e.g. wan-2.2-...) */
        const char *last = strrchr(en->key, '.');
        if (!last || last == en->key) {
            add_finding(cs, LG_CONF_UNKNOWN, cf->name, en->line,
                        "'%s' is not of the form model.scenario.name", en->key);
            continue;
        }
        const char *name = last + 1;
        const char *prev = last - 1;
        while (prev > en->key && *prev != '.')
            prev--;
        if (prev == en->key) {
            add_finding(cs, LG_CONF_UNKNOWN, cf->name, en->line,
                        "'%s' is not of the form model.scenario.name", en->key);
            continue;
        }
        char kmodel[256], kscen[128];
        snprintf(kmodel, sizeof kmodel, "%.*s", (int)(prev - en->key), en->key);
        snprintf(kscen, sizeof kscen, "%.*s", (int)(last - prev - 1), prev + 1);
        int any = in_list(name, conf_names_any), mlo = in_list(name, conf_names_mlperf_only);
        if (!any && !mlo) {
            const char *all[64];
            size_t n = 0;
            for (const char *const *l = conf_names_any; *l; l++)
                all[n++] = *l;
            for (const char *const *l = conf_names_mlperf_only; *l; l++)
                all[n++] = *l;
            const char *hint = closest(name, all, n);
            add_finding(cs, LG_CONF_UNKNOWN, cf->name, en->line,
                        "'%s' is not a LoadGen setting; the line is ignored%s%s%s", name,
                        hint ? " (did you mean '" : "", hint ? hint : "", hint ? "'?)" : "");
            continue;
        }
        if (mlo && cf->type != 0 && lg_version_rules_of_compat(cs->compat)->mlperf_conf_only_keys) {
            add_finding(cs, LG_CONF_IGNORED, cf->name, en->line,
                        "'%s' is only read from mlperf.conf; the LoadGen ignores it in %s", name,
                        cf->type == 2 ? "audit.config" : "user.conf");
            continue;
        }
        if (!is_scenario_component(kscen)) {
            add_finding(cs, LG_CONF_IGNORED, cf->name, en->line,
                        "'%s' is not a scenario (SingleStream, MultiStream, Server, Offline or *; "
                        "case matters); the line never matches",
                        kscen);
            continue;
        }
        if (cf->type == 2 && strcmp(kmodel, "*") != 0) {
            add_finding(cs, LG_CONF_IGNORED, cf->name, en->line,
                        "audit.config is applied with model '*', so the model-specific '%s' "
                        "never applies",
                        en->key);
            continue;
        }
        if (!strcmp(name, "ttft_latency") || !strcmp(name, "tpot_latency") ||
            !strcmp(name, "token_latency_scaling_factor")) {
            int model_ok = !strcmp(kmodel, "*") || !strcmp(kmodel, model);
            if (model_ok) {
                add_finding(cs, LG_CONF_IGNORED, cf->name, en->line,
                            "'%s' is only read when %s is 1 (it is not, after this file)", name,
                            strcmp(name, "token_latency_scaling_factor") ? "use_token_latencies"
                                                                         : "infer_token_latencies");
                continue;
            }
        }
        if (strcmp(kmodel, "*") != 0 && strcmp(kmodel, model) != 0 && !known_model(cs, kmodel)) {
            add_finding(cs, LG_CONF_IGNORED, cf->name, en->line,
                        "model '%s' is neither --model '%s' nor a model of mlperf.conf; the line "
                        "never matches",
                        kmodel, model);
            continue;
        }
        add_finding(cs, LG_CONF_NOT_APPLICABLE, cf->name, en->line,
                    "'%s' is for another %s (checked: model '%s', scenario '%s')", en->key,
                    strcmp(kmodel, "*") && strcmp(kmodel, model) ? "model" : "scenario", model,
                    scen);
    }
}

static int apply_text(lg_conf_session *cs, lg_test_settings *s, const char *name,
                      const char *text, size_t len, const char *model, const char *scenario,
                      int conf_type)
{
    conf_file *nf = realloc(cs->files, (cs->nfiles + 1) * sizeof *nf);
    if (!nf) {
        cs->oom = 1;
        return -ENOMEM;
    }
    cs->files = nf;
    conf_file *cf = &nf[cs->nfiles];
    memset(cf, 0, sizeof *cf);
    cf->name = strdup(name);
    cf->type = conf_type;
    if (!cf->name) {
        cs->oom = 1;
        return -ENOMEM;
    }
    size_t idx = cs->nfiles++;
    int errors = parse_conf_text(cs, cf, text, len);
    if (errors < 0) {
        cs->oom = 1;
        return -ENOMEM;
    }
    if (errors > 0)
        return -EINVAL;
    cf->applied = 1;
    apply_ctx a = {cs, idx, cf, model, scenario, s};
    apply_all(&a);
    report_unused(cs, cf, model, scenario);
    return 0;
}

/* The conf_type 1 prologue (reference test_settings_internal.cc, TestSettings::FromConfig): the
 * first user.conf brings the mlperf.conf. */
static void begin_user_conf(lg_conf_session *cs, lg_test_settings *s, const char *name,
                            const char *model, const char *scenario)
{
    if (cs->user_conf_count == 0) {
        apply_text(cs, s, cs->mlperf_name, cs->mlperf_text, cs->mlperf_len, model, scenario, 0);
    } else if (lg_version_rules_of_compat(cs->compat)->mlperf_conf_only_keys) {
        add_log_error(cs, "Multiple conf files are used. This is not valid for official submission.");
        add_finding(cs, LG_CONF_IGNORED, name, 0,
                    "a second user.conf is applied, which the LoadGen logs as an error "
                    "(\"Multiple conf files are used\") and the checker rejects");
    }
    cs->user_conf_count++;
}

int lg_settings_from_config_text(lg_conf_session *cs, lg_test_settings *s, const char *name,
                                 const char *text, size_t len, const char *model,
                                 const char *scenario, int conf_type)
{
    if (conf_type == 1)
        begin_user_conf(cs, s, name, model, scenario);
    return apply_text(cs, s, name, text, len, model, scenario, conf_type);
}

int lg_settings_apply_mlperf_conf(lg_conf_session *cs, lg_test_settings *s, const char *model,
                                  const char *scenario)
{
    return apply_text(cs, s, cs->mlperf_name, cs->mlperf_text, cs->mlperf_len, model, scenario, 0);
}

int lg_settings_from_config(lg_conf_session *cs, lg_test_settings *s, const char *path,
                            const char *model, const char *scenario, int conf_type)
{
    if (conf_type == 1)
        begin_user_conf(cs, s, path, model, scenario);
    char *text;
    size_t len;
    ms_err e;
    if (ms_read_file(path, 16u << 20, &text, &len, &e) != MS_OK) {
        add_log_error(cs, "can't open file %s", path);
        add_finding(cs, LG_CONF_MALFORMED, path, 0, "cannot open: %s", e.msg);
        return -ENOENT;
    }
    int rc = apply_text(cs, s, path, text, len, model, scenario, conf_type);
    free(text);
    return rc;
}

void lg_conf_session_finish(lg_conf_session *cs)
{
    /* For every field, every application before the last one (from another line) was
     * overridden. Lines of mlperf.conf being overridden is the normal design; not reported. */
    for (size_t i = 0; i < cs->napplied; i++) {
        applied_rec *r = &cs->applied[i];
        conf_file *cf = &cs->files[r->file];
        if (cf->type == 0)
            continue;
        for (size_t j = i + 1; j < cs->napplied; j++) {
            applied_rec *later = &cs->applied[j];
            if (later->field_off != r->field_off)
                continue;
            conf_file *lf = &cs->files[later->file];
            conf_entry *le = &lf->v[later->entry];
            if (later->file == r->file && later->entry == r->entry)
                continue;
            conf_entry *en = &cf->v[r->entry];
            if (en->noted)
                break;
            en->noted = 1;
            add_finding(cs, LG_CONF_OVERRIDDEN, cf->name, en->line,
                        "'%s = %s' is overridden by '%s = %s' (%s:%zu)", en->key, en->value,
                        le->key, le->value, lf->name, le->line);
            break;
        }
    }
}

/* ---- effective settings (reference test_settings_internal.cc, TestSettingsInternal and
 * LogEffectiveSettings) */

static void ef_error(lg_effective *ef, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ef_error(lg_effective *ef, const char *fmt, ...)
{
    if (ef->n_errors >= 4)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ef->errors[ef->n_errors++], sizeof ef->errors[0], fmt, ap);
    va_end(ap);
}

/* A requested QPS; a negative one is an error and 1 is used (reference
 * test_settings_internal.cc, TestSettingsInternal). */
static double requested_qps(lg_effective *ef, const char *name, double qps)
{
    if (qps >= 0)
        return qps;
    ef_error(ef, "Invalid value for %s requested. requested: %g using: 1", name, qps);
    return 1;
}

void lg_effective_derive(lg_effective *ef, const lg_test_settings *s, size_t qsl_total,
                         size_t qsl_perf)
{
    memset(ef, 0, sizeof *ef);
    ef->scenario = s->scenario;
    ef->mode = s->mode;
    ef->samples_per_query = 1;
    ef->target_qps = 1;
    ef->max_async_queries = 0;
    ef->target_latency_ns = 0;
    ef->target_duration_ms = s->min_duration_ms;
    ef->min_duration_ms = s->min_duration_ms;
    ef->max_duration_ms = s->max_duration_ms;
    ef->min_query_count = s->min_query_count;
    ef->max_query_count = s->max_query_count;
    ef->min_sample_count = 0;
    ef->qsl_rng_seed = s->qsl_rng_seed;
    ef->sample_index_rng_seed = s->sample_index_rng_seed;
    ef->schedule_rng_seed = s->schedule_rng_seed;
    ef->accuracy_log_rng_seed = s->accuracy_log_rng_seed;
    ef->accuracy_log_probability = s->accuracy_log_probability;
    ef->accuracy_log_sampling_target = s->accuracy_log_sampling_target;
    ef->print_timestamps = s->print_timestamps;
    ef->performance_issue_unique = s->performance_issue_unique;
    ef->performance_issue_same = s->performance_issue_same;
    ef->performance_issue_same_index = s->performance_issue_same_index;
    ef->sample_concatenate_permutation = s->sample_concatenate_permutation;
    ef->use_token_latencies = s->use_token_latencies;
    ef->server_ttft_latency = s->server_ttft_latency;
    ef->server_tpot_latency = s->server_tpot_latency;
    ef->infer_token_latencies = s->infer_token_latencies;
    ef->token_latency_scaling_factor = s->token_latency_scaling_factor;
    ef->server_num_issue_query_threads = s->server_num_issue_query_threads;
    ef->server_coalesce_queries = s->server_coalesce_queries;
    ef->server_find_peak_qps_decimals_of_precision = s->server_find_peak_qps_decimals_of_precision;
    ef->server_find_peak_qps_boundary_step_size = s->server_find_peak_qps_boundary_step_size;

    switch (s->scenario) {
    case LG_SINGLE_STREAM:
        ef->target_qps = 1e9 / s->single_stream_expected_latency_ns;
        ef->target_latency_percentile = s->single_stream_target_latency_percentile;
        ef->max_async_queries = 1;
        break;
    case LG_MULTI_STREAM:
        ef->target_qps = 1e9 / s->multi_stream_expected_latency_ns;
        ef->target_latency_percentile = s->multi_stream_target_latency_percentile;
        ef->max_async_queries = 1;
        break;
    case LG_SERVER:
        ef->target_qps = requested_qps(ef, "server_target_qps", s->server_target_qps);
        ef->target_latency_ns = s->server_target_latency_ns;
        ef->target_latency_percentile = s->server_target_latency_percentile;
        ef->max_async_queries = s->server_max_async_queries;
        break;
    case LG_OFFLINE:
        ef->target_qps = requested_qps(ef, "offline_expected_qps", s->offline_expected_qps);
        ef->target_latency_percentile = 0.99;
        ef->max_async_queries = 1;
        break;
    }
    ef->performance_sample_count =
        s->performance_sample_count_override ? s->performance_sample_count_override : qsl_perf;
    ef->accuracy_sample_count =
        s->accuracy_sample_count_override ? s->accuracy_sample_count_override : qsl_total;
    if (s->scenario == LG_MULTI_STREAM)
        ef->samples_per_query = s->multi_stream_samples_per_query;
    if (s->scenario == LG_OFFLINE) {
        double secs = (double)ef->target_duration_ms / 1000.0;
        uint64_t tsc = (uint64_t)(1.1 * secs * ef->target_qps);
        ef->samples_per_query = s->performance_issue_unique
                                    ? ef->performance_sample_count
                                    : (ef->min_query_count > tsc ? ef->min_query_count : tsc);
        ef->min_query_count = 1;
        ef->target_duration_ms = 0;
    }
    if (s->scenario == LG_SINGLE_STREAM && s->sample_concatenate_permutation && qsl_perf > 0) {
        double secs = (double)ef->target_duration_ms / 1000.0;
        uint64_t expected = (uint64_t)(2.0 * secs * ef->target_qps);
        if (expected > ef->min_query_count)
            ef->min_query_count = expected;
        ef->min_query_count += qsl_perf - (ef->min_query_count % qsl_perf);
    }
    ef->min_sample_count = ef->min_query_count * ef->samples_per_query;
    if (s->performance_issue_same && s->performance_issue_same_index >= ef->performance_sample_count)
        ef_error(ef,
                 "Sample Idx to be repeated in performance_issue_same mode cannot be greater than "
                 "loaded performance_sample_count. performance_issue_same_index: %llu "
                 "performance_sample_count: %llu",
                 (unsigned long long)s->performance_issue_same_index,
                 (unsigned long long)ef->performance_sample_count);
    if (s->performance_issue_unique && s->performance_issue_same)
        ef_error(ef, "Performance_issue_unique and performance_issue_same, both cannot be true at "
                     "the same time. performance_issue_unique: 1 performance_issue_same: 1");
}
